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
    # The games that split, which the paired difference's interval is
    # worked from, are given and agree with the two shares.
    alone, start_alone = h["split"]
    assert alone - start_alone == h["tuned"]["wins"] - h["start"]["wins"]
    assert f"({alone} won by mine alone, {start_alone} by color alone)" in written
    lo, hi = h["diff_ci95"]
    assert lo < h["diff"] < hi
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
    with pytest.raises(ValueError, match=r"population=3 is out of range \(valid: 4 to 1048576\)"):
        unolab.tune(**{**SMALL, "population": 3})
    with pytest.raises(ValueError, match="invalid name 'a b'"):
        unolab.tune(**SMALL, name="a b")
    with pytest.raises(ValueError, match="unknown strategy 'colour'"):
        unolab.tune(**{**SMALL, "field": "colour"})
    with pytest.raises(ValueError, match="allow_oracle=True"):
        unolab.tune(**{**SMALL, "field": "oracle-400"})
    with pytest.raises(TypeError, match="start is a name"):
        unolab.tune(**SMALL, start=3)
    # Named as its start or a field strategy, by name= or by out's file name.
    with pytest.raises(ValueError, match=r"would be named 'color' \(by name, or by out's file "
                                         r"name\), as a strategy of start or field.*give another name"):
        unolab.tune(**SMALL, name="color")
    with pytest.raises(ValueError, match="would be named .color."):
        unolab.tune(**SMALL, out=tmp_path / "color.toml")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["old.toml"]


def test_tune_plays_its_field_with_python_strategies():
    class First(unolab.Strategy):
        def play(self, obs, legal):
            return legal[0]

    r = unolab.tune(**{**SMALL, "field": [First()], "holdout_games": 200}, threads=1)
    assert r["field"] == ["First"]
    assert r["holdout"]["games"] == 200


def test_limits_paths_and_numpy_values_are_taken_as_the_command_line_takes_them(tmp_path):
    """What an audit of the new functions found: bounds the command line
    has and Python lacked, paths refused or split, numpy values recorded
    as '<int64 object>'."""
    import json

    import numpy as np
    from conftest import REPO

    with pytest.raises(ValueError, match=r"population=1000000000 is out of range \(valid: 4 to 1048576\)"):
        unolab.tune(**{**SMALL, "population": 10**9})
    with pytest.raises(ValueError, match=r"generations=1099511627776 is out of range"):
        unolab.tune(**{**SMALL, "generations": 2**40})
    with pytest.raises(ValueError, match="ends with a separator"):
        unolab.tune(**SMALL, out=str(tmp_path / "newdir") + "/")
    assert not (tmp_path / "newdir").exists()
    # A preset's path as a pathlib.Path: tune's start, compare's b_seat.
    r = unolab.tune(**{**SMALL, "generations": 1, "holdout_games": 100},
                    start=REPO / "strategies" / "color.toml")
    assert r["start"] == "color"
    c = unolab.compare("color", players=2, b_seat=(0, REPO / "strategies" / "tuned.toml"),
                       games=20, threads=1)
    assert "tuned" in c["manifest"]["arms"][1]["lineup"][0]["name"]
    # A path with a comma cannot stand in a comma list: said, not split.
    with pytest.raises(ValueError, match="holds a comma"):
        unolab.run([tmp_path / "a,b.toml", "color"], players=2, games=10)
    # numpy's integers are recorded by their values.
    unolab.run(["color", "random"], players=np.int64(2), games=np.int32(30),
               settings={"hand_size": np.int64(5)}, out=tmp_path / "np", threads=1)
    m = json.loads((tmp_path / "np" / "manifest.json").read_text())
    assert m["command"][1].startswith(
        "unolab.run(strategies=['color', 'random'], players=2, games=30, settings={'hand_size': 5}"
    ), m["command"]


def test_one_python_object_stands_for_one_name_of_an_experiment():
    class Mine(unolab.Strategy):
        def play(self, obs, legal):
            return legal[0]

    exp = {"name": "e", "base": {"players": 3, "strategies": "mine,random,yours"},
           "arm": [{"label": "a"}, {"label": "b", "house": ["seven_o"]}]}
    d = Mine()
    with pytest.raises(ValueError, match="'mine' and 'yours' map to the same Python object"):
        unolab.experiment(exp, strategies={"mine": d, "yours": d}, games=10)
    r = unolab.experiment(exp, strategies={"mine": Mine(), "yours": Mine()}, games=10, threads=1)
    assert r["manifest"]["clusters"] == 10


def test_redraw_ladder_says_when_the_folder_is_missing(tmp_path):
    f = tmp_path / "l.toml"
    f.write_text('name = "l"\nplayers = [2]\ngames = 10\nseed = 1\nfield = ["random", "color"]\n'
                 'reference = "random"\nceiling = "color"\n')
    with pytest.raises(FileNotFoundError, match="is not a folder: nothing to redraw"):
        unolab.redraw_ladder(f, out=tmp_path / "nosuch")


def test_a_tournaments_state_is_not_resumed_as_an_experiments(tmp_path):
    from conftest import REPO

    d = tmp_path / "t"
    d.mkdir()
    (d / "state.json").write_text('{"kind": "tournament", "version": 1, "results": {}}')
    with pytest.raises(ValueError, match="is the state of an interrupted tournament, not of an experiment"):
        unolab.experiment(REPO / "experiments" / "house-rules.toml", games=10, out=d, resume=True)
