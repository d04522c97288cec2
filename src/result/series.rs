//! A run as the analysis and the reports see it: one [`Point`] per step (the figures a
//! chart or a table needs), whether it came from hakaru's JSON, hakaru's CSV or
//! drnbench's CSV. Built from a [`RunResult`] in memory or by the readers in
//! [`crate::result::read`]; analysed by [`crate::analysis`]; drawn by [`crate::report`].

use std::collections::BTreeMap;
use std::path::PathBuf;

use crate::result::{Machine, RunResult, RunState, Settings, StepResult};
use crate::stats::OkStatus;

/// What a series' points are: a ramp's steps (or a run's one step), a suite's
/// phases, or a `--find-max` search's probes. Only hakaru's JSON says; a CSV reads as
/// steps. The saturation curve's warnings mean something for steps only.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PointsAre {
    #[default]
    Steps,
    Phases,
    Probes,
}

/// Which kind of file a series came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SourceFormat {
    HakaruJson,
    HakaruCsv,
    DrnbenchCsv,
}

impl SourceFormat {
    pub fn describe(self) -> &'static str {
        match self {
            SourceFormat::HakaruJson => "hakaru JSON result",
            SourceFormat::HakaruCsv => "hakaru CSV",
            SourceFormat::DrnbenchCsv => "drnbench CSV",
        }
    }
}

/// One step of a ramp as the reports need it. Latencies in seconds, shares in percent.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Point {
    /// Concurrent clients of the step.
    pub n_clients: usize,
    /// Requests that ended in the step (drnbench's `total_n_requests`).
    pub total_requests: u64,
    /// Responses per second.
    pub qps: f64,
    pub mean_s: f64,
    pub min_s: f64,
    pub max_s: f64,
    pub p50_s: Option<f64>,
    pub p90_s: Option<f64>,
    pub p99_s: Option<f64>,
    /// HTTP status → percent of the step's requests; status 0 is "no response"
    /// (timeouts and connection errors), as drnbench writes it.
    pub statuses: BTreeMap<u16, f64>,
    /// Error kind ("timeout", "connect", …) → percent of the step's requests, when known.
    pub errors: BTreeMap<String, f64>,
    /// Error kind → the step's first message of that kind (a SQL error's SQLSTATE or
    /// MySQL code and the server's words, a connect's OS error), when recorded.
    pub error_samples: BTreeMap<String, String>,
    /// Percent of requests that did not get a successful response (status 0, or a
    /// status outside `ok_status`).
    pub error_share: f64,
    /// The statuses that counted as success in the step (`--ok-status`).
    pub ok_status: OkStatus,
    /// hakaru's own CPU use as a share of all the machine's cores, 0..1, when recorded.
    pub client_cpu_share: Option<f64>,
    /// Server-side numbers recorded around the step (cache hit rate, server CPU, …).
    pub probes: BTreeMap<String, f64>,
    /// True when the step was cut short.
    pub partial: bool,
    /// Open model: the rate asked for, requests per second (the mean over the step
    /// when the rate changed within it).
    pub rate: Option<f64>,
    /// Open model with a rate profile: its segments and their verdict (the result's).
    pub profile: Option<super::profile::StepProfile>,
    /// Open model: requests sent more than 1 ms after their due time.
    pub late: u64,
    /// Open model: requests whose due time passed but that never started.
    pub dropped: u64,
    /// How late the pacer sent at the 99th percentile (open model, `--wait`), when
    /// recorded: how exact the load was.
    pub pacer_lag_p99_s: Option<f64>,
    /// `--start-at`: how late the step started after its planned moment, seconds.
    pub start_late_s: Option<f64>,
    /// Which repetition of the run (`--rounds`) the step belongs to, from 1; 1 when
    /// the file does not say.
    pub round: usize,
    /// The latency distribution from the step's HDR histogram: (nines, seconds),
    /// where nines is −log10(1 − q) (0 = 0%, 2 = 99%, 3 = 99.9%). Empty when the file
    /// holds no histogram (a CSV).
    pub percentiles: Vec<(f64, f64)>,
    /// Connections the step opened, when recorded.
    pub connections_opened: Option<u64>,
    /// Of those, the ones that spoke HTTP/2 (0 in files from before HTTP/2).
    pub connections_http2: u64,
    /// Response bytes received, when recorded.
    pub bytes_received: Option<u64>,
    /// Each host's share of the step, when recorded (hakaru's JSON).
    pub hosts: Vec<HostPoint>,
}

/// One host's part of a step.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HostPoint {
    /// "scheme://host:port".
    pub target: String,
    pub responses: u64,
    pub errors: u64,
    /// Mean response time, seconds (NaN without responses).
    pub mean_s: f64,
}

