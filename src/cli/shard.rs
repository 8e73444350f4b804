//! `unolab run --shard I/N` (one shard of a run, into a state file) and
//! `unolab merge` (shard states into the usual outputs).

use super::{print_out, Fail};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;
use unolab::report::{write_files_atomically, Report};
use unolab::sim::shard::{run_shard, Merger, RunSpec, Shard, ShardState};
use unolab::sim::RunConfig;

/// The shard named by `--shard`: `I/N`, or `slurm` for a job array task.
pub fn parse_shard(spec: &str) -> Result<Shard, Fail> {
    if spec == "slurm" {
        Ok(Shard::from_slurm(|k| std::env::var(k).ok())?)
    } else {
        Ok(Shard::parse(spec)?)
    }
}

/// Plays shard `shard` of `cfg` into `DIR/shard-I-of-N.json`, resuming the
/// state found there.
pub fn run(
    cfg: RunConfig,
    shard: Shard,
    out: Option<PathBuf>,
    quiet: bool,
    json: bool,
) -> Result<ExitCode, Fail> {
    // Signals from here on stop the work and keep what finished.
    let stop = super::interrupt_flag();
    let dir = out.ok_or_else(|| {
        Fail("--shard needs --out DIR, the folder of the shard state files".into())
    })?;
    if json {
        return Err(Fail(
            "--json does not apply to a shard; merge the shards: unolab merge DIR --json".into(),
        ));
    }
    let name = shard.file_name();
    let path = dir.join(&name);
    // Check an existing state before creating anything.
    let mut state = if path.is_file() {
        let s = read_state(&path)?;
        let d = RunSpec::of(&cfg).differences(&s.config);
        if !d.is_empty() || s.shard != shard {
            return Err(Fail(format!(
                "{} holds shard {} of another run ({} differ); use another --out or remove it",
                path.display(),
                s.shard,
                if d.is_empty() {
                    "shard".to_string()
                } else {
                    d.join(", ")
                }
            )));
        }
        s
    } else {
        super::run::prepare_out_dir(&dir)?;
        ShardState::new(&cfg, shard, super::now_utc())
    };
    let total = state.end_game - state.first_game;
    let resumed = state.games_done;
    if !state.partial {
        print_out(&format!(
            "shard {shard}: games {}..{} already finished ({} games); state in {}\n",
            state.first_game,
            state.end_game,
            total,
            path.display()
        ))?;
        return Ok(ExitCode::SUCCESS);
    }
    let bar = super::progress_bar(total, quiet, "games");
    if let Some(b) = &bar {
        b.set_position(resumed);
    }
    let progress = |done: u64| {
        if let Some(b) = &bar {
            b.set_position(done);
        }
    };
    let start = Instant::now();
    run_shard(&cfg, &mut state, stop, &progress)?;
    state.elapsed_s += start.elapsed().as_secs_f64();
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    write_files_atomically(&dir, &[(name.as_str(), state.to_json())]).map_err(Fail)?;
    print_out(&format!(
        "shard {shard}: games {}..{}, {} of {} finished{}; state in {}\n",
        state.first_game,
        state.end_game,
        state.games_done,
        total,
        if resumed > 0 {
            format!(" ({resumed} from the saved state)")
        } else {
            String::new()
        },
        path.display()
    ))?;
    if state.partial {
        eprintln!(
            "interrupted: {} of {} games of shard {shard} finished; rerun the same command to resume",
            state.games_done, total
        );
        return Ok(ExitCode::from(130));
    }
    Ok(ExitCode::SUCCESS)
}

fn read_state(path: &Path) -> Result<ShardState, Fail> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Fail(format!("{}: cannot read: {e}", path.display())))?;
    ShardState::from_json(&text).map_err(|e| Fail(format!("{}: {e}", path.display())))
}

#[derive(clap::Args)]
#[command(after_help = "Examples:
  unolab run -g 1000000 --seed 7 --shard 0/4 -o shards    (likewise 1/4, 2/4, 3/4, anywhere)
  unolab merge shards -o results/merged
  unolab merge shards/shard-0000-of-0004.json shards/shard-0002-of-0004.json --allow-partial")]
