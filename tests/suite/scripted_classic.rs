//! Scripted deals for RULES.md sections 2 to 5 (classic deck): setting up a
//! round, a turn, card effects, UNO, illegal actions, the draw pile running
//! out, the end of a round, scoring, matches and two-player play.
//!
//! Unless a test says otherwise: three players, dealer 2, so seat 0 is the
//! player left of the dealer (P) and play goes 0, 1, 2.

use crate::common::*;
use unolab::engine::game::DrawReason;
use unolab::Outcome;

fn classic(sets: &[&str]) -> unolab::Rules {
    rules("classic", sets)
}

// ----- section 2: setting up a round -----------------------------------------

#[test]
fn deal_starts_left_of_dealer_one_card_at_a_time() {
    let r = classic(&["hand_size=2", "max_turns=1"]);
    let mut p = Picker::new(&r);
    let order: Vec<_> = [
        "red-1", "red-2", "red-3", "red-4", "red-5", "red-6", "blue-9",
    ]
    .iter()
    .map(|t| p.pick(t))
    .collect();
    // Dealer 1 of 3: seat 2 gets the first card, then seat 0, then seat 1.
    let (events, result) = run_raw(&r, 1, &order, vec![seat(), seat(), seat().draw()], 1);
    let res = result.unwrap();
    match &events[0] {
        Ev::Deal {
            round,
            dealer,
            hands,
            pile,
        } => {
            assert_eq!(*round, 1);
            assert_eq!(*dealer, 1);
            assert_eq!(hands[2], sorted(&["red-1", "red-4"]));
            assert_eq!(hands[0], sorted(&["red-2", "red-5"]));
            assert_eq!(hands[1], sorted(&["red-3", "red-6"]));
            assert_eq!(pile.len(), 108 - 6, "the rest is the draw pile");
            assert_eq!(pile[0], "blue-9");
            assert_eq!(pile[1], "red-0", "unlisted cards follow in id order");
        }
        e => panic!("first event {e:?}"),
    }
    let log: Vec<String> = events[1..].iter().map(|e| e.to_string()).collect();
    assert_eq!(log, ["flip blue-9", "draw 2 turn: red-0", "pass 2"]);
    assert_eq!(res.dealer, 1);
    assert_eq!(res.first_player, 2, "the player left of the dealer starts");
    assert_eq!(res.outcome, Outcome::Truncated);
}

#[test]
fn start_number_player_left_of_dealer_plays_first() {
    let r = classic(&["hand_size=1"]);
    let run = run_round(
        &r,
        2,
        &[&["red-1"], &["blue-9"], &["green-skip"]],
        &["red-5"],
        &[],
        vec![seat().play("red-1"), seat(), seat()],
    );
    assert_log(&run, &["flip red-5", "play 0 red-1"]);
    let res = run.res();
    assert_eq!(res.first_player, 0);
    assert_eq!(res.outcome, Outcome::Won);
    assert_eq!(res.winner, Some(0));
    assert_eq!(res.turns, 1);
    assert_eq!(res.points[..3], [29, 0, 0]);
    assert_eq!(run.direction, 1);
}

#[test]
fn start_skip_player_left_of_dealer_loses_the_turn() {
    let r = classic(&["hand_size=1"]);
    let run = run_round(
        &r,
        2,
        &[&["red-1"], &["red-2"], &["green-3"]],
        &["red-skip"],
        &[],
        vec![seat(), seat().play("red-2"), seat()],
    );
    assert_log(&run, &["flip red-skip", "skip 0", "play 1 red-2"]);
    let res = run.res();
    assert_eq!(res.first_player, 1);
    assert_eq!(res.winner, Some(1));
    assert_eq!(res.turns, 1, "a lost turn is not a turn");
    assert_eq!(res.points[1], 1 + 3);
}

#[test]
fn start_reverse_dealer_plays_first_counter_clockwise() {
    let r = classic(&["hand_size=2"]);
    let run = run_round(
        &r,
        2,
        &[
            &["red-9", "yellow-9"],
            &["blue-5", "red-6"],
            &["red-3", "red-4"],
        ],
        &["red-reverse"],
        &[],
        vec![
            seat().play_uno("red-9"),
            seat().play_uno("red-6"),
            seat().play_uno("red-3").play("red-4"),
        ],
    );
    assert_log(
        &run,
        &[
            "flip red-reverse",
            "play 2 red-3 uno",
            "play 1 red-6 uno",
            "play 0 red-9 uno",
            "play 2 red-4",
        ],
    );
    let res = run.res();
    assert_eq!(res.first_player, 2, "the dealer plays first");
    assert_eq!(res.winner, Some(2));
    assert_eq!(res.turns, 4);
    assert_eq!(res.points[2], 5 + 9);
    assert_eq!(run.direction, -1);
}

#[test]
fn start_reverse_two_players_dealer_plays_first() {
    let r = classic(&["hand_size=1"]);
    let run = run_round(
        &r,
        1,
        &[&["red-1"], &["red-2"]],
        &["red-reverse"],
        &[],
        vec![seat(), seat().play("red-2")],
    );
    // With two players Reverse acts as Skip: P (seat 0) loses the turn.
    assert_log(&run, &["flip red-reverse", "skip 0", "play 1 red-2"]);
    assert_eq!(run.res().first_player, 1);
    assert_eq!(run.res().winner, Some(1));
}

#[test]
fn start_reverse_two_players_without_reverse_skip_setting() {
    let r = classic(&["hand_size=1", "two_player_reverse_skips=false"]);
    let run = run_round(
        &r,
        1,
        &[&["red-1"], &["red-2"]],
        &["red-reverse"],
        &[],
        vec![seat(), seat().play("red-2")],
    );
    assert_log(&run, &["flip red-reverse", "play 1 red-2"]);
    assert_eq!(run.res().first_player, 1, "the dealer plays first");
}

#[test]
fn start_draw2_player_left_of_dealer_draws_two_and_loses_the_turn() {
    let r = classic(&["hand_size=1"]);
    let run = run_round(
        &r,
        2,
        &[&["red-1"], &["red-2"], &["green-3"]],
        &["red-draw2"],
        &["blue-7", "blue-8"],
        vec![seat(), seat().play("red-2"), seat()],
    );
    assert_log(
        &run,
        &[
            "flip red-draw2",
            "draw 0 draw2: blue-7 blue-8",
            "skip 0",
            "play 1 red-2",
        ],
    );
    let res = run.res();
    assert_eq!(res.first_player, 1);
    assert_eq!(res.turns, 1);
    assert_eq!(res.points[1], (1 + 7 + 8) + 3);
}

#[test]
fn start_draw2_cannot_be_answered_even_with_stacking() {
    for mode in ["stacking=same", "stacking=cross"] {
        let r = classic(&["hand_size=1", mode]);
        // Seat 0 holds a Draw Two but is never asked to answer (its script is empty).
        let run = run_round(
            &r,
            2,
            &[&["blue-draw2"], &["red-2"], &["green-3"]],
            &["red-draw2"],
            &["blue-7", "blue-8"],
            vec![seat(), seat().play("red-2"), seat()],
        );
        assert_log(
            &run,
            &[
                "flip red-draw2",
                "draw 0 draw2: blue-7 blue-8",
                "skip 0",
                "play 1 red-2",
            ],
        );
        assert!(
            !run.asked(Q::Answer),
            "{mode}: P was asked to answer the start Draw Two"
        );
        assert_eq!(run.res().points[1], (20 + 7 + 8) + 3, "{mode}");
    }
}

#[test]
fn start_wild_player_left_of_dealer_names_the_colour_then_plays() {
    let r = classic(&["hand_size=1"]);
    let run = run_round(
        &r,
        2,
        &[&["blue-4"], &["red-2"], &["green-3"]],
        &["wild"],
        &[],
        vec![seat().color("blue").play("blue-4"), seat(), seat()],
    );
    assert_log(&run, &["flip wild", "color 0 blue", "play 0 blue-4"]);
    assert_eq!(run.offers(0, Q::Play), vec![sorted(&["blue-4"])]);
    assert_eq!(run.res().first_player, 0);
}

/// The flips of a round: every returned one is the Wild Draw Four, the last is
/// `last`, and the first return put the card back into the pile (same pile,
/// card inserted somewhere). Returns the position (from the top) of the first return.
fn check_returned_flip(events: &[Ev], returned: &str, last: &str) -> usize {
    let deal_pile = match &events[0] {
        Ev::Deal { pile, .. } => pile.clone(),
        e => panic!("first event {e:?}"),
    };
    let flips: Vec<&Ev> = events
        .iter()
        .filter(|e| matches!(e, Ev::Flip { .. }))
        .collect();
    assert!(flips.len() >= 2, "expected a returned flip, got {flips:?}");
    for f in &flips[..flips.len() - 1] {
        match f {
            Ev::Flip {
                card, returned: r, ..
            } => {
                assert_eq!(card, returned);
                assert!(*r, "{card} must go back into the pile");
            }
            _ => unreachable!(),
        }
    }
    match flips[flips.len() - 1] {
        Ev::Flip {
            card, returned: r, ..
        } => {
            assert_eq!(card, last);
            assert!(!*r);
        }
        _ => unreachable!(),
    }
    let Ev::Flip { pile: after, .. } = flips[0] else {
        unreachable!()
    };
    assert_eq!(deal_pile[0], returned);
    assert_eq!(
        after.len(),
        deal_pile.len(),
        "the card goes back into the pile"
    );
    let rest = &deal_pile[1..];
    (0..after.len())
        .find(|&i| after[i] == returned && after[..i].iter().chain(&after[i + 1..]).eq(rest.iter()))
        .unwrap_or_else(|| {
            panic!("the pile after the return is not the pile with the card inserted: {after:?}")
        })
}

