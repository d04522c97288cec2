//! A PostgreSQL connection for the engine's clients: connected and logged in once
//! (sslmode, any of `sql::pg::auth`'s methods), then one statement at a time written
//! from a reused buffer and its answer framed from a reused read buffer up to
//! ReadyForQuery. Per statement nothing is allocated once the buffers have grown: the
//! read buffer is consumed by a cursor (compacted only when a message would not fit),
//! rows are counted, and only the first row is copied (for `\gset`). Prepared mode
//! Parses a statement once per connection and remembers it by its index. A pipeline
//! (`\startpipeline`) queues its statements' messages without a Sync and sends them
//! with its one Sync; their answers are then read in order, the statements after
//! a failed one skipped by the server until ReadyForQuery.

use std::io;
use std::sync::Arc;
use std::task::{Context, Poll};

use bytes::BytesMut;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::net::TcpStream;

use crate::sql::pg::auth::{Login, LoginError, LoginStep};
use crate::sql::pg::backend::{next_message, Answer, ProtocolError, Step};
use crate::sql::pg::frontend::{self, QueryMode};
use crate::sql::pg::sqlstate::SqlErrorKind;
use crate::sql::pg::url::{PgUrl, SslMode};
use crate::stats::ErrorKind;

/// The error kind results count a statement's SQLSTATE under.
pub fn sql_error_kind(kind: SqlErrorKind) -> ErrorKind {
    match kind {
        SqlErrorKind::Serialization => ErrorKind::SqlSerializationFailure,
        SqlErrorKind::Deadlock => ErrorKind::SqlDeadlock,
        SqlErrorKind::UniqueViolation => ErrorKind::SqlUniqueViolation,
        SqlErrorKind::TooManyConnections => ErrorKind::SqlTooManyConnections,
        SqlErrorKind::AdminShutdown => ErrorKind::SqlAdminShutdown,
        SqlErrorKind::CannotConnectNow => ErrorKind::SqlCannotConnectNow,
        SqlErrorKind::Other(_) => ErrorKind::SqlError,
    }
}

/// Why a connection or a statement failed on the wire (a statement the server
/// refused is not this: its answer carries the SQLSTATE).
#[derive(Debug)]
pub enum PgConnError {
    Connect(io::Error),
    Tls(String),
    Login(LoginError),
    /// The server closed the connection before the answer was whole.
    Reset,
    Io(io::Error),
    Protocol(ProtocolError),
    /// A statement the protocol cannot carry (a NUL in its text…).
    Encode(String),
    /// The server sent an ErrorResponse, then closed the connection: a FATAL
    /// such as a fast shutdown's 57P01, counted by its SQLSTATE, not as a reset.
    Fatal {
        sqlstate: [u8; 5],
        message: String,
    },
}

impl PgConnError {
    /// The error kind results count it under.
    pub fn kind(&self) -> ErrorKind {
        match self {
            PgConnError::Connect(_) => ErrorKind::Connect,
            PgConnError::Tls(_) => ErrorKind::Tls,
            PgConnError::Login(LoginError::Protocol(_)) | PgConnError::Protocol(_) => {
                ErrorKind::Malformed
            }
            PgConnError::Login(LoginError::Refused { sqlstate, .. }) => {
                match SqlErrorKind::of(sqlstate.as_bytes()) {
                    k @ (SqlErrorKind::TooManyConnections
                    | SqlErrorKind::AdminShutdown
                    | SqlErrorKind::CannotConnectNow) => sql_error_kind(k),
                    _ => ErrorKind::ReplyNoauth,
                }
            }
            PgConnError::Login(_) => ErrorKind::ReplyNoauth,
            PgConnError::Reset => ErrorKind::Reset,
            PgConnError::Io(e) if e.kind() == io::ErrorKind::ConnectionReset => ErrorKind::Reset,
            PgConnError::Io(_) => ErrorKind::Io,
            PgConnError::Encode(_) => ErrorKind::Protocol,
            PgConnError::Fatal { sqlstate, .. } => sql_error_kind(SqlErrorKind::of(sqlstate)),
        }
    }
}

