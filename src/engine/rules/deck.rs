//! The deck as data and as tables: what each card does ([`Effect`]), and
//! [`Deck`], the masks and per-card tables built once per rule set that the
//! turn logic reads (playability, faces, points, identical cards).

use super::{RuleSetFile, RulesError};
use crate::engine::cards::{CardId, CardSet, Color, Face, Kind, NUM_FACES};
use serde::{Deserialize, Serialize};

/// What a card does when played. Chosen per deck entry in a rule-set file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Effect {
    /// A plain card (numbers).
    Number,
    Skip,
    Reverse,
    Draw2,
    /// A plain wild: colour named.
    Wild,
    WildDraw4,
    Downpour1,
    Downpour2,
    Ohana,
    Swap,
    /// Wild Custom: what it does is the `custom_effect` setting.
    Custom,
}

impl Effect {
    pub const ALL: [Effect; 11] = [
        Effect::Number,
        Effect::Skip,
        Effect::Reverse,
        Effect::Draw2,
        Effect::Wild,
        Effect::WildDraw4,
        Effect::Downpour1,
        Effect::Downpour2,
        Effect::Ohana,
        Effect::Swap,
        Effect::Custom,
    ];

    /// The effect a face has when the file names none.
    pub fn default_for(face: Face) -> Effect {
        match face {
            Face::Number(_) => Effect::Number,
            Face::Skip => Effect::Skip,
            Face::Reverse => Effect::Reverse,
            Face::Draw2 => Effect::Draw2,
            Face::Wild => Effect::Wild,
            Face::WildDraw4 => Effect::WildDraw4,
            Face::WildDownpour1 => Effect::Downpour1,
            Face::WildDownpour2 => Effect::Downpour2,
            Face::WildOhana => Effect::Ohana,
            Face::WildSwap => Effect::Swap,
            Face::WildCustom => Effect::Custom,
        }
    }

    /// True for effects that belong on a wild (colourless) card.
    pub fn is_wild(self) -> bool {
        !matches!(
            self,
            Effect::Number | Effect::Skip | Effect::Reverse | Effect::Draw2
        )
    }

    pub fn name(self) -> &'static str {
        match self {
            Effect::Number => "number",
            Effect::Skip => "skip",
            Effect::Reverse => "reverse",
            Effect::Draw2 => "draw2",
            Effect::Wild => "wild",
            Effect::WildDraw4 => "wild-draw4",
            Effect::Downpour1 => "downpour1",
            Effect::Downpour2 => "downpour2",
            Effect::Ohana => "ohana",
            Effect::Swap => "swap",
            Effect::Custom => "custom",
        }
    }
}

/// The most cards a deck may have (a hand is a `u128` mask).
pub const MAX_CARDS: usize = 128;

/// The deck of a rule set as tables and masks, built once.
#[derive(Clone, Debug)]
pub struct Deck {
    /// Number of physical cards.
    pub size: usize,
    /// Kind of each physical card.
    pub kinds: Vec<Kind>,
    /// Face index of each card (fixed array for the hot path).
    pub face_of: [u8; 128],
    /// Colour index of each card (4 for wilds).
    pub color_of: [u8; 128],
    /// Kind number of each card, as `encode::kind_index` numbers kinds
    /// (the same in every rule set): colour x 13 + face for a coloured
    /// card, 52 + face - 13 for a wild.
    pub kind_of: [u8; 128],
    /// Effect of each card.
    pub effect_of: [Effect; 128],
    /// Points of each card.
    pub points_of: [u16; 128],
    pub all: CardSet,
    /// Coloured cards of each colour (wilds excluded).
    pub color_mask: [CardSet; 4],
    /// Cards of each face.
    pub face_mask: [CardSet; NUM_FACES],
    /// Every colourless card.
    pub wild: CardSet,
    /// Cards whose effect is Wild Draw Four.
    pub wd4: CardSet,
    /// Cards whose effect is Draw Two.
    pub draw2: CardSet,
    /// Cards that go back into the pile when flipped at the start (Wild Draw Four, Downpour).
    pub returned_at_start: CardSet,
    /// For each coloured card: the cards of its colour (its `color_mask`).
    /// Empty for wilds. One load on the hot path instead of two.
    pub same_color: [CardSet; 128],
    /// For each coloured card: every card that may be played on it (its colour,
    /// its face, every wild). Empty for wilds, whose answer depends on the
    /// colour named.
    pub accept_on: [CardSet; 128],
    /// The cards of each non-zero point value, by value.
    pub point_classes: Vec<(u32, CardSet)>,
}

