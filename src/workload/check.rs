//! Response checks that look inside the body, for writes whose status says little:
//! Groonga's `/d/load` answers 200 with `[[0,…],N_loaded]` even when it loaded
//! nothing, and CouchDB's `_bulk_docs` answers 201 with one result per document.
//! Each turns a response into item outcomes: accepted, or failed by kind.

use crate::engine::{Answer, ResponseCheck};
use crate::stats::ItemCounts;

/// The kind for items a server acknowledged without keeping (fewer counted than sent).
pub const NOT_KEPT: &str = "not_kept";
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
}
