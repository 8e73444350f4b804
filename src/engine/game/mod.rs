//! The engine: one match of UNO on the compact-bitset core.
//!
//! Hands and the discard pile are [`CardSet`]s, the draw pile a fixed array, legal
//! moves mask operations over the rule set's tables. Nothing here allocates while
//! a round is played (the scripted deck of a test is the only `Vec`, read once).
//!
//! The flow follows the rule book (docs/rules.md): [`Game::play_match`] plays
//! rounds until the target, the round count or quick play ends the match;
//! [`Game::play_round`] deals, flips the start card and plays turns until a
//! player goes out, the round is blocked or it is truncated. Every decision is
//! asked of a [`Strategy`] through an [`Observation`], which exposes only what a
//! player at the table could see.
//!
//! This file holds the state ([`Game`]) and its accessors; the rest is one
//! file per concern:
//! - `deal`: shuffle, deal, the start card, drawing and reshuffles;
//! - `playable`: the playability masks and restrictions;
//! - `round`: the round loop, scoring, notices, the match;
//! - `turn`: a turn, a play and what follows it, illegal actions;
//! - `effects`: pending draws, jump-ins, seven-o, Ohana, last-card draws;
//! - `observation`: what a seat can see;
//! - `hidden`: determinization and the conservation check;
//! - `informed`: what the table revealed, and the deals that keep it;
//! - `resume`: playing a round on from a decision (search agents);
//! - `events`: events, results and errors;
//! - `strategy`: the decision interface the game calls (also
//!   `engine::strategy`).

use crate::engine::cards::{CardId, CardSet, Color};
pub use crate::engine::rng::{below, game_rngs, mix64, Rng};
use crate::engine::rules::{Rules, Settings};
use knowledge::Ledger;
use rand::SeedableRng;

mod deal;
mod effects;
mod events;
mod hidden;
mod informed;
mod knowledge;
mod observation;
mod playable;
mod resume;
mod round;
pub mod strategy;
#[cfg(test)]
pub(crate) mod testing;
mod turn;

pub use events::{
    DrawReason, Event, IllegalAction, IllegalActionError, MatchResult, NoRecord, Outcome, Recorder,
    RoundResult,
};
pub use informed::Knowledge;
pub use knowledge::{Constraints, LastTurn, Notes, Turns, MAX_NOTES, MAX_TURNS, TURN_LOG};
pub use observation::Observation;
pub use resume::{Playout, ResumeAt};
pub use round::{MatchEnd, RoundStart, TurnEnd};
pub use strategy::{Agents, Strategy, Table, Tracking};

/// Most players at a table.
pub const MAX_PLAYERS: usize = 10;

/// The most start-card flips of a round before the flipped card stays (see
/// `setup_round`); a safety bound that random play never reaches.
const MAX_START_FLIPS: u32 = 10_000;

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
    /// Wild Draw Four under `wd4_last_resort` (forbidden while another card
    /// of the hand is playable), else none.
    last_resort: CardSet,
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
    /// ...the colour active before it and its player's draw counter then.
    wd4_color: Color,
    wd4_at: u32,
    turns: u32,
    /// Jump-ins this round (not turns; bounded by `jump_in_limit`).
    jump_ins: u32,
    idle: u32,
    round: u32,
    dealer: u8,
    totals: [i64; MAX_PLAYERS],
    rng: Rng,
    // round counters
    /// Cards drawn by each seat this round (their sum is the round's count).
    drawn: [u32; 16],
    uno_penalties: u32,
    illegal: [u32; MAX_PLAYERS],
    error: Option<(u8, IllegalAction)>,
    scripted: Option<Vec<CardId>>,
    /// A strict-mode error or a blocked table: the round loop must look.
    halt: bool,
    /// Seats (bits) whose strategy is not asked when nothing is playable.
    skip_ask: u16,
    /// Seats (bits) asked the decisions the rules leave them no choice in
    /// ([`Table::asks_forced`]).
    forced_ask: u16,
    /// What the seats asked the game to note (`Strategy::notes`): notes are
    /// taken by the house-rule variant of the turn logic only.
    tracking: Tracking,
    /// Unordered draw pile: each draw takes a uniformly random card of the pile
    /// instead of shuffling the whole deck first (see [`Game::set_lazy_pile`]).
    lazy: bool,
    /// What the table revealed (see `knowledge`): known cards and notes.
    ledger: Ledger,
}

