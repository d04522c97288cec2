//! The client loop's SQL arm, one for both wires (PostgreSQL's `PgConn`, MySQL's
//! `MysqlConn`, told apart by [`Conn`]): one transaction is one request. The client's
//! source has begun it (a script's `Session::begin`, or its own conversation); here
//! its connection (the client's own, logged in before the step starts, or on first
//! use) sends each statement the interpreter names, tells it the answer, sleeps its
//! `\sleep`s on the worker's timer, until `Done`. A failed statement ends the transaction, `ROLLBACK`
//! sent if it left a block open, and the transaction is counted under its error's
//! kind (a SQLSTATE's, or a MySQL error code's). Without keep-alive (pgbench's
//! `-C`) each transaction logs in anew, its login inside its time.

use std::cell::RefCell;
use std::io::Write as _;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use super::timer::Timer;
use super::workload::Workload;
use super::Worker;
use crate::http::mysql_conn::{mysql_error_kind, MysqlConn, MysqlConnError};
use crate::http::pg_conn::{sql_error_kind, PgConn, PgConnError, Pipelined};
use crate::http::{Proto, Target};
use crate::kv::STATUS_REPLY;
use crate::sql::interp::{Action, Conversation, SqlFailure, StatementAnswer, TxnLog};
use crate::stats::{ErrorKind, Outcome};

/// A client's SQL connection and the buffers its statements reuse.
#[derive(Default)]
pub(super) struct SqlSlot {
    conn: Option<Conn>,
    /// A statement's parameters and an answer's first row, as slices; kept empty
    /// between statements so that their capacity outlives the borrows (see `recycle`).
    params: Vec<Option<&'static [u8]>>,
    row: Vec<Option<&'static [u8]>>,
    columns: Vec<&'static [u8]>,
    /// A failed statement's sample, noted only if the transaction ends failed with
    /// its kind (a retry that succeeds leaves no error).
    pending: Option<(ErrorKind, String)>,
    /// The last transaction's retries (`--max-tries`), for `-l`'s line.
    retries: u32,
    /// Transactions this client ended, for `-l`'s line (pgbench's `st->cnt`).
    logged: u64,
    /// A login before the transaction's clock ([`login`]) that failed: the next
    /// transaction counts it, without trying again inside its own time.
    login_failed: Option<ConnError>,
    /// The last transaction failed at its login (refused, or no connection): the
    /// client loop backs off as after a failed connect.
    pub(super) refused_login: bool,
}

/// A logged-in connection on either wire.
enum Conn {
    Pg(PgConn),
    My(MysqlConn),
}

/// Why either wire failed: the connection is done.
enum ConnError {
    Pg(PgConnError),
    My(MysqlConnError),
    /// A login before the transaction's clock that did not end within the request
    /// timeout: the transaction it was for counts it as its timeout.
    LoginTimedOut(Duration),
}

impl ConnError {
    fn kind(&self) -> ErrorKind {
        match self {
            ConnError::Pg(e) => e.kind(),
            ConnError::My(e) => e.kind(),
            ConnError::LoginTimedOut(_) => ErrorKind::Timeout,
        }
    }
}

impl std::fmt::Display for ConnError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ConnError::Pg(e) => e.fmt(f),
            ConnError::My(e) => e.fmt(f),
            ConnError::LoginTimedOut(limit) => write!(
                f,
                "no login within the timeout ({} ms): the server accepted the \
                 connection but did not finish the login",
                limit.as_millis()
            ),
        }
    }
}

/// An answer as the session reads it: its rows, the rows it changed, its failure
/// (kind and the server's name for it), and the last result's rows and where its
/// columns start.
type Told = (u64, u64, Option<(ErrorKind, SqlFailure)>, (u64, usize));

