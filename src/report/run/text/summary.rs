//! The ab/hey-style summary of `hakaru run`: the step's figures, connections, the
//! open model's lateness, ab's percentile table, client CPU and the server side.

use std::fmt::Write as _;

use hdrhistogram::Histogram;

use super::connection::{connection_fields, connections};
use super::failures::failures;
use super::{ms, server_side};
use crate::analysis::step as step_findings;
use crate::report::fmt::{fmt_latency, Work};
use crate::report::run::store::is_store;
use crate::result::{decode_histogram, LatencySummary, RunResult, StepResult};
use crate::stats::LATE_THRESHOLD;

/// Quantiles of ab's "served within a certain time" table, in percent.
const TABLE_PERCENTS: [f64; 10] = [50.0, 66.0, 75.0, 80.0, 90.0, 95.0, 98.0, 99.0, 99.9, 100.0];

/// Label column of [`run_summary`], wide enough for the longest label.
pub(super) fn field(out: &mut String, label: &str, value: impl std::fmt::Display) {
    // At least one space after the colon: a long label (`first sql_serialization_failure`)
    // ran into its value.
    let _ = writeln!(out, "{:<23} {value}", format!("{label}:"));
}

/// A field's second line, under its value: what hakaru says of a line worded as ab
/// words it ("Time per request"), kept off that line so both fit 80 columns.
pub(super) fn field_more(out: &mut String, more: &str) {
    let _ = writeln!(out, "{:<24}{more}", "");
}

pub(super) fn latency_brief(l: &LatencySummary) -> String {
    format!(
        "mean {}, p50 {}, p99 {}, max {}",
        fmt_latency(l.mean_s),
        fmt_latency(l.p50_s),
        fmt_latency(l.p99_s),
        fmt_latency(l.max_s)
    )
}

/// The ab/hey-style summary of one step of `hakaru run`. Measured figures come from
/// the step's histograms and counters; derived ones say how they were derived.
pub fn run_summary(run: &RunResult, step: &StepResult) -> String {
    let mut out = String::new();
    // A SQL run's transactions, a store's commands, HTTP's requests.
    let work = Work::of(&run.targets);
    let items = work.items();
    let open = step.rate.is_some();
    let elapsed = step.elapsed_s;

    match run.targets.as_slice() {
        [one] => field(&mut out, "Target", target_url(run).unwrap_or(one)),
        many => field(&mut out, "Targets", many.join(", ")),
    }
    connection_fields(&mut out, run, step);
    match (step.rate, &step.rate_profile) {
        (Some(rate), Some(profile)) => field(
            &mut out,
            "Model",
            format!("open (rate profile {profile} {items}/s, {rate:.1} on average)"),
        ),
        (Some(rate), None) => field(
            &mut out,
            "Model",
            format!("open ({rate:.1} {items}/s target rate)"),
        ),
        (None, _) => field(&mut out, "Model", "closed (clients send back to back)"),
    }
    field(&mut out, "Concurrency", step.n_clients);
    if let Some(n) = run.settings.n_requests {
        // `-n` counts a SQL run's transactions, as its lines below do.
        let asked = if work == Work::Transaction {
            "Transactions asked (-n)"
        } else {
            "Requests asked (-n)"
        };
        field(
            &mut out,
            asked,
            format!("{n} in all, shared by the clients"),
        );
    }
    field(&mut out, "Time taken", format!("{elapsed:.3} seconds"));
    if let Some(why) = &step.failure {
        field(
            &mut out,
            "Failed step",
            format!("{why} (figures are incomplete)"),
        );
    } else if step.partial {
        field(
            &mut out,
            "Cut short",
            "yes (interrupted; figures cover the measured part)",
        );
    }
    failures(&mut out, run, step);
    if step.retries > 0 {
        field(
            &mut out,
            "Retried (--max-tries)",
            format!(
                "{} transactions, {} retries in all",
                step.retried, step.retries
            ),
        );
    }
    if super::unfinished_matters(step) {
        field(
            &mut out,
            "Unfinished at end",
            format!(
                "{} (in flight when the step ended; neither success nor failure)",
                step.unfinished
            ),
        );
    }
    field(
        &mut out,
        "Total transferred",
        format!(
            "{} bytes received, {} bytes sent",
            step.bytes_received, step.bytes_sent
        ),
    );
    rates(&mut out, run, step, elapsed);
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
        open_model(&mut out, step, work);
    } else {
        pacer_lag(&mut out, step); // --wait
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
    let per_command = crate::report::run::store::text(run, step);
    if !per_command.is_empty() {
        out.push_str(&per_command);
        out.push('\n');
    }
    percent_table(&mut out, step, work);
    out.push('\n');

    client_side(&mut out, run, step);
    // When latency rose and failures began, from the step's per-second timeline.
    for said in crate::report::over_time::sentences(run) {
        let _ = writeln!(out, "{said}");
    }
    out.push_str(&server_side(run, step));
    out
}

