#![no_main]
//! `cargo fuzz run play_input`: see `unolab_fuzz::play_input`.

libfuzzer_sys::fuzz_target!(|data: &[u8]| unolab_fuzz::play_input(data));
