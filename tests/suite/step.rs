//! The stepper (engine::step) plays the same games as the engine's own round
//! loop: a learner that always answers with the lowest legal action gives,
//! seed for seed, the rounds a strategy answering the same way gives at the
//! same seats through `play_round`, with strategies at the other seats asked
//! once per decision. And the features a seat gets depend only on what it can
//! see.

use unolab::engine::cards::{CardId, CardSet, Color};
use unolab::engine::encode::{self, DecisionKind, ACTIONS, OBS_LEN};
use unolab::engine::game::{game_rngs, Agents, Game, NoRecord, Observation, RoundResult};
use unolab::engine::rules::{RuleSetFile, Rules};
use unolab::engine::step::{Reward, StepError, StepMode, Stepper};
use unolab::{Rng, Seat, Strategy, StrategySpec};

/// Answers every decision with the lowest legal action of the encoding:
/// the lowest kind number among the playable cards (else draw), play a
/// drawn card, red, call UNO, the next opponent, challenge, jump in.
struct Lowest;

fn lowest_card(obs: &Observation, cards: CardSet) -> Option<CardId> {
    let d = &obs.rules().deck;
    cards
        .iter()
        .min_by_key(|&c| (encode::kind_index(d.kind(c)), c))
}

impl Strategy for Lowest {
    fn name(&self) -> &str {
        "lowest"
    }
    fn choose_play(&mut self, obs: &Observation, playable: CardSet, _: &mut Rng) -> Option<CardId> {
        lowest_card(obs, playable)
    }
    fn play_drawn(&mut self, _: &Observation, _: CardId, _: &mut Rng) -> bool {
        true
    }
    fn choose_color(&mut self, _: &Observation, _: &mut Rng) -> Color {
        Color::Red
    }
    fn call_uno(&mut self, _: &Observation, _: &mut Rng) -> bool {
        true
    }
    fn choose_target(&mut self, obs: &Observation, _: &mut Rng) -> u8 {
        obs.seat_after(1)
    }
    fn answer_stack(&mut self, obs: &Observation, answers: CardSet, _: &mut Rng) -> Option<CardId> {
        lowest_card(obs, answers)
    }
    fn challenge(&mut self, _: &Observation, _: &mut Rng) -> bool {
        true
    }
    fn jump_in(&mut self, _: &Observation, _: CardId, _: &mut Rng) -> bool {
        true
    }
}

fn rules(name: &str, house: &str, sets: &[&str]) -> Rules {
    let house: Vec<String> = if house.is_empty() {
        vec![]
    } else {
        vec![house.into()]
    };
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    Rules::build(RuleSetFile::resolve(name, &sets, &house).unwrap()).unwrap()
}

/// `play_round` as the stepper plays round mode: game 0 of `seed`, lazy pile.
fn engine_round(rules: &Rules, seats: &mut Vec<Seat>, seed: u64) -> RoundResult {
    let (table, agent_rng) = game_rngs(seed, 0);
    let mut g = Game::with_rng(rules, seats.len(), table);
    g.set_lazy_pile(true);
    g.start_match(None);
    g.play_round(
        &mut Agents {
            seats,
            rng: agent_rng,
        },
        &mut NoRecord,
    )
    .unwrap()
}

/// Steps with the lowest legal action until the game is over; counts steps.
fn drive(st: &mut Stepper<Seat>) -> usize {
    let mut steps = 0;
    while let Some(_d) = st.decision() {
        let a = st
            .legal()
            .iter()
            .next()
            .expect("a decision has a legal action");
        st.step(a).unwrap();
        steps += 1;
        assert!(steps < 1_000_000);
    }
    steps
}

/// Seats: the learner's seats (bits of `env`) play `Lowest`, the others the
/// named strategies.
fn check_same_rounds(rules: &Rules, lineup: &[&str], env: u16, seeds: std::ops::Range<u64>) {
    let make = |learner_too: bool| -> Vec<Seat> {
        lineup
            .iter()
            .enumerate()
            .map(|(i, name)| {
                if env >> i & 1 == 1 && learner_too {
                    Seat::custom(Lowest)
                } else {
                    StrategySpec::load(name).unwrap().instantiate()
                }
            })
            .collect()
    };
    let mut st = Stepper::new(rules, make(false), env, StepMode::Round, Reward::Win);
    let mut decisions = 0;
    for seed in seeds {
        st.reset(seed).unwrap();
        decisions += drive(&mut st);
        assert!(st.is_over());
        let want = engine_round(rules, &mut make(true), seed);
        assert_eq!(st.rounds(), &[want], "{} seed {seed}", rules.name);
    }
    assert!(decisions > 0);
}