/// ab's rate and time per request lines, in the run's words (operations and
/// commands for a store, transactions for a SQL database).
fn rates(out: &mut String, run: &RunResult, step: &StepResult, elapsed: f64) {
    let sql = crate::report::fmt::all_sql(&run.targets);
    let (rate, answers) = if is_store(run) {
        ("Operations per second", "replies")
    } else if sql {
        ("Transactions/s", "transactions")
    } else {
        ("Requests per second", "responses")
    };
    let (per, each) = if sql {
        ("Time per transaction", "transactions")
    } else if is_store(run) {
        ("Time per command", "commands")
    } else {
        ("Time per request", "requests")
    };
    field(
        out,
        rate,
        format!("{:.2} [#/sec] ({answers} / measured wall time)", step.qps),
    );
    let l = &step.latency;
    if l.count > 0 {
        field(
            out,
            per,
            format!("{:.3} [ms] (mean response time, measured)", ms(l.mean_s)),
        );
    }
    if step.responses > 0 {
        field(
            out,
            per,
            format!(
                "{:.3} [ms] (mean, across all concurrent {each})",
                ms(elapsed / step.responses as f64)
            ),
        );
        field_more(out, &format!("(time taken / complete {each}: derived)"));
    }
}

/// The one URL a run was given, path and query with it (secrets already redacted by
/// `spec`), when its requests all went to it; `None` for a patterns file, a commands
/// file or `--ratio`, where the target's scheme, host and port say all there is.
fn target_url(run: &RunResult) -> Option<&str> {
    let url = run.settings.patterns_source.as_str();
    let one = run.settings.n_patterns == 1 && run.targets.len() == 1;
    (one && url.contains("://") && !is_store(run)).then_some(url)
}

