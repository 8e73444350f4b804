//! The 95% intervals of shares (round wins per seat held, blocked rounds,
//! positions): `ratio_ci95` (the runner's clustered intervals) and the
//! experiments' `share_estimate`. Their floor (two won and two lost single
//! trials added to the variance) keeps a few agreeing clusters from giving
//! an interval of width zero; these tests check it by hand and its coverage
//! over simulated runs.

use unolab::sim::lockstep::{metric_estimate, RatioSums};
use unolab::sim::stats::{ratio_ci95, t95};

#[test]
fn a_share_whose_few_clusters_agree_keeps_a_wide_interval() {
    // Four heads-up deals, each split one round each: the residuals are
    // all zero, and the interval was [0.5, 0.5]; now var = 1 / (4 · 3 ·
    // 2²), se = 0.144: [0.041, 0.959] with t's 3 degrees of freedom.
    let (lo, hi) = ratio_ci95(4, 4, 8, 8, 16, 4);
    // Student's t with 3 degrees of freedom (3.1824463...).
    assert!(
        (lo - (0.5 - t95(3) / 48f64.sqrt())).abs() < 1e-12,
        "[{lo}, {hi}]"
    );
    assert!(lo < 0.25 && hi > 0.75, "[{lo}, {hi}]");
    // No event in 1,000 clusters of 10: not [0, 0].
    let (lo, hi) = ratio_ci95(0, 0, 0, 10_000, 100_000, 1000);
    assert_eq!(lo, 0.0);
    assert!(hi > 1e-4 && hi < 1e-3, "{hi}");
}

/// Clusters of `size` trials: each cluster's `(y, x)`. `kind` 0: a
/// heads-up duplicate deal (both rounds won with chance `a`, both lost
/// with `b`, split otherwise); 1: four rounds whose chance of a win is
/// `p - 0.1` or `p + 0.1` by cluster; 2: independent trials, chance `p`.
fn coverage(kind: u8, clusters: u64, p: f64, reps: u32, seed: u64) -> (f64, f64) {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed);
    let (a, b) = (0.3, 0.1);
    let truth = match kind {
        0 => (1.0 + a - b) / 2.0,
        _ => p,
    };
    let (mut hit, mut width) = (0u32, 0.0);
    for _ in 0..reps {
        let (mut y, mut yy, mut xy, mut x, mut xx) = (0u128, 0u128, 0u128, 0u128, 0u128);
        for _ in 0..clusters {
            let (cy, cx): (u128, u128) = match kind {
                0 => {
                    let u: f64 = rng.random();
                    (
                        if u < a {
                            2
                        } else if u < a + b {
                            0
                        } else {
                            1
                        },
                        2,
                    )
                }
                1 => {
                    let q = if rng.random::<bool>() {
                        p - 0.1
                    } else {
                        p + 0.1
                    };
                    (
                        (0..4).filter(|_| rng.random::<f64>() < q).count() as u128,
                        4,
                    )
                }
                _ => (u128::from(rng.random::<f64>() < p), 1),
            };
            y += cy;
            yy += cy * cy;
            xy += cx * cy;
            x += cx;
            xx += cx * cx;
        }
        let (lo, hi) = ratio_ci95(y, yy, xy, x, xx, clusters);
        hit += u32::from(lo <= truth && truth <= hi);
        width += hi - lo;
    }
    (hit as f64 / reps as f64, width / reps as f64)
}

#[test]
fn share_intervals_cover_about_95_percent_of_simulated_runs() {
    // 4,000 simulated runs per case, fixed seeds. With the floor they
    // covered 0.995, 0.954, 0.950, 0.930, 0.939, 0.952, 0.999 and 0.954;
    // without it the first case covered 0.818 (a simulation of the same
    // kinds of cases in Python: four players with 5 deals 0.84, a 5%
    // share of 30 trials 0.78).
    for (kind, clusters, p, lo, hi) in [
        (0, 5, 0.0, 0.93, 1.0),
        (0, 30, 0.0, 0.935, 0.97),
        (0, 1000, 0.0, 0.935, 0.965),
        (1, 5, 0.3, 0.9, 1.0),
        (1, 30, 0.3, 0.93, 0.965),
        (1, 1000, 0.3, 0.935, 0.965),
        (2, 30, 0.05, 0.93, 1.0),
        (2, 1000, 0.05, 0.935, 0.97),
    ] {
        let (cov, _) = coverage(kind, clusters, p, 4000, 7 + clusters + u64::from(kind));
        assert!(
            (lo..=hi).contains(&cov),
            "kind {kind}, {clusters} clusters: coverage {cov}, not in [{lo}, {hi}]"
        );
    }
}

