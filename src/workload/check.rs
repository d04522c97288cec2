//! Response checks that look inside the body, for writes whose status says little:
//! Groonga's `/d/load` answers 200 with `[[0,…],N_loaded]` even when it loaded
//! nothing, and CouchDB's `_bulk_docs` answers 201 with one result per document.
//! Each turns a response into item outcomes: accepted, or failed by kind.

use crate::engine::{Answer, ResponseCheck};
use crate::stats::ItemCounts;

/// The kind for items a server acknowledged without keeping (fewer counted than sent).
pub use crate::result::NOT_KEPT;
/// The kind for items whose response could not be read (not JSON, cut at the limit).
pub const UNREADABLE: &str = "unreadable";
/// The kind for items of a request answered with a status outside 2xx.
pub const REJECTED: &str = "rejected";

/// The body of a 2xx answer as JSON; otherwise every item it carried is counted as
/// failed (rejected, or unreadable: not JSON, or cut at the body limit) and `None`.
fn json_body(answer: &Answer<'_>, items: &mut ItemCounts) -> Option<serde_json::Value> {
    if !(200..300).contains(&answer.status) {
        items.failed(REJECTED, answer.items);
        return None;
    }
    let value = serde_json::from_slice(answer.body).ok();
    if value.is_none() {
        items.failed(UNREADABLE, answer.items);
    }
    value
}

/// Reads how many items the server kept from a number at a JSON pointer (`/1` for
/// Groonga's `load`) and compares it with the items the request carried.
#[derive(Debug, Clone)]
pub struct CountAtPointer {
    pub pointer: String,
    pub body_limit: usize,
}

impl ResponseCheck for CountAtPointer {
    fn body_limit(&self) -> usize {
        self.body_limit
    }

    fn check(&mut self, answer: &Answer<'_>, items: &mut ItemCounts) {
        let Some(body) = json_body(answer, items) else {
            return;
        };
        match body.pointer(&self.pointer).and_then(|n| n.as_u64()) {
            Some(n) => {
                let kept = n.min(answer.items);
                items.ok(kept);
                if kept < answer.items {
                    items.failed(NOT_KEPT, answer.items - kept);
                }
            }
            None => items.failed(UNREADABLE, answer.items),
        }
    }
}

/// Reads one result per item from a JSON array (CouchDB's `_bulk_docs`): an element
/// with `"error"` failed with that error as its kind (`conflict`, `forbidden`…), any
/// other element succeeded. Items with no element in the answer were not kept.
#[derive(Debug, Clone)]
pub struct PerItemResults {
    pub body_limit: usize,
}

impl ResponseCheck for PerItemResults {
    fn body_limit(&self) -> usize {
        self.body_limit
    }

    fn check(&mut self, answer: &Answer<'_>, items: &mut ItemCounts) {
        let Some(body) = json_body(answer, items) else {
            return;
        };
        let serde_json::Value::Array(results) = body else {
            items.failed(UNREADABLE, answer.items);
            return;
        };
        let mut seen = 0u64;
        for r in results.iter().take(answer.items as usize) {
            seen += 1;
            match r.get("error") {
                Some(e) => items.failed(e.as_str().unwrap_or("error"), 1),
                None => items.ok(1),
            }
        }
        if seen < answer.items {
            items.failed(NOT_KEPT, answer.items - seen);
        }
    }
}

/// A JSON pointer with `*` segments: `/items/*/error`. The part before the first `*`
/// names the array of per-item results; each `*` matches every element (or member).
/// Refused with the segment's position when it cannot work (no `*`, `*` first…).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StarPointer {
    /// Pointer to the array of items (`/items`; empty: the body itself).
    pub items: String,
    /// The rest, applied to each item: segments, `*` matching any member.
    pub rest: Vec<String>,
}

impl StarPointer {
    pub fn parse(text: &str) -> Result<StarPointer, String> {
        if !text.starts_with('/') {
            return Err(format!(
                "\"{text}\": a JSON pointer starts with '/' (e.g. /items/*/error)"
            ));
        }
        let segments: Vec<&str> = text[1..].split('/').collect();
        let Some(star) = segments.iter().position(|s| *s == "*") else {
            return Err(format!(
                "\"{text}\": no '*' says where the items are (e.g. /items/*/error: one result per element of /items)"
            ));
        };
        if star + 1 == segments.len() {
            return Err(format!(
                "\"{text}\": nothing after the last '*' at column {}: name the member that holds an item's error",
                text.len()
            ));
        }
        let unescape = |s: &str| s.replace("~1", "/").replace("~0", "~");
        Ok(StarPointer {
            items: segments[..star]
                .iter()
                .map(|s| format!("/{s}"))
                .collect::<String>(),
            rest: segments[star + 1..].iter().map(|s| unescape(s)).collect(),
        })
    }

    /// The error of one item, if any (the first match of `*`s; `null` is no error).
    fn error_of<'a>(&self, item: &'a serde_json::Value) -> Option<&'a serde_json::Value> {
        fn walk<'a>(v: &'a serde_json::Value, rest: &[String]) -> Option<&'a serde_json::Value> {
            let Some((first, tail)) = rest.split_first() else {
                return (!v.is_null()).then_some(v);
            };
            match (first.as_str(), v) {
                ("*", serde_json::Value::Object(m)) => m.values().find_map(|c| walk(c, tail)),
                ("*", serde_json::Value::Array(a)) => a.iter().find_map(|c| walk(c, tail)),
                (k, serde_json::Value::Object(m)) => m.get(k).and_then(|c| walk(c, tail)),
                (k, serde_json::Value::Array(a)) => k
                    .parse::<usize>()
                    .ok()
                    .and_then(|i| a.get(i))
                    .and_then(|c| walk(c, tail)),
                _ => None,
            }
        }
        walk(item, &self.rest)
    }
}

