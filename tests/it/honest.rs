//! Failures that used to pass as successes (issue 19, item 1): each exits 1 with a
//! sentence that says what went wrong, or a warning that stands out.

use crate::util::{hakaru_serve, run, stderr, stdout};

/// Regression: `hakaru run URL/status/500` said "Failed requests: 0" and exited 0.
#[test]
fn every_response_a_500_is_a_failed_run() {
    let server = hakaru_serve(&[], "all-500");
    let url = format!("http://127.0.0.1:{}/status/500", server.port);
    let o = run(&["run", "-c", "2", "-n", "200", &url]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("nothing succeeded: every response was a failure status (200 × 500)"),
        "{}",
        stderr(&o)
    );
    let out = stdout(&o);
    assert!(
        out.contains("Non-2xx responses:      200 (500: 200)"),
        "{out}"
    );
    assert!(
        out.contains("Warning: 200 of 200 responses (100%) were not a success"),
        "{out}"
    );
}

/// Regression: `bulk` into a database that does not exist got a 404 for every batch,
/// acknowledged nothing, and exited 0 without a hint.
#[test]
fn bulk_into_a_missing_database_is_a_failed_run_with_a_hint() {
    let server = hakaru_serve(&["--docs"], "no-db");
    let url = format!("http://127.0.0.1:{}/nodb", server.port);
    let o = run(&[
        "bulk",
        &url,
        "--batch-sizes",
        "10",
        "--writers",
        "1",
        "-n",
        "50",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("nothing was acknowledged"), "{err}");
    assert!(err.contains("create the database first"), "{err}");
}

/// Regression: `run -c 4 --rate 2000 URL/delay/5` dropped two thirds of the requests
/// due and said nothing.
#[test]
fn an_open_model_run_that_drops_requests_says_raise_c() {
    let server = hakaru_serve(&[], "drops");
    let url = format!("http://127.0.0.1:{}/delay/20", server.port);
    let o = run(&["run", "-c", "2", "--rate", "500", "-d", "1s", &url]);
    let out = stdout(&o);
    assert!(out.contains("were never sent"), "{out}");
    assert!(out.contains("raise -c"), "{out}");
}
