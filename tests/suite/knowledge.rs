//! What the table revealed (docs/agents.md, "What the table revealed"): the
//! cards a player knows to be in another hand after a swap, a seven-o
//! rotation or a challenge, the public notes left by a draw under
//! `force_play` or `may_draw_when_playable = false`, a Wild Draw Four under
//! the colour restriction or an innocent verdict, and a reshuffle that
//! forgets. Each scripted deal is played turn by turn; at the point of
//! interest every observer's [`Observation`] is read and its informed
//! determinizations (`Game::determinize_informed`) are checked, many times,
//! against what it knows. The uniform determinization breaks the same checks
//! (so the checks can fail).

use crate::common;

use crate::common::{deck_order, kind, rules, tokens};
use rand::{Rng as _, SeedableRng};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use unolab::agents::search::{HandChain, OpponentModel, TableTurns};
use unolab::agents::Seat;
use unolab::agents::StrategySpec;
use unolab::engine::game::{
    Agents, Game, Knowledge, LastTurn, NoRecord, TurnEnd, MAX_PLAYERS, MAX_TURNS,
};
use unolab::engine::strategy::{fewest_cards_opponent, most_held_color, Tracking};
use unolab::sim::{run, RunConfig};
use unolab::{CardId, CardSet, Color, Observation, Rng, Rules, Strategy};

/// What a seat does, decision by decision. A play is asked of it only when
/// it holds a playable card (`None`: draw); once the list is empty it draws.
#[derive(Default, Clone)]
struct Moves {
    /// What the seat asks the game to note (`None`: `Tracking::Facts`).
    tracking: Option<Tracking>,
    plays: VecDeque<Option<&'static str>>,
    colors: VecDeque<&'static str>,
    targets: VecDeque<u8>,
    challenges: VecDeque<bool>,
}

fn moves() -> Moves {
    Moves::default()
}

impl Moves {
    fn play(mut self, tok: &'static str) -> Self {
        self.plays.push_back(Some(tok));
        self
    }
    fn draw(mut self) -> Self {
        self.plays.push_back(None);
        self
    }
    fn color(mut self, c: &'static str) -> Self {
        self.colors.push_back(c);
        self
    }
    fn target(mut self, t: u8) -> Self {
        self.targets.push_back(t);
        self
    }
    fn challenge(mut self, yes: bool) -> Self {
        self.challenges.push_back(yes);
        self
    }
    fn tracking(mut self, t: Tracking) -> Self {
        self.tracking = Some(t);
        self
    }
}

struct Follow(Moves);

impl Strategy for Follow {
    fn name(&self) -> &str {
        "follow"
    }
    fn choose_play(&mut self, obs: &Observation, playable: CardSet, _: &mut Rng) -> Option<CardId> {
        if playable.is_empty() {
            return None;
        }
        let tok = self.0.plays.pop_front()??;
        // "^TOKEN": the copy of the token with the highest id (the plain
        // token plays the lowest).
        let (tok, last) = match tok.strip_prefix('^') {
            Some(t) => (t, true),
            None => (tok, false),
        };
        let copies = obs.rules().deck.all_of(kind(tok)) & playable;
        let c = if last {
            copies.iter().last()
        } else {
            copies.first()
        }
        .unwrap_or_else(|| panic!("seat {}: {tok} is not playable", obs.seat()));
        Some(c)
    }
    fn play_drawn(&mut self, _: &Observation, _: CardId, _: &mut Rng) -> bool {
        false
    }
    fn choose_color(&mut self, obs: &Observation, _: &mut Rng) -> Color {
        match self.0.colors.pop_front() {
            Some(c) => c.parse().unwrap(),
            None => most_held_color(obs),
        }
    }
    fn choose_target(&mut self, obs: &Observation, _: &mut Rng) -> u8 {
        self.0
            .targets
            .pop_front()
            .unwrap_or_else(|| fewest_cards_opponent(obs))
    }
    fn challenge(&mut self, _: &Observation, _: &mut Rng) -> bool {
        self.0.challenges.pop_front().unwrap_or(false)
    }
    fn notes(&self) -> Tracking {
        self.0.tracking.unwrap_or(Tracking::Facts)
    }
}

/// A scripted round played turn by turn.
struct Drive<'r> {
    g: Game<'r>,
    seats: Vec<Seat>,
    rng: Rng,
    cur: u8,
}

impl<'r> Drive<'r> {
    fn new(
        rules: &'r Rules,
        dealer: u8,
        hands: &[&[&str]],
        start: &str,
        pile: &[&str],
        moves: Vec<Moves>,
        seed: u64,
    ) -> Drive<'r> {
        let n = hands.len();
        let order = deck_order(rules, dealer, hands, &[start], pile);
        let mut g = Game::new(rules, n, seed);
        g.start_match(Some(dealer));
        g.script_deck(&order);
        let mut seats: Vec<Seat> = moves.into_iter().map(|m| Seat::custom(Follow(m))).collect();
        let mut agents = Agents {
            seats: &mut seats,
            rng: Rng::seed_from_u64(seed),
        };
        let start = g.begin_round(&mut agents, &mut NoRecord);
        let rng = agents.rng;
        Drive {
            g,
            seats,
            rng,
            cur: start.first_player,
        }
    }

    /// Plays `k` turns.
    fn turns(&mut self, k: usize) {
        for _ in 0..k {
            let rng = std::mem::replace(&mut self.rng, Rng::seed_from_u64(0));
            let mut agents = Agents {
                seats: &mut self.seats,
                rng,
            };
            match self.g.play_turn(self.cur, &mut agents, &mut NoRecord) {
                TurnEnd::Next(next) => self.cur = next,
                TurnEnd::Over(o, _) => panic!("the round ended: {o:?}"),
            }
            self.rng = agents.rng;
            self.g.check_conservation().unwrap();
        }
    }

    fn obs(&self, seat: u8) -> Observation<'_> {
        Observation::of(&self.g, seat)
    }

    fn set(&self, toks: &[&str]) -> CardSet {
        let d = &self.g.rules().deck;
        let mut s = CardSet::EMPTY;
        for t in toks {
            let held = self.g.hands().iter().fold(CardSet::EMPTY, |u, &h| u | h);
            let c = (d.all_of(kind(t)) & held)
                .first()
                .unwrap_or_else(|| panic!("{t} is in no hand"));
            s.insert(c);
        }
        s
    }

    fn hand(&self, seat: usize) -> CardSet {
        self.g.hand(seat)
    }
}

/// `n` informed determinizations for `observer`, each checked for
/// conservation and against the observation (sizes, own hand, discard).
fn informed(d: &Drive, observer: u8, n: usize) -> Vec<Vec<CardSet>> {
    let obs = d.obs(observer);
    let know = Knowledge::of(&obs);
    let mut rng = Rng::seed_from_u64(99);
    (0..n)
        .map(|_| {
            let g = Game::determinize_informed(&obs, &know, &mut rng);
            check_deal(&obs, &g);
            g.hands().to_vec()
        })
        .collect()
}

fn uniform(d: &Drive, observer: u8, n: usize) -> Vec<Vec<CardSet>> {
    let obs = d.obs(observer);
    let mut rng = Rng::seed_from_u64(99);
    (0..n)
        .map(|_| Game::determinize(&obs, &mut rng).hands().to_vec())
        .collect()
}

fn check_deal(obs: &Observation, g: &Game) {
    g.check_conservation().unwrap();
    assert_eq!(g.hand(obs.seat() as usize), obs.hand());
    assert_eq!(g.discard(), obs.discard());
    assert_eq!(g.draw_pile_len(), obs.draw_pile_len());
    for s in 0..obs.players() {
        assert_eq!(
            g.hand(s).len() as usize,
            obs.hand_size(s),
            "size of hand {s}"
        );
    }
}

const N: usize = 300;

/// Every deal puts `cards` in hand `holder`; `expect_uniform_misses`: the
/// uniform determinization does not always.
#[track_caller]
fn always_in(d: &Drive, observer: u8, holder: usize, cards: CardSet) {
    assert!(!cards.is_empty());
    for deal in informed(d, observer, N) {
        assert!(
            (cards - deal[holder]).is_empty(),
            "observer {observer}: hand {holder} lacks known cards {:?}",
            tokens(d.g.rules(), cards - deal[holder])
        );
    }
    let misses = uniform(d, observer, N)
        .iter()
        .filter(|deal| !(cards - deal[holder]).is_empty())
        .count();
    assert!(misses > 0, "the uniform deal always placed them too");
}