impl Conn {
    /// Connects and logs in to `proto`'s target (a SQL one: the loop checked).
    async fn connect(proto: &Proto) -> Result<Conn, ConnError> {
        match proto {
            Proto::Postgres(t) => Box::pin(PgConn::connect(&t.url, t.password.as_deref()))
                .await
                .map(Conn::Pg)
                .map_err(ConnError::Pg),
            Proto::Mysql(t) => Box::pin(MysqlConn::connect(&t.url, t.password.as_deref()))
                .await
                .map(Conn::My)
                .map_err(ConnError::My),
            other => unreachable!("the SQL arm drives SQL targets, not {}", other.scheme()),
        }
    }

    /// Sends a statement as the target's `-M` says and reads its answer.
    async fn statement(
        &mut self,
        proto: &Proto,
        stmt: usize,
        sql: &str,
        params: &[Option<&[u8]>],
        prepared: Option<&str>,
    ) -> Result<(), ConnError> {
        match (self, proto) {
            (Conn::Pg(c), Proto::Postgres(t)) => c
                .statement(t.mode, stmt, sql, params, prepared)
                .await
                .map(drop)
                .map_err(ConnError::Pg),
            (Conn::My(c), Proto::Mysql(t)) => c
                .statement(t.mode, stmt, sql, params)
                .await
                .map(drop)
                .map_err(ConnError::My),
            _ => unreachable!("a slot's connection is its target's protocol"),
        }
    }

    /// The last answer as the interpreter reads it (rows, the values `\gset` and
    /// `\aset` store and their columns' names into the reused vectors, the last
    /// result's rows and where its columns start), the rows it changed, and its
    /// error's kind and the server's name for it.
    fn told<'a>(&'a self, row: &mut Vec<Option<&'a [u8]>>, columns: &mut Vec<&'a [u8]>) -> Told {
        match self {
            Conn::Pg(c) => {
                let a = c.answer();
                if a.rows > 0 {
                    a.first_row(row);
                    a.columns(columns);
                }
                let failed = a
                    .error_kind()
                    .zip(a.sqlstate)
                    .map(|(k, s)| (sql_error_kind(k), SqlFailure::Pg(s)));
                (a.rows, a.affected, failed, a.last_result())
            }
            Conn::My(c) => {
                let a = c.answer();
                if a.rows > 0 {
                    a.first_row(row);
                    a.columns(columns);
                }
                let failed = a
                    .error_kind()
                    .map(|k| (mysql_error_kind(k), SqlFailure::My(a.code, a.sqlstate)));
                // One statement, one result.
                (a.rows, a.affected, failed, (a.rows, 0))
            }
        }
    }

    /// The last answer's error, as its sample shows it.
    fn error_text(&self) -> String {
        match self {
            Conn::Pg(c) => {
                let a = c.answer();
                let state = a.sqlstate.unwrap_or_default();
                format!(
                    "SQLSTATE {}: {}",
                    String::from_utf8_lossy(&state),
                    a.message
                )
            }
            Conn::My(c) => {
                let a = c.answer();
                let state = String::from_utf8_lossy(&a.sqlstate);
                format!("MySQL error {} ({state}): {}", a.code, a.message)
            }
        }
    }

    /// Whether statements can be pipelined: PostgreSQL's extended protocol (MySQL's
    /// has no pipeline; its front ends refuse `\startpipeline`).
    fn pipelines(&self) -> bool {
        matches!(self, Conn::Pg(_))
    }

    /// Whether a transaction block is open (PostgreSQL: in one or failed in one).
    fn in_block(&self) -> bool {
        match self {
            Conn::Pg(c) => c.status != b'I',
            Conn::My(c) => c.in_transaction,
        }
    }

    async fn rollback(&mut self) -> Result<(), ConnError> {
        match self {
            Conn::Pg(c) => c.rollback().await.map(drop).map_err(ConnError::Pg),
            Conn::My(c) => c.rollback().await.map(drop).map_err(ConnError::My),
        }
    }

    /// Ends the session as a client leaving does (PostgreSQL's Terminate), then
    /// closes; a failure to say goodbye changes nothing.
    async fn close(self) {
        match self {
            Conn::Pg(c) => c.terminate().await,
            Conn::My(c) => drop(c),
        }
    }

    fn bytes_in(&self) -> u64 {
        match self {
            Conn::Pg(c) => c.bytes_in,
            Conn::My(c) => c.bytes_in,
        }
    }

    fn bytes_out(&self) -> u64 {
        match self {
            Conn::Pg(c) => c.bytes_out,
            Conn::My(c) => c.bytes_out,
        }
    }
}