#[test]
fn a_learner_plays_the_rounds_the_engine_plays() {
    let every_seat = |n: usize| (1u16 << n) - 1;
    check_same_rounds(
        &rules("classic", "", &[]),
        &["random"; 4],
        every_seat(4),
        0..200,
    );
    check_same_rounds(
        &rules("h2o", "", &[]),
        &["random"; 3],
        every_seat(3),
        0..100,
    );
    check_same_rounds(
        &rules("lilo-stitch", "", &[]),
        &["random"; 2],
        every_seat(2),
        0..100,
    );
    check_same_rounds(
        &rules("cars3", "", &[]),
        &["random"; 5],
        every_seat(5),
        0..100,
    );
    let all = "stacking=cross,seven_o,jump_in,bluff_challenge";
    check_same_rounds(
        &rules("classic", all, &[]),
        &["random"; 4],
        every_seat(4),
        0..200,
    );
    check_same_rounds(
        &rules(
            "cars3",
            "draw_to_match,force_play",
            &["wild_when_matching=false"],
        ),
        &["random"; 3],
        every_seat(3),
        0..100,
    );
}

#[test]
fn strategies_at_the_other_seats_play_as_in_the_engine() {
    // One learner seat among random (which draws from the strategies'
    // generator), color and points: their answers and the generator come
    // from the log on every replay.
    let all = "stacking=same,seven_o,jump_in,bluff_challenge";
    for (r, env) in [
        (rules("classic", "", &[]), 0b0001u16),
        (rules("classic", all, &[]), 0b0100),
        (rules("cars3", all, &[]), 0b1000),
    ] {
        check_same_rounds(&r, &["random", "color", "random", "points"], env, 0..150);
    }
}

#[test]
fn search_agents_at_the_other_seats_get_the_notes_they_ask_for() {
    // Search agents that deal by what the table showed (informed: facts,
    // with draw evidence: evidence) or weigh deals by an opponent model
    // (each seat's last turns) played without those notes in the stepped
    // environments, so other games than the runner's.
    let dir = crate::common::tempdir_created("step", "notes");
    let preset = |name: &str, search: &str| {
        let p = dir.join(format!("{name}.toml"));
        std::fs::write(
            &p,
            format!("name = \"{name}\"\nbase = \"pimc\"\n[search]\niterations = 24\nrollout = \"color\"\n{search}"),
        )
        .unwrap();
        p.to_str().unwrap().to_string()
    };
    let model = preset(
        "model",
        "model = \"color\"\nmodel_turns = 4\nmodel_tries = 8\nmodel_sampler = \"chain\"\n",
    );
    let evidence = preset(
        "evidence",
        "determinize = \"informed\"\ndraw_evidence = 0.5\n",
    );
    let r = rules("classic", "seven_o,bluff_challenge", &[]);
    check_same_rounds(&r, &["random", &model, "color", &evidence], 0b0001, 0..12);
}

#[test]
fn match_mode_plays_to_the_target_and_rewards_the_winner() {
    let r = rules("classic", "", &["target=200"]);
    let seats: Vec<Seat> = (0..3).map(|_| StrategySpec::Random.instantiate()).collect();
    let mut st = Stepper::new(&r, seats, 0b111, StepMode::Match, Reward::Win);
    for seed in 0..20 {
        st.reset(seed).unwrap();
        drive(&mut st);
        let m = st.match_result().expect("a match result").clone();
        assert_eq!(m.rounds as usize, st.rounds().len());
        let rewards = st.take_rewards();
        match m.winner {
            Some(w) => {
                assert!(m.totals[w as usize] >= 200);
                assert_eq!(rewards[w as usize], 1.0);
                assert!((rewards[..3].iter().sum::<f32>()).abs() < 1e-6);
            }
            None => assert_eq!(rewards, [0.0; 10]),
        }
        assert_eq!(st.step(0), Err(StepError::Over));
    }
}

