//! Helpers for scripted-deal tests: rule sets, deck orders built from per-seat
//! hands, a strategy that follows a script (and fails loudly on any question it
//! was not told to expect) and a recorder that turns engine events into owned
//! values and one-line strings.
//!
//! Log lines (see [`Ev`]'s `Display`):
//! `flip red-5`, `flip wild-draw4 returned`, `color 0 blue`,
//! `play 0 red-7`, `play 0 wild =blue uno`, `play 2 red-5 jump`, `play 0 wild-swap =red ->2`,
//! `draw 1 draw2: red-1 red-2`, `pass 1`, `skip 1`, `uno_caught 0`,
//! `challenge 1->0 guilty`, `swap 0 2`, `rotate +1`, `reshuffle: red-1 red-4`
//! (sorted), `illegal 0 play blue-9`. A draw of no card (both piles empty) is
//! not logged; the deal is kept in [`Run::events`] but left out of the log.

#![allow(dead_code)]

use rand::SeedableRng;
use std::collections::VecDeque;
use std::fmt;
use std::sync::{Arc, Mutex};
use unolab::agents::Seat;
use unolab::engine::game::{DrawReason, Event, IllegalAction, IllegalActionError, Recorder};
use unolab::engine::strategy::{fewest_cards_opponent, most_held_color};
use unolab::{
    Agents, CardId, CardSet, Color, Game, Kind, MatchResult, Observation, Outcome, RoundResult,
    RuleSetFile, Rules, Strategy,
};

// ----- rule sets ---------------------------------------------------------------

/// A built-in rule set with `key=value` settings applied.
pub fn rules(name: &str, sets: &[&str]) -> Rules {
    let mut f = RuleSetFile::load(name).unwrap();
    for s in sets {
        f.apply_set(s)
            .unwrap_or_else(|e| panic!("setting {s}: {e}"));
    }
    Rules::build(f).unwrap()
}

/// A rule set with a custom deck (`[[deck]]` tables in TOML) and settings.
pub fn custom_rules(deck_toml: &str, sets: &[&str]) -> Rules {
    let text = format!("name = \"tiny\"\n{deck_toml}");
    let mut f = RuleSetFile::parse(&text, "test deck").unwrap();
    for s in sets {
        f.apply_set(s)
            .unwrap_or_else(|e| panic!("setting {s}: {e}"));
    }
    Rules::build(f).unwrap()
}

pub fn kind(tok: &str) -> Kind {
    tok.parse::<Kind>()
        .unwrap_or_else(|e| panic!("bad token {tok}: {e}"))
}

pub fn color(name: &str) -> Color {
    name.parse::<Color>().unwrap()
}

pub fn tokens(rules: &Rules, set: CardSet) -> Vec<String> {
    let mut v: Vec<String> = set.iter().map(|c| rules.deck.token(c)).collect();
    v.sort();
    v
}

pub fn sorted(v: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = v.iter().map(|s| s.to_string()).collect();
    v.sort();
    v
}

// ----- scripted deck -------------------------------------------------------------

/// Picks distinct physical copies for tokens.
pub struct Picker<'r> {
    rules: &'r Rules,
    used: CardSet,
}

impl<'r> Picker<'r> {
    pub fn new(rules: &'r Rules) -> Self {
        Picker {
            rules,
            used: CardSet::EMPTY,
        }
    }
    pub fn pick(&mut self, tok: &str) -> CardId {
        let all = self.rules.deck.all_of(kind(tok));
        let c = (all - self.used).first().unwrap_or_else(|| {
            panic!(
                "the '{}' deck has no unused copy of {tok} left ({} copies)",
                self.rules.name,
                all.len()
            )
        });
        self.used.insert(c);
        c
    }
}

/// The deck order (top first) that deals `hands[seat]` to each seat, one card at
/// a time from the seat left of `dealer`, then flips the `start` cards in order,
/// then leaves `pile` as the draw pile (in draw order). Each hand must hold
/// exactly `hand_size` tokens.
pub fn deck_order(
    rules: &Rules,
    dealer: u8,
    hands: &[&[&str]],
    start: &[&str],
    pile: &[&str],
) -> Vec<CardId> {
    let n = hands.len();
    let hs = rules.settings.hand_size as usize;
    for (i, h) in hands.iter().enumerate() {
        assert_eq!(
            h.len(),
            hs,
            "scripted hand of seat {i} must hold hand_size = {hs} cards"
        );
    }
    let mut p = Picker::new(rules);
    let mut order = Vec::new();
    // Round r gives each seat its r-th card, from the seat left of the dealer.
    let deal = (0..hs).flat_map(|r| (1..=n).map(move |k| (r, (dealer as usize + k) % n)));
    for (r, seat) in deal {
        order.push(p.pick(hands[seat][r]));
    }
    for t in start.iter().chain(pile) {
        order.push(p.pick(t));
    }
    order
}

