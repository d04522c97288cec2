//! The task that drives one HTTP/2 connection ([`Driver`]): it writes the frames
//! its clients queued in [`Inner`], reads whole frames into a buffer it reuses, and
//! hands each to the shared state: DATA counted against the windows (given back in
//! batches with WINDOW_UPDATE), header blocks walked for `:status` alone, SETTINGS
//! and PING acknowledged, GOAWAY and RST_STREAM to the streams they end. A frame
//! that breaks the protocol ends the connection with GOAWAY, its error counted as
//! `protocol`.

use std::cell::RefCell;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll};
use std::time::Instant;

use tokio::io::{AsyncRead, AsyncWrite, Interest, ReadBuf};
use tokio::net::TcpStream;

use super::conn::Inner;
use super::frame::{self, Head, Malformed};
use super::hpack::{Decoder, DEFAULT_TABLE_SIZE};
use super::{Cause, H2Error, CONNECTION_WINDOW};
use crate::http::{socket, Meter};

/// A header block assembled from CONTINUATION frames may grow to this; past it the
/// server is refused (h2's default SETTINGS_MAX_HEADER_LIST_SIZE is 16 MiB; hakaru
/// reads only `:status`).
const MAX_BLOCK: usize = 1 << 20;

/// The read buffer: room for two frames of the largest size hakaru accepts (it is
/// moved down when less than one fits), so a read takes many small responses at once
/// while a connection holds 32 KiB, not the 64 KiB of the first version.
const READ_BUF: usize = 32 * 1024;

/// The byte stream under an HTTP/2 connection.
pub(super) enum Io {
    Plain(TcpStream),
    Tls(Box<tokio_rustls::client::TlsStream<TcpStream>>),
}

impl Io {
    /// Read into `buf`; `arrived` gets the kernel's receive time of what was read,
    /// where the socket stamps it (`--coalesce`).
    fn poll_read(
        &mut self,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
        arrived: &mut Option<Instant>,
    ) -> Poll<io::Result<()>> {
        match self {
            Io::Plain(s) if socket::stamping() => loop {
                std::task::ready!(s.poll_read_ready(cx))?;
                let room = buf.initialize_unfilled();
                match s.try_io(Interest::READABLE, || socket::recv_stamped(s, room)) {
                    Ok((n, at)) => {
                        buf.advance(n);
                        *arrived = at;
                        return Poll::Ready(Ok(()));
                    }
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                    Err(e) => return Poll::Ready(Err(e)),
                }
            },
            Io::Plain(s) => Pin::new(s).poll_read(cx, buf),
            Io::Tls(s) => Pin::new(s.as_mut()).poll_read(cx, buf),
        }
    }
    fn poll_write(&mut self, cx: &mut Context<'_>, b: &[u8]) -> Poll<io::Result<usize>> {
        match self {
            Io::Plain(s) => Pin::new(s).poll_write(cx, b),
            Io::Tls(s) => Pin::new(s.as_mut()).poll_write(cx, b),
        }
    }
    fn poll_flush(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self {
            Io::Plain(_) => Poll::Ready(Ok(())),
            Io::Tls(s) => Pin::new(s.as_mut()).poll_flush(cx),
        }
    }
}

/// What the task alone uses to read frames.
struct Reader {
    buf: Box<[u8]>,
    start: usize,
    end: usize,
    decoder: Decoder,
    /// A header block being assembled from CONTINUATION frames: its stream and
    /// whether its HEADERS ended the stream.
    block: Vec<u8>,
    block_for: Option<(u32, bool)>,
    /// DATA bytes read on the connection not yet given back.
    unacked: u32,
}

/// The connection's task: spawned on the worker's `LocalSet`, it ends with the
/// connection (or when no handle on it is left).
pub(super) struct Driver {
    inner: Rc<RefCell<Inner>>,
    io: Io,
    meter: Rc<Meter>,
    reader: Reader,
}

impl Driver {
    pub fn new(inner: Rc<RefCell<Inner>>, io: Io, meter: Rc<Meter>) -> Driver {
        Driver {
            inner,
            io,
            meter,
            reader: Reader::new(),
        }
    }

    /// Write what is queued, as far as the socket takes it.
    fn flush(&mut self, cx: &mut Context<'_>) -> Result<(), Cause> {
        let mut inner = self.inner.borrow_mut();
        let inner = &mut *inner;
        while inner.written < inner.out.len() {
            match self.io.poll_write(cx, &inner.out[inner.written..]) {
                Poll::Ready(Ok(0)) => return Err(Cause::io(io::ErrorKind::WriteZero.into())),
                Poll::Ready(Ok(n)) => {
                    inner.written += n;
                    self.meter.add_sent(n);
                }
                Poll::Ready(Err(e)) => return Err(Cause::io(e)),
                Poll::Pending => return Ok(()),
            }
        }
        inner.out.clear();
        inner.written = 0;
        inner.acks_unsent = 0;
        match self.io.poll_flush(cx) {
            Poll::Ready(Err(e)) => Err(Cause::io(e)),
            _ => Ok(()),
        }
    }

