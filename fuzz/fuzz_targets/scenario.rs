//! cargo-fuzz target: [`hakaru::fuzz::scenario`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| hakaru::fuzz::scenario(data));
