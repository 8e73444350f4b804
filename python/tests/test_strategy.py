"""Python strategies in-process: any seat of run, compare, experiment and
tournament; the same decisions as the protocol; errors raised again."""

from __future__ import annotations

import json

import pytest

import unolab

from conftest import REPO, Simple

HOUSE = "stacking=cross,seven_o,jump_in,bluff_challenge"


class First(unolab.Strategy):
    """Only play: every other decision gets the engine's default."""

    def play(self, obs, legal):
        return legal[0]


def test_the_same_policy_in_process_and_over_the_protocol_plays_the_same_games():
    common = dict(players=3, games=60, seed=5, threads=1, house=HOUSE, fixed_seats=True)
    a = unolab.run([Simple(), "color", "random"], **common)
    b = unolab.run([f"ext:python3 {REPO / 'bots' / 'simple.py'}", "color", "random"], **common)
    assert a["strategies"] == b["strategies"]
    assert a["strategies"][0]["name"] == "simple"


def test_a_strategy_is_told_what_it_knows_of_other_hands_as_the_protocol_tells_it(tmp_path):
    # Heads-up seven-o: a 7 or a 0 swaps the hands, so the seat knows the hand
    # it gave away. In process and over the protocol the same decisions see
    # the same `known`, its own entry empty, never more than a hand holds.
    seen = []

    class Watch(Simple):
        def play(self, obs, legal):
            seen.append(obs.to_dict())
            assert obs.known == obs.to_dict()["known"]
            return super().play(obs, legal)

    common = dict(players=2, games=40, seed=21, threads=1, house="seven_o", fixed_seats=True)
    log = tmp_path / "talk.log"
    ext = f"ext:python3 {REPO / 'bots' / 'tee.py'} {log} python3 {REPO / 'bots' / 'simple.py'}"
    a = unolab.run([Watch(), "first"], **common)
    b = unolab.run([ext, "first"], **common)
    assert a["strategies"] == b["strategies"]
    told = [json.loads(line[2:])["obs"] for line in log.read_text().splitlines()
            if line.startswith("> ") and '"decision":"play"' in line]
    assert told == seen
    for obs in seen:
        assert len(obs["known"]) == 2 and obs["known"][obs["seat"]] == []
        assert all(len(k) <= n for k, n in zip(obs["known"], obs["hand_sizes"]))
    knew = [obs for obs in seen if obs["known"][1]]
    assert len(knew) >= 20, len(knew)
    # Without seven-o nothing is ever known.
    plain = []

    class Plain(Simple):
        def play(self, obs, legal):
            plain.append(obs.known)
            return super().play(obs, legal)

    unolab.run([Plain(), "first"], players=3, games=20, seed=22, threads=1)
    assert plain and all(k == [[], [], []] for k in plain)


def test_a_python_strategy_sits_next_to_presets_in_every_command():
    r = unolab.run([First(), "color"], players=4, games=300, house=HOUSE, settings={"hand_size": 5})
    names = {s["name"] for s in r["strategies"]}
    assert names == {"First", "color"}
    assert sum(s["round_wins"] for s in r["strategies"]) == r["won"] > 0
    t = unolab.tournament([Simple(), "random", "color"], players=3, games=300)
    assert {s["name"] for s in t["strategies"]} == {"simple", "random", "color"}
    c = unolab.compare("random", players=3, b_seat=(1, Simple()), games=200)
    assert c["manifest"]["arms"][1]["lineup"][1] == {"name": "simple", "base": "python", "params": {}}
    e = unolab.experiment(
        {
            "name": "py-arm",
            "base": {"players": 2, "strategies": "random", "games": 200},
            "arm": [{"label": "random"}, {"label": "mine", "strategies": "mine,random"}],
        },
        strategies={"mine": Simple()},
    )
    assert {a["arm"] for a in e["arms"]} == {"random", "mine"}


def test_a_class_is_instantiated_per_seat_and_an_instance_is_shared():
    made = []

    class Counting(unolab.Strategy):
        def __init__(self):
            made.append(self)

        def play(self, obs, legal):
            return legal[0]

    unolab.run([Counting, "random"], players=4, games=50, threads=1, fixed_seats=True)
    assert len(made) == 2  # two seats of the line-up on one worker
    one = First()
    r = unolab.run([one, one], players=2, games=50)
    assert [s["name"] for s in r["strategies"]] == ["First"]


def test_a_strategy_sees_only_what_its_seat_sees():
    seen = []

    class Watch(unolab.Strategy):
        def play(self, obs, legal):
            seen.append(obs)
            assert len(obs.hand) == obs.hand_sizes[obs.seat]
            assert obs.top in obs.discard
            assert all(c in obs.hand for c in legal if c != "draw")
            d = obs.to_dict()
            assert set(d) == {"seat", "round", "turn", "hand", "top", "color", "direction",
                              "hand_sizes", "draw_pile", "discard", "totals", "pending_draw",
                              "known"}
            assert not hasattr(obs, "hands")
            return legal[0]

    unolab.run([Watch(), "random"], players=2, games=20, threads=1)
    assert seen and {o.seat for o in seen} == {0, 1}
    assert sum(seen[0].hand_sizes) + seen[0].draw_pile + len(seen[0].discard) == 108


