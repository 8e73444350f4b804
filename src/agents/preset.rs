//! The strategy preset file (`strategies/*.toml`): its fields and the
//! checks of names and parameter ranges it must pass before
//! [`super::StrategySpec`] makes a strategy of it.

use super::whole::some_whole;
use super::{net, search, HeuristicParams};
use serde::{Deserialize, Serialize};

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
    /// Written only when they differ from the defaults (so that a preset of
    /// a base without parameters, written back, has no `[params]` table).
    #[serde(default, skip_serializing_if = "params_are_default")]
    pub params: HeuristicParams,
    /// `base = "external"`: the program and its arguments (docs/protocol.md).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub command: Vec<String>,
    /// `base = "external"`: the time limit for each answer, in milliseconds.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "some_whole::<_, 1, { u64::MAX }>"
    )]
    pub timeout_ms: Option<u64>,
    /// The parameters of a search agent (`base = "pimc"` or `"ismcts"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub search: Option<search::SearchParams>,
    /// The weight file and temperature of a network (`base = "net"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub net: Option<net::NetParams>,
}

fn params_are_default(p: &HeuristicParams) -> bool {
    *p == HeuristicParams::default()
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
        if let Some(m) = unknown_base(&self.base) {
            return Err(m);
        }
        if (self.base == "net") != self.net.is_some() {
            return Err(
                "a [net] table (weights = \"FILE.safetensors\") is required with base = \"net\" and only there"
                    .into(),
            );
        }
        if let Some(n) = &self.net {
            if n.weights.is_empty() {
                return Err("[net] weights must name a file".into());
            }
            if !n.temperature.is_finite() || n.temperature < 0.0 {
                return Err(format!(
                    "[net] temperature = {} must be a finite number >= 0",
                    n.temperature
                ));
            }
        }
        if self.base == "net" && self.params != HeuristicParams::default() {
            return Err("base 'net' takes a [net] table, not [params]".into());
        }
        let searching = search::SearchKind::parse(&self.base).is_some();
        if self.search.is_some() && !searching {
            return Err(format!(
                "a [search] table needs base = \"pimc\", \"ismcts\" or \"oracle\" (base is '{}')",
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

/// A preset's `base` values.
pub const BASES: [&str; 8] = [
    "heuristic",
    "random",
    "first",
    "external",
    "pimc",
    "ismcts",
    "oracle",
    "net",
];

/// The message for a `base` that is none of [`BASES`].
pub fn unknown_base(base: &str) -> Option<String> {
    (!BASES.contains(&base))
        .then(|| format!("base '{base}' is unknown (valid: {})", BASES.join(", ")))
}
