//! RLCard's UNO encoding (`rlcard.envs.uno`), so that an agent trained on
//! RLCard can play here: its observation, 4 planes of 4 colours x 15 traits,
//! and its 61 actions (a card with its colour, wilds once per colour, and
//! draw), read from and mapped onto the engine's own encoding
//! ([`crate::engine::encode`]).
//!
//! Colours are RLCard's order (r, g, b, y), traits `0..9`, skip, reverse,
//! draw 2, wild, wild draw 4. The planes, as `rlcard.games.uno.utils` writes
//! them:
//!
//! | plane | value |
//! | --- | --- |
//! | 0 | 1 where the hand holds no card of that colour and trait |
//! | 1 | 1 where it holds exactly one (a wild held: 1 in all four colours, whatever the count) |
//! | 2 | 1 where it holds two |
//! | 3 | 1 at the top card's colour and trait (a wild: at the colour named) |
//!
//! Action `a < 60` plays the card of colour `a / 15` and trait `a % 15` (a
//! wild: naming that colour); action 60 draws. The decisions RLCard does not
//! have are answered as RLCard does: the colour of a wild is the action's,
//! UNO is always called, a playable drawn card is played (a wild drawn names
//! the colour held most). A rule set that can ask anything else (stacking,
//! challenge, a swap target, jump-in), or deals a card RLCard's deck does
//! not have (a Wild Downpour, Wild Ohana, Wild Swap or custom wild, which no
//! plane would show and no action could play), has no RLCard encoding:
//! [`check_rules`] refuses it before any game, and the stepper stops with
//! [`crate::engine::step::StepError::Unsupported`] should one arise.

use crate::engine::cards::{Color, Face};
use crate::engine::encode::{
    kind_of_index, ActionSet, DecisionKind, ACT_COLOR, ACT_DRAW, ACT_PLAY, ACT_PLAY_DRAWN, ACT_UNO,
    KINDS, SECTIONS,
};
use crate::engine::rules::{Effect, Rules, Stacking};

/// The decisions rule set `rules` can ask that RLCard's actions cannot
/// answer (RLCard's rules have none of them), in words: empty when the
/// RLCard encoding can play every game of it. The engine asks them under
/// these conditions only: a pending draw answered with a draw card
/// (stacking on, a deck with draw cards), a Wild Draw Four challenged
/// (`bluff_challenge`, a deck with one), a swap target (a swap card, or a 7
/// under `seven_o`), a jump-in (`jump_in`).
pub fn missing_decisions(rules: &Rules) -> Vec<&'static str> {
    let (d, s) = (&rules.deck, &rules.settings);
    let mut v = Vec::new();
    if s.stacking != Stacking::Off && !(d.wd4 | d.draw2).is_empty() {
        v.push("stacking");
    }
    if s.bluff_challenge && !d.wd4.is_empty() {
        v.push("a challenge");
    }
    let cards = 0..d.size.min(128);
    let swap = cards.clone().any(|c| d.effect_of[c] == Effect::Swap);
    let seven = s.seven_o
        && cards
            .into_iter()
            .any(|c| d.face_of[c] == 7 && d.effect_of[c] == Effect::Number);
    if swap || seven {
        v.push("a swap target");
    }
    if s.jump_in {
        v.push("jump-in");
    }
    v
}

/// The faces of rule set `rules`'s deck that RLCard's deck does not have
/// (Wild Downpour, Wild Ohana, Wild Swap, a custom wild), as tokens: no
/// plane shows such a card and no action plays it, so a hand holding one
/// could never be emptied. Empty when RLCard has every card of the deck.
pub fn missing_cards(rules: &Rules) -> Vec<&'static str> {
    let d = &rules.deck;
    Face::ALL
        .into_iter()
        .filter(|f| f.index() >= TRAITS && !d.face_mask[f.index()].is_empty())
        .map(Face::token)
        .collect()
}

/// [`missing_decisions`] and [`missing_cards`] as the refusal of the RLCard
/// encoding for `rules`: `Err` with one line naming them.
pub fn check_rules(rules: &Rules) -> Result<(), String> {
    let decisions = missing_decisions(rules);
    let cards = missing_cards(rules);
    let name = &rules.name;
    let why = match (decisions.is_empty(), cards.is_empty()) {
        (true, true) => return Ok(()),
        (false, true) => format!(
            "no action for {} (rule set '{name}' asks for it; RLCard's rules do not)",
            decisions.join(", ")
        ),
        (true, false) => format!(
            "no card {} (rule set '{name}' deals it; RLCard's deck does not have it)",
            cards.join(", ")
        ),
        (false, false) => format!(
            "no action for {} (rule set '{name}' asks for it; RLCard's rules do not) and no card {} (RLCard's deck does not have it)",
            decisions.join(", "),
            cards.join(", ")
        ),
    };
    Err(format!(
        "the RLCard encoding has {why}: use encoding=\"unolab\""
    ))
}

