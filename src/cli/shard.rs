//! `unolab run --shard I/N` and `unolab experiment run --shard I/N` (one
//! shard of a run or an experiment, into a state file) and `unolab merge`
//! (shard states into the usual outputs).

use super::args::{cores, CommonArgs};
use super::scaffold::{check_out_dir, clear_results, force_without_out, prepare_out_dir, Session};
use super::term::{interrupted, print_out, print_result, unfinished_note, Fail};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};
use unolab::lab::shard::{run_experiment_shard, ExperimentShardState};
use unolab::lab::Experiment;
use unolab::report::experiment::{save_state, state_path, ExperimentReport};
use unolab::report::outdir::{describe_results, results_in};
use unolab::report::{write_files_atomically, Report};
use unolab::sim::lockstep::Stop;
use unolab::sim::shard::{
    run_shard, shard_kind, shown, Merged, Merger, RunSpec, Shard, ShardFile, ShardState,
};
use unolab::sim::RunConfig;

/// The folder of the shard state files, which `--shard` needs.
fn shard_dir(out: Option<PathBuf>) -> Result<PathBuf, Fail> {
    out.ok_or_else(|| Fail("--shard needs --out DIR, the folder of the shard state files".into()))
}

/// The state file of `shard` in `dir`: the one found there (refused when it
/// belongs to another configuration than `mine` or another shard), or a new
/// one from `make` (creating `dir`; the folders created come back third,
/// for [`Session::with_created`]). Nothing is created before the checks.
fn open_state<S: ShardFile>(
    dir: &Path,
    shard: Shard,
    read: impl Fn(&Path) -> Result<S, Fail>,
    mine: &S::Config,
    make: impl FnOnce() -> Result<S, Fail>,
    force: bool,
) -> Result<(PathBuf, S, Vec<PathBuf>), Fail> {
    let path = dir.join(shard.file_name());
    if path.is_file() && !force {
        let s = read(&path)?;
        let d = S::differences(mine, s.config());
        let theirs = s.progress().shard;
        if !d.is_empty() || theirs != shard {
            return Err(Fail(format!(
                "{} holds shard {theirs} of another {} (not the same: {}); use another --out, or --force to start this shard over",
                path.display(),
                S::WHAT.trim_end_matches('s'),
                if d.is_empty() {
                    "shard".to_string()
                } else {
                    d.join(", ")
                }
            )));
        }
        other_shards(dir, shard, &read, mine)?;
        Ok((path, s, Vec::new()))
    } else {
        if !force && !other_shards(dir, shard, &read, mine)? {
            beside_results(dir)?;
        }
        let s = make()?;
        let created = prepare_out_dir(dir)?;
        Ok((path, s, created))
    }
}

/// Refuses to start the first shard of a folder that holds another
/// command's results (a run's, an experiment's ...): its state would sit
/// among them, and merging into that folder would be refused without
/// `--force`. A merge of these shards written beside them, where a shard of
/// the same run already is, does not count ([`open_state`] asks only when
/// there is none).
fn beside_results(dir: &Path) -> Result<(), Fail> {
    let found = results_in(dir);
    if found.is_empty() {
        return Ok(());
    }
    Err(Fail(format!(
        "--out {} already holds {} ({}): a shard's state goes into a folder of its own; use another --out, or --force to write it there anyway",
        dir.display(),
        describe_results(dir),
        found.iter().take(3).copied().collect::<Vec<_>>().join(", ")
    )))
}

