//! Search agents: `pimc` (perfect-information Monte Carlo) and `ismcts`
//! (single-observer information-set MCTS), and the perfect-information
//! reference `oracle`. The fair agents see only their [`Observation`]: every
//! simulation starts from a determinization ([`Game::determinize`](crate::engine::game::Game::determinize), uniform,
//! or [`Game::determinize_informed`](crate::engine::game::Game::determinize_informed), consistent with what the table revealed
//! to the agent) and plays the round on from the decision at hand with
//! [`Game::resume_round`](crate::engine::game::Game::resume_round). The `oracle` starts from the true deal
//! (`Game::reveal`, the crate's own).
//!
//! How a simulation is driven: the simulated table is a `walk::SimTable`,
//! a [`crate::engine::strategy::Table`] of its own holding the walk (the state
//! of the current simulation) and the rollout policy of every seat.

mod actions;
mod belief;
mod config;
mod ismcts;
mod pimc;
mod sim;
mod tree;
mod walk;

use crate::agents::net::NetStrategy;
use crate::agents::Seat;
use crate::engine::cards::{CardId, CardSet, Color};
use crate::engine::encode::{
    action_of_card, ActionSet, DecisionKind, ACTIONS, ACT_CHALLENGE, ACT_COLOR, ACT_DRAW, ACT_KEEP,
    ACT_NO_CHALLENGE, ACT_PLAY_DRAWN,
};
use crate::engine::game::{Knowledge, Observation, ResumeAt, Rng};
use crate::engine::rules::Deck;
use crate::engine::strategy::{Strategy, Tracking};

use actions::*;
pub use belief::{HandChain, OpponentModel, TableTurns};
pub use config::{
    Determinize, Objective, Opponents, Sampler, SearchConfig, SearchKind, SearchParams,
};
use sim::{Deal, Root, Sim};
use walk::{Plan, SimTable};

// ----- the agent -------------------------------------------------------------

/// A search agent (`pimc` or `ismcts`), the player at the real table.
pub struct SearchAgent {
    cfg: SearchConfig,
    /// The simulated tables, one per table size and seat the agent has sat
    /// at (built at its first decision there, when the size is known, and
    /// kept: an agent that moves between seats, as under mixed or rotated
    /// seating and duplicate play, allocated them again at every move);
    /// `at` is the one in use.
    sims: Vec<Sim>,
    at: usize,
    /// The plan of the joint action just returned (colour, target).
    plan: Plan,
    /// The rollout policy of the agent's own seat, for the decisions the
    /// search does not make.
    fallback: Seat,
    actions: Vec<Action>,
    /// The mean reward of every root action of the last `pimc` (or
    /// `oracle`) search without halving, for labelling ([`SearchAgent::action_values`]).
    values: Vec<(Action, f64)>,
    /// Decisions searched (for benchmarks).
    searched: u64,
    /// `prune`: the network that ranks the root's actions.
    prior: Option<NetStrategy>,
}

impl SearchAgent {
    pub fn new(cfg: SearchConfig) -> SearchAgent {
        let prior = (cfg.params.prune > 0)
            .then(|| cfg.guide.as_ref().and_then(|g| g.net()))
            .flatten()
            .map(|n| NetStrategy::new(n));
        let fallback = cfg
            .own_rollout
            .as_ref()
            .unwrap_or(&cfg.rollout)
            .instantiate();
        SearchAgent {
            cfg,
            sims: Vec::new(),
            at: 0,
            plan: Plan::default(),
            fallback,
            actions: Vec::with_capacity(256),
            values: Vec::with_capacity(256),
            searched: 0,
            prior,
        }
    }

    /// Decisions searched so far (decisions with one legal action and those
    /// left to the rollout policy are not searched).
    pub fn searched(&self) -> u64 {
        self.searched
    }

    /// Simulations (determinization and playout) played so far.
    pub fn simulations(&self) -> u64 {
        self.sims.iter().map(|s| s.played).sum()
    }

