//! `unolab experiment run FILE` / `unolab experiment check FILE`: experiments
//! as files, played in lockstep with paired statistics, written to a results
//! folder; and the shared driver that `compare` uses too.

use super::args::{cores, parse_checkpoint, parse_shard, CommonArgs, CHECKPOINT_SECS};
use super::scaffold::{clear_results, Session};
use super::term::{interrupted, print_out, print_result, unfinished_note, Fail};
use std::path::Path;
use std::process::ExitCode;
use unolab::lab::options::Overrides;
use unolab::lab::{experiment, Experiment};
use unolab::report::experiment::{
    commands_so_far, keep_saved_options, refuse_saved, resume_state, ExperimentReport, StateSaver,
};
use unolab::sim::lockstep::{run_lockstep, LockstepState, Stop};

#[derive(clap::Subcommand)]
pub enum ExperimentAction {
    /// Run an experiment file and write results/<name>/
    Run(RunArgs),
    /// Validate an experiment file without playing
    Check {
        /// The experiment file (.toml)
        file: String,
    },
}

#[derive(clap::Args)]
#[command(after_help = "Examples:
  unolab experiment run experiments/house-rules.toml                 (writes results/house-rules/)
  unolab experiment run experiments/house-rules.toml --games 2000 --out /tmp/hr
  unolab experiment run experiments/house-rules.toml --shard 0/4 --out shards   (likewise 1/4, 2/4, 3/4)
  unolab merge shards --out results/house-rules")]
pub struct RunArgs {
    /// The experiment file (.toml)
    file: String,
    #[command(flatten)]
    common: CommonArgs,
    /// Play only shard I of N of the games of every arm (I/N, or slurm for a
    /// job array task) and write its state file into --out DIR; `unolab merge`
    /// combines them into the experiment's results
    #[arg(long, value_name = "I/N")]
    shard: Option<String>,
    /// Save the resumable state at most every SECS seconds of play (default
    /// 10; always at the end, and on an interrupt)
    #[arg(long, value_name = "SECS", value_parser = parse_checkpoint, allow_hyphen_values = true)]
    checkpoint: Option<f64>,
}

pub fn exec(action: ExperimentAction) -> Result<ExitCode, Fail> {
    match action {
        ExperimentAction::Check { file } => {
            let exp = load(&file)?;
            // What a run would refuse before its first game, refused here.
            unolab::sim::lockstep::check(&exp.lockstep(1))
                .map_err(|e| Fail(format!("{file}: {e}")))?;
            let arms = exp.run.arms.len();
            print_out(&format!(
                "{}: {} arm{}, {}{} {} per arm, seed {}{}: valid\n",
                file,
                arms,
                if arms == 1 { "" } else { "s" },
                // With a precision rule the count is a limit, not what is played.
                if exp.run.has_precision_rule() {
                    "up to "
                } else {
                    ""
                },
                exp.run.max_clusters,
                if exp.run.duplicate { "deals" } else { "games" },
                exp.run.seed,
                if exp.run.duplicate { ", duplicate" } else { "" }
            ))?;
            // The arms' labels, one a line (a grid's are generated: this is
            // where to find the name of a baseline).
            for (i, a) in exp.run.arms.iter().enumerate() {
                let base = if exp.run.baseline == Some(i) {
                    " (baseline)"
                } else {
                    ""
                };
                print_out(&format!("  arm '{}'{base}\n", a.label))?;
            }
            Ok(ExitCode::SUCCESS)
        }
        ExperimentAction::Run(a) => {
            let mut exp = load(&a.file)?;
            let every = a.checkpoint.unwrap_or(CHECKPOINT_SECS);
            if let Some(spec) = &a.shard {
                let shard = parse_shard(spec)?;
                let replaced = apply_overrides(&mut exp, &a.common)?;
                return super::shard::run_experiment(exp, shard, &a.common, every, &replaced);
            }
            let out = a
                .common
                .out
                .clone()
                .unwrap_or_else(|| Path::new("results").join(&exp.name));
            drive(exp, &a.common, Some(&out), false, every)
        }
    }
}

fn load(file: &str) -> Result<Experiment, Fail> {
    experiment::load(file).map_err(|errs| {
        // Every problem on its own line; the last goes through Fail.
        let n = errs.len();
        for e in &errs[..n - 1] {
            eprintln!("error: {e}");
        }
        Fail(errs[n - 1].clone())
    })
}

