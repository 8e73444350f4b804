//! The lockstep runner: several configurations ("arms") played on the same
//! seeds, game `i` of every arm in the same worker back to back (common random
//! numbers), with exact paired statistics.
//!
//! Every metric is a ratio of two integer sums over *clusters*: a cluster is one
//! game (a round in round mode, a match in match mode), or with `duplicate` one
//! deal played once per seat rotation of the line-up. For each cluster the
//! numerator `y` and denominator `x` of every metric are added to exact integer
//! sums (`Σy, Σx, Σy², Σx², Σxy`), and for every arm against the baseline the
//! cross sums (`Σy_a y_b, Σy_a x_b, Σx_a y_b, Σx_a x_b`). Nothing per game is
//! stored, all sums are integers, so the result does not depend on the thread
//! count or the merge order. Intervals use the delta method with the
//! cluster-level (paired) variance; see [`ratio_estimate`] and
//! [`paired_difference`].
//!
//! Games are played in steps sized to about a second of play, none crossing
//! a batch boundary; the state after every step is exact and serialisable
//! ([`LockstepState`]), which is what `--resume` continues from. The
//! adaptive-precision rule looks at the state of batch boundaries only (a
//! fixed schedule of cluster counts), so where a run stops does not depend
//! on the machine's speed.
//!
//! This file owns the configuration (arms, baseline, seed, batch, range,
//! stopping rule) and its validation; the parts are:
//! - `layout`: which metrics an arm has and what one round adds to them;
//! - `block`: the per-cluster values of a block of games and their exact sums;
//! - `state`: the serialisable state and its merge;
//! - `estimate`: ratio estimates, paired differences, t and Holm;
//! - `run`: the workers, the steps and the precision rule.

mod block;
mod estimate;
mod layout;
mod run;
mod state;

pub use block::{CrossSums, RatioSums};
pub use estimate::{
    constant_ratio, count_estimate, equal_per_cluster, holm, interval_without_variance,
    metric_estimate, paired_difference, ratio_estimate, share_estimate, square_and_add, Difference,
    Estimate, Untested,
};
pub use layout::{check_metric, is_share, Layout, MetricKey, MATCH_ONLY_METRICS, METRIC_NAMES};
pub use run::{
    at_batch_boundary, half_widths, precise_enough, precision_checks, run_lockstep, PrecisionCheck,
    Stop, STEP_SECS,
};
pub use state::{
    challenger, pair_group, ArmState, ComparisonState, LockstepState, MetricState, PairState,
    STATE_FORMAT, STATE_VERSION, STATE_VERSION_MIN,
};

use crate::sim::runner::{RunConfig, RunError};

/// One configuration of an experiment.
#[derive(Clone, Debug)]
pub struct Arm {
    pub label: String,
    /// Rules, players, line-up, mode and seating of the arm. Its `games`,
    /// `seed` and `threads` are not used: the [`LockstepConfig`] sets them.
    pub cfg: RunConfig,
}

/// Clusters per batch unless a configuration says otherwise.
pub const DEFAULT_BATCH: u64 = 10_000;

/// Everything a lockstep run needs: a resolved experiment (`lab::Experiment`
/// holds one) plus the thread count and the range of clusters to play.
#[derive(Clone, Debug)]
pub struct LockstepConfig {
    pub arms: Vec<Arm>,
    /// Index of the baseline arm (comparisons are every other arm against it).
    pub baseline: Option<usize>,
    pub seed: u64,
    /// Play each deal once per rotation of its seating in each arm.
    pub duplicate: bool,
    pub threads: usize,
    /// Clusters (games, or deals with `duplicate`) per batch.
    pub batch: u64,
    /// Index of the first cluster to play: 0, or the first of a shard's
    /// clusters (see `lab::shard`). The run plays clusters
    /// `first_cluster .. first_cluster + max_clusters`.
    pub first_cluster: u64,
    /// Clusters to play at most.
    pub max_clusters: u64,
    /// Stop at the first batch boundary where every selected 95% interval is
    /// narrower than plus or minus this.
    pub precision: Option<f64>,
    /// Metric names the precision rule looks at (empty: all).
    pub precision_metrics: Vec<String>,
    /// A half-width of its own for each metric named here (metrics in
    /// different units need different ones); the rule then looks at these
    /// metrics, and at the others of `precision_metrics` only with a
    /// `precision`.
    pub precision_targets: Vec<(String, f64)>,
}

impl LockstepConfig {
    /// `arms` on `seed`, clusters `0..games` on one thread in batches of
    /// [`DEFAULT_BATCH`]: no baseline, no duplicate play, no precision rule.
    pub fn new(arms: Vec<Arm>, seed: u64, games: u64) -> LockstepConfig {
        LockstepConfig {
            arms,
            baseline: None,
            seed,
            duplicate: false,
            threads: 1,
            batch: DEFAULT_BATCH,
            first_cluster: 0,
            max_clusters: games,
            precision: None,
            precision_metrics: Vec::new(),
            precision_targets: Vec::new(),
        }
    }

