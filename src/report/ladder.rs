//! A ladder's report: `ladder.csv` (one row per agent and table size: rating,
//! wins per seat, decisions per second, share of the way from the reference
//! to the ceiling), `ladder.svg` (strength against decisions per second per
//! core), `report.md` (the tables and the plot), and each tournament's own
//! files in `2p/`, `4p/`, ...

use super::tournament::{rank_cell, saved_state, write_state, TournamentReport};
use crate::lab::ladder::{share_of_gap, LadderConfig, LadderOutcome, Rung, SavedRung, Speed};
use crate::lab::ratings::Results;
use crate::sim::stats::wilson95;
use serde_json::{json, Value};
use std::path::Path;

/// A finished (or interrupted) ladder, ready to write.
pub struct LadderReport<'a> {
    pub cfg: &'a LadderConfig,
    pub outcome: &'a LadderOutcome,
    /// The ladder file's text, quoted in the report.
    pub description: &'a str,
    pub elapsed_s: f64,
    pub started_utc: String,
}

use super::plots::LadderPoint as Point;

/// One agent at one table size.
struct Line<'a> {
    name: &'a str,
    players: usize,
    elo: (f64, (f64, f64)),
    /// The rank's 95% interval ([`crate::lab::ratings::rank_intervals`]).
    rank_ci95: Option<(usize, usize)>,
    win: (f64, (f64, f64)),
    seats: u64,
    wins: u64,
    dps: Option<f64>,
    share: Option<(f64, (f64, f64))>,
}

fn elo(r: &Rung, i: usize) -> (f64, (f64, f64)) {
    let x = &r.outcome.ratings[i];
    (x.elo, x.elo_ci95)
}

/// The share of the way entrant `i` covers from `reference` to `ceiling`
/// ([`share_of_gap`]), from the ratings' log-strengths and their covariance
/// in the tournament's fit (without it, each rating's own variance from its
/// interval, the ratings taken as independent).
fn share(r: &Rung, i: usize, reference: usize, ceiling: usize) -> Option<(f64, (f64, f64))> {
    let o = &r.outcome;
    let ids = [i, reference, ceiling];
    let k = o.ratings.len();
    let mut cov = [[0.0; 3]; 3];
    for (a, &x) in ids.iter().enumerate() {
        for (b, &y) in ids.iter().enumerate() {
            cov[a][b] = match &o.covariance {
                Some(c) => c[x * k + y],
                None if x == y => {
                    let (lo, hi) = o.ratings[x].elo_ci95;
                    let se = (hi - lo) / (2.0 * 1.959964) * std::f64::consts::LN_10 / 400.0;
                    se * se
                }
                None => 0.0,
            };
        }
    }
    share_of_gap(ids.map(|x| o.ratings[x].log_strength), cov)
}

