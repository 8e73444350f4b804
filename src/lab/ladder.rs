//! The strength ladder: every agent of a field rated in one tournament per
//! table size ([`super::tournament`]), and each agent's cost measured as
//! decisions per second on one core (self-play: every seat the agent, one
//! thread). A ladder file (`experiments/ladder.toml`) names the field, the
//! table sizes, the games and the seed; `unolab ladder FILE` plays it.
//!
//! The ratings depend on the seed alone (any thread count); the speeds are
//! timings of this machine, taken one agent at a time.

use super::ratings::Results;
use super::tournament::{self, TournamentConfig, TournamentError, TournamentOutcome};
pub use super::ConfigError;
use super::{new_game, play_round, Entrant};
use crate::agents::StrategySpec;
use crate::agents::{HookAt, Hooked, Seat};
use crate::engine::game::Observation;
use crate::engine::rules::{RuleSetFile, Rules};
use crate::sim::handout::cut_short;
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// A ladder file, as written (`experiments/ladder.toml`).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LadderFile {
    pub name: String,
    #[serde(default)]
    pub description: String,
    /// A rule set name or file.
    #[serde(default = "classic")]
    pub rules: String,
    /// The table sizes: one tournament each.
    pub players: Vec<usize>,
    /// Games (one round each) per tournament.
    pub games: u64,
    /// An integer, or above 2^63-1 a string, as in experiment files.
    #[serde(deserialize_with = "crate::lab::options::seed_in_file")]
    pub seed: u64,
    /// The field: strategy names or preset paths, each once.
    pub field: Vec<String>,
    /// The reference the "share of the way" starts from (a member of the field).
    pub reference: String,
    /// The ceiling it ends at (a member of the field; usually the
    /// perfect-information `oracle`), or none.
    #[serde(default)]
    pub ceiling: Option<String>,
    /// Seconds of self-play per agent and table size for its speed.
    #[serde(default = "one_second")]
    pub speed_seconds: f64,
    /// Whether the perfect-information reference may take part.
    #[serde(default)]
    pub allow_oracle: bool,
}

fn classic() -> String {
    "classic".into()
}

/// The top-level keys of a TOML text (none when it does not parse).
fn top_keys(text: &str) -> Vec<String> {
    toml::from_str::<toml::Table>(text)
        .map(|t| t.keys().cloned().collect())
        .unwrap_or_default()
}

/// Whether `text` reads as a ladder file (a `field` of agents, no arms):
/// given where an experiment file was expected, it is named as one.
pub fn looks_like_ladder(text: &str) -> bool {
    let keys = top_keys(text);
    keys.iter().any(|k| k == "field") && !keys.iter().any(|k| k == "arm" || k == "base")
}

/// Whether `text` reads as an experiment file (arms or a `[base]`), given
/// where a ladder file was expected.
fn looks_like_experiment(text: &str) -> bool {
    let keys = top_keys(text);
    keys.iter().any(|k| k == "arm" || k == "base") && !keys.iter().any(|k| k == "field")
}

impl LadderFile {
    /// Reads a ladder file's text (`origin` names it in the message: one
    /// line, with the line of the file it is about).
    pub fn parse(text: &str, origin: &str) -> Result<LadderFile, String> {
        toml::from_str(text).map_err(|e| {
            let mut why = crate::engine::rules::plain_toml_message(e.message());
            if looks_like_experiment(text) {
                why.push_str(": this is an experiment file (arms compared); run it with `unolab experiment run FILE`");
            }
            match e.span() {
                Some(s) => format!(
                    "{origin}:{}: {why}",
                    crate::engine::rules::line_and_key(text, s.start)
                ),
                None => format!("{origin}: {why}"),
            }
        })
    }

    /// The ladder to play, checked (its field's strategies as loaded, in
    /// order, beside it): `games` instead of the file's, on `threads`.
    /// `origin` names the file in messages.
    pub fn config(
        &self,
        origin: &str,
        games: Option<u64>,
        threads: usize,
    ) -> Result<(LadderConfig, Vec<StrategySpec>), ConfigError> {
        self.checked(games, threads).map_err(|e| e.within(origin))
    }

