//! hakaru's integration tests: one binary, real servers on loopback.

mod util;

mod ab;
mod bad_input;
mod bulk;
mod cli;
mod connections;
mod demo;
mod docs;
mod engine;
mod find_max;
mod groonga;
mod h2;
mod honest;
mod hostile;
mod k8s;
mod kafka;
mod kill;
mod labels;
mod live;
mod memory;
mod netns;
mod nginx;
mod over_time;
mod probe;
mod ramp;
mod readme;
mod report;
mod run;
mod safety;
mod server;
mod shard;
mod stream;
mod suite;
mod threshold;
mod ycsb;
