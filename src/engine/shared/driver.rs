//! One driver per pipelined connection (`--pipeline N` on key-value targets, closed
//! model without `--wait`): the group's N clients are one future, not N.
//!
//! With a future per client, a read that brought k replies woke k client futures,
//! each walking its nested state machine (`client::run` → `send` →
//! `attempt_pipelined` → the exchange) to record one reply and queue one command.
//! Here the group's driver is woken once: it records the k replies under one borrow
//! of the recorder, draws the k clients' next commands, queues them (the
//! connection's task writes them in one write), and waits once.
//!
//! What is measured does not change:
//! - each command's latency runs from its own send (the clock read once for the
//!   commands queued together, which leave in one write) to the end of the read that
//!   brought its reply, read by the connection's task as before;
//! - each client keeps its own source, check and turn count; `-n` is taken from the
//!   budget one command at a time;
//! - timeouts are the connection's (one timer on the head of its queue); a dead
//!   connection fails every command in flight, each counted once under its kind; a
//!   command never written goes once more on a new connection, as a client's does;
//! - the step's end (deadline, budget, Ctrl-C, `--abort-on-fail`) drops the driver,
//!   which closes a connection with commands in flight: they count as unfinished.
//!
//! The open model and `--wait` keep a future per client (`client::run`): each
//! command leaves at its own due time, never behind another client's reply.

use std::future::poll_fn;
use std::rc::Rc;
use std::sync::atomic::Ordering;
use std::task::Poll;
use std::time::{Duration, Instant};

use super::super::client::{
    command_name, join_pipelined, record_alike, record_end, record_own, Client, Ended,
    CLIENT_LIMIT_BACKOFF,
};
use super::super::workload::{RequestSource, Turn, Workload};
use super::super::{Worker, WorkerPace};
use super::pipeline::Waiter;
use super::{Handle, Shared, SharedConn};
use crate::http;
use crate::kv::Expect;
use crate::stats::{ErrorKind, Outcome, Recorder};

/// Whether a worker's clients go through drivers: every target a key-value store, a
/// pipeline deeper than 1, and the closed model with no pause between commands.
pub(in crate::engine) fn drives<W: Workload>(w: &Worker<W>) -> bool {
    let c = w.cfg.connection;
    !c.http2
        && c.streams > 1
        && matches!(&w.pace, WorkerPace::Closed { wait, .. } if wait.is_zero())
        && w.workload
            .targets()
            .iter()
            .all(|t| !matches!(t.proto, http::Proto::Http))
}

/// A command in flight: what its record needs once the reply comes. Kept in its
/// client's [`Lane`] and never moved: a state carrying it, moved in and out at each
/// turn, cost more than the record itself.
#[derive(Clone, Copy)]
struct Cmd {
    target: usize,
    info: usize,
    items: u64,
    label: u16,
    expect: Expect,
    sent: Instant,
    timeout: Duration,
    /// The generation of the connection it is queued on (retired by it if that
    /// connection fails, never a later one).
    gen: u64,
    /// Already sent once on a connection that closed before writing it.
    retried: bool,
}

/// Where a client of the group is.
#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    /// Its next command is to be drawn.
    Idle,
    /// Its command is queued on a connection, awaiting the reply.
    Queued,
    /// Its command was never written (its connection closed first): it goes once
    /// more on a new connection.
    Resend,
    /// The budget is spent.
    Done,
}

/// One client of the group: its own source, check, turn count and place in the
/// connection's queue.
struct Lane<S, C> {
    client: usize,
    source: S,
    check: C,
    n: u64,
    waiter: Rc<Waiter>,
    state: State,
    /// The command in flight (or the last one).
    cmd: Cmd,
    /// The command's bytes, for its one resend (`Request::bytes` borrows the source).
    bytes: Vec<u8>,
}

/// The group's connections, one per target; closed if the driver stops with
/// commands in flight (the replies after a missing one could not be matched).
struct Conns(Vec<Option<Handle>>);

impl Drop for Conns {
    fn drop(&mut self) {
        for h in self.0.iter().flatten() {
            if let SharedConn::Pipe(c) = &h.conn {
                c.close();
            }
        }
    }
}

