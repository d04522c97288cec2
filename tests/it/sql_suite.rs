//! SQL in the suites against a real PostgreSQL 15 (`pg::Postgres`): YCSB's core
//! workloads A–F over YCSB's JDBC table with their operations counted as the server
//! counts them (`pg_stat_user_tables`), a phase of a pgbench script, `--probe
//! postgres`'s deltas, and an immediate shutdown and restart of the server mid-suite
//! with the recovery measured. Counts only, never time.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::pg::{Postgres, PASSWORD, USER};
use crate::util::*;

/// Operations of a step by kind.
fn ops(step: &Value) -> BTreeMap<String, u64> {
    step["operations"]
        .as_object()
        .map(|o| {
            o.iter()
                .map(|(k, v)| (k.clone(), v.as_u64().unwrap()))
                .collect()
        })
        .unwrap_or_default()
}

fn op(o: &BTreeMap<String, u64>, kind: &str) -> u64 {
    o.get(kind).copied().unwrap_or(0)
}

/// The server's counts of YCSB's table: (n_tup_ins, n_tup_upd, idx_scan + seq_scan).
fn table_counts(pg: &Postgres, db: &str) -> (u64, u64, u64) {
    let row = pg.psql(
        db,
        "SELECT n_tup_ins, n_tup_upd, coalesce(idx_scan, 0) + coalesce(seq_scan, 0) \
         FROM pg_stat_user_tables WHERE relname = 'usertable'",
    );
    let v: Vec<u64> = row.split('|').map(|x| x.parse().unwrap()).collect();
    (v[0], v[1], v[2])
}

/// The counts once the backends' statistics are in: they flush when a backend
/// exits or within a second of going idle; read until two readings 300 ms apart
/// agree, bounded.
fn settled_counts(pg: &Postgres, db: &str) -> (u64, u64, u64) {
    let start = Instant::now();
    let mut last = table_counts(pg, db);
    loop {
        std::thread::sleep(Duration::from_millis(300));
        let now = table_counts(pg, db);
        if (now == last && start.elapsed() > Duration::from_millis(1200))
            || start.elapsed() > Duration::from_secs(6)
        {
            return now;
        }
        last = now;
    }
}

/// YCSB profile `name` pointed at `url`, with `records` records and a short run.
fn ycsb_scenario(dir: &TempDir, name: &str, url: &str, records: u64) -> std::path::PathBuf {
    let text = ok(&run(&[
        "suite",
        "--profile",
        name,
        "--target",
        url,
        "--print",
    ]));
    assert!(text.contains(url), "{text}");
    let text = text
        .replace("records = 1000", &format!("records = {records}"))
        .replace("duration = \"60s\"", "duration = \"2s\"")
        .replace("clients = 16", "clients = 4");
    dir.write(&format!("{name}.toml"), &text)
}

/// `client ≤ server ≤ client + unfinished`: the server also counts what a
/// transaction cut off at the phase's end did before hakaru saw its answer.
fn within(what: &str, client: u64, server: u64, unfinished: u64, step: &Value) {
    assert!(
        client <= server && server <= client + unfinished,
        "{what}: hakaru counted {client}, the server {server} ({unfinished} unfinished): {step}"
    );
}

/// Each of YCSB's core workloads loads exactly `records` rows, then runs its mix:
/// every operation hakaru counted is one the server counted — inserts in
/// `n_tup_ins`, updates (a read-modify-write's too) in `n_tup_upd`, each read,
/// scan and update one scan of the table (`idx_scan` + `seq_scan`) — less those in
/// flight at the phase's end, and nothing failed.
#[test]
fn ycsb_a_to_f_over_postgres_count_what_the_server_counts() {
    let Some(pg) = Postgres::start(&["autovacuum=off"]) else {
        return;
    };
    let records = 300;
    for w in ["a", "b", "c", "d", "e", "f"] {
        let name = format!("ycsb-{w}");
        let db = format!("ycsb_{w}");
        pg.psql("postgres", &format!("CREATE DATABASE {db}"));
        let dir = TempDir::new(&name);
        let s = ycsb_scenario(&dir, &name, &pg.url(&db), records);
        let out = dir.path("r.csv");
        let o = run(&[
            "suite",
            s.to_str().unwrap(),
            "-q",
            "-o",
            out.to_str().unwrap(),
        ]);
        assert!(!stderr(&o).contains(PASSWORD), "{}", stderr(&o));
        ok(&o);
        let r = read_json(&out.with_extension("json"));
        assert!(
            !r.to_string().contains(PASSWORD),
            "the password is in the result"
        );
        let (load, step) = (&r["steps"][0], &r["steps"][1]);
        assert_eq!(load["total_requests"], 3, "{name}: {load}");
        assert_eq!(op(&ops(load), "insert"), records, "{name}: {load}");
        assert_eq!(load["errors"], serde_json::json!({}), "{name}: {load}");
        assert_eq!(step["errors"], serde_json::json!({}), "{name}: {step}");
        let o = ops(step);
        assert!(!o.is_empty(), "{name}: {step}");
        let unfinished = step["unfinished"].as_u64().unwrap_or(0);
        let (ins, upd, scans) = settled_counts(&pg, &db);
        let rmw = op(&o, "read-modify-write");
        within(
            &format!("{name} inserts"),
            records + op(&o, "insert"),
            ins,
            unfinished,
            step,
        );
        within(
            &format!("{name} updates"),
            op(&o, "update") + rmw,
            upd,
            unfinished,
            step,
        );
        let reads = op(&o, "read") + op(&o, "scan") + op(&o, "update") + 2 * rmw;
        // A read-modify-write cut off after its read adds one scan, twice a client.
        within(&format!("{name} scans"), reads, scans, 2 * unfinished, step);
        // The rows are the loaded records and the mix's inserts.
        let rows: u64 = pg
            .psql(&db, "SELECT count(*) FROM usertable")
            .parse()
            .unwrap();
        assert_eq!(rows, ins, "{name}");
        let kinds: Vec<&str> = o.keys().map(String::as_str).collect();
        let want: &[&str] = match w {
            "a" => &["read", "update"],
            "b" => &["read", "update"],
            "c" => &["read"],
            "d" => &["insert", "read"],
            "e" => &["insert", "scan"],
            _ => &["read", "read-modify-write"],
        };
        assert!(kinds.iter().all(|k| want.contains(k)), "{name}: {o:?}");
        eprintln!(
            "{name}: {o:?}, server ins {ins} upd {upd} scans {scans}, {unfinished} unfinished"
        );
    }
    let _ = USER;
}
