//! hakaru (測る, "to measure"): a benchmarking tool for data services.
//!
//! Data flows one way: patterns → plan → engine → step stats → result → series →
//! analysis → report.
//! Nothing downstream reaches back upstream: the engine knows nothing of CSV, the
//! report knows nothing of sockets. `ARCHITECTURE.md` at the root is the map.

pub mod abort;
pub mod analysis;
pub mod cli;
pub mod console;
pub mod engine;
pub mod find_max;
#[doc(hidden)]
pub mod fuzz;
pub mod http;
pub mod k8s;
pub mod kv;
pub mod metrics;
pub mod observe;
pub mod outfile;
pub mod pattern;
pub mod plan;
pub mod probe;
pub mod redact;
pub mod report;
pub mod result;
pub mod rng;
pub mod runner;
pub mod server;
pub mod spec;
pub mod sql;
pub mod stats;
pub mod stream;
pub mod suite;
pub mod sysinfo;
pub mod timestamp;
pub mod workload;
