//! The basic target's deterministic endpoints: fixed answers, sized bodies, delays and
//! chosen statuses, so a benchmark of hakaru itself (or a demo, or a test) knows
//! exactly what the server did.
//!
//! | path | answer |
//! |---|---|
//! | `/` | 200 `hakaru target\n` (any method) |
//! | `/bytes/N` | 200 with exactly N deterministic bytes (N ≤ 64 MiB) |
//! | `/delay/MS` | 200 after MS milliseconds (≤ 10 minutes) |
//! | `/status/CODE` | that status, 200–599 (204 and 304 without a body) |
//! | `/echo` | 200 with the request body |
//! | `/headers` | 200 with the request headers, one `name: value` line each |
//! | `/stats` | `{"connections": N, "requests": N}` of this server |
//! | `/work?ms=MS` | 200 after MS ms of one of `--workers` workers, first come first served: capacity = workers ÷ MS ([`super::basic_work`]) |
//! | `/cached?key=K`, `/cached/clear`, `/cached/reboot`, `/cached/stats` | a cache in front of a page cache in front of a slow store ([`super::cache`]) |
//! | anything else | 404 |
//!
//! `?close=1` on any of them closes the connection after the answer.

use std::net::SocketAddr;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use bytes::Bytes;

use super::handler::{Handler, HeaderMap, Request, Response};
use super::listen::{RunningServer, ServerOptions, ServerStats};

/// Largest `/bytes/N`.
pub const MAX_BYTES: usize = 64 * 1024 * 1024;
/// Longest `/delay/MS`.
pub const MAX_DELAY: Duration = Duration::from_secs(600);

/// The body of `/`.
pub const ROOT_BODY: &str = "hakaru target\n";

/// `/bytes/N` repeats this 64-byte line, so any prefix is predictable and readable.
const BYTES_LINE: &[u8; 64] = b"hakaru 0123456789 abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQR\n";

/// `/bytes/N` up to this size is a slice of one shared buffer (no allocation per
/// answer); larger bodies are built for their request (their transfer costs more).
const SHARED_BYTES: usize = 1024 * 1024;

/// The deterministic endpoints. Holds the server's counters for `/stats`.
pub struct BasicTarget {
    stats: Arc<ServerStats>,
    work: super::basic_work::WorkPool,
    cached: super::cache::CachedService,
}

impl BasicTarget {
    /// `stats` must be the counters of the server this target runs in (see
    /// [`RunningServer::start_with_stats`]), or `/stats` reports someone else's.
    pub fn new(stats: Arc<ServerStats>) -> BasicTarget {
        BasicTarget::with_workers(stats, 1)
    }

    /// With `workers` workers behind `/work`.
    pub fn with_workers(stats: Arc<ServerStats>, workers: usize) -> BasicTarget {
        BasicTarget {
            stats,
            work: super::basic_work::WorkPool::new(workers),
            cached: super::cache::CachedService::default(),
        }
    }

    fn route(&self, req: &Request<'_>) -> Response {
        match req.path {
            "/" => Response::text(200, ROOT_BODY),
            "/echo" => Response::new(200, "application/octet-stream", req.body.clone()),
            "/headers" => Response::text(200, headers_text(req.headers)),
            "/stats" => Response::json(
                200,
                format!(
                    "{{\"connections\": {}, \"requests\": {}}}\n",
                    self.stats.connections(),
                    self.stats.requests()
                ),
            ),
            "/work" => match super::basic_work::work_time(req.query) {
                Ok(service) => {
                    let mut resp = Response::text(200, "worked\n");
                    resp.delay = Some(self.work.reserve(std::time::Instant::now(), service));
                    resp
                }
                Err(why) => Response::text(400, why),
            },
            path if path.starts_with("/cached") => self
                .cached
                .route(req)
                .unwrap_or_else(|| Response::text(404, format!("no endpoint at {path}\n"))),
            path => {
                if let Some(n) = path.strip_prefix("/bytes/") {
                    bytes(n)
                } else if let Some(ms) = path.strip_prefix("/delay/") {
                    delay(ms)
                } else if let Some(code) = path.strip_prefix("/status/") {
                    status(code)
                } else {
                    Response::text(404, format!("no endpoint at {path}\n"))
                }
            }
        }
    }
}

