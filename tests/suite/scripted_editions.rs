//! Scripted deals for the themed cards (h2o Downpour, lilo-stitch Ohana, cars3
//! Swap and Custom) and the house rules of RULES.md section 6.
//!
//! Unless a test says otherwise: three players, dealer 2, so seat 0 is the
//! player left of the dealer and play goes 0, 1, 2.

use crate::common::*;

// ----- h2o: Wild Downpour ------------------------------------------------------

#[test]
fn downpour1_every_other_player_draws_one_in_turn_order_nobody_skipped() {
    let r = rules("h2o", &["hand_size=2", "max_turns=2"]);
    let run = run_round(
        &r,
        3,
        &[
            &["wild-downpour1", "red-1"],
            &["blue-2", "blue-3"],
            &["green-4", "green-6"],
            &["yellow-1", "yellow-2"],
        ],
        &["red-5"],
        &["red-7", "red-8", "red-9"],
        vec![
            seat().wild("wild-downpour1", "red").uno(true),
            seat().play("red-7"),
            seat(),
            seat(),
        ],
    );
    assert_log(
        &run,
        &[
            "flip red-5",
            "play 0 wild-downpour1 =red uno",
            "draw 1 downpour: red-7",
            "draw 2 downpour: red-8",
            "draw 3 downpour: red-9",
            "play 1 red-7",
        ],
    );
    assert_hand(&run, 0, &["red-1"]);
}

#[test]
fn downpour2_counter_clockwise_draws_two_each_from_next() {
    // Start Reverse with four players: the dealer (3) plays first, direction -1.
    let r = rules("h2o", &["hand_size=2", "max_turns=2"]);
    let run = run_round(
        &r,
        3,
        &[
            &["green-1", "green-2"],
            &["green-3", "green-4"],
            &["blue-2", "blue-3"],
            &["wild-downpour2", "red-1"],
        ],
        &["red-reverse"],
        &[
            "yellow-1", "yellow-2", "yellow-3", "yellow-4", "yellow-5", "yellow-6",
        ],
        vec![
            seat(),
            seat(),
            seat().play("blue-2"),
            seat().wild("wild-downpour2", "blue").uno(true),
        ],
    );
    assert_log(
        &run,
        &[
            "flip red-reverse",
            "play 3 wild-downpour2 =blue uno",
            "draw 2 downpour: yellow-1 yellow-2",
            "draw 1 downpour: yellow-3 yellow-4",
            "draw 0 downpour: yellow-5 yellow-6",
            "play 2 blue-2",
        ],
    );
    assert_hand(&run, 3, &["red-1"]);
}

#[test]
fn downpour_skips_next_setting() {
    let r = rules(
        "h2o",
        &["hand_size=2", "max_turns=2", "downpour_skips_next=true"],
    );
    let run = run_round(
        &r,
        2,
        &[
            &["wild-downpour1", "red-1"],
            &["red-2", "red-3"],
            &["red-4", "green-6"],
        ],
        &["red-5"],
        &["yellow-7", "yellow-8"],
        vec![
            seat().wild("wild-downpour1", "red").uno(true),
            seat(),
            seat().play("red-4"),
        ],
    );
    assert_log(
        &run,
        &[
            "flip red-5",
            "play 0 wild-downpour1 =red uno",
            "draw 1 downpour: yellow-7",
            "draw 2 downpour: yellow-8",
            "skip 1",
            "play 2 red-4",
        ],
    );
}

#[test]
fn downpour_as_last_card_the_others_draw_before_scoring() {
    let r = rules("h2o", &["hand_size=1"]);
    let run = run_round(
        &r,
        2,
        &[&["wild-downpour2"], &["blue-9"], &["green-skip"]],
        &["red-5"],
        &["yellow-1", "yellow-2", "yellow-3", "yellow-4"],
        vec![seat().wild("wild-downpour2", "red"), seat(), seat()],
    );
    assert_log(
        &run,
        &[
            "flip red-5",
            "play 0 wild-downpour2 =red",
            "draw 1 downpour: yellow-1 yellow-2",
            "draw 2 downpour: yellow-3 yellow-4",
        ],
    );
    assert_hand(&run, 0, &[]);
    let res = run.res();
    assert_eq!(res.winner, Some(0));
    assert_eq!(res.points[..3], [(9 + 1 + 2) + (20 + 3 + 4), 0, 0]);
}

#[test]
fn downpour_is_not_a_draw_card_for_stacking() {
    let r = rules("h2o", &["hand_size=2", "max_turns=2", "stacking=cross"]);
    let run = run_round(
        &r,
        2,
        &[
            &["wild-downpour1", "red-1"],
            &["blue-draw2", "blue-3"],
            &["wild-draw4", "green-6"],
        ],
        &["red-5"],
        &["yellow-7", "yellow-8"],
        vec![
            seat().wild("wild-downpour1", "blue").uno(true),
            seat().play("blue-3"),
            seat(),
        ],
    );
    assert_log(
        &run,
        &[
            "flip red-5",
            "play 0 wild-downpour1 =blue uno",
            "draw 1 downpour: yellow-7",
            "draw 2 downpour: yellow-8",
            "play 1 blue-3",
        ],
    );
    assert!(!run.asked(Q::Answer));
}

#[test]
fn start_downpour_goes_back_and_another_card_is_flipped() {
    let r = rules("h2o", &["hand_size=1"]);
    for card in ["wild-downpour1", "wild-downpour2"] {
        let run = run_round(
            &r,
            2,
            &[&["green-1"], &["red-2"], &["green-3"]],
            &[card, "green-5"],
            &[],
            vec![seat().play("green-1"), seat(), seat()],
        );
        let flips: Vec<(String, bool)> = run
            .events
            .iter()
            .filter_map(|e| match e {
                Ev::Flip { card, returned, .. } => Some((card.clone(), *returned)),
                _ => None,
            })
            .collect();
        assert!(flips.len() >= 2, "{flips:?}");
        for (c, ret) in &flips[..flips.len() - 1] {
            assert_eq!((c.as_str(), *ret), (card, true));
        }
        assert_eq!(flips.last().unwrap(), &("green-5".to_string(), false));
        assert!(
            run.pile.contains(&card.to_string()),
            "{card} is back in the pile"
        );
        assert!(
            !run.asked(Q::Color),
            "no colour is named for a returned card"
        );
    }
}

// ----- lilo-stitch: Wild Ohana ---------------------------------------------------

#[test]
fn ohana_fills_hands_under_four_in_turn_order_including_the_player() {
    // The start Draw Two leaves seat 0 with five cards: it draws nothing.
    let r = rules("lilo-stitch", &["hand_size=3", "max_turns=2"]);
    let run = run_round(
        &r,
        2,
        &[
            &["blue-1", "blue-2", "blue-3"],
            &["wild-ohana", "green-1", "green-2"],
            &["yellow-1", "yellow-2", "red-9"],
        ],
        &["red-draw2"],
        &["red-7", "red-8", "green-7", "green-8", "green-9"],
        vec![
            seat(),
            seat().wild("wild-ohana", "red"),
            seat().play("red-9"),
        ],
    );
    assert_log(
        &run,
        &[
            "flip red-draw2",
            "draw 0 draw2: red-7 red-8",
            "skip 0",
            "play 1 wild-ohana =red",
            // Seat 2 (3 cards) first, seat 0 (5 cards) nothing, then the player (2 cards).
            "draw 2 ohana: green-7",
            "draw 1 ohana: green-8 green-9",
            "play 2 red-9",
        ],
    );
    assert_hand(&run, 1, &["green-1", "green-2", "green-8", "green-9"]);
    assert_eq!(run.hands[0].len(), 5);
}

