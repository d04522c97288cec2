//! The server side of a step in words: probes (cache hit rate against the plan,
//! counters), the watched process's CPU and memory, and which side was the limit.

use std::fmt::Write as _;

use crate::analysis::step::{self as step_findings, CpuLimit};
use crate::result::{RunResult, StepResult};

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
                    p.delta.iter().map(|(k, v)| format!("{k} {v:+}")).collect();
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::result::fixture::{bare_step, run};
    use crate::result::ProbeResult;

    /// The bug: a counter that went down during the step (MySQL's
    /// `Threads_connected`, a gauge) printed as `+-2`.
    #[test]
    fn a_probe_s_deltas_print_their_own_sign() {
        let mut step = bare_step(1);
        step.probes.push(ProbeResult {
            probe: "mysql".into(),
            target: "127.0.0.1:3306".into(),
            delta: [
                ("Com_select".to_string(), 40.0),
                ("Threads_connected".to_string(), -2.0),
            ]
            .into_iter()
            .collect(),
            ..ProbeResult::default()
        });
        let text = server_side(&run(vec![step.clone()]), &step);
        assert!(
            text.contains("Probe mysql 127.0.0.1:3306: Com_select +40, Threads_connected -2"),
            "{text}"
        );
    }
}
