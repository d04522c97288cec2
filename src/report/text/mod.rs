//! What the terminal shows: one aligned row per finished ramp step, drnbench's
//! per-step report, and an ab/hey-style summary for `hakaru run`.
//!
//! Each figure says where it comes from: measured (from the histograms and counters)
//! or derived (arithmetic on other figures), because tools that blur the two mislead
//! (ab's "time per request" is connections ÷ req/s, not a measurement).

use std::fmt::Write as _;

use crate::result::{RequestInfo, StepResult};
use crate::stats::RequestSample;

use crate::result::csv::float_repr;

mod ramp_end;
mod server;
mod summary;

pub use ramp_end::{rate_table, rounds_summary};
pub use server::server_side;
pub use summary::run_summary;

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
            match step.error_samples.get(kind) {
                Some(m) => {
                    let _ = writeln!(out, "  {kind}: {n} (first: {m})");
                }
                None => {
                    let _ = writeln!(out, "  {kind}: {n}");
                }
            }
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

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::result::fixture::{bare_step, recorded_step, run};
    use crate::result::LatencySummary;
    use crate::stats::ErrorKind;

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

    pub(super) fn detailed_step() -> StepResult {
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
}