    /// The simulated table for `players` seats, the agent at `me`. Under
    /// `pimc` (and `oracle`) only the agent's seat follows the walk (every
    /// later decision is the rollout policy's); under `ismcts` every seat
    /// does, or only the agent's with `opponents = "policy"`.
    fn sim(&mut self, players: usize, me: u8) -> &mut Sim {
        if let Some(k) = self
            .sims
            .iter()
            .position(|s| (s.players, s.me) == (players, me))
        {
            self.at = k;
        } else {
            let p = &self.cfg.params;
            let (budget, walkers) = match self.cfg.kind {
                SearchKind::Pimc | SearchKind::Oracle => (0, 1u16 << me),
                SearchKind::Ismcts => (
                    p.iterations as usize,
                    match p.opponents {
                        Opponents::Tree => u16::MAX,
                        Opponents::Policy => 1u16 << me,
                    },
                ),
            };
            self.sims.push(Sim {
                me,
                players,
                table: SimTable::new(&self.cfg, players, me, budget, walkers),
                deal: match (self.cfg.kind, p.determinize) {
                    (SearchKind::Oracle, _) => match seen_places(p, players) {
                        Some(places) => Deal::RevealPlaces(places),
                        None => Deal::Reveal,
                    },
                    (_, Determinize::Uniform) if p.model_sampler == Sampler::Hands => Deal::Hands,
                    (_, _) if p.model_sampler == Sampler::Chain => Deal::Chain,
                    (_, Determinize::Uniform) => Deal::Uniform,
                    (_, Determinize::Informed) => Deal::Informed,
                },
                know: None,
                per_action: p.per_action,
                paired: p.paired,
                sums: Vec::with_capacity(256),
                alive: Vec::with_capacity(256),
                played: 0,
                model: self.cfg.model.as_ref().map(|m| {
                    belief::OpponentModel::new(m, players, p.model_noise, p.model_turns as usize)
                }),
                tries_per_deal: p.model_tries,
                chain: None,
                turns: belief::TableTurns::EMPTY,
            });
            self.at = self.sims.len() - 1;
        }
        &mut self.sims[self.at]
    }

    /// Whether root actions are joint (a wild with its colour, a swap with
    /// its target): always but for `ismcts` with `decompose`.
    fn joint(&self) -> bool {
        !(self.cfg.kind == SearchKind::Ismcts && self.cfg.params.decompose)
    }

    /// Searches the decision at hand among `self.actions` and returns the action.
    fn search(&mut self, obs: &Observation, root: Root, rng: &mut Rng) -> Action {
        self.values.clear();
        if self.actions.len() == 1 && !self.actions[0].asks_more(obs) {
            return self.actions[0];
        }
        let objective = self.cfg.params.objective;
        let iterations = self.cfg.params.iterations;
        let halving = self.cfg.params.halving;
        let kind = self.cfg.kind;
        let mut actions = std::mem::take(&mut self.actions);
        if let Some(net) = self.prior.as_mut() {
            prune(net, obs, root, &mut actions, self.cfg.params.prune as usize);
        }
        let evidence = self.cfg.params.draw_evidence;
        // What the table revealed, for informed deals and an informed chain.
        let informed = self.cfg.params.determinize == Determinize::Informed;
        let sim = self.sim(obs.players(), obs.seat());
        sim.know = informed.then(|| Knowledge::weighing_draws(obs, evidence));
        sim.chain = None;
        if sim.model.is_some() {
            sim.turns.read_into(obs);
        }
        let a = match kind {
            SearchKind::Pimc | SearchKind::Oracle => pimc::decide(
                sim, obs, root, &actions, iterations, objective, halving, rng,
            ),
            SearchKind::Ismcts => {
                ismcts::decide(sim, obs, root, &actions, iterations, objective, rng)
            }
        };
        self.searched += 1;
        if matches!(kind, SearchKind::Pimc | SearchKind::Oracle) && !halving {
            let sums = &self.sims[self.at].sums;
            let n = iterations as f64;
            self.values
                .extend(actions.iter().zip(sums).map(|(&a, &s)| (a, s / n)));
        }
        actions.clear();
        self.actions = actions;
        a
    }
}

