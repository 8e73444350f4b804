//! What the table revealed: the cards each player knows to be in another
//! hand, and the public constraints on hands, kept by the game for search
//! agents (docs/agents.md, "What the table revealed").
//!
//! Two kinds of knowledge, both updated only in cold paths (a swap, a hand
//! rotation, a challenge, a reshuffle, a draw under `force_play`, a Wild Draw
//! Four), so that the turn loop does no work for them:
//!
//! - **Known cards** (private): for each card, the seats that know which hand
//!   holds it. A player who gives its hand away in a swap (a Wild Swap, a
//!   seven-o 7) knows the other side holds it, and so does the other side of
//!   its own old hand; in a seven-o rotation each player knows the next one
//!   holds its old hand; a challenger of a Wild Draw Four sees the challenged
//!   hand. Swaps and rotations are public, so whoever knew where a card was
//!   still knows after the hands moved: the bits stay on the card and follow
//!   it. A known card that is played is on the discard pile for everyone to
//!   see (the observation drops it, as it looks only in hands), and a reshuffle
//!   clears the bits of the cards it returns to the draw pile. A card played
//!   from a hand takes one known identical copy with it for a seat that did
//!   not know which it was ([`Game::played_face_up`]).
//! - **The reshuffled cards** (public): a reshuffle returns the discard pile
//!   (under its top card) to the draw pile in front of everyone, so until
//!   the next one the draw pile holds only those cards
//!   ([`Observation::pile_may_hold`]), and no hand held any of them then:
//!   a hard note on every seat (for a table that takes notes).
//! - **Notes** (public): "this hand held no card of this set". Under
//!   `force_play` or `may_draw_when_playable = false` a player who draws for
//!   its turn held no playable card (no card of the `accept` mask then); under
//!   the Wild Draw Four restriction a player who plays one held no card of the
//!   colour active before it, and under `bluff_challenge` a challenge that
//!   finds the player innocent says the same. A reshuffle notes on every hand that
//!   it held none of the cards returned to the draw pile. Cards drawn afterwards are not
//!   constrained: a note keeps the seat's draw counter at that moment, and at
//!   least `hand size - cards drawn since` cards of the hand are ones it held
//!   then (each draw adds one card). A note moves with its hand in swaps and
//!   rotations (rebased on the new seat's draw counter).
//! - **Last turns** (public, only for a table that asks: `Tracking::Plays`):
//!   each seat's last turn decisions (those among the table's last
//!   [`TURN_LOG`] turns, at most [`MAX_TURNS`] of a seat), the card it played (and
//!   the colour it named) or that it drew, with the top card and colour it
//!   answered, for an opponent model that weighs determinizations by how
//!   likely it makes what the player did. A swap, a rotation, a jump-in or an
//!   answer to a pending draw forgets the seat's turns so far (its hand
//!   changed in other ways).

use super::{Game, Observation, MAX_PLAYERS};
use crate::engine::cards::{CardId, CardSet, Color};

/// Most turn decisions a game keeps per seat (`Tracking::Plays`).
pub const MAX_TURNS: usize = 8;

/// Turn decisions a game keeps in all (`Tracking::Plays`): a ring of the
/// table's last turns, 8 bytes each, so that a game (copied on every
/// simulation of a search) grows by 256 bytes only.
pub const TURN_LOG: usize = 32;

/// No card, no colour, no seat in a [`Logged`] turn.
const NIL: u8 = u8::MAX;

/// A turn in the ring: [`LastTurn`] packed, the draw counter's low 16 bits.
#[derive(Clone, Copy, Debug)]
struct Logged {
    seat: u8,
    card: u8,
    named: u8,
    top: u8,
    color: u8,
    size: u8,
    at: u16,
}

impl Logged {
    const NONE: Logged = Logged {
        seat: NIL,
        card: NIL,
        named: NIL,
        top: 0,
        color: 0,
        size: 0,
        at: 0,
    };

