//! The person at the table of `unolab play`: a [`Strategy`] that shows the
//! table and the hand, asks on standard input and reads the answers (a card
//! by its token or place, a colour, a seat, yes or no), with the lines
//! "since your last turn" the table gathered.

use super::screen::{say, sorted, take, Log, Style, LOST};
use super::watch;
use std::io::BufRead;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use unolab::agents::external::clip;
use unolab::agents::human::{self, CardReply, Typed};
use unolab::engine::strategy::{fewest_cards_opponent, most_held_color};
use unolab::report::Cell;
use unolab::{CardId, CardSet, Color, Observation, Rng, Strategy};

/// The person at the table.
pub(super) struct Human {
    pub(super) style: Style,
    pub(super) log: Log,
    pub(super) gone: Arc<AtomicBool>,
    pub(super) left: Option<String>,
    /// The first fault of another seat: the game ends at the next prompt.
    pub(super) broken: watch::Broken,
    /// The card being played, once chosen, with the round and turn count
    /// it was chosen at: not shown in the hand at the questions of the same
    /// play that follow (a swap's target is asked before it leaves).
    pub(super) playing: Option<(CardId, u32, u32)>,
}

/// What the person typed, read as an answer.
enum Input {
    Line(String),
    Quit,
}

impl Human {
    fn read(&mut self, prompt: &str) -> Input {
        loop {
            if self.left.is_some() {
                return Input::Quit;
            }
            let broken = self.broken.lock().map(|b| b.clone()).unwrap_or_default();
            if let Some(why) = broken {
                return self.leave(why);
            }
            say_!("{prompt}> ");
            if let Some(lost) = LOST.get() {
                return self.leave(lost.clone());
            }
            let mut bytes = Vec::new();
            let line = match std::io::stdin().lock().read_until(b'\n', &mut bytes) {
                Ok(0) => return self.leave("the player left the table (end of input)".into()),
                Err(e) => return self.leave(format!("cannot read the answers: {e}")),
                Ok(_) => match String::from_utf8(bytes) {
                    Ok(line) => line,
                    Err(_) => {
                        // A stray byte (a key the terminal does not send as
                        // UTF-8) is a typo, not the end of the game.
                        sayln!("that was not text the terminal sent as UTF-8: type it again");
                        continue;
                    }
                },
            };
            return match human::typed(&line) {
                Typed::Quit => self.leave("the player left the table (quit)".into()),
                Typed::Line(t) => Input::Line(t),
            };
        }
    }

    /// The person has left (or can no longer be asked): `why` is kept for
    /// the engine, which ends the match.
    fn leave(&mut self, why: String) -> Input {
        self.gone.store(true, Ordering::Relaxed);
        self.left = Some(why);
        // The round is played out with defaults before the match ends: the
        // programs at the table are ended now, so that their seats answer
        // defaults at once instead of thinking for a table no one sits at.
        unolab::agents::external::end_all();
        Input::Quit
    }

    fn show_log(&self) {
        let lines = take(&self.log);
        if !lines.is_empty() {
            let mut out = String::from("since your last turn:\n");
            for l in lines {
                out += &format!("  {l}\n");
            }
            say_!("{out}");
        }
    }

    fn show_table(&self, obs: &Observation) {
        let r = obs.rules();
        let s = &self.style;
        let mut out = format!("\n---- round {}, turn {} ----\n", obs.round(), obs.turns());
        say_!("{out}");
        self.show_log();
        out = format!(
            "top card: {}   colour: {}   direction: {}",
            s.card(r, obs.top()),
            obs.named_color()
                .map_or("not named yet".to_string(), |c| s.colour(c)),
            if obs.direction() > 0 {
                "clockwise (seat numbers up)"
            } else {
                "counter-clockwise (seat numbers down)"
            }
        );
        if obs.pending_draw() > 0 {
            out += &format!("   pending draw: {}", obs.pending_draw());
        }
        out += &format!("   draw pile: {}\n", obs.draw_pile_len());
        // What you were shown of the other hands (swaps, a challenge).
        let known = obs.known_of_others();
        for (p, &known) in known[..obs.players()].iter().enumerate() {
            let n = obs.hand_size(p);
            out += &format!(
                "   {:<24} {n:>2} {:<5}  {:>4} points",
                Cell(&s.who(p as u8)),
                if n == 1 { "card" } else { "cards" },
                obs.totals()[p]
            );
            if !known.is_empty() {
                let cards: Vec<String> =
                    sorted(r, known).into_iter().map(|c| s.card(r, c)).collect();
                out += &format!("   you know: {}", cards.join(" "));
            }
            out.push('\n');
        }
        say_!("{out}");
    }

