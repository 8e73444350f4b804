//! Strategies: the implementations of the engine's decision interface
//! ([`crate::engine::strategy::Strategy`]), each seeing only its
//! [`crate::engine::game::Observation`].
//!
//! - [`builtin`]: `random` and `first`;
//! - [`heuristic`]: the parametric heuristic behind the shipped presets;
//! - [`human`]: what a person types at the table (`unolab play`), read as answers;
//! - [`search`]: the search agents `pimc` and `ismcts`;
//! - [`net`]: the network policy (`base = "net"`);
//! - [`external`]: a program in any language over JSON Lines;
//! - [`seat`]: the runner's seat type, with static dispatch of the built-ins;
//! - [`preset`]: the strategy preset file and its checks;
//! - [`spec`]: strategies by name (preset files, built-ins) and line-ups;
//! - [`whole`]: a preset's whole numbers, read in the field's own range.

pub mod builtin;
pub mod external;
mod fair;
pub mod heuristic;
pub mod human;
pub mod net;
pub mod preset;
pub mod search;
pub mod seat;
pub mod spec;
pub mod whole;

pub use builtin::{FirstStrategy, RandomStrategy};
pub use fair::{check_fair, OracleAllowedBy};
pub use heuristic::{Heuristic, HeuristicParams};
pub use seat::{HookAt, Hooked, Seat};
pub use spec::{
    builtin_names, catalog, lineup_seats, parse_list, parse_list_with, search_defaults,
    CatalogEntry, CustomSpec, PresetFile, StrategyError, StrategySpec,
};
