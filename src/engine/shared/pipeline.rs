//! An in-order pipelined connection to a key-value store (`--pipeline N` on a
//! `redis://` or `memcached://` target): the group's N clients each queue their
//! command on it and await their own reply, which comes in the order the commands
//! were written (both protocols answer a connection's commands in order).
//!
//! One task per connection does the I/O. It writes whatever the clients queued since
//! its last write in one write (what pipelining gains: one system call and one
//! packet for many commands), and reads replies, framed by [`crate::kv`]'s parsers,
//! handing each to the waiter at the head of the queue. Each client's latency is
//! still from its own send (or due time); it ends when the read that brought the
//! reply returned: the clock is read once per read, not once per reply (as
//! redis-benchmark times a pipeline's replies), which was a tenth of the client's
//! CPU per command at `--pipeline 16`.
//!
//! Timeouts are kept by the connection's task too, not by a timer per command: the
//! commands' deadlines come in the order they were queued, so one timer on the head
//! of the queue is enough (re-armed when it fires for a command already answered).
//! Tokio's per-command `Timeout` was the largest cost of a pipelined command.
//!
//! How it ends:
//! - the connection dies (EOF, reset, bytes that are no reply): every command in
//!   flight fails with that error, each counted once by its own client; commands
//!   queued but never written are *unprocessed* and go once more on a new connection;
//! - the head command's deadline passes (or a wait is abandoned at the step's end):
//!   the connection is closed, because the replies after a missing one could no
//!   longer be matched to their commands. The command times out; the others written
//!   on it get no reply and time out at their own deadlines.
//!
//! A Redis URL with a password or a database: the connection's first bytes are
//! `AUTH`/`SELECT` ([`crate::http::Login`]), written before its first command; their
//! replies are read and kept from the clients. A refused login ends the connection,
//! and each command in flight fails under the refusal's kind (`reply_noauth`, …):
//! Redis would have refused them all, and after a failed `SELECT` they would have
//! gone to the wrong database.

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::future::{poll_fn, Future};
use std::io;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::http::{self, Framed, Framer, Meter, Proto, Target, WireError};
use crate::kv::{Got, Reply, Step};
use crate::stats::ErrorKind;

/// The read buffer: many replies at once; a reply's line is at most
/// [`crate::kv::MAX_LINE`], and values are read past, not kept.
const READ_BUF: usize = 64 * 1024;

/// Why a command got no reply: the error kind it is counted under, the reason (one
/// allocation per dead connection, shared by its waiters), and whether the command
/// was never written (and so may go once more on a new connection).
#[derive(Debug, Clone)]
pub struct Failure {
    pub kind: ErrorKind,
    pub why: Rc<str>,
    pub unprocessed: bool,
}

/// One client's place in the queue: reused for each of its commands on a connection.
#[derive(Default)]
pub struct Waiter {
    done: Cell<Option<Result<(Framed, Instant), Failure>>>,
    /// `done` holds a result: looked at without moving it out (a group's driver
    /// looks at its 16 waiters on each wake-up).
    ready: Cell<bool>,
    waker: RefCell<Option<Waker>>,
    /// Written to the socket (its reply may come); cleared when it is queued.
    written: Cell<bool>,
    /// When the command times out (`None`: never), and the timeout, for its message.
    deadline: Cell<Option<Instant>>,
    timeout: Cell<Duration>,
}

impl Waiter {
    fn finish(&self, r: Result<(Framed, Instant), Failure>) {
        self.put(r);
        self.wake();
    }

    fn put(&self, r: Result<(Framed, Instant), Failure>) {
        self.done.set(Some(r));
        self.ready.set(true);
    }

    /// Whether the reply or the failure has come (and was not taken yet).
    pub fn is_ready(&self) -> bool {
        self.ready.get()
    }

    fn wake(&self) {
        // By reference: the client's next wait finds the same waker and keeps it.
        if let Some(w) = self.waker.borrow().as_ref() {
            w.wake_by_ref();
        }
    }

    /// Whether waking `other` wakes the task this one would (a group's driver
    /// waits on all its clients' waiters with one waker).
    fn wakes_as(&self, other: &Waiter) -> bool {
        match (self.waker.borrow().as_ref(), other.waker.borrow().as_ref()) {
            (Some(a), Some(b)) => a.will_wake(b),
            _ => false,
        }
    }
}