    /// Shows the hand, in order, where a question other than a card's is
    /// asked (the colour of a wild, a challenge, a swap).
    fn show_held(&self, obs: &Observation) {
        let r = obs.rules();
        let mut held = obs.hand();
        if let Some((c, round, turns)) = self.playing {
            if (round, turns) == (obs.round(), obs.turns()) {
                held.remove(c);
            }
        }
        let cards: Vec<String> = sorted(r, held)
            .into_iter()
            .map(|c| self.style.card(r, c))
            .collect();
        // Never empty: a last card asks nothing (no colour, no swap target).
        sayln!("your hand: {}", cards.join("  "));
    }

    /// Shows the hand numbered from 1; returns the cards in that order.
    fn show_hand(&self, obs: &Observation, marked: CardSet) -> Vec<CardId> {
        let r = obs.rules();
        let hand = sorted(r, obs.hand());
        let mut out = String::from("your hand (* playable):\n  ");
        for (i, &c) in hand.iter().enumerate() {
            let mark = if marked.contains(c) { "*" } else { " " };
            out += &format!("{:>2}) {}{mark}  ", i + 1, self.style.card(r, c));
            if i % 6 == 5 && i + 1 < hand.len() {
                out += "\n  ";
            }
        }
        sayln!("{out}");
        hand
    }

    /// Reads a card of `hand` by number or token; `Ok(None)` for "draw".
    fn ask_card(
        &mut self,
        obs: &Observation,
        hand: &[CardId],
        legal: CardSet,
        may_draw: bool,
        prompt: &str,
        why_not: &dyn Fn(CardId) -> String,
    ) -> Option<Option<CardId>> {
        let deck = &obs.rules().deck;
        loop {
            let t = match self.read(prompt) {
                Input::Quit => return None,
                Input::Line(t) => t,
            };
            match human::card_reply(&t, hand, deck, legal, may_draw) {
                CardReply::Draw => return Some(None),
                CardReply::Card(c) => return Some(Some(c)),
                CardReply::Illegal(c) => sayln!("{}", why_not(c)),
                CardReply::Refused(m) => sayln!("{m}"),
            }
        }
    }

    fn ask_yes_no(&mut self, question: &str, default: bool) -> bool {
        if self.left.is_some() {
            return default;
        }
        self.show_log();
        sayln!("{question}");
        loop {
            match self.read("yes/no") {
                Input::Quit => return default,
                Input::Line(t) => match human::yes_no(&t) {
                    Some(b) => return b,
                    None => sayln!("'{}' is not an answer: type y or n", clip(&t)),
                },
            }
        }
    }
}

impl Strategy for Human {
    fn name(&self) -> &str {
        "human"
    }

    /// With nothing playable the person draws without being asked.
    fn ask_without_choice(&self) -> bool {
        false
    }

    fn choose_play(&mut self, obs: &Observation, playable: CardSet, _: &mut Rng) -> Option<CardId> {
        if self.left.is_some() {
            return playable.first();
        }
        self.show_table(obs);
        let hand = self.show_hand(obs, playable);
        let st = obs.settings();
        let may_draw = st.may_draw_when_playable && !st.force_play;
        sayln!(
            "play a card (number or name){}, or 'quit'",
            if may_draw { ", 'd' to draw" } else { "" }
        );
        let r = obs.rules();
        let top = obs.top();
        let color = obs.color();
        let holds_color = obs.hand().iter().any(|c| r.deck.color(c) == Some(color));
        let why = |c: CardId| {
            if r.deck.wd4.contains(c) && st.wd4_last_resort && !playable.is_empty() {
                format!(
                    "{} may be played only when no other card of your hand can be: wd4_last_resort = true",
                    r.deck.token(c)
                )
            } else if r.deck.wd4.contains(c) && holds_color && !st.bluff_challenge {
                format!(
                    "{} cannot be played while you hold a {} card",
                    r.deck.token(c),
                    color.name()
                )
            } else if r.deck.color(c).is_none() && !r.deck.wd4.contains(c) {
                // Only `wild_when_matching = false` forbids these wilds.
                let face = r.deck.kind(top).face;
                let matching: Vec<String> = obs
                    .hand()
                    .iter()
                    .filter(|&h| {
                        r.deck.color(h).is_some()
                            && (r.deck.color(h) == Some(color) || r.deck.kind(h).face == face)
                    })
                    .map(|h| r.deck.token(h))
                    .collect();
                format!(
                    "{} cannot be played while you hold a matching card ({}): wild_when_matching = false",
                    r.deck.token(c),
                    matching.join(", ")
                )
            } else {
                let face = r.deck.kind(top).face;
                let or_face = if face.is_wild() {
                    String::new()
                } else {
                    // "an 8": the only face read with a vowel sound first.
                    let article = if face.token() == "8" { "an" } else { "a" };
                    format!(", {article} {}", face.token())
                };
                format!(
                    "{} cannot be played on {} (colour {}): play a {} card{or_face} or a wild",
                    r.deck.token(c),
                    r.deck.token(top),
                    color.name(),
                    color.name(),
                )
            }
        };
        let chosen = match self.ask_card(obs, &hand, playable, may_draw, "play", &why) {
            Some(c) => c,
            None => playable.first(),
        };
        self.playing = chosen.map(|c| (c, obs.round(), obs.turns()));
        chosen
    }

