//! Who is asked tells nothing of a hand when the table asks the decisions
//! without a choice (`Table::asks_forced`, the stepped environments' default
//! `ask_forced`): the seat a draw card hits is asked its stack answer under
//! `stacking` whether or not it holds a card that answers, a seat that drew
//! is asked about the drawn card whether or not it can play it, and after a
//! play under `jump_in` every other seat is asked in turn whether or not it
//! holds an identical card. Without it (every strategy table) the engine asks
//! only where there is a choice, and the same checks find the difference.

use std::cell::RefCell;
use std::rc::Rc;

use unolab::engine::cards::{CardId, CardSet, Color};
use unolab::engine::encode::{
    DecisionKind, ACT_DRAW, ACT_JUMP, ACT_KEEP, ACT_NO_JUMP, ACT_PLAY_DRAWN,
};
use unolab::engine::game::{
    game_rngs, Agents, DrawReason, Event, Game, MatchResult, Observation, Recorder, RoundResult,
    Table,
};
use unolab::engine::rules::{RuleSetFile, Rules};
use unolab::engine::step::{Reward, StepMode, Stepper};
use unolab::{Rng, Seat, Strategy, StrategySpec};

#[derive(Clone, Copy, Debug, PartialEq)]
enum Log {
    /// A decision asked: `choice` when the seat had more than one answer.
    Ask {
        seat: u8,
        kind: DecisionKind,
        choice: bool,
        yes: bool,
    },
    Play {
        player: u8,
        wild: bool,
        left: usize,
        jump_in: bool,
    },
    DrawEnd {
        player: u8,
        reason: DrawReason,
        cards: u32,
    },
    Other,
}

type Shared = Rc<RefCell<Vec<Log>>>;

/// Strategies at the seats, every question logged.
struct Logged {
    seats: Vec<Seat>,
    forced: bool,
    log: Shared,
}

impl Logged {
    fn ask(&self, seat: u8, kind: DecisionKind, choice: bool, yes: bool) {
        self.log.borrow_mut().push(Log::Ask {
            seat,
            kind,
            choice,
            yes,
        });
    }
}

impl Table for Logged {
    fn name(&self, seat: u8) -> &str {
        self.seats[seat as usize].name()
    }
    fn ask_without_choice(&self, seat: u8) -> bool {
        self.seats[seat as usize].ask_without_choice()
    }
    fn choose_play(
        &mut self,
        seat: u8,
        obs: &Observation,
        playable: CardSet,
        rng: &mut Rng,
    ) -> Option<CardId> {
        let c = self.seats[seat as usize].choose_play(obs, playable, rng);
        self.ask(seat, DecisionKind::Play, !playable.is_empty(), c.is_some());
        c
    }
    fn play_drawn(&mut self, seat: u8, obs: &Observation, card: CardId, rng: &mut Rng) -> bool {
        let yes = self.seats[seat as usize].play_drawn(obs, card, rng);
        self.ask(seat, DecisionKind::PlayDrawn, true, yes);
        yes
    }
    fn choose_color(&mut self, seat: u8, obs: &Observation, rng: &mut Rng) -> Color {
        self.ask(seat, DecisionKind::Color, true, false);
        self.seats[seat as usize].choose_color(obs, rng)
    }
    fn call_uno(&mut self, seat: u8, obs: &Observation, rng: &mut Rng) -> bool {
        self.ask(seat, DecisionKind::Uno, true, false);
        self.seats[seat as usize].call_uno(obs, rng)
    }
    fn choose_target(&mut self, seat: u8, obs: &Observation, rng: &mut Rng) -> u8 {
        self.ask(seat, DecisionKind::Target, true, false);
        self.seats[seat as usize].choose_target(obs, rng)
    }
    fn answer_stack(
        &mut self,
        seat: u8,
        obs: &Observation,
        answers: CardSet,
        rng: &mut Rng,
    ) -> Option<CardId> {
        assert!(self.forced || !answers.is_empty(), "asked without answers");
        let c = if answers.is_empty() {
            None
        } else {
            self.seats[seat as usize].answer_stack(obs, answers, rng)
        };
        self.ask(seat, DecisionKind::Stack, !answers.is_empty(), c.is_some());
        c
    }
    fn challenge(&mut self, seat: u8, obs: &Observation, rng: &mut Rng) -> bool {
        self.ask(seat, DecisionKind::Challenge, true, false);
        self.seats[seat as usize].challenge(obs, rng)
    }
    fn jump_in(&mut self, seat: u8, obs: &Observation, card: CardId, rng: &mut Rng) -> bool {
        let yes = self.seats[seat as usize].jump_in(obs, card, rng);
        self.ask(seat, DecisionKind::JumpIn, true, yes);
        yes
    }
    fn round_start(&mut self, seat: u8, obs: &Observation) {
        self.seats[seat as usize].round_start(obs)
    }
    fn round_end(&mut self, seat: u8, obs: &Observation, result: &RoundResult) {
        self.seats[seat as usize].round_end(obs, result)
    }
    fn match_end(&mut self, seat: u8, obs: &Observation, result: &MatchResult) {
        self.seats[seat as usize].match_end(obs, result)
    }
    fn fault(&mut self, seat: u8) -> Option<String> {
        self.seats[seat as usize].fault()
    }
    fn hears_notices(&self, seat: u8) -> bool {
        self.seats[seat as usize].hears_notices()
    }
    fn asks_forced(&self, _seat: u8) -> bool {
        self.forced
    }
    fn drawn_unplayable(&mut self, seat: u8, _: &Observation, _: CardId, _: &mut Rng) {
        assert!(self.forced);
        self.ask(seat, DecisionKind::PlayDrawn, false, false);
    }
    fn no_jump_in(&mut self, seat: u8, _: &Observation, _: CardId, _: &mut Rng) {
        assert!(self.forced);
        self.ask(seat, DecisionKind::JumpIn, false, false);
    }
}

