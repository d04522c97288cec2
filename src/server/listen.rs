//! The embedded target's HTTP/1.1 server: tokio for sockets, httparse for request
//! heads, nothing else. It exists so that a benchmark of the embedded target measures
//! the client and the loopback, not the server: one reused input buffer and one reused
//! output buffer per connection, pipelined requests answered with one write, no `Date`
//! header, no per-request locks.
//!
//! What it speaks: HTTP/1.0 and 1.1, keep-alive by the RFC 9112 defaults, pipelining,
//! request bodies framed by `Content-Length` or `Transfer-Encoding: chunked`,
//! `Expect: 100-continue`, `HEAD`. Anything it cannot parse is answered with a 4xx and
//! the connection is closed.

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpSocket, TcpStream};
use tokio::runtime::RuntimeFlavor;
use tokio::sync::{oneshot, watch};
use tokio::task::JoinSet;

use super::handler::{Handler, Request, Response};

/// Largest request head (request line and headers) accepted; larger is answered 431.
pub const MAX_HEAD_BYTES: usize = 64 * 1024;
/// Largest request body accepted; larger is answered 413.
pub const MAX_BODY_BYTES: usize = 64 * 1024 * 1024;
/// More header lines than this is answered 431.
const MAX_HEADERS: usize = 128;
/// Input buffer size a connection starts with (and shrinks back to after a large body).
const INITIAL_BUF: usize = 8 * 1024;
/// A read always offers at least this much free space.
const MIN_READ: usize = 4 * 1024;
/// Bodies up to this size are copied after the head so head and body leave in one write;
/// larger ones are written from the handler's buffer directly.
const INLINE_BODY_MAX: usize = 16 * 1024;
/// Pending output is flushed once it reaches this, even in the middle of a pipeline.
const OUT_FLUSH_AT: usize = 64 * 1024;
/// Buffers grown past this are given back once the connection is idle.
const KEEP_CAPACITY: usize = 256 * 1024;
/// After shutdown is signalled, connections get this long to finish what they are writing.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(1);
/// Before closing, unread input is drained for at most this long (and this many bytes)
/// so the kernel does not answer it with a RST that could destroy our last response.
const LINGER: Duration = Duration::from_secs(1);
const LINGER_MAX_BYTES: usize = 1024 * 1024;
/// Accept backlog: runs without keep-alive open connections in bursts.
const LISTEN_BACKLOG: u32 = 1024;

const CONTINUE: &[u8] = b"HTTP/1.1 100 Continue\r\n\r\n";

/// How the server treats connections.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ServerOptions {
    /// false: answer every request with `Connection: close` and close (`--no-keep-alive`).
    pub keep_alive: bool,
    /// Worker threads of the runtime [`RunningServer::start`] builds; 0 = number of cores.
    pub threads: usize,
}

impl Default for ServerOptions {
    fn default() -> Self {
        ServerOptions {
            keep_alive: true,
            threads: 0,
        }
    }
}

impl ServerOptions {
    /// The number of worker threads to run: `threads`, or the number of cores when 0.
    pub fn worker_threads(&self) -> usize {
        if self.threads > 0 {
            self.threads
        } else {
            std::thread::available_parallelism().map_or(1, |n| n.get())
        }
    }
}

/// What a server has done since it started; read by tests and the `/stats` endpoint.
/// Each counter is touched once per connection or request, with Relaxed ordering:
/// they are counts, not synchronisation.
#[derive(Debug, Default)]
pub struct ServerStats {
    connections: AtomicU64,
    requests: AtomicU64,
}

impl ServerStats {
    /// TCP connections accepted.
    pub fn connections(&self) -> u64 {
        self.connections.load(Ordering::Relaxed)
    }

    /// Responses committed (including 4xx answers to malformed requests). A response is
    /// counted before its bytes are written, so a client that has read it sees it counted.
    pub fn requests(&self) -> u64 {
        self.requests.load(Ordering::Relaxed)
    }
}

/// Why `hakaru serve` refuses to start.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error(
        "--bind {0}: not a loopback address; benchmarks on this machine stay on loopback \
         (pass --allow-remote to listen on {0} anyway)"
    )]
    NotLoopback(SocketAddr),
}

