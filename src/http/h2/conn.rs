//! One HTTP/2 client connection: the state its clients and its task share, and the
//! task that drives it. A client opening a stream appends its HEADERS (and the DATA
//! its windows allow) to the connection's write buffer and wakes the task; the task
//! writes what every client queued in one go, reads frames for every stream, and
//! wakes a client only when its response has ended (or its body may go on), so a
//! request costs one wake each way. Nothing here allocates per request: stream slots,
//! the write buffer and the id map are reused. The task itself is [`super::driver`].

use std::collections::{HashMap, VecDeque};
use std::hash::{BuildHasherDefault, Hasher};
use std::task::{Context, Poll, Waker};
use std::time::Instant;

use super::frame::{self, Head, Malformed};
use super::hpack::{Encoder, Field};
use super::{Cause, H2Error, CONNECTION_WINDOW, STREAM_WINDOW};

/// The largest stream identifier (RFC 9113 §5.1.1): past it, a new connection.
const MAX_STREAM_ID: u32 = (1 << 31) - 1;

/// Stream ids are distinct small integers: hashing them is only in the way.
#[derive(Default)]
pub(super) struct IdHasher(u64);

impl Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, _: &[u8]) {
        unreachable!("only u32 stream ids are hashed")
    }
    fn write_u32(&mut self, n: u32) {
        // Client ids are odd: the low bit carries nothing.
        self.0 = u64::from(n >> 1);
    }
}

/// How the server ended a stream.
#[derive(Clone, Copy, PartialEq, Eq, Default)]
enum Fin {
    #[default]
    No,
    /// END_STREAM: the whole response came.
    Ok,
    /// RST_STREAM, GOAWAY or the connection's end.
    Err,
}

/// One stream's state, in a slot reused by the next stream.
#[derive(Default)]
pub(super) struct Slot {
    /// 0 while the slot is free.
    id: u32,
    /// The response's status once its head came; 0 before.
    pub status: u16,
    /// The response body's bytes (without padding).
    pub bytes: u64,
    /// When the head came, for a client that times it.
    pub head_at: Option<Instant>,
    /// When the kernel received the read that ended the stream, where the socket
    /// stamps its reads (`--coalesce`).
    pub ended_at: Option<Instant>,
    timed: bool,
    /// The body kept for a client that reads it: at most `keep` bytes.
    pub body: Vec<u8>,
    keep: usize,
    fin: Fin,
    /// How it ended, until the client takes it.
    result: Option<Result<(), H2Error>>,
    /// Our END_STREAM has been queued.
    sent_all: bool,
    /// The client waits for window to send more of its body.
    body_waiting: bool,
    send_window: i64,
    /// Bytes read on this stream not yet given back with WINDOW_UPDATE.
    unacked: u32,
    waker: Option<Waker>,
}

/// The most acknowledgement bytes queued unsent (~3,800 PINGs) before a
/// connection is ended: a server that reads nothing cannot make hakaru buffer more.
pub(super) const MAX_ACKS_UNSENT: usize = 64 * 1024;

/// What the clients and the task share.
pub(super) struct Inner {
    /// Frames queued for the socket; `out[written..]` is still to go.
    pub(super) out: Vec<u8>,
    /// The request side's HPACK table, in step with the server's decoder: blocks are
    /// encoded in the order they are queued in `out`.
    encoder: Encoder,
    /// A request's header block, reused.
    block: Vec<u8>,
    pub(super) written: usize,
    /// Bytes of PING and SETTINGS acknowledgements queued since `out` last emptied:
    /// a server that floods them and never reads would grow `out` without end.
    pub(super) acks_unsent: usize,
    pub(super) task: Option<Waker>,
    pub(super) task_woken: bool,
    pub(super) slots: Vec<Slot>,
    pub(super) free: Vec<usize>,
    pub(super) by_id: HashMap<u32, usize, BuildHasherDefault<IdHasher>>,
    pub(super) next_id: u32,
    pub(super) active: usize,
    /// The server's SETTINGS_MAX_CONCURRENT_STREAMS (unlimited until it says).
    pub(super) max_streams: usize,
    /// The server's SETTINGS_INITIAL_WINDOW_SIZE and SETTINGS_MAX_FRAME_SIZE.
    pub(super) peer_window: i64,
    pub(super) peer_max_frame: usize,
    /// The connection's send window.
    pub(super) send_window: i64,
    /// Clients waiting for a free stream, in order, each by its ticket (one entry a
    /// client however often it is polled, none once it is woken or gone).
    pub(super) waiters: VecDeque<(u64, Waker)>,
    next_ticket: u64,
    /// Streams held for clients woken from the queue, not yet opened.
    reserved: usize,
    pub(super) ended: Option<Cause>,
    /// The kernel's receive time of the read being handled, where reads are stamped.
    pub(super) arrived: Option<Instant>,
    /// The server's GOAWAY: last stream id, code.
    pub(super) goaway: Option<(u32, u32)>,
}

