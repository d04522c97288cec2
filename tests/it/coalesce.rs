//! `--coalesce`: a worker that sleeps before it waits for its sockets, so that one
//! wake-up reads many answers, still records each answer's end when the kernel
//! received it, over HTTP/1.1 and h2c against the embedded target; and the targets
//! whose reads are not stamped (https, key-value stores) are refused before any load.

use hakaru::server::basic::start_basic;
use hakaru::server::listen::ServerOptions;

use crate::util::*;

fn coalesced_run(http2: bool) {
    let server = start_basic(
        "127.0.0.1:0".parse().unwrap(),
        ServerOptions {
            threads: 1,
            keep_alive: true,
            http2,
        },
    )
    .expect("the embedded target starts");
    let dir = TempDir::new("coalesce");
    let json = dir.path("r.json");
    let url = format!("http://{}/", server.addr);
    let mut args = vec![
        "run",
        "-c",
        "1",
        "-d",
        "2",
        "--threads",
        "1",
        "--coalesce",
        "1ms",
    ];
    if http2 {
        args.push("--http2");
    }
    args.extend(["-o", json.to_str().unwrap(), &url]);
    let out = ok(&run(&args));
    assert!(out.contains("Coalesce:"), "{out}");
    let v = read_json(&json);
    assert_eq!(v["settings"]["coalesce_us"], 1000, "{}", v["settings"]);
    let s = &v["steps"][0];
    let responses = s["responses"].as_f64().unwrap();
    let p50 = s["latency"]["p50_s"].as_f64().unwrap();
    // Four clients on one worker, so every answer waited for the worker's 1 ms
    // sleep: each client's cycle is about a millisecond (the target alone answers
    // in ~0.1 ms)...
    let cycle = 2.0 * 4.0 / responses;
    assert!(
        cycle > 0.0008,
        "the worker did not sleep: {responses} responses in 2 s"
    );
    // ...while the latency recorded is the target's, from the kernel's receive time
    // (the bug this pins: the end taken when the worker woke, ~1 ms for every answer).
    assert!(
        p50 < 0.0006,
        "p50 {p50} s includes the worker's sleep (cycle {cycle} s): {s}"
    );
    assert_eq!(s["errors"].as_object().map_or(0, |e| e.len()), 0, "{s}");
}

#[test]
fn coalesced_answers_end_when_the_kernel_received_them_over_http1() {
    coalesced_run(false);
}

#[test]
fn coalesced_answers_end_when_the_kernel_received_them_over_h2c() {
    coalesced_run(true);
}

/// One request in flight has nothing to gather: the worker does not sleep, and one
/// client runs at its usual pace (a 1 ms window had cut it to ~900 requests/s).
#[test]
fn one_client_is_not_held_back_by_coalesce() {
    let server = target();
    let dir = TempDir::new("coalesce-one");
    let json = dir.path("r.json");
    let url = format!("http://{}/", server.addr);
    ok(&run(&[
        "run",
        "-c",
        "1",
        "-d",
        "1",
        "--threads",
        "1",
        "--coalesce",
        "1ms",
        "-o",
        json.to_str().unwrap(),
        &url,
    ]));
    let responses = read_json(&json)["steps"][0]["responses"].as_f64().unwrap();
    // A 1 ms sleep a request caps one client under 1,000 a second; a debug build
    // runs ~3,400 here.
    assert!(responses > 1200.0, "{responses} responses in 1 s");
}

#[test]
fn coalesce_is_refused_where_reads_are_not_stamped_or_too_long() {
    for (url, extra, says) in [
        ("https://127.0.0.1:9/", "1ms", "https://"),
        ("redis://127.0.0.1:9/", "1ms", "key-value store"),
        ("http://127.0.0.1:9/", "2ms", "at most 1000 µs"),
        ("http://127.0.0.1:9/", "0", "more than 0"),
    ] {
        let o = run(&["run", "-d", "1", "--coalesce", extra, url]);
        assert_eq!(o.status.code(), Some(2), "{url} {extra}: {}", stderr(&o));
        assert!(stderr(&o).contains(says), "{url} {extra}: {}", stderr(&o));
    }
}
