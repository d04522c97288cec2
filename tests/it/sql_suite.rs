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

/// Runs scenario `s` quietly under `--probe probe`, its result written in `dir`:
/// the result, once the suite succeeded.
fn suite_probed(dir: &TempDir, s: &std::path::Path, probe: &str) -> Value {
    let out = dir.path("r.csv");
    let o = run(&[
        "suite",
        s.to_str().unwrap(),
        "-q",
        "--probe",
        probe,
        "-o",
        out.to_str().unwrap(),
    ]);
    ok(&o);
    read_json(&out.with_extension("json"))
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
        // CREATE TABLE builds the primary key's index by one scan of the empty
        // table, which `seq_scan` counts: the server's one scan more than the mix's.
        let reads = 1 + op(&o, "read") + op(&o, "scan") + op(&o, "update") + 2 * rmw;
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

/// A table of 100 counters in database `bench`, and a pgbench script that adds one
/// to a random counter per transaction.
fn counters(pg: &Postgres, dir: &TempDir) {
    pg.psql("postgres", "CREATE DATABASE bench");
    pg.psql(
        "bench",
        "CREATE TABLE t (id int PRIMARY KEY, n int NOT NULL DEFAULT 0); \
         INSERT INTO t (id) SELECT generate_series(1, 100)",
    );
    dir.write(
        "tx.sql",
        "\\set id random(1, 100)\nUPDATE t SET n = n + 1 WHERE id = :id;\n",
    );
}

fn probe<'a>(step: &'a Value, name: &str) -> &'a Value {
    step["probes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["probe"] == name)
        .unwrap_or_else(|| panic!("no {name} probe: {step}"))
}

