"""Train a UNO agent on unolab's batched environment with numpy only.

PPO (clipped policy gradient with a learned value baseline and generalised
advantage estimation) on a small network (280 features -> 128 tanh -> 81
action logits and a value), the learner at seat 0 of a 2-player table, a
unolab strategy (``random`` by default) at seat 1. The legal actions are the
environment's mask: illegal logits are set to -inf, so the policy never picks
one.

After training, the learner plays fresh games (a master seed never used in
training) greedily against ``random`` and against ``color``; each win rate
is printed with its 95% Wilson interval, beside the untrained network's.

    python examples/python/ppo_numpy.py --minutes 5

One core: run it with OPENBLAS_NUM_THREADS=1 (numpy's matrix products).
"""

from __future__ import annotations

import argparse
import math
import time
from dataclasses import dataclass, field
from typing import Callable, Optional

import numpy as np

import unolab

# ----- the network -------------------------------------------------------------


def features(obs: np.ndarray) -> np.ndarray:
    """The network's input: counts squashed (sign(x) * log(1 + |x|)), so that
    long hands and discard piles stay in range."""
    return np.sign(obs) * np.log1p(np.abs(obs))


@dataclass
class Net:
    """A one-hidden-layer network: policy logits and value from a shared tanh layer."""

    w1: np.ndarray
    b1: np.ndarray
    wp: np.ndarray
    bp: np.ndarray
    wv: np.ndarray
    bv: np.ndarray

    @staticmethod
    def new(rng: np.random.Generator, hidden: int = 128) -> "Net":
        """Orthogonal-ish scaled Gaussian weights; a small policy head (near-uniform start)."""
        n_in, n_out = unolab.OBS_LEN, unolab.ACTIONS
        return Net(
            w1=(rng.standard_normal((n_in, hidden)) * math.sqrt(1.0 / n_in)).astype(np.float32),
            b1=np.zeros(hidden, np.float32),
            wp=(rng.standard_normal((hidden, n_out)) * 0.01).astype(np.float32),
            bp=np.zeros(n_out, np.float32),
            wv=(rng.standard_normal((hidden, 1)) * 0.1).astype(np.float32),
            bv=np.zeros(1, np.float32),
        )

    def params(self) -> list[np.ndarray]:
        return [self.w1, self.b1, self.wp, self.bp, self.wv, self.bv]

    def forward(self, x: np.ndarray, mask: np.ndarray):
        """Hidden layer, masked log-probabilities and values of a batch."""
        h = np.tanh(x @ self.w1 + self.b1)
        logits = h @ self.wp + self.bp
        logits = np.where(mask.astype(bool), logits, -np.inf)
        logits = logits - logits.max(axis=1, keepdims=True)
        logp = logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))
        v = (h @ self.wv + self.bv)[:, 0]
        return h, logp, v

    def act(self, obs: np.ndarray, mask: np.ndarray, rng: Optional[np.random.Generator]):
        """Actions (sampled with ``rng``, greedy without), their log-probabilities and the values."""
        _, logp, v = self.forward(features(obs), mask)
        if rng is None:
            a = logp.argmax(axis=1)
        else:
            # Gumbel-max sampling: argmax(logp + Gumbel noise) is a sample.
            g = -np.log(-np.log(rng.random(logp.shape, dtype=np.float32) + 1e-12) + 1e-12)
            a = (logp + g).argmax(axis=1)
        return a, logp[np.arange(len(a)), a], v


class Adam:
    """Adam over a list of arrays (updated in place)."""

    def __init__(self, params: list[np.ndarray], lr: float) -> None:
        self.params, self.lr, self.t = params, lr, 0
        self.m = [np.zeros_like(p) for p in params]
        self.v = [np.zeros_like(p) for p in params]

    def step(self, grads: list[np.ndarray]) -> None:
        self.t += 1
        b1, b2, eps = 0.9, 0.999, 1e-8
        for p, g, m, v in zip(self.params, grads, self.m, self.v):
            m *= b1
            m += (1 - b1) * g
            v *= b2
            v += (1 - b2) * g * g
            mh = m / (1 - b1**self.t)
            vh = v / (1 - b2**self.t)
            p -= (self.lr * mh / (np.sqrt(vh) + eps)).astype(p.dtype)


