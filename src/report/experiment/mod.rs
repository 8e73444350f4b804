//! The results of an experiment (or a `compare`): per-arm estimates, paired
//! comparisons with Holm-adjusted p-values, distributions, the manifest, a
//! Markdown report and SVG plots, and the saved state `--resume` reads.
//! Everything is returned as text; nothing prints. This file owns the rows, the CSV and
//! JSON files, the plots and the state file; `text` the summary table and `report.md`.

use super::plots::{self, Panel, Row};
use super::write_files_atomically;
use crate::engine::rules::Scoring;
use crate::lab::Experiment;
use crate::sim::lockstep::{
    games_of, holm, interval_without_variance, is_share, pair_group, paired_difference, ArmState,
    Difference, Estimate, LockstepState, Stop, Untested,
};
use crate::sim::stats::Histogram;
use crate::sim::Mode;
use serde_json::{json, Value};
use std::path::Path;

mod markdown;
mod state;
mod text;

pub use state::{
    commands_so_far, keep_saved_options, load_state, parse_state, refuse_saved, results_lost,
    resume_differences, resume_state, save_state, state_path, StateSaver,
};

/// One metric of one arm.
#[derive(Clone, Debug)]
pub struct ArmRow {
    pub arm: String,
    pub metric: String,
    pub group: String,
    pub est: Estimate,
}

/// One metric of one arm against the baseline.
#[derive(Clone, Debug)]
pub struct ComparisonRow {
    pub arm: String,
    pub baseline: String,
    pub metric: String,
    pub group: String,
    pub arm_value: f64,
    pub base_value: f64,
    /// Each arm's value with its 95% interval.
    pub arm_est: Option<Estimate>,
    pub base_est: Option<Estimate>,
    pub d: Difference,
    /// Holm-adjusted p-value over the tested comparisons of the experiment
    /// (NaN for a comparison without a test, `d.untested`).
    pub p_holm: f64,
}

/// Every arm metric that has data.
pub fn arm_rows(st: &LockstepState) -> Vec<ArmRow> {
    let mut v = Vec::new();
    for a in &st.arms {
        for (i, m) in a.metrics.iter().enumerate() {
            // Within its metric's bounds already (`metric_estimate`), as the
            // precision rule sees it.
            if let Some(est) = a.estimate(i, st.clusters) {
                v.push(ArmRow {
                    arm: a.label.clone(),
                    metric: m.key.name.clone(),
                    group: m.key.group.clone(),
                    est,
                });
            }
        }
    }
    v
}

/// For each arm with metrics left undefined (a share of won rounds where no
/// round was won: its denominator is 0), the arm's label and those metrics
/// (`metric:group`), which no table, file or plot shows: the reports say
/// so in words instead.
pub fn undefined_metrics(st: &LockstepState) -> Vec<(String, Vec<String>)> {
    st.arms
        .iter()
        .filter_map(|a| {
            let names: Vec<String> = a
                .metrics
                .iter()
                .filter(|m| {
                    m.sums.x == 0
                        && matches!(
                            m.key.name.as_str(),
                            "first_mover_win_rate" | "first_mover_advantage" | "position_win_rate"
                        )
                })
                .map(|m| format!("{}:{}", m.key.name, m.key.group))
                .collect();
            (!names.is_empty()).then(|| (a.label.clone(), names))
        })
        .collect()
}

/// The metric whose test a comparison of `metric` (`group`) is, when it is
/// another's: when both tables seat as many players, the first mover's
/// share of won rounds and position +0 (the same share), and with two
/// players position +1 (its complement), are tested as
/// `first_mover_advantage` (the share minus 1/players: the same difference,
/// so the same test). When the tables seat different numbers of players the
/// share and the advantage are different questions (2 players against 4:
/// the shares differ by about 25 points, the advantages may not differ at
/// all): the share is tested on its own, and position +0, the same sums, is
/// its test.
fn same_test_as(metric: &str, group: &str, players: (usize, usize)) -> Option<&'static str> {
    if players.0 != players.1 {
        return (metric, group)
            .eq(&("position_win_rate", "+0"))
            .then_some("first_mover_win_rate");
    }
    let tested = "first_mover_advantage";
    match (metric, group) {
        ("first_mover_win_rate", _) | ("position_win_rate", "+0") => Some(tested),
        ("position_win_rate", "+1") if players == (2, 2) => Some(tested),
        _ => None,
    }
}