#[test]
fn ohana_fill_to_setting() {
    let r = rules(
        "lilo-stitch",
        &["hand_size=2", "max_turns=1", "ohana_fill_to=3"],
    );
    let run = run_round(
        &r,
        2,
        &[
            &["wild-ohana", "red-1"],
            &["blue-2", "blue-3"],
            &["green-4", "green-6"],
        ],
        &["red-5"],
        &["yellow-1", "yellow-2", "yellow-3", "yellow-4"],
        vec![seat().wild("wild-ohana", "red").uno(true), seat(), seat()],
    );
    assert_log(
        &run,
        &[
            "flip red-5",
            "play 0 wild-ohana =red uno",
            "draw 1 ohana: yellow-1",
            "draw 2 ohana: yellow-2",
            "draw 0 ohana: yellow-3 yellow-4",
        ],
    );
}

#[test]
fn ohana_as_last_card_only_the_others_fill() {
    let r = rules("lilo-stitch", &["hand_size=1"]);
    let run = run_round(
        &r,
        2,
        &[&["wild-ohana"], &["blue-9"], &["green-skip"]],
        &["red-5"],
        &[
            "yellow-1", "yellow-2", "yellow-3", "yellow-4", "yellow-5", "yellow-6",
        ],
        vec![seat().wild("wild-ohana", "red"), seat(), seat()],
    );
    assert_log(
        &run,
        &[
            "flip red-5",
            "play 0 wild-ohana =red",
            "draw 1 ohana: yellow-1 yellow-2 yellow-3",
            "draw 2 ohana: yellow-4 yellow-5 yellow-6",
        ],
    );
    assert_hand(&run, 0, &[]);
    let res = run.res();
    assert_eq!(res.winner, Some(0));
    assert_eq!(res.points[0], (9 + 1 + 2 + 3) + (20 + 4 + 5 + 6));
}

#[test]
fn missed_uno_on_ohana_is_caught_before_the_fill() {
    let r = rules("lilo-stitch", &["hand_size=2", "max_turns=1"]);
    let run = run_round(
        &r,
        2,
        &[
            &["wild-ohana", "red-1"],
            &["blue-2", "blue-3"],
            &["green-4", "green-6"],
        ],
        &["red-5"],
        &[
            "yellow-1", "yellow-2", "yellow-3", "yellow-4", "yellow-5", "yellow-6", "yellow-7",
        ],
        vec![seat().wild("wild-ohana", "red").uno(false), seat(), seat()],
    );
    assert_log(
        &run,
        &[
            "flip red-5",
            "play 0 wild-ohana =red",
            "uno_caught 0",
            "draw 0 uno_penalty: yellow-1 yellow-2",
            "draw 1 ohana: yellow-3 yellow-4",
            "draw 2 ohana: yellow-5 yellow-6",
            "draw 0 ohana: yellow-7",
        ],
    );
    assert_eq!(
        run.hands.iter().map(|h| h.len()).collect::<Vec<_>>(),
        [4, 4, 4]
    );
}

#[test]
fn start_ohana_only_names_the_colour() {
    let r = rules("lilo-stitch", &["hand_size=1"]);
    let run = run_round(
        &r,
        2,
        &[&["blue-4"], &["red-2"], &["green-3"]],
        &["wild-ohana"],
        &[],
        vec![seat().color("blue").play("blue-4"), seat(), seat()],
    );
    assert_log(&run, &["flip wild-ohana", "color 0 blue", "play 0 blue-4"]);
}

// ----- cars3: Wild Swap and Wild Custom --------------------------------------------

#[test]
fn wild_swap_exchanges_hands_with_the_chosen_opponent() {
    let r = rules("cars3", &["hand_size=3", "max_turns=2"]);
    let run = run_round(
        &r,
        2,
        &[
            &["wild-swap", "red-1", "red-2"],
            &["blue-1", "blue-2", "blue-3"],
            &["green-1", "green-2", "green-3"],
        ],
        &["red-5"],
        &["yellow-7"],
        vec![
            seat().wild("wild-swap", "green").target(2),
            seat().draw(),
            seat(),
        ],
    );
    assert_log(
        &run,
        &[
            "flip red-5",
            "play 0 wild-swap =green ->2",
            "swap 0 2",
            "draw 1 turn: yellow-7",
            "pass 1",
        ],
    );
    assert_hand(&run, 0, &["green-1", "green-2", "green-3"]);
    assert_hand(&run, 2, &["red-1", "red-2"]);
}

#[test]
fn wild_swap_as_last_card_swaps_nothing() {
    let r = rules("cars3", &["hand_size=1"]);
    let run = run_round(
        &r,
        2,
        &[&["wild-swap"], &["blue-9"], &["green-skip"]],
        &["red-5"],
        &[],
        vec![seat().wild("wild-swap", "red"), seat(), seat()],
    );
    assert_log(&run, &["flip red-5", "play 0 wild-swap =red"]);
    assert!(!run.asked(Q::Target));
    assert_eq!(run.res().points[0], 29);
}

#[test]
fn missed_uno_on_wild_swap_is_caught_before_the_swap() {
    let r = rules("cars3", &["hand_size=2", "max_turns=1"]);
    let run = run_round(
        &r,
        2,
        &[
            &["wild-swap", "red-1"],
            &["blue-1", "blue-2"],
            &["green-1", "green-2"],
        ],
        &["red-5"],
        &["yellow-1", "yellow-2"],
        vec![
            seat().wild("wild-swap", "blue").target(2).uno(false),
            seat(),
            seat(),
        ],
    );
    assert_log(
        &run,
        &[
            "flip red-5",
            "play 0 wild-swap =blue ->2",
            "uno_caught 0",
            "draw 0 uno_penalty: yellow-1 yellow-2",
            "swap 0 2",
        ],
    );
    assert_hand(&run, 0, &["green-1", "green-2"]);
    assert_hand(&run, 2, &["red-1", "yellow-1", "yellow-2"]);
}

#[test]
fn wild_swap_with_an_illegal_target_is_a_wrong_card() {
    // RULES.md section 3: an illegal action -> the card goes back to the hand,
    // the player draws wrong_card_penalty cards and the turn ends.
    let r = rules("cars3", &["hand_size=3", "max_turns=1"]);
    let run = run_round(
        &r,
        2,
        &[
            &["wild-swap", "red-1", "red-2"],
            &["blue-1", "blue-2", "blue-3"],
            &["green-1", "green-2", "green-3"],
        ],
        &["red-5"],
        &["yellow-7"],
        vec![seat().wild("wild-swap", "green").target(0), seat(), seat()],
    );
    assert_log(
        &run,
        &[
            "flip red-5",
            "illegal 0 target 0",
            "draw 0 wrong_card: yellow-7",
        ],
    );
    assert_hand(&run, 0, &["wild-swap", "red-1", "red-2", "yellow-7"]);
    assert_eq!(run.top, "red-5");
    assert_eq!(run.color, color("red"));
}

#[test]
fn wild_custom_gives_an_extra_turn() {
    let r = rules("cars3", &["hand_size=3", "max_turns=2"]);
    let run = run_round(
        &r,
        2,
        &[
            &["wild-custom", "red-1", "red-2"],
            &["blue-1", "blue-2", "blue-3"],
            &["green-1", "green-2", "green-3"],
        ],
        &["red-5"],
        &[],
        vec![
            seat().wild("wild-custom", "red").play_uno("red-1"),
            seat(),
            seat(),
        ],
    );
    assert_log(
        &run,
        &["flip red-5", "play 0 wild-custom =red", "play 0 red-1 uno"],
    );
    assert_eq!(run.res().turns, 2, "the extra turn is a turn");
}

