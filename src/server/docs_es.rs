//! The document store's Elasticsearch face: it stands in for Elasticsearch/OpenSearch
//! where none runs (tests, `hakaru demo`), answering the part of the API a bulk write
//! and its count need, in Elasticsearch's JSON shapes:
//!
//! * `POST|PUT /_bulk` and `/{index}/_bulk`: NDJSON, an action line (`index`,
//!   `create`, `delete`; `_index`, `_id`) and, but for `delete`, a source line. The
//!   answer is `{"took","errors","items":[{ACTION:{…,"status"}}]}` with real per-item
//!   results: `create` of an existing ID is a 409 `version_conflict_engine_exception`,
//!   a source that is not a JSON object or that sets `_id` a 400
//!   `mapper_parsing_exception`, `update` a 400 `illegal_argument_exception` (not kept
//!   here). An index is made by its first write, as Elasticsearch does by default.
//! * `GET|POST /{index}/_count` → `{"count":N,"_shards":…}`; 404
//!   `index_not_found_exception`.
//! * `POST /{index}/_refresh`: documents are visible at once here, so it only answers.
//!
//! Not Elasticsearch: no mappings, search, versions beyond a counter, or shards; a
//! malformed action line refuses the whole request (400), as Elasticsearch does.
//! Indices and CouchDB databases share one namespace in the store.

use std::time::Instant;

use rusqlite::{params, OptionalExtension};
use serde_json::{json, Map, Value};

use super::{commit, lock, revision, DocsTarget, Request, Response, Store};

/// Elasticsearch's rule for index names (lowercase, no leading `_`, `-` or `+`).
pub(super) fn valid_index(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with(['_', '-', '+'])
        && name != "."
        && name != ".."
        && name.len() <= 255
        && name
            .chars()
            .all(|c| !c.is_ascii_uppercase() && !"\\/*?\"<>| ,#:".contains(c))
}

/// Elasticsearch's error envelope: `{"error":{"root_cause":[…],"type","reason"},"status"}`.
pub(super) fn es_error(status: u16, kind: &str, reason: &str) -> Response {
    let cause = json!({"type": kind, "reason": reason});
    Response::json(
        status,
        json!({"error": {"root_cause": [cause], "type": kind, "reason": reason}, "status": status})
            .to_string()
            + "\n",
    )
}

fn no_index(index: &str) -> Response {
    es_error(
        404,
        "index_not_found_exception",
        &format!("no such index [{index}]"),
    )
}

/// What one bulk line pair asks.
enum Op {
    Index,
    Create,
    Delete,
    Update,
}

impl Op {
    fn name(&self) -> &'static str {
        match self {
            Op::Index => "index",
            Op::Create => "create",
            Op::Delete => "delete",
            Op::Update => "update",
        }
    }
}

/// One parsed item: the action, its index and ID, and its source (or why it is bad).
struct Item {
    op: Op,
    index: String,
    id: Option<String>,
    source: Result<Map<String, Value>, String>,
}

impl DocsTarget {
    /// `/_bulk` (`default_index` None) and `/{index}/_bulk`.
    pub(super) fn es_bulk(&self, default_index: Option<&str>, req: &Request<'_>) -> Response {
        let started = Instant::now();
        let ct = req
            .headers
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("");
        let media = ct.split(';').next().unwrap_or("").trim();
        if media != "application/x-ndjson" && media != "application/json" {
            return es_error(
                406,
                "media_type_header_exception",
                &format!("Content-Type header [{ct}] is not supported"),
            );
        }
        if !req.body.is_empty() && !req.body.ends_with(b"\n") {
            return es_error(
                400,
                "illegal_argument_exception",
                "The bulk request must be terminated by a newline [\\n]",
            );
        }
        let mut items = match parse_bulk(req.body, default_index) {
            Ok(items) => items,
            Err(resp) => return resp,
        };
        for item in &mut items {
            if item.id.is_none() {
                item.id = Some(self.server_id());
            }
        }
        let results = {
            let mut store = lock(&self.store);
            match apply(&mut store, items) {
                Ok(r) => r,
                Err(e) => return es_error(500, "exception", &e.to_string()),
            }
        };
        let errors = results.iter().any(|(_, r)| r.get("error").is_some());
        let items: Vec<Value> = results
            .into_iter()
            .map(|(op, r)| json!({ op: r }))
            .collect();
        Response::json(
            200,
            json!({
                "took": started.elapsed().as_millis() as u64,
                "errors": errors,
                "items": items,
            })
            .to_string()
                + "\n",
        )
    }

