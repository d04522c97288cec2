//! `hakaru pgbench`'s report: pgbench 15's layout line for line (so scripts that read
//! pgbench's output read ours), then what hakaru adds below a marked line
//! (percentiles from the histograms, errors by kind). A pure function of the figures
//! the run measured, gathered in [`PgbenchFigures`] by the command. Also `-P`'s
//! line and `-l --aggregate-interval`'s log, from the step's per-second timeline.

use std::fmt::Write as _;

use crate::result::StepResult;

/// How long the run was set to go: pgbench prints one or the other.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Length {
    /// `-T`: seconds.
    Duration(u64),
    /// `-t`: transactions per client.
    PerClient(u64),
}

/// One statement's row of `-r`.
#[derive(Debug, Clone, PartialEq)]
pub struct StatementRow {
    pub latency_ms: f64,
    pub failures: u64,
    pub text: String,
}

/// One script's section of a run of several (pgbench's `SQL script N: …`).
#[derive(Debug, Clone, PartialEq)]
pub struct ScriptSection {
    /// `<builtin: select only>` or the file's name.
    pub title: String,
    pub weight: u32,
    /// Its weight's share of all the weights, %.
    pub weight_pct: f64,
    pub processed: u64,
    pub failed: u64,
    /// `--failures-detailed`: its serialization failures and deadlocks.
    pub detailed: Option<(u64, u64)>,
    pub tps: f64,
    /// Its transactions' latency, mean and deviation (ms); none if none ended.
    pub latency_ms: Option<(f64, f64)>,
    /// `-r`: its statements' rows.
    pub statements: Option<Vec<StatementRow>>,
}

/// Everything pgbench's report prints, as the run measured it.
#[derive(Debug, Clone, PartialEq)]
pub struct PgbenchFigures {
    /// `<builtin: TPC-B (sort of)>`, a file's name, or `multiple scripts`.
    pub transaction_type: String,
    pub scale: u64,
    /// `simple`, `extended`, `prepared`.
    pub query_mode: String,
    pub clients: u64,
    pub threads: u64,
    /// `--max-tries`; 0 is unlimited, and pgbench prints no line for it.
    pub max_tries: u32,
    pub length: Length,
    pub processed: u64,
    pub failed: u64,
    /// `-R --latency-limit`: the transactions skipped, already too late to start.
    pub skipped: Option<u64>,
    /// `--latency-limit`: the limit and the transactions past it.
    pub latency_limit: Option<(f64, u64)>,
    pub latency_avg_ms: f64,
    pub latency_stddev_ms: f64,
    /// pgbench prints the stddev with `-R`, `-P` or `--latency-limit` only.
    pub show_stddev: bool,
    /// `-R`: the schedule lag's average and maximum.
    pub lag_ms: Option<(f64, f64)>,
    pub initial_connection_ms: f64,
    /// `-C`: the average connection time instead.
    pub reconnect: bool,
    pub tps: f64,
    /// `-r`, with one script (several: each section's).
    pub statements: Option<Vec<StatementRow>>,
    /// Several scripts: a section each, as pgbench prints them (none for one).
    pub scripts: Vec<ScriptSection>,
    /// `--failures-detailed`: the serialization failures and the deadlocks.
    pub detailed: Option<(u64, u64)>,
    /// `--max-tries` other than 1: transactions retried, and the retries in all.
    pub retries: Option<(u64, u64)>,
    /// hakaru's additions: (percentile, ms).
    pub percentiles: Vec<(f64, f64)>,
    /// hakaru's additions: (error kind, count, a sample's text).
    pub errors: Vec<(String, u64, String)>,
}

