//! `unolab play`: a person takes a seat at the table in the terminal.
//!
//! The person is a [`Strategy`] that reads answers from standard input; a
//! [`Recorder`] turns the engine's events into the lines "since your last
//! turn" (others' drawn cards are shown as a count only) and prints the scores
//! at the end of each round. `--trace FILE` records the match in the trace
//! format; the file is written only when the match is over.

#[macro_use]
mod screen;
mod watch;

use screen::{on_interrupt, say, LOST};

use super::args::{load_rules, parse_players, parse_seed, RuleArgs};
use super::scaffold::{prepare_out_file, remove_created};
use super::term::Fail;
use std::io::{BufRead, IsTerminal};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use unolab::agents::human::{self, CardReply, Typed};
use unolab::agents::{self as strategy, Seat};
use unolab::engine::game::{game_rngs, Agents, DrawReason, Event, Game, Recorder};
use unolab::engine::strategy::{fewest_cards_opponent, most_held_color};
use unolab::engine::trace::{match_end_line, match_line, TraceWriter};
use unolab::report::Cell;
use unolab::{CardId, CardSet, Color, Observation, Rng, Rules, Strategy};

#[derive(clap::Args)]
pub struct PlayArgs {
    #[command(flatten)]
    rules: RuleArgs,
    /// Number of players, 2 to 10 (you and the others)
    #[arg(short, long, default_value = "2", value_parser = parse_players, allow_hyphen_values = true)]
    players: usize,
    /// The others' strategies, comma separated (cycled to fill their seats)
    #[arg(short, long, default_value = "points")]
    strategies: String,
    /// Your seat (0 = the first seat)
    #[arg(long, default_value = "0", value_parser = parse_seat, allow_hyphen_values = true)]
    seat: usize,
    /// Seed of the shuffles and the others' choices (default: from the clock)
    #[arg(long, value_parser = parse_seed, allow_hyphen_values = true)]
    seed: Option<u64>,
    /// Write the match in the trace format (docs/trace.md) to FILE when it
    /// ends (missing folders are created)
    #[arg(long, value_name = "FILE")]
    trace: Option<PathBuf>,
    /// Replace an existing --trace file (refused without it)
    #[arg(long)]
    force: bool,
}

/// How cards and names are printed.
#[derive(Clone)]
struct Style {
    color: bool,
    names: Vec<String>,
    me: u8,
}

impl Style {
    fn card(&self, rules: &Rules, c: CardId) -> String {
        let t = rules.deck.token(c);
        if !self.color {
            return t;
        }
        let code = match rules.deck.color(c) {
            Some(Color::Red) => "31",
            Some(Color::Yellow) => "33",
            Some(Color::Green) => "32",
            Some(Color::Blue) => "34",
            None => "1;35",
        };
        format!("\x1b[{code}m{t}\x1b[0m")
    }

    fn colour(&self, c: Color) -> String {
        if !self.color {
            return c.name().to_string();
        }
        let code = ["31", "33", "32", "34"][c.index()];
        format!("\x1b[{code}m{}\x1b[0m", c.name())
    }

    fn who(&self, seat: u8) -> String {
        if seat == self.me {
            "you".to_string()
        } else {
            format!("seat {seat} ({})", self.names[seat as usize])
        }
    }
}

/// The hand sorted by colour (red, yellow, green, blue, wilds), then face.
fn sorted(rules: &Rules, hand: CardSet) -> Vec<CardId> {
    let mut v: Vec<CardId> = hand.iter().collect();
    v.sort_by_key(|&c| {
        let k = rules.deck.kind(c);
        (k.color.map_or(4, |c| c.index()), k.face.index(), c)
    });
    v
}

/// Lines waiting to be shown at the person's next decision.
type Log = Arc<Mutex<Vec<String>>>;

fn take(log: &Log) -> Vec<String> {
    std::mem::take(&mut *log.lock().unwrap_or_else(|p| p.into_inner()))
}

/// The events as the person sees them, and the trace.
struct Table {
    style: Style,
    log: Log,
    /// The person left: print nothing more.
    gone: Arc<AtomicBool>,
    trace: Option<TraceWriter<Vec<u8>>>,
    drawn: Vec<CardId>,
}

