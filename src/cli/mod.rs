//! The `unolab` command line: one file per subcommand, the argument groups they
//! share, and the error type that becomes one line on stderr and exit code 2.
//!
//! Flags are turned into one validated configuration before any work starts.

mod rules;
mod run;
mod strategies;
mod trace;

use clap::{Parser, Subcommand};
use std::io::Write;
use std::process::ExitCode;
use unolab::engine::rules::{RuleSetFile, Rules};

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
pub struct RuleArgs {
    /// Rule set: classic, h2o, lilo-stitch, cars3, or a path to a .toml file
    #[arg(long, default_value = "classic")]
    pub rules: String,
    /// Override a setting: --set key=value (repeatable)
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// House rules, comma separated: --house stacking=same,seven_o (repeatable)
    #[arg(long, value_name = "RULES")]
    pub house: Vec<String>,
}

/// The table: players, their strategies and the seed (shared by run and trace).
#[derive(clap::Args, Clone)]
pub struct TableArgs {
    /// Number of players, 2 to 10
    #[arg(long, default_value = "4", value_parser = parse_players, allow_hyphen_values = true)]
    pub players: usize,
    /// Strategies, comma separated, one per seat (cycled to fill the seats)
    #[arg(long, default_value = "random")]
    pub strategies: String,
    /// Master seed (an unsigned 64-bit integer)
    #[arg(long, default_value = "1", value_parser = parse_seed, allow_hyphen_values = true)]
    pub seed: u64,
}

#[derive(Subcommand)]
enum Command {
    /// Play many games between strategies and report who wins, with confidence
    #[command(args_override_self = true)]
    Run(run::RunArgs),
    /// Write one whole match as JSON Lines (TRACE.md)
    #[command(args_override_self = true)]
    Trace(trace::TraceArgs),
    /// List the rule sets, or `rules show NAME` to print one fully resolved
    Rules {
        #[command(subcommand)]
        action: Option<rules::RulesAction>,
    },
    /// List the built-in strategies
    Strategies,
}

pub fn parse_players(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n) if (2..=10).contains(&n) => Ok(n),
        _ => Err(format!(
            "'{s}' is not a valid player count (valid: 2 to 10)"
        )),
    }
}

pub fn parse_seed(s: &str) -> Result<u64, String> {
    s.parse::<u64>().map_err(|_| {
        format!(
            "'{s}' is not a valid seed (valid: an integer from 0 to {})",
            u64::MAX
        )
    })
}

pub fn parse_count(s: &str) -> Result<u64, String> {
    match s.replace('_', "").parse::<u64>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(format!(
            "'{s}' is not a valid game count (valid: a positive integer)"
        )),
    }
}

pub fn parse_threads(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n) if (1..=1024).contains(&n) => Ok(n),
        _ => Err(format!(
            "'{s}' is not a valid thread count (valid: 1 to 1024)"
        )),
    }
}

/// An error for the user: one line, exit code 2.
pub struct Fail(pub String);

impl<E: std::fmt::Display> From<E> for Fail {
    fn from(e: E) -> Fail {
        Fail(e.to_string())
    }
}

pub fn main() -> ExitCode {
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

pub fn load_rules(a: &RuleArgs) -> Result<Rules, Fail> {
    Ok(Rules::build(RuleSetFile::resolve(
        &a.rules, &a.set, &a.house,
    )?)?)
}

fn run_cli(cli: Cli) -> Result<ExitCode, Fail> {
    match cli.command {
        Command::Run(a) => run::exec(a),
        Command::Trace(a) => trace::exec(a),
        Command::Rules { action } => rules::exec(action),
        Command::Strategies => strategies::exec(),
    }
}

pub fn print_out(s: &str) -> Result<(), Fail> {
    print_bytes(s.as_bytes())
}

pub fn print_bytes(b: &[u8]) -> Result<(), Fail> {
    let mut out = std::io::stdout().lock();
    match out.write_all(b).and_then(|_| out.flush()) {
        Ok(()) => Ok(()),
        // A closed pipe (`| head`) is not an error worth a message.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(Fail(format!("cannot write to stdout: {e}"))),
    }
}
