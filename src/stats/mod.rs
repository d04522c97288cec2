//! What one step measured: latency histograms, status counts, error kinds, bytes,
//! connections, the slowest/fastest requests, per label ([`labels`]) and per second
//! ([`timeline`]).
//!
//! Each engine worker owns a [`Recorder`]; nothing here is shared or locked while a
//! step runs. At the end of a step the workers' recorders are merged exactly
//! (histograms add bucket by bucket, counters add) into one.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;
use std::time::{Duration, Instant};

use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};

pub mod labels;
pub mod ok;
pub mod timeline;
mod top;

pub use labels::{Label, LabelSet, LabelStats, Labels, MAX_LABELS, OTHER, TIMED_LABELS};
pub use ok::OkStatus;
pub use timeline::{new_second_histogram, Finished, Second, Ticker, Timeline};
pub use top::{RequestSample, TopN};

/// Highest latency the histograms track exactly: one hour, in microseconds.
/// Anything slower is clamped (and still counted).
pub const MAX_TRACKABLE_US: u64 = 3_600_000_000;

/// Why a request produced no HTTP response.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// The request's own timeout passed before the whole response arrived.
    Timeout,
    /// The TCP connection could not be made (refused, unreachable).
    Connect,
    /// The TLS handshake failed (bad certificate, protocol error).
    Tls,
    /// The server closed or reset the connection before a whole response arrived.
    Reset,
    /// Bytes arrived that are not a response of the target's protocol (HTTP/1.x,
    /// RESP, memcached's text protocol).
    Malformed,
    /// Any other I/O error while writing or reading.
    Io,
    /// The client itself ran out of a resource (file descriptors, local ports, buffer
    /// memory): not the server's fault. `ulimit -n` raises the usual limit.
    ClientLimit,
    /// The connection closed before the body's promised length (Content-Length, or a
    /// chunk's size) had arrived: the server promised more than it sent.
    Truncated,
    /// The server sent data before the request was written (a response nobody asked
    /// for, or bytes past the last response's end): what follows cannot be matched
    /// to a request.
    Unsolicited,
    /// A key-value store answered with an error reply not named below (Redis `-ERR`
    /// and other prefixes, memcached `ERROR`): the command was refused.
    ReplyErr,
    /// Redis `-WRONGTYPE`: the key holds another kind of value.
    ReplyWrongtype,
    /// Redis `-MOVED`/`-ASK`: a cluster node sent the client elsewhere (hakaru does
    /// not follow redirects).
    ReplyMoved,
    /// Redis `-OOM`, memcached `SERVER_ERROR out of memory`: the store is full.
    ReplyOom,
    /// Redis `-NOAUTH`, `-WRONGPASS`, `-NOPERM`: not logged in, or not allowed.
    ReplyNoauth,
    /// memcached `CLIENT_ERROR`: the store found the command malformed.
    ReplyClientError,
    /// memcached `SERVER_ERROR` (other than out of memory): the store failed.
    ReplyServerError,
    /// HTTP/2: the server ended the connection with GOAWAY (an error code, or a
    /// graceful one that left the request unprocessed twice).
    GoAway,
    /// HTTP/2: the server reset the request's stream (RST_STREAM; its code in the sample).
    StreamReset,
    /// HTTP/2: a frame or header block that breaks the protocol (h2 refused it), or a
    /// request that cannot be sent as HTTP/2.
    Protocol,
    /// HTTP/2: the request's timeout passed while its body waited for send window
    /// (the stream's or the connection's) that the server never granted. A request
    /// that times out waiting for its response is a `Timeout`.
    FlowControlStall,
    /// PostgreSQL SQLSTATE 40001: a serializable transaction lost a conflict
    /// (`--max-tries` retries it).
    SqlSerializationFailure,
    /// PostgreSQL SQLSTATE 40P01: the server broke a deadlock by failing this
    /// transaction (`--max-tries` retries it).
    SqlDeadlock,
    /// PostgreSQL SQLSTATE 23505: a unique or primary key constraint refused a row.
    SqlUniqueViolation,
    /// PostgreSQL SQLSTATE 53300: the server had no connection slot left.
    SqlTooManyConnections,
    /// PostgreSQL SQLSTATE 57P01: the server is shutting down.
    SqlAdminShutdown,
    /// Any other SQL error the server answered (its SQLSTATE and message in the sample).
    SqlError,
    /// A key-value store answered well-formed, but not with a reply the command can
    /// get (a `GET` answered `+OK`, a `set` answered `END`): the command's work is
    /// not known done. The sample names the command and what came.
    ReplyUnexpected,
    /// MySQL error 1205: a row lock was not granted within `innodb_lock_wait_timeout`
    /// (sysbench retries it; PostgreSQL has no SQLSTATE of its own for it).
    SqlLockWaitTimeout,
    /// PostgreSQL SQLSTATE 57P03: the server took no login (starting up, in
    /// recovery after a restart, or shutting down).
    SqlCannotConnectNow,
}

