//! `unolab tune`: the cross-entropy method over the heuristic's parameters.

use super::args::{
    cores, load_rules, parse_count, parse_generations, parse_players, parse_population, parse_seed,
    parse_threads, RuleArgs,
};
use super::scaffold::{prepare_out_file, remove_created, stops_after, Session};
use super::term::{print_out, unfinished_note, Fail};
use std::path::PathBuf;
use std::process::ExitCode;
use unolab::agents::{self as strategy, StrategySpec};
use unolab::lab::tune::{self, TuneConfig};

#[derive(clap::Args)]
pub struct TuneArgs {
    #[command(flatten)]
    rules: RuleArgs,
    /// Number of players, 2 to 10
    #[arg(short, long, default_value = "4", value_parser = parse_players, allow_hyphen_values = true)]
    players: usize,
    /// The opponents, comma separated, cycled to fill the other seats
    #[arg(long, default_value = "points,color,cautious")]
    field: String,
    /// The heuristic preset tuning starts from
    #[arg(long, default_value = "color")]
    start: String,
    /// Generations of the search
    #[arg(long, default_value = "10", value_parser = parse_generations, allow_hyphen_values = true)]
    generations: u64,
    /// Candidates per generation (the first is the current mean)
    #[arg(long, default_value = "16", value_parser = parse_population, allow_hyphen_values = true)]
    population: u64,
    /// Games (rounds) per candidate per generation, the same for every candidate
    #[arg(short, long, default_value = "4000", value_parser = parse_count, allow_hyphen_values = true)]
    games: u64,
    /// Games of the held-out evaluation on seeds tuning never used
    #[arg(long, default_value = "40000", value_parser = parse_count, allow_hyphen_values = true)]
    holdout_games: u64,
    /// Master seed (an unsigned 64-bit integer)
    #[arg(long, default_value = "1", value_parser = parse_seed, allow_hyphen_values = true)]
    seed: u64,
    /// Worker threads (default: all cores; at most 8 per core)
    #[arg(short = 'j', long, value_parser = parse_threads, allow_hyphen_values = true)]
    threads: Option<usize>,
    /// Name of the tuned strategy (default: the --out file's stem, or "tuned")
    #[arg(long)]
    name: Option<String>,
    /// Write the preset file here (e.g. strategies/tuned.toml; missing
    /// folders are created)
    #[arg(short, long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Replace an existing --out file (refused without it)
    #[arg(long, requires = "out")]
    force: bool,
    /// No progress lines (one per generation on stderr)
    #[arg(short, long)]
    quiet: bool,
    /// Let a perfect-information reference agent (base = "oracle") be an opponent
    #[arg(long)]
    allow_oracle: bool,
}

