//! memcached's text protocol: replies framed and classified ([`Framer`]).
//!
//! A reply is one line (`STORED`, `NOT_FOUND`, a number…), or a retrieval's
//! `VALUE key flags bytes [cas]` blocks, each followed by its data and CRLF, ended by
//! `END` (`stats` answers `STAT` lines ended by `END` the same way). The framer needs
//! no knowledge of the command: the first line says which shape follows. Data is read
//! past, not kept.
//!
//! Classification: `ERROR` is `reply_err`, `CLIENT_ERROR …` `reply_client_error`,
//! `SERVER_ERROR out of memory…` `reply_oom`, any other `SERVER_ERROR …`
//! `reply_server_error`; `END` with no `VALUE` before it, `NOT_FOUND` and
//! `NOT_STORED` are misses; `EXISTS` (a `cas` whose item changed since its `gets`)
//! is [`Reply::Exists`], counted apart from both; `MN` (the no-op sent in place of a
//! `cas` with no token, see [`Tokens`]) is [`Reply::NoToken`]; the rest — values,
//! `STORED`, `DELETED`, `TOUCHED`, `OK`, numbers, `VERSION` — are values.
//!
//! CAS uniques: a framer made [`Framer::with_tokens`] notes the `cas` field of every
//! `VALUE key flags bytes cas` line it reads into a [`Tokens`] table the run shares,
//! and the commands file's `cas` lines take their token from it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use super::{integer, line, ErrorText, Got, Reply, Step, MAX_LINE, MAX_VALUE};
use crate::stats::ErrorKind;

/// The CAS uniques `gets` replies brought, by key, shared by a run's connections
/// (a reply read on one connection, a `cas` written by any client). A token is
/// taken, not read: used once, since a `cas` that stores changes the item's unique
/// and its old token could only answer `EXISTS` for a change the run made itself.
///
/// Only a key a `gets` of this run asked for keeps a token, and at most
/// [`Tokens::MAX_KEYS`] of them: a server's `VALUE` lines for keys nobody asked
/// for are not kept (20 random keys a reply grew hakaru to 1.3 GB).
#[derive(Default)]
pub struct Tokens(Mutex<HashMap<Box<[u8]>, Option<u64>>>);

impl Tokens {
    /// The most keys awaiting or holding a token.
    pub const MAX_KEYS: usize = 1 << 20;

    /// A `gets` is about to ask for `key`: its reply's unique may be kept.
    pub fn ask(&self, key: &[u8]) {
        let mut map = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if map.len() < Self::MAX_KEYS && !map.contains_key(key) {
            map.insert(key.into(), None);
        }
    }

    /// A `gets` reply said `key`'s unique is `token`: the newest replaces any older,
    /// for a key asked for.
    pub fn note(&self, key: &[u8], token: u64) {
        let mut map = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(t) = map.get_mut(key) {
            *t = Some(token);
        }
    }

    /// The last token seen for `key`, removed (`None` when no reply has brought one
    /// since the last `cas` of it).
    pub fn take(&self, key: &[u8]) -> Option<u64> {
        let mut map = self.0.lock().unwrap_or_else(|e| e.into_inner());
        map.remove(key).flatten()
    }

    /// How many keys await or hold a token.
    pub fn len(&self) -> usize {
        self.0.lock().map(|m| m.len()).unwrap_or(0)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// One table is equal only to itself: a target's protocol compares by identity.
impl PartialEq for Tokens {
    fn eq(&self, other: &Tokens) -> bool {
        std::ptr::eq(self, other)
    }
}

impl std::fmt::Debug for Tokens {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Tokens {{ {} keys }}", self.len())
    }
}

/// Reads one reply; made fresh (or [`Framer::reset`]) for each.
#[derive(Debug, Clone, Default)]
pub struct Framer {
    /// Inside a `VALUE`/`STAT` list: only more of it or `END` may follow.
    listing: bool,
    /// A `VALUE` came (a hit).
    valued: bool,
    /// A skipped value's CRLF comes next.
    crlf_next: bool,
    /// Where the `cas` fields of `VALUE` lines go, when the run sends `cas`.
    tokens: Option<Arc<Tokens>>,
    /// The last reply's type: what the command is judged by.
    got: Got,
}

impl Framer {
    pub fn new() -> Framer {
        Framer::default()
    }