impl ErrorKind {
    pub const ALL: [ErrorKind; 29] = [
        ErrorKind::Timeout,
        ErrorKind::Connect,
        ErrorKind::Tls,
        ErrorKind::Reset,
        ErrorKind::Malformed,
        ErrorKind::Io,
        ErrorKind::ClientLimit,
        ErrorKind::Truncated,
        ErrorKind::Unsolicited,
        ErrorKind::ReplyErr,
        ErrorKind::ReplyWrongtype,
        ErrorKind::ReplyMoved,
        ErrorKind::ReplyOom,
        ErrorKind::ReplyNoauth,
        ErrorKind::ReplyClientError,
        ErrorKind::ReplyServerError,
        ErrorKind::GoAway,
        ErrorKind::StreamReset,
        ErrorKind::Protocol,
        ErrorKind::FlowControlStall,
        ErrorKind::SqlSerializationFailure,
        ErrorKind::SqlDeadlock,
        ErrorKind::SqlUniqueViolation,
        ErrorKind::SqlTooManyConnections,
        ErrorKind::SqlAdminShutdown,
        ErrorKind::SqlError,
        ErrorKind::ReplyUnexpected,
        ErrorKind::SqlLockWaitTimeout,
        ErrorKind::SqlCannotConnectNow,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::Timeout => "timeout",
            ErrorKind::Connect => "connect",
            ErrorKind::Tls => "tls",
            ErrorKind::Reset => "reset",
            ErrorKind::Malformed => "malformed",
            ErrorKind::Io => "io",
            ErrorKind::ClientLimit => "client_limit",
            ErrorKind::Truncated => "truncated",
            ErrorKind::Unsolicited => "unsolicited",
            ErrorKind::ReplyErr => "reply_err",
            ErrorKind::ReplyWrongtype => "reply_wrongtype",
            ErrorKind::ReplyMoved => "reply_moved",
            ErrorKind::ReplyOom => "reply_oom",
            ErrorKind::ReplyNoauth => "reply_noauth",
            ErrorKind::ReplyClientError => "reply_client_error",
            ErrorKind::ReplyServerError => "reply_server_error",
            ErrorKind::GoAway => "go_away",
            ErrorKind::StreamReset => "stream_reset",
            ErrorKind::Protocol => "protocol",
            ErrorKind::FlowControlStall => "flow_control_stall",
            ErrorKind::SqlSerializationFailure => "sql_serialization_failure",
            ErrorKind::SqlDeadlock => "sql_deadlock",
            ErrorKind::SqlUniqueViolation => "sql_unique_violation",
            ErrorKind::SqlTooManyConnections => "sql_too_many_connections",
            ErrorKind::SqlAdminShutdown => "sql_admin_shutdown",
            ErrorKind::SqlError => "sql_error",
            ErrorKind::ReplyUnexpected => "reply_unexpected",
            ErrorKind::SqlLockWaitTimeout => "sql_lock_wait_timeout",
            ErrorKind::SqlCannotConnectNow => "sql_cannot_connect_now",
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How one request ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// A whole HTTP response with this status code.
    Status(u16),
    Error(ErrorKind),
}

/// A latency histogram in microseconds, 3 significant digits.
pub fn new_histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, MAX_TRACKABLE_US, 3).expect("static histogram bounds are valid")
}

#[inline]
fn record_us(h: &mut Histogram<u64>, d: Duration) {
    h.saturating_record(micros(d));
}

/// `d` in whole µs, clamped to what the histograms track. Not `as_micros`, which
/// divides a `u128` (about 25 instructions a call on the per-request path).
#[inline]
pub(crate) fn micros(d: Duration) -> u64 {
    let us = d
        .as_secs()
        .saturating_mul(1_000_000)
        .saturating_add(u64::from(d.subsec_micros()));
    us.clamp(1, MAX_TRACKABLE_US)
}

/// What response checks found inside the responses: the items requests carried
/// (documents of a bulk write, records of a load), how many the server accepted, and
/// the failures by kind. Items of a request that got no response are neither.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ItemCounts {
    /// Items carried by requests that ended (with a response or an error).
    pub sent: u64,
    /// Items the server accepted, as far as the check could tell.
    pub ok: u64,
    /// Failed items by kind ("conflict", "not_loaded", …), in order of first sight.
    pub failed: Vec<(String, u64)>,
    /// Operations a check saw end, by kind ("read", "update", "scan"… of a YCSB
    /// mix, where one operation may take more than one request), in order of first
    /// sight.
    pub operations: Vec<(String, u64)>,
}

impl ItemCounts {
    #[inline]
    pub fn ok(&mut self, n: u64) {
        self.ok += n;
    }

