//! Search agents: `pimc` (perfect-information Monte Carlo) and `ismcts`
//! (single-observer information-set MCTS). Both see only their
//! [`Observation`]: every simulation starts from [`Game::determinize`] (the
//! unseen cards dealt at random) and plays the round on from the decision at
//! hand with [`Game::resume_round`].
//!
//! How a simulation is driven: every seat of the simulated table is a
//! [`SearchSeat`] sharing one [`Walk`] (the state of the current simulation).
//! A seat asked for a decision either follows the walk (the root action forced
//! by `pimc`, a tree step of `ismcts`) or, once the walk has left the tree,
//! answers as the rollout policy (a preset) would. An action is a joint choice
//! (a wild with its colour, a swap card with its target), so the colour and the
//! target asked right after a play come from the walk's plan.

mod actions;
mod config;
mod ismcts;
mod pimc;

use crate::agents::Seat;
use crate::engine::cards::{CardId, CardSet, Color};
use crate::engine::game::{Agents, Game, Observation, Playout, ResumeAt, Rng, MAX_PLAYERS};
use crate::engine::rules::Scoring;
use crate::engine::strategy::Strategy;
use rand::{RngCore, SeedableRng};
use std::sync::{Arc, Mutex, MutexGuard};

use actions::*;
pub use config::{Objective, SearchConfig, SearchKind, SearchParams};

// ----- the walk: one simulation's shared state ----------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// The next decision (the root's) takes this action (`pimc`).
    Forced(Action),
    /// Decisions walk down the `ismcts` tree.
    Tree,
    /// Every decision is the rollout policy's.
    Rollout,
}

/// The colour and target that go with a joint action, for the calls that
/// follow it in the same play.
#[derive(Clone, Copy, Debug, Default)]
struct Plan {
    color: Option<Color>,
    target: Option<u8>,
}

/// The state of the simulation in progress, shared by the simulated seats.
pub struct Walk {
    mode: Mode,
    /// The root is an `answer_stack` after a declined challenge: the replayed
    /// turn asks the challenge again, and it is declined again.
    decline_challenge: bool,
    plan: [Plan; MAX_PLAYERS],
    /// The rollout policy, one instance per seat.
    policy: Vec<Seat>,
    tree: ismcts::Tree,
    actions: Vec<Action>,
    /// The rollout policy's choice at the decision at hand (`ismcts` expands
    /// it first, so that simulations start as the policy would play).
    prefer: Option<Action>,
}

impl Walk {
    fn new(cfg: &SearchConfig, players: usize, budget: usize) -> Walk {
        Walk {
            mode: Mode::Rollout,
            decline_challenge: false,
            plan: [Plan::default(); MAX_PLAYERS],
            policy: (0..players).map(|_| cfg.rollout.instantiate()).collect(),
            tree: ismcts::Tree::with_capacity(budget, cfg.params.exploration),
            actions: Vec::with_capacity(256),
            prefer: None,
        }
    }

    /// In tree mode, notes the rollout policy's choice among `self.actions`
    /// for the decision at hand: the action of `kind` with a card identical
    /// to `card` (and the colour and target the policy would name), or the
    /// action `other` when the policy declines (`card` is `None`).
    fn prefer_card(
        &mut self,
        seat: u8,
        obs: &Observation,
        kind: Kind,
        card: Option<CardId>,
        other: Kind,
        rng: &mut Rng,
    ) {
        let Some(c) = card else {
            self.prefer = Some(Action::simple(other));
            return;
        };
        let d = &obs.rules().deck;
        let same = d.identical(c);
        let policy = &mut self.policy[seat as usize];
        let col = d.color(c).is_none().then(|| policy.choose_color(obs, rng));
        let wants_target = self.actions.iter().any(|a| a.target().is_some());
        let t = wants_target.then(|| policy.choose_target(obs, rng));
        self.prefer = self.actions.iter().copied().find(|a| {
            a.is(kind)
                && same.contains(a.card())
                && (a.color().is_none() || a.color() == col)
                && (a.target().is_none() || a.target() == t)
        });
    }

