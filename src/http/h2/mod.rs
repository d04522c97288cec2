//! HTTP/2 on the load path, a client of our own (RFC 9113, RFC 7541): it opens the
//! connection (h2c with prior knowledge on plain TCP; on TLS, HTTP/2 when ALPN
//! picked `h2`), turns the request the plan encoded for HTTP/1.1 into an HTTP/2
//! header block once per distinct request, and says what went wrong in the engine's
//! error kinds. It replaced the `h2` crate, whose connection task cost twice
//! h2load's instructions a request (HPACK-decoding every response header into a
//! `HeaderMap`, a shared-state mutex, cross-task wakes); see docs/performance.md.
//!
//! One [`H2Conn`] is shared by several virtual clients: each keeps a clone (a handle
//! on the same connection) and runs one stream at a time on it, answered in any order.
//! The connection itself is driven by a task of its own on the worker's thread
//! ([`driver`], over the state its clients share, [`conn`]), which writes every client's frames and reads frames for every stream;
//! bytes are counted into the worker's [`Meter`] as they move, as on HTTP/1.1.
//! [`frame`] parses and writes frames, [`hpack`] and [`huffman`] the header blocks.

mod conn;
mod driver;
mod frame;
mod hpack;
mod huffman;

use std::cell::{Cell, RefCell};
use std::future::poll_fn;
use std::io;
use std::rc::Rc;
use std::time::Instant;

use http::{HeaderName, HeaderValue, Method, Uri};
use tokio_rustls::TlsConnector;

use super::{open_stream, BodySink, Conn, ConnectError, Meter, Opened, Response};
use super::{Stream, Target, WireError, MAX_HEADERS};
use crate::stats::ErrorKind;
use conn::Inner;
use driver::{Driver, Io};

/// Fuzzing: a server's frames read onto an open connection (see [`driver`]).
pub fn fuzz_frames(data: &[u8]) {
    driver::fuzz_frames(data);
}

/// Each stream's receive window: what a server may send of one response before we
/// have read it (hyper's client default; the protocol's 64 KiB would stall large
/// bodies).
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
    inner: Rc<RefCell<Inner>>,
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
    /// Its header fields, each found once in the static table; each connection's
    /// [`hpack::Encoder`] makes the block.
    fields: Vec<hpack::Field>,
    /// The body (the bytes after the head in `from`).
    body: Vec<u8>,
}

/// Open a connection for `--http2`: h2c with prior knowledge on plain TCP; on TLS the
/// protocol ALPN picked (the connector offers `h2` first, [`super::offer_h2`]). The
/// connection's task is spawned on the current `LocalSet`; the preface and SETTINGS
/// leave with the first requests, without waiting for the server's.
pub async fn connect(
    target: &Target,
    tls: Option<&TlsConnector>,
    meter: Rc<Meter>,
) -> Result<(Negotiated, Opened), ConnectError> {
    let (stream, opened) =
        open_stream(target, tls)
            .await
            .map_err(|(kind, cause)| ConnectError {
                kind,
                cause,
                // No read buffer was handed in: HTTP/2 keeps its own.
                buf: Box::default(),
            })?;
    let io = match stream {
        Stream::Plain(s) => Io::Plain(s),
        Stream::Tls(s) if s.get_ref().1.alpn_protocol() == Some(b"h2") => Io::Tls(s),
        other => return Ok((Negotiated::Http1(Conn::over(other, Box::default())), opened)),
    };
    let inner = Rc::new(RefCell::new(Inner::new()));
    tokio::task::spawn_local(Driver::new(inner.clone(), io, meter));
    let conn = H2Conn {
        inner,
        https: target.https,
        last: None,
        time_first_byte: false,
    };
    Ok((Negotiated::H2(conn), opened))
}

impl Drop for H2Conn {
    fn drop(&mut self) {
        // The last handle: the task closes the connection once its streams are done.
        if Rc::strong_count(&self.inner) == 2 {
            if let Ok(mut inner) = self.inner.try_borrow_mut() {
                inner.wake_task();
            }
        }
    }
}

/// A stream the client holds: released (cancelled if unfinished) when dropped, so a
/// request dropped by its timeout frees its stream.
struct Held<'a> {
    inner: &'a RefCell<Inner>,
    ix: usize,
}

