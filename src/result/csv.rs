//! The per-step CSV, column for column what drnbench writes, so spreadsheets and
//! scripts made for drnbench keep working; hakaru's own figures follow by name.
//!
//! drnbench (`lib/drnbench/request-response/progressive-runner.rb`) writes
//! `n_clients,total_n_requests,queries_per_second,min_elapsed_time,max_elapsed_time,
//! average_elapsed_time`, then one column per HTTP status seen in any step, each the
//! percentage of that step's requests (an integer `0` where the status did not occur).
//! A SQL run's and a key-value store's status columns are named, not numbered: `ok`
//! (a transaction whose every statement was answered), a store's `hit_or_done`,
//! `miss_or_not_done`, `cas_exists`, `cas_not_sent`, and `error` for either's
//! failures (their kinds follow in the `errors_<kind>` columns).
//! Floats are printed the way Ruby prints them (see [`float_repr`]).

use crate::result::{LatencySummary, RunResult, StepResult};
use crate::stats::ErrorKind;

/// Which columns [`to_csv`] writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CsvFormat {
    /// drnbench's columns, then the extra columns listed in [`FULL_EXTRA_COLUMNS`].
    #[default]
    Full,
    /// Exactly drnbench's columns, nothing more.
    Drnbench,
}

/// drnbench's fixed leading columns. Times are seconds.
pub const DRNBENCH_COLUMNS: [&str; 6] = [
    "n_clients",
    "total_n_requests",
    "queries_per_second",
    "min_elapsed_time",
    "max_elapsed_time",
    "average_elapsed_time",
];

/// The extra columns of [`CsvFormat::Full`], after the status columns, in this order.
/// A public contract: readers find them by name; add new ones at the end, never
/// rename or remove one.
///
/// | column | meaning |
/// |---|---|
/// | `p50_elapsed_time` … `p999_elapsed_time` | response-time percentiles, seconds |
/// | `stdev_elapsed_time` | standard deviation of the response time, seconds |
/// | `responses` | whole HTTP responses, any status |
/// | `errors_<kind>` | requests without a response, by kind (timeout, connect, tls, reset, malformed, io, client_limit, truncated, unsolicited) |
/// | `unfinished` | requests in flight when the step ended (neither success nor error) |
/// | `late`, `dropped` | open model: requests started late / never started |
/// | `bytes_received`, `bytes_sent` | bytes on the wire, headers included |
/// | `connections_opened` | TCP connections made |
/// | `mean_connect_time` | mean time to connect, seconds |
/// | `client_cpu_seconds`, `client_cpu_share` | hakaru's own CPU time, and its share (0..1) of all cores |
/// | `elapsed_seconds` | measured wall time of the step (the qps denominator) |
/// | `partial` | `true` when the step was cut short |
/// | `rate` | open model: target arrival rate, requests/s; empty in the closed model |
/// | `round` | which repetition of the run (`--rounds`), from 1 |
/// | `cache_hit_rate` | the step's cache hit rate reported by server probes, 0..1; empty without |
/// | `server_cpu_cores`, `server_rss_max_bytes` | the watched server process (`--probe-pid`); empty without |
/// | `errors_reply_<kind>` | a key-value store's error replies by kind (err, wrongtype, moved, oom, noauth, client_error, server_error) |
/// | `errors_go_away`, `errors_stream_reset`, `errors_protocol` | HTTP/2: GOAWAY, RST_STREAM, a protocol error |
/// | `errors_flow_control_stall` | HTTP/2: a request body still waiting for the server's window at the timeout |
/// | `errors_sql_<kind>` | SQL errors by kind: serialization_failure (PostgreSQL 40001), deadlock (40P01, MySQL 1213), unique_violation (23505, MySQL 1062), too_many_connections (53300, MySQL 1040), admin_shutdown (57P01, MySQL 1053), and error (any other; the SQLSTATE or MySQL code in the sample) |
/// | `errors_reply_unexpected` | a key-value store's well-formed reply of a type the command cannot get (a `GET` answered `+OK`) |
/// | `errors_sql_lock_wait_timeout` | MySQL error 1205: a row lock not granted within `innodb_lock_wait_timeout` |
/// | `errors_sql_cannot_connect_now` | PostgreSQL SQLSTATE 57P03: a login refused while the server starts up, recovers or shuts down |
/// | `before_s` | seconds the `--before-round`/`--before-step` commands took before the step; empty when none ran |
/// | `before_exit` | their exit status: the first failed one's (-1 when killed, by its time limit or a signal), else 0; empty when none ran |
///
/// Latency cells (including drnbench's min/max/average) are empty when the step has
/// no response to measure; `mean_connect_time` is empty when no connection was made.
pub const FULL_EXTRA_COLUMNS: [&str; 53] = [
    "p50_elapsed_time",
    "p90_elapsed_time",
    "p99_elapsed_time",
    "p999_elapsed_time",
    "stdev_elapsed_time",
    "responses",
    "errors_timeout",
    "errors_connect",
    "errors_tls",
    "errors_reset",
    "errors_malformed",
    "errors_io",
    "errors_client_limit",
    "errors_truncated",
    "errors_unsolicited",
    "unfinished",
    "late",
    "dropped",
    "bytes_received",
    "bytes_sent",
    "connections_opened",
    "mean_connect_time",
    "client_cpu_seconds",
    "client_cpu_share",
    "elapsed_seconds",
    "partial",
    "rate",
    "round",
    "cache_hit_rate",
    "server_cpu_cores",
    "server_rss_max_bytes",
    "errors_reply_err",
    "errors_reply_wrongtype",
    "errors_reply_moved",
    "errors_reply_oom",
    "errors_reply_noauth",
    "errors_reply_client_error",
    "errors_reply_server_error",
    "errors_go_away",
    "errors_stream_reset",
    "errors_protocol",
    "errors_flow_control_stall",
    "errors_sql_serialization_failure",
    "errors_sql_deadlock",
    "errors_sql_unique_violation",
    "errors_sql_too_many_connections",
    "errors_sql_admin_shutdown",
    "errors_sql_error",
    "errors_reply_unexpected",
    "errors_sql_lock_wait_timeout",
    "errors_sql_cannot_connect_now",
    "before_s",
    "before_exit",
];