/// The points a rule set's `[points]` table gives the cards of `kind`: its
/// token's entry, else its face's (`draw2`), else none (the face's default
/// then applies).
pub(crate) fn points_set(
    points: &std::collections::BTreeMap<String, u16>,
    kind: &Kind,
) -> Option<u32> {
    points
        .get(&kind.to_string())
        .or_else(|| points.get(kind.face.token()))
        .map(|&p| p as u32)
}

impl Deck {
    /// Builds the tables from a rule-set file's deck and point overrides.
    pub fn build(file: &RuleSetFile) -> Result<Deck, RulesError> {
        let mut kinds: Vec<(Kind, Effect)> = Vec::new();
        // Cards of the entries so far: counted, and listed only up to the
        // limit (a count of 4 billion is an error, not 4 billion cards).
        let mut total: u64 = 0;
        let mut add = |kind: Kind, effect: Effect, count: u32| {
            total = total.saturating_add(count as u64);
            if total <= MAX_CARDS as u64 {
                kinds.extend(std::iter::repeat_n((kind, effect), count as usize));
            }
        };
        for (i, entry) in file.deck.iter().enumerate() {
            let where_ = format!("deck entry {}", i + 1);
            if entry.faces.is_empty() {
                return Err(RulesError::Invalid(format!("{where_}: faces is empty")));
            }
            for tok in &entry.faces {
                let face = Face::parse(tok).ok_or_else(|| {
                    RulesError::Invalid(format!(
                        "{where_}: unknown face '{tok}' (valid: {})",
                        Face::ALL.map(|f| f.token()).join(", ")
                    ))
                })?;
                let effect = entry.effect.unwrap_or(Effect::default_for(face));
                if effect.is_wild() != face.is_wild() {
                    return Err(RulesError::Invalid(format!(
                        "{where_}: effect '{}' does not fit face '{tok}' (wild effects need wild faces, coloured effects coloured faces)",
                        effect.name()
                    )));
                }
                if face.is_wild() {
                    if entry.colors.is_some() {
                        return Err(RulesError::Invalid(format!(
                            "{where_}: wild face '{tok}' takes no colours"
                        )));
                    }
                    add(Kind::new(None, face), effect, entry.count);
                } else {
                    let colors: Vec<Color> = match &entry.colors {
                        None => Color::ALL.to_vec(),
                        Some(list) => list
                            .iter()
                            .map(|c| c.parse::<Color>())
                            .collect::<Result<_, _>>()
                            .map_err(|e| RulesError::Invalid(format!("{where_}: {e}")))?,
                    };
                    for c in colors {
                        add(Kind::new(Some(c), face), effect, entry.count);
                    }
                }
            }
        }
        if total > MAX_CARDS as u64 {
            return Err(RulesError::Invalid(format!(
                "the deck has {total} cards; at most {MAX_CARDS} are supported"
            )));
        }
        // One token, one kind: cards of one colour and face with two effects
        // would look the same to every player (in an observation, a trace,
        // a program's messages), and a jump-in would take one for the other.
        for (i, (kind, effect)) in kinds.iter().enumerate() {
            if let Some((_, other)) = kinds[..i].iter().find(|(k, e)| k == kind && e != effect) {
                let own = |e: &Effect| {
                    Face::ALL
                        .into_iter()
                        .find(|f| Effect::default_for(*f) == *e)
                        .map_or(String::new(), |f| {
                            format!(", such as {} for {}", f.token(), e.name())
                        })
                };
                return Err(RulesError::Invalid(format!(
                    "the deck holds {kind} cards of two effects ({} and {}): no player could tell them apart; give one of them a face of its own{}",
                    other.name(),
                    effect.name(),
                    own(effect)
                )));
            }
        }
        if kinds.is_empty() {
            return Err(RulesError::Invalid("the deck is empty".into()));
        }
        for key in file.points.keys() {
            let ok = key.parse::<Kind>().is_ok() || Face::parse(key).is_some_and(|f| !f.is_wild());
            if !ok {
                return Err(RulesError::Invalid(format!(
                    "points: unknown card token '{key}' (use a card token like wild-swap or red-7, or a face like draw2)"
                )));
            }
        }
        let mut deck = Deck {
            size: kinds.len(),
            kinds: kinds.iter().map(|k| k.0).collect(),
            face_of: [0; 128],
            color_of: [4; 128],
            kind_of: [0; 128],
            effect_of: [Effect::Number; 128],
            points_of: [0; 128],
            all: CardSet::first_n(kinds.len()),
            color_mask: [CardSet::EMPTY; 4],
            face_mask: [CardSet::EMPTY; NUM_FACES],
            wild: CardSet::EMPTY,
            wd4: CardSet::EMPTY,
            draw2: CardSet::EMPTY,
            returned_at_start: CardSet::EMPTY,
            same_color: [CardSet::EMPTY; 128],
            accept_on: [CardSet::EMPTY; 128],
            point_classes: Vec::new(),
        };
        for (i, (kind, effect)) in kinds.iter().enumerate() {
            let id = i as CardId;
            deck.face_of[i] = kind.face.index() as u8;
            deck.effect_of[i] = *effect;
            let pts = points_set(&file.points, kind).unwrap_or(kind.face.default_points() as u32);
            // (a [points] value is a u16, and the faces' defaults are far below)
            deck.points_of[i] = pts as u16;
            deck.face_mask[kind.face.index()].insert(id);
            deck.kind_of[i] = match kind.color {
                Some(c) => c.index() * 13 + kind.face.index(),
                None => 52 + kind.face.index() - 13,
            } as u8;
            match kind.color {
                Some(c) => {
                    deck.color_of[i] = c.index() as u8;
                    deck.color_mask[c.index()].insert(id);
                }
                None => deck.wild.insert(id),
            }
            match effect {
                Effect::WildDraw4 => {
                    deck.wd4.insert(id);
                    deck.returned_at_start.insert(id);
                }
                Effect::Downpour1 | Effect::Downpour2 => deck.returned_at_start.insert(id),
                Effect::Draw2 => deck.draw2.insert(id),
                _ => {}
            }
        }
        for (i, (kind, _)) in kinds.iter().enumerate() {
            if let Some(c) = kind.color {
                deck.same_color[i] = deck.color_mask[c.index()];
                deck.accept_on[i] =
                    deck.color_mask[c.index()] | deck.face_mask[kind.face.index()] | deck.wild;
            }
        }
        for i in 0..deck.size {
            let pts = deck.points_of[i] as u32;
            if pts == 0 {
                continue;
            }
            match deck.point_classes.iter_mut().find(|(p, _)| *p == pts) {
                Some((_, mask)) => mask.insert(i as CardId),
                None => deck.point_classes.push((pts, CardSet::single(i as CardId))),
            }
        }
        deck.point_classes.sort_by_key(|&(p, _)| p);
        // A deck made only of cards that go back at the start is played:
        // no flip can succeed, so the first card turned stays as a plain
        // wild (`deal`), as with a draw pile left holding only those.
        Ok(deck)
    }

