//! The plan: patterns resolved against the command line's defaults into encoded
//! requests, each bound to a target (scheme, host, port) whose address was resolved
//! once, before any load is sent. Also the [`Picker`] that draws the next request.
//!
//! Everything expensive happens here, once: the engine only copies prepared bytes
//! onto sockets. A request is stored in encoded parts so that a million patterns fit
//! in tens of megabytes: its *frame* (the method, and everything after the path:
//! version, headers, body; shared by every request to one target with the same
//! fields), its path's shared *start* and *end* (`/d/select?...&query=`, see
//! [`pattern::split`]) and its path's own *middle* (in one arena with every other).
//! [`Plan::write_request`] joins them into a client's reused buffer.

use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::net::{SocketAddr, ToSocketAddrs};
use std::time::Duration;

use crate::http::encode::{encode_request, host_header, Persistence};
use crate::http::url::{encode_path, split_url};
pub use crate::http::Target;
use crate::pattern::{self, Entry, Group, Pattern, PatternSet};
use crate::stats::Labels;

mod labels;
use crate::result::{RequestInfo, RequestOrder};
use crate::rng::SplitMix64;

/// Defaults from the command line for whatever a pattern leaves out.
#[derive(Debug, Clone)]
pub struct Defaults {
    /// Requests without their own host go round-robin over these.
    pub hosts: Vec<String>,
    pub port: u16,
    pub path: String,
    pub method: String,
    pub timeout: Duration,
    pub https: bool,
    /// Added to every request (`-H`), after the pattern's own headers.
    pub headers: Vec<(String, String)>,
    /// Body for requests whose pattern has none (`-b`, `--body-file`).
    pub body: Option<Vec<u8>>,
    /// `-T`: Content-Type for requests with a body.
    pub content_type: Option<String>,
    pub keep_alive: bool,
    /// Speak HTTP/1.0 as ApacheBench does (`hakaru ab`).
    pub http10: bool,
    /// Whether patterns may name hosts of their own (absolute URLs, a pattern's `host`)
    /// beyond `hosts` and the groups' default hosts. Off for a patterns file unless
    /// `--allow-pattern-hosts`, so that a file from elsewhere cannot aim the load at a
    /// third party.
    pub allow_pattern_hosts: bool,
}

impl Default for Defaults {
    fn default() -> Self {
        Defaults {
            hosts: vec!["localhost".into()],
            port: 80,
            path: "/".into(),
            method: "GET".into(),
            timeout: Duration::from_secs(5),
            https: false,
            headers: Vec::new(),
            body: None,
            content_type: None,
            keep_alive: true,
            http10: false,
            allow_pattern_hosts: true,
        }
    }
}

/// The order in which clients draw requests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    /// Groups by frequency, then a pattern uniformly, from a seeded generator.
    Random,
    /// The file's order, every pattern to every host in turn, for exact replays.
    /// Frequencies are not applied.
    Sequential,
}

/// The result names the order as its own vocabulary (`result` imports nothing above it).
impl From<Order> for RequestOrder {
    fn from(o: Order) -> Self {
        match o {
            Order::Random => RequestOrder::Random,
            Order::Sequential => RequestOrder::Sequential,
        }
    }
}

/// A request's fixed parts: all but its path. Few per plan.
#[derive(Debug, Clone)]
struct Frame {
    target: usize,
    method: Box<str>,
    /// The request line up to the path: `"GET "`.
    head: Box<[u8]>,
    /// From the space after the path to the end of the body.
    tail: Box<[u8]>,
    timeout: Duration,
    /// HEAD: the response has headers only.
    is_head: bool,
}

/// One request: its frame, its path's shared start and end (in `pieces`), and where
/// its path's middle ends in the arena (it begins where the previous request's ends).
#[derive(Debug, Clone, Copy)]
struct Slot {
    frame: u32,
    start: u32,
    end: u32,
    middle_end: u64,
}

/// What the engine needs of a request besides its bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RequestMeta {
    pub target: usize,
    pub timeout: Duration,
    pub head: bool,
}