impl Recorder for Table {
    fn on(&mut self, g: &Game, e: Event<'_>) {
        if let Some(t) = &mut self.trace {
            t.on(g, e);
        }
        let r = g.rules();
        let s = &self.style;
        let line = match e {
            Event::Deal { round, dealer } => format!(
                "round {round}: {} dealt {} cards each",
                s.who(dealer),
                g.rules().settings.hand_size
            ),
            Event::Flip { card, returned } => {
                if returned {
                    format!("{} was turned and went back into the pile", s.card(r, card))
                } else {
                    format!("start card: {}", s.card(r, card))
                }
            }
            Event::Color { player, color } => {
                format!("{} named {}", s.who(player), s.colour(color))
            }
            Event::Play {
                player,
                card,
                color,
                uno,
                jump_in,
                target,
            } => {
                let mut l = format!("{} played {}", s.who(player), s.card(r, card));
                if r.deck.color(card).is_none() {
                    l += &format!(" and named {}", s.colour(color));
                }
                if jump_in {
                    l += " (jump-in)";
                }
                if let Some(t) = target {
                    l += &format!(", swapping hands with {}", s.who(t));
                }
                if uno {
                    l += ": UNO!";
                }
                l
            }
            Event::Draw { card, .. } => {
                self.drawn.push(card);
                return;
            }
            Event::DrawEnd { player, reason } => {
                let cards = std::mem::take(&mut self.drawn);
                if cards.is_empty() {
                    return;
                }
                let why = match reason {
                    DrawReason::Turn | DrawReason::Match => String::new(),
                    r => format!(" ({})", r.name().replace('_', " ")),
                };
                if player == s.me {
                    let list: Vec<String> = cards.iter().map(|&c| s.card(r, c)).collect();
                    format!("you drew {}{why}", list.join(", "))
                } else {
                    let n = cards.len();
                    let plural = if n == 1 { "" } else { "s" };
                    format!("{} drew {n} card{plural}{why}", s.who(player))
                }
            }
            Event::Pass { player } => format!("{} passed", s.who(player)),
            Event::Skip { player } => format!("{} lost a turn", s.who(player)),
            Event::UnoCaught { player } => {
                format!("{} did not call UNO and was caught", s.who(player))
            }
            Event::Challenge {
                challenger,
                target,
                guilty,
            } => format!(
                "{} challenged {}: {}",
                s.who(challenger),
                s.who(target),
                if guilty { "guilty" } else { "not guilty" }
            ),
            Event::Swap { a, b } => format!("{} and {} swapped hands", s.who(a), s.who(b)),
            Event::Rotate { .. } => "every hand passed to the next player".to_string(),
            Event::Reshuffle => "the discard pile was shuffled into a new draw pile".to_string(),
            Event::Illegal { player, .. } => format!("{} made an illegal move", s.who(player)),
            Event::RoundEnd { result, totals } => {
                if self.gone.load(Ordering::Relaxed) {
                    return;
                }
                let mut out = String::new();
                for l in take(&self.log) {
                    out += &format!("  {l}\n");
                }
                let winner = match result.winner {
                    Some(w) if w == s.me => "you won the round".to_string(),
                    Some(w) => format!("{} won the round", s.who(w)),
                    None => format!("the round ended {}", result.outcome.name()),
                };
                out += &format!("\n== Round {} over: {winner}\n", result.round);
                for (p, total) in totals.iter().enumerate() {
                    out += &format!(
                        "   {:<24} {:>4} points this round, total {total}\n",
                        Cell(&s.who(p as u8)),
                        result.points[p],
                    );
                }
                sayln!("{out}");
                return;
            }
        };
        self.log
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(line);
    }
}