    /// Decides for `seat` among `self.actions` (non-empty) in Forced or Tree mode.
    fn decide(&mut self, seat: u8, rng: &mut Rng) -> Action {
        self.decline_challenge = false;
        if self.actions.len() == 1 {
            self.prefer = None;
            return self.actions[0];
        }
        match self.mode {
            Mode::Forced(a) => {
                self.mode = Mode::Rollout;
                debug_assert!(self.actions.contains(&a));
                a
            }
            _ => {
                let prefer = self.prefer.take();
                let (a, expanded) = self.tree.step(seat, &self.actions, prefer, rng);
                if expanded {
                    self.mode = Mode::Rollout;
                }
                a
            }
        }
    }

    fn set_plan(&mut self, seat: u8, a: Action) {
        self.plan[seat as usize] = Plan {
            color: a.color(),
            target: a.target(),
        };
    }
}

fn lock(w: &Mutex<Walk>) -> MutexGuard<'_, Walk> {
    w.lock().unwrap_or_else(|e| e.into_inner())
}

/// A seat of a simulated table: follows the walk, else the rollout policy.
pub struct SearchSeat {
    seat: u8,
    walk: Arc<Mutex<Walk>>,
}

impl Strategy for SearchSeat {
    fn name(&self) -> &str {
        "search-rollout"
    }
    fn ask_without_choice(&self) -> bool {
        false
    }
    fn choose_play(
        &mut self,
        obs: &Observation,
        playable: CardSet,
        rng: &mut Rng,
    ) -> Option<CardId> {
        let w = &mut *lock(&self.walk);
        let s = self.seat;
        w.plan[s as usize] = Plan::default();
        if w.mode == Mode::Rollout {
            return w.policy[s as usize].choose_play(obs, playable, rng);
        }
        play_actions(&mut w.actions, obs, playable);
        if w.mode == Mode::Tree && w.actions.len() > 1 {
            let c = w.policy[s as usize].choose_play(obs, playable, rng);
            w.prefer_card(s, obs, Kind::Play, c, Kind::Draw, rng);
        }
        let a = w.decide(s, rng);
        w.set_plan(s, a);
        a.is(Kind::Play).then(|| a.card())
    }
    fn play_drawn(&mut self, obs: &Observation, card: CardId, rng: &mut Rng) -> bool {
        let w = &mut *lock(&self.walk);
        let s = self.seat;
        w.plan[s as usize] = Plan::default();
        if w.mode == Mode::Rollout {
            return w.policy[s as usize].play_drawn(obs, card, rng);
        }
        drawn_actions(&mut w.actions, obs, card);
        if w.mode == Mode::Tree {
            let yes = w.policy[s as usize].play_drawn(obs, card, rng);
            w.prefer_card(
                s,
                obs,
                Kind::PlayDrawn,
                yes.then_some(card),
                Kind::Keep,
                rng,
            );
        }
        let a = w.decide(s, rng);
        w.set_plan(s, a);
        a.is(Kind::PlayDrawn)
    }
    fn choose_color(&mut self, obs: &Observation, rng: &mut Rng) -> Color {
        let w = &mut *lock(&self.walk);
        let s = self.seat as usize;
        if let Some(c) = w.plan[s].color.take() {
            return c;
        }
        if w.mode == Mode::Rollout {
            return w.policy[s].choose_color(obs, rng);
        }
        color_actions(&mut w.actions);
        if w.mode == Mode::Tree {
            let c = w.policy[s].choose_color(obs, rng);
            w.prefer = Some(Action::new(Kind::Color, 0, Some(c), None));
        }
        w.decide(self.seat, rng).color().unwrap_or(Color::Red)
    }
    fn call_uno(&mut self, obs: &Observation, rng: &mut Rng) -> bool {
        let w = &mut *lock(&self.walk);
        if w.mode == Mode::Rollout {
            return w.policy[self.seat as usize].call_uno(obs, rng);
        }
        true
    }
    fn choose_target(&mut self, obs: &Observation, rng: &mut Rng) -> u8 {
        let w = &mut *lock(&self.walk);
        let s = self.seat as usize;
        if let Some(t) = w.plan[s].target.take() {
            return t;
        }
        if w.mode == Mode::Rollout {
            return w.policy[s].choose_target(obs, rng);
        }
        target_actions(&mut w.actions, obs);
        if w.mode == Mode::Tree {
            let t = w.policy[s].choose_target(obs, rng);
            w.prefer = Some(Action::new(Kind::Target, 0, None, Some(t)));
        }
        w.decide(self.seat, rng)
            .target()
            .unwrap_or(obs.seat_after(1))
    }
    fn answer_stack(
        &mut self,
        obs: &Observation,
        answers: CardSet,
        rng: &mut Rng,
    ) -> Option<CardId> {
        let w = &mut *lock(&self.walk);
        let s = self.seat;
        w.plan[s as usize] = Plan::default();
        if w.mode == Mode::Rollout {
            return w.policy[s as usize].answer_stack(obs, answers, rng);
        }
        answer_actions(&mut w.actions, obs, answers);
        if w.mode == Mode::Tree {
            let c = w.policy[s as usize].answer_stack(obs, answers, rng);
            w.prefer_card(s, obs, Kind::Answer, c, Kind::TakeDraw, rng);
        }
        let a = w.decide(s, rng);
        w.set_plan(s, a);
        a.is(Kind::Answer).then(|| a.card())
    }
    fn challenge(&mut self, obs: &Observation, rng: &mut Rng) -> bool {
        let w = &mut *lock(&self.walk);
        if w.decline_challenge {
            w.decline_challenge = false;
            return false;
        }
        if w.mode == Mode::Rollout {
            return w.policy[self.seat as usize].challenge(obs, rng);
        }
        pair(&mut w.actions, Kind::Challenge, Kind::NoChallenge);
        if w.mode == Mode::Tree {
            let yes = w.policy[self.seat as usize].challenge(obs, rng);
            w.prefer = Some(Action::simple(if yes {
                Kind::Challenge
            } else {
                Kind::NoChallenge
            }));
        }
        w.decide(self.seat, rng).is(Kind::Challenge)
    }
    fn jump_in(&mut self, obs: &Observation, card: CardId, rng: &mut Rng) -> bool {
        let w = &mut *lock(&self.walk);
        let s = self.seat;
        w.plan[s as usize] = Plan::default();
        if w.mode == Mode::Rollout {
            return w.policy[s as usize].jump_in(obs, card, rng);
        }
        jump_actions(&mut w.actions, obs, card);
        if w.mode == Mode::Tree {
            let yes = w.policy[s as usize].jump_in(obs, card, rng);
            w.prefer_card(s, obs, Kind::JumpIn, yes.then_some(card), Kind::NoJump, rng);
        }
        let a = w.decide(s, rng);
        w.set_plan(s, a);
        a.is(Kind::JumpIn)
    }
}

