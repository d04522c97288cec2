//! `hakaru pgbench` against a private PostgreSQL 15 (tests/it/pg.rs): `-i`'s row
//! counts exact, and bad options refused before anything connects.

use crate::pg::{Postgres, PASSWORD, USER};
use crate::util::{hakaru, run};

#[test]
fn pgbench_initialize_makes_pgbenchs_exact_row_counts() {
    let Some(pg) = Postgres::start(&[]) else {
        return;
    };
    let port = pg.port.to_string();
    let out = hakaru()
        .args([
            "pgbench",
            "-i",
            "-s",
            "2",
            "--foreign-keys",
            "-h",
            "127.0.0.1",
            "-p",
            &port,
            "-U",
            USER,
            "postgres",
        ])
        .env("PGPASSWORD", PASSWORD)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}\n{}", pg.log());
    for line in [
        "dropping old tables...",
        "creating tables...",
        "generating data (client-side)...",
        "vacuuming...",
        "creating primary keys...",
        "creating foreign keys...",
    ] {
        assert!(err.contains(line), "{line}: {err}");
    }
    assert!(err.contains("200000 of 200000 tuples (100%) done"), "{err}");
    let counts = pg.psql(
        "postgres",
        "SELECT (SELECT count(*) FROM pgbench_branches) || ' ' || (SELECT count(*) FROM pgbench_tellers) || ' ' || (SELECT count(*) FROM pgbench_accounts) || ' ' || (SELECT count(*) FROM pgbench_history)",
    );
    assert_eq!(counts, "2 20 200000 0");
    // The rows are pgbench's: each account in its branch, balances 0.
    assert_eq!(
        pg.psql(
            "postgres",
            "SELECT bid, abalance FROM pgbench_accounts WHERE aid = 100001"
        ),
        "2|0"
    );
    assert_eq!(
        pg.psql(
            "postgres",
            "SELECT count(*) FROM pg_constraint WHERE contype = 'f' AND conname LIKE 'pgbench_%'"
        ),
        "5"
    );
}

#[test]
fn pgbench_refuses_a_bad_script_with_its_line_and_column_before_connecting() {
    let dir = crate::util::TempDir::new("pgbench-bad");
    let path = dir.write("bad.sql", "SELECT 1;\n\\set x random(1)\n");
    let p = path.to_str().unwrap().to_string();
    // Port 1: nothing listens; the script's error must come first.
    let out = run(&[
        "pgbench",
        "-f",
        &p,
        "-h",
        "127.0.0.1",
        "-p",
        "1",
        "postgres",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!("{p}:2:8: random() takes 2 argument(s), given 1")),
        "{err}"
    );
}

/// pgbench's own `hash`, `hash_fnv1a` and `hash_murmur2`, read from its `debug()`
/// lines, against `sql::script::expr`'s: the same numbers for the same seeds.
#[test]
fn hashes_match_pgbench_15s() {
    use hakaru::sql::script::expr::{hash_fnv1a, hash_murmur2};
    let Some(pg) = Postgres::start(&[]) else {
        return;
    };
    let dir = crate::util::TempDir::new("pgbench-hash");
    let script = dir.write(
        "h.sql",
        "\\set a debug(hash_murmur2(1, 0))\n\\set b debug(hash_fnv1a(1, 0))\n\\set c debug(hash_murmur2(-7, 12345))\n\\set d debug(hash_fnv1a(123456789, 99))\nSELECT 1;\n",
    );
    let out = std::process::Command::new(format!("{}/pgbench", crate::pg::PG_BIN))
        .args([
            "-n",
            "-t",
            "1",
            "-f",
            script.to_str().unwrap(),
            "-h",
            "127.0.0.1",
            "-p",
            &pg.port.to_string(),
            "-U",
            USER,
            "postgres",
        ])
        .env("PGPASSWORD", PASSWORD)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    let got: Vec<i64> = err
        .lines()
        .filter(|l| l.starts_with("debug("))
        .map(|l| l.rsplit(' ').next().unwrap().parse().unwrap())
        .collect();
    assert_eq!(
        got,
        [
            hash_murmur2(1, 0),
            hash_fnv1a(1, 0),
            hash_murmur2(-7, 12345),
            hash_fnv1a(123456789, 99)
        ],
        "{err}"
    );
}

