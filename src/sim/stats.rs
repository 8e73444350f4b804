//! Streaming, mergeable statistics for Monte Carlo results.
//!
//! Everything here uses memory that does not grow with the number of
//! observations (a histogram grows only with the number of distinct large
//! values), and every accumulator can be merged exactly, so per-thread results
//! can be combined in any order.
//!
//! * [`wilson`] / [`wilson95`]: Wilson score interval for a binomial proportion
//!   (e.g. a win rate).
//! * [`Histogram`]: exact histogram of non-negative integers (unit bins below
//!   a cap, a sparse map above it), exact mean / sample standard deviation,
//!   min, max and nearest-rank quantiles for any value.
//! * [`Summary`]: a serialisable snapshot of a [`Histogram`].

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The 0.975 quantile of the standard normal distribution, i.e. the `z` of a
/// two-sided 95% interval. Checked against `statrs` in the unit tests.
pub const Z95: f64 = 1.959963984540054;

/// Wilson score interval for `successes` out of `n` trials at normal quantile
/// `z` (e.g. 1.96 for ~95%).
///
/// Returns `(lower, upper)`, clamped to `[0, 1]`; `(0.0, 1.0)` when `n == 0`.
/// The lower bound is exactly 0 when `successes == 0` and the upper bound is
/// exactly 1 when `successes == n`.
///
/// # Panics
/// If `successes > n`.
pub fn wilson(successes: u64, n: u64, z: f64) -> (f64, f64) {
    assert!(successes <= n, "wilson: successes ({successes}) > n ({n})");
    if n == 0 {
        return (0.0, 1.0);
    }
    let nf = n as f64;
    let p = successes as f64 / nf;
    let z2 = z * z;
    let denom = 1.0 + z2 / nf;
    let center = (p + z2 / (2.0 * nf)) / denom;
    let half = z / denom * (p * (1.0 - p) / nf + z2 / (4.0 * nf * nf)).sqrt();
    let lo = if successes == 0 {
        0.0
    } else {
        (center - half).clamp(0.0, 1.0)
    };
    let hi = if successes == n {
        1.0
    } else {
        (center + half).clamp(0.0, 1.0)
    };
    (lo, hi)
}

/// Two-sided 95% Wilson score interval, i.e. [`wilson`] with `z =` [`Z95`].
pub fn wilson95(successes: u64, n: u64) -> (f64, f64) {
    wilson(successes, n, Z95)
}

/// 95% interval of a share `Σy / Σx` (each cluster's `y` at most its `x`)
/// over `clusters` independent clusters (for example rounds won over rounds
/// played, by match), from the cluster-robust (delta-method) variance of a
/// ratio estimator:
/// `var = (Σ (y_g − r x_g)² + SHARE_FLOOR_SS(r)) / (G (G − 1) x̄²)` with
/// `r = Σy / Σx`, `x̄ = Σx / G`. Needs the exact sums `Σy`, `Σy²`, `Σxy`,
/// `Σx`, `Σx²`. Normal approximation, clamped to `[0, 1]`; `(0, 1)` with
/// fewer than two clusters or no observations. The floor
/// ([`share_floor_ss`]) keeps a few clusters that happen to agree (every
/// heads-up deal split one round each, or no blocked round yet) from giving
/// an interval of width zero.
pub fn ratio_ci95(
    sum_y: u128,
    sum_y2: u128,
    sum_xy: u128,
    sum_x: u128,
    sum_x2: u128,
    clusters: u64,
) -> (f64, f64) {
    if clusters < 2 || sum_x == 0 {
        return (0.0, 1.0);
    }
    let g = clusters as f64;
    let r = sum_y as f64 / sum_x as f64;
    // Σ (y − r x)² = Σy² − 2 r Σxy + r² Σx²
    let ss = (sum_y2 as f64 - 2.0 * r * sum_xy as f64 + r * r * sum_x2 as f64).max(0.0)
        + share_floor_ss(r);
    let xbar = sum_x as f64 / g;
    let se = (ss / (g * (g - 1.0))).sqrt() / xbar;
    (
        (r - Z95 * se).clamp(0.0, 1.0),
        (r + Z95 * se).clamp(0.0, 1.0),
    )
}

