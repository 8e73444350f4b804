#![no_main]
//! `cargo fuzz run experiment`: see `unolab_fuzz::experiment`.

libfuzzer_sys::fuzz_target!(|data: &[u8]| unolab_fuzz::experiment(data));
