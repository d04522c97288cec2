//! `hakaru run` against the embedded target: status shares, timeouts, refused ports,
//! keep-alive, the open model, and seed 002's ab-style command.

use crate::util::*;

#[test]
fn ab_style_command_reports_what_ab_reports() {
    let t = target();
    let url = format!("http://{}/", t.addr);
    // Seed 002: ab -c 100 -n 100000 -k (fewer requests here: this is a debug build).
    let out = ok(&run(&["run", "-c", "100", "-n", "5000", "-k", &url]));
    for line in [
        "Keep-alive:",
        "Complete requests:",
        "Failed requests:",
        "Requests per second:",
        "Time per request:",
        "across all concurrent requests",
        "Transfer rate:",
        "Percentage of the requests served within a certain time",
        "99.9%",
        "100%",
    ] {
        assert!(out.contains(line), "missing {line:?} in:\n{out}");
    }
    assert!(out.contains("5000"), "{out}");
    // ab's line, even at 0 (a run of nothing but 404s now exits 1: tests/it/honest.rs).
    assert!(out.contains("Non-2xx responses:      0"), "{out}");
}

#[test]
fn status_shares_are_exact() {
    let t = target();
    let dir = TempDir::new("shares");
    let patterns = dir.write("p.txt", "/\n/status/503\n/status/404\n/\n");
    let csv = dir.path("r.csv");
    ok(&run(&[
        "run",
        "-c",
        "1",
        "-n",
        "400",
        "--order",
        "sequential",
        "--request-patterns-file",
        patterns.to_str().unwrap(),
        "--default-hosts",
        "127.0.0.1",
        "--default-port",
        &t.addr.port().to_string(),
        "-o",
        csv.to_str().unwrap(),
    ]));
    let (h, rows) = read_csv(&csv);
    assert_eq!(
        &h[..6],
        [
            "n_clients",
            "total_n_requests",
            "queries_per_second",
            "min_elapsed_time",
            "max_elapsed_time",
            "average_elapsed_time"
        ]
    );
    assert_eq!(col(&h, &rows[0], "total_n_requests"), 400.0);
    assert_eq!(col(&h, &rows[0], "200"), 50.0);
    assert_eq!(col(&h, &rows[0], "404"), 25.0);
    assert_eq!(col(&h, &rows[0], "503"), 25.0);
    assert_eq!(t.stats.requests(), 400);
}

#[test]
fn timeouts_are_status_zero_and_the_run_goes_on() {
    let _one_at_a_time = crate::util::timed();
    let t = target();
    let dir = TempDir::new("timeouts");
    let csv = dir.path("r.csv");
    let url = format!("http://{}/delay/2000", t.addr);
    let started = std::time::Instant::now();
    answered_nothing(&run(&[
        "run",
        "-c",
        "2",
        "-d",
        "1",
        "--timeout",
        "0.2",
        &url,
        "-o",
        csv.to_str().unwrap(),
    ]));
    // Bounded by duration plus timeout; generous margin for a loaded machine.
    assert!(started.elapsed() < std::time::Duration::from_secs(20));
    let (h, rows) = read_csv(&csv);
    assert_eq!(col(&h, &rows[0], "0"), 100.0);
    assert!(col(&h, &rows[0], "errors_timeout") >= 2.0);
    assert_eq!(col(&h, &rows[0], "queries_per_second"), 0.0);
}

#[test]
fn refused_port_counts_connect_errors() {
    let port = free_port();
    let dir = TempDir::new("refused");
    let json = dir.path("r.json");
    let out = run(&[
        "run",
        "-c",
        "2",
        "-d",
        "0.5",
        &format!("http://127.0.0.1:{port}/"),
        "-o",
        json.to_str().unwrap(),
    ]);
    // Measured, but nothing was answered: a script must not take it for a result.
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("nothing was answered"),
        "{}",
        stderr(&out)
    );
    let v = read_json(&json);
    let step = &v["steps"][0];
    assert!(step["errors"]["connect"].as_u64().unwrap() > 0, "{step}");
    assert_eq!(step["responses"], 0);
    // The OS's reason, in the result and on the terminal.
    let reason = step["error_samples"]["connect"].as_str().unwrap();
    assert!(reason.contains("refused"), "{reason}");
    assert!(stdout(&out).contains("first connect"), "{}", stdout(&out));
    assert!(stderr(&out).contains("refused"), "{}", stderr(&out));
    // Issue 35: a dead port was retried at once, 57,000 connects a second of pure
    // CPU; now with backoff (at most one try per 10 ms a client once it settles).
    let connects = step["errors"]["connect"].as_u64().unwrap();
    assert!(connects < 400, "{connects} connects in 0.5 s by 2 clients");
}