/// What the interval of a share adds to the squared residuals `Σ (y − r x)²`
/// of its clusters: those of two won and two lost single trials,
/// `2 (1 − r)² + 2 r²`, as Agresti and Coull add two successes and two
/// failures to a binomial count (only to the variance here: the estimate
/// stays `r`). Below a few dozen clusters that agree it is most of the
/// width; at a thousand clusters it widens an interval by well under one
/// per cent. Coverage over simulated clustered shares (heads-up deals,
/// four-player deals, rare events) is tested in `tests/suite/intervals.rs`.
pub fn share_floor_ss(r: f64) -> f64 {
    2.0 * (1.0 - r) * (1.0 - r) + 2.0 * r * r
}

/// Exact histogram of non-negative integer observations.
///
/// Values `0..cap` are counted in unit bins (one `u64` per value, allocated
/// once by [`Histogram::new`]), so recording one is one increment; values
/// `>= cap` are counted exactly too, in a sparse map from value to count (it
/// allocates only for a value not seen before, which in a simulation is rare
/// and bounded by the values the game can produce). Count, sum, sum of squares,
/// min, max and every quantile are therefore exact for any value, and
/// [`merge`](Histogram::merge) is exact.
///
/// The sums are plain integer additions: they would only overflow beyond
/// roughly 2^128 total of squared values, far outside any simulation's range
/// (debug builds panic in that case).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Histogram {
    bins: Vec<u64>,
    /// Observations `>= cap`: value -> count.
    over: BTreeMap<u64, u64>,
}

impl Histogram {
    /// An empty histogram with unit bins for values `0..cap`.
    pub fn new(cap: usize) -> Self {
        Histogram {
            bins: vec![0; cap],
            over: BTreeMap::new(),
        }
    }

    /// Number of unit bins: values `>= cap` go to the sparse map.
    pub fn cap(&self) -> usize {
        self.bins.len()
    }

    /// Record one observation `v`. Below `cap`: one increment, no allocation.
    #[inline]
    pub fn add(&mut self, v: u64) {
        match usize::try_from(v).ok().and_then(|i| self.bins.get_mut(i)) {
            Some(b) => *b += 1,
            None => self.add_overflow(v, 1),
        }
    }

    /// Record the observation `v` `times` times (no-op when `times == 0`).
    pub fn add_n(&mut self, v: u64, times: u64) {
        if times == 0 {
            return;
        }
        match usize::try_from(v).ok().and_then(|i| self.bins.get_mut(i)) {
            Some(b) => *b += times,
            None => self.add_overflow(v, times),
        }
    }

    #[cold]
    fn add_overflow(&mut self, v: u64, times: u64) {
        *self.over.entry(v).or_insert(0) += times;
    }

    /// Add all observations of `other` to `self`. The result equals the
    /// histogram of the concatenated observations.
    ///
    /// # Panics
    /// If the caps differ.
    pub fn merge(&mut self, other: &Histogram) {
        assert_eq!(
            self.cap(),
            other.cap(),
            "Histogram::merge: caps differ ({} vs {})",
            self.cap(),
            other.cap()
        );
        for (a, b) in self.bins.iter_mut().zip(&other.bins) {
            *a += *b;
        }
        for (&v, &c) in &other.over {
            *self.over.entry(v).or_insert(0) += c;
        }
    }

    /// Number of observations.
    pub fn count(&self) -> u64 {
        self.bins.iter().sum::<u64>() + self.overflow()
    }

    /// Number of observations `>= cap` (kept in the sparse map).
    pub fn overflow(&self) -> u64 {
        self.over.values().sum()
    }

