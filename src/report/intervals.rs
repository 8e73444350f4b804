//! The 95% intervals of a run's win rates: Wilson's where the games are
//! independent trials (plain round mode; matches in match mode), and
//! otherwise clustered intervals (the delta method on ratios of sums over
//! the clusters the runner keeps, `sim::clusters`): by deal under duplicate
//! play, by match for the rounds of a match.

use super::{rate, round6};
use crate::engine::rules::Scoring;
use crate::sim::clusters::{ClusterSums, Moments};
use crate::sim::lockstep::{count_estimate, RatioSums};
use crate::sim::stats::{ratio_ci95, wilson95, Histogram};
use crate::sim::{Mode, RunConfig, RunStats};
use serde_json::{json, Value};

/// A rate with its 95% interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Estimate {
    pub rate: f64,
    pub lo: f64,
    pub hi: f64,
}

impl Estimate {
    /// `k` successes of `n` independent trials, Wilson interval.
    pub fn wilson(k: u64, n: u64) -> Estimate {
        let (lo, hi) = wilson95(k, n);
        Estimate {
            rate: rate(k, n),
            lo,
            hi,
        }
    }

    /// `Σy / Σx` over `clusters` clusters, delta-method interval.
    fn clustered(y: u64, m: &Moments, x: u64, x_sq: u128, clusters: u64) -> Estimate {
        let (lo, hi) = ratio_ci95(y as u128, m.yy, m.xy, x as u128, x_sq, clusters);
        Estimate {
            rate: rate(y, x),
            lo,
            hi,
        }
    }

    pub(super) fn scaled(self, f: f64) -> Estimate {
        Estimate {
            rate: self.rate * f,
            lo: self.lo * f,
            hi: self.hi * f,
        }
    }

    pub(super) fn json(self) -> (Value, Value) {
        (
            json!(round6(self.rate)),
            json!([round6(self.lo), round6(self.hi)]),
        )
    }
}

/// Whether a run's rounds are clustered (duplicate play, or match mode).
fn rounds_clustered(cfg: &RunConfig) -> bool {
    cfg.duplicate || cfg.mode == Mode::Match
}

/// How the intervals of a run were computed, in words (the text header and
/// the JSON's `intervals`).
pub fn intervals_label(cfg: &RunConfig, st: &RunStats) -> &'static str {
    match (rounds_clustered(cfg), &st.clusters, cfg.duplicate) {
        (false, _, _) => "Wilson for shares, Student's t for means (independent games)",
        (true, None, _) => {
            "Wilson, not clustered (statistics of an earlier unolab without cluster sums): too narrow for seats and positions"
        }
        (true, Some(_), true) => {
            "clustered by deal (delta method, Student's t over the deals) for shares and means"
        }
        (true, Some(_), false) => {
            "rounds clustered by match (delta method, Student's t over the matches); match wins Wilson (independent matches)"
        }
    }
}

/// The round-win rate of seat `seat`: its round wins over all rounds.
pub fn seat_round_win(cfg: &RunConfig, st: &RunStats, seat: usize) -> Estimate {
    let w = st.seats[seat].round_wins;
    match &st.clusters {
        Some(c) if rounds_clustered(cfg) => {
            Estimate::clustered(w, &c.seat_rounds[seat], st.rounds, c.rounds_sq, c.clusters)
        }
        _ => Estimate::wilson(w, st.rounds),
    }
}

/// The share of rounds `count` of them (blocked, or truncated) are, with
/// `moments` picking that count's sums from the clusters': Wilson over
/// independent rounds, else clustered. `None` for clustered rounds whose
/// state (of an earlier version) has no sums for it.
pub fn round_share(
    cfg: &RunConfig,
    st: &RunStats,
    count: u64,
    moments: fn(&ClusterSums) -> Option<&Moments>,
) -> Option<Estimate> {
    match &st.clusters {
        Some(c) if rounds_clustered(cfg) => {
            moments(c).map(|m| Estimate::clustered(count, m, st.rounds, c.rounds_sq, c.clusters))
        }
        _ => Some(Estimate::wilson(count, st.rounds)),
    }
}

