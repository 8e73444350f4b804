"""Type stubs of ``unolab._core``, the Rust extension (python/src/lib.rs).

The public API is the Python package around it (``unolab.env``,
``unolab.UnoEnv``, ``unolab.VecEnv``, ``unolab.encoding``); these are its
building blocks. Every bad argument raises ``ValueError`` (or
``FileNotFoundError`` for a missing file) with the core's one-line message.
"""

from typing import Any, Callable, Optional

import numpy as np
import numpy.typing as npt

OBS_LEN: int
"""The length of an observation (280 float32 values)."""
KNOWN_LEN: int
"""The length of the known-cards section (45 values)."""
OBS_LEN_KNOWN: int
"""An observation with the known-cards section after it (325 values)."""
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
        strategies: names or Python strategies for the other seats, cycled in seat order.
        mode: ``"round"`` or ``"match"``.
        reward: ``"win"`` or ``"points"``.
        illegal: ``"raise"`` or ``"sanction"``.
        ask_forced: ask also the decisions without a choice (drawing as the
            only play, a stack answer without a card that answers, a drawn
            card that cannot be played, a jump-in without an identical card).
    """

    def __init__(
        self,
        rules: str,
        house: list[str],
        settings: list[str],
        players: int,
        learners: Optional[list[int]],
        strategies: list[Any],
        mode: str,
        reward: str,
        illegal: str,
        ask_forced: bool,
    ) -> None: ...
    def reset(self, seed: int, index: int = 0) -> None:
        """Starts game ``index`` of master seed ``seed`` and plays to the learner's first decision."""
    def start(self, seed: int, index: int, rlcard: bool) -> int:
        """Starts game ``index`` of ``seed``, or the next one that reaches a learner's decision (settled for RLCard's encoding); returns the index started. ``ValueError`` after 1,000 games in a row without one."""
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
    def strategy_raised(self) -> bool:
        """Whether the last call that played stopped on a Python strategy's exception (raised again)."""
    @property
    def is_over(self) -> bool:
        """Whether the game (the round, or the match) is over."""
    @property
    def truncated(self) -> bool:
        """Whether the game is over and the turn limit cut it: its round hit the
        limit (a match: it ended without a winner on such a round; a match
        with a winner is not truncated)."""
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
    def observation(self, known: bool = False) -> npt.NDArray[np.float32]:
        """The features of the seat to act at its decision (zeros when over); with ``known``, the known-cards section after them."""
    def seat_observation(self, seat: int, known: bool = False) -> npt.NDArray[np.float32]:
        """What ``seat`` sees now (the decision sections at zero unless it acts); with ``known``, what it knows of each other hand after it."""
    def mask(self) -> npt.NDArray[np.int8]:
        """The legal actions of the decision in hand, 0/1 (all zeros when over)."""
    def legal(self) -> list[int]:
        """The legal actions of the decision in hand, in increasing order."""
    def take_rewards(self) -> list[float]:
        """The rewards earned by every seat since the last call."""
    def render(self) -> str:
        """The table as the seat to act sees it and its legal actions, or the end of the game."""
    def rlcard_render(self) -> str:
        """RLCard encoding: ``render()`` with RLCard's legal actions (numbers and labels)."""
    def rlcard_settle(self) -> None:
        """RLCard encoding: answers what RLCard answers without asking, up to the next play decision."""
    def step_rlcard(self, action: int) -> None:
        """RLCard encoding: plays RLCard's action (0..60) and what follows it."""
    def rlcard_observation(self, seat: Optional[int] = None) -> npt.NDArray[np.float32]:
        """RLCard encoding: the (4, 4, 15) planes of ``seat`` (default: the seat to act)."""
    def rlcard_check(self) -> None:
        """ValueError when the rule set asks a decision RLCard has no action for."""
    def rlcard_mask(self) -> npt.NDArray[np.int8]:
        """RLCard encoding: the mask of RLCard's 61 actions."""

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
        strategies: list[Any],
        mode: str,
        reward: str,
        illegal: str,
        ask_forced: bool,
        encoding: str = "unolab",
        final_obs: bool = False,
    ) -> None: ...
    def reset(self, seed: int) -> None:
        """Starts game ``i`` of master seed ``seed`` in every slot ``i`` (the GIL released)."""
    def step(self, actions: npt.NDArray[np.int64]) -> None:
        """Answers every game's decision (actions checked first; the GIL released while stepping)."""
    @property
    def obs(self) -> npt.NDArray[np.float32]:
        """``(n, OBS_LEN)`` (``(n, OBS_LEN_KNOWN)`` with the known cards, ``(n, 4, 4, 15)`` with RLCard's encoding): the features of the seat to act in each game."""
    @property
    def final_obs(self) -> Optional[npt.NDArray[np.float32]]:
        """With ``final_obs=True``: ``(n, players, ...)``, each seat's view of the last state of the game that ended in each slot in the last step; else ``None``."""
    @property
    def mask(self) -> npt.NDArray[np.int8]:
        """``(n, ACTIONS)`` (``(n, 61)`` with RLCard's encoding): the legal actions of each game's decision."""
    @property
    def legal(self) -> npt.NDArray[np.int16]:
        """``(n, ACTIONS)`` (``(n, 61)`` with RLCard's encoding): each game's legal actions in increasing order, then -1."""
    @property
    def legal_count(self) -> npt.NDArray[np.int64]:
        """``(n,)``: how many legal actions each game has."""
    @property
    def deck_size(self) -> int:
        """The cards in the rule set's deck (the bound of the observations' card counts)."""
    @property
    def encoding(self) -> str:
        """``"unolab"``, ``"known"`` or ``"rlcard"``."""
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
        """``(n,)``: the turn limit cut that game (its round hit the limit; a
        match only when it ended without a winner on such a round)."""
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
        """Game ``i``'s table as the seat to act sees it, and its legal actions (RLCard's with its encoding)."""

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

