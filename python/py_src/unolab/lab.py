"""Running the lab from Python: the commands of the ``unolab`` command line.

``run``, ``compare``, ``experiment``, ``tournament``, ``trace``, ``rules``
and ``strategies`` take the options of the command of the same name (as
keyword arguments) and give the same numbers: the options are turned into a
configuration and the result into JSON by the core's own code, so
``unolab.run(...)`` is ``unolab run --json`` as a dict.

A strategy is a name (``"random"``, ``"color"``, a preset path,
``"ext:COMMAND"``) or a Python object with the decision methods of
:class:`unolab.Strategy` (see docs/python.md), played in-process.

Long calls release the interpreter's lock and use the core's thread pool.
Ctrl-C stops them after the games in progress: a ``KeyboardInterrupt`` is
raised whose ``result`` attribute holds what finished (marked partial, and
written to ``out`` when given), as the command line keeps it.
``progress=True`` shows a progress line on stderr; a callable gets
``(done, total)``.
"""

from __future__ import annotations

import json
import numbers
import os
import pathlib
import re
import sys
from typing import Any, Callable, Iterable, Literal, Mapping, Optional, Sequence, TypeVar, Union, overload

from . import _core
from ._options import (
    MODES,
    House,
    SettingsArg,
    bool_of,
    call_text,
    house_items,
    int_of,
    option_of,
    path_of,
    path_text,
    recorded,
    rules_of,
    seed_of,
    seed_value,
    setting_items,
)

StrategyArg = Union[str, Any]
"""A strategy: a name, or a Python object (or class) with a ``play`` method."""

Strategies = Union[str, StrategyArg, Sequence[StrategyArg]]
"""Strategies: a comma list of names, one strategy, or a list of them."""

Progress = Union[bool, Callable[[int, int], Any], None]
"""``True`` for a progress line on stderr, or a callable ``(done, total)``."""

PathArg = Union[str, "os.PathLike[str]", None]

RulesArg = Union[str, "os.PathLike[str]"]
"""A rule set: a built-in name or a rule file's path."""


class Result(dict):
    """A result: the JSON object the command line prints with ``--json``,
    as a dict (plain Python values), with :meth:`to_pandas` for tables."""

    kind: str = "result"

    @property
    def partial(self) -> bool:
        """Whether the work was interrupted before the end (what finished is kept)."""
        return bool(self.get("partial", False))

    def to_pandas(self, table: Optional[str] = None):
        """The result as a tidy ``pandas.DataFrame`` (one row per strategy,
        entrant or arm; see the subclasses). Needs pandas."""
        try:
            # pandas is optional and has no type information of its own.
            import pandas as pd  # type: ignore[import-untyped, import-not-found]
        except ImportError as e:  # pragma: no cover - pandas is optional
            raise ImportError("to_pandas() needs pandas: pip install pandas") from e
        rows = self._rows(table)
        return pd.DataFrame(rows)

    def _rows(self, table: Optional[str]) -> list[dict]:
        raise NotImplementedError


def _flatten(row: Mapping[str, Any], prefix: str = "") -> dict:
    """Nested dicts as ``a_b`` columns; lists kept as they are."""
    out: dict = {}
    for k, v in row.items():
        key = f"{prefix}{k}"
        if isinstance(v, Mapping):
            out.update(_flatten(v, key + "_"))
        else:
            out[key] = v
    return out


def _pick(d: Mapping[str, Any], table: Optional[str], default: str) -> tuple[str, Any]:
    name = table or default
    lists = {k: v for k, v in d.items() if isinstance(v, list) and v and isinstance(v[0], Mapping)}
    if name not in lists:
        raise ValueError(f"unknown table '{name}' (valid: {', '.join(sorted(lists))})")
    return name, lists[name]


class RunResult(Result):
    """The result of :func:`run` (``unolab run --json``). ``to_pandas()``:
    one row per strategy (``table="strategies"``, the default) with its win
    rate and interval as columns."""

    kind = "run"

    def _rows(self, table: Optional[str]) -> list[dict]:
        _, rows = _pick(self, table, "strategies")
        return [_flatten(r) for r in rows]


