//! Flags shared by `run` and `ramp` (drnbench's names, with ab/hey/wrk's short forms),
//! and their conversion into a validated plan. Nothing below the CLI sees clap.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use clap::{Args, ValueEnum};

use crate::engine::{EngineConfig, Lane};
use crate::pattern::{self, PatternSet};
use crate::plan::{Defaults, Order, Plan};
use crate::result::csv::CsvFormat;
use crate::result::store::Outputs;
use crate::result::{LoadModel, Settings};
use crate::workload::PlanWorkload;

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
}

#[derive(Args, Debug, Clone)]
pub struct RequestArgs {
    /// A single URL to request, instead of --request-patterns-file.
    #[arg(value_name = "URL")]
    pub url: Option<String>,

    /// Request patterns: a plain list of paths/URLs, or drnbench's JSON groups.
    #[arg(long, value_name = "PATH")]
    pub request_patterns_file: Option<PathBuf>,

    /// Hosts for requests without their own, used round-robin (a load balancer's stand-in).
    #[arg(
        long,
        alias = "default-host",
        value_delimiter = ',',
        default_value = "localhost",
        value_name = "HOST1,HOST2,..."
    )]
    pub default_hosts: Vec<String>,

    /// Port for requests without their own.
    #[arg(long, default_value_t = 80, value_name = "PORT")]
    pub default_port: u16,

    /// Path for patterns without their own.
    #[arg(long, default_value = "/", value_name = "PATH")]
    pub default_path: String,

    /// HTTP method for patterns without their own.
    #[arg(
        short = 'm',
        long,
        alias = "method",
        default_value = "GET",
        value_name = "METHOD"
    )]
    pub default_method: String,

    /// Timeout of each request (seconds, or 500ms, 2s, 1m). Timeouts count as status 0, as in drnbench.
    #[arg(long, alias = "timeout", default_value = "5", value_parser = parse_duration, value_name = "DURATION")]
    pub default_timeout: Duration,

    /// Send https to hosts named without a scheme (--default-hosts).
    #[arg(long)]
    pub https: bool,

    /// Extra request header, repeatable: -H 'Accept: application/json'.
    #[arg(short = 'H', long = "header", value_name = "NAME: VALUE")]
    pub headers: Vec<String>,

    /// Request body for patterns without their own.
    #[arg(short = 'b', long, conflicts_with = "body_file", value_name = "TEXT")]
    pub body: Option<String>,

    /// Request body read from a file.
    #[arg(long, value_name = "PATH")]
    pub body_file: Option<PathBuf>,

    /// Content-Type of requests with a body.
    #[arg(short = 'T', long, value_name = "TYPE")]
    pub content_type: Option<String>,

    /// Keep connections alive between requests (the default; accepted for ab compatibility).
    #[arg(short = 'k', long, overrides_with = "no_keep_alive")]
    pub keep_alive: bool,

    /// Open a new connection for every request (sends Connection: close).
    #[arg(long)]
    pub no_keep_alive: bool,

    /// Accept any TLS certificate (self-signed test servers).
    #[arg(long)]
    pub insecure: bool,

    /// Trust the CA certificates in this PEM file as well as the bundled web roots.
    #[arg(long, value_name = "PEM")]
    pub cacert: Option<PathBuf>,

    /// Seconds each client pauses between requests. drnbench's default was 0.01 s; ours is 0.
    #[arg(long, default_value = "0", value_parser = parse_duration, value_name = "SECONDS")]
    pub wait: Duration,

    /// The order clients draw requests in: random (by group frequency) or sequential (exact replay).
    #[arg(long, value_enum, default_value_t = OrderArg::Random)]
    pub order: OrderArg,

    /// Seed of the random order, for runs that draw the same requests.
    #[arg(long)]
    pub seed: Option<u64>,

    /// Worker threads (default: one per core).
    #[arg(long, default_value_t = 0)]
    pub threads: usize,

    /// How many of the slowest requests each step reports.
    #[arg(long, default_value_t = 5, value_name = "N")]
    pub n_slow_requests: usize,

    /// How many of the fastest requests each step reports.
    #[arg(long, default_value_t = 5, value_name = "N")]
    pub n_fast_requests: usize,

    /// CSV columns: full (drnbench's, then more by name) or drnbench (exactly drnbench's).
    #[arg(long, value_enum, default_value_t = FormatArg::Full)]
    pub format: FormatArg,
}

/// Flags about the session around the load: probes, rounds, warm-up.
#[derive(Args, Debug, Clone)]
pub struct SessionArgs {
    /// Read the server's own numbers before and after each step on every host:
    /// groonga (/d/status), droonga (/statistics/cache), couchdb, or url=PATH,pointer=/json/pointer[,name=N]. Repeatable.
    #[arg(long, value_name = "PROBE", value_parser = crate::probe::parse_probe)]
    pub probe: Vec<crate::probe::ProbeKind>,