/// A scenario's phase of a pgbench script (`url = "postgres://…"`, `script = …`
/// beside the scenario, prepared) after `before_sql = "CHECKPOINT"`, read with
/// `--probe postgres`: the probe's deltas are what the run did — as many commits and
/// updated rows as the counters went up — and hakaru counted each of those
/// transactions but the ones cut off at the end.
#[test]
fn a_script_phase_and_probe_postgres_count_what_the_run_did() {
    let Some(pg) = Postgres::start(&["autovacuum=off"]) else {
        return;
    };
    let dir = TempDir::new("sql-script");
    counters(&pg, &dir);
    let s = dir.write(
        "s.toml",
        &format!(
            "[[phase]]\nname = \"counters\"\nduration = \"2s\"\nclients = 3\n\
             before_sql = \"CHECKPOINT\"\n\
             [[phase.workload]]\nurl = \"{}\"\nscript = \"tx.sql\"\nmode = \"prepared\"\n",
            pg.url("bench")
        ),
    );
    let out = dir.path("r.csv");
    let o = run(&[
        "suite",
        s.to_str().unwrap(),
        "--probe",
        "postgres",
        "-o",
        out.to_str().unwrap(),
    ]);
    let text = ok(&o);
    assert!(text.contains("Probes"), "{text}");
    assert!(!text.contains(PASSWORD) && !stderr(&o).contains(PASSWORD));
    let r = read_json(&out.with_extension("json"));
    let step = &r["steps"][0];
    assert_eq!(step["before_step"]["ok"], true, "{step}");
    assert_eq!(step["before_step"]["command"], "SQL: CHECKPOINT", "{step}");
    assert_eq!(step["errors"], serde_json::json!({}), "{step}");
    let done = step["total_requests"].as_u64().unwrap();
    let unfinished = step["unfinished"].as_u64().unwrap_or(0);
    let sum: u64 = pg.psql("bench", "SELECT sum(n) FROM t").parse().unwrap();
    within("transactions", done, sum, unfinished, step);
    let p = probe(step, "postgres");
    assert_eq!(
        p["target"],
        format!("postgres://127.0.0.1:{}/bench", pg.port)
    );
    assert!(p["error"].is_null(), "{p}");
    let d = &p["delta"];
    // Every commit of the phase is one of the script's transactions, or one of
    // the 3 clients' logins (PostgreSQL counts a backend's start as a commit).
    assert_eq!(d["commits"].as_f64().unwrap() as u64, sum + 3, "{p}");
    assert_eq!(d["tup_updated"].as_f64().unwrap() as u64, sum, "{p}");
    assert_eq!(d["rollbacks"].as_f64().unwrap(), 0.0, "{p}");
    assert_eq!(d["deadlocks"].as_f64().unwrap(), 0.0, "{p}");
    assert!(d["blks_hit"].as_f64().unwrap() > 0.0, "{p}");
    assert!(p["cache_hit_rate"].as_f64().is_some(), "{p}");
    // Nothing to probe is refused before any load.
    let plain = dir.write(
        "plain.toml",
        "[[phase]]\nname = \"p\"\nduration = \"1s\"\nclients = 1\n\
         [[phase.workload]]\nurl = \"http://127.0.0.1:1/\"\n",
    );
    let o = run(&["suite", plain.to_str().unwrap(), "--probe", "postgres"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("no postgres:// target"),
        "{}",
        stderr(&o)
    );
}

/// Two scripts of one phase on one server in different `-M` modes, then a phase on a
/// second database of that server: the mix shared targets by their label
/// (`postgres://host:port`), so the prepared script went out in the simple one's
/// mode (SQLSTATE 42P02, "there is no parameter $1", 3 transactions in 4 failed) and
/// the second database's phase ran on the first's.
#[test]
fn sql_workloads_on_one_server_keep_their_own_mode_and_database() {
    let Some(pg) = Postgres::start(&["autovacuum=off"]) else {
        return;
    };
    let dir = TempDir::new("sql-two-modes");
    counters(&pg, &dir);
    pg.psql("postgres", "CREATE DATABASE other");
    pg.psql(
        "other",
        "CREATE TABLE t (id int PRIMARY KEY, n int NOT NULL DEFAULT 0); \
         INSERT INTO t (id) SELECT generate_series(1, 100)",
    );
    dir.write(
        "ro.sql",
        "\\set id random(1, 100)\nSELECT n FROM t WHERE id = :id;\n",
    );
    let (bench, other) = (pg.url("bench"), pg.url("other"));
    let s = dir.write(
        "s.toml",
        &format!(
            "[[phase]]\nname = \"modes\"\nduration = \"1s\"\nclients = 2\n\
             [[phase.workload]]\nurl = \"{bench}\"\nscript = \"tx.sql\"\n\
             [[phase.workload]]\nurl = \"{bench}\"\nscript = \"ro.sql\"\nmode = \"prepared\"\nweight = 3\n\
             [[phase]]\nname = \"other\"\nduration = \"1s\"\nclients = 2\n\
             [[phase.workload]]\nurl = \"{other}\"\nscript = \"tx.sql\"\nmode = \"extended\"\n"
        ),
    );
    let out = dir.path("r.csv");
    ok(&run(&[
        "suite",
        s.to_str().unwrap(),
        "-q",
        "-o",
        out.to_str().unwrap(),
    ]));
    let r = read_json(&out.with_extension("json"));
    for step in r["steps"].as_array().unwrap() {
        assert_eq!(step["errors"], serde_json::json!({}), "{step}");
        assert!(step["total_requests"].as_u64().unwrap() > 0, "{step}");
    }
    let sum = |db: &str| -> u64 { pg.psql(db, "SELECT sum(n) FROM t").parse().unwrap() };
    let done = |i: usize| r["steps"][i]["total_requests"].as_u64().unwrap();
    // The first phase's updates are a quarter of its transactions, all in bench;
    // the second phase's all in other.
    assert!(
        sum("bench") < done(0),
        "bench {} of {}",
        sum("bench"),
        done(0)
    );
    let unfinished = r["steps"][1]["unfinished"].as_u64().unwrap_or(0);
    let other = sum("other");
    within(
        "other's transactions",
        done(1),
        other,
        unfinished,
        &r["steps"][1],
    );
}

/// A phase's `start_s` is where its clock started, which its timeline's seconds
/// count from: with `--probe postgres` it was noted before the probe's reading (a
/// second or more) and the logins, so every phase's seconds — and the events'
/// places among them, their baselines and recovery times — sat that much early.
#[test]
fn a_phase_starts_where_its_clock_started_after_the_probe_s_reading() {
    let Some(pg) = Postgres::start(&["autovacuum=off"]) else {
        return;
    };
    let dir = TempDir::new("sql-probe-start");
    counters(&pg, &dir);
    let phase = |name: &str| {
        format!(
            "[[phase]]\nname = \"{name}\"\nduration = \"1s\"\nclients = 2\n\
             [[phase.workload]]\nurl = \"{}\"\nscript = \"tx.sql\"\n",
            pg.url("bench")
        )
    };
    let s = dir.write("s.toml", &(phase("one") + &phase("two")));
    let r = suite_probed(&dir, &s, "postgres");
    let at = |v: &Value| {
        let t = v.as_str().unwrap();
        let secs: f64 = t[17..t.len() - 1].parse().unwrap();
        let (h, m): (f64, f64) = (t[11..13].parse().unwrap(), t[14..16].parse().unwrap());
        h * 3600.0 + m * 60.0 + secs
    };
    let run_start = at(&r["started_at"]);
    for (i, p) in r["suite"]["phases"].as_array().unwrap().iter().enumerate() {
        let clock = at(&r["steps"][i]["started_at"]) - run_start;
        let start = p["start_s"].as_f64().unwrap();
        // The run's `started_at` comes a moment before the scenario's clock.
        assert!(
            (start - clock).abs() < 0.25,
            "phase {i} noted at {start} s, its clock started at {clock} s: {p}"
        );
        assert!(start >= 1.0, "after the first probe reading: {p}");
    }
}

/// A SQL phase whose login cannot work — no password, a port nothing listens on, a
/// database not there — is the scenario's error before any load (exit 2, naming
/// the file, the phase and the workload), where the suite used to run the phase out
/// as nothing but failed logins (exit 1, hundreds of `reply_noauth` a second).
#[test]
fn a_sql_phase_that_cannot_log_in_is_refused_before_any_load() {
    let Some(pg) = Postgres::start(&[]) else {
        return;
    };
    let dir = TempDir::new("sql-login-first");
    counters(&pg, &dir);
    let no_password = pg.url("bench").replace(&format!(":{PASSWORD}@"), "@");
    let refused = format!("postgres://{USER}:{PASSWORD}@127.0.0.1:1/bench");
    let no_db = pg.url("nothere");
    for (url, why) in [
        (no_password.as_str(), "password"),
        (refused.as_str(), "127.0.0.1:1"),
        (no_db.as_str(), "nothere"),
    ] {
        let s = dir.write(
            "s.toml",
            &format!(
                "[[phase]]\nname = \"first\"\nduration = \"30s\"\nclients = 2\n\
                 [[phase.workload]]\nurl = \"{url}\"\nscript = \"tx.sql\"\n"
            ),
        );
        let started = Instant::now();
        let o = hakaru()
            .args(["suite", s.to_str().unwrap(), "-q"])
            .env_remove("PGPASSWORD")
            .output()
            .unwrap();
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{url}: {e}");
        assert!(
            e.contains("s.toml: phase \"first\", workload 1")
                && e.contains("cannot log in before the first phase")
                && e.contains(why),
            "{url}: {e}"
        );
        assert!(!e.contains(PASSWORD), "{e}");
        assert!(started.elapsed() < Duration::from_secs(20), "{url}: {e}");
    }
    let sum: u64 = pg.psql("bench", "SELECT sum(n) FROM t").parse().unwrap();
    assert_eq!(sum, 0);
    // A phase's `before` may start the server: its databases are not asked first.
    let s = dir.write(
        "s.toml",
        &format!(
            "[[phase]]\nname = \"first\"\nduration = \"1s\"\nclients = 1\n\
             before = \"true\"\n\
             [[phase.workload]]\nurl = \"{refused}\"\nscript = \"tx.sql\"\n"
        ),
    );
    let o = run(&["suite", s.to_str().unwrap(), "-q"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("connect"), "{}", stderr(&o));
}

/// A scenario in a directory whose name holds an `@` (`/home/a@b/`): its script's
/// path was handed on as `-f FILE[@WEIGHT]`, and refused as a bad weight
/// ("invalid weight specification: \"…/a@b/tx.sql\""); the part's weight is its
/// `weight` key.
#[test]
fn a_script_beside_a_scenario_in_a_directory_with_an_at_sign_runs() {
    let Some(pg) = Postgres::start(&["autovacuum=off"]) else {
        return;
    };
    let dir = TempDir::new("sql-at-sign");
    counters(&pg, &dir);
    std::fs::create_dir_all(dir.path("a@b")).unwrap();
    std::fs::copy(dir.path("tx.sql"), dir.path("a@b/tx.sql")).unwrap();
    let s = dir.write(
        "a@b/s.toml",
        &format!(
            "[[phase]]\nname = \"p\"\nduration = \"1s\"\nclients = 1\n\
             [[phase.workload]]\nurl = \"{}\"\nscript = \"tx.sql\"\nweight = 3\n",
            pg.url("bench")
        ),
    );
    let out = dir.path("r.csv");
    ok(&run(&[
        "suite",
        s.to_str().unwrap(),
        "-q",
        "-o",
        out.to_str().unwrap(),
    ]));
    let r = read_json(&out.with_extension("json"));
    let step = &r["steps"][0];
    assert_eq!(step["errors"], serde_json::json!({}), "{step}");
    assert!(step["total_requests"].as_u64().unwrap() > 0, "{step}");
}

/// A script's error names its file, line and column, before any load: the server
/// never sees a transaction.
#[test]
fn a_script_phase_s_error_is_named_before_any_load() {
    let Some(pg) = Postgres::start(&[]) else {
        return;
    };
    let dir = TempDir::new("sql-script-bad");
    counters(&pg, &dir);
    dir.write(
        "bad.sql",
        "\\set id random(1, 100\nUPDATE t SET n = n + 1;\n",
    );
    let s = dir.write(
        "s.toml",
        &format!(
            "[[phase]]\nname = \"bad\"\nduration = \"2s\"\nclients = 1\n\
             [[phase.workload]]\nurl = \"{}\"\nscript = \"bad.sql\"\n",
            pg.url("bench")
        ),
    );
    let o = run(&["suite", s.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(
        e.contains("bad.sql:1:") && e.contains("phase \"bad\""),
        "{e}"
    );
    let sum: u64 = pg.psql("bench", "SELECT sum(n) FROM t").parse().unwrap();
    assert_eq!(sum, 0);
}

/// PostgreSQL shut down mid-suite by scenario events — immediately (SIGQUIT to the
/// postmaster, what `pg_ctl stop -m immediate` sends), then fast (SIGINT, `-m
/// fast`) — and started again each time by the test as a supervisor would: the
/// failures are counted by kind (resets, refused connections, logins refused while
/// it recovers (57P03); the fast shutdown's FATAL 57P01 that arrives with the
/// connection's close), never as `other`; the recovery after
/// each event is measured, and the suite ends on time. Judged with a 20 ms p99
/// floor, as the MariaDB crash is: on a loaded test machine a restarted server's
/// p99 stayed over 1.5× a 6.6 ms baseline for 7 of the 8 seconds left.
#[test]
fn an_immediate_restart_mid_suite_is_counted_by_kind_and_recovered_from() {
    let Some(mut pg) = Postgres::start(&[]) else {
        return;
    };
    let dir = TempDir::new("sql-restart");
    counters(&pg, &dir);
    let s = dir.write(
        "s.toml",
        &format!(
            "timeout = \"2s\"\n[targets.db]\npid_file = \"{}\"\n\
             [recovery]\nbaseline = \"3s\"\nhold = \"2s\"\np99_floor = \"20ms\"\n\
             [[phase]]\nname = \"steady\"\nduration = \"20s\"\nrate = 200\nclients = 8\n\
             [[phase.workload]]\nurl = \"{}\"\nscript = \"tx.sql\"\nmode = \"prepared\"\n\
             [[event]]\nname = \"immediate shutdown\"\nat = \"4s\"\nrun = \"kill -QUIT {{pid:db}}\"\n\
             [[event]]\nname = \"fast shutdown\"\nat = \"12s\"\nrun = \"kill -INT {{pid:db}}\"\n",
            pg.pid_file().display(),
            pg.url("bench")
        ),
    );
    let out = dir.path("r.csv");
    let started = Instant::now();
    let child = hakaru()
        .args([
            "suite",
            s.to_str().unwrap(),
            "-q",
            "-o",
            out.to_str().unwrap(),
        ])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // The supervisor: the postmaster exits at each event; start it again.
    pg.restart_after_exit(Duration::from_secs(15));
    pg.restart_after_exit(Duration::from_secs(15));
    let o = child.wait_with_output().unwrap();
    let took = started.elapsed();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(took < Duration::from_secs(40), "the suite took {took:?}");
    let r = read_json(&out.with_extension("json"));
    assert_eq!(r["state"], "complete", "{}", r["state"]);
    let step = &r["steps"][0];
    let errors = step["errors"].as_object().unwrap();
    assert!(!errors.is_empty(), "no failure counted: {step}");
    let kinds: Vec<&str> = errors.keys().map(String::as_str).collect();
    // Logins refused while the server recovers are 57P03's own kind (issue 33
    // item 5: they were `reply_noauth`).
    let known = [
        "connect",
        "reset",
        "sql_admin_shutdown",
        "sql_cannot_connect_now",
        "timeout",
    ];
    assert!(kinds.iter().all(|k| known.contains(k)), "{kinds:?}");
    assert!(
        kinds.iter().any(|k| ["reset", "connect"].contains(k)),
        "{kinds:?}"
    );
    assert!(!kinds.contains(&"other"), "{kinds:?}");
    for ev in r["suite"]["events"].as_array().unwrap() {
        assert_eq!(ev["ok"], true, "{ev}");
        let rec = &ev["recovery"];
        assert!(rec["recovery_s"].as_f64().is_some(), "not recovered: {ev}");
        eprintln!("{}: recovery {}", ev["name"], rec["recovery_s"]);
    }
    eprintln!("errors {errors:?}");
    // After the restart the counters went on: transactions committed after it.
    let sum: u64 = pg.psql("bench", "SELECT sum(n) FROM t").parse().unwrap();
    assert!(sum > 0);
}

/// Issue 33 item 5: `pg_ctl restart -m fast` mid-run (SIGINT to the postmaster,
/// then the server started again on its data, as `pg_ctl` would): each backend
/// sends FATAL 57P01 before it closes, and each client's transaction in flight is
/// counted `sql_admin_shutdown`, not `reset` (as it was: the close follows the
/// FATAL at once); the
/// logins refused while the server shuts down or starts up (57P03) are
/// `sql_cannot_connect_now`, not `reply_noauth`.
#[test]
fn a_fast_restart_mid_run_is_admin_shutdown_then_cannot_connect_now() {
    let Some(mut pg) = Postgres::start(&[]) else {
        return;
    };
    let dir = TempDir::new("sql-fast-restart");
    counters(&pg, &dir);
    // Mid-statement most of the time, so the shutdown finds each client waiting.
    let tx = dir.write("slow.sql", "SELECT pg_sleep(0.02);\n");
    let out = dir.path("r.csv");
    let child = hakaru()
        .args(["run", "-c", "4", "-d", "8s", "--timeout", "2s", "-q", "-f"])
        .arg(&tx)
        .args(["-o", out.to_str().unwrap(), &pg.url("bench")])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_secs(2));
    let pid = std::fs::read_to_string(pg.pid_file()).unwrap();
    let pid = pid.lines().next().unwrap().trim().to_string();
    let kill = std::process::Command::new("kill")
        .args(["-INT", &pid])
        .status()
        .unwrap();
    assert!(kill.success());
    pg.restart_after_exit(Duration::from_secs(15));
    let o = child.wait_with_output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let r = read_json(&out.with_extension("json"));
    let step = &r["steps"][0];
    let errors = step["errors"].as_object().unwrap();
    eprintln!("errors {errors:?}");
    let n = |k: &str| errors.get(k).and_then(Value::as_u64).unwrap_or(0);
    assert_eq!(n("sql_admin_shutdown"), 4, "one per client: {errors:?}");
    assert_eq!(n("reply_noauth"), 0, "{errors:?}");
    // A login the closing postmaster cut without a word is a reset (seen: 0 to 3).
    let kinds: Vec<&str> = errors.keys().map(String::as_str).collect();
    let known = [
        "connect",
        "reset",
        "sql_admin_shutdown",
        "sql_cannot_connect_now",
    ];
    assert!(kinds.iter().all(|k| known.contains(k)), "{kinds:?}");
    let samples = step["error_samples"].to_string();
    assert!(samples.contains("57P01"), "{samples}");
    // After the restart the run went on.
    assert!(step["responses"].as_u64().unwrap() > 0, "{step}");
}

/// YCSB over MariaDB on the same JDBC table: the load's rows exactly, and the
/// operations as MariaDB counts its statements (`Com_select`, `Com_update`,
/// `Com_insert`, exact for prepared statements too): workload A's reads and
/// updates, E's scans (`LIMIT ?`) and inserts, F's read-modify-writes in one
/// `START TRANSACTION … COMMIT`.
#[test]
fn ycsb_over_mariadb_counts_what_the_server_counts() {
    let Some(db) = crate::mysql::Mariadb::start() else {
        return;
    };
    let records = 300;
    for w in ["a", "e", "f"] {
        let name = format!("ycsb-{w}");
        db.sql("DROP TABLE IF EXISTS bench.usertable");
        let status = |n: &str| db.status(n);
        let before = [
            status("Com_select"),
            status("Com_update"),
            status("Com_insert"),
        ];
        let commits0 = status("Com_commit");
        let dir = TempDir::new(&name);
        let s = ycsb_scenario(&dir, &name, &db.url(), records);
        let r = suite_probed(&dir, &s, "mysql");
        let (load, step) = (&r["steps"][0], &r["steps"][1]);
        assert_eq!(op(&ops(load), "insert"), records, "{name}: {load}");
        assert_eq!(load["errors"], serde_json::json!({}), "{name}: {load}");
        // --probe mysql: the load's phase saw its 3 INSERTs, the run's its statements.
        let (pl, pr) = (probe(load, "mysql"), probe(step, "mysql"));
        assert_eq!(pl["delta"]["Com_insert"], 3.0, "{pl}");
        assert_eq!(pl["target"], format!("mysql://127.0.0.1:{}/bench", db.port));
        assert_eq!(step["errors"], serde_json::json!({}), "{name}: {step}");
        let o = ops(step);
        let unfinished = step["unfinished"].as_u64().unwrap_or(0);
        let [sel, upd, ins] = [
            status("Com_select") - before[0],
            status("Com_update") - before[1],
            status("Com_insert") - before[2],
        ];
        let rmw = op(&o, "read-modify-write");
        within(
            &format!("{name} selects"),
            op(&o, "read") + op(&o, "scan") + rmw,
            sel,
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
        // The load's 3 statements of 100 rows, then one a mix's insert.
        within(
            &format!("{name} inserts"),
            3 + op(&o, "insert"),
            ins,
            unfinished,
            step,
        );
        within(
            &format!("{name} commits"),
            rmw,
            status("Com_commit") - commits0,
            unfinished,
            step,
        );
        let d = |k: &str| pr["delta"][k].as_f64().unwrap_or(-1.0) as u64;
        assert_eq!(d("Com_update"), upd, "{pr}");
        assert_eq!(d("Com_select"), sel, "{pr}");
        assert_eq!(d("Com_insert"), ins - 3, "{pr}");
        assert!(pr["cache_hit_rate"].as_f64().is_some(), "{pr}");
        let rows: u64 = db
            .sql("SELECT count(*) FROM bench.usertable")
            .parse()
            .unwrap();
        assert_eq!(rows, records + ins - 3, "{name}");
        eprintln!("{name}: {o:?}; Com_select {sel} Com_update {upd} Com_insert {ins}");
    }
}
