//! Log-pipeline transfer: `hakaru stream` pushes records into a pipeline, `hakaru
//! watch` measures what arrives at the far end — records/s and bytes/s per interval,
//! and with `--verify` what was lost, duplicated or reordered and how late it came.
//!
//! - [`record`]: the records (exact size, sender, sequence, send time) and their parser;
//! - [`sink`]: where records go (`file:`, `dir:`, `tcp://`, `udp://`, `http://`,
//!   `kafka://`), each a strategy behind the one sender loop in [`send`]; HTTP is an
//!   engine workload;
//! - [`source`]: where records are read back (`file:`, `dir:`, `listen:tcp://`,
//!   `listen:udp://`, `kafka://`), counted by reader threads;
//! - [`kafka`]: Kafka's producers and consumer (librdkafka) behind both;
//! - [`verify`]: per-sender loss, duplicates, order, and latency (HDR);
//! - [`machine`]: the machine's context from `/proc` beside each interval;
//! - [`watch`]: intervals, warm-up, windows and repeats over a source;
//! - [`experiment`]: `stream run`, the seed's whole experiment (sizes × repeats);
//! - the `hakaru-stream` result (JSON and CSV, docs/stream.md) is vocabulary: [`crate::result::stream`].

pub mod experiment;
pub mod http_sink;
pub mod kafka;
pub mod machine;
pub mod options;
pub mod record;
pub mod send;
pub mod sink;
pub mod source;
pub mod verify;
pub mod watch;

use std::path::PathBuf;

/// Bad input to `stream` or `watch`, refused before any load (exit 2).
#[derive(Debug, thiserror::Error)]
pub enum StreamError {
    #[error("{flag} \"{uri}\": not understood ({why}); use {expected}")]
    Uri {
        flag: &'static str,
        uri: String,
        why: String,
        expected: &'static str,
    },
    #[error(transparent)]
    TooSmall(#[from] record::TooSmall),
    #[error("{flag}: {why}")]
    Flag { flag: &'static str, why: String },
    #[error("--to {uri}: cannot connect to {addr} (is the receiver running?)")]
    Connect {
        uri: String,
        addr: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{flag} {uri}: cannot open {path}")]
    Open {
        flag: &'static str,
        uri: String,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{flag} {uri}: {why}")]
    Kafka {
        flag: &'static str,
        uri: String,
        why: String,
    },
    #[error("{flag} {uri}: cannot listen on {addr}")]
    Listen {
        flag: &'static str,
        uri: String,
        addr: String,
        #[source]
        source: std::io::Error,
    },
}
