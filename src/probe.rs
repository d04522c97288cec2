//! Probes: the server's own numbers, read before and after each step on every host,
//! so a report can say what the server saw (its cache hit rate, its query count)
//! next to what the client measured; and a local server process's CPU and memory,
//! sampled from `/proc` while a step runs.
//!
//! A probe that fails never stops the run: its result says why it is empty.
//!
//! SQL databases (`--probe postgres`, `--probe mysql`) are read apart from the
//! hosts, from each SQL target of the run ([`sql`]).

mod sql;

pub use sql::{databases, missing};

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::http;
use crate::result::{ProbeResult, ProcessUse};
use crate::sysinfo;

/// What to read from each host.
#[derive(Debug, Clone, PartialEq)]
pub enum ProbeKind {
    /// Groonga `/d/status`: `n_queries` and `cache_hit_rate` (a percentage, cumulative since start).
    Groonga,
    /// droonga-http-server `/statistics/cache`: `nHits` and `nGets`.
    Droonga,
    /// CouchDB `/_node/_local/_stats/couchdb`: reads, writes, HTTP requests.
    CouchDb,
    /// Redis `INFO`: commands, keyspace hits and misses, memory, evictions, clients
    /// (`n_queries` = hits + misses, `cache_hits` = hits, so the step has a hit rate).
    Redis,
    /// memcached `stats`: gets, sets, hits, misses, evictions, items, bytes
    /// (`n_queries` = `cmd_get`, `cache_hits` = `get_hits`).
    Memcached,
    /// PostgreSQL `pg_stat_database`, the target database's row: commits, rollbacks,
    /// blocks read and hit (a step's `cache_hit_rate` is the buffer cache's),
    /// deadlocks, temporary bytes and files, rows returned, fetched, inserted,
    /// updated and deleted.
    Postgres,
    /// MySQL/MariaDB `SHOW GLOBAL STATUS`: statements by kind (`Com_select`,
    /// `Com_insert`, `Com_update`, `Com_delete`, `Com_commit`, `Com_rollback`),
    /// `Questions`, `Threads_connected`, InnoDB's rows and its buffer pool's reads
    /// from disk against its read requests (the step's `cache_hit_rate`).
    Mysql,
    /// Any number in a JSON answer, by JSON pointer (RFC 6901).
    Url {
        path: String,
        pointer: String,
        name: String,
    },
}

impl ProbeKind {
    pub fn name(&self) -> String {
        match self {
            ProbeKind::Groonga => "groonga".into(),
            ProbeKind::Droonga => "droonga".into(),
            ProbeKind::CouchDb => "couchdb".into(),
            ProbeKind::Redis => "redis".into(),
            ProbeKind::Memcached => "memcached".into(),
            ProbeKind::Postgres => "postgres".into(),
            ProbeKind::Mysql => "mysql".into(),
            ProbeKind::Url { name, .. } => name.clone(),
        }
    }

    fn path(&self) -> &str {
        match self {
            ProbeKind::Groonga => "/d/status",
            ProbeKind::Droonga => "/statistics/cache",
            ProbeKind::CouchDb => "/_node/_local/_stats/couchdb",
            ProbeKind::Redis | ProbeKind::Memcached | ProbeKind::Postgres | ProbeKind::Mysql => "",
            ProbeKind::Url { path, .. } => path,
        }
    }

