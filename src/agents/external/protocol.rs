//! The text of the protocol (docs/protocol.md): the version unolab speaks,
//! what a decision wants as its answer and how a program's line is read as
//! one, and the check of its `hello`.

use crate::engine::cards::{CardId, CardSet, Color, Kind};
use crate::engine::rules::Deck;
use serde_json::Value;

/// The protocol version unolab speaks (the `version` of the `hello` line).
pub const PROTOCOL_VERSION: u64 = 1;

/// What a decision expects as its answer (see [`parse_answer`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Want {
    /// A card token among the cards given, or "draw".
    Card(CardSet),
    Bool,
    Color,
    Seat,
}

/// A parsed answer (see [`parse_answer`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Answer {
    /// A card (`None`: "draw").
    Card(Option<CardId>),
    Bool(bool),
    Color(Color),
    Seat(u8),
}

/// At most 200 characters of what a program (or a person) wrote, for a
/// message on one line: control characters (a carriage return, an escape
/// sequence, a bell, a NUL) are written escaped (`\r`, `\u{1b}`), never sent
/// to the terminal as they are.
pub fn clip(s: &str) -> String {
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i == 200 {
            out += "...";
            break;
        }
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// Reads one line a program wrote as the answer to request `id`, a decision
/// that wants `want`, in a game of `deck` where the player holds `hand`: the
/// error says what is wrong with it (the line is the program's fault then).
/// The line need not echo the `id`; one that echoes another is the answer to
/// another request, and refused: the program is out of step (it answered a
/// request twice, say), and each answer it wrote from then on would be read
/// as the answer to the request after its own.
pub fn parse_answer(
    line: &str,
    id: u64,
    want: Want,
    deck: &Deck,
    hand: CardSet,
) -> Result<Answer, String> {
    let v: Value = serde_json::from_str(line)
        .map_err(|_| "not JSON (expected one object such as {\"answer\": ...})".to_string())?;
    if let Some(echo) = v.get("id") {
        match echo.as_u64() {
            None => return Err(format!(
                "its \"id\" is {echo}, not a whole number: echo the request's \"id\" as it came ({id}), or leave it out"
            )),
            Some(e) if e != id => return Err(format!(
                "its \"id\" is {echo}, not {id}: an answer to another request (the program is out of step: one answer per request, in order)"
            )),
            Some(_) => {}
        }
    }
    let a = v
        .get("answer")
        .ok_or_else(|| "a JSON line without \"answer\"".to_string())?;
    match want {
        Want::Bool => a
            .as_bool()
            .map(Answer::Bool)
            .ok_or_else(|| "the answer must be true or false".into()),
        Want::Color => a
            .as_str()
            .ok_or_else(|| "the answer must be a colour name".to_string())?
            .parse::<Color>()
            .map(Answer::Color),
        Want::Seat => a
            .as_u64()
            .filter(|&s| s < 256)
            .map(|s| Answer::Seat(s as u8))
            .ok_or_else(|| "the answer must be a seat number".into()),
        Want::Card(offered) => {
            let t = a
                .as_str()
                .ok_or_else(|| "the answer must be a card token or \"draw\"".to_string())?;
            if t == "draw" {
                return Ok(Answer::Card(None));
            }
            let kind: Kind = t.parse()?;
            let all = deck.all_of(kind);
            if all.is_empty() {
                return Err(format!("there is no {t} in this deck"));
            }
            // A card of that kind among those offered; else one the player
            // holds; else any: the engine judges (and sanctions) the move.
            let pick = (all & offered)
                .first()
                .or_else(|| (all & hand).first())
                .or_else(|| all.first());
            Ok(Answer::Card(pick))
        }
    }
}

/// Checks a program's answer to the `hello`: a JSON object with the
/// `version` unolab speaks. The error completes "answered the hello with
/// '...'".
pub fn check_hello(reply: &str) -> Result<(), String> {
    match serde_json::from_str::<Value>(reply) {
        Ok(v) if v.get("version").and_then(Value::as_u64) == Some(PROTOCOL_VERSION) => Ok(()),
        Ok(v) if v.get("version").is_some() => Err(format!(
            ": it speaks protocol version {}, unolab speaks {PROTOCOL_VERSION}",
            v["version"]
        )),
        _ => Err(format!(
            ", which is not a JSON object with \"version\": {PROTOCOL_VERSION}"
        )),
    }
}

pub(super) fn bool_legal() -> &'static str {
    "[true,false]"
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::rules::Rules;

    /// An `id` that is not a whole number is said to be of the wrong kind,
    /// not an answer to another request; the right number, or none, is read.
    #[test]
    fn an_id_of_the_wrong_kind_is_said_to_be_one() {
        let rules = Rules::builtin("classic");
        let read = |line: &str| parse_answer(line, 1, Want::Bool, &rules.deck, CardSet::EMPTY);
        for line in [
            r#"{"id": "1", "answer": true}"#,
            r#"{"id": 1.0, "answer": true}"#,
        ] {
            let e = read(line).unwrap_err();
            assert!(
                e.contains("not a whole number") && !e.contains("another request"),
                "{e}"
            );
        }
        assert!(read(r#"{"id": 2, "answer": true}"#)
            .unwrap_err()
            .contains("an answer to another request"));
        assert_eq!(read(r#"{"id": 1, "answer": true}"#), Ok(Answer::Bool(true)));
        assert_eq!(read(r#"{"answer": false}"#), Ok(Answer::Bool(false)));
    }
}
