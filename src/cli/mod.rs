//! The `unolab` command line: the parser and the dispatch to one file per
//! subcommand; below them the argument groups they share (`args`), the
//! set-up of a long command (`scaffold`), and what the command line says
//! (`term`: the error that becomes one line on stderr and exit code 2).
//!
//! Flags are turned into one validated configuration before any work starts.
//! The files import downwards only: this file uses the subcommands, the
//! subcommands use `args`, `scaffold` and `term` (`run` and `experiment` hand
//! `--shard` to `shard`, `compare` drives `experiment`), and `args` and
//! `scaffold` use `term` alone.

mod args;
mod compare;
mod experiment;
mod ladder;
mod play;
mod rules;
mod run;
mod scaffold;
mod shard;
mod strategies;
mod term;
mod tournament;
mod trace;
mod train;
mod tune;

use clap::{CommandFactory, Parser, Subcommand};
use std::process::ExitCode;
use term::{paint_error, print_bytes, Fail};

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

#[derive(Subcommand)]
enum Command {
    /// Play many games between strategies and report who wins, with confidence
    Run(run::RunArgs),
    /// Experiments as files: arms played paired, results folders with plots
    Experiment {
        #[command(subcommand)]
        action: experiment::ExperimentAction,
    },
    /// A/B: two configurations played on the same seeds, differences with intervals
    Compare(compare::CompareArgs),
    /// Write one whole match as JSON Lines (docs/trace.md)
    Trace(trace::TraceArgs),
    /// List the rule sets, or `rules show NAME` to print one fully resolved
    Rules {
        #[command(subcommand)]
        action: Option<rules::RulesAction>,
    },
    /// List the built-in strategies and presets with their parameters
    Strategies {
        /// Only these strategies: built-in names or preset files (default: every built-in one)
        #[arg(value_name = "NAME")]
        names: Vec<String>,
        /// Print every parameter of a search preset, not only those it sets
        /// away from the defaults
        #[arg(long)]
        all: bool,
    },
    /// Merge the state files of `run --shard` or `experiment run --shard` into one result
    Merge(shard::MergeArgs),
    /// Print a shell completion script: unolab completions bash > ~/.local/share/bash-completion/completions/unolab
    Completions {
        /// bash, zsh, fish, elvish or powershell
        shell: clap_complete::Shell,
    },
    /// Sit at the table yourself against strategies, in the terminal
    Play(play::PlayArgs),
    /// Tune the heuristic's parameters by simulation (cross-entropy method)
    Tune(tune::TuneArgs),
    /// Line-ups drawn from a field: ratings with intervals and head-to-head
    Tournament(tournament::TournamentArgs),
    /// Distil a teacher (a preset, a search) into a network strategy, with expert iteration
    Train(train::TrainArgs),
    /// The strength ladder of a ladder file: ratings at each table size against decisions per second
    Ladder(ladder::LadderArgs),
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
    // `unolab help --help`: clap's `help` takes no options and calls the
    // flag an unknown subcommand; the help of `help` is the top-level one.
    let words = args::command_words();
    if words.len() == 3 && words[1] == "help" && (words[2] == "--help" || words[2] == "-h") {
        return match Cli::command().print_help() {
            Err(w) if w.kind() != std::io::ErrorKind::BrokenPipe => {
                eprintln!("{}: cannot write the help: {w}", paint_error("error"));
                ExitCode::from(2)
            }
            _ => ExitCode::SUCCESS,
        };
    }
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
                match e.print() {
                    // A reader that stopped early (`| head`) is no error.
                    Err(w) if w.kind() != std::io::ErrorKind::BrokenPipe => {
                        eprintln!("{}: cannot write the help: {w}", paint_error("error"));
                        return ExitCode::from(2);
                    }
                    _ => {}
                }
                return if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
                    ExitCode::from(2)
                } else {
                    ExitCode::SUCCESS
                };
            }
            // The subcommand's own help lists its options; the top-level
            // help does not.
            // The subcommands named, in turn (`experiment run`).
            let mut cmd = <Cli as clap::CommandFactory>::command();
            let mut sub = String::new();
            for word in args::command_words().into_iter().skip(1) {
                if word.starts_with('-') {
                    continue;
                }
                let Some(c) = cmd.find_subcommand(&word).cloned() else {
                    break;
                };
                sub += &format!("{word} ");
                cmd = c;
            }
            // Painted as every other error of the command line.
            let line = one_line_error(&e.render().to_string());
            let line = match line.strip_prefix("error:") {
                Some(rest) => format!("{}:{rest}", paint_error("error")),
                None => line,
            };
            eprintln!("{line} (see unolab {sub}--help)");
            return ExitCode::from(2);
        }
    };
    let result = run_cli(cli);
    // Earlier results --force moved aside go now, or come back where the
    // command wrote none.
    scaffold::settle_set_aside();
    match result {
        Ok(code) => code,
        Err(Fail(_)) if scaffold::quitting() => {
            // An interrupt ended the programs this command waited on: its
            // handler exits with status 130 and its own line.
            loop {
                std::thread::park();
            }
        }
        Err(Fail(msg)) => {
            // Not eprintln!: with standard error closed too (`2>&1 | true`)
            // it would panic (exit 101); the status says it.
            use std::io::Write as _;
            let _ = writeln!(std::io::stderr(), "{}: {msg}", paint_error("error"));
            ExitCode::from(2)
        }
    }
}

fn run_cli(cli: Cli) -> Result<ExitCode, Fail> {
    match cli.command {
        Command::Run(a) => run::exec(a),
        Command::Trace(a) => trace::exec(a),
        Command::Experiment { action } => experiment::exec(action),
        Command::Compare(a) => compare::exec(a),
        Command::Rules { action } => rules::exec(action),
        Command::Strategies { names, all } => strategies::exec(&names, all),
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
        Command::Train(a) => train::exec(a),
        Command::Ladder(a) => ladder::exec(a),
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
