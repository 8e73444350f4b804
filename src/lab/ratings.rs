//! Ratings from multiplayer rounds: the Plackett-Luce model on the winner.
//!
//! Each strategy `k` has a strength `g_k > 0`; at a table whose seats hold
//! strategies `s_1 .. s_N` (repeats allowed), seat `i` wins the round with
//! probability `g_{s_i} / sum_j g_{s_j}`. This is the first stage of the
//! Plackett-Luce ranking model, the only stage a round of UNO reveals (the
//! winner, not an order of the others), and with two players it is the
//! Bradley-Terry model. Its likelihood is exactly that of what was observed, so
//! nothing is counted twice, as it would be by splitting a four-player round
//! into pairwise wins and losses.
//!
//! The likelihood depends on the games only through, for each table
//! composition (which strategies sat, as a multiset), the number of rounds
//! with a winner and each strategy's wins there: [`Results`] keeps those
//! counts (memory bounded by the number of distinct compositions, never by the
//! number of games) plus seat and head-to-head counts. The fit is Hunter's
//! (2004) minorization-maximization algorithm with a weak Gamma(1.5, 0.5)
//! prior on each strength (one half virtual win, which keeps a strategy that
//! never won finite), and the 95% intervals come from the observed Fisher
//! information of the log-strengths under the sum-to-zero constraint.

use crate::sim::stats::{wilson95, Z95};
use std::collections::BTreeMap;

/// Most seats at a table (the engine's limit).
const MAX_SEATS: usize = crate::engine::game::MAX_PLAYERS;

/// A table composition: the sorted strategy indices of the seats, padded.
type Key = [u16; MAX_SEATS];

/// Counts of one composition.
#[derive(Clone, Debug, PartialEq)]
pub struct Composition {
    /// Rounds with a winner.
    pub rounds: u64,
    /// Wins of each strategy (indexed like the field).
    pub wins: Vec<u64>,
}

/// Everything the fit and the tables need, mergeable exactly.
#[derive(Clone, Debug, PartialEq)]
pub struct Results {
    pub strategies: usize,
    pub games: u64,
    /// Rounds without a winner (blocked or truncated): not in the fit.
    pub no_winner: u64,
    /// Seats held by each strategy, over all games.
    pub seats: Vec<u64>,
    /// Rounds won by each strategy.
    pub wins: Vec<u64>,
    /// `together[a * k + b]`: games where both `a` and `b` sat (`a != b`).
    pub together: Vec<u64>,
    /// `beat[a * k + b]`: of those, the games `a` won.
    pub beat: Vec<u64>,
    pub compositions: BTreeMap<Key, Composition>,
}

impl Results {
    pub fn new(strategies: usize) -> Results {
        let k = strategies;
        Results {
            strategies: k,
            games: 0,
            no_winner: 0,
            seats: vec![0; k],
            wins: vec![0; k],
            together: vec![0; k * k],
            beat: vec![0; k * k],
            compositions: BTreeMap::new(),
        }
    }

    /// Adds one round: `table[s]` is the strategy at seat `s`, `winner` the
    /// winning seat. Allocates only for a composition not seen before.
    pub fn add(&mut self, table: &[usize], winner: Option<usize>) {
        let k = self.strategies;
        self.games += 1;
        let mut present = [false; 64];
        let mut many = Vec::new();
        let big = k > 64;
        if big {
            many = vec![false; k];
        }
        for &s in table {
            self.seats[s] += 1;
            if big {
                many[s] = true;
            } else {
                present[s] = true;
            }
        }
        let is = |s: usize| if big { many[s] } else { present[s] };
        let w = match winner {
            Some(w) => table[w],
            None => {
                self.no_winner += 1;
                for a in 0..k {
                    for b in 0..k {
                        if a != b && is(a) && is(b) {
                            self.together[a * k + b] += 1;
                        }
                    }
                }
                return;
            }
        };
        self.wins[w] += 1;
        for a in 0..k {
            if !is(a) {
                continue;
            }
            for b in 0..k {
                if a != b && is(b) {
                    self.together[a * k + b] += 1;
                    if a == w {
                        self.beat[a * k + b] += 1;
                    }
                }
            }
        }
        let mut key = [u16::MAX; MAX_SEATS];
        for (i, &s) in table.iter().enumerate() {
            key[i] = s as u16;
        }
        key[..table.len()].sort_unstable();
        let c = self.compositions.entry(key).or_insert_with(|| Composition {
            rounds: 0,
            wins: vec![0; k],
        });
        c.rounds += 1;
        c.wins[w] += 1;
    }

