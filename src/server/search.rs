//! `hakaru serve --search`: an embedded search engine that speaks a subset of
//! Groonga's HTTP API, so the whole search-benchmark workflow (terms, patterns,
//! cache-hit planning, probes) can run with nothing installed.
//!
//! At start-up it builds a deterministic corpus of pages (see [`corpus`]) into an
//! SQLite database with an FTS5 index (rusqlite's bundled SQLite enables FTS5).
//! The database is a temporary file in WAL mode: each server thread takes its
//! own read-only connection from a pool, so searches run in parallel on every
//! core (a shared-cache in-memory database would serialise them on one mutex).
//!
//! Commands, answered in Groonga's JSON shapes (command_version 1 and 2 as arrays,
//! 3 as `{"header", "body"}`), checked against Groonga 13:
//! * `/d/select`: `table` (only `Pages`), `query` + `match_columns` (`title`,
//!   `text`, `title,text`, `title||text`, weights ignored), `query_flags` (checked,
//!   otherwise as `NONE`; see [`query`] for the query syntax), `output_columns`
//!   (`_id,_key,title,text,categories,_score,*` and `snippet_html(title|text)`),
//!   `limit` (10; negative counts from the end as in Groonga), `offset`, `sortby` /
//!   `sort_keys` (`-col` descending, `_score` included), `drilldown` (`categories`,
//!   `title`) with `drilldown_limit`, `drilldown_offset`, `drilldown_sortby`,
//!   `drilldown_output_columns` (`_id,_key,_nsubrecs`), and `cache=no`.
//!   `_score` is SQLite's bm25 relevance (higher is better), not Groonga's term
//!   count: an integer in command_version 1, a float later, as Groonga types it.
//!   `snippet_html(col)` is one snippet of up to 200 bytes around the first
//!   keyword, keywords in `<span class="keyword">`, or `null` when the column has
//!   none (Groonga gives up to 3 snippets).
//! * `/d/status`: Groonga's fields; `n_queries` counts selects and
//!   `cache_hit_rate` is hits ÷ n_queries **in percent** (Groonga 13 reports 49.5
//!   for half; the tutorial's Groonga 4 showed 0.5), both since start.
//! * `/d/load?table=Pages`: a JSON array of objects (or of arrays after a header
//!   array) in the body or `values`; inserts or updates by `_key`; answers
//!   `[[0,...],N_loaded]`. Like Groonga, a body without `Content-Type:
//!   application/json`, or JSON that does not parse, loads 0 records with status 0
//!   (check the count). A load empties the result cache.
//! * `/d/cache_limit`: the cache's size (100); `max=N` sets it and answers the old one.
//!
//! The result cache is keyed by the select's parsed arguments, as Groonga's is:
//! parameter order, `+` versus `%20`, an explicit default value do not make a
//! different entry (Groonga 13 behaves so: `command_version=1` hits the entry of a
//! request without it). Errors are never cached but count in `n_queries`.
//!
//! Here: the target (database, reader pool, cache, counters) and the command dispatch.
//! [`query`] parses arguments, `select` runs the cache and the SQL, `load` takes
//! records, `render` writes Groonga's JSON; [`corpus`] and [`lru`] are the pieces.

pub mod corpus;
mod load;
pub mod lru;
pub mod query;
mod render;
mod select;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use rusqlite::{Connection, OpenFlags};
use serde_json::json;

use self::corpus::CorpusOptions;
use self::load::upsert;
use self::lru::Lru;
use self::query::{CommandError, Params, INVALID_ARGUMENT};
pub use self::render::snippet_html;
use self::render::{envelope, error_envelope};
use super::handler::{Handler, Request, Response};

/// What the version field of `/d/status` says.
pub const VERSION: &str = concat!("hakaru-search ", env!("CARGO_PKG_VERSION"));

/// How the search target is built.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchOptions {
    /// Pages in the generated corpus (`--documents`).
    pub documents: usize,
    /// Seed of the corpus; the same seed gives the same pages.
    pub seed: u64,
    /// Words in the corpus' vocabulary.
    pub vocabulary: usize,
    /// Entries of the result cache (Groonga's default: 100).
    pub cache_size: usize,
    /// Directory for the temporary database file (the system's temp dir when `None`).
    pub temp_dir: Option<PathBuf>,
}

