"""Running the lab from Python: the same options and numbers as the CLI."""

from __future__ import annotations

import csv
import json
import os
import shutil
import signal
import subprocess
import threading
import time
from pathlib import Path

import numpy as np
import pytest

import unolab

from conftest import REPO

# What differs between two runs of the same configuration: the clock.
TIMING = {"elapsed_s", "games_per_s", "git_commit", "started_utc", "started", "threads", "command", "commit"}
FRONT_ENDS = {"command line", "Python call"}


def strip(v):
    """`v` without the fields that depend on the clock or the machine."""
    if isinstance(v, dict):
        # (a compare's "file" says which front end set it up)
        return {k: strip(x) for k, x in v.items()
                if k not in TIMING and not (k == "file" and x in FRONT_ENDS)}
    if isinstance(v, list):
        return [strip(x) for x in v]
    return v


@pytest.fixture(scope="module")
def cli() -> Path:
    """The command line, built from this clone (a no-op when it is fresh)."""
    exe = os.environ.get("UNOLAB_BIN")
    if exe:
        return Path(exe)
    if shutil.which("cargo") is None:
        pytest.skip("cargo is not installed: cannot build the unolab command line")
    subprocess.run(
        ["cargo", "build", "--release", "--quiet", "--bin", "unolab"], cwd=REPO, check=True
    )
    return REPO / "target" / "release" / "unolab"