#[test]
fn wild_custom_with_custom_effect_none_is_a_plain_wild() {
    let r = rules(
        "cars3",
        &["hand_size=3", "max_turns=2", "custom_effect=\"none\""],
    );
    let run = run_round(
        &r,
        2,
        &[
            &["wild-custom", "red-1", "red-2"],
            &["blue-1", "blue-2", "red-3"],
            &["green-1", "green-2", "green-3"],
        ],
        &["red-5"],
        &[],
        vec![
            seat().wild("wild-custom", "red"),
            seat().play("red-3"),
            seat(),
        ],
    );
    assert_log(
        &run,
        &["flip red-5", "play 0 wild-custom =red", "play 1 red-3"],
    );
}

#[test]
fn wild_custom_as_last_card_ends_the_round() {
    let r = rules("cars3", &["hand_size=1"]);
    let run = run_round(
        &r,
        2,
        &[&["wild-custom"], &["blue-9"], &["green-skip"]],
        &["red-5"],
        &[],
        vec![seat().wild("wild-custom", "red"), seat(), seat()],
    );
    assert_log(&run, &["flip red-5", "play 0 wild-custom =red"]);
    assert_eq!(run.res().winner, Some(0));
    assert_eq!(run.res().turns, 1);
}

#[test]
fn start_swap_and_custom_only_name_the_colour() {
    let r = rules("cars3", &["hand_size=2", "max_turns=2"]);
    for start in ["wild-swap", "wild-custom"] {
        let run = run_round(
            &r,
            2,
            &[
                &["blue-4", "blue-5"],
                &["blue-6", "red-2"],
                &["green-3", "green-4"],
            ],
            &[start],
            &[],
            vec![
                seat().color("blue").play_uno("blue-4"),
                seat().play_uno("blue-6"),
                seat(),
            ],
        );
        assert_log(
            &run,
            &[
                format!("flip {start}").as_str(),
                "color 0 blue",
                "play 0 blue-4 uno",
                "play 1 blue-6 uno",
            ],
        );
        assert!(!run.asked(Q::Target));
    }
}

// ----- house rule: stacking ----------------------------------------------------

#[test]
fn stacking_same_draw2_answered_by_any_colour_first_non_answerer_draws_all() {
    let r = rules("classic", &["hand_size=2", "stacking=same"]);
    let run = run_round(
        &r,
        2,
        &[
            &["red-draw2", "blue-1"],
            &["blue-draw2", "blue-1"],
            &["green-1", "green-2"],
        ],
        &["red-5"],
        &["yellow-1", "yellow-2", "yellow-3", "yellow-4"],
        vec![
            seat().play_uno("red-draw2").play("blue-1"),
            seat().answer("blue-draw2").uno(true),
            seat(),
        ],
    );
    assert_log(
        &run,
        &[
            "flip red-5",
            "play 0 red-draw2 uno",
            "play 1 blue-draw2 uno",
            "draw 2 stack: yellow-1 yellow-2 yellow-3 yellow-4",
            "skip 2",
            "play 0 blue-1",
        ],
    );
    assert_eq!(run.offers(1, Q::Answer), vec![sorted(&["blue-draw2"])]);
    assert_eq!(
        run.res().turns,
        3,
        "an answer is a turn, a lost turn is not"
    );
}

#[test]
fn stacking_same_wild_draw4_answers_wild_draw4_only() {
    let r = rules("classic", &["hand_size=2", "stacking=same"]);
    let pile = [
        "yellow-1", "yellow-2", "yellow-3", "yellow-4", "yellow-5", "yellow-6", "yellow-7",
        "yellow-8",
    ];
    let run = run_round(
        &r,
        2,
        &[
            &["wild-draw4", "blue-1"],
            &["wild-draw4", "red-draw2"],
            &["green-1", "green-2"],
        ],
        &["red-5"],
        &pile,
        vec![
            seat().wild("wild-draw4", "green").uno(true).play("blue-1"),
            seat().answer("wild-draw4").color("blue").uno(true),
            seat(),
        ],
    );
    assert_eq!(run.offers(1, Q::Answer), vec![sorted(&["wild-draw4"])]);
    assert_log(
        &run,
        &[
            "flip red-5",
            "play 0 wild-draw4 =green uno",
            "play 1 wild-draw4 =blue uno",
            "draw 2 stack: yellow-1 yellow-2 yellow-3 yellow-4 yellow-5 yellow-6 yellow-7 yellow-8",
            "skip 2",
            "play 0 blue-1",
        ],
    );
}

#[test]
fn stacking_same_does_not_mix_draw2_and_wild_draw4() {
    let r = rules("classic", &["hand_size=2", "max_turns=2", "stacking=same"]);
    // Draw Two cannot be answered with Wild Draw Four...
    let run = run_round(
        &r,
        2,
        &[
            &["red-draw2", "red-1"],
            &["wild-draw4", "blue-1"],
            &["red-4", "green-2"],
        ],
        &["red-5"],
        &["yellow-1", "yellow-2"],
        vec![
            seat().play_uno("red-draw2"),
            seat(),
            seat().play_uno("red-4"),
        ],
    );
    assert_log(
        &run,
        &[
            "flip red-5",
            "play 0 red-draw2 uno",
            "draw 1 draw2: yellow-1 yellow-2",
            "skip 1",
            "play 2 red-4 uno",
        ],
    );
    assert!(!run.asked(Q::Answer));
    // ...and Wild Draw Four cannot be answered with Draw Two.
    let run = run_round(
        &r,
        2,
        &[
            &["wild-draw4", "blue-1"],
            &["red-draw2", "green-draw2"],
            &["green-1", "green-2"],
        ],
        &["red-5"],
        &["yellow-1", "yellow-2", "yellow-3", "yellow-4"],
        vec![
            seat().wild("wild-draw4", "green").uno(true),
            seat(),
            seat().play_uno("green-1"),
        ],
    );
    assert_log(
        &run,
        &[
            "flip red-5",
            "play 0 wild-draw4 =green uno",
            "draw 1 draw4: yellow-1 yellow-2 yellow-3 yellow-4",
            "skip 1",
            "play 2 green-1 uno",
        ],
    );
    assert!(!run.asked(Q::Answer));
}

#[test]
fn stacking_cross_any_draw_card_answers_any_draw_card() {
    let r = rules("classic", &["hand_size=2", "stacking=cross"]);
    let pile = [
        "yellow-1", "yellow-2", "yellow-3", "yellow-4", "yellow-5", "yellow-6", "yellow-7",
        "yellow-8",
    ];
    let run = run_round(
        &r,
        2,
        &[
            &["red-draw2", "red-1"],
            &["wild-draw4", "green-1"],
            &["green-draw2", "yellow-9"],
        ],
        &["red-5"],
        &pile,
        vec![
            seat().play_uno("red-draw2"),
            seat()
                .answer("wild-draw4")
                .color("blue")
                .uno(true)
                .play("green-1"),
            seat().answer("green-draw2").uno(true),
        ],
    );
    assert_eq!(run.offers(1, Q::Answer), vec![sorted(&["wild-draw4"])]);
    assert_eq!(run.offers(2, Q::Answer), vec![sorted(&["green-draw2"])]);
    assert_log(
        &run,
        &[
            "flip red-5",
            "play 0 red-draw2 uno",
            "play 1 wild-draw4 =blue uno",
            "play 2 green-draw2 uno",
            "draw 0 stack: yellow-1 yellow-2 yellow-3 yellow-4 yellow-5 yellow-6 yellow-7 yellow-8",
            "skip 0",
            "play 1 green-1",
        ],
    );
}

