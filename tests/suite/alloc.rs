//! The hot path allocates nothing: after a first match has sized every
//! buffer, whole matches between the built-in strategies, the network and the
//! search agents (every kind of determinization and tree) make no heap
//! allocation, on every edition and with every house rule that changes the
//! turn. Counted with `allocation_counter`, whose allocator is the suite's
//! global allocator once this module uses it: it counts per thread, so the
//! tests running beside these do not blur the count.

use crate::common::rules;
use unolab::agents::{parse_list, Seat, StrategySpec};
use unolab::engine::encode::{KNOWN_LEN, OBS_LEN};
use unolab::engine::game::{game_rngs, Agents, Game, NoRecord};
use unolab::engine::step::{Reward, StepMode, Stepper};
use unolab::Rules;

/// Allocations made by matches `measured` of `seats` under `rules`, after
/// matches `warm` were played first to size every buffer; also the turns
/// played (a check that the matches did play).
fn allocations(
    rules: &Rules,
    seats: &mut [Seat],
    lazy: bool,
    warm: std::ops::RangeInclusive<u64>,
    measured: std::ops::RangeInclusive<u64>,
) -> (u64, u64) {
    allocations_moving(rules, seats, lazy, warm, measured, false)
}

/// [`allocations`], the seats turned one place before each match when
/// `moving` (as mixed and rotated seating and duplicate play move a
/// strategy from seat to seat).
fn allocations_moving(
    rules: &Rules,
    seats: &mut [Seat],
    lazy: bool,
    warm: std::ops::RangeInclusive<u64>,
    measured: std::ops::RangeInclusive<u64>,
    moving: bool,
) -> (u64, u64) {
    let players = seats.len();
    let mut play = |i: u64| {
        if moving {
            seats.rotate_left(1);
        }
        let (t, a) = game_rngs(17, i);
        let mut game = Game::with_rng(rules, players, t);
        game.set_lazy_pile(lazy);
        let mut agents = Agents { seats, rng: a };
        game.play_match(&mut agents, &mut NoRecord, |_| {})
            .expect("built-in strategies never act illegally");
        game.turns() as u64
    };
    for i in warm {
        play(i);
    }
    let mut turns = 0;
    let info = allocation_counter::measure(|| {
        for i in measured {
            turns += play(i);
        }
    });
    (info.count_total, turns)
}

fn seats(specs: &[StrategySpec], players: usize) -> Vec<Seat> {
    (0..players)
        .map(|s| specs[s % specs.len()].instantiate())
        .collect()
}

/// A search preset with a small budget and `extra` lines in its `[search]`
/// table.
fn search(base: &str, iterations: u32, extra: &str) -> StrategySpec {
    let text = format!(
        "name = \"{base}-alloc\"\nbase = \"{base}\"\n[search]\niterations = {iterations}\nrollout = \"color\"\n{extra}\n"
    );
    StrategySpec::parse(&text, "test").unwrap()
}

/// The editions and the house rules that change a turn, one at a time and
/// all at once, and the matching restrictions.
fn rule_sets() -> Vec<(String, Rules)> {
    let mut v = Vec::new();
    for edition in ["classic", "h2o", "lilo-stitch", "cars3"] {
        v.push((edition.to_string(), rules(edition, &[])));
    }
    let house: &[&[&str]] = &[
        &["stacking=cross"],
        &["stacking=same"],
        &["draw_to_match=true"],
        &["force_play=true"],
        &["seven_o=true"],
        &["jump_in=true"],
        &["bluff_challenge=true"],
        &["uno_catch_chance=0.5"],
        &[
            "stacking=cross",
            "draw_to_match=true",
            "seven_o=true",
            "jump_in=true",
            "bluff_challenge=true",
        ],
    ];
    for sets in house {
        v.push((format!("cars3 {}", sets.join(" ")), rules("cars3", sets)));
    }
    // The third turn loop: the matching restrictions and RLCard's drawn card.
    let matching = [
        "wild_when_matching=false",
        "wd4_last_resort=true",
        "drawn_card=rlcard",
    ];
    v.push((
        format!("classic {}", matching.join(" ")),
        rules("classic", &matching),
    ));
    v
}