class TournamentResult(Result):
    """The result of :func:`tournament` (``unolab tournament --json``).
    ``to_pandas()``: one row per entrant (``table="strategies"``, the
    default), or one per pair of entrants (``table="head_to_head"``)."""

    kind = "tournament"

    def _rows(self, table: Optional[str]) -> list[dict]:
        name, rows = _pick(self, table, _first_list(self, ("ratings", "entrants", "strategies")))
        return [_flatten(r) for r in rows]


class LadderResult(Result):
    """The result of :func:`ladder` (``unolab ladder --json``).
    ``to_pandas()``: one row per agent and table size, ``ladder.csv``'s
    columns."""

    kind = "ladder"

    def _rows(self, table: Optional[str]) -> list[dict]:
        _, rows = _pick(self, table, "rows")
        return [_flatten(r) for r in rows]


class TuneResult(Result):
    """The result of :func:`tune`: ``preset`` (the preset file's text, what
    ``out=`` writes), ``params``, each generation's progress figures
    (``generations``) and the held-out evaluation (``holdout``, the figure
    to quote). ``to_pandas()``: one row per generation."""

    kind = "tune"

    def _rows(self, table: Optional[str]) -> list[dict]:
        _, rows = _pick(self, table, "generations")
        return [_flatten(r) for r in rows]


class ExperimentResult(Result):
    """The result of :func:`experiment` and :func:`compare` (``--json``).
    ``to_pandas()``: one row per arm and metric (``table="arms"``) or per
    comparison (``table="comparisons"``)."""

    kind = "experiment"

    @property
    def partial(self) -> bool:
        m = self.get("manifest", {})
        return bool(m.get("partial", False)) or m.get("stopped_by") == "interrupted"

    def _rows(self, table: Optional[str]) -> list[dict]:
        _, rows = _pick(self, table, _first_list(self, ("arms", "comparisons")))
        return [_flatten(r) for r in rows]


def _first_list(d: Mapping[str, Any], names: Iterable[str]) -> str:
    for n in names:
        v = d.get(n)
        if isinstance(v, list) and v and isinstance(v[0], Mapping):
            return n
    return next(iter(names))


def _strategies(s: Strategies, what: str = "strategies") -> list:
    """A list of names and objects (a comma list of names is split; a path,
    ``pathlib.Path``, names a preset file)."""
    if isinstance(s, os.PathLike):
        # A path is a preset file, never a built-in name (``Path("first")``).
        path = path_text(s)
        if "," in path:
            raise ValueError(
                f"{what}: the preset path '{path}' holds a comma, which separates "
                "strategies in a list; rename the file"
            )
        return [path]
    if isinstance(s, str):
        items = [x.strip() for x in s.split(",")]
        if not all(items):
            raise ValueError(f"{what}: an empty name in '{s}'")
        return items
    if isinstance(s, (list, tuple)):
        out: list = []
        for x in s:
            out.extend(_strategies(x, what) if isinstance(x, (str, os.PathLike)) else [x])
        if not out:
            raise ValueError(f"{what}: no strategies given")
        return out
    return [s]


_U64 = 2**64
"""Counts (games, batch) are unsigned 64-bit integers in the core."""


def _count(name: str, v: Any) -> int:
    v = int_of(name, v)
    if not 1 <= v < _U64:
        raise ValueError(f"'{v}' is not a valid {name} (valid: a positive integer, 1 to 2**64 - 1)")
    return v


def _players(players: Any) -> int:
    """A player count as the command line checks it (2 to 10)."""
    n = int_of("player count", players)
    if not 2 <= n <= _core.MAX_PLAYERS:
        raise ValueError(f"'{n}' is not a valid player count (valid: 2 to {_core.MAX_PLAYERS})")
    return n


def _bool(name: str, v: Any) -> Optional[bool]:
    """An optional boolean override (``None``: the file's or the default)."""
    return None if v is None else bool_of(name, v)