impl LadderReport<'_> {
    fn lines(&self, r: &Rung) -> Vec<Line<'_>> {
        let res = &r.outcome.results;
        let ranks = &r.outcome.ranks;
        let mut v: Vec<Line> = self
            .cfg
            .entrants
            .iter()
            .enumerate()
            .map(|(i, e)| {
                let (seats, wins) = (res.seats[i], res.wins[i]);
                // 0 and 1 by definition at the reference and the ceiling
                // (an interval would give their own ratings' noise).
                let share = self.cfg.ceiling.and_then(|c| {
                    let s = share(r, i, self.cfg.reference, c)?;
                    Some(match i {
                        _ if i == self.cfg.reference => (0.0, (0.0, 0.0)),
                        _ if i == c => (1.0, (1.0, 1.0)),
                        _ => s,
                    })
                });
                Line {
                    name: e.name(),
                    players: r.players,
                    elo: elo(r, i),
                    rank_ci95: ranks.as_ref().map(|x| x[i]),
                    win: (
                        wins as f64 / seats.max(1) as f64,
                        wilson95(wins, seats.max(1)),
                    ),
                    seats,
                    wins,
                    dps: r.speeds.get(i).map(|s| s.decisions_per_second()),
                    share,
                }
            })
            .collect();
        v.sort_by(|a, b| b.elo.0.total_cmp(&a.elo.0));
        v
    }

    /// The ladder as one JSON object (`unolab ladder --json`, Python's
    /// `unolab.ladder`): what it played, and one row per agent and table
    /// size with `ladder.csv`'s columns (numbers, null where the CSV is
    /// empty: an agent not timed, no ceiling).
    pub fn to_json(&self) -> serde_json::Value {
        let mut rows = Vec::new();
        for r in &self.outcome.rungs {
            for (k, l) in self.lines(r).iter().enumerate() {
                rows.push(json!({
                    "players": l.players,
                    "rank": k + 1,
                    "rank_lo95": l.rank_ci95.map(|x| x.0),
                    "rank_hi95": l.rank_ci95.map(|x| x.1),
                    "strategy": l.name,
                    "elo": l.elo.0,
                    "elo_lo95": l.elo.1 .0,
                    "elo_hi95": l.elo.1 .1,
                    "seats": l.seats,
                    "wins": l.wins,
                    "win_rate_per_seat": l.win.0,
                    "win_lo95": l.win.1 .0,
                    "win_hi95": l.win.1 .1,
                    "fair_share": 1.0 / l.players as f64,
                    "decisions_per_second": l.dps,
                    "share_of_gap": l.share.map(|s| s.0),
                    "share_lo95": l.share.map(|s| s.1 .0),
                    "share_hi95": l.share.map(|s| s.1 .1),
                }));
            }
        }
        let e = &self.cfg.entrants;
        json!({
            "kind": "ladder",
            "name": self.cfg.name,
            "rules": self.cfg.rules.name,
            "players": self.cfg.players,
            "games": self.cfg.games,
            "games_played": self.outcome.rungs.iter().map(|r| r.outcome.results.games).collect::<Vec<_>>(),
            "seed": self.cfg.seed,
            "field": e.iter().map(|x| x.name()).collect::<Vec<_>>(),
            "reference": e[self.cfg.reference].name(),
            "ceiling": self.cfg.ceiling.map(|c| e[c].name()),
            "speed_seconds": self.cfg.speed_seconds,
            "elapsed_s": self.elapsed_s,
            "partial": self.outcome.partial,
            "rows": rows,
        })
    }

    /// `ladder.csv`.
    pub fn ladder_csv(&self) -> Result<String, csv::Error> {
        let mut w = csv::Writer::from_writer(vec![]);
        w.write_record([
            "players",
            "rank",
            "rank_lo95",
            "rank_hi95",
            "strategy",
            "elo",
            "elo_lo95",
            "elo_hi95",
            "seats",
            "wins",
            "win_rate_per_seat",
            "win_lo95",
            "win_hi95",
            "fair_share",
            "decisions_per_second",
            "share_of_gap",
            "share_lo95",
            "share_hi95",
        ])?;
        let f = |x: f64| format!("{x:.6}");
        // An unbounded end of a share's interval is left empty.
        let opt = |x: Option<f64>| x.filter(|x| x.is_finite()).map(f).unwrap_or_default();
        for r in &self.outcome.rungs {
            for (k, l) in self.lines(r).iter().enumerate() {
                w.write_record([
                    l.players.to_string(),
                    (k + 1).to_string(),
                    l.rank_ci95.map(|x| x.0.to_string()).unwrap_or_default(),
                    l.rank_ci95.map(|x| x.1.to_string()).unwrap_or_default(),
                    l.name.to_string(),
                    format!("{:.2}", l.elo.0),
                    format!("{:.2}", l.elo.1 .0),
                    format!("{:.2}", l.elo.1 .1),
                    l.seats.to_string(),
                    l.wins.to_string(),
                    f(l.win.0),
                    f(l.win.1 .0),
                    f(l.win.1 .1),
                    f(1.0 / l.players as f64),
                    l.dps.map(|d| format!("{d:.1}")).unwrap_or_default(),
                    opt(l.share.map(|s| s.0)),
                    opt(l.share.map(|s| s.1 .0)),
                    opt(l.share.map(|s| s.1 .1)),
                ])?;
            }
        }
        let bytes = w
            .into_inner()
            .map_err(|e| csv::Error::from(e.into_error()))?;
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    }

    /// Of an interrupted ladder, the games each table size played: "games
    /// played: 2280684 at 2 players, 0 at 3 players" (none when finished).
    pub fn played_note(&self) -> Option<String> {
        self.outcome.partial.then(|| {
            let played: Vec<String> = self
                .cfg
                .players
                .iter()
                .map(|&p| {
                    let games = self
                        .outcome
                        .rungs
                        .iter()
                        .find(|r| r.players == p)
                        .map_or(0, |r| r.outcome.results.games);
                    format!("{games} at {p} players")
                })
                .collect();
            format!("games played: {}", played.join(", "))
        })
    }

    /// `report.md`: the question, one table per table size, the plot, the
    /// command (its words; a Python call is `["python", CALL]`).
    pub fn markdown(&self, command: &[String]) -> String {
        let pct = |x: f64| format!("{:.1}%", 100.0 * x);
        let mut s = format!("# {}\n\n", self.cfg.name);
        if !self.description.trim().is_empty() {
            s.push_str(&format!("{}\n\n", self.description.trim()));
        }
        s.push_str(&format!(
            "Rules `{}`, {} games per table size, seed {}; speed: self-play on one thread, {} s per agent and table size.{}\n\n",
            self.cfg.rules.name,
            self.cfg.games,
            self.cfg.seed,
            self.cfg.speed_seconds,
            match self.played_note() {
                Some(played) => format!(" **Partial: interrupted** ({played})."),
                None => String::new(),
            }
        ));
        let refn = self.cfg.entrants[self.cfg.reference].name();
        let ceil = self.cfg.ceiling.map(|c| self.cfg.entrants[c].name());
        for r in &self.outcome.rungs {
            s.push_str(&format!(
                "## {} players\n\n| rank [95% CI] | strategy | Elo [95% CI] | wins per seat [95% CI] (fair {}) | decisions/s per core |{}\n| --- | --- | --- | --- | --- |{}\n",
                r.players,
                pct(1.0 / r.players as f64),
                ceil.map(|c| format!(" share of the way `{refn}` to `{c}` |")).unwrap_or_default(),
                if ceil.is_some() { " --- |" } else { "" },
            ));
            let lines = self.lines(r);
            for (k, l) in lines.iter().enumerate() {
                s.push_str(&format!(
                    "| {} {} | `{}` | {} [{}, {}] | {} [{}, {}] | {} |",
                    k + 1,
                    rank_cell(l.rank_ci95),
                    l.name,
                    super::text::elo_text(l.elo.0),
                    super::text::elo_text(l.elo.1 .0),
                    super::text::elo_text(l.elo.1 .1),
                    pct(l.win.0),
                    pct(l.win.1 .0),
                    pct(l.win.1 .1),
                    l.dps
                        .map(super::text::fmt_rate)
                        .unwrap_or_else(|| "-".into()),
                ));
                if ceil.is_some() {
                    match l.share {
                        _ if l.name == refn => s.push_str(" 0% (the reference) |"),
                        _ if Some(l.name) == ceil => s.push_str(" 100% (the ceiling) |"),
                        Some((p, (lo, hi))) if lo.is_finite() && hi.is_finite() => {
                            s.push_str(&format!(
                                " {:.0}% [{:.0}%, {:.0}%] |",
                                100.0 * p,
                                100.0 * lo,
                                100.0 * hi
                            ))
                        }
                        Some((p, _)) => s.push_str(&format!(" {:.0}% [unbounded] |", 100.0 * p)),
                        None => s.push_str(" - |"),
                    }
                }
                s.push('\n');
            }
            // Why a share has no interval, or no value, at this table size.
            if let Some(c) = ceil {
                let unbounded = lines
                    .iter()
                    .any(|l| l.share.is_some_and(|(_, (lo, _))| !lo.is_finite()));
                let none = lines
                    .iter()
                    .any(|l| l.share.is_none() && l.name != refn && l.name != c);
                if unbounded {
                    s.push_str(&format!("\n`{c}` is not shown above `{refn}` at {} players (the 95% interval of their ratings' difference holds 0): a share of the way has no bounded interval (Fieller's confidence set is unbounded), so each is given without one.\n", r.players));
                } else if none {
                    s.push_str(&format!("\n`{c}` rated at or below `{refn}` at {} players (by the point estimates): there is no way from one to the other to cover, so no share is given (-).\n", r.players));
                }
            }
            s.push('\n');
        }
        s.push_str("![strength against decisions per second per core](ladder.svg)\n\n");
        s.push_str(&format!(
            "Elo: Plackett-Luce on the round winner, 0 = the field's average, 95% intervals from the fit. \
             The rank orders the point estimates; its 95% interval, each agent's rank taken alone, counts the agents shown above and below it by simultaneous 95% intervals for its rating differences (with the ratings' covariance in the fit). \
             The share of the way is (Elo - Elo of `{refn}`) / (Elo of the ceiling - Elo of `{refn}`); its interval \
             is Fieller's, from the three ratings and their covariance in the tournament's fit. Each tournament's ratings, head-to-head \
             table and plot are in its folder ({folders}).\n\n{regenerate}\n",
            // A partial ladder is continued, not played again.
            regenerate = if self.outcome.partial {
                format!("Continue: {}", again(command, ("--resume", "resume=True")))
            } else {
                format!("Regenerate: {}", again(command, ("--force", "force=True")))
            },
            folders = self
                .outcome
                .rungs
                .iter()
                .map(|r| format!("`{}p/`", r.players))
                .collect::<Vec<_>>()
                .join(", ")
        ));
        s
    }

    /// `ladder.svg`: Elo (with its interval) against decisions per second
    /// per core, log scale, one colour per table size.
    pub fn ladder_svg(&self) -> Result<String, String> {
        let pts: Vec<Point> = self
            .outcome
            .rungs
            .iter()
            .flat_map(|r| {
                self.lines(r)
                    .into_iter()
                    .filter_map(|l| l.dps.map(|d| (l.players, l.name.to_string(), d, l.elo)))
                    .collect::<Vec<_>>()
            })
            .collect();
        let sizes: Vec<usize> = self.outcome.rungs.iter().map(|r| r.players).collect();
        let partial = self.played_note();
        super::plots::ladder(
            &self.cfg.rules.name,
            self.cfg.games,
            &sizes,
            &pts,
            partial.as_deref(),
        )
    }

    /// Writes `ladder.csv`, `ladder.svg`, `report.md`, `manifest.json` and
    /// each tournament's folder into `dir`, all or none: when a write fails
    /// (a full disk), the tournaments' results written before it are
    /// removed again (and their folders, when left empty), so that no
    /// ladder is left without its table and the same command can run again
    /// without `--force`.
    pub fn write_dir(&self, dir: &Path, commands: &[Vec<String>]) -> Result<(), String> {
        let written = self.write_all(dir, commands);
        if written.is_err() {
            for r in &self.outcome.rungs {
                let _ = remove_size(dir, r.players);
            }
        }
        written
    }

    fn write_all(&self, dir: &Path, commands: &[Vec<String>]) -> Result<(), String> {
        for r in &self.outcome.rungs {
            let t = self.cfg.tournament(r.players);
            let rep = TournamentReport {
                cfg: &t,
                outcome: &r.outcome,
                elapsed_s: self.elapsed_s,
                started_utc: self.started_utc.clone(),
            };
            rep.write_dir(&dir.join(format!("{}p", r.players)), commands)?;
        }
        let first = commands.first().cloned().unwrap_or_default();
        let manifest = json!({
            "kind": "ladder",
            "name": self.cfg.name,
            "command": first,
            "continued_by": commands.get(1..).unwrap_or_default(),
            "version": env!("CARGO_PKG_VERSION"),
            "started_utc": self.started_utc,
            "elapsed_s": self.elapsed_s,
            "rules": self.cfg.rules.name,
            "players": self.cfg.players,
            "games": self.cfg.games,
            "seed": self.cfg.seed,
            "threads": self.cfg.threads,
            "field": self.cfg.entrants.iter().map(|e| e.name()).collect::<Vec<_>>(),
            "speed_seconds": self.cfg.speed_seconds,
            "partial": self.outcome.partial,
            // What a redraw marks the plot partial with.
            "partial_note": self.played_note(),
        });
        let files = [
            ("ladder.csv", self.ladder_csv().map_err(|e| e.to_string())?),
            ("ladder.svg", self.ladder_svg()?),
            ("report.md", self.markdown(&first)),
            (
                "manifest.json",
                serde_json::to_string_pretty(&manifest).map_err(|e| e.to_string())? + "\n",
            ),
        ];
        super::write_files_atomically(dir, &files)
    }
}

