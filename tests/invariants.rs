//! Invariants over many random matches: cards are conserved and hands disjoint
//! after every event, each round ends with exactly one winner or is reported
//! blocked/truncated, totals equal the sum of round points, and the legal-move
//! mask equals a card-by-card check. Every rule set crossed with every house
//! rule, 2 to 10 players, fixed seeds.

use unolab::agents::{parse_list, Seat};
use unolab::engine::game::{game_rngs, Agents, Event, Game, Outcome, Recorder, RoundResult};
use unolab::engine::rules::{RuleSetFile, Rules, Scoring, BUILTIN_NAMES};

/// Checks conservation after every event and the legal mask on every play.
#[derive(Default)]
struct Checker {
    events: u64,
    mask_checks: u64,
    rounds: Vec<RoundResult>,
    failure: Option<String>,
}

impl Recorder for Checker {
    fn on(&mut self, g: &Game, e: Event<'_>) {
        if self.failure.is_some() {
            return;
        }
        self.events += 1;
        if matches!(e, Event::Deal { .. } | Event::Flip { returned: true, .. }) {
            // Before the start card lies, the discard pile is empty: check the
            // hands and the draw pile alone.
            let mut seen = unolab::CardSet::EMPTY;
            let mut total = 0;
            for h in g.hands() {
                if !(seen & *h).is_empty() {
                    self.failure = Some("hands overlap after the deal".into());
                }
                seen |= *h;
                total += h.len() as usize;
            }
            if total + g.draw_pile_len() != g.rules().deck.size {
                self.failure = Some("deal does not conserve cards".into());
            }
            return;
        }
        if let Err(m) = g.check_conservation() {
            self.failure = Some(format!("after {e:?}: {m}"));
            return;
        }
        if let Event::Play { .. } | Event::Draw { .. } = e {
            for seat in 0..g.players() {
                let hand = g.hand(seat);
                let mask = g.playable(hand);
                for c in 0..g.rules().deck.size as u8 {
                    if mask.contains(c) != g.is_playable_naive(hand, c) {
                        self.failure = Some(format!(
                            "legal mask disagrees with the naive check for card {} in hand {:?}",
                            g.rules().deck.token(c),
                            hand
                        ));
                        return;
                    }
                }
                self.mask_checks += 1;
            }
        }
        if let Event::RoundEnd { result, .. } = e {
            let empty: Vec<usize> = (0..g.players()).filter(|&s| g.hand(s).is_empty()).collect();
            let ok = match result.outcome {
                Outcome::Won => {
                    result.winner.is_some() && empty == vec![result.winner.unwrap() as usize]
                }
                Outcome::Blocked | Outcome::Truncated => {
                    result.winner.is_none() && empty.is_empty()
                }
            };
            if !ok {
                self.failure = Some(format!(
                    "round {} ended {:?} with winner {:?} and empty hands {:?}",
                    result.round, result.outcome, result.winner, empty
                ));
                return;
            }
            // Points: winner scoring gives the winner the others' hands.
            if let Some(w) = result.winner {
                let d = &g.rules().deck;
                let expect: u32 = match g.rules().settings.scoring {
                    Scoring::Winner => (0..g.players()).map(|s| d.points(g.hand(s))).sum(),
                    Scoring::Penalty => d.points(g.hand(w as usize)),
                };
                if result.points[w as usize] != expect {
                    self.failure = Some(format!("round {} scored wrongly", result.round));
                }
            }
            self.rounds.push(result.clone());
        }
    }
}

