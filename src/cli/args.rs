//! Flags shared by `run` and `ramp` (drnbench's names, with ab/hey/wrk's short forms),
//! and their conversion into plain options; [`crate::spec`] validates those. Also where
//! the commands' own output goes (`--json`, `-o -`, `-q`).

use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::{Args, ValueEnum};

use crate::plan::Order;
use crate::result::csv::CsvFormat;
use crate::spec::{parse_duration, Body, RequestOptions, SessionOptions};

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OrderArg {
    Random,
    Sequential,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FormatArg {
    /// drnbench's columns first, then percentiles, errors, bytes and CPU by name.
    Full,
    /// drnbench's columns only.
    Drnbench,
    /// With `-o -`: the whole result as JSON on stdout instead of the CSV (histograms
    /// included: what `hakaru merge -` reads, e.g. from `kubectl logs`).
    Json,
}

impl FormatArg {
    /// The CSV's columns (a file's JSON is always written beside its CSV).
    pub fn csv(self) -> CsvFormat {
        match self {
            FormatArg::Full | FormatArg::Json => CsvFormat::Full,
            FormatArg::Drnbench => CsvFormat::Drnbench,
        }
    }

    /// `--format json` is what `-o -` prints; a file's JSON is written anyway.
    pub fn check(self, to_stdout: bool) -> anyhow::Result<()> {
        if self == FormatArg::Json && !to_stdout {
            return Err(crate::spec::SpecError::FormatJsonToFile.into());
        }
        Ok(())
    }

    /// What `-o -` prints: the CSV, or the whole result as JSON.
    pub fn stdout(self, run: &crate::result::RunResult) -> String {
        match self {
            FormatArg::Json => crate::result::json::to_json(run),
            f => crate::result::csv::to_csv(run, f.csv()),
        }
    }
}

#[derive(Args, Debug, Clone)]
pub struct RequestArgs {
    /// A single URL to request, instead of --request-patterns-file.
    #[arg(value_name = "URL")]
    pub url: Option<String>,

    /// Request patterns: a plain list of paths/URLs, or drnbench's JSON groups.
    #[arg(help_heading = "Requests", long, value_name = "PATH")]
    pub request_patterns_file: Option<PathBuf>,

    /// Hosts for requests without their own, used round-robin (a load balancer's stand-in).
    #[arg(
        help_heading = "Connection",
        long,
        alias = "default-host",
        value_delimiter = ',',
        default_value = "localhost",
        value_name = "HOST1,HOST2,..."
    )]
    pub default_hosts: Vec<String>,

    /// Port for requests without their own.
    #[arg(
        help_heading = "Connection",
        long,
        default_value_t = 80,
        value_name = "PORT"
    )]
    pub default_port: u16,

    /// Path for patterns without their own.
    #[arg(
        help_heading = "Requests",
        long,
        default_value = "/",
        value_name = "PATH"
    )]
    pub default_path: String,

    /// HTTP method for patterns without their own.
    #[arg(
        help_heading = "Requests",
        short = 'm',
        long,
        alias = "method",
        default_value = "GET",
        value_name = "METHOD"
    )]
    pub default_method: String,

    /// Timeout of each request (seconds, or 500ms, 2s, 1m). Timeouts count as status 0, as in drnbench.
    #[arg(help_heading = "Connection", long = "timeout", alias = "default-timeout", default_value = "5", value_parser = parse_duration, value_name = "DURATION")]
    pub default_timeout: Duration,

    /// Statuses that count as success: codes, ranges or classes (200,404 or
    /// 200-299,404 or 2xx). Every other status is a failure in the summary, the reports,
    /// the thresholds on errors and the exit code.
    #[arg(help_heading = "Requests", long, value_name = "CODES", default_value = "200-399", value_parser = crate::spec::parse_ok_status)]
    pub ok_status: crate::stats::OkStatus,

    /// Send https to hosts named without a scheme (--default-hosts).
    #[arg(help_heading = "Connection", long)]
    pub https: bool,

    /// Extra request header, repeatable: -H 'Accept: application/json'.
    #[arg(
        help_heading = "Requests",
        short = 'H',
        long = "header",
        value_name = "NAME: VALUE"
    )]
    pub headers: Vec<String>,

    /// A header whose value is secret, repeatable: redacted in results, reports and the
    /// terminal like Authorization, Cookie and Proxy-Authorization (still sent).
    #[arg(help_heading = "Requests", long, value_name = "NAME")]
    pub secret_header: Vec<String>,

    /// A query parameter whose value is secret, repeatable: redacted in results and
    /// reports like token, access_token, api_key, password… (still sent).
    #[arg(help_heading = "Requests", long, value_name = "NAME")]
    pub secret_param: Vec<String>,

    /// Let a patterns file send load to hosts of its own (absolute URLs, a pattern's
    /// "host") that --default-hosts does not name.
    #[arg(help_heading = "Requests", long)]
    pub allow_pattern_hosts: bool,

    /// Request body for patterns without their own.
    #[arg(
        help_heading = "Requests",
        short = 'b',
        long,
        conflicts_with = "body_file",
        value_name = "TEXT"
    )]
    pub body: Option<String>,

    /// Request body read from a file.
    #[arg(help_heading = "Requests", long, value_name = "PATH")]
    pub body_file: Option<PathBuf>,

    /// Content-Type of requests with a body.
    #[arg(help_heading = "Requests", short = 'T', long, value_name = "TYPE")]
    pub content_type: Option<String>,

    /// Keep connections alive between requests (the default; accepted for ab compatibility).
    #[arg(
        help_heading = "Connection",
        short = 'k',
        long,
        overrides_with = "no_keep_alive"
    )]
    pub keep_alive: bool,

    /// Open a new connection for every request (sends Connection: close).
    #[arg(help_heading = "Connection", long)]
    pub no_keep_alive: bool,

    /// Accept any TLS certificate (self-signed test servers).
    #[arg(help_heading = "Connection", long)]
    pub insecure: bool,

    /// Trust the CA certificates in this PEM file as well as the bundled web roots.
    #[arg(help_heading = "Connection", long, value_name = "PEM")]
    pub cacert: Option<PathBuf>,

    /// Seconds each client pauses between requests. drnbench's default was 0.01 s; ours is 0.
    #[arg(help_heading = "Load model", long, default_value = "0", value_parser = parse_duration, value_name = "SECONDS")]
    pub wait: Duration,

    /// The order clients draw requests in: random (by group frequency) or sequential (exact replay).
    #[arg(help_heading = "Requests", long, value_enum, default_value_t = OrderArg::Random)]
    pub order: OrderArg,

    /// Seed of the random order, for runs that draw the same requests (each step of a
    /// ramp its own, every round the first round's).
    #[arg(help_heading = "Requests", long)]
    pub seed: Option<u64>,

    /// Worker threads; 0, the default, means one per core.
    #[arg(
        help_heading = "Connection",
        long,
        default_value_t = 0,
        hide_default_value = true,
        value_name = "N"
    )]
    pub threads: usize,

    /// How many of the slowest requests each step reports.
    #[arg(help_heading = "Output", long, default_value_t = 5, value_name = "N")]
    pub n_slow_requests: usize,

    /// How many of the fastest requests each step reports.
    #[arg(help_heading = "Output", long, default_value_t = 5, value_name = "N")]
    pub n_fast_requests: usize,

    /// Keep every planned request's method and URL in the result. By default it keeps
    /// only those its slowest/fastest lists name, with the patterns file's SHA-256 and
    /// count, so a result of a million-line patterns file stays small.
    #[arg(help_heading = "Output", long)]
    pub request_list: bool,

    /// CSV columns: full (drnbench's, then more by name) or drnbench (exactly drnbench's).
    #[arg(help_heading = "Output", long, value_enum, default_value_t = FormatArg::Full)]
    pub format: FormatArg,

    #[command(flatten)]
    pub kv: super::kv::KvArgs,

    #[command(flatten)]
    pub connection: super::connection::ConnectionArgs,
}

