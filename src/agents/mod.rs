//! Strategies: the decisions a player makes, seen through an [`Observation`].
//!
//! A strategy gets one call for every choice the rule book gives a player. Only
//! [`Strategy::choose_play`] is required; the rarer decisions have defaults.
//! Built-ins: `random`, `first`, and the parametric `heuristic` whose presets
//! (`points`, `color`, ...) are data files in `strategies/`.

pub mod external;
pub mod search;

use crate::engine::cards::{CardId, CardSet, Color};
use crate::engine::game::{below, MatchResult, Observation, Rng, RoundResult};
use crate::engine::rules::Effect;
use rand::Rng as _;
use serde::{Deserialize, Serialize};
use std::fmt;

/// A player's decisions. Implementations must be deterministic given the
/// observation and the generator they are handed.
pub trait Strategy: Send {
    /// The name reported in results.
    fn name(&self) -> &str;

    /// Picks a card of `playable` to play, or `None` to draw.
    fn choose_play(
        &mut self,
        obs: &Observation,
        playable: CardSet,
        rng: &mut Rng,
    ) -> Option<CardId>;

    /// Whether [`Strategy::choose_play`] is asked when no card is playable, so
    /// that drawing is the only legal action. Asked once per round. Returning
    /// false skips those calls (the player draws); the built-in strategies do,
    /// since they would only answer `None`.
    fn ask_without_choice(&self) -> bool {
        true
    }

    /// Whether to play the card just drawn (only asked when it is playable).
    fn play_drawn(&mut self, _obs: &Observation, _card: CardId, _rng: &mut Rng) -> bool {
        true
    }

    /// The colour to name for a wild: by default the colour held most.
    fn choose_color(&mut self, obs: &Observation, _rng: &mut Rng) -> Color {
        most_held_color(obs)
    }

    /// Whether to call UNO when a play leaves one card.
    fn call_uno(&mut self, _obs: &Observation, _rng: &mut Rng) -> bool {
        true
    }

    /// The opponent to swap hands with (Wild Swap, seven-o): by default the one
    /// holding the fewest cards (first in turn order on a tie).
    fn choose_target(&mut self, obs: &Observation, _rng: &mut Rng) -> u8 {
        fewest_cards_opponent(obs)
    }

    /// Answer a pending draw with one of `answers` (stacking), or `None` to draw it.
    fn answer_stack(
        &mut self,
        _obs: &Observation,
        answers: CardSet,
        _rng: &mut Rng,
    ) -> Option<CardId> {
        answers.first()
    }

    /// Whether to challenge the Wild Draw Four just played on this player.
    fn challenge(&mut self, _obs: &Observation, _rng: &mut Rng) -> bool {
        false
    }

    /// Whether to jump in with `card`, identical to the top card.
    fn jump_in(&mut self, _obs: &Observation, _card: CardId, _rng: &mut Rng) -> bool {
        true
    }

    /// Hears that a round was dealt and its start card turned (before any
    /// decision of the round, the start wild's colour included).
    fn round_start(&mut self, _obs: &Observation) {}

    /// Hears how a round ended (`obs` shows the hands as they ended).
    fn round_end(&mut self, _obs: &Observation, _result: &RoundResult) {}

    /// Hears how a match ended.
    fn match_end(&mut self, _obs: &Observation, _result: &MatchResult) {}

    /// A fatal fault (an external program that died, went silent or broke the
    /// protocol): the engine asks after every round and, when there is one,
    /// ends the match with an error naming the seat. A faulted strategy keeps
    /// answering with legal defaults so that the round can finish.
    fn fault(&mut self) -> Option<String> {
        None
    }
}

/// The colour of which the observer holds the most cards (first on a tie).
pub fn most_held_color(obs: &Observation) -> Color {
    let d = &obs.rules().deck;
    let hand = obs.hand();
    let mut best = Color::Red;
    let mut best_n = 0;
    for c in Color::ALL {
        let k = (hand & d.color_mask[c.index()]).len();
        if k > best_n {
            best = c;
            best_n = k;
        }
    }
    best
}