/// The person at the table.
struct Human {
    style: Style,
    log: Log,
    gone: Arc<AtomicBool>,
    left: Option<String>,
    /// The first fault of another seat: the game ends at the next prompt.
    broken: watch::Broken,
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
            s.colour(obs.color()),
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
        for p in 0..obs.players() {
            let n = obs.hand_size(p);
            out += &format!(
                "   {:<24} {n:>2} {:<5}  {:>4} points\n",
                Cell(&s.who(p as u8)),
                if n == 1 { "card" } else { "cards" },
                obs.totals()[p]
            );
        }
        say_!("{out}");
    }

    /// Shows the hand, in order, where a question other than a card's is
    /// asked (the colour of a wild, a challenge, a swap).
    fn show_held(&self, obs: &Observation) {
        let r = obs.rules();
        let cards: Vec<String> = sorted(r, obs.hand())
            .into_iter()
            .map(|c| self.style.card(r, c))
            .collect();
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
                    None => sayln!("'{t}' is not an answer: type y or n"),
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
        match self.ask_card(obs, &hand, playable, may_draw, "play", &why) {
            Some(c) => c,
            None => playable.first(),
        }
    }

    fn play_drawn(&mut self, obs: &Observation, card: CardId, _: &mut Rng) -> bool {
        let q = format!(
            "you drew {}, which is playable: play it?",
            self.style.card(obs.rules(), card)
        );
        self.ask_yes_no(&q, true)
    }

    fn choose_color(&mut self, obs: &Observation, _: &mut Rng) -> Color {
        if self.left.is_some() {
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
                    None => sayln!("'{t}' is not a colour: type red, yellow, green or blue"),
                },
            }
        }
    }

    fn call_uno(&mut self, _: &Observation, _: &mut Rng) -> bool {
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
            .map(|&s| format!("{s} ({} cards)", obs.hand_size(s as usize)))
            .collect();
        sayln!("swap hands with which seat? {}", list.join(", "));
        loop {
            match self.read("seat") {
                Input::Quit => return fewest_cards_opponent(obs),
                Input::Line(t) => match human::seat(&t, &others) {
                    Some(s) => return s,
                    None => {
                        sayln!("'{t}' is not another player's seat: type one of the numbers listed")
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
        self.ask_card(obs, &hand, answers, true, "stack", &why)
            .flatten()
    }

    fn challenge(&mut self, obs: &Observation, _: &mut Rng) -> bool {
        if self.left.is_none() {
            self.show_log();
            self.show_held(obs);
        }
        let q = format!(
            "a wild-draw4 was played on you ({} cards to draw if you do not challenge, {} if you challenge and lose): challenge it?",
            obs.pending_draw(),
            obs.pending_draw() + 2
        );
        self.ask_yes_no(&q, false)
    }

    fn jump_in(&mut self, obs: &Observation, card: CardId, _: &mut Rng) -> bool {
        let q = format!(
            "you hold {}, identical to the top card: jump in with it?",
            self.style.card(obs.rules(), card)
        );
        self.ask_yes_no(&q, false)
    }

    fn fault(&mut self) -> Option<String> {
        self.left.clone()
    }
}

/// `--seat`: a seat number from 0 (the table's size is checked with the
/// player count).
fn parse_seat(s: &str) -> Result<usize, String> {
    s.parse::<usize>()
        .map_err(|_| format!("'{s}' is not a valid seat (valid: 0 to 9, 0 = the first seat)"))
}

pub fn exec(a: PlayArgs) -> Result<ExitCode, Fail> {
    let rules = load_rules(&a.rules)?;
    rules.check_players(a.players)?;
    if a.seat >= a.players {
        return Err(Fail(format!(
            "--seat {} is not a seat of a {}-player table (valid: 0 to {})",
            a.seat,
            a.players,
            a.players - 1
        )));
    }
    let st = &rules.settings;
    if st.target == 0 && st.rounds == 0 && !st.quick {
        return Err(Fail(
            "a match needs an end: set target > 0, rounds > 0 or quick = true".into(),
        ));
    }
    let others = strategy::parse_list(&a.strategies)?;
    if others.len() > a.players - 1 {
        return Err(Fail(format!(
            "{} strategies for the {} other {} (give at most one per seat; the list is cycled)",
            others.len(),
            a.players - 1,
            if a.players == 2 { "seat" } else { "seats" }
        )));
    }
    // An earlier trace is not replaced without --force; its folder is made
    // (with its parents) and checked writable before the match.
    let created = match &a.trace {
        Some(path) => prepare_out_file(path, "--trace", a.force)?,
        None => Vec::new(),
    };
    on_interrupt(created.clone(), a.trace.is_some());
    let seed = a.seed.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(1)
    });
    let me = a.seat as u8;
    let mut names = Vec::new();
    let mut k = 0;
    for s in 0..a.players {
        if s == a.seat {
            names.push("human".to_string());
        } else {
            names.push(others[k % others.len()].name().to_string());
            k += 1;
        }
    }
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    let style = Style {
        color: std::io::stdout().is_terminal() && !no_color,
        names: names.clone(),
        me,
    };
    let log: Log = Arc::new(Mutex::new(Vec::new()));
    let gone = Arc::new(AtomicBool::new(false));
    let broken: watch::Broken = Arc::new(Mutex::new(None));
    let mut seats: Vec<Seat> = Vec::new();
    k = 0;
    for s in 0..a.players {
        if s == a.seat {
            seats.push(Seat::custom(Human {
                style: style.clone(),
                log: log.clone(),
                gone: gone.clone(),
                left: None,
                broken: broken.clone(),
            }));
        } else {
            // Watched: a broken program ends the game at the person's next
            // prompt, not after a round played against its defaults.
            seats.push(watch::watched(
                others[k % others.len()].instantiate(),
                s as u8,
                broken.clone(),
            ));
            k += 1;
        }
    }
    let mut table = Table {
        style: style.clone(),
        log,
        gone,
        trace: a.trace.as_ref().map(|_| TraceWriter::new(Vec::new())),
        drawn: Vec::new(),
    };
    if let Some(t) = &mut table.trace {
        t.line(&match_line(&rules, a.players, &names, seed));
    }
    sayln!(
        "unolab play: rules {}, {} players, you are seat {}, seed {seed}",
        rules.name,
        a.players,
        a.seat
    );
    let (table_rng, agent_rng) = game_rngs(seed, 0);
    let mut game = Game::with_rng(&rules, a.players, table_rng);
    let mut agents = Agents {
        seats: &mut seats,
        rng: agent_rng,
    };
    let result = match game.play_match(&mut agents, &mut table, |_| {}) {
        Ok(r) => r,
        Err(e) if e.fault && e.seat == me => {
            remove_created(&created);
            if let Some(lost) = LOST.get() {
                return Err(Fail(lost.clone()));
            }
            let failed = broken.lock().map(|b| b.clone()).unwrap_or_default();
            if let Some(why) = failed {
                return Err(Fail(why));
            }
            sayln!(
                "\nYou left the table in round {}{}.",
                e.round,
                if a.trace.is_some() {
                    "; no trace was written"
                } else {
                    ""
                }
            );
            return Ok(ExitCode::SUCCESS);
        }
        Err(e) => {
            remove_created(&created);
            return Err(Fail(e.to_string()));
        }
    };
    let mut out = String::from("== Match over: ");
    out += &match result.winner {
        Some(w) if w == me => "you won the match".to_string(),
        Some(w) => format!("{} won the match", style.who(w)),
        None => "a tie".to_string(),
    };
    out += &format!(" after {} round(s)\n", result.rounds);
    for p in 0..a.players {
        out += &format!(
            "   {:<24} {:>4} points\n",
            Cell(&style.who(p as u8)),
            result.totals[p]
        );
    }
    say_!("{out}");
    if let (Some(path), Some(mut t)) = (a.trace, table.trace.take()) {
        t.line(&match_end_line(&result, a.players));
        let buf = t
            .finish()
            .map_err(|e| Fail(format!("cannot write the trace: {e}")))?;
        let dir = path
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .map(|d| d.to_path_buf())
            .unwrap_or_else(|| PathBuf::from("."));
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        unolab::report::write_files_atomically(
            &dir,
            &[(name.as_str(), String::from_utf8_lossy(&buf).into_owned())],
        )?;
        sayln!("trace written to {}", path.display());
    }
    match LOST.get() {
        Some(lost) => Err(Fail(lost.clone())),
        None => Ok(ExitCode::SUCCESS),
    }
}
