"""The PettingZoo AEC environment: PettingZoo's own API and seed tests for
every rule set, house-rule mixes and table sizes; masks, illegal actions,
rewards, observations of every seat, rendering, bad input."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

import unolab
from unolab.pettingzoo import raw_env

from conftest import REPO, InterruptedAfterStep, play_random

# (rules, house, players, extra): every rule set, 2, 3, 4 and 10 players,
# house-rule mixes, a match with points.
TABLES = [
    ("classic", None, 2, {}),
    ("h2o", None, 3, {}),
    ("lilo-stitch", None, 4, {}),
    ("cars3", None, 10, {}),
    ("classic", "stacking=same,seven_o", 4, {}),
    ("classic", "stacking=cross,jump_in,bluff_challenge", 3, {}),
    ("cars3", "draw_to_match,force_play", 2, {}),
    ("h2o", "seven_o,jump_in,stacking=same", 10, {}),
    ("lilo-stitch", "bluff_challenge", 3, {"mode": "match", "reward": "points", "settings": {"target": 150}}),
    ("cars3", "seven_o,bluff_challenge", 4, {"encoding": "known"}),
]


def make(rules, house, players, extra):
    return unolab.env(rules=rules, house=house, players=players, **extra)


@pytest.mark.parametrize(
    "table", TABLES, ids=lambda t: f"{t[0]}-{t[1]}-{t[2]}p-{t[3].get('mode', 'round')}-{t[3].get('encoding', 'unolab')}"
)
def test_pettingzoo_api_test(table):
    with warnings.catch_warnings():
        # Both warnings come with any Dict observation holding an action mask
        # (PettingZoo's own classic games are exempted by name).
        warnings.filterwarnings("ignore", "Observation space for each agent probably")
        warnings.filterwarnings("ignore", "Observation is not a NumPy array")
        api_test(make(*table), num_cycles=5000)


@pytest.mark.parametrize("table", [TABLES[i] for i in (0, 1, 2, 3, 5, 8)], ids=lambda t: f"{t[0]}-{t[2]}p")
def test_pettingzoo_seed_test(table):
    seed_test(lambda: make(*table), num_cycles=200)


def test_the_mask_is_the_legal_set_and_the_agent_is_the_deciding_seat(rng):
    env = raw_env(players=4, house="stacking=same,seven_o,jump_in")
    env.reset(seed=5)
    kinds = set()
    for agent in env.agent_iter(5000):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        game = env.game
        assert agent == f"player_{game.seat}"
        mask = obs["action_mask"]
        assert mask.dtype == np.int8 and mask.shape == (unolab.ACTIONS,)
        assert sorted(np.flatnonzero(mask)) == game.legal()
        assert obs["observation"].dtype == np.float32
        assert obs["observation"].shape == (unolab.OBS_LEN,)
        decision = obs["observation"][unolab.section("decision")]
        assert decision.sum() == 1 and unolab.DECISION_KINDS[int(decision.argmax())] == game.kind
        kinds.add(game.kind)
        # Every other agent: its own view, no decision, an empty mask.
        for other in env.agents:
            if other != agent:
                o = env.observe(other)
                assert not o["action_mask"].any()
                assert not o["observation"][unolab.section("decision")].any()
        env.step(int(rng.choice(np.flatnonzero(mask))))
    assert {"play", "color", "uno"} <= kinds


def test_agents_share_the_observation_space_and_each_has_its_own_action_space():
    """As docs/python.md says: one observation space object, and equal
    Discrete(81) action spaces that are separate objects, so that seeding
    one agent's sampling leaves the others' alone."""
    env = raw_env(players=3)
    a, b, c = env.possible_agents
    assert env.observation_space(a) is env.observation_space(b) is env.observation_space(c)
    assert env.action_space(a) == env.action_space(b) == gymnasium.spaces.Discrete(81)
    assert env.action_space(a) is not env.action_space(b)
    env.action_space(a).seed(5)
    env.action_space(b).seed(5)
    first = env.action_space(a).sample()
    env.action_space(c).sample()
    assert env.action_space(b).sample() == first


def test_hands_seen_by_other_seats_are_their_own():
    env = raw_env(players=3)
    env.reset(seed=8)
    views = [env.observe(a)["observation"] for a in env.possible_agents]
    hand = unolab.section("hand")
    sizes = unolab.section("hand_sizes")
    for v in views:
        assert v[hand].sum() == v[sizes][0] == 7
    # Different seats hold different hands; everyone sees the same top card.
    assert not np.array_equal(views[0][hand], views[1][hand])
    top = unolab.section("top")
    assert all(np.array_equal(views[0][top], v[top]) for v in views)


@pytest.mark.parametrize("encoding", ["unolab", "known", "rlcard"])
def test_the_state_is_every_seats_observation_in_the_state_space(rng, encoding):
    """``state()`` (a centralised critic's view): each seat's observation,
    as ``observe`` gives it, stacked in seat order; inside ``state_space``
    as the game goes on."""
    env = raw_env(players=2 if encoding == "rlcard" else 3, encoding=encoding)
    env.reset(seed=4)
    steps = 0
    for agent in env.agent_iter(400):
        st = env.state()
        assert st.shape == env.state_space.shape and st.dtype == np.float32
        assert env.state_space.contains(st)
        for i, a in enumerate(env.possible_agents):
            assert np.array_equal(st[i], env.observe(a)["observation"])
        _, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        mask = env.observe(agent)["action_mask"]
        env.step(int(rng.choice(np.flatnonzero(mask))))
        steps += 1
    assert steps > 20
    if encoding != "rlcard":
        # Every hand is in it: each seat's row holds that seat's hand.
        hand = unolab.section("hand")
        rows = env.state()
        assert not np.array_equal(rows[0][hand], rows[1][hand])


def test_an_illegal_action_raises_the_core_message_and_changes_nothing():
    env = raw_env(players=2)
    env.reset(seed=1)
    before = env.observe(env.agent_selection)
    illegal = int(np.flatnonzero(before["action_mask"] == 0)[0])
    with pytest.raises(ValueError, match=r"action \d+ is not legal for the \w+ decision of seat \d"):
        env.step(illegal)
    with pytest.raises(ValueError, match="is not an action"):
        env.step(unolab.ACTIONS)
    after = env.observe(env.agent_selection)
    assert np.array_equal(before["observation"], after["observation"])
    assert np.array_equal(before["action_mask"], after["action_mask"])


def test_the_sanction_makes_an_illegal_play_draw_the_penalty():
    env = raw_env(players=2, illegal="sanction", settings={"wrong_card_penalty": 2})
    env.reset(seed=3)
    while env.game.kind != "play":
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    seat = env.game.seat
    obs = env.observe(env.agent_selection)
    held = obs["observation"][unolab.section("hand_sizes")][0]
    bad = int(np.flatnonzero(obs["action_mask"][: unolab.KINDS] == 0)[0])
    env.step(bad)
    mine = env.observe(f"player_{seat}")["observation"]
    assert mine[unolab.section("hand_sizes")][0] == held + 2


def test_rewards_go_to_the_winner_at_the_end(rng):
    for players in (2, 4):
        env = raw_env(players=players)
        env.reset(seed=11)
        totals = {a: 0.0 for a in env.possible_agents}
        for agent in env.agent_iter(100_000):
            obs, reward, term, trunc, _ = env.last()
            totals[agent] += reward
            if term or trunc:
                env.step(None)
            else:
                env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        winner = env.unwrapped.game.winner
        assert winner is not None
        assert totals[f"player_{winner}"] == pytest.approx(1.0)
        assert sum(totals.values()) == pytest.approx(0.0, abs=1e-6)


def test_points_are_handed_out_every_round_of_a_match(rng):
    env = raw_env(players=3, mode="match", reward="points", settings={"target": 200})
    env.reset(seed=4)
    seen = []
    for agent in env.agent_iter(200_000):
        obs, _, term, trunc, _ = env.last()
        seen += [r for r in env.rewards.values() if r != 0.0]
        if term or trunc:
            env.step(None)
        else:
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    game = env.unwrapped.game
    assert game.is_over and game.rounds >= 1
    assert max(game.totals) >= 200
    # Each reward is the shortest decimal of the engine's float32 (2.44,
    # not the widened 2.440000057220459).
    assert len(seen) >= 3
    assert all(type(r) is float and r == float(str(np.float32(r))) for r in seen), seen
    assert any(r != float(np.float32(r)) for r in seen), "some reward is no float32"


def test_a_truncated_round_truncates_every_agent(rng):
    env = raw_env(players=2, settings={"max_turns": 10})
    env.reset(seed=2)
    for agent in env.agent_iter(10_000):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            assert trunc and not term
            env.step(None)
        else:
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert env.unwrapped.game.truncated


def test_same_seed_same_game_and_seedless_resets_follow_the_seed(rng):
    a, b = raw_env(players=3), raw_env(players=3)
    a.reset(seed=9)
    b.reset(seed=9)
    assert np.array_equal(a.observe(a.agent_selection)["observation"], b.observe(b.agent_selection)["observation"])
    a.reset()
    b.reset()
    assert np.array_equal(a.observe(a.agent_selection)["observation"], b.observe(b.agent_selection)["observation"])
    b.reset(seed=10)
    assert not np.array_equal(a.observe(a.agent_selection)["observation"], b.observe(b.agent_selection)["observation"])


def test_render_shows_the_table_and_the_legal_actions():
    env = raw_env(players=3, render_mode="ansi")
    env.reset(seed=1)
    text = env.render()
    assert "seat 0 decides (color)" in text
    for a in env.game.legal():
        assert f"{a} ({unolab.action_label(a)})" in text
    assert "hand of seat 0:" in text and "top card:" in text
    # A wild start card's colour is not named yet (the table's red is no
    # colour a player would call); once named, it is shown.
    assert "top card: wild   colour: not named yet" in text
    env.step(63)  # name yellow (the render lists "63 (name yellow)")
    assert "top card: wild   colour: yellow" in env.render()


def test_a_rule_file_by_path():
    path = REPO / "src" / "engine" / "rulesets" / "h2o.toml"
    env = raw_env(rules=str(path), players=2)
    env.reset(seed=1)
    assert env.game.rules_name == raw_env(rules="h2o").game.rules_name


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        (dict(rules="nope"), ValueError, "unknown rule set 'nope'"),
        (dict(rules="/nonexistent/rules.toml"), FileNotFoundError, "cannot read rule-set file"),
        (dict(house="stacking"), ValueError, "stacking needs a mode"),
        (dict(house="target=100"), ValueError, "is a setting, not a house rule"),
        (dict(settings={"hand_size": "x"}), ValueError, "invalid value 'x' for setting 'hand_size'"),
        (dict(settings={"no_such": 1}), ValueError, "unknown setting 'no_such'"),
        (dict(players=11), ValueError, "11 players is not supported"),
        (dict(players=10, settings={"hand_size": 11}), ValueError, "hand size at most"),
        (dict(mode="game"), ValueError, "unknown mode 'game'"),
        (dict(reward="score"), ValueError, "unknown reward 'score'"),
        (dict(illegal="ignore"), ValueError, "unknown illegal-action handling"),
        (dict(mode="match", settings={"target": 0}), ValueError, "a match needs an end"),
        (dict(render_mode="rgb_array"), ValueError, "unknown render mode"),
        # quick play (rlcard's rules) ends a match after one round: a
        # target is never reached, and was ignored without a word.
        (dict(rules="rlcard", mode="match", settings={"target": 200}), ValueError,
         "quick = true ends a match after its first round, and target = 200"),
    ],
)
def test_bad_input_is_a_python_exception_with_the_core_message(kwargs, error, message):
    with pytest.raises(error, match=message):
        raw_env(**kwargs)


def test_calls_before_reset_are_refused():
    env = unolab.env(players=2)
    for call in (lambda: env.step(0), lambda: env.last(), lambda: env.observe("player_0"), lambda: env.agent_iter()):
        with pytest.raises(RuntimeError, match=r"reset\(\) needs to be called before"):
            call()
    env.reset(seed=1)
    env.last()


def test_settings_as_a_list_of_items_and_house_rules_as_a_list():
    env = raw_env(players=2, house=["seven_o", "stacking=same"], settings=["hand_size=5"])
    env.reset(seed=1)
    # Dealt 5 each; before the first decision only a start card can add cards.
    sizes = env.observe("player_0")["observation"][unolab.section("hand_sizes")][:2]
    assert sizes.min() == 5


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        (dict(players=2.5), TypeError, "players is an integer, got 2.5"),
        (dict(players=True), TypeError, "players is an integer"),
        (dict(players="2"), TypeError, "players is an integer"),
        (dict(players=-1), ValueError, r"-1 players is not supported \(valid: 2 to 10\)"),
        (dict(players=2**64), ValueError, r"players is not supported \(valid: 2 to 10\)"),
        (dict(ask_forced="False"), TypeError, "ask_forced is True or False"),
        (dict(ask_forced=0), TypeError, "ask_forced is True or False"),
        (dict(house={"stacking": "same"}), TypeError, "a comma list .* or a list of items"),
        (dict(settings=5), TypeError, "settings are a dict"),
    ],
)
def test_wrong_types_and_huge_values_are_refused_not_coerced(kwargs, error, message):
    with pytest.raises(error, match=message):
        raw_env(**kwargs)


def test_numpy_integers_and_bools_are_accepted():
    env = raw_env(players=np.int64(3), ask_forced=np.bool_(True))
    env.reset(seed=np.uint64(4))
    obs, *_ = env.last()
    env.step(np.int64(np.flatnonzero(obs["action_mask"])[0]))
    assert env.game.players == 3


@pytest.mark.parametrize(
    "action, error, message",
    [
        (35.9, TypeError, "an action is an integer, got 35.9"),
        ("59", TypeError, "an action is an integer"),
        (True, TypeError, "an action is an integer"),
        (2**70, ValueError, r"is not an action \(valid: 0 to 80\)"),
        (-1, ValueError, r"action -1 is not an action \(valid: 0 to 80\)"),
    ],
)
def test_a_step_takes_an_integer_action_only(action, error, message):
    env = raw_env(players=2)
    env.reset(seed=1)
    before = env.observe(env.agent_selection)
    with pytest.raises(error, match=message):
        env.step(action)
    after = env.observe(env.agent_selection)
    assert np.array_equal(before["observation"], after["observation"])
    rl = raw_env(players=2, encoding="rlcard")
    rl.reset(seed=1)
    with pytest.raises(error, match=message.replace("an action", "an RLCard action").replace("80", "60")
                       if error is ValueError else message):
        rl.step(action)


def test_sanction_under_strict_rules_is_refused():
    # strict = true makes an illegal action an error of the engine: it
    # cannot also be sanctioned (the game used to be left stuck mid-step).
    for make in (raw_env, unolab.UnoEnv):
        with pytest.raises(ValueError, match="contradicts the rules' strict = true"):
            make(settings={"strict": True}, illegal="sanction")
    with pytest.raises(ValueError, match="contradicts the rules' strict = true"):
        unolab.VecEnv(2, settings=["strict=true"], illegal="sanction")
    raw_env(settings={"strict": True})  # with illegal="raise" it is fine


class _FailingGame:
    """A core game whose step stops on an error of the engine."""

    def __init__(self, game):
        self._game = game

    def __getattr__(self, name):
        return getattr(self._game, name)

    def step(self, action):
        raise RuntimeError("the engine stopped (test)")

    step_rlcard = step


def test_an_engine_error_mid_step_ends_the_agent_loop():
    env = raw_env(players=2)
    env.reset(seed=1)
    env._game = _FailingGame(env._game)
    it = iter(env.agent_iter())
    next(it)
    obs, *_ = env.last()
    with pytest.raises(RuntimeError, match="the engine stopped"):
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    # The loop ends instead of offering the stuck agent again and again.
    with pytest.raises(StopIteration):
        next(it)
    for call in (lambda: env.step(0), lambda: env.last(), lambda: env.agent_iter()):
        with pytest.raises(RuntimeError, match=r"stopped on an error .*reset\(\) needs to be called"):
            call()
    env._game = env._game._game
    env.reset(seed=1)
    play_random(env, np.random.default_rng(0))


def test_render_before_reset_and_calls_after_the_end_are_refused(rng):
    env = raw_env(players=2, render_mode="ansi")
    with pytest.raises(RuntimeError, match=r"reset\(\) needs to be called before render\(\)"):
        env.render()
    env.reset(seed=1)
    assert "decides" in env.render()
    play_random(env, rng)
    assert not env.agents
    for call in (lambda: env.last(), lambda: env.step(None)):
        with pytest.raises(RuntimeError, match="every agent is done: reset"):
            call()


def test_the_submodules_are_reachable_from_the_package_alone():
    import subprocess
    import sys

    code = (
        "import unolab\n"
        "assert 'pettingzoo' in dir(unolab) and 'gym' in dir(unolab)\n"
        "e = unolab.pettingzoo.env(players=2)\n"
        "assert isinstance(e, unolab.pettingzoo.raw_env)\n"
        "assert unolab.gym.UnoEnv is unolab.UnoEnv\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_who_is_asked_tells_nothing_of_a_hand(rng):
    # With ask_forced (the default), the seat a draw card hits is asked its
    # stack answer, a seat that drew is asked about the drawn card, and every
    # other seat is asked about a jump-in, whether it has a choice or not:
    # then the one legal action is take / keep / decline. Without it those
    # questions never come, so being asked shows a choice.
    only = {"stack": [59], "play_drawn": [61], "jump_in": [80]}
    for ask in (True, False):
        forced = dict.fromkeys(only, 0)
        choices = dict.fromkeys(only, 0)
        drew, asked_after_draw = 0, 0
        for seed in range(30):
            env = raw_env(players=3, house="stacking=cross,jump_in", ask_forced=ask)
            env.reset(seed=seed)
            last = None
            for agent in env.agent_iter(100_000):
                obs, _, term, trunc, _ = env.last()
                if term or trunc:
                    env.step(None)
                    continue
                game = env.game
                if last is not None:
                    # The seat that drew for its turn is the next one asked.
                    drew += 1
                    asked_after_draw += agent == last and game.kind == "play_drawn"
                    last = None
                legal = game.legal()
                if game.kind in only:
                    if legal == only[game.kind]:
                        forced[game.kind] += 1
                    else:
                        assert set(only[game.kind]) < set(legal)
                        choices[game.kind] += 1
                action = int(rng.choice(legal))
                if game.kind == "play" and action == 59:
                    last = agent
                env.step(action)
        assert all(choices[k] > 0 for k in only), choices
        if ask:
            assert all(forced[k] > 20 for k in only), forced
            assert drew > 100 and asked_after_draw == drew, (drew, asked_after_draw)
        else:
            assert forced == dict.fromkeys(only, 0)
            assert 0 < asked_after_draw < drew


def test_a_step_interrupted_part_way_asks_for_a_reset():
    """A Ctrl-C between the core's step and the bookkeeping left
    agent_selection on the agent that had just played: last() gave it an
    empty mask and step() applied the next seat's action to it. Every call
    now refuses until reset()."""
    env = raw_env(players=3)
    env.reset(seed=1)
    obs, *_ = env.last()
    env._game = InterruptedAfterStep(env._game)
    with pytest.raises(KeyboardInterrupt):
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    env._game = env._game._game
    for call in (lambda: env.step(0), lambda: env.last(), lambda: env.observe("player_0")):
        with pytest.raises(RuntimeError, match=r"a step was stopped before it finished.*reset\(\) needs to be called"):
            call()
    env.reset(seed=1)
    play_random(env, np.random.default_rng(0))


def test_an_action_for_a_finished_agent_is_refused_and_leaves_the_env_usable(rng):
    """PettingZoo refuses an action other than None for an agent whose game
    is over; that refusal left the step marked as stopped part way."""
    env = raw_env(players=2)
    env.reset(seed=1)
    while True:
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            break
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    with pytest.raises(ValueError, match="only valid action is None"):
        env.step(0)
    env.step(None)
    env.last()


def test_an_illegal_action_leaves_the_env_usable():
    env = raw_env(players=2)
    env.reset(seed=1)
    obs, *_ = env.last()
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    with pytest.raises(ValueError):
        env.step(illegal)
    play_random(env, np.random.default_rng(0))


def test_close_refuses_later_calls():
    env = raw_env(players=2)
    env.reset(seed=1)
    env.close()
    # Python's own lookups get AttributeError, as they expect.
    assert not hasattr(env.game, "__deepcopy__")
    for call in (lambda: env.reset(seed=1), lambda: env.last(), lambda: env.game.seat):
        with pytest.raises(RuntimeError, match="the environment is closed"):
            call()
    env.close()


def test_the_end_of_the_game_marks_no_seat():
    """render() after the end marked seat 0 as the one deciding, whatever
    the learner's seat: no seat decides then."""
    env = raw_env(players=3, render_mode="ansi")
    env.reset(seed=1)
    play_random(env, np.random.default_rng(0))
    env2 = unolab.UnoEnv(players=3, seat=2, render_mode="ansi")
    env2.reset(seed=1)
    rng = np.random.default_rng(0)
    done = False
    while not done:
        _, _, term, trunc, _ = env2.step(int(rng.choice(np.flatnonzero(env2.action_masks()))))
        done = term or trunc
    for text in (env.game.render(), env2.render()):
        assert text.startswith("game over") and " > seat" not in text, text
