//! The scenario file's shape as serde reads it: every key, with its span for errors.
//! [`super::scenario`] checks it and turns it into a [`super::Scenario`].

use std::collections::BTreeMap;

use serde::Deserialize;
use toml::Spanned;

/// A value that is a number or a string in the file (`duration = 20` or `"20s"`).
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub(super) enum NumOrText {
    Int(i64),
    Float(f64),
    Text(String),
}

impl NumOrText {
    pub(super) fn text(&self) -> String {
        match self {
            NumOrText::Int(i) => i.to_string(),
            NumOrText::Float(f) => f.to_string(),
            NumOrText::Text(t) => t.clone(),
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct FileScenario {
    /// `--default-hosts`: hosts for patterns without their own, round-robin.
    pub(super) hosts: Option<Spanned<Vec<String>>>,
    pub(super) port: Option<u16>,
    pub(super) path: Option<String>,
    pub(super) method: Option<String>,
    pub(super) timeout: Option<Spanned<NumOrText>>,
    pub(super) keep_alive: Option<bool>,
    /// `--http2`, `--streams`: for every phase (the engine's connections are the run's).
    pub(super) http2: Option<Spanned<bool>>,
    pub(super) streams: Option<Spanned<i64>>,
    /// `--pipeline`: commands in flight per connection to a redis:// or memcached://
    /// workload, for every phase (a phase's own wins).
    pub(super) pipeline: Option<Spanned<i64>>,
    pub(super) threads: Option<Spanned<usize>>,
    pub(super) seed: Option<u64>,
    #[serde(default)]
    pub(super) headers: Vec<String>,
    #[serde(default)]
    pub(super) allow_pattern_hosts: bool,
    #[serde(default)]
    pub(super) targets: BTreeMap<String, Spanned<FileTarget>>,
    pub(super) recovery: Option<FileRecovery>,
    #[serde(default, rename = "phase")]
    pub(super) phases: Vec<Spanned<FilePhase>>,
    #[serde(default, rename = "event")]
    pub(super) events: Vec<Spanned<FileEvent>>,
    /// Toxiproxy's API, for `toxic` events.
    pub(super) toxiproxy: Option<String>,
    /// `--threshold`s, judged per phase and over the whole scenario.
    #[serde(default)]
    pub(super) thresholds: Vec<Spanned<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct FileTarget {
    pub(super) pid: Option<u32>,
    pub(super) pid_file: Option<String>,
    pub(super) pid_command: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct FileRecovery {
    pub(super) success: Option<Spanned<f64>>,
    pub(super) p99_factor: Option<Spanned<f64>>,
    /// The least room above the baseline's p99 ("1ms").
    pub(super) p99_floor: Option<Spanned<NumOrText>>,
    pub(super) throughput: Option<Spanned<f64>>,
    pub(super) hold: Option<Spanned<NumOrText>>,
    pub(super) baseline: Option<Spanned<NumOrText>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct FilePhase {
    pub(super) name: Spanned<String>,
    pub(super) duration: Spanned<NumOrText>,
    /// Optional start; must not be before the previous phase's end.
    pub(super) start: Option<Spanned<NumOrText>>,
    pub(super) rate: Option<Spanned<NumOrText>>,
    pub(super) clients: Option<Spanned<usize>>,
    /// The phase's own `http2`, `streams` and `pipeline` (the scenario's otherwise).
    pub(super) http2: Option<Spanned<bool>>,
    pub(super) streams: Option<Spanned<i64>>,
    pub(super) pipeline: Option<Spanned<i64>>,
    /// A shell command run before the phase, as `--before-step` is before a step.
    pub(super) before: Option<Spanned<String>>,
    pub(super) before_timeout: Option<Spanned<NumOrText>>,
    pub(super) before_may_fail: Option<Spanned<bool>>,
    /// SQL run before the phase on its `postgres://` target (`CHECKPOINT`, `DISCARD
    /// ALL`), after `before`'s command.
    pub(super) before_sql: Option<Spanned<String>>,
    #[serde(default, rename = "workload")]
    pub(super) workloads: Vec<Spanned<FileWorkload>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct FileWorkload {
    pub(super) patterns: Option<String>,
    pub(super) url: Option<String>,
    /// With a `postgres://` url: the pgbench-style script of its transactions,
    /// relative to the scenario.
    pub(super) script: Option<Spanned<String>>,
    /// With a script: pgbench's `-M`, `simple` (default), `extended` or `prepared`.
    pub(super) mode: Option<Spanned<String>>,
    pub(super) bulk: Option<Spanned<FileBulk>>,
    pub(super) ycsb: Option<Spanned<FileYcsb>>,
    pub(super) weight: Option<Spanned<i64>>,
}

/// `ycsb = { url = "http://127.0.0.1:5984/ycsb", workload = "a", records = 1000 }`:
/// one of YCSB's core workloads (or its load) over a CouchDB-style API, Redis,
/// memcached or PostgreSQL (`postgres://…`, on YCSB's JDBC table).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct FileYcsb {
    pub(super) url: String,
    /// `load`, or `a` … `f`.
    pub(super) workload: String,
    pub(super) records: Option<u64>,
    /// `uniform`, `zipfian` or `latest`; the workload's own by default.
    pub(super) distribution: Option<String>,
    pub(super) fields: Option<u32>,
    pub(super) field_length: Option<u32>,
    pub(super) max_scan: Option<u32>,
    /// Records per `_bulk_docs` request (or multi-row `INSERT`) of the load.
    pub(super) batch: Option<u64>,
    /// YCSB's `table` over SQL (`usertable`).
    pub(super) table: Option<String>,
}

/// `bulk = { target = "couchdb", url = "http://127.0.0.1:5984/db", batch = 100 }`:
/// `hakaru bulk`'s writers as a workload of the mix.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct FileBulk {
    pub(super) target: Option<String>,
    pub(super) url: String,
    pub(super) batch: Option<u64>,
    pub(super) doc: Option<String>,
    pub(super) table: Option<String>,
    #[serde(default)]
    pub(super) single: bool,
    #[serde(default)]
    pub(super) verify: bool,
    pub(super) ids: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct FileEvent {
    pub(super) at: Spanned<NumOrText>,
    pub(super) run: Option<Spanned<String>>,
    /// A Toxiproxy toxic added at `at` (and removed after `for`).
    pub(super) toxic: Option<Spanned<FileToxic>>,
    #[serde(rename = "for")]
    pub(super) for_: Option<Spanned<NumOrText>>,
    pub(super) name: Option<String>,
    pub(super) timeout: Option<Spanned<NumOrText>>,
    pub(super) on_failure: Option<Spanned<String>>,
    /// Measure recovery after this event (default true).
    pub(super) recovery: Option<bool>,
    /// A sharded run (`--shard K/N`): `"first"` (default) fires the event on shard 1
    /// only, `"all"` on every shard.
    pub(super) shards: Option<Spanned<String>>,
}

/// `toxic = { proxy = "web", type = "latency", attributes = { latency = 200 } }`:
/// Toxiproxy's own toxic, as its API takes it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct FileToxic {
    pub(super) proxy: String,
    #[serde(rename = "type")]
    pub(super) kind: String,
    #[serde(default)]
    pub(super) attributes: toml::Table,
    pub(super) stream: Option<String>,
    pub(super) toxicity: Option<f64>,
}

/// Toxiproxy's toxics, as its API names them.
pub(super) const TOXICS: [&str; 7] = [
    "latency",
    "bandwidth",
    "slow_close",
    "timeout",
    "reset_peer",
    "slicer",
    "limit_data",
];
