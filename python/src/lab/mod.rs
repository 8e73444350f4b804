//! Running the lab from Python: `run`, `compare`, `experiment`,
//! `tournament`, `ladder`, `tune`, `trace`, `rules` and `strategies`, with the options of the
//! command line turned into configurations by the core's own code
//! (`unolab::lab::options`) and the results written by the core's reports as
//! JSON (the text `unolab ... --json` prints), which the Python side loads.
//!
//! A long call releases the interpreter's lock and plays on the core's thread
//! pool in a thread of its own, while the calling thread wakes every 50 ms to
//! run Python's signal handlers (Ctrl-C stops the work after the units in
//! progress, what finished is kept) and the progress callback, if any.

use crate::strategy;
use crate::{exists_error, read_error, rules_error, strategy_error, value_error};
use pyo3::exceptions::{PyFileNotFoundError, PyRuntimeError};
use pyo3::prelude::*;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use unolab::agents;
use unolab::engine::rules::{RuleSetFile, Rules, Unread, BUILTIN_NAMES};
use unolab::lab::options::{CompareOptions, Overrides, RunOptions};
use unolab::lab::tournament::{self as tour, TournamentConfig};
use unolab::lab::{experiment as exp_file, ConfigError, Entrant, Experiment};
use unolab::report::experiment::{
    commands_so_far, keep_saved_options, refuse_saved, resume_state, state_path, ExperimentReport,
    StateSaver,
};
use unolab::report::tournament::{read_state, save_state, state_fingerprint, TournamentReport};
use unolab::report::{played_so_far, Report};
use unolab::sim::lockstep::{run_lockstep, LockstepState, Stop};
use unolab::sim::{self, CHECKPOINT_SECS};

mod args;
mod strength_ladder;
mod tuning;

pub use args::thread_limit;
use args::*;
pub use strength_ladder::{ladder, redraw_ladder};
pub use tuning::tune;

// ----- the long work, off the interpreter's lock -------------------------------

/// A `RuntimeWarning` when the games in progress at an interrupt could not
/// finish (a program they played with was ended too): they are left out,
/// with every later one.
fn warn_unfinished(py: Python<'_>, why: Option<&str>) -> PyResult<()> {
    let Some(why) = why else {
        return Ok(());
    };
    runtime_warning(
        py,
        &format!(
            "the games in progress at the interrupt could not finish and are left out, with every later game ({why})"
        ),
    )
}

/// A `RuntimeWarning` saying `text`.
fn runtime_warning(py: Python<'_>, text: &str) -> PyResult<()> {
    let text = std::ffi::CString::new(text.replace('\0', " ")).unwrap_or_default();
    PyErr::warn(
        py,
        &py.get_type::<pyo3::exceptions::PyRuntimeWarning>(),
        &text,
        1,
    )
}