impl SearchAgent {
    /// The values of the last decision this agent searched (`pimc` or
    /// `oracle`, without halving), on the observation encoding's actions:
    /// `out[a]` is the best mean reward of the joint actions that begin with
    /// `a` (a play of a card of that kind with any colour or target), NaN
    /// for an action not searched. False (and `out` untouched) when the
    /// last decision was not searched.
    pub fn action_values(&self, deck: &Deck, out: &mut [f32; ACTIONS]) -> bool {
        if self.values.is_empty() {
            return false;
        }
        out.fill(f32::NAN);
        for &(a, v) in &self.values {
            if let Some(i) = encoding_action(deck, a) {
                keep_max(out, i, v);
            }
        }
        true
    }

    /// The values of the colours named with `card` in the last search (a
    /// wild played as a joint action), on the colour actions of the
    /// encoding (`out[ACT_COLOR + c]`, the best over targets; the rest NaN).
    /// False when no joint action of the last search played `card`.
    pub fn color_values(&self, card: CardId, out: &mut [f32; ACTIONS]) -> bool {
        out.fill(f32::NAN);
        let mut any = false;
        for &(a, v) in &self.values {
            let plays = matches!(a.kind_of(), Kind::Play | Kind::PlayDrawn | Kind::Answer);
            if let (true, Some(c)) = (plays && a.card() == card, a.color()) {
                keep_max(out, ACT_COLOR + c.index(), v);
                any = true;
            }
        }
        any
    }
}

/// The places (bit `k`: `k` seats on in the direction of play) whose hands
/// a partial ceiling sees at a table of `players` (`oracle` with
/// `sees_next` or `sees_previous`); `None` when it sees every hand (neither
/// set, or the two together reach every other player).
fn seen_places(p: &SearchParams, players: usize) -> Option<u16> {
    let others = players - 1;
    let next = (p.sees_next as usize).min(others);
    let previous = (p.sees_previous as usize).min(others);
    let mut places = 0u16;
    for k in 1..=next {
        places |= 1 << k;
    }
    for k in 1..=previous {
        places |= 1 << (players - k);
    }
    let every = ((1u16 << players) - 1) & !1;
    (places != 0 && places != every).then_some(places)
}

/// The observation encoding's action that a root action begins with (a play
/// of a card of that kind, whatever its colour or target); `None` for the
/// actions a search root does not weigh (jump-ins, targets alone).
fn encoding_action(deck: &Deck, a: Action) -> Option<usize> {
    Some(match a.kind_of() {
        Kind::Play | Kind::Answer => action_of_card(deck, a.card()),
        Kind::Draw | Kind::TakeDraw => ACT_DRAW,
        Kind::PlayDrawn => ACT_PLAY_DRAWN,
        Kind::Keep => ACT_KEEP,
        Kind::Challenge => ACT_CHALLENGE,
        Kind::NoChallenge => ACT_NO_CHALLENGE,
        Kind::Color => ACT_COLOR + a.color()?.index(),
        Kind::JumpIn | Kind::NoJump | Kind::Target => return None,
    })
}

/// `prune`: keeps the root actions whose encoding action is among the `keep`
/// that `net` rates highest of the root's (the earlier on a tie); the others
/// are dropped, in place, the order kept. Actions without an encoding action
/// stay. Allocates nothing.
fn prune(
    net: &mut NetStrategy,
    obs: &Observation,
    root: Root,
    actions: &mut Vec<Action>,
    keep: usize,
) {
    let deck = &obs.rules().deck;
    let mut legal = ActionSet::EMPTY;
    for &a in actions.iter() {
        if let Some(i) = encoding_action(deck, a) {
            legal.insert(i);
        }
    }
    if legal.len() <= keep {
        return;
    }
    let (kind, card) = match root.at {
        ResumeAt::Play => (DecisionKind::Play, None),
        ResumeAt::Drawn(c) => (DecisionKind::PlayDrawn, Some(c)),
        ResumeAt::StartColor => (DecisionKind::Color, None),
        ResumeAt::Pending if legal.contains(ACT_CHALLENGE) => (DecisionKind::Challenge, None),
        ResumeAt::Pending => (DecisionKind::Stack, None),
    };
    let logits = net.logits_for(obs, kind, card, legal);
    // The `keep` best: drop the worst until `keep` remain.
    let mut kept = legal;
    while kept.len() > keep {
        let mut worst = usize::MAX;
        for i in kept.iter() {
            if worst == usize::MAX || logits[i] <= logits[worst] {
                worst = i;
            }
        }
        kept.remove(worst);
    }
    actions.retain(|&a| encoding_action(deck, a).is_none_or(|i| kept.contains(i)));
}

