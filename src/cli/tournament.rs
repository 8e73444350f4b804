//! `unolab tournament`: line-ups drawn from a field, ratings and head-to-head.

use super::args::{
    cores, load_rules, parse_count, parse_players, parse_seed, parse_threads, RuleArgs,
};
use super::scaffold::{claim_out_dir, Session};
use super::term::{interrupted, print_result, Fail};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use unolab::agents as strategy;
use unolab::lab::ratings::Results;
use unolab::lab::tournament::{self, TournamentConfig};
use unolab::lab::Entrant;
use unolab::report::tournament::TournamentReport;
use unolab::report::write_file_atomically;

#[derive(clap::Args)]
pub struct TournamentArgs {
    #[command(flatten)]
    rules: RuleArgs,
    /// The field: strategies, comma separated, each once
    #[arg(short, long)]
    strategies: String,
    /// Players at each table, 2 to 10
    #[arg(short, long, default_value = "4", value_parser = parse_players, allow_hyphen_values = true)]
    players: usize,
    /// Number of games (one round each)
    #[arg(short, long, default_value = "100000", value_parser = parse_count, allow_hyphen_values = true)]
    games: u64,
    /// Master seed (an unsigned 64-bit integer)
    #[arg(long, default_value = "1", value_parser = parse_seed, allow_hyphen_values = true)]
    seed: u64,
    /// Worker threads (default: all cores; at most 8 per core)
    #[arg(short = 'j', long, value_parser = parse_threads, allow_hyphen_values = true)]
    threads: Option<usize>,
    /// Print the result as one JSON object
    #[arg(long)]
    json: bool,
    /// Write ratings.csv, head_to_head.csv, ratings.svg and manifest.json into DIR
    #[arg(short, long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// No progress bar
    #[arg(short, long)]
    quiet: bool,
    /// Replace the results an earlier command left in --out (refused without it)
    #[arg(long)]
    force: bool,
    /// Let a perfect-information reference agent (base = "oracle") take part
    #[arg(long)]
    allow_oracle: bool,
    /// Continue the interrupted tournament saved in --out (its state.json) up
    /// to --games; the same command otherwise
    #[arg(long, conflicts_with = "force", requires = "out")]
    resume: bool,
}

/// What a saved state must match to be continued: the rule set, the table
/// size, every strategy of the field with its parameters, and the seed
/// (the games may grow).
fn fingerprint(cfg: &TournamentConfig, field: &[strategy::StrategySpec]) -> Value {
    json!({
        "rule_set": serde_json::to_value(&cfg.rules.file).unwrap_or(Value::Null),
        "players": cfg.players,
        "field": field.iter().map(|s| s.to_json()).collect::<Vec<_>>(),
        "seed": cfg.seed,
    })
}

/// The results saved by an interrupted tournament in `dir`, checked against
/// this one.
fn saved_results(dir: &Path, print: &Value, games: u64) -> Result<Results, Fail> {
    let path = dir.join("state.json");
    let text = std::fs::read_to_string(&path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => Fail(format!(
            "--resume: {} holds no interrupted tournament (no state.json: it is saved when a tournament with --out is interrupted, and removed when it is finished)",
            dir.display()
        )),
        _ => Fail(format!("--resume: cannot read {}: {e}", path.display())),
    })?;
    let bad = |why: &str| Fail(format!("--resume: {}: {why}", path.display()));
    let v: Value = serde_json::from_str(&text).map_err(|e| bad(&format!("not JSON: {e}")))?;
    if v.get("kind").and_then(Value::as_str) != Some("tournament") {
        return Err(bad("not the state of a tournament"));
    }
    let saved = v.get("tournament").ok_or_else(|| bad("no 'tournament'"))?;
    let differ: Vec<&str> = ["rule_set", "players", "field", "seed"]
        .into_iter()
        .filter(|k| saved.get(*k) != print.get(*k))
        .collect();
    if !differ.is_empty() {
        return Err(bad(&format!(
            "it is another tournament (its {} differ); give the same rules, players, strategies and seed",
            differ.join(", ")
        )));
    }
    let r = Results::from_json(v.get("results").unwrap_or(&Value::Null)).map_err(|e| bad(&e))?;
    if r.games > games {
        return Err(bad(&format!(
            "it holds {} games, more than --games {games}",
            r.games
        )));
    }
    Ok(r)
}

pub fn exec(a: TournamentArgs) -> Result<ExitCode, Fail> {
    let rules = load_rules(&a.rules)?;
    let field = strategy::parse_list(&a.strategies)?;
    let threads = a.threads.unwrap_or_else(cores);
    let cfg = TournamentConfig {
        rules,
        players: a.players,
        entrants: field.iter().map(Entrant::from_spec).collect(),
        games: a.games,
        seed: a.seed,
        threads,
        chunk: unolab::lab::options::chunk_for(&field, 1024),
        allow_oracle: a.allow_oracle,
    };
    cfg.validate()?;
    let print = fingerprint(&cfg, &field);
    // Earlier results are not replaced without --force (or continued with
    // --resume), and the output folder must be writable before the first
    // game.
    let saved = match &a.out {
        Some(dir) if a.resume => Some(saved_results(dir, &print, a.games)?),
        Some(dir) => {
            claim_out_dir(dir, a.force)?;
            None
        }
        None => None,
    };
    let first = saved.as_ref().map_or(0, |r| r.games);
    let session = Session::begin(a.out.as_deref())?.with_bar(a.games, a.quiet, "games", first);
    let outcome = tournament::run_from(&cfg, saved, session.stop, &|d| session.progress(d))
        .map_err(|e| session.failed(e))?;
    if outcome.none_finished() {
        // Ratings fitted to no game would be figures without data.
        session.abandon();
        return Ok(interrupted(
            "no game had finished; nothing written or shown",
        ));
    }
    let report = TournamentReport {
        cfg: &cfg,
        outcome: &outcome,
        elapsed_s: session.finish(),
        started_utc: session.started_utc.clone(),
    };
    if let Some(dir) = &a.out {
        let command: Vec<String> = std::env::args().collect();
        report.write_dir(dir, &command).map_err(Fail)?;
        // What --resume continues from: the finished games' counts, kept
        // while the tournament is partial.
        let state = dir.join("state.json");
        if outcome.partial {
            let v = json!({
                "kind": "tournament",
                "tournament": print,
                "games_requested": a.games,
                "results": outcome.results.to_json(),
            });
            write_file_atomically(&state, v.to_string().as_bytes()).map_err(Fail)?;
        } else if state.exists() {
            std::fs::remove_file(&state)
                .map_err(|e| Fail(format!("cannot remove {}: {e}", state.display())))?;
        }
    }
    print_result(a.json, || report.to_json(), || report.to_text())?;
    if outcome.partial {
        return Ok(interrupted(&format!(
            "{} of {} games finished; results are marked partial ({})",
            outcome.results.games,
            a.games,
            if a.out.is_some() {
                "the same command with --resume continues it"
            } else {
                "without --out nothing is saved to resume: give --out DIR to keep it"
            }
        )));
    }
    Ok(ExitCode::SUCCESS)
}