# ----- the lab (unolab.lab wraps these) ---------------------------------------

class Observation:
    """What a Python strategy's seat sees (the protocol's ``obs``)."""

    @property
    def seat(self) -> int:
        """The observing seat (from 0)."""
    @property
    def round(self) -> int:
        """The round of the match (from 1)."""
    @property
    def turn(self) -> int:
        """The turn under way in the round (1 at its first decision)."""
    @property
    def hand(self) -> list[str]:
        """Your cards as tokens, in deck order."""
    @property
    def top(self) -> str:
        """The top card of the discard pile."""
    @property
    def color(self) -> Optional[str]:
        """The active colour (None while a wild start card's colour is not yet named)."""
    @property
    def direction(self) -> int:
        """1 when play goes to higher seats, -1 when it goes to lower seats."""
    @property
    def players(self) -> int:
        """The number of players."""
    @property
    def hand_sizes(self) -> list[int]:
        """The number of cards of every seat."""
    @property
    def draw_pile(self) -> int:
        """The number of cards in the draw pile."""
    @property
    def discard(self) -> list[str]:
        """Every card of the discard pile (the top card included)."""
    @property
    def totals(self) -> list[int]:
        """Every seat's match total so far."""
    @property
    def pending_draw(self) -> int:
        """The draw total pending at the table (stacking, challenge), else 0:
        aimed at you at a ``stack`` or ``challenge`` decision; at another (a
        ``jump_in``, a colour) the one still pending, which need not be yours."""
    @property
    def known(self) -> list[list[str]]:
        """What you know of every other hand, by seat: the cards you gave there (seven-o, Wild Swap) or saw there (a challenge) not played since; your own entry is empty."""
    def rlcard_planes(self) -> npt.NDArray[np.float32]:
        """RLCard's observation planes ``(4, 4, 15)`` of this seat (as ``encoding="rlcard"`` gives them)."""
    def rlcard_color(self) -> str:
        """The colour RLCard's encoding names for a wild no action chose a colour for (the colour held most)."""
    def rlcard_legal(self, legal: list[str]) -> list[tuple[int, str, Optional[str]]]:
        """RLCard's actions of the legal tokens, by number: ``(action, token, colour a wild names or None)``."""
    def rlcard_raw(self) -> dict[str, Any]:
        """RLCard's ``raw_obs`` of this seat (without ``legal_actions``)."""
    def to_dict(self) -> dict[str, Any]:
        """The observation as the protocol's ``obs`` dict."""

