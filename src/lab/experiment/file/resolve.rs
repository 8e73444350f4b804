//! Resolving the arms of an experiment file: each one's rule set built with
//! its settings and house rules, its line-up, its table and its run, every
//! error said once at the line that caused it (a `[base]` value's at the
//! base's line, not once per arm that inherits it).

use super::super::ArmSpec;
use super::arms::base_rules;
use super::syntax::{Errors, File, Raw};
use crate::agents::{self, StrategySpec};
use crate::engine::rules::{
    given_twice, overridden, without_overridden, RuleSetFile, Rules, RulesError,
};
use crate::sim::lockstep::Arm;
use crate::sim::runner::{Mode, RunConfig};
use crate::sim::seating::Seating;

/// What to run of an experiment's arms: the table settings shared by all.
pub(super) struct Shared<'a> {
    pub(super) mode: Mode,
    pub(super) seed: u64,
    pub(super) duplicate: bool,
    /// Strategies of the embedding program, looked up first.
    pub(super) custom: &'a [StrategySpec],
}

/// The arms of `raws` (the first `written` of them `[[arm]]` tables, the
/// rest the grid's) as specs (every arm, as written) and runnable arms
/// (those that resolved; the others' errors are in `errs`).
pub(super) fn resolve(
    errs: &mut Errors,
    f: &File,
    raws: &[Raw],
    written: usize,
    run: &Shared,
) -> (Vec<ArmSpec>, Vec<Arm>) {
    let b = &f.base;
    let base_rules = base_rules(b);
    let (mode, seed, duplicate, custom) = (run.mode, run.seed, run.duplicate, run.custom);
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
        // The arm's own settings and house rules take the place of the
        // base's of the same setting.
        let own = |v: &[(String, std::ops::Range<usize>)]| -> Vec<String> {
            (v.iter().filter(|x| !base_items.contains(&x.1)))
                .map(|x| x.0.clone())
                .collect()
        };
        let (own_set, own_house) = (own(set), own(house));
        let set: Vec<_> = (set.iter())
            .filter(|x| !base_items.contains(&x.1) || !overridden(&x.0, &own_set, &own_house))
            .cloned()
            .collect();
        // (An entry whose every rule the arm overrides goes: it was kept
        // as "".)
        let house: Vec<_> = (house.iter())
            .map(|x| match base_items.contains(&x.1) {
                true => (without_overridden(&x.0, &own_set, &own_house), x.1.clone()),
                false => x.clone(),
            })
            .filter(|x| !x.0.is_empty())
            .collect();
        let (set, house) = (&set, &house);
        // A setting given twice is refused, as on the command line: one of
        // the two would be dropped silently (a house rule wins over a set
        // whatever the order).
        let strings = |v: &[(String, std::ops::Range<usize>)]| -> Vec<String> {
            v.iter().map(|x| x.0.clone()).collect()
        };
        let (sets, houses) = (strings(set), strings(house));
        if let Some((key, (f1, i1), (f2, i2))) = given_twice(&sets, &houses) {
            // Where each of the two is written (the last entry holding it).
            let span_of = |from: &str, item: &str| {
                let list = if from == "set" { set } else { house };
                (list.iter().rev())
                    .find(|(v, _)| v.split(',').any(|x| x.trim() == item))
                    .map_or(rules.1.clone(), |x| x.1.clone())
            };
            let (first, second) = (span_of(f1, i1), span_of(f2, i2));
            let msg =
                format!("'{key}' is given twice ({f1} {i1}, {f2} {i2}): give each setting once");
            if base_items.contains(&first) && base_items.contains(&second) {
                base_error(errs, second, "", msg);
            } else if base_items.contains(&second) {
                errs.arm(first, &label.0, msg);
            } else {
                errs.arm(second, &label.0, msg);
            }
        }
        let mut file = match RuleSetFile::load(&rules.0) {
            Ok(f) => Some(f),
            Err(e) => {
                if let RulesError::Io(_, why) = &e {
                    errs.unread(why.kind);
                }
                errs.arm(rules.1.clone(), &label.0, e);
                None
            }
        };
        if let Some(fl) = file.as_mut() {
            for (s, span) in set {
                if let Err(e) = fl.apply_set(s) {
                    if base_items.contains(span) {
                        base_error(errs, span.clone(), "set: ", e.to_string());
                    } else {
                        errs.arm(span.clone(), &label.0, e);
                    }
                }
            }
            for (h, span) in house {
                for item in h.split(',').filter(|x| !x.trim().is_empty()) {
                    if let Err(e) = fl.apply_house(item) {
                        if base_items.contains(span) {
                            base_error(errs, span.clone(), "house: ", e.to_string());
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
            .map_err(|e| {
                if let Some(kind) = e.unread() {
                    errs.unread(kind);
                }
                e.to_string()
            })
            .and_then(|l| {
                agents::check_fair(&l, f.allow_oracle, agents::OracleAllowedBy::File).map(|_| l)
            }) {
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
                base_error(errs, base_span.clone(), "", e.to_string());
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
    (specs, arms)
}