impl std::fmt::Display for PgConnError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PgConnError::Connect(e) => write!(f, "connect: {e}"),
            PgConnError::Tls(e) => write!(f, "TLS: {e}"),
            PgConnError::Login(e) => write!(f, "{e}"),
            PgConnError::Reset => f.write_str("the server closed the connection mid-answer"),
            PgConnError::Io(e) => write!(f, "{e}"),
            PgConnError::Protocol(e) => write!(f, "{e}"),
            PgConnError::Encode(e) => f.write_str(e),
            PgConnError::Fatal { sqlstate, message } => write!(
                f,
                "SQLSTATE {}: {message} (then the server closed the connection)",
                String::from_utf8_lossy(sqlstate)
            ),
        }
    }
}

/// What [`PgConn::next_in_pipeline`] read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pipelined {
    /// The next statement's answer (its error too), in `answer()`.
    Answered,
    /// The next statement, skipped by the server after an earlier one failed.
    Skipped,
    /// ReadyForQuery: the pipeline is over.
    Ended,
}

/// A `postgres://` target as the engine connects to it. Its `Debug` never shows
/// the password.
#[derive(Clone, PartialEq)]
pub struct PgTarget {
    pub url: PgUrl,
    /// From `PGPASSWORD` or a file; else the URL's.
    pub password: Option<String>,
    pub mode: QueryMode,
}

impl std::fmt::Debug for PgTarget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgTarget")
            .field("url", &self.url)
            .field("mode", &self.mode)
            .finish_non_exhaustive()
    }
}

trait Wire: AsyncRead + AsyncWrite + Unpin + Send {}
impl<T: AsyncRead + AsyncWrite + Unpin + Send> Wire for T {}

/// One logged-in connection.
pub struct PgConn {
    wire: Box<dyn Wire>,
    rbuf: Vec<u8>,
    /// The unread bytes are `rbuf[at..]`.
    at: usize,
    wbuf: BytesMut,
    answer: Answer,
    /// Statements (by index) this connection has Parse'd in prepared mode.
    parsed: Vec<bool>,
    /// The pipeline's statements in order: each index and whether its Parse went
    /// with it; `told` of them answered so far, and whether one of them failed.
    pipe: Vec<(usize, bool)>,
    told: usize,
    pipe_failed: bool,
    /// ReadyForQuery's last status: `I`, `T` (in a block) or `E` (a failed block).
    pub status: u8,
    /// Bytes written and read, for the results' byte counts.
    pub bytes_out: u64,
    pub bytes_in: u64,
}

impl PgConn {
    /// Connects to `url` and logs in as its user with `password` (else the URL's).
    pub async fn connect(url: &PgUrl, password: Option<&str>) -> Result<PgConn, PgConnError> {
        let tcp = TcpStream::connect((url.host.as_str(), url.port))
            .await
            .map_err(PgConnError::Connect)?;
        tcp.set_nodelay(true).map_err(PgConnError::Connect)?;
        let wire = negotiate_tls(tcp, url).await?;
        let mut conn = PgConn {
            wire,
            rbuf: Vec::with_capacity(16 * 1024),
            at: 0,
            wbuf: BytesMut::with_capacity(1024),
            answer: Answer::default(),
            parsed: Vec::new(),
            pipe: Vec::new(),
            told: 0,
            pipe_failed: false,
            status: b'I',
            bytes_out: 0,
            bytes_in: 0,
        };
        frontend::startup(&url.user, &url.database, &mut conn.wbuf).map_err(PgConnError::Encode)?;
        let password = password.or(url.password.as_deref());
        let mut login = Login::new(&url.user, password.map(str::as_bytes));
        loop {
            conn.flush().await?;
            let (tag, start, end) = conn.message().await?;
            let step = login.feed(tag, &conn.rbuf[start..end], &mut conn.wbuf);
            if step.map_err(PgConnError::Login)? == LoginStep::Ready {
                return Ok(conn);
            }
        }
    }

