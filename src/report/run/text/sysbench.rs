//! `hakaru sysbench`'s report: sysbench 1.0's layout line for line ("SQL statistics",
//! "General statistics", "Latency (ms)", "Threads fairness", and `--histogram`'s
//! table), so what reads sysbench's output reads ours; then hakaru's lines below a
//! marked line (percentiles from the HDR histogram, errors by kind, what was in
//! flight at the end). A pure function of [`SysbenchFigures`], which the command
//! gathers from the step's result.

use std::fmt::Write as _;

/// Everything the report prints, as the run measured it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SysbenchFigures {
    pub threads: u64,
    /// `--rate`, when given.
    pub rate: Option<f64>,
    /// `--report-interval`, seconds, when given.
    pub report_interval_s: Option<u64>,
    /// `--rand-seed`, when given (else the clock's, as sysbench says).
    pub seed: Option<u64>,
    pub reads: u64,
    pub writes: u64,
    pub other: u64,
    /// Events that ended well.
    pub transactions: u64,
    /// Failures of an error sysbench ignores, each restarting its event (MySQL's
    /// `--mysql-ignore-errors`, PostgreSQL's deadlock, unique violation and
    /// serialization failure).
    pub ignored_errors: u64,
    pub reconnects: u64,
    pub elapsed_s: f64,
    pub latency_min_ms: f64,
    pub latency_avg_ms: f64,
    pub latency_max_ms: f64,
    /// `--percentile` and its value (None: `--percentile=0`).
    pub percentile: Option<(u32, f64)>,
    pub latency_sum_ms: f64,
    /// Per thread: events, and their time in seconds.
    pub per_thread: Vec<(u64, f64)>,
    /// `--histogram`: (ms, count) rows.
    pub histogram: Option<Vec<(f64, u64)>>,
    /// hakaru's additions: (percentile, ms).
    pub percentiles: Vec<(f64, f64)>,
    /// hakaru's additions: (error kind, count, a sample's text).
    pub errors: Vec<(String, u64, String)>,
    pub unfinished: u64,
}

/// What sysbench prints as a run starts.
pub fn sysbench_header(f: &SysbenchFigures) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "sysbench 1.0.20 (hakaru {})\n",
        env!("CARGO_PKG_VERSION")
    );
    o.push_str("Running the test with following options:\n");
    let _ = writeln!(o, "Number of threads: {}", f.threads);
    if let Some(r) = f.rate {
        let _ = writeln!(o, "Target transaction rate: {r}/sec");
    }
    if let Some(s) = f.report_interval_s {
        let _ = writeln!(o, "Report intermediate results every {s} second(s)");
    }
    match f.seed {
        Some(s) => {
            let _ = writeln!(o, "Initializing random number generator from seed ({s}).");
        }
        None => o.push_str("Initializing random number generator from current time\n"),
    }
    o.push_str("\n\nInitializing worker threads...\n\nThreads started!\n\n");
    o
}

/// sysbench's report, then hakaru's lines.
pub fn sysbench_report(f: &SysbenchFigures) -> String {
    let mut o = String::new();
    let secs = f.elapsed_s.max(f64::MIN_POSITIVE);
    let queries = f.reads + f.writes + f.other;
    if let Some(rows) = &f.histogram {
        histogram(&mut o, rows);
    }
    o.push_str("SQL statistics:\n    queries performed:\n");
    for (name, n) in [
        ("read", f.reads),
        ("write", f.writes),
        ("other", f.other),
        ("total", queries),
    ] {
        let _ = writeln!(o, "        {:<33}{n}", format!("{name}:"));
    }
    for (name, n) in [
        ("transactions", f.transactions),
        ("queries", queries),
        ("ignored errors", f.ignored_errors),
        ("reconnects", f.reconnects),
    ] {
        let _ = writeln!(
            o,
            "    {:<37}{n:<6} ({:.2} per sec.)",
            format!("{name}:"),
            n as f64 / secs
        );
    }
    o.push_str("\nGeneral statistics:\n");
    let _ = writeln!(
        o,
        "    total time:                          {:.4}s",
        f.elapsed_s
    );
    let _ = writeln!(
        o,
        "    total number of events:              {}",
        f.transactions
    );
    o.push_str("\nLatency (ms):\n");
    let _ = writeln!(o, "         min: {:>39.2}", f.latency_min_ms);
    let _ = writeln!(o, "         avg: {:>39.2}", f.latency_avg_ms);
    let _ = writeln!(o, "         max: {:>39.2}", f.latency_max_ms);
    match f.percentile {
        Some((p, ms)) => {
            let _ = writeln!(o, "        {p:>3}th percentile: {ms:>27.2}");
        }
        None => o.push_str("         percentile stats:               disabled\n"),
    }
    let _ = writeln!(o, "         sum: {:>39.2}", f.latency_sum_ms);
    o.push('\n');
    fairness(&mut o, f);
    hakaru_lines(&mut o, f);
    o
}

