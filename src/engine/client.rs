//! The one client loop: pace, draw a request, send it on the client's connection to
//! its target, check the answer, record. Every workload and both load models run
//! through here, and both kinds of connection: a client's own (HTTP/1.1) or one its
//! group shares ([`super::shared`], HTTP/2 streams).

use std::cell::Cell;
use std::rc::Rc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use tokio::time::timeout_at;

use super::shared::{Handle, Shared, SharedConn};
use super::timer::{self, Timer};
use super::workload::{Answer, Request, RequestSource, ResponseCheck, Turn, Workload};
use super::{Worker, WorkerPace};
use crate::http::h2::Negotiated;
use crate::http::{self, BodySink, Conn};
use crate::stats::{ErrorKind, Outcome, Recorder, RequestSample, LATE_THRESHOLD};

/// After the client ran out of descriptors or ports, wait this long before trying
/// again: retrying at once cannot succeed, and would only burn the CPU.
pub(super) const CLIENT_LIMIT_BACKOFF: Duration = Duration::from_millis(1);

/// A closed-model client whose connects keep failing (a dead port) waits before the
/// next: nothing after the first, then 1 ms doubling to this cap, back to none at the
/// first connect that works. It was 57,000 refused connects a second of pure CPU;
/// the cap bounds what the wait adds to a measured recovery.
pub(super) const CONNECT_BACKOFF_CAP: Duration = Duration::from_millis(10);

/// The wait after `streak` connect failures in a row.
pub(super) fn connect_backoff(streak: u32) -> Duration {
    match streak {
        0 | 1 => Duration::ZERO,
        n => Duration::from_millis(1 << (n - 2).min(4)).min(CONNECT_BACKOFF_CAP),
    }
}

/// A client's connection to one target, and the read buffer it keeps across
/// reconnects so that a run without keep-alive allocates nothing per request.
struct Slot {
    conn: Option<Conn>,
    spare: Option<Box<[u8]>>,
    /// `--http2`: this client's handle on its group's shared connection.
    shared: Option<Handle>,
    /// A SQL target (`postgres://`, `mysql://`): the client's connection (boxed:
    /// rare beside HTTP's).
    sql: Option<Box<super::sql::SqlSlot>>,
}

impl Slot {
    fn close(&mut self) {
        if let Some(c) = self.conn.take() {
            self.spare = Some(c.into_buffer());
        }
    }
}

/// When this client's next request may go, and from when its latency counts.
struct Paced {
    /// Open model: the due time, from which latency counts.
    due: Option<Instant>,
    /// When the pacer meant it to leave (due time, or end of `--wait`), for its lag.
    intended: Option<Instant>,
    index: Option<u64>,
}

/// A virtual client's place: unique in the step, and its rank on its worker (which
/// group of `--streams` clients it shares a connection with).
#[derive(Debug, Clone, Copy)]
pub(super) struct Client {
    pub global: usize,
    pub local: usize,
}

