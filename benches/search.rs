//! Search agents' speed: decisions per second and simulations (rollouts) per
//! second on one core, at each shipped budget.
//!
//! `cargo bench --bench search`: criterion times one searched decision of the
//! shipped presets in 2- and 4-player classic rounds against `color` (fixed
//! seeds; each sample plays rounds until the agent has searched the number of
//! decisions asked for), and the bench prints the simulations per decision, so
//! rollouts per second = decisions per second x that figure.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::time::{Duration, Instant};
use unolab::agents::search::SearchAgent;
use unolab::agents::{Seat, StrategySpec};
use unolab::engine::game::{game_rngs, Agents, Game, NoRecord, Observation};
use unolab::engine::rules::Rules;
use unolab::{CardId, CardSet, Color, Rng, Strategy};

/// The search agent, shared with the bench loop so its counters can be read.
struct Shared(std::sync::Arc<std::sync::Mutex<SearchAgent>>);

impl Strategy for Shared {
    fn name(&self) -> &str {
        "bench"
    }
    fn ask_without_choice(&self) -> bool {
        false
    }
    fn choose_play(&mut self, o: &Observation, p: CardSet, r: &mut Rng) -> Option<CardId> {
        self.0.lock().unwrap().choose_play(o, p, r)
    }
    fn play_drawn(&mut self, o: &Observation, c: CardId, r: &mut Rng) -> bool {
        self.0.lock().unwrap().play_drawn(o, c, r)
    }
    fn choose_color(&mut self, o: &Observation, r: &mut Rng) -> Color {
        self.0.lock().unwrap().choose_color(o, r)
    }
    fn choose_target(&mut self, o: &Observation, r: &mut Rng) -> u8 {
        self.0.lock().unwrap().choose_target(o, r)
    }
    fn answer_stack(&mut self, o: &Observation, a: CardSet, r: &mut Rng) -> Option<CardId> {
        self.0.lock().unwrap().answer_stack(o, a, r)
    }
    fn challenge(&mut self, o: &Observation, r: &mut Rng) -> bool {
        self.0.lock().unwrap().challenge(o, r)
    }
}

fn agent(name: &str) -> SearchAgent {
    match StrategySpec::load(name).unwrap() {
        StrategySpec::Search(cfg) => SearchAgent::new(*cfg),
        _ => unreachable!("{name} is a search preset"),
    }
}

/// Plays rounds (seed 3, game index `next`) until the agent has searched at
/// least `decisions` more decisions (whole rounds); returns the time taken,
/// the decisions searched and the simulations played.
fn play_decisions(
    rules: &Rules,
    players: usize,
    a: &std::sync::Arc<std::sync::Mutex<SearchAgent>>,
    next: &mut u64,
    decisions: u64,
) -> (Duration, u64, u64) {
    let (d0, s0) = {
        let g = a.lock().unwrap();
        (g.searched(), g.simulations())
    };
    let color = StrategySpec::load("color").unwrap();
    let start = Instant::now();
    while a.lock().unwrap().searched() - d0 < decisions {
        let (t, r) = game_rngs(3, *next);
        *next += 1;
        let mut seats: Vec<Seat> = vec![Seat::custom(Shared(a.clone()))];
        for _ in 1..players {
            seats.push(color.instantiate());
        }
        let mut g = Game::with_rng(rules, players, t);
        g.set_lazy_pile(true);
        g.start_match(None);
        g.play_round(
            &mut Agents {
                seats: &mut seats,
                rng: r,
            },
            &mut NoRecord,
        )
        .unwrap();
    }
    let g = a.lock().unwrap();
    (start.elapsed(), g.searched() - d0, g.simulations() - s0)
}

fn search(c: &mut Criterion) {
    let rules = Rules::builtin("classic");
    let mut g = c.benchmark_group("search");
    g.throughput(Throughput::Elements(1));
    g.sample_size(10);
    g.warm_up_time(Duration::from_secs(1));
    g.measurement_time(Duration::from_secs(10));
    // Every shipped search preset (and the perfect-information reference).
    for name in [
        "pimc-100",
        "pimc-net-100",
        "pimc-400",
        "pimc-1k",
        "pimc-1k-belief",
        "ismcts-1k",
        "oracle-400",
    ] {
        for players in [2, 4] {
            let a = std::sync::Arc::new(std::sync::Mutex::new(agent(name)));
            let mut next = 0;
            // Simulations per decision, printed for the rollouts/s figure.
            let (t, n, sims) = play_decisions(&rules, players, &a, &mut next, 200);
            eprintln!(
                "{name} {players}p classic: {:.1} simulations per decision; {:.0} decisions/s, {:.0} rollouts/s ({n} decisions)",
                sims as f64 / n as f64,
                n as f64 / t.as_secs_f64(),
                sims as f64 / t.as_secs_f64()
            );
            g.bench_function(format!("{name}_{players}p_classic_decision"), |b| {
                b.iter_custom(|iters| {
                    // Whole rounds overshoot `iters`: scale to `iters` decisions.
                    let (t, n, _) = play_decisions(&rules, players, &a, &mut next, iters);
                    t.mul_f64(iters as f64 / n as f64)
                })
            });
        }
    }
    g.finish();
}

criterion_group!(benches, search);
criterion_main!(benches);
