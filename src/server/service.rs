//! The bridge between hyper and the targets: a hyper [`Service`] per connection that
//! turns hyper's request into a [`Request`] for the [`Handler`], and the handler's
//! [`Response`] into hyper's, with the server's rules on top — when to close, delays,
//! body limits, panicking handlers.
//!
//! A request without a body and an answer without a delay (every benchmark of `/`,
//! `/bytes/N` and `select`) is answered from `call` itself with a ready future, so
//! nothing is boxed on that path; a body to collect or a delay to wait goes through one
//! boxed future.

use std::future::Future;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::{Body, Incoming};
use hyper::header::{HeaderValue, CONNECTION, CONTENT_TYPE};
use hyper::service::Service;
use hyper::{StatusCode, Version};
use tokio::sync::watch;

use super::handler::{Handler, Request, Response};
use super::listen::{reason, ServerStats, MAX_BODY_BYTES};

/// What hyper sends back.
pub type HyperResponse = hyper::Response<Full<Bytes>>;

/// The server stopped while a delayed answer was waiting: hyper drops the connection
/// without an answer, as a server going away does.
#[derive(Debug, thiserror::Error)]
#[error("the server stopped before the answer was due")]
pub struct Stopped;

/// One connection's service: shared handler and counters, this server's rules.
#[derive(Clone)]
pub struct Conn {
    pub handler: Arc<dyn Handler>,
    pub stats: Arc<ServerStats>,
    /// false: every answer closes its connection (`--no-keep-alive`).
    pub keep_alive: bool,
    /// Call the handler through `block_in_place` (see [`Handler::may_block`]).
    pub blocking: bool,
    /// Becomes true when the server stops; ends delays early.
    pub stop: watch::Receiver<bool>,
}

/// The future of one answer: ready at once, or boxed when it has to wait.
pub enum Answer {
    Ready(Option<HyperResponse>),
    Waiting(Pin<Box<dyn Future<Output = Result<HyperResponse, Stopped>> + Send>>),
}

impl Future for Answer {
    type Output = Result<HyperResponse, Stopped>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match self.get_mut() {
            Answer::Ready(resp) => {
                Poll::Ready(Ok(resp.take().expect("Answer polled after completion")))
            }
            Answer::Waiting(fut) => fut.as_mut().poll(cx),
        }
    }
}

impl Service<hyper::Request<Incoming>> for Conn {
    type Response = HyperResponse;
    type Error = Stopped;
    type Future = Answer;

    fn call(&self, req: hyper::Request<Incoming>) -> Answer {
        let (parts, body) = req.into_parts();
        let close_asked = client_wants_close(&parts.version, &parts.headers);
        if body.is_end_stream() {
            let empty = Bytes::new();
            let resp = self.answer(&parts, &empty);
            if resp.delay.is_none() {
                return Answer::Ready(Some(self.finish(resp, close_asked)));
            }
            let wait = self.wait_and_finish(resp, close_asked);
            return Answer::Waiting(Box::pin(wait));
        }
        if body.size_hint().lower() > MAX_BODY_BYTES as u64 {
            return Answer::Ready(Some(self.reject(413, "request body larger than 64 MiB\n")));
        }
        let conn = self.clone();
        Answer::Waiting(Box::pin(async move {
            let body = match Limited::new(body, MAX_BODY_BYTES).collect().await {
                Ok(collected) => collected.to_bytes(),
                Err(e) if e.is::<http_body_util::LengthLimitError>() => {
                    return Ok(conn.reject(413, "request body larger than 64 MiB\n"))
                }
                // A malformed chunked body, or the client went away mid-body.
                Err(_) => return Ok(conn.reject(400, "malformed request body\n")),
            };
            let resp = conn.answer(&parts, &body);
            conn.wait_and_finish(resp, close_asked).await
        }))
    }
}

impl Conn {
    /// Calls the handler; a panic becomes a 500 that closes the connection.
    fn answer(&self, parts: &hyper::http::request::Parts, body: &Bytes) -> Response {
        let request = Request {
            method: parts.method.as_str(),
            path: parts.uri.path(),
            query: parts.uri.query().unwrap_or(""),
            headers: &parts.headers,
            body,
        };
        let handler = &self.handler;
        let call = || catch_unwind(AssertUnwindSafe(|| handler.handle(&request)));
        let result = if self.blocking {
            tokio::task::block_in_place(call)
        } else {
            call()
        };
        result.unwrap_or_else(|_| {
            let mut resp = Response::text(500, "the handler panicked\n");
            resp.close = true;
            resp
        })
    }

