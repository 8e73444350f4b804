//! `unolab tournament`: line-ups drawn from a field, ratings and head-to-head.

use super::{load_rules, print_out, Fail, RuleArgs};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::time::Instant;
use unolab::agents as strategy;
use unolab::lab::tournament::{self, TournamentConfig};
use unolab::lab::Entrant;
use unolab::report::tournament::TournamentReport;

#[derive(clap::Args)]
pub struct TournamentArgs {
    #[command(flatten)]
    rules: RuleArgs,
    /// The field: strategies, comma separated, each once
    #[arg(long)]
    strategies: String,
    /// Players at each table, 2 to 10
    #[arg(long, default_value = "4", value_parser = super::parse_players, allow_hyphen_values = true)]
    players: usize,
    /// Number of games (one round each)
    #[arg(long, default_value = "100000", value_parser = super::parse_count, allow_hyphen_values = true)]
    games: u64,
    /// Master seed (an unsigned 64-bit integer)
    #[arg(long, default_value = "1", value_parser = super::parse_seed, allow_hyphen_values = true)]
    seed: u64,
    /// Worker threads (default: all cores; at most 8 per core)
    #[arg(long, value_parser = super::parse_threads, allow_hyphen_values = true)]
    threads: Option<usize>,
    /// Print the result as one JSON object
    #[arg(long)]
    json: bool,
    /// Write ratings.csv, head_to_head.csv, ratings.svg and manifest.json into DIR
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// No progress bar
    #[arg(long)]
    quiet: bool,
}

pub fn exec(a: TournamentArgs) -> Result<ExitCode, Fail> {
    let rules = load_rules(&a.rules)?;
    let field = strategy::parse_list(&a.strategies)?;
    let threads = a.threads.unwrap_or_else(super::cores);
    let cfg = TournamentConfig {
        rules,
        players: a.players,
        entrants: field.iter().map(Entrant::from_spec).collect(),
        games: a.games,
        seed: a.seed,
        threads,
        chunk: 1024,
    };
    cfg.validate()?;
    // The output folder must be writable before the first game.
    let created = match &a.out {
        Some(dir) => Some(super::run::prepare_out_dir(dir)?),
        None => None,
    };
    let stop: &'static AtomicBool = super::interrupt_flag();
    let bar = super::Progress::new(a.games, a.quiet, "games", 0);
    let started_utc = super::now_utc();
    let start = Instant::now();
    let progress = |done: u64| bar.set(done);
    let outcome = match tournament::run(&cfg, stop, &progress) {
        Ok(o) => o,
        Err(e) => {
            if let (Some(dir), Some(true)) = (&a.out, created) {
                // Leave no empty folder behind for a run that wrote nothing.
                let _ = std::fs::remove_dir(dir);
            }
            return Err(e.into());
        }
    };
    bar.finish();
    let report = TournamentReport {
        cfg: &cfg,
        outcome: &outcome,
        elapsed_s: start.elapsed().as_secs_f64(),
        started_utc,
    };
    if let Some(dir) = &a.out {
        let command: Vec<String> = std::env::args().collect();
        report.write_dir(dir, &command).map_err(Fail)?;
    }
    if a.json {
        print_out(&(serde_json::to_string(&report.to_json())? + "\n"))?;
    } else {
        print_out(&report.to_text())?;
    }
    if outcome.partial {
        eprintln!(
            "interrupted: {} of {} games finished; results are marked partial",
            outcome.results.games, a.games
        );
        return Ok(ExitCode::from(130));
    }
    Ok(ExitCode::SUCCESS)
}