#[test]
fn an_illegal_action_is_refused_or_sanctioned() {
    let r = rules("classic", "", &[]);
    let seats: Vec<Seat> = (0..2).map(|_| StrategySpec::Random.instantiate()).collect();
    let mut st = Stepper::new(&r, seats, 0b11, StepMode::Round, Reward::Win);
    st.reset(3).unwrap();
    // Find a play decision and an action outside its legal set.
    while st.decision().map(|d| d.kind) != Some(DecisionKind::Play) {
        let a = st.legal().iter().next().unwrap();
        st.step(a).unwrap();
    }
    let bad = (0..ACTIONS).find(|&a| !st.legal().contains(a)).unwrap();
    let good = st.legal().iter().next().unwrap();
    assert_eq!(st.check(good), Ok(()));
    let e = st.step(bad).unwrap_err();
    assert_eq!(st.check(bad), Err(e.clone()), "check refuses as step does");
    assert!(
        matches!(e, StepError::Illegal { action, .. } if action == bad),
        "{e}"
    );
    assert!(
        e.to_string().contains("not legal for the play decision"),
        "{e}"
    );
    // With the sanction, the same action is the wrong-card sanction: the
    // seat draws the penalty and its turn ends.
    let seat = st.decision().unwrap().seat as usize;
    let before = st.game().hand(seat).len();
    st.set_sanction(true);
    let play_bad = (0..encode::KINDS)
        .find(|&a| !st.legal().contains(a))
        .unwrap();
    assert_eq!(st.check(play_bad), Ok(()), "sanctioned, so taken");
    st.step(play_bad).unwrap();
    assert_eq!(st.game().hand(seat).len(), before + 1);
    // Not every decision has a sanction: a colour outside the four is refused.
    let mut seed = 3;
    st.reset(seed).unwrap();
    while st.decision().map(|d| d.kind) != Some(DecisionKind::Color) {
        // The highest card kind it may play (wilds are the highest kinds),
        // else the lowest legal action.
        let legal = st.legal();
        let a = legal
            .iter()
            .filter(|&a| a < encode::KINDS)
            .last()
            .unwrap_or_else(|| legal.iter().next().unwrap());
        st.step(a).unwrap();
        if st.is_over() {
            seed += 1;
            assert!(seed < 100, "no colour decision in 100 rounds");
            st.reset(seed).unwrap();
        }
    }
    assert!(matches!(st.check(0), Err(StepError::Illegal { .. })));
    assert!(st.step(0).is_err());
    assert_eq!(st.check(encode::ACT_COLOR), Ok(()));
}

#[test]
fn features_show_only_what_the_seat_can_see() {
    // Two states that differ only in cards seat 0 cannot see (a
    // determinization keeps its hand, the discard pile and every count, and
    // deals the rest anew): the same features for every decision kind.
    for (name, players) in [("classic", 4), ("cars3", 3), ("h2o", 6)] {
        let r = rules(name, "", &[]);
        for seed in 0..50 {
            let mut g = Game::new(&r, players, seed);
            let mut seats: Vec<Seat> = (0..players)
                .map(|_| StrategySpec::Random.instantiate())
                .collect();
            g.start_match(None);
            let start = g.begin_round(
                &mut Agents {
                    seats: &mut seats,
                    rng: game_rngs(seed, 1).1,
                },
                &mut NoRecord,
            );
            let _ = start;
            let mut rng = game_rngs(seed, 2).0;
            let obs = Observation::of(&g, 0);
            let other = Game::determinize(&obs, &mut rng);
            assert_ne!(
                (1..players).map(|s| g.hand(s)).collect::<Vec<_>>(),
                (1..players).map(|s| other.hand(s)).collect::<Vec<_>>(),
                "the hidden hands differ"
            );
            for kind in DecisionKind::ALL {
                let mut a = [0f32; OBS_LEN];
                let mut b = [1f32; OBS_LEN];
                encode::encode(&obs, kind, Some(g.top()), &mut a);
                encode::encode(&Observation::of(&other, 0), kind, Some(g.top()), &mut b);
                assert_eq!(a.to_vec(), b.to_vec(), "{name} seed {seed} {kind:?}");
            }
            // And the features do see the seat's own hand.
            let mut c = [0f32; OBS_LEN];
            encode::encode(
                &Observation::of(&other, 1),
                DecisionKind::Play,
                None,
                &mut c,
            );
            let mut a = [0f32; OBS_LEN];
            encode::encode(&obs, DecisionKind::Play, None, &mut a);
            assert_ne!(a.to_vec(), c.to_vec());
        }
    }
}

