"""The PettingZoo AEC environment: every seat of the table is an agent.

``raw_env(...)`` is the environment and ``env(...)`` makes one. It checks
the order of calls itself (``reset`` before ``step``, ``observe``, ``last``
or ``agent_iter``), so it needs no ``OrderEnforcingWrapper``: that wrapper
forwards every attribute through Python and would triple the cost of a step.
Agents are ``player_0`` .. ``player_{n-1}`` (seat numbers); the agent to act
is the seat of the decision in hand, so turns follow the game: skips,
reverses, stack answers, challenges and jump-ins out of turn.

``observe(agent)`` returns ``{"observation": float32[OBS_LEN],
"action_mask": int8[ACTIONS]}``: the acting agent gets its features at the
decision and the mask of its legal actions; any other agent what it sees at
this moment, with the decision sections at zero and an all-zero mask.
"""

from __future__ import annotations

import os
from typing import Any, Optional, Union

import gymnasium
import numpy as np
# pettingzoo ships no type information (no stubs, no py.typed).
from pettingzoo import AECEnv  # type: ignore[import-untyped]
from pettingzoo.utils.env import AECIterable  # type: ignore[import-untyped]

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
    house_items,
    option_of,
    players_of,
    render_mode_of,
    rules_of,
    seed_of,
    setting_items,
)
from .encoding import ACTIONS, RLCARD_ACTIONS, RLCARD_SHAPE, observation_bounds