// ----- the agent -------------------------------------------------------------

/// The decision a root search is about.
#[derive(Clone, Copy, Debug)]
struct Root {
    at: ResumeAt,
    decline_challenge: bool,
}

/// A search agent (`pimc` or `ismcts`), the player at the real table.
pub struct SearchAgent {
    cfg: SearchConfig,
    /// Built at the first decision (the table size is known then).
    sim: Option<Sim>,
    /// The plan of the joint action just returned (colour, target).
    plan: Plan,
    /// The rollout policy, for the decisions the search does not make.
    fallback: Seat,
    actions: Vec<Action>,
    /// Decisions searched (for benchmarks).
    searched: u64,
}

/// The simulated table: seats sharing the walk.
struct Sim {
    /// The agent's seat.
    me: u8,
    walk: Arc<Mutex<Walk>>,
    seats: Vec<Seat>,
    /// `pimc`: the summed reward of each root action, and the actions still
    /// in the running (successive halving).
    sums: Vec<f64>,
    alive: Vec<usize>,
    /// Simulations played.
    played: u64,
}

impl SearchAgent {
    pub fn new(cfg: SearchConfig) -> SearchAgent {
        let fallback = cfg.rollout.instantiate();
        SearchAgent {
            cfg,
            sim: None,
            plan: Plan::default(),
            fallback,
            actions: Vec::with_capacity(256),
            searched: 0,
        }
    }

