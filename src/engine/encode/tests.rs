//! Unit tests of the observation encoding (the parent module).

use super::*;
use crate::engine::rules::Rules;

#[test]
fn kind_numbers_cover_every_kind_once() {
    let mut seen = [false; KINDS];
    for c in 0..4 {
        for f in 0..COLORED_FACES {
            let k = Kind::new(Some(Color::from_index(c)), Face::ALL[f]);
            let i = kind_index(k);
            assert!(!seen[i]);
            seen[i] = true;
            assert_eq!(kind_of_index(i), k);
        }
    }
    for f in COLORED_FACES..NUM_FACES {
        let k = Kind::new(None, Face::ALL[f]);
        let i = kind_index(k);
        assert!(!seen[i]);
        seen[i] = true;
        assert_eq!(kind_of_index(i), k);
    }
    assert!(seen.iter().all(|&s| s));
    assert_eq!(KINDS, 59);
}

#[test]
fn the_action_ranges_follow_each_other() {
    assert_eq!(
        (
            ACT_DRAW,
            ACT_COLOR,
            ACT_UNO,
            ACT_CHALLENGE,
            ACT_TARGET,
            ACT_JUMP,
            ACTIONS
        ),
        (59, 62, 66, 68, 70, 79, 81)
    );
    assert_eq!(OBS_LEN, 59 * 4 + 4 + 1 + 9 + 10 + 1 + 1 + 10 + 8);
}

#[test]
fn every_action_has_a_label_of_its_range() {
    let labels: Vec<String> = (0..ACTIONS).map(action_label).collect();
    assert_eq!(labels[0], "play red-0");
    assert_eq!(labels[KINDS - 1], "play wild-custom");
    assert_eq!(labels[ACT_DRAW], "draw");
    assert_eq!(labels[ACT_COLOR + 3], "name blue");
    assert_eq!(
        labels[ACT_TARGET],
        "swap hands with the player 1 place after"
    );
    assert_eq!(
        labels[ACT_JUMP - 1],
        "swap hands with the player 9 places after"
    );
    assert_eq!(labels[ACT_NO_JUMP], "do not jump in");
    assert_eq!(action_label(ACTIONS), "no action");
    let mut unique = labels.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), ACTIONS, "every action has its own label");
}

#[test]
fn kinds_are_counted_as_card_by_card_whatever_the_set_size() {
    // The hand and discard sections against a plain count by kind, for
    // sets of every size (both paths of count_kinds) in every deck.
    let mut rng = <crate::engine::rng::Rng as rand::SeedableRng>::seed_from_u64(7);
    for name in crate::engine::rules::BUILTIN_NAMES {
        let r = Rules::builtin(name);
        let cards: Vec<CardId> = r.deck.all.iter().collect();
        for size in [0, 1, 7, 16, 17, 40, cards.len()] {
            for _ in 0..20 {
                let mut set = CardSet::EMPTY;
                while (set.len() as usize) < size {
                    let k = crate::engine::rng::below(&mut rng, cards.len() as u32);
                    set.insert(cards[k as usize]);
                }
                let mut want = [0f32; KINDS];
                for c in set.iter() {
                    want[kind_index(r.deck.kind(c))] += 1.0;
                }
                let mut got = [0f32; KINDS];
                count_kinds(&r.deck, set, &mut got);
                assert_eq!(got, want, "{name}, {size} cards");
                for c in set.iter() {
                    assert_eq!(card_kind(&r.deck, c), kind_index(r.deck.kind(c)));
                }
            }
        }
    }
}

use crate::engine::game::testing::round_states;

#[test]
fn an_update_writes_what_encode_writes() {
    // A buffer updated through a round's turns, forward (the discard
    // pile grows by a card, or a reshuffle empties it) and backward (it
    // shrinks), holds what a fresh encode writes, for every seat.
    let mut checked = 0;
    for name in crate::engine::rules::BUILTIN_NAMES {
        let r = Rules::builtin(name);
        for seed in 0..4 {
            let states = round_states(&r, 3, seed);
            let mut buf = [0f32; OBS_LEN];
            let mut seen = None;
            for (i, state) in states.iter().chain(states.iter().rev()).enumerate() {
                let obs = Observation::of(state, (i % 3) as u8);
                let mut want = [1f32; OBS_LEN];
                encode(&obs, DecisionKind::Stack, None, &mut want);
                encode_update(&obs, DecisionKind::Stack, None, &mut buf, &mut seen);
                assert_eq!(buf.to_vec(), want.to_vec(), "{name} seed {seed} state {i}");
                checked += 1;
            }
        }
    }
    assert!(checked > 500, "{checked}");
}

#[test]
fn captured_features_write_what_encode_writes() {
    // The same walk as above: every state forwards then backwards (the
    // discard pile grows and shrinks), each seat, decisions with and
    // without a card, against encode.
    let mut checked = 0;
    for name in crate::engine::rules::BUILTIN_NAMES {
        let r = Rules::builtin(name);
        for seed in 0..3 {
            let states = round_states(&r, 4, seed);
            let mut f = Features::EMPTY;
            let mut got = [7f32; OBS_LEN + 2];
            f.write(&r.deck, &mut got);
            assert!(got[..OBS_LEN].iter().all(|&x| x == 0.0), "nothing captured");
            assert_eq!(got[OBS_LEN..], [7.0, 7.0], "nothing written past the end");
            for (i, state) in states.iter().chain(states.iter().rev()).enumerate() {
                let obs = Observation::of(state, (i % 4) as u8);
                let (kind, card) = match i % 3 {
                    0 => (DecisionKind::Play, None),
                    1 => (DecisionKind::PlayDrawn, obs.hand().first()),
                    _ => (DecisionKind::Challenge, None),
                };
                let mut want = [1f32; OBS_LEN];
                encode(&obs, kind, card, &mut want);
                f.capture(&obs, kind, card);
                let mut got = [3f32; OBS_LEN];
                f.write(&r.deck, &mut got);
                assert_eq!(got.to_vec(), want.to_vec(), "{name} seed {seed} state {i}");
                checked += 1;
            }
            f.clear();
            f.write(&r.deck, &mut got);
            assert!(got[..OBS_LEN].iter().all(|&x| x == 0.0), "cleared");
        }
    }
    assert!(checked > 500, "{checked}");
}

#[test]
fn a_mask_is_the_set() {
    let mut s = ActionSet::EMPTY;
    for a in [0, 5, ACT_DRAW, ACT_NO_JUMP] {
        s.insert(a);
    }
    let mut m = [7i8; ACTIONS + 3];
    s.write_mask(&mut m);
    for a in 0..ACTIONS {
        assert_eq!(m[a] == 1, s.contains(a), "{a}");
        assert!(m[a] == 0 || m[a] == 1);
    }
    assert_eq!(m[ACTIONS..], [7, 7, 7], "nothing written past the mask");
}

#[test]
fn every_card_of_every_deck_has_its_kind_back() {
    for name in crate::engine::rules::BUILTIN_NAMES {
        let r = Rules::builtin(name);
        let t = kind_table(&r.deck);
        for c in r.deck.all.iter() {
            assert_eq!(kind_of_index(t[c as usize] as usize), r.deck.kind(c));
            assert_eq!(r.deck.kind_of[c as usize], t[c as usize], "{name} card {c}");
            let a = action_of_card(&r.deck, c);
            let back = card_of_action(&r.deck, r.deck.all_of(r.deck.kind(c)), a).unwrap();
            assert_eq!(r.deck.kind(back), r.deck.kind(c));
        }
    }
}
