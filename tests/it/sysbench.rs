//! `hakaru sysbench` against a private PostgreSQL 15 (tests/it/pg.rs): `prepare`'s
//! row counts exact, a run's transactions equal to the server's own commit count,
//! both `--db-ps-mode`s, `cleanup` leaving nothing, and Debian's sysbench as the
//! peer on the same server and tables.

use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::pg::{Postgres, PASSWORD, USER};
use crate::util::hakaru;

/// A server without autovacuum: its own transactions would count as commits.
fn server() -> Option<Postgres> {
    Postgres::start(&["autovacuum=off"])
}

pub fn conn(pg: &Postgres) -> Vec<String> {
    [
        "--db-driver=pgsql".to_string(),
        "--pgsql-host=127.0.0.1".into(),
        format!("--pgsql-port={}", pg.port),
        format!("--pgsql-user={USER}"),
        format!("--pgsql-password={PASSWORD}"),
        "--pgsql-db=postgres".into(),
    ]
    .into()
}

fn sysbench(pg: &Postgres, args: &str) -> Output {
    let out = hakaru()
        .arg("sysbench")
        .args(conn(pg))
        .args(args.split_whitespace())
        .output()
        .expect("hakaru runs");
    assert!(
        out.status.success(),
        "hakaru sysbench {args}: {}{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
        pg.log()
    );
    out
}

/// A figure of the report: the number after `label` on its line.
pub fn figure(report: &str, label: &str) -> u64 {
    let line = report
        .lines()
        .find(|l| l.trim_start().starts_with(label))
        .unwrap_or_else(|| panic!("{label}: {report}"));
    line[line.find(label).unwrap() + label.len()..]
        .split_whitespace()
        .next()
        .and_then(|w| w.parse().ok())
        .unwrap_or_else(|| panic!("{label}: {line}"))
}

/// The database's commits, less those of the readings themselves: each `psql`
/// commits two (its login's catalog lookup and its query), counted when it exits.
struct Commits<'a> {
    pg: &'a Postgres,
    readings: std::cell::Cell<u64>,
}

impl<'a> Commits<'a> {
    fn new(pg: &'a Postgres) -> Self {
        Commits {
            pg,
            readings: std::cell::Cell::new(0),
        }
    }

    fn read(&self) -> u64 {
        let raw: u64 = self
            .pg
            .psql(
                "postgres",
                "SELECT xact_commit FROM pg_stat_database WHERE datname = 'postgres'",
            )
            .parse()
            .unwrap();
        let k = self.readings.replace(self.readings.get() + 1);
        raw - 2 * k
    }

    /// Once the server's counts have settled (each backend flushes its counts as it
    /// exits): two readings alike.
    fn settled(&self) -> u64 {
        let start = Instant::now();
        let mut last = self.read();
        loop {
            std::thread::sleep(Duration::from_millis(200));
            let now = self.read();
            if now == last || start.elapsed() > Duration::from_secs(5) {
                return now;
            }
            last = now;
        }
    }
}

fn table_count(pg: &Postgres) -> String {
    pg.psql(
        "postgres",
        "SELECT count(*) FROM pg_tables WHERE tablename LIKE 'sbtest%'",
    )
}

#[test]
fn prepare_makes_exact_rows_and_cleanup_leaves_no_table() {
    let Some(pg) = server() else { return };
    let out = sysbench(&pg, "oltp_read_write --tables=3 --table-size=2500 prepare");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("Creating table 'sbtest3'..."), "{text}");
    assert!(
        text.contains("Inserting 2500 records into 'sbtest1'"),
        "{text}"
    );
    for t in 1..=3 {
        let n = pg.psql("postgres", &format!("SELECT count(*), count(DISTINCT id), max(id), min(k) >= 1, max(k) <= 2500, max(length(c)), max(length(pad)) FROM sbtest{t}"));
        assert_eq!(n, "2500|2500|2500|t|t|119|59", "sbtest{t}");
    }
    let indexes = pg.psql(
        "postgres",
        "SELECT count(*) FROM pg_indexes WHERE indexname LIKE 'k\\_%'",
    );
    assert_eq!(indexes, "3");
    sysbench(&pg, "oltp_read_write --tables=3 cleanup");
    assert_eq!(table_count(&pg), "0");
}

