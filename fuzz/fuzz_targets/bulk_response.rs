//! cargo-fuzz target: [`hakaru::fuzz::bulk_response`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| hakaru::fuzz::bulk_response(data));
