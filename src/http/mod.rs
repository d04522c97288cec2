//! The wire: connecting (TCP, TLS), writing a prepared request, and reading one
//! HTTP/1.x response to its last byte (Content-Length, chunked, or until close),
//! counting its bytes as they arrive and keeping the body only when a response check
//! asks for it. No allocation per request.
//!
//! A plain TCP connection holds no read buffer while it waits: it waits for the socket
//! to be readable first, then borrows one of its thread's spare buffers for the read
//! and gives it back once the bytes are consumed (a response's body that is only
//! counted is consumed as it arrives). Only a connection left holding part of a head or
//! a chunk line keeps its buffer across a wait. So 10,000 open connections on a worker
//! share a handful of buffers instead of touching a page of one each (TLS keeps a
//! buffer per connection: rustls reads ahead into its own anyway).

pub mod encode;
mod fetch;
mod framed;
pub mod h2;
mod head;
pub mod mysql;
pub mod mysql_conn;
pub mod pg;
pub mod pg_conn;
mod socket;
pub use socket::stamp_arrivals;
mod tls;
pub mod url;

pub use fetch::{fetch, Fetched};
pub(crate) use framed::Framer;
pub use framed::{Framed, Login, Proto};
pub use tls::{offer_h2, tls_connector};

use std::cell::Cell;
use std::io;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use rustls::pki_types::ServerName;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;

use crate::stats::ErrorKind;
use head::{chunk_size, find_crlf, parse_head};

/// A host the run talks to, resolved once before any load.
#[derive(Debug, Clone, PartialEq)]
pub struct Target {
    pub https: bool,
    pub host: String,
    pub port: u16,
    pub addrs: Vec<SocketAddr>,
    /// What the target speaks: HTTP, or a key-value store's protocol.
    pub proto: Proto,
}

impl Target {
    /// "http://host:port", as shown in reports (a key-value store's scheme and its
    /// database, never its password).
    pub fn label(&self) -> String {
        let scheme = match (&self.proto, self.https) {
            (Proto::Http, true) => "https",
            (Proto::Redis(_), true) => "rediss",
            (p, _) => p.scheme(),
        };
        if let Proto::Redis(Some(login)) = &self.proto {
            if login.db != 0 {
                return format!("{}/{}", self.host_label(scheme), login.db);
            }
        }
        self.host_label(scheme)
    }

    fn host_label(&self, scheme: &str) -> String {
        if self.host.contains(':') {
            format!("{scheme}://[{}]:{}", self.host, self.port)
        } else {
            format!("{scheme}://{}:{}", self.host, self.port)
        }
    }
}

/// Bytes moved on one worker's connections, counted as they move: a body cut off by
/// a timeout still shows what arrived of it.
#[derive(Debug, Default)]
pub struct Meter {
    pub received: Cell<u64>,
    pub sent: Cell<u64>,
}

impl Meter {
    #[inline]
    fn add_received(&self, n: usize) {
        self.received.set(self.received.get() + n as u64);
    }
    #[inline]
    fn add_sent(&self, n: usize) {
        self.sent.set(self.sent.get() + n as u64);
    }
}

/// Where a response body goes when a check wants to read it: at most `limit` bytes
/// are kept (the rest is counted and dropped, and `truncated` says so).
pub struct BodySink<'a> {
    pub buf: &'a mut Vec<u8>,
    pub limit: usize,
    pub truncated: bool,
    /// Where to copy the (final) response head, for a caller that reads its headers
    /// (`fetch`); the load path leaves it `None`.
    pub head: Option<&'a mut Vec<u8>>,
}

impl BodySink<'_> {
    #[inline]
    fn push(&mut self, bytes: &[u8]) {
        let room = self.limit.saturating_sub(self.buf.len());
        if bytes.len() > room {
            self.truncated = true;
        }
        self.buf.extend_from_slice(&bytes[..bytes.len().min(room)]);
    }
}

/// Errors of the client's own making: it ran out of file descriptors or of local
/// ports. Not the server's fault, and retrying at once cannot help.
pub fn is_client_limit(e: &io::Error) -> bool {
    use rustix::io::Errno;
    let errno = Errno::from_io_error(e);
    matches!(
        errno,
        Some(Errno::MFILE | Errno::NFILE | Errno::ADDRNOTAVAIL | Errno::NOBUFS | Errno::NOMEM)
    )
}

