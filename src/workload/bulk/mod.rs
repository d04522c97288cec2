//! Bulk writes (`hakaru bulk`): each request carries a batch of documents built at
//! send time from a [`DocTemplate`] into buffers the client reuses, so a
//! 10,000-document batch costs a fill, not an allocation per document.
//!
//! Per target kind:
//! - CouchDB: `POST /db/_bulk_docs` with `{"docs":[…]}`, read back per item
//!   ([`PerItemResults`]: `conflict`, `forbidden`…); `--single`: one `PUT /db/ID` per
//!   document (`POST /db` when the server names it), 201 or 202 is success.
//! - Groonga: `POST /d/load?table=T` with a JSON array and `Content-Type:
//!   application/json`, read back by the loaded count ([`CountAtPointer`] at `/1`):
//!   Groonga answers success having loaded nothing when the content type is wrong.
//! - Elasticsearch/OpenSearch: `POST /index/_bulk` with an action line
//!   (`{"index":{"_id":…}}` or `create`) and a source line per document, NDJSON, read
//!   back per item by `error.type` ([`ItemErrors`] at `/items/*/*/error`).
//! - Any other HTTP bulk API (`--target template`): a [`BodyTemplate`] with the
//!   per-document part marked, the method and content type given, and a
//!   [`ResponseRule`]: a count at a pointer, per-item errors, or the status alone.
//!
//! Document IDs are unique across writers, steps and rounds without coordination:
//! each step's clients get a serial number from the workload ([`BulkWorkload::begin_step`]),
//! and each client numbers its own documents. On many load machines (`--shard K/N`)
//! shard K's serials are those ≡ K-1 mod N, so sequential IDs stay unique even when
//! every machine was given the same `--id-prefix` and `--seed`.

pub mod body;
pub mod template;
pub mod verify;

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use crate::engine::{Answer, ClientId, Request, RequestSource, ResponseCheck, Turn, Workload};
use crate::http::encode::BodyRequest;
use crate::http::Target;
use crate::result::RequestInfo;
use crate::rng::SplitMix64;
use crate::stats::ItemCounts;
use crate::workload::check::{CountAtPointer, ItemErrors, PerItemResults, StarPointer, REJECTED};

pub use body::{BodyError, BodyTemplate};
pub use template::{DocTemplate, TemplateError};

/// The kind of server a bulk write talks to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TargetKind {
    CouchDb,
    Groonga,
    /// Elasticsearch or OpenSearch `_bulk`.
    Elasticsearch,
    /// Any HTTP bulk API, its body from a template (`--template`).
    Template,
}

impl TargetKind {
    pub fn as_str(self) -> &'static str {
        match self {
            TargetKind::CouchDb => "couchdb",
            TargetKind::Groonga => "groonga",
            TargetKind::Elasticsearch => "elasticsearch",
            TargetKind::Template => "template",
        }
    }

    /// The member a document's ID goes in.
    pub fn id_field(self) -> &'static str {
        match self {
            TargetKind::CouchDb | TargetKind::Elasticsearch | TargetKind::Template => "_id",
            TargetKind::Groonga => "_key",
        }
    }
}

/// Elasticsearch's bulk action per document (`--action`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EsAction {
    /// Write, replacing a document with the same ID.
    Index,
    /// Write only if the ID is new: an existing one is a `version_conflict_engine_exception`.
    Create,
}

impl EsAction {
    pub fn as_str(self) -> &'static str {
        match self {
            EsAction::Index => "index",
            EsAction::Create => "create",
        }
    }
}

/// How a templated target's answer says what was kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ResponseRule {
    /// A 2xx answer kept every document (nothing better is known).
    Status,
    /// `--ok-pointer`: the number of documents kept, at a JSON pointer.
    Count(String),
    /// `--item-error-pointer`: one result per document, failed where the pointer finds an error.
    Items(StarPointer),
}

