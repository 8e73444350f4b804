"""The batched environment: preallocated arrays rewritten in place, the same
games as the single-game core (game i + j*n of the seed in slot i), restarts,
rewards, illegal actions, one learner seat with strategies, bad input."""

from __future__ import annotations

import numpy as np
import pytest

import unolab
from unolab import _core


def arrays(v):
    return [v.obs, v.mask, v.seat, v.kind, v.rewards, v.done, v.truncated, v.winner]


@pytest.mark.parametrize("encoding", ["unolab", "known", "rlcard"])
def test_the_spaces_are_gymnasiums_single_and_batched(rng, encoding):
    """``single_observation_space`` and ``single_action_space`` are the
    single-game environment's; the batched ones stack them ``n`` times; every
    row of ``obs`` and every legal action lies in them as the games go on."""
    import gymnasium

    players = 2 if encoding == "rlcard" else 4
    v = unolab.VecEnv(16, players=players, seed=3, encoding=encoding)
    single = unolab.env(players=players, encoding=encoding).observation_space("player_0")["observation"]
    assert v.single_observation_space == single
    n_actions = 61 if encoding == "rlcard" else unolab.ACTIONS
    assert v.single_action_space == gymnasium.spaces.Discrete(n_actions)
    assert v.observation_space.shape == v.obs.shape
    assert v.action_space == gymnasium.spaces.MultiDiscrete(np.full(16, n_actions))
    assert v.observation_space is v.observation_space
    for _ in range(200):
        assert v.observation_space.contains(v.obs)
        assert all(v.single_observation_space.contains(row) for row in v.obs)
        actions = v.random_actions(rng)
        assert v.action_space.contains(actions)
        v.step(actions)


def test_shapes_dtypes_and_arrays_rewritten_in_place(rng):
    v = unolab.VecEnv(64, players=3, seed=1)
    spec = [
        ((64, unolab.OBS_LEN), np.float32),
        ((64, unolab.ACTIONS), np.int8),
        ((64,), np.int64),
        ((64,), np.int64),
        ((64, 3), np.float32),
        ((64,), np.bool_),
        ((64,), np.bool_),
        ((64,), np.int64),
    ]
    for a, (shape, dtype) in zip(arrays(v), spec):
        assert a.shape == shape and a.dtype == dtype and a.flags.c_contiguous
    pointers = [a.__array_interface__["data"][0] for a in arrays(v)]
    first = v.obs.copy()
    for _ in range(50):
        v.step(v.random_actions(rng))
    assert [a.__array_interface__["data"][0] for a in arrays(v)] == pointers
    assert all(x is y for x, y in zip(arrays(v), [v._core.obs, v._core.mask, v._core.seat, v._core.kind, v._core.rewards, v._core.done, v._core.truncated, v._core.winner]))
    assert not np.array_equal(first, v.obs)
    # Every game has a decision in hand whose mask is its legal set.
    assert (v.mask.sum(axis=1) >= 1).all()
    assert ((v.seat >= 0) & (v.seat < 3)).all()
    kinds = v.obs[:, unolab.section("decision")]
    assert np.array_equal(kinds.argmax(axis=1), v.kind)


@pytest.mark.parametrize("encoding", ["unolab", "rlcard"])
def test_legal_lists_the_mask_and_random_actions_pick_uniformly(rng, encoding):
    players = 2 if encoding == "rlcard" else 4
    v = unolab.VecEnv(48, players=players, seed=3, encoding=encoding)
    width = v.mask.shape[1]
    assert v.legal.shape == (48, width) and v.legal.dtype == np.int16
    assert v.legal_count.shape == (48,) and v.legal_count.dtype == np.int64
    counts = np.zeros(width, dtype=np.int64)
    seen_many = 0
    for _ in range(120):
        for i in range(v.n):
            want = np.flatnonzero(v.mask[i])
            c = v.legal_count[i]
            assert c == want.size >= 1
            assert np.array_equal(v.legal[i, :c], want)
            assert (v.legal[i, c:] == -1).all()
        seen_many += int((v.legal_count > 2).sum())
        acts = v.random_actions(rng)
        assert v.mask[np.arange(v.n), acts].all()
        v.step(acts)
    assert seen_many > 0
    # One game with a fixed legal set: the pick is uniform over it (a
    # chi-square test at a fixed seed).
    i = int(np.argmax(v.legal_count))
    legal = v.legal[i, : v.legal_count[i]]
    g = np.random.default_rng(11)
    draws = np.array([v.random_actions(g)[i] for _ in range(4000)])
    freq = np.array([(draws == a).sum() for a in legal])
    assert freq.sum() == 4000
    expected = 4000 / legal.size
    chi2 = ((freq - expected) ** 2 / expected).sum()
    # The 0.999 quantile of chi-square with legal.size - 1 degrees of
    # freedom (Wilson-Hilferty), with z = 3.09.
    df = legal.size - 1
    q = df * (1 - 2 / (9 * df) + 3.09 * (2 / (9 * df)) ** 0.5) ** 3
    assert df >= 2 and chi2 < q, (legal, freq, chi2, q)