#[test]
fn start_wild_draw4_goes_back_and_another_card_is_flipped() {
    let r = classic(&["hand_size=1"]);
    let run = run_round(
        &r,
        2,
        &[&["green-1"], &["red-2"], &["green-3"]],
        &["wild-draw4", "green-5"],
        &[],
        vec![seat().play("green-1"), seat(), seat()],
    );
    check_returned_flip(&run.events, "wild-draw4", "green-5");
    let log = run.log();
    assert_eq!(log.last().unwrap(), "play 0 green-1");
    assert_eq!(run.top, "green-1");
    assert!(run.pile.contains(&"wild-draw4".to_string()));
    assert_eq!(run.res().first_player, 0);
}

#[test]
fn start_wild_draw4_returns_to_a_uniform_position() {
    let r = classic(&["hand_size=1"]);
    let mut positions = Vec::new();
    for seed in 1..=300u64 {
        let run = run_round_seeded(
            &r,
            1,
            &[&["green-1"], &["red-2"]],
            &["wild-draw4", "green-5"],
            &[],
            vec![seat().play("green-1"), seat()],
            seed,
        );
        positions.push(check_returned_flip(&run.events, "wild-draw4", "green-5"));
    }
    // 106 possible positions (0..=105 from the top).
    let mean = positions.iter().sum::<usize>() as f64 / positions.len() as f64;
    let min = *positions.iter().min().unwrap();
    let max = *positions.iter().max().unwrap();
    assert!((mean - 52.5).abs() < 8.0, "mean position {mean}");
    assert!(min < 15 && max > 90, "positions from {min} to {max}");
}

#[test]
fn start_card_effects_off_treats_action_cards_as_plain() {
    let r = classic(&["hand_size=1", "start_card_effects=false"]);
    for start in ["red-skip", "red-reverse", "red-draw2"] {
        let run = run_round(
            &r,
            2,
            &[&["red-1"], &["red-2"], &["green-3"]],
            &[start],
            &[],
            vec![seat().play("red-1"), seat(), seat()],
        );
        assert_log(&run, &[format!("flip {start}").as_str(), "play 0 red-1"]);
        assert_eq!(run.res().first_player, 0, "{start}");
        assert_eq!(run.direction, 1, "{start}");
    }
    // A wild still lets P name the colour.
    let run = run_round(
        &r,
        2,
        &[&["yellow-1"], &["red-2"], &["green-3"]],
        &["wild"],
        &[],
        vec![seat().color("yellow").play("yellow-1"), seat(), seat()],
    );
    assert_log(&run, &["flip wild", "color 0 yellow", "play 0 yellow-1"]);
    // Wild Draw Four still goes back.
    let run = run_round(
        &r,
        2,
        &[&["green-1"], &["red-2"], &["green-3"]],
        &["wild-draw4", "green-5"],
        &[],
        vec![seat().play("green-1"), seat(), seat()],
    );
    check_returned_flip(&run.events, "wild-draw4", "green-5");
}

// ----- section 3: a turn -------------------------------------------------------

#[test]
fn playable_by_colour_face_or_wild() {
    let r = classic(&["hand_size=6", "max_turns=1"]);
    let run = run_round(
        &r,
        2,
        &[
            &[
                "red-1",
                "blue-5",
                "green-9",
                "wild",
                "yellow-draw2",
                "wild-draw4",
            ],
            &[
                "yellow-1", "yellow-2", "yellow-3", "yellow-4", "yellow-5", "yellow-6",
            ],
            &[
                "green-1", "green-2", "green-3", "green-4", "green-5", "green-6",
            ],
        ],
        &["red-5"],
        &[],
        vec![seat().play("red-1"), seat(), seat()],
    );
    // Colour red, face 5, any wild; not Wild Draw Four (seat 0 holds red).
    assert_eq!(
        run.offers(0, Q::Play),
        vec![sorted(&["red-1", "blue-5", "wild"])]
    );
    assert_log(&run, &["flip red-5", "play 0 red-1"]);
    assert_eq!(run.res().outcome, Outcome::Truncated);
}

/// (start card, colour named for a start wild, hand of seat 0, expected
/// playable cards, card played).
type Case<'a> = (
    &'a str,
    Option<&'a str>,
    [&'a str; 4],
    &'a [&'a str],
    &'a str,
);

#[test]
fn playable_sets_for_actions_and_the_wild_draw4_restriction() {
    // Start cards act as plain cards here, so that seat 0 always plays first.
    let r = classic(&["hand_size=4", "max_turns=1", "start_card_effects=false"]);
    let others: [&[&str]; 2] = [
        &["yellow-5", "yellow-6", "yellow-8", "yellow-9"],
        &["green-5", "green-6", "green-8", "green-9"],
    ];
    let cases: [Case; 7] = [
        (
            "blue-skip",
            None,
            ["red-skip", "red-reverse", "green-draw2", "yellow-7"],
            &["red-skip"],
            "red-skip",
        ),
        (
            "yellow-draw2",
            None,
            ["green-draw2", "yellow-7", "blue-7", "red-reverse"],
            &["green-draw2", "yellow-7"],
            "yellow-7",
        ),
        (
            "red-reverse",
            None,
            ["blue-reverse", "red-0", "wild-draw4", "green-3"],
            &["blue-reverse", "red-0"],
            "red-0",
        ),
        (
            // No green card: Wild Draw Four is playable even though blue-3 matches the face.
            "green-3",
            None,
            ["wild-draw4", "wild", "blue-3", "yellow-4"],
            &["blue-3", "wild", "wild-draw4"],
            "blue-3",
        ),
        (
            "green-3",
            None,
            ["wild-draw4", "green-7", "red-4", "blue-4"],
            &["green-7"],
            "green-7",
        ),
        (
            // After a wild naming yellow, only yellow (and wilds) match; a wild's
            // face matches nothing but wilds.
            "wild",
            Some("yellow"),
            ["yellow-2", "wild-draw4", "red-9", "blue-9"],
            &["yellow-2"],
            "yellow-2",
        ),
        (
            // Wilds do not count as colour C.
            "wild",
            Some("red"),
            ["wild-draw4", "wild", "blue-1", "green-2"],
            &["wild", "wild-draw4"],
            "wild",
        ),
    ];
    for case in cases {
        check_first_play(&r, others, case, "");
    }
}

/// Seat 0 opens on `start` (with the colour `named` for a wild) holding
/// `hand`: it is offered exactly `expected` and plays `played` (a wild naming
/// blue) without a sanction. `what` prefixes the failure messages.
fn check_first_play(r: &unolab::Rules, others: [&[&str]; 2], case: Case, what: &str) {
    let (start, named, hand, expected, played) = case;
    let mut s0 = seat();
    if let Some(c) = named {
        s0 = s0.color(c);
    }
    s0 = if played == "wild" {
        s0.wild(played, "blue")
    } else {
        s0.play(played)
    };
    let run = run_round(
        r,
        2,
        &[&hand, others[0], others[1]],
        &[start],
        &[],
        vec![s0, seat(), seat()],
    );
    assert_eq!(
        run.offers(0, Q::Play),
        vec![sorted(expected)],
        "{what}start {start} {named:?}, hand {hand:?}"
    );
    assert_eq!(run.top, played);
    assert_eq!(run.res().illegal[0], 0);
}

#[test]
fn wild_draw4_while_holding_the_active_colour_is_a_wrong_card() {
    let r = classic(&["hand_size=3", "max_turns=2"]);
    let run = run_round(
        &r,
        2,
        &[
            &["wild-draw4", "red-1", "blue-2"],
            &["red-2", "red-3", "red-4"],
            &["green-2", "green-3", "green-4"],
        ],
        &["red-5"],
        &["yellow-7"],
        vec![seat().play("wild-draw4"), seat().play("red-2"), seat()],
    );
    assert_log(
        &run,
        &[
            "flip red-5",
            "illegal 0 play wild-draw4",
            "draw 0 wrong_card: yellow-7",
            "play 1 red-2",
        ],
    );
    assert_hand(&run, 0, &["wild-draw4", "red-1", "blue-2", "yellow-7"]);
    assert_eq!(run.res().illegal[0], 1);
}

#[test]
fn draw_then_play_the_drawn_card() {
    let r = classic(&["hand_size=1"]);
    let run = run_round(
        &r,
        2,
        &[&["blue-1"], &["red-8"], &["green-3"]],
        &["red-5"],
        &["red-7"],
        vec![
            seat().draw().play_drawn(true).uno(true),
            seat().play("red-8"),
            seat(),
        ],
    );
    assert_log(
        &run,
        &[
            "flip red-5",
            "draw 0 turn: red-7",
            "play 0 red-7 uno",
            "play 1 red-8",
        ],
    );
    assert_eq!(run.offers(0, Q::Play), vec![Vec::<String>::new()]);
    assert_eq!(run.offers(0, Q::PlayDrawn), vec![vec!["red-7".to_string()]]);
    let res = run.res();
    assert_eq!(
        res.turns, 2,
        "drawing and playing the drawn card is one turn"
    );
    assert_eq!(res.points[1], 1 + 3);
}