/// What `--target template` sends and reads.
#[derive(Debug, Clone)]
pub struct Templated {
    pub body: BodyTemplate,
    pub method: String,
    pub rule: ResponseRule,
    /// `--verify`: the URL that answers the server's count, and the pointer to it.
    pub count: Option<(String, String)>,
}

/// How documents are named (`--ids`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IdStrategy {
    /// Mostly monotonic, like CouchDB's own `sequential` UUIDs: a run prefix, the
    /// step's client serial, and the client's document count, zero-padded.
    Sequential,
    /// 32 random hex digits (CouchDB's `random`): B-tree inserts all over the file.
    Random,
    /// A random version-4 UUID.
    Uuid,
    /// No ID: the server names the document (or the template sets it itself).
    Server,
}

impl IdStrategy {
    pub fn as_str(self) -> &'static str {
        match self {
            IdStrategy::Sequential => "sequential",
            IdStrategy::Random => "random",
            IdStrategy::Uuid => "uuid",
            IdStrategy::Server => "server",
        }
    }

    pub fn parse(s: &str) -> Option<IdStrategy> {
        Some(match s {
            "sequential" => IdStrategy::Sequential,
            "random" => IdStrategy::Random,
            "uuid" => IdStrategy::Uuid,
            "server" => IdStrategy::Server,
            _ => return None,
        })
    }
}

/// Everything a bulk write sends, validated (see `spec::bulk`).
#[derive(Debug, Clone)]
pub struct BulkSettings {
    pub kind: TargetKind,
    pub target: Target,
    /// CouchDB: the database's path (`/bench`); Groonga: what comes before `/d/`
    /// (empty for a server at the root).
    pub base_path: String,
    /// Groonga: the table loaded into.
    pub table: String,
    /// One document per request.
    pub single: bool,
    pub ids: IdStrategy,
    /// Starts every generated ID, so runs against one database do not collide.
    pub id_prefix: String,
    pub template: DocTemplate,
    /// CouchDB `?batch=ok`.
    pub batch_ok: bool,
    /// CouchDB `X-Couch-Full-Commit: true`.
    pub full_commit: bool,
    /// Elasticsearch: each document's action.
    pub es_action: EsAction,
    /// `--target template`: the body, method and response rule (`base_path` is then
    /// the whole path and query).
    pub templated: Option<Templated>,
    pub content_type: String,
    pub headers: Vec<(String, String)>,
    pub timeout: Duration,
    pub keep_alive: bool,
    pub seed: u64,
    /// Documents per request of each step, by the step's index in the run.
    pub batch_sizes: Vec<u64>,
    /// `--shard K/N`: this machine's lane of the writers' serial numbers.
    pub shard: Option<crate::result::Shard>,
    /// `--http2`: the load went over HTTP/2, so `--verify` counts over it too (a
    /// server that speaks h2c only answers nothing else).
    pub http2: bool,
}

impl BulkSettings {
    /// Method and path of the requests (with `{id}` where a single PUT puts the ID).
    fn method_path(&self) -> (&str, String) {
        let q = if self.batch_ok { "?batch=ok" } else { "" };
        if let Some(t) = &self.templated {
            return (t.method.as_str(), self.base_path.clone());
        }
        match (self.kind, self.single) {
            (TargetKind::CouchDb, false) => ("POST", format!("{}/_bulk_docs{q}", self.base_path)),
            (TargetKind::CouchDb, true) if self.ids == IdStrategy::Server => {
                ("POST", format!("{}{q}", self.base_path))
            }
            (TargetKind::CouchDb, true) => ("PUT", format!("{}/{{id}}{q}", self.base_path)),
            (TargetKind::Elasticsearch | TargetKind::Template, _) => {
                ("POST", format!("{}/_bulk", self.base_path))
            }
            (TargetKind::Groonga, _) => (
                "POST",
                format!(
                    "{}/d/load?table={}",
                    self.base_path,
                    crate::http::url::encode_component(&self.table)
                ),
            ),
        }
    }
}