/// Refuses non-loopback addresses unless `allow_remote`: a load target reachable from
/// the network is a hazard, and benchmarks here must only use loopback.
pub fn check_bind(addr: SocketAddr, allow_remote: bool) -> Result<(), ServeError> {
    if allow_remote || addr.ip().is_loopback() {
        Ok(())
    } else {
        Err(ServeError::NotLoopback(addr))
    }
}

/// Binds a listening socket with `SO_REUSEADDR` (so a stopped server's port can be
/// bound again at once) and a deep backlog. Must be called inside a tokio runtime.
pub fn bind(addr: SocketAddr) -> io::Result<TcpListener> {
    let socket = if addr.is_ipv4() {
        TcpSocket::new_v4()?
    } else {
        TcpSocket::new_v6()?
    };
    socket.set_reuseaddr(true)?;
    socket.bind(addr)?;
    socket.listen(LISTEN_BACKLOG)
}

/// Accepts connections until `shutdown` completes, each connection a task. Then stops
/// accepting, closes idle connections, gives busy ones [`SHUTDOWN_GRACE`] to finish and
/// drops the rest.
///
/// Handlers are called on the runtime's worker threads; a handler whose
/// [`Handler::may_block`] is true is called through `block_in_place` when the runtime
/// is multi-threaded (the only flavor where that is allowed), so a slow SQLite query
/// does not stall the other connections of its worker.
pub async fn serve(
    listener: TcpListener,
    handler: Arc<dyn Handler>,
    opts: ServerOptions,
    stats: Arc<ServerStats>,
    shutdown: impl Future<Output = ()>,
) -> io::Result<()> {
    let (stop_tx, stop_rx) = watch::channel(false);
    let blocking = handler.may_block()
        && tokio::runtime::Handle::current().runtime_flavor() == RuntimeFlavor::MultiThread;
    let mut conns = JoinSet::new();
    tokio::pin!(shutdown);
    loop {
        tokio::select! {
            _ = &mut shutdown => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, _peer)) => {
                    stats.connections.fetch_add(1, Ordering::Relaxed);
                    let conn = Conn::new(stream, handler.clone(), stats.clone(), opts.keep_alive, blocking, stop_rx.clone());
                    conns.spawn(conn.run());
                }
                // Out of descriptors or a connection aborted before accept: not fatal to
                // the server; pause briefly so a persistent error does not spin.
                Err(_) => tokio::time::sleep(Duration::from_millis(10)).await,
            },
            Some(_) = conns.join_next(), if !conns.is_empty() => {}
        }
    }
    drop(listener);
    let _ = stop_tx.send(true);
    let _ = tokio::time::timeout(SHUTDOWN_GRACE, async {
        while conns.join_next().await.is_some() {}
    })
    .await;
    conns.abort_all();
    Ok(())
}

/// A server running on its own OS thread and tokio runtime: what `hakaru demo`,
/// `hakaru serve` and the tests use in-process. Stops on [`RunningServer::stop`] or drop.
pub struct RunningServer {
    /// The address actually bound (port 0 resolved to the real port).
    pub addr: SocketAddr,
    pub stats: Arc<ServerStats>,
    shutdown: Option<oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl RunningServer {
    /// Binds `bind` before returning (so port 0 yields a real port in `addr`), then
    /// serves from a dedicated thread with its own runtime of `opts.worker_threads()`.
    pub fn start(
        bind: SocketAddr,
        handler: Arc<dyn Handler>,
        opts: ServerOptions,
    ) -> io::Result<RunningServer> {
        RunningServer::start_with_stats(bind, handler, opts, Arc::new(ServerStats::default()))
    }

    /// Like [`RunningServer::start`], counting into `stats` — for handlers that read the
    /// same counters (the basic target's `/stats`).
    pub fn start_with_stats(
        bind: SocketAddr,
        handler: Arc<dyn Handler>,
        opts: ServerOptions,
        stats: Arc<ServerStats>,
    ) -> io::Result<RunningServer> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(opts.worker_threads())
            .thread_name("hakaru-target")
            .enable_all()
            .build()?;
        let listener = {
            let _guard = runtime.enter();
            self::bind(bind)?
        };
        let addr = listener.local_addr()?;
        let (tx, rx) = oneshot::channel::<()>();
        let server_stats = stats.clone();
        let thread = std::thread::Builder::new()
            .name("hakaru-target".into())
            .spawn(move || {
                let shutdown = async {
                    // A dropped sender is a stop too.
                    let _ = rx.await;
                };
                let _ = runtime.block_on(serve(listener, handler, opts, server_stats, shutdown));
                // Do not wait for a handler stuck in block_in_place.
                runtime.shutdown_timeout(Duration::from_millis(100));
            })?;
        Ok(RunningServer {
            addr,
            stats,
            shutdown: Some(tx),
            thread: Some(thread),
        })
    }