pub struct MergeArgs {
    /// Shard state files, or folders holding them (their shard-*.json files)
    #[arg(required = true, value_name = "PATH")]
    paths: Vec<PathBuf>,
    /// Write summary.csv, distributions.csv and manifest.json into DIR
    #[arg(short, long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Merge what is there when shards are missing or unfinished; the result is marked partial
    #[arg(long)]
    allow_partial: bool,
    /// Print the summary as one JSON object
    #[arg(long)]
    json: bool,
}

/// The state files named by `paths` (a folder stands for its `shard-*.json`).
fn state_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, Fail> {
    let mut files = Vec::new();
    for p in paths {
        if p.is_dir() {
            let mut found: Vec<PathBuf> = std::fs::read_dir(p)
                .map_err(|e| Fail(format!("{}: cannot read the folder: {e}", p.display())))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|f| {
                    f.file_name().and_then(|n| n.to_str()).is_some_and(|n| {
                        n.starts_with("shard-") && n.ends_with(".json") && f.is_file()
                    })
                })
                .collect();
            if found.is_empty() {
                return Err(Fail(format!(
                    "{} holds no shard state files (shard-*.json)",
                    p.display()
                )));
            }
            found.sort();
            files.extend(found);
        } else if p.is_file() {
            files.push(p.clone());
        } else {
            return Err(Fail(format!("{}: no such file or folder", p.display())));
        }
    }
    Ok(files)
}

pub fn merge(a: MergeArgs) -> Result<ExitCode, Fail> {
    let files = state_files(&a.paths)?;
    // One state in memory at a time: read, check, add, drop.
    let mut merger = Merger::new();
    for f in &files {
        merger.add(&f.display().to_string(), read_state(f)?)?;
    }
    let m = merger.finish(a.allow_partial).map_err(Fail)?;
    let cfg = m.config.to_config(m.threads.max(1)).map_err(|e| {
        Fail(format!(
            "{}: its configuration does not load: {e}",
            files[0].display()
        ))
    })?;
    if let Some(dir) = &a.out {
        super::run::prepare_out_dir(dir)?;
    }
    let partial = m.partial();
    let report = Report {
        cfg: &cfg,
        stats: &m.stats,
        elapsed_s: m.elapsed_s,
        partial,
        started_utc: m.started_utc.clone(),
    };
    let shards = serde_json::json!({
        "count": m.count,
        "merged": m.merged,
        "missing": m.missing,
        "files": files.iter().map(|f| f.display().to_string()).collect::<Vec<_>>(),
    });
    if let Some(dir) = &a.out {
        let command: Vec<String> = std::env::args().collect();
        let mut manifest = report.manifest(&command);
        if let Value::Object(o) = &mut manifest {
            o.insert("shards".into(), shards.clone());
        }
        let files = [
            ("summary.csv", report.summary_csv()?),
            ("distributions.csv", report.distributions_csv()?),
            (
                "manifest.json",
                serde_json::to_string_pretty(&manifest)? + "\n",
            ),
        ];
        write_files_atomically(dir, &files).map_err(Fail)?;
    }
    if a.json {
        let mut j = report.to_json();
        if let (Value::Object(o), true) = (&mut j, partial) {
            o.insert("missing_shards".into(), shards["missing"].clone());
        }
        print_out(&(serde_json::to_string(&j)? + "\n"))?;
    } else {
        print_out(&report.to_text())?;
    }
    if partial {
        let shown: Vec<String> = m.missing.iter().take(20).map(|i| i.to_string()).collect();
        eprintln!(
            "partial: {} of {} games; missing or unfinished shards of {}: {}{}",
            m.stats.games,
            cfg.games,
            m.count,
            shown.join(", "),
            if m.missing.len() > 20 { ", ..." } else { "" }
        );
    }
    Ok(ExitCode::SUCCESS)
}