impl Handler for BasicTarget {
    fn handle(&self, req: &Request<'_>) -> Response {
        let mut resp = self.route(req);
        if wants_close(req.query) {
            resp.close = true;
        }
        resp
    }

    /// Only with `--memcached`, whose `/cached` waits on a socket.
    fn may_block(&self) -> bool {
        self.cached.blocks()
    }
}

/// Starts a [`BasicTarget`] on `bind` with its own counters: what `hakaru serve`,
/// `hakaru demo` and the tests run.
pub fn start_basic(bind: SocketAddr, opts: ServerOptions) -> std::io::Result<RunningServer> {
    start_basic_with_workers(bind, opts, 1)
}

/// [`start_basic`] with `workers` workers behind `/work` (`hakaru serve --workers`).
pub fn start_basic_with_workers(
    bind: SocketAddr,
    opts: ServerOptions,
    workers: usize,
) -> std::io::Result<RunningServer> {
    start_basic_with_memcached(bind, opts, workers, None)
}

/// [`start_basic_with_workers`], with a real memcached as `/cached`'s cache when given
/// (`hakaru serve --memcached ADDR`).
pub fn start_basic_with_memcached(
    bind: SocketAddr,
    opts: ServerOptions,
    workers: usize,
    memcached: Option<SocketAddr>,
) -> std::io::Result<RunningServer> {
    let stats = Arc::new(ServerStats::default());
    let mut target = BasicTarget::with_workers(stats.clone(), workers);
    if let Some(addr) = memcached {
        target.cached = super::cache::CachedService::with_memcached(addr);
    }
    RunningServer::start_with_stats(bind, Arc::new(target), opts, stats)
}

fn bytes(n: &str) -> Response {
    match n.parse::<usize>() {
        Ok(n) if n <= MAX_BYTES => Response::new(200, "application/octet-stream", pattern_bytes(n)),
        Ok(_) => Response::text(
            400,
            format!("/bytes/{n}: more than the cap of {MAX_BYTES} bytes\n"),
        ),
        Err(_) => Response::text(400, format!("/bytes/{n}: not a byte count\n")),
    }
}

fn delay(ms: &str) -> Response {
    match ms.parse::<u64>() {
        Ok(ms) if u128::from(ms) <= MAX_DELAY.as_millis() => {
            let mut resp = Response::text(200, "delayed\n");
            resp.delay = Some(Duration::from_millis(ms));
            resp
        }
        Ok(_) => Response::text(
            400,
            format!(
                "/delay/{ms}: more than the cap of {} ms\n",
                MAX_DELAY.as_millis()
            ),
        ),
        Err(_) => Response::text(400, format!("/delay/{ms}: not a number of milliseconds\n")),
    }
}

fn status(code: &str) -> Response {
    match code.parse::<u16>() {
        Ok(status @ (204 | 304)) => Response::text(status, ""),
        Ok(status @ 200..=599) => Response::text(status, format!("status {status}\n")),
        _ => Response::text(
            400,
            format!("/status/{code}: not a final status code (200-599)\n"),
        ),
    }
}

/// `?close=1` (or `close=true`) anywhere in the query string.
fn wants_close(query: &str) -> bool {
    !query.is_empty()
        && query
            .split('&')
            .any(|kv| kv == "close=1" || kv == "close=true")
}

fn headers_text(headers: &HeaderMap) -> String {
    let mut text = String::new();
    for (name, value) in headers {
        text.push_str(name.as_str());
        text.push_str(": ");
        text.push_str(&String::from_utf8_lossy(value.as_bytes()));
        text.push('\n');
    }
    text
}

/// The first `n` bytes of the repeated [`BYTES_LINE`]: a slice of the shared buffer
/// when it is long enough.
fn pattern_bytes(n: usize) -> Bytes {
    static SHARED: OnceLock<Bytes> = OnceLock::new();
    if n <= SHARED_BYTES {
        SHARED
            .get_or_init(|| Bytes::from(deterministic_bytes(SHARED_BYTES)))
            .slice(..n)
    } else {
        Bytes::from(deterministic_bytes(n))
    }
}

/// N bytes of [`BYTES_LINE`] repeated; doubling copies keep a large N cheap.
pub fn deterministic_bytes(n: usize) -> Vec<u8> {
    let mut body = Vec::with_capacity(n);
    body.extend_from_slice(&BYTES_LINE[..n.min(BYTES_LINE.len())]);
    while body.len() < n {
        let more = body.len().min(n - body.len());
        body.extend_from_within(..more);
    }
    body
}