    fn checked(
        &self,
        games: Option<u64>,
        threads: usize,
    ) -> Result<(LadderConfig, Vec<StrategySpec>), ConfigError> {
        let invalid = ConfigError::Invalid;
        // The file's own numbers are named as its keys (the tournament's
        // check speaks of --games).
        if games.is_none() && self.games == 0 {
            return Err(invalid(
                "games = 0: a ladder plays at least 1 game per table size".into(),
            ));
        }
        let rules = RuleSetFile::resolve(&self.rules, &[], &[])
            .and_then(Rules::build)
            .map_err(ConfigError::Rules)?;
        let mut specs = Vec::with_capacity(self.field.len());
        for name in &self.field {
            specs.push(StrategySpec::load(name).map_err(ConfigError::Strategy)?);
        }
        let entrants: Vec<Entrant> = specs.iter().map(Entrant::from_spec).collect();
        let find = |n: &str, what: &str| {
            entrants
                .iter()
                .position(|e| e.name() == n)
                .ok_or_else(|| invalid(format!("{what} = '{n}' is not in the field")))
        };
        let reference = find(&self.reference, "reference")?;
        let ceiling = match &self.ceiling {
            Some(c) => Some(find(c, "ceiling")?),
            None => None,
        };
        if ceiling == Some(reference) {
            return Err(invalid(format!(
                "ceiling = '{}' is the reference: the share of the way from one to the other would be 0 / 0 (name another ceiling, or none)",
                self.reference
            )));
        }
        let cfg = LadderConfig {
            name: self.name.clone(),
            rules,
            players: self.players.clone(),
            entrants,
            games: games.unwrap_or(self.games),
            seed: self.seed,
            threads,
            reference,
            ceiling,
            speed_seconds: self.speed_seconds,
            allow_oracle: self.allow_oracle,
        };
        cfg.validate().map_err(|e| invalid(e.to_string()))?;
        Ok((cfg, specs))
    }
}

fn one_second() -> f64 {
    1.0
}

/// A ladder ready to play.
#[derive(Clone, Debug)]
pub struct LadderConfig {
    pub name: String,
    pub rules: Rules,
    pub players: Vec<usize>,
    pub entrants: Vec<Entrant>,
    pub games: u64,
    pub seed: u64,
    pub threads: usize,
    /// Indices into `entrants`.
    pub reference: usize,
    pub ceiling: Option<usize>,
    pub speed_seconds: f64,
    pub allow_oracle: bool,
}

impl LadderConfig {
    /// The tournament of `players` seats.
    pub fn tournament(&self, players: usize) -> TournamentConfig {
        TournamentConfig {
            rules: self.rules.clone(),
            players,
            entrants: self.entrants.clone(),
            games: self.games,
            seed: self.seed,
            threads: self.threads,
            // The field holds search agents: small units keep an
            // interrupt prompt (the unit changes no result).
            chunk: 4,
            allow_oracle: self.allow_oracle,
        }
    }

    /// Checks every tournament and the speed budget before any game.
    pub fn validate(&self) -> Result<(), TournamentError> {
        if !super::plain_name(&self.name, false) {
            return Err(TournamentError::Invalid(format!(
                "invalid name '{}' (valid: letters, digits, '-' and '_'; it names the results folder)",
                self.name
            )));
        }
        if self.players.is_empty() {
            return Err(TournamentError::Invalid(
                "players: give at least one table size".into(),
            ));
        }
        if let Some(e) = self.entrants.iter().find(|e| e.is_oracle()) {
            if !self.allow_oracle {
                return Err(TournamentError::Invalid(format!(
                    "'{}' sees other players' hands (base = \"oracle\", a perfect-information reference): allow it with allow_oracle = true in the ladder file",
                    e.name()
                )));
            }
        }
        for (i, p) in self.players.iter().enumerate() {
            if self.players[..i].contains(p) {
                return Err(TournamentError::Invalid(format!(
                    "players: {p} is given twice"
                )));
            }
            self.tournament(*p).validate()?;
        }
        // (Below a millisecond a timing is no measurement: 1e-300 gave
        // speeds of millions of decisions a second.)
        if !(self.speed_seconds >= 0.001 && self.speed_seconds <= 600.0) {
            return Err(TournamentError::Invalid(format!(
                "speed_seconds = {} must be from 0.001 to 600",
                // (1e300 as 1e300, not as its 301 digits)
                if self.speed_seconds.abs() >= 1e6
                    || (self.speed_seconds != 0.0 && self.speed_seconds.abs() < 1e-6)
                {
                    format!("{:e}", self.speed_seconds)
                } else {
                    self.speed_seconds.to_string()
                }
            )));
        }
        Ok(())
    }
}

