//! What a person types at the table (`unolab play`), read as answers: one
//! typed line per question, parsed here without a terminal, so that the
//! parsing is tested and fuzzed on its own. Prompts, screens and reading the
//! lines are the CLI's (`src/cli/play.rs`); it prints the messages these
//! functions return.

use crate::agents::external::clip;
use crate::engine::cards::{CardId, CardSet, Color, Kind};
use crate::engine::rules::Deck;

/// One typed line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Typed {
    /// `quit` or `q`: the person leaves the table.
    Quit,
    /// Anything else, trimmed and in lower case.
    Line(String),
}

/// Reads one typed line (without or with its line end).
pub fn typed(raw: &str) -> Typed {
    let t = raw.trim().to_lowercase();
    if t == "quit" || t == "q" {
        return Typed::Quit;
    }
    Typed::Line(t)
}

/// A typed line read as the answer to "play a card" (or "answer the stack").
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CardReply {
    /// Draw instead of playing (allowed here).
    Draw,
    /// A card of the hand that may be played now.
    Card(CardId),
    /// A card of the hand that may not be played now: the caller says why.
    Illegal(CardId),
    /// Not an answer: the message says what to type instead.
    Refused(String),
}

/// Reads `t` (a [`Typed::Line`]) as a card of `hand` (in the order shown,
/// numbered from 1) by its number or its token (`red-7`; of several identical
/// cards, a legal one), or as `d` / `draw` when `may_draw`.
pub fn card_reply(
    t: &str,
    hand: &[CardId],
    deck: &Deck,
    legal: CardSet,
    may_draw: bool,
) -> CardReply {
    if t == "d" || t == "draw" {
        return if may_draw {
            CardReply::Draw
        } else {
            CardReply::Refused("you may not draw now: a playable card must be played".into())
        };
    }
    let card = if let Ok(k) = t.parse::<usize>() {
        match hand.get(k.wrapping_sub(1)) {
            Some(&c) => c,
            None => {
                return CardReply::Refused(format!(
                    "there is no card {k}: give 1 to {}",
                    hand.len()
                ))
            }
        }
    } else if let Ok(kind) = t.parse::<Kind>() {
        let of_kind = |c: &&CardId| deck.kinds.get(**c as usize) == Some(&kind);
        match hand.iter().find(of_kind) {
            Some(&c) => hand
                .iter()
                .filter(of_kind)
                .copied()
                .find(|&c| legal.contains(c))
                .unwrap_or(c),
            None => return CardReply::Refused(format!("you do not hold {}", clip(t))),
        }
    } else {
        return CardReply::Refused(format!(
            "'{}' is not a card: type its number, its name (e.g. red-7, wild), 'd' to draw or 'quit'",
            clip(t)
        ));
    };
    if legal.contains(card) {
        CardReply::Card(card)
    } else {
        CardReply::Illegal(card)
    }
}

/// Reads `t` as yes (`y`, `yes`) or no (`n`, `no`); `None` for anything else.
pub fn yes_no(t: &str) -> Option<bool> {
    match t {
        "y" | "yes" => Some(true),
        "n" | "no" => Some(false),
        _ => None,
    }
}

/// Reads `t` as a colour: its name or its first letter (`r`, `y`, `g`, `b`).
pub fn color(t: &str) -> Option<Color> {
    match t {
        "r" => Some(Color::Red),
        "y" => Some(Color::Yellow),
        "g" => Some(Color::Green),
        "b" => Some(Color::Blue),
        _ => t.parse::<Color>().ok(),
    }
}

/// Reads `t` as one of the seats `others`.
pub fn seat(t: &str, others: &[u8]) -> Option<u8> {
    match t.parse::<u8>() {
        Ok(s) if others.contains(&s) => Some(s),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::rules::Rules;

    #[test]
    fn a_line_that_is_no_card_is_quoted_short_and_escaped() {
        let rules = Rules::builtin("classic");
        let t = format!("x\u{1b}[31m{}", "a".repeat(5000));
        let CardReply::Refused(why) = card_reply(&t, &[], &rules.deck, CardSet::EMPTY, true) else {
            panic!("refused");
        };
        assert!(why.starts_with("'x\\u{1b}[31maaa"), "{why}");
        assert!(why.contains("aaa...' is not a card"), "{why}");
        assert!(why.len() < 300, "{}", why.len());
        assert!(!why.chars().any(char::is_control), "{why:?}");
    }

    #[test]
    fn typed_lines() {
        assert_eq!(typed("  Quit\n"), Typed::Quit);
        assert_eq!(typed("q"), Typed::Quit);
        assert_eq!(typed(" Red-7 \r\n"), Typed::Line("red-7".into()));
        assert_eq!(yes_no("yes"), Some(true));
        assert_eq!(yes_no("n"), Some(false));
        assert_eq!(yes_no("maybe"), None);
        assert_eq!(color("g"), Some(Color::Green));
        assert_eq!(color("blue"), Some(Color::Blue));
        assert_eq!(color("purple"), None);
        assert_eq!(seat("2", &[1, 2]), Some(2));
        assert_eq!(seat("3", &[1, 2]), None);
        assert_eq!(seat("-1", &[1, 2]), None);
    }

    #[test]
    fn cards_by_number_token_and_draw() {
        let r = Rules::builtin("classic");
        let d = &r.deck;
        let red7: Vec<CardId> = d.all_of("red-7".parse().unwrap()).iter().collect();
        let blue1 = d.all_of("blue-1".parse().unwrap()).first().unwrap();
        let hand = vec![red7[0], red7[1], blue1];
        // Of two identical cards, the legal one.
        let legal = CardSet::single(red7[1]);
        assert_eq!(
            card_reply("red-7", &hand, d, legal, true),
            CardReply::Card(red7[1])
        );
        assert_eq!(
            card_reply("2", &hand, d, legal, true),
            CardReply::Card(red7[1])
        );
        assert_eq!(
            card_reply("1", &hand, d, legal, true),
            CardReply::Illegal(red7[0])
        );
        assert_eq!(
            card_reply("blue-1", &hand, d, legal, true),
            CardReply::Illegal(blue1)
        );
        assert_eq!(card_reply("d", &hand, d, legal, true), CardReply::Draw);
        let refused = |t: &str, may_draw| match card_reply(t, &hand, d, legal, may_draw) {
            CardReply::Refused(m) => m,
            other => panic!("{t}: {other:?}"),
        };
        assert!(refused("draw", false).contains("may not draw"));
        assert_eq!(refused("0", true), "there is no card 0: give 1 to 3");
        assert_eq!(refused("4", true), "there is no card 4: give 1 to 3");
        assert_eq!(refused("green-5", true), "you do not hold green-5");
        assert!(refused("xyz", true).starts_with("'xyz' is not a card"));
    }
}