/// Client `me`'s loop; `logged_in` holds its SQL connections opened before the step
/// began (one per target, or none: see [`super::sql::log_in_all`]).
pub(super) async fn run<W: Workload>(
    w: Rc<Worker<W>>,
    timer: Rc<Timer>,
    me: Client,
    logged_in: Vec<Option<Box<super::sql::SqlSlot>>>,
) {
    let client = me.global;
    let (mut source, mut check) = w.workload.client(w.id(client));
    let body_limit = check.body_limit();
    let mut body = Vec::new();
    let mut logged_in = logged_in.into_iter();
    let mut slots: Vec<Slot> = (0..w.workload.targets().len())
        .map(|_| Slot {
            conn: None,
            spare: None,
            shared: None,
            sql: logged_in.next().flatten(),
        })
        .collect();
    let counter = &w.progress[w.index].0;
    let mut n = 0u64;
    let mut last_end: Option<Instant> = None;
    // A budget (-n) spends a turn per attempt, so it bounds the connects itself; a
    // paced client's rate bounds them too. A closed loop over time has nothing else.
    let backs_off = matches!(
        w.pace,
        WorkerPace::Closed {
            budget: None,
            each: None,
            ..
        }
    );
    let mut failed_connects = 0u32;
    loop {
        let Some(paced) = pace(&w, &timer, last_end, n).await else {
            return;
        };
        let req: Request<'_> = source.next(Turn {
            client,
            n,
            index: paced.index,
        });
        let (target, info, items, label) = (req.target, req.info, req.items, req.label);
        let proto = &w.workload.targets()[target].proto;
        // A SQL client logs in before its transaction's clock, as pgbench's do (the
        // open model's latency runs from the due time, a login's wait included).
        if proto.is_sql() && w.cfg.keep_alive && paced.due.is_none() {
            let sql = slots[target].sql.get_or_insert_with(Box::default);
            super::sql::login(&w, sql, proto, req.timeout, me.local).await;
        }
        w.in_flight.set(w.in_flight.get() + 1);
        timer::note_in_flight(w.in_flight.get());
        let sent = Instant::now();
        // Recorded as the request leaves, so one cut off at the step's end counts too.
        let lag = paced.intended.map(|at| sent.saturating_duration_since(at));
        if let Some(lag) = lag {
            let mut rec = w.rec.borrow_mut();
            rec.record_pacer_lag(lag);
            if paced.due.is_some() {
                w.progress[w.index].2.record_lag(lag);
                let late = lag > LATE_THRESHOLD;
                rec.late += u64::from(late);
                // In its second too: a rate profile is judged second by second.
                let meter = w.meter.received.get();
                if let Some(s) = rec
                    .ticker
                    .as_mut()
                    .and_then(|t| t.record_lag(sent, lag, late, meter))
                {
                    w.hand_over(s);
                }
            }
        }
        let mut sink = (body_limit > 0).then(|| {
            body.clear();
            BodySink {
                buf: &mut body,
                limit: body_limit,
                truncated: false,
                head: None,
            }
        });
        let slot = &mut slots[target];
        let ((outcome, bytes), read_at) = if proto.is_sql() {
            // A transaction: its statements go one by one, as its session says.
            let timeout = req.timeout;
            let session = source
                .session()
                .expect("a SQL target's source keeps a session");
            let sql = slot.sql.get_or_insert_with(Box::default);
            let due = paced.due;
            let done = super::sql::transaction(
                &w, &timer, sql, proto, session, timeout, sent, due, me.local,
            );
            (done.await, None)
        } else {
            let shared = w.pool.as_ref().and_then(|p| p.slot(me.local, target));
            send(&w, slot, shared, &req, me.local, sent, sink.as_mut()).await
        };
        let truncated = sink.is_some_and(|s| s.truncated);
        // A pipelined reply ends when the read that brought it returned (one clock
        // read for all the replies of that read); one the kernel stamped
        // (`--coalesce`) when it arrived; every other answer, now.
        let end = read_at.map_or_else(Instant::now, |at| at.max(sent));
        timer::note_answer(end - sent);
        w.in_flight.set(w.in_flight.get() - 1);
        timer::note_in_flight(w.in_flight.get());
        {
            let mut rec = w.rec.borrow_mut();
            if paced.due.is_some() {
                rec.record_service(end - sent);
            }
            let ended = Ended {
                target,
                outcome,
                latency: end - paced.due.unwrap_or(sent),
                end,
                bytes,
                items,
                info,
                label,
                client,
                index: n,
            };
            record_end(&w, &mut rec, &mut check, &ended, &body, truncated, || {
                source.sent()
            });
        }
        counter.fetch_add(1, Ordering::Relaxed);
        n += 1;
        last_end = Some(end);
        let refused_login = slots[target].sql.as_ref().is_some_and(|s| s.refused_login);
        failed_connects = after_failure(outcome, refused_login, backs_off, failed_connects).await;
    }
}

