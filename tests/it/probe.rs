//! Probes, rounds and warm-up against the embedded target.

use crate::util::*;

#[test]
fn url_probe_sees_exactly_the_step_requests() {
    let t = target();
    let dir = TempDir::new("probe");
    let json = dir.path("r.json");
    let out = ok(&run(&[
        "run",
        "-c",
        "2",
        "-n",
        "300",
        "--probe",
        "url=/stats,pointer=/requests,name=served",
        "--probe",
        "url=/nope,pointer=/x",
        "--probe-pid",
        &std::process::id().to_string(),
        &format!("http://{}/", t.addr),
        "-o",
        json.to_str().unwrap(),
    ]));
    let v = read_json(&json);
    let probes = v["steps"][0]["probes"].as_array().unwrap();
    // Between the two readings the server answered the 300 requests and the two
    // "before" probe requests that followed the first reading (/stats, /nope).
    assert_eq!(probes[0]["delta"]["served"], 302.0, "{}", probes[0]);
    assert!(
        probes[1]["error"].as_str().unwrap().contains("404"),
        "{}",
        probes[1]
    );
    let sp = &v["steps"][0]["server_process"];
    assert_eq!(sp["pid"], std::process::id());
    assert!(sp["rss_max_bytes"].as_u64().unwrap() > 0, "{sp}");
    assert!(out.contains("Probe served"), "{out}");
    assert!(out.contains("no numbers"), "{out}");
}

/// `--probe redis` asks INFO over plain TCP without AUTH: against a rediss:// port or
/// a password-protected Redis every reading failed, step after step, after the load
/// had started. Both are refused before any load, the password never printed. The
/// port is one nothing listens on: a refusal that came late would be a connect error.
#[test]
fn a_redis_probe_it_cannot_read_is_refused_before_load() {
    let port = crate::util::free_port();
    for (url, says) in [
        (format!("rediss://127.0.0.1:{port}"), "rediss:// speaks TLS"),
        (
            format!("redis://:s3cretpw@127.0.0.1:{port}/2"),
            "sends no AUTH",
        ),
    ] {
        let out = run(&["run", "-n", "10", "--probe", "redis", &url]);
        let e = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{url}: {e}");
        assert!(e.contains("--probe redis") && e.contains(says), "{e}");
        assert!(!e.contains("s3cretpw"), "{e}");
    }
}

#[test]
fn missing_pid_is_refused_before_load() {
    let out = run(&["run", "--probe-pid", "4294967294", "http://127.0.0.1:1/"]);
    assert_eq!(out.status.code(), Some(2), "bad input");
    assert!(stderr(&out).contains("no such process"), "{}", stderr(&out));
}

#[test]
fn rounds_repeat_every_step_after_an_uncounted_warmup() {
    let t = target();
    let dir = TempDir::new("rounds");
    let csv = dir.path("r.csv");
    let out = run(&[
        "ramp",
        "--end-n-clients=2",
        "--step=1",
        "--start-n-clients=1",
        "--duration=0.2",
        "--interval=0",
        "--rounds=2",
        "--warmup=0.2",
        &format!("http://{}/", t.addr),
        &format!("--output-path={}", csv.display()),
    ]);
    ok(&out);
    assert!(stderr(&out).contains("Warm-up"), "{}", stderr(&out));
    let (h, rows) = read_csv(&csv);
    let rounds: Vec<f64> = rows.iter().map(|r| col(&h, r, "round")).collect();
    assert_eq!(rounds, vec![1.0, 1.0, 2.0, 2.0]);
    let v = read_json(&dir.path("r.json"));
    assert_eq!(v["settings"]["rounds"], 2);
    assert_eq!(v["settings"]["warmup_s"], 0.2);
    // The warm-up's requests are in no step: the server saw more than the steps counted.
    let counted: u64 = v["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["total_requests"].as_u64().unwrap())
        .sum();
    assert!(t.stats.requests() > counted);
    assert!(stdout(&out).contains("Round"), "{}", stdout(&out));
}
