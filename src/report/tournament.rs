//! A tournament's report: text table, JSON, CSV, manifest and an SVG chart of
//! the ratings with their intervals.

use super::{clip_columns, columns, plots, Cell};
use crate::lab::ratings::{Rating, Results};
use crate::lab::tournament::{TournamentConfig, TournamentOutcome};
use crate::sim::stats::wilson95;
use serde_json::{json, Value};
use std::path::Path;

/// A finished (or interrupted) tournament, ready to print or write.
pub struct TournamentReport<'a> {
    pub cfg: &'a TournamentConfig,
    pub outcome: &'a TournamentOutcome,
    pub elapsed_s: f64,
    /// When the tournament started, as an RFC 3339 UTC time.
    pub started_utc: String,
}

/// One row of the ratings table.
struct Row<'a> {
    name: &'a str,
    rating: &'a Rating,
    /// The rank's 95% interval ([`crate::lab::ratings::rank_intervals`]).
    rank_ci95: Option<(usize, usize)>,
    seats: u64,
    wins: u64,
}

/// A rank interval as the text and markdown show it: `[1, 3]`, or `-`.
pub(crate) fn rank_cell(ci: Option<(usize, usize)>) -> String {
    ci.map_or("-".into(), |(a, b)| format!("[{a}, {b}]"))
}

fn pct(x: f64) -> String {
    format!("{:.2}%", 100.0 * x)
}

fn r6(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}

fn r2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

