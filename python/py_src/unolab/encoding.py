"""The observation and action encodings (the core's ``engine::encode``).

Every environment of this package, and unolab's network agents, read the same
features and the same action numbers:

* an observation is ``OBS_LEN`` (280) float32 values in the sections of
  ``SECTIONS``, only what the seat to act can see;
* an action is one number of ``Discrete(ACTIONS)`` (81): playing a card kind,
  drawing, keeping the drawn card, naming a colour, calling UNO, challenging,
  choosing a swap target, jumping in (``action_label(a)`` says which);
* the action mask of a decision is exactly its legal set.

docs/python.md has the tables.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from . import _core

OBS_LEN: int = _core.OBS_LEN
"""The length of an observation (280)."""

ACTIONS: int = _core.ACTIONS
"""The number of actions (81): one ``Discrete(ACTIONS)`` space for every decision."""

KINDS: int = _core.KINDS
"""The number of card kinds (59): 4 colours x 13 faces, then 7 wilds."""

MAX_PLAYERS: int = _core.MAX_PLAYERS
"""The most players at a table (10)."""


class Section(NamedTuple):
    """One section of the observation: ``obs[offset:offset + length]``."""

    name: str
    offset: int
    length: int
    doc: str


SECTIONS: tuple[Section, ...] = tuple(Section(*s) for s in _core.sections())
"""The sections of the observation, in order."""

DECISION_KINDS: tuple[str, ...] = tuple(_core.decision_kinds())
"""The kinds of decision by number (the ``decision`` section, ``VecEnv.kind``)."""

CARD_KINDS: tuple[str, ...] = tuple(_core.card_kinds())
"""The card kinds by number: action ``a < KINDS`` plays a card of kind ``CARD_KINDS[a]``."""


def section(name: str) -> slice:
    """The slice of the observation that holds section ``name``."""
    for s in SECTIONS:
        if s.name == name:
            return slice(s.offset, s.offset + s.length)
    raise ValueError(
        f"unknown section '{name}' (valid: {', '.join(s.name for s in SECTIONS)})"
    )


def action_label(action: int) -> str:
    """What action ``action`` does, in words (``"play red-7"``, ``"draw"``, ...)."""
    return _core.action_label(int(action))


def observation_bounds(deck_size: int) -> tuple[np.ndarray, np.ndarray]:
    """The lowest and highest value of each feature for a deck of ``deck_size`` cards.

    Counts of cards are at most the deck's size, one-hot sections 0 or 1, the
    direction -1 or +1; the pending draw and the match totals have no bound
    of the rules' own, so their high is float32's largest value.
    """
    big = float(np.finfo(np.float32).max)
    low = np.zeros(OBS_LEN, dtype=np.float32)
    high = np.ones(OBS_LEN, dtype=np.float32)
    for s in SECTIONS:
        r = slice(s.offset, s.offset + s.length)
        if s.name in ("hand", "hand_sizes", "discard"):
            high[r] = deck_size
        elif s.name == "draw_pile":
            high[r] = deck_size / 10
        elif s.name == "direction":
            low[r] = -1
        elif s.name in ("pending", "totals"):
            high[r] = big
    return low, high
