//! The experiment's results in words: the short table `experiment run` and
//! `compare` print, and `report.md`.

use super::{
    arm_rows, comparison_rows, describe, tested, title, ArmRow, ComparisonRow, ExperimentReport,
};
use crate::report::Cell;
use crate::sim::lockstep::{precision_checks, Estimate, Stop, Untested};
use crate::sim::{Mode, Seating};
use std::fmt::Write as _;

/// `x` with `d` decimals, or, when that would show a value that is not 0
/// as 0 (the upper end of a rare event's interval: 0.0014%), with two
/// significant digits.
fn fixed(x: f64, d: usize, signed: bool) -> String {
    let small = x != 0.0 && x.is_finite() && x.abs() < 0.5 * 10f64.powi(-(d as i32));
    let d = if small {
        ((-x.abs().log10()).ceil() as usize + 1).min(12)
    } else {
        d
    };
    if signed {
        format!("{x:+.d$}")
    } else {
        format!("{x:.d$}")
    }
}

fn num(metric: &str, x: f64, signed: bool) -> String {
    let (_, pct) = describe(metric);
    match pct {
        true => format!(
            "{}{}",
            fixed(100.0 * x, 2, signed),
            if signed { " pp" } else { "%" }
        ),
        false => fixed(x, 3, signed),
    }
}

fn ci(metric: &str, lo: f64, hi: f64, signed: bool) -> String {
    let (_, pct) = describe(metric);
    let f = |x: f64| match pct {
        true => fixed(100.0 * x, 2, signed),
        false => fixed(x, 3, signed),
    };
    if lo.is_finite() {
        format!("[{}, {}]", f(lo), f(hi))
    } else {
        "-".into()
    }
}

/// A value with its 95% interval: `2.27% [2.08, 2.47]`.
fn valued(metric: &str, e: Option<Estimate>, x: f64) -> String {
    match e {
        Some(e) => format!(
            "{} {}",
            num(metric, e.value, false),
            ci(metric, e.lo, e.hi, false)
        ),
        None => num(metric, x, false),
    }
}

/// The p-value cell of a comparison: its p-value, or why it has none.
fn p_cell(r: &ComparisonRow, p: f64) -> String {
    match r.d.untested {
        Some(u) => u.label(),
        None => fmt_p(p),
    }
}

