//! Write throughput against real servers: pouchdb-server (CouchDB's HTTP API on Node)
//! and Groonga, both started on loopback and stopped by PID.

use crate::util::*;

#[test]
fn pouchdb_server_starts_takes_a_bulk_write_and_stops() {
    if !have_pouchdb() {
        return;
    }
    let s = pouchdb();
    let db = format!("http://127.0.0.1:{}/harness", s.port);
    assert_eq!(http(&db, "PUT", None).unwrap().0, 201);
    let (status, body) = http(
        &format!("{db}/_bulk_docs"),
        "POST",
        Some(r#"{"docs":[{"_id":"a"},{"_id":"b"}]}"#),
    )
    .unwrap();
    assert_eq!(status, 201, "{body}");
    let (_, info) = http(&db, "GET", None).unwrap();
    let v: serde_json::Value = serde_json::from_str(&info).unwrap();
    assert_eq!(v["doc_count"], 2);
    let root = format!("http://127.0.0.1:{}/", s.port);
    drop(s);
    assert!(http(&root, "GET", None).is_none(), "stopped by its PID");
}
