//! A round and a match: the round loop (one compiled variant per kind of
//! turn logic), how a round ends and is scored, the notices strategies hear,
//! strict-mode errors and faults, and the match to its target.

use super::strategy::Table;
use super::{
    below, Agents, Event, Flow, Game, IllegalAction, IllegalActionError, MatchResult, Outcome,
    Recorder, RoundResult, Tracking, MAX_PLAYERS,
};
use crate::engine::cards::CardSet;
use crate::engine::rules::{Dealer, DrawnCard, Scoring, Stacking};

/// Where a round begun with [`Game::begin_round`] starts: what
/// [`Game::end_round`] records in the [`RoundResult`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RoundStart {
    /// The seat that takes the first turn.
    pub first_player: u8,
    /// The direction of play at the first turn.
    pub first_direction: i8,
}

/// How one turn played with [`Game::play_turn`] ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TurnEnd {
    /// The round goes on with this seat's turn.
    Next(u8),
    /// The round is over: how it ended, and the last player (the winner of
    /// a won round). A strict-mode error ends it `Blocked` with the error
    /// kept for [`Game::end_round`].
    Over(Outcome, u8),
}

/// A match that [`Game::after_round`] ended, for [`Game::end_match`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MatchEnd {
    quick_winner: Option<u8>,
    /// Ended by `max_rounds` (the safety cap), neither target nor round
    /// count reached.
    capped: bool,
}

impl<'r> Game<'r> {
    /// Whether any house rule is on, or `wild_when_matching = false` (the
    /// turn logic is compiled with and without their checks).
    #[inline]
    pub(super) fn uses_house_rules(&self) -> bool {
        let st = self.s;
        st.stacking != Stacking::Off
            || st.draw_to_match
            || self.must_play
            || st.seven_o
            || st.jump_in
            || st.bluff_challenge
            || self.tracking != Tracking::Off
            || self.matching_variant()
    }

    /// Whether the turn logic needs the matching restrictions of
    /// [`Game::forbidden`] (`wild_when_matching = false` or
    /// `wd4_last_resort`) or RLCard's drawn-card reading: the `W` variant,
    /// compiled only with `H`, so that the other rule sets do not pay for
    /// their checks.
    #[inline]
    pub(super) fn matching_variant(&self) -> bool {
        !self.s.wild_when_matching
            || self.s.wd4_last_resort
            || self.s.drawn_card != DrawnCard::Choice
    }

    /// Plays the turns of a round from `cur`'s turn until it ends; returns
    /// how it ended and the last player (the winner of a won round). A
    /// strict-mode error ends it blocked, with `error` set.
    #[inline(always)]
    pub(super) fn turns_of_round<R: Recorder, T: Table + ?Sized>(
        &mut self,
        cur: u8,
        agents: &mut Agents<T>,
        rec: &mut R,
    ) -> (Outcome, u8) {
        // The turn logic is compiled three times: without house-rule checks
        // for rule sets that use none (the common, fast case), with them, and
        // with them and the matching restriction (`wild_when_matching = false`),
        // each in a loop of its own (choosing inside one loop measured 3% slower).
        if !self.uses_house_rules() {
            self.turn_loop::<false, false, R, T>(cur, agents, rec)
        } else if !self.matching_variant() {
            self.turn_loop::<true, false, R, T>(cur, agents, rec)
        } else {
            self.turn_loop::<true, true, R, T>(cur, agents, rec)
        }
    }

    /// The loop of [`Game::turns_of_round`] for one variant of the turn logic.
    /// Never inlined: each variant is a function of its own, as the runner's
    /// speed was measured with (inlined into `play_round` it ran 1.6% more
    /// instructions under callgrind).
    #[inline(never)]
    pub(super) fn turn_loop<const H: bool, const W: bool, R: Recorder, T: Table + ?Sized>(
        &mut self,
        mut cur: u8,
        agents: &mut Agents<T>,
        rec: &mut R,
    ) -> (Outcome, u8) {
        let max_turns = self.s.max_turns;
        // Bound: every iteration is a turn (`normal_turn` counts it, and the
        // round stops at `max_turns`) or the lost turn of a pending draw, which
        // settles the draw so that the next iteration is a turn: at most
        // 2 x max_turns + 1 iterations. A turn's inner loops are bounded too
        // (draws by the cards there are, jump-ins by `jump_in_limit`).
        loop {
            if self.turns >= max_turns {
                return (Outcome::Truncated, cur);
            }
            match self.turn::<H, W, R, T>(cur, agents, rec) {
                Flow::Next(next) => cur = next,
                Flow::Out(w) => return (Outcome::Won, w),
            }
            // One flag for the two rare stops: a strict-mode error, or a
            // whole table round of passes without a card to draw.
            if self.halt {
                // A strict-mode error leaves the loop here and is returned
                // by the caller. (Returning it from inside the loop measured
                // 3% slower: the hot loop's code layout is that sensitive.)
                if let Some(o) = self.halt_outcome() {
                    return (o, cur);
                }
            }
        }
    }

