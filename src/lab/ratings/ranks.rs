//! Rank intervals from a fit's ratings and their covariance: which
//! strategies the data show above and below each one.

use super::Rating;

/// Draws of the differences' maximum behind [`rank_intervals`].
pub const RANK_DRAWS: usize = 10_000;

/// The largest field whose [`rank_intervals`] draw each strategy's
/// differences afresh; a larger one draws the ratings once for all.
pub const SHARED_DRAWS_ABOVE: usize = 64;

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
    rank_intervals_drawn(ratings, cov?, ratings.len() > SHARED_DRAWS_ABOVE)
}

/// [`rank_intervals`], the ratings drawn once for all strategies (`shared`)
/// or each strategy's differences afresh.
fn rank_intervals_drawn(
    ratings: &[Rating],
    cov: &[f64],
    shared: bool,
) -> Option<Vec<(usize, usize)>> {
    let k = ratings.len();
    if k < 2 {
        return Some(vec![(1, 1); k]);
    }
    let m = k - 1;
    let mut rng = <crate::engine::rng::Rng as rand::SeedableRng>::seed_from_u64(0x72616e6b);
    // A field of up to SHARED_DRAWS_ABOVE strategies: each strategy's
    // differences are drawn afresh from their correlation (k - 1 normals a
    // draw, a Cholesky factor and k^2 work a draw for each strategy: k^4 in
    // all). A larger field: one draw of every rating serves every strategy,
    // its differences taken from it (the same distribution, k^3 in all).
    let width = if shared { k } else { m };
    // Standard normal draws, shared by every strategy: draw d, coordinate a.
    let u: Vec<f64> = (0..RANK_DRAWS * width)
        .map(|_| crate::sim::stats::normal(&mut rng))
        .collect();
    // The shared draws of the ratings: the covariance plus a constant in
    // every entry (a common shift of all ratings, which no difference
    // sees) is positive definite where the centred covariance is not.
    let ratings_drawn: Option<Vec<f64>> = shared
        .then(|| {
            let c = (0..k).map(|i| cov[i * k + i]).fold(0.0, f64::max);
            let lifted: Vec<f64> = cov.iter().map(|v| v + c).collect();
            let mut x = vec![0.0; RANK_DRAWS * k];
            lower_times(&cholesky(&lifted, k)?, k, &u, &mut x);
            Some(x)
        })
        .flatten();
    // One strategy's interval; the strategies are worked out side by side
    // (each alone, so the intervals do not depend on the threads).
    let one = |j: usize| {
        // z: the draws of the standardised differences, draw d at
        // z[d * m..]: drawn once, then only their maxima are taken again at
        // each step.
        let (mut z, mut maxima) = (vec![0.0; RANK_DRAWS * m], vec![0.0; RANK_DRAWS]);
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
        // Shown: +1 above j, -1 below, 0 not shown.
        let mut shown = vec![0i8; m];
        // Without a usable correlation (a variance of 0 or not a number),
        // Bonferroni's bound on the maximum, which needs none.
        let drawn = if shared {
            let usable = se.iter().all(|v| *v > 0.0 && v.is_finite());
            match &ratings_drawn {
                Some(x) if usable => {
                    for (xd, zd) in x.chunks_exact(k).zip(z.chunks_exact_mut(m)) {
                        for ((zx, &a), s) in zd.iter_mut().zip(&others).zip(&se) {
                            *zx = (xd[a] - xd[j]) / s;
                        }
                    }
                    true
                }
                _ => false,
            }
        } else {
            let mut corr = vec![0.0; m * m];
            for (x, &a) in others.iter().enumerate() {
                for (y, &b) in others.iter().enumerate() {
                    corr[x * m + y] = c(a, b) / (se[x] * se[y]);
                }
            }
            match cholesky(&corr, m) {
                Some(l) => {
                    lower_times(&l, m, &u, &mut z);
                    true
                }
                None => false,
            }
        };
        loop {
            let rest: Vec<usize> = (0..m).filter(|&x| shown[x] == 0).collect();
            if rest.is_empty() {
                break;
            }
            let crit = if drawn {
                for (zd, mx) in z.chunks_exact(m).zip(maxima.iter_mut()) {
                    *mx = rest.iter().map(|&x| zd[x].abs()).fold(0.0, f64::max);
                }
                maxima.sort_by(f64::total_cmp);
                maxima[(RANK_DRAWS as f64 * 0.95).ceil() as usize - 1]
            } else {
                bonferroni_z(rest.len())
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
        (1 + above, k - below)
    };
    use rayon::prelude::*;
    Some((0..k).into_par_iter().map(one).collect())
}

/// The normal quantile of a two-sided 95% interval Bonferroni-adjusted for
/// `m` intervals: `z` with `P(|Z| > z) = 0.05 / m`.
fn bonferroni_z(m: usize) -> f64 {
    use statrs::distribution::{ContinuousCDF, Normal};
    let p = 1.0 - 0.025 / m as f64;
    Normal::standard().inverse_cdf(p)
}

/// `out`, draw by draw (`n` values each), the lower triangular `n x n`
/// matrix `l` (row major) times the draw of `u` at the same place: standard
/// normal draws given `l l^T` as their covariance.
fn lower_times(l: &[f64], n: usize, u: &[f64], out: &mut [f64]) {
    for (ud, od) in u.chunks_exact(n).zip(out.chunks_exact_mut(n)) {
        for (i, oi) in od.iter_mut().enumerate() {
            *oi = (0..=i).map(|y| l[i * n + y] * ud[y]).sum();
        }
    }
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

    fn rated(x: f64) -> Rating {
        Rating {
            log_strength: x,
            elo: 0.0,
            elo_ci95: (0.0, 0.0),
            p_average_table: 0.0,
            p_average_table_ci95: (0.0, 0.0),
        }
    }

    /// A large field's ratings drawn once for all strategies give the
    /// intervals each strategy's own draws give (the same distribution,
    /// other draws: an end may move by one where a difference sits at the
    /// critical value).
    #[test]
    fn shared_draws_give_the_intervals_of_each_strategys_own() {
        let k = SHARED_DRAWS_ABOVE + 6;
        // Ratings 0.02 apart, independent with variance 0.002 and then
        // centred, as a fit's are: each is shown apart from some but not all.
        let ratings: Vec<Rating> = (0..k).map(|i| rated(0.02 * i as f64)).collect();
        let v = |i: usize| 0.002 * (1.0 + (i % 3) as f64 * 0.25);
        let mut cov = vec![0.0; k * k];
        let mean_v = (0..k).map(v).sum::<f64>() / k as f64;
        for i in 0..k {
            for j in 0..k {
                let d = if i == j { v(i) } else { 0.0 };
                cov[i * k + j] = d - v(i) / k as f64 - v(j) / k as f64 + mean_v / k as f64;
            }
        }
        let own = rank_intervals_drawn(&ratings, &cov, false).unwrap();
        let shared = rank_intervals(&ratings, Some(&cov)).unwrap();
        assert_eq!(shared, rank_intervals_drawn(&ratings, &cov, true).unwrap());
        let mut same = 0;
        for (a, b) in own.iter().zip(&shared) {
            assert!(
                a.0.abs_diff(b.0) <= 1 && a.1.abs_diff(b.1) <= 1,
                "{a:?} {b:?}"
            );
            same += usize::from(a == b);
            assert!(
                b.0 > 1 || b.1 < k,
                "every interval is narrower than the field"
            );
        }
        assert!(same * 10 >= k * 9, "{same} of {k} the same");
    }
}