#[test]
fn an_experiments_share_interval_has_the_floor_and_stays_in_0_1() {
    // Four heads-up deals, each split one round each: Σy = 4, Σx = 8.
    let split = RatioSums {
        y: 4,
        x: 8,
        yy: 4,
        xx: 16,
        xy: 8,
    };
    let e = metric_estimate("win_rate", &split, 4, 1, 2).unwrap();
    assert!(e.lo < 0.25 && e.hi > 0.75, "[{}, {}]", e.lo, e.hi);
    assert!(e.lo >= 0.0 && e.hi <= 1.0, "[{}, {}]", e.lo, e.hi);
    // Deals won 2, 0, 0, 1 of 2: the plain t interval reached below 0.
    let spread = RatioSums {
        y: 3,
        x: 8,
        yy: 5,
        xx: 16,
        xy: 6,
    };
    let plain = unolab::sim::lockstep::ratio_estimate(&spread, 4).unwrap();
    assert!(plain.lo < 0.0, "{}", plain.lo);
    let e = metric_estimate("win_rate", &spread, 4, 1, 2).unwrap();
    assert_eq!(e.lo, 0.0);
    assert!(e.hi <= 1.0 && e.hi > plain.hi.min(1.0) - 1e-12, "{}", e.hi);
    // A mean of counts gets the count floor, which barely moves a count
    // that varies: 4 deals of 10, 12, 10, 12 turns per round of 2 rounds.
    let turns = RatioSums {
        y: 88,
        x: 8,
        yy: 400 + 576 + 400 + 576,
        xx: 16,
        xy: 40 + 48 + 40 + 48,
    };
    let e = metric_estimate("turns_per_round", &turns, 4, 1, 2).unwrap();
    assert_eq!(e.value, 11.0);
    assert!(
        e.lo > 1.0 && e.hi < 21.0 && e.hi - e.lo > 0.0,
        "[{}, {}]",
        e.lo,
        e.hi
    );
    let plain = unolab::sim::lockstep::ratio_estimate(&turns, 4).unwrap();
    // Residuals Σ(y − 11x)² = 4 x 2² = 16, plus the floor 2 (the mean past
    // 1 counts as 1: two trials with no event, two with one).
    let width = |e: &unolab::sim::lockstep::Estimate| e.hi - e.lo;
    assert!(
        (width(&e) / width(&plain) - (18f64 / 16.0).sqrt()).abs() < 1e-9,
        "[{}, {}] against [{}, {}]",
        e.lo,
        e.hi,
        plain.lo,
        plain.hi
    );
}

