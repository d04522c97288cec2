//! YCSB's core workloads over Redis and memcached (`suite`'s `ycsb = { url =
//! "redis://…" }`): the same operations, proportions, records and key choosers as
//! over CouchDB ([`crate::workload::ycsb`]), stored as YCSB's own bindings store them.
//!
//! - **Redis** (YCSB's `redis` binding): a hash per record (`HSET user… field0 …`)
//!   and the sorted set `_indices` of every key, scored by its hash, for scans. An
//!   insert writes both and a scan reads the index then each record — each as one
//!   `EVAL` of a short Lua script, so an operation is one request and one reply on
//!   the engine's connection, where the binding makes several round trips. A read
//!   is `HGETALL`, an update `HSET` of one field (YCSB's `writeallfields=false`), a
//!   read-modify-write `HGETALL` then `HSET`.
//! - **memcached** (YCSB's `memcached` binding): a record is one value, its fields as
//!   JSON. A read is `get`, an insert or update a `set` of the whole record, a
//!   read-modify-write `get` then `set`. Scans (workload E) need ordered keys, which
//!   memcached does not have: refused before any load.
//!
//! The load inserts one record per request, numbered by the request's place in the
//! phase (the timetable index, or a counter in this machine's lane), so every record
//! is inserted once, also over many shards. Operations are counted by kind when their
//! reply comes (a read-modify-write when its write's does).

use std::cell::Cell;
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use crate::engine::{Answer, Request, RequestSource, ResponseCheck, Turn, Workload};
use crate::http::url::KvScheme;
use crate::http::{Proto, Target};
use crate::kv::{push_decimal, resp, Expect, Got, STATUS_MISS};
use crate::result::RequestInfo;
use crate::rng::SplitMix64;
use crate::stats::{ItemCounts, Labels};
use crate::workload::ycsb::keys::{fnv_hash64, Distribution, KeyChooser};
use crate::workload::ycsb::{op_labels, write_id, Acknowledged, Core, YcsbSettings, OPS};

/// Writes a record's hash and its place in the index at once.
const INSERT_LUA: &[u8] = b"redis.call('HSET', KEYS[1], unpack(ARGV, 2)) \
return redis.call('ZADD', '_indices', ARGV[1], KEYS[1])";
/// Reads `ARGV[2]` records from `ARGV[1]` on in the index, each whole.
const SCAN_LUA: &[u8] =
    b"local ks = redis.call('ZRANGEBYSCORE', '_indices', ARGV[1], '+inf', 'LIMIT', 0, ARGV[2]) \
local out = {} for i, k in ipairs(ks) do out[i] = redis.call('HGETALL', k) end return out";

/// Operations by their index in [`OPS`].
const READ: usize = 0;
const UPDATE: usize = 1;
const INSERT: usize = 2;
const SCAN: usize = 3;
const RMW: usize = 4;
const LOAD: usize = 5;

/// Which store.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Store {
    Redis,
    Memcached,
}

/// Why a YCSB workload cannot run on a store: workload E on memcached.
pub fn refused(core: Core, store: KvScheme) -> Option<String> {
    (core == Core::E && store == KvScheme::Memcached).then(|| {
        "YCSB's workload E scans records in key order, and memcached keeps no order of its \
         keys: run E against Redis, CouchDB or hakaru's store"
            .to_string()
    })
}

struct Shared {
    s: YcsbSettings,
    store: Store,
    chooser: KeyChooser,
    inserts: AtomicU64,
    loaded: AtomicU64,
    acknowledged: Acknowledged,
    labels: Arc<Labels>,
    label_of: [u16; OPS.len()],
}

/// The workload.
pub struct KvYcsb {
    shared: Arc<Shared>,
    targets: Vec<Target>,
}