def _seating(seating: Any) -> Optional[str]:
    """Who sits where: "mixed", "rotate" or "fixed" (``None``: the default
    or the file's); the core checks the name."""
    if seating is not None and not isinstance(seating, str):
        raise TypeError(f"seating is 'mixed', 'rotate' or 'fixed', got {seating!r}")
    return seating


def _precision(precision: Any) -> Optional[list]:
    """``--precision``: a number (every metric's half-width) or a dict
    ``{metric: number}`` (``METRIC=X``, one per metric; ``None`` as a key is
    the bare number); the core checks the metric names and the values."""
    if precision is None:
        return None

    def number(v: Any) -> float:
        if isinstance(v, bool) or not isinstance(v, numbers.Real):
            raise TypeError(f"precision is a number or a dict {{metric: number}}, got {precision!r}")
        try:
            return float(v)
        except OverflowError:
            # An int past a float's range: as out of range as any other.
            raise ValueError(f"precision {v} is out of range (a half-width, greater than 0)") from None

    if isinstance(precision, Mapping):
        if not precision:
            raise ValueError("precision is an empty dict: give a number, or {metric: number}")
        items = []
        for k, v in precision.items():
            if k is not None and not isinstance(k, str):
                raise TypeError(f"precision: a metric is a name, got {k!r}")
            items.append((k, number(v)))
        return items
    return [(None, number(precision))]


def _plain_number(v: Any) -> Any:
    """A number JSON does not know (numpy's ``int64``, ``float32``) as
    Python's, for an experiment given as a dict."""
    if isinstance(v, numbers.Integral):
        return int(v)
    if isinstance(v, numbers.Real):
        return float(v)
    raise TypeError(
        "an experiment's values are str, int, float, bool, lists and dicts, "
        f"got {type(v).__name__}"
    )


def _seed(seed: Any) -> int:
    """The master seed of a lab call: an integer, never ``None``. These
    calls are reproducible by their seed, as the command line's are (its
    default is 1 too); ``None`` is refused rather than taken as 1 or drawn,
    so that asking for "no fixed seed" never quietly repeats seed 1."""
    if seed is None:
        raise TypeError(
            "seed=None: a lab call needs an integer seed (the default is 1; "
            "for a fresh one pass e.g. random.getrandbits(64))"
        )
    return seed_value(seed)


def _threads(threads: Optional[int]) -> Optional[int]:
    """A thread count as the command line checks it: 1 to 8 per core."""
    if threads is None:
        return None
    n = int_of("thread count", threads)
    most, cores = _core.thread_limit()
    if not 1 <= n <= most:
        raise ValueError(
            f"'{n}' is not a valid thread count "
            f"(valid: 1 to {most}, 8 per core on this machine's {cores} cores)"
        )
    return n


def _path(p: PathArg, name: str = "out") -> Optional[str]:
    return path_of(name, p)


def _progress(progress: Progress, unit: str):
    if progress is None or progress is False:
        return None
    if callable(progress):
        return progress
    if progress is True:
        def show(done: int, total: int) -> None:
            end = "\n" if done >= total else ""
            sys.stderr.write(f"\r{done:,}/{total:,} {unit}{end}")
            sys.stderr.flush()

        return show
    raise TypeError(f"progress is True, False or a callable (done, total), got {progress!r}")


R = TypeVar("R", bound=Result)


def _finish(text: str, interrupted: bool, cls: type[R], unit: str) -> R:
    result = cls(json.loads(text))
    if interrupted:
        err = KeyboardInterrupt(f"interrupted: results are marked partial ({unit})")
        err.result = result  # type: ignore[attr-defined]
        raise err
    return result


