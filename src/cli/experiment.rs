//! `unolab experiment run FILE` / `unolab experiment check FILE`: experiments
//! as files, played in lockstep with paired statistics, written to a results
//! folder; and the shared driver that `compare` uses too.

use super::{print_out, Fail};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;
use unolab::lab::{experiment, Experiment};
use unolab::report::experiment::{load_state, save_state, ExperimentReport};
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
    #[arg(long, value_name = "SECS", value_parser = super::parse_checkpoint, allow_hyphen_values = true)]
    checkpoint: Option<f64>,
}

/// Options shared by `experiment run` and `compare`.
#[derive(clap::Args, Clone)]
pub struct CommonArgs {
    /// Games per arm (deals per arm with --duplicate); with --precision, the limit
    #[arg(long, value_parser = super::parse_count, allow_hyphen_values = true)]
    pub games: Option<u64>,
    /// Master seed (an unsigned 64-bit integer)
    #[arg(long, value_parser = super::parse_seed, allow_hyphen_values = true)]
    pub seed: Option<u64>,
    /// Worker threads (default: all cores); the results do not depend on it
    #[arg(long, value_parser = super::parse_threads, allow_hyphen_values = true)]
    pub threads: Option<usize>,
    /// Play each deal once per seat rotation of the line-up (duplicate);
    /// --duplicate=false turns it off for a file that asks for it
    #[arg(long, num_args = 0..=1, default_missing_value = "true", value_name = "BOOL")]
    pub duplicate: Option<bool>,
    /// Stop when every 95% interval is narrower than plus or minus X
    #[arg(long, value_name = "X", value_parser = parse_precision, allow_hyphen_values = true)]
    pub precision: Option<f64>,
    /// Games per batch (the precision rule and saved state work per batch)
    #[arg(long, value_parser = super::parse_count, allow_hyphen_values = true)]
    pub batch: Option<u64>,
    /// Output folder (experiment run: default results/<name>)
    #[arg(short, long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Continue an interrupted run from the state saved in the output folder
    #[arg(long)]
    pub resume: bool,
    /// No progress bar
    #[arg(short, long)]
    pub quiet: bool,
}

fn parse_precision(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(x) if x > 0.0 && x.is_finite() => Ok(x),
        _ => Err(format!(
            "'{s}' is not a valid precision (valid: a positive number, the half-width of the 95% intervals)"
        )),
    }
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
            let every = a.checkpoint.unwrap_or(super::CHECKPOINT_SECS);
            if let Some(spec) = &a.shard {
                let shard = super::shard::parse_shard(spec)?;
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

/// The state file inside an output folder.
pub fn state_path(out: &Path) -> PathBuf {
    out.join("state.json")
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
    if let Some(out) = out {
        super::run::prepare_out_dir(out)?;
    }
    let threads = c.threads.unwrap_or_else(super::cores);
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
                "{} does not belong to this experiment (arms, seed, duplicate or batch differ)",
                spath.display()
            )));
        }
        st
    } else {
        LockstepState::new(&cfg)
    };
    let stop = super::interrupt_flag();
    let total = cfg.max_clusters;
    let bar = super::Progress::new(total, c.quiet, "games per arm", state.clusters);
    let started = super::now_utc();
    let t0 = Instant::now();
    let progress = |d: u64| bar.set(d);
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
    let how = run_lockstep(&cfg, &mut state, stop, &progress, &mut save)?;
    let elapsed = t0.elapsed().as_secs_f64();
    bar.finish();
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
        started,
        command,
        commit: unolab::report::GIT_COMMIT.map(String::from),
        shards: None,
    };
    if let Some(out) = out {
        report.write_dir(out).map_err(Fail)?;
    }
    if json {
        print_out(&(serde_json::to_string(&report.to_json())? + "\n"))?;
    } else {
        print_out(&summary_text(&report))?;
    }
    if how == Stop::Interrupted {
        eprintln!(
            "interrupted: {} of {} games per arm kept (last batch boundary); continue with --resume",
            state.clusters, total
        );
        return Ok(ExitCode::from(130));
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
    if exp.run.duplicate {
        if let Some(a) = exp.run.arms.iter().find(|a| a.cfg.fixed_seats) {
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

/// A short table of the comparisons (or of the arms when there is no baseline).
pub fn summary_text(r: &ExperimentReport) -> String {
    use std::fmt::Write as _;
    use unolab::report::experiment::{arm_rows, comparison_rows, describe};
    let mut o = String::new();
    let _ = writeln!(
        o,
        "{}: {} arms, {} {} per arm{}, seed {}, {:.1} s",
        r.exp.name,
        r.exp.run.arms.len(),
        r.state.clusters,
        if r.exp.run.duplicate {
            "deals"
        } else {
            "games"
        },
        match r.stop {
            Stop::Precision => " (precision reached)",
            Stop::Interrupted => " (PARTIAL)",
            Stop::Limit => "",
        },
        r.exp.run.seed,
        r.elapsed_s
    );
    let fmt = |m: &str, x: f64| {
        if describe(m).1 {
            format!("{:.3}%", 100.0 * x)
        } else {
            format!("{x:.4}")
        }
    };
    let comps = comparison_rows(r.state);
    if comps.is_empty() {
        let _ = writeln!(o, "{:<28} {:<34} {:>10}  95% CI", "arm", "metric", "value");
        for a in arm_rows(r.state)
            .iter()
            .filter(|a| a.metric != "position_win_rate")
        {
            let _ = writeln!(
                o,
                "{:<28} {:<34} {:>10}  [{}, {}]",
                a.arm,
                format!("{}:{}", a.metric, a.group),
                fmt(&a.metric, a.est.value),
                fmt(&a.metric, a.est.lo),
                fmt(&a.metric, a.est.hi)
            );
        }
    } else {
        let _ = writeln!(
            o,
            "{:<28} {:<34} {:>10} {:>10} {:>10}  {:<24} {:>9} {:>9}",
            "arm", "metric", "baseline", "arm", "diff", "95% CI", "p", "Holm p"
        );
        for c in comps.iter().filter(|c| c.metric != "position_win_rate") {
            let p = |x: f64| {
                if x.is_finite() {
                    format!("{x:.4}")
                } else {
                    "-".into()
                }
            };
            let _ = writeln!(
                o,
                "{:<28} {:<34} {:>10} {:>10} {:>10}  {:<24} {:>9} {:>9}",
                c.arm,
                format!("{}:{}", c.metric, c.group),
                fmt(&c.metric, c.base_value),
                fmt(&c.metric, c.arm_value),
                fmt(&c.metric, c.d.diff),
                format!("[{}, {}]", fmt(&c.metric, c.d.lo), fmt(&c.metric, c.d.hi)),
                p(c.d.p),
                p(c.p_holm)
            );
        }
    }
    o
}