/// After a turn that ended `outcome`, the wait its failure asks for, and how many
/// connects have now failed in a row (`streak` before it). Every error path reaches
/// an await point, so the deadline and Ctrl-C are seen even when every request
/// fails at once (a refused port, no descriptors). A SQL login refused (a wrong
/// password, a missing database, TLS the server lacks) is a connect that failed
/// too: it was 10,000 logins a second against MariaDB from 2 clients, none of
/// which could succeed.
async fn after_failure(outcome: Outcome, refused_login: bool, backs_off: bool, streak: u32) -> u32 {
    let connect_failed = outcome == Outcome::Error(ErrorKind::Connect)
        || (refused_login && matches!(outcome, Outcome::Error(_)));
    let streak = if connect_failed {
        streak.saturating_add(1)
    } else {
        0
    };
    match outcome {
        Outcome::Error(ErrorKind::ClientLimit) => tokio::time::sleep(CLIENT_LIMIT_BACKOFF).await,
        Outcome::Error(_) if connect_failed && backs_off && streak > 1 => {
            tokio::time::sleep(connect_backoff(streak)).await
        }
        Outcome::Error(_) => tokio::task::yield_now().await,
        Outcome::Status(_) => {}
    }
    streak
}

/// One request's end, as it is recorded.
pub(super) struct Ended {
    pub target: usize,
    pub outcome: Outcome,
    pub latency: Duration,
    /// When it ended: the second it is counted in.
    pub end: Instant,
    pub bytes: u64,
    pub items: u64,
    pub info: usize,
    pub label: u16,
    pub client: usize,
    /// The client's turn.
    pub index: u64,
}

/// Record one request's end: its check's look at the answer (`body`, cut short if
/// `truncated`), its counts, latency and label, and its second (handed over when
/// that second is done). The client loop and the pipelined connections' driver
/// (`shared::driver`) both record through here.
pub(super) fn record_end<W: Workload>(
    w: &Worker<W>,
    rec: &mut Recorder,
    check: &mut W::Check,
    e: &Ended,
    body: &[u8],
    truncated: bool,
    sent: impl FnOnce() -> Option<String>,
) {
    record_own::<W>(rec, check, e, body, truncated, true, sent);
    record_alike(w, rec, e, 1);
}

/// What one request's end adds on its own: its check's look at the answer, its
/// items, and (if `offer`) its place in the slowest and fastest lists; whether it
/// took one. [`record_alike`] adds its counts. Inlined into the client loop's
/// [`record_end`], as the one function it replaces was. `sent` says the request as
/// it went ([`RequestSource::sent`]), asked only when it enters a list.
#[inline(always)]
pub(super) fn record_own<W: Workload>(
    rec: &mut Recorder,
    check: &mut W::Check,
    e: &Ended,
    body: &[u8],
    truncated: bool,
    offer: bool,
    sent: impl FnOnce() -> Option<String>,
) -> bool {
    let status = match e.outcome {
        Outcome::Status(s) => {
            let answer = Answer {
                status: s,
                body,
                truncated,
                items: e.items,
            };
            check.check(&answer, &mut rec.items);
            s
        }
        Outcome::Error(_) => 0,
    };
    rec.items.sent += e.items;
    offer
        && rec.offer_sample(e.latency, || RequestSample {
            elapsed_s: e.latency.as_secs_f64(),
            request: e.info,
            status,
            client: e.client,
            index: e.index,
            sent: sent(),
        })
}

/// The counts of `n` requests that ended alike (`e`'s target, outcome, latency,
/// end and label; `e.bytes` their responses' sum), as `n` ends would add them one
/// by one: the live histogram, the failed counter, the step's counts, the label's
/// and the second's. The pipelined driver records a read's replies sent in one write
/// this way (they share their send and their end, so their latency too).
#[inline(always)]
pub(super) fn record_alike<W: Workload>(w: &Worker<W>, rec: &mut Recorder, e: &Ended, n: u64) {
    let (failed, live) = (&w.progress[w.index].1, &w.progress[w.index].2);
    let status = match e.outcome {
        Outcome::Status(s) => {
            live.record_n(e.latency, n);
            s
        }
        Outcome::Error(_) => 0,
    };
    if !rec.ok.contains(status) {
        failed.fetch_add(n, Ordering::Relaxed);
    }
    rec.record_n(e.target, e.outcome, e.latency, n);
    let meter = w.meter.received.get();
    if let Some(second) =
        rec.record_label_n(e.label, e.end, e.outcome, e.latency, e.bytes, meter, n)
    {
        w.hand_over(second);
    }
}