def cli_json(cli: Path, *args: str) -> dict:
    out = subprocess.run([str(cli), *args, "--json"], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def cli_error(cli: Path, *args: str) -> str:
    out = subprocess.run([str(cli), *args], capture_output=True, text=True)
    assert out.returncode == 2, out
    line = out.stderr.strip()
    assert line.startswith("error: ")
    return line[len("error: "):]


# ----- the same numbers as the command line ------------------------------------


def test_run_equals_the_cli_json(cli):
    py = unolab.run(
        "color,random,points",
        players=3,
        games=3000,
        seed=7,
        house="stacking=same",
        settings={"hand_size": 5},
        threads=2,
    )
    c = cli_json(
        cli, "run", "-s", "color,random,points", "-p", "3", "-g", "3000", "--seed", "7",
        "--house", "stacking=same", "--set", "hand_size=5", "-j", "2", "-q",
    )
    assert strip(dict(py)) == strip(c)
    assert py["games"] == 3000 and not py.partial


def test_run_in_match_mode_with_duplicate_equals_the_cli(cli):
    py = unolab.run(["color", "random"], players=2, games=40, mode="match", duplicate=True,
                    rules="h2o", seed=3, settings=["target=200"], threads=1)
    c = cli_json(cli, "run", "-s", "color,random", "-p", "2", "-g", "40", "-m", "match",
                 "--duplicate", "-r", "h2o", "--seed", "3", "--set", "target=200", "-q")
    assert strip(dict(py)) == strip(c)


@pytest.mark.parametrize("how", ["rotate", "fixed", "mixed"])
def test_run_with_a_seating_equals_the_cli(cli, how):
    py = unolab.run("color,random,points", players=3, games=600, seed=8, seating=how)
    c = cli_json(cli, "run", "-s", "color,random,points", "-p", "3", "-g", "600",
                 "--seed", "8", "--seating", how, "-q")
    assert strip(dict(py)) == strip(c)
    assert py["seating"] == how


def test_a_seating_changes_the_games():
    """rotate and mixed seat a line-up of three distinct strategies
    differently, so the same seed plays other games."""
    a = unolab.run("color,random,points", players=3, games=600, seed=8, seating="rotate")
    b = unolab.run("color,random,points", players=3, games=600, seed=8)
    assert strip(dict(a)) != strip(dict(b))
    assert strip(dict(b)) == strip(dict(unolab.run("color,random,points", players=3, games=600,
                                                   seed=8, seating="mixed")))


def test_compare_and_experiment_take_a_seating_as_the_cli_does(cli, tmp_path):
    py = unolab.compare("color,random", players=2, b_seat=(0, "points"), games=300, seed=4,
                        seating="rotate")
    c = cli_json(cli, "compare", "--strategies", "color,random", "--players", "2",
                 "--b-seat", "0=points", "--games", "300", "--seed", "4", "--seating", "rotate",
                 "--quiet")
    assert strip(dict(py)) == strip(c)
    f = tmp_path / "e.toml"
    f.write_text(
        'name = "seat"\n[base]\nplayers = 2\nstrategies = "color,random"\ngames = 300\n'
        'seed = 4\n[[arm]]\nlabel = "a"\n[[arm]]\nlabel = "b"\nhouse = ["stacking=same"]\n'
    )
    py_e = unolab.experiment(f, seating="fixed")
    assert [a["seating"] for a in py_e["manifest"]["arms"]] == ["fixed", "fixed"]
    out = tmp_path / "cli"
    subprocess.run([str(cli), "experiment", "run", str(f), "--seating", "fixed", "--out",
                    str(out), "--quiet"], check=True, capture_output=True)
    rows = {(r["arm"], r["metric"], r["group"]): float(r["value"])
            for r in csv.DictReader((out / "arms.csv").open())}
    assert len(rows) == len(py_e["arms"]) > 0
    for a in py_e["arms"]:
        assert rows[(a["arm"], a["metric"], a["group"])] == pytest.approx(a["value"], abs=1e-6)
    mixed = unolab.experiment(f)
    assert [a["value"] for a in mixed["arms"]] != [a["value"] for a in py_e["arms"]]


def test_a_precision_per_metric_equals_the_clis_metric_form(cli):
    py = unolab.compare("random", players=2, b_seat=(0, "color"), games=20000, seed=3,
                        precision={"win_rate": 0.02})
    c = cli_json(cli, "compare", "--strategies", "random", "--players", "2", "--b-seat",
                 "0=color", "--games", "20000", "--seed", "3", "--precision", "win_rate=0.02",
                 "--quiet")
    assert strip(dict(py)) == strip(c)
    assert py["manifest"]["stopped_by"] == "precision"
    assert py["manifest"]["precision_targets"] == [["win_rate", 0.02]]
    assert py["manifest"]["games_limit"] == 20000 > py["manifest"]["clusters"]
    both = unolab.compare("random", players=2, b_seat=(0, "color"), games=20000, seed=3,
                          precision={None: 0.5, "win_rate": 0.02})
    c2 = cli_json(cli, "compare", "--strategies", "random", "--players", "2", "--b-seat",
                  "0=color", "--games", "20000", "--seed", "3", "--precision", "0.5",
                  "--precision", "win_rate=0.02", "--quiet")
    assert strip(dict(both)) == strip(c2)


def test_a_bad_precision_is_refused_before_anything_runs():
    with pytest.raises(ValueError, match=r"precision: unknown metric 'win_rat' \(valid: "):
        unolab.compare("random", players=2, b_seat=(0, "color"), games=10,
                       precision={"win_rat": 0.01})
    with pytest.raises(ValueError, match="precision is an empty dict"):
        unolab.compare("random", players=2, b_seat=(0, "color"), games=10, precision={})
    with pytest.raises(TypeError, match="precision: a metric is a name"):
        unolab.compare("random", players=2, b_seat=(0, "color"), games=10, precision={1: 0.1})
    with pytest.raises(ValueError, match="'-0.5' is not a valid precision"):
        unolab.experiment({"name": "e", "base": {"players": 2}, "arm": [{"label": "a"},
                          {"label": "b", "house": ["stacking=same"]}]},
                          precision={"win_rate": -0.5})


def test_a_compare_saved_to_out_is_continued_with_resume(cli, tmp_path):
    """With out=, the state is saved; resume=True plays on from it, to the
    same numbers as one run, and the command line's --resume takes it too."""
    args = dict(players=2, b_seat=(0, "color"), seed=12, threads=2)
    straight = unolab.compare("random", games=900, **args)
    d = tmp_path / "run"
    first = unolab.compare("random", games=300, out=d, **args)
    assert first["manifest"]["clusters"] == 300 and (d / "state.json").exists()
    # A compare set up by a call says so where a file would be named.
    assert first["manifest"]["file"] == "Python call"
    assert json.loads((d / "manifest.json").read_text())["file"] == "Python call"
    more = unolab.compare("random", games=600, out=d, resume=True, **args)
    assert more["manifest"]["clusters"] == 600
    # The command line continues the state Python saved.
    c = cli_json(cli, "compare", "--strategies", "random", "--players", "2", "--b-seat",
                 "0=color", "--seed", "12", "--games", "900", "--out", str(d), "--resume",
                 "--quiet")
    assert c["manifest"]["clusters"] == 900
    # The report names the call that started the run, with the arguments
    # given, then each that continued it.
    call = ("unolab.compare(strategies='random', players=2, b_seat=(0, 'color'), "
            "games={}, seed=12, threads=2, out=" + repr(str(d)) + "{})")
    assert c["manifest"]["command"] == ["python", call.format(300, "")]
    assert [x[:2] for x in c["manifest"]["continued_by"]] == [
        ["python", call.format(600, ", resume=True")],
        [c["manifest"]["continued_by"][1][0], "compare"]]
    produced = [line for line in (d / "report.md").read_text().splitlines()
                if line.startswith("Produced by")]
    assert produced[0].startswith(
        f"Produced by `{call.format(300, '')}` in Python, continued by "
        f"`{call.format(600, ', resume=True')}` in Python, then `unolab compare --strategies random")
    assert strip(c["arms"]) == strip(straight["arms"])
    assert strip(c["comparisons"]) == strip(straight["comparisons"])
    # Resuming the finished run plays nothing and leaves its files as they
    # were (it added a call that played no game), and reports the start its
    # manifest holds (it gave this call's).
    manifest = (d / "manifest.json").read_text()
    saved = json.loads(manifest)["started"]
    (d / "manifest.json").write_text(manifest.replace(saved, "2001-02-03T04:05:06Z"))
    files = {f.name: f.read_bytes() for f in d.iterdir()}
    seen = []
    again = unolab.compare("random", games=900, out=d, resume=True,
                           progress=lambda done, total: seen.append((done, total)), **args)
    assert strip(again["arms"]) == strip(straight["arms"])
    assert len(again["manifest"]["continued_by"]) == 2
    assert again["manifest"]["started"] == "2001-02-03T04:05:06Z"
    # Its progress says the saved games are all there (it said 0).
    assert seen and seen[-1] == (900, 900), seen
    assert {f.name: f.read_bytes() for f in d.iterdir()} == files


def test_a_bare_resume_keeps_the_saved_limit_and_precision(tmp_path):
    """resume=True without games or precision plays on under the saved
    run's, as --resume does: it took the file's games and no precision."""
    exp = {"name": "e", "base": {"players": 2, "strategies": "points,color", "games": 600},
           "arm": [{"label": "a"}, {"label": "b", "house": ["stacking=same"]}]}
    d = tmp_path / "run"
    first = unolab.experiment(exp, games=200, precision=0.0001, out=d, threads=1)
    assert first["manifest"]["clusters"] == 200
    again = unolab.experiment(exp, out=d, resume=True, threads=1)
    assert again["manifest"]["clusters"] == 200
    assert again["manifest"]["games_limit"] == 200
    assert again["manifest"]["precision"] == 0.0001
    more = unolab.experiment(exp, games=300, out=d, resume=True, threads=1)
    assert more["manifest"]["clusters"] == 300 and more["manifest"]["precision"] == 0.0001
    # compare's games (10,000 when not given) too: a bare resume took
    # 10,000 with the saved precision.
    c = tmp_path / "compare"
    args = dict(players=2, b_seat=(0, "color"), seed=3, threads=1, out=c)
    first = unolab.compare("random", games=200, precision=0.0001, **args)
    assert first["manifest"]["clusters"] == 200
    again = unolab.compare("random", resume=True, **args)
    assert again["manifest"]["clusters"] == 200 and again["manifest"]["games_limit"] == 200
    assert again["manifest"]["precision"] == 0.0001


def test_a_bare_resume_keeps_the_saved_seed_duplicate_and_batch(tmp_path):
    """resume=True takes the saved run's seed, duplicate play and batch when
    not given (they were refused as another experiment); given otherwise,
    the refusal names them."""
    exp = {"name": "e", "base": {"players": 2, "strategies": "points,color", "games": 600},
           "arm": [{"label": "a"}, {"label": "b", "house": ["stacking=same"]}]}
    given = dict(seed=9, duplicate=True, batch=50)
    d = tmp_path / "run"
    unolab.experiment(exp, games=100, out=d, threads=1, **given)
    more = unolab.experiment(exp, games=200, out=d, resume=True, threads=1)
    straight = unolab.experiment(exp, games=200, threads=1, **given)
    assert more["manifest"]["clusters"] == 200
    assert strip(more["arms"]) == strip(straight["arms"])
    assert strip(more["comparisons"]) == strip(straight["comparisons"])
    with pytest.raises(ValueError, match=r"not the same: seed\)"):
        unolab.experiment(exp, seed=10, out=d, resume=True, threads=1)


def test_resume_is_refused_where_it_cannot_continue(tmp_path):
    with pytest.raises(ValueError, match=r"^resume=True needs out=DIR"):
        unolab.compare("random", players=2, b_seat=(0, "color"), games=10, resume=True)
    d = tmp_path / "run"
    unolab.compare("random", players=2, b_seat=(0, "color"), games=300, seed=1, out=d)
    with pytest.raises(ValueError) as e:
        unolab.compare("random", players=2, b_seat=(0, "points"), games=300, seed=1, out=d,
                       resume=True)
    msg = str(e.value)
    assert "resume=True continues the same experiment only" in msg
    assert "use another out, or force=True to start over" in msg and "--" not in msg
    with pytest.raises(ValueError, match=r"more than the limit of 100; resume with at least "
                                         r"games=300, or start over with force=True"):
        unolab.compare("random", players=2, b_seat=(0, "color"), games=100, seed=1, out=d,
                       resume=True)
    # No saved state is a missing file.
    with pytest.raises(FileNotFoundError, match="holds no saved run to continue"):
        unolab.compare("random", players=2, b_seat=(0, "color"), games=10, out=tmp_path / "new",
                       resume=True)


def test_a_bad_seating_is_refused_before_anything_runs():
    with pytest.raises(ValueError, match=r"invalid value 'sideways' for seating \(valid: mixed, rotate, fixed\)"):
        unolab.run("random", players=2, games=10, seating="sideways")
    with pytest.raises(ValueError, match="fixed_seats=True cannot be given with seating='rotate'"):
        unolab.run("random", players=2, games=10, seating="rotate", fixed_seats=True)
    with pytest.raises(TypeError, match="seating is 'mixed', 'rotate' or 'fixed'"):
        unolab.compare("random", players=2, b_seat=(0, "color"), games=10, seating=1)
    with pytest.raises(ValueError, match="invalid value 'x' for seating"):
        unolab.experiment({"name": "e", "base": {"players": 2}, "arm": [{"label": "a"},
                          {"label": "b", "house": ["stacking=same"]}]}, seating="x")


def test_the_thread_count_does_not_change_the_numbers():
    a = unolab.run("color,random", players=4, games=2000, seed=11, threads=1)
    b = unolab.run("color,random", players=4, games=2000, seed=11, threads=2)
    assert strip(dict(a)) == strip(dict(b))


def test_tournament_equals_the_cli(cli):
    py = unolab.tournament("random,color,points", players=3, games=600, seed=5, threads=2)
    c = cli_json(cli, "tournament", "--strategies", "random,color,points", "--players", "3",
                 "--games", "600", "--seed", "5", "--quiet")
    assert strip(dict(py)) == strip(c)


def test_compare_equals_the_cli(cli):
    py = unolab.compare("random", players=3, b_seat=(0, "color"), games=500, seed=2, threads=2)
    c = cli_json(cli, "compare", "--strategies", "random", "--players", "3",
                 "--b-seat", "0=color", "--games", "500", "--seed", "2", "--quiet")
    assert strip(dict(py)) == strip(c)
    py2 = unolab.compare("random", players=3, b_seat="0=color", games=500, seed=2)
    assert strip(dict(py2)) == strip(c)
    py3 = unolab.compare("random", players=3, b_seat={0: "color"}, games=500, seed=2)
    assert strip(dict(py3)) == strip(c)


def test_experiment_file_and_dict_equal_the_cli(cli, tmp_path):
    text = """
name = "py-test"
[base]
players = 3
strategies = "random"
games = 400
seed = 9
[[arm]]
label = "plain"
[[arm]]
label = "stacking"
house = ["stacking=same"]
"""
    f = tmp_path / "exp.toml"
    f.write_text(text)
    py = unolab.experiment(f, threads=2)
    out = tmp_path / "cli-out"
    subprocess.run([str(cli), "experiment", "run", str(f), "--out", str(out), "--quiet"],
                   check=True, capture_output=True)
    assert (out / "arms.csv").exists()
    as_dict = unolab.experiment(
        {
            "name": "py-test",
            "base": {"players": 3, "strategies": "random", "games": 400, "seed": 9},
            "arm": [{"label": "plain"}, {"label": "stacking", "house": ["stacking=same"]}],
        }
    )
    a, b = strip(dict(py)), strip(dict(as_dict))
    for d in (a, b):
        d["manifest"].pop("file")
    assert a == b
    assert a["manifest"]["games_limit"] == 400 and not py.partial
    # The file's arm table as the CLI wrote it holds the same estimates.
    arms_csv = (out / "arms.csv").read_text()
    for arm in py["arms"]:
        assert arm["arm"] in arms_csv


def test_trace_equals_the_cli(cli):
    events = unolab.trace("color,random", players=2, seed=4)
    out = subprocess.run([str(cli), "trace", "-s", "color,random", "-p", "2", "--seed", "4"],
                         capture_output=True, text=True, check=True)
    assert events == [json.loads(line) for line in out.stdout.splitlines()]
    assert events[0]["type"] and events[-1]["type"]


def test_rules_and_strategies_list_what_the_cli_lists(cli):
    names = [r["name"] for r in unolab.rules()]
    out = subprocess.run([str(cli), "rules"], capture_output=True, text=True, check=True).stdout
    assert names == [line.split()[0] for line in out.splitlines() if line.strip()]
    assert "rlcard" in names
    shown = unolab.rules("classic", house="stacking=same", settings={"hand_size": 5})
    assert shown["settings"]["hand_size"] == 5 and shown["settings"]["stacking"] == "same"
    # A hand size no table can be dealt is refused, as by `rules show`.
    assert unolab.rules("classic", settings={"hand_size": 53})["settings"]["hand_size"] == 53
    with pytest.raises(ValueError, match=r"hand_size = 54: no table can be dealt from the 'classic' deck of 108 cards"):
        unolab.rules("classic", settings={"hand_size": 54})
    toml = unolab.rules("classic", as_toml=True)
    cli_toml = subprocess.run([str(cli), "rules", "show", "classic"], capture_output=True,
                              text=True, check=True).stdout
    assert toml == cli_toml
    cat = unolab.strategies()
    out = subprocess.run([str(cli), "strategies"], capture_output=True, text=True, check=True).stdout
    for s in cat:
        assert s["name"] in out
    color = next(s for s in cat if s["name"] == "color")
    assert color["base"] == "heuristic" and isinstance(color["params"], dict) and color["params"]


def test_out_writes_the_cli_files(tmp_path):
    r = unolab.run("color,random", players=2, games=200, out=tmp_path / "r")
    for f in ("summary.csv", "distributions.csv", "manifest.json"):
        assert (tmp_path / "r" / f).exists()
    assert r["games"] == 200


def test_out_holding_results_is_refused_unless_force(tmp_path):
    """As the command line asks for --force, earlier results in out= are not
    replaced without force=True: refused before anything runs, untouched."""
    d = tmp_path / "r"
    unolab.run("color,random", players=2, games=200, seed=1, out=d)
    before = (d / "manifest.json").read_text()
    for call in (lambda: unolab.run("color,random", players=2, games=300, seed=2, out=d),
                 lambda: unolab.tournament("color,random,points", players=2, games=300, out=d)):
        with pytest.raises(FileExistsError) as e:
            call()
        assert str(e.value) == (
            f"out={d} already holds the finished results of a run (manifest.json, summary.csv, "
            "distributions.csv); use another out, or force=True to replace them")
    assert (d / "manifest.json").read_text() == before
    r = unolab.run("color,random", players=2, games=300, seed=2, out=d, force=True)
    assert r["games"] == 300 and json.loads((d / "manifest.json").read_text())["seed"] == 2
    t = unolab.tournament("color,random,points", players=2, games=300, out=d, force=True)
    assert (d / "ratings.csv").exists() and not (d / "summary.csv").exists()
    assert t["games"] == 300
    with pytest.raises(ValueError, match=r"^force=True needs out=DIR"):
        unolab.run("random", players=2, games=10, force=True)


def test_force_keeps_the_earlier_results_when_the_new_call_writes_none(tmp_path):
    """force=True removed the earlier results before the first game: a call
    that then failed left the folder empty. They now go only once the new
    call has written its own, and come back otherwise."""
    d = tmp_path / "r"
    unolab.run("color,random", players=2, games=200, seed=1, out=d)
    before = {p.name: p.read_bytes() for p in d.iterdir()}

    def give_up(done, total):
        raise RuntimeError("the callback gave up")

    for call in (lambda: unolab.run("color,random", players=2, games=100_000, seed=2, out=d,
                                    force=True, progress=give_up),
                 lambda: unolab.tournament("color,random,points", players=2, games=100_000,
                                           out=d, force=True, progress=give_up)):
        with pytest.raises(RuntimeError, match="gave up"):
            call()
        assert {p.name: p.read_bytes() for p in d.iterdir()} == before
    unolab.run("color,random", players=2, games=300, seed=2, out=d, force=True)
    assert json.loads((d / "manifest.json").read_text())["seed"] == 2
    assert not [p for p in d.iterdir() if p.name.startswith(".")]


def test_a_saved_compare_is_resumed_or_replaced_only_when_asked(tmp_path):
    args = dict(players=2, b_seat=(0, "color"), seed=3)
    d = tmp_path / "c"
    unolab.compare("random", games=200, out=d, **args)
    with pytest.raises(FileExistsError) as e:
        unolab.compare("random", games=400, out=d, **args)
    assert str(e.value) == (f"out={d} holds the finished results of a compare (200 games per "
                            "arm): resume=True continues it (with more games), force=True starts over")
    with pytest.raises(FileExistsError) as e:
        unolab.compare("random", games=400, out=d, players=2, b_seat=(0, "points"), seed=3)
    assert str(e.value) == (f"out={d} holds the results of a compare, with other settings "
                            "(not the same: arm 'B': line-up): use another out, or force=True to "
                            "replace them")
    # A state whose results were never written: an interrupted run.
    (d / "manifest.json").unlink()
    with pytest.raises(FileExistsError) as e:
        unolab.compare("random", games=400, out=d, **args)
    assert str(e.value) == (f"out={d} holds an interrupted run of a compare (200 games per arm "
                            "played): continue it with resume=True, or start over with force=True")
    with pytest.raises(ValueError, match=r"^resume=True and force=True cannot be given together"):
        unolab.compare("random", games=400, out=d, resume=True, force=True, **args)
    again = unolab.compare("random", games=100, out=d, force=True, **args)
    assert again["manifest"]["clusters"] == 100
    assert json.loads((d / "state.json").read_text())["clusters"] == 100
    exp = {"name": "e", "base": {"players": 2, "games": 100},
           "arm": [{"label": "a"}, {"label": "b", "house": ["stacking=same"]}]}
    with pytest.raises(FileExistsError, match=r"holds the results of a compare, not of this one"):
        unolab.experiment(exp, out=d)
    assert unolab.experiment(exp, out=d, force=True)["manifest"]["experiment"] == "e"


def test_a_trace_file_is_replaced_only_with_force(tmp_path):
    path = tmp_path / "t.jsonl"
    unolab.trace("color,random", players=2, seed=4, out=path)
    first = path.read_text()
    with pytest.raises(FileExistsError) as e:
        unolab.trace("color,random", players=2, seed=5, out=path)
    assert str(e.value) == f"out={path} already exists; use force=True to replace it, or another out"
    assert path.read_text() == first
    events = unolab.trace("color,random", players=2, seed=5, out=path, force=True)
    assert [json.loads(line) for line in path.read_text().splitlines()] == events
    assert path.read_text() != first
    # A symbolic link would be replaced by the file, not written through.
    link = tmp_path / "link.jsonl"
    link.symlink_to(path)
    with pytest.raises(ValueError) as e:
        unolab.trace("color,random", players=2, seed=5, out=link, force=True)
    assert str(e.value).startswith(f"out={link} is a symbolic link: the file would replace the link")
    assert link.is_symlink()


def test_to_pandas_gives_tidy_tables():
    pd = pytest.importorskip("pandas")
    r = unolab.run("color,random", players=2, games=500, seed=1)
    df = r.to_pandas()
    assert isinstance(df, pd.DataFrame)
    assert sorted(df["name"]) == ["color", "random"]
    t = unolab.tournament("random,color", players=2, games=200).to_pandas()
    assert len(t) == 2
    e = unolab.compare("random", players=2, b_seat="0=color", games=200).to_pandas()
    assert len(e) >= 2
    with pytest.raises(ValueError, match="unknown table"):
        r.to_pandas("nope")


# ----- bad input: the CLI's one-line message, as a Python exception -----------


@pytest.mark.parametrize(
    "kwargs, cli_args, exc",
    [
        ({"rules": "nope"}, ["-r", "nope"], ValueError),
        ({"strategies": "nope"}, ["-s", "nope"], ValueError),
        ({"house": "stacking=maybe"}, ["--house", "stacking=maybe"], ValueError),
        ({"settings": {"hand_size": 0}}, ["--set", "hand_size=0"], ValueError),
        ({"strategies": "random,random,random", "players": 2}, ["-s", "random,random,random", "-p", "2"], ValueError),
        ({"rules": "missing/rules.toml"}, ["-r", "missing/rules.toml"], FileNotFoundError),
        ({"strategies": "missing/bot.toml"}, ["-s", "missing/bot.toml"], FileNotFoundError),
    ],
)
def test_bad_input_raises_the_cli_message(cli, kwargs, cli_args, exc):
    with pytest.raises(exc) as e:
        unolab.run(games=10, **kwargs)
    assert str(e.value) == cli_error(cli, "run", "-g", "10", *cli_args)


def test_a_missing_file_in_a_comparison_or_an_experiment_is_a_file_not_found_error(cli, tmp_path):
    # A rule or preset file that does not exist is a FileNotFoundError
    # wherever it is named (compare and experiment said ValueError), with
    # the command line's message.
    cases = [
        (dict(rules="/nonexistent/r.toml", b_house="seven_o"), ["-r", "/nonexistent/r.toml", "--b-house", "seven_o"]),
        (dict(b_rules="/nonexistent/r.toml"), ["--b-rules", "/nonexistent/r.toml"]),
        (dict(b_strategies="/nonexistent/p.toml"), ["--b-strategies", "/nonexistent/p.toml"]),
    ]
    for kwargs, args in cases:
        with pytest.raises(FileNotFoundError) as e:
            unolab.compare("random", games=10, **kwargs)
        assert str(e.value) == cli_error(cli, "compare", "-s", "random", "-g", "10", *args)
    with pytest.raises(FileNotFoundError, match="/nonexistent/p.toml"):
        unolab.compare("/nonexistent/p.toml", games=10, b_house="seven_o")
    exp = {
        "name": "x",
        "baseline": "a",
        "base": {"players": 2, "strategies": "random,color", "games": 10},
        "arm": [{"label": "a"}, {"label": "b", "rules": "/nonexistent/r.toml"}],
    }
    with pytest.raises(FileNotFoundError, match="cannot read rule-set file /nonexistent/r.toml"):
        unolab.experiment(exp)
    exp["arm"][1] = {"label": "b", "strategies": "random,/nonexistent/p.toml"}
    with pytest.raises(FileNotFoundError, match="/nonexistent/p.toml"):
        unolab.experiment(exp)
    # The exception is the first message's kind: an unknown name first is a
    # ValueError, whatever comes after it.
    exp["arm"] = [{"label": "a", "rules": "classik"}, {"label": "b", "rules": "/nonexistent/r.toml"}]
    with pytest.raises(ValueError, match="unknown rule set 'classik'"):
        unolab.experiment(exp)
    exp["arm"] = [{"label": "a"}, {"label": "b", "rules": "/nonexistent/r.toml"}]
    # A file that exists but is not a rule set stays a ValueError.
    bad = tmp_path / "bad.toml"
    bad.write_text("this is not toml = = =\n")
    exp["arm"][1] = {"label": "b", "rules": str(bad)}
    with pytest.raises(ValueError, match="malformed"):
        unolab.experiment(exp)
    with pytest.raises(ValueError, match="malformed"):
        unolab.compare("random", games=10, b_rules=str(bad))
    # A folder where a file is named is refused by that cause, whatever
    # names it: an arm, the experiment or the ladder file itself; a file
    # that is not UTF-8 text is a bad value.
    exp["arm"][1] = {"label": "b", "rules": str(tmp_path)}
    with pytest.raises(IsADirectoryError):
        unolab.experiment(exp)
    with pytest.raises(IsADirectoryError):
        unolab.compare("random", games=10, b_rules=str(tmp_path))
    with pytest.raises(IsADirectoryError, match="cannot read the experiment file"):
        unolab.experiment(str(tmp_path))
    with pytest.raises(IsADirectoryError, match="cannot read the ladder file"):
        unolab.ladder(str(tmp_path))
    latin = tmp_path / "latin.toml"
    latin.write_bytes("name = \"caf\u00e9\"\n".encode("latin-1"))
    # A path through a file is what Python's own open() calls it.
    through = tmp_path / "latin.toml" / "rules.toml"
    with pytest.raises(NotADirectoryError):
        unolab.compare("random", games=10, b_rules=str(through))
    with pytest.raises(NotADirectoryError, match="cannot read the experiment file"):
        unolab.experiment(str(through))
    with pytest.raises(ValueError, match="malformed experiment file: not UTF-8 text"):
        unolab.experiment(str(latin))
    with pytest.raises(ValueError, match="malformed ladder file: not UTF-8 text"):
        unolab.ladder(str(latin))


def test_bad_values_are_value_errors():
    with pytest.raises(ValueError, match="player count"):
        unolab.run(players=11, games=10)
    with pytest.raises(ValueError, match="game count"):
        unolab.run(games=0)
    with pytest.raises(ValueError, match="mode"):
        unolab.run(games=10, mode="marathon")
    with pytest.raises(ValueError, match="thread count"):
        unolab.run(games=10, threads=10_000)
    with pytest.raises(ValueError, match="seed"):
        unolab.run(games=10, seed=-1)
    with pytest.raises(FileNotFoundError):
        unolab.experiment("missing/experiment.toml")
    with pytest.raises(ValueError, match="the same"):
        unolab.compare("random", games=10)
    with pytest.raises(ValueError, match="b_seat"):
        unolab.compare("random", players=3, b_seat="7=color", games=10)
    # A dict of seats was unpacked as a pair: "not enough values to unpack".
    with pytest.raises(TypeError, match="changes one seat"):
        unolab.compare("random", players=3, b_seat={0: "color", 1: "points"}, games=10)
    with pytest.raises(TypeError, match="changes one seat"):
        unolab.compare("random", players=3, b_seat=0, games=10)
    with pytest.raises(ValueError, match="invalid name"):
        unolab.experiment({"name": "bad name", "base": {}, "arm": [{"label": "a"}, {"label": "b"}]})


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: unolab.run("color,random", players=2, games=10, duplicate=True, fixed_seats=True),
         'duplicate=True rotates the seats; it cannot have seating="fixed" (fixed_seats=True)'),
        (lambda: unolab.run("random", players=2, games=10, house="max_turns"),
         'give it as settings={"max_turns": VALUE}'),
        (lambda: unolab.compare("random", players=2, b_house="max_turns", games=10),
         'B: \'max_turns\' is a setting, not a house rule: give it as b_settings={"max_turns": VALUE}'),
        (lambda: unolab.experiment(REPO / "experiments" / "ladder.toml", games=10),
         "play it with `unolab.ladder(file)`"),
        (lambda: unolab.ladder(REPO / "experiments" / "house-rules.toml", games=10),
         "run it with `unolab.experiment(file)`"),
        (lambda: unolab.compare("random", players=3, b_seat="7=color", games=10),
         "b_seat: '7' is not a seat (valid: 0 to 2)"),
        (lambda: unolab.compare("random", players=3, b_seat=(7, "color"), games=10),
         "b_seat: '7' is not a seat (valid: 0 to 2)"),
        (lambda: unolab.compare("random", players=3, b_seat="color", games=10),
         "b_seat expects 'K=STRATEGY', got 'color'"),
        (lambda: unolab.compare("random", games=10),
         "a strategy with the b_* arguments"),
        (lambda: unolab.compare("random", players=2, b_seat=(0, "color"), games=10, precision=-1),
         "precision must be a positive number"),
        (lambda: unolab.tournament(["oracle-400", "color"], players=2, games=4),
         "allow it explicitly with allow_oracle=True"),
        (lambda: unolab.compare("color", players=2, b_seat=(0, "oracle-400"), games=4),
         "allow it explicitly with allow_oracle=True"),
    ],
)
def test_messages_name_the_keyword_arguments_not_the_command_lines_flags(call, message):
    """The core's messages name the command line's flags (--b-seat,
    --allow-oracle); from Python they name the keyword that does the same."""
    with pytest.raises(ValueError) as e:
        call()
    assert message in str(e.value)
    assert "--" not in str(e.value)