    fn play_drawn(&mut self, obs: &Observation, card: CardId, _: &mut Rng) -> bool {
        let q = format!(
            "you drew {}, which is playable: play it?",
            self.style.card(obs.rules(), card)
        );
        let yes = self.ask_yes_no(&q, true);
        self.playing = yes.then_some((card, obs.round(), obs.turns()));
        yes
    }

    fn choose_color(&mut self, obs: &Observation, _: &mut Rng) -> Color {
        // A wild played as the last card ends the round: no colour counts, so
        // none is asked (the engine still takes one, for the trace).
        if self.left.is_some() || obs.hand().is_empty() {
            return most_held_color(obs);
        }
        self.show_log();
        self.show_held(obs);
        let names: Vec<String> = Color::ALL.iter().map(|&c| self.style.colour(c)).collect();
        sayln!("name a colour: {} (or r, y, g, b)", names.join(", "));
        loop {
            match self.read("colour") {
                Input::Quit => return most_held_color(obs),
                Input::Line(t) => match human::color(&t) {
                    Some(c) => return c,
                    None => sayln!(
                        "'{}' is not a colour: type red, yellow, green or blue",
                        clip(&t)
                    ),
                },
            }
        }
    }

    fn call_uno(&mut self, obs: &Observation, _: &mut Rng) -> bool {
        // With `uno_catch_chance = 0` (rlcard) a missed call is never caught:
        // the call is made without a question.
        if obs.settings().uno_catch_chance == 0.0 {
            return true;
        }
        self.ask_yes_no("one card left: call UNO?", true)
    }

    fn choose_target(&mut self, obs: &Observation, _: &mut Rng) -> u8 {
        if self.left.is_some() {
            return fewest_cards_opponent(obs);
        }
        self.show_log();
        self.show_held(obs);
        let others: Vec<u8> = (1..obs.players() as u8)
            .map(|k| obs.seat_after(k))
            .collect();
        let list: Vec<String> = others
            .iter()
            .map(|&s| {
                let n = obs.hand_size(s as usize);
                format!("{s} ({n} card{})", if n == 1 { "" } else { "s" })
            })
            .collect();
        sayln!("swap hands with which seat? {}", list.join(", "));
        loop {
            match self.read("seat") {
                Input::Quit => return fewest_cards_opponent(obs),
                Input::Line(t) => match human::seat(&t, &others) {
                    Some(s) => return s,
                    None => {
                        sayln!(
                            "'{}' is not another player's seat: type one of the numbers listed",
                            clip(&t)
                        )
                    }
                },
            }
        }
    }

    fn answer_stack(&mut self, obs: &Observation, answers: CardSet, _: &mut Rng) -> Option<CardId> {
        if self.left.is_some() {
            return None;
        }
        self.show_table(obs);
        let hand = self.show_hand(obs, answers);
        sayln!(
            "{} cards are coming at you: answer with a marked card, or 'd' to draw them",
            obs.pending_draw()
        );
        let why = |c: CardId| format!("{} cannot answer this draw", obs.rules().deck.token(c));
        let chosen = self
            .ask_card(obs, &hand, answers, true, "stack", &why)
            .flatten();
        self.playing = chosen.map(|c| (c, obs.round(), obs.turns()));
        chosen
    }

    fn challenge(&mut self, obs: &Observation, _: &mut Rng) -> bool {
        self.playing = None;
        if self.left.is_none() {
            self.show_log();
            self.show_held(obs);
        }
        // Under stacking, not challenging leaves the total to answer or draw.
        let otherwise = if obs.settings().stacking == unolab::engine::rules::Stacking::Off {
            format!("{} cards to draw", obs.pending_draw())
        } else {
            format!("{} cards to answer or draw", obs.pending_draw())
        };
        let q = format!(
            "a wild-draw4 was played on you ({otherwise} if you do not challenge, {} if you challenge and lose): challenge it?",
            obs.pending_draw() + 2
        );
        self.ask_yes_no(&q, false)
    }

    fn jump_in(&mut self, obs: &Observation, card: CardId, _: &mut Rng) -> bool {
        if self.left.is_none() {
            // The hand may have changed since the last screen (a swap, a
            // rotation).
            self.show_log();
            self.playing = None;
            self.show_held(obs);
        }
        let q = format!(
            "you hold {}, identical to the top card: jump in with it?",
            self.style.card(obs.rules(), card)
        );
        let yes = self.ask_yes_no(&q, false);
        self.playing = yes.then_some((card, obs.round(), obs.turns()));
        yes
    }

    fn fault(&mut self) -> Option<String> {
        self.left.clone()
    }
}
