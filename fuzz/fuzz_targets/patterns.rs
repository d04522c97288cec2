//! cargo-fuzz target: [`hakaru::fuzz::patterns`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| hakaru::fuzz::patterns(data));
