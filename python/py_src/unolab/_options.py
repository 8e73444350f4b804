"""Arguments shared by every environment: rule set, house rules, settings,
and the strict checks of plain arguments (integers, booleans, seats).

The core takes house rules and settings as ``"key=value"`` strings (the same
items as ``unolab run --house ... --set ...``); these helpers turn the Python
forms (a comma list or a list of items; a dict or a list of ``"k=v"``) into
them. Checking the names and values is the core's job: a bad one raises
``ValueError`` with the core's message.

Integers and booleans are checked here, before the core sees them: an
integer is an ``int`` or anything with ``__index__`` (numpy's integers), not
a ``bool`` nor a ``float`` (``TypeError``), and one out of range is a
``ValueError`` with the range (never the ``OverflowError`` of a conversion);
a boolean is ``True`` or ``False`` (or numpy's ``bool_``), never a string or
a number read as one.
"""

from __future__ import annotations

import contextvars
import functools
import inspect
import numbers
import operator
import os
from typing import Any, Mapping, Optional, Sequence, SupportsIndex, Union, cast, overload

import numpy as np

from . import _core

House = Union[str, Sequence[str], None]
"""House rules: ``"stacking=same,seven_o"``, or a list of such items."""

SettingsArg = Union[Mapping[str, object], Sequence[str], None]
"""Settings: ``{"hand_size": 5}``, or a list of ``"key=value"`` strings."""


def _fspath(v: Any) -> Optional[str]:
    """``v`` as a path string when it is a ``str`` or a ``str`` ``os.PathLike``."""
    if isinstance(v, str):
        return v
    if isinstance(v, os.PathLike):
        path = os.fspath(v)
        if isinstance(path, str):
            return path
    return None


def rules_of(rules: Any, name: str = "rules") -> str:
    """A rule set: a built-in name or a rule file's path (``str`` or
    ``os.PathLike``), as the core's string; the core checks it. A PathLike
    is always a path: ``Path("myrules")`` is the file ``./myrules``, never
    a built-in rule set of that name."""
    path = _fspath(rules)
    if path is None:
        raise TypeError(
            f"{name} must be a rule set name or a path (str or os.PathLike), got {type(rules).__name__}"
        )
    if not isinstance(rules, str):
        return path_text(path)
    return path


def path_text(path: Union[str, "os.PathLike[str]"]) -> str:
    """A path (a ``pathlib.Path``) as the core's string for a file: the
    core reads a name without a separator or ``.toml`` as a built-in one
    (a rule set, a strategy), so such a path gets ``./`` in front."""
    path = os.fspath(path)
    if os.sep not in path and "/" not in path and not path.endswith(".toml"):
        return os.path.join(os.curdir, path)
    return path


@overload
def path_of(name: str, p: None) -> None: ...


@overload
def path_of(name: str, p: Union[str, os.PathLike[str]]) -> str: ...


@overload
def path_of(name: str, p: Any) -> Optional[str]: ...


def path_of(name: str, p: Any) -> Optional[str]:
    """A file or folder path (``str`` or ``os.PathLike``; ``None`` stays ``None``)."""
    if p is None:
        return None
    path = _fspath(p)
    if path is None:
        raise TypeError(f"{name} must be a path (str or os.PathLike), got {type(p).__name__}")
    if path == "":
        # Taken as the current folder, out="" wrote results there (and,
        # with force=True, removed those it found); the command line refuses
        # an empty --out.
        raise ValueError(f"{name} is an empty path: give a file or folder, or leave {name} out")
    return path


def option_of(name: str, v: Any, valid: Sequence[str]) -> str:
    """A string option (``mode``, ``reward``, ``illegal``, ...) checked to be
    a string; the core checks that it is one of ``valid``."""
    if isinstance(v, str):
        return v
    choices = " or ".join(f"'{x}'" for x in valid)
    raise TypeError(f"{name} must be a string ({choices}), got {type(v).__name__}")


ENCODINGS = ("unolab", "known", "rlcard")
"""The encodings of an environment's observations and actions."""


