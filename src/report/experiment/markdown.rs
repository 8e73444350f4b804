//! The experiment's `report.md`: the setup, the arms and the comparisons
//! in words and tables, the plots, and how the games were seated.

use super::text::{figure, fmt_p, p_cell, valued};
use super::{arm_rows, comparison_rows, tested, title, ArmRow, ComparisonRow, ExperimentReport};
use crate::report::text::code_span;
use crate::sim::lockstep::{Estimate, Stop, Untested};
use crate::sim::{Mode, Seating};
use std::fmt::Write as _;

/// A difference as what changes lists it: the arm, the metric, arm minus
/// baseline with its 95% interval, then each arm's value with its own.
fn change(r: &ComparisonRow) -> String {
    let (diff, ci) = figure(&r.metric, r.d.diff, r.d.lo, r.d.hi, true);
    format!(
        "- **{}**: {} {diff} {ci} (baseline {}; {} {}).",
        r.arm,
        title(&r.metric, &r.group),
        valued(&r.metric, r.base_est, r.base_value),
        r.arm,
        valued(&r.metric, r.arm_est, r.arm_value),
    )
}

impl ExperimentReport<'_> {
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
                Stop::Limit => "the game limit".to_string(),
                Stop::Precision => "the precision rule".to_string(),
                Stop::Interrupted => match &self.shards {
                    // A merge: the shards it lacked, or had unfinished.
                    Some(sh) => {
                        let list = |k: &str| {
                            sh[k].as_array().filter(|v| !v.is_empty()).map(|v| {
                                v.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(", ")
                            })
                        };
                        let why: Vec<String> = [
                            list("missing").map(|l| format!("missing shards ({l})")),
                            list("unfinished").map(|l| format!("unfinished shards ({l})")),
                        ]
                        .into_iter()
                        .flatten()
                        .collect();
                        if why.is_empty() {
                            "an interruption (PARTIAL results)".to_string()
                        } else {
                            format!("{} (PARTIAL results)", why.join(" and "))
                        }
                    }
                    None => "an interruption (PARTIAL results)".to_string(),
                },
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
                        " (the other {untested} have no test: identical by construction, the same in every deal played, no variance, constant in each arm, or the same test as another row)"
                    )
                } else {
                    String::new()
                }
            );
            let not_detected: Vec<&ComparisonRow> = comps
                .iter()
                .filter(|r| r.d.p.is_finite() && r.p_holm >= 0.05)
                .collect();
            let others = not_detected.len();
            // The table's intervals are each comparison's own (not adjusted
            // for the family), so a row not detected after Holm's adjustment
            // may still have an interval that excludes 0: say so, and how
            // many, rather than let the words and the table disagree.
            let alone = not_detected
                .iter()
                .filter(|r| r.d.lo > 0.0 || r.d.hi < 0.0)
                .count();
            let unadjusted = if alone > 0 {
                let who = match (others, alone) {
                    (1, _) => "It has".to_string(),
                    (_, 1) => "1 of them has".to_string(),
                    _ => format!("{alone} of them have"),
                };
                format!(" {who} an interval that excludes 0: significant taken alone, not after the adjustment for the {m} comparisons.")
            } else {
                String::new()
            };
            let bounds = "The table's 95% intervals are each comparison's own, not adjusted for the family: where the table gives one, it bounds how large a difference not detected can be, for that comparison taken alone.";
            if sig.is_empty() {
                let _ = writeln!(o, "No difference was detected at this sample size: none is significant at the 5% level after {family}. A difference not detected is not shown to be absent.{unadjusted} {bounds}\n");
            } else {
                let _ = writeln!(
                    o,
                    "Differences significant at the 5% level after {family}; arm minus baseline with its 95% interval, then each arm's value with its own:\n",
                );
                for r in sig {
                    let _ = writeln!(o, "{}", change(r));
                }
                let rest = match others {
                    0 => String::new(),
                    1 => format!("The other tested difference was not detected at this sample size (after Holm's adjustment).{unadjusted} "),
                    _ => format!("The other {others} tested differences were not detected at this sample size (after Holm's adjustment).{unadjusted} "),
                };
                let _ = writeln!(o, "\n{rest}{bounds}\n");
            }
            for line in super::unchanged_arms(&comps) {
                let _ = writeln!(o, "Note: {line}.\n");
            }
            // A difference seen in every deal (each arm's value constant, the
            // two apart) has no test, but it is no less a change: listed,
            // with the interval put together from each arm's own.
            let constant: Vec<&ComparisonRow> = comps
                .iter()
                .filter(|r| {
                    r.d.untested == Some(Untested::Constant) && (r.d.lo > 0.0 || r.d.hi < 0.0)
                })
                .collect();
            if !constant.is_empty() {
                let _ = writeln!(
                    o,
                    "Differences seen in every deal played (each arm's value never varied, and the two differ): not tested, as they have no variance, and their 95% interval is put together from each arm's own (Newcombe's square-and-add); arm minus baseline, then each arm's value:\n",
                );
                for r in constant {
                    let _ = writeln!(o, "{}", change(r));
                }
                o.push('\n');
            }
            let challengers = self.challengers();
            if !challengers.is_empty() {
                let _ = writeln!(o, "Each challenger (a strategy the baseline does not have): its own results beside those of the strategy it replaces, and, where every seat it takes held that one strategy in the baseline, its paired gain per seat, deal by deal (the table's row `challenger vs replaced`; in Holm's family unless it is the other strategy's row's test):\n");
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
                let (diff, ci) = figure(&r.metric, r.d.diff, r.d.lo, r.d.hi, true);
                let _ = writeln!(
                    o,
                    "| {} | {} | {} | {} | {} | {} | {} | {} |",
                    r.arm,
                    title(&r.metric, &r.group),
                    valued(&r.metric, r.base_est, r.base_value),
                    valued(&r.metric, r.arm_est, r.arm_value),
                    diff,
                    ci,
                    p_cell(r, r.d.p),
                    if r.d.untested.is_some() {
                        "-".into()
                    } else {
                        fmt_p(r.p_holm)
                    }
                );
            }
            // Over the tested comparisons: a row that is the same test as
            // another's would count that test twice. The widths: the paired
            // interval's t has the differing clusters' degrees of freedom,
            // an unpaired one would have every cluster's.
            let t_all = crate::sim::stats::t95(self.state.clusters.saturating_sub(1));
            let ratios: Vec<f64> = comps
                .iter()
                .filter(|r| r.d.p.is_finite() && r.d.se > 0.0 && r.d.se_unpaired > 0.0)
                .map(|r| crate::sim::stats::t95(r.d.df) * r.d.se / (t_all * r.d.se_unpaired))
                .collect();
            if !ratios.is_empty() {
                let mut s = ratios.clone();
                s.sort_by(f64::total_cmp);
                let _ = writeln!(
                    o,
                    "\nPairing: the paired interval is {:.2} times as wide as an unpaired one at the same games (median over the {} tested comparisons; range {:.2} to {:.2}).",
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
            let (value, ci) = figure(&r.metric, r.est.value, r.est.lo, r.est.hi, false);
            let _ = writeln!(
                o,
                "| {} | {} | {} | {} |",
                r.arm,
                title(&r.metric, &r.group),
                value,
                ci
            );
        }
        for (arm, names) in super::undefined_metrics(st) {
            let _ = writeln!(
                o,
                "\n{arm}: not shown, as undefined (no round was won, and these are shares of won rounds): {}.",
                names.join(", ")
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
        let typed = |c: &Vec<String>| {
            let args: Vec<&str> = c.iter().skip(1).map(String::as_str).collect();
            match c.first().map(String::as_str) {
                // The Python package's call (`unolab.compare(...)`).
                Some("python") => format!("{} in Python", code_span(&args.join(" "))),
                _ => code_span(&format!("unolab {}", args.join(" "))),
            }
        };
        let mut commands = self.commands.iter().map(typed);
        let first = commands.next().unwrap_or_default();
        let _ = write!(o, "Produced by {first}");
        // A run continued with --resume: the commands that continued it,
        // after the one that set it up (a bare --resume repeats none of its
        // options).
        let continued: Vec<String> = commands.collect();
        if !continued.is_empty() {
            let _ = write!(o, ", continued by {}", continued.join(", then "));
        }
        match &self.shards {
            Some(s) => {
                let list = |k: &str| {
                    s[k].as_array()
                        .map(|a| a.iter().map(|x| x.to_string()).collect::<Vec<_>>())
                        .unwrap_or_default()
                };
                let (merged, unfinished, missing) =
                    (list("merged"), list("unfinished"), list("missing"));
                let _ = write!(
                    o,
                    " from {} of {} shards",
                    merged.len(),
                    merged.len() + unfinished.len() + missing.len()
                );
                if !unfinished.is_empty() || !missing.is_empty() {
                    let mut what = Vec::new();
                    if !unfinished.is_empty() {
                        what.push(format!(
                            "shards {} unfinished, their finished games included",
                            unfinished.join(", ")
                        ));
                    }
                    if !missing.is_empty() {
                        what.push(format!("shards {} missing", missing.join(", ")));
                    }
                    let _ = write!(o, " (PARTIAL: {})", what.join("; "));
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

    /// What stopped a partial run: for a merge, the shards it lacked
    /// ("missing shards") or had unfinished ("unfinished shards"), else an
    /// interruption.
    pub(super) fn merge_stop(&self) -> &'static str {
        let listed = |k: &str| {
            self.shards
                .as_ref()
                .and_then(|s| s[k].as_array())
                .is_some_and(|v| !v.is_empty())
        };
        if listed("missing") {
            "missing shards"
        } else if listed("unfinished") {
            "unfinished shards"
        } else {
            "interrupted"
        }
    }

    /// When every arm is a match-up of two strategies (arms of one
    /// strategy, self-play, left out) and no pair is met in two arms: a
    /// table of the row strategy's round wins per seat held against the
    /// column strategy.
    fn head_to_head(&self, o: &mut String) {
        let rows = arm_rows(self.state);
        let mut names: Vec<String> = Vec::new();
        let mut cells: Vec<(String, String, Estimate)> = Vec::new();
        let mut players: Vec<usize> = Vec::new();
        let mut all_won = true;
        for a in &self.state.arms {
            let s: Vec<&ArmRow> = rows
                .iter()
                .filter(|r| r.arm == a.label && r.metric == "win_rate")
                .collect();
            match s.len() {
                1 => continue,
                2 => {}
                _ => return,
            }
            // One cell per pair: a pair met in two arms (another seating,
            // other rules) has no one figure to show.
            if cells.iter().any(|(x, y, _)| {
                x == &s[0].group && y == &s[1].group || x == &s[1].group && y == &s[0].group
            }) {
                return;
            }
            players.push(a.stats.players);
            all_won &= a.stats.blocked == 0 && a.stats.truncated == 0;
            for (x, y) in [(s[0], s[1]), (s[1], s[0])] {
                for n in [&x.group, &y.group] {
                    if !names.contains(n) {
                        names.push(n.clone());
                    }
                }
                cells.push((x.group.clone(), y.group.clone(), x.est));
            }
        }
        if names.len() < 2 {
            return;
        }
        players.sort_unstable();
        players.dedup();
        // Against the fair share of a seat, 1/P: when every round has a
        // winner, a strategy above it won more rounds per seat held than the
        // other (s_a r_a + s_b r_b = 1 with s_a + s_b = P seats: r_a > 1/P
        // exactly when r_a > r_b). With rounds without a winner, or arms of
        // other table sizes, no one share is the line between them.
        let fair = match players[..] {
            [p] if all_won => Some(100.0 / p as f64),
            _ => None,
        };
        let pairs = cells.len() / 2;
        let reading = match fair {
            Some(f) => {
                let f = if f.fract() == 0.0 { format!("{f:.0}%") } else { format!("{f:.1}%") };
                let (share, rounds) = if players[0] == 2 {
                    (String::new(), "rounds")
                } else {
                    (
                        format!(" (the fair share of a seat at {} players)", players[0]),
                        "rounds per seat held",
                    )
                };
                format!(
                    "Above {f}{share} the row strategy won more {rounds} than the column strategy; an interval that holds {f} is a difference not detected at this sample size, not an even match"
                )
            }
            None if players.len() > 1 => "The arms seat different numbers of players, so no one share divides winning from losing: compare a cell with its mirror (the column strategy's against the row strategy)".to_string(),
            None => "Some rounds had no winner (blocked or truncated), so a cell is not read against the fair share of a seat: compare a cell with its mirror (the column strategy's against the row strategy)".to_string(),
        };
        let _ = writeln!(
            o,
            "\n## Head to head\n\nRound wins per seat held of the row strategy against the column strategy, with its 95% interval (each pair's own, not adjusted for the {pairs} pair{}). {reading}:\n",
            if pairs == 1 { "" } else { "s" }
        );
        // One decimal, or two where one would put an end of an interval
        // that excludes the fair share on it (it would look as if it held
        // it).
        let text = |e: &Estimate| {
            let (lo, hi) = (100.0 * e.lo, 100.0 * e.hi);
            let d = match fair {
                Some(f) => {
                    let blurred = |x: f64| format!("{x:.1}") == format!("{f:.1}") && x != f;
                    let excludes = lo > f || hi < f;
                    if excludes && (blurred(lo) || blurred(hi)) {
                        2
                    } else {
                        1
                    }
                }
                None => 1,
            };
            format!("{:.1}% [{lo:.d$}, {hi:.d$}]", 100.0 * e.value)
        };
        let _ = writeln!(o, "| | {} |", names.join(" | "));
        let _ = writeln!(o, "| --- |{}", " --- |".repeat(names.len()));
        for r in &names {
            let line: Vec<String> = names
                .iter()
                .map(|c| {
                    cells
                        .iter()
                        .find(|(a, b, _)| a == r && b == c)
                        .map(|x| text(&x.2))
                        .unwrap_or_else(|| "-".into())
                })
                .collect();
            let _ = writeln!(o, "| **{r}** | {} |", line.join(" | "));
        }
    }
}
