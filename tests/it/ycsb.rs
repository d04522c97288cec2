//! YCSB's core workloads as `hakaru suite --profile ycsb-*` against the embedded
//! document store (`hakaru serve --docs`) and pouchdb-server: the load puts every
//! record in once, the mix sends operations in YCSB's proportions, and nothing
//! fails. Counts only, never time.

use serde_json::Value;

use crate::docs::{doc_count, docs_server};
use crate::util::*;

/// The profile as printed, pointed at `db`, with short phases and fewer records.
fn scenario(dir: &TempDir, name: &str, db: &str, records: u64) -> std::path::PathBuf {
    let text = ok(&run(&["suite", "--profile", name, "--print"]));
    let text = text
        .replace(&format!("http://127.0.0.1:5984/{name}"), db)
        .replace("records = 1000", &format!("records = {records}"))
        .replace("duration = \"60s\"", "duration = \"3s\"")
        .replace("clients = 16", "clients = 4");
    dir.write(&format!("{name}.toml"), &text)
}

/// Operations of a step by kind.
fn ops(step: &Value) -> std::collections::BTreeMap<String, u64> {
    step["operations"]
        .as_object()
        .map(|o| {
            o.iter()
                .map(|(k, v)| (k.clone(), v.as_u64().unwrap()))
                .collect()
        })
        .unwrap_or_default()
}

/// `part` of `n` is a share `p`, within four standard deviations of the binomial.
fn near(part: u64, n: u64, p: f64) -> bool {
    let sd = (p * (1.0 - p) / n as f64).sqrt();
    ((part as f64 / n as f64) - p).abs() <= 4.0 * sd + 0.005
}

/// Runs a YCSB profile against the embedded store and checks its load.
fn run_profile(name: &str, records: u64) -> (Value, String, Server) {
    run_against(docs_server(), name, records)
}

/// Runs a YCSB profile against `server` and checks its load: every record inserted once.
fn run_against(server: Server, name: &str, records: u64) -> (Value, String, Server) {
    let db = format!("http://127.0.0.1:{}/{name}", server.port);
    let dir = TempDir::new(name);
    let s = scenario(&dir, name, &db, records);
    let out = dir.path("r.csv");
    ok(&run(&[
        "suite",
        s.to_str().unwrap(),
        "-q",
        "-o",
        out.to_str().unwrap(),
    ]));
    let r = read_json(&out.with_extension("json"));
    let load = &r["steps"][0];
    assert_eq!(load["total_requests"], records.div_ceil(100), "{load}");
    assert_eq!(load["items"]["ok"], records, "{load}");
    assert_eq!(load["items"]["failed"], serde_json::json!({}), "{load}");
    assert_eq!(ops(load)["insert"], records);
    assert_eq!(load["errors"], serde_json::json!({}), "{load}");
    (r, db, server)
}

#[test]
fn ycsb_a_reads_and_updates_half_and_half() {
    let (r, db, _server) = run_profile("ycsb-a", 300);
    let step = &r["steps"][1];
    assert_eq!(step["errors"], serde_json::json!({}), "{step}");
    // Only 2xx, and 409s: two clients updated one hot record at once (retried).
    for (status, _) in step["statuses"].as_object().unwrap() {
        assert!(status.starts_with('2') || status == "409", "{step}");
    }
    let o = ops(step);
    let (read, update) = (o["read"], o["update"]);
    assert!(read + update >= 200, "{o:?}");
    assert!(near(read, read + update, 0.5), "{o:?}");
    assert_eq!(o.len(), 2, "{o:?}");
    // Updates change records, they add none.
    assert_eq!(doc_count(&db), 300);
}

#[test]
fn ycsb_e_scans_and_inserts() {
    let (r, db, _server) = run_profile("ycsb-e", 300);
    let step = &r["steps"][1];
    assert_eq!(step["errors"], serde_json::json!({}), "{step}");
    assert_eq!(step["non_2xx_3xx"].as_u64().unwrap_or(0), 0, "{step}");
    for (status, _) in step["statuses"].as_object().unwrap() {
        assert!(status.starts_with('2'), "{step}");
    }
    let o = ops(step);
    let (scan, insert) = (o["scan"], o["insert"]);
    assert!(scan + insert >= 200, "{o:?}");
    assert!(near(insert, scan + insert, 0.05), "{o:?}");
    assert_eq!(o.len(), 2, "{o:?}");
    // Every insert answered is there; one cut off at the phase's end may be too.
    let present = doc_count(&db);
    let unfinished = step["unfinished"].as_u64().unwrap();
    assert!(
        present >= 300 + insert && present <= 300 + insert + unfinished,
        "{present} present, {insert} inserted, {unfinished} cut off"
    );
}

#[test]
fn ycsb_f_reads_and_read_modify_writes_on_pouchdb_server() {
    if !have_pouchdb() {
        return;
    }
    let (r, db, _server) = run_against(pouchdb(), "ycsb-f", 200);
    let step = &r["steps"][1];
    assert_eq!(step["errors"], serde_json::json!({}), "{step}");
    for (status, _) in step["statuses"].as_object().unwrap() {
        assert!(status.starts_with('2') || status == "409", "{step}");
    }
    let o = ops(step);
    let (read, rmw) = (o["read"], o["read-modify-write"]);
    assert!(read + rmw >= 100, "{o:?}");
    assert!(near(read, read + rmw, 0.5), "{o:?}");
    assert_eq!(doc_count(&db), 200);
}
