"""What a probe of the package found: environments that never came back
after an `ext:` program died, settings that leave the learner nothing to
decide (a reset that never ended), a setting value that brought other keys
in, trace's out checked after the match, numbers JSON or a float cannot
hold, and an observation's repr in Rust's words."""

from __future__ import annotations

import json
import sys

import numpy as np
import pytest

import unolab

DIE_ONCE = """
import json, os, sys
mark = sys.argv[1]
decided = 0
for line in sys.stdin:
    m = json.loads(line)
    if m["type"] == "hello":
        print(json.dumps({"type": "hello", "version": 1}), flush=True)
    elif m["type"] == "decide":
        decided += 1
        if decided == 5 and not os.path.exists(mark):
            open(mark, "w").close()
            sys.exit(3)
        print(json.dumps({"answer": m["legal"][0]}), flush=True)
"""


@pytest.fixture
def die_once(tmp_path):
    """An external opponent whose first program dies at its 5th decision."""
    bot = tmp_path / "die_once.py"
    bot.write_text(DIE_ONCE)
    return f"ext:die_once={sys.executable} {bot} {tmp_path / 'died'}"


def play_out(env):
    """Steps the first legal action to the end of the game; the steps made."""
    n = 0
    while True:
        _, _, term, trunc, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
        n += 1
        if term or trunc:
            return n


def test_a_reset_after_an_external_program_died_starts_a_new_one(die_once):
    # reset() re-raised the dead program's fault for ever.
    env = unolab.UnoEnv(players=2, strategies=die_once)
    env.reset(seed=1)
    with pytest.raises(RuntimeError, match="die_once.*exited"):
        for _ in range(100):
            play_out(env)
            env.reset()
    env.reset(seed=2)
    assert play_out(env) > 0
    env.reset(seed=3)
    assert play_out(env) > 0
    env.close()


def test_a_batch_reset_after_an_external_program_died_plays_again(die_once):
    v = unolab.VecEnv(2, players=2, learners=[0], strategies=die_once, seed=1)
    rng = np.random.default_rng(5)
    with pytest.raises(RuntimeError, match="die_once.*exited"):
        for _ in range(2000):
            v.step(v.random_actions(rng))
    v.reset(7)
    finished = 0
    for _ in range(600):
        v.step(v.random_actions(rng))
        finished += int(v.done.sum())
    assert finished >= 2


# The dealer deals, the start card is turned, seat 0 plays its one turn and
# max_turns ends the game: seat 1 never decides.
NOTHING_TO_DECIDE = {"dealer": 1, "max_turns": 1, "start_card_effects": False}


def test_settings_that_leave_the_learner_nothing_to_decide_are_a_value_error():
    # Both looped for ever (the batch with the GIL released, deaf to Ctrl-C).
    with pytest.raises(ValueError, match="1000 games in a row ended before any decision of a learner"):
        unolab.UnoEnv(players=2, seat=1, strategies="random", settings=NOTHING_TO_DECIDE).reset(seed=1)
    with pytest.raises(ValueError, match="1000 games in a row ended before any decision of a learner"):
        unolab.VecEnv(1, players=2, learners=[1], strategies="random", settings=NOTHING_TO_DECIDE)
    # Seat 0 decides there: the same settings are fine for it.
    env = unolab.UnoEnv(players=2, seat=0, strategies="random", settings=NOTHING_TO_DECIDE)
    env.reset(seed=1)
    assert play_out(env) >= 1


def test_a_setting_value_is_one_line():
    # "5\nseven_o=true" gave hand_size 5 and dropped the rest silently.
    with pytest.raises(ValueError, match="a value is one line"):
        unolab.rules("classic", settings={"hand_size": "5\nseven_o=true"})


def test_trace_checks_its_out_before_the_match(tmp_path):
    # The folder was made only after the whole match was played.
    calls = []

    class Count(unolab.Strategy):
        def play(self, obs, legal):
            calls.append(obs.turn)
            return legal[0]

    afile = tmp_path / "afile"
    afile.write_text("")
    with pytest.raises(OSError, match="cannot write .*afile"):
        unolab.trace([Count(), "random"], players=2, out=afile / "x.jsonl")
    with pytest.raises(OSError, match="cannot"):
        unolab.trace([Count(), "random"], players=2, out="/proc/1/x.jsonl")
    assert calls == []
    # A path ending in '/.' names a folder (it wrote a file 'newdir').
    with pytest.raises(ValueError, match="ends with '/.': it names a folder"):
        unolab.trace([Count(), "random"], players=2, out=f"{tmp_path}/newdir/.")
    assert calls == [] and not (tmp_path / "newdir").exists()
    new = tmp_path / "new" / "deeper" / "x.jsonl"
    events = unolab.trace([Count(), "random"], players=2, out=new)
    assert calls and [json.loads(line) for line in new.read_text().splitlines()] == events


def test_numbers_past_a_float_or_numpy_numbers_in_an_experiment():
    # OverflowError, and numpy's int64 was "not JSON serializable".
    with pytest.raises(ValueError, match="precision .* is out of range"):
        unolab.compare("random", players=2, b_seat=(0, "color"), games=10, precision=2**2000)
    exp = {"name": "np", "base": {"players": 2, "strategies": "random", "games": np.int64(20)},
           "arm": [{"label": "a"}, {"label": "b", "house": ["seven_o"]}]}
    r = unolab.experiment(exp)
    assert (r["manifest"]["games_limit"], r["manifest"]["clusters"]) == (20, 20)
    exp["base"]["games"] = float("nan")
    with pytest.raises(ValueError, match="NaN or an infinity"):
        unolab.experiment(exp)
    # A seed past TOML's integers: serde's "u64 value was too large at line 1
    # column 125"; the argument takes it.
    exp["base"]["games"] = 20
    exp["seed"] = 2**64 - 1
    with pytest.raises(ValueError, match=r"seed = 18446744073709551615 is past what an experiment file holds"):
        unolab.experiment(exp)
    del exp["seed"]
    r = unolab.experiment(exp, seed=2**64 - 1)
    assert r["manifest"]["seed"] == 2**64 - 1


def test_an_observation_reads_as_python():
    seen = []

    class Watch(unolab.Strategy):
        def play(self, obs, legal):
            seen.append(repr(obs))
            return legal[0]

    unolab.run([Watch(), "random"], players=2, games=3, threads=1)
    assert seen and all("Some(" not in r for r in seen)
    assert any("color='" in r for r in seen)


def test_a_list_of_actions_past_int64_is_out_of_range_not_of_the_wrong_type():
    # numpy made such a list objects or floats: "got dtype object".
    v = unolab.VecEnv(3, players=2)
    for actions, shown in [([2**70, 0, 0], 2**70), ([-1, 2**64 - 1, 0], -1)]:
        with pytest.raises(ValueError, match=f"action {shown} is not an action"):
            v.step(actions)
    with pytest.raises(TypeError, match="actions are integers"):
        v.step([0.5, 0, 0])
