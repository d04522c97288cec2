//! The result of a run: plain serde structs, versioned, holding everything needed to
//! redraw any report later (settings, machine, and per step the serialized histograms).
//!
//! Units are in the field names: `_s` seconds, `_us` microseconds, `_bytes` bytes.

pub mod answers;
pub mod command;
pub mod csv;
pub mod find_max;
#[cfg(test)]
pub(crate) mod fixture;
mod histogram;
pub mod json;
mod labels;
pub mod merge;
pub mod merge_check;
pub mod profile;
pub mod read;
pub mod recovery;
mod requests;
pub mod schema;
pub mod series;
mod step;
pub mod store;
pub mod stream;
pub mod stream_merge;
pub mod suite;
pub mod threshold;
pub mod timeline;
mod verify;

use std::collections::BTreeMap;
use std::fmt;

use hdrhistogram::Histogram;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::stats::{ErrorKind, OkStatus, RequestSample};
pub use histogram::{decode_histogram, encode_histogram};
pub use labels::LabelResult;
pub use requests::{RequestInfo, RequestList};
pub use step::{StepFacts, ToRecorderError};
pub use verify::VerifyResult;

/// Bumped when a field changes meaning or disappears; readers refuse newer versions.
///
/// 2: a host's exact `latency_sum_us` replaces its `mean_s` (still read from version 1
/// files); the connect and TLS histograms are kept; the top-N capacities are recorded.
/// 3: `requests` holds only the requests the slowest/fastest lists name, each with its
/// `id` (all of them, numbered by place, with `--request-list` and in older files); the
/// patterns file's digest is recorded.
/// 4: every step keeps its `timeline`, whose entries may be wider than a second past
/// the first hour (`span_s`, `timeline_note`) and count statuses and bytes; steps keep
/// their `labels`. Version 3 files read as they are (a timeline entry is a second).
pub const SCHEMA_VERSION: u32 = 4;

/// One run of `hakaru run` or `hakaru ramp`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct RunResult {
    /// Version of this schema; see [`SCHEMA_VERSION`].
    pub schema_version: u32,
    /// `hakaru <version>`: the tool and version that wrote the file.
    pub tool: String,
    /// The command line as typed.
    pub command_line: Vec<String>,
    /// Which command ran: `"run"` (one step) or `"ramp"` (steps of growing load).
    pub mode: Mode,
    /// Wall-clock start, RFC 3339 UTC.
    pub started_at: String,
    /// True when the run was interrupted (Ctrl-C) before every step finished.
    pub partial: bool,
    /// How far the run got when this file was written: `"running"` while steps remain
    /// (a file left by a kill stays so), then `"complete"`, `"interrupted"` or
    /// `"failed"`. Files written before this field existed read as `"complete"`, or
    /// `"interrupted"` when `partial`.
    #[serde(default)]
    pub state: RunState,
    /// Why the run stopped before its last step, when it did on its own (a step that
    /// got no response at all); absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<String>,
    /// `ramp --until-saturated`: why the ramp ended where it did (saturated, or the
    /// cap reached first); absent for other runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended_because: Option<String>,
    pub settings: Settings,
    pub machine: Machine,
    /// The hosts requests went to: "scheme://host:port".
    pub targets: Vec<String>,
    /// Method and URL of the requests the steps' slowest and fastest lists name, by
    /// [`RequestSample::request`]; every planned request with `--request-list`.
    pub requests: RequestList,
    pub steps: Vec<StepResult>,
    /// `bulk --verify`: acknowledged documents against the server's own count.
    #[serde(default)]
    pub verify: Option<VerifyResult>,
    /// `suite`: the scenario's phases, events and recovery.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suite: Option<suite::SuiteResult>,
    /// `--threshold`: each threshold with its verdict overall and per step.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thresholds: Option<threshold::ThresholdsResult>,
    /// `ramp --find-max`: the highest rate that met the SLO, and every probe.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub find_max: Option<find_max::FindMaxResult>,
    /// The `--before-round`/`--before-step` command that failed and stopped the run
    /// there (`stop_reason` says before which round or step); absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stopped_by_command: Option<command::CommandResult>,
}

/// The item error of a document the server answered for but did not keep (a body-
/// reading check counts it; reports name it).
pub const NOT_KEPT: &str = "not_kept";

