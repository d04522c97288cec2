//! Key-value stores as a workload (`run`/`ramp` against `redis://` and
//! `memcached://`): each request a command drawn by weight from the commands file
//! (or `--ratio`'s two), its `{key}`s drawn by YCSB's choosers
//! ([`crate::workload::ycsb::keys`]) or in sequence over `--keys`, its `{value}` a
//! slice of one random buffer. Every command is counted under its label; the reply
//! is read and classified by the wire ([`crate::http::Conn::exchange_framed`]), so
//! the check is the status alone. A request is written into the client's reused
//! buffer: nothing allocates per request.
//!
//! [`RunWorkload`] is what `run` and `ramp` drive: the plan's HTTP requests or this.

mod run;
pub mod ycsb;

pub use run::{RunCheck, RunSource, RunWorkload};

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use crate::engine::{Request, RequestSource, StatusOnly, Turn, Workload};
use crate::http::Target;
use crate::kv::commands::{Command, Part, Protocol, Shape, Word};
use crate::kv::memcache::Tokens;
use crate::kv::{push_decimal, resp, Expect};
use crate::result::{RequestInfo, StoreCommand};
use crate::rng::SplitMix64;
use crate::stats::{LabelSet, Labels};
use crate::workload::ycsb::keys::{Distribution, KeyChooser};

/// How `{key}` is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyDraw {
    /// One of YCSB's request distributions.
    Ycsb(Distribution),
    /// In order: the open model's timetable index; in the closed model the next of
    /// one count shared by the clients (so `-n N` over N keys writes each once).
    Sequential,
}

impl KeyDraw {
    pub fn parse(s: &str) -> Option<KeyDraw> {
        match s {
            "sequential" => Some(KeyDraw::Sequential),
            s => Distribution::parse(s).map(KeyDraw::Ycsb),
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            KeyDraw::Sequential => "sequential",
            KeyDraw::Ycsb(d) => d.as_str(),
        }
    }
}

/// Everything a key-value run sends, checked.
#[derive(Debug, Clone)]
pub struct KvSettings {
    pub target: Target,
    pub protocol: Protocol,
    pub commands: Vec<Command>,
    pub keys: u64,
    pub draw: KeyDraw,
    /// `{value}`'s length, lowest and highest (equal for a fixed size).
    pub value_size: (usize, usize),
    pub timeout: Duration,
    pub seed: u64,
}

/// The workload: commands to one store.
pub struct KvWorkload {
    s: KvSettings,
    targets: Vec<Target>,
    labels: Arc<Labels>,
    /// Every value is a slice of this (random letters, so nothing compresses it).
    values: Arc<[u8]>,
    chooser: KeyChooser,
    /// Closed model, sequential: keys drawn so far, by every client.
    walked: Arc<AtomicU64>,
    /// What every client reads per request, shared rather than copied per client:
    /// with hundreds of clients (`--pipeline`), per-client copies were cache misses
    /// on every request.
    shared: Arc<Tables>,
    /// Each command's bytes when it has no placeholder, written by the first client.
    fixed: OnceLock<Fixed>,
    /// The CAS uniques `gets` replies brought, when a command is a `cas`: the
    /// target's framers note them, the sources take them.
    tokens: Option<Arc<Tokens>>,
}

/// Each command's bytes when it has no `{key}` or `{value}` (`None` when it has).
type Fixed = Arc<[Option<Box<[u8]>>]>;

/// The tables every client's source reads.
#[derive(Clone)]
struct Tables {
    commands: Arc<[Command]>,
    /// Cumulative weights, one per command.
    upto: Arc<[u64]>,
    label_of: Arc<[u16]>,
    /// Redis: each command's RESP in pieces ([`Piece`]).
    resp: Arc<[Box<[Piece]>]>,
    /// The replies each command may get, decided here once, not per request.
    expect: Arc<[Expect]>,
}

