//! `unolab experiment run FILE` / `unolab experiment check FILE`: experiments
//! as files, played in lockstep with paired statistics, written to a results
//! folder; and the shared driver that `compare` uses too.

use super::args::{cores, parse_checkpoint, parse_shard, CommonArgs, CHECKPOINT_SECS};
use super::scaffold::Session;
use super::term::{interrupted, print_out, print_result, Fail};
use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;
use unolab::lab::{experiment, Experiment};
use unolab::report::experiment::{load_state, save_state, state_path, ExperimentReport};
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
    /// Save the resumable state at a batch boundary at most every SECS
    /// seconds of play (default 10; always at the end)
    #[arg(long, value_name = "SECS", value_parser = parse_checkpoint, allow_hyphen_values = true)]
    checkpoint: Option<f64>,
}

pub fn exec(action: ExperimentAction) -> Result<ExitCode, Fail> {
    match action {
        ExperimentAction::Check { file } => {
            let exp = load(&file)?;
            print_out(&format!(
                "{}: {} arms, {} games per arm, seed {}{}: valid\n",
                file,
                exp.run.arms.len(),
                exp.run.max_clusters,
                exp.run.seed,
                if exp.run.duplicate { ", duplicate" } else { "" }
            ))?;
            Ok(ExitCode::SUCCESS)
        }
        ExperimentAction::Run(a) => {
            let mut exp = load(&a.file)?;
            let every = a.checkpoint.unwrap_or(CHECKPOINT_SECS);
            if let Some(spec) = &a.shard {
                let shard = parse_shard(spec)?;
                apply_overrides(&mut exp, &a.common)?;
                return super::shard::run_experiment(exp, shard, &a.common, every);
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
    apply_overrides(&mut exp, c)?;
    // The output folder must be writable before the first game.
    let session = Session::begin(out)?;
    let threads = c.threads.unwrap_or_else(cores);
    let cfg = exp.lockstep(threads);
    unolab::sim::lockstep::check(&cfg)?;
    let spath = out.map(state_path);
    let mut state = if c.resume {
        let Some(spath) = &spath else {
            return Err(Fail(
                "--resume needs --out DIR (where the state was saved)".into(),
            ));
        };
        let st = load_state(spath).map_err(Fail)?;
        if !st.same_shape(&LockstepState::new(&cfg)) {
            return Err(Fail(format!(
                "{} does not belong to this experiment (arms, seating, seed, duplicate or batch differ; a state of an earlier unolab holds rotated seats: --seating rotate)",
                spath.display()
            )));
        }
        st
    } else {
        LockstepState::new(&cfg)
    };
    let total = cfg.max_clusters;
    let session = session.with_bar(total, c.quiet, "games per arm", state.clusters);
    // The state is saved at a batch boundary at most every `every` seconds
    // (10 by default, and always at the end, interrupted or not), so saving
    // costs nothing measurable.
    let mut last_save = Instant::now();
    let mut save = |st: &LockstepState| match &spath {
        Some(p) if last_save.elapsed().as_secs_f64() >= every => {
            last_save = Instant::now();
            save_state(st, p)
        }
        _ => Ok(()),
    };
    let how = run_lockstep(
        &cfg,
        &mut state,
        session.stop,
        &|d| session.progress(d),
        &mut save,
    )?;
    let elapsed = session.finish();
    if let Some(p) = &spath {
        save_state(&state, p).map_err(Fail)?;
    }
    let command: Vec<String> = std::env::args().collect();
    let report = ExperimentReport {
        exp: &exp,
        state: &state,
        stop: how,
        threads,
        elapsed_s: elapsed,
        started: session.started_utc.clone(),
        command,
        commit: unolab::report::GIT_COMMIT.map(String::from),
        shards: None,
    };
    if let Some(out) = out {
        report.write_dir(out).map_err(Fail)?;
    }
    print_result(json, || report.to_json(), || report.to_text())?;
    if how == Stop::Interrupted {
        return Ok(interrupted(&format!(
            "{} of {} games per arm kept (last batch boundary); continue with --resume",
            state.clusters, total
        )));
    }
    Ok(ExitCode::SUCCESS)
}

/// Applies the command-line overrides of `c` to `exp`.
pub fn apply_overrides(exp: &mut Experiment, c: &CommonArgs) -> Result<(), Fail> {
    if let Some(g) = c.games {
        exp.run.max_clusters = g;
    }
    if let Some(s) = c.seed {
        exp.run.seed = s;
    }
    if let Some(d) = c.duplicate {
        exp.run.duplicate = d;
    }
    if let Some(s) = &c.seating {
        // clap has checked the name.
        let s = unolab::sim::Seating::parse(s).unwrap_or_default();
        for a in &mut exp.run.arms {
            a.cfg.seating = s;
        }
    }
    if exp.run.duplicate {
        if let Some(a) = exp
            .run
            .arms
            .iter()
            .find(|a| a.cfg.seating == unolab::sim::Seating::Fixed)
        {
            return Err(Fail(format!(
                "arm '{}' has fixed seats; --duplicate rotates the seats",
                a.label
            )));
        }
    }
    if let Some(p) = c.precision {
        exp.run.precision = Some(p);
    }
    if let Some(b) = c.batch {
        exp.run.batch = b;
    }
    Ok(())
}
