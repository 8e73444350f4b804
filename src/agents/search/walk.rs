//! The simulated table: a [`Table`] of its own that holds the walk (the state
//! of the simulation in progress) and the rollout policy of every seat, so
//! that the seats share the walk without a lock and the rollout policy (a
//! built-in preset, a `Seat` variant) is called without a virtual call.
//!
//! A seat asked for a decision either follows the walk (the root action forced
//! by `pimc`, a tree step of `ismcts`) or, once the walk has left the tree, or
//! for a seat that does not walk (the others under `pimc` and under `ismcts`
//! with `opponents = "policy"`), answers as the rollout policy would. An action
//! is a joint choice (a wild with its colour, a swap card with its target), so
//! the colour and the target asked right after a play come from the walk's
//! plan.

use super::actions::*;
use super::tree::Tree;
use super::{SearchConfig, SearchKind};
use crate::agents::Seat;
use crate::engine::cards::{CardId, CardSet, Color};
use crate::engine::game::{MatchResult, Observation, Rng, RoundResult, MAX_PLAYERS};
use crate::engine::strategy::{Strategy, Table};

/// The colour and target that go with a joint action, for the calls that
/// follow it in the same play.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Plan {
    color: Option<Color>,
    target: Option<u8>,
}

impl Plan {
    pub(super) fn of(a: Action) -> Plan {
        Plan {
            color: a.color(),
            target: a.target(),
        }
    }
    pub(super) fn take_color(&mut self) -> Option<Color> {
        self.color.take()
    }
    pub(super) fn take_target(&mut self) -> Option<u8> {
        self.target.take()
    }
}

/// The simulated table of a search agent.
pub(super) struct SimTable {
    pub(super) mode: Mode,
    /// The root is an `answer_stack` after a declined challenge: the replayed
    /// turn asks the challenge again, and it is declined again.
    pub(super) decline_challenge: bool,
    plan: [Plan; MAX_PLAYERS],
    /// The rollout policy, one instance per seat (the searcher's seat plays
    /// `own_rollout` when there is one).
    policy: Vec<Seat>,
    /// `ismcts` with a `guide`: the preset whose choice the tree prefers,
    /// one instance per seat (empty: the rollout policy's).
    guide: Vec<Seat>,
    pub(super) tree: Tree,
    actions: Vec<Action>,
    /// The rollout policy's choice at the decision at hand (`ismcts` expands
    /// it first and may bias towards it).
    prefer: Option<Action>,
    /// The seats (bits) whose decisions follow the walk.
    walkers: u16,
    /// `ismcts` with `decompose`: in the tree, a play's colour and target
    /// are decisions of their own.
    decompose: bool,
    /// `ismcts`: the most main decisions of the searcher walked in the tree
    /// per iteration (0: no limit).
    max_depth: u32,
}

impl SimTable {
    pub(super) fn new(
        cfg: &SearchConfig,
        players: usize,
        me: u8,
        budget: usize,
        walkers: u16,
    ) -> Self {
        SimTable {
            mode: Mode::Rollout,
            decline_challenge: false,
            plan: [Plan::default(); MAX_PLAYERS],
            policy: (0..players)
                .map(|s| match &cfg.own_rollout {
                    Some(own) if s == me as usize => own.instantiate(),
                    _ => cfg.rollout.instantiate(),
                })
                .collect(),
            // Only a tree prefers (`pimc`'s `guide` ranks its root: `prune`).
            guide: match &cfg.guide {
                Some(g) if cfg.kind == SearchKind::Ismcts => {
                    (0..players).map(|_| g.instantiate()).collect()
                }
                _ => Vec::new(),
            },
            tree: Tree::with_capacity(budget, &cfg.params),
            actions: Vec::with_capacity(256),
            prefer: None,
            walkers,
            decompose: cfg.params.decompose,
            max_depth: cfg.params.depth,
        }
    }

