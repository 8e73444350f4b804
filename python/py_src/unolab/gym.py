"""The Gymnasium environment: one learner seat, unolab strategies at the others.

Registered as ``unolab/Uno-v0`` when ``unolab`` is imported::

    import gymnasium, unolab
    env = gymnasium.make("unolab/Uno-v0", players=4, strategies=["color", "pimc-100"])

The observation is a ``Box`` of ``OBS_LEN`` float32 features (what the
learner's seat sees at its decision), the action space ``Discrete(ACTIONS)``.
The legal actions are ``env.action_masks()`` (a bool array, as sb3-contrib's
``MaskablePPO`` reads it) and ``info["action_mask"]`` (int8). One ``step``
answers the learner's decision and plays the other seats until the learner's
next decision or the end of the game.
"""

from __future__ import annotations

import os
from typing import Any, Optional, Sequence, Union

import gymnasium
import numpy as np

from . import _core
from ._options import (
    ILLEGAL,
    MODES,
    REWARDS,
    STEP_CUT,
    Closed,
    House,
    SettingsArg,
    action_of,
    bool_of,
    check_started,
    encoding_of,
    env_strategy_list,
    house_items,
    option_of,
    players_of,
    render_mode_of,
    rules_of,
    seat_of,
    seed_of,
    setting_items,
)
from .encoding import ACTIONS, RLCARD_ACTIONS, RLCARD_SHAPE, observation_bounds


