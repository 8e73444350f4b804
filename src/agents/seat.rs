//! [`Seat`]: the strategy at a seat of the runner's tables. The built-ins are
//! variants called through a `match` the compiler can inline; anything else
//! is boxed and called through `dyn Strategy`.

use super::{FirstStrategy, Heuristic, RandomStrategy};
use crate::engine::cards::{CardId, CardSet, Color};
use crate::engine::game::{MatchResult, Observation, Rng, RoundResult};
use crate::engine::strategy::{Strategy, Tracking};

/// The strategy at a seat. The built-in strategies are called directly (a
/// `match`, which the compiler can inline); any other strategy is called
/// through `dyn Strategy`. `Seat` implements [`Strategy`] by forwarding.
pub enum Seat {
    Random(RandomStrategy),
    First(FirstStrategy),
    Heuristic(Heuristic),
    Custom(Box<dyn Strategy>),
}

impl Seat {
    /// A seat for any strategy type (called through `dyn Strategy`).
    pub fn custom(s: impl Strategy + 'static) -> Seat {
        Seat::Custom(Box::new(s))
    }
}

impl From<Box<dyn Strategy>> for Seat {
    fn from(s: Box<dyn Strategy>) -> Seat {
        Seat::Custom(s)
    }
}

/// Forwards a call to the strategy in the seat.
macro_rules! forward {
    ($self:ident, $s:ident => $call:expr) => {
        match $self {
            Seat::Random($s) => $call,
            Seat::First($s) => $call,
            Seat::Heuristic($s) => $call,
            Seat::Custom($s) => $call,
        }
    };
}

impl Strategy for Seat {
    fn name(&self) -> &str {
        forward!(self, s => s.name())
    }
    #[inline]
    fn ask_without_choice(&self) -> bool {
        forward!(self, s => s.ask_without_choice())
    }
    #[inline(always)]
    fn choose_play(
        &mut self,
        obs: &Observation,
        playable: CardSet,
        rng: &mut Rng,
    ) -> Option<CardId> {
        forward!(self, s => s.choose_play(obs, playable, rng))
    }
    #[inline(always)]
    fn play_drawn(&mut self, obs: &Observation, card: CardId, rng: &mut Rng) -> bool {
        forward!(self, s => s.play_drawn(obs, card, rng))
    }
    fn choose_color(&mut self, obs: &Observation, rng: &mut Rng) -> Color {
        forward!(self, s => s.choose_color(obs, rng))
    }
    #[inline(always)]
    fn call_uno(&mut self, obs: &Observation, rng: &mut Rng) -> bool {
        forward!(self, s => s.call_uno(obs, rng))
    }
    fn choose_target(&mut self, obs: &Observation, rng: &mut Rng) -> u8 {
        forward!(self, s => s.choose_target(obs, rng))
    }
    fn answer_stack(
        &mut self,
        obs: &Observation,
        answers: CardSet,
        rng: &mut Rng,
    ) -> Option<CardId> {
        forward!(self, s => s.answer_stack(obs, answers, rng))
    }
    fn challenge(&mut self, obs: &Observation, rng: &mut Rng) -> bool {
        forward!(self, s => s.challenge(obs, rng))
    }
    fn jump_in(&mut self, obs: &Observation, card: CardId, rng: &mut Rng) -> bool {
        forward!(self, s => s.jump_in(obs, card, rng))
    }
    // The notices and the fault concern only custom strategies: the built-ins
    // hear nothing and never fail.
    #[inline]
    fn round_start(&mut self, obs: &Observation) {
        if let Seat::Custom(s) = self {
            s.round_start(obs)
        }
    }
    #[inline]
    fn round_end(&mut self, obs: &Observation, result: &RoundResult) {
        if let Seat::Custom(s) = self {
            s.round_end(obs, result)
        }
    }
    #[inline]
    fn match_end(&mut self, obs: &Observation, result: &MatchResult) {
        if let Seat::Custom(s) = self {
            s.match_end(obs, result)
        }
    }
    #[inline]
    fn fault(&mut self) -> Option<String> {
        match self {
            Seat::Custom(s) => s.fault(),
            _ => None,
        }
    }
    #[inline]
    fn recover(&mut self) {
        if let Seat::Custom(s) = self {
            s.recover()
        }
    }
    #[inline]
    fn hears_notices(&self) -> bool {
        match self {
            Seat::Custom(s) => s.hears_notices(),
            _ => false,
        }
    }
    #[inline]
    fn notes(&self) -> Tracking {
        match self {
            Seat::Custom(s) => s.notes(),
            _ => Tracking::Off,
        }
    }
}