    /// Count `n` failed items of `kind`; allocates only the first time a kind is seen.
    pub fn failed(&mut self, kind: &str, n: u64) {
        match self.failed.iter_mut().find(|(k, _)| k == kind) {
            Some((_, c)) => *c += n,
            None => self.failed.push((kind.to_string(), n)),
        }
    }

    pub fn total_failed(&self) -> u64 {
        self.failed.iter().map(|(_, n)| n).sum()
    }

    /// Count `n` operations of `kind`; allocates only the first time a kind is seen.
    #[inline]
    pub fn operation(&mut self, kind: &str, n: u64) {
        match self.operations.iter_mut().find(|(k, _)| k == kind) {
            Some((_, c)) => *c += n,
            None => self.operations.push((kind.to_string(), n)),
        }
    }

    /// Anything about items (not operations) was counted.
    pub fn has_items(&self) -> bool {
        self.sent > 0 || self.ok > 0 || !self.failed.is_empty()
    }

    pub fn merge(&mut self, other: &ItemCounts) {
        self.sent += other.sent;
        self.ok += other.ok;
        for (k, n) in &other.failed {
            self.failed(k, *n);
        }
        for (k, n) in &other.operations {
            self.operation(k, *n);
        }
    }
}

/// Per-host counters, for the breakdown when requests go round-robin over hosts.
#[derive(Debug, Clone, Default)]
pub struct HostCounters {
    pub responses: u64,
    pub errors: u64,
    pub latency_sum_us: u128,
}

/// Everything one worker measured during one step. Merged with [`Recorder::merge`].
#[derive(Debug, Clone)]
pub struct Recorder {
    /// Response time of every request that got a response: from the moment it was
    /// handed to the socket (closed model) or from its intended start (open model).
    pub latency: Histogram<u64>,
    /// Open model only: from the actual send to the last byte.
    pub service: Histogram<u64>,
    /// Time to establish a TCP connection, for every connection opened.
    pub connect: Histogram<u64>,
    /// Time of the TLS handshake, for every TLS connection opened.
    pub tls_handshake: Histogram<u64>,
    /// From a request's write to its response's head, when the engine times it
    /// (`EngineConfig::time_first_byte`: `ab`'s Waiting); empty otherwise.
    pub waiting: Histogram<u64>,
    /// From a request's write to its response's last byte, timed with `waiting`
    /// (`ab`'s Processing).
    pub processing: Histogram<u64>,
    /// How late each paced request left: from its due time (open model) or the end of
    /// its client's `--wait` (closed model) to the actual send. How exact the load was.
    pub pacer_lag: Histogram<u64>,
    /// Item-level outcomes, from response checks that look inside bodies.
    pub items: ItemCounts,
    /// Counts per HTTP status code (index = code, 0..=999).
    pub statuses: Vec<u64>,
    pub errors: [u64; ErrorKind::ALL.len()],
    /// The first error message seen per kind ("Connection refused (os error 111)"):
    /// made only the first time a kind occurs in this worker, so counting stays free.
    pub error_samples: [Option<String>; ErrorKind::ALL.len()],
    pub bytes_received: u64,
    pub bytes_sent: u64,
    pub connections_opened: u64,
    /// Of `connections_opened`, those that spoke HTTP/2 (the rest spoke HTTP/1.1).
    pub connections_http2: u64,
    /// Responses whose server asked to close the connection (or HTTP/1.0 without keep-alive).
    pub server_closes: u64,
    /// Requests that were still in flight when the step ended; neither success nor error.
    pub unfinished: u64,
    /// Open model: requests that started more than [`LATE_THRESHOLD`] after their intended time.
    pub late: u64,
    /// Open model: requests whose intended start passed but that never started.
    pub dropped: u64,
    /// SQL `--max-tries`: transactions tried more than once, and the tries past
    /// their first all told (pgbench's "retried" and "total number of retries").
    pub retried: u64,
    pub retries: u64,
    /// Open model with a lateness limit (pgbench's `-R --latency-limit`): requests
    /// skipped, not sent, because their due time was already further past than the
    /// limit when their client could send them. Neither a success nor an error.
    pub skipped: u64,
    /// `--coalesce`: the pauses the workers took before waiting for their sockets,
    /// their length in all (µs), and the wake-ups they let pass with too few answers
    /// in flight to gather.
    pub coalesce_pauses: u64,
    pub coalesce_slept_us: u64,
    pub coalesce_passed: u64,
    pub per_host: Vec<HostCounters>,
    pub slowest: TopN,
    pub fastest: TopN,
    /// The names of the labels `labels` counts (the workload's), and why some
    /// requests went under "other", if they did.
    pub label_names: Arc<Labels>,
    /// Per label, indexed like `label_names` (empty without labels).
    pub labels: Vec<LabelStats>,
    /// A worker's running second ([`Recorder::with_ticker`]).
    pub ticker: Option<Ticker>,
    /// The step's per-second timeline, as the coordinator keeps it from the workers'
    /// finished seconds ([`Recorder::add_second`]).
    pub timeline: Option<Timeline>,
    /// What counts as a success (`--ok-status`): the step's result keeps it.
    pub ok: OkStatus,
}

