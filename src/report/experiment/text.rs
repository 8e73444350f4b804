//! The experiment's results in words: the short table `experiment run` and
//! `compare` print, and the formatting of figures it shares with
//! `report.md` (module `markdown`).

use super::{arm_rows, comparison_rows, describe, ComparisonRow, ExperimentReport};
use crate::report::{columns, Cell};
use crate::sim::lockstep::{challenger, precision_checks, Estimate, Stop, Untested};
use crate::sim::Mode;
use std::fmt::Write as _;

/// The decimals `x` is written with where `d` are asked: `d`, or, when that
/// would show a value that is not 0 as 0 (the upper end of a rare event's
/// interval: 0.0014%), enough for two significant digits.
fn decimals(x: f64, d: usize) -> usize {
    let small = x != 0.0 && x.is_finite() && x.abs() < 0.5 * 10f64.powi(-(d as i32));
    if small {
        ((-x.abs().log10()).ceil() as usize + 1).min(12)
    } else {
        d
    }
}

fn with_decimals(x: f64, d: usize, signed: bool) -> String {
    if signed {
        format!("{x:+.d$}")
    } else {
        format!("{x:.d$}")
    }
}

/// A value and its interval's ends with one number of decimals, the most
/// [`decimals`] gives any of them, so that they read alike:
/// `0.000000 [0.000000, 0.000014]`, not `0.0000 [0.0000, 0.000014]`. An end
/// that is not finite (no interval) does not count.
fn alike(xs: [f64; 3], d: usize, signed: bool) -> [String; 3] {
    let d = xs
        .iter()
        .filter(|x| x.is_finite())
        .map(|&x| decimals(x, d))
        .max()
        .unwrap_or(d);
    xs.map(|x| with_decimals(x, d, signed))
}

/// How figures are written: the decimals of a percentage and of any other
/// value, and whether an interval's ends carry the "%" too.
#[derive(Clone, Copy)]
struct Style {
    pct: usize,
    other: usize,
    pct_on_ends: bool,
}

/// report.md's: `2.27% [2.08, 2.47]`.
const REPORT: Style = Style {
    pct: 2,
    other: 3,
    pct_on_ends: false,
};

/// The screen table's, a decimal more: `2.270% [2.080%, 2.470%]`.
const SCREEN: Style = Style {
    pct: 3,
    other: 4,
    pct_on_ends: true,
};

/// A precision asked, as given, or in exponent form when tiny (1e-300 was
/// written out in 300 digits).
fn asked(x: f64) -> String {
    if x != 0.0 && x.abs() < 1e-6 {
        format!("{x:e}")
    } else {
        format!("{x}")
    }
}

/// A metric's figure, its interval's ends (`lo`, `hi`) and the interval in
/// brackets, written alike (see [`alike`]) in `style`: a percentage with
/// "%" (" pp", and on the value alone, when `signed`: a difference). The
/// brackets are "-" when the interval is not finite.
fn figure_in(
    style: Style,
    metric: &str,
    x: f64,
    lo: f64,
    hi: f64,
    signed: bool,
) -> (String, String) {
    let (_, pct) = describe(metric);
    // The first mover's advantage is itself a difference (its share less
    // the fair share): in points of percentage, with its sign.
    let signed = signed || metric == "first_mover_advantage";
    let k = if pct { 100.0 } else { 1.0 };
    let finite = lo.is_finite();
    let [v, l, h] = alike(
        [
            k * x,
            if finite { k * lo } else { f64::NAN },
            if finite { k * hi } else { f64::NAN },
        ],
        if pct { style.pct } else { style.other },
        signed,
    );
    let unit = match (pct, signed) {
        (false, _) => "",
        (true, true) => " pp",
        (true, false) => "%",
    };
    let end = if pct && !signed && style.pct_on_ends {
        "%"
    } else {
        ""
    };
    let bracket = if finite {
        format!("[{l}{end}, {h}{end}]")
    } else {
        "-".into()
    };
    (format!("{v}{unit}"), bracket)
}

/// [`figure_in`] report.md's style.
pub(super) fn figure(metric: &str, x: f64, lo: f64, hi: f64, signed: bool) -> (String, String) {
    figure_in(REPORT, metric, x, lo, hi, signed)
}

/// A metric's figure without an interval, as [`figure`] writes it.
pub(super) fn num(metric: &str, x: f64, signed: bool) -> String {
    figure(metric, x, f64::NAN, f64::NAN, signed).0
}