    /// The counts as JSON, for a saved state (see [`Results::from_json`]).
    pub fn to_json(&self) -> serde_json::Value {
        let comps: Vec<serde_json::Value> = self
            .compositions
            .iter()
            .map(|(key, c)| {
                let seats: Vec<u16> = key.iter().copied().take_while(|&s| s != u16::MAX).collect();
                serde_json::json!({"seats": seats, "rounds": c.rounds, "wins": c.wins})
            })
            .collect();
        serde_json::json!({
            "strategies": self.strategies,
            "games": self.games,
            "no_winner": self.no_winner,
            "seats": self.seats,
            "wins": self.wins,
            "together": self.together,
            "beat": self.beat,
            "compositions": comps,
        })
    }

    /// The counts of [`Results::to_json`] read back; the error says what
    /// is missing or does not fit.
    pub fn from_json(v: &serde_json::Value) -> Result<Results, String> {
        let num = |key: &str| {
            v.get(key)
                .and_then(serde_json::Value::as_u64)
                .ok_or_else(|| format!("no whole number '{key}'"))
        };
        let list = |v: &serde_json::Value, key: &str, len: usize| -> Result<Vec<u64>, String> {
            let l: Vec<u64> = v
                .get(key)
                .and_then(serde_json::Value::as_array)
                .ok_or_else(|| format!("no list '{key}'"))?
                .iter()
                .map(|x| {
                    x.as_u64()
                        .ok_or_else(|| format!("'{key}' holds a value that is not a count"))
                })
                .collect::<Result<_, _>>()?;
            if l.len() != len {
                return Err(format!("'{key}' has {} entries, not {len}", l.len()));
            }
            Ok(l)
        };
        let k = num("strategies")? as usize;
        if !(2..=4096).contains(&k) {
            return Err(format!("'strategies' = {k} is not a field size"));
        }
        let mut r = Results::new(k);
        r.games = num("games")?;
        r.no_winner = num("no_winner")?;
        r.seats = list(v, "seats", k)?;
        r.wins = list(v, "wins", k)?;
        r.together = list(v, "together", k * k)?;
        r.beat = list(v, "beat", k * k)?;
        let comps = v
            .get("compositions")
            .and_then(serde_json::Value::as_array)
            .ok_or("no list 'compositions'")?;
        for c in comps {
            let seats: Vec<u16> = c
                .get("seats")
                .and_then(serde_json::Value::as_array)
                .ok_or("a composition without 'seats'")?
                .iter()
                .map(|x| x.as_u64().filter(|&s| (s as usize) < k).map(|s| s as u16))
                .collect::<Option<_>>()
                .ok_or("a composition's seats are not strategies of the field")?;
            if seats.is_empty() || seats.len() > MAX_SEATS {
                return Err("a composition with no seats or too many".into());
            }
            let mut key = [u16::MAX; MAX_SEATS];
            key[..seats.len()].copy_from_slice(&seats);
            let rounds = c
                .get("rounds")
                .and_then(serde_json::Value::as_u64)
                .ok_or("a composition without 'rounds'")?;
            let wins = list(c, "wins", k)?;
            if wins
                .iter()
                .enumerate()
                .any(|(i, &w)| w > 0 && !seats.contains(&(i as u16)))
            {
                return Err("a composition's wins are of a strategy not at its table".into());
            }
            if wins.iter().try_fold(0u64, |a, &w| a.checked_add(w)) != Some(rounds) {
                return Err("a composition's wins do not add up to its rounds".into());
            }
            r.compositions.insert(key, Composition { rounds, wins });
        }
        // The counts must be those of `games` rounds (a tampered or damaged
        // file would otherwise be added to the new games' counts, or fail
        // an interval's check later).
        let sum = |v: &[u64]| v.iter().try_fold(0u64, |a, &x| a.checked_add(x));
        let consistent = sum(&r.wins).and_then(|w| w.checked_add(r.no_winner)) == Some(r.games)
            && r.wins.iter().zip(&r.seats).all(|(w, s)| w <= s)
            && sum(&r.seats).is_some_and(|s| s <= r.games.saturating_mul(MAX_SEATS as u64))
            && r.beat
                .iter()
                .zip(&r.together)
                .all(|(b, t)| b <= t && *t <= r.games)
            && r.compositions
                .values()
                .try_fold(0u64, |a, c| a.checked_add(c.rounds))
                == sum(&r.wins)
            // Each strategy's wins are those its compositions hold.
            && (0..k).all(|i| {
                r.compositions
                    .values()
                    .try_fold(0u64, |a, c| a.checked_add(c.wins[i]))
                    == Some(r.wins[i])
            });
        if !consistent {
            return Err("its counts are not those of the games it says it holds".into());
        }
        Ok(r)
    }

