//! Estimates from the exact sums: ratio estimates and paired differences
//! with their 95% intervals (delta method, Student's t), and Holm's
//! adjustment of a family of p-values.

use super::block::{CrossSums, RatioSums};
use super::layout::is_share;
use crate::sim::stats::{share_floor_ss, t95};
#[cfg(test)]
use crate::sim::stats::{t95_expansion, T_EXPANSION_DF, Z95};
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
    /// Two-sided p-value of "no difference" (Student's t with `df`
    /// degrees of freedom); NaN when the difference has no test (`untested`).
    pub p: f64,
    /// The degrees of freedom of the interval and the test: the clusters
    /// where the arms differ, less one (at least 1), at most clusters − 1.
    pub df: u64,
    /// The clusters where the arms differ (`None` from a state saved before
    /// they were counted: then `df` is clusters − 1).
    pub differ: Option<u64>,
    /// Standard error the difference would have with independent samples.
    pub se_unpaired: f64,
    /// Why the difference has no test, if it has none.
    pub untested: Option<Untested>,
}

/// Why a difference gets no p-value (and stays out of Holm's family).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Untested {
    /// The two arms' values are equal in every cluster by construction:
    /// the metric is an identity (the round wins per seat held of a
    /// strategy at every seat are the won rounds / players).
    Identical,
    /// The two arms' values were equal in every cluster played, while the
    /// metric varies: no difference was seen, which does not show there is
    /// none (a rare event that tells the arms apart may not have come up,
    /// e.g. a turn limit no round reached). No interval: zero width would
    /// claim more than the data say.
    SameInEveryDeal,
    /// The difference is the same in every cluster (each arm's value never
    /// varies, e.g. no blocked round in either arm): its standard error is
    /// zero, or below floating-point rounding of the sums. No interval of
    /// its own: the report puts one together from each arm's
    /// ([`interval_without_variance`]), unless the value is fixed by the
    /// tables.
    NoVariance,
    /// Each arm's value was the same in every cluster, and the two differ
    /// (a turn limit that truncates every round of one arm and none of the
    /// other): a difference seen in every deal, not tested (its standard
    /// error is zero). Its interval is put together from each arm's own
    /// (Newcombe's square-and-add) by the report.
    Constant,
    /// The same test as another metric's, which carries it.
    SameAs(&'static str),
    /// A challenger's row that is the same test as the other strategy's
    /// row: the other seats of both arms held by one strategy and every
    /// round (match) won, so a round's wins add up to one and the
    /// challenger's gain is minus that strategy's difference times its
    /// seats per challenger seat, cluster by cluster. Also the second
    /// strategy's row of two that hold every seat of both arms alike, every
    /// round (match) won: the mirror of the first's.
    SameAsOther,
}

