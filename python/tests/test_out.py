"""A bad ``out=`` raises the same kind of exception in every function that
takes it (docs/python.md, "Errors"): ``TypeError`` for a wrong type,
``ValueError`` for a value the caller can fix (an empty path, a file where a
folder is written or a folder where a file is), ``FileExistsError`` for
earlier results without ``force=True``, and an ``OSError`` that is no
``ValueError`` when the file system refuses."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

import unolab

EXPERIMENT = {"name": "e", "base": {"players": 2, "games": 20},
              "arm": [{"label": "a"}, {"label": "b", "house": ["stacking=same"]}]}


def ladder_file(folder: Path) -> Path:
    f = folder / "l.toml"
    if not f.exists():
        f.write_text('name = "l"\nplayers = [2]\ngames = 20\nseed = 4\n'
                     'field = ["random", "first", "color"]\nreference = "random"\n'
                     'ceiling = "color"\nspeed_seconds = 0.01\n')
    return f


# The functions that write a folder of results to out=, and those that write
# one file there; each a call of its own that plays a few games at most.
FOLDERS = {
    "run": lambda tmp, **k: unolab.run("color,random", players=2, games=20, **k),
    "tournament": lambda tmp, **k: unolab.tournament("color,random,points", players=2,
                                                     games=20, **k),
    "ladder": lambda tmp, **k: unolab.ladder(ladder_file(tmp), games=20, **k),
    "compare": lambda tmp, **k: unolab.compare("random", players=2, b_seat=(0, "color"),
                                               games=20, **k),
    "experiment": lambda tmp, **k: unolab.experiment(EXPERIMENT, **k),
}
FILES = {
    "trace": lambda tmp, **k: unolab.trace("color,random", players=2, **k),
    "tune": lambda tmp, **k: unolab.tune(players=2, field="random", generations=1,
                                         population=4, games=4, holdout_games=4, **k),
}
WRITERS = {**FOLDERS, **FILES}
EVERY = {**WRITERS, "redraw_ladder": lambda tmp, **k: unolab.redraw_ladder(ladder_file(tmp), **k)}


@pytest.mark.parametrize("name", sorted(EVERY))
@pytest.mark.parametrize("bad, typename", [(5, "int"), (b"out", "bytes"), (["a"], "list")])
def test_an_out_of_the_wrong_type_is_a_type_error(tmp_path, name, bad, typename):
    with pytest.raises(TypeError) as e:
        EVERY[name](tmp_path, out=bad)
    assert type(e.value) is TypeError
    assert str(e.value) == f"out must be a path (str or os.PathLike), got {typename}"


@pytest.mark.parametrize("name", sorted(EVERY))
def test_an_empty_out_is_a_value_error(tmp_path, name, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError) as e:
        EVERY[name](tmp_path, out="")
    assert type(e.value) is ValueError
    assert str(e.value).startswith("out is an empty path: give a file or folder")


@pytest.mark.parametrize("force", [False, True])
@pytest.mark.parametrize("name", sorted(FOLDERS))
def test_a_file_where_a_folder_is_written_is_a_value_error(tmp_path, name, force):
    f = tmp_path / "a-file"
    f.write_text("kept")
    with pytest.raises(ValueError) as e:
        FOLDERS[name](tmp_path, out=f, force=force)
    assert type(e.value) is ValueError
    assert str(e.value) == f"out={f} exists and is not a directory"
    assert f.read_text() == "kept"


def test_redraw_ladder_refuses_a_file_as_out_with_a_value_error(tmp_path):
    # It was a FileNotFoundError ("is not a folder") of a file that exists.
    f = tmp_path / "a-file"
    f.write_text("kept")
    with pytest.raises(ValueError) as e:
        unolab.redraw_ladder(ladder_file(tmp_path), out=f)
    assert type(e.value) is ValueError
    assert str(e.value) == (f"out={f} exists and is not a directory: nothing to redraw "
                            "(out= is the folder a ladder wrote)")
    # A folder that is not there is still a missing one, to read from.
    with pytest.raises(FileNotFoundError, match="is not a folder: nothing to redraw"):
        unolab.redraw_ladder(ladder_file(tmp_path), out=tmp_path / "nosuch")


@pytest.mark.parametrize("name", sorted(FILES))
def test_a_folder_where_a_file_is_written_is_a_value_error(tmp_path, name):
    with pytest.raises(ValueError) as e:
        FILES[name](tmp_path, out=tmp_path)
    assert type(e.value) is ValueError
    assert str(e.value).startswith(f"out={tmp_path} is a directory")


@pytest.fixture(scope="module")
def earlier(tmp_path_factory) -> Path:
    """A folder holding the results of a run."""
    d = tmp_path_factory.mktemp("earlier") / "r"
    unolab.run("color,random", players=2, games=20, out=d)
    return d


@pytest.mark.parametrize("name", sorted(WRITERS))
def test_earlier_results_without_force_are_a_file_exists_error(tmp_path, earlier, name):
    if name in FILES:
        out = tmp_path / "old.txt"
        out.write_text("kept")
        before = {out.name: out.read_bytes()}
        what = "already exists; use force=True to replace it, or another out"
    else:
        out = earlier
        before = {p.name: p.read_bytes() for p in earlier.iterdir()}
        what = "already holds the finished results of a run (manifest.json"
    with pytest.raises(FileExistsError) as e:
        WRITERS[name](tmp_path, out=out)
    assert type(e.value) is FileExistsError
    assert str(e.value).startswith(f"out={out} {what}")
    assert "force=True" in str(e.value)
    after = {p.name: p.read_bytes() for p in (out.parent.iterdir() if name in FILES else out.iterdir())
             if p.name in before}
    assert after == before


def through_a_file(tmp: Path) -> Path:
    blocker = tmp / "a-file"
    blocker.write_text("x")
    return blocker / "x"


@pytest.mark.parametrize("where", [
    pytest.param("through a file"),
    pytest.param("/proc/x", marks=pytest.mark.skipif(
        not sys.platform.startswith("linux"), reason="/proc is Linux's")),
])
@pytest.mark.parametrize("name", sorted(WRITERS))
def test_an_out_the_file_system_refuses_is_an_os_error(tmp_path, name, where):
    out = through_a_file(tmp_path) if where == "through a file" else Path(where)
    with pytest.raises(OSError) as e:
        WRITERS[name](tmp_path, out=out)
    # Not a value the caller can fix by changing the call alone.
    assert not isinstance(e.value, ValueError)
    message = str(e.value)
    if name in FILES:
        assert message.startswith(f"cannot write {out}: ")
    else:
        assert message.startswith(f"out={out}: cannot create the directory: ")
    if where == "through a file":
        assert (tmp_path / "a-file").read_text() == "x"
    assert not os.path.exists(out)