/// The settings that shape the numbers.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
pub struct Settings {
    /// Nominal duration of each step in seconds (absent when steps end by request count).
    pub duration_s: Option<f64>,
    /// Total request budget of a step (`-n`), if any.
    pub n_requests: Option<u64>,
    /// Pause between steps, seconds.
    pub interval_s: f64,
    /// Per-client pause between requests, seconds.
    pub wait_s: f64,
    /// Default per-request timeout, seconds.
    pub timeout_s: f64,
    pub keep_alive: bool,
    /// `"closed"` (N clients back to back) or `"open"` (fixed arrival rate).
    pub model: LoadModel,
    /// `"random"` or `"sequential"`.
    pub order: RequestOrder,
    pub seed: u64,
    /// Where the patterns came from: a file path or the URL given.
    pub patterns_source: String,
    pub n_patterns: usize,
    /// `sha256:<hex>` of the patterns file's bytes (absent for a URL, and in files
    /// before schema 3): which patterns ran, without keeping them all. A SQL run's is
    /// its scripts' as parsed, each with its name and weight.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub patterns_sha256: Option<String>,
    /// `requests` holds every planned request (`--request-list`).
    #[serde(default)]
    pub request_list: bool,
    pub insecure: bool,
    /// Worker threads the engine ran on.
    pub threads: usize,
    /// The cache hit rate the request set was planned for (`--expect-cache-hit-rate`), 0..1.
    #[serde(default)]
    pub planned_cache_hit_rate: Option<f64>,
    /// Uncounted load sent before the first step (`--warmup`), seconds.
    #[serde(default)]
    pub warmup_s: Option<f64>,
    /// How many times the whole set of steps ran (`--rounds`); 1 when not repeated.
    #[serde(default = "one")]
    pub rounds: usize,
    /// `bulk`: what was written and how.
    #[serde(default)]
    pub bulk: Option<BulkSettingsResult>,
    /// `--shard K/N`: this run was one of N load machines; `hakaru merge` joins them.
    #[serde(default)]
    pub shard: Option<Shard>,
    /// `hakaru merge`: how many shards the merged result holds, of how many the run had.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub merged: Option<Merged>,
    /// `--start-at`: the moment the first step (or warm-up) was to start, RFC 3339 UTC;
    /// every step was to start at its planned offset from it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_at: Option<String>,
    /// `--http2`: the clients that shared one connection (`--streams`). Absent when
    /// HTTP/2 was not asked for; what each step's connections spoke is in the step.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub http2_streams: Option<usize>,
    /// `--pipeline N` on a key-value target: commands in flight on each connection,
    /// which N clients share. Absent when not asked for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pipeline: Option<u64>,
    /// `--coalesce`: the longest, in µs, a worker let answers gather before it woke
    /// for them. Latencies are from the kernel's receive time, so they do not include
    /// it; in the closed model each client's next request left up to this much later.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coalesce_us: Option<u64>,
    /// A key-value run's commands (`redis://`, `memcached://`), each by the label its
    /// requests are counted under, with what it does: a read's `250`s and `254`s are
    /// its hits and misses, a write's are writes done and not done. Empty for any
    /// other run (and in files before it was kept).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub store_commands: Vec<StoreCommand>,
    /// A SQL run's statements by number (`stmt=N` is the Nth, across the scripts),
    /// each its first line as written, as pgbench's `-r` prints it (`\endpipeline`
    /// for a pipeline's end): what a statement's label stands for. Empty for any
    /// other run (and in files before it was kept).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sql_statements: Vec<String>,
}

/// One command of a key-value run ([`Settings::store_commands`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct StoreCommand {
    /// Its label: the commands file's `name=`, else its first word (`GET`, `set`).
    pub name: String,
    /// It reads (`GET`, `MGET`, `HGETALL`, memcached `get`…): a hit or a miss is
    /// what it learns, so its hit ratio means something.
    pub reads: bool,
}

/// The settings of a bulk write (`hakaru bulk`).
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, JsonSchema)]
pub struct BulkSettingsResult {
    /// `"couchdb"`, `"groonga"`, `"elasticsearch"` or `"template"`.
    pub target: String,
    /// One document per request (`--single`).
    pub single: bool,
    /// `"sequential"`, `"random"`, `"uuid"` or `"server"`.
    pub ids: String,
    /// The document template (`--doc`, `--doc-file`), or the body template (`--template`).
    pub doc: String,
    /// CouchDB `?batch=ok` was asked for.
    pub batch_ok: bool,
    /// CouchDB `X-Couch-Full-Commit: true` was sent.
    pub full_commit: bool,
    /// The request's content type.
    pub content_type: String,
    /// Groonga: the table loaded into.
    pub table: Option<String>,
    /// `--count`: documents asked for per step.
    pub count: Option<u64>,
    /// `--rate`: documents per second (open model).
    pub rate_docs_per_s: Option<f64>,
    /// Elasticsearch: each document's bulk action (`"index"` or `"create"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action: Option<String>,
    /// `--target template`: the request's method.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
    /// `--target template`: how answers are read (`ok-pointer /1`,
    /// `item-error-pointer /items/*/error`, or `status`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_rule: Option<String>,
}

/// One load machine's part of a run spread over many (`--shard K/N`): it ran its share
/// of every step's clients and requests, and its share of the open model's timetable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Shard {
    /// K, from 1.
    pub index: u32,
    /// N, the number of shards.
    pub count: u32,
}

/// What `hakaru merge` joined: shards that came back, of the run's N. A merge refuses a
/// run with a shard missing, so the two agree in any merged file; both are written so
/// that a reader sees it without counting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Merged {
    /// Shards whose results the merge joined.
    pub shards: u32,
    /// N, the run's shards (`--shard K/N`).
    pub of: u32,
}

