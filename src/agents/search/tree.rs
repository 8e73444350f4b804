//! The tree of an `ismcts` decision: nodes preallocated, one per
//! iteration; UCB1 with availability counts among the children legal in the
//! iteration's determinization, progressive bias and widening, and the
//! rewards backpropagated to the seat that chose each node's action
//! (see [`super::ismcts`] for the search that drives it).

use super::actions::Action;
use super::SearchParams;
use crate::engine::game::{below, Rng, MAX_PLAYERS};

const NONE: u32 = u32::MAX;

/// Most legal actions of one decision the tree keeps apart.
const MAX_ACTIONS: usize = 512;

#[derive(Clone, Copy, Debug)]
struct Node {
    action: Action,
    /// The seat that chooses this node's action.
    seat: u8,
    visits: u32,
    avail: u32,
    reward: f64,
    first_child: u32,
    next_sibling: u32,
}

/// The search tree of one decision (preallocated: one node per iteration).
pub(super) struct Tree {
    nodes: Vec<Node>,
    /// Most nodes this decision (one per iteration, and the root).
    limit: usize,
    path: Vec<u32>,
    cur: u32,
    /// The searcher's main decisions (not colours, not targets) on the path.
    depth: u32,
    exploration: f64,
    prior: f64,
    /// Progressive widening (0: off; see `SearchParams::widen`).
    widen: f64,
    /// `paired`: the action the searcher takes at the root this iteration.
    pub(super) force: Option<Action>,
}

impl Tree {
    pub(super) fn with_capacity(iterations: usize, params: &SearchParams) -> Tree {
        Tree {
            nodes: Vec::with_capacity(iterations + 1),
            limit: iterations + 1,
            path: Vec::with_capacity(256),
            cur: 0,
            depth: 0,
            exploration: params.exploration,
            prior: params.prior,
            widen: params.widen,
            force: None,
        }
    }

    /// A new child of the current node for `action` of `seat` (available
    /// once: this iteration), which the walk goes on from.
    #[inline]
    fn add_child(&mut self, action: Action, seat: u8) {
        let id = self.nodes.len() as u32;
        let parent = self.cur as usize;
        self.nodes.push(Node {
            action,
            seat,
            visits: 0,
            avail: 1,
            reward: 0.0,
            first_child: NONE,
            next_sibling: self.nodes[parent].first_child,
        });
        self.nodes[parent].first_child = id;
        self.path.push(id);
        self.cur = id;
    }

    /// Empties the tree for a decision of `iterations` iterations (grows
    /// the node store if it must: once per larger budget, never during the
    /// iterations).
    pub(super) fn reset(&mut self, iterations: usize) {
        self.limit = iterations + 1;
        self.nodes.clear();
        self.nodes.reserve(self.limit);
        self.nodes.push(Node {
            action: Action(0),
            seat: 0,
            visits: 0,
            avail: 0,
            reward: 0.0,
            first_child: NONE,
            next_sibling: NONE,
        });
    }

    pub(super) fn begin(&mut self) {
        self.cur = 0;
        self.depth = 0;
        self.path.clear();
        self.force = None;
    }

    /// The main decisions (not colours or targets) walked so far in this
    /// iteration.
    pub(super) fn depth(&self) -> u32 {
        self.depth
    }

    /// Whether the next step is the root action a paired iteration forces.
    pub(super) fn forcing(&self) -> bool {
        self.force.is_some()
    }

