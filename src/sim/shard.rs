//! Shards of a run and their exact merge.
//!
//! Shard `I` of `N` plays the contiguous block of game indices
//! `⌊games·I/N⌋ .. ⌊games·(I+1)/N⌋` ([`Shard::range`]): which games a shard
//! plays depends on `I`, `N` and the game count alone. Game `i` draws its
//! randomness from the master seed and `i` alone and every statistic is an
//! integer count or an exact histogram, so adding the [`RunStats`] of all `N`
//! shards gives exactly the statistics of one run of all the games, in any
//! order.
//!
//! A shard's [`ShardState`] is self-describing JSON: a format name and
//! version, the kind of work (`"run"`), the resolved configuration
//! ([`RunSpec`]: the whole rule set, the line-up with each strategy's
//! parameters, games, mode, seed, seat rotation), the shard, the game ranges
//! finished so far, and the exact statistics of exactly those games. The
//! runner hands out chunks to threads, so an interrupted shard has finished a
//! set of chunks that need not be a prefix: [`Progress::done`] lists them,
//! and [`run_shard`] plays only what is missing.
//!
//! Where a shard stands (its range, what is finished, the time spent) is one
//! [`Progress`] record, the same in the state of an experiment's shard
//! (`lab::shard`); [`Merger`] merges either kind.

use crate::agents::{PresetFile, StrategySpec};
use crate::engine::rules::{RuleSetFile, Rules};
use crate::sim::runner::{play_range, Mode, RunConfig, RunError, RunStats, Worker};
use serde::{Deserialize, Serialize};
use std::ops::Range;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Format name of a shard state file.
pub const SHARD_FORMAT: &str = "unolab-shard-state";
/// Version of the shard state format; states of other versions are refused.
pub const SHARD_VERSION: u32 = 1;

/// Shard `index` of `count` (0-based).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Shard {
    pub index: u64,
    pub count: u64,
}

impl Shard {
    /// A shard; `index` must be below `count`.
    pub fn new(index: u64, count: u64) -> Result<Shard, String> {
        if count == 0 {
            return Err("the shard count must be at least 1".into());
        }
        if index >= count {
            return Err(format!(
                "shard {index} of {count} does not exist (shards are numbered 0 to {})",
                count - 1
            ));
        }
        Ok(Shard { index, count })
    }

    /// `I/N`, as given to `--shard`.
    pub fn parse(s: &str) -> Result<Shard, String> {
        let bad = || format!("'{s}' is not a shard (valid: I/N with 0 <= I < N, or slurm)");
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let i: u64 = i.trim().parse().map_err(|_| bad())?;
        let n: u64 = n.trim().parse().map_err(|_| bad())?;
        Shard::new(i, n).map_err(|e| format!("--shard {s}: {e}"))
    }

    /// The shard of a Slurm job array task, from `SLURM_ARRAY_TASK_ID`,
    /// `SLURM_ARRAY_TASK_COUNT` and `SLURM_ARRAY_TASK_MIN` (0 when unset), read
    /// through `var` (the library reads no environment itself).
    pub fn from_slurm(var: impl Fn(&str) -> Option<String>) -> Result<Shard, String> {
        let get = |name: &str| -> Result<Option<u64>, String> {
            match var(name) {
                None => Ok(None),
                Some(v) => v.trim().parse::<u64>().map(Some).map_err(|_| {
                    format!("--shard slurm: {name}='{v}' is not a non-negative integer")
                }),
            }
        };
        let missing = |name: &str| {
            format!(
                "--shard slurm: {name} is not set (run inside a Slurm job array, sbatch --array=0-N, or give --shard I/N)"
            )
        };
        let id = get("SLURM_ARRAY_TASK_ID")?.ok_or_else(|| missing("SLURM_ARRAY_TASK_ID"))?;
        let count =
            get("SLURM_ARRAY_TASK_COUNT")?.ok_or_else(|| missing("SLURM_ARRAY_TASK_COUNT"))?;
        let min = get("SLURM_ARRAY_TASK_MIN")?.unwrap_or(0);
        if id < min || id - min >= count {
            return Err(format!(
                "--shard slurm: task {id} of an array starting at {min} with {count} tasks is not in 0..{count} after subtracting the start (use a contiguous array such as --array={min}-{})",
                min + count.saturating_sub(1)
            ));
        }
        Shard::new(id - min, count)
    }

