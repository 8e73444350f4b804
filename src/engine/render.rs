//! The table as plain text, for learning environments' `render()`: what the
//! deciding seat sees (its hand, the top card and colour, every hand's size,
//! the totals) and the legal actions of its decision, or the end of a game.
//! Only what the observation shows; no colour codes.

use crate::engine::cards::{CardId, CardSet};
use crate::engine::encode::{action_label, ActionSet, Decision};
use crate::engine::game::{MatchResult, Observation, RoundResult};
use crate::engine::rules::Rules;

/// The hand sorted by colour (red, yellow, green, blue, wilds), then face.
fn sorted(rules: &Rules, hand: CardSet) -> Vec<CardId> {
    let mut v: Vec<CardId> = hand.iter().collect();
    v.sort_by_key(|&c| {
        let k = rules.deck.kind(c);
        (k.color.map_or(4, |c| c.index()), k.face.index(), c)
    });
    v
}

/// The top card, colour, direction, piles and every seat's hand size and
/// total, one seat a line (`>` marks the observing seat when it is
/// `deciding`).
fn table_lines(obs: &Observation, deciding: bool, out: &mut String) {
    let r = obs.rules();
    out.push_str(&format!(
        "top card: {}   colour: {}   direction: {}   draw pile: {}",
        r.deck.token(obs.top()),
        obs.named_color().map_or("not named yet", |c| c.name()),
        if obs.direction() > 0 {
            "clockwise (seat numbers up)"
        } else {
            "counter-clockwise (seat numbers down)"
        },
        obs.draw_pile_len()
    ));
    if obs.pending_draw() > 0 {
        out.push_str(&format!("   pending draw: {}", obs.pending_draw()));
    }
    out.push('\n');
    for p in 0..obs.players() {
        let mark = if deciding && p == obs.seat() as usize {
            '>'
        } else {
            ' '
        };
        out.push_str(&format!(
            " {mark} seat {p:<2} {:>3} cards {:>6} points\n",
            obs.hand_size(p),
            obs.totals()[p]
        ));
    }
}

/// The table as the deciding seat sees it at `decision` (its legal actions
/// `legal`, numbered as in [`crate::engine::encode`]): the round and turn,
/// the table, the seat's hand (`*` marks the cards the decision is about:
/// the playable cards, the answers to a pending draw, the drawn card) and
/// the legal actions with their meaning.
pub fn decision_text(obs: &Observation, decision: &Decision, legal: ActionSet) -> String {
    let r = obs.rules();
    let mut out = format!(
        "round {}, turn {}: seat {} decides ({})\n",
        obs.round(),
        obs.turns(),
        decision.seat,
        decision.kind.name()
    );
    table_lines(obs, true, &mut out);
    out.push_str(&format!("hand of seat {}:", obs.seat()));
    for c in sorted(r, obs.hand()) {
        let mark = if decision.cards.contains(c) { "*" } else { "" };
        out.push_str(&format!(" {}{mark}", r.deck.token(c)));
    }
    out.push('\n');
    out.push_str("legal actions:");
    for a in legal.iter() {
        out.push_str(&format!(" {a} ({})", action_label(a)));
    }
    out.push('\n');
    out
}

/// The end of a game: the last view of the table (`obs`, any seat's; its
/// hand is not shown), each round's outcome, and the match result if any.
pub fn over_text(
    obs: &Observation,
    rounds: &[RoundResult],
    result: Option<&MatchResult>,
) -> String {
    let mut out = String::from("game over\n");
    // No seat decides: none is marked.
    table_lines(obs, false, &mut out);
    for r in rounds {
        let who = match r.winner {
            Some(w) => format!("seat {w} won"),
            None => format!("ended {}", r.outcome.name()),
        };
        out.push_str(&format!(
            "round {}: {who} after {} turns\n",
            r.round, r.turns
        ));
    }
    if let Some(m) = result {
        match m.winner {
            Some(w) => out.push_str(&format!("match: seat {w} won after {} rounds\n", m.rounds)),
            None => out.push_str(&format!(
                "match: no winner after {} rounds{}\n",
                m.rounds,
                if m.tied { " (tied)" } else { "" }
            )),
        }
    }
    out
}
