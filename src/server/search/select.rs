//! `/d/select`: the result cache in front, then the SQLite queries (FTS5 match,
//! sort, window, drilldown groups) that produce the rows [`super::render`] shapes.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use rusqlite::{params, Connection};

use super::query::{parse_select, Column, CommandError, DrilldownKey, Params, SelectParams};
use super::render::render_select;
use super::{lock, SearchTarget};

impl SearchTarget {
    pub(super) fn select(&self, params: &Params, version: u8) -> Result<Arc<str>, CommandError> {
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
}

/// Groonga's offset/limit rules: a negative offset counts from the end, a
/// negative limit means "all but the last -limit-1".
pub(super) fn window(n: i64, offset: i64, limit: i64) -> (i64, i64) {
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

pub(super) struct Row {
    pub(super) id: i64,
    pub(super) key: String,
    pub(super) title: String,
    pub(super) text: String,
    pub(super) categories: String,
    pub(super) score: f64,
}

pub(super) fn sort_sql(select: &SelectParams) -> String {
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
pub(super) fn run_select(conn: &Connection, select: &SelectParams) -> rusqlite::Result<String> {
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
pub(super) type Group = (i64, String, i64);

pub(super) fn drilldown_groups(
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
