//! The options of the lab's commands turned into validated configurations,
//! once, for every front end: the command line (`src/cli/`) and the Python
//! binding (`python/`) both build a run, a comparison and an experiment's
//! overrides here, so the same options give the same games and the same
//! messages whichever way they came.
//!
//! Names of rule sets and strategies are resolved by the caller (with
//! [`crate::engine::rules::RuleSetFile::resolve`] and
//! [`crate::agents::parse_list_with`]), which keeps their typed errors (a
//! missing file is not a bad value).

use super::compare;
use super::experiment::{ArmSpec, Experiment};
use super::ConfigError;
use crate::agents::StrategySpec;
use crate::engine::rules::{overridden, without_overridden, Rules};
use crate::sim::runner::{Mode, RunConfig, RunError};
use crate::sim::Seating;
use serde::{Deserialize, Deserializer};

/// A seed as written in a file: an integer (TOML's reach 2^63-1), or a
/// string for the whole unsigned 64-bit range of `run --seed`.
#[derive(Debug)]
pub(crate) enum SeedValue {
    Int(i64),
    Text(String),
}

impl<'de> Deserialize<'de> for SeedValue {
    /// By hand, not `untagged`: a value of another type (`seed = 5.0`)
    /// said "data did not match any variant of untagged enum SeedValue".
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Seed;
        impl serde::de::Visitor<'_> for Seed {
            type Value = SeedValue;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                write!(
                    f,
                    "a seed: a whole number from 0 to {} (past {} written as a string)",
                    u64::MAX,
                    i64::MAX
                )
            }
            fn visit_i64<E>(self, v: i64) -> Result<SeedValue, E> {
                Ok(SeedValue::Int(v))
            }
            fn visit_u64<E>(self, v: u64) -> Result<SeedValue, E> {
                Ok(SeedValue::Text(v.to_string()))
            }
            fn visit_str<E>(self, v: &str) -> Result<SeedValue, E> {
                Ok(SeedValue::Text(v.into()))
            }
        }
        d.deserialize_any(Seed)
    }
}

impl SeedValue {
    /// The seed, or why it is none.
    pub(crate) fn value(&self) -> Result<u64, String> {
        let v = match self {
            SeedValue::Int(i) => u64::try_from(*i).ok(),
            SeedValue::Text(t) => t.trim().parse::<u64>().ok(),
        };
        v.ok_or_else(|| {
            let shown = match self {
                SeedValue::Int(i) => i.to_string(),
                SeedValue::Text(t) => format!("'{t}'"),
            };
            format!(
                "invalid seed {shown} (valid: an integer from 0 to {}; above {} write it as a string, e.g. seed = \"{}\")",
                u64::MAX,
                i64::MAX,
                u64::MAX
            )
        })
    }
}

/// A file's `seed` as [`SeedValue`] reads it (serde's `deserialize_with`).
pub(crate) fn seed_in_file<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
    SeedValue::deserialize(d)?
        .value()
        .map_err(serde::de::Error::custom)
}

/// The options of `unolab run` (and `unolab.run` in Python), after the
/// rules and the line-up are resolved.
#[derive(Clone, Debug)]
pub struct RunOptions {
    pub rules: Rules,
    pub players: usize,
    /// The line-up, cycled to fill the seats.
    pub strategies: Vec<StrategySpec>,
    /// Games (rounds in round mode, matches in match mode); with `duplicate`,
    /// deals, each played once per seat rotation.
    pub games: u64,
    pub mode: Mode,
    pub seed: u64,
    pub threads: usize,
    /// Who sits where in each game (`fixed_seats` forces [`Seating::Fixed`]).
    pub seating: Seating,
    pub fixed_seats: bool,
    pub duplicate: bool,
}

impl RunOptions {
    /// The games played in all (`games`, times the players with `duplicate`).
    pub fn total_games(&self) -> Result<u64, RunError> {
        if self.duplicate {
            self.games.checked_mul(self.players as u64).ok_or_else(|| {
                RunError::Invalid(format!(
                    "--games {} is too large for --duplicate",
                    self.games
                ))
            })
        } else {
            Ok(self.games)
        }
    }