    /// Decisions searched so far (decisions with one legal action and those
    /// left to the rollout policy are not searched).
    pub fn searched(&self) -> u64 {
        self.searched
    }

    /// Simulations (determinization and playout) played so far.
    pub fn simulations(&self) -> u64 {
        self.sim.as_ref().map_or(0, |s| s.played)
    }

    /// The simulated table for `players` seats, the agent at `me`. Under
    /// `pimc` only the agent's seat follows the walk (every later decision is
    /// the rollout policy's), so the other seats are plain policy seats.
    fn sim(&mut self, players: usize, me: u8) -> &mut Sim {
        let pimc = self.cfg.kind == SearchKind::Pimc;
        if self.sim.as_ref().map(|s| (s.seats.len(), s.me)) != Some((players, me)) {
            let budget = match self.cfg.kind {
                SearchKind::Pimc => 0,
                SearchKind::Ismcts => self.cfg.params.iterations as usize,
            };
            let walk = Arc::new(Mutex::new(Walk::new(&self.cfg, players, budget)));
            let seats = (0..players as u8)
                .map(|seat| {
                    if pimc && seat != me {
                        self.cfg.rollout.instantiate()
                    } else {
                        Seat::custom(SearchSeat {
                            seat,
                            walk: walk.clone(),
                        })
                    }
                })
                .collect();
            self.sim = Some(Sim {
                me,
                walk,
                seats,
                sums: Vec::with_capacity(256),
                alive: Vec::with_capacity(256),
                played: 0,
            });
        }
        self.sim.as_mut().unwrap()
    }

    /// Searches the decision at hand among `self.actions` and returns the action.
    fn search(&mut self, obs: &Observation, root: Root, rng: &mut Rng) -> Action {
        if self.actions.len() == 1 {
            return self.actions[0];
        }
        let objective = self.cfg.params.objective;
        let iterations = self.cfg.params.iterations;
        let halving = self.cfg.params.halving;
        let kind = self.cfg.kind;
        let mut actions = std::mem::take(&mut self.actions);
        let sim = self.sim(obs.players(), obs.seat());
        let a = match kind {
            SearchKind::Pimc => pimc::decide(
                sim, obs, root, &actions, iterations, objective, halving, rng,
            ),
            SearchKind::Ismcts => {
                ismcts::decide(sim, obs, root, &actions, iterations, objective, rng)
            }
        };
        self.searched += 1;
        actions.clear();
        self.actions = actions;
        a
    }
}

impl Sim {
    /// One simulation: a determinization from `det_seed`, the walk in `mode`,
    /// the round played on; the rewards of every seat.
    fn simulate(
        &mut self,
        obs: &Observation,
        root: Root,
        mode: Mode,
        det_seed: u64,
        objective: Objective,
    ) -> [f64; MAX_PLAYERS] {
        self.played += 1;
        let mut det = Rng::seed_from_u64(det_seed);
        let mut g = Game::determinize(obs, &mut det);
        // An ordered draw pile (the determinization shuffled it): the same
        // cards come in the same order whatever the action tried, so actions
        // are compared on common random numbers.
        g.set_lazy_pile(false);
        {
            let mut w = lock(&self.walk);
            w.mode = mode;
            w.decline_challenge = root.decline_challenge;
            w.plan = [Plan::default(); MAX_PLAYERS];
        }
        let mut agents = Agents {
            seats: &mut self.seats,
            rng: Rng::seed_from_u64(det.next_u64()),
        };
        let out = g.resume_round(obs.seat(), root.at, &mut agents);
        rewards(&g, &out, objective)
    }
}