/// The columns a bulk write (`hakaru bulk`) adds after [`FULL_EXTRA_COLUMNS`], in
/// [`CsvFormat::Full`] only and only for bulk runs; then one `item_errors_<kind>`
/// column per kind of per-document failure any step saw (`item_errors_conflict`…),
/// sorted by kind, each a count of documents (0 where the step saw none).
///
/// | column | meaning |
/// |---|---|
/// | `batch_size` | documents per request |
/// | `writers` | parallel writers (the same as `n_clients`) |
/// | `docs_acknowledged` | documents the server acknowledged |
/// | `docs_per_s` | acknowledged documents per second |
pub const BULK_COLUMNS: [&str; 4] = ["batch_size", "writers", "docs_acknowledged", "docs_per_s"];

/// Starts the name of a column counting one kind of per-document failure.
pub const ITEM_ERRORS_PREFIX: &str = "item_errors_";

/// The whole CSV of a run: a header and one row per step, `\n`-terminated.
pub fn to_csv(run: &RunResult, format: CsvFormat) -> String {
    let statuses = all_statuses(&run.steps);
    let mut w = ::csv::WriterBuilder::new().from_writer(Vec::new());

    let mut header: Vec<String> = DRNBENCH_COLUMNS.iter().map(|c| c.to_string()).collect();
    // A SQL run's and a store's statuses by name (`ok`), never the engine's numbers.
    header.extend(
        statuses
            .iter()
            .map(|s| crate::result::answers::csv_status_column(*s, &run.targets)),
    );
    let bulk_kinds = (format == CsvFormat::Full)
        .then(|| bulk_error_kinds(run))
        .flatten();
    if format == CsvFormat::Full {
        header.extend(FULL_EXTRA_COLUMNS.iter().map(|c| c.to_string()));
    }
    if let Some(kinds) = &bulk_kinds {
        header.extend(BULK_COLUMNS.iter().map(|c| c.to_string()));
        header.extend(kinds.iter().map(|k| format!("{ITEM_ERRORS_PREFIX}{k}")));
    }
    write(&mut w, &header);

    for step in &run.steps {
        let mut row = drnbench_cells(step);
        let shares = step.status_percentages();
        // drnbench writes Ruby's integer 0 for a status the step did not see.
        row.extend(statuses.iter().map(|s| match shares.get(s) {
            Some(p) => float_repr(*p),
            None => "0".to_string(),
        }));
        if format == CsvFormat::Full {
            row.extend(extra_cells(step));
        }
        if let Some(kinds) = &bulk_kinds {
            row.extend(bulk_cells(step, kinds));
        }
        write(&mut w, &row);
    }
    let bytes = w
        .into_inner()
        .expect("flushing a CSV writer into memory cannot fail");
    String::from_utf8(bytes).expect("every cell is UTF-8")
}