/// Wait for this client's next turn; `None` when its share of the step is done.
async fn pace<W: Workload>(
    w: &Worker<W>,
    timer: &Timer,
    last_end: Option<Instant>,
    n: u64,
) -> Option<Paced> {
    match &w.pace {
        WorkerPace::Open(timetable) => {
            let mut due = timetable.claim()?;
            // pgbench's `-R --latency-limit`: a turn already later than the limit
            // would miss it even if answered at once, so it is skipped, not sent.
            while let Some(limit) = w.cfg.skip_late {
                if Instant::now().saturating_duration_since(due.at) <= limit {
                    break;
                }
                w.rec.borrow_mut().skipped += 1;
                w.progress[w.index].2.record_skipped();
                due = timetable.claim()?;
            }
            if due.at > Instant::now() {
                timer.sleep_until(due.at).await;
            }
            Some(Paced {
                due: Some(due.at),
                intended: Some(due.at),
                index: Some(due.index),
            })
        }
        WorkerPace::Closed { wait, budget, each } => {
            if budget.as_ref().is_some_and(|b| !b.take()) || each.is_some_and(|k| n >= k) {
                return None;
            }
            let intended = match last_end {
                Some(end) if !wait.is_zero() => {
                    let at = end.checked_add(*wait)?;
                    if w.deadline.is_some_and(|d| at >= d) {
                        return None;
                    }
                    timer.sleep_until(at).await;
                    Some(at)
                }
                _ => None,
            };
            Some(Paced {
                due: None,
                intended,
                index: None,
            })
        }
    }
}

/// One request with its timeout (from `sent`, fired up to a watchdog's tick late):
/// connect if needed, write, read the response, on the client's own connection or on
/// the one its group shares. With the outcome, the bytes of the whole response (0
/// without one), and for a pipelined reply when the read that brought it returned.
async fn send<W: Workload>(
    w: &Worker<W>,
    slot: &mut Slot,
    shared: Option<&Shared>,
    req: &Request<'_>,
    local: usize,
    sent: Instant,
    body: Option<&mut BodySink<'_>>,
) -> ((Outcome, u64), Option<Instant>) {
    if let Some(group) =
        shared.filter(|_| !matches!(w.workload.targets()[req.target].proto, http::Proto::Http))
    {
        // `--pipeline`: its connection's task keeps the deadline, with no timer per
        // command (tokio's `Timeout` was the largest cost of a pipelined command).
        return attempt_pipelined(w, slot, group, req, sent.checked_add(req.timeout)).await;
    }
    // HTTP/2: set while the request body waits for the server's window, so that a
    // timeout then counts as the flow-control stall it is.
    let stalled = Cell::new(false);
    // `--coalesce`: when the kernel received the answer (the worker woke later).
    let arrived = Cell::new(None);
    let exchange = async {
        match shared {
            // Boxed so that HTTP/2's larger state does not grow every client's task:
            // HTTP/1.1 keeps its footprint, and HTTP/2 allocates per request anyway.
            Some(group) => {
                Box::pin(attempt_shared(
                    w, slot, group, req, body, &stalled, &arrived,
                ))
                .await
            }
            None => attempt(w, slot, req, body, &arrived).await,
        }
    };
    let Some(deadline) = sent.checked_add(req.timeout) else {
        let outcome = exchange.await;
        return (outcome, arrived.get());
    };
    // Kept by the worker's watchdog, not a timer per request (see `timer::Watchdog`).
    let cell = w.watchdog.client(local);
    let within = cell.within(&w.watchdog, deadline, req.timeout, exchange);
    let outcome = match within.await {
        Some(outcome) => outcome,
        None => {
            // Cut off mid-connect, the buffer went with the connect future; a new one is made.
            slot.close();
            let kind = if stalled.get() {
                ErrorKind::FlowControlStall
            } else {
                ErrorKind::Timeout
            };
            w.rec.borrow_mut().note_error(kind, || {
                let ms = req.timeout.as_millis();
                if kind == ErrorKind::FlowControlStall {
                    format!("request body stalled: no HTTP/2 window from the server within the timeout ({ms} ms)")
                } else {
                    format!("no whole response within the timeout ({ms} ms)")
                }
            });
            (Outcome::Error(kind), 0)
        }
    };
    (outcome, arrived.get())
}

