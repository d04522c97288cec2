//! HTTP/2 on the load path, over the `h2` crate (hyper's): framing, HPACK, flow
//! control and the server's SETTINGS are its job; ours is to open the connection
//! (h2c with prior knowledge on plain TCP; on TLS, HTTP/2 when ALPN picked `h2`),
//! to turn the request the plan encoded for HTTP/1.1 into an HTTP/2 one, and to say
//! what went wrong in the engine's error kinds.
//!
//! One [`H2Conn`] is shared by several virtual clients: each keeps a clone (a handle
//! on the same connection) and runs one stream at a time on it, answered in any order.
//! The connection itself is driven by a task of its own on the worker's thread, which
//! reads frames for every stream; bytes are counted into the worker's [`Meter`] as
//! they move, as on HTTP/1.1.

// Not yet on the load path: the connection that uses them comes next.
#[allow(dead_code)]
mod frame;
#[allow(dead_code)]
mod hpack;
#[allow(dead_code)]
mod huffman;

use std::cell::Cell;
use std::future::poll_fn;
use std::io;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll};
use std::time::Instant;

use bytes::Bytes;
use h2::client::SendRequest;
use h2::Reason;
use http::{HeaderMap, HeaderName, HeaderValue, Method, Uri, Version};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;

use super::{open_stream, BodySink, Conn, ConnectError, Meter, Opened, Response};
use super::{Stream, Target, WireError, MAX_HEADERS};
use crate::stats::ErrorKind;

/// Each stream's receive window: what a server may send of one response before we
/// have read it (hyper's client default; h2's own 64 KiB would stall large bodies).
const STREAM_WINDOW: u32 = 2 * 1024 * 1024;
/// The connection's receive window, shared by its streams (hyper's client default).
const CONNECTION_WINDOW: u32 = 5 * 1024 * 1024;

/// What a connection attempt with `--http2` became: HTTP/2, or HTTP/1.1 where a TLS
/// server did not pick `h2` in ALPN.
pub enum Negotiated {
    H2(H2Conn),
    Http1(Conn),
}

/// A handle on one HTTP/2 connection; clones share it (one stream each at a time).
#[derive(Clone)]
pub struct H2Conn {
    send: SendRequest<Bytes>,
    /// Set by the connection's task when the connection has ended.
    closed: Rc<Cell<bool>>,
    https: bool,
    /// The last request converted, kept so the same bytes are not parsed again
    /// (boxed: a handle is cloned into every client of the group).
    last: Option<Box<Converted>>,
    /// Time each response's head and its end from the request's send (`ab`'s
    /// "Waiting" and "Processing", as [`super::Conn::time_first_byte`] does).
    pub time_first_byte: bool,
}

/// An HTTP/1.1 request as HTTP/2 sends it.
#[derive(Clone)]
struct Converted {
    /// The HTTP/1.1 bytes it came from (reused when another request comes).
    from: Vec<u8>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    /// The body (the bytes after the head in `from`).
    body: Bytes,
}

/// Open a connection for `--http2`: h2c with prior knowledge on plain TCP; on TLS the
/// protocol ALPN picked (the connector offers `h2` first, [`super::offer_h2`]). The
/// connection's task is spawned on the current `LocalSet`.
pub async fn connect(
    target: &Target,
    tls: Option<&TlsConnector>,
    meter: Rc<Meter>,
) -> Result<(Negotiated, Opened), ConnectError> {
    let fail = |kind, cause| ConnectError {
        kind,
        cause,
        // No read buffer was handed in: HTTP/2 keeps none of its own.
        buf: Box::default(),
    };
    let (stream, opened) = open_stream(target, tls)
        .await
        .map_err(|(kind, cause)| fail(kind, cause))?;
    let io = match stream {
        Stream::Plain(s) => Io::Plain(s),
        Stream::Tls(s) if s.get_ref().1.alpn_protocol() == Some(b"h2") => Io::Tls(s),
        other => return Ok((Negotiated::Http1(Conn::over(other, Box::default())), opened)),
    };
    let handshake = h2::client::Builder::new()
        // A benchmark reads what it asked for: pushed streams would only be counted wrong.
        .enable_push(false)
        .initial_window_size(STREAM_WINDOW)
        .initial_connection_window_size(CONNECTION_WINDOW)
        .handshake::<_, Bytes>(Counted { io, meter })
        .await;
    let (send, connection) = match handshake {
        Ok(pair) => pair,
        Err(e) => {
            let e = H2Error::Sent(e);
            return Err(fail(
                e.kind(),
                WireError::Io(io::Error::other(e.to_string())),
            ));
        }
    };
    let closed = Rc::new(Cell::new(false));
    let flag = closed.clone();
    tokio::task::spawn_local(async move {
        // Its error reaches every stream it ends; the streams report it.
        let _ = connection.await;
        flag.set(true);
    });
    let conn = H2Conn {
        send,
        closed,
        https: target.https,
        last: None,
        time_first_byte: false,
    };
    Ok((Negotiated::H2(conn), opened))
}

