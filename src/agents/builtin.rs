//! The parameterless built-ins: `random` and `first`.

use crate::engine::cards::{CardId, CardSet, Color};
use crate::engine::game::{below, Observation, Rng};
use crate::engine::strategy::Strategy;
use rand::Rng as _;

/// Uniform over playable cards; draws only when none is playable; random colour,
/// random target, random stack answer; challenges half the time.
#[derive(Debug, Clone, Default)]
pub struct RandomStrategy;

impl Strategy for RandomStrategy {
    fn name(&self) -> &str {
        "random"
    }
    fn ask_without_choice(&self) -> bool {
        false
    }
    #[inline]
    fn choose_play(&mut self, _: &Observation, playable: CardSet, rng: &mut Rng) -> Option<CardId> {
        let n = playable.len();
        if n == 0 {
            return None;
        }
        playable.nth_small(below(rng, n))
    }
    fn choose_color(&mut self, _: &Observation, rng: &mut Rng) -> Color {
        Color::from_index(below(rng, 4) as usize)
    }
    fn choose_target(&mut self, obs: &Observation, rng: &mut Rng) -> u8 {
        obs.seat_after(1 + below(rng, obs.players() as u32 - 1) as u8)
    }
    fn answer_stack(&mut self, _: &Observation, answers: CardSet, rng: &mut Rng) -> Option<CardId> {
        answers.nth(below(rng, answers.len()))
    }
    fn challenge(&mut self, _: &Observation, rng: &mut Rng) -> bool {
        rng.random::<bool>()
    }
}

/// Plays the first playable card in the deck's fixed card order; names the
/// colour held most.
#[derive(Debug, Clone, Default)]
pub struct FirstStrategy;

impl Strategy for FirstStrategy {
    fn name(&self) -> &str {
        "first"
    }
    fn ask_without_choice(&self) -> bool {
        false
    }
    fn choose_play(&mut self, _: &Observation, playable: CardSet, _: &mut Rng) -> Option<CardId> {
        playable.first()
    }
}
