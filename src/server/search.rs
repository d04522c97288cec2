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

pub mod corpus;
pub mod lru;
pub mod query;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use rusqlite::{params, Connection, OpenFlags, OptionalExtension};
use serde_json::{json, Map, Value};

use self::corpus::{CorpusOptions, Page};
use self::lru::Lru;
use self::query::{
    parse_select, Column, CommandError, Drilldown, DrilldownColumn, DrilldownKey, Output, Params,
    SelectParams, INVALID_ARGUMENT,
};
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

    fn select(&self, params: &Params, version: u8) -> Result<Arc<str>, CommandError> {
        self.n_queries.fetch_add(1, Ordering::Relaxed);
        let select = parse_select(params, version)?;
        let key = format!("{select:?}");
        let generation = {
            let mut cache = lock(&self.cache);
            if !select.no_cache {
                if let Some(body) = cache.lru.get(&key) {
                    self.n_hits.fetch_add(1, Ordering::Relaxed);
                    return Ok(body);
                }
            }
            cache.generation
        };
        let body: Arc<str> = self
            .with_reader(|conn| run_select(conn, &select))
            .map_err(|e| CommandError {
                code: -1,
                message: format!("[select] SQLite: {e}"),
            })?
            .into();
        if !select.no_cache {
            let mut cache = lock(&self.cache);
            if cache.generation == generation {
                cache.lru.put(key, body.clone());
            }
        }
        Ok(body)
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

    fn load(&self, req: &Request<'_>, params: &Params) -> Result<u64, (CommandError, u64)> {
        let table = params.value("table").unwrap_or("");
        if table != "Pages" {
            return Err((
                CommandError::invalid(format!("nonexistent table: <{table}>")),
                0,
            ));
        }
        let json_body = req.headers.iter().any(|(k, v)| {
            k.eq_ignore_ascii_case("content-type")
                && v.trim()
                    .to_ascii_lowercase()
                    .starts_with("application/json")
        });
        let text: std::borrow::Cow<'_, str> = match params.get("values") {
            Some(v) => v.into(),
            None if json_body => String::from_utf8_lossy(req.body),
            None => return Ok(0), // Groonga reads the body only as JSON: 0 loaded, no error.
        };
        let Ok(Value::Array(records)) = serde_json::from_str::<Value>(&text) else {
            return Ok(0); // as Groonga 13: status 0, nothing loaded
        };
        let pages = records_to_pages(&records);
        let mut writer = lock(&self.writer);
        let result = (|| {
            let tx = writer.transaction()?;
            let mut n_new = 0u64;
            for page in &pages {
                if upsert_partial(&tx, page)? {
                    n_new += 1;
                }
            }
            tx.commit()?;
            Ok::<u64, rusqlite::Error>(n_new)
        })();
        drop(writer);
        let n_new = result.map_err(|e| {
            (
                CommandError {
                    code: -1,
                    message: format!("[load] SQLite: {e}"),
                },
                0,
            )
        })?;
        self.n_documents.fetch_add(n_new, Ordering::Relaxed);
        {
            let mut cache = lock(&self.cache);
            cache.generation += 1;
            cache.lru.clear();
        }
        Ok(pages.len() as u64)
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

/// A loaded record: `None` fields keep their stored value on update.
struct PartialPage {
    key: String,
    title: Option<String>,
    text: Option<String>,
    categories: Option<Vec<String>>,
}

fn value_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Null => None,
        other => Some(other.to_string()),
    }
}

fn clean_category(s: &str) -> String {
    s.chars()
        .filter(|c| !c.is_control())
        .collect::<String>()
        .trim()
        .to_string()
}

