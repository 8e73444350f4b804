//! Playing a round on from a decision in progress, for search agents.
//!
//! A search agent is asked for a decision from inside the turn loop. To try an
//! action it takes a determinized copy of the game ([`Game::determinize`]) and
//! plays the round on from exactly the point where it was asked, with rollout
//! seats whose seat of the deciding player answers that decision first (the
//! agent's own wrapper does that). [`Game::resume_round`] re-enters the turn
//! loop at that point; nothing here allocates.

use super::strategy::Table;
use super::{Agents, Event, Flow, Game, Outcome, Recorder, MAX_PLAYERS};
use crate::engine::cards::CardId;
use crate::engine::rules::Scoring;

/// Records nothing, like [`super::NoRecord`], but a type of its own: the turn
/// functions compiled for simulations are separate copies, so the runner's
/// copies keep a single caller and the compiler's inlining choices for them
/// do not change.
struct Quiet;

impl Recorder for Quiet {
    #[inline(always)]
    fn on(&mut self, _: &Game, _: Event<'_>) {}
}

/// Where the decision at hand sits in the round, so that the round can be
/// re-entered there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResumeAt {
    /// `choose_play` of a turn (the turn counter already counts this turn):
    /// the turn is replayed from its start, which asks `choose_play` again.
    Play,
    /// The start of a turn with a pending draw (`challenge`, `answer_stack`):
    /// the turn is replayed from its start (a declined challenge changed
    /// nothing, so the challenge is asked again and must be declined again).
    Pending,
    /// `play_drawn` for this card, just drawn and playable.
    Drawn(CardId),
    /// `choose_color` for a wild start card (before the first turn).
    StartColor,
}

/// What a played-out round produced, for a search agent's reward.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Playout {
    /// The seat that went out (`None`: blocked or truncated).
    pub winner: Option<u8>,
    /// Points scored by each seat (as [`super::RoundResult::points`]).
    pub points: [u32; MAX_PLAYERS],
    /// The points of each hand at the end of the round.
    pub hand_points: [u32; MAX_PLAYERS],
    /// An illegal action under `strict = true` ended the round (a bug in a
    /// rollout seat: search agents only ever return legal actions).
    pub illegal: bool,
}

impl<'r> Game<'r> {
    /// Plays the round on from the decision of `seat` described by `at`, with
    /// the strategies of `agents` (the seat of `seat` must answer the decision
    /// at hand first), and returns its result. The totals are not updated.
    pub fn resume_round<T: Table + ?Sized>(
        &mut self,
        seat: u8,
        at: ResumeAt,
        agents: &mut Agents<T>,
    ) -> Playout {
        let rec = &mut Quiet;
        self.skip_ask = 0;
        // Rollout seats are asked only where they have a choice.
        self.forced_ask = 0;
        for i in 0..self.n {
            if !agents.seats.ask_without_choice(i) {
                self.skip_ask |= 1 << i;
            }
        }
        self.error = None;
        self.halt = false;
        // Simulations note nothing for their seats (the rollout policies
        // read no notes): the turn logic's variant is the rules' own.
        self.tracking = super::Tracking::Off;
        let house = self.uses_house_rules();
        let p = seat;
        // The first step: finish the decision at hand.
        let first = match at {
            ResumeAt::Play => {
                self.turns -= 1;
                None
            }
            ResumeAt::Pending => None,
            ResumeAt::Drawn(c) => {
                let play = self.can_play::<true>(self.hands[p as usize & 15], c)
                    && (self.s.force_play
                        || agents.seats.play_drawn(p, &self.obs(p), c, &mut agents.rng));
                Some(if play {
                    if house {
                        self.play::<true, Quiet, T>(p, c, false, false, agents, rec)
                    } else {
                        self.play::<false, Quiet, T>(p, c, false, false, agents, rec)
                    }
                } else {
                    Flow::Next(self.step(p, 1))
                })
            }
            ResumeAt::StartColor => {
                let col = agents.seats.choose_color(p, &self.obs(p), &mut agents.rng);
                self.set_color(col);
                None
            }
        };
        let mut cur = p;
        let mut won = false;
        match first {
            Some(Flow::Out(w)) => {
                cur = w;
                won = true;
            }
            Some(Flow::Next(next)) => cur = next,
            None => {}
        }
        if !won && self.error.is_none() {
            let outcome;
            (outcome, cur) = self.turns_of_round(cur, agents, rec);
            won = outcome == Outcome::Won;
        }
        let d = &self.rules.deck;
        let mut hand_points = [0u32; MAX_PLAYERS];
        for i in 0..self.n as usize {
            hand_points[i] = d.points(self.hands[i]);
        }
        let mut points = [0u32; MAX_PLAYERS];
        let winner = if won && self.error.is_none() {
            Some(cur)
        } else {
            None
        };
        if let Some(w) = winner {
            match self.s.scoring {
                Scoring::Winner => points[w as usize] = hand_points[..self.n as usize].iter().sum(),
                Scoring::Penalty => points = hand_points,
            }
        }
        Playout {
            winner,
            points,
            hand_points,
            illegal: self.error.is_some(),
        }
    }
}
