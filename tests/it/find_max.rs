//! `ramp --find-max --slo` against a server whose capacity the test knows: `hakaru
//! serve --workers N` answers `/work?ms=MS` with N workers of MS ms each, so it
//! sustains exactly N ÷ MS requests per millisecond and queues without bound above
//! that. The search must land within 10% below that capacity and never above it.
//! The assertions are on the search's own verdicts and counts; the one number compared
//! with the truth is the answer, against a capacity fixed by construction.

use crate::util::*;

/// `hakaru serve --workers N` on a loopback port, stopped by its PID when dropped.
fn work_server(workers: usize) -> Server {
    let workers = workers.to_string();
    hakaru_serve(&["--threads", "2", "--workers", &workers], "work-server")
}

/// The known-capacity search (1,000/s behind `work_server(100)` at `port`), its
/// result beside `csv`: shared by the capacity test and the stall test.
fn capacity_search(csv: &std::path::Path, port: u16) -> Vec<String> {
    let url = format!("http://127.0.0.1:{port}/work?ms=100");
    [
        "ramp",
        "--find-max",
        "--slo",
        "p99<1s,errors<0.1%",
        "--start-rate",
        "470",
        "--precision",
        "10",
        "--duration",
        "5s",
        "--interval",
        "0.2s",
        "--max-probes",
        "24",
        "--end-n-clients",
        "250",
        "-q",
        "-o",
        csv.to_str().unwrap(),
        &url,
    ]
    .map(String::from)
    .to_vec()
}

#[test]
fn find_max_lands_within_10_percent_below_a_known_capacity() {
    let _one_at_a_time = crate::util::timed();
    // 100 workers of 100 ms: 1,000 requests per second, exactly. Long service times
    // keep a loaded machine's scheduling noise small beside them. No black-box probe
    // tells a rate within its noise of the capacity from the capacity itself (a busy
    // machine adds tens of ms, the backlog of a 2% overload grows by 100 ms in a 5 s probe), so
    // the start rate and a 10% precision keep every probe the search can make below
    // the capacity or at least 5% above it: 470, 940, 1880, 1410, 1175, 1057.5, then
    // 998.75 (or lower after a failure), and there the bracket is within 10%.
    let s = work_server(100);
    let capacity = 1000.0;
    let dir = TempDir::new("find-max");
    let csv = dir.path("fm.csv");
    let search = capacity_search(&csv, s.port);
    let o = run(&search.iter().map(String::as_str).collect::<Vec<_>>());
    let out = ok(&o);
    let v = read_json(&dir.path("fm.json"));
    let fm = &v["find_max"];
    let answer = fm["max_sustainable_rate"]
        .as_f64()
        .unwrap_or_else(|| panic!("{fm:#}"));
    assert!(
        answer <= capacity && answer >= 0.9 * capacity,
        "answer {answer}/s, capacity {capacity}/s\n{out}"
    );
    assert_eq!(fm["confirmed"], true, "{out}");
    assert_eq!(fm["ended"], "converged", "{out}");
    assert_eq!(fm["min_samples"], 1000);
    let probes = fm["probes"].as_array().unwrap();
    let steps = v["steps"].as_array().unwrap();
    assert_eq!(probes.len(), steps.len());
    let mut at_answer = 0;
    for p in probes {
        let rate = p["rate"].as_f64().unwrap();
        let step = &steps[p["step"].as_u64().unwrap() as usize];
        assert_eq!(step["rate"].as_f64(), Some(rate));
        if p["passed"] == true {
            assert!(p["responses"].as_u64().unwrap() >= 1000, "{p}");
            at_answer += usize::from(rate == answer);
        } else if p["inconclusive"] == false && p.get("unconfirmed").is_none() {
            // Never a (confirmed) failed probe as the answer, nor one below it.
            assert!(
                rate > answer,
                "failed at {rate} below the answer {answer}: {p}"
            );
            assert!(!p["why"].as_array().unwrap().is_empty(), "{p}");
        }
    }
    assert!(at_answer >= 2, "the answer was not probed twice\n{out}");
    let bracket = fm["lowest_failed_rate"].as_f64().unwrap();
    assert!(
        bracket > answer && bracket <= answer * 1.10 + 1e-9,
        "{fm:#}"
    );
    assert!(out.contains("Max sustainable rate:"), "{out}");
    assert!(out.contains("FAIL: "), "{out}");
    // The report leads with the answer and the probes, each failed one with why.
    let json = dir.path("fm.json");
    let md = dir.path("fm.md");
    let o = run(&[
        "report",
        json.to_str().unwrap(),
        "--markdown",
        md.to_str().unwrap(),
        "--svg",
    ]);
    let text = ok(&o);
    assert!(text.contains("Max sustainable rate:"), "{text}");
    let page = std::fs::read_to_string(dir.path("fm.html")).unwrap();
    assert!(
        page.contains("<h2>Highest rate meeting the SLO</h2>"),
        "{page}"
    );
    assert!(page.contains("pass (the answer)"), "{page}");
    assert_eq!(
        page.matches("<td class=\"l fail\">FAIL</td>").count(),
        probes
            .iter()
            .filter(|p| {
                p["passed"] == false && p["inconclusive"] == false && p.get("unconfirmed").is_none()
            })
            .count(),
        "{page}"
    );
    let md = std::fs::read_to_string(md).unwrap();
    assert!(
        md.contains(&format!(
            "#### Max sustainable rate: {}/s",
            hakaru::report::fmt::fmt_qps(answer)
        )),
        "{md}"
    );
    let svg = std::fs::read_to_string(dir.path("fm-find-max.svg")).unwrap();
    assert!(svg.contains("SLO p99&lt;1s"), "{svg}");
    // Two searches compare by their answers, not by probes they happen to share (the
    // bug: "no rate in common", nothing else). The same search twice: the same
    // bracket, so neither is shown to hold more.
    let again = dir.path("again.json");
    std::fs::copy(&json, &again).unwrap();
    let o = run(&[
        "compare",
        json.to_str().unwrap(),
        again.to_str().unwrap(),
        "-o",
        dir.path("fm-again.html").to_str().unwrap(),
    ]);
    let text = ok(&o);
    assert!(
        text.contains("Both searched for the highest rate meeting p99<1s, errors<0.1%: fm held"),
        "{text}"
    );
    assert!(text.contains("neither is shown to hold more"), "{text}");
}