def ppo_grads(net: Net, x, mask, a, logp_old, adv, ret, clip=0.2, vf=0.5, ent=0.01):
    """Gradients of the PPO loss (clipped surrogate + value + entropy bonus) for one minibatch."""
    b = len(a)
    h, logp, v = net.forward(x, mask)
    p = np.exp(logp)
    rows = np.arange(b)
    ratio = np.exp(logp[rows, a] - logp_old)
    # The clipped surrogate's gradient is zero where the clipped term is the smaller one.
    active = ~(((adv > 0) & (ratio > 1 + clip)) | ((adv < 0) & (ratio < 1 - clip)))
    g_logp_a = np.where(active, -adv * ratio, 0.0) / b
    dlogits = -p * g_logp_a[:, None]
    dlogits[rows, a] += g_logp_a
    # Entropy bonus: -ent * H, dH/dz_j = -p_j (log p_j + H).
    plogp = np.where(p > 0, p * np.where(p > 0, logp, 0.0), 0.0)
    entropy = -plogp.sum(axis=1)
    dlogits += ent * (plogp + p * entropy[:, None]) / b
    dv = (2 * vf * (v - ret) / b)[:, None]
    dh = dlogits @ net.wp.T + dv @ net.wv.T
    dz = dh * (1 - h * h)
    grads = [x.T @ dz, dz.sum(0), h.T @ dlogits, dlogits.sum(0), h.T @ dv, dv.sum(0)]
    return [g.astype(np.float32) for g in grads], float(entropy.mean())


# ----- training ----------------------------------------------------------------


@dataclass
class Config:
    """Training settings (the defaults are the README's run)."""

    seconds: float = 300.0
    max_updates: Optional[int] = None
    n: int = 256
    horizon: int = 32
    epochs: int = 2
    minibatches: int = 4
    lr: float = 1e-3
    gamma: float = 0.99
    lam: float = 0.95
    opponent: str = "random"
    seed: int = 1
    log: Callable[[str], None] = field(default=print)


def train(cfg: Config) -> tuple[Net, dict]:
    """Trains a network for ``cfg.seconds`` of wall time, or ``cfg.max_updates``
    updates when given (then the result depends on the seed alone); returns
    it and a summary."""
    rng = np.random.default_rng(cfg.seed)
    net = Net.new(rng)
    opt = Adam(net.params(), cfg.lr)
    env = unolab.VecEnv(cfg.n, players=2, learners=[0], strategies=[cfg.opponent], seed=cfg.seed)
    n, t_max = cfg.n, cfg.horizon
    obs_buf = np.zeros((t_max, n, unolab.OBS_LEN), np.float32)
    mask_buf = np.zeros((t_max, n, unolab.ACTIONS), np.int8)
    act_buf = np.zeros((t_max, n), np.int64)
    logp_buf = np.zeros((t_max, n), np.float32)
    val_buf = np.zeros((t_max, n), np.float32)
    rew_buf = np.zeros((t_max, n), np.float32)
    done_buf = np.zeros((t_max, n), np.float32)
    start = time.perf_counter()
    steps = updates = games = wins = 0
    recent = []
    while (
        updates < cfg.max_updates
        if cfg.max_updates is not None
        else time.perf_counter() - start < cfg.seconds
    ):
        for t in range(t_max):
            obs_buf[t] = env.obs
            mask_buf[t] = env.mask
            a, lp, v = net.act(env.obs, env.mask, rng)
            act_buf[t], logp_buf[t], val_buf[t] = a, lp, v
            env.step(a)
            rew_buf[t] = env.rewards[:, 0]
            done_buf[t] = env.done
            d = env.done
            games += int(d.sum())
            wins += int((env.winner[d] == 0).sum())
        steps += t_max * n
        _, _, last_v = net.act(env.obs, env.mask, None)
        # Generalised advantage estimation, backwards through the rollout.
        adv = np.zeros((t_max, n), np.float32)
        gae = np.zeros(n, np.float32)
        next_v = last_v
        for t in reversed(range(t_max)):
            nonterminal = 1.0 - done_buf[t]
            delta = rew_buf[t] + cfg.gamma * next_v * nonterminal - val_buf[t]
            gae = delta + cfg.gamma * cfg.lam * nonterminal * gae
            adv[t] = gae
            next_v = val_buf[t]
        ret = adv + val_buf
        b = t_max * n
        x = features(obs_buf.reshape(b, -1))
        m, acts = mask_buf.reshape(b, -1), act_buf.reshape(b)
        lp_old, a_flat, r_flat = logp_buf.reshape(b), adv.reshape(b), ret.reshape(b)
        a_flat = (a_flat - a_flat.mean()) / (a_flat.std() + 1e-8)
        for _ in range(cfg.epochs):
            order = rng.permutation(b)
            for idx in np.array_split(order, cfg.minibatches):
                grads, entropy = ppo_grads(net, x[idx], m[idx], acts[idx], lp_old[idx], a_flat[idx], r_flat[idx])
                opt.step(grads)
        updates += 1
        if updates % 20 == 0:
            rate = wins / max(games, 1)
            recent.append(rate)
            cfg.log(
                f"{time.perf_counter() - start:6.0f} s  {steps:>10,} steps  {games:>7,} games  "
                f"win rate (sampled, last 20 updates) {rate:.3f}  entropy {entropy:.3f}"
            )
            games = wins = 0
    return net, {"steps": steps, "updates": updates, "seconds": time.perf_counter() - start}