/// "Threads fairness": the spread of events and of their time over the threads.
fn fairness(o: &mut String, f: &SysbenchFigures) {
    let n = f.per_thread.len().max(1) as f64;
    let events_avg = f.per_thread.iter().map(|t| t.0 as f64).sum::<f64>() / n;
    let time_avg = f.latency_sum_ms / 1e3 / n;
    let sd = |v: &mut dyn Iterator<Item = f64>, avg: f64| {
        (v.map(|x| (x - avg).powi(2)).sum::<f64>() / n).sqrt()
    };
    let events_sd = sd(&mut f.per_thread.iter().map(|t| t.0 as f64), events_avg);
    let time_sd = sd(&mut f.per_thread.iter().map(|t| t.1), time_avg);
    o.push_str("Threads fairness:\n");
    let _ = writeln!(
        o,
        "    events (avg/stddev):           {events_avg:.4}/{events_sd:3.2}"
    );
    let _ = writeln!(
        o,
        "    execution time (avg/stddev):   {time_avg:.4}/{time_sd:3.2}"
    );
    o.push('\n');
}

/// `--histogram`'s table, as sysbench draws it: 40 columns for the fullest row, the
/// others rounded to the nearest column (a row of a few counts gets none).
fn histogram(o: &mut String, rows: &[(f64, u64)]) {
    let most = rows.iter().map(|r| r.1).max().unwrap_or(0).max(1);
    o.push_str("Latency histogram (values are in milliseconds)\n");
    o.push_str("       value  ------------- distribution ------------- count\n");
    for (ms, n) in rows {
        let stars = ((*n as f64 / most as f64) * 40.0).round() as usize;
        let _ = writeln!(o, "{ms:>12.3} |{:<40} {n}", "*".repeat(stars.min(40)));
    }
    o.push('\n');
}

/// One `--report-interval` line's figures: per second over the interval.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct IntervalFigures {
    /// Seconds since the run began, at the interval's end.
    pub at_s: f64,
    pub threads: u64,
    pub tps: f64,
    /// Queries per second by class: read, write, other.
    pub rwo: [f64; 3],
    pub percentile: u32,
    pub latency_ms: f64,
    pub errors_per_s: f64,
    pub reconnects_per_s: f64,
}

/// sysbench's per-interval line:
/// `[ 2s ] thds: 4 tps: 100.00 qps: 2000.00 (r/w/o: …) lat (ms,95%): 5.47 err/s: 0.00 reconn/s: 0.00`.
pub fn interval_line(f: &IntervalFigures) -> String {
    let [r, w, o] = f.rwo;
    format!(
        "[ {:.0}s ] thds: {} tps: {:4.2} qps: {:4.2} (r/w/o: {r:4.2}/{w:4.2}/{o:4.2}) lat (ms,{}%): {:4.2} err/s: {:4.2} reconn/s: {:4.2}\n",
        f.at_s,
        f.threads,
        f.tps,
        r + w + o,
        f.percentile,
        f.latency_ms,
        f.errors_per_s,
        f.reconnects_per_s
    )
}