/// An empty vector of slices of another lifetime, in the same allocation (std's
/// in-place `collect` keeps it: same element size and alignment).
fn recycle<'b>(mut v: Vec<Option<&[u8]>>) -> Vec<Option<&'b [u8]>> {
    v.clear();
    v.into_iter().map(|_| None).collect()
}

/// [`recycle`] for the column names.
fn recycle_names<'b>(mut v: Vec<&[u8]>) -> Vec<&'b [u8]> {
    v.clear();
    v.into_iter().map(|_| &[][..]).collect()
}

/// One transaction within `timeout` from `sent` (due at `due` in the open model),
/// kept by the worker's watchdog in client `local`'s cell (no timer per
/// transaction, as on the HTTP path): its outcome (a status counted as a key-value
/// reply is, or the kind it failed with) and the bytes it read.
#[allow(clippy::too_many_arguments)]
pub(super) async fn transaction<W: Workload>(
    w: &Worker<W>,
    timer: &Timer,
    slot: &mut SqlSlot,
    proto: &Proto,
    session: &mut dyn Conversation,
    timeout: Duration,
    sent: Instant,
    due: Option<Instant>,
    local: usize,
) -> (Outcome, u64) {
    slot.retries = 0;
    let done = match sent.checked_add(timeout) {
        None => drive(w, timer, slot, proto, session).await,
        Some(deadline) => {
            let driven = drive(w, timer, slot, proto, session);
            let cell = w.watchdog.client(local);
            match cell.within(&w.watchdog, deadline, timeout, driven).await {
                Some(done) => done,
                None => {
                    // The connection may be mid-answer: it cannot carry the next one.
                    slot.conn = None;
                    w.rec.borrow_mut().note_error(ErrorKind::Timeout, || {
                        format!(
                            "no whole transaction within the timeout ({} ms)",
                            timeout.as_millis()
                        )
                    });
                    (Outcome::Error(ErrorKind::Timeout), 0)
                }
            }
        }
    };
    if let Some((log, client, script)) = session.txn_log() {
        slot.logged += 1;
        let line = LogLine {
            client,
            cnt: slot.logged,
            script,
            outcome: done.0,
            sent,
            due,
            retries: slot.retries,
        };
        log_line(w.index, log, &line);
    }
    done
}

/// A transaction's `-l` line, as pgbench writes it.
struct LogLine {
    client: usize,
    cnt: u64,
    script: usize,
    outcome: Outcome,
    sent: Instant,
    due: Option<Instant>,
    retries: u32,
}

/// A worker's `-l` lines not yet handed over; handed over whole when full and when
/// the worker's thread ends (its drop), so a kill leaves whole lines only.
struct LogBuf {
    thread: usize,
    log: Arc<TxnLog>,
    buf: Vec<u8>,
}

impl Drop for LogBuf {
    fn drop(&mut self) {
        if !self.buf.is_empty() {
            (self.log.write)(self.thread, &self.buf);
        }
    }
}

/// Handed over past this many bytes: one write per ~1,500 lines.
const LOG_FLUSH_AT: usize = 64 * 1024;

thread_local! {
    static LOG_BUF: RefCell<Option<LogBuf>> = const { RefCell::new(None) };
}

