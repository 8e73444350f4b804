//! The lab: experiments as files (arms, baseline, stopping rule) and the
//! one-line A/B comparison, on top of the lockstep runner in [`crate::sim`];
//! tuning a parametric strategy by simulation ([`tune`]), tournaments between
//! any strategies ([`tournament`]) and the ratings fitted from their results
//! ([`ratings`]).
//!
//! Tuning and tournaments play rounds on the same engine core as the runner,
//! with game `i` drawing its randomness from the master seed and `i` alone
//! ([`game_rngs`]), so every result is the same on any number of threads.

pub mod compare;
pub mod experiment;
pub mod ladder;
pub mod options;
pub mod ratings;
pub mod shard;
pub mod tournament;
pub mod train;
pub mod tune;

pub use experiment::Experiment;

use crate::agents::StrategyError;
use crate::engine::rules::RulesError;

/// Why a configuration of the lab (a comparison's arm, a ladder) cannot be
/// played: a rule set or a strategy that cannot be loaded (kept typed: a
/// missing file is not a bad value), or a configuration that is not one.
#[derive(Debug)]
pub enum ConfigError {
    Rules(RulesError),
    Strategy(StrategyError),
    Invalid(String),
    /// The error of one part, named first (an arm: "B: ...").
    In(String, Box<ConfigError>),
}

impl ConfigError {
    /// The error of the part `name`.
    pub fn within(self, name: &str) -> ConfigError {
        ConfigError::In(name.to_string(), Box::new(self))
    }

    /// Why a rule-set or preset file could not be read (missing, a
    /// folder, not allowed), if that is the error: a front end names the
    /// cause by it.
    pub fn unread(&self) -> Option<std::io::ErrorKind> {
        match self {
            ConfigError::Rules(RulesError::Io(_, why)) => Some(why.kind),
            ConfigError::Strategy(e) => e.unread(),
            ConfigError::In(_, e) => e.unread(),
            _ => None,
        }
    }
}

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ConfigError::Rules(e) => e.fmt(f),
            ConfigError::Strategy(e) => e.fmt(f),
            ConfigError::Invalid(m) => f.write_str(m),
            ConfigError::In(name, e) => write!(f, "{name}: {e}"),
        }
    }
}

/// Whether `name` may name a file or a folder the lab writes (an
/// experiment's or a ladder's results folder, a tuned or trained preset):
/// not empty, only ASCII letters, digits, '-' and '_', and with `dots` also
/// '.' after the first character. Nothing a path, a shell or a TOML string
/// would read otherwise (no '/', '..', quote or backslash).
pub fn plain_name(name: &str, dots: bool) -> bool {
    !name.is_empty()
        && !name.starts_with('.')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_' || (dots && c == '.'))
}

use crate::agents::{Seat, StrategySpec};
use crate::engine::game::{game_rngs, Agents, Game, IllegalActionError, NoRecord, RoundResult};
use crate::engine::strategy::Table;
use std::sync::Arc;

/// A strategy that can take seats: a name and a factory making a fresh
/// instance for each seat. Built from a [`StrategySpec`] (built-ins, presets)
/// or from any Rust [`crate::Strategy`] (see `examples/`).
#[derive(Clone)]
pub struct Entrant {
    name: String,
    make: Arc<dyn Fn() -> Seat + Send + Sync>,
    /// The perfect-information reference (`base = "oracle"`).
    oracle: bool,
    /// An external program ([`StrategySpec::is_external`]).
    program: bool,
    /// What it is, for one built from a [`StrategySpec`]
    /// ([`StrategySpec::to_json`]).
    description: Option<serde_json::Value>,
}

impl Entrant {
    /// An entrant from a factory, e.g. `Entrant::new("mine", || Seat::custom(Mine))`.
    pub fn new(name: impl Into<String>, make: impl Fn() -> Seat + Send + Sync + 'static) -> Self {
        Entrant {
            name: name.into(),
            make: Arc::new(make),
            oracle: false,
            program: false,
            description: None,
        }
    }

    /// An entrant for a built-in strategy or preset.
    pub fn from_spec(spec: &StrategySpec) -> Self {
        let s = spec.clone();
        Entrant {
            oracle: spec.is_oracle(),
            program: spec.is_external(),
            description: Some(spec.to_json()),
            ..Entrant::new(spec.name(), move || s.instantiate())
        }
    }

    /// What it is (name, base, parameters), for one built from a
    /// [`StrategySpec`]; `None` for one built from a factory.
    pub fn description(&self) -> Option<&serde_json::Value> {
        self.description.as_ref()
    }

    /// Whether it is the perfect-information reference (`base = "oracle"`).
    pub fn is_oracle(&self) -> bool {
        self.oracle
    }

    /// Whether it is an external program, which the signal that stops the
    /// work can end too.
    pub fn is_program(&self) -> bool {
        self.program
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// A fresh instance for one seat.
    pub fn make(&self) -> Seat {
        (self.make)()
    }
}

impl std::fmt::Debug for Entrant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.name)
    }
}

/// Plays game `index` of master seed `seed` as one round with `seats` at the
/// table (any [`Table`]: a slice of seats, of labelling strategies, ...),
/// exactly as the runner does in round mode (lazy pile, the same two
/// generators), and returns the round's result.
pub fn play_round<T: Table + ?Sized>(
    game: &mut Game,
    seats: &mut T,
    seed: u64,
    index: u64,
) -> Result<RoundResult, IllegalActionError> {
    let (table, agent_rng) = game_rngs(seed, index);
    game.set_rng(table);
    let mut agents = Agents {
        seats,
        rng: agent_rng,
    };
    game.start_match(None);
    game.play_round(&mut agents, &mut NoRecord)
}

/// A fresh game for round-mode play through [`play_round`].
pub fn new_game(rules: &crate::engine::rules::Rules, players: usize) -> Game<'_> {
    let mut g = Game::new(rules, players, 0);
    g.set_lazy_pile(true);
    g
}
