//! cargo-fuzz target: [`hakaru::fuzz::expressions`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| hakaru::fuzz::expressions(data));
