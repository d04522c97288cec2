//! The table printed when a repeated run or ramp ends: its rounds, one row each, with
//! what ran before each round (`--before-round`), and a line for the commands run
//! before steps (`--before-step`). (An open-model ramp ends with
//! [`crate::report::chart::terminal_summary`] too, as `report` shows it.)

use std::fmt::Write as _;

use crate::report::fmt::{fmt_latency, fmt_qps, Work};
use crate::result::{RunResult, StepResult};

/// Round by round: each round's requests, peak throughput (and at how many clients),
/// its first step's mean and p99 latency, its peak against round 1's, and how the
/// command before it ended. Empty for a run of one round.
pub fn rounds_summary(run: &RunResult) -> String {
    let rounds = run.steps.iter().map(|s| s.round).max().unwrap_or(1);
    let mut out = String::new();
    if rounds >= 2 {
        let by_command = run.steps.iter().any(|s| s.before_round.is_some());
        let _ = writeln!(
            out,
            "Round by round{}:",
            if by_command {
                " (each prepared by --before-round)"
            } else {
                " (round 1 meets cold caches and connections; the rest repeat it)"
            }
        );
        // A SQL run's rounds count transactions in tps, a store's commands in ops/s.
        let work = Work::of(&run.targets);
        let peak = format!("peak {}", work.rate());
        let (iw, pw) = (work.items().len().max(8), peak.len().max(8));
        let _ = write!(
            out,
            "Round  {:>iw$}  {peak:>pw$}  at clients  step-1 mean  step-1 p99  vs round 1",
            work.items()
        );
        if by_command {
            out.push_str("  before the round");
        }
        out.push('\n');
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
            let requests: u64 = steps.iter().map(|s| s.total_requests).sum();
            let _ = write!(
                out,
                "{r:>5}  {requests:>iw$}  {:>pw$}  {:>10}  {:>11}  {:>10}  {ratio:>10}",
                fmt_qps(peak.qps),
                peak.n_clients,
                fmt_latency(first.latency.mean_s),
                fmt_latency(first.latency.p99_s),
            );
            if let Some(c) = &first.before_round {
                let _ = write!(out, "  {}", c.outcome());
            }
            out.push('\n');
        }
        cache_line(run, &mut out);
    }
    out + &before_steps(run)
}

/// The probes' cache hit rate, first step against last.
fn cache_line(run: &RunResult, out: &mut String) {
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
}

/// The commands run before steps (`--before-step`), and before the round of a run of
/// one round: how many ran, how long they took, each failure in full.
pub fn before_steps(run: &RunResult) -> String {
    let mut out = String::new();
    let rounds = run.steps.iter().map(|s| s.round).max().unwrap_or(1);
    let mut commands: Vec<(&str, &StepResult, &crate::result::command::CommandResult)> = Vec::new();
    for s in &run.steps {
        if let (Some(c), true) = (&s.before_round, rounds < 2) {
            commands.push(("--before-round", s, c));
        }
        if let Some(c) = &s.before_step {
            commands.push(("--before-step", s, c));
        }
    }
    for flag in ["--before-round", "--before-step"] {
        let ran: Vec<_> = commands.iter().filter(|(f, ..)| *f == flag).collect();
        if ran.is_empty() {
            continue;
        }
        let failed: Vec<_> = ran.iter().filter(|(.., c)| !c.ok).collect();
        let (lo, hi) = ran.iter().fold((f64::MAX, 0.0f64), |(lo, hi), (.., c)| {
            (lo.min(c.duration_s), hi.max(c.duration_s))
        });
        let times = if ran.len() == 1 {
            format!("{lo:.2} s")
        } else {
            format!("{lo:.2}–{hi:.2} s each")
        };
        let _ = writeln!(
            out,
            "{flag} ran {} time{}: {}, {times}",
            ran.len(),
            if ran.len() == 1 { "" } else { "s" },
            if failed.is_empty() {
                "every one exit 0".to_string()
            } else {
                format!(
                    "{} FAILED and the step was measured anyway (--before-may-fail)",
                    failed.len()
                )
            }
        );
        for (_, s, c) in failed {
            let _ = writeln!(
                out,
                "  before round {} at {} clients: {}",
                s.round,
                s.n_clients,
                c.outcome()
            );
        }
    }
    if let Some(c) = &run.stopped_by_command {
        let _ = writeln!(out, "The run stopped at a failed command: {}", c.outcome());
    }
    out
}
