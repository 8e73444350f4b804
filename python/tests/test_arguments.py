"""Arguments every entry point shares: a rule set as a name or a path
(``str`` or ``os.PathLike``), string options of the wrong type refused with a
``TypeError`` that names the argument."""

from __future__ import annotations

import pathlib

import pytest

import unolab

from conftest import REPO

H2O = REPO / "src" / "engine" / "rulesets" / "h2o.toml"


def test_a_rule_file_is_taken_as_a_path_object_everywhere():
    assert isinstance(H2O, pathlib.Path)
    name = unolab.env(rules=str(H2O)).game.rules_name
    assert unolab.env(rules=H2O).game.rules_name == name
    assert unolab.UnoEnv(rules=H2O).game.rules_name == name
    v = unolab.VecEnv(2, rules=H2O)
    assert v.render(0) == unolab.VecEnv(2, rules=str(H2O)).render(0)
    assert unolab.rules(H2O) == unolab.rules(str(H2O)) == unolab.rules("h2o")
    kw = dict(players=2, games=20, seed=3, threads=1)
    a = unolab.run("random", rules=H2O, **kw)
    assert a["rule_set"]["name"] == name
    assert a["seats"] == unolab.run("random", rules=str(H2O), **kw)["seats"]
    assert len(unolab.trace("random", players=2, rules=H2O)) > 0
    a = unolab.compare("random", players=2, b_rules=H2O, games=50, seed=1, threads=1)
    b = unolab.compare("random", players=2, b_rules=str(H2O), games=50, seed=1, threads=1)
    assert a["arms"] == b["arms"]


def test_a_path_object_is_a_file_even_without_a_folder_or_toml(tmp_path, monkeypatch):
    # Path("classic") is the file ./classic, not the built-in rule set: a
    # PathLike always names a file (pathlib drops a leading "./").
    monkeypatch.chdir(tmp_path)
    (tmp_path / "myrules").write_text(H2O.read_text())
    (tmp_path / "classic").write_text(H2O.read_text())
    h2o = unolab.rules("h2o")
    assert unolab.rules(pathlib.Path("myrules")) == h2o
    assert unolab.rules(pathlib.Path("classic")) == h2o
    assert unolab.rules("classic") != h2o
    with pytest.raises(FileNotFoundError):
        unolab.rules(pathlib.Path("nosuch"))


def test_no_strategies_is_none_an_empty_list_or_an_empty_string():
    a = unolab.VecEnv(2, players=2, learners=[0, 1], strategies="")
    b = unolab.VecEnv(2, players=2, learners=[0, 1], strategies=None)
    assert a.render(0) == b.render(0)


RULES = r"rules must be a rule set name or a path \(str or os\.PathLike\), got int"


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: unolab.env(rules=5), RULES),
        (lambda: unolab.UnoEnv(rules=5), RULES),
        (lambda: unolab.VecEnv(2, rules=5), RULES),
        (lambda: unolab.run(games=10, rules=5), RULES),
        (lambda: unolab.tournament("random,color", games=10, rules=5), RULES),
        (lambda: unolab.trace(rules=5), RULES),
        (lambda: unolab.compare(rules=5, games=10), RULES),
        (lambda: unolab.compare(b_rules=5, games=10), "b_" + RULES),
        (lambda: unolab.rules(5), r"name must be a rule set name or a path .*, got int"),
        (lambda: unolab.env(rules=b"classic"), r"rules must .*, got bytes"),
        (lambda: unolab.env(mode=None), r"mode must be a string \('round' or 'match'\), got NoneType"),
        (lambda: unolab.UnoEnv(mode=1), r"mode must be a string"),
        (lambda: unolab.VecEnv(2, mode=None), r"mode must be a string"),
        (lambda: unolab.run(games=10, mode=None), r"mode must be a string"),
        (lambda: unolab.compare(games=10, mode=None), r"mode must be a string"),
        (lambda: unolab.env(reward=1), r"reward must be a string \('win' or 'points'\), got int"),
        (lambda: unolab.UnoEnv(reward=None), r"reward must be a string"),
        (lambda: unolab.VecEnv(2, reward=None), r"reward must be a string"),
        (lambda: unolab.env(illegal=True), r"illegal must be a string \('raise' or 'sanction'\), got bool"),
        (lambda: unolab.UnoEnv(illegal=None), r"illegal must be a string"),
        (lambda: unolab.VecEnv(2, illegal=None), r"illegal must be a string"),
        (lambda: unolab.env(encoding=None), r"encoding must be a string \('unolab' or 'known' or 'rlcard'\), got NoneType"),
        (lambda: unolab.UnoEnv(encoding=None), r"encoding must be a string"),
        (lambda: unolab.VecEnv(2, encoding=None), r"encoding must be a string"),
        (lambda: unolab.env(render_mode=1), r"render_mode must be None, 'human' or 'ansi', got int"),
        (lambda: unolab.run(games=10, out=5), r"out must be a path \(str or os\.PathLike\), got int"),
        (lambda: unolab.ladder(5), r"file must be a path"),
        (lambda: unolab.experiment(5), r"source must be an experiment file's path .* or a dict, got int"),
    ],
)
def test_a_string_option_of_the_wrong_type_is_a_type_error_naming_it(call, message):
    with pytest.raises(TypeError, match=message):
        call()


