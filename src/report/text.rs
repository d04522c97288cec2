//! What the terminal shows: one aligned row per finished ramp step, drnbench's
//! per-step report, and an ab/hey-style summary for `hakaru run`.
//!
//! Each figure says where it comes from: measured (from the histograms and counters)
//! or derived (arithmetic on other figures), because tools that blur the two mislead
//! (ab's "time per request" is connections ÷ req/s, not a measurement).

use std::fmt::Write as _;

use hdrhistogram::Histogram;

use crate::analysis::step::{self as step_findings, CpuLimit};
use crate::result::{decode_histogram, LatencySummary, RequestInfo, RunResult, StepResult};
use crate::stats::{RequestSample, LATE_THRESHOLD};

use crate::result::csv::float_repr;

/// Quantiles of ab's "served within a certain time" table, in percent.
const TABLE_PERCENTS: [f64; 10] = [50.0, 66.0, 75.0, 80.0, 90.0, 95.0, 98.0, 99.0, 99.9, 100.0];

fn ms(seconds: f64) -> f64 {
    seconds * 1e3
}

/// One line per finished step, columns fixed-width so consecutive rows align:
/// `clients    8  requests    41230  qps   13743.2  mean    0.58 ms  p50 …  errors 0`.
/// Open-model steps start with their target rate.
pub fn step_row(step: &StepResult) -> String {
    let l = &step.latency;
    let mut row = String::new();
    if let Some(rate) = step.rate {
        let _ = write!(row, "rate {rate:>9.1}/s  ");
    }
    let _ = write!(
        row,
        "clients {:>4}  requests {:>8}  qps {:>9.1}  mean {:>7.2} ms  p50 {:>7.2} ms  \
         p99 {:>7.2} ms  max {:>8.2} ms  errors {}",
        step.n_clients,
        step.total_requests,
        step.qps,
        ms(l.mean_s),
        ms(l.p50_s),
        ms(l.p99_s),
        ms(l.max_s),
        step.error_total(),
    );
    if step.unfinished > 0 {
        let _ = write!(row, "  unfinished {}", step.unfinished);
    }
    if step.partial {
        row.push_str("  (partial)");
    }
    row
}

/// drnbench's per-step report: requests and qps, status shares, errors by kind,
/// elapsed min/max/average, then the `n_fast` fastest and `n_slow` slowest requests.
/// `requests` resolves [`RequestSample::request`] to method and URL.
pub fn step_detail(
    step: &StepResult,
    requests: &[RequestInfo],
    n_slow: usize,
    n_fast: usize,
) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Total requests: {} ({} queries per second)",
        step.total_requests,
        float_repr(step.qps)
    );
    out.push_str("Status:\n");
    // drnbench lists the most frequent status first.
    let mut shares: Vec<(u16, f64)> = step.status_percentages().into_iter().collect();
    shares.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    for (status, pct) in shares {
        let _ = writeln!(out, "  {status}: {} %", float_repr(pct));
    }
    if !step.errors.is_empty() {
        out.push_str("Errors (status 0):\n");
        for (kind, n) in &step.errors {
            let _ = writeln!(out, "  {kind}: {n}");
        }
    }
    if step.unfinished > 0 {
        let _ = writeln!(out, "Unfinished at end: {}", step.unfinished);
    }
    out.push_str("Elapsed time:\n");
    let l = &step.latency;
    if l.count == 0 {
        out.push_str("  (no responses)\n");
    } else {
        let _ = writeln!(out, "  min:     {} sec", float_repr(l.min_s));
        let _ = writeln!(out, "  max:     {} sec", float_repr(l.max_s));
        let _ = writeln!(out, "  average: {} sec", float_repr(l.mean_s));
    }
    for (what, samples, n) in [
        ("fast", &step.fastest, n_fast),
        ("slow", &step.slowest, n_slow),
    ] {
        if n == 0 {
            continue;
        }
        let _ = writeln!(out, "Top {n} {what} requests:");
        out.push_str(" [time: method status <client>#index url]\n");
        for s in samples.iter().take(n) {
            let _ = writeln!(out, "  {}", request_line(s, requests));
        }
    }
    out
}