#[test]
fn draw_then_keep_the_drawn_card() {
    let r = classic(&["hand_size=1"]);
    let run = run_round(
        &r,
        2,
        &[&["blue-1"], &["red-8"], &["green-3"]],
        &["red-5"],
        &["red-7"],
        vec![
            seat().draw().play_drawn(false),
            seat().play("red-8"),
            seat(),
        ],
    );
    assert_log(
        &run,
        &["flip red-5", "draw 0 turn: red-7", "pass 0", "play 1 red-8"],
    );
    assert_eq!(run.res().points[1], (1 + 7) + 3);
}

#[test]
fn drawing_is_allowed_when_a_card_is_playable_and_only_the_drawn_card_may_follow() {
    let r = classic(&["hand_size=2", "max_turns=1"]);
    let run = run_round(
        &r,
        2,
        &[
            &["red-1", "blue-1"],
            &["red-8", "red-9"],
            &["green-3", "green-4"],
        ],
        &["red-5"],
        &["green-7"],
        vec![seat().draw(), seat(), seat()],
    );
    // green-7 is not playable: the turn ends although red-1 could be played.
    assert_log(&run, &["flip red-5", "draw 0 turn: green-7", "pass 0"]);
    assert!(!run.asked(Q::PlayDrawn));
    assert_eq!(run.res().illegal[0], 0);
}

#[test]
fn drawing_when_playable_is_illegal_without_may_draw_when_playable() {
    let r = classic(&["hand_size=2", "max_turns=2", "may_draw_when_playable=false"]);
    let run = run_round(
        &r,
        2,
        &[
            &["red-1", "blue-1"],
            &["red-8", "red-9"],
            &["green-3", "green-4"],
        ],
        &["red-5"],
        &["green-7"],
        vec![seat().draw(), seat().play_uno("red-8"), seat()],
    );
    assert_log(
        &run,
        &[
            "flip red-5",
            "illegal 0 draw",
            "draw 0 wrong_card: green-7",
            "play 1 red-8 uno",
        ],
    );
    assert_eq!(run.res().illegal[0], 1);
    // Drawing with nothing playable stays legal.
    let run = run_round(
        &r,
        2,
        &[
            &["blue-1", "blue-2"],
            &["red-8", "red-9"],
            &["green-3", "green-4"],
        ],
        &["red-5"],
        &["green-7"],
        vec![seat().draw(), seat().play_uno("red-8"), seat()],
    );
    assert_log(
        &run,
        &[
            "flip red-5",
            "draw 0 turn: green-7",
            "pass 0",
            "play 1 red-8 uno",
        ],
    );
}

// ----- card effects --------------------------------------------------------------

#[test]
fn skip_next_player_loses_the_turn() {
    let r = classic(&["hand_size=2"]);
    let run = run_round(
        &r,
        2,
        &[
            &["red-skip", "red-1"],
            &["red-2", "red-3"],
            &["red-4", "red-6"],
        ],
        &["red-5"],
        &[],
        vec![
            seat().play_uno("red-skip").play("red-1"),
            seat(),
            seat().play_uno("red-4"),
        ],
    );
    assert_log(
        &run,
        &[
            "flip red-5",
            "play 0 red-skip uno",
            "skip 1",
            "play 2 red-4 uno",
            "play 0 red-1",
        ],
    );
    assert_eq!(run.res().turns, 3);
    assert_eq!(run.res().points[0], (2 + 3) + 6);
}

#[test]
fn reverse_with_three_players_flips_the_direction() {
    let r = classic(&["hand_size=2"]);
    let run = run_round(
        &r,
        2,
        &[
            &["red-reverse", "red-1"],
            &["red-2", "blue-3"],
            &["red-4", "green-6"],
        ],
        &["red-5"],
        &[],
        vec![
            seat().play_uno("red-reverse").play("red-1"),
            seat().play_uno("red-2"),
            seat().play_uno("red-4"),
        ],
    );
    assert_log(
        &run,
        &[
            "flip red-5",
            "play 0 red-reverse uno",
            "play 2 red-4 uno",
            "play 1 red-2 uno",
            "play 0 red-1",
        ],
    );
    assert_eq!(run.direction, -1);
    assert_eq!(run.res().turns, 4);
}

#[test]
fn draw2_next_player_draws_two_and_loses_the_turn() {
    let r = classic(&["hand_size=2"]);
    let run = run_round(
        &r,
        2,
        &[
            &["red-draw2", "red-1"],
            &["red-2", "blue-3"],
            &["red-4", "green-6"],
        ],
        &["red-5"],
        &["yellow-7", "yellow-8"],
        vec![
            seat().play_uno("red-draw2").play("red-1"),
            seat(),
            seat().play_uno("red-4"),
        ],
    );
    assert_log(
        &run,
        &[
            "flip red-5",
            "play 0 red-draw2 uno",
            "draw 1 draw2: yellow-7 yellow-8",
            "skip 1",
            "play 2 red-4 uno",
            "play 0 red-1",
        ],
    );
    let res = run.res();
    assert_eq!(res.turns, 3);
    assert_eq!(res.points[0], (2 + 3 + 7 + 8) + 6);
}

#[test]
fn wild_names_the_colour_that_must_be_followed() {
    let r = classic(&["hand_size=2"]);
    let run = run_round(
        &r,
        2,
        &[
            &["wild", "blue-1"],
            &["blue-2", "red-3"],
            &["blue-4", "green-6"],
        ],
        &["red-5"],
        &[],
        vec![
            seat().wild("wild", "blue").uno(true).play("blue-1"),
            seat().play_uno("blue-2"),
            seat().play_uno("blue-4"),
        ],
    );
    assert_log(
        &run,
        &[
            "flip red-5",
            "play 0 wild =blue uno",
            "play 1 blue-2 uno",
            "play 2 blue-4 uno",
            "play 0 blue-1",
        ],
    );
    assert_eq!(run.offers(1, Q::Play), vec![sorted(&["blue-2"])]);
}

#[test]
fn wild_may_name_the_current_colour() {
    let r = classic(&["hand_size=2", "max_turns=2"]);
    let run = run_round(
        &r,
        2,
        &[
            &["wild", "blue-1"],
            &["red-2", "blue-3"],
            &["blue-4", "green-6"],
        ],
        &["red-5"],
        &[],
        vec![
            seat().wild("wild", "red").uno(true),
            seat().play_uno("red-2"),
            seat(),
        ],
    );
    assert_log(
        &run,
        &["flip red-5", "play 0 wild =red uno", "play 1 red-2 uno"],
    );
    assert_eq!(run.offers(1, Q::Play), vec![sorted(&["red-2"])]);
}

#[test]
fn wild_draw4_next_player_draws_four_and_loses_the_turn() {
    let r = classic(&["hand_size=2"]);
    let run = run_round(
        &r,
        2,
        &[
            &["wild-draw4", "green-1"],
            &["red-2", "blue-3"],
            &["green-4", "green-6"],
        ],
        &["red-5"],
        &["yellow-1", "yellow-2", "yellow-3", "yellow-4"],
        vec![
            seat().wild("wild-draw4", "green").uno(true).play("green-1"),
            seat(),
            seat().play_uno("green-4"),
        ],
    );
    assert_log(
        &run,
        &[
            "flip red-5",
            "play 0 wild-draw4 =green uno",
            "draw 1 draw4: yellow-1 yellow-2 yellow-3 yellow-4",
            "skip 1",
            "play 2 green-4 uno",
            "play 0 green-1",
        ],
    );
    let res = run.res();
    assert_eq!(res.turns, 3);
    assert_eq!(res.points[0], (2 + 3 + 1 + 2 + 3 + 4) + 6);
}

// ----- section 5: two players ---------------------------------------------------

#[test]
fn two_players_reverse_acts_as_skip() {
    let r = classic(&["hand_size=2"]);
    let run = run_round(
        &r,
        1,
        &[&["red-reverse", "red-1"], &["blue-2", "blue-3"]],
        &["red-5"],
        &[],
        vec![seat().play_uno("red-reverse").play("red-1"), seat()],
    );
    assert_log(
        &run,
        &[
            "flip red-5",
            "play 0 red-reverse uno",
            "skip 1",
            "play 0 red-1",
        ],
    );
    assert_eq!(run.res().turns, 2);
    assert_eq!(run.res().points[0], 5);
}

#[test]
fn two_players_reverse_without_the_skip_setting_passes_the_turn() {
    let r = classic(&["hand_size=2", "two_player_reverse_skips=false"]);
    let run = run_round(
        &r,
        1,
        &[&["red-reverse", "red-1"], &["red-2", "blue-3"]],
        &["red-5"],
        &[],
        vec![
            seat().play_uno("red-reverse").play("red-1"),
            seat().play_uno("red-2"),
        ],
    );
    assert_log(
        &run,
        &[
            "flip red-5",
            "play 0 red-reverse uno",
            "play 1 red-2 uno",
            "play 0 red-1",
        ],
    );
}

