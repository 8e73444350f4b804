//! Reports of a run: the summary table, the JSON summary, the CSV files and the
//! manifest. Everything is returned as text or written to files; nothing prints.

pub mod experiment;
mod files;
mod intervals;
pub mod ladder;
pub mod outdir;
pub mod plots;
pub mod redraw;
mod text;
pub use text::{clip_columns, columns, Cell};
pub mod tournament;

pub use files::{
    hold_writes, played_so_far, remove_unfinished_writes, unfit_target, write_file_atomically,
    write_files_atomically, writes_held, WriteHold,
};
pub use intervals::*;

use crate::engine::rules::Scoring;
use crate::sim::clusters::{ClusterSums, Moments};
use crate::sim::seating::CYCLE_LIMIT;
use crate::sim::stats::Histogram;
use crate::sim::{Mode, RunConfig, RunStats, Seating};
use serde_json::{json, Value};
use std::fmt::Write as _;
use std::path::Path;

/// A finished (or interrupted) run with what is needed to report it.
pub struct Report<'a> {
    pub cfg: &'a RunConfig,
    pub stats: &'a RunStats,
    pub elapsed_s: f64,
    pub partial: bool,
    /// When the run started, as an RFC 3339 UTC time (see [`utc_timestamp`]).
    pub started_utc: String,
}

/// The git commit HEAD named when the binary was built (uncommitted changes
/// are not recorded), or null when the build could not ask git.
pub const GIT_COMMIT: Option<&str> = option_env!("UNOLAB_GIT_COMMIT");

/// The columns of `summary.csv`, in order (documented in `results/README.md`).
pub const SUMMARY_COLUMNS: [&str; 28] = [
    "kind",
    "name",
    "seats",
    "rounds",
    "round_wins",
    "round_win_rate_per_seat",
    "per_seat_ci95_low",
    "per_seat_ci95_high",
    "fair_share",
    "round_win_rate",
    "round_ci95_low",
    "round_ci95_high",
    "matches",
    "match_wins",
    "match_win_rate_per_seat",
    "match_per_seat_ci95_low",
    "match_per_seat_ci95_high",
    "match_win_rate",
    "match_ci95_low",
    "match_ci95_high",
    "points_kind",
    "points_mean",
    "points_ci95_low",
    "points_ci95_high",
    "points_sd",
    "points_p50",
    "illegal",
    "partial",
];

