//! The runner: reproducibility across threads, exact merging, counts that add up.

use std::sync::atomic::AtomicBool;
use unolab::agents::parse_list;
use unolab::engine::rules::{RuleSetFile, Rules};
use unolab::sim::{play_games, run, Mode, RunConfig, RunStats, Seating};

fn config(
    rules: &str,
    players: usize,
    strategies: &str,
    games: u64,
    mode: Mode,
    threads: usize,
) -> RunConfig {
    RunConfig::builder(
        Rules::load(rules).unwrap(),
        players,
        &parse_list(strategies).unwrap(),
    )
    .games(games)
    .mode(mode)
    .seed(42)
    .threads(threads)
    .build()
    .unwrap()
}

fn run_all(cfg: &RunConfig) -> RunStats {
    let stop = AtomicBool::new(false);
    let out = run(cfg, &stop, &|_| {}).unwrap();
    assert!(!out.partial);
    out.stats
}

#[test]
fn one_and_two_threads_give_identical_statistics() {
    for mode in [Mode::Round, Mode::Match] {
        let games = if mode == Mode::Round { 5_000 } else { 300 };
        let mut c1 = config("classic", 4, "random,points,color", games, mode, 1);
        c1.chunk = 97; // many uneven chunks, handed out in a thread-dependent way
        let mut c2 = c1.clone();
        c2.threads = 2;
        let a = run_all(&c1);
        let b = run_all(&c2);
        assert_eq!(a, b, "{mode:?}");
        assert_eq!(a.games, games);
    }
}

#[test]
fn merging_two_halves_gives_the_whole() {
    let cfg = config("lilo-stitch", 5, "random,first", 2_000, Mode::Round, 1);
    let mut whole = RunStats::new(&cfg);
    play_games(&cfg, 0..2_000, &mut whole).unwrap();
    let mut a = RunStats::new(&cfg);
    let mut b = RunStats::new(&cfg);
    play_games(&cfg, 0..777, &mut a).unwrap();
    play_games(&cfg, 777..2_000, &mut b).unwrap();
    // Merge in the "wrong" order too: the result must not depend on it.
    b.merge(&a);
    assert_eq!(b, whole);
}

/// Work played a game (or a deal) at a time into small parts
/// (`RunStats::part`, what a line-up with a program plays into) and
/// absorbed in order gives the statistics played whole, bit for bit: in
/// round and match mode, with duplicate deals, with values past a part's
/// unit bins (turns, points).
#[test]
fn parts_absorbed_give_the_whole() {
    for (mode, duplicate, games) in [
        (Mode::Round, false, 400),
        (Mode::Match, false, 30),
        (Mode::Round, true, 400),
    ] {
        let mut cfg = config("classic", 4, "random,points,color", games, mode, 1);
        cfg.duplicate = duplicate;
        let mut whole = RunStats::new(&cfg);
        play_games(&cfg, 0..games, &mut whole).unwrap();
        let per = if duplicate { 4 } else { 1 };
        let mut total = RunStats::new(&cfg);
        for i in (0..games).step_by(per) {
            let mut part = RunStats::part(&cfg);
            play_games(&cfg, i..i + per as u64, &mut part).unwrap();
            total.absorb(&part);
        }
        assert_eq!(total, whole, "{mode:?} duplicate {duplicate}");
        assert!(
            whole.turns.max().unwrap_or(0) >= 64,
            "no value past a part's bins"
        );
    }
}

#[test]
fn win_counts_add_up_to_the_rounds() {
    for (rules, players, strategies, mode) in [
        ("classic", 4, "random", Mode::Round),
        ("h2o", 3, "points,color,random", Mode::Round),
        ("cars3", 6, "first,random", Mode::Match),
        ("classic", 2, "color,points", Mode::Match),
    ] {
        let games = if mode == Mode::Round { 3_000 } else { 150 };
        let s = run_all(&config(rules, players, strategies, games, mode, 2));
        let by_strategy: u64 = s.strategies.iter().map(|x| x.round_wins).sum();
        let by_seat: u64 = s.seats.iter().map(|x| x.round_wins).sum();
        let by_position: u64 = s.position_wins.iter().sum();
        assert_eq!(s.won + s.blocked + s.truncated, s.rounds, "{rules}");
        assert_eq!(by_strategy, s.won, "{rules}");
        assert_eq!(by_seat, s.won, "{rules}");
        assert_eq!(by_position, s.won, "{rules}");
        assert_eq!(s.turns.count(), s.rounds);
        if mode == Mode::Match {
            let m: u64 = s.strategies.iter().map(|x| x.match_wins).sum();
            assert_eq!(
                m + s.tied_matches + s.no_winner_matches + s.capped_without_winner,
                s.games,
                "{rules}"
            );
            assert!(s.capped_without_winner <= s.capped_matches);
            assert_eq!(s.rounds_per_match.count(), s.games);
            assert!(s.rounds > s.games, "matches to 500 take several rounds");
        } else {
            assert_eq!(s.rounds, s.games);
        }
    }
}