    /// With `halt` set: how the round ends, if it does (a strict-mode error
    /// or a fault leaves it blocked, a whole table of passes blocks it, the
    /// jump-in bound truncates it); `None` to play on.
    #[inline(always)]
    pub(super) fn halt_outcome(&self) -> Option<Outcome> {
        if self.error.is_some() || self.idle >= self.n as u32 {
            Some(Outcome::Blocked)
        } else if self.jump_ins >= self.jump_in_limit() {
            Some(Outcome::Truncated)
        } else {
            None
        }
    }

    /// Plays one round from the deal to its end. `Err` only in strict mode.
    pub fn play_round<R: Recorder, T: Table + ?Sized>(
        &mut self,
        agents: &mut Agents<T>,
        rec: &mut R,
    ) -> Result<RoundResult, IllegalActionError> {
        let start = self.begin_round(agents, rec);
        let (outcome, last) = self.turns_of_round(start.first_player, agents, rec);
        self.end_round(start, outcome, last, agents)
    }

    /// Deals a round and turns the start card (its effect included, a start
    /// wild's colour asked of the player left of the dealer): the first half
    /// of [`Game::play_round`], for playing a round one turn at a time with
    /// [`Game::play_turn`] and [`Game::end_round`].
    pub fn begin_round<R: Recorder, T: Table + ?Sized>(
        &mut self,
        agents: &mut Agents<T>,
        rec: &mut R,
    ) -> RoundStart {
        self.skip_ask = 0;
        self.forced_ask = 0;
        self.tracking = Tracking::Off;
        for i in 0..self.n {
            if !agents.seats.ask_without_choice(i) {
                self.skip_ask |= 1 << i;
            }
            if agents.seats.asks_forced(i) {
                self.forced_ask |= 1 << i;
            }
            self.tracking = self.tracking.max(agents.seats.notes(i));
        }
        let first_player = self.setup_round(agents, rec);
        RoundStart {
            first_player,
            first_direction: self.dir,
        }
    }

    /// Plays the turn of `cur` (a round begun with [`Game::begin_round`]):
    /// the same checks, in the same order, as one step of the round loop of
    /// [`Game::play_round`].
    pub fn play_turn<R: Recorder, T: Table + ?Sized>(
        &mut self,
        cur: u8,
        agents: &mut Agents<T>,
        rec: &mut R,
    ) -> TurnEnd {
        if self.turns >= self.s.max_turns {
            return TurnEnd::Over(Outcome::Truncated, cur);
        }
        let flow = if !self.uses_house_rules() {
            self.turn::<false, false, R, T>(cur, agents, rec)
        } else if !self.matching_variant() {
            self.turn::<true, false, R, T>(cur, agents, rec)
        } else {
            self.turn::<true, true, R, T>(cur, agents, rec)
        };
        let next = match flow {
            Flow::Next(next) => next,
            Flow::Out(w) => return TurnEnd::Over(Outcome::Won, w),
        };
        if self.halt {
            if let Some(o) = self.halt_outcome() {
                return TurnEnd::Over(o, next);
            }
        }
        TurnEnd::Next(next)
    }

    /// Ends a round: scores it, adds the points to the totals and tells the
    /// strategies that hear notices; the second half of
    /// [`Game::play_round`]. `last` is the winner of a won round. `Err` in
    /// strict mode or for a faulted strategy.
    pub fn end_round<T: Table + ?Sized>(
        &mut self,
        start: RoundStart,
        outcome: Outcome,
        last: u8,
        agents: &mut Agents<T>,
    ) -> Result<RoundResult, IllegalActionError> {
        if let Some((seat, action)) = self.error {
            if let Some(e) = self.first_fault(agents) {
                return Err(e);
            }
            return Err(self.strict_error(seat, action, agents));
        }
        let mut points = [0u32; MAX_PLAYERS];
        let winner = if outcome == Outcome::Won {
            Some(last)
        } else {
            None
        };
        if let Some(w) = winner {
            let d = &self.rules.deck;
            match self.s.scoring {
                Scoring::Winner => {
                    points[w as usize] =
                        // The hands are disjoint: score their union at once.
                        d.points(
                            self.hands[..self.n as usize]
                                .iter()
                                .fold(CardSet::EMPTY, |u, &h| u | h),
                        );
                }
                Scoring::Penalty => {
                    for i in 0..self.n as usize {
                        points[i] = d.points(self.hands[i]);
                    }
                }
            }
        }
        for i in 0..self.n as usize {
            self.totals[i] += points[i] as i64;
        }
        let result = RoundResult {
            round: self.round,
            outcome,
            winner,
            dealer: self.dealer,
            first_player: start.first_player,
            first_direction: start.first_direction,
            points,
            turns: self.turns,
            cards_drawn: self.drawn.iter().sum(),
            uno_penalties: self.uno_penalties,
            illegal: self.illegal,
        };
        if (0..self.n).any(|i| agents.seats.hears_notices(i)) {
            if let Some(e) = self.round_end_notices(&result, agents) {
                return Err(e);
            }
        }
        Ok(result)
    }

