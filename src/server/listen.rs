//! The embedded target's listener: binds loopback, accepts connections and runs each
//! one through hyper's HTTP/1.1 server with the [`service`](super::service) that calls
//! the target's handler; stops gracefully; lingers before closing so a client's unread
//! request does not make the kernel reset our last answer.
//!
//! What hyper speaks for us: HTTP/1.0 and 1.1, keep-alive by the RFC 9112 defaults,
//! pipelining, bodies framed by `Content-Length` or `Transfer-Encoding: chunked`,
//! `Expect: 100-continue`, `HEAD`. Heads it cannot parse are answered 400 (or 431 when
//! too large) and the connection is closed. No `Date` header: nobody benchmarking the
//! target needs one.

use std::future::{poll_fn, Future};
use std::io;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use hyper::server::conn::{http1, http2};
use hyper_util::rt::{TokioExecutor, TokioIo};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpSocket, TcpStream};
use tokio::runtime::RuntimeFlavor;
use tokio::sync::{oneshot, watch};
use tokio::task::JoinSet;

use super::handler::Handler;
use super::service::Conn;

/// Largest request head (request line and headers) accepted; larger is answered 431.
/// hyper's own limit on header lines (100) also applies, answered 431 too.
pub const MAX_HEAD_BYTES: usize = 64 * 1024;
/// Largest request body accepted; larger is answered 413.
pub const MAX_BODY_BYTES: usize = 64 * 1024 * 1024;
/// After shutdown is signalled, connections get this long to finish what they are writing.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(1);
/// Before closing, unread input is drained for at most this long (and this many bytes)
/// so the kernel does not answer it with a RST that could destroy our last response.
const LINGER: Duration = Duration::from_secs(1);
const LINGER_MAX_BYTES: usize = 1024 * 1024;
/// Accept backlog: runs without keep-alive open connections in bursts, and a step of
/// 10,000 clients opens 10,000 at once; a full queue drops SYNs, which clients retry
/// only after a second. The kernel caps it at `net.core.somaxconn` (4096 by default).
const LISTEN_BACKLOG: u32 = 8192;

/// How the server treats connections.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ServerOptions {
    /// false: answer every request with `Connection: close` and close (`--no-keep-alive`).
    pub keep_alive: bool,
    /// Worker threads of the runtime [`RunningServer::start`] builds; 0 = number of cores.
    pub threads: usize,
    /// Speak HTTP/2 with prior knowledge (h2c) instead of HTTP/1.x (`--http2`).
    pub http2: bool,
}

impl Default for ServerOptions {
    fn default() -> Self {
        ServerOptions {
            keep_alive: true,
            threads: 0,
            http2: false,
        }
    }
}