def test_a_double_dash_inside_a_file_name_is_not_taken_for_a_flag(tmp_path):
    bad = tmp_path / "my--set--rules.toml"
    bad.write_text("this is not = = toml")
    with pytest.raises(ValueError) as e:
        unolab.run("random", players=2, games=10, rules=str(bad))
    assert "my--set--rules.toml" in str(e.value)


@pytest.mark.parametrize(
    "call, quoted",
    [
        (lambda: unolab.run(["foo --bar", "random"], players=2, games=10), "'foo --bar'"),
        (lambda: unolab.run(["x --games 5", "random"], players=2, games=10), "'x --games 5'"),
        (lambda: unolab.run(["ext:/nonexistent/bot --games 5 --force", "random"], players=2,
                            games=10), "'ext:/nonexistent/bot --games 5 --force'"),
        (lambda: unolab.run("random", players=2, games=10, settings={"--x": "1"}), "'--x'"),
        (lambda: unolab.run("random", players=2, games=10, house=["--seating"]), "'--seating'"),
    ],
)
def test_the_users_own_text_in_a_message_is_quoted_as_given(call, quoted):
    """A message quotes what the user gave; a -- in it is not a flag to
    translate (it read 'foo bar', 'x games=5' and 'x' before)."""
    with pytest.raises(ValueError) as e:
        call()
    assert quoted in str(e.value)


