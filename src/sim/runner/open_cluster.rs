//! The clusters of a run as the runner plays them: the counts at a
//! cluster's start, what a cluster adds that the counts do not (its turns,
//! cards drawn and each strategy's points) and its sums when it closes (see
//! [`crate::sim::clusters`]).

use super::run_stats::{round_point_values, RunStats};
use crate::engine::game::{MatchResult, RoundResult, MAX_PLAYERS};

/// The counts of a run a cluster's values are differences of, in a fixed
/// order: rounds, won rounds, games (matches), then each seat's round and
/// match wins, each position's wins, each strategy's round and match wins,
/// and last the blocked rounds, truncated rounds and UNO penalties.
/// `out` is reused from cluster to cluster (no allocation once it has grown).
#[inline]
pub(super) fn cluster_counts(st: &RunStats, out: &mut Vec<u64>) {
    out.clear();
    out.extend([st.rounds, st.won, st.games]);
    out.extend(st.seats.iter().map(|s| s.round_wins));
    out.extend(st.seats.iter().map(|s| s.match_wins));
    out.extend(st.position_wins.iter().copied());
    out.extend(st.strategies.iter().map(|s| s.round_wins));
    out.extend(st.strategies.iter().map(|s| s.match_wins));
    out.extend([st.blocked, st.truncated, st.uno_penalties]);
}

/// Where [`cluster_counts`] puts the first strategy's round wins, with `seats`
/// seats: after rounds, won rounds, games, and each seat's round wins, match
/// wins and position wins.
fn strategy_round_wins_at(seats: usize) -> usize {
    3 + 3 * seats
}

/// The open cluster's turns, cards drawn, and each strategy's points and
/// match totals.
#[derive(Default)]
pub(super) struct OpenCluster {
    turns: u64,
    cards: u64,
    points: [u64; MAX_PLAYERS],
    match_points: [u64; MAX_PLAYERS],
}

impl OpenCluster {
    /// Adds round `r` when the run keeps clusters (`clustered`): its turns,
    /// cards drawn and the values it gives each strategy's `round_points`
    /// ([`round_point_values`]), by strategy index.
    #[inline]
    pub(super) fn add(
        &mut self,
        r: &RoundResult,
        strat_of_seat: &[usize],
        penalty: bool,
        clustered: bool,
    ) {
        // Nothing of it is read outside a cluster.
        if !clustered {
            return;
        }
        self.turns += r.turns as u64;
        self.cards += r.cards_drawn as u64;
        round_point_values(r, strat_of_seat, penalty, |k, p| self.points[k] += p);
    }

    /// Adds match `m`'s totals to each strategy's (as
    /// [`RunStats::add_match`] adds them to `match_points`).
    pub(super) fn add_match(&mut self, m: &MatchResult, strat_of_seat: &[usize]) {
        for (seat, &k) in strat_of_seat.iter().enumerate() {
            self.match_points[k] += m.totals[seat].max(0) as u64;
        }
    }
}

/// Adds the cluster that began when the run's counts were `start` (from
/// [`cluster_counts`]) and ends now to `st`'s cluster sums (`now` is scratch
/// space); `open` holds what the counts do not.
pub(super) fn close_cluster(
    st: &mut RunStats,
    start: &[u64],
    now: &mut Vec<u64>,
    open: &OpenCluster,
    penalty: bool,
) {
    let (n, k) = (st.seats.len(), st.strategies.len());
    cluster_counts(st, now);
    let d = |i: usize| now[i] - start[i];
    let (rounds, won, matches) = (d(0), d(1), d(2));
    let Some(c) = st.clusters.as_mut() else {
        return;
    };
    c.clusters += 1;
    if let Some(m) = c.turns.as_mut() {
        m.add(open.turns, rounds);
    }
    if let Some(m) = c.cards_drawn.as_mut() {
        m.add(open.cards, rounds);
    }
    let last = now.len() - 3;
    for (i, m) in [&mut c.blocked, &mut c.truncated, &mut c.uno_penalties]
        .into_iter()
        .enumerate()
    {
        if let Some(m) = m.as_mut() {
            m.add(d(last + i), rounds);
        }
    }
    c.rounds_sq += rounds as u128 * rounds as u128;
    c.won_sq += won as u128 * won as u128;
    c.matches_sq += matches as u128 * matches as u128;
    // The values behind a strategy's points: a value per round it won, or
    // under penalty scoring one per seat it holds in each won round.
    let first_strategy_round_wins = strategy_round_wins_at(n);
    if let Some(ps) = c.strategy_points.as_mut() {
        for (j, (m, s)) in ps.iter_mut().zip(&st.strategies).enumerate() {
            let x = if penalty {
                s.seats as u64 * won
            } else {
                d(first_strategy_round_wins + j)
            };
            m.add(open.points[j], x);
        }
    }
    // A match total per seat it holds in each match.
    if let Some(ps) = c.strategy_match_points.as_mut() {
        for (j, (m, s)) in ps.iter_mut().zip(&st.strategies).enumerate() {
            m.add(open.match_points[j], s.seats as u64 * matches);
        }
    }
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
