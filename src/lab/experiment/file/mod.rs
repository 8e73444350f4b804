//! Reading an experiment file: the TOML shapes, the checks with their
//! one-line messages (file:line), grids, and the resolved [`Experiment`].

mod arms;
mod resolve;
mod syntax;

use super::Experiment;
use crate::agents::StrategySpec;
use crate::engine::rules::{plain_toml_message, Unread};
use crate::sim::lockstep::{LockstepConfig, DEFAULT_BATCH, METRIC_NAMES};
use crate::sim::runner::Mode;
use syntax::{key_before, Errors, File, FileStop, SeedValue};
use toml::Spanned;

/// Reads and validates an experiment file.
pub fn load(path: &str) -> Result<Experiment, Vec<String>> {
    let text = crate::engine::rules::read_text(path).map_err(|e| {
        vec![match e {
            Unread::Io(why) => format!("{path}: cannot read the experiment file: {why}"),
            Unread::NotText(m) => format!("{path}: malformed experiment file: {m}"),
        }]
    })?;
    parse(&text, path)
}

/// Parses and validates an experiment (`origin` names it in messages).
pub fn parse(text: &str, origin: &str) -> Result<Experiment, Vec<String>> {
    parse_with(text, origin, &[])
}

/// As [`parse`], strategy names looked up first among `custom` (strategies
/// of the embedding program, [`crate::agents::parse_list_with`]).
pub fn parse_with(
    text: &str,
    origin: &str,
    custom: &[StrategySpec],
) -> Result<Experiment, Vec<String>> {
    parse_reporting(text, origin, custom).map_err(|e| e.messages)
}

/// Why an experiment file was refused: every message (file:line), and why
/// a rule-set or preset file it names could not be read when that is the
/// first message (a front end tells a missing file from a bad value).
#[derive(Debug)]
pub struct FileErrors {
    pub messages: Vec<String>,
    pub unread: Option<std::io::ErrorKind>,
}

fn refused(errs: Errors) -> FileErrors {
    FileErrors {
        messages: errs.list,
        unread: errs.unread,
    }
}

