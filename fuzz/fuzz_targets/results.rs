//! cargo-fuzz target: [`hakaru::fuzz::results`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| hakaru::fuzz::results(data));
