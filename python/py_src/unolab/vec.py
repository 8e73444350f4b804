"""The batched environment: ``n`` games stepped in one call inside Rust.

``VecEnv`` owns its arrays and rewrites them in place on every ``reset`` and
``step`` (no allocation, no copy of whole arrays): ``env.obs``, ``env.mask``
and the others are the same numpy arrays for the life of the environment, so
read them after each call (copy what you keep). The step runs with the GIL
released.

Games restart by themselves when they end, with reproducible seeds: after
``reset(seed)``, the ``j``-th game of slot ``i`` (``j = 0, 1, ...``) is game
``i + j * n`` of the master seed ``seed``: the game ``unolab run --seed
seed`` plays as its game ``i + j * n``, when the learner's answers are the
same. ``games_started[i]`` counts them.

With ``encoding="rlcard"`` the arrays are RLCard's: ``obs`` its ``(4, 4,
15)`` planes, ``mask`` its 61 actions, and ``step`` takes RLCard's action
numbers, the decisions RLCard does not ask answered as the AEC
environment's ``encoding="rlcard"`` answers them (the same core code).
"""

from __future__ import annotations

import numbers
import os
from typing import Any, Optional, Sequence, Union

import gymnasium
import numpy as np

from . import _core
from ._options import (
    ILLEGAL,
    MODES,
    REWARDS,
    Closed,
    House,
    SettingsArg,
    bool_of,
    encoding_of,
    env_strategy_list,
    house_items,
    int_of,
    option_of,
    players_of,
    rules_of,
    seat_of,
    seed_of,
    setting_items,
)

from .encoding import ACTIONS, RLCARD_ACTIONS, RLCARD_SHAPE, observation_bounds

MAX_BATCH = 1 << 24
"""The most games in a batch."""