    /// `GET|POST /{index}/_count`: what is stored, documents waiting since
    /// `batch=ok` flushed first (as `GET /db` does).
    pub(super) fn es_count(&self, index: &str) -> Response {
        let mut store = lock(&self.store);
        if !store.dbs.contains_key(index) {
            return no_index(index);
        }
        if !store.waiting.is_empty() {
            if let Err(e) = commit(&mut store, &[], false) {
                return es_error(500, "exception", &e.to_string());
            }
        }
        let count = store.dbs.get(index).copied().unwrap_or(0);
        Response::json(
            200,
            json!({"count": count, "_shards": {"total": 1, "successful": 1, "skipped": 0, "failed": 0}})
                .to_string()
                + "\n",
        )
    }

    /// `POST /{index}/_refresh`: nothing to do, documents are visible when written.
    pub(super) fn es_refresh(&self, index: &str) -> Response {
        if !lock(&self.store).dbs.contains_key(index) {
            return no_index(index);
        }
        Response::json(
            200,
            "{\"_shards\":{\"total\":1,\"successful\":1,\"failed\":0}}\n",
        )
    }
}

/// Reads the NDJSON; a malformed action line refuses the request, a bad source only
/// its item.
fn parse_bulk(body: &[u8], default_index: Option<&str>) -> Result<Vec<Item>, Response> {
    let mut lines = body
        .split(|&b| b == b'\n')
        .enumerate()
        .filter(|(_, l)| !l.iter().all(u8::is_ascii_whitespace));
    let mut items = Vec::new();
    while let Some((n, line)) = lines.next() {
        let bad = |why: &str| {
            es_error(
                400,
                "illegal_argument_exception",
                &format!("Malformed action/metadata line [{}], {why}", n + 1),
            )
        };
        let Ok(Value::Object(action)) = serde_json::from_slice::<Value>(line) else {
            return Err(bad("expected START_OBJECT"));
        };
        let Some((name, meta)) = action.iter().next().filter(|_| action.len() == 1) else {
            return Err(bad("expected one action"));
        };
        let op = match name.as_str() {
            "index" => Op::Index,
            "create" => Op::Create,
            "delete" => Op::Delete,
            "update" => Op::Update,
            other => {
                return Err(bad(&format!(
                    "expected one of [create, delete, index, update] but found [{other}]"
                )))
            }
        };
        let Some(meta) = meta.as_object() else {
            return Err(bad("expected START_OBJECT for the action's metadata"));
        };
        let index = match meta.get("_index").and_then(Value::as_str).or(default_index) {
            Some(i) if valid_index(i) => i.to_string(),
            Some(i) => {
                return Err(es_error(
                    400,
                    "invalid_index_name_exception",
                    &format!("Invalid index name [{i}], must be lowercase and not start with '_', '-' or '+'"),
                ))
            }
            None => {
                return Err(es_error(
                    400,
                    "action_request_validation_exception",
                    "Validation Failed: 1: index is missing;",
                ))
            }
        };
        let id = meta.get("_id").and_then(Value::as_str).map(str::to_string);
        let source = if matches!(op, Op::Delete) {
            Ok(Map::new())
        } else {
            let Some((_, src)) = lines.next() else {
                return Err(es_error(
                    400,
                    "illegal_argument_exception",
                    &format!(
                        "The bulk request's {name} on line {} has no source line",
                        n + 1
                    ),
                ));
            };
            match serde_json::from_slice::<Value>(src) {
                Ok(Value::Object(doc)) if doc.contains_key("_id") => Err("Field [_id] is a metadata field and cannot be added inside a document. Use the index API request parameters.".to_string()),
                Ok(Value::Object(doc)) => Ok(doc),
                Ok(_) => Err("failed to parse: the source is not an object".to_string()),
                Err(e) => Err(format!("failed to parse: {e}")),
            }
        };
        items.push(Item {
            op,
            index,
            id,
            source,
        });
    }
    Ok(items)
}