class raw_env(AECEnv):
    """UNO under any unolab rule set as a PettingZoo AEC environment.

    Args:
        rules: a built-in rule set (``classic``, ``h2o``, ``lilo-stitch``,
            ``cars3``, ``rlcard``; ``unolab.RULE_SETS``) or the path of a
            rule file (``.toml``; a ``str`` or an ``os.PathLike``).
        house: house rules, ``"stacking=same,seven_o"`` or a list of items.
        settings: settings, ``{"hand_size": 5}`` or ``["hand_size=5"]``.
        players: 2 to 10.
        mode: ``"round"`` (a game is one round) or ``"match"`` (rounds until
            the rules' end: target score, round count or quick play).
        reward: ``"win"`` (+1 to the winner, -1/(players-1) to each other
            seat, at the end of the game; 0 to all without a winner) or
            ``"points"`` (each round's points / 100 at its end).
        illegal: ``"raise"`` (an action outside the mask raises
            ``ValueError`` with the core's message) or ``"sanction"`` (an
            illegal play, stack answer or swap target gets the rules'
            wrong-card sanction; an illegal answer to any other decision
            still raises).
        ask_forced: ask the agent also the decisions it has no choice in:
            a play when drawing is its only legal action, a stack answer
            under ``stacking`` without a card that answers, a drawn card it
            cannot play, a jump-in without an identical card (each with its
            one answer as the only legal action), so that who is asked tells
            nothing of a hand. ``False`` answers them for it, and then being
            asked shows that the seat has a choice.
        render_mode: ``None``, ``"human"`` (``render()`` prints) or ``"ansi"``
            (``render()`` returns the text).
        encoding: ``"unolab"`` (the engine's features and 81 actions),
            ``"known"`` (the same, each observation followed by the
            known-cards section: ``OBS_LEN_KNOWN`` values, what the seat
            knows of each other hand, ``unolab.encoding.KNOWN_LEN``) or
            ``"rlcard"`` (RLCard's (4, 4, 15) planes and 61 actions, the
            colour of a wild folded into the card, UNO called, a playable
            drawn card played, as RLCard does; with ``rules="rlcard"`` the
            game is RLCard's; a rule set that can ask a decision RLCard does
            not have, such as stacking, or deals a card it does not have,
            such as a Wild Downpour, is refused here with ``ValueError``).
            With ``illegal="sanction"`` an action outside the mask is the
            illegal play it names, sanctioned (RLCard itself replaces it with
            a random legal action; unolab never replaces an action).

    Raises:
        ValueError: a bad rule set name, house rule, setting, player count or
            option (the core's one-line message); ``illegal="sanction"``
            under rules with ``strict = true`` (which make an illegal action
            an error, not a sanction).
        TypeError: an argument of the wrong type (``players`` not an
            integer, ``ask_forced`` not a bool, ...).
        FileNotFoundError: a rule file that does not exist.
    """

    metadata = {
        "render_modes": ["human", "ansi"],
        "name": "unolab_v0",
        "is_parallelizable": False,
    }

    def __init__(
        self,
        rules: Union[str, "os.PathLike[str]"] = "classic",
        house: House = None,
        settings: SettingsArg = None,
        players: int = 2,
        mode: str = "round",
        reward: str = "win",
        illegal: str = "raise",
        ask_forced: bool = True,
        render_mode: Optional[str] = None,
        encoding: str = "unolab",
    ) -> None:
        super().__init__()
        self.encoding = encoding_of(encoding)
        self._rl = self.encoding == "rlcard"
        self._known = self.encoding == "known"
        self.render_mode = render_mode_of(render_mode)
        self._game = _core.Game(
            rules_of(rules),
            house_items(house),
            setting_items(settings),
            players_of(players),
            None,
            [],
            option_of("mode", mode, MODES),
            option_of("reward", reward, REWARDS),
            option_of("illegal", illegal, ILLEGAL),
            bool_of("ask_forced", ask_forced),
        )
        self.possible_agents = [f"player_{i}" for i in range(self._game.players)]
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        if self._rl:
            self._game.rlcard_check()
            n_actions = RLCARD_ACTIONS
            obs_space = gymnasium.spaces.Box(0.0, 1.0, RLCARD_SHAPE, np.float32)
        else:
            n_actions = ACTIONS
            low, high = observation_bounds(self._game.deck_size, self._known)
            obs_space = gymnasium.spaces.Box(low, high, low.shape, np.float32)
        space = gymnasium.spaces.Dict(
            {
                "observation": obs_space,
                "action_mask": gymnasium.spaces.Box(0, 1, (n_actions,), np.int8),
            }
        )
        self.observation_spaces = {a: space for a in self.possible_agents}
        players = self._game.players
        self.state_space = gymnasium.spaces.Box(
            np.broadcast_to(obs_space.low, (players, *obs_space.shape)).copy(),
            np.broadcast_to(obs_space.high, (players, *obs_space.shape)).copy(),
            (players, *obs_space.shape),
            np.float32,
        )
        """The space of ``state()``: every seat's observation, stacked in seat order."""
        self.action_spaces = {
            a: gymnasium.spaces.Discrete(n_actions) for a in self.possible_agents
        }
        self._seeds = np.random.default_rng()
        self._no_mask = np.zeros(n_actions, dtype=np.int8)
        self._started = False
        # The engine's message when a step stopped on an error (the game
        # cannot go on: every agent is removed until the next reset).
        self._failed: Optional[str] = None
        # True while some seat holds a non-zero reward in self.rewards.
        self._paid = False

    def _check_started(self, what: str) -> None:
        check_started(self._started, self._failed, what, self._game)

    def _check_agents(self, what: str) -> None:
        """``what`` needs an agent still in the game."""
        self._check_started(what)
        if not self.agents:
            raise RuntimeError(
                f"the game is over and every agent is done: reset() needs to be called before {what}()"
            )

    def observation_space(self, agent: str) -> gymnasium.spaces.Space:
        """The observation space of ``agent`` (the same object for every call)."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space:
        """The action space of ``agent``: ``Discrete(ACTIONS)`` (``Discrete(61)`` with RLCard's encoding)."""
        return self.action_spaces[agent]

    @property
    def game(self) -> _core.Game:
        """The core's game (its decision, legal actions, rounds, totals), for
        tools and debugging. It holds every hand (``seat_observation(seat)``
        of any seat): an agent that reads it sees more than its seat could
        at the table; a fair agent uses the observation alone."""
        return self._game

    def reset(self, seed: Optional[int] = None, options: Optional[dict] = None) -> None:
        """Starts a new game.

        With a seed, the game is game 0 of that seed (the game ``unolab run
        --seed SEED`` deals first) and later seedless resets draw their seeds
        from a generator seeded with it; without one, from the generator as
        it is (seeded from the operating system at first).
        """
        seed = seed_of(seed)
        if seed is not None:
            self._seeds = np.random.default_rng(seed)
            game_seed = seed
        else:
            game_seed = int(self._seeds.integers(0, 2**63))
        self._started = False
        self._failed = None
        self._game.reset(game_seed)
        if self._rl:
            self._game.rlcard_settle()
        self._started = True
        self._paid = False
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._end_if_over()

    def _end_if_over(self) -> None:
        """Selects the agent to act, or ends the game for every agent."""
        if self._game.is_over:
            truncated = self._game.truncated
            for a in self.agents:
                self.terminations[a] = not truncated
                self.truncations[a] = truncated
            if getattr(self, "agent_selection", None) not in self.agents:
                self.agent_selection = self.agents[0]
        else:
            seat = self._game.seat
            if seat is None:
                # The core's game is over or at a decision (whose seat this
                # is): never reached, but a clear error if it ever were.
                raise RuntimeError(
                    "the game is neither over nor at a decision (a bug in unolab: please report it)"
                )
            self.agent_selection = self.possible_agents[seat]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """What ``agent`` sees now, and its action mask (all zeros unless it acts)."""
        self._check_started("observe")
        seat = self.agent_name_mapping.get(agent)
        if seat is None:
            raise KeyError(
                f"unknown agent {agent!r} (agents: {self.possible_agents[0]} .. {self.possible_agents[-1]})"
            )
        if self._rl:
            acting = self._game.seat == seat
            return {
                "observation": self._game.rlcard_observation(seat),
                "action_mask": self._game.rlcard_mask() if acting else self._no_mask.copy(),
            }
        if self._game.seat == seat:
            return {
                "observation": self._game.observation(self._known),
                "action_mask": self._game.mask(),
            }
        return {
            "observation": self._game.seat_observation(seat, self._known),
            "action_mask": self._no_mask.copy(),
        }

    def state(self) -> np.ndarray:
        """The whole table: every seat's observation (what ``observe`` gives
        it, without the mask), stacked in seat order, so every hand is in it.

        For a centralised critic in training (as PettingZoo's ``state``
        is), never for a policy that plays: a seat at the table sees only
        its own row.
        """
        self._check_started("state")
        return np.stack([self.observe(a)["observation"] for a in self.possible_agents])

    def step(self, action: Optional[int]) -> None:
        """Answers the decision in hand with ``action`` (``None`` for an agent whose game is over).

        Raises:
            TypeError: the action is not an integer (nor ``None``).
            ValueError: the action is outside the mask (with ``illegal="raise"``,
                or for a decision the sanction does not cover); nothing changes.
            RuntimeError: a step before ``reset``, after every agent is done,
                or after a step that stopped on an error of the engine (the
                game cannot go on: every agent is removed, so ``agent_iter``
                ends, and ``reset`` starts a new game).
        """
        self._check_agents("step")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            if action is not None:
                # PettingZoo's refusal: nothing changes.
                self._was_dead_step(action)
            self._failed = STEP_CUT
            self._was_dead_step(None)
            self._failed = None
            return
        if action is None:
            raise ValueError(f"{agent} is to act: None is an action only once the game is over")
        game = self._game
        code = action_of(action, RLCARD_ACTIONS, rlcard=True) if self._rl else action_of(action, ACTIONS)
        # Until the bookkeeping below is done the step is under way: one
        # stopped part way (a KeyboardInterrupt after the game moved on)
        # would leave agent_selection and the rewards behind the game, so
        # every later call refuses until reset().
        self._failed = STEP_CUT
        try:
            if self._rl:
                game.step_rlcard(code)
            else:
                game.step(code)
        except RuntimeError as e:
            # The engine stopped mid-step: the game cannot be trusted to go on.
            self._failed = str(e)
            self.agents = []
            raise
        except ValueError:
            # Refused (outside the mask): nothing changed.
            self._failed = None
            raise
        self._cumulative_rewards[agent] = 0.0
        rewards = game.take_rewards()
        # Rewards come at the end of a game (or of a round): most steps pay
        # nothing, and then only a previous payment needs clearing.
        if any(rewards):
            for a, r in zip(self.possible_agents, rewards):
                if a in self.rewards:
                    self.rewards[a] = float(r)
            self._paid = True
            self._accumulate_rewards()
        elif self._paid:
            for a in self.rewards:
                self.rewards[a] = 0.0
            self._paid = False
        self._end_if_over()
        self._failed = None
        if self.render_mode == "human":
            self.render()

    def last(self, observe: bool = True):
        """The acting agent's observation, cumulative reward, termination, truncation and info."""
        self._check_agents("last")
        return super().last(observe)

    def agent_iter(self, max_iter: int = 2**63) -> AECIterable:
        """Yields the agent to act until every agent is done (or ``max_iter`` steps)."""
        self._check_started("agent_iter")
        return super().agent_iter(max_iter)

    def render(self) -> Optional[str]:
        """The table as the seat to act sees it and its legal actions (or the end of the game).

        The legal actions are numbered as ``step`` takes them (RLCard's
        action numbers and labels with ``encoding="rlcard"``).

        ``"human"`` prints it, ``"ansi"`` returns it; without a render mode
        it warns and returns ``None``. Before ``reset``: ``RuntimeError``.
        """
        self._check_started("render")
        if self.render_mode is None:
            gymnasium.logger.warn("render() was called without a render mode (render_mode=None)")
            return None
        text = self._game.rlcard_render() if self._rl else self._game.render()
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Lets go of the game, and with it the programs its ``ext:``
        strategies ran (unless ``game`` is held elsewhere); any later use of
        the environment is a ``RuntimeError``. Closing twice is harmless."""
        self._game = Closed("environment")


def env(**kwargs: Any) -> raw_env:
    """A PettingZoo AEC environment: ``raw_env(**kwargs)`` (it checks the order of calls itself)."""
    return raw_env(**kwargs)
