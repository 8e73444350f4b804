//! The network strategy's speed: decisions per second on one core.
//!
//! `cargo bench --profile release --bench net`: criterion times one decision
//! of the shipped `net` preset (a decision with two or more legal actions:
//! the features encoded, the forward pass, the pick) in 2- and 4-player
//! classic rounds where every seat is `net` (fixed seeds; each sample plays
//! whole rounds until that many decisions were taken, and the time includes
//! the engine's own work between decisions).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::time::{Duration, Instant};
use unolab::agents::net::NetStrategy;
use unolab::agents::StrategySpec;
use unolab::engine::game::{game_rngs, Agents, Game, NoRecord};
use unolab::engine::rules::Rules;

/// Plays rounds (seed 5, game index `next`) until the seats have taken at
/// least `decisions` decisions; returns the time and the decisions taken.
fn play(
    rules: &Rules,
    seats: &mut [NetStrategy],
    next: &mut u64,
    decisions: u64,
) -> (Duration, u64) {
    let count = |s: &[NetStrategy]| s.iter().map(|s| s.decisions()).sum::<u64>();
    let d0 = count(seats);
    let start = Instant::now();
    while count(seats) - d0 < decisions {
        let (t, r) = game_rngs(5, *next);
        *next += 1;
        let mut g = Game::with_rng(rules, seats.len(), t);
        g.set_lazy_pile(true);
        g.start_match(None);
        g.play_round(&mut Agents { seats, rng: r }, &mut NoRecord)
            .unwrap();
    }
    (start.elapsed(), count(seats) - d0)
}

fn net(c: &mut Criterion) {
    let rules = Rules::builtin("classic");
    let StrategySpec::Net(spec) = StrategySpec::load("net").unwrap() else {
        unreachable!("net is a network preset")
    };
    let mut g = c.benchmark_group("net");
    g.throughput(Throughput::Elements(1));
    g.sample_size(20);
    g.warm_up_time(Duration::from_secs(1));
    g.measurement_time(Duration::from_secs(5));
    for players in [2, 4] {
        let mut seats: Vec<NetStrategy> = (0..players).map(|_| NetStrategy::new(&spec)).collect();
        let mut next = 0;
        let (t, n) = play(&rules, &mut seats, &mut next, 100_000);
        eprintln!(
            "net {players}p classic: {:.0} decisions/s ({n} decisions in {:.2} s)",
            n as f64 / t.as_secs_f64(),
            t.as_secs_f64()
        );
        g.bench_function(format!("net_{players}p_classic_decision"), |b| {
            b.iter_custom(|iters| {
                let (t, n) = play(&rules, &mut seats, &mut next, iters);
                t.mul_f64(iters as f64 / n as f64)
            })
        });
    }
    g.finish();
}

criterion_group!(benches, net);
criterion_main!(benches);