/// What the clients and the connection's task share.
struct Inner {
    /// Commands queued since the task's last write.
    queued: RefCell<Vec<u8>>,
    /// Waiters in the order their commands were queued (and written).
    waiting: RefCell<VecDeque<Rc<Waiter>>>,
    /// Waiters at the front of `waiting` whose commands have been taken for writing.
    taken: Cell<usize>,
    /// Wakes the task: commands were queued, or the connection is to close. A flag
    /// and the task's waker, not tokio's `Notify`: all on one thread, and `Notify`'s
    /// lock and its `Notified` made anew on every turn of the task's loop were about
    /// 40 instructions a command.
    wake: Wake,
    closed: Cell<bool>,
    /// Why it closed, for commands that arrive after.
    ended: RefCell<Option<Failure>>,
}

/// The task's wake-up: a permit kept until the task takes it (as `Notify` keeps one).
#[derive(Default)]
struct Wake {
    poked: Cell<bool>,
    task: Cell<Option<Waker>>,
}

impl Wake {
    fn poke(&self) {
        self.poked.set(true);
        if let Some(w) = self.task.take() {
            w.wake();
        }
    }

    fn poll(&self, cx: &mut Context<'_>) -> Poll<()> {
        if self.poked.replace(false) {
            return Poll::Ready(());
        }
        let w = self.task.take().filter(|w| w.will_wake(cx.waker()));
        self.task.set(Some(w.unwrap_or_else(|| cx.waker().clone())));
        Poll::Pending
    }
}

/// A group's pipelined connection; clones share it.
#[derive(Clone)]
pub struct PipeConn {
    inner: Rc<Inner>,
}

impl PipeConn {
    pub fn is_closed(&self) -> bool {
        self.inner.closed.get()
    }

    /// The closed connection's failure if it is still to be counted (a reply that
    /// answered no command, when no command was queued to take it), taken once:
    /// the next command is charged with it.
    pub fn uncounted(&self) -> Option<Failure> {
        // Asked before every command a group queues: a live connection has none.
        if !self.inner.closed.get() {
            return None;
        }
        let mut ended = self.inner.ended.borrow_mut();
        let e = ended.as_mut().filter(|e| !e.unprocessed)?;
        let f = e.clone();
        e.unprocessed = true;
        Some(f)
    }

    /// Close it: the task drops the socket; commands written and not yet answered
    /// time out at their own deadlines.
    pub fn close(&self) {
        if !self.inner.closed.replace(true) {
            self.inner.wake.poke();
        }
    }

    /// Queue `request` and await its reply, in its turn, or its timeout (`timeout`
    /// after it was sent, at `deadline`). With the reply, when the read that brought
    /// it returned: the command's end.
    ///
    /// The command is queued by this call, and the future awaits its reply: a plain
    /// future, not an `async fn`, whose state machine's set-up and moves were about
    /// 40 instructions of a command's ~1,690.
    pub fn exchange<'a>(
        &'a self,
        waiter: &'a Rc<Waiter>,
        request: &[u8],
        deadline: Option<Instant>,
        timeout: Duration,
    ) -> Exchange<'a> {
        let inner = &self.inner;
        if inner.closed.get() {
            let f = self.uncounted().unwrap_or_else(|| {
                let mut f = inner.ended.borrow().clone().unwrap_or_else(|| Failure {
                    kind: ErrorKind::Reset,
                    why: Rc::from("the pipelined connection had closed"),
                    unprocessed: true,
                });
                f.unprocessed = true;
                f
            });
            return Exchange {
                conn: self,
                waiter,
                closed: Some(f),
                waiting: false,
            };
        }
        waiter.done.set(None);
        waiter.ready.set(false);
        waiter.written.set(false);
        waiter.deadline.set(deadline);
        waiter.timeout.set(timeout);
        let first = {
            let mut q = inner.queued.borrow_mut();
            let first = q.is_empty();
            q.extend_from_slice(request);
            first
        };
        inner.waiting.borrow_mut().push_back(waiter.clone());
        if first {
            inner.wake.poke();
        }
        Exchange {
            conn: self,
            waiter,
            closed: None,
            waiting: true,
        }
    }
}

impl PipeConn {
    /// Queue `request` for `waiter` with no future to await: a group's driver
    /// ([`super::driver`]) queues its clients' commands this way and looks at their
    /// waiters itself ([`Waiter::take`]) when one read has brought replies. Fails
    /// (unprocessed) when the connection had closed. Whoever queues must close the
    /// connection if it stops waiting before the reply, as [`Exchange`]'s drop does.
    pub fn queue(
        &self,
        waiter: &Rc<Waiter>,
        request: &[u8],
        deadline: Option<Instant>,
        timeout: Duration,
    ) -> Result<(), Failure> {
        let mut exchange = self.exchange(waiter, request, deadline, timeout);
        // Queued, or refused at once: the exchange's future is never polled.
        exchange.waiting = false;
        match exchange.closed.take() {
            Some(f) => Err(f),
            None => Ok(()),
        }
    }
}

