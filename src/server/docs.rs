//! `hakaru serve --docs`: an embedded document store that speaks the part of
//! CouchDB's HTTP API a write benchmark needs, so `hakaru bulk` and `hakaru demo
//! --bulk` run the CouchDB "High Performance" chapter's experiment with nothing
//! installed.
//!
//! What it answers, in CouchDB's JSON shapes:
//! * `GET /` (welcome), `GET /_all_dbs`, `GET /_up`;
//! * `PUT /db` (201, 412 `file_exists`), `GET /db` (`db_name`, `doc_count`,
//!   `update_seq`…; 404 `not_found`), `DELETE /db`;
//! * `POST /db/_bulk_docs` with `{"docs":[…]}`: 201 and one `{"ok":true,"id","rev"}`
//!   per document, or `{"id","error":"conflict","reason"}` when the ID exists;
//! * `POST /db` (the server names a document without `_id`) and `PUT /db/ID`: 201
//!   `{"ok":true,"id","rev"}`, 409 `conflict`; `GET /db/ID`.
//!
//! Durability, as CouchDB's modes mean it:
//! * normal writes commit one SQLite transaction per request in WAL mode with
//!   `synchronous=NORMAL`: no fsync per commit (a power cut can lose the last
//!   commits, a crash of this process cannot);
//! * `?batch=ok` is answered **202 Accepted** at once and the documents wait in
//!   memory; a thread flushes them to SQLite once a second (and a `GET /db` or a full
//!   commit flushes first). **A crash loses what was accepted in the last second**, as
//!   CouchDB warns for its own batch mode. IDs waiting are still seen as conflicts.
//! * `X-Couch-Full-Commit: true` commits that request (and everything waiting) with
//!   `synchronous=FULL`: SQLite fsyncs the WAL before answering. It wins over
//!   `batch=ok` when both are asked: the write is durable, answered 201.
//!
//! It also stands in for Elasticsearch's `_bulk`, `_count` and `_refresh` (see
//! [`es`]), so the `--target elasticsearch` path is tested where no Elasticsearch runs.
//!
//! For YCSB ([`update`]): `PUT /db/ID` with the `_rev` it replaces updates the
//! document (another revision: `409 conflict`), and `GET /db/_all_docs` reads rows
//! from a `startkey` with `limit` and `include_docs`.
//!
//! Not CouchDB: an existing ID without its `_rev` is a conflict, no deletes of
//! documents, no updates through `_bulk_docs`, revisions are a generation and a hash
//! of the body, no views or changes feed. The database is a temporary SQLite file removed at exit.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rusqlite::{params, Connection, OptionalExtension};
use serde_json::{json, Map, Value};

use super::handler::{Handler, Request, Response};

/// What `GET /` says the version is.
pub const VERSION: &str = concat!("hakaru-docs ", env!("CARGO_PKG_VERSION"));

/// How the document store is built.
#[derive(Debug, Clone, PartialEq)]
pub struct DocsOptions {
    /// Directory for the temporary database file (the system's temp dir when `None`).
    pub temp_dir: Option<PathBuf>,
    /// How often documents accepted with `batch=ok` are written (CouchDB: 1 s).
    pub flush_interval: Duration,
}