    /// Stops accepting, closes connections (see [`serve`]) and joins the server thread;
    /// the port is free when this returns.
    pub fn stop(mut self) {
        self.stop_and_join();
    }

    fn stop_and_join(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Drop for RunningServer {
    fn drop(&mut self) {
        self.stop_and_join();
    }
}

/// SIGINT (Ctrl-C) or SIGTERM, registered when created so a signal that arrives before
/// anyone awaits it is not lost (and does not kill the process with the default action).
pub struct ShutdownSignal {
    #[cfg(unix)]
    interrupt: tokio::signal::unix::Signal,
    #[cfg(unix)]
    terminate: tokio::signal::unix::Signal,
}

impl ShutdownSignal {
    /// Must be called inside a tokio runtime with I/O enabled.
    pub fn new() -> io::Result<ShutdownSignal> {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{signal, SignalKind};
            Ok(ShutdownSignal {
                interrupt: signal(SignalKind::interrupt())?,
                terminate: signal(SignalKind::terminate())?,
            })
        }
        #[cfg(not(unix))]
        {
            Ok(ShutdownSignal {})
        }
    }

    /// Completes at the first SIGINT or SIGTERM.
    pub async fn recv(&mut self) {
        #[cfg(unix)]
        tokio::select! {
            _ = self.interrupt.recv() => {}
            _ = self.terminate.recv() => {}
        }
        #[cfg(not(unix))]
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    }
}

/// What the input buffer holds next.
enum Next {
    /// No complete request yet.
    NeedMore,
    /// A request was handled; its answer is to be written.
    Answer {
        resp: Response,
        keep_alive: bool,
        /// An HTTP/1.0 request that asked for keep-alive: say `Connection: keep-alive`.
        http10: bool,
        head: bool,
    },
    /// The request cannot be served: answer this and close.
    Reject { status: u16, message: &'static str },
}

/// Header (name, value) pairs for [`Request::headers`], kept across requests so their
/// `String`s are reused instead of allocated per request.
#[derive(Default)]
struct HeaderStore {
    items: Vec<(String, String)>,
    len: usize,
}

impl HeaderStore {
    fn fill(&mut self, parsed: &[httparse::Header<'_>]) {
        for (i, h) in parsed.iter().enumerate() {
            if i == self.items.len() {
                self.items.push((String::new(), String::new()));
            }
            let (name, value) = &mut self.items[i];
            name.clear();
            name.push_str(h.name);
            value.clear();
            value.push_str(&String::from_utf8_lossy(h.value));
        }
        self.len = parsed.len();
    }

    fn as_slice(&self) -> &[(String, String)] {
        &self.items[..self.len]
    }
}

/// One connection's state: the buffers are reused for every request it carries.
struct Conn {
    stream: TcpStream,
    handler: Arc<dyn Handler>,
    stats: Arc<ServerStats>,
    keep_alive_allowed: bool,
    blocking: bool,
    stop: watch::Receiver<bool>,
    /// Input; bytes `start..end` are received and not yet consumed.
    buf: Vec<u8>,
    start: usize,
    end: usize,
    /// Do not parse again until this many bytes are pending (saves re-parsing a head
    /// for every read of a large body, or of a request arriving byte by byte).
    need: usize,
    continue_sent: bool,
    out: Vec<u8>,
    headers: HeaderStore,
    /// Decoded chunked request body.
    chunked: Vec<u8>,
}

impl Conn {
    fn new(
        stream: TcpStream,
        handler: Arc<dyn Handler>,
        stats: Arc<ServerStats>,
        keep_alive_allowed: bool,
        blocking: bool,
        stop: watch::Receiver<bool>,
    ) -> Conn {
        // Responses are written whole; Nagle would only delay a body written after its head.
        let _ = stream.set_nodelay(true);
        Conn {
            stream,
            handler,
            stats,
            keep_alive_allowed,
            blocking,
            stop,
            buf: vec![0; INITIAL_BUF],
            start: 0,
            end: 0,
            need: 0,
            continue_sent: false,
            out: Vec::new(),
            headers: HeaderStore::default(),
            chunked: Vec::new(),
        }
    }

