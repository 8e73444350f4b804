//! The `unolab` command line: `run`, `trace`, `rules`, `strategies`.
//!
//! Flags are turned into one validated configuration before any work starts;
//! every error is one line on stderr and exit code 2.

use clap::{Parser, Subcommand};
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;
use unolab::report::Report;
use unolab::rules::{RuleSetFile, Rules, BUILTIN_NAMES};
use unolab::sim::{self, Mode, RunConfig};
use unolab::strategy::{self, StrategySpec};

#[derive(Parser)]
#[command(
    name = "unolab",
    version,
    about = "Monte Carlo strategy simulator for UNO and its themed editions"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::Args, Clone)]
struct RuleArgs {
    /// Rule set: classic, h2o, lilo-stitch, cars3, or a path to a .toml file
    #[arg(long, default_value = "classic")]
    rules: String,
    /// Override a setting: --set key=value (repeatable)
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<String>,
    /// House rules, comma separated: --house stacking=same,seven_o (repeatable)
    #[arg(long, value_name = "RULES")]
    house: Vec<String>,
}

/// The table: players, their strategies and the seed (shared by run and trace).
#[derive(clap::Args, Clone)]
struct TableArgs {
    /// Number of players, 2 to 10
    #[arg(long, default_value = "4", value_parser = parse_players, allow_hyphen_values = true)]
    players: usize,
    /// Strategies, comma separated, one per seat (cycled to fill the seats)
    #[arg(long, default_value = "random")]
    strategies: String,
    /// Master seed (an unsigned 64-bit integer)
    #[arg(long, default_value = "1", value_parser = parse_seed, allow_hyphen_values = true)]
    seed: u64,
}

#[derive(Subcommand)]
enum Command {
    /// Play many games between strategies and report who wins, with confidence
    #[command(args_override_self = true)]
    Run {
        #[command(flatten)]
        rules: RuleArgs,
        #[command(flatten)]
        table: TableArgs,
        /// Number of games (rounds in round mode, matches in match mode)
        #[arg(long, default_value = "100000", value_parser = parse_count, allow_hyphen_values = true)]
        games: u64,
        /// round: one round per game; match: whole matches to the target
        #[arg(long, default_value = "round", value_parser = ["round", "match"])]
        mode: String,
        /// Worker threads (default: all cores)
        #[arg(long, value_parser = parse_threads, allow_hyphen_values = true)]
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
    },
    /// Write one whole match as JSON Lines (TRACE.md)
    #[command(args_override_self = true)]
    Trace {
        #[command(flatten)]
        rules: RuleArgs,
        #[command(flatten)]
        table: TableArgs,
        /// Write to FILE instead of stdout
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
    },
    /// List the rule sets, or `rules show NAME` to print one fully resolved
    Rules {
        #[command(subcommand)]
        action: Option<RulesAction>,
    },
    /// List the built-in strategies
    Strategies,
}

#[derive(Subcommand)]
enum RulesAction {
    /// List the rule sets
    List,
    /// Print a rule set as a complete TOML file (every setting written out)
    Show {
        name: String,
        #[arg(long = "set", value_name = "KEY=VALUE")]
        set: Vec<String>,
        #[arg(long, value_name = "RULES")]
        house: Vec<String>,
    },
}

fn parse_players(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n) if (2..=10).contains(&n) => Ok(n),
        _ => Err(format!(
            "'{s}' is not a valid player count (valid: 2 to 10)"
        )),
    }
}

fn parse_seed(s: &str) -> Result<u64, String> {
    s.parse::<u64>().map_err(|_| {
        format!(
            "'{s}' is not a valid seed (valid: an integer from 0 to {})",
            u64::MAX
        )
    })
}

fn parse_count(s: &str) -> Result<u64, String> {
    match s.replace('_', "").parse::<u64>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(format!(
            "'{s}' is not a valid game count (valid: a positive integer)"
        )),
    }
}