#[test]
fn game_k_of_a_seed_is_the_runners_game_k() {
    let r = rules("classic", "seven_o", &[]);
    let seats = |learner: bool| -> Vec<Seat> {
        (0..3)
            .map(|i| {
                if learner && i == 1 {
                    Seat::custom(Lowest)
                } else {
                    StrategySpec::Random.instantiate()
                }
            })
            .collect()
    };
    let mut st = Stepper::new(&r, seats(false), 0b010, StepMode::Round, Reward::Win);
    for index in [0u64, 1, 7, 1000] {
        st.reset_game(11, index).unwrap();
        drive(&mut st);
        let (table, agent_rng) = game_rngs(11, index);
        let mut g = Game::with_rng(&r, 3, table);
        g.set_lazy_pile(true);
        g.start_match(None);
        let want = g
            .play_round(
                &mut Agents {
                    seats: &mut seats(true),
                    rng: agent_rng,
                },
                &mut NoRecord,
            )
            .unwrap();
        assert_eq!(st.rounds(), &[want], "game {index}");
    }
    // reset(seed) is game 0 of the seed.
    st.reset(11).unwrap();
    let a = st.features().to_vec();
    st.reset_game(11, 0).unwrap();
    assert_eq!(a, st.features().to_vec());
    st.reset_game(11, 1).unwrap();
    assert_ne!(a, st.features().to_vec());
}

/// The seat `k` places after `seat` in direction `dir` among `n`.
fn after(seat: usize, k: usize, dir: f32, n: usize) -> usize {
    if dir > 0.0 {
        (seat + k) % n
    } else {
        (seat + n * 10 - k) % n
    }
}

#[test]
fn views_of_every_seat_at_a_decision_change_nothing() {
    // At every decision: the inspected observation is the deciding seat's and
    // encodes to the stepper's features; every other seat's features are of
    // the same moment (same top card, colour, discard pile and hand sizes,
    // seen from its place) with the decision sections at zero; render shows
    // the decision. And the game played is still the engine's, seed for seed.
    let s = |name: &str| encode::SECTIONS.iter().find(|s| s.name == name).unwrap();
    let (hand, top, color, dir, sizes, discard, decision) = (
        s("hand"),
        s("top"),
        s("color"),
        s("direction"),
        s("hand_sizes"),
        s("discard"),
        s("decision"),
    );
    let all = "stacking=cross,seven_o,jump_in,bluff_challenge";
    for (r, n) in [
        (rules("classic", all, &[]), 4usize),
        (rules("cars3", "", &[]), 3),
        (rules("h2o", "", &[]), 2),
    ] {
        let lineup = ["random", "color", "points", "random"];
        let make = |learner: bool| -> Vec<Seat> {
            (0..n)
                .map(|i| {
                    if learner && i != 1 {
                        Seat::custom(Lowest)
                    } else {
                        StrategySpec::load(lineup[i]).unwrap().instantiate()
                    }
                })
                .collect()
        };
        let env = ((1u16 << n) - 1) & !0b10;
        let mut st = Stepper::new(&r, make(false), env, StepMode::Round, Reward::Win);
        let mut checked = 0;
        for seed in 0..40 {
            st.reset(seed).unwrap();
            while let Some(d) = st.decision() {
                let me = d.seat as usize;
                let f = st.features().to_vec();
                let card = match d.kind {
                    DecisionKind::PlayDrawn | DecisionKind::JumpIn => d.cards.first(),
                    _ => None,
                };
                let (seat, kind_ok, hand_len) = st
                    .inspect(|obs| {
                        let mut g = [0f32; OBS_LEN];
                        encode::encode(obs, d.kind, card, &mut g);
                        (obs.seat() as usize, g.to_vec() == f, obs.hand().len())
                    })
                    .unwrap();
                assert_eq!(seat, me);
                assert!(kind_ok, "{} seed {seed}: inspected features differ", r.name);
                let text = st.render();
                assert!(
                    text.contains(&format!("seat {me} decides ({})", d.kind.name())),
                    "{text}"
                );
                for a in st.legal().iter() {
                    assert!(
                        text.contains(&format!(" {a} ({})", encode::action_label(a))),
                        "{text}"
                    );
                }
                assert_eq!(
                    text.lines()
                        .find(|l| l.starts_with("hand of seat"))
                        .unwrap()
                        .split_whitespace()
                        .count()
                        - 4,
                    hand_len as usize
                );
                let d_dir = f[dir.offset];
                for other in 0..n {
                    let mut g = vec![0f32; OBS_LEN];
                    st.seat_features(other as u8, &mut g);
                    if other == me {
                        assert_eq!(g, f);
                        continue;
                    }
                    for sec in [top, color, dir, discard] {
                        let r = sec.offset..sec.offset + sec.len;
                        assert_eq!(g[r.clone()], f[r]);
                    }
                    assert!(g[decision.offset..].iter().all(|&v| v == 0.0));
                    // Hand sizes seen from `other`: seat after(other, k).
                    for k in 0..n {
                        let seat = after(other, k, d_dir, n);
                        let kd = (0..n).find(|&j| after(me, j, d_dir, n) == seat).unwrap();
                        assert_eq!(g[sizes.offset + k], f[sizes.offset + kd]);
                    }
                    let held: f32 = g[hand.offset..hand.offset + hand.len].iter().sum();
                    assert_eq!(held, g[sizes.offset]);
                    checked += 1;
                }
                let a = st.legal().iter().next().unwrap();
                st.step(a).unwrap();
            }
            let want = {
                let (table, agent_rng) = game_rngs(seed, 0);
                let mut g = Game::with_rng(&r, n, table);
                g.set_lazy_pile(true);
                g.start_match(None);
                g.play_round(
                    &mut Agents {
                        seats: &mut make(true),
                        rng: agent_rng,
                    },
                    &mut NoRecord,
                )
                .unwrap()
            };
            let winner = want.winner;
            assert_eq!(st.rounds(), &[want], "{} seed {seed}", r.name);
            let text = st.render();
            assert!(text.starts_with("game over"), "{text}");
            // No seat decides once the game is over: none is marked (seat 0
            // was, whichever the learner's).
            assert!(!text.contains(" > seat"), "{text}");
            match winner {
                Some(w) => assert!(text.contains(&format!("round 1: seat {w} won")), "{text}"),
                None => assert!(text.contains("round 1: ended"), "{text}"),
            }
            let mut g = vec![1f32; OBS_LEN];
            st.seat_features(0, &mut g);
            assert!(g[decision.offset..].iter().all(|&v| v == 0.0));
        }
        assert!(checked > 100, "{}: {checked}", r.name);
    }
}

