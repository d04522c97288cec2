//! Key-value stores on the engine's connections: one command written, one reply read
//! to its end by a framer of [`crate::kv`] (RESP for Redis, the text protocol for
//! memcached), with the same buffer, byte meter, timeouts and reconnects as HTTP.
//! Which framer reads a target's replies is the target's [`Proto`].
//!
//! A Redis target with a password or a database sends `AUTH` and `SELECT` first on
//! every new connection (written before the command, their replies read before its
//! own); a refused login is the command's error.

use std::sync::Arc;

use super::{Conn, Meter, Reader, WireError};
use crate::kv::{memcache, resp, Expect, Got, Reply, Step};
use crate::stats::ErrorKind;
use crate::stats::{Outcome, Recorder};

/// The protocol a target speaks.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum Proto {
    #[default]
    Http,
    /// Redis (RESP 2), with what each new connection sends first.
    Redis(Option<Arc<Login>>),
    Memcached,
    /// memcached for a commands file with `cas`: every reply's CAS uniques are noted
    /// into the run's table, where its `cas` lines take their tokens.
    MemcachedCas(Arc<memcache::Tokens>),
    /// PostgreSQL: the URL, the password and `-M`'s mode (a transaction is one
    /// request, driven statement by statement by the engine's `pg` arm).
    Postgres(Arc<super::pg_conn::PgTarget>),
    /// MySQL/MariaDB: likewise, driven by the engine's same `sql` arm.
    Mysql(Arc<super::mysql_conn::MysqlTarget>),
}

impl Proto {
    /// Whether a request is a SQL transaction, driven by the engine's `sql` arm.
    pub fn is_sql(&self) -> bool {
        matches!(self, Proto::Postgres(_) | Proto::Mysql(_))
    }

    /// The URL scheme that names it.
    pub fn scheme(&self) -> &'static str {
        match self {
            Proto::Http => "http",
            Proto::Redis(_) => "redis",
            Proto::Memcached | Proto::MemcachedCas(_) => "memcached",
            Proto::Postgres(_) => "postgres",
            Proto::Mysql(_) => "mysql",
        }
    }
}

/// `redis://user:password@host:port/db`'s login and database, as the commands each
/// new connection sends first. Its `Debug` never shows the password.
#[derive(Clone, PartialEq)]
pub struct Login {
    /// `AUTH` (and `SELECT`) as RESP.
    hello: Vec<u8>,
    /// Replies `hello` asks for.
    replies: usize,
    pub db: u32,
}

impl Login {
    /// `None` when nothing needs sending (no password, database 0).
    pub fn new(user: Option<&str>, password: Option<&str>, db: u32) -> Option<Login> {
        let mut hello = Vec::new();
        let mut replies = 0;
        if let Some(pw) = password {
            let mut args: Vec<&[u8]> = vec![b"AUTH"];
            if let Some(u) = user.filter(|u| !u.is_empty()) {
                args.push(u.as_bytes());
            }
            args.push(pw.as_bytes());
            resp::encode(&mut hello, args.into_iter());
            replies += 1;
        }
        if db != 0 {
            let db = db.to_string();
            resp::encode(&mut hello, [&b"SELECT"[..], db.as_bytes()].into_iter());
            replies += 1;
        }
        (replies > 0).then_some(Login { hello, replies, db })
    }
}

impl Login {
    /// The bytes a new connection sends first, and how many replies they ask for:
    /// the pipelined connection writes them ahead of its first command.
    pub(crate) fn hello(&self) -> (&[u8], usize) {
        (&self.hello, self.replies)
    }
}

impl std::fmt::Debug for Login {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Login {{ db: {}, hello: <redacted> }}", self.db)
    }
}

/// One reply read: what it said, its type and its bytes.
#[derive(Debug, Clone)]
pub struct Framed {
    pub reply: Reply,
    pub got: Got,
    pub bytes: u64,
}