#[test]
fn read_write_transactions_are_the_servers_commits() {
    let Some(pg) = server() else { return };
    sysbench(&pg, "oltp_read_write --tables=2 --table-size=1000 prepare");
    let commits = Commits::new(&pg);
    let before = commits.settled();
    let out = sysbench(
        &pg,
        "oltp_read_write --tables=2 --table-size=1000 --threads=4 --events=400 --time=0 run",
    );
    let after = commits.settled();
    let report = String::from_utf8_lossy(&out.stdout);
    let tx = figure(&report, "transactions:");
    // The failed ones (a duplicate key or a deadlock between threads) rolled back.
    assert!(400 - tx < 40, "{report}");
    // Each of the 4 connections' logins commits one catalog lookup, and so does
    // the login of the check that the tables are there (its SELECTs rolled back).
    assert_eq!(after - before - 5, tx, "{report}");
    // A failed event's good statements count too, as sysbench counts them.
    assert!(figure(&report, "read:") >= 14 * tx, "{report}");
    assert!(figure(&report, "other:") >= 2 * tx, "{report}");
    assert_eq!(figure(&report, "total number of events:"), tx);
    assert!(
        report.contains("Threads fairness:\n    events (avg/stddev):"),
        "{report}"
    );
    assert!(
        report.contains("--- hakaru ---\nlatency (ms, HDR histogram): p50 "),
        "{report}"
    );
    // One thread: nothing collides, every count exact.
    let out = sysbench(
        &pg,
        "oltp_read_write --tables=2 --table-size=1000 --events=150 --time=0 --rand-type=uniform run",
    );
    let report = String::from_utf8_lossy(&out.stdout);
    for (label, n) in [
        ("transactions:", 150),
        ("read:", 2100),
        ("write:", 600),
        ("other:", 300),
        ("total:", 3000),
    ] {
        assert_eq!(figure(&report, label), n, "{label} {report}");
    }
}

#[test]
fn point_select_runs_prepared_and_plain() {
    // Every statement in the server's log: a prepared one shows as `execute NAME`.
    let Some(pg) = Postgres::start(&["autovacuum=off", "log_statement=all"]) else {
        return;
    };
    sysbench(&pg, "oltp_point_select --table-size=1000 prepare");
    let commits = Commits::new(&pg);
    for mode in ["auto", "disable"] {
        let before = commits.settled();
        let out = sysbench(
            &pg,
            &format!(
                "oltp_point_select --table-size=1000 --threads=2 --events=300 --time=0 --db-ps-mode={mode} run"
            ),
        );
        let after = commits.settled();
        let report = String::from_utf8_lossy(&out.stdout);
        // No BEGIN: each SELECT is a transaction of its own.
        assert_eq!(figure(&report, "transactions:"), 300, "{mode}: {report}");
        assert_eq!(figure(&report, "read:"), 300, "{mode}: {report}");
        assert_eq!(figure(&report, "other:"), 0, "{mode}: {report}");
        // Less the two logins' catalog lookups and the table check's login.
        assert_eq!(after - before - 3, 300, "{mode}: {report}");
        let log = pg.log();
        let prepared = log
            .matches("execute sb_point_1: SELECT c FROM sbtest1 WHERE id=$1::bigint")
            .count();
        let plain = log
            .matches("statement: SELECT c FROM sbtest1 WHERE id=")
            .count();
        match mode {
            "auto" => assert_eq!((prepared, plain), (300, 0), "{mode}"),
            _ => assert_eq!((prepared, plain), (300, 300), "{mode}"),
        }
    }
    // --rate: the open model, sysbench's header saying so.
    let out = sysbench(
        &pg,
        "oltp_point_select --table-size=1000 --rate=100 --time=1 run",
    );
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(
        report.contains("Target transaction rate: 100/sec\n"),
        "{report}"
    );
    assert!(figure(&report, "transactions:") > 0, "{report}");
}

/// Bug: `--report-interval=1 --time=2` printed one line, `--time=1` none: the
/// engine's last progress report comes before the run's end, where sysbench's
/// timer prints the last interval's line; and the header did not say the interval.
#[test]
fn the_last_report_interval_s_line_comes_as_in_sysbench() {
    let Some(pg) = server() else { return };
    sysbench(&pg, "oltp_point_select --table-size=100 prepare");
    for extra in ["", " --rate=200"] {
        let out = sysbench(
            &pg,
            &format!("oltp_point_select --table-size=100 --report-interval=1 --time=2{extra} run"),
        );
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            text.contains("Report intermediate results every 1 second(s)\n"),
            "{text}"
        );
        let lines: Vec<&str> = text.lines().filter(|l| l.starts_with("[ ")).collect();
        assert_eq!(lines.len(), 2, "{extra}: {text}");
        assert!(lines[1].starts_with("[ 2s ] thds: 1 tps: "), "{text}");
    }
    // A run that ends by --events before the interval: no line, as in sysbench.
    let out = sysbench(
        &pg,
        "oltp_point_select --table-size=100 --report-interval=5 --events=50 --time=0 run",
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(!text.lines().any(|l| l.starts_with("[ ")), "{text}");
}

