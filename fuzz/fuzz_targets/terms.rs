//! cargo-fuzz target: [`hakaru::fuzz::terms`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| hakaru::fuzz::terms(data));