/// Seven-o at 3 players: seat 0 swaps with seat 1 at its first turn, and
/// with seat 2 at its second.
fn seven_o_swaps(r: &Rules) -> Drive<'_> {
    Drive::new(
        r,
        2,
        &[
            &["red-7", "red-1", "yellow-7", "blue-4"],
            &["red-7", "blue-1", "blue-2", "blue-3"],
            &["red-9", "green-2", "green-3", "green-4"],
        ],
        "red-5",
        &["yellow-1", "yellow-2", "yellow-3", "yellow-4"],
        vec![
            moves().play("red-7").target(1).play("red-7").target(2),
            moves().play("red-1"),
            moves().play("red-9"),
        ],
        1,
    )
}

#[test]
fn after_seven_o_swaps_the_known_cards_are_in_the_right_hands() {
    let r = rules("classic", &["hand_size=4", "seven_o=true"]);
    let mut d = seven_o_swaps(&r);
    // Seat 0 swaps with seat 1.
    d.turns(1);
    let given = d.set(&["red-1", "yellow-7", "blue-4"]);
    assert_eq!(d.hand(1), given);
    assert_eq!(
        d.obs(0).known_in(1),
        given,
        "the swapper knows its old hand"
    );
    assert_eq!(d.obs(1).known_in(0), d.hand(0), "the other side too");
    assert!(d.obs(2).known_in(0).is_empty() && d.obs(2).known_in(1).is_empty());
    always_in(&d, 0, 1, given);
    always_in(&d, 1, 0, d.hand(0));
    // Seat 1 plays red-1 (now on the discard pile), seat 2 plays, seat 0
    // swaps seat 1's old hand on to seat 2.
    let old1 = d.set(&["blue-1", "blue-2", "blue-3"]);
    d.turns(3);
    assert_eq!(d.hand(2), old1);
    assert_eq!(
        d.obs(1).known_in(2),
        old1,
        "a third party's knowledge moves with the hand"
    );
    assert!(d.obs(1).known_in(0).is_empty());
    assert_eq!(d.obs(0).known_in(2), old1);
    assert_eq!(
        d.obs(0).known_in(1),
        d.set(&["yellow-7", "blue-4"]),
        "a played card leaves"
    );
    assert_eq!(d.obs(2).known_in(0), d.hand(0));
    assert!(d.obs(2).known_in(1).is_empty());
    always_in(&d, 1, 2, old1);
    always_in(&d, 0, 2, old1);
    always_in(&d, 0, 1, d.set(&["yellow-7", "blue-4"]));
    always_in(&d, 2, 0, d.hand(0));
}

/// The known-cards section of the network features
/// ([`unolab::engine::encode::encode_known`]): what each seat knows of the
/// hand `k` places after it, counted by colour (red, yellow, green, blue,
/// wild), the same cards as `known_in`; zeros for a hand it knows nothing
/// of and past the table. A network that reads the section sees it
/// ([`NetStrategy::logits_for`]).
#[test]
fn the_known_cards_section_counts_what_each_seat_knows_by_colour() {
    use std::sync::Arc;
    use unolab::agents::net::{Layer, NetParams, NetSpec, NetStrategy, NetWeights};
    use unolab::engine::encode::{
        encode_known, ActionSet, DecisionKind, ACTIONS, ACT_COLOR, KNOWN_CLASSES, KNOWN_LEN,
        OBS_LEN, OBS_LEN_KNOWN,
    };
    let r = rules("classic", &["hand_size=4", "seven_o=true"]);
    let mut d = seven_o_swaps(&r);
    // The section `seat` sees, and the one expected from (holder, counts).
    let section = |d: &Drive, seat: u8| {
        let mut x = vec![f32::NAN; KNOWN_LEN];
        encode_known(&d.obs(seat), &mut x);
        x
    };
    let expect = |d: &Drive, seat: u8, known: &[(u8, [f32; KNOWN_CLASSES])]| {
        let mut x = vec![0f32; KNOWN_LEN];
        for &(holder, counts) in known {
            let k = (1..3)
                .find(|&k| d.obs(seat).seat_after(k) == holder)
                .unwrap() as usize;
            x[(k - 1) * KNOWN_CLASSES..k * KNOWN_CLASSES].copy_from_slice(&counts);
        }
        x
    };
    d.turns(1);
    // Seat 0 gave red-1, yellow-7, blue-4 to seat 1 and holds seat 1's old
    // hand, red-7 and three blues.
    assert_eq!(section(&d, 0), expect(&d, 0, &[(1, [1., 1., 0., 1., 0.])]));
    assert_eq!(section(&d, 1), expect(&d, 1, &[(0, [1., 0., 0., 3., 0.])]));
    assert_eq!(section(&d, 2), vec![0f32; KNOWN_LEN], "seat 2 saw nothing");
    // A network whose "name blue" logit is the blue cards its seat knows in
    // the hand of the seat after it (one layer, one weight).
    let mut weight = vec![0f32; ACTIONS * OBS_LEN_KNOWN];
    weight[(ACT_COLOR + 3) * OBS_LEN_KNOWN + OBS_LEN + 3] = 1.0;
    let spec = NetSpec {
        name: "reads-known".into(),
        params: NetParams {
            weights: String::new(),
            temperature: 0.0,
            digest: String::new(),
        },
        weights: Arc::new(
            NetWeights::new(vec![Layer {
                inputs: OBS_LEN_KNOWN,
                outputs: ACTIONS,
                weight,
                bias: vec![0.0; ACTIONS],
            }])
            .unwrap(),
        ),
    };
    let mut colours = ActionSet::default();
    for a in ACT_COLOR..ACT_COLOR + 4 {
        colours.insert(a);
    }
    let blue_after = |d: &Drive, seat: u8| {
        let mut net = NetStrategy::new(&spec);
        net.logits_for(&d.obs(seat), DecisionKind::Color, None, colours)[ACT_COLOR + 3]
    };
    let after = |d: &Drive, seat: u8| d.obs(seat).seat_after(1);
    assert_eq!(after(&d, 0), 1);
    assert_eq!(blue_after(&d, 0), 1.0, "blue-4, given to seat 1");
    assert_eq!(blue_after(&d, 2), 0.0, "seat 2 knows nothing of seat 0");
    // Seat 1 plays red-1, seat 2 plays, seat 0 swaps with seat 2.
    d.turns(3);
    assert_eq!(
        section(&d, 0),
        expect(
            &d,
            0,
            &[(1, [0., 1., 0., 1., 0.]), (2, [0., 0., 0., 3., 0.])]
        ),
        "a played card leaves; the hand given on to seat 2 is known there"
    );
    assert_eq!(section(&d, 1), expect(&d, 1, &[(2, [0., 0., 0., 3., 0.])]));
    assert_eq!(blue_after(&d, 1), 3.0, "seat 1's old blues, now at seat 2");
}

#[test]
fn after_a_wild_swap_both_sides_know_the_hands() {
    let r = rules("cars3", &["hand_size=3"]);
    let mut d = Drive::new(
        &r,
        2,
        &[
            &["wild-swap", "red-1", "red-2"],
            &["blue-1", "blue-2", "blue-3"],
            &["green-1", "green-2", "green-3"],
        ],
        "red-5",
        &["yellow-7"],
        vec![
            moves().play("wild-swap").color("green").target(2),
            moves(),
            moves(),
        ],
        1,
    );
    d.turns(1);
    assert_eq!(d.obs(0).known_in(2), d.set(&["red-1", "red-2"]));
    assert_eq!(
        d.obs(2).known_in(0),
        d.set(&["green-1", "green-2", "green-3"])
    );
    assert!(d.obs(1).known_in(0).is_empty() && d.obs(1).known_in(2).is_empty());
    always_in(&d, 0, 2, d.set(&["red-1", "red-2"]));
    always_in(&d, 2, 0, d.hand(0));
}

