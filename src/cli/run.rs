//! `unolab run`: many games between strategies, with statistics.

use super::{load_rules, print_out, Fail, RuleArgs, TableArgs};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;
use unolab::agents as strategy;
use unolab::report::Report;
use unolab::sim::{self, Mode, RunConfig};

#[derive(clap::Args)]
pub struct RunArgs {
    #[command(flatten)]
    rules: RuleArgs,
    #[command(flatten)]
    table: TableArgs,
    /// Number of games (rounds in round mode, matches in match mode)
    #[arg(long, default_value = "100000", value_parser = super::parse_count, allow_hyphen_values = true)]
    games: u64,
    /// round: one round per game; match: whole matches to the target
    #[arg(long, default_value = "round", value_parser = ["round", "match"])]
    mode: String,
    /// Worker threads (default: all cores)
    #[arg(long, value_parser = super::parse_threads, allow_hyphen_values = true)]
    threads: Option<usize>,
    /// Keep each strategy on its seat instead of rotating the line-up
    #[arg(long)]
    fixed_seats: bool,
    /// Print the summary as one JSON object
    #[arg(long)]
    json: bool,
    /// Write summary.csv, distributions.csv and manifest.json into DIR
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// No progress bar
    #[arg(long)]
    quiet: bool,
}

pub fn exec(a: RunArgs) -> Result<ExitCode, Fail> {
    let RunArgs {
        rules,
        table,
        games,
        mode,
        threads,
        fixed_seats,
        json,
        out,
        quiet,
    } = a;
    let rules = load_rules(&rules)?;
    let lineup = strategy::parse_list(&table.strategies)?;
    let mode = if mode == "match" {
        Mode::Match
    } else {
        Mode::Round
    };
    let threads = threads.unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    });
    let cfg = RunConfig::new(
        rules,
        table.players,
        &lineup,
        games,
        mode,
        table.seed,
        threads,
        fixed_seats,
    )?;
    if let Some(dir) = &out {
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
    let bar = if !quiet && std::io::stderr().is_terminal() {
        let b = indicatif::ProgressBar::new(games);
        b.set_style(
            indicatif::ProgressStyle::with_template(
                "{bar:40} {human_pos}/{human_len} games  {rate}  eta {eta}",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
            .with_key(
                "rate",
                |s: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                    let _ = write!(w, "{:.0} games/s", s.per_sec());
                },
            ),
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
    let outcome = sim::run(&cfg, &stop, &progress)?;
    let elapsed = start.elapsed().as_secs_f64();
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    let report = Report {
        cfg: &cfg,
        stats: &outcome.stats,
        elapsed_s: elapsed,
        partial: outcome.partial,
    };
    if let Some(dir) = &out {
        let command: Vec<String> = std::env::args().collect();
        report.write_dir(dir, &command).map_err(Fail)?;
    }
    if json {
        print_out(&(serde_json::to_string(&report.to_json())? + "\n"))?;
    } else {
        print_out(&report.to_text())?;
    }
    if outcome.partial {
        eprintln!(
            "interrupted: {} of {} games finished; results are marked partial",
            outcome.stats.games, games
        );
        return Ok(ExitCode::from(130));
    }
    Ok(ExitCode::SUCCESS)
}
