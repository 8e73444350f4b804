//! Estimates from the exact sums: ratio estimates and paired differences
//! with their 95% intervals (delta method, Student's t), and Holm's
//! adjustment of a family of p-values.

use super::block::{CrossSums, RatioSums};
use statrs::distribution::{ContinuousCDF, StudentsT};

/// A ratio estimate with its 95% interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Estimate {
    pub value: f64,
    pub lo: f64,
    pub hi: f64,
    /// Standard error (delta method, cluster-level variance).
    pub se: f64,
    /// Denominator total (rounds, seat-rounds, won rounds, matches...).
    pub n: i128,
}

/// A paired difference `arm − baseline` with its 95% interval and p-value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Difference {
    pub diff: f64,
    pub lo: f64,
    pub hi: f64,
    pub se: f64,
    /// Two-sided p-value of "no difference" (Student's t, clusters − 1 df).
    pub p: f64,
    /// Standard error the difference would have with independent samples.
    pub se_unpaired: f64,
}

/// The two-sided 95% quantile of Student's t with `df` degrees of freedom.
pub fn t95(df: u64) -> f64 {
    match StudentsT::new(0.0, 1.0, df.max(1) as f64) {
        Ok(t) => t.inverse_cdf(0.975),
        Err(_) => f64::NAN,
    }
}

fn t_p_value(t: f64, df: u64) -> f64 {
    if !t.is_finite() {
        return if t.is_nan() { f64::NAN } else { 0.0 };
    }
    match StudentsT::new(0.0, 1.0, df.max(1) as f64) {
        // The survival function keeps tiny p-values (no 1 − cdf cancellation).
        Ok(d) => (2.0 * d.sf(t.abs())).clamp(0.0, 1.0),
        Err(_) => f64::NAN,
    }
}

/// `Σ (y − r x)²` from the exact sums.
fn resid_ss(s: &RatioSums, r: f64) -> f64 {
    (s.yy as f64 - 2.0 * r * s.xy as f64 + r * r * s.xx as f64).max(0.0)
}

/// `Σy / Σx` over `clusters` clusters, with a 95% interval from the delta
/// method: `se² = Σ(y − R x)² / (n (n − 1) x̄²)`, Student's t with `n − 1` df.
/// `None` when `Σx = 0`.
pub fn ratio_estimate(s: &RatioSums, clusters: u64) -> Option<Estimate> {
    if s.x == 0 {
        return None;
    }
    let r = s.y as f64 / s.x as f64;
    let n = clusters as f64;
    let se = if clusters >= 2 {
        let xbar = s.x as f64 / n;
        (resid_ss(s, r) / (n * (n - 1.0))).sqrt() / xbar
    } else {
        f64::NAN
    };
    let h = t95(clusters.saturating_sub(1)) * se;
    Some(Estimate {
        value: r,
        lo: r - h,
        hi: r + h,
        se,
        n: s.x,
    })
}

/// The paired difference of two ratios measured on the same clusters: the
/// delta method applied to `z = (y_a − R_a x_a)/x̄_a − (y_b − R_b x_b)/x̄_b`,
/// whose sum of squares expands into the exact sums and cross sums.
pub fn paired_difference(
    a: &RatioSums,
    b: &RatioSums,
    c: &CrossSums,
    clusters: u64,
) -> Option<Difference> {
    if a.x == 0 || b.x == 0 {
        return None;
    }
    let n = clusters as f64;
    let (ra, rb) = (a.y as f64 / a.x as f64, b.y as f64 / b.x as f64);
    let (xa, xb) = (a.x as f64 / n, b.x as f64 / n);
    let cross =
        c.ya_yb as f64 - rb * c.ya_xb as f64 - ra * c.xa_yb as f64 + ra * rb * c.xa_xb as f64;
    let ssa = resid_ss(a, ra) / (xa * xa);
    let ssb = resid_ss(b, rb) / (xb * xb);
    let ss = (ssa + ssb - 2.0 * cross / (xa * xb)).max(0.0);
    let diff = ra - rb;
    let (se, se_unpaired) = if clusters >= 2 {
        let d = n * (n - 1.0);
        ((ss / d).sqrt(), ((ssa + ssb) / d).sqrt())
    } else {
        (f64::NAN, f64::NAN)
    };
    let df = clusters.saturating_sub(1);
    let h = t95(df) * se;
    // No variation at all (a rate that is 0 in both arms, or the win rate of
    // the only strategy at the table): nothing to test, so no p-value, and
    // the comparison stays out of Holm's family.
    let p = if se > 0.0 {
        t_p_value(diff / se, df)
    } else {
        f64::NAN
    };
    Some(Difference {
        diff,
        lo: diff - h,
        hi: diff + h,
        se,
        p,
        se_unpaired,
    })
}

/// Holm's step-down adjustment of `p` (NaN values are left out and stay NaN).
pub fn holm(p: &[f64]) -> Vec<f64> {
    let mut idx: Vec<usize> = (0..p.len()).filter(|&i| !p[i].is_nan()).collect();
    idx.sort_by(|&a, &b| p[a].total_cmp(&p[b]).then(a.cmp(&b)));
    let m = idx.len();
    let mut out = vec![f64::NAN; p.len()];
    let mut running = 0.0f64;
    for (k, &i) in idx.iter().enumerate() {
        let adj = ((m - k) as f64 * p[i]).min(1.0);
        running = running.max(adj);
        out[i] = running;
    }
    out
}
