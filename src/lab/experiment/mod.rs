//! Experiment files: a question, a base configuration, arms (written out or
//! generated as a grid), a baseline and an optional stopping rule, read from
//! TOML and validated before the first game (see `experiments/README.md`).
//!
//! Every problem is reported as one line naming the file and the line, and
//! what is valid; all problems of a file are reported together.

mod file;
pub use file::{load, parse, parse_reporting, parse_with, FileErrors};

use crate::sim::lockstep::{Arm, LockstepConfig};
use crate::sim::runner::Mode;
use crate::sim::shard::RunSpec;
use serde::{Deserialize, Serialize};

/// The most arms a `[grid]` may make (the product of its lists' lengths).
pub const MAX_GRID_ARMS: u64 = 1000;

/// One arm as written: what it changes from the base.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ArmSpec {
    pub label: String,
    pub rules: String,
    pub set: Vec<String>,
    pub house: Vec<String>,
    pub players: usize,
    pub strategies: String,
}

/// A validated experiment: the lockstep run it is, and what the lab adds to
/// it (a name, a description, where it came from, each arm as written).
#[derive(Clone, Debug)]
pub struct Experiment {
    pub name: String,
    pub description: String,
    /// The file it came from.
    pub origin: String,
    /// Each arm as written, in the order of `run.arms`.
    pub specs: Vec<ArmSpec>,
    /// The arms as resolved, the baseline, seed, duplicate play, batch and
    /// stopping rule; `max_clusters` is the games per arm (deals per arm with
    /// `duplicate`), the limit when a precision is set. One thread, from
    /// cluster 0 (see [`Experiment::lockstep`]).
    pub run: LockstepConfig,
}

/// An arm as written and as resolved (see [`ExperimentSpec`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ArmData {
    pub written: ArmSpec,
    /// The whole resolved configuration: rule set, line-up with parameters, ...
    pub resolved: RunSpec,
}

/// A validated experiment as data (what a shard state records): everything
/// that decides its games and its report, self-contained (no preset or rule
/// set file is read again to rebuild it).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ExperimentSpec {
    pub name: String,
    pub description: String,
    pub origin: String,
    pub arms: Vec<ArmData>,
    pub baseline: Option<usize>,
    pub mode: Mode,
    pub games: u64,
    pub seed: u64,
    pub duplicate: bool,
    pub batch: u64,
    pub precision: Option<f64>,
    pub precision_metrics: Vec<String>,
    /// A half-width per metric (see `LockstepConfig::precision_targets`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub precision_targets: Vec<(String, f64)>,
}

impl ExperimentSpec {
    /// The fields in which `self` and `o` differ (empty: the same experiment).
    pub fn differences(&self, o: &ExperimentSpec) -> Vec<String> {
        let mut v: Vec<String> = Vec::new();
        let mut check = |same: bool, what: &str| {
            if !same {
                v.push(what.to_string());
            }
        };
        check(self.name == o.name, "name");
        check(self.description == o.description, "description");
        check(self.baseline == o.baseline, "baseline");
        check(self.mode == o.mode, "mode");
        check(self.games == o.games, "game count");
        check(self.seed == o.seed, "seed");
        check(self.duplicate == o.duplicate, "duplicate play");
        check(self.batch == o.batch, "batch");
        check(
            self.precision == o.precision
                && self.precision_metrics == o.precision_metrics
                && self.precision_targets == o.precision_targets,
            "precision",
        );
        if self.arms.len() != o.arms.len() {
            v.push("number of arms".into());
        } else {
            for (a, b) in self.arms.iter().zip(&o.arms) {
                if a.written.label != b.written.label {
                    v.push(format!(
                        "arm labels '{}' and '{}'",
                        a.written.label, b.written.label
                    ));
                    continue;
                }
                let mut d: Vec<&str> = a.resolved.differences(&b.resolved);
                if a.written != b.written && d.is_empty() {
                    d.push("arm as written");
                }
                if !d.is_empty() {
                    v.push(format!("arm '{}': {}", a.written.label, d.join(", ")));
                }
            }
        }
        v
    }
}

impl Experiment {
    /// The mode every arm plays (round when there are no arms).
    pub fn mode(&self) -> Mode {
        self.run.arms.first().map_or(Mode::Round, |a| a.cfg.mode)
    }

    /// The experiment as data (see [`ExperimentSpec`]).
    pub fn spec(&self) -> ExperimentSpec {
        let r = &self.run;
        ExperimentSpec {
            name: self.name.clone(),
            description: self.description.clone(),
            origin: self.origin.clone(),
            arms: self
                .specs
                .iter()
                .zip(&r.arms)
                .map(|(s, a)| ArmData {
                    written: s.clone(),
                    resolved: RunSpec::of(&a.cfg),
                })
                .collect(),
            baseline: r.baseline,
            mode: self.mode(),
            games: r.max_clusters,
            seed: r.seed,
            duplicate: r.duplicate,
            batch: r.batch,
            precision: r.precision,
            precision_metrics: r.precision_metrics.clone(),
            precision_targets: r.precision_targets.clone(),
        }
    }

    /// The experiment again from its [`ExperimentSpec`].
    pub fn from_spec(s: &ExperimentSpec) -> Result<Experiment, String> {
        let arms = s
            .arms
            .iter()
            .map(|a| {
                a.resolved
                    .to_config(1)
                    .map(|cfg| Arm {
                        label: a.written.label.clone(),
                        cfg,
                    })
                    .map_err(|e| format!("arm '{}': {e}", a.written.label))
            })
            .collect::<Result<Vec<_>, String>>()?;
        if s.baseline.is_some_and(|b| b >= arms.len()) {
            return Err("the baseline is not an arm".into());
        }
        Ok(Experiment {
            name: s.name.clone(),
            description: s.description.clone(),
            origin: s.origin.clone(),
            specs: s.arms.iter().map(|a| a.written.clone()).collect(),
            run: LockstepConfig {
                baseline: s.baseline,
                duplicate: s.duplicate,
                batch: s.batch,
                precision: s.precision,
                precision_metrics: s.precision_metrics.clone(),
                precision_targets: s.precision_targets.clone(),
                ..LockstepConfig::new(arms, s.seed, s.games)
            },
        })
    }

    /// The lockstep configuration on `threads` threads.
    pub fn lockstep(&self, threads: usize) -> LockstepConfig {
        LockstepConfig {
            threads,
            ..self.run.clone()
        }
    }
}