/// The opponent with the fewest cards, first in turn order on a tie.
pub fn fewest_cards_opponent(obs: &Observation) -> u8 {
    let mut best = obs.seat_after(1);
    for k in 2..obs.players() as u8 {
        let s = obs.seat_after(k);
        if obs.hand_size(s as usize) < obs.hand_size(best as usize) {
            best = s;
        }
    }
    best
}

/// Uniform over playable cards; draws only when none is playable; random colour,
/// random target, random stack answer; challenges half the time.
#[derive(Debug, Clone, Default)]
pub struct RandomStrategy;

impl Strategy for RandomStrategy {
    fn name(&self) -> &str {
        "random"
    }
    fn ask_without_choice(&self) -> bool {
        false
    }
    #[inline]
    fn choose_play(&mut self, _: &Observation, playable: CardSet, rng: &mut Rng) -> Option<CardId> {
        let n = playable.len();
        if n == 0 {
            return None;
        }
        playable.nth_small(below(rng, n))
    }
    fn choose_color(&mut self, _: &Observation, rng: &mut Rng) -> Color {
        Color::from_index(below(rng, 4) as usize)
    }
    fn choose_target(&mut self, obs: &Observation, rng: &mut Rng) -> u8 {
        obs.seat_after(1 + below(rng, obs.players() as u32 - 1) as u8)
    }
    fn answer_stack(&mut self, _: &Observation, answers: CardSet, rng: &mut Rng) -> Option<CardId> {
        answers.nth(below(rng, answers.len()))
    }
    fn challenge(&mut self, _: &Observation, rng: &mut Rng) -> bool {
        rng.random::<bool>()
    }
}

/// Plays the first playable card in the deck's fixed card order; names the
/// colour held most.
#[derive(Debug, Clone, Default)]
pub struct FirstStrategy;

impl Strategy for FirstStrategy {
    fn name(&self) -> &str {
        "first"
    }
    fn ask_without_choice(&self) -> bool {
        false
    }
    fn choose_play(&mut self, _: &Observation, playable: CardSet, _: &mut Rng) -> Option<CardId> {
        playable.first()
    }
}

/// Parameters of the heuristic strategy. Each playable card gets a score; the
/// best is played (lowest card id on a tie).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HeuristicParams {
    /// Weight of the card's points (dump high points first).
    pub points_weight: f64,
    /// Weight of how many cards of the card's colour the hand keeps after it
    /// (stay in the colour you hold most of).
    pub color_weight: f64,
    /// Subtracted from wild cards (keep wilds for when nothing else plays).
    pub wild_penalty: f64,
    /// Draw instead of playing when only wilds are playable and the hand holds
    /// more than this many cards (0: never hold back).
    pub hold_wilds_above: u32,
    /// Probability of forgetting to call UNO.
    pub forget_uno: f64,
    /// Challenge a Wild Draw Four when the challenger holds at most this many cards.
    pub challenge_below: u32,
    /// Jump in when possible.
    pub jump_in: bool,
    /// Play a playable drawn card.
    pub play_drawn: bool,
    /// The next player counts as "low" when holding at most this many cards
    /// (0: never).
    pub attack_below: u32,
    /// Added to cards that stop or punish the next player (Skip, Draw Two, Wild
    /// Draw Four, Downpour, and Reverse with two players) while the next player
    /// is low.
    pub attack_weight: f64,
    /// Subtracted from draw cards (Draw Two, Wild Draw Four, Downpour) while the
    /// next player is not low: hold them for when an opponent is about to go out.
    pub save_draws: f64,
    /// Weight of how many cards of the card's colour are on the discard pile (a
    /// colour mostly played out is one the others are less likely to hold);
    /// for a wild, the colour it names.
    pub discard_color_weight: f64,
    /// When naming a colour: weight of its cards on the discard pile, added to
    /// the cards of it held (0: name the colour held most).
    pub name_discard_weight: f64,
}

impl Default for HeuristicParams {
    fn default() -> Self {
        HeuristicParams {
            points_weight: 1.0,
            color_weight: 0.0,
            wild_penalty: 0.0,
            hold_wilds_above: 0,
            forget_uno: 0.0,
            challenge_below: 0,
            jump_in: true,
            play_drawn: true,
            attack_below: 0,
            attack_weight: 0.0,
            save_draws: 0.0,
            discard_color_weight: 0.0,
            name_discard_weight: 0.0,
        }
    }
}