/// What the server side saw during a step: probes (cache hit rate against the plan,
/// counters), the watched process's CPU and memory, and which side was the limit.
/// Empty when nothing was probed.
pub fn server_side(run: &RunResult, step: &StepResult) -> String {
    let mut out = String::new();
    let planned = run.settings.planned_cache_hit_rate;
    if let Some(rate) = step.cache_hit_rate {
        let plan = planned
            .map(|p| format!(" (planned {:.1}%)", p * 100.0))
            .unwrap_or_default();
        let _ = writeln!(out, "Cache hit rate (server): {:.1}%{plan}", rate * 100.0);
        if let Some(p) = planned {
            if step_findings::hit_rate_off_plan(rate, p) {
                let _ = writeln!(
                    out,
                    "Warning: the measured cache hit rate {:.1}% is more than {:.0} points from the planned {:.1}%",
                    rate * 100.0,
                    step_findings::HIT_RATE_TOLERANCE * 100.0,
                    p * 100.0
                );
            }
        }
    } else if planned.is_some() && !step.probes.is_empty() {
        out.push_str("Cache hit rate (server): unknown (no probe reported a cache)\n");
    }
    for p in &step.probes {
        match &p.error {
            Some(e) => {
                let _ = writeln!(out, "Probe {} {}: no numbers ({e})", p.probe, p.target);
            }
            None => {
                let deltas: Vec<String> =
                    p.delta.iter().map(|(k, v)| format!("{k} +{v}")).collect();
                let rate = p
                    .cache_hit_rate
                    .map(|r| format!(", cache hit rate {:.1}%", r * 100.0))
                    .unwrap_or_default();
                let _ = writeln!(
                    out,
                    "Probe {} {}: {}{rate}",
                    p.probe,
                    p.target,
                    deltas.join(", ")
                );
            }
        }
    }
    if let Some(sp) = &step.server_process {
        match &sp.error {
            Some(e) => {
                let _ = writeln!(out, "Server process {}: {e}", sp.pid);
            }
            None => {
                let cores = run.machine.cpus.max(1);
                let _ = writeln!(
                    out,
                    "Server process {}: {:.0}% CPU ({:.2} of {cores} cores), peak RSS {:.1} MB",
                    sp.pid,
                    sp.cores_used * 100.0,
                    sp.cores_used,
                    sp.rss_max_bytes as f64 / 1e6
                );
                let server_share = sp.cores_used / cores as f64;
                match step_findings::cpu_limit(step.client_cpu_share, server_share) {
                    Some(CpuLimit::Client) => {
                        let _ = writeln!(
                            out,
                            "Warning: the client was saturated while the server used {:.0}% of the cores: these numbers are the client's limit, not the server's",
                            server_share * 100.0
                        );
                    }
                    Some(CpuLimit::Server) => {
                        let _ = writeln!(
                            out,
                            "The server was the limit: it kept {:.0}% of the cores busy",
                            server_share * 100.0
                        );
                    }
                    None => {}
                }
            }
        }
    }
    out
}

/// For an open-model ramp (`--rate`): each step's target rate against what the server
/// answered, with response time (from the due time) and the requests that could not
/// start on time. The first rate the server could not keep up with is marked.
pub fn rate_table(run: &RunResult) -> String {
    let mut out = String::from("  target/s  achieved/s     p50 ms     p99 ms   late  dropped\n");
    let mut marked = false;
    for s in run.steps.iter().filter(|s| s.rate.is_some()) {
        let rate = s.rate.unwrap_or(0.0);
        // Behind: under 95% of the target answered, or requests left waiting.
        let behind = s.qps < rate * 0.95 || s.dropped > 0;
        let mark = if behind && !marked {
            marked = true;
            "  <- falls behind"
        } else {
            ""
        };
        let _ = writeln!(
            out,
            "{rate:>10.1}  {:>10.1}  {:>9.2}  {:>9.2}  {:>5}  {:>7}{mark}",
            s.qps,
            ms(s.latency.p50_s),
            ms(s.latency.p99_s),
            s.late,
            s.dropped
        );
    }
    if !marked {
        out.push_str("The server kept up with every rate: raise the rates to find its limit.\n");
    }
    out
}

