//! YCSB's core workloads (A–F) over a CouchDB-style HTTP document API — CouchDB,
//! pouchdb-server, `hakaru serve --docs` — as an engine workload: a load phase that
//! inserts the records, then a mix of operations drawn per request by YCSB's
//! proportions, each touching a record drawn by its request distribution
//! ([`keys`]).
//!
//! The operations over HTTP:
//! - **read**: `GET /db/ID`;
//! - **update** and **read-modify-write**: `GET /db/ID` for its `_rev`, then
//!   `PUT /db/ID` with the new fields and that `_rev` (CouchDB has no blind update,
//!   so the two send the same requests; a `409` conflict — another client updated
//!   the record in between — reads and writes again, at most [`MAX_RETRIES`] times);
//! - **insert**: `PUT /db/ID` of a new record;
//! - **scan**: `GET /db/_all_docs?startkey="ID"&limit=N&include_docs=true`, N uniform
//!   in 1..=`max_scan`;
//! - **load**: `POST /db/_bulk_docs` of `batch` records, numbered by the request's
//!   place in the phase (the open model's timetable index, or a counter), so every
//!   record is inserted once, also over many shards.
//!
//! IDs are YCSB's: `user` and the FNV hash of the record number (YCSB's default
//! `insertorder=hashed`), so a scan's start lands anywhere in the key order. Records
//! have `fields` fields (`field0`…) of `field_length` random letters (YCSB: 10 × 100).
//!
//! Each operation that ends with an answer is counted by kind in the step's
//! `operations`; every request is in the histograms as any other (an update's two
//! requests are two samples). Nothing per request allocates or locks: requests are
//! written into a buffer the client keeps, and inserts take their number from an
//! atomic counter.

pub mod keys;
pub mod sql;

use std::cell::RefCell;
use std::io::Write as _;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use crate::engine::{Answer, ClientId, Request, RequestSource, ResponseCheck, Turn, Workload};
use crate::http::Target;
use crate::result::{RequestInfo, Shard};
use crate::rng::SplitMix64;
use crate::stats::{ItemCounts, LabelSet, Labels};
use crate::workload::check::PerItemResults;

pub use keys::Distribution;

/// How many times an update that met a conflict reads and writes again.
pub const MAX_RETRIES: u8 = 5;

/// Which of YCSB's workloads a phase runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Core {
    /// Insert the records (YCSB's load phase).
    Load,
    A,
    B,
    C,
    D,
    E,
    F,
}

/// Shares of each operation, in thousandths.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Proportions {
    pub read: u32,
    pub update: u32,
    pub insert: u32,
    pub scan: u32,
    pub read_modify_write: u32,
}

impl Core {
    pub fn parse(s: &str) -> Option<Core> {
        Some(match s.to_ascii_lowercase().as_str() {
            "load" => Core::Load,
            "a" => Core::A,
            "b" => Core::B,
            "c" => Core::C,
            "d" => Core::D,
            "e" => Core::E,
            "f" => Core::F,
            _ => return None,
        })
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Core::Load => "load",
            Core::A => "a",
            Core::B => "b",
            Core::C => "c",
            Core::D => "d",
            Core::E => "e",
            Core::F => "f",
        }
    }

    /// YCSB's `workloads/workloada` … `workloadf`.
    pub fn proportions(self) -> Proportions {
        let p = Proportions::default();
        match self {
            Core::Load => Proportions { insert: 1000, ..p },
            Core::A => Proportions {
                read: 500,
                update: 500,
                ..p
            },
            Core::B => Proportions {
                read: 950,
                update: 50,
                ..p
            },
            Core::C => Proportions { read: 1000, ..p },
            Core::D => Proportions {
                read: 950,
                insert: 50,
                ..p
            },
            Core::E => Proportions {
                scan: 950,
                insert: 50,
                ..p
            },
            Core::F => Proportions {
                read: 500,
                read_modify_write: 500,
                ..p
            },
        }
    }

    /// YCSB's `requestdistribution` for the workload.
    pub fn default_distribution(self) -> Distribution {
        match self {
            Core::D => Distribution::Latest,
            _ => Distribution::Zipfian,
        }
    }
}