async fn attempt<W: Workload>(
    w: &Worker<W>,
    slot: &mut Slot,
    req: &Request<'_>,
    mut body: Option<&mut BodySink<'_>>,
    arrived: &Cell<Option<Instant>>,
) -> (Outcome, u64) {
    for first_try in [true, false] {
        let reused = slot.conn.is_some();
        if slot.conn.is_none() {
            // A plain connection borrows its thread's buffers per read (see `http`);
            // a TLS one is given its own, kept here across reconnects.
            let buf = slot.spare.take().unwrap_or_default();
            let target = &w.workload.targets()[req.target];
            // Boxed: the connect future (TLS's above all) is the largest part of this
            // one, which is moved whole at every request; a connect is rare, a request not.
            match Box::pin(http::connect(target, w.cfg.tls.as_ref(), buf)).await {
                Ok((mut conn, opened)) => {
                    let mut rec = w.rec.borrow_mut();
                    rec.record_connect(opened.connect);
                    if let Some(t) = opened.tls {
                        rec.record_tls(t);
                    }
                    conn.time_first_byte = w.cfg.time_first_byte;
                    slot.conn = Some(conn);
                }
                Err(e) => {
                    slot.spare = Some(e.buf);
                    let cause = &e.cause;
                    w.rec.borrow_mut().note_error(e.kind, || cause.to_string());
                    return (Outcome::Error(e.kind), 0);
                }
            }
        }
        if let Some(b) = body.as_deref_mut() {
            b.buf.clear();
            b.truncated = false;
        }
        let conn = slot.conn.as_mut().expect("connected above");
        let exchanged = match &w.workload.targets()[req.target].proto {
            http::Proto::Http => {
                conn.exchange(req.bytes, req.head, &w.meter, body.as_deref_mut())
                    .await
            }
            // A key-value store: one reply framed by its protocol, an error reply
            // counted under its own kind.
            kv => match conn.exchange_framed(req.bytes, kv, &w.meter).await {
                Ok(reply) => {
                    let command = || command_name(&*w.workload, req.info);
                    return reply.recorded(&mut w.rec.borrow_mut(), req.expect, command);
                }
                Err(e) => Err(e),
            },
        };
        match exchanged {
            Ok(resp) => {
                if let (Some(waiting), Some(processing)) = (resp.waiting, resp.processing) {
                    w.rec.borrow_mut().record_waiting(waiting, processing);
                }
                if resp.close {
                    w.rec.borrow_mut().server_closes += 1;
                }
                if resp.close || !w.cfg.keep_alive {
                    slot.close();
                }
                arrived.set(resp.arrived);
                return (Outcome::Status(resp.status), resp.bytes);
            }
            Err(e) => {
                slot.close();
                if reused && first_try && e.is_stale_connection() {
                    continue;
                }
                let kind = e.kind();
                w.rec.borrow_mut().note_error(kind, || e.to_string());
                return (Outcome::Error(kind), 0);
            }
        }
    }
    unreachable!("the loop returns on its second pass")
}

