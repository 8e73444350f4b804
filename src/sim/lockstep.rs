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
//! Games are played in batches; the state at a batch boundary is exact and
//! serialisable ([`LockstepState`]), which is what `--resume` continues from and
//! what the adaptive-precision rule checks.

use crate::agents::Seat;
use crate::engine::game::{game_rngs, Agents, Game, NoRecord, Outcome, RoundResult};
use crate::engine::rules::Scoring;
use crate::sim::runner::{Mode, RunConfig, RunError, RunStats};
use serde::{Deserialize, Serialize};
use statrs::distribution::{ContinuousCDF, StudentsT};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;

/// Format name and version of the saved state (see [`LockstepState`]).
pub const STATE_FORMAT: &str = "unolab-lockstep-state";
pub const STATE_VERSION: u32 = 1;

/// One configuration of an experiment.
#[derive(Clone, Debug)]
pub struct Arm {
    pub label: String,
    /// Rules, players, line-up, mode and seat rotation of the arm. Its `games`,
    /// `seed` and `threads` are not used: the [`LockstepConfig`] sets them.
    pub cfg: RunConfig,
}

/// Everything a lockstep run needs.
#[derive(Clone, Debug)]
pub struct LockstepConfig {
    pub arms: Vec<Arm>,
    /// Index of the baseline arm (comparisons are every other arm against it).
    pub baseline: Option<usize>,
    pub seed: u64,
    /// Play each deal once per seat rotation of each arm's line-up.
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
}

/// What a metric measures, and for which group (strategy, position or `all`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MetricKey {
    pub name: String,
    pub group: String,
}

/// The metrics of an arm, in order, and where each family starts.
#[derive(Clone, Debug)]
pub struct Layout {
    pub keys: Vec<MetricKey>,
    win: usize,
    match_win: Option<usize>,
    pos: usize,
    /// The denominator of each metric: its per-cluster `x` is `coef` times
    /// the cluster's rounds, won rounds or matches (`(base, coef)`, see
    /// [`Block`]).
    x_of: Vec<(usize, i64)>,
    players: usize,
}

/// Index of `rounds_per_match` among the nine metrics every arm starts with
/// (in the order `Layout::new` names them and `Layout::add_round` takes them).
const ROUNDS: usize = 7;

/// The per-cluster counts every denominator is a multiple of (rows of
/// [`Block::base`]).
const BASE_ROUNDS: usize = 0;
const BASE_WON: usize = 1;
const BASE_MATCHES: usize = 2;
const BASES: usize = 3;

impl Layout {
    pub fn new(cfg: &RunConfig) -> Layout {
        let all = |n: &str| MetricKey {
            name: n.into(),
            group: "all".into(),
        };
        let n = cfg.players as i64;
        // Per cluster: turns, cards, points, blocked, truncated and penalties
        // over rounds; first-mover wins over won rounds; rounds over matches;
        // the first mover's edge n·F − W over n·W (see `add_round`).
        let mut x_of = vec![(BASE_ROUNDS, 1); 6];
        x_of.extend([(BASE_WON, 1), (BASE_MATCHES, 1), (BASE_WON, n)]);
        let mut keys: Vec<MetricKey> = [
            "turns_per_round",
            "cards_drawn_per_round",
            "points_per_round",
            "blocked_rate",
            "truncated_rate",
            "uno_penalties_per_round",
            "first_mover_win_rate",
            "rounds_per_match",
            "first_mover_advantage",
        ]
        .iter()
        .map(|n| all(n))
        .collect();
        let names = cfg.strategy_names();
        // Seats each strategy holds: its wins per round are over that many
        // seat-rounds (and its match wins over that many seat-matches).
        let seats: Vec<i64> = names
            .iter()
            .map(|n| cfg.lineup.iter().filter(|s| s.name() == n).count() as i64)
            .collect();
        let win = keys.len();
        for (name, &k) in names.iter().zip(&seats) {
            keys.push(MetricKey {
                name: "win_rate".into(),
                group: name.clone(),
            });
            x_of.push((BASE_ROUNDS, k));
        }
        let match_win = (cfg.mode == Mode::Match).then_some(keys.len());
        if match_win.is_some() {
            for (name, &k) in names.iter().zip(&seats) {
                keys.push(MetricKey {
                    name: "match_win_rate".into(),
                    group: name.clone(),
                });
                x_of.push((BASE_MATCHES, k));
            }
        }
        let pos = keys.len();
        for k in 0..cfg.players {
            keys.push(MetricKey {
                name: "position_win_rate".into(),
                group: format!("+{k}"),
            });
            x_of.push((BASE_WON, 1));
        }
        debug_assert_eq!(keys.len(), x_of.len());
        Layout {
            keys,
            win,
            match_win,
            pos,
            x_of,
            players: cfg.players,
        }
    }