    /// Exact sum of all observations.
    pub fn sum(&self) -> u128 {
        self.moments().1
    }

    /// Exact sum of the squares of all observations.
    pub fn sum_sq(&self) -> u128 {
        self.moments().2
    }

    /// Count, sum and sum of squares of all observations.
    fn moments(&self) -> (u64, u128, u128) {
        let (mut n, mut sum, mut sum_sq) = (0u64, 0u128, 0u128);
        for (v, c) in self.bins() {
            let (v, c128) = (v as u128, c as u128);
            n += c;
            sum += v * c128;
            sum_sq += v * v * c128;
        }
        (n, sum, sum_sq)
    }

    /// Count, sum and sum of squares, or `None` when one of them does not
    /// fit (a histogram read from a file: those of a run always fit), or
    /// when a value below the cap is kept apart from its unit bin.
    pub fn checked_moments(&self) -> Option<(u64, u128, u128)> {
        if self
            .over
            .keys()
            .next()
            .is_some_and(|&v| v < self.cap() as u64)
        {
            return None;
        }
        let (mut n, mut sum, mut sum_sq) = (0u64, 0u128, 0u128);
        for (v, c) in self.bins() {
            let (v, c128) = (v as u128, c as u128);
            n = n.checked_add(c)?;
            sum = sum.checked_add(v.checked_mul(c128)?)?;
            sum_sq = sum_sq.checked_add(v.checked_mul(v)?.checked_mul(c128)?)?;
        }
        Some((n, sum, sum_sq))
    }

    /// As [`merge`](Histogram::merge) with checked arithmetic: `false`, and
    /// `self` unchanged, when the caps differ or a count or moment of the
    /// sum would not fit.
    pub fn try_merge(&mut self, other: &Histogram) -> bool {
        if self.cap() != other.cap() {
            return false;
        }
        let mut t = self.clone();
        for (a, b) in t.bins.iter_mut().zip(&other.bins) {
            let Some(s) = a.checked_add(*b) else {
                return false;
            };
            *a = s;
        }
        for (&v, &c) in &other.over {
            let e = t.over.entry(v).or_insert(0);
            let Some(s) = e.checked_add(c) else {
                return false;
            };
            *e = s;
        }
        if t.checked_moments().is_none() {
            return false;
        }
        *self = t;
        true
    }

    /// Iterator over `(value, count)` for every value observed, in increasing
    /// value order (unit bins first, then the values `>= cap`).
    pub fn bins(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.bins
            .iter()
            .enumerate()
            .filter(|(_, &c)| c != 0)
            .map(|(v, &c)| (v as u64, c))
            .chain(self.over.iter().map(|(&v, &c)| (v, c)))
    }

    /// Arithmetic mean; `0.0` when empty.
    pub fn mean(&self) -> f64 {
        let (count, sum, _) = self.moments();
        if count == 0 {
            0.0
        } else {
            sum as f64 / count as f64
        }
    }

    /// Sample standard deviation (`n - 1` denominator); `0.0` when
    /// `count < 2`.
    ///
    /// Computed as `sqrt((n·Σx² − (Σx)²) / (n·(n−1)))` with the numerator in
    /// exact integer arithmetic (no cancellation error).
    pub fn sd(&self) -> f64 {
        let (count, sum, sum_sq) = self.moments();
        if count < 2 {
            return 0.0;
        }
        let n = count as u128;
        let var = match (n.checked_mul(sum_sq), sum.checked_mul(sum)) {
            // By Cauchy-Schwarz n·Σx² >= (Σx)², so this never underflows.
            (Some(a), Some(b)) => (a - b) as f64 / (n * (n - 1)) as f64,
            // Astronomically large sums: fall back to floating point.
            _ => {
                let nf = count as f64;
                let mean = sum as f64 / nf;
                ((sum_sq as f64 - mean * sum as f64) / (nf - 1.0)).max(0.0)
            }
        };
        var.sqrt()
    }