/// The client's own CPU, and whether it or a late start may have bent the figures.
fn client_side(out: &mut String, run: &RunResult, step: &StepResult) {
    let cores = run.machine.cpus.max(1);
    field(
        out,
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
    if let Some(late) = step
        .start_late_s
        .filter(|l| *l > crate::analysis::START_LATE_LIMIT_S)
    {
        let _ = writeln!(
            out,
            "Warning: the step started {late:.3} s after its --start-at moment"
        );
    }
}

fn open_model(out: &mut String, step: &StepResult, work: Work) {
    match (step.rate, &step.profile) {
        // A profile is told by its segments: its mean hides a spike (issue 35).
        (Some(rate), Some(p)) => super::profile::profile_fields(out, p, (rate, step.qps), work),
        (Some(rate), None) => field(
            out,
            "Target rate",
            format!(
                "{rate:.1} {}/s (achieved {:.1} {}/s)",
                work.items(),
                step.qps,
                work.answers()
            ),
        ),
        (None, _) => {}
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
    // Every connection was busy when these were due: the load asked for was not sent.
    if step.dropped * 100 > step.total_requests + step.dropped {
        let _ = writeln!(
            out,
            "Warning: {} of the {} due were never sent (every one of the {} connections \
             was busy): raise -c, or the rate measured is not the rate asked for",
            step.dropped,
            work.items(),
            step.n_clients
        );
    }
    if step.latency.count > 0 {
        field(
            out,
            "Response time",
            format!(
                "{} (from each {}'s intended start)",
                latency_brief(&step.latency),
                work.item()
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
    pacer_lag(out, step);
}

/// How exact the pacing was: due time (or end of `--wait`) to the actual send.
fn pacer_lag(out: &mut String, step: &StepResult) {
    if let Some(lag) = step.pacer_lag.as_ref().filter(|l| l.count > 0) {
        field(
            out,
            "Pacer lag",
            format!("{} (intended send time to actual send)", latency_brief(lag)),
        );
    }
}

/// ab's table, from the decoded histogram; the open model adds service time beside.
fn percent_table(out: &mut String, step: &StepResult, work: Work) {
    let _ = writeln!(
        out,
        "Percentage of the {} served within a certain time (ms)",
        work.items()
    );
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
            let _ = write!(out, " (longest {})", work.item());
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
pub(super) fn at_percent(h: &Histogram<u64>, pct: f64) -> f64 {
    let us = if pct >= 100.0 {
        h.max()
    } else {
        h.value_at_quantile(pct / 100.0)
    };
    us as f64 / 1e3
}

#[cfg(test)]
mod tests {
    use super::super::tests::detailed_step;
    use super::*;
    use crate::report::run::store::STORE_VALUE;
    use crate::result::encode_histogram;
    use crate::result::fixture::{bare_step, run};
    use crate::stats::{new_histogram, ErrorKind};

    /// The bug: a label past the column ran into its value: `first
    /// sql_serialization_failure:SQLSTATE 40001: …`.
    #[test]
    fn a_long_field_label_keeps_a_space_before_its_value() {
        let mut out = String::new();
        field(
            &mut out,
            "  first sql_serialization_failure",
            "SQLSTATE 40001: x",
        );
        field(&mut out, "Target", "postgres://h:5432");
        assert_eq!(
            out,
            "  first sql_serialization_failure: SQLSTATE 40001: x\n\
             Target:                 postgres://h:5432\n"
        );
    }

    /// ab's "(mean, across all concurrent requests)" line ran to 114 columns with
    /// hakaru's "time taken / complete requests, derived" after it: ab's words stay on
    /// the line as ab prints them, the note goes under them, both within 80 columns
    /// at a slow run's widest figure.
    #[test]
    fn the_across_all_concurrent_requests_line_fits_80_columns() {
        let mut step = detailed_step();
        step.responses = 1;
        step.elapsed_s = 86_400.0;
        let r = run(vec![step.clone()]);
        let text = run_summary(&r, &step);
        let at = text
            .lines()
            .position(|l| l.ends_with("[ms] (mean, across all concurrent requests)"))
            .unwrap_or_else(|| panic!("{text}"));
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[at].starts_with("Time per request:       86400000.000 [ms]"));
        assert_eq!(
            lines[at + 1],
            "                        (time taken / complete requests: derived)"
        );
        for l in &lines[at..=at + 1] {
            assert!(l.chars().count() <= 80, "over 80 columns: {l:?}");
        }
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
        // None unfinished: not a word about them.
        assert!(!text.contains("Unfinished"), "{text}");
        has("Total transferred:      102400 bytes received, 5000 bytes sent");
        has("Requests per second:    99.00 [#/sec] (responses / measured wall time)");
        has("Time per request:       10.101 [ms] (mean, across all concurrent requests)");
        has("                        (time taken / complete requests: derived)");
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
        // 2 of 99 answers a 503: over 1%, said plainly (and no other warning).
        has("Warning: 2 of 99 responses (2.02%) were not a success (success: status 200-399; --ok-status to change)");
        assert_eq!(text.matches("Warning").count(), 1, "{text}");
        assert!(!text.contains("Target rate"));
    }

    /// A SQL run's summary said "Connections: 2 opened (0.00 per request)" and
    /// "Percentage of the requests served": its whole text, in a SQL user's words,
    /// at 80 columns (the open model's lines by a second snapshot's `Model` line).
    #[test]
    fn a_sql_run_s_summary_snapshot_counts_connections_per_transaction() {
        let mut step = detailed_step();
        step.responses = 1000;
        step.total_requests = 1003;
        step.statuses = [(STORE_VALUE, 1000)].into_iter().collect();
        step.errors = [(ErrorKind::SqlDeadlock, 3)].into_iter().collect();
        step.error_samples = [(
            ErrorKind::SqlDeadlock,
            "40P01: deadlock detected".to_string(),
        )]
        .into_iter()
        .collect();
        step.connections_opened = 2;
        step.elapsed_s = 2.0;
        step.qps = 500.0;
        let mut r = run(vec![step.clone()]);
        r.targets = vec!["postgres://127.0.0.1:5432".to_string()];
        let text = run_summary(&r, &step);
        for line in text.lines() {
            assert!(line.chars().count() <= 80, "over 80 columns: {line:?}");
        }
        for word in ["request", "HTTP", "keep-alive did not"] {
            assert!(!text.contains(word), "{word} in\n{text}");
        }
        super::super::tests::snapshot("sql-summary.txt", &text);
        step.rate = Some(400.0);
        let text = run_summary(&r, &step);
        assert!(
            text.contains("Model:                  open (400.0 transactions/s target rate)\n")
                && text.contains("400.0 transactions/s (achieved 500.0 transactions/s)"),
            "{text}"
        );
        // `-n` counts transactions: it said "Requests asked (-n)".
        r.settings.n_requests = Some(1003);
        let text = run_summary(&r, &step);
        assert!(
            text.contains("Transactions asked (-n): 1003 in all, shared by the clients\n"),
            "{text}"
        );
        assert!(!text.contains("request"), "{text}");
    }

    /// Issue 35: `Target:` showed `http://h:p` for a run of `http://h:p/search?q=`:
    /// the one URL a run was given is shown whole (as `spec` redacted it); a patterns
    /// file's run keeps the host alone.
    #[test]
    fn the_target_line_keeps_the_path() {
        let step = detailed_step();
        let mut r = run(vec![step.clone()]);
        r.settings.n_patterns = 1;
        r.settings.patterns_source = "http://127.0.0.1:10041/search?q=&token=<redacted>".into();
        let text = run_summary(&r, &step);
        assert!(
            text.contains(
                "Target:                 http://127.0.0.1:10041/search?q=&token=<redacted>\n"
            ),
            "{text}"
        );
        r.settings.patterns_source = "patterns.txt".into();
        let text = run_summary(&r, &step);
        assert!(
            text.contains("Target:                 http://127.0.0.1:10041\n"),
            "{text}"
        );
    }

    #[test]
    fn summary_counts_sql_retries_only_when_there_were_some() {
        let mut step = detailed_step();
        let text = run_summary(&run(vec![step.clone()]), &step);
        assert!(!text.contains("Retried"), "{text}");
        (step.retried, step.retries) = (37, 140);
        let text = run_summary(&run(vec![step.clone()]), &step);
        assert!(
            text.contains("Retried (--max-tries):  37 transactions, 140 retries in all\n"),
            "{text}"
        );
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
            text.contains("Service time:           mean 550 µs"),
            "{text}"
        );
        assert!(text.contains("          response    service\n"));
        assert!(text.contains("    50%      1.050      0.549\n"), "{text}");
    }

    #[test]
    fn summary_shows_the_pacer_lag_the_profile_and_a_failure() {
        let mut step = detailed_step();
        step.rate = Some(150.0);
        step.rate_profile = Some("100..200".into());
        let mut lag = new_histogram();
        for us in 10..30u64 {
            lag.record(us).unwrap();
        }
        step.pacer_lag = Some(LatencySummary::of(&lag));
        step.failure = Some("a worker failed: boom".into());
        let text = run_summary(&run(vec![step.clone()]), &step);
        assert!(text.contains(
            "Model:                  open (rate profile 100..200 requests/s, 150.0 on average)\n"
        ));
        assert!(
            text.contains("Pacer lag:              mean 19.5 µs, p50 19.0 µs"),
            "{text}"
        );
        assert!(text.contains("(intended send time to actual send)"));
        assert!(
            text.contains("Failed step:            a worker failed: boom (figures are incomplete)")
        );
        assert!(!text.contains("Cut short"));
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