// ----- the scripted strategy ---------------------------------------------------

/// One answer to "what do you play?".
#[derive(Clone, Debug, PartialEq)]
pub enum Act {
    Play(String),
    Draw,
}

/// The questions a strategy is asked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Q {
    Play,
    PlayDrawn,
    Color,
    Uno,
    Target,
    Answer,
    Challenge,
    JumpIn,
}

/// A question asked of a seat, with what was offered (playable cards, the drawn
/// card, the possible stack answers, the jump-in card).
#[derive(Clone, Debug, PartialEq)]
pub struct Question {
    pub seat: u8,
    pub q: Q,
    pub options: Vec<String>,
}

/// What one seat will answer, question by question (one queue per kind of
/// question). A question whose queue is empty fails the test, unless
/// `fallback` is set (then the seat plays like the built-in `first`).
#[derive(Clone, Debug, Default)]
pub struct Script {
    pub name: Option<String>,
    plays: VecDeque<Act>,
    drawn: VecDeque<bool>,
    colors: VecDeque<Color>,
    uno: VecDeque<bool>,
    targets: VecDeque<u8>,
    answers: VecDeque<Option<String>>,
    challenges: VecDeque<bool>,
    jumps: VecDeque<bool>,
    fallback: bool,
}

/// An empty script: this seat is never expected to be asked anything.
pub fn seat() -> Script {
    Script::default()
}

impl Script {
    /// Play this card (a token; the copy held is used, else a copy not held).
    pub fn play(mut self, tok: &str) -> Self {
        kind(tok);
        self.plays.push_back(Act::Play(tok.to_string()));
        self
    }
    /// Play this card and call UNO (the play leaves one card).
    pub fn play_uno(self, tok: &str) -> Self {
        self.play(tok).uno(true)
    }
    /// Play a wild naming a colour.
    pub fn wild(self, tok: &str, col: &str) -> Self {
        self.play(tok).color(col)
    }
    /// Draw instead of playing.
    pub fn draw(mut self) -> Self {
        self.plays.push_back(Act::Draw);
        self
    }
    /// Answer to "play the card just drawn?".
    pub fn play_drawn(mut self, yes: bool) -> Self {
        self.drawn.push_back(yes);
        self
    }
    pub fn color(mut self, col: &str) -> Self {
        self.colors.push_back(color(col));
        self
    }
    pub fn uno(mut self, call: bool) -> Self {
        self.uno.push_back(call);
        self
    }
    pub fn target(mut self, seat: u8) -> Self {
        self.targets.push_back(seat);
        self
    }
    /// Answer a pending draw with this card.
    pub fn answer(mut self, tok: &str) -> Self {
        kind(tok);
        self.answers.push_back(Some(tok.to_string()));
        self
    }
    /// Decline to answer a pending draw (draw it).
    pub fn no_answer(mut self) -> Self {
        self.answers.push_back(None);
        self
    }
    pub fn challenge(mut self, yes: bool) -> Self {
        self.challenges.push_back(yes);
        self
    }
    pub fn jump(mut self, yes: bool) -> Self {
        self.jumps.push_back(yes);
        self
    }
    /// After the script runs out, play like the built-in `first` strategy.
    pub fn then_first(mut self) -> Self {
        self.fallback = true;
        self
    }
    pub fn named(mut self, name: &str) -> Self {
        self.name = Some(name.to_string());
        self
    }

    fn leftovers(&self) -> Vec<String> {
        let mut v = Vec::new();
        if !self.plays.is_empty() {
            v.push(format!("plays {:?}", self.plays));
        }
        if !self.drawn.is_empty() {
            v.push(format!("play_drawn {:?}", self.drawn));
        }
        if !self.uno.is_empty() {
            v.push(format!("uno {:?}", self.uno));
        }
        if !self.targets.is_empty() {
            v.push(format!("targets {:?}", self.targets));
        }
        if !self.answers.is_empty() {
            v.push(format!("answers {:?}", self.answers));
        }
        if !self.challenges.is_empty() {
            v.push(format!("challenges {:?}", self.challenges));
        }
        if !self.jumps.is_empty() {
            v.push(format!("jump-ins {:?}", self.jumps));
        }
        v
    }
}

