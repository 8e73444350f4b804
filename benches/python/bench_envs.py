"""Speed of unolab's Python environments, side by side with RLCard's UNO, on one core.

    python benches/python/bench_envs.py [--seconds 10]

(a) the PettingZoo AEC env in a plain Python loop with random legal actions,
    against RLCard's UNO env (rlcard.make("uno"), reset, step with a random
    legal action) in its own bare loop: steps/s and games/s each, 2 players;
(b) the batched env (unolab.VecEnv) stepped with random legal actions chosen
    in numpy, n = 1,024 and 4,096, 2 and 4 players: agent steps/s;
(c) PettingZoo's own performance_benchmark on the AEC env.

The process is pinned to one CPU and numpy's BLAS to one thread. Each figure
is steps over wall-clock seconds, and also over the process's CPU seconds
(the two differ when other programs share the machine). README.md beside
this file gives the setup and the figures seen.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse  # noqa: E402
import contextlib  # noqa: E402
import io  # noqa: E402
import platform  # noqa: E402
import random  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

import unolab  # noqa: E402


class Clock:
    """Wall-clock and CPU seconds since creation."""

    def __init__(self) -> None:
        self.wall, self.cpu = time.perf_counter(), time.process_time()

    def elapsed(self) -> tuple[float, float]:
        return time.perf_counter() - self.wall, time.process_time() - self.cpu


def report(name: str, steps: int, games: int, wall: float, cpu: float) -> float:
    games_txt = f"  {games / wall:>9,.0f} games/s" if games else ""
    print(f"  {name:<44} {steps / wall:>12,.0f} steps/s{games_txt}   (per CPU second: {steps / cpu:>12,.0f} steps)")
    return steps / wall


def aec_loop(seconds: float, players: int) -> tuple[int, int, float, float]:
    env = unolab.env(players=players)
    rnd = random.Random(1)
    steps = games = 0
    clock = Clock()
    seed = 0
    while clock.elapsed()[0] < seconds:
        env.reset(seed=seed)
        seed += 1
        for agent in env.agent_iter():
            obs, reward, term, trunc, info = env.last()
            if term or trunc:
                action = None
            else:
                action = rnd.choice(np.flatnonzero(obs["action_mask"]).tolist())
            env.step(action)
            steps += 1
        games += 1
    return (steps, games, *clock.elapsed())


def rlcard_loop(seconds: float) -> tuple[int, int, float, float] | None:
    try:
        import rlcard
    except ImportError:
        return None
    env = rlcard.make("uno", config={"seed": 1})
    rnd = random.Random(1)
    steps = games = 0
    clock = Clock()
    while clock.elapsed()[0] < seconds:
        state, player = env.reset()
        while not env.is_over():
            action = rnd.choice(list(state["legal_actions"].keys()))
            state, player = env.step(action)
            steps += 1
        games += 1
    return (steps, games, *clock.elapsed())


def vec_loop(seconds: float, n: int, players: int) -> tuple[int, int, float, float]:
    env = unolab.VecEnv(n, players=players, seed=1)
    rng = np.random.default_rng(1)
    steps = games = 0
    clock = Clock()
    while clock.elapsed()[0] < seconds:
        env.step(env.random_actions(rng))
        steps += n
        games += int(env.done.sum())
    return (steps, games, *clock.elapsed())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=10.0, help="time per measurement")
    ap.add_argument("--cpu", type=int, default=None, help="the CPU to pin to (default: the first allowed)")
    args = ap.parse_args()
    cpus = sorted(os.sched_getaffinity(0))
    cpu = args.cpu if args.cpu is not None else cpus[0]
    os.sched_setaffinity(0, {cpu})
    print(f"unolab {unolab.__version__}, numpy {np.__version__}, Python {platform.python_version()}, "
          f"pinned to CPU {cpu}, {args.seconds:g} s per figure, load average {os.getloadavg()[0]:.2f}")

    print("(a) one game at a time, random legal actions, 2 players")
    steps, games, wall, cpu_s = aec_loop(args.seconds, 2)
    aec = report("unolab AEC env (PettingZoo), Python loop", steps, games, wall, cpu_s)
    rl = rlcard_loop(args.seconds)
    if rl is None:
        print("  RLCard: not installed (pip install rlcard) - no comparison")
    else:
        rlc = report("RLCard uno, bare loop", *rl)
        print(f"  unolab AEC / RLCard steps/s: {aec / rlc:.1f}x")

    print("(b) batched env, random legal actions chosen in numpy")
    for n, players in ((1024, 2), (1024, 4), (4096, 2)):
        report(f"unolab VecEnv n={n}, {players} players", *vec_loop(args.seconds, n, players))

    print("(c) PettingZoo performance_benchmark (5 s), 2 players")
    from pettingzoo.test import performance_benchmark

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        performance_benchmark(unolab.env(players=2))
    for line in out.getvalue().splitlines():
        if "per second" in line:
            value, rest = line.split(" ", 1)
            print(f"  {float(value):>12,.0f} {rest}")


if __name__ == "__main__":
    main()
