//! The statistics of a run ([`RunStats`]): integer counts and exact
//! histograms per strategy, seat and position, added round by round and
//! merged exactly, and the outcome of a run ([`RunOutcome`]).

use super::config::{Mode, RunConfig};
use crate::engine::game::{MatchResult, Outcome, RoundResult, MAX_PLAYERS};
use crate::sim::clusters::ClusterSums;
use crate::sim::stats::Histogram;

/// Largest value kept exactly by the point histograms.
pub const POINTS_CAP: usize = 4096;
/// Largest value kept exactly by the cards-drawn histogram.
pub const DRAWN_CAP: usize = 4096;

/// Unit bins of a histogram of values up to `max` (turns of a round, rounds
/// of a match): one per value, but at most [`DENSE_CAP`] (a setting may be
/// 4 billion; larger values go to the histogram's sparse map, exactly).
fn dense_bins(max: u32) -> usize {
    (max as usize).saturating_add(1).min(DENSE_CAP)
}

/// The most unit bins of the turns and rounds-per-match histograms.
pub const DENSE_CAP: usize = 1 << 16;

/// The most unit bins of a part's histograms ([`RunStats::part`]): the
/// values of a game or a few.
pub const PART_BINS: usize = 64;

/// Statistics of one strategy across all the seats it held.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct StrategyStats {
    pub name: String,
    /// Seats it holds in each game.
    pub seats: usize,
    pub round_wins: u64,
    pub match_wins: u64,
    pub illegal: u64,
    /// Winner scoring: the points of each round it won. Penalty scoring: the
    /// penalty points of each of its seats in each round.
    pub round_points: Histogram,
    /// Match totals of each of its seats.
    pub match_points: Histogram,
    /// Penalty scoring: `Σ y²` over won rounds of `y`, the penalty points
    /// of all its seats in the round (the interval of its points per seat
    /// when it holds several). `None` under winner scoring and in the
    /// states of earlier versions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub penalty_round_sq: Option<u128>,
}

/// Statistics of one seat.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SeatStats {
    pub round_wins: u64,
    pub match_wins: u64,
}

/// Everything a run measured. Merging two halves gives exactly the whole.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RunStats {
    pub players: usize,
    /// Games finished (rounds in round mode, matches in match mode).
    pub games: u64,
    pub rounds: u64,
    pub won: u64,
    pub blocked: u64,
    pub truncated: u64,
    /// Matches whose best total was shared (no winner).
    pub tied_matches: u64,
    /// Quick-play matches whose round ended blocked or truncated (no winner).
    pub no_winner_matches: u64,
    /// Matches stopped by the `max_rounds` cap before the target or the
    /// round count: their winner is the leader at the cap.
    #[serde(default)]
    pub capped_matches: u64,
    /// Of those, the ones whose lead was shared (no winner; not counted in
    /// `tied_matches`).
    #[serde(default)]
    pub capped_without_winner: u64,
    pub uno_penalties: u64,
    pub illegal: u64,
    pub strategies: Vec<StrategyStats>,
    pub seats: Vec<SeatStats>,
    /// Round wins by position in order of play from the player who moved
    /// first (0 = the first mover, 1 = the next player in the direction of play
    /// at the first turn, ...).
    pub position_wins: Vec<u64>,
    pub turns: Histogram,
    pub cards_drawn: Histogram,
    pub uno_penalties_per_round: Histogram,
    pub rounds_per_match: Histogram,
    /// Sums over clusters (deals with duplicate play, else matches) for the
    /// intervals of a run whose games or rounds are not independent; absent
    /// in plain round mode, and in the states of earlier versions (see
    /// [`crate::sim::clusters`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clusters: Option<ClusterSums>,
}

impl RunStats {
    pub fn new(cfg: &RunConfig) -> RunStats {
        RunStats::shaped(cfg, usize::MAX)
    }

    /// The empty statistics of a part of the work of `cfg`, a unit played
    /// apart to be [`absorbed`](RunStats::absorb) into the whole: the same
    /// shape, with histograms of at most `PART_BINS` unit bins (values past
    /// them are kept exactly all the same), so that a part is made and
    /// absorbed in a time that does not grow with the histograms' caps.
    pub fn part(cfg: &RunConfig) -> RunStats {
        RunStats::shaped(cfg, PART_BINS)
    }

    /// The empty statistics of `cfg`, histograms of at most `most` unit bins.
    fn shaped(cfg: &RunConfig, most: usize) -> RunStats {
        let hist = |cap: usize| Histogram::new(cap.min(most));
        let names = cfg.strategy_names();
        RunStats {
            players: cfg.players,
            games: 0,
            rounds: 0,
            won: 0,
            blocked: 0,
            truncated: 0,
            tied_matches: 0,
            no_winner_matches: 0,
            capped_matches: 0,
            capped_without_winner: 0,
            uno_penalties: 0,
            illegal: 0,
            strategies: names
                .iter()
                .map(|n| StrategyStats {
                    name: n.clone(),
                    seats: cfg.seats_of(n),
                    round_wins: 0,
                    match_wins: 0,
                    illegal: 0,
                    round_points: hist(POINTS_CAP),
                    match_points: hist(POINTS_CAP),
                    penalty_round_sq: (cfg.rules.settings.scoring
                        == crate::engine::rules::Scoring::Penalty)
                        .then_some(0),
                })
                .collect(),
            seats: vec![
                SeatStats {
                    round_wins: 0,
                    match_wins: 0
                };
                cfg.players
            ],
            position_wins: vec![0; cfg.players],
            turns: hist(dense_bins(cfg.rules.settings.max_turns)),
            cards_drawn: hist(DRAWN_CAP),
            uno_penalties_per_round: hist(64),
            rounds_per_match: hist(dense_bins(cfg.rules.settings.max_rounds)),
            clusters: (cfg.duplicate || cfg.mode == Mode::Match)
                .then(|| ClusterSums::new(cfg.players, names.len())),
        }
    }

