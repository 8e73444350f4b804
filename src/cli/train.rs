//! `unolab train`: distils a teacher into the network strategy, with
//! expert iteration (docs/learning.md). The work is the library's
//! ([`unolab::lab::train`], feature `train`); this file parses, prints the
//! progress and the table, and writes the weights and presets.

use super::args::{
    parse_batch_size, parse_count, parse_epochs, parse_seed, parse_sims, parse_threads, RuleArgs,
};
use super::term::Fail;
use std::path::PathBuf;
use std::process::ExitCode;
use unolab::agents::StrategySpec;

#[derive(clap::Args)]
pub struct TrainArgs {
    #[command(flatten)]
    rules: RuleArgs,
    /// Player counts, comma separated, cycled over the games
    #[arg(short, long, default_value = "2,4")]
    players: String,
    /// The first teacher: a strategy name or preset (e.g. tuned, pimc-400)
    #[arg(long, default_value = "tuned")]
    teacher: String,
    /// Who plays the seats while the first teacher labels (default: the teacher itself)
    #[arg(long)]
    behaviour: Option<String>,
    /// Stage 0 starts from these weights (a .safetensors file) instead of fresh ones
    #[arg(long, value_name = "FILE")]
    init: Option<PathBuf>,
    /// Games (rounds) labelled by the first teacher
    #[arg(short, long, default_value = "2000", value_parser = parse_count, allow_hyphen_values = true)]
    games: u64,
    /// Expert iterations: a search with the latest network as rollout policy labels again
    #[arg(long, default_value = "0")]
    iterations: usize,
    /// Determinizations per action of the searching teacher (at most 1,000,000; default 100; with --iterations)
    #[arg(long, value_parser = parse_sims, allow_hyphen_values = true)]
    search_sims: Option<u64>,
    /// Games labelled by the searching teacher at each iteration (default 200; with --iterations)
    #[arg(long, value_parser = parse_count, allow_hyphen_values = true)]
    search_games: Option<u64>,
    /// The searching teacher of the iterations: a pimc or oracle preset; the latest network plays its own seat in the simulations and every seat of the labelled games (default: pimc with --search-sims, the network in every seat)
    #[arg(long, value_name = "PRESET")]
    search: Option<String>,
    /// Each iteration fits fresh weights on every position so far, the first teacher's included (default: continue from the latest weights on the search-labelled positions)
    #[arg(long)]
    refit: bool,
    /// The networks also read the known-cards section: the cards their seat knows to be in each other hand (given in a swap or rotation, seen in a challenge), by colour; an --init network without it starts with zero weights on it
    #[arg(long)]
    known: bool,
    /// Hidden layer sizes, comma separated
    #[arg(long, default_value = "128")]
    hidden: String,
    /// Passes over the positions at each fit (at most 10,000)
    #[arg(long, default_value = "8", value_parser = parse_epochs, allow_hyphen_values = true)]
    epochs: u64,
    /// Positions per mini-batch (at most 1,048,576)
    #[arg(long, default_value = "256", value_parser = parse_batch_size, allow_hyphen_values = true)]
    batch: u64,
    /// Fit the softmax of a searching teacher's action values at this temperature (e.g. 0.05), not its one action (0: its action)
    #[arg(long, default_value = "0", allow_hyphen_values = true)]
    soft: f64,
    /// AdamW learning rate
    #[arg(long, default_value = "0.002", allow_hyphen_values = true)]
    lr: f64,
    /// Rounds against --opponent at each player count after each stage
    #[arg(long, default_value = "2000", value_parser = parse_count, allow_hyphen_values = true)]
    eval_games: u64,
    /// The strategy each stage's network is measured against
    #[arg(long, default_value = "tuned")]
    opponent: String,
    /// Master seed (an unsigned 64-bit integer)
    #[arg(long, default_value = "1", value_parser = parse_seed, allow_hyphen_values = true)]
    seed: u64,
    /// Worker threads for labelling and evaluation (default: all cores); the weights do not depend on it
    #[arg(short = 'j', long, value_parser = parse_threads, allow_hyphen_values = true)]
    threads: Option<usize>,
    /// The networks' name: stage K is written as NAME-K.safetensors and NAME-K.toml
    #[arg(long, default_value = "net")]
    name: String,
    /// Output folder (created if missing)
    #[arg(short, long, value_name = "DIR")]
    out: PathBuf,
    /// Replace the networks of an earlier run of the same --name in --out (refused without it)
    #[arg(long)]
    force: bool,
    /// No progress on stderr (the table is still printed on stdout)
    #[arg(short, long)]
    quiet: bool,
}