/// `check_rlcard` answers as `step_rlcard` would, without moving: under the
/// `rlcard` rule set, at every decision of a few games, every one of RLCard's
/// actions is accepted exactly when its mask holds it (with the sanction off),
/// a refused one gets the error `step_rlcard` returns and leaves the game as it
/// was; with the sanction on every action is accepted (each is a play or the
/// draw, which the wrong-card sanction covers).
#[test]
fn check_rlcard_agrees_with_step_rlcard() {
    use unolab::engine::rlcard;
    let r = Rules::builtin("rlcard");
    let seats = || -> Vec<Seat> {
        (0..2)
            .map(|_| StrategySpec::load("random").unwrap().instantiate())
            .collect()
    };
    let mut refused = 0;
    for sanction in [false, true] {
        let mut st = Stepper::new(&r, seats(), 0b11, StepMode::Round, Reward::Win);
        st.set_sanction(sanction);
        for seed in 0..6 {
            st.reset(seed).unwrap();
            st.rlcard_settle().unwrap();
            while st.decision().is_some() {
                let mut m = [0i8; rlcard::ACTIONS];
                st.rlcard_mask(&mut m);
                for (a, &held) in m.iter().enumerate() {
                    let ok = st.check_rlcard(a);
                    if sanction {
                        assert!(ok.is_ok(), "seed {seed}: action {a}: {ok:?}");
                        continue;
                    }
                    assert_eq!(ok.is_ok(), held == 1, "seed {seed}: action {a}");
                    if let Err(e) = ok {
                        let f = st.features().to_vec();
                        let stepped = st.step_rlcard(a).unwrap_err();
                        assert_eq!(stepped.to_string(), e.to_string());
                        assert_eq!(st.features().to_vec(), f);
                        refused += 1;
                    }
                }
                let lowest = (0..rlcard::ACTIONS).find(|&a| m[a] == 1).unwrap();
                st.step_rlcard(lowest).unwrap();
            }
            assert!(st.is_over());
            assert!(st.check_rlcard(0).is_err());
        }
    }
    assert!(refused > 100);
}