    /// The turn, its draw counter completed from the seat's counter now
    /// (`drawn`; exact while fewer than 65,536 cards were drawn since).
    fn unpack(&self, drawn: u32) -> LastTurn {
        let since = (drawn as u16).wrapping_sub(self.at) as u32;
        LastTurn {
            card: (self.card != NIL).then_some(self.card),
            named: (self.named != NIL).then(|| Color::ALL[self.named as usize & 3]),
            top: self.top,
            color: Color::ALL[self.color as usize & 3],
            size: self.size,
            at: drawn.wrapping_sub(since),
        }
    }
}

/// What [`Observation::last_turns`] gives: a seat's last turns, oldest
/// first (a slice through `Deref`).
#[derive(Clone, Copy, Debug)]
pub struct Turns {
    list: [LastTurn; MAX_TURNS],
    len: usize,
}

impl Turns {
    /// No turn.
    pub const EMPTY: Turns = Turns {
        list: [LastTurn::NONE; MAX_TURNS],
        len: 0,
    };
}

impl std::ops::Deref for Turns {
    type Target = [LastTurn];
    fn deref(&self) -> &[LastTurn] {
        &self.list[..self.len]
    }
}

/// Most notes a game keeps at once (all seats together); when full, a note
/// that no longer constrains anything is dropped, else the oldest.
pub const MAX_NOTES: usize = 12;

/// "The hand at `seat` held no card of `excl`" when the seat's draw counter
/// was `at`; `soft`: it may have (it drew where it was allowed to draw with
/// a playable card).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Note {
    excl: CardSet,
    at: u32,
    seat: u8,
    soft: bool,
}

/// A seat's last turn decision, as the whole table saw it
/// ([`Observation::last_turn`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LastTurn {
    /// The card played from the hand (`None`: the player drew).
    pub card: Option<CardId>,
    /// The colour named for it (a wild).
    pub named: Option<Color>,
    /// The top card and the active colour the decision answered.
    pub top: CardId,
    pub color: Color,
    /// The hand's size and the seat's draw counter at the decision.
    pub size: u8,
    pub at: u32,
}

impl LastTurn {
    const NONE: LastTurn = LastTurn {
        card: None,
        named: None,
        top: 0,
        color: Color::Red,
        size: 0,
        at: 0,
    };

    fn pack(&self, seat: u8) -> Logged {
        Logged {
            seat,
            card: self.card.unwrap_or(NIL),
            named: self.named.map_or(NIL, |c| c.index() as u8),
            top: self.top,
            color: self.color.index() as u8,
            size: self.size,
            at: self.at as u16,
        }
    }
}

/// The knowledge a game keeps (a field of [`Game`]).
#[derive(Clone, Copy, Debug)]
pub(super) struct Ledger {
    /// For each card, the seats (bits) that know which hand holds it.
    known_by: [u16; 128],
    /// Whether any bit of `known_by` is set (the deal clears it only then).
    pub(super) dirty: bool,
    notes: [Note; MAX_NOTES],
    len: u8,
    /// The table's last turns (`Tracking::Plays`), a ring: `log[next - 1]`
    /// the newest; a forgotten turn has no seat.
    log: [Logged; TURN_LOG],
    next: u8,
    /// Whether the log holds any turn.
    logged: bool,
    /// The cards of this round's last reshuffle (empty before any): the
    /// draw pile has held only cards of this set since (public: every
    /// player saw them on the discard pile).
    reshuffled: CardSet,
}

impl Ledger {
    /// The cards whose hand `seat` knows (the bits of `known_by`), as a set:
    /// one pass over the ledger, without a branch (it vectorizes).
    fn known_to(&self, seat: u8) -> CardSet {
        let bit = 1u16 << seat;
        let half = |part: &[u16]| {
            (part.iter().enumerate()).fold(0u64, |m, (i, &b)| m | ((b & bit != 0) as u64) << i)
        };
        CardSet(half(&self.known_by[..64]) as u128 | (half(&self.known_by[64..]) as u128) << 64)
    }

    pub(super) const EMPTY: Ledger = Ledger {
        known_by: [0; 128],
        dirty: false,
        notes: [Note {
            excl: CardSet::EMPTY,
            at: 0,
            seat: 0,
            soft: false,
        }; MAX_NOTES],
        len: 0,
        log: [Logged::NONE; TURN_LOG],
        next: 0,
        logged: false,
        reshuffled: CardSet::EMPTY,
    };