/// A bulk write: one [`BulkSettings`], a step index that says the batch size.
pub struct BulkWorkload {
    settings: Arc<BulkSettings>,
    targets: Vec<Target>,
    /// Index of the running step in [`BulkSettings::batch_sizes`].
    step: AtomicUsize,
    /// Serial of the running step's first client.
    step_base: AtomicU64,
    /// Serial for the next step's first client.
    next_base: AtomicU64,
}

impl BulkWorkload {
    pub fn new(settings: BulkSettings) -> BulkWorkload {
        BulkWorkload {
            targets: vec![settings.target.clone()],
            settings: Arc::new(settings),
            step: AtomicUsize::new(0),
            step_base: AtomicU64::new(0),
            next_base: AtomicU64::new(0),
        }
    }

    pub fn settings(&self) -> &BulkSettings {
        &self.settings
    }

    /// Switch to step `index` with `writers` clients, before its clients are made:
    /// the batch size changes, and the step's clients take serials no other step had.
    pub fn begin_step(&self, index: usize, writers: usize) {
        self.step.store(index, Ordering::SeqCst);
        let base = self
            .next_base
            .fetch_add(writers.max(1) as u64, Ordering::SeqCst);
        self.step_base.store(base, Ordering::SeqCst);
    }

    /// Documents per request of step `index`.
    pub fn batch_size(&self, index: usize) -> u64 {
        let s = &self.settings;
        if s.single {
            1
        } else {
            s.batch_sizes.get(index).copied().unwrap_or(1).max(1)
        }
    }
}

impl Workload for BulkWorkload {
    type Source = BulkSource;
    type Check = BulkCheck;

    fn targets(&self) -> &[Target] {
        &self.targets
    }

    fn request_infos(&self) -> Vec<RequestInfo> {
        let (method, path) = self.settings.method_path();
        vec![RequestInfo {
            id: None,
            method: method.into(),
            url: format!("{}{path}", self.settings.target.label()),
        }]
    }

    fn client(&self, id: ClientId) -> (BulkSource, BulkCheck) {
        // Documents are numbered across steps and rounds (`step_base`) and a writer's
        // random filler is seeded by its number, so each step already writes its own:
        // the draw is not used (a round writes new documents, never an earlier round's).
        let client = id.index;
        let s = self.settings.clone();
        let batch = self.batch_size(self.step.load(Ordering::SeqCst));
        let local = self.step_base.load(Ordering::SeqCst) + client as u64;
        let serial = s.shard.map_or(local, |k| {
            local * u64::from(k.count) + u64::from(k.index - 1)
        });
        let (method, path) = s.method_path();
        let mut headers = s.headers.clone();
        if s.full_commit {
            headers.push(("X-Couch-Full-Commit".into(), "true".into()));
        }
        let host = crate::http::encode::host_header(&s.target.host, s.target.port, s.target.https);
        let (path, id_at) = match path.split_once("{id}") {
            Some((before, after)) => (
                format!("{before}{after}"),
                Some(method.len() + 1 + before.len()),
            ),
            None => (path, None),
        };
        let request = BodyRequest::new(
            method,
            &path,
            &host,
            &headers,
            Some(&s.content_type),
            s.keep_alive,
        );
        let check = match (s.kind, s.single) {
            (TargetKind::Template, _) => {
                let rule = s
                    .templated
                    .as_ref()
                    .map_or(ResponseRule::Status, |t| t.rule.clone());
                match rule {
                    ResponseRule::Status => BulkCheck::Status,
                    ResponseRule::Count(pointer) => BulkCheck::Count(CountAtPointer {
                        pointer,
                        body_limit: 1 << 20,
                    }),
                    ResponseRule::Items(pointer) => BulkCheck::Errors(ItemErrors {
                        pointer,
                        body_limit: (batch as usize).saturating_mul(512) + (64 << 10),
                    }),
                }
            }
            (TargetKind::CouchDb, false) => BulkCheck::Items(PerItemResults {
                // One `{"ok":true,"id":…,"rev":…}` per document, ~100 bytes.
                body_limit: (batch as usize).saturating_mul(256) + (64 << 10),
            }),
            (TargetKind::CouchDb, true) => BulkCheck::Single,
            (TargetKind::Groonga, _) => BulkCheck::Count(CountAtPointer {
                pointer: "/1".into(),
                body_limit: 64 << 10,
            }),
            (TargetKind::Elasticsearch, _) => BulkCheck::Errors(ItemErrors {
                pointer: StarPointer::parse("/items/*/*/error").expect("a valid pointer"),
                // `{"index":{"_index":…,"_id":…,"_version":1,"result":"created",…}}`, ~250 bytes.
                body_limit: (batch as usize).saturating_mul(512) + (64 << 10),
            }),
        };
        let source = BulkSource {
            rng: SplitMix64::new(crate::rng::derive(s.seed, serial)),
            s,
            request,
            id_at,
            batch,
            writer: client as u64,
            serial,
            docs: 0,
            body: Vec::new(),
            wire: Vec::new(),
            id: Vec::with_capacity(64),
        };
        (source, check)
    }
}

