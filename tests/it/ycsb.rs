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
    // On failure, what a mechanism (not chance) would show: statuses, errors, seed.
    let why = format!(
        "{o:?} statuses {} seed {}",
        step["statuses"], r["settings"]["seed"]
    );
    assert!(read + update >= 200, "{why}");
    assert!(near(read, read + update, 0.5), "{why}");
    assert_eq!(o.len(), 2, "{o:?}");
    // Updates change records, they add none.
    assert_eq!(doc_count(&db), 300);
}

#[test]
fn ycsb_e_scans_and_inserts() {
    let (r, db, _server) = run_profile("ycsb-e", 300);
    let step = &r["steps"][1];
    assert_eq!(step["errors"], serde_json::json!({}), "{step}");
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

/// Two shards load one set of records between them — each its lane of the batches,
/// none twice — and their merged result counts every record once.
#[test]
fn two_shards_load_every_record_once() {
    let server = docs_server();
    let db = format!("http://127.0.0.1:{}/ycsb-c", server.port);
    let dir = TempDir::new("ycsb-shards");
    let text = std::fs::read_to_string(scenario(&dir, "ycsb-c", &db, 450))
        .unwrap()
        .replace("duration = \"5m\"", "duration = \"4s\"")
        .replace("duration = \"3s\"", "duration = \"1s\"");
    let s = dir.write("c.toml", &text);
    let children: Vec<_> = (1..=2)
        .map(|k| {
            let out = dir.path(&format!("shard-{k}.csv"));
            let child = hakaru()
                .args(["suite", s.to_str().unwrap(), "--shard", &format!("{k}/2")])
                .args(["--start-at", "+2s", "-q", "-o", out.to_str().unwrap()])
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .expect("hakaru suite starts");
            (child, out.with_extension("json"))
        })
        .collect();
    let mut paths = Vec::new();
    for (child, json) in children {
        ok(&child.wait_with_output().unwrap());
        paths.push(json.display().to_string());
    }
    // 5 batches of 100 records: 3 on shard 1, 2 on shard 2.
    let batches: Vec<u64> = paths
        .iter()
        .map(|p| {
            read_json(std::path::Path::new(p))["steps"][0]["total_requests"]
                .as_u64()
                .unwrap()
        })
        .collect();
    assert_eq!(batches, vec![3, 2]);
    let merged = dir.path("m.csv");
    ok(&run(&[
        "merge",
        &paths[0],
        &paths[1],
        "-o",
        merged.to_str().unwrap(),
    ]));
    let m = read_json(&merged.with_extension("json"));
    let load = &m["steps"][0];
    assert_eq!(load["items"]["ok"], 450, "{load}");
    assert_eq!(load["items"]["failed"], serde_json::json!({}), "{load}");
    assert_eq!(ops(load)["insert"], 450);
    assert_eq!(doc_count(&db), 450);
    // Reads found every record they drew.
    let run_step = &m["steps"][1];
    assert_eq!(run_step["errors"], serde_json::json!({}), "{run_step}");
    for (status, _) in run_step["statuses"].as_object().unwrap() {
        assert_eq!(status, "200", "{run_step}");
    }
    assert!(ops(run_step)["read"] > 0);
}