impl Framed {
    /// The request's outcome; an error reply's text is noted as its kind's sample.
    /// A reply of a type `expect` does not hold is `reply_unexpected`, its sample
    /// naming the command (`command`, called only when a sample is taken) and what came.
    pub fn recorded(
        self,
        rec: &mut Recorder,
        expect: Expect,
        command: impl FnOnce() -> String,
    ) -> (Outcome, u64) {
        match self.reply {
            Reply::Refused(kind, text) => {
                rec.note_error(kind, || text.to_string());
                (Outcome::Error(kind), self.bytes)
            }
            _ if !expect.allows(self.got) => {
                let kind = ErrorKind::ReplyUnexpected;
                rec.note_error(kind, || {
                    format!("{} answered {}", command(), self.got.describe())
                });
                (Outcome::Error(kind), self.bytes)
            }
            reply => (
                Outcome::Status(reply.status().expect("not refused")),
                self.bytes,
            ),
        }
    }
}

/// A framer of either protocol: the one-reply exchange here and the pipelined
/// connection (`engine::shared::pipeline`) both frame replies with it.
pub(crate) enum Framer {
    Resp(resp::Framer),
    Memcache(memcache::Framer),
}

impl Framer {
    /// A framer for `proto`'s replies (RESP for Redis, the text protocol for memcached).
    pub(crate) fn for_proto(proto: &Proto) -> Framer {
        match proto {
            Proto::Memcached => Framer::Memcache(memcache::Framer::new()),
            Proto::MemcachedCas(tokens) => {
                Framer::Memcache(memcache::Framer::with_tokens(tokens.clone()))
            }
            _ => Framer::Resp(resp::Framer::new()),
        }
    }

    pub(crate) fn step(&mut self, buf: &[u8]) -> Step {
        match self {
            Framer::Resp(f) => f.step(buf),
            Framer::Memcache(f) => f.step(buf),
        }
    }

    pub(crate) fn reset(&mut self) {
        match self {
            Framer::Resp(f) => f.reset(),
            Framer::Memcache(f) => f.reset(),
        }
    }

    /// The last reply's type.
    pub(crate) fn got(&self) -> Got {
        match self {
            Framer::Resp(f) => f.got(),
            Framer::Memcache(f) => f.got(),
        }
    }
}

impl Conn {
    /// Write one key-value command and read its reply to the end (after the login's
    /// replies on a new Redis connection). Bytes are counted into `meter` as they move.
    pub async fn exchange_framed(
        &mut self,
        request: &[u8],
        proto: &Proto,
        meter: &Meter,
    ) -> Result<Framed, WireError> {
        self.check_idle(meter)?;
        let mut framer = Framer::for_proto(proto);
        let login = match proto {
            Proto::Redis(Some(login)) if self.served == 0 => Some(login),
            _ => None,
        };
        if let Some(l) = login {
            self.stream.write_all(&l.hello, meter).await?;
        }
        self.stream.write_all(request, meter).await?;
        let mut r = Reader {
            bytes: 0,
            meter,
            sink: None,
        };
        let mut refused = None;
        for _ in 0..login.map_or(0, |l| l.replies) {
            let reply = self.read_reply(&mut framer, &mut r).await?;
            if refused.is_none() && matches!(reply, Reply::Refused(..)) {
                refused = Some(reply);
            }
            framer.reset();
        }
        let reply = self.read_reply(&mut framer, &mut r).await?;
        if refused.is_none() {
            self.served += 1;
        }
        // A refused login is judged by its own kind, never by the command's types.
        let got = if refused.is_some() {
            Got::Unknown
        } else {
            framer.got()
        };
        Ok(Framed {
            reply: refused.unwrap_or(reply),
            got,
            bytes: r.bytes,
        })
    }