    /// Whether the metric applies to the arm's mode.
    pub fn applies(&self, i: usize) -> bool {
        i != ROUNDS || self.match_win.is_some()
    }

    /// Adds one round to cluster `j` of the block: the numerators, and the
    /// rounds and won rounds the denominators are multiples of.
    #[inline(always)]
    fn add_round(&self, b: &mut Block, j: usize, r: &RoundResult, map: &[usize]) {
        assert!(j < BLOCK);
        let n = self.players;
        let won = r.outcome == Outcome::Won;
        // Steps from the first mover to the winner in the direction of play
        // at the first turn (as RunStats).
        let w = r.winner.unwrap_or(0) as usize;
        let f = r.first_player as usize;
        let (u, v) = if r.first_direction >= 0 {
            (w, f)
        } else {
            (f, w)
        };
        let p = if u >= v { u - v } else { u + n - v };
        let [turns, drawn, points, blocked, truncated, penalties, first, _, edge, ..] =
            &mut b.y[..]
        else {
            unreachable!("a layout starts with the nine metrics of every arm")
        };
        b.base[BASE_ROUNDS][j] += 1;
        turns[j] += r.turns as i64;
        drawn[j] += r.cards_drawn as i64;
        points[j] += r.points[..n].iter().map(|&p| p as i64).sum::<i64>();
        blocked[j] += (r.outcome == Outcome::Blocked) as i64;
        truncated[j] += (r.outcome == Outcome::Truncated) as i64;
        penalties[j] += r.uno_penalties as i64;
        if won {
            b.base[BASE_WON][j] += 1;
            first[j] += (p == 0) as i64;
            // Share above the fair one: (n·y − x) / (n·x) = y/x − 1/n.
            edge[j] += n as i64 * (p == 0) as i64 - 1;
            b.y[self.pos + p][j] += 1;
            b.y[self.win + map[w]][j] += 1;
        }
    }

    /// Adds one finished match to cluster `j` of the block.
    fn add_match(&self, b: &mut Block, j: usize, rounds: u32, winner: Option<u8>, map: &[usize]) {
        b.base[BASE_MATCHES][j] += 1;
        b.y[ROUNDS][j] += rounds as i64;
        if let (Some(m), Some(w)) = (self.match_win, winner) {
            b.y[m + map[w as usize]][j] += 1;
        }
    }
}

/// The per-cluster values of one arm over a block of up to [`BLOCK`]
/// clusters, stored by column (`y[m][j]`: metric `m`, cluster `j` of the
/// block), so that the sums over a block are loops over contiguous arrays.
/// Denominators are not stored: the `x` of metric `m` is `coef · base[b][j]`
/// with `(b, coef) = x_of[m]`.
struct Block {
    /// Numerators.
    y: Vec<[i64; BLOCK]>,
    /// Rounds, won rounds and matches of each cluster.
    base: [[i64; BLOCK]; BASES],
    // What `seal` records once the block is played:
    /// Clusters in the block (`0..used` of every column).
    used: usize,
    /// Whether every value is below [`SMALL`] in magnitude, so that the
    /// block's sums of products can be taken in `i64`.
    small: bool,
    /// Whether each numerator column holds anything but zeros.
    nonzero: Vec<bool>,
    /// `Σy` of each metric.
    sy: Vec<i128>,
    /// Whether each base is 1 in every cluster of the block (one round per
    /// game, or every round won): then a product with it is a plain sum.
    ones: [bool; BASES],
    /// `Σbase` and `Σbase²` of each base.
    sb: [(i128, i128); BASES],
}

/// Largest magnitude (exclusive) of the values whose block sums are taken in
/// `i64`: products stay below 2^52 and [`BLOCK`] of them below 2^58.
const SMALL: u64 = 1 << 26;
const _: () = assert!((BLOCK as u64) * SMALL * SMALL <= 1 << 62);

impl Block {
    fn new(metrics: usize) -> Block {
        Block {
            y: vec![[0; BLOCK]; metrics],
            base: [[0; BLOCK]; BASES],
            used: 0,
            small: true,
            nonzero: vec![false; metrics],
            sy: vec![0; metrics],
            ones: [false; BASES],
            sb: [(0, 0); BASES],
        }
    }

    /// Empties clusters `0..used` before the block is played. (Column by
    /// column: a few short vector stores each, where one memset of the whole
    /// block would be `rep stos`, which valgrind counts byte by byte.)
    fn clear(&mut self, used: usize) {
        for c in self.y.iter_mut().chain(&mut self.base) {
            c[..used].fill(0);
        }
    }