#[test]
fn stacking_cross_keeps_the_wild_draw4_colour_restriction() {
    let r = rules("classic", &["hand_size=2", "max_turns=2", "stacking=cross"]);
    let run = run_round(
        &r,
        2,
        &[
            &["red-draw2", "red-1"],
            &["wild-draw4", "red-2"],
            &["red-4", "green-2"],
        ],
        &["red-5"],
        &["yellow-1", "yellow-2"],
        vec![
            seat().play_uno("red-draw2"),
            seat(),
            seat().play_uno("red-4"),
        ],
    );
    assert_log(
        &run,
        &[
            "flip red-5",
            "play 0 red-draw2 uno",
            "draw 1 draw2: yellow-1 yellow-2",
            "skip 1",
            "play 2 red-4 uno",
        ],
    );
    assert!(!run.asked(Q::Answer));
}

#[test]
fn stacking_a_stack_on_a_last_card_draw2_is_drawn_before_scoring() {
    let r = rules("classic", &["hand_size=2", "stacking=same"]);
    let run = run_round(
        &r,
        2,
        &[
            &["red-1", "red-draw2"],
            &["red-9", "blue-9"],
            &["red-draw2", "green-4"],
        ],
        &["red-3"],
        &["yellow-1", "yellow-2", "yellow-3", "yellow-4"],
        vec![
            seat().play_uno("red-1").answer("red-draw2"),
            seat().play_uno("red-9"),
            seat().play_uno("red-draw2"),
        ],
    );
    assert_log(
        &run,
        &[
            "flip red-3",
            "play 0 red-1 uno",
            "play 1 red-9 uno",
            "play 2 red-draw2 uno",
            "play 0 red-draw2",
            "draw 1 stack: yellow-1 yellow-2 yellow-3 yellow-4",
        ],
    );
    let res = run.res();
    assert_eq!(res.winner, Some(0));
    assert_eq!(res.points[0], (9 + 1 + 2 + 3 + 4) + 4);
}

#[test]
fn stacking_declining_an_answer_draws_the_total_and_force_play_does_not_force_it() {
    let r = rules(
        "classic",
        &[
            "hand_size=2",
            "max_turns=2",
            "stacking=same",
            "force_play=true",
        ],
    );
    let run = run_round(
        &r,
        2,
        &[
            &["red-draw2", "red-1"],
            &["blue-draw2", "blue-1"],
            &["red-4", "green-2"],
        ],
        &["red-5"],
        &["yellow-1", "yellow-2"],
        vec![
            seat().play_uno("red-draw2"),
            seat().no_answer(),
            seat().play_uno("red-4"),
        ],
    );
    assert_log(
        &run,
        &[
            "flip red-5",
            "play 0 red-draw2 uno",
            "draw 1 draw2: yellow-1 yellow-2",
            "skip 1",
            "play 2 red-4 uno",
        ],
    );
    assert_eq!(run.res().illegal[1], 0);
}

#[test]
fn without_stacking_a_draw2_holder_is_not_asked_to_answer() {
    let r = rules("classic", &["hand_size=2", "max_turns=1"]);
    let run = run_round(
        &r,
        2,
        &[
            &["red-draw2", "red-1"],
            &["blue-draw2", "red-draw2"],
            &["green-1", "green-2"],
        ],
        &["red-5"],
        &["yellow-1", "yellow-2"],
        vec![seat().play_uno("red-draw2"), seat(), seat()],
    );
    assert_log(
        &run,
        &[
            "flip red-5",
            "play 0 red-draw2 uno",
            "draw 1 draw2: yellow-1 yellow-2",
            "skip 1",
        ],
    );
}

// ----- house rule: draw_to_match ----------------------------------------------

#[test]
fn draw_to_match_keeps_drawing_until_a_playable_card_then_may_play_it() {
    let r = rules(
        "classic",
        &["hand_size=2", "max_turns=1", "draw_to_match=true"],
    );
    let run = run_round(
        &r,
        2,
        &[
            &["blue-1", "blue-2"],
            &["green-3", "green-4"],
            &["yellow-3", "yellow-4"],
        ],
        &["red-5"],
        &["green-1", "yellow-2", "red-9"],
        vec![seat().draw().play_drawn(true), seat(), seat()],
    );
    assert_log(
        &run,
        &[
            "flip red-5",
            "draw 0 match: green-1 yellow-2 red-9",
            "play 0 red-9",
        ],
    );
    assert_hand(&run, 0, &["blue-1", "blue-2", "green-1", "yellow-2"]);
    // Keeping it ends the turn.
    let run = run_round(
        &r,
        2,
        &[
            &["blue-1", "blue-2"],
            &["green-3", "green-4"],
            &["yellow-3", "yellow-4"],
        ],
        &["red-5"],
        &["green-1", "yellow-2", "red-9"],
        vec![seat().draw().play_drawn(false), seat(), seat()],
    );
    assert_log(
        &run,
        &[
            "flip red-5",
            "draw 0 match: green-1 yellow-2 red-9",
            "pass 0",
        ],
    );
}

// ----- house rule: force_play ---------------------------------------------------

#[test]
fn force_play_drawing_while_holding_a_playable_card_is_illegal() {
    let r = rules(
        "classic",
        &["hand_size=2", "max_turns=1", "force_play=true"],
    );
    let run = run_round(
        &r,
        2,
        &[
            &["red-1", "blue-1"],
            &["green-3", "green-4"],
            &["yellow-3", "yellow-4"],
        ],
        &["red-5"],
        &["green-7"],
        vec![seat().draw(), seat(), seat()],
    );
    assert_log(
        &run,
        &["flip red-5", "illegal 0 draw", "draw 0 wrong_card: green-7"],
    );
    assert_eq!(run.res().illegal[0], 1);
}

#[test]
fn force_play_a_playable_drawn_card_must_be_played() {
    let r = rules(
        "classic",
        &["hand_size=2", "max_turns=1", "force_play=true"],
    );
    let run = run_round(
        &r,
        2,
        &[
            &["blue-1", "blue-2"],
            &["green-3", "green-4"],
            &["yellow-3", "yellow-4"],
        ],
        &["red-5"],
        &["red-7"],
        // No play_drawn answer: the card is played without asking.
        vec![seat().draw(), seat(), seat()],
    );
    assert_log(&run, &["flip red-5", "draw 0 turn: red-7", "play 0 red-7"]);
}

// ----- house rule: seven_o --------------------------------------------------------

#[test]
fn seven_o_seven_swaps_hands_with_the_chosen_opponent() {
    let r = rules("classic", &["hand_size=3", "max_turns=1", "seven_o=true"]);
    let run = run_round(
        &r,
        2,
        &[
            &["red-7", "blue-1", "blue-2"],
            &["yellow-1", "yellow-2", "yellow-3"],
            &["green-1", "green-2", "green-3"],
        ],
        &["red-5"],
        &[],
        vec![seat().play("red-7").target(2), seat(), seat()],
    );
    assert_log(&run, &["flip red-5", "play 0 red-7 ->2", "swap 0 2"]);
    assert_hand(&run, 0, &["green-1", "green-2", "green-3"]);
    assert_hand(&run, 1, &["yellow-1", "yellow-2", "yellow-3"]);
    assert_hand(&run, 2, &["blue-1", "blue-2"]);
}

#[test]
fn seven_is_a_plain_card_without_seven_o() {
    let r = rules("classic", &["hand_size=3", "max_turns=1"]);
    let run = run_round(
        &r,
        2,
        &[
            &["red-7", "blue-1", "blue-2"],
            &["yellow-1", "yellow-2", "yellow-3"],
            &["green-1", "green-2", "green-3"],
        ],
        &["red-5"],
        &[],
        vec![seat().play("red-7"), seat(), seat()],
    );
    assert_log(&run, &["flip red-5", "play 0 red-7"]);
    assert_hand(&run, 0, &["blue-1", "blue-2"]);
}

