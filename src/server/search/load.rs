//! `/d/load`: records as Groonga takes them (objects, or arrays after a header of
//! column names) inserted or updated by `_key`, and the upsert that the corpus build
//! uses too. A load empties the result cache.

use std::sync::atomic::Ordering;

use rusqlite::{params, Connection, OptionalExtension};
use serde_json::Value;

use super::corpus::Page;
use super::query::{CommandError, Params};
use super::{lock, SearchTarget, SEP};
use crate::server::handler::Request;

impl SearchTarget {
    pub(super) fn load(
        &self,
        req: &Request<'_>,
        params: &Params,
    ) -> Result<u64, (CommandError, u64)> {
        let table = params.value("table").unwrap_or("");
        if table != "Pages" {
            return Err((
                CommandError::invalid(format!("nonexistent table: <{table}>")),
                0,
            ));
        }
        let json_body = req.headers.get_all("content-type").iter().any(|v| {
            v.as_bytes()
                .trim_ascii()
                .to_ascii_lowercase()
                .starts_with(b"application/json")
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
}

/// A loaded record: `None` fields keep their stored value on update.
pub(super) struct PartialPage {
    key: String,
    title: Option<String>,
    text: Option<String>,
    categories: Option<Vec<String>>,
}

pub(super) fn value_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Null => None,
        other => Some(other.to_string()),
    }
}

pub(super) fn clean_category(s: &str) -> String {
    s.chars()
        .filter(|c| !c.is_control())
        .collect::<String>()
        .trim()
        .to_string()
}

/// Load records as Groonga takes them: objects, or arrays after a header array of
/// column names. Records without a `_key` are skipped (Groonga reports and skips them).
pub(super) fn records_to_pages(records: &[Value]) -> Vec<PartialPage> {
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

pub(super) fn set_categories(
    conn: &Connection,
    page_id: i64,
    categories: &[String],
) -> rusqlite::Result<()> {
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
pub(super) fn upsert(conn: &Connection, page: &Page) -> rusqlite::Result<()> {
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
pub(super) fn upsert_partial(conn: &Connection, page: &PartialPage) -> rusqlite::Result<bool> {
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