/// One request on the connection the client's group shares (`--http2`): join it or
/// open it, send the request on a stream of its own, read the answer. A request the
/// server never processed (the connection had ended, a graceful GOAWAY, REFUSED_STREAM)
/// goes once more on a new connection, as HTTP/1.1's stale connections do.
async fn attempt_shared<W: Workload>(
    w: &Worker<W>,
    slot: &mut Slot,
    group: &Shared,
    req: &Request<'_>,
    mut body: Option<&mut BodySink<'_>>,
    stalled: &Cell<bool>,
    arrived: &Cell<Option<Instant>>,
) -> (Outcome, u64) {
    for first_try in [true, false] {
        let held = slot.shared.take().filter(|h| group.holds(h));
        let mut handle = match held {
            Some(h) => h,
            // Both boxed: a connect (and TLS handshake) is rare, and its state would
            // otherwise make this future, boxed per request in `send`, too large for
            // the allocator's fast path.
            None => match Box::pin(join(w, slot, group, req.target)).await {
                Ok(Some(h)) => h,
                // The server picked HTTP/1.1: the client's own connection carries it.
                Ok(None) => return Box::pin(attempt(w, slot, req, body, arrived)).await,
                Err(failed) => return failed,
            },
        };
        if let Some(b) = body.as_deref_mut() {
            b.buf.clear();
            b.truncated = false;
        }
        let SharedConn::H2(conn) = &mut handle.conn else {
            unreachable!("a pipelined connection goes through attempt_pipelined")
        };
        match conn
            .exchange_watched(req.bytes, body.as_deref_mut(), stalled)
            .await
        {
            Ok(resp) => {
                if let (Some(waiting), Some(processing)) = (resp.waiting, resp.processing) {
                    w.rec.borrow_mut().record_waiting(waiting, processing);
                }
                slot.shared = Some(handle);
                arrived.set(resp.arrived);
                return (Outcome::Status(resp.status), resp.bytes);
            }
            Err(e) => {
                if e.ends_connection() {
                    group.retire(handle.gen);
                } else {
                    slot.shared = Some(handle);
                }
                if first_try && e.is_unprocessed() {
                    continue;
                }
                let kind = e.kind();
                w.rec.borrow_mut().note_error(kind, || e.to_string());
                return (Outcome::Error(kind), 0);
            }
        }
    }
    unreachable!("the loop returns on its second pass")
}

/// A handle on the group's connection, opened by this client if no other has: `None`
/// when the server picked HTTP/1.1 (the connection is then the client's own, in
/// `slot`), the outcome to record when it could not be opened.
async fn join<W: Workload>(
    w: &Worker<W>,
    slot: &mut Slot,
    group: &Shared,
    target: usize,
) -> Result<Option<Handle>, (Outcome, u64)> {
    // One client opens; the others of the group wait here and take its connection.
    let _opening = group.opening.lock().await;
    if let Some(h) = group.current() {
        return Ok(Some(h));
    }
    let t = &w.workload.targets()[target];
    match http::h2::connect(t, w.cfg.tls.as_ref(), w.meter.clone()).await {
        Ok((negotiated, opened)) => {
            let mut rec = w.rec.borrow_mut();
            rec.record_connect(opened.connect);
            if let Some(t) = opened.tls {
                rec.record_tls(t);
            }
            match negotiated {
                Negotiated::H2(mut conn) => {
                    rec.connections_http2 += 1;
                    conn.time_first_byte = w.cfg.time_first_byte;
                    Ok(Some(group.install(SharedConn::H2(conn))))
                }
                Negotiated::Http1(conn) => {
                    if let Some(pool) = &w.pool {
                        pool.fall_back_to_http1(target);
                    }
                    slot.conn = Some(conn);
                    Ok(None)
                }
            }
        }
        Err(e) => {
            let cause = &e.cause;
            w.rec.borrow_mut().note_error(e.kind, || cause.to_string());
            Err((Outcome::Error(e.kind), 0))
        }
    }
}

