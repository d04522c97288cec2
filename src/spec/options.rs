//! The plain options of a request-response run (no clap: `cli` fills them from flags,
//! `demo` from the tutorial's settings, a library user by hand) and the checks of the
//! request's and the session's own values.

use std::path::PathBuf;
use std::time::Duration;

use crate::engine::MAX_TIMEOUT;
use crate::pattern::{self, PatternSet};
use crate::plan::{Defaults, Order};
use crate::probe::ProbeKind;
use crate::result::csv::CsvFormat;
use crate::result::Shard;
use crate::stats::OkStatus;

use super::{
    at_most_duration, before, kv, parse_header, sysbench, Load, SpecError, StartAt, MAX_LISTED,
    MAX_STEPS, MAX_THREADS,
};

/// A request body for patterns without their own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Body {
    /// `-b TEXT`.
    Text(String),
    /// `--body-file PATH`, read when the run is built.
    File(PathBuf),
}

/// What to request and how: the patterns, the defaults for what they leave out, the
/// connection, and what each step keeps.
#[derive(Debug, Clone)]
pub struct RequestOptions {
    /// A single URL instead of a patterns file.
    pub url: Option<String>,
    /// `--request-patterns-file`.
    pub patterns_file: Option<PathBuf>,
    /// `--default-hosts`, used round-robin.
    pub hosts: Vec<String>,
    pub port: u16,
    pub path: String,
    pub method: String,
    /// `--timeout` of each request (drnbench: `--default-timeout`).
    pub timeout: Duration,
    /// Send https to hosts named without a scheme.
    pub https: bool,
    /// `-H`, as typed: "Name: value".
    pub headers: Vec<String>,
    /// `--secret-header`: more names whose values are redacted (see [`crate::redact`]).
    pub secret_headers: Vec<String>,
    /// `--secret-param`: more query parameters whose values are redacted.
    pub secret_params: Vec<String>,
    /// `--allow-pattern-hosts`: a patterns file may send load to hosts of its own.
    pub allow_pattern_hosts: bool,
    pub body: Option<Body>,
    /// `-T`.
    pub content_type: Option<String>,
    pub keep_alive: bool,
    /// Accept any TLS certificate.
    pub insecure: bool,
    /// `--cacert`: a PEM file of CA certificates to trust as well.
    pub cacert: Option<PathBuf>,
    /// `--wait`: each client's pause between requests.
    pub wait: Duration,
    pub order: Order,
    /// None: a seed from the clock and the process id.
    pub seed: Option<u64>,
    /// Worker threads; 0: one per core.
    pub threads: usize,
    /// `--n-slow-requests`.
    pub n_slow: usize,
    /// `--n-fast-requests`.
    pub n_fast: usize,
    /// `--request-list`: the result keeps every planned request, not only those its
    /// slowest and fastest lists name.
    pub request_list: bool,
    /// The CSV result's columns.
    pub format: CsvFormat,
    /// `redis://` and `memcached://` targets' flags (`--keys`, `--ratio`…).
    pub kv: kv::KvOptions,
    /// `--ok-status`: what counts as a success.
    pub ok_status: OkStatus,
    /// `--http2`, `--streams`.
    pub connection: crate::engine::ConnectionSettings,
    /// Time each response's head from its request's write (`ab`'s Waiting).
    pub time_first_byte: bool,
    /// Speak HTTP/1.0 as ApacheBench does (`hakaru ab`).
    pub http10: bool,
    /// `hakaru sysbench run`: the test and its database, the workload instead of a URL's.
    pub sysbench: Option<sysbench::SysbenchLoad>,
}

impl Default for RequestOptions {
    /// The flags' defaults.
    fn default() -> Self {
        let d = Defaults::default();
        RequestOptions {
            url: None,
            patterns_file: None,
            hosts: d.hosts,
            port: d.port,
            path: d.path,
            method: d.method,
            timeout: d.timeout,
            https: d.https,
            headers: Vec::new(),
            secret_headers: Vec::new(),
            secret_params: Vec::new(),
            allow_pattern_hosts: false,
            body: None,
            content_type: None,
            keep_alive: d.keep_alive,
            insecure: false,
            cacert: None,
            wait: Duration::ZERO,
            order: Order::Random,
            seed: None,
            threads: 0,
            n_slow: 5,
            n_fast: 5,
            request_list: false,
            format: CsvFormat::Full,
            kv: kv::KvOptions::default(),
            ok_status: OkStatus::default(),
            connection: Default::default(),
            time_first_byte: false,
            http10: false,
            sysbench: None,
        }
    }
}