/// The most spare read buffers a thread keeps; past this they are freed. More than
/// a worker's connections ever hold at once in practice (one each only while a read
/// is being consumed, or a head is split across reads).
const MAX_SPARE: usize = 64;

thread_local! {
    /// This thread's spare read buffers, lent to plain connections for a read (LIFO, so
    /// the one just given back, warm in cache, is the next one lent).
    static SPARE: std::cell::RefCell<Vec<Box<[u8]>>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// A read buffer of [`BUF_SIZE`] from this thread's spares, or a new one.
fn borrow_buffer() -> Box<[u8]> {
    SPARE
        .with(|s| s.borrow_mut().pop())
        .unwrap_or_else(new_buffer)
}

/// Give a read buffer back to this thread's spares (one of another size is freed).
fn return_buffer(b: Box<[u8]>) {
    if b.len() == BUF_SIZE {
        SPARE.with(|s| {
            let mut s = s.borrow_mut();
            if s.len() < MAX_SPARE {
                s.push(b);
            }
        });
    }
}

/// A connection's read buffer: what one read takes in. Most response heads fit; a
/// larger head grows the buffer for that response only. (8 KiB, wrk's size, was tried:
/// resident memory per connection moved by under 1.5 KB — only the pages a read
/// touches are resident — and large bodies would take four times the reads.)
const BUF_SIZE: usize = 32 * 1024;
/// The largest response head the reader grows its buffer for.
const MAX_HEAD: usize = 64 * 1024;
const MAX_HEADERS: usize = 100;
/// A chunk-size line longer than this is not HTTP.
const MAX_LINE: usize = 4096;

enum Stream {
    Plain(TcpStream),
    Tls(Box<tokio_rustls::client::TlsStream<TcpStream>>),
    /// Canned bytes for the fuzz targets ([`Conn::from_bytes`]): the real reader on no socket.
    Memory(Box<Memory>),
}

/// What a [`Stream::Memory`] reads: `data`, at most `step` bytes per read, then EOF.
struct Memory {
    data: Vec<u8>,
    pos: usize,
    step: usize,
}

impl Stream {
    /// Write all of `b`, counting what the kernel took as it goes.
    async fn write_all(&mut self, mut b: &[u8], meter: &Meter) -> io::Result<()> {
        while !b.is_empty() {
            let n = match self {
                Stream::Plain(s) => socket::send_some(s, b).await?,
                Stream::Tls(s) => s.write(b).await?,
                Stream::Memory(_) => b.len(),
            };
            if n == 0 {
                return Err(io::ErrorKind::WriteZero.into());
            }
            meter.add_sent(n);
            b = &b[n..];
        }
        if let Stream::Tls(s) = self {
            s.flush().await?;
        }
        Ok(())
    }

    async fn read(&mut self, b: &mut [u8]) -> io::Result<usize> {
        match self {
            Stream::Plain(s) => s.read(b).await,
            Stream::Tls(s) => s.read(b).await,
            Stream::Memory(m) => {
                let n = m.step.min(b.len()).min(m.data.len() - m.pos);
                b[..n].copy_from_slice(&m.data[m.pos..m.pos + n]);
                m.pos += n;
                Ok(n)
            }
        }
    }
}

/// What a successful exchange tells the caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Response {
    pub status: u16,
    /// Bytes read off the socket for this response (head and body).
    pub bytes: u64,
    /// The server will not take another request on this connection.
    pub close: bool,
    /// From the request's first byte written to its response's head read, when the
    /// connection times it ([`Conn::time_first_byte`]: ab's "Waiting").
    pub waiting: Option<Duration>,
    /// From the request's first byte written to the response's last byte read, when
    /// the connection times it (ab's "Processing": Total − Connect).
    pub processing: Option<Duration>,
    /// When the kernel received the read that ended the response, where the
    /// connection stamps its reads (`--coalesce`); the engine's clock otherwise.
    pub arrived: Option<Instant>,
}