def test_an_output_path_that_is_a_file_names_out(tmp_path):
    f = tmp_path / "a-file"
    f.write_text("x")
    with pytest.raises(ValueError) as e:
        unolab.run("random", players=2, games=10, out=f)
    assert str(e.value) == f"out={f} exists and is not a directory"


def test_a_trace_out_creates_its_folders_and_a_bad_one_names_out(tmp_path):
    path = tmp_path / "new" / "folder" / "t.jsonl"
    events = unolab.trace("color,random", players=2, seed=4, out=path)
    assert [json.loads(line) for line in path.read_text().splitlines()] == events
    with pytest.raises(ValueError, match=r"^out=.* is a directory, not a file path$"):
        unolab.trace("color,random", players=2, seed=4, out=tmp_path)
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    with pytest.raises(OSError) as e:
        unolab.trace("color,random", players=2, seed=4, out=blocker / "t.jsonl")
    # The core's writer, as for every file the package writes: the path
    # asked for, never a temporary file.
    assert str(e.value).startswith(f"cannot write {blocker / 't.jsonl'}: ")
    assert ".tmp" not in str(e.value)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file", "new"]


def test_the_oracle_plays_in_a_tournament_and_a_comparison_when_allowed_as_on_the_cli(cli):
    """Refused unless asked for by name: allow_oracle=True is --allow-oracle."""
    py = unolab.tournament("oracle-400,color", players=2, games=20, seed=4, allow_oracle=True)
    c = cli_json(cli, "tournament", "--strategies", "oracle-400,color", "--players", "2",
                 "--games", "20", "--seed", "4", "--allow-oracle", "--quiet")
    assert strip(dict(py)) == strip(c)
    assert "oracle-400" in json.dumps(py)
    py = unolab.compare("color", players=2, b_seat=(0, "oracle-400"), games=10, seed=4,
                        allow_oracle=True)
    c = cli_json(cli, "compare", "--strategies", "color", "--players", "2", "--b-seat",
                 "0=oracle-400", "--games", "10", "--seed", "4", "--allow-oracle", "--quiet")
    assert strip(dict(py)) == strip(c)
    with pytest.raises(TypeError):
        unolab.tournament("oracle-400,color", players=2, games=4, allow_oracle="yes")