    /// Each seat other than `holder` that did not know where `c` was loses
    /// the first copy of `twins` it knew ([`Game::played_face_up`]).
    pub(super) fn forget_a_twin(&mut self, holder: u8, c: CardId, twins: CardSet) {
        let mut pending = !self.known_by[c as usize & 127] & !(1u16 << holder);
        for t in twins.iter() {
            let drop = self.known_by[t as usize & 127] & pending;
            self.known_by[t as usize & 127] &= !drop;
            pending &= !drop;
        }
    }

    /// Forgets everything (a new deal).
    #[inline]
    pub(super) fn clear(&mut self) {
        if self.dirty {
            self.known_by = [0; 128];
            self.dirty = false;
        }
        self.len = 0;
        if self.logged {
            self.forget_turns(|_| true);
        }
        self.reshuffled = CardSet::EMPTY;
    }

    /// Makes this ledger mean what `src` means, copying only what `src`
    /// uses (its notes, and its known cards when it has any).
    #[inline]
    pub(super) fn copy_from(&mut self, src: &Ledger) {
        if src.dirty {
            self.known_by = src.known_by;
        } else if self.dirty {
            self.known_by = [0; 128];
        }
        self.dirty = src.dirty;
        let len = src.len as usize;
        self.notes[..len].copy_from_slice(&src.notes[..len]);
        self.len = src.len;
        self.reshuffled = src.reshuffled;
        if src.logged || self.logged {
            self.log = src.log;
            self.next = src.next;
            self.logged = src.logged;
        }
    }

    /// Forgets the known cards, keeps the public notes (a determinized copy:
    /// its hands are not the real ones).
    #[inline]
    pub(super) fn forget_private(&mut self) {
        if self.dirty {
            self.known_by = [0; 128];
            self.dirty = false;
        }
    }

    /// Forgets the turns of the seats `which` says.
    fn forget_turns(&mut self, which: impl Fn(u8) -> bool) {
        for t in &mut self.log {
            if t.seat != NIL && which(t.seat) {
                t.seat = NIL;
            }
        }
        self.logged = self.log.iter().any(|t| t.seat != NIL);
    }

    fn tell(&mut self, seat: u8, cards: CardSet) {
        for c in cards.iter() {
            self.known_by[c as usize & 127] |= 1 << seat;
        }
        self.dirty |= !cards.is_empty();
    }
}

/// The notes on one hand as taken, oldest first: "at least `min` of its
/// cards lie outside `excl`", hard (a fact) or soft (evidence: true if the
/// player drew only without a playable card).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Notes {
    pub(super) excl: [CardSet; MAX_NOTES],
    pub(super) min: [u8; MAX_NOTES],
    /// The soft notes (bits).
    pub(super) soft: u16,
    pub(super) len: u8,
}

impl Notes {
    /// `(excluded, at least, soft)`, oldest first.
    pub fn iter(&self) -> impl Iterator<Item = (CardSet, u32, bool)> + '_ {
        (0..self.len as usize).map(|i| (self.excl[i], self.min[i] as u32, self.soft >> i & 1 != 0))
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    pub fn len(&self) -> usize {
        self.len as usize
    }
}

/// The public constraints on one hand, oldest first: at least `min[i]` of
/// its cards lie outside `excl[i]`. Nested: each `excl[i]` holds every later
/// one (a card held since an older note was held at every later one too),
/// and `min` grows with `i`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Constraints {
    excl: [CardSet; MAX_NOTES],
    min: [u8; MAX_NOTES],
    len: u8,
}

impl Constraints {
    /// The constraints as `(excluded, at least)` pairs, oldest first.
    pub fn iter(&self) -> impl Iterator<Item = (CardSet, u32)> + '_ {
        (0..self.len as usize).map(|i| (self.excl[i], self.min[i] as u32))
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    pub fn len(&self) -> usize {
        self.len as usize
    }
    pub(super) fn push_raw(&mut self, excl: CardSet, min: u32) {
        let i = self.len as usize;
        self.excl[i] = excl;
        self.min[i] = min.min(255) as u8;
        self.len += 1;
    }
}