/// How a group's patterns map to requests: pattern `i`'s requests (one per host it
/// goes to) are consecutive.
#[derive(Debug, Clone)]
enum Variants {
    /// Every pattern has this many requests (the usual case: no table at all).
    Uniform(usize),
    /// Pattern `i`'s requests are `first + starts[i] .. first + starts[i + 1]`.
    Table(Vec<usize>),
}

#[derive(Debug, Clone)]
struct PlanGroup {
    first: usize,
    n_patterns: usize,
    variants: Variants,
}

impl PlanGroup {
    /// The first request of pattern `i` and how many it has.
    #[inline]
    fn pattern(&self, i: usize) -> (usize, usize) {
        match &self.variants {
            Variants::Uniform(n) => (self.first + i * n, *n),
            Variants::Table(t) => (self.first + t[i], t[i + 1] - t[i]),
        }
    }
}

#[derive(Debug, Clone)]
pub struct Plan {
    pub source: String,
    /// `sha256:<hex>` of the patterns file, if the patterns came from one.
    pub digest: Option<String>,
    pub targets: Vec<Target>,
    frames: Vec<Frame>,
    /// Shared starts and ends of paths.
    pieces: Vec<Box<[u8]>>,
    middles: Vec<u8>,
    slots: Vec<Slot>,
    groups: Vec<PlanGroup>,
    /// Cumulative group frequencies scaled to u64, for a branch-free draw.
    thresholds: Vec<u64>,
    pub n_patterns: usize,
    /// Each request's label ([`labels`]).
    labels: labels::PlanLabels,
    /// Which query parameters' values the URLs it names hide ([`Plan::redact_with`]).
    redactor: crate::redact::Redactor,
}

#[derive(Debug, thiserror::Error)]
pub enum PlanError {
    #[error("{source_name}: {message}")]
    Pattern {
        source_name: String,
        message: String,
    },
    #[error("cannot resolve host \"{host}\" ({origin}): {message}")]
    Resolve {
        host: String,
        origin: String,
        message: String,
    },
    #[error("{0}")]
    Invalid(String),
}

/// A pattern with nothing but a path: the group's and the defaults' fields apply.
const PATH_ONLY: Pattern = Pattern {
    path: None,
    method: None,
    body: None,
    host: None,
    port: None,
    timeout: None,
    headers: Vec::new(),
    name: None,
};

/// The fields a request takes from its pattern, its group and the defaults.
struct Fields {
    method: String,
    timeout: Duration,
    headers: Vec<(String, String)>,
    body: Option<Vec<u8>>,
}

impl Fields {
    fn of(g: &Pattern, p: &Pattern, d: &Defaults) -> Result<Fields, PlanError> {
        let method = p
            .method
            .as_ref()
            .or(g.method.as_ref())
            .unwrap_or(&d.method)
            .to_ascii_uppercase();
        if method.is_empty()
            || !method
                .bytes()
                .all(|b| b.is_ascii_alphabetic() || b == b'-' || b == b'_')
        {
            return Err(PlanError::Invalid(format!(
                "\"{method}\" is not an HTTP method"
            )));
        }
        let timeout = match p.timeout.or(g.timeout) {
            Some(t) if t > 0.0 && t <= crate::engine::MAX_TIMEOUT.as_secs_f64() => {
                Duration::from_secs_f64(t)
            }
            Some(t) => {
                return Err(PlanError::Invalid(format!(
                    "timeout must be positive and at most {} s, found {t}",
                    crate::engine::MAX_TIMEOUT.as_secs()
                )))
            }
            None => d.timeout,
        };
        let mut headers = g.headers.clone();
        headers.extend(p.headers.iter().cloned());
        headers.extend(d.headers.iter().cloned());
        let body = p
            .body
            .clone()
            .map(String::into_bytes)
            .or_else(|| g.body.clone().map(String::into_bytes))
            .or_else(|| d.body.clone());
        Ok(Fields {
            method,
            timeout,
            headers,
            body,
        })
    }
}

/// A strong 64-bit hash for the interning tables; a collision is checked, not trusted.
fn hash_of(x: &impl Hash) -> u64 {
    let mut h = DefaultHasher::new();
    x.hash(&mut h);
    h.finish()
}