/// As [`parse_with`], saying which file the experiment names could not be
/// read when that is its first error.
pub fn parse_reporting(
    text: &str,
    origin: &str,
    custom: &[StrategySpec],
) -> Result<Experiment, FileErrors> {
    let mut errs = Errors {
        origin,
        text,
        list: Vec::new(),
        unread: None,
    };
    let f: File = match toml::from_str(text) {
        Ok(f) => f,
        Err(e) => {
            let msg = plain_toml_message(e.message());
            let msg = if crate::lab::ladder::looks_like_ladder(text) {
                format!("{msg}: this is a ladder file (a field of agents rated together); play it with `unolab ladder FILE`")
            } else if msg.starts_with("unknown field") {
                format!("{msg} (see experiments/README.md)")
            } else {
                match e.span().and_then(|s| key_before(text, s.start)) {
                    Some(key) => format!("{key}: {msg}"),
                    None => msg,
                }
            };
            match e.span() {
                Some(s) => errs.at(s, msg),
                None => errs.file(msg),
            }
            return Err(refused(errs));
        }
    };
    let name = f.name.get_ref().clone();
    if !crate::lab::plain_name(&name, false) {
        errs.at(
            f.name.span(),
            format!("invalid name '{name}' (valid: letters, digits, '-' and '_'; it names the results folder)"),
        );
    }
    let b = &f.base;
    let mode = match b.mode.as_ref().map(|m| m.get_ref().as_str()) {
        None => Mode::Round,
        Some(name) => match Mode::parse(name) {
            Some(m) => m,
            None => {
                errs.at(
                    b.mode.as_ref().map(|m| m.span()).unwrap_or(0..0),
                    format!("invalid mode '{name}' (valid: round, match)"),
                );
                Mode::Round
            }
        },
    };
    let games = positive(&mut errs, &b.games, "games", 10_000);
    let seed = read_seed(&mut errs, &b.seed);
    let duplicate = b.duplicate.unwrap_or(false);
    let no_stop = FileStop::default();
    let stop = read_stop(&mut errs, f.stop.as_ref().unwrap_or(&no_stop), games);
    let Some((raws, written)) = arms::gather(&mut errs, &f) else {
        return Err(refused(errs));
    };
    let run = resolve::Shared {
        mode,
        seed,
        duplicate,
        custom,
    };
    let (specs, arms) = resolve::resolve(&mut errs, &f, &raws, written, &run);
    let baseline = match &f.baseline {
        None => None,
        Some(bl) => match specs.iter().position(|s| &s.label == bl.get_ref()) {
            Some(i) => Some(i),
            None => {
                errs.at(
                    bl.span(),
                    format!(
                        "baseline '{}' is not an arm (valid: {})",
                        bl.get_ref(),
                        specs
                            .iter()
                            .map(|s| s.label.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                );
                None
            }
        },
    };
    if !errs.list.is_empty() {
        return Err(refused(errs));
    }
    let games = if stop.precision.is_some() || !stop.precision_targets.is_empty() {
        stop.max_games
    } else {
        games
    };
    Ok(Experiment {
        name,
        description: f.description.unwrap_or_default(),
        origin: origin.to_string(),
        specs,
        run: LockstepConfig {
            baseline,
            duplicate,
            batch: stop.batch,
            precision: stop.precision,
            precision_metrics: stop.precision_metrics,
            precision_targets: stop.precision_targets,
            ..LockstepConfig::new(arms, seed, games)
        },
    })
}

/// A positive integer as written (`default` when absent; an error and
/// `default` when not positive).
fn positive(errs: &mut Errors, v: &Option<Spanned<i64>>, what: &str, default: u64) -> u64 {
    match v {
        None => default,
        Some(s) if *s.get_ref() >= 1 => *s.get_ref() as u64,
        Some(s) => {
            errs.at(
                s.span(),
                format!("invalid {what} {} (valid: a positive integer)", s.get_ref()),
            );
            default
        }
    }
}

/// The master seed as written (1 when absent; an error and 1 when it is not
/// an unsigned 64-bit integer).
fn read_seed(errs: &mut Errors, seed: &Option<Spanned<SeedValue>>) -> u64 {
    match seed {
        None => 1,
        Some(s) => s.get_ref().value().unwrap_or_else(|why| {
            errs.at(s.span(), why);
            1
        }),
    }
}

/// The stopping rule of `[stop]`, checked.
struct StopRule {
    precision: Option<f64>,
    /// The games of a run with a precision rule at most (the base's games
    /// when not given).
    max_games: u64,
    batch: u64,
    precision_targets: Vec<(String, f64)>,
    precision_metrics: Vec<String>,
}

/// Reads `[stop]` (`games`: the base's, the default limit).
fn read_stop(errs: &mut Errors, stop: &FileStop, games: u64) -> StopRule {
    let precision = match &stop.precision {
        None => None,
        Some(p) if *p.get_ref() > 0.0 && p.get_ref().is_finite() => Some(*p.get_ref()),
        Some(p) => {
            errs.at(
                p.span(),
                format!(
                    "invalid precision {} (valid: a positive number, the half-width of the 95% intervals)",
                    p.get_ref()
                ),
            );
            None
        }
    };
    let max_games = positive(errs, &stop.max_games, "max_games", games);
    let batch = positive(errs, &stop.batch, "batch", DEFAULT_BATCH);
    let mut precision_targets = Vec::new();
    if let Some(t) = &stop.precision_per_metric {
        for (m, x) in t.get_ref() {
            if !METRIC_NAMES.contains(&m.as_str()) {
                errs.at(
                    t.span(),
                    format!(
                        "unknown metric '{m}' in precision_per_metric (valid: {})",
                        METRIC_NAMES.join(", ")
                    ),
                );
            } else if !(*x > 0.0 && x.is_finite()) {
                errs.at(
                    t.span(),
                    format!("invalid precision {x} for {m} (valid: a positive number, the half-width of the 95% intervals)"),
                );
            } else {
                precision_targets.push((m.clone(), *x));
            }
        }
    }
    let mut precision_metrics = Vec::new();
    // An empty list would mean every metric, as no list does: one way only.
    if let Some(list) = stop.metrics.as_ref().filter(|l| l.get_ref().is_empty()) {
        errs.at(
            list.span(),
            "[stop] metrics = [] names no metric; leave metrics out to look at every metric",
        );
    }
    for m in stop.metrics.iter().flat_map(|l| l.get_ref()) {
        if METRIC_NAMES.contains(&m.get_ref().as_str()) {
            precision_metrics.push(m.get_ref().clone());
        } else {
            errs.at(
                m.span(),
                format!(
                    "unknown metric '{}' (valid: {})",
                    m.get_ref(),
                    METRIC_NAMES.join(", ")
                ),
            );
        }
    }
    // A metric among the precision's and with a target of its own: one of
    // the two would be ignored (the run refuses it too, but without the
    // file's line).
    if let (Some(all), Some(t)) = (precision, &stop.precision_per_metric) {
        for (m, x) in &precision_targets {
            if precision_metrics.contains(m) {
                errs.at(
                    t.span(),
                    format!("[stop] metric '{m}' has two precision targets ({all} as one of the precision's metrics, {x} of its own in precision_per_metric); give it one"),
                );
            }
        }
    }
    // A limit for a precision rule, given without one, was ignored.
    // (`metrics` without a precision is checked with the run's options:
    // `--precision X` may bring the precision.)
    if stop.precision.is_none() && stop.precision_per_metric.is_none() {
        if let Some(m) = &stop.max_games {
            errs.at(
                m.span(),
                "[stop] max_games is the limit of a run with a precision rule, and [stop] has none (give precision or precision_per_metric, or set games instead)",
            );
        }
    }

    StopRule {
        precision,
        max_games,
        batch,
        precision_targets,
        precision_metrics,
    }
}