impl Default for DocsOptions {
    fn default() -> Self {
        DocsOptions {
            temp_dir: None,
            flush_interval: Duration::from_secs(1),
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum DocsError {
    #[error("document store: cannot build the database {path}: {source}")]
    Database {
        path: String,
        source: rusqlite::Error,
    },
    #[error("document store: cannot listen: {0}")]
    Bind(std::io::Error),
}

/// The temporary database file; removed (with its WAL files) when dropped.
#[derive(Debug)]
struct TempDb(PathBuf);

impl Drop for TempDb {
    fn drop(&mut self) {
        for suffix in ["", "-wal", "-shm", "-journal"] {
            let mut p = self.0.clone().into_os_string();
            p.push(suffix);
            let _ = std::fs::remove_file(PathBuf::from(p));
        }
    }
}

const SCHEMA: &str = "
PRAGMA journal_mode = WAL;
PRAGMA synchronous = NORMAL;
CREATE TABLE docs (
    db TEXT NOT NULL,
    id TEXT NOT NULL,
    rev TEXT NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY (db, id)
) WITHOUT ROWID;
";

/// A document accepted with `batch=ok`, not yet in SQLite.
struct Waiting {
    db: String,
    id: String,
    rev: String,
    body: String,
}

/// How a write is committed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Normal,
    /// `batch=ok`: kept in memory, flushed by the flusher.
    Deferred,
    /// `X-Couch-Full-Commit: true`: fsync before answering.
    FullCommit,
}

/// One document's outcome.
enum Outcome {
    Ok { id: String, rev: String },
    Failed { id: String, error: &'static str },
}

fn reason(error: &str) -> &'static str {
    match error {
        "conflict" => "Document update conflict.",
        "illegal_docid" => "Only reserved document ids may start with underscore.",
        _ => "The document could not be written.",
    }
}

/// Everything behind the one lock: SQLite's single writer is the bottleneck anyway.
struct Store {
    conn: Connection,
    /// Databases and their stored (not waiting) document counts.
    dbs: HashMap<String, u64>,
    waiting: Vec<Waiting>,
    /// `db` NUL `id` of every waiting document, for conflicts.
    waiting_ids: HashSet<String>,
    update_seq: u64,
}

/// The embedded document store; shared behind an `Arc`.
pub struct DocsTarget {
    store: Mutex<Store>,
    next_id: AtomicU64,
    /// Starts every server-made ID: sequential within a run, unique across runs.
    id_prefix: String,
    flushes: AtomicU64,
    path: PathBuf,
    _db: TempDb,
}

impl std::fmt::Debug for DocsTarget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DocsTarget")
            .field("db", &self.path)
            .finish()
    }
}

fn key(db: &str, id: &str) -> String {
    format!("{db}\0{id}")
}

/// CouchDB's rule for database names.
fn valid_db_name(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some('a'..='z'))
        && chars
            .all(|c| matches!(c, 'a'..='z' | '0'..='9' | '_' | '$' | '(' | ')' | '+' | '-' | '/'))
}

/// `1-` and 32 hex digits of two FNV-1a hashes of the body: stable, not cryptographic.
fn revision(body: &str) -> String {
    let fnv = |seed: u64| {
        body.bytes().fold(seed, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
        })
    };
    format!(
        "1-{:016x}{:016x}",
        fnv(0xcbf2_9ce4_8422_2325),
        fnv(0x8422_2325_cbf2_9ce4)
    )
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

fn error(status: u16, error: &str, reason: &str) -> Response {
    Response::json(
        status,
        json!({"error": error, "reason": reason}).to_string() + "\n",
    )
}

fn db_error(e: rusqlite::Error) -> Response {
    error(500, "internal_server_error", &e.to_string())
}