/// What a YCSB workload needs, checked by the scenario.
#[derive(Debug, Clone)]
pub struct YcsbSettings {
    pub core: Core,
    pub target: Target,
    /// The database's path, `/db` (no trailing slash).
    pub db_path: String,
    /// YCSB's `recordcount`: the records the load inserts and the mix starts from.
    pub records: u64,
    pub distribution: Distribution,
    pub fields: u32,
    pub field_length: u32,
    /// YCSB's `maxscanlength`.
    pub max_scan: u32,
    /// Records per `_bulk_docs` request of the load.
    pub batch: u64,
    pub headers: Vec<(String, String)>,
    pub keep_alive: bool,
    pub timeout: Duration,
    pub seed: u64,
    /// Many load machines: this one's lane of the load's batches and of new records.
    pub shard: Option<Shard>,
}

impl YcsbSettings {
    /// Requests the load sends: one per `batch` records.
    pub fn load_requests(&self) -> u64 {
        self.records.div_ceil(self.batch.max(1))
    }

    /// `(first, stride)` of this machine's lane.
    pub(crate) fn lane(&self) -> (u64, u64) {
        self.shard
            .map_or((0, 1), |k| (u64::from(k.index - 1), u64::from(k.count)))
    }

    /// The record number at `position`: the loaded records first, then this
    /// machine's inserts in its lane.
    #[inline]
    pub(crate) fn record(&self, position: u64) -> u64 {
        if position < self.records {
            position
        } else {
            let (first, stride) = self.lane();
            self.records + first + (position - self.records) * stride
        }
    }

    fn doc_size(&self) -> usize {
        (self.fields as usize) * (self.field_length as usize + 16) + 128
    }
}

/// Inserts acknowledged in order, as YCSB's `AcknowledgedCounterGenerator` keeps
/// them: reads draw only from records whose insert has ended (every one below
/// `limit`), so none asks for a record still on its way.
pub(crate) struct Acknowledged {
    window: Box<[AtomicBool]>,
    limit: AtomicU64,
}

/// Inserts in flight at once that [`Acknowledged`] can follow; more clients than
/// this would wrap the window.
const ACK_WINDOW: usize = 1 << 16;

impl Acknowledged {
    pub(crate) fn new() -> Self {
        Acknowledged {
            window: (0..ACK_WINDOW).map(|_| AtomicBool::new(false)).collect(),
            limit: AtomicU64::new(0),
        }
    }

    /// Insert `j` ended (answered or not). Whoever finds the slot at `limit` set
    /// clears it and moves `limit` on; every step in one total order (SeqCst), so no
    /// acknowledgement is left behind.
    pub(crate) fn done(&self, j: u64) {
        let slot = |i: u64| &self.window[(i % ACK_WINDOW as u64) as usize];
        slot(j).store(true, Ordering::SeqCst);
        loop {
            let l = self.limit.load(Ordering::SeqCst);
            if slot(l)
                .compare_exchange(true, false, Ordering::SeqCst, Ordering::SeqCst)
                .is_err()
            {
                return;
            }
            self.limit.store(l + 1, Ordering::SeqCst);
        }
    }

    pub(crate) fn limit(&self) -> u64 {
        self.limit.load(Ordering::SeqCst)
    }
}

/// What every client of the workload shares.
struct Shared {
    s: YcsbSettings,
    /// The request line's end and the headers every request carries, up to (not
    /// including) the blank line.
    head: Vec<u8>,
    chooser: keys::KeyChooser,
    /// This machine's inserts of the mix, numbered.
    inserts: AtomicU64,
    acknowledged: Acknowledged,
    /// The load's batches sent by this machine (closed model).
    batches: AtomicU64,
    /// The operations as labels (`op`), busiest first, and each [`Op`]'s index there.
    labels: Arc<Labels>,
    label_of: [u16; OPS.len()],
}

/// The operations a mix counts, as [`ItemCounts::operations`] names them; an
/// update's GET and PUT both count as its operation.
pub(crate) const OPS: [&str; 6] = [
    "read",
    "update",
    "insert",
    "scan",
    "read-modify-write",
    "load",
];

impl Op {
    /// Index into [`OPS`].
    fn index(self) -> usize {
        match self {
            Op::Idle | Op::Read => 0,
            Op::UpdateGet { rmw: false } | Op::UpdatePut { rmw: false } => 1,
            Op::Insert { .. } => 2,
            Op::Scan => 3,
            Op::UpdateGet { rmw: true } | Op::UpdatePut { rmw: true } => 4,
            Op::Load => 5,
        }
    }
}

