//! An experiment's saved state (`state.json` in its output folder): writing
//! it while the run goes, reading it back, and the checks `--resume` makes
//! before playing on from it. The command line and the Python package both
//! go through these.

use crate::lab::experiment::ExperimentSpec;
use crate::lab::options::Overrides;
use crate::lab::Experiment;
use crate::report::outdir::check_out_dir;
use crate::sim::lockstep::{LockstepConfig, LockstepState};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Saves an experiment's state to its output folder as it plays: at most
/// every `every` seconds of play ([`StateSaver::tick`], the lockstep
/// runner's callback), and whole at the end ([`StateSaver::save`]). Without
/// an output folder it saves nothing.
pub struct StateSaver {
    path: Option<PathBuf>,
    spec: ExperimentSpec,
    commands: Vec<Vec<String>>,
    /// The seconds the commands before this one played.
    before_s: f64,
    /// When this command began to play.
    clock: Instant,
    every: f64,
    last: Instant,
}

impl StateSaver {
    /// `commands`: the commands that played the run so far, this one last,
    /// and `before_s` the seconds those before it played
    /// ([`commands_so_far`]).
    pub fn new(
        out: Option<&Path>,
        exp: &Experiment,
        (commands, before_s): (Vec<Vec<String>>, f64),
        every: f64,
    ) -> StateSaver {
        StateSaver {
            path: out.map(state_path),
            spec: exp.spec(),
            commands,
            before_s,
            clock: Instant::now(),
            every,
            last: Instant::now(),
        }
    }

    /// The seconds the run has played: the commands before this one, and
    /// this one so far.
    pub fn elapsed_s(&self) -> f64 {
        self.before_s + self.clock.elapsed().as_secs_f64()
    }

    /// The commands that played the run and their seconds, for its report:
    /// this one's too, unless it played nothing (`idle`: a resumed run that
    /// had finished, reported as it was saved).
    pub fn record(&self, idle: bool) -> (Vec<Vec<String>>, f64) {
        if idle {
            let earlier = &self.commands[..self.commands.len().saturating_sub(1)];
            (earlier.to_vec(), self.before_s)
        } else {
            (self.commands.clone(), self.elapsed_s())
        }
    }

    /// Saves `st` when `every` seconds have passed since the last save.
    pub fn tick(&mut self, st: &LockstepState) -> Result<(), String> {
        if self.path.is_none() || self.last.elapsed().as_secs_f64() < self.every {
            return Ok(());
        }
        self.last = Instant::now();
        self.save(st)
    }

    /// Saves `st` now.
    pub fn save(&self, st: &LockstepState) -> Result<(), String> {
        match &self.path {
            Some(p) => save_state(st, &self.spec, &self.commands, self.elapsed_s(), p),
            None => Ok(()),
        }
    }
}

/// The state file inside an experiment's output folder (what `--resume`
/// continues from).
pub fn state_path(out: &Path) -> PathBuf {
    out.join("state.json")
}

/// Whether an experiment's output folder lacks result files its state
/// would give (a disk that filled up as they were written): a `--resume`
/// (`resume=True`) with nothing left to play writes them again.
pub fn results_lost(out: &Path) -> bool {
    ["manifest.json", "report.md", "arms.csv"]
        .iter()
        .any(|f| !out.join(f).exists())
}

/// Writes the state to `path` whole or not at all, with
/// the experiment it belongs to (`spec`, the key `experiment`), so that
/// `--resume` can refuse another experiment's state, and the commands that
/// played it (the key `commands`, the first the one that started it), so
/// that a run continued by a bare `--resume` reports the command that set
/// it up, and the seconds they played (the key `elapsed_s`), so that its
/// report gives the whole run's time.
pub fn save_state(
    st: &LockstepState,
    spec: &ExperimentSpec,
    commands: &[Vec<String>],
    elapsed_s: f64,
    path: &Path,
) -> Result<(), String> {
    let state = serde_json::to_string(st).map_err(|e| e.to_string())?;
    let spec = serde_json::to_string(spec).map_err(|e| e.to_string())?;
    let commands = serde_json::to_string(commands).map_err(|e| e.to_string())?;
    let elapsed_s = serde_json::to_string(&elapsed_s).map_err(|e| e.to_string())?;
    // The state's object with the experiment as its first key (the sums are
    // i128: they do not go through a serde_json::Value).
    let text = match state.strip_prefix('{') {
        Some(rest) => format!(
            "{{\"experiment\":{spec},\"commands\":{commands},\"elapsed_s\":{elapsed_s},{rest}"
        ),
        None => return Err("the state is not a JSON object".into()),
    };
    crate::report::write_file_atomically(path, text.as_bytes())
}

