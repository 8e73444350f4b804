//! The runner: reproducibility across threads, exact merging, counts that add up.

use std::sync::atomic::AtomicBool;
use unolab::agents::parse_list;
use unolab::engine::rules::{RuleSetFile, Rules};
use unolab::sim::{play_games, run, Mode, RunConfig, RunStats};

fn config(
    rules: &str,
    players: usize,
    strategies: &str,
    games: u64,
    mode: Mode,
    threads: usize,
) -> RunConfig {
    RunConfig::new(
        Rules::load(rules).unwrap(),
        players,
        &parse_list(strategies).unwrap(),
        games,
        mode,
        42,
        threads,
        false,
    )
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
    let dir = std::env::temp_dir().join(format!("unolab-rot-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
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
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn bad_configurations_are_refused() {
    let rules = Rules::load("classic").unwrap();
    let specs = parse_list("random").unwrap();
    let err = |r: Result<RunConfig, unolab::sim::RunError>| r.unwrap_err().to_string();
    assert!(err(RunConfig::new(
        rules.clone(),
        11,
        &specs,
        10,
        Mode::Round,
        1,
        1,
        false
    ))
    .contains("2 to 10"));
    assert!(err(RunConfig::new(
        rules.clone(),
        4,
        &specs,
        0,
        Mode::Round,
        1,
        1,
        false
    ))
    .contains("games"));
    let five = parse_list("random,random,random,random,random").unwrap();
    assert!(err(RunConfig::new(
        rules.clone(),
        4,
        &five,
        10,
        Mode::Round,
        1,
        1,
        false
    ))
    .contains("5 strategies"));
    let endless =
        Rules::build(RuleSetFile::resolve("classic", &["target=0".into()], &[]).unwrap()).unwrap();
    assert!(err(RunConfig::new(
        endless,
        4,
        &specs,
        10,
        Mode::Match,
        1,
        1,
        false
    ))
    .contains("needs an end"));
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
        let builtin = RunConfig::new(
            rules.clone(),
            3,
            &lineup(parse_list("first").unwrap()[0].clone()),
            3000,
            Mode::Round,
            5,
            threads,
            false,
        )
        .unwrap();
        let custom = RunConfig::new(
            rules.clone(),
            3,
            &lineup(mine.clone()),
            3000,
            Mode::Round,
            5,
            threads,
            false,
        )
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
