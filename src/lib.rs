//! unolab: a Monte Carlo strategy simulator and AI lab for UNO and its themed
//! editions.
//!
//! The folders are the layers, each depending only on those above it in this
//! list's reverse order:
//! - [`engine`]: [`engine::cards`] (vocabulary and the `u128` card set),
//!   [`engine::rules`] (rule sets as data), [`engine::game`] (the engine and the
//!   [`Observation`] a player gets), [`engine::trace`] (JSON Lines replays);
//! - [`agents`]: the [`Strategy`] trait's implementations (built-ins, presets);
//! - [`sim`]: the parallel runner, the lockstep (paired) runner and their
//!   exact, mergeable statistics;
//! - [`lab`]: experiment files and comparisons, tuning by simulation,
//!   tournaments and their ratings;
//! - [`report`]: text tables, JSON, CSV, manifests and charts;
//! - [`flags`], beside them: the command line's flags that the library's
//!   messages name, for front-ends that name their options otherwise.
//!
//! The library never prints and never reads arguments; the `unolab` binary
//! (`src/main.rs`, `src/cli/`) does.

#![allow(clippy::needless_range_loop)]

pub mod agents;
pub mod engine;
pub mod flags;
pub mod lab;
pub mod report;
pub mod sim;
pub mod suggest;

pub use agents::{Seat, StrategySpec};
pub use engine::cards::{CardId, CardSet, Color, Face, Kind};
pub use engine::game::{Game, MatchResult, Observation, Outcome, RoundResult};
pub use engine::rng::Rng;
pub use engine::rules::{RuleSetFile, Rules, Settings};
pub use engine::strategy::{Agents, Strategy};