/// Drive the group `clients` (one `--pipeline` group of the worker) until the
/// budget is spent; the step's end drops it.
pub(in crate::engine) async fn drive<W: Workload>(w: Rc<Worker<W>>, clients: Vec<Client>) {
    let Some(first) = clients.first().map(|c| c.local) else {
        return;
    };
    let n_targets = w.workload.targets().len();
    let groups: Vec<&Shared> = (0..n_targets)
        .map(|t| {
            w.pool
                .as_ref()
                .and_then(|p| p.slot(first, t))
                .expect("a key-value target's group has a pipelined connection")
        })
        .collect();
    let mut conns = Conns((0..n_targets).map(|_| None).collect());
    let mut lanes: Vec<Lane<W::Source, W::Check>> = clients
        .iter()
        .map(|c| {
            let (source, check) = w.workload.client(w.id(c.global));
            Lane {
                client: c.global,
                source,
                check,
                n: 0,
                waiter: Rc::default(),
                state: State::Idle,
                cmd: Cmd {
                    target: 0,
                    info: 0,
                    items: 0,
                    label: 0,
                    expect: Expect::ANY,
                    sent: Instant::now(),
                    timeout: Duration::ZERO,
                    gen: 0,
                    retried: false,
                },
                bytes: Vec::new(),
            }
        })
        .collect();
    loop {
        let mut pause = None;
        queue_turns(&w, &groups, &mut conns, &mut lanes, &mut pause).await;
        // `queue_turns` has resent every command to be resent: none waits unqueued.
        let waiting = lanes.iter().any(|l| l.state == State::Queued);
        if !waiting && lanes.iter().all(|l| l.state == State::Done) {
            return;
        }
        if waiting && pause.is_none() {
            wait_replies(&mut lanes).await;
        }
        record_replies(&w, &groups, &mut conns, &mut lanes, &mut pause);
        // Every error path reaches an await point, so the deadline and Ctrl-C are
        // seen even when every command fails at once (a refused port).
        match pause {
            Some(ErrorKind::ClientLimit) => tokio::time::sleep(CLIENT_LIMIT_BACKOFF).await,
            Some(_) => tokio::task::yield_now().await,
            None => {}
        }
    }
}

/// Draw and queue the next command of every idle client, and resend those never
/// written; one clock read for all of them, which leave in one write. A command
/// that could not be queued (no connection) is recorded as failed at once.
async fn queue_turns<W: Workload>(
    w: &Worker<W>,
    groups: &[&Shared],
    conns: &mut Conns,
    lanes: &mut [Lane<W::Source, W::Check>],
    pause: &mut Option<ErrorKind>,
) {
    let mut now = None;
    for lane in lanes.iter_mut() {
        match lane.state {
            State::Resend => {}
            State::Idle => {
                if let WorkerPace::Closed {
                    budget: Some(b), ..
                } = &w.pace
                {
                    if !b.take() {
                        lane.state = State::Done;
                        continue;
                    }
                }
                let req = lane.source.next(Turn {
                    client: lane.client,
                    n: lane.n,
                    index: None,
                });
                lane.bytes.clear();
                lane.bytes.extend_from_slice(req.bytes);
                w.in_flight.set(w.in_flight.get() + 1);
                lane.cmd = Cmd {
                    target: req.target,
                    info: req.info,
                    items: req.items,
                    label: req.label,
                    expect: req.expect,
                    sent: *now.get_or_insert_with(Instant::now),
                    timeout: req.timeout,
                    gen: 0,
                    retried: false,
                };
            }
            State::Queued | State::Done => continue,
        }
        let t = lane.cmd.target;
        match place(w, groups[t], &mut conns.0[t], lane).await {
            Ok(gen) => {
                lane.cmd.gen = gen;
                lane.state = State::Queued;
            }
            Err((kind, why)) => {
                lane.state = State::Idle;
                let mut rec = w.rec.borrow_mut();
                if let Some(why) = why {
                    rec.note_error(kind, || why.to_string());
                }
                let end = Instant::now();
                record_one(w, &mut rec, lane, Outcome::Error(kind), 0, end);
                w.progress[w.index].0.fetch_add(1, Ordering::Relaxed);
                pause_after(pause, kind);
            }
        }
    }
}