#[cfg(not(feature = "train"))]
pub fn exec(a: TrainArgs) -> Result<ExitCode, Fail> {
    check_args(&a)?;
    Err(Fail(
        "this unolab was built without training: build it with `cargo build --release --features train`".into(),
    ))
}

#[cfg(feature = "train")]
pub fn exec(a: TrainArgs) -> Result<ExitCode, Fail> {
    use super::args::{cores, load_rules};
    use super::scaffold::{set_aside_files, Session};
    use unolab::lab::train::expert::{train, Progress, TrainConfig};
    use unolab::lab::train::fit::FitConfig;
    use unolab::lab::train::preset_text;
    use unolab::sim::stats::wilson95;

    let Checked {
        earlier,
        teacher,
        search,
        players,
    } = check_args(&a)?;
    let name = a.name.clone();
    let cfg = TrainConfig {
        rules: load_rules(&a.rules)?,
        players,
        teacher,
        games: a.games,
        behaviour: a.behaviour.as_deref().map(StrategySpec::load).transpose()?,
        init: match &a.init {
            Some(p) => {
                let bytes =
                    unolab::engine::rules::read_bounded(p, unolab::engine::rules::DATA_LIMIT)
                        .map_err(|e| Fail(format!("--init {}: {e}", p.display())))?;
                let w = unolab::agents::net::NetWeights::from_safetensors(&bytes)
                    .map_err(|e| Fail(format!("--init {}: {e}", p.display())))?;
                if w.reads_known() && !a.known {
                    return Err(Fail(format!(
                        "--init {}: the network reads the known-cards section; give --known to train it",
                        p.display()
                    )));
                }
                Some(w)
            }
            None => None,
        },
        iterations: a.iterations,
        search_sims: a.search_sims.unwrap_or(100) as u32,
        search_games: a.search_games.unwrap_or(200),
        search,
        refit: a.refit,
        fit: FitConfig {
            hidden: numbers(&a.hidden, "hidden")?,
            epochs: a.epochs as usize,
            batch: a.batch as usize,
            lr: a.lr,
            seed: a.seed,
            soft: a.soft,
            ..FitConfig::default()
        },
        eval_games: a.eval_games,
        opponent: StrategySpec::load(&a.opponent)?,
        seed: a.seed,
        name: name.clone(),
        known: a.known,
    };
    cfg.validate().map_err(Fail)?;
    let threads = a.threads.unwrap_or_else(cores);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| Fail(format!("cannot start {threads} threads: {e}")))?;
    // The folder made ready (created, writable) before any work; an
    // earlier run's networks (--force) kept aside until this run has
    // written a stage of its own, and put back if it writes none.
    let session = Session::begin(Some(&a.out))?;
    let mine = name.clone();
    set_aside_files(&a.out, earlier, move |dir| {
        !earlier_networks(dir, &mine).is_empty()
    })
    .map_err(|e| session.failed(e))?;
    // Progress on a terminal only: redirected, it would be one long line.
    let live = !a.quiet && std::io::IsTerminal::is_terminal(&std::io::stderr());
    let command = super::tune::command_line(&super::args::command_words());
    let mut rows: Vec<String> = Vec::new();
    let mut write_err: Option<Fail> = None;
    let out = a.out.clone();
    let eval_games = cfg.eval_games;
    let result = pool.install(|| {
        train(&cfg, session.stop, &mut |p| match p {
            Progress::Labelling { .. } | Progress::Fitting { .. } | Progress::Evaluating { .. }
                if !live => {}
            Progress::Labelling { stage, done, total } => status(&format!(
                "\rstage {stage}: labelling {done}/{total} games ({:.0} s)   ",
                session.elapsed_s()
            )),
            Progress::Fitting {
                stage,
                epoch,
                epochs,
            } => status(&format!(
                "\rstage {stage}: epoch {}/{epochs} ({}%), loss {:.4} ({:.0} s)   ",
                epoch.index,
                100 * epoch.batches / epoch.of.max(1),
                epoch.loss,
                session.elapsed_s()
            )),
            Progress::Evaluating { stage, done, total } => status(&format!(
                "\rstage {stage}: evaluating {done}/{total} rounds ({:.0} s)   ",
                session.elapsed_s()
            )),
            Progress::Done(s) => {
                let file = format!("{name}-{}", s.index);
                let meta = [
                    ("command", command.clone()),
                    ("stage", s.index.to_string()),
                    ("teacher", s.teacher.clone()),
                    ("positions", s.fitted.to_string()),
                ];
                let bytes = s.weights.to_safetensors(&meta);
                let desc = format!(
                    "network of `unolab train`, stage {} (teacher {}, {} positions)",
                    s.index, s.teacher, s.fitted
                );
                // The weights and their preset together: a failure writes
                // neither, and stops the training (its later stages could
                // not be written either).
                let weights_file = format!("{file}.safetensors");
                let preset = preset_text(&file, &weights_file, &desc);
                let res = unolab::report::write_files_atomically(
                    &out,
                    &[
                        (weights_file.as_str(), bytes.as_slice()),
                        (format!("{file}.toml").as_str(), preset.as_bytes()),
                    ],
                );
                if let Err(e) = res {
                    write_err.get_or_insert(Fail(e));
                    session
                        .stop
                        .store(true, std::sync::atomic::Ordering::Relaxed);
                }
                let evals: Vec<String> = s
                    .eval
                    .iter()
                    .map(|&(p, w, n)| {
                        if n == 0 {
                            return format!("{p}p not measured (interrupted)");
                        }
                        let (lo, hi) = wilson95(w, n);
                        // An evaluation an interrupt cut short says so.
                        let cut = if n < eval_games {
                            format!(" (interrupted: {n} of {eval_games} rounds)")
                        } else {
                            String::new()
                        };
                        format!(
                            "{p}p {:.1}% [{:.1}, {:.1}] (fair {:.1}%){cut}",
                            100.0 * w as f64 / n.max(1) as f64,
                            100.0 * lo,
                            100.0 * hi,
                            100.0 / p as f64
                        )
                    })
                    .collect();
                let row = format!(
                    "| {} | {} | {} | {} | {:.1}% -> {:.1}% | {} | {:.0} |",
                    s.index,
                    s.teacher.replace('|', "\\|"),
                    s.labelled,
                    s.fitted,
                    100.0 * s.agreement_before,
                    100.0 * s.agreement,
                    evals.join("; "),
                    s.seconds
                );
                if live {
                    status(&format!("{CLEAR_LINE}{row}\n"));
                } else if !a.quiet {
                    status(&format!("{row}\n"));
                }
                rows.push(row);
            }
        })
    });
    // The progress line ends here: what follows starts on a line of its own.
    if live {
        status(CLEAR_LINE);
    }
    let stages = result.map_err(|e| session.failed(e))?;
    if stages.is_empty() && write_err.is_none() {
        // Interrupted before a stage was done: nothing to keep.
        session.abandon();
        status("interrupted before the first stage was done; nothing written\n");
        return Ok(ExitCode::from(130));
    }
    let mut table = format!(
        "| stage | teacher | positions labelled | positions fitted | agreement with the teacher (before -> after) | vs {} (rounds won, 95% interval) | seconds |\n| --- | --- | --- | --- | --- | --- | --- |\n",
        cfg.opponent.name().replace('|', "\\|")
    );
    for r in &rows {
        table.push_str(r);
        table.push('\n');
    }
    table.push_str(&command);
    table.push('\n');
    // A stdout that cannot be written (a full disk) is an error, not a
    // panic; the stages are written either way.
    let printed = super::term::print_out(&table);
    if let Some(e) = write_err {
        // The table above is the record of the stages that ran.
        return Err(session.failed(e));
    }
    printed?;
    if let Some(last) = stages.last() {
        let to = match last.index {
            0 => String::new(),
            k => format!(" .. {name}-{k}"),
        };
        status(&format!(
            "wrote {}{to} (.safetensors and .toml)\n",
            a.out.join(format!("{name}-0")).display()
        ));
    }
    if session.stop.load(std::sync::atomic::Ordering::Relaxed) {
        status(&match stages.len() {
            1 => "interrupted after 1 stage; it is written\n".to_string(),
            n => format!("interrupted after {n} stages; they are written\n"),
        });
        return Ok(ExitCode::from(130));
    }
    Ok(ExitCode::SUCCESS)
}