def encoding_of(encoding: Any) -> str:
    """``"unolab"``, ``"known"`` or ``"rlcard"`` (a string of another value: ``ValueError``)."""
    encoding = option_of("encoding", encoding, ENCODINGS)
    if encoding not in ENCODINGS:
        raise ValueError(f"unknown encoding '{encoding}' (valid: unolab, known, rlcard)")
    return encoding


def render_mode_of(render_mode: Any) -> Optional[str]:
    """``None``, ``"human"`` or ``"ansi"``."""
    if render_mode is None:
        return None
    if not isinstance(render_mode, str):
        raise TypeError(
            f"render_mode must be None, 'human' or 'ansi', got {type(render_mode).__name__}"
        )
    if render_mode not in ("human", "ansi"):
        hint = ""
        if render_mode == "rgb_array":
            # stable-baselines3's make_vec_env asks for it of an id by default.
            hint = (
                "; the games are drawn as text, not images (with stable-baselines3's "
                "make_vec_env, pass env_kwargs={'render_mode': None})"
            )
        raise ValueError(f"unknown render mode '{render_mode}' (valid: human, ansi){hint}")
    return render_mode


MODES = ("round", "match")
REWARDS = ("win", "points")
ILLEGAL = ("raise", "sanction")


def bool_of(name: str, v: Any) -> bool:
    """``v`` checked to be a boolean (``True``, ``False`` or numpy's ``bool_``)."""
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    raise TypeError(f"{name} is True or False, got {v!r}")


def int_of(name: str, v: Any) -> int:
    """``v`` checked to be an integer (``int`` or ``__index__``, not ``bool``)."""
    if isinstance(v, (bool, np.bool_)) or not hasattr(type(v), "__index__"):
        raise TypeError(f"{name} is an integer, got {v!r}")
    return operator.index(v)


def players_of(players: Any) -> int:
    """A player count checked as the core checks it (2 to ``MAX_PLAYERS``)."""
    n = int_of("players", players)
    if not 2 <= n <= _core.MAX_PLAYERS:
        raise ValueError(f"{n} players is not supported (valid: 2 to {_core.MAX_PLAYERS})")
    return n


def seat_of(seat: Any, players: int, name: str = "seat") -> int:
    """A seat of a ``players``-player table (0 to ``players - 1``)."""
    s = int_of(name, seat)
    if not 0 <= s < players:
        raise ValueError(
            f"seat {s} is not a seat of a {players}-player table (valid: 0 to {players - 1})"
        )
    return s


def action_of(action: Any, n_actions: int, rlcard: bool = False) -> int:
    """An action number checked to be an integer from 0 to ``n_actions - 1``
    (the core's messages; it then checks that the action is legal)."""
    if type(action) is not int:
        if isinstance(action, (bool, np.bool_)) or not hasattr(type(action), "__index__"):
            raise TypeError(f"an action is an integer, got {action!r}")
        try:
            action = operator.index(action)
        except TypeError:
            # numpy's own words ("only integer scalar arrays can be converted
            # to a scalar index") name neither the action nor the way out.
            shape = getattr(action, "shape", None)
            hint = f" (an array of shape {shape}: give its one action, e.g. int(a[0]))" if shape else ""
            raise TypeError(f"an action is an integer, got {action!r}{hint}") from None
    if not 0 <= action < n_actions:
        what = "an RLCard action" if rlcard else "an action"
        raise ValueError(f"action {action} is not {what} (valid: 0 to {n_actions - 1})")
    return action


def _iterable(v: Any) -> bool:
    try:
        iter(v)
    except TypeError:
        return False
    return True


def house_items(house: House) -> list[str]:
    """House rules as a list of comma lists (``None`` gives none)."""
    if house is None:
        return []
    if isinstance(house, str):
        return [house]
    if isinstance(house, Mapping) or not _iterable(house):
        raise TypeError(
            "house rules are a comma list ('stacking=same,seven_o') or a list of "
            f"items (['stacking=same', 'seven_o']), got {house!r}"
        )
    items = list(house)
    for item in items:
        if not isinstance(item, str):
            raise TypeError(f"house rules are strings, got {item!r}")
    return items