    /// One decision of `seat` among `actions` inside the tree: returns the
    /// action and whether it was a new node (the walk then leaves the tree).
    pub(super) fn step(
        &mut self,
        seat: u8,
        actions: &[Action],
        prefer: Option<Action>,
        rng: &mut Rng,
    ) -> (Action, bool) {
        let n = actions.len().min(MAX_ACTIONS);
        if !actions[0].is_sub() {
            self.depth += 1;
        }
        if let Some(f) = self.force.take() {
            if actions[..n].contains(&f) {
                return self.take(seat, f);
            }
        }
        let mut has = [0u64; MAX_ACTIONS / 64];
        let mut tried = 0;
        // The child of the preferred action, if it is one already.
        let mut preferred_child = NONE;
        let mut child = self.nodes[self.cur as usize].first_child;
        while child != NONE {
            let node = &mut self.nodes[child as usize];
            if node.seat == seat {
                if let Some(i) = actions[..n].iter().position(|&a| a == node.action) {
                    has[i / 64] |= 1 << (i % 64);
                    node.avail += 1;
                    tried += 1;
                    if Some(node.action) == prefer {
                        preferred_child = child;
                    }
                }
            }
            child = node.next_sibling;
        }
        // Expand the rollout policy's choice if untried, else one untried
        // action chosen uniformly (with widening, only while the node has
        // fewer available children than its visits allow).
        let preferred = prefer
            .and_then(|p| actions[..n].iter().position(|&a| a == p))
            .filter(|&i| has[i / 64] & (1 << (i % 64)) == 0);
        let mut room = tried < n;
        if self.widen > 0.0 && preferred.is_none() {
            let visits = self.nodes[self.cur as usize].visits as f64;
            let deviations = (visits / self.widen).sqrt() as usize;
            if deviations == 0 && preferred_child != NONE {
                // Too few visits to deviate: the preferred action's child
                // (its availability is counted above, once).
                self.path.push(preferred_child);
                self.cur = preferred_child;
                return (self.nodes[preferred_child as usize].action, false);
            }
            room = tried < n.min(1 + deviations);
        }
        if room && self.nodes.len() < self.limit {
            let mut k = if preferred.is_some() {
                u32::MAX
            } else {
                below(rng, (n - tried) as u32)
            };
            let mut pick = preferred.unwrap_or(0);
            for i in 0..n {
                if k == u32::MAX {
                    break;
                }
                if has[i / 64] & (1 << (i % 64)) == 0 {
                    if k == 0 {
                        pick = i;
                        break;
                    }
                    k -= 1;
                }
            }
            self.add_child(actions[pick], seat);
            return (actions[pick], true);
        }
        if tried == 0 {
            // No room left in the tree for an untried action: the walk
            // leaves the tree here, as the rollout policy would play.
            let a = prefer
                .filter(|p| actions[..n].contains(p))
                .unwrap_or_else(|| actions[below(rng, n as u32) as usize]);
            return (a, true);
        }
        // UCB1 over the available children (with the progressive bias
        // towards the rollout policy's choice).
        let mut best = NONE;
        let mut best_v = f64::NEG_INFINITY;
        let mut child = self.nodes[self.cur as usize].first_child;
        while child != NONE {
            let node = &self.nodes[child as usize];
            if node.seat == seat && actions[..n].contains(&node.action) {
                let v = if node.visits == 0 {
                    f64::INFINITY
                } else {
                    let vis = node.visits as f64;
                    let bias = if Some(node.action) == prefer {
                        self.prior / (vis + 1.0)
                    } else {
                        0.0
                    };
                    node.reward / vis
                        + self.exploration * ((node.avail as f64).ln() / vis).sqrt()
                        + bias
                };
                if v > best_v {
                    best_v = v;
                    best = child;
                }
            }
            child = node.next_sibling;
        }
        self.path.push(best);
        self.cur = best;
        (self.nodes[best as usize].action, false)
    }

    /// The step to `action` (the root action of a paired iteration): its
    /// child, made if new (the walk then leaves the tree).
    fn take(&mut self, seat: u8, action: Action) -> (Action, bool) {
        let mut child = self.nodes[self.cur as usize].first_child;
        while child != NONE {
            let node = &mut self.nodes[child as usize];
            if node.seat == seat && node.action == action {
                node.avail += 1;
                self.path.push(child);
                self.cur = child;
                return (action, false);
            }
            child = node.next_sibling;
        }
        if self.nodes.len() < self.limit {
            self.add_child(action, seat);
        }
        (action, true)
    }

    pub(super) fn backpropagate(&mut self, r: &[f64; MAX_PLAYERS]) {
        // The root's visits count the iterations (widening reads them).
        self.nodes[0].visits += 1;
        for &id in &self.path {
            let node = &mut self.nodes[id as usize];
            node.visits += 1;
            node.reward += r[node.seat as usize];
        }
    }

    /// The root child visited most (the better mean on a tie), or the first
    /// action if the root was never expanded. With sub-decisions in the tree
    /// (`decompose`), the target and colour of a play come from the child
    /// visited most under it (none: the caller's fallback decides).
    pub(super) fn best_root(&self, actions: &[Action]) -> Action {
        let Some(id) = self.most_visited(0, |a| actions.contains(&a)) else {
            return actions[0];
        };
        self.under(id)
    }

    /// `paired`: the root action with the best mean reward, the first listed
    /// on a tie (as `pimc` chooses), with its sub-decisions as
    /// [`Tree::best_root`] takes them.
    pub(super) fn best_paired(&self, actions: &[Action]) -> Action {
        let mut best: Option<(usize, u32, f64)> = None;
        let mut child = self.nodes[0].first_child;
        while child != NONE {
            let node = &self.nodes[child as usize];
            if let Some(i) = actions.iter().position(|&a| a == node.action) {
                let mean = if node.visits == 0 {
                    f64::NEG_INFINITY
                } else {
                    node.reward / node.visits as f64
                };
                let better = match best {
                    None => true,
                    Some((j, _, m)) => mean > m || (mean == m && i < j),
                };
                if better {
                    best = Some((i, child, mean));
                }
            }
            child = node.next_sibling;
        }
        match best {
            Some((_, id, _)) => self.under(id),
            None => actions[0],
        }
    }

