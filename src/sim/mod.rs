//! Simulation: the parallel runner and its exact, mergeable statistics.

mod checks;
pub mod lockstep;
pub mod runner;
pub mod shard;
pub mod stats;

pub use runner::*;
