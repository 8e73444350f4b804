//! Playing a game one decision at a time, for learning environments: the
//! engine asks its strategies from inside the turn loop, and a learner
//! answers from outside, between two calls. [`Stepper`] bridges the two
//! without a second engine and without threads.
//!
//! Some seats are the learner's (the `env` seats); the others are played by
//! strategies. The stepper keeps the game as it was at the start of the
//! current unit of play (the deal, or one turn) and the answers given since
//! (every seat's, in order, with the strategies' generator after each). To
//! find the next decision of a learner's seat it plays the unit again on a
//! copy, answering from that log; the first decision of a learner's seat not
//! in the log stops it: the decision, its legal actions and the seat's
//! features are kept, and the copy is dropped. [`Stepper::step`] adds the
//! learner's answer to the log and plays again. A unit that finishes without
//! a stop becomes the new state.
//!
//! A strategy is asked each decision once: on later passes its answer (and
//! the generator state it left) comes from the log, so strategies with state
//! of their own (external programs, Python objects) see one game. Replaying
//! is cheap: a unit is one turn, and a copy of the game is a few hundred
//! bytes. Nothing allocates after the first decisions (the log keeps its
//! capacity).

mod replay;
mod rlcard;

use crate::engine::cards::{CardSet, Color};
use crate::engine::encode::{
    card_of_action, encode_known, encode_waiting, write_known_counts, ActionSet, Decision,
    DecisionKind, Features, ACT_CHALLENGE, ACT_COLOR, ACT_DRAW, ACT_JUMP, ACT_KEEP,
    ACT_NO_CHALLENGE, ACT_NO_JUMP, ACT_NO_UNO, ACT_PLAY_DRAWN, ACT_TARGET, ACT_UNO, KNOWN_LEN,
    OBS_LEN,
};
use crate::engine::game::{
    Game, IllegalActionError, MatchResult, NoRecord, Observation, RoundResult, RoundStart, TurnEnd,
    MAX_PLAYERS,
};
use crate::engine::render::{decision_text, over_text};
use crate::engine::rng::Rng;
use crate::engine::rules::{Rules, Scoring};
use crate::engine::strategy::{Agents, Strategy};
use replay::{Answer, Entry, ReplayTable, Stop};

/// Where the game stands between two calls.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// The next unit deals a round.
    Deal,
    /// The next unit is this seat's turn.
    Turn(u8),
    /// The game (the round in round mode, the match in match mode) is over.
    Over,
}

/// What a stepped game is: one round, or a whole match.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StepMode {
    Round,
    Match,
}

/// What a step's reward counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reward {
    /// +1 to the winner of the round (round mode) or of the match (match
    /// mode), -1/(players - 1) to each other seat; 0 to everyone when no one
    /// won (a blocked or truncated round, a tied match).
    Win,
    /// At the end of every round, the round's points / 100: under winner
    /// scoring the winner gets the points and each other seat an equal share
    /// of their negative; under penalty scoring each seat loses its own.
    Points,
}

/// Why a step was refused.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum StepError {
    #[error("the game is over: reset it before stepping")]
    Over,
    #[error(
        "action {action} is not legal for the {kind} decision of seat {seat} (legal: {legal:?})"
    )]
    Illegal {
        action: usize,
        seat: u8,
        kind: &'static str,
        legal: Vec<usize>,
    },
    #[error(transparent)]
    Strategy(#[from] IllegalActionError),
    /// A decision the chosen encoding has no action for.
    #[error("{0}")]
    Unsupported(String),
    /// This many games started in a row ended before any learner's
    /// decision (a caller that skips such games gives up).
    #[error("{0} games in a row ended before any decision of a learner: these settings leave the learners nothing to decide (look at max_turns, the dealer and the learners' seats)")]
    NoDecision(u64),
}

