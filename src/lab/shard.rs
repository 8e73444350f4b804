//! Shards of an experiment and their exact merge.
//!
//! Shard `I` of `N` of an experiment plays the clusters (games, or deals with
//! `duplicate`) `⌊clusters·I/N⌋ .. ⌊clusters·(I+1)/N⌋` of every arm, in
//! lockstep as a whole experiment does ([`crate::sim::lockstep`]). Its
//! [`ExperimentShardState`] holds the resolved experiment ([`ExperimentSpec`]),
//! the shard, and the exact [`LockstepState`] of the clusters it finished: a
//! contiguous prefix of its range, since the lockstep runner keeps the state
//! of batch boundaries only. Every statistic of a lockstep state is an integer
//! sum (run statistics, ratio sums, paired cross sums), so adding the states of
//! all `N` shards gives exactly the state of one run of all the clusters, in
//! any order; [`Merger`] does it with the same refusals as for runs.
//!
//! An adaptive precision rule cannot be sharded (each shard would stop on its
//! own data), so [`ExperimentShardState::new`] refuses it.

use crate::lab::experiment::{Experiment, ExperimentSpec};
use crate::sim::lockstep::{run_lockstep, LockstepConfig, LockstepState, Stop};
use crate::sim::runner::RunError;
use crate::sim::shard::{
    check_partial, check_range, shard_kind, Shard, ShardFile, ShardInfo, SHARD_FORMAT,
    SHARD_VERSION,
};
use serde::{Deserialize, Serialize};
use std::sync::atomic::AtomicBool;

/// The saved state of one shard of an experiment (see the module documentation).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ExperimentShardState {
    /// [`SHARD_FORMAT`].
    pub format: String,
    /// [`SHARD_VERSION`].
    pub version: u32,
    /// `"experiment"`.
    pub kind: String,
    pub config: ExperimentSpec,
    pub shard: Shard,
    /// The shard's clusters, `first_game..end_game` (games, or deals with
    /// duplicate play).
    pub first_game: u64,
    pub end_game: u64,
    /// Clusters finished: `first_game .. first_game + games_done`.
    pub games_done: u64,
    /// True while some of the shard's clusters are not finished.
    pub partial: bool,
    /// Wall-clock seconds spent on this shard, over all its sessions.
    pub elapsed_s: f64,
    /// When the shard was first started (RFC 3339 UTC).
    pub started_utc: String,
    /// Threads of the last session (never changes a result).
    pub threads: usize,
    /// The exact lockstep state of the finished clusters.
    pub state: LockstepState,
}

impl ExperimentShardState {
    /// The empty state of `shard` of `exp`. Refused for an experiment with a
    /// precision rule.
    pub fn new(
        exp: &Experiment,
        shard: Shard,
        started_utc: String,
    ) -> Result<ExperimentShardState, String> {
        if exp.run.precision.is_some() {
            return Err(format!(
                "experiment '{}' stops at a precision; an adaptive stop cannot be sharded (each shard would stop on its own data): drop [stop] precision and give the games",
                exp.name
            ));
        }
        let r = shard.range(exp.run.max_clusters);
        Ok(ExperimentShardState {
            format: SHARD_FORMAT.into(),
            version: SHARD_VERSION,
            kind: "experiment".into(),
            config: exp.spec(),
            shard,
            first_game: r.start,
            end_game: r.end,
            games_done: 0,
            partial: r.start < r.end,
            elapsed_s: 0.0,
            started_utc,
            threads: 1,
            state: LockstepState::new(&exp.lockstep(1)),
        })
    }

    /// Parses a state file's text and checks its format, version and internal
    /// consistency (the range matching the shard, the counts adding up, the
    /// lockstep state of this experiment's shape).
    pub fn from_json(text: &str) -> Result<ExperimentShardState, String> {
        let kind = shard_kind(text)?;
        if kind != "experiment" {
            return Err(format!(
                "a shard of a {kind}, not of an experiment (kind \"{kind}\")"
            ));
        }
        let s: ExperimentShardState =
            serde_json::from_str(text).map_err(|e| format!("malformed shard state: {e}"))?;
        check_range(s.shard, s.config.games, s.first_game, s.end_game)?;
        if s.games_done > s.end_game - s.first_game || s.state.clusters != s.games_done {
            return Err("its game counts do not add up".into());
        }
        check_partial(s.partial, s.games_done, s.first_game, s.end_game)?;
        let exp = Experiment::from_spec(&s.config)
            .map_err(|e| format!("its experiment does not load: {e}"))?;
        if !s.state.same_shape(&LockstepState::new(&exp.lockstep(1))) {
            return Err("its statistics do not have the shape of its experiment".into());
        }
        Ok(s)
    }

    /// The state as compact JSON (one line).
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default() + "\n"
    }

    /// The lockstep configuration of the clusters still to play.
    pub fn lockstep(&self, exp: &Experiment, threads: usize) -> LockstepConfig {
        let mut cfg = exp.lockstep(threads);
        cfg.first_cluster = self.first_game;
        cfg.max_clusters = self.end_game - self.first_game;
        cfg.precision = None;
        cfg
    }

    fn record(&mut self, st: &LockstepState) {
        self.state = st.clone();
        self.games_done = st.clusters;
        self.partial = self.games_done < self.end_game - self.first_game;
    }
}

/// Plays the clusters of `state` that are missing, on `threads` threads, and
/// records them in `state`. `exp` must be the experiment of the state
/// ([`Experiment::from_spec`] of its config, or the same file). After each
/// batch `on_batch` gets the shard state (to save it); setting `stop` ends the
/// work, keeping the last batch boundary. `progress` gets the shard's clusters
/// finished so far.
pub fn run_experiment_shard(
    exp: &Experiment,
    state: &mut ExperimentShardState,
    threads: usize,
    stop: &AtomicBool,
    progress: &(dyn Fn(u64) + Sync),
    on_batch: &mut dyn FnMut(&ExperimentShardState) -> Result<(), String>,
) -> Result<Stop, RunError> {
    let d = exp.spec().differences(&state.config);
    if !d.is_empty() {
        return Err(RunError::Invalid(format!(
            "the shard state belongs to another experiment ({} differ)",
            d.join(", ")
        )));
    }
    let cfg = state.lockstep(exp, threads);
    let mut st = state.state.clone();
    let how = {
        let mut save = |s: &LockstepState| {
            state.record(s);
            on_batch(state)
        };
        run_lockstep(&cfg, &mut st, stop, progress, &mut save)?
    };
    state.record(&st);
    state.threads = threads;
    Ok(how)
}

impl ShardFile for ExperimentShardState {
    const WHAT: &'static str = "experiments";
    type Config = ExperimentSpec;
    type Stats = LockstepState;
    fn config(&self) -> &ExperimentSpec {
        &self.config
    }
    fn differences(a: &ExperimentSpec, b: &ExperimentSpec) -> Vec<String> {
        a.differences(b)
    }
    fn total(c: &ExperimentSpec) -> u64 {
        c.games
    }
    fn info(&self) -> ShardInfo {
        ShardInfo {
            shard: self.shard,
            games_done: self.games_done,
            games: self.end_game - self.first_game,
            partial: self.partial,
            elapsed_s: self.elapsed_s,
            started_utc: self.started_utc.clone(),
            threads: self.threads,
        }
    }
    fn into_stats(self) -> LockstepState {
        self.state
    }
    fn merge_stats(into: &mut LockstepState, o: &LockstepState) {
        into.merge(o);
    }
}
