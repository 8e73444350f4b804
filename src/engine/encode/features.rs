//! [`Features`]: the features of one decision kept small between the
//! decision and the moment they are written out (the stepper, the batched
//! environment).

use super::{card_kind, count_kinds, each_card, seat_at, DecisionKind, KINDS, OBS_LEN, SECTIONS};
use crate::engine::cards::{CardId, CardSet};
use crate::engine::game::{Observation, MAX_PLAYERS};
use crate::engine::rules::Deck;

/// The features of one decision, kept small: what [`encode`](super::encode) reads of the
/// observation, taken at the decision ([`Features::capture`]) and written
/// out later ([`Features::write`]) with exactly [`encode`](super::encode)'s values. About
/// 160 bytes where the written features are [`OBS_LEN`] floats: a stepped
/// game keeps this between two steps, and a batch of games writes each
/// straight into its row of the observations. The discard pile's counts by
/// kind are kept from one capture to the next by difference (a play adds
/// one card), as [`encode_update`](super::encode_update) does.
#[derive(Clone, Copy, Debug)]
pub struct Features {
    hand: CardSet,
    discard: CardSet,
    /// `discard_kinds` counts `discard` (false before the first capture).
    counted: bool,
    discard_kinds: [u8; KINDS],
    top: u8,
    color: u8,
    direction: i8,
    players: u8,
    /// Hand sizes, from the deciding seat on in the direction of play.
    sizes: [u8; MAX_PLAYERS],
    totals: [f32; MAX_PLAYERS],
    draw_pile: u8,
    pending: u32,
    kind: u8,
    /// The kind of the card the decision is about, or `u8::MAX`.
    card: u8,
    /// Whether a decision was captured (false: [`Features::write`] writes zeros).
    some: bool,
}

impl Default for Features {
    fn default() -> Self {
        Features::EMPTY
    }
}

impl Features {
    /// Nothing captured: writes zeros.
    pub const EMPTY: Features = Features {
        hand: CardSet::EMPTY,
        discard: CardSet::EMPTY,
        counted: false,
        discard_kinds: [0; KINDS],
        top: 0,
        color: 0,
        direction: 0,
        players: 0,
        sizes: [0; MAX_PLAYERS],
        totals: [0.0; MAX_PLAYERS],
        draw_pile: 0,
        pending: 0,
        kind: 0,
        card: u8::MAX,
        some: false,
    };

    /// Takes the features of `obs` for decision `kind` (about `card`).
    /// Captures must come from games of one rule set (the discard counts
    /// are carried over by difference).
    pub fn capture(&mut self, obs: &Observation, kind: DecisionKind, card: Option<CardId>) {
        let d = &obs.rules().deck;
        let n = obs.players();
        self.hand = obs.hand();
        self.top = card_kind(d, obs.top()) as u8;
        self.color = obs.color().index() as u8;
        self.direction = obs.direction();
        self.players = n as u8;
        let all_totals = obs.totals();
        for k in 0..n {
            let seat = seat_at(obs, k);
            self.sizes[k] = obs.hand_size(seat) as u8;
            self.totals[k] = all_totals[seat] as f32 / 100.0;
        }
        self.draw_pile = obs.draw_pile_len() as u8;
        self.pending = obs.pending_draw();
        self.kind = kind as u8;
        self.card = card.map_or(u8::MAX, |c| card_kind(d, c) as u8);
        let now = obs.discard();
        let kinds = &mut self.discard_kinds;
        if self.counted && (self.discard ^ now).len() <= 8 {
            each_card(now - self.discard, |c| kinds[d.kind_of[c] as usize] += 1);
            each_card(self.discard - now, |c| kinds[d.kind_of[c] as usize] -= 1);
        } else {
            *kinds = [0; KINDS];
            each_card(now, |c| kinds[d.kind_of[c] as usize] += 1);
        }
        self.discard = now;
        self.counted = true;
        self.some = true;
    }

    /// Forgets the decision (the game is over): [`Features::write`] writes
    /// zeros; the discard counts are kept for the next capture.
    pub fn clear(&mut self) {
        self.some = false;
    }

    /// Writes the features into `out` (at least [`OBS_LEN`] long; every
    /// value is written): [`encode`](super::encode)'s values for the captured decision,
    /// zeros when none is captured. `deck` is the rule set's deck.
    pub fn write(&self, deck: &Deck, out: &mut [f32]) {
        let out = &mut out[..OBS_LEN];
        out.fill(0.0);
        if !self.some {
            return;
        }
        let [hand, top, color, direction, players, sizes, discard, pile, pending, totals, decision, about] =
            SECTIONS.map(|s| s.offset);
        count_kinds(deck, self.hand, &mut out[hand..]);
        out[top + self.top as usize] = 1.0;
        out[color + self.color as usize] = 1.0;
        out[direction] = self.direction as f32;
        let n = self.players as usize;
        out[players + n - 2] = 1.0;
        for k in 0..n {
            out[sizes + k] = self.sizes[k] as f32;
            out[totals + k] = self.totals[k];
        }
        for (o, &k) in out[discard..discard + KINDS]
            .iter_mut()
            .zip(&self.discard_kinds)
        {
            *o = k as f32;
        }
        out[pile] = self.draw_pile as f32 / 10.0;
        out[pending] = self.pending as f32;
        out[decision + self.kind as usize] = 1.0;
        if self.card != u8::MAX {
            out[about + self.card as usize] = 1.0;
        }
    }
}