/// pgbench's report, then hakaru's lines.
pub fn pgbench_report(f: &PgbenchFigures) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "transaction type: {}", f.transaction_type);
    let _ = writeln!(o, "scaling factor: {}", f.scale);
    let _ = writeln!(o, "query mode: {}", f.query_mode);
    let _ = writeln!(o, "number of clients: {}", f.clients);
    let _ = writeln!(o, "number of threads: {}", f.threads);
    if f.max_tries != 0 {
        let _ = writeln!(o, "maximum number of tries: {}", f.max_tries);
    }
    match f.length {
        Length::PerClient(n) => {
            let _ = writeln!(o, "number of transactions per client: {n}");
            let _ = writeln!(
                o,
                "number of transactions actually processed: {}/{}",
                f.processed,
                n * f.clients
            );
        }
        Length::Duration(s) => {
            let _ = writeln!(o, "duration: {s} s");
            let _ = writeln!(
                o,
                "number of transactions actually processed: {}",
                f.processed
            );
        }
    }
    let total = (f.processed + f.failed).max(1) as f64;
    let _ = writeln!(
        o,
        "number of failed transactions: {} ({:.3}%)",
        f.failed,
        100.0 * f.failed as f64 / total
    );
    if let Some(d) = f.detailed {
        detailed_lines(&mut o, "", d, (f.processed + f.failed).max(1));
    }
    if let Some((retried, retries)) = f.retries {
        let all = (f.processed + f.failed).max(1) as f64;
        let _ = writeln!(
            o,
            "number of transactions retried: {retried} ({:.3}%)",
            100.0 * retried as f64 / all
        );
        let _ = writeln!(o, "total number of retries: {retries}");
    }
    if let Some(skipped) = f.skipped {
        let all = (f.processed + f.failed + skipped).max(1) as f64;
        let _ = writeln!(
            o,
            "number of transactions skipped: {skipped} ({:.3}%)",
            100.0 * skipped as f64 / all
        );
    }
    if let Some((limit, late)) = f.latency_limit {
        let _ = writeln!(
            o,
            "number of transactions above the {limit:.1} ms latency limit: {late}/{} ({:.3}%)",
            f.processed + f.failed,
            100.0 * late as f64 / total
        );
    }
    if f.show_stddev {
        let _ = writeln!(o, "latency average = {:.3} ms", f.latency_avg_ms);
        let _ = writeln!(o, "latency stddev = {:.3} ms", f.latency_stddev_ms);
    } else {
        let incl = if f.failed > 0 {
            " (including failures)"
        } else {
            ""
        };
        let _ = writeln!(o, "latency average = {:.3} ms{incl}", f.latency_avg_ms);
    }
    if let Some((avg, max)) = f.lag_ms {
        let _ = writeln!(o, "rate limit schedule lag: avg {avg:.3} (max {max:.3}) ms");
    }
    if f.reconnect {
        let _ = writeln!(
            o,
            "average connection time = {:.3} ms",
            f.initial_connection_ms
        );
        let _ = writeln!(o, "tps = {:.6} (including reconnection times)", f.tps);
    } else {
        let _ = writeln!(
            o,
            "initial connection time = {:.3} ms",
            f.initial_connection_ms
        );
        let _ = writeln!(o, "tps = {:.6} (without initial connection time)", f.tps);
    }
    if let Some(rows) = &f.statements {
        statement_lines(&mut o, "", rows);
    }
    for (n, s) in f.scripts.iter().enumerate() {
        script_section(&mut o, n + 1, s, f.processed);
    }
    hakaru_lines(&mut o, f);
    o
}

/// `--failures-detailed`'s two lines; `all` the transactions that ended.
fn detailed_lines(o: &mut String, prefix: &str, (ser, dead): (u64, u64), all: u64) {
    let pct = |n: u64| 100.0 * n as f64 / all as f64;
    let _ = writeln!(
        o,
        "{prefix}number of serialization failures: {ser} ({:.3}%)",
        pct(ser)
    );
    let _ = writeln!(
        o,
        "{prefix}number of deadlock failures: {dead} ({:.3}%)",
        pct(dead)
    );
}

/// `-r`'s rows, under pgbench's heading (`prefix`: ` - ` inside a script's section).
fn statement_lines(o: &mut String, prefix: &str, rows: &[StatementRow]) {
    let _ = writeln!(
        o,
        "{prefix}statement latencies in milliseconds and failures:"
    );
    for r in rows {
        let _ = writeln!(o, "   {:11.3}  {:10}  {}", r.latency_ms, r.failures, r.text);
    }
}