    /// The numbers this probe reads from an answer.
    pub fn read(&self, body: &[u8]) -> Result<BTreeMap<String, f64>, String> {
        match self {
            ProbeKind::Redis => {
                return kv_numbers(body, b':', REDIS_INFO, ("keyspace_hits", "keyspace_misses"))
            }
            ProbeKind::Memcached => {
                return kv_numbers(body, b' ', MEMCACHED_STATS, ("get_hits", "get_misses"))
            }
            _ => {}
        }
        let v: Value =
            serde_json::from_slice(body).map_err(|e| format!("answer is not JSON ({e})"))?;
        let num = |v: &Value, what: &str| {
            v.as_f64()
                .ok_or_else(|| format!("{what} is missing or not a number"))
        };
        let mut out = BTreeMap::new();
        match self {
            ProbeKind::Groonga => {
                let header_status = v.pointer("/0/0").and_then(Value::as_i64);
                if header_status != Some(0) {
                    return Err(format!(
                        "not a successful Groonga status answer (return code {header_status:?})"
                    ));
                }
                let n = num(
                    v.pointer("/1/n_queries").unwrap_or(&Value::Null),
                    "n_queries",
                )?;
                let rate = num(
                    v.pointer("/1/cache_hit_rate").unwrap_or(&Value::Null),
                    "cache_hit_rate",
                )?;
                out.insert("n_queries".into(), n);
                // Groonga reports a percentage of n_queries; the count of hits is what subtracts.
                out.insert("cache_hits".into(), (rate / 100.0 * n).round());
            }
            ProbeKind::Droonga => {
                out.insert(
                    "n_queries".into(),
                    num(v.get("nGets").unwrap_or(&Value::Null), "nGets")?,
                );
                out.insert(
                    "cache_hits".into(),
                    num(v.get("nHits").unwrap_or(&Value::Null), "nHits")?,
                );
            }
            ProbeKind::CouchDb => {
                for (key, ptr) in [
                    ("database_reads", "/database_reads/value"),
                    ("database_writes", "/database_writes/value"),
                    ("httpd_requests", "/httpd/requests/value"),
                ] {
                    if let Some(x) = v.pointer(ptr).and_then(Value::as_f64) {
                        out.insert(key.into(), x);
                    }
                }
                if out.is_empty() {
                    return Err("no CouchDB counters (database_reads, database_writes, httpd.requests) in the answer".into());
                }
            }
            ProbeKind::Redis | ProbeKind::Memcached | ProbeKind::Postgres | ProbeKind::Mysql => {
                unreachable!("read apart")
            }
            ProbeKind::Url { pointer, name, .. } => {
                let x = v
                    .pointer(pointer)
                    .ok_or_else(|| format!("nothing at JSON pointer {pointer}"))?;
                let x = x
                    .as_f64()
                    .or_else(|| x.as_str().and_then(|s| s.trim().parse().ok()))
                    .ok_or_else(|| format!("the value at {pointer} is not a number: {x}"))?;
                out.insert(name.clone(), x);
            }
        }
        Ok(out)
    }
}

/// Parse `--probe`: `groonga`, `droonga`, `couchdb`, or `url=PATH,pointer=/a/0/b[,name=NAME]`.
pub fn parse_probe(s: &str) -> Result<ProbeKind, String> {
    match s.trim() {
        "groonga" => return Ok(ProbeKind::Groonga),
        "droonga" => return Ok(ProbeKind::Droonga),
        "couchdb" => return Ok(ProbeKind::CouchDb),
        "redis" => return Ok(ProbeKind::Redis),
        "memcached" => return Ok(ProbeKind::Memcached),
        "postgres" | "postgresql" => return Ok(ProbeKind::Postgres),
        "mysql" | "mariadb" => return Ok(ProbeKind::Mysql),
        _ => {}
    }
    let mut path = None;
    let mut pointer = None;
    let mut name = None;
    for part in s.split(',') {
        let (k, v) = part.split_once('=').ok_or_else(|| {
            format!(
                "--probe {s}: expected groonga, droonga, couchdb, redis, memcached, postgres, mysql or url=PATH,pointer=/json/pointer"
            )
        })?;
        match k.trim() {
            "url" => path = Some(v.trim().to_string()),
            "pointer" => pointer = Some(v.trim().to_string()),
            "name" => name = Some(v.trim().to_string()),
            other => {
                return Err(format!(
                    "--probe {s}: unknown key \"{other}\" (url, pointer, name)"
                ))
            }
        }
    }
    let path = path.ok_or_else(|| format!("--probe {s}: url=PATH is missing"))?;
    if !path.starts_with('/') {
        return Err(format!(
            "--probe {s}: url must be a path starting with '/', asked of every host"
        ));
    }
    let pointer =
        pointer.ok_or_else(|| format!("--probe {s}: pointer=/json/pointer is missing"))?;
    if !(pointer.is_empty() || pointer.starts_with('/')) {
        return Err(format!(
            "--probe {s}: a JSON pointer starts with '/', like /1/n_queries"
        ));
    }
    let name = name.unwrap_or_else(|| pointer.trim_start_matches('/').replace('/', "."));
    Ok(ProbeKind::Url {
        path,
        pointer,
        name,
    })
}