/// Where a [`Hooked`] seat's hook runs: after one of its decisions (play,
/// drawn card, colour, UNO, target, stack, challenge, jump-in), or after
/// its round-start notice (where an external program starts).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HookAt {
    Decision,
    RoundStart,
}

/// A seat that plays as `inner` and runs `hook` after each of its
/// decisions and round-start notices, with the seat and the observation:
/// to count the decisions asked (the ladder's speed), to watch for a fault
/// as it happens (`unolab play`). Everything else is forwarded.
pub struct Hooked<H> {
    pub inner: Seat,
    pub hook: H,
}

impl<H: FnMut(&mut Seat, &Observation, HookAt) + Send> Hooked<H> {
    #[inline]
    fn after<T>(&mut self, obs: &Observation, at: HookAt, answer: T) -> T {
        (self.hook)(&mut self.inner, obs, at);
        answer
    }
}

impl<H: FnMut(&mut Seat, &Observation, HookAt) + Send> Strategy for Hooked<H> {
    fn name(&self) -> &str {
        self.inner.name()
    }
    fn ask_without_choice(&self) -> bool {
        self.inner.ask_without_choice()
    }
    fn choose_play(
        &mut self,
        obs: &Observation,
        playable: CardSet,
        rng: &mut Rng,
    ) -> Option<CardId> {
        let a = self.inner.choose_play(obs, playable, rng);
        self.after(obs, HookAt::Decision, a)
    }
    fn play_drawn(&mut self, obs: &Observation, card: CardId, rng: &mut Rng) -> bool {
        let a = self.inner.play_drawn(obs, card, rng);
        self.after(obs, HookAt::Decision, a)
    }
    fn choose_color(&mut self, obs: &Observation, rng: &mut Rng) -> Color {
        let a = self.inner.choose_color(obs, rng);
        self.after(obs, HookAt::Decision, a)
    }
    fn call_uno(&mut self, obs: &Observation, rng: &mut Rng) -> bool {
        let a = self.inner.call_uno(obs, rng);
        self.after(obs, HookAt::Decision, a)
    }
    fn choose_target(&mut self, obs: &Observation, rng: &mut Rng) -> u8 {
        let a = self.inner.choose_target(obs, rng);
        self.after(obs, HookAt::Decision, a)
    }
    fn answer_stack(
        &mut self,
        obs: &Observation,
        answers: CardSet,
        rng: &mut Rng,
    ) -> Option<CardId> {
        let a = self.inner.answer_stack(obs, answers, rng);
        self.after(obs, HookAt::Decision, a)
    }
    fn challenge(&mut self, obs: &Observation, rng: &mut Rng) -> bool {
        let a = self.inner.challenge(obs, rng);
        self.after(obs, HookAt::Decision, a)
    }
    fn jump_in(&mut self, obs: &Observation, card: CardId, rng: &mut Rng) -> bool {
        let a = self.inner.jump_in(obs, card, rng);
        self.after(obs, HookAt::Decision, a)
    }
    fn round_start(&mut self, obs: &Observation) {
        self.inner.round_start(obs);
        self.after(obs, HookAt::RoundStart, ())
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
    fn recover(&mut self) {
        self.inner.recover()
    }
    fn hears_notices(&self) -> bool {
        self.inner.hears_notices()
    }
    fn notes(&self) -> Tracking {
        self.inner.notes()
    }
}
