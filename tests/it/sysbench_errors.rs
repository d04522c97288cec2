//! `hakaru sysbench` counts what sysbench 1.0.20 counts when statements fail or
//! change nothing, on a private MariaDB (tests/it/mysql.rs): an error in
//! `--mysql-ignore-errors` restarts the event, each counted among the "ignored
//! errors", the event itself counted once when it ends well; with `none` the same
//! error fails the event, counted by its kind; a DELETE that found no row is
//! "other", as sysbench's driver counts it by affected rows.

use std::time::Duration;

use crate::mysql::{Mariadb, USER};
use crate::sysbench::figure;
use crate::sysbench::mariadb::{conn, sysbench};
use crate::util::{hakaru, wait_bounded};

/// Runs `hakaru sysbench` while a root session holds every row of `sbtest1` for
/// `hold` seconds (`innodb_lock_wait_timeout=1`): its report and exit code.
fn run_while_locked(db: &Mariadb, args: &str, hold: f64) -> (String, Option<i32>) {
    let mut locker = db.sql_in_background(&format!(
        "BEGIN; SELECT count(*) FROM bench.sbtest1 FOR UPDATE; DO SLEEP({hold}); COMMIT"
    ));
    // The lock is taken before the load's first UPDATE asks for it.
    std::thread::sleep(Duration::from_millis(300));
    let out = hakaru()
        .arg("sysbench")
        .args(conn(db))
        .args(args.split_whitespace())
        .output()
        .expect("hakaru runs");
    wait_bounded(&mut locker, Duration::from_secs(15)).expect("the locking session ends");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let err = String::from_utf8_lossy(&out.stderr);
    (format!("{text}{err}"), out.status.code())
}

#[test]
fn a_lock_wait_timeout_restarts_the_event_as_an_ignored_error_unless_none() {
    let Some(db) = Mariadb::start() else { return };
    let shape = "oltp_update_index --table-size=100";
    sysbench(&db, &format!("{shape} prepare"));
    db.sql("SET GLOBAL innodb_lock_wait_timeout = 1");
    // The default list (1213,1020,1205): each thread's UPDATE times out on the lock
    // and its event starts again, until the lock goes and it ends well.
    let (report, code) = run_while_locked(&db, &format!("{shape} --threads=2 --time=4 run"), 2.5);
    assert_eq!(code, Some(0), "{report}");
    let ignored = figure(&report, "ignored errors:");
    assert!(ignored >= 2, "each thread waited at least once: {report}");
    assert!(figure(&report, "transactions:") > 0, "{report}");
    assert!(
        !report.contains("sql_lock_wait_timeout"),
        "no event failed: {report}"
    );
    // The restarted event's latency holds its waits.
    let max = report
        .lines()
        .find(|l| l.trim_start().starts_with("max:"))
        .and_then(|l| l.split_whitespace().nth(1)?.parse::<f64>().ok())
        .unwrap();
    assert!(max >= 1000.0, "max {max} ms: {report}");
    // `none`: the same wait fails its event, counted by its kind; none ignored. The
    // run goes on, and exits 1 as sysbench's FATAL would.
    let (report, code) = run_while_locked(
        &db,
        &format!("{shape} --threads=2 --time=4 --mysql-ignore-errors=none run"),
        2.5,
    );
    assert_eq!(figure(&report, "ignored errors:"), 0, "{report}");
    assert!(report.contains("sql_lock_wait_timeout"), "{report}");
    assert_eq!(code, Some(1), "{report}");
    assert!(
        report.contains("error sysbench does not ignore"),
        "{report}"
    );
    sysbench(&db, &format!("{shape} cleanup"));
}

