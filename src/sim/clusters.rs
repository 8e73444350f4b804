//! Exact sums over the clusters of a run, for intervals that respect them.
//!
//! Under duplicate play a deal is replayed once per rotation of its seating,
//! and in match mode the rounds of a match follow each other: the games (or
//! rounds) of such a *cluster* are not independent trials, so a binomial
//! interval over them is wrong (too narrow for a seat's or a position's
//! share, too wide for a strategy's, whose luck of the deal cancels over the
//! rotations). The runner therefore adds, per cluster, the numerator `y` and
//! denominator `x` of every win rate of a run (a seat's, a position's and a
//! strategy's round wins over the cluster's rounds or won rounds, and their
//! match wins over its matches) to exact integer sums `Σy²` and `Σxy` (`Σy`
//! and `Σx` are the run's counts). The interval of each rate is then the
//! delta-method interval of a ratio of sums (`sim::stats::ratio_ci95`),
//! exactly what experiments use, and the sums merge exactly over threads and
//! shards.
//!
//! A cluster's values are the differences of the run's counts at its end and
//! at its start (the runner takes them, `sim::runner`), so nothing is added
//! per round but each strategy's points and match totals, which the runner
//! adds up while a cluster is open; plain round mode (one round per independent game)
//! keeps no cluster sums at all.

use serde::{Deserialize, Serialize};

/// `Σy²` and `Σxy` of one rate over the clusters.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Moments {
    pub yy: u128,
    pub xy: u128,
}

impl Moments {
    #[inline]
    pub(crate) fn add(&mut self, y: u64, x: u64) {
        self.yy += y as u128 * y as u128;
        self.xy += y as u128 * x as u128;
    }
}

/// The sums over the clusters of a run (see the module documentation).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClusterSums {
    /// Clusters added (deals with duplicate play, else matches).
    pub clusters: u64,
    /// `Σ rounds²`, `Σ won²` (rounds with a winner) and `Σ matches²` over
    /// the clusters.
    pub rounds_sq: u128,
    pub won_sq: u128,
    pub matches_sq: u128,
    /// Each seat's round wins over the cluster's rounds, and match wins over
    /// its matches.
    pub seat_rounds: Vec<Moments>,
    pub seat_matches: Vec<Moments>,
    /// Each position's round wins (in order of play from the first mover)
    /// over the cluster's won rounds.
    pub positions: Vec<Moments>,
    /// Each strategy's round wins (all its seats) over the cluster's rounds,
    /// and match wins over its matches.
    pub strategy_rounds: Vec<Moments>,
    pub strategy_matches: Vec<Moments>,
    /// The cluster's turns, and its cards drawn, over its rounds (for the
    /// intervals of the mean turns and cards drawn per round). `None` in
    /// the states of earlier versions, which did not keep them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turns: Option<Moments>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cards_drawn: Option<Moments>,
    /// The cluster's blocked rounds, truncated rounds and UNO penalties,
    /// over its rounds (for the intervals of their rates per round).
    /// `None` in the states of earlier versions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocked: Option<Moments>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub truncated: Option<Moments>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uno_penalties: Option<Moments>,
    /// Each strategy's points (`round_points`: of the rounds it won, or
    /// under penalty scoring each of its seats' penalty in each won round)
    /// over the number of those values in the cluster, for the interval of
    /// its points per round won (per seat). `None` in the states of
    /// earlier versions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strategy_points: Option<Vec<Moments>>,
    /// Each strategy's match totals (`match_points`: one per seat it holds
    /// in each match) over their number in the cluster, for the interval
    /// of its points per seat per match. `None` in the states of earlier
    /// versions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strategy_match_points: Option<Vec<Moments>>,
}

impl ClusterSums {
    pub fn new(players: usize, strategies: usize) -> ClusterSums {
        ClusterSums {
            clusters: 0,
            rounds_sq: 0,
            won_sq: 0,
            matches_sq: 0,
            seat_rounds: vec![Moments::default(); players],
            seat_matches: vec![Moments::default(); players],
            positions: vec![Moments::default(); players],
            strategy_rounds: vec![Moments::default(); strategies],
            strategy_matches: vec![Moments::default(); strategies],
            turns: Some(Moments::default()),
            cards_drawn: Some(Moments::default()),
            blocked: Some(Moments::default()),
            truncated: Some(Moments::default()),
            uno_penalties: Some(Moments::default()),
            strategy_points: Some(vec![Moments::default(); strategies]),
            strategy_match_points: Some(vec![Moments::default(); strategies]),
        }
    }
}