    /// Serves requests until the client closes, a response closes, or shutdown.
    /// I/O errors just end the connection: the client went away.
    async fn run(mut self) {
        let _ = self.serve_requests().await;
    }

    async fn serve_requests(&mut self) -> io::Result<()> {
        loop {
            // Answer every complete request already received; pipelined answers
            // accumulate in `out` and leave in one write.
            loop {
                match self.next_request() {
                    Next::NeedMore => break,
                    Next::Answer {
                        resp,
                        keep_alive,
                        http10,
                        head,
                    } => {
                        if !self.answer(resp, keep_alive, http10, head).await? {
                            self.flush().await?;
                            return self.linger().await;
                        }
                    }
                    Next::Reject { status, message } => {
                        let resp = Response::text(status, message);
                        self.answer(resp, false, false, false).await?;
                        self.flush().await?;
                        return self.linger().await;
                    }
                }
            }
            self.flush().await?;
            self.make_room();
            let n = tokio::select! {
                r = self.stream.read(&mut self.buf[self.end..]) => r?,
                _ = self.stop.changed() => return Ok(()),
            };
            if n == 0 {
                return Ok(());
            }
            self.end += n;
        }
    }

    /// Parses the next request from the input and, when it is complete, calls the handler.
    fn next_request(&mut self) -> Next {
        let avail = self.end - self.start;
        if avail == 0 || avail < self.need {
            return Next::NeedMore;
        }
        let data = &self.buf[self.start..self.end];
        let mut slots = [httparse::EMPTY_HEADER; MAX_HEADERS];
        let mut req = httparse::Request::new(&mut slots);
        let head_len = match req.parse(data) {
            Ok(httparse::Status::Complete(n)) => n,
            Ok(httparse::Status::Partial) => {
                if avail > MAX_HEAD_BYTES {
                    return reject(431, "request head larger than 64 KiB\n");
                }
                self.need = avail + 1;
                return Next::NeedMore;
            }
            Err(httparse::Error::TooManyHeaders) => {
                return reject(431, "more than 128 header lines\n")
            }
            Err(_) => return reject(400, "malformed request\n"),
        };
        if head_len > MAX_HEAD_BYTES {
            return reject(431, "request head larger than 64 KiB\n");
        }
        let http10 = req.version == Some(0);
        let method = req.method.unwrap_or("GET");
        let target = req.path.unwrap_or("/");

        let mut content_length: Option<u64> = None;
        let mut chunked = false;
        let mut conn_close = false;
        let mut conn_keep_alive = false;
        let mut expect_continue = false;
        for h in req.headers.iter() {
            if h.name.eq_ignore_ascii_case("content-length") {
                let Some(n) = parse_decimal(h.value) else {
                    return reject(400, "invalid Content-Length\n");
                };
                if content_length.is_some_and(|c| c != n) {
                    return reject(400, "conflicting Content-Length headers\n");
                }
                content_length = Some(n);
            } else if h.name.eq_ignore_ascii_case("transfer-encoding") {
                if chunked || !trim(h.value).eq_ignore_ascii_case(b"chunked") {
                    return reject(501, "only Transfer-Encoding: chunked is supported\n");
                }
                chunked = true;
            } else if h.name.eq_ignore_ascii_case("connection") {
                for token in h.value.split(|&b| b == b',') {
                    let token = trim(token);
                    conn_close |= token.eq_ignore_ascii_case(b"close");
                    conn_keep_alive |= token.eq_ignore_ascii_case(b"keep-alive");
                }
            } else if h.name.eq_ignore_ascii_case("expect") {
                expect_continue = trim(h.value).eq_ignore_ascii_case(b"100-continue");
            }
        }
        if chunked && (content_length.is_some() || http10) {
            // Both framings at once is how requests are smuggled; 1.0 has no chunked.
            return reject(400, "Transfer-Encoding with Content-Length or HTTP/1.0\n");
        }

        let pending_body = |conn_out: &mut Vec<u8>, continue_sent: &mut bool| {
            if expect_continue && !http10 && !*continue_sent {
                conn_out.extend_from_slice(CONTINUE);
                *continue_sent = true;
            }
        };
        let (body, consumed): (&[u8], usize) = if chunked {
            match decode_chunked(&data[head_len..], &mut self.chunked, MAX_BODY_BYTES) {
                Chunked::Complete(used) => (&self.chunked[..], head_len + used),
                Chunked::Partial => {
                    pending_body(&mut self.out, &mut self.continue_sent);
                    self.need = avail + 1;
                    return Next::NeedMore;
                }
                Chunked::TooLarge => return reject(413, "request body larger than 64 MiB\n"),
                Chunked::Invalid => return reject(400, "malformed chunked body\n"),
            }
        } else {
            let len = content_length.unwrap_or(0);
            if len > MAX_BODY_BYTES as u64 {
                return reject(413, "request body larger than 64 MiB\n");
            }
            let total = head_len + len as usize;
            if avail < total {
                pending_body(&mut self.out, &mut self.continue_sent);
                self.need = total;
                return Next::NeedMore;
            }
            (&data[head_len..total], total)
        };

        let keep_alive = self.keep_alive_allowed && !conn_close && (!http10 || conn_keep_alive);
        let (path, query) = match target.split_once('?') {
            Some((p, q)) => (p, q),
            None => (target, ""),
        };
        self.headers.fill(req.headers);
        let request = Request {
            method,
            path,
            query,
            headers: self.headers.as_slice(),
            body,
        };
        let handler = &self.handler;
        let call = || catch_unwind(AssertUnwindSafe(|| handler.handle(&request)));
        let result = if self.blocking {
            tokio::task::block_in_place(call)
        } else {
            call()
        };
        let head = method == "HEAD";
        self.start += consumed;
        self.need = 0;
        self.continue_sent = false;
        match result {
            Ok(resp) => Next::Answer {
                keep_alive: keep_alive && !resp.close,
                resp,
                http10,
                head,
            },
            Err(_) => reject(500, "the handler panicked\n"),
        }
    }