# ----- progress and Ctrl-C ---------------------------------------------------


def test_progress_is_called_only_when_asked(capsys):
    seen = []
    unolab.run("random", players=2, games=3000, progress=lambda d, t: seen.append((d, t)))
    assert seen and seen[-1] == (3000, 3000)
    assert all(t == 3000 for _, t in seen)
    unolab.run("random", players=2, games=300)
    assert capsys.readouterr().err == ""
    unolab.run("random", players=2, games=300, progress=True)
    assert "300/300 games" in capsys.readouterr().err


def test_a_progress_callable_that_raises_stops_the_run_and_is_not_called_again():
    """The callable's exception ends the run (after the games in progress)
    and reaches the caller; the callable is not called again while those
    games finish, nor at the end."""

    class Slow(unolab.Strategy):
        def play(self, obs, legal):
            time.sleep(0.0005)
            return legal[0]

    calls = []

    def progress(done, total):
        calls.append(done)
        raise RuntimeError("the callback gave up")

    with pytest.raises(RuntimeError, match="the callback gave up"):
        unolab.run([Slow(), "random"], players=2, games=100_000, threads=1, progress=progress)
    assert len(calls) == 1, calls


def test_a_run_with_a_python_strategy_stops_after_the_game_in_progress():
    """With a Python strategy at the table a unit of work is one game, as
    with a search or a program: the stop waits for the game in progress
    only. It waited for 64 (40 s with a strategy that took 50 ms a play)."""

    class Counting(unolab.Strategy):
        games = 0
        last_turn = -1
        at_stop = None

        def play(self, obs, legal):
            # A new game: the turn counter went back.
            if obs.turn < self.last_turn or self.last_turn < 0:
                self.games += 1
            self.last_turn = obs.turn
            time.sleep(0.0005)
            return legal[0]

    me = Counting()

    def progress(done, total):
        if done > 0:
            me.at_stop = me.games
            raise RuntimeError("enough")

    with pytest.raises(RuntimeError, match="enough"):
        unolab.run([me, "random"], players=2, games=100_000, threads=1, progress=progress)
    assert me.at_stop is not None and me.at_stop >= 1
    # The game in progress when the stop came may finish; none is started.
    assert me.games == me.at_stop, (me.at_stop, me.games)


def test_a_call_that_fails_leaves_no_folder_it_made(tmp_path):
    """A run or tournament whose strategy fails, or whose progress callable
    raises, left the folder it had made for `out`, empty (the command line
    removes it); a folder that was there stays."""

    class Broken(unolab.Strategy):
        def play(self, obs, legal):
            return 1 / 0

    for name, call in [
        ("run", lambda o: unolab.run([Broken(), "random"], players=2, games=10, out=o)),
        ("tournament", lambda o: unolab.tournament([Broken(), "random"], players=2, games=10, out=o)),
    ]:
        out = tmp_path / name / "deeper"
        with pytest.raises(ZeroDivisionError):
            call(out)
        assert not (tmp_path / name).exists(), name
    kept = tmp_path / "kept"
    kept.mkdir()
    with pytest.raises(ZeroDivisionError):
        unolab.run([Broken(), "random"], players=2, games=10, out=kept)
    assert kept.is_dir() and not any(kept.iterdir())


def test_a_progress_callable_that_raises_keeps_the_experiments_state(tmp_path):
    """The docs say an experiment with `out` saves its state at the end,
    interrupted or not; a progress callable that raised skipped it (after
    thousands of games) and left the folder empty."""

    def progress(done, total):
        if done > 0:
            raise RuntimeError("enough")

    out = tmp_path / "cmp"
    with pytest.raises(RuntimeError, match="enough"):
        unolab.compare("random", players=2, b_seat=(0, "color"), games=400_000, batch=1000,
                       threads=1, out=out, progress=progress)
    state = json.loads((out / "state.json").read_text())
    assert state["clusters"] > 0
    r = unolab.compare("random", players=2, b_seat=(0, "color"), games=400_000, batch=1000,
                       threads=1, out=out, resume=True, precision=0.05)
    m = r["manifest"]
    assert m["clusters"] >= state["clusters"], (m, state["clusters"])
    assert m["stopped_by"] in ("precision", "game limit"), m


