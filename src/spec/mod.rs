//! The run specification: what a request-response run is asked to do, as plain options
//! (no clap: `cli` fills them from flags, `demo` from the tutorial's fixed settings, a
//! library user by hand), validated in ONE place and turned into everything the runner
//! needs — the steps, settings and outputs ([`RunSpec`]), the workload and the
//! engine's configuration ([`Ready`]).
//!
//! Every range check lives here, with an error that names the flag the value came
//! from. [`RunOptions::check`] runs the checks that need nothing from outside (numbers,
//! durations, rates, headers) and [`RunOptions::build`] runs them first, before it reads
//! a patterns file, resolves a host or loads a certificate; nothing here sends load.
//! The parsers of durations, counts and lists of rates are here too ([`parse`]), so
//! `cli` only names them.

pub mod ab;
pub mod before;
pub mod bulk;
mod bulk_check;
mod bulk_template;
pub mod find_max;
pub mod kv;
mod load;
mod parse;
pub mod pgbench;
pub mod rate;
pub mod sql;
mod start;
pub mod sysbench;
pub mod threshold;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use crate::engine::{EngineConfig, Lane, StepSpec, MAX_DURATION, MAX_TIMEOUT};
use crate::http::url::kv_scheme;
use crate::pattern::{self, PatternError, PatternSet};
use crate::plan::{Defaults, Order, Plan, PlanError};
use crate::probe::{ProbeKind, Prober, ProcessWatch};
use crate::redact::Redactor;
use crate::result::csv::CsvFormat;
use crate::result::store::Outputs;
use crate::result::{LoadModel, Mode, Settings, Shard};
use crate::runner::RunSpec;
use crate::stats::OkStatus;
use crate::workload::kv::RunWorkload;
use crate::workload::PlanWorkload;

pub use load::Load;
pub use parse::{parse_count, parse_duration, parse_ok_status, parse_shard};
pub use rate::{parse_profile, RateSyntaxError, RateText};
pub use start::{parse_start_at, start_moment, StartAt, START_AT_TOLERANCE};

/// The most worker threads a run may ask for (`--threads`): far above any machine's
/// cores, low enough that a typo does not try to spawn a hundred thousand threads.
pub const MAX_THREADS: usize = 4096;
/// The most clients (connections) one step may have (`-c`, `--end-n-clients`).
pub const MAX_CLIENTS: usize = 1_000_000;
/// The most slowest or fastest requests a step may list: each is kept per worker.
pub const MAX_LISTED: usize = 10_000;
/// The most steps a run may have, all rounds together: each is a row of the result,
/// kept in memory and rewritten after every step.
pub const MAX_STEPS: usize = 10_000;
/// A step's length when `run` is given neither `-d` nor `-n`.
pub const DEFAULT_RUN_DURATION: Duration = Duration::from_secs(10);

/// Why `--coalesce` is refused on an https:// target.
pub const COALESCE_NEEDS_PLAIN: &str = "--coalesce: an https:// target's answers are not stamped with their arrival (TLS reads go through rustls); it works on plain http:// targets";