/// The share of won rounds won at position `p` in order of play from the
/// first mover.
pub fn position_win(cfg: &RunConfig, st: &RunStats, p: usize) -> Estimate {
    let w = st.position_wins[p];
    match &st.clusters {
        Some(c) if rounds_clustered(cfg) => {
            Estimate::clustered(w, &c.positions[p], st.won, c.won_sq, c.clusters)
        }
        _ => Estimate::wilson(w, st.won),
    }
}

/// Strategy `k`'s share of all rounds (all its seats together). A round has
/// one winner, so in plain round mode its wins are a binomial count over
/// independent games (Wilson); otherwise the interval is clustered.
pub fn strategy_round_share(cfg: &RunConfig, st: &RunStats, k: usize) -> Estimate {
    let w = st.strategies[k].round_wins;
    match &st.clusters {
        Some(c) if rounds_clustered(cfg) => {
            Estimate::clustered(w, &c.strategy_rounds[k], st.rounds, c.rounds_sq, c.clusters)
        }
        _ => Estimate::wilson(w, st.rounds),
    }
}

/// Round-win rate per seat held: strategy `k`'s rounds won over rounds x
/// seats held, i.e. its share of all rounds divided by the seats it holds.
pub fn round_win_per_seat(cfg: &RunConfig, st: &RunStats, k: usize) -> Estimate {
    let seats = st.strategies[k].seats.max(1) as f64;
    strategy_round_share(cfg, st, k).scaled(1.0 / seats)
}

/// Strategy `k`'s share of all matches (one winner per match at most:
/// Wilson over independent matches, clustered by deal with duplicate play).
pub fn strategy_match_share(cfg: &RunConfig, st: &RunStats, k: usize) -> Estimate {
    let w = st.strategies[k].match_wins;
    match &st.clusters {
        Some(c) if cfg.duplicate => Estimate::clustered(
            w,
            &c.strategy_matches[k],
            st.games,
            c.matches_sq,
            c.clusters,
        ),
        _ => Estimate::wilson(w, st.games),
    }
}

/// Match-win rate per seat held.
pub fn match_win_per_seat(cfg: &RunConfig, st: &RunStats, k: usize) -> Estimate {
    let seats = st.strategies[k].seats.max(1) as f64;
    strategy_match_share(cfg, st, k).scaled(1.0 / seats)
}

/// The match-win rate of seat `seat`.
pub fn seat_match_win(cfg: &RunConfig, st: &RunStats, seat: usize) -> Estimate {
    let w = st.seats[seat].match_wins;
    match &st.clusters {
        Some(c) if cfg.duplicate => {
            Estimate::clustered(w, &c.seat_matches[seat], st.games, c.matches_sq, c.clusters)
        }
        _ => Estimate::wilson(w, st.games),
    }
}

/// The interval of a mean of counts, the ratio of sums `sums` over
/// `clusters` independent clusters: the experiments' [`count_estimate`]
/// (the delta method, Student's t with clusters - 1 degrees of freedom, the
/// floor that keeps a count seen in no round from the interval [0, 0], the
/// lower end at least 0). `None` with fewer than two clusters or no
/// observation.
fn counts_mean_ci95(sums: &RatioSums, clusters: u64) -> Option<(f64, f64)> {
    if clusters < 2 {
        return None;
    }
    count_estimate(sums, clusters).map(|e| (e.lo, e.hi))
}

/// The sums of `h`'s values taken as independent, each a cluster of one
/// (their mean's interval is then the t-interval), and their number.
fn independent(h: &Histogram) -> (RatioSums, u64) {
    let (n, sum) = (h.count() as i128, h.sum() as i128);
    let sums = RatioSums {
        y: sum,
        x: n,
        yy: h.sum_sq() as i128,
        xx: n,
        xy: sum,
    };
    (sums, h.count())
}

/// The 95% interval of the mean per round of `h` (turns, cards drawn): over
/// independent rounds (plain round mode) the mean's t-interval; over
/// clusters (duplicate play, matches) the ratio of the clusters' sums (`m`:
/// their `Σy²` and `Σxy`, the rounds the `x`). `None` with fewer than two
/// rounds or clusters, or clusters without the sums.
pub fn per_round_mean_ci95(
    cfg: &RunConfig,
    st: &RunStats,
    h: &Histogram,
    m: Option<&Moments>,
) -> Option<(f64, f64)> {
    let (sums, clusters) = match &st.clusters {
        None if cfg.mode == Mode::Round && !cfg.duplicate => independent(h),
        None => return None,
        Some(c) => {
            let m = m?;
            let sums = RatioSums {
                y: h.sum() as i128,
                x: st.rounds as i128,
                yy: m.yy as i128,
                xx: c.rounds_sq as i128,
                xy: m.xy as i128,
            };
            (sums, c.clusters)
        }
    };
    counts_mean_ci95(&sums, clusters)
}