#[test]
fn after_a_rotation_each_player_knows_the_next_holds_its_old_hand() {
    let r = rules("classic", &["hand_size=3", "seven_o=true"]);
    let mut d = Drive::new(
        &r,
        2,
        &[
            &["red-0", "red-1", "blue-1"],
            &["green-1", "green-2", "green-3"],
            &["yellow-1", "yellow-2", "yellow-3"],
        ],
        "red-5",
        &[],
        vec![moves().play("red-0"), moves(), moves()],
        1,
    );
    d.turns(1);
    let (h0, h1, h2) = (
        d.set(&["yellow-1", "yellow-2", "yellow-3"]),
        d.set(&["red-1", "blue-1"]),
        d.set(&["green-1", "green-2", "green-3"]),
    );
    assert_eq!((d.hand(0), d.hand(1), d.hand(2)), (h0, h1, h2));
    assert_eq!(d.obs(0).known_in(1), h1);
    assert_eq!(d.obs(1).known_in(2), h2);
    assert_eq!(d.obs(2).known_in(0), h0);
    assert!(d.obs(0).known_in(2).is_empty());
    always_in(&d, 0, 1, h1);
    always_in(&d, 1, 2, h2);
    always_in(&d, 2, 0, h0);
}

#[test]
fn a_challenger_saw_the_challenged_hand() {
    let r = rules("classic", &["hand_size=3", "bluff_challenge=true"]);
    let mut d = Drive::new(
        &r,
        2,
        &[
            &["wild-draw4", "red-1", "blue-1"],
            &["green-1", "green-2", "green-3"],
            &["yellow-1", "yellow-2", "yellow-3"],
        ],
        "red-5",
        &["blue-5", "blue-6", "blue-7", "blue-8"],
        vec![
            moves().play("wild-draw4").color("blue"),
            moves().challenge(true),
            moves(),
        ],
        1,
    );
    // The bluff (seat 0 held red-1) is challenged: seat 0 draws the 4.
    d.turns(2);
    let seen = d.set(&["red-1", "blue-1"]);
    assert_eq!(d.hand(0).len(), 6);
    assert_eq!(d.obs(1).known_in(0), seen, "the challenger saw the hand");
    assert!(d.obs(2).known_in(0).is_empty(), "nobody else did");
    always_in(&d, 1, 0, seen);
}

/// A copy of a card the challenger saw, played from a hand that also held
/// an identical copy drawn unseen: the challenger cannot tell which was
/// played, so it no longer knows that hand holds one. (It went on knowing
/// the copy it saw, which was still there: that the player still held a
/// blue-1, which the table never showed; the ext audit, 2026-12-07.)
#[test]
fn a_seen_card_played_from_a_hand_with_an_unseen_twin_is_no_longer_known() {
    let r = rules("classic", &["hand_size=3", "bluff_challenge=true"]);
    for (play, played_seen) in [("^blue-1", false), ("blue-1", true)] {
        let mut d = Drive::new(
            &r,
            2,
            &[
                &["wild-draw4", "red-1", "blue-1"],
                &["green-1", "green-2", "green-3"],
                &["yellow-1", "yellow-2", "yellow-3"],
            ],
            "red-5",
            // The challenged bluff's 4, then one card each for seats 1 and 2.
            &[
                "blue-1", "blue-6", "blue-7", "blue-8", "green-9", "yellow-9",
            ],
            vec![
                moves().play("wild-draw4").color("blue").play(play),
                moves().challenge(true),
                moves(),
            ],
            1,
        );
        d.turns(2);
        let blue1 = d.g.rules().deck.all_of(kind("blue-1"));
        let seen = d.obs(1).known_in(0);
        assert_eq!(
            seen,
            d.set(&["red-1", "blue-1"]),
            "the challenger saw the hand"
        );
        assert_eq!(
            (d.hand(0) & blue1).len(),
            2,
            "the seen blue-1 and one drawn"
        );
        let seen_copy = (seen & blue1).first().unwrap();
        // Seat 2 draws; seat 0 plays a blue-1 on blue.
        d.turns(2);
        let left = (d.hand(0) & blue1).first().unwrap();
        assert_eq!(left != seen_copy, played_seen, "{play}: the copy played");
        assert_eq!(
            d.obs(1).known_in(0),
            d.set(&["red-1"]),
            "{play}: one blue-1 played, the one seen or not: none known"
        );
        assert!(d.obs(2).known_in(0).is_empty());
        always_in(&d, 1, 0, d.set(&["red-1"]));
    }
}

#[test]
fn an_innocent_verdict_and_the_colour_restriction_are_public_notes() {
    let red_free = |d: &Drive, observer: u8, holder: usize| {
        let red = d.g.rules().deck.color_mask[Color::Red.index()];
        let c = d.obs(observer).constraints(holder);
        assert_eq!(
            c.iter().collect::<Vec<_>>(),
            vec![(red, d.hand(holder).len())],
            "observer {observer}"
        );
        for deal in informed(d, observer, N) {
            assert!(
                (deal[holder] & red).is_empty(),
                "a red card dealt to {holder}"
            );
        }
        let misses = uniform(d, observer, N)
            .iter()
            .filter(|deal| !(deal[holder] & red).is_empty())
            .count();
        assert!(misses > 0);
    };
    // Under bluff_challenge an innocent verdict tells everyone.
    let r = rules("classic", &["hand_size=3", "bluff_challenge=true"]);
    let mut d = Drive::new(
        &r,
        2,
        &[
            &["wild-draw4", "blue-1", "green-9"],
            &["green-1", "green-2", "green-3"],
            &["yellow-1", "yellow-2", "yellow-3"],
        ],
        "red-5",
        &[],
        vec![
            moves().play("wild-draw4").color("blue"),
            moves().challenge(true),
            moves(),
        ],
        1,
    );
    d.turns(1);
    assert!(
        d.obs(2).constraints(0).is_empty(),
        "no note before the verdict"
    );
    d.turns(1);
    assert_eq!(d.hand(1).len(), 9, "the challenger drew 6");
    assert_eq!(d.obs(1).known_in(0), d.hand(0));
    red_free(&d, 2, 0);
    // Under the colour restriction the play itself tells everyone.
    let r = rules("classic", &["hand_size=3"]);
    let mut d = Drive::new(
        &r,
        2,
        &[
            &["wild-draw4", "blue-1", "green-9"],
            &["green-1", "green-2", "green-3"],
            &["yellow-1", "yellow-2", "yellow-3"],
        ],
        "red-5",
        &[],
        vec![moves().play("wild-draw4").color("blue"), moves(), moves()],
        1,
    );
    d.turns(1);
    red_free(&d, 2, 0);
    red_free(&d, 1, 0);
}

/// Heads-up, seat 0 holding red-1, red-2 and red-3, seat 1 blue-4, blue-5
/// and green-6 (nothing playable on red), on red-9; `pile`: the draw pile's
/// top cards.
fn seat_1_without_red<'r>(r: &'r Rules, pile: &[&str]) -> Drive<'r> {
    let hands: &[&[&str]] = &[
        &["red-1", "red-2", "red-3"],
        &["blue-4", "blue-5", "green-6"],
    ];
    let seat0 = moves().play("red-1").play("red-2").play("red-3");
    Drive::new(r, 1, hands, "red-9", pile, vec![seat0, moves()], 1)
}

#[test]
fn after_a_forced_draw_no_deal_gives_that_player_a_card_it_could_have_played() {
    // force_play: seat 0 plays red-1; seat 1, with nothing playable, draws
    // red-8 and plays it at once: all three cards it holds were held at the
    // draw, when red cards, 1s and wilds were playable.
    let r = rules("classic", &["hand_size=3", "force_play=true"]);
    let mut d = seat_1_without_red(&r, &["red-8"]);
    d.turns(1);
    let deck = &d.g.rules().deck;
    let accept = deck.accept_on[d.g.top() as usize];
    assert_eq!(accept.len(), 25 + 6 + 8, "red, the other 1s, the wilds");
    d.turns(1);
    assert_eq!(d.g.top(), deck.all_of(kind("red-8")).first().unwrap());
    assert_eq!(
        d.obs(0).constraints(1).iter().collect::<Vec<_>>(),
        vec![(accept, 3)]
    );
    for deal in informed(&d, 0, N) {
        assert!(
            (deal[1] & accept).is_empty(),
            "a card playable then dealt to seat 1"
        );
    }
    assert!(uniform(&d, 0, N)
        .iter()
        .any(|deal| !(deal[1] & accept).is_empty()));
    // may_draw_when_playable = false: the drawn yellow-4 is not playable and
    // stays; at least three of the four cards were held at the draw.
    let r = rules("classic", &["hand_size=3", "may_draw_when_playable=false"]);
    let mut d = seat_1_without_red(&r, &["yellow-4"]);
    d.turns(2);
    assert_eq!(d.hand(1).len(), 4);
    assert_eq!(
        d.obs(0).constraints(1).iter().collect::<Vec<_>>(),
        vec![(accept, 3)]
    );
    let mut one_in = 0;
    for deal in informed(&d, 0, N) {
        let k = (deal[1] & accept).len();
        assert!(k <= 1, "{k} cards playable then dealt to seat 1");
        one_in += k as usize;
    }
    assert!(one_in > 0, "the drawn card is not constrained");
    // A table where nobody asks for notes takes none.
    let off = || moves().tracking(Tracking::Off);
    let mut d = Drive::new(
        &r,
        1,
        &[
            &["red-1", "red-2", "red-3"],
            &["blue-4", "blue-5", "green-6"],
        ],
        "red-9",
        &["yellow-4"],
        vec![off().play("red-1"), off()],
        1,
    );
    d.turns(2);
    assert!(d.obs(0).notes(1).is_empty());
}

