//! Rule sets: decks as data plus every setting of the rule book
//! (docs/rules.md).
//!
//! A rule set is a TOML file (the four built-ins are embedded copies of the files
//! in `src/engine/rulesets/`). It lists the deck (card kinds, counts, effects), point
//! overrides and settings. [`Rules::build`] turns it into the masks and tables the
//! engine uses; the turn logic never looks at the file again.
//!
//! - `settings`: every setting and its default;
//! - `file`: rule-set files, the built-ins, `--set` and `--house`;
//! - `deck`: card effects and the deck's masks and tables.

mod deck;
mod file;
mod settings;

pub use deck::{Deck, Effect};
pub use file::{
    at_line, given_twice, key_before, line_and_key, overridden, plain_toml_message, read_bounded,
    read_text, setting_key, toml_error_text, without_overridden, DeckEntry, ReadFailure,
    RuleSetFile, RulesError, Unread, BUILTIN_NAMES, DATA_LIMIT,
};
pub use settings::{
    CustomEffect, Dealer, DrawnCard, Scoring, Settings, Stacking, StartWildColor, HOUSE_RULES,
};

use file::builtin_text;
use std::collections::BTreeMap;
use std::fmt;

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

    /// Whether this rule set is named after a built-in but is not its deck
    /// or scoring (a file that `rules show NAME` wrote and then edited): the
    /// deck (in order: the order numbers the cards) and the point overrides
    /// are compared, not the description. `false` for a name that is not a
    /// built-in's. Headers say so, since the name alone would not.
    pub fn differs_from_builtin_cards(&self) -> bool {
        let Some(base) =
            builtin_text(&self.name).and_then(|t| RuleSetFile::parse(t, &self.name).ok())
        else {
            return false;
        };
        self.file.points != base.points
            || serde_json::to_value(&self.file.deck).ok() != serde_json::to_value(&base.deck).ok()
    }

    /// The rule set's point overrides by card token: every card of the deck
    /// whose points the rule set's `[points]` table sets, by its token or by
    /// its face (`draw2` sets `red-draw2`, `yellow-draw2`, ...; a token's
    /// entry wins over its face's), with the points it scores. Empty when
    /// nothing is overridden (the built-in rule sets). What traces and the
    /// agent protocol's hello write, as TRACE.md's card tokens.
    pub fn point_overrides(&self) -> BTreeMap<String, u32> {
        let points = &self.file.points;
        let mut out = BTreeMap::new();
        if points.is_empty() {
            return out;
        }
        for kind in &self.deck.kinds {
            if let Some(p) = deck::points_set(points, kind) {
                out.insert(kind.to_string(), p);
            }
        }
        out
    }

    /// Loads a built-in rule set or a file.
    pub fn load(name_or_path: &str) -> Result<Rules, RulesError> {
        Rules::build(RuleSetFile::load(name_or_path)?)
    }

    /// A built-in rule set by name; panics only on a name not in [`BUILTIN_NAMES`].
    pub fn builtin(name: &str) -> Rules {
        Rules::load(name).expect("built-in rule set")
    }

    /// The cards a deal takes at `players` seats: every hand and the start
    /// card.
    fn cards_to_deal(&self, players: usize) -> usize {
        players * self.settings.hand_size as usize + 1
    }

    /// Whether some table can be dealt: a hand size that not even two
    /// players can be dealt fits no table, and every run refuses the rule
    /// set (where the player count is not known: `rules show`).
    pub fn check_dealable(&self) -> Result<(), RulesError> {
        let (hand, size, need) = (
            self.settings.hand_size as usize,
            self.deck.size,
            self.cards_to_deal(2),
        );
        if need > size {
            return Err(RulesError::Invalid(format!(
                "hand_size = {hand}: no table can be dealt from the '{}' deck of {size} cards (2 players need 2 x {hand} + 1 start card = {need}; hand size at most {} for 2 players)",
                self.name,
                size.saturating_sub(1) / 2
            )));
        }
        Ok(())
    }

    /// Checks that `players` can be dealt with this deck and these settings.
    pub fn check_players(&self, players: usize) -> Result<(), RulesError> {
        if !(2..=10).contains(&players) {
            return Err(RulesError::Invalid(format!(
                "{players} players is not supported (valid: 2 to 10)"
            )));
        }
        let need = self.cards_to_deal(players);
        if need > self.deck.size {
            let max_hand = (self.deck.size - 1) / players;
            // Hands of at least one card: a smaller deck seats fewer players.
            let hint = if self.deck.size < 3 {
                "too few cards for any table: 2 players with one card each need 3".to_string()
            } else if max_hand == 0 {
                format!(
                    "too few cards for {players} players: at most {} players with one card each",
                    (self.deck.size - 1).min(10)
                )
            } else {
                format!("hand size at most {max_hand} for {players} players")
            };
            return Err(RulesError::Invalid(format!(
                "{players} players x hand size {} + 1 start card = {need} cards, but the '{}' deck has {} ({hint})",
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
    // A match of `rounds` rounds that the safety bound would stop sooner is
    // not what was asked for: refused rather than cut short.
    if s.rounds > s.max_rounds {
        return bad(format!(
            "rounds = {} is past max_rounds = {} (unolab's bound on the rounds of a match, \
             which would stop it first): raise max_rounds with it (max_rounds = {})",
            s.rounds, s.max_rounds, s.rounds
        ));
    }
    // Quick play ends a match after its first round: more rounds asked for
    // would be ignored.
    if s.quick && s.rounds > 1 {
        return bad(format!(
            "quick = true ends a match after its first round, and rounds = {} asks for {} rounds: give one of them",
            s.rounds, s.rounds
        ));
    }
    // Nor is a target score reached by a match of one round: a target other
    // than the default (or none) asked for would be ignored too.
    let default_target = Settings::default().target;
    if s.quick && s.target != 0 && s.target != default_target {
        return bad(format!(
            "quick = true ends a match after its first round, and target = {} asks for a match to {} points: give one of them",
            s.target, s.target
        ));
    }
    let Ok(toml::Value::Table(t)) = toml::Value::try_from(s) else {
        return bad("the settings cannot be written as a TOML table".into());
    };
    for (name, _, _) in settings::NARROW {
        let v = t.get(name).and_then(toml::Value::as_integer);
        if let Some(why) = v.and_then(|v| settings::out_of_range(name, i128::from(v))) {
            return bad(why);
        }
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
    use crate::engine::cards::{CardSet, Color, Face};

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
    fn a_rule_file_that_is_not_text_is_malformed_and_a_folder_unreadable() {
        let dir = std::env::temp_dir().join(format!("unolab-rules-utf8-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("bytes.toml");
        std::fs::write(&file, b"name = \"\xff\"\n").unwrap();
        let path = file.to_str().unwrap();
        match RuleSetFile::load(path) {
            Err(RulesError::Malformed(p, why)) => {
                assert_eq!(p, path);
                assert!(why.starts_with("not UTF-8 text"), "{why}");
            }
            other => panic!("{other:?}"),
        }
        let folder = format!("{}/", dir.to_str().unwrap());
        assert!(matches!(
            RuleSetFile::load(&folder),
            Err(RulesError::Io(..))
        ));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn classic_points_follow_the_rule_book() {
        let d = Rules::builtin("classic").deck;
        assert_eq!(d.points(d.all), 4 * (9 * 2 * 5 + 3 * 2 * 20) + 8 * 50);
    }

    #[test]
    fn point_overrides_are_listed_by_card_token() {
        // A face's override is every card of that face, a token's wins over
        // its face's, and a rule set without overrides lists none.
        assert!(Rules::builtin("cars3").point_overrides().is_empty());
        let mut f = RuleSetFile::load("cars3").unwrap();
        f.points.insert("draw2".into(), 10);
        f.points.insert("red-draw2".into(), 12);
        f.points.insert("wild-swap".into(), 40);
        let o = Rules::build(f).unwrap().point_overrides();
        let want: BTreeMap<String, u32> = [
            ("blue-draw2", 10),
            ("green-draw2", 10),
            ("red-draw2", 12),
            ("wild-swap", 40),
            ("yellow-draw2", 10),
        ]
        .into_iter()
        .map(|(t, p)| (t.to_string(), p))
        .collect();
        assert_eq!(o, want);
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
        // A bare numeric or named house rule was read as `true`: "invalid
        // type: boolean `true`, expected u32".
        for (rule, default) in [
            ("uno_penalty", "2"),
            ("hand_size", "5"),
            ("custom_effect", "\"extra_turn\""),
        ] {
            let e = f.apply_house(rule).unwrap_err().to_string();
            let want = format!("house rule '{rule}' needs a value: {rule}=VALUE (in this rule set it is {default})");
            assert!(e.contains(&want), "{e}");
        }
        f.apply_house("uno_penalty=4").unwrap();
        assert_eq!(f.settings.uno_penalty, 4);
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
    fn huge_card_counts_are_refused_without_listing_the_cards() {
        // Found by fuzzing: every copy was listed before the deck size was
        // checked, so a count of 4 billion took minutes and 16 GB.
        let text = "name = \"big\"\n[[deck]]\nfaces = [\"wild\", \"7\"]\ncount = 4294967295\n";
        let f = RuleSetFile::parse(text, "big.toml").unwrap();
        let e = Rules::build(f).unwrap_err().to_string();
        assert_eq!(
            e,
            "the deck has 21474836475 cards; at most 128 are supported"
        );
        // The limit itself: 128 cards build, 129 do not.
        let mut f = RuleSetFile::load("classic").unwrap();
        f.deck[3].count = 24;
        assert_eq!(Rules::build(f.clone()).unwrap().deck.size, 128);
        f.deck[3].count = 25;
        let e = Rules::build(f).unwrap_err().to_string();
        assert_eq!(e, "the deck has 129 cards; at most 128 are supported");
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