/// The 95% interval of strategy `k`'s points per value of `round_points`:
/// the points of a round it won (winner scoring), or the penalty points of
/// one of its seats in a won round (penalty scoring). Over independent
/// rounds (plain round mode), the mean's t-interval when each round gives
/// at most one value, else the ratio over won rounds (its seats' penalty
/// sum over its seats); over clusters (duplicate play, matches), the ratio
/// of the clusters' sums. `None` with fewer than two rounds or clusters, or
/// without the sums (a state of an earlier version).
pub fn points_ci95(cfg: &RunConfig, st: &RunStats, k: usize) -> Option<(f64, f64)> {
    let s = &st.strategies[k];
    let h = &s.round_points;
    let penalty = cfg.rules.settings.scoring == Scoring::Penalty;
    let seats = s.seats as i128;
    let (sums, clusters) = match &st.clusters {
        None if cfg.mode == Mode::Round && !cfg.duplicate => {
            if !penalty || s.seats == 1 {
                // One value per round at most.
                independent(h)
            } else {
                // A won round gives `seats` values: its cluster.
                let (x, sum) = (h.count() as i128, h.sum() as i128);
                let sums = RatioSums {
                    y: sum,
                    x,
                    yy: s.penalty_round_sq? as i128,
                    xx: seats * seats * st.won as i128,
                    xy: seats * sum,
                };
                (sums, st.won)
            }
        }
        None => return None,
        Some(c) => {
            let m = c.strategy_points.as_ref()?.get(k)?;
            let xx = if penalty {
                seats * seats * c.won_sq as i128
            } else {
                c.strategy_rounds[k].yy as i128
            };
            let sums = RatioSums {
                y: h.sum() as i128,
                x: h.count() as i128,
                yy: m.yy as i128,
                xx,
                xy: m.xy as i128,
            };
            (sums, c.clusters)
        }
    };
    counts_mean_ci95(&sums, clusters)
}

/// The 95% interval of strategy `k`'s points (under penalty scoring,
/// penalty points) per seat per match: the ratio of the clusters' sums (a
/// match, or with duplicate play a deal's matches; a total per seat the
/// strategy holds in each). `None` outside match mode, with fewer than two
/// clusters, or without the sums (a state of an earlier version).
pub fn match_points_ci95(st: &RunStats, k: usize) -> Option<(f64, f64)> {
    let c = st.clusters.as_ref()?;
    let m = c.strategy_match_points.as_ref()?.get(k)?;
    let s = &st.strategies[k];
    let seats = s.seats as i128;
    let sums = RatioSums {
        y: s.match_points.sum() as i128,
        x: s.match_points.count() as i128,
        yy: m.yy as i128,
        xx: seats * seats * c.matches_sq as i128,
        xy: m.xy as i128,
    };
    counts_mean_ci95(&sums, c.clusters)
}

/// The 95% interval of the rounds per match: the ratio of the clusters'
/// sums (rounds over matches per match, or per deal with duplicate play,
/// whose every deal is `players` matches), from the sums the runner keeps
/// for the win rates. `None` outside match mode or with fewer than two
/// clusters.
pub fn rounds_per_match_ci95(cfg: &RunConfig, st: &RunStats) -> Option<(f64, f64)> {
    let c = st.clusters.as_ref()?;
    if cfg.mode != Mode::Match {
        return None;
    }
    // Every cluster holds the same number of matches.
    let per = if cfg.duplicate {
        cfg.players as i128
    } else {
        1
    };
    let sums = RatioSums {
        y: st.rounds as i128,
        x: st.games as i128,
        yy: c.rounds_sq as i128,
        xx: c.matches_sq as i128,
        xy: per * st.rounds as i128,
    };
    counts_mean_ci95(&sums, c.clusters)
}