#[test]
fn rotation_removes_the_seat_advantage_from_strategy_counts() {
    // Two copies of the same strategy under two names cannot differ by more
    // than chance when seats rotate: both hold every seat equally often.
    let dir = crate::common::tempdir_created("runner", "rot");
    let twin = dir.join("twin.toml");
    std::fs::write(&twin, "name = \"twin\"\nbase = \"heuristic\"\n").unwrap();
    let list = format!("points,{}", twin.display());
    let cfg = config("classic", 2, &list, 4_000, Mode::Round, 2);
    let s = run_all(&cfg);
    assert_eq!(s.strategies.len(), 2);
    let a = s.strategies[0].round_wins as f64;
    let b = s.strategies[1].round_wins as f64;
    // Same parameters (the preset file defaults equal points), same seats:
    // the share is 50% up to noise (4000 rounds: sd about 0.8%).
    let share = a / (a + b);
    assert!((share - 0.5).abs() < 0.04, "share {share}");
}

#[test]
fn bad_configurations_are_refused() {
    let rules = Rules::load("classic").unwrap();
    let specs = parse_list("random").unwrap();
    let err = |r: Result<RunConfig, unolab::sim::RunError>| r.unwrap_err().to_string();
    assert!(err(RunConfig::builder(rules.clone(), 11, &specs)
        .games(10)
        .seed(1)
        .build())
    .contains("2 to 10"));
    assert!(err(RunConfig::builder(rules.clone(), 4, &specs)
        .games(0)
        .seed(1)
        .build())
    .contains("games"));
    let five = parse_list("random,random,random,random,random").unwrap();
    assert!(err(RunConfig::builder(rules.clone(), 4, &five)
        .games(10)
        .seed(1)
        .build())
    .contains("5 strategies"));
    let endless =
        Rules::build(RuleSetFile::resolve("classic", &["target=0".into()], &[]).unwrap()).unwrap();
    assert!(err(RunConfig::builder(endless, 4, &specs)
        .games(10)
        .mode(Mode::Match)
        .seed(1)
        .build())
    .contains("needs an end"));
    // Duplicate play rotates each deal's seats, so it cannot keep them fixed;
    // rotation or mixed seating is its own.
    let duplicate = |seating| {
        RunConfig::builder(rules.clone(), 4, &specs)
            .games(8)
            .seating(seating)
            .duplicate(true)
            .build()
    };
    assert!(err(duplicate(Seating::Fixed)).contains("duplicate play rotates the seats"));
    for seating in [Seating::Rotate, Seating::Mixed] {
        let cfg = duplicate(seating).unwrap();
        assert!(cfg.duplicate && cfg.seating == seating && cfg.games_per_cluster() == 4);
    }
    // What the builder is not given keeps its documented default.
    let cfg = RunConfig::builder(rules.clone(), 3, &specs)
        .build()
        .unwrap();
    assert_eq!(
        (
            cfg.games,
            cfg.mode,
            cfg.seed,
            cfg.threads,
            cfg.seating,
            cfg.duplicate
        ),
        (1, Mode::Round, 0, 1, Seating::Mixed, false)
    );
    assert_eq!(cfg.lineup.len(), 3, "the line-up is cycled to the seats");
}