#[test]
fn two_players_same_player_plays_again_after_skip_draw2_and_wild_draw4() {
    let r = classic(&["hand_size=4"]);
    let run = run_round(
        &r,
        1,
        &[
            &["red-skip", "red-draw2", "wild-draw4", "blue-1"],
            &["green-2", "green-3", "green-4", "green-6"],
        ],
        &["red-5"],
        &[
            "yellow-1", "yellow-2", "yellow-3", "yellow-4", "yellow-5", "yellow-6",
        ],
        vec![
            seat()
                .play("red-skip")
                .play("red-draw2")
                .wild("wild-draw4", "blue")
                .uno(true)
                .play("blue-1"),
            seat(),
        ],
    );
    assert_log(
        &run,
        &[
            "flip red-5",
            "play 0 red-skip",
            "skip 1",
            "play 0 red-draw2",
            "draw 1 draw2: yellow-1 yellow-2",
            "skip 1",
            "play 0 wild-draw4 =blue uno",
            "draw 1 draw4: yellow-3 yellow-4 yellow-5 yellow-6",
            "skip 1",
            "play 0 blue-1",
        ],
    );
    assert_eq!(run.res().turns, 4);
}

// ----- UNO ---------------------------------------------------------------------

#[test]
fn uno_called_is_not_penalised_and_the_last_card_needs_no_call() {
    let r = classic(&["hand_size=2"]);
    let run = run_round(
        &r,
        2,
        &[
            &["red-1", "red-2"],
            &["blue-8", "blue-9"],
            &["green-3", "green-4"],
        ],
        &["red-5"],
        &["yellow-7", "yellow-8"],
        vec![
            seat().play_uno("red-1").play("red-2"),
            seat().draw(),
            seat().draw(),
        ],
    );
    assert_log(
        &run,
        &[
            "flip red-5",
            "play 0 red-1 uno",
            "draw 1 turn: yellow-7",
            "pass 1",
            "draw 2 turn: yellow-8",
            "pass 2",
            "play 0 red-2",
        ],
    );
    // call_uno is asked once: for the play that left one card.
    assert_eq!(run.offers(0, Q::Uno).len(), 1);
    assert_eq!(run.res().uno_penalties, 0);
}

#[test]
fn missed_uno_call_is_caught_before_the_cards_effect() {
    let r = classic(&["hand_size=2", "max_turns=1"]);
    let run = run_round(
        &r,
        2,
        &[
            &["red-draw2", "blue-1"],
            &["green-2", "green-3"],
            &["blue-4", "blue-6"],
        ],
        &["red-5"],
        &["yellow-1", "yellow-2", "yellow-3", "yellow-4"],
        vec![seat().play("red-draw2").uno(false), seat(), seat()],
    );
    assert_log(
        &run,
        &[
            "flip red-5",
            "play 0 red-draw2",
            "uno_caught 0",
            "draw 0 uno_penalty: yellow-1 yellow-2",
            "draw 1 draw2: yellow-3 yellow-4",
            "skip 1",
        ],
    );
    assert_hand(&run, 0, &["blue-1", "yellow-1", "yellow-2"]);
    assert_eq!(run.res().uno_penalties, 1);
}

#[test]
fn uno_penalty_setting_sets_the_number_of_cards() {
    for (k, drawn) in [(1usize, "yellow-1"), (3, "yellow-1 yellow-2 yellow-3")] {
        let r = classic(&["hand_size=2", "max_turns=1", &format!("uno_penalty={k}")]);
        let run = run_round(
            &r,
            2,
            &[
                &["red-1", "blue-1"],
                &["green-2", "green-3"],
                &["blue-4", "blue-6"],
            ],
            &["red-5"],
            &["yellow-1", "yellow-2", "yellow-3"],
            vec![seat().play("red-1").uno(false), seat(), seat()],
        );
        assert_log(
            &run,
            &[
                "flip red-5",
                "play 0 red-1",
                "uno_caught 0",
                format!("draw 0 uno_penalty: {drawn}").as_str(),
            ],
        );
    }
}

#[test]
fn uno_catch_chance_zero_never_catches() {
    let r = classic(&["hand_size=2", "max_turns=1", "uno_catch_chance=0.0"]);
    for seed in 1..=30 {
        let run = run_round_seeded(
            &r,
            2,
            &[
                &["red-1", "blue-1"],
                &["green-2", "green-3"],
                &["blue-4", "blue-6"],
            ],
            &["red-5"],
            &[],
            vec![seat().play("red-1").uno(false), seat(), seat()],
            seed,
        );
        assert_log(&run, &["flip red-5", "play 0 red-1"]);
        assert_eq!(run.res().uno_penalties, 0);
    }
}

#[test]
fn uno_catch_chance_is_a_probability() {
    let r = classic(&["hand_size=2", "max_turns=1", "uno_catch_chance=0.5"]);
    let mut caught = 0;
    for seed in 1..=200 {
        let run = run_round_seeded(
            &r,
            2,
            &[
                &["red-1", "blue-1"],
                &["green-2", "green-3"],
                &["blue-4", "blue-6"],
            ],
            &["red-5"],
            &[],
            vec![seat().play("red-1").uno(false), seat(), seat()],
            seed,
        );
        caught += run.res().uno_penalties;
    }
    assert!(
        (60..=140).contains(&caught),
        "caught {caught} of 200 at p = 0.5"
    );
}

// ----- illegal actions ----------------------------------------------------------

#[test]
fn wrong_card_stays_in_hand_penalty_drawn_turn_ends() {
    let r = classic(&["hand_size=2", "max_turns=2"]);
    let run = run_round(
        &r,
        2,
        &[
            &["blue-9", "green-1"],
            &["red-2", "red-3"],
            &["green-2", "green-3"],
        ],
        &["red-5"],
        &["yellow-7"],
        vec![seat().play("blue-9"), seat().play_uno("red-2"), seat()],
    );
    assert_log(
        &run,
        &[
            "flip red-5",
            "illegal 0 play blue-9",
            "draw 0 wrong_card: yellow-7",
            "play 1 red-2 uno",
        ],
    );
    assert_hand(&run, 0, &["blue-9", "green-1", "yellow-7"]);
    let res = run.res();
    assert_eq!(res.illegal[..3], [1, 0, 0]);
    assert_eq!(res.turns, 2);
}

#[test]
fn playing_a_card_not_held_is_a_wrong_card() {
    let r = classic(&["hand_size=2", "max_turns=1"]);
    let run = run_round(
        &r,
        2,
        &[
            &["blue-9", "green-1"],
            &["red-2", "red-3"],
            &["green-2", "green-3"],
        ],
        &["red-5"],
        &["yellow-7"],
        vec![seat().play("red-1"), seat(), seat()],
    );
    assert_log(
        &run,
        &[
            "flip red-5",
            "illegal 0 play red-1",
            "draw 0 wrong_card: yellow-7",
        ],
    );
    assert_hand(&run, 0, &["blue-9", "green-1", "yellow-7"]);
    assert_eq!(run.top, "red-5");
}

#[test]
fn wrong_card_penalty_setting_sets_the_number_of_cards() {
    let r = classic(&["hand_size=2", "max_turns=1", "wrong_card_penalty=2"]);
    let run = run_round(
        &r,
        2,
        &[
            &["blue-9", "green-1"],
            &["red-2", "red-3"],
            &["green-2", "green-3"],
        ],
        &["red-5"],
        &["yellow-7", "yellow-8"],
        vec![seat().play("blue-9"), seat(), seat()],
    );
    assert_log(
        &run,
        &[
            "flip red-5",
            "illegal 0 play blue-9",
            "draw 0 wrong_card: yellow-7 yellow-8",
        ],
    );
}

#[test]
fn strict_mode_stops_with_an_error_naming_the_strategy() {
    let r = classic(&["hand_size=2", "strict=true"]);
    let run = run_round(
        &r,
        2,
        &[
            &["blue-9", "green-1"],
            &["red-2", "red-3"],
            &["green-2", "green-3"],
        ],
        &["red-5"],
        &["yellow-7"],
        vec![seat().play("blue-9").named("alice"), seat(), seat()],
    );
    let err = match &run.result {
        Err(e) => e.clone(),
        Ok(r) => panic!("strict mode returned Ok: {r:?}"),
    };
    assert_eq!(err.strategy, "alice");
    assert_eq!(err.seat, 0);
    let msg = err.to_string();
    assert!(msg.contains("alice"), "{msg}");
    assert!(msg.contains("blue-9"), "{msg}");
    // No sanction is applied in strict mode.
    assert!(
        !run.draws().iter().any(|d| d.2 == DrawReason::WrongCard),
        "{:?}",
        run.log()
    );
}

// ----- the draw pile runs out ---------------------------------------------------

const TEN_AND_A_WILD: &str = r#"
[[deck]]
faces = ["1", "2", "3", "4", "5"]
count = 1
colors = ["red", "blue"]

[[deck]]
faces = ["wild"]
count = 1
"#;