/// pgbench's section for script `n` of several; `all` the run's processed
/// transactions, the share's denominator.
fn script_section(o: &mut String, n: usize, s: &ScriptSection, all: u64) {
    let _ = writeln!(o, "SQL script {n}: {}", s.title);
    let _ = writeln!(
        o,
        " - weight: {} (targets {:.1}% of total)",
        s.weight, s.weight_pct
    );
    let _ = writeln!(
        o,
        " - {} transactions ({:.1}% of total, tps = {:.6})",
        s.processed,
        100.0 * s.processed as f64 / all as f64,
        s.tps
    );
    let ended = (s.processed + s.failed) as f64;
    let _ = writeln!(
        o,
        " - number of failed transactions: {} ({:.3}%)",
        s.failed,
        100.0 * s.failed as f64 / ended
    );
    if let Some(d) = s.detailed {
        detailed_lines(o, " - ", d, s.processed + s.failed);
    }
    if let Some((avg, sd)) = s.latency_ms {
        let _ = writeln!(o, " - latency average = {avg:.3} ms");
        let _ = writeln!(o, " - latency stddev = {sd:.3} ms");
    }
    if let Some(rows) = &s.statements {
        statement_lines(o, " - ", rows);
    }
}

/// Below pgbench's layout: what hakaru's histograms and error kinds add.
fn hakaru_lines(o: &mut String, f: &PgbenchFigures) {
    if f.percentiles.is_empty() && f.errors.is_empty() {
        return;
    }
    o.push_str("--- hakaru ---\n");
    if !f.percentiles.is_empty() {
        let cells: Vec<String> = f
            .percentiles
            .iter()
            .map(|(p, ms)| format!("p{p} {ms:.3}"))
            .collect();
        let _ = writeln!(o, "latency percentiles (ms): {}", cells.join(", "));
    }
    for (kind, n, sample) in &f.errors {
        // A sample is the server's sentence; cut so the line fits 80 columns.
        let head = format!("error {kind}: {n} ");
        let room = 80usize.saturating_sub(head.chars().count() + 2);
        let sample: String = if sample.chars().count() > room {
            sample
                .chars()
                .take(room.saturating_sub(1))
                .chain(['…'])
                .collect()
        } else {
            sample.clone()
        };
        let _ = writeln!(o, "{head}({sample})");
    }
}

/// pgbench's `-P` line: `progress: 5.0 s, 1234.5 tps, lat 3.210 ms stddev 0.456, 0 failed`
/// (with `-R`, the lag; with `--latency-limit`, the skipped).
pub fn progress_line(
    at_s: &str,
    tps: f64,
    lat_ms: f64,
    stddev_ms: f64,
    failed: u64,
    lag_ms: Option<f64>,
    skipped: Option<u64>,
) -> String {
    let mut o = format!("progress: {at_s} s, {tps:.1} tps, lat {lat_ms:.3} ms stddev {stddev_ms:.3}, {failed} failed");
    if let Some(lag) = lag_ms {
        let _ = write!(o, ", lag {lag:.3} ms");
    }
    if let Some(s) = skipped {
        let _ = write!(o, ", {s} skipped");
    }
    o
}

/// pgbench 15's aggregated log (`-l --aggregate-interval N`), one line per
/// interval of the step: its 15 fields, `interval_start num_transactions
/// sum_latency sum_latency_2 min_latency max_latency sum_lag sum_lag_2 min_lag
/// max_lag skipped retried retries serialization_failures deadlock_failures` (µs;
/// the start a Unix time; the failures counted with `detailed`, pgbench's
/// `--failures-detailed`, else 0 as pgbench writes them), every interval written, an empty one with zeros, the last one partial, as
/// pgbench writes them. From the step's timeline: the counts are exact; the
/// latencies come from each second's histogram (2 significant digits), so sums,
/// minimum and maximum are within 1%. After the first hour the timeline's entries
/// are 10 s wide; each then counts in the interval where it starts.
pub fn aggregate_log(step: &StepResult, interval_s: u64, detailed: bool) -> Result<String, String> {
    let interval_s = interval_s.max(1);
    let start = crate::timestamp::parse(&step.started_at)
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_secs());
    let n = (step.elapsed_s.ceil() as u64).div_ceil(interval_s).max(1);
    let mut rows = vec![Interval::default(); n as usize];
    for e in step.timeline.iter().flatten() {
        let i = ((e.second / interval_s) as usize).min(rows.len() - 1);
        rows[i].add(e)?;
    }
    let mut o = String::new();
    for (i, row) in rows.iter().enumerate() {
        row.line(&mut o, start + i as u64 * interval_s, detailed);
    }
    Ok(o)
}