/// How an exchange failed, before it is classified into an [`ErrorKind`].
#[derive(Debug)]
pub enum WireError {
    Io(io::Error),
    /// The connection ended before a whole response; `started` says whether any byte came.
    Eof {
        started: bool,
    },
    Malformed(&'static str),
    /// The connection ended inside a body whose length was promised (Content-Length,
    /// or a chunk's size): the server sent less than it said.
    Truncated,
    /// Bytes were waiting before the request was written: no request asked for them.
    Unsolicited,
}

impl WireError {
    pub fn kind(&self) -> ErrorKind {
        match self {
            WireError::Malformed(_) => ErrorKind::Malformed,
            WireError::Eof { .. } => ErrorKind::Reset,
            WireError::Truncated => ErrorKind::Truncated,
            WireError::Unsolicited => ErrorKind::Unsolicited,
            WireError::Io(e) => match e.kind() {
                io::ErrorKind::ConnectionReset
                | io::ErrorKind::ConnectionAborted
                | io::ErrorKind::BrokenPipe
                | io::ErrorKind::UnexpectedEof => ErrorKind::Reset,
                io::ErrorKind::TimedOut => ErrorKind::Timeout,
                io::ErrorKind::InvalidData => ErrorKind::Malformed,
                _ => ErrorKind::Io,
            },
        }
    }

    /// True when a reused keep-alive connection was closed by the server before it
    /// sent anything: the request never reached it, so trying once more on a fresh
    /// connection is what every HTTP client does.
    pub fn is_stale_connection(&self) -> bool {
        match self {
            WireError::Eof { started } => !started,
            WireError::Io(e) => matches!(
                e.kind(),
                io::ErrorKind::ConnectionReset
                    | io::ErrorKind::BrokenPipe
                    | io::ErrorKind::ConnectionAborted
            ),
            WireError::Malformed(_) | WireError::Truncated | WireError::Unsolicited => false,
        }
    }
}

impl std::fmt::Display for WireError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WireError::Io(e) => write!(f, "{e}"),
            WireError::Eof { .. } => f.write_str("the connection closed before a whole response"),
            WireError::Malformed(m) => f.write_str(m),
            WireError::Truncated => {
                f.write_str("the connection closed before the promised body length arrived")
            }
            WireError::Unsolicited => {
                f.write_str("the server sent data before the request was written")
            }
        }
    }
}

impl From<io::Error> for WireError {
    fn from(e: io::Error) -> Self {
        WireError::Io(e)
    }
}

/// A connection with its read buffer.
pub struct Conn {
    stream: Stream,
    buf: Box<[u8]>,
    start: usize,
    end: usize,
    /// Responses received on this connection so far.
    pub served: u64,
    /// Time each exchange's wait for the response head (two clock reads a request;
    /// only `ab` asks, for its Waiting column).
    pub time_first_byte: bool,
    /// The kernel's receive time of the last read, where reads are stamped.
    arrived: Option<Instant>,
}

/// Timings of opening a connection.
#[derive(Debug, Clone, Copy)]
pub struct Opened {
    pub connect: Duration,
    pub tls: Option<Duration>,
}

/// A fresh read buffer for [`connect`]. Callers that reconnect often keep the one a
/// closed connection gave back ([`Conn::into_buffer`]) instead: without keep-alive,
/// zeroing a new buffer per connection was 5% of the client's CPU.
pub fn new_buffer() -> Box<[u8]> {
    vec![0; BUF_SIZE].into_boxed_slice()
}

/// A connection that could not be opened: its kind, the OS or TLS reason, and the
/// read buffer handed back.
pub struct ConnectError {
    pub kind: ErrorKind,
    /// Why, as the OS or the TLS library said it (made into text only when shown).
    pub cause: WireError,
    pub buf: Box<[u8]>,
}

/// Open a connection to a target: TCP, then TLS for https targets. `buf` becomes the
/// connection's read buffer (its old contents do not matter); a failure hands it back.
pub async fn connect(
    target: &Target,
    tls: Option<&TlsConnector>,
    buf: Box<[u8]>,
) -> Result<(Conn, Opened), ConnectError> {
    match open_stream(target, tls).await {
        Ok((stream, opened)) => Ok((Conn::over(stream, buf), opened)),
        Err((kind, cause)) => Err(ConnectError { kind, cause, buf }),
    }
}

