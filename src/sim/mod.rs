//! Simulation: the parallel runner and its exact, mergeable statistics.

mod checks;
pub mod clusters;
pub mod handout;
pub mod lockstep;
pub mod runner;
pub mod seating;
pub mod shard;
pub mod stats;

pub use runner::*;
pub use seating::Seating;

/// Seconds between saves of a resumable state (an experiment's, a shard's)
/// when no other interval is asked for (`--checkpoint`).
pub const CHECKPOINT_SECS: f64 = 10.0;
