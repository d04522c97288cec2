//! A small blocking PostgreSQL client for setup and probes, not for load: connect
//! (sslmode, the login's authentication), `simple_query` with every row as text,
//! `copy_in` (COPY FROM STDIN fed in chunks, as `pgbench -i` loads its tables). Every
//! read and write has a deadline, so a silent server is an error, never a hang. The
//! protocol itself is `sql::pg`'s; this file only moves its bytes.

use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::sync::Arc;
use std::time::Duration;

use bytes::BytesMut;

use crate::sql::pg::auth::{Login, LoginStep};
use crate::sql::pg::backend::{next_message, Answer, Step};
use crate::sql::pg::frontend;
use crate::sql::pg::url::{PgUrl, SslMode};

/// A failed call: the server's SQLSTATE when it answered with an error, and what
/// happened (the target's host:port/db named, never its password).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PgError {
    pub sqlstate: Option<String>,
    pub message: String,
}

impl std::fmt::Display for PgError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.sqlstate {
            Some(s) => write!(f, "{} (SQLSTATE {s})", self.message),
            None => f.write_str(&self.message),
        }
    }
}

fn io_error(what: &str, e: impl std::fmt::Display) -> PgError {
    PgError {
        sqlstate: None,
        message: format!("{what}: {e}"),
    }
}

/// Rows of a query's answer, every value as text (`None` is NULL).
pub type Rows = Vec<Vec<Option<String>>>;

trait Wire: Read + Write + Send {}
impl<T: Read + Write + Send> Wire for T {}

/// One blocking connection, logged in and idle between calls.
pub struct PgAdmin {
    wire: Box<dyn Wire>,
    rbuf: Vec<u8>,
    wbuf: BytesMut,
    answer: Answer,
    /// `host:port/db`, for messages.
    name: String,
}

impl PgAdmin {
    /// Connects to `url` and logs in with `password` (the URL's, or one given apart
    /// from it); `timeout` bounds the connect and every later read and write.
    pub fn connect(
        url: &PgUrl,
        password: Option<&str>,
        timeout: Duration,
    ) -> Result<PgAdmin, PgError> {
        let name = format!("{}:{}/{}", url.host, url.port, url.database);
        let tcp =
            tcp(url, timeout).map_err(|e| io_error(&format!("cannot connect to {name}"), e))?;
        let wire = negotiate_tls(tcp, url).map_err(|e| PgError {
            sqlstate: None,
            message: format!("{name}: {e}"),
        })?;
        let mut conn = PgAdmin {
            wire,
            rbuf: Vec::with_capacity(8192),
            wbuf: BytesMut::new(),
            answer: Answer::default(),
            name,
        };
        conn.login(url, password.or(url.password.as_deref()))?;
        Ok(conn)
    }

    fn login(&mut self, url: &PgUrl, password: Option<&str>) -> Result<(), PgError> {
        frontend::startup(&url.user, &url.database, &mut self.wbuf).map_err(|e| self.error(e))?;
        let mut login = Login::new(&url.user, password.map(str::as_bytes));
        loop {
            self.flush()?;
            let (tag, used) = self.read_message()?;
            let step = login.feed(tag, &self.rbuf[5..used], &mut self.wbuf);
            self.rbuf.drain(..used);
            match step.map_err(|e| self.error(e))? {
                LoginStep::Ready => return Ok(()),
                LoginStep::More => {}
            }
        }
    }

    fn error(&self, e: impl std::fmt::Display) -> PgError {
        io_error(&self.name, e)
    }

    fn flush(&mut self) -> Result<(), PgError> {
        if !self.wbuf.is_empty() {
            let r = self
                .wire
                .write_all(&self.wbuf)
                .and_then(|_| self.wire.flush());
            self.wbuf.clear();
            r.map_err(|e| self.error(e))?;
        }
        Ok(())
    }