/// The replies command `c` may get, by its first word ([`Expect::ANY`] for a
/// command not known).
fn expect(c: &Command, proto: Protocol) -> Expect {
    let verb = c.words[0].literal().unwrap_or_default();
    match proto {
        Protocol::Redis => Expect::redis(verb, c.words.len()),
        Protocol::Memcached => Expect::memcached(verb),
    }
}

/// A piece of a Redis command's RESP: bytes encoded once (the array's header and
/// each word with no placeholder, runs of them as one), or a word joined and
/// encoded per request. Encoding `*2\r\n$3\r\nGET\r\n` anew for every command was
/// about a fifth of what writing one cost.
#[derive(Debug)]
enum Piece {
    Fixed(Box<[u8]>),
    Word(usize),
}

/// `c`'s RESP in pieces.
fn resp_pieces(c: &Command) -> Box<[Piece]> {
    let mut pieces = Vec::new();
    let mut run = Vec::new();
    resp::push_header(&mut run, b'*', c.words.len());
    for (i, w) in c.words.iter().enumerate() {
        match w.literal() {
            Some(lit) => resp::push_bulk(&mut run, lit),
            None => {
                if !run.is_empty() {
                    pieces.push(Piece::Fixed(std::mem::take(&mut run).into()));
                }
                pieces.push(Piece::Word(i));
            }
        }
    }
    if !run.is_empty() {
        pieces.push(Piece::Fixed(run.into()));
    }
    pieces.into()
}

impl KvWorkload {
    pub fn new(s: KvSettings) -> KvWorkload {
        let mut upto = Vec::with_capacity(s.commands.len());
        let mut total = 0u64;
        for c in &s.commands {
            total += u64::from(c.weight);
            upto.push(total);
        }
        // Busiest first: the first labels get a timeline of their own.
        let mut order: Vec<usize> = (0..s.commands.len()).collect();
        order.sort_by_key(|i| std::cmp::Reverse(s.commands[*i].weight));
        let mut set = LabelSet::new();
        let mut label_of = vec![0; s.commands.len()];
        // A command of weight 0 is never drawn: no label of its own.
        for i in order.into_iter().filter(|i| s.commands[*i].weight > 0) {
            label_of[i] = set.intern("command", &s.commands[i].name);
        }
        let mut rng = SplitMix64::new(s.seed ^ 0x005E_ED0F_7A1E);
        let values: Arc<[u8]> = (0..s.value_size.1)
            .map(|_| b'a' + (rng.next_u64() % 26) as u8)
            .collect();
        let chooser = match s.draw {
            KeyDraw::Ycsb(d) => KeyChooser::new(d, s.keys),
            KeyDraw::Sequential => KeyChooser::new(Distribution::Uniform, s.keys),
        };
        let mut target = s.target.clone();
        let tokens = s
            .commands
            .iter()
            .any(|c| c.shape == Shape::Cas)
            .then(|| Arc::new(Tokens::default()));
        if let Some(t) = &tokens {
            target.proto = crate::http::Proto::MemcachedCas(t.clone());
        }
        KvWorkload {
            targets: vec![target],
            tokens,
            labels: Arc::new(set.finish("the commands' names")),
            shared: Arc::new(Tables {
                commands: s.commands.clone().into(),
                upto: upto.into(),
                label_of: label_of.into(),
                resp: s.commands.iter().map(resp_pieces).collect(),
                expect: s.commands.iter().map(|c| expect(c, s.protocol)).collect(),
            }),
            fixed: OnceLock::new(),
            values,
            chooser,
            walked: Arc::default(),
            s,
        }
    }

    pub fn settings(&self) -> &KvSettings {
        &self.s
    }

    /// Each label's command, in the order of the file, and whether it reads; lines
    /// that share a `name=` are one command, a read only if every one of them reads.
    /// A command of weight 0 is never sent: not listed.
    pub fn store_commands(&self) -> Vec<StoreCommand> {
        let mut out: Vec<StoreCommand> = Vec::new();
        for c in self.s.commands.iter().filter(|c| c.weight > 0) {
            let reads = c.reads();
            match out.iter_mut().find(|s| s.name == c.name) {
                Some(s) => s.reads &= reads,
                None => out.push(StoreCommand {
                    name: c.name.clone(),
                    reads,
                }),
            }
        }
        out
    }