#[test]
fn a_count_seen_in_no_round_keeps_an_interval_and_an_advantage_stays_possible() {
    use unolab::sim::lockstep::ratio_estimate;
    // 2,000 rounds without a UNO penalty: [0, 0] before, which a rate of
    // 1 in 2,500 rounds (the audit's run) misses.
    let none = RatioSums {
        y: 0,
        x: 2000,
        yy: 0,
        xx: 2000,
        xy: 0,
    };
    let e = metric_estimate("uno_penalties_per_round", &none, 2000, 1, 4).unwrap();
    assert_eq!((e.value, e.lo), (0.0, 0.0));
    assert!(e.hi > 4e-4 && e.hi < 3e-3, "{}", e.hi);
    let plain = ratio_estimate(&none, 2000).unwrap();
    assert_eq!((plain.lo, plain.hi), (0.0, 0.0));
    // first_mover_advantage on two 4-player rounds, the first mover winning
    // one: (4F − W) / (4W) = (4 − 2) / 8 = 0.25, residuals 4 (F − sW) =
    // ±2. The plain interval was [-610%, 660%], past what a share less 1/4
    // can be; it stays within [-0.25, 0.75].
    let two = RatioSums {
        y: 2,
        x: 8,
        yy: 9 + 1,
        xx: 32,
        xy: 12 - 4,
    };
    let plain = ratio_estimate(&two, 2).unwrap();
    assert!(
        plain.lo < -1.0 && plain.hi > 1.0,
        "[{}, {}]",
        plain.lo,
        plain.hi
    );
    let e = metric_estimate("first_mover_advantage", &two, 2, 1, 4).unwrap();
    assert_eq!((e.value, e.lo, e.hi), (0.25, -0.25, 0.75));
    // Both rounds won by the first mover at 2 players: 0.5 with zero
    // residuals, and [0.5, 0.5] before; the floor of a share of 1 opens it.
    let both = RatioSums {
        y: 2,
        x: 4,
        yy: 2,
        xx: 8,
        xy: 4,
    };
    let e = metric_estimate("first_mover_advantage", &both, 2, 1, 2).unwrap();
    assert_eq!((e.value, e.hi), (0.5, 0.5));
    assert_eq!(e.lo, -0.5, "[{}, {}]", e.lo, e.hi);
}

#[test]
fn count_intervals_cover_about_95_percent_of_simulated_runs() {
    // Poisson counts per round, one round per cluster, 4,000 simulated runs
    // per case at fixed seeds; `lam` is the expected count per round. The
    // plain t interval covers about 5% of runs when the expected count in
    // the whole sample is 0.05 (it is [0, 0] whenever no event came), 26%
    // at 0.3 and 64% at 1 (a simulation of the same cases in Python). With
    // the floor these cases covered 1, 1, 1, 0.950, 0.951, 0.950 and 0.944.
    use rand::{Rng, SeedableRng};
    // Knuth's sampler: the count of uniforms whose product stays above
    // e^-lam (lam is small here).
    let poisson = |rng: &mut rand_xoshiro::Xoshiro256PlusPlus, lam: f64| -> i128 {
        let (limit, mut prod, mut k) = ((-lam).exp(), rng.random::<f64>(), 0);
        while prod > limit {
            prod *= rng.random::<f64>();
            k += 1;
        }
        k
    };
    for (clusters, lam, lo, hi) in [
        (5, 0.01, 0.93, 1.0),
        (20, 0.0025, 0.93, 1.0),
        (100, 0.01, 0.93, 1.0),
        (100, 0.03, 0.93, 0.99),
        (1000, 0.003, 0.93, 0.99),
        (1000, 0.03, 0.935, 0.965),
        (30, 2.0, 0.93, 0.97),
    ] {
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(clusters + 9);
        let reps = 4000;
        let mut hit = 0;
        for _ in 0..reps {
            let (mut y, mut yy) = (0i128, 0i128);
            for _ in 0..clusters {
                let c = poisson(&mut rng, lam);
                y += c;
                yy += c * c;
            }
            let x = clusters as i128;
            let s = RatioSums {
                y,
                x,
                yy,
                xx: x,
                xy: y,
            };
            let e = metric_estimate("uno_penalties_per_round", &s, clusters, 1, 4).unwrap();
            hit += u32::from(e.lo <= lam && lam <= e.hi);
        }
        let cov = f64::from(hit) / f64::from(reps);
        assert!(
            (lo..=hi).contains(&cov),
            "{clusters} clusters, {lam} per round: coverage {cov}, not in [{lo}, {hi}]"
        );
    }
}