#[test]
fn a_note_moves_with_its_hand() {
    let r = rules(
        "classic",
        &["hand_size=3", "force_play=true", "seven_o=true"],
    );
    let mut d = Drive::new(
        &r,
        2,
        &[
            &["red-1", "blue-8", "blue-9"],
            &["blue-4", "blue-5", "green-6"],
            &["red-7", "yellow-2", "yellow-3"],
        ],
        "red-9",
        &["red-8"],
        vec![
            moves().play("red-1"),
            moves(),
            moves().play("red-7").target(1),
        ],
        1,
    );
    d.turns(2);
    let noted = d.obs(0).constraints(1);
    assert_eq!(noted.len(), 1);
    let (excl, min) = noted.iter().next().unwrap();
    assert_eq!(min, 3);
    // Seat 2 swaps with seat 1: the noted hand is now seat 2's.
    d.turns(1);
    assert_eq!(d.hand(2), d.set(&["blue-4", "blue-5", "green-6"]));
    assert!(d.obs(0).constraints(1).is_empty());
    assert_eq!(
        d.obs(0).constraints(2).iter().collect::<Vec<_>>(),
        vec![(excl, 3)]
    );
    for deal in informed(&d, 0, N) {
        assert!((deal[2] & excl).is_empty());
    }
}

/// A tiny deck (1, 2, 3 and 7 of each colour): two hands of six leave three
/// cards to draw, so a reshuffle comes soon.
const SIXTEEN: &str = r#"
[[deck]]
faces = ["1", "2", "3", "7"]
count = 1
"#;

#[test]
fn known_cards_played_and_reshuffled_are_no_longer_placed() {
    let r = common::custom_rules(SIXTEEN, &["hand_size=6", "seven_o=true"]);
    assert_eq!(r.deck.size, 16);
    let mut returned = 0;
    for seed in 1..=64 {
        let mut d = Drive::new(
            &r,
            1,
            &[
                &[
                    "red-7", "red-1", "yellow-1", "green-1", "blue-1", "yellow-2",
                ],
                &[
                    "red-3", "green-2", "green-3", "blue-2", "blue-3", "yellow-3",
                ],
            ],
            "red-2",
            &["blue-7", "green-7", "yellow-7"],
            vec![
                moves().play("red-7").target(1).play("red-3"),
                moves().play("red-1").draw().draw().draw().draw(),
            ],
            seed,
        );
        // Seat 0 gives its hand to seat 1, which plays red-1; seat 0 plays
        // red-3 on it; then both draw: the fourth draw reshuffles red-2,
        // red-7 and red-1 into the pile, and two more leave one card there.
        d.turns(1);
        let red1 = d.set(&["red-1"]);
        let kept = d.set(&["yellow-1", "green-1", "blue-1", "yellow-2"]);
        assert_eq!(d.obs(0).known_in(1), kept | red1);
        d.turns(2);
        assert_eq!(d.obs(0).known_in(1), kept, "red-1 is on the discard pile");
        for _ in 0..5 {
            d.turns(1);
            assert_eq!(d.obs(0).known_in(1), kept, "seed {seed}");
        }
        assert_eq!(d.g.draw_pile_len(), 1);
        if (d.hand(1) & red1) == red1 {
            returned += 1;
            // The card is back in the hand it was known in, unknown now.
            let mut placed = 0;
            for deal in informed(&d, 0, N) {
                assert!((kept - deal[1]).is_empty());
                placed += (deal[1] & red1 == red1) as usize;
            }
            assert!(placed < N, "red-1 is still placed in seat 1's hand");
        }
    }
    assert!(returned > 0, "no seed drew red-1 back into seat 1's hand");
}

/// Two players on the sixteen-card deck: seat 0 plays four cards while
/// seat 1 draws the three of the pile and then a fourth, which reshuffles
/// the four under the top (red-2, red-1, red-3, yellow-3) into the pile.
/// Seat 1 has drawn one card since, so it holds every card seat 0 cannot
/// see but those four (its six and the three it drew), and one of them.
#[test]
fn after_a_reshuffle_the_pile_holds_only_its_cards() {
    let r = common::custom_rules(SIXTEEN, &["hand_size=6"]);
    let mut d = Drive::new(
        &r,
        1,
        &[
            &["red-1", "red-3", "yellow-1", "yellow-3", "blue-1", "blue-3"],
            &[
                "green-1", "green-2", "green-3", "green-7", "blue-2", "blue-7",
            ],
        ],
        "red-2",
        &["yellow-2", "yellow-7", "red-7"],
        vec![
            moves()
                .play("red-1")
                .play("red-3")
                .play("yellow-3")
                .play("yellow-1"),
            moves().draw().draw().draw().draw(),
        ],
        1,
    );
    d.turns(7);
    // Before the reshuffle the pile may hold any card.
    assert_eq!(d.obs(0).pile_may_hold(), r.deck.all);
    assert_eq!(d.g.draw_pile_len(), 0);
    d.turns(1);
    let deck = &r.deck;
    let returned = ["red-2", "red-1", "red-3", "yellow-3"]
        .iter()
        .fold(CardSet::EMPTY, |s, t| s | deck.all_of(kind(t)));
    let obs = d.obs(0);
    assert_eq!(obs.pile_may_hold(), returned);
    assert_eq!(d.g.draw_pile_len(), 3);
    assert_eq!(
        obs.constraints(1).iter().collect::<Vec<_>>(),
        vec![(returned, 9)]
    );
    let held = deck.all - obs.discard() - obs.hand() - returned;
    assert_eq!(held.len(), 9);
    assert!((held - d.hand(1)).is_empty(), "the truth");
    // Informed deals put them all there; uniform ones do not.
    always_in(&d, 0, 1, held);
    // So does every state of the informed chain, which still moves (the one
    // returned card seat 1 drew); the uniform chain moves them out.
    let states = chain_states(&d, 0, true, 500);
    assert!(states.iter().all(|h| (held - h[1]).is_empty()));
    let seat1: std::collections::HashSet<u128> = states.iter().map(|h| h[1].0).collect();
    assert_eq!(seat1.len(), 4, "the chain visits each returned card");
    assert!(chain_states(&d, 0, false, 500)
        .iter()
        .any(|h| !(held - h[1]).is_empty()));
}

/// SIXTEEN and one plain wild.
const SIXTEEN_AND_A_WILD: &str = r#"
[[deck]]
faces = ["1", "2", "3", "7"]
count = 1

[[deck]]
faces = ["wild"]
count = 1
"#;