impl H2Conn {
    /// The connection has ended (GOAWAY, an error, the server closed it).
    pub fn is_closed(&self) -> bool {
        self.closed.get()
    }

    /// Send one request (as the plan encoded it for HTTP/1.1) on a stream of its own
    /// and read its response to the end, the body to `body` if given. `Response::bytes`
    /// counts the body's bytes (the connection's framing is counted in the meter).
    pub async fn exchange(
        &mut self,
        request: &[u8],
        body: Option<&mut BodySink<'_>>,
    ) -> Result<Response, H2Error> {
        let (req, payload) = self.convert(request)?;
        poll_fn(|cx| self.send.poll_ready(cx))
            .await
            .map_err(H2Error::NotSent)?;
        let (response, mut stream) = self
            .send
            .send_request(req, payload.is_empty())
            .map_err(H2Error::NotSent)?;
        let written = self.time_first_byte.then(Instant::now);
        if !payload.is_empty() {
            send_body(&mut stream, payload).await?;
        }
        let response = response.await.map_err(H2Error::Sent)?;
        let waiting = written.map(|t| t.elapsed());
        let status = response.status().as_u16();
        let mut recv = response.into_body();
        let mut sink = body;
        let mut bytes = 0u64;
        while let Some(chunk) = recv.data().await {
            let chunk = chunk.map_err(H2Error::Sent)?;
            bytes += chunk.len() as u64;
            // Reading it frees its room in the windows; the server may send more.
            let _ = recv.flow_control().release_capacity(chunk.len());
            if let Some(s) = sink.as_deref_mut() {
                s.push(&chunk);
            }
        }
        Ok(Response {
            status,
            bytes,
            close: false,
            waiting,
            processing: written.map(|t| t.elapsed()),
        })
    }

    /// The request as HTTP/2 sends it, and its body (parsed once per distinct request).
    fn convert(&mut self, request: &[u8]) -> Result<(http::Request<()>, Bytes), H2Error> {
        if self.last.as_ref().is_none_or(|c| c.from != request) {
            let mut from = self.last.take().map(|c| c.from).unwrap_or_default();
            from.clear();
            from.extend_from_slice(request);
            self.last = Some(Box::new(convert(from, self.https)?));
        }
        let c = self.last.as_ref().expect("converted above");
        let mut req = http::Request::new(());
        *req.method_mut() = c.method.clone();
        *req.uri_mut() = c.uri.clone();
        *req.version_mut() = Version::HTTP_2;
        *req.headers_mut() = c.headers.clone();
        // The body was copied once into shared bytes: each request takes a reference.
        Ok((req, c.body.clone()))
    }
}

/// Headers that belong to an HTTP/1.1 connection, which HTTP/2 forbids (RFC 9113 §8.2.2);
/// `host` becomes `:authority`.
fn connection_specific(name: &str) -> bool {
    [
        "connection",
        "keep-alive",
        "proxy-connection",
        "transfer-encoding",
        "upgrade",
    ]
    .iter()
    .any(|h| name.eq_ignore_ascii_case(h))
}

