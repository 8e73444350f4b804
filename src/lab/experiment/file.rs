//! Reading an experiment file: the TOML shapes, the checks with their
//! one-line messages (file:line), grids, and the resolved [`Experiment`].

use super::{ArmSpec, Experiment, MAX_GRID_ARMS};
use crate::agents::{self, StrategySpec};
use crate::engine::rules::{plain_toml_message, RuleSetFile, Rules};
use crate::sim::lockstep::{Arm, LockstepConfig, DEFAULT_BATCH, METRIC_NAMES};
use crate::sim::runner::{Mode, RunConfig};
use crate::sim::seating::{Seating, SEATING_NAMES};
use serde::Deserialize;
use toml::Spanned;

#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
struct FileBase {
    rules: Option<Spanned<String>>,
    #[serde(default)]
    set: Vec<Spanned<String>>,
    #[serde(default)]
    house: Vec<Spanned<String>>,
    players: Option<Spanned<i64>>,
    strategies: Option<Spanned<String>>,
    mode: Option<Spanned<String>>,
    games: Option<Spanned<i64>>,
    seed: Option<Spanned<SeedValue>>,
    duplicate: Option<bool>,
    seating: Option<Spanned<String>>,
    fixed_seats: Option<Spanned<bool>>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct FileArm {
    label: Spanned<String>,
    rules: Option<Spanned<String>>,
    #[serde(default)]
    set: Vec<Spanned<String>>,
    #[serde(default)]
    house: Vec<Spanned<String>>,
    players: Option<Spanned<i64>>,
    strategies: Option<Spanned<String>>,
    seating: Option<Spanned<String>>,
    fixed_seats: Option<Spanned<bool>>,
}

/// A seed as written: an integer (TOML's reach 2^63-1), or a string for the
/// whole unsigned 64-bit range of `run --seed`.
#[derive(Deserialize, Debug)]
#[serde(untagged)]
enum SeedValue {
    Int(i64),
    Text(String),
}

#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
struct FileGrid {
    rules: Option<Vec<Spanned<String>>>,
    set: Option<Vec<Spanned<String>>>,
    house: Option<Vec<Spanned<String>>>,
    players: Option<Vec<Spanned<i64>>>,
    strategies: Option<Vec<Spanned<String>>>,
}

#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
struct FileStop {
    precision: Option<Spanned<f64>>,
    /// A half-width per metric: `{ points_per_round = 0.5, win_rate = 0.005 }`.
    precision_per_metric: Option<Spanned<std::collections::BTreeMap<String, f64>>>,
    max_games: Option<Spanned<i64>>,
    batch: Option<Spanned<i64>>,
    #[serde(default)]
    metrics: Vec<Spanned<String>>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct File {
    name: Spanned<String>,
    description: Option<String>,
    /// Lets an arm seat the perfect-information reference (`base = "oracle"`).
    #[serde(default)]
    allow_oracle: bool,
    baseline: Option<Spanned<String>>,
    #[serde(default)]
    base: FileBase,
    #[serde(default)]
    arm: Vec<FileArm>,
    grid: Option<FileGrid>,
    stop: Option<FileStop>,
}

struct Errors<'t> {
    origin: &'t str,
    text: &'t str,
    list: Vec<String>,
}

impl Errors<'_> {
    fn line(&self, span: std::ops::Range<usize>) -> usize {
        let end = span.start.min(self.text.len());
        self.text[..end].matches('\n').count() + 1
    }
    fn at(&mut self, span: std::ops::Range<usize>, msg: impl std::fmt::Display) {
        let l = self.line(span);
        self.list.push(format!("{}:{l}: {msg}", self.origin));
    }
    fn file(&mut self, msg: impl std::fmt::Display) {
        self.list.push(format!("{}: {msg}", self.origin));
    }
    /// An arm's error; the same error of several arms (a base value) is
    /// reported once, without the arm's name.
    fn arm(&mut self, span: std::ops::Range<usize>, label: &str, msg: impl std::fmt::Display) {
        let l = self.line(span);
        let plain = format!("{}:{l}: {msg}", self.origin);
        if let Some(i) = self.list.iter().position(|e| {
            e == &plain
                || (e.starts_with(&format!("{}:{l}: arm '", self.origin))
                    && e.ends_with(&format!("': {msg}")))
        }) {
            self.list[i] = plain;
            return;
        }
        if label.is_empty() {
            // A grid arm of empty values: its own error names them.
            self.list.push(plain);
        } else {
            self.list
                .push(format!("{}:{l}: arm '{label}': {msg}", self.origin));
        }
    }
}