    /// `--preload`'s workload: the first command that writes a `{value}` (a `cas`
    /// never: it stores only over a token), once per key in order; `None` when no
    /// command writes one.
    pub fn preloader(&self) -> Option<KvWorkload> {
        let write = self.s.commands.iter().find(|c| {
            c.shape != Shape::Cas && c.words.iter().any(|w| w.0.contains(&Part::Value))
        })?;
        Some(KvWorkload::new(KvSettings {
            commands: vec![Command {
                weight: 1,
                name: format!("preload {}", write.name),
                ..write.clone()
            }],
            draw: KeyDraw::Sequential,
            ..self.s.clone()
        }))
    }
}

impl Workload for KvWorkload {
    type Source = KvSource;
    type Check = StatusOnly;

    fn targets(&self) -> &[Target] {
        &self.targets
    }

    fn request_infos(&self) -> Vec<RequestInfo> {
        self.s
            .commands
            .iter()
            .map(|c| RequestInfo {
                id: None,
                method: c.name.clone(),
                url: describe(c),
            })
            .collect()
    }

    fn labels(&self) -> Arc<Labels> {
        self.labels.clone()
    }

    fn client(&self, id: crate::engine::ClientId) -> (KvSource, StatusOnly) {
        let client = id.index;
        let seed = crate::rng::derive(id.seed(self.s.seed), client as u64);
        let mut source = KvSource {
            fixed: Arc::from([]),
            t: self.shared.clone(),
            draws: Draws {
                values: self.values.clone(),
                value_size: self.s.value_size,
                keys: self.s.keys,
                draw: self.s.draw,
                chooser: self.chooser,
                rng: SplitMix64::new(seed),
                walked: self.walked.clone(),
            },
            protocol: self.s.protocol,
            tokens: self.tokens.clone(),
            timeout: self.s.timeout,
            buf: Vec::with_capacity(256 + self.s.value_size.1),
            word: Vec::with_capacity(64 + self.s.value_size.1),
            mn: false,
            last: 0,
        };
        // A command without `{key}` or `{value}` is the same bytes every time:
        // written once (redis-benchmark's fixed key is one), not per request.
        let turn = Turn {
            client,
            n: 0,
            index: None,
        };
        let fixed = self.fixed.get_or_init(|| {
            (0..source.t.commands.len())
                .map(|c| {
                    let cmd = &source.t.commands[c];
                    // A `cas` carries a new token each time: never fixed.
                    let fixed = cmd.shape != Shape::Cas;
                    (fixed && cmd.words.iter().all(|w| w.literal().is_some())).then(|| {
                        source.write(c, turn);
                        source.buf.clone().into_boxed_slice()
                    })
                })
                .collect()
        });
        source.fixed = fixed.clone();
        (source, StatusOnly)
    }
}

/// A command as the results name it: its words as typed.
fn describe(c: &Command) -> String {
    let mut out = String::new();
    for (i, w) in c.words.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        for p in &w.0 {
            match p {
                Part::Text(t) => out.push_str(&String::from_utf8_lossy(t)),
                Part::Key => out.push_str("{key}"),
                Part::Value => out.push_str("{value}"),
            }
        }
    }
    out
}

/// One client's commands.
pub struct KvSource {
    /// Each command's bytes when it has no placeholder (written once, for all clients).
    fixed: Fixed,
    /// The workload's tables, behind one pointer (the source is a variant of
    /// `RunSource`, moved whole).
    t: Arc<Tables>,
    draws: Draws,
    protocol: Protocol,
    /// Where a `cas` takes its token (`Some` when a command is a `cas`).
    tokens: Option<Arc<Tokens>>,
    timeout: Duration,
    /// The request, rewritten for each.
    buf: Vec<u8>,
    /// One word being joined.
    word: Vec<u8>,
    /// The last `cas` written went as the no-op `mn` (no token): judged as one.
    mn: bool,
    /// The command `next` last gave (for [`RequestSource::sent`]).
    last: usize,
}

