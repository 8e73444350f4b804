pub mod cards;
pub mod game;
pub mod rules;
pub mod stats;
pub mod strategy;

pub use cards::{CardId, CardSet, Color, Face, Kind};
pub use game::{Agents, Game, MatchResult, Observation, Outcome, RoundResult, Rng};
pub use rules::{Rules, RuleSetFile, Settings};
pub use strategy::{Strategy, StrategySpec};
