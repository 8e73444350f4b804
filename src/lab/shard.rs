//! Shards of an experiment and their exact merge.
//!
//! Shard `I` of `N` of an experiment plays the clusters (games, or deals with
//! `duplicate`) `⌊clusters·I/N⌋ .. ⌊clusters·(I+1)/N⌋` of every arm, in
//! lockstep as a whole experiment does ([`crate::sim::lockstep`]). Its
//! [`ExperimentShardState`] holds the resolved experiment ([`ExperimentSpec`]),
//! its [`Progress`] (the same record as a run's shard), and the exact
//! [`LockstepState`] of the clusters it finished: a contiguous prefix of its
//! range, since the lockstep runner hands clusters out in order and keeps
//! every one it started.
//! Every statistic of a lockstep state is an integer sum (run statistics,
//! ratio sums, paired cross sums), so adding the states of all `N` shards
//! gives exactly the state of one run of all the clusters, in any order;
//! [`crate::sim::shard::Merger`] does it with the same refusals as for runs.
//!
//! An adaptive precision rule cannot be sharded (each shard would stop on its
//! own data), so [`ExperimentShardState::new`] refuses it.

use crate::lab::experiment::{Experiment, ExperimentSpec};
use crate::sim::lockstep::{run_lockstep, LockstepConfig, LockstepState, Stop};
use crate::sim::runner::RunError;
use crate::sim::shard::{shard_kind, Progress, Shard, ShardFile, SHARD_FORMAT, SHARD_VERSION};
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
    /// Its clusters (games, or deals with duplicate play), without finished
    /// ranges: the clusters finished are `first_game .. first_game +
    /// games_done`.
    #[serde(flatten)]
    pub progress: Progress,
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
        if exp.run.has_precision_rule() {
            return Err(format!(
                "experiment '{}' stops at a precision; an adaptive stop cannot be sharded (each shard would stop on its own data): drop [stop] precision and give the games",
                exp.name
            ));
        }
        Ok(ExperimentShardState {
            format: SHARD_FORMAT.into(),
            version: SHARD_VERSION,
            kind: "experiment".into(),
            config: exp.spec(),
            progress: Progress::new(shard, exp.run.max_clusters, 1, false, started_utc, 1),
            state: LockstepState::new(&exp.run),
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
        let mut s: ExperimentShardState =
            serde_json::from_str(text).map_err(|e| format!("malformed shard state: {e}"))?;
        // Not a field of an experiment's shard: ignored, as any other.
        s.progress.done = None;
        let p = &s.progress;
        p.check_range(s.config.games, 1)?;
        if p.games_done > p.games() || s.state.clusters != p.games_done {
            return Err("its game counts do not add up".into());
        }
        p.check_partial()?;
        let exp = Experiment::from_spec(&s.config)
            .map_err(|e| format!("its experiment does not load: {e}"))?;
        s.state.check(&exp.run)?;
        Ok(s)
    }

    /// The lockstep configuration of the clusters still to play.
    pub fn lockstep(&self, exp: &Experiment, threads: usize) -> LockstepConfig {
        let mut cfg = exp.lockstep(threads);
        cfg.first_cluster = self.progress.first_game;
        cfg.max_clusters = self.progress.games();
        cfg.precision = None;
        cfg.precision_targets.clear();
        cfg
    }

    fn record(&mut self, st: &LockstepState) {
        self.state = st.clone();
        self.progress.set_done(st.clusters);
    }
}

/// Plays the clusters of `state` that are missing, on `threads` threads, and
/// records them in `state`. `exp` must be the experiment of the state
/// ([`Experiment::from_spec`] of its config, or the same file). After each
/// step of play `on_batch` gets the shard state (to save it); setting `stop`
/// ends the work, keeping every cluster finished. `progress` gets the shard's clusters
/// finished so far. With the stop comes why the clusters in progress at an
/// interrupt could not finish, when one could not ([`run_lockstep`]).
pub fn run_experiment_shard(
    exp: &Experiment,
    state: &mut ExperimentShardState,
    threads: usize,
    stop: &AtomicBool,
    progress: &(dyn Fn(u64) + Sync),
    on_batch: &mut dyn FnMut(&ExperimentShardState) -> Result<(), String>,
) -> Result<(Stop, Option<String>), RunError> {
    let d = exp.spec().differences(&state.config);
    if !d.is_empty() {
        return Err(RunError::Invalid(format!(
            "the shard state belongs to another experiment (not the same: {})",
            d.join(", ")
        )));
    }
    let cfg = state.lockstep(exp, threads);
    state.progress.threads = threads;
    let mut st = state.state.clone();
    let how = {
        let mut save = |s: &LockstepState| {
            state.record(s);
            on_batch(state)
        };
        run_lockstep(&cfg, &mut st, stop, progress, &mut save)?
    };
    state.record(&st);
    Ok(how)
}

impl ShardFile for ExperimentShardState {
    const WHAT: &'static str = "experiments";
    type Config = ExperimentSpec;
    type Stats = LockstepState;
    fn version(&self) -> u32 {
        self.version
    }
    fn config(&self) -> &ExperimentSpec {
        &self.config
    }
    fn differences(a: &ExperimentSpec, b: &ExperimentSpec) -> Vec<String> {
        a.differences(b)
    }
    fn total(c: &ExperimentSpec) -> u64 {
        c.games
    }
    fn progress(&self) -> &Progress {
        &self.progress
    }
    fn progress_mut(&mut self) -> &mut Progress {
        &mut self.progress
    }
    fn into_stats(self) -> LockstepState {
        self.state
    }
    fn merge_stats(into: &mut LockstepState, o: &LockstepState) -> bool {
        into.try_merge(o)
    }
}
