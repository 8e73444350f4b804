//! The shards of a run: its resolved configuration as data ([`RunSpec`]),
//! the state of one shard ([`ShardState`], kind `"run"`), and the playing of
//! the games a shard is missing ([`run_shard`]).
//!
//! The runner hands out chunks to threads, so an interrupted shard has
//! finished a set of chunks that need not be a prefix: [`Progress::done`]
//! lists them, and [`run_shard`] plays only what is missing.

use super::{shard_kind, Progress, Shard, ShardFile, SHARD_FORMAT, SHARD_VERSION};
use crate::agents::{PresetFile, StrategySpec};
use crate::engine::rules::{RuleSetFile, Rules};
use crate::sim::handout::{self, cut_short, Folded, Unfinished};
use crate::sim::runner::{play_range, Mode, RunConfig, RunError, RunStats, Worker};
use crate::sim::seating::Seating;
use serde::{Deserialize, Serialize};
use std::ops::Range;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The resolved configuration of a run as data: everything that decides its
/// games (not the thread count, which never changes a result).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(from = "RunSpecFile")]
pub struct RunSpec {
    /// The whole resolved rule set (settings and deck).
    pub rule_set: RuleSetFile,
    pub players: usize,
    /// Each seat's strategy: name, base and parameters.
    pub lineup: Vec<serde_json::Value>,
    pub games: u64,
    pub mode: Mode,
    pub seed: u64,
    /// `seating` is fixed (written for the files of earlier versions).
    pub fixed_seats: bool,
    /// Duplicate play (`run --duplicate`): groups of `players` games share a deal.
    #[serde(default)]
    pub duplicate: bool,
    /// How the line-up is seated. Files written before seatings had names
    /// (shard format version 1) have none: their games rotated the seats, or
    /// kept them with `fixed_seats`, and they read so.
    pub seating: Seating,
}

/// [`RunSpec`] as a file holds it, `seating` optional.
#[derive(Deserialize)]
struct RunSpecFile {
    rule_set: RuleSetFile,
    players: usize,
    lineup: Vec<serde_json::Value>,
    games: u64,
    mode: Mode,
    seed: u64,
    fixed_seats: bool,
    #[serde(default)]
    duplicate: bool,
    seating: Option<Seating>,
}

impl From<RunSpecFile> for RunSpec {
    fn from(f: RunSpecFile) -> RunSpec {
        let seating = match (f.seating, f.fixed_seats) {
            (_, true) => Seating::Fixed,
            (Some(s), false) => s,
            (None, false) => Seating::Rotate,
        };
        RunSpec {
            rule_set: f.rule_set,
            players: f.players,
            lineup: f.lineup,
            games: f.games,
            mode: f.mode,
            seed: f.seed,
            fixed_seats: seating == Seating::Fixed,
            duplicate: f.duplicate,
            seating,
        }
    }
}

impl RunSpec {
    pub fn of(cfg: &RunConfig) -> RunSpec {
        RunSpec {
            rule_set: cfg.rules.file.clone(),
            players: cfg.players,
            lineup: cfg.lineup.iter().map(|s| s.to_json()).collect(),
            games: cfg.games,
            mode: cfg.mode,
            seed: cfg.seed,
            fixed_seats: cfg.seating == Seating::Fixed,
            duplicate: cfg.duplicate,
            seating: cfg.seating,
        }
    }

    /// The run configuration again, on `threads` threads.
    pub fn to_config(&self, threads: usize) -> Result<RunConfig, String> {
        let rules = Rules::build(self.rule_set.clone()).map_err(|e| e.to_string())?;
        let lineup = self
            .lineup
            .iter()
            .map(strategy_from_json)
            .collect::<Result<Vec<_>, String>>()?;
        RunConfig::builder(rules, self.players, &lineup)
            .games(self.games)
            .mode(self.mode)
            .seed(self.seed)
            .threads(threads)
            .seating(self.seating)
            .duplicate(self.duplicate)
            .build()
            .map_err(|e| e.to_string())
    }

