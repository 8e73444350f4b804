//! The argument groups and value parsers the subcommands share: rules and
//! table options, counts, seeds, threads, checkpoints, shards, and the
//! options of `experiment run` and `compare`.

use super::term::Fail;
use std::path::PathBuf;
use unolab::engine::rules::{RuleSetFile, Rules};
use unolab::sim::shard::Shard;

/// The command line as typed, word by word, for manifests and messages: a
/// word that is not UTF-8 (a file name may not be) has U+FFFD in place of
/// its stray bytes, where `std::env::args` would panic.
pub fn command_words() -> Vec<String> {
    std::env::args_os()
        .map(|a| a.to_string_lossy().into_owned())
        .collect()
}

#[derive(clap::Args, Clone)]
pub struct RuleArgs {
    /// Rule set: classic, h2o, lilo-stitch, cars3, rlcard (RLCard's UNO rules; it does not set the player count: add --players 2 to play it as RLCard does), or a path to a .toml file
    #[arg(short, long, default_value = "classic")]
    pub rules: String,
    /// Override a setting: --set key=value (repeatable)
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// House rules, comma separated: --house stacking=same,seven_o (repeatable)
    #[arg(long, value_name = "RULES")]
    pub house: Vec<String>,
}

/// The table: players, their strategies and the seed (shared by run and trace).
#[derive(clap::Args, Clone)]
pub struct TableArgs {
    /// Number of players, 2 to 10
    #[arg(short, long, default_value = "4", value_parser = parse_players, allow_hyphen_values = true)]
    pub players: usize,
    /// Strategies, comma separated, one per seat (cycled to fill the seats)
    #[arg(short, long, default_value = "random")]
    pub strategies: String,
    /// Master seed (an unsigned 64-bit integer)
    #[arg(long, default_value = "1", value_parser = parse_seed, allow_hyphen_values = true)]
    pub seed: u64,
}

pub fn load_rules(a: &RuleArgs) -> Result<Rules, Fail> {
    given_once(&a.set, &a.house, "")?;
    Ok(Rules::build(RuleSetFile::resolve(
        &a.rules, &a.set, &a.house,
    )?)?)
}

/// Refuses a setting given twice among the `--set` items and the `--house`
/// items of one command (`prefix`: `""`, or `"b-"` for B's options): the
/// later would win silently, and a house rule wins over a `--set` of the
/// same key whatever their order ([`unolab::engine::rules::given_twice`]).
pub fn given_once(set: &[String], house: &[String], prefix: &str) -> Result<(), Fail> {
    match unolab::engine::rules::given_twice(set, house) {
        None => Ok(()),
        Some((key, (f1, i1), (f2, i2))) => Err(Fail(format!(
            "'{key}' is given twice (--{prefix}{f1} {i1}, --{prefix}{f2} {i2}): give each setting once"
        ))),
    }
}

pub fn parse_players(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n) if (2..=10).contains(&n) => Ok(n),
        _ => Err(format!(
            "'{s}' is not a valid player count (valid: 2 to 10)"
        )),
    }
}

pub fn parse_seed(s: &str) -> Result<u64, String> {
    s.parse::<u64>().map_err(|_| {
        format!(
            "'{s}' is not a valid seed (valid: an integer from 0 to {})",
            u64::MAX
        )
    })
}

pub fn parse_count(s: &str) -> Result<u64, String> {
    parse_positive(s, "game count")
}

/// A positive integer (`_` allowed as a separator); the error names `what`.
fn parse_positive(s: &str, what: &str) -> Result<u64, String> {
    parse_up_to(s, what, None)
}

/// `tune --generations`.
pub fn parse_generations(s: &str) -> Result<u64, String> {
    parse_up_to(
        s,
        "generation count",
        Some(unolab::lab::tune::MAX_GENERATIONS),
    )
}