/// What building needs and the plan does not keep.
struct Builder<'a> {
    plan: Plan,
    d: &'a Defaults,
    /// Hosts patterns may name without `--allow-pattern-hosts`: `--default-hosts` only
    /// (a group's own `"host"` comes from the file like any other).
    allowed_hosts: Vec<String>,
    frame_index: HashMap<u64, u32>,
    piece_index: HashMap<u64, u32>,
    /// The encoded path of the request added last, to cut the next one against.
    last_path: Option<String>,
    /// The current group's path-only patterns: their fields, their targets when the
    /// path is relative, and their frame per target.
    plain: Option<Fields>,
    plain_targets: Option<Vec<usize>>,
    plain_frames: HashMap<usize, u32>,
    scratch: String,
}

impl Plan {
    pub fn build(set: &PatternSet, defaults: &Defaults) -> Result<Plan, PlanError> {
        if defaults.hosts.is_empty() {
            return Err(PlanError::Invalid("--default-hosts is empty".into()));
        }
        let freqs = pattern::normalized_frequencies(&set.groups);
        let mut b = Builder {
            plan: Plan {
                source: set.source.clone(),
                digest: set.digest.clone(),
                targets: Vec::new(),
                frames: Vec::new(),
                pieces: Vec::new(),
                middles: Vec::new(),
                slots: Vec::new(),
                groups: Vec::new(),
                thresholds: Vec::new(),
                n_patterns: 0,
                labels: Default::default(),
                redactor: Default::default(),
            },
            d: defaults,
            allowed_hosts: defaults
                .hosts
                .iter()
                .map(|h| unbracket(h).to_string())
                .collect(),
            frame_index: HashMap::new(),
            piece_index: HashMap::new(),
            last_path: None,
            plain: None,
            plain_targets: None,
            plain_frames: HashMap::new(),
            scratch: String::new(),
        };
        let mut acc = 0.0;
        let mut labels = labels::Collector::new(set);
        for (gi, group) in set.groups.iter().enumerate() {
            let share = freqs.get(gi).copied().unwrap_or(0.0);
            b.plain = None;
            b.plain_targets = None;
            b.plain_frames.clear();
            let first = b.plan.slots.len();
            let mut uniform = None;
            let mut table: Vec<usize> = Vec::new();
            for (pi, entry) in group.patterns.iter().enumerate() {
                let where_ = || match &group.name {
                    Some(n) => format!("group \"{n}\", pattern #{}", pi + 1),
                    None => format!("group #{}, pattern #{}", gi + 1, pi + 1),
                };
                let before = b.plan.slots.len();
                b.prepare(group, entry).map_err(|e| match e {
                    PlanError::Invalid(m) => PlanError::Pattern {
                        source_name: set.source.clone(),
                        message: format!("{}: {m}", where_()),
                    },
                    other => other,
                })?;
                let n = b.plan.slots.len() - before;
                labels.pattern(gi, group, &entry, n, share / group.patterns.len() as f64);
                if !table.is_empty() {
                    table.push(before - first);
                } else if uniform.is_none_or(|u| u == n) {
                    uniform = Some(n);
                } else {
                    let u = uniform.unwrap_or(0);
                    table = (0..=pi).map(|i| i * u).collect();
                }
                b.plan.n_patterns += 1;
            }
            let n_patterns = group.patterns.len();
            if n_patterns == 0 {
                continue;
            }
            let variants = if table.is_empty() {
                Variants::Uniform(uniform.unwrap_or(1))
            } else {
                table.push(b.plan.slots.len() - first);
                Variants::Table(table)
            };
            acc += share;
            labels.group(gi, group, share);
            b.plan.groups.push(PlanGroup {
                first,
                n_patterns,
                variants,
            });
            b.plan
                .thresholds
                .push((acc.min(1.0) * u64::MAX as f64) as u64);
        }
        let mut plan = b.plan;
        plan.labels = labels.finish();
        if plan.slots.is_empty() {
            return Err(PlanError::Pattern {
                source_name: set.source.clone(),
                message: "no request patterns".into(),
            });
        }
        // Rounding must never leave the last group unreachable.
        if let Some(last) = plan.thresholds.last_mut() {
            *last = u64::MAX;
        }
        plan.middles.shrink_to_fit();
        plan.slots.shrink_to_fit();
        Ok(plan)
    }