/// Cold against warm: each round's peak throughput and its latency at the first step,
/// with the ratio to round 1. Empty for a run of one round.
pub fn rounds_summary(run: &RunResult) -> String {
    let rounds = run.steps.iter().map(|s| s.round).max().unwrap_or(1);
    if rounds < 2 {
        return String::new();
    }
    let mut out = String::from("Round  peak qps  at clients  first-step mean  vs round 1\n");
    let mut base = None;
    for r in 1..=rounds {
        let steps: Vec<&StepResult> = run.steps.iter().filter(|s| s.round == r).collect();
        let Some(peak) = steps.iter().max_by(|a, b| a.qps.total_cmp(&b.qps)) else {
            continue;
        };
        let first = steps[0];
        let base_qps = *base.get_or_insert(peak.qps);
        let ratio = if base_qps > 0.0 {
            format!("{:.2}x", peak.qps / base_qps)
        } else {
            "-".into()
        };
        let _ = writeln!(
            out,
            "{r:>5}  {:>8.1}  {:>10}  {:>12.3} ms  {ratio:>10}",
            peak.qps,
            peak.n_clients,
            ms(first.latency.mean_s)
        );
    }
    if let Some(hit) = run
        .steps
        .iter()
        .find(|s| s.round == 1)
        .and_then(|s| s.cache_hit_rate)
    {
        let warm = run
            .steps
            .iter()
            .rev()
            .find_map(|s| s.cache_hit_rate)
            .unwrap_or(hit);
        let _ = writeln!(
            out,
            "Cache hit rate: {:.1}% in the first step (cold), {:.1}% in the last (warm)",
            hit * 100.0,
            warm * 100.0
        );
    }
    out
}

/// `0.001234 sec: GET 200 <client 3>#17 http://host:port/path`.
fn request_line(s: &RequestSample, requests: &[RequestInfo]) -> String {
    let status = if s.status == 0 {
        "0(error)".to_string()
    } else {
        s.status.to_string()
    };
    let (method, url) = match requests.get(s.request) {
        Some(r) => (r.method.as_str(), r.url.clone()),
        None => ("?", format!("<request {}>", s.request)),
    };
    format!(
        "{:.6} sec: {method} {status} <client {}>#{} {url}",
        s.elapsed_s, s.client, s.index
    )
}

/// Label column of [`run_summary`], wide enough for the longest label.
fn field(out: &mut String, label: &str, value: impl std::fmt::Display) {
    let _ = writeln!(out, "{:<24}{value}", format!("{label}:"));
}

fn latency_brief(l: &LatencySummary) -> String {
    format!(
        "mean {:.3} ms, p50 {:.3} ms, p99 {:.3} ms, max {:.3} ms",
        ms(l.mean_s),
        ms(l.p50_s),
        ms(l.p99_s),
        ms(l.max_s)
    )
}

