//! `hakaru serve --docs`, the embedded document store, as a child process under
//! `hakaru bulk --target couchdb`: every document accounted for, `batch=ok` honoured
//! (202, no "mode ignored" warning), conflicts counted, full commit recorded. Counts
//! only, never time.

use crate::bulk::{bulk, bulk_with_ten_conflicts};
use crate::util::*;

/// `hakaru serve --docs` on a loopback port, stopped by its PID when dropped.
pub(crate) fn docs_server() -> Server {
    hakaru_serve(&["--docs", "--threads", "2"], "docs-server")
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
    let dir = TempDir::new("docs-conflict");
    let (out, v) = bulk_with_ten_conflicts(&db, &dir);
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

/// The store standing in for Elasticsearch: `_bulk` NDJSON with real per-item results,
/// `_count` for `--verify`.
#[test]
fn elasticsearch_bulk_counts_every_document_and_conflicts_by_type() {
    let s = docs_server();
    let index = format!("http://127.0.0.1:{}/logs", s.port);
    let dir = TempDir::new("docs-es");
    let (out, v) = bulk(
        &dir,
        &[
            "--target",
            "elasticsearch",
            &index,
            "--batch-sizes",
            "10,100",
            "--writers",
            "1,2",
            "--count",
            "200",
            "--verify",
        ],
    );
    let text = ok(&out);
    for i in 0..4 {
        assert_eq!(v["steps"][i]["bulk"]["docs_acknowledged"], 200, "{text}");
    }
    assert_eq!(v["settings"]["bulk"]["action"], "index");
    assert_eq!(
        v["settings"]["bulk"]["content_type"],
        "application/x-ndjson"
    );
    assert_eq!(v["verify"]["present"], 800, "{text}");
    assert_eq!(v["verify"]["matches"], true);

    // Ten IDs written first: `create` of them again is a version conflict each.
    let lines: String = (0..10)
        .map(|i| format!("{{\"create\":{{\"_id\":\"e-000000-{i:012}\"}}}}\n{{\"a\":1}}\n"))
        .collect();
    let (status, body) = http(&format!("{index}/_bulk"), "POST", Some(&lines)).unwrap();
    assert_eq!(status, 200, "{body}");
    assert!(body.contains(r#""errors":false"#), "{body}");
    let (out, v) = bulk(
        &dir,
        &[
            "--target",
            "opensearch",
            &index,
            "--action",
            "create",
            "--batch-sizes",
            "20",
            "--count",
            "60",
            "--id-prefix",
            "e-",
            "--verify",
        ],
    );
    let text = ok(&out);
    let b = &v["steps"][0]["bulk"];
    assert_eq!(
        b["item_errors"]["version_conflict_engine_exception"], 10,
        "{text}"
    );
    assert_eq!(b["docs_acknowledged"], 50);
    assert_eq!(v["verify"]["matches"], true, "{text}");
    assert!(
        text.contains("version_conflict_engine_exception 10"),
        "{text}"
    );
    let (_, count) = http(&format!("{index}/_count"), "GET", None).unwrap();
    assert!(count.contains(r#""count":860"#), "{count}");
    // A malformed action line refuses the request, as Elasticsearch does.
    let (status, body) = http(&format!("{index}/_bulk"), "POST", Some("[1]\n")).unwrap();
    assert_eq!(status, 400, "{body}");
    assert!(
        body.contains("Malformed action/metadata line [1]"),
        "{body}"
    );
}

/// `--target template` with per-item errors read at a wildcard pointer, against the
/// store's Elasticsearch `_bulk`.
#[test]
fn a_templated_ndjson_body_counts_item_errors_at_a_pointer() {
    let s = docs_server();
    let base = format!("http://127.0.0.1:{}", s.port);
    let dir = TempDir::new("docs-template");
    let template = dir.path("bulk.ndjson");
    // The index exists before the first count (`PUT /tpl` makes it, as in Elasticsearch).
    create_db(&s, "tpl");
    std::fs::write(
        &template,
        "{{#docs}}{\"create\":{\"_index\":\"tpl\",\"_id\":\"{{id}}\"}}\n{\"n\":{{seq}}}\n{{/docs}}",
    )
    .unwrap();
    let args = |count: &str| -> Vec<String> {
        [
            "--target",
            "template",
            &format!("{base}/_bulk"),
            "--template",
            template.to_str().unwrap(),
            "--content-type",
            "application/x-ndjson",
            "--item-error-pointer",
            "/items/*/*/error",
            "--batch-sizes",
            "20",
            "--count",
            count,
            "--id-prefix",
            "tp-",
            "--verify",
            "--count-url",
            &format!("{base}/tpl/_count"),
            "--count-pointer",
            "/count",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect()
    };
    let a = args("100");
    let (out, v) = bulk(&dir, &a.iter().map(String::as_str).collect::<Vec<_>>());
    let text = ok(&out);
    assert_eq!(v["steps"][0]["bulk"]["docs_acknowledged"], 100, "{text}");
    assert_eq!(v["verify"]["present"], 100, "{text}");
    // The same IDs again: every one a version conflict, counted by its type — and a
    // write the server acknowledged none of is a failed measurement (exit 1).
    let a = args("40");
    let (out, v) = bulk(&dir, &a.iter().map(String::as_str).collect::<Vec<_>>());
    let text = crate::util::stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        crate::util::stderr(&out).contains("nothing was acknowledged"),
        "{text}"
    );
    assert_eq!(
        v["steps"][0]["bulk"]["item_errors"]["version_conflict_engine_exception"], 40,
        "{text}"
    );
    assert_eq!(v["verify"]["matches"], true, "{text}");
}

/// nginx in front of the store with a small `client_max_body_size`: the batches it
/// refuses (413) are explained with their size, not just counted.
#[test]
fn a_413_from_a_proxy_is_explained_with_the_batch_size_and_bytes() {
    if !have("nginx") {
        return;
    }
    let s = docs_server();
    create_db(&s, "limited");
    let proxy = nginx_proxy(s.port, "client_max_body_size 4k;");
    let db = format!("http://127.0.0.1:{}/limited", proxy.port);
    let dir = TempDir::new("docs-413");
    let (out, v) = bulk(
        &dir,
        &[
            &db,
            "--batch-sizes",
            "10,500",
            "--count",
            "1000",
            "--verify",
        ],
    );
    let text = stdout(&out);
    assert_eq!(v["steps"][0]["bulk"]["docs_acknowledged"], 1000, "{text}");
    assert_eq!(v["steps"][1]["statuses"]["413"], 2, "{text}");
    assert_eq!(v["steps"][1]["bulk"]["item_errors"]["rejected"], 1000);
    assert!(
        text.contains("Too large: at batch size 500 with 1 writer (about 2"),
        "{text}"
    );
    assert!(
        text.contains("answered 413 Content Too Large and their 1000 documents not written"),
        "{text}"
    );
    assert!(text.contains("client_max_body_size"), "{text}");
    assert_eq!(v["verify"]["present"], 1000);
    assert_eq!(v["verify"]["matches"], true);
}

/// A timed step ends with batches in flight; the store may write them after hakaru
/// stopped listening. `--verify` then finds more than acknowledged, and says why
/// instead of failing. (When no batch was cut off, the counts match exactly.)
#[test]
fn documents_in_flight_at_a_timed_steps_end_explain_a_surplus() {
    let s = docs_server();
    let db = create_db(&s, "inflight");
    let dir = TempDir::new("docs-inflight");
    let (out, v) = bulk(
        &dir,
        &[
            &db,
            "--batch-sizes",
            "2000",
            "--writers",
            "4",
            "--duration",
            "1s",
            "--verify",
        ],
    );
    let text = ok(&out);
    let (ack, present) = (
        v["verify"]["acknowledged"].as_i64().unwrap(),
        v["verify"]["present"].as_i64().unwrap(),
    );
    let in_flight = v["verify"]["in_flight"].as_i64().unwrap();
    assert!(present >= ack && present <= ack + in_flight, "{text}");
    if present > ack {
        assert!(text.contains("explained: "), "{text}");
        assert!(!text.contains("FAILED"), "{text}");
    }
}

/// `hakaru report` and `hakaru compare` on bulk results: the charts against batch
/// size, one line per writer count, and the table with its explanations.
#[test]
fn bulk_results_are_reported_and_compared_by_batch_size() {
    let s = docs_server();
    let dir = TempDir::new("docs-report");
    let mut files = Vec::new();
    for name in ["plain", "durable"] {
        let db = create_db(&s, name);
        let csv = dir.path(&format!("{name}.csv"));
        let mut cmd = hakaru();
        cmd.args(["bulk", &db, "--batch-sizes", "10,50", "--writers", "1,2"]);
        cmd.args(["--count", "100", "-o", csv.to_str().unwrap()]);
        if name == "durable" {
            cmd.arg("--full-commit");
        }
        ok(&cmd.output().unwrap());
        files.push(dir.path(&format!("{name}.json")));
    }
    let out = run(&[
        "report",
        files[0].to_str().unwrap(),
        "--svg",
        "--markdown",
        dir.path("plain.md").to_str().unwrap(),
    ]);
    let text = ok(&out);
    assert!(text.contains("batch writers"), "{text}");
    let html = std::fs::read_to_string(dir.path("plain.html")).unwrap();
    assert!(
        html.contains("Documents per second by batch size"),
        "{html}"
    );
    assert!(html.contains("<th>acknowledged</th>"));
    let svg = std::fs::read_to_string(dir.path("plain-docs.svg")).unwrap();
    assert!(
        svg.contains("1 writer") && svg.contains("2 writers"),
        "{svg}"
    );
    assert!(dir.path("plain-latency.svg").exists());
    let md = std::fs::read_to_string(dir.path("plain.md")).unwrap();
    assert!(md.contains("| 50 | 2 |"), "{md}");

    let out = run(&[
        "compare",
        files[0].to_str().unwrap(),
        files[1].to_str().unwrap(),
        "-o",
        dir.path("cmp.html").to_str().unwrap(),
        "--svg",
    ]);
    ok(&out);
    let svg = std::fs::read_to_string(dir.path("cmp-docs.svg")).unwrap();
    assert!(svg.contains("durable, 2 writers"), "{svg}");
    let html = std::fs::read_to_string(dir.path("cmp.html")).unwrap();
    assert!(html.contains("full commit"), "{html}");
}
