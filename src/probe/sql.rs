//! The SQL probes: a database's own counts before and after each step, read over
//! a blocking admin connection of their own (never the engine's).
//!
//! - **PostgreSQL** (`--probe postgres`): the target database's row of
//!   `pg_stat_database`, read from another database of the server (`postgres`, or
//!   `template1` when the target is `postgres`) so the probe's own transactions are
//!   not among the ones it counts; a backend sends its counts within a second of
//!   going idle (or as it exits), so a reading is taken again a second later until
//!   the two agree.
//! - **MySQL/MariaDB** (`--probe mysql`): `SHOW GLOBAL STATUS`, whose counters move
//!   as statements run (the probe's own `SHOW` counts under `Com_show_status`, not
//!   among the statements it reports, though `Questions` counts it too).

use std::collections::BTreeMap;
use std::time::Duration;

use super::ProbeKind;
use crate::http::mysql_conn::MysqlTarget;
use crate::http::pg_conn::PgTarget;
use crate::http::{self, Proto, Target};

/// The SQL targets among a run's, each once, for [`super::Prober::databases`].
pub fn databases(targets: &[Target]) -> Vec<Target> {
    let mut out: Vec<Target> = Vec::new();
    for t in targets {
        if matches!(t.proto, Proto::Postgres(_) | Proto::Mysql(_))
            && !out.iter().any(|o| label(o) == label(t))
        {
            out.push(t.clone());
        }
    }
    out
}

/// Why `kinds` cannot be read from `databases`: a SQL probe without its kind of target.
pub fn missing(kinds: &[ProbeKind], databases: &[Target]) -> Option<String> {
    kinds
        .iter()
        .find(|k| {
            matches!(k, ProbeKind::Postgres | ProbeKind::Mysql)
                && places(k, databases).next().is_none()
        })
        .map(|k| {
            let scheme = if *k == ProbeKind::Postgres {
                "postgres"
            } else {
                "mysql"
            };
            format!("--probe {}: no {scheme}:// target to read", k.name())
        })
}

/// The databases probe `kind` reads.
pub(super) fn places<'a>(
    kind: &'a ProbeKind,
    databases: &'a [Target],
) -> impl Iterator<Item = &'a Target> {
    databases.iter().filter(move |t| {
        matches!(
            (kind, &t.proto),
            (ProbeKind::Postgres, Proto::Postgres(_)) | (ProbeKind::Mysql, Proto::Mysql(_))
        )
    })
}

/// A database as a probe's result names it: `postgres://host:port/db`.
pub(super) fn label(t: &Target) -> String {
    match &t.proto {
        Proto::Postgres(p) => pg_label(p),
        Proto::Mysql(m) => format!("mysql://{}:{}/{}", m.url.host, m.url.port, m.url.database),
        _ => t.label(),
    }
}

fn pg_label(t: &PgTarget) -> String {
    format!(
        "postgres://{}:{}/{}",
        t.url.host, t.url.port, t.url.database
    )
}

/// One reading of database `t`.
pub(super) fn read(t: &Target, timeout: Duration) -> Result<BTreeMap<String, f64>, String> {
    match &t.proto {
        Proto::Postgres(p) => read_postgres(p, timeout),
        Proto::Mysql(m) => read_mysql(m, timeout),
        _ => Err(format!("{}: not a SQL target", t.label())),
    }
}

/// `SHOW GLOBAL STATUS`'s counters a probe keeps.
const MYSQL_STATUS: [&str; 15] = [
    "Com_select",
    "Com_insert",
    "Com_update",
    "Com_delete",
    "Com_commit",
    "Com_rollback",
    "Questions",
    "Threads_connected",
    "Innodb_buffer_pool_reads",
    "Innodb_buffer_pool_read_requests",
    "Innodb_rows_read",
    "Innodb_rows_inserted",
    "Innodb_rows_updated",
    "Innodb_rows_deleted",
    "Innodb_deadlocks",
];

