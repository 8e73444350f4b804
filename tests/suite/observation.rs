//! What a strategy sees, and determinization for search agents.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use unolab::agents::{RandomStrategy, Seat};
use unolab::engine::game::{game_rngs, Agents, Game, NoRecord, Observation};
use unolab::engine::rules::RuleSetFile;
use unolab::Strategy;
use unolab::{CardSet, Rng, RoundResult, Rules};

/// Plays one round of game 0 of `seed` at a table of `seats`.
fn play_one_round(rules: &Rules, seats: &mut [Seat], seed: u64, dealer: Option<u8>) -> RoundResult {
    let (t, a) = game_rngs(seed, 0);
    let mut g = Game::with_rng(rules, seats.len(), t);
    g.start_match(dealer);
    g.play_round(&mut Agents { seats, rng: a }, &mut NoRecord)
        .unwrap()
}

/// Plays like `random` and, at every decision, checks the observation against
/// a determinized full state built from it.
struct Checker {
    inner: RandomStrategy,
    checks: u32,
    seen_other_cards: CardSet,
}

impl Strategy for Checker {
    fn name(&self) -> &str {
        "checker"
    }
    fn choose_play(&mut self, obs: &Observation, playable: CardSet, rng: &mut Rng) -> Option<u8> {
        assert_eq!(playable, obs.playable());
        assert!((playable - obs.hand()).is_empty());
        let g = Game::determinize(obs, rng);
        let me = obs.seat() as usize;
        assert_eq!(g.hand(me), obs.hand(), "own hand kept");
        assert_eq!(g.discard(), obs.discard(), "discard pile kept");
        assert_eq!(g.top(), obs.top());
        assert_eq!(g.color(), obs.color());
        assert_eq!(g.direction(), obs.direction());
        assert_eq!(g.draw_pile_len(), obs.draw_pile_len());
        let unseen = g.rules().deck.all - obs.hand() - obs.discard();
        let mut others = CardSet::EMPTY;
        for s in 0..obs.players() {
            assert_eq!(
                g.hand(s).len() as usize,
                obs.hand_size(s),
                "hand sizes kept"
            );
            if s != me {
                assert!(
                    (g.hand(s) - unseen).is_empty(),
                    "other hands come from unseen cards"
                );
                others |= g.hand(s);
            }
        }
        g.check_conservation().unwrap();
        self.seen_other_cards |= others;
        self.checks += 1;
        self.inner.choose_play(obs, playable, rng)
    }
}

#[test]
fn determinized_states_agree_with_the_observation() {
    let rules = Rules::builtin("classic");
    let mut total = 0;
    for seed in 0..20u64 {
        let mut seats: Vec<Seat> = (0..3)
            .map(|_| {
                Seat::custom(Checker {
                    inner: RandomStrategy,
                    checks: 0,
                    seen_other_cards: CardSet::EMPTY,
                })
            })
            .collect();
        play_one_round(&rules, &mut seats, seed, None);
        total += 1;
    }
    assert_eq!(total, 20);
}

#[test]
fn the_offered_cards_are_the_observations_under_wild_when_matching_false() {
    // The turn logic's mask (compiled for house rules) and the observation's
    // agree, and a wild other than Wild Draw Four is offered only to a hand
    // without a coloured card of the active colour or the top's face.
    struct Offers {
        inner: RandomStrategy,
        wilds_offered: Arc<AtomicU32>,
    }
    impl Strategy for Offers {
        fn name(&self) -> &str {
            "offers"
        }
        fn choose_play(
            &mut self,
            obs: &Observation,
            playable: CardSet,
            rng: &mut Rng,
        ) -> Option<u8> {
            assert_eq!(playable, obs.playable());
            let d = &obs.rules().deck;
            if !(playable & (d.wild - d.wd4)).is_empty() {
                self.wilds_offered.fetch_add(1, Ordering::Relaxed);
                let top = d.kind(obs.top());
                for c in obs.hand().iter() {
                    let k = d.kind(c);
                    assert!(
                        k.color.is_none() || (k.color != Some(obs.color()) && k.face != top.face),
                        "a wild offered beside the matching {}",
                        d.token(c)
                    );
                }
            }
            self.inner.choose_play(obs, playable, rng)
        }
    }
    for name in ["classic", "h2o", "lilo-stitch", "cars3"] {
        let mut f = RuleSetFile::load(name).unwrap();
        f.apply_set("wild_when_matching=false").unwrap();
        let rules = Rules::build(f).unwrap();
        let offered = Arc::new(AtomicU32::new(0));
        for seed in 0..30u64 {
            let mut seats: Vec<Seat> = (0..3)
                .map(|_| {
                    Seat::custom(Offers {
                        inner: RandomStrategy,
                        wilds_offered: offered.clone(),
                    })
                })
                .collect();
            play_one_round(&rules, &mut seats, seed, None);
        }
        assert!(
            offered.load(Ordering::Relaxed) > 0,
            "{name}: no wild was ever offered"
        );
    }
}