    /// Writes one response into `out` (after its delay); returns whether the
    /// connection stays open.
    async fn answer(
        &mut self,
        resp: Response,
        keep_alive: bool,
        http10: bool,
        head: bool,
    ) -> io::Result<bool> {
        if let Some(delay) = resp.delay {
            // Earlier pipelined answers should not wait for this one's delay.
            self.flush().await?;
            tokio::select! {
                _ = tokio::time::sleep(delay) => {}
                _ = self.stop.changed() => return Ok(false),
            }
        }
        let with_body = encode_head(&mut self.out, &resp, keep_alive, http10) && !head;
        self.stats.requests.fetch_add(1, Ordering::Relaxed);
        if with_body {
            if resp.body.len() <= INLINE_BODY_MAX {
                self.out.extend_from_slice(&resp.body);
            } else {
                self.flush().await?;
                self.stream.write_all(&resp.body).await?;
            }
        }
        if self.out.len() >= OUT_FLUSH_AT {
            self.flush().await?;
        }
        Ok(keep_alive)
    }

    async fn flush(&mut self) -> io::Result<()> {
        if !self.out.is_empty() {
            self.stream.write_all(&self.out).await?;
            self.out.clear();
            if self.out.capacity() > KEEP_CAPACITY {
                self.out.shrink_to(OUT_FLUSH_AT);
            }
        }
        Ok(())
    }