struct Shared {
    scripts: Vec<Script>,
    questions: Vec<Question>,
}

struct Scripted {
    seat: u8,
    name: String,
    shared: Arc<Mutex<Shared>>,
}

fn unexpected(seat: u8, what: &str, obs: &Observation, extra: String) -> ! {
    let d = &obs.rules().deck;
    panic!(
        "seat {seat} was asked an unexpected question: {what} {extra} (hand {:?}, top {}, colour {}, pending {})",
        tokens(obs.rules(), obs.hand()),
        d.token(obs.top()),
        obs.color(),
        obs.pending_draw()
    )
}

impl Scripted {
    fn ask(&self, q: Q, options: Vec<String>) {
        self.shared.lock().unwrap().questions.push(Question {
            seat: self.seat,
            q,
            options,
        });
    }
    fn with<T>(&self, f: impl FnOnce(&mut Script) -> T) -> T {
        let mut g = self.shared.lock().unwrap();
        f(&mut g.scripts[self.seat as usize])
    }
    fn fallback(&self) -> bool {
        self.with(|s| s.fallback)
    }
}

/// A copy of the card of kind `tok`: one in `prefer` if any, else one in the
/// hand, else any copy (so that a script can play a card it does not hold).
fn card_for(obs: &Observation, tok: &str, prefer: CardSet) -> CardId {
    let all = obs.rules().deck.all_of(kind(tok));
    (all & prefer)
        .first()
        .or((all & obs.hand()).first())
        .or(all.first())
        .unwrap_or_else(|| panic!("the deck has no {tok}"))
}

impl Strategy for Scripted {
    fn name(&self) -> &str {
        &self.name
    }

    fn choose_play(
        &mut self,
        obs: &Observation,
        playable: CardSet,
        _: &mut unolab::Rng,
    ) -> Option<CardId> {
        self.ask(Q::Play, tokens(obs.rules(), playable));
        match self.with(|s| s.plays.pop_front()) {
            Some(Act::Play(t)) => Some(card_for(obs, &t, playable)),
            Some(Act::Draw) => None,
            None if self.fallback() => playable.first(),
            None => unexpected(
                self.seat,
                "choose_play",
                obs,
                format!("(playable {:?})", tokens(obs.rules(), playable)),
            ),
        }
    }

    fn play_drawn(&mut self, obs: &Observation, card: CardId, _: &mut unolab::Rng) -> bool {
        let tok = obs.rules().deck.token(card);
        self.ask(Q::PlayDrawn, vec![tok.clone()]);
        match self.with(|s| s.drawn.pop_front()) {
            Some(b) => b,
            None if self.fallback() => true,
            None => unexpected(self.seat, "play_drawn", obs, format!("(drawn {tok})")),
        }
    }

    fn choose_color(&mut self, obs: &Observation, _: &mut unolab::Rng) -> Color {
        self.ask(Q::Color, vec![]);
        match self.with(|s| s.colors.pop_front()) {
            Some(c) => c,
            None if self.fallback() => most_held_color(obs),
            None => unexpected(self.seat, "choose_color", obs, String::new()),
        }
    }

    fn call_uno(&mut self, obs: &Observation, _: &mut unolab::Rng) -> bool {
        self.ask(Q::Uno, vec![]);
        match self.with(|s| s.uno.pop_front()) {
            Some(b) => b,
            None if self.fallback() => true,
            None => unexpected(self.seat, "call_uno", obs, String::new()),
        }
    }

    fn choose_target(&mut self, obs: &Observation, _: &mut unolab::Rng) -> u8 {
        self.ask(Q::Target, vec![]);
        match self.with(|s| s.targets.pop_front()) {
            Some(t) => t,
            None if self.fallback() => fewest_cards_opponent(obs),
            None => unexpected(self.seat, "choose_target", obs, String::new()),
        }
    }

    fn answer_stack(
        &mut self,
        obs: &Observation,
        answers: CardSet,
        _: &mut unolab::Rng,
    ) -> Option<CardId> {
        self.ask(Q::Answer, tokens(obs.rules(), answers));
        match self.with(|s| s.answers.pop_front()) {
            Some(Some(t)) => Some(card_for(obs, &t, answers)),
            Some(None) => None,
            None if self.fallback() => answers.first(),
            None => unexpected(
                self.seat,
                "answer_stack",
                obs,
                format!("(answers {:?})", tokens(obs.rules(), answers)),
            ),
        }
    }