/// Runs `work` in a thread of its own with the interpreter's lock released;
/// the calling thread handles signals (a `KeyboardInterrupt` sets the stop
/// flag) and calls `progress(done, total)` every 50 ms. Returns what `work`
/// returned and whether it was interrupted.
fn drive<T: Send>(
    py: Python<'_>,
    progress: Option<Py<PyAny>>,
    total: u64,
    work: impl FnOnce(&AtomicBool, &(dyn Fn(u64) + Sync)) -> T + Send,
) -> PyResult<(T, bool)> {
    let stop = AtomicBool::new(false);
    let done = AtomicU64::new(0);
    let mut raised: Option<PyErr> = None;
    let mut interrupted = false;
    let mut last = u64::MAX;
    let out = py.detach(|| {
        std::thread::scope(|s| {
            // The work says when it ends, so that a short call returns at
            // once (waiting out the 50 ms tick made every call take 50 ms
            // at least, and its games per second wrong).
            let (ended, end) = std::sync::mpsc::channel::<()>();
            let (stop, done) = (&stop, &done);
            let h = s.spawn(move || {
                let out = work(stop, &|d| done.store(d, Ordering::Relaxed));
                let _ = ended.send(());
                out
            });
            while let Err(std::sync::mpsc::RecvTimeoutError::Timeout) =
                end.recv_timeout(Duration::from_millis(50))
            {
                Python::attach(|py| {
                    if let Err(e) = py.check_signals() {
                        if e.is_instance_of::<pyo3::exceptions::PyKeyboardInterrupt>(py) {
                            interrupted = true;
                            // The flag first, as the command line's
                            // handler does: a fault released by the
                            // interrupt then finds the work stopped.
                            stop.store(true, Ordering::SeqCst);
                            // A program that hangs no longer holds the
                            // games in progress.
                            unolab::agents::external::interrupted();
                        } else if raised.is_none() {
                            raised = Some(e);
                        }
                        stop.store(true, Ordering::SeqCst);
                    }
                    let d = done.load(Ordering::Relaxed);
                    // A callback that raised is not called again.
                    if let (Some(cb), true, true) = (&progress, d != last, raised.is_none()) {
                        last = d;
                        if let Err(e) = cb.call1(py, (d, total)) {
                            // Ctrl-C while the callback runs is raised in
                            // it: an interrupt (what finished is kept), not
                            // the callback's error.
                            if e.is_instance_of::<pyo3::exceptions::PyKeyboardInterrupt>(py) {
                                interrupted = true;
                            } else if raised.is_none() {
                                raised = Some(e);
                            }
                            stop.store(true, Ordering::SeqCst);
                        }
                    }
                });
            }
            h.join()
        })
    });
    // The interrupt shortened the waits of this call's programs only: an
    // environment's external seats after it wait their full time again.
    unolab::agents::external::carry_on();
    if let Some(e) = raised {
        return Err(e);
    }
    let out = out.map_err(|_| PyRuntimeError::new_err("the run failed (a panic in the core)"))?;
    // The last count, unless the loop gave it already.
    let d = done.load(Ordering::Relaxed);
    if let (Some(cb), true) = (&progress, d != last) {
        cb.call1(py, (d, total))?;
    }
    Ok((out, interrupted))
}

/// A refused `resume=True`: no saved state is a missing file
/// (`FileNotFoundError`), a state that does not fit a bad value
/// (`ValueError`), for every function that resumes alike.
pub(crate) fn resume_error(dir: &std::path::Path, e: String) -> PyErr {
    if state_path(dir).exists() {
        value_error(e)
    } else {
        PyFileNotFoundError::new_err(e)
    }
}

/// Interrupted before any game finished: nothing is written or returned,
/// as the command line does (the folders made for `out` go again with
/// [`prepare_out`]'s guard).
fn nothing_finished() -> PyErr {
    pyo3::exceptions::PyKeyboardInterrupt::new_err(
        "interrupted: no game had finished; nothing written",
    )
}

// ----- the functions -----------------------------------------------------------

/// `unolab run`: returns the JSON of `--json` and whether it was interrupted.
#[pyfunction]
#[pyo3(signature = (rules, set, house, players, strategies, games, mode, seed, threads, seating, fixed_seats, duplicate, out, force, progress, call=None))]
#[allow(clippy::too_many_arguments)]
pub fn run(
    py: Python<'_>,
    rules: &str,
    set: Vec<String>,
    house: Vec<String>,
    players: usize,
    strategies: Vec<Bound<'_, PyAny>>,
    games: u64,
    mode: &str,
    seed: u64,
    threads: Option<usize>,
    seating: Option<&str>,
    fixed_seats: bool,
    duplicate: bool,
    out: Option<PathBuf>,
    force: bool,
    progress: Option<Py<PyAny>>,
    call: Option<String>,
) -> PyResult<(String, bool)> {
    check_players(players)?;
    check_count(games)?;
    if let (Some(s), true) = (seating, fixed_seats) {
        return Err(value_error(format!(
            "fixed_seats=True cannot be given with seating='{s}' (fixed_seats=True is seating='fixed'): give one of them"
        )));
    }
    let seating = seating_of(seating)?.unwrap_or_default();
    let rules = load_rules(rules, &set, &house)?;
    let mut customs = Customs::default();
    let names = customs.names(&strategies)?;
    let lineup = customs.lineup(&names)?;
    let mode = mode_of(mode)?;
    let cfg = RunOptions {
        rules,
        players,
        strategies: lineup,
        games,
        mode,
        seed,
        threads: threads_of(threads)?,
        seating,
        fixed_seats,
        duplicate,
    }
    .config()
    .map_err(|e| value_error(e.to_string()))?;
    let _aside = claim_out(&out, force)?;
    let _made = prepare_out(&out)?;
    let started = now_utc();
    let clock = Instant::now();
    let (outcome, interrupted) = drive(py, progress, cfg.games, |stop, p| sim::run(&cfg, stop, p))?;
    let outcome = outcome.map_err(|e| customs.run_error(e.to_string()))?;
    if outcome.none_finished() {
        // Figures from no game would be figures without data.
        return Err(nothing_finished());
    }
    let report = Report {
        cfg: &cfg,
        stats: &outcome.stats,
        elapsed_s: clock.elapsed().as_secs_f64(),
        partial: outcome.partial,
        started_utc: started,
    };
    let done = finish(
        &out,
        |dir| report.write_dir(dir, &command("run", call)),
        report.to_json(),
        interrupted && outcome.partial,
    )?;
    // After the results are written: a warning made an error
    // (`-W error`) must not lose them.
    warn_unfinished(py, outcome.unfinished.as_deref())?;
    Ok(done)
}

