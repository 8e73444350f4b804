"""Python strategies at the other seats of the environments (``UnoEnv``,
``VecEnv``): they play as the same policy over the protocol does, their
exceptions and bad answers are raised again by the call that played them,
and a reset plays on."""

from __future__ import annotations

import sys

import gymnasium
import numpy as np
import pytest

import unolab
from conftest import REPO, Simple

HOUSE = "stacking=cross,seven_o,jump_in,bluff_challenge"
SIMPLE = f"ext:simple={sys.executable} {REPO / 'bots' / 'simple.py'}"


class Boom(unolab.Strategy):
    """Plays the first legal token; its ``fail_at``-th play raises."""

    def __init__(self, fail_at=5, answer=None):
        self.calls = 0
        self.fail_at = fail_at
        self.answer = answer

    def play(self, obs, legal):
        self.calls += 1
        if self.calls == self.fail_at:
            if self.answer is not None:
                return self.answer
            raise ZeroDivisionError("boom at play 5")
        return legal[0]


def trajectory(env, seeds):
    """Every observation and reward of the learner playing its first legal
    action through one game of each seed."""
    out = []
    for seed in seeds:
        obs, _ = env.reset(seed=seed)
        out.append(obs.copy())
        done = False
        while not done:
            a = int(np.flatnonzero(env.action_masks())[0])
            obs, r, term, trunc, _ = env.step(a)
            out.append((obs.copy(), r))
            done = term or trunc
    return out


def same(a, b):
    assert len(a) == len(b)
    for x, y in zip(a, b):
        if isinstance(x, tuple):
            assert np.array_equal(x[0], y[0]) and x[1] == y[1]
        else:
            assert np.array_equal(x, y)


def test_a_python_strategy_plays_in_the_environment_as_the_same_program_does():
    kw = dict(players=3, seat=1, house=HOUSE)
    seeds = range(6)
    a = trajectory(unolab.UnoEnv(strategies=[Simple(), "color"], **kw), seeds)
    b = trajectory(unolab.UnoEnv(strategies=[SIMPLE, "color"], **kw), seeds)
    same(a, b)
    # A class is instantiated for each of its seats, through
    # gymnasium.make too.
    c = trajectory(gymnasium.make("unolab/Uno-v0", strategies=[Simple, "color"], **kw).unwrapped, seeds)
    same(a, c)
    # A single object needs no list; it is cycled to every other seat.
    e = trajectory(unolab.UnoEnv(strategies=Simple, **kw), seeds)
    f = trajectory(unolab.UnoEnv(strategies=SIMPLE, **kw), seeds)
    same(e, f)
    # Another opponent plays other games: the strategy is not ignored.
    d = trajectory(unolab.UnoEnv(strategies=["random", "color"], **kw), seeds)
    assert len(d) != len(a) or any(
        not np.array_equal(x[0] if isinstance(x, tuple) else x, y[0] if isinstance(y, tuple) else y)
        for x, y in zip(a, d)
    )


def test_a_python_strategy_plays_in_a_batch_as_the_same_program_does():
    kw = dict(players=2, learners=[0], house=HOUSE, seed=3)
    a = unolab.VecEnv(4, strategies=Simple(), **kw)
    b = unolab.VecEnv(4, strategies=SIMPLE, **kw)
    done = 0
    for _ in range(300):
        assert np.array_equal(a.obs, b.obs) and np.array_equal(a.mask, b.mask)
        act = np.argmax(a.mask, axis=1).astype(np.int64)
        a.step(act)
        b.step(act)
        assert np.array_equal(a.rewards, b.rewards) and np.array_equal(a.done, b.done)
        done += int(a.done.sum())
    assert done >= 4
    b.close()


def test_a_python_strategys_exception_is_raised_by_the_step_and_a_reset_plays_on():
    boom = Boom()
    env = unolab.UnoEnv(players=2, strategies=boom)
    env.reset(seed=1)
    with pytest.raises(ZeroDivisionError, match="boom at play 5"):
        for _ in range(200):
            _, _, term, trunc, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
            if term or trunc:
                env.reset()
    assert boom.calls == 5
    # The step stopped part way: the next one is refused, saying why.
    with pytest.raises(RuntimeError, match="a strategy raised ZeroDivisionError: boom at play 5.*reset"):
        env.step(0)
    env.reset(seed=2)
    steps = 0
    while True:
        _, _, term, trunc, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
        steps += 1
        if term or trunc:
            break
    assert steps > 0 and boom.calls > 5


def play_games(env, seeds):
    """The learner plays its first legal action through a game of each seed."""
    for seed in seeds:
        env.reset(seed=seed)
        while True:
            _, _, term, trunc, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
            if term or trunc:
                break


def test_a_python_strategys_bad_answer_is_a_type_or_value_error():
    env = unolab.UnoEnv(players=2, strategies=Boom(fail_at=1, answer=5))
    with pytest.raises(TypeError, match=r"strategy 'Boom': play\(\) answered 5"):
        play_games(env, range(20))
    env = unolab.UnoEnv(players=2, strategies=Boom(fail_at=1, answer="no-such-card"))
    with pytest.raises(ValueError, match=r"play\(\) answered 'no-such-card'"):
        play_games(env, range(20))


def test_a_python_strategys_exception_in_a_batch_is_raised_and_a_reset_plays_on():
    boom = Boom()
    v = unolab.VecEnv(3, players=2, learners=[0], strategies=boom, seed=1)
    rng = np.random.default_rng(4)
    with pytest.raises(ZeroDivisionError, match="boom at play 5"):
        for _ in range(500):
            v.step(v.random_actions(rng))
    with pytest.raises(RuntimeError, match="reset"):
        v.step(v.random_actions(rng))
    v.reset(9)
    finished = 0
    for _ in range(400):
        v.step(v.random_actions(rng))
        finished += int(v.done.sum())
    assert finished >= 3 and boom.calls > 5


@pytest.mark.parametrize("bad", [5, object(), {"play": 1}])
def test_what_is_no_strategy_is_refused_before_any_game(bad):
    with pytest.raises(TypeError):
        unolab.UnoEnv(players=2, strategies=[bad])
    with pytest.raises(TypeError):
        unolab.VecEnv(2, players=2, learners=[0], strategies=[bad])


class Armed(unolab.Strategy):
    """Plays the first legal token; raises once armed."""

    armed = False

    def play(self, obs, legal):
        if self.armed:
            raise RuntimeError("armed")
        return legal[0]


def test_a_strategy_raising_as_a_batch_resets_counts_no_skipped_games():
    # Any error at a game's start counted as the 1,000 games skipped in a
    # row that end a batch: games_started read 1000.
    armed = Armed()
    v = unolab.VecEnv(8, players=2, learners=[0], strategies=armed, seed=1)
    armed.armed = True
    with pytest.raises(RuntimeError, match="armed"):
        v.reset(5)
    assert v.games_started.max() <= 1 and v.skipped == 0, v.games_started
    armed.armed = False
    v.reset(6)
    assert (v.games_started == 1).all()


class IterablePolicy(Simple):
    """A strategy that is also iterable (as a torch.nn.Sequential is)."""

    def __iter__(self):
        return iter([1, 2, 3])


def test_an_iterable_strategy_given_alone_is_one_strategy():
    env = unolab.UnoEnv(players=3, seat=0, strategies=IterablePolicy())
    obs, _ = env.reset(seed=3)
    assert env.game.seat == 0
