//! `unolab run`: many games between strategies, with statistics.

use super::args::{
    cores, load_rules, parse_checkpoint, parse_count, parse_shard, parse_threads, RuleArgs,
    TableArgs, CHECKPOINT_SECS,
};
use super::scaffold::{claim_out_dir, force_without_out, Session};
use super::term::{interrupted, print_result, unfinished_note, Fail};
use std::path::PathBuf;
use std::process::ExitCode;
use unolab::agents as strategy;
use unolab::lab::options::RunOptions;
use unolab::report::Report;
use unolab::sim::{self, Mode, Seating};

#[derive(clap::Args)]
#[command(after_help = "Examples:
  unolab run -s points,color -p 4 -g 1000000
  unolab run -r lilo-stitch --house stacking=same,seven_o --set hand_size=5
  unolab run -m match -g 20000 --json
  unolab run -g 5000000 -o results/my-run      (summary.csv, distributions.csv, manifest.json)
  unolab run -g 100000000 --shard 3/16 -o shards   (one shard's state; then unolab merge shards)")]
pub struct RunArgs {
    #[command(flatten)]
    rules: RuleArgs,
    #[command(flatten)]
    table: TableArgs,
    /// Number of games (rounds in round mode, matches in match mode)
    #[arg(short, long, default_value = "100000", value_parser = parse_count, allow_hyphen_values = true)]
    games: u64,
    /// round: one round per game; match: whole matches to the target
    #[arg(short, long, default_value = "round", value_parser = ["round", "match"])]
    mode: String,
    /// Worker threads (default: all cores; at most 8 per core)
    #[arg(short = 'j', long, value_parser = parse_threads, allow_hyphen_values = true)]
    threads: Option<usize>,
    /// Who sits where: mixed (every game an arrangement of the line-up, all of
    /// them in turn), rotate (the line-up rotated one seat per game) or fixed
    #[arg(long, value_name = "HOW", default_value = "mixed", value_parser = ["mixed", "rotate", "fixed"])]
    seating: String,
    /// The same as --seating fixed
    #[arg(long, conflicts_with = "seating")]
    fixed_seats: bool,
    /// Duplicate play: each of --games deals is played once per rotation of
    /// its seating (players x games games in all)
    #[arg(long, conflicts_with = "fixed_seats")]
    duplicate: bool,
    /// Print the summary as one JSON object
    #[arg(long)]
    json: bool,
    /// Write summary.csv, distributions.csv and manifest.json into DIR
    #[arg(short, long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// No progress bar
    #[arg(short, long)]
    quiet: bool,
    /// Replace the results an earlier command left in --out (refused without
    /// it); with --shard, start that shard over
    #[arg(long)]
    force: bool,
    /// Play only shard I of N of the games (I/N, or slurm for a job array task)
    /// and write its state file into --out DIR; `unolab merge` combines them
    #[arg(long, value_name = "I/N")]
    shard: Option<String>,
    /// With --shard: save the shard's state every SECS seconds of play (default
    /// 10), so that a shard killed without warning keeps what it finished
    #[arg(long, value_name = "SECS", value_parser = parse_checkpoint, allow_hyphen_values = true)]
    checkpoint: Option<f64>,
}

pub fn exec(a: RunArgs) -> Result<ExitCode, Fail> {
    let RunArgs {
        rules,
        table,
        games,
        mode,
        threads,
        seating,
        fixed_seats,
        duplicate,
        json,
        out,
        quiet,
        shard,
        checkpoint,
        force,
    } = a;
    // Settings given that only a match reads (a round mode run plays the
    // same games with or without them): said once the checks have passed.
    let match_only: Vec<String> = rules
        .set
        .iter()
        .filter_map(|s| s.split_once('=').map(|(k, _)| k.trim().to_string()))
        .filter(|k| unolab::engine::rules::Settings::MATCH_ONLY.contains(&k.as_str()))
        .collect();
    let rules = load_rules(&rules)?;
    let lineup = strategy::parse_list(&table.strategies)?;
    // clap has checked the name (round or match).
    let mode = Mode::parse(&mode).unwrap_or(Mode::Round);
    let cfg = RunOptions {
        rules,
        players: table.players,
        strategies: lineup,
        games,
        mode,
        seed: table.seed,
        threads: threads.unwrap_or_else(cores),
        // clap has checked the name.
        seating: Seating::parse(&seating).unwrap_or_default(),
        fixed_seats,
        duplicate,
    }
    .config()?;
    let games = cfg.games;
    if let Some(spec) = shard {
        let shard = parse_shard(&spec)?;
        let every = checkpoint.unwrap_or(CHECKPOINT_SECS);
        return super::shard::run(cfg, shard, out, quiet, json, every, force);
    }
    if checkpoint.is_some() {
        return Err(Fail(
            "--checkpoint applies only with --shard (a plain run writes its results at the end)"
                .into(),
        ));
    }
    // Earlier results are not replaced without --force, and the output
    // folder must be writable before the first game.
    match &out {
        Some(dir) => claim_out_dir(dir, force)?,
        None if force => return Err(force_without_out()),
        None => {}
    }
    if mode == Mode::Round && !match_only.is_empty() {
        eprintln!(
            "note: {} end{} a match and change{} no round: this run plays rounds (--mode match plays matches)",
            match_only.join(", "),
            if match_only.len() == 1 { "s" } else { "" },
            if match_only.len() == 1 { "s" } else { "" }
        );
    }
    let session = Session::begin(out.as_deref())?.with_bar(games, quiet, "games", 0);
    let outcome =
        sim::run(&cfg, session.stop, &|d| session.progress(d)).map_err(|e| session.failed(e))?;
    if let Some(why) = &outcome.unfinished {
        eprintln!("{}", unfinished_note(why));
    }
    if outcome.none_finished() {
        // A table of 0.00% [0.00%, 100.00%] and means of 0 from no game
        // would be figures without data.
        session.abandon();
        return Ok(interrupted(
            "no game had finished; nothing written or shown",
        ));
    }
    let report = Report {
        cfg: &cfg,
        stats: &outcome.stats,
        elapsed_s: session.finish(),
        partial: outcome.partial,
        started_utc: session.started_utc.clone(),
    };
    let show = || print_result(json, || report.to_json(), || report.to_text());
    if let Some(dir) = &out {
        let command = super::args::command_words();
        session.write_or_show(|| report.write_dir(dir, &command), show)?;
    }
    show()?;
    if outcome.partial {
        return Ok(interrupted(&format!(
            "{} of {} games finished; results are marked partial",
            outcome.stats.games, games
        )));
    }
    Ok(ExitCode::SUCCESS)
}
