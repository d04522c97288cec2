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