/// One writer: builds each batch when it is sent, into buffers it keeps.
pub struct BulkSource {
    s: Arc<BulkSettings>,
    request: BodyRequest,
    /// `PUT /db/ID`: where the ID goes in the encoded request.
    id_at: Option<usize>,
    batch: u64,
    writer: u64,
    serial: u64,
    rng: SplitMix64,
    /// Documents this client made in this step: the next one's `{{seq}}`.
    docs: u64,
    body: Vec<u8>,
    wire: Vec<u8>,
    id: Vec<u8>,
}

impl BulkSource {
    /// The next document's ID into `self.id` (empty for server-named documents).
    #[inline]
    fn make_id(&mut self) {
        use template::{write_hex, write_padded, write_uuid};
        self.id.clear();
        match self.s.ids {
            IdStrategy::Sequential => {
                self.id.extend_from_slice(self.s.id_prefix.as_bytes());
                write_padded(&mut self.id, self.serial, 6);
                self.id.push(b'-');
                write_padded(&mut self.id, self.docs, 12);
            }
            IdStrategy::Random => {
                self.id.extend_from_slice(self.s.id_prefix.as_bytes());
                write_hex(&mut self.id, &mut self.rng, 16);
            }
            IdStrategy::Uuid => {
                self.id.extend_from_slice(self.s.id_prefix.as_bytes());
                write_uuid(&mut self.id, &mut self.rng);
            }
            IdStrategy::Server => {}
        }
    }

    #[inline]
    fn push_doc(&mut self, now_ms: u64) {
        self.make_id();
        if self.s.kind == TargetKind::Elasticsearch {
            // The ID goes in the action line: Elasticsearch refuses `_id` in a source.
            self.body.extend_from_slice(b"{\"");
            self.body
                .extend_from_slice(self.s.es_action.as_str().as_bytes());
            if self.id.is_empty() {
                self.body.extend_from_slice(b"\":{}}\n");
            } else {
                self.body.extend_from_slice(b"\":{\"_id\":\"");
                self.body.extend_from_slice(&self.id);
                self.body.extend_from_slice(b"\"}}\n");
            }
        }
        let in_body =
            !self.id.is_empty() && self.id_at.is_none() && self.s.kind != TargetKind::Elasticsearch;
        let id = in_body.then_some((self.s.kind.id_field(), &self.id[..]));
        let mut fill = template::Fill {
            seq: self.docs,
            writer: self.writer,
            now_ms,
            rng: &mut self.rng,
        };
        self.s.template.fill(&mut self.body, &mut fill, id);
        if self.s.kind == TargetKind::Elasticsearch {
            self.body.push(b'\n');
        }
        self.docs += 1;
    }
}