def run(
    rules: str, set: list[str], house: list[str], players: int, strategies: list[Any],
    games: int, mode: str, seed: int, threads: Optional[int], seating: Optional[str],
    fixed_seats: bool,
    duplicate: bool, out: Optional[str], force: bool,
    progress: Optional[Callable[[int, int], Any]],
    call: Optional[str] = None,
) -> tuple[str, bool]:
    """``unolab run``: the JSON of ``--json``, and whether Ctrl-C interrupted it.
    ``call`` is the Python call the manifest records (``unolab.run(...)``)."""

def tournament(
    rules: str, set: list[str], house: list[str], players: int, strategies: list[Any],
    games: int, seed: int, threads: Optional[int], allow_oracle: bool, out: Optional[str],
    force: bool, resume: bool, progress: Optional[Callable[[int, int], Any]],
    call: Optional[str] = None,
) -> tuple[str, bool]:
    """``unolab tournament``: the JSON of ``--json``, and whether it was interrupted."""

def ladder(
    file: str, games: Optional[int], threads: Optional[int], out: Optional[str],
    force: bool, resume: bool, progress: Optional[Callable[[int, int], Any]],
    call: Optional[str] = None,
) -> tuple[str, bool]:
    """``unolab ladder FILE``: the JSON of ``--json``, and whether it was interrupted."""

def compare(
    rules: str, set: list[str], house: list[str], players: int, strategies: list[Any],
    mode: str, b_rules: Optional[str], b_set: list[str], b_house: list[str],
    b_strategies: Optional[list[Any]], b_seat: Optional[tuple[int, Any]], games: Optional[int],
    seed: int, duplicate: Optional[bool], seating: Optional[str], precision: Optional[list[tuple[Optional[str], float]]],
    batch: Optional[int],
    threads: Optional[int], allow_oracle: bool, out: Optional[str], resume: bool,
    force: bool, progress: Optional[Callable[[int, int], Any]],
    call: Optional[str] = None,
) -> tuple[str, bool]:
    """``unolab compare``: the JSON of ``--json``, and whether it was interrupted."""

def experiment(
    source: str, is_text: bool, custom: list[tuple[str, Any]], games: Optional[int],
    seed: Optional[int], duplicate: Optional[bool], seating: Optional[str],
    precision: Optional[list[tuple[Optional[str], float]]],
    batch: Optional[int], threads: Optional[int], out: Optional[str], resume: bool,
    force: bool, progress: Optional[Callable[[int, int], Any]],
    call: Optional[str] = None,
) -> tuple[str, bool]:
    """``unolab experiment run``: the JSON of the results, and whether it was interrupted."""

def redraw_ladder(file: str, out: Optional[str] = None) -> str:
    """``unolab ladder FILE --redraw``: ladder.svg drawn again; its path."""

def tune(
    rules: str, set: list[str], house: list[str], players: int, field: list[Any], start: str,
    generations: int, population: int, games: int, holdout_games: int, seed: int,
    threads: Optional[int], name: Optional[str], allow_oracle: bool, out: Optional[str],
    force: bool, progress: Optional[Callable[[int, int], Any]],
    call: Optional[str] = None,
) -> tuple[str, bool]:
    """``unolab tune``: the result as JSON (the preset's text, parameters,
    generations and held-out evaluation), and whether it was interrupted."""

def trace(
    rules: str, set: list[str], house: list[str], players: int, strategies: list[Any], seed: int,
    out: Optional[str] = None, force: bool = False,
) -> str:
    """``unolab trace``: one whole match as JSON Lines, also written whole to ``out``."""

def rules_list() -> list[tuple[str, int, str]]:
    """The built-in rule sets: (name, cards, description)."""

def rules_show(name: str, set: list[str], house: list[str]) -> str:
    """A rule set fully resolved, as TOML text."""

def toml_to_json(text: str) -> str:
    """TOML text as JSON text."""

def json_to_toml(text: str) -> str:
    """JSON text (an object) as TOML text."""

def catalog() -> list[tuple[str, str, str, list[tuple[str, str]]]]:
    """The built-in strategies: (name, base, description, parameters)."""

def check_strategy(obj: Any) -> str:
    """The name a Python strategy object is reported under (TypeError without a callable ``play``)."""

def thread_limit() -> tuple[int, int]:
    """The most threads a lab call takes (8 per core) and this machine's cores."""

RLCARD_ACTIONS: int
"""RLCard's actions (61)."""

def rlcard_action_label(action: int) -> str:
    """What RLCard's action plays (``r-7``, ``y-wild``, ``draw``)."""
