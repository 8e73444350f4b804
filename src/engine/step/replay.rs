//! The table of one replay pass: the strategies at their seats, the log of
//! what was answered before, and the stop at the learner's first new decision.

use crate::engine::cards::{CardId, CardSet, Color};
use crate::engine::encode::{count_known, ActionSet, Decision, DecisionKind, Features, KNOWN_LEN};
use crate::engine::game::{MatchResult, Observation, RoundResult};
use crate::engine::rng::Rng;
use crate::engine::strategy::{Strategy, Table, Tracking};

/// One answer of the log.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Answer {
    Play(Option<CardId>),
    Bool(bool),
    Color(Color),
    Target(u8),
    /// A notice delivered (round start), so that a replay does not deliver it again.
    Notice,
}

pub(super) struct Entry {
    pub(super) answer: Answer,
    /// The strategies' generator after a strategy's answer (`None` for the
    /// learner's answers and notices, which draw nothing).
    pub(super) rng: Option<Rng>,
}

// By hand: the generator is neither `Clone` nor `Debug` (see `Rng`).
impl Clone for Entry {
    fn clone(&self) -> Entry {
        Entry {
            answer: self.answer,
            rng: self.rng.as_ref().map(Rng::fork),
        }
    }
}

impl std::fmt::Debug for Entry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Entry")
            .field("answer", &self.answer)
            .field("rng", &self.rng.as_ref().map(|_| "saved"))
            .finish()
    }
}

/// The decision a pass stopped at.
#[derive(Clone, Copy, Debug)]
pub(super) struct Stop {
    pub(super) decision: Decision,
    pub(super) legal: ActionSet,
    /// The direction of play at the decision (targets count places in it).
    pub(super) dir: i8,
}

/// The table of one pass: strategies for their seats, the log for what was
/// answered before, a stop at the learner's first new decision.
pub(super) struct ReplayTable<'a, S: Strategy> {
    pub(super) seats: &'a mut [S],
    pub(super) env: u16,
    pub(super) ask_forced: bool,
    pub(super) log: &'a mut Vec<Entry>,
    pub(super) pos: usize,
    pub(super) stop: Option<Stop>,
    /// The features of the stop, taken there.
    pub(super) features: &'a mut Features,
    /// The known-cards section of the stop
    /// ([`count_known`]), taken there when kept.
    pub(super) known: Option<&'a mut [u8; KNOWN_LEN]>,
    /// Called with the deciding seat's observation at the stop
    /// ([`super::Stepper::inspect`]).
    pub(super) inspect: Option<&'a mut dyn FnMut(&Observation<'_>)>,
}

impl<S: Strategy> ReplayTable<'_, S> {
    #[inline]
    fn is_env(&self, seat: u8) -> bool {
        self.env >> seat & 1 == 1
    }

    /// The next logged answer, if the pass is still within the log (the
    /// strategies' generator is set to what it was after that answer).
    #[inline]
    fn replay(&mut self, rng: &mut Rng) -> Option<Answer> {
        let e = self.log.get(self.pos)?;
        self.pos += 1;
        if let Some(r) = &e.rng {
            *rng = r.fork();
        }
        Some(e.answer)
    }

    fn record(&mut self, answer: Answer, rng: Option<&Rng>) {
        self.log.push(Entry {
            answer,
            rng: rng.map(Rng::fork),
        });
        self.pos += 1;
    }

    /// Stops the pass at the learner's decision (the first one only).
    fn stop_at(&mut self, obs: &Observation, decision: Decision, card: Option<CardId>) {
        if self.stop.is_none() {
            self.features.capture(obs, decision.kind, card);
            if let Some(k) = self.known.as_deref_mut() {
                count_known(obs, k);
            }
            self.stop = Some(Stop {
                decision,
                legal: decision.legal(obs),
                dir: obs.direction(),
            });
            if let Some(f) = self.inspect.as_mut() {
                f(obs);
            }
        }
    }

    /// Asks a decision: from the log, else the learner's stop, else the
    /// strategy. After a stop every answer is a placeholder (the rest of the
    /// pass is dropped) and no strategy is asked.
    #[inline]
    fn ask(
        &mut self,
        seat: u8,
        obs: &Observation,
        rng: &mut Rng,
        decision: impl FnOnce() -> (Decision, Option<CardId>),
        placeholder: Answer,
        strategy: impl FnOnce(&mut S, &mut Rng) -> Answer,
    ) -> Answer {
        if let Some(a) = self.replay(rng) {
            return a;
        }
        if self.stop.is_some() {
            return placeholder;
        }
        if self.is_env(seat) {
            let (d, card) = decision();
            self.stop_at(obs, d, card);
            return placeholder;
        }
        let a = strategy(&mut self.seats[seat as usize], rng);
        self.record(a, Some(rng));
        a
    }
}