    /// The root child `id`'s action, with the target and colour of a play
    /// from the child visited most under it in a decomposed tree.
    fn under(&self, id: u32) -> Action {
        let mut a = self.nodes[id as usize].action;
        let mut at = id;
        for _ in 0..2 {
            let Some(sub) = self.most_visited(at, |x| x.is_sub()) else {
                break;
            };
            let s = self.nodes[sub as usize].action;
            a = a.with(s.color().or(a.color()), s.target().or(a.target()));
            at = sub;
        }
        a
    }

    /// The child of `parent` visited most among those whose action passes
    /// `keep` (the better mean on a tie).
    fn most_visited(&self, parent: u32, keep: impl Fn(Action) -> bool) -> Option<u32> {
        let mut best: Option<u32> = None;
        let mut child = self.nodes[parent as usize].first_child;
        while child != NONE {
            let node = &self.nodes[child as usize];
            let better = match best {
                None => true,
                Some(b) => {
                    let b = &self.nodes[b as usize];
                    node.visits > b.visits
                        || (node.visits == b.visits
                            && node.reward * b.visits as f64 > b.reward * node.visits as f64)
                }
            };
            if better && keep(node.action) {
                best = Some(child);
            }
            child = node.next_sibling;
        }
        best
    }
}

#[cfg(test)]
mod tests {
    use super::super::actions::Kind;
    use super::*;
    use rand::SeedableRng;

    fn plays(n: u8) -> Vec<Action> {
        (0..n)
            .map(|c| Action::new(Kind::Play, c, None, None))
            .collect()
    }

    /// Iterations of one decision of seat 0 at the root, every action legal,
    /// the policy preferring the first; returns the actions walked and the
    /// root's children after each iteration.
    fn walk(widen: f64, iterations: usize) -> Vec<(Action, usize)> {
        let params = SearchParams {
            widen,
            ..SearchParams::default()
        };
        let mut tree = Tree::with_capacity(iterations, &params);
        tree.reset(iterations);
        let mut rng = Rng::seed_from_u64(3);
        let actions = plays(6);
        let mut out = Vec::new();
        for i in 0..iterations {
            tree.begin();
            let (a, _) = tree.step(0, &actions, Some(actions[0]), &mut rng);
            // The policy's choice always loses, the others win: a search
            // that is allowed to deviate does.
            let mut r = [0.0; MAX_PLAYERS];
            r[0] = if a == actions[0] { 0.0 } else { 1.0 };
            tree.backpropagate(&r);
            let mut children = 0;
            let mut c = tree.nodes[0].first_child;
            while c != NONE {
                children += 1;
                c = tree.nodes[c as usize].next_sibling;
            }
            assert_eq!(tree.nodes[0].visits as usize, i + 1);
            out.push((a, children));
        }
        // The policy's child, made at the first iteration and legal in
        // every one, was available exactly once per iteration.
        let mut c = tree.nodes[0].first_child;
        while tree.nodes[c as usize].action != actions[0] {
            c = tree.nodes[c as usize].next_sibling;
        }
        assert_eq!(tree.nodes[c as usize].avail as usize, iterations);
        out
    }

    #[test]
    fn widening_follows_the_policy_until_visits_allow_more_children() {
        let first = plays(1)[0];
        let w = walk(10.0, 200);
        // Fewer than 10 visits: the policy's choice only, though it loses.
        for (i, &(a, children)) in w.iter().enumerate().take(10) {
            assert_eq!(a, first, "iteration {i}");
            assert_eq!(children, 1, "iteration {i}");
        }
        // At v visits before the step, at most 1 + floor(sqrt(v / 10))
        // children; the deviations, which win, are taken.
        for (v, &(_, children)) in w.iter().enumerate() {
            assert!(children <= 1 + (v as f64 / 10.0).sqrt() as usize, "v={v}");
        }
        assert_eq!(w[199].1, 5, "1 + floor(sqrt(199 / 10)) children");
        let deviations = w.iter().filter(|&&(a, _)| a != first).count();
        assert!(deviations > 150, "deviations taken: {deviations}");
        // Without widening every action is tried in the first six iterations.
        let w = walk(0.0, 6);
        assert_eq!(w[5].1, 6);
    }
}