impl Shard {
    /// This shard's part of `total` things (clients, requests): as even as can be, the
    /// first `total % count` shards taking one more.
    pub fn share(self, total: u64) -> u64 {
        let (n, k) = (u64::from(self.count), u64::from(self.index - 1));
        total / n + u64::from(k < total % n)
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// How far a run got when its result file was last written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum RunState {
    /// Steps remained: the file was written after a step and the run went on (or was
    /// killed before it could say otherwise).
    Running,
    /// Every planned step ran to its end.
    #[default]
    Complete,
    /// Stopped (Ctrl-C, SIGTERM) before every step finished; the last step may be short.
    Interrupted,
    /// A step failed (a worker died, or the step got no response at all): the run
    /// stopped there.
    Failed,
}

impl RunState {
    pub fn as_str(self) -> &'static str {
        match self {
            RunState::Running => "running",
            RunState::Complete => "complete",
            RunState::Interrupted => "interrupted",
            RunState::Failed => "failed",
        }
    }

    /// The state of a file written before `state` was recorded: only `partial` tells.
    pub fn from_partial(partial: bool) -> RunState {
        if partial {
            RunState::Interrupted
        } else {
            RunState::Complete
        }
    }
}

impl fmt::Display for RunState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Which command produced a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// `hakaru run`: one step.
    #[default]
    Run,
    /// `hakaru ramp`: steps of growing load.
    Ramp,
    /// `hakaru bulk`: write throughput, one step per batch size and writer count.
    Bulk,
    /// `hakaru suite`: a scenario's phases, one step each.
    Suite,
}

/// How load is offered to the target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum LoadModel {
    /// N clients, each sending its next request when the previous one ends.
    #[default]
    Closed,
    /// A fixed arrival rate, whatever the responses do.
    Open,
}

/// The order in which clients draw requests from the patterns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum RequestOrder {
    /// Seeded random draws, weighted by frequency.
    #[default]
    Random,
    /// The file's order, for exact replays.
    Sequential,
}

impl Mode {
    /// The name as written in the result file.
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Run => "run",
            Mode::Ramp => "ramp",
            Mode::Bulk => "bulk",
            Mode::Suite => "suite",
        }
    }
}

impl LoadModel {
    /// The name as written in the result file.
    pub fn as_str(self) -> &'static str {
        match self {
            LoadModel::Closed => "closed",
            LoadModel::Open => "open",
        }
    }
}

impl RequestOrder {
    /// The name as written in the result file.
    pub fn as_str(self) -> &'static str {
        match self {
            RequestOrder::Random => "random",
            RequestOrder::Sequential => "sequential",
        }
    }
}

macro_rules! display_as_str {
    ($($t:ty),*) => {$(
        impl fmt::Display for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }
    )*};
}
display_as_str!(Mode, LoadModel, RequestOrder);

fn one() -> usize {
    1
}

/// Facts about the machine hakaru ran on.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
pub struct Machine {
    pub hostname: String,
    pub os: String,
    pub cpus: usize,
    pub cpu_model: String,
    pub memory_bytes: u64,
    /// The limit on open files hakaru ran with (each connection takes one), after
    /// raising its soft limit to the hard one.
    #[serde(default)]
    pub fd_limit: Option<u64>,
}

/// Latency figures of one histogram, in seconds.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, JsonSchema)]
pub struct LatencySummary {
    pub count: u64,
    pub min_s: f64,
    pub max_s: f64,
    pub mean_s: f64,
    pub stdev_s: f64,
    pub p50_s: f64,
    pub p75_s: f64,
    pub p90_s: f64,
    pub p95_s: f64,
    pub p99_s: f64,
    pub p999_s: f64,
}

impl LatencySummary {
    pub fn of(h: &Histogram<u64>) -> Self {
        if h.is_empty() {
            return LatencySummary::default();
        }
        let s = |us: u64| us as f64 / 1e6;
        LatencySummary {
            count: h.len(),
            min_s: s(h.min()),
            max_s: s(h.max()),
            mean_s: h.mean() / 1e6,
            stdev_s: h.stdev() / 1e6,
            p50_s: s(h.value_at_quantile(0.50)),
            p75_s: s(h.value_at_quantile(0.75)),
            p90_s: s(h.value_at_quantile(0.90)),
            p95_s: s(h.value_at_quantile(0.95)),
            p99_s: s(h.value_at_quantile(0.99)),
            p999_s: s(h.value_at_quantile(0.999)),
        }
    }
}

/// Requests and latency toward one host.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(from = "HostResultFile")]
pub struct HostResult {
    /// "scheme://host:port".
    pub target: String,
    /// Whole HTTP responses from this host, any status.
    pub responses: u64,
    /// Requests to this host that ended without a response.
    pub errors: u64,
    /// Sum of the response times of `responses`, microseconds: exact, so hosts and
    /// shards add up; the mean is [`HostResult::mean_s`].
    pub latency_sum_us: u64,
}