/// One run, ready to analyse and draw.
#[derive(Debug, Clone)]
pub struct Series {
    /// How the run is called in charts and tables (the file stem unless set).
    pub label: String,
    pub source: PathBuf,
    pub format: SourceFormat,
    pub points: Vec<Point>,
    /// The run's settings and machine: only hakaru's JSON records them.
    pub settings: Option<Settings>,
    pub machine: Option<Machine>,
    pub command_line: Vec<String>,
    pub tool: Option<String>,
    pub started_at: Option<String>,
    pub targets: Vec<String>,
    /// Whose answers the file counts when it names no targets (a CSV's status
    /// columns `ok`, `hit_or_done`…); `None` for a JSON result, whose targets say.
    pub named: Option<crate::result::answers::Named>,
    /// True when the run was interrupted before every step finished.
    pub partial: bool,
    /// How far the run got: only hakaru's JSON says `running` or `failed`; a CSV reads
    /// as complete, or interrupted when a step is marked partial.
    pub state: RunState,
    pub points_are: PointsAre,
}

impl Series {
    /// True when the steps differ by arrival rate (open model), not by clients: the
    /// x axis of every chart and the meaning of "saturation" change with it.
    pub fn is_open_model(&self) -> bool {
        !self.points.is_empty() && self.points.iter().all(|p| p.rate.is_some())
    }

    /// True when any step recorded a p50 or p99.
    pub fn has_percentiles(&self) -> bool {
        self.points
            .iter()
            .any(|p| p.p50_s.is_some() || p.p99_s.is_some())
    }

    /// Every status code seen in any step, ascending.
    pub fn status_codes(&self) -> Vec<u16> {
        let mut codes: Vec<u16> = self
            .points
            .iter()
            .flat_map(|p| p.statuses.keys().copied())
            .collect();
        codes.sort_unstable();
        codes.dedup();
        codes
    }

    /// How many rounds (`--rounds`) the run holds; 1 when it was not repeated.
    pub fn rounds(&self) -> usize {
        self.points
            .iter()
            .map(|p| p.round)
            .max()
            .unwrap_or(1)
            .max(1)
    }

    /// The steps of one round (from 1) as a series of their own, labelled
    /// "<label> round N".
    pub fn round(&self, round: usize) -> Series {
        let mut s = self.clone();
        s.points.retain(|p| p.round.max(1) == round);
        s.label = format!("{} round {round}", self.label);
        s
    }

    /// A readable name for the run: what was measured, against what, over which
    /// load ("ramp of GET 127.0.0.1:10041/d/select, 1–20 clients"), from what the
    /// file records; the file's stem when it records nothing (a CSV).
    pub fn name(&self) -> String {
        let command = self
            .command_line
            .get(1)
            .map(String::as_str)
            .filter(|c| !c.starts_with('-'));
        // A sysbench run says its test ("sysbench oltp_read_write of postgres://…").
        let command = match (command, &self.settings) {
            (Some("sysbench"), Some(st)) if st.patterns_source.starts_with("sysbench ") => {
                Some(st.patterns_source.as_str())
            }
            (c, _) => c,
        };
        // One URL requested: name it whole, path and all.
        let single_url = self
            .settings
            .as_ref()
            .filter(|st| st.n_patterns == 1 && st.patterns_source.contains("://"))
            .map(|st| st.patterns_source.trim_start_matches("http://").to_owned());
        let target = match self.targets.as_slice() {
            _ if single_url.is_some() => single_url,
            [] => None,
            [one] => Some(one.trim_start_matches("http://").to_owned()),
            [first, rest @ ..] => Some(format!(
                "{} and {} more host{}",
                first.trim_start_matches("http://"),
                rest.len(),
                if rest.len() == 1 { "" } else { "s" }
            )),
        };
        let (Some(command), Some(target)) = (command, target) else {
            return self.label.clone();
        };
        let profile = match self.points.as_slice() {
            [one] => one.profile.as_ref(),
            _ => None,
        };
        // A SQL run's rates in tps, a store's in ops/s.
        let per_s = super::answers::Work::of_series(self).per_s();
        let load = if let Some(p) = profile {
            // The profile as typed: its mean would hide a spike.
            format!("{} {per_s}", super::profile::profile_text(&p.segments))
        } else if self.is_open_model() {
            let rates: Vec<f64> = self.points.iter().filter_map(|p| p.rate).collect();
            let lo = rates.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = rates.iter().copied().fold(0.0, f64::max);
            if lo < hi {
                format!("{}–{} {per_s}", lo.round(), hi.round())
            } else {
                format!("{} {per_s}", hi.round())
            }
        } else {
            let lo = self.points.iter().map(|p| p.n_clients).min().unwrap_or(0);
            let hi = self.points.iter().map(|p| p.n_clients).max().unwrap_or(0);
            if lo < hi {
                format!("{lo}–{hi} clients")
            } else {
                format!("{hi} client{}", if hi == 1 { "" } else { "s" })
            }
        };
        format!("{command} of {target}, {load}")
    }

    /// Every probe name seen in any step, ascending.
    pub fn probe_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self
            .points
            .iter()
            .flat_map(|p| p.probes.keys().cloned())
            .collect();
        names.sort();
        names.dedup();
        names
    }
}