/// Load records as Groonga takes them: objects, or arrays after a header array of
/// column names. Records without a `_key` are skipped (Groonga reports and skips them).
fn records_to_pages(records: &[Value]) -> Vec<PartialPage> {
    let mut header: Option<Vec<String>> = None;
    let mut pages = Vec::new();
    for (i, record) in records.iter().enumerate() {
        let fields: Vec<(String, &Value)> = match record {
            Value::Object(map) => map.iter().map(|(k, v)| (k.clone(), v)).collect(),
            Value::Array(values) if i == 0 && values.iter().all(Value::is_string) => {
                header = Some(
                    values
                        .iter()
                        .filter_map(|v| v.as_str().map(str::to_string))
                        .collect(),
                );
                continue;
            }
            Value::Array(values) => match &header {
                Some(h) => h.iter().cloned().zip(values.iter()).collect(),
                None => continue,
            },
            _ => continue,
        };
        let mut page = PartialPage {
            key: String::new(),
            title: None,
            text: None,
            categories: None,
        };
        for (name, value) in fields {
            match name.as_str() {
                "_key" => page.key = value_text(value).unwrap_or_default(),
                "title" => page.title = value_text(value),
                "text" => page.text = value_text(value),
                "categories" => {
                    page.categories = Some(match value {
                        Value::Array(items) => items
                            .iter()
                            .filter_map(value_text)
                            .map(|s| clean_category(&s))
                            .filter(|s| !s.is_empty())
                            .collect(),
                        Value::Null => Vec::new(),
                        other => value_text(other)
                            .map(|s| clean_category(&s))
                            .into_iter()
                            .filter(|s| !s.is_empty())
                            .collect(),
                    })
                }
                _ => {}
            }
        }
        if !page.key.is_empty() {
            pages.push(page);
        }
    }
    pages
}

fn set_categories(conn: &Connection, page_id: i64, categories: &[String]) -> rusqlite::Result<()> {
    conn.prepare_cached("DELETE FROM page_categories WHERE page_id = ?1")?
        .execute([page_id])?;
    for name in categories {
        conn.prepare_cached("INSERT OR IGNORE INTO categories(name) VALUES (?1)")?
            .execute([name])?;
        conn.prepare_cached(
            "INSERT OR IGNORE INTO page_categories(page_id, category_id) SELECT ?1, id FROM categories WHERE name = ?2",
        )?
        .execute(params![page_id, name])?;
    }
    Ok(())
}

/// Inserts a generated page.
fn upsert(conn: &Connection, page: &Page) -> rusqlite::Result<()> {
    upsert_partial(
        conn,
        &PartialPage {
            key: page.key.clone(),
            title: Some(page.title.clone()),
            text: Some(page.text.clone()),
            categories: Some(page.categories.clone()),
        },
    )
    .map(|_| ())
}

/// Inserts or updates one page by key; true when it was new.
fn upsert_partial(conn: &Connection, page: &PartialPage) -> rusqlite::Result<bool> {
    let existing: Option<(i64, String, String, String)> = conn
        .prepare_cached("SELECT id, title, text, categories FROM pages WHERE key = ?1")?
        .query_row([&page.key], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
        })
        .optional()?;
    let categories_text = page.categories.as_ref().map(|c| {
        let mut s = String::new();
        for (i, name) in c.iter().enumerate() {
            if i > 0 {
                s.push(SEP);
            }
            s.push_str(name);
        }
        s
    });
    let (id, is_new) = match existing {
        Some((id, old_title, old_text, old_categories)) => {
            let title = page.title.clone().unwrap_or(old_title);
            let text = page.text.clone().unwrap_or(old_text);
            let categories = categories_text.unwrap_or(old_categories);
            conn.prepare_cached(
                "UPDATE pages SET title = ?2, text = ?3, categories = ?4 WHERE id = ?1",
            )?
            .execute(params![id, title, text, categories])?;
            conn.prepare_cached("DELETE FROM pages_fts WHERE rowid = ?1")?
                .execute([id])?;
            conn.prepare_cached("INSERT INTO pages_fts(rowid, title, text) VALUES (?1, ?2, ?3)")?
                .execute(params![id, title, text])?;
            (id, false)
        }
        None => {
            let title = page.title.clone().unwrap_or_default();
            let text = page.text.clone().unwrap_or_default();
            conn.prepare_cached(
                "INSERT INTO pages(key, title, text, categories) VALUES (?1, ?2, ?3, ?4)",
            )?
            .execute(params![
                page.key,
                title,
                text,
                categories_text.clone().unwrap_or_default()
            ])?;
            let id = conn.last_insert_rowid();
            conn.prepare_cached("INSERT INTO pages_fts(rowid, title, text) VALUES (?1, ?2, ?3)")?
                .execute(params![id, title, text])?;
            (id, true)
        }
    };
    if let Some(categories) = &page.categories {
        set_categories(conn, id, categories)?;
    }
    Ok(is_new)
}

