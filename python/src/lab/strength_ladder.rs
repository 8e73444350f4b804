//! `unolab ladder FILE` from Python: the strength ladder of a ladder file,
//! as the command line plays it (the file read and checked by the core's
//! `LadderFile`), its result the JSON of `--json`.

use super::args::{claim_out, command, finish, now_utc, prepare_out, threads_of};
use super::{drive, nothing_finished};
use crate::value_error;
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use std::path::PathBuf;
use std::time::Instant;
use unolab::lab::ladder::{run_from, LadderFile, Step};
use unolab::report::ladder::{
    read_state, remove_other_sizes, save_state, state_fingerprint, LadderReport,
};

/// `unolab ladder`: the JSON of `--json` and whether it was interrupted.
#[pyfunction]
#[pyo3(signature = (file, games, threads, out, force, resume, progress, call=None))]
#[allow(clippy::too_many_arguments)]
pub fn ladder(
    py: Python<'_>,
    file: &str,
    games: Option<u64>,
    threads: Option<usize>,
    out: Option<PathBuf>,
    force: bool,
    resume: bool,
    progress: Option<Py<PyAny>>,
    call: Option<String>,
) -> PyResult<(String, bool)> {
    if games == Some(0) {
        return Err(value_error(
            "games=0: a ladder plays at least 1 game per table size",
        ));
    }
    if resume && out.is_none() {
        return Err(value_error(
            "resume=True needs out=DIR (where the state was saved)",
        ));
    }
    if resume && force {
        return Err(value_error(
            "resume=True continues the saved ladder and force=True replaces it: give one",
        ));
    }
    let text = super::read_text(file, "ladder file")?;
    let lf = LadderFile::parse(&text, file).map_err(value_error)?;
    let (cfg, specs) = lf
        .config(file, games, threads_of(threads)?)
        // A rule file or preset that is missing is a FileNotFoundError, as
        // in `tournament`.
        .map_err(super::config_error)?;
    let print = state_fingerprint(&cfg, specs.iter().map(|s| s.to_json()).collect());
    let mut aside = Vec::new();
    let saved = match &out {
        Some(dir) if resume => read_state(dir, &print)
            .map_err(|e| super::resume_error(dir, format!("resume=True: {e}")))?,
        _ => {
            aside.extend(claim_out(&out, force)?);
            if let Some(dir) = &out {
                for p in &cfg.players {
                    aside.extend(claim_out(&Some(dir.join(format!("{p}p"))), force)?);
                }
                if force {
                    remove_other_sizes(dir, &cfg.players).map_err(crate::errors::os_error)?;
                }
            }
            Vec::new()
        }
    };
    let _made = prepare_out(&out)?;
    let (commands, before_s) =
        unolab::report::played_so_far(out.as_deref(), resume, command("ladder", call));
    let started = now_utc();
    let clock = Instant::now();
    let total = cfg.games.saturating_mul(cfg.players.len() as u64);
    let per = cfg.games;
    let (outcome, interrupted) = drive(py, progress, total, |stop, p| {
        run_from(&cfg, saved, stop, &|k, step| {
            // While a size's agents are timed, its games stay all done.
            if let Step::Games(d) = step {
                p((k as u64).saturating_mul(per).saturating_add(d))
            }
        })
    })?;
    // The tournament failed during play (a program that broke the protocol,
    // an illegal action under strict rules), as `tournament` says it.
    let outcome = outcome.map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
    if outcome.rungs.iter().all(|r| r.outcome.none_finished()) {
        return Err(nothing_finished());
    }
    let report = LadderReport {
        cfg: &cfg,
        outcome: &outcome,
        description: &lf.description,
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
    // After the results are written: a warning made an error must not
    // lose them.
    for r in &outcome.rungs {
        super::warn_unfinished(py, r.outcome.unfinished.as_deref())?;
    }
    Ok(done)
}

/// `unolab ladder FILE --redraw`: `ladder.svg` drawn again from the output
/// folder's `ladder.csv` (default `results/<name>`), no game played; the
/// SVG's path.
#[pyfunction]
#[pyo3(signature = (file, out=None))]
pub fn redraw_ladder(file: &str, out: Option<PathBuf>) -> PyResult<String> {
    let text = super::read_text(file, "ladder file")?;
    let lf = LadderFile::parse(&text, file).map_err(value_error)?;
    let (cfg, _) = lf.config(file, None, 1).map_err(super::config_error)?;
    let out = out.unwrap_or_else(|| PathBuf::from("results").join(&lf.name));
    if !out.is_dir() {
        return Err(pyo3::exceptions::PyFileNotFoundError::new_err(format!(
            "{} is not a folder: nothing to redraw (out= is the folder a ladder wrote)",
            out.display()
        )));
    }
    if !out.join("ladder.csv").is_file() {
        return Err(pyo3::exceptions::PyFileNotFoundError::new_err(format!(
            "{} holds no ladder.csv: nothing to redraw (a ladder writes it when it is run with out=)",
            out.display()
        )));
    }
    unolab::report::redraw::redraw_svg(&out, &lf.name, &cfg.rules.name, cfg.games)
        .map_err(value_error)?;
    Ok(out.join("ladder.svg").display().to_string())
}
