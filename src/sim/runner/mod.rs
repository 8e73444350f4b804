//! The runner: many games in parallel, with streaming statistics.
//!
//! Game `i` draws its randomness from the master seed and `i` alone
//! ([`game_rngs`]), every statistic is an integer count or an exact histogram,
//! and merging is exact, so the same configuration gives identical statistics on
//! any number of threads. Memory does not grow with the number of games: each
//! worker thread keeps one [`RunStats`] and they are merged at the end.

mod config;
mod open_cluster;
mod run_stats;

pub use config::{Mode, RunBuilder, RunConfig, RunError};
pub use run_stats::{
    RunOutcome, RunStats, SeatStats, StrategyStats, DENSE_CAP, DRAWN_CAP, POINTS_CAP,
};

use crate::agents::{Seat, StrategySpec};
use crate::engine::game::{game_rngs, Agents, Game, NoRecord};
use crate::sim::handout::{self, cut_short, Folded, Unfinished};
use crate::sim::seating::{Arrangements, Seating};
use open_cluster::{close_cluster, cluster_counts, OpenCluster};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// One worker thread's strategies (the runner's, a shard's and each arm of
/// the lockstep runner's): with rotation one instance per seat per rotation,
/// else one per seat, moved between seats as each game's arrangement asks
/// ([`Worker::seat`]).
pub(crate) struct Worker {
    pub(crate) instances: Vec<Vec<Seat>>,
    /// The strategy index (in `strategy_names` order) at each seat.
    pub(crate) strat_of_seat: Vec<Vec<usize>>,
    /// Mixed seating of a line-up with more than one arrangement.
    mixer: Option<Mixer>,
    /// The run's counts at the start of the cluster in progress, and scratch
    /// space (see [`crate::sim::clusters`]).
    cluster_start: Vec<u64>,
    cluster_now: Vec<u64>,
}

/// Where the instances of a worker with mixed seating stand.
struct Mixer {
    arrangements: Arrangements,
    /// The cluster (game, or deal) whose arrangement `base` holds, and its
    /// place in the cycle.
    cluster: Option<u64>,
    pos: usize,
    base: Vec<u8>,
    /// The strategy at each seat of each instance set now (set `r` at
    /// `r * n ..`), and of the game to play.
    held: Vec<u8>,
    want: Vec<u8>,
}

impl Worker {
    pub(crate) fn new(cfg: &RunConfig) -> Worker {
        Worker::with_rotations(cfg, cfg.rotation_period(), &cfg.strategy_names())
    }

    /// The worker of `cfg` with `rotations` instance sets: the lockstep
    /// runner's arms play duplicate deals that their own configuration does
    /// not know of (the duplicate play is the experiment's), so they say how
    /// many rotations a deal is played in.
    ///
    /// `order` names the strategies (in [`RunConfig::strategy_names`]
    /// order) to put them in order for mixed seating: their own names, or
    /// those of the baseline's strategies they replace
    /// ([`RunConfig::seating_names_beside`]).
    pub(crate) fn with_rotations(cfg: &RunConfig, rotations: usize, order: &[String]) -> Worker {
        let n = cfg.players;
        let names = cfg.strategy_names();
        let index = |s: &StrategySpec| names.iter().position(|x| x == s.name()).unwrap_or(0);
        let typed: Vec<usize> = cfg.lineup.iter().map(index).collect();
        let arrangements = Arrangements::new(&typed, order);
        // One set of instances per rotation when a deal is played in
        // several rotations (rotated seats, duplicate play), one otherwise:
        // no instance plays the same deal twice, from another seat (a
        // strategy that remembers, such as a program, would know the hands).
        let mixer =
            (cfg.seating == Seating::Mixed && arrangements.cycle_len() != Some(1)).then(|| Mixer {
                arrangements,
                cluster: None,
                pos: 0,
                base: vec![0; n],
                held: (0..rotations)
                    .flat_map(|r| (0..n).map(move |s| (r, s)))
                    .map(|(r, s)| typed[(s + r) % n] as u8)
                    .collect(),
                want: vec![0; n],
            });
        let mut instances = Vec::new();
        let mut strat_of_seat = Vec::new();
        for r in 0..rotations {
            let specs: Vec<&StrategySpec> = (0..n).map(|s| &cfg.lineup[(s + r) % n]).collect();
            instances.push(specs.iter().map(|s| s.instantiate()).collect());
            strat_of_seat.push(specs.iter().map(|s| index(s)).collect());
        }
        Worker {
            instances,
            strat_of_seat,
            mixer,
            cluster_start: Vec::new(),
            cluster_now: Vec::new(),
        }
    }

