"""How many steps of random legal play are forced answers (docs/python.md,
`ask_forced`): decisions whose mask holds one action.

    python benches/python/forced_steps.py

30 games per line (seeds 0 to 29, one game each; numpy's generator seeded
with the game's seed), every seat choosing uniformly among its legal
actions, in the AEC environment with `ask_forced=True` (the default) and
again with `ask_forced=False`: the second plays the same games (a choice
among one action draws nothing) without those steps, and no step of it is
forced.
"""

import numpy as np

import unolab


def count(players, house, ask_forced=True):
    """Steps and forced steps over the 30 games."""
    steps = forced = 0
    for seed in range(30):
        env = unolab.env(rules="classic", house=house, players=players, ask_forced=ask_forced)
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        for _ in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            steps += 1
            forced += len(legal) == 1
            env.step(int(rng.choice(legal)))
    return steps, forced


def main():
    for players, house in [(2, ""), (4, ""), (2, "stacking=cross,jump_in"), (4, "stacking=cross,jump_in")]:
        s, f = count(players, house)
        s2, f2 = count(players, house, ask_forced=False)
        print(
            f"{players} players, house rules {house or 'none'}: {f:,} of {s:,} steps forced "
            f"({100 * f / s:.1f}%); with ask_forced=False {s2:,} steps ({s - s2:,} fewer), {f2} forced"
        )


if __name__ == "__main__":
    main()