impl HeuristicParams {
    /// The colour a wild names: the colour held most, or with
    /// `name_discard_weight`, held plus weighted discarded (first on a tie).
    #[inline]
    pub fn named_color(&self, obs: &Observation) -> Color {
        if self.name_discard_weight == 0.0 {
            return most_held_color(obs);
        }
        let d = &obs.rules().deck;
        let hand = obs.hand();
        let pile = obs.discard();
        let mut best = Color::Red;
        let mut best_score = f64::NEG_INFINITY;
        for c in Color::ALL {
            let m = d.color_mask[c.index()];
            let score =
                (hand & m).len() as f64 + self.name_discard_weight * (pile & m).len() as f64;
            if score > best_score {
                best = c;
                best_score = score;
            }
        }
        best
    }
}

/// A scored, parametric strategy (see [`HeuristicParams`]).
#[derive(Debug, Clone)]
pub struct Heuristic {
    pub name: String,
    pub params: HeuristicParams,
}

impl Strategy for Heuristic {
    fn name(&self) -> &str {
        &self.name
    }
    fn ask_without_choice(&self) -> bool {
        false
    }
    #[inline(never)]
    fn choose_play(&mut self, obs: &Observation, playable: CardSet, _: &mut Rng) -> Option<CardId> {
        let d = &obs.rules().deck;
        let p = &self.params;
        let hand = obs.hand();
        if playable.is_empty() {
            return None;
        }
        if p.hold_wilds_above > 0
            && (playable - d.wild).is_empty()
            && hand.len() > p.hold_wilds_above
            && obs.settings().may_draw_when_playable
            && !obs.settings().force_play
        {
            return None;
        }
        // A wild keeps the colour it names.
        let named = p.named_color(obs);
        let wild_keep = (hand & d.color_mask[named.index()]).len() as f64;
        if p.attack_weight != 0.0 || p.save_draws != 0.0 || p.discard_color_weight != 0.0 {
            return extended_choice(p, obs, playable, named, wild_keep);
        }
        // The scoring of the hand-written presets: points and colour kept.
        let mut best = None;
        let mut best_score = f64::NEG_INFINITY;
        for c in playable.iter() {
            let mut score = p.points_weight * d.points_of[c as usize] as f64;
            match d.color(c) {
                Some(col) => {
                    let keep = (hand & d.color_mask[col.index()]).len() as f64 - 1.0;
                    score += p.color_weight * keep;
                }
                None => score += p.color_weight * wild_keep - p.wild_penalty,
            }
            if score > best_score {
                best_score = score;
                best = Some(c);
            }
        }
        best
    }
    fn play_drawn(&mut self, _: &Observation, _: CardId, _: &mut Rng) -> bool {
        self.params.play_drawn
    }
    fn choose_color(&mut self, obs: &Observation, _: &mut Rng) -> Color {
        self.params.named_color(obs)
    }
    fn call_uno(&mut self, _: &Observation, rng: &mut Rng) -> bool {
        self.params.forget_uno <= 0.0 || rng.random::<f64>() >= self.params.forget_uno
    }
    fn challenge(&mut self, obs: &Observation, _: &mut Rng) -> bool {
        obs.hand().len() <= self.params.challenge_below
    }
    fn jump_in(&mut self, _: &Observation, _: CardId, _: &mut Rng) -> bool {
        self.params.jump_in
    }
}