/// The operations of `core` with a share of the mix, busiest first (none for the
/// load, one kind of request).
pub(crate) fn op_labels(core: Core) -> (Arc<Labels>, [u16; OPS.len()]) {
    let p = core.proportions();
    let mut shares = [p.read, p.update, p.insert, p.scan, p.read_modify_write, 0];
    if core == Core::Load {
        shares = [0; OPS.len()];
    }
    let mut order: Vec<usize> = (0..OPS.len()).filter(|i| shares[*i] > 0).collect();
    order.sort_by_key(|i| std::cmp::Reverse(shares[*i]));
    let mut set = LabelSet::new();
    let mut label_of = [0; OPS.len()];
    for i in order {
        label_of[i] = set.intern("op", OPS[i]);
    }
    (Arc::new(set.finish("the operations")), label_of)
}

/// The operations of `core` over a key-value store as its table per command lists
/// them ([`crate::result::suite::PhaseResult::store_commands`]), busiest first: a read
/// and a scan read, an update and an insert (the load's too) write. A
/// read-modify-write is left out: its read's hits and misses and its write's replies
/// are counted under one label, so its hits cannot be told.
pub fn store_commands(core: Core) -> Vec<crate::result::StoreCommand> {
    let p = core.proportions();
    let mut ops = [
        (OPS[0], p.read, true),
        (OPS[1], p.update, false),
        (OPS[2], p.insert, false),
        (OPS[3], p.scan, true),
    ];
    ops.sort_by_key(|(_, share, _)| std::cmp::Reverse(*share));
    ops.iter()
        .filter(|(_, share, _)| *share > 0)
        .map(|(name, _, reads)| crate::result::StoreCommand {
            name: (*name).into(),
            reads: *reads,
        })
        .collect()
}

/// The workload: YCSB's operations against one database.
pub struct YcsbWorkload {
    shared: Arc<Shared>,
    targets: Vec<Target>,
}

/// Indices into [`Workload::request_infos`].
const INFO_GET: usize = 0;
const INFO_PUT: usize = 1;
const INFO_SCAN: usize = 2;
const INFO_LOAD: usize = 3;

impl YcsbWorkload {
    pub fn new(s: YcsbSettings) -> YcsbWorkload {
        let host = crate::http::encode::host_header(&s.target.host, s.target.port, s.target.https);
        let full = crate::http::encode::encode_request(
            "GET",
            "/",
            &host,
            &s.headers,
            None,
            None,
            crate::http::encode::Persistence::http11(s.keep_alive),
        );
        // " HTTP/1.1\r\nHost: …\r\n…" without "GET /" and the final blank line.
        let head = full[5..full.len() - 2].to_vec();
        let chooser = keys::KeyChooser::new(s.distribution, s.records);
        let (labels, label_of) = op_labels(s.core);
        YcsbWorkload {
            targets: vec![s.target.clone()],
            shared: Arc::new(Shared {
                s,
                head,
                chooser,
                inserts: AtomicU64::new(0),
                acknowledged: Acknowledged::new(),
                batches: AtomicU64::new(0),
                labels,
                label_of,
            }),
        }
    }

    pub fn settings(&self) -> &YcsbSettings {
        &self.shared.s
    }

    /// `PUT /db` before a load, between phases (never in the load path): 201 made,
    /// 412 already there; anything else is returned as the reason.
    pub fn create_database(&self) -> Result<(), String> {
        let s = &self.shared.s;
        let url = format!("{}{}", s.target.label(), s.db_path);
        let answer = crate::http::Fetched::request(&url, "PUT", &s.headers, s.timeout)?;
        match answer.status {
            201 | 202 | 412 => Ok(()),
            other => Err(format!(
                "PUT {url}: status {other}: {}",
                String::from_utf8_lossy(&answer.body).trim()
            )),
        }
    }
}

/// What a client's last request was, for its check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Idle,
    Read,
    /// The GET of an update (`rmw`: of a read-modify-write).
    UpdateGet {
        rmw: bool,
    },
    UpdatePut {
        rmw: bool,
    },
    Insert {
        j: u64,
    },
    Scan,
    Load,
}