/// pgbench's line: `client_id transaction_no time script_no time_epoch time_us
/// [schedule_lag] [retries]`, time and lag in µs, a failed transaction's time
/// `failed` (`--failures-detailed`: `serialization` or `deadlock` when it is one).
fn log_line(thread: usize, log: &Arc<TxnLog>, l: &LogLine) {
    let end = Instant::now();
    let epoch = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    let us = |d: Duration| (d.as_nanos() + 500) / 1000;
    LOG_BUF.with_borrow_mut(|slot| {
        let b = slot.get_or_insert_with(|| LogBuf {
            thread,
            log: log.clone(),
            buf: Vec::with_capacity(LOG_FLUSH_AT + 256),
        });
        let buf = &mut b.buf;
        let _ = write!(buf, "{} {} ", l.client, l.cnt);
        let _ = match l.outcome {
            Outcome::Error(ErrorKind::SqlSerializationFailure) if log.detailed => {
                write!(buf, "serialization")
            }
            Outcome::Error(ErrorKind::SqlDeadlock) if log.detailed => write!(buf, "deadlock"),
            Outcome::Error(_) => write!(buf, "failed"),
            Outcome::Status(_) => write!(buf, "{}", us(end - l.due.unwrap_or(l.sent))),
        };
        let _ = write!(
            buf,
            " {} {} {}",
            l.script,
            epoch.as_secs(),
            epoch.subsec_micros()
        );
        if log.lag {
            let lag = l
                .due
                .map_or(Duration::ZERO, |d| l.sent.saturating_duration_since(d));
            let _ = write!(buf, " {}", us(lag));
        }
        if log.retries {
            let _ = write!(buf, " {}", l.retries);
        }
        buf.push(b'\n');
        if buf.len() >= LOG_FLUSH_AT {
            (b.log.write)(b.thread, &b.buf);
            b.buf.clear();
        }
    });
}

/// The connection failed: it is dropped, and the transaction fails with its kind.
fn wire_failed<W: Workload>(w: &Worker<W>, slot: &mut SqlSlot, e: ConnError) -> (Outcome, u64) {
    let kind = e.kind();
    slot.conn = None;
    w.rec.borrow_mut().note_error(kind, || e.to_string());
    (Outcome::Error(kind), 0)
}

/// A statement's own time (sent at `sent`, ended now) under its label, if it has
/// one: a sample within its transaction, not a request of the step's.
fn sample<W: Workload>(w: &Worker<W>, label: Option<u16>, sent: Instant, outcome: Outcome) {
    let Some(label) = label else {
        return;
    };
    let end = Instant::now();
    let meter = w.meter.received.get();
    let done = w
        .rec
        .borrow_mut()
        .record_sample(label, end, outcome, end - sent, meter);
    if let Some(second) = done {
        w.hand_over(second);
    }
}

/// A worker's clients' SQL connections, logged in before the step's clock starts:
/// for each client (by its rank on the worker), a slot per target (`None` where the
/// target is not SQL); and how long each login took. None at all: the default.
#[derive(Default)]
pub(super) struct LoggedIn {
    pub slots: Vec<Vec<Option<Box<SqlSlot>>>>,
    pub took: Vec<Duration>,
}