# ----- evaluation --------------------------------------------------------------


def wilson(wins: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion."""
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    d = 1 + z * z / n
    c = p + z * z / (2 * n)
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return ((c - h) / d, (c + h) / d)


def evaluate(net: Net, opponent: str, games_per_slot: int, n: int = 256, seed: int = 2**40) -> tuple[int, int]:
    """Wins and games of the greedy network at seat 0 against ``opponent``.

    Every slot plays exactly ``games_per_slot`` games (a fixed design: the
    first games to end are not favoured), on master seed ``seed``.
    """
    env = unolab.VecEnv(n, players=2, learners=[0], strategies=[opponent], seed=seed)
    finished = np.zeros(n, np.int64)
    wins = 0
    while (finished < games_per_slot).any():
        a, _, _ = net.act(env.obs, env.mask, None)
        env.step(a)
        counted = env.done & (finished < games_per_slot)
        wins += int((env.winner[counted] == 0).sum())
        finished += env.done
    return wins, n * games_per_slot


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--minutes", type=float, default=5.0, help="training time (wall clock)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--opponent", default="random", help="the strategy trained against")
    ap.add_argument(
        "--eval-games",
        type=int,
        default=20_000,
        help="evaluation games per opponent, rounded down to a multiple of the 256 slots (at least 256)",
    )
    args = ap.parse_args()
    cfg = Config(seconds=args.minutes * 60, seed=args.seed, opponent=args.opponent)
    untrained = Net.new(np.random.default_rng(cfg.seed))
    net, info = train(cfg)
    print(f"trained {info['seconds']:.0f} s: {info['steps']:,} steps, {info['updates']} updates")
    per_slot = max(1, args.eval_games // 256)
    if per_slot * 256 != args.eval_games:
        print(f"evaluation: {per_slot * 256:,} games per opponent ({per_slot} in each of 256 slots)")
    for opp in ("random", "color"):
        for name, model in (("untrained", untrained), ("trained", net)):
            w, g = evaluate(model, opp, per_slot)
            lo, hi = wilson(w, g)
            print(f"{name:>9} vs {opp:<6}: won {w:>6,} of {g:,} = {w / g:.3f}  95% CI [{lo:.3f}, {hi:.3f}]")


if __name__ == "__main__":
    main()
