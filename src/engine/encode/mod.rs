//! The observation and action encodings shared by every learner: the Python
//! environments (PettingZoo, Gymnasium, the batched environment) and the
//! network strategy read the same features and the same action numbers, from
//! this one module.
//!
//! **Features** ([`OBS_LEN`] `f32`s, [`encode`]): only what
//! [`Observation`] exposes to the seat, section by section (see [`SECTIONS`]).
//! Card kinds are numbered the same way in every rule set ([`kind_index`]):
//! the 52 coloured kinds `colour x 13 + face` (faces 0..9, skip, reverse,
//! draw2), then the 7 wild kinds.
//!
//! **Actions** (one `Discrete(ACTIONS)` space, [`Decision::legal`]): every
//! decision the engine asks maps to a range of it; the mask of a decision is
//! exactly its legal set.
//!
//! | actions | decision | meaning |
//! | --- | --- | --- |
//! | 0..59 | play, stack answer | play a card of kind `a` |
//! | 59 | play, stack answer | draw (for a play: draw a card, or pass when nothing can be drawn; for a stack answer: take the pending draw) |
//! | 60, 61 | drawn card | play it, keep it |
//! | 62..66 | colour | name red, yellow, green, blue |
//! | 66, 67 | UNO | call it, do not |
//! | 68, 69 | challenge | challenge the Wild Draw Four, do not |
//! | 70..79 | target | the opponent `a - 69` places after the player in the direction of play |
//! | 79, 80 | jump-in | jump in with the card, do not |

use crate::engine::cards::{CardId, CardSet, Color, Face, Kind, NUM_FACES};
use crate::engine::game::{Observation, MAX_PLAYERS};
use crate::engine::rules::Deck;

mod features;
pub use features::Features;

/// Coloured faces (0..9, skip, reverse, draw2).
const COLORED_FACES: usize = 13;
/// Card kinds in every rule set: 4 colours x 13 coloured faces, 7 wilds.
pub const KINDS: usize = 4 * COLORED_FACES + (NUM_FACES - COLORED_FACES);

/// The kind number of a card kind (the same in every rule set).
#[inline]
pub fn kind_index(k: Kind) -> usize {
    match k.color {
        Some(c) => c.index() * COLORED_FACES + k.face.index(),
        None => 4 * COLORED_FACES + k.face.index() - COLORED_FACES,
    }
}

/// The card kind of a kind number (`i < KINDS`).
pub fn kind_of_index(i: usize) -> Kind {
    if i < 4 * COLORED_FACES {
        Kind::new(
            Some(Color::from_index(i / COLORED_FACES)),
            Face::ALL[i % COLORED_FACES],
        )
    } else {
        Kind::new(None, Face::ALL[i - 4 * COLORED_FACES + COLORED_FACES])
    }
}

/// The kind number of each card of a deck (`card -> kind_index`).
pub fn kind_table(deck: &Deck) -> [u8; 128] {
    let mut t = [0u8; 128];
    for c in deck.all.iter() {
        t[c as usize] = kind_index(deck.kind(c)) as u8;
    }
    t
}

// ----- actions ---------------------------------------------------------------

pub const ACT_PLAY: usize = 0;
pub const ACT_DRAW: usize = KINDS;
pub const ACT_PLAY_DRAWN: usize = ACT_DRAW + 1;
pub const ACT_KEEP: usize = ACT_DRAW + 2;
pub const ACT_COLOR: usize = ACT_DRAW + 3;
pub const ACT_UNO: usize = ACT_COLOR + 4;
pub const ACT_NO_UNO: usize = ACT_UNO + 1;
pub const ACT_CHALLENGE: usize = ACT_UNO + 2;
pub const ACT_NO_CHALLENGE: usize = ACT_UNO + 3;
/// `ACT_TARGET + k - 1`: the opponent `k` places after the player.
pub const ACT_TARGET: usize = ACT_UNO + 4;
pub const ACT_JUMP: usize = ACT_TARGET + MAX_PLAYERS - 1;
pub const ACT_NO_JUMP: usize = ACT_JUMP + 1;
/// The size of the action space.
pub const ACTIONS: usize = ACT_NO_JUMP + 1;

