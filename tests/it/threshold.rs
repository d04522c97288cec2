//! `--threshold` and `--junit` on every command: the table, the exit code (0 when every
//! threshold holds, 1 when one does not, 2 for one that does not parse), the verdicts
//! in the JSON result and a JUnit file a CI system can read.

use std::path::Path;

use crate::util::*;

fn code(o: &std::process::Output) -> Option<i32> {
    o.status.code()
}

/// The JUnit file, parsed as XML and checked for the shape CI systems read: a
/// `<testsuites>` whose counts add up over its `<testsuite>`s and `<testcase>`s.
/// Returns (suites, test cases, failures).
fn junit(path: &Path) -> (usize, usize, usize) {
    let text = std::fs::read_to_string(path).expect("junit written");
    let doc = roxmltree::Document::parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "testsuites");
    let num = |n: roxmltree::Node, a: &str| -> usize {
        n.attribute(a)
            .unwrap_or_else(|| panic!("{a} missing on {}", n.tag_name().name()))
            .parse()
            .unwrap()
    };
    let suites: Vec<_> = root
        .children()
        .filter(|n| n.has_tag_name("testsuite"))
        .collect();
    let (mut cases, mut failures) = (0, 0);
    for s in &suites {
        assert!(s.attribute("name").is_some() && s.attribute("timestamp").is_some());
        let tc: Vec<_> = s
            .children()
            .filter(|n| n.has_tag_name("testcase"))
            .collect();
        let failed = tc
            .iter()
            .filter(|c| c.children().any(|n| n.has_tag_name("failure")))
            .count();
        for c in &tc {
            assert!(c.attribute("classname").is_some() && c.attribute("name").is_some());
            if let Some(f) = c.children().find(|n| n.has_tag_name("failure")) {
                assert!(!f.attribute("message").unwrap_or("").is_empty());
            }
        }
        assert_eq!(num(*s, "tests"), tc.len(), "{text}");
        assert_eq!(num(*s, "failures"), failed, "{text}");
        cases += tc.len();
        failures += failed;
    }
    assert_eq!(num(root, "tests"), cases);
    assert_eq!(num(root, "failures"), failures);
    (suites.len(), cases, failures)
}

#[test]
fn thresholds_that_hold_exit_0_and_are_kept_in_the_result() {
    let t = target();
    let dir = TempDir::new("thr-pass");
    let (csv, xml) = (dir.path("r.csv"), dir.path("junit.xml"));
    let out = ok(&run(&[
        "run",
        "-c",
        "2",
        "-n",
        "300",
        "--threshold",
        "p99<5s",
        "--threshold",
        "errors<=0",
        "--threshold",
        "qps > 1",
        "--junit",
        xml.to_str().unwrap(),
        "-o",
        csv.to_str().unwrap(),
        &format!("http://{}/", t.addr),
    ]));
    assert!(out.contains("Thresholds: passed (3 of 3 held)"), "{out}");
    assert!(out.contains("  errors<=0  "), "{out}");
    let v = read_json(&dir.path("r.json"));
    assert_eq!(v["thresholds"]["passed"], true);
    assert_eq!(v["thresholds"]["thresholds"][2]["threshold"], "qps>1");
    assert_eq!(v["thresholds"]["thresholds"][0]["overall"]["samples"], 300);
    assert_eq!(junit(&xml), (1, 3, 0));
}

