"""Python strategies: the decisions of the protocol (docs/protocol.md) as
methods of a Python object, played in-process at any seat of
:func:`unolab.run`, :func:`unolab.compare`, :func:`unolab.experiment` and
:func:`unolab.tournament`.

Only ``play`` is required. A method left out gets the engine's default
(the same as the built-in strategies'), which costs no call into Python.
"""

from __future__ import annotations

from typing import Any, Optional

from . import _core

Observation = _core.Observation
"""What the seat sees (the protocol's ``obs``): ``seat``, ``round``, ``turn``,
``hand`` (card tokens), ``top``, ``color``, ``direction``, ``players``,
``hand_sizes``, ``draw_pile``, ``discard``, ``totals``, ``pending_draw``,
``known`` (per seat, the cards of that hand you were shown: given there in a
swap or seen in a challenge); ``to_dict()`` gives them as a dict."""


class Strategy:
    """A base class for Python strategies (any object with a ``play`` method
    works too; a class is instantiated once per seat and worker thread, an
    instance is shared by every seat it takes).

    The methods a subclass may define, with the engine's default when it
    does not (answers are the protocol's):

    * ``play(obs, legal) -> str``: a token of ``legal`` (the playable card
      tokens, and ``"draw"`` when drawing is allowed). Required: a subclass
      without its own is refused before any game (``TypeError``).
    * ``play_drawn(obs, card) -> bool``: play the card just drawn (default True).
    * ``color(obs) -> str``: ``"red"``, ``"yellow"``, ``"green"`` or
      ``"blue"`` for a wild (default: the colour held most).
    * ``uno(obs) -> bool``: call UNO when a play leaves one card (default True).
    * ``target(obs, legal) -> int``: the seat to swap hands with (Wild Swap,
      seven-o), one of ``legal`` (default: the fewest cards).
    * ``stack(obs, legal) -> str``: answer a pending draw with a token of
      ``legal``, or ``"draw"`` to take it (default: the first answer).
    * ``challenge(obs) -> bool``: challenge a Wild Draw Four (default False).
    * ``jump_in(obs, card) -> bool``: play ``card`` out of turn (default True).
    * ``round_start(obs)`` and ``round_end(obs, result)``: notices
      (``result``: ``round``, ``outcome``, ``winner``, ``points``, ``turns``).

    An exception in a method stops the run (after the round in progress)
    and is raised again by the call that ran it; so does a bad answer: of
    the wrong type (not a ``str`` for a token or a colour, not a ``bool``
    for a yes or no, not an ``int`` for a seat) a ``TypeError``, a string
    that is no token or colour a ``ValueError``. An answer that is not
    legal (a card not in ``legal``) gets the rules' wrong-card sanction, as
    for any strategy.
    """

    name: Optional[str] = None
    """The name reported in results (default: the class name)."""

    def play(self, obs: Any, legal: list) -> str:  # pragma: no cover - documentation
        """The card to play (a token of ``legal``), or ``"draw"``."""
        raise NotImplementedError("a Python strategy defines play(obs, legal)")

    # The base's play is a placeholder: a subclass without its own is refused
    # before any game, as an object without a play method is (TypeError).
    play.__unolab_placeholder__ = True  # type: ignore[attr-defined]


def check(strategy: Any) -> str:
    """The name a strategy object will be reported under; raises
    ``TypeError`` when it has no callable ``play``, or a decision method
    (``color``, ``uno``, ...) that is not callable."""
    return _core.check_strategy(strategy)