    /// Reads until one whole message is at the front of `rbuf`: its tag and length.
    fn read_message(&mut self) -> Result<(u8, usize), PgError> {
        loop {
            match next_message(&self.rbuf).map_err(|e| self.error(e))? {
                Some((tag, _, used)) => return Ok((tag, used)),
                None => {
                    let mut chunk = [0u8; 8192];
                    let n = self.wire.read(&mut chunk).map_err(|e| self.error(e))?;
                    if n == 0 {
                        return Err(self.error("the server closed the connection"));
                    }
                    self.rbuf.extend_from_slice(&chunk[..n]);
                }
            }
        }
    }

    /// Reads a statement's answer to ReadyForQuery, every row kept as text; on
    /// CopyInResponse, returns early with `true` (the caller sends the data).
    fn read_answer(&mut self, rows: &mut Rows) -> Result<bool, PgError> {
        self.answer.reset();
        loop {
            let (tag, used) = self.read_message()?;
            if tag == b'D' {
                rows.push(
                    data_row(&self.rbuf[5..used])
                        .ok_or_else(|| self.error("a malformed DataRow"))?,
                );
            }
            let step = self.answer.feed(tag, &self.rbuf[5..used]);
            self.rbuf.drain(..used);
            match step.map_err(|e| self.error(e))? {
                Step::More => {}
                Step::CopyIn => return Ok(true),
                Step::Ready(_) => return self.failed().map(|_| false),
            }
        }
    }

    fn failed(&self) -> Result<(), PgError> {
        match self.answer.sqlstate {
            Some(s) => Err(PgError {
                sqlstate: Some(String::from_utf8_lossy(&s).into_owned()),
                message: format!("{}: {}", self.name, self.answer.message),
            }),
            None => Ok(()),
        }
    }

    /// Runs `sql` (one or several statements, simple protocol) and returns the rows
    /// of its answer as text. The first error fails the call (the server has rolled
    /// back what the text began).
    pub fn simple_query(&mut self, sql: &str) -> Result<Rows, PgError> {
        frontend::statement(
            frontend::QueryMode::Simple,
            sql,
            &[],
            None,
            false,
            &mut self.wbuf,
        )
        .map_err(|e| self.error(e))?;
        self.flush()?;
        let mut rows = Rows::new();
        if self.read_answer(&mut rows)? {
            // A COPY FROM STDIN through simple_query: refuse it and finish the exchange.
            postgres_protocol::message::frontend::copy_fail("use copy_in", &mut self.wbuf).ok();
            self.flush()?;
            self.read_answer(&mut rows)?;
            return Err(self.error("COPY FROM STDIN needs copy_in"));
        }
        Ok(rows)
    }

    /// Runs `sql` (a `COPY … FROM STDIN`) and sends `chunks` as its data; returns
    /// the rows copied as the server counts them.
    pub fn copy_in<I, C>(&mut self, sql: &str, chunks: I) -> Result<u64, PgError>
    where
        I: IntoIterator<Item = C>,
        C: AsRef<[u8]>,
    {
        frontend::statement(
            frontend::QueryMode::Simple,
            sql,
            &[],
            None,
            false,
            &mut self.wbuf,
        )
        .map_err(|e| self.error(e))?;
        self.flush()?;
        let mut rows = Rows::new();
        if !self.read_answer(&mut rows)? {
            return Err(self.error(format!("{sql:?} did not start a COPY FROM STDIN")));
        }
        for chunk in chunks {
            frontend::copy_data(chunk.as_ref(), &mut self.wbuf).map_err(|e| self.error(e))?;
            if self.wbuf.len() >= 64 * 1024 {
                self.flush()?;
            }
        }
        // No Sync: COPY began in a simple Query, whose ReadyForQuery follows CopyDone
        // (a Sync would add a second one). After an error mid-COPY the server drops
        // the rest of the data and still answers with one ReadyForQuery.
        frontend::copy_done(&mut self.wbuf);
        self.flush()?;
        // CommandComplete "COPY n", then ReadyForQuery; the count is in the tag.
        self.answer.reset();
        let mut copied = 0;
        loop {
            let (tag, used) = self.read_message()?;
            if tag == b'C' {
                let text = String::from_utf8_lossy(&self.rbuf[5..used - 1]).into_owned();
                copied = text
                    .rsplit(' ')
                    .next()
                    .and_then(|n| n.parse().ok())
                    .unwrap_or(0);
            }
            let step = self.answer.feed(tag, &self.rbuf[5..used]);
            self.rbuf.drain(..used);
            if let Step::Ready(_) = step.map_err(|e| self.error(e))? {
                self.failed()?;
                return Ok(copied);
            }
        }
    }
}