    fn challenge(&mut self, obs: &Observation, _: &mut unolab::Rng) -> bool {
        self.ask(Q::Challenge, vec![]);
        match self.with(|s| s.challenges.pop_front()) {
            Some(b) => b,
            None if self.fallback() => false,
            None => unexpected(self.seat, "challenge", obs, String::new()),
        }
    }

    fn jump_in(&mut self, obs: &Observation, card: CardId, _: &mut unolab::Rng) -> bool {
        let tok = obs.rules().deck.token(card);
        self.ask(Q::JumpIn, vec![tok.clone()]);
        match self.with(|s| s.jumps.pop_front()) {
            Some(b) => b,
            None if self.fallback() => false,
            None => unexpected(self.seat, "jump_in", obs, format!("(card {tok})")),
        }
    }
}

// ----- the recorder --------------------------------------------------------------

/// An owned copy of an engine event (draws of several cards are one `Draw`).
#[derive(Clone, Debug, PartialEq)]
pub enum Ev {
    Deal {
        round: u32,
        dealer: u8,
        hands: Vec<Vec<String>>,
        pile: Vec<String>,
    },
    Flip {
        card: String,
        returned: bool,
        /// The draw pile right after the flip, top first.
        pile: Vec<String>,
    },
    Color {
        player: u8,
        color: Color,
    },
    Play {
        player: u8,
        card: String,
        wild: bool,
        color: Color,
        uno: bool,
        jump_in: bool,
        target: Option<u8>,
    },
    Draw {
        player: u8,
        cards: Vec<String>,
        reason: DrawReason,
    },
    Pass(u8),
    Skip(u8),
    UnoCaught(u8),
    Challenge {
        challenger: u8,
        target: u8,
        guilty: bool,
    },
    Swap(u8, u8),
    Rotate(i8),
    Reshuffle {
        /// The new draw pile, top first.
        pile: Vec<String>,
    },
    Illegal {
        player: u8,
        action: String,
    },
    RoundEnd {
        round: u32,
        outcome: Outcome,
        winner: Option<u8>,
        dealer: u8,
        points: Vec<u32>,
        totals: Vec<i64>,
        turns: u32,
    },
}

impl fmt::Display for Ev {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Ev::Deal { round, dealer, .. } => write!(f, "deal {round} dealer {dealer}"),
            Ev::Flip { card, returned, .. } => {
                write!(f, "flip {card}{}", if *returned { " returned" } else { "" })
            }
            Ev::Color { player, color } => write!(f, "color {player} {color}"),
            Ev::Play {
                player,
                card,
                wild,
                color,
                uno,
                jump_in,
                target,
            } => {
                write!(f, "play {player} {card}")?;
                if *wild {
                    write!(f, " ={color}")?;
                }
                if *uno {
                    write!(f, " uno")?;
                }
                if *jump_in {
                    write!(f, " jump")?;
                }
                if let Some(t) = target {
                    write!(f, " ->{t}")?;
                }
                Ok(())
            }
            Ev::Draw {
                player,
                cards,
                reason,
            } => write!(f, "draw {player} {}: {}", reason.name(), cards.join(" ")),
            Ev::Pass(p) => write!(f, "pass {p}"),
            Ev::Skip(p) => write!(f, "skip {p}"),
            Ev::UnoCaught(p) => write!(f, "uno_caught {p}"),
            Ev::Challenge {
                challenger,
                target,
                guilty,
            } => write!(
                f,
                "challenge {challenger}->{target} {}",
                if *guilty { "guilty" } else { "innocent" }
            ),
            Ev::Swap(a, b) => write!(f, "swap {a} {b}"),
            Ev::Rotate(d) => write!(f, "rotate {d:+}"),
            Ev::Reshuffle { pile } => {
                let mut s = pile.clone();
                s.sort();
                write!(f, "reshuffle: {}", s.join(" "))
            }
            Ev::Illegal { player, action } => write!(f, "illegal {player} {action}"),
            Ev::RoundEnd {
                round,
                outcome,
                winner,
                ..
            } => write!(f, "round_end {round} {} {winner:?}", outcome.name()),
        }
    }
}

/// Collects events as [`Ev`] values.
#[derive(Default)]
pub struct Rec {
    pub events: Vec<Ev>,
    pending: Option<(u8, DrawReason, Vec<String>)>,
}