    /// Makes space for the next read: rewinds when everything is consumed, compacts
    /// when the free tail is short, grows to fit a known body.
    fn make_room(&mut self) {
        if self.start == self.end {
            self.start = 0;
            self.end = 0;
            if self.buf.len() > KEEP_CAPACITY && self.need == 0 {
                self.buf.truncate(INITIAL_BUF);
                self.buf.shrink_to_fit();
            }
        }
        if self.buf.len() - self.end < MIN_READ && self.start > 0 {
            self.buf.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.start = 0;
        }
        let wanted = (self.end + MIN_READ).max(self.start + self.need);
        if self.buf.len() < wanted {
            let grown = wanted.max(self.buf.len() * 2);
            self.buf.resize(grown, 0);
        }
    }

    /// Closes politely: FIN after the last response, then drain what the client still
    /// sends so the kernel does not reset the connection under our response.
    async fn linger(&mut self) -> io::Result<()> {
        let _ = self.stream.shutdown().await;
        if *self.stop.borrow() {
            // The server is stopping: no time for politeness.
            return Ok(());
        }
        let deadline = tokio::time::sleep(LINGER);
        tokio::pin!(deadline);
        let mut drained = 0;
        while drained <= LINGER_MAX_BYTES {
            tokio::select! {
                _ = &mut deadline => break,
                _ = self.stop.changed() => break,
                r = self.stream.read(&mut self.buf) => match r {
                    Ok(0) | Err(_) => break,
                    Ok(n) => drained += n,
                },
            }
        }
        Ok(())
    }
}

fn reject(status: u16, message: &'static str) -> Next {
    Next::Reject { status, message }
}

/// Whether a response with this status carries a body (RFC 9110 §6.4.1).
fn has_body(status: u16) -> bool {
    !(status == 204 || status == 304 || (100..200).contains(&status))
}

/// Appends the status line and headers to `out`; returns whether a body follows
/// (false for 204/304). A status outside 200..=999 from a handler becomes 500:
/// interim (1xx) answers are the server's business.
fn encode_head(out: &mut Vec<u8>, resp: &Response, keep_alive: bool, http10: bool) -> bool {
    let status = if (200..=999).contains(&resp.status) {
        resp.status
    } else {
        500
    };
    out.extend_from_slice(b"HTTP/1.1 ");
    push_decimal(out, status as u64);
    out.push(b' ');
    out.extend_from_slice(reason(status).as_bytes());
    out.extend_from_slice(b"\r\n");
    let body = has_body(status);
    if status != 204 {
        out.extend_from_slice(b"Content-Length: ");
        push_decimal(out, if body { resp.body.len() as u64 } else { 0 });
        out.extend_from_slice(b"\r\n");
    }
    if body {
        out.extend_from_slice(b"Content-Type: ");
        out.extend_from_slice(resp.content_type.as_bytes());
        out.extend_from_slice(b"\r\n");
    }
    if !keep_alive {
        out.extend_from_slice(b"Connection: close\r\n");
    } else if http10 {
        out.extend_from_slice(b"Connection: keep-alive\r\n");
    }
    out.extend_from_slice(b"\r\n");
    body
}

fn push_decimal(out: &mut Vec<u8>, mut n: u64) {
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    loop {
        i -= 1;
        digits[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[i..]);
}

/// A Content-Length value: 1 to 19 ASCII digits, nothing else (no sign, no spaces
/// inside; httparse already trimmed the outer whitespace).
fn parse_decimal(value: &[u8]) -> Option<u64> {
    let value = trim(value);
    if value.is_empty() || value.len() > 19 || !value.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(
        value
            .iter()
            .fold(0u64, |n, &d| n * 10 + u64::from(d - b'0')),
    )
}

fn trim(bytes: &[u8]) -> &[u8] {
    let is_space = |b: &u8| *b == b' ' || *b == b'\t';
    let start = bytes
        .iter()
        .position(|b| !is_space(b))
        .unwrap_or(bytes.len());
    let end = bytes
        .iter()
        .rposition(|b| !is_space(b))
        .map_or(start, |i| i + 1);
    &bytes[start..end]
}

enum Chunked {
    /// The whole body is decoded; this many input bytes (chunks and trailers) were used.
    Complete(usize),
    Partial,
    TooLarge,
    Invalid,
}

/// Decodes a chunked body from the start of `data` into `body` (cleared first).
/// Restarts from scratch on each call; the `need` gate keeps that from mattering.
fn decode_chunked(data: &[u8], body: &mut Vec<u8>, max: usize) -> Chunked {
    body.clear();
    let mut pos = 0;
    loop {
        let (used, size) = match httparse::parse_chunk_size(&data[pos..]) {
            Ok(httparse::Status::Complete(v)) => v,
            Ok(httparse::Status::Partial) => return Chunked::Partial,
            Err(_) => return Chunked::Invalid,
        };
        pos += used;
        if size == 0 {
            break;
        }
        if size > (max - body.len()) as u64 {
            return Chunked::TooLarge;
        }
        let size = size as usize;
        if data.len() < pos + size + 2 {
            return Chunked::Partial;
        }
        if &data[pos + size..pos + size + 2] != b"\r\n" {
            return Chunked::Invalid;
        }
        body.extend_from_slice(&data[pos..pos + size]);
        pos += size + 2;
    }
    // Trailer fields (ignored), then the empty line that ends the message.
    loop {
        let Some(eol) = data[pos..].windows(2).position(|w| w == b"\r\n") else {
            return if data.len() - pos > MAX_HEAD_BYTES {
                Chunked::Invalid
            } else {
                Chunked::Partial
            };
        };
        pos += eol + 2;
        if eol == 0 {
            return Chunked::Complete(pos);
        }
    }
}

/// The reason phrase of a status code; a generic one by class for codes without a name.
pub fn reason(status: u16) -> &'static str {
    named_reason(status).unwrap_or(match status {
        100..=199 => "Informational",
        200..=299 => "Success",
        300..=399 => "Redirection",
        400..=499 => "Client Error",
        _ => "Server Error",
    })
}

fn named_reason(status: u16) -> Option<&'static str> {
    Some(match status {
        100 => "Continue",
        101 => "Switching Protocols",
        200 => "OK",
        201 => "Created",
        202 => "Accepted",
        203 => "Non-Authoritative Information",
        204 => "No Content",
        205 => "Reset Content",
        206 => "Partial Content",
        300 => "Multiple Choices",
        301 => "Moved Permanently",
        302 => "Found",
        303 => "See Other",
        304 => "Not Modified",
        307 => "Temporary Redirect",
        308 => "Permanent Redirect",
        400 => "Bad Request",
        401 => "Unauthorized",
        402 => "Payment Required",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        406 => "Not Acceptable",
        407 => "Proxy Authentication Required",
        408 => "Request Timeout",
        409 => "Conflict",
        410 => "Gone",
        411 => "Length Required",
        412 => "Precondition Failed",
        413 => "Content Too Large",
        414 => "URI Too Long",
        415 => "Unsupported Media Type",
        416 => "Range Not Satisfiable",
        417 => "Expectation Failed",
        418 => "I'm a teapot",
        421 => "Misdirected Request",
        422 => "Unprocessable Content",
        425 => "Too Early",
        426 => "Upgrade Required",
        428 => "Precondition Required",
        429 => "Too Many Requests",
        431 => "Request Header Fields Too Large",
        451 => "Unavailable For Legal Reasons",
        500 => "Internal Server Error",
        501 => "Not Implemented",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        505 => "HTTP Version Not Supported",
        507 => "Insufficient Storage",
        511 => "Network Authentication Required",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn head_of(resp: &Response, keep_alive: bool, http10: bool) -> (String, bool) {
        let mut out = Vec::new();
        let body = encode_head(&mut out, resp, keep_alive, http10);
        (String::from_utf8(out).unwrap(), body)
    }

    #[test]
    fn head_has_length_type_and_no_connection_header_by_default() {
        let (head, body) = head_of(&Response::text(200, "hello"), true, false);
        assert_eq!(
            head,
            "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Type: text/plain\r\n\r\n"
        );
        assert!(body);
    }

    #[test]
    fn head_says_close_or_keep_alive_when_needed() {
        let (head, _) = head_of(&Response::text(503, ""), false, false);
        assert!(head.starts_with("HTTP/1.1 503 Service Unavailable\r\n"));
        assert!(head.ends_with("Connection: close\r\n\r\n"));
        let (head, _) = head_of(&Response::text(200, ""), true, true);
        assert!(head.ends_with("Connection: keep-alive\r\n\r\n"));
    }

    #[test]
    fn no_content_and_not_modified_have_no_body() {
        let (head, body) = head_of(&Response::text(204, "ignored"), true, false);
        assert_eq!(head, "HTTP/1.1 204 No Content\r\n\r\n");
        assert!(!body);
        let (head, body) = head_of(&Response::text(304, "ignored"), true, false);
        assert_eq!(
            head,
            "HTTP/1.1 304 Not Modified\r\nContent-Length: 0\r\n\r\n"
        );
        assert!(!body);
    }

    #[test]
    fn interim_or_absurd_status_from_a_handler_becomes_500() {
        for status in [0, 100, 199, 1000] {
            let (head, _) = head_of(&Response::text(status, "x"), true, false);
            assert!(head.starts_with("HTTP/1.1 500 "), "{status}: {head}");
        }
        let (head, _) = head_of(&Response::text(599, "x"), true, false);
        assert!(head.starts_with("HTTP/1.1 599 Server Error\r\n"));
    }

    #[test]
    fn decimal_round_trip() {
        for n in [0u64, 7, 10, 99, 12345, u64::MAX] {
            let mut out = Vec::new();
            push_decimal(&mut out, n);
            assert_eq!(out, n.to_string().into_bytes());
        }
        assert_eq!(parse_decimal(b" 42 "), Some(42));
        assert_eq!(parse_decimal(b""), None);
        assert_eq!(parse_decimal(b"+1"), None);
        assert_eq!(parse_decimal(b"1 2"), None);
        assert_eq!(parse_decimal(b"99999999999999999999"), None);
    }

    #[test]
    fn chunked_bodies_decode_with_extensions_and_trailers() {
        let mut body = Vec::new();
        let data = b"4;ext=1\r\nWiki\r\n5\r\npedia\r\n0\r\nX-Trailer: 1\r\n\r\nNEXT";
        match decode_chunked(data, &mut body, 1 << 20) {
            Chunked::Complete(used) => assert_eq!(&data[used..], b"NEXT"),
            _ => panic!("not complete"),
        }
        assert_eq!(body, b"Wikipedia");
    }

    #[test]
    fn chunked_bodies_partial_invalid_and_too_large() {
        let mut body = Vec::new();
        let full = b"4\r\nWiki\r\n0\r\n\r\n";
        for cut in 0..full.len() {
            assert!(
                matches!(
                    decode_chunked(&full[..cut], &mut body, 1 << 20),
                    Chunked::Partial
                ),
                "cut at {cut}"
            );
        }
        assert!(matches!(
            decode_chunked(b"4\r\nWikiXX0\r\n\r\n", &mut body, 1 << 20),
            Chunked::Invalid
        ));
        assert!(matches!(
            decode_chunked(b"zz\r\n", &mut body, 1 << 20),
            Chunked::Invalid
        ));
        assert!(matches!(
            decode_chunked(b"10\r\n", &mut body, 8),
            Chunked::TooLarge
        ));
    }

    #[test]
    fn only_loopback_without_allow_remote() {
        assert!(check_bind("127.0.0.1:0".parse().unwrap(), false).is_ok());
        assert!(check_bind("[::1]:80".parse().unwrap(), false).is_ok());
        let err = check_bind("0.0.0.0:10041".parse().unwrap(), false).unwrap_err();
        assert!(err.to_string().contains("--allow-remote"), "{err}");
        assert!(check_bind("0.0.0.0:10041".parse().unwrap(), true).is_ok());
    }

    #[test]
    fn header_store_reuses_its_strings() {
        let mut store = HeaderStore::default();
        let parsed = [httparse::Header {
            name: "X-A",
            value: b"one",
        }];
        store.fill(&parsed);
        assert_eq!(store.as_slice(), &[("X-A".to_string(), "one".to_string())]);
        store.fill(&[]);
        assert!(store.as_slice().is_empty());
        assert_eq!(store.items.len(), 1);
    }
}