/// Whether the row of challenger `c` (in `arm`) against `r` (in `base`)
/// is the same test as the other strategy's row ([`Untested::SameAsOther`]):
/// every seat but the challenger's held by one strategy `o` in the arm, and
/// by `o` or `r` in the baseline, and no round blocked or truncated in
/// either (for match wins, no match without a winner either). A round's
/// wins then add up to one, and `o`'s difference carries the test, as it
/// did before the challenger had a row.
fn same_test_as_other<'a>(
    arm: &'a ArmState,
    base: &'a ArmState,
    metric: &str,
    c: &str,
    r: &str,
) -> bool {
    let others = |a: &'a ArmState, own: &str| -> Vec<&'a str> {
        a.stats
            .strategies
            .iter()
            .filter(|s| s.name != own)
            .map(|s| s.name.as_str())
            .collect()
    };
    let (oa, ob) = (others(arm, c), others(base, r));
    oa.len() == 1
        && ob.len() <= 1
        && ob.iter().all(|o| *o == oa[0])
        && all_won(&arm.stats, metric)
        && all_won(&base.stats, metric)
}

/// Whether every round (for match wins, every match) of `s` has a winner:
/// none blocked or truncated, and for `match_win_rate` none tied, without a
/// winner or capped without one.
fn all_won(s: &crate::sim::runner::RunStats, metric: &str) -> bool {
    s.blocked == 0
        && s.truncated == 0
        && (metric == "win_rate"
            || (s.tied_matches == 0 && s.no_winner_matches == 0 && s.capped_without_winner == 0))
}

/// Whether the row of `group` is the mirror of the other strategy's, the
/// same test ([`Untested::SameAsOther`]): both arms seat the same two
/// strategies, each on as many seats in both, and every round (match) of
/// both has a winner. One's wins are then the round's (match's) others, its
/// share an affine function of the other's, cluster by cluster; the row of
/// the first strategy of the arm's line-up carries the test, tested once.
fn mirror_of_first(arm: &ArmState, base: &ArmState, metric: &str, group: &str) -> bool {
    fn two(a: &ArmState) -> Vec<(&str, usize)> {
        let mut v: Vec<(&str, usize)> = a
            .stats
            .strategies
            .iter()
            .map(|s| (s.name.as_str(), s.seats))
            .collect();
        v.sort_unstable();
        v
    }
    let held = two(arm);
    matches!(metric, "win_rate" | "match_win_rate")
        && held.len() == 2
        && held == two(base)
        && arm.stats.strategies[0].name != group
        && all_won(&arm.stats, metric)
        && all_won(&base.stats, metric)
}

/// Whether the metric is, in arm `a`, an identity of the table: the round
/// (match) wins per seat held of a strategy that holds every seat.
fn identity(a: &ArmState, metric: &str, group: &str) -> bool {
    matches!(metric, "win_rate" | "match_win_rate")
        && a.stats
            .strategies
            .iter()
            .any(|s| s.name == group && s.seats == a.stats.players)
}