/// TCP to the first of the target's addresses that answers, with Nagle off, and the
/// time it took: under HTTP here and under the pipelined key-value connection
/// (`engine::shared::pipeline`). An error is the kind to count and why.
pub(crate) async fn connect_tcp(
    target: &Target,
) -> Result<(TcpStream, Duration), (ErrorKind, WireError)> {
    let t0 = Instant::now();
    let mut last = None;
    let mut tcp = None;
    for addr in &target.addrs {
        match TcpStream::connect(addr).await {
            Ok(s) => {
                tcp = Some(s);
                break;
            }
            Err(e) => last = Some(e),
        }
    }
    let Some(tcp) = tcp else {
        let kind = match &last {
            Some(e) if is_client_limit(e) => ErrorKind::ClientLimit,
            Some(e) if e.kind() == io::ErrorKind::TimedOut => ErrorKind::Timeout,
            _ => ErrorKind::Connect,
        };
        let cause = match last {
            Some(e) => WireError::Io(e),
            None => WireError::Malformed("the host has no address to connect to"),
        };
        return Err((kind, cause));
    };
    let _ = tcp.set_nodelay(true);
    if socket::stamping() {
        // Without the kernel's stamps a coalescing worker's latencies would include
        // its own sleep: refuse the connection rather than measure that.
        if let Err(e) = socket::enable_stamps(&tcp) {
            return Err((ErrorKind::Connect, WireError::Io(e)));
        }
    }
    Ok((tcp, t0.elapsed()))
}

/// TCP, then TLS for https targets: the byte stream under either protocol.
async fn open_stream(
    target: &Target,
    tls: Option<&TlsConnector>,
) -> Result<(Stream, Opened), (ErrorKind, WireError)> {
    let (tcp, connect) = connect_tcp(target).await?;
    let (stream, tls_time) = if target.https {
        let tls_error = |cause: &'static str| (ErrorKind::Tls, WireError::Malformed(cause));
        let Some(connector) = tls else {
            return Err(tls_error("no TLS configuration"));
        };
        let Ok(name) = ServerName::try_from(target.host.clone()) else {
            return Err(tls_error("the host is not a valid TLS server name"));
        };
        let t1 = Instant::now();
        match connector.connect(name, tcp).await {
            Ok(s) => (Stream::Tls(Box::new(s)), Some(t1.elapsed())),
            Err(e) => {
                let kind = match e.kind() {
                    io::ErrorKind::ConnectionReset | io::ErrorKind::UnexpectedEof => {
                        ErrorKind::Reset
                    }
                    _ => ErrorKind::Tls,
                };
                return Err((kind, WireError::Io(e)));
            }
        }
    } else {
        (Stream::Plain(tcp), None)
    };
    Ok((
        stream,
        Opened {
            connect,
            tls: tls_time,
        },
    ))
}

#[derive(Clone, Copy)]
enum BodyKind {
    None,
    Length(u64),
    Chunked,
    UntilClose,
}

impl Conn {
    fn over(stream: Stream, buf: Box<[u8]>) -> Conn {
        // A plain connection borrows a buffer per read; any other keeps its own.
        let buf = match (&stream, buf.is_empty()) {
            (Stream::Plain(_), false) => {
                return_buffer(buf);
                Box::default()
            }
            (Stream::Plain(_), true) => buf,
            (_, true) => new_buffer(),
            (_, false) => buf,
        };
        Conn {
            stream,
            buf,
            start: 0,
            end: 0,
            arrived: None,
            served: 0,
            time_first_byte: false,
        }
    }

    /// A connection whose server sends `data` (`step` bytes per read, then closes) and
    /// ignores what it is sent: how the fuzz targets drive the response reader.
    #[doc(hidden)]
    pub fn from_bytes(data: Vec<u8>, step: usize) -> Conn {
        Conn {
            stream: Stream::Memory(Box::new(Memory {
                data,
                pos: 0,
                step: step.max(1),
            })),
            buf: new_buffer(),
            start: 0,
            end: 0,
            served: 0,
            time_first_byte: false,
            arrived: None,
        }
    }

    /// Close the connection and keep its read buffer for the next one (a plain
    /// connection's is usually back with the thread's spares: then an empty one).
    pub fn into_buffer(mut self) -> Box<[u8]> {
        self.rest();
        std::mem::take(&mut self.buf)
    }

    /// Nothing is left to read: a plain connection gives its buffer back to the
    /// thread's spares while it waits.
    #[inline]
    fn rest(&mut self) {
        if self.start == self.end && !self.buf.is_empty() {
            if let Stream::Plain(_) = self.stream {
                self.start = 0;
                self.end = 0;
                return_buffer(std::mem::take(&mut self.buf));
            }
        }
    }

