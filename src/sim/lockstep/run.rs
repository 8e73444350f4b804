//! Playing a lockstep run: one worker per thread holding every arm's table,
//! clusters played block by block into exact sums, batch after batch until
//! the game limit, the precision rule or an interrupt.

use super::block::{Block, BLOCK};
use super::estimate::{paired_difference, ratio_estimate};
use super::layout::Layout;
use super::state::{LockstepState, MetricState};
use super::{check, LockstepConfig};
use crate::engine::game::{game_rngs, Agents, Game, NoRecord};
use crate::engine::rules::Scoring;
use crate::sim::runner::{Mode, RunConfig, RunError, RunStats, Worker};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;

/// One worker's strategies and table for one arm.
struct ArmWorker<'a> {
    cfg: &'a RunConfig,
    game: Game<'a>,
    /// The strategies of each seat rotation, as the runner's workers hold them.
    seats: Worker,
    layout: Layout,
    penalty: bool,
    /// The metric values of each cluster of the block in progress, for the
    /// sums once every arm has played the block.
    block: Block,
}

impl<'a> ArmWorker<'a> {
    fn new(cfg: &'a RunConfig) -> ArmWorker<'a> {
        let mut game = Game::new(&cfg.rules, cfg.players, 0);
        game.set_lazy_pile(true);
        let layout = Layout::new(cfg);
        ArmWorker {
            cfg,
            game,
            seats: Worker::new(cfg),
            block: Block::new(layout.keys.len()),
            layout,
            penalty: cfg.rules.settings.scoring == Scoring::Penalty,
        }
    }

    /// Plays one game with the seeds of game `seed_index` at rotation `r` of
    /// its seating, into `stats` and cluster `j` of the block.
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
        let set = self.seats.seat(seed, seed_index, r);
        let mut agents = Agents {
            seats: &mut self.seats.instances[set],
            rng: agent_rng,
        };
        let map = &self.seats.strat_of_seat[set];
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
            // Game c's seat rotation: c mod players with rotation, else 0
            // (with duplicate play every deal is played at each rotation),
            // stepped without a division per game.
            let rotations = w.cfg.rotation_period();
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
            "the saved state does not belong to this experiment (arms, metrics, seating, seed, duplicate or batch differ)".into(),
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
