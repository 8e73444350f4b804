//! The decision interface the engine calls: the [`Strategy`] trait, one method
//! per choice the rule book gives a player, each handed an [`Observation`]
//! (what that seat can see) and the table's strategy generator; and
//! [`Agents`], the table of seats a round is played with.
//!
//! The engine calls a [`Table`]: the strategies of every seat, asked by seat.
//! A slice or `Vec` of one [`Strategy`] type is a table (the runner's enum of
//! built-ins, called with static dispatch and inlined; `Box<dyn Strategy>` is
//! a strategy too, for tables of mixed kinds). A table of its own can share
//! state between its seats (a search agent's simulated table, a learning
//! environment that stops the game at a decision).
//! The implementations live in the agents layer, above this one.

use super::{MatchResult, Observation, RoundResult};
use crate::engine::cards::{CardId, CardSet, Color};
use crate::engine::rng::Rng;

/// The strategies at the table and the generator they draw from.
pub struct Agents<'a, T: Table + ?Sized> {
    pub seats: &'a mut T,
    pub rng: Rng,
}

/// The strategies of a table, asked by seat: one method per method of
/// [`Strategy`], with the seat first. Every slice and `Vec` of strategies is
/// a table.
pub trait Table {
    /// The name of the strategy at `seat` (errors, results).
    fn name(&self, seat: u8) -> &str;
    fn ask_without_choice(&self, seat: u8) -> bool;
    fn choose_play(
        &mut self,
        seat: u8,
        obs: &Observation,
        playable: CardSet,
        rng: &mut Rng,
    ) -> Option<CardId>;
    fn play_drawn(&mut self, seat: u8, obs: &Observation, card: CardId, rng: &mut Rng) -> bool;
    fn choose_color(&mut self, seat: u8, obs: &Observation, rng: &mut Rng) -> Color;
    fn call_uno(&mut self, seat: u8, obs: &Observation, rng: &mut Rng) -> bool;
    fn choose_target(&mut self, seat: u8, obs: &Observation, rng: &mut Rng) -> u8;
    fn answer_stack(
        &mut self,
        seat: u8,
        obs: &Observation,
        answers: CardSet,
        rng: &mut Rng,
    ) -> Option<CardId>;
    fn challenge(&mut self, seat: u8, obs: &Observation, rng: &mut Rng) -> bool;
    fn jump_in(&mut self, seat: u8, obs: &Observation, card: CardId, rng: &mut Rng) -> bool;
    fn round_start(&mut self, seat: u8, obs: &Observation);
    fn round_end(&mut self, seat: u8, obs: &Observation, result: &RoundResult);
    fn match_end(&mut self, seat: u8, obs: &Observation, result: &MatchResult);
    fn fault(&mut self, seat: u8) -> Option<String>;
    fn hears_notices(&self, seat: u8) -> bool;
    /// See [`Strategy::notes`].
    fn notes(&self, _seat: u8) -> Tracking {
        Tracking::Off
    }
    /// Whether `seat` is also asked the decisions the rules leave it no
    /// choice in, where the engine otherwise asks only a seat that has one:
    /// the stack answer of a seat a draw card hits under `stacking`
    /// ([`Table::answer_stack`] with no answers), a drawn card it cannot play
    /// ([`Table::drawn_unplayable`]) and a jump-in it holds no card for
    /// ([`Table::no_jump_in`]). Asked once per round. Then who is asked tells
    /// nothing of a hand (the stepped environments, where the order of the
    /// decisions is public). No strategy table does: a strategy is never
    /// told when another seat is asked.
    fn asks_forced(&self, _seat: u8) -> bool {
        false
    }
    /// `seat` drew `card` and cannot play it: under [`Table::asks_forced`],
    /// the keep-or-play decision with keeping as its only answer.
    fn drawn_unplayable(&mut self, _seat: u8, _obs: &Observation, _card: CardId, _rng: &mut Rng) {}
    /// `card` was just played and `seat` holds no card identical to it:
    /// under [`Table::asks_forced`] and `jump_in`, the jump-in decision with
    /// declining as its only answer.
    fn no_jump_in(&mut self, _seat: u8, _obs: &Observation, _card: CardId, _rng: &mut Rng) {}
}

/// What a strategy asks the game to note about the hands (for informed
/// search: see [`Observation::notes`]). A table where any seat asks for
/// notes plays the house-rule variant of the turn logic, so that the others
/// pay nothing for them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub enum Tracking {
    /// No notes (the known cards of swaps, rotations and challenges are
    /// kept anyway: they cost nothing on the turn loop).
    #[default]
    Off,
    /// Facts: a draw while a play was required, a Wild Draw Four under the
    /// colour restriction, an innocent verdict of a challenge.
    Facts,
    /// Facts, and as soft evidence every draw for a turn where a play was
    /// allowed too (the player may have held no playable card).
    Evidence,
    /// Evidence, and each seat's last turn decision (what it played, or that
    /// it drew, on which top card: [`Observation::last_turn`]), for an
    /// opponent model that weighs determinizations.
    Plays,
}