/// Every comparison with data; those with a test Holm-adjusted together.
/// A comparison without a test (no variance, identical by construction, or
/// the same test as another metric's) has no p-value and is not counted.
pub fn comparison_rows(st: &LockstepState) -> Vec<ComparisonRow> {
    let mut v = Vec::new();
    for c in &st.comparisons {
        let (arm, base) = (&st.arms[c.arm], &st.arms[c.baseline]);
        for p in &c.pairs {
            let (ma, mb) = (&arm.metrics[p.arm_metric], &base.metrics[p.base_metric]);
            if let Some(mut d) = paired_difference(&ma.sums, &mb.sums, &p.sums, st.clusters) {
                let metric = &ma.key.name;
                let group = &pair_group(&ma.key, &mb.key);
                let players = (arm.stats.players, base.stats.players);
                if c.same_config && d.untested == Some(Untested::SameInEveryDeal) {
                    d.untested = Some(Untested::Identical);
                    (d.lo, d.hi) = (0.0, 0.0);
                }
                if matches!(
                    d.untested,
                    Some(Untested::NoVariance | Untested::SameInEveryDeal)
                ) && d.diff == 0.0
                    && identity(arm, metric, group)
                    && identity(base, metric, group)
                {
                    d.untested = Some(Untested::Identical);
                    (d.lo, d.hi) = (0.0, 0.0);
                }
                let arm_est = arm.estimate(p.arm_metric, st.clusters);
                let base_est = base.estimate(p.base_metric, st.clusters);
                // (Not the only strategy's win rate at tables of different
                // sizes, 1/players each: no finding; at one size, rounds won.)
                if !(identity(arm, metric, group) && identity(base, metric, group))
                    || players.0 == players.1
                {
                    interval_without_variance(&mut d, arm_est, base_est);
                }
                // A difference of two shares lies in [-1, 1] (a few deals
                // give a normal interval past that).
                // No interval (NaN: untested) stays none: f64::max would
                // turn it into [-1, 1].
                if (is_share(metric) || metric == "first_mover_advantage") && d.lo.is_finite() {
                    (d.lo, d.hi) = (d.lo.max(-1.0), d.hi.min(1.0));
                }
                if d.untested.is_none() {
                    if let Some(m) = same_test_as(metric, group, players) {
                        d.untested = Some(Untested::SameAs(m));
                        d.p = f64::NAN;
                    } else if (ma.key.group != mb.key.group
                        && same_test_as_other(arm, base, metric, &ma.key.group, &mb.key.group))
                        || (ma.key.group == mb.key.group
                            && mirror_of_first(arm, base, metric, &ma.key.group))
                    {
                        d.untested = Some(Untested::SameAsOther);
                        d.p = f64::NAN;
                    }
                }
                v.push(ComparisonRow {
                    arm: arm.label.clone(),
                    baseline: base.label.clone(),
                    metric: metric.clone(),
                    group: group.clone(),
                    arm_value: d.diff + mb.sums.y as f64 / mb.sums.x as f64,
                    base_value: mb.sums.y as f64 / mb.sums.x as f64,
                    arm_est,
                    base_est,
                    d,
                    p_holm: f64::NAN,
                });
            }
        }
    }
    let adj = holm(&v.iter().map(|r| r.d.p).collect::<Vec<_>>());
    for (r, a) in v.iter_mut().zip(adj) {
        r.p_holm = a;
    }
    v
}

/// The number of comparisons with a test (the size of Holm's family).
pub fn tested(rows: &[ComparisonRow]) -> usize {
    rows.iter().filter(|r| r.d.p.is_finite()).count()
}

/// The arms that gave their baseline's figures in every deal played, metric
/// by metric (each row the same in every deal, identical, or another row's
/// test), and the sentence that says so: their change never came into play
/// (a setting of a card the deck does not hold, of another table size),
/// so no difference can be seen. A compare of such a B passed in silence.
pub fn unchanged_arms(rows: &[ComparisonRow]) -> Vec<String> {
    let mut pairs: Vec<(&str, &str)> = Vec::new();
    for r in rows {
        if !pairs.contains(&(&r.arm, &r.baseline)) {
            pairs.push((&r.arm, &r.baseline));
        }
    }
    pairs
        .into_iter()
        .filter(|(a, b)| {
            let mine = || rows.iter().filter(|r| r.arm == *a && r.baseline == *b);
            mine().any(|r| r.d.untested == Some(Untested::SameInEveryDeal))
                && mine().all(|r| match r.d.untested {
                    Some(Untested::NoVariance) => r.d.diff == 0.0,
                    Some(
                        Untested::SameInEveryDeal
                        | Untested::Identical
                        | Untested::SameAs(_)
                        | Untested::SameAsOther,
                    ) => true,
                    _ => false,
                })
        })
        .map(|(a, b)| format!("{a} gave {b}'s figures in every deal played: its change never came into play in these games (a setting of a card the deck does not hold, or of another table size, or an event no game reached), so no difference can be seen"))
        .collect()
}

fn f6(x: f64) -> String {
    if x.is_finite() {
        format!("{x:.6}")
    } else {
        String::new()
    }
}

