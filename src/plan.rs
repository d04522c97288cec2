//! The plan: patterns resolved against the command line's defaults into encoded
//! requests, each bound to a target (scheme, host, port) whose address was resolved
//! once, before any load is sent. Also the [`Picker`] that draws the next request.
//!
//! Everything expensive happens here, once: the engine only copies prepared bytes
//! onto sockets.

use std::net::{SocketAddr, ToSocketAddrs};
use std::time::Duration;

use crate::http::encode::{encode_request, host_header};
use crate::http::url::{encode_path, split_url};
pub use crate::http::Target;
use crate::pattern::{self, Group, Pattern, PatternSet};
use crate::result::RequestInfo;
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
            allow_pattern_hosts: true,
        }
    }
}

/// One request ready to be written to a socket.
#[derive(Debug, Clone)]
pub struct PreparedRequest {
    pub target: usize,
    pub method: String,
    /// Full URL, for the slow/fast lists.
    pub url: String,
    /// The whole request (head and body) as it goes on the wire.
    pub bytes: Vec<u8>,
    pub timeout: Duration,
    /// HEAD: the response has headers only.
    pub head: bool,
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

#[derive(Debug, Clone)]
struct PlanGroup {
    /// Per pattern: one request per host it may go to (several only when it falls
    /// back to the default hosts).
    patterns: Vec<Vec<usize>>,
}

#[derive(Debug, Clone)]
pub struct Plan {
    pub source: String,
    pub targets: Vec<Target>,
    pub requests: Vec<PreparedRequest>,
    groups: Vec<PlanGroup>,
    /// Cumulative group frequencies scaled to u64, for a branch-free draw.
    thresholds: Vec<u64>,
    /// Sequential order: every (pattern, host) pair in file order.
    sequence: Vec<usize>,
    pub n_patterns: usize,
    /// Hosts patterns may name without `--allow-pattern-hosts`: `--default-hosts` and
    /// the groups' own default hosts.
    allowed_hosts: Vec<String>,
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

impl Plan {
    pub fn build(set: &PatternSet, defaults: &Defaults) -> Result<Plan, PlanError> {
        if defaults.hosts.is_empty() {
            return Err(PlanError::Invalid("--default-hosts is empty".into()));
        }
        let freqs = pattern::normalized_frequencies(&set.groups);
        let mut plan = Plan {
            source: set.source.clone(),
            targets: Vec::new(),
            requests: Vec::new(),
            groups: Vec::new(),
            thresholds: Vec::new(),
            sequence: Vec::new(),
            n_patterns: 0,
            allowed_hosts: defaults
                .hosts
                .iter()
                .map(String::as_str)
                .chain(set.groups.iter().filter_map(|g| g.defaults.host.as_deref()))
                .map(|h| unbracket(h).to_string())
                .collect(),
        };
        let mut acc = 0.0;
        for (gi, group) in set.groups.iter().enumerate() {
            let mut pg = PlanGroup {
                patterns: Vec::new(),
            };
            for (pi, p) in group.patterns.iter().enumerate() {
                let where_ = || match &group.name {
                    Some(n) => format!("group \"{n}\", pattern #{}", pi + 1),
                    None => format!("group #{}, pattern #{}", gi + 1, pi + 1),
                };
                let variants = plan.prepare(group, p, defaults).map_err(|e| match e {
                    PlanError::Invalid(m) => PlanError::Pattern {
                        source_name: set.source.clone(),
                        message: format!("{}: {m}", where_()),
                    },
                    other => other,
                })?;
                plan.sequence.extend(&variants);
                pg.patterns.push(variants);
                plan.n_patterns += 1;
            }
            if pg.patterns.is_empty() {
                continue;
            }
            acc += freqs.get(gi).copied().unwrap_or(0.0);
            plan.groups.push(pg);
            plan.thresholds
                .push((acc.min(1.0) * u64::MAX as f64) as u64);
        }
        if plan.requests.is_empty() {
            return Err(PlanError::Pattern {
                source_name: set.source.clone(),
                message: "no request patterns".into(),
            });
        }
        // Rounding must never leave the last group unreachable.
        if let Some(last) = plan.thresholds.last_mut() {
            *last = u64::MAX;
        }
        Ok(plan)
    }