impl KvYcsb {
    /// `s.target` speaks Redis or memcached ([`refused`] checked before).
    pub fn new(s: YcsbSettings) -> KvYcsb {
        let store = match s.target.proto {
            Proto::Memcached | Proto::MemcachedCas(_) => Store::Memcached,
            _ => Store::Redis,
        };
        let (labels, label_of) = op_labels(s.core);
        KvYcsb {
            targets: vec![s.target.clone()],
            shared: Arc::new(Shared {
                chooser: KeyChooser::new(s.distribution, s.records),
                store,
                inserts: AtomicU64::new(0),
                loaded: AtomicU64::new(0),
                acknowledged: Acknowledged::new(),
                labels,
                label_of,
                s,
            }),
        }
    }

    pub fn settings(&self) -> &YcsbSettings {
        &self.shared.s
    }

    /// Requests the load sends: one per record.
    pub fn load_requests(&self) -> u64 {
        self.shared.s.records
    }
}

/// What the client's last request was, for its check and its next request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Sent {
    Idle,
    Op(usize),
    /// The read of a read-modify-write: its write is next.
    RmwRead(u64),
    Insert(u64),
}

pub struct KvYcsbSource {
    shared: Arc<Shared>,
    sent: Rc<Cell<Sent>>,
    /// The check saw the reply to the last request.
    answered: Rc<Cell<bool>>,
    rng: SplitMix64,
    chooser: KeyChooser,
    wire: Vec<u8>,
    word: Vec<u8>,
}

pub struct KvYcsbCheck {
    shared: Arc<Shared>,
    sent: Rc<Cell<Sent>>,
    answered: Rc<Cell<bool>>,
}

impl Workload for KvYcsb {
    type Source = KvYcsbSource;
    type Check = KvYcsbCheck;

    fn targets(&self) -> &[Target] {
        &self.targets
    }

    fn request_infos(&self) -> Vec<RequestInfo> {
        let base = self.targets[0].label();
        let (read, write, insert, scan) = match self.shared.store {
            Store::Redis => (
                "HGETALL user…",
                "HSET user… field…",
                "EVAL insert (HSET + ZADD _indices)",
                "EVAL scan (ZRANGEBYSCORE _indices + HGETALL)",
            ),
            Store::Memcached => ("get user…", "set user…", "set user…", "-"),
        };
        [read, write, insert, scan]
            .into_iter()
            .map(|m| RequestInfo {
                id: None,
                method: m.split(' ').next().unwrap_or(m).into(),
                url: format!("{base} {m}"),
            })
            .collect()
    }

    fn labels(&self) -> Arc<Labels> {
        self.shared.labels.clone()
    }

    fn client(&self, id: crate::engine::ClientId) -> (KvYcsbSource, KvYcsbCheck) {
        let s = &self.shared.s;
        let sent = Rc::new(Cell::new(Sent::Idle));
        let answered = Rc::new(Cell::new(true));
        let size = (s.fields as usize) * (s.field_length as usize + 24) + 512;
        let source = KvYcsbSource {
            shared: self.shared.clone(),
            sent: sent.clone(),
            answered: answered.clone(),
            rng: SplitMix64::new(
                SplitMix64::new(id.seed(s.seed) ^ (id.index as u64).rotate_left(32)).next_u64(),
            ),
            chooser: self.shared.chooser,
            wire: Vec::with_capacity(size),
            word: Vec::with_capacity(size),
        };
        let check = KvYcsbCheck {
            shared: self.shared.clone(),
            sent,
            answered,
        };
        (source, check)
    }
}

/// Indices into [`Workload::request_infos`].
const INFO_READ: usize = 0;
const INFO_WRITE: usize = 1;
const INFO_INSERT: usize = 2;
const INFO_SCAN: usize = 3;

/// The replies each kind of request (by its `INFO_` index) may get: Redis's
/// `HGETALL` an array (`*0` for no record), `HSET` and the insert script (its
/// `ZADD`) an integer, the scan script an array; memcached's `get` values or `END`,
/// `set` `STORED` or `NOT_STORED`.
fn expect(store: Store, info: usize) -> Expect {
    use Got::*;
    match (store, info) {
        (Store::Redis, INFO_READ | INFO_SCAN) => Expect::of(&[Array, Nil]),
        (Store::Redis, _) => Expect::of(&[Integer]),
        (Store::Memcached, INFO_READ) => Expect::of(&[Values, End]),
        (Store::Memcached, _) => Expect::of(&[Stored, NotStored]),
    }
}