@recorded
def run(
    strategies: Strategies = "random",
    *,
    players: int = 4,
    games: int = 100_000,
    rules: RulesArg = "classic",
    house: House = None,
    settings: SettingsArg = None,
    mode: str = "round",
    seed: int = 1,
    threads: Optional[int] = None,
    seating: Optional[str] = None,
    fixed_seats: bool = False,
    duplicate: bool = False,
    out: PathArg = None,
    force: bool = False,
    progress: Progress = None,
) -> RunResult:
    """Many games between strategies: ``unolab run --json`` as a dict.

    ``strategies`` are names, a comma list, or Python strategy objects, one
    per seat (cycled to fill the seats). ``settings`` are ``--set`` items
    (a dict or ``"key=value"`` strings), ``house`` the ``--house`` items.
    ``out`` writes summary.csv, distributions.csv and manifest.json there;
    a folder holding earlier results is refused (``FileExistsError``) unless
    ``force=True`` (``--force``), which replaces them.
    ``seating`` is ``--seating``: ``"mixed"`` (the default: every game an
    arrangement of the line-up), ``"rotate"`` (the line-up rotated one seat
    per game) or ``"fixed"`` (``fixed_seats=True`` is the same).
    """
    text, interrupted = _core.run(
        rules_of(rules),
        setting_items(settings),
        house_items(house),
        _players(players),
        _strategies(strategies),
        _count("game count", games),
        option_of("mode", mode, MODES),
        _seed(seed),
        _threads(threads),
        _seating(seating),
        bool_of("fixed_seats", fixed_seats),
        bool_of("duplicate", duplicate),
        _path(out),
        bool_of("force", force),
        _progress(progress, "games"),
        call_text(),
    )
    return _finish(text, interrupted, RunResult, "games")


@recorded
def tournament(
    strategies: Strategies,
    *,
    players: int = 4,
    games: int = 100_000,
    rules: RulesArg = "classic",
    house: House = None,
    settings: SettingsArg = None,
    seed: int = 1,
    threads: Optional[int] = None,
    allow_oracle: bool = False,
    out: PathArg = None,
    force: bool = False,
    resume: bool = False,
    progress: Progress = None,
) -> TournamentResult:
    """Line-ups drawn from a field of strategies, ratings with intervals and
    head-to-head: ``unolab tournament --json`` as a dict.

    ``allow_oracle=True`` lets the field hold a perfect-information reference
    (``base = "oracle"``, e.g. ``oracle-400``), as ``--allow-oracle`` does.
    ``out`` writes the ratings and head-to-head tables there; a folder holding
    earlier results is refused (``FileExistsError``) unless ``force=True``.
    Interrupted with ``out``, it also saves the finished games there
    (``state.json``), and the same call with ``resume=True`` plays the rest
    (to ``games``): the results of one uninterrupted call, as ``--resume``.
    A state of another rule set, table size, field or seed is refused
    (``ValueError``)."""
    text, interrupted = _core.tournament(
        rules_of(rules),
        setting_items(settings),
        house_items(house),
        _players(players),
        _strategies(strategies),
        _count("game count", games),
        _seed(seed),
        _threads(threads),
        bool_of("allow_oracle", allow_oracle),
        _path(out),
        bool_of("force", force),
        bool_of("resume", resume),
        _progress(progress, "games"),
        call_text(),
    )
    return _finish(text, interrupted, TournamentResult, "games")


@recorded
def ladder(
    file: PathArg,
    *,
    games: Optional[int] = None,
    threads: Optional[int] = None,
    out: PathArg = None,
    force: bool = False,
    resume: bool = False,
    progress: Progress = None,
) -> LadderResult:
    """The strength ladder of a ladder file (``experiments/ladder.toml``):
    every agent of its field rated in one tournament per table size and
    timed on one thread, as ``unolab ladder FILE --json`` (a dict; its
    ``rows`` are ``ladder.csv``'s). ``games`` replaces the file's games per
    table size. ``out`` writes ``ladder.csv``, ``ladder.svg``, ``report.md``
    and each tournament's folder there (without it nothing is written); a
    folder holding earlier results is refused (``FileExistsError``) unless
    ``force=True``. Interrupted with ``out``, it saves each table size it
    reached (``state.json``), and the same call with ``resume=True``
    continues it, as ``--resume``."""
    path = _path(file, "file")
    if path is None:
        raise TypeError("file is the path of a ladder file")
    text, interrupted = _core.ladder(
        path,
        None if games is None else _count("game count", games),
        _threads(threads),
        _path(out),
        bool_of("force", force),
        bool_of("resume", resume),
        _progress(progress, "games"),
        call_text(),
    )
    return _finish(text, interrupted, LadderResult, "games")


