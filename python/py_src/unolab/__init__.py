"""unolab from Python: UNO and its themed editions for learning agents.

Every rule set, house rule and table size of the unolab engine, at engine
speed:

* ``unolab.env(...)``: a PettingZoo AEC environment, every seat an agent
  (``unolab.pettingzoo.raw_env``);
* ``unolab.UnoEnv(...)``, registered with Gymnasium as ``unolab/Uno-v0``:
  one learner seat, unolab strategies at the others;
* ``unolab.VecEnv(n, ...)``: ``n`` games stepped together in Rust, their
  state in preallocated numpy arrays;
* ``unolab.run``, ``compare``, ``experiment``, ``tournament``, ``ladder``, ``redraw_ladder``,
  ``tune``, ``trace``, ``rules``, ``strategies``: the commands of the ``unolab`` command line,
  with the same options and the same numbers (``unolab.lab``);
* ``unolab.Strategy``: Python strategies, played in-process at any seat;
  ``unolab.rlcard.RLCardAgent`` seats an agent trained on RLCard;
* ``unolab.encoding``: the observation (``OBS_LEN`` features in
  ``SECTIONS``, and with ``encoding="known"`` the ``KNOWN_LEN`` values of
  what the seat knows of other hands after them) and the actions
  (``Discrete(ACTIONS)``), shared by all three.

docs/python.md in the repository is the manual.
"""

from __future__ import annotations

from typing import Any

from . import _core
from .encoding import (
    ACTIONS,
    CARD_KINDS,
    DECISION_KINDS,
    KINDS,
    KNOWN_LEN,
    MAX_PLAYERS,
    OBS_LEN,
    OBS_LEN_KNOWN,
    RLCARD_ACTIONS,
    RLCARD_SHAPE,
    SECTIONS,
    Section,
    action_label,
    observation_bounds,
    section,
)
from .lab import (
    ExperimentResult,
    LadderResult,
    Result,
    RunResult,
    TournamentResult,
    TuneResult,
    compare,
    experiment,
    ladder,
    redraw_ladder,
    rules,
    run,
    strategies,
    tournament,
    trace,
    tune,
)
from . import rlcard
from .rlcard import RLCardAgent
from .strategy import Observation, Strategy
from .vec import VecEnv

__version__: str = _core.__version__
"""The package version (the core crate's)."""

RULE_SETS: tuple[str, ...] = tuple(_core.rule_sets())
"""The built-in rule sets."""

STRATEGIES: tuple[str, ...] = tuple(_core.strategy_names())
"""The built-in strategy names (presets and search agents); a preset path or ``ext:COMMAND`` works too."""


def env(**kwargs: Any):
    """A PettingZoo AEC environment, every seat an agent (``unolab.pettingzoo.raw_env``; see its arguments)."""
    from .pettingzoo import env as make

    return make(**kwargs)


_LAZY_MODULES = ("gym", "pettingzoo")
"""Submodules loaded on first use (``unolab.pettingzoo.env(...)`` works
after ``import unolab`` alone)."""


def __getattr__(name: str) -> Any:
    # The Gymnasium class loads on first use (gymnasium is imported anyway
    # for the registration below; pettingzoo only when asked for).
    if name == "UnoEnv":
        from .gym import UnoEnv

        return UnoEnv
    if name in _LAZY_MODULES:
        import importlib

        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module 'unolab' has no attribute '{name}'")


def __dir__() -> list[str]:
    # The public names (`Any` and `annotations` are this file's imports).
    hidden = {"Any", "annotations"}
    return sorted((set(globals()) - hidden) | set(__all__) | set(_LAZY_MODULES))


def _register() -> None:
    try:
        import gymnasium
    except ImportError:  # gymnasium is a dependency; a broken install still imports unolab
        return
    if "unolab/Uno-v0" not in gymnasium.registry:
        gymnasium.register(id="unolab/Uno-v0", entry_point="unolab.gym:UnoEnv")


_register()

__all__ = [
    "ACTIONS",
    "CARD_KINDS",
    "DECISION_KINDS",
    "ExperimentResult",
    "LadderResult",
    "Observation",
    "RLCardAgent",
    "Result",
    "RunResult",
    "Strategy",
    "TournamentResult",
    "TuneResult",
    "KINDS",
    "KNOWN_LEN",
    "MAX_PLAYERS",
    "OBS_LEN",
    "OBS_LEN_KNOWN",
    "RLCARD_ACTIONS",
    "RLCARD_SHAPE",
    "RULE_SETS",
    "SECTIONS",
    "STRATEGIES",
    "Section",
    "UnoEnv",
    "VecEnv",
    "action_label",
    "compare",
    "env",
    "experiment",
    "ladder",
    "observation_bounds",
    "redraw_ladder",
    "rules",
    "run",
    "section",
    "strategies",
    "tournament",
    "trace",
    "tune",
]
