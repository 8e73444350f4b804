//! The arms of an experiment file as written: its `[[arm]]` tables, each
//! over the `[base]`, then the product of its `[grid]` axes, every value with
//! where it was written (not yet resolved or checked against the rules).

use super::super::MAX_GRID_ARMS;
use super::syntax::{Errors, File, FileBase, Raw};
use crate::sim::seating::{Seating, SEATING_NAMES};
use toml::Spanned;

/// The `[base]`'s rule set (`classic` when it names none) and where it was
/// written.
pub(super) fn base_rules(b: &FileBase) -> (String, std::ops::Range<usize>) {
    b.rules
        .as_ref()
        .map(|s| (s.get_ref().clone(), s.span()))
        .unwrap_or(("classic".into(), 0..0))
}

/// The arms of `f`: its `[[arm]]` tables, then its grid's, and how many of
/// them were written as tables. `None` when the grid is too large to make
/// (the error said); an empty list when the file gives no arm (said too).
pub(super) fn gather(errs: &mut Errors, f: &File) -> Option<(Vec<Raw>, usize)> {
    let b = &f.base;
    // Arms as written, then the grid's product.
    let base_rules = base_rules(b);
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
    let base_seating = seating_of(errs, &b.seating, &b.fixed_seats, (Seating::Mixed, 0..0));
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
            seating_of(errs, &a.seating, &a.fixed_seats, base_seating.clone()),
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
            return None;
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
                nothing_added(&b.set)
            } else {
                s.get_ref().clone()
            }
        });
        combos = cross(combos, &g.house, |c, h| {
            c.3.push((h.get_ref().clone(), h.span()));
            if h.get_ref().trim().is_empty() {
                nothing_added(&b.house)
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

    Some((raws, written))
}

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

/// The label part of a grid's empty `set` or `house` value: "none" when the
/// base gives none either, else "none added" (the base's items still hold:
/// "none" read as if they did not).
fn nothing_added(base: &[Spanned<String>]) -> String {
    if base.iter().all(|x| x.get_ref().trim().is_empty()) {
        "none".into()
    } else {
        "none added".into()
    }
}
