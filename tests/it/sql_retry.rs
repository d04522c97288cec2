//! `--max-tries` on both SQL wires against real servers: a transaction failed by a
//! deadlock (MariaDB) or a serialization failure (PostgreSQL) rolled back and tried
//! again, each retry counted, every committed transaction in the rows.

use crate::mysql::Mariadb;
use crate::mysql_run::{com_deltas, my_run};
use crate::pg::Postgres;
use crate::util::TempDir;

/// `--max-tries`: two rows updated in either order by 8 clients deadlock often;
/// each deadlocked transaction is rolled back and tried again with the same rows,
/// each retry counted, and every transaction that committed is in the rows' sum.
#[test]
fn mysql_run_max_tries_retries_deadlocks_and_counts_each_retry() {
    let Some(db) = Mariadb::start() else { return };
    db.sql(
        "CREATE TABLE bench.pair (id INT PRIMARY KEY, n INT NOT NULL) ENGINE=InnoDB; \
         INSERT INTO bench.pair VALUES (1, 0), (2, 0)",
    );
    let dir = TempDir::new("mysql-retry");
    let tx = dir.path("tx.sql");
    std::fs::write(
        &tx,
        "\\set a random(1, 2)\nBEGIN;\nUPDATE pair SET n = n + 1 WHERE id = :a;\n\
         SELECT SLEEP(0.002);\nUPDATE pair SET n = n + 1 WHERE id = 3 - :a;\nCOMMIT;\n",
    )
    .unwrap();
    let url = db.url();
    let args = [
        "-c",
        "8",
        "-n",
        "400",
        "--max-tries",
        "50",
        "-f",
        tx.to_str().unwrap(),
    ];
    let mut j = serde_json::Value::Null;
    let d = com_deltas(&db, &["Com_commit", "Com_rollback"], || {
        let (o, got) = my_run(&dir, "retry", &[&args[..], &[&url]].concat());
        assert!(o.status.code().is_some(), "{}", crate::util::stderr(&o));
        j = got;
    });
    let s = &j["steps"][0];
    let ok = s["responses"].as_u64().unwrap();
    let (retried, retries) = (
        s["retried"].as_u64().unwrap_or(0),
        s["retries"].as_u64().unwrap_or(0),
    );
    assert!(retries > 0 && retried > 0 && retries >= retried, "{s}");
    assert_eq!(
        ok + s["errors"]
            .as_object()
            .unwrap()
            .values()
            .map(|v| v.as_u64().unwrap())
            .sum::<u64>(),
        400,
        "{s}"
    );
    assert_eq!(d[0], ok, "one COMMIT per transaction that succeeded");
    assert_eq!(d[1], retries + (400 - ok), "one ROLLBACK per failed try");
    let sum: u64 = db.sql("SELECT SUM(n) FROM bench.pair").parse().unwrap();
    assert_eq!(
        sum,
        2 * ok,
        "each committed transaction's two updates, no other"
    );
    // --max-tries 0 is bad input, before any load.
    let (o, _) = my_run(
        &dir,
        "zero",
        &[
            "-n",
            "1",
            "--max-tries",
            "0",
            "-f",
            tx.to_str().unwrap(),
            &url,
        ],
    );
    assert_eq!(o.status.code(), Some(2), "{}", crate::util::stderr(&o));
}

/// `--max-tries` on PostgreSQL: concurrent updates of one row under REPEATABLE READ
/// fail with 40001; each is rolled back and tried again, each retry counted, and
/// every transaction that committed is in the row.
#[test]
fn pg_run_max_tries_retries_serialization_failures_and_counts_each_retry() {
    let Some(pg) = Postgres::start(&[]) else {
        return;
    };
    pg.psql("postgres", "CREATE DATABASE hb");
    pg.psql(
        "hb",
        "CREATE TABLE one (id int PRIMARY KEY, n int NOT NULL); INSERT INTO one VALUES (1, 0)",
    );
    let dir = TempDir::new("pg-retry");
    let tx = dir.path("tx.sql");
    std::fs::write(
        &tx,
        "BEGIN ISOLATION LEVEL REPEATABLE READ;\nSELECT n FROM one WHERE id = 1;\n\
         SELECT pg_sleep(0.002);\nUPDATE one SET n = n + 1 WHERE id = 1;\nCOMMIT;\n",
    )
    .unwrap();
    let url = pg.url("hb");
    let (o, j) = my_run(
        &dir,
        "retry",
        &[
            "-c",
            "8",
            "-n",
            "200",
            "--max-tries",
            "100",
            "-f",
            tx.to_str().unwrap(),
            &url,
        ],
    );
    assert!(o.status.code().is_some(), "{}", crate::util::stderr(&o));
    let s = &j["steps"][0];
    let ok = s["responses"].as_u64().unwrap();
    let retries = s["retries"].as_u64().unwrap_or(0);
    assert!(retries > 0 && s["retried"].as_u64().unwrap_or(0) > 0, "{s}");
    // Eight clients on one row can starve one transaction past its 100 tries (seen
    // on a quiet machine, a8c07ea included: 1 of 200 once in three runs): it is then
    // counted failed by its SQLSTATE after 99 retries, never lost nor a success.
    let gave_up = s["errors"]["sql_serialization_failure"]
        .as_u64()
        .unwrap_or(0);
    assert_eq!(ok + gave_up, 200, "{s}");
    assert!(gave_up <= 2 && retries >= 99 * gave_up, "{s}");
    assert_eq!(pg.psql("hb", "SELECT n FROM one").trim(), ok.to_string());
}
