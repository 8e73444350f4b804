//! The engine: cards and the `u128` card set, rule sets as data, the game
//! itself (deal, turns, effects, house rules, scoring), the observation a
//! player gets, the decision interface it calls ([`strategy::Strategy`]) and
//! JSON Lines traces. Nothing here depends on the rest of the crate.

pub mod cards;
pub mod encode;
pub mod game;
pub mod render;
pub mod rlcard;
pub mod rng;
pub mod rules;
pub mod step;
pub mod trace;

/// The decision interface (defined with the game it is called from).
pub use game::strategy;
