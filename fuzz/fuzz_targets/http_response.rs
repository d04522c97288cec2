//! cargo-fuzz target: [`hakaru::fuzz::http_response`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| hakaru::fuzz::http_response(data));