def redraw_ladder(file: PathArg, *, out: PathArg = None) -> pathlib.Path:
    """Draws ``ladder.svg`` again from the ladder's ``ladder.csv`` (in
    ``out``, default ``results/<name>`` of the file), playing no game, as
    ``unolab ladder FILE --redraw``: after an update of unolab's plots, a
    ladder that took hours gets the new drawing. The other files stay as
    they are. Returns the SVG's path; a folder that is not there or holds
    no ``ladder.csv`` is a ``FileNotFoundError``, an ``out`` that is a file
    a ``ValueError``."""
    path = _path(file, "file")
    if path is None:
        raise TypeError("file is the path of a ladder file")
    folder = _path(out)
    if folder is not None and os.path.exists(folder) and not os.path.isdir(folder):
        # As the other functions refuse a file where they write a folder (the
        # core said FileNotFoundError, of a file that exists).
        raise ValueError(
            f"out={folder} exists and is not a directory: nothing to redraw "
            "(out= is the folder a ladder wrote)"
        )
    return pathlib.Path(_core.redraw_ladder(path, folder))


@recorded
def tune(
    *,
    players: int = 4,
    field: Strategies = "points,color,cautious",
    start: str = "color",
    generations: int = 10,
    population: int = 16,
    games: int = 4000,
    holdout_games: int = 40_000,
    rules: RulesArg = "classic",
    house: House = None,
    settings: SettingsArg = None,
    seed: int = 1,
    threads: Optional[int] = None,
    name: Optional[str] = None,
    allow_oracle: bool = False,
    out: PathArg = None,
    force: bool = False,
    progress: Progress = None,
) -> TuneResult:
    """The cross-entropy method over a heuristic preset's parameters, as
    ``unolab tune``: from ``start`` (a heuristic preset), ``generations`` of
    ``population`` candidates, each playing ``games`` rounds in one seat
    against ``field`` (cycled to fill the other seats; names or Python
    strategies), then ``holdout_games`` rounds on seeds the search never
    used: the tuned preset and ``start`` against the field, paired, and the
    tuned preset against ``start``. ``out=FILE`` writes the preset file
    (refused when it exists, unless ``force=True``); ``name`` names the
    preset (default: ``out``'s file name, or ``"tuned"``). ``progress``
    counts generations. Ctrl-C ends the search after the games in progress
    (the generation under way is dropped), then the held-out evaluation
    after its games in progress, and raises ``KeyboardInterrupt`` whose
    ``result`` holds the preset reached."""
    text, interrupted = _core.tune(
        rules_of(rules),
        setting_items(settings),
        house_items(house),
        _players(players),
        _strategies(field, "field"),
        # A path is a preset file, never a built-in name.
        path_text(start) if isinstance(start, os.PathLike) else _name("start", start),
        _within("generations", generations, 1, _MAX_GENERATIONS),
        _within("population", population, 4, _MAX_POPULATION),
        _count("game count", games),
        _count("held-out game count", holdout_games),
        _seed(seed),
        _threads(threads),
        None if name is None else _name("name", name),
        bool_of("allow_oracle", allow_oracle),
        path_of("out", out),
        bool_of("force", force),
        _progress(progress, "generations"),
        call_text(),
    )
    return _finish(text, interrupted, TuneResult, "generations")


# The core's bounds (unolab::lab::tune): a generation count is 32 bits, and
# a generation holds 4 to 2**20 candidates.
_MAX_GENERATIONS = 2**32 - 1
_MAX_POPULATION = 2**20


def _within(name: str, v: Any, lo: int, hi: int) -> int:
    v = int_of(name, v)
    if not lo <= v <= hi:
        raise ValueError(f"{name}={v} is out of range (valid: {lo} to {hi})")
    return v


def _name(what: str, v: Any) -> str:
    if isinstance(v, os.PathLike):
        return os.fspath(v)
    if not isinstance(v, str):
        raise TypeError(f"{what} is a name or a preset's path, got {v!r}")
    return v