    /// The names arm `arm`'s strategies are put in order by for mixed
    /// seating: beside a baseline, those of the baseline's strategies they
    /// replace ([`RunConfig::seating_names_beside`]), else their own.
    pub fn seating_names(&self, arm: &Arm) -> Vec<String> {
        match self.baseline {
            Some(b) => arm.cfg.seating_names_beside(&self.arms[b].cfg),
            None => arm.cfg.strategy_names(),
        }
    }

    /// Whether the run has a precision rule (one half-width for all, or one
    /// per metric).
    pub fn has_precision_rule(&self) -> bool {
        self.precision.is_some() || !self.precision_targets.is_empty()
    }

    /// The half-width the precision rule asks of metric `name`, if it looks
    /// at it.
    pub fn precision_target(&self, name: &str) -> Option<f64> {
        if let Some((_, x)) = self.precision_targets.iter().find(|(m, _)| m == name) {
            return Some(*x);
        }
        let chosen =
            self.precision_metrics.is_empty() || self.precision_metrics.iter().any(|m| m == name);
        self.precision.filter(|_| chosen)
    }
}

/// Validates a lockstep configuration.
pub fn check(cfg: &LockstepConfig) -> Result<(), RunError> {
    let bad = |m: String| Err(RunError::Invalid(m));
    if cfg.arms.is_empty() {
        return bad("an experiment needs at least one arm".into());
    }
    if cfg.baseline.is_some_and(|b| b >= cfg.arms.len()) {
        return bad("the baseline is not an arm".into());
    }
    if cfg.threads == 0 {
        return bad("--threads must be at least 1".into());
    }
    if cfg.batch == 0 || cfg.max_clusters == 0 {
        return bad("the batch and the game count must be at least 1".into());
    }
    if cfg.precision.is_some_and(|p| !(p > 0.0 && p.is_finite()))
        || cfg
            .precision_targets
            .iter()
            .any(|(_, p)| !(*p > 0.0 && p.is_finite()))
    {
        return bad("--precision must be a positive number".into());
    }
    if let Some((m, _)) = cfg
        .precision_targets
        .iter()
        .find(|(m, _)| !METRIC_NAMES.contains(&m.as_str()))
    {
        return bad(format!(
            "unknown metric '{m}' in the precision (valid: {})",
            METRIC_NAMES.join(", ")
        ));
    }
    if cfg.precision.is_none() && !cfg.precision_metrics.is_empty() {
        return bad(format!(
            "the metrics of a precision are named ({}), but no precision is given for them (--precision X, or [stop] precision = X; precision_per_metric gives each of its metrics its own, without [stop] metrics)",
            cfg.precision_metrics.join(", ")
        ));
    }
    for (i, (m, x)) in cfg.precision_targets.iter().enumerate() {
        if cfg.precision_targets[..i].iter().any(|(n, _)| n == m) {
            return bad(format!(
                "metric '{m}' has two precision targets; give it one"
            ));
        }
        // Named among the metrics of the precision for all and given its
        // own: one of the two was ignored.
        if let Some(all) = cfg.precision.filter(|_| cfg.precision_metrics.contains(m)) {
            return bad(format!(
                "metric '{m}' has two precision targets ({all} as one of the precision's metrics, {x} of its own); give it one"
            ));
        }
    }
    // A precision on what no arm measures would be "reached" without an
    // interval ever being looked at.
    if !cfg
        .arms
        .iter()
        .any(|a| a.cfg.mode == crate::sim::runner::Mode::Match)
    {
        let asked = cfg.precision_targets.iter().map(|(m, _)| m).chain(
            cfg.precision_metrics
                .iter()
                .filter(|_| cfg.precision.is_some()),
        );
        for m in asked {
            if MATCH_ONLY_METRICS.contains(&m.as_str()) {
                return bad(format!(
                    "the precision asks for '{m}', which only matches measure, and this run plays rounds (to play matches: mode = \"match\" in an experiment file, --mode match for compare)"
                ));
            }
        }
    }
    if cfg.duplicate {
        if let Some(a) = cfg
            .arms
            .iter()
            .find(|a| a.cfg.seating == crate::sim::Seating::Fixed)
        {
            return bad(format!(
                "arm '{}': duplicate play rotates the seats; it cannot have fixed seats",
                a.label
            ));
        }
    }
    Ok(())
}

/// Games played per arm for `clusters` clusters.
pub fn games_of(arm: &RunConfig, clusters: u64, duplicate: bool) -> u64 {
    if duplicate {
        clusters * arm.players as u64
    } else {
        clusters
    }
}