/// Queue the lane's command (its bytes in `lane.bytes`) on the group's connection to its target,
/// joining or opening it; a connection found closed is left for a new one, once.
/// Queued, the connection's generation; failed, the kind and why (`None`: noted).
async fn place<W: Workload, S, C>(
    w: &Worker<W>,
    group: &Shared,
    held: &mut Option<Handle>,
    lane: &Lane<S, C>,
) -> Result<u64, (ErrorKind, Option<Rc<str>>)> {
    let cmd = &lane.cmd;
    let deadline = cmd.sent.checked_add(cmd.timeout);
    if let Some(f) = held.as_ref().and_then(|h| h.uncounted()) {
        return Err((f.kind, Some(f.why)));
    }
    for first_try in [true, false] {
        if !held.as_ref().is_some_and(|h| group.holds(h)) {
            *held = None;
            match join_pipelined(w, group, cmd.target, cmd.timeout, deadline).await {
                Ok(h) => *held = Some(h),
                // Noted by the join already: recorded with no second note.
                Err((Outcome::Error(kind), _)) => return Err((kind, None)),
                Err(_) => unreachable!("a failed join is an error"),
            }
        }
        let handle = held.as_ref().expect("held or joined above");
        let SharedConn::Pipe(conn) = &handle.conn else {
            unreachable!("a key-value target's group shares a pipelined connection")
        };
        match conn.queue(&lane.waiter, &lane.bytes, deadline, cmd.timeout) {
            Ok(()) => return Ok(handle.gen),
            Err(f) => {
                group.retire(handle.gen);
                *held = None;
                if first_try && !cmd.retried && f.unprocessed {
                    continue;
                }
                return Err((f.kind, Some(f.why)));
            }
        }
    }
    unreachable!("the loop returns on its second pass")
}

