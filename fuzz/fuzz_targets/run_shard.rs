#![no_main]
//! `cargo fuzz run run_shard`: see `unolab_fuzz::run_shard`.

libfuzzer_sys::fuzz_target!(|data: &[u8]| unolab_fuzz::run_shard(data));
