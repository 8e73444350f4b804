//! Dealing and drawing: the shuffle (or the unordered "lazy" pile the runner
//! uses), the deal from left of the dealer, the start card and its effect
//! (docs/rules.md section 3), and every draw with its reshuffle of the discard
//! pile when the draw pile runs out.

use super::strategy::Table;
use super::{
    below, Agents, DrawReason, Event, Game, Recorder, IDENTITY, MAX_PLAYERS, MAX_START_FLIPS,
};
use crate::engine::cards::{CardId, CardSet, Color};
use crate::engine::rules::{Effect, StartWildColor};

impl<'r> Game<'r> {
    /// Takes the next card off the draw pile (which must not be empty).
    #[inline(always)]
    pub(super) fn take(&mut self) -> CardId {
        let len = self.pile.len as usize - 1;
        if self.lazy && len > 0 {
            let j = below(&mut self.rng, len as u32 + 1) as usize;
            let c = self.pile.cards[j];
            self.pile.cards[j] = self.pile.cards[len];
            self.pile.len = len as u8;
            c
        } else {
            self.pile.len = len as u8;
            self.pile.cards[len]
        }
    }

    /// Makes the next round use this deck order (top first) instead of a shuffle:
    /// the deal takes cards from the front. Cards of the deck that are missing
    /// are appended in id order. For scripted tests.
    pub fn script_deck(&mut self, top_first: &[CardId]) {
        let mut seen = CardSet::EMPTY;
        let mut order = Vec::with_capacity(self.rules.deck.size);
        for &c in top_first {
            assert!(
                (c as usize) < self.rules.deck.size && !seen.contains(c),
                "scripted deck repeats or overflows card {c}"
            );
            seen.insert(c);
            order.push(c);
        }
        for c in (self.rules.deck.all - seen).iter() {
            order.push(c);
        }
        self.scripted = Some(order);
    }

    #[cold]
    pub(super) fn reshuffle<R: Recorder>(&mut self, rec: &mut R) -> bool {
        let rest = self.discard - CardSet::single(self.top);
        if rest.is_empty() {
            return false;
        }
        let mut len = 0usize;
        for c in rest.iter() {
            self.pile.cards[len] = c;
            len += 1;
        }
        if !self.lazy {
            for i in (1..len).rev() {
                let j = below(&mut self.rng, i as u32 + 1) as usize;
                self.pile.cards.swap(i, j);
            }
        }
        self.pile.len = len as u8;
        self.discard = CardSet::single(self.top);
        self.reshuffled(rest);
        rec.on(self, Event::Reshuffle);
        true
    }

    /// Draws up to `k` cards for `p`; returns how many came.
    pub(super) fn draw<R: Recorder>(
        &mut self,
        p: u8,
        k: u32,
        reason: DrawReason,
        rec: &mut R,
    ) -> u32 {
        let mut got = 0;
        while got < k && self.draw_card(p, reason, rec).is_some() {
            got += 1;
        }
        rec.on(self, Event::DrawEnd { player: p, reason });
        got
    }

    /// Draws one card for `p` (reshuffling an empty pile first); `None` when
    /// both piles are empty. The caller ends the draw with `DrawEnd`.
    #[inline(always)]
    pub(super) fn draw_card<R: Recorder>(
        &mut self,
        p: u8,
        reason: DrawReason,
        rec: &mut R,
    ) -> Option<CardId> {
        if self.pile.len == 0 && !self.reshuffle(rec) {
            return None;
        }
        let card = self.draw_one(p);
        rec.on(
            self,
            Event::Draw {
                player: p,
                card,
                reason,
            },
        );
        Some(card)
    }

    #[inline(always)]
    pub(super) fn draw_one(&mut self, p: u8) -> CardId {
        let c = self.take();
        self.hands[p as usize & 15].insert(c);
        self.drawn[p as usize & 15] += 1;
        self.idle = 0;
        c
    }