#[test]
fn matches_between_built_in_strategies_allocate_nothing() {
    let specs = parse_list("random,first,points,color,cautious,forgetful,tuned").unwrap();
    for (name, r) in rule_sets() {
        for players in [2, 4, 7] {
            for lazy in [false, true] {
                let mut s = seats(&specs, players);
                let (allocs, turns) = allocations(&r, &mut s, lazy, 0..=0, 1..=20);
                assert!(turns > 0);
                assert_eq!(
                    allocs, 0,
                    "{name}, {players} players, lazy pile {lazy}: {allocs} allocations in {turns} turns"
                );
            }
        }
    }
}

#[test]
fn matches_of_the_network_allocate_nothing() {
    let specs = parse_list("net,net-all,color").unwrap();
    for (name, r) in rule_sets() {
        for players in [2, 4] {
            let mut s = seats(&specs, players);
            let (allocs, turns) = allocations(&r, &mut s, true, 0..=0, 1..=6);
            assert!(turns > 0);
            assert_eq!(
                allocs, 0,
                "{name}, {players} players: {allocs} allocations in {turns} turns"
            );
        }
    }
}

#[test]
fn search_agents_allocate_nothing_after_their_first_match() {
    let agents = [
        search("pimc", 8, ""),
        search("pimc", 8, "determinize = \"informed\""),
        search("pimc", 4, "model = \"color\"\nmodel_turns = 6\nmodel_tries = 4"),
        search("pimc", 4, "model = \"color\"\nmodel_turns = 6\nmodel_tries = 4\nmodel_sampler = \"hands\""),
        search("pimc", 4, "model = \"color\"\nmodel_turns = 6\nmodel_tries = 8\nmodel_sampler = \"chain\"\ndeterminize = \"informed\""),
        search("pimc", 4, "own_rollout = \"net\"\nguide = \"net\"\nprune = 2"),
        search("pimc", 8, "halving = true\nobjective = \"points\""),
        search("ismcts", 40, ""),
        search("ismcts", 40, "decompose = true\nprior = 0.5\ndepth = 2"),
        search("ismcts", 40, "widen = 4.0\nopponents = \"policy\""),
        search("ismcts", 40, "guide = \"net\"\nmodel = \"color\"\nmodel_sampler = \"chain\"\nmodel_tries = 4"),
    ];
    let sets: Vec<(String, Rules)> = rule_sets()
        .into_iter()
        .filter(|(n, _)| n == "classic" || n == "h2o" || n.contains(' '))
        .collect();
    for agent in &agents {
        let specs = [agent.clone(), parse_list("color").unwrap().remove(0)];
        for (name, r) in &sets {
            for players in [2, 4] {
                let mut s = seats(&specs, players);
                let (allocs, turns) = allocations(r, &mut s, true, 0..=0, 1..=2);
                assert!(turns > 0);
                assert_eq!(
                    allocs,
                    0,
                    "{} on {name}, {players} players: {allocs} allocations in {turns} turns",
                    agent.to_json()
                );
            }
        }
    }
}