impl DocsTarget {
    pub fn new(opts: &DocsOptions) -> Result<Self, DocsError> {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
        let dir = opts.temp_dir.clone().unwrap_or_else(std::env::temp_dir);
        let path = dir.join(format!(
            "hakaru-docs-{}-{}-{}.sqlite",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed),
            nanos % 1_000_000_000
        ));
        let db = TempDb(path.clone());
        let db_err = |source| DocsError::Database {
            path: path.display().to_string(),
            source,
        };
        let conn = Connection::open(&path).map_err(db_err)?;
        conn.execute_batch(SCHEMA).map_err(db_err)?;
        conn.set_prepared_statement_cache_capacity(16);
        Ok(DocsTarget {
            store: Mutex::new(Store {
                conn,
                dbs: HashMap::new(),
                waiting: Vec::new(),
                waiting_ids: HashSet::new(),
                update_seq: 0,
            }),
            next_id: AtomicU64::new(0),
            id_prefix: format!("{:016x}", nanos ^ u64::from(std::process::id()) << 48),
            flushes: AtomicU64::new(0),
            path,
            _db: db,
        })
    }

    /// The SQLite file.
    pub fn database_path(&self) -> &std::path::Path {
        &self.path
    }

    /// Flushes that wrote documents accepted with `batch=ok`.
    pub fn flushes(&self) -> u64 {
        self.flushes.load(Ordering::Relaxed)
    }

    /// Documents accepted with `batch=ok` and not yet written.
    pub fn waiting(&self) -> usize {
        lock(&self.store).waiting.len()
    }

    /// Writes the documents waiting since `batch=ok` accepted them.
    pub fn flush(&self) -> rusqlite::Result<()> {
        let mut store = lock(&self.store);
        if store.waiting.is_empty() {
            return Ok(());
        }
        commit(&mut store, &[], false)?;
        self.flushes.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }

    fn server_id(&self) -> String {
        let n = self.next_id.fetch_add(1, Ordering::Relaxed);
        format!("{}{n:016x}", self.id_prefix)
    }

    /// Writes `docs` (each an ID and its JSON object) into `db` in one commit.
    fn write(
        &self,
        db: &str,
        docs: Vec<(String, Map<String, Value>)>,
        mode: Mode,
    ) -> Result<Vec<Outcome>, Response> {
        // In the request's order: a document to write, or one refused already.
        let mut fresh = Vec::with_capacity(docs.len());
        for (id, mut doc) in docs {
            if id.starts_with('_') && !id.starts_with("_design/") && !id.starts_with("_local/") {
                fresh.push(Err(Outcome::Failed {
                    id,
                    error: "illegal_docid",
                }));
                continue;
            }
            doc.remove("_rev");
            doc.insert("_id".into(), Value::String(id.clone()));
            let body = Value::Object(doc).to_string();
            let rev = revision(&body);
            fresh.push(Ok(Waiting {
                db: db.to_string(),
                id,
                rev,
                body,
            }));
        }
        // Serialised above without the lock: only SQLite's single writer waits on it.
        let mut store = lock(&self.store);
        if !store.dbs.contains_key(db) {
            return Err(error(404, "not_found", "Database does not exist."));
        }
        let conflict = |id| Outcome::Failed {
            id,
            error: "conflict",
        };
        if mode == Mode::Deferred {
            let mut outcomes = Vec::with_capacity(fresh.len());
            for w in fresh {
                let w = match w {
                    Ok(w) => w,
                    Err(o) => {
                        outcomes.push(o);
                        continue;
                    }
                };
                let stored = store
                    .conn
                    .prepare_cached("SELECT 1 FROM docs WHERE db = ?1 AND id = ?2")
                    .and_then(|mut st| st.query_row(params![w.db, w.id], |_| Ok(())).optional())
                    .map_err(db_error)?;
                if stored.is_some() || !store.waiting_ids.insert(key(&w.db, &w.id)) {
                    outcomes.push(conflict(w.id));
                } else {
                    outcomes.push(Outcome::Ok {
                        id: w.id.clone(),
                        rev: w.rev.clone(),
                    });
                    store.waiting.push(w);
                }
            }
            return Ok(outcomes);
        }
        let (to_write, refused): (Vec<_>, Vec<_>) =
            fresh.into_iter().enumerate().partition(|(_, w)| w.is_ok());
        let to_write: Vec<(usize, Waiting)> = to_write
            .into_iter()
            .filter_map(|(i, w)| w.ok().map(|w| (i, w)))
            .collect();
        let rows: Vec<&Waiting> = to_write.iter().map(|(_, w)| w).collect();
        let written = commit(&mut store, &rows, mode == Mode::FullCommit).map_err(db_error)?;
        let mut outcomes: Vec<Option<Outcome>> =
            (0..to_write.len() + refused.len()).map(|_| None).collect();
        for (i, o) in refused {
            outcomes[i] = o.err();
        }
        for ((i, w), ok) in to_write.into_iter().zip(written) {
            outcomes[i] = Some(if ok {
                Outcome::Ok {
                    id: w.id,
                    rev: w.rev,
                }
            } else {
                conflict(w.id)
            });
        }
        Ok(outcomes.into_iter().flatten().collect())
    }

    fn create_db(&self, db: &str) -> Response {
        let mut store = lock(&self.store);
        if store.dbs.contains_key(db) {
            return error(
                412,
                "file_exists",
                "The database could not be created, the file already exists.",
            );
        }
        store.dbs.insert(db.to_string(), 0);
        Response::json(201, "{\"ok\":true}\n")
    }

    fn delete_db(&self, db: &str) -> Response {
        let mut store = lock(&self.store);
        if store.dbs.remove(db).is_none() {
            return error(404, "not_found", "Database does not exist.");
        }
        store.waiting.retain(|w| w.db != db);
        let prefix = key(db, "");
        store.waiting_ids.retain(|k| !k.starts_with(&prefix));
        if let Err(e) = store.conn.execute("DELETE FROM docs WHERE db = ?1", [db]) {
            return db_error(e);
        }
        Response::json(200, "{\"ok\":true}\n")
    }

    /// `GET /db`. Flushes waiting documents first: the count is what is stored.
    fn db_info(&self, db: &str) -> Response {
        let mut store = lock(&self.store);
        let Some(&count) = store.dbs.get(db) else {
            return error(404, "not_found", "Database does not exist.");
        };
        let count = if store.waiting.iter().any(|w| w.db == db) {
            if let Err(e) = commit(&mut store, &[], false) {
                return db_error(e);
            }
            self.flushes.fetch_add(1, Ordering::Relaxed);
            store.dbs.get(db).copied().unwrap_or(count)
        } else {
            count
        };
        let body = json!({
            "db_name": db,
            "doc_count": count,
            "doc_del_count": 0,
            "update_seq": store.update_seq,
            "purge_seq": 0,
            "compact_running": false,
            "instance_start_time": "0",
        });
        Response::json(200, body.to_string() + "\n")
    }

    fn get_doc(&self, db: &str, id: &str) -> Response {
        let store = lock(&self.store);
        if !store.dbs.contains_key(db) {
            return error(404, "not_found", "Database does not exist.");
        }
        if let Some(w) = store.waiting.iter().find(|w| w.db == db && w.id == id) {
            return doc_with_rev(&w.body, &w.rev);
        }
        let found = store
            .conn
            .prepare_cached("SELECT body, rev FROM docs WHERE db = ?1 AND id = ?2")
            .and_then(|mut st| {
                st.query_row(params![db, id], |r| {
                    Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?))
                })
                .optional()
            });
        match found {
            Ok(Some((body, rev))) => doc_with_rev(&body, &rev),
            Ok(None) => error(404, "not_found", "missing"),
            Err(e) => db_error(e),
        }
    }

    fn bulk_docs(&self, db: &str, req: &Request<'_>, mode: Mode) -> Response {
        let docs = match serde_json::from_slice::<Value>(req.body) {
            Ok(Value::Object(mut o)) => match o.remove("docs") {
                Some(Value::Array(docs)) => docs,
                _ => {
                    return error(
                        400,
                        "bad_request",
                        "POST body must include `docs` parameter.",
                    )
                }
            },
            _ => return error(400, "bad_request", "invalid UTF-8 JSON"),
        };
        let mut named = Vec::with_capacity(docs.len());
        for doc in docs {
            let Value::Object(doc) = doc else {
                return error(400, "bad_request", "Document must be a JSON object");
            };
            let id = match doc.get("_id") {
                Some(Value::String(id)) => id.clone(),
                _ => self.server_id(),
            };
            named.push((id, doc));
        }
        let outcomes = match self.write(db, named, mode) {
            Ok(o) => o,
            Err(resp) => return resp,
        };
        let items: Vec<Value> = outcomes
            .into_iter()
            .map(|o| match o {
                Outcome::Ok { id, rev } => json!({"ok": true, "id": id, "rev": rev}),
                Outcome::Failed { id, error } => {
                    json!({"id": id, "error": error, "reason": reason(error)})
                }
            })
            .collect();
        let status = if mode == Mode::Deferred { 202 } else { 201 };
        Response::json(status, Value::Array(items).to_string() + "\n")
    }

    /// `POST /db` (id `None`: from the body or the server) and `PUT /db/ID`.
    fn single(&self, db: &str, id: Option<String>, req: &Request<'_>, mode: Mode) -> Response {
        let doc = match serde_json::from_slice::<Value>(req.body) {
            Ok(Value::Object(doc)) => doc,
            Ok(_) => return error(400, "bad_request", "Document must be a JSON object"),
            Err(_) => return error(400, "bad_request", "invalid UTF-8 JSON"),
        };
        let id = id.unwrap_or_else(|| match doc.get("_id") {
            Some(Value::String(id)) => id.clone(),
            _ => self.server_id(),
        });
        let outcome = match self.write(db, vec![(id, doc)], mode) {
            Ok(mut o) => o.pop(),
            Err(resp) => return resp,
        };
        match outcome {
            Some(Outcome::Ok { id, .. }) if mode == Mode::Deferred => {
                Response::json(202, json!({"ok": true, "id": id}).to_string() + "\n")
            }
            Some(Outcome::Ok { id, rev }) => Response::json(
                201,
                json!({"ok": true, "id": id, "rev": rev}).to_string() + "\n",
            ),
            Some(Outcome::Failed { error: e, .. }) => {
                let status = if e == "conflict" { 409 } else { 400 };
                error(status, e, reason(e))
            }
            None => error(500, "internal_server_error", "no outcome"),
        }
    }
}

