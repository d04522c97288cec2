//! The embedded targets (`hakaru serve`): an HTTP server on loopback with deterministic
//! endpoints (`basic`), a Groonga-compatible search engine (`search`) or a
//! CouchDB-compatible document store (`docs`), so
//! hakaru can be tried, calibrated and tested with nothing else installed.

pub mod basic;
pub mod basic_work;
pub mod cache;
mod cache_memcached;
pub mod docs;
pub mod handler;
pub mod listen;
mod precise;
pub mod search;
pub mod service;