/// Debian's sysbench beside hakaru's on the same server: its tables are hakaru's
/// row for row, and each runs on the other's tables with the same query counts.
#[test]
fn sysbench_itself_agrees_on_tables_and_counts() {
    let Some(pg) = server() else { return };
    if Command::new("sysbench").arg("--version").output().is_err() {
        assert!(
            std::env::var_os("CI").is_none(),
            "sysbench is not installed"
        );
        eprintln!("skipped: sysbench is not installed");
        return;
    }
    let peer = |args: &str| -> String {
        let out = Command::new("sysbench")
            .args(args.split_whitespace())
            .args(conn(&pg))
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(
            out.status.success(),
            "sysbench {args}: {text}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        text
    };
    let shape = "oltp_read_write --tables=2 --table-size=1500";
    peer(&format!("{shape} prepare"));
    let theirs = pg.psql(
        "postgres",
        "SELECT (SELECT count(*) FROM sbtest1), (SELECT count(*) FROM sbtest2)",
    );
    // hakaru runs on sysbench's tables …
    let ours = sysbench(&pg, &format!("{shape} --events=100 --time=0 run"));
    let ours = String::from_utf8_lossy(&ours.stdout).into_owned();
    sysbench(&pg, &format!("{shape} cleanup"));
    sysbench(&pg, &format!("{shape} prepare"));
    let mine = pg.psql(
        "postgres",
        "SELECT (SELECT count(*) FROM sbtest1), (SELECT count(*) FROM sbtest2)",
    );
    assert_eq!((theirs.as_str(), mine.as_str()), ("1500|1500", "1500|1500"));
    // … and sysbench on hakaru's.
    let report = peer(&format!("{shape} --events=100 --time=0 run"));
    for label in ["read:", "other:", "transactions:"] {
        assert_eq!(
            figure(&ours, label),
            figure(&report, label),
            "{label}\n{ours}\n{report}"
        );
    }
    peer(&format!("{shape} cleanup"));
    assert_eq!(table_count(&pg), "0");
}

#[test]
fn bad_options_and_lua_scripts_are_refused_before_connecting() {
    for (args, says) in [
        (
            "oltp_read_write --db-driver=pgsql --pgsql-port=1 --nope=1 run",
            "--nope",
        ),
        (
            "./custom.lua --db-driver=pgsql run",
            "hakaru run postgres://",
        ),
        (
            "oltp_read_write --db-driver=pgsql --threads=0 run",
            "--threads=0",
        ),
    ] {
        let out = hakaru()
            .arg("sysbench")
            .args(args.split_whitespace())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args}: {err}");
        assert!(err.contains(says), "{args}: {err}");
    }
}