/// Clears a terminal's progress line (back to its start, erased).
#[cfg(feature = "train")]
const CLEAR_LINE: &str = "\r\x1b[2K";

/// Writes `text` on stderr; one that cannot be written (closed, full) is
/// dropped, not a panic.
#[cfg(feature = "train")]
fn status(text: &str) {
    use std::io::Write;
    let _ = std::io::stderr().write_all(text.as_bytes());
}

/// `--WHAT` as numbers separated by commas.
fn numbers(s: &str, what: &str) -> Result<Vec<usize>, Fail> {
    s.split(',')
        .map(|x| {
            x.trim().parse::<usize>().map_err(|_| {
                Fail(format!(
                    "--{what} '{s}': expected numbers separated by commas"
                ))
            })
        })
        .collect()
}

/// What [`check_args`] read and checked (used by the training, which a
/// build without the feature does not have).
#[cfg_attr(not(feature = "train"), allow(dead_code))]
struct Checked {
    /// An earlier run's networks of this name in `--out` (with `--force`),
    /// to be set aside before the first stage.
    earlier: Vec<String>,
    /// The first teacher, loaded.
    teacher: StrategySpec,
    /// `--search`, loaded.
    search: Option<StrategySpec>,
    /// `--players`.
    players: Vec<usize>,
}

