//! What a game produces: the events recorders hear (traces, tests), the
//! results of a round and of a match, and the illegal actions and faults a
//! strategy can commit.

use super::{Game, MAX_PLAYERS};
use crate::engine::cards::{CardId, Color};

/// Why cards were drawn (the `reason` of a trace `draw` line).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DrawReason {
    Turn,
    Draw2,
    Draw4,
    Stack,
    Downpour,
    Ohana,
    UnoPenalty,
    Challenge,
    WrongCard,
    Match,
}

impl DrawReason {
    pub fn name(self) -> &'static str {
        match self {
            DrawReason::Turn => "turn",
            DrawReason::Draw2 => "draw2",
            DrawReason::Draw4 => "draw4",
            DrawReason::Stack => "stack",
            DrawReason::Downpour => "downpour",
            DrawReason::Ohana => "ohana",
            DrawReason::UnoPenalty => "uno_penalty",
            DrawReason::Challenge => "challenge",
            DrawReason::WrongCard => "wrong_card",
            DrawReason::Match => "match",
        }
    }
}

/// An illegal action a strategy returned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IllegalAction {
    /// Played a card that is not playable (or not in the hand).
    Play(CardId),
    /// Drew while a rule required a play.
    Draw,
    /// Answered a stack with a card that cannot answer it.
    Answer(CardId),
    /// Chose a seat that is not an opponent as the target of a swap.
    Target(u8),
}

/// How a round ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    Won,
    Blocked,
    Truncated,
}

impl Outcome {
    pub fn name(self) -> &'static str {
        match self {
            Outcome::Won => "won",
            Outcome::Blocked => "blocked",
            Outcome::Truncated => "truncated",
        }
    }
}

/// Something that happened, in order. Recorders (traces, tests) receive these
/// with the state as it is right after the event.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Event<'a> {
    /// A round was dealt (read hands and draw pile from the state).
    Deal {
        round: u32,
        dealer: u8,
    },
    /// A start card was turned; when `returned` it went back into the pile.
    Flip {
        card: CardId,
        returned: bool,
    },
    /// A colour was named for a start wild.
    Color {
        player: u8,
        color: Color,
    },
    Play {
        player: u8,
        card: CardId,
        color: Color,
        uno: bool,
        jump_in: bool,
        target: Option<u8>,
    },
    /// One card drawn; consecutive cards of one draw end with [`Event::DrawEnd`].
    Draw {
        player: u8,
        card: CardId,
        reason: DrawReason,
    },
    /// The end of one draw action (possibly of zero cards).
    DrawEnd {
        player: u8,
        reason: DrawReason,
    },
    Pass {
        player: u8,
    },
    Skip {
        player: u8,
    },
    UnoCaught {
        player: u8,
    },
    Challenge {
        challenger: u8,
        target: u8,
        guilty: bool,
    },
    Swap {
        a: u8,
        b: u8,
    },
    Rotate {
        direction: i8,
    },
    /// The discard pile (less its top) became the draw pile (read it from the state).
    Reshuffle,
    Illegal {
        player: u8,
        action: IllegalAction,
    },
    RoundEnd {
        result: &'a RoundResult,
        totals: &'a [i64],
    },
}

/// Receives every event of a game. The no-op implementation compiles away.
pub trait Recorder {
    fn on(&mut self, game: &Game, event: Event<'_>);
}

/// Records nothing.
pub struct NoRecord;

impl Recorder for NoRecord {
    #[inline(always)]
    fn on(&mut self, _: &Game, _: Event<'_>) {}
}

/// What one round produced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RoundResult {
    pub round: u32,
    pub outcome: Outcome,
    pub winner: Option<u8>,
    pub dealer: u8,
    /// The seat that took the first turn.
    pub first_player: u8,
    /// The direction of play at the first turn (+1 clockwise, -1 after a start
    /// Reverse), so that positions can be counted in order of play.
    pub first_direction: i8,
    /// Points scored by each seat this round (winner scoring: only the winner;
    /// penalty scoring: each seat's own hand).
    pub points: [u32; MAX_PLAYERS],
    pub turns: u32,
    pub cards_drawn: u32,
    pub uno_penalties: u32,
    /// Illegal actions per seat.
    pub illegal: [u32; MAX_PLAYERS],
}

/// What one match produced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MatchResult {
    /// Winning seat; `None` when tied, or in quick play when the round ended
    /// blocked or truncated (no one went out).
    pub winner: Option<u8>,
    /// Two or more seats share the best total (no winner). Quick play is never
    /// tied: without a winner its round ended blocked or truncated.
    pub tied: bool,
    /// Stopped by the `max_rounds` cap before anyone reached the target (or
    /// the round count): the winner, or the tie, is that of the totals at
    /// the cap, not of a finished match.
    pub capped: bool,
    pub totals: [i64; MAX_PLAYERS],
    pub rounds: u32,
}

/// A strategy broke a rule under `strict = true`, or failed ([`Strategy::fault`](super::Strategy::fault):
/// an external program that died, went silent or broke the protocol).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", self.message())]
pub struct IllegalActionError {
    pub strategy: String,
    pub seat: u8,
    pub round: u32,
    /// The illegal action, or for a fault what went wrong.
    pub action: String,
    /// True for a fault of the strategy rather than an illegal action.
    pub fault: bool,
}

impl IllegalActionError {
    fn message(&self) -> String {
        let IllegalActionError {
            strategy,
            seat,
            round,
            action,
            fault,
        } = self;
        if *fault {
            format!("strategy '{strategy}' at seat {seat} failed in round {round}: {action}")
        } else {
            format!("strategy '{strategy}' at seat {seat} made an illegal action ({action}) in round {round}")
        }
    }
}