/// What an action does, in words: `play red-7`, `draw`, `name blue`,
/// `swap hands with the player 2 places after`, ... (`no action` past
/// [`ACTIONS`]).
pub fn action_label(action: usize) -> String {
    const COLORS: [&str; 4] = ["red", "yellow", "green", "blue"];
    match action {
        a if a < KINDS => format!("play {}", kind_of_index(a)),
        ACT_DRAW => "draw".into(),
        ACT_PLAY_DRAWN => "play the drawn card".into(),
        ACT_KEEP => "keep the drawn card".into(),
        a if (ACT_COLOR..ACT_UNO).contains(&a) => format!("name {}", COLORS[a - ACT_COLOR]),
        ACT_UNO => "call UNO".into(),
        ACT_NO_UNO => "do not call UNO".into(),
        ACT_CHALLENGE => "challenge".into(),
        ACT_NO_CHALLENGE => "do not challenge".into(),
        a if (ACT_TARGET..ACT_JUMP).contains(&a) => format!(
            "swap hands with the player {} place{} after",
            a - ACT_TARGET + 1,
            if a == ACT_TARGET { "" } else { "s" }
        ),
        ACT_JUMP => "jump in".into(),
        ACT_NO_JUMP => "do not jump in".into(),
        _ => "no action".into(),
    }
}

/// The kinds of decision the engine asks (the `Strategy` methods).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum DecisionKind {
    /// Play a playable card or draw (`choose_play`).
    Play = 0,
    /// Play the card just drawn or keep it (`play_drawn`).
    PlayDrawn = 1,
    /// Name a colour for a wild (`choose_color`).
    Color = 2,
    /// Call UNO or not (`call_uno`).
    Uno = 3,
    /// Choose the opponent of a swap (`choose_target`).
    Target = 4,
    /// Answer a pending draw with a draw card or take it (`answer_stack`).
    Stack = 5,
    /// Challenge the Wild Draw Four just played or not (`challenge`).
    Challenge = 6,
    /// Jump in out of turn with an identical card or not (`jump_in`).
    JumpIn = 7,
}

/// The number of decision kinds.
pub const DECISION_KINDS: usize = 8;

impl DecisionKind {
    pub const ALL: [DecisionKind; DECISION_KINDS] = [
        DecisionKind::Play,
        DecisionKind::PlayDrawn,
        DecisionKind::Color,
        DecisionKind::Uno,
        DecisionKind::Target,
        DecisionKind::Stack,
        DecisionKind::Challenge,
        DecisionKind::JumpIn,
    ];

    pub fn name(self) -> &'static str {
        match self {
            DecisionKind::Play => "play",
            DecisionKind::PlayDrawn => "play_drawn",
            DecisionKind::Color => "color",
            DecisionKind::Uno => "uno",
            DecisionKind::Target => "target",
            DecisionKind::Stack => "stack",
            DecisionKind::Challenge => "challenge",
            DecisionKind::JumpIn => "jump_in",
        }
    }
}

/// A set of actions, one bit each.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ActionSet(pub u128);

impl ActionSet {
    pub const EMPTY: ActionSet = ActionSet(0);
    #[inline]
    pub fn insert(&mut self, a: usize) {
        self.0 |= 1u128 << a;
    }
    #[inline]
    pub fn remove(&mut self, a: usize) {
        self.0 &= !(1u128 << a);
    }
    #[inline]
    pub fn contains(self, a: usize) -> bool {
        a < ACTIONS && self.0 >> a & 1 == 1
    }
    #[inline]
    pub fn len(self) -> usize {
        self.0.count_ones() as usize
    }
    #[inline]
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
    /// The actions in increasing order.
    pub fn iter(self) -> impl Iterator<Item = usize> {
        let mut m = self.0;
        std::iter::from_fn(move || {
            if m == 0 {
                return None;
            }
            let a = m.trailing_zeros() as usize;
            m &= m - 1;
            Some(a)
        })
    }
    /// Writes the set as 0/1 bytes (an action mask, [`ACTIONS`] long).
    pub fn write_mask(self, out: &mut [i8]) {
        let out = &mut out[..ACTIONS];
        out.fill(0);
        for a in self.iter() {
            out[a] = 1;
        }
    }
}