/// Below sysbench's layout: what hakaru's histograms and error kinds add.
fn hakaru_lines(o: &mut String, f: &SysbenchFigures) {
    if f.percentiles.is_empty() && f.errors.is_empty() && f.unfinished == 0 {
        return;
    }
    o.push_str("--- hakaru ---\n");
    if !f.percentiles.is_empty() {
        let cells: Vec<String> = f
            .percentiles
            .iter()
            .map(|(p, ms)| format!("p{p} {ms:.2}"))
            .collect();
        let _ = writeln!(o, "latency (ms, HDR histogram): {}", cells.join("  "));
    }
    for (kind, n, sample) in &f.errors {
        let mut line = format!("errors: {n} {kind}: {sample}");
        if line.chars().count() > 80 {
            line = line.chars().take(77).collect::<String>() + "...";
        }
        let _ = writeln!(o, "{line}");
    }
    if f.unfinished > 0 {
        let _ = writeln!(
            o,
            "in flight at the end: {} (neither transactions nor errors)",
            f.unfinished
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn figures() -> SysbenchFigures {
        SysbenchFigures {
            threads: 2,
            rate: None,
            report_interval_s: None,
            seed: Some(7),
            reads: 14_000,
            writes: 4_000,
            other: 2_000,
            transactions: 1_000,
            ignored_errors: 3,
            reconnects: 0,
            elapsed_s: 2.5,
            latency_min_ms: 1.234,
            latency_avg_ms: 4.5,
            latency_max_ms: 30.0,
            percentile: Some((95, 9.39)),
            latency_sum_ms: 4_500.0,
            per_thread: vec![(510, 2.3), (490, 2.2)],
            histogram: None,
            percentiles: vec![(50.0, 4.1), (99.0, 20.2), (99.9, 28.0)],
            errors: vec![(
                "sql_unique_violation".into(),
                3,
                "SQLSTATE 23505: duplicate key value violates unique constraint \"sbtest1_pkey\""
                    .into(),
            )],
            unfinished: 2,
        }
    }

    #[test]
    fn report_follows_sysbench_line_for_line() {
        let text = sysbench_report(&figures());
        let want = "\
SQL statistics:
    queries performed:
        read:                            14000
        write:                           4000
        other:                           2000
        total:                           20000
    transactions:                        1000   (400.00 per sec.)
    queries:                             20000  (8000.00 per sec.)
    ignored errors:                      3      (1.20 per sec.)
    reconnects:                          0      (0.00 per sec.)

General statistics:
    total time:                          2.5000s
    total number of events:              1000

Latency (ms):
         min:                                    1.23
         avg:                                    4.50
         max:                                   30.00
         95th percentile:                        9.39
         sum:                                 4500.00

Threads fairness:
    events (avg/stddev):           500.0000/10.00
    execution time (avg/stddev):   2.2500/0.05

--- hakaru ---
latency (ms, HDR histogram): p50 4.10  p99 20.20  p99.9 28.00
errors: 3 sql_unique_violation: SQLSTATE 23505: duplicate key value violates ...
in flight at the end: 2 (neither transactions nor errors)
";
        assert_eq!(text, want);
        assert!(text.lines().all(|l| l.chars().count() <= 80));
    }

    #[test]
    fn an_interval_line_reads_like_sysbench() {
        let f = IntervalFigures {
            at_s: 2.0,
            threads: 4,
            tps: 100.0,
            rwo: [1400.0, 400.0, 200.0],
            percentile: 95,
            latency_ms: 5.4712,
            errors_per_s: 0.0,
            reconnects_per_s: 0.0,
        };
        assert_eq!(
            interval_line(&f),
            "[ 2s ] thds: 4 tps: 100.00 qps: 2000.00 (r/w/o: 1400.00/400.00/200.00) lat (ms,95%): 5.47 err/s: 0.00 reconn/s: 0.00\n"
        );
    }

    #[test]
    fn percentile_off_and_the_histogram_read_like_sysbench() {
        let f = SysbenchFigures {
            percentile: None,
            histogram: Some(vec![(1.0, 10), (2.5, 5)]),
            percentiles: Vec::new(),
            errors: Vec::new(),
            unfinished: 0,
            ..figures()
        };
        let text = sysbench_report(&f);
        assert!(text.contains("         percentile stats:               disabled\n"));
        assert!(text.starts_with(
            "Latency histogram (values are in milliseconds)\n       value  ------------- distribution ------------- count\n       1.000 |**************************************** 10\n       2.500 |********************                     5\n"
        ));
        assert!(!text.contains("hakaru"));
        let head = sysbench_header(&f);
        assert!(head
            .contains("Number of threads: 2\nInitializing random number generator from seed (7)."));
    }

    /// Bug: `--histogram` gave a row of 13 against the fullest's 1197 a star, where
    /// sysbench rounds it to none (and 20 to one).
    #[test]
    fn histogram_rows_round_their_stars_as_sysbench_does() {
        let f = SysbenchFigures {
            histogram: Some(vec![(0.061, 13), (0.062, 20), (0.084, 1197), (0.085, 1035)]),
            ..figures()
        };
        let text = sysbench_report(&f);
        let stars: Vec<usize> = text
            .lines()
            .skip(2)
            .take(4)
            .map(|l| l.matches('*').count())
            .collect();
        assert_eq!(stars, [0, 1, 40, 35], "{text}");
    }

    /// Bug: `--report-interval=N` left out sysbench's header line saying so.
    #[test]
    fn the_header_says_the_report_interval_as_sysbench_does() {
        let f = SysbenchFigures {
            rate: Some(200.0),
            report_interval_s: Some(1),
            seed: None,
            ..figures()
        };
        assert!(sysbench_header(&f).contains(
            "Number of threads: 2\nTarget transaction rate: 200/sec\nReport intermediate results every 1 second(s)\nInitializing random number generator from current time\n"
        ));
        assert!(!sysbench_header(&figures()).contains("Report intermediate"));
    }
}
