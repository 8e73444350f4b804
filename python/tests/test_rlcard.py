"""encoding="rlcard": RLCard's (4, 4, 15) planes and 61 actions, and random
play under the `rlcard` rule set against RLCard's own UNO."""

from __future__ import annotations

import math

import numpy as np
import pytest

import unolab
from unolab.encoding import RLCARD_ACTIONS, RLCARD_SHAPE, rlcard_action_label

from conftest import play_random


def test_the_action_labels_are_rlcards():
    assert RLCARD_ACTIONS == 61 and RLCARD_SHAPE == (4, 4, 15)
    assert rlcard_action_label(0) == "r-0"
    assert rlcard_action_label(12) == "r-draw_2"
    assert rlcard_action_label(28) == "g-wild"
    assert rlcard_action_label(59) == "y-wild_draw_4"
    assert rlcard_action_label(60) == "draw"
    with pytest.raises(ValueError, match="RLCard action"):
        rlcard_action_label(61)


def test_planes_and_mask_follow_the_hand_and_the_top_card(rng):
    env = unolab.env(rules="rlcard", encoding="rlcard")
    env.reset(seed=3)
    assert env.action_space("player_0").n == 61
    colors = "rgby"
    traits = [str(i) for i in range(10)] + ["skip", "reverse", "draw_2", "wild", "wild_draw_4"]
    steps = 0
    for agent in env.agent_iter(5000):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        p, m = obs["observation"], obs["action_mask"]
        assert p.shape == (4, 4, 15) and m.shape == (61,)
        assert np.all(p[0] + p[1] + p[2] == 1)
        assert p[3].sum() == 1
        legal = np.flatnonzero(m)
        assert len(legal) > 0
        top_c, top_t = np.argwhere(p[3] == 1)[0]
        for a in legal:
            if a == 60:
                # RLCard draws only when nothing can be played.
                assert len(legal) == 1
                continue
            c, t = divmod(int(a), 15)
            assert p[0, c, t] == 0, "a legal card is in the hand"
            if t < 13:
                assert c == top_c or t == top_t, f"{colors[c]}-{traits[t]} on the top card"
        with pytest.raises(ValueError):
            env.step(int(np.flatnonzero(m == 0)[0]))
        env.step(int(rng.choice(legal)))
        steps += 1
    assert steps > 5


def test_the_other_seat_sees_its_own_hand_and_no_mask():
    env = unolab.env(rules="rlcard", encoding="rlcard")
    env.reset(seed=1)
    other = [a for a in env.agents if a != env.agent_selection][0]
    o = env.observe(other)
    assert o["action_mask"].sum() == 0
    assert np.all(o["observation"][0] + o["observation"][1] + o["observation"][2] == 1)
    assert o["observation"][3].sum() == 1


def test_pettingzoo_api_test_passes_with_the_rlcard_encoding():
    from pettingzoo.test import api_test

    api_test(unolab.env(rules="rlcard", encoding="rlcard"), num_cycles=200)


@pytest.mark.parametrize(
    "rules, house, what",
    [
        ("classic", "stacking=same", "stacking"),
        ("classic", "stacking=cross", "stacking"),
        ("classic", "bluff_challenge", "a challenge"),
        ("classic", "seven_o", "a swap target"),
        ("classic", "jump_in", "jump-in"),
        ("cars3", "", "a swap target"),
    ],
)
def test_a_rule_set_asking_a_decision_rlcard_lacks_is_refused_at_construction(rules, house, what):
    """RLCard has no action for stacking, a challenge, a swap target or a
    jump-in: a rule set that asks one is refused when the environment is
    made, naming it, not in the middle of a game."""
    msg = f"the RLCard encoding has no action for {what}.*rule set '{rules}'"
    with pytest.raises(ValueError, match=msg):
        unolab.env(rules=rules, house=house, encoding="rlcard", players=2)
    with pytest.raises(ValueError, match=msg):
        unolab.UnoEnv(rules=rules, house=house, encoding="rlcard")
    with pytest.raises(ValueError, match=msg):
        unolab.VecEnv(4, rules=rules, house=house, encoding="rlcard")
    # The same rule set is fine with unolab's own encoding.
    unolab.env(rules=rules, house=house, players=2).reset(seed=1)


