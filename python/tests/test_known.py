"""The known-cards encoding (``encoding="known"``): the engine's features,
then what the seat knows of each other hand (``KNOWN_LEN`` values). The same
features as ``encoding="unolab"`` before the section, the same section in the
batch and in a single game; after a seven-o swap each of the two seats knows
the other's whole hand; never more cards known in a hand than it holds, and
nothing known where nothing was shown."""

from __future__ import annotations

import numpy as np
import pytest

import unolab
from unolab import _core
from unolab.encoding import (
    DECISION_KINDS,
    KNOWN_CLASSES,
    KNOWN_LEN,
    MAX_PLAYERS,
    OBS_LEN,
    OBS_LEN_KNOWN,
    known_section,
    observation_bounds,
    section,
)


def by_class(obs: np.ndarray) -> np.ndarray:
    """The cards of the observing seat's hand by ``KNOWN_CLASSES``, from its ``hand`` section."""
    hand = obs[section("hand")]
    colours = [hand[c * 13 : (c + 1) * 13].sum() for c in range(4)]
    return np.array(colours + [hand[52:].sum()], dtype=np.float32)


def check_section(obs: np.ndarray, players: int) -> bool:
    """Checks one observation's section against its features; True when it knows a card."""
    assert obs.shape == (OBS_LEN_KNOWN,)
    known = obs[OBS_LEN:]
    assert (known >= 0).all() and (known == np.round(known)).all()
    sizes = obs[section("hand_sizes")]
    for k in range(1, MAX_PLAYERS):
        counts = obs[known_section(k)]
        if k >= players:
            assert not counts.any(), f"{k} places after, past the table"
        else:
            assert counts.sum() <= sizes[k], "more cards known than the hand holds"
    return bool(known.any())


def test_the_section_is_laid_out_after_the_features():
    assert (KNOWN_LEN, OBS_LEN_KNOWN) == (45, OBS_LEN + 45)
    assert KNOWN_CLASSES == ("red", "yellow", "green", "blue", "wild")
    assert known_section(1) == slice(OBS_LEN, OBS_LEN + 5)
    assert known_section(MAX_PLAYERS - 1).stop == OBS_LEN_KNOWN
    for bad in (0, MAX_PLAYERS):
        with pytest.raises(ValueError, match="places after is not a seat"):
            known_section(bad)
    low, high = observation_bounds(108, known=True)
    plain_low, plain_high = observation_bounds(108)
    assert low.shape == high.shape == (OBS_LEN_KNOWN,)
    assert np.array_equal(low[:OBS_LEN], plain_low) and np.array_equal(high[:OBS_LEN], plain_high)
    assert (low[OBS_LEN:] == 0).all() and (high[OBS_LEN:] == 108).all()


def test_the_batch_gives_the_features_then_the_section_and_single_games_agree(rng):
    # The batch keeps each decision's section; a single game of the core
    # reads its first by replaying the turn, then keeps them too. Slot i's
    # first game is game i of the seed.
    n, players, seed = 6, 4, 5
    house = "seven_o,bluff_challenge"
    v = unolab.VecEnv(n, players=players, house=house, seed=seed, encoding="known")
    w = unolab.VecEnv(n, players=players, house=house, seed=seed)
    assert v.encoding == "known" and v.obs.shape == (n, OBS_LEN_KNOWN)
    games = []
    for i in range(n):
        g = _core.Game("classic", house.split(","), [], players, None, [], "round", "win", "raise", True)
        g.reset(seed, i)
        games.append(g)
    first_game = [True] * n
    rows = knowing = 0
    steps = 0
    while any(first_game) and steps < 100_000:
        steps += 1
        assert np.array_equal(v.obs[:, :OBS_LEN], w.obs)
        assert np.array_equal(v.mask, w.mask)
        for i, g in enumerate(games):
            if first_game[i]:
                assert np.array_equal(v.obs[i], g.observation(known=True))
            knowing += check_section(v.obs[i], players)
            rows += 1
        acts = v.random_actions(rng)
        v.step(acts)
        w.step(acts)
        for i, g in enumerate(games):
            if first_game[i]:
                g.step(int(acts[i]))
                first_game[i] = not v.done[i]
    assert not any(first_game), "every slot finished its first game"
    assert rows == steps * n
    assert knowing > 200, f"{knowing} of {rows} decisions knew a card"


def test_after_a_seven_o_swap_each_seat_knows_the_others_whole_hand(rng):
    # The swap comes after the target is named and the swapper's UNO call, so
    # the hands are checked at the next decision of another kind.
    env = unolab.env(players=2, house="seven_o", encoding="known")
    target, uno = DECISION_KINDS.index("target"), DECISION_KINDS.index("uno")
    swaps = 0
    for seed in range(40):
        env.reset(seed=seed)
        swapped = False
        for agent in env.agent_iter(100_000):
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            kind = obs["observation"][section("decision")].argmax()
            if swapped and kind != uno:
                a, b = (env.observe(p)["observation"] for p in env.possible_agents)
                assert np.array_equal(a[known_section(1)], by_class(b))
                assert np.array_equal(b[known_section(1)], by_class(a))
                swapped = False
                swaps += 1
            swapped = swapped or kind == target
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert swaps >= 20, swaps


def test_nothing_is_known_where_nothing_was_shown(rng):
    # Classic without seven-o, Wild Swap or challenges: no hand is ever shown.
    v = unolab.VecEnv(16, players=3, seed=9, encoding="known")
    for _ in range(500):
        assert not v.obs[:, OBS_LEN:].any()
        v.step(v.random_actions(rng))


def test_the_gymnasium_environment_gives_the_section_in_its_space(rng):
    known = unolab.UnoEnv(players=3, house="seven_o", strategies="random", encoding="known")
    plain = unolab.UnoEnv(players=3, house="seven_o", strategies="random")
    assert known.observation_space.shape == (OBS_LEN_KNOWN,)
    knowing = 0
    for seed in range(20):
        o1, i1 = known.reset(seed=seed)
        o2, _ = plain.reset(seed=seed)
        done = False
        while True:
            assert known.observation_space.contains(o1)
            assert np.array_equal(o1[:OBS_LEN], o2)
            knowing += check_section(o1, 3)
            if done:
                break
            a = int(rng.choice(np.flatnonzero(i1["action_mask"])))
            o1, _, t1, u1, i1 = known.step(a)
            o2, _, t2, u2, _ = plain.step(a)
            assert (t1, u1) == (t2, u2)
            done = t1 or u1
    assert knowing > 20, knowing