fn doc_with_rev(body: &str, rev: &str) -> Response {
    match serde_json::from_str::<Value>(body) {
        Ok(Value::Object(mut doc)) => {
            doc.insert("_rev".into(), Value::String(rev.to_string()));
            Response::json(200, Value::Object(doc).to_string() + "\n")
        }
        _ => error(
            500,
            "internal_server_error",
            "a stored document does not parse",
        ),
    }
}

/// Writes the waiting documents and `fresh` in one transaction, fsyncing when `full`.
/// Returns, for each of `fresh`, whether it was written (false: a conflict). Waiting
/// documents were checked for conflicts when accepted.
fn commit(store: &mut Store, fresh: &[&Waiting], full: bool) -> rusqlite::Result<Vec<bool>> {
    let waiting = std::mem::take(&mut store.waiting);
    store.waiting_ids.clear();
    if full {
        store.conn.execute_batch("PRAGMA synchronous = FULL")?;
    }
    let result = (|| {
        let tx = store.conn.transaction()?;
        let mut counts: HashMap<&str, u64> = HashMap::new();
        let mut written = Vec::with_capacity(fresh.len());
        {
            let mut insert = tx.prepare_cached(
                "INSERT OR IGNORE INTO docs (db, id, rev, body) VALUES (?1, ?2, ?3, ?4)",
            )?;
            for (i, w) in waiting.iter().chain(fresh.iter().copied()).enumerate() {
                let n = insert.execute(params![w.db, w.id, w.rev, w.body])?;
                if n > 0 {
                    *counts.entry(&w.db).or_default() += 1;
                }
                if i >= waiting.len() {
                    written.push(n > 0);
                }
            }
        }
        tx.commit()?;
        let counts: Vec<(String, u64)> = counts
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect();
        Ok((written, counts))
    })();
    if full {
        store.conn.execute_batch("PRAGMA synchronous = NORMAL")?;
    }
    let (written, counts) = match result {
        Ok(r) => r,
        Err(e) => {
            // Nothing was written: the waiting documents wait for the next flush.
            store.waiting_ids = waiting.iter().map(|w| key(&w.db, &w.id)).collect();
            store.waiting = waiting;
            return Err(e);
        }
    };
    for (db, n) in counts {
        // A database deleted while its documents waited is not brought back.
        if let Some(c) = store.dbs.get_mut(&db) {
            *c += n;
        }
        store.update_seq += n;
    }
    Ok(written)
}

