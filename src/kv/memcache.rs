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
//! `reply_server_error`; `END` with no `VALUE` before it, `NOT_FOUND`, `NOT_STORED`
//! and `EXISTS` (a conditional write that did not happen) are misses; the rest —
//! values, `STORED`, `DELETED`, `TOUCHED`, `OK`, numbers, `VERSION` — are values.

use super::{integer, line, ErrorText, Reply, Step, MAX_LINE, MAX_VALUE};
use crate::stats::ErrorKind;

/// Reads one reply; made fresh (or [`Framer::reset`]) for each.
#[derive(Debug, Clone, Default)]
pub struct Framer {
    /// Inside a `VALUE`/`STAT` list: only more of it or `END` may follow.
    listing: bool,
    /// A `VALUE` came (a hit).
    valued: bool,
    /// A skipped value's CRLF comes next.
    crlf_next: bool,
}

impl Framer {
    pub fn new() -> Framer {
        Framer::default()
    }

    pub fn reset(&mut self) {
        *self = Framer::default();
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
                let Some(n) = value_length(header) else {
                    return Step::Invalid("a memcached VALUE line without a valid length");
                };
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
                let reply = if self.valued {
                    Reply::Value
                } else {
                    Reply::Miss
                };
                return Step::Done { used, reply };
            }
            if self.listing {
                return Step::Invalid("a memcached list not ended by END");
            }
            return match classify(text) {
                Some(reply) => Step::Done { used, reply },
                None => Step::Invalid("not a memcached reply"),
            };
        }
    }
}

/// The bytes of `key flags bytes [cas]`.
fn value_length(header: &[u8]) -> Option<u64> {
    let mut words = header.split(|b| *b == b' ');
    let (_key, _flags, bytes) = (words.next()?, words.next()?, words.next()?);
    let n = integer(bytes)?;
    (0..=MAX_VALUE as i64).contains(&n).then_some(n as u64)
}

/// A one-line reply.
fn classify(text: &[u8]) -> Option<Reply> {
    let refused = |kind, rest: &[u8]| Some(Reply::Refused(kind, Box::new(ErrorText::new(rest))));
    match text {
        b"STORED" | b"DELETED" | b"TOUCHED" | b"OK" => Some(Reply::Value),
        b"NOT_FOUND" | b"NOT_STORED" | b"EXISTS" => Some(Reply::Miss),
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
        _ if text.starts_with(b"VERSION ") => Some(Reply::Value),
        // incr/decr: the new value, unsigned.
        _ if !text.is_empty() && text.len() <= 20 && text.iter().all(u8::is_ascii_digit) => {
            Some(Reply::Value)
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
}
