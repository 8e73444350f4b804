//! Game traces: one match as JSON Lines, in the format of docs/trace.md.
//!
//! [`TraceWriter`] is a [`Recorder`] that turns engine events into lines;
//! [`write_trace`] plays one match and writes the whole trace. The same rule
//! set, line-up and seed always give the same bytes.

use crate::engine::cards::{CardId, CardSet};
use crate::engine::game::{
    game_rngs, Agents, DrawReason, Event, Game, IllegalAction, MatchResult, Recorder,
};
use crate::engine::rules::Rules;
use crate::engine::strategy::Strategy;
use serde_json::{json, Value};
use std::io::Write;

/// Errors while writing a trace.
#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    #[error("cannot write the trace: {0}")]
    Io(#[from] std::io::Error),
    /// Strict mode stopped the match (`seed`: the master seed; a trace
    /// plays its game 0, the game `unolab run --seed` plays first).
    #[error("{error} (seed {seed}, game 0)")]
    Illegal {
        error: crate::engine::game::IllegalActionError,
        seed: u64,
    },
    #[error("{0}")]
    Invalid(String),
}

/// Writes engine events as trace lines.
pub struct TraceWriter<W: Write> {
    out: W,
    /// Cards of the draw in progress (a draw line is written when it ends).
    drawing: Vec<CardId>,
    draw_who: u8,
    draw_reason: DrawReason,
    /// Whether the draw under way has given a card (its lines may be cut
    /// by a reshuffle).
    drew_any: bool,
    error: Option<std::io::Error>,
}

impl<W: Write> TraceWriter<W> {
    pub fn new(out: W) -> Self {
        TraceWriter {
            out,
            drawing: Vec::new(),
            draw_who: 0,
            draw_reason: DrawReason::Turn,
            drew_any: false,
            error: None,
        }
    }

    /// Writes one line (a JSON object).
    pub fn line(&mut self, v: &Value) {
        if self.error.is_some() {
            return;
        }
        let r = serde_json::to_writer(&mut self.out, v)
            .map_err(std::io::Error::from)
            .and_then(|_| self.out.write_all(b"\n"));
        if let Err(e) = r {
            self.error = Some(e);
        }
    }

    fn flush_draw(&mut self, g: &Game) {
        if self.drawing.is_empty() {
            return;
        }
        let cards: Vec<String> = self
            .drawing
            .iter()
            .map(|&c| g.rules().deck.token(c))
            .collect();
        self.drawing.clear();
        let v = json!({"type": "draw", "player": self.draw_who, "cards": cards, "reason": self.draw_reason.name()});
        self.line(&v);
    }

    /// The first I/O error met, if any; flushes the output.
    pub fn finish(mut self) -> Result<W, std::io::Error> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        self.out.flush()?;
        Ok(self.out)
    }
}

fn tokens(g: &Game, set: CardSet) -> Vec<String> {
    set.iter().map(|c| g.rules().deck.token(c)).collect()
}

fn pile(g: &Game) -> Vec<String> {
    g.draw_pile().map(|c| g.rules().deck.token(c)).collect()
}

impl<W: Write> Recorder for TraceWriter<W> {
    fn on(&mut self, g: &Game, e: Event<'_>) {
        if let Event::Draw {
            player,
            card,
            reason,
        } = e
        {
            if !self.drawing.is_empty() && (self.draw_who != player || self.draw_reason != reason) {
                self.flush_draw(g);
            }
            self.draw_who = player;
            self.draw_reason = reason;
            self.drawing.push(card);
            self.drew_any = true;
            return;
        }
        self.flush_draw(g);
        // A penalty or a sanction that gave no card (a penalty of 0, or
        // nothing left to draw) still writes its `draw` line, empty: the
        // `uno_caught` and `illegal` lines are always followed by theirs.
        if let Event::DrawEnd { player, reason } = e {
            let drew = std::mem::take(&mut self.drew_any);
            if !drew && matches!(reason, DrawReason::UnoPenalty | DrawReason::WrongCard) {
                let v =
                    json!({"type": "draw", "player": player, "cards": [], "reason": reason.name()});
                self.line(&v);
            }
            return;
        }
        let d = &g.rules().deck;
        let v = match e {
            Event::Draw { .. } | Event::DrawEnd { .. } => return,
            Event::Deal { round, dealer } => {
                let hands: Vec<Vec<String>> = g.hands().iter().map(|h| tokens(g, *h)).collect();
                json!({"type": "deal", "round": round, "dealer": dealer, "hands": hands, "draw_pile": pile(g)})
            }
            Event::Flip { card, returned } => {
                if returned {
                    json!({"type": "flip", "card": d.token(card), "returned": true, "draw_pile": pile(g)})
                } else {
                    json!({"type": "flip", "card": d.token(card), "returned": false})
                }
            }
            Event::Color { player, color } => {
                json!({"type": "color", "player": player, "color": color.name()})
            }
            Event::Play {
                player,
                card,
                color,
                uno,
                jump_in,
                target,
            } => json!({
                "type": "play", "player": player, "card": d.token(card), "color": color.name(),
                "uno": uno, "jump_in": jump_in, "target": target
            }),
            Event::Pass { player } => json!({"type": "pass", "player": player}),
            Event::Skip { player } => json!({"type": "skip", "player": player}),
            Event::UnoCaught { player } => json!({"type": "uno_caught", "player": player}),
            Event::Challenge {
                challenger,
                target,
                guilty,
            } => {
                json!({"type": "challenge", "challenger": challenger, "target": target, "guilty": guilty})
            }
            Event::Swap { a, b } => json!({"type": "swap", "a": a, "b": b}),
            Event::Rotate { direction } => json!({"type": "rotate", "direction": direction}),
            Event::Reshuffle => json!({"type": "reshuffle", "draw_pile": pile(g)}),
            Event::Illegal { player, action } => {
                let action = match action {
                    IllegalAction::Play(c) => format!("play {}", d.token(c)),
                    IllegalAction::Draw => "draw".to_string(),
                    IllegalAction::Answer(c) => format!("answer {}", d.token(c)),
                    IllegalAction::Target(t) => format!("target {t}"),
                };
                json!({"type": "illegal", "player": player, "action": action})
            }
            Event::RoundEnd { result, totals } => {
                let hands: Vec<Vec<String>> = g.hands().iter().map(|h| tokens(g, *h)).collect();
                json!({
                    "type": "round_end", "round": result.round, "winner": result.winner,
                    "outcome": result.outcome.name(), "hands": hands,
                    "points": &result.points[..g.players()], "totals": totals, "turns": result.turns
                })
            }
        };
        self.line(&v);
    }
}