@recorded
def compare(
    strategies: Strategies = "random",
    *,
    players: int = 4,
    rules: RulesArg = "classic",
    house: House = None,
    settings: SettingsArg = None,
    mode: str = "round",
    b_rules: Optional[RulesArg] = None,
    b_settings: SettingsArg = None,
    b_house: House = None,
    b_strategies: Optional[Strategies] = None,
    b_seat: Union[str, tuple, dict, None] = None,
    games: Optional[int] = None,
    seed: int = 1,
    duplicate: Optional[bool] = None,
    seating: Optional[str] = None,
    precision: Union[float, Mapping[Optional[str], float], None] = None,
    batch: Optional[int] = None,
    threads: Optional[int] = None,
    allow_oracle: bool = False,
    out: PathArg = None,
    resume: bool = False,
    force: bool = False,
    progress: Progress = None,
) -> ExperimentResult:
    """A/B: configuration A and B (A with the ``b_*`` changes) played on the
    same seeds, differences with intervals: ``unolab compare --json``.

    ``b_seat`` changes one seat of B's line-up: ``"K=STRATEGY"``,
    ``(K, strategy)`` or ``{K: strategy}`` (seat K from 0, the strategy a
    name or an object). ``allow_oracle=True`` lets a line-up seat a
    perfect-information reference (``base = "oracle"``), as ``--allow-oracle``.
    ``seating`` (``"mixed"``, ``"rotate"`` or ``"fixed"``) seats both arms.
    ``precision`` stops once every 95% interval is that narrow: a number
    for every metric, or ``{metric: number}`` as ``--precision METRIC=X``.
    ``games`` is 10,000 unless given (or, with ``resume=True``, the saved
    run's). With ``out``, the state is saved there as the run goes
    (``state.json``); ``resume=True`` continues the run saved in ``out``
    under its ``games`` and ``precision`` unless given (``--resume``), and a
    folder holding earlier results is otherwise refused
    (``FileExistsError``) unless ``force=True`` (``--force``) replaces them.
    """
    players = _players(players)

    def not_a_seat(k: object) -> ValueError:
        return ValueError(f"b_seat: '{k}' is not a seat (valid: 0 to {players - 1})")

    seat = None
    if b_seat is not None:
        if isinstance(b_seat, str):
            k, sep, name = b_seat.partition("=")
            if not sep:
                raise ValueError(f"b_seat expects 'K=STRATEGY', got '{b_seat}'")
            k = k.strip()
            # The command line's reading: ASCII digits (int() would also
            # take '1_0' and other scripts' digits).
            if not (k.removeprefix("+").isascii() and k.removeprefix("+").isdigit()):
                raise not_a_seat(k)
            seat = (int(k), name.strip())
        else:
            if isinstance(b_seat, dict) and len(b_seat) == 1:
                # {K: strategy}: the mapping a caller reaches for first.
                b_seat = next(iter(b_seat.items()))
            if not isinstance(b_seat, (tuple, list)) or len(b_seat) != 2:
                raise TypeError(
                    "b_seat changes one seat of B's line-up: give 'K=STRATEGY', "
                    f"(K, strategy) or {{K: strategy}}, not {b_seat!r}"
                )
            k, s = b_seat
            if isinstance(s, os.PathLike):
                s = os.fspath(s)
            seat = (int_of("seat", k), s)
        if not 0 <= seat[0] < players:
            raise not_a_seat(seat[0])
    text, interrupted = _core.compare(
        rules_of(rules),
        setting_items(settings),
        house_items(house),
        players,
        _strategies(strategies),
        option_of("mode", mode, MODES),
        None if b_rules is None else rules_of(b_rules, "b_rules"),
        setting_items(b_settings),
        house_items(b_house),
        None if b_strategies is None else _strategies(b_strategies, "b_strategies"),
        seat,
        None if games is None else _count("game count", games),
        _seed(seed),
        _bool("duplicate", duplicate),
        _seating(seating),
        _precision(precision),
        None if batch is None else _count("batch", batch),
        _threads(threads),
        bool_of("allow_oracle", allow_oracle),
        _path(out),
        bool_of("resume", resume),
        bool_of("force", force),
        _progress(progress, "games per arm"),
        call_text(),
    )
    return _finish(text, interrupted, ExperimentResult, "games per arm")