    /// Whether the counts are those of tables of `players` seats (a saved
    /// state's check: [`Results::from_json`] does not know the table size):
    /// every game seats `players`, every composition is `players` seats.
    pub fn check_players(&self, players: usize) -> Result<(), String> {
        let seated = self.seats.iter().try_fold(0u64, |a, &s| a.checked_add(s));
        let whole = self.games.checked_mul(players as u64);
        let tables = self
            .compositions
            .keys()
            .all(|k| k.iter().filter(|&&s| s != u16::MAX).count() == players);
        if seated != whole || !tables {
            return Err(format!(
                "its counts are not those of tables of {players} players"
            ));
        }
        Ok(())
    }

    /// Adds everything of `o` (same field).
    pub fn merge(&mut self, o: &Results) {
        self.games += o.games;
        self.no_winner += o.no_winner;
        for (a, b) in self.seats.iter_mut().zip(&o.seats) {
            *a += b;
        }
        for (a, b) in self.wins.iter_mut().zip(&o.wins) {
            *a += b;
        }
        for (a, b) in self.together.iter_mut().zip(&o.together) {
            *a += b;
        }
        for (a, b) in self.beat.iter_mut().zip(&o.beat) {
            *a += b;
        }
        for (key, c) in &o.compositions {
            let e = self
                .compositions
                .entry(*key)
                .or_insert_with(|| Composition {
                    rounds: 0,
                    wins: vec![0; self.strategies],
                });
            e.rounds += c.rounds;
            for (a, b) in e.wins.iter_mut().zip(&c.wins) {
                *a += b;
            }
        }
    }

    /// How often `a` beat `b` when both sat at the table and one of them won:
    /// `beat[a][b] / (beat[a][b] + beat[b][a])`, with its Wilson interval and
    /// the number of such games. `None` when they never decided a game.
    pub fn head_to_head(&self, a: usize, b: usize) -> Option<(f64, (f64, f64), u64)> {
        let k = self.strategies;
        let x = self.beat[a * k + b];
        let n = x + self.beat[b * k + a];
        if n == 0 {
            return None;
        }
        Some((x as f64 / n as f64, wilson95(x, n), n))
    }
}

/// One strategy's fitted rating.
#[derive(Clone, Debug, PartialEq)]
pub struct Rating {
    /// Log-strength, centred so the field's mean is 0.
    pub log_strength: f64,
    /// On the Elo scale: `400 log10(strength)`, centred on 0. A difference of
    /// `d` means odds of `10^(d/400)` between two strategies heads-up.
    pub elo: f64,
    pub elo_ci95: (f64, f64),
    /// Probability of winning a round at a table of `players - 1` opponents of
    /// the field's average strength; compare with the fair share `1 / players`.
    pub p_average_table: f64,
    pub p_average_table_ci95: (f64, f64),
}

const ELO: f64 = 400.0 / std::f64::consts::LN_10;

/// Fits the Plackett-Luce winner model to `r` (see the module documentation);
/// `players` sets the table of [`Rating::p_average_table`].
pub fn fit(r: &Results, players: usize) -> Vec<Rating> {
    fit_with_covariance(r, players).0
}

