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
//! at its start, so nothing is added per round; plain round mode (one round
//! per independent game) keeps no cluster sums at all.

use super::runner::RunStats;
use serde::{Deserialize, Serialize};

/// `Σy²` and `Σxy` of one rate over the clusters.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Moments {
    pub yy: u128,
    pub xy: u128,
}

impl Moments {
    #[inline]
    fn add(&mut self, y: u64, x: u64) {
        self.yy += y as u128 * y as u128;
        self.xy += y as u128 * x as u128;
    }

    fn merge(&mut self, o: &Moments) {
        self.yy += o.yy;
        self.xy += o.xy;
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
        }
    }

    pub fn merge(&mut self, o: &ClusterSums) {
        self.clusters += o.clusters;
        self.rounds_sq += o.rounds_sq;
        self.won_sq += o.won_sq;
        self.matches_sq += o.matches_sq;
        for (a, b) in [
            (&mut self.seat_rounds, &o.seat_rounds),
            (&mut self.seat_matches, &o.seat_matches),
            (&mut self.positions, &o.positions),
            (&mut self.strategy_rounds, &o.strategy_rounds),
            (&mut self.strategy_matches, &o.strategy_matches),
        ] {
            for (x, y) in a.iter_mut().zip(b) {
                x.merge(y);
            }
        }
    }
}

/// The counts of a run a cluster's values are differences of, in a fixed
/// order: rounds, won rounds, games (matches), then each seat's round and
/// match wins, each position's wins, each strategy's round and match wins.
/// `out` is reused from cluster to cluster (no allocation once it has grown).
#[inline]
pub(crate) fn counts(st: &RunStats, out: &mut Vec<u64>) {
    out.clear();
    out.extend([st.rounds, st.won, st.games]);
    out.extend(st.seats.iter().map(|s| s.round_wins));
    out.extend(st.seats.iter().map(|s| s.match_wins));
    out.extend(st.position_wins.iter().copied());
    out.extend(st.strategies.iter().map(|s| s.round_wins));
    out.extend(st.strategies.iter().map(|s| s.match_wins));
}

/// Adds the cluster that began when the run's counts were `start` (from
/// [`counts`]) and ends now to `st`'s cluster sums (`now` is scratch space).
pub(crate) fn close(st: &mut RunStats, start: &[u64], now: &mut Vec<u64>) {
    let (n, k) = (st.seats.len(), st.strategies.len());
    counts(st, now);
    let d = |i: usize| now[i] - start[i];
    let (rounds, won, matches) = (d(0), d(1), d(2));
    let Some(c) = st.clusters.as_mut() else {
        return;
    };
    c.clusters += 1;
    c.rounds_sq += rounds as u128 * rounds as u128;
    c.won_sq += won as u128 * won as u128;
    c.matches_sq += matches as u128 * matches as u128;
    let mut at = 3;
    for (family, x, len) in [
        (&mut c.seat_rounds, rounds, n),
        (&mut c.seat_matches, matches, n),
        (&mut c.positions, won, n),
        (&mut c.strategy_rounds, rounds, k),
        (&mut c.strategy_matches, matches, k),
    ] {
        for m in family.iter_mut().take(len) {
            m.add(d(at), x);
            at += 1;
        }
    }
}
