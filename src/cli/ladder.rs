//! `unolab ladder FILE`: the strength ladder of a ladder file (every agent of
//! a field rated at each table size, and its decisions per second per core).

use super::args::{cores, parse_count, parse_threads};
use super::scaffold::{claim_out_dir, Session};
use super::term::{interrupted, print_out, print_result, unfinished_note, Fail};
use std::path::PathBuf;
use std::process::ExitCode;
use unolab::engine::rules::{read_text, Unread};
use unolab::lab::ladder::{self, LadderFile};
use unolab::report::ladder::{
    read_state, remove_other_sizes, save_state, state_fingerprint, LadderReport,
};

#[derive(clap::Args)]
pub struct LadderArgs {
    /// The ladder file (experiments/ladder.toml)
    file: PathBuf,
    /// Output folder (default results/<name>)
    #[arg(short, long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Games per table size instead of the file's (a quick look)
    #[arg(short, long, value_parser = parse_count, allow_hyphen_values = true)]
    games: Option<u64>,
    /// Worker threads (default: all cores); the ratings do not depend on it
    #[arg(short = 'j', long, value_parser = parse_threads, allow_hyphen_values = true)]
    threads: Option<usize>,
    /// Replace the earlier results in the output folder (the shipped
    /// results/ladder among them)
    #[arg(long)]
    force: bool,
    /// No progress bar
    #[arg(short, long)]
    quiet: bool,
    /// Print the ladder as one JSON object (its rows are ladder.csv's)
    #[arg(long)]
    json: bool,
    /// Continue the interrupted ladder saved in the output folder (its
    /// state.json); the same command otherwise
    #[arg(long, conflicts_with = "force")]
    resume: bool,
    /// Draw ladder.svg again from the output folder's ladder.csv, playing
    /// no game (after an update of unolab's plots); the other files stay
    #[arg(long, conflicts_with_all = ["force", "resume", "json", "games"])]
    redraw: bool,
}

pub fn exec(a: LadderArgs) -> Result<ExitCode, Fail> {
    let text = read_text(&a.file).map_err(|e| {
        Fail(match e {
            Unread::Io(why) => format!("cannot read {}: {why}", a.file.display()),
            Unread::NotText(m) => format!("malformed ladder file {}: {m}", a.file.display()),
        })
    })?;
    let origin = a.file.display().to_string();
    let file = LadderFile::parse(&text, &origin).map_err(Fail)?;
    let (cfg, specs) = file.config(&origin, a.games, a.threads.unwrap_or_else(cores))?;
    let out = a
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from("results").join(&file.name));
    if a.redraw {
        unolab::report::redraw::redraw_svg(&out, &file.name, &cfg.rules.name, cfg.games)
            .map_err(Fail)?;
        print_out(&format!(
            "redrew {} from {} (no game played)\n",
            out.join("ladder.svg").display(),
            out.join("ladder.csv").display()
        ))?;
        return Ok(ExitCode::SUCCESS);
    }
    let print = state_fingerprint(&cfg, specs.iter().map(|s| s.to_json()).collect());
    // Earlier results (the shipped ones in results/ladder) are not replaced
    // without --force (or continued with --resume), and the folder must be
    // writable before the first game.
    let saved = if a.resume {
        read_state(&out, &print).map_err(|e| Fail(format!("--resume: {e}")))?
    } else {
        claim_out_dir(&out, a.force)?;
        for p in &cfg.players {
            claim_out_dir(&out.join(format!("{p}p")), a.force)?;
        }
        Vec::new()
    };
    // The games already played: the saved table sizes' finished games.
    let first: u64 = saved.iter().map(|r| r.results.games).sum();
    if a.force {
        remove_other_sizes(&out, &cfg.players).map_err(Fail)?;
    }
    // The command as a user types it (not the path of this binary), after
    // those that played it so far, and their seconds.
    let typed: Vec<String> = std::iter::once("unolab".to_string())
        .chain(super::args::command_words().into_iter().skip(1))
        .collect();
    let (commands, before_s) = unolab::report::played_so_far(Some(&out), a.resume, typed);
    let total = cfg.games.saturating_mul(cfg.players.len() as u64);
    let session = Session::begin(Some(&out))?.with_bar(total, a.quiet, "games", first);
    let games = cfg.games;
    let field = cfg.entrants.len();
    let outcome = ladder::run_from(&cfg, saved, session.stop, &|k, step| match step {
        ladder::Step::Games(d) => {
            session.note("");
            session.progress((k as u64).saturating_mul(games).saturating_add(d))
        }
        // The bar stands at the size's last game while its agents are timed.
        ladder::Step::Timing(i) => session.note(&format!(
            "timing agent {} of {field} at {} players ({} s each)",
            i + 1,
            cfg.players[k],
            cfg.speed_seconds
        )),
    })
    .map_err(|e| session.failed(e))?;
    for why in outcome
        .rungs
        .iter()
        .filter_map(|r| r.outcome.unfinished.as_ref())
    {
        eprintln!("{}", unfinished_note(why));
    }
    let report = LadderReport {
        cfg: &cfg,
        outcome: &outcome,
        description: &file.description,
        elapsed_s: before_s + session.finish(),
        started_utc: session.started_utc.clone(),
    };
    let hold = unolab::report::hold_writes();
    report
        .write_dir(&out, &commands)
        .map_err(|e| session.failed(e))?;
    // What --resume continues from, kept while the ladder is partial.
    save_state(&out, &print, &outcome, &commands, report.elapsed_s)
        .map_err(|e| session.failed(e))?;
    drop(hold);
    print_result(
        a.json,
        || report.to_json(),
        || {
            format!(
                "ladder: {} agents, {} players, {} games each, seed {}, {:.1} s; wrote {}{}\n",
                cfg.entrants.len(),
                cfg.players
                    .iter()
                    .map(|p| p.to_string())
                    .collect::<Vec<_>>()
                    .join(", "),
                cfg.games,
                cfg.seed,
                report.elapsed_s,
                out.display(),
                if outcome.partial {
                    " (PARTIAL: interrupted)"
                } else {
                    ""
                }
            )
        },
    )?;
    if outcome.partial {
        // How far each table size got (the sizes after the interrupted one
        // were not played).
        let done: Vec<String> = outcome
            .rungs
            .iter()
            .map(|r| {
                format!(
                    "{} of {} games at {} players",
                    r.outcome.results.games, cfg.games, r.players
                )
            })
            .collect();
        let skipped: Vec<String> = cfg.players[outcome.rungs.len()..]
            .iter()
            .map(|p| format!("{p}"))
            .collect();
        return Ok(interrupted(&format!(
            "{}{}; the results written are marked partial (the same command with --resume continues it)",
            done.join(", "),
            if skipped.is_empty() {
                String::new()
            } else {
                format!(" (not played: {} players)", skipped.join(", "))
            }
        )));
    }
    Ok(ExitCode::SUCCESS)
}