/// An open-model request that starts later than this after its intended time is late.
pub const LATE_THRESHOLD: Duration = Duration::from_millis(1);

impl Recorder {
    pub fn new(n_hosts: usize, n_slow: usize, n_fast: usize) -> Self {
        Recorder {
            latency: new_histogram(),
            service: new_histogram(),
            connect: new_histogram(),
            tls_handshake: new_histogram(),
            waiting: new_histogram(),
            processing: new_histogram(),
            pacer_lag: new_histogram(),
            items: ItemCounts::default(),
            statuses: vec![0; 1000],
            errors: [0; ErrorKind::ALL.len()],
            error_samples: Default::default(),
            bytes_received: 0,
            bytes_sent: 0,
            connections_opened: 0,
            connections_http2: 0,
            server_closes: 0,
            unfinished: 0,
            late: 0,
            retried: 0,
            retries: 0,
            coalesce_pauses: 0,
            coalesce_slept_us: 0,
            coalesce_passed: 0,
            dropped: 0,
            skipped: 0,
            per_host: vec![HostCounters::default(); n_hosts],
            slowest: TopN::new(n_slow, true),
            fastest: TopN::new(n_fast, false),
            label_names: Arc::default(),
            labels: Vec::new(),
            ticker: None,
            timeline: None,
            ok: OkStatus::default(),
        }
    }

    /// Count these statuses as successes (before [`Recorder::with_ticker`]).
    pub fn with_ok(mut self, ok: OkStatus) -> Self {
        self.ok = ok;
        self
    }

    /// Count requests under these labels too.
    pub fn with_labels(mut self, names: Arc<Labels>) -> Self {
        self.labels = vec![LabelStats::default(); names.len()];
        self.label_names = names;
        self
    }

    /// A worker's recorder: count each request in its second too, from `start`.
    pub fn with_ticker(self, start: Instant) -> Self {
        self.with_timed_ticker(start, &[])
    }

    /// [`Recorder::with_ticker`], with a per-second timeline for the labels of index
    /// `also` too (those a threshold names), besides the first [`TIMED_LABELS`].
    pub fn with_timed_ticker(mut self, start: Instant, also: &[u16]) -> Self {
        let n = self.label_names.len();
        let mut timed: Vec<u16> = (0..n.min(TIMED_LABELS) as u16).collect();
        timed.extend(also.iter().filter(|i| usize::from(**i) < n));
        timed.sort_unstable();
        timed.dedup();
        self.ticker = Some(Ticker::new(start, &timed).with_ok(self.ok));
        self
    }

    /// Count a request of `label` that ended at `at` with `bytes` of response, under
    /// its label and in its second; `meter` is the worker's received bytes so far.
    /// Returns the second that ended, for the coordinator, if `at` began a new one.
    #[inline]
    pub fn record_label(
        &mut self,
        label: u16,
        at: Instant,
        outcome: Outcome,
        latency: Duration,
        bytes: u64,
        meter: u64,
    ) -> Option<Box<Finished>> {
        self.record_label_n(label, at, outcome, latency, bytes, meter, 1)
    }

    /// [`Recorder::record_label`] for `n` requests of `label` that ended alike (at `at`,
    /// with `outcome` and `latency`), `bytes` the responses' sum: counted as `n` calls
    /// would count them, in one (a pipelined read's replies, sent in one write).
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub fn record_label_n(
        &mut self,
        label: u16,
        at: Instant,
        outcome: Outcome,
        latency: Duration,
        bytes: u64,
        meter: u64,
        n: u64,
    ) -> Option<Box<Finished>> {
        if let Some(l) = self.labels.get_mut(usize::from(label)) {
            l.record_n(outcome, latency, bytes, n);
        }
        self.ticker
            .as_mut()
            .and_then(|t| t.record(at, label, outcome, latency, bytes, meter, n))
    }

    /// A sample within a request under `label` (a transaction's statement, label
    /// key [`labels::SAMPLE_KEY`]): the label's counts and seconds, never the step's
    /// totals, which count the request once when it ends.
    pub fn record_sample(
        &mut self,
        label: u16,
        at: Instant,
        outcome: Outcome,
        latency: Duration,
        meter: u64,
    ) -> Option<Box<Finished>> {
        if let Some(l) = self.labels.get_mut(usize::from(label)) {
            l.record_n(outcome, latency, 0, 1);
        }
        self.ticker
            .as_mut()
            .and_then(|t| t.record_sample(at, label, outcome, latency, meter))
    }