/// The bug: every DELETE counted a write, though sysbench's driver counts one that
/// changed no row as "other". 50 DELETEs on 100 rows, ids drawn with repeats:
/// writes are the rows gone, the rest other.
#[test]
fn a_delete_that_found_no_row_counts_as_other_as_sysbench_counts_it() {
    let Some(db) = Mariadb::start() else { return };
    let shape = "oltp_delete --table-size=100 --rand-type=uniform";
    sysbench(&db, &format!("{shape} prepare"));
    let before = db.status("Com_delete");
    let report = sysbench(&db, &format!("{shape} --events=150 --time=0 run"));
    assert_eq!(db.status("Com_delete") - before, 150);
    let left: u64 = db
        .sql("SELECT count(*) FROM bench.sbtest1")
        .parse()
        .unwrap();
    let (write, other) = (figure(&report, "write:"), figure(&report, "other:"));
    assert_eq!(write, 100 - left, "{report}");
    assert_eq!(write + other, 150, "{report}");
    assert!(other > 0, "150 draws of 100 ids repeat: {report}");
    sysbench(&db, &format!("{shape} cleanup"));
}

/// `--mysql-ignore-errors=all` on an error that never goes (a table without the
/// column the test reads: 1054; a missing table is refused before the run):
/// sysbench restarts such an event forever; here the run ends at `--time` with the
/// event in flight (neither a transaction nor an error), every try an ignored
/// error, and, nothing having succeeded, does not exit 0.
#[test]
fn an_error_ignored_forever_still_ends_the_run_on_time() {
    let Some(db) = Mariadb::start() else { return };
    db.sql("CREATE TABLE bench.sbtest1 (id INTEGER PRIMARY KEY, k INTEGER)");
    let started = std::time::Instant::now();
    let out = hakaru()
        .arg("sysbench")
        .args(conn(&db))
        .args(["oltp_point_select", "--threads=2", "--time=2"])
        .args(["--mysql-ignore-errors=all", "run"])
        .output()
        .expect("hakaru runs");
    let took = started.elapsed();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(took < Duration::from_secs(15), "took {took:?}: {text}");
    assert_ne!(out.status.code(), Some(0), "{text}");
    assert_eq!(figure(&text, "transactions:"), 0, "{text}");
    assert!(figure(&text, "ignored errors:") > 0, "{text}");
    eprintln!("took {took:?}\n{text}");
}

/// The bug: connections killed mid-run (`KILL`) failed their events as `reset`, the
/// run went on, and it exited 0, where sysbench 1.0.20 stops with a FATAL (2013,
/// lost connection) and exits 1. Now it measures on and exits 1, saying why; with
/// `--mysql-ignore-errors=all`, which asks sysbench to reconnect, it exits 0.
#[test]
fn killed_connections_fail_the_run_unless_the_ignore_list_covers_them() {
    let Some(db) = Mariadb::start() else { return };
    let shape = "oltp_point_select --table-size=100";
    sysbench(&db, &format!("{shape} prepare"));
    for (ignore, want) in [("", Some(1)), ("--mysql-ignore-errors=all", Some(0))] {
        let mut child = hakaru()
            .arg("sysbench")
            .args(conn(&db))
            .args(shape.split_whitespace())
            .args(["--threads=2", "--time=3", "run"])
            .args(Some(ignore).filter(|s| !s.is_empty()))
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("hakaru runs");
        std::thread::sleep(Duration::from_millis(1200));
        let ids = db.sql(&format!(
            "SELECT id FROM information_schema.processlist WHERE user = '{USER}'"
        ));
        let ids: Vec<&str> = ids.split_whitespace().collect();
        assert!(!ids.is_empty(), "no connection of hakaru's to kill");
        for id in &ids {
            // One may have ended between the list and the kill.
            let _ = db.try_sql(&format!("KILL {id}"));
        }
        wait_bounded(&mut child, Duration::from_secs(20)).expect("the run ends");
        let out = child.wait_with_output().expect("its output");
        let text = String::from_utf8_lossy(&out.stdout);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            text.contains(" reset: ") || text.contains(" io: "),
            "{text}"
        );
        assert!(figure(&text, "transactions:") > 0, "{text}");
        assert_eq!(out.status.code(), want, "{ignore}: {text}{err}");
        assert_eq!(
            err.contains("error sysbench does not ignore"),
            want == Some(1),
            "{err}"
        );
    }
    sysbench(&db, &format!("{shape} cleanup"));
}
