//! Shards and their exact merge.
//!
//! Shard `I` of `N` plays the contiguous block of game indices (clusters, for
//! an experiment) `⌊games·I/N⌋ .. ⌊games·(I+1)/N⌋` ([`Shard::range`]): which
//! games a shard plays depends on `I`, `N` and the game count alone. Game `i`
//! draws its randomness from the master seed and `i` alone and every
//! statistic is an exact integer sum, so adding the statistics of all `N`
//! shards gives exactly those of one run of all the games, in any order.
//!
//! A shard's state is a self-describing JSON file: a format name and version,
//! the kind of work ([`shard_kind`]: `"run"`, see `run` and [`ShardState`],
//! or `"experiment"`, see `lab::shard`), the resolved configuration, where
//! the shard stands ([`Progress`]: its range, what is finished, the time
//! spent, the same record in both kinds), and the exact statistics of the
//! games finished. This file owns those shared pieces and the [`Merger`] of
//! either kind ([`ShardFile`]).

mod run;

pub use run::{run_shard, RunSpec, ShardState};

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::ops::Range;

/// Format name of a shard state file.
pub const SHARD_FORMAT: &str = "unolab-shard-state";
/// Version of the shard state format written. Version 2 records the seating
/// of every configuration (version 1 files read as the rotation or fixed
/// seats they were played with) and, with duplicate play, gives each shard
/// whole deals. Versions 1 and 2 are read; others are refused, and shards of
/// different versions are not merged.
pub const SHARD_VERSION: u32 = 2;

/// The oldest shard state format version read.
pub const SHARD_VERSION_MIN: u32 = 1;

