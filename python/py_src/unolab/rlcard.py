"""Agents trained on RLCard's UNO at a seat of unolab's lab.

``RLCardAgent(agent)`` wraps any RLCard agent (an object with
``eval_step(state) -> (action, info)``, as ``rlcard.agents.DQNAgent``,
``NFSPAgent``, ``RandomAgent`` or a rule model's agent) as a
:class:`unolab.Strategy`, so it plays in :func:`unolab.run`,
:func:`unolab.compare`, :func:`unolab.experiment` and
:func:`unolab.tournament` next to unolab's strategies::

    import unolab
    from unolab.rlcard import RLCardAgent

    unolab.tournament([RLCardAgent(my_dqn, name="dqn"), "color", "random"],
                      rules="rlcard", players=2, games=10_000)

At each play decision the agent gets the state RLCard's UNO environment
gives it (``rlcard.envs.uno.UnoEnv``): ``obs`` the ``(4, 4, 15)`` planes
(the same core encoding as ``encoding="rlcard"``), ``legal_actions`` an
``OrderedDict`` of the legal action numbers (a wild once per colour, 60 to
draw), ``raw_obs`` and ``raw_legal_actions`` (RLCard's labels, ``r-7``,
``y-wild``, ``draw``). Its action is mapped back to the card it names. The
decisions RLCard never asks are answered as RLCard's encoding answers them:
the wild's colour is the action's, a playable drawn card is played, UNO is
called, a Wild Draw Four is not challenged. Stack answers, swap targets and
jump-ins (rule sets RLCard cannot play) get unolab's defaults.

This module does not import rlcard: the agent is only called.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any, Optional

import numpy as np

from . import _core
from .strategy import Observation, Strategy

__all__ = ["RLCardAgent"]


class RLCardAgent(Strategy):
    """An RLCard agent as a unolab strategy.

    Args:
        agent: the RLCard agent: ``agent.eval_step(state)`` returns
            ``(action, info)``; with ``agent.use_raw`` true (RLCard's rule
            agents) the action is a label of ``raw_legal_actions``, else an
            action number of ``legal_actions``.
        name: the name in results (default: the agent's class name).

    Raises (from the run that seats it):
        ValueError: the agent chose an action outside the legal set it was
            given, or a decision offered no card RLCard has (an edition's
            special wild and no draw).
        TypeError: ``agent`` has no ``eval_step`` method (raised here).

    One instance may sit at several seats and be used by several worker
    threads: the colour of a chosen wild is kept per thread and seat until
    the engine asks for it.
    """

    def __init__(self, agent: Any, name: Optional[str] = None) -> None:
        if not callable(getattr(agent, "eval_step", None)):
            raise TypeError(
                f"{type(agent).__name__} is not an RLCard agent: it has no eval_step(state) method"
            )
        self.agent = agent
        """The wrapped RLCard agent."""
        self.name = name if name is not None else type(agent).__name__
        self._raw = bool(getattr(agent, "use_raw", False))
        # The colour named by the wild last chosen, per (thread, seat).
        self._colors: dict[tuple[int, int], str] = {}

    def state(self, obs: Observation, legal: list) -> tuple[dict, dict[int, tuple[str, Optional[str]]]]:
        """RLCard's state of a play decision (``obs``, the legal tokens
        ``legal``), and the card token and named colour of each legal
        action number.

        Raises:
            ValueError: none of ``legal`` is a card RLCard has, nor draw.
        """
        options = {a: (token, color) for a, token, color in obs.rlcard_legal(list(legal))}
        if not options:
            raise ValueError(
                f"RLCard agent '{self.name}': no RLCard action among the legal {list(legal)} "
                "(cards RLCard's UNO does not have)"
            )
        labels = [_core.rlcard_action_label(a) for a in options]
        raw = obs.rlcard_raw()
        raw["legal_actions"] = labels
        state = {
            "obs": obs.rlcard_planes().astype(int),
            "legal_actions": OrderedDict((a, None) for a in options),
            "raw_obs": raw,
            "raw_legal_actions": list(labels),
            "action_record": [],
        }
        return state, options

    def play(self, obs: Observation, legal: list) -> str:
        """Asks the agent (``eval_step``) and plays the card its action names."""
        state, options = self.state(obs, legal)
        answer = self.agent.eval_step(state)
        if not (isinstance(answer, (tuple, list)) and len(answer) == 2):
            raise TypeError(
                f"RLCard agent '{self.name}': eval_step must return (action, info), "
                f"as RLCard's agents do; it returned {answer!r:.80}"
            )
        action, _info = answer
        a = self._number(action, state)
        if a not in options:
            shown = ", ".join(f"{i} ({l})" for i, l in zip(options, state["raw_legal_actions"]))
            raise ValueError(
                f"RLCard agent '{self.name}' chose action {action!r}, not a legal action here "
                f"(legal: {shown})"
            )
        token, color = options[a]
        key = (threading.get_ident(), obs.seat)
        if color is None:
            self._colors.pop(key, None)
        else:
            self._colors[key] = color
        return token

    def _number(self, action: Any, state: dict) -> Optional[int]:
        """The action number of the agent's answer (a label for a raw agent)."""
        if self._raw or isinstance(action, str):
            try:
                return list(state["legal_actions"])[state["raw_legal_actions"].index(action)]
            except ValueError:
                return None
        if isinstance(action, (int, np.integer)) and not isinstance(action, bool):
            return int(action)
        return None

    def color(self, obs: Observation) -> str:
        """The colour the chosen wild's action names; for a wild no action
        chose (a drawn wild played), the colour RLCard's encoding names."""
        c = self._colors.pop((threading.get_ident(), obs.seat), None)
        return c if c is not None else obs.rlcard_color()

    def play_drawn(self, obs: Observation, card: str) -> bool:
        """Plays a playable drawn card, as RLCard does."""
        self._colors.pop((threading.get_ident(), obs.seat), None)
        return True

    def uno(self, obs: Observation) -> bool:
        """Calls UNO (RLCard has no UNO call)."""
        return True

    def challenge(self, obs: Observation) -> bool:
        """Never challenges (RLCard has no challenge)."""
        return False