#[test]
fn determinization_samples_different_hidden_hands() {
    // Two samples from the same observation differ (the hidden cards are
    // resampled), while the observer's hand is the same.
    use std::sync::{Arc, Mutex};
    type Samples = Arc<Mutex<Vec<(CardSet, CardSet, CardSet, CardSet)>>>;
    struct Twice(Samples);
    impl Strategy for Twice {
        fn name(&self) -> &str {
            "twice"
        }
        fn choose_play(
            &mut self,
            obs: &Observation,
            playable: CardSet,
            rng: &mut Rng,
        ) -> Option<u8> {
            let a = Game::determinize(obs, rng);
            let b = Game::determinize(obs, rng);
            let me = obs.seat() as usize;
            let other = obs.seat_after(1) as usize;
            self.0
                .lock()
                .unwrap()
                .push((a.hand(me), b.hand(me), a.hand(other), b.hand(other)));
            playable.first()
        }
    }
    let samples: Samples = Arc::new(Mutex::new(Vec::new()));
    let rules = Rules::builtin("classic");
    let mut seats = vec![
        Seat::custom(Twice(samples.clone())),
        Seat::custom(Twice(samples.clone())),
    ];
    play_one_round(&rules, &mut seats, 1, Some(1));
    let samples = samples.lock().unwrap();
    assert!(samples.len() > 5);
    let mut differ = 0;
    for (me_a, me_b, other_a, other_b) in samples.iter() {
        assert_eq!(me_a, me_b, "the observer's own hand never changes");
        assert_eq!(other_a.len(), other_b.len());
        differ += (other_a != other_b) as usize;
    }
    // Hidden hands of several cards drawn from about 90 unseen cards: two
    // samples coincide only when the hidden hand is tiny.
    assert!(
        differ * 10 >= samples.len() * 9,
        "{differ} of {}",
        samples.len()
    );
}

#[test]
fn strategies_are_asked_without_a_choice_only_if_they_want_to_be() {
    // Counts the calls of `choose_play` with nothing playable. The default
    // asks on every turn; `ask_without_choice() == false` skips exactly those
    // calls, and the rounds play out the same (the random choice draws no
    // number when nothing is playable).
    use std::sync::atomic::{AtomicU32, Ordering};
    use std::sync::Arc;
    struct Counting {
        ask: bool,
        calls: Arc<AtomicU32>,
        empty: Arc<AtomicU32>,
    }
    impl Strategy for Counting {
        fn name(&self) -> &str {
            "counting"
        }
        fn ask_without_choice(&self) -> bool {
            self.ask
        }
        fn choose_play(
            &mut self,
            obs: &Observation,
            playable: CardSet,
            rng: &mut Rng,
        ) -> Option<u8> {
            self.calls.fetch_add(1, Ordering::Relaxed);
            if playable.is_empty() {
                self.empty.fetch_add(1, Ordering::Relaxed);
            }
            RandomStrategy.choose_play(obs, playable, rng)
        }
    }
    let rules = Rules::builtin("classic");
    let play = |ask: bool| {
        let calls = Arc::new(AtomicU32::new(0));
        let empty = Arc::new(AtomicU32::new(0));
        let mut results = Vec::new();
        for seed in 0..30u64 {
            let mut seats: Vec<Seat> = (0..3)
                .map(|_| {
                    Seat::custom(Counting {
                        ask,
                        calls: calls.clone(),
                        empty: empty.clone(),
                    })
                })
                .collect();
            results.push(play_one_round(&rules, &mut seats, seed, Some(0)));
        }
        let (calls, empty) = (calls.load(Ordering::Relaxed), empty.load(Ordering::Relaxed));
        (results, calls, empty)
    };
    let (asked, asked_calls, asked_empty) = play(true);
    let (skipped, skipped_calls, skipped_empty) = play(false);
    assert!(asked_empty > 100, "turns with nothing playable were asked");
    assert_eq!(skipped_empty, 0, "never asked without a choice");
    assert_eq!(
        asked_calls - asked_empty,
        skipped_calls,
        "every real choice still asked"
    );
    assert_eq!(asked, skipped, "the rounds are the same");
}

/// Plays like `random`; at every colour choice keeps the features of what it
/// sees (the network strategy's input).
struct ColorSpy {
    seen: Arc<std::sync::Mutex<Vec<Vec<f32>>>>,
}

impl Strategy for ColorSpy {
    fn name(&self) -> &str {
        "color-spy"
    }
    fn choose_play(&mut self, obs: &Observation, playable: CardSet, rng: &mut Rng) -> Option<u8> {
        RandomStrategy.choose_play(obs, playable, rng)
    }
    fn choose_color(&mut self, obs: &Observation, _rng: &mut Rng) -> unolab::Color {
        use unolab::engine::encode::{encode, DecisionKind, OBS_LEN};
        let mut x = vec![0f32; OBS_LEN];
        encode(obs, DecisionKind::Color, None, &mut x);
        self.seen.lock().unwrap().push(x);
        unolab::Color::Blue
    }
}

