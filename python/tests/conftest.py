"""Shared helpers of the Python test suite."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[2]
"""The repository's root (the tests run from a clone)."""


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