/// The RLCard encoding plays the same games with `ask_forced` on and off
/// when the learner chooses only where it has a choice: the forced
/// questions take their one answer and change nothing else. Off, a seat's
/// later turn can pass without a stop, and a wild it then draws and plays
/// took the colour named by its previous action (seed 8 of classic at 2
/// players: a drawn Wild Draw Four coloured blue, and another winner).
#[test]
fn rlcard_play_is_the_same_with_and_without_forced_questions() {
    use unolab::engine::rlcard;
    for (name, players) in [("classic", 2usize), ("rlcard", 2), ("classic", 3)] {
        let r = Rules::builtin(name);
        for seed in 0..40u64 {
            let mut results = Vec::new();
            for ask in [true, false] {
                let seats = (0..players)
                    .map(|_| StrategySpec::load("random").unwrap().instantiate())
                    .collect();
                let all = (1u16 << players) - 1;
                let mut st = Stepper::new(&r, seats, all, StepMode::Round, Reward::Win);
                st.set_ask_forced(ask);
                st.reset(seed).unwrap();
                st.rlcard_settle().unwrap();
                let mut choices = 0usize;
                while st.decision().is_some() {
                    let mut m = [0i8; rlcard::ACTIONS];
                    st.rlcard_mask(&mut m);
                    let legal: Vec<usize> = (0..rlcard::ACTIONS).filter(|&a| m[a] == 1).collect();
                    let a = if legal.len() == 1 {
                        legal[0]
                    } else {
                        choices += 1;
                        legal[(seed as usize * 31 + choices * 7919) % legal.len()]
                    };
                    st.step_rlcard(a).unwrap();
                }
                results.push(st.rounds().to_vec());
            }
            assert_eq!(
                results[0], results[1],
                "{name} at {players} players, seed {seed}"
            );
        }
    }
}

#[test]
fn a_lent_game_steps_as_the_steppers_own_copy() {
    // Three steppers of a batch share one lent game (`step_on`); each plays,
    // decision for decision, what a twin stepping on its own copy plays:
    // the same decisions, legal sets, features, rewards and round results,
    // in match mode under house rules with strategies at one seat, so that
    // rounds end and restart on both paths.
    let r = rules("classic", "stacking=cross,seven_o,jump_in", &["target=200"]);
    let lineup = |k: usize| -> Vec<Seat> {
        ["random", "color", "points"]
            .iter()
            .map(|s| StrategySpec::load(s).unwrap().instantiate())
            .take(3)
            .cycle()
            .skip(k)
            .take(3)
            .collect()
    };
    let env = 0b101;
    let make = |k| Stepper::new(&r, lineup(k), env, StepMode::Match, Reward::Points);
    let mut own: Vec<_> = (0..3).map(make).collect();
    let mut lent: Vec<_> = (0..3).map(make).collect();
    let mut scratch = Game::new(&r, 3, 99);
    let mut x = 0x2545f4914f6cdd1du64;
    let mut steps = 0;
    let mut rounds = 0;
    for seed in 0..10u64 {
        for k in 0..3 {
            own[k].reset_game(seed, k as u64).unwrap();
            lent[k].reset_game(seed, k as u64).unwrap();
        }
        loop {
            let mut live = 0;
            for k in 0..3 {
                let (a, b) = (&mut own[k], &mut lent[k]);
                assert_eq!(a.decision(), b.decision());
                assert_eq!(a.legal(), b.legal());
                assert_eq!(a.features().to_vec(), b.features().to_vec());
                assert_eq!(a.take_rewards(), b.take_rewards());
                assert_eq!(a.rounds(), b.rounds());
                if a.is_over() {
                    continue;
                }
                live += 1;
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let legal: Vec<usize> = a.legal().iter().collect();
                let act = legal[(x % legal.len() as u64) as usize];
                a.step(act).unwrap();
                b.step_on(act, &mut scratch).unwrap();
                steps += 1;
            }
            if live == 0 {
                break;
            }
        }
        rounds += own.iter().map(|s| s.rounds().len()).sum::<usize>();
    }
    assert!(
        steps > 5_000 && rounds > 30,
        "{steps} steps, {rounds} rounds"
    );
}