/// `hakaru pgbench -i -s 1` on a fresh database, with the harness's login.
fn pgbench(pg: &Postgres, args: &[&str]) -> std::process::Output {
    let port = pg.port.to_string();
    let mut all = vec!["pgbench", "-h", "127.0.0.1", "-p", &port, "-U", USER];
    all.extend_from_slice(args);
    all.push("postgres");
    hakaru()
        .args(&all)
        .env("PGPASSWORD", PASSWORD)
        .output()
        .unwrap()
}

/// Issue 33: without `-i` the load runs on the engine: `-c 4 -t 50` is 200
/// transactions, each one row in pgbench_history.
#[test]
fn pgbench_runs_clients_times_transactions_on_the_engine() {
    let Some(pg) = Postgres::start(&[]) else {
        return;
    };
    let init = pgbench(&pg, &["-i", "-s", "1"]);
    assert!(
        init.status.success(),
        "{}",
        String::from_utf8_lossy(&init.stderr)
    );
    let out = pgbench(&pg, &["-c", "4", "-j", "2", "-t", "50", "-b", "tpcb-like"]);
    let text = String::from_utf8_lossy(&out.stdout);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{text}\n{err}\n{}", pg.log());
    assert!(text.contains("number of clients: 4"), "{text}");
    assert!(text.contains("200/200"), "{text}");
    assert!(text.contains("tps = "), "{text}");
    assert_eq!(
        pg.psql("postgres", "SELECT count(*) FROM pgbench_history"),
        "200"
    );
}

/// `-S -T 2 -R 200 --latency-limit 50`: an open-model run for its time, with
/// pgbench's rate-limit lines.
#[test]
fn pgbench_rate_and_latency_limit_print_pgbenchs_lines() {
    let Some(pg) = Postgres::start(&[]) else {
        return;
    };
    let init = pgbench(&pg, &["-i", "-s", "1"]);
    assert!(
        init.status.success(),
        "{}",
        String::from_utf8_lossy(&init.stderr)
    );
    let out = pgbench(
        &pg,
        &[
            "-S",
            "-c",
            "2",
            "-T",
            "2",
            "-R",
            "200",
            "--latency-limit",
            "50",
        ],
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("select only"), "{text}");
    assert!(text.contains("duration: 2 s"), "{text}");
    assert!(text.contains("rate limit schedule lag"), "{text}");
    assert!(text.contains("above the 50.0 ms latency limit"), "{text}");
}

/// A flag the run does not carry out yet is refused before any load, not ignored.
#[test]
fn pgbench_refuses_report_per_command_before_the_load() {
    let out = hakaru()
        .args([
            "pgbench",
            "-r",
            "-t",
            "1",
            "-h",
            "127.0.0.1",
            "-p",
            "1",
            "postgres",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("-r/--report-per-command"));
}

/// A custom `-f` script with `\set` and `\gset`: each transaction's inserted row
/// carries the value `\gset` read back, so 2 clients × 5 make 10 rows of 42.
#[test]
fn pgbench_runs_a_custom_script_with_set_and_gset() {
    let Some(pg) = Postgres::start(&[]) else {
        return;
    };
    pg.psql("postgres", "CREATE TABLE gs (v int)");
    let dir = crate::util::TempDir::new("pgbench-f");
    let script = dir.path("gs.sql");
    std::fs::write(
        &script,
        "\\set x 40 + 2\nSELECT :x AS got \\gset\nINSERT INTO gs VALUES (:got);\n",
    )
    .unwrap();
    let f = script.to_str().unwrap();
    let out = pgbench(&pg, &["-c", "2", "-t", "5", "-n", "-f", f]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("10/10"), "{text}");
    assert_eq!(
        pg.psql(
            "postgres",
            "SELECT count(*) || ' ' || min(v) || ' ' || max(v) FROM gs"
        ),
        "10 42 42"
    );
}
