//! A hostile PostgreSQL-speaking server after a good login (issue 33 item 4): an
//! ErrorResponse in the middle of a result's rows, a server that never sends
//! ReadyForQuery, a connection reset mid-transaction. Each run ends within its
//! duration plus its timeout, each failure counted in its own kind, none a success.
//! (The login's own hostile bytes are `pg::pg_conn_refuses_a_hostile_server_s_bytes_by_kind_without_hanging`.)

use std::io::{Read, Write};
use std::net::TcpListener;
use std::time::{Duration, Instant};

use crate::util::{hakaru, read_json, wait_bounded, TempDir};

/// A backend message: its tag, its length, its body.
fn msg(tag: u8, body: &[u8]) -> Vec<u8> {
    let mut m = vec![tag];
    m.extend_from_slice(&(body.len() as u32 + 4).to_be_bytes());
    m.extend_from_slice(body);
    m
}

/// AuthenticationOk then ReadyForQuery (idle): a trust login.
fn logged_in() -> Vec<u8> {
    [msg(b'R', &0u32.to_be_bytes()), msg(b'Z', b"I")].concat()
}

/// A server that logs every connection in, then answers each message the client
/// sends with `answer`, closing after it when `close`; for at most 15 s.
fn serve(answer: Vec<u8>, close: bool) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        let until = Instant::now() + Duration::from_secs(15);
        while Instant::now() < until {
            let Ok((mut c, _)) = listener.accept() else {
                std::thread::sleep(Duration::from_millis(5));
                continue;
            };
            let answer = answer.clone();
            std::thread::spawn(move || {
                c.set_nonblocking(false).unwrap();
                let _ = c.set_read_timeout(Some(Duration::from_secs(5)));
                let mut buf = [0u8; 4096];
                if !matches!(c.read(&mut buf), Ok(n) if n > 0) || c.write_all(&logged_in()).is_err()
                {
                    return;
                }
                while matches!(c.read(&mut buf), Ok(n) if n > 0) {
                    if c.write_all(&answer).is_err() || close {
                        return;
                    }
                }
            });
        }
    });
    port
}

/// `hakaru run postgres://… -f script -M mode` for 1 s with a 500 ms timeout
/// against the server on `port`: its exit code, how long it took, its step.
fn run_against(port: u16, script: &str, mode: &str) -> (Option<i32>, Duration, serde_json::Value) {
    let dir = TempDir::new("pg-hostile");
    let sql = dir.write("tx.sql", script);
    let json = dir.path("r.json");
    let started = Instant::now();
    let mut child = hakaru()
        .args([
            "run",
            "-c",
            "2",
            "-d",
            "1",
            "--timeout",
            "500ms",
            "-q",
            "-M",
            mode,
            "-f",
        ])
        .arg(&sql)
        .arg("-o")
        .arg(&json)
        .arg(format!("postgres://u@127.0.0.1:{port}/db?sslmode=disable"))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let status = wait_bounded(&mut child, Duration::from_secs(20));
    let took = started.elapsed();
    let step = read_json(&json)["steps"][0].clone();
    (status.and_then(|s| s.code()), took, step)
}

#[test]
fn a_hostile_server_after_login_fails_each_transaction_in_its_own_kind() {
    let row_desc = msg(
        b'T',
        b"\0\x01v\0\0\0\0\0\0\x01\0\0\0\x17\0\x04\xff\xff\xff\xff\0\0",
    );
    let data_row = msg(b'D', b"\0\x01\0\0\0\x011");
    let error = msg(b'E', b"SERROR\0CXX000\0Mboom mid-row\0\0");
    let cases: [(&str, Vec<u8>, bool, &str, &str); 3] = [
        (
            "an ErrorResponse mid-row",
            [row_desc.clone(), data_row.clone(), error, msg(b'Z', b"I")].concat(),
            false,
            "SELECT 1;\n",
            "sql_error",
        ),
        (
            "no ReadyForQuery",
            [row_desc, data_row, msg(b'C', b"SELECT 1\0")].concat(),
            false,
            "SELECT 1;\n",
            "timeout",
        ),
        (
            "a reset mid-transaction",
            [msg(b'C', b"BEGIN\0"), msg(b'Z', b"T")].concat(),
            true,
            "BEGIN;\nSELECT 1;\nCOMMIT;\n",
            "reset",
        ),
    ];
    for (what, answer, close, script, kind) in cases {
        let port = serve(answer, close);
        let (code, took, step) = run_against(port, script, "simple");
        assert_eq!(code, Some(1), "{what}: nothing succeeded: {step}");
        assert!(
            took < Duration::from_secs(6),
            "{what}: ended after {took:?}"
        );
        assert_eq!(step["responses"].as_u64(), Some(0), "{what}: {step}");
        let errors = step["errors"].as_object().cloned().unwrap_or_default();
        assert!(
            errors.get(kind).and_then(|n| n.as_u64()).unwrap_or(0) > 0,
            "{what}: {step}"
        );
        assert_eq!(errors.len(), 1, "{what}: only {kind}: {step}");
    }
}

