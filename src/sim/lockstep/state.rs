//! The exact state of a lockstep run at a batch boundary: serialisable, and
//! merged by adding every sum.

use super::block::{CrossSums, RatioSums};
use super::estimate::{metric_estimate, Estimate};
use super::layout::{Layout, MetricKey};
use super::LockstepConfig;
use crate::sim::runner::{RunConfig, RunStats};
use crate::sim::seating::Seating;
use serde::{Deserialize, Serialize};

/// Format name and version of the saved state (see [`LockstepState`]).
/// Version 3 pairs a challenger's wins with those of the strategy it
/// replaced ([`challenger`]); version 2 records each arm's seating; version
/// 1 states (read too) did not, and hold games with rotated or fixed seats.
/// A state of version 1 or 2 of a comparison with a challenger lacks its
/// pair, so it is not of the same shape as the experiment's.
pub const STATE_FORMAT: &str = "unolab-lockstep-state";
pub const STATE_VERSION: u32 = 3;
/// The oldest state version read.
pub const STATE_VERSION_MIN: u32 = 1;

/// One metric of one arm: its key and sums.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MetricState {
    pub key: MetricKey,
    pub sums: RatioSums,
}

/// One arm's exact state: its run statistics and metric sums.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ArmState {
    pub label: String,
    /// The arm's seating (absent from version 1 states: rotated or fixed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seating: Option<Seating>,
    /// With mixed seating, the baseline's strategy names the arm's were
    /// seated by, when not their own ([`RunConfig::seating_names_beside`]:
    /// the arm's strategies sit where those they replace sit). Absent from
    /// states written before it, whose arms were seated by their own names.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seated_as: Option<Vec<String>>,
    pub stats: RunStats,
    pub metrics: Vec<MetricState>,
}

impl ArmState {
    /// The estimate of metric `m` of this arm over `clusters` clusters
    /// ([`metric_estimate`]): a strategy's `win_rate` and `match_win_rate`
    /// are shares of the seats it holds in each game, at most `1 / seats`.
    pub fn estimate(&self, m: usize, clusters: u64) -> Option<Estimate> {
        let key = &self.metrics[m].key;
        let held = match key.name.as_str() {
            "win_rate" | "match_win_rate" => self
                .stats
                .strategies
                .iter()
                .find(|s| s.name == key.group)
                .map_or(1, |s| s.seats as u64),
            _ => 1,
        };
        let players = self.stats.players as u64;
        metric_estimate(&key.name, &self.metrics[m].sums, clusters, held, players)
    }

    /// Checks the metric sums of a state read from a file against the arm's
    /// statistics (`cfg` its configuration, over `clusters` clusters): each
    /// denominator is its coefficient times the arm's rounds, won rounds or
    /// matches, and the sums of squares and products are those of real
    /// numbers (not negative; within Cauchy-Schwarz over the clusters). An
    /// edited sum gave figures of no game (a denominator of 5 put 194 turns
    /// in a round of 49; the shards audit).
    pub(crate) fn check_sums(&self, cfg: &RunConfig, clusters: u64) -> Result<(), String> {
        use super::block::{BASE_ROUNDS, BASE_WON};
        let layout = Layout::new(cfg);
        let matches = match cfg.mode {
            crate::sim::runner::Mode::Match => self.stats.games,
            crate::sim::runner::Mode::Round => 0,
        };
        let n = clusters as i128;
        for (m, &(b, coef)) in self.metrics.iter().zip(&layout.x_of) {
            let base = match b {
                BASE_ROUNDS => self.stats.rounds,
                BASE_WON => self.stats.won,
                _ => matches,
            };
            let s = &m.sums;
            // (A product past i128 is no evidence either way.)
            let within = |a: i128, b: i128, c: i128| match (a.checked_mul(a), b.checked_mul(c)) {
                (Some(l), Some(r)) => l <= r,
                _ => true,
            };
            if s.x != coef as i128 * base as i128
                || s.yy < 0
                || s.xx < 0
                || !within(s.xy, s.xx, s.yy)
                || !within(s.y, n, s.yy)
                || !within(s.x, n, s.xx)
            {
                return Err(format!(
                    "the sums of its metric {} {} are not those of its games",
                    m.key.name, m.key.group
                ));
            }
        }
        Ok(())
    }
}