    /// How many requests the plan holds (a pattern to several hosts counts once a host).
    pub fn n_requests(&self) -> usize {
        self.slots.len()
    }

    /// Request `id`'s whole bytes (head and body), as they go on the wire, into `buf`
    /// (cleared first; its allocation is reused).
    #[inline]
    pub fn write_request(&self, id: usize, buf: &mut Vec<u8>) {
        let s = self.slots[id];
        let f = &self.frames[s.frame as usize];
        buf.clear();
        buf.extend_from_slice(&f.head);
        buf.extend_from_slice(&self.pieces[s.start as usize]);
        buf.extend_from_slice(self.middle(id));
        buf.extend_from_slice(&self.pieces[s.end as usize]);
        buf.extend_from_slice(&f.tail);
    }

    #[inline]
    fn middle(&self, id: usize) -> &[u8] {
        let begin = if id == 0 {
            0
        } else {
            self.slots[id - 1].middle_end as usize
        };
        &self.middles[begin..self.slots[id].middle_end as usize]
    }

    #[inline]
    pub fn request(&self, id: usize) -> RequestMeta {
        let f = &self.frames[self.slots[id].frame as usize];
        RequestMeta {
            target: f.target,
            timeout: f.timeout,
            head: f.is_head,
        }
    }

    /// Method and full URL of request `id`, for the slow/fast lists.
    pub fn request_info(&self, id: usize) -> Option<RequestInfo> {
        let s = self.slots.get(id)?;
        let f = &self.frames[s.frame as usize];
        let mut url = self.targets[f.target].label();
        for part in [
            &self.pieces[s.start as usize][..],
            self.middle(id),
            &self.pieces[s.end as usize][..],
        ] {
            url.push_str(&String::from_utf8_lossy(part));
        }
        Some(RequestInfo {
            id: None,
            method: f.method.to_string(),
            url: self.redactor.query(&url),
        })
    }

    /// The URLs the plan names (its source, each request's) with these query
    /// parameters' values hidden; the requests sent are unchanged.
    pub fn redact_with(&mut self, redactor: crate::redact::Redactor) {
        self.source = redactor.query(&self.source);
        self.redactor = redactor;
    }

    /// The kinds of request the plan counts apart ([`labels`]); empty for one kind.
    pub fn labels(&self) -> std::sync::Arc<Labels> {
        self.labels.labels.clone()
    }

    /// The label of request `id` (0 without labels).
    #[inline]
    pub fn label(&self, id: usize) -> u16 {
        if self.labels.labels.is_empty() {
            return 0;
        }
        // The group whose requests start at or before `id` (few groups: a short search).
        self.labels.of(id, || {
            self.groups
                .partition_point(|g| g.first <= id)
                .saturating_sub(1)
        })
    }

    pub fn target_labels(&self) -> Vec<String> {
        self.targets.iter().map(Target::label).collect()
    }

    /// Method and URL of every request (`--request-list`).
    pub fn request_infos(&self) -> Vec<RequestInfo> {
        (0..self.n_requests())
            .filter_map(|id| self.request_info(id))
            .collect()
    }

    pub fn uses_tls(&self) -> bool {
        self.targets.iter().any(|t| t.https)
    }
}

