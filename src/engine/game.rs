//! The engine: one match of UNO on the compact-bitset core.
//!
//! Hands and the discard pile are [`CardSet`]s, the draw pile a fixed array, legal
//! moves mask operations over the rule set's tables. Nothing here allocates while
//! a round is played (the scripted deck of a test is the only `Vec`, read once).
//!
//! The flow follows docs/rules.md: [`Game::play_match`] plays rounds until the target,
//! the round count or quick play ends the match; [`Game::play_round`] deals, flips
//! the start card and plays turns until a player goes out, the round is blocked or
//! it is truncated. Every decision is asked of a [`Strategy`] through an
//! [`Observation`], which exposes only what a player at the table could see.

use crate::agents::{Seat, Strategy};
use crate::engine::cards::{CardId, CardSet, Color};
use crate::engine::rules::{CustomEffect, Dealer, Effect, Rules, Scoring, Settings, Stacking};
use rand::{Rng as _, RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

mod resume;
pub use resume::{Playout, ResumeAt};

/// The random generator used everywhere in unolab.
pub type Rng = Xoshiro256PlusPlus;

/// Most players at a table.
pub const MAX_PLAYERS: usize = 10;

/// The most start-card flips of a round before the flipped card stays (see
/// `setup_round`); a safety bound that random play never reaches.
const MAX_START_FLIPS: u32 = 10_000;

/// Why cards were drawn (the `reason` of a trace `draw` line).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DrawReason {
    Turn,
    Draw2,
    Draw4,
    Stack,
    Downpour,
    Ohana,
    UnoPenalty,
    Challenge,
    WrongCard,
    Match,
}

impl DrawReason {
    pub fn name(self) -> &'static str {
        match self {
            DrawReason::Turn => "turn",
            DrawReason::Draw2 => "draw2",
            DrawReason::Draw4 => "draw4",
            DrawReason::Stack => "stack",
            DrawReason::Downpour => "downpour",
            DrawReason::Ohana => "ohana",
            DrawReason::UnoPenalty => "uno_penalty",
            DrawReason::Challenge => "challenge",
            DrawReason::WrongCard => "wrong_card",
            DrawReason::Match => "match",
        }
    }
}

/// An illegal action a strategy returned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IllegalAction {
    /// Played a card that is not playable (or not in the hand).
    Play(CardId),
    /// Drew while a rule required a play.
    Draw,
    /// Answered a stack with a card that cannot answer it.
    Answer(CardId),
    /// Chose a seat that is not an opponent as the target of a swap.
    Target(u8),
}

/// How a round ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    Won,
    Blocked,
    Truncated,
}

impl Outcome {
    pub fn name(self) -> &'static str {
        match self {
            Outcome::Won => "won",
            Outcome::Blocked => "blocked",
            Outcome::Truncated => "truncated",
        }
    }
}

/// Something that happened, in order. Recorders (traces, tests) receive these
/// with the state as it is right after the event.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Event<'a> {
    /// A round was dealt (read hands and draw pile from the state).
    Deal {
        round: u32,
        dealer: u8,
    },
    /// A start card was turned; when `returned` it went back into the pile.
    Flip {
        card: CardId,
        returned: bool,
    },
    /// A colour was named for a start wild.
    Color {
        player: u8,
        color: Color,
    },
    Play {
        player: u8,
        card: CardId,
        color: Color,
        uno: bool,
        jump_in: bool,
        target: Option<u8>,
    },
    /// One card drawn; consecutive cards of one draw end with [`Event::DrawEnd`].
    Draw {
        player: u8,
        card: CardId,
        reason: DrawReason,
    },
    /// The end of one draw action (possibly of zero cards).
    DrawEnd {
        player: u8,
        reason: DrawReason,
    },
    Pass {
        player: u8,
    },
    Skip {
        player: u8,
    },
    UnoCaught {
        player: u8,
    },
    Challenge {
        challenger: u8,
        target: u8,
        guilty: bool,
    },
    Swap {
        a: u8,
        b: u8,
    },
    Rotate {
        direction: i8,
    },
    /// The discard pile (less its top) became the draw pile (read it from the state).
    Reshuffle,
    Illegal {
        player: u8,
        action: IllegalAction,
    },
    RoundEnd {
        result: &'a RoundResult,
        totals: &'a [i64],
    },
}

/// Receives every event of a game. The no-op implementation compiles away.
pub trait Recorder {
    fn on(&mut self, game: &Game, event: Event<'_>);
}

/// Records nothing.
pub struct NoRecord;

impl Recorder for NoRecord {
    #[inline(always)]
    fn on(&mut self, _: &Game, _: Event<'_>) {}
}

/// What one round produced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RoundResult {
    pub round: u32,
    pub outcome: Outcome,
    pub winner: Option<u8>,
    pub dealer: u8,
    /// The seat that took the first turn.
    pub first_player: u8,
    /// The direction of play at the first turn (+1 clockwise, -1 after a start
    /// Reverse), so that positions can be counted in order of play.
    pub first_direction: i8,
    /// Points scored by each seat this round (winner scoring: only the winner;
    /// penalty scoring: each seat's own hand).
    pub points: [u32; MAX_PLAYERS],
    pub turns: u32,
    pub cards_drawn: u32,
    pub uno_penalties: u32,
    /// Illegal actions per seat.
    pub illegal: [u32; MAX_PLAYERS],
}

/// What one match produced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MatchResult {
    /// Winning seat; `None` when tied, or in quick play when the round ended
    /// blocked or truncated (no one went out).
    pub winner: Option<u8>,
    /// Two or more seats share the best total (no winner). Quick play is never
    /// tied: without a winner its round ended blocked or truncated.
    pub tied: bool,
    pub totals: [i64; MAX_PLAYERS],
    pub rounds: u32,
}

