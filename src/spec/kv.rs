//! A key-value run's options checked and built (`run`/`ramp` with a `redis://` or
//! `memcached://` URL): the URL parsed (its password kept out of every message), the
//! host resolved, the commands read from `--commands` or made from `--ratio`, and
//! the key and value flags checked — all before any load.

use std::net::ToSocketAddrs;
use std::path::PathBuf;
use std::sync::Arc;

use super::{RequestOptions, SpecError};
use crate::engine::ConnectionSettings;
use crate::http::url::{parse_kv_url, KvScheme};
use crate::http::{Login, Proto, Target};
use crate::kv::commands::{self, Protocol};
use crate::workload::kv::{KeyDraw, KvSettings, KvWorkload};

/// The key-value flags as given (`None`: not given; the defaults are applied here,
/// so a flag given to an HTTP run can be refused).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct KvOptions {
    /// `--keys`: how many keys `{key}` draws from.
    pub keys: Option<u64>,
    /// `--key-distribution`: uniform, zipfian, latest, sequential.
    pub key_distribution: Option<String>,
    /// `--value-size`: bytes of `{value}`, `N` or `LO..HI`.
    pub value_size: Option<String>,
    /// `--ratio SETS:GETS`.
    pub ratio: Option<String>,
    /// `--commands FILE`.
    pub commands: Option<PathBuf>,
    /// `--preload`: every key written once before the first step.
    pub preload: bool,
    /// `--pipeline N`: commands in flight on one connection (`None`: 1, none).
    pub pipeline: Option<u64>,
    /// A `postgres://` target's flags (`-f`, `-M`), checked by `spec::sql`.
    pub sql: super::sql::SqlOptions,
}

pub const DEFAULT_KEYS: u64 = 100_000;
pub const DEFAULT_VALUE_SIZE: usize = 32;
/// memcached's default item limit is 1 MiB; Redis takes more, a benchmark rarely needs it.
pub const MAX_VALUE_SIZE: usize = 64 * 1024 * 1024;
/// The most commands `--pipeline` puts in flight on one connection (redis-benchmark
/// users go to a few hundred; past this a server's own buffers decide).
pub const MAX_PIPELINE: usize = 1024;
/// Keys are numbers; more than this is no keyspace a machine holds.
pub const MAX_KEYS: u64 = 1 << 40;

impl KvOptions {
    /// The first key-value flag given (not counting the SQL ones).
    pub(super) fn kv_given(&self) -> Option<&'static str> {
        [
            (self.keys.is_some(), "--keys"),
            (self.key_distribution.is_some(), "--key-distribution"),
            (self.value_size.is_some(), "--value-size"),
            (self.ratio.is_some(), "--ratio"),
            (self.commands.is_some(), "--commands"),
            (self.preload, "--preload"),
            (self.pipeline.is_some(), "--pipeline"),
        ]
        .into_iter()
        .find_map(|(given, flag)| given.then_some(flag))
    }

    /// The pure checks: every flag's form.
    pub fn check(&self) -> Result<(u64, KeyDraw, (usize, usize)), SpecError> {
        let bad = |m: String| SpecError::Kv(m);
        let keys = self.keys.unwrap_or(DEFAULT_KEYS);
        if keys == 0 || keys > MAX_KEYS {
            return Err(bad(format!("--keys {keys}: between 1 and {MAX_KEYS}")));
        }
        let dist = self.key_distribution.as_deref().unwrap_or("uniform");
        let draw = KeyDraw::parse(dist).ok_or_else(|| {
            bad(format!(
                "--key-distribution {dist:?}: one of uniform, zipfian, latest, sequential"
            ))
        })?;
        let size = match self.value_size.as_deref() {
            None => (DEFAULT_VALUE_SIZE, DEFAULT_VALUE_SIZE),
            Some(t) => parse_size(t).map_err(bad)?,
        };
        if let Some(r) = &self.ratio {
            commands::parse_ratio(r).map_err(bad)?;
            if self.commands.is_some() {
                return Err(bad(
                    "--ratio and --commands: give one (the file holds its own weights)".into(),
                ));
            }
        }
        if let Some(p) = self.pipeline {
            if p == 0 || p > MAX_PIPELINE as u64 {
                return Err(bad(format!(
                    "--pipeline {p}: commands in flight per connection, between 1 and {MAX_PIPELINE}"
                )));
            }
        }
        Ok((keys, draw, size))
    }
}

/// The engine's connection settings for a key-value run: `--pipeline N` groups N
/// clients on one connection (as `--streams` does for HTTP/2), so `-c 800
/// --pipeline 16` opens 50 connections with 16 commands in flight on each.
pub fn connection(r: &RequestOptions) -> ConnectionSettings {
    match r.kv.pipeline {
        Some(p)
            if r.url
                .as_deref()
                .is_some_and(|u| crate::http::url::kv_scheme(u).is_some()) =>
        {
            ConnectionSettings {
                http2: false,
                streams: p as usize,
                coalesce: None,
            }
        }
        _ => r.connection,
    }
}