impl Default for SearchOptions {
    fn default() -> Self {
        let corpus = CorpusOptions::default();
        SearchOptions {
            documents: corpus.documents,
            seed: corpus.seed,
            vocabulary: corpus.vocabulary,
            cache_size: 100,
            temp_dir: None,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum SearchError {
    #[error("search target: cannot build the database {path}: {source}")]
    Database {
        path: String,
        source: rusqlite::Error,
    },
    #[error("search target: --documents must be at most 10000000, got {0}")]
    TooManyDocuments(usize),
    #[error("search target: cannot listen: {0}")]
    Bind(std::io::Error),
}

/// Counters behind `/d/status`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CacheStats {
    /// Select commands answered (errors included), as Groonga's `n_queries`.
    pub n_queries: u64,
    /// Of those, answered from the result cache.
    pub n_hits: u64,
}

/// The temporary database file; removed (with its WAL files) when dropped, after
/// every connection (declared before it in [`SearchTarget`]) is closed.
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

struct Cache {
    lru: Lru<Arc<str>>,
    /// Bumped by every load; a result computed under an older generation is not stored.
    generation: u64,
}

/// The embedded search engine. Cheap to share behind an `Arc`; every method takes `&self`.
pub struct SearchTarget {
    readers: Mutex<Vec<Connection>>,
    writer: Mutex<Connection>,
    cache: Mutex<Cache>,
    n_queries: AtomicU64,
    n_hits: AtomicU64,
    n_documents: AtomicU64,
    started: SystemTime,
    started_at: Instant,
    db: TempDb,
}

impl std::fmt::Debug for SearchTarget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SearchTarget")
            .field("db", &self.db.0)
            .field("documents", &self.documents())
            .field("stats", &self.cache_stats())
            .finish()
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

fn epoch_seconds(t: SystemTime) -> f64 {
    t.duration_since(UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

const SCHEMA: &str = "
PRAGMA journal_mode = WAL;
PRAGMA synchronous = OFF;
PRAGMA temp_store = MEMORY;
CREATE TABLE pages (
    id INTEGER PRIMARY KEY,
    key TEXT NOT NULL UNIQUE,
    title TEXT NOT NULL,
    text TEXT NOT NULL,
    -- the vector column, names joined by U+001F (they hold no control characters)
    categories TEXT NOT NULL
);
CREATE INDEX pages_title ON pages(title);
CREATE TABLE categories (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
CREATE TABLE page_categories (
    page_id INTEGER NOT NULL,
    category_id INTEGER NOT NULL,
    PRIMARY KEY (page_id, category_id)
) WITHOUT ROWID;
CREATE VIRTUAL TABLE pages_fts USING fts5(title, text, tokenize = 'unicode61 remove_diacritics 2');
";

const SEP: char = '\u{1f}';

impl SearchTarget {
    /// Builds the corpus and the database. 10 000 pages take about a second in a
    /// release build.
    pub fn new(opts: SearchOptions) -> Result<Self, SearchError> {
        if opts.documents > 10_000_000 {
            return Err(SearchError::TooManyDocuments(opts.documents));
        }
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let dir = opts.temp_dir.clone().unwrap_or_else(std::env::temp_dir);
        let path = dir.join(format!(
            "hakaru-search-{}-{}-{}.sqlite",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed),
            SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.subsec_nanos())
        ));
        let db = TempDb(path.clone());
        let db_err = |source| SearchError::Database {
            path: path.display().to_string(),
            source,
        };
        let mut writer = Connection::open(&path).map_err(db_err)?;
        writer.execute_batch(SCHEMA).map_err(db_err)?;
        writer.set_prepared_statement_cache_capacity(32);
        let pages = corpus::generate(&CorpusOptions {
            documents: opts.documents,
            seed: opts.seed,
            vocabulary: opts.vocabulary,
            ..CorpusOptions::default()
        });
        let tx = writer.transaction().map_err(db_err)?;
        for page in &pages {
            upsert(&tx, page).map_err(db_err)?;
        }
        tx.execute_batch("INSERT INTO pages_fts(pages_fts) VALUES('optimize');")
            .map_err(db_err)?;
        tx.commit().map_err(db_err)?;
        let target = SearchTarget {
            readers: Mutex::new(Vec::new()),
            writer: Mutex::new(writer),
            cache: Mutex::new(Cache {
                lru: Lru::new(opts.cache_size),
                generation: 0,
            }),
            n_queries: AtomicU64::new(0),
            n_hits: AtomicU64::new(0),
            n_documents: AtomicU64::new(pages.len() as u64),
            started: SystemTime::now(),
            started_at: Instant::now(),
            db,
        };
        // Open one reader now so a broken setup fails here, not on the first request.
        let reader = target.open_reader().map_err(db_err)?;
        lock(&target.readers).push(reader);
        Ok(target)
    }

    /// Pages in the database.
    pub fn documents(&self) -> u64 {
        self.n_documents.load(Ordering::Relaxed)
    }

    /// The database file (for messages).
    pub fn database_path(&self) -> &Path {
        &self.db.0
    }

    pub fn cache_stats(&self) -> CacheStats {
        CacheStats {
            n_queries: self.n_queries.load(Ordering::Relaxed),
            n_hits: self.n_hits.load(Ordering::Relaxed),
        }
    }

    fn open_reader(&self) -> rusqlite::Result<Connection> {
        let conn = Connection::open_with_flags(
            &self.db.0,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )?;
        conn.execute_batch(
            "PRAGMA query_only = 1; PRAGMA mmap_size = 268435456; PRAGMA cache_size = -16384;",
        )?;
        conn.set_prepared_statement_cache_capacity(64);
        Ok(conn)
    }

    /// Runs `f` with a pooled read-only connection.
    fn with_reader<T>(
        &self,
        f: impl FnOnce(&Connection) -> rusqlite::Result<T>,
    ) -> rusqlite::Result<T> {
        let conn = lock(&self.readers).pop();
        let conn = match conn {
            Some(c) => c,
            None => self.open_reader()?,
        };
        let result = f(&conn);
        lock(&self.readers).push(conn);
        result
    }

    fn status(&self, version: u8) -> String {
        let stats = self.cache_stats();
        let rate = if stats.n_queries == 0 {
            0.0
        } else {
            stats.n_hits as f64 * 100.0 / stats.n_queries as f64
        };
        let start = self
            .started
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        json!({
            "alloc_count": 0,
            "starttime": start,
            "start_time": start,
            "uptime": self.started_at.elapsed().as_secs(),
            "version": VERSION,
            "n_queries": stats.n_queries,
            "cache_hit_rate": rate,
            "command_version": version,
            "default_command_version": 1,
            "max_command_version": 3,
            "n_jobs": 0,
        })
        .to_string()
    }

    fn cache_limit(&self, params: &Params) -> Result<u64, CommandError> {
        let mut cache = lock(&self.cache);
        let old = cache.lru.capacity() as u64;
        if let Some(max) = params.value("max") {
            let max: usize = max
                .parse()
                .map_err(|_| CommandError::invalid(format!("max is invalid: <{max}>")))?;
            cache.lru.set_capacity(max);
        }
        Ok(old)
    }
}

impl Handler for SearchTarget {
    fn handle(&self, req: &Request<'_>) -> Response {
        let started = Instant::now();
        let start = epoch_seconds(SystemTime::now());
        let elapsed = || started.elapsed().as_secs_f64();
        let params = Params::parse(req.query);
        let Some(command) = req.path.strip_prefix("/d/") else {
            let err = CommandError {
                code: -3,
                message: format!(
                    "no such file: <{}> (hakaru-search answers /d/<command>)",
                    req.path
                ),
            };
            return Response::json(404, error_envelope(1, start, elapsed(), &err, None));
        };
        let (command, output_type) = command.split_once('.').unwrap_or((command, "json"));
        let version = match params.int("command_version", 1) {
            Ok(v @ 1..=3) => v as u8,
            Ok(v) => {
                let err = CommandError::invalid(format!(
                    "[command_version] unsupported command version: <{v}>: available: 1..3"
                ));
                return Response::json(400, error_envelope(1, start, elapsed(), &err, None));
            }
            Err(e) => return Response::json(400, error_envelope(1, start, elapsed(), &e, None)),
        };
        if output_type != "json" {
            let err = CommandError::invalid(format!(
                "unsupported output type: <{output_type}> (hakaru-search writes json)"
            ));
            return Response::json(400, error_envelope(version, start, elapsed(), &err, None));
        }
        match command {
            "select" => match self.select(&params, version) {
                Ok(body) => Response::json(200, envelope(version, start, elapsed(), &body)),
                Err(e) => {
                    let status = if e.code == -1 { 500 } else { 400 };
                    Response::json(status, error_envelope(version, start, elapsed(), &e, None))
                }
            },
            "status" => Response::json(
                200,
                envelope(version, start, elapsed(), &self.status(version)),
            ),
            "load" => match self.load(req, &params) {
                Ok(n) => {
                    let body = if version >= 3 {
                        format!("{{\"n_loaded_records\":{n}}}")
                    } else {
                        n.to_string()
                    };
                    Response::json(200, envelope(version, start, elapsed(), &body))
                }
                Err((e, n)) => {
                    let status = if e.code == -1 { 500 } else { 400 };
                    let trailing = if version >= 3 {
                        format!("{{\"n_loaded_records\":{n}}}")
                    } else {
                        n.to_string()
                    };
                    Response::json(
                        status,
                        error_envelope(version, start, elapsed(), &e, Some(&trailing)),
                    )
                }
            },
            "cache_limit" => match self.cache_limit(&params) {
                Ok(n) => Response::json(200, envelope(version, start, elapsed(), &n.to_string())),
                Err(e) => Response::json(400, error_envelope(version, start, elapsed(), &e, None)),
            },
            other => {
                let err = CommandError {
                    code: INVALID_ARGUMENT,
                    message: format!(
                        "unknown command: <{other}> (hakaru-search answers select, status, load, cache_limit)"
                    ),
                };
                Response::json(404, error_envelope(version, start, elapsed(), &err, None))
            }
        }
    }
}

#[cfg(test)]
mod tests;

/// Build the search target and serve it on `bind` (port 0 picks one), on its own thread.
pub fn start_search(
    bind: std::net::SocketAddr,
    search: SearchOptions,
    opts: crate::server::listen::ServerOptions,
) -> Result<crate::server::listen::RunningServer, SearchError> {
    let target = SearchTarget::new(search)?;
    crate::server::listen::RunningServer::start(bind, std::sync::Arc::new(target), opts)
        .map_err(SearchError::Bind)
}
