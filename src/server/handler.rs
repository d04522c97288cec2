//! The contract between the embedded target's HTTP server and what answers requests.
//!
//! The server (connection handling, keep-alive, parsing) lives in `server::listen`;
//! each kind of target (`basic` endpoints, the `search` engine) implements [`Handler`].

use std::time::Duration;

/// A parsed request as a handler sees it.
#[derive(Debug)]
pub struct Request<'a> {
    pub method: &'a str,
    /// The path without the query string, percent-encoding left as it is.
    pub path: &'a str,
    /// The raw query string (after `?`), empty when there is none.
    pub query: &'a str,
    pub headers: &'a [(String, String)],
    pub body: &'a [u8],
}

/// What a handler answers.
#[derive(Debug, Clone)]
pub struct Response {
    pub status: u16,
    pub content_type: &'static str,
    pub body: Vec<u8>,
    /// Wait this long before answering (the server sleeps without blocking other connections).
    pub delay: Option<Duration>,
    /// Close the connection after this response, whatever the client asked.
    pub close: bool,
}

impl Response {
    pub fn new(status: u16, content_type: &'static str, body: impl Into<Vec<u8>>) -> Self {
        Response {
            status,
            content_type,
            body: body.into(),
            delay: None,
            close: false,
        }
    }

    pub fn text(status: u16, body: impl Into<Vec<u8>>) -> Self {
        Response::new(status, "text/plain", body)
    }

    pub fn json(status: u16, body: impl Into<Vec<u8>>) -> Self {
        Response::new(status, "application/json", body)
    }
}

/// Answers requests. Called from the server's worker threads; a handler that does
/// blocking work (SQLite) should keep it short and say so with [`Handler::may_block`],
/// so the server runs it on a blocking-safe thread.
pub trait Handler: Send + Sync + 'static {
    fn handle(&self, req: &Request<'_>) -> Response;

    /// True when `handle` may block its thread for more than a few microseconds (disk,
    /// SQLite, locks). The server then calls it through `tokio::task::block_in_place`,
    /// which keeps other connections moving but costs a thread hand-off per request;
    /// fast in-memory handlers leave this `false`.
    fn may_block(&self) -> bool {
        false
    }
}