/// Between a client's source and check: what was sent, and what the answer said.
struct Pending {
    op: Op,
    /// The record of an update, kept for its PUT and any retry.
    record: u64,
    retries: u8,
    /// The check saw the answer to the last request.
    answered: bool,
    /// The update's PUT is next.
    put_next: bool,
    rev: [u8; 64],
    rev_len: usize,
}

pub struct YcsbSource {
    shared: Arc<Shared>,
    pending: Rc<RefCell<Pending>>,
    st: State,
}

/// A client's own buffers and draws.
struct State {
    rng: SplitMix64,
    chooser: keys::KeyChooser,
    wire: Vec<u8>,
    body: Vec<u8>,
}

pub struct YcsbCheck {
    shared: Arc<Shared>,
    pending: Rc<RefCell<Pending>>,
    items: PerItemResults,
    body_limit: usize,
}

impl Workload for YcsbWorkload {
    type Source = YcsbSource;
    type Check = YcsbCheck;

    fn targets(&self) -> &[Target] {
        &self.targets
    }

    fn request_infos(&self) -> Vec<RequestInfo> {
        let base = format!("{}{}", self.targets[0].label(), self.shared.s.db_path);
        let info = |method: &str, url: String| RequestInfo {
            id: None,
            method: method.into(),
            url,
        };
        vec![
            info("GET", format!("{base}/user…")),
            info("PUT", format!("{base}/user…")),
            info("GET", format!("{base}/_all_docs?startkey=…")),
            info("POST", format!("{base}/_bulk_docs")),
        ]
    }

    fn labels(&self) -> Arc<Labels> {
        self.shared.labels.clone()
    }

    fn client(&self, id: ClientId) -> (YcsbSource, YcsbCheck) {
        let s = &self.shared.s;
        let pending = Rc::new(RefCell::new(Pending {
            op: Op::Idle,
            record: 0,
            retries: 0,
            answered: true,
            put_next: false,
            rev: [0; 64],
            rev_len: 0,
        }));
        let load = s.core == Core::Load;
        let batch_answer = (s.batch as usize).saturating_mul(256) + (64 << 10);
        let body_limit = if load {
            batch_answer
        } else {
            s.doc_size() + 4096
        };
        let source = YcsbSource {
            shared: self.shared.clone(),
            pending: pending.clone(),
            st: State {
                // The client's seed hashed (not offset): SplitMix64 streams whose seeds
                // differ by multiples of its increment are shifted copies of each other.
                rng: SplitMix64::new(
                    SplitMix64::new(id.seed(s.seed) ^ (id.index as u64).rotate_left(32)).next_u64(),
                ),
                chooser: self.shared.chooser,
                wire: Vec::with_capacity(
                    s.doc_size() * if load { s.batch as usize } else { 1 } + 1024,
                ),
                body: Vec::new(),
            },
        };
        let check = YcsbCheck {
            shared: self.shared.clone(),
            pending,
            items: PerItemResults {
                body_limit: batch_answer,
            },
            body_limit,
        };
        (source, check)
    }
}

/// `user` and YCSB's hashed record number.
#[inline]
pub(crate) fn write_id(out: &mut Vec<u8>, record: u64) {
    let _ = write!(out, "user{}", keys::fnv_hash64(record));
}

impl State {
    /// A record to read, update or scan from. `uniform` and `zipfian` draw among the
    /// loaded records, so the popular ones stay put as records are inserted (YCSB's
    /// choosers are fixed at the records it starts from, too); `latest` among every
    /// record whose insert has ended.
    #[inline]
    fn choose(&mut self, sh: &Shared) -> u64 {
        let n = match self.chooser.distribution() {
            Distribution::Latest => sh.s.records + sh.acknowledged.limit(),
            Distribution::Uniform | Distribution::Zipfian => sh.s.records,
        };
        let position = self.chooser.next(&mut self.rng, n);
        sh.s.record(position)
    }