#[test]
fn reshuffle_discard_less_top_then_blocked_when_both_piles_are_empty() {
    let r = custom_rules(TEN_AND_A_WILD, &["hand_size=3"]);
    assert_eq!(r.deck.size, 11);
    let run = run_round(
        &r,
        1,
        &[
            &["red-1", "wild", "blue-2"],
            &["blue-3", "blue-4", "blue-5"],
        ],
        &["red-4"],
        &["red-2", "red-3", "red-5", "blue-1"],
        vec![
            seat()
                .play("red-1")
                .wild("wild", "yellow")
                .uno(true)
                .draw()
                .draw()
                .draw(),
            seat().draw().play_drawn(false).draw().draw().draw().draw(),
        ],
    );
    let new_pile = run
        .events
        .iter()
        .find_map(|e| match e {
            Ev::Reshuffle { pile } => Some(pile.clone()),
            _ => None,
        })
        .expect("a reshuffle");
    assert_eq!(
        sorted(&new_pile.iter().map(|s| s.as_str()).collect::<Vec<_>>()),
        sorted(&["red-4", "red-1"]),
        "the discard pile less its top (the wild) becomes the draw pile"
    );
    let x = format!("draw 0 turn: {}", new_pile[0]);
    let y = format!("draw 1 turn: {}", new_pile[1]);
    assert_log(
        &run,
        &[
            "flip red-4",
            "play 0 red-1",
            "draw 1 turn: red-2",
            "pass 1",
            "play 0 wild =yellow uno",
            "draw 1 turn: red-3",
            "pass 1",
            "draw 0 turn: red-5",
            "pass 0",
            "draw 1 turn: blue-1",
            "pass 1",
            "reshuffle: red-1 red-4",
            x.as_str(),
            "pass 0",
            y.as_str(),
            "pass 1",
            // Nothing left to draw: two turns in a row with no card played or drawn.
            "pass 0",
            "pass 1",
        ],
    );
    assert_eq!(run.top, "wild");
    let res = run.res();
    assert_eq!(res.outcome, Outcome::Blocked);
    assert_eq!(res.winner, None);
    assert_eq!(res.points[..2], [0, 0]);
    assert_eq!(res.turns, 10);
    assert_eq!(run.totals, [0, 0]);
}

#[test]
fn a_draw_that_spans_a_reshuffle_is_two_draws_around_it() {
    let deck = r#"
[[deck]]
faces = ["1", "2", "3", "4"]
count = 1
colors = ["red", "blue"]

[[deck]]
faces = ["draw2"]
count = 1
colors = ["red"]
"#;
    let r = custom_rules(deck, &["hand_size=3"]);
    let run = run_round(
        &r,
        1,
        &[
            &["red-1", "red-2", "red-draw2"],
            &["blue-1", "blue-2", "blue-3"],
        ],
        &["red-4"],
        &["red-3", "blue-4"],
        vec![
            seat().play("red-1").play_uno("red-draw2").play("red-2"),
            seat().draw().play_drawn(false),
        ],
    );
    let new_pile = run
        .events
        .iter()
        .find_map(|e| match e {
            Ev::Reshuffle { pile } => Some(pile.clone()),
            _ => None,
        })
        .expect("a reshuffle");
    let second = format!("draw 1 draw2: {}", new_pile[0]);
    assert_log(
        &run,
        &[
            "flip red-4",
            "play 0 red-1",
            "draw 1 turn: red-3",
            "pass 1",
            "play 0 red-draw2 uno",
            "draw 1 draw2: blue-4",
            "reshuffle: red-1 red-4",
            second.as_str(),
            "skip 1",
            "play 0 red-2",
        ],
    );
    assert_eq!(run.res().winner, Some(0));
}

/// A draw of several cards with both piles all but empty: the player draws
/// what there is (the discard pile less its top), and the draw ends short.
#[test]
fn a_draw_two_with_one_card_left_in_both_piles_draws_that_one() {
    let deck = r#"
[[deck]]
faces = ["1", "2", "3"]
count = 1
colors = ["red", "blue"]

[[deck]]
faces = ["draw2"]
count = 1
colors = ["red"]
"#;
    // 2 x 3 dealt and the start card: the draw pile is empty from the start.
    let r = custom_rules(deck, &["hand_size=3"]);
    assert_eq!(r.deck.size, 7);
    let run = run_round(
        &r,
        1,
        &[
            &["red-draw2", "red-1", "red-2"],
            &["blue-1", "blue-2", "blue-3"],
        ],
        &["red-3"],
        &[],
        vec![
            seat().play("red-draw2").play_uno("red-1").play("red-2"),
            seat().play("red-3"),
        ],
    );
    assert_log(
        &run,
        &[
            "flip red-3",
            "play 0 red-draw2",
            "reshuffle: red-3",
            // One card of the two: nothing is left to draw (the Draw Two
            // stays as the top), and the player still loses the turn.
            "draw 1 draw2: red-3",
            "skip 1",
            "play 0 red-1 uno",
            "play 1 red-3",
            "play 0 red-2",
        ],
    );
    let res = run.res();
    assert_eq!(res.winner, Some(0));
    assert_eq!(res.points[0], 1 + 2 + 3, "seat 1 kept its three blue cards");
}

#[test]
fn blocked_after_as_many_idle_turns_as_players() {
    let deck = r#"
[[deck]]
faces = ["1"]
count = 1
colors = ["red"]

[[deck]]
faces = ["2"]
count = 1
colors = ["blue"]

[[deck]]
faces = ["3"]
count = 1
colors = ["green"]

[[deck]]
faces = ["4"]
count = 1
colors = ["yellow"]
"#;
    let r = custom_rules(deck, &["hand_size=1"]);
    let run = run_round(
        &r,
        2,
        &[&["blue-2"], &["green-3"], &["yellow-4"]],
        &["red-1"],
        &[],
        vec![seat().draw(), seat().draw(), seat().draw()],
    );
    assert_log(&run, &["flip red-1", "pass 0", "pass 1", "pass 2"]);
    let res = run.res();
    assert_eq!(res.outcome, Outcome::Blocked);
    assert_eq!(res.winner, None);
    assert_eq!(res.turns, 3);
    assert_eq!(res.points[..3], [0, 0, 0]);
}

/// A turn that ends on a wrong card when both piles are empty plays no card
/// and draws none (the sanction finds nothing): it counts toward a blocked
/// round as a pass does (RULES: "as many consecutive turns as there are
/// players end with no card played and none drawn").
#[test]
fn a_wrong_card_that_draws_nothing_is_an_idle_turn() {
    let r = custom_rules(FOUR_CARDS, &["hand_size=1"]);
    let run = run_round(
        &r,
        2,
        &[&["blue-2"], &["green-3"], &["yellow-4"]],
        &["red-1"],
        &[],
        vec![seat().play("blue-2"), seat().draw(), seat().draw()],
    );
    assert_log(
        &run,
        &["flip red-1", "illegal 0 play blue-2", "pass 1", "pass 2"],
    );
    let res = run.res();
    assert_eq!(res.outcome, Outcome::Blocked);
    assert_eq!(res.winner, None);
    assert_eq!(res.turns, 3);
    assert_eq!(res.illegal[..3], [1, 0, 0]);
}

/// The same for a seven-o 7 whose swap target is illegal (the card stays in
/// the hand, the sanction draws nothing): an idle turn.
#[test]
fn an_illegal_swap_target_that_draws_nothing_is_an_idle_turn() {
    let deck = format!("{FOUR_CARDS}\n[[deck]]\nfaces = [\"7\"]\ncount = 1\ncolors = [\"red\"]\n");
    let r = custom_rules(&deck, &["hand_size=2", "seven_o=true"]);
    let run = run_round(
        &r,
        1,
        &[&["red-7", "blue-2"], &["green-3", "yellow-4"]],
        &["red-1"],
        &[],
        vec![seat().play("red-7").target(0), seat().draw()],
    );
    assert_log(&run, &["flip red-1", "illegal 0 target 0", "pass 1"]);
    let res = run.res();
    assert_eq!(res.outcome, Outcome::Blocked);
    assert_eq!(res.turns, 2);
    assert_hand(&run, 0, &["red-7", "blue-2"]);
}

#[test]
fn truncated_after_max_turns() {
    let r = classic(&["hand_size=2", "max_turns=3"]);
    let run = run_round(
        &r,
        2,
        &[
            &["blue-1", "blue-2"],
            &["green-1", "green-2"],
            &["yellow-1", "yellow-2"],
        ],
        &["red-5"],
        &["green-7", "yellow-7", "blue-7"],
        vec![seat().draw(), seat().draw(), seat().draw()],
    );
    assert_log(
        &run,
        &[
            "flip red-5",
            "draw 0 turn: green-7",
            "pass 0",
            "draw 1 turn: yellow-7",
            "pass 1",
            "draw 2 turn: blue-7",
            "pass 2",
        ],
    );
    let res = run.res();
    assert_eq!(res.outcome, Outcome::Truncated);
    assert_eq!(res.winner, None);
    assert_eq!(res.turns, 3);
    assert_eq!(res.points[..3], [0, 0, 0]);
}

#[test]
fn a_round_won_on_the_last_allowed_turn_is_won() {
    let r = classic(&["hand_size=1", "max_turns=1"]);
    let run = run_round(
        &r,
        2,
        &[&["red-1"], &["blue-9"], &["green-skip"]],
        &["red-5"],
        &[],
        vec![seat().play("red-1"), seat(), seat()],
    );
    assert_eq!(run.res().outcome, Outcome::Won);
    assert_eq!(run.res().winner, Some(0));
}

// ----- section 4: end of a round and scoring ------------------------------------