    /// A framer that notes each `VALUE` line's CAS unique into `tokens`.
    pub fn with_tokens(tokens: Arc<Tokens>) -> Framer {
        Framer {
            tokens: Some(tokens),
            ..Framer::default()
        }
    }

    pub fn reset(&mut self) {
        *self = Framer {
            tokens: self.tokens.take(),
            ..Framer::default()
        };
    }

    /// The last reply's type, once it is done.
    pub fn got(&self) -> Got {
        self.got
    }

    /// Take what `buf` holds of the reply (see [`Step`]).
    pub fn step(&mut self, buf: &[u8]) -> Step {
        let mut used = 0;
        loop {
            let rest = &buf[used..];
            if self.crlf_next {
                if rest.len() < 2 {
                    return Step::More { used };
                }
                if &rest[..2] != b"\r\n" {
                    return Step::Invalid("a memcached value not followed by CRLF");
                }
                used += 2;
                self.crlf_next = false;
                continue;
            }
            let Some((text, len)) = line(rest) else {
                if rest.len() > MAX_LINE {
                    return Step::Invalid("a memcached reply line longer than 16 KiB");
                }
                return Step::More { used };
            };
            used += len;
            if let Some(header) = text.strip_prefix(b"VALUE ") {
                let Some(ValueHeader { key, len: n, token }) = value_header(header) else {
                    return Step::Invalid("a memcached VALUE line without a valid length");
                };
                // Only a run that sends `cas` reads the unique: others pay nothing.
                if let Some(tokens) = &self.tokens {
                    if let Some(token) = token.and_then(unsigned) {
                        tokens.note(key, token);
                    }
                }
                self.listing = true;
                self.valued = true;
                self.crlf_next = true;
                let here = (buf.len() - used) as u64;
                if here >= n + 2 {
                    used += n as usize;
                    continue;
                }
                return Step::Skip { used, skip: n };
            }
            if text.starts_with(b"STAT ") {
                self.listing = true;
                self.valued = true;
                continue;
            }
            if text == b"END" {
                let (reply, got) = if self.valued {
                    (Reply::Value, Got::Values)
                } else {
                    (Reply::Miss, Got::End)
                };
                self.got = got;
                return Step::Done { used, reply };
            }
            if self.listing {
                return Step::Invalid("a memcached list not ended by END");
            }
            return match classify(text) {
                Some((reply, got)) => {
                    self.got = got;
                    Step::Done { used, reply }
                }
                None => Step::Invalid("not a memcached reply"),
            };
        }
    }
}

/// `key flags bytes [cas]`: the key, the value's length and the CAS unique's text
/// (`None` when absent; one [`unsigned`] cannot read is a token never sent).
fn value_header(header: &[u8]) -> Option<ValueHeader<'_>> {
    let mut words = header.split(|b| *b == b' ');
    let (key, _flags, bytes) = (words.next()?, words.next()?, words.next()?);
    let n = integer(bytes)?;
    let token = words.next();
    (0..=MAX_VALUE as i64).contains(&n).then_some(ValueHeader {
        key,
        len: n as u64,
        token,
    })
}

/// What a `VALUE` line says.
struct ValueHeader<'a> {
    key: &'a [u8],
    len: u64,
    token: Option<&'a [u8]>,
}