/// Parse an HTTP/1.1 request as [`super::encode`] wrote it into its HTTP/2 form.
fn convert(from: Vec<u8>, https: bool) -> Result<Converted, H2Error> {
    const BAD: H2Error = H2Error::Request("the request cannot be sent as HTTP/2");
    let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
    let mut r = httparse::Request::new(&mut headers);
    let Ok(httparse::Status::Complete(body_at)) = r.parse(&from) else {
        return Err(BAD);
    };
    let method = Method::from_bytes(r.method.unwrap_or("GET").as_bytes()).map_err(|_| BAD)?;
    let mut map = HeaderMap::with_capacity(r.headers.len());
    let mut authority = None;
    for h in r.headers.iter() {
        if h.name.eq_ignore_ascii_case("host") {
            authority = Some(h.value);
        } else if h.name.eq_ignore_ascii_case("te") {
            // The one value HTTP/2 allows.
            if h.value.eq_ignore_ascii_case(b"trailers") {
                map.append(http::header::TE, HeaderValue::from_static("trailers"));
            }
        } else if !connection_specific(h.name) {
            let name = HeaderName::from_bytes(h.name.as_bytes()).map_err(|_| BAD)?;
            let value = HeaderValue::from_bytes(h.value).map_err(|_| BAD)?;
            map.append(name, value);
        }
    }
    let uri = Uri::builder()
        .scheme(if https { "https" } else { "http" })
        .authority(authority.ok_or(BAD)?)
        .path_and_query(r.path.unwrap_or("/"))
        .build()
        .map_err(|_| BAD)?;
    Ok(Converted {
        method,
        uri,
        headers: map,
        body: Bytes::copy_from_slice(&from[body_at..]),
        from,
    })
}

/// Send a request body as the stream's and the connection's windows allow: a server
/// that never grants room stalls it here, until the request's timeout.
async fn send_body(stream: &mut h2::SendStream<Bytes>, mut rest: Bytes) -> Result<(), H2Error> {
    stream.reserve_capacity(rest.len());
    while !rest.is_empty() {
        let room = match poll_fn(|cx| stream.poll_capacity(cx)).await {
            Some(r) => r.map_err(H2Error::Sent)?,
            None => {
                return Err(H2Error::Request(
                    "the stream closed before its body was sent",
                ))
            }
        };
        let n = room.min(rest.len());
        if n == 0 {
            continue;
        }
        let chunk = rest.split_to(n);
        stream
            .send_data(chunk, rest.is_empty())
            .map_err(H2Error::Sent)?;
    }
    Ok(())
}

/// How an HTTP/2 exchange failed.
#[derive(Debug)]
pub enum H2Error {
    /// Before the request left: the connection could not take a new stream (it had
    /// ended, or the server sent GOAWAY). Nothing reached the server.
    NotSent(h2::Error),
    /// After the request left, from its stream or the connection.
    Sent(h2::Error),
    /// The request could not be put into HTTP/2, or its stream closed mid-body.
    Request(&'static str),
}

impl H2Error {
    fn inner(&self) -> Option<&h2::Error> {
        match self {
            H2Error::NotSent(e) | H2Error::Sent(e) => Some(e),
            H2Error::Request(_) => None,
        }
    }

    /// The engine's error kind: GOAWAY, RST_STREAM and protocol errors each their own.
    pub fn kind(&self) -> ErrorKind {
        let Some(e) = self.inner() else {
            return ErrorKind::Protocol;
        };
        if let Some(io) = e.get_io() {
            return WireError::Io(io::Error::new(io.kind(), "")).kind();
        }
        if e.is_go_away() && e.is_remote() {
            ErrorKind::GoAway
        } else if e.is_reset() && e.is_remote() {
            ErrorKind::StreamReset
        } else {
            // A frame h2 refused (it said so with GOAWAY or RST_STREAM), or a misuse.
            ErrorKind::Protocol
        }
    }

    /// The server never processed the request, so sending it again on a new
    /// connection is safe (RFC 9113 §8.7): it never left, or a graceful GOAWAY or
    /// REFUSED_STREAM said the server left it alone.
    pub fn is_unprocessed(&self) -> bool {
        match self {
            H2Error::NotSent(_) => true,
            H2Error::Sent(e) => {
                e.is_remote()
                    && ((e.is_go_away() && e.reason() == Some(Reason::NO_ERROR))
                        || (e.is_reset() && e.reason() == Some(Reason::REFUSED_STREAM)))
            }
            H2Error::Request(_) => false,
        }
    }