fn fp(p: f64) -> String {
    if !p.is_finite() {
        String::new()
    } else if p == 0.0 {
        "0".into()
    } else if p < 0.01 {
        format!("{p:.4e}") // five significant digits: Holm can be worked again
    } else {
        format!("{p:.6}")
    }
}

fn csv_text(rows: Vec<Vec<String>>) -> Result<String, String> {
    let mut w = csv::Writer::from_writer(Vec::new());
    for r in rows {
        w.write_record(&r).map_err(|e| e.to_string())?;
    }
    let b = w.into_inner().map_err(|e| e.to_string())?;
    Ok(String::from_utf8_lossy(&b).into_owned())
}

/// A readable name and whether the metric is a share (printed as percent).
pub fn describe(metric: &str) -> (&'static str, bool) {
    match metric {
        "turns_per_round" => ("turns per round", false),
        "cards_drawn_per_round" => ("cards drawn per round", false),
        "points_per_round" => ("points per round", false),
        "blocked_rate" => ("blocked rounds", true),
        "truncated_rate" => ("truncated rounds", true),
        "uno_penalties_per_round" => ("UNO penalties per round", false),
        "first_mover_win_rate" => ("first mover's share of won rounds", true),
        "rounds_per_match" => ("rounds per match", false),
        "first_mover_advantage" => ("first mover's share above the fair 1/players", true),
        "win_rate" => ("round wins per seat held", true),
        "match_win_rate" => ("match wins per seat held", true),
        "position_win_rate" => (
            "share of won rounds by position after the first mover",
            true,
        ),
        _ => ("", false),
    }
}

fn title(metric: &str, group: &str) -> String {
    let (d, _) = describe(metric);
    if group == "all" {
        d.to_string()
    } else {
        format!("{d}: {group}")
    }
}

/// An experiment's results with what is needed to write them.
pub struct ExperimentReport<'a> {
    pub exp: &'a Experiment,
    pub state: &'a LockstepState,
    pub stop: Stop,
    pub threads: usize,
    pub elapsed_s: f64,
    /// Start time (UTC, RFC 3339).
    pub started: String,
    /// The commands that played the run: the first started it, the others
    /// continued it with `--resume` (`commands_so_far`).
    pub commands: Vec<Vec<String>>,
    /// Git commit of the build when known.
    pub commit: Option<String>,
    /// For a merge of shards: which shards were merged and which are missing
    /// (the manifest's `shards` entry).
    pub shards: Option<Value>,
}