impl HostResult {
    /// Mean response time in seconds, 0 without responses.
    pub fn mean_s(&self) -> f64 {
        if self.responses == 0 {
            0.0
        } else {
            self.latency_sum_us as f64 / self.responses as f64 / 1e6
        }
    }
}

/// [`HostResult`] as files hold it: schema 1 wrote a mean (`mean_s`), later ones the sum.
#[derive(Deserialize, JsonSchema)]
struct HostResultFile {
    target: String,
    responses: u64,
    errors: u64,
    #[serde(default)]
    latency_sum_us: Option<u64>,
    #[serde(default)]
    mean_s: Option<f64>,
}

impl From<HostResultFile> for HostResult {
    fn from(f: HostResultFile) -> Self {
        // A schema-1 mean times the responses gives the sum back to within rounding.
        let latency_sum_us = f.latency_sum_us.unwrap_or_else(|| {
            let mean = f.mean_s.unwrap_or(0.0);
            (mean * 1e6 * f.responses as f64).round().max(0.0) as u64
        });
        HostResult {
            target: f.target,
            responses: f.responses,
            errors: f.errors,
            latency_sum_us,
        }
    }
}

/// A server's own numbers around one step, from one probe on one host.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, JsonSchema)]
pub struct ProbeResult {
    /// "groonga", "droonga", "couchdb", or the name of a `url=` probe.
    pub probe: String,
    /// "http://host:port".
    pub target: String,
    pub before: BTreeMap<String, f64>,
    pub after: BTreeMap<String, f64>,
    /// after − before, for every value read both times.
    pub delta: BTreeMap<String, f64>,
    /// The step's own cache hit rate on this host (Δ hits ÷ Δ queries), 0..1.
    pub cache_hit_rate: Option<f64>,
    /// Why the probe has no numbers (the run went on without them).
    pub error: Option<String>,
}

/// A local server process's use of the machine during one step (`--probe-pid`).
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, JsonSchema)]
pub struct ProcessUse {
    pub pid: u32,
    /// CPU time (user + system) it used during the step, seconds.
    pub cpu_s: f64,
    /// Average number of cores it kept busy (top's CPU% ÷ 100).
    pub cores_used: f64,
    /// Highest resident memory seen, bytes.
    pub rss_max_bytes: u64,
    pub error: Option<String>,
}

/// What `--coalesce` did in a step: how often the workers paused before waiting for
/// their sockets, for how long in all, and how often they did not because too few
/// answers were in flight for a pause to gather (the window is a tenth of the recent
/// response time, and taken only where it expects two answers).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CoalesceUse {
    /// Pauses taken.
    pub pauses: u64,
    /// Their length in all, seconds, summed over the workers.
    pub slept_s: f64,
    /// Wake-ups with requests in flight that did not pause: too few to gather.
    pub passed: u64,
}