impl TournamentReport<'_> {
    /// The strategies ordered by rating (best first; field order on a tie).
    fn rows(&self) -> Vec<Row<'_>> {
        let r = &self.outcome.results;
        let ranks = &self.outcome.ranks;
        let mut v: Vec<Row> = self
            .cfg
            .entrants
            .iter()
            .enumerate()
            .map(|(i, e)| Row {
                name: e.name(),
                rating: &self.outcome.ratings[i],
                rank_ci95: ranks.as_ref().map(|x| x[i]),
                seats: r.seats[i],
                wins: r.wins[i],
            })
            .collect();
        v.sort_by(|a, b| {
            b.rating
                .elo
                .partial_cmp(&a.rating.elo)
                .unwrap_or(std::cmp::Ordering::Equal)
        });
        v
    }

    fn index_of(&self, name: &str) -> usize {
        self.cfg
            .entrants
            .iter()
            .position(|e| e.name() == name)
            .unwrap_or(0)
    }

    fn fair_share(&self) -> f64 {
        1.0 / self.cfg.players as f64
    }

    pub fn to_text(&self) -> String {
        let cfg = self.cfg;
        let res = &self.outcome.results;
        let mut t = String::new();
        t += &format!(
            "tournament: {} strategies, {} players, {} round{}{}, rules {}, seed {}, {:.1} s\n",
            cfg.entrants.len(),
            cfg.players,
            res.games,
            if res.games == 1 { "" } else { "s" },
            if self.outcome.partial {
                format!(" of {} (partial)", cfg.games)
            } else {
                String::new()
            },
            cfg.rules.name,
            cfg.seed,
            self.elapsed_s
        );
        t += &format!(
            "rating: Plackett-Luce on the round winner, Elo scale (0 = field average), 95% intervals from the fit; {} round{} without a winner left out; \
             the rank orders the point estimates, and its 95% interval (each strategy's alone) counts those shown above and below it by simultaneous intervals for its rating differences\n",
            res.no_winner,
            if res.no_winner == 1 { "" } else { "s" }
        );
        if res.games > 0 && res.no_winner == res.games {
            t += "no round had a winner: the ratings are the prior's alone, and their order says nothing\n";
        }
        t += &format!(
            "p(avg table): chance to win a round against {} of average strength; fair share {}\n\n",
            match cfg.players - 1 {
                1 => "1 opponent".to_string(),
                n => format!("{n} opponents"),
            },
            pct(self.fair_share())
        );
        let rows = self.rows();
        let w = rows
            .iter()
            .map(|r| columns(r.name))
            .max()
            .unwrap_or(8)
            .max(8);
        t += &format!(
            "{:>4}  {:>9}  {:<w$}  {:>7}  {:>17}  {:>12}  {:>17}  {:>9}  {:>9}  {:>9}  {:>17}\n",
            "rank",
            "95% CI",
            "strategy",
            "elo",
            "95% CI",
            "p(avg table)",
            "95% CI",
            "seats",
            "wins",
            "win/seat",
            "95% CI"
        );
        for (i, r) in rows.iter().enumerate() {
            let rt = r.rating;
            let (lo, hi) = wilson95(r.wins, r.seats);
            t += &format!(
                "{:>4}  {:>9}  {:<w$}  {:>+7.1}  {:>17}  {:>12}  {:>17}  {:>9}  {:>9}  {:>9}  {:>17}\n",
                i + 1,
                rank_cell(r.rank_ci95),
                Cell(r.name),
                rt.elo,
                format!("[{:+.1}, {:+.1}]", rt.elo_ci95.0, rt.elo_ci95.1),
                pct(rt.p_average_table),
                format!(
                    "[{}, {}]",
                    pct(rt.p_average_table_ci95.0),
                    pct(rt.p_average_table_ci95.1)
                ),
                r.seats,
                r.wins,
                pct(if r.seats > 0 {
                    r.wins as f64 / r.seats as f64
                } else {
                    0.0
                }),
                format!("[{}, {}]", pct(lo), pct(hi))
            );
        }
        t += "\nhead-to-head: how often the row beat the column (of the rounds both sat in and one of them won)\n";
        let (mut widest, mut fewest, mut met) = (0.0f64, u64::MAX, 0usize);
        // Columns headed by the names cut to 9 columns, or by the rows'
        // numbers where two cut names would read the same
        // (`pimc-1k-net-chain` and `pimc-1k-net-prune-chain`).
        let cut: Vec<&str> = rows.iter().map(|r| clip_columns(r.name, 9)).collect();
        let numbered = (1..cut.len()).any(|i| cut[..i].contains(&cut[i]));
        let label = |i: usize, name: &str| {
            if numbered {
                format!("({}) {name}", i + 1)
            } else {
                name.to_string()
            }
        };
        let w = (0..rows.len())
            .map(|i| columns(&label(i, rows[i].name)))
            .max()
            .unwrap_or(w)
            .max(w);
        t += &format!("{:<w$}", "");
        for (i, c) in cut.iter().enumerate() {
            if numbered {
                t += &format!("  {:>9}", format!("({})", i + 1));
            } else {
                t += &format!("  {:>9}", Cell(c));
            }
        }
        t += "\n";
        for (i, a) in rows.iter().enumerate() {
            t += &format!("{:<w$}", Cell(&label(i, a.name)));
            let ia = self.index_of(a.name);
            for b in &rows {
                let ib = self.index_of(b.name);
                let cell = if ia == ib {
                    "- ".to_string()
                } else {
                    match res.head_to_head(ia, ib) {
                        Some((s, (lo, hi), n)) => {
                            met += 1;
                            // Wilson's ends are not symmetric: the farther.
                            widest = widest.max((s - lo).max(hi - s));
                            fewest = fewest.min(n);
                            // One decimal (the cells' intervals are a point
                            // or more wide), and a star where the interval
                            // excludes 50%.
                            let star = if lo > 0.5 || hi < 0.5 { "*" } else { " " };
                            format!("{:.1}%{star}", 100.0 * s)
                        }
                        None => "n/a ".to_string(),
                    }
                };
                t += &format!("  {cell:>9}");
            }
            t += "\n";
        }
        if fewest < u64::MAX {
            t += &format!(
                "each cell is an estimate: *, its 95% interval excludes 50% (taken alone, not adjusted for the {} pair{}); the intervals are in head_to_head.csv (--out) and --json; the farthest end of a cell's interval is {:.1} percentage points from its share (fewest decided rounds of a pair: {fewest})\n",
                // Each pair that met has two cells.
                met / 2,
                if met == 2 { "" } else { "s" },
                100.0 * widest
            );
        }
        t
    }

    /// The `--json` output. Its head-to-head rows are serialised as they
    /// are, not through a JSON tree, which took 340 MB for a field of 400.
    pub fn to_json(&self) -> TournamentJson<'_> {
        let cfg = self.cfg;
        let res = &self.outcome.results;
        let rows = self.rows();
        let strategies: Vec<Value> = rows
            .iter()
            .enumerate()
            .map(|(i, r)| {
                let ci = wilson95(r.wins, r.seats);
                json!({
                    "rank": i + 1,
                    "rank_ci95": r.rank_ci95.map(|(a, b)| [a, b]),
                    "name": r.name,
                    "elo": r2(r.rating.elo),
                    "elo_ci95": [r2(r.rating.elo_ci95.0), r2(r.rating.elo_ci95.1)],
                    "log_strength": r6(r.rating.log_strength),
                    "p_average_table": r6(r.rating.p_average_table),
                    "p_average_table_ci95": [r6(r.rating.p_average_table_ci95.0), r6(r.rating.p_average_table_ci95.1)],
                    "seats": r.seats,
                    "wins": r.wins,
                    "win_rate_per_seat": r6(if r.seats > 0 { r.wins as f64 / r.seats as f64 } else { 0.0 }),
                    "win_rate_per_seat_ci95": [r6(ci.0), r6(ci.1)],
                })
            })
            .collect();
        let head = json!({
            "games": res.games,
            "games_requested": cfg.games,
            "partial": self.outcome.partial,
            "seed": cfg.seed,
            "threads": cfg.threads,
            "elapsed_s": r6(self.elapsed_s),
            "rules": cfg.rules.name,
            "players": cfg.players,
            "fair_share": r6(self.fair_share()),
            "model": "plackett-luce-winner",
            "no_winner": res.no_winner,
            "strategies": strategies,
        });
        TournamentJson {
            head,
            head_to_head: self.head_to_head_rows(),
        }
    }

    fn head_to_head_rows(&self) -> Vec<HeadToHeadRow<'_>> {
        let res = &self.outcome.results;
        let k = self.cfg.entrants.len();
        let mut v = Vec::with_capacity(k * k.saturating_sub(1));
        for a in 0..k {
            for b in 0..k {
                if a == b {
                    continue;
                }
                let h = res.head_to_head(a, b);
                v.push(HeadToHeadRow {
                    a: self.cfg.entrants[a].name(),
                    b: self.cfg.entrants[b].name(),
                    together: res.together[a * k + b],
                    decided: h.map_or(0, |h| h.2),
                    a_won: res.beat[a * k + b],
                    share: h.map(|h| r6(h.0)),
                    ci95: h.map(|(_, ci, _)| [r6(ci.0), r6(ci.1)]),
                });
            }
        }
        v
    }

    /// `ratings.csv`: one row per strategy, best first.
    pub fn ratings_csv(&self) -> Result<String, csv::Error> {
        let mut w = csv::Writer::from_writer(Vec::new());
        w.write_record([
            "rank",
            "rank_lo95",
            "rank_hi95",
            "strategy",
            "elo",
            "elo_lo95",
            "elo_hi95",
            "p_average_table",
            "p_lo95",
            "p_hi95",
            "seats",
            "wins",
            "win_rate_per_seat",
            "win_lo95",
            "win_hi95",
            "fair_share",
            "partial",
        ])?;
        for (i, r) in self.rows().iter().enumerate() {
            let ci = wilson95(r.wins, r.seats);
            let rt = r.rating;
            let (rlo, rhi) = r
                .rank_ci95
                .map_or((String::new(), String::new()), |(a, b)| {
                    (a.to_string(), b.to_string())
                });
            w.write_record([
                (i + 1).to_string(),
                rlo,
                rhi,
                r.name.to_string(),
                r2(rt.elo).to_string(),
                r2(rt.elo_ci95.0).to_string(),
                r2(rt.elo_ci95.1).to_string(),
                r6(rt.p_average_table).to_string(),
                r6(rt.p_average_table_ci95.0).to_string(),
                r6(rt.p_average_table_ci95.1).to_string(),
                r.seats.to_string(),
                r.wins.to_string(),
                r6(if r.seats > 0 {
                    r.wins as f64 / r.seats as f64
                } else {
                    0.0
                })
                .to_string(),
                r6(ci.0).to_string(),
                r6(ci.1).to_string(),
                r6(self.fair_share()).to_string(),
                self.outcome.partial.to_string(),
            ])?;
        }
        into_string(w)
    }

    /// `head_to_head.csv`: one row per ordered pair.
    pub fn head_to_head_csv(&self) -> Result<String, csv::Error> {
        let mut w = csv::Writer::from_writer(Vec::new());
        w.write_record([
            "a", "b", "together", "decided", "a_won", "share", "lo95", "hi95",
        ])?;
        // Numbers as the JSON writes them.
        let num = |x: Option<f64>| x.map_or(String::new(), |x| Value::from(x).to_string());
        for row in self.head_to_head_rows() {
            w.write_record([
                row.a.to_string(),
                row.b.to_string(),
                row.together.to_string(),
                row.decided.to_string(),
                row.a_won.to_string(),
                num(row.share),
                num(row.ci95.map(|c| c[0])),
                num(row.ci95.map(|c| c[1])),
            ])?;
        }
        into_string(w)
    }

    /// `manifest.json`; `commands`: the command that started the
    /// tournament, then each that continued it ([`crate::report::played_so_far`]).
    pub fn manifest(&self, commands: &[Vec<String>]) -> Value {
        let cfg = self.cfg;
        json!({
            "command": commands.first(),
            "continued_by": commands.get(1..).unwrap_or_default(),
            "version": env!("CARGO_PKG_VERSION"),
            "git_commit": super::GIT_COMMIT,
            "started_utc": self.started_utc,
            "kind": "tournament",
            "rules": cfg.rules.name,
            "rule_set": serde_json::to_value(&cfg.rules.file).unwrap_or(Value::Null),
            "players": cfg.players,
            "strategies": cfg.entrants.iter().map(|e| e.name()).collect::<Vec<_>>(),
            // What each is (base, parameters; a network's digest), as a
            // run's line-up says.
            "field": cfg
                .entrants
                .iter()
                .map(|e| e.description().cloned().unwrap_or_else(|| json!({ "name": e.name() })))
                .collect::<Vec<_>>(),
            "games_requested": cfg.games,
            "games_completed": self.outcome.results.games,
            "partial": self.outcome.partial,
            "seed": cfg.seed,
            "threads": cfg.threads,
            "model": "plackett-luce-winner",
            "elapsed_s": r6(self.elapsed_s),
            "files": ["ratings.csv", "head_to_head.csv", "ratings.svg", "manifest.json"],
        })
    }

    /// `ratings.svg`: each strategy's rating as a dot with its 95% interval,
    /// the best at the top (an interval panel, as the experiments' plots).
    pub fn ratings_svg(&self) -> Result<String, String> {
        let title = format!(
            "Ratings: {} players, {} rounds, {} (95% intervals){}",
            self.cfg.players,
            self.outcome.results.games,
            self.cfg.rules.name,
            if self.outcome.partial {
                format!(
                    " - PARTIAL: {} of {} rounds",
                    self.outcome.results.games, self.cfg.games
                )
            } else {
                String::new()
            }
        );
        // The panel draws its first row at the bottom.
        let rows = self
            .rows()
            .iter()
            .rev()
            .map(|r| plots::Row {
                label: r.name.to_string(),
                value: r.rating.elo,
                lo: r.rating.elo_ci95.0,
                hi: r.rating.elo_ci95.1,
            })
            .collect();
        plots::interval_panels(
            &title,
            &[plots::Panel {
                title: "rating, Elo scale (0 = field average)".into(),
                rows,
                reference: Some(0.0),
            }],
        )
    }

    /// Writes `ratings.csv`, `head_to_head.csv`, `ratings.svg` and
    /// `manifest.json` into `dir`, each through a temporary file.
    pub fn write_dir(&self, dir: &Path, commands: &[Vec<String>]) -> Result<(), String> {
        let files = [
            (
                "ratings.csv",
                self.ratings_csv().map_err(|e| e.to_string())?,
            ),
            (
                "head_to_head.csv",
                self.head_to_head_csv().map_err(|e| e.to_string())?,
            ),
            ("ratings.svg", self.ratings_svg()?),
            (
                "manifest.json",
                serde_json::to_string_pretty(&self.manifest(commands))
                    .map_err(|e| e.to_string())?
                    + "\n",
            ),
        ];
        super::write_files_atomically(dir, &files)
    }
}

