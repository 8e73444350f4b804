//! `unolab trace`: one whole match as JSON Lines.

use super::args::{load_rules, RuleArgs, TableArgs};
use super::scaffold::{prepare_out_file, quit_at_interrupt, remove_created};
use super::term::{print_bytes, Fail};
use std::path::PathBuf;
use std::process::ExitCode;
use unolab::agents as strategy;

#[derive(clap::Args)]
pub struct TraceArgs {
    #[command(flatten)]
    rules: RuleArgs,
    #[command(flatten)]
    table: TableArgs,
    /// Write to FILE instead of stdout (missing folders are created)
    #[arg(short, long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Replace an existing --out file (refused without it)
    #[arg(long, requires = "out")]
    force: bool,
    /// No progress output (trace prints none; accepted as by the commands
    /// that do)
    #[arg(short, long)]
    quiet: bool,
}

pub fn exec(a: TraceArgs) -> Result<ExitCode, Fail> {
    let TraceArgs {
        rules,
        table,
        out,
        force,
        quiet: _,
    } = a;
    let rules = load_rules(&rules)?;
    // A trace records a whole match, as `run --mode match` and `play` play
    // one: refused alike when it has no end (it ran to the round cap).
    if let Some(why) = rules.settings.match_end_fault() {
        return Err(Fail(why.into()));
    }
    let lineup = strategy::parse_list(&table.strategies)?;
    rules.check_players(table.players)?;
    let mut seats = strategy::lineup_seats(&lineup, table.players)?;
    // An earlier file is not replaced without --force; its folder is made
    // (with its parents, as --out DIR is) and checked writable first.
    let created = match &out {
        Some(path) => prepare_out_file(path, "--out", force)?,
        None => Vec::new(),
    };
    // A match cannot stop half-way: an interrupt (Ctrl-C, SIGTERM) ends the
    // command at once, writing nothing and removing the folders made for it.
    quit_at_interrupt(
        created.clone(),
        "interrupted: the match was not finished; no trace written".into(),
    );
    // The whole trace is built first, so a failure writes nothing.
    let mut buf = Vec::new();
    if let Err(e) = unolab::engine::trace::write_trace(&rules, &mut seats, table.seed, &mut buf) {
        remove_created(&created);
        return Err(e.into());
    }
    match out {
        None => print_bytes(&buf)?,
        Some(path) => {
            // prepare_out_file has checked that the path names a file.
            unolab::report::write_file_atomically(&path, &buf).map_err(|e| {
                remove_created(&created);
                Fail(e)
            })?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