#[test]
fn seven_o_zero_passes_every_hand_in_the_direction_of_play() {
    let r = rules("classic", &["hand_size=3", "max_turns=1", "seven_o=true"]);
    let run = run_round(
        &r,
        2,
        &[
            &["red-0", "blue-1", "blue-2"],
            &["yellow-1", "yellow-2", "yellow-3"],
            &["green-1", "green-2", "green-3"],
        ],
        &["red-5"],
        &[],
        vec![seat().play("red-0"), seat(), seat()],
    );
    assert_log(&run, &["flip red-5", "play 0 red-0", "rotate +1"]);
    assert_hand(&run, 0, &["green-1", "green-2", "green-3"]);
    assert_hand(&run, 1, &["blue-1", "blue-2"]);
    assert_hand(&run, 2, &["yellow-1", "yellow-2", "yellow-3"]);
}

#[test]
fn seven_o_zero_counter_clockwise() {
    // Start Reverse: the dealer (2) plays first and play goes 2, 1, 0.
    let r = rules("classic", &["hand_size=3", "max_turns=1", "seven_o=true"]);
    let run = run_round(
        &r,
        2,
        &[
            &["blue-1", "blue-2", "blue-3"],
            &["yellow-1", "yellow-2", "yellow-3"],
            &["red-0", "green-1", "green-2"],
        ],
        &["red-reverse"],
        &[],
        vec![seat(), seat(), seat().play("red-0")],
    );
    assert_log(&run, &["flip red-reverse", "play 2 red-0", "rotate -1"]);
    assert_hand(&run, 1, &["green-1", "green-2"]);
    assert_hand(&run, 0, &["yellow-1", "yellow-2", "yellow-3"]);
    assert_hand(&run, 2, &["blue-1", "blue-2", "blue-3"]);
}

#[test]
fn seven_o_seven_as_last_card_swaps_nothing() {
    let r = rules("classic", &["hand_size=1", "seven_o=true"]);
    let run = run_round(
        &r,
        2,
        &[&["red-7"], &["blue-9"], &["green-skip"]],
        &["red-5"],
        &[],
        vec![seat().play("red-7"), seat(), seat()],
    );
    assert_log(&run, &["flip red-5", "play 0 red-7"]);
    assert!(!run.asked(Q::Target));
    assert_eq!(run.res().points[0], 29);
}

#[test]
fn seven_o_zero_as_last_card_rotates_nothing() {
    let r = rules("classic", &["hand_size=1", "seven_o=true"]);
    let run = run_round(
        &r,
        2,
        &[&["red-0"], &["blue-9"], &["green-skip"]],
        &["red-5"],
        &[],
        vec![seat().play("red-0"), seat(), seat()],
    );
    assert_log(&run, &["flip red-5", "play 0 red-0"]);
    assert_hand(&run, 1, &["blue-9"]);
    assert_hand(&run, 2, &["green-skip"]);
}

#[test]
fn seven_o_seven_with_an_illegal_target_is_a_wrong_card() {
    // RULES.md section 3: the card goes back to the hand, the player draws
    // wrong_card_penalty cards and the turn ends.
    let r = rules("classic", &["hand_size=3", "max_turns=1", "seven_o=true"]);
    let run = run_round(
        &r,
        2,
        &[
            &["red-7", "blue-1", "blue-2"],
            &["yellow-1", "yellow-2", "yellow-3"],
            &["green-1", "green-2", "green-3"],
        ],
        &["red-5"],
        &["yellow-7"],
        vec![seat().play("red-7").target(3), seat(), seat()],
    );
    assert_log(
        &run,
        &[
            "flip red-5",
            "illegal 0 target 3",
            "draw 0 wrong_card: yellow-7",
        ],
    );
    assert_hand(&run, 0, &["red-7", "blue-1", "blue-2", "yellow-7"]);
    assert_eq!(run.top, "red-5");
}

// ----- house rule: jump_in -------------------------------------------------------

#[test]
fn jump_in_identical_card_out_of_turn_play_goes_on_from_the_jumper() {
    let r = rules("classic", &["hand_size=2", "jump_in=true"]);
    let run = run_round(
        &r,
        2,
        &[
            &["red-5", "red-1"],
            &["green-5", "green-6"],
            &["red-5", "yellow-1"],
        ],
        &["red-3"],
        &[],
        vec![
            seat().play_uno("red-5").play("red-1"),
            seat(),
            seat().jump(true).uno(true),
        ],
    );
    assert_log(
        &run,
        &[
            "flip red-3",
            "play 0 red-5 uno",
            "play 2 red-5 uno jump",
            "play 0 red-1",
        ],
    );
    assert!(
        run.offers(1, Q::JumpIn).is_empty(),
        "green-5 is not identical"
    );
    assert_eq!(run.offers(2, Q::JumpIn), vec![vec!["red-5".to_string()]]);
    assert_eq!(run.res().turns, 2, "a jump-in is not a turn");
}

#[test]
fn an_illegal_jump_in_is_not_a_turn_the_player_to_move_still_moves() {
    // docs/rules.md section 7: seat 2 jumps in with the other red-7 and names
    // itself as the target. It draws the sanction, the card stays in its
    // hand, and play goes on as if no jump-in had been offered: seat 1, the
    // player to move after seat 0's 7, still moves (it did not lose its
    // turn), then seat 2 in its own turn.
    let r = rules(
        "classic",
        &["hand_size=3", "max_turns=3", "seven_o=true", "jump_in=true"],
    );
    let run = run_round(
        &r,
        3,
        &[
            &["red-7", "red-1", "blue-2"],
            &["yellow-1", "yellow-2", "yellow-3"],
            &["red-7", "green-2", "green-3"],
            &["green-4", "green-5", "green-6"],
        ],
        &["red-5"],
        &["yellow-7"],
        vec![
            seat().play("red-7").target(1),
            seat().play_uno("red-1"),
            seat().jump(true).target(2).play("red-7").target(3),
            seat(),
        ],
    );
    assert_log(
        &run,
        &[
            "flip red-5",
            "play 0 red-7 ->1",
            "swap 0 1",
            "illegal 2 target 2",
            "draw 2 wrong_card: yellow-7",
            "play 1 red-1 uno",
            "play 2 red-7 ->3",
            "swap 2 3",
        ],
    );
    assert_eq!(run.res().illegal[2], 1);
    assert_eq!(run.res().turns, 3, "the illegal jump-in is not a turn");
}

#[test]
fn an_illegal_jump_in_by_the_player_to_move_ends_its_turn() {
    // The jumper is the player to move (seat 1, next after seat 0): the
    // jump-in was its play, so the illegal target ends its turn like any
    // illegal play, and seat 2 moves next.
    let r = rules(
        "classic",
        &["hand_size=3", "max_turns=2", "seven_o=true", "jump_in=true"],
    );
    let run = run_round(
        &r,
        3,
        &[
            &["red-7", "red-1", "blue-2"],
            &["red-7", "yellow-2", "yellow-3"],
            &["red-2", "green-2", "green-3"],
            &["green-4", "green-5", "green-6"],
        ],
        &["red-5"],
        &["yellow-7"],
        vec![
            seat().play("red-7").target(3),
            seat().jump(true).target(1),
            seat().play("red-2"),
            seat(),
        ],
    );
    assert_log(
        &run,
        &[
            "flip red-5",
            "play 0 red-7 ->3",
            "swap 0 3",
            "illegal 1 target 1",
            "draw 1 wrong_card: yellow-7",
            "play 2 red-2",
        ],
    );
    assert_eq!(run.res().illegal[1], 1);
}

const THREE_COPIES: &str = r#"
[[deck]]
faces = ["1", "2", "3", "4", "5"]
count = 3
"#;

