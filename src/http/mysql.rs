//! A small blocking MySQL/MariaDB client for setup and probes, not for load: connect
//! (ssl-mode over rustls, the login's plugins), `simple_query` with every row of every
//! result set as text (`SHOW GLOBAL STATUS`, sysbench's `prepare`, YCSB's table).
//! Every read and write has a deadline, so a silent server is an error, never a
//! hang. The protocol itself is `sql::mysql`'s; this file only moves its bytes (and
//! holds the TLS setup the engine's `mysql_conn` shares).

use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::sync::Arc;
use std::time::Duration;

use crate::sql::mysql::answer::{text_row, Answer, Mode, Step};
use crate::sql::mysql::auth::{Login, LoginError, LoginStep};
use crate::sql::mysql::command;
use crate::sql::mysql::packet::next_packet;
use crate::sql::mysql::url::{MyUrl, SslMode};

/// A failed call: the server's error code and SQLSTATE when it answered with an
/// error, and what happened (the target's host:port/db named, never its password).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MysqlError {
    pub code: Option<u16>,
    pub sqlstate: Option<String>,
    pub message: String,
}

impl std::fmt::Display for MysqlError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.code, &self.sqlstate) {
            (Some(c), Some(s)) => write!(f, "{} (error {c}, SQLSTATE {s})", self.message),
            _ => f.write_str(&self.message),
        }
    }
}

/// Rows of a query's answer, every value as text (`None` is NULL).
pub type Rows = Vec<Vec<Option<String>>>;

trait Wire: Read + Write + Send {}
impl<T: Read + Write + Send> Wire for T {}

/// One blocking connection, logged in and idle between calls.
pub struct MysqlAdmin {
    wire: Box<dyn Wire>,
    rbuf: Vec<u8>,
    joined: Vec<u8>,
    out: Vec<u8>,
    answer: Answer,
    /// `host:port/db`, for messages.
    name: String,
}

/// The rustls configuration and server name of `url`'s TLS (ssl-mode `REQUIRED`
/// and `PREFERRED` take any certificate, as the `mysql` client does; only
/// `VERIFY_IDENTITY` checks it, against `ssl-ca` or the web's roots).
pub(crate) fn tls_setup(
    url: &MyUrl,
) -> Result<
    (
        Arc<rustls::ClientConfig>,
        rustls::pki_types::ServerName<'static>,
    ),
    String,
> {
    let ca = url.ssl_ca.as_deref().map(std::path::Path::new);
    let connector = super::tls_connector(url.ssl_mode != SslMode::VerifyIdentity, ca)
        .map_err(|e| e.replace("--cacert", "ssl-ca"))?;
    let mut config = (**connector.config()).clone();
    config.alpn_protocols.clear();
    let name = rustls::pki_types::ServerName::try_from(url.host.clone())
        .map_err(|e| format!("TLS server name {}: {e}", url.host))?;
    Ok((Arc::new(config), name))
}

impl MysqlAdmin {
    /// Connects to `url` and logs in with `password` (the URL's, or one given apart
    /// from it, `MYSQL_PWD`'s); `timeout` bounds the connect and every later read
    /// and write.
    pub fn connect(
        url: &MyUrl,
        password: Option<&str>,
        timeout: Duration,
    ) -> Result<MysqlAdmin, MysqlError> {
        let name = format!("{}:{}/{}", url.host, url.port, url.database);
        let tcp = tcp(url, timeout).map_err(|e| plain(format!("cannot connect to {name}: {e}")))?;
        let mut conn = MysqlAdmin {
            wire: Box::new(tcp.try_clone().map_err(|e| plain(e.to_string()))?),
            rbuf: Vec::with_capacity(8192),
            joined: Vec::new(),
            out: Vec::new(),
            answer: Answer::default(),
            name,
        };
        let mut login = Login::for_url(url, password);
        let (seq, used) = conn.read_packet()?;
        let tls = login.greeting(seq, &conn.rbuf[4..used], url.ssl_mode, &mut conn.out);
        conn.rbuf.drain(..used);
        if conn.login_failed(tls)? {
            conn.flush()?;
            conn.wire = Box::new(tls_stream(tcp, url).map_err(|e| conn.error(e))?);
            login.respond(&mut conn.out);
        }
        loop {
            conn.flush()?;
            let (seq, used) = conn.read_packet()?;
            let step = login.feed(seq, &conn.rbuf[4..used], &mut conn.out);
            conn.rbuf.drain(..used);
            if conn.login_failed(step)? == LoginStep::Done {
                return Ok(conn);
            }
        }
    }

