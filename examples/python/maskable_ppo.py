"""Train a UNO agent with sb3-contrib's MaskablePPO on unolab's Gymnasium env.

The learner sits at seat 0 of a 2-player classic table, a unolab strategy at
seat 1. MaskablePPO reads the legal actions from ``action_masks()``, so the
policy only ever picks legal actions. After training, the agent plays fresh
games (seeds never used in training) deterministically, and the win rate is
printed with its 95% Wilson interval.

Needs PyTorch, stable-baselines3 and sb3-contrib (not needed by the tests)::

    pip install ./python sb3-contrib
    python examples/python/maskable_ppo.py --timesteps 200000 --opponent random
"""

from __future__ import annotations

import argparse
import math

from sb3_contrib import MaskablePPO
from sb3_contrib.common.wrappers import ActionMasker

import unolab


def make_env(opponent: str) -> ActionMasker:
    """The learner at seat 0 against ``opponent``; the mask from the env itself."""
    env = unolab.UnoEnv(players=2, seat=0, strategies=[opponent])
    return ActionMasker(env, lambda e: e.unwrapped.action_masks())


def wilson(wins: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion."""
    p = wins / n
    d = 1 + z * z / n
    c = p + z * z / (2 * n)
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return (c - h) / d, (c + h) / d


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--timesteps", type=int, default=200_000)
    ap.add_argument("--opponent", default="random")
    ap.add_argument("--eval-games", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()

    env = make_env(args.opponent)
    model = MaskablePPO("MlpPolicy", env, seed=args.seed, verbose=1)
    model.learn(total_timesteps=args.timesteps)

    test = make_env(args.opponent)
    wins = 0
    for g in range(args.eval_games):
        # Seeds from 2**40 on: games never dealt in training.
        obs, info = test.reset(seed=2**40 + g)
        done = False
        while not done:
            action, _ = model.predict(obs, action_masks=test.action_masks(), deterministic=True)
            obs, reward, terminated, truncated, info = test.step(int(action))
            done = terminated or truncated
        wins += info["winner"] == 0
    lo, hi = wilson(wins, args.eval_games)
    print(f"MaskablePPO vs {args.opponent}: won {wins} of {args.eval_games} = "
          f"{wins / args.eval_games:.3f}  95% CI [{lo:.3f}, {hi:.3f}]")


if __name__ == "__main__":
    main()