/// Under `drawn_card = "rlcard"` a drawn card of the active colour, or a
/// drawn wild, is played at once. It leaves the hand as a drawn card played
/// under the default reading does, so the notes on that hand count it as
/// gone: right after a reshuffle of only such cards, the hand that drew one
/// holds none of them at all.
#[test]
fn under_rlcard_a_drawn_card_played_at_once_counts_as_gone() {
    let r = common::custom_rules(SIXTEEN_AND_A_WILD, &["hand_size=6", "drawn_card=rlcard"]);
    assert_eq!(r.deck.size, 17);
    let returned = ["yellow-2", "wild"]
        .iter()
        .fold(CardSet::EMPTY, |s, t| s | r.deck.all_of(kind(t)));
    let mut drew = std::collections::HashSet::new();
    for seed in 1..=16 {
        let mut d = Drive::new(
            &r,
            1,
            &[
                &["wild", "yellow-3", "red-1", "red-2", "blue-1", "blue-2"],
                &[
                    "yellow-1", "yellow-7", "red-3", "green-1", "green-2", "blue-3",
                ],
            ],
            "yellow-2",
            &["red-7", "green-7", "blue-7", "green-3"],
            vec![
                moves()
                    .play("wild")
                    .color("yellow")
                    .play("yellow-3")
                    .draw()
                    .draw(),
                moves().draw().draw().draw(),
            ],
            seed,
        );
        // Seat 0 plays the wild (yellow) and yellow-3, then draws blue-7;
        // seat 1 draws red-7, green-7 and green-3. Each is kept (not
        // yellow), and the pile is empty.
        d.turns(6);
        assert_eq!(d.g.draw_pile_len(), 0);
        let before = d.hand(0);
        assert_eq!(before.len(), 5);
        // Seat 0 draws from the reshuffled yellow-2 and wild, and plays
        // what it drew at once.
        d.turns(1);
        let obs = d.obs(1);
        assert_eq!(obs.pile_may_hold(), returned);
        assert_eq!(d.hand(0), before, "the drawn card was played");
        drew.insert(d.g.top());
        assert_eq!(
            obs.constraints(0).iter().collect::<Vec<_>>(),
            vec![(returned, 5)],
            "seed {seed}: every card of hand 0 is outside the reshuffled ones"
        );
    }
    assert_eq!(drew.len(), 2, "both the wild and yellow-2 were drawn");
}

/// A classic round of three players (match seed 5, seat 0 deals), dealt
/// and waiting for its first turn.
fn dealt_round_of_three(r: &Rules) -> Game<'_> {
    let mut g = Game::new(r, 3, 5);
    g.start_match(Some(0));
    let mut seats: Vec<Seat> = (0..3).map(|_| Seat::custom(Follow(moves()))).collect();
    let mut agents = Agents {
        seats: &mut seats,
        rng: Rng::seed_from_u64(1),
    };
    g.begin_round(&mut agents, &mut NoRecord);
    g
}

#[test]
fn without_knowledge_the_informed_deal_is_the_uniform_one() {
    let r = rules("classic", &[]);
    let g = dealt_round_of_three(&r);
    let obs = Observation::of(&g, 1);
    let know = Knowledge::of(&obs);
    assert!(know.is_empty());
    let (mut a, mut b) = (Rng::seed_from_u64(7), Rng::seed_from_u64(7));
    for _ in 0..20 {
        let x = Game::determinize(&obs, &mut a);
        let y = Game::determinize_informed(&obs, &know, &mut b);
        assert_eq!(x.hands(), y.hands());
        assert_eq!(
            x.draw_pile().collect::<Vec<_>>(),
            y.draw_pile().collect::<Vec<_>>()
        );
    }
}

#[test]
fn dealing_the_hands_first_builds_the_same_hands_and_deals_them_uniformly() {
    // `Game::deal_hands` (a search weighing candidate hands) and
    // `Game::determinize_by_hands` (the game built for the one kept) deal the
    // same hands from the same generator state; the game keeps the
    // observer's view; and over many deals every unseen card is in each
    // other hand about as often as uniform dealing puts it there.
    let r = rules("classic", &[]);
    let g = dealt_round_of_three(&r);
    let obs = Observation::of(&g, 1);
    let unseen = r.deck.all - obs.hand() - obs.discard();
    let n = 4000u64;
    let mut hands = [CardSet::EMPTY; MAX_PLAYERS];
    let mut count = vec![[0u32; 3]; 128];
    for seed in 0..n {
        let mut a = Rng::seed_from_u64(seed);
        let mut b = Rng::seed_from_u64(seed);
        Game::deal_hands(&obs, &mut a, &mut hands);
        let x = Game::determinize_by_hands(&obs, &mut b);
        check_deal(&obs, &x);
        assert_eq!(&hands[..3], x.hands(), "seed {seed}");
        for s in [0, 2] {
            for c in x.hand(s).iter() {
                count[c as usize][s] += 1;
            }
        }
    }
    for c in unseen.iter() {
        for s in [0, 2] {
            let p = obs.hand_size(s) as f64 / unseen.len() as f64;
            let mean = n as f64 * p;
            let sd = (n as f64 * p * (1.0 - p)).sqrt();
            let got = count[c as usize][s] as f64;
            assert!(
                (got - mean).abs() < 5.0 * sd,
                "card {c} in hand {s}: {got} times, {mean:.0} expected"
            );
        }
    }
}

#[test]
fn a_draw_where_a_play_was_allowed_is_a_soft_note_for_a_table_that_asks() {
    let r = rules("classic", &["hand_size=3"]);
    let hands: &[&[&str]] = &[
        &["red-1", "red-2", "red-3"],
        &["blue-4", "blue-5", "green-6"],
    ];
    for ask in [false, true] {
        let seat0 = moves().play("red-1").play("red-2");
        let seat0 = seat0.tracking(if ask {
            Tracking::Evidence
        } else {
            Tracking::Facts
        });
        let mut d = Drive::new(
            &r,
            1,
            hands,
            "red-9",
            &["yellow-4"],
            vec![seat0, moves()],
            1,
        );
        d.turns(1);
        let accept = d.g.rules().deck.accept_on[d.g.top() as usize];
        // Seat 1 draws yellow-4 (it could not play, but the rules let it draw
        // even if it could have).
        d.turns(1);
        let obs = d.obs(0);
        assert!(obs.constraints(1).is_empty(), "not a fact");
        if !ask {
            assert!(obs.notes(1).is_empty(), "nobody asked for evidence");
            continue;
        }
        assert_eq!(
            obs.notes(1).iter().collect::<Vec<_>>(),
            vec![(accept, 3, true)]
        );
        assert!(Knowledge::of(&obs).is_empty(), "ignored by default");
        let know = Knowledge::weighing_draws(&obs, 1.0);
        let mut rng = Rng::seed_from_u64(3);
        for _ in 0..N {
            let g = Game::determinize_informed(&obs, &know, &mut rng);
            check_deal(&obs, &g);
            assert!(
                (g.hand(1) & accept).len() <= 1,
                "believed: at most the drawn card"
            );
        }
        // Believed half the time: some deals give seat 1 two playable cards.
        let know = Knowledge::weighing_draws(&obs, 0.5);
        let two = (0..N)
            .filter(|_| {
                (Game::determinize_informed(&obs, &know, &mut rng).hand(1) & accept).len() >= 2
            })
            .count();
        assert!(two > 0 && two < N, "{two} of {N}");
    }
}

/// Two players, 3 cards each, red-9 turned: seat 0 (red-1, red-2, a wild)
/// moves first as `seat0` says; seat 1 (blue-4, red-5, green-6) draws
/// yellow-4 at its first turn although it could play red-5.
fn seat_1_draws_with_a_playable_card(r: &Rules, seat0: Moves) -> Drive<'_> {
    let hands: &[&[&str]] = &[&["red-1", "red-2", "wild"], &["blue-4", "red-5", "green-6"]];
    Drive::new(
        r,
        1,
        hands,
        "red-9",
        &["yellow-4", "yellow-7"],
        vec![seat0, moves().draw()],
        1,
    )
}

/// Seat 0 plays red-1 (asking for every seat's last turns) and seat 1 draws
/// where it could have played; also the cards playable on red-1.
fn seat_1_drew_on_red_1(r: &Rules) -> (Drive<'_>, CardSet) {
    let seat0 = moves().play("red-1").tracking(Tracking::Plays);
    let mut d = seat_1_draws_with_a_playable_card(r, seat0);
    d.turns(2);
    let accept = d.g.rules().deck.accept_on[d.g.top() as usize];
    (d, accept)
}

