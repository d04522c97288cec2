//! MariaDB in a suite through a crash: a scenario event SIGKILLs mariadbd by its PID
//! mid-phase and the test, as a supervisor would, starts it again on the same
//! datadir and port. The failures are counted by kind, the recovery is measured and
//! the suite ends on time. Counts only, never time.

use std::path::Path;
use std::time::{Duration, Instant};

use crate::mysql::Mariadb;
use crate::util::{hakaru, read_json, stderr, TempDir};

/// A scenario of one steady phase of `script` (in `mode`) against `url`, its target
/// `db` known by `pid_file`, and `events` of (name, at, command): the shape of a
/// server-crash-and-restart suite, whatever the database. Recovery is judged with a
/// 20 ms p99 floor: the test asks that the failures stopped and the load went on,
/// while a restarted server's cold caches and a loaded test machine may hold a
/// millisecond p99 back for longer than the phase lasts.
pub fn restart_scenario(
    pid_file: &Path,
    url: &str,
    script: &str,
    mode: &str,
    duration: &str,
    events: &[(&str, &str, &str)],
) -> String {
    let mut s = format!(
        "timeout = \"2s\"\n[targets.db]\npid_file = \"{}\"\n\
         [recovery]\nbaseline = \"3s\"\nhold = \"2s\"\np99_floor = \"20ms\"\n\
         [[phase]]\nname = \"steady\"\nduration = \"{duration}\"\nrate = 200\nclients = 8\n\
         [[phase.workload]]\nurl = \"{url}\"\nscript = \"{script}\"\nmode = \"{mode}\"\n",
        pid_file.display()
    );
    for (name, at, run) in events {
        s += &format!("[[event]]\nname = \"{name}\"\nat = \"{at}\"\nrun = \"{run}\"\n");
    }
    s
}

/// mariadbd SIGKILLed mid-suite (a crash: no shutdown, InnoDB recovers on the next
/// start) and started again on the same datadir: the failures are counted by kind
/// (the connections reset, reconnects refused while it is down), never `other`;
/// the recovery is measured, the suite ends on time, and the counters the phase
/// updated went on after the restart.
#[test]
fn a_kill_9_of_mariadbd_mid_suite_is_counted_by_kind_and_recovered_from() {
    let Some(mut db) = Mariadb::start() else {
        return;
    };
    db.sql(
        "CREATE TABLE bench.t (id INT PRIMARY KEY, n INT NOT NULL DEFAULT 0) ENGINE=InnoDB; \
         INSERT INTO bench.t (id) SELECT seq FROM bench.seq_1_to_100",
    );
    let dir = TempDir::new("mysql-crash");
    dir.write(
        "tx.sql",
        "\\set id random(1, 100)\nUPDATE t SET n = n + 1 WHERE id = :id;\n",
    );
    let s = dir.write(
        "s.toml",
        &restart_scenario(
            &db.pid_file(),
            &db.url(),
            "tx.sql",
            "prepared",
            "20s",
            &[("kill -9", "4s", "kill -KILL {pid:db}")],
        ),
    );
    let out = dir.path("r.csv");
    let started = Instant::now();
    let child = hakaru()
        .args(["suite", s.to_str().unwrap(), "-q", "-o"])
        .arg(&out)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // The supervisor: mariadbd dies at the event; start it again.
    db.restart_after_exit(Duration::from_secs(20));
    let updated_after_restart: u64 = db.sql("SELECT sum(n) FROM bench.t").parse().unwrap();
    let o = child.wait_with_output().unwrap();
    let took = started.elapsed();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(took < Duration::from_secs(40), "the suite took {took:?}");
    let r = read_json(&out.with_extension("json"));
    assert_eq!(r["state"], "complete", "{}", r["state"]);
    let step = &r["steps"][0];
    let errors = step["errors"].as_object().unwrap();
    let kinds: Vec<&str> = errors.keys().map(String::as_str).collect();
    let known = ["connect", "reset", "io", "sql_admin_shutdown", "timeout"];
    assert!(kinds.iter().all(|k| known.contains(k)), "{kinds:?}");
    assert!(kinds.contains(&"reset"), "the crash's resets: {kinds:?}");
    assert!(kinds.contains(&"connect"), "refused while down: {kinds:?}");
    let events = r["suite"]["events"].as_array().unwrap();
    assert_eq!(events.len(), 1, "{events:?}");
    let ev = &events[0];
    assert_eq!(ev["ok"], true, "{ev}");
    let rec = &ev["recovery"];
    assert!(rec["recovery_s"].as_f64().is_some(), "not recovered: {ev}");
    eprintln!("recovery {}; errors {errors:?}", rec["recovery_s"]);
    // Updates committed after the restart: the phase went on on the new server.
    let sum: u64 = db.sql("SELECT sum(n) FROM bench.t").parse().unwrap();
    assert!(
        sum > updated_after_restart,
        "{sum} ≤ {updated_after_restart}"
    );
}
