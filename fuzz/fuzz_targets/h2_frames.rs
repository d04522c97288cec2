//! cargo-fuzz target: [`hakaru::fuzz::h2_frames`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| hakaru::fuzz::h2_frames(data));
