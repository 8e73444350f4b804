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
//! (2004) minorization-maximization algorithm, each step followed by the
//! posterior's best scale, with a weak Gamma(1.5, 0.5)
//! prior on each strength (one half virtual win, which keeps a strategy that
//! never won finite), and the 95% intervals come from the observed Fisher
//! information of the log-strengths under the sum-to-zero constraint.

mod ranks;

use crate::sim::stats::{wilson95, Z95};
pub use ranks::{rank_intervals, RANK_DRAWS, SHARED_DRAWS_ABOVE};
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
    /// Wins by seat of the composition's key (its sorted strategies): a
    /// strategy's wins are in the first seat it holds there, its other
    /// seats' are 0. Sized by the table, not the field, so a large field's
    /// many compositions cost what a small one's do.
    pub wins: [u64; MAX_SEATS],
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
        for &s in table {
            self.seats[s] += 1;
        }
        let mut key = [u16::MAX; MAX_SEATS];
        for (i, &s) in table.iter().enumerate() {
            key[i] = s as u16;
        }
        key[..table.len()].sort_unstable();
        // The distinct strategies at the table: the pair counts walk these,
        // not the field.
        let mut present = [0usize; MAX_SEATS];
        let mut n = 0;
        for (i, &s) in key[..table.len()].iter().enumerate() {
            if i == 0 || key[i - 1] != s {
                present[n] = s as usize;
                n += 1;
            }
        }
        let present = &present[..n];
        let w = winner.map(|w| table[w]);
        for &a in present {
            for &b in present {
                if a != b {
                    self.together[a * k + b] += 1;
                    if Some(a) == w {
                        self.beat[a * k + b] += 1;
                    }
                }
            }
        }
        let Some(w) = w else {
            self.no_winner += 1;
            return;
        };
        self.wins[w] += 1;
        let c = self.compositions.entry(key).or_insert(Composition {
            rounds: 0,
            wins: [0; MAX_SEATS],
        });
        c.rounds += 1;
        let first = key.iter().position(|&x| x as usize == w).unwrap_or(0);
        c.wins[first] += 1;
    }

    /// The counts as JSON, for a saved state (see [`Results::from_json`]).
    pub fn to_json(&self) -> serde_json::Value {
        let comps: Vec<serde_json::Value> = self
            .compositions
            .iter()
            .map(|(key, c)| {
                let seats: Vec<u16> = key.iter().copied().take_while(|&s| s != u16::MAX).collect();
                let wins = &c.wins[..seats.len()];
                serde_json::json!({"seats": seats, "rounds": c.rounds, "seat_wins": wins})
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
            // Wins by seat of the sorted seats (`seat_wins`, written since
            // 2026-12-07), or by strategy of the field (`wins`, before).
            let mut wins = [0u64; MAX_SEATS];
            if c.get("seat_wins").is_some() {
                let w = list(c, "seat_wins", seats.len())?;
                if seats.windows(2).any(|p| p[0] > p[1]) {
                    return Err("a composition's seats are not in order".into());
                }
                if (1..seats.len()).any(|i| seats[i] == seats[i - 1] && w[i] > 0) {
                    return Err(
                        "a composition's wins are not in the first seat of their strategy".into(),
                    );
                }
                wins[..seats.len()].copy_from_slice(&w);
            } else {
                let w = list(c, "wins", k)?;
                if w.iter()
                    .enumerate()
                    .any(|(i, &x)| x > 0 && !seats.contains(&(i as u16)))
                {
                    return Err("a composition's wins are of a strategy not at its table".into());
                }
                let mut sorted = seats.clone();
                sorted.sort_unstable();
                key[..seats.len()].copy_from_slice(&sorted);
                for (i, &s) in sorted.iter().enumerate() {
                    if i == 0 || sorted[i - 1] != s {
                        wins[i] = w[s as usize];
                    }
                }
            }
            if wins.iter().try_fold(0u64, |a, &w| a.checked_add(w)) != Some(rounds) {
                return Err("a composition's wins do not add up to its rounds".into());
            }
            if r.compositions.contains_key(&key) {
                return Err("a composition is given twice".into());
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
            && {
                let mut held = vec![0u64; k];
                r.compositions.iter().all(|(key, c)| {
                    key.iter().zip(&c.wins).all(|(&s, &w)| {
                        s == u16::MAX || {
                            let h = &mut held[s as usize];
                            h.checked_add(w).map(|x| *h = x).is_some()
                        }
                    })
                }) && held == r.wins
            };
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
            let e = self.compositions.entry(*key).or_insert(Composition {
                rounds: 0,
                wins: [0; MAX_SEATS],
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
    // Each composition as its strategies with their seat counts (at most
    // MAX_SEATS of them), in index order: the sums below skip the field's
    // absent strategies, whose terms are zero, so a large field costs no
    // more per composition than a small one.
    let comps: Vec<(Vec<(usize, f64)>, f64)> = r
        .compositions
        .iter()
        .map(|(key, c)| {
            let mut m: Vec<(usize, f64)> = Vec::with_capacity(MAX_SEATS);
            for &s in key.iter().filter(|&&s| s != u16::MAX) {
                match m.last_mut() {
                    Some(last) if last.0 == s as usize => last.1 += 1.0,
                    _ => m.push((s as usize, 1.0)),
                }
            }
            (m, c.rounds as f64)
        })
        .collect();
    let (a, b) = (1.5, 0.5);
    let mut g = vec![1.0; k];
    let mut denom = vec![b; k];
    for _ in 0..10_000 {
        denom.fill(b);
        for (m, n) in &comps {
            let s: f64 = m.iter().map(|&(j, mj)| mj * g[j]).sum();
            for &(j, mj) in m {
                denom[j] += n * mj / s;
            }
        }
        let mut change: f64 = 0.0;
        let mut next: Vec<f64> = (0..k)
            .map(|j| (a - 1.0 + r.wins[j] as f64) / denom[j])
            .collect();
        // The likelihood does not see the strengths' scale, only the prior
        // does, and MM steps move it by a hair (the prior's half win
        // against the field's rounds): alone they were still moving it
        // after 10,000 steps. Each step is followed by the scale that
        // maximises the posterior for the strengths' ratios,
        // sum(g) = (a - 1) k / b (the fixed point's own sum), another
        // ascent step: a few dozen steps reach the fixed point where 10,000
        // did not, at the same ratings to the digits written.
        let c = (a - 1.0) * k as f64 / (b * next.iter().sum::<f64>());
        next.iter_mut().for_each(|x| *x *= c);
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
        let s: f64 = m.iter().map(|&(j, mj)| mj * g[j]).sum();
        for &(i, mi) in m {
            let pi = mi * g[i] / s;
            for &(j, mj) in m {
                let pj = mj * g[j] / s;
                info[i * k + j] += n * ((if i == j { pi } else { 0.0 }) - pi * pj);
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

    /// The fit ends at the posterior's maximum: each strength's equation
    /// (a - 1 + wins = g (b + the rounds' shares of its seats)) holds, at
    /// the scale the prior sets (sum of g = (a - 1) k / b).
    #[test]
    fn the_fit_reaches_the_posteriors_maximum() {
        let k = 12;
        let mut r = Results::new(k);
        let mut rng = <crate::engine::rng::Rng as rand::SeedableRng>::seed_from_u64(5);
        for _ in 0..20_000 {
            let table: Vec<usize> = (0..4)
                .map(|_| rand::Rng::random_range(&mut rng, 0..k))
                .collect();
            // Strategy i wins with weight 1 + i / 4.
            let w: Vec<f64> = table.iter().map(|&i| 1.0 + i as f64 / 4.0).collect();
            let mut x = rand::Rng::random::<f64>(&mut rng) * w.iter().sum::<f64>();
            let mut winner = 3;
            for (s, ws) in w.iter().enumerate() {
                if x < *ws {
                    winner = s;
                    break;
                }
                x -= ws;
            }
            r.add(&table, Some(winner));
        }
        let ratings = fit(&r, 4);
        let (a, b) = (1.5, 0.5);
        let e: Vec<f64> = ratings.iter().map(|x| x.log_strength.exp()).collect();
        let c = (a - 1.0) * k as f64 / (b * e.iter().sum::<f64>());
        let g: Vec<f64> = e.iter().map(|x| x * c).collect();
        let mut denom = vec![b; k];
        for (key, comp) in &r.compositions {
            let seats: Vec<usize> = key
                .iter()
                .filter(|&&s| s != u16::MAX)
                .map(|&s| s as usize)
                .collect();
            let s: f64 = seats.iter().map(|&j| g[j]).sum();
            for &j in &seats {
                denom[j] += comp.rounds as f64 / s;
            }
        }
        for j in 0..k {
            let want = a - 1.0 + r.wins[j] as f64;
            assert!(
                (g[j] * denom[j] - want).abs() < 1e-8 * want,
                "{j}: {} {want}",
                g[j] * denom[j]
            );
        }
        // And the strongest is the strategy that won most often per seat.
        assert!(ratings[k - 1].log_strength > ratings[0].log_strength + 0.5);
    }
}
