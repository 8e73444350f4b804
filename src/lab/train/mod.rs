//! Distilling a teacher into the network strategy (`unolab train`):
//! positions from self-play labelled with a teacher's decisions
//! ([`label`]), a network fitted to them (`fit`, feature `train`), and
//! expert iteration (`expert::train`): the fitted network becomes the rollout
//! policy of a search, whose decisions label the next positions.
//!
//! Reproducible: game `i` of a labelling draws its deal and its teacher's
//! randomness from the master seed and `i` alone ([`play_round`]) and the
//! games' positions are kept in game order, so a data set is the same on any
//! number of threads; fitting runs on one thread from a seeded generator.
//! Evaluations play seeds derived from the master seed through
//! [`EVAL_SALT`], a stream labelling never draws from.

#[cfg(feature = "train")]
pub mod expert;
#[cfg(feature = "train")]
pub mod fit;

use super::{new_game, play_round};
use crate::agents::net::{may_draw, NetSpec, NetWeights};
use crate::agents::search::{SearchConfig, SearchKind, SearchParams};
use crate::agents::{Seat, StrategySpec};
use crate::engine::cards::{CardId, CardSet, Color};
use crate::engine::encode::{
    action_of_card, encode, encode_known, ActionSet, Decision, DecisionKind, ACTIONS,
    ACT_CHALLENGE, ACT_COLOR, ACT_DRAW, ACT_JUMP, ACT_KEEP, ACT_NO_CHALLENGE, ACT_NO_JUMP,
    ACT_NO_UNO, ACT_PLAY_DRAWN, ACT_TARGET, ACT_UNO, OBS_LEN, OBS_LEN_KNOWN,
};
use crate::engine::game::{mix64, Observation, Rng};
use crate::engine::rules::Rules;
use crate::engine::strategy::{Strategy, Tracking};
use rayon::prelude::*;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Evaluation games use master seed `seed ^ EVAL_SALT`: labelling draws
/// from `seed` itself (and `seed + k` at iteration `k`), never from these.
pub const EVAL_SALT: u64 = 0xE7A1_5EED_0000_0000;

/// Labelled positions: the features, the legal actions and the teacher's
/// action of each (decisions with one legal action are left out).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Dataset {
    /// `len() * width()` features, position after position: [`OBS_LEN`]
    /// each, or [`OBS_LEN_KNOWN`] with the known-cards section.
    pub x: Vec<f32>,
    pub legal: Vec<ActionSet>,
    pub label: Vec<u8>,
    /// The teacher's value of each action, `len() * ACTIONS` (NaN: none),
    /// when the teacher is a search that gives them (`pimc`, `oracle`);
    /// empty otherwise.
    pub q: Vec<f32>,
}

impl Dataset {
    pub fn len(&self) -> usize {
        self.label.len()
    }
    pub fn is_empty(&self) -> bool {
        self.label.is_empty()
    }
    /// The features of each position: [`OBS_LEN`], or [`OBS_LEN_KNOWN`]
    /// when labelled with the known-cards section.
    pub fn width(&self) -> usize {
        if self.is_empty() {
            OBS_LEN
        } else {
            self.x.len() / self.len()
        }
    }
    pub fn features(&self, i: usize) -> &[f32] {
        let w = self.width();
        &self.x[i * w..(i + 1) * w]
    }
    /// The teacher's action values of position `i` (NaN: none), if any.
    pub fn values(&self, i: usize) -> Option<&[f32]> {
        (!self.q.is_empty()).then(|| &self.q[i * ACTIONS..(i + 1) * ACTIONS])
    }
    pub fn append(&mut self, mut other: Dataset) {
        debug_assert!(self.is_empty() || other.is_empty() || self.width() == other.width());
        if self.q.is_empty() && !other.q.is_empty() {
            self.q = vec![f32::NAN; self.len() * ACTIONS];
        }
        if other.q.is_empty() && !self.q.is_empty() {
            other.q = vec![f32::NAN; other.len() * ACTIONS];
        }
        self.x.append(&mut other.x);
        self.legal.append(&mut other.legal);
        self.label.append(&mut other.label);
        self.q.append(&mut other.q);
    }
    /// The share of positions where the network picks the teacher's action
    /// (at temperature 0).
    pub fn agreement(&self, w: &NetWeights) -> f64 {
        if self.is_empty() {
            return 0.0;
        }
        let mut hidden = w.buffers();
        let mut logits = [0f32; crate::engine::encode::ACTIONS];
        let mut rng = <Rng as rand::SeedableRng>::seed_from_u64(0);
        let hits = (0..self.len())
            .filter(|&i| {
                w.logits(self.features(i), self.legal[i], &mut hidden, &mut logits);
                crate::agents::net::pick(&logits, self.legal[i], 0.0, &mut rng)
                    == self.label[i] as usize
            })
            .count();
        hits as f64 / self.len() as f64
    }
}