/// The checks of the arguments that need no training code, so that they
/// come before any work, in a build without the feature too: the name, the
/// player counts, the options of the expert iterations alone, `--soft` and
/// `--lr`, and `--out` (not a file; an earlier run's networks of this name
/// only with `--force`), with the teachers it loaded.
fn check_args(a: &TrainArgs) -> Result<Checked, Fail> {
    use unolab::agents::search::SearchKind;
    let name = &a.name;
    super::tune::check_name(name, "NAME-K.safetensors and NAME-K.toml")?;
    // Its files, and their temporary names while written
    // (`.NAME-K.safetensors.PID.tmp`), must fit a file name's 255 bytes.
    if name.len() > 200 {
        return Err(Fail(format!(
            "--name is {} bytes long; at most 200 (the names of its files must fit the file system)",
            name.len()
        )));
    }
    let players = numbers(&a.players, "players")?;
    // The first count at fault, in the order given.
    for end in 1..=players.len() {
        match unolab::lab::train::player_count_faults(&players[..end]) {
            (Some(p), _) => {
                return Err(Fail(format!(
                    "--players '{}': {p} is not a player count (valid: 2 to 10)",
                    a.players
                )))
            }
            (None, Some(p)) => {
                return Err(Fail(format!(
                    "--players '{}' gives {p} twice (each count is labelled and measured once)",
                    a.players
                )))
            }
            (None, None) => {}
        }
    }
    // What applies to the expert iterations only.
    if a.iterations == 0 {
        let given: Vec<&str> = [
            ("--search", a.search.is_some()),
            ("--refit", a.refit),
            ("--search-sims", a.search_sims.is_some()),
            ("--search-games", a.search_games.is_some()),
        ]
        .into_iter()
        .filter_map(|(f, on)| on.then_some(f))
        .collect();
        if !given.is_empty() {
            return Err(Fail(format!(
                "{} {} to the expert iterations: give --iterations N (N >= 1), or leave {} out",
                given.join(", "),
                if given.len() == 1 { "applies" } else { "apply" },
                if given.len() == 1 { "it" } else { "them" }
            )));
        }
    }
    if a.search.is_some() && a.search_sims.is_some() {
        return Err(Fail(
            "--search-sims sets the determinizations of the default search; --search PRESET plays its own (its iterations): leave one out".into(),
        ));
    }
    if !(a.soft >= 0.0 && a.soft.is_finite()) {
        return Err(Fail(format!("--soft {} must be a number >= 0", a.soft)));
    }
    // Below that the softmax is the teacher's one action (and past f32's
    // range it reads 0).
    if a.soft > 0.0 && a.soft < 1e-6 {
        return Err(Fail(format!(
            "--soft {:e} is too small (at least 1e-6; 0 fits the teacher's action itself)",
            a.soft
        )));
    }
    if !(a.lr > 0.0 && a.lr.is_finite()) {
        return Err(Fail(format!("--lr {} must be a positive number", a.lr)));
    }
    let teacher = StrategySpec::load(&a.teacher)?;
    let search = a.search.as_deref().map(StrategySpec::load).transpose()?;
    // --soft fits a teacher's action values: only pimc and oracle (without
    // halving) give them, the first teacher or the iterations' search (by
    // default pimc).
    let values = |s: &StrategySpec| {
        matches!(s, StrategySpec::Search(c)
            if matches!(c.kind, SearchKind::Pimc | SearchKind::Oracle) && !c.params.halving)
    };
    let search_values = a.iterations > 0 && search.as_ref().is_none_or(values);
    if a.soft > 0.0 && !values(&teacher) && !search_values {
        return Err(Fail(format!(
            "--soft fits the action values of a searching teacher (pimc or oracle, without halving): '{}' gives none, {}; leave --soft out",
            teacher.name(),
            match &search {
                Some(s) if a.iterations > 0 => format!("nor does the --search '{}'", s.name()),
                _ => "and no --iterations search".to_string(),
            }
        )));
    }
    if a.out.exists() && !a.out.is_dir() {
        return Err(Fail(format!(
            "--out {} is not a directory",
            a.out.display()
        )));
    }
    // The networks of an earlier run of this name are not replaced (nor
    // mixed with this run's stages) without --force.
    let earlier = earlier_networks(&a.out, name);
    if !earlier.is_empty() && !a.force {
        return Err(Fail(format!(
            "--out {} holds networks of an earlier run named '{name}' ({}); use another --out or --name, or --force to replace them",
            a.out.display(),
            earlier.join(", ")
        )));
    }
    Ok(Checked {
        earlier,
        teacher,
        search,
        players,
    })
}

/// The files of `dir` that an earlier run named `name` wrote:
/// `NAME-K.safetensors` and `NAME-K.toml` (sorted).
fn earlier_networks(dir: &std::path::Path, name: &str) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut v: Vec<String> = entries
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|f| {
            let stem = f
                .strip_suffix(".safetensors")
                .or_else(|| f.strip_suffix(".toml"));
            // K as train writes it: no sign, no leading zero (`net-01` is
            // not a stage's).
            stem.and_then(|s| s.strip_prefix(name))
                .and_then(|s| s.strip_prefix('-'))
                .is_some_and(|k| {
                    !k.is_empty()
                        && k.bytes().all(|b| b.is_ascii_digit())
                        && (k == "0" || !k.starts_with('0'))
                })
        })
        .collect();
    v.sort();
    v
}
