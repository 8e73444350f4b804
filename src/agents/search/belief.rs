//! `model`: belief-weighted determinizations. A determinization deals every
//! other player a hand; an opponent model (a preset: how the others are taken
//! to play) says how likely each player's last turn (the card it played and
//! the colour it named, or its draw: [`Observation::last_turn`]) was with the
//! hand the deal gives it at that turn. The deal's weight is the product of
//! those chances over the other players. `pimc` keeps a candidate deal with
//! the chance its weight gives (rejection sampling), so the deals it plays
//! follow the model's posterior and each counts once. Averaging every deal's
//! rewards with its weight instead (importance weighting) was measured too:
//! with fewer deals that count, it lost to plain `pimc` (docs/agents.md).
//!
//! A player is taken to play as the model with chance `1 - noise` and a
//! uniformly random legal action (a card, or a draw where drawing is allowed;
//! with a wild, any of the four colours) with chance `noise`, so no deal the
//! rules allow weighs nothing. The model's choice is one sample of it (a
//! randomised model's chance is estimated, without bias, by that sample).
//!
//! The hand at that turn is the dealt hand less the cards drawn since (as many
//! as the hand grew by, picked at random among the dealt ones: which ones
//! were drawn is as hidden as the rest) plus the card played. The model sees
//! that hand on the top card and colour of that turn; the rest of the table
//! (other hands' sizes, the discard pile) is as it is now.

use crate::agents::{Seat, StrategySpec};
use crate::engine::cards::CardSet;
use crate::engine::game::{below, Game, Observation, Rng};
use crate::engine::strategy::Strategy;

/// The least weight of a deal: one whose observed turn the rules did not
/// allow (a draw with a playable card under `force_play`) weighs this, so
/// that a decision whose every deal is impossible still compares actions.
const FLOOR: f64 = 1e-9;

/// The opponent model of a search agent, one instance per seat.
pub struct OpponentModel {
    seats: Vec<Seat>,
    noise: f64,
}

impl OpponentModel {
    pub fn new(spec: &StrategySpec, players: usize, noise: f64) -> OpponentModel {
        OpponentModel {
            seats: (0..players).map(|_| spec.instantiate()).collect(),
            noise,
        }
    }

    /// The weight of the deal `g` (a determinization for `obs`'s seat): the
    /// product over the other players with a known last turn of the chance
    /// the model, with its noise, gives to that turn.
    pub fn weight(&mut self, obs: &Observation, g: &Game, rng: &mut Rng) -> f64 {
        let me = obs.seat() as usize;
        let mut w = 1.0;
        for h in 0..obs.players() {
            if h != me {
                w *= self.likelihood(obs, g, h, rng);
            }
        }
        w
    }

    /// The chance of `h`'s last turn with the hand `g` deals it (1 when its
    /// last turn is unknown or the deal cannot be traced back to it).
    fn likelihood(&mut self, obs: &Observation, g: &Game, h: usize, rng: &mut Rng) -> f64 {
        let Some(t) = obs.last_turn(h) else {
            return 1.0;
        };
        let now = g.hand(h);
        let played = t.card.is_some() as u32;
        let since = obs.cards_drawn_by(h).wrapping_sub(t.at);
        let Some(extra) = (now.len() + played).checked_sub(t.size) else {
            return 1.0;
        };
        if extra > since || extra > now.len() {
            return 1.0;
        }
        let mut then = now;
        for _ in 0..extra {
            let k = below(rng, then.len());
            if let Some(c) = then.nth(k) {
                then.remove(c);
            }
        }
        if let Some(c) = t.card {
            then.insert(c);
        }
        let past = g.before_turn(h, then, &t);
        let playable = past.playable(then);
        let s = obs.settings();
        let may_draw = playable.is_empty() || (!s.force_play && s.may_draw_when_playable);
        if t.card.is_none() && !may_draw {
            return FLOOR;
        }
        let options = (playable.len() + may_draw as u32) as f64;
        let model = &mut self.seats[h];
        let choice = if playable.is_empty() {
            None
        } else {
            model.choose_play(&Observation::of(&past, h as u8), playable, rng)
        };
        let mut agree = choice == t.card;
        let mut uniform = 1.0 / options;
        if let (Some(c), Some(named)) = (t.card, t.named) {
            uniform /= 4.0;
            if agree {
                let after = g.before_turn(h, then - CardSet::single(c), &t);
                agree = model.choose_color(&Observation::of(&after, h as u8), rng) == named;
            }
        }
        let p = (1.0 - self.noise) * agree as u8 as f64 + self.noise * uniform;
        p.max(FLOOR)
    }
}