/// A metric of an arm paired with the same metric of the baseline, or a
/// challenger's round (match) wins per seat paired with those of the
/// strategy it replaced ([`challenger`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PairState {
    /// Index of the arm's metric and of the baseline's metric.
    pub arm_metric: usize,
    pub base_metric: usize,
    pub sums: CrossSums,
}

/// The challenger of line-up `arm` against line-up `base`, as `(c, r)`:
/// `arm` seats `k` players of strategy `c`, which `base` does not seat, in
/// place of `k` of strategy `r`, and every other seat as `base` does
/// (counted by strategy, so the order a line-up is typed in does not
/// matter, as it does not under the default seating). Its round wins per
/// seat held pair with `r`'s in the baseline, deal by deal: what a seat
/// gains by playing `c` instead of `r` at this table, whatever the other
/// seats hold and whether or not rounds are blocked.
pub fn challenger(arm: &RunConfig, base: &RunConfig) -> Option<(String, String)> {
    if arm.lineup.len() != base.lineup.len() {
        return None;
    }
    // The strategies with more seats in the arm than in the baseline, and
    // with fewer (the line-ups are as long: the seats moved add up).
    let mut names = arm.strategy_names();
    names.extend(base.strategy_names());
    names.sort();
    names.dedup();
    let (more, fewer): (Vec<String>, Vec<String>) = names
        .into_iter()
        .filter(|n| arm.seats_of(n) != base.seats_of(n))
        .partition(|n| arm.seats_of(n) > base.seats_of(n));
    match (&more[..], &fewer[..]) {
        ([c], [r]) if base.seats_of(c) == 0 => Some((c.clone(), r.clone())),
        _ => None,
    }
}

/// The group a comparison row names: the metric's group, or for a
/// challenger's pair `"c vs r"` (the arm's strategy, then the baseline's).
pub fn pair_group(arm: &MetricKey, base: &MetricKey) -> String {
    if arm.group == base.group {
        arm.group.clone()
    } else {
        format!("{} vs {}", arm.group, base.group)
    }
}

/// The comparisons of one arm against the baseline.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ComparisonState {
    pub arm: usize,
    pub baseline: usize,
    pub pairs: Vec<PairState>,
    /// The arm is the baseline's configuration (rule set, settings, table,
    /// line-up, mode, seating): its differences are zero by construction.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub same_config: bool,
}

/// The exact state of a lockstep run at a batch boundary: versioned and
/// self-describing (JSON through serde), so that a run can be resumed and
/// states of disjoint game ranges can later be merged by adding every sum.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LockstepState {
    pub format: String,
    pub version: u32,
    pub seed: u64,
    pub duplicate: bool,
    pub batch: u64,
    /// Clusters played: `0..clusters` (games, or deals with `duplicate`).
    pub clusters: u64,
    pub arms: Vec<ArmState>,
    pub comparisons: Vec<ComparisonState>,
}

impl LockstepState {
    /// The empty state of `cfg`.
    pub fn new(cfg: &LockstepConfig) -> LockstepState {
        LockstepState::shaped(cfg, RunStats::new)
    }

    /// The empty state of a part of the work of `cfg`, a unit played apart
    /// to be [`absorbed`](LockstepState::absorb): its arms' statistics are
    /// [parts](RunStats::part).
    pub fn part(cfg: &LockstepConfig) -> LockstepState {
        LockstepState::shaped(cfg, RunStats::part)
    }

