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
    /// Seats each strategy holds (denominator of its win rate per round).
    seats: Vec<i64>,
    players: usize,
}

const TURNS: usize = 0;
const DRAWN: usize = 1;
const POINTS: usize = 2;
const BLOCKED: usize = 3;
const TRUNCATED: usize = 4;
const PENALTIES: usize = 5;
const FIRST: usize = 6;
const ROUNDS: usize = 7;
const EDGE: usize = 8;

impl Layout {
    pub fn new(cfg: &RunConfig) -> Layout {
        let all = |n: &str| MetricKey {
            name: n.into(),
            group: "all".into(),
        };
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
        let win = keys.len();
        for n in &names {
            keys.push(MetricKey {
                name: "win_rate".into(),
                group: n.clone(),
            });
        }
        let match_win = (cfg.mode == Mode::Match).then_some(keys.len());
        if match_win.is_some() {
            for n in &names {
                keys.push(MetricKey {
                    name: "match_win_rate".into(),
                    group: n.clone(),
                });
            }
        }
        let pos = keys.len();
        for k in 0..cfg.players {
            keys.push(MetricKey {
                name: "position_win_rate".into(),
                group: format!("+{k}"),
            });
        }
        Layout {
            keys,
            win,
            match_win,
            pos,
            seats: names
                .iter()
                .map(|n| cfg.lineup.iter().filter(|s| s.name() == n).count() as i64)
                .collect(),
            players: cfg.players,
        }
    }

    /// Whether the metric applies to the arm's mode.
    pub fn applies(&self, i: usize) -> bool {
        i != ROUNDS || self.match_win.is_some()
    }

    #[inline]
    fn add_round(&self, buf: &mut [(i64, i64)], r: &RoundResult, map: &[usize]) {
        let n = self.players;
        let add = |b: &mut (i64, i64), y: i64| {
            b.0 += y;
            b.1 += 1;
        };
        add(&mut buf[TURNS], r.turns as i64);
        add(&mut buf[DRAWN], r.cards_drawn as i64);
        add(
            &mut buf[POINTS],
            r.points[..n].iter().map(|&p| p as i64).sum(),
        );
        add(&mut buf[BLOCKED], (r.outcome == Outcome::Blocked) as i64);
        add(
            &mut buf[TRUNCATED],
            (r.outcome == Outcome::Truncated) as i64,
        );
        add(&mut buf[PENALTIES], r.uno_penalties as i64);
        for (s, &k) in self.seats.iter().enumerate() {
            buf[self.win + s].1 += k;
        }
        if r.outcome == Outcome::Won {
            let w = r.winner.unwrap_or(0) as usize;
            let f = r.first_player as usize;
            // Positions in order of play from the first mover (as RunStats).
            let (a, b) = if r.first_direction >= 0 {
                (w, f)
            } else {
                (f, w)
            };
            let p = if a >= b { a - b } else { a + n - b };
            add(&mut buf[FIRST], (p == 0) as i64);
            // Share above the fair one: (n·y − x) / (n·x) = y/x − 1/n.
            buf[EDGE].0 += n as i64 * (p == 0) as i64 - 1;
            buf[EDGE].1 += n as i64;
            for k in 0..n {
                buf[self.pos + k].1 += 1;
            }
            buf[self.pos + p].0 += 1;
            buf[self.win + map[w]].0 += 1;
        }
    }

    fn add_match(&self, buf: &mut [(i64, i64)], rounds: u32, winner: Option<u8>, map: &[usize]) {
        buf[ROUNDS].0 += rounds as i64;
        buf[ROUNDS].1 += 1;
        if let Some(m) = self.match_win {
            for (s, &k) in self.seats.iter().enumerate() {
                buf[m + s].1 += k;
            }
            if let Some(w) = winner {
                buf[m + map[w as usize]].0 += 1;
            }
        }
    }
}

