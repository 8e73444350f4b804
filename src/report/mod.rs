//! Reports of a run: the summary table, the JSON summary, the CSV files and the
//! manifest. Everything is returned as text or written to files; nothing prints.

use crate::sim::stats::{wilson95, Histogram};
use crate::sim::{Mode, RunConfig, RunStats};
use serde_json::{json, Value};
use std::fmt::Write as _;
use std::path::Path;

/// A finished (or interrupted) run with what is needed to report it.
pub struct Report<'a> {
    pub cfg: &'a RunConfig,
    pub stats: &'a RunStats,
    pub elapsed_s: f64,
    pub partial: bool,
}

fn rate(k: u64, n: u64) -> f64 {
    if n == 0 {
        0.0
    } else {
        k as f64 / n as f64
    }
}

fn round6(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}

fn summary_json(h: &Histogram) -> Value {
    let s = h.summary();
    json!({
        "count": s.count, "mean": round6(s.mean), "sd": round6(s.sd), "min": s.min, "max": s.max,
        "p5": s.p5, "p25": s.p25, "p50": s.p50, "p75": s.p75, "p95": s.p95,
    })
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

    /// The summary as one JSON object (`unolab run --json`).
    pub fn to_json(&self) -> Value {
        let st = self.stats;
        let cfg = self.cfg;
        let strategies: Vec<Value> = st
            .strategies
            .iter()
            .map(|s| {
                let (lo, hi) = wilson95(s.round_wins, st.rounds);
                let (mlo, mhi) = wilson95(s.match_wins, st.games);
                let matches = cfg.mode == Mode::Match;
                json!({
                    "name": s.name,
                    "seats": s.seats,
                    "round_wins": s.round_wins,
                    "round_win_rate": round6(rate(s.round_wins, st.rounds)),
                    "round_win_ci95": [round6(lo), round6(hi)],
                    "match_wins": s.match_wins,
                    "match_win_rate": if matches { json!(round6(rate(s.match_wins, st.games))) } else { Value::Null },
                    "match_win_ci95": if matches { json!([round6(mlo), round6(mhi)]) } else { Value::Null },
                    "points_mean": round6(s.round_points.mean()),
                    "round_points": summary_json(&s.round_points),
                    "match_points": if matches { summary_json(&s.match_points) } else { Value::Null },
                    "illegal": s.illegal,
                })
            })
            .collect();
        let seats: Vec<Value> = st
            .seats
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let (lo, hi) = wilson95(s.round_wins, st.rounds);
                json!({
                    "seat": i,
                    "round_wins": s.round_wins,
                    "round_win_rate": round6(rate(s.round_wins, st.rounds)),
                    "round_win_ci95": [round6(lo), round6(hi)],
                    "match_wins": s.match_wins,
                })
            })
            .collect();
        let positions: Vec<Value> = st
            .position_wins
            .iter()
            .enumerate()
            .map(|(i, &w)| {
                let (lo, hi) = wilson95(w, st.won);
                json!({"position": i, "round_wins": w, "win_rate": round6(rate(w, st.won)), "win_ci95": [round6(lo), round6(hi)]})
            })
            .collect();
        let t = st.turns.summary();
        json!({
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
            "players": cfg.players,
            "fixed_seats": cfg.fixed_seats,
            "lineup": cfg.lineup.iter().map(|s| s.name()).collect::<Vec<_>>(),
            "strategies": strategies,
            "seats": seats,
            "first_player": positions,
            "turns": {"mean": round6(t.mean), "sd": round6(t.sd), "p5": t.p5, "p25": t.p25, "p50": t.p50, "p75": t.p75, "p95": t.p95, "max": t.max},
            "cards_drawn": summary_json(&st.cards_drawn),
            "rounds_per_match": if cfg.mode == Mode::Match { summary_json(&st.rounds_per_match) } else { Value::Null },
            "won": st.won,
            "blocked": st.blocked,
            "truncated": st.truncated,
            "tied_matches": st.tied_matches,
            "uno_penalties": st.uno_penalties,
            "illegal": st.illegal,
        })
    }

    /// The readable summary table.
    pub fn to_text(&self) -> String {
        let st = self.stats;
        let cfg = self.cfg;
        let pct = |x: f64| format!("{:.2}%", 100.0 * x);
        let mut o = String::new();
        let unit = if cfg.mode == Mode::Match {
            "matches"
        } else {
            "rounds"
        };
        let played = if cfg.mode == Mode::Match {
            format!("{} matches ({} rounds)", st.games, st.rounds)
        } else {
            format!("{} rounds", st.games)
        };
        let _ = writeln!(
            o,
            "unolab run: rules {}, {} players, {}{}, seed {}, {} thread{}",
            cfg.rules.name,
            cfg.players,
            played,
            if self.partial {
                format!(" PARTIAL: {} of {} requested", st.games, cfg.games)
            } else {
                String::new()
            },
            cfg.seed,
            cfg.threads,
            if cfg.threads == 1 { "" } else { "s" }
        );
        let _ = writeln!(
            o,
            "elapsed {:.3} s, {:.0} {unit}/s; seats {}\n",
            self.elapsed_s,
            self.games_per_second(),
            if cfg.fixed_seats { "fixed" } else { "rotated" }
        );
        let _ = writeln!(
            o,
            "{:<16} {:>5} {:>10} {:>8}  {:<19} {:>9}  {:<19} {:>9} {:>7}",
            "strategy",
            "seats",
            "round wins",
            "share",
            "95% CI",
            "match wins",
            "95% CI",
            "pts/won",
            "illegal"
        );
        for s in &st.strategies {
            let (lo, hi) = wilson95(s.round_wins, st.rounds);
            let (mlo, mhi) = wilson95(s.match_wins, st.games);
            let mci = if cfg.mode == Mode::Match {
                format!("[{}, {}]", pct(mlo), pct(mhi))
            } else {
                "-".into()
            };
            let _ = writeln!(
                o,
                "{:<16} {:>5} {:>10} {:>8}  {:<19} {:>9}  {:<19} {:>9.1} {:>7}",
                s.name,
                s.seats,
                s.round_wins,
                pct(rate(s.round_wins, st.rounds)),
                format!("[{}, {}]", pct(lo), pct(hi)),
                if cfg.mode == Mode::Match {
                    s.match_wins.to_string()
                } else {
                    "-".into()
                },
                mci,
                s.round_points.mean(),
                s.illegal
            );
        }
        let _ = writeln!(
            o,
            "\n{:<6} {:>10} {:>8}  {:<19}",
            "seat", "round wins", "share", "95% CI"
        );
        for (i, s) in st.seats.iter().enumerate() {
            let (lo, hi) = wilson95(s.round_wins, st.rounds);
            let _ = writeln!(
                o,
                "{:<6} {:>10} {:>8}  [{}, {}]",
                i,
                s.round_wins,
                pct(rate(s.round_wins, st.rounds)),
                pct(lo),
                pct(hi)
            );
        }
        let _ = writeln!(
            o,
            "\nwins by position after the first mover (share of won rounds):"
        );
        for (i, &w) in st.position_wins.iter().enumerate() {
            let (lo, hi) = wilson95(w, st.won);
            let _ = writeln!(
                o,
                "  +{i}: {:>8}  [{}, {}]",
                pct(rate(w, st.won)),
                pct(lo),
                pct(hi)
            );
        }
        let line = |name: &str, h: &Histogram| {
            let s = h.summary();
            format!(
                "{name}: mean {:.2}, sd {:.2}, p5 {}, p25 {}, median {}, p75 {}, p95 {}, max {}\n",
                s.mean, s.sd, s.p5, s.p25, s.p50, s.p75, s.p95, s.max
            )
        };
        o.push('\n');
        o.push_str(&line("turns per round", &st.turns));
        o.push_str(&line("cards drawn per round", &st.cards_drawn));
        for s in &st.strategies {
            o.push_str(&line(
                &format!("points per round won ({})", s.name),
                &s.round_points,
            ));
            if cfg.mode == Mode::Match {
                o.push_str(&line(
                    &format!("points per match ({})", s.name),
                    &s.match_points,
                ));
            }
        }
        if cfg.mode == Mode::Match {
            o.push_str(&line("rounds per match", &st.rounds_per_match));
            let _ = writeln!(o, "tied matches: {}", st.tied_matches);
        }
        let _ = writeln!(
            o,
            "blocked rounds: {}, truncated rounds: {}, UNO penalties: {}, illegal actions: {}",
            st.blocked, st.truncated, st.uno_penalties, st.illegal
        );
        o
    }

    /// `summary.csv`: a row per strategy, per seat and per position after the first mover.
    pub fn summary_csv(&self) -> Result<String, csv::Error> {
        let st = self.stats;
        let mut w = csv::Writer::from_writer(Vec::new());
        w.write_record([
            "kind",
            "name",
            "seats",
            "rounds",
            "round_wins",
            "round_win_rate",
            "round_ci95_low",
            "round_ci95_high",
            "matches",
            "match_wins",
            "match_win_rate",
            "match_ci95_low",
            "match_ci95_high",
            "points_mean",
            "points_sd",
            "points_p50",
            "illegal",
        ])?;
        let matches = if self.cfg.mode == Mode::Match {
            st.games
        } else {
            0
        };
        let f = |x: f64| format!("{:.6}", x);
        // wins out of n: the count, the share and its Wilson 95% interval.
        let share = |wins: u64, n: u64| -> [String; 4] {
            let (lo, hi) = wilson95(wins, n);
            [wins.to_string(), f(rate(wins, n)), f(lo), f(hi)]
        };
        let mut row = |head: [String; 4], round: [String; 4], tail: Vec<String>| {
            let fields: Vec<String> = head.into_iter().chain(round).chain(tail).collect();
            w.write_record(&fields)
        };
        for s in &st.strategies {
            let sum = s.round_points.summary();
            let mut tail = vec![matches.to_string()];
            tail.extend(share(s.match_wins, matches));
            tail.extend([
                f(sum.mean),
                f(sum.sd),
                sum.p50.to_string(),
                s.illegal.to_string(),
            ]);
            let head = [
                "strategy".into(),
                s.name.clone(),
                s.seats.to_string(),
                st.rounds.to_string(),
            ];
            row(head, share(s.round_wins, st.rounds), tail)?;
        }
        for (i, s) in st.seats.iter().enumerate() {
            let mut tail = vec![matches.to_string()];
            tail.extend(share(s.match_wins, matches));
            tail.extend(std::iter::repeat_n(String::new(), 4));
            let head = [
                "seat".into(),
                i.to_string(),
                "1".into(),
                st.rounds.to_string(),
            ];
            row(head, share(s.round_wins, st.rounds), tail)?;
        }
        for (i, &wins) in st.position_wins.iter().enumerate() {
            let head = [
                "position".into(),
                format!("+{i}"),
                "1".into(),
                st.won.to_string(),
            ];
            row(head, share(wins, st.won), vec![String::new(); 9])?;
        }
        let bytes = w
            .into_inner()
            .map_err(|e| csv::Error::from(e.into_error()))?;
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    }

    /// `distributions.csv`: every histogram, one row per non-empty value.
    pub fn distributions_csv(&self) -> Result<String, csv::Error> {
        let st = self.stats;
        let mut w = csv::Writer::from_writer(Vec::new());
        w.write_record(["distribution", "group", "value", "count"])?;
        let mut put = |name: &str, group: &str, h: &Histogram| -> Result<(), csv::Error> {
            for (v, c) in h.bins() {
                w.write_record([name, group, &v.to_string(), &c.to_string()])?;
            }
            if h.overflow() > 0 {
                w.write_record([
                    name,
                    group,
                    &format!(">={}", h.cap()),
                    &h.overflow().to_string(),
                ])?;
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
        for s in &st.strategies {
            put("points_per_round_won", &s.name, &s.round_points)?;
        }
        if self.cfg.mode == Mode::Match {
            for s in &st.strategies {
                put("points_per_match", &s.name, &s.match_points)?;
            }
            put("rounds_per_match", "all", &st.rounds_per_match)?;
        }
        let bytes = w
            .into_inner()
            .map_err(|e| csv::Error::from(e.into_error()))?;
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    }

    /// `manifest.json`: the command line, every resolved setting, seed, version,
    /// threads, elapsed time and whether the run is partial.
    pub fn manifest(&self, command: &[String]) -> Value {
        let cfg = self.cfg;
        json!({
            "command": command,
            "version": env!("CARGO_PKG_VERSION"),
            "rules": cfg.rules.name,
            "rule_set": serde_json::to_value(&cfg.rules.file).unwrap_or(Value::Null),
            "players": cfg.players,
            "lineup": cfg.lineup.iter().map(|s| format!("{s:?}")).collect::<Vec<_>>(),
            "games_requested": cfg.games,
            "games_completed": self.stats.games,
            "partial": self.partial,
            "mode": cfg.mode.name(),
            "seed": cfg.seed,
            "threads": cfg.threads,
            "fixed_seats": cfg.fixed_seats,
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

/// Writes each `(name, text)` into `dir` through a temporary file and a rename.
pub fn write_files_atomically(dir: &Path, files: &[(&str, String)]) -> Result<(), String> {
    std::fs::create_dir_all(dir)
        .map_err(|e| format!("cannot create output directory {}: {e}", dir.display()))?;
    let mut temps = Vec::new();
    for (name, text) in files {
        let tmp = dir.join(format!(".{name}.tmp"));
        if let Err(e) = std::fs::write(&tmp, text) {
            for t in &temps {
                let _ = std::fs::remove_file(t);
            }
            let _ = std::fs::remove_file(&tmp);
            return Err(format!("cannot write {}: {e}", tmp.display()));
        }
        temps.push(tmp);
    }
    for ((name, _), tmp) in files.iter().zip(&temps) {
        std::fs::rename(tmp, dir.join(name))
            .map_err(|e| format!("cannot write {}: {e}", dir.join(name).display()))?;
    }
    Ok(())
}