def test_ctrl_c_raises_keyboard_interrupt_with_the_finished_games(tmp_path):
    import _thread

    class Slow(unolab.Strategy):
        def play(self, obs, legal):
            time.sleep(0.0005)
            return legal[0]

    # Python's own Ctrl-C handler, whatever the parent left: a shell that
    # starts a job in the background (as CI does) hands it SIGINT ignored,
    # and then Python installs no handler and interrupt_main does nothing.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = threading.Timer(0.5, _thread.interrupt_main)
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt) as e:
            unolab.run([Slow(), "random"], players=2, games=1_000_000, threads=1,
                       out=tmp_path / "partial")
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, previous)
    r = e.value.result
    assert r.partial and 0 < r["games"] < 1_000_000
    manifest = json.loads((tmp_path / "partial" / "manifest.json").read_text())
    assert manifest.get("partial") is True or '"partial": true' in json.dumps(manifest)


def test_an_interrupted_tournament_resumes_to_the_uninterrupted_ratings(tmp_path):
    """As `unolab tournament --resume`: Ctrl-C keeps the finished games in
    out/state.json and resume=True plays the rest, to the files of one
    uninterrupted call."""
    import _thread

    class Slow(unolab.Strategy):
        def play(self, obs, legal):
            time.sleep(0.0002)
            return legal[0]

    field = [Slow, "color", "random"]
    kw = dict(players=3, games=600, seed=4, threads=1)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = threading.Timer(0.5, _thread.interrupt_main)
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt) as e:
            unolab.tournament(field, out=tmp_path / "part", **kw)
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, previous)
    assert e.value.result.partial and (tmp_path / "part" / "state.json").is_file()
    with pytest.raises(FileExistsError, match=r"continue them where they were started \(resume=True\), or force=True"):
        unolab.tournament(field, out=tmp_path / "part", **kw)
    with pytest.raises(ValueError, match="it is another tournament"):
        unolab.tournament([Slow, "color", "points"], out=tmp_path / "part", resume=True, **kw)
    with pytest.raises(ValueError, match="resume=True needs out=DIR"):
        unolab.tournament(field, resume=True, **kw)
    r = unolab.tournament(field, out=tmp_path / "part", resume=True, **kw)
    assert not r.partial and not (tmp_path / "part" / "state.json").exists()
    # The manifest names the call that started it, then the one that
    # continued it (it named only the last).
    m = json.loads((tmp_path / "part" / "manifest.json").read_text())
    call = ("unolab.tournament(strategies=[<class Slow>, 'color', 'random'], players=3, "
            "games=600, seed=4, threads=1, out=" + repr(str(tmp_path / "part")) + "{})")
    assert m["command"] == ["python", call.format("")]
    assert m["continued_by"] == [["python", call.format(", resume=True")]]
    unolab.tournament(field, out=tmp_path / "whole", **kw)
    for f in ("ratings.csv", "head_to_head.csv"):
        assert (tmp_path / "part" / f).read_text() == (tmp_path / "whole" / f).read_text(), f


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        (dict(duplicate="false"), TypeError, "duplicate is True or False, got 'false'"),
        (dict(fixed_seats="no"), TypeError, "fixed_seats is True or False"),
        (dict(fixed_seats=1), TypeError, "fixed_seats is True or False"),
        (dict(players=2.5), TypeError, "player count is an integer"),
        (dict(players=-1), ValueError, r"'-1' is not a valid player count \(valid: 2 to 10\)"),
        (dict(players=2**64), ValueError, r"is not a valid player count \(valid: 2 to 10\)"),
        (dict(games=-5), ValueError, r"'-5' is not a valid game count \(valid: a positive integer"),
        (dict(games=2**64), ValueError, r"is not a valid game count \(valid: a positive integer, 1 to 2\*\*64 - 1\)"),
        (dict(games=10.0), TypeError, "game count is an integer"),
        (dict(threads=2.0), TypeError, "thread count is an integer"),
        (dict(threads=2**70), ValueError, r"is not a valid thread count \(valid: 1 to \d+, 8 per core"),
        (dict(house={"stacking": "same"}), TypeError, "a comma list .* or a list of items"),
    ],
)
def test_wrong_types_and_out_of_range_values_are_refused_not_coerced(kwargs, error, message):
    kwargs.setdefault("games", 10)
    with pytest.raises(error, match=message):
        unolab.run(**kwargs)


def test_helpers_refuse_wrong_types_and_ranges_as_the_runs_do():
    """Helpers follow the package's rule: an integer given as a float, or a
    bool given as an integer, is refused, and a huge value is a ValueError
    with the range (not an OverflowError)."""
    from unolab.encoding import rlcard_action_label

    assert unolab.action_label(np.int16(80)) == "do not jump in"
    for bad, error, message in [
        (1.7, TypeError, "action is an integer, got 1.7"),
        (True, TypeError, "action is an integer, got True"),
        (2**70, ValueError, f"action {2**70} is not an action (valid: 0 to 80)"),
        (-1, ValueError, "action -1 is not an action (valid: 0 to 80)"),
    ]:
        with pytest.raises(error) as e:
            unolab.action_label(bad)
        assert str(e.value) == message
    with pytest.raises(TypeError, match="action is an integer, got 3.9"):
        rlcard_action_label(3.9)
    with pytest.raises(ValueError, match=f"action {2**70} is not an RLCard action"):
        rlcard_action_label(2**70)
    with pytest.raises(TypeError, match="as_toml is True or False, got 1"):
        unolab.rules("classic", as_toml=1)


def test_a_setting_given_twice_is_refused():
    """The later item would win silently, and a house rule wins over a
    setting of the same key whatever the order: refused, as on the command
    line (B's items add to A's and are checked on their own)."""
    with pytest.raises(ValueError) as e:
        unolab.run(games=10, house="stacking=same,stacking=cross")
    assert str(e.value) == (
        "'stacking' is given twice in house: stacking=same, stacking=cross: give each setting once"
    )
    with pytest.raises(ValueError) as e:
        unolab.env(settings={"jump_in": False}, house="jump_in")
    assert str(e.value) == (
        "'jump_in' is given in settings (jump_in=false) and in house (jump_in): give each setting once"
    )
    with pytest.raises(ValueError, match="'hand_size' is given twice in b_settings"):
        unolab.compare(games=10, b_settings=["hand_size=5", "hand_size=6"])
    unolab.compare(games=10, house="stacking=same", b_house="stacking=cross")


def test_a_settings_dicts_keys_are_names():
    """A key that is not a string was an unknown setting ('5'), and one with
    '=' in it was pasted into 'hand_size=5=5' and read as a bad value."""
    with pytest.raises(TypeError, match=r"a setting's name is a string, got 5"):
        unolab.run("random", players=2, games=10, settings={5: 5})
    with pytest.raises(ValueError, match=r"a setting's name holds no '=': got 'hand_size=5'"):
        unolab.run("random", players=2, games=10, settings={"hand_size=5": 5})


def test_a_none_in_an_experiment_dict_names_its_key():
    with pytest.raises(TypeError) as e:
        unolab.experiment({"name": "x", "base": {"players": None}})
    assert str(e.value) == (
        "experiment: base.players is None (an experiment file has no null: "
        "leave the key out for its default)"
    )
    with pytest.raises(TypeError, match=r"experiment: arm\[1\]\.label is None"):
        unolab.experiment({"name": "x", "arm": [{"label": "a"}, {"label": None}]})


def test_numpy_values_are_settings_values():
    """numpy's integers, floats and booleans are values as Python's are."""
    a = unolab.rules("classic", settings={"hand_size": np.int64(5), "target": np.uint16(300),
                                           "force_play": np.bool_(True)})
    b = unolab.rules("classic", settings={"hand_size": 5, "target": 300, "force_play": True})
    assert a == b and a["settings"]["hand_size"] == 5
    assert unolab.rules("classic", settings={"hand_size": 5})["settings"]["hand_size"] == 5
    with pytest.raises(ValueError, match="'1180591620717411303424' for setting 'target': "
                                         "the number is too large"):
        unolab.rules("classic", settings={"target": 2**70})