/// The differences between two experiments that `--resume` cannot take:
/// all but the game limit, the precision rule and the description.
pub fn resume_differences(mine: &ExperimentSpec, saved: &ExperimentSpec) -> Vec<String> {
    mine.differences(saved)
        .into_iter()
        .filter(|d| !["game count", "precision", "description"].contains(&d.as_str()))
        .collect()
}

/// For `--resume` (`resume=True`): what the interrupted command set that the
/// resuming one does not repeat (`given`, its overrides): the saved run's
/// game limit, precision rule, seed, duplicate play and batch, so that a run
/// continued with a bare `--resume` plays the same games and stops where the
/// interrupted one would have, not at the file's limit without its
/// precision. Nothing when no saved experiment can be read; a saved one
/// that differs in more than those is refused by [`resume_state`], which
/// then names only what differs.
pub fn keep_saved_options(dir: &Path, exp: &mut Experiment, given: &Overrides) {
    // The experiment only: the state itself is read (and checked) once, by
    // resume_state.
    let text = std::fs::read_to_string(state_path(dir)).unwrap_or_default();
    let Some(saved) = saved_experiment(&text).ok().flatten() else {
        return;
    };
    // The seed, duplicate play and batch not given are the saved run's,
    // also when the state differs otherwise: resume_state then refuses it
    // naming what differs, not these options the command did not set. A
    // seed, duplicate play or batch given otherwise is refused by
    // resume_state naming that option.
    if given.seed.is_none() {
        exp.run.seed = saved.seed;
    }
    if given.duplicate.is_none() {
        exp.run.duplicate = saved.duplicate;
    }
    if given.batch.is_none() {
        exp.run.batch = saved.batch;
    }
    // The game limit and precision only from the same experiment: another
    // one's may not fit this one (a precision on a metric of matches, in a
    // run of rounds), and resume_state refuses it anyway.
    if !resume_differences(&exp.spec(), &saved).is_empty() {
        return;
    }
    if given.games.is_none() {
        exp.run.max_clusters = saved.games;
    }
    if given.precision.is_empty() {
        exp.run.precision = saved.precision;
        exp.run.precision_metrics = saved.precision_metrics;
        exp.run.precision_targets = saved.precision_targets;
    }
}

/// The state saved in `dir` for `--resume`, ready to play on under `cfg`
/// (`exp`'s configuration): refused when it belongs to another experiment,
/// does not fit `cfg`, or holds more games than `cfg`'s limit.
pub fn resume_state(
    dir: &Path,
    exp: &Experiment,
    cfg: &LockstepConfig,
) -> Result<LockstepState, String> {
    let spath = state_path(dir);
    let (mut st, saved) = load_state(&spath)?;
    if let Some(saved) = &saved {
        let d = resume_differences(&exp.spec(), saved);
        if !d.is_empty() {
            return Err(format!(
                "--out {} holds experiment '{}' with other settings (not the same: {}): --resume continues the same experiment only (the game limit, precision, seed, duplicate play and batch it takes from the saved run when not given); give the interrupted command's options, use another --out, or --force to start over",
                dir.display(),
                saved.name,
                d.join(", ")
            ));
        }
    }
    let fresh = LockstepState::new(cfg);
    if !st.same_shape(&fresh) {
        return Err(format!(
            "{} does not belong to this experiment (arms, seating, seed, duplicate or batch differ; a state of an earlier unolab holds rotated seats: --seating rotate; one of a comparison with a challenger lacks its pair, or seated it by its own name and not where the strategy it replaces sits: --force to start over)",
            spath.display()
        ));
    }
    st.check(cfg)
        .map_err(|e| format!("{}: {e}", spath.display()))?;
    // What the configuration says of its arms (states of earlier versions
    // do not hold it).
    for (c, f) in st.comparisons.iter_mut().zip(fresh.comparisons) {
        c.same_config = f.same_config;
    }
    // A limit below what was played would be written beside more games
    // than it allows.
    if st.clusters > cfg.max_clusters {
        return Err(format!(
            "the saved run has {} {} per arm, more than the limit of {}; resume with at least --games {}, or start over with --force",
            st.clusters,
            if exp.run.duplicate { "deals" } else { "games" },
            cfg.max_clusters,
            st.clusters
        ));
    }
    Ok(st)
}

/// Reads a saved state, with the experiment it records (`None` in a state
/// written before states recorded it).
pub fn load_state(path: &Path) -> Result<(LockstepState, Option<ExperimentSpec>), String> {
    let text = std::fs::read_to_string(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => format!(
            "{} holds no saved run to continue (no state.json: a compare or experiment given an output folder saves one as it plays, and keeps it when interrupted)",
            path.parent().unwrap_or(Path::new(".")).display()
        ),
        _ => format!("cannot read the saved state {}: {e}", path.display()),
    })?;
    parse_state(&text, &path.display().to_string())
}

