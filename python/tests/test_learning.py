"""Learning, end to end: the numpy PPO example (examples/python/ppo_numpy.py),
trained briefly with a fixed seed, beats its untrained network against
``random`` on fresh games, by a difference a two-proportion z-test finds at
the 1% level."""

from __future__ import annotations

import importlib.util
import math
import sys

import numpy as np

from conftest import REPO


def load_example():
    path = REPO / "examples" / "python" / "ppo_numpy.py"
    spec = importlib.util.spec_from_file_location("ppo_numpy", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_a_short_training_run_beats_the_untrained_network():
    ppo = load_example()
    cfg = ppo.Config(max_updates=25, n=128, horizon=32, seed=3, log=lambda _: None)
    untrained = ppo.Net.new(np.random.default_rng(cfg.seed))
    trained, info = ppo.train(cfg)
    assert info["updates"] == 25
    games_per_slot = 8
    w0, n0 = ppo.evaluate(untrained, "random", games_per_slot, n=256, seed=2**41)
    w1, n1 = ppo.evaluate(trained, "random", games_per_slot, n=256, seed=2**41)
    assert n0 == n1 == 2048
    p0, p1 = w0 / n0, w1 / n1
    pooled = (w0 + w1) / (n0 + n1)
    z = (p1 - p0) / math.sqrt(pooled * (1 - pooled) * (1 / n0 + 1 / n1))
    # One-sided test at 1%: z > 2.326.
    assert z > 2.326, f"untrained {p0:.3f}, trained {p1:.3f}, z = {z:.2f}"