#[test]
fn strict_mode_names_the_strategy_seed_and_game() {
    use unolab::engine::game::Observation;
    use unolab::Strategy;
    // A strategy file cannot be illegal, so check the engine error through a
    // direct game with a cheating strategy.
    struct Cheat;
    impl Strategy for Cheat {
        fn name(&self) -> &str {
            "cheat"
        }
        fn choose_play(
            &mut self,
            obs: &Observation,
            playable: unolab::CardSet,
            _: &mut unolab::Rng,
        ) -> Option<u8> {
            // Play a card that is not playable when there is one.
            (obs.hand() - playable).first().or(playable.first())
        }
    }
    let rules =
        Rules::build(RuleSetFile::resolve("classic", &["strict=true".into()], &[]).unwrap())
            .unwrap();
    let mut seats = vec![
        unolab::Seat::custom(Cheat),
        parse_list("random").unwrap()[0].instantiate(),
    ];
    let (t, a) = unolab::engine::game::game_rngs(9, 0);
    let mut g = unolab::Game::with_rng(&rules, 2, t);
    g.start_match(Some(1));
    let e = g
        .play_round(
            &mut unolab::Agents {
                seats: &mut seats,
                rng: a,
            },
            &mut unolab::engine::game::NoRecord,
        )
        .unwrap_err();
    assert_eq!(e.strategy, "cheat");
    assert_eq!(e.seat, 0);
    assert!(e.to_string().contains("illegal action"));
}

#[test]
fn positions_are_counted_in_order_of_play() {
    use unolab::engine::game::{Outcome, RoundResult};
    let cfg = config("classic", 4, "random", 10, Mode::Round, 1);
    let mut st = RunStats::new(&cfg);
    let round = |first: u8, dir: i8, winner: u8| RoundResult {
        round: 1,
        outcome: Outcome::Won,
        winner: Some(winner),
        dealer: 0,
        first_player: first,
        first_direction: dir,
        points: [0; 10],
        turns: 10,
        cards_drawn: 0,
        uno_penalties: 0,
        illegal: [0; 10],
    };
    let map = [0usize; 4];
    // Clockwise from seat 2: seat 3 moves next (+1), seat 1 last (+3).
    st.add_round(&round(2, 1, 3), &map, false);
    st.add_round(&round(2, 1, 1), &map, false);
    // After a start Reverse the dealer (seat 2) moves first and play goes
    // counter-clockwise: seat 1 moves next (+1), seat 3 last (+3).
    st.add_round(&round(2, -1, 1), &map, false);
    st.add_round(&round(2, -1, 3), &map, false);
    st.add_round(&round(2, -1, 2), &map, false);
    assert_eq!(st.position_wins, vec![1, 2, 0, 2]);
}

#[test]
fn a_start_reverse_moves_the_first_mover_advantage_with_the_direction() {
    // Over real games, the first mover wins most often and the player who
    // moves last least often, whichever the direction: counted in order of
    // play, +1 beats +3.
    let st = run_all(&config("classic", 4, "random", 60_000, Mode::Round, 2));
    let p = &st.position_wins;
    assert!(p[0] > p[1] && p[1] > p[3], "{p:?}");
}

#[test]
fn a_custom_strategy_of_the_embedding_program_plays_like_the_built_in() {
    // The same strategy type given as a factory (StrategySpec::custom) plays
    // the games the built-in of that type plays, on every thread count: the
    // factory makes one instance per seat and worker.
    let rules = Rules::builtin("classic");
    let mine =
        unolab::StrategySpec::custom("mine", "rust", || Box::new(unolab::agents::FirstStrategy))
            .unwrap();
    assert_eq!((mine.name(), mine.base()), ("mine", "rust"));
    let lineup =
        |first: unolab::StrategySpec| vec![first, parse_list("random").unwrap()[0].clone()];
    for threads in [1, 2] {
        let builtin = RunConfig::builder(
            rules.clone(),
            3,
            &lineup(parse_list("first").unwrap()[0].clone()),
        )
        .games(3000)
        .seed(5)
        .threads(threads)
        .build()
        .unwrap();
        let custom = RunConfig::builder(rules.clone(), 3, &lineup(mine.clone()))
            .games(3000)
            .seed(5)
            .threads(threads)
            .build()
            .unwrap();
        let a = run_all(&builtin);
        let b = run_all(&custom);
        // Everything but the first strategy's name is the same.
        let mut b = b;
        b.strategies[0].name = a.strategies[0].name.clone();
        assert_eq!(a, b, "{threads} threads");
    }
    assert!(
        unolab::StrategySpec::custom("two words", "rust", || Box::new(
            unolab::agents::FirstStrategy
        ))
        .is_err()
    );
}