/// The most shards a run or an experiment may be split into.
pub const MAX_SHARDS: u64 = 1_000_000;

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
        if count > MAX_SHARDS {
            return Err(format!("{count} shards is too many (at most {MAX_SHARDS})"));
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
        if count == 0 {
            return Err(
                "--shard slurm: SLURM_ARRAY_TASK_COUNT is 0 (a job array has at least one task)"
                    .into(),
            );
        }
        let min = get("SLURM_ARRAY_TASK_MIN")?.unwrap_or(0);
        // `--array=4,7` or `--array=0-10:2`: the tasks' ids are not
        // min..min+count, so shards would be missed or played twice; every
        // task refuses before it plays, not only the one out of range.
        let max = get("SLURM_ARRAY_TASK_MAX")?;
        let step = get("SLURM_ARRAY_TASK_STEP")?.unwrap_or(1);
        if step != 1 || max.is_some_and(|max| max.checked_sub(min) != Some(count.saturating_sub(1)))
        {
            return Err(format!(
                "--shard slurm: the job array is not contiguous (min {min}, max {}, step {step}, {count} tasks); use --array={min}-{}",
                max.map_or("unset".into(), |m| m.to_string()),
                min.saturating_add(count.saturating_sub(1))
            ));
        }
        if id < min || id - min >= count {
            return Err(format!(
                "--shard slurm: task {id} of an array starting at {min} with {count} tasks is not in 0..{count} after subtracting the start (use a contiguous array such as --array={min}-{})",
                min.saturating_add(count.saturating_sub(1))
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

    /// The game indices this shard plays when games come in clusters of
    /// `per` that a shard must hold whole (the deals of duplicate play): the
    /// shard's block of [`Shard::range`] over the clusters, in games (the
    /// last shard also takes the games of an incomplete last cluster).
    pub fn range_of(self, games: u64, per: u64) -> Range<u64> {
        let per = per.max(1);
        let r = self.range(games / per);
        let end = if self.index + 1 == self.count {
            games
        } else {
            r.end * per
        };
        r.start * per..end
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

/// The kind of work a shard state file holds (`"run"` or `"experiment"`),
/// after checking its format name and version: a cheap first look, for a
/// clear refusal of other files and versions before the structure is read.
pub fn shard_kind(text: &str) -> Result<String, String> {
    // Read as any JSON first: a JSON file of another kind (a manifest,
    // whose "version" is a string) is "not a shard state", not "not JSON".
    let v: serde_json::Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    let field = |k: &str| v.as_object().and_then(|o| o.get(k));
    let format = field("format").and_then(|x| x.as_str());
    if format != Some(SHARD_FORMAT) {
        return Err(format!(
            "not a shard state (no \"format\": \"{SHARD_FORMAT}\")"
        ));
    }
    let version = field("version");
    if !version
        .and_then(|x| x.as_u64())
        .is_some_and(|v| (SHARD_VERSION_MIN as u64..=SHARD_VERSION as u64).contains(&v))
    {
        return Err(format!(
            "shard state format version {} (this unolab reads versions {SHARD_VERSION_MIN} to {SHARD_VERSION})",
            version.map_or("missing".to_string(), |x| x.to_string())
        ));
    }
    match field("kind").map(|x| x.as_str()) {
        Some(Some(k @ ("run" | "experiment"))) => Ok(k.to_string()),
        Some(Some(k)) => Err(format!(
            "unknown kind of shard state '{k}' (valid: run, experiment)"
        )),
        Some(None) => Err("malformed shard state: its \"kind\" is not a string".into()),
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
    /// The builds of unolab that played the shard, in order ([`build`]);
    /// empty in states written before they were recorded.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub builds: Vec<String>,
}

/// This build of unolab, as a shard state records it: the version and,
/// when the build knew it, the commit.
pub fn build() -> String {
    let version = env!("CARGO_PKG_VERSION");
    match option_env!("UNOLAB_GIT_COMMIT") {
        Some(commit) => format!("{version} {commit}"),
        None => format!("{version} (commit unknown)"),
    }
}

impl Progress {
    /// Nothing finished yet of `shard` of `games` games that come in
    /// clusters of `per` ([`Shard::range_of`]); `ranges`: whether the
    /// finished games are kept as ranges ([`Progress::done`]).
    pub fn new(
        shard: Shard,
        games: u64,
        per: u64,
        ranges: bool,
        started_utc: String,
        threads: usize,
    ) -> Progress {
        let r = shard.range_of(games, per);
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
            builds: vec![build()],
        }
    }

    /// Records that this build plays on (a resumed shard).
    pub fn note_build(&mut self) {
        let this = build();
        if self.builds.last() != Some(&this) {
            self.builds.push(this);
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
    /// of `games` in all, in clusters of `per`, are `first_game..end_game`.
    pub(crate) fn check_range(&self, games: u64, per: u64) -> Result<(), String> {
        Shard::new(self.shard.index, self.shard.count)?;
        if self.shard.range_of(games, per) != (self.first_game..self.end_game) {
            return Err("its game range does not match its shard".into());
        }
        Ok(())
    }

    /// Checks a state file's partial flag against its games finished, and
    /// its time.
    pub(crate) fn check_partial(&self) -> Result<(), String> {
        if self.partial != (self.games_done < self.games()) {
            return Err("its partial flag does not match its games".into());
        }
        if !(self.elapsed_s.is_finite() && self.elapsed_s >= 0.0) {
            return Err(format!("its elapsed_s ({}) is not a time", self.elapsed_s));
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
    /// The state format version of the file it was read from.
    fn version(&self) -> u32;
    fn config(&self) -> &Self::Config;
    /// The fields in which two configurations differ (empty: the same run).
    fn differences(a: &Self::Config, b: &Self::Config) -> Vec<String>;
    /// Games (clusters) of the whole run, over all shards.
    fn total(c: &Self::Config) -> u64;
    fn progress(&self) -> &Progress;
    fn progress_mut(&mut self) -> &mut Progress;
    fn into_stats(self) -> Self::Stats;
    /// Adds `o` to `into` with checked arithmetic: `false`, and `into`
    /// unchanged, when a sum would not fit (a hand-made file).
    fn merge_stats(into: &mut Self::Stats, o: &Self::Stats) -> bool;
    /// The state as compact JSON (one line).
    fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default() + "\n"
    }
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
    /// Shards without a state (only with `allow_partial`).
    pub missing: Vec<u64>,
    /// Shards whose state is partial: their finished games are merged
    /// (only with `allow_partial`).
    pub unfinished: Vec<u64>,
    /// Games (clusters) in the result, and of the whole run.
    pub games_done: u64,
    pub games_total: u64,
    /// Sum of the shards' elapsed seconds.
    pub elapsed_s: f64,
    /// The earliest start of a shard.
    pub started_utc: String,
    /// The most threads a shard used.
    pub threads: usize,
    /// The builds that played the shards (sorted; "not recorded" for states
    /// written before builds were): more than one says the shards' games
    /// are the same only if play did not change between them.
    pub builds: Vec<String>,
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
/// shard is listed as unfinished. The result does not depend on the order.
pub struct Merger<S: ShardFile> {
    first: Option<(String, S::Config, u32)>,
    /// The shard count, and the shards added.
    count: u64,
    seen: BTreeMap<u64, Seen>,
    stats: Option<S::Stats>,
    games_done: u64,
    elapsed_s: f64,
    started_utc: Option<String>,
    threads: usize,
    builds: std::collections::BTreeSet<String>,
}

impl<S: ShardFile> Default for Merger<S> {
    fn default() -> Self {
        Merger {
            first: None,
            count: 0,
            seen: BTreeMap::new(),
            stats: None,
            games_done: 0,
            elapsed_s: 0.0,
            started_utc: None,
            threads: 0,
            builds: std::collections::BTreeSet::new(),
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
                self.first = Some((name.to_string(), s.config().clone(), s.version()));
                self.count = info.shard.count;
            }
            Some((first, _, version)) if *version != s.version() => {
                return Err(format!(
                    "{first} and {name} are shard states of format versions {version} and {} (written by different unolab versions); rerun the shards with one version",
                    s.version()
                ));
            }
            Some((first, config, _)) => {
                let d = S::differences(config, s.config());
                if !d.is_empty() {
                    return Err(format!(
                        "{first} and {name} are shards of different {} (not the same: {})",
                        S::WHAT,
                        d.join(", ")
                    ));
                }
                if info.shard.count != self.count {
                    return Err(format!(
                        "{first} is a shard of {} but {name} is a shard of {}",
                        self.count, info.shard.count
                    ));
                }
            }
        }
        if let Some(o) = self.seen.get(&info.shard.index) {
            return Err(format!(
                "{} and {name} are the same shard {}",
                o.name, info.shard
            ));
        }
        let stats = s.into_stats();
        match &mut self.stats {
            None => self.stats = Some(stats),
            Some(t) => {
                if !S::merge_stats(t, &stats) {
                    return Err(format!(
                        "{name}: its statistics cannot be added to the others' (a sum does not fit)"
                    ));
                }
            }
        }
        self.seen.insert(
            info.shard.index,
            Seen {
                name: name.to_string(),
                partial: info.partial,
                games_done: info.games_done,
                games: info.games(),
            },
        );
        self.games_done += info.games_done;
        self.elapsed_s += info.elapsed_s;
        self.threads = self.threads.max(info.threads);
        if info.builds.is_empty() {
            self.builds.insert("not recorded".into());
        }
        self.builds.extend(info.builds);
        if self
            .started_utc
            .as_ref()
            .is_none_or(|t| info.started_utc < *t)
        {
            self.started_utc = Some(info.started_utc);
        }
        Ok(())
    }

    /// The merged result (see [`Merger`]).
    pub fn finish(self, allow_partial: bool) -> Result<Merged<S::Config, S::Stats>, String> {
        let (Some((_, config, _)), Some(stats)) = (self.first, self.stats) else {
            return Err("no shard states to merge".into());
        };
        let count = self.count;
        let absent: Vec<u64> = (0..count).filter(|i| !self.seen.contains_key(i)).collect();
        let unfinished: Vec<u64> = (0..count)
            .filter(|i| self.seen.get(i).is_some_and(|s| s.partial))
            .collect();
        if !allow_partial {
            if !absent.is_empty() {
                let also = match unfinished.len() {
                    0 => String::new(),
                    n => format!("; {n} more unfinished: {}", shown(&unfinished)),
                };
                return Err(format!(
                    "missing {} of {count} shards: {}{also} (merge them all, or --allow-partial)",
                    absent.len(),
                    shown(&absent),
                ));
            }
            if let Some((i, s)) = self.seen.iter().find(|(_, s)| s.partial) {
                return Err(format!(
                    "{} is partial: shard {i}/{count} finished {} of {} games (rerun its command to resume it, or --allow-partial)",
                    s.name, s.games_done, s.games
                ));
            }
        }
        let done = |i: &u64| self.seen.get(i).is_some_and(|s| !s.partial);
        Ok(Merged {
            games_total: S::total(&config),
            config,
            stats,
            count,
            merged: (0..count).filter(done).collect(),
            missing: absent,
            unfinished,
            games_done: self.games_done,
            elapsed_s: self.elapsed_s,
            started_utc: self.started_utc.unwrap_or_default(),
            threads: self.threads.max(1),
            builds: self.builds.into_iter().collect(),
        })
    }
}

/// Shard numbers as a list, the first 20 and "..." after them.
pub fn shown(shards: &[u64]) -> String {
    let mut v: Vec<String> = shards.iter().take(20).map(|i| i.to_string()).collect();
    if shards.len() > 20 {
        v.push("...".into());
    }
    v.join(", ")
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
        // --array=4,7: task 4 is in range, but the array is not contiguous
        // (it played shard 0 of 2, and task 7 refused). --array=0-6:2 too.
        let e = Shard::from_slurm(env(&[
            ("SLURM_ARRAY_TASK_ID", "4"),
            ("SLURM_ARRAY_TASK_COUNT", "2"),
            ("SLURM_ARRAY_TASK_MIN", "4"),
            ("SLURM_ARRAY_TASK_MAX", "7"),
        ]))
        .unwrap_err();
        assert!(e.contains("not contiguous"), "{e}");
        let e = Shard::from_slurm(env(&[
            ("SLURM_ARRAY_TASK_ID", "2"),
            ("SLURM_ARRAY_TASK_COUNT", "4"),
            ("SLURM_ARRAY_TASK_MIN", "0"),
            ("SLURM_ARRAY_TASK_MAX", "6"),
            ("SLURM_ARRAY_TASK_STEP", "2"),
        ]))
        .unwrap_err();
        assert!(e.contains("not contiguous"), "{e}");
        let s = Shard::from_slurm(env(&[
            ("SLURM_ARRAY_TASK_ID", "5"),
            ("SLURM_ARRAY_TASK_COUNT", "4"),
            ("SLURM_ARRAY_TASK_MIN", "3"),
            ("SLURM_ARRAY_TASK_MAX", "6"),
            ("SLURM_ARRAY_TASK_STEP", "1"),
        ]))
        .unwrap();
        assert_eq!(s, Shard { index: 2, count: 4 });
        assert_eq!(
            Shard::new(3, 16).unwrap().file_name(),
            "shard-0003-of-0016.json"
        );
    }
}
