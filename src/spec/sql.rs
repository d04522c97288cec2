//! A SQL run's options checked and built (`run`/`ramp` with a `postgres://` or a
//! `mysql://` URL): the URL parsed (its password kept out of every message;
//! `PGPASSWORD` or `MYSQL_PWD` when the URL holds none), the scripts of `-f FILE[@W]`
//! read and parsed (errors name file, line and column) and their parameters written
//! for the wire (`sql::Dialect`), `-M`'s mode — all before any load.

use std::net::ToSocketAddrs;
use std::sync::Arc;
use std::time::Duration;

use super::kv::Described;
use super::{RequestOptions, SpecError};
use crate::http::mysql_conn::{MyMode, MysqlTarget};
use crate::http::pg_conn::PgTarget;
use crate::http::{Proto, Target};
use crate::sql::builtin::split_weight;
use crate::sql::interp::{Mode, Scripts, Weighted};
use crate::sql::mysql::url::MyUrl;
use crate::sql::pg::frontend::QueryMode;
use crate::sql::pg::url::PgUrl;
use crate::sql::Dialect;
use crate::workload::sql::SqlWorkload;

/// A transaction's timeout in `hakaru pgbench` and `hakaru sysbench` unless
/// `--timeout` says otherwise. pgbench and sysbench have none: a transaction of
/// theirs may take seconds (a batch, a lock wait) and pass, and MySQL's lock wait
/// ends at 50 s with its own error (1205), which must come back as that, not as
/// hakaru's timeout. Still a limit, so a run ends within its duration and this.
pub const DROP_IN_TIMEOUT: Duration = Duration::from_secs(60);

/// The SQL flags as given.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SqlOptions {
    /// `-f FILE[@W]`, repeatable.
    pub files: Vec<String>,
    /// `-M simple|extended|prepared`.
    pub query_mode: Option<String>,
    /// `--max-tries N`: a transaction failed by a serialization failure, a deadlock
    /// or a lock wait timeout is tried again, up to N tries in all.
    pub max_tries: Option<u32>,
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
        } else if self.max_tries.is_some() {
            Some("--max-tries")
        } else {
            None
        }
    }
}

fn bad(s: impl Into<String>) -> SpecError {
    SpecError::Kv(s.into())
}

/// Whether `url` names a SQL target (`postgres://`, `postgresql://`, `mysql://`,
/// `mariadb://`).
pub fn is_sql(url: &str) -> bool {
    PgUrl::is_postgres(url) || MyUrl::is_mysql(url)
}

/// The environment's password for `url`'s protocol (`PGPASSWORD`, `MYSQL_PWD`),
/// used when the URL holds none.
pub fn env_password(url: &str) -> Option<String> {
    let var = if MyUrl::is_mysql(url) {
        "MYSQL_PWD"
    } else {
        "PGPASSWORD"
    };
    std::env::var(var).ok()
}

fn mode(text: Option<&str>) -> Result<Mode, SpecError> {
    match text.unwrap_or("simple") {
        "simple" => Ok(Mode::Simple),
        "extended" => Ok(Mode::Extended),
        "prepared" => Ok(Mode::Prepared),
        other => Err(bad(format!(
            "-M/--query-mode {other:?}: simple, extended or prepared"
        ))),
    }
}

/// The target's protocol, its `-M` mode and the interpreter's dialect.
fn proto(url: &str, mode: Mode, password: Option<String>) -> Result<(Proto, Dialect), SpecError> {
    if MyUrl::is_mysql(url) {
        let u = MyUrl::parse(url).map_err(bad)?;
        let password = if u.password.is_some() { None } else { password };
        let mode = match mode {
            Mode::Simple => MyMode::Simple,
            Mode::Extended => MyMode::Extended,
            Mode::Prepared => MyMode::Prepared,
        };
        let t = MysqlTarget {
            url: u,
            password,
            mode,
        };
        return Ok((Proto::Mysql(Arc::new(t)), Dialect::Mysql));
    }
    let u = PgUrl::parse(url).map_err(bad)?;
    let password = if u.password.is_some() { None } else { password };
    let mode = match mode {
        Mode::Simple => QueryMode::Simple,
        Mode::Extended => QueryMode::Extended,
        Mode::Prepared => QueryMode::Prepared,
    };
    let t = PgTarget {
        url: u,
        password,
        mode,
    };
    Ok((Proto::Postgres(Arc::new(t)), Dialect::Postgres))
}

