//! The `unolab` command line: one file per subcommand, the argument groups they
//! share, and the error type that becomes one line on stderr and exit code 2.
//!
//! Flags are turned into one validated configuration before any work starts.

mod compare;
mod experiment;
mod play;
mod rules;
mod run;
mod shard;
mod strategies;
mod tournament;
mod trace;
mod tune;

use clap::{CommandFactory, Parser, Subcommand};
use std::io::{IsTerminal, Write};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
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
    #[arg(short, long, default_value = "classic")]
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
    #[arg(short, long, default_value = "4", value_parser = parse_players, allow_hyphen_values = true)]
    pub players: usize,
    /// Strategies, comma separated, one per seat (cycled to fill the seats)
    #[arg(short, long, default_value = "random")]
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
    /// Experiments as files: arms played paired, results folders with plots
    Experiment {
        #[command(subcommand)]
        action: experiment::ExperimentAction,
    },
    /// A/B: two configurations played on the same seeds, differences with intervals
    #[command(args_override_self = true)]
    Compare(compare::CompareArgs),
    /// Write one whole match as JSON Lines (docs/trace.md)
    #[command(args_override_self = true)]
    Trace(trace::TraceArgs),
    /// List the rule sets, or `rules show NAME` to print one fully resolved
    Rules {
        #[command(subcommand)]
        action: Option<rules::RulesAction>,
    },
    /// List the built-in strategies
    Strategies,
    /// Merge the state files of `run --shard` or `experiment run --shard` into one result
    Merge(shard::MergeArgs),
    /// Print a shell completion script: unolab completions bash > ~/.local/share/bash-completion/completions/unolab
    Completions {
        /// bash, zsh, fish, elvish or powershell
        shell: clap_complete::Shell,
    },
    /// Sit at the table yourself against strategies, in the terminal
    #[command(args_override_self = true)]
    Play(play::PlayArgs),
    /// Tune the heuristic's parameters by simulation (cross-entropy method)
    #[command(args_override_self = true)]
    Tune(tune::TuneArgs),
    /// Line-ups drawn from a field: ratings with intervals and head-to-head
    #[command(args_override_self = true)]
    Tournament(tournament::TournamentArgs),
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

/// Seconds between saves of a resumable state (`--checkpoint`): a number from
/// 0 (save at every unit of work) to one day.
pub fn parse_checkpoint(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(x) if (0.0..=86_400.0).contains(&x) => Ok(x),
        _ => Err(format!(
            "'{s}' is not a valid checkpoint interval (valid: seconds from 0 to 86400)"
        )),
    }
}

/// Seconds between saves of a resumable state when `--checkpoint` is not given.
pub const CHECKPOINT_SECS: f64 = 10.0;

/// The cores of this machine (1 when unknown).
pub fn cores() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
}

/// At most 8 threads per core: more only adds switching.
pub fn parse_threads(s: &str) -> Result<usize, String> {
    let max = 8 * cores();
    match s.parse::<usize>() {
        Ok(n) if (1..=max).contains(&n) => Ok(n),
        _ => Err(format!(
            "'{s}' is not a valid thread count (valid: 1 to {max}, 8 per core on this machine's {} cores)",
            cores()
        )),
    }
}

/// A flag set by Ctrl-C, SIGTERM or SIGHUP (what batch schedulers send at a
/// time limit): long work stops after the unit in progress and keeps what it
/// finished. A second signal exits at once with code 130.
pub fn interrupt_flag() -> &'static AtomicBool {
    static STOP: AtomicBool = AtomicBool::new(false);
    static INSTALL: std::sync::Once = std::sync::Once::new();
    INSTALL.call_once(|| {
        let _ = ctrlc::set_handler(|| {
            if STOP.swap(true, Ordering::SeqCst) {
                unolab::agents::external::end_all();
                std::process::exit(130);
            }
        });
    });
    &STOP
}

/// A progress bar on stderr when it is a terminal and not `--quiet`;
/// otherwise nothing.
pub struct Progress(Option<indicatif::ProgressBar>);

impl Progress {
    /// A bar of `total` units named `unit` (shown as a rate), at `pos`.
    pub fn new(total: u64, quiet: bool, unit: &str, pos: u64) -> Progress {
        if quiet || !std::io::stderr().is_terminal() {
            return Progress(None);
        }
        let b = indicatif::ProgressBar::new(total);
        let unit = unit.to_string();
        b.set_style(
            indicatif::ProgressStyle::with_template(
                "{wide_bar} {human_pos}/{human_len} {rate} eta {eta}",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
            .with_key(
                "rate",
                move |s: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                    let _ = write!(w, "{:.0} {unit}/s", s.per_sec());
                },
            ),
        );
        b.set_position(pos);
        Progress(Some(b))
    }