class VecEnv:
    """``n`` UNO games stepped together, their state in preallocated numpy arrays.

    By default the learner plays every seat (self-play: each game's decision
    in hand belongs to whichever seat must act, ``seat[i]``). With
    ``learners=[k]`` and ``strategies`` the learner plays seat ``k`` only and
    the strategies play the other seats (between two steps they play on to
    the learner's next decision).

    Args:
        n: the number of games (1 to 2**24; each takes about 9 KB, 8.5 KB
            at two players to 10 KB at ten, so the machine's memory may
            allow fewer: ``MemoryError``).
        rules: a built-in rule set or a rule file's path (``str`` or ``os.PathLike``).
        house: house rules, ``"stacking=same,seven_o"`` or a list of items.
        settings: settings, ``{"hand_size": 5}`` or ``["hand_size=5"]``.
        players: 2 to 10.
        learners: the learner's seats (default: every seat).
        strategies: the strategies at the other seats, in seat order,
            cycled (names, preset paths, ``ext:COMMAND`` or Python
            strategies, as in ``unolab.env``).
        mode: ``"round"`` or ``"match"``.
        reward: ``"win"`` or ``"points"`` (as in ``unolab.env``).
        illegal: ``"raise"`` or ``"sanction"`` (as in ``unolab.env``).
        ask_forced: ask also the decisions without a choice (drawing as the
            only play, a stack answer without a card that answers, a drawn
            card that cannot be played, a jump-in without an identical card),
            each with its one answer as the only legal action.
        seed: the master seed of the first ``reset`` (done here); ``None``
            draws one, as ``reset()`` without a seed does.
        encoding: ``"unolab"`` (the engine's features and 81 actions),
            ``"known"`` (the same, each row of ``obs`` followed by the
            known-cards section: ``OBS_LEN_KNOWN`` values, what the seat to
            act knows of each other hand, ``unolab.encoding.KNOWN_LEN``) or
            ``"rlcard"`` (RLCard's planes and 61 actions, as in
            ``unolab.env``: the wild's colour is the action's, UNO is
            called, a playable drawn card is played; a rule set that can
            ask a decision RLCard does not have, or deals a card it does not
            have, is refused here with ``ValueError``).
        final_obs: also keep, for every game that ends, each seat's view of
            its last state in ``final_obs`` (what the single-game
            environments observe after the end), since ``obs`` already shows
            the next game: the observation to bootstrap a truncated game's
            value from. Costs ``players`` observations of memory a game.

    Attributes (numpy arrays, rewritten in place by ``reset`` and ``step``):
        obs: ``(n, OBS_LEN)`` float32, the features of the seat to act
            (``(n, OBS_LEN_KNOWN)`` with ``encoding="known"``; ``(n, 4, 4,
            15)``, RLCard's planes, with ``encoding="rlcard"``).
        mask: ``(n, ACTIONS)`` int8, its legal actions (``(n, 61)`` with
            ``encoding="rlcard"``).
        legal: ``(n, ACTIONS)`` int16 (``(n, 61)`` with RLCard's encoding),
            the same legal actions as lists: row ``i`` holds the actions of
            ``mask[i]`` in increasing order, then -1.
        legal_count: ``(n,)`` int64, how many legal actions each game has
            (the used length of each row of ``legal``).
        seat: ``(n,)`` int64, the seat to act.
        kind: ``(n,)`` int64, the kind of decision (index into ``DECISION_KINDS``).
        rewards: ``(n, players)`` float32, what each seat earned in the last
            step (at a game's end; zero otherwise under ``"win"``).
        done: ``(n,)`` bool, the game ended in the last step (``obs`` and
            ``mask`` already show the next game's first decision).
        truncated: ``(n,)`` bool, the turn limit cut that game (its round hit
            it; a match only when it ended without a winner on such a round).
        winner: ``(n,)`` int64, that game's winning seat, -1 for none or
            when the game did not end.
        final_obs: with ``final_obs=True``, ``(n, players, ...)`` float32,
            the shape of ``obs`` with a seat axis: ``final_obs[i, s]`` is
            seat ``s``'s view of the last state of the game that ended in
            slot ``i`` in the last step (valid where ``done[i]``; rows of
            other games keep older values); ``None`` without it.

    Raises:
        ValueError: a bad rule set, house rule, setting, strategy, seat,
            player count, batch size or option (the core's message);
            ``illegal="sanction"`` under rules with ``strict = true``.
        TypeError: an argument of the wrong type (``n``, ``players`` or a
            learner seat not an integer, ``ask_forced`` not a bool, ...).
        FileNotFoundError: a rule or preset file that does not exist.
        MemoryError: a batch too large for the machine's memory.
    """

    def __init__(
        self,
        n: int,
        rules: Union[str, "os.PathLike[str]"] = "classic",
        house: House = None,
        settings: SettingsArg = None,
        players: int = 2,
        learners: Optional[Sequence[int]] = None,
        strategies: Union[str, Sequence[Any], Any, None] = None,
        mode: str = "round",
        reward: str = "win",
        illegal: str = "raise",
        ask_forced: bool = True,
        seed: Optional[int] = 0,
        encoding: str = "unolab",
        final_obs: bool = False,
    ) -> None:
        n = int_of("n (the number of games)", n)
        if not 1 <= n <= MAX_BATCH:
            raise ValueError(f"{n} games is not a batch size (valid: 1 to {MAX_BATCH})")
        players = players_of(players)
        if learners is not None:
            if isinstance(learners, str) or not hasattr(learners, "__iter__"):
                raise TypeError(f"learners is a list of seats, got {learners!r}")
            learners = [seat_of(s, players, "a learner seat") for s in learners]
        seed = seed_of(seed)
        self._core = _core.VecGames(
            n,
            rules_of(rules),
            house_items(house),
            setting_items(settings),
            players,
            learners,
            env_strategy_list(strategies),
            option_of("mode", mode, MODES),
            option_of("reward", reward, REWARDS),
            option_of("illegal", illegal, ILLEGAL),
            bool_of("ask_forced", ask_forced),
            encoding_of(encoding),
            bool_of("final_obs", final_obs),
        )
        self.n: int = self._core.n
        """The number of games."""
        self.players: int = self._core.players
        """The players at each table."""
        self.learners: list[int] = self._core.learners
        """The learner's seats."""
        self.encoding: str = self._core.encoding
        """``"unolab"``, ``"known"`` or ``"rlcard"``: the arrays' and actions' encoding."""
        self.obs: np.ndarray = self._core.obs
        self.mask: np.ndarray = self._core.mask
        self.legal: np.ndarray = self._core.legal
        self.legal_count: np.ndarray = self._core.legal_count
        self.seat: np.ndarray = self._core.seat
        self.kind: np.ndarray = self._core.kind
        self.rewards: np.ndarray = self._core.rewards
        self.done: np.ndarray = self._core.done
        self.truncated: np.ndarray = self._core.truncated
        self.winner: np.ndarray = self._core.winner
        self.final_obs: Optional[np.ndarray] = self._core.final_obs
        if self.encoding == "rlcard":
            space: gymnasium.spaces.Box = gymnasium.spaces.Box(0.0, 1.0, RLCARD_SHAPE, np.float32)
            n_actions = RLCARD_ACTIONS
        else:
            low, high = observation_bounds(self._core.deck_size, self.encoding == "known")
            space = gymnasium.spaces.Box(low, high, low.shape, np.float32)
            n_actions = ACTIONS
        self.single_observation_space: gymnasium.spaces.Box = space
        """One row of ``obs``: the space of ``unolab.env``'s observations (a
        ``Box`` with the features' bounds; RLCard's planes with its encoding)."""
        self.single_action_space: gymnasium.spaces.Discrete = gymnasium.spaces.Discrete(n_actions)
        """One game's action: ``Discrete(ACTIONS)`` (``Discrete(61)`` with RLCard's encoding)."""
        self._batched: Optional[tuple[gymnasium.spaces.Box, gymnasium.spaces.MultiDiscrete]] = None
        self._rows = np.arange(self.n, dtype=np.intp)
        self._seeds = np.random.default_rng()
        self.reset(seed)

    def reset(self, seed: Optional[int] = None) -> None:
        """Starts game ``i`` of master seed ``seed`` in every slot ``i``.

        Without a seed the master seed is drawn from a generator seeded by
        the last seeded reset (at first, from the operating system), as the
        AEC environment's ``reset()`` draws: a seedless reset starts new
        games, never the last reset's again. ``self.seed`` holds the master
        seed used.
        """
        s = seed_of(seed)
        if s is None:
            s = int(self._seeds.integers(0, 2**63))
        else:
            self._seeds = np.random.default_rng(s)
        self.seed: int = s
        """The master seed of the last reset."""
        self._core.reset(s)

    def step(self, actions: np.ndarray) -> None:
        """Answers every game's decision in hand (``actions[i]`` for game ``i``).

        ``actions`` is any integer array of shape ``(n,)``. Every action is
        checked before any game moves: one outside its game's mask raises
        ``ValueError`` naming the game (with ``illegal="raise"``, or for a
        decision the sanction does not cover) and the batch stays as it was.

        Raises:
            RuntimeError: a strategy failed (an ``ext:`` program that died):
                the batch is left part stepped, and every later ``step``
                raises until a ``reset``.
            Exception: what a Python strategy raised (or the ``TypeError``
                or ``ValueError`` of an answer that is none), as it was; the
                batch is left part stepped, as above.
            TypeError: ``actions`` not of an integer dtype.
            ValueError: an action outside its game's mask; one of the
                batch's arrays made read-only (``flags.writeable = False``:
                the batch writes into them).
        """
        a = np.asarray(actions)
        if a.dtype != np.int64:
            k = self.mask.shape[1]
            what = "an RLCard action" if k == _core.RLCARD_ACTIONS else "an action"
            if a.dtype.kind in "Of" and a.ndim == 1 and not isinstance(actions, np.ndarray):
                # A list of Python ints past int64 (numpy made it objects or
                # floats): out of range, not of the wrong type.
                for i, x in enumerate(actions):
                    if isinstance(x, numbers.Integral) and not isinstance(x, bool) and not 0 <= x < k:
                        raise ValueError(f"game {i}: action {x} is not {what} (valid: 0 to {k - 1})")
            if not np.issubdtype(a.dtype, np.integer):
                raise TypeError(f"actions are integers, got dtype {a.dtype}")
            if a.dtype.kind == "u" and a.size and a.max() > np.iinfo(np.int64).max:
                # Past int64 every value is out of range; converted, it would wrap.
                i = int(np.argmax(a > np.iinfo(np.int64).max))
                raise ValueError(
                    f"game {i}: action {int(a.flat[i])} is not {what} (valid: 0 to {k - 1})"
                )
            a = a.astype(np.int64)
        if a.ndim != 1:
            raise ValueError(f"actions have shape (n,) = ({self.n},), got {a.shape}")
        self._core.step(np.ascontiguousarray(a))

    def _batched_spaces(self) -> tuple[gymnasium.spaces.Box, gymnasium.spaces.MultiDiscrete]:
        if self._batched is None:
            self._batched = (
                gymnasium.vector.utils.batch_space(self.single_observation_space, self.n),
                gymnasium.spaces.MultiDiscrete(np.full(self.n, self.single_action_space.n)),
            )
        return self._batched

    @property
    def observation_space(self) -> gymnasium.spaces.Box:
        """The batch's ``obs``: ``single_observation_space`` stacked ``n``
        times, as Gymnasium's vector environments give it. Made at its first
        use: its bounds are two arrays the size of ``obs``."""
        return self._batched_spaces()[0]

    @property
    def action_space(self) -> gymnasium.spaces.MultiDiscrete:
        """The batch's actions, one per game: ``MultiDiscrete`` of ``n``
        times ``single_action_space.n``. Legal actions are ``mask``'s: a
        sample of this space is almost never legal."""
        return self._batched_spaces()[1]

    @property
    def skipped(self) -> int:
        """Games that ended before any learner decision since the last reset (played through, not shown)."""
        return self._core.skipped

    @property
    def games_started(self) -> np.ndarray:
        """Games started in each slot since the last reset (``j + 1`` while its ``j``-th game is in play)."""
        return np.asarray(self._core.games_started, dtype=np.uint64)

    def render(self, i: int = 0) -> str:
        """Game ``i``'s table as the seat to act sees it, and its legal actions (numbered as ``step`` takes them: RLCard's with ``encoding="rlcard"``)."""
        i = int_of("the game number", i)
        if not 0 <= i < self.n:
            raise ValueError(f"game {i} is not in the batch (valid: 0 to {self.n - 1})")
        return self._core.render(i)

    def close(self) -> None:
        """Lets go of the games, and with them the programs their ``ext:``
        strategies ran; any later ``reset``, ``step`` or ``render`` is a
        ``RuntimeError`` (the arrays stay as they were). Closing twice is
        harmless."""
        self._core = Closed("VecEnv")

    def random_actions(self, rng: np.random.Generator) -> np.ndarray:
        """A uniformly random legal action for every game (numpy only; for baselines and benchmarks).

        One random number ``u`` per game picks among its legal actions in
        increasing order (``legal[i, :legal_count[i]]``): the ``k``-th, with
        ``k = floor(u * legal_count[i])``. ``rng`` is a
        ``numpy.random.Generator`` (``np.random.default_rng(seed)``), else
        ``TypeError``.
        """
        if not isinstance(rng, np.random.Generator):
            raise TypeError(
                "rng is a numpy.random.Generator (np.random.default_rng(seed)), "
                f"got {type(rng).__name__}"
            )
        pick = (rng.random(self.n) * self.legal_count).astype(np.intp)
        return self.legal[self._rows, pick].astype(np.int64)