    /// Sets up a simulation: the walk in `mode`, no plans.
    pub(super) fn begin(&mut self, mode: Mode, decline_challenge: bool) {
        self.mode = mode;
        self.decline_challenge = decline_challenge;
        self.plan = [Plan::default(); MAX_PLAYERS];
    }

    /// Whether `seat`'s decision is the rollout policy's.
    #[inline(always)]
    fn rollout(&self, seat: u8) -> bool {
        self.mode == Mode::Rollout || self.walkers & (1 << seat) == 0
    }

    /// As [`SimTable::rollout`] for a main decision (not a colour or a
    /// target), which also leaves the tree at its depth limit.
    #[inline(always)]
    fn policy_decides(&mut self, seat: u8) -> bool {
        if self.rollout(seat) {
            return true;
        }
        if self.mode == Mode::Tree && self.max_depth != 0 && self.tree.depth() >= self.max_depth {
            self.mode = Mode::Rollout;
            return true;
        }
        false
    }

    /// Whether the decision at hand asks the rollout policy's choice (a tree
    /// step, not the root action a paired iteration forces: that step draws
    /// nothing from the simulation's generator, as `pimc`'s forced action).
    #[inline(always)]
    fn prefers(&self) -> bool {
        self.mode == Mode::Tree && !self.tree.forcing()
    }

    /// The policy whose choice the tree prefers for `seat`.
    #[inline(always)]
    fn guide(&mut self, seat: u8) -> &mut Seat {
        if self.guide.is_empty() {
            &mut self.policy[seat as usize]
        } else {
            &mut self.guide[seat as usize]
        }
    }

    /// Whether the action lists are joint (a wild with its colour, a swap
    /// with its target): always but in a decomposed tree.
    fn joint(&self) -> bool {
        !(self.decompose && self.mode == Mode::Tree)
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
        let wants_target = self.actions.iter().any(|a| a.target().is_some());
        let policy = self.guide(seat);
        let col = d.color(c).is_none().then(|| policy.choose_color(obs, rng));
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
        self.plan[seat as usize] = Plan::of(a);
    }
}