    /// The validated run configuration.
    pub fn config(self) -> Result<RunConfig, RunError> {
        let seating = if self.fixed_seats {
            Seating::Fixed
        } else {
            self.seating
        };
        if self.duplicate && seating == Seating::Fixed {
            return Err(RunError::Invalid(
                "--duplicate rotates the seats; it cannot have --seating fixed".into(),
            ));
        }
        let games = self.total_games()?;
        let mut cfg = RunConfig::builder(self.rules, self.players, &self.strategies)
            .games(games)
            .mode(self.mode)
            .seed(self.seed)
            .threads(self.threads)
            .seating(seating)
            .duplicate(self.duplicate)
            .build()?;
        cfg.chunk = chunk_for(&self.strategies, 1024);
        Ok(cfg)
    }
}

/// Games per unit of work for a line-up: `fast` for strategies of this
/// process's own speed; one deal per unit when a search agent (hundreds of
/// decisions a second), a program (its speed is its own: a person, a remote
/// service) or an embedding program's strategy (a Python object, as slow as
/// its author wrote it) sits at the table, so that an interrupt and the
/// progress stay prompt. The unit changes no result, only when a run can
/// stop.
pub fn chunk_for(lineup: &[StrategySpec], fast: u64) -> u64 {
    if lineup
        .iter()
        .any(|s| matches!(s, StrategySpec::Search(_) | StrategySpec::Custom(_)) || s.is_external())
    {
        1
    } else {
        fast
    }
}

/// The options of `unolab compare` (and `unolab.compare`): configuration A,
/// and what B changes.
#[derive(Clone, Debug)]
pub struct CompareOptions {
    pub rules: String,
    pub set: Vec<String>,
    pub house: Vec<String>,
    pub players: usize,
    /// A's line-up, a comma list.
    pub strategies: String,
    pub mode: Mode,
    /// B's rule set (default: A's).
    pub b_rules: Option<String>,
    /// Settings B adds to A's.
    pub b_set: Vec<String>,
    /// House rules B adds to A's.
    pub b_house: Vec<String>,
    /// B's line-up (default: A's).
    pub b_strategies: Option<String>,
    /// One seat of B's line-up changed: `K=STRATEGY`.
    pub b_seat: Option<String>,
    pub games: u64,
    pub seed: u64,
    /// The seating both arms play under (the default: mixed). Under it a
    /// line-up's order does not change the games, so B typed as a
    /// reordering of A is refused as the same configuration.
    pub seating: Seating,
    /// Let a line-up seat the perfect-information reference (`base = "oracle"`).
    pub allow_oracle: bool,
}

impl CompareOptions {
    /// The two arms as written.
    pub fn arms(&self) -> Result<(ArmSpec, ArmSpec), String> {
        let a = ArmSpec {
            label: "A".into(),
            rules: self.rules.clone(),
            set: self.set.clone(),
            house: self.house.clone(),
            players: self.players,
            strategies: self.strategies.clone(),
        };
        let mut strategies_b = self.b_strategies.clone().unwrap_or(self.strategies.clone());
        if let Some(seat) = &self.b_seat {
            let (k, name) = seat
                .split_once('=')
                .ok_or_else(|| format!("--b-seat expects K=STRATEGY, got '{seat}'"))?;
            let k: usize = k
                .trim()
                .parse()
                .ok()
                .filter(|k| *k < self.players)
                .ok_or_else(|| {
                    format!(
                        "--b-seat: '{k}' is not a seat (valid: 0 to {})",
                        self.players.saturating_sub(1)
                    )
                })?;
            let list: Vec<String> = strategies_b
                .split(',')
                .map(|s| s.trim().to_string())
                .collect();
            let mut full: Vec<String> = (0..self.players)
                .map(|i| list[i % list.len()].clone())
                .collect();
            full[k] = name.trim().to_string();
            strategies_b = full.join(",");
        }
        // B's settings and house rules take the place of A's of the same
        // setting (a house rule would win over a setting whatever the order).
        let (b_set, b_house) = (&self.b_set, &self.b_house);
        let mut set: Vec<String> = (self.set.iter())
            .filter(|s| !overridden(s, b_set, b_house))
            .cloned()
            .collect();
        set.extend(b_set.iter().cloned());
        // (An entry whose every rule B overrides goes: it was kept as "".)
        let mut house: Vec<String> = (self.house.iter())
            .map(|h| without_overridden(h, b_set, b_house))
            .filter(|h| !h.is_empty())
            .collect();
        house.extend(b_house.iter().cloned());
        let b = ArmSpec {
            label: "B".into(),
            rules: self.b_rules.clone().unwrap_or(self.rules.clone()),
            set,
            house,
            players: self.players,
            strategies: strategies_b,
        };
        Ok((a, b))
    }