def test_an_exception_in_a_method_is_raised_by_the_call():
    class Broken(unolab.Strategy):
        def play(self, obs, legal):
            raise ZeroDivisionError("my bug")

    with pytest.raises(ZeroDivisionError, match="my bug"):
        unolab.run([Broken(), "random"], players=2, games=100)
    with pytest.raises(ZeroDivisionError, match="my bug"):
        unolab.tournament([Broken(), "random"], players=2, games=100)


def test_an_answer_of_the_wrong_type_is_a_type_error_and_a_bad_value_a_value_error():
    def seat(**methods):
        """A strategy playing its first legal token, with ``methods`` replaced."""
        body = {"play": lambda self, obs, legal: legal[0]}
        body.update(methods)
        return type("S", (unolab.Strategy,), body)()

    def refused(error, message, strategy, **kw):
        kw = {"players": 2, "games": 50, **kw}
        with pytest.raises(error, match=message) as e:
            unolab.run([strategy, "random"] + ["random"] * (kw["players"] - 2), **kw)
        assert type(e.value) is error

    # Of the wrong type: not a str where a token or a colour is asked, not a
    # bool where a yes or no is, not an int where a seat is.
    refused(TypeError, r"play\(\) answered 5: the answer must be a card token or \"draw\" \(a str\)",
            seat(play=lambda self, obs, legal: 5))
    refused(TypeError, r"uno\(\) answered 'yes': the answer must be True or False \(a bool\)",
            seat(uno=lambda self, obs: "yes"))
    refused(TypeError, r"uno\(\) answered 1: the answer must be True or False",
            seat(uno=lambda self, obs: 1))
    refused(TypeError, r"color\(\) answered 3: the answer must be a colour name \(a str\)",
            seat(color=lambda self, obs: 3))
    # True is an int to Python; as a seat it was read as seat 1.
    refused(TypeError, "the answer must be a seat number, not True or False",
            seat(target=lambda self, obs, legal: True), players=3, house="seven_o",
            fixed_seats=True)
    refused(TypeError, r"target\(\) answered '1': the answer must be a seat number \(an int\)",
            seat(target=lambda self, obs, legal: "1"), players=3, house="seven_o",
            fixed_seats=True)
    # Of the right type, but no answer: a ValueError.
    refused(ValueError, r"play\(\) answered 'purple-3'", seat(play=lambda self, obs, legal: "purple-3"))
    refused(ValueError, r"color\(\) answered 'purple'", seat(color=lambda self, obs: "purple"))
    # A huge answer is quoted in short (10 MB was quoted whole, twice).
    with pytest.raises(ValueError, match=r"play\(\) answered 'xxx") as e:
        unolab.run([seat(play=lambda self, obs, legal: "x" * 10**6), "random"], players=2, games=5)
    assert len(str(e.value)) < 600, len(str(e.value))
    refused(ValueError, r"target\(\) answered 300: the answer must be a seat number",
            seat(target=lambda self, obs, legal: 300), players=3, house="seven_o",
            fixed_seats=True)
    # A seat past the table was sanctioned as an illegal target.
    refused(ValueError, r"target\(\) answered 3: the answer must be a seat number from 0 to 2",
            seat(target=lambda self, obs, legal: 3), players=3, house="seven_o",
            fixed_seats=True)

    class Illegal(unolab.Strategy):
        def play(self, obs, legal):
            playable = [c for c in legal if c != "draw"]
            held = [c for c in obs.hand if c not in playable]
            return held[0] if held else legal[0]

    r = unolab.run([Illegal(), "random"], players=2, games=50, fixed_seats=True)
    assert r["strategies"][0]["illegal"] > 0 and r["strategies"][1]["illegal"] == 0


