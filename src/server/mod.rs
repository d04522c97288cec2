//! The embedded targets (`hakaru serve`): an HTTP server on loopback with deterministic
//! endpoints (`basic`) or a Groonga-compatible search engine (`search`), so
//! hakaru can be tried, calibrated and tested with nothing else installed.

pub mod basic;
pub mod handler;
pub mod listen;
pub mod search;