    /// One whole reply, as `framer` frames it.
    async fn read_reply(
        &mut self,
        framer: &mut Framer,
        r: &mut Reader<'_, '_>,
    ) -> Result<Reply, WireError> {
        loop {
            match framer.step(&self.buf[self.start..self.end]) {
                Step::Done { used, reply } => {
                    self.start += used;
                    return Ok(reply);
                }
                Step::More { used } => {
                    self.start += used;
                    let started = r.bytes > 0 || self.end > self.start;
                    if self.fill(r).await? == 0 {
                        return Err(WireError::Eof { started });
                    }
                }
                Step::Skip { used, skip } => {
                    self.start += used;
                    self.skip(skip, r).await?;
                }
                Step::Invalid(why) => return Err(WireError::Malformed(why)),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reply_kind(reply: Reply) -> Option<ErrorKind> {
        match reply {
            Reply::Refused(kind, _) => Some(kind),
            _ => None,
        }
    }

    fn exchange(proto: &Proto, data: &[u8], step: usize) -> Result<Framed, String> {
        let mut conn = Conn::from_bytes(data.to_vec(), step);
        let meter = Meter::default();
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        rt.block_on(conn.exchange_framed(b"GET k\r\n", proto, &meter))
            .map_err(|e| e.to_string())
    }

    #[test]
    fn a_reply_larger_than_the_buffer_is_read_through() {
        let mut data = b"$100000\r\n".to_vec();
        data.extend(std::iter::repeat_n(b'x', 100_000));
        data.extend_from_slice(b"\r\n");
        let got = exchange(&Proto::Redis(None), &data, 4096).unwrap();
        assert_eq!((got.reply, got.bytes), (Reply::Value, data.len() as u64));
    }

    #[test]
    fn a_cut_reply_is_an_error_not_a_value() {
        let e = exchange(&Proto::Memcached, b"VALUE k 0 10\r\nabc", 3).unwrap_err();
        assert!(e.contains("promised"), "{e}");
        let e = exchange(&Proto::Redis(None), b"+OK", 1).unwrap_err();
        assert!(e.contains("closed"), "{e}");
        let e = exchange(&Proto::Redis(None), b"HTTP/1.1 200 OK\r\n\r\n", 100).unwrap_err();
        assert_eq!(e, "not a RESP reply");
    }

    #[test]
    fn a_refused_login_is_the_command_s_error() {
        let login = Login::new(None, Some("pw"), 0).map(Arc::new);
        let data = b"-WRONGPASS invalid username-password pair\r\n$-1\r\n";
        let got = exchange(&Proto::Redis(login.clone()), data, 7).unwrap();
        assert_eq!(reply_kind(got.reply), Some(ErrorKind::ReplyNoauth));
        assert!(!format!("{:?}", login.unwrap()).contains("pw"));
    }
}

#[cfg(test)]
mod judged {
    use super::*;
    use crate::kv::Expect;
    use crate::stats::ErrorKind;

    fn read(proto: &Proto, data: &[u8]) -> Framed {
        let mut conn = Conn::from_bytes(data.to_vec(), 3);
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        rt.block_on(conn.exchange_framed(b"x", proto, &Meter::default()))
            .unwrap()
    }

    /// Issue 32: a `GET` answered `+OK` counted "hits: 9382 (a value read)".
    #[test]
    fn a_get_answered_ok_is_reply_unexpected_not_a_hit() {
        let mut rec = Recorder::new(1, 0, 0);
        let get = Expect::redis(b"GET", 2);
        let got = read(&Proto::Redis(None), b"+OK\r\n");
        let (outcome, _) = got.recorded(&mut rec, get, || "GET".into());
        assert_eq!(outcome, Outcome::Error(ErrorKind::ReplyUnexpected));
        assert_eq!(
            rec.error_sample_map()[&ErrorKind::ReplyUnexpected],
            "GET answered +OK (a status reply)"
        );
        let hit = read(&Proto::Redis(None), b"$1\r\nv\r\n");
        assert_eq!(
            hit.recorded(&mut rec, get, String::new).0,
            Outcome::Status(250)
        );
        let set = Expect::memcached(b"set");
        let end = read(&Proto::Memcached, b"END\r\n");
        assert_eq!(
            end.recorded(&mut rec, set, String::new).0,
            Outcome::Error(ErrorKind::ReplyUnexpected)
        );
        let any = read(&Proto::Memcached, b"END\r\n");
        assert_eq!(
            any.recorded(&mut rec, Expect::ANY, String::new).0,
            Outcome::Status(254)
        );
    }
}
