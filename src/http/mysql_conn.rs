//! A MySQL/MariaDB connection for the engine's clients, `pg_conn`'s twin: connected
//! and logged in once (ssl-mode over rustls, `sql::mysql::auth`'s plugins, the RSA key
//! parameters of the URL), then one
//! statement at a time written from a reused buffer and its answer folded packet by
//! packet from a read buffer consumed by a cursor (compacted only when a packet would
//! not fit). Rows are counted and only the first row is kept (for `\gset`).
//!
//! `-M simple` sends COM_QUERY with the values in the text. `-M prepared` sends
//! COM_STMT_PREPARE once per connection and statement, then COM_STMT_EXECUTE.
//! `-M extended` prepares, executes and closes the statement every time: the work
//! PostgreSQL's extended protocol does with its unnamed statement (parsed for each
//! execution, its parameters bound apart from the text), so `-M extended` compares
//! like with like on both wires; MySQL cannot name the statement before the server
//! numbers it, so it costs one round trip more than on PostgreSQL.

use std::io;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::sql::mysql::answer::{Answer, Mode, Step};
use crate::sql::mysql::auth::{Login, LoginError, LoginStep};
use crate::sql::mysql::command;
use crate::sql::mysql::errcode::MyErrorKind;
use crate::sql::mysql::packet::{next_packet_within, ProtocolError};
use crate::sql::mysql::url::MyUrl;
use crate::stats::ErrorKind;

/// The largest packet chain a benchmark's answer may hold: far above any row a
/// benchmark reads, and what a hostile server's endless 2^24-1 chain is cut at
/// (the protocol's own 1 GiB would be a gigabyte buffered per client first).
pub const MAX_ANSWER: usize = 64 << 20;

/// SERVER_STATUS_IN_TRANS in an OK's or EOF's status flags.
const IN_TRANS: u16 = 1;

/// How statements go out (`-M`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MyMode {
    Simple,
    Extended,
    Prepared,
}

/// The error kind results count a server error under, named as PostgreSQL's are
/// where they mean the same.
pub fn mysql_error_kind(kind: MyErrorKind) -> ErrorKind {
    match kind {
        MyErrorKind::Deadlock => ErrorKind::SqlDeadlock,
        MyErrorKind::LockWaitTimeout => ErrorKind::SqlLockWaitTimeout,
        MyErrorKind::DuplicateKey => ErrorKind::SqlUniqueViolation,
        MyErrorKind::TooManyConnections => ErrorKind::SqlTooManyConnections,
        MyErrorKind::Shutdown => ErrorKind::SqlAdminShutdown,
        // The server dropped the connection (KILL, idle timeout): a connection's end.
        MyErrorKind::ServerGone => ErrorKind::Reset,
        MyErrorKind::Other(_) => ErrorKind::SqlError,
    }
}

/// Why a connection or a statement failed on the wire (a statement the server
/// refused is not this: its answer carries the error code).
#[derive(Debug)]
pub enum MysqlConnError {
    Connect(io::Error),
    Tls(String),
    Login(LoginError),
    /// The server closed the connection before the answer was whole.
    Reset,
    Io(io::Error),
    Protocol(ProtocolError),
}

impl MysqlConnError {
    /// The error kind results count it under.
    pub fn kind(&self) -> ErrorKind {
        match self {
            MysqlConnError::Connect(_) => ErrorKind::Connect,
            MysqlConnError::Tls(_) => ErrorKind::Tls,
            MysqlConnError::Login(LoginError::Protocol(_)) | MysqlConnError::Protocol(_) => {
                ErrorKind::Malformed
            }
            MysqlConnError::Login(LoginError::Server(e)) => match e.kind() {
                k @ (MyErrorKind::TooManyConnections
                | MyErrorKind::Shutdown
                | MyErrorKind::ServerGone) => mysql_error_kind(k),
                _ => ErrorKind::ReplyNoauth,
            },
            // Something the server asked that hakaru does not speak (a protocol
            // before 4.1, a plugin, TLS it does not offer).
            MysqlConnError::Login(LoginError::Unsupported(_)) => ErrorKind::Protocol,
            MysqlConnError::Reset => ErrorKind::Reset,
            MysqlConnError::Io(e) if e.kind() == io::ErrorKind::ConnectionReset => ErrorKind::Reset,
            MysqlConnError::Io(_) => ErrorKind::Io,
        }
    }
}