    /// Run until the connection ends: the cause.
    fn drive(&mut self, cx: &mut Context<'_>) -> Poll<Cause> {
        {
            let mut inner = self.inner.borrow_mut();
            inner.task_woken = false;
            if !inner.task.as_ref().is_some_and(|w| w.will_wake(cx.waker())) {
                inner.task = Some(cx.waker().clone());
            }
        }
        loop {
            if let Err(c) = self.flush(cx) {
                return Poll::Ready(c);
            }
            {
                let inner = self.inner.borrow();
                if inner.active == 0 {
                    if let Some((_, code)) = inner.goaway {
                        return Poll::Ready(Cause::GoAway(code));
                    }
                    // No handle left but ours: nobody can use the connection again.
                    if Rc::strong_count(&self.inner) == 1 {
                        return Poll::Ready(Cause::Dropped);
                    }
                }
            }
            let r = &mut self.reader;
            let mut rb = ReadBuf::new(r.room());
            let mut arrived = None;
            match self.io.poll_read(cx, &mut rb, &mut arrived) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(Err(e)) => return Poll::Ready(Cause::io(e)),
                Poll::Ready(Ok(())) => {
                    let n = rb.filled().len();
                    if n == 0 {
                        return Poll::Ready(Cause::Eof);
                    }
                    self.meter.add_received(n);
                    r.end += n;
                    let mut inner = self.inner.borrow_mut();
                    // The streams this read ends, ended when it arrived.
                    inner.arrived = arrived;
                    if let Err(Malformed(code, what)) = r.frames(&mut inner) {
                        // Say why, as far as the socket takes it, and end.
                        let last = 0;
                        frame::put_goaway(&mut inner.out, last, code);
                        drop(inner);
                        let _ = self.flush(cx);
                        return Poll::Ready(Cause::Protocol(what));
                    }
                }
            }
        }
    }
}

impl Future for Driver {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let this = self.get_mut();
        match this.drive(cx) {
            Poll::Pending => Poll::Pending,
            Poll::Ready(cause) => {
                this.inner.borrow_mut().end(cause);
                Poll::Ready(())
            }
        }
    }
}

impl Reader {
    fn new() -> Reader {
        Reader {
            buf: vec![0; READ_BUF].into_boxed_slice(),
            start: 0,
            end: 0,
            decoder: Decoder::new(DEFAULT_TABLE_SIZE),
            block: Vec::new(),
            block_for: None,
            unacked: 0,
        }
    }

    /// Make room for a read: what is left of a frame moves to the front when less
    /// than one frame of the largest size would fit after it.
    fn room(&mut self) -> &mut [u8] {
        if self.buf.len() - self.end < frame::HEAD_LEN + frame::DEFAULT_MAX_FRAME {
            self.buf.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.start = 0;
        }
        &mut self.buf[self.end..]
    }

    /// Handle every whole frame in the buffer.
    fn frames(&mut self, inner: &mut Inner) -> Result<(), Malformed> {
        while self.end - self.start >= frame::HEAD_LEN {
            let head = Head::parse(&self.buf[self.start..]);
            if head.len > frame::DEFAULT_MAX_FRAME {
                return Err(Malformed(
                    frame::FRAME_SIZE_ERROR,
                    "a frame larger than SETTINGS_MAX_FRAME_SIZE",
                ));
            }
            let at = self.start + frame::HEAD_LEN;
            if self.end < at + head.len {
                break;
            }
            self.start = at + head.len;
            let buf = std::mem::take(&mut self.buf);
            let r = self.frame(inner, &head, &buf[at..at + head.len]);
            self.buf = buf;
            r?;
        }
        if self.start == self.end {
            self.start = 0;
            self.end = 0;
        }
        Ok(())
    }

