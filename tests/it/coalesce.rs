//! `--coalesce`: a worker that sleeps before it waits for its sockets, so that one
//! wake-up reads many answers, pauses only where answers gather and never holds a
//! fast target's load back, over HTTP/1.1 and h2c against the embedded target; and the
//! targets whose reads are not stamped (https, key-value stores) are refused before
//! any load.

use hakaru::server::basic::start_basic;
use hakaru::server::listen::{RunningServer, ServerOptions};

use crate::util::*;

/// One run of `-d 2` on one worker, with a 1 ms window or without; the result and
/// the text.
fn one_run(url: &str, clients: &str, http2: bool, coalesce: bool) -> (serde_json::Value, String) {
    let dir = TempDir::new("coalesce");
    let json = dir.path("r.json");
    let mut args = vec!["run", "-c", clients, "-d", "2", "--threads", "1"];
    if coalesce {
        args.extend(["--coalesce", "1ms"]);
    }
    if http2 {
        args.extend(["--http2", "--streams", clients]);
    }
    args.extend(["-o", json.to_str().unwrap(), url]);
    let out = ok(&run(&args));
    (read_json(&json), out)
}

fn responses(v: &serde_json::Value) -> f64 {
    v["steps"][0]["responses"].as_f64().unwrap()
}

fn embedded(http2: bool) -> RunningServer {
    start_basic(
        "127.0.0.1:0".parse().unwrap(),
        ServerOptions {
            threads: 1,
            keep_alive: true,
            http2,
        },
    )
    .expect("the embedded target starts")
}

/// Issue 32: `--threads 1 -c 2 --coalesce 500us` against the embedded target kept
/// 0.11x of the throughput it had without the flag (and ten streams on one HTTP/2
/// connection 0.3x of h2load's): every answer waited out the window, so the target
/// idled. Two answers of a fast target gather nothing in a tenth of their time: the
/// worker does not pause, and says so.
fn coalesce_keeps_a_fast_target_s_load(http2: bool, clients: &str) {
    let server = embedded(http2);
    let url = format!("http://{}/", server.addr);
    // Twice each way, interleaved, the best of each: a loaded machine's dips hit both.
    let mut with = 0.0f64;
    let mut without = 0.0f64;
    for _ in 0..2 {
        let (v, out) = one_run(&url, clients, http2, true);
        assert_eq!(v["settings"]["coalesce_us"], 1000, "{}", v["settings"]);
        let used = &v["steps"][0]["coalesce"];
        assert_eq!(used["pauses"], 0, "{used}");
        assert!(used["passed"].as_u64().unwrap() > 0, "{used}");
        assert!(out.contains("never paused"), "{out}");
        with = with.max(responses(&v));
        without = without.max(responses(&one_run(&url, clients, http2, false).0));
    }
    // The bug kept 0.11x (0.3x over h2c); a debug build keeps ~1.0x, and 0.8x failed
    // once with four builds beside it, so the bound sits between the two.
    assert!(
        with >= 0.6 * without,
        "{with} responses with --coalesce, {without} without"
    );
}

#[test]
fn coalesce_keeps_two_clients_load_over_http1() {
    coalesce_keeps_a_fast_target_s_load(false, "2");
}

#[test]
fn coalesce_keeps_ten_streams_on_one_connection_load_over_h2c() {
    coalesce_keeps_a_fast_target_s_load(true, "10");
}

/// Where answers are many and slow enough to gather (60 in flight at 20 ms: a 1 ms
/// window expects three), the worker pauses; the answers' latency stays the
/// target's (each answer's end is when the kernel received it, pinned in
/// `http::socket`'s tests), and the load is the target's, not the window's.
#[test]
fn coalesce_pauses_where_answers_gather_and_keeps_their_latency() {
    let server = embedded(false);
    let url = format!("http://{}/delay/20", server.addr);
    let (v, out) = one_run(&url, "60", false, true);
    let s = &v["steps"][0];
    let used = &s["coalesce"];
    assert!(used["pauses"].as_u64().unwrap() > 0, "{used}");
    assert!(out.contains("Coalesced:"), "{out}");
    // The window costs under a tenth of the load: a ratio to the same run without
    // the flag, since a loaded machine slows both (`hakaru serve` apart gave 0.98x).
    let without = responses(&one_run(&url, "60", false, false).0);
    assert!(
        responses(&v) > 0.8 * without,
        "{} with, {without} without: {s}",
        responses(&v)
    );
    // The answers' latency is at least the target's 20 ms. (How close it stays is a
    // timing this machine's load decides: p50 20.13-20.18 ms with the flag, 20.32-20.50
    // without, against `hakaru serve` apart; the stamp itself is pinned in
    // `http::socket`'s tests.)
    let p50 = s["latency"]["p50_s"].as_f64().unwrap();
    assert!(p50 >= 0.020, "p50 {p50} s: {s}");
    let errors = &s["errors"];
    assert_eq!(errors.as_object().map_or(0, |e| e.len()), 0, "{errors}");
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