    /// The experiment "B against A"; strategy names are looked up in
    /// `custom` (strategies of the embedding program) before the built-ins.
    pub fn experiment(&self, custom: &[StrategySpec]) -> Result<Experiment, ConfigError> {
        let (a, b) = self.arms().map_err(ConfigError::Invalid)?;
        compare::ab_with(
            a,
            b,
            self.mode,
            self.games,
            self.seed,
            self.seating,
            self.allow_oracle,
            custom,
        )
    }
}

/// What the command line (or a Python call) changes in an experiment file.
#[derive(Clone, Debug, Default)]
pub struct Overrides {
    pub games: Option<u64>,
    pub seed: Option<u64>,
    pub duplicate: Option<bool>,
    /// Who sits where in every arm.
    pub seating: Option<crate::sim::Seating>,
    /// Precision targets: `(None, x)` is the half-width for every metric,
    /// `(Some(metric), x)` one metric's; given, they replace the file's.
    pub precision: Vec<(Option<String>, f64)>,
    pub batch: Option<u64>,
}

impl Overrides {
    /// The arms whose own seating (one other than the default, mixed) the
    /// override's seating replaces: their labels and seatings, for a note.
    pub fn seating_replaced(&self, exp: &Experiment) -> Vec<(String, crate::sim::Seating)> {
        let Some(s) = self.seating else {
            return Vec::new();
        };
        exp.run
            .arms
            .iter()
            .filter(|a| a.cfg.seating != s && a.cfg.seating != crate::sim::Seating::Mixed)
            .map(|a| (a.label.clone(), a.cfg.seating))
            .collect()
    }

    /// Applies the overrides to `exp`.
    pub fn apply(&self, exp: &mut Experiment) -> Result<(), String> {
        if let Some(g) = self.games {
            exp.run.max_clusters = g;
        }
        if let Some(s) = self.seed {
            exp.run.seed = s;
        }
        if let Some(d) = self.duplicate {
            exp.run.duplicate = d;
        }
        if let Some(s) = self.seating {
            for a in &mut exp.run.arms {
                a.cfg.seating = s;
            }
        }
        if exp.run.duplicate {
            if let Some(a) = exp
                .run
                .arms
                .iter()
                .find(|a| a.cfg.seating == crate::sim::Seating::Fixed)
            {
                return Err(format!(
                    "arm '{}' has fixed seats; --duplicate rotates the seats",
                    a.label
                ));
            }
        }
        if !self.precision.is_empty() {
            let all: Vec<f64> = self
                .precision
                .iter()
                .filter(|(m, _)| m.is_none())
                .map(|p| p.1)
                .collect();
            if all.len() > 1 {
                return Err(
                    "--precision X is given twice; give one X for every metric, and METRIC=X for others".into(),
                );
            }
            exp.run.precision = all.first().copied();
            exp.run.precision_targets = self
                .precision
                .iter()
                .filter_map(|(m, x)| m.clone().map(|m| (m, *x)))
                .collect();
            if exp.run.precision.is_none() {
                exp.run.precision_metrics.clear();
            }
        }
        if let Some(b) = self.batch {
            exp.run.batch = b;
        }
        Ok(())
    }
}
