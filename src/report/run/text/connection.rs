//! The summary's lines on how a step connected: keep-alive, the protocol,
//! `--coalesce` and the pipeline depth where asked; the connections opened per
//! request (per transaction, per command), the server's closes, connect and TLS
//! handshake times.

use std::fmt::Write as _;

use super::summary::{field, latency_brief};
use crate::analysis::step as step_findings;
use crate::report::fmt::{fmt_latency, Work};
use crate::result::{CoalesceUse, RunResult, StepResult};

/// Connections per request: "1.00 per request", or "1 per 1000 requests" when
/// "0.00 per request" would say nothing.
pub(super) fn per_request(per: f64) -> String {
    per_item(per, Work::Request)
}

/// [`per_request`] in the run's unit: a SQL run's transactions, a store's commands.
fn per_item(per: f64, work: Work) -> String {
    if per >= 0.01 || per == 0.0 {
        format!("{per:.2} per {}", work.item())
    } else {
        format!("1 per {:.0} {}", 1.0 / per, work.items())
    }
}

/// How the run connected: keep-alive (a SQL run's and a store's connections in
/// their words) always; the protocol, `--coalesce` and the pipeline depth where
/// they were asked for.
pub(super) fn connection_fields(out: &mut String, run: &RunResult, step: &StepResult) {
    let (name, says) = Work::of(&run.targets).kept(run.settings.keep_alive);
    field(out, name, says);
    if let Some(protocol) = protocol(run, step) {
        field(out, "Protocol", protocol);
    }
    if let Some(us) = run.settings.coalesce_us {
        let says = format!("up to {us} µs a wake-up; latency as the kernel received");
        field(out, "Coalesce", says);
        if let Some(used) = step.coalesce {
            field(out, "Coalesced", coalesced(&used));
        }
    }
    if let Some(n) = run.settings.pipeline.filter(|&n| n > 1) {
        let says = format!("{n} commands in flight per connection");
        field(out, "Pipeline", says);
    }
}

/// What `--coalesce`'s pauses did: a window is a tenth of the response time and
/// taken only where it gathers answers, so a run that never paused says why.
fn coalesced(used: &CoalesceUse) -> String {
    if used.pauses == 0 {
        return "never paused: too few answers in flight to gather".into();
    }
    format!(
        "{} pauses, {} in all, each ≤ 1/10 of an answer",
        used.pauses,
        fmt_latency(used.slept_s)
    )
}