/// `out[i]` becomes `v` if it is NaN (no value yet) or below `v`.
fn keep_max(out: &mut [f32; ACTIONS], i: usize, v: f64) {
    let v = v as f32;
    if out[i].is_nan() || v > out[i] {
        out[i] = v;
    }
}

impl Strategy for SearchAgent {
    fn name(&self) -> &str {
        &self.cfg.name
    }
    fn hears_notices(&self) -> bool {
        false
    }
    fn notes(&self) -> Tracking {
        if self.cfg.model.is_some() {
            return Tracking::Plays;
        }
        match self.cfg.params.determinize {
            Determinize::Informed if self.cfg.params.draw_evidence > 0.0 => Tracking::Evidence,
            Determinize::Informed => Tracking::Facts,
            Determinize::Uniform => Tracking::Off,
        }
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
        let joint = self.joint();
        play_actions(&mut self.actions, obs, playable, joint);
        let root = Root {
            at: ResumeAt::Play,
            decline_challenge: false,
        };
        let a = self.search(obs, root, rng);
        self.plan = Plan::of(a);
        a.is(Kind::Play).then(|| a.card())
    }
    fn play_drawn(&mut self, obs: &Observation, card: CardId, rng: &mut Rng) -> bool {
        let joint = self.joint();
        drawn_actions(&mut self.actions, obs, card, joint);
        let root = Root {
            at: ResumeAt::Drawn(card),
            decline_challenge: false,
        };
        let a = self.search(obs, root, rng);
        self.plan = Plan::of(a);
        a.is(Kind::PlayDrawn)
    }
    fn choose_color(&mut self, obs: &Observation, rng: &mut Rng) -> Color {
        if let Some(c) = self.plan.take_color() {
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
        if let Some(t) = self.plan.take_target() {
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
        let joint = self.joint();
        answer_actions(&mut self.actions, obs, answers, joint);
        let d = &obs.rules().deck;
        let root = Root {
            at: ResumeAt::Pending,
            decline_challenge: obs.settings().bluff_challenge && d.wd4.contains(obs.top()),
        };
        let a = self.search(obs, root, rng);
        self.plan = Plan::of(a);
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

#[cfg(test)]
mod tests {
    use super::*;

    /// `seen_places` at every table size and every pair of counts: the
    /// next `sees_next` places and the last `sees_previous` ones (place
    /// `players - k` is the `k`-th player before), the union; `None` (every
    /// hand) when both are 0 or the union holds every other place.
    #[test]
    fn seen_places_is_the_union_of_the_next_and_the_previous_places() {
        for players in 2..=crate::engine::game::MAX_PLAYERS {
            for next in 0..=10u32 {
                for previous in 0..=10u32 {
                    let p = SearchParams {
                        sees_next: next,
                        sees_previous: previous,
                        ..SearchParams::default()
                    };
                    let want: Vec<usize> = (1..players)
                        .filter(|&k| k <= next as usize || players - k <= previous as usize)
                        .collect();
                    let got = seen_places(&p, players);
                    if want.is_empty() || want.len() == players - 1 {
                        assert_eq!(
                            got, None,
                            "{players} players, {next} next, {previous} previous"
                        );
                    } else {
                        let mask = want.iter().fold(0u16, |m, &k| m | 1 << k);
                        assert_eq!(
                            got,
                            Some(mask),
                            "{players} players, {next} next, {previous} previous"
                        );
                    }
                }
            }
        }
    }
}