/// The scripts of `-f`, read and parsed, with their weights.
fn scripts(files: &[String]) -> Result<Vec<Weighted>, SpecError> {
    if files.is_empty() {
        return Err(bad(
            "a SQL target needs its transactions: -f FILE[@WEIGHT] (a pgbench script)",
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

/// `sha256:<hex>` of the scripts as parsed, each with its name and weight: which
/// transactions ran, as a patterns file's digest says which requests did. `merge`
/// refuses shards whose digests differ (shards of `-f a.sql@3` and `-f a.sql@1`
/// were merged as one run).
fn scripts_digest(scripts: &Scripts) -> String {
    let mut d = ring::digest::Context::new(&ring::digest::SHA256);
    for w in &scripts.scripts {
        d.update(format!("{}@{}\n{:?}\n", w.name, w.weight, w.script).as_bytes());
    }
    let hex: String = d
        .finish()
        .as_ref()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    format!("sha256:{hex}")
}

/// The workload of a `postgres://` or `mysql://` run; `password` is the
/// environment's ([`env_password`]), used when the URL holds none.
pub fn build(
    url: &str,
    r: &RequestOptions,
    seed: u64,
    password: Option<String>,
) -> Result<(SqlWorkload, Described), SpecError> {
    let sql = &r.kv.sql;
    let script_mode = mode(sql.query_mode.as_deref())?;
    let scheme = url.split("://").next().unwrap_or("SQL");
    if let Some(flag) = r.kv.kv_given() {
        return Err(bad(format!(
            "{flag} has no meaning for a {scheme}:// target"
        )));
    }
    for (given, flag) in [
        (!r.headers.is_empty(), "-H"),
        (r.body.is_some(), "--body/--body-file"),
        (r.content_type.is_some(), "-T"),
        (r.connection.http2, "--http2"),
        (r.connection.coalesce.is_some(), "--coalesce"),
        // A transaction is ok (counted as 250) or fails by its error's kind: an HTTP
        // set like `--ok-status 200` made every one a failure ("nothing succeeded").
        (
            r.ok_status != crate::stats::OkStatus::default(),
            "--ok-status",
        ),
    ] {
        if given {
            return Err(bad(format!(
                "{flag} has no meaning for a {scheme}:// target (its transactions come from -f)"
            )));
        }
    }
    let (proto, dialect) = proto(url, script_mode, password)?;
    let (host, port) = match &proto {
        Proto::Mysql(t) => (t.url.host.clone(), t.url.port),
        Proto::Postgres(t) => (t.url.host.clone(), t.url.port),
        _ => unreachable!("proto builds a SQL target"),
    };
    let addrs: Vec<_> = (host.as_str(), port)
        .to_socket_addrs()
        .map_err(|e| bad(format!("{host}:{port}: {e}")))?
        .collect();
    let given = sql.given.as_ref().map(|g| g.0.as_ref().clone());
    let scripts = match given {
        Some(s) => s,
        None => Scripts::new(scripts(&sql.files)?, script_mode, Vec::new()),
    }
    .with_dialect(dialect);
    if let (Some(name), Dialect::Mysql) = (scripts.pipelined(), dialect) {
        return Err(bad(format!(
            "{name}: \\startpipeline on a {scheme}:// target: MySQL's protocol has no \
             pipeline (each statement waits for its answer); remove \\startpipeline and \
             \\endpipeline"
        )));
    }
    if let Some(name) = scripts.pipeline_in_simple_mode() {
        return Err(bad(format!(
            "{name}: \\startpipeline cannot be used with -M simple (the simple query \
             protocol has no pipeline); give -M extended or prepared"
        )));
    }
    let scripts = match sql.max_tries {
        Some(0) => return Err(bad("--max-tries 0: at least one try")),
        Some(n) => scripts.with_max_tries(n),
        None => scripts,
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
    let target = Target {
        https: false,
        host,
        port,
        addrs,
        proto,
    };
    let described = Described {
        source,
        n_patterns,
        digest: Some(scripts_digest(&scripts)),
        uses_tls: false,
        probe_hosts: vec![target.label()],
    };
    let w = SqlWorkload::new(target, scripts, seed, r.timeout);
    Ok((w, described))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refusal(r: &RequestOptions) -> String {
        match build("postgres://u@127.0.0.1:5432/db", r, 1, None) {
            Ok(_) => String::new(),
            Err(e) => e.to_string(),
        }
    }

    /// The bug: `--ok-status 200` on a postgres:// run was taken, and every
    /// transaction (each counted ok, as 250) failed it: "nothing succeeded", exit 1.
    /// It is refused by name, as -H and --coalesce are.
    #[test]
    fn http_flags_on_a_sql_target_are_refused_by_name() {
        let mut r = RequestOptions::default();
        r.kv.sql.files = vec!["x.sql".into()];
        r.ok_status = crate::spec::parse_ok_status("200").unwrap();
        let e = refusal(&r);
        assert!(
            e.starts_with("--ok-status has no meaning for a postgres:// target"),
            "{e}"
        );
        r.ok_status = crate::stats::OkStatus::default();
        r.headers = vec!["X-A: 1".into()];
        assert!(refusal(&r).starts_with("-H has no meaning"));
    }

    /// The bug: shards of `-f a.sql@3 -f b.sql@1` and `-f a.sql@1 -f b.sql@1` (or of
    /// two different a.sql files) merged as one run: a SQL run recorded no digest
    /// of its scripts, the one thing `merge` compares to tell plans apart.
    #[test]
    fn a_sql_run_s_digest_follows_its_scripts_and_weights() {
        let digest = |scripts: &[(&str, u32, &str)]| {
            let ws = scripts
                .iter()
                .map(|(name, weight, text)| Weighted {
                    name: name.to_string(),
                    weight: *weight,
                    script: crate::sql::script::parse(name, text).unwrap(),
                })
                .collect();
            scripts_digest(&Scripts::new(ws, Mode::Simple, Vec::new()))
        };
        let a = digest(&[("a.sql", 3, "SELECT 1;\n"), ("b.sql", 1, "SELECT 2;\n")]);
        assert!(a.starts_with("sha256:") && a.len() == 7 + 64, "{a}");
        assert_eq!(
            a,
            digest(&[("a.sql", 3, "SELECT 1;\n"), ("b.sql", 1, "SELECT 2;\n")])
        );
        assert_ne!(
            a,
            digest(&[("a.sql", 1, "SELECT 1;\n"), ("b.sql", 1, "SELECT 2;\n")])
        );
        assert_ne!(
            a,
            digest(&[("a.sql", 3, "SELECT 3;\n"), ("b.sql", 1, "SELECT 2;\n")])
        );
    }
}