    async fn flush(&mut self) -> Result<(), PgConnError> {
        if !self.wbuf.is_empty() {
            self.bytes_out += self.wbuf.len() as u64;
            let r = self.wire.write_all(&self.wbuf).await;
            self.wbuf.clear();
            r.map_err(PgConnError::Io)?;
        }
        Ok(())
    }

    /// A pipeline's statements sent with its Sync, reading while the socket takes no
    /// more. They can be more than the socket buffers hold, and the server answers
    /// as it reads: unread, its answers fill the buffers, it stops reading, and both
    /// ends wait for ever (a timeout, where pgbench's libpq reads while it writes and
    /// the pipeline passes). What is read waits in `rbuf` for `message`.
    async fn flush_reading(&mut self) -> Result<(), PgConnError> {
        let mut written = 0;
        self.bytes_out += self.wbuf.len() as u64;
        let sent = std::future::poll_fn(|cx| loop {
            let wire = std::pin::Pin::new(&mut self.wire);
            let step = if written < self.wbuf.len() {
                match wire.poll_write(cx, &self.wbuf[written..]) {
                    Poll::Ready(Ok(0)) => return Poll::Ready(Err(io::ErrorKind::WriteZero.into())),
                    Poll::Ready(Ok(n)) => {
                        written += n;
                        continue;
                    }
                    other => other.map_ok(drop),
                }
            } else {
                wire.poll_flush(cx)
            };
            match step {
                Poll::Ready(done) => return Poll::Ready(done),
                Poll::Pending => match self.poll_read_more(cx) {
                    Poll::Ready(Ok(())) => continue,
                    other => return other,
                },
            }
        })
        .await;
        self.wbuf.clear();
        sent.map_err(PgConnError::Io)
    }

    /// Reads what has come into `rbuf`'s end; the end of the stream is a reset.
    fn poll_read_more(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        const CHUNK: usize = 64 * 1024;
        let len = self.rbuf.len();
        self.rbuf.resize(len + CHUNK, 0);
        let mut buf = ReadBuf::new(&mut self.rbuf[len..]);
        let read = std::pin::Pin::new(&mut self.wire).poll_read(cx, &mut buf);
        let n = buf.filled().len();
        self.rbuf.truncate(len + n);
        self.bytes_in += n as u64;
        match read {
            Poll::Ready(Ok(())) if n == 0 => {
                Poll::Ready(Err(io::ErrorKind::ConnectionReset.into()))
            }
            other => other,
        }
    }

    /// The next whole message: its tag and its body's range in `rbuf` (valid until
    /// the next call).
    async fn message(&mut self) -> Result<(u8, usize, usize), PgConnError> {
        loop {
            let unread = &self.rbuf[self.at..];
            if let Some((tag, body, used)) = next_message(unread).map_err(PgConnError::Protocol)? {
                let start = self.at + (used - body.len());
                self.at += used;
                return Ok((tag, start, self.at));
            }
            // Make room: move the partial message to the front, grow only for a
            // message larger than the buffer.
            if self.at > 0 {
                self.rbuf.copy_within(self.at.., 0);
                self.rbuf.truncate(self.rbuf.len() - self.at);
                self.at = 0;
            }
            if self.rbuf.capacity() - self.rbuf.len() < 4096 {
                self.rbuf.reserve(self.rbuf.capacity().max(4096));
            }
            let n = self
                .wire
                .read_buf(&mut self.rbuf)
                .await
                .map_err(PgConnError::Io)?;
            if n == 0 {
                return Err(PgConnError::Reset);
            }
            self.bytes_in += n as u64;
        }
    }

    /// Sends statement `index` (`sql`, its `params` as text for the extended and
    /// prepared modes; `name` its prepared statement's name) and reads its answer.
    pub async fn statement(
        &mut self,
        mode: QueryMode,
        index: usize,
        sql: &str,
        params: &[Option<&[u8]>],
        name: Option<&str>,
    ) -> Result<&Answer, PgConnError> {
        let parsed = self.is_parsed(index);
        frontend::statement(mode, sql, params, name, parsed, &mut self.wbuf)
            .map_err(PgConnError::Encode)?;
        if let Err(e) = self.flush().await {
            return Err(self.said_before_closing(e).await);
        }
        self.read_answer().await?;
        if mode == QueryMode::Prepared && !parsed {
            self.note_parsed(index);
        }
        Ok(&self.answer)
    }