impl<'r> Game<'r> {
    /// A new deal: nobody knows anything, nobody has drawn.
    #[inline]
    pub(super) fn reset_knowledge(&mut self) {
        self.ledger.clear();
        self.drawn = [0; 16];
    }

    /// The hands of `p` and `t` are exchanged (a Wild Swap or a seven-o 7):
    /// each side knows where its old hand went; notes follow the hands.
    #[cold]
    #[inline(never)]
    pub(super) fn swap_hands(&mut self, p: u8, t: u8) {
        let (pu, tu) = (p as usize, t as usize);
        self.hands.swap(pu, tu);
        if self.ledger.logged {
            self.ledger.forget_turns(|s| s == p || s == t);
        }
        self.ledger.tell(p, self.hands[tu]);
        self.ledger.tell(t, self.hands[pu]);
        let (dp, dt) = (self.drawn[pu], self.drawn[tu]);
        for n in &mut self.ledger.notes[..self.ledger.len as usize] {
            if n.seat == p {
                n.seat = t;
                n.at = dt.wrapping_sub(dp.wrapping_sub(n.at));
            } else if n.seat == t {
                n.seat = p;
                n.at = dp.wrapping_sub(dt.wrapping_sub(n.at));
            }
        }
    }

    /// Every hand has just passed to the next player (a seven-o 0): each
    /// player knows the next one holds its old hand; notes follow the hands.
    #[cold]
    pub(super) fn rotated_knowledge(&mut self) {
        let n = self.n;
        if self.ledger.logged {
            self.ledger.forget_turns(|_| true);
        }
        let mut moved = [0u8; MAX_PLAYERS];
        for i in 0..n {
            let to = self.step(i, 1);
            moved[i as usize] = to;
            self.ledger.tell(i, self.hands[to as usize]);
        }
        let drawn = self.drawn;
        for note in &mut self.ledger.notes[..self.ledger.len as usize] {
            let from = note.seat as usize;
            let to = moved[from] as usize;
            note.seat = to as u8;
            note.at = drawn[to].wrapping_sub(drawn[from].wrapping_sub(note.at));
        }
    }

    /// `seat` sees the hand of `holder` (a challenge).
    #[cold]
    pub(super) fn reveal_hand(&mut self, seat: u8, holder: u8) {
        self.ledger.tell(seat, self.hands[holder as usize & 15]);
    }

    /// Cards go back to the draw pile (a reshuffle): nobody knows where they
    /// are any more, and everybody knows they are there. The pile holds only
    /// them from now on, and (for a table that takes notes) each hand holds
    /// none of them: a public hard note on every seat, at its draw counter.
    #[cold]
    #[inline(never)]
    pub(super) fn reshuffled(&mut self, cards: CardSet) {
        if self.ledger.dirty {
            for c in cards.iter() {
                self.ledger.known_by[c as usize & 127] = 0;
            }
        }
        self.ledger.reshuffled = cards;
        if self.tracking != super::Tracking::Off {
            for seat in 0..self.n {
                self.note(seat, cards, self.drawn[seat as usize & 15], false);
            }
        }
    }

    /// Notes that the hand at `seat` holds no card of `excl` (`soft`: may
    /// hold none), with the seat's draw counter at `at`.
    #[cold]
    #[inline(never)]
    pub(super) fn note(&mut self, seat: u8, excl: CardSet, at: u32, soft: bool) {
        let l = &mut self.ledger;
        if l.len as usize == MAX_NOTES {
            // Drop a note that no longer says anything (its hand has drawn
            // as many cards as it holds), else the oldest.
            let hands = &self.hands;
            let drawn = &self.drawn;
            let i = l
                .notes
                .iter()
                .position(|n| {
                    let s = n.seat as usize;
                    hands[s].len() <= drawn[s].wrapping_sub(n.at)
                })
                .unwrap_or(0);
            l.notes.copy_within(i + 1.., i);
            l.len -= 1;
        }
        l.notes[l.len as usize] = Note {
            excl,
            at,
            seat,
            soft,
        };
        l.len += 1;
    }

