//! The other seats of `unolab play`, watched for a fault as it happens.
//!
//! The engine asks a seat for its fault after each round, so a broken
//! external program (a command that exits at once, a program that breaks
//! the protocol) was reported only when the round ended: the person played
//! a whole round against a seat answering legal defaults. [`Watched`] asks
//! after every notice and decision instead and keeps the first fault in a
//! shared [`Broken`], which the person's next prompt reads: the game ends
//! there, with the fault.

use std::sync::{Arc, Mutex};
use unolab::engine::game::Tracking;
use unolab::{CardId, CardSet, Color, MatchResult, Observation, Rng, RoundResult, Seat, Strategy};

/// The first fault of a watched seat, as the error that ends the game.
pub type Broken = Arc<Mutex<Option<String>>>;

/// A seat that records its fault in `broken` as soon as it has one.
pub struct Watched {
    pub inner: Seat,
    pub seat: u8,
    pub broken: Broken,
}

impl Watched {
    /// Records the seat's fault (the first one of the table only).
    fn check(&mut self, obs: &Observation) {
        if let Some(f) = self.inner.fault() {
            let mut b = self.broken.lock().unwrap_or_else(|p| p.into_inner());
            if b.is_none() {
                *b = Some(format!(
                    "strategy '{}' at seat {} failed in round {}: {f}",
                    self.inner.name(),
                    self.seat,
                    obs.round()
                ));
            }
        }
    }
}

impl Strategy for Watched {
    fn name(&self) -> &str {
        self.inner.name()
    }
    fn choose_play(
        &mut self,
        obs: &Observation,
        playable: CardSet,
        rng: &mut Rng,
    ) -> Option<CardId> {
        let a = self.inner.choose_play(obs, playable, rng);
        self.check(obs);
        a
    }
    fn ask_without_choice(&self) -> bool {
        self.inner.ask_without_choice()
    }
    fn play_drawn(&mut self, obs: &Observation, card: CardId, rng: &mut Rng) -> bool {
        let a = self.inner.play_drawn(obs, card, rng);
        self.check(obs);
        a
    }
    fn choose_color(&mut self, obs: &Observation, rng: &mut Rng) -> Color {
        let a = self.inner.choose_color(obs, rng);
        self.check(obs);
        a
    }
    fn call_uno(&mut self, obs: &Observation, rng: &mut Rng) -> bool {
        let a = self.inner.call_uno(obs, rng);
        self.check(obs);
        a
    }
    fn choose_target(&mut self, obs: &Observation, rng: &mut Rng) -> u8 {
        let a = self.inner.choose_target(obs, rng);
        self.check(obs);
        a
    }
    fn answer_stack(
        &mut self,
        obs: &Observation,
        answers: CardSet,
        rng: &mut Rng,
    ) -> Option<CardId> {
        let a = self.inner.answer_stack(obs, answers, rng);
        self.check(obs);
        a
    }
    fn challenge(&mut self, obs: &Observation, rng: &mut Rng) -> bool {
        let a = self.inner.challenge(obs, rng);
        self.check(obs);
        a
    }
    fn jump_in(&mut self, obs: &Observation, card: CardId, rng: &mut Rng) -> bool {
        let a = self.inner.jump_in(obs, card, rng);
        self.check(obs);
        a
    }
    fn round_start(&mut self, obs: &Observation) {
        // An external program starts and is greeted here.
        self.inner.round_start(obs);
        self.check(obs);
    }
    fn round_end(&mut self, obs: &Observation, result: &RoundResult) {
        self.inner.round_end(obs, result)
    }
    fn match_end(&mut self, obs: &Observation, result: &MatchResult) {
        self.inner.match_end(obs, result)
    }
    fn fault(&mut self) -> Option<String> {
        self.inner.fault()
    }
    fn hears_notices(&self) -> bool {
        // Asked for its round's start (where a program starts) whatever the
        // inner strategy wants.
        true
    }
    fn notes(&self) -> Tracking {
        self.inner.notes()
    }
}