    /// Seats the strategies for a game of cluster `cluster` (the game, or
    /// with duplicate play its deal) at rotation `rotation` (below
    /// [`RunConfig::rotation_period`]) and returns the instance set to play
    /// (an index of `instances` and `strat_of_seat`).
    #[inline]
    pub(crate) fn seat(&mut self, seed: u64, cluster: u64, rotation: usize) -> usize {
        let Some(m) = &mut self.mixer else {
            return if self.instances.len() == 1 {
                0
            } else {
                rotation
            };
        };
        let n = m.base.len();
        if m.cluster != Some(cluster) {
            // The next cluster's place in the cycle without a division.
            let pos = m.arrangements.cycle_len().map(|count| match m.cluster {
                Some(c) if c.wrapping_add(1) == cluster => {
                    if m.pos + 1 == count {
                        0
                    } else {
                        m.pos + 1
                    }
                }
                _ => (cluster % count as u64) as usize,
            });
            m.arrangements.get(seed, cluster, pos, &mut m.base);
            m.cluster = Some(cluster);
            m.pos = pos.unwrap_or(0);
        }
        for s in 0..n {
            let k = s + rotation;
            m.want[s] = m.base[if k >= n { k - n } else { k }];
        }
        // Each rotation of a deal has its own instance set.
        let set = if self.instances.len() == 1 {
            0
        } else {
            rotation
        };
        let held = &mut m.held[set * n..(set + 1) * n];
        if m.want[..] != *held {
            // Move instances into place: seat s takes an instance of its
            // strategy from a later seat (one holding it is always there).
            let seats = &mut self.instances[set];
            for s in 0..n {
                if held[s] != m.want[s] {
                    let j = (s + 1..n).find(|&j| held[j] == m.want[s]).unwrap_or(s);
                    seats.swap(s, j);
                    held.swap(s, j);
                }
            }
            for (t, &k) in self.strat_of_seat[set].iter_mut().zip(held.iter()) {
                *t = k as usize;
            }
        }
        set
    }
}

/// Plays games `range` into `stats`.
pub fn play_games(
    cfg: &RunConfig,
    range: std::ops::Range<u64>,
    stats: &mut RunStats,
) -> Result<(), RunError> {
    let mut w = Worker::new(cfg);
    play_range(cfg, &mut w, range, stats)
}