fn may_draw(obs: &Observation, playable: CardSet) -> bool {
    let s = obs.settings();
    playable.is_empty() || (!s.force_play && s.may_draw_when_playable)
}

fn decision(seat: u8, kind: DecisionKind, cards: CardSet, may_draw: bool) -> Decision {
    Decision {
        seat,
        kind,
        cards,
        may_draw,
    }
}

impl<S: Strategy> Table for ReplayTable<'_, S> {
    fn name(&self, seat: u8) -> &str {
        if self.is_env(seat) {
            "learner"
        } else {
            self.seats[seat as usize].name()
        }
    }
    fn ask_without_choice(&self, seat: u8) -> bool {
        if self.is_env(seat) {
            self.ask_forced
        } else {
            self.seats[seat as usize].ask_without_choice()
        }
    }
    fn choose_play(
        &mut self,
        seat: u8,
        obs: &Observation,
        playable: CardSet,
        rng: &mut Rng,
    ) -> Option<CardId> {
        let a = self.ask(
            seat,
            obs,
            rng,
            || {
                (
                    decision(seat, DecisionKind::Play, playable, may_draw(obs, playable)),
                    None,
                )
            },
            Answer::Play(None),
            |s, rng| Answer::Play(s.choose_play(obs, playable, rng)),
        );
        match a {
            Answer::Play(c) => c,
            _ => None,
        }
    }
    fn play_drawn(&mut self, seat: u8, obs: &Observation, card: CardId, rng: &mut Rng) -> bool {
        let a = self.ask(
            seat,
            obs,
            rng,
            || {
                (
                    decision(seat, DecisionKind::PlayDrawn, CardSet::single(card), false),
                    Some(card),
                )
            },
            Answer::Bool(false),
            |s, rng| Answer::Bool(s.play_drawn(obs, card, rng)),
        );
        matches!(a, Answer::Bool(true))
    }
    fn choose_color(&mut self, seat: u8, obs: &Observation, rng: &mut Rng) -> Color {
        let a = self.ask(
            seat,
            obs,
            rng,
            || {
                (
                    decision(seat, DecisionKind::Color, CardSet::EMPTY, false),
                    None,
                )
            },
            Answer::Color(Color::Red),
            |s, rng| Answer::Color(s.choose_color(obs, rng)),
        );
        match a {
            Answer::Color(c) => c,
            _ => Color::Red,
        }
    }
    fn call_uno(&mut self, seat: u8, obs: &Observation, rng: &mut Rng) -> bool {
        let a = self.ask(
            seat,
            obs,
            rng,
            || {
                (
                    decision(seat, DecisionKind::Uno, CardSet::EMPTY, false),
                    None,
                )
            },
            Answer::Bool(true),
            |s, rng| Answer::Bool(s.call_uno(obs, rng)),
        );
        !matches!(a, Answer::Bool(false))
    }
    fn choose_target(&mut self, seat: u8, obs: &Observation, rng: &mut Rng) -> u8 {
        let a = self.ask(
            seat,
            obs,
            rng,
            || {
                (
                    decision(seat, DecisionKind::Target, CardSet::EMPTY, false),
                    None,
                )
            },
            Answer::Target(obs.seat_after(1)),
            |s, rng| Answer::Target(s.choose_target(obs, rng)),
        );
        match a {
            Answer::Target(t) => t,
            _ => obs.seat_after(1),
        }
    }
    fn answer_stack(
        &mut self,
        seat: u8,
        obs: &Observation,
        answers: CardSet,
        rng: &mut Rng,
    ) -> Option<CardId> {
        let a = self.ask(
            seat,
            obs,
            rng,
            || (decision(seat, DecisionKind::Stack, answers, true), None),
            Answer::Play(None),
            |s, rng| Answer::Play(s.answer_stack(obs, answers, rng)),
        );
        match a {
            Answer::Play(c) => c,
            _ => None,
        }
    }
    fn challenge(&mut self, seat: u8, obs: &Observation, rng: &mut Rng) -> bool {
        let a = self.ask(
            seat,
            obs,
            rng,
            || {
                (
                    decision(seat, DecisionKind::Challenge, CardSet::EMPTY, false),
                    None,
                )
            },
            Answer::Bool(false),
            |s, rng| Answer::Bool(s.challenge(obs, rng)),
        );
        matches!(a, Answer::Bool(true))
    }
    fn jump_in(&mut self, seat: u8, obs: &Observation, card: CardId, rng: &mut Rng) -> bool {
        let a = self.ask(
            seat,
            obs,
            rng,
            || {
                (
                    decision(seat, DecisionKind::JumpIn, CardSet::single(card), false),
                    Some(card),
                )
            },
            Answer::Bool(false),
            |s, rng| Answer::Bool(s.jump_in(obs, card, rng)),
        );
        matches!(a, Answer::Bool(true))
    }
    fn asks_forced(&self, seat: u8) -> bool {
        self.ask_forced && self.is_env(seat)
    }
    fn drawn_unplayable(&mut self, seat: u8, obs: &Observation, _card: CardId, rng: &mut Rng) {
        // The learner's only answer is to keep it; the answer is logged
        // and replayed like any other, and changes nothing. The decision has
        // no card, as a jump-in without one (the drawn card is in the hand).
        self.ask(
            seat,
            obs,
            rng,
            || {
                (
                    decision(seat, DecisionKind::PlayDrawn, CardSet::EMPTY, false),
                    None,
                )
            },
            Answer::Bool(false),
            |_, _| Answer::Bool(false),
        );
    }
    fn no_jump_in(&mut self, seat: u8, obs: &Observation, _card: CardId, rng: &mut Rng) {
        self.ask(
            seat,
            obs,
            rng,
            || {
                (
                    decision(seat, DecisionKind::JumpIn, CardSet::EMPTY, false),
                    None,
                )
            },
            Answer::Bool(false),
            |_, _| Answer::Bool(false),
        );
    }
    fn round_start(&mut self, seat: u8, obs: &Observation) {
        if self.pos < self.log.len() {
            self.pos += 1;
            return;
        }
        if self.stop.is_some() {
            return;
        }
        if !self.is_env(seat) {
            self.seats[seat as usize].round_start(obs);
        }
        self.record(Answer::Notice, None);
    }
    fn round_end(&mut self, seat: u8, obs: &Observation, result: &RoundResult) {
        if !self.is_env(seat) {
            self.seats[seat as usize].round_end(obs, result);
        }
    }
    fn match_end(&mut self, seat: u8, obs: &Observation, result: &MatchResult) {
        if !self.is_env(seat) {
            self.seats[seat as usize].match_end(obs, result);
        }
    }
    fn fault(&mut self, seat: u8) -> Option<String> {
        if self.is_env(seat) {
            None
        } else {
            self.seats[seat as usize].fault()
        }
    }
    fn hears_notices(&self, seat: u8) -> bool {
        !self.is_env(seat) && self.seats[seat as usize].hears_notices()
    }
    /// The notes a strategy at another seat asks for (a search agent that
    /// deals by what the table showed, or weighs deals by an opponent
    /// model), as the runner's table gives them: without them it searched
    /// on less than it knows, and played other games than in the runner.
    fn notes(&self, seat: u8) -> Tracking {
        if self.is_env(seat) {
            Tracking::Off
        } else {
            self.seats[seat as usize].notes()
        }
    }
}