/// `st` with its strategies in name order, so that the statistics of two
/// typings of one line-up compare whole.
fn by_name(mut st: RunStats) -> RunStats {
    let mut order: Vec<usize> = (0..st.strategies.len()).collect();
    order.sort_by(|&a, &b| st.strategies[a].name.cmp(&st.strategies[b].name));
    st.strategies = order.iter().map(|&k| st.strategies[k].clone()).collect();
    if let Some(c) = st.clusters.as_mut() {
        c.strategy_rounds = order
            .iter()
            .map(|&k| c.strategy_rounds[k].clone())
            .collect();
        c.strategy_matches = order
            .iter()
            .map(|&k| c.strategy_matches[k].clone())
            .collect();
        for v in [&mut c.strategy_points, &mut c.strategy_match_points] {
            if let Some(p) = v.as_mut() {
                *p = order.iter().map(|&k| p[k].clone()).collect();
            }
        }
    }
    st
}

#[test]
fn mixed_seating_gives_every_typing_of_a_line_up_the_same_results() {
    // Two typings of the same line-up (the same strategies on the same
    // number of seats) play the same games: the same strategy at each seat
    // of game i, so the same counts, by strategy, seat and position. Cycled
    // arrangements (24; 6 of a multiset; 12 in match mode), duplicate play,
    // and arrangements drawn per game (10 seats of 6 strategies: 226,800).
    let ten_a = "random,first,points,color,cautious,forgetful,random,first,points,color";
    let ten_b = "color,points,forgetful,first,random,color,cautious,random,points,first";
    for (players, a, b, mode, duplicate, games) in [
        (
            4,
            "points,color,random,first",
            "first,random,points,color",
            Mode::Round,
            false,
            3000,
        ),
        (4, "points,color", "color,points", Mode::Round, false, 3000),
        (
            4,
            "points,color,random,first",
            "color,first,points,random",
            Mode::Round,
            true,
            4 * 500,
        ),
        (
            4,
            "random,points,color,random",
            "color,random,random,points",
            Mode::Match,
            false,
            120,
        ),
        (10, ten_a, ten_b, Mode::Round, false, 1500),
    ] {
        let mut ca = config("classic", players, a, games, mode, 2);
        let mut cb = config("classic", players, b, games, mode, 1);
        assert_eq!(ca.seating, Seating::Mixed, "the default");
        ca.duplicate = duplicate;
        cb.duplicate = duplicate;
        let (sa, sb) = (run_all(&ca), run_all(&cb));
        assert_eq!(by_name(sa.clone()), by_name(sb), "{a} / {b}");
        // Rotation seats them differently (it keeps the typed neighbours).
        if !duplicate && players == 4 && a.len() > 12 {
            ca.seating = Seating::Rotate;
            cb.seating = Seating::Rotate;
            assert_ne!(by_name(run_all(&ca)), by_name(run_all(&cb)), "{a} / {b}");
        }
        // Every strategy played, on its seats, in every seat position.
        let seats: usize = sa.strategies.iter().map(|s| s.seats).sum();
        assert_eq!(seats, players);
    }
}

#[test]
fn each_seating_seats_game_i_as_documented() {
    use unolab::sim::seating::Arrangements;
    // Game i of each seating plays exactly as a fixed-seat game of the line-up
    // it documents: the line-up rotated by i (rotate), arrangement i of the
    // line-up (mixed), and with duplicate play rotation i mod 4 of deal
    // i div 4's arrangement.
    let list = "points,color,random,cautious";
    let typed: Vec<&str> = list.split(',').collect();
    let names: Vec<String> = typed.iter().map(|s| s.to_string()).collect();
    let arr = Arrangements::new(&[0, 1, 2, 3], &names);
    assert_eq!(arr.cycle_len(), Some(24));
    for (seating, duplicate) in [
        (Seating::Rotate, false),
        (Seating::Mixed, false),
        (Seating::Mixed, true),
        (Seating::Rotate, true),
    ] {
        let mut cfg = config("classic", 4, list, 40, Mode::Round, 1);
        cfg.seating = seating;
        cfg.duplicate = duplicate;
        for i in [0u64, 1, 5, 23, 24, 37] {
            let (cluster, rot) = if duplicate {
                (i / 4, (i % 4) as usize)
            } else {
                (i, 0)
            };
            let base: Vec<&str> = match seating {
                Seating::Rotate => (0..4).map(|s| typed[(s + i as usize) % 4]).collect(),
                _ => {
                    let mut out = [0u8; 4];
                    arr.get(42, cluster, None, &mut out);
                    (0..4).map(|s| typed[out[(s + rot) % 4] as usize]).collect()
                }
            };
            let mut whole = RunStats::new(&cfg);
            play_games(&cfg, i..i + 1, &mut whole).unwrap();
            // The same game with fixed seats: game i's seeds (with duplicate
            // play, those of its deal) and the documented line-up.
            let mut fixed = config("classic", 4, &base.join(","), 40, Mode::Round, 1);
            fixed.seating = Seating::Fixed;
            let seed_game = if duplicate { cluster } else { i };
            let mut one = RunStats::new(&fixed);
            play_games(&fixed, seed_game..seed_game + 1, &mut one).unwrap();
            assert_eq!(
                by_name(whole),
                by_name(one),
                "{seating:?}, duplicate {duplicate}, game {i}"
            );
        }
    }
}