impl BulkSource {
    /// A templated batch: head, each document (with its ID), tail.
    #[inline]
    fn fill_templated(&mut self, t: &BodyTemplate, now_ms: u64) {
        let mut fill = template::Fill {
            seq: self.docs,
            writer: self.writer,
            now_ms,
            rng: &mut self.rng,
        };
        t.head(&mut self.body, &mut fill, self.batch);
        for i in 0..self.batch {
            self.make_id();
            let mut fill = template::Fill {
                seq: self.docs,
                writer: self.writer,
                now_ms,
                rng: &mut self.rng,
            };
            t.doc(&mut self.body, &mut fill, &self.id, i == 0);
            self.docs += 1;
        }
        let mut fill = template::Fill {
            seq: self.docs,
            writer: self.writer,
            now_ms,
            rng: &mut self.rng,
        };
        t.tail(&mut self.body, &mut fill, self.batch);
    }
}

impl RequestSource for BulkSource {
    fn next(&mut self, _: Turn) -> Request<'_> {
        let now_ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64);
        self.body.clear();
        if self.s.templated.is_some() {
            // A second handle on the settings, so the body can be filled from them.
            let s = Arc::clone(&self.s);
            if let Some(t) = &s.templated {
                self.fill_templated(&t.body, now_ms);
            }
            self.request.write(&mut self.wire, &self.body);
            return Request {
                target: 0,
                bytes: &self.wire,
                timeout: self.s.timeout,
                head: false,
                info: 0,
                items: self.batch,
                label: 0,
                expect: crate::engine::Expect::ANY,
            };
        }
        let (open, close): (&[u8], &[u8]) = match (self.s.kind, self.s.single) {
            (TargetKind::CouchDb, false) => (b"{\"docs\":[", b"]}"),
            (TargetKind::CouchDb, true) => (b"", b""),
            (TargetKind::Groonga, _) => (b"[", b"]"),
            (TargetKind::Elasticsearch | TargetKind::Template, _) => (b"", b""),
        };
        let comma = self.s.kind != TargetKind::Elasticsearch;
        self.body.extend_from_slice(open);
        for i in 0..self.batch {
            if i > 0 && comma {
                self.body.push(b',');
            }
            self.push_doc(now_ms);
        }
        self.body.extend_from_slice(close);
        self.request.write(&mut self.wire, &self.body);
        if let Some(at) = self.id_at {
            // The last document's ID (a single request has one), spliced into the
            // path; the tail moves once and nothing is allocated once the buffer grew.
            self.wire.splice(at..at, self.id.iter().copied());
        }
        Request {
            target: 0,
            bytes: &self.wire,
            timeout: self.s.timeout,
            head: false,
            info: 0,
            items: self.batch,
            label: 0,
            expect: crate::engine::Expect::ANY,
        }
    }
}

/// What a bulk answer says about its documents.
pub enum BulkCheck {
    /// CouchDB `_bulk_docs`: one result per document.
    Items(PerItemResults),
    /// Groonga `load`: the loaded count.
    Count(CountAtPointer),
    /// Elasticsearch `_bulk`: one result per document, failed by `error.type`.
    Errors(ItemErrors),
    /// A single CouchDB insert: 201 or 202, else the error CouchDB names.
    Single,
    /// A templated target without a response rule: 2xx kept the batch.
    Status,
}

impl ResponseCheck for BulkCheck {
    fn body_limit(&self) -> usize {
        match self {
            BulkCheck::Items(c) => c.body_limit(),
            BulkCheck::Count(c) => c.body_limit(),
            BulkCheck::Errors(c) => c.body_limit(),
            BulkCheck::Single => 4096,
            BulkCheck::Status => 0,
        }
    }