/// `rlcard::missing_decisions` names exactly what the RLCard encoding
/// cannot play: under every built-in rule set and the house rules that ask
/// more (stacking, challenges, seven-o, jump-in), at 2 and 4 players, games
/// of random RLCard actions never stop on a decision RLCard lacks when it
/// names none, and do stop on one when it names some (the Python
/// environments refuse those rule sets at construction by it).
#[test]
fn the_rlcard_encodings_missing_decisions_are_those_the_games_ask() {
    use unolab::engine::rlcard;
    let mut refused = 0;
    for name in ["classic", "rlcard", "h2o", "lilo-stitch", "cars3"] {
        for house in [
            "",
            "stacking=same",
            "stacking=cross",
            "bluff_challenge",
            "seven_o",
            "jump_in",
        ] {
            let mut f = RuleSetFile::load(name).unwrap();
            if !house.is_empty() {
                f.apply_house(house).unwrap();
            }
            let r = Rules::build(f).unwrap();
            let missing = rlcard::missing_decisions(&r);
            assert_eq!(
                rlcard::check_rules(&r).is_ok(),
                missing.is_empty() && rlcard::missing_cards(&r).is_empty()
            );
            for players in [2usize, 4] {
                let seats = (0..players)
                    .map(|_| StrategySpec::load("random").unwrap().instantiate())
                    .collect();
                let learners = (1u16 << players) - 1;
                let mut st = Stepper::new(&r, seats, learners, StepMode::Round, Reward::Win);
                let mut stopped = None;
                'games: for seed in 0..60 {
                    st.reset(seed).unwrap();
                    let mut res = st.rlcard_settle();
                    let mut turn = 0u64;
                    loop {
                        if let Err(e) = res {
                            stopped = Some(e);
                            break 'games;
                        }
                        if st.decision().is_none() {
                            break;
                        }
                        let mut m = [0i8; rlcard::ACTIONS];
                        st.rlcard_mask(&mut m);
                        let legal: Vec<usize> =
                            (0..rlcard::ACTIONS).filter(|&a| m[a] == 1).collect();
                        turn += 1;
                        let a =
                            legal[(seed as usize * 7919 + turn as usize * 104_729) % legal.len()];
                        res = st.step_rlcard(a);
                    }
                }
                let what = format!("{name} {house:?} at {players} players (missing: {missing:?})");
                match stopped {
                    None => assert!(missing.is_empty(), "{what}: no game asked any"),
                    Some(StepError::Unsupported(m)) => {
                        assert!(!missing.is_empty(), "{what}: a game asked: {m}");
                        refused += 1;
                    }
                    Some(e) => panic!("{what}: {e}"),
                }
            }
        }
    }
    assert!(refused >= 10, "{refused}");
}

/// The RLCard encoding has no card for a Wild Downpour, Wild Ohana, Wild
/// Swap or custom wild: such a card would be missing from the planes and no
/// action could play it, so a hand holding one could never be emptied.
/// `rlcard::check_rules` refuses every rule set that deals one, naming the
/// cards; under every rule set it accepts, every play the engine allows has
/// an RLCard action (so the mask is the engine's plays), over random games at
/// 2 and 4 players that all end with a winner.
#[test]
fn the_rlcard_encoding_refuses_decks_with_cards_rlcard_lacks() {
    use unolab::engine::rlcard;
    let refusal = |name: &str| {
        let r = Rules::build(RuleSetFile::load(name).unwrap()).unwrap();
        (rlcard::missing_cards(&r), rlcard::check_rules(&r).err())
    };
    let (cards, err) = refusal("h2o");
    assert_eq!(cards, ["wild-downpour1", "wild-downpour2"]);
    assert_eq!(
        err.as_deref(),
        Some("the RLCard encoding has no card wild-downpour1, wild-downpour2 (rule set 'h2o' deals it; RLCard's deck does not have it): use encoding=\"unolab\"")
    );
    let (cards, err) = refusal("lilo-stitch");
    assert_eq!(cards, ["wild-ohana"]);
    assert!(err
        .unwrap()
        .contains("no card wild-ohana (rule set 'lilo-stitch'"));
    let (cards, err) = refusal("cars3");
    assert_eq!(cards, ["wild-swap", "wild-custom"]);
    assert_eq!(
        err.as_deref(),
        Some("the RLCard encoding has no action for a swap target (rule set 'cars3' asks for it; RLCard's rules do not) and no card wild-swap, wild-custom (RLCard's deck does not have it): use encoding=\"unolab\"")
    );
    for name in ["classic", "rlcard"] {
        let r = Rules::build(RuleSetFile::load(name).unwrap()).unwrap();
        assert_eq!(rlcard::check_rules(&r), Ok(()), "{name}");
        for players in [2usize, 4] {
            let seats = (0..players)
                .map(|_| StrategySpec::load("random").unwrap().instantiate())
                .collect();
            let learners = (1u16 << players) - 1;
            let mut st = Stepper::new(&r, seats, learners, StepMode::Round, Reward::Win);
            let mut plays = 0u64;
            for seed in 0..40u64 {
                st.reset(seed).unwrap();
                st.rlcard_settle().unwrap();
                let mut turn = 0usize;
                while st.decision().is_some() {
                    for a in st.legal().iter() {
                        if (encode::ACT_PLAY..encode::ACT_PLAY + encode::KINDS).contains(&a) {
                            assert!(
                                rlcard::of_action(a, Color::Red).is_some(),
                                "{name}: {} has no RLCard action",
                                encode::action_label(a)
                            );
                            plays += 1;
                        }
                    }
                    let mut m = [0i8; rlcard::ACTIONS];
                    st.rlcard_mask(&mut m);
                    let legal: Vec<usize> = (0..rlcard::ACTIONS).filter(|&a| m[a] == 1).collect();
                    turn += 1;
                    st.step_rlcard(legal[(seed as usize * 31 + turn * 7) % legal.len()])
                        .unwrap();
                }
                let won = st.rounds().last().and_then(|r| r.winner);
                assert!(won.is_some(), "{name} seed {seed}: no winner");
            }
            assert!(plays > 1_000, "{name}: {plays}");
        }
    }
}