    /// Write one request and read its response to the last byte. Bytes are counted
    /// into `meter` as they move; the body goes to `body` if given, else is dropped.
    pub async fn exchange(
        &mut self,
        request: &[u8],
        head: bool,
        meter: &Meter,
        body: Option<&mut BodySink<'_>>,
    ) -> Result<Response, WireError> {
        self.check_idle(meter)?;
        let written = self.time_first_byte.then(Instant::now);
        self.stream.write_all(request, meter).await?;
        let mut waiting = None;
        let mut r = Reader {
            bytes: 0,
            meter,
            sink: body,
        };
        loop {
            let (status, kind, close, used) = self.read_head(&mut r).await?;
            if waiting.is_none() {
                waiting = written.map(|t| t.elapsed());
            }
            if let Some(head) = r.sink.as_deref_mut().and_then(|s| s.head.as_deref_mut()) {
                head.clear();
                head.extend_from_slice(&self.buf[self.start..self.start + used]);
            }
            self.start += used;
            // Interim responses (100 Continue, 103 Early Hints) precede the real one.
            if (100..200).contains(&status) && status != 101 {
                continue;
            }
            let kind = if head || status == 204 || status == 304 || (100..200).contains(&status) {
                BodyKind::None
            } else {
                kind
            };
            let close = match kind {
                BodyKind::None => close,
                BodyKind::Length(n) => {
                    self.skip(n, &mut r).await?;
                    close
                }
                BodyKind::Chunked => {
                    self.skip_chunked(&mut r).await?;
                    close
                }
                BodyKind::UntilClose => {
                    self.skip_to_eof(&mut r).await?;
                    true
                }
            };
            self.served += 1;
            // A buffer grown for one large head goes back to its size: what a
            // connection keeps does not depend on the largest response it saw.
            if self.buf.len() > BUF_SIZE && self.end - self.start <= BUF_SIZE {
                self.buf.copy_within(self.start..self.end, 0);
                self.end -= self.start;
                self.start = 0;
                self.resize(BUF_SIZE);
            }
            self.rest();
            return Ok(Response {
                status,
                bytes: r.bytes,
                close,
                waiting,
                processing: written.map(|t| t.elapsed()),
                arrived: self.arrived,
            });
        }
    }

    /// Before a request is written nothing may be waiting: bytes left past the last
    /// response, or on the socket, answer no request (a server that responds without
    /// reading, or sends more than its framing said). A closed idle socket is a stale
    /// connection, found before the write.
    fn check_idle(&mut self, meter: &Meter) -> Result<(), WireError> {
        // A stray line break after a body is old servers' habit, not a response.
        let blank = |b: &[u8]| b.iter().all(|c| matches!(c, b'\r' | b'\n'));
        if self.end > self.start && !blank(&self.buf[self.start..self.end]) {
            return Err(WireError::Unsolicited);
        }
        self.start = 0;
        self.end = 0;
        self.rest();
        if let Stream::Plain(s) = &self.stream {
            // Costs no syscall while tokio knows the socket is not readable (the last
            // read was short, or returned WouldBlock), which is the usual case.
            let mut probe = [0u8; 64];
            loop {
                match s.try_read(&mut probe) {
                    Ok(0) => return Err(WireError::Eof { started: false }),
                    Ok(n) if blank(&probe[..n]) => meter.add_received(n),
                    Ok(n) => {
                        meter.add_received(n);
                        self.buf = borrow_buffer();
                        self.buf[..n].copy_from_slice(&probe[..n]);
                        self.end = n;
                        return Err(WireError::Unsolicited);
                    }
                    // Nothing waiting (WouldBlock), or an error the write or read will meet.
                    Err(_) => break,
                }
            }
        }
        Ok(())
    }