/// One interval of the aggregated log: transactions, their latency's sum, sum of
/// squares, minimum and maximum (µs), and the failures pgbench names.
#[derive(Debug, Clone, Default)]
struct Interval {
    count: u64,
    sum: f64,
    sum2: f64,
    min: Option<f64>,
    max: f64,
    serialization: u64,
    deadlock: u64,
}

impl Interval {
    fn add(&mut self, e: &crate::result::timeline::SecondResult) -> Result<(), String> {
        use crate::stats::ErrorKind;
        self.serialization += e
            .errors
            .get(&ErrorKind::SqlSerializationFailure)
            .copied()
            .unwrap_or(0);
        self.deadlock += e.errors.get(&ErrorKind::SqlDeadlock).copied().unwrap_or(0);
        // A PostgreSQL answer has no status: every response is a transaction done.
        if e.responses == 0 {
            return Ok(());
        }
        let h = crate::result::decode_histogram(&e.histogram)?;
        for v in h.iter_recorded() {
            let us = h.median_equivalent(v.value_iterated_to()) as f64;
            let c = v.count_at_value();
            self.count += c;
            self.sum += us * c as f64;
            self.sum2 += us * us * c as f64;
        }
        self.min = Some(self.min.map_or(h.min() as f64, |m| m.min(h.min() as f64)));
        self.max = self.max.max(h.max() as f64);
        Ok(())
    }

