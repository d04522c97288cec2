//! The embedded target: an HTTP server on loopback with deterministic endpoints, so
//! hakaru can be tried, calibrated and tested with nothing else installed.

pub mod basic;
pub mod handler;
pub mod search;
pub mod server;