impl Table for SimTable {
    fn name(&self, _: u8) -> &str {
        "search-rollout"
    }
    fn ask_without_choice(&self, _: u8) -> bool {
        false
    }
    #[inline]
    fn choose_play(
        &mut self,
        s: u8,
        obs: &Observation,
        playable: CardSet,
        rng: &mut Rng,
    ) -> Option<CardId> {
        if self.policy_decides(s) {
            return self.policy[s as usize].choose_play(obs, playable, rng);
        }
        self.plan[s as usize] = Plan::default();
        let joint = self.joint();
        play_actions(&mut self.actions, obs, playable, joint);
        if self.prefers() && self.actions.len() > 1 {
            let c = self.guide(s).choose_play(obs, playable, rng);
            self.prefer_card(s, obs, Kind::Play, c, Kind::Draw, rng);
        }
        let a = self.decide(s, rng);
        self.set_plan(s, a);
        a.is(Kind::Play).then(|| a.card())
    }
    #[inline]
    fn play_drawn(&mut self, s: u8, obs: &Observation, card: CardId, rng: &mut Rng) -> bool {
        if self.policy_decides(s) {
            return self.policy[s as usize].play_drawn(obs, card, rng);
        }
        self.plan[s as usize] = Plan::default();
        let joint = self.joint();
        drawn_actions(&mut self.actions, obs, card, joint);
        if self.prefers() {
            let yes = self.guide(s).play_drawn(obs, card, rng);
            self.prefer_card(
                s,
                obs,
                Kind::PlayDrawn,
                yes.then_some(card),
                Kind::Keep,
                rng,
            );
        }
        let a = self.decide(s, rng);
        self.set_plan(s, a);
        a.is(Kind::PlayDrawn)
    }
    #[inline]
    fn choose_color(&mut self, s: u8, obs: &Observation, rng: &mut Rng) -> Color {
        if let Some(c) = self.plan[s as usize].color.take() {
            return c;
        }
        if self.rollout(s) {
            return self.policy[s as usize].choose_color(obs, rng);
        }
        color_actions(&mut self.actions);
        if self.prefers() {
            let c = self.guide(s).choose_color(obs, rng);
            self.prefer = Some(Action::new(Kind::Color, 0, Some(c), None));
        }
        self.decide(s, rng).color().unwrap_or(Color::Red)
    }
    #[inline]
    fn call_uno(&mut self, s: u8, obs: &Observation, rng: &mut Rng) -> bool {
        if self.rollout(s) {
            return self.policy[s as usize].call_uno(obs, rng);
        }
        true
    }
    fn choose_target(&mut self, s: u8, obs: &Observation, rng: &mut Rng) -> u8 {
        if let Some(t) = self.plan[s as usize].target.take() {
            return t;
        }
        if self.rollout(s) {
            return self.policy[s as usize].choose_target(obs, rng);
        }
        target_actions(&mut self.actions, obs);
        if self.prefers() {
            let t = self.guide(s).choose_target(obs, rng);
            self.prefer = Some(Action::new(Kind::Target, 0, None, Some(t)));
        }
        self.decide(s, rng).target().unwrap_or(obs.seat_after(1))
    }
    fn answer_stack(
        &mut self,
        s: u8,
        obs: &Observation,
        answers: CardSet,
        rng: &mut Rng,
    ) -> Option<CardId> {
        if self.policy_decides(s) {
            return self.policy[s as usize].answer_stack(obs, answers, rng);
        }
        self.plan[s as usize] = Plan::default();
        let joint = self.joint();
        answer_actions(&mut self.actions, obs, answers, joint);
        if self.prefers() {
            let c = self.guide(s).answer_stack(obs, answers, rng);
            self.prefer_card(s, obs, Kind::Answer, c, Kind::TakeDraw, rng);
        }
        let a = self.decide(s, rng);
        self.set_plan(s, a);
        a.is(Kind::Answer).then(|| a.card())
    }
    fn challenge(&mut self, s: u8, obs: &Observation, rng: &mut Rng) -> bool {
        if self.decline_challenge {
            self.decline_challenge = false;
            return false;
        }
        if self.policy_decides(s) {
            return self.policy[s as usize].challenge(obs, rng);
        }
        pair(&mut self.actions, Kind::Challenge, Kind::NoChallenge);
        if self.prefers() {
            let yes = self.guide(s).challenge(obs, rng);
            self.prefer = Some(Action::simple(if yes {
                Kind::Challenge
            } else {
                Kind::NoChallenge
            }));
        }
        self.decide(s, rng).is(Kind::Challenge)
    }
    fn jump_in(&mut self, s: u8, obs: &Observation, card: CardId, rng: &mut Rng) -> bool {
        if self.policy_decides(s) {
            return self.policy[s as usize].jump_in(obs, card, rng);
        }
        self.plan[s as usize] = Plan::default();
        let joint = self.joint();
        jump_actions(&mut self.actions, obs, card, joint);
        if self.prefers() {
            let yes = self.guide(s).jump_in(obs, card, rng);
            self.prefer_card(s, obs, Kind::JumpIn, yes.then_some(card), Kind::NoJump, rng);
        }
        let a = self.decide(s, rng);
        self.set_plan(s, a);
        a.is(Kind::JumpIn)
    }
    fn round_start(&mut self, _: u8, _: &Observation) {}
    fn round_end(&mut self, _: u8, _: &Observation, _: &RoundResult) {}
    fn match_end(&mut self, _: u8, _: &Observation, _: &MatchResult) {}
    fn fault(&mut self, _: u8) -> Option<String> {
        None
    }
    fn hears_notices(&self, _: u8) -> bool {
        false
    }
}