    /// Smallest observation, `None` when empty.
    pub fn min(&self) -> Option<u64> {
        self.bins().next().map(|(v, _)| v)
    }

    /// Largest observation, `None` when empty.
    pub fn max(&self) -> Option<u64> {
        if let Some((&v, _)) = self.over.iter().next_back() {
            return Some(v);
        }
        self.bins.iter().rposition(|&c| c != 0).map(|v| v as u64)
    }

    /// Nearest-rank quantile: the smallest observed value `v` such that at
    /// least `ceil(q · count)` observations are `<= v` (rank at least 1, so
    /// `q = 0` gives the minimum and `q = 1` the maximum). `0.0` when empty.
    /// Exact for every value.
    ///
    /// `q · count` values within floating-point rounding of an integer are
    /// treated as that integer, so e.g. `q = 0.07` with 100 observations uses
    /// rank 7, although `0.07 * 100.0 == 7.000000000000001` in `f64`.
    ///
    /// # Panics
    /// If `q` is not in `[0, 1]` (including NaN).
    pub fn quantile(&self, q: f64) -> f64 {
        assert!(
            (0.0..=1.0).contains(&q),
            "Histogram::quantile: q = {q} not in [0, 1]"
        );
        let count = self.count();
        if count == 0 {
            return 0.0;
        }
        let rank = nearest_rank(q, count);
        let mut seen = 0u64;
        for (v, c) in self.bins() {
            seen += c;
            if seen >= rank {
                return v as f64;
            }
        }
        unreachable!("the rank is at most the count")
    }

    /// Count, mean, sd, min, max and the 5/25/50/75/95% quantiles (see
    /// [`quantile`](Histogram::quantile)). All fields are 0 when empty.
    pub fn summary(&self) -> Summary {
        Summary {
            count: self.count(),
            mean: self.mean(),
            sd: self.sd(),
            min: self.min().unwrap_or(0) as f64,
            max: self.max().unwrap_or(0) as f64,
            p5: self.quantile(0.05),
            p25: self.quantile(0.25),
            p50: self.quantile(0.50),
            p75: self.quantile(0.75),
            p95: self.quantile(0.95),
        }
    }
}

/// `max(1, ceil(q·n))`, treating a product within its rounding error of an
/// integer as that integer. Requires `n >= 1`, `q` in `[0, 1]`.
fn nearest_rank(q: f64, n: u64) -> u64 {
    let x = q * n as f64;
    let fl = x.floor();
    // q (a rounded decimal) and the product each carry <= eps/2 relative
    // error; 4 eps is a safe margin that can never swallow a real fraction
    // for n < 2^50.
    let r = if x - fl <= x * 4.0 * f64::EPSILON {
        fl
    } else {
        x.ceil()
    };
    (r as u64).clamp(1, n)
}