    /// The requests one pattern expands to: one per host when it has no host of its own.
    fn prepare(
        &mut self,
        group: &Group,
        p: &Pattern,
        d: &Defaults,
    ) -> Result<Vec<usize>, PlanError> {
        let g = &group.defaults;
        let raw_path = p
            .path
            .clone()
            .or_else(|| g.path.clone())
            .unwrap_or_else(|| d.path.clone());
        let method = p
            .method
            .clone()
            .or_else(|| g.method.clone())
            .unwrap_or_else(|| d.method.clone())
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
        let timeout_s = p.timeout.or(g.timeout);
        let timeout = match timeout_s {
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

        // An absolute URL names its own host; otherwise the pattern's, the group's, or the defaults'.
        // Each host with where it came from and whether the pattern itself named it.
        type Hosts = Vec<(String, String, bool)>;
        let (https, hosts, port, path): (bool, Hosts, Option<u16>, String) =
            if let Some(url) = split_url(&raw_path) {
                (
                    url.https,
                    vec![(url.host, "URL".into(), true)],
                    url.port,
                    url.path,
                )
            } else if !raw_path.starts_with('/') {
                return Err(PlanError::Invalid(format!(
                    "path must start with '/' or be an http(s):// URL, found \"{raw_path}\""
                )));
            } else {
                let hosts = match (&p.host, &g.host) {
                    (Some(h), _) => vec![(h.clone(), "patterns file".into(), true)],
                    (None, Some(h)) => vec![(h.clone(), "patterns file".into(), false)],
                    (None, None) => d
                        .hosts
                        .iter()
                        .map(|h| (h.clone(), "--default-hosts".into(), false))
                        .collect(),
                };
                (d.https, hosts, p.port.or(g.port), raw_path)
            };
        let port = port.unwrap_or(if https && d.port == 80 { 443 } else { d.port });
        let path = encode_path(&path);

        let mut ids = Vec::with_capacity(hosts.len());
        for (host, origin, own) in hosts {
            let host = unbracket(&host).to_string();
            if own
                && !d.allow_pattern_hosts
                && !self
                    .allowed_hosts
                    .iter()
                    .any(|a| a.eq_ignore_ascii_case(&host))
            {
                return Err(PlanError::Invalid(format!(
                    "host \"{host}\" is not among --default-hosts or the groups' hosts; \
                     pass --allow-pattern-hosts to send load to the hosts a patterns file names"
                )));
            }
            let target = self.target_index(https, &host, port, &origin)?;
            let host_header = host_header(&host, port, https);
            let bytes = encode_request(
                &method,
                &path,
                &host_header,
                &headers,
                body.as_deref(),
                d.content_type.as_deref(),
                d.keep_alive,
            );
            let url = format!("{}{}", self.targets[target].label(), path);
            self.requests.push(PreparedRequest {
                target,
                head: method == "HEAD",
                method: method.clone(),
                url,
                bytes,
                timeout,
            });
            ids.push(self.requests.len() - 1);
        }
        Ok(ids)
    }

    fn target_index(
        &mut self,
        https: bool,
        host: &str,
        port: u16,
        origin: &str,
    ) -> Result<usize, PlanError> {
        if let Some(i) = self
            .targets
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
        self.targets.push(Target {
            https,
            host: host.to_string(),
            port,
            addrs,
        });
        Ok(self.targets.len() - 1)
    }

    pub fn target_labels(&self) -> Vec<String> {
        self.targets.iter().map(Target::label).collect()
    }

    pub fn request_infos(&self) -> Vec<RequestInfo> {
        self.requests
            .iter()
            .map(|r| RequestInfo {
                method: r.method.clone(),
                url: r.url.clone(),
            })
            .collect()
    }

    pub fn uses_tls(&self) -> bool {
        self.targets.iter().any(|t| t.https)
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
            Order::Sequential => {
                let id = plan.sequence[self.turn % plan.sequence.len()];
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
                let patterns = &plan.groups[g].patterns;
                let variants = &patterns[self.rng.below(patterns.len())];
                let v = variants[self.turn % variants.len()];
                self.turn = self.turn.wrapping_add(1);
                v
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(groups: Vec<Group>) -> PatternSet {
        PatternSet {
            source: "test".into(),
            groups,
        }
    }

    fn paths(ps: &[&str]) -> Vec<Pattern> {
        ps.iter()
            .map(|p| Pattern {
                path: Some(p.to_string()),
                ..Default::default()
            })
            .collect()
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
        let hosts: Vec<usize> = (0..4)
            .map(|_| plan.requests[p.next(&plan)].target)
            .collect();
        assert_eq!(hosts, vec![0, 1, 0, 1]);
        assert_eq!(plan.requests[0].url, "http://127.0.0.1:10041/a");
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
            .filter(|_| plan.requests[p.next(&plan)].url.ends_with("/often"))
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
            .map(|_| plan.requests[p.next(&plan)].url.clone())
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
                patterns: vec![p],
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
}