/// One agent's measured cost at one table size.
#[derive(Clone, Debug, PartialEq)]
pub struct Speed {
    pub decisions: u64,
    pub rounds: u64,
    pub seconds: f64,
}

impl Speed {
    pub fn decisions_per_second(&self) -> f64 {
        self.decisions as f64 / self.seconds.max(1e-12)
    }
}

/// One table size of a ladder: the tournament and the speed of each entrant
/// (in the field's order).
#[derive(Clone, Debug)]
pub struct Rung {
    pub players: usize,
    pub outcome: TournamentOutcome,
    pub speeds: Vec<Speed>,
}

/// What a ladder produced; `partial` when interrupted.
#[derive(Clone, Debug)]
pub struct LadderOutcome {
    pub rungs: Vec<Rung>,
    pub partial: bool,
}

/// A table size of an interrupted ladder, as saved: the counts of its
/// tournament's finished games, and the speeds of its agents once every
/// one was timed.
#[derive(Clone, Debug)]
pub struct SavedRung {
    pub results: Results,
    pub speeds: Option<Vec<Speed>>,
}

/// How far a ladder has got, for a progress bar: given with the index of
/// the table size under way.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// The games of its tournament finished so far.
    Games(u64),
    /// Its tournament is over and the agent of this index in the field is
    /// being timed (for `speed_seconds`).
    Timing(usize),
}

/// Plays every tournament, then times every agent. `progress` gets the
/// index of the table size under way and its [`Step`].
pub fn run(
    cfg: &LadderConfig,
    stop: &AtomicBool,
    progress: &(dyn Fn(usize, Step) + Sync),
) -> Result<LadderOutcome, TournamentError> {
    run_from(cfg, Vec::new(), stop, progress)
}

/// [`run`] continued from the table sizes an interrupted run of the same
/// ladder saved, in order: a finished one is taken as it is (its speeds
/// too), a partial tournament is continued ([`tournament::run_from`]: the
/// same ratings as one uninterrupted run), a table size with its
/// tournament finished but not every agent timed is timed again whole.
pub fn run_from(
    cfg: &LadderConfig,
    saved: Vec<SavedRung>,
    stop: &AtomicBool,
    progress: &(dyn Fn(usize, Step) + Sync),
) -> Result<LadderOutcome, TournamentError> {
    cfg.validate()?;
    if saved.len() > cfg.players.len() {
        return Err(TournamentError::Invalid(format!(
            "the saved ladder has {} table sizes, this one {}",
            saved.len(),
            cfg.players.len()
        )));
    }
    let mut saved = saved.into_iter();
    let mut rungs = Vec::with_capacity(cfg.players.len());
    for (k, &players) in cfg.players.iter().enumerate() {
        let t = cfg.tournament(players);
        let (results, timed) = match saved.next() {
            Some(s) => (Some(s.results), s.speeds),
            None => (None, None),
        };
        let mut outcome =
            tournament::run_from(&t, results, stop, &|d| progress(k, Step::Games(d)))?;
        let partial = outcome.partial;
        let mut speeds = Vec::with_capacity(cfg.entrants.len());
        match timed {
            Some(s) if !partial && s.len() == cfg.entrants.len() => speeds = s,
            _ if !partial => {
                for (i, e) in cfg.entrants.iter().enumerate() {
                    if stop.load(Ordering::Relaxed) {
                        break;
                    }
                    progress(k, Step::Timing(i));
                    match speed(&cfg.rules, players, e, cfg.seed, cfg.speed_seconds) {
                        Ok(s) => speeds.push(s),
                        // A program timed when the signal that stopped the
                        // work ended it too: its timing is left unfinished.
                        Err(why) if cut_short(e.is_program(), stop) => {
                            outcome.unfinished.get_or_insert(why.to_string());
                            break;
                        }
                        Err(why) => return Err(why),
                    }
                }
            }
            _ => {}
        }
        let partial = partial || speeds.len() < cfg.entrants.len();
        rungs.push(Rung {
            players,
            outcome,
            speeds,
        });
        if partial {
            return Ok(LadderOutcome {
                rungs,
                partial: true,
            });
        }
    }
    Ok(LadderOutcome {
        rungs,
        partial: false,
    })
}