/// The heuristic's choice with the situational terms: the next player's hand
/// size (attack when low, hold draw cards otherwise) and the discard pile's
/// colour counts. Kept out of [`Heuristic::choose_play`] so that the presets
/// without these terms run the shorter loop.
#[inline(never)]
fn extended_choice(
    p: &HeuristicParams,
    obs: &Observation,
    playable: CardSet,
    named: Color,
    wild_keep: f64,
) -> Option<CardId> {
    let d = &obs.rules().deck;
    let hand = obs.hand();
    let situational = p.attack_weight != 0.0 || p.save_draws != 0.0;
    let low =
        p.attack_below > 0 && obs.hand_size(obs.seat_after(1) as usize) <= p.attack_below as usize;
    let two = obs.players() == 2;
    let pile = obs.discard();
    let mut best = None;
    let mut best_score = f64::NEG_INFINITY;
    for c in playable.iter() {
        let mut score = p.points_weight * d.points_of[c as usize] as f64;
        let col = d.color(c);
        match col {
            Some(col) => {
                let keep = (hand & d.color_mask[col.index()]).len() as f64 - 1.0;
                score += p.color_weight * keep;
            }
            None => score += p.color_weight * wild_keep - p.wild_penalty,
        }
        if situational {
            let (attack, draw) = match d.effect_of[c as usize] {
                Effect::Skip => (true, false),
                Effect::Reverse => (two, false),
                Effect::Draw2 | Effect::WildDraw4 | Effect::Downpour1 | Effect::Downpour2 => {
                    (true, true)
                }
                _ => (false, false),
            };
            if low {
                if attack {
                    score += p.attack_weight;
                }
            } else if draw {
                score -= p.save_draws;
            }
        }
        if p.discard_color_weight != 0.0 {
            let m = d.color_mask[col.unwrap_or(named).index()];
            score += p.discard_color_weight * (pile & m).len() as f64;
        }
        if score > best_score {
            best_score = score;
            best = Some(c);
        }
    }
    best
}

/// The strategy at a seat. The built-in strategies are called directly (a
/// `match`, which the compiler can inline); any other strategy is called
/// through `dyn Strategy`. `Seat` implements [`Strategy`] by forwarding.
pub enum Seat {
    Random(RandomStrategy),
    First(FirstStrategy),
    Heuristic(Heuristic),
    Custom(Box<dyn Strategy>),
}

impl Seat {
    /// A seat for any strategy type (called through `dyn Strategy`).
    pub fn custom(s: impl Strategy + 'static) -> Seat {
        Seat::Custom(Box::new(s))
    }
}

impl From<Box<dyn Strategy>> for Seat {
    fn from(s: Box<dyn Strategy>) -> Seat {
        Seat::Custom(s)
    }
}

/// Forwards a call to the strategy in the seat.
macro_rules! forward {
    ($self:ident, $s:ident => $call:expr) => {
        match $self {
            Seat::Random($s) => $call,
            Seat::First($s) => $call,
            Seat::Heuristic($s) => $call,
            Seat::Custom($s) => $call,
        }
    };
}

impl Strategy for Seat {
    fn name(&self) -> &str {
        forward!(self, s => s.name())
    }
    #[inline]
    fn ask_without_choice(&self) -> bool {
        forward!(self, s => s.ask_without_choice())
    }
    #[inline(always)]
    fn choose_play(
        &mut self,
        obs: &Observation,
        playable: CardSet,
        rng: &mut Rng,
    ) -> Option<CardId> {
        forward!(self, s => s.choose_play(obs, playable, rng))
    }
    #[inline(always)]
    fn play_drawn(&mut self, obs: &Observation, card: CardId, rng: &mut Rng) -> bool {
        forward!(self, s => s.play_drawn(obs, card, rng))
    }
    fn choose_color(&mut self, obs: &Observation, rng: &mut Rng) -> Color {
        forward!(self, s => s.choose_color(obs, rng))
    }
    #[inline(always)]
    fn call_uno(&mut self, obs: &Observation, rng: &mut Rng) -> bool {
        forward!(self, s => s.call_uno(obs, rng))
    }
    fn choose_target(&mut self, obs: &Observation, rng: &mut Rng) -> u8 {
        forward!(self, s => s.choose_target(obs, rng))
    }
    fn answer_stack(
        &mut self,
        obs: &Observation,
        answers: CardSet,
        rng: &mut Rng,
    ) -> Option<CardId> {
        forward!(self, s => s.answer_stack(obs, answers, rng))
    }
    fn challenge(&mut self, obs: &Observation, rng: &mut Rng) -> bool {
        forward!(self, s => s.challenge(obs, rng))
    }
    fn jump_in(&mut self, obs: &Observation, card: CardId, rng: &mut Rng) -> bool {
        forward!(self, s => s.jump_in(obs, card, rng))
    }
    // The notices and the fault concern only custom strategies: the built-ins
    // hear nothing and never fail.
    #[inline]
    fn round_start(&mut self, obs: &Observation) {
        if let Seat::Custom(s) = self {
            s.round_start(obs)
        }
    }
    #[inline]
    fn round_end(&mut self, obs: &Observation, result: &RoundResult) {
        if let Seat::Custom(s) = self {
            s.round_end(obs, result)
        }
    }
    #[inline]
    fn match_end(&mut self, obs: &Observation, result: &MatchResult) {
        if let Seat::Custom(s) = self {
            s.match_end(obs, result)
        }
    }
    #[inline]
    fn fault(&mut self) -> Option<String> {
        match self {
            Seat::Custom(s) => s.fault(),
            _ => None,
        }
    }
}

