//! Every round ends: at the extremes the settings allow (2 to 10 players, the
//! largest hand the deck can deal, every house rule alone and all at once,
//! every rule set, a small and the default `max_turns`), each round is won,
//! blocked or truncated within a fixed number of engine steps (events).
//!
//! A runaway loop inside a round shows up here as a round that exceeds its
//! step budget (the recorder fails the test at once), not as a hang.

use unolab::agents::{parse_list, Seat};
use unolab::engine::game::{game_rngs, Agents, Event, Game, Outcome, Recorder};
use unolab::engine::rules::{RuleSetFile, Rules, BUILTIN_NAMES};

/// Counts the events of the current round and fails past the budget.
struct StepBudget {
    limit: u64,
    steps: u64,
    outcomes: [u64; 3],
    context: String,
}

impl Recorder for StepBudget {
    fn on(&mut self, _: &Game, e: Event<'_>) {
        if let Event::Deal { .. } = e {
            self.steps = 0;
        }
        self.steps += 1;
        if self.steps > self.limit {
            panic!(
                "{}: a round took more than {} engine steps (last event {e:?})",
                self.context, self.limit
            );
        }
    }
}

const HOUSE: [&str; 9] = [
    "",
    "stacking=same",
    "stacking=cross",
    "draw_to_match",
    "force_play",
    "seven_o",
    "jump_in",
    "bluff_challenge",
    "stacking=cross,seven_o,jump_in,bluff_challenge,draw_to_match,force_play",
];

/// Plays `rounds` rounds (single-round matches) of each line-up and returns
/// the outcome counts; fails if a round exceeds its step budget.
fn play(rules: &Rules, players: usize, rounds: u64, seed: u64, context: &str) -> [u64; 3] {
    let s = &rules.settings;
    // Per turn: at most the whole deck drawn (draw-to-match, a stack, an
    // Ohana fill) plus a bounded number of other events; at most
    // 2 x max_turns + 1 turns and lost turns, and max_turns + deck size
    // jump-ins.
    let per_turn = 3 * rules.deck.size as u64 + 64;
    let limit = (3 * s.max_turns as u64 + rules.deck.size as u64 + 2) * per_turn;
    let specs = parse_list("random,first,points,color,cautious,forgetful").unwrap();
    let mut rec = StepBudget {
        limit,
        steps: 0,
        outcomes: [0; 3],
        context: String::new(),
    };
    for i in 0..rounds {
        let mut seats: Vec<Seat> = (0..players)
            .map(|k| specs[(k + i as usize) % specs.len()].instantiate())
            .collect();
        let (t, a) = game_rngs(seed, i);
        let mut game = Game::with_rng(rules, players, t);
        game.set_lazy_pile(i % 2 == 0);
        let mut agents = Agents {
            seats: &mut seats,
            rng: a,
        };
        rec.context = format!("{context}, round {i}");
        game.start_match(None);
        let r = game
            .play_round(&mut agents, &mut rec)
            .expect("non-strict rules never stop");
        rec.outcomes[match r.outcome {
            Outcome::Won => 0,
            Outcome::Blocked => 1,
            Outcome::Truncated => 2,
        }] += 1;
    }
    rec.outcomes
}

fn rules_with(name: &str, sets: &[String], house: &str) -> Rules {
    let house: Vec<String> = if house.is_empty() {
        vec![]
    } else {
        vec![house.to_string()]
    };
    Rules::build(RuleSetFile::resolve(name, sets, &house).unwrap()).unwrap()
}

/// The largest hand size the deck can deal to `players` (players x hand + 1
/// cards must fit).
fn largest_hand(name: &str, players: usize) -> u32 {
    let size = Rules::load(name).unwrap().deck.size;
    ((size - 1) / players) as u32
}

#[test]
fn rounds_end_at_the_largest_hands_with_every_house_rule() {
    let mut total = [0u64; 3];
    for name in BUILTIN_NAMES {
        for players in [2usize, 3, 10] {
            let hand = largest_hand(name, players);
            for (k, house) in HOUSE.iter().enumerate() {
                for max_turns in [20u32, 10_000] {
                    let sets = vec![
                        format!("hand_size={hand}"),
                        format!("max_turns={max_turns}"),
                    ];
                    let rules = rules_with(name, &sets, house);
                    let ctx =
                        format!("{name} {players}p hand {hand} [{house}] max_turns {max_turns}");
                    let o = play(&rules, players, 40, 1000 + k as u64, &ctx);
                    for j in 0..3 {
                        total[j] += o[j];
                    }
                }
            }
        }
    }
    // Every round ended; won and truncated rounds both occur at these extremes
    // (blocked rounds need a deck that cannot match itself: tests/suite/invariants.rs).
    let combos = BUILTIN_NAMES.len() as u64 * 3 * HOUSE.len() as u64 * 2;
    assert_eq!(total.iter().sum::<u64>(), combos * 40, "outcomes {total:?}");
    assert!(total[0] > 0 && total[2] > 0, "outcomes {total:?}");
}

#[test]
fn the_hanging_deals_of_the_report_end() {
    // The three commands of the report that never finished: the draw pile
    // left after the deal holds only Wild Draw Four (or Downpour) cards.
    for (name, players, hand) in [
        ("lilo-stitch", 10, 11),
        ("cars3", 3, 37),
        ("classic", 2, 53),
    ] {
        for quick in [false, true] {
            let sets = vec![format!("hand_size={hand}"), format!("quick={quick}")];
            let rules = rules_with(name, &sets, "");
            let ctx = format!("{name} {players}p hand {hand}");
            let o = play(&rules, players, 3000, 816, &ctx);
            assert_eq!(o.iter().sum::<u64>(), 3000);
        }
    }
}

#[test]
fn default_hands_with_every_house_rule_and_ten_players() {
    for name in BUILTIN_NAMES {
        for (k, house) in HOUSE.iter().enumerate() {
            let rules = rules_with(name, &[], house);
            let ctx = format!("{name} 10p [{house}]");
            let o = play(&rules, 10, 100, 77 + k as u64, &ctx);
            assert_eq!(o.iter().sum::<u64>(), 100);
        }
    }
}