    #[cold]
    pub(super) fn strict_error<T: Table + ?Sized>(
        &self,
        seat: u8,
        action: IllegalAction,
        agents: &Agents<T>,
    ) -> IllegalActionError {
        let d = &self.rules.deck;
        let action = match action {
            IllegalAction::Play(c) => format!("play {}", d.token(c)),
            IllegalAction::Draw => "draw while a play is required".to_string(),
            IllegalAction::Answer(c) => format!("answer a stack with {}", d.token(c)),
            IllegalAction::Target(t) => format!("target seat {t}"),
        };
        IllegalActionError {
            strategy: agents.seats.name(seat).to_string(),
            seat,
            round: self.round,
            action,
            fault: false,
        }
    }

    /// Tells the custom strategies that the round ended, then returns the
    /// first fault of any seat (see [`Strategy::fault`]).
    #[cold]
    pub(super) fn round_end_notices<T: Table + ?Sized>(
        &self,
        result: &RoundResult,
        agents: &mut Agents<T>,
    ) -> Option<IllegalActionError> {
        for p in 0..self.n {
            agents.seats.round_end(p, &self.obs(p), result);
        }
        self.first_fault(agents)
    }

    #[cold]
    pub(super) fn first_fault<T: Table + ?Sized>(
        &self,
        agents: &mut Agents<T>,
    ) -> Option<IllegalActionError> {
        for p in 0..self.n {
            if let Some(action) = agents.seats.fault(p) {
                return Some(IllegalActionError {
                    strategy: agents.seats.name(p).to_string(),
                    seat: p,
                    round: self.round,
                    action,
                    fault: true,
                });
            }
        }
        None
    }

    /// Plays a whole match: rounds until the target, the round count, quick play
    /// or `max_rounds`. Calls `on_round` after each round.
    pub fn play_match<R: Recorder, T: Table + ?Sized>(
        &mut self,
        agents: &mut Agents<T>,
        rec: &mut R,
        mut on_round: impl FnMut(&RoundResult),
    ) -> Result<MatchResult, IllegalActionError> {
        self.start_match(None);
        // Bound: `max_rounds` rounds (validated to be at least 1), each bounded.
        loop {
            let r = self.play_round(agents, rec)?;
            rec.on(
                self,
                Event::RoundEnd {
                    result: &r,
                    totals: &self.totals[..self.n as usize],
                },
            );
            on_round(&r);
            if let Some(end) = self.after_round(&r) {
                return self.end_match(end, agents);
            }
        }
    }

    /// After a round of a match: `Some` when the match is over (quick play,
    /// the target, the round count or `max_rounds`), else the deal passes
    /// left for the next round.
    pub fn after_round(&mut self, r: &RoundResult) -> Option<MatchEnd> {
        if self.s.quick {
            return Some(MatchEnd {
                quick_winner: r.winner,
                capped: false,
            });
        }
        let reached = self.s.target > 0
            && self.totals[..self.n as usize]
                .iter()
                .any(|&t| t >= self.s.target as i64);
        let counted = self.s.rounds > 0 && self.round >= self.s.rounds;
        if reached || counted || self.round >= self.s.max_rounds {
            return Some(MatchEnd {
                quick_winner: None,
                capped: !reached && !counted,
            });
        }
        self.dealer = (self.dealer + 1) % self.n;
        None
    }

    /// The result of a match that [`Game::after_round`] ended; tells every
    /// strategy. `Err` for a faulted strategy.
    pub fn end_match<T: Table + ?Sized>(
        &mut self,
        end: MatchEnd,
        agents: &mut Agents<T>,
    ) -> Result<MatchResult, IllegalActionError> {
        let totals = &self.totals[..self.n as usize];
        let mut tied = false;
        let winner = if self.s.quick {
            end.quick_winner
        } else {
            let best = match self.s.scoring {
                Scoring::Winner => *totals.iter().max().unwrap(),
                Scoring::Penalty => *totals.iter().min().unwrap(),
            };
            let mut it = totals.iter().enumerate().filter(|(_, &t)| t == best);
            let first = it.next().map(|(i, _)| i as u8);
            if it.next().is_some() {
                tied = true;
                None
            } else {
                first
            }
        };
        let result = MatchResult {
            winner,
            tied,
            capped: end.capped,
            totals: self.totals,
            rounds: self.round,
        };
        for p in 0..self.n {
            agents.seats.match_end(p, &self.obs(p), &result);
        }
        if let Some(e) = self.first_fault(agents) {
            return Err(e);
        }
        Ok(result)
    }

    /// Sets the dealer and resets totals, for playing single rounds with
    /// [`Game::play_round`] (the runner's round mode).
    pub fn start_match(&mut self, dealer: Option<u8>) {
        self.totals = [0; MAX_PLAYERS];
        self.round = 0;
        self.dealer = match (dealer, self.s.dealer) {
            (Some(d), _) => d % self.n,
            (None, Dealer::Seat(s)) => s % self.n,
            (None, Dealer::Random) => below(&mut self.rng, self.n as u32) as u8,
        };
    }
}