impl ServerOptions {
    /// The number of worker threads to run: `threads`, or the number of cores when 0.
    pub fn worker_threads(&self) -> usize {
        if self.threads > 0 {
            self.threads.min(MAX_THREADS)
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

    /// Responses committed by the handlers and the server's own 413/400 answers to
    /// bodies; not hyper's automatic 400/431 to heads it cannot parse. A response is
    /// counted before its bytes are written, so a client that has read it sees it counted.
    pub fn requests(&self) -> u64 {
        self.requests.load(Ordering::Relaxed)
    }

    pub(super) fn count_request(&self) {
        self.requests.fetch_add(1, Ordering::Relaxed);
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
    #[error("--threads {0}: at most {MAX_THREADS} worker threads (0: one per core)")]
    Threads(usize),
    #[error(
        "--memcached {0}: not a loopback address; benchmarks on this machine stay on \
         loopback (pass --allow-remote to use {0} anyway)"
    )]
    MemcachedNotLoopback(SocketAddr),
}

/// The most worker threads a target runs: more only cost memory, and past the
/// process's thread limit the runtime cannot start at all.
pub const MAX_THREADS: usize = 1024;

/// Refuses a thread count the runtime could not start (`serve --threads 100000`).
pub fn check_threads(threads: usize) -> Result<(), ServeError> {
    if threads > MAX_THREADS {
        Err(ServeError::Threads(threads))
    } else {
        Ok(())
    }
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
    let mut http = http1::Builder::new();
    // writev(false): small answers (the common case) leave as one buffer, head and body
    // together, in one write; a queue of slices costs more than copying a few KiB.
    http.keep_alive(opts.keep_alive)
        .max_header_size(MAX_HEAD_BYTES)
        .auto_date_header(false)
        .writev(false);
    let mut h2 = http2::Builder::new(TokioExecutor::new());
    h2.max_header_list_size(MAX_HEAD_BYTES as u32)
        .auto_date_header(false);
    let mut conns = JoinSet::new();
    tokio::pin!(shutdown);
    loop {
        tokio::select! {
            _ = &mut shutdown => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, _peer)) => {
                    stats.connections.fetch_add(1, Ordering::Relaxed);
                    let service = Conn {
                        handler: handler.clone(),
                        stats: stats.clone(),
                        keep_alive: opts.keep_alive,
                        blocking,
                        stop: stop_rx.clone(),
                    };
                    if opts.http2 {
                        conns.spawn(serve_h2(h2.clone(), stream, service, stop_rx.clone()));
                    } else {
                        conns.spawn(serve_connection(http.clone(), stream, service, stop_rx.clone()));
                    }
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

/// Serves one connection until the client closes, an answer closes it, or the server
/// stops (then an idle connection closes at once and a busy one after its answer).
/// Errors just end the connection: the client went away or sent garbage (hyper has
/// answered that already).
async fn serve_connection(
    http: http1::Builder,
    stream: TcpStream,
    service: Conn,
    mut stop: watch::Receiver<bool>,
) {
    // Answers are written whole; Nagle would only delay the last segment of one.
    let _ = stream.set_nodelay(true);
    let mut conn = http.serve_connection(TokioIo::new(stream), service);
    let mut stopping = false;
    loop {
        tokio::select! {
            _ = poll_fn(|cx| conn.poll_without_shutdown(cx)) => break,
            _ = stop.wait_for(|stopped| *stopped), if !stopping => {
                stopping = true;
                std::pin::Pin::new(&mut conn).graceful_shutdown();
            }
        }
    }
    // hyper hands the socket back unclosed, so we can close it politely.
    let mut stream = conn.into_parts().io.into_inner();
    linger(&mut stream, &mut stop).await;
}

/// Serves one HTTP/2 connection (prior knowledge: the client's preface comes first)
/// until the client closes it or the server stops (then GOAWAY, and the streams
/// already begun are answered).
async fn serve_h2(
    http: http2::Builder<TokioExecutor>,
    stream: TcpStream,
    service: Conn,
    mut stop: watch::Receiver<bool>,
) {
    let _ = stream.set_nodelay(true);
    let conn = http.serve_connection(TokioIo::new(stream), service);
    tokio::pin!(conn);
    let mut stopping = false;
    loop {
        tokio::select! {
            _ = conn.as_mut() => break,
            _ = stop.wait_for(|stopped| *stopped), if !stopping => {
                stopping = true;
                conn.as_mut().graceful_shutdown();
            }
        }
    }
}

/// Closes politely: FIN after the last response, then drain what the client still
/// sends so the kernel does not reset the connection under our response.
async fn linger(stream: &mut TcpStream, stop: &mut watch::Receiver<bool>) {
    let _ = stream.shutdown().await;
    if *stop.borrow() {
        // The server is stopping: no time for politeness.
        return;
    }
    let deadline = tokio::time::sleep(LINGER);
    tokio::pin!(deadline);
    let mut drained = 0;
    let mut buf = [0u8; 8 * 1024];
    while drained <= LINGER_MAX_BYTES {
        tokio::select! {
            _ = &mut deadline => break,
            _ = stop.changed() => break,
            r = stream.read(&mut buf) => match r {
                Ok(0) | Err(_) => break,
                Ok(n) => drained += n,
            },
        }
    }
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

    #[test]
    fn only_loopback_without_allow_remote() {
        assert!(check_bind("127.0.0.1:0".parse().unwrap(), false).is_ok());
        assert!(check_bind("[::1]:80".parse().unwrap(), false).is_ok());
        let err = check_bind("0.0.0.0:10041".parse().unwrap(), false).unwrap_err();
        assert!(err.to_string().contains("--allow-remote"), "{err}");
        assert!(check_bind("0.0.0.0:10041".parse().unwrap(), true).is_ok());
    }

    #[test]
    fn reasons_by_name_or_by_class() {
        assert_eq!(reason(404), "Not Found");
        assert_eq!(reason(299), "Success");
        assert_eq!(reason(599), "Server Error");
    }

    #[test]
    fn serve_threads_100000_is_refused_not_aborted() {
        assert!(check_threads(MAX_THREADS).is_ok());
        let err = check_threads(100_000).unwrap_err().to_string();
        assert!(err.starts_with("--threads 100000: at most 1024"), "{err}");
        let opts = ServerOptions {
            threads: 100_000,
            ..Default::default()
        };
        assert_eq!(opts.worker_threads(), MAX_THREADS);
    }
}
