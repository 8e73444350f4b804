//! `unolab tournament`: line-ups drawn from a field, ratings and head-to-head.

use super::{load_rules, print_out, Fail, RuleArgs};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
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
    /// Worker threads (default: all cores)
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
    let threads = a.threads.unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    });
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
    if let Some(dir) = &a.out {
        if dir.exists() && !dir.is_dir() {
            return Err(Fail(format!(
                "--out {} exists and is not a directory",
                dir.display()
            )));
        }
    }
    let stop = Arc::new(AtomicBool::new(false));
    {
        let stop = stop.clone();
        let _ = ctrlc::set_handler(move || {
            if stop.swap(true, Ordering::SeqCst) {
                std::process::exit(130);
            }
        });
    }
    let bar = if !a.quiet && std::io::stderr().is_terminal() {
        let b = indicatif::ProgressBar::new(a.games);
        b.set_style(
            indicatif::ProgressStyle::with_template(
                "{bar:40} {human_pos}/{human_len} games  eta {eta}",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        Some(b)
    } else {
        None
    };
    let start = Instant::now();
    let progress = |done: u64| {
        if let Some(b) = &bar {
            b.set_position(done);
        }
    };
    let outcome = tournament::run(&cfg, &stop, &progress)?;
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    let report = TournamentReport {
        cfg: &cfg,
        outcome: &outcome,
        elapsed_s: start.elapsed().as_secs_f64(),
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