/// The ab/hey-style summary of one step of `hakaru run`. Measured figures come from
/// the step's histograms and counters; derived ones say how they were derived.
pub fn run_summary(run: &RunResult, step: &StepResult) -> String {
    let mut out = String::new();
    let open = step.rate.is_some();
    let cores = run.machine.cpus.max(1);
    let elapsed = step.elapsed_s;

    match run.targets.as_slice() {
        [one] => field(&mut out, "Target", one),
        many => field(&mut out, "Targets", many.join(", ")),
    }
    field(
        &mut out,
        "Keep-alive",
        if run.settings.keep_alive { "on" } else { "off" },
    );
    match step.rate {
        Some(rate) => field(
            &mut out,
            "Model",
            format!("open ({rate:.1} requests/s target rate)"),
        ),
        None => field(&mut out, "Model", "closed (clients send back to back)"),
    }
    field(&mut out, "Concurrency", step.n_clients);
    field(&mut out, "Time taken", format!("{elapsed:.3} seconds"));
    if step.partial {
        field(
            &mut out,
            "Cut short",
            "yes (interrupted; figures cover the measured part)",
        );
    }
    field(
        &mut out,
        "Complete requests",
        format!("{} (whole HTTP responses, any status)", step.responses),
    );
    let failed = step.error_total();
    if failed == 0 {
        field(&mut out, "Failed requests", 0);
    } else {
        let kinds: Vec<String> = step
            .errors
            .iter()
            .map(|(k, n)| format!("{k} {n}"))
            .collect();
        field(
            &mut out,
            "Failed requests",
            format!("{failed} (no response: {})", kinds.join(", ")),
        );
    }
    let non_2xx: Vec<(u16, u64)> = step
        .statuses
        .iter()
        .filter(|(c, _)| !(200..300).contains(*c))
        .map(|(c, n)| (*c, *n))
        .collect();
    let n_non_2xx: u64 = non_2xx.iter().map(|(_, n)| n).sum();
    if n_non_2xx == 0 {
        field(&mut out, "Non-2xx responses", 0);
    } else {
        let codes: Vec<String> = non_2xx.iter().map(|(c, n)| format!("{c}: {n}")).collect();
        field(
            &mut out,
            "Non-2xx responses",
            format!("{n_non_2xx} ({})", codes.join(", ")),
        );
    }
    field(
        &mut out,
        "Unfinished at end",
        format!(
            "{} (in flight when the step ended; neither success nor failure)",
            step.unfinished
        ),
    );
    field(
        &mut out,
        "Total transferred",
        format!(
            "{} bytes received, {} bytes sent",
            step.bytes_received, step.bytes_sent
        ),
    );
    field(
        &mut out,
        "Requests per second",
        format!("{:.2} [#/sec] (responses / measured wall time)", step.qps),
    );
    let l = &step.latency;
    if l.count > 0 {
        field(
            &mut out,
            "Time per request",
            format!("{:.3} [ms] (mean response time, measured)", ms(l.mean_s)),
        );
    }
    if step.responses > 0 {
        field(
            &mut out,
            "Time per request",
            format!(
                "{:.3} [ms] (mean, across all concurrent requests: \
                 time taken / complete requests, derived)",
                ms(elapsed / step.responses as f64)
            ),
        );
    }
    if elapsed > 0.0 {
        field(
            &mut out,
            "Transfer rate",
            format!(
                "{:.2} [Kbytes/sec] received",
                step.bytes_received as f64 / 1024.0 / elapsed
            ),
        );
    }
    connections(&mut out, run, step);
    if open {
        open_model(&mut out, step);
    }
    if run.targets.len() > 1 && !step.per_host.is_empty() {
        out.push_str("Per target:\n");
        for h in &step.per_host {
            let _ = writeln!(
                out,
                "  {}  responses {}  errors {}  mean {:.3} ms",
                h.target,
                h.responses,
                h.errors,
                ms(h.mean_s())
            );
        }
    }

    out.push('\n');
    percent_table(&mut out, step);
    out.push('\n');

    field(
        &mut out,
        "Client CPU",
        format!(
            "{:.2} s ({:.0}% of {cores} core{})",
            step.client_cpu_s,
            step.client_cpu_share * 100.0,
            if cores == 1 { "" } else { "s" }
        ),
    );
    if step_findings::client_busy(step.client_cpu_share) {
        let _ = writeln!(
            out,
            "Warning: hakaru used {:.0}% of {cores} cores — the client may be the bottleneck",
            step.client_cpu_share * 100.0
        );
    }
    out.push_str(&server_side(run, step));
    out
}

