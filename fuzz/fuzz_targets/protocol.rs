#![no_main]
//! `cargo fuzz run protocol`: see `unolab_fuzz::protocol`.

libfuzzer_sys::fuzz_target!(|data: &[u8]| unolab_fuzz::protocol(data));