/// Logs in every client of a worker, all at once, before the step starts (with
/// keep-alive; the engine then starts every worker's clock together): pgbench and
/// sysbench connect all their clients, wait for the last, then start timing and
/// pacing, and report the connections' time apart. Without this, an open model's
/// first transactions wait for their logins inside their own latency (32 clients at
/// `-R 2000`: 11 skipped past a 5 ms limit in the first second, where pgbench
/// skips none), and a closed step's first second counts logins as lost throughput.
/// A login that fails, or is not done within `limit` (the request timeout), is
/// left for the client's first transaction to count, as its error or its timeout.
pub(super) async fn log_in_all(targets: &[Target], clients: usize, limit: Duration) -> LoggedIn {
    let one = || async move {
        let mut took = Vec::new();
        let mut slots = Vec::with_capacity(targets.len());
        for Target { proto, .. } in targets {
            if !proto.is_sql() {
                slots.push(None);
                continue;
            }
            let started = Instant::now();
            let mut slot = Box::<SqlSlot>::default();
            match tokio::time::timeout(limit, Conn::connect(proto)).await {
                Ok(Ok(c)) => {
                    took.push(started.elapsed());
                    slot.conn = Some(c);
                }
                Ok(Err(e)) => slot.login_failed = Some(e),
                Err(_elapsed) => slot.login_failed = Some(ConnError::LoginTimedOut(limit)),
            }
            slots.push(Some(slot));
        }
        (slots, took)
    };
    let all = futures_util::future::join_all((0..clients).map(|_| one())).await;
    let mut logged_in = LoggedIn {
        slots: Vec::with_capacity(clients),
        took: Vec::new(),
    };
    for (slots, took) in all {
        logged_in.slots.push(slots);
        logged_in.took.extend(took);
    }
    logged_in
}

/// Logs the client in before its transaction's clock starts (closed model with
/// keep-alive, the client loop decides): pgbench connects its clients before it
/// times anything, and reports that time apart, so a transaction's latency is its
/// statements' alone. A failed login is left for the transaction to count, and so
/// is one that does not end within the timeout, as the transaction's timeout (a
/// server that accepts and never logs anyone in is counted, not silent).
pub(super) async fn login<W: Workload>(
    w: &Worker<W>,
    slot: &mut SqlSlot,
    proto: &Proto,
    timeout: Duration,
    local: usize,
) {
    if slot.conn.is_some() || slot.login_failed.is_some() {
        return;
    }
    let started = Instant::now();
    let connect = Conn::connect(proto);
    let logged_in = match started.checked_add(timeout) {
        None => Some(connect.await),
        Some(deadline) => {
            let cell = w.watchdog.client(local);
            cell.within(&w.watchdog, deadline, timeout, connect).await
        }
    };
    match logged_in {
        Some(Ok(c)) => {
            w.rec.borrow_mut().record_connect(started.elapsed());
            slot.conn = Some(c);
        }
        Some(Err(e)) => slot.login_failed = Some(e),
        None => slot.login_failed = Some(ConnError::LoginTimedOut(timeout)),
    }
}

async fn drive<W: Workload>(
    w: &Worker<W>,
    timer: &Timer,
    slot: &mut SqlSlot,
    proto: &Proto,
    session: &mut dyn Conversation,
) -> (Outcome, u64) {
    slot.refused_login = true;
    if let Some(e) = slot.login_failed.take() {
        return wire_failed(w, slot, e);
    }
    if slot.conn.is_none() {
        let started = Instant::now();
        match Conn::connect(proto).await {
            Ok(c) => {
                w.rec.borrow_mut().record_connect(started.elapsed());
                slot.conn = Some(c);
            }
            Err(e) => return wire_failed(w, slot, e),
        }
    }
    slot.refused_login = false;
    let conn = slot.conn.as_ref().expect("connected above");
    let (read_before, sent_before) = (conn.bytes_in(), conn.bytes_out());
    slot.pending = None;
    let mut tries = 1;
    let failed = loop {
        let failed = match attempt(w, timer, slot, proto, session).await {
            Ok(failed) => failed,
            Err(done) => return done,
        };
        match failed {
            // The conversation's say: pgbench's --max-tries (the same transaction
            // again, same random values), sysbench's ignored errors (the event again).
            Some((_, Some(failure))) if session.retry(failure) => {
                let mut rec = w.rec.borrow_mut();
                rec.retries += 1;
                rec.retried += u64::from(tries == 1);
                slot.retries = tries;
                tries += 1;
            }
            other => break other.map(|(kind, _)| kind),
        }
    };
    if let Some((kind, text)) = slot.pending.take() {
        if failed == Some(kind) {
            w.rec.borrow_mut().note_error(kind, || text);
        }
    }
    let conn = slot.conn.as_ref().expect("connected above");
    let read = conn.bytes_in() - read_before;
    // The run's bytes moved, as an HTTP connection counts them: the transaction's
    // statements and answers (a login's are the connection's, not counted).
    let m = &w.meter;
    m.received.set(m.received.get() + read);
    m.sent.set(m.sent.get() + conn.bytes_out() - sent_before);
    if conn.bytes_out() == sent_before {
        // A transaction of meta-commands alone (`\set`, `\sleep 0`) sent nothing and
        // never waited: without a yield its client would loop without end, and the
        // step's end (its flag, Ctrl-C) would never be seen.
        tokio::task::yield_now().await;
    }
    if !w.cfg.keep_alive {
        // pgbench's -C (`--no-keep-alive`): a new connection for each transaction,
        // this one ended politely so the server logs no lost client.
        if let Some(conn) = slot.conn.take() {
            conn.close().await;
        }
    }
    match failed {
        Some(kind) => (Outcome::Error(kind), read),
        None => (Outcome::Status(STATUS_REPLY), read),
    }
}