/// Reads every probe on every host.
#[derive(Debug, Clone)]
pub struct Prober {
    pub kinds: Vec<ProbeKind>,
    /// "http://host:port" of each host the run talks to.
    pub hosts: Vec<String>,
    pub timeout: Duration,
    /// The run's SQL targets, for `--probe postgres` and `--probe mysql`
    /// ([`sql::databases`]).
    pub databases: Vec<http::Target>,
}

/// One reading of every (probe, host): numbers or why there are none.
pub type Snapshot = Vec<Result<BTreeMap<String, f64>, String>>;

impl Prober {
    /// Where `kind` is read: the hosts, or for a SQL probe its databases.
    fn places(&self, kind: &ProbeKind) -> Vec<String> {
        match kind {
            ProbeKind::Postgres | ProbeKind::Mysql => {
                sql::places(kind, &self.databases).map(sql::label).collect()
            }
            _ => self.hosts.clone(),
        }
    }

    pub fn snapshot(&self) -> Snapshot {
        let mut out = Vec::with_capacity(self.kinds.len() * self.hosts.len());
        for kind in &self.kinds {
            if matches!(kind, ProbeKind::Postgres | ProbeKind::Mysql) {
                for d in sql::places(kind, &self.databases) {
                    out.push(sql::read(d, self.timeout));
                }
                continue;
            }
            for host in &self.hosts {
                if let Some(ask) = kv_ask(kind) {
                    out.push(ask(host, self.timeout).and_then(|b| kind.read(&b)));
                    continue;
                }
                let url = format!("{host}{}", kind.path());
                out.push(http::fetch(&url, self.timeout).and_then(|f| {
                    if f.status != 200 {
                        return Err(format!("{url} answered HTTP {}", f.status));
                    }
                    kind.read(&f.body).map_err(|e| format!("{url}: {e}"))
                }));
            }
        }
        out
    }

    /// Per (probe, host): before, after, their difference, and the step's own cache hit rate.
    pub fn compare(&self, before: &Snapshot, after: &Snapshot) -> Vec<ProbeResult> {
        let mut out = Vec::new();
        let mut i = 0;
        for kind in &self.kinds {
            for host in &self.places(kind) {
                let mut r = ProbeResult {
                    probe: kind.name(),
                    target: host.clone(),
                    ..ProbeResult::default()
                };
                match (&before[i], &after[i]) {
                    (Ok(b), Ok(a)) => {
                        r.before = b.clone();
                        r.after = a.clone();
                        if let Some(why) = went_back(kind, b, a) {
                            r.error = Some(why);
                        } else {
                            for (k, av) in a {
                                if let Some(bv) = b.get(k) {
                                    r.delta.insert(k.clone(), av - bv);
                                }
                            }
                            r.cache_hit_rate = hit_rate(&r.delta);
                        }
                    }
                    (Err(e), _) | (_, Err(e)) => r.error = Some(e.clone()),
                }
                out.push(r);
                i += 1;
            }
        }
        out
    }
}