    /// `p` decided its turn (`Tracking::Plays`): `choice` among `playable`
    /// (an illegal choice forgets its last turn).
    #[cold]
    #[inline(never)]
    pub(super) fn note_turn(
        &mut self,
        p: u8,
        hand: CardSet,
        choice: Option<CardId>,
        playable: CardSet,
    ) {
        if choice.is_some_and(|c| !playable.contains(c)) {
            self.turn_unknown(p);
            return;
        }
        let turn = LastTurn {
            card: choice,
            named: None,
            top: self.top,
            color: self.color,
            size: hand.len().min(255) as u8,
            at: self.drawn[p as usize & 15],
        };
        let l = &mut self.ledger;
        l.log[l.next as usize % TURN_LOG] = turn.pack(p);
        l.next = ((l.next as usize + 1) % TURN_LOG) as u8;
        l.logged = true;
    }

    /// `p` named `color` for the wild `c` it played (`Tracking::Plays`).
    #[cold]
    #[inline(never)]
    pub(super) fn note_named(&mut self, p: u8, c: CardId, color: Color) {
        let l = &mut self.ledger;
        let newest = &mut l.log[(l.next as usize + TURN_LOG - 1) % TURN_LOG];
        if newest.seat == p && newest.card == c {
            newest.named = color.index() as u8;
        }
    }

    /// `p` played out of its turn (a jump-in) or answered a pending draw:
    /// its last turn no longer tells its hand.
    #[inline]
    pub(super) fn turn_unknown(&mut self, p: u8) {
        if self.ledger.logged {
            self.ledger.forget_turns(|s| s == p);
        }
    }

    /// `p` plays the card it has just drawn: that card is gone again, so
    /// its notes count one card drawn fewer since they were taken (nothing
    /// to do at a table without notes, such as one that takes none).
    #[inline]
    pub(super) fn drawn_card_played(&mut self, p: u8) {
        if self.ledger.len != 0 {
            self.unnote_drawn(p);
        }
    }

    #[cold]
    #[inline(never)]
    fn unnote_drawn(&mut self, p: u8) {
        let l = &mut self.ledger;
        for n in &mut l.notes[..l.len as usize] {
            if n.seat == p {
                n.at = n.at.wrapping_add(1);
            }
        }
    }

    /// A player about to draw for its turn under `force_play` or
    /// `may_draw_when_playable = false` holds no card of `accept`.
    #[cold]
    #[inline(never)]
    pub(super) fn note_forced_draw(&mut self, p: u8) {
        let accept = self.accept;
        self.note(p, accept, self.drawn[p as usize & 15], false);
    }

    /// A player about to draw for its turn where it could also have played
    /// a card may hold no card of `accept` (a soft note, taken only for a
    /// table that asked: `Strategy::wants_draw_notes`).
    #[cold]
    #[inline(never)]
    pub(super) fn note_soft_draw(&mut self, p: u8) {
        let accept = self.accept;
        self.note(p, accept, self.drawn[p as usize & 15], true);
    }

    /// `p` played a Wild Draw Four on `prev` (the colour active before it),
    /// in a game that takes notes. Under the colour restriction it held no
    /// card of `prev` (a public note); under `bluff_challenge` a challenge
    /// may tell.
    #[cold]
    #[inline(never)]
    pub(super) fn wd4_noted(&mut self, p: u8, prev: Color) {
        let mask = self.rules.deck.color_mask[prev.index()];
        self.wd4_color = prev;
        self.wd4_at = self.drawn[p as usize & 15];
        if !self.s.bluff_challenge {
            self.note(p, mask, self.wd4_at, false);
        }
    }

    /// A challenge of the Wild Draw Four of `target` by `challenger`: the
    /// challenger saw the hand; an innocent verdict tells everyone the hand
    /// held no card of the colour active before the card.
    #[cold]
    pub(super) fn challenged(&mut self, challenger: u8, target: u8, guilty: bool) {
        self.reveal_hand(challenger, target);
        if !guilty && self.tracking != super::Tracking::Off {
            let mask = self.rules.deck.color_mask[self.wd4_color.index()];
            self.note(target, mask, self.wd4_at, false);
        }
    }
}

