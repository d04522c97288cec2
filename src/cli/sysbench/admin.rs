//! `prepare` and `cleanup` over the database's blocking admin connection, with
//! sysbench's lines: each table created, filled with exactly its rows (COPY on
//! PostgreSQL; on MySQL multi-row INSERTs of 1,000, their affected rows counted), its indexes built; or dropped.

use std::time::Duration;

use anyhow::{bail, Result};

use crate::http::mysql::MysqlAdmin;
use crate::http::pg::PgAdmin;
use crate::spec::sysbench::{DbUrl, SysbenchPlan};
use crate::sql::sysbench::ddl::{self, RowFormat, TablePrep};
use crate::sql::sysbench::rand::SbRand;

/// Rows per COPY chunk.
const CHUNK: u64 = 10_000;
/// Rows per INSERT (~200 bytes each: well under MySQL's 16 MiB packet).
const INSERT_ROWS: u64 = 1_000;

/// One logged-in admin connection of `--db-driver`'s database.
pub enum Admin {
    Pg(PgAdmin),
    My(MysqlAdmin),
}

impl Admin {
    pub fn connect(plan: &SysbenchPlan) -> Result<Admin> {
        let timeout = Duration::from_secs(30);
        Ok(match DbUrl::of(plan)? {
            DbUrl::Pg(u) => Admin::Pg(
                PgAdmin::connect(&u, u.password.as_deref(), timeout)
                    .map_err(|e| anyhow::anyhow!("{e}"))?,
            ),
            DbUrl::My(u) => Admin::My(
                MysqlAdmin::connect(&u, u.password.as_deref(), timeout)
                    .map_err(|e| anyhow::anyhow!("{e}"))?,
            ),
        })
    }

    fn exec(&mut self, sql: &str) -> Result<()> {
        match self {
            Admin::Pg(c) => c
                .simple_query(sql)
                .map(|_| ())
                .map_err(|e| anyhow::anyhow!("{sql}: {e}")),
            Admin::My(c) => c
                .simple_query(sql)
                .map(|_| ())
                .map_err(|e| anyhow::anyhow!("{sql}: {e}")),
        }
    }

    /// Fills table `t` with its rows, drawn by `rng`; how many went in.
    fn fill(&mut self, plan: &SysbenchPlan, t: &TablePrep, rng: &mut SbRand) -> Result<u64> {
        let o = &plan.oltp;
        let chunks = |size: u64| {
            (0..t.rows.div_ceil(size)).map(move |c| {
                let from = c * size + 1;
                (from, (from + size).min(t.rows + 1))
            })
        };
        match self {
            Admin::Pg(c) => {
                let copy = format!("COPY {} {} FROM STDIN", t.name, t.columns);
                let text = chunks(CHUNK).map(|(from, to)| {
                    let mut buf = String::new();
                    ddl::rows(o, rng, from, to, RowFormat::Copy, &mut buf);
                    buf
                });
                c.copy_in(&copy, text)
                    .map_err(|e| anyhow::anyhow!("{copy}: {e}"))
            }
            Admin::My(c) => {
                // Multi-row INSERTs, as sysbench's bulk insert sends them.
                let mut put = 0;
                let mut sql = String::new();
                for (from, to) in chunks(INSERT_ROWS) {
                    sql.clear();
                    sql.push_str("INSERT INTO ");
                    sql.push_str(&t.name);
                    sql.push(' ');
                    sql.push_str(t.columns);
                    sql.push_str(" VALUES ");
                    ddl::rows(o, rng, from, to, RowFormat::Values, &mut sql);
                    c.simple_query(&sql)
                        .map_err(|e| anyhow::anyhow!("INSERT INTO {}: {e}", t.name))?;
                    put += c.affected();
                }
                Ok(put)
            }
        }
    }
}

/// `prepare`: each table created, filled with exactly its rows, indexed.
pub fn prepare(plan: &SysbenchPlan, seed: u64) -> Result<()> {
    let mut conn = Admin::connect(plan)?;
    for (i, t) in ddl::prepare(&plan.oltp).into_iter().enumerate() {
        println!("Creating table '{}'...", t.name);
        conn.exec(&t.create).map_err(|e| e.context("prepare"))?;
        if t.rows > 0 {
            println!("Inserting {} records into '{}'", t.rows, t.name);
            let mut rng = SbRand::new(plan.oltp.rand, seed, i as u64 + 1);
            let put = conn
                .fill(plan, &t, &mut rng)
                .map_err(|e| e.context("prepare"))?;
            if put != t.rows {
                bail!("prepare: {} got {put} rows, not {}", t.name, t.rows);
            }
        }
        for sql in &t.after {
            println!("Creating a secondary index on '{}'...", t.name);
            conn.exec(sql).map_err(|e| e.context("prepare"))?;
        }
    }
    Ok(())
}

/// `prewarm` (MySQL only, as sysbench does it): each table analyzed, then read
/// whole through its primary key and through its `k` index, in memory.
pub fn prewarm(plan: &SysbenchPlan) -> Result<()> {
    let mut conn = Admin::connect(plan)?;
    // No temporary table on disk for the reads below.
    conn.exec("SET tmp_table_size=2*1024*1024*1024")?;
    conn.exec("SET max_heap_table_size=2*1024*1024*1024")?;
    let size = plan.oltp.table_size;
    for t in 1..=plan.oltp.tables {
        println!("Prewarming table sbtest{t}");
        conn.exec(&format!("ANALYZE TABLE sbtest{t}"))?;
        conn.exec(&format!(
            "SELECT AVG(id) FROM (SELECT * FROM sbtest{t} FORCE KEY (PRIMARY) LIMIT {size}) t"
        ))?;
        conn.exec(&format!(
            "SELECT COUNT(*) FROM (SELECT * FROM sbtest{t} WHERE k LIKE '%0%' LIMIT {size}) t"
        ))?;
    }
    Ok(())
}

/// `run`'s check before any load, where sysbench's threads fail as they start: the
/// database takes the login and holds every table the test runs on (a wrong
/// password, a server down or a run before `prepare` would otherwise fail every
/// event for the whole `--time`). Nothing is read or changed: on PostgreSQL each
/// table is named inside a transaction rolled back, on MySQL by `SHOW COLUMNS`
/// (not a `Com_select`).
pub fn check_tables(plan: &SysbenchPlan) -> Result<()> {
    let mut conn = Admin::connect(plan)?;
    let o = &plan.oltp;
    let pg = matches!(conn, Admin::Pg(_));
    if pg {
        conn.exec("BEGIN")?;
    }
    for t in 1..=ddl::run_table_count(o) {
        let sql = if pg {
            format!("SELECT 1 FROM sbtest{t} WHERE false")
        } else {
            format!("SHOW COLUMNS FROM sbtest{t}")
        };
        if let Err(e) = conn.exec(&sql) {
            bail!(
                "run: {e}; prepare the tables first: hakaru sysbench {} … prepare",
                o.test.name()
            );
        }
    }
    if pg {
        conn.exec("ROLLBACK")?;
    }
    Ok(())
}

/// `cleanup`: the tables dropped.
pub fn cleanup(plan: &SysbenchPlan) -> Result<()> {
    let mut conn = Admin::connect(plan)?;
    for sql in ddl::cleanup(&plan.oltp) {
        let table = sql.rsplit(' ').next().unwrap_or_default();
        println!("Dropping table '{table}'...");
        conn.exec(&sql).map_err(|e| e.context("cleanup"))?;
    }
    Ok(())
}