/// A search agent that moves from seat to seat (mixed or rotated seating,
/// duplicate play) allocates nothing once it has sat at every seat: it
/// rebuilt its simulated table at every move (8 to 39 allocations a game
/// under `run`'s default seating; the speed audit, 2026-12-07).
#[test]
fn search_agents_moving_between_seats_allocate_nothing_once_they_sat_at_each() {
    let agents = [
        search("pimc", 8, ""),
        search("pimc", 4, "model = \"color\"\nmodel_turns = 6\nmodel_tries = 8\nmodel_sampler = \"chain\"\ndeterminize = \"informed\""),
        search("ismcts", 40, ""),
        search("oracle", 8, ""),
    ];
    let r = rules("classic", &[]);
    for agent in &agents {
        let specs = [agent.clone(), parse_list("color").unwrap().remove(0)];
        for players in [2, 4] {
            let mut s = seats(&specs, players);
            let warm = 0..=players as u64 - 1;
            let measured = players as u64..=3 * players as u64 - 1;
            let (allocs, turns) = allocations_moving(&r, &mut s, true, warm, measured, true);
            assert!(turns > 0);
            assert_eq!(
                allocs,
                0,
                "{}, {players} players, seats moving: {allocs} allocations in {turns} turns",
                agent.to_json()
            );
        }
    }
}

/// The stepper behind the Python environments: after a first game, games
/// reset and stepped to their end, with the features, the known-cards
/// section, the legal actions and the rewards read at every decision,
/// allocate nothing, with one learner or all. In match mode the list of
/// the match's rounds grows at a match longer than any before it (past the
/// 16 rounds reserved), so there the games are measured played again.
#[test]
fn stepping_games_allocates_nothing() {
    let specs = parse_list("color,tuned").unwrap();
    let mut features = [0f32; OBS_LEN];
    let mut known = [0f32; KNOWN_LEN];
    for (name, r) in rule_sets() {
        for (players, env) in [(2, 0b01), (4, 0b0001), (4, 0b1111)] {
            for mode in [StepMode::Round, StepMode::Match] {
                let mut st = Stepper::new(&r, seats(&specs, players), env, mode, Reward::Points);
                st.keep_known(true);
                let mut decisions = 0u64;
                let mut game = |st: &mut Stepper<Seat>, i: u64| {
                    st.reset_game(5, i).unwrap();
                    let mut d = 0;
                    while !st.is_over() {
                        st.write_features(&mut features);
                        st.write_known(&mut known);
                        let legal = st.legal();
                        // A different legal action at each decision, the
                        // same in a game played again.
                        let k = (d * 7 + i as usize) % legal.len();
                        let a = legal.iter().nth(k).unwrap();
                        st.step(a).unwrap();
                        st.take_rewards();
                        decisions += 1;
                        d += 1;
                    }
                };
                game(&mut st, 0);
                if mode == StepMode::Match {
                    for i in 1..=8 {
                        game(&mut st, i);
                    }
                }
                let info = allocation_counter::measure(|| {
                    for i in 1..=8 {
                        game(&mut st, i);
                    }
                });
                assert!(decisions > 0);
                assert_eq!(
                    info.count_total, 0,
                    "{name}, {players} players, learners {env:b}, {mode:?}: {} allocations",
                    info.count_total
                );
            }
        }
    }
}

/// With `paired` or `per_action`, an `ismcts` tree's budget is the
/// iterations times the legal actions, so the node store grows at a
/// decision with more actions than any before it (once per larger budget).
/// Matches played again, whose decisions it has met, allocate nothing;
/// fresh ones may grow it.
#[test]
fn a_tree_per_action_grows_only_for_a_larger_budget() {
    for extra in [
        "per_action = true\nwiden = 4.0",
        "paired = true\nopponents = \"policy\"",
    ] {
        let specs = [
            search("ismcts", 10, extra),
            parse_list("color").unwrap().remove(0),
        ];
        let mut grew = false;
        for (name, r) in rule_sets() {
            for players in [2, 4] {
                let mut s = seats(&specs, players);
                let (fresh, _) = allocations(&r, &mut s, true, 0..=0, 1..=2);
                grew |= fresh > 0;
                let (again, turns) = allocations(&r, &mut s, true, 0..=0, 1..=2);
                assert!(turns > 0);
                assert_eq!(
                    again, 0,
                    "{extra:?} on {name}, {players} players: {again} allocations in {turns} turns played again"
                );
            }
        }
        // The case the test is for does occur.
        assert!(grew, "{extra:?}: no fresh match needed a larger tree");
    }
}
