//! Rule sets: decks as data plus every setting of docs/rules.md.
//!
//! A rule set is a TOML file (the four built-ins are embedded copies of the files
//! in `src/engine/rulesets/`). It lists the deck (card kinds, counts, effects), point
//! overrides and settings. [`Rules::build`] turns it into the masks and tables the
//! engine uses; the turn logic never looks at the file again.

use crate::engine::cards::{CardId, CardSet, Color, Face, Kind, NUM_FACES};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;

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

/// House rule: stacking of draw cards.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Stacking {
    #[default]
    Off,
    Same,
    Cross,
}

/// What Wild Custom does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum CustomEffect {
    #[default]
    ExtraTurn,
    None,
}

/// Scoring mode (docs/rules.md section 9).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Scoring {
    #[default]
    Winner,
    Penalty,
}

/// First dealer of a match: `"random"` or a seat number.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Dealer {
    #[default]
    Random,
    Seat(u8),
}

impl Serialize for Dealer {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Dealer::Random => s.serialize_str("random"),
            Dealer::Seat(n) => s.serialize_u64(*n as u64),
        }
    }
}

impl<'de> Deserialize<'de> for Dealer {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            N(i64),
            S(String),
        }
        match Raw::deserialize(d)? {
            Raw::S(s) if s == "random" => Ok(Dealer::Random),
            Raw::N(n) if (0..=255).contains(&n) => Ok(Dealer::Seat(n as u8)),
            _ => Err(serde::de::Error::custom(
                "dealer must be \"random\" or a seat number",
            )),
        }
    }
}

/// Every setting of docs/rules.md (section 14), by its name, with its default.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Settings {
    /// First dealer: "random" or a seat.
    pub dealer: Dealer,
    /// Cards dealt to each player.
    pub hand_size: u32,
    /// Whether a start card's effect fires (section 2).
    pub start_card_effects: bool,
    /// Drawing is allowed even when a card is playable.
    pub may_draw_when_playable: bool,
    /// A wild other than Wild Draw Four may be played while the hand holds a
    /// card matching the top card's colour, number or symbol; `false` allows
    /// it only when the hand holds none (seeds 000 and 002).
    pub wild_when_matching: bool,
    /// With two players Reverse acts as Skip.
    pub two_player_reverse_skips: bool,
    /// Downpour also makes the next player lose the turn.
    pub downpour_skips_next: bool,
    /// Wild Ohana fills hands up to this many cards.
    pub ohana_fill_to: u32,
    /// What Wild Custom does.
    pub custom_effect: CustomEffect,
    /// Cards drawn for a missed UNO call that is caught.
    pub uno_penalty: u32,
    /// Probability that a missed UNO call is caught.
    pub uno_catch_chance: f64,
    /// Cards drawn for an illegal action (seed 003's wrong-card sanction).
    pub wrong_card_penalty: u32,
    /// Stop with an error on an illegal action instead of the sanction.
    pub strict: bool,
    /// A round longer than this many turns ends as truncated.
    pub max_turns: u32,
    /// "winner" or "penalty".
    pub scoring: Scoring,
    /// Match ends when a total reaches this (0: no target).
    pub target: u32,
    /// Match ends after this many rounds (0: not set).
    pub rounds: u32,
    /// One round only: first out wins.
    pub quick: bool,
    /// Safety stop for matches (an extension of unolab, not in the rule book):
    /// a match that reaches this many rounds ends there.
    pub max_rounds: u32,
    /// House rule: "off", "same" or "cross".
    pub stacking: Stacking,
    /// House rule: draw until a playable card comes.
    pub draw_to_match: bool,
    /// House rule: a playable card must be played.
    pub force_play: bool,
    /// House rule: 7 swaps hands, 0 rotates hands.
    pub seven_o: bool,
    /// House rule: identical cards may be played out of turn.
    pub jump_in: bool,
    /// House rule: Wild Draw Four may be bluffed and challenged.
    pub bluff_challenge: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            dealer: Dealer::Random,
            hand_size: 7,
            start_card_effects: true,
            may_draw_when_playable: true,
            wild_when_matching: true,
            two_player_reverse_skips: true,
            downpour_skips_next: false,
            ohana_fill_to: 4,
            custom_effect: CustomEffect::ExtraTurn,
            uno_penalty: 2,
            uno_catch_chance: 1.0,
            wrong_card_penalty: 1,
            strict: false,
            max_turns: 10_000,
            scoring: Scoring::Winner,
            target: 500,
            rounds: 0,
            quick: false,
            max_rounds: 1_000,
            stacking: Stacking::Off,
            draw_to_match: false,
            force_play: false,
            seven_o: false,
            jump_in: false,
            bluff_challenge: false,
        }
    }
}