impl KvYcsbSource {
    /// A record to read, update or scan from, as the CouchDB workload draws it.
    fn choose(&mut self) -> u64 {
        let sh = &*self.shared;
        let n = match self.chooser.distribution() {
            Distribution::Latest => sh.s.records + sh.acknowledged.limit(),
            Distribution::Uniform | Distribution::Zipfian => sh.s.records,
        };
        let position = self.chooser.next(&mut self.rng, n);
        sh.s.record(position)
    }

    /// `field_length` random letters into `self.word`.
    fn field_value(&mut self) {
        self.word.clear();
        let mut left = self.shared.s.field_length as usize;
        while left > 0 {
            let r = self.rng.next_u64();
            for k in 0..left.min(8) {
                self.word.push(b'a' + ((r >> (k * 8)) as u8 % 26));
            }
            left = left.saturating_sub(8);
        }
    }

    /// The key of `record` into `self.word`.
    fn key(&mut self, record: u64) {
        self.word.clear();
        write_id(&mut self.word, record);
    }

    /// A whole record written: Redis's `EVAL insert`, memcached's `set`.
    fn insert(&mut self, record: u64) {
        self.wire.clear();
        let fields = self.shared.s.fields as usize;
        match self.shared.store {
            Store::Redis => {
                resp::push_header(&mut self.wire, b'*', 5 + 2 * fields);
                resp::push_bulk(&mut self.wire, b"EVAL");
                resp::push_bulk(&mut self.wire, INSERT_LUA);
                resp::push_bulk(&mut self.wire, b"1");
                self.key(record);
                resp::push_bulk(&mut self.wire, &self.word);
                self.word.clear();
                push_decimal(&mut self.word, score(record));
                resp::push_bulk(&mut self.wire, &self.word);
                for f in 0..fields {
                    self.word.clear();
                    self.word.extend_from_slice(b"field");
                    push_decimal(&mut self.word, f as u64);
                    resp::push_bulk(&mut self.wire, &self.word);
                    self.field_value();
                    resp::push_bulk(&mut self.wire, &self.word);
                }
            }
            Store::Memcached => {
                // {"field0":"…",…}: the value's length is known before it is written.
                let len = 2
                    + fields * (self.shared.s.field_length as usize + 6)
                    + (0..fields).map(|f| digits(f as u64) + 5).sum::<usize>()
                    - usize::from(fields > 0);
                self.wire.extend_from_slice(b"set ");
                write_id(&mut self.wire, record);
                self.wire.extend_from_slice(b" 0 0 ");
                push_decimal(&mut self.wire, len as u64);
                self.wire.extend_from_slice(b"\r\n{");
                let start = self.wire.len() - 1;
                for f in 0..fields {
                    if f > 0 {
                        self.wire.push(b',');
                    }
                    self.wire.extend_from_slice(b"\"field");
                    push_decimal(&mut self.wire, f as u64);
                    self.wire.extend_from_slice(b"\":\"");
                    self.field_value();
                    self.wire.extend_from_slice(&self.word);
                    self.wire.push(b'"');
                }
                self.wire.push(b'}');
                debug_assert_eq!(self.wire.len() - start, len);
                self.wire.extend_from_slice(b"\r\n");
            }
        }
    }

    fn read(&mut self, record: u64) {
        self.wire.clear();
        match self.shared.store {
            Store::Redis => {
                resp::push_header(&mut self.wire, b'*', 2);
                resp::push_bulk(&mut self.wire, b"HGETALL");
                self.key(record);
                resp::push_bulk(&mut self.wire, &self.word);
            }
            Store::Memcached => {
                self.wire.extend_from_slice(b"get ");
                write_id(&mut self.wire, record);
                self.wire.extend_from_slice(b"\r\n");
            }
        }
    }

