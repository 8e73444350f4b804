"""unolab.tune: the command line's `unolab tune` from Python, the same
preset from the same arguments, on any thread count."""

import subprocess

import pytest

import unolab
from test_lab import cli  # noqa: F401  (the fixture)

SMALL = dict(players=2, field="color", generations=2, population=6, games=200,
             holdout_games=1000, seed=3)


def body(text: str) -> str:
    """A preset file without its first line, which records the command."""
    return text.split("\n", 1)[1]


def test_tune_writes_the_preset_the_command_line_writes(cli, tmp_path):  # noqa: F811
    r = unolab.tune(**SMALL, threads=1, out=tmp_path / "mine.toml")
    subprocess.run([str(cli), "tune", "--players", "2", "--field", "color", "--generations", "2",
                    "--population", "6", "--games", "200", "--holdout-games", "1000", "--seed",
                    "3", "--threads", "1", "--out", str(tmp_path / "cli" / "mine.toml"),
                    "--quiet"], check=True, capture_output=True)
    written = (tmp_path / "mine.toml").read_text()
    assert written == r["preset"]
    assert body(written) == body((tmp_path / "cli" / "mine.toml").read_text())
    # The first line records the call, with its arguments.
    assert written.startswith("# Tuned by: unolab.tune(players=2, field='color', ")
    assert written.splitlines()[0].endswith(" in Python")
    assert r["name"] == "mine" and not r.partial
    assert [g["index"] for g in r["generations"]] == [1, 2]
    h = r["holdout"]
    assert h["games"] == 1000 and h["tuned"]["games"] == 1000
    lo, hi = h["tuned"]["ci95"]
    assert lo <= h["tuned"]["rate"] <= hi
    assert f"({h['tuned']['wins']} of 1000)" in written
    if _has_pandas():
        assert len(r.to_pandas()) == 2
    # The preset it wrote plays as a strategy.
    played = unolab.run([tmp_path / "mine.toml", "color"], players=2, games=50, threads=1)
    assert {s["name"] for s in played["strategies"]} == {"mine", "color"}
    # The same on two threads.
    again = unolab.tune(**SMALL, threads=2, name="mine")
    assert body(again["preset"]) == body(written)


def _has_pandas() -> bool:
    try:
        import pandas  # noqa: F401
    except ImportError:
        return False
    return True


def test_tune_refuses_bad_input_before_any_game(tmp_path):
    (tmp_path / "old.toml").write_text("kept")
    with pytest.raises(FileExistsError, match="use force=True"):
        unolab.tune(**SMALL, out=tmp_path / "old.toml")
    assert (tmp_path / "old.toml").read_text() == "kept"
    with pytest.raises(ValueError, match="is a directory"):
        unolab.tune(**SMALL, out=tmp_path)
    with pytest.raises(ValueError, match="force=True needs out=FILE"):
        unolab.tune(**SMALL, force=True)
    with pytest.raises(ValueError, match="start 'random' is not a heuristic preset"):
        unolab.tune(**{**SMALL, "generations": 1}, start="random")
    with pytest.raises(ValueError, match="population must be at least 4"):
        unolab.tune(**{**SMALL, "population": 3})
    with pytest.raises(ValueError, match="invalid name 'a b'"):
        unolab.tune(**SMALL, name="a b")
    with pytest.raises(ValueError, match="unknown strategy 'colour'"):
        unolab.tune(**{**SMALL, "field": "colour"})
    with pytest.raises(ValueError, match="allow_oracle=True"):
        unolab.tune(**{**SMALL, "field": "oracle-400"})
    with pytest.raises(TypeError, match="start is a name"):
        unolab.tune(**SMALL, start=3)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["old.toml"]


def test_tune_plays_its_field_with_python_strategies():
    class First(unolab.Strategy):
        def play(self, obs, legal):
            return legal[0]

    r = unolab.tune(**{**SMALL, "field": [First()], "holdout_games": 200}, threads=1)
    assert r["field"] == ["First"]
    assert r["holdout"]["games"] == 200