def test_slot_i_plays_game_i_plus_j_n_of_the_seed(rng):
    # The batch against single games of the core with the same actions: slot
    # i's first game is game i of the seed, its second game i + n.
    n, seed = 4, 77
    v = unolab.VecEnv(n, players=2, house="seven_o", seed=seed)
    games = []
    for i in range(n):
        g = _core.Game("classic", ["seven_o"], [], 2, None, [], "round", "win", "raise", True)
        g.reset(seed, i)
        games.append(g)
    started = [1] * n
    finished = 0
    for _ in range(20_000):
        for i, g in enumerate(games):
            assert np.array_equal(v.obs[i], g.observation())
            assert np.array_equal(v.mask[i], g.mask())
            assert v.seat[i] == g.seat
        acts = v.random_actions(rng)
        v.step(acts)
        for i, g in enumerate(games):
            g.step(int(acts[i]))
            rewards = g.take_rewards()
            assert np.array_equal(v.rewards[i], np.array(rewards, dtype=np.float32))
            assert v.done[i] == g.is_over
            if g.is_over:
                assert v.winner[i] == (g.winner if g.winner is not None else -1)
                assert v.truncated[i] == g.truncated
                g.reset(seed, i + started[i] * n)
                started[i] += 1
                finished += 1
        if finished >= 6:
            break
    assert finished >= 6
    assert list(v.games_started) == started


def test_same_seed_and_actions_same_arrays(rng):
    a = unolab.VecEnv(32, players=4, house="stacking=cross,jump_in", seed=5)
    b = unolab.VecEnv(32, players=4, house="stacking=cross,jump_in", seed=5)
    for _ in range(300):
        acts = a.random_actions(rng)
        a.step(acts)
        b.step(acts)
        for x, y in zip(arrays(a), arrays(b)):
            assert np.array_equal(x, y)
    a.reset(6)
    b.reset(5)
    assert not np.array_equal(a.obs, b.obs)
    b.reset(6)
    assert np.array_equal(a.obs, b.obs)
    assert list(a.games_started) == [1] * 32


def test_games_restart_and_winners_are_paid(rng):
    v = unolab.VecEnv(128, players=3, seed=3)
    ended = 0
    for _ in range(3000):
        v.step(v.random_actions(rng))
        done = v.done
        # Rewards only at a game's end: +1 to the winner, -1/2 to the others.
        assert not v.rewards[~done].any()
        for i in np.flatnonzero(done):
            w = v.winner[i]
            if w >= 0:
                assert v.rewards[i, w] == 1.0
                assert np.isclose(v.rewards[i].sum(), 0.0)
            else:
                assert not v.rewards[i].any()
        ended += int(done.sum())
    assert ended > 50
    assert v.games_started.sum() == 128 + ended


def test_an_illegal_action_names_the_game_and_moves_nothing(rng):
    v = unolab.VecEnv(8, players=2, seed=1)
    before = [a.copy() for a in arrays(v)]
    acts = v.random_actions(rng)
    acts[5] = int(np.flatnonzero(v.mask[5] == 0)[0])
    with pytest.raises(ValueError, match=r"game 5: action \d+ is not legal for the \w+ decision"):
        v.step(acts)
    acts[5] = 81
    with pytest.raises(ValueError, match="game 5: action 81 is not an action"):
        v.step(acts)
    for x, y in zip(arrays(v), before):
        assert np.array_equal(x, y)
    with pytest.raises(ValueError, match="7 actions for 8 games"):
        v.step(acts[:7])
    # A wrong type is a TypeError, as in the AEC and Gym environments.
    with pytest.raises(TypeError, match="integers, got dtype float64"):
        v.step(acts.astype(np.float64))
    v.step(v.random_actions(rng).astype(np.int32))  # any integer dtype