impl Inner {
    pub fn new() -> Inner {
        // Grown as a burst of requests needs; a request's HEADERS is ~50 bytes.
        let mut out = Vec::with_capacity(4 * 1024);
        out.extend_from_slice(frame::PREFACE);
        frame::put_settings(
            &mut out,
            &[
                // Responses then need no dynamic table: nothing of theirs is decoded.
                (frame::SETTINGS_HEADER_TABLE_SIZE, 0),
                // A benchmark reads what it asked for: pushed streams would only be
                // counted wrong.
                (frame::SETTINGS_ENABLE_PUSH, 0),
                (frame::SETTINGS_INITIAL_WINDOW_SIZE, STREAM_WINDOW),
            ],
        );
        frame::put_window_update(&mut out, 0, CONNECTION_WINDOW - 65_535);
        Inner {
            out,
            encoder: Encoder::new(),
            block: Vec::new(),
            written: 0,
            acks_unsent: 0,
            task: None,
            task_woken: false,
            slots: Vec::new(),
            free: Vec::new(),
            by_id: HashMap::default(),
            next_id: 1,
            active: 0,
            max_streams: usize::MAX,
            peer_window: 65_535,
            peer_max_frame: frame::DEFAULT_MAX_FRAME,
            send_window: 65_535,
            waiters: VecDeque::new(),
            next_ticket: 1,
            reserved: 0,
            ended: None,
            arrived: None,
            goaway: None,
        }
    }

    /// No new stream can start here.
    pub fn is_closed(&self) -> bool {
        self.ended.is_some() || self.goaway.is_some() || self.next_id > MAX_STREAM_ID
    }

    pub fn wake_task(&mut self) {
        if !self.task_woken {
            self.task_woken = true;
            if let Some(w) = &self.task {
                w.wake_by_ref();
            }
        }
    }

    /// Wake waiting clients, first come first, while streams are free; each woken
    /// client has its stream reserved until it comes for it (or gives up), so a
    /// client that did not wait cannot take it first.
    pub fn wake_waiter(&mut self) {
        while self.active + self.reserved < self.max_streams {
            let Some((_, w)) = self.waiters.pop_front() else {
                break;
            };
            self.reserved += 1;
            w.wake();
        }
    }

    /// Wake every waiting client (the connection can take no more streams: each
    /// will find out), with a reservation each so that their leaving balances.
    fn wake_all_waiters(&mut self) {
        self.reserved += self.waiters.len();
        for (_, w) in self.waiters.drain(..) {
            w.wake();
        }
    }

    /// A waiting client gave up (dropped by its timeout): its place goes, and if it
    /// had been woken for a free stream, the stream goes to the next client.
    pub fn leave_queue(&mut self, ticket: u64) {
        match self.waiters.iter().position(|(t, _)| *t == ticket) {
            Some(at) => {
                self.waiters.remove(at);
            }
            None => {
                self.reserved -= 1;
                self.wake_waiter();
            }
        }
    }

    /// Whether a client may start a stream now: ready (with an error if the
    /// connection can take none), or queued in `ticket` (0 when not queued).
    fn admit(&mut self, cx: &mut Context<'_>, ticket: &mut u64) -> Poll<Result<(), H2Error>> {
        let mut woken = false;
        if *ticket != 0 {
            if let Some((_, w)) = self.waiters.iter_mut().find(|(t, _)| t == ticket) {
                // Polled while still in the queue: it keeps its place.
                w.clone_from(cx.waker());
                return Poll::Pending;
            }
            // Woken: the stream reserved for it is taken here, or given back below.
            self.reserved -= 1;
            *ticket = 0;
            woken = true;
        }
        if let Some(c) = &self.ended {
            return Poll::Ready(Err(H2Error::NotSent(c.clone())));
        }
        if let Some((_, code)) = self.goaway {
            return Poll::Ready(Err(H2Error::NotSent(Cause::GoAway(code))));
        }
        if self.next_id > MAX_STREAM_ID {
            return Poll::Ready(Err(H2Error::NotSent(Cause::Exhausted)));
        }
        if self.active + self.reserved < self.max_streams && (woken || self.waiters.is_empty()) {
            return Poll::Ready(Ok(()));
        }
        *ticket = self.next_ticket;
        self.next_ticket += 1;
        if woken {
            // The limit fell meanwhile (a new SETTINGS): first in line still.
            self.waiters.push_front((*ticket, cx.waker().clone()));
        } else {
            self.waiters.push_back((*ticket, cx.waker().clone()));
        }
        Poll::Pending
    }