/// Groonga's offset/limit rules: a negative offset counts from the end, a
/// negative limit means "all but the last -limit-1".
fn window(n: i64, offset: i64, limit: i64) -> (i64, i64) {
    let offset = if offset < 0 {
        (n + offset).max(0)
    } else {
        offset.min(n)
    };
    let limit = if limit < 0 {
        (n + limit + 1).max(0)
    } else {
        limit
    };
    (offset, limit.min(n - offset).max(0))
}

struct Row {
    id: i64,
    key: String,
    title: String,
    text: String,
    categories: String,
    score: f64,
}

fn sort_sql(select: &SelectParams) -> String {
    let mut parts: Vec<String> = select
        .sort
        .iter()
        .map(|k| {
            let col = match k.column {
                Column::Id => "p.id",
                Column::Key => "p.key",
                Column::Title => "p.title",
                Column::Text => "p.text",
                Column::Score => "score",
                Column::Categories => "p.categories",
            };
            format!("{col} {}", if k.descending { "DESC" } else { "ASC" })
        })
        .collect();
    parts.push("p.id ASC".to_string());
    parts.join(", ")
}

/// Runs a select and renders its body (everything after the header).
fn run_select(conn: &Connection, select: &SelectParams) -> rusqlite::Result<String> {
    let fts = select.fts.as_deref();
    let n_hits: i64 = match fts {
        Some(m) => conn
            .prepare_cached("SELECT count(*) FROM pages_fts WHERE pages_fts MATCH ?1")?
            .query_row([m], |r| r.get(0))?,
        None => conn
            .prepare_cached("SELECT count(*) FROM pages")?
            .query_row([], |r| r.get(0))?,
    };
    let (offset, limit) = window(n_hits, select.offset, select.limit);
    let order = sort_sql(select);
    let mut rows = Vec::with_capacity(limit.min(1000) as usize);
    if limit > 0 {
        let map = |r: &rusqlite::Row<'_>| {
            Ok(Row {
                id: r.get(0)?,
                key: r.get(1)?,
                title: r.get(2)?,
                text: r.get(3)?,
                categories: r.get(4)?,
                score: r.get(5)?,
            })
        };
        match fts {
            Some(m) => {
                let sql = format!(
                    "SELECT p.id, p.key, p.title, p.text, p.categories, -bm25(pages_fts) AS score \
                     FROM pages_fts JOIN pages p ON p.id = pages_fts.rowid \
                     WHERE pages_fts MATCH ?1 ORDER BY {order} LIMIT ?2 OFFSET ?3"
                );
                let mut stmt = conn.prepare_cached(&sql)?;
                for row in stmt.query_map(params![m, limit, offset], map)? {
                    rows.push(row?);
                }
            }
            None => {
                let sql = format!(
                    "SELECT p.id, p.key, p.title, p.text, p.categories, 0.0 AS score \
                     FROM pages p ORDER BY {order} LIMIT ?1 OFFSET ?2"
                );
                let mut stmt = conn.prepare_cached(&sql)?;
                for row in stmt.query_map(params![limit, offset], map)? {
                    rows.push(row?);
                }
            }
        }
    }
    let mut drilldowns = Vec::new();
    if let Some(dd) = &select.drilldown {
        for &key in &dd.keys {
            drilldowns.push((key, drilldown_groups(conn, fts, key)?));
        }
    }
    Ok(render_select(select, n_hits, &rows, &drilldowns))
}

