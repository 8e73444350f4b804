//! The arguments of the lab's functions: strategies given as names or
//! Python objects ([`Customs`]), and the checks and conversions every
//! function shares (player and game counts, threads, seating, precision,
//! the output folder), each before anything runs.

use crate::strategy::{self, ErrorSlot};
use crate::{exists_error, rules_error, strategy_error, value_error};
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use std::path::{Path, PathBuf};
use unolab::agents::{self, StrategySpec};
use unolab::engine::rules::{RuleSetFile, Rules};
use unolab::report::outdir::{self, check_out_dir, set_aside_results, SetAside};
use unolab::sim::{Mode, Seating};

// ----- strategies given as names or Python objects ----------------------------

/// The Python strategies of one call: each object once (by identity), under
/// its name, and the slot for the first exception they raise.
#[derive(Default)]
pub(super) struct Customs {
    list: Vec<(usize, StrategySpec)>,
    errors: ErrorSlot,
}

impl Customs {
    /// The name that stands for `item` in a strategy list: a string as it is
    /// (it may be a comma list), a Python object registered under its name
    /// (or `name`, when given).
    pub(super) fn name_for(
        &mut self,
        item: &Bound<'_, PyAny>,
        name: Option<&str>,
    ) -> PyResult<String> {
        if let Ok(s) = item.extract::<String>() {
            return Ok(s);
        }
        let id = item.as_ptr() as usize;
        if let Some((_, s)) = self.list.iter().find(|(i, _)| *i == id) {
            return Ok(s.name().to_string());
        }
        let spec = strategy::spec(item, self.errors.clone(), name)?;
        if agents::builtin_names().contains(&spec.name()) {
            // A built-in's name cannot stand for a Python strategy: where
            // the name came from says what to change.
            return Err(value_error(match name {
                Some(n) => format!(
                    "strategies: '{n}' is a built-in strategy's name and cannot stand for a Python strategy; map a name of your own (one the file seats instead of '{n}', e.g. 'my-{n}') to it"
                ),
                None => format!(
                    "a Python strategy is named '{}', a built-in strategy's name; give it a name of its own (a `name` attribute)",
                    spec.name()
                ),
            }));
        }
        if self.list.iter().any(|(_, s)| s.name() == spec.name()) {
            return Err(value_error(format!(
                "two different strategies are named '{}'; rename one (a `name` attribute)",
                spec.name()
            )));
        }
        let n = spec.name().to_string();
        self.list.push((id, spec));
        Ok(n)
    }

    /// A comma list of the names of `items`.
    pub(super) fn names(&mut self, items: &[Bound<'_, PyAny>]) -> PyResult<String> {
        let v = items
            .iter()
            .map(|i| self.name_for(i, None))
            .collect::<PyResult<Vec<_>>>()?;
        Ok(v.join(","))
    }

    pub(super) fn specs(&self) -> Vec<StrategySpec> {
        self.list.iter().map(|(_, s)| s.clone()).collect()
    }

    /// The line-up of a comma list of names.
    pub(super) fn lineup(&self, names: &str) -> PyResult<Vec<StrategySpec>> {
        agents::parse_list_with(names, &self.specs()).map_err(strategy_error)
    }

    /// The error of a run that stopped: the exception a Python strategy
    /// raised, if that is why; else a `RuntimeError` with the core's message.
    pub(super) fn run_error(&self, msg: String) -> PyErr {
        let mut slot = self.errors.lock().unwrap_or_else(|p| p.into_inner());
        match slot.take() {
            Some(e) => e,
            None => PyRuntimeError::new_err(msg),
        }
    }
}

// ----- small helpers -----------------------------------------------------------

pub(super) fn now_utc() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    unolab::report::utc_timestamp(secs)
}

pub(super) fn mode_of(mode: &str) -> PyResult<Mode> {
    Mode::parse(mode).ok_or_else(|| {
        value_error(format!(
            "invalid value '{mode}' for mode (valid: round, match)"
        ))
    })
}

/// `precision=`: one half-width for every metric (`None` as the metric) or
/// one per metric, the metric names checked as `--precision METRIC=X` checks
/// them.
pub(super) fn precision_of(
    precision: Option<Vec<(Option<String>, f64)>>,
) -> PyResult<Vec<(Option<String>, f64)>> {
    let items = precision.unwrap_or_default();
    for m in items.iter().filter_map(|(m, _)| m.as_deref()) {
        unolab::sim::lockstep::check_metric(m)
            .map_err(|e| value_error(format!("precision: {e}")))?;
    }
    Ok(items)
}

/// `seating=`: who sits where (`None`: the default, mixed).
pub(super) fn seating_of(seating: Option<&str>) -> PyResult<Option<Seating>> {
    seating
        .map(|s| {
            Seating::parse(s).ok_or_else(|| {
                value_error(format!(
                    "invalid value '{s}' for seating (valid: {})",
                    unolab::sim::seating::SEATING_NAMES.join(", ")
                ))
            })
        })
        .transpose()
}

pub(super) fn load_rules(rules: &str, set: &[String], house: &[String]) -> PyResult<Rules> {
    crate::given_once(set, house, "")?;
    let file = RuleSetFile::resolve(rules, set, house).map_err(rules_error)?;
    Rules::build(file).map_err(rules_error)
}

/// The cores of this machine (1 when unknown).
pub(super) fn cores() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
}

/// A thread count as the command line checks it: 1 to 8 per core.
pub(super) fn threads_of(threads: Option<usize>) -> PyResult<usize> {
    let max = 8 * cores();
    match threads {
        None => Ok(cores()),
        Some(n) if (1..=max).contains(&n) => Ok(n),
        Some(n) => Err(value_error(format!(
            "'{n}' is not a valid thread count (valid: 1 to {max}, 8 per core on this machine's {} cores)",
            cores()
        ))),
    }
}

