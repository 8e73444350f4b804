"""unolab.rlcard.RLCardAgent: an agent trained on RLCard at a seat of the lab.

The planes a seat's Observation gives (Observation.rlcard_planes) are the
AEC env's encoding="rlcard" planes at the same decisions; an RLCard agent
sees exactly RLCard's legal set (checked with RLCard's own rules code) and
plays runs to the end; results do not depend on the run or the threads."""

from __future__ import annotations

import numpy as np
import pytest

import unolab
from unolab.rlcard import RLCardAgent


class Highest:
    """A deterministic fake RLCard agent: the highest legal action number."""

    use_raw = False

    def eval_step(self, state):
        return max(state["legal_actions"]), {}


class Recording(RLCardAgent):
    """RLCardAgent that keeps, per decision, the seat's own planes
    (Observation.rlcard_planes), the state the agent got and its action."""

    def __init__(self, agent):
        super().__init__(agent, name="rec")
        self.seen = []

    def play(self, obs, legal):
        planes = obs.rlcard_planes()
        state, options = self.state(obs, legal)
        token = super().play(obs, legal)
        chosen = [a for a, (t, c) in options.items() if t == token]
        self.seen.append((obs.seat, planes, state, token, chosen))
        return token


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5, 6])
def test_observation_planes_are_the_aec_envs_at_the_same_decisions(seed):
    """A run's game 0 of a seed, both seats an RLCardAgent, replayed in the AEC
    env with encoding="rlcard" and the same seed: at every decision the agent
    was asked, the seat, the planes and the legal actions are the env's, and
    its actions end the env's game exactly when the records run out. The
    agent's highest action is a yellow wild whenever it holds one, so the
    colour a wild names is the action's (else the planes' top card would
    differ at the next decision). (The env also asks when drawing is the
    only legal action; a strategy is not asked then, so those steps are the
    env's draw.)"""
    rec = Recording(Highest())
    unolab.run([rec], players=2, games=1, rules="rlcard", seed=seed, threads=1, fixed_seats=True)
    assert len(rec.seen) > 3
    env = unolab.env(rules="rlcard", encoding="rlcard")
    env.reset(seed=seed)
    i = 0
    for agent in env.agent_iter(10_000):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        if list(legal) == [60]:
            env.step(60)
            continue
        seat, planes, state, token, chosen = rec.seen[i]
        assert env.agent_name_mapping[agent] == seat
        assert planes.shape == (4, 4, 15) and planes.dtype == np.float32
        assert np.array_equal(planes, obs["observation"]), f"decision {i}"
        assert np.array_equal(state["obs"], obs["observation"])
        assert list(state["legal_actions"]) == list(legal)
        a = max(state["legal_actions"])
        assert a in chosen
        env.step(int(a))
        i += 1
    assert i == len(rec.seen)
    assert env.game.is_over


def _rlcard_legal(raw_hand, target):
    """RLCard's own legal actions (rlcard.games.uno.round.UnoRound) of a hand
    and target given as labels."""
    rlcard = pytest.importorskip("rlcard")
    from rlcard.games.uno.card import UnoCard
    from rlcard.games.uno.player import UnoPlayer
    from rlcard.games.uno.round import UnoRound

    def card(label):
        color, trait = label.split("-", 1)
        kind = "wild" if trait.startswith("wild") else "number" if trait.isdigit() else "action"
        return UnoCard(kind, color, trait)

    rs = np.random.RandomState(0)
    r = UnoRound(None, 2, rs)
    r.target = card(target)
    p = UnoPlayer(0, rs)
    p.hand = [card(c) for c in raw_hand]
    assert rlcard is not None
    return r.get_legal_actions([p], 0)