fn into_string(w: csv::Writer<Vec<u8>>) -> Result<String, csv::Error> {
    let bytes = w
        .into_inner()
        .map_err(|e| csv::Error::from(e.into_error()))?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// A tournament's `--json` output ([`TournamentReport::to_json`]).
#[derive(serde::Serialize)]
pub struct TournamentJson<'a> {
    /// Everything but the head-to-head rows, in the order written.
    #[serde(flatten)]
    pub head: Value,
    pub head_to_head: Vec<HeadToHeadRow<'a>>,
}

/// One ordered pair of a tournament's head-to-head table: of the rounds
/// where `a` and `b` both sat (`together`) and one of them won (`decided`),
/// those `a` won, its share and that share's 95% interval (none when they
/// decided no round).
#[derive(serde::Serialize)]
pub struct HeadToHeadRow<'a> {
    pub a: &'a str,
    pub b: &'a str,
    pub together: u64,
    pub decided: u64,
    pub a_won: u64,
    pub share: Option<f64>,
    pub ci95: Option<[f64; 2]>,
}

// ----- the saved state of an interrupted tournament ------------------------------

/// The format version of a tournament's or a ladder's saved state
/// (`"version"`), checked by [`saved_state`] before anything else is read.
/// Version 2 (2026-12-07) keeps a composition's wins by seat
/// (`seat_wins`), not by strategy of the field; version 1 states are read
/// too ([`Results::from_json`] reads either).
const STATE_VERSION: u64 = 2;