/// Snapshot of a [`Histogram`]: count, moments, extremes and quantiles.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Summary {
    /// Number of observations.
    pub count: u64,
    /// Arithmetic mean (0 when empty).
    pub mean: f64,
    /// Sample standard deviation (0 when count < 2).
    pub sd: f64,
    /// Smallest observation (0 when empty).
    pub min: f64,
    /// Largest observation (0 when empty).
    pub max: f64,
    /// 5% nearest-rank quantile.
    pub p5: f64,
    /// 25% nearest-rank quantile.
    pub p25: f64,
    /// Median (50% nearest-rank quantile).
    pub p50: f64,
    /// 75% nearest-rank quantile.
    pub p75: f64,
    /// 95% nearest-rank quantile.
    pub p95: f64,
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    fn hist_of(cap: usize, vals: &[u64]) -> Histogram {
        let mut h = Histogram::new(cap);
        for &v in vals {
            h.add(v);
        }
        h
    }

    #[test]
    fn z95_matches_statrs() {
        use statrs::distribution::{ContinuousCDF, Normal};
        let z = Normal::standard().inverse_cdf(0.975);
        assert!(close(z, Z95, 1e-12), "statrs gives {z}");
    }

    // Wilson: center = (p + z²/2n) / (1 + z²/n),
    //         half   = z / (1 + z²/n) * sqrt(p(1-p)/n + z²/4n²).
    // z = 1.96, z² = 3.8416.

    #[test]
    fn wilson_0_of_10() {
        // n = 10: z²/n = 0.38416, denom = 1.38416, z²/2n = 0.19208.
        // center = 0.19208 / 1.38416 = 0.138770084...
        // half = 1.96/1.38416 * sqrt(0 + 3.8416/400) = 1.41602127 * 0.098
        //      = 0.138770084... = center, so lower = 0,
        // upper = 0.38416 / 1.38416 = 0.277540169
        let (lo, hi) = wilson(0, 10, 1.96);
        assert_eq!(lo, 0.0);
        assert!(close(hi, 0.277540169, 1e-6), "{hi}");
    }

    #[test]
    fn wilson_5_of_10() {
        // p = 0.5: center = (0.5 + 0.19208) / 1.38416 = 0.5 exactly.
        // half = 1.41602127 * sqrt(0.025 + 0.009604) = 1.41602127 * 0.18602150
        //      = 0.26341041
        // -> (0.23658959, 0.76341041)
        let (lo, hi) = wilson(5, 10, 1.96);
        assert!(close(lo, 0.23658959, 1e-6), "{lo}");
        assert!(close(hi, 0.76341041, 1e-6), "{hi}");
    }

    #[test]
    fn wilson_10_of_10() {
        // Mirror image of 0/10: (1 - 0.277540169, 1) = (0.722459831, 1).
        let (lo, hi) = wilson(10, 10, 1.96);
        assert!(close(lo, 0.722459831, 1e-6), "{lo}");
        assert_eq!(hi, 1.0);
    }

    #[test]
    fn wilson_81_of_263() {
        // p = 81/263 = 0.307984791; z²/n = 0.014606844; z²/2n = 0.007303422
        // center = 0.315288213 / 1.014606844 = 0.310749149
        // p(1-p) = 0.213130159; /n = 0.000810381; z²/4n² = 3.8416/276676
        //   = 0.000013885; sum = 0.000824266; sqrt = 0.028710027
        // half = (1.96 / 1.014606844) * 0.028710027 = 1.931782751 * 0.028710027
        //      = 0.055461535
        // -> (0.255287613, 0.366210684), the classic (0.2553, 0.3662).
        let (lo, hi) = wilson(81, 263, 1.96);
        assert!(close(lo, 0.255287613, 1e-6), "{lo}");
        assert!(close(hi, 0.366210684, 1e-6), "{hi}");
    }

    #[test]
    fn wilson_edge_cases() {
        assert_eq!(wilson(0, 0, 1.96), (0.0, 1.0));
        assert_eq!(wilson95(0, 0), (0.0, 1.0));
        // wilson95 is wilson with the exact quantile, very close to z = 1.96.
        let (a, b) = wilson95(81, 263);
        assert!(close(a, 0.255287613, 1e-4) && close(b, 0.366210684, 1e-4));
        assert_eq!(wilson95(81, 263), wilson(81, 263, Z95));
    }

    #[test]
    #[should_panic]
    fn wilson_rejects_more_successes_than_trials() {
        wilson(11, 10, 1.96);
    }

    #[test]
    fn quantiles_one_to_ten() {
        let v: Vec<u64> = (1..=10).collect();
        let h = hist_of(100, &v);
        // Nearest rank r = max(1, ceil(10 q)); the r-th smallest of 1..=10 is r.
        let cases = [
            (0.0, 1.0),  // r = max(1, 0) = 1
            (0.05, 1.0), // ceil(0.5) = 1
            (0.1, 1.0),  // ceil(1.0) = 1
            (0.25, 3.0), // ceil(2.5) = 3
            (0.3, 3.0),  // ceil(3.0) = 3
            (0.5, 5.0),  // ceil(5.0) = 5
            (0.75, 8.0), // ceil(7.5) = 8
            (0.95, 10.0),
            (1.0, 10.0),
        ];
        for (q, want) in cases {
            assert_eq!(h.quantile(q), want, "q = {q}");
        }
        // mean = 55 / 10 = 5.5
        // Σ(x - 5.5)² = 2 * (0.25 + 2.25 + 6.25 + 12.25 + 20.25) = 82.5
        // sd = sqrt(82.5 / 9) = sqrt(9.1666...) = 3.0276503540974917
        assert_eq!(h.mean(), 5.5);
        assert!(close(h.sd(), 3.0276503540974917, 1e-12));
        assert_eq!(h.min(), Some(1));
        assert_eq!(h.max(), Some(10));
        assert_eq!(h.count(), 10);
        assert_eq!(h.sum(), 55);
        let s = h.summary();
        assert_eq!(
            (s.p5, s.p25, s.p50, s.p75, s.p95),
            (1.0, 3.0, 5.0, 8.0, 10.0)
        );
    }

    #[test]
    fn rank_tolerates_float_rounding() {
        // In f64: 0.07 * 100 = 7.000000000000001, 0.55 * 100 = 55.00000000000001,
        // 0.29 * 100 = 28.999999999999996. Nearest rank must still be 7, 55, 29.
        let h = hist_of(200, &(1..=100).collect::<Vec<u64>>());
        assert_eq!(h.quantile(0.07), 7.0);
        assert_eq!(h.quantile(0.55), 55.0);
        assert_eq!(h.quantile(0.29), 29.0);
        assert_eq!(h.quantile(0.071), 8.0); // ceil(7.1) = 8: real fractions still round up
        assert_eq!(nearest_rank(0.07, 100), 7);
    }

    #[test]
    fn quantiles_and_moments_skewed() {
        // sorted: 0 0 0 0 0 0 1 1 2 15 (n = 10), inserted out of order
        let h = hist_of(20, &[15, 0, 1, 0, 0, 2, 0, 1, 0, 0]);
        assert_eq!(h.quantile(0.5), 0.0); // rank 5 -> 0
        assert_eq!(h.quantile(0.6), 0.0); // rank 6 -> 0
        assert_eq!(h.quantile(0.61), 1.0); // ceil(6.1) = 7 -> 1
        assert_eq!(h.quantile(0.7), 1.0); // rank 7 -> 1
        assert_eq!(h.quantile(0.8), 1.0); // rank 8 -> 1
        assert_eq!(h.quantile(0.9), 2.0); // rank 9 -> 2
        assert_eq!(h.quantile(0.95), 15.0); // ceil(9.5) = 10 -> 15

        // Σx = 19, mean = 1.9
        // Σx² = 1 + 1 + 4 + 225 = 231
        // var = (10·231 − 19²) / (10·9) = (2310 − 361) / 90 = 1949 / 90
        //     = 21.6555...; sd = 4.653553003411002
        assert_eq!(h.mean(), 1.9);
        assert!(close(h.sd(), 4.653553003411002, 1e-12));
        assert_eq!(
            h.bins().collect::<Vec<_>>(),
            vec![(0, 6), (1, 2), (2, 1), (15, 1)]
        );
        assert_eq!(h.overflow(), 0);
    }

    #[test]
    fn empty_and_single() {
        let h = Histogram::new(5);
        assert_eq!(h.count(), 0);
        assert_eq!(h.mean(), 0.0);
        assert_eq!(h.sd(), 0.0);
        assert_eq!(h.min(), None);
        assert_eq!(h.max(), None);
        assert_eq!(h.quantile(0.5), 0.0);
        assert_eq!(h.bins().count(), 0);
        let s = h.summary();
        assert_eq!(s.count, 0);
        assert_eq!((s.min, s.max, s.p50), (0.0, 0.0, 0.0));

        let h = hist_of(5, &[3]);
        assert_eq!(h.sd(), 0.0);
        assert_eq!(h.mean(), 3.0);
        assert_eq!(h.quantile(0.0), 3.0);
        assert_eq!(h.quantile(1.0), 3.0);
    }

    #[test]
    fn overflow_behaviour() {
        // cap 10: 1, 2, 3 in bins; 50 and 100 overflow.
        let h = hist_of(10, &[1, 100, 2, 50, 3]);
        assert_eq!(h.count(), 5);
        assert_eq!(h.overflow(), 2);
        assert_eq!(
            h.bins().collect::<Vec<_>>(),
            vec![(1, 1), (2, 1), (3, 1), (50, 1), (100, 1)]
        );
        // Moments and extremes stay exact: Σx = 156, mean = 31.2
        // Σx² = 1 + 4 + 9 + 2500 + 10000 = 12514
        // var = (5·12514 − 156²) / 20 = (62570 − 24336) / 20 = 1911.7
        assert_eq!(h.mean(), 31.2);
        assert!(close(h.sd(), 1911.7f64.sqrt(), 1e-9));
        assert_eq!(h.min(), Some(1));
        assert_eq!(h.max(), Some(100));
        assert_eq!(h.quantile(0.6), 3.0); // rank 3 -> 3, still in the bins
        assert_eq!(h.quantile(0.8), 50.0); // rank 4 -> 50, exact above the cap too
        assert_eq!(h.quantile(1.0), 100.0); // rank 5 -> max

        // Value exactly at cap overflows; cap - 1 does not.
        let h = hist_of(10, &[9, 10]);
        assert_eq!(h.overflow(), 1);
        assert_eq!(h.bins().collect::<Vec<_>>(), vec![(9, 1), (10, 1)]);

        // Cap 0: everything overflows; huge values are fine.
        let h = hist_of(0, &[u64::MAX, 7]);
        assert_eq!(h.overflow(), 2);
        assert_eq!(h.min(), Some(7));
        assert_eq!(h.quantile(0.0), 7.0);
        assert_eq!(h.quantile(1.0), u64::MAX as f64);
    }

    #[test]
    fn ratio_interval_by_hand() {
        // Clusters (y, x): (1, 2), (0, 2), (2, 2), (1, 2): Σy = 4, Σx = 8,
        // r = 0.5; residuals y − r x = 0, −1, 1, 0, so Σ = 2, plus the
        // floor 2 · 0.25 + 2 · 0.25 = 1: var = 3 / (4 · 3 · 2²) = 1/16,
        // se = 0.25.
        let (lo, hi) = ratio_ci95(4, 1 + 4 + 1, 2 + 4 + 2, 8, 16, 4);
        assert!(close(lo, 0.5 - Z95 * 0.25, 1e-12), "{lo}");
        assert!(close(hi, 0.5 + Z95 * 0.25, 1e-12), "{hi}");
        // Clusters of one Bernoulli trial each: Σ = n p (1 − p) = 21, plus
        // 2 · 0.49 + 2 · 0.09 = 1.16, over n (n − 1).
        let (lo, hi) = ratio_ci95(30, 30, 30, 100, 100, 100);
        let se = (22.16f64 / (100.0 * 99.0)).sqrt();
        assert!(close(lo, 0.3 - Z95 * se, 1e-9) && close(hi, 0.3 + Z95 * se, 1e-9));
        assert_eq!(ratio_ci95(1, 1, 1, 1, 1, 1), (0.0, 1.0));
    }

    #[test]
    fn quantiles_past_the_cap_are_exact() {
        // Match totals around a 5,000-point target with a 4,096 cap: every
        // quantile is the true value, not the maximum.
        let vals: Vec<u64> = (0..100).map(|i| 4000 + 20 * i).collect();
        let h = hist_of(4096, &vals);
        let s = h.summary();
        // ranks: p5 -> 5th (4080), p25 -> 25th (4480), p50 -> 50th (4980),
        // p75 -> 75th (5480), p95 -> 95th (5880), max 5980.
        assert_eq!(
            (s.p5, s.p25, s.p50, s.p75, s.p95, s.max),
            (4080.0, 4480.0, 4980.0, 5480.0, 5880.0, 5980.0)
        );
        assert!(h.bins().all(|(v, c)| c == 1 && v >= 4000));
    }

    #[test]
    fn add_n_equals_repeated_add() {
        let mut a = Histogram::new(8);
        a.add_n(3, 4);
        a.add_n(20, 2);
        a.add_n(5, 0); // no-op: must not touch min/max
        let b = hist_of(8, &[3, 3, 3, 3, 20, 20]);
        assert_eq!(a, b);
        assert_eq!(a.min(), Some(3));
    }

    #[test]
    fn merge_with_empty_is_identity() {
        let h = hist_of(4, &[0, 1, 9]);
        let mut m = Histogram::new(4);
        m.merge(&h);
        assert_eq!(m, h);
        let mut m2 = h.clone();
        m2.merge(&Histogram::new(4));
        assert_eq!(m2, h);
    }

    #[test]
    #[should_panic]
    fn merge_rejects_different_caps() {
        Histogram::new(4).merge(&Histogram::new(5));
    }

    #[test]
    #[should_panic]
    fn quantile_rejects_q_out_of_range() {
        hist_of(4, &[1]).quantile(1.5);
    }

    /// Reference nearest-rank quantile from a sorted vector.
    fn reference_quantile(sorted: &[u64], q: f64) -> f64 {
        if sorted.is_empty() {
            return 0.0;
        }
        let r = nearest_rank(q, sorted.len() as u64) as usize;
        sorted[r - 1] as f64
    }

    const QS: [f64; 9] = [0.0, 0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 1.0];

    proptest! {
        #[test]
        fn merge_of_halves_equals_whole(
            vals in proptest::collection::vec(0u64..60, 0..300),
            split in any::<proptest::sample::Index>(),
        ) {
            let cap = 40; // values 40..60 overflow
            let k = split.index(vals.len() + 1);
            let whole = hist_of(cap, &vals);
            let mut left = hist_of(cap, &vals[..k]);
            let right = hist_of(cap, &vals[k..]);
            left.merge(&right);
            prop_assert_eq!(&left, &whole);
            for q in QS {
                prop_assert_eq!(left.quantile(q), whole.quantile(q));
            }
            prop_assert_eq!(left.summary(), whole.summary());
        }

        #[test]
        fn matches_sorted_reference(vals in proptest::collection::vec(0u64..60, 1..300)) {
            let cap = 40;
            let h = hist_of(cap, &vals);
            let mut sorted = vals.clone();
            sorted.sort_unstable();
            for q in QS {
                prop_assert_eq!(h.quantile(q), reference_quantile(&sorted, q));
            }
            let n = vals.len() as f64;
            let mean = vals.iter().sum::<u64>() as f64 / n;
            prop_assert!(close(h.mean(), mean, 1e-9));
            if vals.len() >= 2 {
                let ss: f64 = vals.iter().map(|&x| (x as f64 - mean).powi(2)).sum();
                prop_assert!(close(h.sd(), (ss / (n - 1.0)).sqrt(), 1e-9));
            }
            prop_assert_eq!(h.min(), sorted.first().copied());
            prop_assert_eq!(h.max(), sorted.last().copied());
            prop_assert_eq!(h.overflow(), vals.iter().filter(|&&v| v >= cap as u64).count() as u64);
        }
    }
}
