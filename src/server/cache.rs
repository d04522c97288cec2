//! A cache-backed service in the basic target, so Sekka's three measurements (nothing
//! cached after a reboot; every answer in memcached; memcached cleared while the OS
//! page cache is still warm) can be made with nothing installed. `GET /cached?key=K`
//! answers K's value through two layers in front of a slow store:
//!
//! | state of K | what it costs | counted as |
//! |---|---|---|
//! | in the cache (memcached's part) | nothing | `hits` |
//! | not cached, its page in memory (the page cache's part) | [`COMPUTE`]: the answer is worked out again | `misses`, `page_hits` |
//! | neither | [`DISK`] + [`COMPUTE`]: the page is read from "disk" first | `misses`, `disk_reads` |
//!
//! A miss fills both layers. `/cached/clear` empties the cache and keeps the pages
//! (memcached restarted), `/cached/reboot` empties both (the machine rebooted), and
//! `/cached/stats` answers the counters as JSON (`--probe url=/cached/stats,…` reads
//! them around each step). The costs are delays on the server's precise timer, not
//! work: they hold no thread, so the service's answers differ by its state alone.
//! `serve --memcached ADDR` puts a real memcached in the cache's place
//! ([`super::cache_memcached`]): hits are its hits, and clearing is its `flush_all`.

use std::collections::{HashMap, HashSet};
use std::sync::Mutex;
use std::time::Duration;

use bytes::Bytes;

use super::handler::{Request, Response};

/// A page read from "disk" (not in the page cache).
pub const DISK: Duration = Duration::from_millis(12);
/// The answer worked out from its page (a cache miss).
pub const COMPUTE: Duration = Duration::from_millis(3);
/// Longest key, as memcached's.
pub const MAX_KEY: usize = 250;
/// Entries each layer holds at most; past it an arbitrary one is dropped, so memory
/// stays bounded whatever keys a load sends.
pub const MAX_ENTRIES: usize = 1_000_000;

#[derive(Default)]
struct State {
    cache: HashMap<String, Bytes>,
    pages: HashSet<String>,
    hits: u64,
    misses: u64,
    page_hits: u64,
    disk_reads: u64,
}

/// The cache, the page cache and their counters.
#[derive(Default)]
pub struct CachedService {
    state: Mutex<State>,
    /// `serve --memcached`: a real memcached as the cache instead of `State::cache`.
    front: Option<super::cache_memcached::Memcached>,
}

impl CachedService {
    /// With a real memcached at `addr` as its cache.
    pub fn with_memcached(addr: std::net::SocketAddr) -> CachedService {
        CachedService {
            front: Some(super::cache_memcached::Memcached::new(addr)),
            ..CachedService::default()
        }
    }

    /// True when answers wait on memcached (blocking I/O on the server's thread).
    pub fn blocks(&self) -> bool {
        self.front.is_some()
    }

    /// The answer for a path under `/cached`, or `None` for any other path.
    pub fn route(&self, req: &Request<'_>) -> Option<Response> {
        let resp = match req.path {
            "/cached" => self.get(req.query),
            "/cached/clear" => match self.flush() {
                Err(why) => Response::text(502, why + "\n"),
                Ok(()) => {
                    let mut s = self.lock();
                    let n = s.cache.len();
                    s.cache.clear();
                    Response::text(200, format!("cleared {n} cached answers; pages kept\n"))
                }
            },
            "/cached/reboot" => match self.flush() {
                Err(why) => Response::text(502, why + "\n"),
                Ok(()) => {
                    let mut s = self.lock();
                    let (n, p) = (s.cache.len(), s.pages.len());
                    s.cache.clear();
                    s.pages.clear();
                    Response::text(200, format!("cleared {n} cached answers and {p} pages\n"))
                }
            },
            "/cached/stats" => {
                let s = self.lock();
                Response::json(
                    200,
                    format!(
                        "{{\"hits\": {}, \"misses\": {}, \"page_hits\": {}, \"disk_reads\": {}, \
                         \"entries\": {}, \"pages\": {}}}\n",
                        s.hits,
                        s.misses,
                        s.page_hits,
                        s.disk_reads,
                        s.cache.len(),
                        s.pages.len()
                    ),
                )
            }
            _ => return None,
        };
        Some(resp)
    }