/// Why a database's readings have no difference: one of its counters went back,
/// as a restart during the step resets them (PostgreSQL's `pg_stat_database` after
/// crash recovery, MySQL's status at every start). Their difference was printed as
/// `commits +-87576`. `Threads_connected` is a gauge, free to go down.
fn went_back(
    kind: &ProbeKind,
    before: &BTreeMap<String, f64>,
    after: &BTreeMap<String, f64>,
) -> Option<String> {
    if !matches!(kind, ProbeKind::Postgres | ProbeKind::Mysql) {
        return None;
    }
    let (k, b, a) = after
        .iter()
        .filter(|(k, _)| k.as_str() != "Threads_connected")
        .find_map(|(k, a)| before.get(k).filter(|b| *b > a).map(|b| (k, b, a)))?;
    Some(format!(
        "the server's counts went back during the step ({k} {b} before, {a} after): \
         it restarted, or they were reset; its before and after are kept"
    ))
}

/// Redis `INFO`'s numbers a probe keeps.
const REDIS_INFO: &[&str] = &[
    "total_commands_processed",
    "keyspace_hits",
    "keyspace_misses",
    "used_memory",
    "evicted_keys",
    "expired_keys",
    "connected_clients",
    "total_connections_received",
];

/// memcached `stats`'s numbers a probe keeps.
const MEMCACHED_STATS: &[&str] = &[
    "cmd_get",
    "cmd_set",
    "get_hits",
    "get_misses",
    "evictions",
    "curr_items",
    "bytes",
    "curr_connections",
    "total_connections",
];

/// `name<sep>value` lines (Redis `INFO`; memcached's `STAT name value`), the names in
/// `keep`, with `n_queries` and `cache_hits` from the (hits, misses) pair.
fn kv_numbers(
    body: &[u8],
    sep: u8,
    keep: &[&str],
    (hits, misses): (&str, &str),
) -> Result<BTreeMap<String, f64>, String> {
    let text = String::from_utf8_lossy(body);
    let mut out = BTreeMap::new();
    for line in text.lines() {
        let line = line.strip_prefix("STAT ").unwrap_or(line);
        let Some((k, v)) = line.split_once(char::from(sep)) else {
            continue;
        };
        if keep.contains(&k) {
            if let Ok(x) = v.trim().parse::<f64>() {
                out.insert(k.to_string(), x);
            }
        }
    }
    let (Some(h), Some(m)) = (out.get(hits).copied(), out.get(misses).copied()) else {
        return Err(format!("no {hits} and {misses} in the answer"));
    };
    out.insert("n_queries".into(), h + m);
    out.insert("cache_hits".into(), h);
    Ok(out)
}

type Ask = fn(&str, Duration) -> Result<Vec<u8>, String>;

/// How a key-value probe asks a host (`redis://h:p[/db]`, `memcached://h:p`).
fn kv_ask(kind: &ProbeKind) -> Option<Ask> {
    match kind {
        ProbeKind::Redis => Some(|host, t| {
            // A bulk string: `$N\r\n`, N bytes, CRLF.
            ask(host, "redis://", b"*1\r\n$4\r\nINFO\r\n", t, |b| {
                let Some(i) = b.windows(2).position(|w| w == b"\r\n") else {
                    return false;
                };
                match std::str::from_utf8(&b[1..i])
                    .ok()
                    .and_then(|n| n.parse::<usize>().ok())
                {
                    Some(n) => b.len() >= i + 2 + n + 2,
                    None => true,
                }
            })
        }),
        ProbeKind::Memcached => Some(|host, t| {
            ask(host, "memcached://", b"stats\r\n", t, |b| {
                b.ends_with(b"END\r\n") || b.starts_with(b"ERROR") || b.starts_with(b"CLIENT_ERROR")
            })
        }),
        _ => None,
    }
}