fn parse_threads(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n) if (1..=1024).contains(&n) => Ok(n),
        _ => Err(format!(
            "'{s}' is not a valid thread count (valid: 1 to 1024)"
        )),
    }
}

/// An error for the user: one line, exit code 2.
struct Fail(String);

impl<E: std::fmt::Display> From<E> for Fail {
    fn from(e: E) -> Fail {
        Fail(e.to_string())
    }
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            use clap::error::ErrorKind;
            if matches!(
                e.kind(),
                ErrorKind::DisplayHelp
                    | ErrorKind::DisplayVersion
                    | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
            ) {
                let _ = e.print();
                return if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
                    ExitCode::from(2)
                } else {
                    ExitCode::SUCCESS
                };
            }
            let text = e.render().to_string();
            let first = text
                .lines()
                .find(|l| !l.trim().is_empty())
                .unwrap_or("invalid arguments");
            eprintln!("{} (see unolab --help)", first.trim_end());
            return ExitCode::from(2);
        }
    };
    match run_cli(cli) {
        Ok(code) => code,
        Err(Fail(msg)) => {
            eprintln!("error: {msg}");
            ExitCode::from(2)
        }
    }
}

fn load_rules(a: &RuleArgs) -> Result<Rules, Fail> {
    Ok(Rules::build(RuleSetFile::resolve(
        &a.rules, &a.set, &a.house,
    )?)?)
}

fn run_cli(cli: Cli) -> Result<ExitCode, Fail> {
    match cli.command {
        Command::Rules { action } => match action {
            None | Some(RulesAction::List) => {
                let mut out = String::new();
                for name in BUILTIN_NAMES {
                    let r = Rules::load(name)?;
                    out.push_str(&format!(
                        "{:<12} {:>3} cards  {}\n",
                        name, r.deck.size, r.file.description
                    ));
                }
                print_out(&out)?;
                Ok(ExitCode::SUCCESS)
            }
            Some(RulesAction::Show { name, set, house }) => {
                let f = RuleSetFile::resolve(&name, &set, &house)?;
                Rules::build(f.clone())?;
                print_out(&f.to_toml())?;
                Ok(ExitCode::SUCCESS)
            }
        },
        Command::Strategies => {
            let mut out = String::new();
            for name in strategy::builtin_names() {
                let s = StrategySpec::load(name)?;
                out.push_str(&format!("{:<10} {:?}\n", name, s));
            }
            print_out(&out)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Trace { rules, table, out } => {
            let rules = load_rules(&rules)?;
            let lineup = strategy::parse_list(&table.strategies)?;
            // The whole trace is built first, so a failure writes nothing.
            let mut buf = Vec::new();
            unolab::trace::write_trace(&rules, table.players, &lineup, table.seed, &mut buf)?;
            match out {
                None => print_bytes(&buf)?,
                Some(path) => {
                    let dir = path.parent().filter(|p| !p.as_os_str().is_empty());
                    let dir = dir
                        .map(|d| d.to_path_buf())
                        .unwrap_or_else(|| PathBuf::from("."));
                    let name = path
                        .file_name()
                        .ok_or_else(|| {
                            Fail(format!("--out {} is not a file path", path.display()))
                        })?
                        .to_string_lossy()
                        .into_owned();
                    unolab::report::write_files_atomically(
                        &dir,
                        &[(name.as_str(), String::from_utf8_lossy(&buf).into_owned())],
                    )?;
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Run {
            rules,
            table,
            games,
            mode,
            threads,
            fixed_seats,
            json,
            out,
            quiet,
        } => {
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
    }
}

fn print_out(s: &str) -> Result<(), Fail> {
    print_bytes(s.as_bytes())
}

fn print_bytes(b: &[u8]) -> Result<(), Fail> {
    let mut out = std::io::stdout().lock();
    match out.write_all(b).and_then(|_| out.flush()) {
        Ok(()) => Ok(()),
        // A closed pipe (`| head`) is not an error worth a message.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(Fail(format!("cannot write to stdout: {e}"))),
    }
}