/// Regression (a machine stall failed a low probe for good): a probe at 470/s ended
/// with nothing answered for 2.5 s while the machine stalled, and the search, which
/// never climbs back above a failed rate, answered 220/s for a target holding far
/// more. Here the server the test started is stopped (SIGSTOP, by its PID) for 2 s
/// during the search's first probe and resumed (SIGCONT): that probe fails, the
/// search runs its rate again before the bracket moves, the repeat passes, the failure
/// is said not to be confirmed, and the answer climbs above the stalled rate.
#[test]
fn a_stall_during_the_first_probe_is_run_again_and_does_not_lower_the_answer() {
    let _one_at_a_time = crate::util::timed();
    // The main test's server and search (1,000/s; 470, 940, 1880, … 998.75, 940).
    let s = work_server(100);
    let dir = TempDir::new("find-max-stall");
    let csv = dir.path("fm.csv");
    let mut child = hakaru()
        .args(capacity_search(&csv, s.port))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("hakaru starts");
    // The first probe runs 5 s from about the start (no warm-up): 1.5 s in, the 2 s
    // stall leaves room on either side for a slow start on a busy machine. The ~940
    // requests due in it wait up to 2 s: over 1% of the probe's, so its p99 breaks 1 s.
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let pid = s.child.id().to_string();
    for (sig, pause) in [("-STOP", 2000), ("-CONT", 0)] {
        let st = std::process::Command::new("kill")
            .args([sig, &pid])
            .status()
            .unwrap();
        assert!(st.success(), "kill {sig} {pid}");
        std::thread::sleep(std::time::Duration::from_millis(pause));
    }
    let status = wait_bounded(&mut child, std::time::Duration::from_secs(400))
        .expect("the search ends within 400 s");
    let mut out = String::new();
    let mut err = String::new();
    use std::io::Read as _;
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert!(status.success(), "{status:?}\n{out}\n{err}");
    let v = read_json(&dir.path("fm.json"));
    let fm = &v["find_max"];
    let probes = fm["probes"].as_array().unwrap();
    let (first, repeat) = (&probes[0], &probes[1]);
    assert_eq!(
        (first["rate"].as_f64(), &first["passed"]),
        (Some(470.0), &serde_json::json!(false)),
        "the stall missed the first probe\n{out}"
    );
    assert_eq!(first["unconfirmed"], true, "{first:#}\n{out}");
    assert_eq!(repeat["rate"], 470.0, "{out}");
    assert_eq!(repeat["passed"], true, "{repeat:#}\n{out}");
    assert_eq!(
        repeat["repeat"],
        serde_json::json!({"of": 0, "confirming": "failure"}),
        "{repeat:#}"
    );
    let answer = fm["max_sustainable_rate"]
        .as_f64()
        .unwrap_or_else(|| panic!("{fm:#}"));
    // Above the stalled rate, which the bug made a ceiling; how close it lands below
    // the capacity is the capacity test's to say (a second stall on a loaded machine
    // is not this test's case).
    assert!(
        answer > 470.0 && answer <= 1000.0,
        "answer {answer}/s, capacity 1000/s\n{out}"
    );
    assert!(
        fm["lowest_failed_rate"].as_f64().unwrap() > answer,
        "{fm:#}"
    );
    // No rate failed more than twice (a real failure costs one repeat at most).
    for p in probes {
        let at = |q: &&serde_json::Value| q["rate"] == p["rate"] && q["passed"] == false;
        assert!(probes.iter().filter(at).count() <= 2, "{out}");
    }
    assert!(
        out.contains("repeat of #1, confirming a failure: not confirmed"),
        "{out}"
    );
    assert!(
        // #1, and any other failure a loaded machine made (a rate at the capacity
        // failing its confirmation once: its repeat passed too).
        out.contains(" not confirmed (#1 at 470.0/s"),
        "{out}"
    );
    let md = ok(&run(&[
        "report",
        dir.path("fm.json").to_str().unwrap(),
        "--markdown",
    ]));
    assert!(md.contains("| FAIL, not confirmed: "), "{md}");
}