/// A statement's failure: its kind and, for the server's error, its name for it.
type Failed = Option<(ErrorKind, Option<SqlFailure>)>;

/// One try of the transaction: its statements until `Done` or the first failure
/// (its block rolled back); the kind it failed with and, for a statement's error,
/// the server's name for it; or the whole transaction's outcome when the wire
/// failed (the connection dropped: no retry). Inside a pipeline (PostgreSQL's) the
/// statements are queued and their answers read at its end.
async fn attempt<W: Workload>(
    w: &Worker<W>,
    timer: &Timer,
    slot: &mut SqlSlot,
    proto: &Proto,
    session: &mut dyn Conversation,
) -> Result<Failed, (Outcome, u64)> {
    let mut failed: Failed = None;
    let mut in_pipeline = false;
    loop {
        match session.next() {
            Action::Query {
                stmt,
                sql,
                params,
                prepared,
            } => {
                let conn = slot.conn.as_mut().expect("connected above");
                let mut args = recycle(std::mem::take(&mut slot.params));
                args.extend(params.iter());
                let sent = Instant::now();
                let pipelined = in_pipeline && conn.pipelines();
                let answered = match conn {
                    Conn::Pg(c) if pipelined => c
                        .queue(pg_mode(proto), stmt, sql, &args, prepared)
                        .map_err(ConnError::Pg),
                    _ => conn.statement(proto, stmt, sql, &args, prepared).await,
                };
                slot.params = recycle(args);
                let label = session.statement_label(stmt);
                if let Err(e) = answered {
                    // The wire failed: this connection is done, the transaction too.
                    sample(w, label, sent, Outcome::Error(e.kind()));
                    return Err(wire_failed(w, slot, e));
                }
                if pipelined {
                    // pgbench's -r: a pipelined statement's own time is its sending;
                    // its answer's wait is \endpipeline's.
                    sample(w, label, sent, Outcome::Status(STATUS_REPLY));
                    continue;
                }
                failed = told(w, slot, session, label, sent).or(failed);
            }
            Action::Sleep(d) => timer.sleep_until(Instant::now() + d).await,
            Action::PipelineStart => in_pipeline = true,
            Action::PipelineEnd { stmt } => {
                in_pipeline = false;
                let label = session.statement_label(stmt);
                failed = pipeline_end(w, slot, session, label).await?.or(failed);
            }
            Action::Done => break,
            Action::Failed(why) => {
                failed = Some((ErrorKind::SqlError, None));
                w.rec
                    .borrow_mut()
                    .note_error(ErrorKind::SqlError, || format!("script: {why}"));
                break;
            }
        }
    }
    let conn = slot.conn.as_mut().expect("connected above");
    if in_pipeline {
        // A script error inside the pipeline: its statements were never sent.
        if let Conn::Pg(c) = conn {
            c.abandon_pipeline();
        }
    }
    // A failed statement (or script) left a block open: PostgreSQL keeps it open,
    // refusing everything, until the client ends it; MySQL keeps the rest of it
    // open, to be committed by the next transaction's statements were it not ended.
    if failed.is_some() && conn.in_block() {
        if let Err(e) = conn.rollback().await {
            return Err(wire_failed(w, slot, e));
        }
    }
    Ok(failed)
}

