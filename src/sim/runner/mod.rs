//! The runner: many games in parallel, with streaming statistics.
//!
//! Game `i` draws its randomness from the master seed and `i` alone
//! ([`game_rngs`]), every statistic is an integer count or an exact histogram,
//! and merging is exact, so the same configuration gives identical statistics on
//! any number of threads. Memory does not grow with the number of games: each
//! worker thread keeps one [`RunStats`] and they are merged at the end.

mod config;
mod open_cluster;

pub use config::{Mode, RunBuilder, RunConfig, RunError};

use crate::agents::{Seat, StrategySpec};
use crate::engine::game::{
    game_rngs, Agents, Game, MatchResult, NoRecord, Outcome, RoundResult, MAX_PLAYERS,
};
use crate::sim::clusters::ClusterSums;
use crate::sim::seating::{Arrangements, Seating};
use crate::sim::stats::Histogram;
use open_cluster::{close_cluster, cluster_counts, OpenCluster};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;

/// Largest value kept exactly by the point histograms.
pub const POINTS_CAP: usize = 4096;
/// Largest value kept exactly by the cards-drawn histogram.
pub const DRAWN_CAP: usize = 4096;

/// Unit bins of a histogram of values up to `max` (turns of a round, rounds
/// of a match): one per value, but at most [`DENSE_CAP`] (a setting may be
/// 4 billion; larger values go to the histogram's sparse map, exactly).
fn dense_bins(max: u32) -> usize {
    (max as usize).saturating_add(1).min(DENSE_CAP)
}

/// The most unit bins of the turns and rounds-per-match histograms.
pub const DENSE_CAP: usize = 1 << 16;

/// Statistics of one strategy across all the seats it held.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct StrategyStats {
    pub name: String,
    /// Seats it holds in each game.
    pub seats: usize,
    pub round_wins: u64,
    pub match_wins: u64,
    pub illegal: u64,
    /// Winner scoring: the points of each round it won. Penalty scoring: the
    /// penalty points of each of its seats in each round.
    pub round_points: Histogram,
    /// Match totals of each of its seats.
    pub match_points: Histogram,
    /// Penalty scoring: `Σ y²` over won rounds of `y`, the penalty points
    /// of all its seats in the round (the interval of its points per seat
    /// when it holds several). `None` under winner scoring and in the
    /// states of earlier versions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub penalty_round_sq: Option<u128>,
}

/// Statistics of one seat.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SeatStats {
    pub round_wins: u64,
    pub match_wins: u64,
}

/// Everything a run measured. Merging two halves gives exactly the whole.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RunStats {
    pub players: usize,
    /// Games finished (rounds in round mode, matches in match mode).
    pub games: u64,
    pub rounds: u64,
    pub won: u64,
    pub blocked: u64,
    pub truncated: u64,
    /// Matches whose best total was shared (no winner).
    pub tied_matches: u64,
    /// Quick-play matches whose round ended blocked or truncated (no winner).
    pub no_winner_matches: u64,
    /// Matches stopped by the `max_rounds` cap before the target or the
    /// round count: their winner is the leader at the cap.
    #[serde(default)]
    pub capped_matches: u64,
    /// Of those, the ones whose lead was shared (no winner; not counted in
    /// `tied_matches`).
    #[serde(default)]
    pub capped_without_winner: u64,
    pub uno_penalties: u64,
    pub illegal: u64,
    pub strategies: Vec<StrategyStats>,
    pub seats: Vec<SeatStats>,
    /// Round wins by position in order of play from the player who moved
    /// first (0 = the first mover, 1 = the next player in the direction of play
    /// at the first turn, ...).
    pub position_wins: Vec<u64>,
    pub turns: Histogram,
    pub cards_drawn: Histogram,
    pub uno_penalties_per_round: Histogram,
    pub rounds_per_match: Histogram,
    /// Sums over clusters (deals with duplicate play, else matches) for the
    /// intervals of a run whose games or rounds are not independent; absent
    /// in plain round mode, and in the states of earlier versions (see
    /// [`crate::sim::clusters`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clusters: Option<ClusterSums>,
}

