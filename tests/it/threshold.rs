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
