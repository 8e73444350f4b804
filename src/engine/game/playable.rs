//! Which cards may be played: the playability masks for the current top card
//! and colour (docs/rules.md section 4.1), the Wild Draw Four and matching
//! restrictions, and the cards that may answer a pending draw. Mask
//! operations only; the card-by-card reading is kept for tests.

use super::Game;
use crate::engine::cards::{CardId, CardSet, Color};
use crate::engine::rules::{Effect, Stacking};

impl<'r> Game<'r> {
    /// The cards of `hand` that may be played on the current top card and colour
    /// (docs/rules.md section 4.1), as one mask operation.
    #[inline(always)]
    pub fn playable(&self, hand: CardSet) -> CardSet {
        self.playable_in::<true>(hand)
    }

    /// [`Game::playable`]; `M = false` leaves the matching restriction out
    /// (see [`Game::forbidden`]).
    #[inline(always)]
    pub(super) fn playable_in<const M: bool>(&self, hand: CardSet) -> CardSet {
        (hand & self.accept) - self.forbidden::<M>(hand)
    }

    /// The cards the restrictions forbid to `hand`: Wild Draw Four's colour
    /// restriction (the restricted cards when the hand holds the active
    /// colour) and, with `M`, `wild_when_matching = false` (the other wilds
    /// when the hand holds a coloured card of the active colour or of the top
    /// card's face; wilds never count as matching) and `wd4_last_resort`
    /// (Wild Draw Four while any other card of the hand may be played).
    /// Branch-free: whether the hand holds the colour is close to a coin flip,
    /// so a branch here would often be mispredicted. `M` is a compile-time
    /// switch: the turn logic passes its own (`W` of `normal_turn`), set
    /// only for rule sets with `wild_when_matching = false` or
    /// `wd4_last_resort`, so the others
    /// do not pay for a restriction that is empty there.
    #[inline(always)]
    pub(super) fn forbidden<const M: bool>(&self, hand: CardSet) -> CardSet {
        let holds_color = !(hand & self.of_color).is_empty();
        let colour = CardSet(self.restricted.0 & (holds_color as u128).wrapping_neg());
        if !M {
            return colour;
        }
        // The top's colour and face among coloured cards: `accept` less the wilds.
        let holds_match = !(hand & (self.accept - self.rules.deck.wild)).is_empty();
        // Any other card that may be played (`wd4_last_resort`).
        let holds_other = !((hand & self.accept) - self.rules.deck.wd4).is_empty();
        colour
            | CardSet(self.plain_restricted.0 & (holds_match as u128).wrapping_neg())
            | CardSet(self.last_resort.0 & (holds_other as u128).wrapping_neg())
    }

    /// A coloured card `c` is the new top: its colour becomes active and the
    /// playability masks come from the deck's per-card tables (one load each).
    #[inline(always)]
    pub(super) fn set_colored_top(&mut self, c: CardId, color: Color) {
        let d = &self.rules.deck;
        self.color = color;
        self.of_color = d.same_color[c as usize & 127];
        self.accept = d.accept_on[c as usize & 127];
    }

    /// Whether `card`, which is in `hand`, may be played: the masks alone
    /// decide (no need to mask the whole hand).
    #[inline(always)]
    pub(super) fn can_play<const M: bool>(&self, hand: CardSet, card: CardId) -> bool {
        (self.accept - self.forbidden::<M>(hand)).contains(card)
    }

    /// Sets the colour named for a wild top card and refreshes the
    /// playability masks.
    #[inline(always)]
    pub(super) fn set_color(&mut self, color: Color) {
        let d = &self.rules.deck;
        self.color = color;
        self.of_color = d.color_mask[color.index()];
        self.accept = self.of_color | d.face_mask[d.face_of[self.top as usize] as usize] | d.wild;
    }

    /// The card-by-card reading of the playability rule, for tests.
    pub fn is_playable_naive(&self, hand: CardSet, card: CardId) -> bool {
        if !hand.contains(card) {
            return false;
        }
        let d = &self.rules.deck;
        let k = d.kind(card);
        let t = d.kind(self.top);
        let matches = k.color.is_none() || k.color == Some(self.color) || k.face == t.face;
        if !matches {
            return false;
        }
        if d.effect_of[card as usize] == Effect::WildDraw4 {
            let other = |c: CardId| {
                let h = d.kind(c);
                d.effect_of[c as usize] != Effect::WildDraw4
                    && (h.color.is_none() || h.color == Some(self.color) || h.face == t.face)
            };
            if self.s.wd4_last_resort && hand.iter().any(other) {
                return false;
            }
            if !self.s.bluff_challenge {
                return !hand.iter().any(|c| d.kind(c).color == Some(self.color));
            }
        } else if k.color.is_none() && !self.s.wild_when_matching {
            return !hand.iter().any(|c| {
                let h = d.kind(c);
                h.color.is_some() && (h.color == Some(self.color) || h.face == t.face)
            });
        }
        true
    }

    /// Cards that may answer the pending draw (stacking).
    #[inline]
    pub(super) fn answers(&self, hand: CardSet) -> CardSet {
        let d = &self.rules.deck;
        let top_is_wd4 = d.wd4.contains(self.top);
        let m = match self.s.stacking {
            Stacking::Off => return CardSet::EMPTY,
            Stacking::Same => {
                if top_is_wd4 {
                    hand & d.wd4
                } else {
                    hand & d.draw2
                }
            }
            Stacking::Cross => hand & (d.wd4 | d.draw2),
        };
        // Only draw cards answer: the matching restriction (other wilds) cannot apply.
        m - self.forbidden::<false>(hand)
    }
}
