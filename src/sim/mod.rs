//! Simulation: the parallel runner and its exact, mergeable statistics.

mod checks;
pub mod clusters;
pub mod lockstep;
pub mod runner;
pub mod seating;
pub mod shard;
pub mod stats;

pub use runner::*;
pub use seating::Seating;
