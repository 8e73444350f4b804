//! What is hidden from a player, and checks over everything: a
//! determinization (the cards a player cannot see dealt at random, for search
//! agents) and the card-conservation invariant (for tests).

use super::{below, Game, Observation, Rng};
use crate::engine::cards::{CardId, CardSet};
use rand::{Rng as _, SeedableRng};

impl<'r> Game<'r> {
    /// Builds a full game state from an observation and a uniformly random
    /// assignment of the cards the observer cannot see (for search agents): the
    /// observer's hand, the discard pile, hand sizes, direction and totals are
    /// kept; the other hands and the draw-pile order are sampled.
    pub fn determinize(obs: &Observation<'r>, rng: &mut Rng) -> Game<'r> {
        let src = obs.g;
        let mut g = src.clone();
        g.rng = Rng::seed_from_u64(rng.random());
        g.scripted = None;
        let me = obs.seat as usize;
        let unseen = src.rules.deck.all - src.discard - src.hands[me];
        let mut pool = [0 as CardId; 128];
        let mut len = 0;
        for c in unseen.iter() {
            pool[len] = c;
            len += 1;
        }
        for i in (1..len).rev() {
            let j = below(rng, i as u32 + 1) as usize;
            pool.swap(i, j);
        }
        let mut k = 0;
        for seat in 0..src.n as usize {
            if seat == me {
                continue;
            }
            let want = src.hands[seat].len() as usize;
            let mut h = CardSet::EMPTY;
            for &c in &pool[k..k + want] {
                h.insert(c);
            }
            k += want;
            g.hands[seat] = h;
        }
        let rest = &pool[k..len];
        g.pile.cards[..rest.len()].copy_from_slice(rest);
        g.pile.len = rest.len() as u8;
        // Whether a pending Wild Draw Four was a bluff depends on a hand the
        // observer never saw: a coin flip, not the real answer.
        if src.pending > 0 && src.s.bluff_challenge && src.rules.deck.wd4.contains(src.top) {
            g.wd4_guilty = rng.random::<bool>();
        }
        g
    }

    /// Checks the invariants of a round in progress or just ended: every card is
    /// in exactly one place (a hand, the draw pile or the discard pile).
    pub fn check_conservation(&self) -> Result<(), String> {
        let mut seen = CardSet::EMPTY;
        let mut total = 0u32;
        for (i, h) in self.hands().iter().enumerate() {
            if !(seen & *h).is_empty() {
                return Err(format!("hand {i} overlaps another place: {:?}", seen & *h));
            }
            seen |= *h;
            total += h.len();
        }
        for c in self.draw_pile() {
            if seen.contains(c) {
                return Err(format!("draw-pile card {c} is also elsewhere"));
            }
            seen.insert(c);
            total += 1;
        }
        if !(seen & self.discard).is_empty() {
            return Err("discard pile overlaps another place".into());
        }
        seen |= self.discard;
        total += self.discard.len();
        if !self.discard.contains(self.top) {
            return Err("the top card is not on the discard pile".into());
        }
        if seen != self.rules.deck.all || total as usize != self.rules.deck.size {
            return Err(format!(
                "cards not conserved: {} placed of {}",
                total, self.rules.deck.size
            ));
        }
        Ok(())
    }
}