impl Waiter {
    /// The reply (with the end of the read that brought it) or the failure, once
    /// it has come; taken, so a second look finds nothing.
    pub fn take(&self) -> Option<Result<(Framed, Instant), Failure>> {
        self.ready.set(false);
        self.done.take()
    }

    /// Wake `waker` when this waiter's command is answered or fails (kept if the
    /// same task's waker is already there).
    pub fn wake_with(&self, waker: &Waker) {
        let mut w = self.waker.borrow_mut();
        if !w.as_ref().is_some_and(|w| w.will_wake(waker)) {
            *w = Some(waker.clone());
        }
    }
}

/// One queued command's wait for its reply ([`PipeConn::exchange`]). Dropped before
/// the reply (the step's end), it closes the connection: the replies after a
/// missing one could no longer be matched to their commands.
pub struct Exchange<'a> {
    conn: &'a PipeConn,
    waiter: &'a Rc<Waiter>,
    /// The connection had closed before the command was queued.
    closed: Option<Failure>,
    /// Queued and not yet answered.
    waiting: bool,
}

impl Future for Exchange<'_> {
    type Output = Result<(Framed, Instant), Failure>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        if let Some(f) = this.closed.take() {
            return Poll::Ready(Err(f));
        }
        match this.waiter.take() {
            Some(r) => {
                this.waiting = false;
                Poll::Ready(r)
            }
            None => {
                let mut w = this.waiter.waker.borrow_mut();
                if !w.as_ref().is_some_and(|w| w.will_wake(cx.waker())) {
                    *w = Some(cx.waker().clone());
                }
                Poll::Pending
            }
        }
    }
}

impl Drop for Exchange<'_> {
    fn drop(&mut self) {
        if self.waiting {
            self.conn.close();
        }
    }
}

/// How the connection was opened.
pub struct Opened {
    pub connect: Duration,
}

/// Open a pipelined connection to a key-value target; its task is spawned on the
/// current `LocalSet`. An error is the kind to count and why.
pub async fn connect(target: &Target, meter: Rc<Meter>) -> Result<(PipeConn, Opened), Failure> {
    let (tcp, connect) = http::connect_tcp(target)
        .await
        .map_err(|(kind, e)| Failure {
            kind,
            why: Rc::from(e.to_string()),
            unprocessed: false,
        })?;
    // The login goes first: queued before any command can be.
    let (hello, login_replies) = match &target.proto {
        Proto::Redis(Some(login)) => login.hello(),
        _ => (&[][..], 0),
    };
    let inner = Rc::new(Inner {
        queued: RefCell::new(hello.to_vec()),
        waiting: RefCell::new(VecDeque::new()),
        taken: Cell::new(0),
        wake: Wake::default(),
        closed: Cell::new(false),
        ended: RefCell::new(None),
    });
    let framer = Framer::for_proto(&target.proto);
    let task = Task {
        inner: inner.clone(),
        meter,
        framer,
        buf: vec![0; READ_BUF].into_boxed_slice(),
        start: 0,
        end: 0,
        skip: 0,
        reply_bytes: 0,
        login_replies,
        read_at: Instant::now(),
    };
    tokio::task::spawn_local(task.run(tcp));
    Ok((PipeConn { inner }, Opened { connect }))
}

/// The connection's task: the socket, the read buffer and the reply being framed.
struct Task {
    inner: Rc<Inner>,
    meter: Rc<Meter>,
    framer: Framer,
    buf: Box<[u8]>,
    start: usize,
    end: usize,
    /// Bytes of a value still to read past.
    skip: u64,
    /// Bytes of the reply being framed so far.
    reply_bytes: u64,
    /// Replies to the login still to read (they answer no client's command).
    login_replies: usize,
    /// When the last read returned: the end of each reply it brought.
    read_at: Instant,
}

/// What woke the connection's task.
enum Event {
    Read(io::Result<usize>),
    Wrote(io::Result<usize>),
    Queued,
    Timer,
}

/// Why the connection stopped serving.
enum Ended {
    /// It died: every command in flight fails with this.
    Died(WireError),
    /// The head command's deadline passed.
    TimedOut,
    /// Closed from outside (a wait abandoned at the step's end).
    Closed,
    /// The store refused the login: every command in flight fails with this.
    Refused(Failure),
}