    /// Sleeps for the answer's delay (unless the server stops first), then finishes it.
    fn wait_and_finish(
        &self,
        resp: Response,
        close_asked: bool,
    ) -> impl Future<Output = Result<HyperResponse, Stopped>> + Send + 'static {
        let mut stop = self.stop.clone();
        let stats = self.stats.clone();
        let keep_alive = self.keep_alive;
        async move {
            if let Some(delay) = resp.delay {
                tokio::select! {
                    _ = super::precise::sleep(delay) => {}
                    _ = stop.wait_for(|stopped| *stopped) => return Err(Stopped),
                }
            }
            Ok(finish(&stats, keep_alive, resp, close_asked))
        }
    }

    fn finish(&self, resp: Response, close_asked: bool) -> HyperResponse {
        finish(&self.stats, self.keep_alive, resp, close_asked)
    }

    /// An answer to a request that cannot be served; the connection closes after it.
    fn reject(&self, status: u16, message: &'static str) -> HyperResponse {
        let mut resp = Response::text(status, message);
        resp.close = true;
        self.finish(resp, true)
    }
}

/// Counts the answer and converts it for hyper. `Connection: close` is said explicitly
/// whenever the connection closes (hyper would leave it out for HTTP/1.0), so clients
/// and tests see why.
fn finish(
    stats: &ServerStats,
    keep_alive: bool,
    resp: Response,
    close_asked: bool,
) -> HyperResponse {
    stats.count_request();
    to_hyper(resp, !keep_alive || close_asked)
}

/// The handler's answer as hyper's. A status outside 200..=999 becomes 500: interim
/// (1xx) answers are the server's business. Codes hyper has no reason phrase for get
/// ours by class ("599 Server Error") rather than hyper's `<none>`.
pub fn to_hyper(resp: Response, close: bool) -> HyperResponse {
    let code = if (200..=999).contains(&resp.status) {
        resp.status
    } else {
        500
    };
    let status = StatusCode::from_u16(code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let mut out = hyper::Response::new(Full::new(resp.body));
    *out.status_mut() = status;
    if status.canonical_reason().is_none() {
        out.extensions_mut()
            .insert(hyper::ext::ReasonPhrase::from_static(
                reason(code).as_bytes(),
            ));
    }
    let headers = out.headers_mut();
    if !matches!(code, 204 | 304) {
        headers.insert(CONTENT_TYPE, HeaderValue::from_static(resp.content_type));
    }
    if close || resp.close {
        headers.insert(CONNECTION, HeaderValue::from_static("close"));
    }
    out
}

/// `Connection: close` from the client, or HTTP/1.0 without `Connection: keep-alive`.
fn client_wants_close(version: &Version, headers: &hyper::HeaderMap) -> bool {
    let mut close = false;
    let mut keep_alive = false;
    for value in headers.get_all(CONNECTION) {
        for token in value.as_bytes().split(|&b| b == b',') {
            let token = token.trim_ascii();
            close |= token.eq_ignore_ascii_case(b"close");
            keep_alive |= token.eq_ignore_ascii_case(b"keep-alive");
        }
    }
    close || (*version == Version::HTTP_10 && !keep_alive)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reason_of(resp: &HyperResponse) -> Option<&[u8]> {
        resp.extensions()
            .get::<hyper::ext::ReasonPhrase>()
            .map(|r| r.as_bytes())
    }

    #[test]
    fn type_and_no_connection_header_by_default() {
        let out = to_hyper(Response::text(200, "hello"), false);
        assert_eq!(out.status(), 200);
        assert_eq!(out.headers()[CONTENT_TYPE], "text/plain");
        assert!(out.headers().get(CONNECTION).is_none());
        assert_eq!(out.body().size_hint().exact(), Some(5));
    }

    #[test]
    fn close_is_said_when_the_server_or_the_handler_closes() {
        let out = to_hyper(Response::text(503, ""), true);
        assert_eq!(out.headers()[CONNECTION], "close");
        let mut resp = Response::text(200, "");
        resp.close = true;
        assert_eq!(to_hyper(resp, false).headers()[CONNECTION], "close");
    }

    #[test]
    fn no_content_and_not_modified_have_no_type() {
        for code in [204, 304] {
            let out = to_hyper(Response::text(code, ""), false);
            assert!(out.headers().get(CONTENT_TYPE).is_none(), "{code}");
        }
    }

    #[test]
    fn interim_or_absurd_status_from_a_handler_becomes_500() {
        for status in [0, 100, 199, 1000] {
            let out = to_hyper(Response::text(status, "x"), false);
            assert_eq!(out.status(), 500, "{status}");
        }
        let out = to_hyper(Response::text(599, "x"), false);
        assert_eq!(out.status(), 599);
        assert_eq!(reason_of(&out), Some(&b"Server Error"[..]));
        // Known codes keep hyper's canonical phrase and need no extension.
        assert_eq!(reason_of(&to_hyper(Response::text(404, ""), false)), None);
    }

    #[test]
    fn http10_closes_unless_asked_and_close_wins() {
        let mut headers = hyper::HeaderMap::new();
        assert!(client_wants_close(&Version::HTTP_10, &headers));
        assert!(!client_wants_close(&Version::HTTP_11, &headers));
        headers.insert(CONNECTION, HeaderValue::from_static("Keep-Alive"));
        assert!(!client_wants_close(&Version::HTTP_10, &headers));
        headers.append(CONNECTION, HeaderValue::from_static("foo, close"));
        assert!(client_wants_close(&Version::HTTP_10, &headers));
        assert!(client_wants_close(&Version::HTTP_11, &headers));
    }
}
