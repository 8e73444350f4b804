//! `unolab trace`: one whole match as JSON Lines.

use super::args::{load_rules, RuleArgs, TableArgs};
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
    /// Write to FILE instead of stdout
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
}

pub fn exec(a: TraceArgs) -> Result<ExitCode, Fail> {
    let TraceArgs { rules, table, out } = a;
    let rules = load_rules(&rules)?;
    let lineup = strategy::parse_list(&table.strategies)?;
    // The whole trace is built first, so a failure writes nothing.
    let mut buf = Vec::new();
    rules.check_players(table.players)?;
    let mut seats = strategy::lineup_seats(&lineup, table.players)?;
    unolab::engine::trace::write_trace(&rules, &mut seats, table.seed, &mut buf)?;
    match out {
        None => print_bytes(&buf)?,
        Some(path) => {
            let dir = path.parent().filter(|p| !p.as_os_str().is_empty());
            let dir = dir
                .map(|d| d.to_path_buf())
                .unwrap_or_else(|| PathBuf::from("."));
            let name = path
                .file_name()
                .ok_or_else(|| Fail(format!("--out {} is not a file path", path.display())))?
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
