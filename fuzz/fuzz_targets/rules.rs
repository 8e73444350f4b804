#![no_main]
//! `cargo fuzz run rules`: see `unolab_fuzz::rules`.

libfuzzer_sys::fuzz_target!(|data: &[u8]| unolab_fuzz::rules(data));
