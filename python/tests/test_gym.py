"""The Gymnasium environment: Gymnasium's env_checker, registration, masks as
MaskablePPO reads them, strategies at the other seats, bad input."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import unolab
from conftest import REPO, InterruptedAfterStep


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(players=2, strategies="random"),
        dict(players=4, seat=2, strategies=["color", "points", "random"], house="stacking=same,seven_o"),
        dict(rules="cars3", players=3, strategies="tuned", mode="match", reward="points", settings={"target": 100}),
        dict(players=3, strategies="random", house="seven_o,bluff_challenge", encoding="known"),
    ],
)
def test_gymnasium_check_env(kwargs):
    # check_env steps actions drawn without the mask: with the sanction an
    # illegal play is the rules' wrong-card sanction instead of an error.
    env = gymnasium.make("unolab/Uno-v0", illegal="sanction", **kwargs)
    check_env(env.unwrapped)


def test_the_learner_plays_one_seat_and_the_strategies_the_others(rng):
    env = unolab.UnoEnv(players=3, seat=1, strategies=["color", "first"])
    obs, info = env.reset(seed=7)
    assert env.observation_space.contains(obs)
    winners = []
    for game in range(30):
        done = False
        while not done:
            assert env.game.seat == 1
            mask = env.action_masks()
            assert mask.dtype == np.bool_ and mask.shape == (unolab.ACTIONS,)
            assert np.array_equal(mask, info["action_mask"].astype(bool))
            assert sorted(np.flatnonzero(mask)) == env.game.legal()
            obs, reward, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(mask))))
            done = terminated or truncated
        assert not env.action_masks().any()
        winners.append(info["winner"])
        assert reward == (1.0 if info["winner"] == 1 else (-0.5 if info["winner"] is not None else 0.0))
        obs, info = env.reset()
    assert set(winners) <= {0, 1, 2, None} and len(set(winners) - {None}) >= 2


def test_stepping_a_finished_game_raises():
    env = unolab.UnoEnv(players=2, settings={"max_turns": 4})
    env.reset(seed=1)
    done = False
    while not done:
        _, _, term, trunc, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
        done = term or trunc
    with pytest.raises(RuntimeError, match="the game is over"):
        env.step(0)


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        (dict(strategies="nope"), ValueError, "unknown strategy 'nope'"),
        (dict(strategies="missing.toml"), FileNotFoundError, "cannot read strategy file"),
        (dict(seat=2), ValueError, "seat 2 is not a seat of a 2-player table"),
        (dict(players=3, strategies=["random", "color", "first"]), ValueError, "3 strategies for the 2 other seats"),
        (dict(strategies=[]), ValueError, "give strategies for them"),
    ],
)
def test_bad_input(kwargs, error, message):
    with pytest.raises(error, match=message):
        unolab.UnoEnv(**kwargs)


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        (dict(seat=1.9), TypeError, "seat is an integer, got 1.9"),
        (dict(seat=True), TypeError, "seat is an integer"),
        (dict(seat=-1), ValueError, r"seat -1 is not a seat of a 2-player table \(valid: 0 to 1\)"),
        (dict(seat=2**64), ValueError, r"is not a seat of a 2-player table \(valid: 0 to 1\)"),
        (dict(players=2.5), TypeError, "players is an integer, got 2.5"),
        (dict(players=-1), ValueError, r"-1 players is not supported \(valid: 2 to 10\)"),
        (dict(ask_forced="no"), TypeError, "ask_forced is True or False"),
        (dict(strategies={"random": 1}), TypeError, "strategies are a comma list or a list of names"),
    ],
)
def test_wrong_types_and_out_of_range_values_are_refused_not_coerced(kwargs, error, message):
    with pytest.raises(error, match=message):
        unolab.UnoEnv(**kwargs)


def test_calls_before_reset_are_refused():
    # step used to say "the game is over" and action_masks() gave all False.
    env = unolab.UnoEnv(players=2, render_mode="ansi")
    for name, call in (("step", lambda: env.step(0)), ("action_masks", env.action_masks),
                       ("render", env.render)):
        with pytest.raises(RuntimeError, match=rf"reset\(\) needs to be called before {name}\(\)"):
            call()
    env.reset(seed=1)
    assert env.action_masks().any()
    assert "decides" in env.render()


@pytest.mark.parametrize(
    "action, error, message",
    [
        (35.9, TypeError, "an action is an integer, got 35.9"),
        ("59", TypeError, "an action is an integer"),
        (2**70, ValueError, r"is not an action \(valid: 0 to 80\)"),
        # A batch of one action (a vectorised policy's output): the package's
        # words, not numpy's "only integer scalar arrays ...".
        (np.array([3]), TypeError, r"an action is an integer, got array\(\[3\]\) \(an array of shape \(1,\)"),
    ],
)
def test_a_step_takes_an_integer_action_only(action, error, message):
    env = unolab.UnoEnv(players=2)
    env.reset(seed=1)
    with pytest.raises(error, match=message):
        env.step(action)
    env.step(np.int64(np.flatnonzero(env.action_masks())[0]))  # numpy integers are integers


class _FailingGame:
    def __init__(self, game):
        self._game = game

    def __getattr__(self, name):
        return getattr(self._game, name)

    def step(self, action):
        raise RuntimeError("a strategy failed (test)")


def test_a_step_that_stopped_on_an_error_asks_for_a_reset():
    env = unolab.UnoEnv(players=2)
    env.reset(seed=1)
    env._game = _FailingGame(env._game)
    with pytest.raises(RuntimeError, match="a strategy failed"):
        env.step(int(np.flatnonzero(env.action_masks())[0]))
    env._game = env._game._game
    with pytest.raises(RuntimeError, match=r"stopped on an error .*reset\(\) needs to be called before step\(\)"):
        env.step(0)
    env.reset(seed=1)
    env.step(int(np.flatnonzero(env.action_masks())[0]))


def test_a_dead_program_stops_the_env_at_once():
    """An opponent program that exits was reported only at the round's end:
    until then its seat answered legal defaults (about 25 steps of play no
    one asked for), which a learner would take for its opponent's play. Its
    fault now stops the env at the step (here the reset) it happened in."""
    env = unolab.UnoEnv(players=3, strategies="ext:true")
    with pytest.raises(RuntimeError, match="strategy 'true' at seat 1 failed in round 1: the program exited"):
        env.reset(seed=1)


def test_the_sanction_covers_plays_not_colours_nor_yes_no_decisions(rng):
    """What docs/python.md says of check_env: an action outside the mask is
    sanctioned at a play, and raises at a decision without a sanction."""
    env = unolab.UnoEnv(illegal="sanction")
    _, info = env.reset(seed=1)
    assert info["decision"] == "color" and not info["action_mask"][0]
    with pytest.raises(ValueError, match="action 0 is not legal for the color decision"):
        env.step(0)
    # At a play an action outside the mask is sanctioned, not refused.
    env = unolab.UnoEnv(illegal="sanction")
    seed = next(s for s in range(100) if env.reset(seed=s)[1]["decision"] == "play")
    _, info = env.reset(seed=seed)
    outside = int(np.flatnonzero(info["action_mask"] == 0)[0])
    env.step(outside)
    # With RLCard's encoding every decision asked is a play: random actions
    # drawn without the mask play whole games.
    env = unolab.UnoEnv(rules="rlcard", encoding="rlcard", illegal="sanction")
    for seed in range(5):
        env.reset(seed=seed)
        done = False
        while not done:
            _, _, term, trunc, _ = env.step(int(rng.integers(env.action_space.n)))
            done = term or trunc


def test_a_match_with_a_winner_is_terminated_even_when_its_last_round_hit_the_turn_limit():
    """A match stopped by max_rounds (or its round count) names the leader as
    its winner and pays the win; it used to be flagged truncated when its last
    round hit max_turns, and a learner bootstrapping truncated games from the
    final observation counted the end twice."""
    stopped_by_max_rounds = 0
    for seed in range(12):
        env = unolab.UnoEnv(mode="match", settings={"max_turns": 25, "max_rounds": 3})
        env.reset(seed=seed)
        done = False
        while not done:
            legal = np.flatnonzero(env.action_masks())
            _, reward, terminated, truncated, info = env.step(int(legal[0]))
            done = terminated or truncated
        if info["winner"] is not None:
            assert terminated and not truncated, (seed, info)
            assert reward in (1.0, -1.0)
            # With 25 turns a round, most rounds run out of turns, the last
            # of a match stopped by max_rounds among them.
            stopped_by_max_rounds += info["rounds"] == 3
        else:
            assert reward == 0.0
    assert stopped_by_max_rounds > 0
    # A round game cut by the turn limit is still truncated, with no winner.
    env = unolab.UnoEnv(settings={"max_turns": 6})
    env.reset(seed=1)
    done = False
    while not done:
        _, reward, terminated, truncated, info = env.step(int(np.flatnonzero(env.action_masks())[0]))
        done = terminated or truncated
    assert truncated and not terminated and info["winner"] is None and reward == 0.0


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(") ", 1)[1][0] != "Z"
    except FileNotFoundError:
        return False


def _gone(pid: int, wait: float = 5.0) -> bool:
    import time

    t = time.monotonic()
    while time.monotonic() - t < wait:
        if not _alive(pid):
            return True
        time.sleep(0.02)
    return False


@pytest.mark.parametrize("kind", ["UnoEnv", "VecEnv"])
def test_close_ends_the_programs_and_refuses_later_calls(kind, tmp_path):
    """close() was documented as releasing nothing (and VecEnv had none):
    an ext: opponent's program ran on until the environment was
    garbage-collected."""
    pids = tmp_path / "pids"
    bot = f"ext:python3 {REPO / 'tests' / 'bots' / 'faulty.py'} ok 1 {pids}"
    if kind == "UnoEnv":
        env = unolab.UnoEnv(players=2, strategies=bot)
        env.reset(seed=1)
    else:
        env = unolab.VecEnv(2, players=2, learners=[0], strategies=bot)
    pid = int(pids.read_text().split()[0])
    assert _alive(pid)
    env.close()
    assert _gone(pid)
    with pytest.raises(RuntimeError, match="is closed"):
        env.reset(seed=1)
    env.close()


def test_a_step_interrupted_part_way_asks_for_a_reset():
    """A Ctrl-C after the core's step lost the step's reward and end: the
    next step said "the game is over". Every call now refuses until reset()."""
    env = unolab.UnoEnv(players=2)
    env.reset(seed=1)
    env._game = InterruptedAfterStep(env._game)
    with pytest.raises(KeyboardInterrupt):
        env.step(int(np.flatnonzero(env.action_masks())[0]))
    env._game = env._game._game
    with pytest.raises(RuntimeError, match=r"a step was stopped before it finished.*reset\(\) needs to be called"):
        env.step(0)
    env.reset(seed=1)
    env.step(int(np.flatnonzero(env.action_masks())[0]))


def test_a_path_strategy_is_a_preset_file_never_a_builtin_name(tmp_path, monkeypatch):
    """A pathlib.Path strategy without a separator or .toml was read as a
    name: ``Path("mycolor")`` was an unknown strategy though the file was
    there, and ``Path("first")`` played the built-in ``first``, not the
    file. A Path is a file, as a Path rule set always was."""
    import pathlib

    monkeypatch.chdir(tmp_path)
    preset = (REPO / "strategies" / "color.toml").read_text()
    for file in ("mycolor", "first"):
        (tmp_path / file).write_text(preset.replace('name = "color"', 'name = "fromfile"'))
        r = unolab.run([pathlib.Path(file), "random"], players=2, games=10, threads=1)
        assert [s["name"] for s in r["strategies"]] == ["fromfile", "random"]
    # The environments read the file too: a malformed one is refused.
    (tmp_path / "first").write_text("name = \n")
    for make in (
        lambda: unolab.UnoEnv(players=2, strategies=[pathlib.Path("first")]),
        lambda: unolab.VecEnv(2, players=2, learners=[0], strategies=pathlib.Path("first")),
    ):
        with pytest.raises(ValueError, match="first"):
            make()


def test_the_core_game_refuses_huge_integers_with_value_error():
    """env.game's methods raised OverflowError for an integer past their
    width (documented: every bad argument raises ValueError)."""
    env = unolab.UnoEnv(players=2)
    env.reset(seed=1)
    for call in (
        lambda: env.game.seat_observation(2**70),
        lambda: env.game.reset(-1),
        lambda: env.game.reset(2**64),
        lambda: env.game.reset(1, 2**200),
        lambda: env.game.step(2**70),
        lambda: env.game.step(-(2**70)),
        lambda: unolab._core.action_label(2**70),
    ):
        with pytest.raises(ValueError):
            call()
    v = unolab.VecEnv(2, players=2)
    for call in (lambda: v.render(2**70), lambda: v.render(-1)):
        with pytest.raises(ValueError):
            call()


def test_an_image_render_mode_says_how_to_do_without_it():
    # stable-baselines3's make_vec_env asks an id for "rgb_array" and goes on
    # without only on a TypeError: the ValueError says what to pass instead.
    with pytest.raises(ValueError, match=r"env_kwargs=\{'render_mode': None\}"):
        gymnasium.make("unolab/Uno-v0", render_mode="rgb_array")
    env = gymnasium.make("unolab/Uno-v0", render_mode=None)
    env.reset(seed=1)
    env.close()
