//! Every setting of the rule book with its default ([`Settings`]), the
//! setting types (stacking, scoring, dealer, the custom wild's effect) and
//! the names `--house` accepts.

use serde::{Deserialize, Serialize};

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

/// Who names the colour of a wild turned as the start card.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum StartWildColor {
    /// The player left of the dealer (the rule book).
    #[default]
    Player,
    /// A colour drawn at random by the table (RLCard's UNO).
    Random,
}

/// What happens to the card drawn for a turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum DrawnCard {
    /// The player may play it at once if it is playable (the rule book).
    #[default]
    Choice,
    /// As RLCard's UNO does it: a drawn wild (Wild Draw Four included) is
    /// played at once with a random colour and no other effect; a drawn card
    /// of the active colour is played at once with its effect; any other
    /// card is kept (even one matching the top card's number or symbol).
    Rlcard,
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

/// The whole-number settings whose valid values are narrower than their
/// type's: the name, the least and the most. One table for the check of a
/// resolved rule set and for the message of a value given out of range.
pub(crate) const NARROW: [(&str, u32, u32); 6] = [
    ("hand_size", 1, u32::MAX),
    ("max_turns", 1, u32::MAX),
    ("max_rounds", 1, u32::MAX),
    ("uno_penalty", 0, 100),
    ("wrong_card_penalty", 0, 100),
    ("ohana_fill_to", 0, 100),
];

/// Why `value` is not valid for the whole-number setting `name`, if
/// [`NARROW`] bounds it and the value is out of bounds:
/// `"hand_size = 0 is not valid (at least 1)"`, `"hand_size = 5000000000 is
/// not valid (valid: 1 to 4294967295)"`.
pub(crate) fn out_of_range(name: &str, value: i128) -> Option<String> {
    let &(_, least, most) = NARROW.iter().find(|(n, _, _)| *n == name)?;
    if (i128::from(least)..=i128::from(most)).contains(&value) {
        return None;
    }
    Some(if most == u32::MAX && value < i128::from(least) {
        format!("{name} = {value} is not valid (at least {least})")
    } else {
        format!("{name} = {value} is not valid (valid: {least} to {most})")
    })
}

/// serde's message for a value of the wrong type given to the whole-number
/// setting `name` ("expected a whole number from 0 to 4294967295", its
/// type's range) with the setting's own range when [`NARROW`] bounds it.
pub(crate) fn with_own_range(name: &str, message: String) -> String {
    match NARROW.iter().find(|(n, _, _)| *n == name) {
        Some((_, least, most)) => message.replace(
            "expected a whole number from 0 to 4294967295",
            &format!("expected a whole number from {least} to {most}"),
        ),
        None => message,
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
    // Readings of other implementations (RLCard's UNO; docs/rules.md 16).
    /// A start Draw Two makes the player left of the dealer lose the first
    /// turn too (false: it draws 2 and still plays first).
    pub start_draw2_skips: bool,
    /// Who names the colour of a start wild: "player" or "random".
    pub start_wild_color: StartWildColor,
    /// Wild Draw Four may be played only when no other card of the hand is
    /// playable (on top of its colour restriction).
    pub wd4_last_resort: bool,
    /// The card drawn for a turn: "choice" (the rule book) or "rlcard".
    pub drawn_card: DrawnCard,
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
            start_draw2_skips: true,
            start_wild_color: StartWildColor::Player,
            wd4_last_resort: false,
            drawn_card: DrawnCard::Choice,
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
    /// Why a match under these settings would have no end of its own (it
    /// would run to the round cap `max_rounds`): none of `target`, `rounds`
    /// or `quick` is set. Every way to play a match refuses it alike.
    pub fn match_end_fault(&self) -> Option<&'static str> {
        (self.target == 0 && self.rounds == 0 && !self.quick)
            .then_some("a match needs an end: set target > 0, rounds > 0 or quick = true")
    }

    /// The settings that only end a match (a round does not read them).
    pub const MATCH_ONLY: [&'static str; 4] = ["target", "rounds", "max_rounds", "quick"];

    /// These settings as a round reads them: those of [`Settings::MATCH_ONLY`]
    /// at their defaults.
    pub fn for_a_round(&self) -> Settings {
        let d = Settings::default();
        Settings {
            target: d.target,
            rounds: d.rounds,
            max_rounds: d.max_rounds,
            quick: d.quick,
            ..self.clone()
        }
    }

    /// Every setting name, in file order.
    pub fn names() -> Vec<String> {
        match toml::Value::try_from(Settings::default()) {
            Ok(toml::Value::Table(t)) => t.keys().cloned().collect(),
            _ => Vec::new(),
        }
    }
}