/// `proto`'s query mode (a pipeline is PostgreSQL's).
fn pg_mode(proto: &Proto) -> crate::sql::pg::frontend::QueryMode {
    match proto {
        Proto::Postgres(t) => t.mode,
        _ => unreachable!("a PostgreSQL connection's target is a postgres:// one"),
    }
}

/// The answer just read, told to the session and sampled under `label` from
/// `sent`: its failure, if it failed (its sample waits in `slot.pending`: a retry
/// that succeeds leaves no error).
fn told<W: Workload>(
    w: &Worker<W>,
    slot: &mut SqlSlot,
    session: &mut dyn Conversation,
    label: Option<u16>,
    sent: Instant,
) -> Failed {
    let conn = slot.conn.as_ref().expect("still connected");
    let mut row = recycle(std::mem::take(&mut slot.row));
    let mut columns = recycle_names(std::mem::take(&mut slot.columns));
    let (rows, affected, told, (last_rows, last_from)) = conn.told(&mut row, &mut columns);
    let kind = told.map(|(kind, _)| kind);
    let outcome = kind.map_or(Outcome::Status(STATUS_REPLY), Outcome::Error);
    sample(w, label, sent, outcome);
    if let Some((kind, _)) = told {
        slot.pending = Some((kind, conn.error_text()));
    }
    session.answered(&StatementAnswer {
        failed: kind.is_some(),
        rows,
        affected,
        first_row: &row,
        columns: &columns,
        last_rows,
        last_from,
    });
    slot.row = recycle(row);
    slot.columns = recycle_names(columns);
    told.map(|(kind, failure)| (kind, Some(failure)))
}

/// `\endpipeline`: the one Sync sent with every queued statement, then their
/// answers in order, each told to the session; the first failure's (the server
/// skipped the rest), or the Sync's own (a commit that failed). Its sample under
/// `label` is the wait, as pgbench's `-r` line for `\endpipeline`, and carries the
/// pipeline's failure.
async fn pipeline_end<W: Workload>(
    w: &Worker<W>,
    slot: &mut SqlSlot,
    session: &mut dyn Conversation,
    label: Option<u16>,
) -> Result<Failed, (Outcome, u64)> {
    let sent = Instant::now();
    let Some(Conn::Pg(c)) = slot.conn.as_mut() else {
        // A wire without pipelines sent each statement as it came.
        return Ok(None);
    };
    // The Sync sent is a step with nothing to tell, as a skipped statement is.
    let mut step = c.sync().await.map(|()| Pipelined::Skipped);
    let mut failed: Failed = None;
    loop {
        match step {
            Err(e) => {
                let e = ConnError::Pg(e);
                sample(w, label, sent, Outcome::Error(e.kind()));
                return Err(wire_failed(w, slot, e));
            }
            Ok(Pipelined::Skipped) => {}
            Ok(read) => {
                // Its sample is \endpipeline's, below.
                failed = failed.or(told(w, slot, session, None, sent));
                if read == Pipelined::Ended {
                    break;
                }
            }
        }
        let Some(Conn::Pg(c)) = slot.conn.as_mut() else {
            unreachable!("the pipeline's connection is still there");
        };
        step = c.next_in_pipeline().await;
    }
    let outcome = failed.map_or(Outcome::Status(STATUS_REPLY), |(k, _)| Outcome::Error(k));
    sample(w, label, sent, outcome);
    Ok(failed)
}