/// Self-play of `entrant` at every seat on this thread, whole rounds until
/// `seconds` have passed (at least one round): the decisions it made (every
/// call that asked it to choose: play, drawn card, colour, target, stack,
/// challenge, jump-in, UNO) per second.
pub fn speed(
    rules: &Rules,
    players: usize,
    entrant: &Entrant,
    seed: u64,
    seconds: f64,
) -> Result<Speed, TournamentError> {
    let count = Arc::new(AtomicU64::new(0));
    let mut seats: Vec<Seat> = (0..players)
        .map(|_| {
            let count = count.clone();
            Seat::custom(Hooked {
                inner: entrant.make(),
                hook: move |_: &mut Seat, _: &Observation, at| {
                    if at == HookAt::Decision {
                        count.fetch_add(1, Ordering::Relaxed);
                    }
                },
            })
        })
        .collect();
    let mut game = new_game(rules, players);
    let start = Instant::now();
    let mut rounds = 0;
    while rounds == 0 || start.elapsed().as_secs_f64() < seconds {
        play_round(&mut game, &mut seats, seed ^ 0x5eed_1add, rounds).map_err(|error| {
            TournamentError::Timing {
                error,
                agent: entrant.name().to_string(),
                players,
                round: rounds,
            }
        })?;
        rounds += 1;
    }
    Ok(Speed {
        decisions: count.load(Ordering::Relaxed),
        rounds,
        seconds: start.elapsed().as_secs_f64(),
    })
}