/// The kind of a per-item error: the string itself (`"conflict"`), or an object's
/// `type` (Elasticsearch: `version_conflict_engine_exception`) or `error` member.
fn error_kind(e: &serde_json::Value) -> &str {
    match e {
        serde_json::Value::String(s) => s,
        serde_json::Value::Object(o) => o
            .get("type")
            .or_else(|| o.get("error"))
            .and_then(|t| t.as_str())
            .unwrap_or("error"),
        _ => "error",
    }
}

/// Reads one result per item from the array a [`StarPointer`] names, failed by the
/// kind of its error (Elasticsearch's `_bulk`: `/items/*/*/error`, its `type`);
/// items with no element in the answer were not kept.
#[derive(Debug, Clone)]
pub struct ItemErrors {
    pub pointer: StarPointer,
    pub body_limit: usize,
}

impl ResponseCheck for ItemErrors {
    fn body_limit(&self) -> usize {
        self.body_limit
    }

    fn check(&mut self, answer: &Answer<'_>, items: &mut ItemCounts) {
        let Some(body) = json_body(answer, items) else {
            return;
        };
        let Some(serde_json::Value::Array(results)) = body.pointer(&self.pointer.items) else {
            items.failed(UNREADABLE, answer.items);
            return;
        };
        let mut seen = 0u64;
        for r in results.iter().take(answer.items as usize) {
            seen += 1;
            match self.pointer.error_of(r) {
                Some(e) => items.failed(error_kind(e), 1),
                None => items.ok(1),
            }
        }
        if seen < answer.items {
            items.failed(NOT_KEPT, answer.items - seen);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(status: u16, body: &str, items: u64) -> ItemCounts {
        let mut c = CountAtPointer {
            pointer: "/1".into(),
            body_limit: 1 << 20,
        };
        let mut counts = ItemCounts::default();
        c.check(
            &Answer {
                status,
                body: body.as_bytes(),
                truncated: false,
                items,
            },
            &mut counts,
        );
        counts
    }

    #[test]
    fn groonga_load_count() {
        let c = answer(200, "[[0,1.0,0.1],100]", 100);
        assert_eq!((c.ok, c.total_failed()), (100, 0));
        // Loaded nothing, yet status 200: the write was acknowledged, not kept.
        let c = answer(200, "[[0,1.0,0.1],0]", 100);
        assert_eq!(c.failed, vec![(NOT_KEPT.to_string(), 100)]);
        assert_eq!(answer(200, "oops", 5).failed[0].0, UNREADABLE);
        assert_eq!(answer(500, "", 5).failed[0].0, REJECTED);
    }

    #[test]
    fn couchdb_bulk_results() {
        let mut c = PerItemResults {
            body_limit: 1 << 20,
        };
        let mut counts = ItemCounts::default();
        let body = r#"[{"ok":true,"id":"a","rev":"1-x"},{"id":"b","error":"conflict","reason":"Document update conflict."}]"#;
        c.check(
            &Answer {
                status: 201,
                body: body.as_bytes(),
                truncated: false,
                items: 3,
            },
            &mut counts,
        );
        assert_eq!(counts.ok, 1);
        assert_eq!(
            counts.failed,
            vec![("conflict".to_string(), 1), (NOT_KEPT.to_string(), 1)]
        );
    }

    #[test]
    fn star_pointers_find_each_items_error() {
        assert!(StarPointer::parse("items/*/error")
            .unwrap_err()
            .contains("starts with '/'"));
        assert!(StarPointer::parse("/items/error")
            .unwrap_err()
            .contains("no '*'"));
        assert!(StarPointer::parse("/items/*")
            .unwrap_err()
            .contains("column 8"));
        let p = StarPointer::parse("/items/*/*/error").unwrap();
        assert_eq!(p.items, "/items");
        let mut c = ItemErrors {
            pointer: p,
            body_limit: 1 << 20,
        };
        let mut counts = ItemCounts::default();
        let body = r#"{"took":3,"errors":true,"items":[
            {"create":{"_id":"a","status":201,"result":"created"}},
            {"create":{"_id":"b","status":409,"error":{"type":"version_conflict_engine_exception","reason":"exists"}}},
            {"index":{"_id":"c","status":400,"error":"mapper_parsing_exception"}}]}"#;
        c.check(
            &Answer {
                status: 200,
                body: body.as_bytes(),
                truncated: false,
                items: 4,
            },
            &mut counts,
        );
        assert_eq!(counts.ok, 1);
        assert_eq!(
            counts.failed,
            vec![
                ("version_conflict_engine_exception".to_string(), 1),
                ("mapper_parsing_exception".to_string(), 1),
                (NOT_KEPT.to_string(), 1)
            ]
        );
        // The body itself as the array: CouchDB's `_bulk_docs` read the generic way.
        let p = StarPointer::parse("/*/error").unwrap();
        assert_eq!(p.items, "");
    }
}