/// The most threads a call takes (8 per core) and this machine's cores, as
/// [`threads_of`] checks them: the Python side checks a thread count before
/// it reaches an unsigned integer.
#[pyfunction]
pub fn thread_limit() -> (usize, usize) {
    (8 * cores(), cores())
}

pub(super) fn check_players(players: usize) -> PyResult<()> {
    if (2..=10).contains(&players) {
        Ok(())
    } else {
        Err(value_error(format!(
            "'{players}' is not a valid player count (valid: 2 to 10)"
        )))
    }
}

pub(super) fn check_count(games: u64) -> PyResult<()> {
    if games == 0 {
        Err(value_error(
            "'0' is not a valid game count (valid: a positive integer)",
        ))
    } else {
        Ok(())
    }
}

/// The core's message about the output folder `dir`, which names it as the
/// command line does (`--out DIR`), naming it as this package does
/// (`out=DIR`); the other flags are translated by [`value_error`].
pub(super) fn out_named(msg: &str, dir: &Path) -> String {
    let shown = dir.display();
    msg.replace(&format!("--out {shown}"), &format!("out={shown}"))
}

/// Refuses an output folder that holds earlier results unless `force`
/// (the command line's `--force`), and with `force` moves them aside: before
/// the first game, as the command line does. Keep what it returns until the
/// call has written its results: dropped, it removes the earlier ones if
/// the folder holds new results, and puts them back if not (the call failed
/// or was interrupted before any game finished).
pub(super) fn claim_out(out: &Option<PathBuf>, force: bool) -> PyResult<Option<SetAside>> {
    match out {
        None if force => Err(value_error(
            "force=True needs out=DIR (whose results it replaces)",
        )),
        None => Ok(None),
        Some(dir) if force => set_aside_results(dir).map_err(crate::errors::os_error),
        Some(dir) => check_out_dir(dir, false)
            .map(|()| None)
            .map_err(|e| exists_error(out_named(&e, dir))),
    }
}

/// Writes a finished (or interrupted) call's results to `out` when given,
/// and returns its JSON text and whether Ctrl-C interrupted it.
pub(super) fn finish(
    out: &Option<PathBuf>,
    write: impl FnOnce(&Path) -> Result<(), String>,
    json: impl serde::Serialize,
    interrupted: bool,
) -> PyResult<(String, bool)> {
    if let Some(dir) = out {
        write(dir).map_err(crate::errors::os_error)?;
    }
    Ok((json_text(&json)?, interrupted))
}

/// Makes the output folder ready (created, writable) before the first game.
/// The folders it created are removed again when the guard it returns is
/// dropped while they are still empty: a call that fails, or stops before
/// writing anything, leaves no empty folder behind, as on the command line.
pub(super) fn prepare_out(out: &Option<PathBuf>) -> PyResult<MadeDirs> {
    let Some(dir) = out else {
        return Ok(MadeDirs(Vec::new()));
    };
    if dir.exists() && !dir.is_dir() {
        return Err(value_error(format!(
            "out={} exists and is not a directory",
            dir.display()
        )));
    }
    outdir::create_writable(dir)
        .map(MadeDirs)
        .map_err(|e| crate::errors::os_error(format!("out={e}")))
}

/// Refuses an output file `out` before any work, as `trace` and `tune` take
/// it: a directory (`directory` ends the sentence saying so), a path that
/// names a folder or is no regular file, an existing file without `force`,
/// and `force` without `out` (`replaced` says what it would replace).
pub(super) fn check_out_file(
    out: &Option<PathBuf>,
    force: bool,
    (directory, replaced): (&str, &str),
) -> PyResult<()> {
    match out {
        Some(p) if p.is_dir() || p.file_name().is_none() => Err(value_error(format!(
            "out={} is a directory{directory}",
            p.display()
        ))),
        Some(p) if unolab::report::unfit_target(p).is_some() => Err(value_error(format!(
            "out={} {}",
            p.display(),
            unolab::report::unfit_target(p).unwrap_or_default()
        ))),
        Some(p) if p.exists() && !force => Err(exists_error(format!(
            "out={} already exists; use force=True to replace it, or another out",
            p.display()
        ))),
        None if force => Err(value_error(format!(
            "force=True needs out=FILE ({replaced})"
        ))),
        _ => Ok(()),
    }
}

/// [`prepare_out`] for a file: its folder made and checked writable before
/// the first game; the error is the writer's (`cannot write PATH: ...`).
pub(super) fn prepare_out_file(path: &std::path::Path) -> PyResult<MadeDirs> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => std::path::Path::new("."),
    };
    outdir::create_writable(dir)
        .map(MadeDirs)
        .map_err(|e| crate::errors::os_error(format!("cannot write {}: {e}", path.display())))
}

/// The folders [`prepare_out`] created, removed on drop while empty.
pub(super) struct MadeDirs(Vec<PathBuf>);

impl Drop for MadeDirs {
    fn drop(&mut self) {
        outdir::remove_created(&self.0);
    }
}

pub(super) fn json_text(v: &impl serde::Serialize) -> PyResult<String> {
    serde_json::to_string(v).map_err(|e| PyRuntimeError::new_err(e.to_string()))
}

pub(super) fn command(what: &str, call: Option<String>) -> Vec<String> {
    vec![
        "python".into(),
        call.unwrap_or_else(|| format!("unolab.{what}(...)")),
    ]
}