/// The share of the way from the reference's rating to the ceiling's that
/// an agent's covers (0 at the reference, 1 at the ceiling), with its 95%
/// interval by Fieller's method. `points` are the agent's, the reference's
/// and the ceiling's ratings (log-strengths or Elo: the share is a ratio)
/// and `cov` their covariance, from one fit (the centred ratings of a fit
/// are correlated). The share is `N / D`, `N` the agent's lead over the
/// reference and `D` the ceiling's; Fieller's set holds every `s` for
/// which `N - s D = 0` is not rejected at 5%: `(N - s D)^2 <= z^2 Var(N - s
/// D)`, a quadratic in `s`. Unlike the delta method's symmetric interval,
/// it is lopsided where a ratio is (for an agent far outside the
/// reference-to-ceiling range with an imprecise gap the delta method
/// covered 87% in an audit's tournaments). None without a ceiling above
/// the reference. When the ceiling is not shown above the reference (the
/// gap's own 95% interval reaches 0) the set is unbounded, and so is the
/// interval returned (`-inf` to `+inf`).
pub fn share_of_gap(points: [f64; 3], cov: [[f64; 3]; 3]) -> Option<(f64, (f64, f64))> {
    const Z: f64 = 1.959964;
    let [agent, reference, ceiling] = points;
    let gap = ceiling - reference;
    if gap <= 0.0 {
        return None;
    }
    let point = (agent - reference) / gap;
    let (n, d) = (agent - reference, gap);
    let v_nn = cov[0][0] + cov[1][1] - 2.0 * cov[0][1];
    let v_dd = cov[2][2] + cov[1][1] - 2.0 * cov[1][2];
    let v_nd = cov[0][2] - cov[0][1] - cov[1][2] + cov[1][1];
    // No interval when a variance is unknown (NaN stays NaN, not 0).
    if [v_nn, v_dd, v_nd].iter().any(|v| v.is_nan()) {
        return Some((point, (f64::NAN, f64::NAN)));
    }
    let (v_nn, v_dd) = (v_nn.max(0.0), v_dd.max(0.0));
    // a s^2 - 2 b s + c <= 0: bounded exactly when a > 0, that is when the
    // gap (d > 0) is clear of 0.
    let a = d * d - Z * Z * v_dd;
    if a <= 0.0 {
        return Some((point, (f64::NEG_INFINITY, f64::INFINITY)));
    }
    let b = n * d - Z * Z * v_nd;
    let c = n * n - Z * Z * v_nn;
    // Non-negative when a > 0 (s = N/D satisfies the inequality), but for
    // rounding.
    let root = (b * b - a * c).max(0.0).sqrt();
    Some((point, ((b - root) / a, (b + root) / a)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_gap_not_clear_of_zero_gives_an_unbounded_share() {
        let diag = |v: f64| [[v, 0.0, 0.0], [0.0, v, 0.0], [0.0, 0.0, v]];
        // Ceiling 18 above the reference, each rating's se 9: the gap's se
        // is 12.7, its interval [-7, 43] holds 0.
        let (p, (lo, hi)) = share_of_gap([-49.0, 0.0, 18.0], diag(81.0)).unwrap();
        assert!((p + 49.0 / 18.0).abs() < 1e-12);
        assert!(
            lo == f64::NEG_INFINITY && hi == f64::INFINITY,
            "[{lo}, {hi}]"
        );
        // The same gap with a tenth of the variance is clear of 0: bounded.
        let (_, (lo, hi)) = share_of_gap([-49.0, 0.0, 18.0], diag(8.1)).unwrap();
        assert!(lo.is_finite() && hi.is_finite() && lo < p && p < hi);
    }

    #[test]
    fn share_of_gap_is_zero_at_the_reference_and_one_at_the_ceiling() {
        let diag = |a: f64, r: f64, c: f64| [[a, 0.0, 0.0], [0.0, r, 0.0], [0.0, 0.0, c]];
        let cov = diag(25.0, 25.0, 25.0);
        assert_eq!(share_of_gap([0.0, 0.0, 200.0], cov).unwrap().0, 0.0);
        assert_eq!(share_of_gap([200.0, 0.0, 200.0], cov).unwrap().0, 1.0);
        let (p, (lo, hi)) = share_of_gap([100.0, 0.0, 200.0], cov).unwrap();
        assert_eq!(p, 0.5);
        assert!(lo < 0.5 && hi > 0.5, "{lo} {hi}");
        // Narrower ratings, narrower share.
        let (_, (lo2, hi2)) = share_of_gap([100.0, 0.0, 200.0], diag(1.0, 1.0, 1.0)).unwrap();
        assert!(hi2 - lo2 < hi - lo);
        // Agent and reference moving together (positive covariance): their
        // difference is surer, the share's interval narrower.
        let mut together = cov;
        together[0][1] = 20.0;
        together[1][0] = 20.0;
        let (_, (lo3, hi3)) = share_of_gap([100.0, 0.0, 200.0], together).unwrap();
        assert!(hi3 - lo3 < hi - lo);
        assert!(share_of_gap([0.0, 200.0, 0.0], cov).is_none());
    }

    #[test]
    fn speed_counts_every_decision_of_self_play() {
        let rules = Rules::builtin("classic");
        let e = Entrant::from_spec(&crate::agents::StrategySpec::load("first").unwrap());
        let s = speed(&rules, 2, &e, 1, 0.0).unwrap();
        assert_eq!(s.rounds, 1);
        // Every turn asks its player at least once.
        assert!(s.decisions >= 2, "{s:?}");
    }
}