/// A value with its 95% interval: `2.27% [2.08, 2.47]`.
pub(super) fn valued(metric: &str, e: Option<Estimate>, x: f64) -> String {
    match e {
        Some(e) => {
            let (v, ci) = figure(metric, e.value, e.lo, e.hi, false);
            format!("{v} {ci}")
        }
        None => num(metric, x, false),
    }
}

/// The p-value cell of a comparison: its p-value, or why it has none.
pub(super) fn p_cell(r: &ComparisonRow, p: f64) -> String {
    match r.d.untested {
        Some(u) => u.label(),
        None => fmt_p(p),
    }
}

pub(super) fn fmt_p(p: f64) -> String {
    if !p.is_finite() {
        "-".into()
    } else if p < 0.0001 {
        "<0.0001".into()
    } else {
        format!("{p:.4}")
    }
}

impl ExperimentReport<'_> {
    /// A short table of the comparisons (or of the arms when there is no
    /// baseline), as `experiment run` and `compare` print it.
    pub fn to_text(&self) -> String {
        let r = self;
        let mut o = String::new();
        let _ = writeln!(
            o,
            "{}: {} arm{}, {} {} per arm{}, seed {}, {:.1} s",
            r.exp.name,
            r.exp.run.arms.len(),
            if r.exp.run.arms.len() == 1 { "" } else { "s" },
            r.state.clusters,
            match (r.exp.run.duplicate, r.state.clusters == 1) {
                (true, true) => "deal",
                (true, false) => "deals",
                (false, true) => "game",
                (false, false) => "games",
            },
            match r.stop {
                Stop::Precision => " (precision reached)".to_string(),
                Stop::Interrupted => " (PARTIAL)".to_string(),
                Stop::Limit if self.precision_missed().is_some() => {
                    " (precision NOT reached)".to_string()
                }
                Stop::Limit => String::new(),
            },
            r.exp.run.seed,
            r.elapsed_s
        );
        if let (Stop::Limit, Some(m)) = (r.stop, self.precision_missed()) {
            let _ = writeln!(
                o,
                "precision NOT reached (asked {}): {m}",
                self.precision_asked()
            );
        }
        if crate::lab::compare::is_compare_origin(&r.exp.origin) {
            // A compare: what A and B are, one line each.
            for line in self.arm_lines() {
                let _ = writeln!(o, "{line}");
            }
        }
        // The screen's figures: a decimal more than report.md's.
        let fig = |m: &str, x: f64, lo: f64, hi: f64, signed: bool| {
            figure_in(SCREEN, m, x, lo, hi, signed)
        };
        let comps = comparison_rows(r.state);
        if comps.is_empty() {
            let _ = writeln!(o, "{:<28} {:<34} {:>10}  95% CI", "arm", "metric", "value");
            for a in arm_rows(r.state)
                .iter()
                .filter(|a| a.metric != "position_win_rate")
            {
                let (v, ci) = fig(&a.metric, a.est.value, a.est.lo, a.est.hi, false);
                let _ = writeln!(
                    o,
                    "{:<28} {:<34} {v:>10}  {ci}",
                    Cell(&a.arm),
                    Cell(&format!("{}:{}", a.metric, a.group)),
                );
            }
        } else {
            // Each side's value with its own interval (report.md's too).
            let valued = |m: &str, e: Option<Estimate>, x: f64| match e {
                Some(e) if e.lo.is_finite() => {
                    let (v, ci) = fig(m, e.value, e.lo, e.hi, false);
                    format!("{v} {ci}")
                }
                _ => fig(m, x, f64::NAN, f64::NAN, false).0,
            };
            let header = [
                "arm",
                "metric",
                "baseline [95% CI]",
                "arm [95% CI]",
                "diff",
                "95% CI",
                "p",
                "Holm p",
            ]
            .map(String::from);
            let mut rows = vec![header];
            for c in comps.iter().filter(|c| c.metric != "position_win_rate") {
                // A difference: signed, and of a percentage in points.
                let (diff, ci) = fig(&c.metric, c.d.diff, c.d.lo, c.d.hi, true);
                // As report.md writes them: below 0.0001 is not 0.
                let p4 = |x: f64| {
                    if x < 0.0001 {
                        "<0.0001".to_string()
                    } else {
                        format!("{x:.4}")
                    }
                };
                let p = |x: f64| match c.d.untested {
                    _ if x.is_finite() => p4(x),
                    Some(Untested::Identical) => "identical".into(),
                    Some(Untested::SameInEveryDeal) => "same deals".into(),
                    Some(Untested::NoVariance) => "no var.".into(),
                    Some(Untested::Constant) => "constant".into(),
                    Some(Untested::SameAs(_) | Untested::SameAsOther) => "same test".into(),
                    None => "-".into(),
                };
                rows.push([
                    c.arm.clone(),
                    format!("{}:{}", c.metric, c.group),
                    valued(&c.metric, c.base_est, c.base_value),
                    valued(&c.metric, c.arm_est, c.arm_value),
                    diff,
                    ci,
                    p(c.d.p),
                    if c.p_holm.is_finite() {
                        p4(c.p_holm)
                    } else {
                        "-".into()
                    },
                ]);
            }
            // Columns as wide as their widest cell (at least the widths
            // they always had), so that a value past 100 does not push the
            // next column out of line.
            let least = [28, 34, 28, 28, 10, 24, 9, 9];
            let w: Vec<usize> = (0..8)
                .map(|k| {
                    rows.iter()
                        .map(|r| columns(&r[k]))
                        .max()
                        .unwrap_or(0)
                        .max(least[k])
                })
                .collect();
            for r in &rows {
                let _ = writeln!(
                    o,
                    "{:<w0$} {:<w1$} {:<w2$} {:<w3$} {:>w4$}  {:<w5$} {:>w6$} {:>w7$}",
                    Cell(&r[0]),
                    Cell(&r[1]),
                    Cell(&r[2]),
                    Cell(&r[3]),
                    Cell(&r[4]),
                    Cell(&r[5]),
                    Cell(&r[6]),
                    Cell(&r[7]),
                    w0 = w[0],
                    w1 = w[1],
                    w2 = w[2],
                    w3 = w[3],
                    w4 = w[4],
                    w5 = w[5],
                    w6 = w[6],
                    w7 = w[7],
                );
            }
            let _ = writeln!(
                o,
                "(diff: arm minus baseline, in percentage points (pp) for a rate; Holm p: adjusted over the {} tested rows; no var., constant, same deals, same test, identical: why a row has no test, worded in report.md)",
                super::tested(&comps)
            );
            let positions = comps
                .iter()
                .filter(|c| c.metric == "position_win_rate")
                .count();
            if positions > 0 {
                let of = |c: &&ComparisonRow| c.metric == "position_win_rate";
                let tested = comps
                    .iter()
                    .filter(of)
                    .filter(|c| c.d.p.is_finite())
                    .count();
                let detected = comps.iter().filter(of).filter(|c| c.p_holm < 0.05).count();
                // Rows that are another row's test are neither significant
                // nor not: said apart (the first mover's position is the
                // first mover's share).
                let others = match positions - tested {
                    0 => String::new(),
                    k => format!(
                        "; {k} {} another row's test, as position +0 is first_mover_advantage's",
                        if k == 1 { "is" } else { "are" }
                    ),
                };
                let _ = writeln!(
                    o,
                    "({positions} comparisons of position_win_rate are not shown here, {detected} of the {tested} with a test of their own significant after Holm's adjustment{others}; they are in comparisons.csv (--out; compare's --json too), report.md words the significant ones, and the tested ones count in Holm's family)"
                );
            }
            for line in self.challengers() {
                let _ = writeln!(o, "{line}");
            }
            for line in super::unchanged_arms(&comps) {
                let _ = writeln!(o, "note: {line}");
            }
        }
        for (arm, names) in super::undefined_metrics(r.state) {
            let _ = writeln!(
                o,
                "{arm}: not shown, as undefined (no round was won, and these are shares of won rounds): {}",
                names.join(", ")
            );
        }
        o
    }

    /// The precision rule asked for, in words: "±0.005", "±0.5 for
    /// points_per_round, ±0.005 for the others".
    pub(super) fn precision_asked(&self) -> String {
        let r = &self.exp.run;
        let mut v: Vec<String> = r
            .precision_targets
            .iter()
            .map(|(m, x)| format!("±{} for {m}", asked(*x)))
            .collect();
        if let Some(p) = r.precision {
            let which = if r.precision_metrics.is_empty() {
                String::new()
            } else {
                format!(" for {}", r.precision_metrics.join(", "))
            };
            if v.is_empty() {
                v.push(format!("±{}{which}", asked(p)));
            } else {
                v.push(format!("±{}{which} otherwise", asked(p)));
            }
        }
        v.join(", ")
    }

    /// When a precision rule was set and not met: how many intervals are
    /// wider than asked and the widest against its target. `None` when there
    /// is no rule or it is met.
    pub(super) fn precision_missed(&self) -> Option<String> {
        let r = &self.exp.run;
        if !r.has_precision_rule() {
            return None;
        }
        let checks = precision_checks(r, self.state);
        let wide: Vec<_> = checks.iter().filter(|c| c.half_width >= c.target).collect();
        let worst = wide
            .iter()
            .max_by(|a, b| (a.half_width / a.target).total_cmp(&(b.half_width / b.target)))?;
        // With the decimals that tell the width from the target (±0.0100
        // read as the ±0.01 asked when it was 0.010004).
        let (w, t) = (worst.half_width, worst.target);
        let d = (4..=12)
            .find(|&d| format!("{w:.d$}") != format!("{t:.d$}"))
            .unwrap_or(12);
        Some(format!(
            "{} of {} intervals wider than asked at the limit of {} per arm; the widest, {}, is ±{w:.d$} (asked ±{})",
            wide.len(),
            checks.len(),
            r.max_clusters,
            worst.what,
            asked(t),
        ))
    }

    /// Each arm in one line: its label, rules, settings, house rules,
    /// players and line-up.
    pub(super) fn arm_lines(&self) -> Vec<String> {
        self.exp
            .run
            .arms
            .iter()
            .zip(&self.exp.specs)
            .map(|(a, s)| {
                let mut v = vec![format!("rules {}", a.cfg.rules.name)];
                if !s.set.is_empty() {
                    v.push(format!("settings {}", s.set.join(", ")));
                }
                if !s.house.is_empty() {
                    v.push(format!("house rules {}", s.house.join(", ")));
                }
                v.push(format!("{} players", a.cfg.players));
                let names: Vec<&str> = a.cfg.lineup.iter().map(|x| x.name()).collect();
                v.push(format!("line-up {}", names.join(", ")));
                format!("{}: {}", a.label, v.join("; "))
            })
            .collect()
    }

    /// The paired gain of challenger `c` of arm `arm` over `r`, the strategy
    /// it replaced ([`crate::sim::lockstep::challenger`]): its row of
    /// `comps` (the experiment's comparison rows) for `metric`, group
    /// `"c vs r"`.
    fn challenger_gain(
        comps: &[ComparisonRow],
        arm: &str,
        (c, r): (&str, &str),
        metric: &str,
    ) -> Option<String> {
        let group = format!("{c} vs {r}");
        let row = comps
            .iter()
            .find(|x| x.arm == arm && x.metric == metric && x.group == group)?;
        let d = row.d;
        if !d.lo.is_finite() {
            return Some(format!(
                "; paired gain of {c} over {r}: {} per seat, without an interval (the row {metric}:{group} says why)",
                num(metric, d.diff, true),
            ));
        }
        let (gain, ci) = figure(metric, d.diff, d.lo, d.hi, true);
        Some(format!(
            "; paired gain of {c} over {r}: {gain} {ci} per seat (deal by deal: the row {metric}:{group})",
        ))
    }

    /// For each arm whose line-up holds strategies its baseline's does not
    /// (a challenger), one sentence with the challenger's own round wins per
    /// seat held and those of the strategies it replaced, in the baseline,
    /// each with its 95% interval, side by side (the strategies differ, so
    /// the table's row of the same metric does not pair them), and where the
    /// comparison pairs them the challenger's paired gain
    /// ([`Self::challenger_gain`]).
    pub(super) fn challengers(&self) -> Vec<String> {
        let Some(b) = self.exp.run.baseline else {
            return Vec::new();
        };
        let rows = arm_rows(self.state);
        let comps = comparison_rows(self.state);
        let metric = if self.exp.mode() == Mode::Match {
            "match_win_rate"
        } else {
            "win_rate"
        };
        let rate = |arm: &str, name: &str| {
            rows.iter()
                .find(|r| r.arm == arm && r.metric == metric && r.group == name)
                .map(|r| {
                    let (v, ci) = figure(metric, r.est.value, r.est.lo, r.est.hi, false);
                    format!("{v} {ci}")
                })
                .unwrap_or_else(|| "-".into())
        };
        let names = |i: usize| self.exp.run.arms[i].cfg.strategy_names();
        let (base, base_names) = (&self.exp.run.arms[b].label, names(b));
        let mut out = Vec::new();
        for (i, a) in self.exp.run.arms.iter().enumerate() {
            if i == b {
                continue;
            }
            let mine = names(i);
            let new: Vec<&str> = mine
                .iter()
                .map(String::as_str)
                .filter(|n| !base_names.iter().any(|b| b == n))
                .collect();
            if new.is_empty() {
                continue;
            }
            let arms = &self.exp.run.arms;
            let pair = challenger(&a.cfg, &arms[b].cfg);
            // The strategies it replaces: the one its row pairs it with, or
            // those the baseline seats and the arm does not.
            let gone: Vec<&str> = match &pair {
                Some((_, r)) => vec![r.as_str()],
                None => base_names
                    .iter()
                    .map(String::as_str)
                    .filter(|n| !mine.iter().any(|m| m == n))
                    .collect(),
            };
            let own: Vec<String> = new
                .iter()
                .map(|n| format!("{n} {}", rate(&a.label, n)))
                .collect();
            let replaced: Vec<String> = gone
                .iter()
                .map(|n| format!("{n} {}", rate(base, n)))
                .collect();
            let (what, _) = describe(metric);
            let mut line = format!(
                "{}: challenger {} ({what}, 95% interval)",
                a.label,
                own.join(", ")
            );
            if !replaced.is_empty() {
                line.push_str(&format!(
                    "; in {base}, {} {}",
                    if gone.len() == 1 {
                        "the strategy it replaces,"
                    } else {
                        "the strategies it replaces,"
                    },
                    replaced.join(", ")
                ));
            }
            let gain = pair
                .as_ref()
                .and_then(|(c, r)| Self::challenger_gain(&comps, &a.label, (c, r), metric));
            match gain {
                Some(gain) => line.push_str(&gain),
                None => {
                    let why = if a.cfg.players != arms[b].cfg.players {
                        "the arms seat different numbers of players"
                    } else if new.len() > 1 {
                        "the arm seats more than one strategy the baseline does not"
                    } else {
                        "the line-ups differ by more than the challenger taking seats of one strategy"
                    };
                    line.push_str(&format!(
                        " (side by side, not paired: {why}; the other strategies' paired differences above carry the comparison)"
                    ));
                }
            }
            out.push(line);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::{alike, figure};

    #[test]
    fn a_value_and_its_interval_share_their_decimals() {
        // A rare event: the value 0 and the lower end 0 are written with as
        // many decimals as the upper end needs to show it is not 0.
        assert_eq!(
            alike([0.0, 0.0, 0.000014], 4, false),
            ["0.000000", "0.000000", "0.000014"]
        );
        // Figures that need no more keep the decimals asked.
        assert_eq!(
            alike([0.5231, 0.5012, 0.545], 3, false),
            ["0.523", "0.501", "0.545"]
        );
        // A signed difference keeps its sign; an end that is not finite
        // (no interval) does not count.
        assert_eq!(
            alike([-0.00002, f64::NAN, f64::NAN], 2, true)[0],
            "-0.000020"
        );
        assert_eq!(alike([0.25, f64::NAN, f64::NAN], 2, true)[0], "+0.25");
        // A percentage: the same decimals on the value and both ends.
        let (v, ci) = figure("win_rate", 0.0, 0.0, 0.000014, false);
        assert_eq!((v.as_str(), ci.as_str()), ("0.0000%", "[0.0000, 0.0014]"));
        let (v, ci) = figure("win_rate", 0.2531, 0.2412, 0.2650, false);
        assert_eq!((v.as_str(), ci.as_str()), ("25.31%", "[24.12, 26.50]"));
        let (v, ci) = figure("win_rate", 0.01, -0.002, 0.022, true);
        assert_eq!((v.as_str(), ci.as_str()), ("+1.00 pp", "[-0.20, +2.20]"));
        let (v, ci) = figure("win_rate", 0.01, f64::NAN, f64::NAN, true);
        assert_eq!((v.as_str(), ci.as_str()), ("+1.00 pp", "-"));
    }
}
