//! A PostgreSQL run's options checked and built (`run`/`ramp` with a `postgres://`
//! URL): the URL parsed (its password kept out of every message; `PGPASSWORD` when
//! the URL holds none), the scripts of `-f FILE[@W]` read and parsed (errors name
//! file, line and column), `-M`'s mode — all before any load.

use std::net::ToSocketAddrs;
use std::sync::Arc;

use super::kv::Described;
use super::{RequestOptions, SpecError};
use crate::http::pg_conn::PgTarget;
use crate::http::{Proto, Target};
use crate::sql::builtin::split_weight;
use crate::sql::interp::{Mode, Scripts, Weighted};
use crate::sql::pg::frontend::QueryMode;
use crate::sql::pg::url::PgUrl;
use crate::workload::sql::SqlWorkload;

/// The SQL flags as given.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SqlOptions {
    /// `-f FILE[@W]`, repeatable.
    pub files: Vec<String>,
    /// `-M simple|extended|prepared`.
    pub query_mode: Option<String>,
    /// Scripts already parsed (`hakaru pgbench`'s `-b`/`-f`/`-S`/`-N`, with `-D`
    /// and `:scale`): used instead of `files`.
    pub given: Option<GivenScripts>,
}

/// Parsed scripts handed over whole; equal when they are the same ones.
#[derive(Debug, Clone)]
pub struct GivenScripts(pub Arc<Scripts>);

impl PartialEq for GivenScripts {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl SqlOptions {
    /// The first SQL flag given, for a target that takes none.
    pub fn given(&self) -> Option<&'static str> {
        if !self.files.is_empty() {
            Some("-f/--file")
        } else if self.query_mode.is_some() {
            Some("-M/--query-mode")
        } else {
            None
        }
    }
}

fn bad(s: impl Into<String>) -> SpecError {
    SpecError::Kv(s.into())
}

fn mode(text: Option<&str>) -> Result<(Mode, QueryMode), SpecError> {
    match text.unwrap_or("simple") {
        "simple" => Ok((Mode::Simple, QueryMode::Simple)),
        "extended" => Ok((Mode::Extended, QueryMode::Extended)),
        "prepared" => Ok((Mode::Prepared, QueryMode::Prepared)),
        other => Err(bad(format!(
            "-M/--query-mode {other:?}: simple, extended or prepared"
        ))),
    }
}

/// The scripts of `-f`, read and parsed, with their weights.
fn scripts(files: &[String]) -> Result<Vec<Weighted>, SpecError> {
    if files.is_empty() {
        return Err(bad(
            "a postgres:// target needs its transactions: -f FILE[@WEIGHT] (a pgbench script)",
        ));
    }
    let mut out = Vec::new();
    for arg in files {
        let (path, weight) = split_weight(arg).map_err(|e| bad(format!("-f: {e}")))?;
        let text = std::fs::read_to_string(path).map_err(|e| bad(format!("-f {path}: {e}")))?;
        let script = crate::sql::script::parse(path, &text).map_err(|e| bad(e.to_string()))?;
        out.push(Weighted {
            name: path.to_string(),
            weight,
            script,
        });
    }
    if out.iter().all(|w| w.weight == 0) {
        return Err(bad(
            "-f: the scripts' weights add up to 0: give one a weight",
        ));
    }
    Ok(out)
}

/// The workload of a `postgres://` run; `password` is `PGPASSWORD`'s, used when the
/// URL holds none.
pub fn build(
    url: &str,
    r: &RequestOptions,
    seed: u64,
    password: Option<String>,
) -> Result<(SqlWorkload, Described), SpecError> {
    let sql = &r.kv.sql;
    let (script_mode, query_mode) = mode(sql.query_mode.as_deref())?;
    if let Some(flag) = r.kv.kv_given() {
        return Err(bad(format!(
            "{flag} has no meaning for a postgres:// target"
        )));
    }
    for (given, flag) in [
        (!r.headers.is_empty(), "-H"),
        (r.body.is_some(), "--body/--body-file"),
        (r.content_type.is_some(), "-T"),
        (r.connection.http2, "--http2"),
        (r.connection.coalesce.is_some(), "--coalesce"),
    ] {
        if given {
            return Err(bad(format!(
                "{flag} has no meaning for a postgres:// target (its transactions come from -f)"
            )));
        }
    }
    let u = PgUrl::parse(url).map_err(bad)?;
    let addrs: Vec<_> = (u.host.as_str(), u.port)
        .to_socket_addrs()
        .map_err(|e| bad(format!("{}:{}: {e}", u.host, u.port)))?
        .collect();
    let given = sql.given.as_ref().map(|g| g.0.as_ref().clone());
    let scripts = match given {
        Some(s) => s,
        None => Scripts::new(scripts(&sql.files)?, script_mode, Vec::new()),
    };
    let source = if sql.files.is_empty() {
        scripts
            .scripts
            .iter()
            .map(|w| w.name.as_str())
            .collect::<Vec<_>>()
            .join(" ")
    } else {
        sql.files.join(" ")
    };
    let n_patterns = scripts.scripts.len();
    let password = if u.password.is_some() { None } else { password };
    let target = Target {
        https: false,
        host: u.host.clone(),
        port: u.port,
        addrs,
        proto: Proto::Postgres(Arc::new(PgTarget {
            url: u,
            password,
            mode: query_mode,
        })),
    };
    let described = Described {
        source,
        n_patterns,
        digest: None,
        uses_tls: false,
        probe_hosts: vec![target.label()],
    };
    let w = SqlWorkload::new(target, scripts, seed, r.timeout);
    Ok((w, described))
}