    /// The coordinator: add a worker's finished second to the step's timeline and its
    /// labels' timelines, and its latencies to the step's histogram (a worker with a
    /// ticker records each response there only, in the same layout: exact).
    pub fn add_second(&mut self, f: Finished) {
        for v in f.second.latency.iter_recorded() {
            self.latency
                .saturating_record_n(v.value_iterated_to(), u64::from(v.count_at_value()));
        }
        self.timeline
            .get_or_insert_with(Timeline::default)
            .add(f.index, f.second);
        for (label, s) in f.labels {
            if let Some(l) = self.labels.get_mut(usize::from(label)) {
                l.timeline
                    .get_or_insert_with(Timeline::default)
                    .add(f.index, s);
            }
        }
    }

    /// Record a finished request. `latency` is what the report shows as response time.
    #[inline]
    pub fn record(
        &mut self,
        host: usize,
        outcome: Outcome,
        latency: Duration,
        sample: impl FnOnce() -> RequestSample,
    ) {
        self.record_n(host, outcome, latency, 1);
        self.offer_sample(latency, sample);
    }

    /// Count `n` requests to `host` that ended alike (`outcome`, `latency`) as `n`
    /// calls of [`Recorder::record`] would, without their samples: the caller offers
    /// each its own ([`Recorder::offer_sample`]).
    #[inline]
    pub fn record_n(&mut self, host: usize, outcome: Outcome, latency: Duration, n: u64) {
        match outcome {
            Outcome::Status(code) => {
                self.statuses[(code as usize).min(999)] += n;
                // With a ticker, the running second holds it ([`Recorder::add_second`]).
                if self.ticker.is_none() {
                    self.latency.saturating_record_n(micros(latency), n);
                }
                if let Some(h) = self.per_host.get_mut(host) {
                    h.responses += n;
                    h.latency_sum_us += (u128::from(latency.as_secs()) * 1_000_000
                        + u128::from(latency.subsec_micros()))
                        * u128::from(n);
                }
            }
            Outcome::Error(kind) => {
                self.errors[kind.index()] += n;
                if let Some(h) = self.per_host.get_mut(host) {
                    h.errors += n;
                }
            }
        }
    }

    /// Offer a request that took `latency` to the slowest and fastest lists; its
    /// sample is made only if it enters one. Whether it did: when it did not, the
    /// lists are as they were, and another of the same latency would not enter either.
    #[inline]
    pub fn offer_sample(
        &mut self,
        latency: Duration,
        sample: impl FnOnce() -> RequestSample,
    ) -> bool {
        let secs = latency.as_secs_f64();
        if self.slowest.wants(secs) || self.fastest.wants(secs) {
            let s = sample();
            self.slowest.offer(s.clone());
            self.fastest.offer(s);
            return true;
        }
        false
    }

    #[inline]
    pub fn record_service(&mut self, d: Duration) {
        record_us(&mut self.service, d);
    }

    #[inline]
    pub fn record_pacer_lag(&mut self, d: Duration) {
        record_us(&mut self.pacer_lag, d);
    }

    #[inline]
    pub fn record_connect(&mut self, d: Duration) {
        self.connections_opened += 1;
        record_us(&mut self.connect, d);
    }

    #[inline]
    pub fn record_tls(&mut self, d: Duration) {
        record_us(&mut self.tls_handshake, d);
    }

    /// A response's head arrived `waiting` after its request was written, and its
    /// last byte `processing` after (`ab`'s Waiting and Processing).
    #[inline]
    pub fn record_waiting(&mut self, waiting: Duration, processing: Duration) {
        record_us(&mut self.waiting, waiting);
        record_us(&mut self.processing, processing);
    }

    /// Keep `message()` as the sample of `kind` unless one is already kept; the
    /// message is only made the first time.
    #[inline]
    pub fn note_error(&mut self, kind: ErrorKind, message: impl FnOnce() -> String) {
        let slot = &mut self.error_samples[kind.index()];
        if slot.is_none() {
            *slot = Some(message());
        }
    }

    /// Error kind → its first message, only kinds with one.
    pub fn error_sample_map(&self) -> BTreeMap<ErrorKind, String> {
        ErrorKind::ALL
            .iter()
            .filter_map(|k| Some((*k, self.error_samples[k.index()].clone()?)))
            .collect()
    }

    pub fn error_count(&self, kind: ErrorKind) -> u64 {
        self.errors[kind.index()]
    }

    pub fn responses(&self) -> u64 {
        self.latency.len()
    }

    pub fn total_errors(&self) -> u64 {
        self.errors.iter().sum()
    }

    /// Status code → count, only codes that occurred.
    pub fn status_counts(&self) -> BTreeMap<u16, u64> {
        self.statuses
            .iter()
            .enumerate()
            .filter(|(_, n)| **n > 0)
            .map(|(code, n)| (code as u16, *n))
            .collect()
    }

