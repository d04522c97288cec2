//! `hakaru sysbench run`'s workload as the run's options carry it ([`SysbenchLoad`]:
//! the test and its database) and as [`crate::spec::RunOptions::workload`] builds it:
//! the target of `--db-driver`, prepared statements unless `--db-ps-mode=disable` or
//! the test sends plain queries, and what the result's settings say of it (the test's
//! name, never a script's).

use std::net::ToSocketAddrs;
use std::sync::Arc;

use super::{SysbenchError, SysbenchPlan};
use crate::http::mysql_conn::{MyMode, MysqlTarget};
use crate::http::pg_conn::PgTarget;
use crate::http::{Proto, Target};
use crate::spec::kv::Described;
use crate::spec::{RequestOptions, SpecError};
use crate::sql::mysql::url::MyUrl;
use crate::sql::pg::frontend::QueryMode;
use crate::sql::pg::url::PgUrl;
use crate::sql::sysbench::OltpOptions;
use crate::sql::Dialect;
use crate::workload::sysbench::SysbenchWorkload;

/// The database of `--db-driver`: its URL as hakaru's SQL targets take it, the
/// password in it (never printed: both types redact it).
#[derive(Debug, Clone)]
pub enum DbUrl {
    Pg(PgUrl),
    My(MyUrl),
}

impl DbUrl {
    /// `--pgsql-*` or `--mysql-*`, parsed.
    pub fn of(plan: &SysbenchPlan) -> Result<DbUrl, SysbenchError> {
        let c = &plan.conn;
        let bad = |e: String| SysbenchError(format!("the connection: {e}"));
        let at = format!("{}@{}:{}/{}", c.user, c.host, c.port, c.db);
        Ok(match plan.oltp.dialect {
            Dialect::Postgres => {
                let mut u = PgUrl::parse(&format!("postgres://{at}")).map_err(bad)?;
                u.password = c.password.clone();
                DbUrl::Pg(u)
            }
            Dialect::Mysql => {
                let mut u = MyUrl::parse(&format!("mysql://{at}")).map_err(bad)?;
                u.password = c.password.clone();
                DbUrl::My(u)
            }
        })
    }
}

/// A sysbench test to run on the engine: `RequestOptions::sysbench`.
#[derive(Debug, Clone)]
pub struct SysbenchLoad {
    pub oltp: OltpOptions,
    pub db: DbUrl,
    /// `--db-driver`, to name the host option in an error.
    pub driver: &'static str,
}

impl SysbenchLoad {
    pub fn of(plan: &SysbenchPlan) -> Result<SysbenchLoad, SysbenchError> {
        Ok(SysbenchLoad {
            oltp: plan.oltp.clone(),
            db: DbUrl::of(plan)?,
            driver: plan.driver,
        })
    }

    /// The source the result's settings name: `sysbench oltp_read_write`.
    pub fn source(&self) -> String {
        format!("sysbench {}", self.oltp.test.name())
    }
}

/// The test's workload and what the settings say of it.
pub fn build(
    load: &SysbenchLoad,
    r: &RequestOptions,
    seed: u64,
) -> Result<(SysbenchWorkload, Described), SpecError> {
    let target = target(load)?;
    let described = Described {
        source: load.source(),
        n_patterns: 1,
        digest: None,
        uses_tls: false,
        probe_hosts: vec![target.label()],
    };
    let w = SysbenchWorkload::new(target, load.oltp.clone(), seed, r.timeout);
    Ok((w, described))
}

/// The test's target: PostgreSQL or MySQL, prepared statements unless
/// `--db-ps-mode=disable` or the test sends plain queries.
fn target(load: &SysbenchLoad) -> Result<Target, SysbenchError> {
    let o = &load.oltp;
    let prepared = o.prepared && !o.test.plain_queries();
    let (host, port, proto) = match load.db.clone() {
        DbUrl::Pg(url) => {
            let mode = if prepared {
                QueryMode::Prepared
            } else {
                QueryMode::Simple
            };
            let (host, port) = (url.host.clone(), url.port);
            let t = PgTarget {
                password: url.password.clone(),
                url,
                mode,
            };
            (host, port, Proto::Postgres(Arc::new(t)))
        }
        DbUrl::My(url) => {
            let mode = if prepared {
                MyMode::Prepared
            } else {
                MyMode::Simple
            };
            let (host, port) = (url.host.clone(), url.port);
            let t = MysqlTarget {
                password: url.password.clone(),
                url,
                mode,
            };
            (host, port, Proto::Mysql(Arc::new(t)))
        }
    };
    let addrs: Vec<_> = (host.as_str(), port)
        .to_socket_addrs()
        .map_err(|e| SysbenchError(format!("--{}-host={host}: {e}", load.driver)))?
        .collect();
    Ok(Target {
        https: false,
        host,
        port,
        addrs,
        proto,
    })
}