    /// The connection cannot carry another stream: open a new one for the next.
    pub fn ends_connection(&self) -> bool {
        match self.inner() {
            Some(e) => !e.is_reset(),
            None => false,
        }
    }
}

impl std::fmt::Display for H2Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let Some(e) = self.inner() else {
            if let H2Error::Request(m) = self {
                f.write_str(m)?;
            }
            return Ok(());
        };
        match e.reason() {
            Some(r) if e.is_go_away() && e.is_remote() => write!(f, "GOAWAY {r:?} from the server"),
            Some(r) if e.is_reset() && e.is_remote() => {
                write!(f, "RST_STREAM {r:?} from the server")
            }
            _ => write!(f, "{e}"),
        }
    }
}

/// The byte stream under an HTTP/2 connection.
enum Io {
    Plain(TcpStream),
    Tls(Box<tokio_rustls::client::TlsStream<TcpStream>>),
}

/// The byte stream, counting what moves into the worker's meter.
struct Counted {
    io: Io,
    meter: Rc<Meter>,
}

impl AsyncRead for Counted {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        let r = match &mut this.io {
            Io::Plain(s) => Pin::new(s).poll_read(cx, buf),
            Io::Tls(s) => Pin::new(s.as_mut()).poll_read(cx, buf),
        };
        if let Poll::Ready(Ok(())) = r {
            this.meter.add_received(buf.filled().len() - before);
        }
        r
    }
}

impl AsyncWrite for Counted {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, b: &[u8]) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let r = match &mut this.io {
            Io::Plain(s) => Pin::new(s).poll_write(cx, b),
            Io::Tls(s) => Pin::new(s.as_mut()).poll_write(cx, b),
        };
        if let Poll::Ready(Ok(n)) = r {
            this.meter.add_sent(n);
        }
        r
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let r = match &mut this.io {
            Io::Plain(s) => Pin::new(s).poll_write_vectored(cx, bufs),
            Io::Tls(s) => Pin::new(s.as_mut()).poll_write_vectored(cx, bufs),
        };
        if let Poll::Ready(Ok(n)) = r {
            this.meter.add_sent(n);
        }
        r
    }

    fn is_write_vectored(&self) -> bool {
        match &self.io {
            Io::Plain(s) => s.is_write_vectored(),
            Io::Tls(s) => s.is_write_vectored(),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match &mut self.get_mut().io {
            Io::Plain(s) => Pin::new(s).poll_flush(cx),
            Io::Tls(s) => Pin::new(s.as_mut()).poll_flush(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match &mut self.get_mut().io {
            Io::Plain(s) => Pin::new(s).poll_shutdown(cx),
            Io::Tls(s) => Pin::new(s.as_mut()).poll_shutdown(cx),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn converted(req: &[u8], https: bool) -> Converted {
        match convert(req.to_vec(), https) {
            Ok(c) => c,
            Err(e) => panic!("{e}"),
        }
    }

    #[test]
    fn an_encoded_request_becomes_http2() {
        let bytes = crate::http::encode::encode_request(
            "POST",
            "/d/load?table=T",
            "127.0.0.1:8080",
            &[("X-A".into(), "1".into())],
            Some(b"[1]"),
            Some("application/json"),
            crate::http::encode::Persistence::http11(false),
        );
        let c = converted(&bytes, false);
        assert_eq!(c.method, Method::POST);
        assert_eq!(c.uri.to_string(), "http://127.0.0.1:8080/d/load?table=T");
        assert_eq!(c.headers["x-a"], "1");
        assert_eq!(c.headers["content-type"], "application/json");
        // Connection: close and Host do not exist in HTTP/2.
        assert!(!c.headers.contains_key("connection"));
        assert!(!c.headers.contains_key("host"));
        assert_eq!(&c.body[..], b"[1]");
        assert_eq!(converted(&bytes, true).uri.scheme_str(), Some("https"));
    }

    #[test]
    fn a_request_without_host_is_refused_by_name() {
        let e = convert(b"GET / HTTP/1.1\r\n\r\n".to_vec(), false)
            .err()
            .expect("no authority");
        assert_eq!(e.kind(), ErrorKind::Protocol);
        assert_eq!(e.to_string(), "the request cannot be sent as HTTP/2");
    }
}