/// RLCard's observation shape: planes, colours, traits.
pub const SHAPE: [usize; 3] = [4, 4, 15];
/// The length of the flat observation.
pub const OBS_LEN: usize = 4 * 4 * 15;
/// RLCard's actions: 60 cards with their colour, and draw.
pub const ACTIONS: usize = 61;
/// The draw action.
pub const DRAW: usize = 60;
/// Traits per colour.
const TRAITS: usize = 15;

/// RLCard's colour order (r, g, b, y) as the engine's colours.
pub const COLORS: [Color; 4] = [Color::Red, Color::Green, Color::Blue, Color::Yellow];

/// RLCard's colour index of an engine colour.
pub fn rl_color(c: Color) -> usize {
    match c {
        Color::Red => 0,
        Color::Green => 1,
        Color::Blue => 2,
        Color::Yellow => 3,
    }
}

fn section(name: &str) -> std::ops::Range<usize> {
    let s = SECTIONS
        .iter()
        .find(|s| s.name == name)
        .copied()
        .unwrap_or(SECTIONS[0]);
    s.offset..s.offset + s.len
}

/// The engine's kind number of RLCard's (colour, trait), and the colour a
/// wild names (`None` for a coloured card).
fn kind_of(color: usize, t: usize) -> (usize, Option<Color>) {
    let c = COLORS[color];
    if t < 13 {
        (c.index() * 13 + t, None)
    } else {
        (4 * 13 + (t - 13), Some(c))
    }
}

/// RLCard's trait of an engine kind number, and its RLCard colour (`None`
/// for a wild, and for the kinds RLCard does not have).
fn trait_of(kind: usize) -> Option<(Option<usize>, usize)> {
    let k = kind_of_index(kind);
    let t = k.face.index();
    if t >= TRAITS {
        return None;
    }
    Some((k.color.map(rl_color), t))
}

/// Writes RLCard's planes (flat, [`OBS_LEN`] long, plane-major) of the seat
/// whose engine features are `features` (see [`crate::engine::encode`]).
pub fn planes(features: &[f32], out: &mut [f32]) {
    let out = &mut out[..OBS_LEN];
    out.fill(0.0);
    let at = |plane: usize, color: usize, t: usize| plane * 60 + color * TRAITS + t;
    for c in 0..4 {
        for t in 0..TRAITS {
            out[at(0, c, t)] = 1.0;
        }
    }
    let hand = &features[section("hand")];
    for (kind, &n) in hand.iter().enumerate().take(KINDS) {
        if n <= 0.0 {
            continue;
        }
        match trait_of(kind) {
            Some((Some(c), t)) => {
                out[at(0, c, t)] = 0.0;
                out[at((n as usize).min(2), c, t)] = 1.0;
            }
            Some((None, t)) => {
                for c in 0..4 {
                    out[at(0, c, t)] = 0.0;
                    out[at(1, c, t)] = 1.0;
                }
            }
            None => {}
        }
    }
    let top = &features[section("top")];
    let color = &features[section("color")];
    if let Some(kind) = top.iter().position(|&v| v > 0.0) {
        if let Some((c, t)) = trait_of(kind) {
            let named = color.iter().position(|&v| v > 0.0).map(|i| {
                let col = Color::from_index(i);
                rl_color(col)
            });
            if let Some(c) = c.or(named) {
                out[at(3, c, t)] = 1.0;
            }
        }
    }
}

/// RLCard's legal actions of a play decision whose engine legal set is
/// `legal` (a wild: once per colour), as a mask ([`ACTIONS`] long).
pub fn mask(legal: ActionSet, out: &mut [i8]) {
    let out = &mut out[..ACTIONS];
    out.fill(0);
    for a in legal.iter() {
        if a == ACT_DRAW {
            out[DRAW] = 1;
        } else if (ACT_PLAY..ACT_PLAY + KINDS).contains(&a) {
            match trait_of(a - ACT_PLAY) {
                Some((Some(c), t)) => out[c * TRAITS + t] = 1,
                Some((None, t)) => {
                    for c in 0..4 {
                        out[c * TRAITS + t] = 1;
                    }
                }
                None => {}
            }
        }
    }
}