    /// The names of the top-level fields in which `self` and `o` differ.
    pub fn differences(&self, o: &RunSpec) -> Vec<&'static str> {
        [
            (self.rule_set == o.rule_set, "rule set"),
            (self.players == o.players, "players"),
            (self.lineup == o.lineup, "line-up"),
            (self.games == o.games, "game count"),
            (self.mode == o.mode, "mode"),
            (self.seed == o.seed, "seed"),
            (self.seating == o.seating, "seating"),
            (self.duplicate == o.duplicate, "duplicate play"),
        ]
        .into_iter()
        .filter(|(same, _)| !same)
        .map(|(_, what)| what)
        .collect()
    }
}

/// A strategy again from its [`StrategySpec::to_json`] (name, base,
/// parameters, and an external program's command), through a preset file.
/// A search agent's parameters go to the preset's `search` table, a
/// network's to its `net` table. The result
/// must give the same JSON back, so nothing is silently lost.
fn strategy_from_json(v: &serde_json::Value) -> Result<StrategySpec, String> {
    let as_preset = |v: &serde_json::Value| -> Result<StrategySpec, String> {
        let p: PresetFile = serde_json::from_value(v.clone()).map_err(|e| e.to_string())?;
        let text = toml::to_string(&p).map_err(|e| e.to_string())?;
        StrategySpec::parse(&text, &p.name).map_err(|e| e.to_string())
    };
    let spec = as_preset(v).or_else(|first| {
        let mut w = v.clone();
        match w.as_object_mut() {
            Some(o) if o.contains_key("params") => {
                let p = o.remove("params").unwrap_or_default();
                let table = if o.get("base").and_then(|b| b.as_str()) == Some("net") {
                    "net"
                } else {
                    "search"
                };
                o.insert(table.into(), p);
                as_preset(&w).map_err(|_| first)
            }
            _ => Err(first),
        }
    });
    match spec {
        Ok(s) if s.to_json() == *v => Ok(s),
        Ok(s) => Err(format!(
            "strategy {v} is rebuilt as {}, not the same",
            s.to_json()
        )),
        Err(e) => Err(format!("strategy {v}: {e}")),
    }
}

/// The saved state of one shard (see the module documentation).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ShardState {
    /// [`SHARD_FORMAT`].
    pub format: String,
    /// [`SHARD_VERSION`].
    pub version: u32,
    /// What the shard runs: `"run"` (one configuration, [`RunStats`]).
    pub kind: String,
    pub config: RunSpec,
    /// With the finished ranges ([`Progress::done`], always present here;
    /// `games_done` is their total length).
    #[serde(flatten)]
    pub progress: Progress,
    /// The exact statistics of the games in `done`, and of no other.
    pub stats: RunStats,
}

impl ShardState {
    /// The empty state of `shard` of `cfg`.
    pub fn new(cfg: &RunConfig, shard: Shard, started_utc: String) -> ShardState {
        ShardState {
            format: SHARD_FORMAT.into(),
            version: SHARD_VERSION,
            kind: "run".into(),
            config: RunSpec::of(cfg),
            progress: Progress::new(
                shard,
                cfg.games,
                cfg.games_per_cluster(),
                true,
                started_utc,
                cfg.threads,
            ),
            stats: RunStats::new(cfg),
        }
    }

    /// The games a shard holds whole: those of a deal with duplicate play,
    /// except in the states of format version 1, whose shards were cut at
    /// any game (and whose statistics have no cluster sums).
    pub fn games_per_cluster(&self) -> u64 {
        if self.config.duplicate && self.version >= 2 {
            self.config.players as u64
        } else {
            1
        }
    }

    /// The finished game ranges.
    pub fn done(&self) -> &[(u64, u64)] {
        self.progress.done.as_deref().unwrap_or_default()
    }