/// A game played one decision at a time (see the module documentation).
/// `S` is the strategy type of the seats the learner does not play.
pub struct Stepper<'r, S: Strategy> {
    /// The game as of the start of the unit in play (`games[cur]`) and the
    /// scratch copy a pass plays on (the other one); a pass that finishes its
    /// unit makes its copy the game in play by flipping `cur`.
    games: [Game<'r>; 2],
    cur: usize,
    agent_rng: Rng,
    seats: Vec<S>,
    env: u16,
    mode: StepMode,
    /// Ask the learner also the decisions without a choice
    /// ([`Stepper::set_ask_forced`]).
    ask_forced: bool,
    /// Map an illegal action to the rules' wrong-card sanction instead of
    /// refusing it.
    sanction: bool,
    log: Vec<Entry>,
    phase: Phase,
    stop: Option<Stop>,
    /// The features of the decision in hand, kept small (written out on
    /// demand: [`Stepper::write_features`]).
    features: Features,
    /// The known-cards section of the decision in hand (its counts), when
    /// kept ([`Stepper::keep_known`]; boxed, so that a stepper without it
    /// stays as small as before).
    known: Option<Box<[u8; KNOWN_LEN]>>,
    start: RoundStart,
    rounds: Vec<RoundResult>,
    result: Option<MatchResult>,
    /// Rewards not yet handed out, per seat.
    reward_due: [f32; MAX_PLAYERS],
    reward: Reward,
}

impl<'r, S: Strategy> Stepper<'r, S> {
    /// A stepper for `rules` with one strategy per seat (`seats.len()` is the
    /// player count; the strategies of the learner's seats, the bits of `env`,
    /// are never asked). Call [`Rules::check_players`] first. Call
    /// [`Stepper::reset`] before stepping.
    pub fn new(rules: &'r Rules, seats: Vec<S>, env: u16, mode: StepMode, reward: Reward) -> Self {
        let n = seats.len();
        let game = Game::new(rules, n, 0);
        Stepper {
            games: [game.clone(), game],
            cur: 1,
            agent_rng: <Rng as rand::SeedableRng>::seed_from_u64(0),
            seats,
            env: env & ((1u16 << n) - 1),
            mode,
            ask_forced: true,
            sanction: false,
            log: Vec::with_capacity(64),
            phase: Phase::Over,
            stop: None,
            features: Features::EMPTY,
            known: None,
            start: RoundStart {
                first_player: 0,
                first_direction: 1,
            },
            // A game's rounds: one in round mode; most matches end within
            // 16 (the list grows at a longer match than any before).
            rounds: Vec::with_capacity(match mode {
                StepMode::Round => 1,
                StepMode::Match => 16,
            }),
            result: None,
            reward_due: [0.0; MAX_PLAYERS],
            reward,
        }
    }

    /// Whether the learner is asked the decisions the rules leave it no
    /// choice in (default true): a play when drawing is its only legal
    /// action, a stack answer under `stacking` when it holds no card that
    /// answers (take the draw), a drawn card it cannot play (keep it), a
    /// jump-in under `jump_in` when it holds no identical card (decline).
    /// Then who is asked tells nothing of a hand. False draws, takes, keeps
    /// and declines for it without asking, so that being asked shows the
    /// choice.
    pub fn set_ask_forced(&mut self, ask: bool) {
        self.ask_forced = ask;
    }

    /// Whether an illegal action gets the rules' wrong-card sanction (true)
    /// or is refused with [`StepError::Illegal`] (false, the default).
    pub fn set_sanction(&mut self, sanction: bool) {
        self.sanction = sanction;
    }

    /// Starts a new game from the generators of a seed (the table's and the
    /// strategies', as the runner's game 0 of that seed) and plays on to the
    /// learner's first decision.
    pub fn reset(&mut self, seed: u64) -> Result<(), StepError> {
        self.reset_game(seed, 0)
    }

    /// Starts game `index` of master seed `seed`: the generators the runner
    /// gives its game `index` of that seed (so a batch of games can number
    /// its games under one seed). `reset(seed)` is `reset_game(seed, 0)`.
    pub fn reset_game(&mut self, seed: u64, index: u64) -> Result<(), StepError> {
        // A seat that failed in the last game (a program that died) starts
        // this one clean.
        for s in self.seats.iter_mut() {
            s.recover();
        }
        let (table, agents) = crate::engine::rng::game_rngs(seed, index);
        let game = &mut self.games[self.cur];
        game.set_rng(table);
        game.set_lazy_pile(true);
        game.start_match(None);
        self.agent_rng = agents;
        self.log.clear();
        self.rounds.clear();
        self.result = None;
        self.reward_due = [0.0; MAX_PLAYERS];
        self.stop = None;
        self.phase = Phase::Deal;
        self.advance(None)
    }