    fn check(&mut self, answer: &Answer<'_>, items: &mut ItemCounts) {
        match self {
            BulkCheck::Items(c) => c.check(answer, items),
            BulkCheck::Count(c) => c.check(answer, items),
            BulkCheck::Errors(c) => c.check(answer, items),
            BulkCheck::Single => single_check(answer, items),
            BulkCheck::Status if (200..300).contains(&answer.status) => items.ok(answer.items),
            BulkCheck::Status => items.failed(REJECTED, answer.items),
        }
    }
}

/// 201 Created or 202 Accepted (`batch=ok`) is a document written; anything else
/// failed with the `error` CouchDB names (`conflict`, `forbidden`…), or `rejected`.
fn single_check(answer: &Answer<'_>, items: &mut ItemCounts) {
    if matches!(answer.status, 201 | 202) {
        items.ok(answer.items);
        return;
    }
    // Failures are rare: reading their body may allocate.
    let error = serde_json::from_slice::<serde_json::Value>(answer.body)
        .ok()
        .and_then(|v| v.get("error").and_then(|e| e.as_str()).map(str::to_string));
    items.failed(error.as_deref().unwrap_or(REJECTED), answer.items);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(kind: TargetKind, single: bool, ids: IdStrategy) -> BulkSettings {
        BulkSettings {
            kind,
            target: Target {
                https: false,
                host: "127.0.0.1".into(),
                port: 5984,
                addrs: vec!["127.0.0.1:5984".parse().unwrap()],
                proto: crate::http::Proto::Http,
            },
            base_path: if kind == TargetKind::CouchDb {
                "/bench".into()
            } else {
                String::new()
            },
            table: "Docs".into(),
            single,
            ids,
            id_prefix: "p-".into(),
            template: DocTemplate::parse(r#"{"foo":"bar","n":{{seq}}}"#).unwrap(),
            batch_ok: false,
            full_commit: true,
            es_action: EsAction::Create,
            templated: None,
            content_type: "application/json".into(),
            headers: vec![],
            timeout: Duration::from_secs(5),
            keep_alive: true,
            seed: 1,
            shard: None,
            http2: false,
            batch_sizes: vec![3, 2],
        }
    }

    fn body_of(wire: &[u8]) -> (String, String) {
        let s = String::from_utf8(wire.to_vec()).unwrap();
        let (head, body) = s.split_once("\r\n\r\n").unwrap();
        assert!(
            head.contains(&format!("Content-Length: {}", body.len())),
            "{head}"
        );
        (head.to_string(), body.to_string())
    }

    fn turn(n: u64) -> Turn {
        Turn {
            client: 0,
            n,
            index: None,
        }
    }

    #[test]
    fn couchdb_batches_carry_unique_sequential_ids_across_steps() {
        let w = BulkWorkload::new(settings(TargetKind::CouchDb, false, IdStrategy::Sequential));
        let mut ids = std::collections::HashSet::new();
        for (step, writers) in [(0, 2), (1, 2), (0, 2)] {
            w.begin_step(step, writers);
            for c in 0..writers {
                let (mut src, check) = w.client(c.into());
                assert!(check.body_limit() > 0);
                for n in 0..2 {
                    let req = src.next(turn(n));
                    assert_eq!(req.items, w.batch_size(step));
                    let (head, body) = body_of(req.bytes);
                    assert!(
                        head.starts_with("POST /bench/_bulk_docs HTTP/1.1\r\n"),
                        "{head}"
                    );
                    assert!(head.contains("X-Couch-Full-Commit: true\r\n"));
                    let v: serde_json::Value = serde_json::from_str(&body).unwrap();
                    for d in v["docs"].as_array().unwrap() {
                        assert_eq!(d["foo"], "bar");
                        assert!(ids.insert(d["_id"].as_str().unwrap().to_string()));
                    }
                }
            }
        }
        assert_eq!(ids.len(), 2 * 2 * (3 + 2 + 3));
        assert!(ids.contains("p-000000-000000000000"));
    }

    #[test]
    fn groonga_loads_an_array_with_keys() {
        let w = BulkWorkload::new(settings(TargetKind::Groonga, false, IdStrategy::Uuid));
        w.begin_step(1, 1);
        let (mut src, _) = w.client(0.into());
        let (head, body) = body_of(src.next(turn(0)).bytes);
        assert!(
            head.starts_with("POST /d/load?table=Docs HTTP/1.1\r\n"),
            "{head}"
        );
        assert!(head.contains("Content-Type: application/json\r\n"));
        let v: serde_json::Value = serde_json::from_str(&body).unwrap();
        let docs = v.as_array().unwrap();
        assert_eq!(docs.len(), 2);
        assert_eq!(docs[0]["_key"].as_str().unwrap().len(), 2 + 36);
    }

    #[test]
    fn elasticsearch_batches_are_ndjson_with_the_id_in_the_action() {
        let mut s = settings(TargetKind::Elasticsearch, false, IdStrategy::Sequential);
        s.base_path = "/logs".into();
        s.full_commit = false;
        let w = BulkWorkload::new(s);
        w.begin_step(0, 1);
        let (mut src, _) = w.client(0.into());
        let (head, body) = body_of(src.next(turn(0)).bytes);
        assert!(head.starts_with("POST /logs/_bulk HTTP/1.1\r\n"), "{head}");
        let lines: Vec<&str> = body.split_terminator('\n').collect();
        assert!(body.ends_with('\n'));
        assert_eq!(lines.len(), 6, "{body}");
        assert_eq!(lines[0], r#"{"create":{"_id":"p-000000-000000000000"}}"#);
        assert_eq!(lines[1], r#"{"foo":"bar","n":0}"#);
        assert_eq!(lines[5], r#"{"foo":"bar","n":2}"#);
    }

    #[test]
    fn single_couchdb_inserts_put_by_id_or_post() {
        let w = BulkWorkload::new(settings(TargetKind::CouchDb, true, IdStrategy::Random));
        w.begin_step(0, 1);
        let (mut src, _) = w.client(0.into());
        for n in 0..3 {
            let req = src.next(turn(n));
            assert_eq!(req.items, 1);
            let (head, body) = body_of(req.bytes);
            let line = head.lines().next().unwrap();
            assert!(
                line.starts_with("PUT /bench/p-") && line.ends_with(" HTTP/1.1"),
                "{line}"
            );
            assert_eq!(line.len(), "PUT /bench/p- HTTP/1.1".len() + 32);
            assert_eq!(body, format!(r#"{{"foo":"bar","n":{n}}}"#));
        }
        let w = BulkWorkload::new(settings(TargetKind::CouchDb, true, IdStrategy::Server));
        let (mut src, _) = w.client(0.into());
        let (head, body) = body_of(src.next(turn(0)).bytes);
        assert!(head.starts_with("POST /bench HTTP/1.1\r\n"));
        assert_eq!(body, r#"{"foo":"bar","n":0}"#);
    }

    #[test]
    fn single_inserts_are_checked_by_status_then_error() {
        let check = |status, body: &str| {
            let mut c = ItemCounts::default();
            single_check(
                &Answer {
                    status,
                    body: body.as_bytes(),
                    truncated: false,
                    items: 1,
                },
                &mut c,
            );
            c
        };
        assert_eq!(check(201, "").ok, 1);
        assert_eq!(check(202, "").ok, 1);
        assert_eq!(
            check(
                409,
                r#"{"error":"conflict","reason":"Document update conflict"}"#
            )
            .failed,
            vec![("conflict".to_string(), 1)]
        );
        assert_eq!(check(500, "oops").failed, vec![(REJECTED.to_string(), 1)]);
    }
}
