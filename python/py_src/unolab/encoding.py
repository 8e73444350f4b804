"""The observation and action encodings (the core's ``engine::encode``).

Every environment of this package, and unolab's network agents, read the same
features and the same action numbers:

* an observation is ``OBS_LEN`` (280) float32 values in the sections of
  ``SECTIONS``, only what the seat to act can see; with ``encoding="known"``
  the ``KNOWN_LEN`` (45) values of the known-cards section follow them
  (``OBS_LEN_KNOWN``, 325): what the seat knows of each other hand;
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
from ._options import bool_of, int_of

OBS_LEN: int = _core.OBS_LEN
"""The length of an observation (280)."""

KNOWN_LEN: int = _core.KNOWN_LEN
"""The length of the known-cards section (45): ``encoding="known"`` puts it
after the ``OBS_LEN`` features. For the seat ``k`` places after the one to
act in the direction of play (``k`` = 1 to 9; zeros past the table), five
values at ``known_section(k)``: how many cards the seat to act knows to be in
that hand, red, yellow, green, blue, then wild. A card is known there when
the seat gave it there in a seven-o 7 or 0 or a Wild Swap, or saw it there in
a challenge, and it has not been played since."""

OBS_LEN_KNOWN: int = _core.OBS_LEN_KNOWN
"""``OBS_LEN + KNOWN_LEN`` (325): an observation under ``encoding="known"``,
the input of a network that reads the known-cards section."""

KNOWN_CLASSES: tuple[str, ...] = ("red", "yellow", "green", "blue", "wild")
"""The classes each seat's five values of the known-cards section count, in order."""

ACTIONS: int = _core.ACTIONS
"""The number of actions (81): one ``Discrete(ACTIONS)`` space for every decision."""

KINDS: int = _core.KINDS
"""The number of card kinds (59): 4 colours x 13 faces, then 7 wilds."""

MAX_PLAYERS: int = _core.MAX_PLAYERS
"""The most players at a table (10)."""

ACT_PLAY: int = _core.ACT_PLAY
"""Actions ``ACT_PLAY + k`` (``k < KINDS``): play a card of kind ``CARD_KINDS[k]``."""
ACT_DRAW: int = _core.ACT_DRAW
"""Draw (a play decision), or take the pending draw (a stack decision)."""
ACT_PLAY_DRAWN: int = _core.ACT_PLAY_DRAWN
"""Play the card just drawn."""
ACT_KEEP: int = _core.ACT_KEEP
"""Keep the card just drawn."""
ACT_COLOR: int = _core.ACT_COLOR
"""Actions ``ACT_COLOR + c``: name red, yellow, green, blue (``c`` = 0..3)."""
ACT_UNO: int = _core.ACT_UNO
"""Call UNO."""
ACT_NO_UNO: int = _core.ACT_NO_UNO
"""Do not call UNO."""
ACT_CHALLENGE: int = _core.ACT_CHALLENGE
"""Challenge the Wild Draw Four just played."""
ACT_NO_CHALLENGE: int = _core.ACT_NO_CHALLENGE
"""Do not challenge."""
ACT_TARGET: int = _core.ACT_TARGET
"""Actions ``ACT_TARGET + k - 1``: swap hands with the opponent ``k`` places after (in the direction of play)."""
ACT_JUMP: int = _core.ACT_JUMP
"""Jump in out of turn with the identical card."""
ACT_NO_JUMP: int = _core.ACT_NO_JUMP
"""Do not jump in."""


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


DECISION_DOCS: dict[str, str] = {
    "play": "play a playable card or draw (on your turn)",
    "play_drawn": "play the card just drawn, or keep it",
    "color": "name a colour for a wild just played (or a wild start card)",
    "uno": "call UNO or not (one card left after a play)",
    "target": "choose whom to swap hands with (seven-o seven, wild swap)",
    "stack": "answer a pending draw with a draw card, or take it (stacking)",
    "challenge": "challenge the Wild Draw Four just played on you, or not",
    "jump_in": "jump in out of turn with a card identical to the top card, or not",
}
"""What each kind of decision asks (keys: ``DECISION_KINDS``)."""


def section(name: str) -> slice:
    """The slice of the observation that holds section ``name``."""
    for s in SECTIONS:
        if s.name == name:
            return slice(s.offset, s.offset + s.length)
    raise ValueError(
        f"unknown section '{name}' (valid: {', '.join(s.name for s in SECTIONS)})"
    )


def known_section(places_after: int) -> slice:
    """The slice of an ``OBS_LEN_KNOWN`` observation that holds the
    known-cards counts of the seat ``places_after`` places after the one to
    act (1 to ``MAX_PLAYERS - 1``), in the order of ``KNOWN_CLASSES``."""
    k = int_of("places_after", places_after)
    if not 1 <= k < MAX_PLAYERS:
        raise ValueError(f"{k} places after is not a seat (valid: 1 to {MAX_PLAYERS - 1})")
    start = OBS_LEN + (k - 1) * len(KNOWN_CLASSES)
    return slice(start, start + len(KNOWN_CLASSES))


def action_label(action: int) -> str:
    """What action ``action`` does, in words (``"play red-7"``, ``"draw"``, ...).

    ``action`` is an integer from 0 to ``ACTIONS - 1`` (``TypeError`` for
    another type, ``ValueError`` out of range)."""
    a = int_of("action", action)
    if not 0 <= a < ACTIONS:
        raise ValueError(f"action {a} is not an action (valid: 0 to {ACTIONS - 1})")
    return _core.action_label(a)