    /// Read more bytes into the buffer; counts them. Returns 0 at EOF.
    async fn fill(&mut self, r: &mut Reader<'_, '_>) -> Result<usize, WireError> {
        if self.start == self.end {
            self.start = 0;
            self.end = 0;
        } else if self.end == self.buf.len() {
            if self.start == 0 {
                // A head (or chunk line) longer than the buffer: grow it, up to a limit.
                if self.buf.len() >= MAX_HEAD {
                    return Err(WireError::Malformed("response head larger than 64 KiB"));
                }
                self.resize((self.buf.len() * 2).min(MAX_HEAD));
            } else {
                self.buf.copy_within(self.start..self.end, 0);
                self.end -= self.start;
                self.start = 0;
            }
        }
        let n = match &mut self.stream {
            Stream::Plain(s) => {
                // Wait without a buffer; borrow one once there is something to read.
                let held = self.end;
                let lend = |b: &mut Box<[u8]>| {
                    if b.is_empty() {
                        *b = borrow_buffer();
                    }
                };
                let rest = |b: &mut Box<[u8]>| {
                    if held == 0 && !b.is_empty() {
                        return_buffer(std::mem::take(b));
                    }
                };
                socket::recv_some(s, &mut self.buf, held, lend, rest, &mut self.arrived).await?
            }
            other => other.read(&mut self.buf[self.end..]).await?,
        };
        self.end += n;
        r.bytes += n as u64;
        r.meter.add_received(n);
        Ok(n)
    }

    /// Give the read buffer `len` bytes, keeping what it holds.
    #[cold]
    fn resize(&mut self, len: usize) {
        let mut v = std::mem::take(&mut self.buf).into_vec();
        v.resize(len, 0);
        self.buf = v.into_boxed_slice();
    }

    async fn read_head(
        &mut self,
        r: &mut Reader<'_, '_>,
    ) -> Result<(u16, BodyKind, bool, usize), WireError> {
        loop {
            if self.end > self.start {
                if let Some(head) = parse_head(&self.buf[self.start..self.end])? {
                    return Ok((head.status, head.body, head.close, head.len));
                }
            }
            let started = self.end > self.start || r.bytes > 0;
            if self.fill(r).await? == 0 {
                return Err(WireError::Eof { started });
            }
        }
    }

    /// Take `n` buffered body bytes (to the sink, if any).
    #[inline]
    fn take(&mut self, n: usize, r: &mut Reader<'_, '_>) {
        if let Some(sink) = r.sink.as_deref_mut() {
            sink.push(&self.buf[self.start..self.start + n]);
        }
        self.start += n;
    }

    /// Read exactly `n` body bytes.
    async fn skip(&mut self, mut n: u64, r: &mut Reader<'_, '_>) -> Result<(), WireError> {
        loop {
            let avail = (self.end - self.start) as u64;
            if avail >= n {
                self.take(n as usize, r);
                return Ok(());
            }
            n -= avail;
            self.take(avail as usize, r);
            if self.fill(r).await? == 0 {
                return Err(WireError::Truncated);
            }
        }
    }

    /// One CRLF-terminated line, without the CRLF; the buffer window moves past it.
    async fn line(&mut self, r: &mut Reader<'_, '_>) -> Result<(usize, usize), WireError> {
        loop {
            if let Some(i) = find_crlf(&self.buf[self.start..self.end]) {
                let line = (self.start, self.start + i);
                self.start += i + 2;
                return Ok(line);
            }
            if self.end - self.start > MAX_LINE {
                return Err(WireError::Malformed("chunk line too long"));
            }
            if self.fill(r).await? == 0 {
                return Err(WireError::Eof { started: true });
            }
        }
    }

    async fn skip_chunked(&mut self, r: &mut Reader<'_, '_>) -> Result<(), WireError> {
        loop {
            let (a, b) = self.line(r).await?;
            let size =
                chunk_size(&self.buf[a..b]).ok_or(WireError::Malformed("invalid chunk size"))?;
            if size == 0 {
                // Trailer fields, then an empty line.
                loop {
                    let (a, b) = self.line(r).await?;
                    if a == b {
                        return Ok(());
                    }
                }
            }
            self.skip(size, r).await?;
            let (a, b) = self.line(r).await?;
            if a != b {
                return Err(WireError::Malformed("chunk not followed by CRLF"));
            }
        }
    }

    async fn skip_to_eof(&mut self, r: &mut Reader<'_, '_>) -> Result<(), WireError> {
        self.take(self.end - self.start, r);
        while self.fill(r).await? > 0 {
            self.take(self.end - self.start, r);
        }
        Ok(())
    }
}

/// The state of reading one response.
struct Reader<'m, 's> {
    /// Bytes of this response so far.
    bytes: u64,
    meter: &'m Meter,
    sink: Option<&'m mut BodySink<'s>>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::SocketAddr;
    use tokio::net::TcpListener;

