#![no_main]
//! `cargo fuzz run lockstep_state`: see `unolab_fuzz::lockstep_state`.

libfuzzer_sys::fuzz_target!(|data: &[u8]| unolab_fuzz::lockstep_state(data));