@pytest.mark.parametrize(
    "rules, cards",
    [
        ("h2o", "wild-downpour1, wild-downpour2"),
        ("lilo-stitch", "wild-ohana"),
    ],
)
def test_a_deck_with_cards_rlcard_lacks_is_refused_at_construction(rules, cards):
    """RLCard's deck has no Wild Downpour and no Wild Ohana: no plane would
    show one and no action could play it, so a hand holding one could never
    be emptied. Such a rule set is refused when the environment is made."""
    msg = (
        f"the RLCard encoding has no card {cards} (rule set '{rules}' deals it; "
        "RLCard's deck does not have it): use encoding=\"unolab\""
    )
    for make in (
        lambda: unolab.env(rules=rules, encoding="rlcard", players=2),
        lambda: unolab.UnoEnv(rules=rules, encoding="rlcard"),
        lambda: unolab.VecEnv(4, rules=rules, encoding="rlcard"),
    ):
        with pytest.raises(ValueError) as e:
            make()
        assert str(e.value) == msg


def test_bad_options_are_refused_and_rule_sets_rlcard_can_play_are_accepted(rng):
    with pytest.raises(ValueError, match="encoding"):
        unolab.env(encoding="tensor")
    # Classic and RLCard's own rules ask nothing RLCard lacks under their
    # defaults (no stacking, no challenge, no swap, no jump-in) and deal no
    # card it lacks: every game ends with a winner, none at the turn limit.
    for rules in ["classic", "rlcard"]:
        env = unolab.env(rules=rules, encoding="rlcard", players=2)
        for seed in range(20):
            env.reset(seed=seed)
            ended = {}
            for agent in env.agent_iter(200_000):
                obs, reward, term, trunc, _ = env.last()
                if term or trunc:
                    ended[agent] = (reward, trunc)
                    env.step(None)
                else:
                    env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            assert sorted(ended.values()) == [(-1, False), (1, False)], (rules, seed)


def _unolab_random(games: int, seed: int) -> tuple[np.ndarray, int]:
    """Game lengths (actions) and seat 0's wins, random legal actions."""
    env = unolab.env(rules="rlcard", encoding="rlcard")
    rng = np.random.default_rng(seed)
    lengths, wins = [], 0
    for g in range(games):
        env.reset(seed=seed * 100_000 + g)
        n = 0
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            n += 1
        lengths.append(n)
        wins += env.game.winner == 0
    return np.array(lengths), wins


def _rlcard_random(games: int, seed: int) -> tuple[np.ndarray, int]:
    rlcard = pytest.importorskip("rlcard")
    env = rlcard.make("uno", config={"seed": seed})
    rng = np.random.default_rng(seed)
    lengths, wins = [], 0
    for _ in range(games):
        state, player = env.reset()
        n = 0
        while not env.is_over():
            legal = list(state["legal_actions"].keys())
            state, player = env.step(int(rng.choice(legal)))
            n += 1
        lengths.append(n)
        wins += env.get_payoffs()[0] > 0
    return np.array(lengths), wins


def test_random_play_matches_rlcards_game_lengths_and_first_mover_win_rate():
    """Two-sample tests at fixed seeds: the mean and the quartiles of the game
    length (actions per game) and seat 0's win rate, unolab's `rlcard` rule
    set with encoding="rlcard" against RLCard's UNO, both with uniformly
    random legal actions. Every difference must be undetected at 0.1%
    (|z| < 3.29)."""
    n = 1500
    a_len, a_win = _unolab_random(n, seed=7)
    b_len, b_win = _rlcard_random(n, seed=7)
    se = math.sqrt(a_len.var(ddof=1) / n + b_len.var(ddof=1) / n)
    z_len = (a_len.mean() - b_len.mean()) / se
    p = (a_win + b_win) / (2 * n)
    z_win = (a_win / n - b_win / n) / math.sqrt(p * (1 - p) * 2 / n)
    # The quartiles: the share of each sample below the pooled quartile.
    pooled = np.concatenate([a_len, b_len])
    zs = []
    for q in (0.25, 0.5, 0.75):
        cut = np.quantile(pooled, q)
        pa, pb = (a_len <= cut).mean(), (b_len <= cut).mean()
        pp = (pa + pb) / 2
        zs.append((pa - pb) / math.sqrt(pp * (1 - pp) * 2 / n))
    msg = (
        f"unolab: mean length {a_len.mean():.1f}, seat 0 wins {a_win / n:.3f}; "
        f"RLCard: {b_len.mean():.1f}, {b_win / n:.3f}; z = {z_len:.2f}, {z_win:.2f}, "
        f"quartiles {[round(float(z), 2) for z in zs]}"
    )
    print(msg)
    assert abs(z_len) < 3.29, msg
    assert abs(z_win) < 3.29, msg
    assert all(abs(z) < 3.29 for z in zs), msg