#[test]
fn jump_in_offered_in_turn_order_first_to_accept_jumps() {
    let r = custom_rules(
        THREE_COPIES,
        &["hand_size=2", "max_turns=1", "jump_in=true"],
    );
    let run = run_round(
        &r,
        3,
        &[
            &["red-5", "red-1"],
            &["green-4", "green-2"],
            &["red-5", "yellow-1"],
            &["red-5", "yellow-2"],
        ],
        &["red-3"],
        &[],
        vec![
            seat().play_uno("red-5"),
            seat(),
            // Asked again after seat 3's jump-in (another play of red-5).
            seat().jump(false).jump(false),
            seat().jump(true).uno(true),
        ],
    );
    assert_log(
        &run,
        &["flip red-3", "play 0 red-5 uno", "play 3 red-5 uno jump"],
    );
    let order: Vec<u8> = run
        .questions
        .iter()
        .filter(|q| q.q == Q::JumpIn)
        .map(|q| q.seat)
        .collect();
    assert_eq!(order, [2, 3, 2]);
}

/// A Skip jumped onto a Skip: the first Skip's skip of the next player is
/// replaced by the jumper's, which skips the player after the jumper; play
/// goes on from there (docs/rules.md 12.5).
#[test]
fn jump_in_skip_on_skip_skips_the_player_after_the_jumper_instead() {
    let r = rules("classic", &["hand_size=2", "jump_in=true"]);
    let run = run_round(
        &r,
        3,
        &[
            &["red-skip", "red-1"],
            &["red-2", "blue-3"],
            &["red-skip", "yellow-1"],
            &["red-3", "green-4"],
        ],
        &["red-5"],
        &[],
        vec![
            seat().play_uno("red-skip").play("red-1"),
            seat(),
            seat().jump(true).uno(true),
            seat(),
        ],
    );
    assert_log(
        &run,
        &[
            "flip red-5",
            "play 0 red-skip uno",
            "play 2 red-skip uno jump",
            "skip 3",
            "play 0 red-1",
        ],
    );
    assert_eq!(run.res().winner, Some(0));
    assert_hand(&run, 1, &["red-2", "blue-3"]);
}

/// A Reverse jumped onto a Reverse at 4 players: the first Reverse's change
/// of direction is kept and the jumper's restores it, so play goes on
/// clockwise from the jumper (docs/rules.md 12.5).
#[test]
fn jump_in_reverse_on_reverse_restores_the_direction_from_the_jumper() {
    let r = rules("classic", &["hand_size=2", "jump_in=true"]);
    let run = run_round(
        &r,
        3,
        &[
            &["red-reverse", "red-1"],
            &["red-2", "blue-3"],
            &["red-reverse", "yellow-1"],
            &["red-3", "green-4"],
        ],
        &["red-5"],
        &[],
        vec![
            seat().play_uno("red-reverse").play("red-1"),
            seat(),
            seat().jump(true).uno(true),
            seat().play_uno("red-3"),
        ],
    );
    assert_log(
        &run,
        &[
            "flip red-5",
            "play 0 red-reverse uno",
            "play 2 red-reverse uno jump",
            "play 3 red-3 uno",
            "play 0 red-1",
        ],
    );
    assert_eq!(run.res().winner, Some(0));
    assert_hand(&run, 1, &["red-2", "blue-3"]);
}

#[test]
fn jump_in_draw2_on_draw2_hits_the_player_after_the_jumper() {
    let r = rules("classic", &["hand_size=2", "max_turns=2", "jump_in=true"]);
    let run = run_round(
        &r,
        2,
        &[
            &["red-draw2", "red-1"],
            &["red-2", "blue-3"],
            &["red-draw2", "yellow-1"],
        ],
        &["red-5"],
        &["yellow-7", "yellow-8"],
        vec![
            seat().play_uno("red-draw2"),
            seat().play_uno("red-2"),
            seat().jump(true).uno(true),
        ],
    );
    assert_log(
        &run,
        &[
            "flip red-5",
            "play 0 red-draw2 uno",
            "play 2 red-draw2 uno jump",
            "draw 0 draw2: yellow-7 yellow-8",
            "skip 0",
            "play 1 red-2 uno",
        ],
    );
    assert_hand(&run, 1, &["blue-3"]);
}

#[test]
fn jump_in_draw2_on_draw2_with_stacking_moves_the_total_on_plus_two() {
    let r = rules(
        "classic",
        &[
            "hand_size=2",
            "max_turns=2",
            "jump_in=true",
            "stacking=same",
        ],
    );
    let run = run_round(
        &r,
        2,
        &[
            &["red-draw2", "red-1"],
            &["red-2", "blue-3"],
            &["red-draw2", "yellow-1"],
        ],
        &["red-5"],
        &["yellow-7", "yellow-8", "yellow-9", "blue-9"],
        vec![
            seat().play_uno("red-draw2"),
            seat().play_uno("red-2"),
            seat().jump(true).uno(true),
        ],
    );
    assert_log(
        &run,
        &[
            "flip red-5",
            "play 0 red-draw2 uno",
            "play 2 red-draw2 uno jump",
            "draw 0 stack: yellow-7 yellow-8 yellow-9 blue-9",
            "skip 0",
            "play 1 red-2 uno",
        ],
    );
}

#[test]
fn jump_in_never_with_a_wild() {
    let r = rules("classic", &["hand_size=2", "max_turns=1", "jump_in=true"]);
    let run = run_round(
        &r,
        2,
        &[
            &["wild", "red-1"],
            &["wild", "blue-3"],
            &["wild", "yellow-1"],
        ],
        &["red-5"],
        &[],
        vec![seat().wild("wild", "green").uno(true), seat(), seat()],
    );
    assert_log(&run, &["flip red-5", "play 0 wild =green uno"]);
    assert!(!run.asked(Q::JumpIn));
}

#[test]
fn jump_in_does_not_happen_on_a_last_card() {
    let r = rules("classic", &["hand_size=1", "jump_in=true"]);
    let run = run_round(
        &r,
        2,
        &[&["red-5"], &["blue-9"], &["red-5"]],
        &["red-3"],
        &[],
        vec![seat().play("red-5"), seat(), seat()],
    );
    assert_log(&run, &["flip red-3", "play 0 red-5"]);
    assert!(!run.asked(Q::JumpIn));
    assert_eq!(run.res().winner, Some(0));
}

#[test]
fn jump_in_with_the_last_card_wins() {
    let r = rules("classic", &["hand_size=2", "jump_in=true"]);
    let run = run_round(
        &r,
        2,
        &[
            &["red-1", "red-5"],
            &["red-9", "blue-9"],
            &["red-5", "green-2"],
        ],
        &["red-3"],
        &[],
        vec![
            seat().play_uno("red-1").jump(true),
            seat().play_uno("red-9"),
            seat().play_uno("red-5"),
        ],
    );
    assert_log(
        &run,
        &[
            "flip red-3",
            "play 0 red-1 uno",
            "play 1 red-9 uno",
            "play 2 red-5 uno",
            "play 0 red-5 jump",
        ],
    );
    let res = run.res();
    assert_eq!(res.winner, Some(0));
    assert_eq!(res.turns, 3);
    assert_eq!(res.points[0], 9 + 2);
}

// ----- house rule: bluff_challenge ----------------------------------------------

#[test]
fn bluff_challenge_wild_draw4_playable_whatever_the_hand() {
    let r = rules(
        "classic",
        &["hand_size=2", "max_turns=1", "bluff_challenge=true"],
    );
    let run = run_round(
        &r,
        2,
        &[
            &["wild-draw4", "red-1"],
            &["blue-2", "blue-3"],
            &["green-4", "green-6"],
        ],
        &["red-5"],
        &[],
        vec![seat().play_uno("red-1"), seat(), seat()],
    );
    assert_eq!(
        run.offers(0, Q::Play),
        vec![sorted(&["red-1", "wild-draw4"])]
    );
}