/// The command that plays a ladder again into the folder that holds its
/// results now, with `flag` (`--force`, or `--resume` for a partial one;
/// in a Python call its keyword): the other of the two is left out.
fn again(command: &[String], (flag, keyword): (&str, &str)) -> String {
    let other = |w: &str| ["--force", "--resume"].contains(&w) && w != flag;
    match command {
        [py, call] if py == "python" => {
            let mut call = call
                .replace(", force=True", "")
                .replace(", resume=True", "");
            if let Some(head) = call.strip_suffix(')') {
                let sep = if head.ends_with('(') { "" } else { ", " };
                call = format!("{head}{sep}{keyword})");
            }
            format!("{} in Python", super::text::code_span(&call))
        }
        _ => {
            let mut words: Vec<&str> = command
                .iter()
                .map(String::as_str)
                .filter(|w| !other(w))
                .collect();
            if !words.contains(&flag) {
                words.push(flag);
            }
            super::text::code_span(&words.join(" "))
        }
    }
}

/// Removes the results of an earlier ladder's table sizes that one of
/// `players` does not play from `out` (`--force`, `force=True`): they would
/// be left beside the new results, read as its own.
pub fn remove_other_sizes(out: &Path, players: &[usize]) -> Result<(), String> {
    for p in 2..=10 {
        if !players.contains(&p) && out.join(format!("{p}p")).is_dir() {
            remove_size(out, p)?;
        }
    }
    Ok(())
}