    fn is_parsed(&self, index: usize) -> bool {
        self.parsed.get(index).copied().unwrap_or(false)
    }

    /// Parsed once the server said so, even when the statement then failed (a
    /// unique violation): Parse'd again, it was 42P05 for the connection's life.
    fn note_parsed(&mut self, index: usize) {
        if self.answer.parsed {
            if self.parsed.len() <= index {
                self.parsed.resize(index + 1, false);
            }
            self.parsed[index] = true;
        }
    }

    /// Queues statement `index` in the pipeline: its messages written, not sent.
    /// Nothing is flushed before the Sync, as libpq under pgbench sends a pipeline.
    pub fn queue(
        &mut self,
        mode: QueryMode,
        index: usize,
        sql: &str,
        params: &[Option<&[u8]>],
        name: Option<&str>,
    ) -> Result<(), PgConnError> {
        let parsed = self.is_parsed(index);
        frontend::pipelined(mode, sql, params, name, parsed, &mut self.wbuf)
            .map_err(PgConnError::Encode)?;
        self.pipe
            .push((index, mode == QueryMode::Prepared && !parsed));
        Ok(())
    }

    /// A pipeline that will not be sent (a script error inside it): its queued
    /// messages dropped unsent.
    pub fn abandon_pipeline(&mut self) {
        self.wbuf.clear();
        self.pipe.clear();
    }

    /// Ends the pipeline: its Sync, and everything queued sent at once.
    pub async fn sync(&mut self) -> Result<(), PgConnError> {
        frontend::sync(&mut self.wbuf);
        self.told = 0;
        self.pipe_failed = false;
        if let Err(e) = self.flush_reading().await {
            return Err(self.said_before_closing(e).await);
        }
        Ok(())
    }

    /// After [`PgConn::sync`], the next pipelined statement's answer, in the order
    /// they were queued; once each has been told, ReadyForQuery (its answer holds an
    /// error the Sync's commit met, if any).
    pub async fn next_in_pipeline(&mut self) -> Result<Pipelined, PgConnError> {
        let Some(&(index, parse_sent)) = self.pipe.get(self.told) else {
            self.pipe.clear();
            if !self.pipe_failed {
                self.read_answer().await?;
                return Ok(Pipelined::Ended);
            }
            // The failed statement's error is kept while the server finishes, so
            // that a FATAL's close is counted by its SQLSTATE, as outside a
            // pipeline; it was told already.
            self.read_until(false).await?;
            self.answer.reset();
            return Ok(Pipelined::Ended);
        };
        self.told += 1;
        if self.pipe_failed {
            return Ok(Pipelined::Skipped);
        }
        self.answer.reset();
        if self.read_until(true).await? == b'Z' {
            // ReadyForQuery while statements were still owed: not this protocol.
            return Err(PgConnError::Protocol(ProtocolError::Unexpected(b'Z')));
        }
        if parse_sent {
            self.note_parsed(index);
        }
        self.pipe_failed = self.answer.sqlstate.is_some();
        Ok(Pipelined::Answered)
    }

    /// `ROLLBACK`, when a failed statement left a transaction block open.
    pub async fn rollback(&mut self) -> Result<&Answer, PgConnError> {
        frontend::statement(
            QueryMode::Simple,
            "ROLLBACK",
            &[],
            None,
            false,
            &mut self.wbuf,
        )
        .map_err(PgConnError::Encode)?;
        self.flush().await?;
        self.read_answer().await?;
        Ok(&self.answer)
    }

