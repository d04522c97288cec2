//! `hakaru pgbench`'s work over the blocking admin connection (`http::pg`), before
//! any load: `-i`'s steps with pgbench's lines, the vacuum before a run, and the
//! scale a built-in script reads from the tables.

use std::time::{Duration, Instant};

use anyhow::{bail, Result};

use crate::http::pg::PgAdmin;
use crate::spec::pgbench::PgbenchPlan;
use crate::sql::init::{self, Step};

/// `SELECT count(*) FROM pgbench_branches`, as pgbench reads the scale of its
/// tables before a built-in script runs (issue 33: with :scale left at 1 every
/// tpcb-like transaction updated branch 1, and 16 clients queued on its lock).
pub(super) fn count_branches(plan: &PgbenchPlan) -> Result<u64> {
    let mut conn = PgAdmin::connect(
        &plan.url,
        plan.url.password.as_deref(),
        Duration::from_secs(30),
    )
    .map_err(|e| anyhow::anyhow!("{e}"))?;
    let rows = conn
        .simple_query("SELECT count(*) FROM pgbench_branches")
        .map_err(|e| anyhow::anyhow!("could not count the branches (run -i first?): {e}"))?;
    let n: u64 = rows
        .first()
        .and_then(|r| r.first().cloned().flatten())
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    if n == 0 {
        bail!("pgbench_branches is empty: run hakaru pgbench -i first");
    }
    Ok(n)
}

/// Before the run, as pgbench without `-n`: the branches and tellers vacuumed,
/// the history emptied (and with `-v` the accounts vacuumed and analyzed). A
/// failure is printed and passed over, as pgbench does (a custom script's
/// database may have no pgbench tables).
pub(super) fn vacuum(plan: &PgbenchPlan, all: bool) -> Result<()> {
    let mut conn = PgAdmin::connect(
        &plan.url,
        plan.url.password.as_deref(),
        Duration::from_secs(30),
    )
    .map_err(|e| anyhow::anyhow!("{e}"))?;
    let mut run = |sql: &str| {
        if let Err(e) = conn.simple_query(sql) {
            eprintln!("pgbench: error: {sql}: {e}\npgbench: detail: (ignoring this error and continuing anyway)");
        }
    };
    eprint!("starting vacuum...");
    run("vacuum pgbench_branches");
    run("vacuum pgbench_tellers");
    run("truncate pgbench_history");
    if all {
        eprint!("starting vacuum pgbench_accounts...");
        run("vacuum analyze pgbench_accounts");
        eprintln!("end.");
    }
    eprintln!("end.");
    Ok(())
}

/// `-i`: each step's SQL over one admin connection, with pgbench's lines.
pub(super) fn initialize(plan: &PgbenchPlan, quiet: bool) -> Result<()> {
    let Some((steps, opts)) = &plan.init else {
        return Ok(());
    };
    let mut conn = PgAdmin::connect(
        &plan.url,
        plan.url.password.as_deref(),
        Duration::from_secs(30),
    )
    .map_err(|e| anyhow::anyhow!("{e}"))?;
    let start = Instant::now();
    let mut times: Vec<(&str, f64)> = Vec::new();
    for step in steps {
        let t0 = Instant::now();
        let (line, name) = match step {
            Step::Drop => ("dropping old tables...", "drop tables"),
            Step::Tables => ("creating tables...", "create tables"),
            Step::ClientData => ("generating data (client-side)...", "client-side generate"),
            Step::ServerData => ("generating data (server-side)...", "server-side generate"),
            Step::Vacuum => ("vacuuming...", "vacuum"),
            Step::PrimaryKeys => ("creating primary keys...", "primary keys"),
            Step::ForeignKeys => ("creating foreign keys...", "foreign keys"),
        };
        eprintln!("{line}");
        for sql in init::sql(*step, opts) {
            conn.simple_query(&sql)
                .map_err(|e| anyhow::anyhow!("-i: {sql}: {e}"))?;
        }
        if *step == Step::ClientData {
            copy_rows(&mut conn, opts.scale, quiet)?;
        }
        times.push((name, t0.elapsed().as_secs_f64()));
    }
    let parts: Vec<String> = times.iter().map(|(n, s)| format!("{n} {s:.2} s")).collect();
    eprintln!(
        "done in {:.2} s ({}).",
        start.elapsed().as_secs_f64(),
        parts.join(", ")
    );
    Ok(())
}

/// `g`: the three tables by COPY in chunks of 10000 rows, with pgbench's
/// progress lines for accounts (every 100000 rows, or every 5 s with `-q`).
fn copy_rows(conn: &mut PgAdmin, scale: u64, quiet: bool) -> Result<()> {
    const CHUNK: u64 = 10_000;
    for table in init::copy_tables(scale) {
        let t0 = Instant::now();
        let mut last_report = Instant::now();
        let accounts = table.copy.contains("accounts");
        let chunks = (0..table.rows.div_ceil(CHUNK)).map(|i| {
            let from = i * CHUNK + 1;
            let mut buf = String::new();
            table.chunk(from, from + CHUNK, &mut buf);
            let done = (from + CHUNK - 1).min(table.rows);
            let due = if quiet {
                last_report.elapsed() >= Duration::from_secs(5) || done == table.rows
            } else {
                done % 100_000 == 0 || done == table.rows
            };
            if accounts && due {
                last_report = Instant::now();
                eprintln!(
                    "{}",
                    init::progress_line(done, table.rows, t0.elapsed().as_secs_f64())
                );
            }
            buf
        });
        let copied = conn
            .copy_in(table.copy, chunks)
            .map_err(|e| anyhow::anyhow!("-i: {}: {e}", table.copy))?;
        if copied != table.rows {
            bail!(
                "-i: {} copied {copied} rows, not {}",
                table.copy,
                table.rows
            );
        }
    }
    Ok(())
}