/// `tune --population`: 4 (the least the search works with) to 2^20.
pub fn parse_population(s: &str) -> Result<u64, String> {
    use unolab::lab::tune::{MAX_POPULATION, MIN_POPULATION};
    const WHAT: &str = "population (candidates per generation)";
    match parse_up_to(s, WHAT, Some(MAX_POPULATION)) {
        Ok(n) if n >= MIN_POPULATION => Ok(n),
        _ => Err(format!(
            "'{s}' is not a valid {WHAT} (valid: {MIN_POPULATION} to {MAX_POPULATION})"
        )),
    }
}

/// `--batch`.
pub fn parse_batch(s: &str) -> Result<u64, String> {
    parse_positive(s, "batch size (games per batch)")
}

/// A positive integer (`_` allowed as a separator), no larger than `max` if
/// given; the error names `what` and the valid range.
fn parse_up_to(s: &str, what: &str, max: Option<u64>) -> Result<u64, String> {
    // A separator stands between two digits (`1_000`, not `1_000_` or `1__0`).
    let b = s.as_bytes();
    let separated = (0..b.len()).all(|i| {
        b[i] != b'_'
            || (i > 0 && i + 1 < b.len() && b[i - 1].is_ascii_digit() && b[i + 1].is_ascii_digit())
    });
    let clean = s.replace('_', "");
    match whole_number(&clean).filter(|_| separated) {
        Some(n) if n > 0 && max.is_none_or(|m| n <= m) => Ok(n),
        // A number past 64 bits (`2e19`) is too large, not malformed.
        None if separated
            && max.is_none()
            && !clean.starts_with(['+', '-'])
            && clean.parse::<f64>().is_ok_and(|f| f.is_finite() && f >= u64::MAX as f64) =>
        {
            Err(format!(
                "'{s}' is too large a {what} (at most {})",
                u64::MAX
            ))
        }
        _ => Err(match max {
            Some(m) => format!("'{s}' is not a valid {what} (valid: 1 to {m})"),
            None => format!(
                "'{s}' is not a valid {what} (valid: a positive integer, such as 1000000, 1_000_000 or 1e6)"
            ),
        }),
    }
}

/// A whole number written plainly (`1000000`) or in scientific notation
/// (`1e6`, `2.5E6`) when that is exactly a whole number that fits a `u64`;
/// `None` otherwise (`1.5`, `1e-3`, `1e20`, a sign).
fn whole_number(s: &str) -> Option<u64> {
    let Some((mantissa, exp)) = s.split_once(['e', 'E']) else {
        return s.parse().ok();
    };
    let exp: i64 = exp.strip_prefix('+').unwrap_or(exp).parse().ok()?;
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits = format!("{int}{frac}");
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    // `int.frac` times 10^exp is `digits` times 10^shift: whole only when
    // the digits a negative shift drops are zeros (`10e-1` is 1).
    let shift = exp.checked_sub(i64::try_from(frac.len()).ok()?)?;
    if shift >= 0 {
        return digits
            .parse::<u64>()
            .ok()?
            .checked_mul(10u64.checked_pow(u32::try_from(shift).ok()?)?);
    }
    let cut = digits.len().checked_sub(usize::try_from(-shift).ok()?)?;
    if !digits[cut..].bytes().all(|b| b == b'0') {
        return None;
    }
    digits[..cut].parse().ok()
}

/// `train --search-sims`.
pub fn parse_sims(s: &str) -> Result<u64, String> {
    parse_up_to(
        s,
        "simulation count (determinizations per action)",
        Some(1_000_000),
    )
}

/// `train --epochs`.
pub fn parse_epochs(s: &str) -> Result<u64, String> {
    parse_up_to(s, "epoch count", Some(10_000))
}

/// `train --batch`.
pub fn parse_batch_size(s: &str) -> Result<u64, String> {
    parse_up_to(s, "batch size (positions per mini-batch)", Some(1 << 20))
}

/// Seconds between saves of a resumable state (`--checkpoint`): a number from
/// 0 (save at every unit of work) to one day.
pub fn parse_checkpoint(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(x) if (0.0..=86_400.0).contains(&x) => Ok(x),
        _ => Err(format!(
            "'{s}' is not a valid checkpoint interval (valid: seconds from 0 to 86400)"
        )),
    }
}