#[test]
fn each_players_last_turn_is_public_for_a_table_that_asks() {
    let r = rules("classic", &["hand_size=3"]);
    for ask in [false, true] {
        let seat0 = moves().play("red-1").play("wild").color("blue");
        let seat0 = seat0.tracking(if ask {
            Tracking::Plays
        } else {
            Tracking::Evidence
        });
        let mut d = seat_1_draws_with_a_playable_card(&r, seat0);
        let start = d.g.top();
        let red1 = d.set(&["red-1"]).first().unwrap();
        let wild = d.set(&["wild"]).first().unwrap();
        d.turns(1);
        if !ask {
            assert_eq!(d.obs(1).last_turn(0), None, "nobody asked");
            continue;
        }
        let played = LastTurn {
            card: Some(red1),
            named: None,
            top: start,
            color: Color::Red,
            size: 3,
            at: 0,
        };
        assert_eq!(d.obs(1).last_turn(0), Some(played));
        assert_eq!(d.obs(0).last_turn(0), Some(played), "public");
        // Seat 1 draws although it could play red-5.
        d.turns(1);
        let drew = LastTurn {
            card: None,
            named: None,
            top: red1,
            color: Color::Red,
            size: 3,
            at: 0,
        };
        assert_eq!(d.obs(0).last_turn(1), Some(drew));
        assert_eq!(d.obs(0).cards_drawn_by(1), 1);
        d.turns(1);
        let wild_turn = LastTurn {
            card: Some(wild),
            named: Some(Color::Blue),
            top: red1,
            color: Color::Red,
            size: 2,
            at: 0,
        };
        assert_eq!(d.obs(1).last_turn(0), Some(wild_turn));
        assert_eq!(
            &*d.obs(1).last_turns(0),
            &[played, wild_turn],
            "oldest first"
        );
        assert_eq!(&*d.obs(1).last_turns(1), &[drew]);
    }
}

#[test]
fn a_swap_forgets_the_last_turns_of_both_hands() {
    let r = rules("classic", &["hand_size=3", "seven_o=true"]);
    let hands: &[&[&str]] = &[
        &["red-1", "red-7", "green-2"],
        &["red-4", "blue-5", "green-6"],
        &["red-3", "yellow-5", "yellow-6"],
    ];
    let seat0 = moves().play("red-1").play("red-7").target(1);
    let mut d = Drive::new(
        &r,
        2,
        hands,
        "red-9",
        &["yellow-4"],
        vec![
            seat0.tracking(Tracking::Plays),
            moves().play("red-4"),
            moves().play("red-3"),
        ],
        1,
    );
    d.turns(3);
    for s in 0..3 {
        assert!(d.obs(0).last_turn(s).is_some(), "seat {s} played");
    }
    // Seat 0 plays its 7 and swaps with seat 1.
    d.turns(1);
    let obs = d.obs(2);
    assert_eq!(obs.last_turn(0), None);
    assert_eq!(obs.last_turn(1), None);
    assert!(obs.last_turn(2).is_some(), "seat 2's hand did not move");
}

#[test]
fn an_opponent_model_weighs_a_draw_against_deals_that_could_play() {
    // Seat 1 drew on red-1 where it could have played. The `color`
    // heuristic never draws with a playable card: a deal that gave seat 1
    // a playable card then weighs `noise / (options)` at most, one that gave
    // it none weighs 1.
    let r = rules("classic", &["hand_size=3"]);
    let (d, accept) = seat_1_drew_on_red_1(&r);
    let obs = d.obs(0);
    let noise = 0.2;
    let mut model = OpponentModel::new(&StrategySpec::load("color").unwrap(), 2, noise, 1);
    let turns = TableTurns::read(&obs);
    let mut rng = Rng::seed_from_u64(5);
    let (mut none, mut two) = (0, 0);
    for _ in 0..N {
        let mut g = Game::determinize(&obs, &mut rng);
        let dealt = g.hand(1);
        let w = model.weight(&obs, &turns, &mut g, &mut rng);
        assert_eq!(g.hand(1), dealt, "the hand is put back");
        assert!(w > 0.0 && w <= 1.0, "{w}");
        let playable = (g.hand(1) & accept).len();
        if playable == 0 {
            none += 1;
            assert_eq!(w, 1.0, "the model draws without a playable card");
        } else if playable >= 2 {
            // At least one of them was held at the draw.
            two += 1;
            assert!(w <= noise / 2.0 + 1e-12, "{w} with {playable} playable");
        }
    }
    assert!(none > 0 && two > 0, "{none} and {two} of {N}");
    // The real hand of seat 1 is blue-4, red-5, green-6 and the drawn
    // yellow-4: which of the four it drew is hidden, so a quarter of the
    // time the trace back drops red-5 (a hand that could not play, weight
    // 1), else it keeps it (the model would have played it).
    let real = d.g.clone();
    let mut dropped = 0;
    for _ in 0..N {
        let w = model.weight(&obs, &turns, &mut real.clone(), &mut rng);
        if w == 1.0 {
            dropped += 1;
        } else {
            assert!(w <= noise / 2.0 + 1e-12, "{w}");
        }
    }
    assert!((N / 8..N / 2).contains(&dropped), "{dropped} of {N}");
}

#[test]
fn the_model_chain_samples_the_models_posterior() {
    // The same table as above: seat 1 drew on red-1 where it could have
    // played. The chain over its hand (`model_sampler = "chain"`) must visit
    // hands as often as the model's posterior weighs them: the share of
    // states in which seat 1 holds no card playable on red-1 is compared
    // with the posterior's, estimated by weighing uniform deals
    // (self-normalised importance sampling). A chain that ignored the
    // weights would visit them as often as uniform deals do, far from it.
    let r = rules("classic", &["hand_size=3"]);
    let (d, accept) = seat_1_drew_on_red_1(&r);
    let obs = d.obs(0);
    let unseen = d.g.rules().deck.all - obs.discard() - obs.hand();
    let mut model = OpponentModel::new(&StrategySpec::load("color").unwrap(), 2, 0.2, 1);
    let turns = TableTurns::read(&obs);
    let mut rng = Rng::seed_from_u64(11);
    let deals = 20_000;
    let (mut prior, mut weight, mut weight_none) = (0usize, 0.0, 0.0);
    for _ in 0..deals {
        let mut g = Game::determinize(&obs, &mut rng);
        let none = (g.hand(1) & accept).is_empty();
        let w = model.weight(&obs, &turns, &mut g, &mut rng);
        prior += none as usize;
        weight += w;
        weight_none += if none { w } else { 0.0 };
    }
    let prior = prior as f64 / deals as f64;
    let posterior = weight_none / weight;
    let mut g = Game::determinize(&obs, &mut rng);
    let mut chain = HandChain::start(&mut model, &obs, &turns, &mut g, None, &mut rng);
    let (steps, mut none) = (20_000, 0usize);
    for _ in 0..steps {
        chain.run(&mut model, &obs, &turns, &mut g, 1, &mut rng);
        let hands = chain.hands();
        assert_eq!(hands[0], obs.hand(), "the observer's own hand");
        assert_eq!(
            hands[1].len() as usize,
            obs.hand_size(1),
            "the size of seat 1's hand"
        );
        assert!(
            (hands[1] - unseen).is_empty(),
            "only unseen cards are dealt"
        );
        none += (hands[1] & accept).is_empty() as usize;
    }
    let chain_share = none as f64 / steps as f64;
    assert!(
        (posterior - prior).abs() > 0.2,
        "the test tells the two apart: prior {prior:.3}, posterior {posterior:.3}"
    );
    assert!(
        (chain_share - posterior).abs() < 0.05,
        "chain {chain_share:.3}, posterior {posterior:.3}, uniform {prior:.3}"
    );
    // The determinization built on the chain's hands deals them and puts
    // every other unseen card in the draw pile.
    let g = Game::determinize_with_hands(&obs, chain.hands(), &mut rng);
    assert_eq!(g.hand(1), chain.hands()[1]);
    assert_eq!(g.hand(0), obs.hand());
    assert_eq!(
        g.hand(1).len() as usize + g.draw_pile_len(),
        unseen.len() as usize
    );
}

/// The states of a chain on the `color` model for `observer`, one per step
/// (`informed`: with what the table revealed to it).
fn chain_states(d: &Drive, observer: u8, informed: bool, steps: usize) -> Vec<Vec<CardSet>> {
    let obs = d.obs(observer);
    let know = Knowledge::of(&obs);
    let spec = StrategySpec::load("color").unwrap();
    let mut model = OpponentModel::new(&spec, obs.players(), 0.25, 6);
    let turns = TableTurns::read(&obs);
    let mut rng = Rng::seed_from_u64(31);
    let mut g = Game::determinize(&obs, &mut rng);
    let know = informed.then_some(&know);
    let mut chain = HandChain::start(&mut model, &obs, &turns, &mut g, know, &mut rng);
    (0..steps)
        .map(|_| {
            chain.run(&mut model, &obs, &turns, &mut g, 1, &mut rng);
            let hands = chain.hands()[..obs.players()].to_vec();
            let g = Game::determinize_with_hands(&obs, chain.hands(), &mut rng);
            check_deal(&obs, &g);
            hands
        })
        .collect()
}