/// What a saved state must match to be continued: the rule set, the table
/// size, every strategy of the field (`field`: each one's description, as
/// `StrategySpec::to_json` gives it) and the seed; the games may grow.
pub fn state_fingerprint(cfg: &TournamentConfig, field: Vec<Value>) -> Value {
    json!({
        "rule_set": serde_json::to_value(&cfg.rules.file).unwrap_or(Value::Null),
        "players": cfg.players,
        "field": field,
        "seed": cfg.seed,
    })
}

/// Writes or removes `dir/state.json` after a tournament: the counts of its
/// finished games while it is partial (what resuming continues from), with
/// the `commands` that played it and the seconds they took, `elapsed_s`
/// (what the manifest of the resumed tournament gives); none once it is
/// finished.
pub fn save_state(
    dir: &Path,
    print: &Value,
    outcome: &TournamentOutcome,
    commands: &[Vec<String>],
    elapsed_s: f64,
) -> Result<(), String> {
    let state = outcome.partial.then(|| {
        json!({
            "tournament": print,
            "results": outcome.results.to_json(),
            "commands": commands,
            "elapsed_s": elapsed_s,
        })
    });
    write_state(dir, "tournament", state)
}

/// Writes `dir/state.json` of a `kind` ("tournament", "ladder") that is
/// partial: `"kind"` and `"version"` ([`STATE_VERSION`], what
/// [`saved_state`] checks), then the entries of the object `body`; with no
/// body (it is finished), removes the file if there is one.
pub(super) fn write_state(dir: &Path, kind: &str, body: Option<Value>) -> Result<(), String> {
    let path = dir.join("state.json");
    match body {
        Some(body) => {
            let mut v = serde_json::Map::new();
            v.insert("kind".into(), json!(kind));
            v.insert("version".into(), json!(STATE_VERSION));
            v.extend(
                body.as_object()
                    .into_iter()
                    .flatten()
                    .map(|(k, x)| (k.clone(), x.clone())),
            );
            super::write_file_atomically(&path, Value::Object(v).to_string().as_bytes())
        }
        None if path.exists() => std::fs::remove_file(&path)
            .map_err(|e| format!("cannot remove {}: {e}", path.display())),
        None => Ok(()),
    }
}