fn percent_decode(s: &str) -> String {
    percent_encoding::percent_decode_str(s)
        .decode_utf8_lossy()
        .into_owned()
}

impl Handler for DocsTarget {
    fn handle(&self, req: &Request<'_>) -> Response {
        let path = req.path.trim_start_matches('/');
        let batch_ok = req.query.split('&').any(|p| p == "batch=ok");
        let full = req
            .headers
            .get("x-couch-full-commit")
            .is_some_and(|v| v.as_bytes().eq_ignore_ascii_case(b"true"));
        let mode = match (full, batch_ok) {
            (true, _) => Mode::FullCommit,
            (false, true) => Mode::Deferred,
            (false, false) => Mode::Normal,
        };
        let (db, rest) = match path.split_once('/') {
            Some((db, rest)) => (percent_decode(db), Some(rest)),
            None => (percent_decode(path), None),
        };
        let m = req.method;
        match (db.as_str(), rest) {
            ("", None) if m == "GET" || m == "HEAD" => Response::json(
                200,
                json!({"couchdb": "Welcome", "version": VERSION, "vendor": {"name": "hakaru"}})
                    .to_string()
                    + "\n",
            ),
            ("_up", None) if m == "GET" => Response::json(200, "{\"status\":\"ok\"}\n"),
            ("_all_dbs", None) if m == "GET" => {
                let mut names: Vec<String> = lock(&self.store).dbs.keys().cloned().collect();
                names.sort();
                Response::json(200, json!(names).to_string() + "\n")
            }
            ("_bulk", None) if m == "POST" || m == "PUT" => self.es_bulk(None, req),
            (index, Some(op @ ("_bulk" | "_count" | "_refresh"))) if es::valid_index(index) => {
                match (op, m) {
                    ("_bulk", "POST" | "PUT") => self.es_bulk(Some(index), req),
                    ("_count", "GET" | "POST") => self.es_count(index),
                    ("_refresh", "GET" | "POST") => self.es_refresh(index),
                    _ => es::es_error(
                        405,
                        "method_not_allowed",
                        &format!("Incorrect HTTP method for uri [/{index}/{op}] and method [{m}]"),
                    ),
                }
            }
            (name, _) if !valid_db_name(name) => error(
                400,
                "illegal_database_name",
                &format!("Name: '{name}'. Only lowercase characters (a-z), digits (0-9), and any of the characters _, $, (, ), +, -, and / are allowed. Must begin with a letter."),
            ),
            (_, None) | (_, Some("")) => match m {
                "PUT" => self.create_db(&db),
                "GET" | "HEAD" => self.db_info(&db),
                "DELETE" => self.delete_db(&db),
                "POST" if !is_json(req) => bad_content_type(),
                "POST" => self.single(&db, None, req, mode),
                _ => error(405, "method_not_allowed", "Only DELETE,GET,HEAD,POST,PUT allowed"),
            },
            (_, Some("_all_docs")) if m == "GET" => self.all_docs(&db, req.query),
            (_, Some("_bulk_docs")) => match m {
                "POST" if !is_json(req) => bad_content_type(),
                "POST" => self.bulk_docs(&db, req, mode),
                _ => error(405, "method_not_allowed", "Only POST allowed"),
            },
            (_, Some(id)) => match m {
                "PUT" => match update::replaced_rev(req) {
                    Some(rev) => self.update(&db, &percent_decode(id), req, &rev),
                    None => self.single(&db, Some(percent_decode(id)), req, mode),
                },
                "GET" | "HEAD" => self.get_doc(&db, &percent_decode(id)),
                _ => error(405, "method_not_allowed", "Only GET,HEAD,PUT allowed"),
            },
        }
    }

