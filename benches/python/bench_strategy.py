"""Decisions per second of one policy written twice, side by side in one run:

* in-process: a Python object (``unolab.Strategy``) at a seat of ``unolab.run``;
* over the protocol: the same policy as an external program
  (``bots/simple.py``, JSON Lines, docs/protocol.md), ``ext:python3 bots/simple.py``.

The policy is ``bots/simple.py``'s, imported from that file, so the two play
the same games (the script checks that their results are identical) and
make the same decisions; the count comes from the in-process run. One
worker thread for both. Both wall-clock time and CPU time (this process's
threads, plus the bot processes it started and reaped) are printed: on a
shared, loaded machine CPU time is the fairer measure.

    python benches/python/bench_strategy.py [--games N] [--players P]
"""

from __future__ import annotations

import argparse
import importlib.util
import resource
import sys
import time
from pathlib import Path

import unolab

REPO = Path(__file__).resolve().parents[2]


def load_bot():
    spec = importlib.util.spec_from_file_location("simple_bot", REPO / "bots" / "simple.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def make_strategy(bot):
    class Simple(unolab.Strategy):
        """bots/simple.py's policy as in-process methods."""

        name = "simple"
        decisions = 0

        def play(self, obs, legal):
            Simple.decisions += 1
            return bot.choose_card(legal)

        def stack(self, obs, legal):
            Simple.decisions += 1
            return bot.choose_card(legal)

        def color(self, obs):
            Simple.decisions += 1
            return bot.most_held(obs.hand)

        def target(self, obs, legal):
            Simple.decisions += 1
            sizes = obs.hand_sizes
            return min(legal, key=lambda s: sizes[s])

        def challenge(self, obs):
            Simple.decisions += 1
            return len(obs.hand) <= 2

        def play_drawn(self, obs, card):
            Simple.decisions += 1
            return True

        def uno(self, obs):
            Simple.decisions += 1
            return True

        def jump_in(self, obs, card):
            Simple.decisions += 1
            return True

    return Simple


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    bot = load_bot()
    Simple = make_strategy(bot)
    common = dict(players=a.players, games=a.games, seed=a.seed, threads=1, fixed_seats=True)

    def cpu() -> float:
        # This process's threads and the programs it started and reaped.
        me = resource.getrusage(resource.RUSAGE_SELF)
        kids = resource.getrusage(resource.RUSAGE_CHILDREN)
        return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime

    t, c = time.perf_counter(), cpu()
    inproc = unolab.run([Simple(), "random"], **common)
    t_in, c_in = time.perf_counter() - t, cpu() - c
    n = Simple.decisions

    cmd = f"ext:python3 {REPO / 'bots' / 'simple.py'}"
    t, c = time.perf_counter(), cpu()
    ext = unolab.run([cmd, "random"], **common)
    t_ext, c_ext = time.perf_counter() - t, cpu() - c

    def core(r):
        return [{k: v for k, v in s.items()} for s in r["strategies"]]

    same = core(inproc) == core(ext)
    print(f"policy bots/simple.py, {a.players} players, {a.games:,} games, seed {a.seed}, 1 thread")
    print(f"decisions of the Python seat: {n:,}")
    print("                              wall s   decisions/wall s   CPU s   decisions/CPU s")
    print(f"in-process (unolab.Strategy): {t_in:6.2f} {n / t_in:18,.0f} {c_in:7.2f} {n / c_in:17,.0f}")
    print(f"external (JSON Lines):        {t_ext:6.2f} {n / t_ext:18,.0f} {c_ext:7.2f} {n / c_ext:17,.0f}")
    print(f"speed-up: {t_ext / t_in:.1f}x wall, {c_ext / c_in:.1f}x CPU; identical results: {same}")
    if not same:
        sys.exit("the two runs differ: the adapters do not play the same policy alike")


if __name__ == "__main__":
    main()