impl ExperimentReport<'_> {
    pub fn partial(&self) -> bool {
        self.stop == Stop::Interrupted
    }

    fn games_per_arm(&self) -> Vec<u64> {
        self.exp
            .run
            .arms
            .iter()
            .map(|a| games_of(&a.cfg, self.state.clusters, self.exp.run.duplicate))
            .collect()
    }

    /// `arms.csv`: arm, metric, group, value, 95% interval, n (denominator), clusters.
    pub fn arms_csv(&self) -> Result<String, String> {
        let mut rows = vec![[
            "arm",
            "metric",
            "group",
            "value",
            "ci95_low",
            "ci95_high",
            "n",
            "clusters",
        ]
        .map(String::from)
        .to_vec()];
        for r in arm_rows(self.state) {
            rows.push(vec![
                r.arm,
                r.metric,
                r.group,
                f6(r.est.value),
                f6(r.est.lo),
                f6(r.est.hi),
                r.est.n.to_string(),
                self.state.clusters.to_string(),
            ]);
        }
        csv_text(rows)
    }

    /// `comparisons.csv`: each arm against the baseline per metric.
    pub fn comparisons_csv(&self) -> Result<String, String> {
        let mut rows = vec![[
            "arm",
            "baseline",
            "metric",
            "group",
            "arm_value",
            "baseline_value",
            "difference",
            "ci95_low",
            "ci95_high",
            "p_value",
            "p_holm",
            "se_paired",
            "se_unpaired",
            "clusters",
            "test",
        ]
        .map(String::from)
        .to_vec()];
        for r in comparison_rows(self.state) {
            rows.push(vec![
                r.arm,
                r.baseline,
                r.metric,
                r.group,
                f6(r.arm_value),
                f6(r.base_value),
                f6(r.d.diff),
                f6(r.d.lo),
                f6(r.d.hi),
                fp(r.d.p),
                fp(r.p_holm),
                f6(r.d.se),
                f6(r.d.se_unpaired),
                self.state.clusters.to_string(),
                r.d.untested.map_or("tested".into(), |u| u.label()),
            ]);
        }
        csv_text(rows)
    }

    /// `distributions.csv`: arm, distribution, group, value, count.
    pub fn distributions_csv(&self) -> Result<String, String> {
        let mut rows = vec![["arm", "distribution", "group", "value", "count"]
            .map(String::from)
            .to_vec()];
        for (i, a) in self.state.arms.iter().enumerate() {
            let st = &a.stats;
            let penalty = self.exp.run.arms[i].cfg.rules.settings.scoring == Scoring::Penalty;
            let mut put = |name: &str, group: &str, h: &Histogram| {
                // Every value seen, large ones too (exact above the
                // histogram's unit bins).
                for (v, c) in h.bins() {
                    rows.push(vec![
                        a.label.clone(),
                        name.into(),
                        group.into(),
                        v.to_string(),
                        c.to_string(),
                    ]);
                }
            };
            put("turns_per_round", "all", &st.turns);
            put("cards_drawn_per_round", "all", &st.cards_drawn);
            put(
                "uno_penalties_per_round",
                "all",
                &st.uno_penalties_per_round,
            );
            // One points distribution per arm (all strategies together) keeps
            // the file small.
            let mut points = st.strategies[0].round_points.clone();
            for s in &st.strategies[1..] {
                points.merge(&s.round_points);
            }
            // Under penalty scoring every seat of a round scores the cards
            // it holds: the name says which (as run's summary.csv does).
            let kind = if penalty {
                "penalty_points_per_seat_per_round"
            } else {
                "points_per_round_won"
            };
            put(kind, "all", &points);
            if self.exp.mode() == Mode::Match {
                put("rounds_per_match", "all", &st.rounds_per_match);
            }
        }
        csv_text(rows)
    }

    /// `manifest.json`: the experiment as resolved.
    pub fn manifest(&self) -> Value {
        let e = self.exp;
        let games = self.games_per_arm();
        let arms: Vec<Value> = e
            .run
            .arms
            .iter()
            .zip(&e.specs)
            .zip(&games)
            .map(|((a, s), g)| {
                json!({
                    "label": a.label,
                    "rules": a.cfg.rules.name,
                    "set": s.set,
                    "house": s.house,
                    "rule_set": serde_json::to_value(&a.cfg.rules.file).unwrap_or(Value::Null),
                    "players": a.cfg.players,
                    "lineup": a.cfg.lineup.iter().map(|x| x.to_json()).collect::<Vec<_>>(),
                    "seating": a.cfg.seating.name(),
                    "fixed_seats": a.cfg.seating == crate::sim::Seating::Fixed,
                    "games": g,
                })
            })
            .collect();
        let mut m = json!({
            "experiment": e.name,
            "description": e.description,
            "file": e.origin,
            "version": env!("CARGO_PKG_VERSION"),
            "git_commit": self.commit,
            "command": self.commands.first(),
            "continued_by": self.commands.get(1..).unwrap_or_default(),
            "started": self.started,
            "elapsed_s": (self.elapsed_s * 1000.0).round() / 1000.0,
            "threads": self.threads,
            "seed": e.run.seed,
            "mode": e.mode().name(),
            "duplicate": e.run.duplicate,
            "clusters": self.state.clusters,
            "clusters_are": if e.run.duplicate { "deals, each played once per seat rotation" } else { "games" },
            "games_limit": e.run.max_clusters,
            "batch": e.run.batch,
            "precision": e.run.precision,
            "precision_metrics": e.run.precision_metrics,
            "precision_targets": e.run.precision_targets,
            "precision_reached": if e.run.has_precision_rule() && self.stop != Stop::Interrupted { json!(self.precision_missed().is_none()) } else { Value::Null },
            "stopped_by": match self.stop { Stop::Limit => "game limit", Stop::Precision => "precision", Stop::Interrupted => self.merge_stop() },
            "partial": self.partial(),
            "baseline": e.run.baseline.map(|b| e.run.arms[b].label.clone()),
            "arms": arms,
        });
        if let (Some(s), Value::Object(o)) = (&self.shards, &mut m) {
            o.insert("shards".into(), s.clone());
        }
        m
    }

    /// The manifest, every arm metric and every comparison as one JSON object.
    pub fn to_json(&self) -> Value {
        let num = |x: f64| if x.is_finite() { json!(x) } else { Value::Null };
        let arms: Vec<Value> = arm_rows(self.state)
            .iter()
            .map(|r| {
                let n = i64::try_from(r.est.n).map_or(json!(r.est.n as f64), |n| json!(n));
                json!({"arm": r.arm, "metric": r.metric, "group": r.group, "value": num(r.est.value),
                       "ci95": [num(r.est.lo), num(r.est.hi)], "n": n})
            })
            .collect();
        let comps: Vec<Value> = comparison_rows(self.state)
            .iter()
            .map(|r| {
                json!({"arm": r.arm, "baseline": r.baseline, "metric": r.metric, "group": r.group,
                       "arm_value": num(r.arm_value), "baseline_value": num(r.base_value),
                       "difference": num(r.d.diff), "ci95": [num(r.d.lo), num(r.d.hi)],
                       "p_value": num(r.d.p), "p_holm": num(r.p_holm),
                       "se_paired": num(r.d.se), "se_unpaired": num(r.d.se_unpaired), "clusters": self.state.clusters,
                       "clusters_differing": r.d.differ, "df": r.d.df, "untested": r.d.untested.map(|u| u.label())})
            })
            .collect();
        json!({"manifest": self.manifest(), "arms": arms, "comparisons": comps})
    }

    fn difference_panels(&self, rows: &[ComparisonRow]) -> Vec<Panel> {
        // A panel per compared metric but the positions, with a row per arm,
        // tested or not: an arm whose difference is zero, or has no variance
        // (a hollow point when it has no interval), keeps its row. A metric carried by
        // another's test is drawn once, under that metric, and a metric no
        // arm has a test of (an identity) is left out.
        let mut panels: Vec<(String, bool, Panel)> = Vec::new();
        for r in rows.iter().filter(|r| {
            r.metric != "position_win_rate"
                && r.d.diff.is_finite()
                && !matches!(
                    r.d.untested,
                    Some(Untested::SameAs(_) | Untested::SameAsOther)
                )
        }) {
            let t = title(&r.metric, &r.group);
            let (_, pct) = describe(&r.metric);
            let k = if pct { 100.0 } else { 1.0 };
            // No interval (the same in every deal played, a value fixed by
            // the tables): a hollow point.
            let row = Row {
                label: r.arm.clone(),
                value: k * r.d.diff,
                lo: k * r.d.lo,
                hi: k * r.d.hi,
            };
            // A panel is drawn for a metric some arm has a test of, or a
            // change seen in every deal.
            let tested = r.d.untested.is_none() || r.d.untested == Some(Untested::Constant);
            match panels.iter_mut().find(|(key, _, _)| *key == t) {
                Some((_, any, p)) => {
                    p.rows.push(row);
                    *any |= tested;
                }
                None => panels.push((
                    t.clone(),
                    tested,
                    Panel {
                        title: format!("{t}{}", if pct { " (percentage points)" } else { "" }),
                        rows: vec![row],
                        reference: Some(0.0),
                    },
                )),
            }
        }
        panels
            .into_iter()
            .filter(|(_, any, _)| *any)
            .map(|(_, _, p)| p)
            .collect()
    }

    /// The SVG plots, by file name.
    pub fn plots(&self) -> Result<Vec<(String, String)>, String> {
        let mut out = Vec::new();
        let comps = comparison_rows(self.state);
        let arms = arm_rows(self.state);
        if !comps.is_empty() {
            let base = comps[0].baseline.clone();
            out.push((
                "differences.svg".into(),
                plots::interval_panels(
                    &format!("Paired difference, arm minus '{base}' (95% intervals)"),
                    &self.difference_panels(&comps),
                )?,
            ));
        }
        // Win rates per strategy per arm, with the fair share 1/players
        // where every arm seats as many players and every round had a
        // winner (rounds without one put a strategy no better than the
        // others under it).
        let players: Vec<usize> = self.exp.run.arms.iter().map(|a| a.cfg.players).collect();
        let every_round_won = self
            .state
            .arms
            .iter()
            .all(|a| a.stats.blocked == 0 && a.stats.truncated == 0);
        let fair = (every_round_won && players.iter().all(|&p| p == players[0]))
            .then(|| 100.0 / players[0] as f64);
        let mut panels: Vec<Panel> = Vec::new();
        for r in arms.iter().filter(|r| r.metric == "win_rate") {
            let row = Row {
                label: r.arm.clone(),
                value: 100.0 * r.est.value,
                lo: 100.0 * r.est.lo,
                hi: 100.0 * r.est.hi,
            };
            let t = format!(
                "{} (% of seat-rounds won{})",
                r.group,
                if fair.is_some() {
                    "; line: fair share"
                } else {
                    ""
                }
            );
            match panels.iter_mut().find(|p| p.title == t) {
                Some(p) => p.rows.push(row),
                None => panels.push(Panel {
                    title: t,
                    rows: vec![row],
                    reference: fair,
                }),
            }
        }
        out.push((
            "win_rates.svg".into(),
            plots::interval_panels(
                "Round wins per seat held, by strategy and arm (95% intervals)",
                &panels,
            )?,
        ));
        // First-mover advantage by position.
        let mut panels: Vec<Panel> = Vec::new();
        for (a, spec) in self.state.arms.iter().zip(&self.exp.run.arms) {
            let rows: Vec<Row> = arms
                .iter()
                .filter(|r| r.arm == a.label && r.metric == "position_win_rate")
                .map(|r| Row {
                    label: r.group.clone(),
                    value: 100.0 * r.est.value,
                    lo: 100.0 * r.est.lo,
                    hi: 100.0 * r.est.hi,
                })
                .collect();
            panels.push(Panel {
                title: format!(
                    "{}: % of won rounds by seat after the first mover (line: fair share)",
                    a.label
                ),
                rows,
                reference: Some(100.0 / spec.cfg.players as f64),
            });
        }
        out.push((
            "first_mover.svg".into(),
            plots::interval_panels("First-mover advantage by position (95% intervals)", &panels)?,
        ));
        // Round length distributions.
        let series: Vec<(String, Vec<(f64, f64)>)> = self
            .state
            .arms
            .iter()
            .map(|a| {
                let h = &a.stats.turns;
                let n = h.count().max(1) as f64;
                let top = h.quantile(0.99);
                (
                    a.label.clone(),
                    h.bins()
                        .filter(|(v, _)| (*v as f64) <= top)
                        .map(|(v, c)| (v as f64, 100.0 * c as f64 / n))
                        .collect(),
                )
            })
            .collect();
        out.push((
            "round_length.svg".into(),
            plots::lines(
                "Round length: % of rounds by number of turns (to the 99th percentile)",
                "turns",
                "% of rounds",
                &series,
            )?,
        ));
        Ok(out)
    }

    /// Writes every file into `dir` (temporary names, then renames).
    pub fn write_dir(&self, dir: &Path) -> Result<(), String> {
        let plots = self.plots()?;
        let names: Vec<String> = plots.iter().map(|(n, _)| n.clone()).collect();
        let mut files: Vec<(String, String)> = vec![
            ("arms.csv".into(), self.arms_csv()?),
            ("comparisons.csv".into(), self.comparisons_csv()?),
            ("distributions.csv".into(), self.distributions_csv()?),
            (
                "manifest.json".into(),
                serde_json::to_string_pretty(&self.manifest()).map_err(|e| e.to_string())? + "\n",
            ),
            ("report.md".into(), self.markdown(&names)),
        ];
        files.extend(plots);
        let refs: Vec<(&str, String)> =
            files.iter().map(|(n, t)| (n.as_str(), t.clone())).collect();
        write_files_atomically(dir, &refs)
    }
}
