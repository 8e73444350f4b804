//! Simulation: the parallel runner and its exact, mergeable statistics.

pub mod lockstep;
pub mod runner;
pub mod shard;
pub mod stats;

pub use runner::*;