/// For a bulk run, every kind of item error any step saw (sorted); `None` otherwise.
fn bulk_error_kinds(run: &RunResult) -> Option<Vec<String>> {
    if run.settings.bulk.is_none() && run.steps.iter().all(|s| s.bulk.is_none()) {
        return None;
    }
    let mut kinds: Vec<String> = run
        .steps
        .iter()
        .filter_map(|s| s.bulk.as_ref())
        .flat_map(|b| b.item_errors.keys().cloned())
        .collect();
    kinds.sort_unstable();
    kinds.dedup();
    Some(kinds)
}

fn bulk_cells(step: &StepResult, kinds: &[String]) -> Vec<String> {
    let Some(b) = &step.bulk else {
        // A step without bulk figures in a bulk run: empty, not a misleading 0.
        return vec![String::new(); BULK_COLUMNS.len() + kinds.len()];
    };
    let mut cells = vec![
        b.batch_size.to_string(),
        b.writers.to_string(),
        b.docs_acknowledged.to_string(),
        float_repr(b.docs_per_s),
    ];
    cells.extend(
        kinds
            .iter()
            .map(|k| b.item_errors.get(k).copied().unwrap_or(0).to_string()),
    );
    cells
}

fn write(w: &mut ::csv::Writer<Vec<u8>>, record: &[String]) {
    w.write_record(record)
        .expect("writing CSV into memory cannot fail");
}

/// Every status any step saw (0 standing for requests without a response), ascending.
fn all_statuses(steps: &[StepResult]) -> Vec<u16> {
    let mut all: Vec<u16> = steps
        .iter()
        .flat_map(|s| s.status_percentages().into_keys())
        .collect();
    all.sort_unstable();
    all.dedup();
    all
}

fn drnbench_cells(step: &StepResult) -> Vec<String> {
    let l = &step.latency;
    vec![
        step.n_clients.to_string(),
        step.total_requests.to_string(),
        float_repr(step.qps),
        latency_cell(l, l.min_s),
        latency_cell(l, l.max_s),
        latency_cell(l, l.mean_s),
    ]
}

fn extra_cells(step: &StepResult) -> Vec<String> {
    let server = step.server_process.as_ref().filter(|p| p.error.is_none());
    let l = &step.latency;
    let mut cells = vec![
        latency_cell(l, l.p50_s),
        latency_cell(l, l.p90_s),
        latency_cell(l, l.p99_s),
        latency_cell(l, l.p999_s),
        latency_cell(l, l.stdev_s),
        step.responses.to_string(),
    ];
    let error_cell = |k: &ErrorKind| step.errors.get(k).copied().unwrap_or(0).to_string();
    // The kinds a later version added have their columns at the end (the contract).
    let (first, added) = ErrorKind::ALL.split_at(HTTP_ERROR_KINDS);
    cells.extend(first.iter().map(error_cell));
    cells.extend([
        step.unfinished.to_string(),
        step.late.to_string(),
        step.dropped.to_string(),
        step.bytes_received.to_string(),
        step.bytes_sent.to_string(),
        step.connections_opened.to_string(),
        latency_cell(&step.connect, step.connect.mean_s),
        float_repr(step.client_cpu_s),
        float_repr(step.client_cpu_share),
        float_repr(step.elapsed_s),
        step.partial.to_string(),
        step.rate.map(float_repr).unwrap_or_default(),
        step.round.to_string(),
        step.cache_hit_rate.map(float_repr).unwrap_or_default(),
        server.map(|p| float_repr(p.cores_used)).unwrap_or_default(),
        server
            .map(|p| p.rss_max_bytes.to_string())
            .unwrap_or_default(),
    ]);
    cells.extend(added.iter().map(error_cell));
    cells.extend(before_cells(step));
    cells
}