/// Regression (a probe's parts dropped their queue): a probe ran as four steps back to
/// back, and each step's end dropped the requests in flight, so each part began with an
/// empty queue: a 6% overload read as flat medians (135/138/150/159 ms) and the search
/// above answered 1,057/s for this 1,000/s server on a loaded machine. A probe is now
/// one step, cut into parts afterwards from its per-second timeline: at 1.1x capacity
/// the backlog grows by 100 requests a second, each waiting 0.1 s longer than the last
/// second's, and the probe fails on that trend alone (its SLO is out of reach of it).
#[test]
fn a_probe_above_capacity_fails_on_a_queue_that_grows_across_its_parts() {
    let _one_at_a_time = crate::util::timed();
    // 100 workers of 100 ms: 1,000 requests per second. 600 connections hold the
    // 1,100 × 0.5 s in flight at the probe's end, so the queue stays the server's.
    let s = work_server(100);
    let dir = TempDir::new("find-max-queue");
    let csv = dir.path("fm.csv");
    let o = run(&[
        "ramp",
        "--find-max",
        "--slo",
        "p99<30s",
        "--start-rate",
        "1100",
        "--duration",
        "4s",
        "--interval",
        "1s",
        "--max-probes",
        "3",
        "--end-n-clients",
        "600",
        "-q",
        "-o",
        csv.to_str().unwrap(),
        &format!("http://127.0.0.1:{}/work?ms=100", s.port),
    ]);
    let out = stdout(&o);
    let v = read_json(&dir.path("fm.json"));
    let probes = v["find_max"]["probes"].as_array().unwrap().clone();
    let over = &probes[0];
    assert_eq!(over["rate"], 1100.0, "{out}");
    assert_eq!(
        over["passed"], false,
        "1,100/s against 1,000/s: {over:#}\n{out}"
    );
    assert_eq!(over["queue_growing"], true, "{over:#}\n{out}");
    assert_eq!(over["failed"].as_array().map(Vec::len), Some(0), "{over:#}");
    // One step of 4 s, cut into 4 parts of a second each.
    let step = &v["steps"][over["step"].as_u64().unwrap() as usize];
    assert!(step["elapsed_s"].as_f64().unwrap() >= 4.0, "{step}");
    assert_eq!(over["part_seconds"].as_array().map(Vec::len), Some(4));
    // Rising by about 0.1 s a second: 0.3 s from the first part to the last, less
    // whatever a busy machine takes off; the flat medians of the bug rose by 24 ms.
    let p50: Vec<f64> = over["part_p50_s"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect();
    assert!(p50[3] - p50[0] > 0.15, "{p50:?}\n{out}");
    assert!(
        over["why"].to_string().contains("queue growing"),
        "{over:#}"
    );
    // With nothing passed yet the failure is run again before the rate halves (a
    // stall fails a probe too), and a real overload fails its repeat as well.
    let repeat = &probes[1];
    assert_eq!(repeat["rate"], 1100.0, "{out}");
    assert_eq!(repeat["passed"], false, "{repeat:#}\n{out}");
    assert_eq!(repeat["repeat"]["confirming"], "failure", "{repeat:#}");
    // Half the rate holds: the test fails the overload, not every probe.
    assert_eq!(probes[2]["rate"], 550.0, "{out}");
    assert_eq!(probes[2]["queue_growing"], false, "{:#}\n{out}", probes[2]);
}

#[test]
fn no_rate_meeting_the_slo_exits_1_and_says_why() {
    let _one_at_a_time = crate::util::timed();
    let s = work_server(10);
    let dir = TempDir::new("find-max-none");
    let csv = dir.path("fm.csv");
    // Every response takes 100 ms: a 20 ms p99 is out of reach at any rate.
    let o = run(&[
        "ramp",
        "--find-max",
        "--slo",
        "p99<20ms",
        "--start-rate",
        "2000",
        "--duration",
        "0.5s",
        "--interval",
        "0",
        "--max-probes",
        "3",
        "--end-n-clients",
        "300",
        "-q",
        "-o",
        csv.to_str().unwrap(),
        &format!("http://127.0.0.1:{}/work?ms=100", s.port),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}\n{}", stdout(&o), stderr(&o));
    assert!(
        stderr(&o).contains("no probed rate met the SLO"),
        "{}",
        stderr(&o)
    );
    let fm = read_json(&dir.path("fm.json"))["find_max"].clone();
    assert_eq!(fm["max_sustainable_rate"], serde_json::Value::Null);
    let probes = fm["probes"].as_array().unwrap();
    // Each failure, with nothing passed, is run again once before the rate halves.
    assert_eq!(probes.len(), 3, "{fm:#}");
    assert_eq!(probes[1]["rate"], 2000.0);
    assert_eq!(probes[1]["repeat"]["confirming"], "failure");
    assert_eq!(probes[2]["rate"], 1000.0);
    for p in probes {
        assert_eq!(p["passed"], false);
        let why = p["why"].to_string();
        // "p99<20ms was 106 ms", or "p99<20ms: nothing to measure it on" when a busy
        // machine got no response in the probe.
        assert!(why.contains("p99<20ms"), "{why}");
    }
    let md = ok(&run(&[
        "report",
        dir.path("fm.json").to_str().unwrap(),
        "--markdown",
    ]));
    assert!(md.contains("#### No rate met the SLO"), "{md}");
    assert_eq!(md.matches(" | **FAIL**: ").count(), 3, "{md}");
    assert!(md.contains("(needs 1000 to judge); p99<20ms"), "{md}");
    // A metric the search cannot measure is refused before any load.
    let o = run(&[
        "ramp",
        "--find-max",
        "--slo",
        "p99<1s,docs_per_s>10",
        "http://127.0.0.1:9/",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--slo docs_per_s>10"), "{}", stderr(&o));
}

/// Regression (issue 19): with `--interval 0` a probe right after an overload probe
/// measured the overload's backlog. Now the search waits, whatever `--interval` says,
/// until short low-rate checks answer as the first passing probe did, and records
/// the wait on the probe that follows.
#[test]
fn a_probe_after_an_overload_waits_for_the_target_to_settle() {
    let _one_at_a_time = crate::util::timed();
    // 20 workers of 10 ms: 2,000 requests per second. Probes at 1,000 (well within),
    // 2,000 and 4,000: one of the last two does not pass, and the probe after it waits.
    // 2 s probes and p99<200ms: a probe is one step, so an overload's queue grows
    // through it by (rate - capacity) / capacity x its length (1 s at 2x in a 2 s
    // probe; hakaru's connections cap it lower), while a loaded machine's client
    // lateness alone put the first probe's p99 at 114 and 249 ms (CI-like runs here,
    // hakaru leaving 399 requests late). 200 ms sits between the two with room, and
    // 2,000 responses leave room over the 1,000 a probe needs.
    let s = work_server(20);
    let dir = TempDir::new("find-max-settle");
    let csv = dir.path("fm.csv");
    let o = run(&[
        "ramp",
        "--find-max",
        "--slo",
        "p99<200ms",
        "--start-rate",
        "1000",
        "--duration",
        "2s",
        "--interval",
        "0",
        "--max-probes",
        "4",
        "-o",
        csv.to_str().unwrap(),
        &format!("http://127.0.0.1:{}/work?ms=10", s.port),
    ]);
    let out = stdout(&o);
    let v = read_json(&dir.path("fm.json"));
    let probes = v["find_max"]["probes"].as_array().unwrap().clone();
    assert_eq!(probes[0]["passed"], true, "1,000/s against 2,000/s: {out}");
    let failed = probes
        .iter()
        .position(|p| p["passed"] == false)
        .unwrap_or_else(|| panic!("every probe passed: {out}"));
    let next = probes
        .get(failed + 1)
        .unwrap_or_else(|| panic!("no probe after the failure: {out}"));
    // A wait before every probe that follows one that did not pass (once one has
    // passed: the first passing probe is what "as before" means), and only there.
    for (i, p) in probes.iter().enumerate().skip(1) {
        let waits =
            probes[i - 1]["passed"] == false && probes[..i - 1].iter().any(|q| q["passed"] == true);
        assert_eq!(p.get("settle").is_some(), waits, "probe {i}: {p}\n{out}");
    }
    let settle = &next["settle"];
    assert!(settle["checks"].as_u64().unwrap() >= 1, "{settle}");
    assert!(settle["waited_s"].as_f64().unwrap() > 0.0, "{settle}");
    let failed_rate = probes[failed]["rate"].as_f64().unwrap();
    assert!(
        settle["rate"].as_f64().unwrap() <= failed_rate / 4.0,
        "{settle}"
    );
    assert!(
        out.contains("settled: ") || out.contains("not settled after"),
        "{out}"
    );
    assert!(
        out.contains("did not pass, the search waited for the target"),
        "{out}"
    );
}

/// Issue 35: `--duration 2` announced "probes of … 2.00 s (26m00s as planned)", then
/// ran its first probe at 100/s for 12 s. Without `--start-rate` the first probe now
/// keeps to `--duration`, and the line says the plan it runs.
#[test]
fn the_first_probe_keeps_to_duration_and_the_plan_says_so() {
    let server = work_server(4);
    let dir = TempDir::new("find-max-plan");
    let csv = dir.path("r.csv");
    let url = format!("http://127.0.0.1:{}/work?ms=1", server.port);
    let o = run(&[
        "ramp",
        "--find-max",
        "--slo",
        "p99<1s",
        "--duration",
        "1s",
        "--interval",
        "0.2s",
        "--max-probes",
        "2",
        "--end-n-clients",
        "50",
        "-o",
        csv.to_str().unwrap(),
        &url,
    ]);
    let out = stdout(&o);
    assert!(
        out.contains(
            "from 1200/s: probes of 1.00 s (longer below 1200/s, to gather 1000 responses), \
             at most 2 of them (2s as planned,"
        ),
        "{out}{}",
        stderr(&o)
    );
    let v = read_json(&dir.path("r.json"));
    let first = &v["steps"][0];
    assert_eq!(first["rate"].as_f64(), Some(1200.0), "{first}");
    assert!(
        first["elapsed_s"].as_f64().unwrap() < 1.6,
        "{}",
        first["elapsed_s"]
    );
}