struct Events {
    log: Shared,
    cards: u32,
}

impl Recorder for Events {
    fn on(&mut self, game: &Game, event: Event<'_>) {
        let entry = match event {
            Event::Play {
                player,
                card,
                jump_in,
                ..
            } => Log::Play {
                player,
                wild: game.rules().deck.wild.contains(card),
                left: game.hand(player as usize).len() as usize,
                jump_in,
            },
            Event::Draw { .. } => {
                self.cards += 1;
                return;
            }
            Event::DrawEnd { player, reason } => {
                let cards = std::mem::take(&mut self.cards);
                Log::DrawEnd {
                    player,
                    reason,
                    cards,
                }
            }
            _ => Log::Other,
        };
        self.log.borrow_mut().push(entry);
    }
}

fn rules(house: &str) -> Rules {
    let mut f = RuleSetFile::load("classic").unwrap();
    for item in house.split(',') {
        f.apply_house(item).unwrap();
    }
    Rules::build(f).unwrap()
}

/// The log of one round of `random` at `n` seats, up to the play that ended
/// it (what follows a last card is carried out without asking anyone).
fn round_log(r: &Rules, n: usize, seed: u64, forced: bool) -> Vec<Log> {
    let log: Shared = Rc::default();
    let mut table = Logged {
        seats: (0..n)
            .map(|_| StrategySpec::load("random").unwrap().instantiate())
            .collect(),
        forced,
        log: log.clone(),
    };
    let (deal, agent_rng) = game_rngs(seed, 0);
    let mut g = Game::with_rng(r, n, deal);
    g.start_match(None);
    g.play_round(
        &mut Agents {
            seats: &mut table,
            rng: agent_rng,
        },
        &mut Events {
            log: log.clone(),
            cards: 0,
        },
    )
    .unwrap();
    let mut v = log.borrow().clone();
    if let Some(end) = v
        .iter()
        .position(|e| matches!(e, Log::Play { left: 0, .. }))
    {
        v.truncate(end + 1);
    }
    v
}

/// How often each rule was kept and broken over the logs: (kept, broken,
/// asks without a choice) per rule: stack answer, drawn card, jump-in.
fn check(logs: &[Vec<Log>], n: usize) -> [(u32, u32, u32); 3] {
    let mut out = [(0, 0, 0); 3];
    for log in logs {
        let last_ask = |i: usize| {
            log[..i].iter().rev().find_map(|e| match *e {
                Log::Ask { seat, kind, .. } => Some((seat, kind)),
                _ => None,
            })
        };
        for (i, e) in log.iter().enumerate() {
            match *e {
                Log::Ask { kind, choice, .. } if !choice => match kind {
                    DecisionKind::Stack => out[0].2 += 1,
                    DecisionKind::PlayDrawn => out[1].2 += 1,
                    DecisionKind::JumpIn => out[2].2 += 1,
                    _ => {}
                },
                // The seat a draw card hits answered the stack before drawing
                // (a start card's draw is the first player's, unasked by rule).
                Log::DrawEnd {
                    player,
                    reason: DrawReason::Draw2 | DrawReason::Draw4 | DrawReason::Stack,
                    ..
                } if log[..i].iter().any(|e| matches!(e, Log::Play { .. })) => {
                    if last_ask(i) == Some((player, DecisionKind::Stack)) {
                        out[0].0 += 1;
                    } else {
                        out[0].1 += 1;
                    }
                }
                // A turn's draw of a card is followed by the drawn card's question.
                Log::DrawEnd {
                    player,
                    reason: DrawReason::Turn,
                    cards: 1,
                } => {
                    let next = log.get(i + 1).and_then(|e| match *e {
                        Log::Ask { seat, kind, .. } => Some((seat, kind)),
                        _ => None,
                    });
                    if next == Some((player, DecisionKind::PlayDrawn)) {
                        out[1].0 += 1;
                    } else {
                        out[1].1 += 1;
                    }
                }
                // After a coloured card that is not the last, the others are
                // asked in turn, each once, until one jumps in.
                Log::Play {
                    player,
                    wild: false,
                    left,
                    ..
                } if left > 0 => {
                    let mut asked = Vec::new();
                    let mut jumped = false;
                    for e in &log[i + 1..] {
                        match *e {
                            Log::Ask {
                                seat,
                                kind: DecisionKind::JumpIn,
                                yes,
                                ..
                            } => {
                                asked.push(seat);
                                if yes {
                                    jumped = true;
                                    break;
                                }
                            }
                            Log::Ask { .. } | Log::Play { .. } | Log::DrawEnd { .. } => break,
                            Log::Other => {}
                        }
                    }
                    let mut seen = asked.clone();
                    seen.sort_unstable();
                    seen.dedup();
                    let distinct = seen.len() == asked.len() && !seen.contains(&player);
                    if distinct && (jumped || asked.len() == n - 1) {
                        out[2].0 += 1;
                    } else {
                        out[2].1 += 1;
                    }
                }
                _ => {}
            }
        }
    }
    out
}