impl Task {
    async fn run(mut self, mut tcp: TcpStream) {
        let ended = self.serve(&mut tcp).await;
        // Nothing wakes the task for commands any more; its waker is let go.
        drop(self.inner.wake.task.take());
        drop(tcp);
        self.inner.closed.set(true);
        match ended {
            Ended::Died(e) => self.fail_all(&e),
            Ended::Refused(f) => self.fail_all_with(f),
            Ended::TimedOut | Ended::Closed => self.closed_early(),
        }
        self.time_out_the_rest().await;
    }

    /// Write what is queued, read and hand out replies, until the connection ends.
    async fn serve(&mut self, tcp: &mut TcpStream) -> Ended {
        let inner = self.inner.clone();
        let (mut rd, mut wr) = tcp.split();
        let mut out: Vec<u8> = Vec::new();
        let mut off = 0;
        let timer = tokio::time::sleep(Duration::ZERO);
        tokio::pin!(timer);
        let mut armed = false;
        loop {
            if inner.closed.get() {
                return Ended::Closed;
            }
            if off == out.len() {
                out.clear();
                off = 0;
                std::mem::swap(&mut out, &mut inner.queued.borrow_mut());
                if !out.is_empty() {
                    self.mark_written();
                }
            }
            let head = self.head_deadline();
            if let (false, Some(at)) = (armed, head) {
                timer.as_mut().reset(at.into());
                armed = true;
            }
            let writing = off < out.len();
            if self.end == self.buf.len() {
                return Ended::Died(WireError::Malformed(
                    "a reply line longer than the read buffer",
                ));
            }
            let room = &mut self.buf[self.end..];
            let event = tokio::select! {
                biased;
                r = rd.read(room) => Event::Read(r),
                r = wr.write(&out[off..]), if writing => Event::Wrote(r),
                _ = poll_fn(|cx| inner.wake.poll(cx)), if !writing => Event::Queued,
                _ = &mut timer, if armed => Event::Timer,
            };
            match event {
                Event::Read(Ok(0)) => {
                    let started = self.reply_bytes > 0 || self.end > self.start;
                    return Ended::Died(WireError::Eof { started });
                }
                Event::Read(Ok(n)) => {
                    self.read_at = Instant::now();
                    add(&self.meter.received, n);
                    self.end += n;
                    if let Err(ended) = self.frame() {
                        return ended;
                    }
                }
                Event::Wrote(Ok(0)) => {
                    return Ended::Died(WireError::Io(io::ErrorKind::WriteZero.into()))
                }
                Event::Wrote(Ok(n)) => {
                    add(&self.meter.sent, n);
                    off += n;
                }
                Event::Read(Err(e)) | Event::Wrote(Err(e)) => return Ended::Died(WireError::Io(e)),
                Event::Queued => {}
                // Armed for a command since answered: re-armed for the new head above.
                Event::Timer => {
                    armed = false;
                    if self.head_deadline().is_some_and(|at| at <= Instant::now()) {
                        return Ended::TimedOut;
                    }
                }
            }
        }
    }

    fn head_deadline(&self) -> Option<Instant> {
        self.inner.waiting.borrow().front()?.deadline.get()
    }

    /// Closed while commands were in flight: those never written go once more on a
    /// new connection; those written time out at their own deadlines
    /// ([`Task::time_out_the_rest`]).
    fn closed_early(&mut self) {
        let failure = Failure {
            kind: ErrorKind::Timeout,
            why: Rc::from("the pipelined connection closed after a command's timeout"),
            unprocessed: true,
        };
        *self.inner.ended.borrow_mut() = Some(failure.clone());
        self.inner.waiting.borrow_mut().retain(|w| {
            if !w.written.get() {
                w.finish(Err(failure.clone()));
            }
            w.written.get()
        });
    }

    /// Each command still waiting on the closed connection times out at its deadline.
    async fn time_out_the_rest(&mut self) {
        loop {
            let Some(w) = self.inner.waiting.borrow_mut().pop_front() else {
                return;
            };
            if let Some(at) = w.deadline.get() {
                tokio::time::sleep_until(at.into()).await;
            }
            let why = format!(
                "no whole response within the timeout ({} ms)",
                w.timeout.get().as_millis()
            );
            w.finish(Err(Failure {
                kind: ErrorKind::Timeout,
                why: Rc::from(why),
                unprocessed: false,
            }));
        }
    }

    /// The waiters of the commands just taken for writing are now in flight.
    fn mark_written(&self) {
        let waiting = self.inner.waiting.borrow();
        for w in waiting.iter().skip(self.inner.taken.get()) {
            w.written.set(true);
        }
        self.inner.taken.set(waiting.len());
    }