def test_an_unsigned_action_past_int64_is_named_as_given(rng):
    v = unolab.VecEnv(4, players=2, seed=1)
    acts = v.random_actions(rng).astype(np.uint64)
    acts[2] = 2**63 + 5
    with pytest.raises(ValueError) as e:
        v.step(acts)
    assert str(e.value) == f"game 2: action {2**63 + 5} is not an action (valid: 0 to 80)"


def test_a_read_only_array_is_refused_not_a_panic(rng):
    """The batch writes every step into its arrays: one made read-only from
    Python is a ValueError naming it, and the batch is as it was."""
    v = unolab.VecEnv(4, players=2, seed=1)
    acts = v.random_actions(rng)
    before = [a.copy() for a in arrays(v)]
    v.obs.flags.writeable = False
    for call in (lambda: v.step(acts), lambda: v.reset(3)):
        with pytest.raises(ValueError) as e:
            call()
        assert str(e.value) == (
            "VecEnv.obs was made read-only (flags.writeable = False): the batch "
            "writes every step into its arrays; keep a read-only view of a copy "
            "instead (obs.copy())"
        )
    for x, y in zip(arrays(v), before):
        assert np.array_equal(x, y)
    v.obs.flags.writeable = True
    v.step(acts)


def test_overwriting_legal_count_does_not_break_the_batch(rng):
    """``legal_count`` is an output: a value written into it from Python is
    not read back (it once sized a slice: a panic)."""
    v = unolab.VecEnv(4, players=2, seed=1)
    w = unolab.VecEnv(4, players=2, seed=1)
    for _ in range(30):
        acts = v.random_actions(rng)
        v.legal_count[:] = 10**6
        v.legal[:, -1] = 7
        v.step(acts)
        w.step(acts)
        assert np.array_equal(v.legal_count, w.legal_count)
        assert np.array_equal(v.legal[:, :-1], w.legal[:, :-1])
        assert np.array_equal(v.obs, w.obs)


@pytest.mark.parametrize("gib", [3, 6])
def test_a_batch_too_large_for_memory_is_a_memory_error(gib):
    """A batch the allowed size admits but memory does not raises
    MemoryError: the interpreter is not aborted. Run in a child process whose
    address space is limited to 3 GB, where the steppers of 2**20 games alone
    need about 4 GB (about 9 GB in all), and to 6 GB, where the steppers'
    array fits but what they allocate does not (that aborted)."""
    import subprocess
    import sys

    code = (
        "import resource, unolab\n"
        f"resource.setrlimit(resource.RLIMIT_AS, ({gib} << 30, {gib} << 30))\n"
        "try:\n"
        "    unolab.VecEnv(2**20)\n"
        "except MemoryError as e:\n"
        "    print('MemoryError:', e)\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("MemoryError: 1048576 games do not fit in memory (about "), r.stdout
    # The figure is the docstring's: about 9 KB a game, 9216 MB for 2**20.
    assert r.stdout.rstrip().endswith("about 9216 MB, some 9 KB a game): use a smaller batch"), r.stdout


def test_the_sanction_in_a_batch(rng):
    v = unolab.VecEnv(16, players=2, illegal="sanction", settings={"wrong_card_penalty": 3}, seed=2)
    # Drive every game to a play decision, then play a card it may not.
    for _ in range(50):
        if (v.kind == 0).all():
            break
        acts = v.random_actions(rng)
        v.step(acts)
    playing = np.flatnonzero(v.kind == 0)
    assert playing.size > 0
    sizes = v.obs[:, unolab.section("hand_sizes")][:, 0].copy()
    seats = v.seat.copy()
    acts = v.random_actions(rng)
    for i in playing:
        acts[i] = int(np.flatnonzero(v.mask[i, : unolab.KINDS] == 0)[0])
    v.step(acts)
    # The sanctioned seat drew 3 and its turn ended: the other seat decides
    # and sees it one place after itself with 3 more cards.
    for i in playing:
        assert not v.done[i]
        assert v.seat[i] != seats[i]
        assert v.obs[i, unolab.section("hand_sizes")][1] == sizes[i] + 3


def test_one_learner_seat_against_strategies(rng):
    v = unolab.VecEnv(64, players=3, learners=[2], strategies=["color", "random"], seed=4)
    assert v.learners == [2]
    wins = games = 0
    for _ in range(2000):
        assert (v.seat == 2).all()
        v.step(v.random_actions(rng))
        d = v.done
        games += int(d.sum())
        wins += int((v.winner[d] == 2).sum())
        assert np.allclose(v.rewards[d, 2], np.where(v.winner[d] == 2, 1.0, np.where(v.winner[d] >= 0, -0.5, 0.0)))
    assert games > 30 and 0 <= wins < games


def test_render_of_a_game():
    v = unolab.VecEnv(3, players=2, seed=1)
    assert "decides" in v.render(2)
    with pytest.raises(ValueError, match="game 3 is not in the batch"):
        v.render(3)


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        (dict(n=0), ValueError, "0 games is not a batch size"),
        (dict(n=2, players=12), ValueError, "12 players is not supported"),
        (dict(n=2, learners=[0], strategies=None), ValueError, "give strategies for them"),
        (dict(n=2, strategies=["random"]), ValueError, "the learner plays every seat"),
        (dict(n=2, learners=[0, 0]), ValueError, "given to the learner twice"),
        (dict(n=2, learners=[]), ValueError, "no learner seat"),
        (dict(n=2, seed=-1), ValueError, "not an unsigned 64-bit integer"),
    ],
)
def test_bad_input(kwargs, error, message):
    with pytest.raises(error, match=message):
        unolab.VecEnv(**kwargs)


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        (dict(n=2.7), TypeError, "n \\(the number of games\\) is an integer, got 2.7"),
        (dict(n=-1), ValueError, r"-1 games is not a batch size \(valid: 1 to 16777216\)"),
        (dict(n=2**64), ValueError, r"games is not a batch size \(valid: 1 to 16777216\)"),
        (dict(n=2, players=-1), ValueError, r"-1 players is not supported \(valid: 2 to 10\)"),
        (dict(n=2, players=2.5), TypeError, "players is an integer"),
        (dict(n=2, learners=[0.5], strategies=["random"]), TypeError, "a learner seat is an integer"),
        (dict(n=2, learners=[-1], strategies=["random"]), ValueError, r"seat -1 is not a seat .*\(valid: 0 to 1\)"),
        (dict(n=2, learners="0", strategies=["random"]), TypeError, "learners is a list of seats"),
        (dict(n=2, ask_forced="False"), TypeError, "ask_forced is True or False"),
        (dict(n=2, seed=1.5), TypeError, "a seed is an integer"),
    ],
)
def test_wrong_types_and_huge_values_are_refused_not_coerced(kwargs, error, message):
    with pytest.raises(error, match=message):
        unolab.VecEnv(**kwargs)