impl<'a> Observation<'a> {
    /// The cards the observer knows to be in `holder`'s hand: its own whole
    /// hand; in another hand, the cards it gave there or saw there (a swap, a
    /// seven-o rotation, a challenge) that are still there. Only what the
    /// observer was shown or saw happen: never a card it was not.
    pub fn known_in(&self, holder: usize) -> CardSet {
        let h = self.g.hands[holder];
        if holder == self.seat as usize {
            return h;
        }
        let l = &self.g.ledger;
        if !l.dirty {
            return CardSet::EMPTY;
        }
        h & l.known_to(self.seat)
    }

    /// [`Observation::known_in`] of every seat at once, by seat (the ledger
    /// read once): the observer's own whole hand, the other seats' known
    /// cards, nothing past the table.
    pub fn known_in_each(&self) -> [CardSet; MAX_PLAYERS] {
        let mut out = [CardSet::EMPTY; MAX_PLAYERS];
        if self.g.ledger.dirty {
            let k = self.g.ledger.known_to(self.seat);
            for (o, &h) in out.iter_mut().zip(&self.g.hands[..self.players()]) {
                *o = h & k;
            }
        }
        out[self.seat as usize] = self.hand();
        out
    }

    /// [`Observation::known_in_each`] with the observer's own entry empty:
    /// what it was shown of every other hand (the protocol's `known`).
    pub fn known_of_others(&self) -> [CardSet; MAX_PLAYERS] {
        let mut known = self.known_in_each();
        known[self.seat as usize] = CardSet::EMPTY;
        known
    }

    /// The cards the draw pile may hold, as every player knows: after a
    /// reshuffle this round only the cards it returned to the pile (the
    /// discard pile under the top card; those seen since are gone from it),
    /// before any every card of the deck. A reshuffle's cards were in no
    /// hand then, so every unseen card outside this set is in a hand.
    pub fn pile_may_hold(&self) -> CardSet {
        let r = self.g.ledger.reshuffled;
        if r.is_empty() {
            self.g.rules.deck.all
        } else {
            r
        }
    }

    /// The public notes on `holder`'s hand (every seat sees the same), as
    /// taken, oldest first: hard from draws while a play was required, Wild
    /// Draw Fours under the colour restriction, innocent verdicts of
    /// challenges and reshuffles; soft from draws where a play was allowed (only for a
    /// table that asked for them: `Strategy::wants_draw_notes`). Notes that
    /// no longer say anything are left out.
    pub fn notes(&self, holder: usize) -> Notes {
        let g = self.g;
        let l = &g.ledger;
        let mut out = Notes::default();
        let size = g.hands[holder].len();
        let drawn = g.drawn[holder];
        for n in &l.notes[..l.len as usize] {
            let since = drawn.wrapping_sub(n.at);
            if n.seat as usize != holder || since >= size {
                continue;
            }
            let i = out.len as usize;
            out.excl[i] = n.excl;
            out.min[i] = (size - since).min(255) as u8;
            out.soft |= (n.soft as u16) << i;
            out.len += 1;
        }
        out
    }

    /// The public constraints on `holder`'s hand: its hard notes (see
    /// [`Observation::notes`]), nested: a card held since an older note was
    /// held at every later one, so each exclusion holds every later one's.
    pub fn constraints(&self, holder: usize) -> Constraints {
        let notes = self.notes(holder);
        let mut out = Constraints::default();
        let hard = |i: usize| notes.soft >> i & 1 == 0;
        for i in 0..notes.len() {
            if !hard(i) {
                continue;
            }
            let mut excl = notes.excl[i];
            for j in i + 1..notes.len() {
                if hard(j) {
                    excl |= notes.excl[j];
                }
            }
            out.push_raw(excl, notes.min[i] as u32);
        }
        out
    }