    fn login_failed<T>(&self, r: Result<T, LoginError>) -> Result<T, MysqlError> {
        r.map_err(|e| match e {
            LoginError::Server(s) => MysqlError {
                code: Some(s.code),
                sqlstate: Some(String::from_utf8_lossy(&s.sqlstate).into_owned()),
                message: format!("{}: login refused: {}", self.name, s.message),
            },
            other => self.error(format!("login: {other}")),
        })
    }

    fn error(&self, e: impl std::fmt::Display) -> MysqlError {
        plain(format!("{}: {e}", self.name))
    }

    fn flush(&mut self) -> Result<(), MysqlError> {
        if !self.out.is_empty() {
            let r = self
                .wire
                .write_all(&self.out)
                .and_then(|_| self.wire.flush());
            self.out.clear();
            r.map_err(|e| self.error(e))?;
        }
        Ok(())
    }

    /// Reads until one whole packet is at the front of `rbuf`: its sequence id and
    /// length with its header. A chained packet is refused (no admin answer needs one).
    fn read_packet(&mut self) -> Result<(u8, usize), MysqlError> {
        loop {
            let cut = match next_packet(&self.rbuf, &mut self.joined) {
                Ok(c) => c.map(|(seq, p, used)| (seq, p.len() + 4 == used, used)),
                Err(e) => return Err(self.error(e)),
            };
            match cut {
                Some((seq, true, used)) => return Ok((seq, used)),
                Some(_) => return Err(self.error("an answer of over 16 MiB in one packet")),
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

    /// Runs `sql` (one or several statements separated by `;`, COM_QUERY) and
    /// returns the rows of all its result sets as text. The first error fails the
    /// call (the statements after it did not run).
    pub fn simple_query(&mut self, sql: &str) -> Result<Rows, MysqlError> {
        command::query(&mut self.out, sql);
        self.flush()?;
        self.answer.reset(Mode::Text);
        let mut rows = Rows::new();
        loop {
            let (seq, used) = self.read_packet()?;
            let p = &self.rbuf[4..used];
            if self.answer.in_rows() {
                if let Some(row) = text_row(p).map_err(|e| self.error(e))? {
                    rows.push(row);
                }
            }
            let step = self.answer.feed(seq, p);
            self.rbuf.drain(..used);
            if step.map_err(|e| self.error(e))? == Step::Done {
                break;
            }
        }
        if self.answer.code != 0 {
            return Err(MysqlError {
                code: Some(self.answer.code),
                sqlstate: Some(String::from_utf8_lossy(&self.answer.sqlstate).into_owned()),
                message: format!("{}: {}", self.name, self.answer.message),
            });
        }
        Ok(rows)
    }

    /// Rows affected by the last `simple_query` (summed over its statements).
    pub fn affected(&self) -> u64 {
        self.answer.affected
    }
}

impl Drop for MysqlAdmin {
    fn drop(&mut self) {
        command::quit(&mut self.out);
        let _ = self.flush();
    }
}

fn plain(message: String) -> MysqlError {
    MysqlError {
        code: None,
        sqlstate: None,
        message,
    }
}

fn tcp(url: &MyUrl, timeout: Duration) -> std::io::Result<TcpStream> {
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

/// TLS over `tcp` after the SSLRequest went out, its handshake done now so that a
/// refused certificate is named as such.
fn tls_stream(
    tcp: TcpStream,
    url: &MyUrl,
) -> Result<rustls::StreamOwned<rustls::ClientConnection, TcpStream>, String> {
    let (config, name) = tls_setup(url)?;
    let conn = rustls::ClientConnection::new(config, name).map_err(|e| e.to_string())?;
    let mut tls = rustls::StreamOwned::new(conn, tcp);
    while tls.conn.is_handshaking() {
        tls.conn
            .complete_io(&mut tls.sock)
            .map_err(|e| format!("TLS handshake: {e}"))?;
    }
    Ok(tls)
}
