//! Engine and runner throughput on fixed seeds.
//!
//! `cargo bench --bench engine` reports the time per batch of complete
//! 4-player classic rounds with `random` in every seat, through the real runner
//! with statistics on (the figure docs/performance.md quotes), plus the bare engine.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::hint::black_box;
use unolab::agents::StrategySpec;
use unolab::engine::game::{game_rngs, Agents, Game, NoRecord};
use unolab::engine::rules::Rules;
use unolab::sim::{play_games, RunConfig, RunStats};

const GAMES: u64 = 10_000;

fn runner(c: &mut Criterion) {
    let mut g = c.benchmark_group("runner");
    g.throughput(Throughput::Elements(GAMES));
    g.sample_size(20);
    for (rules, house) in [
        ("classic", ""),
        ("classic", "stacking=cross,jump_in,seven_o"),
        ("lilo-stitch", ""),
        ("h2o", ""),
        ("cars3", ""),
    ] {
        let mut f = unolab::RuleSetFile::resolve(rules, &[], &[house.to_string()]).unwrap();
        if house.is_empty() {
            f = unolab::RuleSetFile::load(rules).unwrap();
        }
        let cfg = RunConfig::builder(Rules::build(f).unwrap(), 4, &[StrategySpec::Random])
            .games(GAMES)
            .seed(7)
            .build()
            .unwrap();
        let name = if house.is_empty() {
            format!("{rules}_4p_random_rounds")
        } else {
            format!("{rules}+{house}_4p_random_rounds")
        };
        g.bench_function(name, |b| {
            b.iter(|| {
                let mut stats = RunStats::new(&cfg);
                play_games(&cfg, 0..GAMES, &mut stats).unwrap();
                assert_eq!(stats.rounds, GAMES);
                black_box(stats.won)
            })
        });
    }
    g.finish();
}

fn bare_engine(c: &mut Criterion) {
    let rules = Rules::builtin("classic");
    let mut seats: Vec<_> = (0..4).map(|_| StrategySpec::Random.instantiate()).collect();
    let mut g = c.benchmark_group("engine");
    g.throughput(Throughput::Elements(GAMES));
    g.sample_size(20);
    g.bench_function("classic_4p_random_rounds_no_stats", |b| {
        b.iter(|| {
            let mut won = 0u64;
            for i in 0..GAMES {
                let (t, a) = game_rngs(3, i);
                let mut game = Game::with_rng(&rules, 4, t);
                game.set_lazy_pile(true);
                game.start_match(None);
                let mut agents = Agents {
                    seats: &mut seats,
                    rng: a,
                };
                let r = game.play_round(&mut agents, &mut NoRecord).unwrap();
                won += r.winner.is_some() as u64;
            }
            assert!(won > 0);
            black_box(won)
        })
    });
    g.finish();
}

criterion_group!(benches, runner, bare_engine);
criterion_main!(benches);