/// A seat that records each decision with more than one legal action,
/// labelled with its teacher's action, and plays as its teacher, or as
/// `behaviour` when there is one (the teacher then only labels, and the
/// game is the behaviour's: the teacher's colour and target are asked, and
/// recorded, only after a play it agreed with).
struct Labeler<'s> {
    teacher: Teacher,
    behaviour: Option<Seat>,
    /// Whether the behaviour's last play (or drawn-card or stack answer)
    /// was the teacher's.
    agree: bool,
    /// The card of the teacher's last play, until its colour is asked.
    played: Option<CardId>,
    /// Whether each position has the known-cards section too.
    known: bool,
    data: Dataset,
    /// Raised by an interrupt: the round in progress is played out by
    /// `idle`, cheaply, instead of waiting for the teacher's searches (its
    /// positions are not kept: an interrupted stage keeps no labels).
    stop: &'s AtomicBool,
    idle: Seat,
}

/// The teacher of a labelling: any strategy, or a search kept as itself so
/// that its action values can be read after each decision.
enum Teacher {
    Seat(Seat),
    Search(Box<crate::agents::search::SearchAgent>),
}

impl Teacher {
    fn of(spec: &StrategySpec) -> Teacher {
        match spec {
            StrategySpec::Search(c) => Teacher::Search(Box::new(
                crate::agents::search::SearchAgent::new((**c).clone()),
            )),
            _ => Teacher::Seat(spec.instantiate()),
        }
    }
    fn get(&mut self) -> &mut dyn Strategy {
        match self {
            Teacher::Seat(s) => s,
            Teacher::Search(s) => &mut **s,
        }
    }
    fn name(&self) -> &str {
        match self {
            Teacher::Seat(s) => s.name(),
            Teacher::Search(s) => s.name(),
        }
    }
}

/// Which values of the teacher's last search label a decision.
#[derive(Clone, Copy)]
enum Values {
    /// The decision's own search.
    Searched,
    /// The colours of the joint action that played this card.
    ColorOf(CardId),
    None,
}

impl Labeler<'_> {
    /// The seat that plays out the round once `stop` is raised.
    fn stopped(&mut self) -> Option<&mut Seat> {
        self.stop.load(Ordering::Relaxed).then_some(&mut self.idle)
    }

    /// The answer played: the behaviour's (asked by `ask`), or the
    /// teacher's `taught` when the teacher plays.
    fn play<T>(&mut self, taught: T, ask: impl FnOnce(&mut Seat) -> T) -> T {
        match &mut self.behaviour {
            Some(b) => ask(b),
            None => taught,
        }
    }

    /// As [`Labeler::play`], noting whether the answer played is the
    /// teacher's (its colour or target is asked only then).
    fn play_noting<T: PartialEq + Copy>(
        &mut self,
        taught: T,
        ask: impl FnOnce(&mut Seat) -> T,
    ) -> T {
        let played = self.play(taught, ask);
        self.agree = played == taught;
        played
    }

    /// The behaviour, when the teacher's last play was not the one played
    /// (its colour and target then belong to the behaviour alone).
    fn disagreeing(&mut self) -> Option<&mut Seat> {
        if self.agree {
            None
        } else {
            self.behaviour.as_mut()
        }
    }

    fn record(
        &mut self,
        obs: &Observation,
        d: Decision,
        card: Option<CardId>,
        action: usize,
        values: Values,
    ) {
        let legal = d.legal(obs);
        if legal.len() < 2 || !legal.contains(action) {
            return;
        }
        let at = self.data.x.len();
        let width = if self.known { OBS_LEN_KNOWN } else { OBS_LEN };
        self.data.x.resize(at + width, 0.0);
        encode(obs, d.kind, card, &mut self.data.x[at..]);
        if self.known {
            encode_known(obs, &mut self.data.x[at + OBS_LEN..]);
        }
        self.data.legal.push(legal);
        self.data.label.push(action as u8);
        if let Teacher::Search(s) = &self.teacher {
            let mut q = [f32::NAN; ACTIONS];
            let deck = &obs.rules().deck;
            match values {
                Values::Searched => {
                    s.action_values(deck, &mut q);
                }
                Values::ColorOf(c) => {
                    s.color_values(c, &mut q);
                }
                Values::None => {}
            }
            self.data.q.extend_from_slice(&q);
        }
    }
}

