//! Alternating samples of two workloads, and the ratio of their rates.
//!
//! Shared by `benches/reference.rs` and the `benches/compare.sh` harness. On a
//! shared host whose speed swings by a third, neighbouring samples see the same
//! conditions, so the median ratio of neighbours is the steady figure.

/// Runs `samples` pairs of `first()` and `second()` (each plays `rounds`
/// rounds and returns the seconds it took), alternating which goes first, and
/// prints each side's best and median rate and the median of `second`'s rate
/// over `first`'s.
pub fn run(
    samples: usize,
    rounds: u64,
    names: [&str; 2],
    ratio_label: &str,
    mut first: impl FnMut() -> f64,
    mut second: impl FnMut() -> f64,
) {
    assert!(samples >= 4, "at least 4 samples");
    let (mut a, mut b, mut ratio) = (vec![], vec![], vec![]);
    for i in 0..samples {
        let (x, y) = if i % 2 == 0 {
            let x = first();
            (x, second())
        } else {
            let y = second();
            (first(), y)
        };
        a.push(x);
        b.push(y);
        // Rate of `second` over rate of `first`.
        ratio.push(x / y);
    }
    for v in [&mut a, &mut b, &mut ratio] {
        v.sort_by(|p, q| p.partial_cmp(q).unwrap());
    }
    let rate = |t: f64| (rounds as f64 / t).round() as u64;
    let n = samples;
    println!(
        "4-player classic rounds, random in every seat, {n} alternating samples of {rounds} rounds"
    );
    for (name, t) in [(names[0], &a), (names[1], &b)] {
        println!(
            "{name}: best {} median {} rounds/s",
            rate(t[0]),
            rate(t[n / 2])
        );
    }
    println!(
        "{ratio_label}: median {:.3} (quartiles {:.3} to {:.3})",
        ratio[n / 2],
        ratio[n / 4],
        ratio[3 * n / 4]
    );
}