/// Refuses a folder that holds shard files `shard`'s would never merge
/// with: another split's (known from the file name), or another run's of
/// the same split (read, and compared with `mine`: another seed, game
/// count, line-up ...), which would only be found at the merge. True when
/// it holds another shard of this same run.
fn other_shards<S: ShardFile>(
    dir: &Path,
    shard: Shard,
    read: &impl Fn(&Path) -> Result<S, Fail>,
    mine: &S::Config,
) -> Result<bool, Fail> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(false);
    };
    let mut siblings = false;
    let own = shard.file_name();
    let suffix = &own[own.find("-of-").unwrap_or(0)..];
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if name == own
            || !name.starts_with("shard-")
            || !name.ends_with(".json")
            || !name.contains("-of-")
        {
            continue;
        }
        let why = if !name.ends_with(suffix) {
            format!("another split than {shard}")
        } else {
            let d = S::differences(mine, read(&e.path())?.config());
            if d.is_empty() {
                siblings = true;
                continue;
            }
            format!(
                "another {} (not the same: {})",
                S::WHAT.trim_end_matches('s'),
                d.join(", ")
            )
        };
        return Err(Fail(format!(
            "--out {} holds {name}, a shard of {why}: the shards would not merge; use another --out, or --force",
            dir.display()
        )));
    }
    Ok(siblings)
}

/// Writes a shard's state into `dir` (its file, through a temporary name),
/// recording the time of all its sessions: the earlier ones' (from `state`
/// as opened) and this session's so far.
fn state_writer<'a, S: ShardFile>(
    dir: &'a Path,
    session: &'a Session,
    state: &S,
) -> impl Fn(&S) -> Result<(), String> + 'a {
    let name = state.progress().shard.file_name();
    let before = state.progress().elapsed_s;
    move |s: &S| {
        let mut s = s.clone();
        s.progress_mut().elapsed_s = before + session.elapsed_s();
        s.progress_mut().note_build();
        write_files_atomically(dir, &[(name.as_str(), s.to_json())])
    }
}

/// What a shard does when a checkpoint cannot be written
/// ([`Session::checkpoints`]).
const SHARD_GOES_ON: &str = "the shard goes on without this checkpoint (tried again at the next)";

/// Plays shard `shard` of `cfg` into `DIR/shard-I-of-N.json`, resuming the
/// state found there.
pub fn run(
    cfg: RunConfig,
    shard: Shard,
    out: Option<PathBuf>,
    quiet: bool,
    json: bool,
    every: f64,
    force: bool,
) -> Result<ExitCode, Fail> {
    // Signals from here on stop the work and keep what finished.
    let session = Session::begin(None)?;
    let dir = shard_dir(out)?;
    // More shards than deals (games) leaves some with nothing to play.
    let clusters = cfg.games / cfg.games_per_cluster();
    if shard.count > clusters {
        return Err(Fail(format!(
            "--shard {shard}: {} shards of {} leave some without any (give at most {})",
            shard.count,
            counted(clusters, if cfg.duplicate { "deal" } else { "game" }),
            counted(clusters, "shard")
        )));
    }
    if json {
        return Err(Fail(
            "--json does not apply to a shard; merge the shards: unolab merge DIR --json".into(),
        ));
    }
    let (path, mut state, created) = open_state(
        &dir,
        shard,
        read_state,
        &RunSpec::of(&cfg),
        || Ok(ShardState::new(&cfg, shard, session.started_utc.clone())),
        force,
    )?;
    let p = &state.progress;
    let (total, resumed) = (p.games(), p.games_done);
    if !p.partial {
        print_out(&format!(
            "shard {shard}: games {}..{} already finished ({} games); state in {}\n",
            p.first_game,
            p.end_game,
            total,
            path.display()
        ))?;
        return Ok(ExitCode::SUCCESS);
    }
    let session = session
        .with_created(created)
        .with_bar(total, quiet, "games", resumed);
    // Every write (checkpoints and the last) records the time of all sessions.
    let write = state_writer(&dir, &session, &state);
    let every = Duration::from_secs_f64(every);
    let progress = |d: u64| session.progress(d);
    // (The last write, at the end, still fails the shard.)
    let unfinished = run_shard(
        &cfg,
        &mut state,
        session.stop,
        &progress,
        every,
        &mut session.checkpoints(&write, SHARD_GOES_ON),
    )
    .map_err(|e| session.failed(e))?;
    if let Some(why) = &unfinished {
        eprintln!("{}", unfinished_note(why));
    }
    session.finish();
    write(&state).map_err(|e| session.failed(e))?;
    let p = &state.progress;
    print_out(&format!(
        "shard {shard}: games {}..{}, {} of {} finished{}; state in {}\n",
        p.first_game,
        p.end_game,
        p.games_done,
        total,
        resumed_note(resumed),
        path.display()
    ))?;
    if p.partial {
        return Ok(interrupted(&format!(
            "{} of {} games of shard {shard} finished; rerun the same command to resume",
            p.games_done, total
        )));
    }
    Ok(ExitCode::SUCCESS)
}