    /// One field updated (Redis), the whole record rewritten (memcached).
    fn update(&mut self, record: u64) {
        if self.shared.store == Store::Memcached {
            return self.insert(record);
        }
        self.wire.clear();
        resp::push_header(&mut self.wire, b'*', 4);
        resp::push_bulk(&mut self.wire, b"HSET");
        self.key(record);
        resp::push_bulk(&mut self.wire, &self.word);
        let f = self.rng.below(self.shared.s.fields.max(1) as usize);
        self.word.clear();
        self.word.extend_from_slice(b"field");
        push_decimal(&mut self.word, f as u64);
        resp::push_bulk(&mut self.wire, &self.word);
        self.field_value();
        resp::push_bulk(&mut self.wire, &self.word);
    }

    fn scan(&mut self, record: u64) {
        let len = 1 + self.rng.below(self.shared.s.max_scan.max(1) as usize);
        self.wire.clear();
        resp::push_header(&mut self.wire, b'*', 5);
        resp::push_bulk(&mut self.wire, b"EVAL");
        resp::push_bulk(&mut self.wire, SCAN_LUA);
        resp::push_bulk(&mut self.wire, b"0");
        self.word.clear();
        push_decimal(&mut self.word, score(record));
        resp::push_bulk(&mut self.wire, &self.word);
        self.word.clear();
        push_decimal(&mut self.word, len as u64);
        resp::push_bulk(&mut self.wire, &self.word);
    }
}

/// A record's place in `_indices`: its hash, cut to the 53 bits a score holds exactly.
fn score(record: u64) -> u64 {
    fnv_hash64(record) >> 11
}

fn digits(mut n: u64) -> usize {
    let mut d = 1;
    while n >= 10 {
        n /= 10;
        d += 1;
    }
    d
}

impl RequestSource for KvYcsbSource {
    fn next(&mut self, turn: Turn) -> Request<'_> {
        let sh = self.shared.clone();
        let s = &sh.s;
        let last = self.sent.get();
        if !self.answered.get() {
            // The last request ended without a reply: its operation is over.
            if let Sent::Insert(j) = last {
                sh.acknowledged.done(j);
            }
        }
        let rmw_write = match last {
            Sent::RmwRead(record) if self.answered.get() => Some(record),
            _ => None,
        };
        self.answered.set(false);
        let (op, info) = if let Some(record) = rmw_write {
            self.update(record);
            self.sent.set(Sent::Op(RMW));
            (RMW, INFO_WRITE)
        } else if s.core == Core::Load {
            let (first, stride) = s.lane();
            let n = turn
                .index
                .unwrap_or_else(|| first + sh.loaded.fetch_add(1, Ordering::Relaxed) * stride)
                % s.records.max(1);
            self.insert(n);
            self.sent.set(Sent::Op(LOAD));
            (LOAD, INFO_INSERT)
        } else {
            let pr = s.core.proportions();
            let roll = self.rng.below(1000) as u32;
            let update = pr.read + pr.update;
            let insert = update + pr.insert;
            let scan = insert + pr.scan;
            if roll < pr.read {
                let record = self.choose();
                self.read(record);
                self.sent.set(Sent::Op(READ));
                (READ, INFO_READ)
            } else if roll < update {
                let record = self.choose();
                self.update(record);
                self.sent.set(Sent::Op(UPDATE));
                (UPDATE, INFO_WRITE)
            } else if roll < insert {
                let j = sh.inserts.fetch_add(1, Ordering::Relaxed);
                self.insert(s.record(s.records + j));
                self.sent.set(Sent::Insert(j));
                (INSERT, INFO_INSERT)
            } else if roll < scan {
                let record = self.choose();
                self.scan(record);
                self.sent.set(Sent::Op(SCAN));
                (SCAN, INFO_SCAN)
            } else {
                let record = self.choose();
                self.read(record);
                self.sent.set(Sent::RmwRead(record));
                (RMW, INFO_READ)
            }
        };
        Request {
            target: 0,
            bytes: &self.wire,
            timeout: s.timeout,
            head: false,
            info,
            items: 0,
            label: sh.label_of[op],
            expect: expect(sh.store, info),
        }
    }

    /// The operation with its record's key (`HGETALL user6284781860667377211`).
    fn sent(&self) -> Option<String> {
        Some(crate::kv::readable(&self.wire))
    }
}