/// A table of strategies indexed by seat: seat `i` is element `i`.
macro_rules! seats_table {
    ($($doc:literal $ty:ty),*) => {$(
        #[doc = $doc]
        impl<S: Strategy> Table for $ty {
            #[inline]
            fn name(&self, seat: u8) -> &str {
                self[seat as usize].name()
            }
            #[inline]
            fn ask_without_choice(&self, seat: u8) -> bool {
                self[seat as usize].ask_without_choice()
            }
            #[inline(always)]
            fn choose_play(
                &mut self,
                seat: u8,
                obs: &Observation,
                playable: CardSet,
                rng: &mut Rng,
            ) -> Option<CardId> {
                self[seat as usize].choose_play(obs, playable, rng)
            }
            #[inline(always)]
            fn play_drawn(&mut self, seat: u8, obs: &Observation, card: CardId, rng: &mut Rng) -> bool {
                self[seat as usize].play_drawn(obs, card, rng)
            }
            #[inline(always)]
            fn choose_color(&mut self, seat: u8, obs: &Observation, rng: &mut Rng) -> Color {
                self[seat as usize].choose_color(obs, rng)
            }
            #[inline(always)]
            fn call_uno(&mut self, seat: u8, obs: &Observation, rng: &mut Rng) -> bool {
                self[seat as usize].call_uno(obs, rng)
            }
            #[inline(always)]
            fn choose_target(&mut self, seat: u8, obs: &Observation, rng: &mut Rng) -> u8 {
                self[seat as usize].choose_target(obs, rng)
            }
            #[inline(always)]
            fn answer_stack(
                &mut self,
                seat: u8,
                obs: &Observation,
                answers: CardSet,
                rng: &mut Rng,
            ) -> Option<CardId> {
                self[seat as usize].answer_stack(obs, answers, rng)
            }
            #[inline(always)]
            fn challenge(&mut self, seat: u8, obs: &Observation, rng: &mut Rng) -> bool {
                self[seat as usize].challenge(obs, rng)
            }
            #[inline(always)]
            fn jump_in(&mut self, seat: u8, obs: &Observation, card: CardId, rng: &mut Rng) -> bool {
                self[seat as usize].jump_in(obs, card, rng)
            }
            #[inline(always)]
            fn round_start(&mut self, seat: u8, obs: &Observation) {
                self[seat as usize].round_start(obs)
            }
            #[inline]
            fn round_end(&mut self, seat: u8, obs: &Observation, result: &RoundResult) {
                self[seat as usize].round_end(obs, result)
            }
            #[inline]
            fn match_end(&mut self, seat: u8, obs: &Observation, result: &MatchResult) {
                self[seat as usize].match_end(obs, result)
            }
            #[inline]
            fn fault(&mut self, seat: u8) -> Option<String> {
                self[seat as usize].fault()
            }
            #[inline]
            fn hears_notices(&self, seat: u8) -> bool {
                self[seat as usize].hears_notices()
            }
            #[inline]
            fn notes(&self, seat: u8) -> Tracking {
                self[seat as usize].notes()
            }
        }
    )*};
}

seats_table!(
    "A slice of strategies is a table: seat `i` is element `i`." [S],
    "A `Vec` of strategies is a table: seat `i` is element `i`." Vec<S>
);

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

    /// Forgets a fault before a new game of a stepped environment
    /// ([`crate::engine::step::Stepper::reset_game`]): the next game starts
    /// clean (an external program that died is started again). A run never
    /// calls it: there a fault ends the run.
    fn recover(&mut self) {}

    /// Whether the strategy wants the round-end notices ([`Strategy::round_end`])
    /// and is asked for faults after each round. Asked once per round; the
    /// built-in strategies say no, so a round of built-ins skips the notices.
    fn hears_notices(&self) -> bool {
        true
    }

    /// What the game should note about the hands for this strategy (see
    /// [`Tracking`] and [`Observation::notes`]). Asked once per round.
    /// Default: nothing.
    fn notes(&self) -> Tracking {
        Tracking::Off
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
    fn recover(&mut self) {
        (**self).recover()
    }
    fn hears_notices(&self) -> bool {
        (**self).hears_notices()
    }
    fn notes(&self) -> Tracking {
        (**self).notes()
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