/// `unolab tournament`: the JSON of `--json` and whether it was interrupted.
#[pyfunction]
#[pyo3(signature = (rules, set, house, players, strategies, games, seed, threads, allow_oracle, out, force, resume, progress, call=None))]
#[allow(clippy::too_many_arguments)]
pub fn tournament(
    py: Python<'_>,
    rules: &str,
    set: Vec<String>,
    house: Vec<String>,
    players: usize,
    strategies: Vec<Bound<'_, PyAny>>,
    games: u64,
    seed: u64,
    threads: Option<usize>,
    allow_oracle: bool,
    out: Option<PathBuf>,
    force: bool,
    resume: bool,
    progress: Option<Py<PyAny>>,
    call: Option<String>,
) -> PyResult<(String, bool)> {
    check_players(players)?;
    check_count(games)?;
    if resume && out.is_none() {
        return Err(value_error(
            "resume=True needs out=DIR (where the state was saved)",
        ));
    }
    if resume && force {
        return Err(value_error(
            "resume=True continues the saved tournament and force=True replaces it: give one",
        ));
    }
    let rules = load_rules(rules, &set, &house)?;
    let mut customs = Customs::default();
    let names = customs.names(&strategies)?;
    let field = customs.lineup(&names)?;
    let cfg = TournamentConfig {
        rules,
        players,
        entrants: field.iter().map(Entrant::from_spec).collect(),
        games,
        seed,
        threads: threads_of(threads)?,
        chunk: unolab::lab::options::chunk_for(&field, 1024),
        allow_oracle,
    };
    cfg.validate().map_err(|e| value_error(e.to_string()))?;
    // What a saved state must match (resume=True continues it).
    let print = state_fingerprint(&cfg, field.iter().map(|s| s.to_json()).collect());
    let (saved, _aside) = match &out {
        Some(dir) if resume => (
            Some(
                read_state(dir, &print, games)
                    .map_err(|e| resume_error(dir, format!("resume=True: {e}")))?,
            ),
            None,
        ),
        _ => (None, claim_out(&out, force)?),
    };
    let _made = prepare_out(&out)?;
    let (commands, before_s) = played_so_far(out.as_deref(), resume, command("tournament", call));
    let started = now_utc();
    let clock = Instant::now();
    let (outcome, interrupted) = drive(py, progress, games, |stop, p| {
        tour::run_from(&cfg, saved, stop, p)
    })?;
    let outcome = outcome.map_err(|e| customs.run_error(e.to_string()))?;
    if outcome.none_finished() {
        return Err(nothing_finished());
    }
    let report = TournamentReport {
        cfg: &cfg,
        outcome: &outcome,
        elapsed_s: before_s + clock.elapsed().as_secs_f64(),
        started_utc: started,
    };
    let done = finish(
        &out,
        |dir| {
            report.write_dir(dir, &commands)?;
            save_state(dir, &print, &outcome, &commands, report.elapsed_s)
        },
        report.to_json(),
        interrupted && outcome.partial,
    )?;
    warn_unfinished(py, outcome.unfinished.as_deref())?;
    Ok(done)
}

/// Where an experiment's results go, and what happens to what is there:
/// `resume` plays on from the saved state (`--resume`), `force` replaces
/// the earlier results (`--force`); neither refuses a folder holding any.
struct Saving {
    out: Option<PathBuf>,
    resume: bool,
    force: bool,
}