    /// Moves the bar to `done` units.
    pub fn set(&self, done: u64) {
        if let Some(b) = &self.0 {
            b.set_position(done);
        }
    }

    /// Removes the bar.
    pub fn finish(&self) {
        if let Some(b) = &self.0 {
            b.finish_and_clear();
        }
    }
}

/// The current time as `YYYY-MM-DDTHH:MM:SSZ`.
pub fn now_utc() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    unolab::report::utc_timestamp(secs)
}

/// Whether to colour stderr: a terminal, and neither `NO_COLOR` set nor
/// `TERM=dumb` (https://no-color.org).
pub fn color_stderr() -> bool {
    std::io::stderr().is_terminal()
        && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
        && std::env::var("TERM").map_or(true, |t| t != "dumb")
}

/// `word` in bold red when stderr takes colour.
fn paint_error(word: &str) -> String {
    if color_stderr() {
        format!("\x1b[1;31m{word}\x1b[0m")
    } else {
        word.to_string()
    }
}

/// One line from a clap error: its first line, plus the line that lists the
/// valid values or suggests a correction, if any.
fn one_line_error(text: &str) -> String {
    let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
    let mut out = lines
        .next()
        .unwrap_or("error: invalid arguments")
        .to_string();
    for l in lines {
        if l.starts_with("tip:") || l.starts_with("[possible values") {
            out.push_str("; ");
            out.push_str(l.trim_start_matches("tip: "));
        } else if l.starts_with('<') || l.starts_with("--") {
            // The missing argument(s), as clap lists them.
            out.push_str(&format!(" {l}"));
        }
    }
    out
}

/// An error for the user: one line, exit code 2.
pub struct Fail(pub String);

impl<E: std::fmt::Display> From<E> for Fail {
    fn from(e: E) -> Fail {
        Fail(e.to_string())
    }
}

/// Ends the external programs still running when it is dropped: whatever
/// way the command ends (an error, a panic), none outlives unolab.
struct EndPrograms;

impl Drop for EndPrograms {
    fn drop(&mut self) {
        unolab::agents::external::end_all();
    }
}

pub fn main() -> ExitCode {
    let _end = EndPrograms;
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
            eprintln!(
                "{} (see unolab --help)",
                one_line_error(&e.render().to_string())
            );
            return ExitCode::from(2);
        }
    };
    match run_cli(cli) {
        Ok(code) => code,
        Err(Fail(msg)) => {
            eprintln!("{}: {msg}", paint_error("error"));
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
        Command::Experiment { action } => experiment::exec(action),
        Command::Compare(a) => compare::exec(a),
        Command::Rules { action } => rules::exec(action),
        Command::Strategies => strategies::exec(),
        Command::Merge(a) => shard::merge(a),
        Command::Completions { shell } => {
            let mut buf = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "unolab", &mut buf);
            print_bytes(&buf)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Play(a) => play::exec(a),
        Command::Tune(a) => tune::exec(a),
        Command::Tournament(a) => tournament::exec(a),
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

#[cfg(test)]
mod tests {
    use super::Cli;
    use clap::CommandFactory;

    /// Every option name and short flag of `cmd` (with the help flag and the
    /// parents' global options), then the same for every subcommand.
    fn check(cmd: &clap::Command, inherited: &[String], problems: &mut Vec<String>) {
        let mut seen: Vec<String> = inherited.to_vec();
        let mut globals = inherited.to_vec();
        let mut own: Vec<String> = vec!["-h".into(), "--help".into()];
        for a in cmd.get_arguments() {
            let mut names = Vec::new();
            if let Some(s) = a.get_short() {
                names.push(format!("-{s}"));
            }
            if let Some(l) = a.get_long() {
                names.push(format!("--{l}"));
            }
            for n in names {
                if n == "-h" || n == "--help" {
                    continue;
                }
                if seen.contains(&n) || own.contains(&n) {
                    problems.push(format!("{}: {n} twice", cmd.get_name()));
                }
                if a.is_global_set() {
                    globals.push(n.clone());
                }
                own.push(n);
            }
        }
        seen.extend(own);
        for sub in cmd.get_subcommands() {
            check(sub, &globals, problems);
        }
    }

    /// No command has two options with the same name or short flag (clap
    /// checks that only in debug builds; the tests run in release).
    #[test]
    fn no_option_name_or_short_flag_is_taken_twice() {
        let mut problems = Vec::new();
        check(&Cli::command(), &[], &mut problems);
        assert!(problems.is_empty(), "{problems:?}");
        // The check finds a planted clash.
        let bad = clap::Command::new("x")
            .arg(clap::Arg::new("a").short('o').long("out"))
            .arg(clap::Arg::new("b").short('o').long("other"));
        let mut found = Vec::new();
        check(&bad, &[], &mut found);
        assert_eq!(found, vec!["x: -o twice".to_string()]);
    }
}
