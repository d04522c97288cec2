//! hakaru (測る, "to measure"): a benchmarking tool for data services.
//!
//! Data flows one way: patterns → plan → engine → step stats → result file → report.
//! Nothing downstream reaches back upstream: the engine knows nothing of CSV, the
//! report knows nothing of sockets.

pub mod analysis;
pub mod cli;
pub mod console;
pub mod engine;
pub mod http;
pub mod pattern;
pub mod plan;
pub mod probe;
pub mod report;
pub mod result;
pub mod rng;
pub mod runner;
pub mod spec;
pub mod stats;
pub mod sysinfo;
pub mod target;

// The old paths of `pattern::generate` and `pattern::terms`, kept only while the
// embedded server's code (moving on another branch) still names them. Remove these
// once it imports from `pattern` and `http::url`.
#[doc(hidden)]
pub use pattern::generate as patterngen;
#[doc(hidden)]
pub mod terms {
    pub use crate::http::url::percent_decode;
    pub use crate::pattern::terms::*;
}
