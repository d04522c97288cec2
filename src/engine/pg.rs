//! The client loop's PostgreSQL arm: one transaction is one request. The client's
//! source has begun it (a script's `Session::begin`, or its own conversation); here its connection (the client's own,
//! opened and logged in on first use) sends each statement the interpreter names,
//! tells it the answer, sleeps its `\sleep`s on the worker's timer, until `Done`. A
//! failed statement ends the transaction, `ROLLBACK` sent if it left a block open,
//! and the transaction is counted under its SQLSTATE's kind.

use std::time::{Duration, Instant};

use super::timer::Timer;
use super::workload::Workload;
use super::Worker;
use crate::http::pg_conn::{sql_error_kind, PgConn, PgTarget};
use crate::kv::STATUS_REPLY;
use crate::sql::interp::{Action, Conversation, StatementAnswer};
use crate::sql::pg::frontend::QueryMode;
use crate::stats::{ErrorKind, Outcome};

/// A client's PostgreSQL connection and the buffers its statements reuse.
#[derive(Default)]
pub(super) struct PgSlot {
    conn: Option<PgConn>,
    /// A statement's parameters and an answer's first row, as slices; kept empty
    /// between statements so that their capacity outlives the borrows (see `recycle`).
    params: Vec<Option<&'static [u8]>>,
    row: Vec<Option<&'static [u8]>>,
    columns: Vec<&'static [u8]>,
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

/// One transaction within `timeout` from `sent`: its outcome (a status counted as
/// a key-value reply is, or the kind it failed with) and the bytes it read.
pub(super) async fn transaction<W: Workload>(
    w: &Worker<W>,
    timer: &Timer,
    slot: &mut PgSlot,
    target: &PgTarget,
    session: &mut dyn Conversation,
    timeout: Duration,
    sent: Instant,
) -> (Outcome, u64) {
    let Some(deadline) = sent.checked_add(timeout) else {
        return drive(w, timer, slot, target, session).await;
    };
    match tokio::time::timeout_at(deadline.into(), drive(w, timer, slot, target, session)).await {
        Ok(done) => done,
        Err(_) => {
            // The connection may be mid-answer: it cannot carry the next transaction.
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

async fn drive<W: Workload>(
    w: &Worker<W>,
    timer: &Timer,
    slot: &mut PgSlot,
    target: &PgTarget,
    session: &mut dyn Conversation,
) -> (Outcome, u64) {
    if slot.conn.is_none() {
        let started = Instant::now();
        match Box::pin(PgConn::connect(&target.url, target.password.as_deref())).await {
            Ok(c) => {
                w.rec.borrow_mut().record_connect(started.elapsed());
                slot.conn = Some(c);
            }
            Err(e) => {
                let kind = e.kind();
                w.rec.borrow_mut().note_error(kind, || e.to_string());
                return (Outcome::Error(kind), 0);
            }
        }
    }
    let conn = slot.conn.as_mut().expect("connected above");
    let read_before = conn.bytes_in;
    let mode: QueryMode = target.mode;
    let mut failed: Option<ErrorKind> = None;
    loop {
        match session.next() {
            Action::Query {
                stmt,
                sql,
                params,
                prepared,
            } => {
                let mut args = recycle(std::mem::take(&mut slot.params));
                args.extend(params.iter());
                let answered = conn.statement(mode, stmt, sql, &args, prepared).await;
                slot.params = recycle(args);
                let answer = match answered {
                    Ok(a) => a,
                    Err(e) => {
                        // The wire failed: this connection is done, the transaction too.
                        let kind = e.kind();
                        slot.conn = None;
                        w.rec.borrow_mut().note_error(kind, || e.to_string());
                        return (Outcome::Error(kind), 0);
                    }
                };
                let mut row = recycle(std::mem::take(&mut slot.row));
                let mut columns = recycle_names(std::mem::take(&mut slot.columns));
                if answer.rows > 0 {
                    answer.first_row(&mut row);
                    answer.columns(&mut columns);
                }
                let told = StatementAnswer {
                    failed: answer.sqlstate.is_some(),
                    rows: answer.rows,
                    first_row: &row,
                    columns: &columns,
                };
                if let Some(kind) = answer.error_kind() {
                    let kind = sql_error_kind(kind);
                    failed = Some(kind);
                    let (state, message) = (answer.sqlstate.unwrap_or_default(), &answer.message);
                    w.rec.borrow_mut().note_error(kind, || {
                        format!("SQLSTATE {}: {message}", String::from_utf8_lossy(&state))
                    });
                }
                session.answered(&told);
                slot.row = recycle(row);
                slot.columns = recycle_names(columns);
            }
            Action::Sleep(d) => timer.sleep_until(Instant::now() + d).await,
            // Statements go one at a time: a pipeline's bounds change no answer.
            Action::PipelineStart | Action::PipelineEnd => {}
            Action::Done => break,
            Action::Failed(why) => {
                failed = Some(ErrorKind::SqlError);
                w.rec
                    .borrow_mut()
                    .note_error(ErrorKind::SqlError, || format!("script: {why}"));
                break;
            }
        }
    }
    // A failed statement (or script) left a block open: PostgreSQL keeps it open,
    // refusing everything, until the client ends it.
    if failed.is_some() && conn.status != b'I' {
        if let Err(e) = conn.rollback().await {
            let kind = e.kind();
            slot.conn = None;
            w.rec.borrow_mut().note_error(kind, || e.to_string());
            return (Outcome::Error(kind), 0);
        }
    }
    let read = conn.bytes_in - read_before;
    match failed {
        Some(kind) => (Outcome::Error(kind), read),
        None => (Outcome::Status(STATUS_REPLY), read),
    }
}