@recorded
def experiment(
    source: Union[str, "os.PathLike[str]", Mapping[str, Any]],
    *,
    strategies: Optional[Mapping[str, Any]] = None,
    games: Optional[int] = None,
    seed: Optional[int] = None,
    duplicate: Optional[bool] = None,
    seating: Optional[str] = None,
    precision: Union[float, Mapping[Optional[str], float], None] = None,
    batch: Optional[int] = None,
    threads: Optional[int] = None,
    out: PathArg = None,
    resume: bool = False,
    force: bool = False,
    progress: Progress = None,
) -> ExperimentResult:
    """An experiment file (a path), or the same as a dict (the file's tables
    as nested dicts), played paired: ``unolab experiment run`` as a dict.

    ``strategies`` maps names the experiment uses to Python strategy
    objects (a name the experiment does not seat is a ``ValueError``).
    ``games``, ``seed``, ``duplicate``, ``seating``, ``precision`` and
    ``batch`` override the file's, as the command line options do. Results are
    written to ``out`` only when it is given, with the state of the run
    (``state.json``) that ``resume=True`` continues (``--resume``); a folder
    holding earlier results is otherwise refused (``FileExistsError``)
    unless ``force=True`` (``--force``) replaces them.
    """
    if isinstance(source, Mapping):
        _fits_toml(source, "")
        try:
            as_json = json.dumps(source, default=_plain_number, allow_nan=False)
        except ValueError:
            raise ValueError("the experiment holds NaN or an infinity, which nothing in it takes") from None
        text, is_text = _core.json_to_toml(as_json), True
    elif isinstance(source, (str, os.PathLike)):
        text, is_text = path_of("source", source), False
    else:
        raise TypeError(
            "source must be an experiment file's path (str or os.PathLike) or a dict, "
            f"got {type(source).__name__}"
        )
    if strategies is not None and not isinstance(strategies, Mapping):
        raise TypeError(
            f"strategies maps the names the experiment uses to Python strategy objects, got {strategies!r}"
        )
    custom = list((strategies or {}).items())
    for name, obj in custom:
        if not isinstance(name, str):
            raise TypeError(f"strategies: a name the experiment uses is a string, got {name!r}")
        if isinstance(obj, str):
            raise TypeError(f"strategies['{name}'] is a Python strategy object, not a name")
    try:
        text_out, interrupted = _core.experiment(
            text,
            is_text,
            custom,
            None if games is None else _count("game count", games),
            seed_of(seed),
            _bool("duplicate", duplicate),
            _seating(seating),
            _precision(precision),
            None if batch is None else _count("batch", batch),
            _threads(threads),
            _path(out),
            bool_of("resume", resume),
            bool_of("force", force),
            _progress(progress, "games per arm"),
            call_text(),
        )
    except ValueError as e:
        if not is_text or "<dict>" not in str(e):
            raise
        # The core names a line of the TOML made from the dict, which the
        # caller never wrote: the key path instead.
        raise ValueError(_dict_error(text, str(e))) from None
    return _finish(text_out, interrupted, ExperimentResult, "games per arm")


def _dict_error(text: str, message: str) -> str:
    """``message`` of the core about ``text`` (TOML made from an experiment
    given as a dict) with its ``<dict>:LINE:`` put as the key path of that
    line (``arm[0].house``), as the dict's caller wrote it."""
    m = re.match(r"<dict>:(\d+): (.*)", message, re.S)
    if m is None:
        return message.replace("<dict>", "experiment")
    line, rest = int(m.group(1)), m.group(2)
    table, key, counts = "", None, {}
    for i, raw in enumerate(text.splitlines()[:line], 1):
        s = raw.strip()
        if s.startswith("[["):
            name = s.strip("[] ")
            counts[name] = counts.get(name, -1) + 1
            table = f"{name}[{counts[name]}]"
        elif s.startswith("["):
            first, _, more = s.strip("[] ").partition(".")
            table = (f"{first}[{counts[first]}]" if first in counts else first) + (f".{more}" if more else "")
        elif i == line and "=" in s:
            key = s.split("=", 1)[0].strip().strip('"')
    path = ".".join(p for p in (table, key) if p) or "the experiment"
    if key and rest.startswith(f"{key}: "):
        rest = rest[len(key) + 2:]
    return f"experiment: {path}: {rest}"



