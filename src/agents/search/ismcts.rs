//! `ismcts`: single-observer information-set MCTS (Cowling, Powley and
//! Whitehouse 2012, SO-ISMCTS). One tree per decision, whose nodes are
//! sequences of actions of every seat; each iteration deals a fresh
//! determinization, walks down the tree choosing among the children whose
//! action is legal in it (UCB1 with availability counts: a child's exploration
//! term counts the iterations in which it could have been chosen), expands one
//! untried legal action, plays the round out with the rollout policy, and adds
//! to every node on the path the reward of the seat that chose its action (so
//! each seat maximises its own reward, at any table size). The root action
//! visited most is played.
//!
//! Options (docs/agents.md): `opponents = "policy"` keeps only the
//! searcher's own decisions in the tree (the others play as the rollout
//! policy); `prior` adds a progressive bias towards the rollout policy's own
//! choice; `per_action` sets the budget to `iterations` per legal action;
//! `paired` plays the root as `pimc` does (every legal action on the same
//! determinizations: common random numbers), the tree growing below each
//! root action, and plays the best mean (the first listed on a tie, as
//! `pimc`); `widen` is progressive widening (a node follows the preferred
//! action until its visits allow others); `guide` names the policy whose
//! choice is preferred (the rollout policy by default).

use super::actions::{Action, Mode};
use super::sim::{Root, Sim};
use super::Objective;
use crate::engine::game::{Observation, Rng};

pub(super) fn decide(
    sim: &mut Sim,
    obs: &Observation,
    root: Root,
    actions: &[Action],
    iterations: u32,
    objective: Objective,
    rng: &mut Rng,
) -> Action {
    let mut weigh = None;
    if sim.paired {
        // Every root action on the same determinizations (common random
        // numbers, as pimc), the tree growing below each.
        sim.table.tree.reset(iterations as usize * actions.len());
        for _ in 0..iterations {
            let seed = sim.next_deal(obs, &mut weigh, rng);
            let (dealt, agents_seed) = sim.dealt(obs, seed);
            for &a in actions {
                sim.table.tree.begin();
                sim.table.tree.force = Some(a);
                let mut g = dealt.clone();
                let r = sim.play_out(obs, root, Mode::Tree, &mut g, agents_seed, objective);
                sim.table.tree.backpropagate(&r);
            }
        }
        return sim.table.tree.best_paired(actions);
    }
    let iterations = iterations as usize * if sim.per_action { actions.len() } else { 1 };
    sim.table.tree.reset(iterations);
    for _ in 0..iterations {
        let seed = sim.next_deal(obs, &mut weigh, rng);
        sim.table.tree.begin();
        let r = sim.simulate(obs, root, Mode::Tree, seed, objective);
        sim.table.tree.backpropagate(&r);
    }
    sim.table.tree.best_root(actions)
}