/// What one step measured.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct StepResult {
    /// Which repetition of the run this step belongs to (`--rounds`), from 1.
    #[serde(default = "one")]
    pub round: usize,
    /// Concurrent clients (connections) in this step.
    pub n_clients: usize,
    /// Open model: the target arrival rate in requests per second.
    pub rate: Option<f64>,
    /// Wall-clock start of the step, RFC 3339 UTC.
    pub started_at: String,
    /// Measured wall time of the step, seconds (the qps denominator).
    pub elapsed_s: f64,
    /// True when the step was cut short (Ctrl-C).
    pub partial: bool,
    /// Requests that ended in the step: responses plus errors (drnbench's total_n_requests).
    pub total_requests: u64,
    /// Whole HTTP responses received, any status.
    pub responses: u64,
    /// Responses per second of measured wall time.
    pub qps: f64,
    /// Response time of the responses. Open model: from each request's intended start.
    pub latency: LatencySummary,
    /// Open model: service time, from the actual send.
    pub service: Option<LatencySummary>,
    pub connect: LatencySummary,
    pub tls_handshake: Option<LatencySummary>,
    /// HTTP status code → count.
    pub statuses: BTreeMap<u16, u64>,
    /// The statuses that counted as success (`--ok-status`); absent: 200-399.
    #[serde(default, skip_serializing_if = "OkStatus::is_default")]
    pub ok_status: OkStatus,
    /// Error kind → count. Timeouts are reported by drnbench as status 0.
    pub errors: BTreeMap<ErrorKind, u64>,
    /// Error kind → the first message of that kind in the step (an OS or TLS reason,
    /// "Connection refused (os error 111)"), to say why without a packet capture.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub error_samples: BTreeMap<ErrorKind, String>,
    /// In flight when the step ended: neither a success nor an error of the server.
    pub unfinished: u64,
    /// Open model: requests sent more than 1 ms after their due time (every connection
    /// was busy, or the client could not keep up).
    pub late: u64,
    /// Open model: requests whose intended start passed but that never started.
    pub dropped: u64,
    /// SQL `--max-tries`: transactions that failed with a serialization failure, a
    /// deadlock or a lock wait timeout and were tried again (pgbench's "number of
    /// transactions retried"), whatever their last try's outcome. Absent (0) without.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub retried: u64,
    /// SQL `--max-tries`: the tries past each transaction's first, all told
    /// (pgbench's "total number of retries"). Absent (0) without.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub retries: u64,
    /// Open model with a lateness limit (`hakaru pgbench -R --latency-limit`):
    /// requests skipped, not sent, because their due time was already further past
    /// than the limit when their client could send them. Neither a success nor an
    /// error.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub skipped: u64,
    pub bytes_received: u64,
    pub bytes_sent: u64,
    pub connections_opened: u64,
    /// Of `connections_opened`, those that spoke HTTP/2 (`--http2`); the rest spoke
    /// HTTP/1.1. Absent (0) in files from before HTTP/2.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub connections_http2: u64,
    /// Responses after which the server closed the connection.
    pub server_closes: u64,
    /// `--coalesce`: what the workers' pauses did (absent without the flag).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coalesce: Option<CoalesceUse>,
    /// hakaru's own CPU time during the step (user + system), seconds.
    pub client_cpu_s: f64,
    /// hakaru's CPU use as a share of all the machine's cores, 0..1.
    pub client_cpu_share: f64,
    pub per_host: Vec<HostResult>,
    /// The slowest requests, slowest first.
    pub slowest: Vec<RequestSample>,
    /// The fastest requests, fastest first.
    pub fastest: Vec<RequestSample>,
    /// How many requests `slowest` keeps at most (`--n-slow-requests`); absent in
    /// schema-1 files.
    #[serde(default)]
    pub slowest_capacity: Option<usize>,
    /// How many requests `fastest` keeps at most; absent in schema-1 files.
    #[serde(default)]
    pub fastest_capacity: Option<usize>,
    /// HdrHistogram V2 serialization of the response-time histogram (µs), base64.
    pub histogram: String,
    /// Same for the service-time histogram (open model only).
    pub service_histogram: Option<String>,
    /// Same for the connect-time histogram; absent in schema-1 files.
    #[serde(default)]
    pub connect_histogram: Option<String>,
    /// Same for the TLS-handshake histogram, when TLS connections were made.
    #[serde(default)]
    pub tls_handshake_histogram: Option<String>,
    /// Same for the time from each request's write to its response's head (`hakaru ab`
    /// only: ab's Waiting, time to first byte); absent elsewhere.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub waiting_histogram: Option<String>,
    /// Same for the time from each request's write to its response's last byte (`hakaru
    /// ab` only: ab's Processing, Total − Connect); absent elsewhere.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub processing_histogram: Option<String>,
    /// Server-side numbers before and after the step (`--probe`).
    #[serde(default)]
    pub probes: Vec<ProbeResult>,
    /// The step's cache hit rate over all hosts, from the probes, 0..1.
    #[serde(default)]
    pub cache_hit_rate: Option<f64>,
    /// The watched server process (`--probe-pid`).
    #[serde(default)]
    pub server_process: Option<ProcessUse>,
    /// Open model with a rate that changes within the step: the profile in `--rate`'s
    /// syntax (`rate` then holds the mean rate).
    #[serde(default)]
    pub rate_profile: Option<String>,
    /// Open model with a rate profile: its timed segments, and each judged on its own
    /// seconds (`verdict`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<profile::StepProfile>,
    /// Why the step failed (a worker died): its numbers are incomplete.
    #[serde(default)]
    pub failure: Option<String>,
    /// How late paced requests left: from the due time (open model) or the end of
    /// `--wait` (closed model) to the actual send. Absent when nothing was paced.
    #[serde(default)]
    pub pacer_lag: Option<LatencySummary>,
    /// HdrHistogram V2 serialization of the pacer lag (µs), base64.
    #[serde(default)]
    pub pacer_lag_histogram: Option<String>,
    /// Item-level outcomes, when a response check looked inside the bodies.
    #[serde(default)]
    pub items: Option<ItemsResult>,
    /// `bulk`: the step's batch size, writers and documents.
    #[serde(default)]
    pub bulk: Option<BulkStepResult>,
    /// `--start-at`: how late the step started after its planned moment, seconds (a
    /// merged result: the latest of its shards).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_late_s: Option<f64>,
    /// SQL with keep-alive: how long every client took to log in before the step's
    /// clock started, seconds (pgbench's "initial connection time"; a merged result:
    /// the longest of its shards'). Absent for a run that logs in on first use.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logins_s: Option<f64>,
    /// Per second of the step: responses, statuses, errors by kind, bytes, p50/p99
    /// and the second's histogram. Every step keeps one (files from before 0.x kept
    /// one for `suite` only); past the first hour its entries are 10 seconds wide
    /// (see `timeline_note`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeline: Option<Vec<timeline::SecondResult>>,
    /// Why some of the timeline's entries are wider than a second, if any are.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeline_note: Option<String>,
    /// Per kind of request (a drnbench group, a pattern's own name, a suite phase's
    /// workload, a YCSB operation), when the workload names more than one; their
    /// counts add up to the step's.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub labels: Vec<LabelResult>,
    /// Why some requests were counted under "other" (the cap of 200 labels), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub labels_note: Option<String>,
    /// Operations that ended, by kind, when a workload counts them (a YCSB mix:
    /// `read`, `update`, `insert`, `scan`, `read-modify-write`; an update over
    /// CouchDB takes two requests).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub operations: BTreeMap<String, u64>,
    /// `--before-round`: the command run before this round, on the round's first step.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before_round: Option<command::CommandResult>,
    /// `--before-step`: the command run before this step (after the round's own).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before_step: Option<command::CommandResult>,
}