    /// The kind of a physical card.
    #[inline]
    pub fn kind(&self, c: CardId) -> Kind {
        self.kinds[c as usize]
    }

    /// The token of a physical card (`red-7`).
    pub fn token(&self, c: CardId) -> String {
        self.kinds[c as usize].to_string()
    }

    /// Colour of a card, `None` for wilds.
    #[inline(always)]
    pub fn color(&self, c: CardId) -> Option<Color> {
        let i = self.color_of[c as usize & 127];
        if i < 4 {
            Some(Color::from_index(i as usize))
        } else {
            None
        }
    }

    /// Cards identical to `c` in colour and face.
    #[inline]
    pub fn identical(&self, c: CardId) -> CardSet {
        let f = self.face_mask[self.face_of[c as usize] as usize];
        match self.color(c) {
            Some(col) => f & self.color_mask[col.index()],
            None => f & self.wild,
        }
    }

    /// Sum of the points of a set of cards.
    #[inline]
    pub fn points(&self, set: CardSet) -> u32 {
        // One mask per point value: no loop over the cards, whose length
        // varies from hand to hand.
        self.point_classes
            .iter()
            .map(|&(pts, mask)| pts * (set & mask).len())
            .sum()
    }

    /// All physical cards of a kind, from the masks (no loop).
    #[inline]
    pub fn kind_mask(&self, kind: Kind) -> CardSet {
        let f = self.face_mask[kind.face.index()];
        match kind.color {
            Some(col) => f & self.color_mask[col.index()],
            None => f & self.wild,
        }
    }

    /// All physical cards of a kind.
    pub fn all_of(&self, kind: Kind) -> CardSet {
        self.kinds
            .iter()
            .enumerate()
            .filter(|(_, k)| **k == kind)
            .map(|(i, _)| i as CardId)
            .collect()
    }
}
