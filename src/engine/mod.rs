//! The engine: cards and the `u128` card set, rule sets as data, the game
//! itself (deal, turns, effects, house rules, scoring), the observation a
//! player gets, and JSON Lines traces.

pub mod cards;
pub mod game;
pub mod rules;
pub mod trace;