/// Parses a saved state's text (`name`: the file, in messages) and checks
/// its format and version; with the experiment it records.
pub fn parse_state(
    text: &str,
    name: &str,
) -> Result<(LockstepState, Option<ExperimentSpec>), String> {
    let st: LockstepState = serde_json::from_str(text).map_err(|e| {
        // The state of an interrupted tournament or ladder is not an
        // experiment's: said as such, not as a malformed file.
        let kind = serde_json::from_str::<serde_json::Value>(text)
            .ok()
            .and_then(|v| v["kind"].as_str().map(String::from));
        match kind.as_deref() {
            Some(k @ ("tournament" | "ladder")) => {
                format!("{name} is the state of an interrupted {k}, not of an experiment")
            }
            _ => format!("malformed saved state {name}: {e}"),
        }
    })?;
    use crate::sim::lockstep::{STATE_FORMAT, STATE_VERSION, STATE_VERSION_MIN};
    if st.format != STATE_FORMAT || !(STATE_VERSION_MIN..=STATE_VERSION).contains(&st.version) {
        return Err(format!(
            "{name}: not a unolab lockstep state of version {STATE_VERSION_MIN} to {STATE_VERSION}",
        ));
    }
    let saved = saved_experiment(text).map_err(|e| format!("malformed saved state {name}: {e}"))?;
    Ok((st, saved))
}

/// What a saved state's text records beside the sums, read without the
/// state itself.
#[derive(serde::Deserialize)]
struct Head {
    /// The experiment (`None` in a state written before states recorded it).
    experiment: Option<ExperimentSpec>,
}

/// The experiment a saved state's text records (`None` in a state written
/// before states recorded it), without reading the state itself.
fn saved_experiment(text: &str) -> Result<Option<ExperimentSpec>, serde_json::Error> {
    Ok(serde_json::from_str::<Head>(text)?.experiment)
}

/// The commands that have played the run in `dir` when `this` command
/// continues it (`resume`): those its saved state records, then `this`;
/// and the seconds they played. Without `resume`, or with no state that
/// records them, `this` alone and 0.
pub fn commands_so_far(
    dir: Option<&Path>,
    resume: bool,
    this: Vec<String>,
) -> (Vec<Vec<String>>, f64) {
    crate::report::played_so_far(dir, resume, this)
}

/// Refuses an output folder holding saved work (an interrupted or finished
/// experiment, or any other results) when the run is not told to resume or
/// replace it: one line naming the folder, and `--resume` when the work is
/// this experiment's.
pub fn refuse_saved(dir: &Path, exp: &Experiment) -> Result<(), String> {
    let spath = state_path(dir);
    if !spath.exists() {
        return check_out_dir(dir, false);
    }
    let (st, saved) = match load_state(&spath) {
        Ok(x) => x,
        // Unreadable: said as any other result.
        Err(_) => return check_out_dir(dir, false),
    };
    let manifest = crate::report::outdir::read_manifest(dir);
    // Finished when the results written at the end say so for this very
    // state; a state saved while the run went on, and never followed by its
    // results, is an interrupted one.
    let finished = manifest
        .as_ref()
        .is_some_and(|m| m["partial"] == false && m["clusters"].as_u64() == Some(st.clusters));
    let name = saved.as_ref().map(|s| s.name.clone()).or_else(|| {
        manifest
            .as_ref()
            .and_then(|m| m["experiment"].as_str().map(String::from))
    });
    let differences = match &saved {
        Some(s) => resume_differences(&exp.spec(), s),
        None if st.same_shape(&LockstepState::new(&exp.run)) => Vec::new(),
        None => vec!["arms".to_string()],
    };
    let same = differences.is_empty();
    // This experiment with other settings (another seed), or another one.
    let other = if name.as_deref() == Some(exp.name.as_str()) {
        format!(
            "with other settings (not the same: {})",
            differences.join(", ")
        )
    } else {
        "not of this one".to_string()
    };
    let what = match &name {
        Some(n) if n == "compare" => "a compare".to_string(),
        Some(n) => format!("experiment '{n}'"),
        None => "an experiment".to_string(),
    };
    let unit = if st.duplicate { "deals" } else { "games" };
    let msg = match (finished, same) {
        (false, true) => format!(
            "--out {} holds an interrupted run of {what} ({} {unit} per arm played): continue it with --resume, or start over with --force",
            dir.display(),
            st.clusters
        ),
        (true, true) => format!(
            "--out {} holds the finished results of {what} ({} {unit} per arm): --resume continues it (with more --games), --force starts over",
            dir.display(),
            st.clusters
        ),
        (false, false) => format!(
            "--out {} holds an interrupted run of {what} ({} {unit} per arm played), {other}: use another --out, or --force to replace it",
            dir.display(),
            st.clusters
        ),
        (true, false) => format!(
            "--out {} holds the results of {what}, {other}: use another --out, or --force to replace them",
            dir.display()
        ),
    };
    Err(msg)
}