/// A strategy preset file (`strategies/*.toml`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PresetFile {
    pub name: String,
    #[serde(default)]
    pub description: String,
    /// The implementation: `heuristic` (the only parametric one), `random`,
    /// `first`, or a search agent: `pimc`, `ismcts`.
    pub base: String,
    #[serde(default)]
    pub params: HeuristicParams,
    /// `base = "external"`: the program and its arguments (docs/protocol.md).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub command: Vec<String>,
    /// `base = "external"`: the time limit for each answer, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
    /// The parameters of a search agent (`base = "pimc"` or `"ismcts"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub search: Option<search::SearchParams>,
}

/// A validated strategy description that can make fresh instances (one per
/// seat per worker). Cheap to clone and shareable across threads.
#[derive(Clone, PartialEq)]
pub enum StrategySpec {
    Random,
    First,
    Heuristic {
        name: String,
        params: HeuristicParams,
    },
    /// A preset file of a parameterless strategy (`base = "random"` or
    /// `"first"`) under its own name.
    Renamed {
        name: String,
        inner: Box<StrategySpec>,
    },
    /// A program speaking the protocol of docs/protocol.md.
    External {
        name: String,
        command: Vec<String>,
        timeout_ms: u64,
    },
    /// A search agent (`pimc`, `ismcts`), with its validated parameters.
    Search(Box<search::SearchConfig>),
}

impl fmt::Debug for StrategySpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StrategySpec::Random => f.write_str("random"),
            StrategySpec::First => f.write_str("first"),
            StrategySpec::Heuristic { name, params } => write!(f, "{name} {params:?}"),
            StrategySpec::Renamed { name, inner } => write!(f, "{name} ({inner:?})"),
            StrategySpec::External {
                name,
                command,
                timeout_ms,
            } => write!(f, "{name} external {command:?} timeout_ms {timeout_ms}"),
            StrategySpec::Search(c) => write!(f, "{} {:?} {:?}", c.name, c.kind, c.params),
        }
    }
}

/// Errors about strategy names and preset files.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum StrategyError {
    #[error("unknown strategy '{0}' (valid: {list}, a path to a preset .toml file, or ext:COMMAND)", list = builtin_names().join(", "))]
    Unknown(String),
    #[error("cannot read strategy file {0}: {1}")]
    Io(String, String),
    #[error("malformed strategy file {0}: {1}")]
    Malformed(String, String),
    #[error("invalid strategy {0}: {1}")]
    Invalid(String, String),
}

/// The presets shipped in `strategies/`, embedded in the binary.
const PRESETS: [(&str, &str); 9] = [
    ("points", include_str!("../../strategies/points.toml")),
    ("color", include_str!("../../strategies/color.toml")),
    ("cautious", include_str!("../../strategies/cautious.toml")),
    ("forgetful", include_str!("../../strategies/forgetful.toml")),
    ("pimc-100", include_str!("../../strategies/pimc-100.toml")),
    ("pimc-400", include_str!("../../strategies/pimc-400.toml")),
    ("pimc-1k", include_str!("../../strategies/pimc-1k.toml")),
    ("ismcts-1k", include_str!("../../strategies/ismcts-1k.toml")),
    ("tuned", include_str!("../../strategies/tuned.toml")),
];

