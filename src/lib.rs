//! unolab: a Monte Carlo strategy simulator and AI lab for UNO and its themed
//! editions.
//!
//! Layers, from the bottom: [`cards`] (vocabulary and the `u128` card set),
//! [`rules`] (rule sets as data), [`game`] (the engine), [`strategy`] (players),
//! [`trace`] (JSON Lines replays), [`stats`] and [`sim`] (the parallel runner),
//! [`report`] (tables and files). The library never prints and never reads
//! arguments; the `unolab` binary does.

#![allow(clippy::needless_range_loop)]

pub mod cards;
pub mod game;
pub mod report;
pub mod rules;
pub mod sim;
pub mod stats;
pub mod strategy;
pub mod trace;

pub use cards::{CardId, CardSet, Color, Face, Kind};
pub use game::{Agents, Game, MatchResult, Observation, Outcome, Rng, RoundResult};
pub use rules::{RuleSetFile, Rules, Settings};
pub use strategy::{Seat, Strategy, StrategySpec};