def test_no_play_method_is_a_type_error_and_names_must_differ():
    class NoPlay:
        pass

    with pytest.raises(TypeError, match="play"):
        unolab.run([NoPlay(), "random"], players=2, games=10)

    # A subclass of unolab.Strategy that does not define play: refused
    # before any game (it failed mid-game with NotImplementedError), as an
    # instance and as a class, in every command.
    class Forgot(unolab.Strategy):
        def color(self, obs):
            return "red"

    for s in (Forgot(), Forgot):
        for call in (
            lambda: unolab.run([s, "random"], players=2, games=10),
            lambda: unolab.compare("random", players=2, b_seat=(0, s), games=10),
            lambda: unolab.tournament([s, "random", "color"], players=2, games=10),
            lambda: unolab.strategy.check(s),
        ):
            with pytest.raises(TypeError, match="strategy 'Forgot': a Python strategy needs a play"):
                call()

    class Inherits(First):  # play inherited from a class that defines it
        pass

    assert unolab.strategy.check(Inherits()) == "Inherits"

    class Color(unolab.Strategy):
        name = "color"

        def play(self, obs, legal):
            return legal[0]

    with pytest.raises(ValueError, match="a Python strategy is named 'color', a built-in"):
        unolab.run([Color(), "color"], players=2, games=10)

    class Other(First):
        name = "First"

    with pytest.raises(ValueError, match="two different strategies are named 'First'"):
        unolab.run([First(), Other()], players=2, games=10)
    # An experiment's map from the file's names: a built-in's name is said
    # to be one (it read as two strategies of one name).
    exp = {"name": "e", "base": {"players": 2, "strategies": "color,points"},
           "arm": [{"label": "a"}, {"label": "b", "house": ["seven_o"]}]}
    with pytest.raises(ValueError, match="'color' is a built-in strategy's name and cannot stand"):
        unolab.experiment(exp, strategies={"color": First()}, games=20)
    assert unolab.strategy.check(First()) == "First"

    class Numbered(First):
        name = 5

    with pytest.raises(TypeError) as e:
        unolab.run([Numbered(), "random"], players=2, games=10)
    assert str(e.value) == "a strategy's name is a string (or None for its class's name), got 5"

    class Unnamed(First):
        name = None

    assert unolab.strategy.check(Unnamed()) == "Unnamed"


def test_results_do_not_depend_on_the_thread_count():
    a = unolab.run([Simple(), "random", "color"], players=3, games=400, seed=3, threads=1)
    b = unolab.run([Simple(), "random", "color"], players=3, games=400, seed=3, threads=2)
    assert a["strategies"] == b["strategies"]


def test_notices_are_heard():
    ends = []

    class Listen(First):
        def round_end(self, obs, result):
            ends.append(result)

    unolab.run([Listen(), "random"], players=2, games=30, threads=1, fixed_seats=True)
    assert len(ends) == 30
    assert {"round", "outcome", "winner", "points", "turns"} <= set(ends[0])


def test_hand_sizes_are_lists_of_ints_and_the_observation_is_json():
    seen = []

    class Watch(unolab.Strategy):
        def play(self, obs, legal):
            seen.append((obs.hand_sizes, obs.to_dict(), obs.rlcard_raw()))
            return legal[0]

    unolab.run([Watch(), "random"], players=3, games=5, threads=1)
    assert seen
    for sizes, d, raw in seen:
        # Vec<u8> reached Python as bytes.
        for v in (sizes, d["hand_sizes"], raw["num_cards"]):
            assert type(v) is list and all(type(x) is int for x in v) and len(v) == 3
        assert json.loads(json.dumps(d)) == d


@pytest.mark.parametrize("value", [None, 5, "play"])
def test_a_play_attribute_that_is_not_callable_is_a_type_error(value):
    # Such a seat used to be played by the default (the first playable card).
    class P:
        play = value

    with pytest.raises(TypeError, match="'play' attribute is not callable"):
        unolab.run([P(), "random"], players=2, games=50)
    with pytest.raises(TypeError, match="'play' attribute is not callable"):
        unolab.run([P, "random"], players=2, games=50)
    with pytest.raises(TypeError, match="play"):
        unolab.strategy.check(P())


def test_a_play_set_to_a_non_callable_by_init_is_a_type_error():
    class Late(unolab.Strategy):
        def __init__(self):
            self.play = None

        def play(self, obs, legal):  # the class's, hidden by __init__
            return legal[0]

    # The class passes the check (its play is a method); each instance is
    # checked when it is made, and the run raises instead of playing a default.
    with pytest.raises(TypeError, match="'play' attribute is not callable"):
        unolab.run([Late, "random"], players=2, games=20, threads=1)

    # A subclass that sets a callable play in __init__ (none in the class)
    # plays, as a class and as an instance; one that sets a non-callable
    # play there is refused as a class too.
    class Given(unolab.Strategy):
        def __init__(self):
            self.play = lambda obs, legal: legal[0]

    for s in (Given, Given()):
        assert unolab.run([s, "random"], players=2, games=10, threads=1)["games"] == 10
    assert unolab.strategy.check(Given) == "Given"

    class LateOnly(unolab.Strategy):
        def __init__(self):
            self.play = None

    with pytest.raises(TypeError, match="'play' attribute is not callable"):
        unolab.run([LateOnly, "random"], players=2, games=10, threads=1)


def test_another_decision_method_that_is_not_callable_is_a_type_error():
    class RedAlways(unolab.Strategy):
        color = "red"  # meant as a method: not silently replaced by the default

        def play(self, obs, legal):
            return legal[0]

    with pytest.raises(TypeError, match="'color' attribute is not callable"):
        unolab.run([RedAlways(), "random"], players=2, games=20)