/// The names of the house rules (docs/rules.md section 12) accepted by `--house`.
pub const HOUSE_RULES: [&str; 10] = [
    "stacking",
    "draw_to_match",
    "force_play",
    "seven_o",
    "jump_in",
    "bluff_challenge",
    "uno_penalty",
    "uno_catch_chance",
    "hand_size",
    "custom_effect",
];

impl Settings {
    /// Every setting name, in file order.
    pub fn names() -> Vec<String> {
        match toml::Value::try_from(Settings::default()) {
            Ok(toml::Value::Table(t)) => t.keys().cloned().collect(),
            _ => Vec::new(),
        }
    }
}

/// One entry of a deck: some faces, in some colours, a number of copies each.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeckEntry {
    /// Face tokens: "0".."9", "skip", "reverse", "draw2", "wild", "wild-draw4", ...
    pub faces: Vec<String>,
    /// Copies per colour (per face for wilds).
    pub count: u32,
    /// Colours for coloured faces; all four when absent. Not allowed for wilds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub colors: Option<Vec<String>>,
    /// Effect of these cards; the face's own effect when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effect: Option<Effect>,
}

/// A rule-set file, as read and as printed by `unolab rules show`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RuleSetFile {
    pub name: String,
    #[serde(default)]
    pub description: String,
    /// Point overrides: card token ("wild-swap", "red-7") or face token ("draw2").
    #[serde(default)]
    pub points: BTreeMap<String, u32>,
    #[serde(default)]
    pub settings: Settings,
    pub deck: Vec<DeckEntry>,
}

/// Errors about rule sets and settings.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RulesError {
    #[error("unknown rule set '{0}' (valid: {list}, or a path to a .toml file)", list = BUILTIN_NAMES.join(", "))]
    UnknownRuleSet(String),
    #[error("cannot read rule-set file {0}: {1}")]
    Io(String, String),
    #[error("malformed rule-set file {0}: {1}")]
    Malformed(String, String),
    #[error("{0}")]
    Invalid(String),
}

/// The built-in rule sets, in listing order.
pub const BUILTIN_NAMES: [&str; 4] = ["classic", "h2o", "lilo-stitch", "cars3"];

fn builtin_text(name: &str) -> Option<&'static str> {
    match name {
        "classic" => Some(include_str!("rulesets/classic.toml")),
        "h2o" => Some(include_str!("rulesets/h2o.toml")),
        "lilo-stitch" => Some(include_str!("rulesets/lilo-stitch.toml")),
        "cars3" => Some(include_str!("rulesets/cars3.toml")),
        _ => None,
    }
}

impl RuleSetFile {
    /// Parses a rule-set file's text; `origin` names it in errors.
    pub fn parse(text: &str, origin: &str) -> Result<RuleSetFile, RulesError> {
        toml::from_str(text)
            .map_err(|e| RulesError::Malformed(origin.to_string(), one_line(&e.to_string())))
    }

    /// A built-in name or a path to a `.toml` file.
    pub fn load(name_or_path: &str) -> Result<RuleSetFile, RulesError> {
        if let Some(text) = builtin_text(name_or_path) {
            return RuleSetFile::parse(text, name_or_path);
        }
        let looks_like_path = name_or_path.ends_with(".toml")
            || name_or_path.contains('/')
            || name_or_path.contains('\\');
        if looks_like_path {
            let text = std::fs::read_to_string(Path::new(name_or_path))
                .map_err(|e| RulesError::Io(name_or_path.to_string(), e.to_string()))?;
            return RuleSetFile::parse(&text, name_or_path);
        }
        Err(RulesError::UnknownRuleSet(name_or_path.to_string()))
    }

    /// Loads a rule set and applies `--set key=value` and `--house a,b=c` items.
    pub fn resolve(
        name_or_path: &str,
        sets: &[String],
        house: &[String],
    ) -> Result<RuleSetFile, RulesError> {
        let mut f = RuleSetFile::load(name_or_path)?;
        for s in sets {
            f.apply_set(s)?;
        }
        for h in house {
            for item in h.split(',').filter(|i| !i.trim().is_empty()) {
                f.apply_house(item)?;
            }
        }
        Ok(f)
    }

    /// The fully resolved file (every setting written out), as TOML.
    pub fn to_toml(&self) -> String {
        toml::to_string(self).unwrap_or_default()
    }

