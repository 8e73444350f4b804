//! Unit tests of the statistics (the parent module).

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
    // Student's t with 3 degrees of freedom: 3.182446305284263.
    let t3 = 3.182446305284263;
    let (lo, hi) = ratio_ci95(4, 1 + 4 + 1, 2 + 4 + 2, 8, 16, 4);
    assert!(close(lo, (0.5 - t3 * 0.25f64).max(0.0), 1e-9), "{lo}");
    assert!(close(hi, (0.5 + t3 * 0.25f64).min(1.0), 1e-9), "{hi}");
    // Clusters of one Bernoulli trial each: Σ = n p (1 − p) = 21, plus
    // 2 · 0.49 + 2 · 0.09 = 1.16, over n (n − 1).
    // Student's t with 99 degrees of freedom: 1.984216951798577.
    let t99 = 1.984216951798577;
    let (lo, hi) = ratio_ci95(30, 30, 30, 100, 100, 100);
    let se = (22.16f64 / (100.0 * 99.0)).sqrt();
    assert!(close(lo, 0.3 - t99 * se, 1e-9) && close(hi, 0.3 + t99 * se, 1e-9));
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

/// Newcombe's paired interval against an independent implementation of the
/// same formula (the R function `confIntPairedProportion` of biostatUZH,
/// transcribed to numpy), on tables with many, few and no split trials.
#[test]
fn paired_difference_matches_newcombe_method_10() {
    let cases = [
        ((14, 5, 0, 22), (0.0114832414, 0.2264926844)),
        ((10, 15, 5, 20), (0.0258384165, 0.3569365717)),
        ((3, 0, 0, 7), (-0.2001928890, 0.2001928890)),
        ((0, 0, 0, 10), (-0.2775327999, 0.2775327999)),
        ((0, 1, 0, 0), (-0.1221087207, 1.0)),
        ((12, 4, 26, 6), (-0.6113487013, -0.2565106827)),
        ((500, 3, 1, 496), (-0.0023730351, 0.0063719566)),
    ];
    for ((a, b, c, d), (lo, hi)) in cases {
        let got = paired_difference95(a, b, c, d);
        assert!(
            close(got.0, lo, 1e-9) && close(got.1, hi, 1e-9),
            "{a} {b} {c} {d}: {got:?}"
        );
    }
    assert!(paired_difference95(0, 0, 0, 0).0.is_nan());
}

/// Coverage of the paired interval over 4,000 simulated tables per case
/// (fixed seeds): the trials' four outcomes drawn with the chances given,
/// the true difference `P(first only) − P(second only)`. The normal
/// interval on the per-trial differences, which tune used before, covered
/// 0.899 in the second case and 0.908 in the third (a seeded numpy check
/// of 20,000 tables each): too few splits for it.
#[test]
fn paired_difference_interval_covers() {
    use crate::engine::rng::Rng;
    use rand::{Rng as _, SeedableRng};
    // (trials, P(both), P(first only), P(second only))
    let cases = [
        (10, 0.3, 0.1, 0.05),
        (20, 0.3, 0.1, 0.05),
        (200, 0.05, 0.02, 0.0),
        (1000, 0.3, 0.01, 0.0),
        (50, 0.2, 0.15, 0.1),
        (30, 0.4, 0.0, 0.0),
    ];
    for (k, &(n, pa, pb, pc)) in cases.iter().enumerate() {
        let mut rng = Rng::seed_from_u64(9100 + k as u64);
        let runs = 4000;
        let mut covered = 0;
        for _ in 0..runs {
            let mut t = [0u64; 4];
            for _ in 0..n {
                let u: f64 = rng.random();
                let cell = if u < pa {
                    0
                } else if u < pa + pb {
                    1
                } else if u < pa + pb + pc {
                    2
                } else {
                    3
                };
                t[cell] += 1;
            }
            let (lo, hi) = paired_difference95(t[0], t[1], t[2], t[3]);
            let truth = pb - pc;
            if lo <= truth + 1e-12 && truth - 1e-12 <= hi {
                covered += 1;
            }
        }
        let share = covered as f64 / runs as f64;
        assert!(share >= 0.94, "case {k}: {share}");
    }
}

/// The binomial ranks of a quantile's interval are scipy's
/// (`binom.ppf(p, n, q)`): exactly up to 1,000 trials, within a rank past
/// that (the normal approximation), up to 10^8 trials, where statrs's
/// distribution function had gone wrong.
#[test]
fn binomial_ranks_are_scipys() {
    for (n, q, lo, hi, exact) in [
        (6u64, 0.5, 1u64, 5u64, true),
        (9, 0.5, 2, 7, true),
        (100, 0.5, 40, 60, true),
        (1000, 0.05, 37, 64, true),
        (1000, 0.95, 936, 963, true),
        (1001, 0.5, 470, 531, false),
        (100_000, 0.5, 49_690, 50_310, false),
        (100_000, 0.05, 4_865, 5_136, false),
        (100_000_000, 0.5, 49_990_200, 50_009_800, false),
        (100_000_000, 0.95, 94_995_728, 95_004_271, false),
    ] {
        let (l, u) = (binomial_least(n, q, 0.025), binomial_least(n, q, 0.975));
        let tol = if exact { 0 } else { 1 };
        assert!(
            l.abs_diff(lo) <= tol && u.abs_diff(hi) <= tol,
            "{n} {q}: {l} {u}"
        );
    }
}

/// A median's interval from 10^8 values (as `run --games 100000000` gives
/// turns) holds the median: bisecting statrs's distribution function gave
/// (500, 500) for a median of 499.
#[test]
fn a_median_interval_of_many_values_holds_the_median() {
    let mut h = Histogram::new(1000);
    for v in 0..1000 {
        h.add_n(v, 100_000);
    }
    assert_eq!(h.quantile(0.5), 499.0);
    assert_eq!(h.quantile_ci95(0.5), Some((499.0, 500.0)));
    // Six values are the fewest with an interval: the least and the most.
    let six = hist_of(10, &[1, 2, 3, 4, 5, 6]);
    assert_eq!(six.quantile_ci95(0.5), Some((1.0, 6.0)));
    assert_eq!(hist_of(10, &[1, 2, 3, 4, 5]).quantile_ci95(0.5), None);
}