def _value(v: object) -> str:
    """A setting's value as the core reads it: a boolean (``bool`` or
    numpy's ``bool_``), an integer (``int`` or ``__index__``: numpy's
    integers), a float (numpy's too) or a string."""
    if isinstance(v, (bool, np.bool_)):
        return "true" if v else "false"
    if isinstance(v, str):
        return v
    if hasattr(type(v), "__index__"):
        # The check just above is what operator.index needs (int_of's test).
        return str(operator.index(cast(SupportsIndex, v)))
    if isinstance(v, (float, np.floating)):
        return repr(float(v))
    raise TypeError(f"a setting's value is a bool, a number or a string, got {v!r}")


def setting_items(settings: SettingsArg) -> list[str]:
    """Settings as ``"key=value"`` strings (``None`` gives none)."""
    if settings is None:
        return []
    if isinstance(settings, Mapping):
        for k in settings:
            if not isinstance(k, str):
                raise TypeError(f"a setting's name is a string, got {k!r}")
            if "=" in k:
                raise ValueError(
                    f"a setting's name holds no '=': got {k!r} (a dict maps the "
                    "name to its value: {'hand_size': 5})"
                )
        return [f"{k}={_value(v)}" for k, v in settings.items()]
    if isinstance(settings, str):
        return [settings]
    if not _iterable(settings):
        raise TypeError(
            "settings are a dict ({'hand_size': 5}) or a list of 'key=value' "
            f"strings (['hand_size=5']), got {settings!r}"
        )
    items = list(settings)
    for item in items:
        if not isinstance(item, str):
            raise TypeError(f"settings are 'key=value' strings, got {item!r}")
    return items


def env_strategy_list(strategies: Any) -> list[Any]:
    """An environment's strategies: :func:`strategy_list`'s names, where a
    Python strategy (an object with the protocol's methods, or its class:
    :class:`unolab.Strategy`) may stand for any name, or be given alone. The
    core checks the objects, before any game."""
    if strategies is None or isinstance(strategies, (str, os.PathLike)):
        return strategy_list(strategies)
    # A strategy (a class, or an object with a play method) is one, even an
    # iterable one (a policy subclassing torch.nn.Sequential).
    if isinstance(strategies, type) or callable(getattr(strategies, "play", None)):
        return [strategies]
    if not isinstance(strategies, Mapping) and not _iterable(strategies):
        return [strategies]
    if isinstance(strategies, Mapping):
        raise TypeError(f"strategies are a comma list or a list of names or Python strategies, got {strategies!r}")
    items = [path_text(x) if isinstance(x, os.PathLike) else x for x in strategies]
    for item in items:
        if isinstance(item, str) and not item.strip():
            raise ValueError(f"strategies: an empty name in {items!r}")
    return items


def strategy_list(strategies: Union[str, Sequence[str], None]) -> list[str]:
    """Strategy names as a list (a comma list is split; ``""``, as ``None``,
    names none). An empty name (a comma list's ``"color,"``, a list's
    ``""``) is a ``ValueError``, as in ``unolab.run``."""
    if strategies is None:
        return []
    if isinstance(strategies, os.PathLike):
        return [path_text(strategies)]
    if isinstance(strategies, str):
        if not strategies.strip():
            return []
        items = [s.strip() for s in strategies.split(",")]
        if not all(items):
            raise ValueError(f"strategies: an empty name in '{strategies}'")
        return items
    if isinstance(strategies, Mapping) or not _iterable(strategies):
        raise TypeError(f"strategies are a comma list or a list of names, got {strategies!r}")
    # A path is a preset file, never a built-in name (``Path("first")``).
    items = [path_text(x) if isinstance(x, os.PathLike) else x for x in strategies]
    for item in items:
        if not isinstance(item, str):
            raise TypeError(f"strategies are names, got {item!r}")
        if not item.strip():
            raise ValueError(f"strategies: an empty name in {items!r}")
    return items


def seed_of(seed: Optional[int]) -> Optional[int]:
    """A seed checked to be an unsigned 64-bit integer (or ``None``)."""
    if seed is None:
        return None
    return seed_value(seed)