/// `N` or `LO..HI` bytes.
fn parse_size(t: &str) -> Result<(usize, usize), String> {
    let num = |s: &str| {
        s.trim()
            .parse::<usize>()
            .ok()
            .filter(|n| *n <= MAX_VALUE_SIZE)
            .ok_or_else(|| {
                format!("--value-size {t:?}: bytes, N or LO..HI, each at most {MAX_VALUE_SIZE}")
            })
    };
    let (lo, hi) = match t.split_once("..") {
        Some((a, b)) => (num(a)?, num(b)?),
        None => (num(t)?, num(t)?),
    };
    if lo > hi {
        return Err(format!(
            "--value-size {t:?}: the low end is above the high end"
        ));
    }
    Ok((lo, hi))
}

/// Refuses the key-value and SQL flags on an HTTP run (`url`, if one was given:
/// often a SQL URL mistyped, `postgres:/db`, which is then no SQL target).
pub fn check_unused(kv: &KvOptions, url: Option<&str>) -> Result<(), SpecError> {
    let not_one = || url.map_or_else(String::new, |u| format!("; {u:?} is not one"));
    if let Some(flag) = kv.kv_given() {
        return Err(SpecError::Kv(format!(
            "{flag} applies to redis:// and memcached:// targets only{}",
            not_one()
        )));
    }
    // The SQL flags were said to be the stores' too.
    match kv.sql.given() {
        Some(flag) => Err(SpecError::Kv(format!(
            "{flag} applies to postgres:// and mysql:// targets only (also written \
             postgresql:// and mariadb://){}",
            not_one()
        ))),
        None => Ok(()),
    }
}

/// What the result's settings say of a run's requests (a patterns file's or a
/// commands file's): where they came from, how many, the file's SHA-256, and what
/// the connections and probes need.
pub struct Described {
    pub source: String,
    pub n_patterns: usize,
    pub digest: Option<String>,
    pub uses_tls: bool,
    /// The hosts server probes may ask (plain HTTP, or the key-value store).
    pub probe_hosts: Vec<String>,
}

/// Why this target cannot be pipelined, if it cannot (`run --pipeline`, a suite's
/// `pipeline`): the pipelined connection's task drives a plain socket, split in two
/// halves, so TLS is spoken on unpipelined connections only.
pub fn pipeline_refusal(target: &Target) -> Option<&'static str> {
    target
        .https
        .then_some("rediss:// is not supported yet (TLS is spoken on unpipelined connections only)")
}

/// Why `--probe redis` cannot read this store, if it cannot: the probe asks `INFO`
/// over plain TCP and logs in to nothing, so a TLS port or a password would fail
/// every reading, step after step, after the load had started.
pub fn probe_refusal(url: &str) -> Option<&'static str> {
    let u = parse_kv_url(url).ok()?;
    if u.tls {
        Some("the probe reads INFO over plain TCP, and rediss:// speaks TLS")
    } else if u.password.is_some() {
        Some("the probe sends no AUTH, and the URL holds a password")
    } else {
        None
    }
}

/// A key-value store's URL as a target, resolved, with the language its commands
/// are read in; the message never holds the password.
pub fn target(url: &str) -> Result<(Target, Protocol), String> {
    let u = parse_kv_url(url)?;
    let (protocol, proto) = match u.scheme {
        KvScheme::Redis => {
            let login = Login::new(u.user.as_deref(), u.password.as_deref(), u.db);
            (Protocol::Redis, Proto::Redis(login.map(Arc::new)))
        }
        KvScheme::Memcached => (Protocol::Memcached, Proto::Memcached),
    };
    let addrs: Vec<_> = (u.host.as_str(), u.port)
        .to_socket_addrs()
        .map_err(|e| format!("cannot resolve {}: {e}", u.host))?
        .collect();
    if addrs.is_empty() {
        return Err(format!("{} has no address", u.host));
    }
    let target = Target {
        https: u.tls,
        host: u.host,
        port: u.port,
        addrs,
        proto,
    };
    Ok((target, protocol))
}

