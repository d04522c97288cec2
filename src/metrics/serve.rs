//! The `/metrics` endpoint: a small hyper server on its own thread and single-threaded
//! runtime, bound to exactly the address given. It reads the board under its lock,
//! renders it and answers; the load's threads never wait for it (the runner's thread
//! takes the same lock four times a second to update the board).

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::header::{HeaderValue, ACCEPT, CONTENT_TYPE};
use hyper::server::conn::http1;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use tokio::sync::oneshot;

use super::board::Board;
use super::exposition::{render, Format};

/// What the server and the exporter share.
#[derive(Default)]
pub struct Shared {
    pub board: Mutex<Board>,
    hold: Mutex<Hold>,
    scraped: Condvar,
}

#[derive(Default)]
struct Hold {
    /// The run has ended: the board holds its final numbers.
    ended: bool,
    /// A scrape has read them.
    read: bool,
}

impl Shared {
    /// The run has ended; from now on a scrape reads the final numbers.
    pub fn end(&self) {
        self.hold.lock().unwrap_or_else(|p| p.into_inner()).ended = true;
    }

    /// Waits until a scrape has read the final numbers, at most `limit`; true if one did.
    pub fn wait_for_final_scrape(&self, limit: Duration) -> bool {
        let deadline = Instant::now() + limit;
        let mut h = self.hold.lock().unwrap_or_else(|p| p.into_inner());
        while !h.read {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return false;
            }
            h = self
                .scraped
                .wait_timeout(h, left)
                .unwrap_or_else(|p| p.into_inner())
                .0;
        }
        true
    }

    /// The page for one scrape.
    fn scrape(&self, format: Format) -> String {
        let ended = self.hold.lock().unwrap_or_else(|p| p.into_inner()).ended;
        let text = render(
            &self.board.lock().unwrap_or_else(|p| p.into_inner()),
            format,
        );
        if ended {
            self.hold.lock().unwrap_or_else(|p| p.into_inner()).read = true;
            self.scraped.notify_all();
        }
        text
    }
}

/// The running endpoint; stopped by [`MetricsServer::stop`] or on drop.
pub struct MetricsServer {
    pub addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl MetricsServer {
    /// Binds `addr` now (so a port in use is refused before any load) and serves on a
    /// thread of its own.
    pub fn start(addr: SocketAddr, shared: Arc<Shared>) -> std::io::Result<MetricsServer> {
        let listener = std::net::TcpListener::bind(addr)?;
        listener.set_nonblocking(true)?;
        let addr = listener.local_addr()?;
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        let (stop, stopped) = oneshot::channel::<()>();
        let thread = std::thread::Builder::new()
            .name("hakaru-metrics".into())
            .spawn(move || rt.block_on(accept(listener, shared, stopped)))?;
        Ok(MetricsServer {
            addr,
            stop: Some(stop),
            thread: Some(thread),
        })
    }

    pub fn stop(&mut self) {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for MetricsServer {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Connections served at once; a scraper needs one. Bug it pins: 1,000 idle
/// connections to `/metrics` took the descriptors the load needed ("Too many open
/// files" in step 1).
const MAX_CONNS: usize = 16;
/// The longest a connection is served: a scrape takes milliseconds.
const CONN_LIMIT: Duration = Duration::from_secs(10);

async fn accept(
    listener: std::net::TcpListener,
    shared: Arc<Shared>,
    mut stopped: oneshot::Receiver<()>,
) {
    let Ok(listener) = tokio::net::TcpListener::from_std(listener) else {
        return;
    };
    // One answer per connection: a scrape is one request a second or less, and a
    // connection that always ends lets the last scrape's answer finish before we exit.
    let mut http = http1::Builder::new();
    http.keep_alive(false);
    let mut conns = tokio::task::JoinSet::new();
    loop {
        tokio::select! {
            _ = &mut stopped => break,
            // At the cap, connections wait in the kernel's backlog, not in our
            // descriptors: the load's own sockets come first.
            accepted = listener.accept(), if conns.len() < MAX_CONNS => match accepted {
                Ok((stream, _)) => {
                    let shared = shared.clone();
                    let http = http.clone();
                    conns.spawn(async move {
                        let svc = hyper::service::service_fn(move |req| {
                            let resp = answer(&shared, &req);
                            async move { Ok::<_, Infallible>(resp) }
                        });
                        let serve = http.serve_connection(TokioIo::new(stream), svc);
                        // An idle or slow connection holds a descriptor no longer.
                        let _ = tokio::time::timeout(CONN_LIMIT, serve).await;
                    });
                }
                // Out of descriptors, or a connection gone before accept: pause, go on.
                Err(_) => tokio::time::sleep(Duration::from_millis(10)).await,
            },
            Some(_) = conns.join_next(), if !conns.is_empty() => {}
        }
    }
    drop(listener);
    // Answers being written (the final scrape's) get a moment to finish.
    let _ = tokio::time::timeout(Duration::from_secs(2), async {
        while conns.join_next().await.is_some() {}
    })
    .await;
}

fn answer(shared: &Shared, req: &Request<Incoming>) -> Response<Full<Bytes>> {
    let text = |status: StatusCode, body: &'static str| {
        let mut r = Response::new(Full::new(Bytes::from_static(body.as_bytes())));
        *r.status_mut() = status;
        r.headers_mut().insert(
            CONTENT_TYPE,
            HeaderValue::from_static("text/plain; charset=utf-8"),
        );
        r
    };
    if req.method() != Method::GET && req.method() != Method::HEAD {
        return text(StatusCode::METHOD_NOT_ALLOWED, "GET /metrics\n");
    }
    match req.uri().path() {
        "/metrics" => {
            let format =
                Format::from_accept(req.headers().get(ACCEPT).and_then(|v| v.to_str().ok()));
            let mut r = Response::new(Full::new(Bytes::from(shared.scrape(format))));
            r.headers_mut().insert(
                CONTENT_TYPE,
                HeaderValue::from_static(format.content_type()),
            );
            r
        }
        "/" => text(
            StatusCode::OK,
            "hakaru: the run's live numbers are at /metrics\n",
        ),
        _ => text(StatusCode::NOT_FOUND, "not found: try /metrics\n"),
    }
}