#[test]
fn a_ramp_against_a_dead_port_stops_at_its_first_step() {
    let port = free_port();
    let dir = TempDir::new("dead-ramp");
    let csv = dir.path("r.csv");
    let args = [
        "ramp",
        "--end-n-clients=4",
        "--duration=0.2",
        "--interval=0",
    ];
    let url = format!("http://127.0.0.1:{port}/");
    let out_path = format!("--output-path={}", csv.display());
    let out = run(&[&args[..], &[url.as_str(), out_path.as_str()]].concat());
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("step 1 got no response at all") && err.contains("refused"),
        "{err}"
    );
    let v = read_json(&dir.path("r.json"));
    assert_eq!(v["steps"].as_array().unwrap().len(), 1);
    assert_eq!(v["state"], "failed");
    // --keep-going runs every step; still nothing answered, so still 1.
    let keep = run(&[
        &args[..],
        &[url.as_str(), out_path.as_str(), "--keep-going"],
    ]
    .concat());
    assert_eq!(keep.status.code(), Some(1), "{}", stderr(&keep));
    let v = read_json(&dir.path("r.json"));
    assert_eq!(v["steps"].as_array().unwrap().len(), 4);
    assert_eq!(v["state"], "complete");
}

#[test]
fn keep_alive_on_and_off_show_in_connection_counts() {
    let t = target();
    let url = format!("http://{}/", t.addr);
    let dir = TempDir::new("keepalive");
    let on = dir.path("on.json");
    ok(&run(&[
        "run",
        "-c",
        "4",
        "-n",
        "400",
        "-k",
        &url,
        "-o",
        on.to_str().unwrap(),
    ]));
    let v = read_json(&on);
    assert_eq!(v["steps"][0]["connections_opened"], 4);
    assert_eq!(v["settings"]["keep_alive"], true);
    assert_eq!(t.stats.connections(), 4);

    let off = dir.path("off.json");
    let out = ok(&run(&[
        "run",
        "-c",
        "4",
        "-n",
        "400",
        "--no-keep-alive",
        &url,
        "-o",
        off.to_str().unwrap(),
    ]));
    let v = read_json(&off);
    assert_eq!(v["steps"][0]["connections_opened"], 400);
    assert_eq!(v["settings"]["keep_alive"], false);
    assert_eq!(t.stats.connections(), 404);
    assert!(out.contains("Keep-alive:"), "{out}");
}

#[test]
fn server_that_refuses_keep_alive_is_reported() {
    let t = target_at("127.0.0.1:0".parse().unwrap(), false);
    let dir = TempDir::new("closes");
    let json = dir.path("r.json");
    let out = ok(&run(&[
        "run",
        "-c",
        "2",
        "-n",
        "200",
        "-k",
        &format!("http://{}/", t.addr),
        "-o",
        json.to_str().unwrap(),
    ]));
    let v = read_json(&json);
    assert_eq!(v["steps"][0]["responses"], 200);
    assert_eq!(v["steps"][0]["connections_opened"], 200);
    assert_eq!(v["steps"][0]["server_closes"], 200);
    assert!(out.contains("keep-alive did not happen"), "{out}");
}

#[test]
fn post_bodies_and_headers_reach_the_server() {
    let t = target();
    let dir = TempDir::new("post");
    let json = dir.path("r.json");
    let body = dir.write("body.json", "[{\"_key\":\"a\"}]");
    ok(&run(&[
        "run",
        "-c",
        "1",
        "-n",
        "3",
        "-m",
        "POST",
        "--body-file",
        body.to_str().unwrap(),
        "-T",
        "application/json",
        "-H",
        "X-Test: yes",
        &format!("http://{}/echo", t.addr),
        "-o",
        json.to_str().unwrap(),
    ]));
    let v = read_json(&json);
    assert_eq!(v["steps"][0]["statuses"]["200"], 3);
    // The echo endpoint returns the body: 14 bytes each, inside what was received.
    assert!(v["steps"][0]["bytes_received"].as_u64().unwrap() >= 3 * 14);
}

#[test]
fn open_model_counts_from_the_due_time() {
    let t = target();
    let dir = TempDir::new("open");
    let json = dir.path("r.json");
    // Two connections can finish at most ~40 requests/s of 50 ms each; 200/s are due.
    let out = ok(&run(&[
        "run",
        "-c",
        "2",
        "-d",
        "1",
        "--rate",
        "200",
        &format!("http://{}/delay/50", t.addr),
        "-o",
        json.to_str().unwrap(),
    ]));
    let v = read_json(&json);
    let s = &v["steps"][0];
    assert_eq!(v["settings"]["model"], "open");
    let late = s["late"].as_u64().unwrap() + s["dropped"].as_u64().unwrap();
    assert!(late > 50, "{s}");
    let service_p50 = s["service"]["p50_s"].as_f64().unwrap();
    let response_p99 = s["latency"]["p99_s"].as_f64().unwrap();
    assert!(service_p50 >= 0.05, "{s}");
    assert!(
        response_p99 > service_p50,
        "response time counts the wait for a free connection: {s}"
    );
    assert!(out.contains("late") || out.contains("Late"), "{out}");
}