/// The results saved by an interrupted tournament in `dir`, checked against
/// this one (`print`, [`state_fingerprint`]) and its `games`. The error
/// completes "cannot resume: ".
pub fn read_state(dir: &Path, print: &Value, games: u64) -> Result<Results, String> {
    let keys = ["rule_set", "players", "field", "seed"];
    let (v, path) = saved_state(
        dir,
        "tournament",
        print,
        &keys,
        "give the same rules, players, strategies and seed",
    )?;
    let bad = |why: &str| format!("{}: {why}", path.display());
    let r = Results::from_json(v.get("results").unwrap_or(&Value::Null)).map_err(|e| bad(&e))?;
    let field = print["field"].as_array().map_or(0, Vec::len);
    if r.strategies != field {
        return Err(bad(&format!(
            "its counts are of {} strategies, the field has {field}",
            r.strategies
        )));
    }
    let players = print["players"].as_u64().unwrap_or(0) as usize;
    r.check_players(players).map_err(|e| bad(&e))?;
    if r.games > games {
        return Err(bad(&format!(
            "it holds {} games, more than the {games} asked (give --games {} or more)",
            r.games, r.games
        )));
    }
    Ok(r)
}

/// The state saved in `dir/state.json` by an interrupted `kind` (a
/// "tournament", a "ladder") and its path, checked to be of this one: the
/// `keys` of its fingerprint equal `print`'s (`hint` says what to give when
/// they do not). The error completes "--resume: ".
pub(super) fn saved_state(
    dir: &Path,
    kind: &str,
    print: &Value,
    keys: &[&str],
    hint: &str,
) -> Result<(Value, std::path::PathBuf), String> {
    let path = dir.join("state.json");
    let text = std::fs::read_to_string(&path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => format!(
            "{} holds no interrupted {kind} (no state.json: it is saved when a {kind} with an output folder is interrupted, and removed when it is finished)",
            dir.display()
        ),
        _ => format!("cannot read {}: {e}", path.display()),
    })?;
    let bad = |why: &str| format!("{}: {why}", path.display());
    let v: Value = serde_json::from_str(&text).map_err(|e| bad(&format!("not JSON: {e}")))?;
    if v.get("kind").and_then(Value::as_str) != Some(kind) {
        return Err(bad(&format!("not the state of a {kind}")));
    }
    // A state written before states recorded their version (2026-12-06)
    // is of version 1.
    if let Some(version) = v.get("version") {
        if !version
            .as_u64()
            .is_some_and(|v| (1..=STATE_VERSION).contains(&v))
        {
            return Err(bad(&format!(
                "{kind} state format version {version} (this unolab reads versions 1 to {STATE_VERSION})"
            )));
        }
    }
    let saved = v.get(kind).ok_or_else(|| bad(&format!("no '{kind}'")))?;
    let differ: Vec<&str> = keys
        .iter()
        .copied()
        .filter(|k| saved.get(*k) != print.get(*k))
        .collect();
    if !differ.is_empty() {
        return Err(bad(&format!(
            "it is another {kind} (not the same: {}); {hint}",
            differ.join(", ")
        )));
    }
    Ok((v, path))
}