    /// Applies `key=value` overrides to the settings (`--set`).
    pub fn apply_set(&mut self, assignment: &str) -> Result<(), RulesError> {
        let (key, value) = assignment.split_once('=').ok_or_else(|| {
            RulesError::Invalid(format!(
                "--set expects key=value, got '{assignment}' (settings: {})",
                Settings::names().join(", ")
            ))
        })?;
        self.apply_setting(key.trim(), value.trim())
    }

    /// Applies one house rule (`--house stacking=same,seven_o`): a bare name means `true`.
    pub fn apply_house(&mut self, item: &str) -> Result<(), RulesError> {
        let (key, value) = match item.split_once('=') {
            Some((k, v)) => (k.trim(), v.trim()),
            None => (item.trim(), "true"),
        };
        if !HOUSE_RULES.contains(&key) {
            if Settings::names().iter().any(|n| n == key) {
                return Err(RulesError::Invalid(format!(
                    "'{key}' is a setting, not a house rule: give it as --set {key}=VALUE (in an experiment file: set = [\"{key}=VALUE\"]; house rules: {})",
                    HOUSE_RULES.join(", ")
                )));
            }
            return Err(RulesError::Invalid(format!(
                "unknown house rule '{key}' (valid: {})",
                HOUSE_RULES.join(", ")
            )));
        }
        if key == "stacking" && value == "true" {
            return Err(RulesError::Invalid(
                "stacking needs a mode: stacking=same or stacking=cross".into(),
            ));
        }
        self.apply_setting(key, value)
    }