/// Each host with where it came from and whether the pattern itself named it.
type Hosts = Vec<(String, &'static str, bool)>;

impl Builder<'_> {
    /// Adds the requests one pattern expands to: one per host when it has no host of
    /// its own.
    fn prepare(&mut self, group: &Group, entry: Entry<'_>) -> Result<(), PlanError> {
        let d = self.d;
        let g = &group.defaults;
        let mut path = std::mem::take(&mut self.scratch);
        path.clear();
        let (p, fields) = match entry {
            Entry::Path { start, middle, end } => {
                path.push_str(start);
                path.push_str(middle);
                path.push_str(end);
                if self.plain.is_none() {
                    self.plain = Some(Fields::of(g, &PATH_ONLY, d)?);
                }
                (&PATH_ONLY, None)
            }
            Entry::Full(p) => {
                path.push_str(p.path.as_ref().or(g.path.as_ref()).unwrap_or(&d.path));
                (p, Some(Fields::of(g, p, d)?))
            }
        };
        let plain = fields.is_none();
        // An absolute URL names its own host; otherwise the pattern's, the group's,
        // or the defaults'.
        let (targets, encoded) = if let Some(url) = split_url(&path) {
            let hosts = vec![(url.host, "URL", true)];
            let port = self.port(url.port, url.https);
            (
                self.targets(hosts, url.https, port)?,
                encode_path(&url.path),
            )
        } else if !path.starts_with('/') {
            return Err(PlanError::Invalid(format!(
                "path must start with '/' or be an http(s):// URL, found \"{path}\""
            )));
        } else if plain && self.plain_targets.is_some() {
            (
                self.plain_targets.clone().unwrap_or_default(),
                encode_path(&path),
            )
        } else {
            let hosts: Hosts = match (&p.host, &g.host) {
                (Some(h), _) => vec![(h.clone(), "patterns file", true)],
                (None, Some(h)) => vec![(h.clone(), "patterns file", true)],
                (None, None) => d
                    .hosts
                    .iter()
                    .map(|h| (h.clone(), "--default-hosts", false))
                    .collect(),
            };
            let port = self.port(p.port.or(g.port), d.https);
            let targets = self.targets(hosts, d.https, port)?;
            if plain {
                self.plain_targets = Some(targets.clone());
            }
            (targets, encode_path(&path))
        };
        self.scratch = path;
        let (a, b) = pattern::split(self.last_path.as_deref(), &encoded);
        let bytes = encoded.as_bytes();
        let start = self.intern_piece(&bytes[..a]);
        let end = self.intern_piece(&bytes[b..]);
        for target in targets {
            let frame = match &fields {
                Some(f) => self.intern_frame(target, f),
                None => match self.plain_frames.get(&target) {
                    Some(&f) => f,
                    None => {
                        let fields = self.plain.take().expect("plain fields are set");
                        let f = self.intern_frame(target, &fields);
                        self.plain = Some(fields);
                        self.plain_frames.insert(target, f);
                        f
                    }
                },
            };
            self.plan.middles.extend_from_slice(&bytes[a..b]);
            self.plan.slots.push(Slot {
                frame,
                start,
                end,
                middle_end: self.plan.middles.len() as u64,
            });
        }
        self.last_path = Some(encoded);
        Ok(())
    }

    fn port(&self, own: Option<u16>, https: bool) -> u16 {
        own.unwrap_or(if https && self.d.port == 80 {
            443
        } else {
            self.d.port
        })
    }

    fn targets(&mut self, hosts: Hosts, https: bool, port: u16) -> Result<Vec<usize>, PlanError> {
        let mut out = Vec::with_capacity(hosts.len());
        for (host, origin, own) in hosts {
            let host = unbracket(&host);
            if own
                && !self.d.allow_pattern_hosts
                && !self
                    .allowed_hosts
                    .iter()
                    .any(|a| a.eq_ignore_ascii_case(host))
            {
                return Err(PlanError::Invalid(format!(
                    "host \"{host}\" is not among --default-hosts; \
                     pass --allow-pattern-hosts to send load to the hosts a patterns file names"
                )));
            }
            out.push(self.target_index(https, host, port, origin)?);
        }
        Ok(out)
    }

    fn target_index(
        &mut self,
        https: bool,
        host: &str,
        port: u16,
        origin: &str,
    ) -> Result<usize, PlanError> {
        let targets = &mut self.plan.targets;
        if let Some(i) = targets
            .iter()
            .position(|t| t.https == https && t.host == host && t.port == port)
        {
            return Ok(i);
        }
        let addrs: Vec<SocketAddr> = (host, port)
            .to_socket_addrs()
            .map_err(|e| PlanError::Resolve {
                host: host.to_string(),
                origin: origin.to_string(),
                message: e.to_string(),
            })?
            .collect();
        if addrs.is_empty() {
            return Err(PlanError::Resolve {
                host: host.to_string(),
                origin: origin.to_string(),
                message: "no addresses".into(),
            });
        }
        targets.push(Target {
            https,
            host: host.to_string(),
            port,
            addrs,
            proto: crate::http::Proto::Http,
        });
        Ok(targets.len() - 1)
    }

    fn intern_piece(&mut self, piece: &[u8]) -> u32 {
        let key = hash_of(&piece);
        if let Some(&id) = self.piece_index.get(&key) {
            if &*self.plan.pieces[id as usize] == piece {
                return id;
            }
        }
        let id = self.plan.pieces.len() as u32;
        self.plan.pieces.push(piece.into());
        self.piece_index.entry(key).or_insert(id);
        id
    }

    /// The frame of a request to `target` with these fields, encoded once per distinct
    /// frame: the request encoded with an empty path, cut where the path goes.
    fn intern_frame(&mut self, target: usize, f: &Fields) -> u32 {
        let t = &self.plan.targets[target];
        let bytes = encode_request(
            &f.method,
            "",
            &host_header(&t.host, t.port, t.https),
            &f.headers,
            f.body.as_deref(),
            self.d.content_type.as_deref(),
            Persistence {
                keep_alive: self.d.keep_alive,
                http10: self.d.http10,
            },
        );
        let (head, tail) = bytes.split_at(f.method.len() + 1);
        let key = hash_of(&(target, f.timeout, &bytes));
        if let Some(&id) = self.frame_index.get(&key) {
            let old = &self.plan.frames[id as usize];
            if old.target == target
                && old.timeout == f.timeout
                && *old.head == *head
                && *old.tail == *tail
            {
                return id;
            }
        }
        let id = self.plan.frames.len() as u32;
        self.plan.frames.push(Frame {
            target,
            method: f.method.as_str().into(),
            head: head.into(),
            tail: tail.into(),
            timeout: f.timeout,
            is_head: f.method == "HEAD",
        });
        self.frame_index.entry(key).or_insert(id);
        id
    }
}