fn read_mysql(t: &MysqlTarget, timeout: Duration) -> Result<BTreeMap<String, f64>, String> {
    let name = format!("mysql://{}:{}/{}", t.url.host, t.url.port, t.url.database);
    let mut admin = http::mysql::MysqlAdmin::connect(&t.url, t.password.as_deref(), timeout)
        .map_err(|e| format!("{name}: {e}"))?;
    let rows = admin
        .simple_query("SHOW GLOBAL STATUS")
        .map_err(|e| format!("{name}: {e}"))?;
    let mut out = BTreeMap::new();
    for row in rows {
        let (Some(Some(k)), Some(Some(v))) = (row.first(), row.get(1)) else {
            continue;
        };
        if MYSQL_STATUS.contains(&k.as_str()) {
            if let Ok(x) = v.trim().parse::<f64>() {
                out.insert(k.clone(), x);
            }
        }
    }
    if !out.contains_key("Com_select") {
        return Err(format!("{name}: no Com_select in SHOW GLOBAL STATUS"));
    }
    Ok(out)
}

/// `pg_stat_database`'s columns a probe keeps, under the names it keeps them.
const PG_STAT: [(&str, &str); 13] = [
    ("xact_commit", "commits"),
    ("xact_rollback", "rollbacks"),
    ("blks_read", "blks_read"),
    ("blks_hit", "blks_hit"),
    ("deadlocks", "deadlocks"),
    ("temp_bytes", "temp_bytes"),
    ("temp_files", "temp_files"),
    ("tup_returned", "tup_returned"),
    ("tup_fetched", "tup_fetched"),
    ("tup_inserted", "tup_inserted"),
    ("tup_updated", "tup_updated"),
    ("tup_deleted", "tup_deleted"),
    ("conflicts", "conflicts"),
];

/// How long a backend may hold its counts before it sends them (PostgreSQL 15:
/// within a second of going idle), and a little more.
const PG_FLUSH: Duration = Duration::from_millis(1100);

/// One database's row of `pg_stat_database`, once two readings [`PG_FLUSH`] apart
/// agree (at most four readings).
fn read_postgres(t: &PgTarget, timeout: Duration) -> Result<BTreeMap<String, f64>, String> {
    let other = if t.url.database == "postgres" {
        "template1"
    } else {
        "postgres"
    };
    let mut url = t.url.clone();
    url.database = other.to_string();
    let password = t.password.as_deref();
    // The target's own database when the other cannot be reached; its one
    // transaction a reading is then counted too, and said so.
    let (mut admin, own) = match http::pg::PgAdmin::connect(&url, password, timeout) {
        Ok(a) => (a, false),
        Err(_) => (
            http::pg::PgAdmin::connect(&t.url, password, timeout)
                .map_err(|e| format!("{}: {e}", pg_label(t)))?,
            true,
        ),
    };
    let columns: Vec<&str> = PG_STAT.iter().map(|(c, _)| *c).collect();
    let sql = format!(
        "SELECT {} FROM pg_stat_database WHERE datname = '{}'",
        columns.join(", "),
        t.url.database.replace('\'', "''")
    );
    let mut read = || -> Result<BTreeMap<String, f64>, String> {
        let rows = admin
            .simple_query(&sql)
            .map_err(|e| format!("{}: {e}", pg_label(t)))?;
        let row = rows
            .first()
            .ok_or_else(|| format!("{}: no row in pg_stat_database", pg_label(t)))?;
        let mut out = BTreeMap::new();
        for ((_, name), v) in PG_STAT.iter().zip(row) {
            if let Some(x) = v.as_deref().and_then(|v| v.parse::<f64>().ok()) {
                out.insert(name.to_string(), x);
            }
        }
        if own {
            out.insert("probe_in_own_database".into(), 1.0);
        }
        Ok(out)
    };
    let mut last = read()?;
    for _ in 0..3 {
        std::thread::sleep(PG_FLUSH);
        let now = read()?;
        let settled = PG_STAT.iter().all(|(_, k)| {
            // Reading in the target's own database adds the reading's commit.
            let slack = if own && *k == "commits" { 1.0 } else { 0.0 };
            (now.get(*k).unwrap_or(&0.0) - last.get(*k).unwrap_or(&0.0)).abs() <= slack
        });
        last = now;
        if settled {
            break;
        }
    }
    Ok(last)
}