/// Send `request` to `host` (a URL of `scheme`) and read until `done`, within `timeout`.
fn ask(
    host: &str,
    scheme: &str,
    request: &[u8],
    timeout: Duration,
    done: impl Fn(&[u8]) -> bool,
) -> Result<Vec<u8>, String> {
    use std::io::{Read, Write};
    use std::net::{TcpStream, ToSocketAddrs};
    let Some(rest) = host.strip_prefix(scheme) else {
        return Err(format!("{host} is not a {scheme} target"));
    };
    let authority = rest.split('/').next().unwrap_or(rest);
    let fail = |e: std::io::Error| format!("{host}: {e}");
    let addr = authority
        .to_socket_addrs()
        .map_err(fail)?
        .next()
        .ok_or_else(|| format!("{host}: no address"))?;
    let mut s = TcpStream::connect_timeout(&addr, timeout).map_err(fail)?;
    s.set_read_timeout(Some(timeout)).map_err(fail)?;
    s.set_write_timeout(Some(timeout)).map_err(fail)?;
    s.write_all(request).map_err(fail)?;
    let mut out = Vec::new();
    let mut buf = [0u8; 16 * 1024];
    while !done(&out) {
        let n = s.read(&mut buf).map_err(fail)?;
        if n == 0 {
            return Err(format!("{host}: closed before a whole answer"));
        }
        out.extend_from_slice(&buf[..n]);
        if out.len() > 1 << 20 {
            return Err(format!("{host}: an answer over 1 MiB"));
        }
    }
    if out.starts_with(b"-") || out.starts_with(b"ERROR") || out.starts_with(b"CLIENT_ERROR") {
        let line = out.split(|b| *b == b'\r').next().unwrap_or_default();
        return Err(format!("{host}: {}", String::from_utf8_lossy(line)));
    }
    Ok(out)
}

fn hit_rate(delta: &BTreeMap<String, f64>) -> Option<f64> {
    let (q, h) = lookups(delta)?;
    (q > 0.0).then(|| (h / q).clamp(0.0, 1.0))
}

/// A probe's (lookups, hits): a cache's queries and hits, PostgreSQL's buffer
/// cache's blocks wanted (read + hit) and hit, or InnoDB's buffer pool's read
/// requests and those not read from disk.
fn lookups(delta: &BTreeMap<String, f64>) -> Option<(f64, f64)> {
    if let (Some(q), Some(h)) = (delta.get("n_queries"), delta.get("cache_hits")) {
        return Some((*q, *h));
    }
    if let (Some(r), Some(h)) = (delta.get("blks_read"), delta.get("blks_hit")) {
        return Some((r + h, *h));
    }
    let (wanted, disk) = (
        delta.get("Innodb_buffer_pool_read_requests")?,
        delta.get("Innodb_buffer_pool_reads")?,
    );
    Some((*wanted, (wanted - disk).max(0.0)))
}

/// The step's cache hit rate over every host that reported one: Σ hits ÷ Σ queries.
pub fn combined_hit_rate(results: &[ProbeResult]) -> Option<f64> {
    let (mut q, mut h) = (0.0, 0.0);
    for r in results {
        if let Some((dq, dh)) = lookups(&r.delta) {
            q += dq;
            h += dh;
        }
    }
    (q > 0.0).then(|| (h / q).clamp(0.0, 1.0))
}

/// Samples a local process (`--probe-pid`) while a step runs.
#[derive(Debug)]
pub struct ProcessWatch {
    pid: u32,
    cpu0: Option<f64>,
    t0: Instant,
    rss_max: u64,
}

impl ProcessWatch {
    /// Fails when there is no such process to watch.
    pub fn check(pid: u32) -> Result<(), String> {
        sysinfo::pid_cpu_seconds(&pid.to_string())
            .map(|_| ())
            .ok_or_else(|| {
                format!("--probe-pid {pid}: no such process (or /proc/{pid}/stat is unreadable)")
            })
    }

    pub fn start(pid: u32) -> ProcessWatch {
        let mut w = ProcessWatch {
            pid,
            cpu0: sysinfo::pid_cpu_seconds(&pid.to_string()),
            t0: Instant::now(),
            rss_max: 0,
        };
        w.sample();
        w
    }