/// [`fit`], with the covariance of the centred log-strengths (`k x k`, row
/// major; `None` if the information matrix is singular): what a function of
/// several ratings needs, since the centred ratings of one fit are
/// correlated (the ladder's share of the way, [`crate::lab::ladder::share_of_gap`]).
pub fn fit_with_covariance(r: &Results, players: usize) -> (Vec<Rating>, Option<Vec<f64>>) {
    let k = r.strategies;
    let comps: Vec<(Vec<f64>, f64)> = r
        .compositions
        .iter()
        .map(|(key, c)| {
            let mut m = vec![0.0; k];
            for &s in key.iter().filter(|&&s| s != u16::MAX) {
                m[s as usize] += 1.0;
            }
            (m, c.rounds as f64)
        })
        .collect();
    let (a, b) = (1.5, 0.5);
    let mut g = vec![1.0; k];
    for _ in 0..10_000 {
        let mut denom = vec![b; k];
        for (m, n) in &comps {
            let s: f64 = (0..k).map(|j| m[j] * g[j]).sum();
            for j in 0..k {
                if m[j] > 0.0 {
                    denom[j] += n * m[j] / s;
                }
            }
        }
        let mut change: f64 = 0.0;
        let next: Vec<f64> = (0..k)
            .map(|j| (a - 1.0 + r.wins[j] as f64) / denom[j])
            .collect();
        for j in 0..k {
            change = change.max((next[j].ln() - g[j].ln()).abs());
        }
        g = next;
        if change < 1e-12 {
            break;
        }
    }
    // Observed information of the log-strengths: sum over compositions of
    // n (diag(p) - p p^T), plus the prior's curvature b g_j on the diagonal.
    let mut info = vec![0.0; k * k];
    for (m, n) in &comps {
        let s: f64 = (0..k).map(|j| m[j] * g[j]).sum();
        let p: Vec<f64> = (0..k).map(|j| m[j] * g[j] / s).collect();
        for i in 0..k {
            for j in 0..k {
                info[i * k + j] += n * ((if i == j { p[i] } else { 0.0 }) - p[i] * p[j]);
            }
        }
    }
    for j in 0..k {
        info[j * k + j] += b * g[j];
    }
    let cov = constrained_inverse(&info, k);
    let mean = g.iter().map(|x| x.ln()).sum::<f64>() / k as f64;
    let theta: Vec<f64> = g.iter().map(|x| x.ln() - mean).collect();
    let others = (players.max(2) - 1) as f64;
    let p_avg = |t: f64| t.exp() / (t.exp() + others);
    let ratings = (0..k)
        .map(|j| {
            let se = cov
                .as_ref()
                .map_or(f64::INFINITY, |c| c[j * k + j].max(0.0).sqrt());
            let (lo, hi) = (theta[j] - Z95 * se, theta[j] + Z95 * se);
            Rating {
                log_strength: theta[j],
                elo: ELO * theta[j],
                elo_ci95: (ELO * lo, ELO * hi),
                p_average_table: p_avg(theta[j]),
                p_average_table_ci95: (p_avg(lo), p_avg(hi)),
            }
        })
        .collect();
    (ratings, cov)
}

/// Draws of the differences' maximum behind [`rank_intervals`].
pub const RANK_DRAWS: usize = 10_000;