def observation_bounds(deck_size: int, known: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """The lowest and highest value of each feature for a deck of ``deck_size`` cards.

    Counts of cards are at most the deck's size, one-hot sections 0 or 1, the
    direction -1 or +1; the pending draw and the match totals have no bound
    of the rules' own, so their high is float32's largest value. With
    ``known``, ``OBS_LEN_KNOWN`` values: the known-cards section's counts
    follow, 0 to the deck's size.

    Raises:
        TypeError: ``deck_size`` not an integer (``int`` or numpy's).
        ValueError: ``deck_size`` below 1, or past 2**24 (float32 holds
            every integer up to there; a deck has at most 128 cards).
    """
    deck_size = int_of("deck_size", deck_size)
    if not 1 <= deck_size <= 2**24:
        raise ValueError(f"deck_size {deck_size} is not a deck's size (valid: 1 to 2**24)")
    known = bool_of("known", known)
    big = float(np.finfo(np.float32).max)
    length = OBS_LEN_KNOWN if known else OBS_LEN
    low = np.zeros(length, dtype=np.float32)
    high = np.ones(length, dtype=np.float32)
    high[OBS_LEN:] = deck_size
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


def _action_rows() -> list[tuple[int, int, str]]:
    """The action ranges ``[start, end)`` and the decisions they answer."""
    return [
        (ACT_PLAY, ACT_DRAW, "play, stack"),
        (ACT_DRAW, ACT_DRAW + 1, "play, stack"),
        (ACT_PLAY_DRAWN, ACT_PLAY_DRAWN + 1, "play_drawn"),
        (ACT_KEEP, ACT_KEEP + 1, "play_drawn"),
        (ACT_COLOR, ACT_UNO, "color"),
        (ACT_UNO, ACT_UNO + 1, "uno"),
        (ACT_NO_UNO, ACT_NO_UNO + 1, "uno"),
        (ACT_CHALLENGE, ACT_CHALLENGE + 1, "challenge"),
        (ACT_NO_CHALLENGE, ACT_NO_CHALLENGE + 1, "challenge"),
        (ACT_TARGET, ACT_JUMP, "target"),
        (ACT_JUMP, ACT_JUMP + 1, "jump_in"),
        (ACT_NO_JUMP, ACT_NO_JUMP + 1, "jump_in"),
    ]


def tables_markdown() -> str:
    """The encoding as Markdown tables (docs/python.md holds this text; a test checks it)."""
    out = ["**Observation** (`OBS_LEN` = %d float32 values):" % OBS_LEN, ""]
    out += ["| section | offset | length | each value |", "| --- | ---: | ---: | --- |"]
    for s in SECTIONS:
        out.append(f"| `{s.name}` | {s.offset} | {s.length} | {s.doc} |")
    out += ["", "**Card kinds** (the `hand`, `top`, `discard` and `card` sections, and actions 0 to %d):" % (KINDS - 1), ""]
    faces = [k.split("-", 1)[1] for k in CARD_KINDS[:13]]
    out += ["| colour \\ face | " + " | ".join(faces) + " |", "| --- |" + " ---: |" * len(faces)]
    for c, colour in enumerate(("red", "yellow", "green", "blue")):
        out.append(f"| {colour} | " + " | ".join(str(c * 13 + f) for f in range(13)) + " |")
    wilds = CARD_KINDS[52:]
    out += ["", "| kind | " + " | ".join(wilds) + " |", "| --- |" + " ---: |" * len(wilds)]
    out.append("| number | " + " | ".join(str(52 + i) for i in range(len(wilds))) + " |")
    out += ["", "**Actions** (one `Discrete(ACTIONS)` space, `ACTIONS` = %d):" % ACTIONS, ""]
    out += ["| actions | decision | meaning |", "| --- | --- | --- |"]
    for start, end, decisions in _action_rows():
        span = str(start) if end == start + 1 else f"{start} to {end - 1}"
        meaning = action_label(start)
        if end > start + 1:
            meaning += " ... " + action_label(end - 1)
        out.append(f"| {span} | {decisions} | {meaning} |")
    out += ["", "**Decisions** (the `decision` section, `VecEnv.kind`):", ""]
    out += ["| number | kind | asks |", "| ---: | --- | --- |"]
    for i, k in enumerate(DECISION_KINDS):
        out.append(f"| {i} | `{k}` | {DECISION_DOCS[k]} |")
    return "\n".join(out) + "\n"


RLCARD_ACTIONS: int = _core.RLCARD_ACTIONS
"""RLCard's actions (61): colour x trait (``r-0`` .. ``y-wild_draw_4``, a wild once
per colour it names), then ``draw`` (60). ``encoding="rlcard"``."""

RLCARD_SHAPE: tuple[int, int, int] = (4, 4, 15)
"""RLCard's observation: planes (no card, one, two of each colour and trait;
the top card), colours (r, g, b, y), traits (0..9, skip, reverse, draw_2,
wild, wild_draw_4). ``encoding="rlcard"``."""


def rlcard_action_label(action: int) -> str:
    """RLCard's name of one of its 61 actions (``"r-7"``, ``"y-wild"``, ``"draw"``).

    ``action`` is an integer from 0 to ``RLCARD_ACTIONS - 1`` (``TypeError``
    for another type, ``ValueError`` out of range)."""
    a = int_of("action", action)
    if not 0 <= a < RLCARD_ACTIONS:
        raise ValueError(
            f"action {a} is not an RLCard action (valid: 0 to {RLCARD_ACTIONS - 1})"
        )
    return _core.rlcard_action_label(a)