/// One drilldown group: id, key, number of matching records.
type Group = (i64, String, i64);

fn drilldown_groups(
    conn: &Connection,
    fts: Option<&str>,
    key: DrilldownKey,
) -> rusqlite::Result<Vec<Group>> {
    let sql = match (key, fts.is_some()) {
        (DrilldownKey::Categories, true) => {
            "SELECT c.id, c.name, count(*) FROM pages_fts \
             JOIN page_categories pc ON pc.page_id = pages_fts.rowid \
             JOIN categories c ON c.id = pc.category_id \
             WHERE pages_fts MATCH ?1 GROUP BY c.id ORDER BY c.id"
        }
        (DrilldownKey::Categories, false) => {
            "SELECT c.id, c.name, count(*) FROM page_categories pc \
             JOIN categories c ON c.id = pc.category_id GROUP BY c.id ORDER BY c.id"
        }
        (DrilldownKey::Title, true) => {
            "SELECT min(p.id) AS first, p.title, count(*) FROM pages_fts \
             JOIN pages p ON p.id = pages_fts.rowid \
             WHERE pages_fts MATCH ?1 GROUP BY p.title ORDER BY first"
        }
        (DrilldownKey::Title, false) => {
            "SELECT min(p.id) AS first, p.title, count(*) FROM pages p GROUP BY p.title ORDER BY first"
        }
    };
    let mut stmt = conn.prepare_cached(sql)?;
    let map = |r: &rusqlite::Row<'_>| {
        Ok((
            r.get::<_, i64>(0)?,
            r.get::<_, String>(1)?,
            r.get::<_, i64>(2)?,
        ))
    };
    let mut groups: Vec<Group> = match fts {
        Some(m) => stmt.query_map([m], map)?.collect::<Result<_, _>>()?,
        None => stmt.query_map([], map)?.collect::<Result<_, _>>()?,
    };
    if key == DrilldownKey::Title {
        // Title groups live in a temporary table in Groonga: number them 1, 2, ...
        for (i, g) in groups.iter_mut().enumerate() {
            g.0 = i as i64 + 1;
        }
    }
    Ok(groups)
}

fn column_type(out: Output, version: u8) -> (String, Value) {
    match out {
        Output::Column(c) => {
            let ty = match c {
                Column::Id => "UInt32",
                Column::Key | Column::Title => "ShortText",
                Column::Text => "Text",
                Column::Categories => "Categories",
                Column::Score if version == 1 => "Int32",
                Column::Score => "Float",
            };
            (c.name().to_string(), json!(ty))
        }
        Output::Snippet(c) if version >= 3 => (format!("snippet_html({})", c.name()), Value::Null),
        Output::Snippet(_) => ("snippet_html".to_string(), Value::Null),
    }
}

fn row_value(row: &Row, out: Output, select: &SelectParams) -> Value {
    match out {
        Output::Column(Column::Id) => json!(row.id),
        Output::Column(Column::Key) => json!(row.key),
        Output::Column(Column::Title) => json!(row.title),
        Output::Column(Column::Text) => json!(row.text),
        Output::Column(Column::Categories) => Value::Array(
            row.categories
                .split(SEP)
                .filter(|s| !s.is_empty())
                .map(|s| json!(s))
                .collect(),
        ),
        Output::Column(Column::Score) => {
            if select.command_version == 1 {
                json!(row.score.round() as i64)
            } else {
                json!((row.score * 1e6).round() / 1e6)
            }
        }
        Output::Snippet(c) => {
            let text = if c == Column::Title {
                &row.title
            } else {
                &row.text
            };
            match snippet_html(text, &select.keywords) {
                Some(s) => json!([s]),
                None => Value::Null,
            }
        }
    }
}