#[test]
fn a_table_that_asks_forced_decisions_is_asked_whatever_the_hand() {
    let r = rules("stacking=cross,jump_in");
    for n in [2usize, 3, 4] {
        let logs = |forced| {
            (0..150u64)
                .map(|seed| round_log(&r, n, seed, forced))
                .collect::<Vec<_>>()
        };
        let asked = check(&logs(true), n);
        for (rule, (kept, broken, without)) in ["stack", "drawn card", "jump-in"].iter().zip(asked)
        {
            assert_eq!(broken, 0, "{rule} at {n} players: a seat was not asked");
            assert!(kept > 50, "{rule} at {n} players: {kept} cases");
            assert!(
                without > 20,
                "{rule} at {n} players: {without} asks without a choice"
            );
        }
        // A strategy table is asked only where it has a choice: being asked
        // would tell (the leak the forced questions close).
        let plain = check(&logs(false), n);
        for (rule, (_, broken, without)) in ["stack", "drawn card", "jump-in"].iter().zip(plain) {
            assert_eq!(without, 0, "{rule} at {n} players");
            assert!(broken > 20, "{rule} at {n} players: {broken}");
        }
    }
}

/// In the stepped environment (the learner at every seat, random legal
/// actions), a decision without a choice has its one answer as its only legal
/// action: take the draw, keep the drawn card, decline the jump-in. With
/// `ask_forced` off it never comes: every drawn-card and jump-in decision can
/// say yes, every stack decision can play.
#[test]
fn the_environment_asks_forced_decisions_with_their_one_answer() {
    let r = rules("stacking=cross,jump_in");
    for ask in [true, false] {
        let seats = (0..3)
            .map(|_| StrategySpec::load("random").unwrap().instantiate())
            .collect();
        let mut st = Stepper::new(&r, seats, 0b111, StepMode::Round, Reward::Win);
        st.set_ask_forced(ask);
        let mut forced = [0u32; 3];
        let mut step = 0usize;
        for seed in 0..100u64 {
            st.reset(seed).unwrap();
            while let Some(d) = st.decision() {
                let legal: Vec<usize> = st.legal().iter().collect();
                let only = |a: usize| legal == [a];
                match d.kind {
                    DecisionKind::Stack if d.cards.is_empty() => {
                        assert!(only(ACT_DRAW), "{legal:?}");
                        forced[0] += 1;
                    }
                    DecisionKind::PlayDrawn if d.cards.is_empty() => {
                        assert!(only(ACT_KEEP), "{legal:?}");
                        forced[1] += 1;
                    }
                    DecisionKind::JumpIn if d.cards.is_empty() => {
                        assert!(only(ACT_NO_JUMP), "{legal:?}");
                        forced[2] += 1;
                    }
                    DecisionKind::PlayDrawn => assert!(legal.contains(&ACT_PLAY_DRAWN)),
                    DecisionKind::JumpIn => assert!(legal.contains(&ACT_JUMP)),
                    _ => {}
                }
                step += 1;
                st.step(legal[step * 7919 % legal.len()]).unwrap();
            }
        }
        if ask {
            assert!(forced.iter().all(|&k| k > 20), "{forced:?}");
        } else {
            assert_eq!(forced, [0, 0, 0]);
        }
    }
}
