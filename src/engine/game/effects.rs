//! The effects that reach beyond one player: pending draws and their
//! settlement (stacking), jump-in offers, the seven-o rotation, Wild Ohana's
//! fill-up, and the draws a last card still causes (docs/rules.md section 9).

use super::strategy::Table;
use super::{Agents, DrawReason, Event, Game, Recorder};
use crate::engine::cards::CardId;
use crate::engine::rules::{Effect, Stacking};

impl<'r> Game<'r> {
    /// The victim draws the pending total (reason `stack` when more than one
    /// draw card built it, else `draw2` / `draw4` after the top card).
    pub(super) fn settle_pending<R: Recorder>(&mut self, victim: u8, rec: &mut R) {
        let reason = if self.pending_cards > 1 {
            DrawReason::Stack
        } else if self.rules.deck.wd4.contains(self.top) {
            DrawReason::Draw4
        } else {
            DrawReason::Draw2
        };
        let total = self.pending;
        self.pending = 0;
        self.pending_cards = 0;
        self.draw(victim, total, reason, rec);
    }

    #[inline]
    pub(super) fn add_pending(&mut self, k: u32) {
        if self.s.stacking == Stacking::Off {
            self.pending = k;
            self.pending_cards = 1;
        } else {
            self.pending += k;
            self.pending_cards += 1;
        }
    }

    /// The most jump-ins a round allows (a safety bound, never reached in
    /// play: a chain needs identical cards, and the deck holds few).
    #[inline]
    pub(super) fn jump_in_limit(&self) -> u32 {
        self.s.max_turns.saturating_add(self.rules.deck.size as u32)
    }

    pub(super) fn jump_in_offer<T: Table + ?Sized>(
        &mut self,
        p: u8,
        c: CardId,
        agents: &mut Agents<T>,
    ) -> Option<(u8, CardId)> {
        let same = self.rules.deck.identical(c);
        for i in 1..self.n {
            let q = self.step(p, i);
            let held = self.hands[q as usize & 15] & same;
            if let Some(card) = held.first() {
                if agents.seats.jump_in(q, &self.obs(q), card, &mut agents.rng) {
                    self.turn_unknown(q);
                    return Some((q, card));
                }
            } else if self.forced_ask & (1 << q) != 0 {
                agents.seats.no_jump_in(q, &self.obs(q), c, &mut agents.rng);
            }
        }
        None
    }

    /// Seven-o zero: every hand passes to the next player in the direction of play.
    #[cold]
    pub(super) fn rotate<R: Recorder>(&mut self, rec: &mut R) {
        let n = self.n as usize;
        let old = self.hands;
        for i in 0..n {
            let to = self.step(i as u8, 1) as usize;
            self.hands[to] = old[i];
        }
        self.rotated_knowledge();
        rec.on(
            self,
            Event::Rotate {
                direction: self.dir,
            },
        );
    }

    /// Wild Ohana: each player holding fewer than `ohana_fill_to` cards draws up
    /// to it, in turn order from next; `include_player` adds the one who played it.
    #[cold]
    pub(super) fn ohana<R: Recorder>(&mut self, p: u8, include_player: bool, rec: &mut R) {
        let fill = self.s.ohana_fill_to;
        let last = if include_player { self.n } else { self.n - 1 };
        for i in 1..=last {
            let q = self.step(p, i);
            let have = self.hands[q as usize & 15].len();
            if have < fill {
                self.draw(q, fill - have, DrawReason::Ohana, rec);
            }
        }
    }

    /// Draws caused by a last card are carried out before the count (section 4).
    #[cold]
    pub(super) fn last_card_draws<R: Recorder>(&mut self, p: u8, effect: Effect, rec: &mut R) {
        let next = self.step(p, 1);
        match effect {
            Effect::Draw2 | Effect::WildDraw4 => {
                self.add_pending(if effect == Effect::Draw2 { 2 } else { 4 });
                self.settle_pending(next, rec);
            }
            Effect::Downpour1 | Effect::Downpour2 => {
                let k = if effect == Effect::Downpour1 { 1 } else { 2 };
                for i in 1..self.n {
                    let q = self.step(p, i);
                    self.draw(q, k, DrawReason::Downpour, rec);
                }
            }
            Effect::Ohana => self.ohana(p, false, rec),
            _ => {}
        }
    }
}