    fn frame(&mut self, inner: &mut Inner, head: &Head, payload: &[u8]) -> Result<(), Malformed> {
        const NEEDS_STREAM: Malformed =
            Malformed(frame::PROTOCOL_ERROR, "a stream's frame on stream 0");
        if let Some((id, _)) = self.block_for {
            if head.kind != frame::CONTINUATION || head.stream != id {
                return Err(Malformed(
                    frame::PROTOCOL_ERROR,
                    "a frame between HEADERS and its CONTINUATION",
                ));
            }
        }
        let size = |n| {
            (head.len == n).then_some(()).ok_or(Malformed(
                frame::FRAME_SIZE_ERROR,
                "a control frame of the wrong length",
            ))
        };
        match head.kind {
            frame::DATA => {
                if head.stream == 0 {
                    return Err(NEEDS_STREAM);
                }
                // Padding counts against the windows too (RFC 9113 §6.1).
                self.unacked += head.len as u32;
                if self.unacked >= CONNECTION_WINDOW / 2 {
                    frame::put_window_update(&mut inner.out, 0, self.unacked);
                    self.unacked = 0;
                }
                inner.on_data(head, frame::unpad(head, payload)?);
            }
            frame::HEADERS => {
                if head.stream == 0 {
                    return Err(NEEDS_STREAM);
                }
                let fragment = frame::unpad(head, payload)?;
                let end = head.flags & frame::END_STREAM != 0;
                if head.flags & frame::END_HEADERS != 0 {
                    self.block_done(inner, head.stream, end, fragment)?;
                } else {
                    self.block.clear();
                    self.block.extend_from_slice(fragment);
                    self.block_for = Some((head.stream, end));
                }
            }
            frame::CONTINUATION => {
                let Some((id, end)) = self.block_for else {
                    return Err(Malformed(
                        frame::PROTOCOL_ERROR,
                        "CONTINUATION without HEADERS",
                    ));
                };
                self.block.extend_from_slice(payload);
                if self.block.len() > MAX_BLOCK {
                    return Err(Malformed(
                        frame::PROTOCOL_ERROR,
                        "a header block past 1 MiB",
                    ));
                }
                if head.flags & frame::END_HEADERS != 0 {
                    self.block_for = None;
                    let block = std::mem::take(&mut self.block);
                    let r = self.block_done(inner, id, end, &block);
                    self.block = block;
                    r?;
                }
            }
            frame::RST_STREAM => {
                size(4)?;
                if let Some(&ix) = inner.by_id.get(&head.stream) {
                    inner.finish(ix, Err(H2Error::Reset(frame::u32_at(payload, 0))));
                }
            }
            frame::SETTINGS if head.flags & frame::ACK == 0 => {
                if !head.len.is_multiple_of(6) {
                    return Err(Malformed(
                        frame::FRAME_SIZE_ERROR,
                        "a SETTINGS frame of the wrong length",
                    ));
                }
                inner.on_settings(payload)?;
            }
            frame::PING if head.flags & frame::ACK == 0 => {
                size(8)?;
                inner.ack_queued(frame::HEAD_LEN + 8)?;
                frame::put_head(&mut inner.out, 8, frame::PING, frame::ACK, 0);
                inner.out.extend_from_slice(payload);
            }
            frame::GOAWAY => {
                if head.len < 8 {
                    return Err(Malformed(
                        frame::FRAME_SIZE_ERROR,
                        "a GOAWAY frame too short",
                    ));
                }
                inner.on_goaway(
                    frame::u32_at(payload, 0) & 0x7fff_ffff,
                    frame::u32_at(payload, 4),
                );
            }
            frame::WINDOW_UPDATE => {
                size(4)?;
                inner.on_window_update(head.stream, frame::u32_at(payload, 0))?;
            }
            frame::PUSH_PROMISE => {
                return Err(Malformed(
                    frame::PROTOCOL_ERROR,
                    "PUSH_PROMISE though push is disabled",
                ));
            }
            // Priority signals are advice to a server.
            frame::PRIORITY => {}
            // Acknowledgements, and frame types hakaru does not know (RFC 9113 §5.5).
            _ => {}
        }
        Ok(())
    }

    /// A whole header block: decoded (the table kept in step even for a stream
    /// already cancelled), its status to the stream.
    fn block_done(
        &mut self,
        inner: &mut Inner,
        stream: u32,
        end: bool,
        block: &[u8],
    ) -> Result<(), Malformed> {
        let status = self
            .decoder
            .status(block)
            .map_err(|e| Malformed(frame::COMPRESSION_ERROR, e.0))?;
        inner.on_head(stream, status, end);
        Ok(())
    }
}

/// Fuzzing ([`crate::fuzz::h2_frames`]): `data` read as a server's frames, after the
/// first byte, in reads of the size that byte picks, onto a connection with three
/// streams open; what the connection would write is dropped as a flush would.
pub(super) fn fuzz_frames(data: &[u8]) {
    let Some((&step, rest)) = data.split_first() else {
        return;
    };
    let mut inner = Inner::new();
    let mut cx = Context::from_waker(std::task::Waker::noop());
    for _ in 0..3 {
        // `:method GET` (static index 2) alone: the server's frames are what is read.
        let get = [super::hpack::Field::new(b":method", b"GET")];
        let _ = inner.open(&mut cx, &mut 0, &get, true, 64, false);
    }
    let mut r = Reader::new();
    for chunk in rest.chunks(usize::from(step).max(1)) {
        r.room()[..chunk.len()].copy_from_slice(chunk);
        r.end += chunk.len();
        if r.frames(&mut inner).is_err() {
            return;
        }
        inner.out.clear();
    }
}
