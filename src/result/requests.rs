//! Which requests a result names: the method and URL behind the number every
//! slowest/fastest sample carries ([`RequestSample::request`]).
//!
//! A run keeps only the requests its lists name, each with its number (`id`), and
//! records the patterns file's digest and count beside them; a million-line patterns
//! file then costs a result a few kilobytes, not a hundred megabytes. `--request-list`
//! keeps every planned request, in plan order and without numbers — the form every
//! file before schema 3 has, so both read alike: an entry without an `id` is numbered
//! by its place.
//!
//! [`RequestSample::request`]: crate::stats::RequestSample

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::StepResult;

/// Method and URL of one request.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, JsonSchema)]
pub struct RequestInfo {
    /// The request's number in the plan, as samples give it; absent when the list
    /// holds every request (then an entry's number is its place).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<usize>,
    pub method: String,
    pub url: String,
}

/// The requests a result names; see the module documentation.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(transparent)]
pub struct RequestList(Vec<RequestInfo>);

impl RequestList {
    /// Every planned request, numbered by place (`--request-list`).
    pub fn all(mut infos: Vec<RequestInfo>) -> RequestList {
        for r in &mut infos {
            r.id = None;
        }
        RequestList(infos)
    }

    /// Whether the list holds every planned request (numbered by place), or only
    /// those the result names.
    pub fn is_complete(&self) -> bool {
        self.0.first().is_none_or(|r| r.id.is_none())
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = &RequestInfo> {
        self.0.iter()
    }

    /// Request number `id`, if the list has it.
    pub fn get(&self, id: usize) -> Option<&RequestInfo> {
        if self.is_complete() {
            return self.0.get(id);
        }
        self.0
            .binary_search_by_key(&id, |r| r.id.unwrap_or(usize::MAX))
            .ok()
            .map(|i| &self.0[i])
    }

    /// Adds request number `id` to a partial list (kept in order of number); a
    /// complete list already has it.
    pub fn insert(&mut self, id: usize, mut info: RequestInfo) {
        if self.is_complete() && !self.0.is_empty() {
            return;
        }
        if let Err(at) = self
            .0
            .binary_search_by_key(&id, |r| r.id.unwrap_or(usize::MAX))
        {
            info.id = Some(id);
            self.0.insert(at, info);
        }
    }

    /// Adds the requests `step`'s slowest and fastest lists name, looked up with
    /// `lookup`, that the list does not hold yet.
    pub fn add_named(
        &mut self,
        step: &StepResult,
        mut lookup: impl FnMut(usize) -> Option<RequestInfo>,
    ) {
        if self.is_complete() && !self.0.is_empty() {
            return;
        }
        for s in step.slowest.iter().chain(&step.fastest) {
            if self.get(s.request).is_none() {
                if let Some(info) = lookup(s.request) {
                    self.insert(s.request, info);
                }
            }
        }
    }

    /// Whether two lists could be of one plan: every number both hold names the
    /// same request.
    pub fn agrees_with(&self, other: &RequestList) -> bool {
        if self.is_complete() && other.is_complete() {
            return self == other;
        }
        self.numbered()
            .all(|(id, r)| other.get(id).is_none_or(|o| same(o, r)))
    }

    /// Both lists' requests: a complete list when either is, else the union.
    pub fn union(&self, other: &RequestList) -> RequestList {
        match (self.is_complete(), other.is_complete()) {
            (true, _) if !self.is_empty() => self.clone(),
            (_, true) if !other.is_empty() => other.clone(),
            _ => {
                let mut out = self.clone();
                for (id, r) in other.numbered() {
                    out.insert(id, r.clone());
                }
                out
            }
        }
    }

    fn numbered(&self) -> impl Iterator<Item = (usize, &RequestInfo)> {
        let complete = self.is_complete();
        self.0
            .iter()
            .enumerate()
            .map(move |(i, r)| (if complete { i } else { r.id.unwrap_or(i) }, r))
    }
}

fn same(a: &RequestInfo, b: &RequestInfo) -> bool {
    a.method == b.method && a.url == b.url
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(url: &str) -> RequestInfo {
        RequestInfo {
            id: None,
            method: "GET".into(),
            url: url.into(),
        }
    }

    #[test]
    fn a_complete_list_is_numbered_by_place() {
        let l = RequestList::all(vec![info("/a"), info("/b")]);
        assert!(l.is_complete());
        assert_eq!(l.get(1).map(|r| r.url.as_str()), Some("/b"));
        assert_eq!(l.get(2), None);
    }

    #[test]
    fn a_partial_list_keeps_numbers_in_order_once() {
        let mut l = RequestList::default();
        l.insert(900, info("/z"));
        l.insert(7, info("/a"));
        l.insert(900, info("/other"));
        assert!(!l.is_complete());
        assert_eq!(l.len(), 2);
        assert_eq!(l.get(900).map(|r| r.url.as_str()), Some("/z"));
        assert_eq!(l.get(7).map(|r| r.url.as_str()), Some("/a"));
        assert_eq!(l.get(8), None);
        let json = serde_json::to_string(&l).unwrap();
        assert_eq!(
            json,
            r#"[{"id":7,"method":"GET","url":"/a"},{"id":900,"method":"GET","url":"/z"}]"#
        );
        let back: RequestList = serde_json::from_str(&json).unwrap();
        assert_eq!(back, l);
    }

    #[test]
    fn shards_lists_join_and_a_conflict_is_seen() {
        let mut a = RequestList::default();
        a.insert(1, info("/one"));
        let mut b = RequestList::default();
        b.insert(2, info("/two"));
        assert!(a.agrees_with(&b));
        let u = a.union(&b);
        assert_eq!(u.len(), 2);
        let full = RequestList::all(vec![info("/zero"), info("/one"), info("/two")]);
        assert!(full.agrees_with(&u) && u.agrees_with(&full));
        assert_eq!(u.union(&full), full);
        let mut c = RequestList::default();
        c.insert(1, info("/not-one"));
        assert!(!a.agrees_with(&c));
    }
}
