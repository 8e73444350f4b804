//! Which metrics an arm has, in which order, and what one round or match
//! adds to each of them in a [`Block`].

use super::block::{Block, BASE_MATCHES, BASE_ROUNDS, BASE_WON, BLOCK};
use crate::engine::game::{Outcome, RoundResult};
use crate::sim::runner::{Mode, RunConfig};
use serde::{Deserialize, Serialize};

/// What a metric measures, and for which group (strategy, position or `all`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MetricKey {
    pub name: String,
    pub group: String,
}

/// The metrics of an arm, in order, and where each family starts.
#[derive(Clone, Debug)]
pub struct Layout {
    pub keys: Vec<MetricKey>,
    win: usize,
    match_win: Option<usize>,
    pos: usize,
    /// The denominator of each metric: its per-cluster `x` is `coef` times
    /// the cluster's rounds, won rounds or matches (`(base, coef)`, see
    /// [`Block`]).
    pub(super) x_of: Vec<(usize, i64)>,
    players: usize,
}

/// Every metric name: first the nine metrics every arm has once (group
/// `all`, in the order `Layout::add_round` takes them), then the families
/// with a metric per strategy or per position.
pub const METRIC_NAMES: [&str; 12] = [
    "turns_per_round",
    "cards_drawn_per_round",
    "points_per_round",
    "blocked_rate",
    "truncated_rate",
    "uno_penalties_per_round",
    "first_mover_win_rate",
    "rounds_per_match",
    "first_mover_advantage",
    "win_rate",
    "match_win_rate",
    "position_win_rate",
];

/// Whether `name` is a metric of [`METRIC_NAMES`]; if not, the message
/// naming the valid ones (a precision's metric, from any front-end).
pub fn check_metric(name: &str) -> Result<(), String> {
    if METRIC_NAMES.contains(&name) {
        return Ok(());
    }
    Err(format!(
        "unknown metric '{name}' (valid: {})",
        METRIC_NAMES.join(", ")
    ))
}

/// The metrics only matches measure (in round mode no arm has them).
pub const MATCH_ONLY_METRICS: [&str; 2] = ["rounds_per_match", "match_win_rate"];

/// Whether metric `name` is a share (between 0 and 1 in every cluster: won
/// rounds of rounds held, blocked rounds of rounds), whose interval is a
/// share's (`estimate::share_estimate`). `first_mover_advantage` is a
/// share less the fair one, and can be negative: not one.
pub fn is_share(name: &str) -> bool {
    matches!(
        name,
        "blocked_rate"
            | "truncated_rate"
            | "first_mover_win_rate"
            | "win_rate"
            | "match_win_rate"
            | "position_win_rate"
    )
}

/// How many of [`METRIC_NAMES`] every arm has once.
const ARM_METRICS: usize = 9;

/// Index of `rounds_per_match` among them.
const ROUNDS: usize = 7;

impl Layout {
    pub fn new(cfg: &RunConfig) -> Layout {
        let all = |n: &str| MetricKey {
            name: n.into(),
            group: "all".into(),
        };
        let n = cfg.players as i64;
        // Per cluster: turns, cards, points, blocked, truncated and penalties
        // over rounds; first-mover wins over won rounds; rounds over matches;
        // the first mover's edge n·F − W over n·W (see `add_round`).
        let mut x_of = vec![(BASE_ROUNDS, 1); 6];
        x_of.extend([(BASE_WON, 1), (BASE_MATCHES, 1), (BASE_WON, n)]);
        let mut keys: Vec<MetricKey> = METRIC_NAMES[..ARM_METRICS].iter().map(|n| all(n)).collect();
        let names = cfg.strategy_names();
        // Seats each strategy holds: its wins per round are over that many
        // seat-rounds (and its match wins over that many seat-matches).
        let seats: Vec<i64> = names.iter().map(|n| cfg.seats_of(n) as i64).collect();
        let win = keys.len();
        for (name, &k) in names.iter().zip(&seats) {
            keys.push(MetricKey {
                name: "win_rate".into(),
                group: name.clone(),
            });
            x_of.push((BASE_ROUNDS, k));
        }
        let match_win = (cfg.mode == Mode::Match).then_some(keys.len());
        if match_win.is_some() {
            for (name, &k) in names.iter().zip(&seats) {
                keys.push(MetricKey {
                    name: "match_win_rate".into(),
                    group: name.clone(),
                });
                x_of.push((BASE_MATCHES, k));
            }
        }
        let pos = keys.len();
        for k in 0..cfg.players {
            keys.push(MetricKey {
                name: "position_win_rate".into(),
                group: format!("+{k}"),
            });
            x_of.push((BASE_WON, 1));
        }
        debug_assert_eq!(keys.len(), x_of.len());
        Layout {
            keys,
            win,
            match_win,
            pos,
            x_of,
            players: cfg.players,
        }
    }

    /// Whether the metric applies to the arm's mode.
    pub fn applies(&self, i: usize) -> bool {
        i != ROUNDS || self.match_win.is_some()
    }

    /// Adds one round to cluster `j` of the block: the numerators, and the
    /// rounds and won rounds the denominators are multiples of.
    #[inline(always)]
    pub(super) fn add_round(&self, b: &mut Block, j: usize, r: &RoundResult, map: &[usize]) {
        assert!(j < BLOCK);
        let n = self.players;
        let won = r.outcome == Outcome::Won;
        // Steps from the first mover to the winner in the direction of play
        // at the first turn (as RunStats).
        let w = r.winner.unwrap_or(0) as usize;
        let f = r.first_player as usize;
        let (u, v) = if r.first_direction >= 0 {
            (w, f)
        } else {
            (f, w)
        };
        let p = if u >= v { u - v } else { u + n - v };
        let [turns, drawn, points, blocked, truncated, penalties, first, _, edge, ..] =
            &mut b.y[..]
        else {
            unreachable!("a layout starts with the nine metrics of every arm")
        };
        b.base[BASE_ROUNDS][j] += 1;
        turns[j] += r.turns as i64;
        drawn[j] += r.cards_drawn as i64;
        points[j] += r.points[..n].iter().map(|&p| p as i64).sum::<i64>();
        blocked[j] += (r.outcome == Outcome::Blocked) as i64;
        truncated[j] += (r.outcome == Outcome::Truncated) as i64;
        penalties[j] += r.uno_penalties as i64;
        if won {
            b.base[BASE_WON][j] += 1;
            first[j] += (p == 0) as i64;
            // Share above the fair one: (n·y − x) / (n·x) = y/x − 1/n.
            edge[j] += n as i64 * (p == 0) as i64 - 1;
            b.y[self.pos + p][j] += 1;
            b.y[self.win + map[w]][j] += 1;
        }
    }

    /// Adds one finished match to cluster `j` of the block.
    pub(super) fn add_match(
        &self,
        b: &mut Block,
        j: usize,
        rounds: u32,
        winner: Option<u8>,
        map: &[usize],
    ) {
        b.base[BASE_MATCHES][j] += 1;
        b.y[ROUNDS][j] += rounds as i64;
        if let (Some(m), Some(w)) = (self.match_win, winner) {
            b.y[m + map[w as usize]][j] += 1;
        }
    }
}
