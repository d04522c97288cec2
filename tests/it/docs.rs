//! `hakaru serve --docs`, the embedded document store, as a child process under
//! `hakaru bulk --target couchdb`: every document accounted for, `batch=ok` honoured
//! (202, no "mode ignored" warning), conflicts counted, full commit recorded. Counts
//! only, never time.

use std::io::{BufRead, BufReader};
use std::process::Stdio;

use crate::util::*;

/// `hakaru serve --docs` on a loopback port, stopped by its PID when dropped.
pub(crate) fn docs_server() -> Server {
    let mut child = hakaru()
        .args(["serve", "--docs", "--bind", "127.0.0.1:0", "--threads", "2"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("hakaru serve --docs starts");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let port = line
        .trim()
        .rsplit_once(':')
        .and_then(|(_, p)| p.parse().ok())
        .unwrap_or_else(|| panic!("no address in {line:?}"));
    Server {
        child,
        port,
        dir: TempDir::new("docs-server"),
    }
}

pub(crate) fn create_db(s: &Server, name: &str) -> String {
    let db = format!("http://127.0.0.1:{}/{name}", s.port);
    let (status, body) = http(&db, "PUT", None).expect("the store answers");
    assert_eq!(status, 201, "{body}");
    db
}

pub(crate) fn doc_count(db: &str) -> u64 {
    let (_, info) = http(db, "GET", None).unwrap();
    let v: serde_json::Value = serde_json::from_str(&info).unwrap();
    v["doc_count"].as_u64().unwrap()
}

fn bulk(dir: &TempDir, args: &[&str]) -> (std::process::Output, serde_json::Value) {
    let csv = dir.path("bulk.csv");
    let out = hakaru()
        .arg("bulk")
        .args(args)
        .arg("-o")
        .arg(&csv)
        .output()
        .expect("hakaru runs");
    (out, read_json(&dir.path("bulk.json")))
}

#[test]
fn batches_and_writers_add_up_with_verify() {
    let s = docs_server();
    let db = create_db(&s, "bench");
    let dir = TempDir::new("docs-batches");
    let (out, v) = bulk(
        &dir,
        &[
            &db,
            "--batch-sizes",
            "10,100",
            "--writers",
            "1,3",
            "--count",
            "300",
            "--verify",
        ],
    );
    let text = ok(&out);
    let steps = v["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 4);
    let mut total = 0;
    for s in steps {
        assert_eq!(s["bulk"]["docs_acknowledged"], 300, "{text}");
        assert_eq!(s["statuses"].as_object().unwrap().len(), 1, "only 201s");
        assert!(s["statuses"]["201"].as_u64().unwrap() > 0);
        total += s["bulk"]["docs_acknowledged"].as_u64().unwrap();
    }
    assert_eq!(v["verify"]["matches"], true, "{text}");
    assert_eq!(v["verify"]["acknowledged"], total);
    assert_eq!(doc_count(&db), total);
    // The CSV: drnbench's columns first, bulk's by name after.
    let (h, rows) = read_csv(&dir.path("bulk.csv"));
    assert_eq!(h[0], "n_clients");
    assert_eq!(rows.len(), 4);
    assert_eq!(col(&h, &rows[1], "batch_size"), 10.0);
    assert_eq!(col(&h, &rows[1], "writers"), 3.0);
    assert_eq!(col(&h, &rows[3], "docs_acknowledged"), 300.0);
    assert!(col(&h, &rows[3], "docs_per_s") > 0.0);
}

#[test]
fn single_inserts_by_put_and_by_server_id() {
    let s = docs_server();
    let db = create_db(&s, "single");
    let dir = TempDir::new("docs-single");
    let (out, v) = bulk(&dir, &[&db, "--single", "--count", "25", "--writers", "2"]);
    ok(&out);
    assert_eq!(v["steps"][0]["bulk"]["docs_acknowledged"], 25);
    let (out, v) = bulk(
        &dir,
        &[
            &db, "--single", "--ids", "server", "--count", "15", "--verify",
        ],
    );
    ok(&out);
    assert_eq!(v["steps"][0]["statuses"]["201"], 15);
    assert_eq!(doc_count(&db), 40);
}

#[test]
fn batch_ok_is_answered_202_without_a_warning_and_kept() {
    let s = docs_server();
    let db = create_db(&s, "batchok");
    let dir = TempDir::new("docs-batch-ok");
    let (out, v) = bulk(
        &dir,
        &[&db, "--single", "--count", "30", "--batch-ok", "--verify"],
    );
    let text = ok(&out);
    assert!(!text.contains("mode was ignored"), "{text}");
    assert!(!text.contains("Warning: batch=ok"), "{text}");
    assert_eq!(v["steps"][0]["statuses"]["202"], 30, "{text}");
    assert_eq!(v["settings"]["bulk"]["batch_ok"], true);
    // GET /db commits what waits, so the count agrees at once.
    assert_eq!(v["verify"]["matches"], true, "{text}");
    assert_eq!(doc_count(&db), 30);
    // Bulk requests with batch=ok are deferred too.
    let (out, v) = bulk(
        &dir,
        &[&db, "--batch-sizes", "10", "--count", "50", "--batch-ok"],
    );
    ok(&out);
    assert_eq!(v["steps"][0]["statuses"]["202"], 5);
    assert_eq!(v["steps"][0]["bulk"]["docs_acknowledged"], 50);
    assert_eq!(doc_count(&db), 80);
}

#[test]
fn a_conflict_is_counted_by_kind() {
    let s = docs_server();
    let db = create_db(&s, "conflicts");
    let docs: Vec<String> = (0..10)
        .map(|i| format!(r#"{{"_id":"t-000000-{i:012}"}}"#))
        .collect();
    let (status, _) = http(
        &format!("{db}/_bulk_docs"),
        "POST",
        Some(&format!(r#"{{"docs":[{}]}}"#, docs.join(","))),
    )
    .unwrap();
    assert_eq!(status, 201);
    let dir = TempDir::new("docs-conflict");
    let (out, v) = bulk(
        &dir,
        &[
            &db,
            "--batch-sizes",
            "20",
            "--count",
            "60",
            "--id-prefix",
            "t-",
            "--verify",
        ],
    );
    let text = ok(&out);
    assert_eq!(
        v["steps"][0]["bulk"]["item_errors"]["conflict"], 10,
        "{text}"
    );
    assert_eq!(v["steps"][0]["bulk"]["docs_acknowledged"], 50);
    assert_eq!(v["verify"]["matches"], true, "{text}");
    assert_eq!(doc_count(&db), 60);
    let (h, rows) = read_csv(&dir.path("bulk.csv"));
    assert_eq!(col(&h, &rows[0], "item_errors_conflict"), 10.0);
}

#[test]
fn full_commit_completes_and_is_recorded() {
    let s = docs_server();
    let db = create_db(&s, "durable");
    let dir = TempDir::new("docs-full-commit");
    for full in [false, true] {
        let mut args = vec![db.as_str(), "--single", "--count", "20", "--verify"];
        if full {
            args.push("--full-commit");
        }
        let (out, v) = bulk(&dir, &args);
        let text = ok(&out);
        assert_eq!(v["settings"]["bulk"]["full_commit"], full, "{text}");
        assert_eq!(v["steps"][0]["statuses"]["201"], 20, "{text}");
        assert_eq!(v["verify"]["matches"], true, "{text}");
    }
    assert_eq!(doc_count(&db), 40);
}