#[test]
fn requests_spread_round_robin_over_default_hosts() {
    let a = target();
    let port = a.addr.port();
    let b = target_at(format!("127.0.0.2:{port}").parse().unwrap(), true);
    let dir = TempDir::new("hosts");
    let json = dir.path("r.json");
    let patterns = dir.write("p.txt", "/\n/bytes/10\n");
    ok(&run(&[
        "run",
        "-c",
        "3",
        "-n",
        "600",
        "--request-patterns-file",
        patterns.to_str().unwrap(),
        "--default-hosts",
        "127.0.0.1,127.0.0.2",
        "--default-port",
        &port.to_string(),
        "-o",
        json.to_str().unwrap(),
    ]));
    let v = read_json(&json);
    let hosts = v["steps"][0]["per_host"].as_array().unwrap();
    assert_eq!(hosts.len(), 2);
    let (ra, rb) = (
        hosts[0]["responses"].as_u64().unwrap(),
        hosts[1]["responses"].as_u64().unwrap(),
    );
    assert_eq!(ra + rb, 600);
    assert!(ra.abs_diff(rb) <= 3, "round-robin split {ra}/{rb}");
    assert_eq!(a.stats.requests() + b.stats.requests(), 600);
}

#[test]
fn the_summary_always_states_keep_alive() {
    let t = target();
    let url = format!("http://{}/", t.addr);
    let on = ok(&run(&["run", "-c", "2", "-n", "50", &url]));
    assert!(on.contains("Keep-alive:             on\n"), "{on}");
    let off = ok(&run(&[
        "run",
        "-c",
        "2",
        "-n",
        "50",
        "--no-keep-alive",
        &url,
    ]));
    assert!(off.contains("Keep-alive:             off\n"), "{off}");
}

#[test]
fn json_prints_the_result_on_stdout_and_the_summary_on_stderr() {
    let t = target();
    let out = run(&[
        "run",
        "--json",
        "-c",
        "2",
        "-n",
        "120",
        &format!("http://{}/", t.addr),
    ]);
    let result: serde_json::Value = serde_json::from_str(&ok(&out)).expect("stdout is JSON");
    let step = &result["steps"][0];
    assert_eq!(step["total_requests"], 120);
    assert_eq!(step["n_clients"], 2);
    assert!(stderr(&out).contains("Keep-alive:"), "{}", stderr(&out));
    // -q with --json: stdout is the JSON, stderr has no summary.
    let out = run(&[
        "run",
        "--json",
        "-q",
        "-n",
        "10",
        &format!("http://{}/", t.addr),
    ]);
    let _: serde_json::Value = serde_json::from_str(&ok(&out)).expect("stdout is JSON");
    assert!(!stderr(&out).contains("Keep-alive:"), "{}", stderr(&out));
}

#[test]
fn output_dash_is_stdout_not_a_file_named_dash() {
    let t = target();
    let dir = TempDir::new("dash");
    let url = format!("http://{}/", t.addr);
    for cmd in [
        &["run", "-n", "30", "-o", "-", &url][..],
        &[
            "ramp",
            "--end-n-clients",
            "2",
            "--duration",
            "0.2",
            "--interval",
            "0",
            "-o",
            "-",
            &url,
        ][..],
    ] {
        let out = hakaru().current_dir(&dir.0).args(cmd).output().unwrap();
        let csv = ok(&out);
        assert!(
            csv.starts_with("n_clients,total_n_requests,queries_per_second,"),
            "{csv}"
        );
        assert!(!dir.path("-").exists() && !dir.path("-.json").exists());
        assert!(
            !csv.contains("Keep-alive:") && !csv.contains("requests "),
            "{csv}"
        );
    }
    let out = run(&["run", "--json", "-o", "-", "-n", "1", &url]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("--json and -o -"), "{}", stderr(&out));
}

#[test]
fn quiet_ramp_prints_no_step_rows() {
    let t = target();
    let dir = TempDir::new("quiet");
    let csv = dir.path("r.csv");
    let args = |q: bool| {
        let mut a = vec![
            "ramp",
            "--end-n-clients",
            "2",
            "--duration",
            "0.2",
            "--interval",
            "0",
            "-o",
            csv.to_str().unwrap(),
        ];
        if q {
            a.push("-q");
        }
        a
    };
    let url = format!("http://{}/", t.addr);
    let mut loud = args(false);
    loud.push(&url);
    let out = run(&loud);
    assert!(
        ok(&out).contains("clients    2  requests"),
        "{}",
        stdout(&out)
    );
    let mut quiet = args(true);
    quiet.push(&url);
    let out = run(&quiet);
    let text = ok(&out);
    assert!(!text.contains("clients    2  requests"), "{text}");
    assert!(!stderr(&out).contains("Running step"), "{}", stderr(&out));
    assert!(text.contains("Results:"), "{text}");
}
