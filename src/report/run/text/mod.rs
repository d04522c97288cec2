//! What the terminal shows: one aligned row per finished ramp step, drnbench's
//! per-step report, and an ab/hey-style summary for `hakaru run`. Latencies carry a
//! unit chosen for their size (µs, ms, s) and three significant digits, counts read
//! as counts: no raw floats in what a person reads (the CSV keeps drnbench's floats).
//!
//! Each figure says where it comes from: measured (from the histograms and counters)
//! or derived (arithmetic on other figures), because tools that blur the two mislead
//! (ab's "time per request" is connections ÷ req/s, not a measurement).

use std::fmt::Write as _;

use super::store;
use crate::report::fmt::{fmt_latency, fmt_qps, fmt_share, Work};
use crate::result::{RequestList, RunResult, StepResult};
use crate::stats::RequestSample;

pub mod ab;
mod connection;
mod failures;
pub mod pgbench;
mod profile;
mod ramp_end;
mod server;
mod summary;
pub mod sysbench;
pub mod timeline;

pub use ramp_end::rounds_summary;
pub use server::server_side;
pub use summary::run_summary;

/// Unfinished requests are worth a word when they are over this share of the step's
/// requests: a closed-model step always ends with one per client in flight, which
/// changes nothing; a server that holds many requests past the end does.
pub const UNFINISHED_SHARE: f64 = 0.01;

/// True when a step's unfinished requests are worth showing ([`UNFINISHED_SHARE`]).
pub fn unfinished_matters(step: &StepResult) -> bool {
    step.unfinished > 0
        && step.unfinished as f64
            > UNFINISHED_SHARE * (step.total_requests + step.unfinished) as f64
}

/// Said once, under the first row that shows unfinished requests.
pub const UNFINISHED_NOTE: &str =
    "  (unfinished: requests in flight when the step's time ran out; \
     neither a success nor an error, and not in the figures)";

fn ms(seconds: f64) -> f64 {
    seconds * 1e3
}

/// One line per finished step, columns fixed-width so consecutive rows align:
/// `clients    8  requests    41230  qps     13743  mean  580 µs  p50  510 µs  …  errors 0`.
/// Open-model steps start with their target rate; a SQL run's count transactions
/// in tps, a store's commands in ops/s (`work`).
pub fn step_row(step: &StepResult, work: Work) -> String {
    let l = &step.latency;
    let mut row = String::new();
    if let Some(rate) = step.rate {
        let _ = write!(row, "rate {:>7}/s  ", fmt_qps(rate));
    }
    let _ = write!(
        row,
        "clients {:>4}  {} {:>8}  {} {:>7}  mean {:>7}  p50 {:>7}  \
         p99 {:>7}  max {:>7}  errors {}",
        step.n_clients,
        work.items(),
        step.total_requests,
        work.rate(),
        fmt_qps(step.qps),
        fmt_latency(l.mean_s),
        fmt_latency(l.p50_s),
        fmt_latency(l.p99_s),
        fmt_latency(l.max_s),
        step.error_total(),
    );
    // "errors" are requests without a response; a server answering 503 to
    // everything must not read as "errors 0" and nothing else.
    let failed_status: u64 = step
        .statuses
        .iter()
        .filter(|(c, _)| **c >= 400)
        .map(|(_, n)| n)
        .sum();
    if failed_status > 0 {
        let _ = write!(row, "  4xx/5xx {failed_status}");
    }
    if unfinished_matters(step) {
        let _ = write!(row, "  unfinished {}", step.unfinished);
    }
    if step.partial {
        row.push_str("  (partial)");
    }
    row
}