    /// Sample this local server process's CPU and memory during each step (from /proc).
    #[arg(long, value_name = "PID")]
    pub probe_pid: Option<u32>,

    /// The cache hit rate the request set was planned for (0..1); each step's measured rate is compared with it.
    #[arg(long, value_name = "RATE")]
    pub expect_cache_hit_rate: Option<f64>,

    /// Run every step this many times; the first round is cold, later ones warm.
    #[arg(long, default_value_t = 1, value_name = "N")]
    pub rounds: usize,

    /// Send uncounted load for this long before the first step (and say so).
    #[arg(long, value_parser = parse_duration, value_name = "DURATION")]
    pub warmup: Option<Duration>,
}

impl SessionArgs {
    /// Check the flags and apply them to the run's settings and spec.
    pub fn apply(
        &self,
        spec: &mut crate::runner::RunSpec,
        plan: &Plan,
        timeout: Duration,
    ) -> Result<()> {
        if self.rounds == 0 {
            bail!("--rounds must be at least 1");
        }
        if let Some(r) = self.expect_cache_hit_rate {
            if !(0.0..=1.0).contains(&r) {
                bail!("--expect-cache-hit-rate must be between 0 and 1, found {r}");
            }
        }
        if let Some(pid) = self.probe_pid {
            crate::probe::ProcessWatch::check(pid).map_err(anyhow::Error::msg)?;
        }
        if !self.probe.is_empty() {
            spec.prober = Some(crate::probe::Prober {
                kinds: self.probe.clone(),
                hosts: plan
                    .targets
                    .iter()
                    .filter(|t| !t.https)
                    .map(|t| t.label())
                    .collect(),
                timeout: timeout.min(Duration::from_secs(5)),
            });
        }
        spec.probe_pid = self.probe_pid;
        spec.rounds = self.rounds;
        spec.warmup = self.warmup.filter(|w| !w.is_zero());
        spec.settings.rounds = self.rounds;
        spec.settings.warmup_s = spec.warmup.map(|w| w.as_secs_f64());
        spec.settings.planned_cache_hit_rate = self.expect_cache_hit_rate;
        Ok(())
    }
}

/// Parse "30", "2.5", "30s", "500ms", "2m", "1h" into a duration.
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let s = s.trim();
    let (num, unit) = match s.find(|c: char| c.is_ascii_alphabetic()) {
        Some(i) => (&s[..i], &s[i..]),
        None => (s, "s"),
    };
    let v: f64 = num
        .trim()
        .parse()
        .map_err(|_| format!("\"{s}\" is not a duration (try 30, 30s, 500ms, 2m)"))?;
    let secs = match unit {
        "ms" => v / 1000.0,
        "s" | "sec" => v,
        "m" | "min" => v * 60.0,
        "h" => v * 3600.0,
        _ => {
            return Err(format!(
                "\"{s}\": unknown unit \"{unit}\" (use ms, s, m or h)"
            ))
        }
    };
    if !secs.is_finite() || secs < 0.0 {
        return Err(format!("\"{s}\" must be a non-negative duration"));
    }
    if secs > crate::engine::MAX_DURATION.as_secs_f64() {
        return Err(format!("\"{s}\" is longer than the 30 days hakaru accepts"));
    }
    Ok(Duration::from_secs_f64(secs))
}

/// Parse "1000" or "10k" into a count.
pub fn parse_count(s: &str) -> Result<u64, String> {
    let t = s.trim().to_ascii_lowercase();
    let (num, mult) = match t.chars().last() {
        Some('k') => (&t[..t.len() - 1], 1_000.0),
        Some('m') => (&t[..t.len() - 1], 1_000_000.0),
        _ => (&t[..], 1.0),
    };
    let v: f64 = num
        .parse()
        .map_err(|_| format!("\"{s}\" is not a count (try 1000, 10k, 1m)"))?;
    if v < 0.0 || !v.is_finite() {
        return Err(format!("\"{s}\" must not be negative"));
    }
    Ok((v * mult).round() as u64)
}

/// Everything `run` and `ramp` build from the shared flags before any load is sent.
pub struct Prepared {
    pub plan: Arc<Plan>,
    pub workload: Arc<PlanWorkload>,
    pub engine: EngineConfig,
    pub settings: Settings,
    pub format: CsvFormat,
}

impl RequestArgs {
    pub fn keep_alive(&self) -> bool {
        !self.no_keep_alive
    }

    pub fn patterns(&self) -> Result<PatternSet> {
        match (&self.url, &self.request_patterns_file) {
            (Some(_), Some(_)) => bail!("give either a URL or --request-patterns-file, not both"),
            (Some(url), None) => Ok(pattern::from_url(url)?),
            (None, Some(path)) => Ok(pattern::load_file(path)?),
            (None, None) => bail!("nothing to request: give a URL or --request-patterns-file"),
        }
    }