fn decision(obs: &Observation, kind: DecisionKind, cards: CardSet, may_draw: bool) -> Decision {
    Decision {
        seat: obs.seat(),
        kind,
        cards,
        may_draw,
    }
}

impl Strategy for Labeler<'_> {
    fn name(&self) -> &str {
        self.teacher.name()
    }
    /// The teacher's fault, else the behaviour's (a program that stopped
    /// answering): the engine ends the game with it, as in a run.
    fn fault(&mut self) -> Option<String> {
        self.teacher.get().fault().or_else(|| {
            let b = self.behaviour.as_mut()?;
            let f = b.fault()?;
            Some(format!("its behaviour '{}': {f}", b.name()))
        })
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
        if let Some(s) = self.stopped() {
            return s.choose_play(obs, playable, rng);
        }
        let c = self.teacher.get().choose_play(obs, playable, rng);
        let d = decision(obs, DecisionKind::Play, playable, may_draw(obs, playable));
        let a = c.map_or(ACT_DRAW, |c| action_of_card(&obs.rules().deck, c));
        self.record(obs, d, None, a, Values::Searched);
        self.played = c;
        self.play_noting(c, |b| b.choose_play(obs, playable, rng))
    }
    fn play_drawn(&mut self, obs: &Observation, card: CardId, rng: &mut Rng) -> bool {
        if let Some(s) = self.stopped() {
            return s.play_drawn(obs, card, rng);
        }
        let yes = self.teacher.get().play_drawn(obs, card, rng);
        let d = decision(obs, DecisionKind::PlayDrawn, CardSet::single(card), false);
        self.record(
            obs,
            d,
            Some(card),
            if yes { ACT_PLAY_DRAWN } else { ACT_KEEP },
            Values::Searched,
        );
        self.played = yes.then_some(card);
        self.play_noting(yes, |b| b.play_drawn(obs, card, rng))
    }
    fn choose_color(&mut self, obs: &Observation, rng: &mut Rng) -> Color {
        if let Some(s) = self.stopped() {
            return s.choose_color(obs, rng);
        }
        if let Some(b) = self.disagreeing() {
            return b.choose_color(obs, rng);
        }
        let c = self.teacher.get().choose_color(obs, rng);
        let d = decision(obs, DecisionKind::Color, CardSet::EMPTY, false);
        let values = match self.played.take() {
            Some(card) => Values::ColorOf(card),
            None if obs.turns() == 0 => Values::Searched,
            None => Values::None,
        };
        self.record(obs, d, None, ACT_COLOR + c.index(), values);
        self.play(c, |b| b.choose_color(obs, rng))
    }
    fn call_uno(&mut self, obs: &Observation, rng: &mut Rng) -> bool {
        if let Some(s) = self.stopped() {
            return s.call_uno(obs, rng);
        }
        let yes = self.teacher.get().call_uno(obs, rng);
        let d = decision(obs, DecisionKind::Uno, CardSet::EMPTY, false);
        self.record(
            obs,
            d,
            None,
            if yes { ACT_UNO } else { ACT_NO_UNO },
            Values::None,
        );
        self.play(yes, |b| b.call_uno(obs, rng))
    }
    fn choose_target(&mut self, obs: &Observation, rng: &mut Rng) -> u8 {
        if let Some(s) = self.stopped() {
            return s.choose_target(obs, rng);
        }
        if let Some(b) = self.disagreeing() {
            return b.choose_target(obs, rng);
        }
        let t = self.teacher.get().choose_target(obs, rng);
        if let Some(k) = (1..obs.players() as u8).find(|&k| obs.seat_after(k) == t) {
            let d = decision(obs, DecisionKind::Target, CardSet::EMPTY, false);
            self.record(obs, d, None, ACT_TARGET + k as usize - 1, Values::None);
        }
        self.play(t, |b| b.choose_target(obs, rng))
    }
    fn answer_stack(
        &mut self,
        obs: &Observation,
        answers: CardSet,
        rng: &mut Rng,
    ) -> Option<CardId> {
        if let Some(s) = self.stopped() {
            return s.answer_stack(obs, answers, rng);
        }
        let c = self.teacher.get().answer_stack(obs, answers, rng);
        let d = decision(obs, DecisionKind::Stack, answers, true);
        let a = c.map_or(ACT_DRAW, |c| action_of_card(&obs.rules().deck, c));
        self.record(obs, d, None, a, Values::Searched);
        self.played = c;
        self.play_noting(c, |b| b.answer_stack(obs, answers, rng))
    }
    fn challenge(&mut self, obs: &Observation, rng: &mut Rng) -> bool {
        if let Some(s) = self.stopped() {
            return s.challenge(obs, rng);
        }
        let yes = self.teacher.get().challenge(obs, rng);
        let d = decision(obs, DecisionKind::Challenge, CardSet::EMPTY, false);
        let a = if yes { ACT_CHALLENGE } else { ACT_NO_CHALLENGE };
        self.record(obs, d, None, a, Values::Searched);
        self.play(yes, |b| b.challenge(obs, rng))
    }
    fn jump_in(&mut self, obs: &Observation, card: CardId, rng: &mut Rng) -> bool {
        if let Some(s) = self.stopped() {
            return s.jump_in(obs, card, rng);
        }
        let yes = self.teacher.get().jump_in(obs, card, rng);
        let d = decision(obs, DecisionKind::JumpIn, CardSet::single(card), false);
        self.record(
            obs,
            d,
            Some(card),
            if yes { ACT_JUMP } else { ACT_NO_JUMP },
            Values::None,
        );
        self.play_noting(yes, |b| b.jump_in(obs, card, rng))
    }
    fn round_start(&mut self, obs: &Observation) {
        self.agree = true;
        self.teacher.get().round_start(obs);
        if let Some(b) = &mut self.behaviour {
            b.round_start(obs)
        }
    }
    /// As its teacher or behaviour hears them (a program): the engine then
    /// also asks for their faults after each round ([`Strategy::fault`]).
    fn hears_notices(&self) -> bool {
        let teacher = match &self.teacher {
            Teacher::Seat(s) => s.hears_notices(),
            Teacher::Search(s) => s.hears_notices(),
        };
        teacher || self.behaviour.as_ref().is_some_and(|b| b.hears_notices())
    }
    fn notes(&self) -> Tracking {
        match &self.teacher {
            Teacher::Seat(s) => s.notes(),
            Teacher::Search(s) => s.notes(),
        }
    }
}