    /// `{"_id":"user…",["_rev":"…",]"field0":"…",…}` into `self.body` (appended).
    fn write_doc(&mut self, sh: &Shared, record: u64, rev: Option<&[u8]>) {
        let b = &mut self.body;
        b.extend_from_slice(b"{\"_id\":\"");
        write_id(b, record);
        b.push(b'"');
        if let Some(rev) = rev {
            b.extend_from_slice(b",\"_rev\":\"");
            b.extend_from_slice(rev);
            b.push(b'"');
        }
        for f in 0..sh.s.fields {
            let _ = write!(b, ",\"field{f}\":\"");
            let mut left = sh.s.field_length as usize;
            while left > 0 {
                let r = self.rng.next_u64();
                for k in 0..left.min(8) {
                    b.push(b'a' + ((r >> (k * 8)) as u8 % 26));
                }
                left = left.saturating_sub(8);
            }
            b.push(b'"');
        }
        b.push(b'}');
    }

    /// `METHOD /db/REST` with the shared headers, then the body if any.
    fn finish(&mut self, sh: &Shared, with_body: bool) {
        self.wire.extend_from_slice(&sh.head);
        if with_body {
            self.wire
                .extend_from_slice(b"Content-Type: application/json\r\n");
            let _ = write!(self.wire, "Content-Length: {}\r\n\r\n", self.body.len());
            self.wire.extend_from_slice(&self.body);
        } else {
            self.wire.extend_from_slice(b"\r\n");
        }
    }

    fn start(&mut self, sh: &Shared, method: &str) {
        self.wire.clear();
        self.wire.extend_from_slice(method.as_bytes());
        self.wire.push(b' ');
        self.wire.extend_from_slice(sh.s.db_path.as_bytes());
    }

    /// `METHOD /db/ID` and the headers, no body.
    fn doc_request(&mut self, sh: &Shared, method: &str, record: u64) {
        self.start(sh, method);
        self.wire.push(b'/');
        write_id(&mut self.wire, record);
        self.finish(sh, false);
    }
}

impl RequestSource for YcsbSource {
    fn next(&mut self, turn: Turn) -> Request<'_> {
        let sh = &*self.shared;
        let st = &mut self.st;
        let mut p = self.pending.borrow_mut();
        if !p.answered {
            // The last request ended without an answer (an error, a timeout): its
            // operation is over; an insert's number still counts as ended.
            if let Op::Insert { j } = p.op {
                sh.acknowledged.done(j);
            }
            p.put_next = false;
            p.retries = 0;
        }
        p.answered = false;
        let s = &sh.s;
        let mut items = 0;
        let info;
        if p.put_next {
            // The update's write, with the `_rev` its read found.
            p.put_next = false;
            let rmw = matches!(p.op, Op::UpdateGet { rmw: true });
            p.op = Op::UpdatePut { rmw };
            let (record, rev, len) = (p.record, p.rev, p.rev_len);
            st.body.clear();
            st.write_doc(sh, record, Some(&rev[..len]));
            st.start(sh, "PUT");
            st.wire.push(b'/');
            write_id(&mut st.wire, record);
            st.finish(sh, true);
            info = INFO_PUT;
        } else if p.retries > 0 {
            // A conflict: read the record's new `_rev` again.
            let rmw = matches!(p.op, Op::UpdatePut { rmw: true });
            p.op = Op::UpdateGet { rmw };
            let record = p.record;
            st.doc_request(sh, "GET", record);
            info = INFO_GET;
        } else if s.core == Core::Load {
            let (first, stride) = s.lane();
            let b = turn
                .index
                .unwrap_or_else(|| first + sh.batches.fetch_add(1, Ordering::Relaxed) * stride)
                % s.load_requests().max(1);
            let from = b * s.batch;
            let to = (from + s.batch).min(s.records);
            st.body.clear();
            st.body.extend_from_slice(b"{\"docs\":[");
            for r in from..to {
                if r > from {
                    st.body.push(b',');
                }
                st.write_doc(sh, r, None);
            }
            st.body.extend_from_slice(b"]}");
            st.start(sh, "POST");
            st.wire.extend_from_slice(b"/_bulk_docs");
            st.finish(sh, true);
            p.op = Op::Load;
            items = to - from;
            info = INFO_LOAD;
        } else {
            let pr = s.core.proportions();
            let roll = st.rng.below(1000) as u32;
            let update = pr.read + pr.update;
            let insert = update + pr.insert;
            let scan = insert + pr.scan;
            if roll < pr.read {
                let record = st.choose(sh);
                st.doc_request(sh, "GET", record);
                p.op = Op::Read;
                info = INFO_GET;
            } else if roll < insert && roll >= update {
                let j = sh.inserts.fetch_add(1, Ordering::Relaxed);
                let record = s.record(s.records + j);
                st.body.clear();
                st.write_doc(sh, record, None);
                st.start(sh, "PUT");
                st.wire.push(b'/');
                write_id(&mut st.wire, record);
                st.finish(sh, true);
                p.op = Op::Insert { j };
                info = INFO_PUT;
            } else if roll < scan && roll >= insert {
                let record = st.choose(sh);
                let len = 1 + st.rng.below(s.max_scan.max(1) as usize);
                st.start(sh, "GET");
                st.wire.extend_from_slice(b"/_all_docs?startkey=%22");
                write_id(&mut st.wire, record);
                let _ = write!(st.wire, "%22&limit={len}&include_docs=true");
                st.finish(sh, false);
                p.op = Op::Scan;
                info = INFO_SCAN;
            } else {
                // An update (below `update`) or a read-modify-write (from `scan` on):
                // first the record's `_rev`.
                let record = st.choose(sh);
                p.record = record;
                p.retries = 0;
                p.op = Op::UpdateGet { rmw: roll >= scan };
                st.doc_request(sh, "GET", record);
                info = INFO_GET;
            }
        }
        let label = sh.label_of[p.op.index()];
        drop(p);
        Request {
            target: 0,
            bytes: &self.st.wire,
            timeout: s.timeout,
            head: false,
            info,
            items,
            label,
            expect: crate::engine::Expect::ANY,
        }
    }
}