    /// Take a memory sample (called a few times a second while the step runs).
    pub fn sample(&mut self) {
        self.rss_max = self
            .rss_max
            .max(sysinfo::pid_rss_bytes(self.pid).unwrap_or(0));
    }

    pub fn finish(mut self) -> ProcessUse {
        self.sample();
        let elapsed = self.t0.elapsed().as_secs_f64().max(1e-9);
        let cpu1 = sysinfo::pid_cpu_seconds(&self.pid.to_string());
        match (self.cpu0, cpu1) {
            (Some(a), Some(b)) => ProcessUse {
                pid: self.pid,
                cpu_s: b - a,
                cores_used: (b - a) / elapsed,
                rss_max_bytes: self.rss_max,
                error: None,
            },
            _ => ProcessUse {
                pid: self.pid,
                error: Some(format!(
                    "process {} could not be read (did it exit?)",
                    self.pid
                )),
                ..ProcessUse::default()
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GROONGA_STATUS: &str = r#"[[0,1795241096.27,3.6e-05],{"alloc_count":23980,"starttime":1795241095,"uptime":1,"version":"13.0.0","n_queries":5,"cache_hit_rate":40.0,"command_version":1}]"#;

    #[test]
    fn reads_groonga_status_as_groonga_writes_it() {
        let v = ProbeKind::Groonga.read(GROONGA_STATUS.as_bytes()).unwrap();
        assert_eq!(v["n_queries"], 5.0);
        assert_eq!(v["cache_hits"], 2.0);
        let err = ProbeKind::Groonga
            .read(br#"[[-22,0,0,"invalid"],{}]"#)
            .unwrap_err();
        assert!(err.contains("-22"), "{err}");
    }

    #[test]
    fn step_hit_rate_comes_from_the_difference() {
        let p = Prober {
            kinds: vec![ProbeKind::Groonga],
            hosts: vec!["http://a:1".into()],
            timeout: Duration::from_secs(1),
            databases: vec![],
        };
        let before = vec![Ok(BTreeMap::from([
            ("n_queries".to_string(), 100.0),
            ("cache_hits".to_string(), 90.0),
        ]))];
        let after = vec![Ok(BTreeMap::from([
            ("n_queries".to_string(), 300.0),
            ("cache_hits".to_string(), 190.0),
        ]))];
        let r = p.compare(&before, &after);
        // 100 hits out of 200 queries in the step, though the cumulative rate says 63%.
        assert_eq!(r[0].cache_hit_rate, Some(0.5));
        assert_eq!(combined_hit_rate(&r), Some(0.5));
        let failed = p.compare(&vec![Err("refused".into())], &after);
        assert_eq!(failed[0].error.as_deref(), Some("refused"));
        assert_eq!(combined_hit_rate(&failed), None);
    }

    /// A restart mid-step resets a database's counters: no difference (it read
    /// `commits +-87576`), but why, with both readings kept; a gauge going down is
    /// a difference like any other.
    #[test]
    fn a_database_s_counts_that_went_back_have_no_difference() {
        let target = crate::workload::ycsb::sql::target("mysql://u@127.0.0.1:1/db").unwrap();
        let p = Prober {
            kinds: vec![ProbeKind::Mysql],
            hosts: vec![],
            timeout: Duration::from_secs(1),
            databases: vec![target],
        };
        let reading = |select: f64, threads: f64| {
            BTreeMap::from([
                ("Com_select".to_string(), select),
                ("Threads_connected".to_string(), threads),
            ])
        };
        let (b, a) = (reading(90.0, 1.0), reading(5.0, 1.0));
        let r = p.compare(&vec![Ok(b.clone())], &vec![Ok(a.clone())]);
        let why = r[0].error.as_deref().unwrap();
        assert!(why.contains("Com_select 90 before, 5 after"), "{why}");
        assert!(r[0].delta.is_empty() && r[0].cache_hit_rate.is_none());
        assert_eq!((&r[0].before, &r[0].after), (&b, &a));
        let r = p.compare(&vec![Ok(reading(5.0, 3.0))], &vec![Ok(reading(9.0, 1.0))]);
        assert_eq!(r[0].error, None);
        assert_eq!(r[0].delta["Threads_connected"], -2.0);
        // Other probes' values may be anything (a url= pointer, a ratio).
        assert_eq!(went_back(&ProbeKind::Groonga, &b, &a), None);
    }

    /// PostgreSQL's buffer cache is the step's cache: blocks hit of blocks wanted.
    #[test]
    fn a_postgres_step_s_hit_rate_is_its_buffer_cache_s() {
        let d = |read: f64, hit: f64| {
            BTreeMap::from([
                ("blks_read".to_string(), read),
                ("blks_hit".to_string(), hit),
                ("commits".to_string(), 7.0),
            ])
        };
        assert_eq!(hit_rate(&d(25.0, 75.0)), Some(0.75));
        assert_eq!(hit_rate(&d(0.0, 0.0)), None);
        let p = Prober {
            kinds: vec![ProbeKind::Postgres],
            hosts: vec!["http://a:1".into()],
            timeout: Duration::from_secs(1),
            databases: vec![],
        };
        // No database, no reading (spec refuses the flag before any load).
        assert!(p.snapshot().is_empty() && p.compare(&vec![], &vec![]).is_empty());
    }

    #[test]
    fn reads_droonga_couchdb_and_pointers() {
        let v = ProbeKind::Droonga
            .read(br#"{"hitRatio":50,"nHits":10,"nGets":20}"#)
            .unwrap();
        assert_eq!((v["cache_hits"], v["n_queries"]), (10.0, 20.0));
        let v = ProbeKind::CouchDb
            .read(br#"{"database_reads":{"value":7},"httpd":{"requests":{"value":9}}}"#)
            .unwrap();
        assert_eq!((v["database_reads"], v["httpd_requests"]), (7.0, 9.0));
        let k = parse_probe("url=/d/status,pointer=/1/n_queries").unwrap();
        assert_eq!(k.name(), "1.n_queries");
        assert_eq!(
            k.read(GROONGA_STATUS.as_bytes()).unwrap()["1.n_queries"],
            5.0
        );
        assert!(k.read(b"<html>").unwrap_err().contains("not JSON"));
        assert!(parse_probe("url=/x,pointer=/nope")
            .unwrap()
            .read(b"{}")
            .unwrap_err()
            .contains("/nope"));
    }

    #[test]
    fn probe_flags_are_checked() {
        assert_eq!(parse_probe("groonga").unwrap(), ProbeKind::Groonga);
        assert!(parse_probe("oracle").unwrap_err().contains("expected"));
        assert_eq!(parse_probe("mariadb").unwrap(), ProbeKind::Mysql);
        assert_eq!(parse_probe("postgres").unwrap(), ProbeKind::Postgres);
        assert!(parse_probe("url=d/status,pointer=/a")
            .unwrap_err()
            .contains("'/'"));
        assert!(parse_probe("url=/a").unwrap_err().contains("pointer"));
        assert!(parse_probe("url=/a,pointer=/b,colour=red")
            .unwrap_err()
            .contains("colour"));
    }

    #[test]
    fn watches_its_own_process() {
        let pid = std::process::id();
        ProcessWatch::check(pid).unwrap();
        let mut w = ProcessWatch::start(pid);
        let mut x = 0u64;
        for i in 0..2_000_000u64 {
            x = x.wrapping_add(i * i);
        }
        std::hint::black_box(x);
        w.sample();
        let u = w.finish();
        assert!(u.error.is_none() && u.rss_max_bytes > 0 && u.cpu_s >= 0.0);
        assert!(ProcessWatch::check(u32::MAX - 1).is_err());
    }
}