/// Bug: a `run` before `prepare`, with a wrong password or against a server that
/// is down failed every event for the whole `--time` (a login refused thousands
/// of times a second) and printed a report of zeros, where sysbench's threads
/// fail as they start: now refused before any load, exit 1, saying what to do.
#[test]
fn a_run_without_its_tables_or_its_login_is_refused_before_any_load() {
    let Some(pg) = server() else { return };
    let run = |args: Vec<String>| {
        let started = Instant::now();
        let out = hakaru()
            .arg("sysbench")
            .args(args)
            .args("oltp_read_write --tables=2 --time=30 run".split_whitespace())
            .output()
            .unwrap();
        assert!(started.elapsed() < Duration::from_secs(20));
        assert_eq!(out.status.code(), Some(1));
        assert!(!String::from_utf8_lossy(&out.stdout).contains("SQL statistics"));
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let err = run(conn(&pg));
    assert!(err.contains("relation \"sbtest1\" does not exist"), "{err}");
    assert!(err.contains("prepare the tables first"), "{err}");
    let wrong: Vec<String> = conn(&pg)
        .into_iter()
        .map(|a| match a.starts_with("--pgsql-password=") {
            true => "--pgsql-password=wrong".to_string(),
            false => a,
        })
        .collect();
    let err = run(wrong);
    assert!(err.contains("password authentication failed"), "{err}");
    let down: Vec<String> = conn(&pg)
        .into_iter()
        .map(|a| match a.starts_with("--pgsql-port=") {
            true => "--pgsql-port=1".to_string(),
            false => a,
        })
        .collect();
    let err = run(down);
    assert!(err.contains("refused"), "{err}");
    // One table of two: the missing one is named.
    sysbench(&pg, "oltp_read_write --tables=1 --table-size=100 prepare");
    let err = run(conn(&pg));
    assert!(err.contains("relation \"sbtest2\" does not exist"), "{err}");
}

/// hakaru's own after sysbench's: the result files (queries by class as the step's
/// operations, each thread a label), a threshold's exit code, `--histogram`, and
/// `--events` ending the run before `--time`.
#[test]
fn result_files_thresholds_and_the_histogram() {
    let Some(pg) = server() else { return };
    sysbench(&pg, "oltp_read_only --table-size=500 prepare");
    let dir = crate::util::TempDir::new("sysbench");
    let csv = dir.path("sb.csv");
    let start = Instant::now();
    let out = sysbench(
        &pg,
        &format!(
            "oltp_read_only --table-size=500 --threads=2 --events=100 --time=60 --histogram \
             --percentile=99 -o {} --threshold p99<30s run",
            csv.display()
        ),
    );
    assert!(start.elapsed() < Duration::from_secs(30));
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(
        report.contains("Latency histogram (values are in milliseconds)"),
        "{report}"
    );
    assert!(report.contains("         99th percentile: "), "{report}");
    assert_eq!(figure(&report, "transactions:"), 100, "{report}");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path("sb.json")).unwrap()).unwrap();
    assert_eq!(
        json["settings"]["patterns_source"],
        "sysbench oltp_read_only"
    );
    let step = &json["steps"][0];
    assert_eq!(step["operations"]["read"], 1400, "{step}");
    assert_eq!(step["operations"]["other"], 200, "{step}");
    let threads: u64 = step["labels"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| l["key"] == "thread")
        .map(|l| l["responses"].as_u64().unwrap())
        .sum();
    assert_eq!(threads, 100);
    // hakaru report draws it like any run's result.
    let page = dir.path("sb.html");
    let out = hakaru()
        .args(["report", "-o"])
        .arg(&page)
        .arg(dir.path("sb.json"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(std::fs::read_to_string(&page).unwrap().contains("thread"));
    // --report-interval: sysbench's line each second (after the warm-up).
    let out = sysbench(
        &pg,
        "oltp_read_only --table-size=500 --threads=2 --time=2 --warmup-time=1 --report-interval=1 run",
    );
    let report = String::from_utf8_lossy(&out.stdout);
    let line = report
        .lines()
        .find(|l| l.starts_with("[ 1s ] thds: 2 tps: "))
        .unwrap_or_else(|| panic!("{report}"));
    assert!(
        line.contains(" (r/w/o: ") && line.contains(" lat (ms,95%): "),
        "{line}"
    );
    // A threshold that cannot hold: measured, then exit 1.
    let out = hakaru()
        .arg("sysbench")
        .args(conn(&pg))
        .args([
            "oltp_read_only",
            "--table-size=500",
            "--events=20",
            "--time=0",
        ])
        .args(["--threshold", "p99<1us", "run"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("SQL statistics:"));
}

/// The same tests on a private MariaDB 10.11 (tests/it/mysql.rs), counted by the
/// server's own `SHOW GLOBAL STATUS`.
pub mod mariadb {
    use super::figure;
    use crate::mysql::{Mariadb, PASSWORD, USER};
    use crate::util::hakaru;
    use std::process::{Command, Output, Stdio};

    pub fn conn(db: &Mariadb) -> Vec<String> {
        vec![
            "--db-driver=mysql".to_string(),
            "--mysql-host=127.0.0.1".into(),
            format!("--mysql-port={}", db.port),
            format!("--mysql-user={USER}"),
            format!("--mysql-password={PASSWORD}"),
            "--mysql-db=bench".into(),
        ]
    }

    pub fn sysbench(db: &Mariadb, args: &str) -> String {
        let out: Output = hakaru()
            .arg("sysbench")
            .args(conn(db))
            .args(args.split_whitespace())
            .output()
            .expect("hakaru runs");
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(
            out.status.success(),
            "hakaru sysbench {args}: {text}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        text
    }

    const COUNTERS: [&str; 7] = [
        "Com_select",
        "Com_update",
        "Com_delete",
        "Com_insert",
        "Com_begin",
        "Com_commit",
        "Com_stmt_execute",
    ];

    /// The counters' growth over `run`.
    fn deltas(db: &Mariadb, run: impl FnOnce()) -> Vec<u64> {
        let before: Vec<u64> = COUNTERS.iter().map(|c| db.status(c)).collect();
        run();
        COUNTERS
            .iter()
            .zip(before)
            .map(|(c, b)| db.status(c) - b)
            .collect()
    }

    #[test]
    fn prepare_run_cleanup_on_mariadb_count_as_the_server_does() {
        let Some(db) = Mariadb::start() else { return };
        let shape = "oltp_read_write --tables=2 --table-size=1500";
        let text = sysbench(&db, &format!("{shape} prepare"));
        assert!(
            text.contains("Inserting 1500 records into 'sbtest2'"),
            "{text}"
        );
        assert_eq!(
            db.sql("SELECT (SELECT count(*) FROM bench.sbtest1), (SELECT count(DISTINCT id) FROM bench.sbtest2)"),
            "1500\t1500"
        );
        let mut report = String::new();
        let d = deltas(&db, || {
            report = sysbench(&db, &format!("{shape} --events=200 --time=0 run"));
        });
        // One thread: every count exact; prepared statements by execute.
        assert_eq!(figure(&report, "transactions:"), 200, "{report}");
        assert_eq!(figure(&report, "read:"), 2800, "{report}");
        assert_eq!(figure(&report, "write:"), 800, "{report}");
        assert_eq!(figure(&report, "other:"), 400, "{report}");
        assert_eq!(d, vec![2800, 400, 200, 200, 200, 200, 4000], "{COUNTERS:?}");
        // Four threads: the server's commits are the transactions.
        let mut report = String::new();
        let d = deltas(&db, || {
            report = sysbench(
                &db,
                &format!("{shape} --threads=4 --events=400 --time=0 run"),
            );
        });
        assert_eq!(d[5], figure(&report, "transactions:"), "{report}");
        sysbench(&db, &format!("{shape} cleanup"));
        assert_eq!(db.sql("SELECT count(*) FROM information_schema.tables WHERE table_schema = 'bench' AND table_name LIKE 'sbtest%'"), "0");
    }

    #[test]
    fn point_select_on_mariadb_prepared_and_plain() {
        let Some(db) = Mariadb::start() else { return };
        sysbench(&db, "oltp_point_select --table-size=1000 prepare");
        for (mode, executes) in [("auto", 300), ("disable", 0)] {
            let mut report = String::new();
            let d = deltas(&db, || {
                report = sysbench(
                    &db,
                    &format!(
                        "oltp_point_select --table-size=1000 --threads=2 --events=300 --time=0 --db-ps-mode={mode} run"
                    ),
                );
            });
            assert_eq!(figure(&report, "transactions:"), 300, "{mode}: {report}");
            assert_eq!((d[0], d[6]), (300, executes), "{mode}");
        }
    }

    /// Bug: `prewarm`, which sysbench runs on MySQL, was refused: each table now
    /// analyzed and read through both its indexes, as sysbench does.
    #[test]
    fn prewarm_reads_each_table_as_sysbench_does() {
        let Some(db) = Mariadb::start() else { return };
        let shape = "oltp_read_write --tables=2 --table-size=300";
        sysbench(&db, &format!("{shape} prepare"));
        let before = db.status("Com_select");
        let text = sysbench(&db, &format!("{shape} prewarm"));
        assert!(
            text.contains("Prewarming table sbtest1\nPrewarming table sbtest2\n"),
            "{text}"
        );
        assert_eq!(db.status("Com_select") - before, 4);
    }

    /// Debian's sysbench on hakaru's tables, and hakaru on sysbench's: the same
    /// counts.
    #[test]
    fn sysbench_itself_agrees_on_mariadb() {
        let Some(db) = Mariadb::start() else { return };
        if Command::new("sysbench").arg("--version").output().is_err() {
            return;
        }
        let peer = |args: &str| -> String {
            let out = Command::new("sysbench")
                .args(args.split_whitespace())
                .args(conn(&db))
                .stdin(Stdio::null())
                .output()
                .unwrap();
            let text = String::from_utf8_lossy(&out.stdout).into_owned();
            assert!(
                out.status.success(),
                "sysbench {args}: {text}{}",
                String::from_utf8_lossy(&out.stderr)
            );
            text
        };
        let shape = "oltp_read_write --tables=2 --table-size=1200";
        peer(&format!("{shape} prepare"));
        let ours = sysbench(&db, &format!("{shape} --events=100 --time=0 run"));
        sysbench(&db, &format!("{shape} cleanup"));
        sysbench(&db, &format!("{shape} prepare"));
        let theirs = peer(&format!("{shape} --events=100 --time=0 run"));
        for label in ["read:", "write:", "other:", "transactions:"] {
            assert_eq!(
                figure(&ours, label),
                figure(&theirs, label),
                "{label}\n{ours}\n{theirs}"
            );
        }
        peer(&format!("{shape} cleanup"));
    }
}
