//! What a `hakaru sysbench run` leaves behind names its test: the result's settings,
//! CSV and JSON, `report`'s summary and page, a `merge` of two results, and the labels
//! a `--threshold` may name. The run was once built through a placeholder script
//! (`SELECT 1;`) whose workload was then swapped for the test's; nothing of it may show.

use std::process::Output;

use crate::pg::Postgres;
use crate::util::{hakaru, TempDir};

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn ok(out: Output) -> String {
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    t
}

fn read(path: &std::path::Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The placeholder's words, and what must be said instead.
fn names_the_test(what: &str, text: &str) {
    assert!(!text.contains("SELECT 1"), "{what}: {text}");
    assert!(text.contains("oltp_point_select"), "{what}: {text}");
}

#[test]
fn a_sysbench_result_names_its_test_never_a_placeholder_script() {
    let Some(pg) = Postgres::start(&[]) else {
        return;
    };
    let conn = super::sysbench::conn(&pg);
    let sb = |args: &[&str]| hakaru().arg("sysbench").args(&conn).args(args).output();
    let test = ["oltp_point_select", "--table-size=100"];
    ok(sb(&[&test[..], &["prepare"]].concat()).unwrap());
    let dir = TempDir::new("sysbench-result");
    let csv = dir.path("a.csv");
    let run = [
        "--threads=2",
        "--events=40",
        "--time=60",
        "-o",
        csv.to_str().unwrap(),
        "--threshold",
        "p99{thread=1}<30s",
        "run",
    ];
    // sysbench's own report names no test; it must name no script either.
    let out = ok(sb(&[&test[..], &run[..]].concat()).unwrap());
    assert!(!out.contains("SELECT 1"), "{out}");
    assert!(!read(&csv).contains("SELECT 1"));
    let result = csv.with_extension("json");
    let json: serde_json::Value = serde_json::from_str(&read(&result)).unwrap();
    let settings = &json["settings"];
    assert_eq!(settings["patterns_source"], "sysbench oltp_point_select");
    assert_eq!(settings["n_patterns"], 1, "{settings}");
    names_the_test("the JSON", &read(&result));
    // `report`: the summary, the Markdown table and the page. (`merge` takes shards'
    // results only, and sysbench has no --shard.)
    let page = dir.path("a.page.html");
    let out = ok(hakaru()
        .arg("report")
        .arg(&result)
        .arg("-o")
        .arg(&page)
        .args(["--markdown", "--threshold", "p99{thread=0}<30s"])
        .output()
        .unwrap());
    names_the_test("report's summary and Markdown", &out);
    assert!(
        out.contains("### sysbench oltp_point_select of postgres://127.0.0.1:"),
        "the heading names the test: {out}"
    );
    names_the_test("report's page", &read(&page));
    // The labels a threshold may name are the test's threads, no script's.
    let out = sb(&[
        &test[..],
        &[
            "--events=5",
            "--threshold",
            "p99{script=oltp_point_select}<1s",
            "run",
        ],
    ]
    .concat())
    .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let t = text(&out);
    assert!(t.contains("thread"), "{t}");
    assert!(
        !t.contains("SQL statistics"),
        "refused before any load: {t}"
    );
}