impl Drop for Held<'_> {
    fn drop(&mut self) {
        self.inner.borrow_mut().release(self.ix);
    }
}

/// A client's place in the queue for a free stream: left when it is dropped while
/// waiting (its timeout), the next client woken if this one had been.
struct Waiting<'a> {
    inner: &'a RefCell<Inner>,
    ticket: Cell<u64>,
}

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        if self.ticket.get() != 0 {
            self.inner.borrow_mut().leave_queue(self.ticket.get());
        }
    }
}

impl H2Conn {
    /// The connection cannot start another stream (GOAWAY, an error, the server
    /// closed it).
    pub fn is_closed(&self) -> bool {
        self.inner.borrow().is_closed()
    }

    /// Send one request (as the plan encoded it for HTTP/1.1) on a stream of its own
    /// and read its response to the end, the body to `body` if given. `Response::bytes`
    /// counts the body's bytes (the connection's framing is counted in the meter).
    pub async fn exchange(
        &mut self,
        request: &[u8],
        body: Option<&mut BodySink<'_>>,
    ) -> Result<Response, H2Error> {
        self.exchange_watched(request, body, &Cell::new(false))
            .await
    }

    /// [`Self::exchange`], saying in `stalled` whether the request body is waiting
    /// for send window from the server: true while it waits, false once it is all
    /// queued. The engine reads it when the request's timeout drops this future, to
    /// count a flow-control stall as its own kind rather than as a timeout.
    pub async fn exchange_watched(
        &mut self,
        request: &[u8],
        body: Option<&mut BodySink<'_>>,
        stalled: &Cell<bool>,
    ) -> Result<Response, H2Error> {
        self.convert(request)?;
        let c = self.last.as_deref().expect("converted above");
        let inner = &*self.inner;
        let keep = body
            .as_ref()
            .map_or(0, |s| s.limit.saturating_sub(s.buf.len()) + 1);
        let timed = self.time_first_byte;
        let waiting = Waiting {
            inner,
            ticket: Cell::new(0),
        };
        let ix = poll_fn(|cx| {
            let mut ticket = waiting.ticket.get();
            let r =
                inner
                    .borrow_mut()
                    .open(cx, &mut ticket, &c.fields, c.body.is_empty(), keep, timed);
            waiting.ticket.set(ticket);
            r
        })
        .await?;
        drop(waiting);
        let held = Held { inner, ix };
        let written = timed.then(Instant::now);
        if !c.body.is_empty() {
            let mut sent = 0;
            poll_fn(|cx| {
                let r = inner.borrow_mut().send_body(cx, ix, &c.body, &mut sent);
                stalled.set(r.is_pending());
                r
            })
            .await;
        }
        poll_fn(|cx| inner.borrow_mut().poll_end(cx, ix)).await?;
        let inner = inner.borrow();
        let s = inner.slot(ix);
        if let Some(sink) = body {
            sink.push(&s.body);
        }
        let response = Response {
            status: s.status,
            bytes: s.bytes,
            close: false,
            waiting: written
                .zip(s.head_at)
                .map(|(w, h)| h.saturating_duration_since(w)),
            processing: written.map(|t| t.elapsed()),
            arrived: s.ended_at,
        };
        drop(inner);
        drop(held);
        Ok(response)
    }