#[test]
fn a_strategy_at_every_seat_gets_a_share_interval_no_higher_than_one_over_players() {
    // 400 four-player rounds of one strategy at every seat, none blocked:
    // each round adds y = 1 win over x = 4 seat-rounds, so it wins exactly
    // 1/4 per seat held. The interval was [24.86%, 25.14%]: above what can be.
    let every = RatioSums {
        y: 400,
        x: 1600,
        yy: 400,
        xx: 400 * 16,
        xy: 400 * 4,
    };
    let e = metric_estimate("win_rate", &every, 400, 4, 2).unwrap();
    assert_eq!(e.value, 0.25);
    assert_eq!(e.hi, 0.25, "[{}, {}]", e.lo, e.hi);
    assert!(e.lo < 0.25 && e.lo > 0.24, "[{}, {}]", e.lo, e.hi);
    // A strategy at two seats: its share of rounds r·2 sets the floor, and
    // the interval stays within [0, 1/2]. 30 rounds, won at one of its two
    // seats in 28 of them.
    let two = RatioSums {
        y: 28,
        x: 60,
        yy: 28,
        xx: 30 * 4,
        xy: 28 * 2,
    };
    let e = metric_estimate("win_rate", &two, 30, 2, 2).unwrap();
    assert!(e.hi <= 0.5 && e.lo < e.value, "[{}, {}]", e.lo, e.hi);
    // The experiment's own table: the baseline's `points` at every seat.
    let dir = crate::common::tempdir("intervals", "every");
    std::fs::create_dir_all(&*dir).unwrap();
    let file = dir.join("every.toml");
    std::fs::write(
        &file,
        "name = \"every\"\nbaseline = \"a\"\n[base]\nrules = \"classic\"\nplayers = 4\n\
         games = 400\nseed = 5\n[[arm]]\nlabel = \"a\"\nstrategies = \"points\"\n\
         [[arm]]\nlabel = \"b\"\nstrategies = \"points,color,color,color\"\n",
    )
    .unwrap();
    let out = dir.join("out");
    crate::common::run_experiment(&file, &out, &["--threads", "1"]);
    let arms = crate::common::read(&out.join("arms.csv"));
    let row: Vec<&str> = arms
        .lines()
        .find(|l| l.starts_with("a,win_rate,points,"))
        .unwrap_or_else(|| panic!("no win_rate of points in arm a:\n{arms}"))
        .split(',')
        .collect();
    let (value, hi): (f64, f64) = (row[3].parse().unwrap(), row[5].parse().unwrap());
    assert_eq!(value, 0.25, "{row:?}");
    assert!(hi <= 0.25, "{row:?}");
}