#[test]
fn the_informed_chain_keeps_the_known_cards_and_the_hard_notes() {
    // Seven-o: seat 0 swapped with seat 1, so it knows seat 1 holds its old
    // hand. Every state of its informed chain puts those cards there, and
    // the chain still moves (seat 2's hand changes); the uniform chain
    // moves them out.
    let r = rules("classic", &["hand_size=4", "seven_o=true"]);
    let mut d = seven_o_swaps(&r);
    d.turns(1);
    let given = d.set(&["red-1", "yellow-7", "blue-4"]);
    assert_eq!(d.obs(0).known_in(1), given);
    let states = chain_states(&d, 0, true, 2_000);
    assert!(states.iter().all(|h| h[1] == given), "a known card moved");
    let seat2: std::collections::HashSet<u128> = states.iter().map(|h| h[2].0).collect();
    assert!(
        seat2.len() > 20,
        "the chain is stuck: {} hands",
        seat2.len()
    );
    let uniform = chain_states(&d, 0, false, 2_000);
    assert!(
        uniform.iter().any(|h| h[1] != given),
        "the test tells the two apart"
    );

    // force_play: seat 1 drew with nothing playable, so none of the three
    // cards it held then is playable on red-9 (a hard note). The informed
    // chain never gives it one; the uniform chain does (with the model's
    // noise the draw is only unlikely there).
    let r = rules("classic", &["hand_size=3", "force_play=true"]);
    let mut d = seat_1_without_red(&r, &["red-8"]);
    d.turns(1);
    let accept = d.g.rules().deck.accept_on[d.g.top() as usize];
    d.turns(1);
    assert_eq!(
        d.obs(0).constraints(1).iter().collect::<Vec<_>>(),
        vec![(accept, 3)]
    );
    let states = chain_states(&d, 0, true, 2_000);
    assert!(
        states.iter().all(|h| (h[1] & accept).is_empty()),
        "a card playable then dealt to seat 1"
    );
    let seat1: std::collections::HashSet<u128> = states.iter().map(|h| h[1].0).collect();
    assert!(
        seat1.len() > 20,
        "the chain is stuck: {} hands",
        seat1.len()
    );
    assert!(chain_states(&d, 0, false, 2_000)
        .iter()
        .any(|h| !(h[1] & accept).is_empty()));
}

/// Seven-o at 3 players: seat 0 (asking for the last turns) swaps its
/// hand with seat 1's by red-7, so it knows seat 1's three cards (none
/// playable on red-7); seat 1 draws blue-2, then seat 2 draws yellow-6
/// although it holds red-3. Seat 0 is to play. Also the cards playable on
/// red-7.
fn seat_2_drew_after_a_swap(r: &Rules) -> (Drive<'_>, CardSet) {
    let mut d = Drive::new(
        r,
        2,
        &[
            &["red-7", "green-5", "yellow-8", "blue-9"],
            &["red-1", "blue-1", "green-2", "yellow-3"],
            &["red-3", "green-1", "green-9", "yellow-4"],
        ],
        "red-5",
        &["blue-2", "yellow-6"],
        vec![
            moves().play("red-7").target(1).tracking(Tracking::Plays),
            moves(),
            moves(),
        ],
        1,
    );
    d.turns(3);
    let accept = d.g.rules().deck.accept_on[d.g.top() as usize];
    (d, accept)
}

#[test]
fn the_informed_chain_samples_the_models_posterior_given_the_known_cards() {
    // Seat 0 knows three of seat 1's four cards; seat 1's and seat 2's draws
    // on red-7 are weighed by the model (`color` never draws with a playable
    // card). The informed chain must visit deals as often as the model's
    // posterior over the deals that keep the known cards in place weighs
    // them, estimated by weighing such deals (the known cards in place, the
    // rest uniform) and self-normalising: the shares of states where seat 2
    // holds no card playable on red-7 (0.10 dealt uniformly, 0.40 in the
    // posterior) and where seat 1's unknown card is playable on it (0.36
    // and 0.17). The uniform chain moves the known cards (0.50 for the
    // second); the informed chain with its acceptance step skipped gave
    // (0.11, 0.36), without its pinned cards (0.41, 0.53): both fail here.
    //
    // Seat 1's unknown card is the one it drew after its turn, so in truth
    // that turn says nothing of it; the model's trace back takes any of
    // the four cards for the drawn one (it does not know three were held
    // since the swap), hence 0.17. The chain follows the model's weights,
    // which is what is checked here.
    let r = rules("classic", &["hand_size=4", "seven_o=true"]);
    let (d, accept) = seat_2_drew_after_a_swap(&r);
    let obs = d.obs(0);
    let given = d.set(&["green-5", "yellow-8", "blue-9"]);
    assert_eq!(obs.known_in(1), given);
    assert!(obs.known_in(2).is_empty());
    assert_eq!((obs.hand_size(1), obs.hand_size(2)), (4, 5));
    assert!((0..3).all(|h| obs.constraints(h).is_empty()));
    let drew = |h| obs.last_turn(h).is_some_and(|t| t.card.is_none());
    assert!(drew(1) && drew(2), "both drew at their last turn");
    let know = Knowledge::of(&obs);
    let spec = StrategySpec::load("color").unwrap();
    let mut model = OpponentModel::new(&spec, 3, 0.25, 6);
    let turns = TableTurns::read(&obs);
    let stats = |h: &[CardSet]| {
        (
            (h[2] & accept).is_empty(),
            !((h[1] - given) & accept).is_empty(),
        )
    };
    // The posterior: the unseen cards not known to be anywhere, dealt
    // uniformly around the known ones, each deal weighed by the model.
    let mut rng = Rng::seed_from_u64(13);
    let free: Vec<CardId> = (d.g.rules().deck.all - obs.discard() - obs.hand() - given)
        .iter()
        .collect();
    let deals = 20_000;
    let (mut weight, mut w_none, mut w_one) = (0.0, 0.0, 0.0);
    let (mut prior_none, mut prior_one) = (0usize, 0usize);
    for _ in 0..deals {
        let mut pool = free.clone();
        for i in (1..pool.len()).rev() {
            pool.swap(i, rng.random_range(0..=i));
        }
        let mut hands = [CardSet::EMPTY; MAX_PLAYERS];
        hands[0] = obs.hand();
        hands[1] = given;
        let mut next = pool.into_iter();
        for (h, hand) in hands.iter_mut().enumerate().take(3).skip(1) {
            while (hand.len() as usize) < obs.hand_size(h) {
                hand.insert(next.next().unwrap());
            }
        }
        let mut g = Game::determinize_with_hands(&obs, &hands, &mut rng);
        let w = model.weight(&obs, &turns, &mut g, &mut rng);
        let (none, one) = stats(&hands);
        prior_none += none as usize;
        prior_one += one as usize;
        weight += w;
        w_none += if none { w } else { 0.0 };
        w_one += if one { w } else { 0.0 };
    }
    let prior = (
        prior_none as f64 / deals as f64,
        prior_one as f64 / deals as f64,
    );
    let posterior = (w_none / weight, w_one / weight);
    let mut shares = |informed: bool| {
        let mut g = Game::determinize(&obs, &mut rng);
        let k = informed.then_some(&know);
        let mut model = OpponentModel::new(&spec, 3, 0.25, 6);
        let mut chain = HandChain::start(&mut model, &obs, &turns, &mut g, k, &mut rng);
        let (steps, mut none, mut one) = (20_000, 0usize, 0usize);
        for _ in 0..steps {
            chain.run(&mut model, &obs, &turns, &mut g, 1, &mut rng);
            let (a, b) = stats(chain.hands());
            none += a as usize;
            one += b as usize;
        }
        (none as f64 / steps as f64, one as f64 / steps as f64)
    };
    let (informed, uniform) = (shares(true), shares(false));
    let seen = format!(
        "chain {informed:.3?}, posterior {posterior:.3?}, known cards dealt uniformly {prior:.3?}, uniform chain {uniform:.3?}"
    );
    assert!(
        (posterior.0 - prior.0).abs() > 0.2 && (posterior.1 - prior.1).abs() > 0.05,
        "the test tells the posterior from the prior: {seen}"
    );
    assert!(
        (informed.0 - posterior.0).abs() < 0.05 && (informed.1 - posterior.1).abs() < 0.03,
        "{seen}"
    );
    assert!(
        (uniform.0 - posterior.0).abs() > 0.05 || (uniform.1 - posterior.1).abs() > 0.03,
        "the test tells the uniform chain apart: {seen}"
    );
}