#[test]
fn bluff_challenge_guilty_player_draws_four_challenger_plays_normally() {
    let r = rules(
        "classic",
        &["hand_size=2", "max_turns=2", "bluff_challenge=true"],
    );
    let run = run_round(
        &r,
        2,
        &[
            &["wild-draw4", "red-1"],
            &["blue-2", "blue-3"],
            &["green-4", "green-6"],
        ],
        &["red-5"],
        &["yellow-1", "yellow-2", "yellow-3", "yellow-4"],
        vec![
            seat().wild("wild-draw4", "blue").uno(true),
            seat().challenge(true).play_uno("blue-2"),
            seat(),
        ],
    );
    assert_log(
        &run,
        &[
            "flip red-5",
            "play 0 wild-draw4 =blue uno",
            "challenge 1->0 guilty",
            "draw 0 challenge: yellow-1 yellow-2 yellow-3 yellow-4",
            "play 1 blue-2 uno",
        ],
    );
    assert_hand(
        &run,
        0,
        &["red-1", "yellow-1", "yellow-2", "yellow-3", "yellow-4"],
    );
}

#[test]
fn bluff_challenge_innocent_challenger_draws_six_and_loses_the_turn() {
    let r = rules(
        "classic",
        &["hand_size=2", "max_turns=2", "bluff_challenge=true"],
    );
    let pile = [
        "yellow-1", "yellow-2", "yellow-3", "yellow-4", "yellow-5", "yellow-6",
    ];
    let run = run_round(
        &r,
        2,
        &[
            &["wild-draw4", "blue-1"],
            &["blue-2", "blue-3"],
            &["blue-4", "green-6"],
        ],
        &["red-5"],
        &pile,
        vec![
            seat().wild("wild-draw4", "blue").uno(true),
            seat().challenge(true),
            seat().play_uno("blue-4"),
        ],
    );
    assert_log(
        &run,
        &[
            "flip red-5",
            "play 0 wild-draw4 =blue uno",
            "challenge 1->0 innocent",
            "draw 1 challenge: yellow-1 yellow-2 yellow-3 yellow-4 yellow-5 yellow-6",
            "skip 1",
            "play 2 blue-4 uno",
        ],
    );
}

#[test]
fn bluff_challenge_declined_next_player_draws_four() {
    let r = rules(
        "classic",
        &["hand_size=2", "max_turns=2", "bluff_challenge=true"],
    );
    let run = run_round(
        &r,
        2,
        &[
            &["wild-draw4", "red-1"],
            &["blue-2", "blue-3"],
            &["blue-4", "green-6"],
        ],
        &["red-5"],
        &["yellow-1", "yellow-2", "yellow-3", "yellow-4"],
        vec![
            seat().wild("wild-draw4", "blue").uno(true),
            seat().challenge(false),
            seat().play_uno("blue-4"),
        ],
    );
    assert_log(
        &run,
        &[
            "flip red-5",
            "play 0 wild-draw4 =blue uno",
            "draw 1 draw4: yellow-1 yellow-2 yellow-3 yellow-4",
            "skip 1",
            "play 2 blue-4 uno",
        ],
    );
}

#[test]
fn bluff_challenge_inside_a_stack_guilty_draws_the_whole_total() {
    let r = rules(
        "classic",
        &[
            "hand_size=2",
            "max_turns=3",
            "bluff_challenge=true",
            "stacking=same",
        ],
    );
    let pile = [
        "yellow-1", "yellow-2", "yellow-3", "yellow-4", "yellow-5", "yellow-6", "yellow-7",
        "yellow-8",
    ];
    let run = run_round(
        &r,
        2,
        &[
            &["wild-draw4", "blue-1"],
            &["wild-draw4", "green-2"],
            &["red-3", "yellow-9"],
        ],
        &["red-5"],
        &pile,
        vec![
            seat().wild("wild-draw4", "green").uno(true),
            // Seat 1 holds green (the active colour) and answers anyway: guilty.
            seat()
                .challenge(false)
                .answer("wild-draw4")
                .color("red")
                .uno(true),
            seat().challenge(true).play_uno("red-3"),
        ],
    );
    assert_log(
        &run,
        &[
            "flip red-5",
            "play 0 wild-draw4 =green uno",
            "play 1 wild-draw4 =red uno",
            "challenge 2->1 guilty",
            "draw 1 challenge: yellow-1 yellow-2 yellow-3 yellow-4 yellow-5 yellow-6 yellow-7 yellow-8",
            "play 2 red-3 uno",
        ],
    );
}

#[test]
fn bluff_challenge_inside_a_stack_innocent_challenger_draws_total_plus_two() {
    let r = rules(
        "classic",
        &["hand_size=2", "bluff_challenge=true", "stacking=same"],
    );
    let pile = [
        "yellow-1", "yellow-2", "yellow-3", "yellow-4", "yellow-5", "yellow-6", "yellow-7",
        "yellow-8", "yellow-9", "blue-9",
    ];
    let run = run_round(
        &r,
        2,
        &[
            &["wild-draw4", "blue-1"],
            &["wild-draw4", "red-2"],
            &["red-3", "yellow-1"],
        ],
        &["red-5"],
        &pile,
        vec![
            seat().wild("wild-draw4", "green").uno(true).play("blue-1"),
            // Seat 1 holds no green (the active colour): innocent.
            seat()
                .challenge(false)
                .answer("wild-draw4")
                .color("blue")
                .uno(true),
            seat().challenge(true),
        ],
    );
    assert_log(
        &run,
        &[
            "flip red-5",
            "play 0 wild-draw4 =green uno",
            "play 1 wild-draw4 =blue uno",
            "challenge 2->1 innocent",
            "draw 2 challenge: yellow-1 yellow-2 yellow-3 yellow-4 yellow-5 yellow-6 yellow-7 yellow-8 yellow-9 blue-9",
            "skip 2",
            "play 0 blue-1",
        ],
    );
}

#[test]
fn every_themed_wild_scores_fifty() {
    for (set, a, b) in [
        ("h2o", "wild-downpour1", "wild-downpour2"),
        ("lilo-stitch", "wild-ohana", "wild-draw4"),
        ("cars3", "wild-swap", "wild-custom"),
    ] {
        let r = rules(set, &["hand_size=1"]);
        let run = run_round(
            &r,
            2,
            &[&["red-1"], &[a], &[b]],
            &["red-5"],
            &[],
            vec![seat().play("red-1"), seat(), seat()],
        );
        assert_eq!(run.res().points[..3], [100, 0, 0], "{set}: {a} + {b}");
    }
}

// ----- wild_when_matching = false with the themed wilds and the house rules -------