def test_the_gymnasium_env_takes_the_rlcard_encoding(rng):
    from gymnasium.utils.env_checker import check_env

    # check_env steps actions drawn without the mask: with the sanction an
    # illegal play is the rules' wrong-card sanction instead of an error.
    check_env(unolab.UnoEnv(rules="rlcard", encoding="rlcard", illegal="sanction"))
    env = unolab.UnoEnv(rules="rlcard", encoding="rlcard", strategies="random")
    obs, info = env.reset(seed=2)
    assert obs.shape == (4, 4, 15) and env.action_space.n == 61
    done = False
    while not done:
        a = int(rng.choice(np.flatnonzero(env.action_masks())))
        obs, r, term, trunc, info = env.step(a)
        done = term or trunc
    assert r in (1.0, -1.0, 0.0)


def test_with_the_sanction_an_action_outside_the_mask_is_sanctioned_not_replaced():
    env = unolab.env(rules="rlcard", encoding="rlcard", illegal="sanction")
    env.reset(seed=5)
    agent = env.agent_selection
    obs = env.observe(agent)
    held = int(60 - obs["observation"][0].sum())  # colour-trait cells held
    bad = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    seat = env.agent_name_mapping[agent]
    before = env.game.seat_observation(seat).copy()
    env.step(bad)
    after = env.game.seat_observation(seat)
    # The wrong-card sanction: the card stays, the player draws.
    hand = unolab.section("hand")
    assert after[hand].sum() > before[hand].sum()
    assert held > 0


# ----- the batched environment with encoding="rlcard" ------------------------------


def _core_game(seed: int, index: int):
    """A core game driven as the AEC environment drives it with encoding="rlcard"."""
    g = unolab._core.Game("rlcard", [], [], 2, None, [], "round", "win", "raise", True)
    g.reset(seed, index)
    g.rlcard_settle()
    return g


def test_the_batch_plays_the_aec_envs_rlcard_games_step_by_step():
    """Slot i of VecEnv(n, encoding="rlcard") against the core game the AEC
    env drives (game i + j*n of the seed), and slot 0's first game against
    the AEC env itself: the same planes, masks, seats, rewards and ends for
    the same random legal actions (a seeded numpy generator)."""
    n, seed = 5, 41
    v = unolab.VecEnv(n, rules="rlcard", encoding="rlcard", seed=seed)
    assert v.obs.shape == (n, 4, 4, 15) and v.obs.dtype == np.float32
    assert v.mask.shape == (n, 61) and v.mask.dtype == np.int8
    aec = unolab.env(rules="rlcard", encoding="rlcard")
    aec.reset(seed=seed)
    aec_live = True
    games = [_core_game(seed, i) for i in range(n)]
    started = [1] * n
    rng = np.random.default_rng(2024)
    ended = 0
    for _ in range(5000):
        for i, g in enumerate(games):
            assert np.array_equal(v.obs[i], g.rlcard_observation())
            assert np.array_equal(v.mask[i], g.rlcard_mask())
            assert v.seat[i] == g.seat
        if aec_live:
            o = aec.observe(aec.agent_selection)
            assert aec.agent_selection == f"player_{v.seat[0]}"
            assert np.array_equal(v.obs[0], o["observation"])
            assert np.array_equal(v.mask[0], o["action_mask"])
        acts = v.random_actions(rng)
        assert all(v.mask[i, a] == 1 for i, a in enumerate(acts))
        v.step(acts)
        if aec_live:
            aec.step(int(acts[0]))
            assert np.array_equal(v.rewards[0], [aec.rewards[a] for a in aec.possible_agents])
            assert v.done[0] == (aec.terminations["player_0"] or aec.truncations["player_0"])
            if v.done[0]:
                assert v.winner[0] == (aec.game.winner if aec.game.winner is not None else -1)
                aec_live = False
        for i, g in enumerate(games):
            g.step_rlcard(int(acts[i]))
            assert np.array_equal(v.rewards[i], np.array(g.take_rewards(), dtype=np.float32))
            assert v.done[i] == g.is_over
            if g.is_over:
                assert v.winner[i] == (g.winner if g.winner is not None else -1)
                assert v.truncated[i] == g.truncated
                games[i] = _core_game(seed, i + started[i] * n)
                started[i] += 1
                ended += 1
        if ended >= 12:
            break
    assert ended >= 12 and not aec_live
    assert list(v.games_started) == started