/// A CAS unique: memcached's is a 64-bit unsigned number, up to 20 digits.
fn unsigned(text: &[u8]) -> Option<u64> {
    if text.is_empty() || text.len() > 20 || !text.iter().all(u8::is_ascii_digit) {
        return None;
    }
    text.iter().try_fold(0u64, |v, d| {
        v.checked_mul(10)?.checked_add(u64::from(d - b'0'))
    })
}

/// A one-line reply.
fn classify(text: &[u8]) -> Option<(Reply, Got)> {
    let refused = |kind, rest: &[u8]| {
        Some((
            Reply::Refused(kind, Box::new(ErrorText::new(rest))),
            Got::Unknown,
        ))
    };
    match text {
        b"STORED" => Some((Reply::Value, Got::Stored)),
        b"DELETED" => Some((Reply::Value, Got::Deleted)),
        b"TOUCHED" => Some((Reply::Value, Got::Touched)),
        b"OK" => Some((Reply::Value, Got::McOk)),
        b"NOT_FOUND" => Some((Reply::Miss, Got::NotFound)),
        b"NOT_STORED" => Some((Reply::Miss, Got::NotStored)),
        b"EXISTS" => Some((Reply::Exists, Got::Exists)),
        b"MN" => Some((Reply::NoToken, Got::Mn)),
        b"ERROR" => refused(ErrorKind::ReplyErr, text),
        _ if text.starts_with(b"CLIENT_ERROR") => refused(ErrorKind::ReplyClientError, text),
        _ if text.starts_with(b"SERVER_ERROR") => {
            let oom = text.windows(13).any(|w| w == b"out of memory");
            let kind = if oom {
                ErrorKind::ReplyOom
            } else {
                ErrorKind::ReplyServerError
            };
            refused(kind, text)
        }
        _ if text.starts_with(b"VERSION ") => Some((Reply::Value, Got::Version)),
        // incr/decr: the new value, unsigned.
        _ if !text.is_empty() && text.len() <= 20 && text.iter().all(u8::is_ascii_digit) => {
            Some((Reply::Value, Got::Number))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(bytes: &[u8], chunk: usize) -> Result<(Reply, usize), &'static str> {
        let mut f = Framer::new();
        let (mut pos, mut have) = (0usize, chunk.min(bytes.len()));
        loop {
            match f.step(&bytes[pos..have]) {
                Step::More { used } => {
                    pos += used;
                    if have == bytes.len() {
                        return Err("incomplete");
                    }
                    have = (have + chunk).min(bytes.len());
                }
                Step::Skip { used, skip } => {
                    pos += used + skip as usize;
                    if pos > bytes.len() {
                        return Err("incomplete");
                    }
                    have = have.max(pos);
                }
                Step::Done { used, reply } => return Ok((reply, pos + used)),
                Step::Invalid(why) => return Err(why),
            }
        }
    }

    #[test]
    fn replies_are_classified_whatever_the_chunking() {
        let cases: [(&[u8], Reply); 10] = [
            (b"STORED\r\n", Reply::Value),
            (b"NOT_STORED\r\n", Reply::Miss),
            (b"END\r\n", Reply::Miss),
            (b"VALUE k:1 0 5\r\nhello\r\nEND\r\n", Reply::Value),
            (
                b"VALUE k:1 0 5 77\r\nhe\r\no\r\nVALUE k:2 0 0\r\n\r\nEND\r\n",
                Reply::Value,
            ),
            (b"DELETED\r\n", Reply::Value),
            (b"NOT_FOUND\r\n", Reply::Miss),
            (b"12\r\n", Reply::Value),
            (b"STAT pid 1\r\nSTAT cmd_get 0\r\nEND\r\n", Reply::Value),
            (b"VERSION 1.6.18\r\n", Reply::Value),
        ];
        for (bytes, want) in cases {
            for chunk in [1, 2, 5, 1000] {
                assert_eq!(
                    frame(bytes, chunk),
                    Ok((want.clone(), bytes.len())),
                    "{bytes:?} by {chunk}"
                );
            }
        }
    }

    #[test]
    fn error_replies_are_refused_by_kind() {
        for (bytes, kind) in [
            (&b"ERROR\r\n"[..], ErrorKind::ReplyErr),
            (
                b"CLIENT_ERROR bad data chunk\r\n",
                ErrorKind::ReplyClientError,
            ),
            (
                b"SERVER_ERROR out of memory storing object\r\n",
                ErrorKind::ReplyOom,
            ),
            (
                b"SERVER_ERROR object too large for cache\r\n",
                ErrorKind::ReplyServerError,
            ),
        ] {
            match frame(bytes, 4) {
                Ok((Reply::Refused(k, _), n)) => assert_eq!((k, n), (kind, bytes.len())),
                other => panic!("{bytes:?}: {other:?}"),
            }
        }
    }

    #[test]
    fn garbage_is_invalid_not_a_reply() {
        for bytes in [
            &b"+OK\r\n"[..],
            b"HTTP/1.1 200 OK\r\n",
            b"VALUE k 0 x\r\n",
            b"VALUE k 0 1\r\nab\r\nEND\r\n",
            b"VALUE k 0 1\r\na\r\nSTORED\r\n",
            b"\r\n",
        ] {
            assert!(frame(bytes, 1000).is_err(), "{bytes:?}");
        }
    }

    #[test]
    fn cas_replies_and_tokens() {
        // EXISTS and MN each their own kind, apart from a miss.
        assert_eq!(frame(b"EXISTS\r\n", 3), Ok((Reply::Exists, 8)));
        assert_eq!(frame(b"MN\r\n", 1), Ok((Reply::NoToken, 4)));
        let tokens = Arc::new(Tokens::default());
        let bytes = b"VALUE k:1 0 2 18446744073709551615\r\nab\r\nVALUE k:2 0 1 7\r\nc\r\nVALUE k:3 0 1\r\nd\r\nEND\r\n";
        for chunk in [1, 7, 1000] {
            for k in [&b"k:1"[..], b"k:2", b"k:3"] {
                tokens.ask(k);
            }
            let mut f = Framer::with_tokens(tokens.clone());
            let (mut pos, mut have) = (0, chunk.min(bytes.len()));
            loop {
                match f.step(&bytes[pos..have]) {
                    Step::More { used } => {
                        pos += used;
                        have = (have + chunk).min(bytes.len());
                    }
                    Step::Skip { used, skip } => {
                        pos += used + skip as usize;
                        have = have.max(pos);
                    }
                    Step::Done { reply, .. } => {
                        assert_eq!(reply, Reply::Value);
                        break;
                    }
                    Step::Invalid(why) => panic!("{why}"),
                }
            }
            // A reset keeps the table: the next reply's tokens go there too.
            f.reset();
            assert!(f.tokens.is_some());
            assert_eq!(tokens.take(b"k:1"), Some(u64::MAX), "by {chunk}");
            assert_eq!(tokens.take(b"k:2"), Some(7));
            // Taken: used once. A VALUE line without a unique brings none.
            assert_eq!((tokens.take(b"k:1"), tokens.take(b"k:3")), (None, None));
        }
        assert_eq!(unsigned(b"18446744073709551616"), None);
    }

    /// Issue 36 item 9: a server sending 20 `VALUE <random key>` lines a `gets`
    /// grew hakaru's token table to 1.3 GB. Only keys asked for keep a token.
    #[test]
    fn tokens_are_kept_only_for_keys_asked_for() {
        let tokens = Tokens::default();
        tokens.ask(b"k:1");
        for i in 0..10_000u64 {
            tokens.note(format!("random:{i}").as_bytes(), i);
        }
        tokens.note(b"k:1", 5);
        assert_eq!(tokens.len(), 1);
        assert_eq!(tokens.take(b"random:3"), None);
        assert_eq!(tokens.take(b"k:1"), Some(5));
        assert!(tokens.is_empty());
    }
}