/// One line of the strategy catalogue (`unolab strategies`).
#[derive(Debug, Clone, PartialEq)]
pub struct CatalogEntry {
    pub name: String,
    pub base: String,
    pub description: String,
    /// `key = value` for each parameter (empty for parameterless ones).
    pub params: Vec<(String, String)>,
}

/// Every built-in strategy with its base, description and parameters.
pub fn catalog() -> Vec<CatalogEntry> {
    let mut v = vec![
        CatalogEntry {
            name: "random".into(),
            base: "random".into(),
            description: "uniform over the playable cards; random colour, target and stack answer"
                .into(),
            params: vec![],
        },
        CatalogEntry {
            name: "first".into(),
            base: "first".into(),
            description: "the first playable card in the deck's card order".into(),
            params: vec![],
        },
    ];
    for (name, text) in PRESETS {
        // The embedded presets are checked by a unit test.
        let Ok(f) = toml::from_str::<PresetFile>(text) else {
            continue;
        };
        let params = match match &f.search {
            Some(p) => serde_json::to_value(p),
            None => serde_json::to_value(&f.params),
        } {
            Ok(serde_json::Value::Object(m)) => {
                m.into_iter().map(|(k, v)| (k, v.to_string())).collect()
            }
            _ => vec![],
        };
        v.push(CatalogEntry {
            name: name.to_string(),
            base: f.base,
            description: f.description,
            params,
        });
    }
    v
}

/// Every built-in strategy name.
pub fn builtin_names() -> Vec<&'static str> {
    let mut v = vec!["random", "first"];
    v.extend(PRESETS.iter().map(|p| p.0));
    v
}

impl StrategySpec {
    /// A built-in name (`random`, `first`, a preset) or a path to a preset file.
    pub fn load(name_or_path: &str) -> Result<StrategySpec, StrategyError> {
        StrategySpec::load_with(name_or_path, true)
    }

    /// As [`StrategySpec::load`]; search agents only when `allow_search` (a
    /// rollout policy must not be one, which also rules out a preset that
    /// names itself).
    fn load_with(name_or_path: &str, allow_search: bool) -> Result<StrategySpec, StrategyError> {
        match name_or_path {
            "random" => return Ok(StrategySpec::Random),
            "first" => return Ok(StrategySpec::First),
            _ => {}
        }
        if let Some(command) = name_or_path.strip_prefix("ext:") {
            return StrategySpec::external_short(command);
        }
        if let Some((_, text)) = PRESETS.iter().find(|p| p.0 == name_or_path) {
            return StrategySpec::parse_with(text, name_or_path, allow_search);
        }
        if name_or_path.ends_with(".toml") || name_or_path.contains('/') {
            let text = std::fs::read_to_string(name_or_path)
                .map_err(|e| StrategyError::Io(name_or_path.into(), e.to_string()))?;
            return StrategySpec::parse_with(&text, name_or_path, allow_search);
        }
        Err(StrategyError::Unknown(name_or_path.to_string()))
    }

    /// Parses and validates a preset file.
    pub fn parse(text: &str, origin: &str) -> Result<StrategySpec, StrategyError> {
        StrategySpec::parse_with(text, origin, true)
    }