impl ResponseCheck for KvYcsbCheck {
    fn check(&mut self, answer: &Answer<'_>, items: &mut ItemCounts) {
        self.answered.set(true);
        match self.sent.get() {
            Sent::Idle => {}
            // The write follows; a read that found nothing ends the operation.
            Sent::RmwRead(_) => {
                if answer.status == STATUS_MISS {
                    self.sent.set(Sent::Idle);
                    items.operation(OPS[RMW], 1);
                }
            }
            Sent::Insert(j) => {
                self.shared.acknowledged.done(j);
                items.operation(OPS[INSERT], 1);
            }
            Sent::Op(LOAD) => items.operation(OPS[INSERT], 1),
            Sent::Op(op) => items.operation(OPS[op], 1),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kv::{memcache, Reply, Step};
    use std::time::Duration;

    fn settings(core: Core, proto: Proto) -> YcsbSettings {
        YcsbSettings {
            core,
            target: Target {
                https: false,
                host: "127.0.0.1".into(),
                port: 1,
                addrs: vec![],
                proto,
            },
            db_path: String::new(),
            records: 100,
            distribution: Distribution::Uniform,
            fields: 10,
            field_length: 100,
            max_scan: 100,
            batch: 1,
            headers: vec![],
            keep_alive: true,
            timeout: Duration::from_secs(1),
            seed: 3,
            shard: None,
        }
    }

    fn turn(n: u64) -> Turn {
        Turn {
            client: 0,
            n,
            index: None,
        }
    }

    #[test]
    fn a_memcached_record_is_framed_by_its_own_byte_count() {
        let w = KvYcsb::new(settings(Core::Load, Proto::Memcached));
        let (mut s, _) = w.client(0.into());
        let bytes = s.next(turn(0)).bytes.to_vec();
        let text = String::from_utf8(bytes.clone()).unwrap();
        let (head, rest) = text.split_once("\r\n").unwrap();
        let len: usize = head.rsplit(' ').next().unwrap().parse().unwrap();
        assert_eq!(rest.len(), len + 2, "{head}");
        let v: serde_json::Value = serde_json::from_str(&rest[..len]).unwrap();
        assert_eq!(v["field9"].as_str().unwrap().len(), 100);
        // What the store answers the set is framed as a value.
        assert_eq!(
            memcache::Framer::new().step(b"STORED\r\n"),
            Step::Done {
                used: 8,
                reply: Reply::Value
            }
        );
    }

    #[test]
    fn redis_inserts_and_scans_are_one_eval_each() {
        let w = KvYcsb::new(settings(Core::E, Proto::Redis(None)));
        let (mut s, _) = w.client(0.into());
        let (mut scans, mut inserts) = (0, 0);
        for i in 0..2000 {
            let r = s.next(turn(i));
            let text = String::from_utf8_lossy(r.bytes).to_string();
            assert!(text.starts_with("*") && text.contains("EVAL"), "{text}");
            match r.info {
                INFO_SCAN => scans += 1,
                INFO_INSERT => inserts += 1,
                other => panic!("{other}"),
            }
        }
        // 95% scans, 5% inserts, within 5 standard deviations.
        assert!(
            (1850..=1950).contains(&scans),
            "{scans} scans, {inserts} inserts"
        );
        assert!(refused(Core::E, KvScheme::Memcached).is_some());
        assert!(refused(Core::E, KvScheme::Redis).is_none());
    }
}
