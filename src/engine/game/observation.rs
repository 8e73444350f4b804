//! The observation: what a player at the table can see, and nothing else.

use super::Game;
use crate::engine::cards::{CardId, CardSet, Color};
use crate::engine::rules::{Rules, Settings};

/// What a player at the table can see: their own hand, the top card and active
/// colour, the direction, every hand's size, the draw pile's size, the discard
/// pile's contents, the totals and the settings. Never another hand or the pile
/// order.
#[derive(Clone, Copy)]
pub struct Observation<'a> {
    pub(super) g: &'a Game<'a>,
    pub(super) seat: u8,
}

impl<'a> Observation<'a> {
    /// What `seat` sees of `game`.
    pub fn of(game: &'a Game<'a>, seat: u8) -> Observation<'a> {
        assert!(
            (seat as usize) < game.players(),
            "seat {seat} is not at the table"
        );
        Observation { g: game, seat }
    }

    /// What another seat of the same table sees at the same moment. For the
    /// engine's own tools (the stepper's views of every seat); strategies,
    /// outside the engine, cannot reach it.
    pub(in crate::engine) fn of_seat(&self, seat: u8) -> Observation<'a> {
        Observation::of(self.g, seat)
    }

    /// The observing seat.
    pub fn seat(&self) -> u8 {
        self.seat
    }
    pub fn players(&self) -> usize {
        self.g.n as usize
    }
    pub fn hand(&self) -> CardSet {
        self.g.hands[self.seat as usize]
    }
    pub fn top(&self) -> CardId {
        self.g.top
    }
    /// The active colour as the table holds it: while a wild start card's
    /// colour is not yet named (the first turn's colour decision), the
    /// table's starting colour, red, which the features encode too (see
    /// [`Observation::named_color`]).
    pub fn color(&self) -> Color {
        self.g.color
    }
    /// The active colour, `None` while a wild start card's colour is not yet
    /// named: what a player at the table would say the colour is.
    pub fn named_color(&self) -> Option<Color> {
        let unnamed = self.g.turns == 0 && self.g.rules.deck.color(self.g.top).is_none();
        (!unnamed).then_some(self.g.color)
    }
    pub fn direction(&self) -> i8 {
        self.g.dir
    }
    pub fn hand_size(&self, seat: usize) -> usize {
        self.g.hands[seat].len() as usize
    }
    pub fn draw_pile_len(&self) -> usize {
        self.g.pile.len as usize
    }
    pub fn discard(&self) -> CardSet {
        self.g.discard
    }
    pub fn totals(&self) -> &[i64] {
        self.g.totals()
    }
    pub fn settings(&self) -> &Settings {
        self.g.s
    }
    pub fn rules(&self) -> &Rules {
        self.g.rules
    }
    /// The draw total pending at the table (stacking, challenge), else 0: at
    /// a `stack` or `challenge` decision the one aimed at the player to move;
    /// at another (a `jump_in`, a colour) the one still pending, which need
    /// not be the deciding seat's.
    pub fn pending_draw(&self) -> u32 {
        self.g.pending
    }
    pub fn round(&self) -> u32 {
        self.g.round
    }
    pub fn turns(&self) -> u32 {
        self.g.turns
    }
    /// The seat `k` places from the observer in the direction of play.
    pub fn seat_after(&self, k: u8) -> u8 {
        self.g.step(self.seat, k)
    }
    /// The cards of the observer's hand that are playable now.
    pub fn playable(&self) -> CardSet {
        self.g.playable(self.hand())
    }
}
