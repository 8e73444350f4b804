//! `unolab tournament`: line-ups drawn from a field, ratings and head-to-head.

use super::args::{
    cores, load_rules, parse_count, parse_players, parse_seed, parse_threads, RuleArgs,
};
use super::scaffold::{claim_out_dir, Session};
use super::term::{interrupted, print_result, unfinished_note, Fail};
use std::path::PathBuf;
use std::process::ExitCode;
use unolab::agents as strategy;
use unolab::lab::tournament::{self, TournamentConfig};
use unolab::lab::Entrant;
use unolab::report::played_so_far;
use unolab::report::tournament::{read_state, save_state, state_fingerprint, TournamentReport};

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
    #[arg(long, requires = "out")]
    force: bool,
    /// Let a perfect-information reference agent (base = "oracle") take part
    #[arg(long)]
    allow_oracle: bool,
    /// Continue the interrupted tournament saved in --out (its state.json) up
    /// to --games; the same command otherwise
    #[arg(long, conflicts_with = "force", requires = "out")]
    resume: bool,
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
    let print = state_fingerprint(&cfg, field.iter().map(|s| s.to_json()).collect());
    // Earlier results are not replaced without --force (or continued with
    // --resume), and the output folder must be writable before the first
    // game.
    let saved = match &a.out {
        Some(dir) if a.resume => {
            Some(read_state(dir, &print, a.games).map_err(|e| Fail(format!("--resume: {e}")))?)
        }
        Some(dir) => {
            claim_out_dir(dir, a.force)?;
            None
        }
        None => None,
    };
    let first = saved.as_ref().map_or(0, |r| r.games);
    // The commands that played it so far, and their seconds (a resumed
    // tournament's manifest names the command that started it).
    let (commands, before_s) =
        played_so_far(a.out.as_deref(), a.resume, super::args::command_words());
    let session = Session::begin(a.out.as_deref())?.with_bar(a.games, a.quiet, "games", first);
    let outcome = tournament::run_from(&cfg, saved, session.stop, &|d| session.progress(d))
        .map_err(|e| session.failed(e))?;
    if let Some(why) = &outcome.unfinished {
        eprintln!("{}", unfinished_note(why));
    }
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
        elapsed_s: before_s + session.finish(),
        started_utc: session.started_utc.clone(),
    };
    let show = || print_result(a.json, || report.to_json(), || report.to_text());
    if let Some(dir) = &a.out {
        // What --resume continues from (the finished games' counts) is
        // kept while the tournament is partial.
        session.write_or_show(
            || {
                report.write_dir(dir, &commands)?;
                save_state(dir, &print, &outcome, &commands, report.elapsed_s)
            },
            show,
        )?;
    }
    show()?;
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