impl Rec {
    fn flush(&mut self) {
        if let Some((player, reason, cards)) = self.pending.take() {
            if !cards.is_empty() {
                self.events.push(Ev::Draw {
                    player,
                    cards,
                    reason,
                });
            }
        }
    }
}

fn pile_tokens(game: &Game) -> Vec<String> {
    let d = &game.rules().deck;
    game.draw_pile().map(|c| d.token(c)).collect()
}

impl Recorder for Rec {
    fn on(&mut self, game: &Game, event: Event<'_>) {
        let d = &game.rules().deck;
        match event {
            Event::Draw {
                player,
                card,
                reason,
            } => {
                match &mut self.pending {
                    Some((p, r, cards)) if *p == player && *r == reason => {
                        cards.push(d.token(card))
                    }
                    _ => {
                        self.flush();
                        self.pending = Some((player, reason, vec![d.token(card)]));
                    }
                }
                return;
            }
            Event::DrawEnd { .. } => {
                self.flush();
                return;
            }
            _ => self.flush(),
        }
        let ev = match event {
            Event::Deal { round, dealer } => Ev::Deal {
                round,
                dealer,
                hands: game
                    .hands()
                    .iter()
                    .map(|h| tokens(game.rules(), *h))
                    .collect(),
                pile: pile_tokens(game),
            },
            Event::Flip { card, returned } => Ev::Flip {
                card: d.token(card),
                returned,
                pile: pile_tokens(game),
            },
            Event::Color { player, color } => Ev::Color { player, color },
            Event::Play {
                player,
                card,
                color,
                uno,
                jump_in,
                target,
            } => Ev::Play {
                player,
                card: d.token(card),
                wild: d.color(card).is_none(),
                color,
                uno,
                jump_in,
                target,
            },
            Event::Pass { player } => Ev::Pass(player),
            Event::Skip { player } => Ev::Skip(player),
            Event::UnoCaught { player } => Ev::UnoCaught(player),
            Event::Challenge {
                challenger,
                target,
                guilty,
            } => Ev::Challenge {
                challenger,
                target,
                guilty,
            },
            Event::Swap { a, b } => Ev::Swap(a, b),
            Event::Rotate { direction } => Ev::Rotate(direction),
            Event::Reshuffle => Ev::Reshuffle {
                pile: pile_tokens(game),
            },
            Event::Illegal { player, action } => Ev::Illegal {
                player,
                action: match action {
                    IllegalAction::Play(c) => format!("play {}", d.token(c)),
                    IllegalAction::Draw => "draw".to_string(),
                    IllegalAction::Answer(c) => format!("answer {}", d.token(c)),
                    IllegalAction::Target(t) => format!("target {t}"),
                },
            },
            Event::RoundEnd { result, totals } => Ev::RoundEnd {
                round: result.round,
                outcome: result.outcome,
                winner: result.winner,
                dealer: result.dealer,
                points: result.points[..game.players()].to_vec(),
                totals: totals.to_vec(),
                turns: result.turns,
            },
            Event::Draw { .. } | Event::DrawEnd { .. } => unreachable!(),
        };
        self.events.push(ev);
    }
}

// ----- running a scripted round ------------------------------------------------

/// Everything a scripted round produced.
pub struct Run {
    pub rules: Rules,
    pub events: Vec<Ev>,
    pub questions: Vec<Question>,
    pub result: Result<RoundResult, IllegalActionError>,
    /// Hands at the end (sorted tokens).
    pub hands: Vec<Vec<String>>,
    pub top: String,
    pub color: Color,
    pub direction: i8,
    /// Draw pile at the end, top first.
    pub pile: Vec<String>,
    /// Match totals after the round.
    pub totals: Vec<i64>,
}

impl Run {
    /// The event log without the deal, one line per event.
    pub fn log(&self) -> Vec<String> {
        self.events
            .iter()
            .filter(|e| !matches!(e, Ev::Deal { .. }))
            .map(|e| e.to_string())
            .collect()
    }

    /// The round result; fails the test on a strict-mode error.
    pub fn res(&self) -> &RoundResult {
        match &self.result {
            Ok(r) => r,
            Err(e) => panic!("the round stopped with an error: {e}"),
        }
    }

    pub fn hand(&self, seat: usize) -> &Vec<String> {
        &self.hands[seat]
    }

