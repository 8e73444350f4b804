//! Streaming, mergeable statistics for Monte Carlo results.
//!
//! Everything here uses memory that does not grow with the number of
//! observations (a histogram grows only with the number of distinct large
//! values), and every accumulator can be merged exactly, so per-thread results
//! can be combined in any order.
//!
//! * [`wilson`] / [`wilson95`]: Wilson score interval for a binomial proportion
//!   (e.g. a win rate).
//! * [`paired_difference95`]: the difference of two proportions measured on
//!   the same trials (Newcombe's square-and-add of their Wilson intervals).
//! * [`Histogram`]: exact histogram of non-negative integers (unit bins below
//!   a cap, a sparse map above it), exact mean / sample standard deviation,
//!   min, max and nearest-rank quantiles for any value.
//! * [`Summary`]: a serialisable snapshot of a [`Histogram`].

use serde::{Deserialize, Serialize};
use statrs::distribution::{ContinuousCDF, StudentsT};
use std::collections::BTreeMap;

/// The 0.975 quantile of the standard normal distribution, i.e. the `z` of a
/// two-sided 95% interval. Checked against `statrs` in the unit tests.
pub const Z95: f64 = 1.959963984540054;

/// A standard normal deviate, by the Box-Muller transform.
pub fn normal(rng: &mut crate::engine::rng::Rng) -> f64 {
    use rand::Rng as _;
    let u1: f64 = 1.0 - rng.random::<f64>();
    let u2: f64 = rng.random::<f64>();
    (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

/// Above this many degrees of freedom [`t95`] takes the expansion of the
/// quantile in `1/df` in place of statrs' inverse: statrs' distribution puts
/// the expansion within 1e-11 of 97.5% from here to a million, while its
/// inverse drifts above 10,000 (its quantile's probability off by 4e-8 at
/// 30,000 and 7e-6 at a million) and did not end at about 14 million
/// (statrs 0.18).
pub(crate) const T_EXPANSION_DF: u64 = 1_000;

/// The two-sided 95% quantile of Student's t with `df` degrees of freedom.
pub fn t95(df: u64) -> f64 {
    if df > T_EXPANSION_DF {
        return t95_expansion(df as f64);
    }
    match StudentsT::new(0.0, 1.0, df.max(1) as f64) {
        Ok(t) => t.inverse_cdf(0.975),
        Err(_) => f64::NAN,
    }
}

/// The Cornish-Fisher expansion of t's 97.5% quantile in `1/ν` to the
/// third order (Abramowitz and Stegun 26.7.5).
pub(crate) fn t95_expansion(v: f64) -> f64 {
    let z = Z95;
    let (z3, z5, z7) = (z.powi(3), z.powi(5), z.powi(7));
    z + (z3 + z) / (4.0 * v)
        + (5.0 * z5 + 16.0 * z3 + 3.0 * z) / (96.0 * v * v)
        + (3.0 * z7 + 19.0 * z5 + 17.0 * z3 - 15.0 * z) / (384.0 * v * v * v)
}

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

/// 95% interval of the difference `p1 − p2` of two proportions measured on
/// the same trials (paired), from the counts of the 2x2 table: `both`
/// trials a success in each, `first_only` and `second_only` a success in
/// one, `neither` in none. Newcombe's method 10 (Statistics in Medicine 17,
/// 2635-2650, 1998): each proportion's Wilson interval, put together by
/// square-and-add with the correlation `φ` of the table (continuity-
/// corrected: `ad − bc` less `n/2` when above it, 0 between 0 and `n/2`).
/// Unlike the normal interval it keeps its width when no or few trials
/// split, and stays within `[-1, 1]`. `(NaN, NaN)` with no trial.
pub fn paired_difference95(
    both: u64,
    first_only: u64,
    second_only: u64,
    neither: u64,
) -> (f64, f64) {
    let n = both + first_only + second_only + neither;
    if n == 0 {
        return (f64::NAN, f64::NAN);
    }
    let nf = n as f64;
    let (x1, x2) = (both + first_only, both + second_only);
    let (p1, p2) = (x1 as f64 / nf, x2 as f64 / nf);
    let ((l1, u1), (l2, u2)) = (wilson95(x1, n), wilson95(x2, n));
    let margins = [x1, n - x1, x2, n - x2].map(|m| m as f64);
    let cross = both as f64 * neither as f64 - first_only as f64 * second_only as f64;
    let corrected = if cross > nf / 2.0 {
        cross - nf / 2.0
    } else if cross < 0.0 {
        cross
    } else {
        0.0
    };
    let product: f64 = margins.iter().product();
    let phi = if product > 0.0 {
        corrected / product.sqrt()
    } else {
        0.0
    };
    let spread = |a: f64, b: f64| (a * a - 2.0 * phi * a * b + b * b).max(0.0).sqrt();
    let d = p1 - p2;
    (
        (d - spread(p1 - l1, u2 - p2)).max(-1.0),
        (d + spread(p2 - l2, u1 - p1)).min(1.0),
    )
}

/// 95% interval of a share `Σy / Σx` (each cluster's `y` at most its `x`)
/// over `clusters` independent clusters (for example rounds won over rounds
/// played, by match), from the cluster-robust (delta-method) variance of a
/// ratio estimator:
/// `var = (Σ (y_g − r x_g)² + SHARE_FLOOR_SS(r)) / (G (G − 1) x̄²)` with
/// `r = Σy / Σx`, `x̄ = Σx / G`. Needs the exact sums `Σy`, `Σy²`, `Σxy`,
/// `Σx`, `Σx²`. Student's t with `G − 1` degrees of freedom, clamped to `[0, 1]`; `(0, 1)` with
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
    // Student's t with G - 1 degrees of freedom, as the experiments'
    // estimates: the normal quantile was too narrow over a few clusters.
    let t = t95(clusters - 1);
    ((r - t * se).clamp(0.0, 1.0), (r + t * se).clamp(0.0, 1.0))
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
    /// histogram of the concatenated observations. `other` may have fewer
    /// unit bins than `self` (a part of the work, kept small: its values
    /// past its cap go to `self`'s bins or map as their value says); its
    /// unit bins are all that is read of it, so a small part merges in time
    /// of its own size, not of `self`'s.
    ///
    /// # Panics
    /// If `other` has more unit bins than `self`.
    pub fn merge(&mut self, other: &Histogram) {
        assert!(
            other.cap() <= self.cap(),
            "Histogram::merge: caps differ ({} vs {})",
            self.cap(),
            other.cap()
        );
        for (a, b) in self.bins.iter_mut().zip(&other.bins) {
            *a += *b;
        }
        for (&v, &c) in &other.over {
            self.add_n(v, c);
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
        // The rank is at most the count, so some value holds it.
        self.ranked(nearest_rank(q, count)).unwrap_or(0) as f64
    }

    /// The 95% interval of the population's `q`-quantile from these values
    /// taken as independent draws: the order statistics `X(l)` and `X(u)`
    /// with `l` the smallest `k` with `P(B <= k) >= 0.025` and `u - 1` the
    /// smallest with `P(B <= k) >= 0.975`, `B ~ Binomial(count, q)`, which
    /// cover with probability at least 95% whatever the distribution,
    /// discrete or not. `None` when the values are too few for such ranks
    /// (`l = 0` or `u > count`), or `q` is not strictly between 0 and 1.
    pub fn quantile_ci95(&self, q: f64) -> Option<(f64, f64)> {
        let n = self.count();
        if n == 0 || !(q > 0.0 && q < 1.0) {
            return None;
        }
        let (l, u) = (binomial_least(n, q, 0.025), binomial_least(n, q, 0.975) + 1);
        if l == 0 || u > n {
            return None;
        }
        Some((self.ranked(l)? as f64, self.ranked(u)? as f64))
    }

    /// The `r`-th smallest value (1-based).
    fn ranked(&self, r: u64) -> Option<u64> {
        let mut seen = 0u64;
        for (v, c) in self.bins() {
            seen += c;
            if seen >= r {
                return Some(v);
            }
        }
        None
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

/// The smallest `k` with `P(B <= k) >= p`, `B ~ Binomial(n, q)`,
/// `0 < q < 1`: summed exactly up to 1,000 trials; past that by the normal
/// approximation with continuity correction, which is within a rank of it
/// there (statrs's binomial distribution function is wrong by far near the
/// centre from about 10^7 trials: 0.365 for P(B <= n/2) at n = 10^7, and
/// below 0 from 5 x 10^7, where bisecting on it gave a median's interval
/// that did not hold the median).
fn binomial_least(n: u64, q: f64, p: f64) -> u64 {
    if n <= 1000 {
        // In logarithms: (1 - q)^n underflows for q near 1.
        let mut lpmf = n as f64 * (1.0 - q).ln();
        let mut cum = lpmf.exp();
        let lodds = (q / (1.0 - q)).ln();
        for k in 0..n {
            if cum >= p {
                return k;
            }
            lpmf += ((n - k) as f64 / (k + 1) as f64).ln() + lodds;
            cum += lpmf.exp();
        }
        return n;
    }
    let (mean, sd) = (n as f64 * q, (n as f64 * q * (1.0 - q)).sqrt());
    let z = {
        use statrs::distribution::{ContinuousCDF, Normal};
        Normal::new(0.0, 1.0).map_or(0.0, |d| d.inverse_cdf(p))
    };
    (mean + z * sd - 0.5).ceil().clamp(0.0, n as f64) as u64
}

#[cfg(test)]
mod tests;