def seed_value(seed: Any) -> int:
    """A seed that is given (not ``None``) checked to be an unsigned 64-bit
    integer, as :func:`seed_of` checks it."""
    if isinstance(seed, bool) or not isinstance(seed, int) and not hasattr(seed, "__index__"):
        raise TypeError(f"a seed is an integer, got {seed!r}")
    seed = int(seed)
    if not 0 <= seed < 2**64:
        raise ValueError(f"seed {seed} is not an unsigned 64-bit integer (valid: 0 to 2**64 - 1)")
    return seed


STEP_CUT = "a step was stopped before it finished (KeyboardInterrupt or another exception part way through), so the environment's record may no longer match its game"
"""What an environment's ``failed`` says while a step is under way: still
set at the next call when that step did not finish."""


class Closed:
    """What a closed environment holds in place of its game: ``close()``
    let go of the game (and the programs its strategies ran), and any use
    of it is a clear ``RuntimeError``."""

    __slots__ = ("_what",)

    def __init__(self, what: str) -> None:
        object.__setattr__(self, "_what", what)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") and name.endswith("__"):
            # Python's own lookups (copy, pickle, hasattr of a protocol)
            # expect AttributeError.
            raise AttributeError(name)
        raise RuntimeError(
            f"the {object.__getattribute__(self, '_what')} is closed: close() let go of its game; make a new one"
        )


def check_started(started: bool, failed: Optional[str], what: str, game: Any = None) -> None:
    """An environment's call ``what`` needs a game: not closed (``game``
    a :class:`Closed`), ``reset()`` first, and again after a step that
    stopped on an engine error (``failed``, its message)."""
    if isinstance(game, Closed):
        game.closed  # raises: the environment is closed
    if not started:
        raise RuntimeError(f"reset() needs to be called before {what}()")
    if failed is not None:
        raise RuntimeError(
            f"the game stopped on an error ({failed}): "
            f"reset() needs to be called before {what}()"
        )


# ----- the call a result records ------------------------------------------------

_CALL: "contextvars.ContextVar[Optional[str]]" = contextvars.ContextVar("unolab_call", default=None)


def _value_text(v: Any) -> str:
    """A value of a call as Python text: a plain value as its repr, a path
    as its text, containers item by item, anything else (a Python strategy,
    a callable) by what it is, since its state is not in a repr."""
    if v is None or isinstance(v, (bool, int, float, str)):
        return repr(v)
    # numpy's scalars (np.int64, np.float32, np.bool_) by their value.
    if isinstance(v, np.bool_):
        return repr(bool(v))
    if isinstance(v, numbers.Integral):
        return repr(int(v))
    if isinstance(v, numbers.Real):
        return repr(float(v))
    if isinstance(v, os.PathLike):
        return repr(os.fspath(v))
    if isinstance(v, Mapping):
        return "{" + ", ".join(f"{_value_text(k)}: {_value_text(x)}" for k, x in v.items()) + "}"
    if isinstance(v, (list, tuple)):
        inner = ", ".join(_value_text(x) for x in v)
        return f"[{inner}]" if isinstance(v, list) else f"({inner}{',' if len(v) == 1 else ''})"
    if isinstance(v, type):
        return f"<class {v.__name__}>"
    if callable(v) and hasattr(v, "__name__"):
        return f"<function {v.__name__}>"
    return f"<{type(v).__name__} object>"


def recorded(fn):
    """Makes ``fn`` record its call as given (``unolab.run(strategies='color',
    games=1000)``, the arguments given and no default, but ``progress``,
    which changes no result) for the results' manifest, which
    :func:`call_text` reads while it runs."""
    sig = inspect.signature(fn)

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any):
        try:
            bound = sig.bind(*args, **kwargs)
        except TypeError:
            # The call's own error, as Python words it.
            return fn(*args, **kwargs)
        # The progress callable changes nothing of the results.
        text = ", ".join(
            f"{k}={_value_text(v)}" for k, v in bound.arguments.items() if k != "progress"
        )
        token = _CALL.set(f"unolab.{fn.__name__}({text})")
        try:
            return fn(*args, **kwargs)
        finally:
            _CALL.reset(token)

    return wrapper


def call_text() -> Optional[str]:
    """The call of the lab function running (see :func:`recorded`)."""
    return _CALL.get()