@pytest.mark.parametrize("b_seat", ["\uff11=color", "1_0=color", "one=color", "-1=color"])
def test_a_b_seat_is_read_as_the_command_line_reads_it(b_seat):
    k = b_seat.split("=")[0]
    with pytest.raises(ValueError) as e:
        unolab.compare("random", players=2, b_seat=b_seat, games=10)
    assert str(e.value) == f"b_seat: '{k}' is not a seat (valid: 0 to 1)"


def test_thread_counts_out_of_range_say_the_same_range():
    messages = []
    for threads in (-1, 0, 10_000):
        with pytest.raises(ValueError) as e:
            unolab.run(games=10, threads=threads)
        messages.append(str(e.value).split(" is not")[1])
    assert len(set(messages)) == 1 and "valid: 1 to" in messages[0]


def test_compare_and_experiment_options_are_checked():
    with pytest.raises(TypeError, match="duplicate is True or False"):
        unolab.compare("random", players=2, b_seat="0=color", games=10, duplicate="yes")
    with pytest.raises(TypeError, match="precision is a number"):
        unolab.compare("random", players=2, b_seat="0=color", games=10, precision="0.5")
    for seat in ((-1, "color"), (2**70, "color"), "-1=color"):
        with pytest.raises(ValueError, match=r"^b_seat: '.*' is not a seat \(valid: 0 to 1\)"):
            unolab.compare("random", players=2, b_seat=seat, games=10)
    with pytest.raises(TypeError, match="duplicate is True or False"):
        unolab.experiment("missing/experiment.toml", duplicate=1)


def test_an_experiment_refuses_python_strategies_it_does_not_seat():
    class Mine(unolab.Strategy):
        def play(self, obs, legal):
            return legal[0]

    exp = {
        "name": "py-unused",
        "base": {"players": 2, "strategies": "random", "games": 20},
        "arm": [{"label": "random"}, {"label": "mine", "strategies": "mine,random"}],
    }
    with pytest.raises(ValueError, match="'unused' given but not used by the experiment"):
        unolab.experiment(exp, strategies={"mine": Mine(), "unused": Mine()})
    assert len(unolab.experiment(exp, strategies={"mine": Mine()})["arms"]) >= 2


def test_the_tournament_tables_are_the_ones_its_docstring_names():
    pytest.importorskip("pandas")
    import re

    doc = unolab.TournamentResult.__doc__
    named = re.findall(r'table="(\w+)"', doc)
    assert named and "ratings" not in named
    t = unolab.tournament("random,color", players=2, games=100)
    assert t.to_pandas().equals(t.to_pandas(named[0]))  # the first one named is the default
    for table in named:
        assert len(t.to_pandas(table)) > 0


# ----- the ladder ----------------------------------------------------------------


def _ladder_file(tmp_path: Path, games: int = 150) -> Path:
    f = tmp_path / "l.toml"
    f.write_text(
        'name = "l"\nplayers = [2, 3]\n'
        f"games = {games}\nseed = 4\n"
        'field = ["random", "first", "color"]\nreference = "random"\nceiling = "color"\n'
        "speed_seconds = 0.05\n"
    )
    return f


def _ratings(rows: list) -> list:
    """The rows without the speeds (timings of the machine)."""
    return [{k: v for k, v in r.items() if k != "decisions_per_second"} for r in rows]


def test_ladder_equals_the_cli_and_writes_what_it_writes(cli, tmp_path):
    f = _ladder_file(tmp_path)
    py = unolab.ladder(f, threads=2)
    assert isinstance(py, unolab.LadderResult) and py["kind"] == "ladder"
    assert not py.partial and py["games_played"] == [150, 150]
    c = cli_json(cli, "ladder", str(f), "--out", str(tmp_path / "cli"), "--quiet")
    assert _ratings(py["rows"]) == _ratings(c["rows"])
    assert len(py["rows"]) == 6 and all(r["decisions_per_second"] > 0 for r in py["rows"])
    # The reference covers none of the way, the ceiling all of it.
    by = {(r["players"], r["strategy"]): r for r in py["rows"]}
    assert by[(2, "random")]["share_of_gap"] == 0.0 and by[(3, "color")]["share_of_gap"] == 1.0
    try:
        import pandas  # noqa: F401
    except ImportError:
        pass
    else:
        df = py.to_pandas()
        assert len(df) == 6 and "elo_lo95" in df.columns
    # Files only with out=, refused over earlier results without force=True.
    out = tmp_path / "py"
    unolab.ladder(f, out=out, games=60)
    assert (out / "ladder.csv").is_file() and (out / "2p" / "ratings.csv").is_file()
    # The report's command to play it again is the call, with force=True
    # (it was the call's text with a command line's " --force" after it).
    regen = [line for line in (out / "report.md").read_text().splitlines()
             if line.startswith("Regenerate:")]
    assert regen == [f"Regenerate: `unolab.ladder(file={str(f)!r}, games=60, out={str(out)!r}, "
                     "force=True)` in Python"]
    with pytest.raises(FileExistsError, match="force"):
        unolab.ladder(f, out=out, games=60)
    unolab.ladder(f, out=out, games=60, force=True)
    # force=True over a ladder of more table sizes leaves none of theirs
    # (the 3-player folder stayed beside the new results).
    one = tmp_path / "one.toml"
    one.write_text(f.read_text().replace("players = [2, 3]", "players = [2]"))
    unolab.ladder(one, out=out, games=60, force=True)
    assert (out / "2p").is_dir() and not (out / "3p").exists()
    # redraw_ladder draws ladder.svg again from ladder.csv, as the command
    # line's --redraw does, and leaves the other files as they are.
    (tmp_path / "cli" / "ladder.svg").unlink()
    kept = {p.name: p.read_bytes() for p in (tmp_path / "cli").iterdir() if p.is_file()}
    svg = unolab.redraw_ladder(f, out=tmp_path / "cli")
    assert svg == tmp_path / "cli" / "ladder.svg" and "<svg" in svg.read_text()[:200]
    subprocess.run([str(cli), "ladder", str(f), "--out", str(tmp_path / "cli"), "--redraw"],
                   check=True, capture_output=True)
    assert svg.read_text() == unolab.redraw_ladder(f, out=tmp_path / "cli").read_text()
    assert {p.name: p.read_bytes() for p in (tmp_path / "cli").iterdir()
            if p.is_file() and p.name != "ladder.svg"} == kept
    (tmp_path / "empty").mkdir()
    with pytest.raises(FileNotFoundError, match="holds no ladder.csv"):
        unolab.redraw_ladder(f, out=tmp_path / "empty")


def test_a_bad_ladder_call_is_refused_before_any_game(tmp_path):
    f = _ladder_file(tmp_path)
    with pytest.raises(FileNotFoundError, match="cannot read the ladder file"):
        unolab.ladder(tmp_path / "none.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "l"\nplayers = [2]\ngames = "many"\n')
    with pytest.raises(ValueError, match=r"bad\.toml:3:"):
        unolab.ladder(bad)
    other = tmp_path / "other.toml"
    other.write_text(f.read_text().replace('reference = "random"', 'reference = "points"'))
    with pytest.raises(ValueError, match="reference = 'points' is not in the field"):
        unolab.ladder(other)
    with pytest.raises(ValueError, match="resume=True needs out"):
        unolab.ladder(f, resume=True)
    with pytest.raises(ValueError, match="give one"):
        unolab.ladder(f, out=tmp_path / "o", resume=True, force=True)
    # No saved state is a missing file, as for compare and experiment (it
    # was a ValueError here and in tournament).
    with pytest.raises(FileNotFoundError, match="no interrupted ladder"):
        unolab.ladder(f, out=tmp_path / "o", resume=True)
    with pytest.raises(FileNotFoundError, match="resume=True"):
        unolab.tournament(["color", "points"], players=2, games=10, out=tmp_path / "t0", resume=True)
    with pytest.raises(ValueError, match="not a valid game count"):
        unolab.ladder(f, games=0)
    with pytest.raises(TypeError):
        unolab.ladder(None)
    # A preset the file names that is missing: FileNotFoundError, as in
    # tournament (it was a ValueError).
    missing = tmp_path / "missing.toml"
    missing.write_text(f.read_text().replace('"first"', '"no/such/preset.toml"'))
    with pytest.raises(FileNotFoundError, match="no/such/preset.toml"):
        unolab.ladder(missing)
    assert not (tmp_path / "o").exists()


def test_ctrl_c_inside_a_progress_callback_keeps_what_finished(tmp_path):
    """Ctrl-C while the progress callback runs is raised inside it: it was
    taken as the callback's own error, and everything was lost (no result,
    no state to resume)."""
    calls = []

    def progress(done, total):
        calls.append(done)
        if len(calls) == 3:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt) as e:
        unolab.tournament(["pimc-100", "color"], players=2, games=400, seed=3, threads=1,
                          out=tmp_path / "t", progress=progress)
    assert e.value.result.partial
    assert (tmp_path / "t" / "state.json").is_file()
    # Another exception from the callback is still the callback's error.
    with pytest.raises(ZeroDivisionError):
        unolab.run("random", players=2, games=200_000, threads=1, progress=lambda d, t: 1 / 0)