/// drnbench's per-step report: requests and qps, status shares, errors by kind,
/// elapsed min/max/average, then the `n_fast` fastest and `n_slow` slowest requests.
/// `run.requests` resolves [`RequestSample::request`] to method and URL (a sample's
/// own `sent`, when it has one: the key a store's command drew); a store's reply
/// numbers are said by name ([`store::status_name`]), never as `250`, and so is a
/// SQL transaction's (`ok`).
pub fn step_detail(run: &RunResult, step: &StepResult, n_slow: usize, n_fast: usize) -> String {
    let requests = &run.requests;
    let sql = crate::report::fmt::all_sql(&run.targets);
    let named = store::is_store(run) || sql;
    // A store's reply numbers by name: a read's hit, a write's done (by the
    // command, `None` where the figure mixes them); a SQL transaction's `ok`.
    let status = |code: u16, method: Option<&str>| {
        let reads = method.and_then(|m| store::reads(run, m));
        let name = if sql {
            crate::report::fmt::sql_status_name(code)
        } else {
            store::status_name(code, reads).filter(|_| named)
        };
        match name {
            Some(name) => name.to_string(),
            None => code.to_string(),
        }
    };
    // drnbench's words for HTTP; a SQL run's transactions, a store's commands.
    let work = Work::of(&run.targets);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Total {}: {} ({} {})",
        work.items(),
        step.total_requests,
        fmt_qps(step.qps),
        work.per_second()
    );
    out.push_str("Status:\n");
    // drnbench lists the most frequent status first.
    let mut shares: Vec<(u16, f64)> = step.status_percentages().into_iter().collect();
    shares.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    for (code, pct) in shares {
        let _ = writeln!(out, "  {}: {}", status(code, None), fmt_share(pct));
    }
    if !step.errors.is_empty() {
        out.push_str(if named {
            "Errors:\n"
        } else {
            "Errors (status 0):\n"
        });
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
    if unfinished_matters(step) {
        let _ = writeln!(out, "Unfinished at end: {}", step.unfinished);
    }
    out.push_str("Elapsed time:\n");
    let l = &step.latency;
    if l.count == 0 {
        let _ = writeln!(out, "  (no {})", work.answers());
    } else {
        let _ = writeln!(out, "  min:     {}", fmt_latency(l.min_s));
        let _ = writeln!(out, "  max:     {}", fmt_latency(l.max_s));
        let _ = writeln!(out, "  average: {}", fmt_latency(l.mean_s));
    }
    out.push_str(&crate::report::labels::text_with(
        step,
        &run.settings.sql_statements,
    ));
    for (what, samples, n) in [
        ("fast", &step.fastest, n_fast),
        ("slow", &step.slowest, n_slow),
    ] {
        if n == 0 {
            continue;
        }
        let _ = writeln!(out, "Top {n} {what} {}:", work.items());
        // A SQL run's line is `SQL ok <client 0>#3 tx.sql`: its outcome and script.
        out.push_str(if work == Work::Transaction {
            " [time: SQL outcome <client>#index script]\n"
        } else {
            " [time: method status <client>#index url]\n"
        });
        for s in samples.iter().take(n) {
            let _ = writeln!(out, "  {}", request_line(s, requests, &status));
        }
    }
    out
}