    /// Records what the sums need once clusters `0..used` are played.
    fn seal(&mut self, used: usize) {
        let or = |c: &[i64; BLOCK]| c[..used].iter().fold(0u64, |m, &v| m | v.unsigned_abs());
        let mut all = 0;
        for (c, nz) in self.y.iter().zip(&mut self.nonzero) {
            let o = or(c);
            all |= o;
            *nz = o != 0;
        }
        for c in &self.base {
            all |= or(c);
        }
        let small = all < SMALL;
        self.small = small;
        self.used = used;
        for ((c, &nz), s) in self.y.iter().zip(&self.nonzero).zip(&mut self.sy) {
            *s = if nz { block_sum(&c[..used], small) } else { 0 };
        }
        for (b, c) in self.base.iter().enumerate() {
            let c = &c[..used];
            let n = used as i128;
            self.ones[b] = c.iter().all(|&v| v == 1);
            self.sb[b] = if self.ones[b] {
                (n, n)
            } else {
                (block_sum(c, small), block_dot(c, c, small))
            };
        }
    }

    /// `Σ y[m]·o.y[k]` (`o` may be this block).
    #[inline]
    fn y_y(&self, m: usize, o: &Block, k: usize) -> i128 {
        if self.nonzero[m] && o.nonzero[k] {
            let n = self.used;
            block_dot(&self.y[m][..n], &o.y[k][..n], self.small && o.small)
        } else {
            0
        }
    }

    /// `Σ y[m]·o.base[b]`.
    #[inline]
    fn y_base(&self, m: usize, o: &Block, b: usize) -> i128 {
        if o.ones[b] {
            self.sy[m]
        } else if self.nonzero[m] {
            let n = self.used;
            block_dot(&self.y[m][..n], &o.base[b][..n], self.small && o.small)
        } else {
            0
        }
    }

    /// `Σ base[a]·o.base[b]`.
    #[inline]
    fn base_base(&self, a: usize, o: &Block, b: usize) -> i128 {
        if self.ones[a] {
            o.sb[b].0
        } else if o.ones[b] {
            self.sb[a].0
        } else {
            let n = self.used;
            block_dot(&self.base[a][..n], &o.base[b][..n], self.small && o.small)
        }
    }
}

/// `Σ a_j`, exactly (`small`: see [`block_dot`]).
#[inline]
fn block_sum(a: &[i64], small: bool) -> i128 {
    if small {
        a.iter().sum::<i64>() as i128
    } else {
        a.iter().map(|&v| v as i128).sum()
    }
}

/// `Σ a_j b_j` over at most [`BLOCK`] values, exactly: in `i64` when every
/// value is below [`SMALL`] in magnitude, in `i128` otherwise.
#[inline]
fn block_dot(a: &[i64], b: &[i64], small: bool) -> i128 {
    debug_assert!(a.len() <= BLOCK && b.len() == a.len());
    if small {
        a.iter().zip(b).map(|(&u, &v)| u * v).sum::<i64>() as i128
    } else {
        a.iter().zip(b).map(|(&u, &v)| u as i128 * v as i128).sum()
    }
}

/// Exact sums of one metric over clusters: `Σy, Σx, Σy², Σx², Σxy`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RatioSums {
    pub y: i128,
    pub x: i128,
    pub yy: i128,
    pub xx: i128,
    pub xy: i128,
}

impl RatioSums {
    /// Adds the clusters of a sealed block: numerators `y[m]`, denominators
    /// `coef · base[b]`.
    #[inline]
    fn add_block(&mut self, blk: &Block, m: usize, (b, coef): (usize, i64)) {
        let c = coef as i128;
        self.y += blk.sy[m];
        self.x += c * blk.sb[b].0;
        self.yy += blk.y_y(m, blk, m);
        self.xx += c * c * blk.sb[b].1;
        self.xy += c * blk.y_base(m, blk, b);
    }
    fn merge(&mut self, o: &RatioSums) {
        self.y += o.y;
        self.x += o.x;
        self.yy += o.yy;
        self.xx += o.xx;
        self.xy += o.xy;
    }
}

/// Exact cross sums of an arm's metric `a` and the baseline's metric `b`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CrossSums {
    pub ya_yb: i128,
    pub ya_xb: i128,
    pub xa_yb: i128,
    pub xa_xb: i128,
}