/// Applies the command-line overrides, runs, writes `out` (with the state file
/// for `--resume`) when given, and prints a summary table (or JSON).
pub fn drive(
    mut exp: Experiment,
    c: &CommonArgs,
    out: Option<&Path>,
    json: bool,
    every: f64,
) -> Result<ExitCode, Fail> {
    let replaced = apply_overrides(&mut exp, c)?;
    if let (Some(dir), true) = (out, c.resume) {
        keep_saved_options(dir, &mut exp, &overrides(c));
    }
    // One game (or deal) per arm gives no interval at all: every one was NaN.
    if exp.run.max_clusters < 2 {
        return Err(Fail(format!(
            "{} {} per arm gives no interval; give at least 2 (--games 2)",
            exp.run.max_clusters,
            if exp.run.duplicate { "deal" } else { "game" }
        )));
    }
    let threads = c.threads.unwrap_or_else(cores);
    let cfg = exp.lockstep(threads);
    // What the file and the command line give together (a [stop] metrics
    // list and no precision from either): the file is named, as for its
    // own problems.
    unolab::sim::lockstep::check(&cfg).map_err(|e| {
        if unolab::lab::compare::is_compare_origin(&exp.origin) {
            Fail::from(e)
        } else {
            Fail(format!("{}: {e}", exp.origin))
        }
    })?;
    let mut state = match (out, c.resume) {
        (None, true) => {
            return Err(Fail(
                "--resume needs --out DIR (where the state was saved)".into(),
            ))
        }
        (Some(dir), true) => resume_state(dir, &exp, &cfg).map_err(Fail)?,
        (Some(dir), false) => {
            // Saved work is not replaced without --force.
            if !c.force {
                refuse_saved(dir, &exp).map_err(Fail)?;
            }
            LockstepState::new(&cfg)
        }
        (None, false) => LockstepState::new(&cfg),
    };
    // The output folder must be writable before the first game; with
    // --force the earlier results go.
    let session = Session::begin(out)?;
    if let (Some(dir), true) = (out, c.force) {
        clear_results(dir).map_err(|e| session.failed(e))?;
    }
    // Said once every check has passed, so that a refusal stays one line.
    super::scaffold::seating_note(&replaced, c.seating.as_deref());
    let total = cfg.max_clusters;
    // What a resumed run had played: when it had finished, nothing is
    // played and nothing written (its files stand, with no command added).
    let resumed_from = c.resume.then_some(state.clusters);
    let session = session.with_bar(total, c.quiet, "games per arm", state.clusters);
    // The state is saved at most every `every` seconds (10 by default, and
    // always at the end, interrupted or not), so saving costs nothing
    // measurable.
    let mut saver = StateSaver::new(
        out,
        &exp,
        commands_so_far(out, c.resume, super::args::command_words()),
        every,
    );
    // A checkpoint that cannot be written (a full disk) does not end the
    // run: that threw away every game played, unshown. It is said once, and
    // the run goes on; the end writes the results or, failing that, prints
    // them.
    let (how, unfinished) = run_lockstep(
        &cfg,
        &mut state,
        session.stop,
        &|d| session.progress(d),
        &mut session.checkpoints(
            |st| saver.tick(st),
            "the run goes on without its checkpoint (tried again at the next), and its results are printed at the end if they cannot be written",
        ),
    )
    .map_err(|e| session.failed(e))?;
    if let Some(why) = &unfinished {
        eprintln!("{}", unfinished_note(why));
    }
    session.finish();
    // Resumed, not interrupted, and no game played: the saved run had
    // finished (or met its precision), and its files stand as they are.
    let idle = resumed_from == Some(state.clusters) && how != Stop::Interrupted;
    // The whole run's seconds: a resumed run adds those before it.
    let (commands, elapsed) = saver.record(idle);
    let report = ExperimentReport {
        exp: &exp,
        state: &state,
        stop: how,
        threads,
        elapsed_s: elapsed,
        // A run that played nothing reports the start it was saved with.
        started: unolab::report::outdir::reported_start(idle, out, session.started_utc.clone()),
        commands,
        commit: unolab::report::GIT_COMMIT.map(String::from),
        shards: None,
    };
    let show = || print_result(json, || report.to_json(), || report.to_text());
    if let (true, Some(dir)) = (idle, out) {
        // A finished state whose results are missing (a disk that filled
        // up as they were written, files removed): they are written from
        // it, where --resume said there was nothing to do.
        if !unolab::report::experiment::results_lost(dir) {
            show()?;
            eprintln!("{}", nothing_left(dir));
            return Ok(ExitCode::SUCCESS);
        }
        session.write_or_show(|| report.write_dir(dir), show)?;
        show()?;
        eprintln!(
            "--resume: nothing was left to play; the results missing from {} are written from its saved state",
            dir.display()
        );
        return Ok(ExitCode::SUCCESS);
    }
    session.write_or_show(
        || {
            // The results are written even when the state cannot be (the
            // file in the way of a checkpoint that failed).
            let saved = saver.save(&state);
            let written = match out {
                Some(out) => report.write_dir(out),
                None => Ok(()),
            };
            saved.and(written)
        },
        show,
    )?;
    show()?;
    if how == Stop::Interrupted {
        return Ok(interrupted(&format!(
            "{} of {} {} per arm {}",
            state.clusters,
            total,
            if exp.run.duplicate { "deals" } else { "games" },
            // Without --out nothing was saved to resume from.
            if out.is_some() {
                "kept; continue with the same command and --resume"
            } else {
                "played (printed above; nothing saved to resume: give --out DIR to keep a run)"
            }
        )));
    }
    Ok(ExitCode::SUCCESS)
}

/// What `--resume` says of a run that had nothing left to play.
pub fn nothing_left(dir: &Path) -> String {
    format!(
        "--resume: nothing was left to play; {} holds a finished run, left unchanged",
        dir.display()
    )
}

/// Applies the command-line overrides of `c` to `exp`; the arms whose own
/// seating `--seating` replaced, for [`super::scaffold::seating_note`].
pub fn apply_overrides(
    exp: &mut Experiment,
    c: &CommonArgs,
) -> Result<Vec<(String, unolab::sim::Seating)>, Fail> {
    let given = overrides(c);
    let replaced = given.seating_replaced(exp);
    given.apply(exp).map_err(Fail)?;
    Ok(replaced)
}

/// What the command line changes in an experiment.
fn overrides(c: &CommonArgs) -> Overrides {
    Overrides {
        games: c.games,
        seed: c.seed,
        duplicate: c.duplicate,
        // clap has checked the name.
        seating: c
            .seating
            .as_deref()
            .map(|s| unolab::sim::Seating::parse(s).unwrap_or_default()),
        precision: c.precision.clone(),
        batch: c.batch,
    }
}