impl Drop for PgAdmin {
    fn drop(&mut self) {
        frontend::terminate(&mut self.wbuf);
        let _ = self.flush();
    }
}

/// A DataRow's values as text.
fn data_row(body: &[u8]) -> Option<Vec<Option<String>>> {
    let n = u16::from_be_bytes(body.get(..2)?.try_into().ok()?);
    let mut at = 2;
    let mut out = Vec::with_capacity(n as usize);
    for _ in 0..n {
        let len = i32::from_be_bytes(body.get(at..at + 4)?.try_into().ok()?);
        at += 4;
        if len < 0 {
            out.push(None);
            continue;
        }
        let v = body.get(at..at + len as usize)?;
        out.push(Some(String::from_utf8_lossy(v).into_owned()));
        at += len as usize;
    }
    Some(out)
}

fn tcp(url: &PgUrl, timeout: Duration) -> std::io::Result<TcpStream> {
    let mut last = None;
    for addr in (url.host.as_str(), url.port).to_socket_addrs()? {
        match TcpStream::connect_timeout(&addr, timeout) {
            Ok(s) => {
                s.set_read_timeout(Some(timeout))?;
                s.set_write_timeout(Some(timeout))?;
                s.set_nodelay(true)?;
                return Ok(s);
            }
            Err(e) => last = Some(e),
        }
    }
    Err(last.unwrap_or_else(|| std::io::Error::other("no address for the host")))
}

/// sslmode: `disable` sends nothing; the others send SSLRequest first, and on the
/// server's `S` go on in TLS (certificate checked only for `verify-full`); on `N`,
/// `prefer` goes on in the clear and `require`/`verify-full` refuse.
fn negotiate_tls(mut tcp: TcpStream, url: &PgUrl) -> Result<Box<dyn Wire>, String> {
    if url.sslmode == SslMode::Disable {
        return Ok(Box::new(tcp));
    }
    let mut req = BytesMut::new();
    frontend::ssl_request(&mut req);
    tcp.write_all(&req).map_err(|e| e.to_string())?;
    let mut answer = [0u8; 1];
    tcp.read_exact(&mut answer)
        .map_err(|e| format!("SSLRequest: {e}"))?;
    match (answer[0], url.sslmode) {
        (b'N', SslMode::Prefer) => Ok(Box::new(tcp)),
        (b'N', _) => Err("the server does not offer TLS, and sslmode asks for it".into()),
        (b'S', mode) => {
            let cacert = url.sslrootcert.as_deref().map(std::path::Path::new);
            let connector = super::tls_connector(mode != SslMode::VerifyFull, cacert)
                .map_err(|e| e.replace("--cacert", "sslrootcert"))?;
            let mut config = (**connector.config()).clone();
            config.alpn_protocols.clear();
            let name = rustls::pki_types::ServerName::try_from(url.host.clone())
                .map_err(|e| format!("TLS server name {}: {e}", url.host))?;
            let conn =
                rustls::ClientConnection::new(Arc::new(config), name).map_err(|e| e.to_string())?;
            let mut tls = rustls::StreamOwned::new(conn, tcp);
            // Handshake now, so a certificate refused is named as such, not as a
            // failed write of the startup message.
            while tls.conn.is_handshaking() {
                tls.conn
                    .complete_io(&mut tls.sock)
                    .map_err(|e| format!("TLS handshake: {e}"))?;
            }
            Ok(Box::new(tls))
        }
        (other, _) => Err(format!(
            "SSLRequest answered {other:#04x}, not S or N: not PostgreSQL"
        )),
    }
}