/// One step of a bulk write.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, JsonSchema)]
pub struct BulkStepResult {
    /// Documents per request.
    pub batch_size: u64,
    /// Parallel writers (clients).
    pub writers: usize,
    /// Documents the server acknowledged (items ok).
    pub docs_acknowledged: u64,
    /// Acknowledged documents per second of measured wall time.
    pub docs_per_s: f64,
    /// Documents that failed, by kind (`conflict`, `not_kept`, `rejected`…).
    pub item_errors: BTreeMap<String, u64>,
}

/// What response checks found inside the responses (documents of a bulk write…).
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, JsonSchema)]
pub struct ItemsResult {
    /// Items carried by requests that ended.
    pub sent: u64,
    /// Items the server accepted.
    pub ok: u64,
    /// Failed items by kind.
    pub failed: BTreeMap<String, u64>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl StepResult {
    /// The protocol the step's connections spoke: `HTTP/1.1`, `HTTP/2`, or both
    /// (`HTTP/2 and HTTP/1.1`, when some TLS servers did not pick h2 in ALPN).
    pub fn protocol(&self) -> &'static str {
        match self.connections_http2 {
            0 => "HTTP/1.1",
            n if n >= self.connections_opened => "HTTP/2",
            _ => "HTTP/2 and HTTP/1.1",
        }
    }

    /// Share of each status in percent of `total_requests`, the way drnbench writes
    /// them: every request without a response counts as status 0.
    pub fn status_percentages(&self) -> BTreeMap<u16, f64> {
        let mut out = BTreeMap::new();
        if self.total_requests == 0 {
            return out;
        }
        let total = self.total_requests as f64;
        for (code, n) in &self.statuses {
            out.insert(*code, *n as f64 * 100.0 / total);
        }
        let failed: u64 = self.errors.values().sum();
        if failed > 0 {
            *out.entry(0).or_insert(0.0) += failed as f64 * 100.0 / total;
        }
        out
    }

    pub fn error_total(&self) -> u64 {
        self.errors.values().sum()
    }

    /// Each error kind as results name it, its count and its sample's text (empty
    /// when none was kept): what the drop-in reports list below their layout.
    pub fn errors_with_samples(&self) -> Vec<(String, u64, String)> {
        self.errors
            .iter()
            .map(|(k, n)| {
                let sample = self.error_samples.get(k).cloned().unwrap_or_default();
                (k.as_str().to_string(), *n, sample)
            })
            .collect()
    }

    /// Responses whose status is not a success (outside `ok_status`: 2xx and 3xx
    /// unless `--ok-status` said otherwise).
    pub fn non_success(&self) -> u64 {
        self.statuses
            .iter()
            .filter(|(c, _)| !self.ok_status.contains(**c))
            .map(|(_, n)| n)
            .sum()
    }