    pub(super) fn setup_round<R: Recorder, T: Table + ?Sized>(
        &mut self,
        agents: &mut Agents<T>,
        rec: &mut R,
    ) -> u8 {
        let d = &self.rules.deck;
        let n = self.n;
        self.round += 1;
        self.hands = [CardSet::EMPTY; 16];
        self.discard = CardSet::EMPTY;
        // No colour is active before the start card: every deal starts from
        // a fresh table's (as `Game::new`), so a start wild's colour choice
        // never sees the colour the previous round left (the runners reuse a
        // table, and which game it played before depends on the threads).
        self.color = Color::Red;
        self.accept = CardSet::EMPTY;
        self.of_color = CardSet::EMPTY;
        self.set_direction(1);
        self.pending = 0;
        self.pending_cards = 0;
        self.turns = 0;
        self.jump_ins = 0;
        self.idle = 0;
        self.reset_knowledge();
        self.uno_penalties = 0;
        self.illegal = [0; MAX_PLAYERS];
        self.error = None;
        self.halt = false;
        // Shuffle: the pile array holds the deck with its top last.
        let size = d.size;
        if let Some(order) = self.scripted.take() {
            // A scripted deck is drawn in its order.
            self.lazy = false;
            for (i, &c) in order.iter().enumerate() {
                self.pile.cards[size - 1 - i] = c;
            }
        } else if self.lazy {
            self.pile.cards = IDENTITY;
        } else {
            self.pile.cards = IDENTITY;
            for i in (1..size).rev() {
                let j = below(&mut self.rng, i as u32 + 1) as usize;
                self.pile.cards.swap(i, j);
            }
        }
        self.pile.len = size as u8;
        // Deal one at a time from left of the dealer.
        let mut p = self.dealer;
        for _ in 0..self.s.hand_size * n as u32 {
            p = if p + 1 == n { 0 } else { p + 1 };
            let c = self.take();
            self.hands[p as usize & 15].insert(c);
        }
        rec.on(
            self,
            Event::Deal {
                round: self.round,
                dealer: self.dealer,
            },
        );
        // Flip the start card; Wild Draw Four and Downpour go back. When every
        // card of the pile is one of those (only with the largest hands), no flip
        // can succeed: the flipped card stays and acts as a plain Wild (docs/rules.md
        // section 3.3). Bound: otherwise at least one card of the pile
        // stays, so each flip succeeds with probability at least 1/128; the
        // loop also stops after MAX_START_FLIPS flips, keeping the last card as
        // in the all-returned case (a chance below 1e-30 even then).
        let mut flips = 0u32;
        loop {
            let c = self.take();
            if d.returned_at_start.contains(c) && self.start_card_goes_back(&mut flips) {
                let len = self.pile.len as usize;
                let pos = if self.lazy {
                    len
                } else {
                    below(&mut self.rng, len as u32 + 1) as usize
                };
                self.pile.cards.copy_within(pos..len, pos + 1);
                self.pile.cards[pos] = c;
                self.pile.len += 1;
                rec.on(
                    self,
                    Event::Flip {
                        card: c,
                        returned: true,
                    },
                );
                continue;
            }
            self.top = c;
            self.discard = CardSet::single(c);
            rec.on(
                self,
                Event::Flip {
                    card: c,
                    returned: false,
                },
            );
            break;
        }
        // The round-start notices see a coloured start card's colour (a
        // wild's is named just after).
        if let Some(col) = d.color(self.top) {
            self.set_colored_top(self.top, col);
        }
        for q in 0..n {
            agents.seats.round_start(q, &self.obs(q));
        }
        // The start card's effect, with P the player left of the dealer.
        let p = (self.dealer + 1) % n;
        let c = self.top;
        let effect = d.effect_of[c as usize];
        match d.color(c) {
            None => {
                let col = match self.s.start_wild_color {
                    StartWildColor::Player => {
                        agents.seats.choose_color(p, &self.obs(p), &mut agents.rng)
                    }
                    StartWildColor::Random => Color::from_index(below(&mut self.rng, 4) as usize),
                };
                self.set_color(col);
                rec.on(
                    self,
                    Event::Color {
                        player: p,
                        color: col,
                    },
                );
                p
            }
            Some(col) => {
                self.set_colored_top(c, col);
                if !self.s.start_card_effects {
                    return p;
                }
                match effect {
                    Effect::Skip => {
                        rec.on(self, Event::Skip { player: p });
                        self.step(p, 1)
                    }
                    Effect::Reverse => {
                        if n == 2 && self.s.two_player_reverse_skips {
                            rec.on(self, Event::Skip { player: p });
                        }
                        self.set_direction(-1);
                        self.dealer
                    }
                    Effect::Draw2 => {
                        self.draw(p, 2, DrawReason::Draw2, rec);
                        if !self.s.start_draw2_skips {
                            return p;
                        }
                        rec.on(self, Event::Skip { player: p });
                        self.step(p, 1)
                    }
                    _ => p,
                }
            }
        }
    }

    /// A Wild Draw Four or Downpour was flipped as the start card: whether it
    /// goes back (see the flip loop in `setup_round`). Rare, so kept out of
    /// the round's hot code.
    #[cold]
    #[inline(never)]
    pub(super) fn start_card_goes_back(&self, flips: &mut u32) -> bool {
        *flips += 1;
        if *flips >= MAX_START_FLIPS {
            return false;
        }
        // Before the start card lies the discard pile is empty: the pile (with
        // the card just flipped) is every card not in a hand.
        let held = self.hands[..self.n as usize]
            .iter()
            .fold(CardSet::EMPTY, |u, &h| u | h);
        let d = &self.rules.deck;
        !(d.all - held - d.returned_at_start).is_empty()
    }
}