/// The `match` line: rule set, every resolved setting (plus point overrides),
/// players, strategies and seed.
pub fn match_line(rules: &Rules, players: usize, names: &[String], seed: u64) -> Value {
    let mut settings = serde_json::to_value(&rules.settings).unwrap_or(Value::Null);
    if let Value::Object(m) = &mut settings {
        m.insert(
            "points".into(),
            serde_json::to_value(rules.point_overrides()).unwrap_or(Value::Null),
        );
    }
    json!({"type": "match", "rules": rules.name, "settings": settings, "players": players, "strategies": names, "seed": seed})
}

/// The `match_end` line.
pub fn match_end_line(m: &MatchResult, players: usize) -> Value {
    json!({"type": "match_end", "winner": m.winner, "totals": &m.totals[..players], "rounds": m.rounds})
}

/// Plays one match with `seats` at the table (one strategy per seat, in seat
/// order; the generators of game 0 of `seed`, the ordered draw pile so that
/// the trace can list it) and writes its trace. The runner draws from an
/// unordered pile, so its game 0 is a different deal of the same
/// distribution.
pub fn write_trace<S: Strategy, W: Write>(
    rules: &Rules,
    seats: &mut [S],
    seed: u64,
    out: W,
) -> Result<MatchResult, TraceError> {
    let players = seats.len();
    rules
        .check_players(players)
        .map_err(|e| TraceError::Invalid(e.to_string()))?;
    let names: Vec<String> = seats.iter().map(|s| s.name().to_string()).collect();
    let (table_rng, agent_rng) = game_rngs(seed, 0);
    let mut w = TraceWriter::new(out);
    w.line(&match_line(rules, players, &names, seed));
    let mut game = Game::with_rng(rules, players, table_rng);
    let mut agents = Agents {
        seats,
        rng: agent_rng,
    };
    let result = game
        .play_match(&mut agents, &mut w, |_| {})
        .map_err(|error| TraceError::Illegal { error, seed })?;
    w.line(&match_end_line(&result, players));
    w.finish()?;
    Ok(result)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::rules::{RuleSetFile, Settings};

    #[test]
    fn the_match_line_lists_every_resolved_setting() {
        // ../shared/TRACE.md: "every resolved setting of RULES.md, by its
        // name". Five settings newer than the first traces were listed only
        // when changed from their default.
        let line = |sets: &[&str]| {
            let mut f = RuleSetFile::load("classic").unwrap();
            for s in sets {
                f.apply_set(s).unwrap();
            }
            match_line(&Rules::build(f).unwrap(), 2, &[], 1)["settings"]
                .as_object()
                .unwrap()
                .clone()
        };
        let settings = line(&[]);
        let all = serde_json::to_value(Settings::default()).unwrap();
        let mut expect: Vec<String> = all.as_object().unwrap().keys().cloned().collect();
        expect.push("points".into());
        assert_eq!(settings.keys().cloned().collect::<Vec<_>>(), expect);
        for (key, default) in [
            ("wild_when_matching", json!(true)),
            ("start_draw2_skips", json!(true)),
            ("start_wild_color", json!("player")),
            ("wd4_last_resort", json!(false)),
            ("drawn_card", json!("choice")),
        ] {
            assert_eq!(settings[key], default, "{key}");
        }
        // Each with its resolved value when changed.
        for (set, key, value) in [
            (
                "wild_when_matching=false",
                "wild_when_matching",
                json!(false),
            ),
            ("start_draw2_skips=false", "start_draw2_skips", json!(false)),
            (
                "start_wild_color=random",
                "start_wild_color",
                json!("random"),
            ),
            ("wd4_last_resort=true", "wd4_last_resort", json!(true)),
            ("drawn_card=rlcard", "drawn_card", json!("rlcard")),
        ] {
            assert_eq!(line(&[set])[key], value, "{set}");
        }
    }
}