/// Plays an experiment (a file's or `compare`'s) with the overrides; the
/// JSON of `--json` and whether it was interrupted.
#[allow(clippy::too_many_arguments)]
fn play_experiment(
    py: Python<'_>,
    mut exp: Experiment,
    overrides: Overrides,
    threads: Option<usize>,
    saving: Saving,
    progress: Option<Py<PyAny>>,
    customs: &Customs,
    command: Vec<String>,
) -> PyResult<(String, bool)> {
    let Saving { out, resume, force } = saving;
    overrides.apply(&mut exp).map_err(value_error)?;
    if let (Some(dir), true) = (&out, resume) {
        keep_saved_options(dir, &mut exp, &overrides);
    }
    let threads = threads_of(threads)?;
    let cfg = exp.lockstep(threads);
    unolab::sim::lockstep::check(&cfg).map_err(|e| value_error(e.to_string()))?;
    let state = match (&out, resume, force) {
        (_, true, true) => {
            return Err(value_error(
                "resume=True and force=True cannot be given together: resume=True continues the saved run, force=True replaces it",
            ))
        }
        (None, true, _) => {
            return Err(value_error(
                "resume=True needs out=DIR (where the state was saved)",
            ))
        }
        (Some(dir), true, _) => {
            resume_state(dir, &exp, &cfg).map_err(|e| resume_error(dir, out_named(&e, dir)))?
        }
        (Some(dir), false, false) => {
            // Saved work is not replaced without force=True.
            refuse_saved(dir, &exp).map_err(|e| exists_error(out_named(&e, dir)))?;
            LockstepState::new(&cfg)
        }
        _ => LockstepState::new(&cfg),
    };
    // With force=True the earlier results go, as for a run.
    let _aside = if force { claim_out(&out, true)? } else { None };
    let _made = prepare_out(&out)?;
    let started = now_utc();
    let total = cfg.max_clusters;
    // With `out`, the state is saved as the command line saves it (every
    // few seconds of play and at the end, interrupted or not), so that a
    // run can be continued with `resume=True` or `--resume`.
    let saver = Mutex::new(StateSaver::new(
        out.as_deref(),
        &exp,
        commands_so_far(out.as_deref(), resume, command),
        CHECKPOINT_SECS,
    ));
    // What a resumed run had played: when it had finished, nothing is
    // played or written (its files stand, with no call added).
    let resumed_from = resume.then_some(state.clusters);
    let state = Mutex::new(state);
    // A checkpoint that cannot be written (a full disk) does not end the
    // run, as on the command line: a warning says so after it.
    let unsaved: Mutex<Option<String>> = Mutex::new(None);
    let driven = drive(py, progress, total, |stop, p| {
        let mut st = state.lock().unwrap_or_else(|p| p.into_inner());
        // A resumed run starts from the games it saved, as the command
        // line's bar does.
        p(st.clusters);
        let mut saver = saver.lock().unwrap_or_else(|p| p.into_inner());
        run_lockstep(&cfg, &mut st, stop, p, &mut |s| {
            if let Err(e) = saver.tick(s) {
                let mut u = unsaved.lock().unwrap_or_else(|p| p.into_inner());
                u.get_or_insert(e);
            }
            Ok(())
        })
    });
    let unsaved = unsaved.into_inner().unwrap_or_else(|p| p.into_inner());
    let state = state.into_inner().unwrap_or_else(|p| p.into_inner());
    let saver = saver.into_inner().unwrap_or_else(|p| p.into_inner());
    // A progress callable that raised stopped the run as Ctrl-C does: what
    // finished is saved for `resume=True` before its exception goes on.
    if driven.is_err() && state.clusters > 0 {
        saver.save(&state).map_err(crate::errors::os_error)?;
    }
    let (how, interrupted) = driven?;
    let (how, unfinished) = how.map_err(|e| customs.run_error(e.to_string()))?;
    let idle = resumed_from == Some(state.clusters) && how != Stop::Interrupted;
    // The whole run's seconds: a resumed run adds those before it.
    if !idle {
        saver.save(&state).map_err(crate::errors::os_error)?;
    }
    let (commands, elapsed_s) = saver.record(idle);
    // A run that played nothing reports the start it was saved with.
    let started = unolab::report::outdir::reported_start(idle, out.as_deref(), started);
    let report = ExperimentReport {
        exp: &exp,
        state: &state,
        stop: how,
        threads,
        elapsed_s,
        started,
        commands,
        commit: unolab::report::GIT_COMMIT.map(String::from),
        shards: None,
    };
    // A finished state whose results are missing (a disk that filled up as
    // they were written) gets them written, as `--resume` does.
    let missing = idle
        && out
            .as_deref()
            .is_some_and(unolab::report::experiment::results_lost);
    let done = finish(
        &if idle && !missing { None } else { out },
        |dir| report.write_dir(dir),
        report.to_json(),
        interrupted && how == Stop::Interrupted,
    )?;
    // After writing: warnings raised as errors lose nothing.
    if let Some(e) = unsaved {
        runtime_warning(
            py,
            &format!(
                "{e}: the run went on without that checkpoint (tried again at each later one)"
            ),
        )?;
    }
    warn_unfinished(py, unfinished.as_deref())?;
    Ok(done)
}

