//! `hakaru ramp`: the tutorial's command, results written after every step, Ctrl-C.

use std::time::Duration;

use crate::util::*;

#[test]
fn tutorial_command_runs_with_only_the_name_changed() {
    let t = target();
    let dir = TempDir::new("tutorial");
    let patterns = dir.write("patterns.txt", "/\n/bytes/100\n\n/status/200\n");
    let csv = dir.path("result.csv");
    // The tutorial's flags, with shorter steps so the test stays quick.
    let out = ok(&run(&[
        "ramp",
        "--step=2",
        "--start-n-clients=0",
        "--end-n-clients=6",
        "--duration=0.3",
        "--interval=0.1",
        &format!("--request-patterns-file={}", patterns.display()),
        "--default-hosts=127.0.0.1",
        &format!("--default-port={}", t.addr.port()),
        &format!("--output-path={}", csv.display()),
    ]));
    let (h, rows) = read_csv(&csv);
    let clients: Vec<f64> = rows.iter().map(|r| col(&h, r, "n_clients")).collect();
    assert_eq!(clients, vec![1.0, 2.0, 4.0, 6.0]);
    for r in &rows {
        assert_eq!(col(&h, r, "200"), 100.0);
        assert!(col(&h, r, "queries_per_second") > 0.0);
        assert!(col(&h, r, "min_elapsed_time") <= col(&h, r, "average_elapsed_time"));
        assert!(col(&h, r, "average_elapsed_time") <= col(&h, r, "max_elapsed_time"));
    }
    let v = read_json(&dir.path("result.json"));
    assert_eq!(v["steps"].as_array().unwrap().len(), 4);
    assert_eq!(v["mode"], "ramp");
    assert_eq!(v["partial"], false);
    // Each step's histogram is kept so reports can be redrawn.
    assert!(v["steps"][3]["histogram"].as_str().unwrap().len() > 10);
    // One row per step; drnbench's whole block waits for --verbose.
    let rows = out
        .lines()
        .filter(|l| l.starts_with("clients ") && l.contains("requests"));
    assert_eq!(rows.count(), 4, "{out}");
    assert!(!out.contains("Top 5 slow requests:"), "{out}");
}

/// Issue 35: `--end-n-clients 8 --step 3` stopped at 7 clients, never measuring 8.
#[test]
fn the_end_client_count_is_measured_even_off_the_step() {
    let t = target();
    let dir = TempDir::new("ramp-end");
    let csv = dir.path("result.csv");
    ok(&run(&[
        "ramp",
        "--step=3",
        "--start-n-clients=1",
        "--end-n-clients=8",
        "--duration=0.2",
        "--interval=0",
        &format!("--output-path={}", csv.display()),
        &format!("http://{}/", t.addr),
    ]));
    let (h, rows) = read_csv(&csv);
    let clients: Vec<f64> = rows.iter().map(|r| col(&h, r, "n_clients")).collect();
    assert_eq!(clients, vec![1.0, 4.0, 7.0, 8.0]);
}

/// Issue 35: `ramp -c 50` was a clap error with no word on what to use.
#[test]
fn ramp_refuses_c_and_says_what_to_use() {
    let o = run(&["ramp", "-c", "50", "--duration=1", "http://127.0.0.1:9/"]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.contains("--start-n-clients 50 --end-n-clients 50, or hakaru run -c 50"),
        "{err}"
    );
}

#[test]
fn verbose_prints_drnbench_per_step_block() {
    let t = target();
    let dir = TempDir::new("verbose");
    let out = ok(&run(&[
        "ramp",
        "--verbose",
        "--end-n-clients=2",
        "--duration=0.2",
        "--interval=0",
        &format!("--output-path={}", dir.path("r.csv").display()),
        &format!("http://{}/", t.addr),
    ]));
    assert!(out.contains("Top 5 slow requests:"), "{out}");
    assert!(out.contains("Top 5 fast requests:"), "{out}");
    assert!(out.contains("Elapsed time:"), "{out}");
}

#[test]
fn drnbench_format_writes_drnbench_columns_only() {
    let t = target();
    let dir = TempDir::new("drnfmt");
    let csv = dir.path("r.csv");
    ok(&run(&[
        "ramp",
        "--end-n-clients=2",
        "--duration=0.2",
        "--interval=0",
        "--format=drnbench",
        &format!("http://{}/", t.addr),
        &format!("--output-path={}", csv.display()),
    ]));
    let (h, rows) = read_csv(&csv);
    assert_eq!(
        h,
        [
            "n_clients",
            "total_n_requests",
            "queries_per_second",
            "min_elapsed_time",
            "max_elapsed_time",
            "average_elapsed_time",
            "200"
        ]
    );
    assert_eq!(rows.len(), 2);
}

