//! `unolab tune` from Python: the cross-entropy method over a heuristic's
//! parameters, as the command line runs it (the core's `lab::tune`), its
//! result a JSON object: the preset file's text (what `--out FILE` writes),
//! the parameters, each generation's progress figures and the held-out
//! evaluation with its intervals.

use super::args::{
    check_out_file, check_players, command, load_rules, prepare_out_file, threads_of, Customs,
};
use super::drive;
use crate::value_error;
use pyo3::prelude::*;
use serde_json::{json, Value};
use std::path::PathBuf;
use unolab::agents::{self, StrategySpec};
use unolab::lab::tune::{self as search, Generation, Share, TuneConfig, TuneOutcome};

/// `unolab tune`: the JSON of the result and whether it was interrupted.
#[pyfunction]
#[pyo3(signature = (rules, set, house, players, field, start, generations, population, games, holdout_games, seed, threads, name, allow_oracle, out, force, progress, call=None))]
#[allow(clippy::too_many_arguments)]
pub fn tune(
    py: Python<'_>,
    rules: &str,
    set: Vec<String>,
    house: Vec<String>,
    players: usize,
    field: Vec<Bound<'_, PyAny>>,
    start: &str,
    generations: u64,
    population: u64,
    games: u64,
    holdout_games: u64,
    seed: u64,
    threads: Option<usize>,
    name: Option<String>,
    allow_oracle: bool,
    out: Option<PathBuf>,
    force: bool,
    progress: Option<Py<PyAny>>,
    call: Option<String>,
) -> PyResult<(String, bool)> {
    check_players(players)?;
    let rules = load_rules(rules, &set, &house)?;
    let mut customs = Customs::default();
    let names = customs.names(&field)?;
    let field = customs.lineup(&names)?;
    // Tuned against a player that sees every hand, a preset is tuned for
    // no fair table: refused unless asked for, as tournaments refuse it.
    agents::check_fair(&field, allow_oracle, agents::OracleAllowedBy::Flag).map_err(value_error)?;
    let start = StrategySpec::load(start).map_err(crate::strategy_error)?;
    let name = search::preset_name(name.as_deref(), out.as_deref());
    if !unolab::lab::plain_name(&name, true) {
        return Err(value_error(format!(
            "invalid name '{name}' (valid: letters, digits, '-', '_' and '.'; it names the preset: name=, or out's file name)"
        )));
    }
    let cfg = TuneConfig {
        rules,
        players,
        field,
        start,
        name,
        generations: generations.min(u32::MAX as u64) as u32,
        population: population.min(1 << 20) as usize,
        games,
        holdout_games,
        seed,
        threads: threads_of(threads)?,
    };
    cfg.validate().map_err(|e| value_error(e.to_string()))?;
    // An earlier preset is not replaced without force=True, and its folder
    // is made and checked writable before the first game.
    check_out_file(
        &out,
        force,
        (
            "; tune writes a preset file (e.g. out='strategies/mine.toml')",
            "the preset file it replaces",
        ),
    )?;
    let _made = out.as_deref().map(prepare_out_file).transpose()?;
    let total = cfg.generations as u64;
    let (outcome, interrupted) = drive(py, progress, total, |stop, p| {
        search::tune(&cfg, stop, &mut |g| p(g.index as u64))
    })?;
    let outcome = outcome.map_err(|e| customs.run_error(e.to_string()))?;
    let words = command("tune", call);
    let text = search::preset_file(&cfg, &outcome, &format!("{} in Python", words[1]));
    if let Some(p) = &out {
        unolab::report::write_file_atomically(p, text.as_bytes())
            .map_err(crate::errors::os_error)?;
    }
    // After the preset is written: warnings raised as errors lose nothing.
    super::warn_unfinished(py, outcome.unfinished.as_deref())?;
    let json = result_json(&cfg, &outcome, text);
    Ok((
        super::args::json_text(&json)?,
        interrupted && outcome.interrupted,
    ))
}

/// The result: the preset's text and parameters, the search's generations,
/// and the held-out evaluation (the figure to quote).
fn result_json(cfg: &TuneConfig, out: &TuneOutcome, preset: String) -> Value {
    let share = |s: &Share| json!({"wins": s.wins, "games": s.games, "rate": s.rate, "ci95": [s.ci95.0, s.ci95.1]});
    let generation = |g: &Generation| {
        json!({
            "index": g.index,
            "mean_rate": g.mean_rate,
            "mean_ci95": [g.mean_ci95.0, g.mean_ci95.1],
            "best_rate": g.best_rate,
            "elite_rate": g.elite_rate,
            "spread": g.spread,
        })
    };
    let h = &out.holdout;
    json!({
        "name": cfg.name,
        "start": cfg.start.name(),
        "field": cfg.field.iter().map(|s| s.name()).collect::<Vec<_>>(),
        "players": cfg.players,
        "rules": cfg.rules.name,
        "seed": cfg.seed,
        "generations_asked": cfg.generations,
        "population": cfg.population,
        "games": cfg.games,
        "params": serde_json::to_value(&out.params).unwrap_or(Value::Null),
        "generations": out.history.iter().map(generation).collect::<Vec<_>>(),
        "holdout": {
            "games": h.games,
            "games_asked": cfg.holdout_games,
            "fair_share": h.fair_share,
            "tuned": share(&h.tuned),
            "start": share(&h.start),
            "diff": h.diff,
            "diff_ci95": [h.diff_ci95.0, h.diff_ci95.1],
            "split": [h.split.0, h.split.1],
            "vs_start": share(&h.vs_start),
        },
        "partial": out.interrupted,
        "preset": preset,
    })
}