impl CrossSums {
    /// Adds the clusters of two sealed blocks of the same clusters: the arm's
    /// metric `i` (denominator `ca · xa`) and the baseline's metric `j`
    /// (denominator `cb · xb`).
    #[inline]
    fn add_block(
        &mut self,
        (a, i, (xa, ca)): (&Block, usize, (usize, i64)),
        (b, j, (xb, cb)): (&Block, usize, (usize, i64)),
    ) {
        let (ca, cb) = (ca as i128, cb as i128);
        self.ya_yb += a.y_y(i, b, j);
        self.ya_xb += cb * a.y_base(i, b, xb);
        self.xa_yb += ca * b.y_base(j, a, xa);
        self.xa_xb += ca * cb * a.base_base(xa, b, xb);
    }
    fn merge(&mut self, o: &CrossSums) {
        self.ya_yb += o.ya_yb;
        self.ya_xb += o.ya_xb;
        self.xa_yb += o.xa_yb;
        self.xa_xb += o.xa_xb;
    }
}

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
    pub stats: RunStats,
    pub metrics: Vec<MetricState>,
}

/// A metric of an arm paired with the same metric of the baseline.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PairState {
    /// Index of the arm's metric and of the baseline's metric.
    pub arm_metric: usize,
    pub base_metric: usize,
    pub sums: CrossSums,
}