    /// The game indices this shard plays: a contiguous block, the blocks of
    /// all shards covering `0..games` exactly once.
    pub fn range(self, games: u64) -> Range<u64> {
        let at = |i: u64| (games as u128 * i as u128 / self.count as u128) as u64;
        at(self.index)..at(self.index + 1)
    }

    /// The state file's name: `shard-0003-of-0016.json` (zero-padded so that
    /// names sort in shard order).
    pub fn file_name(self) -> String {
        let w = self.count.to_string().len().max(4);
        format!("shard-{:0w$}-of-{:0w$}.json", self.index, self.count, w = w)
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// The resolved configuration of a run as data: everything that decides its
/// games (not the thread count, which never changes a result).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunSpec {
    /// The whole resolved rule set (settings and deck).
    pub rule_set: RuleSetFile,
    pub players: usize,
    /// Each seat's strategy: name, base and parameters.
    pub lineup: Vec<serde_json::Value>,
    pub games: u64,
    pub mode: Mode,
    pub seed: u64,
    pub fixed_seats: bool,
    /// Duplicate play (`run --duplicate`): groups of `players` games share a deal.
    #[serde(default)]
    pub duplicate: bool,
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
            fixed_seats: cfg.fixed_seats,
            duplicate: cfg.duplicate,
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
        let mut cfg = RunConfig::new(
            rules,
            self.players,
            &lineup,
            self.games,
            self.mode,
            self.seed,
            threads,
            self.fixed_seats,
        )
        .map_err(|e| e.to_string())?;
        cfg.duplicate = self.duplicate;
        Ok(cfg)
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
            (self.fixed_seats == o.fixed_seats, "seat rotation"),
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
/// A search agent's parameters go to the preset's `search` table. The result
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
                o.insert("search".into(), p);
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

/// The kind of work a shard state file holds (`"run"` or `"experiment"`),
/// after checking its format name and version: a cheap first look, for a
/// clear refusal of other files and versions before the structure is read.
pub fn shard_kind(text: &str) -> Result<String, String> {
    #[derive(Deserialize)]
    struct Header {
        format: Option<String>,
        version: Option<u64>,
        kind: Option<String>,
    }
    let h: Header = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    if h.format.as_deref() != Some(SHARD_FORMAT) {
        return Err(format!(
            "not a shard state (no \"format\": \"{SHARD_FORMAT}\")"
        ));
    }
    if h.version != Some(SHARD_VERSION as u64) {
        return Err(format!(
            "shard state format version {} (this unolab reads version {SHARD_VERSION})",
            h.version.map_or("missing".to_string(), |x| x.to_string())
        ));
    }
    match h.kind.as_deref() {
        Some(k @ ("run" | "experiment")) => Ok(k.to_string()),
        Some(k) => Err(format!(
            "unknown kind of shard state '{k}' (valid: run, experiment)"
        )),
        None => Err("malformed shard state: no \"kind\"".into()),
    }
}

/// Where a shard stands, as every kind of shard state records it: the
/// shard, its games (clusters), what is finished and the time spent. A state
/// file holds these fields at its top level, between the configuration and
/// the statistics (`#[serde(flatten)]`: nothing here is an `i128`, which
/// flattening could not read back).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Progress {
    pub shard: Shard,
    /// The shard's games (clusters), `first_game..end_game`.
    pub first_game: u64,
    pub end_game: u64,
    /// The finished game ranges `[start, end)`, sorted and coalesced, where
    /// they need not be a prefix (a run's chunks, see [`run_shard`]); absent
    /// where the finished games are always `first_game .. first_game +
    /// games_done` (an experiment's batches).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub done: Option<Vec<(u64, u64)>>,
    /// Games (clusters) finished.
    pub games_done: u64,
    /// True while some of the shard's games are not finished.
    pub partial: bool,
    /// Wall-clock seconds spent on this shard, over all its sessions.
    pub elapsed_s: f64,
    /// When the shard was first started (RFC 3339 UTC).
    pub started_utc: String,
    /// Threads of the last session (never changes a result).
    pub threads: usize,
}

impl Progress {
    /// Nothing finished yet of `shard` of `games` games; `ranges`: whether
    /// the finished games are kept as ranges ([`Progress::done`]).
    pub fn new(
        shard: Shard,
        games: u64,
        ranges: bool,
        started_utc: String,
        threads: usize,
    ) -> Progress {
        let r = shard.range(games);
        Progress {
            shard,
            first_game: r.start,
            end_game: r.end,
            done: ranges.then(Vec::new),
            games_done: 0,
            partial: r.start < r.end,
            elapsed_s: 0.0,
            started_utc,
            threads,
        }
    }