pub use unolab::sim::CHECKPOINT_SECS;

/// The cores of this machine (1 when unknown).
pub fn cores() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
}

/// At most 8 threads per core: more only adds switching.
pub fn parse_threads(s: &str) -> Result<usize, String> {
    let max = 8 * cores();
    match s.parse::<usize>() {
        Ok(n) if (1..=max).contains(&n) => Ok(n),
        _ => Err(format!(
            "'{s}' is not a valid thread count (valid: 1 to {max}, 8 per core on this machine's {} cores)",
            cores()
        )),
    }
}

/// The shard named by `--shard`: `I/N`, or `slurm` for a job array task.
pub fn parse_shard(spec: &str) -> Result<Shard, Fail> {
    if spec == "slurm" {
        Ok(Shard::from_slurm(|k| std::env::var(k).ok())?)
    } else {
        Ok(Shard::parse(spec)?)
    }
}

/// Options shared by `experiment run` and `compare`.
#[derive(clap::Args, Clone)]
pub struct CommonArgs {
    /// Games per arm (deals per arm with --duplicate; default: the experiment
    /// file's, 10000 for compare); with --precision, the limit
    #[arg(short, long, value_parser = parse_count, allow_hyphen_values = true)]
    pub games: Option<u64>,
    /// Master seed (an unsigned 64-bit integer; default: the experiment
    /// file's, 1 for compare)
    #[arg(long, value_parser = parse_seed, allow_hyphen_values = true)]
    pub seed: Option<u64>,
    /// Worker threads (default: all cores); the results do not depend on it
    #[arg(short = 'j', long, value_parser = parse_threads, allow_hyphen_values = true)]
    pub threads: Option<usize>,
    /// Play each deal once per seat rotation of the line-up (duplicate);
    /// --duplicate=false turns it off for an experiment file that asks for it
    #[arg(long, num_args = 0..=1, default_missing_value = "true", value_name = "BOOL")]
    pub duplicate: Option<bool>,
    /// Stop when every 95% interval is narrower than plus or minus X; or
    /// METRIC=X for one metric's intervals (in its unit: 0.005 is half a
    /// point of a rate, 0.5 half a point per round), repeatable or comma
    /// separated; given, it replaces an experiment file's precision
    #[arg(long, value_name = "X|METRIC=X", value_parser = parse_precision, value_delimiter = ',', allow_hyphen_values = true)]
    pub precision: Vec<(Option<String>, f64)>,
    /// Games per batch: the precision rule is looked at every batch
    #[arg(long, value_parser = parse_batch, allow_hyphen_values = true)]
    pub batch: Option<u64>,
    /// Who sits where, in every arm: mixed (every game an arrangement of the
    /// line-up, all of them in turn; the default), rotate or fixed
    #[arg(long, value_name = "HOW", value_parser = ["mixed", "rotate", "fixed"])]
    pub seating: Option<String>,
    /// Output folder (experiment run: default results/<name>; compare:
    /// none, nothing is written without it)
    #[arg(short, long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Continue an interrupted run from the state saved in the output folder
    #[arg(long, conflicts_with = "force")]
    pub resume: bool,
    /// Start over in an output folder that holds saved work (an interrupted
    /// or finished run, or other results), replacing it; refused without it.
    /// With --shard (experiment run): start that shard over
    #[arg(long)]
    pub force: bool,
    /// No progress bar
    #[arg(short, long)]
    pub quiet: bool,
}

fn parse_precision(s: &str) -> Result<(Option<String>, f64), String> {
    let (metric, x) = match s.split_once('=') {
        Some((m, x)) => (Some(m.trim()), x.trim()),
        None => (None, s.trim()),
    };
    if let Some(m) = metric {
        unolab::sim::lockstep::check_metric(m)?;
    }
    match x.parse::<f64>() {
        Ok(v) if v > 0.0 && v.is_finite() => Ok((metric.map(String::from), v)),
        _ => Err(format!(
            "'{x}' is not a valid precision (valid: a positive number, the half-width of the 95% intervals, or METRIC=X)"
        )),
    }
}