/// What a client draws keys and values from.
struct Draws {
    values: Arc<[u8]>,
    value_size: (usize, usize),
    keys: u64,
    draw: KeyDraw,
    chooser: KeyChooser,
    rng: SplitMix64,
    walked: Arc<AtomicU64>,
}

impl Draws {
    /// The next key for `{key}`.
    fn key(&mut self, turn: Turn) -> u64 {
        match self.draw {
            KeyDraw::Ycsb(_) => self.chooser.next(&mut self.rng, self.keys),
            KeyDraw::Sequential => {
                let k = match turn.index {
                    Some(i) => i,
                    None => self.walked.fetch_add(1, Ordering::Relaxed),
                };
                k % self.keys.max(1)
            }
        }
    }

    /// Word `w` as a RESP bulk string. A key between two texts (`key:{key}`, the
    /// common word) is written straight into `out`, its length known from its
    /// digits; any other word is joined in `word` first.
    fn push_bulk(&mut self, out: &mut Vec<u8>, word: &mut Vec<u8>, w: &Word, turn: Turn) {
        let (pre, post): (&[u8], &[u8]) = match w.0.as_slice() {
            [Part::Key] => (b"", b""),
            [Part::Text(a), Part::Key] => (a, b""),
            [Part::Key, Part::Text(b)] => (b"", b),
            [Part::Text(a), Part::Key, Part::Text(b)] => (a, b),
            _ => {
                self.join(word, w, turn);
                return resp::push_bulk(out, word);
            }
        };
        let (digits, from) = crate::kv::decimal(self.key(turn));
        let key = &digits[from..];
        out.push(b'$');
        push_decimal(out, (pre.len() + key.len() + post.len()) as u64);
        out.extend_from_slice(b"\r\n");
        out.extend_from_slice(pre);
        out.extend_from_slice(key);
        out.extend_from_slice(post);
        out.extend_from_slice(b"\r\n");
    }

    /// Word `w` joined into `out`.
    fn join(&mut self, out: &mut Vec<u8>, w: &Word, turn: Turn) {
        out.clear();
        for p in &w.0 {
            match p {
                Part::Text(t) => out.extend_from_slice(t),
                Part::Key => {
                    let k = self.key(turn);
                    push_decimal(out, k);
                }
                Part::Value => {
                    let (lo, hi) = self.value_size;
                    let n = if hi > lo { self.rng.range(lo, hi) } else { lo };
                    out.extend_from_slice(&self.values[..n]);
                }
            }
        }
    }
}