impl RunStats {
    pub fn new(cfg: &RunConfig) -> RunStats {
        let names = cfg.strategy_names();
        RunStats {
            players: cfg.players,
            games: 0,
            rounds: 0,
            won: 0,
            blocked: 0,
            truncated: 0,
            tied_matches: 0,
            no_winner_matches: 0,
            capped_matches: 0,
            capped_without_winner: 0,
            uno_penalties: 0,
            illegal: 0,
            strategies: names
                .iter()
                .map(|n| StrategyStats {
                    name: n.clone(),
                    seats: cfg.lineup.iter().filter(|s| s.name() == n).count(),
                    round_wins: 0,
                    match_wins: 0,
                    illegal: 0,
                    round_points: Histogram::new(POINTS_CAP),
                    match_points: Histogram::new(POINTS_CAP),
                    penalty_round_sq: (cfg.rules.settings.scoring
                        == crate::engine::rules::Scoring::Penalty)
                        .then_some(0),
                })
                .collect(),
            seats: vec![
                SeatStats {
                    round_wins: 0,
                    match_wins: 0
                };
                cfg.players
            ],
            position_wins: vec![0; cfg.players],
            turns: Histogram::new(dense_bins(cfg.rules.settings.max_turns)),
            cards_drawn: Histogram::new(DRAWN_CAP),
            uno_penalties_per_round: Histogram::new(64),
            rounds_per_match: Histogram::new(dense_bins(cfg.rules.settings.max_rounds)),
            clusters: (cfg.duplicate || cfg.mode == Mode::Match)
                .then(|| ClusterSums::new(cfg.players, names.len())),
        }
    }

    /// Adds one round; `strat_of_seat[s]` is the strategy index at seat `s`.
    #[inline]
    pub fn add_round(&mut self, r: &RoundResult, strat_of_seat: &[usize], penalty_scoring: bool) {
        let n = self.players;
        self.rounds += 1;
        self.turns.add(r.turns as u64);
        self.cards_drawn.add(r.cards_drawn as u64);
        self.uno_penalties += r.uno_penalties as u64;
        self.uno_penalties_per_round.add(r.uno_penalties as u64);
        for (seat, &k) in r.illegal[..n].iter().enumerate() {
            if k > 0 {
                self.illegal += k as u64;
                self.strategies[strat_of_seat[seat]].illegal += k as u64;
            }
        }
        match r.outcome {
            Outcome::Won => {
                self.won += 1;
                let w = r.winner.unwrap_or(0) as usize;
                self.seats[w].round_wins += 1;
                self.strategies[strat_of_seat[w]].round_wins += 1;
                // Steps from the first mover to the winner in the direction of
                // play at the first turn.
                let f = r.first_player as usize;
                let (a, b) = if r.first_direction >= 0 {
                    (w, f)
                } else {
                    (f, w)
                };
                self.position_wins[if a >= b { a - b } else { a + n - b }] += 1;
            }
            Outcome::Blocked => self.blocked += 1,
            Outcome::Truncated => self.truncated += 1,
        }
        if !penalty_scoring {
            round_point_values(r, strat_of_seat, false, |k, p| {
                self.strategies[k].round_points.add(p)
            });
        } else if r.outcome == Outcome::Won {
            // Each strategy's penalty over its seats, for `penalty_round_sq`.
            let mut per = [0u64; MAX_PLAYERS];
            round_point_values(r, strat_of_seat, true, |k, p| {
                self.strategies[k].round_points.add(p);
                per[k] += p;
            });
            for (s, &y) in self.strategies.iter_mut().zip(&per) {
                if let Some(q) = s.penalty_round_sq.as_mut() {
                    *q += y as u128 * y as u128;
                }
            }
        }
    }

    /// Adds one finished match (after its rounds went to [`RunStats::add_round`]).
    pub fn add_match(&mut self, m: &MatchResult, strat_of_seat: &[usize]) {
        self.rounds_per_match.add(m.rounds as u64);
        match m.winner {
            Some(w) => {
                self.seats[w as usize].match_wins += 1;
                self.strategies[strat_of_seat[w as usize]].match_wins += 1;
            }
            None if m.capped => self.capped_without_winner += 1,
            None if m.tied => self.tied_matches += 1,
            None => self.no_winner_matches += 1,
        }
        if m.capped {
            self.capped_matches += 1;
        }
        for seat in 0..self.players {
            self.strategies[strat_of_seat[seat]]
                .match_points
                .add(m.totals[seat].max(0) as u64);
        }
    }

    /// Adds everything of `o` (same configuration): the checked merge of
    /// [`RunStats::try_merge`] (`sim::checks`), the one place that lists
    /// what a merge adds.
    ///
    /// # Panics
    /// If a count would not fit (statistics of a single run never come
    /// near) or the shapes differ; statistics read from files are merged
    /// with [`RunStats::try_merge`].
    pub fn merge(&mut self, o: &RunStats) {
        if self.merge_checked(o).is_none() {
            panic!("RunStats::merge: the shapes differ or a count overflowed");
        }
    }
}

/// The result of a run: its statistics and whether it stopped early.
#[derive(Clone, Debug)]
pub struct RunOutcome {
    pub stats: RunStats,
    /// True when the run was interrupted before all games were played.
    pub partial: bool,
}