def test_an_interrupted_ladder_resumes_to_the_uninterrupted_ratings(tmp_path):
    """As `unolab ladder --resume`: Ctrl-C keeps each table size reached in
    out/state.json, and resume=True continues it to the ratings of one
    uninterrupted call."""
    import _thread

    f = tmp_path / "l.toml"
    f.write_text(
        'name = "l"\nplayers = [2, 3]\ngames = 300\nseed = 6\n'
        'field = ["pimc-100", "color", "random"]\nreference = "random"\nceiling = "color"\n'
        "speed_seconds = 0.05\n"
    )
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = threading.Timer(0.5, _thread.interrupt_main)
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt) as e:
            unolab.ladder(f, out=tmp_path / "part", threads=2)
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, previous)
    assert e.value.result.partial and (tmp_path / "part" / "state.json").is_file()
    with pytest.raises(FileExistsError, match=r"continue them where they were started \(resume=True\), or force=True"):
        unolab.ladder(f, out=tmp_path / "part")
    with pytest.raises(ValueError, match="it is another ladder"):
        unolab.ladder(f, out=tmp_path / "part", resume=True, games=200)
    r = unolab.ladder(f, out=tmp_path / "part", resume=True, threads=1)
    assert not r.partial and not (tmp_path / "part" / "state.json").exists()
    w = unolab.ladder(f, out=tmp_path / "whole")
    assert _ratings(r["rows"]) == _ratings(w["rows"])
    for sub in ("2p", "3p"):
        for name in ("ratings.csv", "head_to_head.csv"):
            a = (tmp_path / "part" / sub / name).read_text()
            assert a == (tmp_path / "whole" / sub / name).read_text(), (sub, name)


def test_trace_refuses_a_match_without_an_end_as_the_command_line_does():
    # It played on to max_rounds (a million events at max_rounds=20000).
    with pytest.raises(ValueError, match="a match needs an end"):
        unolab.trace("color", players=2, settings={"target": 0, "max_rounds": 20000})


def test_an_empty_out_is_refused_not_taken_for_the_current_folder(tmp_path, monkeypatch):
    # out="" wrote into the current folder, and with force=True removed the
    # results it found there.
    monkeypatch.chdir(tmp_path)
    (tmp_path / "summary.csv").write_text("kept")
    for call in (
        lambda: unolab.run("color", games=10, out=""),
        lambda: unolab.run("color", games=10, out="", force=True),
        lambda: unolab.compare("random", b_seat=(0, "color"), games=10, out="", force=True),
    ):
        with pytest.raises(ValueError, match="out is an empty path"):
            call()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["summary.csv"]
    assert (tmp_path / "summary.csv").read_text() == "kept"


def _signalled_as_a_job(pids, call):
    """Calls ``call()`` while a thread ends the agent programs whose pids
    the test bot wrote to ``pids`` with SIGTERM and, 150 ms later, this
    process with SIGINT, as a scheduler's SIGTERM reaches every process of
    a job; returns the ``KeyboardInterrupt`` raised, after checking that
    a RuntimeWarning gave the note."""
    import _thread

    def stop_all():
        t = time.monotonic()
        while not pids.exists() and time.monotonic() - t < 60:
            time.sleep(0.02)
        time.sleep(0.5)
        for pid in pids.read_text().split():
            try:
                os.kill(int(pid), signal.SIGTERM)
            except ProcessLookupError:
                pass  # a program the work already ended (tune's earlier ones)
        time.sleep(0.15)
        _thread.interrupt_main()

    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    stopper = threading.Thread(target=stop_all)
    stopper.start()
    try:
        with pytest.warns(RuntimeWarning, match="could not finish and are left out"):
            with pytest.raises(KeyboardInterrupt) as e:
                call()
    finally:
        stopper.join()
        signal.signal(signal.SIGINT, previous)
    return e.value


def test_a_program_ended_by_the_same_signal_leaves_the_finished_games(tmp_path):
    """A scheduler's SIGTERM reaches the agent programs too: the games a
    program could not finish are left out (a RuntimeWarning says so) and the
    call keeps what finished, as on the command line."""
    pids = tmp_path / "pids"
    bot = f"ext:python3 {REPO / 'tests' / 'bots' / 'faulty.py'} ok 1 {pids}"
    e = _signalled_as_a_job(
        pids,
        lambda: unolab.run([bot, "random"], players=2, games=1_000_000, threads=1,
                           out=tmp_path / "partial"),
    )
    r = e.result
    assert r.partial and 0 < r["games"] < 1_000_000
    manifest = json.loads((tmp_path / "partial" / "manifest.json").read_text())
    assert manifest["partial"] is True and manifest["games_completed"] == r["games"]


def test_a_tune_whose_program_is_ended_by_the_same_signal_keeps_its_preset(tmp_path):
    """tune with a program in its field: the same signal ending the program
    and the call drops the generation under way, warns why and keeps the
    preset reached, written to ``out``. A candidate plays 3,000 games, so
    that the program the signal ends is the one at the table (with 100, a
    new program could start between the pids read and the signal on a
    loaded host, and none in use was ended)."""
    pids = tmp_path / "pids"
    bot = f"ext:python3 {REPO / 'tests' / 'bots' / 'faulty.py'} ok 1 {pids}"
    e = _signalled_as_a_job(
        pids,
        lambda: unolab.tune(players=2, field=bot, generations=1000, population=4,
                            games=3000, holdout_games=100, threads=1,
                            out=tmp_path / "t.toml"),
    )
    r = e.result
    assert r["partial"] is True and len(r["generations"]) < 1000
    assert "[params]" in (tmp_path / "t.toml").read_text()


def test_an_experiment_dict_error_names_the_key_not_a_line_of_toml():
    """An experiment given as a dict is made into TOML for the core: its
    errors cited "<dict>:17", a line the caller never wrote, sometimes
    without the key, and "struct FileGrid", a Rust type's name."""
    base = {"strategies": "random", "games": 20}
    cases = [
        ({"base": {**base, "set": {"hand_size": 5}}, "arm": [{"label": "a"}]},
         'experiment: base.set: expected a list, such as ["a", "b"], not a table'),
        ({"base": base, "arm": [{"label": "a"}, {"label": "b", "house": 5}]},
         'experiment: arm[1].house: expected a list, such as ["a", "b"], not the number 5'),
        ({"base": base, "arm": [{"label": "a"}], "grid": 5},
         "experiment: grid: expected a table, not the number 5"),
    ]
    for exp, message in cases:
        with pytest.raises(ValueError) as e:
            unolab.experiment({"name": "x", **exp})
        assert str(e.value) == message


def test_resume_writes_the_results_a_finished_state_lost(tmp_path):
    """A finished experiment whose result files are gone (a disk that filled
    up as they were written) gets them written again by resume=True, from
    its state, as the command line's --resume does; it wrote nothing."""
    exp = {"name": "e", "baseline": "plain", "base": {"players": 2, "strategies": "points,color", "games": 200},
           "arm": [{"label": "plain"}, {"label": "stack", "house": ["stacking=same"]}]}
    out = tmp_path / "e"
    unolab.experiment(exp, out=out, threads=1)
    files = ["report.md", "arms.csv", "comparisons.csv"]
    before = [(out / f).read_bytes() for f in files]
    for f in files + ["manifest.json"]:
        (out / f).unlink()
    unolab.experiment(exp, out=out, threads=1, resume=True)
    assert [(out / f).read_bytes() for f in files] == before
    assert (out / "manifest.json").is_file()
