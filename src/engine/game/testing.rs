//! What the engine's unit tests share: rounds of random play with no agent
//! of the layer above.

use super::{Agents, Game, NoRecord, Observation, TurnEnd};
use crate::engine::cards::{CardId, CardSet};
use crate::engine::rng::Rng;
use crate::engine::rules::Rules;
use crate::engine::strategy::{Strategy, Tracking};
use rand::Rng as _;

// Random plays (the engine's defaults for the other decisions) at a table
// that keeps what the `Tracking` asks for; the engine's tests use no agent
// of the layer above.
struct Uniform(Tracking);
impl Strategy for Uniform {
    fn name(&self) -> &str {
        "uniform"
    }
    fn choose_play(&mut self, _: &Observation, playable: CardSet, rng: &mut Rng) -> Option<CardId> {
        any_of(playable, rng)
    }
    fn notes(&self) -> Tracking {
        self.0
    }
}

/// A card of `playable` picked uniformly, or `None` when it is empty: the
/// random play of the engine's test strategies.
pub(crate) fn any_of(playable: CardSet, rng: &mut Rng) -> Option<CardId> {
    let n = playable.len();
    (n > 0).then(|| playable.nth_small(rng.random_range(0..n)))?
}

/// The states of one round of random play (`Uniform` at every seat),
/// the deal's first, then one after each turn.
pub(crate) fn round_states(r: &Rules, players: usize, seed: u64) -> Vec<Game<'_>> {
    round_states_noting(r, players, seed, Tracking::Off)
}

/// As [`round_states`], at a table whose seats ask for `tracking` (the
/// public notes a game then keeps, such as a Wild Draw Four's colour).
pub(crate) fn round_states_noting(
    r: &Rules,
    players: usize,
    seed: u64,
    tracking: Tracking,
) -> Vec<Game<'_>> {
    round_states_of(r, players, seed, || Box::new(Uniform(tracking)))
}

/// As [`round_states`], with the strategy `seat` makes at every seat.
pub(crate) fn round_states_of(
    r: &Rules,
    players: usize,
    seed: u64,
    seat: impl Fn() -> Box<dyn Strategy>,
) -> Vec<Game<'_>> {
    let mut g = Game::new(r, players, seed);
    g.set_lazy_pile(true);
    let mut seats: Vec<Box<dyn Strategy>> = (0..players).map(|_| seat()).collect();
    let mut agents = Agents {
        seats: &mut seats,
        rng: crate::engine::rng::game_rngs(seed, 1).1,
    };
    g.start_match(None);
    let mut cur = g.begin_round(&mut agents, &mut NoRecord).first_player;
    let mut states = vec![g.clone()];
    while let TurnEnd::Next(next) = g.play_turn(cur, &mut agents, &mut NoRecord) {
        states.push(g.clone());
        cur = next;
    }
    states
}