/// The workload of a key-value run against `url`.
pub fn build(
    url: &str,
    r: &RequestOptions,
    seed: u64,
) -> Result<(KvWorkload, Described), SpecError> {
    let kv = &r.kv;
    let (keys, draw, value_size) = kv.check()?;
    if let Some(flag) = kv.sql.given() {
        return Err(SpecError::Kv(format!(
            "{flag} has no meaning for a key-value target (it gives a postgres:// or mysql:// run its transactions)"
        )));
    }
    for (given, flag) in [
        (!r.headers.is_empty(), "-H"),
        (r.body.is_some(), "--body/--body-file"),
        (r.content_type.is_some(), "-T"),
    ] {
        if given {
            return Err(SpecError::Kv(format!(
                "{flag} has no meaning for a key-value target (commands come from --commands or --ratio)"
            )));
        }
    }
    let (target, protocol) = target(url).map_err(SpecError::Kv)?;
    // Without this, --http2 on a store opened h2c to it and counted every request
    // as a protocol error after the load had started.
    if r.connection.http2 {
        let with = if kv.pipeline.is_some() {
            "--pipeline and "
        } else {
            ""
        };
        return Err(SpecError::Kv(format!(
            "{with}--http2: a key-value store speaks its own protocol, not HTTP/2"
        )));
    }
    // Its replies are read by the store's own framing, which takes no kernel stamp:
    // the worker's sleep would be counted in every latency.
    if r.connection.coalesce.is_some() {
        return Err(SpecError::Kv(
            "--coalesce: a key-value store's replies are not stamped with their arrival; it works on plain http:// targets".into(),
        ));
    }
    if let Some(why) = kv.pipeline.and_then(|_| pipeline_refusal(&target)) {
        return Err(SpecError::Kv(format!("--pipeline with {why}")));
    }
    let (commands, mut described) = match &kv.commands {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .map_err(|e| SpecError::Kv(format!("--commands {}: {e}", path.display())))?;
            let source = path.display().to_string();
            let c = commands::parse(&text, &source, protocol)
                .map_err(|e| SpecError::Kv(e.to_string()))?;
            let d = ring::digest::digest(&ring::digest::SHA256, text.as_bytes());
            let hex: String = d.as_ref().iter().map(|b| format!("{b:02x}")).collect();
            let digest = format!("sha256:{hex}");
            let d = Described {
                source,
                n_patterns: c.len(),
                digest: Some(digest),
                uses_tls: false,
                probe_hosts: Vec::new(),
            };
            (c, d)
        }
        None => {
            let text = kv.ratio.as_deref().unwrap_or("1:10");
            let (sets, gets) = commands::parse_ratio(text).map_err(SpecError::Kv)?;
            let c = commands::ratio(sets, gets, protocol);
            let d = Described {
                source: format!("--ratio {sets}:{gets}"),
                n_patterns: c.len(),
                digest: None,
                uses_tls: false,
                probe_hosts: Vec::new(),
            };
            (c, d)
        }
    };
    described.probe_hosts.push(target.label());
    described.uses_tls = target.https;
    let w = KvWorkload::new(KvSettings {
        target,
        protocol,
        commands,
        keys,
        draw,
        value_size,
        timeout: r.timeout,
        seed,
    });
    Ok((w, described))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_are_checked() {
        let o = |f: fn(&mut KvOptions)| {
            let mut k = KvOptions::default();
            f(&mut k);
            k.check().map(|_| ()).map_err(|e| e.to_string())
        };
        assert!(o(|_| {}).is_ok());
        assert!(o(|k| k.keys = Some(0)).unwrap_err().contains("--keys 0"));
        assert!(o(|k| k.key_distribution = Some("hot".into()))
            .unwrap_err()
            .contains("sequential"));
        assert!(o(|k| k.value_size = Some("9..3".into()))
            .unwrap_err()
            .contains("low end"));
        assert!(o(|k| k.ratio = Some("1/10".into()))
            .unwrap_err()
            .contains("SETS:GETS"));
        assert_eq!(parse_size("10..20"), Ok((10, 20)));
        let k = KvOptions {
            preload: true,
            ..KvOptions::default()
        };
        assert!(check_unused(&k, None)
            .unwrap_err()
            .to_string()
            .contains("--preload applies"));
    }

    /// The bug: `run -f tx.sql postgres:/db` (or `POSTGRES://…`, no SQL target)
    /// said "-f/--file applies to redis:// and memcached:// targets only".
    #[test]
    fn a_sql_flag_on_a_url_that_is_no_sql_target_names_the_sql_schemes() {
        let mut k = KvOptions::default();
        k.sql.files = vec!["tx.sql".into()];
        let e = check_unused(&k, Some("postgres:/db"))
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("-f/--file applies to postgres:// and mysql:// targets only")
                && e.ends_with("; \"postgres:/db\" is not one"),
            "{e}"
        );
        k.sql.files.clear();
        k.sql.query_mode = Some("prepared".into());
        let e = check_unused(&k, None).unwrap_err().to_string();
        assert!(
            e.starts_with("-M/--query-mode applies to postgres://"),
            "{e}"
        );
    }
}