pub(crate) fn play_range(
    cfg: &RunConfig,
    w: &mut Worker,
    range: std::ops::Range<u64>,
    stats: &mut RunStats,
) -> Result<(), RunError> {
    let penalty = cfg.rules.settings.scoring == crate::engine::rules::Scoring::Penalty;
    let mut game = Game::new(&cfg.rules, cfg.players, 0);
    game.set_lazy_pile(true);
    let period = cfg.rotation_period();
    let mut r = (range.start % period as u64) as usize;
    // Clusters: every game (a match), or with duplicate play the games of a
    // deal, which a range holds whole (the runner's chunks and the shards of
    // a run are cut at deals); a range that cuts one (a state of an earlier
    // version resumed) cannot be clustered.
    let per = cfg.games_per_cluster();
    if range.start % per != 0 || range.end % per != 0 {
        stats.clusters = None;
    }
    let clustered = stats.clusters.is_some();
    let mut open = OpenCluster::default();
    for i in range {
        // With duplicate play the rotation is the game's place in its deal.
        let opens = clustered && (!cfg.duplicate || r == 0);
        let closes = clustered && (!cfg.duplicate || r + 1 == cfg.players);
        if opens {
            cluster_counts(stats, &mut w.cluster_start);
            open = OpenCluster::default();
        }
        let deal = if cfg.duplicate {
            i / cfg.players as u64
        } else {
            i
        };
        let (table, agent_rng) = game_rngs(cfg.seed, deal);
        // Every round and match resets the state it uses; only the generator
        // carries over, so set it for this game.
        game.set_rng(table);
        let set = w.seat(cfg.seed, deal, r);
        let mut agents = Agents {
            seats: &mut w.instances[set],
            rng: agent_rng,
        };
        let map = &w.strat_of_seat[set];
        let res = match cfg.mode {
            Mode::Round => {
                game.start_match(None);
                game.play_round(&mut agents, &mut NoRecord).map(|res| {
                    open.add(&res, map, penalty, clustered);
                    stats.add_round(&res, map, penalty)
                })
            }
            Mode::Match => game
                .play_match(&mut agents, &mut NoRecord, |res| {
                    open.add(res, map, penalty, clustered);
                    stats.add_round(res, map, penalty)
                })
                .map(|m| {
                    open.add_match(&m, map);
                    stats.add_match(&m, map)
                }),
        };
        if let Err(error) = res {
            return Err(RunError::Illegal {
                error,
                seed: cfg.seed,
                game: i,
            });
        }
        stats.games += 1;
        if closes {
            close_cluster(stats, &w.cluster_start, &mut w.cluster_now, &open, penalty);
        }
        // The next game's rotation: (i + 1) mod period, without a division.
        r += 1;
        if r == period {
            r = 0;
        }
    }
    Ok(())
}

/// Runs every game of `cfg` on `cfg.threads` threads. `progress` is called with
/// the number of games finished after each unit of work; setting `stop` makes
/// the run end after the units in progress, with `partial = true`.
pub fn run(
    cfg: &RunConfig,
    stop: &AtomicBool,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<RunOutcome, RunError> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(cfg.threads)
        .build()
        .map_err(|e| RunError::Invalid(format!("cannot start {} threads: {e}", cfg.threads)))?;
    let done = AtomicU64::new(0);
    let chunk = cfg.chunk_games();
    // With a program in the line-up each chunk is played into a part of its
    // own and folded in order, so that a chunk that a program's death after
    // an interrupt keeps from finishing leaves the chunks below it, not a
    // half-played one. Without, a chunk always finishes, and each thread
    // adds its chunks up itself.
    let apart = cfg.has_programs();
    let empty_part = RunStats::part(cfg);
    let folded = Folded::new(RunStats::new(cfg));
    let r = handout::in_order(
        &pool,
        cfg.games.div_ceil(chunk),
        &|| stop.load(Ordering::Relaxed),
        |_| (Worker::new(cfg), RunStats::new(cfg)),
        |(w, stats), k| {
            let start = k * chunk;
            let end = (start + chunk).min(cfg.games);
            let mut part = apart.then(|| empty_part.clone());
            // The failure reported is the lowest game's, whatever the threads.
            if let Err(e) = play_range(cfg, w, start..end, part.as_mut().unwrap_or(stats)) {
                let at = e.game().unwrap_or(start);
                return Err(Unfinished::keyed(cut_short(apart, stop), start, at, e));
            }
            if let Some(p) = part {
                folded.add(k, p, |t, p| t.absorb(&p));
            }
            progress(done.fetch_add(end - start, Ordering::Relaxed) + (end - start));
            Ok(())
        },
        |(_, stats)| stats,
    );
    let (parts, unfinished) = handout::interrupted_or_failed(r)?;
    let (mut total, _) = folded.into_total();
    for p in &parts {
        total.merge(p);
    }
    Ok(RunOutcome {
        partial: total.games < cfg.games,
        stats: total,
        unfinished: unfinished.map(|e| e.to_string()),
    })
}