    /// What was offered to `seat` for each question of kind `q`, in order.
    pub fn offers(&self, seat: u8, q: Q) -> Vec<Vec<String>> {
        self.questions
            .iter()
            .filter(|x| x.seat == seat && x.q == q)
            .map(|x| x.options.clone())
            .collect()
    }

    /// Whether any seat was asked a question of kind `q`.
    pub fn asked(&self, q: Q) -> bool {
        self.questions.iter().any(|x| x.q == q)
    }

    /// The draw events (player, cards, reason) in order.
    pub fn draws(&self) -> Vec<(u8, Vec<String>, DrawReason)> {
        self.events
            .iter()
            .filter_map(|e| match e {
                Ev::Draw {
                    player,
                    cards,
                    reason,
                } => Some((*player, cards.clone(), *reason)),
                _ => None,
            })
            .collect()
    }
}

/// Compares the log with the expected lines, printing both on a mismatch.
#[track_caller]
pub fn assert_log(run: &Run, expected: &[&str]) {
    let got = run.log();
    if got != expected {
        panic!(
            "event log differs\n--- expected ---\n{}\n--- engine ---\n{}\n",
            expected.join("\n"),
            got.join("\n")
        );
    }
}

/// Sorted comparison of a hand.
#[track_caller]
pub fn assert_hand(run: &Run, seat: usize, expected: &[&str]) {
    assert_eq!(run.hands[seat], sorted(expected), "hand of seat {seat}");
}

fn make_agents(scripts: Vec<Script>) -> (Vec<Seat>, Arc<Mutex<Shared>>) {
    let names: Vec<String> = scripts
        .iter()
        .enumerate()
        .map(|(i, s)| s.name.clone().unwrap_or(format!("script{i}")))
        .collect();
    let shared = Arc::new(Mutex::new(Shared {
        scripts,
        questions: Vec::new(),
    }));
    let seats = names
        .into_iter()
        .enumerate()
        .map(|(i, name)| {
            Seat::custom(Scripted {
                seat: i as u8,
                name,
                shared: shared.clone(),
            })
        })
        .collect();
    (seats, shared)
}

fn check_scripts_used(shared: &Arc<Mutex<Shared>>) {
    let g = shared.lock().unwrap();
    let mut bad = Vec::new();
    for (i, s) in g.scripts.iter().enumerate() {
        let l = s.leftovers();
        if !l.is_empty() {
            bad.push(format!("seat {i}: {}", l.join(", ")));
        }
    }
    if !bad.is_empty() {
        panic!(
            "scripted answers that the engine never asked for:\n{}",
            bad.join("\n")
        );
    }
}

/// Deals the scripted hands (seat by seat), flips `start`, leaves `pile`, and
/// plays one round with the scripts (table seed 1).
pub fn run_round(
    rules: &Rules,
    dealer: u8,
    hands: &[&[&str]],
    start: &[&str],
    pile: &[&str],
    scripts: Vec<Script>,
) -> Run {
    run_round_seeded(rules, dealer, hands, start, pile, scripts, 1)
}

/// As [`run_round`] with a chosen table seed.
pub fn run_round_seeded(
    rules: &Rules,
    dealer: u8,
    hands: &[&[&str]],
    start: &[&str],
    pile: &[&str],
    scripts: Vec<Script>,
    seed: u64,
) -> Run {
    let n = hands.len();
    assert_eq!(scripts.len(), n, "one script per seat");
    let order = deck_order(rules, dealer, hands, start, pile);
    let mut game = Game::new(rules, n, seed);
    game.start_match(Some(dealer));
    game.script_deck(&order);
    let (mut seats, shared) = make_agents(scripts);
    let mut rec = Rec::default();
    let result = game.play_round(
        &mut Agents {
            seats: &mut seats,
            rng: unolab::Rng::seed_from_u64(seed ^ 0x5eed),
        },
        &mut rec,
    );
    rec.flush();
    if let Err(e) = game.check_conservation() {
        panic!("cards not conserved after the round: {e}");
    }
    // The deal must give exactly the scripted hands.
    if let Some(Ev::Deal { hands: dealt, .. }) = rec.events.first() {
        for (i, h) in hands.iter().enumerate() {
            assert_eq!(dealt[i], sorted(h), "dealt hand of seat {i}");
        }
    } else {
        panic!("the first event is not the deal: {:?}", rec.events.first());
    }
    if result.is_ok() {
        check_scripts_used(&shared);
    }
    let d = &rules.deck;
    let questions = shared.lock().unwrap().questions.clone();
    Run {
        rules: rules.clone(),
        events: rec.events,
        questions,
        result,
        hands: game.hands().iter().map(|h| tokens(rules, *h)).collect(),
        top: d.token(game.top()),
        color: game.color(),
        direction: game.direction(),
        pile: pile_tokens(&game),
        totals: game.totals().to_vec(),
    }
}

