#![no_main]
//! `cargo fuzz run strategy`: see `unolab_fuzz::strategy`.

libfuzzer_sys::fuzz_target!(|data: &[u8]| unolab_fuzz::strategy(data));