def test_render_checks_the_game_number():
    v = unolab.VecEnv(4, players=2, seed=1)
    with pytest.raises(ValueError, match=r"game -1 is not in the batch \(valid: 0 to 3\)"):
        v.render(-1)
    with pytest.raises(ValueError, match="is not in the batch"):
        v.render(2**64)
    with pytest.raises(TypeError, match="an integer"):
        v.render(1.5)
    assert v.render(np.int64(3)) == v.render(3)


def test_a_reset_without_a_seed_draws_a_new_master_seed():
    v = unolab.VecEnv(4, players=2, seed=7)
    first = v.obs.copy()
    v.reset()
    # It used to restart master seed 0 every time, replaying the same games.
    drawn = int(np.random.default_rng(7).integers(0, 2**63))
    assert v.seed == drawn
    v.reset()
    assert v.seed not in (0, 7, drawn)
    again = unolab.VecEnv(4, players=2, seed=7)
    again.reset()
    assert again.seed == drawn  # reproducible from the last seeded reset
    v.reset(7)
    assert v.seed == 7 and np.array_equal(v.obs, first)
    assert unolab.VecEnv(2, seed=None).seed != unolab.VecEnv(2, seed=None).seed


def test_random_actions_needs_a_generator():
    v = unolab.VecEnv(2)
    for bad in (None, 5, np.random.RandomState(0)):
        with pytest.raises(TypeError, match=r"rng is a numpy.random.Generator \(np.random.default_rng\(seed\)\), got"):
            v.random_actions(bad)
    assert v.random_actions(np.random.default_rng(1)).shape == (2,)


