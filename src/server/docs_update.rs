//! The embedded document store's reads and writes for YCSB's operations
//! ([`crate::workload::ycsb`]): an update by `_rev` (`PUT /db/ID` whose body or query
//! names the revision it replaces; any other revision is a `409 conflict`, as in
//! CouchDB) and `GET /db/_all_docs` with `startkey`, `limit` and `include_docs`
//! (rows in the IDs' byte order, CouchDB's raw collation for ASCII IDs; `offset` is
//! not computed, so a scan costs its rows only).

use rusqlite::{params, OptionalExtension};
use serde_json::{json, Map, Value};

use super::{commit, db_error, error, lock, percent_decode, revision, DocsTarget, Store};
use crate::server::handler::{Request, Response};

/// The revision a `PUT /db/ID` replaces: `?rev=` or the body's `_rev`; None for a
/// plain create.
pub(super) fn replaced_rev(req: &Request<'_>) -> Option<String> {
    if let Some(rev) = req
        .query
        .split('&')
        .find_map(|p| p.strip_prefix("rev="))
        .filter(|r| !r.is_empty())
    {
        return Some(percent_decode(rev));
    }
    // Cheap test first: most creates carry no `_rev` at all.
    let needle = b"\"_rev\"";
    if !req.body.windows(needle.len()).any(|w| w == needle) {
        return None;
    }
    match serde_json::from_slice::<Value>(req.body) {
        Ok(Value::Object(doc)) => doc.get("_rev").and_then(Value::as_str).map(str::to_owned),
        _ => None,
    }
}

/// Waiting `batch=ok` documents are written first: what follows reads SQLite only.
fn flush_waiting(target: &DocsTarget, store: &mut Store) -> Result<(), Response> {
    if store.waiting.is_empty() {
        return Ok(());
    }
    commit(store, &[], false).map_err(db_error)?;
    target
        .flushes
        .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    Ok(())
}

impl DocsTarget {
    /// `PUT /db/ID` replacing revision `rev`.
    pub(super) fn update(&self, db: &str, id: &str, req: &Request<'_>, rev: &str) -> Response {
        let mut doc: Map<String, Value> = match serde_json::from_slice::<Value>(req.body) {
            Ok(Value::Object(doc)) => doc,
            Ok(_) => return error(400, "bad_request", "Document must be a JSON object"),
            Err(_) => return error(400, "bad_request", "invalid UTF-8 JSON"),
        };
        doc.remove("_rev");
        doc.insert("_id".into(), Value::String(id.to_owned()));
        let body = Value::Object(doc).to_string();
        let mut store = lock(&self.store);
        if !store.dbs.contains_key(db) {
            return error(404, "not_found", "Database does not exist.");
        }
        if let Err(resp) = flush_waiting(self, &mut store) {
            return resp;
        }
        let current: Option<String> = match store
            .conn
            .prepare_cached("SELECT rev FROM docs WHERE db = ?1 AND id = ?2")
            .and_then(|mut st| st.query_row(params![db, id], |r| r.get(0)).optional())
        {
            Ok(c) => c,
            Err(e) => return db_error(e),
        };
        let Some(current) = current.filter(|c| c == rev) else {
            return error(409, "conflict", "Document update conflict.");
        };
        let generation: u64 = current
            .split_once('-')
            .and_then(|(g, _)| g.parse().ok())
            .unwrap_or(1);
        let hash = revision(&body);
        let new_rev = format!(
            "{}-{}",
            generation + 1,
            hash.split_once('-').map_or("", |(_, h)| h)
        );
        let updated = store
            .conn
            .prepare_cached("UPDATE docs SET rev = ?3, body = ?4 WHERE db = ?1 AND id = ?2")
            .and_then(|mut st| st.execute(params![db, id, new_rev, body]));
        if let Err(e) = updated {
            return db_error(e);
        }
        store.update_seq += 1;
        Response::json(
            201,
            json!({"ok": true, "id": id, "rev": new_rev}).to_string() + "\n",
        )
    }

    /// `GET /db/_all_docs?startkey="ID"&limit=N&include_docs=true`.
    pub(super) fn all_docs(&self, db: &str, query: &str) -> Response {
        let (mut start, mut limit, mut include) = (String::new(), i64::MAX, false);
        for p in query.split('&') {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            let v = percent_decode(v);
            match k {
                "startkey" | "start_key" => match serde_json::from_str::<Value>(&v) {
                    Ok(Value::String(s)) => start = s,
                    _ => return error(400, "bad_request", "startkey must be a JSON string"),
                },
                "limit" => match v.parse::<i64>() {
                    Ok(n) if n >= 0 => limit = n,
                    _ => return error(400, "query_parse_error", "Invalid value for limit"),
                },
                "include_docs" => include = v == "true",
                _ => {}
            }
        }
        let mut store = lock(&self.store);
        let Some(&total) = store.dbs.get(db) else {
            return error(404, "not_found", "Database does not exist.");
        };
        if let Err(resp) = flush_waiting(self, &mut store) {
            return resp;
        }
        let rows = store
            .conn
            .prepare_cached(
                "SELECT id, rev, body FROM docs WHERE db = ?1 AND id >= ?2 ORDER BY id LIMIT ?3",
            )
            .and_then(|mut st| {
                st.query_map(params![db, start, limit], |r| {
                    Ok((
                        r.get::<_, String>(0)?,
                        r.get::<_, String>(1)?,
                        r.get::<_, String>(2)?,
                    ))
                })?
                .collect::<Result<Vec<_>, _>>()
            });
        let rows = match rows {
            Ok(r) => r,
            Err(e) => return db_error(e),
        };
        let total = store.dbs.get(db).copied().unwrap_or(total);
        drop(store);
        let rows: Vec<Value> = rows
            .into_iter()
            .map(|(id, rev, body)| {
                let mut row = json!({"id": id, "key": id, "value": {"rev": rev}});
                if include {
                    let mut doc = serde_json::from_str::<Value>(&body).unwrap_or(Value::Null);
                    if let Value::Object(d) = &mut doc {
                        d.insert("_rev".into(), Value::String(rev));
                    }
                    row["doc"] = doc;
                }
                row
            })
            .collect();
        Response::json(
            200,
            json!({"total_rows": total, "rows": rows}).to_string() + "\n",
        )
    }
}