/// A scripted deck for 3 players of 7 cards whose start card is a plain
/// wild: the wild, and the deck's order.
fn start_wild_deck(rules: &Rules) -> (u8, Vec<u8>) {
    let d = &rules.deck;
    let wild = (d.wild - d.wd4).first().unwrap();
    let order = (d.all - CardSet::single(wild))
        .iter()
        .take(21)
        .chain([wild])
        .collect();
    (wild, order)
}

#[test]
fn a_start_wild_is_named_from_the_same_view_whatever_the_table_played_before() {
    // The runners reuse one table for many games, and which games a table
    // plays in a row depends on the threads: a deal must not show a seat
    // anything of the round before (here the colour left active, which the
    // seat naming a start wild saw, and the network strategy reads).
    let rules = Rules::builtin("classic");
    let (wild, order) = start_wild_deck(&rules);
    // The view of the start wild's chooser on a fresh table.
    let start_view = |g: &mut Game, seed: u64| -> Vec<f32> {
        g.start_match(Some(0));
        g.script_deck(&order);
        let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
        let mut seats: Vec<Seat> = (0..3)
            .map(|_| Seat::custom(ColorSpy { seen: seen.clone() }))
            .collect();
        let rng = <Rng as rand::SeedableRng>::seed_from_u64(seed);
        g.begin_round(
            &mut Agents {
                seats: &mut seats,
                rng,
            },
            &mut NoRecord,
        );
        assert_eq!(g.top(), wild);
        let mut views = std::mem::take(&mut *seen.lock().unwrap());
        assert_eq!(views.len(), 1, "one start colour asked");
        views.pop().unwrap()
    };
    let fresh = start_view(&mut Game::new(&rules, 3, 0), 0);
    let mut other_colour = 0;
    for seed in 0..16 {
        let (t, a) = game_rngs(seed, 0);
        let mut g = Game::with_rng(&rules, 3, t);
        g.start_match(None);
        let mut seats: Vec<Seat> = (0..3).map(|_| Seat::Random(RandomStrategy)).collect();
        g.play_round(
            &mut Agents {
                seats: &mut seats,
                rng: a,
            },
            &mut NoRecord,
        )
        .unwrap();
        other_colour += (g.color() != unolab::Color::Red) as u32;
        assert_eq!(start_view(&mut g, 0), fresh, "after round {seed}");
    }
    assert!(other_colour > 0, "some round left another colour active");
}

/// A decision's kind, the colour a player would call active then
/// ([`Observation::named_color`]) and the turn.
type Seen = (&'static str, Option<unolab::Color>, u32);

/// Records [`Seen`] at each decision.
struct Named {
    seen: Arc<std::sync::Mutex<Vec<Seen>>>,
}

impl Strategy for Named {
    fn name(&self) -> &str {
        "named"
    }
    fn choose_play(&mut self, obs: &Observation, playable: CardSet, rng: &mut Rng) -> Option<u8> {
        let seen = (obs.named_color(), obs.turns());
        self.seen.lock().unwrap().push(("play", seen.0, seen.1));
        RandomStrategy.choose_play(obs, playable, rng)
    }
    fn choose_color(&mut self, obs: &Observation, _rng: &mut Rng) -> unolab::Color {
        let seen = (obs.named_color(), obs.turns());
        self.seen.lock().unwrap().push(("color", seen.0, seen.1));
        unolab::Color::Blue
    }
}

#[test]
fn the_colour_is_unnamed_only_while_a_start_wild_is_named() {
    // The table holds its starting colour (red) then, which the features
    // encode; `render` and Python's `Observation.color` say none is named.
    let rules = Rules::builtin("classic");
    let (wild, order) = start_wild_deck(&rules);
    let mut g = Game::new(&rules, 3, 0);
    g.start_match(Some(0));
    g.script_deck(&order);
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let mut seats: Vec<Seat> = (0..3)
        .map(|_| Seat::custom(Named { seen: seen.clone() }))
        .collect();
    g.play_round(
        &mut Agents {
            seats: &mut seats,
            rng: <Rng as rand::SeedableRng>::seed_from_u64(1),
        },
        &mut NoRecord,
    )
    .unwrap();
    let seen = seen.lock().unwrap();
    assert_eq!(seen[0], ("color", None, 0), "{seen:?}");
    assert_eq!(g.rules().deck.color(wild), None);
    assert_eq!(seen[1], ("play", Some(unolab::Color::Blue), 1), "{seen:?}");
    assert!(seen.len() > 2);
    assert!(
        seen[1..].iter().all(|s| s.1.is_some() && s.2 > 0),
        "{seen:?}"
    );
}