/// What the step's connections spoke, when HTTP/2 was asked for or used (HTTP/1.1
/// alone, the default, goes unsaid).
fn protocol(run: &RunResult, step: &StepResult) -> Option<String> {
    let streams = run.settings.http2_streams;
    if streams.is_none() && step.connections_http2 == 0 {
        return None;
    }
    let mut text = step.protocol().to_string();
    match streams {
        Some(n) if step.connections_http2 > 0 => {
            let _ = write!(text, " ({n} stream{} per connection)", plural(n));
        }
        Some(_) if step.connections_opened > 0 => {
            text.push_str(" (--http2 asked; the server did not pick h2)")
        }
        _ => {}
    }
    Some(text)
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

pub(super) fn connections(out: &mut String, run: &RunResult, step: &StepResult) {
    let mut text = format!("{} opened", step.connections_opened);
    if step.total_requests > 0 {
        let per = step.connections_opened as f64 / step.total_requests as f64;
        let work = Work::of(&run.targets);
        let _ = write!(text, " ({}", per_item(per, work));
        if step_findings::keep_alive_missing(&run.settings, step) {
            text.push_str(match work {
                Work::Request => " — keep-alive did not happen",
                _ => " — connections were not kept",
            });
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

#[cfg(test)]
mod tests {
    use super::super::summary::run_summary;
    use super::super::tests::detailed_step;
    use super::*;
    use crate::result::fixture::run;

    #[test]
    fn summary_says_the_protocol_when_http2_was_asked_or_used() {
        let mut step = detailed_step();
        let mut r = run(vec![step.clone()]);
        assert!(!run_summary(&r, &step).contains("Protocol"));
        r.settings.http2_streams = Some(10);
        step.connections_opened = 2;
        step.connections_http2 = 2;
        let text = run_summary(&r, &step);
        assert!(
            text.contains("Protocol:               HTTP/2 (10 streams per connection)\n"),
            "{text}"
        );
        // Asked, but the TLS server picked HTTP/1.1.
        step.connections_http2 = 0;
        let text = run_summary(&r, &step);
        assert!(
            text.contains(
                "Protocol:               HTTP/1.1 (--http2 asked; the server did not pick h2)\n"
            ),
            "{text}"
        );
    }

    /// `--coalesce` is said in one line of at most 80 columns, and only when given.
    #[test]
    fn summary_says_coalesce_within_80_columns() {
        let step = detailed_step();
        let mut r = run(vec![step.clone()]);
        assert!(!run_summary(&r, &step).contains("Coalesce"));
        r.settings.coalesce_us = Some(1000);
        let text = run_summary(&r, &step);
        let line = text
            .lines()
            .find(|l| l.starts_with("Coalesce:"))
            .unwrap_or_else(|| panic!("{text}"));
        assert_eq!(
            line,
            "Coalesce:               up to 1000 µs a wake-up; latency as the kernel received"
        );
        assert!(line.chars().count() <= 80, "{line}");
        assert!(!text.contains("Coalesced:"), "{text}");
    }

    /// Issue 32: nothing in the summary said whether `--coalesce` paused, or held the
    /// load back; it now says what its pauses did, in 80 columns.
    #[test]
    fn summary_says_what_coalescing_did_within_80_columns() {
        let mut step = detailed_step();
        let mut r = run(vec![step.clone()]);
        r.settings.coalesce_us = Some(500);
        let said = |r: &RunResult, step: &StepResult| {
            let text = run_summary(r, step);
            let line = text
                .lines()
                .find(|l| l.starts_with("Coalesced:"))
                .map(str::to_string);
            if let Some(l) = &line {
                assert!(l.chars().count() <= 80, "{l}");
            }
            line
        };
        step.coalesce = Some(CoalesceUse {
            pauses: 0,
            slept_s: 0.0,
            passed: 1200,
        });
        assert_eq!(
            said(&r, &step).unwrap(),
            "Coalesced:              never paused: too few answers in flight to gather"
        );
        step.coalesce = Some(CoalesceUse {
            pauses: 41000,
            slept_s: 0.21,
            passed: 3,
        });
        r.steps = vec![step.clone()];
        let line = said(&r, &step).unwrap();
        assert!(
            line.starts_with("Coalesced:              41000 pauses, 210"),
            "{line}"
        );
    }

    /// A SQL run's summary said "Keep-alive: on", HTTP's flag: it says its
    /// connections as pgbench does, one per client or (`-C`) a new one per
    /// transaction; a store's alike; HTTP's keep-alive unchanged.
    #[test]
    fn a_sql_summary_says_its_connections_not_keep_alive() {
        let step = detailed_step();
        let mut r = run(vec![step.clone()]);
        let line = |r: &RunResult| {
            let text = run_summary(r, &step);
            let l = text.lines().nth(1).unwrap_or_default().to_string();
            assert!(l.chars().count() <= 80, "{l}");
            l
        };
        r.targets = vec!["postgres://127.0.0.1:5432/bench".into()];
        assert_eq!(line(&r), "Connection:             one per client");
        r.settings.keep_alive = false;
        assert_eq!(
            line(&r),
            "Connection:             a new one per transaction"
        );
        r.targets = vec!["redis://127.0.0.1:6379".into()];
        assert_eq!(line(&r), "Connection:             a new one per command");
        r.targets = vec!["http://127.0.0.1:8080/".into()];
        assert_eq!(line(&r), "Keep-alive:             off");
    }

    /// `settings.pipeline` was recorded but no report said it: a store's figures at
    /// pipeline 16 read as if one command were in flight.
    #[test]
    fn summary_says_the_pipeline_depth_when_asked() {
        let step = detailed_step();
        let mut r = run(vec![step.clone()]);
        r.settings.pipeline = Some(1);
        assert!(!run_summary(&r, &step).contains("Pipeline"));
        r.settings.pipeline = Some(16);
        let text = run_summary(&r, &step);
        assert!(
            text.contains("Pipeline:               16 commands in flight per connection\n"),
            "{text}"
        );
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
}