    /// A one-shot server that answers whatever it reads with `reply`, then closes.
    async fn one_shot(reply: &'static [u8]) -> Target {
        let l = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr: SocketAddr = l.local_addr().unwrap();
        tokio::spawn(async move {
            let (mut s, _) = l.accept().await.unwrap();
            let mut b = [0u8; 1024];
            let _ = s.read(&mut b).await;
            // Split the reply to exercise partial reads.
            for part in reply.chunks(7) {
                let _ = s.write_all(part).await;
                tokio::task::yield_now().await;
            }
        });
        Target {
            https: false,
            host: "127.0.0.1".into(),
            port: addr.port(),
            addrs: vec![addr],
            proto: Proto::Http,
        }
    }

    async fn exchange(reply: &'static [u8]) -> Result<Response, WireError> {
        let t = one_shot(reply).await;
        let (mut c, _) = connect(&t, None, new_buffer()).await.ok().unwrap();
        c.exchange(
            b"GET / HTTP/1.1\r\nHost: x\r\n\r\n",
            false,
            &Meter::default(),
            None,
        )
        .await
    }

    #[tokio::test]
    async fn content_length() {
        let r = exchange(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello")
            .await
            .unwrap();
        assert_eq!(
            r,
            Response {
                status: 200,
                bytes: 43,
                close: false,
                waiting: None,
                processing: None,
                arrived: None
            }
        );
    }

    #[tokio::test]
    async fn chunked_with_trailer() {
        let r = exchange(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;x=1\r\nhello\r\n1a\r\nabcdefghijklmnopqrstuvwxyz\r\n0\r\nX-T: 1\r\n\r\n").await.unwrap();
        assert_eq!(r.status, 200);
        assert!(!r.close);
    }

    #[tokio::test]
    async fn until_close_and_http10() {
        let r = exchange(b"HTTP/1.0 200 OK\r\n\r\nbody until close")
            .await
            .unwrap();
        assert!(r.close);
        let r = exchange(b"HTTP/1.1 503 Busy\r\nConnection: close\r\nContent-Length: 0\r\n\r\n")
            .await
            .unwrap();
        assert_eq!((r.status, r.close), (503, true));
    }

    #[tokio::test]
    async fn interim_response_is_skipped() {
        let r = exchange(
            b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok",
        )
        .await
        .unwrap();
        assert_eq!(r.status, 201);
    }

    #[tokio::test]
    async fn errors_are_classified() {
        let e = exchange(b"SSH-2.0-OpenSSH_9.2\r\n\r\n").await.unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Malformed);
        let e = exchange(b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort")
            .await
            .unwrap_err();
        // A promised length that never came is truncated, not reset.
        assert_eq!(e.kind(), ErrorKind::Truncated);
        assert!(!e.is_stale_connection());
        let e = exchange(b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n")
            .await
            .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Reset, "mid-head is a reset");
        let e = exchange(b"").await.unwrap_err();
        assert!(e.is_stale_connection());
        let e = exchange(b"HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n")
            .await
            .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Malformed);
        let e = exchange(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n")
            .await
            .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Malformed);
    }

    #[tokio::test]
    async fn refused_port_is_a_connect_error() {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = l.local_addr().unwrap();
        drop(l);
        let t = Target {
            https: false,
            host: "127.0.0.1".into(),
            port: addr.port(),
            addrs: vec![addr],
            proto: Proto::Http,
        };
        let e = connect(&t, None, new_buffer())
            .await
            .err()
            .expect("refused");
        assert_eq!(e.kind, ErrorKind::Connect);
        // The OS's reason is kept for the result and the summary.
        assert!(e.cause.to_string().contains("refused"), "{}", e.cause);
    }

    #[tokio::test]
    async fn conflicting_content_length_is_malformed() {
        let e = exchange(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 5\r\n\r\nhello")
            .await
            .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Malformed);
        assert_eq!(e.to_string(), "conflicting Content-Length headers");
        // The same length twice frames the message one way: accepted (RFC 9112 §6.3).
        let r = exchange(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\nok")
            .await
            .unwrap();
        assert_eq!(r.status, 200);
    }

    #[tokio::test]
    async fn too_many_headers_is_named() {
        let mut reply = b"HTTP/1.1 200 OK\r\n".to_vec();
        for i in 0..1000 {
            reply.extend_from_slice(format!("X-{i}: v\r\n").as_bytes());
        }
        reply.extend_from_slice(b"Content-Length: 0\r\n\r\n");
        let e = exchange(Box::leak(reply.into_boxed_slice()))
            .await
            .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Malformed);
        assert_eq!(e.to_string(), "too many headers (more than 100)");
    }

    /// Issue 22: a head larger than the buffer was refused; now the buffer grows for
    /// it (up to 64 KiB) and is given back after that response.
    #[tokio::test]
    async fn a_large_head_grows_the_buffer_for_that_response_only() {
        let big = format!(
            "HTTP/1.1 200 OK\r\nX-Big: {}\r\nContent-Length: 2\r\n\r\nok",
            "v".repeat(40_000)
        );
        let t = one_shot(Box::leak(big.into_bytes().into_boxed_slice())).await;
        let (mut c, _) = connect(&t, None, new_buffer()).await.ok().unwrap();
        let r = c
            .exchange(
                b"GET / HTTP/1.1\r\nHost: x\r\n\r\n",
                false,
                &Meter::default(),
                None,
            )
            .await
            .unwrap();
        assert_eq!(r.status, 200);
        // Idle, a plain connection holds no buffer: the grown one went back to its size
        // and to the thread's spares.
        assert!(c.buf.is_empty(), "{}", c.buf.len());
        SPARE.with(|s| assert!(s.borrow().iter().all(|b| b.len() == BUF_SIZE)));
        let huge = format!("HTTP/1.1 200 OK\r\nX-Big: {}\r\n\r\n", "v".repeat(70_000));
        let e = exchange(Box::leak(huge.into_bytes().into_boxed_slice()))
            .await
            .unwrap_err();
        assert_eq!(e.to_string(), "response head larger than 64 KiB");
    }

    /// Issue 20: a response nobody asked for was counted as the next request's 200.
    #[tokio::test]
    async fn data_before_the_request_is_unsolicited() {
        let l = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr: SocketAddr = l.local_addr().unwrap();
        tokio::spawn(async move {
            let (mut s, _) = l.accept().await.unwrap();
            let mut b = [0u8; 1024];
            let _ = s.read(&mut b).await;
            // The answer, and a second response that no request asked for.
            let _ = s
                .write_all(
                    b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok\
                             HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
                )
                .await;
            let _ = s.read(&mut b).await;
        });
        let t = Target {
            https: false,
            host: "127.0.0.1".into(),
            port: addr.port(),
            addrs: vec![addr],
            proto: Proto::Http,
        };
        let (mut c, _) = connect(&t, None, new_buffer()).await.ok().unwrap();
        let req = b"GET / HTTP/1.1\r\nHost: x\r\n\r\n";
        let meter = Meter::default();
        assert_eq!(
            c.exchange(req, false, &meter, None).await.unwrap().status,
            200
        );
        // Wait until the unasked-for response is surely here (the same write, or not).
        tokio::time::sleep(Duration::from_millis(50)).await;
        let e = c.exchange(req, false, &meter, None).await.unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Unsolicited);
        assert!(!e.is_stale_connection());
        // Nothing was written for the refused request.
        assert_eq!(meter.sent.get(), req.len() as u64);
    }

    #[tokio::test]
    async fn a_stray_line_break_after_a_body_is_not_unsolicited() {
        let l = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr: SocketAddr = l.local_addr().unwrap();
        tokio::spawn(async move {
            let (mut s, _) = l.accept().await.unwrap();
            let mut b = [0u8; 1024];
            for _ in 0..2 {
                let _ = s.read(&mut b).await;
                let _ = s
                    .write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok\r\n")
                    .await;
            }
        });
        let t = Target {
            https: false,
            host: "127.0.0.1".into(),
            port: addr.port(),
            addrs: vec![addr],
            proto: Proto::Http,
        };
        let (mut c, _) = connect(&t, None, new_buffer()).await.ok().unwrap();
        let req = b"GET / HTTP/1.1\r\nHost: x\r\n\r\n";
        let meter = Meter::default();
        for _ in 0..2 {
            assert_eq!(
                c.exchange(req, false, &meter, None).await.unwrap().status,
                200
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}