/// The session around the load: server probes, rounds, warm-up.
#[derive(Debug, Clone)]
pub struct SessionOptions {
    /// Server-side numbers read before and after each step on every (plain http) host.
    pub probes: Vec<ProbeKind>,
    /// A local server process sampled during each step.
    pub probe_pid: Option<u32>,
    /// The cache hit rate the request set was planned for, 0..1.
    pub expect_cache_hit_rate: Option<f64>,
    /// Every step runs this many times.
    pub rounds: usize,
    /// Uncounted load before the first step.
    pub warmup: Option<Duration>,
    /// Go on after a step that got no response at all.
    pub keep_going: bool,
    /// This machine's part of a run spread over many (`--shard K/N`).
    pub shard: Option<Shard>,
    /// `--start-at`: when the first step (or the warm-up) starts; every later step
    /// starts at its planned offset from it, so shards on many machines stay in step.
    pub start_at: Option<StartAt>,
    /// `--before-round`/`--before-step`: commands run before rounds and steps.
    pub before: before::BeforeOptions,
}

impl Default for SessionOptions {
    fn default() -> Self {
        SessionOptions {
            probes: Vec::new(),
            probe_pid: None,
            expect_cache_hit_rate: None,
            rounds: 1,
            warmup: None,
            keep_going: false,
            shard: None,
            start_at: None,
            before: before::BeforeOptions::default(),
        }
    }
}

/// Everything a request-response run is asked to do.
#[derive(Debug, Clone)]
pub struct RunOptions {
    pub request: RequestOptions,
    pub session: SessionOptions,
    pub load: Load,
    /// Pause between steps.
    pub interval: Duration,
    /// The CSV result's path (the JSON result goes beside it); None: no files.
    pub output_path: Option<PathBuf>,
    /// As typed, for the result.
    pub command_line: Vec<String>,
}

impl RequestOptions {
    pub(super) fn check(&self) -> Result<(), SpecError> {
        if self.threads > MAX_THREADS {
            return Err(SpecError::AtMost {
                flag: "--threads",
                max: MAX_THREADS as u64,
                found: self.threads as u64,
            });
        }
        for (flag, n) in [
            ("--n-slow-requests", self.n_slow),
            ("--n-fast-requests", self.n_fast),
        ] {
            if n > MAX_LISTED {
                return Err(SpecError::AtMost {
                    flag,
                    max: MAX_LISTED as u64,
                    found: n as u64,
                });
            }
        }
        if self.timeout.is_zero() {
            return Err(SpecError::NotPositive { flag: "--timeout" });
        }
        if self.timeout > MAX_TIMEOUT {
            return Err(SpecError::TooLong {
                flag: "--timeout",
                max: MAX_TIMEOUT,
                why: "latency is tracked up to one hour",
            });
        }
        at_most_duration("--wait", self.wait)?;
        match (&self.url, &self.patterns_file) {
            (Some(_), Some(_)) => return Err(SpecError::UrlAndFile),
            // A sysbench test names its own database.
            (None, None) if self.sysbench.is_none() => return Err(SpecError::NothingToRequest),
            _ => {}
        }
        self.parsed_headers().map(|_| ())
    }

    pub(super) fn patterns(&self) -> Result<PatternSet, SpecError> {
        match (&self.url, &self.patterns_file) {
            (Some(_), Some(_)) => Err(SpecError::UrlAndFile),
            (Some(url), None) => Ok(pattern::from_url(url)?),
            (None, Some(path)) => Ok(pattern::load_file(path)?),
            (None, None) => Err(SpecError::NothingToRequest),
        }
    }

    pub(super) fn parsed_headers(&self) -> Result<Vec<(String, String)>, SpecError> {
        self.headers.iter().map(|h| parse_header(h)).collect()
    }
}

impl SessionOptions {
    pub(super) fn check(&self) -> Result<(), SpecError> {
        if self.rounds == 0 {
            return Err(SpecError::AtLeast {
                flag: "--rounds",
                min: 1,
            });
        }
        if self.rounds > MAX_STEPS {
            return Err(SpecError::AtMost {
                flag: "--rounds",
                max: MAX_STEPS as u64,
                found: self.rounds as u64,
            });
        }
        if let Some(r) = self.expect_cache_hit_rate {
            // Written so that NaN is refused too.
            if !(0.0..=1.0).contains(&r) {
                return Err(SpecError::HitRate(r));
            }
        }
        if let Some(w) = self.warmup {
            at_most_duration("--warmup", w)?;
        }
        self.before.check()
    }
}