/// A strategy broke a rule under `strict = true`, or failed ([`Strategy::fault`]:
/// an external program that died, went silent or broke the protocol).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", self.message())]
pub struct IllegalActionError {
    pub strategy: String,
    pub seat: u8,
    pub round: u32,
    /// The illegal action, or for a fault what went wrong.
    pub action: String,
    /// True for a fault of the strategy rather than an illegal action.
    pub fault: bool,
}

impl IllegalActionError {
    fn message(&self) -> String {
        let IllegalActionError {
            strategy,
            seat,
            round,
            action,
            fault,
        } = self;
        if *fault {
            format!("strategy '{strategy}' at seat {seat} failed in round {round}: {action}")
        } else {
            format!("strategy '{strategy}' at seat {seat} made an illegal action ({action}) in round {round}")
        }
    }
}

/// The strategies at the table, one per seat, and the generator they draw from.
pub struct Agents<'a> {
    pub seats: &'a mut [Seat],
    pub rng: Rng,
}

/// Every card id in order: a fresh, unshuffled pile.
const IDENTITY: [CardId; 128] = {
    let mut t = [0; 128];
    let mut i = 0;
    while i < 128 {
        t[i] = i as CardId;
        i += 1;
    }
    t
};

/// The draw pile: a fixed array, top last.
#[derive(Clone, Copy)]
struct Pile {
    cards: [CardId; 128],
    len: u8,
}

impl Pile {
    const EMPTY: Pile = Pile {
        cards: [0; 128],
        len: 0,
    };
}

/// Where the turn goes after an action.
enum Flow {
    /// The given seat takes the next turn.
    Next(u8),
    /// The round is over (someone went out).
    Out(u8),
}

/// The whole state of a match in progress.
#[derive(Clone)]
pub struct Game<'r> {
    rules: &'r Rules,
    s: &'r Settings,
    n: u8,
    /// 16 slots so that a seat masked with 15 needs no bounds check.
    hands: [CardSet; 16],
    pile: Pile,
    discard: CardSet,
    top: CardId,
    color: Color,
    /// Cache of the playability masks for the current top card and colour:
    /// cards of the active colour or the top's face, and every wild...
    accept: CardSet,
    /// ...the coloured cards of the active colour...
    of_color: CardSet,
    /// ...and the cards the colour restriction forbids (Wild Draw Four, or
    /// nothing under `bluff_challenge`).
    restricted: CardSet,
    /// The cards the matching restriction forbids: every wild but Wild Draw
    /// Four under `wild_when_matching = false`, else none.
    plain_restricted: CardSet,
    dir: i8,
    /// The next seat of each seat in the current direction.
    next_seat: [u8; 16],
    /// `next_seat` for clockwise and counter-clockwise play.
    next_tables: [[u8; 16]; 2],
    /// `force_play` or not `may_draw_when_playable`: a playable card must be played.
    must_play: bool,
    /// Pending draw total against the player to move (stacking / challenge).
    pending: u32,
    /// Draw cards in the pending total.
    pending_cards: u32,
    /// The last Wild Draw Four: who played it and whether it was a bluff.
    wd4_player: u8,
    wd4_guilty: bool,
    turns: u32,
    /// Jump-ins this round (not turns; bounded by `jump_in_limit`).
    jump_ins: u32,
    idle: u32,
    round: u32,
    dealer: u8,
    totals: [i64; MAX_PLAYERS],
    rng: Rng,
    // round counters
    cards_drawn: u32,
    uno_penalties: u32,
    illegal: [u32; MAX_PLAYERS],
    error: Option<(u8, IllegalAction)>,
    scripted: Option<Vec<CardId>>,
    /// A strict-mode error or a blocked table: the round loop must look.
    halt: bool,
    /// Seats (bits) whose strategy is not asked when nothing is playable.
    skip_ask: u16,
    /// Unordered draw pile: each draw takes a uniformly random card of the pile
    /// instead of shuffling the whole deck first (see [`Game::set_lazy_pile`]).
    lazy: bool,
}