    /// Start a stream for a request whose header block is `block`, or wait for the
    /// server's concurrency limit to allow one. `keep`: body bytes to keep;
    /// `ticket`: the client's place in the queue while it waits (0 when it is not).
    pub fn open(
        &mut self,
        cx: &mut Context<'_>,
        ticket: &mut u64,
        fields: &[Field],
        end_stream: bool,
        keep: usize,
        timed: bool,
    ) -> Poll<Result<usize, H2Error>> {
        if let Err(e) = std::task::ready!(self.admit(cx, ticket)) {
            return Poll::Ready(Err(e));
        }
        let id = self.next_id;
        self.next_id += 2;
        let ix = self.free.pop().unwrap_or_else(|| {
            self.slots.push(Slot::default());
            self.slots.len() - 1
        });
        let s = &mut self.slots[ix];
        s.id = id;
        s.status = 0;
        s.bytes = 0;
        s.head_at = None;
        s.ended_at = None;
        s.timed = timed;
        s.body.clear();
        s.keep = keep;
        s.fin = Fin::No;
        s.result = None;
        s.sent_all = end_stream;
        s.body_waiting = false;
        s.send_window = self.peer_window;
        s.unacked = 0;
        self.by_id.insert(id, ix);
        self.active += 1;
        self.block.clear();
        self.encoder.encode(&mut self.block, fields);
        put_headers(
            &mut self.out,
            id,
            &self.block,
            end_stream,
            self.peer_max_frame,
        );
        self.wake_task();
        // Room for more: let the next waiting client try too.
        self.wake_waiter();
        Poll::Ready(Ok(ix))
    }