    fn parse_with(
        text: &str,
        origin: &str,
        allow_search: bool,
    ) -> Result<StrategySpec, StrategyError> {
        let f: PresetFile = toml::from_str(text).map_err(|e| {
            StrategyError::Malformed(
                origin.into(),
                e.to_string()
                    .split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" "),
            )
        })?;
        f.validate()
            .map_err(|m| StrategyError::Invalid(origin.into(), m))?;
        if let Some(kind) = search::SearchKind::parse(&f.base) {
            if !allow_search {
                return Err(StrategyError::Invalid(
                    origin.into(),
                    format!(
                        "'{}' is a search agent; a rollout policy must be a heuristic preset, random or first",
                        f.name
                    ),
                ));
            }
            let cfg = search::SearchConfig::new(&f.name, kind, f.search.unwrap_or_default())
                .map_err(|m| StrategyError::Invalid(origin.into(), m))?;
            return Ok(StrategySpec::Search(Box::new(cfg)));
        }
        let base = match f.base.as_str() {
            "random" => StrategySpec::Random,
            "first" => StrategySpec::First,
            "external" => {
                external::check_command(&f.command)
                    .map_err(|m| StrategyError::Invalid(origin.into(), m))?;
                return Ok(StrategySpec::External {
                    name: f.name,
                    command: f.command,
                    timeout_ms: f.timeout_ms.unwrap_or(external::DEFAULT_TIMEOUT_MS),
                });
            }
            _ => {
                return Ok(StrategySpec::Heuristic {
                    name: f.name,
                    params: f.params,
                })
            }
        };
        // A preset of a parameterless strategy keeps its own name.
        Ok(if f.name == base.name() {
            base
        } else {
            StrategySpec::Renamed {
                name: f.name,
                inner: Box::new(base),
            }
        })
    }

    /// The implementation behind the name: `random`, `first`, `heuristic`.
    pub fn base(&self) -> &str {
        match self {
            StrategySpec::Random => "random",
            StrategySpec::First => "first",
            StrategySpec::Heuristic { .. } => "heuristic",
            StrategySpec::Renamed { inner, .. } => inner.base(),
            StrategySpec::External { .. } => "external",
            StrategySpec::Search(c) => match c.kind {
                search::SearchKind::Pimc => "pimc",
                search::SearchKind::Ismcts => "ismcts",
            },
        }
    }

    /// The parameters as data (an empty object for parameterless strategies).
    pub fn params_json(&self) -> serde_json::Value {
        match self {
            StrategySpec::Heuristic { params, .. } => {
                serde_json::to_value(params).unwrap_or(serde_json::Value::Null)
            }
            StrategySpec::Renamed { inner, .. } => inner.params_json(),
            StrategySpec::Search(c) => {
                serde_json::to_value(&c.params).unwrap_or(serde_json::Value::Null)
            }
            _ => serde_json::json!({}),
        }
    }

    /// Name, base and parameters as one JSON object (manifests): enough to
    /// write the preset file again.
    pub fn to_json(&self) -> serde_json::Value {
        let mut v = serde_json::json!({
            "name": self.name(),
            "base": self.base(),
            "params": self.params_json(),
        });
        if let StrategySpec::External {
            command,
            timeout_ms,
            ..
        } = self
        {
            v["command"] = serde_json::json!(command);
            v["timeout_ms"] = serde_json::json!(timeout_ms);
        }
        v
    }

    /// The short form `ext:COMMAND` or `ext:NAME=COMMAND`: the command's words
    /// are separated by spaces (no quoting, no commas); without a name, the
    /// name is the file stem of the last word that looks like a path (holds a
    /// `/` or a `.`), else of the program (`ext:python3 bots/simple.py` is
    /// `simple`); the time limit is [`external::DEFAULT_TIMEOUT_MS`].
    fn external_short(text: &str) -> Result<StrategySpec, StrategyError> {
        let origin = format!("ext:{text}");
        let first = text.split_whitespace().next().unwrap_or_default();
        let (name, command) = match first.split_once('=') {
            Some((name, _)) => (
                Some(name.to_string()),
                &text[text.find('=').unwrap_or(0) + 1..],
            ),
            None => (None, text),
        };
        let words: Vec<String> = command.split_whitespace().map(String::from).collect();
        external::check_command(&words).map_err(|m| StrategyError::Invalid(origin.clone(), m))?;
        let name = name.unwrap_or_else(|| {
            let w = words
                .iter()
                .rev()
                .find(|w| w.contains('/') || w.contains('.'))
                .unwrap_or(&words[0]);
            std::path::Path::new(w)
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| w.clone())
        });
        if name.is_empty() || name.contains(char::is_whitespace) {
            return Err(StrategyError::Invalid(
                origin,
                format!("name '{name}' must be non-empty, without spaces"),
            ));
        }
        Ok(StrategySpec::External {
            name,
            command: words,
            timeout_ms: external::DEFAULT_TIMEOUT_MS,
        })
    }

    /// Whether the strategy is an external program.
    pub fn is_external(&self) -> bool {
        matches!(self, StrategySpec::External { .. })
    }

    /// The name reported in results.
    pub fn name(&self) -> &str {
        match self {
            StrategySpec::Random => "random",
            StrategySpec::First => "first",
            StrategySpec::Heuristic { name, .. } => name,
            StrategySpec::Renamed { name, .. } => name,
            StrategySpec::External { name, .. } => name,
            StrategySpec::Search(c) => &c.name,
        }
    }

    /// A fresh instance.
    pub fn instantiate(&self) -> Seat {
        match self {
            StrategySpec::Random => Seat::Random(RandomStrategy),
            StrategySpec::First => Seat::First(FirstStrategy),
            StrategySpec::Heuristic { name, params } => Seat::Heuristic(Heuristic {
                name: name.clone(),
                params: params.clone(),
            }),
            StrategySpec::Renamed { inner, .. } => inner.instantiate(),
            StrategySpec::External {
                name,
                command,
                timeout_ms,
            } => Seat::custom(external::External::new(name, command, *timeout_ms)),
            StrategySpec::Search(c) => Seat::custom(search::SearchAgent::new((**c).clone())),
        }
    }
}