#[test]
fn last_card_draw2_next_player_draws_before_scoring() {
    let r = classic(&["hand_size=1"]);
    let run = run_round(
        &r,
        2,
        &[&["red-draw2"], &["blue-9"], &["green-skip"]],
        &["red-5"],
        &["yellow-7", "yellow-8"],
        vec![seat().play("red-draw2"), seat(), seat()],
    );
    assert_log(
        &run,
        &[
            "flip red-5",
            "play 0 red-draw2",
            "draw 1 draw2: yellow-7 yellow-8",
        ],
    );
    assert_hand(&run, 0, &[]);
    assert_hand(&run, 1, &["blue-9", "yellow-7", "yellow-8"]);
    let res = run.res();
    assert_eq!(res.winner, Some(0));
    assert_eq!(res.points[..3], [9 + 7 + 8 + 20, 0, 0]);
}

#[test]
fn last_card_wild_draw4_next_player_draws_four_before_scoring() {
    let r = classic(&["hand_size=1"]);
    let run = run_round(
        &r,
        2,
        &[&["wild-draw4"], &["blue-9"], &["green-skip"]],
        &["red-5"],
        &["yellow-1", "yellow-2", "yellow-3", "yellow-4"],
        vec![seat().wild("wild-draw4", "blue"), seat(), seat()],
    );
    assert_log(
        &run,
        &[
            "flip red-5",
            "play 0 wild-draw4 =blue",
            "draw 1 draw4: yellow-1 yellow-2 yellow-3 yellow-4",
        ],
    );
    assert_eq!(run.res().points[0], (9 + 1 + 2 + 3 + 4) + 20);
}

#[test]
fn two_players_last_card_draw2_winner_draws_nothing() {
    let r = classic(&["hand_size=1"]);
    let run = run_round(
        &r,
        1,
        &[&["red-draw2"], &["blue-9"]],
        &["red-5"],
        &["yellow-7", "yellow-8"],
        vec![seat().play("red-draw2"), seat()],
    );
    assert_log(
        &run,
        &[
            "flip red-5",
            "play 0 red-draw2",
            "draw 1 draw2: yellow-7 yellow-8",
        ],
    );
    assert_hand(&run, 0, &[]);
    assert_eq!(run.res().points[..2], [24, 0]);
}

#[test]
fn winner_scoring_winner_gets_the_points_left_in_other_hands() {
    let r = classic(&["hand_size=2"]);
    let run = run_round(
        &r,
        2,
        &[
            &["red-1", "red-2"],
            &["wild", "blue-reverse"],
            &["green-draw2", "yellow-8"],
        ],
        &["red-5"],
        &["blue-7", "blue-8"],
        vec![
            seat().play_uno("red-1").play("red-2"),
            seat().draw(),
            seat().draw(),
        ],
    );
    let res = run.res();
    assert_eq!(res.winner, Some(0));
    // Seat 1: 50 + 20 + 7, seat 2: 20 + 8 + 8.
    assert_eq!(res.points[..3], [77 + 36, 0, 0]);
    assert_eq!(run.totals, [113, 0, 0]);
}

#[test]
fn penalty_scoring_each_seat_scores_its_own_hand() {
    let r = classic(&["hand_size=2", "scoring=penalty"]);
    let run = run_round(
        &r,
        2,
        &[
            &["red-1", "red-2"],
            &["wild", "blue-reverse"],
            &["green-draw2", "yellow-8"],
        ],
        &["red-5"],
        &["blue-7", "blue-8"],
        vec![
            seat().play_uno("red-1").play("red-2"),
            seat().draw(),
            seat().draw(),
        ],
    );
    let res = run.res();
    assert_eq!(res.winner, Some(0));
    assert_eq!(res.points[..3], [0, 77, 36]);
    assert_eq!(run.totals, [0, 77, 36]);
}

// ----- matches ---------------------------------------------------------------------

/// Seat 0 goes out at once and scores 70 (wild 50 + reverse 20).
fn match_hands() -> [&'static [&'static str]; 3] {
    [&["red-1"], &["wild"], &["blue-reverse"]]
}

#[test]
fn match_ends_when_a_total_reaches_the_target() {
    let r = classic(&["hand_size=1", "dealer=2", "target=50", "rounds=5"]);
    let m = run_match(
        &r,
        2,
        &match_hands(),
        &["red-5"],
        &[],
        vec![seat().play("red-1"), seat(), seat()],
        1,
    );
    assert_eq!(m.result.rounds, 1);
    assert_eq!(m.result.winner, Some(0));
    assert_eq!(m.result.totals[..3], [70, 0, 0]);
    assert_eq!(m.rounds.len(), 1);
    assert_eq!(m.round_ends().len(), 1);
}

#[test]
fn match_ends_after_the_rounds_setting() {
    let r = classic(&["hand_size=1", "dealer=2", "target=500", "rounds=1"]);
    let m = run_match(
        &r,
        2,
        &match_hands(),
        &["red-5"],
        &[],
        vec![seat().play("red-1"), seat(), seat()],
        1,
    );
    assert_eq!(m.result.rounds, 1);
    assert_eq!(m.result.winner, Some(0));
    assert_eq!(m.result.totals[..3], [70, 0, 0]);
}

#[test]
fn match_of_several_rounds_deal_passes_left_and_totals_add_up() {
    let r = classic(&["hand_size=1", "dealer=2", "target=0", "rounds=3"]);
    let m = run_match(
        &r,
        2,
        &match_hands(),
        &["red-5"],
        &[],
        vec![
            seat().play("red-1").then_first(),
            seat().then_first(),
            seat().then_first(),
        ],
        7,
    );
    assert_eq!(m.result.rounds, 3, "target 0 means no target");
    assert_eq!(m.dealers(), [2, 0, 1], "the deal passes left");
    let mut totals = [0i64; 3];
    for (i, rr) in m.rounds.iter().enumerate() {
        assert_eq!(rr.round, i as u32 + 1);
        for (s, t) in totals.iter_mut().enumerate() {
            *t += rr.points[s] as i64;
        }
    }
    assert_eq!(m.result.totals[..3], totals);
    // Round-end events carry running totals.
    if let Ev::RoundEnd { totals: t, .. } = m.round_ends().last().unwrap() {
        assert_eq!(t[..], totals);
    }
    let best = *totals.iter().max().unwrap();
    let leaders: Vec<usize> = (0..3).filter(|&s| totals[s] == best).collect();
    let expect = if leaders.len() == 1 {
        Some(leaders[0] as u8)
    } else {
        None
    };
    assert_eq!(m.result.winner, expect);
}

#[test]
fn quick_play_is_one_round_first_out_wins_and_points_are_reported() {
    let r = classic(&["hand_size=1", "dealer=2", "quick=true"]);
    let m = run_match(
        &r,
        2,
        &match_hands(),
        &["red-5"],
        &[],
        vec![seat().play("red-1"), seat(), seat()],
        1,
    );
    assert_eq!(m.result.rounds, 1);
    assert_eq!(m.result.winner, Some(0));
    assert_eq!(m.rounds[0].points[..3], [70, 0, 0]);
    assert_eq!(m.result.totals[..3], [70, 0, 0]);
}

const FOUR_CARDS: &str = r#"
[[deck]]
faces = ["1"]
count = 1
colors = ["red"]

[[deck]]
faces = ["2"]
count = 1
colors = ["blue"]

[[deck]]
faces = ["3"]
count = 1
colors = ["green"]

[[deck]]
faces = ["4"]
count = 1
colors = ["yellow"]
"#;

#[test]
fn a_tie_for_the_best_total_has_no_winner() {
    let r = custom_rules(FOUR_CARDS, &["hand_size=1", "dealer=2", "rounds=1"]);
    let m = run_match(
        &r,
        2,
        &[&["blue-2"], &["green-3"], &["yellow-4"]],
        &["red-1"],
        &[],
        vec![seat().draw(), seat().draw(), seat().draw()],
        1,
    );
    assert_eq!(m.rounds[0].outcome, Outcome::Blocked);
    assert_eq!(m.result.rounds, 1);
    assert_eq!(m.result.totals[..3], [0, 0, 0]);
    assert_eq!(m.result.winner, None, "tied at 0: no winner");
}

#[test]
fn quick_play_of_a_blocked_round_has_no_winner() {
    let r = custom_rules(FOUR_CARDS, &["hand_size=1", "dealer=2", "quick=true"]);
    let m = run_match(
        &r,
        2,
        &[&["blue-2"], &["green-3"], &["yellow-4"]],
        &["red-1"],
        &[],
        vec![seat().draw(), seat().draw(), seat().draw()],
        1,
    );
    assert_eq!(m.result.rounds, 1);
    assert_eq!(m.result.winner, None);
}

#[test]
fn blocked_rounds_count_as_rounds() {
    let r = custom_rules(FOUR_CARDS, &["hand_size=1", "dealer=2", "rounds=2"]);
    let m = run_match(
        &r,
        2,
        &[&["blue-2"], &["green-3"], &["yellow-4"]],
        &["red-1"],
        &[],
        vec![
            seat().draw().then_first(),
            seat().draw().then_first(),
            seat().draw().then_first(),
        ],
        1,
    );
    assert_eq!(m.rounds[0].outcome, Outcome::Blocked);
    assert_eq!(m.result.rounds, 2);
    assert_eq!(m.rounds.len(), 2);
}

