//! cargo-fuzz target: [`hakaru::fuzz::stream_records`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| hakaru::fuzz::stream_records(data));