    /// The empty state of `cfg`, each arm's statistics made by `stats`.
    fn shaped(cfg: &LockstepConfig, stats: fn(&RunConfig) -> RunStats) -> LockstepState {
        let layouts: Vec<Layout> = cfg.arms.iter().map(|a| Layout::new(&a.cfg)).collect();
        let arms = cfg
            .arms
            .iter()
            .zip(&layouts)
            .map(|(a, l)| ArmState {
                label: a.label.clone(),
                seating: Some(a.cfg.seating),
                seated_as: Some(cfg.seating_names(a)).filter(|names| {
                    a.cfg.seating == Seating::Mixed && *names != a.cfg.strategy_names()
                }),
                stats: stats(&a.cfg),
                metrics: l
                    .keys
                    .iter()
                    .map(|k| MetricState {
                        key: k.clone(),
                        sums: RatioSums::default(),
                    })
                    .collect(),
            })
            .collect();
        let mut comparisons = Vec::new();
        if let Some(b) = cfg.baseline {
            for (a, la) in layouts.iter().enumerate() {
                if a == b {
                    continue;
                }
                let lb = &layouts[b];
                let mut pairs: Vec<PairState> = la
                    .keys
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| la.applies(*i))
                    .filter_map(|(i, k)| {
                        lb.keys.iter().position(|kb| kb == k).map(|j| PairState {
                            arm_metric: i,
                            base_metric: j,
                            sums: CrossSums::default(),
                        })
                    })
                    .filter(|p| lb.applies(p.base_metric))
                    .collect();
                let (ca, cb) = (&cfg.arms[a].cfg, &cfg.arms[b].cfg);
                // The challenger's pairs, after the others.
                if let Some((c, r)) = challenger(ca, cb) {
                    for name in ["win_rate", "match_win_rate"] {
                        let i = la.keys.iter().position(|k| k.name == name && k.group == c);
                        let j = lb.keys.iter().position(|k| k.name == name && k.group == r);
                        if let (Some(i), Some(j)) = (i, j) {
                            pairs.push(PairState {
                                arm_metric: i,
                                base_metric: j,
                                sums: CrossSums::default(),
                            });
                        }
                    }
                }
                let same_config = ca.rules.file.to_toml() == cb.rules.file.to_toml()
                    && ca.players == cb.players
                    && ca.mode == cb.mode
                    && ca.seating == cb.seating
                    && ca
                        .lineup
                        .iter()
                        .map(|s| s.name())
                        .eq(cb.lineup.iter().map(|s| s.name()));
                comparisons.push(ComparisonState {
                    arm: a,
                    baseline: b,
                    pairs,
                    same_config,
                });
            }
        }
        LockstepState {
            format: STATE_FORMAT.into(),
            version: STATE_VERSION,
            seed: cfg.seed,
            duplicate: cfg.duplicate,
            batch: cfg.batch,
            clusters: 0,
            arms,
            comparisons,
        }
    }

    /// Adds everything of `o` (a state of the same configuration over other clusters).
    pub fn merge(&mut self, o: &LockstepState) {
        self.merge_with(o, RunStats::merge);
    }

    /// Adds a [`part`](LockstepState::part) of the work.
    pub fn absorb(&mut self, part: &LockstepState) {
        self.merge_with(part, RunStats::absorb);
    }

    fn merge_with(&mut self, o: &LockstepState, stats: fn(&mut RunStats, &RunStats)) {
        self.clusters += o.clusters;
        for (a, b) in self.arms.iter_mut().zip(&o.arms) {
            stats(&mut a.stats, &b.stats);
            for (m, n) in a.metrics.iter_mut().zip(&b.metrics) {
                m.sums.merge(&n.sums);
            }
        }
        for (a, b) in self.comparisons.iter_mut().zip(&o.comparisons) {
            for (p, q) in a.pairs.iter_mut().zip(&b.pairs) {
                p.sums.merge(&q.sums);
            }
        }
    }

    /// Whether `o` has the same arms, metrics, seatings and pairs (a state
    /// of the same configuration). A state of version 1 has no seatings: it
    /// matches rotated or fixed seats, not mixed ones.
    pub fn same_shape(&self, o: &LockstepState) -> bool {
        let version = STATE_VERSION_MIN..=STATE_VERSION;
        let seating = |a: Option<Seating>, b: Option<Seating>| match (a, b) {
            (Some(x), Some(y)) => x == y,
            (None, Some(x)) | (Some(x), None) => x != Seating::Mixed,
            (None, None) => true,
        };
        self.format == o.format
            && version.contains(&self.version)
            && version.contains(&o.version)
            && self.seed == o.seed
            && self.duplicate == o.duplicate
            && self.batch == o.batch
            && self.arms.len() == o.arms.len()
            && self.arms.iter().zip(&o.arms).all(|(a, b)| {
                a.label == b.label
                    && seating(a.seating, b.seating)
                    && a.seated_as == b.seated_as
                    && a.metrics.len() == b.metrics.len()
                    && a.metrics
                        .iter()
                        .zip(&b.metrics)
                        .all(|(m, n)| m.key == n.key)
                    && a.stats.same_shape(&b.stats)
            })
            && self.comparisons.len() == o.comparisons.len()
            && self.comparisons.iter().zip(&o.comparisons).all(|(a, b)| {
                a.arm == b.arm
                    && a.baseline == b.baseline
                    && a.pairs.len() == b.pairs.len()
                    && a.pairs.iter().zip(&b.pairs).all(|(p, q)| {
                        p.arm_metric == q.arm_metric && p.base_metric == q.base_metric
                    })
            })
    }
}