/// Reads and validates an experiment file.
pub fn load(path: &str) -> Result<Experiment, Vec<String>> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| vec![format!("{path}: cannot read the experiment file: {e}")])?;
    parse(&text, path)
}

/// The key of a `key = value` line whose value starts at byte `at` of
/// `text`: a TOML error's span is the value, and its message ("invalid
/// type: string \"four\", expected i64") does not name the key.
fn key_before(text: &str, at: usize) -> Option<&str> {
    let line = text.get(..at)?.rsplit('\n').next()?;
    let key = line
        .strip_suffix('=')
        .or_else(|| line.trim_end().strip_suffix('='))?;
    let key = key.trim();
    (!key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '"')))
    .then_some(key)
}

/// One arm before it is resolved, each value with where it was written:
/// (label, rules, set, house, players, strategies, seating).
type Raw = (
    (String, std::ops::Range<usize>),
    (String, std::ops::Range<usize>),
    Vec<(String, std::ops::Range<usize>)>,
    Vec<(String, std::ops::Range<usize>)>,
    (i64, std::ops::Range<usize>),
    (String, std::ops::Range<usize>),
    (Seating, std::ops::Range<usize>),
);

/// The seating of a table (`[base]` or an `[[arm]]`) from its `seating` and
/// its `fixed_seats` (the older spelling of `seating = "fixed"`); `inherit`
/// when it gives neither.
fn seating_of(
    errs: &mut Errors,
    seating: &Option<Spanned<String>>,
    fixed: &Option<Spanned<bool>>,
    inherit: (Seating, std::ops::Range<usize>),
) -> (Seating, std::ops::Range<usize>) {
    let named = seating.as_ref().map(|s| match Seating::parse(s.get_ref()) {
        Some(x) => (x, s.span()),
        None => {
            errs.at(
                s.span(),
                format!(
                    "invalid seating '{}' (valid: {})",
                    s.get_ref(),
                    SEATING_NAMES.join(", ")
                ),
            );
            (inherit.0, s.span())
        }
    });
    match (named, fixed) {
        (Some((x, span)), Some(f)) if *f.get_ref() != (x == Seating::Fixed) => {
            errs.at(
                f.span(),
                format!(
                    "fixed_seats = {} contradicts seating = \"{}\" (give seating alone)",
                    f.get_ref(),
                    x.name()
                ),
            );
            (x, span)
        }
        (Some(x), _) => x,
        (None, Some(f)) if *f.get_ref() => (Seating::Fixed, f.span()),
        // fixed_seats = false: not fixed, whatever the base says.
        (None, Some(f)) if inherit.0 == Seating::Fixed => (Seating::Mixed, f.span()),
        (None, _) => inherit,
    }
}

/// Every arm of `combos` once with each value of a `[grid]` axis (`combos`
/// itself when the file does not give the axis): `apply` puts the value into
/// the arm and returns its part of the label, which is joined to the label
/// so far; the label's place becomes the value's.
fn cross<T>(
    combos: Vec<Raw>,
    axis: &Option<Vec<Spanned<T>>>,
    apply: impl Fn(&mut Raw, &Spanned<T>) -> String,
) -> Vec<Raw> {
    let Some(values) = axis else {
        return combos;
    };
    let mut out = Vec::with_capacity(combos.len() * values.len());
    for c in &combos {
        for v in values {
            let mut c = c.clone();
            let part = apply(&mut c, v);
            c.0 .0 = if c.0 .0.is_empty() {
                part
            } else {
                format!("{}, {part}", c.0 .0)
            };
            c.0 .1 = v.span();
            out.push(c);
        }
    }
    out
}

/// Parses and validates an experiment (`origin` names it in messages).
pub fn parse(text: &str, origin: &str) -> Result<Experiment, Vec<String>> {
    parse_with(text, origin, &[])
}