fn connections(out: &mut String, run: &RunResult, step: &StepResult) {
    let mut text = format!("{} opened", step.connections_opened);
    if step.total_requests > 0 {
        let per = step.connections_opened as f64 / step.total_requests as f64;
        let _ = write!(text, " ({per:.2} per request");
        if step_findings::keep_alive_missing(&run.settings, step) {
            text.push_str(" — keep-alive did not happen");
        }
        text.push(')');
    }
    field(out, "Connections", text);
    if run.settings.keep_alive && step.server_closes > 0 {
        field(
            out,
            "Server closes",
            format!(
                "{} responses ended with the server closing the connection",
                step.server_closes
            ),
        );
    }
    if step.connect.count > 0 {
        field(out, "Connect time", latency_brief(&step.connect));
    }
    if let Some(tls) = step.tls_handshake.as_ref().filter(|t| t.count > 0) {
        field(out, "TLS handshake", latency_brief(tls));
    }
}

fn open_model(out: &mut String, step: &StepResult) {
    if let Some(rate) = step.rate {
        field(
            out,
            "Target rate",
            format!(
                "{rate:.1} requests/s (achieved {:.1} responses/s)",
                step.qps
            ),
        );
    }
    field(
        out,
        "Late",
        format!(
            "{} (started more than {} ms after their intended time)",
            step.late,
            LATE_THRESHOLD.as_millis()
        ),
    );
    field(
        out,
        "Dropped",
        format!("{} (intended start passed, never started)", step.dropped),
    );
    if step.latency.count > 0 {
        field(
            out,
            "Response time",
            format!(
                "{} (from each request's intended start)",
                latency_brief(&step.latency)
            ),
        );
    }
    if let Some(service) = step.service.as_ref().filter(|s| s.count > 0) {
        field(
            out,
            "Service time",
            format!("{} (from the actual send)", latency_brief(service)),
        );
    }
}

/// ab's table, from the decoded histogram; the open model adds service time beside.
fn percent_table(out: &mut String, step: &StepResult) {
    out.push_str("Percentage of the requests served within a certain time (ms)\n");
    let response = match step.decode_histogram() {
        Ok(h) if h.is_empty() => {
            out.push_str("  (no responses)\n");
            return;
        }
        Ok(h) => h,
        Err(e) => {
            let _ = writeln!(out, "  (response-time histogram unreadable: {e})");
            return;
        }
    };
    let service = step
        .service_histogram
        .as_deref()
        .and_then(|s| decode_histogram(s).ok())
        .filter(|h| !h.is_empty());
    if service.is_some() {
        out.push_str("          response    service\n");
    }
    for pct in TABLE_PERCENTS {
        let label = format!("{}%", float_label(pct));
        let _ = write!(out, "{label:>7} {:>10.3}", at_percent(&response, pct));
        if let Some(s) = &service {
            let _ = write!(out, " {:>10.3}", at_percent(s, pct));
        }
        if pct == 100.0 {
            out.push_str(" (longest request)");
        }
        out.push('\n');
    }
}

/// `50` for 50.0, `99.9` for 99.9.
fn float_label(pct: f64) -> String {
    if pct.fract() == 0.0 {
        format!("{pct:.0}")
    } else {
        format!("{pct}")
    }
}