    /// `flush_all` on the real memcached, when there is one.
    fn flush(&self) -> Result<(), String> {
        self.front.as_ref().map_or(Ok(()), |m| m.flush_all())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn get(&self, query: &str) -> Response {
        let Some(key) = query
            .split('&')
            .find_map(|kv| kv.strip_prefix("key="))
            .filter(|k| !k.is_empty())
        else {
            return Response::text(400, "/cached: give ?key=K\n");
        };
        if key.len() > MAX_KEY {
            return Response::text(400, format!("/cached: a key is at most {MAX_KEY} bytes\n"));
        }
        let cached = match &self.front {
            // Asked outside the lock: memcached answers many clients at once.
            Some(m) => match m.get(key) {
                Ok(v) => v.map(Bytes::from),
                Err(why) => return Response::text(502, why + "\n"),
            },
            None => self.lock().cache.get(key).cloned(),
        };
        let mut s = self.lock();
        if let Some(body) = cached {
            s.hits += 1;
            return Response::text(200, body);
        }
        s.misses += 1;
        let mut cost = COMPUTE;
        if s.pages.contains(key) {
            s.page_hits += 1;
        } else {
            s.disk_reads += 1;
            cost += DISK;
            bounded(&mut s.pages);
            s.pages.insert(key.to_string());
        }
        let value = Bytes::from(format!("value of {key}\n"));
        if let Some(m) = &self.front {
            drop(s);
            if let Err(why) = m.set(key, &value) {
                return Response::text(502, why + "\n");
            }
        } else {
            if s.cache.len() >= MAX_ENTRIES {
                if let Some(k) = s.cache.keys().next().cloned() {
                    s.cache.remove(&k);
                }
            }
            s.cache.insert(key.to_string(), value.clone());
        }
        let mut resp = Response::text(200, value);
        resp.delay = Some(cost);
        resp
    }
}

fn bounded(set: &mut HashSet<String>) {
    if set.len() >= MAX_ENTRIES {
        if let Some(k) = set.iter().next().cloned() {
            set.remove(&k);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ask(svc: &CachedService, path: &str, query: &str) -> Response {
        let headers = hyper::HeaderMap::new();
        let body = Bytes::new();
        let req = Request {
            method: "GET",
            path,
            query,
            headers: &headers,
            body: &body,
        };
        svc.route(&req).expect("a /cached path")
    }

    fn stats(svc: &CachedService) -> String {
        String::from_utf8(ask(svc, "/cached/stats", "").body.to_vec()).unwrap()
    }

    #[test]
    fn the_three_states_cost_what_the_cache_says() {
        let svc = CachedService::default();
        // Cold: the page comes from disk.
        let r = ask(&svc, "/cached", "key=a");
        assert_eq!((r.status, r.delay), (200, Some(DISK + COMPUTE)));
        assert_eq!(&r.body[..], b"value of a\n");
        // Warm: a hit costs nothing.
        assert_eq!(ask(&svc, "/cached", "key=a").delay, None);
        // The cache cleared, the page kept: the answer is worked out again.
        ask(&svc, "/cached/clear", "");
        assert_eq!(ask(&svc, "/cached", "key=a").delay, Some(COMPUTE));
        // A reboot loses the pages too.
        ask(&svc, "/cached/reboot", "");
        assert_eq!(ask(&svc, "/cached", "key=a").delay, Some(DISK + COMPUTE));
        assert_eq!(
            stats(&svc),
            "{\"hits\": 1, \"misses\": 3, \"page_hits\": 1, \"disk_reads\": 2, \"entries\": 1, \"pages\": 1}\n"
        );
    }

    #[test]
    fn a_missing_or_long_key_is_refused() {
        let svc = CachedService::default();
        assert_eq!(ask(&svc, "/cached", "").status, 400);
        assert_eq!(
            ask(&svc, "/cached", &format!("key={}", "k".repeat(251))).status,
            400
        );
        let other = Request {
            method: "GET",
            path: "/elsewhere",
            query: "",
            headers: &hyper::HeaderMap::new(),
            body: &Bytes::new(),
        };
        assert!(svc.route(&other).is_none());
    }
}