/// Every field but the generator and the scripted deck is `Copy`, so a
/// clone is one copy of the struct (the derived `clone_from` built a
/// temporary and copied twice; the stepper and the search agents clone games
/// on every pass).
impl Clone for Game<'_> {
    fn clone(&self) -> Self {
        Game {
            rng: self.rng.fork(),
            scripted: self.scripted.clone(),
            ..*self
        }
    }

    /// Copies field by field, and of the large arrays only the part in use:
    /// the hands of the seats at the table, the cards of the draw pile, the
    /// knowledge ledger's notes and known cards when there are any. The
    /// stepper and the search agents call it on every pass, where a whole
    /// copy (about 1.5 KB) was a third of a step. The destructuring is
    /// exhaustive: a new field does not compile until it is copied here.
    fn clone_from(&mut self, src: &Self) {
        let Game {
            rules,
            s,
            n,
            hands,
            pile,
            discard,
            top,
            color,
            accept,
            of_color,
            restricted,
            plain_restricted,
            last_resort,
            dir,
            next_seat,
            next_tables,
            must_play,
            pending,
            pending_cards,
            wd4_player,
            wd4_guilty,
            wd4_color,
            wd4_at,
            turns,
            jump_ins,
            idle,
            round,
            dealer,
            totals,
            rng,
            drawn,
            uno_penalties,
            illegal,
            error,
            scripted,
            halt,
            skip_ask,
            forced_ask,
            tracking,
            lazy,
            ledger,
        } = src;
        // Seats past both tables' sizes hold no cards in either game.
        // Fixed-size blocks (a few vector moves each) rather than a copy of
        // a length known only at run time (a call to memcpy).
        let seats = (*n).max(self.n) as usize;
        for (to, from) in self
            .hands
            .chunks_exact_mut(4)
            .zip(hands.chunks_exact(4))
            .take(seats.div_ceil(4))
        {
            to.copy_from_slice(from);
        }
        let len = pile.len as usize;
        for (to, from) in self
            .pile
            .cards
            .chunks_exact_mut(32)
            .zip(pile.cards.chunks_exact(32))
            .take(len.div_ceil(32))
        {
            to.copy_from_slice(from);
        }
        self.pile.len = pile.len;
        self.ledger.copy_from(ledger);
        self.rules = rules;
        self.s = s;
        self.n = *n;
        self.discard = *discard;
        self.top = *top;
        self.color = *color;
        self.accept = *accept;
        self.of_color = *of_color;
        self.restricted = *restricted;
        self.plain_restricted = *plain_restricted;
        self.last_resort = *last_resort;
        self.dir = *dir;
        self.next_seat = *next_seat;
        self.next_tables = *next_tables;
        self.must_play = *must_play;
        self.pending = *pending;
        self.pending_cards = *pending_cards;
        self.wd4_player = *wd4_player;
        self.wd4_guilty = *wd4_guilty;
        self.wd4_color = *wd4_color;
        self.wd4_at = *wd4_at;
        self.turns = *turns;
        self.jump_ins = *jump_ins;
        self.idle = *idle;
        self.round = *round;
        self.dealer = *dealer;
        self.totals = *totals;
        self.rng = rng.fork();
        self.drawn = *drawn;
        self.uno_penalties = *uno_penalties;
        self.illegal = *illegal;
        self.error = *error;
        self.scripted.clone_from(scripted);
        self.halt = *halt;
        self.skip_ask = *skip_ask;
        self.forced_ask = *forced_ask;
        self.tracking = *tracking;
        self.lazy = *lazy;
    }
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
            last_resort: if rules.settings.wd4_last_resort {
                rules.deck.wd4
            } else {
                CardSet::EMPTY
            },
            dir: 1,
            next_seat: [0; 16],
            next_tables: Game::next_tables(players as u8),
            must_play: rules.settings.force_play || !rules.settings.may_draw_when_playable,
            pending: 0,
            pending_cards: 0,
            wd4_player: 0,
            wd4_guilty: false,
            wd4_color: Color::Red,
            wd4_at: 0,
            turns: 0,
            jump_ins: 0,
            idle: 0,
            round: 0,
            dealer: 0,
            totals: [0; MAX_PLAYERS],
            rng,
            drawn: [0; 16],
            uno_penalties: 0,
            illegal: [0; MAX_PLAYERS],
            error: None,
            scripted: None,
            skip_ask: 0,
            forced_ask: 0,
            tracking: Tracking::Off,
            halt: false,
            lazy: false,
            ledger: Ledger::EMPTY,
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

    fn obs(&self, seat: u8) -> Observation<'_> {
        Observation { g: self, seat }
    }
}