/// The first count of `players` outside 2 to 10, and the first given a
/// second time: what a training's player counts may not hold (each count
/// is labelled and measured once).
pub fn player_count_faults(players: &[usize]) -> (Option<usize>, Option<usize>) {
    let outside = players.iter().copied().find(|p| !(2..=10).contains(p));
    let twice = (0..players.len())
        .find(|&i| players[..i].contains(&players[i]))
        .map(|i| players[i]);
    (outside, twice)
}

/// The player count of game `i`: the list cycled.
fn players_of(players: &[usize], i: u64) -> usize {
    players[i as usize % players.len()]
}

/// Plays the rounds `games` (game `i`: master seed `seed`, `players`
/// cycled), every seat the teacher (or `behaviour`, the teacher labelling
/// only), and returns the positions in game order, seat after seat (so
/// labelling a range in parts gives the same positions), with the
/// known-cards section when `known`. A raised `stop` skips the games not
/// yet begun. A seat that fails (a program that does not answer, an
/// illegal action) is the error, as in a run.
#[allow(clippy::too_many_arguments)]
pub fn label(
    rules: &Rules,
    players: &[usize],
    teacher: &StrategySpec,
    behaviour: Option<&StrategySpec>,
    games: Range<u64>,
    seed: u64,
    known: bool,
    stop: &AtomicBool,
) -> Result<Dataset, String> {
    let parts: Vec<Dataset> = games
        .into_par_iter()
        .map(|i| {
            if stop.load(Ordering::Relaxed) {
                return Ok(Dataset::default());
            }
            let n = players_of(players, i);
            let mut game = new_game(rules, n);
            let mut seats: Vec<Labeler> = (0..n)
                .map(|_| Labeler {
                    teacher: Teacher::of(teacher),
                    behaviour: behaviour.map(|b| b.instantiate()),
                    agree: true,
                    played: None,
                    known,
                    data: Dataset::default(),
                    stop,
                    idle: Seat::First(crate::agents::FirstStrategy),
                })
                .collect();
            play_round(&mut game, &mut seats[..], seed, i).map_err(|e| e.to_string())?;
            let mut out = Dataset::default();
            for s in seats {
                out.append(s.data);
            }
            Ok(out)
        })
        .collect::<Result<_, String>>()?;
    let mut all = Dataset::default();
    for p in parts {
        all.append(p);
    }
    Ok(all)
}