    /// Parses a state file's text and checks its format, version and internal
    /// consistency (the finished ranges inside the shard and adding up).
    pub fn from_json(text: &str) -> Result<ShardState, String> {
        let kind = shard_kind(text)?;
        if kind != "run" {
            return Err(format!(
                "a shard of an {kind}, not of a run (kind \"{kind}\")"
            ));
        }
        let s: ShardState =
            serde_json::from_str(text).map_err(|e| format!("malformed shard state: {e}"))?;
        let p = &s.progress;
        if p.done.is_none() {
            return Err("malformed shard state: missing field `done`".into());
        }
        p.check_range(s.config.games, s.games_per_cluster())?;
        let mut at = p.first_game;
        let mut total = 0;
        for &(a, b) in s.done() {
            if a < at || b <= a || b > p.end_game {
                return Err("its finished game ranges are not sorted inside the shard".into());
            }
            total += b - a;
            at = b;
        }
        if total != p.games_done || s.stats.games != total {
            return Err("its game counts do not add up".into());
        }
        p.check_partial()?;
        let cfg = s
            .config
            .to_config(1)
            .map_err(|e| format!("its configuration does not load: {e}"))?;
        s.stats.check(&cfg)?;
        Ok(s)
    }

    /// The first `max` chunks (of at most `chunk` games) of the games still
    /// to play: a shard may hold 2^64 games, a list of them all may not.
    pub fn todo(&self, chunk: u64, max: usize) -> Vec<Range<u64>> {
        let mut gaps = Vec::new();
        let p = &self.progress;
        let mut at = p.first_game;
        for &(a, b) in self.done() {
            if a > at {
                gaps.push(at..a);
            }
            at = b;
        }
        if at < p.end_game {
            gaps.push(at..p.end_game);
        }
        let chunk = chunk.max(1);
        let mut v = Vec::new();
        for g in gaps {
            let mut s = g.start;
            while s < g.end {
                if v.len() == max {
                    return v;
                }
                let e = s.saturating_add(chunk).min(g.end);
                v.push(s..e);
                s = e;
            }
        }
        v
    }

    /// Records the finished ranges `ranges` and adds their statistics.
    fn add(&mut self, ranges: &[Range<u64>], stats: &RunStats) {
        let mut all: Vec<(u64, u64)> = self.done().to_vec();
        all.extend(ranges.iter().map(|r| (r.start, r.end)));
        all.sort_unstable();
        let mut merged: Vec<(u64, u64)> = Vec::new();
        for (a, b) in all {
            match merged.last_mut() {
                Some(last) if last.1 == a => last.1 = b,
                _ => merged.push((a, b)),
            }
        }
        let games_done = merged.iter().map(|(a, b)| b - a).sum();
        self.progress.done = Some(merged);
        self.progress.set_done(games_done);
        self.stats.merge(stats);
    }
}

impl ShardFile for ShardState {
    const WHAT: &'static str = "runs";
    type Config = RunSpec;
    type Stats = RunStats;
    fn version(&self) -> u32 {
        self.version
    }
    fn config(&self) -> &RunSpec {
        &self.config
    }
    fn differences(a: &RunSpec, b: &RunSpec) -> Vec<String> {
        a.differences(b).into_iter().map(String::from).collect()
    }
    fn total(c: &RunSpec) -> u64 {
        c.games
    }
    fn progress(&self) -> &Progress {
        &self.progress
    }
    fn progress_mut(&mut self) -> &mut Progress {
        &mut self.progress
    }
    fn into_stats(self) -> RunStats {
        self.stats
    }
    fn merge_stats(into: &mut RunStats, o: &RunStats) -> bool {
        into.try_merge(o)
    }
}

/// The chunks of a shard's missing games listed at a time.
const CHUNKS_LISTED: usize = 1 << 16;