/// What a match produced.
pub struct MatchRun {
    pub events: Vec<Ev>,
    pub result: MatchResult,
    pub rounds: Vec<RoundResult>,
}

impl MatchRun {
    pub fn round_ends(&self) -> Vec<Ev> {
        self.events
            .iter()
            .filter(|e| matches!(e, Ev::RoundEnd { .. }))
            .cloned()
            .collect()
    }
    pub fn dealers(&self) -> Vec<u8> {
        self.events
            .iter()
            .filter_map(|e| match e {
                Ev::Deal { dealer, .. } => Some(*dealer),
                _ => None,
            })
            .collect()
    }
}

/// Plays a match with `play_match`: the first round is dealt as scripted (the
/// rule set must set `dealer` to `dealer`), later rounds are shuffled (give the
/// scripts `then_first()` for those).
pub fn run_match(
    rules: &Rules,
    dealer: u8,
    hands: &[&[&str]],
    start: &[&str],
    pile: &[&str],
    scripts: Vec<Script>,
    seed: u64,
) -> MatchRun {
    let n = hands.len();
    let order = deck_order(rules, dealer, hands, start, pile);
    let mut game = Game::new(rules, n, seed);
    game.script_deck(&order);
    let (mut seats, _shared) = make_agents(scripts);
    let mut rec = Rec::default();
    let mut rounds = Vec::new();
    let result = game
        .play_match(
            &mut Agents {
                seats: &mut seats,
                rng: unolab::Rng::seed_from_u64(seed ^ 0x5eed),
            },
            &mut rec,
            |r| rounds.push(r.clone()),
        )
        .unwrap_or_else(|e| panic!("match stopped with an error: {e}"));
    rec.flush();
    if let Some(Ev::Deal { hands: dealt, .. }) = rec.events.first() {
        for (i, h) in hands.iter().enumerate() {
            assert_eq!(dealt[i], sorted(h), "dealt hand of seat {i}");
        }
    }
    MatchRun {
        events: rec.events,
        result,
        rounds,
    }
}

/// Plays one round with a raw deck order (no hand check, no scripts check) and
/// the given scripts; for tests of the deal itself.
pub fn run_raw(
    rules: &Rules,
    dealer: u8,
    order: &[CardId],
    scripts: Vec<Script>,
    seed: u64,
) -> (Vec<Ev>, Result<RoundResult, IllegalActionError>) {
    let mut game = Game::new(rules, scripts.len(), seed);
    game.start_match(Some(dealer));
    game.script_deck(order);
    let (mut seats, _shared) = make_agents(scripts);
    let mut rec = Rec::default();
    let result = game.play_round(
        &mut Agents {
            seats: &mut seats,
            rng: unolab::Rng::seed_from_u64(seed ^ 0x5eed),
        },
        &mut rec,
    );
    rec.flush();
    (rec.events, result)
}

// ----- the real binary ----------------------------------------------------------

/// Runs the `unolab` binary with `args`, outside any Slurm job (the array
/// variables of an enclosing job would make it a shard).
pub fn unolab(args: &[&str]) -> std::process::Output {
    unolab_env(args, &[])
}

/// [`unolab`] with extra environment variables.
pub fn unolab_env(args: &[&str], env: &[(&str, &str)]) -> std::process::Output {
    let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_unolab"));
    c.args(args);
    for k in [
        "SLURM_ARRAY_TASK_ID",
        "SLURM_ARRAY_TASK_COUNT",
        "SLURM_ARRAY_TASK_MIN",
    ] {
        c.env_remove(k);
    }
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("the binary runs")
}