    /// Queue the rest of a request body (`body[*sent..]`) as the windows allow;
    /// ready when it is all queued or the stream has ended (its response says how).
    pub fn send_body(
        &mut self,
        cx: &mut Context<'_>,
        ix: usize,
        body: &[u8],
        sent: &mut usize,
    ) -> Poll<()> {
        let Inner {
            slots,
            out,
            send_window,
            peer_max_frame,
            ..
        } = self;
        let s = &mut slots[ix];
        while s.fin == Fin::No {
            let room = s.send_window.min(*send_window).min(*peer_max_frame as i64);
            if room <= 0 {
                // A server that never grants window stalls the body here, until
                // the request's timeout drops it.
                s.body_waiting = true;
                s.waker = Some(cx.waker().clone());
                break;
            }
            let n = (room as usize).min(body.len() - *sent);
            let end = *sent + n == body.len();
            frame::put_head(
                out,
                n,
                frame::DATA,
                if end { frame::END_STREAM } else { 0 },
                s.id,
            );
            out.extend_from_slice(&body[*sent..*sent + n]);
            *sent += n;
            s.send_window -= n as i64;
            *send_window -= n as i64;
            if end {
                s.sent_all = true;
                s.body_waiting = false;
                break;
            }
        }
        let done = !s.body_waiting || s.fin != Fin::No;
        self.wake_task();
        if done {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    }

    /// The stream's end, once the task has seen it.
    pub fn poll_end(&mut self, cx: &mut Context<'_>, ix: usize) -> Poll<Result<(), H2Error>> {
        let s = &mut self.slots[ix];
        match s.result.take() {
            Some(r) => Poll::Ready(r),
            None => {
                if !s.waker.as_ref().is_some_and(|w| w.will_wake(cx.waker())) {
                    s.waker = Some(cx.waker().clone());
                }
                Poll::Pending
            }
        }
    }

    pub fn slot(&self, ix: usize) -> &Slot {
        &self.slots[ix]
    }

    /// The client is done with the stream (answered, failed, or dropped mid-way by
    /// its timeout): a stream the server has not closed, or whose request body was
    /// cut short, is cancelled with RST_STREAM so it stops counting against the
    /// server's limit.
    pub fn release(&mut self, ix: usize) {
        let s = &mut self.slots[ix];
        let cancel = s.fin == Fin::No || (s.fin == Fin::Ok && !s.sent_all);
        let id = s.id;
        *s = Slot {
            body: std::mem::take(&mut s.body),
            ..Slot::default()
        };
        self.by_id.remove(&id);
        self.free.push(ix);
        self.active -= 1;
        if self.ended.is_none() {
            if cancel {
                frame::put_rst_stream(&mut self.out, id, frame::CANCEL);
                self.wake_task();
            }
            if self.goaway.is_some() && self.active == 0 {
                // Nothing left to wait for on a connection going away: close it.
                self.wake_task();
            }
        }
        self.wake_waiter();
    }

    /// End the stream in slot `ix` and wake its client.
    pub(super) fn finish(&mut self, ix: usize, result: Result<(), H2Error>) {
        let s = &mut self.slots[ix];
        s.ended_at = self.arrived;
        s.fin = if result.is_ok() { Fin::Ok } else { Fin::Err };
        s.result = Some(result);
        self.by_id.remove(&s.id);
        if let Some(w) = s.waker.take() {
            w.wake();
        }
    }

    /// The connection is over: every open stream fails with `cause` (or with the
    /// error GOAWAY the server sent before it closed).
    pub(super) fn end(&mut self, cause: Cause) {
        let open: Vec<usize> = self.by_id.values().copied().collect();
        for ix in open {
            let e = match self.goaway {
                Some((_, code)) if code != frame::NO_ERROR => H2Error::GoAway {
                    code,
                    unprocessed: false,
                },
                _ => H2Error::Sent(cause.clone()),
            };
            self.finish(ix, Err(e));
        }
        self.ended = Some(cause);
        self.task = None;
        self.wake_all_waiters();
    }

    pub(super) fn on_goaway(&mut self, last: u32, code: u32) {
        self.goaway = Some((last, code));
        let above: Vec<usize> = self
            .by_id
            .iter()
            .filter(|(id, _)| **id > last)
            .map(|(_, ix)| *ix)
            .collect();
        for ix in above {
            // Never processed: a graceful GOAWAY's are sent again elsewhere.
            let unprocessed = code == frame::NO_ERROR;
            self.finish(ix, Err(H2Error::GoAway { code, unprocessed }));
        }
        self.wake_all_waiters();
    }

    pub(super) fn on_settings(&mut self, payload: &[u8]) -> Result<(), Malformed> {
        for s in payload.chunks_exact(6) {
            let value = frame::u32_at(s, 2);
            match u16::from_be_bytes([s[0], s[1]]) {
                frame::SETTINGS_MAX_CONCURRENT_STREAMS => {
                    self.max_streams = value as usize;
                    self.wake_waiter();
                }
                frame::SETTINGS_INITIAL_WINDOW_SIZE => {
                    if i64::from(value) > frame::MAX_WINDOW {
                        return Err(Malformed(
                            frame::FLOW_CONTROL_ERROR,
                            "SETTINGS_INITIAL_WINDOW_SIZE past 2^31-1",
                        ));
                    }
                    let delta = i64::from(value) - self.peer_window;
                    self.peer_window = i64::from(value);
                    for s in self.slots.iter_mut().filter(|s| s.id != 0) {
                        s.send_window += delta;
                        if delta > 0 && s.body_waiting {
                            if let Some(w) = &s.waker {
                                w.wake_by_ref();
                            }
                        }
                    }
                }
                frame::SETTINGS_MAX_FRAME_SIZE => {
                    if !(16_384..=16_777_215).contains(&value) {
                        return Err(Malformed(
                            frame::PROTOCOL_ERROR,
                            "SETTINGS_MAX_FRAME_SIZE out of range",
                        ));
                    }
                    self.peer_max_frame = value as usize;
                }
                frame::SETTINGS_HEADER_TABLE_SIZE => self.encoder.limit(value as usize),
                // The rest do not concern a client.
                _ => {}
            }
        }
        self.ack_queued(frame::HEAD_LEN)?;
        frame::put_head(&mut self.out, 0, frame::SETTINGS, frame::ACK, 0);
        Ok(())
    }

    /// Counts an acknowledgement about to be queued; past [`MAX_ACKS_UNSENT`] the
    /// connection ends as a protocol error (ENHANCE_YOUR_CALM), as servers end a
    /// client's flood.
    pub(super) fn ack_queued(&mut self, bytes: usize) -> Result<(), Malformed> {
        self.acks_unsent += bytes;
        if self.acks_unsent > MAX_ACKS_UNSENT {
            return Err(Malformed(
                frame::ENHANCE_YOUR_CALM,
                "a flood of PING or SETTINGS frames whose acknowledgements the server does not read",
            ));
        }
        Ok(())
    }

    pub(super) fn on_window_update(
        &mut self,
        stream: u32,
        increment: u32,
    ) -> Result<(), Malformed> {
        let inc = i64::from(increment & 0x7fff_ffff);
        if stream == 0 {
            self.send_window += inc;
            if self.send_window > frame::MAX_WINDOW {
                return Err(Malformed(
                    frame::FLOW_CONTROL_ERROR,
                    "a connection window past 2^31-1",
                ));
            }
            for s in self.slots.iter().filter(|s| s.body_waiting) {
                if let Some(w) = &s.waker {
                    w.wake_by_ref();
                }
            }
        } else if let Some(&ix) = self.by_id.get(&stream) {
            let s = &mut self.slots[ix];
            s.send_window += inc;
            if s.body_waiting {
                if let Some(w) = &s.waker {
                    w.wake_by_ref();
                }
            }
        }
        Ok(())
    }

    /// A stream the server broke the protocol on: it alone fails, cancelled.
    pub(super) fn stream_error(&mut self, ix: usize, what: &'static str) {
        let id = self.slots[ix].id;
        frame::put_rst_stream(&mut self.out, id, frame::PROTOCOL_ERROR);
        self.finish(ix, Err(H2Error::Malformed(what)));
    }

    pub(super) fn on_data(&mut self, head: &Head, data: &[u8]) {
        let Some(&ix) = self.by_id.get(&head.stream) else {
            // A stream already ended or cancelled: only the connection's window counts.
            return;
        };
        let end = head.flags & frame::END_STREAM != 0;
        let s = &mut self.slots[ix];
        if s.status == 0 {
            return self.stream_error(ix, "DATA before the response's HEADERS");
        }
        s.bytes += data.len() as u64;
        if s.body.len() < s.keep {
            let n = data.len().min(s.keep - s.body.len());
            s.body.extend_from_slice(&data[..n]);
        }
        if end {
            return self.finish(ix, Ok(()));
        }
        s.unacked += head.len as u32;
        if s.unacked >= STREAM_WINDOW / 2 {
            frame::put_window_update(&mut self.out, s.id, s.unacked);
            s.unacked = 0;
        }
    }

    /// A whole header block's `:status` for `stream`.
    pub(super) fn on_head(&mut self, stream: u32, status: Option<u16>, end: bool) {
        let Some(&ix) = self.by_id.get(&stream) else {
            return;
        };
        let s = &mut self.slots[ix];
        if s.status == 0 {
            match status {
                // Informational (100 Continue, 103): the response is still to come.
                Some(c @ 100..=199) if !end && c != 101 => return,
                Some(c @ 200..) => {
                    s.status = c;
                    if s.timed {
                        s.head_at = Some(Instant::now());
                    }
                }
                _ => return self.stream_error(ix, "a response without a final :status"),
            }
        }
        // Otherwise trailers, which end the stream.
        if end {
            self.finish(ix, Ok(()));
        }
    }
}

/// HEADERS for stream `id`, with CONTINUATION frames if the block is larger than
/// the server's frames may be.
fn put_headers(out: &mut Vec<u8>, id: u32, block: &[u8], end_stream: bool, max_frame: usize) {
    let first = block.len().min(max_frame);
    let mut flags = if end_stream { frame::END_STREAM } else { 0 };
    if first == block.len() {
        flags |= frame::END_HEADERS;
    }
    frame::put_head(out, first, frame::HEADERS, flags, id);
    out.extend_from_slice(&block[..first]);
    let mut rest = &block[first..];
    while !rest.is_empty() {
        let n = rest.len().min(max_frame);
        let flags = if n == rest.len() {
            frame::END_HEADERS
        } else {
            0
        };
        frame::put_head(out, n, frame::CONTINUATION, flags, id);
        out.extend_from_slice(&rest[..n]);
        rest = &rest[n..];
    }
}