/// One command on the pipelined connection the client's group shares (`--pipeline`
/// on a key-value target): join it or open it, queue the command behind the others,
/// await its reply in turn. A command the connection never wrote (it had closed)
/// goes once more on a new connection; one written and then lost is the
/// connection's error, counted once for each command in flight. With a reply, when
/// the read that brought it returned.
async fn attempt_pipelined<W: Workload>(
    w: &Worker<W>,
    slot: &mut Slot,
    group: &Shared,
    req: &Request<'_>,
    deadline: Option<Instant>,
) -> ((Outcome, u64), Option<Instant>) {
    if let Some(f) = slot.shared.as_ref().and_then(|h| h.uncounted()) {
        w.rec.borrow_mut().note_error(f.kind, || f.why.to_string());
        return ((Outcome::Error(f.kind), 0), None);
    }
    for first_try in [true, false] {
        // The handle stays in the slot: the connection and the waiter are borrowed
        // from it, not cloned and dropped per command (two reference counts a command).
        if !slot.shared.as_ref().is_some_and(|h| group.holds(h)) {
            slot.shared = None;
            match join_pipelined(w, group, req.target, req.timeout, deadline).await {
                Ok(h) => slot.shared = Some(h),
                Err(failed) => return (failed, None),
            }
        }
        let handle = slot.shared.as_mut().expect("held or joined above");
        let SharedConn::Pipe(conn) = &handle.conn else {
            unreachable!("a key-value target's group shares a pipelined connection")
        };
        let waiter = handle.waiter.get_or_insert_with(Rc::default);
        match conn
            .exchange(waiter, req.bytes, deadline, req.timeout)
            .await
        {
            Ok((framed, at)) => {
                let command = || command_name(&*w.workload, req.info);
                let recorded = framed.recorded(&mut w.rec.borrow_mut(), req.expect, command);
                return (recorded, Some(at));
            }
            Err(f) => {
                let gen = handle.gen;
                slot.shared = None;
                group.retire(gen);
                if first_try && f.unprocessed {
                    continue;
                }
                w.rec.borrow_mut().note_error(f.kind, || f.why.to_string());
                return ((Outcome::Error(f.kind), 0), None);
            }
        }
    }
    unreachable!("the loop returns on its second pass")
}

/// A handle on the group's pipelined connection, opened by this client if no other
/// has (within the command's deadline); the outcome to record when it could not be.
pub(super) async fn join_pipelined<W: Workload>(
    w: &Worker<W>,
    group: &Shared,
    target: usize,
    timeout: Duration,
    deadline: Option<Instant>,
) -> Result<Handle, (Outcome, u64)> {
    let join = async {
        let _opening = group.opening.lock().await;
        if let Some(h) = group.current() {
            return Ok(h);
        }
        let t = &w.workload.targets()[target];
        match super::shared::pipeline::connect(t, w.meter.clone()).await {
            Ok((conn, opened)) => {
                w.rec.borrow_mut().record_connect(opened.connect);
                Ok(group.install(SharedConn::Pipe(conn)))
            }
            Err(f) => Err((f.kind, f.why.to_string())),
        }
    };
    let joined = match deadline {
        Some(at) => timeout_at(at.into(), join).await.unwrap_or_else(|_| {
            Err((
                ErrorKind::Timeout,
                format!(
                    "no whole response within the timeout ({} ms)",
                    timeout.as_millis()
                ),
            ))
        }),
        None => join.await,
    };
    joined.map_err(|(kind, why)| {
        w.rec.borrow_mut().note_error(kind, || why);
        (Outcome::Error(kind), 0)
    })
}

/// Request `info`'s name as the results give it (a key-value command's label), for
/// an error sample: built only when a sample is taken.
pub(in crate::engine) fn command_name<W: Workload>(workload: &W, info: usize) -> String {
    workload
        .request_infos()
        .into_iter()
        .nth(info)
        .map_or_else(|| "the command".to_string(), |i| i.method)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refused_connect_backs_off_doubling_to_its_cap() {
        let waits: Vec<u64> = (1..=8)
            .map(|n| connect_backoff(n).as_millis() as u64)
            .collect();
        assert_eq!(waits, vec![0, 1, 2, 4, 8, 10, 10, 10]);
        assert_eq!(connect_backoff(u32::MAX), CONNECT_BACKOFF_CAP);
    }
}