/// `secs` since the Unix epoch as `YYYY-MM-DDTHH:MM:SSZ`.
pub fn utc_timestamp(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // Civil date from days since 1970-01-01 (H. Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

fn rate(k: u64, n: u64) -> f64 {
    if n == 0 {
        0.0
    } else {
        k as f64 / n as f64
    }
}

/// An interval as JSON: `[lo, hi]` rounded to 6 decimals, or null.
fn ci_json(ci: Option<(f64, f64)>) -> Value {
    ci.map_or(Value::Null, |(lo, hi)| json!([round6(lo), round6(hi)]))
}

/// A share of rounds with its interval, as JSON: `{"rate", "ci95"}`
/// (`ci95` null without one).
fn share_json(e: Option<Estimate>) -> Value {
    match e {
        Some(e) => {
            let (r, ci) = e.json();
            json!({"rate": r, "ci95": ci})
        }
        None => Value::Null,
    }
}

fn round6(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}

/// A histogram's summary; `independent`: whether its values are
/// independent draws, which gives the median its interval
/// ([`median_ci95`]).
fn summary_json(h: &Histogram, independent: bool) -> Value {
    let s = h.summary();
    if s.count == 0 {
        // No value: no mean, spread or quantile (they read 0).
        return json!({
            "count": 0, "mean": null, "sd": null, "min": null, "max": null,
            "p5": null, "p25": null, "p50": null, "p50_ci95": null, "p75": null, "p95": null,
        });
    }
    json!({
        "count": s.count, "mean": round6(s.mean), "sd": round6(s.sd), "min": s.min, "max": s.max,
        "p5": s.p5, "p25": s.p25, "p50": s.p50, "p50_ci95": ci_json(median_ci95(h, independent)),
        "p75": s.p75, "p95": s.p95,
    })
}

/// The 95% interval of the median of a histogram's values when they are
/// independent draws (order statistics: [`Histogram::quantile_ci95`]);
/// none when they are not (rounds of one deal replayed, or of one match),
/// since the order statistics' coverage needs independence.
pub fn median_ci95(h: &Histogram, independent: bool) -> Option<(f64, f64)> {
    independent.then(|| h.quantile_ci95(0.5)).flatten()
}

/// Whether a run's values per round are independent draws: rounds neither
/// replayed as deals (`--duplicate`) nor played in matches.
pub fn rounds_independent(cfg: &RunConfig) -> bool {
    cfg.mode == Mode::Round && !cfg.duplicate
}

/// Whether strategy `k` holds one seat of each game: its values per seat
/// are then one a game (two seats of one game are not independent).
fn one_seat(cfg: &RunConfig, st: &RunStats, k: usize) -> bool {
    let name = &st.strategies[k].name;
    cfg.lineup.iter().filter(|s| s.name() == name).count() == 1
}

/// Whether strategy `k`'s points per seat per match are independent
/// draws: matches not replayed, and one seat of it per match.
pub fn match_values_independent(cfg: &RunConfig, st: &RunStats, k: usize) -> bool {
    !cfg.duplicate && one_seat(cfg, st, k)
}

/// Whether strategy `k`'s points per round won (under penalty scoring, per
/// seat per round, so one value for each of its seats) are independent
/// draws: rounds independent ([`rounds_independent`]), and under penalty
/// scoring one seat of it per round.
pub fn round_points_independent(cfg: &RunConfig, st: &RunStats, k: usize) -> bool {
    rounds_independent(cfg)
        && (cfg.rules.settings.scoring != Scoring::Penalty || one_seat(cfg, st, k))
}

/// How the games of `cfg` were seated, in words: the seating, and with
/// duplicate play how deals were replayed, `games` played (the text
/// header's lines; a partial run played fewer deals than it asked).
pub fn seating_lines(cfg: &RunConfig, games: u64) -> Vec<String> {
    let count = cfg.arrangement_count();
    let mut v = vec![match cfg.seating {
        Seating::Mixed if count == 1 => {
            "seating: mixed (one arrangement: every seat holds the same strategy)".to_string()
        }
        Seating::Mixed if count <= CYCLE_LIMIT => format!(
            "seating: mixed, every game an arrangement of the line-up (all {count} in turn)"
        ),
        Seating::Mixed => format!(
            "seating: mixed, every game an arrangement of the line-up (a random one of {count})"
        ),
        Seating::Rotate => {
            "seating: rotate, the line-up rotated one seat per game (neighbours kept)".to_string()
        }
        Seating::Fixed => "seating: fixed, the line-up as given in every game".to_string(),
    }];
    if cfg.duplicate {
        v.push(format!(
            "duplicate play: {} deals, each played once per rotation of its seating ({} games a deal)",
            games / cfg.players as u64,
            cfg.players
        ));
    }
    v
}

impl<'a> Report<'a> {
    /// Games per second of wall time.
    pub fn games_per_second(&self) -> f64 {
        if self.elapsed_s > 0.0 {
            self.stats.games as f64 / self.elapsed_s
        } else {
            0.0
        }
    }

    fn penalty(&self) -> bool {
        self.cfg.rules.settings.scoring == Scoring::Penalty
    }

    /// What the per-strategy points figure is.
    pub fn points_label(&self) -> &'static str {
        if self.penalty() {
            "penalty points per seat per round"
        } else {
            "points per round won"
        }
    }

    /// The summary as one JSON object (`unolab run --json`).
    pub fn to_json(&self) -> Value {
        let st = self.stats;
        let cfg = self.cfg;
        let matches = cfg.mode == Mode::Match;
        let fair = 1.0 / cfg.players as f64;
        let strategies: Vec<Value> = st
            .strategies
            .iter()
            .enumerate()
            .map(|(k, s)| {
                let (share, share_ci) = strategy_round_share(cfg, st, k).json();
                let (per_seat, per_seat_ci) = round_win_per_seat(cfg, st, k).json();
                let (m_share, m_share_ci) = strategy_match_share(cfg, st, k).json();
                let (m_seat, m_seat_ci) = match_win_per_seat(cfg, st, k).json();
                let or_null = |v: Value| if matches { v } else { Value::Null };
                json!({
                    "name": s.name,
                    "seats": s.seats,
                    "round_wins": s.round_wins,
                    "round_win_rate_per_seat": per_seat,
                    "round_win_rate_per_seat_ci95": per_seat_ci,
                    "fair_share": round6(fair),
                    "round_win_rate": share,
                    "round_win_ci95": share_ci,
                    "match_wins": or_null(json!(s.match_wins)),
                    "match_win_rate_per_seat": or_null(m_seat),
                    "match_win_rate_per_seat_ci95": or_null(m_seat_ci),
                    "match_win_rate": or_null(m_share),
                    "match_win_ci95": or_null(m_share_ci),
                    "points_label": self.points_label(),
                    "points_mean": if s.round_points.count() == 0 { Value::Null } else { json!(round6(s.round_points.mean())) },
                    "points_mean_ci95": ci_json(points_ci95(cfg, st, k)),
                    "round_points": summary_json(&s.round_points, round_points_independent(cfg, st, k)),
                    "match_points": or_null(summary_json(&s.match_points, match_values_independent(cfg, st, k))),
                    "match_points_mean_ci95": or_null(ci_json(match_points_ci95(st, k))),
                    "illegal": s.illegal,
                })
            })
            .collect();
        let seats: Vec<Value> = st
            .seats
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let (r, rci) = seat_round_win(cfg, st, i).json();
                let (m, mci) = seat_match_win(cfg, st, i).json();
                json!({
                    "seat": i,
                    "round_wins": s.round_wins,
                    "round_win_rate": r,
                    "round_win_ci95": rci,
                    "match_wins": if matches { json!(s.match_wins) } else { Value::Null },
                    "match_win_rate": if matches { m } else { Value::Null },
                    "match_win_ci95": if matches { mci } else { Value::Null },
                })
            })
            .collect();
        let positions: Vec<Value> = st
            .position_wins
            .iter()
            .enumerate()
            .map(|(i, &w)| {
                // No round won: a share of none is undefined (null).
                let (r, ci) = match st.won {
                    0 => (Value::Null, Value::Null),
                    _ => position_win(cfg, st, i).json(),
                };
                json!({"position": i, "round_wins": w, "win_rate": r, "win_ci95": ci})
            })
            .collect();
        let cl = st.clusters.as_ref();
        let mean_ci =
            |h: &Histogram, m: Option<&Moments>| ci_json(per_round_mean_ci95(cfg, st, h, m));
        // The same fields as cards_drawn's and rounds_per_match's.
        let mut turns_json = summary_json(&st.turns, rounds_independent(cfg));
        turns_json["mean_ci95"] = mean_ci(&st.turns, cl.and_then(|c| c.turns.as_ref()));
        let mut cards_json = summary_json(&st.cards_drawn, rounds_independent(cfg));
        cards_json["mean_ci95"] = mean_ci(&st.cards_drawn, cl.and_then(|c| c.cards_drawn.as_ref()));
        let blocked_rate = share_json(round_share(cfg, st, st.blocked, |c| c.blocked.as_ref()));
        let truncated_rate =
            share_json(round_share(cfg, st, st.truncated, |c| c.truncated.as_ref()));
        let penalties_json = json!({
            "mean": round6(rate(st.uno_penalties, st.rounds)),
            "mean_ci95": mean_ci(&st.uno_penalties_per_round, cl.and_then(|c| c.uno_penalties.as_ref())),
        });
        let changed: serde_json::Map<String, Value> = cfg
            .rules
            .changed_settings()
            .into_iter()
            .map(|(k, _)| {
                let v = serde_json::to_value(&cfg.rules.settings)
                    .ok()
                    .and_then(|all| all.get(&k).cloned())
                    .unwrap_or(Value::Null);
                (k, v)
            })
            .collect();
        json!({
            "version": env!("CARGO_PKG_VERSION"),
            "games": st.games,
            "games_requested": cfg.games,
            "partial": self.partial,
            "mode": cfg.mode.name(),
            "rounds": st.rounds,
            "seed": cfg.seed,
            "threads": cfg.threads,
            "elapsed_s": round6(self.elapsed_s),
            "games_per_s": self.games_per_second().round(),
            "rules": cfg.rules.name,
            "changed_settings": changed,
            "rule_set": serde_json::to_value(&cfg.rules.file).unwrap_or(Value::Null),
            "players": cfg.players,
            "seating": cfg.seating.name(),
            "arrangements": cfg.arrangement_count(),
            "fixed_seats": cfg.seating == Seating::Fixed,
            "duplicate": cfg.duplicate,
            "deals": if cfg.duplicate { json!(self.stats.games / cfg.players as u64) } else { Value::Null },
            "intervals": intervals_label(cfg, st),
            "lineup": cfg.lineup.iter().map(|s| s.name()).collect::<Vec<_>>(),
            "strategies": strategies,
            "seats": seats,
            "first_player": positions,
            "first_player_counted": "steps from the first mover in the direction of play at the first turn",
            "turns": turns_json,
            "cards_drawn": cards_json,
            "rounds_per_match": if matches {
                let mut v = summary_json(&st.rounds_per_match, !cfg.duplicate);
                v["mean_ci95"] = ci_json(rounds_per_match_ci95(cfg, st));
                v
            } else {
                Value::Null
            },
            "won": st.won,
            "blocked": st.blocked,
            "blocked_rate": blocked_rate,
            "truncated": st.truncated,
            "truncated_rate": truncated_rate,
            "tied_matches": if matches { json!(st.tied_matches) } else { Value::Null },
            "no_winner_matches": if matches { json!(st.no_winner_matches) } else { Value::Null },
            "max_rounds_matches": if matches { json!(st.capped_matches) } else { Value::Null },
            "max_rounds_without_winner": if matches { json!(st.capped_without_winner) } else { Value::Null },
            "uno_penalties": st.uno_penalties,
            "uno_penalties_per_round": penalties_json,
            "illegal": st.illegal,
        })
    }

    /// `summary.csv`: a row per strategy, per seat and per position in order
    /// of play from the first mover. Match columns are empty in round mode.
    pub fn summary_csv(&self) -> Result<String, csv::Error> {
        let st = self.stats;
        let cfg = self.cfg;
        let matches = cfg.mode == Mode::Match;
        let mut w = csv::Writer::from_writer(Vec::new());
        w.write_record(SUMMARY_COLUMNS)?;
        let f = |x: f64| format!("{:.6}", x);
        let e3 = |e: Estimate| [f(e.rate), f(e.lo), f(e.hi)];
        let none = || vec![String::new(); 3];
        let fair = f(1.0 / cfg.players as f64);
        let partial = self.partial;
        let match_cols = |wins: u64, per_seat: Option<Estimate>, share: Estimate| -> Vec<String> {
            if !matches {
                return vec![String::new(); 8];
            }
            let mut v = vec![st.games.to_string(), wins.to_string()];
            v.extend(per_seat.map(|e| e3(e).to_vec()).unwrap_or_else(none));
            v.extend(e3(share));
            v
        };
        for (k, s) in st.strategies.iter().enumerate() {
            let sum = s.round_points.summary();
            let mut row = vec![
                "strategy".to_string(),
                s.name.clone(),
                s.seats.to_string(),
                st.rounds.to_string(),
                s.round_wins.to_string(),
            ];
            row.extend(e3(round_win_per_seat(cfg, st, k)));
            row.push(fair.clone());
            row.extend(e3(strategy_round_share(cfg, st, k)));
            row.extend(match_cols(
                s.match_wins,
                Some(match_win_per_seat(cfg, st, k)),
                strategy_match_share(cfg, st, k),
            ));
            let (plo, phi) = points_ci95(cfg, st, k)
                .map_or((String::new(), String::new()), |(lo, hi)| (f(lo), f(hi)));
            // No value (a strategy that won no round): empty, not 0.
            let some = |v: String| if sum.count == 0 { String::new() } else { v };
            row.extend([
                self.points_label().replace(' ', "_"),
                some(f(sum.mean)),
                plo,
                phi,
                some(f(sum.sd)),
                some(sum.p50.to_string()),
                s.illegal.to_string(),
            ]);
            // Every row says whether the run was cut short (an interrupt, a
            // partial merge), as the manifest does.
            row.push(partial.to_string());
            w.write_record(&row)?;
        }
        for (i, s) in st.seats.iter().enumerate() {
            let r = seat_round_win(cfg, st, i);
            let mut row = vec![
                "seat".to_string(),
                i.to_string(),
                "1".into(),
                st.rounds.to_string(),
                s.round_wins.to_string(),
            ];
            row.extend(e3(r));
            row.push(fair.clone());
            row.extend(e3(r));
            row.extend(match_cols(s.match_wins, None, seat_match_win(cfg, st, i)));
            row.extend(vec![String::new(); 7]);
            // Every row says whether the run was cut short (an interrupt, a
            // partial merge), as the manifest does.
            row.push(partial.to_string());
            w.write_record(&row)?;
        }
        for (i, &wins) in st.position_wins.iter().enumerate() {
            let r = position_win(cfg, st, i);
            let mut row = vec![
                "position".to_string(),
                format!("+{i}"),
                "1".into(),
                st.won.to_string(),
                wins.to_string(),
            ];
            row.extend(none());
            row.push(String::new());
            // No round won: a share of none is undefined, left empty.
            if st.won > 0 {
                row.extend(e3(r));
            } else {
                row.extend(none());
            }
            row.extend(vec![String::new(); 8 + 7]);
            // Every row says whether the run was cut short (an interrupt, a
            // partial merge), as the manifest does.
            row.push(partial.to_string());
            w.write_record(&row)?;
        }
        let bytes = w
            .into_inner()
            .map_err(|e| csv::Error::from(e.into_error()))?;
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    }

    /// `distributions.csv`: every histogram, one row per value that occurred
    /// (every value exact and numeric).
    pub fn distributions_csv(&self) -> Result<String, csv::Error> {
        let st = self.stats;
        let mut w = csv::Writer::from_writer(Vec::new());
        w.write_record(["distribution", "group", "value", "count"])?;
        let mut put = |name: &str, group: &str, h: &Histogram| -> Result<(), csv::Error> {
            for (v, c) in h.bins() {
                w.write_record([name, group, &v.to_string(), &c.to_string()])?;
            }
            Ok(())
        };
        put("turns_per_round", "all", &st.turns)?;
        put("cards_drawn_per_round", "all", &st.cards_drawn)?;
        put(
            "uno_penalties_per_round",
            "all",
            &st.uno_penalties_per_round,
        )?;
        let (per_round, per_match) = if self.penalty() {
            (
                "penalty_points_per_seat_per_round",
                "penalty_points_per_seat_per_match",
            )
        } else {
            ("points_per_round_won", "points_per_seat_per_match")
        };
        for s in &st.strategies {
            put(per_round, &s.name, &s.round_points)?;
        }
        if self.cfg.mode == Mode::Match {
            for s in &st.strategies {
                put(per_match, &s.name, &s.match_points)?;
            }
            put("rounds_per_match", "all", &st.rounds_per_match)?;
        }
        let bytes = w
            .into_inner()
            .map_err(|e| csv::Error::from(e.into_error()))?;
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    }

    /// `manifest.json`: enough to rerun the run and get the same numbers: the
    /// exact command, the unolab version and git commit (when the build knew
    /// it), the start time, the whole resolved rule set, the line-up with each
    /// strategy's parameters, seed, games, mode, threads, elapsed time and
    /// whether the run is partial.
    pub fn manifest(&self, command: &[String]) -> Value {
        let cfg = self.cfg;
        json!({
            "command": command,
            "version": env!("CARGO_PKG_VERSION"),
            "git_commit": GIT_COMMIT,
            "started_utc": self.started_utc,
            "rules": cfg.rules.name,
            "rule_set": serde_json::to_value(&cfg.rules.file).unwrap_or(Value::Null),
            "changed_settings": cfg.rules.changed_settings().into_iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>(),
            "cards_differ_from_builtin": cfg.rules.differs_from_builtin_cards(),
            "players": cfg.players,
            "lineup": cfg.lineup.iter().map(|s| s.to_json()).collect::<Vec<_>>(),
            "games_requested": cfg.games,
            "games_completed": self.stats.games,
            "partial": self.partial,
            "mode": cfg.mode.name(),
            "seed": cfg.seed,
            "threads": cfg.threads,
            "seating": cfg.seating.name(),
            "arrangements": cfg.arrangement_count(),
            "fixed_seats": cfg.seating == Seating::Fixed,
            "duplicate": cfg.duplicate,
            "deals": if cfg.duplicate { json!(self.stats.games / cfg.players as u64) } else { Value::Null },
            "elapsed_s": round6(self.elapsed_s),
        })
    }

    /// Writes `summary.csv`, `distributions.csv` and `manifest.json` into `dir`
    /// (created if needed). Each file is written to a temporary name first and
    /// renamed, so a failure leaves no half-written result.
    pub fn write_dir(&self, dir: &Path, command: &[String]) -> Result<(), String> {
        let files = [
            (
                "summary.csv",
                self.summary_csv().map_err(|e| e.to_string())?,
            ),
            (
                "distributions.csv",
                self.distributions_csv().map_err(|e| e.to_string())?,
            ),
            (
                "manifest.json",
                serde_json::to_string_pretty(&self.manifest(command)).map_err(|e| e.to_string())?
                    + "\n",
            ),
        ];
        write_files_atomically(dir, &files)
    }
}

#[cfg(test)]
mod tests {
    use super::utc_timestamp;

    #[test]
    fn utc_timestamps() {
        assert_eq!(utc_timestamp(0), "1970-01-01T00:00:00Z");
        // 2000-02-29 12:34:56 UTC = 951827696 (a leap day).
        assert_eq!(utc_timestamp(951_827_696), "2000-02-29T12:34:56Z");
        // 2026-11-30 21:55:00 UTC = 1796075700.
        assert_eq!(utc_timestamp(1_796_075_700), "2026-11-30T21:55:00Z");
    }
}