fn fmt_p(p: f64) -> String {
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
        if r.exp.origin == "command line" {
            // A compare: what A and B are, one line each.
            for line in self.arm_lines() {
                let _ = writeln!(o, "{line}");
            }
        }
        let fmt = |m: &str, x: f64| {
            if describe(m).1 {
                format!("{}%", fixed(100.0 * x, 3, false))
            } else {
                fixed(x, 4, false)
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
                    Cell(&a.arm),
                    Cell(&format!("{}:{}", a.metric, a.group)),
                    fmt(&a.metric, a.est.value),
                    fmt(&a.metric, a.est.lo),
                    fmt(&a.metric, a.est.hi)
                );
            }
        } else {
            let _ = writeln!(
                o,
                "{:<28} {:<34} {:<28} {:<28} {:>10}  {:<24} {:>9} {:>9}",
                "arm",
                "metric",
                "baseline [95% CI]",
                "arm [95% CI]",
                "diff",
                "95% CI",
                "p",
                "Holm p"
            );
            // Each side's value with its own interval (report.md's too).
            let valued = |m: &str, e: Option<Estimate>, x: f64| match e {
                Some(e) if e.lo.is_finite() => {
                    format!("{} [{}, {}]", fmt(m, e.value), fmt(m, e.lo), fmt(m, e.hi))
                }
                _ => fmt(m, x),
            };
            for c in comps.iter().filter(|c| c.metric != "position_win_rate") {
                let p = |x: f64| match c.d.untested {
                    _ if x.is_finite() => format!("{x:.4}"),
                    Some(Untested::Identical) => "identical".into(),
                    Some(Untested::SameInEveryDeal) => "same deals".into(),
                    Some(Untested::NoVariance) => "no var.".into(),
                    Some(Untested::SameAs(_)) => "same test".into(),
                    None => "-".into(),
                };
                let _ = writeln!(
                    o,
                    "{:<28} {:<34} {:<28} {:<28} {:>10}  {:<24} {:>9} {:>9}",
                    Cell(&c.arm),
                    Cell(&format!("{}:{}", c.metric, c.group)),
                    valued(&c.metric, c.base_est, c.base_value),
                    valued(&c.metric, c.arm_est, c.arm_value),
                    fmt(&c.metric, c.d.diff),
                    if c.d.lo.is_finite() {
                        format!("[{}, {}]", fmt(&c.metric, c.d.lo), fmt(&c.metric, c.d.hi))
                    } else {
                        "-".into()
                    },
                    p(c.d.p),
                    if c.p_holm.is_finite() {
                        format!("{:.4}", c.p_holm)
                    } else {
                        "-".into()
                    }
                );
            }
            let positions = comps
                .iter()
                .filter(|c| c.metric == "position_win_rate")
                .count();
            if positions > 0 {
                let detected = comps
                    .iter()
                    .filter(|c| c.metric == "position_win_rate" && c.p_holm < 0.05)
                    .count();
                let _ = writeln!(
                    o,
                    "({positions} comparisons of position_win_rate are not shown here, {detected} of them significant after Holm's adjustment; they are in comparisons.csv (--out) and --json, report.md words the significant ones, and they count in Holm's family when tested)"
                );
            }
            for line in self.challengers() {
                let _ = writeln!(o, "{line}");
            }
        }
        o
    }

    /// The precision rule asked for, in words: "±0.005", "±0.5 for
    /// points_per_round, ±0.005 for the others".
    fn precision_asked(&self) -> String {
        let r = &self.exp.run;
        let mut v: Vec<String> = r
            .precision_targets
            .iter()
            .map(|(m, x)| format!("±{x} for {m}"))
            .collect();
        if let Some(p) = r.precision {
            let which = if r.precision_metrics.is_empty() {
                String::new()
            } else {
                format!(" for {}", r.precision_metrics.join(", "))
            };
            if v.is_empty() {
                v.push(format!("±{p}{which}"));
            } else {
                v.push(format!("±{p}{which} otherwise"));
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
        Some(format!(
            "{} of {} intervals wider than asked at the limit of {} per arm; the widest, {}, is ±{:.4} (asked ±{})",
            wide.len(),
            checks.len(),
            r.max_clusters,
            worst.what,
            worst.half_width,
            worst.target
        ))
    }

    /// Each arm in one line: its label, rules, settings, house rules,
    /// players and line-up.
    fn arm_lines(&self) -> Vec<String> {
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

    /// For each arm whose line-up holds strategies its baseline's does not
    /// (a challenger), one sentence with the challenger's own round wins per
    /// seat held and those of the strategies it replaced, in the baseline,
    /// each with its 95% interval. These are not paired differences (the
    /// strategies differ), so they are given side by side.
    fn challengers(&self) -> Vec<String> {
        let Some(b) = self.exp.run.baseline else {
            return Vec::new();
        };
        let rows = arm_rows(self.state);
        let metric = if self.exp.mode() == Mode::Match {
            "match_win_rate"
        } else {
            "win_rate"
        };
        let rate = |arm: &str, name: &str| {
            rows.iter()
                .find(|r| r.arm == arm && r.metric == metric && r.group == name)
                .map(|r| {
                    format!(
                        "{} {}",
                        num(metric, r.est.value, false),
                        ci(metric, r.est.lo, r.est.hi, false)
                    )
                })
                .unwrap_or_else(|| "-".into())
        };
        let names = |i: usize| {
            let mut v: Vec<&str> = Vec::new();
            for s in &self.exp.run.arms[i].cfg.lineup {
                if !v.contains(&s.name()) {
                    v.push(s.name());
                }
            }
            v
        };
        let (base, base_names) = (&self.exp.run.arms[b].label, names(b));
        let mut out = Vec::new();
        for (i, a) in self.exp.run.arms.iter().enumerate() {
            if i == b {
                continue;
            }
            let mine = names(i);
            let new: Vec<&str> = mine
                .iter()
                .copied()
                .filter(|n| !base_names.contains(n))
                .collect();
            if new.is_empty() {
                continue;
            }
            let gone: Vec<&str> = base_names
                .iter()
                .copied()
                .filter(|n| !mine.contains(n))
                .collect();
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
            out.push(line);
        }
        out
    }

    /// `report.md`: the question, the set-up, the findings in words, the
    /// tables and the plots.
    pub fn markdown(&self, plot_names: &[String]) -> String {
        let e = self.exp;
        let st = self.state;
        let mut o = String::new();
        let _ = writeln!(o, "# {}\n", e.name);
        if !e.description.is_empty() {
            let _ = writeln!(o, "{}\n", e.description.trim());
        }
        let games = self.games_per_arm();
        let unit = if e.mode() == Mode::Match {
            "matches"
        } else {
            "rounds"
        };
        let played = if e.run.duplicate {
            format!(
                "{} deals per arm, each played once per seat rotation (duplicate): {} {unit} per arm",
                st.clusters,
                games
                    .iter()
                    .map(|g| g.to_string())
                    .collect::<Vec<_>>()
                    .join(" / ")
            )
        } else {
            format!("{} {unit} per arm", st.clusters)
        };
        let _ = writeln!(
            o,
            "**Set-up.** {} arms, {played}, seed {}, mode {}; every arm plays game *i* with the same seed (common random numbers), so differences are paired. {} Stopped by: {}{}.\n",
            e.run.arms.len(),
            e.run.seed,
            e.mode().name(),
            self.seating_sentence(),
            match self.stop {
                Stop::Limit => "the game limit",
                Stop::Precision => "the precision rule",
                Stop::Interrupted if self.shards.is_some() => "missing shards (PARTIAL results)",
                Stop::Interrupted => "an interruption (PARTIAL results)",
            },
            if e.run.has_precision_rule() {
                format!(
                    " (precision {}, limit {} per arm{})",
                    self.precision_asked(),
                    e.run.max_clusters,
                    match (self.stop, self.precision_missed()) {
                        (Stop::Limit, Some(m)) => format!("; the precision was NOT reached: {m}"),
                        _ => String::new(),
                    }
                )
            } else {
                String::new()
            },
        );
        let _ = writeln!(
            o,
            "| arm | rules | house rules | settings | players | line-up |"
        );
        let _ = writeln!(o, "| --- | --- | --- | --- | --- | --- |");
        for (i, (a, s)) in e.run.arms.iter().zip(&e.specs).enumerate() {
            let star = if e.run.baseline == Some(i) {
                " (baseline)"
            } else {
                ""
            };
            let _ = writeln!(
                o,
                "| {}{star} | {} | {} | {} | {} | {} |",
                a.label,
                a.cfg.rules.name,
                if s.house.is_empty() {
                    "-".into()
                } else {
                    s.house.join(", ")
                },
                if s.set.is_empty() {
                    "-".into()
                } else {
                    s.set.join(", ")
                },
                a.cfg.players,
                a.cfg
                    .lineup
                    .iter()
                    .map(|x| x.name())
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
        let comps = comparison_rows(st);
        let main_metric = |m: &str| m != "position_win_rate";
        if !comps.is_empty() {
            let _ = writeln!(o, "\n## What changes against the baseline\n");
            // Every tested difference counts here, the positions' too: the
            // words must not say "none detected" while the family holds one.
            let sig: Vec<&ComparisonRow> = comps.iter().filter(|r| r.p_holm < 0.05).collect();
            let m = tested(&comps);
            let untested = comps.len() - m;
            let family = format!(
                "Holm's adjustment over the {m} tested comparisons{}",
                if untested > 0 {
                    format!(
                        " (the other {untested} have no test: identical by construction, the same in every deal played, no variance, or the same test as another metric)"
                    )
                } else {
                    String::new()
                }
            );
            let others = comps
                .iter()
                .filter(|r| r.d.p.is_finite() && r.p_holm >= 0.05)
                .count();
            if sig.is_empty() {
                let _ = writeln!(o, "No difference was detected at this sample size: none is significant at the 5% level after {family}. A difference not detected is not shown to be absent: its interval in the table bounds how large it can be.\n");
            } else {
                let _ = writeln!(
                    o,
                    "Differences significant at the 5% level after {family}; arm minus baseline with its 95% interval, then each arm's value with its own:\n",
                );
                for r in sig {
                    let _ = writeln!(
                        o,
                        "- **{}**: {} {} {} (baseline {}; {} {}).",
                        r.arm,
                        title(&r.metric, &r.group),
                        num(&r.metric, r.d.diff, true),
                        ci(&r.metric, r.d.lo, r.d.hi, true),
                        valued(&r.metric, r.base_est, r.base_value),
                        r.arm,
                        valued(&r.metric, r.arm_est, r.arm_value),
                    );
                }
                let _ = writeln!(
                    o,
                    "\nThe other {others} tested differences were not detected at this sample size (after Holm's adjustment); their intervals in the table bound how large they can be.\n"
                );
            }
            let challengers = self.challengers();
            if !challengers.is_empty() {
                let _ = writeln!(o, "Each challenger's own results (a strategy the baseline does not have; side by side, not a paired difference):\n");
                for c in challengers {
                    let _ = writeln!(o, "- {c}.");
                }
                o.push('\n');
            }
            let _ = writeln!(
                o,
                "| arm | metric | baseline | arm | difference | 95% CI | p | Holm p |"
            );
            let _ = writeln!(o, "| --- | --- | ---: | ---: | ---: | --- | ---: | ---: |");
            for r in comps.iter().filter(|r| main_metric(&r.metric)) {
                let _ = writeln!(
                    o,
                    "| {} | {} | {} | {} | {} | {} | {} | {} |",
                    r.arm,
                    title(&r.metric, &r.group),
                    valued(&r.metric, r.base_est, r.base_value),
                    valued(&r.metric, r.arm_est, r.arm_value),
                    num(&r.metric, r.d.diff, true),
                    ci(&r.metric, r.d.lo, r.d.hi, true),
                    p_cell(r, r.d.p),
                    if r.d.untested.is_some() {
                        "-".into()
                    } else {
                        fmt_p(r.p_holm)
                    }
                );
            }
            let ratios: Vec<f64> = comps
                .iter()
                .filter(|r| r.d.se > 0.0 && r.d.se_unpaired > 0.0)
                .map(|r| r.d.se / r.d.se_unpaired)
                .collect();
            if !ratios.is_empty() {
                let mut s = ratios.clone();
                s.sort_by(f64::total_cmp);
                let _ = writeln!(
                    o,
                    "\nPairing: the paired interval is {:.2} times as wide as an unpaired one at the same games (median over {} comparisons; range {:.2} to {:.2}).",
                    s[s.len() / 2],
                    s.len(),
                    s[0],
                    s[s.len() - 1]
                );
            }
        }
        self.head_to_head(&mut o);
        let _ = writeln!(o, "\n## Every arm\n");
        let rows = arm_rows(st);
        let _ = writeln!(o, "| arm | metric | value | 95% CI |");
        let _ = writeln!(o, "| --- | --- | ---: | --- |");
        for r in rows.iter().filter(|r| main_metric(&r.metric)) {
            let _ = writeln!(
                o,
                "| {} | {} | {} | {} |",
                r.arm,
                title(&r.metric, &r.group),
                num(&r.metric, r.est.value, false),
                ci(&r.metric, r.est.lo, r.est.hi, false)
            );
        }
        if !plot_names.is_empty() {
            let _ = writeln!(o, "\n## Plots\n");
            for p in plot_names {
                let _ = writeln!(o, "![{p}]({p})\n");
            }
        }
        let _ = writeln!(
            o,
            "## How to read this\n\nWin rates are round wins per seat held (a strategy on two seats of a round has two chances). Intervals are 95% intervals from the delta method on per-{} sums, Student's t; differences are paired on the common seeds. Per-position shares and every number here are in `arms.csv` and `comparisons.csv`.\n",
            if e.run.duplicate { "deal" } else { "game" }
        );
        // The command as typed after the program's name (whatever path ran
        // it), so that a report depends on the command alone; the threads and
        // the time, which differ from machine to machine, are in
        // manifest.json.
        let args: Vec<&str> = self.command.iter().skip(1).map(String::as_str).collect();
        let _ = write!(o, "Produced by `unolab {}`", args.join(" "));
        match &self.shards {
            Some(s) => {
                let list = |k: &str| {
                    s[k].as_array()
                        .map(|a| a.iter().map(|x| x.to_string()).collect::<Vec<_>>())
                        .unwrap_or_default()
                };
                let (merged, missing) = (list("merged"), list("missing"));
                let _ = write!(
                    o,
                    " from {} of {} shards",
                    merged.len(),
                    merged.len() + missing.len()
                );
                if !missing.is_empty() {
                    let _ = write!(
                        o,
                        " (PARTIAL: shards {} missing or unfinished)",
                        missing.join(", ")
                    );
                }
                let _ = writeln!(o, ".");
            }
            None => {
                let _ = writeln!(o, ".");
            }
        }
        o
    }

    /// The seating of the arms in one sentence.
    fn seating_sentence(&self) -> String {
        let arms = &self.exp.run.arms;
        let what = |s: Seating| {
            match s {
            Seating::Mixed => "mixed: game *i* seats arrangement *i* of the line-up (every arrangement in turn, or a random one when there are more than 5,040), the same in every arm with the same line-up",
            Seating::Rotate => "rotate: game *i* seats the line-up rotated by *i* seats",
            Seating::Fixed => "fixed: the line-up as written in every game",
        }
        };
        let mut kinds: Vec<Seating> = Vec::new();
        for a in arms {
            if !kinds.contains(&a.cfg.seating) {
                kinds.push(a.cfg.seating);
            }
        }
        let dup = if self.exp.run.duplicate {
            "; each deal is played once per rotation of its seating"
        } else {
            ""
        };
        if let [one] = kinds[..] {
            return format!("Seating {}{dup}.", what(one));
        }
        let parts: Vec<String> = kinds
            .iter()
            .map(|&k| {
                let labels: Vec<&str> = arms
                    .iter()
                    .filter(|a| a.cfg.seating == k)
                    .map(|a| a.label.as_str())
                    .collect();
                format!("{} ({})", what(k), labels.join(", "))
            })
            .collect();
        format!("Seating {}{dup}.", parts.join("; "))
    }

    /// When every arm is a match-up of two strategies: a table of the row
    /// strategy's round wins per seat held against the column strategy.
    fn head_to_head(&self, o: &mut String) {
        let rows = arm_rows(self.state);
        let mut names: Vec<String> = Vec::new();
        let mut cells: Vec<(String, String, String)> = Vec::new();
        for a in &self.state.arms {
            let s: Vec<&ArmRow> = rows
                .iter()
                .filter(|r| r.arm == a.label && r.metric == "win_rate")
                .collect();
            if s.len() != 2 {
                return;
            }
            for (x, y) in [(s[0], s[1]), (s[1], s[0])] {
                for n in [&x.group, &y.group] {
                    if !names.contains(n) {
                        names.push(n.clone());
                    }
                }
                cells.push((
                    x.group.clone(),
                    y.group.clone(),
                    format!(
                        "{:.1}% [{:.1}, {:.1}]",
                        100.0 * x.est.value,
                        100.0 * x.est.lo,
                        100.0 * x.est.hi
                    ),
                ));
            }
        }
        if names.len() < 2 {
            return;
        }
        let _ = writeln!(
            o,
            "\n## Head to head\n\nRound wins per seat held of the row strategy against the column strategy, with its 95% interval. Above 50% the row strategy won more rounds than the column strategy; an interval that holds 50% is a difference not detected at this sample size, not an even match:\n"
        );
        let _ = writeln!(o, "| | {} |", names.join(" | "));
        let _ = writeln!(o, "| --- |{}", " --- |".repeat(names.len()));
        for r in &names {
            let line: Vec<String> = names
                .iter()
                .map(|c| {
                    cells
                        .iter()
                        .find(|(a, b, _)| a == r && b == c)
                        .map(|x| x.2.clone())
                        .unwrap_or_else(|| "-".into())
                })
                .collect();
            let _ = writeln!(o, "| **{r}** | {} |", line.join(" | "));
        }
    }
}