#[cfg(test)]
mod tests {
    use super::*;

    fn get(target: &BasicTarget, target_uri: &str) -> Response {
        let (path, query) = target_uri.split_once('?').unwrap_or((target_uri, ""));
        target.handle(&Request {
            method: "GET",
            path,
            query,
            headers: &HeaderMap::new(),
            body: &Bytes::new(),
        })
    }

    fn target() -> BasicTarget {
        BasicTarget::new(Arc::new(ServerStats::default()))
    }

    #[test]
    fn root_answers_a_fixed_body() {
        let resp = get(&target(), "/");
        assert_eq!(
            (resp.status, resp.body.as_ref()),
            (200, ROOT_BODY.as_bytes())
        );
        assert!(!resp.close);
    }

    #[test]
    fn bytes_are_exact_deterministic_and_capped() {
        for n in [
            0,
            1,
            63,
            64,
            65,
            1000,
            100_000,
            SHARED_BYTES,
            SHARED_BYTES + 1,
        ] {
            let resp = get(&target(), &format!("/bytes/{n}"));
            assert_eq!(resp.status, 200);
            assert_eq!(resp.body.len(), n);
            assert!(resp
                .body
                .iter()
                .enumerate()
                .all(|(i, &b)| b == BYTES_LINE[i % 64]));
        }
        assert_eq!(
            get(&target(), &format!("/bytes/{MAX_BYTES}")).body.len(),
            MAX_BYTES
        );
        let over = get(&target(), &format!("/bytes/{}", MAX_BYTES + 1));
        assert_eq!(over.status, 400);
        assert!(String::from_utf8_lossy(&over.body).contains("cap"));
        assert_eq!(get(&target(), "/bytes/x").status, 400);
        assert_eq!(get(&target(), "/bytes/-1").status, 400);
    }

    #[test]
    fn delay_is_left_to_the_server_and_capped() {
        let resp = get(&target(), "/delay/50");
        assert_eq!(resp.status, 200);
        assert_eq!(resp.delay, Some(Duration::from_millis(50)));
        assert_eq!(get(&target(), "/delay/600000").status, 200);
        assert_eq!(get(&target(), "/delay/600001").status, 400);
        assert_eq!(get(&target(), "/delay/soon").status, 400);
    }

    #[test]
    fn status_codes_pass_through_and_bodiless_ones_are_empty() {
        assert_eq!(get(&target(), "/status/503").status, 503);
        assert_eq!(get(&target(), "/status/200").status, 200);
        for code in [204, 304] {
            let resp = get(&target(), &format!("/status/{code}"));
            assert_eq!(resp.status, code);
            assert!(resp.body.is_empty());
        }
        for bad in ["100", "199", "600", "abc", ""] {
            assert_eq!(
                get(&target(), &format!("/status/{bad}")).status,
                400,
                "{bad}"
            );
        }
    }

    #[test]
    fn close_switch_in_the_query() {
        assert!(get(&target(), "/?close=1").close);
        assert!(get(&target(), "/bytes/3?a=b&close=true").close);
        assert!(!get(&target(), "/?close=0").close);
        assert!(!get(&target(), "/?closed=1").close);
    }

    #[test]
    fn echo_headers_stats_and_unknown_paths() {
        let t = target();
        let mut headers = HeaderMap::new();
        headers.insert("X-Test", "yes".parse().unwrap());
        let resp = t.handle(&Request {
            method: "POST",
            path: "/echo",
            query: "",
            headers: &headers,
            body: &Bytes::from_static(b"payload"),
        });
        assert_eq!(resp.body, &b"payload"[..]);
        let resp = t.handle(&Request {
            method: "GET",
            path: "/headers",
            query: "",
            headers: &headers,
            body: &Bytes::new(),
        });
        assert_eq!(resp.body, &b"x-test: yes\n"[..]);
        let stats = get(&t, "/stats");
        assert_eq!(stats.content_type, "application/json");
        let v: serde_json::Value = serde_json::from_slice(&stats.body).unwrap();
        assert_eq!(v["connections"], 0);
        assert_eq!(v["requests"], 0);
        assert_eq!(get(&t, "/nope").status, 404);
    }
}
