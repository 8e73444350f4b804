//! The decision interface the engine calls: the [`Strategy`] trait, one method
//! per choice the rule book gives a player, each handed an [`Observation`]
//! (what that seat can see) and the table's strategy generator; and
//! [`Agents`], the table of seats a round is played with.
//!
//! The engine is generic over the seat type, so a table of one concrete type
//! (the runner's enum of built-ins) is called with static dispatch and
//! inlined; `Box<dyn Strategy>` is a strategy too, for tables of mixed kinds.
//! The implementations live in the agents layer, above this one.

use crate::engine::cards::{CardId, CardSet, Color};
use crate::engine::game::{MatchResult, Observation, RoundResult};
use crate::engine::rng::Rng;

/// The strategies at the table, one per seat, and the generator they draw from.
pub struct Agents<'a, S: Strategy> {
    pub seats: &'a mut [S],
    pub rng: Rng,
}

/// A player's decisions. Implementations must be deterministic given the
/// observation and the generator they are handed.
pub trait Strategy: Send {
    /// The name reported in results.
    fn name(&self) -> &str;

    /// Picks a card of `playable` to play, or `None` to draw.
    fn choose_play(
        &mut self,
        obs: &Observation,
        playable: CardSet,
        rng: &mut Rng,
    ) -> Option<CardId>;

    /// Whether [`Strategy::choose_play`] is asked when no card is playable, so
    /// that drawing is the only legal action. Asked once per round. Returning
    /// false skips those calls (the player draws); the built-in strategies do,
    /// since they would only answer `None`.
    fn ask_without_choice(&self) -> bool {
        true
    }

    /// Whether to play the card just drawn (only asked when it is playable).
    fn play_drawn(&mut self, _obs: &Observation, _card: CardId, _rng: &mut Rng) -> bool {
        true
    }

    /// The colour to name for a wild: by default the colour held most.
    fn choose_color(&mut self, obs: &Observation, _rng: &mut Rng) -> Color {
        most_held_color(obs)
    }

    /// Whether to call UNO when a play leaves one card.
    fn call_uno(&mut self, _obs: &Observation, _rng: &mut Rng) -> bool {
        true
    }

    /// The opponent to swap hands with (Wild Swap, seven-o): by default the one
    /// holding the fewest cards (first in turn order on a tie).
    fn choose_target(&mut self, obs: &Observation, _rng: &mut Rng) -> u8 {
        fewest_cards_opponent(obs)
    }

    /// Answer a pending draw with one of `answers` (stacking), or `None` to draw it.
    fn answer_stack(
        &mut self,
        _obs: &Observation,
        answers: CardSet,
        _rng: &mut Rng,
    ) -> Option<CardId> {
        answers.first()
    }

    /// Whether to challenge the Wild Draw Four just played on this player.
    fn challenge(&mut self, _obs: &Observation, _rng: &mut Rng) -> bool {
        false
    }

    /// Whether to jump in with `card`, identical to the top card.
    fn jump_in(&mut self, _obs: &Observation, _card: CardId, _rng: &mut Rng) -> bool {
        true
    }

    /// Hears that a round was dealt and its start card turned (before any
    /// decision of the round, the start wild's colour included).
    fn round_start(&mut self, _obs: &Observation) {}

    /// Hears how a round ended (`obs` shows the hands as they ended).
    fn round_end(&mut self, _obs: &Observation, _result: &RoundResult) {}

    /// Hears how a match ended.
    fn match_end(&mut self, _obs: &Observation, _result: &MatchResult) {}

    /// A fatal fault (an external program that died, went silent or broke the
    /// protocol): the engine asks after every round and, when there is one,
    /// ends the match with an error naming the seat. A faulted strategy keeps
    /// answering with legal defaults so that the round can finish.
    fn fault(&mut self) -> Option<String> {
        None
    }

    /// Whether the strategy wants the round-end notices ([`Strategy::round_end`])
    /// and is asked for faults after each round. Asked once per round; the
    /// built-in strategies say no, so a round of built-ins skips the notices.
    fn hears_notices(&self) -> bool {
        true
    }
}

/// A boxed strategy is a strategy (a table of mixed kinds, called through
/// `dyn`).
impl<S: Strategy + ?Sized> Strategy for Box<S> {
    fn name(&self) -> &str {
        (**self).name()
    }
    fn choose_play(
        &mut self,
        obs: &Observation,
        playable: CardSet,
        rng: &mut Rng,
    ) -> Option<CardId> {
        (**self).choose_play(obs, playable, rng)
    }
    fn ask_without_choice(&self) -> bool {
        (**self).ask_without_choice()
    }
    fn play_drawn(&mut self, obs: &Observation, card: CardId, rng: &mut Rng) -> bool {
        (**self).play_drawn(obs, card, rng)
    }
    fn choose_color(&mut self, obs: &Observation, rng: &mut Rng) -> Color {
        (**self).choose_color(obs, rng)
    }
    fn call_uno(&mut self, obs: &Observation, rng: &mut Rng) -> bool {
        (**self).call_uno(obs, rng)
    }
    fn choose_target(&mut self, obs: &Observation, rng: &mut Rng) -> u8 {
        (**self).choose_target(obs, rng)
    }
    fn answer_stack(
        &mut self,
        obs: &Observation,
        answers: CardSet,
        rng: &mut Rng,
    ) -> Option<CardId> {
        (**self).answer_stack(obs, answers, rng)
    }
    fn challenge(&mut self, obs: &Observation, rng: &mut Rng) -> bool {
        (**self).challenge(obs, rng)
    }
    fn jump_in(&mut self, obs: &Observation, card: CardId, rng: &mut Rng) -> bool {
        (**self).jump_in(obs, card, rng)
    }
    fn round_start(&mut self, obs: &Observation) {
        (**self).round_start(obs)
    }
    fn round_end(&mut self, obs: &Observation, result: &RoundResult) {
        (**self).round_end(obs, result)
    }
    fn match_end(&mut self, obs: &Observation, result: &MatchResult) {
        (**self).match_end(obs, result)
    }
    fn fault(&mut self) -> Option<String> {
        (**self).fault()
    }
    fn hears_notices(&self) -> bool {
        (**self).hears_notices()
    }
}

/// The colour of which the observer holds the most cards (first on a tie).
pub fn most_held_color(obs: &Observation) -> Color {
    let d = &obs.rules().deck;
    let hand = obs.hand();
    let mut best = Color::Red;
    let mut best_n = 0;
    for c in Color::ALL {
        let k = (hand & d.color_mask[c.index()]).len();
        if k > best_n {
            best = c;
            best_n = k;
        }
    }
    best
}

/// The opponent with the fewest cards, first in turn order on a tie.
pub fn fewest_cards_opponent(obs: &Observation) -> u8 {
    let mut best = obs.seat_after(1);
    for k in 2..obs.players() as u8 {
        let s = obs.seat_after(k);
        if obs.hand_size(s as usize) < obs.hand_size(best as usize) {
            best = s;
        }
    }
    best
}