impl std::fmt::Display for MysqlConnError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MysqlConnError::Connect(e) => write!(f, "connect: {e}"),
            MysqlConnError::Tls(e) => write!(f, "TLS: {e}"),
            MysqlConnError::Login(LoginError::Server(e)) => write!(f, "login refused: {e}"),
            MysqlConnError::Login(LoginError::Protocol(e)) => write!(f, "login: {e}"),
            MysqlConnError::Login(LoginError::Unsupported(e)) => write!(f, "login: {e}"),
            MysqlConnError::Reset => f.write_str("the server closed the connection mid-answer"),
            MysqlConnError::Io(e) => write!(f, "{e}"),
            MysqlConnError::Protocol(e) => write!(f, "{e}"),
        }
    }
}

/// A `mysql://` target as the engine connects to it. Its `Debug` never shows
/// the password.
#[derive(Clone, PartialEq)]
pub struct MysqlTarget {
    pub url: MyUrl,
    /// From `MYSQL_PWD`; else the URL's.
    pub password: Option<String>,
    pub mode: MyMode,
}

impl std::fmt::Debug for MysqlTarget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MysqlTarget")
            .field("url", &self.url)
            .field("mode", &self.mode)
            .finish_non_exhaustive()
    }
}

trait Wire: AsyncRead + AsyncWrite + Unpin + Send {}
impl<T: AsyncRead + AsyncWrite + Unpin + Send> Wire for T {}

/// One logged-in connection.
pub struct MysqlConn {
    wire: Box<dyn Wire>,
    rbuf: Vec<u8>,
    /// The unread bytes are `rbuf[at..]`.
    at: usize,
    /// A chained packet's payload, gathered (rare).
    joined: Vec<u8>,
    out: Vec<u8>,
    answer: Answer,
    /// Statements (by index) this connection has prepared: their server ids.
    prepared: Vec<Option<u32>>,
    /// Whether the last OK or EOF said a transaction is open.
    pub in_transaction: bool,
    /// Bytes written and read, for the results' byte counts.
    pub bytes_out: u64,
    pub bytes_in: u64,
}

impl MysqlConn {
    /// Connects to `url` and logs in as its user with `password` (else the URL's).
    pub async fn connect(url: &MyUrl, password: Option<&str>) -> Result<MysqlConn, MysqlConnError> {
        let tcp = TcpStream::connect((url.host.as_str(), url.port))
            .await
            .map_err(MysqlConnError::Connect)?;
        tcp.set_nodelay(true).map_err(MysqlConnError::Connect)?;
        let mut conn = MysqlConn {
            wire: Box::new(tcp),
            rbuf: Vec::with_capacity(16 * 1024),
            at: 0,
            joined: Vec::new(),
            out: Vec::with_capacity(1024),
            answer: Answer::default(),
            prepared: Vec::new(),
            in_transaction: false,
            bytes_out: 0,
            bytes_in: 0,
        };
        let mut login = Login::for_url(url, password);
        let (seq, p) = conn.login_packet().await?;
        let tls = login
            .greeting(seq, &p, url.ssl_mode, &mut conn.out)
            .map_err(MysqlConnError::Login)?;
        if tls {
            conn.flush().await?;
            conn.start_tls(url).await?;
            login.respond(&mut conn.out);
        }
        loop {
            conn.flush().await?;
            let (seq, p) = conn.login_packet().await?;
            match login
                .feed(seq, &p, &mut conn.out)
                .map_err(MysqlConnError::Login)?
            {
                LoginStep::Done => return Ok(conn),
                LoginStep::Sent | LoginStep::Wait => {}
            }
        }
    }

    /// TLS over the socket, after the SSLRequest went out (nothing is buffered:
    /// the server waits for the handshake).
    async fn start_tls(&mut self, url: &MyUrl) -> Result<(), MysqlConnError> {
        let (config, name) = super::mysql::tls_setup(url).map_err(MysqlConnError::Tls)?;
        let plain = std::mem::replace(&mut self.wire, Box::new(tokio::io::duplex(1).0));
        let tls = tokio_rustls::TlsConnector::from(config)
            .connect(name, plain)
            .await
            .map_err(|e| MysqlConnError::Tls(e.to_string()))?;
        self.wire = Box::new(tls);
        Ok(())
    }