/// One result set (the records, or one drilldown) before it takes a
/// command_version's shape.
struct ResultSet {
    n_hits: i64,
    columns: Vec<(String, Value)>,
    records: Vec<Value>,
}

impl ResultSet {
    /// command_version 1/2: `[[n_hits], [[name, type], ...], record, ...]`.
    fn into_array(self) -> Value {
        let mut arr = Vec::with_capacity(self.records.len() + 2);
        arr.push(json!([self.n_hits]));
        arr.push(Value::Array(
            self.columns
                .into_iter()
                .map(|(n, t)| json!([n, t]))
                .collect(),
        ));
        arr.extend(self.records);
        Value::Array(arr)
    }

    /// command_version 3: `{"n_hits", "columns": [{"name", "type"}], "records"}`.
    fn into_object(self) -> Map<String, Value> {
        let mut obj = Map::new();
        obj.insert("n_hits".into(), json!(self.n_hits));
        obj.insert(
            "columns".into(),
            Value::Array(
                self.columns
                    .into_iter()
                    .map(|(n, t)| json!({"name": n, "type": t}))
                    .collect(),
            ),
        );
        obj.insert("records".into(), Value::Array(self.records));
        obj
    }
}

fn drilldown_result(dd: &Drilldown, groups: &[Group]) -> ResultSet {
    let mut sorted: Vec<&Group> = groups.iter().collect();
    if !dd.sort.is_empty() {
        sorted.sort_by(|a, b| {
            for &(col, desc) in &dd.sort {
                let ord = match col {
                    DrilldownColumn::Id => a.0.cmp(&b.0),
                    DrilldownColumn::Key => a.1.cmp(&b.1),
                    DrilldownColumn::NSubrecs => a.2.cmp(&b.2),
                };
                let ord = if desc { ord.reverse() } else { ord };
                if ord.is_ne() {
                    return ord;
                }
            }
            a.0.cmp(&b.0)
        });
    }
    let (offset, limit) = window(sorted.len() as i64, dd.offset, dd.limit);
    let columns = dd
        .output
        .iter()
        .map(|c| match c {
            DrilldownColumn::Id => ("_id".to_string(), json!("UInt32")),
            DrilldownColumn::Key => ("_key".to_string(), json!("ShortText")),
            DrilldownColumn::NSubrecs => ("_nsubrecs".to_string(), json!("Int32")),
        })
        .collect();
    let records = sorted
        .iter()
        .skip(offset as usize)
        .take(limit as usize)
        .map(|g| {
            Value::Array(
                dd.output
                    .iter()
                    .map(|c| match c {
                        DrilldownColumn::Id => json!(g.0),
                        DrilldownColumn::Key => json!(g.1),
                        DrilldownColumn::NSubrecs => json!(g.2),
                    })
                    .collect(),
            )
        })
        .collect();
    ResultSet {
        n_hits: groups.len() as i64,
        columns,
        records,
    }
}

fn render_select(
    select: &SelectParams,
    n_hits: i64,
    rows: &[Row],
    drilldowns: &[(DrilldownKey, Vec<Group>)],
) -> String {
    let v = select.command_version;
    let main = ResultSet {
        n_hits,
        columns: select.output.iter().map(|&o| column_type(o, v)).collect(),
        records: rows
            .iter()
            .map(|r| {
                Value::Array(
                    select
                        .output
                        .iter()
                        .map(|&o| row_value(r, o, select))
                        .collect(),
                )
            })
            .collect(),
    };
    let drilldowns: Vec<(DrilldownKey, ResultSet)> = match &select.drilldown {
        Some(dd) => drilldowns
            .iter()
            .map(|(key, groups)| (*key, drilldown_result(dd, groups)))
            .collect(),
        None => Vec::new(),
    };
    if v >= 3 {
        let mut body = main.into_object();
        if select.drilldown.is_some() {
            let dds: Map<String, Value> = drilldowns
                .into_iter()
                .map(|(key, set)| (key.name().to_string(), Value::Object(set.into_object())))
                .collect();
            body.insert("drilldowns".into(), Value::Object(dds));
        }
        Value::Object(body).to_string()
    } else {
        let mut body = vec![main.into_array()];
        body.extend(drilldowns.into_iter().map(|(_, set)| set.into_array()));
        Value::Array(body).to_string()
    }
}