def test_rlcards_random_agent_plays_runs_and_sees_rlcards_legal_set():
    rlcard = pytest.importorskip("rlcard")
    from rlcard.agents import RandomAgent
    from rlcard.games.uno.utils import ACTION_SPACE, encode_hand, encode_target

    states = []

    class Watched(RandomAgent):
        def eval_step(self, state):
            states.append(state)
            return super().eval_step(state)

    np.random.seed(0)  # RandomAgent draws from numpy's global generator
    agent = RLCardAgent(Watched(num_actions=61))
    assert agent.name == "Watched"
    r = unolab.run([agent, "random"], players=2, games=60, rules="rlcard", seed=8, threads=1)
    rows = {s["name"]: s for s in r["strategies"]}
    assert rows["Watched"]["round_wins"] + rows["random"]["round_wins"] == 60
    assert rows["Watched"]["illegal"] == 0
    assert len(states) > 300
    for s in states:
        raw = s["raw_obs"]
        want = _rlcard_legal(raw["hand"], raw["target"])
        # (RLCard lists a card once per copy held; its legal_actions dict once.)
        assert sorted(s["raw_legal_actions"]) == sorted(set(want)), raw
        assert list(s["legal_actions"]) == sorted({ACTION_SPACE[a] for a in want})
        assert raw["legal_actions"] == s["raw_legal_actions"]
        planes = np.zeros((4, 4, 15), dtype=int)
        encode_hand(planes[:3], raw["hand"])
        encode_target(planes[3], raw["target"])
        assert np.array_equal(s["obs"], planes), raw
        assert sum(raw["num_cards"]) > 0 and raw["num_players"] == 2
        assert raw["num_cards"][raw["current_player"]] == len(raw["hand"])
    assert rlcard is not None


def test_a_raw_rule_agent_of_rlcard_plays_too():
    pytest.importorskip("rlcard")
    from rlcard.models.uno_rule_models import UNORuleAgentV1

    r = unolab.run([RLCardAgent(UNORuleAgentV1(), name="rule"), "random"], players=2, games=200, rules="rlcard", seed=3)
    rows = {s["name"]: s for s in r["strategies"]}
    assert rows["rule"]["round_wins"] + rows["random"]["round_wins"] == 200
    assert rows["rule"]["illegal"] == 0


def test_a_deterministic_agent_gives_the_same_results_twice_and_on_any_thread_count():
    def go(threads):
        return unolab.run([RLCardAgent(Highest(), name="hi"), "random"], players=2, games=400, rules="rlcard", seed=11, threads=threads)["strategies"]

    one, again, two = go(1), go(1), go(2)
    assert one == again == two
    t1 = unolab.tournament([RLCardAgent(Highest(), name="hi"), "color", "random"], players=2, games=100, rules="rlcard", seed=4, threads=1)
    t2 = unolab.tournament([RLCardAgent(Highest(), name="hi"), "color", "random"], players=2, games=100, rules="rlcard", seed=4, threads=2)
    for t in (t1, t2):
        del t["elapsed_s"], t["threads"]
    assert t1 == t2
    # It plays the classic rules too (drawing offered as action 60 beside cards).
    c = unolab.run([RLCardAgent(Highest(), name="hi"), "random", "color"], players=3, games=50, seed=2)
    assert sum(s["round_wins"] for s in c["strategies"]) == 50


def test_an_action_outside_the_legal_set_raises_a_clear_error():
    class Bad:
        def eval_step(self, state):
            return 61, {}

    class Label:
        use_raw = True

        def eval_step(self, state):
            return "x-9", {}

    with pytest.raises(ValueError, match=r"RLCard agent 'Bad' chose action 61, not a legal action here \(legal: "):
        unolab.run([RLCardAgent(Bad()), "random"], players=2, games=5, rules="rlcard", threads=1)
    with pytest.raises(ValueError, match="RLCard agent 'Label' chose action 'x-9'"):
        unolab.run([RLCardAgent(Label()), "random"], players=2, games=5, rules="rlcard", threads=1)
    with pytest.raises(TypeError, match="not an RLCard agent"):
        RLCardAgent(object())

    class NoPair:
        def eval_step(self, state):
            return None

    # It was Python's "cannot unpack non-iterable NoneType object".
    with pytest.raises(TypeError, match=r"RLCard agent 'NoPair': eval_step must return \(action, info\)"):
        unolab.run([RLCardAgent(NoPair()), "random"], players=2, games=5, rules="rlcard", threads=1)

