//! hakaru's integration tests: one binary, real servers on loopback.

mod util;

mod bad_input;
mod bulk;
mod demo;
mod engine;
mod groonga;
mod kill;
mod nginx;
mod probe;
mod ramp;
mod report;
mod run;
mod server;