/// Issue 33: a pipeline's answers from a hostile server. ReadyForQuery after the
/// first of two pipelined statements (statements still owed) is not PostgreSQL's
/// protocol: `malformed`; answers that never reach ReadyForQuery: `timeout`; a
/// FATAL for the first statement, then the close, counts by its SQLSTATE (it was
/// `reset`: the close came while the pipeline's end was read). None hangs, none
/// counts as a success.
#[test]
fn a_hostile_server_mid_pipeline_fails_each_transaction_in_its_own_kind() {
    let done = msg(b'C', b"SELECT 1\0");
    let fatal = msg(
        b'E',
        b"SFATAL\0C57P01\0Mterminating connection due to administrator command\0\0",
    );
    let script = "\\startpipeline\nSELECT 1;\nSELECT 2;\n\\endpipeline\n";
    let cases = [
        (
            "ReadyForQuery owed a statement",
            [done.clone(), msg(b'Z', b"I")].concat(),
            false,
            "malformed",
        ),
        (
            "no ReadyForQuery",
            [done.clone(), done].concat(),
            false,
            "timeout",
        ),
        ("a FATAL, then the close", fatal, true, "sql_admin_shutdown"),
    ];
    for (what, answer, close, kind) in cases {
        let port = serve(answer, close);
        let (code, took, step) = run_against(port, script, "extended");
        assert_eq!(code, Some(1), "{what}: nothing succeeded: {step}");
        assert!(
            took < Duration::from_secs(6),
            "{what}: ended after {took:?}"
        );
        assert_eq!(step["responses"].as_u64(), Some(0), "{what}: {step}");
        let errors = step["errors"].as_object().cloned().unwrap_or_default();
        assert!(
            errors.get(kind).and_then(|n| n.as_u64()).unwrap_or(0) > 0,
            "{what}: {step}"
        );
        assert_eq!(errors.len(), 1, "{what}: only {kind}: {step}");
    }
}

/// A server that accepts every connection and never answers the login (a server
/// stuck in its startup, a proxy with no backend): each login ends at the timeout
/// and counts as its transaction's `timeout`. Regression: a login that timed out
/// before a transaction's clock was counted nowhere, so the run reported nothing
/// failed and nothing unfinished, only that nothing was answered.
#[test]
fn a_server_that_never_finishes_the_login_is_counted_as_timeouts() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        // Held open, never read: at most the test's life.
        let held: Vec<_> = listener.incoming().take(64).collect();
        std::thread::sleep(Duration::from_secs(15));
        drop(held);
    });
    let (code, took, step) = run_against(port, "SELECT 1;\n", "simple");
    assert_eq!(code, Some(1), "nothing succeeded: {step}");
    // The logins before the clock (500 ms), then the 1 s step: within its
    // duration plus its timeout, and a margin for a busy machine.
    assert!(took < Duration::from_secs(5), "ended after {took:?}");
    let errors = step["errors"].as_object().cloned().unwrap_or_default();
    assert!(
        errors.len() == 1 && errors["timeout"].as_u64() >= Some(2),
        "{step}"
    );
    let sample = step["error_samples"]["timeout"]
        .as_str()
        .unwrap_or_default();
    assert!(
        sample.starts_with("no login within the timeout (500 ms)"),
        "{step}"
    );
}