/// `before_s` and `before_exit`: the commands run before the step, together.
fn before_cells(step: &StepResult) -> [String; 2] {
    let ran: Vec<_> = [&step.before_round, &step.before_step]
        .into_iter()
        .flatten()
        .collect();
    if ran.is_empty() {
        return [String::new(), String::new()];
    }
    let seconds: f64 = ran.iter().map(|c| c.duration_s).sum();
    let exit = ran
        .iter()
        .find(|c| !c.ok)
        .map_or(0, |c| c.exit_code.filter(|e| *e != 0).unwrap_or(-1));
    [float_repr(seconds), exit.to_string()]
}

/// The error kinds whose columns follow `responses`; the key-value stores' reply
/// kinds and HTTP/2's came later, and their columns close [`FULL_EXTRA_COLUMNS`].
const HTTP_ERROR_KINDS: usize = 9;

/// A latency figure, or an empty cell when the histogram behind it is empty (a 0
/// there would read as "infinitely fast").
fn latency_cell(summary: &LatencySummary, value: f64) -> String {
    if summary.count == 0 {
        String::new()
    } else {
        float_repr(value)
    }
}

/// A float the way Ruby's `Float#to_s` prints it (and so drnbench's CSV): the shortest
/// text that reads back as the same number, always with a `.` or an exponent —
/// `100.0`, `33.2`, `0.019765581680722916`, `1.0e-05`, `1.0e+15`.
pub fn float_repr(x: f64) -> String {
    if x.is_nan() {
        return "NaN".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    if x == 0.0 {
        return if x.is_sign_negative() { "-0.0" } else { "0.0" }.into();
    }
    // `{:e}` gives the shortest round-trip digits: "-1.2345e-5".
    let sci = format!("{x:e}");
    let (mantissa, exp) = sci.split_once('e').expect("`{:e}` always has an exponent");
    let exp: i32 = exp.parse().expect("`{:e}` exponent is an integer");
    let (sign, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => ("-", m),
        None => ("", mantissa),
    };
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    // Ruby's `flo_to_s`: `decpt` is where the decimal point falls relative to the
    // digits. Plain notation from 1e-4 up to 1e15 (beyond, only while no zero is padded).
    let decpt = exp + 1;
    let n = digits.len() as i32;
    if decpt > 0 && decpt < n {
        let (int, frac) = digits.split_at(decpt as usize);
        format!("{sign}{int}.{frac}")
    } else if decpt > 0 && decpt <= 15 {
        let zeros = "0".repeat((decpt - n) as usize);
        format!("{sign}{digits}{zeros}.0")
    } else if decpt <= 0 && decpt > -4 {
        let zeros = "0".repeat((-decpt) as usize);
        format!("{sign}0.{zeros}{digits}")
    } else {
        let (first, rest) = digits.split_at(1);
        let rest = if rest.is_empty() { "0" } else { rest };
        let esign = if exp < 0 { '-' } else { '+' };
        format!("{sign}{first}.{rest}e{esign}{:02}", exp.abs())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::result::fixture::{bare_step, run};

    /// Three steps: all 200; 200 plus timeouts; 200 plus 503. The first step's
    /// figures are the drnbench tutorial's.
    fn three_steps() -> RunResult {
        let mut s1 = bare_step(1);
        s1.total_requests = 996;
        s1.responses = 996;
        s1.qps = 33.2;
        s1.latency = LatencySummary {
            count: 996,
            min_s: 0.001773766,
            max_s: 0.238031643,
            mean_s: 0.019765581680722916,
            ..LatencySummary::default()
        };
        s1.statuses.insert(200, 996);

        let mut s2 = bare_step(2);
        s2.total_requests = 1000;
        s2.responses = 990;
        s2.qps = 66.0;
        s2.latency = LatencySummary {
            count: 990,
            min_s: 0.0015,
            max_s: 0.25,
            mean_s: 0.03,
            p50_s: 0.02,
            p90_s: 0.05,
            p99_s: 0.2,
            p999_s: 0.25,
            stdev_s: 0.01,
            ..LatencySummary::default()
        };
        s2.statuses.insert(200, 990);
        s2.errors.insert(ErrorKind::Timeout, 10);
        s2.unfinished = 2;
        s2.bytes_received = 123456;
        s2.bytes_sent = 65432;
        s2.connections_opened = 2;
        s2.connect = LatencySummary {
            count: 2,
            mean_s: 0.00012,
            ..LatencySummary::default()
        };
        s2.client_cpu_s = 1.5;
        s2.client_cpu_share = 0.025;

        let mut s3 = bare_step(3);
        s3.total_requests = 2000;
        s3.responses = 2000;
        s3.qps = 66.66666666666667;
        s3.latency = LatencySummary {
            count: 2000,
            min_s: 0.00001,
            max_s: 1.0,
            mean_s: 0.045,
            ..LatencySummary::default()
        };
        s3.statuses.insert(200, 1990);
        s3.statuses.insert(503, 10);
        s3.partial = true;
        s3.rate = Some(100.0);

        run(vec![s1, s2, s3])
    }

    #[test]
    fn drnbench_columns_exactly() {
        let csv = to_csv(&three_steps(), CsvFormat::Drnbench);
        assert_eq!(
            csv,
            "n_clients,total_n_requests,queries_per_second,min_elapsed_time,max_elapsed_time,average_elapsed_time,0,200,503\n\
             1,996,33.2,0.001773766,0.238031643,0.019765581680722916,0,100.0,0\n\
             2,1000,66.0,0.0015,0.25,0.03,1.0,99.0,0\n\
             3,2000,66.66666666666667,1.0e-05,1.0,0.045,0,99.5,0.5\n"
        );
    }

    #[test]
    fn full_adds_named_columns_after_the_statuses() {
        let csv = to_csv(&three_steps(), CsvFormat::Full);
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines.len(), 4);
        let header = format!(
            "{},0,200,503,{}",
            DRNBENCH_COLUMNS.join(","),
            FULL_EXTRA_COLUMNS.join(",")
        );
        assert_eq!(lines[0], header);
        assert_eq!(
            lines[2],
            "2,1000,66.0,0.0015,0.25,0.03,1.0,99.0,0,\
             0.02,0.05,0.2,0.25,0.01,990,10,0,0,0,0,0,0,0,0,2,0,0,123456,65432,2,0.00012,1.5,0.025,30.0,false,,1,,,,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,,"
        );
        assert!(lines[3].ends_with(
            ",0,0,0,0,0,0,0,0,0,0,0,,0.0,0.0,30.0,true,100.0,1,,,,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,,"
        ));
        // Every row has as many cells as the header.
        let n = lines[0].split(',').count();
        assert!(lines.iter().all(|l| l.split(',').count() == n));
    }

    #[test]
    fn status_seen_only_later_is_zero_before() {
        let mut a = bare_step(1);
        a.total_requests = 4;
        a.responses = 4;
        a.statuses.insert(200, 4);
        let mut b = bare_step(2);
        b.total_requests = 4;
        b.responses = 4;
        b.statuses.insert(200, 3);
        b.statuses.insert(404, 1);
        let csv = to_csv(&run(vec![a, b]), CsvFormat::Drnbench);
        let lines: Vec<&str> = csv.lines().collect();
        assert!(lines[0].ends_with(",200,404"));
        assert!(lines[1].ends_with(",100.0,0"), "{}", lines[1]);
        assert!(lines[2].ends_with(",75.0,25.0"), "{}", lines[2]);
        // No responses at all: latency cells stay empty rather than claim 0 s.
        assert!(lines[1].starts_with("1,4,0.0,,,,"), "{}", lines[1]);
    }

    #[test]
    fn empty_run_is_just_the_header() {
        let csv = to_csv(&run(vec![]), CsvFormat::Drnbench);
        assert_eq!(csv, format!("{}\n", DRNBENCH_COLUMNS.join(",")));
    }

    #[test]
    fn floats_print_like_ruby() {
        let cases = [
            (100.0, "100.0"),
            (33.2, "33.2"),
            (0.019765581680722916, "0.019765581680722916"),
            (0.001773766, "0.001773766"),
            (0.0001, "0.0001"),
            (0.00001, "1.0e-05"),
            (0.000012, "1.2e-05"),
            (1e14, "100000000000000.0"),
            (1e15, "1.0e+15"),
            (1234567890123456.8, "1234567890123456.8"),
            (1e16, "1.0e+16"),
            (1.5e300, "1.5e+300"),
            (-2.5, "-2.5"),
            (0.0, "0.0"),
            (12345.678, "12345.678"),
            (f64::NAN, "NaN"),
        ];
        for (x, want) in cases {
            assert_eq!(float_repr(x), want, "{x:?}");
            if x.is_finite() {
                assert_eq!(float_repr(x).parse::<f64>().unwrap(), x);
            }
        }
    }

    #[test]
    fn bulk_runs_add_their_columns_by_name_after_the_others() {
        use crate::result::BulkStepResult;
        let mut a = bare_step(1);
        a.bulk = Some(BulkStepResult {
            batch_size: 100,
            writers: 1,
            docs_acknowledged: 900,
            docs_per_s: 450.0,
            item_errors: [("conflict".to_string(), 100)].into_iter().collect(),
        });
        let mut b = bare_step(10);
        b.bulk = Some(BulkStepResult {
            batch_size: 1000,
            writers: 10,
            docs_acknowledged: 5000,
            docs_per_s: 2500.0,
            item_errors: [("forbidden".to_string(), 2)].into_iter().collect(),
        });
        let r = run(vec![a, b]);
        let csv = to_csv(&r, CsvFormat::Full);
        let lines: Vec<&str> = csv.lines().collect();
        assert!(lines[0].starts_with(&DRNBENCH_COLUMNS.join(",")));
        assert!(lines[0].ends_with(&format!(
            "{},{},batch_size,writers,docs_acknowledged,docs_per_s,item_errors_conflict,item_errors_forbidden",
            FULL_EXTRA_COLUMNS[FULL_EXTRA_COLUMNS.len() - 2],
            FULL_EXTRA_COLUMNS[FULL_EXTRA_COLUMNS.len() - 1]
        )), "{}", lines[0]);
        assert!(lines[1].ends_with(",100,1,900,450.0,100,0"), "{}", lines[1]);
        assert!(
            lines[2].ends_with(",1000,10,5000,2500.0,0,2"),
            "{}",
            lines[2]
        );
        // drnbench's format stays exactly drnbench's; a run that is not bulk has none.
        assert!(!to_csv(&r, CsvFormat::Drnbench).contains("batch_size"));
        assert!(!to_csv(&three_steps(), CsvFormat::Full).contains("batch_size"));
    }

    /// A SQL run's CSV headed its transactions' share `250` (the engine's number
    /// for a store's reply), its failures' `0`: they are `ok` and `error`, a store's
    /// by their names; HTTP's stay numbers; `report` and `compare` read each back as
    /// the status it counts (the failed share from `error`).
    #[test]
    fn a_sql_run_s_csv_names_its_statuses_ok_and_error_never_250() {
        use crate::stats::ErrorKind;
        let mut step = bare_step(2);
        step.total_requests = 100;
        step.responses = 96;
        step.statuses = [(250, 96)].into_iter().collect();
        step.errors = [(ErrorKind::SqlDeadlock, 4)].into_iter().collect();
        let mut r = run(vec![step]);
        let header = |r: &RunResult| {
            to_csv(r, CsvFormat::Full)
                .lines()
                .next()
                .unwrap()
                .to_string()
        };
        assert!(
            header(&r).contains(",average_elapsed_time,0,250,p50"),
            "{}",
            header(&r)
        );
        r.targets = vec!["postgres://127.0.0.1:5432/bench".into()];
        let h = header(&r);
        assert!(
            h.contains(",average_elapsed_time,error,ok,p50_elapsed_time,"),
            "{h}"
        );
        assert!(!h.split(',').any(|c| c == "250" || c == "0"), "{h}");
        let text = to_csv(&r, CsvFormat::Full);
        let back =
            crate::result::read::read_result_bytes(std::path::Path::new("r.csv"), text.as_bytes())
                .unwrap();
        let p = &back.points[0];
        assert_eq!(p.statuses.keys().copied().collect::<Vec<_>>(), [0, 250]);
        assert!((p.error_share - 4.0).abs() < 1e-9, "{}", p.error_share);
        assert!(back.probe_names().is_empty(), "{:?}", back.probe_names());
        r.targets = vec!["redis://127.0.0.1:6379".into()];
        r.steps[0].statuses = [(250, 90), (254, 6)].into_iter().collect();
        let h = header(&r);
        assert!(h.contains(",error,hit_or_done,miss_or_not_done,p50"), "{h}");
    }
}
