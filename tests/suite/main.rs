//! The integration tests, as one test binary: each file of this folder is a
//! module. One binary instead of nineteen saves as many link steps of the
//! release profile (fat LTO), which made `cargo test --release` spend most of
//! its time linking. `tests/fuzz.rs` stays a binary of its own: it measures
//! the process's peak memory, which other tests running beside it would blur.
//!
//! Run one file's tests by its module name: `cargo test --release --test suite
//! runner::`.

mod common;

mod alloc;

mod asking;
mod bad_input;
mod bounded;
mod challenger;
mod cli;
mod cli_trust;
mod experiment;
mod external;
mod golden;
mod intervals;
mod invariants;
mod knowledge;
mod lab;
mod layering;
mod observation;
mod play;
mod runner;
mod scripted_classic;
mod scripted_editions;
mod search;
mod shard;
mod step;
