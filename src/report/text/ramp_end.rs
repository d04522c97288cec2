//! The tables printed when a ramp ends: an open-model ramp's rates (target against
//! achieved), and the rounds of a repeated run (cold against warm).

use std::fmt::Write as _;

use crate::report::fmt::{fmt_latency, fmt_qps};
use crate::result::{RunResult, StepResult};

/// For an open-model ramp (`--rate`): each step's target rate against what the server
/// answered, with response time (from the due time) and the requests that could not
/// start on time. The first rate the server could not keep up with is marked.
pub fn rate_table(run: &RunResult) -> String {
    let mut out = String::from("  target/s  achieved/s        p50        p99   late  dropped\n");
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
            "{:>10}  {:>10}  {:>9}  {:>9}  {:>5}  {:>7}{mark}",
            fmt_qps(rate),
            fmt_qps(s.qps),
            fmt_latency(s.latency.p50_s),
            fmt_latency(s.latency.p99_s),
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
            "{r:>5}  {:>8}  {:>10}  {:>15}  {ratio:>10}",
            fmt_qps(peak.qps),
            peak.n_clients,
            fmt_latency(first.latency.mean_s)
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