def test_the_memory_a_game_takes_is_the_documented_figure():
    """VecEnv's docstring (about 9 KB a game, 8.5 to 10 KB) and the
    MemoryError's figure (9 KB a game) against what a batch takes."""
    import os
    import subprocess
    import sys

    if not os.path.exists("/proc/self/statm"):
        pytest.skip("needs /proc/self/statm to measure the resident memory")
    assert "about 9 KB, 8.5 KB" in unolab.VecEnv.__doc__
    code = """
import os, unolab
def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
unolab.VecEnv(2, players=PLAYERS)
n = 1 << 14
before = rss()
v = unolab.VecEnv(n, players=PLAYERS)
print((rss() - before) / n)
"""
    for players in (2, 10):
        out = subprocess.run([sys.executable, "-c", code.replace("PLAYERS", str(players))],
                             capture_output=True, text=True, check=True)
        per_game = float(out.stdout)
        assert 7.5 * 1024 < per_game < 11 * 1024, (players, per_game)


@pytest.mark.parametrize("encoding", ["unolab", "known", "rlcard"])
def test_final_obs_is_each_seats_view_of_the_game_that_ended(rng, encoding):
    # Autoreset shows the next game in obs; final_obs keeps the ended one's
    # last state as every seat sees it, for truncated games to bootstrap
    # from. Checked against single games of the core stepped alike.
    rl = encoding == "rlcard"
    n, seed, players = 3, 41, 2 if rl else 3
    rules = "rlcard" if rl else "classic"
    settings = {"max_turns": 12}
    v = unolab.VecEnv(n, rules=rules, players=players, settings=settings, seed=seed, encoding=encoding, final_obs=True)
    assert unolab.VecEnv(n, players=players).final_obs is None
    assert v.final_obs.shape == (n, players) + v.obs.shape[1:]
    assert v.final_obs.dtype == np.float32 and not v.final_obs.any()
    known = encoding == "known"
    games, started = [], [0] * n

    def start(i):
        # The next game of slot i, as the batch starts it (skipping games
        # that end before any decision).
        index = games[i].start(seed, i + started[i] * n, rl)
        started[i] = (index - i) // n + 1

    for i in range(n):
        games.append(_core.Game(rules, [], ["max_turns=12"], players, None, [], "round", "win", "raise", True))
        start(i)
    ended = truncated = 0
    for _ in range(400):
        acts = v.random_actions(rng)
        v.step(acts)
        for i, g in enumerate(games):
            if rl:
                g.step_rlcard(int(acts[i]))
            else:
                g.step(int(acts[i]))
            assert v.done[i] == g.is_over
            if not g.is_over:
                continue
            for s in range(players):
                want = g.rlcard_observation(s) if rl else g.seat_observation(s, known)
                assert np.array_equal(v.final_obs[i, s], want), (i, s)
            # Not the next game's first decision, which obs shows.
            assert not np.array_equal(v.final_obs[i, v.seat[i]], v.obs[i])
            ended += 1
            truncated += int(v.truncated[i])
            start(i)
    assert list(v.games_started) == started
    assert ended >= 10 and truncated >= 5, (ended, truncated)
    v.reset(seed)
    assert not v.final_obs.any()


def test_a_batch_that_stopped_on_an_error_refuses_steps_until_a_reset(tmp_path, rng):
    """A strategy that fails mid-step leaves the batch part stepped (the games
    before it moved, the rest did not): stepping on used to move some games
    and then blame "the game is over". Every step is now refused until a
    reset."""
    import sys
    from pathlib import Path

    simple = Path(__file__).resolve().parents[2] / "bots" / "simple.py"
    dying = tmp_path / "dying.py"
    # bots/simple.py that exits after its sixth decision.
    dying.write_text(
        simple.read_text().replace(
            'reply = {"id": msg["id"], "answer": decide(msg)}',
            'reply = {"id": msg["id"], "answer": decide(msg)}\n'
            '            globals()["n"] = globals().get("n", 0) + 1\n'
            '            if n > 6:\n'
            '                sys.exit(3)',
        )
    )
    v = unolab.VecEnv(3, learners=[0], strategies=[f"ext:{sys.executable} {dying}"], seed=1)
    with pytest.raises(RuntimeError, match="exited"):
        for _ in range(200):
            v.step(v.random_actions(rng))
    before = [a.copy() for a in arrays(v)]
    with pytest.raises(RuntimeError, match=r"stopped on an error .*reset\(\) needs to be called before step\(\)"):
        v.step(v.random_actions(rng))
    # The refused step moved nothing.
    for a, b in zip(before, arrays(v)):
        np.testing.assert_array_equal(a, b)
    # A reset with a strategy that answers starts the batch again; the dying
    # program is started anew with it, so a reset goes through.
    v.reset(seed=2)
    v.step(v.random_actions(rng))