    /// Games (clusters) in the shard.
    pub fn games(&self) -> u64 {
        self.end_game - self.first_game
    }

    /// Records `games_done` games finished.
    pub fn set_done(&mut self, games_done: u64) {
        self.games_done = games_done;
        self.partial = games_done < self.games();
    }

    /// Checks a state file's shard and game range: a valid shard whose games
    /// of `games` in all are `first_game..end_game`.
    pub(crate) fn check_range(&self, games: u64) -> Result<(), String> {
        Shard::new(self.shard.index, self.shard.count)?;
        if self.shard.range(games) != (self.first_game..self.end_game) {
            return Err("its game range does not match its shard".into());
        }
        Ok(())
    }

    /// Checks a state file's partial flag against its games finished.
    pub(crate) fn check_partial(&self) -> Result<(), String> {
        if self.partial != (self.games_done < self.games()) {
            return Err("its partial flag does not match its games".into());
        }
        Ok(())
    }
}

/// What [`Merger`] and a shard's session need of a kind of shard state: its
/// configuration (equal in every shard of one run), its progress, exact
/// statistics that add, and its JSON.
pub trait ShardFile: Serialize + Clone {
    /// What a configuration is, in the plural ("runs", "experiments").
    const WHAT: &'static str;
    type Config: Clone;
    type Stats;
    fn config(&self) -> &Self::Config;
    /// The fields in which two configurations differ (empty: the same run).
    fn differences(a: &Self::Config, b: &Self::Config) -> Vec<String>;
    /// Games (clusters) of the whole run, over all shards.
    fn total(c: &Self::Config) -> u64;
    fn progress(&self) -> &Progress;
    fn progress_mut(&mut self) -> &mut Progress;
    fn into_stats(self) -> Self::Stats;
    fn merge_stats(into: &mut Self::Stats, o: &Self::Stats);
    /// The state as compact JSON (one line).
    fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default() + "\n"
    }
}

impl ShardFile for ShardState {
    const WHAT: &'static str = "runs";
    type Config = RunSpec;
    type Stats = RunStats;
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
    fn merge_stats(into: &mut RunStats, o: &RunStats) {
        into.merge(o);
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
            progress: Progress::new(shard, cfg.games, true, started_utc, cfg.threads),
            stats: RunStats::new(cfg),
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
        p.check_range(s.config.games)?;
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
        Ok(s)
    }