impl KvSource {
    fn write(&mut self, c: usize, turn: Turn) {
        let (buf, word, d) = (&mut self.buf, &mut self.word, &mut self.draws);
        buf.clear();
        let cmd = &self.t.commands[c];
        self.mn = false;
        match (self.protocol, cmd.shape) {
            (Protocol::Redis, _) => {
                for p in self.t.resp[c].iter() {
                    match p {
                        Piece::Fixed(b) => buf.extend_from_slice(b),
                        Piece::Word(i) => d.push_bulk(buf, word, &cmd.words[*i], turn),
                    }
                }
            }
            (Protocol::Memcached, Shape::Line) => {
                // A `gets`/`gats` asks for its keys' tokens (after `gats`'s exptime).
                let first_key = match (&self.tokens, cmd.words[0].literal()) {
                    (Some(_), Some(b"gets")) => 1,
                    (Some(_), Some(b"gats")) => 2,
                    _ => usize::MAX,
                };
                for (i, w) in cmd.words.iter().enumerate() {
                    if i > 0 {
                        buf.push(b' ');
                    }
                    d.join(word, w, turn);
                    buf.extend_from_slice(word);
                    if i >= first_key {
                        if let Some(t) = &self.tokens {
                            t.ask(word);
                        }
                    }
                }
                buf.extend_from_slice(b"\r\n");
            }
            (Protocol::Memcached, Shape::Storage) => {
                for i in [0, 1] {
                    d.join(word, &cmd.words[i], turn);
                    buf.extend_from_slice(word);
                    buf.push(b' ');
                }
                storage_tail(buf, word, d, &cmd.words, turn, None);
            }
            (Protocol::Memcached, Shape::Cas) => {
                d.join(word, &cmd.words[1], turn);
                match self.tokens.as_ref().and_then(|t| t.take(word)) {
                    Some(token) => {
                        buf.extend_from_slice(b"cas ");
                        buf.extend_from_slice(word);
                        buf.push(b' ');
                        storage_tail(buf, word, d, &cmd.words, turn, Some(token));
                    }
                    // No token for the key: nothing honest to send as a `cas`; the
                    // no-op keeps one reply per request (pipelined too) and its
                    // `MN` is counted under its own status.
                    None => {
                        buf.extend_from_slice(b"mn\r\n");
                        self.mn = true;
                    }
                }
            }
        }
    }
}

/// The rest of a memcached storage command after `CMD KEY `, from the file's
/// `CMD KEY VALUE [FLAGS [EXPTIME]]`: `FLAGS EXPTIME BYTES [TOKEN]\r\nVALUE\r\n`.
fn storage_tail(
    buf: &mut Vec<u8>,
    word: &mut Vec<u8>,
    d: &mut Draws,
    w: &[Word],
    turn: Turn,
    token: Option<u64>,
) {
    for i in [3, 4] {
        let lit = w.get(i).and_then(|w| w.literal()).unwrap_or(b"0");
        buf.extend_from_slice(lit);
        buf.push(b' ');
    }
    d.join(word, &w[2], turn);
    push_decimal(buf, word.len() as u64);
    if let Some(t) = token {
        buf.push(b' ');
        push_decimal(buf, t);
    }
    buf.extend_from_slice(b"\r\n");
    buf.extend_from_slice(word);
    buf.extend_from_slice(b"\r\n");
}

#[cfg(test)]
impl KvSource {
    /// Command `c`'s bytes for `turn`, as `next` would send them.
    fn write_for(&mut self, c: usize, turn: Turn) -> Vec<u8> {
        self.write(c, turn);
        self.buf.clone()
    }
}