pub fn exec(a: TuneArgs) -> Result<ExitCode, Fail> {
    let rules = load_rules(&a.rules)?;
    let field = strategy::parse_list(&a.field)?;
    // A preset tuned against a player that sees every hand is tuned for no
    // fair table: refused unless asked for, as tournaments refuse it.
    strategy::check_fair(&field, a.allow_oracle, strategy::OracleAllowedBy::Flag).map_err(Fail)?;
    let start = StrategySpec::load(&a.start)?;
    let name = tune::preset_name(a.name.as_deref(), a.out.as_deref());
    check_name(&name, "the preset (--name, or --out's file name)")?;
    let threads = a.threads.unwrap_or_else(cores);
    let cfg = TuneConfig {
        rules,
        players: a.players,
        field,
        start,
        name,
        generations: a.generations.min(u32::MAX as u64) as u32,
        population: a.population.min(1 << 20) as usize,
        games: a.games,
        holdout_games: a.holdout_games,
        seed: a.seed,
        threads,
    };
    cfg.validate()?;
    // An earlier preset is not replaced without --force, and its folder is
    // made (with its parents, as --out DIR is) and checked writable before
    // the first game.
    // The interrupt handler first (Session::begin), so that a signal never
    // finds a folder made and no handler to remove it.
    let session = Session::begin(None)?;
    stops_after(
        "the games in progress (the generation under way is dropped) and then the held-out games",
    );
    let created = match &a.out {
        Some(p) => prepare_out_file(p, "--out", a.force)?,
        None => Vec::new(),
    };
    // Said once every check has passed, so that a refusal stays one line.
    if strategy::builtin_names().contains(&cfg.name.as_str()) {
        // Allowed (`--out strategies/tuned.toml` makes the shipped preset
        // anew), but a line-up cannot hold it beside the built-in.
        eprintln!(
            "note: the tuned preset is named '{}', as a built-in strategy: a line-up cannot hold both; give --name to rename it",
            cfg.name
        );
    }
    let quiet = a.quiet;
    if !quiet {
        // The progress figures are the tuning games' own: the best and the
        // elite are chosen on them, so they read high.
        eprintln!(
            "tune: per generation, rounds won on its tuning games by the mean (with its 95% interval), the best candidate and the elite \
             (best and elite are chosen on these games and read high: no interval; the held-out evaluation at the end is the figure to quote)"
        );
    }
    let outcome = tune::tune(&cfg, session.stop, &mut |g| {
        if g.index == cfg.generations {
            // The search is over: what comes is the held-out evaluation.
            stops_after("the held-out games in progress");
        }
        if quiet {
            return;
        }
        eprintln!(
            "generation {}/{}: mean {:.2}% [{:.2}, {:.2}]  best {:.2}%  elite {:.2}%  spread {:.3}  ({:.0} s)",
            g.index,
            cfg.generations,
            100.0 * g.mean_rate,
            100.0 * g.mean_ci95.0,
            100.0 * g.mean_ci95.1,
            100.0 * g.best_rate,
            100.0 * g.elite_rate,
            g.spread,
            session.elapsed_s()
        );
        if g.index == cfg.generations {
            eprintln!(
                "held-out evaluation: {} games each of the mean and {start} against the field, and of the mean against {start}, on games the search never saw",
                cfg.holdout_games,
                start = cfg.start.name()
            );
        }
    })
    .map_err(|e| {
        remove_created(&created);
        Fail::from(e)
    })?;
    let command = super::args::command_words();
    let command = command_line(&command);
    let text = tune::preset_file(&cfg, &outcome, &command);
    if let Some(p) = &a.out {
        unolab::report::write_file_atomically(p, text.as_bytes()).map_err(|e| {
            remove_created(&created);
            Fail(e)
        })?;
        eprintln!("wrote {}", p.display());
    }
    print_out(&text)?;
    if let Some(why) = &outcome.unfinished {
        eprintln!("{}", unfinished_note(why));
    }
    if outcome.interrupted {
        if outcome.holdout.games < cfg.holdout_games {
            eprintln!(
                "interrupted during the held-out evaluation: {} of {} games played; the preset is the mean after {} of {} generations",
                outcome.holdout.games,
                cfg.holdout_games,
                outcome.history.len(),
                cfg.generations
            );
        } else {
            eprintln!(
                "interrupted after {} of {} generations; the preset is the mean reached",
                outcome.history.len(),
                cfg.generations
            );
        }
        return Ok(ExitCode::from(130));
    }
    Ok(ExitCode::SUCCESS)
}

/// The command as one line: `unolab` and the arguments, quoted where needed.
pub fn command_line(args: &[String]) -> String {
    let mut v = vec!["unolab".to_string()];
    for a in args.iter().skip(1) {
        if a.is_empty() || a.contains(|c: char| c.is_whitespace() || c == '"' || c == '\'') {
            v.push(format!("'{}'", a.replace('\'', "'\\''")));
        } else {
            v.push(a.clone());
        }
    }
    v.join(" ")
}

/// Refuses a `--name` that would not load back as a strategy name or that
/// a file name could not hold (`names`: what it names, in the message).
pub fn check_name(name: &str, names: &str) -> Result<(), Fail> {
    if unolab::lab::plain_name(name, true) {
        Ok(())
    } else {
        Err(Fail(format!(
            "invalid name '{name}' (valid: letters, digits, '-', '_' and '.'; it names {names})"
        )))
    }
}