def test_a_bad_encoding_or_render_mode_string_is_still_a_value_error():
    for make in (unolab.env, unolab.UnoEnv, lambda **kw: unolab.VecEnv(2, **kw)):
        with pytest.raises(ValueError, match=r"unknown encoding 'x' \(valid: unolab, known, rlcard\)"):
            make(encoding="x")
    with pytest.raises(ValueError, match="unknown render mode 'x'"):
        unolab.env(render_mode="x")


@pytest.mark.parametrize("strategies", ["color,", "random,,color", ",color", "color, ", ["color", ""], ["  "]])
def test_an_empty_strategy_name_is_a_value_error_everywhere(strategies):
    message = r"strategies: an empty name in"
    with pytest.raises(ValueError, match=message):
        unolab.UnoEnv(players=3, strategies=strategies)
    with pytest.raises(ValueError, match=message):
        unolab.VecEnv(2, players=3, learners=[0], strategies=strategies)
    with pytest.raises(ValueError, match=message):
        unolab.run(strategies, players=3, games=10)


def test_a_rule_or_preset_file_that_cannot_be_read_is_refused_by_its_cause(tmp_path):
    import os

    folder = tmp_path / "rules.toml"
    folder.mkdir()
    not_text = tmp_path / "latin1.toml"
    not_text.write_bytes(b'name = "caf\xe9"\n')
    for make in (
        lambda r: unolab.env(rules=r),
        lambda r: unolab.VecEnv(2, rules=r),
        lambda r: unolab.run(games=10, rules=r),
        lambda r: unolab.rules(r),
    ):
        with pytest.raises(IsADirectoryError, match="cannot read rule-set file"):
            make(str(folder))
        with pytest.raises(ValueError, match=r"malformed rule-set file .*latin1\.toml: not UTF-8 text"):
            make(str(not_text))
    with pytest.raises(IsADirectoryError, match="cannot read strategy file"):
        unolab.UnoEnv(strategies=str(folder))
    with pytest.raises(ValueError, match=r"malformed strategy file .*: not UTF-8 text"):
        unolab.UnoEnv(strategies=str(not_text))
    with pytest.raises(ValueError, match=r"malformed strategy file .*: not UTF-8 text"):
        unolab.run([str(not_text), "random"], players=2, games=10)
    if os.geteuid() != 0:  # root reads any file
        locked = tmp_path / "locked.toml"
        locked.write_text('name = "x"\n')
        locked.chmod(0)
        with pytest.raises(PermissionError, match="cannot read rule-set file"):
            unolab.env(rules=str(locked))


def test_observation_bounds_checks_the_deck_size():
    import numpy as np

    low, high = unolab.observation_bounds(108)
    assert high[unolab.section("hand")].max() == 108 and low.min() == -1
    assert np.array_equal(unolab.observation_bounds(np.int64(108))[1], high)
    for bad in ("x", 108.0, None, True):
        with pytest.raises(TypeError, match="deck_size is an integer"):
            unolab.observation_bounds(bad)
    for bad in (0, -1, 2**24 + 1, 10**40):
        with pytest.raises(ValueError, match=r"is not a deck's size \(valid: 1 to 2\*\*24\)"):
            unolab.observation_bounds(bad)


@pytest.mark.parametrize(
    "call",
    [
        lambda: unolab.run("random", players=2, games=10, seed=None),
        lambda: unolab.compare("random", players=2, games=10, seed=None),
        lambda: unolab.tournament("random,color", players=2, games=10, seed=None),
        lambda: unolab.trace("random", players=2, seed=None),
    ],
)
def test_a_lab_call_refuses_seed_none_rather_than_playing_seed_1(call):
    # None used to be taken as the default, 1: asking for no fixed seed
    # quietly repeated the same games.
    with pytest.raises(TypeError, match=r"seed=None: a lab call needs an integer seed \(the default is 1"):
        call()


def test_a_network_preset_whose_weights_are_missing_is_a_file_not_found_error(tmp_path):
    preset = tmp_path / "n.toml"
    preset.write_text('name = "n"\nbase = "net"\n\n[net]\nweights = "nope.safetensors"\n')
    message = r"invalid strategy '.*n\.toml': cannot read weights .*nope\.safetensors"
    with pytest.raises(FileNotFoundError, match=message):
        unolab.run([str(preset), "random"], players=2, games=10)
    with pytest.raises(FileNotFoundError, match=message):
        unolab.UnoEnv(players=2, strategies=[str(preset)])
    # A weights file that is there but not weights stays a ValueError.
    (tmp_path / "nope.safetensors").write_bytes(b"not weights")
    with pytest.raises(ValueError, match=r"invalid strategy .*nope\.safetensors"):
        unolab.run([str(preset), "random"], players=2, games=10)


def test_observing_an_unknown_agent_names_the_agents():
    env = unolab.env(players=3)
    env.reset(seed=1)
    with pytest.raises(KeyError, match=r"unknown agent 'player_9' \(agents: player_0 \.\. player_2\)"):
        env.observe("player_9")