/// An IPv6 address without the brackets a URL puts around it.
fn unbracket(host: &str) -> &str {
    host.trim_start_matches('[').trim_end_matches(']')
}

/// Draws requests for one client. Each client has its own, so nothing is shared.
#[derive(Debug, Clone)]
pub struct Picker {
    order: Order,
    rng: SplitMix64,
    /// Round-robin over a pattern's hosts; sequential cursor.
    turn: usize,
}

impl Picker {
    /// Clients start at different places so that, together, hosts and (in sequential
    /// order) patterns are covered evenly from the first request.
    pub fn new(order: Order, seed: u64, client: usize) -> Self {
        let mix =
            SplitMix64::new(seed ^ (client as u64).wrapping_mul(0xA24B_AED4_963E_E407)).next_u64();
        Picker {
            order,
            rng: SplitMix64::new(mix),
            turn: client,
        }
    }

    #[inline]
    pub fn next(&mut self, plan: &Plan) -> usize {
        match self.order {
            // Requests are numbered in file order, every host of a pattern in turn.
            Order::Sequential => {
                let id = self.turn % plan.slots.len();
                self.turn = self.turn.wrapping_add(1);
                id
            }
            Order::Random => {
                let g = if plan.groups.len() == 1 {
                    0
                } else {
                    let x = self.rng.next_u64();
                    plan.thresholds
                        .partition_point(|&t| t < x)
                        .min(plan.groups.len() - 1)
                };
                let group = &plan.groups[g];
                let (first, n) = group.pattern(self.rng.below(group.n_patterns));
                let v = first + self.turn % n;
                self.turn = self.turn.wrapping_add(1);
                v
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::encode::encode_request;
    use crate::pattern::Patterns;

    fn set(groups: Vec<Group>) -> PatternSet {
        PatternSet {
            source: "test".into(),
            groups,
            digest: None,
        }
    }

    fn paths(ps: &[&str]) -> Patterns {
        ps.iter()
            .map(|p| Pattern {
                path: Some(p.to_string()),
                ..Default::default()
            })
            .collect::<Vec<_>>()
            .into()
    }

    fn defaults(hosts: &[&str]) -> Defaults {
        Defaults {
            hosts: hosts.iter().map(|h| h.to_string()).collect(),
            port: 10041,
            ..Defaults::default()
        }
    }

    #[test]
    fn default_hosts_round_robin() {
        let plan = Plan::build(
            &set(vec![Group {
                patterns: paths(&["/a"]),
                ..Default::default()
            }]),
            &defaults(&["127.0.0.1", "127.0.0.2"]),
        )
        .unwrap();
        assert_eq!(plan.targets.len(), 2);
        let mut p = Picker::new(Order::Random, 1, 0);
        let hosts: Vec<usize> = (0..4).map(|_| plan.request(p.next(&plan)).target).collect();
        assert_eq!(hosts, vec![0, 1, 0, 1]);
        assert_eq!(
            plan.request_info(0).unwrap().url,
            "http://127.0.0.1:10041/a"
        );
    }

    #[test]
    fn own_host_and_url_patterns_keep_their_host() {
        let mut pats = paths(&["http://127.0.0.3:8080/x"]);
        pats.push(Pattern {
            path: Some("/y".into()),
            host: Some("127.0.0.4".into()),
            port: Some(81),
            ..Default::default()
        });
        let plan = Plan::build(
            &set(vec![Group {
                patterns: pats,
                ..Default::default()
            }]),
            &defaults(&["127.0.0.1", "127.0.0.2"]),
        )
        .unwrap();
        let labels = plan.target_labels();
        assert_eq!(labels, vec!["http://127.0.0.3:8080", "http://127.0.0.4:81"]);
    }

    #[test]
    fn frequencies_shape_the_draw() {
        let g1 = Group {
            frequency: Some(0.9),
            patterns: paths(&["/often"]),
            ..Default::default()
        };
        let g2 = Group {
            frequency: Some(0.1),
            patterns: paths(&["/rarely"]),
            ..Default::default()
        };
        let plan = Plan::build(&set(vec![g1, g2]), &defaults(&["127.0.0.1"])).unwrap();
        let mut p = Picker::new(Order::Random, 42, 0);
        let n = 100_000;
        let often = (0..n)
            .filter(|_| {
                plan.request_info(p.next(&plan))
                    .unwrap()
                    .url
                    .ends_with("/often")
            })
            .count();
        let share = often as f64 / n as f64;
        assert!((share - 0.9).abs() < 0.01, "share {share}");
    }

    #[test]
    fn same_seed_same_requests() {
        let plan = Plan::build(
            &set(vec![Group {
                patterns: paths(&["/a", "/b", "/c", "/d"]),
                ..Default::default()
            }]),
            &defaults(&["127.0.0.1"]),
        )
        .unwrap();
        let draw = |seed| {
            let mut p = Picker::new(Order::Random, seed, 3);
            (0..50).map(|_| p.next(&plan)).collect::<Vec<_>>()
        };
        assert_eq!(draw(7), draw(7));
        assert_ne!(draw(7), draw(8));
    }

    #[test]
    fn sequential_replays_file_order_over_every_host() {
        let plan = Plan::build(
            &set(vec![Group {
                patterns: paths(&["/a", "/b"]),
                ..Default::default()
            }]),
            &defaults(&["127.0.0.1", "127.0.0.2"]),
        )
        .unwrap();
        let mut p = Picker::new(Order::Sequential, 0, 0);
        let urls: Vec<String> = (0..5)
            .map(|_| plan.request_info(p.next(&plan)).unwrap().url)
            .collect();
        assert_eq!(
            urls,
            vec![
                "http://127.0.0.1:10041/a",
                "http://127.0.0.2:10041/a",
                "http://127.0.0.1:10041/b",
                "http://127.0.0.2:10041/b",
                "http://127.0.0.1:10041/a"
            ]
        );
    }

    #[test]
    fn joined_requests_are_the_whole_encoding() {
        let mut pats = paths(&["/d/select?q=a", "/d/select?q=b", "http://127.0.0.3:81/x/é"]);
        pats.push(Pattern {
            path: Some("/post".into()),
            method: Some("post".into()),
            body: Some("{\"a\":1}".into()),
            headers: vec![("X-A".into(), "1".into())],
            ..Default::default()
        });
        let d = Defaults {
            content_type: Some("application/json".into()),
            keep_alive: false,
            ..defaults(&["127.0.0.1", "127.0.0.2"])
        };
        let plan = Plan::build(
            &set(vec![Group {
                patterns: pats,
                ..Default::default()
            }]),
            &d,
        )
        .unwrap();
        // Two hosts for each relative path, one for the URL.
        assert_eq!(plan.n_requests(), 7);
        let want = |method: &str,
                    host: &str,
                    path: &str,
                    headers: &[(String, String)],
                    body: Option<&[u8]>| {
            encode_request(
                method,
                path,
                host,
                headers,
                body,
                Some("application/json"),
                Persistence::http11(false),
            )
        };
        let cases = [
            (
                0,
                want("GET", "127.0.0.1:10041", "/d/select?q=a", &[], None),
            ),
            (
                3,
                want("GET", "127.0.0.2:10041", "/d/select?q=b", &[], None),
            ),
            (4, want("GET", "127.0.0.3:81", "/x/%C3%A9", &[], None)),
            (
                6,
                want(
                    "POST",
                    "127.0.0.2:10041",
                    "/post",
                    &[("X-A".into(), "1".into())],
                    Some(b"{\"a\":1}"),
                ),
            ),
        ];
        let mut buf = Vec::new();
        for (id, bytes) in cases {
            plan.write_request(id, &mut buf);
            assert_eq!(
                String::from_utf8_lossy(&buf),
                String::from_utf8_lossy(&bytes),
                "request {id}"
            );
        }
        assert_eq!(
            plan.request_info(4).unwrap().url,
            "http://127.0.0.3:81/x/%C3%A9"
        );
        assert_eq!(plan.request_info(6).unwrap().method, "POST");
        // Patterns with different numbers of hosts are each drawn whole.
        let mut p = Picker::new(Order::Random, 5, 0);
        let mut seen = [0; 7];
        for _ in 0..7000 {
            seen[p.next(&plan)] += 1;
        }
        assert!(seen.iter().all(|&n| n > 500), "{seen:?}");
    }

    #[test]
    fn unresolvable_host_is_named() {
        let err = Plan::build(
            &set(vec![Group {
                patterns: paths(&["/a"]),
                ..Default::default()
            }]),
            &defaults(&["no-such-host.invalid"]),
        )
        .unwrap_err();
        let msg = err.to_string();
        assert!(
            msg.contains("no-such-host.invalid") && msg.contains("--default-hosts"),
            "{msg}"
        );
    }

    #[test]
    fn bad_method_names_the_pattern() {
        let p = Pattern {
            path: Some("/a".into()),
            method: Some("GE T".into()),
            ..Default::default()
        };
        let err = Plan::build(
            &set(vec![Group {
                name: Some("search".into()),
                patterns: vec![p].into(),
                ..Default::default()
            }]),
            &defaults(&["127.0.0.1"]),
        )
        .unwrap_err();
        assert!(
            err.to_string().contains("group \"search\", pattern #1"),
            "{err}"
        );
    }

    #[test]
    fn group_host_not_on_the_command_line_needs_allow_pattern_hosts() {
        let group = |host: &str| {
            set(vec![Group {
                defaults: Pattern {
                    host: Some(host.into()),
                    ..Default::default()
                },
                patterns: paths(&["/x", "http://127.0.0.2:1/y"]),
                ..Default::default()
            }])
        };
        let strict = Defaults {
            allow_pattern_hosts: false,
            ..defaults(&["127.0.0.1"])
        };
        let err = Plan::build(&group("127.0.0.2"), &strict).unwrap_err();
        assert!(
            err.to_string().contains("\"127.0.0.2\"") && err.to_string().contains("--allow"),
            "{err}"
        );
        // Named on the command line, or allowed: the group's host takes load.
        let named = Defaults {
            allow_pattern_hosts: false,
            ..defaults(&["127.0.0.1", "127.0.0.2"])
        };
        assert!(Plan::build(&group("127.0.0.2"), &named).is_ok());
        let allowed = Defaults {
            allow_pattern_hosts: true,
            ..strict
        };
        assert!(Plan::build(&group("127.0.0.2"), &allowed).is_ok());
    }
}