/// Flags about the session around the load: probes, rounds, warm-up.
#[derive(Args, Debug, Clone)]
pub struct SessionArgs {
    /// Read the server's own numbers before and after each step on every host:
    /// groonga (/d/status), droonga (/statistics/cache), couchdb, or url=PATH,pointer=/json/pointer[,name=N]. Repeatable.
    #[arg(help_heading = "Groonga-specific and server probes", long, value_name = "PROBE", value_parser = crate::probe::parse_probe)]
    pub probe: Vec<crate::probe::ProbeKind>,

    /// Sample this local server process's CPU and memory during each step (from /proc).
    #[arg(
        help_heading = "Groonga-specific and server probes",
        long,
        value_name = "PID"
    )]
    pub probe_pid: Option<u32>,

    /// The cache hit rate the request set was planned for (0..1); each step's measured rate is compared with it.
    #[arg(
        help_heading = "Groonga-specific and server probes",
        long,
        value_name = "RATE"
    )]
    pub expect_cache_hit_rate: Option<f64>,

    /// Run every step this many times; the first round is cold, later ones warm.
    #[arg(
        help_heading = "Load model",
        long,
        default_value_t = 1,
        value_name = "N"
    )]
    pub rounds: usize,

    /// Send uncounted load for this long before the first step (and say so).
    #[arg(help_heading = "Load model", long, value_parser = parse_duration, value_name = "DURATION")]
    pub warmup: Option<Duration>,

    /// Go on to the next step even when a step got no response at all (by default a
    /// ramp stops there: a dead target would only burn CPU through every step).
    #[arg(help_heading = "Load model", long)]
    pub keep_going: bool,

    /// Run as load machine K of N: this machine's share of every step's clients, -n
    /// budget and --rate timetable; `hakaru merge` joins the N results exactly.
    #[arg(help_heading = "Many load machines", long, value_name = "K/N", value_parser = crate::spec::parse_shard)]
    pub shard: Option<crate::result::Shard>,

    /// Start the first step (or the warm-up) at this moment, and every later step at
    /// its planned offset from it: 2026-11-23T10:00:00Z, or +30s from now. Load
    /// machines sharing a clock (NTP) run each step together; a late start is recorded.
    #[arg(help_heading = "Many load machines", long, value_name = "TIME", value_parser = crate::spec::parse_start_at)]
    pub start_at: Option<crate::spec::StartAt>,

    #[command(flatten)]
    pub live: LiveArgs,

    #[command(flatten)]
    pub before: super::before::BeforeArgs,
}