impl<'r> Game<'r> {
    /// A new match for `players` seats; `seed` drives the shuffles, the dealer and
    /// the UNO catch chance. Call [`Rules::check_players`] first.
    pub fn new(rules: &'r Rules, players: usize, seed: u64) -> Game<'r> {
        Game::with_rng(rules, players, Rng::seed_from_u64(seed))
    }

    /// As [`Game::new`] with a ready generator.
    pub fn with_rng(rules: &'r Rules, players: usize, rng: Rng) -> Game<'r> {
        assert!((2..=MAX_PLAYERS).contains(&players));
        let mut g = Game {
            rules,
            s: &rules.settings,
            n: players as u8,
            hands: [CardSet::EMPTY; 16],
            pile: Pile::EMPTY,
            discard: CardSet::EMPTY,
            top: 0,
            color: Color::Red,
            accept: CardSet::EMPTY,
            of_color: CardSet::EMPTY,
            restricted: if rules.settings.bluff_challenge {
                CardSet::EMPTY
            } else {
                rules.deck.wd4
            },
            plain_restricted: if rules.settings.wild_when_matching {
                CardSet::EMPTY
            } else {
                rules.deck.wild - rules.deck.wd4
            },
            dir: 1,
            next_seat: [0; 16],
            next_tables: Game::next_tables(players as u8),
            must_play: rules.settings.force_play || !rules.settings.may_draw_when_playable,
            pending: 0,
            pending_cards: 0,
            wd4_player: 0,
            wd4_guilty: false,
            turns: 0,
            jump_ins: 0,
            idle: 0,
            round: 0,
            dealer: 0,
            totals: [0; MAX_PLAYERS],
            rng,
            cards_drawn: 0,
            uno_penalties: 0,
            illegal: [0; MAX_PLAYERS],
            error: None,
            scripted: None,
            skip_ask: 0,
            halt: false,
            lazy: false,
        };
        g.set_direction(1);
        g
    }

    /// Replaces the table's generator (to play another game in the same state
    /// buffer; every round and match resets everything else it uses).
    pub fn set_rng(&mut self, rng: Rng) {
        self.rng = rng;
    }

    /// Draw from an unordered pile: every card drawn is a uniformly random card
    /// of the pile, which is the same distribution as drawing the top of a
    /// uniformly shuffled pile, without paying for a full shuffle each round and
    /// each reshuffle. The pile order then means nothing, so traces and scripted
    /// decks use the ordered pile (the default). The runner uses this.
    pub fn set_lazy_pile(&mut self, lazy: bool) {
        self.lazy = lazy;
    }

    /// Takes the next card off the draw pile (which must not be empty).
    #[inline(always)]
    fn take(&mut self) -> CardId {
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

    pub fn rules(&self) -> &'r Rules {
        self.rules
    }
    pub fn players(&self) -> usize {
        self.n as usize
    }
    pub fn hand(&self, seat: usize) -> CardSet {
        self.hands[seat]
    }
    pub fn hands(&self) -> &[CardSet] {
        &self.hands[..self.n as usize]
    }
    /// The draw pile, top first.
    pub fn draw_pile(&self) -> impl Iterator<Item = CardId> + '_ {
        self.pile.cards[..self.pile.len as usize]
            .iter()
            .rev()
            .copied()
    }
    pub fn draw_pile_len(&self) -> usize {
        self.pile.len as usize
    }
    /// The discard pile (top card included).
    pub fn discard(&self) -> CardSet {
        self.discard
    }
    pub fn top(&self) -> CardId {
        self.top
    }
    pub fn color(&self) -> Color {
        self.color
    }
    pub fn direction(&self) -> i8 {
        self.dir
    }
    pub fn totals(&self) -> &[i64] {
        &self.totals[..self.n as usize]
    }
    pub fn round(&self) -> u32 {
        self.round
    }
    pub fn turns(&self) -> u32 {
        self.turns
    }
    pub fn dealer(&self) -> u8 {
        self.dealer
    }
    pub fn pending_draw(&self) -> u32 {
        self.pending
    }

    /// Sets the direction of play and the table of next seats.
    #[inline]
    fn set_direction(&mut self, dir: i8) {
        self.dir = dir;
        self.next_seat = self.next_tables[(dir < 0) as usize];
    }

    /// The next-seat tables of both directions (built once per game).
    fn next_tables(n: u8) -> [[u8; 16]; 2] {
        let mut t = [[0u8; 16]; 2];
        for seat in 0..n {
            t[0][seat as usize] = if seat + 1 == n { 0 } else { seat + 1 };
            t[1][seat as usize] = if seat == 0 { n - 1 } else { seat - 1 };
        }
        t
    }

    /// The seat `k` steps from `seat` in the current direction.
    #[inline(always)]
    fn step(&self, seat: u8, k: u8) -> u8 {
        if k == 1 {
            return self.next_seat[seat as usize & 15];
        }
        // seat < n and k <= n, so one conditional correction suffices (no division).
        let n = self.n;
        let k = if k >= n { k - n } else { k };
        if self.dir > 0 {
            let t = seat + k;
            if t >= n {
                t - n
            } else {
                t
            }
        } else if seat >= k {
            seat - k
        } else {
            seat + n - k
        }
    }

    /// The cards of `hand` that may be played on the current top card and colour
    /// (docs/rules.md section 4.1), as one mask operation.
    #[inline(always)]
    pub fn playable(&self, hand: CardSet) -> CardSet {
        self.playable_in::<true>(hand)
    }

    /// [`Game::playable`]; `M = false` leaves the matching restriction out
    /// (see [`Game::forbidden`]).
    #[inline(always)]
    fn playable_in<const M: bool>(&self, hand: CardSet) -> CardSet {
        (hand & self.accept) - self.forbidden::<M>(hand)
    }

    /// The cards the restrictions forbid to `hand`: Wild Draw Four's colour
    /// restriction (the restricted cards when the hand holds the active
    /// colour) and, with `M`, `wild_when_matching = false` (the other wilds
    /// when the hand holds a coloured card of the active colour or of the top
    /// card's face; wilds never count as matching).
    /// Branch-free: whether the hand holds the colour is close to a coin flip,
    /// so a branch here would often be mispredicted. `M` is a compile-time
    /// switch: the turn logic passes its own (`W` of `normal_turn`), set
    /// only for rule sets with `wild_when_matching = false`, so the others
    /// do not pay for a restriction that is empty there.
    #[inline(always)]
    fn forbidden<const M: bool>(&self, hand: CardSet) -> CardSet {
        let holds_color = !(hand & self.of_color).is_empty();
        let colour = CardSet(self.restricted.0 & (holds_color as u128).wrapping_neg());
        if !M {
            return colour;
        }
        // The top's colour and face among coloured cards: `accept` less the wilds.
        let holds_match = !(hand & (self.accept - self.rules.deck.wild)).is_empty();
        colour | CardSet(self.plain_restricted.0 & (holds_match as u128).wrapping_neg())
    }

    /// A coloured card `c` is the new top: its colour becomes active and the
    /// playability masks come from the deck's per-card tables (one load each).
    #[inline(always)]
    fn set_colored_top(&mut self, c: CardId, color: Color) {
        let d = &self.rules.deck;
        self.color = color;
        self.of_color = d.same_color[c as usize & 127];
        self.accept = d.accept_on[c as usize & 127];
    }

    /// Whether `card`, which is in `hand`, may be played: the masks alone
    /// decide (no need to mask the whole hand).
    #[inline(always)]
    fn can_play<const M: bool>(&self, hand: CardSet, card: CardId) -> bool {
        (self.accept - self.forbidden::<M>(hand)).contains(card)
    }

    /// Sets the colour named for a wild top card and refreshes the
    /// playability masks.
    #[inline(always)]
    fn set_color(&mut self, color: Color) {
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
    fn answers(&self, hand: CardSet) -> CardSet {
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

    fn obs(&self, seat: u8) -> Observation<'_> {
        Observation { g: self, seat }
    }

    // ----- drawing -------------------------------------------------------

    #[cold]
    fn reshuffle<R: Recorder>(&mut self, rec: &mut R) -> bool {
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
        rec.on(self, Event::Reshuffle);
        true
    }

    /// Draws up to `k` cards for `p`; returns how many came.
    fn draw<R: Recorder>(&mut self, p: u8, k: u32, reason: DrawReason, rec: &mut R) -> u32 {
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
    fn draw_card<R: Recorder>(&mut self, p: u8, reason: DrawReason, rec: &mut R) -> Option<CardId> {
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
    fn draw_one(&mut self, p: u8) -> CardId {
        let c = self.take();
        self.hands[p as usize & 15].insert(c);
        self.cards_drawn += 1;
        self.idle = 0;
        c
    }

    // ----- illegal actions -----------------------------------------------

    /// Records an illegal action; in strict mode stops the round.
    #[cold]
    fn illegal<R: Recorder>(&mut self, p: u8, action: IllegalAction, rec: &mut R) -> bool {
        self.illegal[p as usize] += 1;
        rec.on(self, Event::Illegal { player: p, action });
        if self.s.strict {
            self.error = Some((p, action));
            self.halt = true;
            return true;
        }
        self.draw(p, self.s.wrong_card_penalty, DrawReason::WrongCard, rec);
        false
    }

    // ----- a round -------------------------------------------------------

    fn setup_round<R: Recorder>(&mut self, agents: &mut Agents, rec: &mut R) -> u8 {
        let d = &self.rules.deck;
        let n = self.n;
        self.round += 1;
        self.hands = [CardSet::EMPTY; 16];
        self.discard = CardSet::EMPTY;
        self.set_direction(1);
        self.pending = 0;
        self.pending_cards = 0;
        self.turns = 0;
        self.jump_ins = 0;
        self.idle = 0;
        self.cards_drawn = 0;
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
            agents.seats[q as usize].round_start(&self.obs(q));
        }
        // The start card's effect, with P the player left of the dealer.
        let p = (self.dealer + 1) % n;
        let c = self.top;
        let effect = d.effect_of[c as usize];
        match d.color(c) {
            None => {
                let col = agents.seats[p as usize].choose_color(&self.obs(p), &mut agents.rng);
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
                        rec.on(self, Event::Skip { player: p });
                        self.step(p, 1)
                    }
                    _ => p,
                }
            }
        }
    }

    /// Whether any house rule is on, or `wild_when_matching = false` (the
    /// turn logic is compiled with and without their checks).
    #[inline]
    fn uses_house_rules(&self) -> bool {
        let st = self.s;
        st.stacking != Stacking::Off
            || st.draw_to_match
            || self.must_play
            || st.seven_o
            || st.jump_in
            || st.bluff_challenge
            || !st.wild_when_matching
    }

    /// Plays the turns of a round from `cur`'s turn until it ends; returns
    /// how it ended and the last player (the winner of a won round). A
    /// strict-mode error ends it blocked, with `error` set.
    #[inline(always)]
    fn turns_of_round<R: Recorder>(
        &mut self,
        cur: u8,
        agents: &mut Agents,
        rec: &mut R,
    ) -> (Outcome, u8) {
        // The turn logic is compiled three times: without house-rule checks
        // for rule sets that use none (the common, fast case), with them, and
        // with them and the matching restriction (`wild_when_matching = false`),
        // each in a loop of its own (choosing inside one loop measured 3% slower).
        if !self.uses_house_rules() {
            self.turn_loop::<false, false, R>(cur, agents, rec)
        } else if self.s.wild_when_matching {
            self.turn_loop::<true, false, R>(cur, agents, rec)
        } else {
            self.turn_loop::<true, true, R>(cur, agents, rec)
        }
    }

    /// The loop of [`Game::turns_of_round`] for one variant of the turn logic.
    fn turn_loop<const H: bool, const W: bool, R: Recorder>(
        &mut self,
        mut cur: u8,
        agents: &mut Agents,
        rec: &mut R,
    ) -> (Outcome, u8) {
        let max_turns = self.s.max_turns;
        // Bound: every iteration is a turn (`normal_turn` counts it, and the
        // round stops at `max_turns`) or the lost turn of a pending draw, which
        // settles the draw so that the next iteration is a turn: at most
        // 2 x max_turns + 1 iterations. A turn's inner loops are bounded too
        // (draws by the cards there are, jump-ins by `jump_in_limit`).
        loop {
            if self.turns >= max_turns {
                return (Outcome::Truncated, cur);
            }
            match self.turn::<H, W, R>(cur, agents, rec) {
                Flow::Next(next) => cur = next,
                Flow::Out(w) => return (Outcome::Won, w),
            }
            // One flag for the two rare stops: a strict-mode error, or a
            // whole table round of passes without a card to draw.
            if self.halt {
                // A strict-mode error leaves the loop here and is returned
                // by the caller. (Returning it from inside the loop measured
                // 3% slower: the hot loop's code layout is that sensitive.)
                if let Some(o) = self.halt_outcome() {
                    return (o, cur);
                }
            }
        }
    }

    /// With `halt` set: how the round ends, if it does (a strict-mode error
    /// or a fault leaves it blocked, a whole table of passes blocks it, the
    /// jump-in bound truncates it); `None` to play on.
    #[inline(always)]
    fn halt_outcome(&self) -> Option<Outcome> {
        if self.error.is_some() || self.idle >= self.n as u32 {
            Some(Outcome::Blocked)
        } else if self.jump_ins >= self.jump_in_limit() {
            Some(Outcome::Truncated)
        } else {
            None
        }
    }

    /// A Wild Draw Four or Downpour was flipped as the start card: whether it
    /// goes back (see the flip loop in `setup_round`). Rare, so kept out of
    /// the round's hot code.
    #[cold]
    #[inline(never)]
    fn start_card_goes_back(&self, flips: &mut u32) -> bool {
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

    /// Plays one round from the deal to its end. `Err` only in strict mode.
    pub fn play_round<R: Recorder>(
        &mut self,
        agents: &mut Agents,
        rec: &mut R,
    ) -> Result<RoundResult, IllegalActionError> {
        self.skip_ask = 0;
        for (i, seat) in agents.seats.iter().enumerate().take(self.n as usize) {
            if !seat.ask_without_choice() {
                self.skip_ask |= 1 << i;
            }
        }
        let mut cur = self.setup_round(agents, rec);
        let first_player = cur;
        let first_direction = self.dir;
        let outcome;
        (outcome, cur) = self.turns_of_round(cur, agents, rec);
        if let Some((seat, action)) = self.error {
            if let Some(e) = self.first_fault(agents) {
                return Err(e);
            }
            return Err(self.strict_error(seat, action, agents));
        }
        let mut points = [0u32; MAX_PLAYERS];
        let winner = if outcome == Outcome::Won {
            Some(cur)
        } else {
            None
        };
        if let Some(w) = winner {
            let d = &self.rules.deck;
            match self.s.scoring {
                Scoring::Winner => {
                    points[w as usize] =
                        // The hands are disjoint: score their union at once.
                        d.points(
                            self.hands[..self.n as usize]
                                .iter()
                                .fold(CardSet::EMPTY, |u, &h| u | h),
                        );
                }
                Scoring::Penalty => {
                    for i in 0..self.n as usize {
                        points[i] = d.points(self.hands[i]);
                    }
                }
            }
        }
        for i in 0..self.n as usize {
            self.totals[i] += points[i] as i64;
        }
        let result = RoundResult {
            round: self.round,
            outcome,
            winner,
            dealer: self.dealer,
            first_player,
            first_direction,
            points,
            turns: self.turns,
            cards_drawn: self.cards_drawn,
            uno_penalties: self.uno_penalties,
            illegal: self.illegal,
        };
        if agents.seats.iter().any(|s| matches!(s, Seat::Custom(_))) {
            if let Some(e) = self.round_end_notices(&result, agents) {
                return Err(e);
            }
        }
        Ok(result)
    }

    #[cold]
    fn strict_error(&self, seat: u8, action: IllegalAction, agents: &Agents) -> IllegalActionError {
        let d = &self.rules.deck;
        let action = match action {
            IllegalAction::Play(c) => format!("play {}", d.token(c)),
            IllegalAction::Draw => "draw while a play is required".to_string(),
            IllegalAction::Answer(c) => format!("answer a stack with {}", d.token(c)),
            IllegalAction::Target(t) => format!("target seat {t}"),
        };
        IllegalActionError {
            strategy: agents.seats[seat as usize].name().to_string(),
            seat,
            round: self.round,
            action,
            fault: false,
        }
    }

    /// Tells the custom strategies that the round ended, then returns the
    /// first fault of any seat (see [`Strategy::fault`]).
    #[cold]
    fn round_end_notices(
        &self,
        result: &RoundResult,
        agents: &mut Agents,
    ) -> Option<IllegalActionError> {
        for p in 0..self.n {
            agents.seats[p as usize].round_end(&self.obs(p), result);
        }
        self.first_fault(agents)
    }

    #[cold]
    fn first_fault(&self, agents: &mut Agents) -> Option<IllegalActionError> {
        for p in 0..self.n {
            let seat = &mut agents.seats[p as usize];
            if let Some(action) = seat.fault() {
                return Some(IllegalActionError {
                    strategy: seat.name().to_string(),
                    seat: p,
                    round: self.round,
                    action,
                    fault: true,
                });
            }
        }
        None
    }

    /// Plays a whole match: rounds until the target, the round count, quick play
    /// or `max_rounds`. Calls `on_round` after each round.
    pub fn play_match<R: Recorder>(
        &mut self,
        agents: &mut Agents,
        rec: &mut R,
        mut on_round: impl FnMut(&RoundResult),
    ) -> Result<MatchResult, IllegalActionError> {
        self.totals = [0; MAX_PLAYERS];
        self.round = 0;
        self.dealer = match self.s.dealer {
            Dealer::Random => below(&mut self.rng, self.n as u32) as u8,
            Dealer::Seat(s) => s % self.n,
        };
        let mut quick_winner = None;
        // Bound: `max_rounds` rounds (validated to be at least 1), each bounded.
        loop {
            let r = self.play_round(agents, rec)?;
            rec.on(
                self,
                Event::RoundEnd {
                    result: &r,
                    totals: &self.totals[..self.n as usize],
                },
            );
            on_round(&r);
            if self.s.quick {
                quick_winner = r.winner;
                break;
            }
            let reached = self.s.target > 0
                && self.totals[..self.n as usize]
                    .iter()
                    .any(|&t| t >= self.s.target as i64);
            if reached
                || (self.s.rounds > 0 && self.round >= self.s.rounds)
                || self.round >= self.s.max_rounds
            {
                break;
            }
            self.dealer = (self.dealer + 1) % self.n;
        }
        let totals = &self.totals[..self.n as usize];
        let mut tied = false;
        let winner = if self.s.quick {
            quick_winner
        } else {
            let best = match self.s.scoring {
                Scoring::Winner => *totals.iter().max().unwrap(),
                Scoring::Penalty => *totals.iter().min().unwrap(),
            };
            let mut it = totals.iter().enumerate().filter(|(_, &t)| t == best);
            let first = it.next().map(|(i, _)| i as u8);
            if it.next().is_some() {
                tied = true;
                None
            } else {
                first
            }
        };
        let result = MatchResult {
            winner,
            tied,
            totals: self.totals,
            rounds: self.round,
        };
        for p in 0..self.n {
            agents.seats[p as usize].match_end(&self.obs(p), &result);
        }
        if let Some(e) = self.first_fault(agents) {
            return Err(e);
        }
        Ok(result)
    }

    /// Sets the dealer and resets totals, for playing single rounds with
    /// [`Game::play_round`] (the runner's round mode).
    pub fn start_match(&mut self, dealer: Option<u8>) {
        self.totals = [0; MAX_PLAYERS];
        self.round = 0;
        self.dealer = match (dealer, self.s.dealer) {
            (Some(d), _) => d % self.n,
            (None, Dealer::Seat(s)) => s % self.n,
            (None, Dealer::Random) => below(&mut self.rng, self.n as u32) as u8,
        };
    }

    // ----- a turn ----------------------------------------------------------

    /// A turn. `H`: with the house-rule checks; `W`: with the matching
    /// restriction of `wild_when_matching = false` (only with `H`:
    /// [`Game::uses_house_rules`] counts that setting), so that rule sets
    /// without it keep the mask work they had before it existed.
    fn turn<const H: bool, const W: bool, R: Recorder>(
        &mut self,
        p: u8,
        agents: &mut Agents,
        rec: &mut R,
    ) -> Flow {
        // Without house rules a pending draw is settled during the play.
        if H && self.pending > 0 {
            return self.pending_turn::<W, R>(p, agents, rec);
        }
        self.normal_turn::<H, W, R>(p, agents, rec)
    }

    /// The victim of a pending draw: challenge, answer, or draw it all.
    fn pending_turn<const W: bool, R: Recorder>(
        &mut self,
        p: u8,
        agents: &mut Agents,
        rec: &mut R,
    ) -> Flow {
        let d = &self.rules.deck;
        if self.s.bluff_challenge
            && d.wd4.contains(self.top)
            && agents.seats[p as usize].challenge(&self.obs(p), &mut agents.rng)
        {
            let target = self.wd4_player;
            let guilty = self.wd4_guilty;
            rec.on(
                self,
                Event::Challenge {
                    challenger: p,
                    target,
                    guilty,
                },
            );
            let total = self.pending;
            self.pending = 0;
            self.pending_cards = 0;
            if guilty {
                self.draw(target, total, DrawReason::Challenge, rec);
                return self.normal_turn::<true, W, R>(p, agents, rec);
            }
            self.draw(p, total + 2, DrawReason::Challenge, rec);
            rec.on(self, Event::Skip { player: p });
            return Flow::Next(self.step(p, 1));
        }
        let answers = self.answers(self.hands[p as usize & 15]);
        if !answers.is_empty() {
            if let Some(c) =
                agents.seats[p as usize].answer_stack(&self.obs(p), answers, &mut agents.rng)
            {
                if answers.contains(c) {
                    self.turns += 1;
                    return self.play::<true, R>(p, c, false, agents, rec);
                }
                if self.illegal(p, IllegalAction::Answer(c), rec) {
                    return Flow::Next(p);
                }
            }
        }
        self.settle_pending(p, rec);
        rec.on(self, Event::Skip { player: p });
        Flow::Next(self.step(p, 1))
    }

    /// `H` and `W` as for [`Game::turn`].
    fn normal_turn<const H: bool, const W: bool, R: Recorder>(
        &mut self,
        p: u8,
        agents: &mut Agents,
        rec: &mut R,
    ) -> Flow {
        self.turns += 1;
        let hand = self.hands[p as usize & 15];
        debug_assert!(W || self.plain_restricted.is_empty());
        let playable = self.playable_in::<W>(hand);
        // A player with nothing playable draws; the strategy is asked only if
        // it wants to be (see `Strategy::ask_without_choice`).
        let choice = if playable.is_empty() && self.skip_ask & (1 << p) != 0 {
            None
        } else {
            agents.seats[p as usize].choose_play(&self.obs(p), playable, &mut agents.rng)
        };
        match choice {
            Some(c) if playable.contains(c) => return self.play::<H, R>(p, c, false, agents, rec),
            Some(c) => {
                self.illegal(p, IllegalAction::Play(c), rec);
                return Flow::Next(self.step(p, 1));
            }
            None => {}
        }
        if H && self.must_play && !playable.is_empty() {
            self.illegal(p, IllegalAction::Draw, rec);
            return Flow::Next(self.step(p, 1));
        }
        // Draw one (or, with draw_to_match, until a playable card comes).
        let mut last = None;
        let reason = if H && self.s.draw_to_match {
            // Bound: each draw moves a card of the piles into the hand, and a
            // reshuffle only returns discards, so at most the deck's size.
            while let Some(c) = self.draw_card(p, DrawReason::Match, rec) {
                last = Some(c);
                if self.can_play::<W>(self.hands[p as usize & 15], c) {
                    break;
                }
            }
            DrawReason::Match
        } else {
            last = self.draw_card(p, DrawReason::Turn, rec);
            DrawReason::Turn
        };
        rec.on(self, Event::DrawEnd { player: p, reason });
        match last {
            None => {
                // Nothing could be drawn: the player passes.
                self.idle += 1;
                self.halt |= self.idle >= self.n as u32;
            }
            Some(c) => {
                if self.can_play::<W>(self.hands[p as usize & 15], c)
                    && ((H && self.s.force_play)
                        || agents.seats[p as usize].play_drawn(&self.obs(p), c, &mut agents.rng))
                {
                    return self.play::<H, R>(p, c, false, agents, rec);
                }
            }
        }
        rec.on(self, Event::Pass { player: p });
        Flow::Next(self.step(p, 1))
    }

    /// Asks `p` for a swap target; `None` when the choice was illegal.
    fn target<R: Recorder>(&mut self, p: u8, agents: &mut Agents, rec: &mut R) -> Option<u8> {
        let t = agents.seats[p as usize].choose_target(&self.obs(p), &mut agents.rng);
        if (t as usize) < self.n as usize && t != p {
            Some(t)
        } else {
            self.illegal(p, IllegalAction::Target(t), rec);
            None
        }
    }

    /// `p` plays `c` (already checked legal), then everything that follows until
    /// the next turn: UNO, the card's effect, jump-ins, skips and draws.
    #[inline(always)]
    fn play<const H: bool, R: Recorder>(
        &mut self,
        mut p: u8,
        mut c: CardId,
        mut jump_in: bool,
        agents: &mut Agents,
        rec: &mut R,
    ) -> Flow {
        let d = &self.rules.deck;
        let mut skip_next;
        let mut extra_turn;
        loop {
            let before = self.hands[p as usize & 15];
            let effect = d.effect_of[c as usize & 127];
            // A swap target is chosen with the play (none for a last card). An
            // illegal target is a wrong card: the card stays, the player draws
            // the sanction and the turn ends.
            let wants_target = (effect == Effect::Swap
                || (H
                    && self.s.seven_o
                    && d.face_of[c as usize & 127] == 7
                    && effect == Effect::Number))
                && before.len() > 1;
            let target = if wants_target {
                match self.target(p, agents, rec) {
                    Some(t) => Some(t),
                    None => return Flow::Next(self.step(p, 1)),
                }
            } else {
                None
            };
            let prev_color = self.color;
            self.hands[p as usize & 15].remove(c);
            self.discard.insert(c);
            self.top = c;
            self.idle = 0;
            match d.color(c) {
                Some(col) => self.set_colored_top(c, col),
                None => {
                    let col = agents.seats[p as usize].choose_color(&self.obs(p), &mut agents.rng);
                    self.set_color(col);
                }
            }
            if effect == Effect::WildDraw4 {
                self.wd4_player = p;
                self.wd4_guilty = !(before & d.color_mask[prev_color.index()]).is_empty();
            }
            let left = self.hands[p as usize & 15].len();
            let uno = left == 1 && agents.seats[p as usize].call_uno(&self.obs(p), &mut agents.rng);
            rec.on(
                self,
                Event::Play {
                    player: p,
                    card: c,
                    color: self.color,
                    uno,
                    jump_in,
                    target,
                },
            );
            if left == 1 && !uno {
                let chance = self.s.uno_catch_chance;
                if chance >= 1.0 || (chance > 0.0 && self.rng.random::<f64>() < chance) {
                    self.uno_penalties += 1;
                    rec.on(self, Event::UnoCaught { player: p });
                    self.draw(p, self.s.uno_penalty, DrawReason::UnoPenalty, rec);
                }
            }
            if left == 0 {
                self.last_card_draws(p, effect, rec);
                return Flow::Out(p);
            }
            // The card's effect.
            skip_next = false;
            extra_turn = false;
            match effect {
                Effect::Number => {
                    if H && self.s.seven_o {
                        match d.face_of[c as usize] {
                            7 => {
                                if let Some(t) = target {
                                    self.hands.swap(p as usize, t as usize);
                                    rec.on(self, Event::Swap { a: p, b: t });
                                }
                            }
                            0 => self.rotate(rec),
                            _ => {}
                        }
                    }
                }
                Effect::Skip => skip_next = true,
                Effect::Reverse => {
                    self.set_direction(-self.dir);
                    if self.n == 2 && self.s.two_player_reverse_skips {
                        skip_next = true;
                    }
                }
                Effect::Draw2 => self.add_pending(2),
                Effect::WildDraw4 => self.add_pending(4),
                Effect::Wild => {}
                Effect::Downpour1 | Effect::Downpour2 => {
                    let k = if effect == Effect::Downpour1 { 1 } else { 2 };
                    for i in 1..self.n {
                        let q = self.step(p, i);
                        self.draw(q, k, DrawReason::Downpour, rec);
                    }
                    skip_next = self.s.downpour_skips_next;
                }
                Effect::Ohana => self.ohana(p, true, rec),
                Effect::Swap => {
                    if let Some(t) = target {
                        self.hands.swap(p as usize, t as usize);
                        rec.on(self, Event::Swap { a: p, b: t });
                    }
                }
                Effect::Custom => extra_turn = self.s.custom_effect == CustomEffect::ExtraTurn,
            }
            // Jump-in: another player holding an identical card may play it now.
            // Bound: each jump-in takes a card out of a hand, and identical cards
            // come back only through penalty draws after a reshuffle, so chains
            // are short; as a hard bound a round allows at most `max_turns` +
            // the deck's size jump-ins, then ends as truncated (the round loop
            // sees `halt`).
            if H && self.s.jump_in && !d.wild.contains(c) {
                if self.jump_ins >= self.jump_in_limit() {
                    self.halt = true;
                } else if let Some((q, card)) = self.jump_in_offer(p, c, agents) {
                    self.jump_ins += 1;
                    p = q;
                    c = card;
                    jump_in = true;
                    continue;
                }
            }
            break;
        }
        if extra_turn {
            return Flow::Next(p);
        }
        let next = self.step(p, 1);
        if self.pending > 0 {
            let challengeable = H && self.s.bluff_challenge && d.wd4.contains(self.top);
            if H && (self.s.stacking != Stacking::Off || challengeable) {
                return Flow::Next(next);
            }
            self.settle_pending(next, rec);
            rec.on(self, Event::Skip { player: next });
            return Flow::Next(self.step(next, 1));
        }
        if skip_next {
            rec.on(self, Event::Skip { player: next });
            return Flow::Next(self.step(next, 1));
        }
        Flow::Next(next)
    }

    /// The victim draws the pending total (reason `stack` when more than one
    /// draw card built it, else `draw2` / `draw4` after the top card).
    fn settle_pending<R: Recorder>(&mut self, victim: u8, rec: &mut R) {
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
    fn add_pending(&mut self, k: u32) {
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
    fn jump_in_limit(&self) -> u32 {
        self.s.max_turns.saturating_add(self.rules.deck.size as u32)
    }

    fn jump_in_offer(&mut self, p: u8, c: CardId, agents: &mut Agents) -> Option<(u8, CardId)> {
        let same = self.rules.deck.identical(c);
        for i in 1..self.n {
            let q = self.step(p, i);
            let held = self.hands[q as usize & 15] & same;
            if let Some(card) = held.first() {
                if agents.seats[q as usize].jump_in(&self.obs(q), card, &mut agents.rng) {
                    return Some((q, card));
                }
            }
        }
        None
    }

    /// Seven-o zero: every hand passes to the next player in the direction of play.
    #[cold]
    fn rotate<R: Recorder>(&mut self, rec: &mut R) {
        let n = self.n as usize;
        let old = self.hands;
        for i in 0..n {
            let to = self.step(i as u8, 1) as usize;
            self.hands[to] = old[i];
        }
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
    fn ohana<R: Recorder>(&mut self, p: u8, include_player: bool, rec: &mut R) {
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
    fn last_card_draws<R: Recorder>(&mut self, p: u8, effect: Effect, rec: &mut R) {
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

/// What a player at the table can see: their own hand, the top card and active
/// colour, the direction, every hand's size, the draw pile's size, the discard
/// pile's contents, the totals and the settings. Never another hand or the pile
/// order.
#[derive(Clone, Copy)]
pub struct Observation<'a> {
    g: &'a Game<'a>,
    seat: u8,
}

impl<'a> Observation<'a> {
    /// The observing seat.
    pub fn seat(&self) -> u8 {
        self.seat
    }
    pub fn players(&self) -> usize {
        self.g.n as usize
    }
    pub fn hand(&self) -> CardSet {
        self.g.hands[self.seat as usize]
    }
    pub fn top(&self) -> CardId {
        self.g.top
    }
    pub fn color(&self) -> Color {
        self.g.color
    }
    pub fn direction(&self) -> i8 {
        self.g.dir
    }
    pub fn hand_size(&self, seat: usize) -> usize {
        self.g.hands[seat].len() as usize
    }
    pub fn draw_pile_len(&self) -> usize {
        self.g.pile.len as usize
    }
    pub fn discard(&self) -> CardSet {
        self.g.discard
    }
    pub fn totals(&self) -> &[i64] {
        self.g.totals()
    }
    pub fn settings(&self) -> &Settings {
        self.g.s
    }
    pub fn rules(&self) -> &Rules {
        self.g.rules
    }
    /// The pending draw total aimed at the player to move (stacking, challenge).
    pub fn pending_draw(&self) -> u32 {
        self.g.pending
    }
    pub fn round(&self) -> u32 {
        self.g.round
    }
    pub fn turns(&self) -> u32 {
        self.g.turns
    }
    /// The seat `k` places from the observer in the direction of play.
    pub fn seat_after(&self, k: u8) -> u8 {
        self.g.step(self.seat, k)
    }
    /// The cards of the observer's hand that are playable now.
    pub fn playable(&self) -> CardSet {
        self.g.playable(self.hand())
    }
}

/// A uniform integer in `0..n` (`n > 0`) by Lemire's multiply-and-reject method:
/// exact (no modulo bias) and almost never divides.
#[inline(always)]
pub fn below(rng: &mut Rng, n: u32) -> u32 {
    debug_assert!(n > 0);
    let mut m = (rng.next_u32() as u64) * (n as u64);
    if (m as u32) < n {
        let t = n.wrapping_neg() % n;
        while (m as u32) < t {
            m = (rng.next_u32() as u64) * (n as u64);
        }
    }
    (m >> 32) as u32
}

/// SplitMix64 finaliser: a bijective mix of a 64-bit value.
#[inline]
pub fn mix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The two generators of game `index` under a master seed: one for the table
/// (shuffles, dealer, UNO catches) and one for the strategies. They depend on
/// the master seed and the index alone, so results do not depend on threads.
pub fn game_rngs(master: u64, index: u64) -> (Rng, Rng) {
    let base = mix64(master ^ mix64(index.wrapping_mul(0xD6E8_FEB8_6659_FD93)));
    (
        Rng::seed_from_u64(mix64(base ^ 0x5EED_7AB1E)),
        Rng::seed_from_u64(mix64(base ^ 0xA6E7_5EED)),
    )
}