    /// A login packet, copied (the login is not the hot path).
    async fn login_packet(&mut self) -> Result<(u8, Vec<u8>), MysqlConnError> {
        loop {
            match next_packet_within(&self.rbuf[self.at..], &mut self.joined, MAX_ANSWER) {
                Ok(Some((seq, p, used))) => {
                    let p = p.to_vec();
                    self.at += used;
                    return Ok((seq, p));
                }
                Ok(None) => self.fill().await?,
                Err(e) => return Err(MysqlConnError::Protocol(e)),
            }
        }
    }

    async fn flush(&mut self) -> Result<(), MysqlConnError> {
        if !self.out.is_empty() {
            self.bytes_out += self.out.len() as u64;
            let r = self.wire.write_all(&self.out).await;
            self.out.clear();
            r.map_err(MysqlConnError::Io)?;
            self.wire.flush().await.map_err(MysqlConnError::Io)?;
        }
        Ok(())
    }

    /// Reads more bytes: the partial packet moved to the front first, the buffer
    /// grown only for a packet larger than it.
    async fn fill(&mut self) -> Result<(), MysqlConnError> {
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
            .map_err(MysqlConnError::Io)?;
        if n == 0 {
            return Err(MysqlConnError::Reset);
        }
        self.bytes_in += n as u64;
        Ok(())
    }

    /// Folds packets into the answer (read as `mode`) until it is whole.
    async fn read_answer(&mut self, mode: Mode) -> Result<(), MysqlConnError> {
        self.answer.reset(mode);
        loop {
            match next_packet_within(&self.rbuf[self.at..], &mut self.joined, MAX_ANSWER) {
                Ok(Some((seq, p, used))) => {
                    let step = self.answer.feed(seq, p);
                    self.at += used;
                    if step.map_err(MysqlConnError::Protocol)? == Step::Done {
                        if self.answer.code == 0 {
                            self.in_transaction = self.answer.status & IN_TRANS != 0;
                        }
                        return Ok(());
                    }
                }
                Ok(None) => self.fill().await?,
                Err(e) => return Err(MysqlConnError::Protocol(e)),
            }
        }
    }

    /// Sends statement `index` as `mode` says — `sql` with its values in it (simple)
    /// or with `?` and `params` as strings (extended, prepared) — and reads its
    /// answer. A refused PREPARE is the statement's answer (its error code).
    pub async fn statement(
        &mut self,
        mode: MyMode,
        index: usize,
        sql: &str,
        params: &[Option<&[u8]>],
    ) -> Result<&Answer, MysqlConnError> {
        if mode == MyMode::Simple {
            command::query(&mut self.out, sql);
            self.flush().await?;
            self.read_answer(Mode::Text).await?;
            return Ok(&self.answer);
        }
        let id = match self.prepared.get(index).copied().flatten() {
            Some(id) => id,
            None => {
                command::prepare(&mut self.out, sql);
                self.flush().await?;
                self.read_answer(Mode::Prepare).await?;
                if self.answer.code != 0 {
                    return Ok(&self.answer);
                }
                let id = self.answer.stmt_id;
                if mode == MyMode::Prepared {
                    if self.prepared.len() <= index {
                        self.prepared.resize(index + 1, None);
                    }
                    self.prepared[index] = Some(id);
                }
                id
            }
        };
        command::execute(&mut self.out, id, params);
        if mode == MyMode::Extended {
            // No answer to a close: it goes with the execute, in one write.
            command::close(&mut self.out, id);
        }
        self.flush().await?;
        self.read_answer(Mode::Binary).await?;
        Ok(&self.answer)
    }

    /// `ROLLBACK`, when a failed statement left a transaction open.
    pub async fn rollback(&mut self) -> Result<&Answer, MysqlConnError> {
        command::query(&mut self.out, "ROLLBACK");
        self.flush().await?;
        self.read_answer(Mode::Text).await?;
        Ok(&self.answer)
    }

    /// The last statement's answer.
    pub fn answer(&self) -> &Answer {
        &self.answer
    }
}