/// Removes the results of table size `players` from `out` (its `Np`
/// folder's result files, and the folder when that leaves it empty).
fn remove_size(out: &Path, players: usize) -> Result<(), String> {
    let dir = out.join(format!("{players}p"));
    super::outdir::clear_results(&dir)?;
    let _ = std::fs::remove_dir(&dir);
    Ok(())
}

// ----- the saved state of an interrupted ladder ----------------------------------

/// What a saved ladder must match to be continued: the rule set, the table
/// sizes, every agent of the field (`field`: each one's description, as
/// `StrategySpec::to_json` gives it), the games per table size, the seed and
/// the seconds each agent is timed.
pub fn state_fingerprint(cfg: &LadderConfig, field: Vec<Value>) -> Value {
    json!({
        "rule_set": serde_json::to_value(&cfg.rules.file).unwrap_or(Value::Null),
        "players": cfg.players,
        "field": field,
        "games": cfg.games,
        "seed": cfg.seed,
        "speed_seconds": cfg.speed_seconds,
        // Checked against the folder's manifest ([`read_state`]), not the
        // state (states saved before it was written hold no name).
        "name": cfg.name,
    })
}

/// The manifest of the ladder `dir` holds, if any; refused when it is
/// another ladder's than `name` (a `--redraw` or a resume with another
/// ladder's file, or with this one renamed since).
pub fn manifest_of(dir: &Path, name: &str) -> Result<Option<Value>, String> {
    let manifest = super::outdir::read_manifest(dir).filter(|m| m["kind"] == "ladder");
    match manifest.as_ref().and_then(|m| m["name"].as_str()) {
        Some(held) if held != name => Err(format!(
            "{} holds the ladder '{held}', not '{name}': give its own ladder file",
            dir.display()
        )),
        _ => Ok(manifest),
    }
}