    /// A write failed because the server closed the connection: what it said
    /// first, if it said anything (the FATAL it sent while the client was idle is
    /// still in the socket's queue), else the write's own error.
    async fn said_before_closing(&mut self, e: PgConnError) -> PgConnError {
        let closed = matches!(&e, PgConnError::Io(io)
            if matches!(io.kind(), io::ErrorKind::BrokenPipe | io::ErrorKind::ConnectionReset));
        if !closed {
            return e;
        }
        match self.read_answer().await {
            Err(fatal @ PgConnError::Fatal { .. }) => fatal,
            _ => e,
        }
    }

    async fn read_answer(&mut self) -> Result<(), PgConnError> {
        self.answer.reset();
        self.read_until(false).await.map(drop)
    }

    /// Folds messages into the answer up to ReadyForQuery, or with `statement` up
    /// to the end of one statement's execution (CommandComplete, an empty query's
    /// answer or an ErrorResponse) too: the tag it stopped at.
    async fn read_until(&mut self, statement: bool) -> Result<u8, PgConnError> {
        loop {
            let (tag, start, end) = match self.message().await {
                Ok(m) => m,
                // An ErrorResponse, then the close: the server's last word.
                Err(PgConnError::Reset | PgConnError::Io(_)) if self.answer.sqlstate.is_some() => {
                    return Err(PgConnError::Fatal {
                        sqlstate: self.answer.sqlstate.unwrap_or_default(),
                        message: std::mem::take(&mut self.answer.message),
                    });
                }
                Err(e) => return Err(e),
            };
            match self
                .answer
                .feed(tag, &self.rbuf[start..end])
                .map_err(PgConnError::Protocol)?
            {
                Step::More if statement && matches!(tag, b'C' | b'I' | b'E') => return Ok(tag),
                Step::More => {}
                Step::Ready(status) => {
                    self.status = status;
                    return Ok(b'Z');
                }
                Step::CopyIn => return Err(PgConnError::Protocol(ProtocolError::Unexpected(tag))),
            }
        }
    }

    /// Terminate, then the connection closes (dropped): the server ends the
    /// session without logging a lost client. Best effort, never waited on long.
    pub async fn terminate(mut self) {
        frontend::terminate(&mut self.wbuf);
        let _ = self.flush().await;
        let _ = self.wire.shutdown().await;
    }

    /// The last statement's answer.
    pub fn answer(&self) -> &Answer {
        &self.answer
    }
}

/// sslmode as libpq reads it (see `http::pg`): SSLRequest unless `disable`; TLS on
/// `S`; on `N` only `prefer` goes on in the clear.
async fn negotiate_tls(mut tcp: TcpStream, url: &PgUrl) -> Result<Box<dyn Wire>, PgConnError> {
    if url.sslmode == SslMode::Disable {
        return Ok(Box::new(tcp));
    }
    let mut req = BytesMut::new();
    frontend::ssl_request(&mut req);
    tcp.write_all(&req).await.map_err(PgConnError::Io)?;
    let answer = tcp.read_u8().await.map_err(|_| PgConnError::Reset)?;
    match (answer, url.sslmode) {
        (b'N', SslMode::Prefer) => Ok(Box::new(tcp)),
        (b'N', _) => Err(PgConnError::Tls(
            "the server does not offer TLS, and sslmode asks for it".into(),
        )),
        (b'S', mode) => {
            let cacert = url.sslrootcert.as_deref().map(std::path::Path::new);
            let connector = super::tls_connector(mode != SslMode::VerifyFull, cacert)
                .map_err(|e| PgConnError::Tls(e.replace("--cacert", "sslrootcert")))?;
            let mut config = (**connector.config()).clone();
            config.alpn_protocols.clear();
            let name = rustls::pki_types::ServerName::try_from(url.host.clone())
                .map_err(|e| PgConnError::Tls(format!("server name {}: {e}", url.host)))?;
            let tls = tokio_rustls::TlsConnector::from(Arc::new(config))
                .connect(name, tcp)
                .await
                .map_err(|e| PgConnError::Tls(e.to_string()))?;
            Ok(Box::new(tls))
        }
        _ => Err(PgConnError::Protocol(ProtocolError::Unexpected(answer))),
    }
}