    /// The games still to play, in chunks of at most `chunk` games.
    pub fn todo(&self, chunk: u64) -> Vec<Range<u64>> {
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
                let e = (s + chunk).min(g.end);
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
pub fn run_shard(
    cfg: &RunConfig,
    state: &mut ShardState,
    stop: &AtomicBool,
    progress: &(dyn Fn(u64) + Sync),
    every: Duration,
    checkpoint: &mut dyn FnMut(&ShardState) -> Result<(), String>,
) -> Result<(), RunError> {
    if RunSpec::of(cfg) != state.config {
        return Err(RunError::Invalid(
            "the shard state belongs to another configuration".into(),
        ));
    }
    if state.todo(cfg.chunk).is_empty() {
        return Ok(());
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(cfg.threads)
        .build()
        .map_err(|e| RunError::Invalid(format!("cannot start {} threads: {e}", cfg.threads)))?;
    let done = AtomicU64::new(state.progress.games_done);
    // One worker per thread for the whole session (external programs are
    // started once, not at every checkpoint).
    let workers: Vec<Mutex<Option<Worker>>> = (0..cfg.threads).map(|_| Mutex::new(None)).collect();
    loop {
        let todo = state.todo(cfg.chunk);
        if todo.is_empty() || stop.load(Ordering::Relaxed) {
            break;
        }
        let pause = AtomicBool::new(false);
        let epoch = Instant::now();
        let next = AtomicU64::new(0);
        let failure: Mutex<Option<(u64, RunError)>> = Mutex::new(None);
        let failed_chunk = AtomicU64::new(u64::MAX);
        let parts: Vec<(RunStats, Vec<Range<u64>>)> = pool.broadcast(|ctx| {
            let mut slot = workers[ctx.index()]
                .lock()
                .unwrap_or_else(|p| p.into_inner());
            let w = slot.get_or_insert_with(|| Worker::new(cfg));
            let mut stats = RunStats::new(cfg);
            let mut finished = Vec::new();
            loop {
                if stop.load(Ordering::Relaxed) || pause.load(Ordering::Relaxed) {
                    break;
                }
                let k = next.fetch_add(1, Ordering::Relaxed);
                if k as usize >= todo.len() || k > failed_chunk.load(Ordering::Relaxed) {
                    break;
                }
                let r = todo[k as usize].clone();
                // A chunk is played whole (the flags are read between chunks);
                // after a failure nothing since the last checkpoint is kept.
                if let Err(e) = play_range(cfg, w, r.clone(), &mut stats) {
                    let game = match &e {
                        RunError::Illegal { game, .. } => *game,
                        _ => r.start,
                    };
                    let mut f = failure.lock().unwrap_or_else(|p| p.into_inner());
                    if f.as_ref().is_none_or(|(g, _)| game < *g) {
                        *f = Some((game, e));
                    }
                    failed_chunk.fetch_min(k, Ordering::Relaxed);
                    break;
                }
                let n = r.end - r.start;
                finished.push(r);
                progress(done.fetch_add(n, Ordering::Relaxed) + n);
                if epoch.elapsed() >= every {
                    pause.store(true, Ordering::Relaxed);
                }
            }
            (stats, finished)
        });
        if let Some((_, e)) = failure.into_inner().unwrap_or_else(|p| p.into_inner()) {
            return Err(e);
        }
        for (stats, ranges) in &parts {
            state.add(ranges, stats);
        }
        state.progress.threads = cfg.threads;
        if state.progress.partial && !stop.load(Ordering::Relaxed) {
            checkpoint(state).map_err(RunError::Invalid)?;
        }
    }
    Ok(())
}

/// The result of merging shard states.
#[derive(Clone, Debug)]
pub struct Merged<C, T> {
    pub config: C,
    /// The sum of the merged shards' statistics.
    pub stats: T,
    pub count: u64,
    /// The shards merged, in shard order.
    pub merged: Vec<u64>,
    /// Shards without a state, or whose state is partial (only with
    /// `allow_partial`).
    pub missing: Vec<u64>,
    /// Games (clusters) in the result, and of the whole run.
    pub games_done: u64,
    pub games_total: u64,
    /// Sum of the shards' elapsed seconds.
    pub elapsed_s: f64,
    /// The earliest start of a shard.
    pub started_utc: String,
    /// The most threads a shard used.
    pub threads: usize,
}

impl<C, T> Merged<C, T> {
    /// Whether some games are not in the result.
    pub fn partial(&self) -> bool {
        self.games_done < self.games_total
    }
}

/// What the merge keeps of a shard after adding it.
#[derive(Clone, Debug)]
struct Seen {
    name: String,
    partial: bool,
    games_done: u64,
    games: u64,
}

/// Merges shard states of one run (or one experiment) one at a time, keeping
/// only their sum (the memory does not grow with the number of shards).
/// Refused, naming the files: states of different configurations (rule set,
/// line-up, seed, game count, ...) or shard counts, the same shard twice, and
/// in [`Merger::finish`] unless `allow_partial` a missing or partial shard.
/// With `allow_partial` a partial shard's finished games are merged and the
/// shard is listed as missing. The result does not depend on the order.
pub struct Merger<S: ShardFile> {
    first: Option<(String, S::Config)>,
    seen: Vec<Option<Seen>>,
    stats: Option<S::Stats>,
    games_done: u64,
    elapsed_s: f64,
    started_utc: Option<String>,
    threads: usize,
}

impl<S: ShardFile> Default for Merger<S> {
    fn default() -> Self {
        Merger {
            first: None,
            seen: Vec::new(),
            stats: None,
            games_done: 0,
            elapsed_s: 0.0,
            started_utc: None,
            threads: 0,
        }
    }
}

impl<S: ShardFile> Merger<S> {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds the state `s` read from `name`.
    pub fn add(&mut self, name: &str, s: S) -> Result<(), String> {
        let info = s.progress().clone();
        match &self.first {
            None => {
                self.first = Some((name.to_string(), s.config().clone()));
                self.seen = vec![None; info.shard.count as usize];
            }
            Some((first, config)) => {
                let d = S::differences(config, s.config());
                if !d.is_empty() {
                    return Err(format!(
                        "{first} and {name} are shards of different {} ({} differ)",
                        S::WHAT,
                        d.join(", ")
                    ));
                }
                if info.shard.count != self.seen.len() as u64 {
                    return Err(format!(
                        "{first} is a shard of {} but {name} is a shard of {}",
                        self.seen.len(),
                        info.shard.count
                    ));
                }
            }
        }
        let slot = &mut self.seen[info.shard.index as usize];
        if let Some(o) = slot {
            return Err(format!(
                "{} and {name} are the same shard {}",
                o.name, info.shard
            ));
        }
        *slot = Some(Seen {
            name: name.to_string(),
            partial: info.partial,
            games_done: info.games_done,
            games: info.games(),
        });
        self.games_done += info.games_done;
        self.elapsed_s += info.elapsed_s;
        self.threads = self.threads.max(info.threads);
        if self
            .started_utc
            .as_ref()
            .is_none_or(|t| info.started_utc < *t)
        {
            self.started_utc = Some(info.started_utc);
        }
        let stats = s.into_stats();
        match &mut self.stats {
            None => self.stats = Some(stats),
            Some(t) => S::merge_stats(t, &stats),
        }
        Ok(())
    }

    /// The merged result (see [`Merger`]).
    pub fn finish(self, allow_partial: bool) -> Result<Merged<S::Config, S::Stats>, String> {
        let (Some((_, config)), Some(stats)) = (self.first, self.stats) else {
            return Err("no shard states to merge".into());
        };
        let count = self.seen.len() as u64;
        let absent: Vec<u64> = (0..count)
            .filter(|&i| self.seen[i as usize].is_none())
            .collect();
        if !allow_partial {
            if !absent.is_empty() {
                let shown: Vec<String> = absent.iter().take(20).map(|i| i.to_string()).collect();
                return Err(format!(
                    "missing {} of {count} shards: {}{} (merge them all, or --allow-partial)",
                    absent.len(),
                    shown.join(", "),
                    if absent.len() > 20 { ", ..." } else { "" }
                ));
            }
            if let Some((i, s)) = self
                .seen
                .iter()
                .enumerate()
                .find_map(|(i, s)| s.as_ref().filter(|s| s.partial).map(|s| (i, s)))
            {
                return Err(format!(
                    "{} is partial: shard {i}/{count} finished {} of {} games (rerun its command to resume it, or --allow-partial)",
                    s.name, s.games_done, s.games
                ));
            }
        }
        let done = |i: &u64| self.seen[*i as usize].as_ref().is_some_and(|s| !s.partial);
        Ok(Merged {
            games_total: S::total(&config),
            config,
            stats,
            count,
            merged: (0..count).filter(done).collect(),
            missing: (0..count).filter(|i| !done(i)).collect(),
            games_done: self.games_done,
            elapsed_s: self.elapsed_s,
            started_utc: self.started_utc.unwrap_or_default(),
            threads: self.threads.max(1),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_cover_every_game_once() {
        for games in [1u64, 7, 1000, 1 << 40] {
            for count in [1u64, 2, 3, 16, 1000] {
                let mut at = 0;
                for i in 0..count {
                    let r = Shard::new(i, count).unwrap().range(games);
                    assert_eq!(r.start, at);
                    assert!(r.end - r.start <= games / count + 1);
                    at = r.end;
                }
                assert_eq!(at, games);
            }
        }
    }

    #[test]
    fn shard_parsing_and_slurm() {
        assert_eq!(Shard::parse("2/4").unwrap(), Shard { index: 2, count: 4 });
        assert!(Shard::parse("4/4").is_err());
        assert!(Shard::parse("0/0").is_err());
        assert!(Shard::parse("x").is_err());
        let env = |vars: &'static [(&'static str, &'static str)]| {
            move |k: &str| {
                vars.iter()
                    .find(|(n, _)| *n == k)
                    .map(|(_, v)| v.to_string())
            }
        };
        let s = Shard::from_slurm(env(&[
            ("SLURM_ARRAY_TASK_ID", "5"),
            ("SLURM_ARRAY_TASK_COUNT", "4"),
            ("SLURM_ARRAY_TASK_MIN", "3"),
        ]))
        .unwrap();
        assert_eq!(s, Shard { index: 2, count: 4 });
        let e = Shard::from_slurm(env(&[("SLURM_ARRAY_TASK_COUNT", "4")])).unwrap_err();
        assert!(e.contains("SLURM_ARRAY_TASK_ID is not set"), "{e}");
        let e = Shard::from_slurm(env(&[
            ("SLURM_ARRAY_TASK_ID", "9"),
            ("SLURM_ARRAY_TASK_COUNT", "4"),
        ]))
        .unwrap_err();
        assert!(e.contains("contiguous"), "{e}");
        assert_eq!(
            Shard::new(3, 16).unwrap().file_name(),
            "shard-0003-of-0016.json"
        );
    }
}