/// The comparisons of one arm against the baseline.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ComparisonState {
    pub arm: usize,
    pub baseline: usize,
    pub pairs: Vec<PairState>,
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
        let layouts: Vec<Layout> = cfg.arms.iter().map(|a| Layout::new(&a.cfg)).collect();
        let arms = cfg
            .arms
            .iter()
            .zip(&layouts)
            .map(|(a, l)| ArmState {
                label: a.label.clone(),
                stats: RunStats::new(&a.cfg),
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
                let pairs = la
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
                comparisons.push(ComparisonState {
                    arm: a,
                    baseline: b,
                    pairs,
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
        self.clusters += o.clusters;
        for (a, b) in self.arms.iter_mut().zip(&o.arms) {
            a.stats.merge(&b.stats);
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

    /// Whether `o` has the same arms, metrics and pairs (a state of the same
    /// configuration).
    pub fn same_shape(&self, o: &LockstepState) -> bool {
        self.format == o.format
            && self.version == o.version
            && self.seed == o.seed
            && self.duplicate == o.duplicate
            && self.batch == o.batch
            && self.arms.len() == o.arms.len()
            && self.arms.iter().zip(&o.arms).all(|(a, b)| {
                a.label == b.label
                    && a.metrics.len() == b.metrics.len()
                    && a.metrics
                        .iter()
                        .zip(&b.metrics)
                        .all(|(m, n)| m.key == n.key)
                    && a.stats.strategies.len() == b.stats.strategies.len()
                    && a.stats.players == b.stats.players
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

/// A ratio estimate with its 95% interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Estimate {
    pub value: f64,
    pub lo: f64,
    pub hi: f64,
    /// Standard error (delta method, cluster-level variance).
    pub se: f64,
    /// Denominator total (rounds, seat-rounds, won rounds, matches...).
    pub n: i128,
}

/// A paired difference `arm − baseline` with its 95% interval and p-value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Difference {
    pub diff: f64,
    pub lo: f64,
    pub hi: f64,
    pub se: f64,
    /// Two-sided p-value of "no difference" (Student's t, clusters − 1 df).
    pub p: f64,
    /// Standard error the difference would have with independent samples.
    pub se_unpaired: f64,
}

/// The two-sided 95% quantile of Student's t with `df` degrees of freedom.
pub fn t95(df: u64) -> f64 {
    match StudentsT::new(0.0, 1.0, df.max(1) as f64) {
        Ok(t) => t.inverse_cdf(0.975),
        Err(_) => f64::NAN,
    }
}

fn t_p_value(t: f64, df: u64) -> f64 {
    if !t.is_finite() {
        return if t.is_nan() { f64::NAN } else { 0.0 };
    }
    match StudentsT::new(0.0, 1.0, df.max(1) as f64) {
        // The survival function keeps tiny p-values (no 1 − cdf cancellation).
        Ok(d) => (2.0 * d.sf(t.abs())).clamp(0.0, 1.0),
        Err(_) => f64::NAN,
    }
}

/// `Σ (y − r x)²` from the exact sums.
fn resid_ss(s: &RatioSums, r: f64) -> f64 {
    (s.yy as f64 - 2.0 * r * s.xy as f64 + r * r * s.xx as f64).max(0.0)
}

/// `Σy / Σx` over `clusters` clusters, with a 95% interval from the delta
/// method: `se² = Σ(y − R x)² / (n (n − 1) x̄²)`, Student's t with `n − 1` df.
/// `None` when `Σx = 0`.
pub fn ratio_estimate(s: &RatioSums, clusters: u64) -> Option<Estimate> {
    if s.x == 0 {
        return None;
    }
    let r = s.y as f64 / s.x as f64;
    let n = clusters as f64;
    let se = if clusters >= 2 {
        let xbar = s.x as f64 / n;
        (resid_ss(s, r) / (n * (n - 1.0))).sqrt() / xbar
    } else {
        f64::NAN
    };
    let h = t95(clusters.saturating_sub(1)) * se;
    Some(Estimate {
        value: r,
        lo: r - h,
        hi: r + h,
        se,
        n: s.x,
    })
}

/// The paired difference of two ratios measured on the same clusters: the
/// delta method applied to `z = (y_a − R_a x_a)/x̄_a − (y_b − R_b x_b)/x̄_b`,
/// whose sum of squares expands into the exact sums and cross sums.
pub fn paired_difference(
    a: &RatioSums,
    b: &RatioSums,
    c: &CrossSums,
    clusters: u64,
) -> Option<Difference> {
    if a.x == 0 || b.x == 0 {
        return None;
    }
    let n = clusters as f64;
    let (ra, rb) = (a.y as f64 / a.x as f64, b.y as f64 / b.x as f64);
    let (xa, xb) = (a.x as f64 / n, b.x as f64 / n);
    let cross =
        c.ya_yb as f64 - rb * c.ya_xb as f64 - ra * c.xa_yb as f64 + ra * rb * c.xa_xb as f64;
    let ssa = resid_ss(a, ra) / (xa * xa);
    let ssb = resid_ss(b, rb) / (xb * xb);
    let ss = (ssa + ssb - 2.0 * cross / (xa * xb)).max(0.0);
    let diff = ra - rb;
    let (se, se_unpaired) = if clusters >= 2 {
        let d = n * (n - 1.0);
        ((ss / d).sqrt(), ((ssa + ssb) / d).sqrt())
    } else {
        (f64::NAN, f64::NAN)
    };
    let df = clusters.saturating_sub(1);
    let h = t95(df) * se;
    // No variation at all (a rate that is 0 in both arms, or the win rate of
    // the only strategy at the table): nothing to test, so no p-value, and
    // the comparison stays out of Holm's family.
    let p = if se > 0.0 {
        t_p_value(diff / se, df)
    } else {
        f64::NAN
    };
    Some(Difference {
        diff,
        lo: diff - h,
        hi: diff + h,
        se,
        p,
        se_unpaired,
    })
}

/// Holm's step-down adjustment of `p` (NaN values are left out and stay NaN).
pub fn holm(p: &[f64]) -> Vec<f64> {
    let mut idx: Vec<usize> = (0..p.len()).filter(|&i| !p[i].is_nan()).collect();
    idx.sort_by(|&a, &b| p[a].total_cmp(&p[b]).then(a.cmp(&b)));
    let m = idx.len();
    let mut out = vec![f64::NAN; p.len()];
    let mut running = 0.0f64;
    for (k, &i) in idx.iter().enumerate() {
        let adj = ((m - k) as f64 * p[i]).min(1.0);
        running = running.max(adj);
        out[i] = running;
    }
    out
}

/// One worker's strategies and table for one arm.
struct ArmWorker<'a> {
    cfg: &'a RunConfig,
    game: Game<'a>,
    instances: Vec<Vec<Seat>>,
    maps: Vec<Vec<usize>>,
    layout: Layout,
    penalty: bool,
    /// The metric values of each cluster of the block in progress, for the
    /// sums once every arm has played the block.
    block: Block,
}

/// Games of one arm played back to back before the next arm plays the same
/// games: long enough that switching arms (another rule set's code and
/// tables) costs little, short enough that the per-game values of a block
/// fit in a small fixed buffer.
const BLOCK: usize = 64;

impl<'a> ArmWorker<'a> {
    fn new(cfg: &'a RunConfig) -> ArmWorker<'a> {
        let rotations = if cfg.fixed_seats { 1 } else { cfg.players };
        let names = cfg.strategy_names();
        let mut instances = Vec::new();
        let mut maps = Vec::new();
        for r in 0..rotations {
            let specs: Vec<_> = (0..cfg.players)
                .map(|s| &cfg.lineup[(s + r) % cfg.players])
                .collect();
            instances.push(specs.iter().map(|s| s.instantiate()).collect());
            maps.push(
                specs
                    .iter()
                    .map(|s| names.iter().position(|n| n == s.name()).unwrap_or(0))
                    .collect(),
            );
        }
        let mut game = Game::new(&cfg.rules, cfg.players, 0);
        game.set_lazy_pile(true);
        let layout = Layout::new(cfg);
        ArmWorker {
            cfg,
            game,
            instances,
            maps,
            block: Block::new(layout.keys.len()),
            layout,
            penalty: cfg.rules.settings.scoring == Scoring::Penalty,
        }
    }

    /// Plays one game with the seeds of game `seed_index` at rotation `r`,
    /// into `stats` and cluster `j` of the block.
    #[inline(always)]
    fn play(
        &mut self,
        seed: u64,
        seed_index: u64,
        r: usize,
        j: usize,
        stats: &mut RunStats,
    ) -> Result<(), crate::engine::game::IllegalActionError> {
        let (table, agent_rng) = game_rngs(seed, seed_index);
        self.game.set_rng(table);
        let mut agents = Agents {
            seats: &mut self.instances[r],
            rng: agent_rng,
        };
        let map = &self.maps[r];
        let (layout, block, penalty) = (&self.layout, &mut self.block, self.penalty);
        match self.cfg.mode {
            Mode::Round => {
                self.game.start_match(None);
                let res = self.game.play_round(&mut agents, &mut NoRecord)?;
                stats.add_round(&res, map, penalty);
                layout.add_round(block, j, &res, map);
            }
            Mode::Match => {
                let m = self.game.play_match(&mut agents, &mut NoRecord, |res| {
                    stats.add_round(res, map, penalty);
                    layout.add_round(block, j, res, map);
                })?;
                stats.add_match(&m, map);
                layout.add_match(block, j, m.rounds, m.winner, map);
            }
        }
        stats.games += 1;
        Ok(())
    }

    /// Seals the block (`used` clusters) and adds it to the arm's metric sums.
    fn add_block(&mut self, used: usize, metrics: &mut [MetricState]) {
        self.block.seal(used);
        for (m, (s, &x)) in metrics.iter_mut().zip(&self.layout.x_of).enumerate() {
            s.sums.add_block(&self.block, m, x);
        }
    }
}

/// Plays clusters `range` of every arm into `st` (whose arms and comparisons
/// match `cfg`). Each block of up to [`BLOCK`] clusters is played by every arm
/// in turn, the same game indices (and so the same seeds) for each, into the
/// arm's [`Block`]; the sums of each arm and the paired sums then take the
/// whole block at once. The sums are exact integers, so the result does not
/// depend on the order.
fn play_clusters(
    cfg: &LockstepConfig,
    workers: &mut [ArmWorker<'_>],
    range: std::ops::Range<u64>,
    st: &mut LockstepState,
) -> Result<(), RunError> {
    let mut start = range.start;
    while start < range.end {
        let end = (start + BLOCK as u64).min(range.end);
        // The failure at the lowest game of this block, over every arm.
        let mut failure: Option<(u64, crate::engine::game::IllegalActionError)> = None;
        for (a, w) in workers.iter_mut().enumerate() {
            w.block.clear((end - start) as usize);
            let arm = &mut st.arms[a];
            // Game c's seat rotation: c mod players (0 with fixed seats),
            // stepped without a division per game.
            let rotations = if w.cfg.fixed_seats { 1 } else { w.cfg.players };
            let mut r = (start % rotations as u64) as usize;
            for (j, c) in (start..end).enumerate() {
                let stats = &mut arm.stats;
                let res = if cfg.duplicate {
                    (0..w.cfg.players).try_for_each(|r| w.play(cfg.seed, c, r, j, stats))
                } else {
                    w.play(cfg.seed, c, r, j, stats)
                };
                r += 1;
                if r == rotations {
                    r = 0;
                }
                if let Err(error) = res {
                    if failure.as_ref().is_none_or(|(g, _)| c < *g) {
                        failure = Some((c, error));
                    }
                    break;
                }
            }
            w.add_block((end - start) as usize, &mut arm.metrics);
        }
        if let Some((game, error)) = failure {
            return Err(RunError::Illegal {
                error,
                seed: cfg.seed,
                game,
            });
        }
        for comp in st.comparisons.iter_mut() {
            let (wa, wb) = (&workers[comp.arm], &workers[comp.baseline]);
            for p in comp.pairs.iter_mut() {
                p.sums.add_block(
                    (&wa.block, p.arm_metric, wa.layout.x_of[p.arm_metric]),
                    (&wb.block, p.base_metric, wb.layout.x_of[p.base_metric]),
                );
            }
        }
        st.clusters += end - start;
        start = end;
    }
    Ok(())
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
    if cfg.precision.is_some_and(|p| !(p > 0.0 && p.is_finite())) {
        return bad("--precision must be a positive number".into());
    }
    if cfg.duplicate {
        if let Some(a) = cfg.arms.iter().find(|a| a.cfg.fixed_seats) {
            return bad(format!(
                "arm '{}': duplicate play rotates the seats; it cannot have fixed seats",
                a.label
            ));
        }
    }
    Ok(())
}

/// The half-widths the precision rule looks at: every comparison's, or with
/// no baseline every arm metric's (restricted to `precision_metrics` if given).
pub fn half_widths(cfg: &LockstepConfig, st: &LockstepState) -> Vec<f64> {
    let chosen = |name: &str| {
        cfg.precision_metrics.is_empty() || cfg.precision_metrics.iter().any(|m| m == name)
    };
    let mut v = Vec::new();
    if st.comparisons.is_empty() {
        for a in &st.arms {
            for m in &a.metrics {
                if chosen(&m.key.name) {
                    if let Some(e) = ratio_estimate(&m.sums, st.clusters) {
                        v.push((e.hi - e.lo) / 2.0);
                    }
                }
            }
        }
    } else {
        for c in &st.comparisons {
            for p in &c.pairs {
                let a = &st.arms[c.arm].metrics[p.arm_metric];
                if !chosen(&a.key.name) {
                    continue;
                }
                let b = &st.arms[c.baseline].metrics[p.base_metric];
                if let Some(d) = paired_difference(&a.sums, &b.sums, &p.sums, st.clusters) {
                    v.push((d.hi - d.lo) / 2.0);
                }
            }
        }
    }
    v
}

/// Whether the precision rule is met at this state.
pub fn precise_enough(cfg: &LockstepConfig, st: &LockstepState) -> bool {
    match cfg.precision {
        None => false,
        Some(x) => {
            let w = half_widths(cfg, st);
            st.clusters >= 2 && !w.is_empty() && w.iter().all(|&h| h < x)
        }
    }
}

/// How a lockstep run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// All `max_clusters` clusters played.
    Limit,
    /// The precision rule was met at a batch boundary.
    Precision,
    /// Interrupted: the state is the last batch boundary's.
    Interrupted,
}

/// Runs `cfg` from `st` (a fresh [`LockstepState::new`] or a saved one) batch
/// by batch until the game limit, the precision rule or `stop`. After each
/// batch `on_batch` gets the exact state (to save it). `progress` gets the
/// clusters finished. The result depends only on the configuration and the
/// starting state, never on the thread count.
pub fn run_lockstep(
    cfg: &LockstepConfig,
    st: &mut LockstepState,
    stop: &AtomicBool,
    progress: &(dyn Fn(u64) + Sync),
    on_batch: &mut dyn FnMut(&LockstepState) -> Result<(), String>,
) -> Result<Stop, RunError> {
    check(cfg)?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(cfg.threads)
        .build()
        .map_err(|e| RunError::Invalid(format!("cannot start {} threads: {e}", cfg.threads)))?;
    let empty = LockstepState::new(cfg);
    if !st.same_shape(&empty) {
        return Err(RunError::Invalid(
            "the saved state does not belong to this experiment (arms, metrics, seed, duplicate or batch differ)".into(),
        ));
    }
    loop {
        if precise_enough(cfg, st) {
            return Ok(Stop::Precision);
        }
        if st.clusters >= cfg.max_clusters {
            return Ok(Stop::Limit);
        }
        if stop.load(Ordering::Relaxed) {
            return Ok(Stop::Interrupted);
        }
        let start = cfg.first_cluster + st.clusters;
        let end = (start + cfg.batch).min(cfg.first_cluster + cfg.max_clusters);
        let chunk = 64u64;
        let chunks = (end - start).div_ceil(chunk);
        let next = AtomicU64::new(0);
        let failure: Mutex<Option<(u64, RunError)>> = Mutex::new(None);
        let failed = AtomicU64::new(u64::MAX);
        let interrupted = AtomicBool::new(false);
        let done = AtomicU64::new(0);
        let parts: Vec<LockstepState> = pool.broadcast(|_| {
            let mut workers: Vec<ArmWorker> =
                cfg.arms.iter().map(|a| ArmWorker::new(&a.cfg)).collect();
            let mut part = empty.clone();
            loop {
                if stop.load(Ordering::Relaxed) {
                    interrupted.store(true, Ordering::Relaxed);
                    break;
                }
                let k = next.fetch_add(1, Ordering::Relaxed);
                if k >= chunks || k > failed.load(Ordering::Relaxed) {
                    break;
                }
                let s = start + k * chunk;
                let e = (s + chunk).min(end);
                if let Err(err) = play_clusters(cfg, &mut workers, s..e, &mut part) {
                    let g = match &err {
                        RunError::Illegal { game, .. } => *game,
                        _ => s,
                    };
                    let mut f = failure.lock().unwrap_or_else(|p| p.into_inner());
                    if f.as_ref().is_none_or(|(h, _)| g < *h) {
                        *f = Some((g, err));
                    }
                    failed.fetch_min(k, Ordering::Relaxed);
                    break;
                }
                progress(st.clusters + done.fetch_add(e - s, Ordering::Relaxed) + (e - s));
            }
            part
        });
        if let Some((_, e)) = failure.into_inner().unwrap_or_else(|p| p.into_inner()) {
            return Err(e);
        }
        if interrupted.load(Ordering::Relaxed) {
            // The batch is incomplete: keep the last boundary's state.
            return Ok(Stop::Interrupted);
        }
        for p in &parts {
            st.merge(p);
        }
        debug_assert_eq!(cfg.first_cluster + st.clusters, end);
        on_batch(st).map_err(RunError::Invalid)?;
        progress(st.clusters);
    }
}

/// Games played per arm for `clusters` clusters.
pub fn games_of(arm: &RunConfig, clusters: u64, duplicate: bool) -> u64 {
    if duplicate {
        clusters * arm.players as u64
    } else {
        clusters
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng as _, SeedableRng};

    /// Per-cluster `(y, x)` of metric `m` read back from a block, as the
    /// sums define them.
    fn yx(b: &Block, m: usize, (base, coef): (usize, i64), j: usize) -> (i128, i128) {
        (b.y[m][j] as i128, coef as i128 * b.base[base][j] as i128)
    }

    /// Fills clusters `0..used` of a block: `kind` 0 small values, 1 values
    /// past [`SMALL`] (the `i128` path), 2 bases of 1 and some all-zero
    /// numerator columns (the shortcuts).
    fn fill(b: &mut Block, used: usize, kind: u32, rng: &mut rand_xoshiro::Xoshiro256PlusPlus) {
        b.clear(used);
        let top: i64 = if kind == 1 { 1 << 40 } else { 1 << 20 };
        for (m, c) in b.y.iter_mut().enumerate() {
            for v in &mut c[..used] {
                *v = if kind == 2 && m % 3 == 0 {
                    0
                } else {
                    rng.random_range(-top..top)
                };
            }
        }
        for c in b.base.iter_mut() {
            for v in &mut c[..used] {
                *v = if kind == 2 {
                    1
                } else {
                    rng.random_range(0..top)
                };
            }
        }
        b.seal(used);
    }

    #[test]
    fn block_sums_equal_the_per_cluster_sums() {
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(9);
        let x_of = [
            (BASE_ROUNDS, 1),
            (BASE_WON, 4),
            (BASE_MATCHES, 3),
            (BASE_ROUNDS, 2),
        ];
        let k = x_of.len();
        for (kind, used) in [(0, BLOCK), (1, BLOCK), (2, BLOCK), (0, 5), (1, 17), (2, 1)] {
            let (mut a, mut b) = (Block::new(k), Block::new(k));
            fill(&mut a, used, kind, &mut rng);
            fill(&mut b, used, if kind == 1 { 0 } else { kind }, &mut rng);
            assert_eq!(a.small, kind != 1);
            for m in 0..k {
                let mut got = RatioSums::default();
                got.add_block(&a, m, x_of[m]);
                let mut want = RatioSums::default();
                for j in 0..used {
                    let (y, x) = yx(&a, m, x_of[m], j);
                    want.merge(&RatioSums {
                        y,
                        x,
                        yy: y * y,
                        xx: x * x,
                        xy: x * y,
                    });
                }
                assert_eq!(got, want, "kind {kind}, {used} clusters, metric {m}");
                for n in 0..k {
                    let mut got = CrossSums::default();
                    got.add_block((&a, m, x_of[m]), (&b, n, x_of[n]));
                    let mut want = CrossSums::default();
                    for j in 0..used {
                        let ((ya, xa), (yb, xb)) = (yx(&a, m, x_of[m], j), yx(&b, n, x_of[n], j));
                        want.merge(&CrossSums {
                            ya_yb: ya * yb,
                            ya_xb: ya * xb,
                            xa_yb: xa * yb,
                            xa_xb: xa * xb,
                        });
                    }
                    assert_eq!(got, want, "kind {kind}, {used} clusters, metrics {m} {n}");
                }
            }
        }
    }

    #[test]
    fn a_block_is_small_only_below_2_pow_26() {
        let mut b = Block::new(1);
        b.clear(2);
        b.y[0][1] = -((1 << 26) - 1);
        b.seal(2);
        assert!(b.small);
        b.y[0][1] = -(1 << 26);
        b.seal(2);
        assert!(!b.small);
        // Values past the clusters played are not read.
        b.y[0][1] = 0;
        b.base[BASE_WON][2] = 1 << 40;
        b.seal(2);
        assert!(b.small);
    }
}