/// A decision in hand: who decides what, and the cards it is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decision {
    pub seat: u8,
    pub kind: DecisionKind,
    /// The cards it is about: the playable cards (`Play`), the cards that
    /// may answer (`Stack`), the drawn card or the jump-in card (one card;
    /// none when the table asks a decision without a choice, see
    /// [`crate::engine::strategy::Table::asks_forced`]: a drawn card that
    /// cannot be played, no card to jump in with).
    pub cards: CardSet,
    /// `Play`: drawing is allowed (not under a rule that forces a play).
    pub may_draw: bool,
}

impl Decision {
    /// The legal actions of the decision, for `obs` (the deciding seat's view).
    pub fn legal(&self, obs: &Observation) -> ActionSet {
        let mut s = ActionSet::EMPTY;
        let d = &obs.rules().deck;
        match self.kind {
            DecisionKind::Play | DecisionKind::Stack => {
                for c in self.cards.iter() {
                    s.insert(ACT_PLAY + kind_index(d.kind(c)));
                }
                if self.kind == DecisionKind::Stack || self.may_draw || self.cards.is_empty() {
                    s.insert(ACT_DRAW);
                }
            }
            DecisionKind::PlayDrawn => {
                if !self.cards.is_empty() {
                    s.insert(ACT_PLAY_DRAWN);
                }
                s.insert(ACT_KEEP);
            }
            DecisionKind::Color => (0..4).for_each(|i| s.insert(ACT_COLOR + i)),
            DecisionKind::Uno => {
                s.insert(ACT_UNO);
                s.insert(ACT_NO_UNO);
            }
            DecisionKind::Target => {
                for k in 1..obs.players() {
                    s.insert(ACT_TARGET + k - 1);
                }
            }
            DecisionKind::Challenge => {
                s.insert(ACT_CHALLENGE);
                s.insert(ACT_NO_CHALLENGE);
            }
            DecisionKind::JumpIn => {
                if !self.cards.is_empty() {
                    s.insert(ACT_JUMP);
                }
                s.insert(ACT_NO_JUMP);
            }
        }
        s
    }
}

/// The card of `hand` an action plays: the lowest card of that kind among
/// `cards` (identical cards are interchangeable). `None` when it holds none.
pub fn card_of_action(deck: &Deck, cards: CardSet, action: usize) -> Option<CardId> {
    if action >= KINDS {
        return None;
    }
    let kind = kind_of_index(action - ACT_PLAY);
    (deck.kind_mask(kind) & cards).first()
}

/// The action of playing card `c`.
pub fn action_of_card(deck: &Deck, c: CardId) -> usize {
    ACT_PLAY + kind_index(deck.kind(c))
}

// ----- features --------------------------------------------------------------

/// One section of the feature vector: name, offset, length.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Section {
    pub name: &'static str,
    pub offset: usize,
    pub len: usize,
    /// What each value holds.
    pub doc: &'static str,
}

const fn sections() -> [Section; 12] {
    let spec: [(&str, usize, &str); 12] = [
        ("hand", KINDS, "cards of each kind in the player's hand"),
        ("top", KINDS, "1 at the kind of the top card of the discard pile"),
        ("color", 4, "1 at the active colour (red, yellow, green, blue); while a wild start card's colour is not yet named (the first colour decision), 1 at red, the table's starting colour (`Observation.color` is then `None`, and `render()` says \"not named yet\")"),
        ("direction", 1, "+1 clockwise, -1 counter-clockwise"),
        ("players", MAX_PLAYERS - 1, "1 at the player count (2..10)"),
        (
            "hand_sizes",
            MAX_PLAYERS,
            "cards held by the seat k places after the player (k = 0 is the player), 0 past the table",
        ),
        ("discard", KINDS, "cards of each kind on the discard pile (top included)"),
        ("draw_pile", 1, "cards in the draw pile / 10"),
        ("pending", 1, "the draw total pending at the table (aimed at the player at a stack or challenge decision)"),
        (
            "totals",
            MAX_PLAYERS,
            "match totals / 100 of the seat k places after the player, 0 past the table",
        ),
        ("decision", DECISION_KINDS, "1 at the kind of decision asked"),
        (
            "card",
            KINDS,
            "1 at the kind of the card the decision is about (the drawn card, the jump-in card)",
        ),
    ];
    let mut out = [Section {
        name: "",
        offset: 0,
        len: 0,
        doc: "",
    }; 12];
    let mut off = 0;
    let mut i = 0;
    while i < 12 {
        out[i] = Section {
            name: spec[i].0,
            offset: off,
            len: spec[i].1,
            doc: spec[i].2,
        };
        off += spec[i].1;
        i += 1;
    }
    out
}