class UnoEnv(gymnasium.Env):
    """UNO under any unolab rule set, the learner at one seat.

    Args:
        rules: a built-in rule set (``classic``, ``h2o``, ``lilo-stitch``,
            ``cars3``, ``rlcard``; ``unolab.RULE_SETS``) or the path of a
            rule file (``str`` or ``os.PathLike``).
        house: house rules, ``"stacking=same,seven_o"`` or a list of items.
        settings: settings, ``{"hand_size": 5}`` or ``["hand_size=5"]``.
        players: 2 to 10.
        seat: the learner's seat (0 to players - 1).
        strategies: the strategies at the other seats, in seat order, cycled
            to fill them: built-in names (``random``, ``first``, ``points``,
            ``color``, ``tuned``, ``pimc-100``, ...), preset file paths,
            ``ext:COMMAND`` programs or Python strategies (a
            :class:`unolab.Strategy`: an instance, shared by its seats, or a
            class, instantiated for each); a list or a comma list.
        mode: ``"round"`` or ``"match"``.
        reward: ``"win"`` (+1 for winning the game, -1/(players-1) for
            another seat winning, 0 without a winner) or ``"points"`` (each
            round's points / 100).
        illegal: ``"raise"`` (an action outside the mask raises
            ``ValueError``) or ``"sanction"`` (an illegal play, stack answer
            or swap target gets the rules' wrong-card sanction; an illegal
            answer to any other decision still raises).
        ask_forced: ask the learner also the decisions it has no choice in
            (drawing as the only play, a stack answer without a card that
            answers, a drawn card it cannot play, a jump-in without an
            identical card), each with its one answer as the only legal
            action; ``False`` answers them for it.
        render_mode: ``None``, ``"human"`` or ``"ansi"``.
        encoding: ``"unolab"``, ``"known"`` (the same features, then the
            known-cards section: ``OBS_LEN_KNOWN`` values, see
            ``unolab.encoding.KNOWN_LEN``) or ``"rlcard"`` (RLCard's (4, 4,
            15) planes and 61 actions; see ``unolab.pettingzoo.raw_env``).

    Raises:
        ValueError: a bad rule set, house rule, setting, strategy name,
            player count, seat or option (the core's one-line message);
            ``illegal="sanction"`` under rules with ``strict = true``.
        TypeError: an argument of the wrong type (``players`` or ``seat``
            not an integer, ``ask_forced`` not a bool, ...).
        FileNotFoundError: a rule or preset file that does not exist.
    """

    # render_fps is Gymnasium's pace for "human" rendering: text here, so
    # only declared (the checker asks for it).
    metadata = {"render_modes": ["human", "ansi"], "render_fps": 4}

    def __init__(
        self,
        rules: Union[str, "os.PathLike[str]"] = "classic",
        house: House = None,
        settings: SettingsArg = None,
        players: int = 2,
        seat: int = 0,
        strategies: Union[str, Sequence[Any], Any] = ("random",),
        mode: str = "round",
        reward: str = "win",
        illegal: str = "raise",
        ask_forced: bool = True,
        render_mode: Optional[str] = None,
        encoding: str = "unolab",
    ) -> None:
        self.encoding = encoding_of(encoding)
        self._rl = self.encoding == "rlcard"
        self._known = self.encoding == "known"
        self.render_mode = render_mode_of(render_mode)
        players = players_of(players)
        seat = seat_of(seat, players)
        self._game = _core.Game(
            rules_of(rules),
            house_items(house),
            setting_items(settings),
            players,
            [seat],
            env_strategy_list(strategies),
            option_of("mode", mode, MODES),
            option_of("reward", reward, REWARDS),
            option_of("illegal", illegal, ILLEGAL),
            bool_of("ask_forced", ask_forced),
        )
        self.seat: int = seat
        """The learner's seat."""
        # False before the first reset, and after a reset or step that
        # stopped on an error (a strategy that failed): reset() first.
        self._started = False
        self._failed: Optional[str] = None
        if self._rl:
            self._game.rlcard_check()
            self._n_actions = RLCARD_ACTIONS
            self.observation_space = gymnasium.spaces.Box(0.0, 1.0, RLCARD_SHAPE, np.float32)
        else:
            self._n_actions = ACTIONS
            low, high = observation_bounds(self._game.deck_size, self._known)
            self.observation_space = gymnasium.spaces.Box(low, high, low.shape, np.float32)
        self.action_space = gymnasium.spaces.Discrete(self._n_actions)

    @property
    def game(self) -> _core.Game:
        """The core's game (its decision, legal actions, rounds, totals), for
        tools and debugging. It holds every hand (``seat_observation(seat)``
        of any seat): an agent that reads it sees more than its seat could
        at the table; a fair agent uses the observation alone."""
        return self._game

    def _mask(self) -> np.ndarray:
        return self._game.rlcard_mask() if self._rl else self._game.mask()

    def _obs(self) -> np.ndarray:
        if self._rl:
            return self._game.rlcard_observation(self.seat)
        if self._game.is_over:
            return self._game.seat_observation(self.seat, self._known)
        return self._game.observation(self._known)

    def _info(self) -> dict[str, Any]:
        if self._game.is_over:
            return {
                "action_mask": np.zeros(self._n_actions, dtype=np.int8),
                "winner": self._game.winner,
                "rounds": self._game.rounds,
            }
        return {"action_mask": self._mask(), "decision": self._game.kind}

    def reset(
        self, *, seed: Optional[int] = None, options: Optional[dict] = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Starts a new game and plays the other seats to the learner's first decision.

        With a seed the game is game 0 of that seed; without one, the seed
        comes from ``self.np_random``. A game that ends before the learner's
        first decision (possible only with tiny hands) is skipped for the
        next game of the same seed; a ``ValueError`` after 1,000 in a row
        (settings that leave the learner nothing to decide).
        """
        seed = seed_of(seed)
        super().reset(seed=seed)
        game_seed = seed if seed is not None else int(self.np_random.integers(0, 2**63))
        self._started = False
        self._failed = None
        self._game.start(game_seed, 0, self._rl)
        self._started = True
        if self.render_mode == "human":
            self.render()
        return self._obs(), self._info()

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """Answers the learner's decision and plays on to its next one (or the end).

        Returns ``(observation, reward, terminated, truncated, info)``;
        ``truncated`` is true when the turn limit (``max_turns``) cut the
        game: its round hit the limit (a match: it ended without a winner on
        such a round; a match with a winner is terminated).

        Raises:
            TypeError: the action is not an integer.
            ValueError: the action is outside the mask (see ``illegal``);
                nothing changes.
            RuntimeError: a step before ``reset``, stepping a game that is
                over, or after a step that stopped on an error (a strategy
                that failed): ``reset`` first.
            Exception: what a Python strategy at another seat raised (or
                the ``TypeError`` or ``ValueError`` of an answer it gave
                that is none), as it was: the step stopped part way, so
                ``reset`` first.
        """
        self._check_started("step")
        code = action_of(action, RLCARD_ACTIONS, rlcard=True) if self._rl else action_of(action, ACTIONS)
        # Until the step's return is made, it is under way: one stopped part
        # way (a KeyboardInterrupt after the game moved on) loses its reward
        # and end, so every later call refuses until reset().
        self._failed = STEP_CUT
        try:
            if self._rl:
                self._game.step_rlcard(code)
            else:
                self._game.step(code)
        except Exception as e:
            if self._game.strategy_raised:
                # A Python strategy's own exception, raised again: the game
                # moved on part way.
                self._failed = f"a strategy raised {type(e).__name__}: {e}"
            elif isinstance(e, RuntimeError):
                # Stopped mid-step, or "the game is over" (nothing changed).
                self._failed = None if self._game.is_over else str(e)
            elif isinstance(e, ValueError):
                # Refused (outside the mask): nothing changed.
                self._failed = None
            raise
        reward = float(self._game.take_rewards()[self.seat])
        over = self._game.is_over
        truncated = over and self._game.truncated
        out = (self._obs(), reward, over and not truncated, truncated, self._info())
        if self.render_mode == "human":
            # (Before the step counts as done: a Ctrl-C while it prints
            # loses the step's return too.)
            print(self._text())
        self._failed = None
        return out

    def _check_started(self, what: str) -> None:
        check_started(self._started, self._failed, what, self._game)

    def action_masks(self) -> np.ndarray:
        """The legal actions of the decision in hand, as bools (sb3-contrib's ``MaskablePPO``).

        All ``False`` once the game is over; ``RuntimeError`` before ``reset``.
        """
        self._check_started("action_masks")
        if self._game.is_over:
            return np.zeros(self._n_actions, dtype=bool)
        return self._mask().astype(bool)

    @property
    def decision(self) -> Optional[str]:
        """The kind of the decision in hand (one of ``DECISION_KINDS``), ``None`` when over."""
        return self._game.kind

    def render(self) -> Optional[str]:
        """The table as the learner sees it and its legal actions (or the end of the game).

        The legal actions are numbered as ``step`` takes them (RLCard's
        action numbers and labels with ``encoding="rlcard"``).

        ``RuntimeError`` before ``reset``.
        """
        self._check_started("render")
        if self.render_mode is None:
            gymnasium.logger.warn("render() was called without a render mode (render_mode=None)")
            return None
        text = self._text()
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def _text(self) -> str:
        return self._game.rlcard_render() if self._rl else self._game.render()

    def close(self) -> None:
        """Lets go of the game, and with it the programs its ``ext:``
        strategies ran (unless ``game`` is held elsewhere); any later use of
        the environment is a ``RuntimeError``. Closing twice is harmless."""
        self._game = Closed("environment")
