//! The document store through its handler: CouchDB's answers, conflicts, deferred
//! writes and their flush.

use super::*;
use bytes::Bytes;
use hyper::HeaderMap;

fn call(
    t: &DocsTarget,
    method: &str,
    target: &str,
    body: &str,
    headers: &[(&str, &str)],
) -> (u16, Value) {
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    let mut map = HeaderMap::new();
    map.insert("content-type", "application/json".parse().unwrap());
    for (k, v) in headers {
        map.insert(
            hyper::header::HeaderName::from_bytes(k.as_bytes()).unwrap(),
            v.parse().unwrap(),
        );
    }
    let body = Bytes::from(body.to_string());
    let r = t.handle(&Request {
        method,
        path,
        query,
        headers: &map,
        body: &body,
    });
    let v = serde_json::from_slice(&r.body).unwrap_or(Value::Null);
    (r.status, v)
}

fn target() -> DocsTarget {
    let t = DocsTarget::new(&DocsOptions::default()).unwrap();
    assert_eq!(call(&t, "PUT", "/bench", "", &[]).0, 201);
    t
}

#[test]
fn databases_are_created_once_and_counted() {
    let t = target();
    assert_eq!(
        call(&t, "PUT", "/bench", "", &[]),
        (412, call(&t, "PUT", "/bench", "", &[]).1)
    );
    assert_eq!(call(&t, "PUT", "/Bad", "", &[]).0, 400);
    let (s, info) = call(&t, "GET", "/bench", "", &[]);
    assert_eq!(s, 200);
    assert_eq!(info["db_name"], "bench");
    assert_eq!(info["doc_count"], 0);
    assert_eq!(call(&t, "GET", "/nope", "", &[]).0, 404);
    assert_eq!(
        call(&t, "POST", "/nope/_bulk_docs", r#"{"docs":[{}]}"#, &[]).0,
        404
    );
    assert_eq!(call(&t, "GET", "/_all_dbs", "", &[]).1, json!(["bench"]));
}

#[test]
fn bulk_docs_answers_per_document_and_counts_conflicts() {
    let t = target();
    let (s, v) = call(
        &t,
        "POST",
        "/bench/_bulk_docs",
        r#"{"docs":[{"_id":"a","foo":"bar"},{"foo":"bar"},{"_id":"a"}]}"#,
        &[],
    );
    assert_eq!(s, 201);
    let items = v.as_array().unwrap();
    assert_eq!(items.len(), 3);
    assert_eq!(items[0]["ok"], true);
    assert_eq!(items[0]["id"], "a");
    assert!(items[0]["rev"].as_str().unwrap().starts_with("1-"));
    assert_eq!(
        items[1]["id"].as_str().unwrap().len(),
        32,
        "a server-made id"
    );
    assert_eq!(
        items[2]["error"], "conflict",
        "the same id twice in one request"
    );
    assert_eq!(call(&t, "GET", "/bench", "", &[]).1["doc_count"], 2);
    let (s, doc) = call(&t, "GET", "/bench/a", "", &[]);
    assert_eq!(
        (s, &doc["foo"], &doc["_rev"]),
        (200, &json!("bar"), &items[0]["rev"])
    );
    let (_, v) = call(
        &t,
        "POST",
        "/bench/_bulk_docs",
        r#"{"docs":[{"_id":"a"},{"_id":"_x"}]}"#,
        &[],
    );
    assert_eq!(v[0]["error"], "conflict");
    assert_eq!(v[1]["error"], "illegal_docid");
    assert_eq!(call(&t, "POST", "/bench/_bulk_docs", "[1]", &[]).0, 400);
}

#[test]
fn single_documents_by_put_and_post() {
    let t = target();
    let (s, v) = call(&t, "PUT", "/bench/doc%201", r#"{"foo":"bar"}"#, &[]);
    assert_eq!((s, &v["id"]), (201, &json!("doc 1")));
    assert_eq!(
        call(&t, "PUT", "/bench/doc%201", "{}", &[]).1["error"],
        "conflict"
    );
    assert_eq!(call(&t, "PUT", "/bench/doc%201", "{}", &[]).0, 409);
    let (s, v) = call(&t, "POST", "/bench", r#"{"foo":"bar"}"#, &[]);
    assert_eq!(s, 201);
    assert!(v["rev"].is_string());
    let (s, v) = call(
        &t,
        "POST",
        "/bench",
        "{}",
        &[("x-couch-full-commit", "true")],
    );
    assert_eq!((s, &v["ok"]), (201, &json!(true)));
    assert_eq!(call(&t, "GET", "/bench", "", &[]).1["doc_count"], 3);
}

#[test]
fn batch_ok_is_accepted_then_flushed_and_still_conflicts() {
    let t = target();
    let (s, v) = call(&t, "PUT", "/bench/a?batch=ok", "{}", &[]);
    assert_eq!((s, &v["ok"]), (202, &json!(true)));
    let (s, v) = call(
        &t,
        "POST",
        "/bench/_bulk_docs?batch=ok",
        r#"{"docs":[{"_id":"b"},{"_id":"a"}]}"#,
        &[],
    );
    assert_eq!(s, 202);
    assert_eq!(v[1]["error"], "conflict", "a waiting id is taken");
    assert_eq!(t.waiting(), 2, "not written yet");
    t.flush().unwrap();
    assert_eq!(t.waiting(), 0);
    assert_eq!(t.flushes(), 1);
    assert_eq!(
        t.flush().map(|_| t.flushes()).unwrap(),
        1,
        "nothing left to flush"
    );
    // A normal write commits what waits with it.
    call(&t, "PUT", "/bench/d?batch=ok", "{}", &[]);
    assert_eq!(call(&t, "PUT", "/bench/a", "{}", &[]).0, 409);
    assert_eq!(t.waiting(), 0);
    assert_eq!(call(&t, "GET", "/bench", "", &[]).1["doc_count"], 3);
    // A full commit wins over batch=ok: written now, answered 201.
    assert_eq!(
        call(
            &t,
            "PUT",
            "/bench/c?batch=ok",
            "{}",
            &[("x-couch-full-commit", "true")]
        )
        .0,
        201
    );
    assert_eq!(t.waiting(), 0);
}

#[test]
fn db_info_flushes_what_waits() {
    let t = target();
    call(&t, "PUT", "/bench/a?batch=ok", "{}", &[]);
    assert_eq!(call(&t, "GET", "/bench", "", &[]).1["doc_count"], 1);
    assert_eq!(t.waiting(), 0);
}

#[test]
fn posts_must_say_json() {
    let t = target();
    let body = Bytes::from_static(b"{}");
    let r = t.handle(&Request {
        method: "POST",
        path: "/bench",
        query: "",
        headers: &HeaderMap::new(),
        body: &body,
    });
    assert_eq!(r.status, 415);
}

#[test]
fn updates_by_rev_and_all_docs_from_a_startkey() {
    let t = target();
    let (s, made) = call(&t, "PUT", "/bench/b", r#"{"f":1}"#, &[]);
    assert_eq!(s, 201);
    let rev = made["rev"].as_str().unwrap().to_owned();
    // Without its revision an existing ID is a conflict; with it, an update.
    assert_eq!(call(&t, "PUT", "/bench/b", r#"{"f":2}"#, &[]).0, 409);
    let body = format!(r#"{{"_rev":"{rev}","f":2}}"#);
    let (s, updated) = call(&t, "PUT", "/bench/b", &body, &[]);
    assert_eq!(s, 201, "{updated}");
    let rev2 = updated["rev"].as_str().unwrap();
    assert!(rev2.starts_with("2-"), "{rev2}");
    // The old revision is stale now; so is one for a document that is not there.
    assert_eq!(call(&t, "PUT", "/bench/b", &body, &[]).0, 409);
    assert_eq!(
        call(&t, "PUT", &format!("/bench/zz?rev={rev}"), "{}", &[]).0,
        409
    );
    let (_, doc) = call(&t, "GET", "/bench/b", "", &[]);
    assert_eq!(
        (doc["f"].clone(), doc["_rev"].clone()),
        (json!(2), json!(rev2))
    );
    for id in ["a", "c", "d"] {
        assert_eq!(call(&t, "PUT", &format!("/bench/{id}"), "{}", &[]).0, 201);
    }
    let (s, page) = call(
        &t,
        "GET",
        "/bench/_all_docs?startkey=%22b%22&limit=2&include_docs=true",
        "",
        &[],
    );
    assert_eq!(s, 200);
    assert_eq!(page["total_rows"], 4);
    let ids: Vec<&str> = page["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["b", "c"]);
    assert_eq!(page["rows"][0]["doc"]["f"], 2);
    assert_eq!(page["rows"][0]["value"]["rev"], json!(rev2));
    let (_, all) = call(&t, "GET", "/bench/_all_docs", "", &[]);
    assert_eq!(all["rows"].as_array().unwrap().len(), 4);
    assert!(all["rows"][0].get("doc").is_none());
    assert_eq!(call(&t, "GET", "/bench/_all_docs?limit=x", "", &[]).0, 400);
}