#[test]
fn compare_on_four_deals_gives_no_impossible_or_empty_interval() {
    // `unolab compare` on 4 deals printed "50.00% [50.00, 50.00]" and
    // "37.50% [-38.67, 113.67]" for the challenger and the strategy it
    // replaces.
    let o = crate::common::unolab(&[
        "compare",
        "--players",
        "2",
        "--strategies",
        "pimc-100,color",
        "--b-seat",
        "0=cautious",
        "--duplicate",
        "--games",
        "4",
        "--seed",
        "1",
        "--threads",
        "1",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8_lossy(&o.stdout);
    let line = out
        .lines()
        .find(|l| l.contains("challenger"))
        .unwrap_or_else(|| panic!("no challenger line: {out}"));
    let nums: Vec<f64> = line
        .split(['[', ']', ','])
        .filter_map(|t| t.trim().parse::<f64>().ok())
        .collect();
    // The two side-by-side shares' intervals, then the challenger's paired
    // gain (a difference of shares, between -100 and +100 points).
    assert_eq!(nums.len(), 6, "{line}");
    for pair in nums[..4].chunks(2) {
        let (lo, hi) = (pair[0], pair[1]);
        assert!(0.0 <= lo && lo < hi && hi <= 100.0, "{line}");
    }
    let (lo, hi) = (nums[4], nums[5]);
    assert!(-100.0 <= lo && lo < hi && hi <= 100.0, "{line}");
}

/// A few deals gave intervals past what can be: a mean of counts (turns,
/// points) with a lower end below 0, a difference of two shares past
/// ±100%. Every arm interval of `compare --json` on 3 games starts at 0 or
/// above, every share difference stays in [-1, 1], and `run` prints no
/// negative lower end for its means.
#[test]
fn a_few_games_give_no_negative_mean_and_no_share_difference_past_one() {
    let o = crate::common::unolab(&[
        "compare",
        "-p",
        "2",
        "-s",
        "points,random",
        "--b-seat",
        "1=color",
        "-g",
        "3",
        "-q",
        "--json",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let ci = |x: &serde_json::Value| (x[0].as_f64().unwrap(), x[1].as_f64().unwrap());
    let arms = v["arms"].as_array().unwrap();
    assert!(arms.len() > 10);
    for a in arms {
        let (lo, hi) = ci(&a["ci95"]);
        if a["metric"] != "first_mover_advantage" {
            assert!(0.0 <= lo && lo <= hi, "{a}");
        }
    }
    let shares = [
        "win_rate",
        "blocked_rate",
        "first_mover_win_rate",
        "position_win_rate",
    ];
    let mut seen = 0;
    for c in v["comparisons"].as_array().unwrap() {
        // A difference without variance has no interval (null ends).
        if shares.contains(&c["metric"].as_str().unwrap()) && c["ci95"][0].is_f64() {
            let (lo, hi) = ci(&c["ci95"]);
            assert!(-1.0 <= lo && hi <= 1.0, "{c}");
            seen += 1;
        }
    }
    assert!(seen > 0);
    let o = crate::common::unolab(&["run", "-p", "2", "-s", "points,random", "-g", "2", "-q"]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("turns per round: mean"), "{out}");
    assert!(!out.contains("[-"), "{out}");
}

/// Adds one cluster of one trial to two arms' sums and their cross sums:
/// arm A's value `ya`, arm B's `yb`.
fn add_paired_trial(
    a: &mut RatioSums,
    b: &mut RatioSums,
    c: &mut unolab::sim::lockstep::CrossSums,
    ya: i128,
    yb: i128,
) {
    for (s, y) in [(a, ya), (b, yb)] {
        s.y += y;
        s.yy += y * y;
        s.xy += y;
        s.x += 1;
        s.xx += 1;
    }
    c.ya_yb += ya * yb;
    c.ya_xb += ya;
    c.xa_yb += yb;
    c.xa_xb += 1;
    if let Some(k) = &mut c.differ {
        *k += u64::from(ya != yb);
    }
}

/// The interval a share's difference gets in an experiment's comparison:
/// the paired delta-method interval, or, when each arm's share is the same
/// in every deal (no standard error: `Untested::Constant` when the two
/// differ, `Untested::NoVariance` when they are equal), Newcombe's
/// square-and-add of the arms' own intervals. Two arms of independent
/// single trials per deal, chances `pa` and `pb`: the coverage of the truth
/// `pa - pb` over `reps` simulated runs, and how many runs took the
/// square-and-add branch.
fn difference_coverage(pa: f64, pb: f64, clusters: u64, reps: u32, seed: u64) -> (f64, u32) {
    use rand::{Rng, SeedableRng};
    use unolab::sim::lockstep::{
        interval_without_variance, paired_difference, CrossSums, Untested,
    };
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed);
    let truth = pa - pb;
    let (mut hit, mut constant) = (0u32, 0u32);
    for _ in 0..reps {
        let mut a = RatioSums::default();
        let mut b = RatioSums::default();
        let mut c = CrossSums::default();
        for _ in 0..clusters {
            let ya = i128::from(rng.random::<f64>() < pa);
            let yb = i128::from(rng.random::<f64>() < pb);
            add_paired_trial(&mut a, &mut b, &mut c, ya, yb);
        }
        let mut d = paired_difference(&a, &b, &c, clusters).unwrap();
        if d.untested == Some(Untested::NoVariance) {
            constant += 1;
        }
        let est = |s: &RatioSums| metric_estimate("blocked_rate", s, clusters, 1, 2);
        interval_without_variance(&mut d, est(&a), est(&b));
        hit += u32::from(d.lo <= truth && truth <= d.hi);
    }
    (hit as f64 / reps as f64, constant)
}

#[test]
fn a_difference_constant_in_each_arm_gets_an_interval_that_covers() {
    // Shares near 0 and 1, where whole runs see one value in each arm.
    // 4,000 simulated runs per case, fixed seeds. They covered 1.0, 1.0,
    // 1.0 and 0.9995, with 4000, 2966, 978 and 887 runs constant; an
    // interval of width zero for the constant runs would cover at most the
    // 1,034 others in the second case (0.26). The equal cases covered 1.0,
    // 0.9995, 0.99725 and 0.9995 (4000, 2195, 1444 and 2685 runs
    // constant); without an interval for those runs, as before, the second
    // would cover at most 0.45.
    for (pa, pb, clusters, least) in [
        (1.0, 0.0, 50, 1.0),
        (0.999, 0.0, 300, 0.94),
        (0.995, 0.002, 200, 0.94),
        (0.99, 0.005, 100, 0.94),
        // Equal in each run that sees one value in each arm: no blocked
        // round in either (the "no variance" rows of the shipped reports).
        (0.0, 0.0, 50, 1.0),
        (0.001, 0.001, 300, 0.94),
        (0.002, 0.0005, 400, 0.94),
        (0.999, 0.999, 200, 0.94),
    ] {
        let (cov, constant) = difference_coverage(pa, pb, clusters, 4000, 11 + clusters);
        eprintln!(
            "{pa} - {pb}, {clusters} deals: coverage {cov}, {constant} of 4000 runs constant"
        );
        assert!(constant > 0, "{pa} - {pb}: no run took the constant branch");
        assert!(
            cov >= least,
            "{pa} - {pb}, {clusters} deals: coverage {cov} < {least} ({constant} runs constant)"
        );
    }
}

/// The paired difference of a metric two arms give alike in most deals:
/// arm B gives arm A's value less `1..=30` in each deal with chance `pi`
/// (a rule that shortens one round in a hundred), A's values spread as
/// turns per round are. The coverage of the truth `pi * 15.5` (A less B)
/// over `reps`
/// simulated runs of `clusters` deals, among runs that give an interval
/// (none when no deal differs), and those runs.
fn sparse_difference_coverage(pi: f64, clusters: u64, reps: u32, seed: u64) -> (f64, u32) {
    use rand::{Rng, SeedableRng};
    use unolab::sim::lockstep::{paired_difference, CrossSums};
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed);
    let truth = pi * 15.5;
    let (mut hit, mut runs) = (0u32, 0u32);
    for _ in 0..reps {
        let mut a = RatioSums::default();
        let mut b = RatioSums::default();
        let mut c = CrossSums::default();
        for _ in 0..clusters {
            let ya = rng.random_range(20..90i128);
            let yb = if rng.random::<f64>() < pi {
                ya - rng.random_range(1..=30i128)
            } else {
                ya
            };
            add_paired_trial(&mut a, &mut b, &mut c, ya, yb);
        }
        let d = paired_difference(&a, &b, &c, clusters).unwrap();
        if d.lo.is_finite() && d.hi.is_finite() {
            runs += 1;
            hit += u32::from(d.lo <= truth && truth <= d.hi);
        }
    }
    (hit as f64 / runs as f64, runs)
}

#[test]
fn a_difference_seen_in_few_deals_gets_an_interval_that_covers() {
    // On clusters - 1 degrees of freedom the interval of such a difference
    // covered too seldom, always missing on the side of a larger effect:
    // the count of deals that differ is a Poisson count, and the t-interval
    // on all deals is its Wald interval. On the differing deals less one
    // it covers. 2,000 simulated runs per case, fixed seeds; the expected
    // number of differing deals is 2, 3, 5, 10, 30 and 100.
    for (pi, clusters) in [
        (0.002, 1000),
        (0.003, 1000),
        (0.005, 1000),
        (0.01, 1000),
        (0.03, 1000),
        (0.02, 5000),
    ] {
        let (cov, runs) = sparse_difference_coverage(pi, clusters, 2000, 29 + clusters);
        eprintln!("pi {pi}, {clusters} deals: coverage {cov:.4} of {runs} runs with an interval");
        assert!(runs >= 1500, "pi {pi}: {runs} runs with an interval");
        assert!(
            cov >= 0.94,
            "pi {pi}, {clusters} deals: coverage {cov:.4} of {runs} runs"
        );
    }
}

/// The median's interval from order statistics covers the population
/// median at least 95% of the time, on a skewed discrete distribution with
/// ties (as points per round are): 2,000 simulated samples per size, fixed
/// seed. Too few values for such an interval give none.
#[test]
fn a_median_interval_covers_the_median() {
    use rand::{Rng, SeedableRng};
    use unolab::sim::stats::Histogram;
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(41);
    // Geometric in steps of 10 (0, 10, 20, ...), P(0) = 0.3: median 10
    // (P(<= 10) = 0.51).
    let draw = |rng: &mut rand_xoshiro::Xoshiro256PlusPlus| {
        let mut v = 0;
        while rng.random::<f64>() >= 0.3 {
            v += 10;
        }
        v
    };
    let mut tiny = Histogram::new(400);
    for v in [3, 9, 1, 4, 4] {
        tiny.add(v);
    }
    assert_eq!(
        tiny.quantile_ci95(0.5),
        None,
        "5 values give no 95% interval"
    );
    for n in [9u64, 37, 200, 2000] {
        let (mut hit, mut given) = (0u32, 0u32);
        for _ in 0..2000 {
            let mut h = Histogram::new(400);
            for _ in 0..n {
                h.add(draw(&mut rng));
            }
            let (lo, hi) = h.quantile_ci95(0.5).expect("9 values or more give one");
            given += 1;
            assert!(lo <= h.quantile(0.5) && h.quantile(0.5) <= hi);
            hit += u32::from(lo <= 10.0 && 10.0 <= hi);
        }
        let cov = hit as f64 / given as f64;
        eprintln!("{n} values: the median's interval covered {cov:.4}");
        assert!(cov >= 0.95, "{n} values: coverage {cov:.4}");
    }
    // Nearly continuous (uniform on 0..1000, median 499): close to 95%,
    // not far above, at 101 values.
    let mut hit = 0u32;
    for _ in 0..4000 {
        let mut h = Histogram::new(1000);
        for _ in 0..101 {
            h.add(rng.random_range(0..1000));
        }
        let (lo, hi) = h.quantile_ci95(0.5).unwrap();
        hit += u32::from(lo <= 499.0 && 499.0 <= hi);
    }
    let cov = hit as f64 / 4000.0;
    eprintln!("uniform, 101 values: the median's interval covered {cov:.4}");
    assert!((0.945..0.98).contains(&cov), "coverage {cov:.4}");
}

/// An arm's share in an experiment whose every cluster is one trial (a
/// match won or not, a plain round won or not by a strategy with one seat)
/// gets Wilson's interval, as `run` gives the same count: the floored
/// t-interval read [0.000%, 16.760%] for 5 wins of 60 matches. A share whose
/// clusters hold more than one trial keeps the clustered interval.
#[test]
fn a_share_of_single_trials_gets_wilsons_interval() {
    use unolab::sim::lockstep::share_estimate;
    use unolab::sim::stats::wilson95;
    let sums = |trials: &[(i128, i128)]| {
        let mut s = RatioSums::default();
        for &(y, x) in trials {
            s.y += y;
            s.x += x;
            s.yy += y * y;
            s.xx += x * x;
            s.xy += x * y;
        }
        s
    };
    let one: Vec<(i128, i128)> = (0..60).map(|i| (i128::from(i % 12 == 0), 1)).collect();
    let e = share_estimate(&sums(&one), 60, 1).unwrap();
    assert_eq!((e.lo, e.hi), wilson95(5, 60));
    assert!(e.lo > 0.03, "{e:?}");
    // Two trials a cluster (a deal of two rounds): not single trials.
    let two: Vec<(i128, i128)> = (0..30).map(|i| (i128::from(i % 6 == 0) * 2, 2)).collect();
    let e = share_estimate(&sums(&two), 30, 1).unwrap();
    assert_ne!((e.lo, e.hi), wilson95(10, 60));
}