    fn may_block(&self) -> bool {
        true
    }
}

fn is_json(req: &Request<'_>) -> bool {
    req.headers
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.trim_start().starts_with("application/json"))
}

fn bad_content_type() -> Response {
    error(
        415,
        "bad_content_type",
        "Content-Type must be application/json",
    )
}

/// Builds the store, starts its flusher (once per `flush_interval`, until the store
/// is dropped) and serves it on `bind` (port 0 picks one), on its own thread.
pub fn start_docs(
    bind: std::net::SocketAddr,
    docs: DocsOptions,
    opts: crate::server::listen::ServerOptions,
) -> Result<crate::server::listen::RunningServer, DocsError> {
    let target = Arc::new(DocsTarget::new(&docs)?);
    spawn_flusher(Arc::downgrade(&target), docs.flush_interval);
    crate::server::listen::RunningServer::start(bind, target, opts).map_err(DocsError::Bind)
}

/// The thread that writes `batch=ok` documents; it ends once the store is gone.
fn spawn_flusher(target: Weak<DocsTarget>, every: Duration) {
    let _ = std::thread::Builder::new()
        .name("hakaru-docs-flush".into())
        .spawn(move || loop {
            std::thread::sleep(every);
            let Some(t) = target.upgrade() else { return };
            if let Err(e) = t.flush() {
                eprintln!("hakaru serve --docs: cannot write the batch=ok documents: {e}");
            }
        });
}

#[path = "docs_es.rs"]
mod es;

#[path = "docs_update.rs"]
mod update;

#[cfg(test)]
#[path = "docs_tests.rs"]
mod tests;