/// The reward of every seat for a played-out round.
fn rewards(g: &Game, out: &Playout, objective: Objective) -> [f64; MAX_PLAYERS] {
    let mut r = [0.0; MAX_PLAYERS];
    if out.illegal {
        return r;
    }
    match objective {
        Objective::Win => {
            if let Some(w) = out.winner {
                r[w as usize] = 1.0;
            }
        }
        Objective::Points => {
            let penalty = g.rules().settings.scoring == Scoring::Penalty;
            for s in 0..g.players() {
                let net = if penalty {
                    -(out.points[s] as f64)
                } else if out.winner == Some(s as u8) {
                    out.points[s] as f64
                } else {
                    -(out.hand_points[s] as f64)
                };
                r[s] = net / 100.0;
            }
        }
    }
    r
}

impl Strategy for SearchAgent {
    fn name(&self) -> &str {
        &self.cfg.name
    }
    fn ask_without_choice(&self) -> bool {
        false
    }
    fn choose_play(
        &mut self,
        obs: &Observation,
        playable: CardSet,
        rng: &mut Rng,
    ) -> Option<CardId> {
        play_actions(&mut self.actions, obs, playable);
        let root = Root {
            at: ResumeAt::Play,
            decline_challenge: false,
        };
        let a = self.search(obs, root, rng);
        self.plan = Plan {
            color: a.color(),
            target: a.target(),
        };
        a.is(Kind::Play).then(|| a.card())
    }
    fn play_drawn(&mut self, obs: &Observation, card: CardId, rng: &mut Rng) -> bool {
        drawn_actions(&mut self.actions, obs, card);
        let root = Root {
            at: ResumeAt::Drawn(card),
            decline_challenge: false,
        };
        let a = self.search(obs, root, rng);
        self.plan = Plan {
            color: a.color(),
            target: a.target(),
        };
        a.is(Kind::PlayDrawn)
    }
    fn choose_color(&mut self, obs: &Observation, rng: &mut Rng) -> Color {
        if let Some(c) = self.plan.color.take() {
            return c;
        }
        if obs.turns() == 0 {
            // A wild start card, before the first turn.
            color_actions(&mut self.actions);
            let root = Root {
                at: ResumeAt::StartColor,
                decline_challenge: false,
            };
            return self.search(obs, root, rng).color().unwrap_or(Color::Red);
        }
        // A drawn wild played by force: the rollout policy names the colour.
        self.fallback.choose_color(obs, rng)
    }
    fn call_uno(&mut self, _: &Observation, _: &mut Rng) -> bool {
        true
    }
    fn choose_target(&mut self, obs: &Observation, rng: &mut Rng) -> u8 {
        if let Some(t) = self.plan.target.take() {
            return t;
        }
        self.fallback.choose_target(obs, rng)
    }
    fn answer_stack(
        &mut self,
        obs: &Observation,
        answers: CardSet,
        rng: &mut Rng,
    ) -> Option<CardId> {
        answer_actions(&mut self.actions, obs, answers);
        let d = &obs.rules().deck;
        let root = Root {
            at: ResumeAt::Pending,
            decline_challenge: obs.settings().bluff_challenge && d.wd4.contains(obs.top()),
        };
        let a = self.search(obs, root, rng);
        self.plan = Plan {
            color: a.color(),
            target: a.target(),
        };
        a.is(Kind::Answer).then(|| a.card())
    }
    fn challenge(&mut self, obs: &Observation, rng: &mut Rng) -> bool {
        pair(&mut self.actions, Kind::Challenge, Kind::NoChallenge);
        let root = Root {
            at: ResumeAt::Pending,
            decline_challenge: false,
        };
        self.search(obs, root, rng).is(Kind::Challenge)
    }
    fn jump_in(&mut self, obs: &Observation, card: CardId, rng: &mut Rng) -> bool {
        // The round cannot be re-entered in the middle of another player's
        // play: the rollout policy answers, and names the target of a
        // seven-o 7 (see docs/agents.md).
        self.plan = Plan::default();
        self.fallback.jump_in(obs, card, rng)
    }
}

impl std::fmt::Debug for SearchAgent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} {:?} {:?}",
            self.cfg.name, self.cfg.kind, self.cfg.params
        )
    }
}