/// " (N from the saved state)" after a resumed shard's count, else nothing.
fn resumed_note(resumed: u64) -> String {
    if resumed > 0 {
        format!(" ({resumed} from the saved state)")
    } else {
        String::new()
    }
}

fn read_text(path: &Path) -> Result<String, Fail> {
    let bytes = unolab::engine::rules::read_bounded(path, unolab::engine::rules::DATA_LIMIT)
        .map_err(|e| Fail(format!("{}: cannot read: {e}", path.display())))?;
    String::from_utf8(bytes).map_err(|e| Fail(format!("{}: not UTF-8 text ({e})", path.display())))
}

fn read_state(path: &Path) -> Result<ShardState, Fail> {
    ShardState::from_json(&read_text(path)?).map_err(|e| Fail(format!("{}: {e}", path.display())))
}

fn read_experiment_state(path: &Path) -> Result<ExperimentShardState, Fail> {
    ExperimentShardState::from_json(&read_text(path)?)
        .map_err(|e| Fail(format!("{}: {e}", path.display())))
}

/// Plays shard `shard` of the experiment `exp` (overrides applied) into
/// `--out DIR/shard-I-of-N.json`, resuming the state found there.
pub fn run_experiment(
    exp: Experiment,
    shard: Shard,
    c: &CommonArgs,
    every: f64,
    replaced: &[(String, unolab::sim::Seating)],
) -> Result<ExitCode, Fail> {
    let session = Session::begin(None)?;
    let dir = shard_dir(c.out.clone())?;
    if !c.precision.is_empty() {
        return Err(Fail(
            "--precision cannot be sharded (each shard would stop on its own data); give --games instead".into(),
        ));
    }
    let threads = c.threads.unwrap_or_else(cores);
    unolab::sim::lockstep::check(&exp.lockstep(threads))?;
    if shard.count > exp.run.max_clusters {
        return Err(Fail(format!(
            "--shard {shard}: {} shards of {} per arm leave some without any (give at most {})",
            shard.count,
            counted(
                exp.run.max_clusters,
                if exp.run.duplicate { "deal" } else { "game" }
            ),
            counted(exp.run.max_clusters, "shard")
        )));
    }
    // A shard resumes by running its command again; --resume with nothing
    // saved would quietly start it fresh (compare --resume refuses that).
    if c.resume && !dir.join(shard.file_name()).is_file() {
        return Err(Fail(format!(
            "--resume: no saved state of shard {shard} in {} ({}); a shard continues when its command runs again, --resume or not",
            dir.display(),
            shard.file_name()
        )));
    }
    let (path, mut state, created) = open_state(
        &dir,
        shard,
        read_experiment_state,
        &exp.spec(),
        || ExperimentShardState::new(&exp, shard, session.started_utc.clone()).map_err(Fail),
        c.force,
    )?;
    let p = &state.progress;
    let (total, resumed) = (p.games(), p.games_done);
    let unit = if exp.run.duplicate { "deals" } else { "games" };
    if !p.partial {
        print_out(&format!(
            "shard {shard} of {}: {unit} {}..{} of every arm already finished; state in {}\n",
            exp.name,
            p.first_game,
            p.end_game,
            path.display()
        ))?;
        return Ok(ExitCode::SUCCESS);
    }
    // Said once every check has passed, as an unsharded run says it.
    super::scaffold::seating_note(replaced, c.seating.as_deref());
    let session =
        session
            .with_created(created)
            .with_bar(total, c.quiet, &format!("{unit} per arm"), resumed);
    // The state is saved at most every `every` seconds (10 by default), and
    // at the end.
    let write = state_writer(&dir, &session, &state);
    let mut last_save = Instant::now();
    let mut checkpoint = session.checkpoints(&write, SHARD_GOES_ON);
    let mut save = |s: &ExperimentShardState| {
        if last_save.elapsed().as_secs_f64() < every {
            return Ok(());
        }
        last_save = Instant::now();
        checkpoint(s)
    };
    let progress = |d: u64| session.progress(d);
    let (how, unfinished) = run_experiment_shard(
        &exp,
        &mut state,
        threads,
        session.stop,
        &progress,
        &mut save,
    )
    .map_err(|e| session.failed(e))?;
    if let Some(why) = &unfinished {
        eprintln!("{}", unfinished_note(why));
    }
    session.finish();
    write(&state).map_err(|e| session.failed(e))?;
    let p = &state.progress;
    print_out(&format!(
        "shard {shard} of {}: {unit} {}..{} of {} arms, {} of {} finished{}; state in {}\n",
        exp.name,
        p.first_game,
        p.end_game,
        exp.run.arms.len(),
        p.games_done,
        total,
        resumed_note(resumed),
        path.display()
    ))?;
    if how == Stop::Interrupted {
        return Ok(interrupted(&format!(
            "{} of {} {unit} per arm of shard {shard} finished; rerun the same command to resume",
            p.games_done, total
        )));
    }
    Ok(ExitCode::SUCCESS)
}