/// The sections of the feature vector, in order.
pub const SECTIONS: [Section; 12] = sections();

/// The length of the feature vector.
pub const OBS_LEN: usize = SECTIONS[11].offset + SECTIONS[11].len;

/// Classes of the known-cards section: red, yellow, green, blue, wild.
pub const KNOWN_CLASSES: usize = 5;
/// The length of the known-cards section ([`encode_known`]).
pub const KNOWN_LEN: usize = (MAX_PLAYERS - 1) * KNOWN_CLASSES;
/// The features of a network that also reads the known-cards section: the
/// [`OBS_LEN`] features, then [`KNOWN_LEN`] more.
pub const OBS_LEN_KNOWN: usize = OBS_LEN + KNOWN_LEN;

/// The known-cards section, after the [`OBS_LEN`] features: read only by a
/// network whose first layer takes [`OBS_LEN_KNOWN`] inputs, and given by the
/// Python environments under `encoding="known"`. For the seat `k` places after
/// the player in the direction of play (`k = 1..9`, zeros past the table),
/// the cards the player knows to be in that hand ([`Observation::known_in`]:
/// given there in a swap or a rotation, or seen there in a challenge, and
/// still there), counted by colour: red, yellow, green, blue, then wild.
/// Only what the seat was shown or saw happen.
pub fn encode_known(obs: &Observation, out: &mut [f32]) {
    let mut counts = [0u8; KNOWN_LEN];
    count_known(obs, &mut counts);
    write_known_counts(&counts, out);
}

/// Writes the counts of [`count_known`] into `out` (at least [`KNOWN_LEN`]
/// long) as [`encode_known`]'s values.
pub(crate) fn write_known_counts(counts: &[u8; KNOWN_LEN], out: &mut [f32]) {
    for (o, &c) in out[..KNOWN_LEN].iter_mut().zip(counts) {
        *o = c as f32;
    }
}

/// The counts of [`encode_known`], as bytes (a deck has at most 128
/// cards): what a stepper keeps of a decision when asked to
/// ([`Stepper::keep_known`](crate::engine::step::Stepper::keep_known)).
pub(crate) fn count_known(obs: &Observation, out: &mut [u8; KNOWN_LEN]) {
    out.fill(0);
    let d = &obs.rules().deck;
    let each = obs.known_in_each();
    for k in 1..obs.players() {
        let known = each[seat_at(obs, k)];
        if known.is_empty() {
            continue;
        }
        let o = &mut out[(k - 1) * KNOWN_CLASSES..k * KNOWN_CLASSES];
        for (c, v) in o[..4].iter_mut().enumerate() {
            *v = (known & d.color_mask[c]).len() as u8;
        }
        o[4] = (known & d.wild).len() as u8;
    }
}

fn offset(name: &str) -> usize {
    SECTIONS
        .iter()
        .find(|s| s.name == name)
        .map(|s| s.offset)
        .unwrap_or(0)
}

/// The kind number of card `c` from the deck's table (the hot path's
/// [`kind_index`]: one load).
#[inline(always)]
fn card_kind(d: &Deck, c: CardId) -> usize {
    d.kind_of[c as usize & 127] as usize
}

/// Calls `f` with each card of `set`, lowest first: the two 64-bit halves
/// one after the other (cheaper than [`CardSet::iter`]'s 128-bit steps in
/// the counting loops here).
#[inline(always)]
fn each_card(set: CardSet, mut f: impl FnMut(usize)) {
    let mut lo = set.0 as u64;
    let mut hi = (set.0 >> 64) as u64;
    while lo != 0 {
        f(lo.trailing_zeros() as usize);
        lo &= lo - 1;
    }
    while hi != 0 {
        f(64 + hi.trailing_zeros() as usize);
        hi &= hi - 1;
    }
}

