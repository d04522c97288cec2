//! The table printed when a repeated ramp ends: its rounds, cold against warm. (An
//! open-model ramp ends with [`crate::report::chart::terminal_summary`], as `report`
//! shows it.)

use std::fmt::Write as _;

use crate::report::fmt::{fmt_latency, fmt_qps};
use crate::result::{RunResult, StepResult};

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