#[derive(clap::Args)]
#[command(after_help = "Examples:
  unolab run -g 1000000 --seed 7 --shard 0/4 -o shards    (likewise 1/4, 2/4, 3/4, anywhere)
  unolab merge shards -o results/merged
  unolab merge shards/shard-0000-of-0004.json shards/shard-0002-of-0004.json --allow-partial
  unolab experiment run experiments/editions.toml --shard 0/2 -o eshards    (and 1/2)
  unolab merge eshards -o results/editions")]
pub struct MergeArgs {
    /// Shard state files, or folders holding them (their shard-*.json files)
    #[arg(required = true, value_name = "PATH")]
    paths: Vec<PathBuf>,
    /// Write the results into DIR: a run's summary.csv, distributions.csv and
    /// manifest.json, or an experiment's results folder
    #[arg(short, long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Merge what is there when shards are missing or unfinished; the result is marked partial
    #[arg(long)]
    allow_partial: bool,
    /// Print the summary as one JSON object
    #[arg(long)]
    json: bool,
    /// Replace the results an earlier command left in --out (refused without it)
    #[arg(long)]
    force: bool,
    /// No progress output (merge shows none; accepted as by the commands
    /// that do)
    #[arg(short, long)]
    quiet: bool,
}

/// The state files named by `paths` (a folder stands for its `shard-*.json`).
/// The shard state files (`shard-*.json`) in the folder `dir`.
fn shard_files_in(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    Ok(std::fs::read_dir(dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|f| {
            f.is_file()
                && f.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with("shard-") && n.ends_with(".json"))
        })
        .collect())
}

fn state_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, Fail> {
    let mut files = Vec::new();
    for p in paths {
        if p.is_dir() {
            let mut found = shard_files_in(p)
                .map_err(|e| Fail(format!("{}: cannot read the folder: {e}", p.display())))?;
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
        } else if p.exists() {
            return Err(Fail(format!(
                "{}: not a state file or a folder of them",
                p.display()
            )));
        } else {
            return Err(Fail(format!("{}: no such file or folder", p.display())));
        }
    }
    Ok(files)
}