/// Live views of the run for other tools (docs/live.md): every command that sends load.
#[derive(Args, Debug, Clone, Default)]
pub struct LiveArgs {
    /// Serve the run's live counters and latency histograms at http://ADDR/metrics for
    /// Prometheus (OpenMetrics when asked), per step; each step's exact totals, by
    /// status, error kind and label, once it ends. Binds exactly ADDR:
    /// 127.0.0.1:9464, or 0.0.0.0:9464 for a Prometheus on another machine.
    #[arg(long, value_name = "ADDR", help_heading = "Live export")]
    pub metrics_listen: Option<std::net::SocketAddr>,

    /// After the run, keep /metrics up until a scrape has read the final numbers, at
    /// most this long: Prometheus scrapes every 15 s or so, and a process that exited
    /// at once would leave the last step's exact totals unseen. 0 exits at once.
    #[arg(long, default_value = "15s", value_parser = parse_duration, value_name = "DURATION", help_heading = "Live export")]
    pub metrics_hold: Duration,

    /// One JSON line per second while the load runs (requests, failures, the last
    /// second's rate, p50, p99) and one per finished step with its exact totals; `-`
    /// for stdout.
    #[arg(long, value_name = "FILE", help_heading = "Live export")]
    pub live_out: Option<PathBuf>,
}

impl LiveArgs {
    /// `--live-out`'s file, as an output no input may be (see
    /// [`super::finish::check_outputs`]); its own checks are [`LiveArgs::start`]'s.
    pub fn outputs(&self) -> Vec<(&'static str, &Path)> {
        self.live_out
            .as_deref()
            .map(|p| ("--live-out", p))
            .into_iter()
            .collect()
    }

    /// `--live-out -`: the lines take stdout, so the text for a person goes to stderr.
    pub fn to_stdout(&self) -> bool {
        is_stdout(self.live_out.as_deref())
    }

    /// Binds --metrics-listen and opens --live-out now, before any load; `stdout_busy`
    /// names what already prints on stdout (`--json`, `-o -`).
    pub fn start(
        &self,
        stdout_busy: Option<&'static str>,
    ) -> Result<crate::metrics::Live, crate::metrics::LiveError> {
        crate::metrics::Live::start(
            &crate::metrics::LiveOptions {
                listen: self.metrics_listen,
                hold: self.metrics_hold,
                out: self.live_out.clone(),
            },
            stdout_busy,
        )
    }
}

impl RequestArgs {
    /// The files these flags read, for [`super::finish::check_outputs`]: what each
    /// is, and its path. No output may replace one of them.
    pub fn inputs(&self) -> Vec<(&'static str, &Path)> {
        [
            ("the patterns file", &self.request_patterns_file),
            ("the body file", &self.body_file),
            ("the CA file", &self.cacert),
            ("the commands file", &self.kv.commands),
        ]
        .into_iter()
        .filter_map(|(what, p)| p.as_deref().map(|p| (what, p)))
        .collect()
    }