    /// pgbench 15's line, its 15 fields always there: the lag's four and the
    /// skipped are 0 (no `-R` here), retried and retries 0 (no `--max-tries`), then
    /// the serialization and deadlock failures (0 unless `detailed`).
    fn line(&self, o: &mut String, at: u64, detailed: bool) {
        let (count, sum, sum2, max) = (self.count, self.sum, self.sum2, self.max);
        let min = self.min.unwrap_or(0.0);
        let (ser, dead) = match detailed {
            true => (self.serialization, self.deadlock),
            false => (0, 0),
        };
        let _ = writeln!(
            o,
            "{at} {count} {sum:.0} {sum2:.0} {min:.0} {max:.0} 0 0 0 0 0 0 0 {ser} {dead}"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn figures() -> PgbenchFigures {
        PgbenchFigures {
            transaction_type: "<builtin: TPC-B (sort of)>".into(),
            scale: 2,
            query_mode: "simple".into(),
            clients: 4,
            threads: 1,
            max_tries: 1,
            length: Length::PerClient(50),
            processed: 198,
            failed: 2,
            skipped: None,
            latency_limit: None,
            latency_avg_ms: 3.0121,
            latency_stddev_ms: 1.5,
            show_stddev: false,
            lag_ms: None,
            initial_connection_ms: 5.4321,
            reconnect: false,
            tps: 1234.5678901,
            retries: None,
            detailed: None,
            statements: Some(vec![
                StatementRow { latency_ms: 0.123, failures: 0, text: "BEGIN;".into() },
                StatementRow {
                    latency_ms: 1.5,
                    failures: 2,
                    text: "UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;".into(),
                },
            ]),
            scripts: vec![],
            percentiles: vec![(50.0, 2.9), (99.0, 8.25)],
            errors: vec![(
                "serialization_failure".into(),
                2,
                "could not serialize access due to concurrent update of the row in relation pgbench_accounts".into(),
            )],
        }
    }

    #[test]
    fn report_follows_pgbench_line_for_line() {
        let text = pgbench_report(&figures());
        let want = "\
transaction type: <builtin: TPC-B (sort of)>
scaling factor: 2
query mode: simple
number of clients: 4
number of threads: 1
maximum number of tries: 1
number of transactions per client: 50
number of transactions actually processed: 198/200
number of failed transactions: 2 (1.000%)
latency average = 3.012 ms (including failures)
initial connection time = 5.432 ms
tps = 1234.567890 (without initial connection time)
statement latencies in milliseconds and failures:
         0.123           0  BEGIN;
         1.500           2  UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;
--- hakaru ---
latency percentiles (ms): p50 2.900, p99 8.250
error serialization_failure: 2 (could not serialize access due to concurrent u…)
";
        assert_eq!(text, want);
        // hakaru's own lines fit 80 columns (pgbench's statement rows are its own).
        for l in text.lines().skip_while(|l| *l != "--- hakaru ---") {
            assert!(l.chars().count() <= 80, "{l}");
        }
    }

    #[test]
    fn rate_limit_and_duration_lines() {
        let f = PgbenchFigures {
            length: Length::Duration(10),
            show_stddev: true,
            lag_ms: Some((0.25, 4.0)),
            latency_limit: Some((50.0, 3)),
            skipped: Some(2),
            failed: 0,
            statements: None,
            retries: None,
            percentiles: vec![],
            errors: vec![],
            ..figures()
        };
        let text = pgbench_report(&f);
        assert!(text.contains("duration: 10 s\nnumber of transactions actually processed: 198\n"));
        assert!(text.contains(
            "number of transactions skipped: 2 (1.000%)\nnumber of transactions above the 50.0 ms latency limit: 3/198 (1.515%)\n"
        ));
        assert!(text.contains("latency average = 3.012 ms\nlatency stddev = 1.500 ms\nrate limit schedule lag: avg 0.250 (max 4.000) ms\n"));
        assert!(!text.contains("hakaru"));
    }

    /// Bug: a run of several scripts (`-b select-only@2 -b tpcb-like@1`) printed no
    /// `SQL script N:` sections, and `-r` listed every script's statements under one
    /// heading; pgbench 15 prints a section per script with its own statements.
    #[test]
    fn several_scripts_get_a_section_each_as_pgbench_prints_them() {
        let row = |ms: f64, text: &str| StatementRow {
            latency_ms: ms,
            failures: 0,
            text: text.into(),
        };
        let section = |title: &str, weight, pct, processed, tps, lat, text: &str| ScriptSection {
            title: title.into(),
            weight,
            weight_pct: pct,
            processed,
            failed: 0,
            detailed: None,
            tps,
            latency_ms: lat,
            statements: Some(vec![row(0.112, text)]),
        };
        let f = PgbenchFigures {
            transaction_type: "multiple scripts".into(),
            processed: 20,
            failed: 0,
            statements: None,
            scripts: vec![
                section(
                    "<builtin: select only>",
                    2,
                    66.66,
                    13,
                    2399.409376,
                    Some((0.112, 0.036)),
                    "SELECT 1;",
                ),
                section("b.sql", 1, 33.33, 7, 1291.989664, None, "SELECT 2;"),
            ],
            percentiles: vec![],
            errors: vec![],
            ..figures()
        };
        let text = pgbench_report(&f);
        let want = "\
tps = 1234.567890 (without initial connection time)
SQL script 1: <builtin: select only>
 - weight: 2 (targets 66.7% of total)
 - 13 transactions (65.0% of total, tps = 2399.409376)
 - number of failed transactions: 0 (0.000%)
 - latency average = 0.112 ms
 - latency stddev = 0.036 ms
 - statement latencies in milliseconds and failures:
         0.112           0  SELECT 1;
SQL script 2: b.sql
 - weight: 1 (targets 33.3% of total)
 - 7 transactions (35.0% of total, tps = 1291.989664)
 - number of failed transactions: 0 (0.000%)
 - statement latencies in milliseconds and failures:
         0.112           0  SELECT 2;
";
        assert!(text.ends_with(want), "{text}");
    }

    /// Bug: `--failures-detailed` was refused; pgbench 15 prints the serialization
    /// and deadlock failures apart (these lines as pgbench 15.18 prints them).
    #[test]
    fn failures_detailed_lines_follow_the_failed_line() {
        let f = PgbenchFigures {
            processed: 8140,
            failed: 762,
            detailed: Some((762, 0)),
            retries: Some((1678, 1678)),
            ..figures()
        };
        let text = pgbench_report(&f);
        assert!(
            text.contains(
                "number of failed transactions: 762 (8.560%)\n\
             number of serialization failures: 762 (8.560%)\n\
             number of deadlock failures: 0 (0.000%)\n\
             number of transactions retried: 1678 (18.850%)\n"
            ),
            "{text}"
        );
    }

    #[test]
    fn progress_reads_like_pgbench() {
        assert_eq!(
            progress_line("5.0", 1234.54, 3.2104, 0.456, 0, Some(0.1), Some(2)),
            "progress: 5.0 s, 1234.5 tps, lat 3.210 ms stddev 0.456, 0 failed, lag 0.100 ms, 2 skipped"
        );
    }
}