/// Refuses `--out` when it holds shard state files that this merge does not
/// read: the shards of another run, which the merged results would then sit
/// among (and, written there, would let those shards' own merge or next
/// shard go on beside results not theirs). A merge into the folder of the
/// shards it merges is what the docs show, and is taken.
fn beside_other_shards(dir: &Path, files: &[PathBuf]) -> Result<(), Fail> {
    let Ok(found) = shard_files_in(dir) else {
        return Ok(());
    };
    let mine: Vec<PathBuf> = files
        .iter()
        .filter_map(|f| std::fs::canonicalize(f).ok())
        .collect();
    let mut others: Vec<String> = found
        .into_iter()
        .filter(|f| !std::fs::canonicalize(f).is_ok_and(|c| mine.contains(&c)))
        .filter_map(|f| f.file_name().and_then(|n| n.to_str()).map(String::from))
        .collect();
    if others.is_empty() {
        return Ok(());
    }
    others.sort();
    Err(Fail(format!(
        "--out {} holds shards this merge does not read ({}{}): the merged results would sit among another run's shards; use another --out, or --force to write there anyway",
        dir.display(),
        others.iter().take(3).cloned().collect::<Vec<_>>().join(", "),
        if others.len() > 3 { ", ..." } else { "" }
    )))
}

/// Adds the states in `files` one at a time (one in memory at a time: read,
/// check, add, drop).
fn merge_files<S: ShardFile>(
    files: &[PathBuf],
    read: impl Fn(&Path) -> Result<S, Fail>,
    allow_partial: bool,
) -> Result<Merged<S::Config, S::Stats>, Fail> {
    let mut merger = Merger::<S>::new();
    for f in files {
        merger.add(&f.display().to_string(), read(f)?)?;
    }
    merger.finish(allow_partial).map_err(Fail)
}

/// The manifest's `shards` entry.
fn shards_entry<C, T>(m: &Merged<C, T>, files: &[PathBuf]) -> Value {
    serde_json::json!({
        "count": m.count,
        "merged": m.merged,
        "unfinished": m.unfinished,
        "missing": m.missing,
        "files": files.iter().map(|f| f.display().to_string()).collect::<Vec<_>>(),
        "builds": m.builds,
    })
}

/// Says on stderr when the shards were played by more than one build.
fn warn_builds<C, T>(m: &Merged<C, T>) {
    if m.builds.len() > 1 {
        eprintln!(
            "note: the shards were played by {} builds of unolab ({}): their games are those of one run only if play did not change between them",
            m.builds.len(),
            m.builds.join("; ")
        );
    }
}

fn warn_partial<C, T>(m: &Merged<C, T>, unit: &str) {
    if m.partial() {
        let mut what = Vec::new();
        if !m.missing.is_empty() {
            what.push(format!(
                "missing shards of {}: {}",
                m.count,
                shown(&m.missing)
            ));
        }
        if !m.unfinished.is_empty() {
            what.push(format!(
                "unfinished shards (their finished games merged): {}",
                shown(&m.unfinished)
            ));
        }
        eprintln!(
            "partial: {} of {} {unit}; {}",
            m.games_done,
            m.games_total,
            what.join("; ")
        );
    }
}