    /// Convert `request` unless it is the one converted last.
    fn convert(&mut self, request: &[u8]) -> Result<(), H2Error> {
        if self.last.as_ref().is_none_or(|c| c.from != request) {
            let mut from = self.last.take().map(|c| c.from).unwrap_or_default();
            from.clear();
            from.extend_from_slice(request);
            self.last = Some(Box::new(convert(from, self.https)?));
        }
        Ok(())
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
    let scheme = if https { "https" } else { "http" };
    let path = r.path.unwrap_or("/");
    let authority = r
        .headers
        .iter()
        .find(|h| h.name.eq_ignore_ascii_case("host"))
        .ok_or(BAD)?
        .value;
    // What the `h2` crate checked: a URI HTTP/2 can carry.
    Uri::builder()
        .scheme(scheme)
        .authority(authority)
        .path_and_query(path)
        .build()
        .map_err(|_| BAD)?;
    let mut fields = vec![
        hpack::Field::new(b":method", method.as_str().as_bytes()),
        hpack::Field::new(b":scheme", scheme.as_bytes()),
        hpack::Field::new(b":authority", authority),
        hpack::Field::new(b":path", path.as_bytes()),
    ];
    for h in r.headers.iter() {
        if h.name.eq_ignore_ascii_case("host") {
            continue;
        }
        if h.name.eq_ignore_ascii_case("te") {
            // The one value HTTP/2 allows.
            if h.value.eq_ignore_ascii_case(b"trailers") {
                fields.push(hpack::Field::new(b"te", b"trailers"));
            }
        } else if !connection_specific(h.name) {
            // Lowercased, as HTTP/2 requires; both checked as the `h2` crate did.
            let name = HeaderName::from_bytes(h.name.as_bytes()).map_err(|_| BAD)?;
            HeaderValue::from_bytes(h.value).map_err(|_| BAD)?;
            fields.push(hpack::Field::new(name.as_str().as_bytes(), h.value));
        }
    }
    Ok(Converted {
        fields,
        body: from[body_at..].to_vec(),
        from,
    })
}

/// Why a connection ended (or could take no new stream).
#[derive(Debug, Clone)]
pub enum Cause {
    /// The socket failed.
    Io(io::ErrorKind, Rc<str>),
    /// The server closed the connection.
    Eof,
    /// The server's GOAWAY, with its code.
    GoAway(u32),
    /// The server broke the protocol; hakaru said so with GOAWAY.
    Protocol(&'static str),
    /// Every stream identifier has been used.
    Exhausted,
    /// No handle on the connection was left.
    Dropped,
}

impl Cause {
    fn io(e: io::Error) -> Cause {
        Cause::Io(e.kind(), e.to_string().into())
    }

    fn kind(&self) -> ErrorKind {
        match self {
            Cause::Io(kind, _) => WireError::Io(io::Error::from(*kind)).kind(),
            Cause::Eof => WireError::Io(io::ErrorKind::UnexpectedEof.into()).kind(),
            Cause::GoAway(_) => ErrorKind::GoAway,
            Cause::Protocol(_) | Cause::Exhausted | Cause::Dropped => ErrorKind::Protocol,
        }
    }
}

impl std::fmt::Display for Cause {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Cause::Io(_, m) => f.write_str(m),
            Cause::Eof => f.write_str("the server closed the HTTP/2 connection"),
            Cause::GoAway(code) => write!(f, "GOAWAY {} from the server", frame::code_name(*code)),
            Cause::Protocol(m) => write!(f, "HTTP/2 protocol error: {m}"),
            Cause::Exhausted => f.write_str("the connection's stream identifiers are used up"),
            Cause::Dropped => f.write_str("the connection was closed"),
        }
    }
}