/// A value the options refuse, named by its flag. Nothing has been sent when one is returned.
#[derive(Debug, thiserror::Error)]
pub enum SpecError {
    /// A key-value run's flag, URL or commands file (the message names which).
    #[error("{0}")]
    Kv(String),
    /// `--before-round`/`--before-step` and their limit (the message names the flag).
    #[error("{0}")]
    Before(String),
    /// `--coalesce` on a target whose reads are not stamped.
    #[error("{0}")]
    Coalesce(&'static str),
    /// `hakaru sysbench`'s connection (the message names the option).
    #[error("{0}")]
    Sysbench(#[from] sysbench::SysbenchError),
    #[error("--shard {shard}: {total} {what} cannot be shared by {count} machines, each needs at least one")]
    ShardTooSmall {
        shard: Shard,
        what: &'static str,
        total: u64,
        count: u32,
    },
    #[error("--start-at {at}: that moment passed {ago:.1} s ago (this machine's clock); give a later time, or +30s")]
    StartAtPast { at: String, ago: f64 },
    #[error("--start-at: step {step} ends by request count (-n), so the steps after it have no planned start; give -d")]
    StartAtNeedsDuration { step: usize },
    #[error("--format json is for -o - (the result on stdout); with a file, the JSON result is written beside the CSV anyway")]
    FormatJsonToFile,
    #[error("{flag} must be at least {min}")]
    AtLeast { flag: &'static str, min: u64 },
    #[error("{flag} must be at most {max}, found {found}")]
    AtMost {
        flag: &'static str,
        max: u64,
        found: u64,
    },
    #[error("{flag} must be positive")]
    NotPositive { flag: &'static str },
    #[error("{flag} must be at most {} s ({why})", .max.as_secs())]
    TooLong {
        flag: &'static str,
        max: Duration,
        why: &'static str,
    },
    #[error("--end-n-clients ({end}) is below --start-n-clients ({start})")]
    EndBelowStart { start: usize, end: usize },
    #[error(
        "--rounds {rounds} × {steps} step(s) is more than the {MAX_STEPS} steps a run may have"
    )]
    TooManySteps { rounds: usize, steps: usize },
    #[error("--start-n-clients to --end-n-clients by --step makes {steps} steps, more than the {MAX_STEPS} a run may have")]
    TooManyClientSteps { steps: usize },
    #[error("--expect-cache-hit-rate must be between 0 and 1, found {0}")]
    HitRate(f64),
    /// `--rate` (see [`rate`]).
    // Not a `source`: the message already says it, and `{:#}` would say it twice.
    #[error("--rate {text}: {why}")]
    Rate { text: String, why: RateSyntaxError },
    #[error("{flags}: {why}")]
    Conflict {
        flags: &'static str,
        why: &'static str,
    },
    #[error("give either a URL or --request-patterns-file, not both")]
    UrlAndFile,
    #[error("nothing to request: give a URL or --request-patterns-file")]
    NothingToRequest,
    #[error("-H \"{0}\": expected \"Name: value\"")]
    HeaderNoColon(String),
    #[error("-H \"{header}\": \"{name}\" is not a header name")]
    HeaderName { header: String, name: String },
    #[error("-H \"{0}\": a header value cannot contain a line break")]
    HeaderLineBreak(String),
    #[error("cannot read --body-file {path}: {why}")]
    BodyFile { path: String, why: std::io::Error },
    #[error(transparent)]
    Patterns(#[from] PatternError),
    #[error(transparent)]
    Plan(#[from] PlanError),
    /// `--cacert`, `--insecure`: the message names the flag.
    #[error("{0}")]
    Tls(String),
    /// `--probe-pid`: the message names the flag.
    #[error("{0}")]
    ProbePid(String),
}

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

/// A validated run, ready for [`crate::runner::run`].
pub struct Ready {
    /// Steps, interval, rounds, warm-up, probes, outputs and the settings recorded in the result.
    pub run: RunSpec,
    pub workload: Arc<RunWorkload>,
    pub engine: EngineConfig,
}

impl Ready {
    /// Open model (`--rate`): requests go out on a timetable, and a ramp's steps differ by
    /// rate, not by clients.
    pub fn open_model(&self) -> bool {
        self.run.steps.iter().any(|s| s.rate.is_some())
    }
}

impl RunOptions {
    /// The checks that need nothing from outside: every number, duration, rate and header.
    pub fn check(&self) -> Result<(), SpecError> {
        let steps = self.shared(self.steps()?)?;
        start_moment(self.session.start_at, &steps, self.session.rounds).map(|_| ())
    }

    /// This machine's part of the steps when it is one shard of many (`--shard`).
    fn shared(&self, mut steps: Vec<StepSpec>) -> Result<Vec<StepSpec>, SpecError> {
        if let Some(shard) = self.session.shard {
            for step in &mut steps {
                share_step(step, shard)?;
            }
        }
        Ok(steps)
    }

    /// Validate the options and build the run: read the patterns (and body) files,
    /// resolve the hosts, load TLS roots, check the probed process. Sends nothing.
    pub fn build(&self) -> Result<Ready, SpecError> {
        // The settings record the whole plan; the steps run are this machine's share.
        let whole = self.steps()?;
        let steps = self.shared(whole.clone())?;
        let r = &self.request;
        let s = &self.session;
        let start_at = start_moment(s.start_at, &steps, s.rounds)?;
        let redactor = Redactor::new(&r.secret_headers).with_params(&r.secret_params);
        // Each shard draws its own requests, reproducibly from the one seed.
        let seed = r.seed.unwrap_or_else(clock_seed);
        let seed = s
            .shard
            .map_or(seed, |k| crate::rng::derive(seed, u64::from(k.index)));
        let (workload, described) = self.workload(&redactor, seed)?;
        let tls = if described.uses_tls || r.insecure || r.cacert.is_some() {
            Some(
                crate::http::tls_connector(r.insecure, r.cacert.as_deref())
                    .map_err(SpecError::Tls)?,
            )
        } else {
            None
        };
        if let Some(pid) = s.probe_pid {
            ProcessWatch::check(pid).map_err(SpecError::ProbePid)?;
        }
        let threads = if r.threads == 0 {
            crate::sysinfo::cpus()
        } else {
            r.threads
        };
        let most_clients = steps.iter().map(|s| s.n_clients).max().unwrap_or(1);
        let warmup = s.warmup.filter(|w| !w.is_zero());
        let settings = Settings {
            duration_s: whole[0].duration.map(|d| d.as_secs_f64()),
            n_requests: whole[0].n_requests,
            interval_s: self.interval.as_secs_f64(),
            wait_s: r.wait.as_secs_f64(),
            timeout_s: r.timeout.as_secs_f64(),
            keep_alive: r.keep_alive,
            model: if steps.iter().any(|s| s.rate.is_some()) {
                LoadModel::Open
            } else {
                LoadModel::Closed
            },
            order: r.order.into(),
            seed,
            patterns_source: described.source,
            n_patterns: described.n_patterns,
            patterns_sha256: described.digest,
            request_list: r.request_list,
            insecure: r.insecure,
            // A worker without a client would idle: the engine runs at most one per client.
            threads: threads.min(most_clients.max(1)),
            planned_cache_hit_rate: s.expect_cache_hit_rate,
            warmup_s: warmup.map(|w| w.as_secs_f64()),
            rounds: s.rounds,
            bulk: None,
            shard: s.shard,
            merged: None,
            start_at: start_at.map(crate::sysinfo::rfc3339),
            http2_streams: r.connection.http2.then_some(r.connection.streams),
            pipeline: r.kv.pipeline,
            coalesce_us: r.connection.coalesce.map(|d| d.as_micros() as u64),
            store_commands: workload.store_commands(),
        };
        let databases = crate::probe::databases(crate::engine::Workload::targets(&workload));
        if let Some(why) = crate::probe::missing(&s.probes, &databases) {
            return Err(SpecError::Kv(why));
        }
        let prober = (!s.probes.is_empty()).then(|| Prober {
            kinds: s.probes.clone(),
            // The probes speak plain HTTP only.
            hosts: described.probe_hosts,
            timeout: r.timeout.min(Duration::from_secs(5)),
            databases,
        });
        let engine = EngineConfig {
            threads,
            wait: r.wait,
            keep_alive: r.keep_alive,
            n_slow: r.n_slow,
            n_fast: r.n_fast,
            tls,
            lane: s.shard.map_or(Lane::ALL, |k| {
                Lane::shard(u64::from(k.index - 1), u64::from(k.count))
            }),
            ok_status: r.ok_status,
            label_feed: None,
            skip_late: None,
            budget_per_client: false,
            connection: kv::connection(r),
            time_first_byte: r.time_first_byte,
        };
        let run = RunSpec {
            mode: match self.load {
                Load::Step { .. } => Mode::Run,
                Load::Clients { .. } | Load::Rates { .. } => Mode::Ramp,
            },
            // Secret header values go on the wire, never into results.
            command_line: redactor.command_line(&self.command_line),
            steps,
            interval: self.interval,
            settings,
            outputs: self
                .output_path
                .as_ref()
                .map(|p| Outputs::beside(p, r.format)),
            prober,
            probe_pid: s.probe_pid,
            rounds: s.rounds,
            warmup,
            keep_going: s.keep_going,
            until_saturated: matches!(
                self.load,
                Load::Clients {
                    until_saturated: true,
                    ..
                }
            ),
            hooks: None,
            start_at,
            before: s.before.runner(),
            first_draw: 0,
        };
        Ok(Ready {
            run,
            workload: Arc::new(workload),
            engine,
        })
    }

    /// The run's workload: a sysbench test, or by its URL's scheme a SQL database's
    /// scripts, a key-value store's commands, or the patterns' requests.
    fn workload(
        &self,
        redactor: &Redactor,
        seed: u64,
    ) -> Result<(RunWorkload, kv::Described), SpecError> {
        let (r, s) = (&self.request, &self.session);
        if let Some(load) = &r.sysbench {
            let (w, d) = sysbench::build(load, r, seed)?;
            return Ok((RunWorkload::Sysbench(Box::new(w)), d));
        }
        let sql_url = r.url.as_deref().filter(|u| sql::is_sql(u));
        match r.url.as_deref().filter(|u| kv_scheme(u).is_some()) {
            _ if sql_url.is_some() => {
                let url = sql_url.expect("matched above");
                let password = sql::env_password(url);
                let (w, d) = sql::build(url, r, seed, password)?;
                Ok((RunWorkload::Sql(Box::new(w)), d))
            }
            Some(url) => {
                if let Some(why) = s
                    .probes
                    .contains(&ProbeKind::Redis)
                    .then(|| kv::probe_refusal(url))
                    .flatten()
                {
                    return Err(SpecError::Kv(format!("--probe redis: {why}")));
                }
                let (w, d) = kv::build(url, r, seed)?;
                Ok((RunWorkload::Kv(Box::new(w)), d))
            }
            None => {
                kv::check_unused(&r.kv)?;
                self.plan_workload(redactor, seed)
            }
        }
    }

    /// The request-response workload: the patterns read, the plan built and redacted.
    fn plan_workload(
        &self,
        redactor: &Redactor,
        seed: u64,
    ) -> Result<(RunWorkload, kv::Described), SpecError> {
        let r = &self.request;
        let set = r.patterns()?;
        let body = match &r.body {
            Some(Body::Text(b)) => Some(b.clone().into_bytes()),
            Some(Body::File(p)) => Some(std::fs::read(p).map_err(|why| SpecError::BodyFile {
                path: p.display().to_string(),
                why,
            })?),
            None => None,
        };
        let defaults = Defaults {
            hosts: r
                .hosts
                .iter()
                .map(|h| h.trim().to_string())
                .filter(|h| !h.is_empty())
                .collect(),
            port: r.port,
            path: r.path.clone(),
            method: r.method.clone(),
            timeout: r.timeout,
            https: r.https,
            headers: r.parsed_headers()?,
            body,
            content_type: r.content_type.clone(),
            keep_alive: r.keep_alive,
            http10: r.http10,
            // A URL on the command line names its own host; a file's hosts need leave.
            allow_pattern_hosts: r.allow_pattern_hosts || r.patterns_file.is_none(),
        };
        let mut plan = Plan::build(&set, &defaults)?;
        if r.connection.coalesce.is_some() && plan.uses_tls() {
            // TLS reads go through rustls, not the stamped receive.
            return Err(SpecError::Coalesce(COALESCE_NEEDS_PLAIN));
        }
        plan.redact_with(redactor.clone());
        let described = kv::Described {
            source: plan.source.clone(),
            n_patterns: plan.n_patterns,
            digest: plan.digest.clone(),
            uses_tls: plan.uses_tls(),
            probe_hosts: plan
                .targets
                .iter()
                .filter(|t| !t.https)
                .map(|t| t.label())
                .collect(),
        };
        let workload = PlanWorkload {
            plan: Arc::new(plan),
            order: r.order,
            seed,
        };
        Ok((RunWorkload::Plan(workload), described))
    }

    /// Every pure check, in the order a user would fix them (the load's shape first);
    /// returns the steps.
    fn steps(&self) -> Result<Vec<StepSpec>, SpecError> {
        let steps = self.load.steps()?;
        if matches!(
            self.load,
            Load::Clients {
                until_saturated: true,
                ..
            }
        ) && self.session.rounds > 1
        {
            return Err(SpecError::Conflict {
                flags: "--until-saturated and --rounds",
                why: "the ramp ends where the target saturates, which may differ by round",
            });
        }
        at_most_duration("--interval", self.interval)?;
        self.request.check()?;
        self.session.check()?;
        if steps.len().saturating_mul(self.session.rounds) > MAX_STEPS {
            return Err(SpecError::TooManySteps {
                rounds: self.session.rounds,
                steps: steps.len(),
            });
        }
        Ok(steps)
    }
}

impl RequestOptions {
    fn check(&self) -> Result<(), SpecError> {
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

    fn patterns(&self) -> Result<PatternSet, SpecError> {
        match (&self.url, &self.patterns_file) {
            (Some(_), Some(_)) => Err(SpecError::UrlAndFile),
            (Some(url), None) => Ok(pattern::from_url(url)?),
            (None, Some(path)) => Ok(pattern::load_file(path)?),
            (None, None) => Err(SpecError::NothingToRequest),
        }
    }

    fn parsed_headers(&self) -> Result<Vec<(String, String)>, SpecError> {
        self.headers.iter().map(|h| parse_header(h)).collect()
    }
}

impl SessionOptions {
    fn check(&self) -> Result<(), SpecError> {
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

/// One shard's part of a step: its share of the clients, and of a closed-model `-n`
/// budget. The open model's timetable is shared by index in the engine (the lane), so
/// its `-n` limit stays the step's own.
pub fn share_step(step: &mut StepSpec, shard: Shard) -> Result<(), SpecError> {
    let part = |what: &'static str, total: u64| -> Result<u64, SpecError> {
        match shard.share(total) {
            0 => Err(SpecError::ShardTooSmall {
                shard,
                what,
                total,
                count: shard.count,
            }),
            n => Ok(n),
        }
    };
    step.n_clients = part("clients", step.n_clients as u64)? as usize;
    if step.rate.is_none() {
        if let Some(n) = step.n_requests {
            step.n_requests = Some(part("requests", n)?);
        }
    }
    Ok(())
}

fn check_clients(flag: &'static str, n: usize) -> Result<(), SpecError> {
    if n == 0 {
        return Err(SpecError::AtLeast { flag, min: 1 });
    }
    if n > MAX_CLIENTS {
        return Err(SpecError::AtMost {
            flag,
            max: MAX_CLIENTS as u64,
            found: n as u64,
        });
    }
    Ok(())
}

fn positive_duration(flag: &'static str, d: Duration) -> Result<(), SpecError> {
    if d.is_zero() {
        return Err(SpecError::NotPositive { flag });
    }
    at_most_duration(flag, d)
}

fn at_most_duration(flag: &'static str, d: Duration) -> Result<(), SpecError> {
    if d > MAX_DURATION {
        return Err(SpecError::TooLong {
            flag,
            max: MAX_DURATION,
            why: "30 days",
        });
    }
    Ok(())
}

/// `-H "Name: value"` into its name and value.
pub fn parse_header(h: &str) -> Result<(String, String), SpecError> {
    let (k, v) = h
        .split_once(':')
        .ok_or_else(|| SpecError::HeaderNoColon(h.to_string()))?;
    let k = k.trim();
    if k.is_empty() || !k.bytes().all(|b| b.is_ascii_graphic()) {
        return Err(SpecError::HeaderName {
            header: h.to_string(),
            name: k.to_string(),
        });
    }
    if v.contains(['\r', '\n']) {
        // The message shows the header; a secret value stays out of it.
        return Err(SpecError::HeaderLineBreak(
            Redactor::default().header_line(h),
        ));
    }
    Ok((k.to_string(), v.trim().to_string()))
}

/// A seed that differs between runs: the clock and the process id.
fn clock_seed() -> u64 {
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    t.as_nanos() as u64 ^ u64::from(std::process::id()).rotate_left(32)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run_options(load: Load) -> RunOptions {
        RunOptions {
            request: RequestOptions {
                url: Some("http://127.0.0.1:1/".into()),
                ..RequestOptions::default()
            },
            session: SessionOptions::default(),
            load,
            interval: Duration::ZERO,
            output_path: None,
            command_line: vec!["hakaru".into()],
        }
    }

    fn step(clients: usize) -> Load {
        Load::Step {
            clients,
            duration: None,
            requests: None,
            rate: None,
        }
    }

    fn ramp(start: usize, end: usize, step: usize, duration: Duration) -> Load {
        Load::Clients {
            start,
            end,
            step,
            duration,
            until_saturated: false,
        }
    }

    /// The message of the refusal, which must name `flag`.
    fn refused(o: &RunOptions, flag: &str) -> String {
        let e = o.check().expect_err("should be refused").to_string();
        assert!(e.contains(flag), "{e:?} should name {flag}");
        e
    }

    #[test]
    fn the_load_refuses_what_it_cannot_run() {
        refused(&run_options(step(0)), "-c must be at least 1");
        refused(&run_options(step(MAX_CLIENTS + 1)), "-c must be at most");
        let mut o = run_options(step(1));
        o.load = Load::Step {
            clients: 1,
            duration: Some(Duration::ZERO),
            requests: None,
            rate: None,
        };
        refused(&o, "-d must be positive");
        o.load = Load::Step {
            clients: 1,
            duration: None,
            requests: Some(0),
            rate: None,
        };
        refused(&o, "-n must be at least 1");
        for rate in ["1e-20", "-5", "fast", "1e9"] {
            o.load = Load::Step {
                clients: 1,
                duration: None,
                requests: None,
                rate: Some(rate.into()),
            };
            refused(&o, &format!("--rate {rate}"));
        }
        let d = Duration::from_secs(1);
        refused(&run_options(ramp(0, 1, 0, d)), "--step must be at least 1");
        refused(&run_options(ramp(5, 2, 1, d)), "--end-n-clients (2)");
        refused(&run_options(ramp(0, 0, 1, d)), "--end-n-clients");
        refused(&run_options(ramp(0, 1, 1, Duration::ZERO)), "--duration");
        refused(
            &run_options(ramp(0, 1, 1, MAX_DURATION * 2)),
            "--duration must be at most",
        );
        refused(&run_options(ramp(0, MAX_CLIENTS, 1, d)), "--step");
        refused(
            &run_options(ramp(0, MAX_CLIENTS + 1, 1, d)),
            "--end-n-clients must be at most",
        );
        let rates = |rates: &str, clients| {
            run_options(Load::Rates {
                rates: rates.into(),
                clients,
                duration: d,
            })
        };
        refused(&rates("100", 0), "--end-n-clients");
        refused(&rates("1e-20", 1), "--rate");
        let mut o = run_options(ramp(0, 1, 1, d));
        o.interval = MAX_DURATION * 2;
        refused(&o, "--interval");
    }

    #[test]
    fn request_and_session_flags_are_checked() {
        let with = |f: &dyn Fn(&mut RunOptions)| {
            let mut o = run_options(step(1));
            f(&mut o);
            o
        };
        refused(&with(&|o| o.request.threads = 100_000), "--threads");
        refused(&with(&|o| o.request.n_slow = 10_001), "--n-slow-requests");
        refused(&with(&|o| o.request.n_fast = 10_001), "--n-fast-requests");
        refused(
            &with(&|o| o.request.timeout = Duration::ZERO),
            "--timeout must be positive",
        );
        refused(
            &with(&|o| o.request.timeout = Duration::from_secs(3601)),
            "--timeout must be at most 3600 s",
        );
        refused(&with(&|o| o.request.wait = MAX_DURATION * 2), "--wait");
        refused(&with(&|o| o.request.headers = vec!["nope".into()]), "-H");
        refused(
            &with(&|o| o.request.headers = vec!["A b: c".into()]),
            "-H \"A b: c\"",
        );
        refused(
            &with(&|o| o.request.headers = vec!["A: b\r\nC: d".into()]),
            "line break",
        );
        let e = refused(
            &with(&|o| o.request.headers = vec!["Cookie: s3cret\nX: y".into()]),
            "-H \"Cookie: <redacted>\"",
        );
        assert!(!e.contains("s3cret"), "{e}");
        refused(&with(&|o| o.request.url = None), "URL");
        refused(
            &with(&|o| o.request.patterns_file = Some("p.txt".into())),
            "not both",
        );
        refused(
            &with(&|o| o.session.rounds = 0),
            "--rounds must be at least 1",
        );
        refused(&with(&|o| o.session.rounds = 1_000_000), "--rounds");
        refused(
            &with(&|o| o.session.expect_cache_hit_rate = Some(1.5)),
            "--expect-cache-hit-rate",
        );
        refused(
            &with(&|o| o.session.expect_cache_hit_rate = Some(f64::NAN)),
            "--expect-cache-hit-rate",
        );
        refused(
            &with(&|o| o.session.warmup = Some(MAX_DURATION * 2)),
            "--warmup",
        );
        let mut o = run_options(ramp(0, 100, 1, Duration::from_secs(1)));
        o.session.rounds = 1000;
        refused(&o, "--rounds 1000");
    }

    #[test]
    fn a_run_is_one_step_of_ten_seconds_by_default() {
        let ready = run_options(step(3))
            .build()
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(ready.run.mode, Mode::Run);
        assert_eq!(ready.run.steps.len(), 1);
        assert_eq!(ready.run.steps[0].n_clients, 3);
        assert_eq!(ready.run.steps[0].duration, Some(DEFAULT_RUN_DURATION));
        assert_eq!(ready.run.settings.duration_s, Some(10.0));
        assert_eq!(ready.run.settings.model, LoadModel::Closed);
        assert_eq!(ready.run.settings.threads, ready.engine.threads.min(3));
        assert!(ready.run.outputs.is_none());
        assert!(!ready.open_model());
    }

    #[test]
    fn a_timed_profile_sets_the_steps_length() {
        let mut o = run_options(Load::Step {
            clients: 2,
            duration: None,
            requests: None,
            rate: Some("2s@100,3s@100..200".into()),
        });
        o.request.seed = Some(7);
        let ready = o.build().unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(ready.run.steps[0].duration, Some(Duration::from_secs(5)));
        assert_eq!(ready.run.settings.model, LoadModel::Open);
        assert_eq!(ready.run.settings.seed, 7);
        assert_eq!(ready.workload.plan().expect("an http run").seed, 7);
        assert!(ready.open_model());
    }

    #[test]
    fn a_ramp_has_drnbench_steps_and_its_session() {
        let mut o = run_options(ramp(0, 4, 2, Duration::from_secs(3)));
        o.interval = Duration::from_secs(1);
        o.output_path = Some("out/r.csv".into());
        o.session = SessionOptions {
            probes: vec![ProbeKind::Groonga],
            expect_cache_hit_rate: Some(0.5),
            rounds: 2,
            warmup: Some(Duration::from_secs(2)),
            ..SessionOptions::default()
        };
        let ready = o.build().unwrap_or_else(|e| panic!("{e}"));
        let clients: Vec<usize> = ready.run.steps.iter().map(|s| s.n_clients).collect();
        assert_eq!(clients, vec![1, 2, 4]);
        assert_eq!(ready.run.mode, Mode::Ramp);
        assert_eq!(ready.run.rounds, 2);
        assert_eq!(ready.run.settings.rounds, 2);
        assert_eq!(ready.run.settings.interval_s, 1.0);
        assert_eq!(ready.run.settings.duration_s, Some(3.0));
        assert_eq!(ready.run.settings.warmup_s, Some(2.0));
        assert_eq!(ready.run.settings.planned_cache_hit_rate, Some(0.5));
        let prober = ready.run.prober.as_ref().expect("a prober");
        assert_eq!(prober.hosts, vec!["http://127.0.0.1:1".to_string()]);
        let out = ready.run.outputs.as_ref().expect("outputs");
        assert_eq!(out.json, std::path::Path::new("out/r.json"));
    }

    #[test]
    fn a_rate_ramp_has_one_step_per_rate() {
        let o = run_options(Load::Rates {
            rates: "100:300:100".into(),
            clients: 8,
            duration: Duration::from_secs(2),
        });
        let ready = o.build().unwrap_or_else(|e| panic!("{e}"));
        let rates: Vec<Option<f64>> = ready.run.steps.iter().map(|s| s.mean_rate()).collect();
        assert_eq!(rates, vec![Some(100.0), Some(200.0), Some(300.0)]);
        assert!(ready.run.steps.iter().all(|s| s.n_clients == 8));
        assert_eq!(ready.run.settings.model, LoadModel::Open);
    }

    #[test]
    fn a_missing_body_file_is_named() {
        let mut o = run_options(step(1));
        o.request.body = Some(Body::File("/nonexistent/body.json".into()));
        let e = o.build().err().expect("refused").to_string();
        assert!(e.contains("--body-file /nonexistent/body.json"), "{e}");
    }
}