/// As [`parse`], strategy names looked up first among `custom` (strategies
/// of the embedding program, [`agents::parse_list_with`]).
pub fn parse_with(
    text: &str,
    origin: &str,
    custom: &[StrategySpec],
) -> Result<Experiment, Vec<String>> {
    let mut errs = Errors {
        origin,
        text,
        list: Vec::new(),
    };
    let f: File = match toml::from_str(text) {
        Ok(f) => f,
        Err(e) => {
            let msg = plain_toml_message(e.message());
            let msg = if msg.starts_with("unknown field") {
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
            return Err(errs.list);
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
    let positive = |errs: &mut Errors, v: &Option<Spanned<i64>>, what: &str, default: u64| match v {
        None => default,
        Some(s) if *s.get_ref() >= 1 => *s.get_ref() as u64,
        Some(s) => {
            errs.at(
                s.span(),
                format!("invalid {what} {} (valid: a positive integer)", s.get_ref()),
            );
            default
        }
    };
    let games = positive(&mut errs, &b.games, "games", 10_000);
    let seed = match &b.seed {
        None => 1,
        Some(s) => {
            let v = match s.get_ref() {
                SeedValue::Int(i) => u64::try_from(*i).ok(),
                SeedValue::Text(t) => t.trim().parse::<u64>().ok(),
            };
            v.unwrap_or_else(|| {
                let shown = match s.get_ref() {
                    SeedValue::Int(i) => i.to_string(),
                    SeedValue::Text(t) => format!("'{t}'"),
                };
                errs.at(
                    s.span(),
                    format!(
                        "invalid seed {shown} (valid: an integer from 0 to {}; above {} write it as a string, e.g. seed = \"{}\")",
                        u64::MAX,
                        i64::MAX,
                        u64::MAX
                    ),
                );
                1
            })
        }
    };
    let duplicate = b.duplicate.unwrap_or(false);
    let stop = f.stop.unwrap_or_default();
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
    let max_games = positive(&mut errs, &stop.max_games, "max_games", games);
    let batch = positive(&mut errs, &stop.batch, "batch", DEFAULT_BATCH);
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
    for m in &stop.metrics {
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

    // Arms as written, then the grid's product.
    let base_rules = b
        .rules
        .as_ref()
        .map(|s| (s.get_ref().clone(), s.span()))
        .unwrap_or(("classic".into(), 0..0));
    let base_players = b
        .players
        .as_ref()
        .map(|s| (*s.get_ref(), s.span()))
        .unwrap_or((4, 0..0));
    let base_strats = b
        .strategies
        .as_ref()
        .map(|s| (s.get_ref().clone(), s.span()))
        .unwrap_or(("random".into(), 0..0));
    let spanned_list = |v: &[Spanned<String>]| -> Vec<(String, std::ops::Range<usize>)> {
        v.iter().map(|s| (s.get_ref().clone(), s.span())).collect()
    };
    let mut raws: Vec<Raw> = Vec::new();
    let mut grid_said = false;
    let base_seating = seating_of(
        &mut errs,
        &b.seating,
        &b.fixed_seats,
        (Seating::Mixed, 0..0),
    );
    for a in &f.arm {
        let mut set = spanned_list(&b.set);
        set.extend(spanned_list(&a.set));
        let mut house = spanned_list(&b.house);
        house.extend(spanned_list(&a.house));
        raws.push((
            (a.label.get_ref().clone(), a.label.span()),
            a.rules
                .as_ref()
                .map(|s| (s.get_ref().clone(), s.span()))
                .unwrap_or_else(|| base_rules.clone()),
            set,
            house,
            a.players
                .as_ref()
                .map(|s| (*s.get_ref(), s.span()))
                .unwrap_or_else(|| base_players.clone()),
            a.strategies
                .as_ref()
                .map(|s| (s.get_ref().clone(), s.span()))
                .unwrap_or_else(|| base_strats.clone()),
            seating_of(&mut errs, &a.seating, &a.fixed_seats, base_seating.clone()),
        ));
    }
    // Arms written as [[arm]] tables; the grid's follow.
    let written = raws.len();
    if let Some(g) = &f.grid {
        let made = [
            g.rules.as_ref().map(Vec::len),
            g.set.as_ref().map(Vec::len),
            g.house.as_ref().map(Vec::len),
            g.players.as_ref().map(Vec::len),
            g.strategies.as_ref().map(Vec::len),
        ]
        .into_iter()
        .flatten()
        .fold(1u64, |n, len| n.saturating_mul(len as u64));
        if made > MAX_GRID_ARMS {
            errs.file(format!(
                "the [grid] makes {made} arms (the product of its lists' lengths); at most {MAX_GRID_ARMS}"
            ));
            return Err(errs.list);
        }
        // Axes in a fixed order; each value with its label part.
        let mut combos: Vec<Raw> = vec![(
            (String::new(), 0..0),
            base_rules.clone(),
            spanned_list(&b.set),
            spanned_list(&b.house),
            base_players.clone(),
            base_strats.clone(),
            base_seating.clone(),
        )];
        combos = cross(combos, &g.rules, |c, r| {
            c.1 = (r.get_ref().clone(), r.span());
            r.get_ref().clone()
        });
        combos = cross(combos, &g.set, |c, s| {
            c.2.extend(
                s.get_ref()
                    .split(',')
                    .filter(|x| !x.trim().is_empty())
                    .map(|x| (x.trim().to_string(), s.span())),
            );
            if s.get_ref().trim().is_empty() {
                "none".into()
            } else {
                s.get_ref().clone()
            }
        });
        combos = cross(combos, &g.house, |c, h| {
            c.3.push((h.get_ref().clone(), h.span()));
            if h.get_ref().trim().is_empty() {
                "none".into()
            } else {
                h.get_ref().clone()
            }
        });
        combos = cross(combos, &g.players, |c, p| {
            c.4 = (*p.get_ref(), p.span());
            format!("{} players", p.get_ref())
        });
        combos = cross(combos, &g.strategies, |c, s| {
            c.5 = (s.get_ref().clone(), s.span());
            let part = s.get_ref().split(',').map(str::trim).collect::<Vec<_>>();
            part.join(" vs ")
        });
        if combos.iter().all(|c| c.0 .0.is_empty()) {
            errs.file("the [grid] table lists no values (valid keys: rules, set, house, players, strategies)");
            // Said: "no arms" would be the same problem twice.
            grid_said = true;
        } else {
            raws.extend(combos);
        }
    }
    if raws.is_empty() && !grid_said {
        errs.file("no arms: add [[arm]] tables or a [grid] table (see experiments/README.md)");
    }

    // The [base]'s own set and house items, and the error its rules give
    // on their own: an arm that inherits them reports them as the base's
    // (once, at the base's line), not as its own.
    let base_items: Vec<std::ops::Range<usize>> = b
        .set
        .iter()
        .map(|s| s.span())
        .chain(b.house.iter().map(|h| h.span()))
        .collect();
    let base_span = b
        .set
        .last()
        .or(b.house.last())
        .map(|s| s.span())
        .unwrap_or_else(|| base_rules.1.clone());
    let base_build_error: Option<String> =
        RuleSetFile::load(&base_rules.0).ok().and_then(|mut fl| {
            let applied = b.set.iter().all(|s| fl.apply_set(s.get_ref()).is_ok())
                && b.house.iter().all(|h| {
                    h.get_ref()
                        .split(',')
                        .filter(|x| !x.trim().is_empty())
                        .all(|item| fl.apply_house(item).is_ok())
                });
            if applied {
                Rules::build(fl).err().map(|e| e.to_string())
            } else {
                None
            }
        });
    let base_error = |errs: &mut Errors, span: std::ops::Range<usize>, what: &str, e: String| {
        let l = errs.line(span.clone());
        let msg = format!("{}:{l}: [base] {what}{e}", errs.origin);
        if !errs.list.contains(&msg) {
            errs.list.push(msg);
        }
    };
    let mut specs = Vec::new();
    let mut arms = Vec::new();
    for (i, (label, rules, set, house, players, strategies, seating)) in raws.iter().enumerate() {
        if label.0.trim().is_empty() {
            // A grid's label is its values: an empty one is an empty rule
            // set or line-up, which their own checks below name.
            if i < written {
                errs.at(label.1.clone(), "an arm needs a non-empty label");
            }
        } else if label.0.contains(['|', '\n', '\r']) {
            errs.at(
                label.1.clone(),
                format!(
                    "arm label {:?} holds a '|' or a line break, which would break the rows of report.md",
                    label.0
                ),
            );
        } else if raws[..i].iter().any(|r| r.0 .0 == label.0) {
            errs.at(
                label.1.clone(),
                format!("duplicate arm label '{}' (labels must be unique)", label.0),
            );
        }
        let mut file = match RuleSetFile::load(&rules.0) {
            Ok(f) => Some(f),
            Err(e) => {
                errs.arm(rules.1.clone(), &label.0, e);
                None
            }
        };
        if let Some(fl) = file.as_mut() {
            for (s, span) in set {
                if let Err(e) = fl.apply_set(s) {
                    if base_items.contains(span) {
                        base_error(&mut errs, span.clone(), "set: ", e.to_string());
                    } else {
                        errs.arm(span.clone(), &label.0, e);
                    }
                }
            }
            for (h, span) in house {
                for item in h.split(',').filter(|x| !x.trim().is_empty()) {
                    if let Err(e) = fl.apply_house(item) {
                        if base_items.contains(span) {
                            base_error(&mut errs, span.clone(), "house: ", e.to_string());
                        } else {
                            errs.arm(span.clone(), &label.0, e);
                        }
                    }
                }
            }
        }
        let p = players.0;
        if !(2..=10).contains(&p) {
            errs.arm(
                players.1.clone(),
                &label.0,
                format!("invalid players {p} (valid: 2 to 10)"),
            );
        }
        let lineup: Option<Vec<StrategySpec>> = match agents::parse_list_with(&strategies.0, custom)
            .map_err(|e| e.to_string())
            .and_then(|l| agents::check_fair(&l, f.allow_oracle).map(|_| l))
        {
            Ok(l) => Some(l),
            Err(e) => {
                errs.arm(strategies.1.clone(), &label.0, e);
                None
            }
        };
        // A rule set that does not build, or does not fit the table, is most
        // likely the arm's own settings: the first `set` or `house` (holding
        // `what`) that the arm adds to its base's, else `fallback`.
        let own = |fallback: &std::ops::Range<usize>, what: &str| {
            set.iter()
                .chain(house)
                .find(|(v, sp)| v.contains(what) && !base_items.contains(sp))
                .map_or(fallback, |(_, sp)| sp)
                .clone()
        };
        let built = file.and_then(|fl| match Rules::build(fl) {
            Ok(r) => Some(r),
            Err(e) if base_build_error.as_deref() == Some(e.to_string().as_str()) => {
                base_error(&mut errs, base_span.clone(), "", e.to_string());
                None
            }
            Err(e) => {
                errs.arm(own(&rules.1, ""), &label.0, e);
                None
            }
        });
        if let (Some(r), Some(l), true) = (built, lineup, (2..=10).contains(&p)) {
            match RunConfig::builder(r, p as usize, &l)
                .mode(mode)
                .seed(seed)
                .seating(seating.0)
                .build()
            {
                Ok(cfg) => {
                    if duplicate && seating.0 == Seating::Fixed {
                        errs.arm(
                            seating.1.clone(),
                            &label.0,
                            "duplicate play rotates the seats; the seating cannot be fixed",
                        );
                    }
                    arms.push(Arm {
                        label: label.0.clone(),
                        cfg,
                    });
                }
                Err(e) => errs.arm(own(&players.1, "hand_size"), &label.0, e),
            }
        }
        specs.push(ArmSpec {
            label: label.0.clone(),
            rules: rules.0.clone(),
            set: set.iter().map(|s| s.0.clone()).collect(),
            house: house.iter().map(|s| s.0.clone()).collect(),
            players: p.clamp(0, 10) as usize,
            strategies: strategies.0.clone(),
        });
    }
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
        return Err(errs.list);
    }
    let games = if precision.is_some() || !precision_targets.is_empty() {
        max_games
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
            batch,
            precision,
            precision_metrics,
            precision_targets,
            ..LockstepConfig::new(arms, seed, games)
        },
    })
}