/// A 95% interval for each strategy's rank (1 = strongest), in the field's
/// order, from the pairwise differences of the ratings (Mogstad, Romano,
/// Shaikh and Wilhelm's marginal rank intervals): strategy `j`'s interval
/// is `1 + a` to `k - b`, where `a` strategies are shown above it and `b`
/// below it by simultaneous 95% intervals for its `k - 1` differences
/// `theta_i - theta_j` (the fit's normal approximation with the ratings'
/// covariance: the ratings of one fit are correlated). The intervals'
/// critical value is the 95% quantile of the largest of the `k - 1`
/// standardised differences, from [`RANK_DRAWS`] draws from a fixed seed
/// (so the same fit gives the same intervals), stepped down: the
/// differences shown are set aside and the quantile taken again over the
/// rest, until none more is shown. The true rank lies outside only when a
/// difference is shown on the wrong side, which the simultaneous intervals
/// allow at most 5% of the time, so each strategy's interval holds its
/// rank with at least 95% chance whatever the strengths, near ties
/// included. Each interval is for one strategy's rank taken alone, not for
/// the whole order at once. `None` without a covariance.
pub fn rank_intervals(ratings: &[Rating], cov: Option<&[f64]>) -> Option<Vec<(usize, usize)>> {
    let k = ratings.len();
    let cov = cov?;
    if k < 2 {
        return Some(vec![(1, 1); k]);
    }
    let m = k - 1;
    let mut rng = <crate::engine::rng::Rng as rand::SeedableRng>::seed_from_u64(0x72616e6b);
    // Standard normal draws, shared by every strategy: draw d, coordinate a.
    let u: Vec<f64> = (0..RANK_DRAWS * m)
        .map(|_| crate::sim::stats::normal(&mut rng))
        .collect();
    let mut out = Vec::with_capacity(k);
    let (mut corr, mut z, mut maxima) = (vec![0.0; m * m], vec![0.0; m], vec![0.0; RANK_DRAWS]);
    for j in 0..k {
        let others: Vec<usize> = (0..k).filter(|&i| i != j).collect();
        // Cov(theta_a - theta_j, theta_b - theta_j).
        let c =
            |a: usize, b: usize| cov[a * k + b] - cov[a * k + j] - cov[j * k + b] + cov[j * k + j];
        let se: Vec<f64> = others.iter().map(|&a| c(a, a).max(0.0).sqrt()).collect();
        let t: Vec<f64> = others
            .iter()
            .zip(&se)
            .map(|(&a, &s)| (ratings[a].log_strength - ratings[j].log_strength) / s)
            .collect();
        for (x, &a) in others.iter().enumerate() {
            for (y, &b) in others.iter().enumerate() {
                corr[x * m + y] = c(a, b) / (se[x] * se[y]);
            }
        }
        // Shown: +1 above j, -1 below, 0 not shown.
        let mut shown = vec![0i8; m];
        // Without a usable correlation (a variance of 0 or not a number),
        // Bonferroni's bound on the maximum, which needs none.
        let l = cholesky(&corr, m);
        loop {
            let rest: Vec<usize> = (0..m).filter(|&x| shown[x] == 0).collect();
            if rest.is_empty() {
                break;
            }
            let crit = match &l {
                Some(l) => {
                    for (d, mx) in maxima.iter_mut().enumerate() {
                        let ud = &u[d * m..(d + 1) * m];
                        for (x, zx) in z.iter_mut().enumerate() {
                            *zx = (0..=x).map(|y| l[x * m + y] * ud[y]).sum();
                        }
                        *mx = rest.iter().map(|&x| z[x].abs()).fold(0.0, f64::max);
                    }
                    maxima.sort_by(f64::total_cmp);
                    maxima[(RANK_DRAWS as f64 * 0.95).ceil() as usize - 1]
                }
                None => bonferroni_z(rest.len()),
            };
            let mut more = false;
            for &x in &rest {
                if t[x] > crit {
                    shown[x] = 1;
                    more = true;
                } else if t[x] < -crit {
                    shown[x] = -1;
                    more = true;
                }
            }
            if !more {
                break;
            }
        }
        let above = shown.iter().filter(|&&v| v == 1).count();
        let below = shown.iter().filter(|&&v| v == -1).count();
        out.push((1 + above, k - below));
    }
    Some(out)
}

/// The normal quantile of a two-sided 95% interval Bonferroni-adjusted for
/// `m` intervals: `z` with `P(|Z| > z) = 0.05 / m`.
fn bonferroni_z(m: usize) -> f64 {
    use statrs::distribution::{ContinuousCDF, Normal};
    let p = 1.0 - 0.025 / m as f64;
    Normal::standard().inverse_cdf(p)
}

/// The lower Cholesky factor of the `m x m` symmetric matrix `a` (row
/// major); `None` if `a` is not positive definite.
fn cholesky(a: &[f64], m: usize) -> Option<Vec<f64>> {
    let mut l = vec![0.0; m * m];
    for i in 0..m {
        for j in 0..=i {
            let s: f64 = a[i * m + j] - (0..j).map(|p| l[i * m + p] * l[j * m + p]).sum::<f64>();
            if i == j {
                if s <= 0.0 || !s.is_finite() {
                    return None;
                }
                l[i * m + i] = s.sqrt();
            } else {
                l[i * m + j] = s / l[j * m + j];
            }
        }
    }
    Some(l)
}