/// Coverage of `run`'s 95% intervals over many seeds: the share of
/// (seed, rate) pairs whose interval holds the true rate, for the intervals
/// `run` prints and for binomial (Wilson) intervals over the same rounds,
/// which assume independent rounds. A rate's true value is estimated from
/// the other seeds' runs pooled (leave one out: 199 runs against one).
#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "200 small runs per case: run with --release"
)]
fn run_intervals_cover_95_percent_in_plain_duplicate_and_match_mode() {
    use unolab::report::{position_win, round_win_per_seat, seat_round_win, Estimate};
    // `twin` is the points preset under another name: with duplicate play
    // both play a deal's games alike at every rotation, so a seat's or a
    // position's wins repeat within a deal (the case where intervals that
    // ignore the deal fail most), while each twin's share is the same in
    // every deal (no variance, nothing to cover): with twins only seats and
    // positions are checked. points against color checks the strategies
    // too.
    let dir = crate::common::tempdir_created("runner", "cover");
    let twin = dir.join("twin.toml");
    std::fs::write(&twin, "name = \"twin\"\nbase = \"heuristic\"\n").unwrap();
    let twins = format!("points,{}", twin.display());
    const SEEDS: u64 = 200;
    const SEATS: usize = 0;
    const POSITIONS: usize = 1;
    const STRATEGIES: usize = 2;
    // (label, line-up, players, mode, duplicate, games, families checked,
    // families whose Wilson intervals over rounds must fail the band)
    type Case<'a> = (
        &'a str,
        &'a str,
        usize,
        Mode,
        bool,
        u64,
        &'a [usize],
        &'a [usize],
    );
    let cases: [Case; 6] = [
        (
            "plain 4p",
            "points,color",
            4,
            Mode::Round,
            false,
            2000,
            &[0, 1, 2],
            &[],
        ),
        (
            "duplicate 4p twins",
            &twins,
            4,
            Mode::Round,
            true,
            4 * 500,
            &[0, 1],
            &[0, 1],
        ),
        (
            "duplicate 2p twins",
            &twins,
            2,
            Mode::Round,
            true,
            2 * 1000,
            &[0, 1],
            &[0, 1],
        ),
        (
            "duplicate 4p",
            "points,color",
            4,
            Mode::Round,
            true,
            4 * 500,
            &[0, 1, 2],
            &[],
        ),
        (
            "duplicate 2p",
            "points,color",
            2,
            Mode::Round,
            true,
            2 * 1000,
            &[0, 1, 2],
            &[2],
        ),
        (
            "match 4p",
            "points,color",
            4,
            Mode::Match,
            false,
            150,
            &[0, 1, 2],
            &[],
        ),
    ];
    let mut failures = Vec::new();
    for (label, list, players, mode, duplicate, games, checked, wilson_fails) in cases {
        let mut cfg = config("classic", players, list, games, mode, 2);
        cfg.duplicate = duplicate;
        let runs: Vec<RunStats> = (0..SEEDS)
            .map(|s| {
                cfg.seed = 10_000 + s;
                run_all(&cfg)
            })
            .collect();
        // Pooled counts: (numerator, denominator) per rate of each family.
        let counts = |r: &RunStats| -> [Vec<(u64, u64)>; 3] {
            [
                r.seats.iter().map(|s| (s.round_wins, r.rounds)).collect(),
                r.position_wins.iter().map(|&w| (w, r.won)).collect(),
                r.strategies
                    .iter()
                    .map(|s| (s.round_wins, r.rounds * s.seats as u64))
                    .collect(),
            ]
        };
        let mut pooled = counts(&runs[0]);
        for r in &runs[1..] {
            for (f, g) in pooled.iter_mut().zip(counts(r)) {
                for (a, b) in f.iter_mut().zip(g) {
                    a.0 += b.0;
                    a.1 += b.1;
                }
            }
        }
        let names = ["seats", "positions", "strategies"];
        let mut hits = [[0u64; 2]; 3];
        let mut total = [0u64; 3];
        let covers = |e: Estimate, t: f64| (e.lo <= t && t <= e.hi) as u64;
        for r in &runs {
            let own = counts(r);
            for &f in checked {
                for (i, (&(py, px), &(y, x))) in pooled[f].iter().zip(&own[f]).enumerate() {
                    let truth = (py - y) as f64 / (px - x) as f64;
                    let (e, w) = match f {
                        SEATS => (seat_round_win(&cfg, r, i), Estimate::wilson(y, x)),
                        POSITIONS => (position_win(&cfg, r, i), Estimate::wilson(y, x)),
                        STRATEGIES => {
                            let seats = r.strategies[i].seats as f64;
                            let w = Estimate::wilson(y, r.rounds);
                            let w = Estimate {
                                rate: w.rate / seats,
                                lo: w.lo / seats,
                                hi: w.hi / seats,
                            };
                            (round_win_per_seat(&cfg, r, i), w)
                        }
                        _ => unreachable!("three families"),
                    };
                    hits[f][0] += covers(e, truth);
                    hits[f][1] += covers(w, truth);
                    total[f] += 1;
                }
            }
        }
        for &f in checked {
            // The 99.9% band of a binomial(total, 0.95) proportion.
            let half = 3.29 * (0.95 * 0.05 / total[f] as f64).sqrt();
            let band = (0.95 - half)..=(0.95 + half);
            let [new, old] = hits[f].map(|h| h as f64 / total[f] as f64);
            eprintln!(
                "{label} {}: coverage {new:.4} (Wilson over rounds {old:.4}), band [{:.4}, {:.4}], {} intervals",
                names[f],
                band.start(),
                band.end(),
                total[f]
            );
            if !band.contains(&new) {
                failures.push(format!("{label} {}: coverage {new:.4}", names[f]));
            }
            // Where the games of a deal are not independent, intervals that
            // ignore it fail the band: the check can tell them apart.
            if wilson_fails.contains(&f) && band.contains(&old) {
                failures.push(format!(
                    "{label} {}: Wilson coverage {old:.4} passes",
                    names[f]
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn the_mean_turns_and_cards_per_round_have_intervals_that_cover_95_percent() {
    use unolab::report::per_round_mean_ci95;
    // The run's text printed these two means without an interval. Each run's
    // interval is checked against the mean of the other runs pooled (its
    // truth, up to their own noise), in the three designs: independent
    // rounds, deals replayed per rotation, rounds of a match.
    const SEEDS: u64 = 200;
    let cases = [
        ("plain", Mode::Round, false, 300),
        ("duplicate", Mode::Round, true, 4 * 60),
        ("match", Mode::Match, false, 25),
    ];
    let mut failures = Vec::new();
    for (label, mode, duplicate, games) in cases {
        let mut cfg = config("classic", 4, "points,color,random,cautious", games, mode, 1);
        cfg.duplicate = duplicate;
        let runs: Vec<RunStats> = (0..SEEDS)
            .map(|s| {
                cfg.seed = 20_000 + s;
                run_all(&cfg)
            })
            .collect();
        let pool = |f: &dyn Fn(&RunStats) -> u128| runs.iter().map(f).sum::<u128>();
        let (turns, cards, rounds) = (
            pool(&|r| r.turns.sum()),
            pool(&|r| r.cards_drawn.sum()),
            pool(&|r| r.rounds as u128),
        );
        let mut hits = 0u64;
        for r in &runs {
            let cl = r.clusters.as_ref();
            for (h, m, total) in [
                (&r.turns, cl.and_then(|c| c.turns.as_ref()), turns),
                (
                    &r.cards_drawn,
                    cl.and_then(|c| c.cards_drawn.as_ref()),
                    cards,
                ),
            ] {
                let (lo, hi) = per_round_mean_ci95(&cfg, r, h, m).expect("an interval");
                assert!(lo < h.mean() && h.mean() < hi, "{label}: {lo} {hi}");
                let truth = (total - h.sum()) as f64 / (rounds - r.rounds as u128) as f64;
                hits += (lo <= truth && truth <= hi) as u64;
            }
        }
        let total = 2 * SEEDS;
        let cover = hits as f64 / total as f64;
        // The 99.9% band of a binomial(total, 0.95) proportion.
        let half = 3.29 * (0.95 * 0.05 / total as f64).sqrt();
        if (cover - 0.95).abs() > half {
            failures.push(format!("{label}: {cover:.3} of {total}"));
        }
    }
    assert!(
        failures.is_empty(),
        "coverage outside the band: {failures:?}"
    );
}

/// The share of `total` intervals that covered, and whether it lies in the
/// 99.9% band of a binomial(total, 0.95) proportion.
fn in_band(hits: u64, total: u64) -> (f64, bool) {
    let cover = hits as f64 / total as f64;
    (
        cover,
        (cover - 0.95).abs() <= 3.29 * (0.95 * 0.05 / total as f64).sqrt(),
    )
}

/// The points per round won of each strategy (under penalty scoring, the
/// penalty points per seat per won round) printed without an interval.
/// Each run's interval of each strategy is checked against the mean of the
/// other runs pooled, in the designs of the turns' test and under penalty
/// scoring with a strategy holding two seats (its seats' values in a round
/// are one cluster). `UNOLAB_COVERAGE_RUNS` sets the runs per design (200).
#[test]
fn the_points_per_round_won_have_intervals_that_cover_95_percent() {
    use unolab::report::points_ci95;
    let runs_per = crate::common::coverage_runs();
    let penalty = || {
        let f = RuleSetFile::resolve("classic", &["scoring=penalty".to_string()], &[]).unwrap();
        Rules::build(f).unwrap()
    };
    let winner = "points,color,random,cautious";
    let cases = [
        (
            "plain",
            Rules::load("classic").unwrap(),
            winner,
            Mode::Round,
            false,
            300,
        ),
        (
            "duplicate",
            Rules::load("classic").unwrap(),
            winner,
            Mode::Round,
            true,
            4 * 60,
        ),
        (
            "match",
            Rules::load("classic").unwrap(),
            winner,
            Mode::Match,
            false,
            25,
        ),
        (
            "penalty plain",
            penalty(),
            "random,random,color,points",
            Mode::Round,
            false,
            100,
        ),
        (
            "penalty duplicate",
            penalty(),
            "random,random,color,points",
            Mode::Round,
            true,
            4 * 20,
        ),
    ];
    let mut failures = Vec::new();
    let mut report = Vec::new();
    for (label, rules, lineup, mode, duplicate, games) in cases {
        let mut cfg = RunConfig::builder(rules, 4, &parse_list(lineup).unwrap())
            .games(games)
            .mode(mode)
            .seed(42)
            .build()
            .unwrap();
        cfg.duplicate = duplicate;
        let runs: Vec<RunStats> = (0..runs_per)
            .map(|s| {
                cfg.seed = 30_000 + s;
                run_all(&cfg)
            })
            .collect();
        let k_max = runs[0].strategies.len();
        let (mut hits, mut total) = (0u64, 0u64);
        for k in 0..k_max {
            let sum = |r: &RunStats| r.strategies[k].round_points.sum();
            let count = |r: &RunStats| r.strategies[k].round_points.count() as u128;
            let (all_sum, all_count) = (
                runs.iter().map(sum).sum::<u128>(),
                runs.iter().map(count).sum::<u128>(),
            );
            for r in &runs {
                let h = &r.strategies[k].round_points;
                let (lo, hi) = points_ci95(&cfg, r, k).expect("an interval");
                assert!(lo < h.mean() && h.mean() < hi, "{label} {k}: {lo} {hi}");
                let truth = (all_sum - sum(r)) as f64 / (all_count - count(r)) as f64;
                hits += (lo <= truth && truth <= hi) as u64;
                total += 1;
            }
        }
        let (cover, ok) = in_band(hits, total);
        report.push(format!("{label}: {cover:.3} of {total}"));
        if !ok {
            failures.push(format!("{label}: {cover:.3} of {total}"));
        }
    }
    eprintln!("points coverage: {report:?}");
    assert!(
        failures.is_empty(),
        "coverage outside the band: {failures:?}"
    );
}

/// The points per seat per match of each strategy and the rounds per match
/// printed without an interval. In match mode, with one seat per
/// strategy, with a strategy at two seats (its totals in a match are one
/// cluster) and with duplicate play (a deal's matches are one), each run's
/// intervals are checked against the pooled mean of the other runs.
/// `UNOLAB_COVERAGE_RUNS` sets the runs per design (200).
#[test]
fn the_match_points_and_rounds_per_match_have_intervals_that_cover_95_percent() {
    use unolab::report::{match_points_ci95, rounds_per_match_ci95};
    let runs_per = crate::common::coverage_runs();
    let cases = [
        ("one seat each", "points,color,random,cautious", false, 25),
        ("two seats", "random,random,color,points", false, 25),
        ("duplicate", "points,color,random,cautious", true, 4 * 8),
    ];
    let mut failures = Vec::new();
    let mut report = Vec::new();
    for (label, lineup, duplicate, games) in cases {
        let mut cfg = config("classic", 4, lineup, games, Mode::Match, 1);
        cfg.duplicate = duplicate;
        let runs: Vec<RunStats> = (0..runs_per)
            .map(|s| {
                cfg.seed = 40_000 + s;
                run_all(&cfg)
            })
            .collect();
        // Each strategy's points per seat per match.
        let (mut hits, mut total) = (0u64, 0u64);
        for k in 0..runs[0].strategies.len() {
            let sum = |r: &RunStats| r.strategies[k].match_points.sum();
            let count = |r: &RunStats| r.strategies[k].match_points.count() as u128;
            let all_sum: u128 = runs.iter().map(sum).sum();
            let all_count: u128 = runs.iter().map(count).sum();
            for r in &runs {
                let (lo, hi) = match_points_ci95(r, k).expect("an interval");
                let mean = r.strategies[k].match_points.mean();
                assert!(lo < mean && mean < hi, "{label} {k}: {lo} {hi}");
                let truth = (all_sum - sum(r)) as f64 / (all_count - count(r)) as f64;
                hits += (lo <= truth && truth <= hi) as u64;
                total += 1;
            }
        }
        let (cover, ok) = in_band(hits, total);
        report.push(format!(
            "{label}, points per seat per match: {cover:.3} of {total}"
        ));
        if !ok {
            failures.push(report.last().unwrap().clone());
        }
        // The rounds per match.
        let all_rounds: u64 = runs.iter().map(|r| r.rounds).sum();
        let all_matches: u64 = runs.iter().map(|r| r.games).sum();
        let mut hits = 0u64;
        for r in &runs {
            let (lo, hi) = rounds_per_match_ci95(&cfg, r).expect("an interval");
            let truth = (all_rounds - r.rounds) as f64 / (all_matches - r.games) as f64;
            hits += (lo <= truth && truth <= hi) as u64;
        }
        let (cover, ok) = in_band(hits, runs_per);
        report.push(format!(
            "{label}, rounds per match: {cover:.3} of {runs_per}"
        ));
        if !ok {
            failures.push(report.last().unwrap().clone());
        }
    }
    eprintln!("match coverage: {report:?}");
    assert!(
        failures.is_empty(),
        "coverage outside the band: {failures:?}"
    );
}

/// RULES: the first dealer of a match is drawn uniformly at random (the
/// default `dealer = "random"`), from the game's own generator: over 3,000
/// games of 3 players and 4,000 of 4 each seat deals first within 4.5
/// standard deviations of its share, and a seat number fixes it.
#[test]
fn the_first_dealer_of_a_match_is_uniform_unless_a_seat_is_set() {
    use unolab::engine::game::game_rngs;
    for (players, games) in [(3u8, 3000u64), (4, 4000)] {
        let rules = Rules::load("classic").unwrap();
        let mut count = [0u64; 4];
        for game in 0..games {
            let (t, _) = game_rngs(7, game);
            let mut g = unolab::Game::with_rng(&rules, players as usize, t);
            g.start_match(None);
            count[g.dealer() as usize] += 1;
        }
        let p = 1.0 / players as f64;
        let (mean, sd) = (games as f64 * p, (games as f64 * p * (1.0 - p)).sqrt());
        for (seat, &c) in count.iter().enumerate().take(players as usize) {
            assert!(
                (c as f64 - mean).abs() < 4.5 * sd,
                "{players} players: seat {seat} dealt first {c} times of {games}"
            );
        }
    }
    let fixed =
        Rules::build(RuleSetFile::resolve("classic", &["dealer=2".into()], &[]).unwrap()).unwrap();
    for game in 0..50 {
        let (t, _) = game_rngs(7, game);
        let mut g = unolab::Game::with_rng(&fixed, 3, t);
        g.start_match(None);
        assert_eq!(g.dealer(), 2);
    }
}