    fn apply_setting(&mut self, key: &str, value: &str) -> Result<(), RulesError> {
        let names = Settings::names();
        if !names.iter().any(|n| n == key) {
            return Err(RulesError::Invalid(format!(
                "unknown setting '{key}' (valid: {})",
                names.join(", ")
            )));
        }
        let parsed: toml::Value = match toml::from_str::<toml::Table>(&format!("v = {value}")) {
            Ok(mut t) => t.remove("v").unwrap_or(toml::Value::String(value.into())),
            Err(_) => toml::Value::String(value.to_string()),
        };
        let mut table = match toml::Value::try_from(&self.settings) {
            Ok(toml::Value::Table(t)) => t,
            _ => toml::Table::new(),
        };
        table.insert(key.to_string(), parsed);
        self.settings = toml::Value::Table(table)
            .try_into()
            .map_err(|e: toml::de::Error| {
                RulesError::Invalid(format!(
                    "invalid value '{value}' for setting '{key}': {}",
                    one_line(e.message())
                ))
            })?;
        Ok(())
    }
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

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

impl Deck {
    /// Builds the tables from a rule-set file's deck and point overrides.
    pub fn build(file: &RuleSetFile) -> Result<Deck, RulesError> {
        let mut kinds: Vec<(Kind, Effect)> = Vec::new();
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
                    for _ in 0..entry.count {
                        kinds.push((Kind::new(None, face), effect));
                    }
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
                        for _ in 0..entry.count {
                            kinds.push((Kind::new(Some(c), face), effect));
                        }
                    }
                }
            }
        }
        if kinds.len() > 128 {
            return Err(RulesError::Invalid(format!(
                "the deck has {} cards; at most 128 are supported",
                kinds.len()
            )));
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
            let token = kind.to_string();
            let pts = file
                .points
                .get(&token)
                .or_else(|| file.points.get(kind.face.token()))
                .copied()
                .unwrap_or(kind.face.default_points() as u32);
            deck.points_of[i] = pts.min(u16::MAX as u32) as u16;
            deck.face_mask[kind.face.index()].insert(id);
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
        if deck.returned_at_start == deck.all {
            return Err(RulesError::Invalid(
                "every card of the deck goes back at the start; no start card can be flipped"
                    .into(),
            ));
        }
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

/// A rule set ready for play: the resolved file, its settings and its deck tables.
#[derive(Clone, Debug)]
pub struct Rules {
    pub name: String,
    pub file: RuleSetFile,
    pub settings: Settings,
    pub deck: Deck,
}

impl Rules {
    /// Validates a file and builds its tables.
    pub fn build(file: RuleSetFile) -> Result<Rules, RulesError> {
        let deck = Deck::build(&file)?;
        validate_settings(&file.settings)?;
        Ok(Rules {
            name: file.name.clone(),
            settings: file.settings.clone(),
            file,
            deck,
        })
    }

    /// The settings that differ from the defaults of the rule set this one
    /// is named after (a built-in's own `[settings]`, else docs/rules.md's
    /// defaults), as `(name, value)` in the rule book's order: what `--set`
    /// and `--house` (or a file) changed.
    pub fn changed_settings(&self) -> Vec<(String, String)> {
        let base = builtin_text(&self.name)
            .and_then(|t| RuleSetFile::parse(t, &self.name).ok())
            .map(|f| f.settings)
            .unwrap_or_default();
        let (Ok(serde_json::Value::Object(now)), Ok(serde_json::Value::Object(was))) = (
            serde_json::to_value(&self.settings),
            serde_json::to_value(&base),
        ) else {
            return Vec::new();
        };
        now.into_iter()
            .filter(|(k, v)| was.get(k) != Some(v))
            .map(|(k, v)| {
                let v = match v {
                    serde_json::Value::String(s) => s,
                    other => other.to_string(),
                };
                (k, v)
            })
            .collect()
    }

    /// Loads a built-in rule set or a file.
    pub fn load(name_or_path: &str) -> Result<Rules, RulesError> {
        Rules::build(RuleSetFile::load(name_or_path)?)
    }

    /// A built-in rule set by name; panics only on a name not in [`BUILTIN_NAMES`].
    pub fn builtin(name: &str) -> Rules {
        Rules::load(name).expect("built-in rule set")
    }

    /// Checks that `players` can be dealt with this deck and these settings.
    pub fn check_players(&self, players: usize) -> Result<(), RulesError> {
        if !(2..=10).contains(&players) {
            return Err(RulesError::Invalid(format!(
                "{players} players is not supported (valid: 2 to 10)"
            )));
        }
        let need = players * self.settings.hand_size as usize + 1;
        if need > self.deck.size {
            let max_hand = (self.deck.size - 1) / players;
            return Err(RulesError::Invalid(format!(
                "{players} players x hand size {} + 1 start card = {need} cards, but the '{}' deck has {} (hand size at most {max_hand} for {players} players)",
                self.settings.hand_size, self.name, self.deck.size
            )));
        }
        if let Dealer::Seat(s) = self.settings.dealer {
            if s as usize >= players {
                return Err(RulesError::Invalid(format!(
                    "dealer = {s} is not a seat of a {players}-player table (valid: random or 0 to {})",
                    players - 1
                )));
            }
        }
        Ok(())
    }
}

fn validate_settings(s: &Settings) -> Result<(), RulesError> {
    let bad = |m: String| Err(RulesError::Invalid(m));
    if !(0.0..=1.0).contains(&s.uno_catch_chance) {
        return bad(format!(
            "uno_catch_chance = {} is not a probability (valid: 0.0 to 1.0)",
            s.uno_catch_chance
        ));
    }
    if s.hand_size == 0 {
        return bad("hand_size = 0 is not valid (at least 1)".into());
    }
    if s.max_turns == 0 {
        return bad("max_turns = 0 is not valid (at least 1)".into());
    }
    if s.max_rounds == 0 {
        return bad("max_rounds = 0 is not valid (at least 1)".into());
    }
    if s.uno_penalty > 100 || s.wrong_card_penalty > 100 || s.ohana_fill_to > 100 {
        return bad("uno_penalty, wrong_card_penalty and ohana_fill_to must be at most 100".into());
    }
    Ok(())
}

impl fmt::Display for Rules {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({} cards)", self.name, self.deck.size)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_decks_have_the_documented_sizes() {
        let expect = [
            ("classic", 108),
            ("h2o", 108),
            ("lilo-stitch", 112),
            ("cars3", 112),
        ];
        for (name, size) in expect {
            let r = Rules::builtin(name);
            assert_eq!(r.deck.size, size, "{name}");
            for c in Color::ALL {
                assert_eq!(r.deck.color_mask[c.index()].len(), 25, "{name} {c}");
            }
            assert_eq!(r.settings, Settings::default(), "{name} uses the defaults");
        }
        let h2o = Rules::builtin("h2o").deck;
        assert_eq!(h2o.wd4.len(), 2);
        assert_eq!(h2o.face_mask[Face::WildDownpour1.index()].len(), 1);
        assert_eq!(h2o.face_mask[Face::WildDownpour2.index()].len(), 1);
        let ls = Rules::builtin("lilo-stitch").deck;
        assert_eq!(ls.face_mask[Face::WildOhana.index()].len(), 4);
        let cars = Rules::builtin("cars3").deck;
        assert_eq!(cars.face_mask[Face::WildSwap.index()].len(), 1);
        assert_eq!(cars.face_mask[Face::WildCustom.index()].len(), 3);
    }

    #[test]
    fn classic_points_follow_the_rule_book() {
        let d = Rules::builtin("classic").deck;
        assert_eq!(d.points(d.all), 4 * (9 * 2 * 5 + 3 * 2 * 20) + 8 * 50);
    }

    #[test]
    fn points_of_a_set_equal_the_card_by_card_sum() {
        // Point overrides by card and by face make classes of their own.
        let mut f = RuleSetFile::load("cars3").unwrap();
        f.points.insert("red-7".into(), 33);
        f.points.insert("skip".into(), 21);
        let d = Deck::build(&f).unwrap();
        let mut x = 0x9e37_79b9_7f4a_7c15u128 | 1;
        for _ in 0..200 {
            x = x
                .wrapping_mul(0x2545_f491_4f6c_dd1d)
                .wrapping_add(0x1405_7b7e_f767_814f);
            let set = CardSet(x ^ (x >> 17)) & d.all;
            let by_card: u32 = set.iter().map(|c| d.points_of[c as usize] as u32).sum();
            assert_eq!(d.points(set), by_card);
        }
        let red7 = d.all_of("red-7".parse().unwrap());
        assert!(!red7.is_empty());
        assert_eq!(d.points(red7), 33 * red7.len());
    }

    #[test]
    fn set_and_house_overrides() {
        let mut f = RuleSetFile::load("classic").unwrap();
        f.apply_set("hand_size=5").unwrap();
        f.apply_set("scoring=penalty").unwrap();
        f.apply_set("dealer=2").unwrap();
        f.apply_house("stacking=cross").unwrap();
        f.apply_house("seven_o").unwrap();
        assert_eq!(f.settings.hand_size, 5);
        assert_eq!(f.settings.scoring, Scoring::Penalty);
        assert_eq!(f.settings.dealer, Dealer::Seat(2));
        assert_eq!(f.settings.stacking, Stacking::Cross);
        assert!(f.settings.seven_o);
        let e = f.apply_set("no_such=1").unwrap_err().to_string();
        assert!(
            e.contains("unknown setting 'no_such'") && e.contains("hand_size"),
            "{e}"
        );
        let e = f.apply_set("stacking=sideways").unwrap_err().to_string();
        assert!(e.contains("stacking"), "{e}");
        let e = f.apply_house("max_turns=5").unwrap_err().to_string();
        assert!(
            e.contains(
                "'max_turns' is a setting, not a house rule: give it as --set max_turns=VALUE"
            ),
            "{e}"
        );
    }

    #[test]
    fn wild_when_matching_is_a_setting_not_a_house_rule() {
        let mut f = RuleSetFile::load("h2o").unwrap();
        assert!(
            f.settings.wild_when_matching,
            "the rule book's reading is the default"
        );
        f.apply_set("wild_when_matching=false").unwrap();
        assert!(!f.settings.wild_when_matching);
        assert!(f.to_toml().contains("wild_when_matching = false"));
        let r = Rules::build(f.clone()).unwrap();
        assert_eq!(
            r.changed_settings(),
            vec![("wild_when_matching".to_string(), "false".to_string())]
        );
        let e = f
            .apply_set("wild_when_matching=maybe")
            .unwrap_err()
            .to_string();
        assert!(e.contains("wild_when_matching"), "{e}");
        let e = f
            .apply_house("wild_when_matching=false")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("'wild_when_matching' is a setting, not a house rule")
                && e.contains("--set wild_when_matching=VALUE"),
            "{e}"
        );
        let e = f.apply_house("no_such_rule").unwrap_err().to_string();
        assert!(e.contains("unknown house rule 'no_such_rule'"), "{e}");
        assert!(Settings::names().contains(&"wild_when_matching".to_string()));
    }

    #[test]
    fn resolved_file_round_trips() {
        for name in BUILTIN_NAMES {
            let f = RuleSetFile::load(name).unwrap();
            let back = RuleSetFile::parse(&f.to_toml(), "shown").unwrap();
            assert_eq!(back, f);
        }
    }

    #[test]
    fn impossible_deals_are_refused() {
        let r = Rules::builtin("classic");
        assert!(r.check_players(1).is_err());
        assert!(r.check_players(11).is_err());
        assert!(r.check_players(10).is_ok());
        let mut f = RuleSetFile::load("classic").unwrap();
        f.apply_set("hand_size=11").unwrap();
        let r = Rules::build(f).unwrap();
        assert!(r
            .check_players(10)
            .unwrap_err()
            .to_string()
            .contains("at most 10"));
    }
}
