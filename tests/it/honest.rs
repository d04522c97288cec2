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

/// `--ok-status`: success was 200..=399 hard-coded in the engine, the summary, the
/// thresholds and the exit code; a 404 that is the right answer failed the run.
#[test]
fn ok_status_says_what_counts_as_success_on_every_command() {
    let server = hakaru_serve(&[], "ok-status");
    let base = format!("http://127.0.0.1:{}", server.port);
    let dir = crate::util::TempDir::new("ok-status");
    let out = dir.path("r.csv");
    let url404 = format!("{base}/status/404");
    let o = run(&[
        "run",
        "-c",
        "1",
        "-n",
        "40",
        "--ok-status",
        "200-299,404",
        "--threshold",
        "errors<=0",
        "-o",
        out.to_str().unwrap(),
        &url404,
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // Only the not-a-success warning: a loaded CI machine rightly adds "hakaru used
    // 97% of 2 cores" to a short debug-build run (that failed this test once).
    assert!(!stdout(&o).contains("were not a success"), "{}", stdout(&o));
    let json = crate::util::read_json(&out.with_extension("json"));
    assert_eq!(json["steps"][0]["ok_status"], "200-299,404");

    // The other way round: a 200 is not a success when only 404 is.
    let url200 = format!("{base}/status/200");
    let o = run(&["run", "-c", "1", "-n", "20", "--ok-status", "404", &url200]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("nothing succeeded"), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("were not a success (success: status 404;"),
        "{}",
        stdout(&o)
    );

    let o = run(&["ab", "-n", "20", "--ok-status", "404", &url404]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = run(&["ab", "-n", "20", &url404]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));

    let o = run(&[
        "ramp",
        "--start-n-clients",
        "1",
        "--end-n-clients",
        "2",
        "--step",
        "1",
        "--duration",
        "300ms",
        "--interval",
        "0",
        "--ok-status",
        "4xx",
        "--threshold",
        "errors<=0",
        "-o",
        dir.path("ramp.csv").to_str().unwrap(),
        &url404,
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

/// A bad `--ok-status` is refused before any load, naming the flag and the code.
#[test]
fn a_bad_ok_status_is_refused_naming_the_flag() {
    let url = "http://127.0.0.1:9/";
    for args in [
        &["run", "--ok-status", "20", url][..],
        &["ab", "--ok-status", "299-200", url][..],
        &["ramp", "--ok-status", "abc", url][..],
        &["bulk", "--ok-status", "20", url][..],
        &["suite", "--profile", "read-heavy", "--ok-status", "20"][..],
    ] {
        let o = run(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        let err = stderr(&o);
        assert!(err.contains("--ok-status"), "{args:?}: {err}");
        assert!(
            err.contains("is not an HTTP status") || err.contains("backwards"),
            "{args:?}: {err}"
        );
    }
}

/// The live counters read `--ok-status` too: the engine's per-second `failed` count
/// (the live line, `--live-out`, `/metrics`) counted 200..=399 whatever the flag said.
#[test]
fn the_live_failure_count_reads_ok_status() {
    let server = hakaru_serve(&[], "ok-status-live");
    let url = format!("http://127.0.0.1:{}/status/404", server.port);
    let failures = |extra: &[&str]| -> Vec<u64> {
        let mut args = vec![
            "run",
            "-c",
            "2",
            "-d",
            "1.5s",
            "--rate",
            "200",
            "--live-out",
            "-",
            "-q",
        ];
        args.extend_from_slice(extra);
        args.push(&url);
        let o = run(&args);
        stdout(&o)
            .lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("NDJSON"))
            .map(|v| v["failures"].as_u64().expect("failures"))
            .collect()
    };
    let ok = failures(&["--ok-status", "404"]);
    assert!(ok.len() >= 2, "a second's line and the step's: {ok:?}");
    assert!(ok.iter().all(|f| *f == 0), "{ok:?}");
    let default = failures(&[]);
    assert!(
        default.iter().all(|f| *f > 0),
        "404s fail by default: {default:?}"
    );
}

/// What a person sees in an 80-column terminal (issue 19: in tmux, `ramp --rate
/// 200,400` left seven copies of its 85-character live line per step). The run goes
/// in a real tmux pane of 80 columns on a private tmux server; the pane is read
/// mid-run and at the end, once as the terminal shows it and once with wrapped lines
/// joined: the two agree only when no line wrapped.
#[test]
fn an_80_column_terminal_shows_no_wrapped_line() {
    use std::process::Command;
    if !crate::util::have("tmux") {
        eprintln!("skipped: tmux is not installed");
        return;
    }
    let t = crate::util::target();
    let socket = format!("hakaru-test-{}", std::process::id());
    let tmux = |args: &[&str]| {
        Command::new("tmux")
            .args(["-L", &socket])
            .args(args)
            .output()
            .expect("tmux runs")
    };
    // The shell runs in the test's own directory: without it the ramp wrote its
    // default hakaru-result.csv/.json into the checkout (where they got committed).
    let dir = crate::util::TempDir::new("tmux-80");
    let cmd = format!(
        "cd {} && {} ramp --rate 200,400 --duration 2s http://{}/; sleep 30",
        dir.0.display(),
        env!("CARGO_BIN_EXE_hakaru"),
        t.addr
    );
    let started = tmux(&["new-session", "-d", "-x", "80", "-y", "40", "-s", "t", &cmd]);
    assert!(started.status.success(), "{started:?}");
    let pane = |joined: bool| {
        let mut a = vec!["capture-pane", "-p", "-t", "t"];
        if joined {
            a.push("-J");
        }
        String::from_utf8_lossy(&tmux(&a).stdout).into_owned()
    };
    // Read every 300 ms through both steps (2 s each) and after the end; at least one
    // read must catch the live line, or the test would check nothing.
    let mut seen = Vec::new();
    for _ in 0..20 {
        std::thread::sleep(std::time::Duration::from_millis(300));
        let (shown, joined) = (pane(false), pane(true));
        // A wrapped line shows as one line of more than 80 columns once joined. The
        // live line must never wrap (it is redrawn in place); the rows a finished step
        // leaves (`rate … errors 0`) still may, and are written once.
        for line in joined.lines().filter(|l| l.chars().count() > 80) {
            assert!(line.starts_with("rate "), "a live line wrapped:\n{shown}");
        }
        seen.push(shown);
    }
    let _ = tmux(&["kill-server"]);
    assert!(
        seen.iter().any(|s| s.contains("  step ")),
        "no read caught the live line:\n{}",
        seen.join("\n----\n")
    );
    let end = seen.last().unwrap();
    assert!(
        end.contains("Requests per second") || end.contains("rate"),
        "{end}"
    );
    // One line per step, not a copy per redraw.
    let rows = end.lines().filter(|l| l.contains("step 1/2")).count();
    assert!(rows <= 1, "{end}");
}