/// `1.23 ms: GET 200 <client 3>#17 http://host:port/path`; a store's
/// `1.23 ms: GET hit/done <client 3>#17 GET key:4711`.
fn request_line(
    s: &RequestSample,
    requests: &RequestList,
    name: &dyn Fn(u16, Option<&str>) -> String,
) -> String {
    let (method, url) = match requests.get(s.request) {
        Some(r) => (
            r.method.as_str(),
            s.sent.clone().unwrap_or_else(|| r.url.clone()),
        ),
        None => ("?", format!("<request {}>", s.request)),
    };
    let status = match name(s.status, Some(method)) {
        code if code == "0" => "0(error)".to_string(),
        said => said,
    };
    format!(
        "{:>7}: {method} {status} <client {}>#{} {url}",
        fmt_latency(s.elapsed_s),
        s.client,
        s.index
    )
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::result::fixture::{bare_step, recorded_step, run};
    use crate::result::LatencySummary;
    use crate::stats::ErrorKind;

    /// Compares `text` with the committed `tests/fixtures/NAME`; `HAKARU_BLESS=1`
    /// rewrites the file.
    pub(crate) fn snapshot(name: &str, text: &str) {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures")
            .join(name);
        if std::env::var_os("HAKARU_BLESS").is_some() {
            std::fs::write(&path, text).unwrap();
        }
        let want = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{}: {e} (HAKARU_BLESS=1 writes it)", path.display()));
        assert_eq!(text, want, "{name} differs (HAKARU_BLESS=1 to accept)");
    }

    fn row_step(clients: usize, requests: u64, qps: f64, lat: [f64; 4]) -> StepResult {
        let mut s = bare_step(clients);
        s.total_requests = requests;
        s.qps = qps;
        s.latency = LatencySummary {
            count: requests,
            mean_s: lat[0],
            p50_s: lat[1],
            p99_s: lat[2],
            max_s: lat[3],
            ..LatencySummary::default()
        };
        s
    }

    #[test]
    fn step_rows_snapshot() {
        let mut rows = vec![
            row_step(
                1,
                8806,
                8806.46301483591,
                [1.3e-05, 0.000012, 0.000051, 0.000402],
            ),
            row_step(8, 41230, 13743.2, [0.00058, 0.00051, 0.0019, 0.0124]),
            row_step(64, 151, 5.03, [0.98, 0.5, 3.2, 12.5]),
            row_step(128, 1234567, 41152.3, [0.0151, 0.0123, 0.1987, 1.0]),
        ];
        rows[3].errors.insert(ErrorKind::Reset, 3);
        // 5 in flight of 1.2 million: not worth a word; 64 of 215 is.
        rows[3].unfinished = 5;
        rows[2].unfinished = 64;
        rows[3].statuses.insert(200, 1_234_000);
        rows[3].statuses.insert(503, 564);
        rows[3].partial = true;
        let mut open = row_step(4, 30000, 999.96, [0.00123, 0.0011, 0.0042, 0.009]);
        open.rate = Some(1000.0);
        rows.push(open);
        let text: String = rows
            .iter()
            .map(|r| step_row(r, Work::Request) + "\n")
            .collect();
        snapshot("step-rows.txt", &text);
        // Columns line up: each label starts at the same character in every closed row.
        let lines: Vec<Vec<char>> = text.lines().map(|l| l.chars().collect()).collect();
        for label in ["requests", "qps", "mean", "p50", "p99", "max", "errors"] {
            let at = |l: &Vec<char>| {
                let s: String = l.iter().collect();
                s.find(label).map(|b| s[..b].chars().count())
            };
            let first = at(&lines[0]);
            for l in &lines[1..4] {
                assert_eq!(at(l), first, "{label}\n{text}");
            }
        }
        assert!(!text.contains("8806.46") && !text.contains("e-0"), "{text}");
        assert!(!text.contains("1 clients"));
    }

    /// A SQL ramp's rows said "requests … qps" above its end's "tps" chart: they
    /// count transactions in tps, a store's commands in ops/s.
    #[test]
    fn a_sql_step_row_counts_transactions_in_tps() {
        let s = row_step(2, 31702, 31682.0, [5.75e-5, 4.6e-5, 1.77e-4, 4.68e-3]);
        assert_eq!(
            step_row(&s, Work::Transaction),
            "clients    2  transactions    31702  tps   31682  mean 57.5 µs  p50 46.0 µs  \
             p99  177 µs  max 4.68 ms  errors 0"
        );
        assert!(step_row(&s, Work::Command).contains("  commands    31702  ops/s   31682  "));
    }

    #[test]
    fn step_row_leads_with_rate_in_open_model() {
        let mut s = bare_step(4);
        s.rate = Some(1000.0);
        assert!(
            step_row(&s, Work::Request).starts_with("rate    1000/s  clients    4"),
            "{}",
            step_row(&s, Work::Request)
        );
    }

    pub(super) fn detailed_step() -> StepResult {
        let mut ok: Vec<(u16, u64)> = (1..=97).map(|i| (200, 1000 + i)).collect();
        ok.push((503, 1500));
        ok.push((503, 1600));
        recorded_step(2, 1.0, &ok, &[(ErrorKind::Timeout, 3_000_000)])
    }

    #[test]
    fn step_detail_follows_drnbench_in_readable_units() {
        let r = run(vec![detailed_step()]);
        let text = step_detail(&r, &r.steps[0], 2, 1);
        snapshot("step-detail.txt", &text);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "Total requests: 100 (99.0 queries per second)");
        assert_eq!(lines[1], "Status:");
        assert_eq!(lines[2], "  200: 97.0%");
        assert_eq!(lines[3], "  503: 2.00%");
        assert_eq!(lines[4], "  0: 1.00%");
        assert!(
            text.contains("Errors (status 0):\n  timeout: 1\n"),
            "{text}"
        );
        assert!(text.contains("  min:     1.00 ms\n"), "{text}");
        assert!(text.contains("  max:     1.60 ms\n"), "{text}");
        // Request 99 (0-based) is the timeout: odd → the select URL, client 1, #49.
        assert!(text.contains(
            "   3.00 s: GET 0(error) <client 1>#49 http://127.0.0.1:10041/d/select?table=Store\n"
        ), "{text}");
        assert!(
            !text.contains(" sec\n") && !text.contains(" sec:"),
            "{text}"
        );
    }

    /// A SQL run's `-v` lists headed its transactions `[time: method status
    /// <client>#index url]`, HTTP's words over `SQL ok <client 0>#3 tx.sql`.
    #[test]
    fn a_sql_run_s_slowest_are_headed_by_outcome_and_script() {
        let mut r = run(vec![detailed_step()]);
        r.targets = vec!["postgres://127.0.0.1:5432".into()];
        let text = step_detail(&r, &r.steps[0], 2, 1);
        assert!(
            text.contains(" [time: SQL outcome <client>#index script]\n"),
            "{text}"
        );
        assert!(!text.contains("method status"), "{text}");
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
            sent: None,
        });
        let mut r = run(vec![s.clone()]);
        r.requests = RequestList::default();
        let text = step_detail(&r, &s, 5, 0);
        assert!(text.contains("(no responses)"));
        assert!(
            text.contains(" 500 ms: ? 200 <client 0>#0 <request 99>"),
            "{text}"
        );
        assert!(!text.contains("fast requests"));
    }

    /// SQL runs' `-v` said their transactions' status as `250`, a store's number
    /// the engine counts them under: now `ok`, and errors without "status 0".
    #[test]
    fn verbose_names_a_sql_transaction_ok_never_250() {
        let step = recorded_step(
            2,
            1.0,
            &[(250, 900), (250, 1100)],
            &[(ErrorKind::SqlError, 500)],
        );
        let mut r = run(vec![step]);
        r.targets = vec!["postgres://bench@127.0.0.1:5432/bench".into()];
        r.requests = crate::result::RequestList::all(vec![crate::result::RequestInfo {
            id: None,
            method: "SQL".into(),
            url: "tx.sql".into(),
        }]);
        r.steps[0].slowest = vec![crate::stats::RequestSample {
            elapsed_s: 0.0123,
            request: 0,
            status: 250,
            client: 3,
            index: 17,
            sent: None,
        }];
        let t = step_detail(&r, &r.steps[0], 1, 0);
        assert!(t.contains("Status:\n  ok: "), "{t}");
        assert!(
            t.contains("  12.3 ms: SQL ok <client 3>#17 tx.sql\n"),
            "{t}"
        );
        assert!(!t.contains("250") && !t.contains("status 0"), "{t}");
        // …and counted its transactions as "Total requests … queries per second" and
        // "Top 1 slow requests".
        assert!(
            t.starts_with("Total transactions: 3 (2.0 transactions per second)\n"),
            "{t}"
        );
        assert!(
            t.contains("Top 1 slow transactions:") && !t.contains("request"),
            "{t}"
        );
        assert!(crate::report::fmt::all_sql(&["mariadb://h/db".into()]));
        assert!(!crate::report::fmt::all_sql(&["redis://h".into()]));
    }
}
