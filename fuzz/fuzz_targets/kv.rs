//! cargo-fuzz target: [`hakaru::fuzz::kv`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| hakaru::fuzz::kv(data));