#[test]
fn a_threshold_that_fails_exits_1_with_the_table_and_a_junit_failure() {
    let t = target();
    let dir = TempDir::new("thr-fail");
    let xml = dir.path("junit.xml");
    // A quarter of the requests answer 500: errors, by the threshold's definition.
    let patterns = dir.write("p.txt", "/\n/\n/\n/status/500\n");
    let o = run(&[
        "ramp",
        "--end-n-clients=2",
        "--duration=0.3",
        "--interval=0",
        "--order=sequential",
        "--threshold",
        "errors<0.1%",
        "--threshold",
        "p99<10s",
        "--junit",
        xml.to_str().unwrap(),
        &format!("--request-patterns-file={}", patterns.display()),
        "--default-hosts=127.0.0.1",
        &format!("--default-port={}", t.addr.port()),
        &format!("--output-path={}", dir.path("r.csv").display()),
    ]);
    assert_eq!(code(&o), Some(1), "{}\n{}", stdout(&o), stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("Thresholds: FAILED (1 of 2 held)"), "{out}");
    assert!(out.contains("errors<0.1%"), "{out}");
    assert!(
        out.contains("0 of 2 held; failed: step 1 (1 client) "),
        "{out}"
    );
    assert!(
        stderr(&o).contains("1 threshold(s) failed: errors<0.1%"),
        "{}",
        stderr(&o)
    );
    // Two steps: a suite for the whole run and one per step, two cases each.
    assert_eq!(junit(&xml), (3, 6, 3));
    let v = read_json(&dir.path("r.json"));
    assert_eq!(v["thresholds"]["passed"], false);
    assert_eq!(
        v["thresholds"]["thresholds"][0]["steps"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    // `report` judges the kept result again, without changing it.
    let before = std::fs::read(dir.path("r.json")).unwrap();
    let o = run(&[
        "report",
        dir.path("r.json").to_str().unwrap(),
        "--threshold",
        "errors<30%",
    ]);
    assert_eq!(code(&o), Some(0), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("Thresholds: passed (1 of 1 held)"),
        "{}",
        stdout(&o)
    );
    let o = run(&[
        "report",
        dir.path("r.csv").to_str().unwrap(),
        "--threshold",
        "errors<20%",
    ]);
    assert_eq!(code(&o), Some(1), "{}", stderr(&o));
    assert_eq!(std::fs::read(dir.path("r.json")).unwrap(), before);
}

#[test]
fn merge_judges_the_whole_run_not_one_machine() {
    let t = target();
    let url = format!("http://{}/", t.addr);
    let dir = TempDir::new("thr-merge");
    let mut shards = Vec::new();
    for k in 1..=2 {
        let p = dir.path(&format!("s{k}.json"));
        ok(&run(&[
            "run",
            "--shard",
            &format!("{k}/2"),
            "-c",
            "2",
            "-n",
            "200",
            "-o",
            p.to_str().unwrap(),
            &url,
        ]));
        shards.push(p);
    }
    let merged = dir.path("m.json");
    let xml = dir.path("m.xml");
    let args = |thr: &str| {
        vec![
            "merge".to_owned(),
            shards[0].display().to_string(),
            shards[1].display().to_string(),
            "-o".into(),
            merged.display().to_string(),
            "--threshold".into(),
            thr.into(),
            "--junit".into(),
            xml.display().to_string(),
        ]
    };
    let a = args("errors<=0");
    let o = run(&a.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(code(&o), Some(0), "{}", stderr(&o));
    assert_eq!(
        read_json(&merged)["thresholds"]["thresholds"][0]["overall"]["samples"],
        200
    );
    assert_eq!(junit(&xml), (1, 1, 0));
    let a = args("p99<1us");
    let o = run(&a.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(code(&o), Some(1), "{}", stderr(&o));
    assert_eq!(junit(&xml), (1, 1, 1));
    // Windows on the shards' timelines merged second by second.
    let a = args("p99[1s]<5s");
    let o = run(&a.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(code(&o), Some(0), "{}", stderr(&o));
    let v = &read_json(&merged)["thresholds"]["thresholds"][0]["overall"];
    assert!(v["windows"].as_u64().unwrap() >= 1, "{v}");
    assert!(v["samples"].as_u64().unwrap() <= 200, "{v}");
}

#[test]
fn a_bad_threshold_is_refused_before_any_load() {
    let dir = TempDir::new("thr-bad");
    let csv = dir.path("r.csv");
    // Nothing listens there: a refusal must come before any request.
    for (thr, says) in [
        (
            "p99<200",
            "at column 8: p99 needs a unit: 200ms, 200s or 200us",
        ),
        (
            "p99=1s",
            "at column 4: the comparison must be <, <=, > or >=",
        ),
        ("latency<1s", "\"latency\" is not a metric"),
    ] {
        let o = run(&[
            "run",
            "-n",
            "5",
            "--threshold",
            thr,
            "-o",
            csv.to_str().unwrap(),
            "http://127.0.0.1:9/",
        ]);
        assert_eq!(code(&o), Some(2), "{thr}: {}", stderr(&o));
        assert!(stderr(&o).contains("--threshold"), "{}", stderr(&o));
        assert!(stderr(&o).contains(says), "{}", stderr(&o));
    }
    let o = run(&[
        "run",
        "-n",
        "5",
        "--threshold",
        "docs_per_s>10",
        "-o",
        csv.to_str().unwrap(),
        "http://127.0.0.1:9/",
    ]);
    assert_eq!(code(&o), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("docs_per_s is measured by `hakaru bulk` only"));
    assert!(!csv.exists() && !dir.path("r.json").exists());
}

/// `hakaru run ARGS` in the background, its output into files of `dir`.
fn spawn_run(dir: &TempDir, args: &[&str]) -> std::process::Child {
    hakaru()
        .arg("run")
        .args(args)
        .stdout(std::fs::File::create(dir.path("stdout")).unwrap())
        .stderr(std::fs::File::create(dir.path("stderr")).unwrap())
        .spawn()
        .expect("hakaru runs")
}

/// What a background run printed: stdout, then stderr.
fn printed(dir: &TempDir) -> String {
    let read = |n| std::fs::read_to_string(dir.path(n)).unwrap_or_default();
    format!("{}\n{}", read("stdout"), read("stderr"))
}

fn signal(server: &Server, sig: &str) {
    let pid = server.child.id().to_string();
    assert!(std::process::Command::new("kill")
        .args([sig, &pid])
        .status()
        .unwrap()
        .success());
}

/// The server we started stops answering for 3 s (SIGSTOP, then SIGCONT), `after` into
/// the run; returns the moment it answers again.
fn stall(server: &Server, after: std::time::Duration) -> std::time::Instant {
    std::thread::sleep(after);
    signal(server, "-STOP");
    std::thread::sleep(std::time::Duration::from_secs(3));
    signal(server, "-CONT");
    std::time::Instant::now()
}

// The stall's arithmetic: 10 clients on /delay/50 answer at most 200/s (the delay
// bounds it however idle the machine); the 10 requests in flight when the server stops
// end ~3 s late. Over a 20-second step (~17 s answering) 10 slow ones stay under 1% of
// the responses as long as it answers over 59/s: the p99 holds. In any 5-second window
// holding the stall (~2 s answering, at most ~400 responses) they are over 2%: its p99
// is ~3 s. The bound, 2 s, leaves a second on either side for a busy machine's hiccups.
const STALL_ARGS: [&str; 4] = ["-c", "10", "--threshold", "p99<2s"];

#[test]
fn a_window_catches_a_stall_the_whole_step_hides() {
    let _timed = timed();
    let server = hakaru_serve(&[], "thr-stall");
    let dir = TempDir::new("thr-window");
    let json = dir.path("r.json");
    let url = format!("http://127.0.0.1:{}/delay/50", server.port);
    let mut child = spawn_run(
        &dir,
        &[
            &STALL_ARGS[..],
            &[
                "-d",
                "20s",
                "--threshold",
                "p99[5s]<2s",
                "-o",
                json.to_str().unwrap(),
                &url,
            ],
        ]
        .concat(),
    );
    stall(&server, std::time::Duration::from_secs(4));
    let status = wait_bounded(&mut child, std::time::Duration::from_secs(60)).expect("ends");
    let out = printed(&dir);
    assert_eq!(status.code(), Some(1), "{out}");
    assert!(out.contains("Thresholds: FAILED (1 of 2 held)"), "{out}");
    let v = read_json(&json);
    let (whole, windowed) = (
        &v["thresholds"]["thresholds"][0],
        &v["thresholds"]["thresholds"][1],
    );
    assert_eq!(whole["passed"], true, "{out}");
    assert_eq!(windowed["passed"], false, "{out}");
    let worst = windowed["overall"]["value"].as_f64().unwrap();
    assert!(worst > 2.0, "{windowed}");
    // The worst window holds the second the server answered again (~7 s in).
    let start = windowed["overall"]["window_start_s"].as_u64().unwrap();
    assert!((2..=8).contains(&start), "{windowed}");
    assert!(
        windowed["overall"]["windows"].as_u64().unwrap() >= 10,
        "{windowed}"
    );
    assert!(
        out.contains(&format!(
            "in the worst 5-second window, from second {start} ("
        )),
        "{out}"
    );
    // `report` judges the kept result alike, from its timeline.
    let o = run(&[
        "report",
        json.to_str().unwrap(),
        "--threshold",
        "p99[5s]<2s",
    ]);
    assert_eq!(code(&o), Some(1), "{}", stderr(&o));
    let o = run(&["report", json.to_str().unwrap(), "--threshold", "p99<2s"]);
    assert_eq!(code(&o), Some(0), "{}", stderr(&o));
    assert!(v["state"] == "complete", "{}", v["state"]);
}

#[test]
fn abort_on_fail_ends_the_run_within_a_second_of_the_breach() {
    let _timed = timed();
    let server = hakaru_serve(&[], "thr-abort");
    let dir = TempDir::new("thr-abort");
    let json = dir.path("r.json");
    let url = format!("http://127.0.0.1:{}/delay/50", server.port);
    let started = std::time::Instant::now();
    // Not the whole step's p99 too: judged live on enough samples it could trip
    // first (10 slow of under 1,000 at 7 s is over 1%), as k6's abortOnFail would.
    let mut child = spawn_run(
        &dir,
        &[
            &STALL_ARGS[..2],
            &[
                "-d",
                "60s",
                "--threshold",
                "p99[5s]<2s",
                "--abort-on-fail",
                "-o",
                json.to_str().unwrap(),
                &url,
            ],
        ]
        .concat(),
    );
    // The breach: the slow responses arrive as the server answers again.
    let breach = stall(&server, std::time::Duration::from_secs(4));
    let status = wait_bounded(&mut child, std::time::Duration::from_secs(90)).expect("ends");
    let took = breach.elapsed();
    let out = printed(&dir);
    eprintln!(
        "abort: the run ended {:.0} ms after the breach ({:.1} s in)",
        took.as_secs_f64() * 1e3,
        started.elapsed().as_secs_f64()
    );
    assert_eq!(status.code(), Some(1), "{out}");
    // Within a second, judged every ~250 ms; the margin is for a busy machine.
    assert!(
        took < std::time::Duration::from_millis(2500),
        "{took:?}\n{out}"
    );
    assert!(
        out.contains("--abort-on-fail: p99[5s]<2s can no longer hold (live, seconds "),
        "{out}"
    );
    let v = read_json(&json);
    assert_eq!(v["state"], "failed");
    let a = &v["thresholds"]["aborted"];
    assert_eq!(a["threshold"], "p99[5s]<2s", "{v}");
    assert_eq!(a["step"], 0);
    let at = a["at_s"].as_f64().unwrap();
    assert!((6.5..12.0).contains(&at), "{a}");
    assert!(v["stop_reason"]
        .as_str()
        .unwrap()
        .starts_with("--abort-on-fail: p99[5s]<2s"));
    // The verdict is the exact one of what ran.
    assert_eq!(v["thresholds"]["thresholds"][0]["passed"], false, "{out}");
    assert!(
        v["thresholds"]["thresholds"][0]["overall"]["value"]
            .as_f64()
            .unwrap()
            > 2.0
    );
    assert!(v["steps"][0]["elapsed_s"].as_f64().unwrap() < 20.0);
    assert!(out.contains("Aborted (--abort-on-fail) "), "{out}");
}

#[test]
fn label_thresholds_pass_and_fail_per_label() {
    let t = target();
    let dir = TempDir::new("thr-label");
    let patterns = dir.write("p.json", r#"{"fast": ["/"], "slow": ["/delay/300"]}"#);
    let json = dir.path("r.json");
    let o = run(&[
        "ramp",
        "--end-n-clients=4",
        "--start-n-clients=4",
        "--duration=2",
        "--interval=0",
        "--threshold",
        "p99{group=fast}<250ms",
        "--threshold",
        "p99{group=slow}<250ms",
        "--threshold",
        "max[1s]{group=slow}<250ms",
        &format!("--request-patterns-file={}", patterns.display()),
        "--default-hosts=127.0.0.1",
        &format!("--default-port={}", t.addr.port()),
        &format!("--output-path={}", dir.path("r.csv").display()),
    ]);
    let out = stdout(&o);
    assert_eq!(code(&o), Some(1), "{out}{}", stderr(&o));
    assert!(out.contains("Thresholds: FAILED (1 of 3 held)"), "{out}");
    let v = read_json(&json);
    let th = &v["thresholds"]["thresholds"];
    assert_eq!(th[0]["passed"], true, "{out}");
    assert_eq!(th[1]["passed"], false, "{out}");
    assert!(
        th[1]["overall"]["value"].as_f64().unwrap() >= 0.3,
        "{}",
        th[1]
    );
    assert!(
        out.contains("for group=slow"),
        "the table names the label: {out}"
    );
    // Both labels are busy enough to keep a timeline: the label's windows.
    let w = &th[2]["overall"];
    assert_eq!(th[2]["passed"], false, "{}", th[2]);
    assert!(w["windows"].as_u64().unwrap() >= 1, "{w}");
    assert!(
        out.contains("for group=slow in the worst 1-second window, from second "),
        "{out}"
    );
}

/// Issue 35: `p99{group=serch}` ran the whole load and then said "not judged".
#[test]
fn a_threshold_naming_a_label_no_pattern_makes_is_refused_before_any_load() {
    let dir = TempDir::new("thr-nolabel");
    let patterns = dir.write("p.json", r#"{"fast": ["/"], "slow": ["/delay/300"]}"#);
    let one = dir.write("one.json", r#"{"search": ["/"]}"#);
    let csv = dir.path("r.csv");
    // Nothing listens on port 9: only a refusal before any request exits 2.
    for (command, file, says) in [
        (
            "run",
            &patterns,
            "no request of this run is labelled group=fats; its labels are group=fast, group=slow",
        ),
        (
            "ramp",
            &patterns,
            "no request of this run is labelled group=fats; its labels are group=fast, group=slow",
        ),
        (
            "run",
            &one,
            "no request of this run is labelled group=fats: it sends one kind of request",
        ),
    ] {
        let o = run(&[
            command,
            "--duration=1",
            "--threshold",
            "p99{group=fats}<1s",
            &format!("--request-patterns-file={}", file.display()),
            "--default-hosts=127.0.0.1",
            "--default-port=9",
            &format!("--output-path={}", csv.display()),
        ]);
        let err = stderr(&o);
        assert_eq!(code(&o), Some(2), "{command}: {err}{}", stdout(&o));
        assert!(err.contains("--threshold p99{group=fats}<1s: "), "{err}");
        assert!(err.contains(says), "{err}");
        assert!(!csv.exists(), "nothing was measured, nothing written");
    }
}

/// A threshold naming the only group a patterns file has is judged on it, not
/// "not judged" because one label alone made no breakdown.
#[test]
fn a_threshold_naming_the_only_group_is_judged() {
    let t = target();
    let dir = TempDir::new("thr-one");
    let one = dir.write("one.json", r#"{"search": ["/"]}"#);
    let json = dir.path("r.json");
    let o = run(&[
        "run",
        "--duration=1",
        "-c",
        "2",
        "--threshold",
        "p99{group=search}<5s",
        &format!("--request-patterns-file={}", one.display()),
        "--default-hosts=127.0.0.1",
        &format!("--default-port={}", t.addr.port()),
        &format!("--output-path={}", dir.path("r.csv").display()),
    ]);
    assert_eq!(code(&o), Some(0), "{}{}", stdout(&o), stderr(&o));
    let th = &read_json(&json)["thresholds"]["thresholds"][0];
    assert_eq!(th["passed"], true, "{th}");
    assert!(th["overall"]["value"].as_f64().unwrap() > 0.0, "{th}");
}

#[test]
fn abort_on_fail_ends_a_ramp_at_the_step_that_fails_a_label() {
    let t = target();
    let dir = TempDir::new("thr-label-abort");
    let patterns = dir.write("p.json", r#"{"fast": ["/"], "slow": ["/delay/300"]}"#);
    let o = run(&[
        "ramp",
        "--start-n-clients=2",
        "--end-n-clients=6",
        "--step=2",
        "--duration=1",
        "--interval=0",
        "--threshold",
        "p99{group=fast}<250ms",
        "--threshold",
        "p99{group=slow}<250ms",
        "--abort-on-fail",
        &format!("--request-patterns-file={}", patterns.display()),
        "--default-hosts=127.0.0.1",
        &format!("--default-port={}", t.addr.port()),
        &format!("--output-path={}", dir.path("r.csv").display()),
    ]);
    let (out, err) = (stdout(&o), stderr(&o));
    assert_eq!(code(&o), Some(1), "{out}{err}");
    assert!(
        err.contains(
            "--abort-on-fail: p99{group=slow}<250ms can no longer hold (step 1 as measured: "
        ),
        "{err}"
    );
    let v = read_json(&dir.path("r.json"));
    assert_eq!(
        v["steps"].as_array().unwrap().len(),
        1,
        "one of three steps ran"
    );
    assert_eq!(v["state"], "failed");
    assert_eq!(v["thresholds"]["aborted"]["step"], 0);
    assert_eq!(v["thresholds"]["thresholds"][0]["passed"], true, "{out}");
    assert!(out.contains("Aborted (--abort-on-fail) "), "{out}");
}

#[test]
fn window_and_label_grammar_errors_name_the_column() {
    for (thr, says) in [
        (
            "p99[10]<1s",
            "at column 5: a window needs a unit: 10s or 10m",
        ),
        ("p99[5s<1s", "at column 4: no ] closing this ["),
        ("p99{grp=a}<1s", "at column 5: \"grp\" is not a label key"),
        (
            "docs_per_s[5s]>1",
            "at column 11: docs_per_s has no per-second figures",
        ),
    ] {
        let o = run(&["run", "-n", "5", "--threshold", thr, "http://127.0.0.1:9/"]);
        assert_eq!(code(&o), Some(2), "{thr}: {}", stderr(&o));
        assert!(stderr(&o).contains(says), "{thr}: {}", stderr(&o));
    }
    let o = run(&["run", "-n", "5", "--abort-on-fail", "http://127.0.0.1:9/"]);
    assert_eq!(code(&o), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("--abort-on-fail without --threshold"),
        "{}",
        stderr(&o)
    );
}

/// Issue 18: a label's threshold was judged only when its step ended (the live feed
/// had no labels), so `--abort-on-fail` let a 30-second step run on with one group
/// failing from its first response. Now the labels thresholds name are fed from the
/// seconds the workers hand over: the run ends once the slow group's first second
/// ends, the fast group's threshold still holds, the result is written, exit 1.
#[test]
fn abort_on_fail_ends_a_run_within_a_second_when_one_label_fails() {
    let _timed = timed();
    let t = target();
    let dir = TempDir::new("thr-label-live");
    let patterns = dir.write("p.json", r#"{"fast": ["/"], "slow": ["/delay/100"]}"#);
    let json = dir.path("r.json");
    let started = std::time::Instant::now();
    let o = run(&[
        "run",
        "-c",
        "4",
        "-d",
        "30s",
        "--threshold",
        "p99{group=fast}<80ms",
        "--threshold",
        "max{group=slow}<50ms",
        "--abort-on-fail",
        &format!("--request-patterns-file={}", patterns.display()),
        "--default-hosts=127.0.0.1",
        &format!("--default-port={}", t.addr.port()),
        "-o",
        dir.path("r.csv").to_str().unwrap(),
    ]);
    let took = started.elapsed();
    let (out, err) = (stdout(&o), stderr(&o));
    eprintln!(
        "label abort: the run ended {:.0} ms after it started",
        took.as_secs_f64() * 1e3
    );
    assert_eq!(code(&o), Some(1), "{out}{err}");
    // The breach is the slow group's first response (~0.1 s); its second ends at 1 s
    // and the judge looks every 250 ms: ~1.3 s, the margin for a busy machine.
    assert!(took < std::time::Duration::from_secs(4), "{took:?}\n{err}");
    assert!(
        err.contains(
            "--abort-on-fail: max{group=slow}<50ms can no longer hold (live, the step's first "
        ),
        "{err}"
    );
    let v = read_json(&json);
    assert_eq!(v["state"], "failed");
    let a = &v["thresholds"]["aborted"];
    assert_eq!(a["threshold"], "max{group=slow}<50ms", "{a}");
    let at = a["at_s"].as_f64().unwrap();
    assert!((0.9..2.6).contains(&at), "{a}");
    assert!(v["steps"][0]["elapsed_s"].as_f64().unwrap() < 3.0);
    let th = &v["thresholds"]["thresholds"];
    assert_eq!(th[0]["passed"], true, "{out}");
    assert_eq!(th[1]["passed"], false, "{out}");
}

/// A windowed label threshold is judged live on that label's seconds alone: the
/// fast group's requests (most of them) do not dilute the slow group's window.
#[test]
fn a_label_window_is_judged_live_on_the_label_alone() {
    let _timed = timed();
    let t = target();
    let dir = TempDir::new("thr-label-window");
    let patterns = dir.write(
        "p.json",
        r#"{"fast": ["/", "/", "/", "/"], "slow": ["/delay/60"]}"#,
    );
    let o = run(&[
        "run",
        "-c",
        "4",
        "-d",
        "30s",
        "--threshold",
        "p99[1s]{group=slow}<30ms",
        "--abort-on-fail",
        &format!("--request-patterns-file={}", patterns.display()),
        "--default-hosts=127.0.0.1",
        &format!("--default-port={}", t.addr.port()),
        "-o",
        dir.path("r.csv").to_str().unwrap(),
    ]);
    let err = stderr(&o);
    assert_eq!(code(&o), Some(1), "{err}");
    assert!(
        err.contains(
            "--abort-on-fail: p99[1s]{group=slow}<30ms can no longer hold (live, seconds "
        ),
        "{err}"
    );
    let v = read_json(&dir.path("r.json"));
    assert!(
        v["thresholds"]["aborted"]["at_s"].as_f64().unwrap() < 3.0,
        "{v}"
    );
}

/// `report --threshold` ends through the same path as a live run (`cli::finish`): the
/// same verdicts, the same JUnit file, the same exit code, and with `-o -` the page
/// alone on stdout (the table and the failure on stderr).
#[test]
fn report_judges_a_kept_result_exactly_as_the_run_did() {
    let t = target();
    let dir = TempDir::new("thr-report-finish");
    let url = format!("http://{}/status/500", t.addr);
    let live_xml = dir.path("live.xml");
    let o = run(&[
        "run",
        "-c",
        "2",
        "-n",
        "40",
        "--threshold",
        "errors<1%",
        "--threshold",
        "p99<10s",
        "--junit",
        live_xml.to_str().unwrap(),
        "-o",
        dir.path("r.csv").to_str().unwrap(),
        &url,
    ]);
    assert_eq!(code(&o), Some(1), "{}", stderr(&o));
    let json = dir.path("r.json");
    let before = std::fs::read(&json).unwrap();
    let read_xml = dir.path("read.xml");
    let o = run(&[
        "report",
        json.to_str().unwrap(),
        "--threshold",
        "errors<1%",
        "--threshold",
        "p99<10s",
        "--junit",
        read_xml.to_str().unwrap(),
        "-o",
        dir.path("r.html").to_str().unwrap(),
    ]);
    let (out, err) = (stdout(&o), stderr(&o));
    assert_eq!(code(&o), Some(1), "{out}{err}");
    assert_eq!(junit(&read_xml), junit(&live_xml));
    assert!(out.contains("Thresholds: FAILED (1 of 2 held)"), "{out}");
    assert!(err.contains("1 threshold(s) failed: errors<1%"), "{err}");
    assert!(
        err.contains(&format!("wrote {}", dir.path("r.html").display())),
        "{err}"
    );
    // The page shows the verdicts judged now; the result file is not changed.
    let page = std::fs::read_to_string(dir.path("r.html")).unwrap();
    assert!(
        page.contains("errors&lt;1%") || page.contains("errors<1%"),
        "no verdicts in the page"
    );
    assert_eq!(std::fs::read(&json).unwrap(), before);
    // `-o -`: the page alone on stdout; the text for a person on stderr.
    let o = run(&[
        "report",
        json.to_str().unwrap(),
        "--threshold",
        "errors<1%",
        "-o",
        "-",
    ]);
    let (out, err) = (stdout(&o), stderr(&o));
    assert_eq!(code(&o), Some(1), "{err}");
    assert!(
        out.trim_start().starts_with("<!"),
        "{}",
        &out[..out.len().min(200)]
    );
    assert!(
        out.trim_end().ends_with("</html>"),
        "the page alone on stdout"
    );
    assert!(err.contains("Thresholds: FAILED (0 of 1 held)"), "{err}");
    // Without --threshold the kept verdicts are shown, and the report itself passes.
    let o = run(&[
        "report",
        json.to_str().unwrap(),
        "-o",
        dir.path("again.html").to_str().unwrap(),
    ]);
    assert_eq!(code(&o), Some(0), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("Thresholds: FAILED (1 of 2 held)"),
        "{}",
        stdout(&o)
    );
    // A threshold that holds on the read result: exit 0.
    let o = run(&[
        "report",
        json.to_str().unwrap(),
        "--threshold",
        "p99<10s",
        "-o",
        "-",
    ]);
    assert_eq!(code(&o), Some(0), "{}", stderr(&o));
}