pub fn merge(a: MergeArgs) -> Result<ExitCode, Fail> {
    // A merge plays nothing: an interrupt lets it finish (it is quick).
    super::scaffold::stops_after("the merge in progress");
    // Earlier results are not replaced without --force.
    match &a.out {
        Some(dir) => check_out_dir(dir, a.force)?,
        None if a.force => return Err(force_without_out()),
        None => {}
    }
    let files = state_files(&a.paths)?;
    if let (Some(dir), false) = (&a.out, a.force) {
        beside_other_shards(dir, &files)?;
    }
    // Every file is of one kind: a run's shards or an experiment's.
    let mut kinds: Vec<(String, &PathBuf)> = Vec::new();
    for f in &files {
        let k = shard_kind(&read_text(f)?).map_err(|e| Fail(format!("{}: {e}", f.display())))?;
        if let Some((k0, f0)) = kinds.first() {
            if *k0 != k {
                let a = |k: &str| {
                    if k == "experiment" {
                        "an experiment"
                    } else {
                        "a run"
                    }
                };
                return Err(Fail(format!(
                    "{} is a shard of {} but {} is a shard of {}; merge them apart",
                    f0.display(),
                    a(k0),
                    f.display(),
                    a(&k)
                )));
            }
        }
        kinds.push((k, f));
    }
    if kinds.first().is_some_and(|(k, _)| k == "experiment") {
        return merge_experiment(a, &files);
    }
    let m = merge_files(&files, read_state, a.allow_partial)?;
    let cfg = m.config.to_config(m.threads.max(1)).map_err(|e| {
        Fail(format!(
            "{}: its configuration does not load: {e}",
            files[0].display()
        ))
    })?;
    // The folders made for the output, removed if the results cannot be
    // written (a full disk), as a run removes its own.
    let mut created = Vec::new();
    if let Some(dir) = &a.out {
        created = prepare_out_dir(dir)?;
        if a.force {
            clear_results(dir)?;
        }
    }
    let failed = |e: String| {
        super::scaffold::remove_created(&created);
        Fail(e)
    };
    let partial = m.partial();
    let report = Report {
        cfg: &cfg,
        stats: &m.stats,
        elapsed_s: m.elapsed_s,
        partial,
        started_utc: m.started_utc.clone(),
    };
    let shards = shards_entry(&m, &files);
    if let Some(dir) = &a.out {
        let command = super::args::command_words();
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
        let _hold = unolab::report::hold_writes();
        write_files_atomically(dir, &files).map_err(failed)?;
    }
    let as_json = || {
        let mut j = report.to_json();
        if let (Value::Object(o), true) = (&mut j, partial) {
            o.insert("missing_shards".into(), shards["missing"].clone());
            o.insert("unfinished_shards".into(), shards["unfinished"].clone());
        }
        j
    };
    print_result(a.json, as_json, || report.to_text())?;
    warn_partial(&m, "games");
    warn_builds(&m);
    Ok(ExitCode::SUCCESS)
}

/// `unolab merge` of an experiment's shards: the experiment's usual results.
fn merge_experiment(a: MergeArgs, files: &[PathBuf]) -> Result<ExitCode, Fail> {
    let m = merge_files(files, read_experiment_state, a.allow_partial)?;
    let exp = Experiment::from_spec(&m.config).map_err(|e| {
        Fail(format!(
            "{}: its experiment does not load: {e}",
            files[0].display()
        ))
    })?;
    // The folders made for the output, removed if the results cannot be
    // written (a full disk), as a run removes its own.
    let mut created = Vec::new();
    if let Some(dir) = &a.out {
        created = prepare_out_dir(dir)?;
        if a.force {
            clear_results(dir)?;
        }
    }
    let failed = |e: String| {
        super::scaffold::remove_created(&created);
        Fail(e)
    };
    let report = ExperimentReport {
        exp: &exp,
        state: &m.stats,
        stop: if m.partial() {
            Stop::Interrupted
        } else {
            Stop::Limit
        },
        threads: m.threads,
        elapsed_s: m.elapsed_s,
        started: m.started_utc.clone(),
        commands: vec![super::args::command_words()],
        commit: unolab::report::GIT_COMMIT.map(String::from),
        shards: Some(shards_entry(&m, files)),
    };
    if let Some(dir) = &a.out {
        // A complete merge is the state of games 0..N, as one run leaves it:
        // `experiment run --resume` can extend it.
        let _hold = unolab::report::hold_writes();
        if !m.partial() {
            save_state(
                &m.stats,
                &m.config,
                &report.commands,
                report.elapsed_s,
                &state_path(dir),
            )
            .map_err(failed)?;
        }
        report.write_dir(dir).map_err(failed)?;
    }
    print_result(a.json, || report.to_json(), || report.to_text())?;
    warn_partial(
        &m,
        if exp.run.duplicate {
            "deals per arm"
        } else {
            "games per arm"
        },
    );
    warn_builds(&m);
    Ok(ExitCode::SUCCESS)
}

/// `n` and `noun`, plural but for one ("1 game", "3 games").
fn counted(n: u64, noun: &str) -> String {
    format!("{n} {noun}{}", if n == 1 { "" } else { "s" })
}
