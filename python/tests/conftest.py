"""Shared helpers of the Python test suite."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import unolab

REPO = Path(__file__).resolve().parents[2]
"""The repository's root (the tests run from a clone)."""


def _load_simple_bot():
    import importlib.util

    spec = importlib.util.spec_from_file_location("simple_bot", REPO / "bots" / "simple.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


BOT = _load_simple_bot()
"""bots/simple.py, imported: its policy's functions."""


class Simple(unolab.Strategy):
    """bots/simple.py's policy, in-process."""

    name = "simple"

    def play(self, obs, legal):
        return BOT.choose_card(legal)

    def stack(self, obs, legal):
        return BOT.choose_card(legal)

    def color(self, obs):
        return BOT.most_held(obs.hand)

    def target(self, obs, legal):
        sizes = obs.hand_sizes
        return min(legal, key=lambda s: sizes[s])

    def challenge(self, obs):
        return len(obs.hand) <= 2

    def play_drawn(self, obs, card):
        return True

    def uno(self, obs):
        return True

    def jump_in(self, obs, card):
        return True


def play_random(env, rng: np.random.Generator, limit: int = 200_000) -> int:
    """Plays an AEC environment to its end with random legal actions; returns the steps."""
    steps = 0
    for agent in env.agent_iter(limit):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
        else:
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        steps += 1
    return steps


class InterruptedAfterStep:
    """A core game whose step goes through and is then interrupted, as a
    KeyboardInterrupt landing right after the core's step would be."""

    def __init__(self, game):
        self._game = game

    def __getattr__(self, name):
        return getattr(self._game, name)

    def step(self, action):
        self._game.step(action)
        raise KeyboardInterrupt


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(12345)