impl PresetFile {
    /// Checks names and parameter ranges.
    pub fn validate(&self) -> Result<(), String> {
        if self.name.is_empty()
            || self.name.contains(',')
            || self.name.contains(char::is_whitespace)
        {
            return Err(format!(
                "name '{}' must be non-empty, without commas or spaces",
                self.name
            ));
        }
        if !["heuristic", "random", "first", "external", "pimc", "ismcts"]
            .contains(&self.base.as_str())
        {
            return Err(format!(
                "base '{}' is unknown (valid: heuristic, random, first, external, pimc, ismcts)",
                self.base
            ));
        }
        let searching = search::SearchKind::parse(&self.base).is_some();
        if self.search.is_some() && !searching {
            return Err(format!(
                "a [search] table needs base = \"pimc\" or \"ismcts\" (base is '{}')",
                self.base
            ));
        }
        if searching && self.params != HeuristicParams::default() {
            return Err(format!(
                "base '{}' takes a [search] table, not [params]",
                self.base
            ));
        }
        if (self.base == "external") == self.command.is_empty() {
            return Err("command = [\"program\", \"arg\", ...] is required with base = \"external\" and only there".into());
        }
        if self.timeout_ms == Some(0) {
            return Err("timeout_ms must be at least 1".into());
        }
        let p = &self.params;
        if !(0.0..=1.0).contains(&p.forget_uno) {
            return Err(format!(
                "forget_uno = {} is not a probability (0.0 to 1.0)",
                p.forget_uno
            ));
        }
        for (k, v) in [
            ("points_weight", p.points_weight),
            ("color_weight", p.color_weight),
            ("wild_penalty", p.wild_penalty),
            ("attack_weight", p.attack_weight),
            ("save_draws", p.save_draws),
            ("discard_color_weight", p.discard_color_weight),
            ("name_discard_weight", p.name_discard_weight),
        ] {
            if !v.is_finite() {
                return Err(format!("{k} must be a finite number"));
            }
        }
        Ok(())
    }
}

/// Parses a comma list of strategies.
pub fn parse_list(list: &str) -> Result<Vec<StrategySpec>, StrategyError> {
    list.split(',')
        .map(|s| StrategySpec::load(s.trim()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_loads_and_presets_validate() {
        for name in builtin_names() {
            let s = StrategySpec::load(name).unwrap();
            assert_eq!(s.name(), name);
            assert_eq!(s.instantiate().name(), name);
        }
        let e = StrategySpec::load("nope").unwrap_err().to_string();
        assert!(
            e.contains("unknown strategy 'nope'") && e.contains("random"),
            "{e}"
        );
    }

    #[test]
    fn bad_presets_are_refused() {
        let e = StrategySpec::parse(
            "name = \"x\"\nbase = \"heuristic\"\n[params]\nforget_uno = 2.0\n",
            "f",
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("forget_uno"), "{e}");
        let e = StrategySpec::parse(
            "name = \"x\"\nbase = \"heuristic\"\n[params]\nbogus = 1\n",
            "f",
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("bogus"), "{e}");
        let e = StrategySpec::parse("name = \"x\"\nbase = \"alphazero\"\n", "f")
            .unwrap_err()
            .to_string();
        assert!(e.contains("alphazero"), "{e}");
    }
}