    fn headers(&self) -> Result<Vec<(String, String)>> {
        self.headers
            .iter()
            .map(|h| {
                let (k, v) = h
                    .split_once(':')
                    .with_context(|| format!("-H \"{h}\": expected \"Name: value\""))?;
                let k = k.trim();
                if k.is_empty() || !k.bytes().all(|b| b.is_ascii_graphic()) {
                    bail!("-H \"{h}\": \"{k}\" is not a header name");
                }
                if v.contains(['\r', '\n']) {
                    bail!("-H \"{h}\": a header value cannot contain a line break");
                }
                Ok((k.to_string(), v.trim().to_string()))
            })
            .collect()
    }

    pub fn prepare(&self, n_clients_hint: usize) -> Result<Prepared> {
        if self.default_timeout.is_zero() {
            bail!("--default-timeout must be positive");
        }
        if self.default_timeout > crate::engine::MAX_TIMEOUT {
            bail!(
                "--default-timeout must be at most {} s (latency is tracked up to one hour)",
                crate::engine::MAX_TIMEOUT.as_secs()
            );
        }
        let set = self.patterns()?;
        let body = match (&self.body, &self.body_file) {
            (Some(b), _) => Some(b.clone().into_bytes()),
            (None, Some(p)) => Some(
                std::fs::read(p)
                    .with_context(|| format!("cannot read --body-file {}", p.display()))?,
            ),
            (None, None) => None,
        };
        let defaults = Defaults {
            hosts: self
                .default_hosts
                .iter()
                .map(|h| h.trim().to_string())
                .filter(|h| !h.is_empty())
                .collect(),
            port: self.default_port,
            path: self.default_path.clone(),
            method: self.default_method.clone(),
            timeout: self.default_timeout,
            https: self.https,
            headers: self.headers()?,
            body,
            content_type: self.content_type.clone(),
            keep_alive: self.keep_alive(),
        };
        let plan = Plan::build(&set, &defaults)?;
        let tls = if plan.uses_tls() || self.insecure || self.cacert.is_some() {
            Some(
                crate::http::tls_connector(self.insecure, self.cacert.as_deref())
                    .map_err(anyhow::Error::msg)?,
            )
        } else {
            None
        };
        let seed = self.seed.unwrap_or_else(|| {
            let t = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap_or_default();
            t.as_nanos() as u64 ^ u64::from(std::process::id()).rotate_left(32)
        });
        let order = match self.order {
            OrderArg::Random => Order::Random,
            OrderArg::Sequential => Order::Sequential,
        };
        let threads = if self.threads == 0 {
            crate::sysinfo::cpus()
        } else {
            self.threads
        };
        let engine = EngineConfig {
            threads,
            wait: self.wait,
            keep_alive: self.keep_alive(),
            n_slow: self.n_slow_requests,
            n_fast: self.n_fast_requests,
            tls,
            lane: Lane::ALL,
        };
        let settings = Settings {
            duration_s: None,
            n_requests: None,
            interval_s: 0.0,
            wait_s: self.wait.as_secs_f64(),
            timeout_s: self.default_timeout.as_secs_f64(),
            keep_alive: self.keep_alive(),
            model: LoadModel::Closed,
            order: order.into(),
            seed,
            patterns_source: plan.source.clone(),
            n_patterns: plan.n_patterns,
            insecure: self.insecure,
            threads: threads.min(n_clients_hint.max(1)),
            planned_cache_hit_rate: None,
            warmup_s: None,
            rounds: 1,
        };
        let format = match self.format {
            FormatArg::Full => CsvFormat::Full,
            FormatArg::Drnbench => CsvFormat::Drnbench,
        };
        let plan = Arc::new(plan);
        Ok(Prepared {
            workload: Arc::new(PlanWorkload {
                plan: plan.clone(),
                order,
                seed,
            }),
            plan,
            engine,
            settings,
            format,
        })
    }

    pub fn outputs(&self, path: Option<&PathBuf>, format: CsvFormat) -> Option<Outputs> {
        path.map(|p| Outputs::beside(p, format))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("30").unwrap(), Duration::from_secs(30));
        assert_eq!(parse_duration("0.5").unwrap(), Duration::from_millis(500));
        assert_eq!(parse_duration("500ms").unwrap(), Duration::from_millis(500));
        assert_eq!(parse_duration("2m").unwrap(), Duration::from_secs(120));
        assert!(parse_duration("-1").is_err());
        assert!(parse_duration("3 parsecs")
            .unwrap_err()
            .contains("unknown unit"));
        assert!(parse_duration("abc").is_err());
        assert!(parse_duration("1000000000")
            .unwrap_err()
            .contains("30 days"));
    }

    #[test]
    fn counts() {
        assert_eq!(parse_count("100000").unwrap(), 100_000);
        assert_eq!(parse_count("10k").unwrap(), 10_000);
        assert_eq!(parse_count("1M").unwrap(), 1_000_000);
        assert!(parse_count("lots").is_err());
    }
}