def test_the_rlcard_batch_refuses_bad_actions_with_the_aec_envs_messages(rng):
    v = unolab.VecEnv(6, rules="rlcard", encoding="rlcard", seed=9)
    before = [v.obs.copy(), v.mask.copy(), v.seat.copy()]
    g = _core_game(9, 4)
    bad = int(np.flatnonzero(v.mask[4] == 0)[0])
    with pytest.raises(ValueError) as single:
        g.step_rlcard(bad)
    acts = v.random_actions(rng)
    acts[4] = bad
    with pytest.raises(ValueError) as batch:
        v.step(acts)
    assert str(batch.value) == f"game 4: {single.value}"
    assert "play (RLCard encoding)" in str(batch.value)
    acts[4] = 61
    with pytest.raises(ValueError, match=r"game 4: action 61 is not an RLCard action \(valid: 0 to 60\)"):
        v.step(acts)
    acts[4] = -1
    with pytest.raises(ValueError, match="game 4: action -1 is not an RLCard action"):
        v.step(acts)
    for x, y in zip([v.obs, v.mask, v.seat], before):
        assert np.array_equal(x, y)
    with pytest.raises(ValueError, match="unknown encoding 'planes' \\(valid: unolab, known, rlcard\\)"):
        unolab.VecEnv(2, encoding="planes")
    # With the sanction, an action outside the mask is the illegal play it names.
    s = unolab.VecEnv(6, rules="rlcard", encoding="rlcard", illegal="sanction", seed=9)
    acts[4] = bad
    s.step(acts)


def test_the_rlcard_batch_gives_the_same_arrays_twice():
    def play(seed: int) -> list[np.ndarray]:
        v = unolab.VecEnv(16, rules="rlcard", encoding="rlcard", seed=seed)
        rng = np.random.default_rng(5)
        seen = []
        for _ in range(400):
            v.step(v.random_actions(rng))
            seen += [v.obs.copy(), v.mask.copy(), v.rewards.copy(), v.done.copy(), v.winner.copy()]
        return seen

    a, b = play(3), play(3)
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    assert sum(int(d.sum()) for d in a[3::5]) > 10  # games ended and restarted
    c = play(4)
    assert not all(np.array_equal(x, y) for x, y in zip(a, c))


def test_a_decision_rlcard_lacks_is_refused_by_the_batch_before_any_game():
    with pytest.raises(ValueError, match="the RLCard encoding has no action for stacking"):
        unolab.VecEnv(64, house="stacking=same", encoding="rlcard", seed=1)


def _listed(text: str) -> list[tuple[int, str]]:
    """The (number, label) pairs of a render's line of legal actions."""
    import re

    (line,) = [l for l in text.splitlines() if l.startswith("legal actions:")]
    return [(int(a), label) for a, label in re.findall(r" (\d+) \(([^)]*)\)", line)]


@pytest.mark.parametrize("encoding", ["unolab", "rlcard"])
def test_render_lists_the_actions_step_takes(encoding, rng):
    label = rlcard_action_label if encoding == "rlcard" else unolab.action_label
    # AEC: along random games, the listed numbers are the mask's, and each
    # one is accepted by step from the same state (replayed from the seed).
    for seed in range(4):
        env = unolab.env(rules="rlcard", encoding=encoding, render_mode="ansi")
        env.reset(seed=seed)
        played = []
        for _ in range(6):
            if not env.agents:
                break
            listed = _listed(env.render())
            mask = env.observe(env.agent_selection)["action_mask"]
            assert [a for a, _ in listed] == list(np.flatnonzero(mask))
            assert all(l == label(a) for a, l in listed)
            for a, _ in listed:
                replay = unolab.env(rules="rlcard", encoding=encoding)
                replay.reset(seed=seed)
                for p in played:
                    replay.step(p)
                replay.step(a)
            played.append(int(rng.choice([a for a, _ in listed])))
            env.step(played[-1])
    # Gymnasium.
    g = unolab.UnoEnv(rules="rlcard", encoding=encoding, render_mode="ansi")
    for seed in range(4):
        g.reset(seed=seed)
        listed = [a for a, _ in _listed(g.render())]
        assert listed == list(np.flatnonzero(g.action_masks()))
        for a in listed:
            g.reset(seed=seed)
            g.step(a)
    # VecEnv: every game of the batch.
    v = unolab.VecEnv(4, rules="rlcard", encoding=encoding, seed=0)
    for i in range(4):
        assert [a for a, _ in _listed(v.render(i))] == list(np.flatnonzero(v.mask[i]))