impl RunOutcome {
    /// Interrupted before any game finished: no figure to show or write.
    pub fn none_finished(&self) -> bool {
        self.partial && self.stats.games == 0
    }
}

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
    /// The strategy at each seat of the instances now, and of the game to play.
    held: Vec<u8>,
    want: Vec<u8>,
}

impl Worker {
    pub(crate) fn new(cfg: &RunConfig) -> Worker {
        let n = cfg.players;
        let names = cfg.strategy_names();
        let index = |s: &StrategySpec| names.iter().position(|x| x == s.name()).unwrap_or(0);
        let typed: Vec<usize> = cfg.lineup.iter().map(index).collect();
        let arrangements = Arrangements::new(&typed, &names);
        let mixer =
            (cfg.seating == Seating::Mixed && arrangements.cycle_len() != Some(1)).then(|| Mixer {
                arrangements,
                cluster: None,
                pos: 0,
                base: vec![0; n],
                held: typed.iter().map(|&k| k as u8).collect(),
                want: vec![0; n],
            });
        // One set of instances per rotation with rotation; one otherwise
        // (fixed seats, mixed seating, or a line-up of one arrangement).
        let rotations = if cfg.seating == Seating::Rotate { n } else { 1 };
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
        if m.want != m.held {
            // Move instances into place: seat s takes an instance of its
            // strategy from a later seat (one holding it is always there).
            let seats = &mut self.instances[0];
            for s in 0..n {
                if m.held[s] != m.want[s] {
                    let j = (s + 1..n).find(|&j| m.held[j] == m.want[s]).unwrap_or(s);
                    seats.swap(s, j);
                    m.held.swap(s, j);
                }
            }
            for (t, &k) in self.strat_of_seat[0].iter_mut().zip(&m.held) {
                *t = k as usize;
            }
        }
        0
    }
}

/// The values round `r` gives the strategies' `round_points`, as
/// `f(strategy, points)`: under winner scoring the winner's points, to the
/// winner's strategy; under penalty scoring each seat's penalty, to its
/// strategy; none from a round without a winner. The one definition the
/// run's statistics and the open cluster's sums both use.
#[inline]
fn round_point_values(
    r: &RoundResult,
    strat_of_seat: &[usize],
    penalty: bool,
    mut f: impl FnMut(usize, u64),
) {
    if r.outcome != Outcome::Won {
        return;
    }
    if penalty {
        for (seat, &k) in strat_of_seat.iter().enumerate() {
            f(k, r.points[seat] as u64);
        }
    } else {
        let w = r.winner.unwrap_or(0) as usize;
        f(strat_of_seat[w], r.points[w] as u64);
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
    let next = AtomicU64::new(0);
    let done = AtomicU64::new(0);
    let failure: Mutex<Option<(u64, RunError)>> = Mutex::new(None);
    // Chunks are handed out in order; after a failure in chunk k, chunks below k
    // still finish, so the reported failure is the lowest game's on any threads.
    let failed_chunk = AtomicU64::new(u64::MAX);
    let chunk = cfg.chunk_games();
    let chunks = cfg.games.div_ceil(chunk);
    let parts: Vec<RunStats> = pool.broadcast(|_| {
        let mut w = Worker::new(cfg);
        let mut stats = RunStats::new(cfg);
        loop {
            if stop.load(Ordering::Relaxed) {
                break;
            }
            let k = next.fetch_add(1, Ordering::Relaxed);
            if k >= chunks || k > failed_chunk.load(Ordering::Relaxed) {
                break;
            }
            let start = k * chunk;
            let end = (start + chunk).min(cfg.games);
            match play_range(cfg, &mut w, start..end, &mut stats) {
                Ok(()) => {}
                Err(e) => {
                    let mut f = failure.lock().unwrap_or_else(|p| p.into_inner());
                    // Report the failure of the lowest game, whatever the threads.
                    let game = match &e {
                        RunError::Illegal { game, .. } => *game,
                        _ => start,
                    };
                    if f.as_ref().is_none_or(|(g, _)| game < *g) {
                        *f = Some((game, e));
                    }
                    failed_chunk.fetch_min(k, Ordering::Relaxed);
                    break;
                }
            }
            let d = done.fetch_add(end - start, Ordering::Relaxed) + (end - start);
            progress(d);
        }
        stats
    });
    if let Some((_, e)) = failure.into_inner().unwrap_or_else(|p| p.into_inner()) {
        return Err(e);
    }
    let mut total = RunStats::new(cfg);
    for p in &parts {
        total.merge(p);
    }
    Ok(RunOutcome {
        partial: total.games < cfg.games,
        stats: total,
    })
}
