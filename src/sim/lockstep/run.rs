//! Playing a lockstep run: one worker per thread holding every arm's table,
//! clusters played block by block into exact sums, step after step (each
//! about a second of play, within a batch) until the game limit, the
//! precision rule (at batch boundaries) or an interrupt.

use super::block::{Block, BLOCK};
use super::estimate::paired_difference;
use super::layout::Layout;
use super::state::{pair_group, LockstepState, MetricState};
use super::{check, LockstepConfig};
use crate::engine::game::{game_rngs, Agents, Game, NoRecord};
use crate::engine::rules::Scoring;
use crate::sim::handout::{self, cut_short, Folded, Unfinished};
use crate::sim::runner::{Mode, RunConfig, RunError, RunStats, Worker};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Instant;

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
    /// The worker of arm `cfg`, its deals played in every rotation with
    /// `duplicate` (the experiment's; the arm's own configuration has none).
    /// `order`: the names its strategies are put in order by for mixed
    /// seating ([`LockstepConfig::seating_names`]).
    fn new(cfg: &'a RunConfig, order: &[String], duplicate: bool) -> ArmWorker<'a> {
        let mut game = Game::new(&cfg.rules, cfg.players, 0);
        game.set_lazy_pile(true);
        let layout = Layout::new(cfg);
        ArmWorker {
            cfg,
            game,
            // One instance set per rotation of a deal: no instance plays the
            // same deal twice, from another seat.
            seats: Worker::with_rotations(
                cfg,
                if duplicate {
                    cfg.players
                } else {
                    cfg.rotation_period()
                },
                order,
            ),
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
        // The failure at the lowest game of this block, over every arm, and
        // its arm.
        let mut failure: Option<(u64, crate::engine::game::IllegalActionError, usize)> = None;
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
                    if failure.as_ref().is_none_or(|(g, _, _)| c < *g) {
                        failure = Some((c, error, a));
                    }
                    break;
                }
            }
            w.add_block((end - start) as usize, &mut arm.metrics);
        }
        if let Some((game, error, a)) = failure {
            return Err(RunError::InArm {
                arm: cfg.arms[a].label.clone(),
                error: Box::new(RunError::Illegal {
                    error,
                    seed: cfg.seed,
                    game,
                }),
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

/// One interval the precision rule looks at: its metric (`name:group`, and
/// for a comparison `arm-baseline`), its half-width and the half-width asked.
#[derive(Clone, Debug, PartialEq)]
pub struct PrecisionCheck {
    pub what: String,
    pub half_width: f64,
    pub target: f64,
}

/// Every interval the precision rule looks at: every comparison's, or with
/// no baseline every arm metric's, of the metrics it names
/// ([`LockstepConfig::precision_target`]).
pub fn precision_checks(cfg: &LockstepConfig, st: &LockstepState) -> Vec<PrecisionCheck> {
    let mut v = Vec::new();
    if st.comparisons.is_empty() {
        for a in &st.arms {
            for (i, m) in a.metrics.iter().enumerate() {
                if let Some(target) = cfg.precision_target(&m.key.name) {
                    if let Some(e) = a.estimate(i, st.clusters) {
                        v.push(PrecisionCheck {
                            what: format!("{}:{} of {}", m.key.name, m.key.group, a.label),
                            half_width: (e.hi - e.lo) / 2.0,
                            target,
                        });
                    }
                }
            }
        }
    } else {
        for c in &st.comparisons {
            for p in &c.pairs {
                let a = &st.arms[c.arm].metrics[p.arm_metric];
                let Some(target) = cfg.precision_target(&a.key.name) else {
                    continue;
                };
                let b = &st.arms[c.baseline].metrics[p.base_metric];
                if let Some(d) = paired_difference(&a.sums, &b.sums, &p.sums, st.clusters) {
                    // No variation in the deals so far: no interval to
                    // narrow (it had a zero width before, always "precise").
                    if d.untested.is_some() {
                        continue;
                    }
                    v.push(PrecisionCheck {
                        what: format!(
                            "{}:{} of {} against {}",
                            a.key.name,
                            pair_group(&a.key, &b.key),
                            st.arms[c.arm].label,
                            st.arms[c.baseline].label
                        ),
                        half_width: (d.hi - d.lo) / 2.0,
                        target,
                    });
                }
            }
        }
    }
    v
}

/// The half-widths the precision rule looks at ([`precision_checks`]).
pub fn half_widths(cfg: &LockstepConfig, st: &LockstepState) -> Vec<f64> {
    precision_checks(cfg, st)
        .into_iter()
        .map(|c| c.half_width)
        .collect()
}

/// Whether the precision rule is met at this state: every interval it looks
/// at is narrower than its target.
pub fn precise_enough(cfg: &LockstepConfig, st: &LockstepState) -> bool {
    if !cfg.has_precision_rule() {
        return false;
    }
    let w = precision_checks(cfg, st);
    st.clusters >= 2 && !w.is_empty() && w.iter().all(|c| c.half_width < c.target)
}

/// Whether the precision rule is looked at in this state: at every batch
/// boundary (a multiple of `batch` clusters) and at the game limit, a
/// schedule of cluster counts alone, so that where a run stops never depends
/// on how fast it played or where it was interrupted.
pub fn at_batch_boundary(cfg: &LockstepConfig, st: &LockstepState) -> bool {
    st.clusters % cfg.batch == 0 || st.clusters >= cfg.max_clusters
}

/// How a lockstep run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// All `max_clusters` clusters played.
    Limit,
    /// The precision rule was met at a batch boundary.
    Precision,
    /// Interrupted: the state holds every cluster finished before the stop
    /// (a prefix of the clusters, saved with `on_step`).
    Interrupted,
}

/// Seconds of play a step aims at: the state is exact and handed to
/// `on_step` (to be saved) at least about this often, however slow the
/// strategies.
pub const STEP_SECS: f64 = 1.0;

/// Runs `cfg` from `st` (a fresh [`LockstepState::new`] or a saved one) until
/// the game limit, the precision rule or `stop`.
///
/// Clusters are played in steps: the first of one cluster per thread, each
/// next one sized from the speed seen so far to about [`STEP_SECS`] of play
/// (at most 16 times the last), and none crossing a batch boundary. After
/// each step `on_step` gets the exact state (to save it); `progress` gets
/// the clusters finished. The precision rule is looked at on batch
/// boundaries only ([`at_batch_boundary`]), so the steps, which depend on
/// the machine's speed, change nothing but how often the state is handed
/// over. On `stop` the workers end after the clusters in hand, and the
/// state keeps every cluster finished (they are a prefix: clusters are
/// handed out in order and a cluster taken is always finished). The result
/// depends only on the configuration and the starting state, never on the
/// thread count, the steps or where a run was interrupted and resumed.
///
/// With the stop comes why the clusters in progress at the interrupt could
/// not finish, when one could not (a program it played with was ended by
/// the same signal): the state then keeps the clusters below it.
pub fn run_lockstep(
    cfg: &LockstepConfig,
    st: &mut LockstepState,
    stop: &AtomicBool,
    progress: &(dyn Fn(u64) + Sync),
    on_step: &mut dyn FnMut(&LockstepState) -> Result<(), String>,
) -> Result<(Stop, Option<String>), RunError> {
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
    // Every arm's tables and strategies, made once per worker and kept from
    // step to step (an external program is started once, not per step).
    let spare: Mutex<Vec<Vec<ArmWorker>>> = Mutex::new(Vec::new());
    let threads = cfg.threads as u64;
    let mut step = threads;
    let mut unfinished = None;
    let apart = cfg.arms.iter().any(|a| a.cfg.has_programs());
    let empty_part = LockstepState::part(cfg);
    loop {
        if at_batch_boundary(cfg, st) && precise_enough(cfg, st) {
            return Ok((Stop::Precision, unfinished));
        }
        if st.clusters >= cfg.max_clusters {
            return Ok((Stop::Limit, unfinished));
        }
        if stop.load(Ordering::Relaxed) {
            return Ok((Stop::Interrupted, unfinished));
        }
        let boundary = (st.clusters / cfg.batch + 1).saturating_mul(cfg.batch);
        let until = boundary
            .min(cfg.max_clusters)
            .min(st.clusters.saturating_add(step));
        let start = cfg.first_cluster + st.clusters;
        let end = cfg.first_cluster + until;
        // Small units for small steps (a slow strategy), so that every
        // thread has work and an interrupt is seen soon.
        let chunk = ((end - start) / (4 * threads)).clamp(1, 64);
        let chunks = (end - start).div_ceil(chunk);
        let clock = Instant::now();
        let done = AtomicU64::new(0);
        let before = st.clusters;
        // With a program in an arm each chunk is played into a part of its
        // own and folded in order: a chunk that a program's death after an
        // interrupt keeps from finishing leaves the chunks below it.
        // Without, each thread adds its chunks up itself (the runner's).
        let folded = Folded::new(empty.clone());
        let r = handout::in_order(
            &pool,
            chunks,
            &|| stop.load(Ordering::Relaxed),
            |_| {
                let taken = spare.lock().unwrap_or_else(|p| p.into_inner()).pop();
                let workers: Vec<ArmWorker> = taken.unwrap_or_else(|| {
                    cfg.arms
                        .iter()
                        .map(|a| ArmWorker::new(&a.cfg, &cfg.seating_names(a), cfg.duplicate))
                        .collect()
                });
                (workers, empty.clone())
            },
            |(workers, acc), k| {
                let s = start + k * chunk;
                let e = (s + chunk).min(end);
                let mut part = apart.then(|| empty_part.clone());
                if let Err(err) = play_clusters(cfg, workers, s..e, part.as_mut().unwrap_or(acc)) {
                    let at = err.game().unwrap_or(s);
                    return Err(Unfinished::keyed(cut_short(apart, stop), s, at, err));
                }
                if let Some(p) = part {
                    folded.add(k, p, |t, p| t.absorb(&p));
                }
                progress(before + done.fetch_add(e - s, Ordering::Relaxed) + (e - s));
                Ok(())
            },
            |(workers, acc)| {
                spare
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .push(workers);
                acc
            },
        );
        let (parts, why) = handout::interrupted_or_failed(r)?;
        if let Some(why) = why {
            unfinished = Some(why.to_string());
        }
        // The parts hold every cluster below the first that did not finish:
        // a prefix of this step's clusters, the whole step unless
        // interrupted (a step left short was halted by `stop`: nothing else
        // ends it early without an error).
        // The folded parts (a program at the table) or the threads' own
        // (none): the other side holds no cluster.
        for p in std::iter::once(folded.into_total().0).chain(parts) {
            if p.clusters > 0 {
                st.merge(&p);
            }
        }
        if stop.load(Ordering::Relaxed) && cfg.first_cluster + st.clusters < end {
            if st.clusters > before {
                on_step(st).map_err(RunError::Invalid)?;
                progress(st.clusters);
            }
            return Ok((Stop::Interrupted, unfinished));
        }
        debug_assert_eq!(cfg.first_cluster + st.clusters, end);
        on_step(st).map_err(RunError::Invalid)?;
        progress(st.clusters);
        // The next step: about STEP_SECS at the speed of this one.
        let played = end - start;
        let rate = played as f64 / clock.elapsed().as_secs_f64().max(1e-9);
        step = ((rate * STEP_SECS) as u64).clamp(threads, played.saturating_mul(16).max(threads));
    }
}