/// The covariance of the centred log-strengths: `P info^-1 P` with
/// `P = I - J/k` the centring projection (`J` the all-ones matrix); `info`
/// includes the prior's curvature, so it is invertible. `None` if singular.
fn constrained_inverse(info: &[f64], k: usize) -> Option<Vec<f64>> {
    let mut m: Vec<f64> = info.to_vec();
    let mut inv = vec![0.0; k * k];
    for i in 0..k {
        inv[i * k + i] = 1.0;
    }
    // Gauss-Jordan with partial pivoting.
    for col in 0..k {
        let piv = (col..k).max_by(|&x, &y| {
            m[x * k + col]
                .abs()
                .partial_cmp(&m[y * k + col].abs())
                .unwrap_or(std::cmp::Ordering::Equal)
        })?;
        if m[piv * k + col].abs() < 1e-12 {
            return None;
        }
        for j in 0..k {
            m.swap(col * k + j, piv * k + j);
            inv.swap(col * k + j, piv * k + j);
        }
        let d = m[col * k + col];
        for j in 0..k {
            m[col * k + j] /= d;
            inv[col * k + j] /= d;
        }
        for row in 0..k {
            if row != col {
                let f = m[row * k + col];
                if f != 0.0 {
                    for j in 0..k {
                        m[row * k + j] -= f * m[col * k + j];
                        inv[row * k + j] -= f * inv[col * k + j];
                    }
                }
            }
        }
    }
    // Centre rows and columns.
    let kf = k as f64;
    let row: Vec<f64> = (0..k)
        .map(|i| inv[i * k..(i + 1) * k].iter().sum::<f64>() / kf)
        .collect();
    let col: Vec<f64> = (0..k)
        .map(|j| (0..k).map(|i| inv[i * k + j]).sum::<f64>() / kf)
        .collect();
    let all = row.iter().sum::<f64>() / kf;
    for i in 0..k {
        for j in 0..k {
            inv[i * k + j] += all - row[i] - col[j];
        }
    }
    Some(inv)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bonferroni_quantile_widens_with_the_intervals_it_covers() {
        assert!((bonferroni_z(1) - 1.959964).abs() < 1e-5);
        // P(|Z| > 2.807034) = 0.005, for 10 intervals.
        assert!((bonferroni_z(10) - 2.807034).abs() < 1e-5);
    }

    #[test]
    fn a_rank_interval_counts_the_strategies_shown_above_and_below() {
        let r = |x: f64| Rating {
            log_strength: x,
            elo: 0.0,
            elo_ci95: (0.0, 0.0),
            p_average_table: 0.0,
            p_average_table_ci95: (0.0, 0.0),
        };
        // Independent ratings of variance 0.01: a difference's se is 0.141;
        // the two differences from one strategy are correlated 0.5, so the
        // critical value lies between 1.96 and Bonferroni's 2.394 for 2:
        // 0.1 apart is not shown, 0.9 and 1.0 are.
        let ratings = [r(1.0), r(0.9), r(0.0)];
        let mut cov = vec![0.0; 9];
        for i in 0..3 {
            cov[i * 3 + i] = 0.01;
        }
        let iv = rank_intervals(&ratings, Some(&cov)).unwrap();
        assert_eq!(iv, vec![(1, 2), (1, 2), (3, 3)]);
        // Correlated with the first, the second's difference from it is
        // surer: 0.1 apart with se 0.032 (at most 2.394 of them: 0.076)
        // shows it below.
        cov[1] = 0.0095;
        cov[3] = 0.0095;
        let iv = rank_intervals(&ratings, Some(&cov)).unwrap();
        assert_eq!(iv, vec![(1, 1), (2, 2), (3, 3)]);
        assert_eq!(
            rank_intervals(&ratings[..1], Some(&cov[..1])),
            Some(vec![(1, 1)])
        );
        assert_eq!(rank_intervals(&ratings, None), None);
    }
}
