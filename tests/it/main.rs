//! hakaru's integration tests: one binary, real servers on loopback.

mod util;

mod ab;
mod bad_input;
mod bulk;
mod connections;
mod demo;
mod docs;
mod engine;
mod groonga;
mod hostile;
mod k8s;
mod kill;
mod memory;
mod nginx;
mod probe;
mod ramp;
mod report;
mod run;
mod safety;
mod server;
mod shard;
mod stream;