/// How an HTTP/2 exchange failed.
#[derive(Debug)]
pub enum H2Error {
    /// Before the request left: the connection could not take a new stream (it had
    /// ended, or the server sent GOAWAY). Nothing reached the server.
    NotSent(Cause),
    /// After the request left, the connection ended.
    Sent(Cause),
    /// The server's GOAWAY ended the stream; `unprocessed` when it was graceful
    /// (NO_ERROR) and the stream was above its last stream id.
    GoAway { code: u32, unprocessed: bool },
    /// The server's RST_STREAM, with its code.
    Reset(u32),
    /// The server broke the protocol on this stream alone (hakaru reset it).
    Malformed(&'static str),
    /// The request could not be put into HTTP/2.
    Request(&'static str),
}

impl H2Error {
    /// The engine's error kind: GOAWAY, RST_STREAM and protocol errors each their own.
    pub fn kind(&self) -> ErrorKind {
        match self {
            H2Error::NotSent(c) | H2Error::Sent(c) => c.kind(),
            H2Error::GoAway { .. } => ErrorKind::GoAway,
            H2Error::Reset(_) => ErrorKind::StreamReset,
            H2Error::Malformed(_) | H2Error::Request(_) => ErrorKind::Protocol,
        }
    }

    /// The server never processed the request, so sending it again on a new
    /// connection is safe (RFC 9113 §8.7): it never left, or a graceful GOAWAY or
    /// REFUSED_STREAM said the server left it alone.
    pub fn is_unprocessed(&self) -> bool {
        match self {
            H2Error::NotSent(_) => true,
            H2Error::GoAway { unprocessed, .. } => *unprocessed,
            H2Error::Reset(code) => *code == frame::REFUSED_STREAM,
            H2Error::Sent(_) | H2Error::Malformed(_) | H2Error::Request(_) => false,
        }
    }

    /// The connection cannot carry another stream: open a new one for the next.
    pub fn ends_connection(&self) -> bool {
        matches!(
            self,
            H2Error::NotSent(_) | H2Error::Sent(_) | H2Error::GoAway { .. }
        )
    }
}

impl std::fmt::Display for H2Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            H2Error::NotSent(c) | H2Error::Sent(c) => write!(f, "{c}"),
            H2Error::GoAway { code, .. } => {
                write!(f, "GOAWAY {} from the server", frame::code_name(*code))
            }
            H2Error::Reset(code) => {
                write!(f, "RST_STREAM {} from the server", frame::code_name(*code))
            }
            H2Error::Malformed(m) => write!(f, "HTTP/2 protocol error: {m}"),
            H2Error::Request(m) => f.write_str(m),
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

    fn fields(c: &Converted) -> Vec<(String, String)> {
        let mut all = Vec::new();
        let mut block = Vec::new();
        hpack::Encoder::new().encode(&mut block, &c.fields);
        hpack::Decoder::new(hpack::DEFAULT_TABLE_SIZE)
            .decode(&block, |n, v| {
                let s = |t: hpack::Text<'_>| String::from_utf8(t.bytes.to_vec()).unwrap();
                all.push((s(n), s(v)));
                Ok(())
            })
            .unwrap();
        all
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
        let f = fields(&c);
        let has = |n: &str, v: &str| f.iter().any(|(a, b)| a == n && b == v);
        assert!(has(":method", "POST"), "{f:?}");
        assert!(has(":scheme", "http"), "{f:?}");
        assert!(has(":authority", "127.0.0.1:8080"), "{f:?}");
        assert!(has(":path", "/d/load?table=T"), "{f:?}");
        assert!(has("x-a", "1"), "{f:?}");
        assert!(has("content-type", "application/json"), "{f:?}");
        // Pseudo-headers first (RFC 9113 §8.3).
        assert!(f[..4].iter().all(|(n, _)| n.starts_with(':')), "{f:?}");
        // Connection: close and Host do not exist in HTTP/2.
        assert!(
            !f.iter().any(|(n, _)| n == "connection" || n == "host"),
            "{f:?}"
        );
        assert_eq!(&c.body[..], b"[1]");
        let f = fields(&converted(&bytes, true));
        assert!(
            f.iter().any(|(n, v)| n == ":scheme" && v == "https"),
            "{f:?}"
        );
    }

    #[test]
    fn a_request_without_host_is_refused_by_name() {
        let e = convert(b"GET / HTTP/1.1\r\n\r\n".to_vec(), false)
            .err()
            .expect("no authority");
        assert_eq!(e.kind(), ErrorKind::Protocol);
        assert_eq!(e.to_string(), "the request cannot be sent as HTTP/2");
    }

    #[test]
    fn errors_are_told_apart_as_the_engine_counts_them() {
        let graceful = H2Error::GoAway {
            code: frame::NO_ERROR,
            unprocessed: true,
        };
        assert!(graceful.is_unprocessed() && graceful.ends_connection());
        assert_eq!(graceful.to_string(), "GOAWAY NO_ERROR from the server");
        let e = H2Error::GoAway {
            code: 2,
            unprocessed: false,
        };
        assert_eq!(e.kind(), ErrorKind::GoAway);
        assert_eq!(e.to_string(), "GOAWAY INTERNAL_ERROR from the server");
        let reset = H2Error::Reset(11);
        assert_eq!(reset.kind(), ErrorKind::StreamReset);
        assert!(!reset.ends_connection() && !reset.is_unprocessed());
        assert_eq!(
            reset.to_string(),
            "RST_STREAM ENHANCE_YOUR_CALM from the server"
        );
        assert!(H2Error::Reset(frame::REFUSED_STREAM).is_unprocessed());
        assert!(H2Error::NotSent(Cause::Eof).is_unprocessed());
        assert_eq!(H2Error::Sent(Cause::Eof).kind(), ErrorKind::Reset);
        assert_eq!(
            H2Error::Sent(Cause::Protocol("x")).kind(),
            ErrorKind::Protocol
        );
    }
}
