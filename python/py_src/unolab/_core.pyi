"""Type stubs of ``unolab._core``, the Rust extension (python/src/lib.rs).

The public API is the Python package around it (``unolab.env``,
``unolab.UnoEnv``, ``unolab.VecEnv``, ``unolab.encoding``); these are its
building blocks. Every bad argument raises ``ValueError`` (or
``FileNotFoundError`` for a missing file) with the core's one-line message.
"""

from typing import Optional

import numpy as np
import numpy.typing as npt

OBS_LEN: int
"""The length of an observation (280 float32 values)."""
ACTIONS: int
"""The number of actions (81)."""
KINDS: int
"""The number of card kinds (59)."""
DECISION_KINDS: int
"""The number of decision kinds (8)."""
MAX_PLAYERS: int
"""The most players at a table (10)."""
ACT_PLAY: int
ACT_DRAW: int
ACT_PLAY_DRAWN: int
ACT_KEEP: int
ACT_COLOR: int
ACT_UNO: int
ACT_NO_UNO: int
ACT_CHALLENGE: int
ACT_NO_CHALLENGE: int
ACT_TARGET: int
ACT_JUMP: int
ACT_NO_JUMP: int
__version__: str
"""The crate's version."""

class Game:
    """One game played a decision at a time: the learner answers at its seats, strategies play the others.

    Args:
        rules: a built-in rule set name or a rule file's path.
        house: house-rule items (``"stacking=same,seven_o"``; comma lists allowed).
        settings: ``"key=value"`` items.
        players: 2 to 10.
        learners: the learner's seats (``None``: every seat).
        strategies: names for the other seats, cycled in seat order.
        mode: ``"round"`` or ``"match"``.
        reward: ``"win"`` or ``"points"``.
        illegal: ``"raise"`` or ``"sanction"``.
        ask_forced: ask also when drawing is the only legal action.
    """

    def __init__(
        self,
        rules: str,
        house: list[str],
        settings: list[str],
        players: int,
        learners: Optional[list[int]],
        strategies: list[str],
        mode: str,
        reward: str,
        illegal: str,
        ask_forced: bool,
    ) -> None: ...
    def reset(self, seed: int, index: int = 0) -> None:
        """Starts game ``index`` of master seed ``seed`` and plays to the learner's first decision."""
    def step(self, action: int) -> None:
        """Answers the decision in hand and plays to the learner's next decision or the end.

        Raises ``ValueError`` for a refused action (nothing changes) and
        ``RuntimeError`` once the game is over or when a strategy failed.
        """
    @property
    def seat(self) -> Optional[int]:
        """The seat to act (``None`` when the game is over)."""
    @property
    def kind(self) -> Optional[str]:
        """The kind of decision in hand (``None`` when the game is over)."""
    @property
    def is_over(self) -> bool:
        """Whether the game (the round, or the match) is over."""
    @property
    def truncated(self) -> bool:
        """Whether the game is over and its last round hit the turn limit."""
    @property
    def winner(self) -> Optional[int]:
        """The winning seat of a finished game (``None`` for none, or while it goes on)."""
    @property
    def rounds(self) -> int:
        """Rounds finished so far."""
    @property
    def totals(self) -> list[int]:
        """The match totals of every seat."""
    @property
    def players(self) -> int:
        """The players at the table."""
    @property
    def learners(self) -> list[int]:
        """The learner's seats."""
    @property
    def rules_name(self) -> str:
        """The rule set's name."""
    @property
    def deck_size(self) -> int:
        """The number of cards in the deck."""
    def observation(self) -> npt.NDArray[np.float32]:
        """The features of the seat to act at its decision (zeros when over)."""
    def seat_observation(self, seat: int) -> npt.NDArray[np.float32]:
        """What ``seat`` sees now (the decision sections at zero unless it acts)."""
    def mask(self) -> npt.NDArray[np.int8]:
        """The legal actions of the decision in hand, 0/1 (all zeros when over)."""
    def legal(self) -> list[int]:
        """The legal actions of the decision in hand, in increasing order."""
    def take_rewards(self) -> list[float]:
        """The rewards earned by every seat since the last call."""
    def render(self) -> str:
        """The table as the seat to act sees it and its legal actions, or the end of the game."""

class VecGames:
    """``n`` games stepped together in Rust, writing into numpy arrays it owns (see ``unolab.VecEnv``)."""

    def __init__(
        self,
        n: int,
        rules: str,
        house: list[str],
        settings: list[str],
        players: int,
        learners: Optional[list[int]],
        strategies: list[str],
        mode: str,
        reward: str,
        illegal: str,
        ask_forced: bool,
    ) -> None: ...
    def reset(self, seed: int) -> None:
        """Starts game ``i`` of master seed ``seed`` in every slot ``i`` (the GIL released)."""
    def step(self, actions: npt.NDArray[np.int64]) -> None:
        """Answers every game's decision (actions checked first; the GIL released while stepping)."""
    @property
    def obs(self) -> npt.NDArray[np.float32]:
        """``(n, OBS_LEN)``: the features of the seat to act in each game."""
    @property
    def mask(self) -> npt.NDArray[np.int8]:
        """``(n, ACTIONS)``: the legal actions of each game's decision."""
    @property
    def seat(self) -> npt.NDArray[np.int64]:
        """``(n,)``: the seat to act."""
    @property
    def kind(self) -> npt.NDArray[np.int64]:
        """``(n,)``: the kind of decision (index into ``DECISION_KINDS``)."""
    @property
    def rewards(self) -> npt.NDArray[np.float32]:
        """``(n, players)``: what each seat earned in the last step."""
    @property
    def done(self) -> npt.NDArray[np.bool_]:
        """``(n,)``: the game ended in the last step (and was restarted)."""
    @property
    def truncated(self) -> npt.NDArray[np.bool_]:
        """``(n,)``: that game's last round hit the turn limit."""
    @property
    def winner(self) -> npt.NDArray[np.int64]:
        """``(n,)``: the winning seat of a game that ended in the last step, else -1."""
    @property
    def n(self) -> int:
        """The number of games."""
    @property
    def players(self) -> int:
        """The players at each table."""
    @property
    def learners(self) -> list[int]:
        """The learner's seats."""
    @property
    def skipped(self) -> int:
        """Games that ended before any learner decision since the last reset."""
    @property
    def games_started(self) -> list[int]:
        """Games started in each slot since the last reset."""
    def render(self, i: int) -> str:
        """Game ``i``'s table as the seat to act sees it, and its legal actions."""

def action_label(action: int) -> str:
    """What an action does, in words."""

def sections() -> list[tuple[str, int, int, str]]:
    """The observation's sections: (name, offset, length, meaning)."""

def decision_kinds() -> list[str]:
    """The decision kinds by number."""

def card_kinds() -> list[str]:
    """The card kinds by number (``red-0`` ... ``wild-custom``)."""

def rule_sets() -> list[str]:
    """The built-in rule sets."""

def strategy_names() -> list[str]:
    """The built-in strategy names."""