/// Plays `matches` random matches and checks every invariant; returns
/// (rounds, events, blocked or truncated rounds).
fn check(rules: &Rules, matches: u64, seed: u64, lazy: bool) -> (u64, u64, u64) {
    let mut rounds = 0;
    let mut events = 0;
    let mut unfinished = 0;
    for i in 0..matches {
        let players = 2 + (i % 9) as usize;
        if rules.check_players(players).is_err() {
            continue;
        }
        let specs = parse_list("random,first,points,color,cautious,forgetful").unwrap();
        let mut seats: Vec<Seat> = (0..players)
            .map(|s| specs[(s + i as usize) % specs.len()].instantiate())
            .collect();
        let (t, a) = game_rngs(seed, i);
        let mut game = Game::with_rng(rules, players, t);
        game.set_lazy_pile(lazy);
        let mut agents = Agents {
            seats: &mut seats,
            rng: a,
        };
        let mut checker = Checker::default();
        let m = game
            .play_match(&mut agents, &mut checker, |_| {})
            .expect("non-strict rules never stop");
        if let Some(f) = checker.failure {
            panic!(
                "{} seed {seed} match {i} ({players} players): {f}",
                rules.name
            );
        }
        assert_eq!(m.rounds as usize, checker.rounds.len());
        for s in 0..players {
            let sum: i64 = checker.rounds.iter().map(|r| r.points[s] as i64).sum();
            assert_eq!(
                m.totals[s], sum,
                "{} match {i}: totals are the sum of round points",
                rules.name
            );
        }
        assert!(checker.mask_checks > 0);
        rounds += m.rounds as u64;
        events += checker.events;
        unfinished += checker
            .rounds
            .iter()
            .filter(|r| r.outcome != Outcome::Won)
            .count() as u64;
    }
    (rounds, events, unfinished)
}

fn rules_with(name: &str, house: &str) -> Rules {
    let house: Vec<String> = if house.is_empty() {
        vec![]
    } else {
        vec![house.to_string()]
    };
    Rules::build(RuleSetFile::resolve(name, &[], &house).unwrap()).unwrap()
}

#[test]
fn ten_thousand_classic_matches_across_2_to_10_players() {
    let rules = rules_with("classic", "");
    let (rounds, events, _) = check(&rules, 5_000, 11, false);
    let (rounds2, _, _) = check(&rules, 5_000, 12, true);
    assert!(rounds + rounds2 >= 10_000, "{rounds} + {rounds2} rounds");
    assert!(events > 1_000_000);
}

const HOUSE: [&str; 12] = [
    "",
    "stacking=same",
    "stacking=cross",
    "draw_to_match",
    "force_play",
    "seven_o",
    "jump_in",
    "bluff_challenge",
    "uno_penalty=4,uno_catch_chance=0.5",
    "hand_size=5",
    "custom_effect=none",
    "stacking=cross,seven_o,jump_in,bluff_challenge,draw_to_match,force_play",
];

#[test]
fn every_rule_set_with_every_house_rule() {
    for name in BUILTIN_NAMES {
        for (k, house) in HOUSE.iter().enumerate() {
            let rules = rules_with(name, house);
            let (rounds, _, _) = check(&rules, 180, 100 + k as u64, k % 2 == 0);
            assert!(rounds >= 180, "{name} {house}: {rounds} rounds");
        }
    }
}

#[test]
fn penalty_scoring_quick_and_fixed_rounds() {
    for set in [
        vec![
            "scoring=penalty".to_string(),
            "rounds=3".into(),
            "target=0".into(),
        ],
        vec!["quick=true".to_string()],
        vec!["rounds=2".to_string()],
        vec![
            "start_card_effects=false".to_string(),
            "may_draw_when_playable=false".into(),
        ],
        vec!["max_turns=30".to_string()],
    ] {
        let rules = Rules::build(RuleSetFile::resolve("classic", &set, &[]).unwrap()).unwrap();
        let (rounds, _, unfinished) = check(&rules, 300, 5, true);
        assert!(rounds >= 300, "{set:?}");
        if set[0] == "max_turns=30" {
            assert!(unfinished > 0, "a 30-turn cap must truncate some rounds");
        }
    }
}

#[test]
fn tiny_deck_rounds_block_and_are_reported() {
    // 2 players, 3 cards each, a deck of 8 cards of two colours that cannot
    // match each other: the piles run dry and rounds end blocked.
    let text = r#"
name = "tiny"
[settings]
hand_size = 3
[[deck]]
faces = ["1", "2", "3", "4"]
colors = ["red"]
count = 1
[[deck]]
faces = ["5", "6", "7", "8"]
colors = ["blue"]
count = 1
"#;
    let rules = Rules::build(RuleSetFile::parse(text, "tiny").unwrap()).unwrap();
    let (rounds, _, unfinished) = check(&rules, 200, 3, false);
    assert!(rounds > 0);
    assert!(unfinished > 0, "some rounds of the tiny deck must block");
}