/// Whether `v`'s products with another such value fit an `i64`.
#[inline(always)]
fn small(v: i64) -> bool {
    v.unsigned_abs() < 1 << 31
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
    /// Adds one cluster. Per-cluster values are almost always below 2^31
    /// (turns, cards, points and wins of one game or deal), and then their
    /// products are exact in `i64`; larger ones take the `i128` path.
    #[inline]
    fn add(&mut self, (y, x): (i64, i64)) {
        self.y += y as i128;
        self.x += x as i128;
        if small(y) && small(x) {
            self.yy += (y * y) as i128;
            self.xx += (x * x) as i128;
            self.xy += (x * y) as i128;
        } else {
            let (y, x) = (y as i128, x as i128);
            self.yy += y * y;
            self.xx += x * x;
            self.xy += x * y;
        }
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
    /// Adds one cluster (see [`RatioSums::add`]).
    #[inline]
    fn add(&mut self, (ya, xa): (i64, i64), (yb, xb): (i64, i64)) {
        if small(ya) && small(xa) && small(yb) && small(xb) {
            self.ya_yb += (ya * yb) as i128;
            self.ya_xb += (ya * xb) as i128;
            self.xa_yb += (xa * yb) as i128;
            self.xa_xb += (xa * xb) as i128;
        } else {
            let (ya, xa, yb, xb) = (ya as i128, xa as i128, yb as i128, xb as i128);
            self.ya_yb += ya * yb;
            self.ya_xb += ya * xb;
            self.xa_yb += xa * yb;
            self.xa_xb += xa * xb;
        }
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
    buf: Vec<(i64, i64)>,
    /// The metric values of each game of the block in progress (BLOCK games),
    /// for the paired sums once every arm has played the block.
    block: Vec<(i64, i64)>,
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
            buf: vec![(0, 0); layout.keys.len()],
            block: vec![(0, 0); BLOCK * layout.keys.len()],
            layout,
            penalty: cfg.rules.settings.scoring == Scoring::Penalty,
        }
    }

    /// Plays one game with the seeds of game `seed_index` at rotation `r`,
    /// into `stats` and the cluster buffer.
    fn play(
        &mut self,
        seed: u64,
        seed_index: u64,
        r: usize,
        stats: &mut RunStats,
    ) -> Result<(), crate::engine::game::IllegalActionError> {
        let (table, agent_rng) = game_rngs(seed, seed_index);
        self.game.set_rng(table);
        let mut agents = Agents {
            seats: &mut self.instances[r],
            rng: agent_rng,
        };
        let map = &self.maps[r];
        let (layout, buf, penalty) = (&self.layout, &mut self.buf, self.penalty);
        match self.cfg.mode {
            Mode::Round => {
                self.game.start_match(None);
                let res = self.game.play_round(&mut agents, &mut NoRecord)?;
                stats.add_round(&res, map, penalty);
                layout.add_round(buf, &res, map);
            }
            Mode::Match => {
                let m = self.game.play_match(&mut agents, &mut NoRecord, |res| {
                    stats.add_round(res, map, penalty);
                    layout.add_round(buf, res, map);
                })?;
                stats.add_match(&m, map);
                layout.add_match(buf, m.rounds, m.winner, map);
            }
        }
        stats.games += 1;
        Ok(())
    }
}

/// Plays clusters `range` of every arm into `st` (whose arms and comparisons
/// match `cfg`). Each block of up to [`BLOCK`] clusters is played by every arm
/// in turn, the same game indices (and so the same seeds) for each; the
/// paired sums then take each game's values of both arms from the block
/// buffers. The sums are integers, so the result does not depend on the order.
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
            let k = w.buf.len();
            for (j, c) in (start..end).enumerate() {
                w.buf.iter_mut().for_each(|b| *b = (0, 0));
                let stats = &mut st.arms[a].stats;
                let res = if cfg.duplicate {
                    (0..w.cfg.players).try_for_each(|r| w.play(cfg.seed, c, r, stats))
                } else {
                    let r = if w.cfg.fixed_seats {
                        0
                    } else {
                        (c % w.cfg.players as u64) as usize
                    };
                    w.play(cfg.seed, c, r, stats)
                };
                if let Err(error) = res {
                    if failure.as_ref().is_none_or(|(g, _)| c < *g) {
                        failure = Some((c, error));
                    }
                    break;
                }
                for (m, &b) in st.arms[a].metrics.iter_mut().zip(&w.buf) {
                    m.sums.add(b);
                }
                w.block[j * k..(j + 1) * k].copy_from_slice(&w.buf);
            }
        }
        if let Some((game, error)) = failure {
            return Err(RunError::Illegal {
                error,
                seed: cfg.seed,
                game,
            });
        }
        let n = (end - start) as usize;
        for comp in st.comparisons.iter_mut() {
            let (wa, wb) = (&workers[comp.arm], &workers[comp.baseline]);
            let (ka, kb) = (wa.buf.len(), wb.buf.len());
            for j in 0..n {
                let (ba, bb) = (&wa.block[j * ka..], &wb.block[j * kb..]);
                for p in comp.pairs.iter_mut() {
                    p.sums.add(ba[p.arm_metric], bb[p.base_metric]);
                }
            }
        }
        st.clusters += n as u64;
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
