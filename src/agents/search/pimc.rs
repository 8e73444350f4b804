//! `pimc`: perfect-information Monte Carlo. Every legal action is tried on the
//! same `iterations` determinizations (common random numbers: the same hidden
//! cards and the same rollout generator for every action); the action with the
//! best mean reward for the deciding seat wins (the first listed on a tie).
//! With an opponent model (`model`), the determinizations are the deals it
//! accepts (see `belief`).

use super::actions::{Action, Mode};
use super::sim::{Root, Sim};
use super::Objective;
use crate::engine::game::{Observation, Rng};

#[allow(clippy::too_many_arguments)]
pub(super) fn decide(
    sim: &mut Sim,
    obs: &Observation,
    root: Root,
    actions: &[Action],
    iterations: u32,
    objective: Objective,
    halving: bool,
    rng: &mut Rng,
) -> Action {
    if halving {
        return halve(sim, obs, root, actions, iterations, objective, rng);
    }
    let me = obs.seat() as usize;
    sim.sums.clear();
    sim.sums.resize(actions.len(), 0.0);
    let mut weigh = None;
    for _ in 0..iterations {
        let seed = sim.next_deal(obs, &mut weigh, rng);
        // Dealt once, played by every action on a copy.
        let (dealt, agents_seed) = sim.dealt(obs, seed);
        for (j, &a) in actions.iter().enumerate() {
            let mut g = dealt.clone();
            let r = sim.play_out(obs, root, Mode::Forced(a), &mut g, agents_seed, objective);
            sim.sums[j] += r[me];
        }
    }
    let mut best = 0;
    for j in 1..actions.len() {
        if sim.sums[j] > sim.sums[best] {
            best = j;
        }
    }
    actions[best]
}

/// Successive halving with the budget `iterations` x `actions.len()`: in each
/// of ceil(log2 k) rounds the surviving actions share an equal part of the
/// budget (on common determinizations) and the better half by mean reward
/// survives (the earlier listed on a tie).
fn halve(
    sim: &mut Sim,
    obs: &Observation,
    root: Root,
    actions: &[Action],
    iterations: u32,
    objective: Objective,
    rng: &mut Rng,
) -> Action {
    let me = obs.seat() as usize;
    let k = actions.len();
    let budget = iterations as usize * k;
    let rounds = (usize::BITS - (k - 1).leading_zeros()) as usize;
    sim.sums.clear();
    sim.sums.resize(k, 0.0);
    sim.alive.clear();
    sim.alive.extend(0..k);
    let mut weigh = None;
    for _ in 0..rounds {
        let per = (budget / (rounds * sim.alive.len())).max(1);
        for _ in 0..per {
            let seed = sim.next_deal(obs, &mut weigh, rng);
            let (dealt, agents_seed) = sim.dealt(obs, seed);
            for i in 0..sim.alive.len() {
                let j = sim.alive[i];
                let mut g = dealt.clone();
                let mode = Mode::Forced(actions[j]);
                let r = sim.play_out(obs, root, mode, &mut g, agents_seed, objective);
                sim.sums[j] += r[me];
            }
        }
        // Survivors have equal sample counts: compare sums.
        let sums = &sim.sums;
        sim.alive
            .sort_by(|&a, &b| sums[b].total_cmp(&sums[a]).then(a.cmp(&b)));
        let keep = sim.alive.len().div_ceil(2);
        sim.alive.truncate(keep);
        if keep == 1 {
            break;
        }
    }
    actions[sim.alive[0]]
}