/// Latency at a percentile of a microsecond histogram, in milliseconds.
fn at_percent(h: &Histogram<u64>, pct: f64) -> f64 {
    let us = if pct >= 100.0 {
        h.max()
    } else {
        h.value_at_quantile(pct / 100.0)
    };
    us as f64 / 1e3
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::result::encode_histogram;
    use crate::result::fixture::{bare_step, recorded_step, run};
    use crate::stats::{new_histogram, ErrorKind};

    #[test]
    fn step_row_snapshot() {
        let mut s = bare_step(8);
        s.total_requests = 41230;
        s.qps = 13743.2;
        s.latency = LatencySummary {
            count: 41230,
            mean_s: 0.00058,
            p50_s: 0.00051,
            p99_s: 0.0019,
            max_s: 0.0124,
            ..LatencySummary::default()
        };
        assert_eq!(
            step_row(&s),
            "clients    8  requests    41230  qps   13743.2  mean    0.58 ms  p50    0.51 ms  \
             p99    1.90 ms  max    12.40 ms  errors 0"
        );
        let mut wide = s.clone();
        wide.n_clients = 128;
        wide.total_requests = 1234567;
        wide.qps = 41152.3;
        wide.errors.insert(ErrorKind::Reset, 3);
        wide.unfinished = 5;
        wide.partial = true;
        let (a, b) = (step_row(&s), step_row(&wide));
        // Columns line up: each label starts at the same offset in both rows.
        for label in ["requests", "qps", "mean", "p50", "p99", "max", "errors"] {
            assert_eq!(a.find(label), b.find(label), "{label}\n{a}\n{b}");
        }
        assert!(b.ends_with("errors 3  unfinished 5  (partial)"), "{b}");
    }

    #[test]
    fn step_row_leads_with_rate_in_open_model() {
        let mut s = bare_step(4);
        s.rate = Some(1000.0);
        assert!(step_row(&s).starts_with("rate    1000.0/s  clients    4"));
    }

    fn detailed_step() -> StepResult {
        let mut ok: Vec<(u16, u64)> = (1..=97).map(|i| (200, 1000 + i)).collect();
        ok.push((503, 1500));
        ok.push((503, 1600));
        recorded_step(2, 1.0, &ok, &[(ErrorKind::Timeout, 3_000_000)])
    }

    #[test]
    fn step_detail_follows_drnbench() {
        let r = run(vec![detailed_step()]);
        let text = step_detail(&r.steps[0], &r.requests, 2, 1);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "Total requests: 100 (99.0 queries per second)");
        assert_eq!(lines[1], "Status:");
        assert_eq!(lines[2], "  200: 97.0 %");
        assert_eq!(lines[3], "  503: 2.0 %");
        assert_eq!(lines[4], "  0: 1.0 %");
        assert!(
            text.contains("Errors (status 0):\n  timeout: 1\n"),
            "{text}"
        );
        assert!(text.contains("  min:     0.001001 sec\n"), "{text}");
        assert!(text.contains("  max:     0.0016 sec\n"), "{text}");
        assert!(text.contains(
            "Top 1 fast requests:\n [time: method status <client>#index url]\n  \
             0.001001 sec: GET 200 <client 0>#0 http://127.0.0.1:10041/d/status\n"
        ));
        // Request 99 (0-based) is the timeout: odd → the select URL, client 1, #49.
        assert!(text.contains(
            "Top 2 slow requests:\n [time: method status <client>#index url]\n  \
             3.000000 sec: GET 0(error) <client 1>#49 http://127.0.0.1:10041/d/select?table=Store\n  \
             0.001600 sec: GET 503 "
        ));
    }

    #[test]
    fn step_detail_survives_nothing_and_unknown_requests() {
        let mut s = bare_step(1);
        s.slowest.push(RequestSample {
            elapsed_s: 0.5,
            request: 99,
            status: 200,
            client: 0,
            index: 0,
        });
        let text = step_detail(&s, &[], 5, 0);
        assert!(text.contains("(no responses)"));
        assert!(text.contains("0.500000 sec: ? 200 <client 0>#0 <request 99>"));
        assert!(!text.contains("fast requests"));
    }

    #[test]
    fn summary_states_the_key_facts() {
        let mut step = detailed_step();
        step.connections_opened = 100;
        step.bytes_received = 102_400;
        step.bytes_sent = 5_000;
        let r = run(vec![step.clone()]);
        let text = run_summary(&r, &step);
        let has = |line: &str| {
            assert!(
                text.lines().any(|l| l == line),
                "missing {line:?} in\n{text}"
            );
        };
        has("Target:                 http://127.0.0.1:10041");
        has("Keep-alive:             on");
        has("Model:                  closed (clients send back to back)");
        has("Concurrency:            2");
        has("Time taken:             1.000 seconds");
        has("Complete requests:      99 (whole HTTP responses, any status)");
        has("Failed requests:        1 (no response: timeout 1)");
        has("Non-2xx responses:      2 (503: 2)");
        has("Unfinished at end:      0 (in flight when the step ended; neither success nor failure)");
        has("Total transferred:      102400 bytes received, 5000 bytes sent");
        has("Requests per second:    99.00 [#/sec] (responses / measured wall time)");
        has("Time per request:       10.101 [ms] (mean, across all concurrent requests: time taken / complete requests, derived)");
        has("Transfer rate:          100.00 [Kbytes/sec] received");
        has("Connections:            100 opened (1.00 per request — keep-alive did not happen)");
        has("Percentage of the requests served within a certain time (ms)");
        has("    50%      1.050");
        has("  99.9%      1.600");
        has("   100%      1.600 (longest request)");
        has("Client CPU:             0.50 s (25% of 2 cores)");
        let mean = text
            .lines()
            .find(|l| l.starts_with("Time per request:") && l.contains("measured"))
            .unwrap();
        assert!(
            mean.contains("[ms] (mean response time, measured)"),
            "{mean}"
        );
        assert!(!text.contains("Warning"));
        assert!(!text.contains("Target rate"));
    }

    #[test]
    fn summary_warns_when_the_client_is_busy() {
        let mut step = detailed_step();
        step.client_cpu_share = 0.97;
        let text = run_summary(&run(vec![step.clone()]), &step);
        assert!(text
            .contains("Warning: hakaru used 97% of 2 cores — the client may be the bottleneck\n"));
    }

    #[test]
    fn summary_keep_alive_that_worked_is_not_flagged() {
        let mut step = detailed_step();
        step.connections_opened = 2;
        let mut r = run(vec![step.clone()]);
        let text = run_summary(&r, &step);
        assert!(text.contains("Connections:            2 opened (0.02 per request)\n"));
        r.settings.keep_alive = false;
        step.connections_opened = 100;
        let text = run_summary(&r, &step);
        assert!(text.contains("Keep-alive:             off\n"));
        assert!(text.contains("(1.00 per request)\n"), "{text}");
    }

    #[test]
    fn summary_open_model_shows_service_beside_response() {
        let mut step = detailed_step();
        step.rate = Some(100.0);
        step.late = 3;
        step.dropped = 1;
        let mut service = new_histogram();
        for us in 500..600u64 {
            service.record(us).unwrap();
        }
        step.service = Some(LatencySummary::of(&service));
        step.service_histogram = Some(encode_histogram(&service));
        let text = run_summary(&run(vec![step.clone()]), &step);
        assert!(text.contains("Model:                  open (100.0 requests/s target rate)\n"));
        assert!(
            text.contains("Target rate:            100.0 requests/s (achieved 99.0 responses/s)\n")
        );
        assert!(text.contains("Late:                   3 (started more than 1 ms"));
        assert!(text.contains("Dropped:                1 "));
        assert!(
            text.contains("Service time:           mean 0.550 ms"),
            "{text}"
        );
        assert!(text.contains("          response    service\n"));
        assert!(text.contains("    50%      1.050      0.549\n"), "{text}");
    }

    #[test]
    fn summary_without_responses_does_not_divide_by_zero() {
        let step = bare_step(1);
        let text = run_summary(&run(vec![step.clone()]), &step);
        assert!(text.contains("Complete requests:      0 "));
        assert!(text.contains(
            "Percentage of the requests served within a certain time (ms)\n  (no responses)\n"
        ));
        assert!(!text.contains("NaN") && !text.contains("inf"), "{text}");
        let mut broken = step;
        broken.histogram = "not base64!".into();
        let text = run_summary(&run(vec![broken.clone()]), &broken);
        assert!(text.contains("histogram unreadable"));
    }
}