/// A configuration the lab refused: a rule-set or preset file that cannot
/// be read is refused by its cause ([`read_error`]: `FileNotFoundError`,
/// ...), as [`rules_error`] and [`strategy_error`] refuse a file named
/// directly; anything else is a `ValueError`.
pub(crate) fn config_error(e: ConfigError) -> PyErr {
    match e.unread() {
        Some(kind) => read_error(kind, e.to_string()),
        None => value_error(e.to_string()),
    }
}

/// The text of the file `path` (a `what`, in the message): one that cannot
/// be read is refused by its cause ([`read_error`]), one that is not UTF-8
/// text is a `ValueError`.
pub(crate) fn read_text(path: &str, what: &str) -> PyResult<String> {
    unolab::engine::rules::read_text(path).map_err(|e| match e {
        Unread::Io(why) => read_error(why.kind, format!("{path}: cannot read the {what}: {why}")),
        Unread::NotText(m) => value_error(format!("{path}: malformed {what}: {m}")),
    })
}

/// `unolab experiment run`: `source` is a path, or the text of a file
/// (`text=True`, e.g. a dict written as TOML by the Python side); `custom`
/// maps the names the file uses to Python strategies.
#[pyfunction]
#[pyo3(signature = (source, is_text, custom, games, seed, duplicate, seating, precision, batch, threads, out, resume, force, progress, call=None))]
#[allow(clippy::too_many_arguments)]
pub fn experiment(
    py: Python<'_>,
    source: &str,
    is_text: bool,
    custom: Vec<(String, Bound<'_, PyAny>)>,
    games: Option<u64>,
    seed: Option<u64>,
    duplicate: Option<bool>,
    seating: Option<&str>,
    precision: Option<Vec<(Option<String>, f64)>>,
    batch: Option<u64>,
    threads: Option<usize>,
    out: Option<PathBuf>,
    resume: bool,
    force: bool,
    progress: Option<Py<PyAny>>,
    call: Option<String>,
) -> PyResult<(String, bool)> {
    let seating = seating_of(seating)?;
    let precision = precision_of(precision)?;
    if let Some(g) = games {
        check_count(g)?;
    }
    if let Some(b) = batch {
        check_count(b)?;
    }
    if let Some((_, p)) = precision.iter().find(|(_, p)| !(*p > 0.0 && p.is_finite())) {
        return Err(value_error(format!(
            "'{p}' is not a valid precision (valid: a positive number, the half-width of the 95% intervals)"
        )));
    }
    let mut customs = Customs::default();
    for (k, (name, obj)) in custom.iter().enumerate() {
        // One object (or class) stands for one name: a second name of it
        // was taken for the first, and then read as an unknown strategy.
        if let Some((other, _)) = custom[..k].iter().find(|(_, o)| o.is(obj)) {
            return Err(value_error(format!(
                "strategies: '{other}' and '{name}' map to the same Python object; a Python strategy stands for one name (give '{name}' an object of its own)"
            )));
        }
        customs.name_for(obj, Some(name))?;
    }
    let specs = customs.specs();
    let parsed = if is_text {
        exp_file::parse_reporting(source, "<dict>", &specs)
    } else {
        let text = read_text(source, "experiment file")?;
        exp_file::parse_reporting(&text, source, &specs)
    };
    // A rule-set or preset file the experiment names that cannot be read
    // is refused by its cause (FileNotFoundError, ...), as everywhere else.
    let exp = parsed.map_err(|errs| {
        let msg = errs.messages.join("\n");
        match errs.unread {
            Some(kind) => read_error(kind, msg),
            None => value_error(msg),
        }
    })?;
    // A Python strategy the experiment never seats is a mistake (a name
    // misspelt in the file or in `strategies`), not something to ignore.
    let unused: Vec<String> = specs
        .iter()
        .map(|s| s.name())
        .filter(|n| {
            !exp.run
                .arms
                .iter()
                .any(|a| a.cfg.lineup.iter().any(|s| s.name() == *n))
        })
        .map(|n| format!("'{n}'"))
        .collect();
    if !unused.is_empty() {
        return Err(value_error(format!(
            "strategies: {} given but not used by the experiment (its line-ups name the strategies it seats); remove it or use it in the file",
            unused.join(", ")
        )));
    }
    let overrides = Overrides {
        games,
        seed,
        duplicate,
        seating,
        precision,
        batch,
    };
    let saving = Saving { out, resume, force };
    play_experiment(
        py,
        exp,
        overrides,
        threads,
        saving,
        progress,
        &customs,
        command("experiment", call),
    )
}

/// `unolab compare`: the JSON of `--json` and whether it was interrupted.
#[pyfunction]
#[pyo3(signature = (rules, set, house, players, strategies, mode, b_rules, b_set, b_house, b_strategies, b_seat, games, seed, duplicate, seating, precision, batch, threads, allow_oracle, out, resume, force, progress, call=None))]
#[allow(clippy::too_many_arguments)]
pub fn compare(
    py: Python<'_>,
    rules: String,
    set: Vec<String>,
    house: Vec<String>,
    players: usize,
    strategies: Vec<Bound<'_, PyAny>>,
    mode: &str,
    b_rules: Option<String>,
    b_set: Vec<String>,
    b_house: Vec<String>,
    b_strategies: Option<Vec<Bound<'_, PyAny>>>,
    b_seat: Option<(usize, Bound<'_, PyAny>)>,
    games: Option<u64>,
    seed: u64,
    duplicate: Option<bool>,
    seating: Option<&str>,
    precision: Option<Vec<(Option<String>, f64)>>,
    batch: Option<u64>,
    threads: Option<usize>,
    allow_oracle: bool,
    out: Option<PathBuf>,
    resume: bool,
    force: bool,
    progress: Option<Py<PyAny>>,
    call: Option<String>,
) -> PyResult<(String, bool)> {
    check_players(players)?;
    // Not given: 10,000, or with resume=True the saved run's (the
    // experiment's limit is then replaced by keep_saved_options).
    let given = games;
    let games = games.unwrap_or(10_000);
    check_count(games)?;
    let seating = seating_of(seating)?;
    let precision = precision_of(precision)?;
    // B's settings and house rules add to A's (and win over them): each
    // group alone gives a setting once.
    crate::given_once(&set, &house, "")?;
    crate::given_once(&b_set, &b_house, "b_")?;
    let mut customs = Customs::default();
    let strategies = customs.names(&strategies)?;
    let b_strategies = b_strategies.map(|v| customs.names(&v)).transpose()?;
    let b_seat = match b_seat {
        Some((k, s)) => Some(format!("{k}={}", customs.name_for(&s, None)?)),
        None => None,
    };
    let opts = CompareOptions {
        rules,
        set,
        house,
        players,
        strategies,
        mode: mode_of(mode)?,
        b_rules,
        b_set,
        b_house,
        b_strategies,
        b_seat,
        games,
        seed,
        seating: seating.unwrap_or_default(),
        allow_oracle,
    };
    let mut exp = opts.experiment(&customs.specs()).map_err(config_error)?;
    exp.origin = unolab::lab::compare::PYTHON_CALL.into();
    let overrides = Overrides {
        // The experiment holds it already; given, it is said again so that
        // resume=True keeps it rather than the saved run's.
        games: given,
        // Always given here (its default is a fixed number): resume=True
        // refuses a run saved under another seed rather than taking it.
        seed: Some(seed),
        duplicate,
        seating,
        precision,
        batch,
    };
    let saving = Saving { out, resume, force };
    play_experiment(
        py,
        exp,
        overrides,
        threads,
        saving,
        progress,
        &customs,
        command("compare", call),
    )
}

/// `unolab trace`: one whole match as JSON Lines, also written whole to
/// `out` when given (missing folders are created; an existing file is
/// replaced only with `force`, and a directory refused, before the match is
/// played).
#[pyfunction]
#[pyo3(signature = (rules, set, house, players, strategies, seed, out=None, force=false))]
#[allow(clippy::too_many_arguments)]
pub fn trace(
    rules: &str,
    set: Vec<String>,
    house: Vec<String>,
    players: usize,
    strategies: Vec<Bound<'_, PyAny>>,
    seed: u64,
    out: Option<PathBuf>,
    force: bool,
) -> PyResult<String> {
    check_players(players)?;
    check_out_file(&out, force, (", not a file path", "which it replaces"))?;
    let rules = load_rules(rules, &set, &house)?;
    // A trace records a whole match: refused, as the command line refuses
    // it, when the match has no end (it ran to the round cap).
    if let Some(why) = rules.settings.match_end_fault() {
        return Err(value_error(why));
    }
    let mut customs = Customs::default();
    let names = customs.names(&strategies)?;
    let lineup = customs.lineup(&names)?;
    rules.check_players(players).map_err(rules_error)?;
    let mut seats = agents::lineup_seats(&lineup, players).map_err(strategy_error)?;
    // Its folder made and checked writable before the match is played.
    let _made = out.as_deref().map(prepare_out_file).transpose()?;
    let mut buf = Vec::new();
    unolab::engine::trace::write_trace(&rules, &mut seats, seed, &mut buf)
        .map_err(|e| customs.run_error(e.to_string()))?;
    if let Some(path) = out {
        unolab::report::write_file_atomically(&path, &buf).map_err(crate::errors::os_error)?;
    }
    String::from_utf8(buf).map_err(|e| PyRuntimeError::new_err(e.to_string()))
}

/// `unolab rules`: every built-in rule set (name, cards, description).
#[pyfunction]
pub fn rules_list() -> PyResult<Vec<(&'static str, usize, String)>> {
    BUILTIN_NAMES
        .iter()
        .map(|name| {
            let r = Rules::load(name).map_err(rules_error)?;
            Ok((*name, r.deck.size, r.file.description.clone()))
        })
        .collect()
}

/// `unolab rules show`: a rule set fully resolved, as TOML text.
#[pyfunction]
pub fn rules_show(name: &str, set: Vec<String>, house: Vec<String>) -> PyResult<String> {
    crate::given_once(&set, &house, "")?;
    let f = RuleSetFile::resolve(name, &set, &house).map_err(rules_error)?;
    Rules::build(f.clone())
        .and_then(|r| r.check_dealable())
        .map_err(rules_error)?;
    Ok(f.to_toml())
}

/// TOML text as JSON text (the Python side loads it with `json`).
#[pyfunction]
pub fn toml_to_json(text: &str) -> PyResult<String> {
    let v: serde_json::Value = toml::from_str(text).map_err(|e| value_error(e.to_string()))?;
    json_text(&v)
}

/// JSON text (a dict from Python) as TOML text.
#[pyfunction]
pub fn json_to_toml(text: &str) -> PyResult<String> {
    let v: toml::Value = serde_json::from_str(text).map_err(|e| value_error(e.to_string()))?;
    toml::to_string(&v).map_err(|e| value_error(e.to_string()))
}

/// One line of the strategy catalogue: name, base, description, parameters.
type CatalogRow = (String, String, String, Vec<(String, String)>);

/// `unolab strategies`: name, base, description and parameters of each.
#[pyfunction]
pub fn catalog() -> Vec<CatalogRow> {
    agents::catalog()
        .into_iter()
        .map(|e| (e.name, e.base, e.description, e.params))
        .collect()
}

/// Checks a strategy object the way a run would (its name, its `play`).
#[pyfunction]
pub fn check_strategy(obj: &Bound<'_, PyAny>) -> PyResult<String> {
    let spec = strategy::spec(obj, Arc::default(), None)?;
    Ok(spec.name().to_string())
}