def trace(
    strategies: Strategies = "random",
    *,
    players: int = 4,
    rules: RulesArg = "classic",
    house: House = None,
    settings: SettingsArg = None,
    seed: int = 1,
    out: PathArg = None,
    force: bool = False,
) -> list[dict]:
    """One whole match as events (docs/trace.md): ``unolab trace``, each
    JSON line as a dict. ``out`` also writes the JSON Lines to that file
    (missing folders are created, as by ``--out``; an existing file is
    refused with ``FileExistsError`` unless ``force=True`` replaces it)."""
    text = _core.trace(
        rules_of(rules),
        setting_items(settings),
        house_items(house),
        _players(players),
        _strategies(strategies),
        _seed(seed),
        _path(out),
        bool_of("force", force),
    )
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def _fits_toml(value: Any, path: str) -> None:
    """Refuses what an experiment file cannot hold, anywhere in an experiment
    given as a dict, naming its key: a ``None`` (TOML has no null) or an
    integer past TOML's. Serde's message named a line and a column of a text
    the caller never wrote."""
    if value is None:
        raise TypeError(
            f"experiment: {path or 'the experiment'} is None (an experiment file has no "
            "null: leave the key out for its default)"
        )
    if isinstance(value, numbers.Integral) and not -(2**63) <= int(value) < 2**63:
        raise ValueError(
            f"experiment: {path} = {value} is past what an experiment file holds (TOML "
            "integers, -2**63 to 2**63 - 1); a seed that large goes in experiment(..., seed=...)"
        )
    if isinstance(value, Mapping):
        for k, v in value.items():
            _fits_toml(v, f"{path}.{k}" if path else str(k))
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            _fits_toml(v, f"{path}[{i}]")


@overload
def rules(
    name: None = None, *, house: None = None, settings: None = None, as_toml: bool = False
) -> list[dict]: ...


@overload
def rules(
    name: RulesArg,
    *,
    house: House = None,
    settings: SettingsArg = None,
    as_toml: Literal[False] = False,
) -> dict: ...


@overload
def rules(
    name: RulesArg, *, house: House = None, settings: SettingsArg = None, as_toml: Literal[True]
) -> str: ...


def rules(
    name: Optional[RulesArg] = None,
    *,
    house: House = None,
    settings: SettingsArg = None,
    as_toml: bool = False,
) -> Union[list[dict], dict, str]:
    """Without a name, the rule sets (``unolab rules``): a list of dicts with
    ``name``, ``cards`` and ``description``. With one (a name or a path),
    the rule set fully resolved (``unolab rules show``) as a dict, or as the
    TOML text with ``as_toml=True``."""
    if name is None:
        if house is not None or settings is not None:
            raise ValueError("house rules and settings apply to a named rule set: rules(name, ...)")
        return [
            {"name": n, "cards": c, "description": d} for n, c, d in _core.rules_list()
        ]
    name = rules_of(name, "name")
    as_toml = bool_of("as_toml", as_toml)
    text = _core.rules_show(name, setting_items(settings), house_items(house))
    if as_toml:
        return text
    return json.loads(_core.toml_to_json(text))


def strategies() -> list[dict]:
    """The built-in strategies and presets (``unolab strategies``): a list of
    dicts with ``name``, ``base``, ``description`` and ``params`` (a dict of
    the parameters, values as written)."""
    out = []
    for name, base, description, params in _core.catalog():
        out.append(
            {
                "name": name,
                "base": base,
                "description": description,
                "params": {k: json.loads(v) for k, v in params},
            }
        )
    return out