/// Groonga's snippet_html, simplified: one window of up to 200 bytes starting a
/// little before the first keyword, HTML-escaped, keywords (ASCII
/// case-insensitive, whole words as the full-text index matched them) wrapped in
/// `<span class="keyword">`.
pub fn snippet_html(text: &str, keywords: &[String]) -> Option<String> {
    const WIDTH: usize = 200;
    const BEFORE: usize = 40;
    let lower = text.to_ascii_lowercase();
    let mut matches: Vec<(usize, usize)> = Vec::new();
    for kw in keywords.iter().filter(|k| !k.is_empty()) {
        let is_word_char = |c: Option<char>| c.is_some_and(char::is_alphanumeric);
        matches.extend(
            lower
                .match_indices(kw.as_str())
                .map(|(i, m)| (i, i + m.len()))
                .filter(|&(s, e)| {
                    !is_word_char(lower[..s].chars().next_back())
                        && !is_word_char(lower[e..].chars().next())
                }),
        );
    }
    if matches.is_empty() {
        return None;
    }
    matches.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
    let floor = |mut i: usize| {
        while i > 0 && !text.is_char_boundary(i) {
            i -= 1;
        }
        i
    };
    let mut start = floor(matches[0].0.saturating_sub(BEFORE));
    if start > 0 {
        // Begin at a word, not in the middle of one.
        if let Some(space) = text[start..matches[0].0].find(char::is_whitespace) {
            start += space + 1;
        }
    }
    let end = floor((start + WIDTH).min(text.len())).max(matches[0].1);
    let mut out = String::with_capacity(end - start + 64);
    let mut pos = start;
    for &(s, e) in &matches {
        if s < pos || e > end {
            continue;
        }
        html_escape(&text[pos..s], &mut out);
        out.push_str("<span class=\"keyword\">");
        html_escape(&text[s..e], &mut out);
        out.push_str("</span>");
        pos = e;
    }
    html_escape(&text[pos..end], &mut out);
    Some(out)
}

fn html_escape(s: &str, out: &mut String) {
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            _ => out.push(c),
        }
    }
}

/// Wraps a body in the header of `version`.
fn envelope(version: u8, start: f64, elapsed: f64, body: &str) -> String {
    if version >= 3 {
        format!(
            "{{\"header\":{{\"return_code\":0,\"start_time\":{start},\"elapsed_time\":{elapsed}}},\"body\":{body}}}"
        )
    } else {
        format!("[[0,{start},{elapsed}],{body}]")
    }
}

/// A Groonga error answer; `trailing` is a value after the header (load's count).
fn error_envelope(
    version: u8,
    start: f64,
    elapsed: f64,
    err: &CommandError,
    trailing: Option<&str>,
) -> String {
    let message = Value::String(err.message.clone());
    let code = err.code;
    if version >= 3 {
        let mut s = format!(
            "{{\"header\":{{\"return_code\":{code},\"start_time\":{start},\"elapsed_time\":{elapsed},\"error\":{{\"message\":{message}}}}}"
        );
        if let Some(t) = trailing {
            s.push_str(&format!(",\"body\":{t}"));
        }
        s.push('}');
        s
    } else {
        match trailing {
            Some(t) => format!("[[{code},{start},{elapsed},{message}],{t}]"),
            None => format!("[[{code},{start},{elapsed},{message}]]"),
        }
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