#[test]
fn truncated_rounds_count_as_rounds() {
    let r = classic(&["hand_size=2", "dealer=2", "rounds=2", "max_turns=1"]);
    let m = run_match(
        &r,
        2,
        &[
            &["red-1", "red-2"],
            &["blue-3", "blue-4"],
            &["green-5", "green-6"],
        ],
        &["red-9"],
        &[],
        vec![
            seat().play("red-1").then_first(),
            seat().then_first(),
            seat().then_first(),
        ],
        1,
    );
    assert_eq!(m.rounds[0].outcome, Outcome::Truncated);
    assert_eq!(m.rounds[0].points[..3], [0, 0, 0]);
    assert_eq!(m.result.rounds, 2);
    assert_eq!(m.rounds.len(), 2);
}

#[test]
fn penalty_match_the_lowest_total_wins() {
    // Seat 1 reaches the target with 9 points; seat 2 has the most (20); seat 0 the fewest.
    let r = classic(&["hand_size=1", "dealer=2", "scoring=penalty", "target=5"]);
    let m = run_match(
        &r,
        2,
        &[&["red-1"], &["blue-9"], &["green-skip"]],
        &["red-5"],
        &[],
        vec![seat().play("red-1"), seat(), seat()],
        1,
    );
    assert_eq!(m.result.rounds, 1);
    assert_eq!(m.result.totals[..3], [0, 9, 20]);
    assert_eq!(m.result.winner, Some(0));
}

#[test]
fn penalty_match_tie_for_lowest_has_no_winner() {
    let r = classic(&["hand_size=1", "dealer=2", "scoring=penalty", "rounds=1"]);
    let m = run_match(
        &r,
        2,
        &[&["red-1"], &["blue-0"], &["green-9"]],
        &["red-5"],
        &[],
        vec![seat().play("red-1"), seat(), seat()],
        1,
    );
    assert_eq!(m.result.totals[..3], [0, 0, 9]);
    assert_eq!(m.result.winner, None);
}

#[test]
fn quick_play_first_out_wins_even_when_penalty_totals_tie() {
    let r = classic(&["hand_size=1", "dealer=2", "scoring=penalty", "quick=true"]);
    let m = run_match(
        &r,
        2,
        &[&["red-1"], &["blue-0"], &["green-9"]],
        &["red-5"],
        &[],
        vec![seat().play("red-1"), seat(), seat()],
        1,
    );
    assert_eq!(m.result.totals[..3], [0, 0, 9]);
    assert_eq!(m.result.winner, Some(0), "quick play: first out wins");
}

#[test]
fn last_card_draw_is_not_answerable_with_stacking() {
    let r = classic(&["hand_size=1", "stacking=same"]);
    let run = run_round(
        &r,
        2,
        &[&["red-draw2"], &["blue-draw2"], &["green-skip"]],
        &["red-5"],
        &["yellow-7", "yellow-8"],
        vec![seat().play("red-draw2"), seat(), seat()],
    );
    assert_log(
        &run,
        &[
            "flip red-5",
            "play 0 red-draw2",
            "draw 1 draw2: yellow-7 yellow-8",
        ],
    );
    assert!(!run.asked(Q::Answer));
    assert_eq!(run.res().points[0], (20 + 7 + 8) + 20);
}

#[test]
fn last_card_wild_draw4_is_not_challenged() {
    let r = classic(&["hand_size=1", "bluff_challenge=true"]);
    let run = run_round(
        &r,
        2,
        &[&["wild-draw4"], &["blue-9"], &["green-skip"]],
        &["red-5"],
        &["yellow-1", "yellow-2", "yellow-3", "yellow-4"],
        vec![seat().wild("wild-draw4", "blue"), seat(), seat()],
    );
    assert_log(
        &run,
        &[
            "flip red-5",
            "play 0 wild-draw4 =blue",
            "draw 1 draw4: yellow-1 yellow-2 yellow-3 yellow-4",
        ],
    );
    assert!(!run.asked(Q::Challenge));
}

#[test]
fn start_wild_draw4_stays_as_a_plain_wild_when_the_pile_holds_only_those() {
    // RULES.md section 2, item 3: every card left in the draw pile after the
    // deal is a Wild Draw Four, so no flip can succeed. The flipped card stays
    // and acts as a plain Wild: P (left of the dealer) names the colour and
    // plays first; no one draws.
    let deck = r#"
[[deck]]
faces = ["1", "2", "3"]
count = 1
colors = ["red"]

[[deck]]
faces = ["wild-draw4"]
count = 2
"#;
    let r = custom_rules(deck, &["hand_size=2"]);
    let run = run_round(
        &r,
        1,
        &[&["red-1", "red-2"], &["red-3", "wild-draw4"]],
        &["wild-draw4"],
        &[],
        vec![
            seat().color("red").play_uno("red-1").play("red-2"),
            seat().play_uno("red-3"),
        ],
    );
    let flips: Vec<_> = run
        .events
        .iter()
        .filter(|e| matches!(e, Ev::Flip { .. }))
        .collect();
    assert_eq!(flips.len(), 1, "one flip, and it stays: {flips:?}");
    let log = run.log();
    assert_eq!(log[0], "flip wild-draw4");
    assert!(
        log.iter()
            .all(|l| !l.contains("draw4") || l == "flip wild-draw4"),
        "nobody draws four: {log:?}"
    );
    let res = run.res();
    assert_eq!(res.first_player, 0, "P plays first");
    assert_eq!(res.winner, Some(0));
    assert_eq!(res.cards_drawn, 0, "no one draws: {log:?}");
}

#[test]
fn a_deck_of_wild_draw4_only_is_played_its_start_card_a_plain_wild() {
    // The same rule with a deck made only of Wild Draw Four (it was refused:
    // the rule book refuses only a table that cannot be dealt). The flipped
    // card stays as a plain Wild; every later card is a Wild Draw Four,
    // playable on anything (no hand holds a card of a colour).
    let deck = r#"
[[deck]]
faces = ["wild-draw4"]
count = 5
"#;
    let r = custom_rules(deck, &["hand_size=2"]);
    assert_eq!(r.deck.size, 5);
    let run = run_round(
        &r,
        1,
        &[&["wild-draw4", "wild-draw4"], &["wild-draw4", "wild-draw4"]],
        &["wild-draw4"],
        &[],
        vec![
            seat()
                .color("green")
                .wild("wild-draw4", "blue")
                .uno(true)
                .wild("wild-draw4", "red"),
            seat(),
        ],
    );
    let log = run.log();
    assert_eq!(log[0], "flip wild-draw4", "{log:?}");
    assert_eq!(log.iter().filter(|l| l.starts_with("flip")).count(), 1);
    let res = run.res();
    assert_eq!(res.first_player, 0, "P names the colour and plays first");
    assert_eq!(res.winner, Some(0), "{log:?}");
}

// ----- wild_when_matching = false (seeds 000 and 002) ----------------------------

/// (start card, colour named for a start wild, hand of seat 0, playable with
/// `wild_when_matching = false`, playable by default, card played).
type WildCase<'a> = (
    &'a str,
    Option<&'a str>,
    [&'a str; 4],
    &'a [&'a str],
    &'a [&'a str],
    &'a str,
);

#[test]
fn without_wild_when_matching_a_plain_wild_needs_a_hand_without_a_matching_card() {
    let others: [&[&str]; 2] = [
        &["yellow-5", "yellow-6", "yellow-8", "yellow-9"],
        &["green-5", "green-6", "green-8", "green-9"],
    ];
    let cases: [WildCase; 8] = [
        (
            // A card of the active colour forbids the wild.
            "red-5",
            None,
            ["wild", "red-1", "blue-2", "green-9"],
            &["red-1"],
            &["red-1", "wild"],
            "red-1",
        ),
        (
            // So does a card of the top's number...
            "red-5",
            None,
            ["wild", "blue-5", "green-2", "yellow-9"],
            &["blue-5"],
            &["blue-5", "wild"],
            "blue-5",
        ),
        (
            // ...or of its symbol.
            "red-skip",
            None,
            ["wild", "green-skip", "blue-2", "yellow-9"],
            &["green-skip"],
            &["green-skip", "wild"],
            "green-skip",
        ),
        (
            // No matching card: the wild is playable.
            "red-5",
            None,
            ["wild", "blue-1", "green-2", "yellow-9"],
            &["wild"],
            &["wild"],
            "wild",
        ),
        (
            // Wild Draw Four keeps its own restriction (the colour alone): a
            // card of the top's number forbids the wild, not the Wild Draw Four.
            "red-5",
            None,
            ["wild", "wild-draw4", "blue-5", "green-2"],
            &["blue-5", "wild-draw4"],
            &["blue-5", "wild", "wild-draw4"],
            "blue-5",
        ),
        (
            // Holding the active colour forbids both.
            "red-5",
            None,
            ["wild", "wild-draw4", "red-9", "green-2"],
            &["red-9"],
            &["red-9", "wild"],
            "red-9",
        ),
        (
            // After a wild naming yellow, matching means a yellow card.
            "wild",
            Some("yellow"),
            ["wild", "yellow-2", "red-9", "blue-9"],
            &["yellow-2"],
            &["yellow-2", "wild"],
            "yellow-2",
        ),
        (
            // Wilds never count as matching cards, not even on a wild.
            "wild",
            Some("red"),
            ["wild", "wild-draw4", "blue-1", "green-2"],
            &["wild", "wild-draw4"],
            &["wild", "wild-draw4"],
            "wild",
        ),
    ];
    for (setting, column) in [("false", 0), ("true", 1)] {
        let r = classic(&[
            "hand_size=4",
            "max_turns=1",
            "start_card_effects=false",
            &format!("wild_when_matching={setting}"),
        ]);
        for (start, named, hand, when_false, by_default, played) in cases {
            let expected = if column == 0 { when_false } else { by_default };
            let what = format!("wild_when_matching={setting}: ");
            check_first_play(&r, others, (start, named, hand, expected, played), &what);
        }
    }
}