pub fn stdout(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A folder of one test in the temporary directory, removed with all it holds
/// when the guard is dropped: at the end of the test, whether it passes or
/// fails (a panic unwinds through the drop). Bind it to a named variable
/// (`let dir = ...`), never to `_`, so that it lives until the test ends.
pub struct TempDir(std::path::PathBuf);

impl std::ops::Deref for TempDir {
    type Target = std::path::Path;
    fn deref(&self) -> &std::path::Path {
        &self.0
    }
}

impl AsRef<std::path::Path> for TempDir {
    fn as_ref(&self) -> &std::path::Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A fresh (removed, not created) folder `unolab-{group}-{tag}-{pid}` in the
/// temporary directory, removed again when the returned guard is dropped:
/// `group` keeps the test files' folders apart.
pub fn tempdir(group: &str, tag: &str) -> TempDir {
    let d = std::env::temp_dir().join(format!("unolab-{group}-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    TempDir(d)
}

/// [`tempdir`], created (empty).
pub fn tempdir_created(group: &str, tag: &str) -> TempDir {
    let d = tempdir(group, tag);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Every file under `dir` (hidden ones too), as sorted paths relative to it.
pub fn files_under(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                todo.push(p);
            } else {
                out.push(p.strip_prefix(dir).unwrap().to_path_buf());
            }
        }
    }
    out.sort();
    out
}

/// Writes `dir/name`: an experiment of two arms at 2 players, `plain` (the
/// baseline) and `stack` (stacking=same), of `games` games of `lineup`;
/// returns its path.
pub fn two_arm_experiment(
    dir: &std::path::Path,
    name: &str,
    lineup: &str,
    games: u64,
) -> std::path::PathBuf {
    let p = dir.join(name);
    std::fs::write(
        &p,
        format!("name = \"e\"\nbaseline = \"plain\"\n[base]\nplayers = 2\nstrategies = \"{lineup}\"\ngames = {games}\n[[arm]]\nlabel = \"plain\"\n[[arm]]\nlabel = \"stack\"\nhouse = [\"stacking=same\"]\n"),
    )
    .unwrap();
    p
}

/// Runs the experiment file `file` into `out` (quietly, with `more`
/// arguments), which must succeed.
pub fn run_experiment(file: &std::path::Path, out: &std::path::Path, more: &[&str]) {
    let mut args = vec![
        "experiment",
        "run",
        file.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--quiet",
    ];
    args.extend_from_slice(more);
    let o = unolab(&args);
    assert!(o.status.success(), "{}", stderr(&o));
}

/// Tournament counts (`Results::to_json`, a field of `k`) as format
/// version 1 kept them: each composition's wins by strategy of the field
/// (`wins`), not by seat (`seat_wins`).
pub fn counts_as_version_1(results: &mut serde_json::Value, k: usize) {
    for c in results["compositions"].as_array_mut().unwrap() {
        let mut wins = vec![0u64; k];
        let seats = c["seats"].as_array().unwrap().clone();
        for (s, w) in seats.iter().zip(c["seat_wins"].as_array().unwrap()) {
            wins[s.as_u64().unwrap() as usize] += w.as_u64().unwrap();
        }
        let c = c.as_object_mut().unwrap();
        c.remove("seat_wins");
        c.insert("wins".into(), serde_json::json!(wins));
    }
}

/// A file's text; a missing file fails naming it.
pub fn read(p: &std::path::Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// The rows of a CSV file with a header, each as column name -> field.
pub fn csv_rows(p: &std::path::Path) -> Vec<std::collections::HashMap<String, String>> {
    let mut rd = csv::Reader::from_path(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    let head = rd.headers().unwrap().clone();
    rd.records()
        .map(|r| {
            let r = r.unwrap();
            head.iter()
                .map(String::from)
                .zip(r.iter().map(String::from))
                .collect()
        })
        .collect()
}

/// Starts `unolab` with `args` (stdout and stderr captured), sends it
/// SIGTERM after `ms` milliseconds and returns what it wrote and its status.
pub fn terminated_after(args: &[&str], ms: u64) -> std::process::Output {
    signalled_after(args, ms, &["-TERM"])
}

/// Starts `unolab` with `args` (stdout and stderr captured), sends it the
/// `signals` (`kill` options such as `-INT`) one right after the other
/// after `ms` milliseconds and returns what it wrote and its status.
pub fn signalled_after(args: &[&str], ms: u64, signals: &[&str]) -> std::process::Output {
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_unolab"))
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(ms));
    for sig in signals {
        let killed = std::process::Command::new("kill")
            .args([*sig, &child.id().to_string()])
            .status()
            .unwrap();
        assert!(killed.success());
    }
    child.wait_with_output().unwrap()
}

/// The runs per design of the coverage tests: `UNOLAB_COVERAGE_RUNS`, or 200.
pub fn coverage_runs() -> u64 {
    std::env::var("UNOLAB_COVERAGE_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200)
}