    /// The plain options these flags say.
    pub fn options(&self) -> RequestOptions {
        RequestOptions {
            url: self.url.clone(),
            patterns_file: self.request_patterns_file.clone(),
            hosts: self.default_hosts.clone(),
            port: self.default_port,
            path: self.default_path.clone(),
            method: self.default_method.clone(),
            timeout: self.default_timeout,
            https: self.https,
            headers: self.headers.clone(),
            secret_headers: self.secret_header.clone(),
            secret_params: self.secret_param.clone(),
            allow_pattern_hosts: self.allow_pattern_hosts,
            body: match (&self.body, &self.body_file) {
                (Some(b), _) => Some(Body::Text(b.clone())),
                (None, Some(p)) => Some(Body::File(p.clone())),
                (None, None) => None,
            },
            content_type: self.content_type.clone(),
            keep_alive: !self.no_keep_alive,
            insecure: self.insecure,
            cacert: self.cacert.clone(),
            wait: self.wait,
            order: match self.order {
                OrderArg::Random => Order::Random,
                OrderArg::Sequential => Order::Sequential,
            },
            seed: self.seed,
            threads: self.threads,
            n_slow: self.n_slow_requests,
            n_fast: self.n_fast_requests,
            request_list: self.request_list,
            format: self.format.csv(),
            kv: self.kv.options(),
            ok_status: self.ok_status,
            connection: self.connection.settings(),
            time_first_byte: false,
            http10: false,
            sysbench: None,
        }
    }
}

impl SessionArgs {
    /// The plain options these flags say.
    pub fn options(&self) -> SessionOptions {
        SessionOptions {
            probes: self.probe.clone(),
            probe_pid: self.probe_pid,
            expect_cache_hit_rate: self.expect_cache_hit_rate,
            rounds: self.rounds,
            warmup: self.warmup,
            keep_going: self.keep_going,
            shard: self.shard,
            start_at: self.start_at,
            before: self.before.options(),
        }
    }
}

/// How `run` and `ramp` report: text, JSON or CSV on stdout, quietly or not.
#[derive(Args, Debug, Clone, Default)]
pub struct OutputArgs {
    /// Print the result as JSON on stdout (run: its step; ramp: the whole run, as the
    /// .json file holds it); the text summary goes to stderr.
    #[arg(help_heading = "Output", long)]
    pub json: bool,

    /// No progress line, no per-step rows: only the summary (none at all beside --json or -o -).
    #[arg(help_heading = "Output", short = 'q', long, conflicts_with = "verbose")]
    pub quiet: bool,

    /// After each step's row, drnbench's whole block: status shares, errors by kind,
    /// elapsed min/max/average, the slowest and fastest requests.
    #[arg(help_heading = "Output", short = 'v', long)]
    pub verbose: bool,
}

/// What already prints on stdout besides text for a person, which `--live-out -`
/// would garble.
pub fn stdout_busy(json: bool, csv_to_stdout: bool) -> Option<&'static str> {
    match (json, csv_to_stdout) {
        (true, _) => Some("--json"),
        (false, true) => Some("-o -"),
        (false, false) => None,
    }
}

/// `-o -`: the CSV goes to stdout when the run ends, and no file is written.
pub fn is_stdout(path: Option<&Path>) -> bool {
    path == Some(Path::new("-"))
}

/// Where the text meant for a person goes: stdout, unless stdout carries JSON or CSV
/// (then stderr, or nowhere with `-q`).
#[derive(Debug, Clone, Copy)]
pub struct Human {
    to_stderr: bool,
    silent: bool,
}

impl Human {
    /// Refuses `--json` with `-o -`: one stdout cannot carry both.
    pub fn new(output: &OutputArgs, csv_to_stdout: bool) -> anyhow::Result<Self> {
        if output.json && csv_to_stdout {
            anyhow::bail!("--json and -o - both print on stdout: give one of them");
        }
        let machine = output.json || csv_to_stdout;
        Ok(Human {
            to_stderr: machine,
            silent: machine && output.quiet,
        })
    }

    /// Text for a person on stderr when `stderr` (stdout carries a page: `report -o -`).
    pub fn to_stderr(stderr: bool) -> Self {
        Human {
            to_stderr: stderr,
            silent: false,
        }
    }

    /// True when stdout carries JSON or CSV.
    pub fn machine(&self) -> bool {
        self.to_stderr
    }

    pub fn print(&self, text: &str) {
        if self.silent {
        } else if self.to_stderr {
            eprint!("{text}");
        } else {
            print!("{text}");
        }
    }
}