/// Round wins of `a` against `b` (the other seats) over the rounds `games`
/// of master seed `seed`, `a` at seat `i mod players` in game `i`: (wins,
/// rounds played). A seat that fails is the error, as in a run.
pub fn head_to_head(
    rules: &Rules,
    players: usize,
    a: &StrategySpec,
    b: &StrategySpec,
    games: Range<u64>,
    seed: u64,
    stop: &AtomicBool,
) -> Result<(u64, u64), String> {
    let results: Vec<Option<bool>> = games
        .into_par_iter()
        .map(|i| {
            if stop.load(Ordering::Relaxed) {
                return Ok(None);
            }
            let me = (i % players as u64) as usize;
            let mut game = new_game(rules, players);
            let mut seats: Vec<Seat> = (0..players)
                .map(|s| {
                    if s == me {
                        a.instantiate()
                    } else {
                        b.instantiate()
                    }
                })
                .collect();
            let r = play_round(&mut game, &mut seats, seed, i).map_err(|e| e.to_string())?;
            Ok(Some(r.winner == Some(me as u8)))
        })
        .collect::<Result<_, String>>()?;
    let played = results.iter().flatten().count() as u64;
    let wins = results.iter().flatten().filter(|&&w| w).count() as u64;
    Ok((wins, played))
}

/// A network preset in memory (`name`, the weights as written to `path`).
pub fn net_spec(name: &str, path: &str, weights: NetWeights) -> StrategySpec {
    StrategySpec::Net(Arc::new(NetSpec {
        name: name.to_string(),
        params: crate::agents::net::NetParams {
            weights: path.to_string(),
            temperature: 0.0,
            digest: weights.digest(),
        },
        weights: Arc::new(weights),
    }))
}

/// `pimc` with `iterations` determinizations per action and `rollout` in
/// every seat of the simulations.
pub fn search_with(name: &str, iterations: u32, rollout: &StrategySpec) -> StrategySpec {
    StrategySpec::Search(Box::new(SearchConfig {
        name: name.to_string(),
        kind: SearchKind::Pimc,
        params: SearchParams {
            iterations,
            rollout: rollout.name().to_string(),
            ..SearchParams::default()
        },
        rollout: Box::new(rollout.clone()),
        own_rollout: None,
        guide: None,
        model: None,
    }))
}

/// The preset file of a network written beside it as `weights`.
pub fn preset_text(name: &str, weights: &str, description: &str) -> String {
    // TOML's own quoting: a name with a backslash or a quote (a
    // teacher's) is written as it reads back.
    let q = |s: &str| toml::Value::String(s.to_string()).to_string();
    format!(
        "# Written by `unolab train` (docs/learning.md).\nname = {}\ndescription = {}\nbase = \"net\"\n\n[net]\nweights = {}\ntemperature = 0.0\n",
        q(name),
        q(description),
        q(weights)
    )
}