/// The server-side numbers of a step, by the names the CSV gives them.
fn step_probes(s: &StepResult) -> BTreeMap<String, f64> {
    let mut out = BTreeMap::new();
    // What each probe counted during the step (after − before), summed over hosts.
    for p in s.probes.iter().filter(|p| p.error.is_none()) {
        for (k, v) in &p.delta {
            *out.entry(format!("{} Δ{k}", p.probe)).or_insert(0.0) += v;
        }
    }
    if let Some(r) = s.cache_hit_rate {
        out.insert("cache_hit_rate".to_owned(), r);
    }
    if let Some(p) = s.server_process.as_ref().filter(|p| p.error.is_none()) {
        out.insert("server_cpu_cores".to_owned(), p.cores_used);
        out.insert("server_rss_max_bytes".to_owned(), p.rss_max_bytes as f64);
    }
    out
}

impl Series {
    /// A series straight from a run in memory, e.g. at the end of `hakaru ramp`
    /// before (or without) reading the file back.
    pub fn from_run(run: &RunResult, label: &str) -> Series {
        let points = run
            .steps
            .iter()
            .map(|s| {
                let total = s.total_requests;
                let statuses = s.status_percentages();
                let errors = s
                    .errors
                    .iter()
                    .filter(|(_, n)| **n > 0)
                    .map(|(k, n)| (k.as_str().to_owned(), share(*n, total)))
                    .collect();
                let measured = s.latency.count > 0;
                let lat = |v: f64| if measured { v } else { f64::NAN };
                Point {
                    n_clients: s.n_clients,
                    total_requests: total,
                    qps: s.qps,
                    mean_s: lat(s.latency.mean_s),
                    min_s: lat(s.latency.min_s),
                    max_s: lat(s.latency.max_s),
                    p50_s: measured.then_some(s.latency.p50_s),
                    p90_s: measured.then_some(s.latency.p90_s),
                    p99_s: measured.then_some(s.latency.p99_s),
                    error_share: error_share(&statuses, &s.ok_status),
                    ok_status: s.ok_status,
                    statuses,
                    errors,
                    error_samples: s
                        .error_samples
                        .iter()
                        .map(|(k, m)| (k.as_str().to_owned(), m.clone()))
                        .collect(),
                    client_cpu_share: Some(s.client_cpu_share),
                    probes: step_probes(s),
                    partial: s.partial,
                    pacer_lag_p99_s: s.pacer_lag.as_ref().map(|l| l.p99_s),
                    start_late_s: s.start_late_s,
                    rate: s.rate,
                    profile: s.profile.clone(),
                    late: s.late,
                    dropped: s.dropped,
                    round: s.round.max(1),
                    percentiles: s
                        .decode_histogram()
                        .map(|h| percentile_curve(&h))
                        .unwrap_or_default(),
                    connections_opened: Some(s.connections_opened),
                    connections_http2: s.connections_http2,
                    bytes_received: Some(s.bytes_received),
                    hosts: s
                        .per_host
                        .iter()
                        .map(|h| HostPoint {
                            target: h.target.clone(),
                            responses: h.responses,
                            errors: h.errors,
                            mean_s: if h.responses > 0 {
                                h.mean_s()
                            } else {
                                f64::NAN
                            },
                        })
                        .collect(),
                }
            })
            .collect();
        Series {
            label: label.to_owned(),
            source: PathBuf::new(),
            format: SourceFormat::HakaruJson,
            points,
            settings: Some(run.settings.clone()),
            machine: Some(run.machine.clone()),
            command_line: run.command_line.clone(),
            tool: Some(run.tool.clone()),
            started_at: Some(run.started_at.clone()),
            targets: run.targets.clone(),
            partial: run.partial,
            state: run.state,
            named: None,
            points_are: if run.suite.is_some() {
                PointsAre::Phases
            } else if run.find_max.is_some() {
                PointsAre::Probes
            } else {
                PointsAre::Steps
            },
        }
    }
}

/// Steps of a tenth of a nine: 90%, 92.1%, 93.7% … as HdrHistogram's plots sample.
const NINES_STEP: f64 = 0.1;
/// The curve stops at 99.999%: beyond, no step has the samples to say.
const MAX_NINES: f64 = 5.0;

/// The percentile curve of a histogram (µs): (nines, seconds), up to the percentile
/// its sample count supports (1,000 samples say nothing past 99.9%).
pub(crate) fn percentile_curve(h: &hdrhistogram::Histogram<u64>) -> Vec<(f64, f64)> {
    if h.is_empty() {
        return Vec::new();
    }
    let top = (h.len() as f64).log10().min(MAX_NINES);
    let n = (top / NINES_STEP).floor() as usize;
    (0..=n)
        .map(|i| {
            let nines = i as f64 * NINES_STEP;
            let q = 1.0 - 10f64.powf(-nines);
            (nines, h.value_at_quantile(q) as f64 / 1e6)
        })
        .collect()
}

pub(crate) fn share(n: u64, total: u64) -> f64 {
    if total == 0 {
        0.0
    } else {
        n as f64 * 100.0 / total as f64
    }
}

/// Percent of requests without a successful response.
pub(crate) fn error_share(statuses: &BTreeMap<u16, f64>, ok: &OkStatus) -> f64 {
    statuses
        .iter()
        .filter(|(c, _)| !ok.contains(**c))
        .map(|(_, p)| p)
        .sum()
}