    /// The game as of the start of the unit in play (for rendering).
    pub fn game(&self) -> &Game<'r> {
        &self.games[self.cur]
    }

    /// The players.
    pub fn players(&self) -> usize {
        self.seats.len()
    }

    /// Whether the game is over.
    pub fn is_over(&self) -> bool {
        self.phase == Phase::Over
    }

    /// The decision the learner must answer (`None` when the game is over).
    pub fn decision(&self) -> Option<Decision> {
        self.stop.map(|s| s.decision)
    }

    /// The legal actions of the decision in hand.
    pub fn legal(&self) -> ActionSet {
        self.stop.map(|s| s.legal).unwrap_or_default()
    }

    /// The features of the deciding seat at the decision in hand (zeros when
    /// the game is over).
    pub fn features(&self) -> [f32; OBS_LEN] {
        let mut out = [0.0; OBS_LEN];
        self.write_features(&mut out);
        out
    }

    /// Writes [`Stepper::features`] into `out` (at least [`OBS_LEN`] long),
    /// with no copy in between (a batch writes each game's row).
    pub fn write_features(&self, out: &mut [f32]) {
        if self.stop.is_some() {
            self.features.write(&self.game().rules().deck, out);
        } else {
            out[..OBS_LEN].fill(0.0);
        }
    }

    /// Whether each decision from now on also keeps the deciding seat's
    /// known-cards section ([`encode_known`]), so that
    /// [`Stepper::write_known`] writes it without replaying the turn (a
    /// batch writes it at every step); switched on at a decision, it takes
    /// that decision's at once. Off by default.
    pub fn keep_known(&mut self, on: bool) {
        if !on {
            self.known = None;
        } else if self.known.is_none() {
            self.known = Some(Box::new([0; KNOWN_LEN]));
            // The decision in hand's, taken by replaying the turn to it.
            self.inspect(|_| ());
        }
    }

    /// Writes the known-cards section of the deciding seat at the decision
    /// in hand ([`encode_known`]: what it knows of each other hand) into
    /// `out` (at least [`KNOWN_LEN`] long), zeros when the game is over.
    /// Kept with the decision under [`Stepper::keep_known`], else read by
    /// replaying the turn to it ([`Stepper::inspect`]).
    pub fn write_known(&mut self, out: &mut [f32]) {
        if self.stop.is_none() {
            out[..KNOWN_LEN].fill(0.0);
        } else if let Some(k) = self.known.as_deref() {
            write_known_counts(k, out);
        } else {
            self.inspect(|obs| encode_known(obs, out));
        }
    }

    /// Writes the known-cards section of `seat` (`< players`) now into
    /// `out` (at least [`KNOWN_LEN`] long): the deciding seat's is
    /// [`Stepper::write_known`]; any other seat's, and every seat's once the
    /// game is over, what it knows at this moment.
    pub fn seat_known(&mut self, seat: u8, out: &mut [f32]) {
        self.seat_view(seat, out, Self::write_known, encode_known);
    }

    /// Writes `seat`'s view now: `deciding` for the deciding seat, `view`
    /// of what any other seat sees at the decision (the turn replayed), or
    /// of the game once it is over.
    fn seat_view(
        &mut self,
        seat: u8,
        out: &mut [f32],
        deciding: impl FnOnce(&mut Self, &mut [f32]),
        view: impl FnOnce(&Observation, &mut [f32]),
    ) {
        match self.stop {
            Some(s) if s.decision.seat == seat => deciding(self, out),
            Some(_) => {
                self.inspect(|obs| view(&obs.of_seat(seat), out));
            }
            None => view(&Observation::of(self.game(), seat), out),
        }
    }

    /// The rounds finished so far.
    pub fn rounds(&self) -> &[RoundResult] {
        &self.rounds
    }

    /// The match result, once a match-mode game is over.
    pub fn match_result(&self) -> Option<&MatchResult> {
        self.result.as_ref()
    }

    /// Calls `f` with what the deciding seat sees at the decision in hand
    /// (`None`, without calling it, when the game is over). The unit in play
    /// is replayed on the scratch copy up to the decision, answering from the
    /// log: no strategy is asked and nothing else changes.
    pub fn inspect<T>(&mut self, f: impl FnOnce(&Observation<'_>) -> T) -> Option<T> {
        self.stop?;
        let mut f = Some(f);
        let mut out = None;
        let mut call = |obs: &Observation<'_>| {
            if let Some(f) = f.take() {
                out = Some(f(obs));
            }
        };
        let logged = self.log.len();
        let scratch = fresh_scratch(&mut self.games, self.cur);
        let mut table = ReplayTable {
            seats: &mut self.seats,
            env: self.env,
            ask_forced: self.ask_forced,
            log: &mut self.log,
            pos: 0,
            stop: None,
            features: &mut self.features,
            known: self.known.as_deref_mut(),
            inspect: Some(&mut call),
        };
        let mut agents = Agents {
            seats: &mut table,
            rng: self.agent_rng.fork(),
        };
        match self.phase {
            Phase::Deal => {
                scratch.begin_round(&mut agents, &mut NoRecord);
            }
            Phase::Turn(cur) => {
                scratch.play_turn(cur, &mut agents, &mut NoRecord);
            }
            Phase::Over => {}
        }
        debug_assert_eq!(
            self.log.len(),
            logged,
            "a replay to the stop records nothing"
        );
        out
    }

    /// Writes the features of `seat` (`< players`) now into `out` (at least
    /// [`OBS_LEN`] long): the deciding seat gets [`Stepper::features`]; any
    /// other seat, and every seat once the game is over, what it sees at this
    /// moment with the decision sections at zero ([`encode_waiting`]).
    pub fn seat_features(&mut self, seat: u8, out: &mut [f32]) {
        self.seat_view(seat, out, |st, out| st.write_features(out), encode_waiting);
    }

    /// The table as text ([`crate::engine::render`]): what the deciding seat
    /// sees and its legal actions, or the end of the game.
    pub fn render(&mut self) -> String {
        match self.stop {
            Some(s) => self
                .inspect(|obs| decision_text(obs, &s.decision, s.legal))
                .unwrap_or_default(),
            None => over_text(
                &Observation::of(&self.games[self.cur], 0),
                &self.rounds,
                self.result.as_ref(),
            ),
        }
    }

    /// Takes the rewards earned since the last call, per seat.
    pub fn take_rewards(&mut self) -> [f32; MAX_PLAYERS] {
        std::mem::replace(&mut self.reward_due, [0.0; MAX_PLAYERS])
    }

    /// Answers the decision in hand with `action` and plays on to the
    /// learner's next decision or the end of the game.
    pub fn step(&mut self, action: usize) -> Result<(), StepError> {
        self.answer(action)?;
        self.advance(None)
    }

    /// [`Stepper::step`], playing on a game the caller lends (any game; it
    /// is overwritten) instead of the stepper's own second copy. A batch
    /// lends one game to all its steppers: the copy a pass plays on then
    /// stays in the cache from one game to the next, where each stepper's
    /// own copy is cold. The same results as [`Stepper::step`].
    pub fn step_on(&mut self, action: usize, scratch: &mut Game<'r>) -> Result<(), StepError> {
        self.answer(action)?;
        self.advance(Some(scratch))
    }

    /// Logs the answer to the decision in hand (the start of a step).
    fn answer(&mut self, action: usize) -> Result<(), StepError> {
        let stop = self.stop.ok_or(StepError::Over)?;
        let answer = self
            .answer_of(&stop, action)
            .ok_or_else(|| refused(&stop, action))?;
        self.log.push(Entry { answer, rng: None });
        self.stop = None;
        Ok(())
    }

    /// Whether [`Stepper::step`] would take `action` now: `Ok`, or the error
    /// it would return (the game is over; the action is refused: not legal,
    /// and not one the sanction applies to when it is on). Changes nothing,
    /// so a batch can check every action before stepping any game.
    pub fn check(&self, action: usize) -> Result<(), StepError> {
        let stop = self.stop.ok_or(StepError::Over)?;
        match self.answer_of(&stop, action) {
            Some(_) => Ok(()),
            None => Err(refused(&stop, action)),
        }
    }

    /// The engine's answer for an action (or, with the sanction on, an
    /// illegal answer the engine sanctions); `None` when refused.
    fn answer_of(&self, stop: &Stop, action: usize) -> Option<Answer> {
        let d = &self.game().rules().deck;
        let legal = stop.legal.contains(action);
        let dec = &stop.decision;
        let seat = dec.seat;
        let n = self.seats.len() as u8;
        if legal {
            return Some(match dec.kind {
                DecisionKind::Play | DecisionKind::Stack => {
                    if action == ACT_DRAW {
                        Answer::Play(None)
                    } else {
                        Answer::Play(card_of_action(d, dec.cards, action))
                    }
                }
                DecisionKind::PlayDrawn => Answer::Bool(action == ACT_PLAY_DRAWN),
                DecisionKind::Color => Answer::Color(Color::from_index(action - ACT_COLOR)),
                DecisionKind::Uno => Answer::Bool(action == ACT_UNO),
                DecisionKind::Challenge => Answer::Bool(action == ACT_CHALLENGE),
                DecisionKind::JumpIn => Answer::Bool(action == ACT_JUMP),
                DecisionKind::Target => {
                    let k = (action - ACT_TARGET + 1) as u8;
                    // The seat k places after, in the direction of play.
                    let t = if stop.dir > 0 {
                        (seat + k) % n
                    } else {
                        (seat + n - k % n) % n
                    };
                    Answer::Target(t)
                }
            });
        }
        if !self.sanction {
            return None;
        }
        // The wrong-card sanction exists for a play, a stack answer and a
        // target; an illegal choice there is handed to the engine as such.
        match dec.kind {
            DecisionKind::Play | DecisionKind::Stack => {
                // A card of the action's kind outside the legal cards, or the
                // top card (never in a hand) when the deck has none.
                let kind_cards = if action < ACT_DRAW {
                    d.kind_mask(crate::engine::encode::kind_of_index(action))
                } else {
                    CardSet::EMPTY
                };
                let c = (kind_cards - dec.cards)
                    .first()
                    .unwrap_or_else(|| self.game().top());
                Some(Answer::Play(Some(c)))
            }
            DecisionKind::Target => Some(Answer::Target(seat)),
            _ => {
                let _ = (ACT_KEEP, ACT_NO_UNO, ACT_NO_CHALLENGE, ACT_NO_JUMP);
                None
            }
        }
    }

    /// Plays units until the learner must decide or the game is over, each
    /// pass on the stepper's second copy or on the `lent` game (see
    /// [`Stepper::step_on`]).
    fn advance(&mut self, mut lent: Option<&mut Game<'r>>) -> Result<(), StepError> {
        // The lent game already holds the game in play (the last pass
        // finished its unit on it and was copied back).
        let mut synced = false;
        loop {
            let unit = match self.phase {
                Phase::Over => return Ok(()),
                p => p,
            };
            let scratch = match lent.as_deref_mut() {
                Some(g) => {
                    if !synced {
                        g.clone_from(&self.games[self.cur]);
                    }
                    g
                }
                None => fresh_scratch(&mut self.games, self.cur),
            };
            synced = false;
            let mut table = ReplayTable {
                seats: &mut self.seats,
                env: self.env,
                ask_forced: self.ask_forced,
                log: &mut self.log,
                pos: 0,
                stop: None,
                features: &mut self.features,
                known: self.known.as_deref_mut(),
                inspect: None,
            };
            let mut agents = Agents {
                seats: &mut table,
                rng: self.agent_rng.fork(),
            };
            let next = match unit {
                Phase::Deal => {
                    let start = scratch.begin_round(&mut agents, &mut NoRecord);
                    self.start = start;
                    Phase::Turn(start.first_player)
                }
                Phase::Turn(cur) => match scratch.play_turn(cur, &mut agents, &mut NoRecord) {
                    TurnEnd::Next(next) => Phase::Turn(next),
                    TurnEnd::Over(outcome, last) => {
                        let rng = agents.rng.fork();
                        if let Some(stop) = table_stop(&agents) {
                            let round = scratch.round();
                            self.fault_check(round)?;
                            self.stop = Some(stop);
                            return Ok(());
                        }
                        self.finish_unit(lent.as_deref());
                        self.agent_rng = rng;
                        self.log.clear();
                        self.finish_round(outcome, last)?;
                        continue;
                    }
                },
                Phase::Over => unreachable!(),
            };
            let round = scratch.round();
            if let Some(stop) = table_stop(&agents) {
                self.fault_check(round)?;
                self.stop = Some(stop);
                return Ok(());
            }
            self.agent_rng = agents.rng.fork();
            self.finish_unit(lent.as_deref());
            synced = lent.is_some();
            self.log.clear();
            self.phase = next;
            self.fault_check(round)?;
        }
    }

    /// The first fault of a seat (a program that died or broke the protocol,
    /// see [`Strategy::fault`]) as the error that stops the game, checked
    /// after every unit: the engine asks only at a round's end, and until
    /// then such a seat answers legal defaults that a learner would take for
    /// its opponent's play. `round`: the round of the unit just played.
    #[inline]
    fn fault_check(&mut self, round: u32) -> Result<(), StepError> {
        // The learner's own seats (the bits of `env`) never fault: a batch
        // of learners only, as `VecEnv` plays by default, asks no one.
        let mut others = !self.env & ((1u32 << self.seats.len()) - 1) as u16;
        while others != 0 {
            let p = others.trailing_zeros() as usize;
            others &= others - 1;
            let seat = &mut self.seats[p];
            if let Some(action) = seat.fault() {
                return Err(StepError::Strategy(IllegalActionError {
                    strategy: seat.name().to_string(),
                    seat: p as u8,
                    round,
                    action,
                    fault: true,
                }));
            }
        }
        Ok(())
    }

    /// The pass played its unit to the end: its copy becomes the game in
    /// play (the stepper's own copy by a flip, a lent one by a copy back).
    #[inline]
    fn finish_unit(&mut self, lent: Option<&Game<'r>>) {
        match lent {
            Some(g) => self.games[self.cur].clone_from(g),
            None => self.cur ^= 1,
        }
    }

    /// Scores a finished round, hands out its rewards and moves on to the
    /// next round or the end of the game.
    fn finish_round(
        &mut self,
        outcome: crate::engine::game::Outcome,
        last: u8,
    ) -> Result<(), StepError> {
        let n = self.seats.len();
        let mut table = ReplayTable {
            seats: &mut self.seats,
            env: self.env,
            ask_forced: self.ask_forced,
            log: &mut self.log,
            pos: 0,
            stop: None,
            features: &mut self.features,
            known: self.known.as_deref_mut(),
            inspect: None,
        };
        let mut agents = Agents {
            seats: &mut table,
            rng: self.agent_rng.fork(),
        };
        let game = &mut self.games[self.cur];
        let r = game.end_round(self.start, outcome, last, &mut agents)?;
        if self.reward == Reward::Points {
            let share = 1.0 / (n as f32 - 1.0);
            match game.rules().settings.scoring {
                Scoring::Winner => {
                    if let Some(w) = r.winner {
                        let p = r.points[w as usize] as f32 / 100.0;
                        for i in 0..n {
                            self.reward_due[i] += if i == w as usize { p } else { -p * share };
                        }
                    }
                }
                Scoring::Penalty => {
                    for i in 0..n {
                        self.reward_due[i] -= r.points[i] as f32 / 100.0;
                    }
                }
            }
        }
        let win = |due: &mut [f32; MAX_PLAYERS], w: Option<u8>| {
            if let Some(w) = w {
                for (i, d) in due.iter_mut().enumerate().take(n) {
                    *d += if i == w as usize {
                        1.0
                    } else {
                        -1.0 / (n as f32 - 1.0)
                    };
                }
            }
        };
        self.rounds.push(r.clone());
        match self.mode {
            StepMode::Round => {
                if self.reward == Reward::Win {
                    win(&mut self.reward_due, r.winner);
                }
                self.phase = Phase::Over;
            }
            StepMode::Match => match game.after_round(&r) {
                Some(end) => {
                    let m = game.end_match(end, &mut agents)?;
                    if self.reward == Reward::Win {
                        win(&mut self.reward_due, m.winner);
                    }
                    self.result = Some(m);
                    self.phase = Phase::Over;
                }
                None => self.phase = Phase::Deal,
            },
        }
        self.agent_rng = agents.rng;
        Ok(())
    }
}

/// The scratch copy of `games` (the one that is not `games[cur]`), set to the
/// game in play.
#[inline]
fn fresh_scratch<'a, 'r>(games: &'a mut [Game<'r>; 2], cur: usize) -> &'a mut Game<'r> {
    let [a, b] = games;
    if cur == 0 {
        b.clone_from(a);
        b
    } else {
        a.clone_from(b);
        a
    }
}

/// The refusal of `action` at `stop`.
fn refused(stop: &Stop, action: usize) -> StepError {
    StepError::Illegal {
        action,
        seat: stop.decision.seat,
        kind: stop.decision.kind.name(),
        legal: stop.legal.iter().collect(),
    }
}

fn table_stop<S: Strategy>(agents: &Agents<ReplayTable<'_, S>>) -> Option<Stop> {
    agents.seats.stop
}