#[test]
fn without_knowledge_the_informed_chain_is_the_uniform_one() {
    let r = rules("classic", &[]);
    let g = dealt_round_of_three(&r);
    let obs = Observation::of(&g, 1);
    let know = Knowledge::of(&obs);
    assert!(know.is_empty());
    let spec = StrategySpec::load("color").unwrap();
    let mut model = OpponentModel::new(&spec, 3, 0.25, 6);
    let turns = TableTurns::read(&obs);
    let (mut a, mut b) = (Rng::seed_from_u64(7), Rng::seed_from_u64(7));
    let mut ga = Game::determinize(&obs, &mut Rng::seed_from_u64(0));
    let mut gb = ga.clone();
    let mut x = HandChain::start(&mut model, &obs, &turns, &mut ga, None, &mut a);
    let mut y = HandChain::start(&mut model, &obs, &turns, &mut gb, Some(&know), &mut b);
    for _ in 0..200 {
        x.run(&mut model, &obs, &turns, &mut ga, 1, &mut a);
        y.run(&mut model, &obs, &turns, &mut gb, 1, &mut b);
        assert_eq!(x.hands(), y.hands());
    }
}

/// How many seats' kept turns `TurnChecker` checked.
static CHECKED: AtomicUsize = AtomicUsize::new(0);

/// Plays the first playable card and, at each of its turns, checks the
/// turns kept for the other seats against what it can see: at most
/// `MAX_TURNS`, oldest first, and a hand that changed since the newest only
/// by draws (less the drawn card, when it was played at once).
struct TurnChecker;

impl Strategy for TurnChecker {
    fn name(&self) -> &str {
        "checker"
    }
    fn choose_play(&mut self, obs: &Observation, playable: CardSet, _: &mut Rng) -> Option<CardId> {
        for h in 0..obs.players() {
            if h == obs.seat() as usize {
                continue;
            }
            let turns = obs.last_turns(h);
            assert!(turns.len() <= MAX_TURNS);
            assert!(turns.windows(2).all(|w| w[0].at <= w[1].at), "{turns:?}");
            if let Some(t) = turns.last() {
                let since = obs.cards_drawn_by(h) - t.at;
                let bound = t.size as u32 + since - t.card.is_some() as u32;
                let now = obs.hand_size(h) as u32;
                assert!(
                    now == bound || now + 1 == bound,
                    "seat {h}: {now} cards, {t:?}, {since} drawn since"
                );
                CHECKED.fetch_add(1, Ordering::Relaxed);
            }
        }
        playable.first()
    }
    fn notes(&self) -> Tracking {
        Tracking::Plays
    }
}

#[test]
fn kept_turns_agree_with_the_hands_over_many_random_rounds() {
    let tables: [(&str, &[&str], usize); 5] = [
        ("classic", &[], 2),
        (
            "classic",
            &["stacking=cross", "jump_in=true", "seven_o=true"],
            4,
        ),
        ("h2o", &[], 3),
        ("cars3", &[], 4),
        ("lilo-stitch", &["draw_to_match=true"], 3),
    ];
    for (set, house, players) in tables {
        let checker = StrategySpec::custom("checker", "rust", || Box::new(TurnChecker)).unwrap();
        let mut specs = vec![
            checker,
            StrategySpec::load("color").unwrap(),
            StrategySpec::load("random").unwrap(),
        ];
        specs.truncate(players);
        let before = CHECKED.load(Ordering::Relaxed);
        let cfg = RunConfig::builder(rules(set, house), players, &specs)
            .games(150)
            .seed(17)
            .build()
            .unwrap();
        let out = run(&cfg, &AtomicBool::new(false), &|_| {}).unwrap();
        assert_eq!(out.stats.games, 150);
        let checked = CHECKED.load(Ordering::Relaxed) - before;
        assert!(checked > 500, "{set} {house:?}: {checked} checks");
    }
}

static CHAIN_STEPS: AtomicUsize = AtomicUsize::new(0);
static CHAIN_SWAPS: AtomicUsize = AtomicUsize::new(0);

/// Plays the first playable card and, at each of its turns, runs the model's
/// chain step by step and checks every state: the observer's own hand, the
/// other hands of their true sizes, disjoint and made of unseen cards only,
/// and each step either refused (nothing moved) or one swap (one hand gave a
/// card and took another, from another hand or the draw pile).
struct ChainChecker;

impl Strategy for ChainChecker {
    fn name(&self) -> &str {
        "chain-checker"
    }
    fn choose_play(
        &mut self,
        obs: &Observation,
        playable: CardSet,
        rng: &mut Rng,
    ) -> Option<CardId> {
        let n = obs.players();
        let me = obs.seat() as usize;
        let unseen = obs.rules().deck.all - obs.discard() - obs.hand();
        let spec = StrategySpec::load("color").unwrap();
        let mut model = OpponentModel::new(&spec, n, 0.25, 6);
        let turns = TableTurns::read(obs);
        // What the model weighs: every other seat's last turns, none of the
        // observer's own.
        for h in 0..n {
            let want = if h == me {
                Vec::new()
            } else {
                obs.last_turns(h).to_vec()
            };
            assert_eq!(&**turns.of(h), &want[..], "seat {h}'s turns");
        }
        let mut g = Game::determinize(obs, rng);
        let mut chain = HandChain::start(&mut model, obs, &turns, &mut g, None, rng);
        let mut before = *chain.hands();
        for _ in 0..40 {
            chain.run(&mut model, obs, &turns, &mut g, 1, rng);
            let hands = *chain.hands();
            assert_eq!(hands[me], obs.hand(), "the observer's own hand");
            let mut seen = CardSet::EMPTY;
            for h in (0..n).filter(|&h| h != me) {
                assert_eq!(hands[h].len() as usize, obs.hand_size(h), "seat {h}'s size");
                assert!(
                    (hands[h] - unseen).is_empty(),
                    "seat {h}: a card not unseen"
                );
                assert!((hands[h] & seen).is_empty(), "seat {h} shares a card");
                seen |= hands[h];
            }
            let changed: Vec<usize> = (0..n).filter(|&h| hands[h] != before[h]).collect();
            assert!(changed.len() <= 2, "one step changed {changed:?}");
            for &h in &changed {
                assert_eq!((hands[h] - before[h]).len(), 1, "seat {h} took one card");
                assert_eq!((before[h] - hands[h]).len(), 1, "seat {h} gave one card");
            }
            if let [p, q] = changed[..] {
                assert_eq!(hands[p] - before[p], before[q] - hands[q], "a swap");
                CHAIN_SWAPS.fetch_add(1, Ordering::Relaxed);
            }
            CHAIN_STEPS.fetch_add(1, Ordering::Relaxed);
            before = hands;
        }
        playable.first()
    }
    fn notes(&self) -> Tracking {
        Tracking::Plays
    }
}

#[test]
fn the_model_chain_keeps_every_hand_whole_at_larger_tables() {
    // At 3 and 4 players a step may swap a card between two other hands;
    // a refused swap must put both back.
    for (set, players) in [("classic", 4), ("cars3", 3)] {
        let checker =
            StrategySpec::custom("chain-checker", "rust", || Box::new(ChainChecker)).unwrap();
        let mut specs = vec![checker];
        specs.extend((1..players).map(|_| StrategySpec::load("color").unwrap()));
        let (steps, swaps) = (
            CHAIN_STEPS.load(Ordering::Relaxed),
            CHAIN_SWAPS.load(Ordering::Relaxed),
        );
        let cfg = RunConfig::builder(rules(set, &[]), players, &specs)
            .games(6)
            .seed(23)
            .build()
            .unwrap();
        let out = run(&cfg, &AtomicBool::new(false), &|_| {}).unwrap();
        assert_eq!(out.stats.games, 6);
        let steps = CHAIN_STEPS.load(Ordering::Relaxed) - steps;
        let swaps = CHAIN_SWAPS.load(Ordering::Relaxed) - swaps;
        assert!(steps > 1_000, "{set}: {steps} steps");
        assert!(
            swaps > 20,
            "{set}: {swaps} swaps between two hands in {steps} steps"
        );
    }
}