/// Adds the cards of `set`, counted by kind, into `out` ([`KINDS`] long):
/// card by card for a few cards, by the deck's colour and face masks (one
/// popcount per kind) for many, such as a long discard pile.
#[inline]
fn count_kinds(d: &Deck, set: CardSet, out: &mut [f32]) {
    let out = &mut out[..KINDS];
    if set.len() <= 16 {
        each_card(set, |c| out[d.kind_of[c] as usize] += 1.0);
        return;
    }
    for col in 0..4 {
        let of_col = set & d.color_mask[col];
        if of_col.is_empty() {
            continue;
        }
        for f in 0..COLORED_FACES {
            out[col * COLORED_FACES + f] += (of_col & d.face_mask[f]).len() as f32;
        }
    }
    let wild = set & d.wild;
    if !wild.is_empty() {
        for f in COLORED_FACES..NUM_FACES {
            out[4 * COLORED_FACES + f - COLORED_FACES] += (wild & d.face_mask[f]).len() as f32;
        }
    }
}

/// Writes the features of `obs` for decision `kind` (about `card`, when it is
/// about one) into `out` (at least [`OBS_LEN`] long; every value is written).
pub fn encode(obs: &Observation, kind: DecisionKind, card: Option<CardId>, out: &mut [f32]) {
    let out = &mut out[..OBS_LEN];
    out.fill(0.0);
    write_features(obs, kind, card, out);
    let discard = offset("discard");
    count_kinds(&obs.rules().deck, obs.discard(), &mut out[discard..]);
}

/// As [`encode`], into a buffer that already holds features of the same
/// rule set whose discard pile was `*seen` (`None`: unknown): the `discard` section is updated by
/// the cards that came and went since (a play adds one), not counted anew,
/// and `*seen` becomes `obs`'s discard pile. The same values as [`encode`].
pub fn encode_update(
    obs: &Observation,
    kind: DecisionKind,
    card: Option<CardId>,
    out: &mut [f32],
    seen: &mut Option<CardSet>,
) {
    let out = &mut out[..OBS_LEN];
    let discard = offset("discard");
    out[..discard].fill(0.0);
    out[discard + KINDS..].fill(0.0);
    write_features(obs, kind, card, out);
    let d = &obs.rules().deck;
    let now = obs.discard();
    let section = &mut out[discard..discard + KINDS];
    match *seen {
        Some(before) if (before ^ now).len() <= 8 => {
            for c in (now - before).iter() {
                section[card_kind(d, c)] += 1.0;
            }
            for c in (before - now).iter() {
                section[card_kind(d, c)] -= 1.0;
            }
        }
        _ => {
            section.fill(0.0);
            count_kinds(d, now, section);
        }
    }
    *seen = Some(now);
}

/// The seat `k` places after the observer in the direction of play (`k =
/// 0`: the observer), the order of the `hand_sizes` and `totals` sections.
#[inline]
fn seat_at(obs: &Observation, k: usize) -> usize {
    let seat = if k == 0 {
        obs.seat()
    } else {
        obs.seat_after(k as u8)
    };
    seat as usize
}

/// Every section but `discard` into `out`, whose other sections are zero.
#[inline]
fn write_features(obs: &Observation, kind: DecisionKind, card: Option<CardId>, out: &mut [f32]) {
    let d = &obs.rules().deck;
    let n = obs.players();
    let [hand, top, color, direction, players, sizes, _discard, pile, pending, totals, decision, about] =
        SECTIONS.map(|s| s.offset);
    count_kinds(d, obs.hand(), &mut out[hand..]);
    out[top + card_kind(d, obs.top())] = 1.0;
    out[color + obs.color().index()] = 1.0;
    out[direction] = obs.direction() as f32;
    out[players + n - 2] = 1.0;
    let all_totals = obs.totals();
    for k in 0..n {
        let seat = seat_at(obs, k);
        out[sizes + k] = obs.hand_size(seat) as f32;
        out[totals + k] = all_totals[seat] as f32 / 100.0;
    }
    out[pile] = obs.draw_pile_len() as f32 / 10.0;
    out[pending] = obs.pending_draw() as f32;
    out[decision + kind as usize] = 1.0;
    if let Some(c) = card {
        out[about + card_kind(d, c)] = 1.0;
    }
    debug_assert_eq!(offset("card"), about);
}

/// Writes the features of a seat with no decision in hand (what it sees
/// while another seat decides, or at the end of a game): as [`encode`],
/// with the `decision` and `card` sections at zero.
pub fn encode_waiting(obs: &Observation, out: &mut [f32]) {
    encode(obs, DecisionKind::Play, None, out);
    let decision = offset("decision");
    out[decision..OBS_LEN].fill(0.0);
}

#[cfg(test)]
mod tests;