/// The `_rev` of a CouchDB document: the string after `"_rev":"`.
fn find_rev(body: &[u8]) -> Option<&[u8]> {
    const KEY: &[u8] = b"\"_rev\":\"";
    let at = body.windows(KEY.len()).position(|w| w == KEY)? + KEY.len();
    let len = body[at..].iter().position(|&c| c == b'"')?;
    Some(&body[at..at + len])
}

impl ResponseCheck for YcsbCheck {
    fn body_limit(&self) -> usize {
        self.body_limit
    }

    fn check(&mut self, answer: &Answer<'_>, items: &mut ItemCounts) {
        let mut p = self.pending.borrow_mut();
        p.answered = true;
        let name = |rmw: bool| if rmw { "read-modify-write" } else { "update" };
        match p.op {
            Op::Idle => {}
            Op::Read => items.operation("read", 1),
            Op::Scan => items.operation("scan", 1),
            Op::Insert { j } => {
                self.shared.acknowledged.done(j);
                items.operation("insert", 1);
            }
            Op::Load => {
                self.items.check(answer, items);
                items.operation("insert", answer.items);
            }
            Op::UpdateGet { rmw } => match find_rev(answer.body) {
                Some(rev) if answer.status == 200 && rev.len() <= p.rev.len() => {
                    let len = rev.len();
                    p.rev[..len].copy_from_slice(rev);
                    p.rev_len = len;
                    p.put_next = true;
                }
                // The record is not there (or its answer unreadable): the operation
                // ends here, its status in the step's counts.
                _ => {
                    p.retries = 0;
                    items.operation(name(rmw), 1);
                }
            },
            Op::UpdatePut { rmw } => {
                if answer.status == 409 && p.retries < MAX_RETRIES {
                    p.retries += 1;
                } else {
                    p.retries = 0;
                    items.operation(name(rmw), 1);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(core: Core, records: u64) -> YcsbSettings {
        YcsbSettings {
            core,
            target: Target {
                https: false,
                host: "127.0.0.1".into(),
                port: 5984,
                addrs: vec!["127.0.0.1:5984".parse().unwrap()],
                proto: crate::http::Proto::Http,
            },
            db_path: "/db".into(),
            records,
            distribution: core.default_distribution(),
            fields: 2,
            field_length: 5,
            max_scan: 10,
            batch: 4,
            headers: Vec::new(),
            keep_alive: true,
            timeout: Duration::from_secs(1),
            seed: 1,
            shard: None,
        }
    }

    fn turn(n: u64, index: Option<u64>) -> Turn {
        Turn {
            client: 0,
            n,
            index,
        }
    }

    fn answer(status: u16, body: &[u8]) -> Answer<'_> {
        Answer {
            status,
            body,
            truncated: false,
            items: 0,
        }
    }

    #[test]
    fn the_load_inserts_every_record_once_by_index() {
        let w = YcsbWorkload::new(settings(Core::Load, 10));
        assert_eq!(w.settings().load_requests(), 3);
        let (mut src, _) = w.client(0.into());
        let mut ids = Vec::new();
        for i in 0..3 {
            let r = src.next(turn(i, Some(i)));
            let text = String::from_utf8_lossy(r.bytes).into_owned();
            assert!(
                text.starts_with("POST /db/_bulk_docs HTTP/1.1\r\n"),
                "{text}"
            );
            let body = text.split("\r\n\r\n").nth(1).unwrap();
            let v: serde_json::Value = serde_json::from_str(body).unwrap();
            let docs = v["docs"].as_array().unwrap();
            assert_eq!(docs.len() as u64, r.items);
            ids.extend(docs.iter().map(|d| d["_id"].as_str().unwrap().to_owned()));
            assert_eq!(docs[0]["field1"].as_str().unwrap().len(), 5);
        }
        let want: Vec<String> = (0..10)
            .map(|r| format!("user{}", keys::fnv_hash64(r)))
            .collect();
        assert_eq!(ids, want);
    }

    /// A ramp's steps draw their own operations and records; a round repeats its
    /// earlier round's (see `ClientId`).
    #[test]
    fn each_draw_reads_its_own_records() {
        let mut s = settings(Core::C, 1000);
        s.distribution = Distribution::Uniform;
        let w = YcsbWorkload::new(s);
        let reads = |draw| {
            let (mut src, _) = w.client(ClientId::new(1, draw));
            (0..50)
                .map(|n| String::from_utf8_lossy(src.next(turn(n, None)).bytes).into_owned())
                .collect::<Vec<_>>()
        };
        assert_eq!(reads(3), reads(3));
        let same = (reads(0).iter().zip(&reads(1)))
            .filter(|(a, b)| a == b)
            .count();
        // Uniform over 1,000 records: a chance agreement is rare; a replay is 50 of 50.
        assert!(same < 5, "{same} of 50 reads as in draw 0");
    }

    #[test]
    fn an_update_reads_the_rev_then_writes_with_it_and_retries_a_conflict() {
        let mut s = settings(Core::A, 100);
        s.distribution = Distribution::Uniform;
        let w = YcsbWorkload::new(s);
        let (mut src, mut check) = w.client(0.into());
        let mut items = ItemCounts::default();
        let (mut puts, mut n) = (0, 0);
        // Four writes: the first meets a conflict, so three updates end.
        while puts < 4 {
            let text = String::from_utf8_lossy(src.next(turn(n, None)).bytes).into_owned();
            n += 1;
            if text.starts_with("PUT ") {
                puts += 1;
                assert!(text.contains("\"_rev\":\"7-abc\""), "{text}");
                // The first write meets a conflict: read again, then write.
                let status = if puts == 1 { 409 } else { 201 };
                check.check(&answer(status, b"{}"), &mut items);
                if puts == 1 {
                    let again = String::from_utf8_lossy(src.next(turn(n, None)).bytes).into_owned();
                    n += 1;
                    assert!(again.starts_with("GET /db/user"), "{again}");
                    check.check(&answer(200, br#"{"_id":"x","_rev":"7-abc"}"#), &mut items);
                }
            } else {
                assert!(text.starts_with("GET /db/user"), "{text}");
                check.check(
                    &answer(200, br#"{"_id":"x","_rev":"7-abc","field0":"a"}"#),
                    &mut items,
                );
            }
        }
        let ops: std::collections::BTreeMap<_, _> = items.operations.iter().cloned().collect();
        assert_eq!(ops.get("update"), Some(&3), "{ops:?}");
        assert!(ops.get("read").copied().unwrap_or(0) > 0);
    }

    /// The draw of each workload's mix over many operations of a fixed seed, with the
    /// answers a store gives (GETs find a `_rev`, writes succeed): every kind within
    /// four standard deviations of its share, and the operations counted are the ones
    /// drawn. Deterministic, so the integration tests' ratio (a few thousand
    /// operations, any seed) is not the only guard on the proportions.
    #[test]
    fn each_workload_draws_its_proportions() {
        for core in [Core::A, Core::B, Core::C, Core::D, Core::E, Core::F] {
            let w = YcsbWorkload::new(settings(core, 1000));
            let (mut src, mut check) = w.client(3.into());
            let mut items = ItemCounts::default();
            let mut n = 0;
            // Updates and read-modify-writes end on their PUT: count operations, not requests.
            let ended = |items: &ItemCounts| items.operations.iter().map(|o| o.1).sum::<u64>();
            while ended(&items) < 20_000 {
                let get = src.next(turn(n, None)).bytes.starts_with(b"GET ");
                n += 1;
                let body: &[u8] = if get {
                    br#"{"_id":"x","_rev":"1-a"}"#
                } else {
                    b"{}"
                };
                check.check(&answer(if get { 200 } else { 201 }, body), &mut items);
            }
            let p = core.proportions();
            let ops: std::collections::BTreeMap<_, _> = items.operations.iter().cloned().collect();
            let shares = [
                ("read", p.read),
                ("update", p.update),
                ("insert", p.insert),
                ("scan", p.scan),
                ("read-modify-write", p.read_modify_write),
            ];
            for (kind, share) in shares {
                let got = ops.get(kind).copied().unwrap_or(0) as f64 / 20_000.0;
                let want = f64::from(share) / 1000.0;
                let sd = (want * (1.0 - want) / 20_000.0).sqrt();
                assert!(
                    (got - want).abs() <= 4.0 * sd,
                    "{core:?} {kind}: {got} of {want}"
                );
            }
        }
    }

    #[test]
    fn scans_and_inserts_in_workload_e() {
        let w = YcsbWorkload::new(settings(Core::E, 50));
        let (mut src, mut check) = w.client(0.into());
        let mut items = ItemCounts::default();
        for n in 0..400 {
            let text = String::from_utf8_lossy(src.next(turn(n, None)).bytes).into_owned();
            if text.starts_with("GET ") {
                assert!(
                    text.starts_with("GET /db/_all_docs?startkey=%22user"),
                    "{text}"
                );
                assert!(text.contains("&include_docs=true HTTP/1.1\r\n"));
            } else {
                assert!(text.starts_with("PUT /db/user"), "{text}");
            }
            check.check(&answer(200, b"{}"), &mut items);
        }
        let ops: std::collections::BTreeMap<_, _> = items.operations.iter().cloned().collect();
        let (scans, inserts) = (ops["scan"], ops["insert"]);
        assert_eq!(scans + inserts, 400);
        assert!((5..40).contains(&inserts), "{inserts}");
        // Every insert ended: reads may now draw the new records.
        assert_eq!(w.shared.acknowledged.limit(), inserts);
    }

    #[test]
    fn shards_insert_in_lanes_of_their_own() {
        let mut s = settings(Core::D, 10);
        s.shard = Some(Shard { index: 2, count: 3 });
        assert_eq!(s.record(9), 9);
        assert_eq!((s.record(10), s.record(11)), (11, 14));
    }

    #[test]
    fn acknowledged_inserts_move_the_limit_in_order() {
        let a = Acknowledged::new();
        a.done(1);
        assert_eq!(a.limit(), 0);
        a.done(0);
        assert_eq!(a.limit(), 2);
        a.done(3);
        a.done(2);
        assert_eq!(a.limit(), 4);
    }

    #[test]
    fn operations_are_labels_busiest_first() {
        let names = |c: Core| -> Vec<String> {
            op_labels(c)
                .0
                .list
                .iter()
                .map(|l| l.value.clone())
                .collect()
        };
        assert_eq!(names(Core::B), ["read", "update"]);
        assert_eq!(names(Core::E), ["scan", "insert"]);
        assert_eq!(names(Core::F), ["read", "read-modify-write"]);
        assert!(
            names(Core::C).is_empty(),
            "one kind of request: no breakdown"
        );
        assert!(names(Core::Load).is_empty());
        let (_, of) = op_labels(Core::F);
        assert_eq!(of[Op::UpdatePut { rmw: true }.index()], 1);
        assert_eq!(of[Op::Read.index()], 0);
    }

    #[test]
    fn proportions_add_up() {
        for c in [
            Core::A,
            Core::B,
            Core::C,
            Core::D,
            Core::E,
            Core::F,
            Core::Load,
        ] {
            let p = c.proportions();
            assert_eq!(
                p.read + p.update + p.insert + p.scan + p.read_modify_write,
                1000
            );
        }
    }
}