/// The known-cards section (`encode::encode_known`) a stepper writes is the
/// deciding seat's, and every other seat's from `seat_known` is that seat's
/// at the same moment, whether the stepper kept it with the decision
/// (`keep_known`) or replays the turn to read it; switching the keeping on
/// at a decision, or off, changes nothing. (Another seat's view is read
/// by the same replay as its features, `seat_features`, tested above.) Under seven-o rotations and
/// swaps, a challenge that shows a hand, and cars3's Wild Swap, some of the
/// sections are not zero. Keeping it does not change the features.
#[test]
fn the_known_cards_section_is_the_same_kept_or_replayed() {
    use unolab::engine::encode::KNOWN_LEN;
    for (r, n) in [
        (rules("classic", "seven_o,bluff_challenge", &[]), 4usize),
        (rules("classic", "seven_o", &[]), 3),
        (rules("cars3", "", &[]), 3),
    ] {
        let seats = || -> Vec<Seat> { (0..n).map(|_| Seat::custom(Lowest)).collect() };
        let all = (1u16 << n) - 1;
        let mut kept = Stepper::new(&r, seats(), all, StepMode::Round, Reward::Win);
        let mut mixed = Stepper::new(&r, seats(), all, StepMode::Round, Reward::Win);
        kept.keep_known(true);
        let (mut decisions, mut known, mut others_known) = (0, 0, 0);
        for seed in 0..30 {
            kept.reset(seed).unwrap();
            mixed.reset(seed).unwrap();
            while let Some(d) = kept.decision() {
                assert_eq!(mixed.decision(), Some(d));
                assert_eq!(kept.features(), mixed.features());
                // Switched on here, kept on, or off: each decision's section
                // the same.
                mixed.keep_known(decisions % 3 != 2);
                let mut a = [f32::NAN; KNOWN_LEN];
                let mut b = [f32::NAN; KNOWN_LEN];
                kept.write_known(&mut a);
                mixed.write_known(&mut b);
                let c = kept
                    .inspect(|obs| {
                        let mut c = [f32::NAN; KNOWN_LEN];
                        encode::encode_known(obs, &mut c);
                        c
                    })
                    .unwrap();
                assert_eq!(a, c, "{} seed {seed}: kept", r.name);
                assert_eq!(b, c, "{} seed {seed}: replayed", r.name);
                known += a.iter().any(|&v| v != 0.0) as usize;
                for other in 0..n as u8 {
                    let mut a = [f32::NAN; KNOWN_LEN];
                    let mut b = [f32::NAN; KNOWN_LEN];
                    kept.seat_known(other, &mut a);
                    mixed.seat_known(other, &mut b);
                    assert_eq!(a, b, "{} seed {seed}: seat {other}", r.name);
                    if other == d.seat {
                        assert_eq!(a, c, "{} seed {seed}: the deciding seat", r.name);
                    } else {
                        others_known += a.iter().any(|&v| v != 0.0) as usize;
                    }
                }
                decisions += 1;
                let action = kept.legal().iter().next().unwrap();
                kept.step(action).unwrap();
                mixed.step(action).unwrap();
            }
            assert!(mixed.is_over());
            let mut z = [f32::NAN; KNOWN_LEN];
            kept.write_known(&mut z);
            assert_eq!(z, [0.0; KNOWN_LEN], "zeros once the game is over");
        }
        assert!(decisions > 500, "{}: {decisions} decisions", r.name);
        assert!(known > 20, "{}: {known} of {decisions} knew a card", r.name);
        assert!(
            others_known > 20,
            "{}: {others_known} other seats knew a card",
            r.name
        );
    }
}