#[test]
fn without_wild_when_matching_a_wild_played_while_matching_is_a_wrong_card() {
    let r = classic(&["hand_size=3", "max_turns=2", "wild_when_matching=false"]);
    let hands: [&[&str]; 3] = [
        &["wild", "blue-5", "green-2"],
        &["red-2", "red-3", "red-4"],
        &["green-3", "green-4", "green-6"],
    ];
    let run = run_round(
        &r,
        2,
        &hands,
        &["red-5"],
        &["yellow-7"],
        vec![seat().play("wild"), seat().play("red-2"), seat()],
    );
    assert_log(
        &run,
        &[
            "flip red-5",
            "illegal 0 play wild",
            "draw 0 wrong_card: yellow-7",
            "play 1 red-2",
        ],
    );
    assert_hand(&run, 0, &["wild", "blue-5", "green-2", "yellow-7"]);
    assert_eq!(run.res().illegal[..3], [1, 0, 0]);
    // Strict mode stops with an error naming the card.
    let r = classic(&["hand_size=3", "strict=true", "wild_when_matching=false"]);
    let run = run_round(
        &r,
        2,
        &hands,
        &["red-5"],
        &["yellow-7"],
        vec![seat().play("wild").named("alice"), seat(), seat()],
    );
    let err = match &run.result {
        Err(e) => e.clone(),
        Ok(r) => panic!("strict mode returned Ok: {r:?}"),
    };
    assert_eq!((err.strategy.as_str(), err.seat), ("alice", 0));
    assert!(err.to_string().contains("play wild"), "{err}");
    // By default the same play is legal.
    let r = classic(&["hand_size=3", "max_turns=1"]);
    let run = run_round(
        &r,
        2,
        &hands,
        &["red-5"],
        &[],
        vec![seat().wild("wild", "green"), seat(), seat()],
    );
    assert_log(&run, &["flip red-5", "play 0 wild =green"]);
}

#[test]
fn without_wild_when_matching_a_drawn_wild_follows_the_same_rule() {
    let r = classic(&["hand_size=2", "max_turns=1", "wild_when_matching=false"]);
    let others: [&[&str]; 2] = [&["yellow-3", "yellow-4"], &["green-3", "green-4"]];
    // No matching card: the drawn wild may be played.
    let run = run_round(
        &r,
        2,
        &[&["blue-1", "blue-2"], others[0], others[1]],
        &["red-5"],
        &["wild"],
        vec![seat().draw().play_drawn(true).color("blue"), seat(), seat()],
    );
    assert_log(
        &run,
        &["flip red-5", "draw 0 turn: wild", "play 0 wild =blue"],
    );
    assert_eq!(run.offers(0, Q::PlayDrawn), vec![vec!["wild".to_string()]]);
    // Drawing while holding a matching card (allowed by
    // may_draw_when_playable): the drawn wild is not playable, so the player
    // is not asked and the turn ends.
    let run = run_round(
        &r,
        2,
        &[&["red-1", "blue-2"], others[0], others[1]],
        &["red-5"],
        &["wild"],
        vec![seat().draw(), seat(), seat()],
    );
    assert_log(&run, &["flip red-5", "draw 0 turn: wild", "pass 0"]);
    assert!(!run.asked(Q::PlayDrawn));
    // By default it may be played.
    let r = classic(&["hand_size=2", "max_turns=1"]);
    let run = run_round(
        &r,
        2,
        &[&["red-1", "blue-2"], others[0], others[1]],
        &["red-5"],
        &["wild"],
        vec![seat().draw().play_drawn(false), seat(), seat()],
    );
    assert_eq!(run.offers(0, Q::PlayDrawn), vec![vec!["wild".to_string()]]);
}

// ----- readings of other implementations (docs/rules.md section 16) ------------

#[test]
fn start_draw2_without_the_skip_p_draws_two_and_still_plays_first() {
    let r = classic(&["hand_size=1", "max_turns=1", "start_draw2_skips=false"]);
    let run = run_round(
        &r,
        2,
        &[&["red-1"], &["red-2"], &["green-3"]],
        &["red-draw2"],
        &["blue-7", "blue-8"],
        vec![seat().play("red-1"), seat(), seat()],
    );
    assert_log(
        &run,
        &[
            "flip red-draw2",
            "draw 0 draw2: blue-7 blue-8",
            "play 0 red-1",
        ],
    );
    assert_eq!(run.res().first_player, 0);
}

#[test]
fn start_wild_with_a_random_colour_asks_nobody() {
    // Seat 0's script names no colour: a question would fail the test.
    let mut colours = std::collections::BTreeSet::new();
    for seed in 0..40 {
        let r = classic(&["hand_size=1", "start_wild_color=random", "max_turns=1"]);
        let run = run_round_seeded(
            &r,
            2,
            &[&["blue-4"], &["red-2"], &["green-3"]],
            &["wild"],
            &["yellow-9"],
            vec![seat().then_first(), seat(), seat()],
            seed,
        );
        assert!(!run.asked(Q::Color));
        let log = run.log();
        assert!(log[1].starts_with("color 0 "), "{log:?}");
        colours.insert(log[1].clone());
    }
    assert_eq!(colours.len(), 4, "every colour comes up: {colours:?}");
}

#[test]
fn wd4_as_a_last_resort_only_when_nothing_else_plays() {
    let r = classic(&["hand_size=2", "max_turns=1", "wd4_last_resort=true"]);
    // (hand, playable offered): a matching card, a plain wild, a card of
    // the top's face in another colour each keep Wild Draw Four back; with
    // nothing else playable (and no red) it may be played.
    let cases: [(&[&str], &[&str]); 4] = [
        (&["wild-draw4", "blue-5"], &["blue-5"]),
        (&["wild-draw4", "wild"], &["wild"]),
        (&["wild-draw4", "red-1"], &["red-1"]),
        (&["wild-draw4", "blue-1"], &["wild-draw4"]),
    ];
    for (hand, offered) in cases {
        let run = run_round(
            &r,
            2,
            &[hand, &["green-2", "green-3"], &["green-4", "green-6"]],
            &["red-5"],
            &["yellow-9"],
            vec![seat().then_first(), seat(), seat()],
        );
        assert_eq!(run.offers(0, Q::Play), vec![sorted(offered)], "{hand:?}");
    }
}

#[test]
fn drawn_card_rlcard_plays_wilds_and_the_active_colour_keeps_the_rest() {
    let r = classic(&["hand_size=1", "max_turns=2", "drawn_card=rlcard"]);
    // A drawn Wild Draw Four: played at once with a random colour and no
    // effect (seat 1 draws nothing and plays); nobody is asked.
    let run = run_round(
        &r,
        2,
        &[&["green-1"], &["blue-2"], &["green-3"]],
        &["red-5"],
        &["wild-draw4"],
        vec![seat().draw().uno(true), seat().then_first(), seat()],
    );
    let log = run.log();
    assert_eq!(log[1], "draw 0 turn: wild-draw4", "{log:?}");
    assert!(log[2].starts_with("play 0 wild-draw4"), "{log:?}");
    assert!(!log.iter().any(|l| l.starts_with("draw 1")), "{log:?}");
    assert!(!run.asked(Q::PlayDrawn) && !run.asked(Q::Color));
    // A drawn card of the active colour: played at once, with its effect.
    let run = run_round(
        &r,
        2,
        &[&["green-1"], &["blue-2"], &["green-3"]],
        &["red-5"],
        &["red-skip"],
        vec![seat().draw().uno(true), seat(), seat().then_first()],
    );
    assert_eq!(
        &run.log()[..4],
        &[
            "flip red-5",
            "draw 0 turn: red-skip",
            "play 0 red-skip uno",
            "skip 1"
        ]
    );
    // A drawn card of the top's number in another colour: kept.
    let run = run_round(
        &r,
        2,
        &[&["green-1"], &["blue-2"], &["green-3"]],
        &["red-5"],
        &["blue-5"],
        vec![seat().draw(), seat().then_first(), seat()],
    );
    assert_eq!(
        &run.log()[..3],
        &["flip red-5", "draw 0 turn: blue-5", "pass 0"]
    );
    assert!(!run.asked(Q::PlayDrawn));
}

#[test]
fn the_rlcard_rule_set_starts_with_seat_0_and_plays_its_readings() {
    let r = rules("rlcard", &["hand_size=1"]);
    let s = &r.settings;
    assert!(
        !s.may_draw_when_playable
            && !s.two_player_reverse_skips
            && !s.start_draw2_skips
            && s.wd4_last_resort
            && s.quick
            && s.uno_catch_chance == 0.0
    );
    assert_eq!(r.deck.size, 108);
    // Seat 0 moves first at 2 players (dealer 1).
    let run = run_round(
        &r,
        1,
        &[&["red-1"], &["green-2"]],
        &["red-5"],
        &[],
        vec![seat().play("red-1"), seat()],
    );
    assert_eq!(run.res().first_player, 0);
}