    /// The last turn decision of `holder` (only at a table that asked for
    /// them: `Tracking::Plays`), while its hand changed only by that play
    /// and by draws since (`None` after a swap, a rotation, a jump-in or an
    /// answer to a pending draw).
    pub fn last_turn(&self, holder: usize) -> Option<LastTurn> {
        self.last_turns(holder).last().copied()
    }

    /// The last turn decisions of `holder`, oldest first (at most
    /// [`MAX_TURNS`]), as [`Observation::last_turn`]: those since its hand
    /// last changed in another way than by its plays and draws.
    pub fn last_turns(&self, holder: usize) -> Turns {
        let l = &self.g.ledger;
        let mut out = Turns::EMPTY;
        if !l.logged {
            return out;
        }
        let drawn = self.g.drawn[holder];
        // Newest first into the end of the list, then moved to its start.
        let mut k = MAX_TURNS;
        for i in 1..=TURN_LOG {
            let t = &l.log[(l.next as usize + TURN_LOG - i) % TURN_LOG];
            if t.seat as usize == holder {
                k -= 1;
                out.list[k] = t.unpack(drawn);
                if k == 0 {
                    break;
                }
            }
        }
        out.len = MAX_TURNS - k;
        out.list.copy_within(k.., 0);
        out
    }

    /// Cards drawn by `holder` this round (every draw of one card counts:
    /// for its turn, penalties, draw cards).
    pub fn cards_drawn_by(&self, holder: usize) -> u32 {
        self.g.drawn[holder]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::game::testing::{any_of, round_states_of};
    use crate::engine::rng::Rng;
    use crate::engine::rules::Rules;
    use crate::engine::strategy::{Strategy, Tracking};
    use rand::Rng as _;

    /// Random plays, a drawn card played half the time, and a seven-o
    /// target that is the player's own seat (illegal) a fifth of the time.
    struct Careless;
    impl Strategy for Careless {
        fn name(&self) -> &str {
            "careless"
        }
        fn choose_play(
            &mut self,
            _: &Observation,
            playable: CardSet,
            rng: &mut Rng,
        ) -> Option<CardId> {
            any_of(playable, rng)
        }
        fn play_drawn(&mut self, _: &Observation, _: CardId, rng: &mut Rng) -> bool {
            rng.random()
        }
        fn choose_target(&mut self, obs: &Observation, rng: &mut Rng) -> u8 {
            if rng.random::<f64>() < 0.2 {
                obs.seat
            } else {
                obs.seat_after(rng.random_range(1..obs.players() as u8))
            }
        }
        fn notes(&self) -> Tracking {
            Tracking::Facts
        }
    }

    /// Under `seven_o` and `draw_to_match` (many reshuffles, many drawn
    /// cards played at once), at 2 to 4 players, by the rule book and by
    /// RLCard's reading (a drawn card of the active colour or a drawn wild
    /// played at once, unasked): every hand keeps its hard notes at every
    /// state, also when a drawn 7 is played with an illegal target (the
    /// card stays in the hand, so its draw still counts). And what seat 0
    /// knows of every hand at once is what it knows of each.
    #[test]
    fn a_drawn_card_kept_by_an_illegal_target_still_counts_as_drawn() {
        for base in ["classic", "rlcard"] {
            let mut rules = Rules::builtin(base);
            rules.settings.seven_o = true;
            rules.settings.draw_to_match = true;
            let mut states = 0;
            for players in 2..=4 {
                for seed in 0..200u64 {
                    for g in round_states_of(&rules, players, seed, || Box::new(Careless)) {
                        let obs = Observation::of(&g, 0);
                        let each = obs.known_in_each();
                        for h in 0..players {
                            assert_eq!(each[h], obs.known_in(h));
                            let hand = g.hands[h];
                            let kept = obs
                                .constraints(h)
                                .iter()
                                .all(|(excl, min)| (hand - excl).len() >= min);
                            assert!(kept, "{base}, players {players}, seed {seed}, hand {h}");
                        }
                        states += 1;
                    }
                }
            }
            assert!(states >= 10_000, "{base}: {states}");
        }
    }
}