/// Wait until a reply (or a failure) has come for at least one queued command. The
/// waiters are looked at, not emptied: [`record_replies`] takes what came.
async fn wait_replies<S, C>(lanes: &mut [Lane<S, C>]) {
    poll_fn(|cx| {
        let mut any = false;
        for lane in lanes.iter() {
            if lane.state == State::Queued {
                if lane.waiter.is_ready() {
                    any = true;
                } else {
                    lane.waiter.wake_with(cx.waker());
                }
            }
        }
        if any {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    })
    .await
}

/// Record every reply and failure that has come, under one borrow of the recorder.
/// Replies that ended alike (one read's replies to commands sent in one write: the
/// same send, end, target, label and outcome) have their counts added once, for all
/// of them; each still has its own check, items, turn and sample.
fn record_replies<W: Workload>(
    w: &Worker<W>,
    groups: &[&Shared],
    conns: &mut Conns,
    lanes: &mut [Lane<W::Source, W::Check>],
    pause: &mut Option<ErrorKind>,
) {
    let mut ended = 0;
    let mut rec = w.rec.borrow_mut();
    let mut alike = Alike(None);
    for lane in lanes.iter_mut() {
        if lane.state != State::Queued {
            continue;
        }
        let Some(result) = lane.waiter.take() else {
            continue;
        };
        lane.state = State::Idle;
        let (target, gen) = (lane.cmd.target, lane.cmd.gen);
        match result {
            Ok((framed, at)) => {
                let command = || command_name(&*w.workload, lane.cmd.info);
                let (outcome, bytes) = framed.recorded(&mut rec, lane.cmd.expect, command);
                w.in_flight.set(w.in_flight.get() - 1);
                alike.add(w, &mut rec, lane, outcome, bytes, at);
                lane.n += 1;
                if let Outcome::Error(kind) = outcome {
                    pause_after(pause, kind);
                }
            }
            Err(f) => {
                // The connection is done: the group's next command opens a new one.
                let held = &mut conns.0[target];
                if held.as_ref().is_some_and(|h| h.gen == gen) {
                    *held = None;
                }
                groups[target].retire(gen);
                if f.unprocessed && !lane.cmd.retried {
                    lane.cmd.retried = true;
                    lane.state = State::Resend;
                    continue;
                }
                // The replies before it are counted first: their second comes first.
                alike.flush(w, &mut rec);
                rec.note_error(f.kind, || f.why.to_string());
                record_one(w, &mut rec, lane, Outcome::Error(f.kind), 0, Instant::now());
                pause_after(pause, f.kind);
            }
        }
        ended += 1;
    }
    alike.flush(w, &mut rec);
    if ended > 0 {
        w.progress[w.index].0.fetch_add(ended, Ordering::Relaxed);
    }
}

/// Replies that ended alike (the same send and end, so the same latency, and the
/// same target, label and outcome), counted once for all of them when one that
/// does not comes, or the read's replies are done.
struct Alike(Option<Group>);

struct Group {
    /// The first's end, its bytes the group's sum.
    e: Ended,
    sent: Instant,
    n: u64,
    /// Whether the next alike reply is offered to the slowest and fastest lists: not
    /// when the last (of the same latency) did not enter them.
    offer: bool,
}

impl Alike {
    /// Record the lane's reply on its own, and add it to the group it ends alike
    /// with (or start one).
    #[inline]
    fn add<W: Workload>(
        &mut self,
        w: &Worker<W>,
        rec: &mut Recorder,
        lane: &mut Lane<W::Source, W::Check>,
        outcome: Outcome,
        bytes: u64,
        end: Instant,
    ) {
        let cmd = &lane.cmd;
        let same = self.0.as_ref().is_some_and(|g| {
            g.sent == cmd.sent
                && g.e.end == end
                && g.e.outcome == outcome
                && g.e.label == cmd.label
                && g.e.target == cmd.target
        });
        if !same {
            self.flush(w, rec);
            let mut e = end_of(lane, outcome, 0, end);
            e.latency = end.saturating_duration_since(cmd.sent);
            self.0 = Some(Group {
                e,
                sent: cmd.sent,
                n: 0,
                offer: true,
            });
        }
        let g = self.0.as_mut().expect("a group, made above if none");
        g.n += 1;
        g.e.bytes += bytes;
        // The group's latency, computed once for all its replies.
        let mut e = end_of(lane, outcome, bytes, end);
        e.latency = g.e.latency;
        g.offer = record_own::<W>(rec, &mut lane.check, &e, &[], false, g.offer, || {
            lane.source.sent()
        });
    }

    #[inline]
    fn flush<W: Workload>(&mut self, w: &Worker<W>, rec: &mut Recorder) {
        if let Some(g) = self.0.take() {
            record_alike(w, rec, &g.e, g.n);
        }
    }
}

/// The end of the lane's command, as it is recorded, but for its latency (zero:
/// the caller's to set, once for the replies that share their send and end).
#[inline]
fn end_of<S, C>(lane: &Lane<S, C>, outcome: Outcome, bytes: u64, end: Instant) -> Ended {
    let cmd = &lane.cmd;
    Ended {
        target: cmd.target,
        outcome,
        latency: Duration::ZERO,
        end,
        bytes,
        items: cmd.items,
        info: cmd.info,
        label: cmd.label,
        client: lane.client,
        index: lane.n,
    }
}

/// Record one command's end, as the client loop records a request's.
fn record_one<W: Workload>(
    w: &Worker<W>,
    rec: &mut Recorder,
    lane: &mut Lane<W::Source, W::Check>,
    outcome: Outcome,
    bytes: u64,
    end: Instant,
) {
    w.in_flight.set(w.in_flight.get() - 1);
    let mut ended = end_of(lane, outcome, bytes, end);
    ended.latency = end.saturating_duration_since(lane.cmd.sent);
    record_end(w, rec, &mut lane.check, &ended, &[], false, || {
        lane.source.sent()
    });
    lane.n += 1;
}

/// Note the pause an error calls for: running out of descriptors or ports backs off
/// (and outweighs any other), any other error yields.
fn pause_after(pause: &mut Option<ErrorKind>, kind: ErrorKind) {
    if *pause != Some(ErrorKind::ClientLimit) {
        *pause = Some(kind);
    }
}