/// Version of a stored document: the number before `-` in its revision.
fn version(rev: &str) -> u64 {
    rev.split('-')
        .next()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1)
}

/// Applies the items in one transaction, in order; each item's result object.
fn apply(store: &mut Store, items: Vec<Item>) -> rusqlite::Result<Vec<(&'static str, Value)>> {
    if !store.waiting.is_empty() {
        commit(store, &[], false)?;
    }
    for item in &items {
        if !store.dbs.contains_key(&item.index) {
            store.dbs.insert(item.index.clone(), 0);
        }
    }
    let tx = store.conn.transaction()?;
    let mut results = Vec::with_capacity(items.len());
    let mut deltas: Vec<(String, i64)> = Vec::new();
    let mut seq = 0u64;
    for item in items {
        let op = item.op.name();
        let id = item.id.unwrap_or_default();
        let base = json!({"_index": item.index, "_id": id});
        let failed = |status: u16, kind: &str, reason: String| {
            let mut r = base.clone();
            r["status"] = json!(status);
            r["error"] = json!({"type": kind, "reason": reason, "index": item.index});
            r
        };
        let current: Option<String> = tx
            .prepare_cached("SELECT rev FROM docs WHERE db = ?1 AND id = ?2")?
            .query_row(params![item.index, id], |r| r.get(0))
            .optional()?;
        let result = match (&item.op, item.source) {
            (Op::Update, _) => failed(
                400,
                "illegal_argument_exception",
                "update is not kept by hakaru's document store; use index".into(),
            ),
            (_, Err(why)) => failed(400, "mapper_parsing_exception", why),
            (Op::Create, Ok(_)) if current.is_some() => failed(
                409,
                "version_conflict_engine_exception",
                format!(
                    "[{id}]: version conflict, document already exists (current version [{}])",
                    current.as_deref().map_or(1, version)
                ),
            ),
            (Op::Delete, Ok(_)) => {
                seq += 1;
                let mut r = base.clone();
                match current {
                    Some(rev) => {
                        tx.execute(
                            "DELETE FROM docs WHERE db = ?1 AND id = ?2",
                            params![item.index, id],
                        )?;
                        deltas.push((item.index.clone(), -1));
                        r["_version"] = json!(version(&rev) + 1);
                        r["result"] = json!("deleted");
                        r["status"] = json!(200);
                    }
                    None => {
                        r["_version"] = json!(1);
                        r["result"] = json!("not_found");
                        r["status"] = json!(404);
                    }
                }
                r
            }
            (Op::Index | Op::Create, Ok(mut doc)) => {
                seq += 1;
                doc.insert("_id".into(), Value::String(id.clone()));
                let body = Value::Object(doc).to_string();
                let v = current.as_deref().map_or(0, version) + 1;
                let rev = format!("{v}{}", &revision(&body)[1..]);
                tx.prepare_cached(
                    "INSERT INTO docs (db, id, rev, body) VALUES (?1, ?2, ?3, ?4)
                     ON CONFLICT (db, id) DO UPDATE SET rev = excluded.rev, body = excluded.body",
                )?
                .execute(params![item.index, id, rev, body])?;
                let mut r = base.clone();
                r["_version"] = json!(v);
                if current.is_none() {
                    deltas.push((item.index.clone(), 1));
                    r["result"] = json!("created");
                    r["status"] = json!(201);
                } else {
                    r["result"] = json!("updated");
                    r["status"] = json!(200);
                }
                r
            }
        };
        results.push((op, result));
    }
    tx.commit()?;
    for (index, d) in deltas {
        if let Some(c) = store.dbs.get_mut(&index) {
            *c = c.saturating_add_signed(d);
        }
    }
    store.update_seq += seq;
    Ok(results)
}