    /// The response-time histogram, decoded.
    pub fn decode_histogram(&self) -> Result<Histogram<u64>, String> {
        decode_histogram(&self.histogram)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::{Outcome, Recorder};
    use std::time::Duration;

    fn facts() -> StepFacts {
        StepFacts {
            n_clients: 2,
            rate: Some(100.0),
            started_at: String::new(),
            elapsed_s: 1.0,
            partial: false,
            failure: None,
            rate_profile: None,
            client_cpu_s: 0.0,
            cpus: 2,
        }
    }

    fn sample(ms: u64, client: usize) -> RequestSample {
        RequestSample {
            elapsed_s: ms as f64 / 1000.0,
            request: ms as usize % 3,
            status: 200,
            client,
            index: ms,
            sent: None,
        }
    }

    /// A recorder with something in every histogram, counter and list; `n` requests
    /// from `from_ms` on, spread over two hosts.
    fn busy(from_ms: u64, n: u64, client: usize) -> Recorder {
        let mut r = Recorder::new(2, 3, 3);
        for ms in from_ms..from_ms + n {
            let outcome = match ms % 10 {
                7 => Outcome::Status(503),
                9 => Outcome::Error(ErrorKind::Reset),
                _ => Outcome::Status(200),
            };
            r.record(
                (ms % 2) as usize,
                outcome,
                Duration::from_micros(ms * 997),
                || sample(ms, client),
            );
            r.record_service(Duration::from_micros(ms * 500));
            r.record_pacer_lag(Duration::from_micros(ms % 37));
        }
        r.items.sent = 10 * n;
        r.items.ok(9 * n);
        r.items.failed("conflict", n / 2);
        r.items.failed("not_kept", n - n / 2);
        r.record_connect(Duration::from_micros(120 + from_ms));
        r.record_tls(Duration::from_micros(900 + from_ms));
        r.bytes_received = 1000 * n;
        r.bytes_sent = 100 * n;
        r.server_closes = 1;
        r.unfinished = 2;
        r.late = 3;
        r.dropped = 4;
        r
    }

    fn assert_same(a: &Recorder, b: &Recorder) {
        assert_eq!(a.latency, b.latency);
        assert_eq!(a.service, b.service);
        assert_eq!(a.connect, b.connect);
        assert_eq!(a.tls_handshake, b.tls_handshake);
        assert_eq!(a.pacer_lag, b.pacer_lag);
        let items = |r: &Recorder| {
            let mut i = r.items.clone();
            i.failed.sort();
            i
        };
        assert_eq!(items(a), items(b));
        assert_eq!(a.statuses, b.statuses);
        assert_eq!(a.errors, b.errors);
        let counters = |r: &Recorder| {
            [
                r.bytes_received,
                r.bytes_sent,
                r.connections_opened,
                r.server_closes,
                r.unfinished,
                r.late,
                r.dropped,
            ]
        };
        assert_eq!(counters(a), counters(b));
        let hosts = |r: &Recorder| -> Vec<(u64, u64, u128)> {
            r.per_host
                .iter()
                .map(|h| (h.responses, h.errors, h.latency_sum_us))
                .collect()
        };
        assert_eq!(hosts(a), hosts(b));
        assert_eq!(a.slowest.as_slice(), b.slowest.as_slice());
        assert_eq!(a.fastest.as_slice(), b.fastest.as_slice());
        assert_eq!(a.slowest.keep(), b.slowest.keep());
        assert_eq!(a.fastest.keep(), b.fastest.keep());
    }

    fn step_of(r: &Recorder) -> StepResult {
        StepResult::from_recorder(
            facts(),
            r,
            &["http://a:1".into(), "http://b:2".into()],
            true,
        )
    }

    #[test]
    fn a_step_turns_back_into_its_recorder() {
        let rec = busy(1, 500, 0);
        assert_same(&step_of(&rec).to_recorder().unwrap(), &rec);
        // Through the file too.
        let mut run = crate::result::fixture::run(vec![step_of(&rec)]);
        run.steps[0].n_clients = 2;
        let text = json::to_json(&run);
        let back = json::from_json(&text, "r.json").unwrap();
        assert_same(&back.steps[0].to_recorder().unwrap(), &rec);
    }

    #[test]
    fn converting_then_merging_equals_merging_then_converting() {
        // `b` has fewer requests than the lists keep: its capacity must survive.
        let (a, b) = (busy(1, 400, 0), busy(1000, 2, 1));
        let mut merged = a.clone();
        merged.merge(&b);
        let mut from_results = step_of(&a).to_recorder().unwrap();
        from_results.merge(&step_of(&b).to_recorder().unwrap());
        assert_same(&from_results, &merged);
        assert_same(&step_of(&merged).to_recorder().unwrap(), &merged);
        let (x, y) = (step_of(&from_results), step_of(&merged));
        assert_eq!(x.latency, y.latency);
        assert_eq!(x.per_host, y.per_host);
        assert_eq!(x.slowest, y.slowest);
    }

    /// `busy` with two labels (even and odd milliseconds) and a timeline of as many
    /// seconds as it has requests / 100.
    fn labelled(from_ms: u64, n: u64) -> Recorder {
        use crate::stats::{Label, Labels};
        let names = std::sync::Arc::new(Labels {
            list: ["even", "odd"]
                .iter()
                .map(|v| Label {
                    key: "group".into(),
                    value: v.to_string(),
                })
                .collect(),
            note: None,
        });
        let t0 = std::time::Instant::now();
        let mut r = busy(from_ms, n, 0).with_labels(names).with_ticker(t0);
        let mut done = Vec::new();
        for (i, ms) in (from_ms..from_ms + n).enumerate() {
            let outcome = match ms % 10 {
                7 => Outcome::Status(503),
                9 => Outcome::Error(ErrorKind::Reset),
                _ => Outcome::Status(200),
            };
            let at = t0 + Duration::from_millis(10 * i as u64);
            let latency = Duration::from_micros(ms * 997);
            done.extend(r.record_label((ms % 2) as u16, at, outcome, latency, 100, 100 * i as u64));
        }
        done.extend(r.ticker.take().and_then(|mut t| t.finish(100 * n)));
        // A worker with a ticker records latencies in its seconds only (`busy` did
        // both): the seconds give the step's histogram back.
        r.latency.reset();
        for f in done {
            r.add_second(*f);
        }
        r
    }

    #[test]
    fn labels_and_the_timeline_round_trip_and_merge_exactly() {
        let (a, b) = (labelled(1, 450), labelled(1000, 230));
        let step = step_of(&a);
        assert_eq!(step.labels.len(), 2);
        assert_eq!(
            step.labels.iter().map(|l| l.total_requests).sum::<u64>(),
            step.total_requests
        );
        let seconds = step.timeline.as_ref().expect("a timeline");
        assert_eq!(seconds.len(), 5);
        assert_eq!(seconds.iter().map(|s| s.total()).sum::<u64>(), 450);
        let again = step_of(&step.to_recorder().unwrap());
        assert_eq!(again.labels, step.labels);
        assert_eq!(again.timeline, step.timeline);
        // Merged as recorders or as results: the same labels, histograms added.
        let mut merged = a.clone();
        merged.merge(&b);
        let mut from_results = step_of(&a).to_recorder().unwrap();
        from_results.merge(&step_of(&b).to_recorder().unwrap());
        let (x, y) = (step_of(&from_results), step_of(&merged));
        assert_eq!(x.labels, y.labels);
        assert_eq!(x.timeline, y.timeline);
        // Odd milliseconds, less those ending in 9 (a reset): 225 - 45 and 115 - 23.
        assert_eq!(y.labels[1].latency.count, (225 - 45) + (115 - 23));
    }

    #[test]
    fn schema_1_host_mean_reads_as_a_sum() {
        let h: HostResult = serde_json::from_str(
            r#"{"target": "http://a:1", "responses": 4, "errors": 1, "mean_s": 0.0025}"#,
        )
        .unwrap();
        assert_eq!(h.latency_sum_us, 10_000);
        assert_eq!(h.mean_s(), 0.0025);
        let text = serde_json::to_string(&h).unwrap();
        assert!(!text.contains("mean_s") && text.contains("\"latency_sum_us\":10000"));
    }

    #[test]
    fn a_broken_histogram_is_an_error_naming_it() {
        let mut s = step_of(&busy(1, 10, 0));
        s.connect_histogram = Some("not base64!".into());
        let err = s.to_recorder().unwrap_err();
        assert_eq!(err.which, "connect");
        assert!(err
            .to_string()
            .starts_with("step 2 clients (round 1): connect histogram"));
        // Schema 1 had no connect histogram: it comes back empty.
        s.connect_histogram = None;
        assert!(s.to_recorder().unwrap().connect.is_empty());
    }

    #[test]
    fn names_are_the_lowercase_strings_of_schema_1() {
        let names = [
            (serde_json::to_value(Mode::Run).unwrap(), "run"),
            (serde_json::to_value(Mode::Ramp).unwrap(), "ramp"),
            (serde_json::to_value(LoadModel::Closed).unwrap(), "closed"),
            (serde_json::to_value(LoadModel::Open).unwrap(), "open"),
            (
                serde_json::to_value(RequestOrder::Random).unwrap(),
                "random",
            ),
            (
                serde_json::to_value(RequestOrder::Sequential).unwrap(),
                "sequential",
            ),
        ];
        for (value, name) in names {
            assert_eq!(value, name);
        }
        assert_eq!(
            serde_json::from_str::<Mode>("\"ramp\"").unwrap(),
            Mode::Ramp
        );
        assert_eq!(LoadModel::Open.to_string(), "open");
        assert!(serde_json::from_str::<LoadModel>("\"Open\"").is_err());
    }

    #[test]
    fn histogram_round_trips() {
        let mut r = Recorder::new(1, 0, 0);
        for ms in 1..=1000u64 {
            r.record(
                0,
                Outcome::Status(200),
                Duration::from_micros(ms * 37),
                || unreachable!(),
            );
        }
        let enc = encode_histogram(&r.latency);
        let dec = decode_histogram(&enc).unwrap();
        assert_eq!(dec, r.latency);
    }

    #[test]
    fn failed_requests_count_as_status_zero() {
        let mut r = Recorder::new(1, 0, 0);
        for _ in 0..3 {
            r.record(
                0,
                Outcome::Status(200),
                Duration::from_millis(1),
                || unreachable!(),
            );
        }
        r.record(
            0,
            Outcome::Error(ErrorKind::Timeout),
            Duration::from_secs(5),
            || unreachable!(),
        );
        let facts = StepFacts {
            n_clients: 1,
            rate: None,
            started_at: String::new(),
            elapsed_s: 1.0,
            partial: false,
            failure: None,
            rate_profile: None,
            client_cpu_s: 0.0,
            cpus: 2,
        };
        let s = StepResult::from_recorder(facts, &r, &["http://a:1".into()], false);
        assert_eq!(s.total_requests, 4);
        assert_eq!(s.responses, 3);
        assert_eq!(s.qps, 3.0);
        let p = s.status_percentages();
        assert_eq!(p[&200], 75.0);
        assert_eq!(p[&0], 25.0);
    }
}