/// The seed of labelling at expert iteration `k` (0: the first teacher).
pub fn label_seed(seed: u64, k: usize) -> u64 {
    if k == 0 {
        seed
    } else {
        mix64(seed ^ mix64(0x1AB3_0000 + k as u64))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pool_free_label(
        rules: &Rules,
        teacher: &StrategySpec,
        games: Range<u64>,
        stop: &AtomicBool,
    ) -> Dataset {
        label(rules, &[2, 4], teacher, None, games, 9, false, stop).unwrap()
    }

    /// An interrupt during a round: the teacher is asked nothing more (a
    /// search of 3,000 simulations a decision made the interrupt wait for
    /// every round in progress to be searched to its end).
    #[test]
    fn an_interrupt_plays_the_round_in_progress_out_without_the_teacher() {
        static STOP: AtomicBool = AtomicBool::new(false);
        static ASKED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        /// Plays the first card, and raises the stop at its first play.
        struct Raising;
        impl Strategy for Raising {
            fn name(&self) -> &str {
                "raising"
            }
            fn choose_play(
                &mut self,
                _: &Observation,
                playable: CardSet,
                _: &mut Rng,
            ) -> Option<CardId> {
                ASKED.fetch_add(1, Ordering::SeqCst);
                STOP.store(true, Ordering::SeqCst);
                playable.first()
            }
        }
        let teacher = StrategySpec::custom("raising", "rust", || Box::new(Raising)).unwrap();
        let rules = Rules::builtin("classic");
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        let data = pool
            .install(|| label(&rules, &[2], &teacher, None, 0..3, 9, false, &STOP))
            .unwrap();
        // One play asked of the teacher; the round went on to its end with
        // the stand-in (the games not begun were skipped).
        assert_eq!(ASKED.load(Ordering::SeqCst), 1);
        assert!(data.len() <= 1, "{}", data.len());
    }

    #[test]
    fn labels_are_the_teachers_legal_actions_and_the_same_on_any_thread_count() {
        let rules = Rules::builtin("classic");
        let tuned = StrategySpec::load("tuned").unwrap();
        let stop = AtomicBool::new(false);
        let run = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            pool.install(|| label(&rules, &[2, 4], &tuned, None, 0..40, 9, false, &stop).unwrap())
        };
        let one = run(1);
        let three = run(3);
        assert_eq!(one, three);
        let mut parts = pool_free_label(&rules, &tuned, 0..15, &stop);
        parts.append(pool_free_label(&rules, &tuned, 15..40, &stop));
        assert_eq!(parts, one, "labelled in two parts");
        assert!(one.len() > 200, "{} positions", one.len());
        assert_eq!(one.x.len(), one.len() * OBS_LEN);
        for i in 0..one.len() {
            assert!(one.legal[i].len() >= 2);
            assert!(one.legal[i].contains(one.label[i] as usize));
            // The decision section holds exactly one kind.
            let dec = crate::engine::encode::SECTIONS[10];
            let f = one.features(i);
            let ones = f[dec.offset..dec.offset + dec.len]
                .iter()
                .filter(|&&v| v == 1.0)
                .count();
            assert_eq!(ones, 1);
        }
    }

    #[test]
    fn positions_with_the_known_cards_are_the_same_positions_and_know_swapped_cards() {
        // Under seven_o the positions are the same, each with the section
        // after its features; some seat knows a card of another hand.
        let mut rules = Rules::builtin("classic");
        rules.settings.seven_o = true;
        let tuned = StrategySpec::load("tuned").unwrap();
        let stop = AtomicBool::new(false);
        let plain = label(&rules, &[3], &tuned, None, 0..20, 4, false, &stop).unwrap();
        let known = label(&rules, &[3], &tuned, None, 0..20, 4, true, &stop).unwrap();
        assert_eq!(known.width(), OBS_LEN_KNOWN);
        assert_eq!((known.len(), &known.label), (plain.len(), &plain.label));
        let mut knowing = 0;
        for i in 0..known.len() {
            assert_eq!(&known.features(i)[..OBS_LEN], plain.features(i));
            let section = &known.features(i)[OBS_LEN..];
            assert!(section.iter().all(|&v| v >= 0.0 && v.fract() == 0.0));
            knowing += section.iter().any(|&v| v > 0.0) as usize;
        }
        assert!(knowing > 0, "no position knew a card of another hand");
    }

    /// The decision kind of a position (the one-hot decision section).
    fn kind_of(data: &Dataset, i: usize) -> usize {
        let dec = crate::engine::encode::SECTIONS[10];
        let f = &data.features(i)[dec.offset..dec.offset + dec.len];
        f.iter().position(|&v| v == 1.0).unwrap()
    }

    #[test]
    fn with_a_behaviour_the_behaviour_plays_and_the_teacher_only_labels() {
        let rules = Rules::builtin("classic");
        let tuned = StrategySpec::load("tuned").unwrap();
        let first = StrategySpec::load("first").unwrap();
        let stop = AtomicBool::new(false);
        let own = label(&rules, &[2, 4], &tuned, None, 0..30, 9, false, &stop).unwrap();
        let taught = label(
            &rules,
            &[2, 4],
            &first,
            Some(&tuned),
            0..30,
            9,
            false,
            &stop,
        )
        .unwrap();
        // The same games as tuned's own: its play decisions, in order.
        let plays = |d: &Dataset| -> Vec<usize> {
            (0..d.len())
                .filter(|&i| kind_of(d, i) == DecisionKind::Play as usize)
                .collect()
        };
        let (a, b) = (plays(&own), plays(&taught));
        assert!(a.len() > 300, "{} play decisions", a.len());
        assert_eq!(a.len(), b.len());
        let mut differ = 0;
        for (&i, &j) in a.iter().zip(&b) {
            assert_eq!(own.features(i), taught.features(j));
            assert_eq!(own.legal[i], taught.legal[j]);
            assert!(taught.legal[j].contains(taught.label[j] as usize));
            differ += (own.label[i] != taught.label[j]) as usize;
        }
        // ... labelled by `first`, which often plays another card.
        assert!(
            differ * 10 > a.len(),
            "{differ} of {} labels differ",
            a.len()
        );
        // Colours are labelled only after a play the teacher agreed with.
        let colours = |d: &Dataset| {
            (0..d.len())
                .filter(|&i| kind_of(d, i) == DecisionKind::Color as usize)
                .count()
        };
        assert!(colours(&taught) < colours(&own));
    }

    #[test]
    fn a_search_teacher_labels_with_its_values_and_its_action_is_the_best_valued() {
        let rules = Rules::builtin("classic");
        let color = StrategySpec::load("color").unwrap();
        let pimc = search_with("pimc-4", 4, &color);
        let stop = AtomicBool::new(false);
        let data = label(&rules, &[2, 4], &pimc, None, 0..6, 3, false, &stop).unwrap();
        assert_eq!(data.q.len(), data.len() * ACTIONS);
        let mut valued = 0;
        for i in 0..data.len() {
            let q = data.values(i).unwrap();
            let legal = data.legal[i];
            if !(0..ACTIONS).any(|a| legal.contains(a) && q[a].is_finite()) {
                continue;
            }
            valued += 1;
            // Every legal action was searched, and none that is not legal.
            for (a, v) in q.iter().enumerate() {
                assert_eq!(legal.contains(a), v.is_finite(), "position {i} action {a}");
                assert!(!v.is_finite() || (0.0..=1.0).contains(v));
            }
            let best = (0..ACTIONS)
                .filter(|&a| legal.contains(a))
                .map(|a| q[a])
                .fold(f32::NEG_INFINITY, f32::max);
            assert_eq!(q[data.label[i] as usize], best, "position {i}");
        }
        assert!(valued * 2 > data.len(), "{valued} of {} valued", data.len());
        // Without a search, no values.
        let tuned = StrategySpec::load("tuned").unwrap();
        assert!(label(&rules, &[2], &tuned, None, 0..2, 3, false, &stop)
            .unwrap()
            .q
            .is_empty());
    }
}