    /// Error kind → count, only kinds that occurred.
    pub fn error_counts(&self) -> BTreeMap<ErrorKind, u64> {
        ErrorKind::ALL
            .iter()
            .filter(|k| self.errors[k.index()] > 0)
            .map(|k| (*k, self.errors[k.index()]))
            .collect()
    }

    /// Add another worker's measurements to these. Exact: no sample is lost or approximated.
    pub fn merge(&mut self, other: &Recorder) {
        // Same bounds on both sides, so adding cannot fail.
        self.latency
            .add(&other.latency)
            .expect("same histogram bounds");
        self.service
            .add(&other.service)
            .expect("same histogram bounds");
        self.connect
            .add(&other.connect)
            .expect("same histogram bounds");
        self.tls_handshake
            .add(&other.tls_handshake)
            .expect("same histogram bounds");
        self.waiting
            .add(&other.waiting)
            .expect("same histogram bounds");
        self.processing
            .add(&other.processing)
            .expect("same histogram bounds");
        self.pacer_lag
            .add(&other.pacer_lag)
            .expect("same histogram bounds");
        self.items.merge(&other.items);
        for (a, b) in self.statuses.iter_mut().zip(&other.statuses) {
            *a += b;
        }
        for (a, b) in self.errors.iter_mut().zip(&other.errors) {
            *a += b;
        }
        for (a, b) in self.error_samples.iter_mut().zip(&other.error_samples) {
            if a.is_none() {
                a.clone_from(b);
            }
        }
        self.bytes_received += other.bytes_received;
        self.bytes_sent += other.bytes_sent;
        self.connections_opened += other.connections_opened;
        self.connections_http2 += other.connections_http2;
        self.server_closes += other.server_closes;
        self.unfinished += other.unfinished;
        self.late += other.late;
        self.dropped += other.dropped;
        self.retried += other.retried;
        self.retries += other.retries;
        self.skipped += other.skipped;
        self.coalesce_pauses += other.coalesce_pauses;
        self.coalesce_slept_us += other.coalesce_slept_us;
        self.coalesce_passed += other.coalesce_passed;
        if self.per_host.len() < other.per_host.len() {
            self.per_host
                .resize(other.per_host.len(), HostCounters::default());
        }
        for (a, b) in self.per_host.iter_mut().zip(&other.per_host) {
            a.responses += b.responses;
            a.errors += b.errors;
            a.latency_sum_us += b.latency_sum_us;
        }
        self.slowest.merge(&other.slowest);
        self.fastest.merge(&other.fastest);
        match (&mut self.timeline, &other.timeline) {
            (Some(a), Some(b)) => a.merge(b),
            (None, Some(b)) => self.timeline = Some(b.clone()),
            _ => {}
        }
        self.merge_labels(other);
    }