/// Plays the games of `state` that are missing, on `cfg.threads` threads, in
/// chunks of `cfg.chunk` games, and adds them to `state`. Setting `stop` ends
/// the work after the chunks in progress; the state then holds exactly the
/// finished chunks. `progress` gets the shard's games finished so far.
///
/// Every `every` of play the workers finish the chunks in hand, their
/// statistics are added to `state` and `checkpoint` gets it (to save it, so
/// that a shard killed without warning keeps what it finished up to there);
/// then play goes on. Checkpoints change when the statistics are added, never
/// what they are. An error of `checkpoint` ends the work with that error.
/// `cfg` must be the configuration of the state ([`RunSpec::to_config`]).
///
/// Returns why the chunks in progress at an interrupt could not finish, when
/// one could not (a program it played with was ended by the same signal):
/// the state then holds the chunks below it.
pub fn run_shard(
    cfg: &RunConfig,
    state: &mut ShardState,
    stop: &AtomicBool,
    progress: &(dyn Fn(u64) + Sync),
    every: Duration,
    checkpoint: &mut dyn FnMut(&ShardState) -> Result<(), String>,
) -> Result<Option<String>, RunError> {
    if RunSpec::of(cfg) != state.config {
        return Err(RunError::Invalid(
            "the shard state belongs to another configuration".into(),
        ));
    }
    if state.todo(cfg.chunk_games(), 1).is_empty() {
        return Ok(None);
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(cfg.threads)
        .build()
        .map_err(|e| RunError::Invalid(format!("cannot start {} threads: {e}", cfg.threads)))?;
    let done = AtomicU64::new(state.progress.games_done);
    // One worker per thread for the whole session (external programs are
    // started once, not at every checkpoint).
    let workers: Vec<Mutex<Option<Worker>>> = (0..cfg.threads).map(|_| Mutex::new(None)).collect();
    let mut unfinished = None;
    let apart = cfg.has_programs();
    let empty_part = RunStats::part(cfg);
    loop {
        // A session's work is listed a part at a time (a checkpoint after
        // each part at the latest).
        let todo = state.todo(cfg.chunk_games(), CHUNKS_LISTED);
        if todo.is_empty() || stop.load(Ordering::Relaxed) {
            break;
        }
        let pause = AtomicBool::new(false);
        let epoch = Instant::now();
        // With a program in the line-up each chunk is played into a part of
        // its own and folded in order: a chunk that a program's death after
        // an interrupt keeps from finishing leaves the chunks below it.
        // Without, each thread adds its chunks up itself (the runner's).
        let folded = Folded::new((RunStats::new(cfg), Vec::new()));
        let r = handout::in_order(
            &pool,
            todo.len() as u64,
            &|| stop.load(Ordering::Relaxed) || pause.load(Ordering::Relaxed),
            |t| {
                let w = workers[t].lock().unwrap_or_else(|p| p.into_inner()).take();
                let w = w.unwrap_or_else(|| Worker::new(cfg));
                (t, w, RunStats::new(cfg), Vec::new())
            },
            |(_, w, stats, finished), k| {
                let r = todo[k as usize].clone();
                // A chunk is played whole (the flags are read between chunks);
                // after a failure nothing since the last checkpoint is kept.
                let mut part = apart.then(|| empty_part.clone());
                if let Err(e) = play_range(cfg, w, r.clone(), part.as_mut().unwrap_or(stats)) {
                    let at = e.game().unwrap_or(r.start);
                    return Err(Unfinished::keyed(cut_short(apart, stop), r.start, at, e));
                }
                let n = r.end - r.start;
                match part {
                    Some(p) => folded.add(k, (p, r), |(stats, ranges), (p, r)| {
                        stats.absorb(&p);
                        ranges.push(r);
                    }),
                    None => finished.push(r),
                }
                progress(done.fetch_add(n, Ordering::Relaxed) + n);
                if epoch.elapsed() >= every {
                    pause.store(true, Ordering::Relaxed);
                }
                Ok(())
            },
            |(t, w, stats, finished)| {
                *workers[t].lock().unwrap_or_else(|p| p.into_inner()) = Some(w);
                (stats, finished)
            },
        );
        let (parts, cut) = handout::interrupted_or_failed(r)?;
        // The folded parts hold games only with a program at the table.
        let ((stats, ranges), _) = folded.into_total();
        if !ranges.is_empty() {
            state.add(&ranges, &stats);
        }
        for (stats, ranges) in &parts {
            state.add(ranges, stats);
        }
        if let Some(why) = cut {
            unfinished.get_or_insert(why.to_string());
        }
        state.progress.threads = cfg.threads;
        if state.progress.partial && !stop.load(Ordering::Relaxed) {
            checkpoint(state).map_err(RunError::Invalid)?;
        }
    }
    Ok(unfinished)
}