/// Writes or removes `dir/state.json` after a ladder: while it is partial,
/// each table size played (its tournament's finished games, and its speeds
/// once every agent was timed), what resuming continues from, with the
/// `commands` that played it and the seconds they took (`elapsed_s`); none
/// once it is finished.
pub fn save_state(
    dir: &Path,
    print: &Value,
    outcome: &LadderOutcome,
    commands: &[Vec<String>],
    elapsed_s: f64,
) -> Result<(), String> {
    let state = outcome.partial.then(|| {
        let rungs: Vec<Value> = outcome
            .rungs
            .iter()
            .map(|r| {
                let timed = !r.outcome.partial && r.speeds.len() == r.outcome.results.strategies;
                json!({
                    "players": r.players,
                    "results": r.outcome.results.to_json(),
                    "speeds": if timed {
                        Value::Array(
                            r.speeds
                                .iter()
                                .map(|s| json!({"decisions": s.decisions, "rounds": s.rounds, "seconds": s.seconds}))
                                .collect(),
                        )
                    } else {
                        Value::Null
                    },
                })
            })
            .collect();
        json!({
            "ladder": print,
            "rungs": rungs,
            "commands": commands,
            "elapsed_s": elapsed_s,
        })
    });
    write_state(dir, "ladder", state)
}