#[test]
fn ctrl_c_keeps_finished_steps() {
    let t = target();
    let dir = TempDir::new("ctrlc");
    let csv = dir.path("r.csv");
    let child = hakaru()
        .args([
            "ramp",
            "--start-n-clients=1",
            "--end-n-clients=50",
            "--duration=0.5",
            "--interval=0",
        ])
        .arg(format!("http://{}/", t.addr))
        .arg(format!("--output-path={}", csv.display()))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    // Wait until at least one step is on disk, then interrupt.
    let json = dir.path("r.json");
    let start = std::time::Instant::now();
    while !json.exists() && start.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(300));
    let st = std::process::Command::new("kill")
        .args(["-INT", &pid.to_string()])
        .status()
        .unwrap();
    assert!(st.success());
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(130),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = read_json(&json);
    let steps = v["steps"].as_array().unwrap();
    assert!(
        !steps.is_empty() && steps.len() < 50,
        "{} steps",
        steps.len()
    );
    assert_eq!(v["partial"], true);
    let (_, rows) = read_csv(&csv);
    assert_eq!(rows.len(), steps.len());
    assert!(String::from_utf8_lossy(&out.stderr).contains("Interrupted"));
}

#[test]
fn rate_ramp_shows_where_the_server_falls_behind() {
    let t = target();
    let dir = TempDir::new("rateramp");
    let csv = dir.path("r.csv");
    // Two connections to a 5 ms endpoint answer at most ~400 requests/s: 2,000/s is far
    // beyond them. Steps of 2 s (40 requests at 20/s), each done 5 ms after it is due,
    // so a busy test machine does not cut enough of them off at the step's end to read
    // as falling behind at 20/s (95% held).
    let out = ok(&run(&[
        "ramp",
        "--rate=20,2000",
        "--end-n-clients=2",
        "--duration=2",
        "--interval=0",
        &format!("http://{}/delay/5", t.addr),
        &format!("--output-path={}", csv.display()),
    ]));
    let (h, rows) = read_csv(&csv);
    let rates: Vec<f64> = rows.iter().map(|r| col(&h, r, "rate")).collect();
    assert_eq!(rates, vec![20.0, 2000.0]);
    assert_eq!(col(&h, &rows[0], "dropped"), 0.0);
    assert!(col(&h, &rows[1], "dropped") + col(&h, &rows[1], "late") > 100.0);
    let behind = out
        .lines()
        .find(|l| l.contains("falls behind"))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(behind.trim_start().starts_with("2000"), "{behind}");
    assert!(
        !out.contains("Universal Scalability Law"),
        "no clients-axis analysis for a rate ramp:\n{out}"
    );
}

/// `ramp --until-saturated` (issue 19, item 8): against a target of one worker (its
/// capacity known exactly), the clients double until throughput stops rising, the
/// ramp ends there on its own, and the result and the terminal say why.
#[test]
fn until_saturated_stops_where_the_target_saturates_and_says_why() {
    let server = crate::util::hakaru_serve(&["--workers", "1"], "saturate");
    let url = format!("http://127.0.0.1:{}/work?ms=5", server.port);
    let dir = TempDir::new("saturate");
    let out = dir.path("r.csv");
    let o = run(&[
        "ramp",
        "--until-saturated",
        "--duration",
        "400ms",
        "--interval",
        "0",
        "-o",
        out.to_str().unwrap(),
        &url,
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let json = read_json(&out.with_extension("json"));
    let why = json["ended_because"].as_str().expect("ended_because");
    assert!(why.starts_with("saturation showed at "), "{why}");
    let steps = json["steps"].as_array().unwrap();
    // 1, 2, 4 clients at most: one worker is saturated by one client.
    assert!(steps.len() <= 3, "{} steps: {why}", steps.len());
    assert_eq!(json["state"], "complete");
    assert!(
        stdout(&o).contains("The ramp ended on its own (--until-saturated): saturation showed at"),
        "{}",
        stdout(&o)
    );

    // A cap reached first is said too.
    let fast = format!("http://127.0.0.1:{}/", server.port);
    let o = run(&[
        "ramp",
        "--until-saturated",
        "--end-n-clients",
        "1",
        "--duration",
        "200ms",
        "--interval",
        "0",
        "--json",
        "-q",
        "-o",
        dir.path("cap.csv").to_str().unwrap(),
        &fast,
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let j: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let why = j["ended_because"].as_str().unwrap();
    assert!(why.contains("reached the cap of 1 clients"), "{why}");

    // It is refused beside --rate, before any load.
    let o = run(&["ramp", "--until-saturated", "--rate", "100", &fast]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--until-saturated"), "{}", stderr(&o));
}