#[test]
fn without_wild_when_matching_every_themed_wild_needs_a_hand_without_a_matching_card() {
    // The seeds call the themed cards Joker cards too (001: "La carte spéciale
    // Joker « Ohana »"; 000: "une carte Joker (comme un Joker classique ou un
    // Super Joker +4)"): every wild but Wild Draw Four falls under the setting.
    let others: [&[&str]; 2] = [
        &["yellow-3", "yellow-4", "yellow-6"],
        &["green-3", "green-4", "green-6"],
    ];
    for (set, tok) in [
        ("h2o", "wild-downpour1"),
        ("h2o", "wild-downpour2"),
        ("h2o", "wild"),
        ("lilo-stitch", "wild-ohana"),
        ("cars3", "wild-swap"),
        ("cars3", "wild-custom"),
    ] {
        let r = rules(
            set,
            &["hand_size=3", "max_turns=1", "wild_when_matching=false"],
        );
        // A matching card (the active colour) is held: the wild is not offered.
        let run = run_round(
            &r,
            2,
            &[&[tok, "red-1", "blue-2"], others[0], others[1]],
            &["red-5"],
            &[],
            vec![seat().play("red-1"), seat(), seat()],
        );
        assert_eq!(run.offers(0, Q::Play), vec![sorted(&["red-1"])], "{tok}");
        // None is held: it is offered.
        let run = run_round(
            &r,
            2,
            &[&[tok, "blue-1", "green-2"], others[0], others[1]],
            &["red-5"],
            &["yellow-8"],
            vec![seat().draw(), seat(), seat()],
        );
        assert_eq!(run.offers(0, Q::Play), vec![vec![tok.to_string()]], "{tok}");
        assert_log(&run, &["flip red-5", "draw 0 turn: yellow-8", "pass 0"]);
        // By default it is offered beside the matching card.
        let r = rules(set, &["hand_size=3", "max_turns=1"]);
        let run = run_round(
            &r,
            2,
            &[&[tok, "red-1", "blue-2"], others[0], others[1]],
            &["red-5"],
            &[],
            vec![seat().play("red-1"), seat(), seat()],
        );
        assert_eq!(
            run.offers(0, Q::Play),
            vec![sorted(&["red-1", tok])],
            "{tok}"
        );
    }
}

#[test]
fn without_wild_when_matching_draw_to_match_draws_past_a_wild_while_matching() {
    let others: [&[&str]; 2] = [&["yellow-3", "yellow-4"], &["green-3", "green-4"]];
    let pile = ["wild", "green-1", "red-9"];
    // Holding red-1, the player draws anyway: the wild drawn first is not
    // playable, so drawing goes on to red-9.
    let r = rules(
        "classic",
        &[
            "hand_size=2",
            "max_turns=1",
            "draw_to_match=true",
            "wild_when_matching=false",
        ],
    );
    let run = run_round(
        &r,
        2,
        &[&["red-1", "blue-2"], others[0], others[1]],
        &["red-5"],
        &pile,
        vec![seat().draw().play_drawn(true), seat(), seat()],
    );
    assert_log(
        &run,
        &[
            "flip red-5",
            "draw 0 match: wild green-1 red-9",
            "play 0 red-9",
        ],
    );
    // Without a matching card the wild stops the drawing.
    let run = run_round(
        &r,
        2,
        &[&["blue-1", "blue-2"], others[0], others[1]],
        &["red-5"],
        &pile,
        vec![seat().draw().play_drawn(true).color("blue"), seat(), seat()],
    );
    assert_log(
        &run,
        &["flip red-5", "draw 0 match: wild", "play 0 wild =blue"],
    );
    // By default the wild stops it in both cases.
    let r = rules(
        "classic",
        &["hand_size=2", "max_turns=1", "draw_to_match=true"],
    );
    let run = run_round(
        &r,
        2,
        &[&["red-1", "blue-2"], others[0], others[1]],
        &["red-5"],
        &pile,
        vec![seat().draw().play_drawn(false), seat(), seat()],
    );
    assert_log(&run, &["flip red-5", "draw 0 match: wild", "pass 0"]);
}

#[test]
fn without_wild_when_matching_force_play_plays_a_drawn_wild_only_without_a_match() {
    let r = rules(
        "classic",
        &[
            "hand_size=2",
            "max_turns=1",
            "force_play=true",
            "wild_when_matching=false",
        ],
    );
    let others: [&[&str]; 2] = [&["yellow-3", "yellow-4"], &["green-3", "green-4"]];
    // No matching card: the drawn wild is playable, so it must be played.
    let run = run_round(
        &r,
        2,
        &[&["blue-1", "blue-2"], others[0], others[1]],
        &["red-5"],
        &["wild"],
        vec![seat().draw().color("green"), seat(), seat()],
    );
    assert_log(
        &run,
        &["flip red-5", "draw 0 turn: wild", "play 0 wild =green"],
    );
    // Holding a matching card, a wild is not a legal play; the matching card is.
    let run = run_round(
        &r,
        2,
        &[&["wild", "red-1"], others[0], others[1]],
        &["red-5"],
        &[],
        vec![seat().play_uno("red-1"), seat(), seat()],
    );
    assert_eq!(run.offers(0, Q::Play), vec![sorted(&["red-1"])]);
}

#[test]
fn without_wild_when_matching_stack_answers_and_bluff_challenge_are_unchanged() {
    // A pending draw is answered by draw cards only: the setting changes no answer.
    let r = rules(
        "classic",
        &[
            "hand_size=3",
            "max_turns=2",
            "stacking=cross",
            "wild_when_matching=false",
        ],
    );
    let run = run_round(
        &r,
        2,
        &[
            &["red-draw2", "red-1", "red-2"],
            &["wild", "wild-draw4", "blue-2"],
            &["green-3", "green-4", "green-6"],
        ],
        &["red-5"],
        &[],
        vec![
            seat().play("red-draw2"),
            seat().answer("wild-draw4").color("green"),
            seat(),
        ],
    );
    assert_eq!(run.offers(1, Q::Answer), vec![sorted(&["wild-draw4"])]);
    assert_log(
        &run,
        &["flip red-5", "play 0 red-draw2", "play 1 wild-draw4 =green"],
    );
    // Under bluff_challenge Wild Draw Four may be played whatever the hand,
    // while a plain wild still needs a hand without a matching card.
    let r = rules(
        "classic",
        &[
            "hand_size=4",
            "max_turns=1",
            "bluff_challenge=true",
            "wild_when_matching=false",
        ],
    );
    let run = run_round(
        &r,
        2,
        &[
            &["wild", "wild-draw4", "red-1", "blue-2"],
            &["yellow-3", "yellow-4", "yellow-6", "yellow-7"],
            &["green-3", "green-4", "green-6", "green-7"],
        ],
        &["red-5"],
        &[],
        vec![seat().play("red-1"), seat(), seat()],
    );
    assert_eq!(
        run.offers(0, Q::Play),
        vec![sorted(&["red-1", "wild-draw4"])]
    );
}

/// Two effects under one card token (a rule file's `wild` given the swap
/// effect beside plain wilds, a `5` given skip beside plain 5s) are refused:
/// no player, trace or program could tell the cards apart (an agent's
/// `legal` listed `wild` once for both, and a jump-in took one for the
/// other; the ext audit, 2026-12-07). One effect per face, or a face per
/// effect, is taken.
#[test]
fn a_deck_with_two_effects_under_one_token_is_refused() {
    use unolab::engine::rules::{RuleSetFile, Rules};
    let deck = |extra: &str| {
        format!(
            "name = \"d\"\n[[deck]]\nfaces = [\"1\", \"2\", \"3\", \"4\", \"5\"]\ncount = 2\n[[deck]]\nfaces = [\"wild\"]\ncount = 4\n{extra}"
        )
    };
    let build = |text: &str| Rules::build(RuleSetFile::parse(text, "d").unwrap());
    let e = build(&deck(
        "[[deck]]\nfaces = [\"wild\"]\ncount = 2\neffect = \"swap\"\n",
    ))
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("the deck holds wild cards of two effects (wild and swap)")
            && e.contains("such as wild-swap for swap"),
        "{e}"
    );
    let e = build(&deck(
        "[[deck]]\nfaces = [\"5\"]\ncolors = [\"red\"]\ncount = 1\neffect = \"skip\"\n",
    ))
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("red-5 cards of two effects (number and skip)"),
        "{e}"
    );
    // A face given another effect for all its copies, and a face per effect.
    build(&deck(
        "[[deck]]\nfaces = [\"6\"]\ncount = 1\neffect = \"skip\"\n",
    ))
    .unwrap();
    build(&deck("[[deck]]\nfaces = [\"wild-swap\"]\ncount = 2\n")).unwrap();
}