    /// Adds one round; `strat_of_seat[s]` is the strategy index at seat `s`.
    #[inline]
    pub fn add_round(&mut self, r: &RoundResult, strat_of_seat: &[usize], penalty_scoring: bool) {
        let n = self.players;
        self.rounds += 1;
        self.turns.add(r.turns as u64);
        self.cards_drawn.add(r.cards_drawn as u64);
        self.uno_penalties += r.uno_penalties as u64;
        self.uno_penalties_per_round.add(r.uno_penalties as u64);
        for (seat, &k) in r.illegal[..n].iter().enumerate() {
            if k > 0 {
                self.illegal += k as u64;
                self.strategies[strat_of_seat[seat]].illegal += k as u64;
            }
        }
        match r.outcome {
            Outcome::Won => {
                self.won += 1;
                let w = r.winner.unwrap_or(0) as usize;
                self.seats[w].round_wins += 1;
                self.strategies[strat_of_seat[w]].round_wins += 1;
                // Steps from the first mover to the winner in the direction of
                // play at the first turn.
                let f = r.first_player as usize;
                let (a, b) = if r.first_direction >= 0 {
                    (w, f)
                } else {
                    (f, w)
                };
                self.position_wins[if a >= b { a - b } else { a + n - b }] += 1;
            }
            Outcome::Blocked => self.blocked += 1,
            Outcome::Truncated => self.truncated += 1,
        }
        if !penalty_scoring {
            round_point_values(r, strat_of_seat, false, |k, p| {
                self.strategies[k].round_points.add(p)
            });
        } else if r.outcome == Outcome::Won {
            // Each strategy's penalty over its seats, for `penalty_round_sq`.
            let mut per = [0u64; MAX_PLAYERS];
            round_point_values(r, strat_of_seat, true, |k, p| {
                self.strategies[k].round_points.add(p);
                per[k] += p;
            });
            for (s, &y) in self.strategies.iter_mut().zip(&per) {
                if let Some(q) = s.penalty_round_sq.as_mut() {
                    *q += y as u128 * y as u128;
                }
            }
        }
    }

    /// Adds one finished match (after its rounds went to [`RunStats::add_round`]).
    pub fn add_match(&mut self, m: &MatchResult, strat_of_seat: &[usize]) {
        self.rounds_per_match.add(m.rounds as u64);
        match m.winner {
            Some(w) => {
                self.seats[w as usize].match_wins += 1;
                self.strategies[strat_of_seat[w as usize]].match_wins += 1;
            }
            None if m.capped => self.capped_without_winner += 1,
            None if m.tied => self.tied_matches += 1,
            None => self.no_winner_matches += 1,
        }
        if m.capped {
            self.capped_matches += 1;
        }
        for seat in 0..self.players {
            self.strategies[strat_of_seat[seat]]
                .match_points
                .add(m.totals[seat].max(0) as u64);
        }
    }

    /// Adds everything of `o` (same configuration): the checked merge of
    /// [`RunStats::try_merge`] (`sim::checks`), the one place that lists
    /// what a merge adds.
    ///
    /// # Panics
    /// If a count would not fit (statistics of a single run never come
    /// near) or the shapes differ; statistics read from files are merged
    /// with [`RunStats::try_merge`].
    pub fn merge(&mut self, o: &RunStats) {
        if self.merge_checked(o).is_none() {
            panic!("RunStats::merge: the shapes differ or a count overflowed");
        }
    }
}

/// The result of a run: its statistics and whether it stopped early.
#[derive(Clone, Debug)]
pub struct RunOutcome {
    pub stats: RunStats,
    /// True when the run was interrupted before all games were played.
    pub partial: bool,
    /// Why the games in progress at an interrupt did not finish, when one
    /// could not (a program it played with was ended by the same signal):
    /// those games are left out with every later one, as if the interrupt
    /// had come before them.
    pub unfinished: Option<String>,
}

impl RunOutcome {
    /// Interrupted before any game finished: no figure to show or write.
    pub fn none_finished(&self) -> bool {
        self.partial && self.stats.games == 0
    }
}

/// The values round `r` gives the strategies' `round_points`, as
/// `f(strategy, points)`: under winner scoring the winner's points, to the
/// winner's strategy; under penalty scoring each seat's penalty, to its
/// strategy; none from a round without a winner. The one definition the
/// run's statistics and the open cluster's sums both use.
#[inline]
pub(super) fn round_point_values(
    r: &RoundResult,
    strat_of_seat: &[usize],
    penalty: bool,
    mut f: impl FnMut(usize, u64),
) {
    if r.outcome != Outcome::Won {
        return;
    }
    if penalty {
        for (seat, &k) in strat_of_seat.iter().enumerate() {
            f(k, r.points[seat] as u64);
        }
    } else {
        let w = r.winner.unwrap_or(0) as usize;
        f(strat_of_seat[w], r.points[w] as u64);
    }
}