    /// Frame every whole reply buffered, each to the waiter at the queue's head.
    /// Waiters answered one after another that wake the same task (a group's driver)
    /// wake it once: the read's 16 replies were 16 wake-ups of one task, about 30
    /// instructions each.
    fn frame(&mut self) -> Result<(), Ended> {
        let mut last = None;
        let framed = self.frame_replies(&mut last);
        if let Some(w) = last {
            w.wake();
        }
        framed
    }

    /// [`Task::frame`]'s loop; `last` is the answered waiter whose task is still to wake.
    fn frame_replies(&mut self, last: &mut Option<Rc<Waiter>>) -> Result<(), Ended> {
        loop {
            if self.skip > 0 {
                let n = self.skip.min((self.end - self.start) as u64);
                self.skip -= n;
                self.start += n as usize;
                self.reply_bytes += n;
                if self.skip > 0 {
                    break;
                }
            }
            match self.framer.step(&self.buf[self.start..self.end]) {
                Step::Done { used, reply } => {
                    self.start += used;
                    self.reply_bytes += used as u64;
                    let got = self.framer.got();
                    self.framer.reset();
                    let bytes = std::mem::take(&mut self.reply_bytes);
                    self.answer(reply, got, bytes, last)?;
                }
                Step::More { used } => {
                    self.start += used;
                    self.reply_bytes += used as u64;
                    break;
                }
                Step::Skip { used, skip } => {
                    self.start += used;
                    self.reply_bytes += used as u64;
                    self.skip = skip;
                }
                Step::Invalid(why) => return Err(Ended::Died(WireError::Malformed(why))),
            }
        }
        // Keep the unframed rest at the front, so the next read has room.
        if self.start == self.end {
            self.start = 0;
            self.end = 0;
        } else if self.start > 0 {
            self.buf.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.start = 0;
        }
        Ok(())
    }

    /// Hand `reply` to the waiter at the queue's head; its task is woken when the
    /// next answered waiter's is another, or when the read's replies are done.
    fn answer(
        &mut self,
        reply: Reply,
        got: Got,
        bytes: u64,
        last: &mut Option<Rc<Waiter>>,
    ) -> Result<(), Ended> {
        if self.login_replies > 0 {
            self.login_replies -= 1;
            return match reply {
                Reply::Refused(kind, text) => Err(Ended::Refused(Failure {
                    kind,
                    why: Rc::from(format!("the login was refused: {text}")),
                    unprocessed: false,
                })),
                _ => Ok(()),
            };
        }
        // A reply before its command was written answers nothing hakaru sent. The
        // head stays queued, so that the connection's end fails it (popped here, it
        // was finished by no one: a client lost for the rest of the run).
        let w = {
            let mut waiting = self.inner.waiting.borrow_mut();
            if !waiting.front().is_some_and(|w| w.written.get()) {
                return Err(Ended::Died(WireError::Unsolicited));
            }
            waiting.pop_front().expect("looked at above")
        };
        self.inner.taken.set(self.inner.taken.get() - 1);
        w.put(Ok((Framed { reply, got, bytes }, self.read_at)));
        if !last.as_ref().is_some_and(|l| l.wakes_as(&w)) {
            if let Some(l) = last.replace(w) {
                l.wake();
            }
        }
        Ok(())
    }

    /// The connection died: every command in flight fails with `e`; those never
    /// written are unprocessed.
    fn fail_all(&mut self, e: &WireError) {
        self.fail_all_with(Failure {
            kind: e.kind(),
            why: Rc::from(e.to_string()),
            unprocessed: false,
        });
    }

    /// Every command in flight fails with `f`; those never written are unprocessed.
    ///
    /// A reply that answered no command is counted once, as the unpipelined path
    /// counts it: against the first command queued (written or not), or, when none
    /// is, against the next command that finds the connection closed. Bug it pins:
    /// a server answering each command twice had its extra replies dropped with
    /// their connections, every command counted a success.
    fn fail_all_with(&mut self, f: Failure) {
        let failure = |unprocessed| Failure {
            unprocessed,
            ..f.clone()
        };
        let mut blame = f.kind == ErrorKind::Unsolicited;
        let waiting = std::mem::take(&mut *self.inner.waiting.borrow_mut());
        *self.inner.ended.borrow_mut() = Some(failure(!(blame && waiting.is_empty())));
        self.inner.closed.set(true);
        for w in waiting {
            let unprocessed = !w.written.get() && !std::mem::take(&mut blame);
            w.finish(Err(failure(unprocessed)));
        }
    }
}

fn add(c: &Cell<u64>, n: usize) {
    c.set(c.get() + n as u64);
}