/// The engine action of RLCard's action `a` (`< ACTIONS`), and the colour
/// it names (a wild).
pub fn action(a: usize) -> (usize, Option<Color>) {
    if a >= DRAW {
        return (ACT_DRAW, None);
    }
    let (kind, named) = kind_of(a / TRAITS, a % TRAITS);
    (ACT_PLAY + kind, named)
}

/// RLCard's action of an engine play or draw action (a wild: naming `color`).
pub fn of_action(a: usize, color: Color) -> Option<usize> {
    if a == ACT_DRAW {
        return Some(DRAW);
    }
    let (c, t) = trait_of(a.checked_sub(ACT_PLAY).filter(|k| *k < KINDS)?)?;
    Some(c.unwrap_or(rl_color(color)) * TRAITS + t)
}

/// The engine's answer RLCard gives without asking, to a decision that
/// follows an action: the colour named (`named`, else the colour held most
/// in `features`), UNO called, a drawn card played. `None` for a play
/// decision (the agent's) and for the decisions RLCard does not have.
pub fn follow_up(kind: DecisionKind, named: Option<Color>, features: &[f32]) -> Option<usize> {
    match kind {
        DecisionKind::Color => {
            let c = named.unwrap_or_else(|| {
                let hand = &features[section("hand")];
                let mut best = (0.0f32, Color::Red);
                for c in [Color::Red, Color::Yellow, Color::Green, Color::Blue] {
                    let n: f32 = (0..13).map(|f| hand[c.index() * 13 + f]).sum();
                    if n > best.0 {
                        best = (n, c);
                    }
                }
                best.1
            });
            Some(ACT_COLOR + c.index())
        }
        DecisionKind::Uno => Some(ACT_UNO),
        DecisionKind::PlayDrawn => Some(ACT_PLAY_DRAWN),
        _ => None,
    }
}

/// The card kind of RLCard's action, for messages (`"r-wild"`, `"draw"`).
pub fn action_label(a: usize) -> String {
    if a >= DRAW {
        return "draw".into();
    }
    let c = ["r", "g", "b", "y"][a / TRAITS];
    let t = a % TRAITS;
    let trait_name = match t {
        0..=9 => t.to_string(),
        10 => "skip".into(),
        11 => "reverse".into(),
        12 => "draw_2".into(),
        13 => "wild".into(),
        _ => "wild_draw_4".into(),
    };
    format!("{c}-{trait_name}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::encode::OBS_LEN as FEATURES;

    #[test]
    fn actions_map_both_ways() {
        for a in 0..ACTIONS {
            let (e, named) = action(a);
            assert_eq!(of_action(e, named.unwrap_or(Color::Red)), Some(a), "{a}");
        }
        assert_eq!(action_label(0), "r-0");
        assert_eq!(action_label(13), "r-wild");
        assert_eq!(action_label(59), "y-wild_draw_4");
        assert_eq!(action_label(60), "draw");
    }

    #[test]
    fn planes_follow_rlcards_encode_hand_and_target() {
        let mut f = vec![0.0f32; FEATURES];
        let hand = section("hand").start;
        // Two red 7s, one blue skip, a wild.
        f[hand + Color::Red.index() * 13 + 7] = 2.0;
        f[hand + Color::Blue.index() * 13 + 10] = 1.0;
        f[hand + 52] = 1.0;
        // The top card: a wild draw 4 with green named.
        f[section("top").start + 53] = 1.0;
        f[section("color").start + Color::Green.index()] = 1.0;
        let mut p = vec![0.0f32; OBS_LEN];
        planes(&f, &mut p);
        let at = |pl: usize, c: usize, t: usize| p[pl * 60 + c * 15 + t];
        assert_eq!(at(2, 0, 7), 1.0);
        assert_eq!(at(0, 0, 7), 0.0);
        assert_eq!(at(1, 2, 10), 1.0);
        for c in 0..4 {
            assert_eq!(at(1, c, 13), 1.0);
            assert_eq!(at(0, c, 13), 0.0);
        }
        assert_eq!(at(0, 3, 5), 1.0);
        assert_eq!(at(3, 1, 14), 1.0);
        assert_eq!(p[180..].iter().sum::<f32>(), 1.0);
        // Planes 0..2 hold one 1 per colour and trait.
        for c in 0..4 {
            for t in 0..15 {
                assert_eq!(at(0, c, t) + at(1, c, t) + at(2, c, t), 1.0);
            }
        }
    }
}
