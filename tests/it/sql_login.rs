//! SQL clients log in before the step's clock starts, as pgbench's and sysbench's
//! do: a real PostgreSQL whose every login waits a second (`pre_auth_delay`, a
//! setting of PostgreSQL itself), so a login inside a transaction's time or the
//! step's cannot hide in the noise.

use crate::pg::{Postgres, PASSWORD, USER};
use crate::util::{hakaru, read_json, TempDir};

/// `hakaru pgbench` with `args` on `pg`, its report and its JSON step.
fn pgbench_step(pg: &Postgres, args: &[&str]) -> (String, serde_json::Value) {
    let dir = TempDir::new("sql-login");
    let script = dir.write("one.sql", "SELECT 1;\n");
    let result = dir.path("r.json");
    let port = pg.port.to_string();
    let out = hakaru()
        .args(["pgbench", "-h", "127.0.0.1", "-p", &port, "-U", USER, "-n"])
        .args([
            "-f",
            script.to_str().unwrap(),
            "-o",
            result.to_str().unwrap(),
        ])
        .args(args)
        .arg("postgres")
        .env("PGPASSWORD", PASSWORD)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{text}\n{err}\n{}", pg.log());
    let step = read_json(&result)["steps"][0].clone();
    (text, step)
}

/// Regression: an open model's first transactions waited for their client's login
/// inside their latency (which runs from the due time), so with slow logins they
/// were late or skipped where pgbench, which connects every client before its
/// schedule starts, has none.
#[test]
fn an_open_model_s_first_transactions_do_not_wait_for_their_logins() {
    let Some(pg) = Postgres::start(&["pre_auth_delay=1"]) else {
        return;
    };
    let (text, step) = pgbench_step(
        &pg,
        &[
            "-c",
            "4",
            "-j",
            "2",
            "-T",
            "2",
            "-R",
            "20",
            "--latency-limit",
            "500",
        ],
    );
    assert!(
        text.contains("number of transactions skipped: 0 "),
        "{text}"
    );
    let max_s = step["latency"]["max_s"].as_f64().unwrap();
    assert!(
        max_s < 0.5,
        "a login inside a transaction: max {max_s} s\n{text}"
    );
    // The logins are reported apart: each one's time, and the wait for them all,
    // which is pgbench's "initial connection time".
    let connect_s = step["connect"]["mean_s"].as_f64().unwrap();
    assert!(connect_s >= 1.0, "{step}");
    let logins_s = step["logins_s"].as_f64().unwrap();
    assert!((1.0..5.0).contains(&logins_s), "{step}");
    let ms: f64 = text
        .lines()
        .find_map(|l| l.strip_prefix("initial connection time = "))
        .and_then(|l| l.strip_suffix(" ms"))
        .unwrap_or_else(|| panic!("{text}"))
        .parse()
        .unwrap();
    assert!((ms - logins_s * 1e3).abs() < 0.01, "{ms} ms\n{text}");
}

/// Regression: a closed step's clock started before its clients' logins, so its
/// first second held a second of logins and its tps (pgbench's "without initial
/// connection time") counted them as lost throughput.
#[test]
fn a_closed_step_s_clock_starts_after_its_logins() {
    let Some(pg) = Postgres::start(&["pre_auth_delay=1"]) else {
        return;
    };
    let (text, step) = pgbench_step(&pg, &["-c", "2", "-j", "2", "-T", "2"]);
    let elapsed = step["elapsed_s"].as_f64().unwrap();
    assert!(
        elapsed < 2.5,
        "the step counts its logins: {elapsed} s\n{text}"
    );
    let first = step["timeline"][0]["responses"].as_u64().unwrap();
    assert!(
        first > 0,
        "a first second of logins, no transaction\n{step}"
    );
}