impl RequestSource for KvSource {
    #[inline]
    fn next(&mut self, turn: Turn) -> Request<'_> {
        let total = *self.t.upto.last().expect("at least one command");
        let c = if self.t.upto.len() == 1 {
            0
        } else {
            let x = self.draws.rng.next_u64() % total;
            self.t.upto.iter().position(|u| x < *u).unwrap_or(0)
        };
        self.last = c;
        if self.fixed[c].is_none() {
            self.write(c, turn);
        } else {
            self.mn = false;
        }
        let bytes: &[u8] = match &self.fixed[c] {
            Some(b) => b,
            None => &self.buf,
        };
        Request {
            target: 0,
            bytes,
            timeout: self.timeout,
            head: false,
            info: c,
            items: 0,
            label: self.t.label_of[c],
            expect: if self.mn {
                Expect::memcached(b"mn")
            } else {
                self.t.expect[c]
            },
        }
    }

    /// The command with the key it drew (`GET key:4711`), from the bytes it went as.
    fn sent(&self) -> Option<String> {
        let bytes: &[u8] = match self.fixed.get(self.last) {
            Some(Some(b)) => b,
            _ => &self.buf,
        };
        Some(crate::kv::readable(bytes))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kv::commands::{parse, ratio};

    fn workload(protocol: Protocol, commands: Vec<Command>, draw: KeyDraw) -> KvWorkload {
        KvWorkload::new(KvSettings {
            target: Target {
                https: false,
                host: "127.0.0.1".into(),
                port: 1,
                addrs: vec![],
                proto: crate::http::Proto::Memcached,
            },
            protocol,
            commands,
            keys: 10,
            draw,
            value_size: (4, 4),
            timeout: Duration::from_secs(1),
            seed: 1,
        })
    }

    fn turn(n: u64) -> Turn {
        Turn {
            client: 0,
            n,
            index: None,
        }
    }

    /// The pieces (fixed RESP encoded once, `key:{key}` written straight) give the
    /// bytes the plain encoding gives: every word joined, then each a bulk string.
    #[test]
    fn redis_pieces_encode_as_the_plain_way_does() {
        let c = parse(
            "MGET a:{key} {key}:b {key} x{key}y lit {key}{key} v{value}",
            "f",
            Protocol::Redis,
        )
        .unwrap();
        let w = workload(Protocol::Redis, c, KeyDraw::Sequential);
        let (mut s, _) = w.client(0.into());
        let value = String::from_utf8(s.draws.values[..4].to_vec()).unwrap();
        for round in 0..3u64 {
            let k = |i: u64| (round * 6 + i) % 10;
            let words = [
                "MGET".to_string(),
                format!("a:{}", k(0)),
                format!("{}:b", k(1)),
                format!("{}", k(2)),
                format!("x{}y", k(3)),
                "lit".to_string(),
                format!("{}{}", k(4), k(5)),
                format!("v{value}"),
            ];
            let mut plain = Vec::new();
            resp::push_header(&mut plain, b'*', words.len());
            for word in &words {
                resp::push_bulk(&mut plain, word.as_bytes());
            }
            let got = s.next(turn(round)).bytes.to_vec();
            assert_eq!(
                String::from_utf8(got).unwrap(),
                String::from_utf8(plain).unwrap()
            );
        }
    }

    #[test]
    fn redis_commands_are_resp_arrays_with_keys_and_values() {
        let c = parse("MSET k:{key} {value}", "f", Protocol::Redis).unwrap();
        let w = workload(Protocol::Redis, c, KeyDraw::Sequential);
        let (mut s, _) = w.client(0.into());
        let bytes = s.next(turn(0)).bytes.to_vec();
        let text = String::from_utf8(bytes).unwrap();
        // *3, $4 MSET, $3 k:0 (the first sequential key), $4 and the value.
        assert!(
            text.starts_with("*3\r\n$4\r\nMSET\r\n$3\r\nk:0\r\n$4\r\n"),
            "{text:?}"
        );
        assert_eq!(text.len(), 4 + 10 + 9 + 10);
    }

    #[test]
    fn memcached_storage_gets_its_byte_count() {
        let w = workload(
            Protocol::Memcached,
            ratio(1, 0, Protocol::Memcached),
            KeyDraw::Sequential,
        );
        let (mut s, _) = w.client(0.into());
        let r = s.next(turn(0));
        let text = String::from_utf8(r.bytes.to_vec()).unwrap();
        let (head, value) = text.split_once("\r\n").unwrap();
        assert!(
            head.starts_with("set key:") && head.ends_with(" 0 0 4"),
            "{head}"
        );
        assert_eq!(value.len(), 4 + 2);
    }

    #[test]
    fn a_value_range_stays_inside_its_ends() {
        // Regression: `rng.range` is inclusive; `hi + 1` overran the value buffer.
        let c = parse("SET k {value}", "f", Protocol::Redis).unwrap();
        let mut w = workload(Protocol::Redis, c, KeyDraw::Sequential);
        w.s.value_size = (1, 3);
        let w = KvWorkload::new(w.s.clone());
        let (mut s, _) = w.client(0.into());
        let mut seen = [false; 4];
        for i in 0..200 {
            let text = String::from_utf8(s.next(turn(i)).bytes.to_vec()).unwrap();
            let len: usize = text.split("\r\n").nth(5).unwrap()[1..].parse().unwrap();
            seen[len] = true;
        }
        assert_eq!(seen, [false, true, true, true]);
    }

    #[test]
    fn weights_and_labels() {
        let w = workload(
            Protocol::Redis,
            ratio(1, 9, Protocol::Redis),
            KeyDraw::Ycsb(Distribution::Uniform),
        );
        let names: Vec<_> = w.labels().list.iter().map(|l| l.value.clone()).collect();
        assert_eq!(names, ["GET", "SET"]);
        let (mut s, _) = w.client(3.into());
        let gets = (0..10_000).filter(|n| s.next(turn(*n)).info == 0).count();
        // 9 in 10, within 5 standard deviations of the binomial.
        assert!((8850..=9150).contains(&gets), "{gets}");
    }

    #[test]
    fn the_preloader_writes_each_key_once_in_order() {
        let c = parse("GET k:{key}\nSET k:{key} {value}", "f", Protocol::Redis).unwrap();
        let w = workload(Protocol::Redis, c, KeyDraw::Ycsb(Distribution::Zipfian));
        let p = w.preloader().unwrap();
        assert_eq!(p.labels().list.len(), 0, "one command: no breakdown");
        let (mut a, _) = p.client(0.into());
        let (mut b, _) = p.client(1.into());
        let mut keys = Vec::new();
        for i in 0..10 {
            let s = if i % 3 == 0 { &mut a } else { &mut b };
            let text = String::from_utf8(s.next(turn(0)).bytes.to_vec()).unwrap();
            assert!(text.starts_with("*3\r\n$3\r\nSET\r\n"), "{text:?}");
            keys.push(text.split("\r\n").nth(4).unwrap().to_string());
        }
        let want: Vec<String> = (0..10).map(|k| format!("k:{k}")).collect();
        assert_eq!(keys, want);
        let none = parse("GET k:{key}", "f", Protocol::Redis).unwrap();
        assert!(workload(Protocol::Redis, none, KeyDraw::Sequential)
            .preloader()
            .is_none());
    }

    #[test]
    fn sequential_keys_follow_the_timetable() {
        let c = parse("GET {key}", "f", Protocol::Redis).unwrap();
        let w = workload(Protocol::Redis, c, KeyDraw::Sequential);
        let (mut s, _) = w.client(0.into());
        for i in [0u64, 1, 2, 13] {
            let t = Turn {
                client: 0,
                n: 0,
                index: Some(i),
            };
            let text = String::from_utf8(s.next(t).bytes.to_vec()).unwrap();
            assert!(text.ends_with(&format!("\r\n{}\r\n", i % 10)), "{text:?}");
        }
    }

    #[test]
    fn a_cas_sends_its_key_s_last_token_once_else_a_no_op() {
        let c = parse(
            "gets k:{key}\ncas k:{key} {value} 5",
            "f",
            Protocol::Memcached,
        )
        .unwrap();
        let w = workload(Protocol::Memcached, c, KeyDraw::Sequential);
        let Some(crate::http::Proto::MemcachedCas(tokens)) =
            w.targets().first().map(|t| t.proto.clone())
        else {
            panic!("a cas file's target notes tokens");
        };
        let (mut s, _) = w.client(0.into());
        tokens.ask(b"k:0");
        tokens.note(b"k:0", 42);
        let cas = |s: &mut KvSource| String::from_utf8(s.write_for(1, turn(0))).unwrap();
        // Sequential keys: k:0 has a token, k:1 none, k:2 none.
        assert_eq!(
            cas(&mut s),
            "cas k:0 5 0 4 42\r\nbmxc\r\n".replace("bmxc", &value(&w))
        );
        assert_eq!(cas(&mut s), "mn\r\n");
        assert_eq!(tokens.take(b"k:0"), None, "a token is used once");
        // --preload never writes with a cas.
        assert!(w.preloader().is_none());
    }

    fn value(w: &KvWorkload) -> String {
        String::from_utf8(w.values[..4].to_vec()).unwrap()
    }
}