    /// Labels are matched by name, so recorders of different label lists (results of
    /// other runs) still add up; the same list (a step's workers) adds index by index.
    fn merge_labels(&mut self, other: &Recorder) {
        if Arc::ptr_eq(&self.label_names, &other.label_names)
            || self.label_names.list == other.label_names.list
        {
            for (a, b) in self.labels.iter_mut().zip(&other.labels) {
                a.merge(b);
            }
            return;
        }
        let mut names = (*self.label_names).clone();
        for (name, stats) in other.label_names.list.iter().zip(&other.labels) {
            match names.list.iter().position(|n| n == name) {
                Some(i) => self.labels[i].merge(stats),
                None => {
                    names.list.push(name.clone());
                    self.labels.push(stats.clone());
                }
            }
        }
        names.note = names.note.or_else(|| other.label_names.note.clone());
        self.label_names = Arc::new(names);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(ms: u64) -> RequestSample {
        RequestSample {
            elapsed_s: ms as f64 / 1000.0,
            request: 0,
            status: 200,
            client: 0,
            index: ms,
            sent: None,
        }
    }

    #[test]
    fn merge_is_exact() {
        let mut a = Recorder::new(2, 3, 3);
        let mut b = Recorder::new(2, 3, 3);
        for ms in 1..=100u64 {
            let r = if ms % 2 == 0 { &mut a } else { &mut b };
            r.record(
                (ms % 2) as usize,
                Outcome::Status(200),
                Duration::from_millis(ms),
                || sample(ms),
            );
        }
        b.record(0, Outcome::Status(503), Duration::from_millis(7), || {
            sample(7)
        });
        b.record(
            1,
            Outcome::Error(ErrorKind::Timeout),
            Duration::from_secs(5),
            || sample(5000),
        );
        a.merge(&b);
        assert_eq!(a.responses(), 101);
        assert_eq!(a.status_counts()[&200], 100);
        assert_eq!(a.status_counts()[&503], 1);
        assert_eq!(a.error_count(ErrorKind::Timeout), 1);
        assert_eq!(a.latency.max(), a.latency.highest_equivalent(100_000));
        assert_eq!(a.per_host[0].responses + a.per_host[1].responses, 101);
        assert_eq!(a.per_host[1].errors, 1);
        let slow: Vec<u64> = a.slowest.as_slice().iter().map(|s| s.index).collect();
        assert_eq!(slow, vec![5000, 100, 99]);
        let fast: Vec<u64> = a.fastest.as_slice().iter().map(|s| s.index).collect();
        assert_eq!(fast, vec![1, 2, 3]);
    }

    /// A label a threshold names is timed whatever its rank: before, only the first
    /// [`TIMED_LABELS`] had seconds of their own, so `p99[5s]{name=ninth}` had no
    /// timeline to judge and `--abort-on-fail` nothing to read live.
    #[test]
    fn a_label_a_threshold_names_is_timed_past_the_busiest_few() {
        let mut set = LabelSet::new();
        for i in 0..TIMED_LABELS + 2 {
            set.intern("name", &format!("n{i}"));
        }
        let names = Arc::new(set.finish("test"));
        let t0 = Instant::now();
        let named = TIMED_LABELS as u16 + 1;
        let mut r = Recorder::new(1, 0, 0)
            .with_labels(names)
            .with_timed_ticker(t0, &[named, 999]);
        let ms = Duration::from_millis;
        for label in [0, TIMED_LABELS as u16, named] {
            assert!(r
                .record_label(label, t0 + ms(10), Outcome::Status(200), ms(3), 5, 5)
                .is_none());
        }
        let f = r
            .ticker
            .as_mut()
            .and_then(|t| t.finish(15))
            .expect("a second");
        let timed: Vec<u16> = f.labels.iter().map(|(i, _)| *i).collect();
        assert_eq!(
            timed,
            vec![0, named],
            "the first few and the named one only"
        );
        assert_eq!(f.second.responses, 3);
    }

    /// What a second, a label and the step hold, to compare two recorders by.
    fn counted(r: &mut Recorder, meter: u64) -> impl PartialEq + std::fmt::Debug {
        let f = r
            .ticker
            .as_mut()
            .and_then(|t| t.finish(meter))
            .expect("a second");
        let s = &f.second;
        let l = &r.labels[1];
        (
            (s.responses, s.statuses.clone(), s.errors, s.bytes_received),
            (s.latency.len(), s.latency.max(), s.latency.min()),
            (l.responses, l.statuses.clone(), l.errors, l.bytes_received),
            l.latency.as_ref().map(|h| (h.len(), h.max())),
            (r.statuses.clone(), r.errors, r.per_host[0].responses),
            (r.per_host[0].errors, r.per_host[0].latency_sum_us),
        )
    }

    /// Labels `group=<name>`, one per name.
    fn groups(names: &[&str]) -> Arc<Labels> {
        Arc::new(Labels {
            list: names
                .iter()
                .map(|n| Label {
                    key: "group".into(),
                    value: (*n).into(),
                })
                .collect(),
            note: None,
        })
    }

    #[test]
    fn requests_that_ended_alike_count_once_as_they_would_one_by_one() {
        // A pipelined read's replies to commands sent in one write are recorded with
        // `record_n`/`record_label_n`: every count must be what n calls would make.
        let t0 = Instant::now();
        let names = groups(&["get", "set"]);
        let worker = || {
            Recorder::new(1, 0, 0)
                .with_labels(names.clone())
                .with_ticker(t0)
        };
        let (mut one, mut many) = (worker(), worker());
        let ms = Duration::from_millis;
        let (at, lat) = (t0 + ms(300), ms(3));
        let reset = Outcome::Error(ErrorKind::Reset);
        for (outcome, n, bytes) in [(Outcome::Status(200), 16, 9), (reset, 3, 0)] {
            for _ in 0..n {
                one.record(0, outcome, lat, || unreachable!("no lists kept"));
                assert!(one.record_label(1, at, outcome, lat, bytes, 0).is_none());
            }
            many.record_n(0, outcome, lat, n);
            let sum = bytes * n;
            assert!(many
                .record_label_n(1, at, outcome, lat, sum, 0, n)
                .is_none());
        }
        assert_eq!(counted(&mut one, 144), counted(&mut many, 144));
        assert_eq!(one.labels[1].responses, 16);
        assert_eq!(one.errors[ErrorKind::Reset.index()], 3);
    }

    #[test]
    fn workers_seconds_and_labels_add_up_at_the_coordinator() {
        let t0 = Instant::now();
        let names = groups(&["search", "load"]);
        let worker = || {
            Recorder::new(1, 0, 0)
                .with_labels(names.clone())
                .with_ticker(t0)
        };
        let (mut a, mut b) = (worker(), worker());
        let mut coord = Recorder::new(1, 0, 0).with_labels(names.clone());
        let ms = Duration::from_millis;
        let mut done = Vec::new();
        done.extend(a.record_label(0, t0 + ms(100), Outcome::Status(200), ms(5), 10, 10));
        done.extend(b.record_label(1, t0 + ms(1500), Outcome::Status(503), ms(50), 20, 20));
        done.extend(b.record_label(
            1,
            t0 + ms(1600),
            Outcome::Error(ErrorKind::Reset),
            ms(1),
            0,
            25,
        ));
        done.extend(a.record_label(0, t0 + ms(2200), Outcome::Status(200), ms(7), 10, 20));
        for r in [&mut a, &mut b] {
            let meter = if r.labels[0].responses > 0 { 20 } else { 25 };
            done.extend(r.ticker.as_mut().and_then(|t| t.finish(meter)));
        }
        for f in done {
            coord.add_second(*f);
        }
        a.merge(&b);
        coord.merge(&a);
        let e = coord.timeline.as_ref().expect("kept").entries();
        let counts: Vec<(u64, u64, u64, u64)> = e
            .values()
            .map(|s| {
                (
                    s.responses,
                    s.bad_status,
                    s.total_errors(),
                    s.bytes_received,
                )
            })
            .collect();
        assert_eq!(counts, vec![(1, 0, 0, 10), (1, 1, 1, 25), (1, 0, 0, 10)]);
        assert_eq!(coord.labels[0].responses, 2);
        assert_eq!(coord.labels[1].total(), 2);
        let load = coord.labels[1].timeline.as_ref().expect("timed").entries();
        assert_eq!(load.keys().copied().collect::<Vec<_>>(), vec![1]);
        assert_eq!(load[&1].statuses, vec![(503, 1)]);
        // The step's histogram, from the workers' running seconds: each response once,
        // in its own bucket.
        assert_eq!(coord.latency.len(), 3);
        assert_eq!(
            coord.latency.max(),
            coord.latency.highest_equivalent(50_000)
        );
        assert_eq!(coord.latency.min(), coord.latency.lowest_equivalent(5_000));
    }

    #[test]
    fn a_statement_s_sample_counts_under_its_label_never_in_the_step_s_totals() {
        let t0 = Instant::now();
        let names = Arc::new(Labels {
            list: ["script=a", "stmt=1", "stmt=2"]
                .iter()
                .map(|l| {
                    let (key, value) = l.split_once('=').unwrap();
                    Label {
                        key: key.into(),
                        value: value.into(),
                    }
                })
                .collect(),
            note: None,
        });
        let mut w = Recorder::new(1, 0, 0)
            .with_labels(names.clone())
            .with_ticker(t0);
        let mut coord = Recorder::new(1, 0, 0).with_labels(names);
        let ms = Duration::from_millis;
        let mut done = Vec::new();
        // One transaction of two statements, the second failed.
        done.extend(w.record_sample(1, t0 + ms(10), Outcome::Status(250), ms(4), 0));
        let dup = Outcome::Error(ErrorKind::SqlUniqueViolation);
        done.extend(w.record_sample(2, t0 + ms(1200), dup, ms(3), 0));
        w.record_n(0, dup, ms(1201), 1);
        done.extend(w.record_label(0, t0 + ms(1201), dup, ms(1201), 0, 0));
        done.extend(w.ticker.as_mut().and_then(|t| t.finish(0)));
        for f in done {
            coord.add_second(*f);
        }
        coord.merge(&w);
        let seconds = coord.timeline.as_ref().expect("kept").entries();
        let totals: u64 = seconds
            .values()
            .map(|s| s.responses + s.total_errors())
            .sum();
        assert_eq!(totals, 1, "the transaction once, its statements not at all");
        assert_eq!(coord.errors[ErrorKind::SqlUniqueViolation.index()], 1);
        assert_eq!(coord.latency.len(), 0, "no response: it failed");
        let (s1, s2) = (&coord.labels[1], &coord.labels[2]);
        assert_eq!((s1.responses, s1.total()), (1, 1));
        assert_eq!(s2.errors[ErrorKind::SqlUniqueViolation.index()], 1);
        let t1 = s1.timeline.as_ref().expect("timed").entries();
        assert_eq!(t1[&0].responses, 1);
        assert!(labels::counts_requests("script") && !labels::counts_requests("stmt"));
    }

    #[test]
    fn a_second_costs_a_few_kilobytes() {
        // 3,328 u32 counters: 13 KB per running second per worker; kept seconds are
        // serialized (see timeline's tests).
        let h = new_second_histogram();
        assert_eq!(h.distinct_values(), 3328);
        assert!(h.distinct_values() * std::mem::size_of::<u32>() <= 14 * 1024);
    }

    #[test]
    fn latency_is_clamped_not_lost() {
        let mut r = Recorder::new(1, 0, 0);
        r.record(0, Outcome::Status(200), Duration::from_secs(10_000), || {
            sample(0)
        });
        r.record(0, Outcome::Status(200), Duration::ZERO, || sample(0));
        assert_eq!(r.responses(), 2);
    }
}