/// The table sizes saved by an interrupted ladder in `dir`, checked against
/// this one (`print`, [`state_fingerprint`]).
pub fn read_state(dir: &Path, print: &Value) -> Result<Vec<SavedRung>, String> {
    let keys = [
        "rule_set",
        "players",
        "field",
        "games",
        "seed",
        "speed_seconds",
    ];
    let (v, path) = saved_state(
        dir,
        "ladder",
        print,
        &keys,
        "give the same file and --games",
    )?;
    // A ladder renamed in its file went on into the folder of the old name.
    if let Some(name) = print["name"].as_str() {
        manifest_of(dir, name)?;
    }
    let bad = |why: &str| format!("{}: {why}", path.display());
    let players: Vec<u64> = print["players"]
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_u64).collect())
        .unwrap_or_default();
    let agents = print["field"].as_array().map_or(0, Vec::len);
    let games = print["games"].as_u64().unwrap_or(0);
    let rungs = v
        .get("rungs")
        .and_then(Value::as_array)
        .ok_or_else(|| bad("no 'rungs'"))?;
    if rungs.len() > players.len() {
        return Err(bad("more table sizes than the ladder has"));
    }
    let mut out = Vec::with_capacity(rungs.len());
    for (k, r) in rungs.iter().enumerate() {
        if r.get("players").and_then(Value::as_u64) != Some(players[k]) {
            return Err(bad(&format!("table size {} is not the ladder's", k + 1)));
        }
        let results =
            Results::from_json(r.get("results").unwrap_or(&Value::Null)).map_err(|e| bad(&e))?;
        if results.strategies != agents {
            return Err(bad(&format!(
                "its counts at {} players are of {} strategies, the field has {agents}",
                players[k], results.strategies
            )));
        }
        results
            .check_players(players[k] as usize)
            .map_err(|e| bad(&e))?;
        if results.games > games {
            return Err(bad(&format!(
                "it holds {} games at {} players, more than the {games} asked",
                results.games, players[k]
            )));
        }
        let speeds = match r.get("speeds") {
            None | Some(Value::Null) => None,
            Some(Value::Array(a)) if a.len() == agents && results.games == games => {
                let mut v = Vec::with_capacity(a.len());
                for s in a {
                    let (Some(decisions), Some(rounds), Some(seconds)) = (
                        s.get("decisions").and_then(Value::as_u64),
                        s.get("rounds").and_then(Value::as_u64),
                        s.get("seconds").and_then(Value::as_f64),
                    ) else {
                        return Err(bad("a speed without decisions, rounds and seconds"));
                    };
                    if !(seconds.is_finite() && seconds > 0.0) {
                        return Err(bad("a speed of no, negative or endless seconds"));
                    }
                    v.push(Speed {
                        decisions,
                        rounds,
                        seconds,
                    });
                }
                Some(v)
            }
            Some(_) => return Err(bad("speeds that do not fit the field or the games")),
        };
        // A table size whose agents were timed was finished: every size
        // before the last saved one was.
        if k + 1 < rungs.len() && speeds.is_none() {
            return Err(bad(&format!(
                "table size {} players is not finished, yet a later one was played",
                players[k]
            )));
        }
        out.push(SavedRung { results, speeds });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lab::ratings::{Rating, Results};
    use crate::lab::tournament::TournamentOutcome;

    fn rating(log_strength: f64, half: f64) -> Rating {
        let elo = log_strength * 400.0 / std::f64::consts::LN_10;
        let h = half * 400.0 / std::f64::consts::LN_10;
        Rating {
            log_strength,
            elo,
            elo_ci95: (elo - h, elo + h),
            p_average_table: 0.5,
            p_average_table_ci95: (0.4, 0.6),
        }
    }

    #[test]
    fn a_share_takes_its_three_ratings_and_their_covariance_from_the_fit() {
        // Four entrants; the share of entrant 3 from reference 1 to ceiling 2
        // reads their entries of the 4 x 4 covariance (row major), not
        // another entrant's.
        let ratings = vec![
            rating(-0.5, 0.1),
            rating(-0.2, 0.1),
            rating(0.6, 0.1),
            rating(0.1, 0.1),
        ];
        let k = 4;
        let mut cov = vec![0.0; k * k];
        for i in 0..k {
            for j in 0..k {
                cov[i * k + j] = if i == j {
                    0.01 + 0.001 * i as f64
                } else {
                    0.0005 * (i + j) as f64
                };
            }
        }
        let rung = |covariance| Rung {
            players: 4,
            outcome: TournamentOutcome {
                results: Results::new(k),
                ratings: ratings.clone(),
                covariance,
                ranks: None,
                partial: false,
                unfinished: None,
            },
            speeds: Vec::new(),
        };
        let with = share(&rung(Some(cov.clone())), 3, 1, 2).unwrap();
        let ids = [3, 1, 2];
        let expect = share_of_gap(
            ids.map(|x| ratings[x].log_strength),
            ids.map(|x| ids.map(|y| cov[x * k + y])),
        )
        .unwrap();
        assert_eq!(with, expect);
        assert!((with.0 - 0.375).abs() < 1e-12, "{with:?}");
        // Without a covariance: each rating's variance from its interval
        // (half-width 0.1 = 1.96 se), the ratings independent.
        let without = share(&rung(None), 3, 1, 2).unwrap();
        let v = (0.1f64 / 1.959964).powi(2);
        let diag = [[v, 0.0, 0.0], [0.0, v, 0.0], [0.0, 0.0, v]];
        let expect = share_of_gap(ids.map(|x| ratings[x].log_strength), diag).unwrap();
        assert!(
            (without.1 .0 - expect.1 .0).abs() < 1e-9,
            "{without:?} {expect:?}"
        );
        assert!(
            (without.1 .1 - expect.1 .1).abs() < 1e-9,
            "{without:?} {expect:?}"
        );
    }

    #[test]
    fn a_saved_ladder_of_another_field_size_is_refused_naming_its_state() {
        // The counts of 2 strategies under a field of 3 reached the
        // tournament, whose message named neither --resume nor the file.
        let dir = std::env::temp_dir().join(format!("unolab-ladder-state-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let print = json!({
            "rule_set": null, "players": [2], "field": ["a", "b", "c"],
            "games": 10, "seed": 1, "speed_seconds": 0.1,
        });
        let state = json!({
            "kind": "ladder",
            "ladder": print,
            "rungs": [{"players": 2, "results": Results::new(2).to_json(), "speeds": null}],
        });
        std::fs::write(dir.join("state.json"), state.to_string()).unwrap();
        let e = read_state(&dir, &print).unwrap_err();
        assert!(
            e.contains("state.json") && e.contains("are of 2 strategies, the field has 3"),
            "{e}"
        );
        // The same counts under a field of 2 are taken.
        let mut print2 = print.clone();
        print2["field"] = json!(["a", "b"]);
        let mut state2 = state.clone();
        state2["ladder"] = print2.clone();
        std::fs::write(dir.join("state.json"), state2.to_string()).unwrap();
        assert_eq!(read_state(&dir, &print2).unwrap().len(), 1);
        // A speed of no seconds (it read as 5e12 decisions per second).
        let mut print3 = print2.clone();
        print3["games"] = json!(0);
        let mut state3 = state2.clone();
        state3["ladder"] = print3.clone();
        state3["rungs"][0]["speeds"] = json!([
            {"decisions": 5, "rounds": 1, "seconds": 1.0},
            {"decisions": 5, "rounds": 0, "seconds": 0.0},
        ]);
        std::fs::write(dir.join("state.json"), state3.to_string()).unwrap();
        let e = read_state(&dir, &print3).unwrap_err();
        assert!(
            e.contains("a speed of no, negative or endless seconds"),
            "{e}"
        );
        state3["rungs"][0]["speeds"][1]["seconds"] = json!(0.5);
        std::fs::write(dir.join("state.json"), state3.to_string()).unwrap();
        assert!(read_state(&dir, &print3).unwrap()[0].speeds.is_some());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
