#![no_main]
//! `cargo fuzz run experiment_shard`: see `unolab_fuzz::experiment_shard`.

libfuzzer_sys::fuzz_target!(|data: &[u8]| unolab_fuzz::experiment_shard(data));