impl Untested {
    /// In words, for reports.
    pub fn label(self) -> String {
        match self {
            Untested::Identical => "identical by construction".into(),
            Untested::SameInEveryDeal => "the same in every deal played".into(),
            Untested::NoVariance => "no variance".into(),
            Untested::Constant => "constant in each arm".into(),
            Untested::SameAs(m) => format!("same test as {m}"),
            Untested::SameAsOther => "same test as the other strategy's row".into(),
        }
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
/// `None` when `Σx = 0`. No floor and no bounds: the plain interval, which
/// a few agreeing clusters make as narrow as zero ([`count_estimate`] and
/// [`share_estimate`] are the metrics' own).
pub fn ratio_estimate(s: &RatioSums, clusters: u64) -> Option<Estimate> {
    delta_estimate(s, clusters, Bounds::Free)
}

/// [`ratio_estimate`] of a share held by `held` of each trial's parts
/// (each cluster's `y` at most its `x / held`: won rounds of the `held`
/// seat-rounds a strategy has in each round, blocked rounds of rounds with
/// `held` = 1). The share of trials `held · y / x` is at most 1: the squared
/// residuals get the floor of [`share_floor_ss`] of it (two won and two
/// lost single trials), so that a few clusters that agree do not give an
/// interval of width zero, and the interval is clamped to `[0, 1 / held]`.
/// A strategy at every seat of a round without blocked rounds wins exactly
/// `1 / players` per seat held, and the interval's upper end is that.
pub fn share_estimate(s: &RatioSums, clusters: u64, held: u64) -> Option<Estimate> {
    let e = delta_estimate(s, clusters, Bounds::Share(held.max(1) as f64))?;
    // Each cluster one trial that succeeded or not (a match won or not; a
    // plain round won or not by a strategy with one seat): Σx = Σx² = G
    // holds only when every x is 1, Σy² = Σy only when every y is 0 or 1.
    // The clusters are then independent Bernoulli trials, and Wilson's
    // interval is theirs, as `run` gives it (the floored t-interval read
    // [0.000%, 16.760%] for 5 wins of 60 matches, Wilson [3.61%, 18.07%]).
    let n = i128::from(clusters);
    if held <= 1 && n > 0 && s.x == n && s.xx == n && s.yy == s.y && (0..=n).contains(&s.y) {
        let (lo, hi) = crate::sim::stats::wilson95(s.y as u64, clusters);
        return Some(Estimate { lo, hi, ..e });
    }
    Some(e)
}

/// [`ratio_estimate`] of a mean of counts per trial (turns, cards drawn,
/// points or UNO penalties per round: `y` counts, `x` trials), at least 0.
/// The squared residuals get the floor of [`share_floor_ss`] of the mean
/// (of the mean capped at 1 above 1): two trials with no event and two with
/// one, so that a rare event seen in no round of a few hundred does not
/// get the interval `[0, 0]` (coverage about 5% when the expected count in
/// the sample is 0.05, about 64% at 1; with the floor at least about 94%
/// for Poisson counts down to 5 clusters, `tests/suite/intervals.rs`). A
/// count that varies from trial to trial (turns) is widened by a negligible
/// amount. The lower end is clamped to 0.
pub fn count_estimate(s: &RatioSums, clusters: u64) -> Option<Estimate> {
    delta_estimate(s, clusters, Bounds::Count)
}

/// How a [`delta_estimate`] is floored and bounded.
#[derive(Clone, Copy)]
enum Bounds {
    /// The plain interval.
    Free,
    /// A share of `held` parts per trial ([`share_estimate`]).
    Share(f64),
    /// A share of won rounds less the fair one, `1 / players`, in the form
    /// `(players F − W) / (players W)`: `first_mover_advantage`.
    Advantage(f64),
    /// A mean of counts ([`count_estimate`]).
    Count,
    /// A mean of counts of at least one each (`rounds_per_match`: a match
    /// has a round at least): the counts past one floored and bounded as a
    /// mean of counts is, so that no end falls below 1.
    CountFromOne,
}

/// [`ratio_estimate`] with the floor and bounds of `bounds`.
fn delta_estimate(s: &RatioSums, clusters: u64, bounds: Bounds) -> Option<Estimate> {
    if s.x == 0 {
        return None;
    }
    let r = s.y as f64 / s.x as f64;
    let n = clusters as f64;
    let se = if clusters >= 2 {
        let xbar = s.x as f64 / n;
        let floor = match bounds {
            Bounds::Free => 0.0,
            // The residuals y − r·x are those of the share of trials (r·held
            // of x / held trials), so its floor is the one to add.
            Bounds::Share(k) => share_floor_ss(r * k),
            // y − r·x = p (F − s W) with s = r + 1/p the first mover's share
            // of the won rounds: that share's residuals, times p.
            Bounds::Advantage(p) => p * p * share_floor_ss((r + 1.0 / p).clamp(0.0, 1.0)),
            Bounds::Count => share_floor_ss(r.clamp(0.0, 1.0)),
            Bounds::CountFromOne => share_floor_ss((r - 1.0).clamp(0.0, 1.0)),
        };
        ((resid_ss(s, r) + floor) / (n * (n - 1.0))).sqrt() / xbar
    } else {
        f64::NAN
    };
    let h = t95(clusters.saturating_sub(1)) * se;
    let (lo, hi) = match bounds {
        _ if !h.is_finite() => (r - h, r + h),
        Bounds::Free => (r - h, r + h),
        Bounds::Share(k) => ((r - h).max(0.0), (r + h).min(1.0 / k)),
        Bounds::Advantage(p) => ((r - h).max(-1.0 / p), (r + h).min(1.0 - 1.0 / p)),
        Bounds::Count => ((r - h).max(0.0), r + h),
        Bounds::CountFromOne => ((r - h).max(1.0), r + h),
    };
    Some(Estimate {
        value: r,
        lo,
        hi,
        se,
        n: s.x,
    })
}

/// The estimate of metric `metric` (one of [`METRIC_NAMES`]) at a table of
/// `players`: a share's ([`share_estimate`], `held` parts of each trial: the
/// seats a strategy holds for `win_rate` and `match_win_rate`, 1 otherwise),
/// `first_mover_advantage` (a share less `1 / players`, floored as that
/// share and within `[-1 / players, 1 - 1 / players]`), or a mean of counts
/// ([`count_estimate`]: the other metrics, turns, cards drawn, points and UNO
/// penalties per round; rounds per match, at least 1, as its rounds past the
/// first).
///
/// [`METRIC_NAMES`]: super::METRIC_NAMES
pub fn metric_estimate(
    metric: &str,
    s: &RatioSums,
    clusters: u64,
    held: u64,
    players: u64,
) -> Option<Estimate> {
    if is_share(metric) {
        share_estimate(s, clusters, held)
    } else if metric == "first_mover_advantage" {
        // Its denominator is players x the won rounds: the won rounds are
        // its `n`, as the first mover's share's.
        let p = players.max(1);
        delta_estimate(s, clusters, Bounds::Advantage(p as f64)).map(|e| Estimate {
            n: e.n / p as i128,
            ..e
        })
    } else if metric == "rounds_per_match" {
        delta_estimate(s, clusters, Bounds::CountFromOne)
    } else {
        count_estimate(s, clusters)
    }
}

/// Whether the ratio `Σy/Σx` is the same in every cluster: `Σ(Σx·y −
/// Σy·x)² = 0`, exactly in integers (false if that overflows).
pub fn constant_ratio(s: &RatioSums) -> bool {
    let (x, y) = (s.x, s.y);
    let t = || -> Option<i128> {
        let a = x.checked_mul(x)?.checked_mul(s.yy)?;
        let b = x.checked_mul(y)?.checked_mul(s.xy)?.checked_mul(2)?;
        let c = y.checked_mul(y)?.checked_mul(s.xx)?;
        a.checked_sub(b)?.checked_add(c)
    };
    t() == Some(0)
}

/// Whether both arms' numerators and denominators are equal in every
/// cluster: `Σ(y_a − y_b)² = Σ(x_a − x_b)² = 0`, exactly in integers.
pub fn equal_per_cluster(a: &RatioSums, b: &RatioSums, c: &CrossSums) -> bool {
    let sq = |aa: i128, ab: i128, bb: i128| -> Option<i128> {
        aa.checked_sub(ab.checked_mul(2)?)?.checked_add(bb)
    };
    sq(a.yy, c.ya_yb, b.yy) == Some(0) && sq(a.xx, c.xa_xb, b.xx) == Some(0)
}

/// The paired difference of two ratios measured on the same clusters: the
/// delta method applied to `z = (y_a − R_a x_a)/x̄_a − (y_b − R_b x_b)/x̄_b`,
/// whose sum of squares expands into the exact sums and cross sums.
///
/// A difference whose `Σz²` is zero, or below the floating-point rounding of
/// the sums it is computed from, has no variance and no test: no p-value,
/// a zero-width interval, and `untested` says why
/// ([`Untested::SameInEveryDeal`], with no interval, when the arms are equal
/// in every cluster while the metric varies, [`Untested::NoVariance`]
/// otherwise).
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
    // The size of the terms `ss` is the difference of: a result below its
    // rounding error (a few ulps of it; 1e-12 leaves a wide margin) is zero.
    let mag = |s: &RatioSums, r: f64, x: f64| {
        (s.yy as f64 + 2.0 * (r * s.xy as f64).abs() + r * r * s.xx as f64) / (x * x)
    };
    let size = mag(a, ra, xa)
        + mag(b, rb, xb)
        + 2.0
            * ((c.ya_yb as f64).abs()
                + (rb * c.ya_xb as f64).abs()
                + (ra * c.xa_yb as f64).abs()
                + (ra * rb * c.xa_xb as f64).abs())
            / (xa * xb);
    let flat = ss <= 1e-12 * size;
    let diff = ra - rb;
    let (se, se_unpaired) = if clusters >= 2 {
        let d = n * (n - 1.0);
        let se = if flat { 0.0 } else { (ss / d).sqrt() };
        (se, ((ssa + ssb) / d).sqrt())
    } else {
        (f64::NAN, f64::NAN)
    };
    // The variance comes from the clusters where the arms differ, and only
    // from them: with few such (a rule that changes one round in a hundred),
    // Student's t on clusters − 1 degrees of freedom covered too seldom (the
    // count of differing clusters is a Poisson count, and the interval its
    // Wald interval, too short on the side of a larger effect). On the
    // differing clusters less one it covers better; docs/statistics.md
    // gives the figures, and what is still short.
    let df = match c.differ {
        Some(k) => k
            .saturating_sub(1)
            .clamp(1, clusters.saturating_sub(1).max(1)),
        None => clusters.saturating_sub(1),
    };
    let h = if se == 0.0 { 0.0 } else { t95(df) * se };
    // No variation (a rate that is 0 in both arms, the win rate of the only
    // strategy at the table, two arms that play the same games): nothing to
    // test, so no p-value, and the comparison stays out of Holm's family.
    let untested = (se == 0.0).then(|| {
        if equal_per_cluster(a, b, c) && !(constant_ratio(a) && constant_ratio(b)) {
            Untested::SameInEveryDeal
        } else {
            Untested::NoVariance
        }
    });
    // A difference that did not vary over the deals played (equal arms, or
    // a rate 0 in both) is not known to be that value: no interval, where a
    // zero-width one would claim it is (no blocked round in 2,000 rounds
    // gave "[0.000%, 0.000%]"). Identities get theirs back in the report.
    let h = if untested.is_some() { f64::NAN } else { h };
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
        df,
        differ: c.differ,
        se_unpaired,
        untested,
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

/// The interval of `diff`, arm minus baseline, from each arm's own
/// (Newcombe's square-and-add: each end moves by the root of the sum of the
/// squares of the arms' distances to the ends that push it that way), for a
/// difference without a standard error of its own ([`Untested::Constant`]).
/// None when either arm has no interval.
pub fn square_and_add(
    diff: f64,
    arm: Option<Estimate>,
    base: Option<Estimate>,
) -> Option<(f64, f64)> {
    let (a, b) = (arm?, base?);
    if !(a.lo.is_finite() && a.hi.is_finite() && b.lo.is_finite() && b.hi.is_finite()) {
        return None;
    }
    let lo = diff - (a.value - a.lo).hypot(b.hi - b.value);
    let hi = diff + (a.hi - a.value).hypot(b.value - b.lo);
    Some((lo, hi))
}

/// The interval of a difference without variance ([`Untested::NoVariance`]:
/// each arm's value was the same in every deal played), from each arm's
/// own ([`square_and_add`]): the two values differ, and it is a change seen
/// in every deal ([`Untested::Constant`]); or they are equal (no blocked
/// round in either arm), and it stays "no variance", with the interval that
/// bounds the difference the deals played cannot tell from zero. Other
/// differences, and those whose arms have no interval, are left as they are.
pub fn interval_without_variance(
    d: &mut Difference,
    arm: Option<Estimate>,
    base: Option<Estimate>,
) {
    if d.untested != Some(Untested::NoVariance) {
        return;
    }
    if let Some((lo, hi)) = square_and_add(d.diff, arm, base) {
        if d.diff != 0.0 {
            d.untested = Some(Untested::Constant);
        }
        (d.lo, d.hi) = (lo, hi);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounds_per_match_has_no_interval_end_below_one() {
        // 400 matches, each of one round but one of two (the audit's
        // 1.0025 [0.9940, 1.0110]): the lower end stops at 1.
        let mut s = RatioSums::default();
        for k in 0..400 {
            let y: i128 = if k == 0 { 2 } else { 1 };
            (s.y, s.x, s.yy, s.xx, s.xy) = (s.y + y, s.x + 1, s.yy + y * y, s.xx + 1, s.xy + y);
        }
        let e = metric_estimate("rounds_per_match", &s, 400, 1, 8).unwrap();
        assert_eq!(e.value, 1.0025);
        assert_eq!(e.lo, 1.0);
        assert!(e.hi > 1.0025 && e.hi < 1.02, "{e:?}");
        // The same counts as a mean of counts from 0 keep their lower end.
        let c = metric_estimate("turns_per_round", &s, 400, 1, 8).unwrap();
        assert!(c.lo < 1.0, "{c:?}");
    }

    #[test]
    fn t95_is_continuous_at_the_expansion_and_ends_for_any_df() {
        // Past the switch the quantile is where statrs' distribution puts
        // it, also where statrs' own inverse drifts or does not end.
        for df in [T_EXPANSION_DF + 1, 30_000, 1_000_000, 14_200_000] {
            let d = StudentsT::new(0.0, 1.0, df as f64).unwrap();
            let p = d.cdf(t95(df));
            assert!((p - 0.975).abs() < 1e-9, "df {df}: cdf {p}");
        }
        // Below it, statrs' inverse agrees with the expansion.
        let exact = StudentsT::new(0.0, 1.0, 1_000.0)
            .unwrap()
            .inverse_cdf(0.975);
        assert!((exact - t95_expansion(1_000.0)).abs() < 1e-11, "{exact}");
        assert!(t95(T_EXPANSION_DF) > t95(T_EXPANSION_DF + 1));
        assert!(t95(T_EXPANSION_DF) - t95(T_EXPANSION_DF + 1) < 1e-5);
        let mut last = t95(T_EXPANSION_DF + 1);
        for df in [28_304_384, 10_000_000_000, u64::MAX] {
            let t = t95(df);
            assert!(t >= Z95 && t < last, "df {df}: {t}");
            last = t;
        }
        assert!(t95(u64::MAX) - Z95 < 1e-15);
        // The p-value of the same tests ends too, and is the normal's there.
        let p = t_p_value(Z95, 28_304_384);
        assert!((p - 0.05).abs() < 1e-6, "{p}");
    }
}
