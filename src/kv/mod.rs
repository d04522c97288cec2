//! Key-value stores' wire formats as pure parsers: Redis's RESP and memcached's text
//! protocol framed reply by reply ([`resp`], [`memcache`]), each reply classified
//! into the result's vocabulary ([`Reply`]), and the commands file that says what
//! to send ([`commands`]). No I/O here: [`crate::http`]'s `Conn::exchange_framed`
//! feeds a framer the bytes it reads, and the fuzz targets feed it anything.
//!
//! How a reply maps onto the result (docs/guide/key-value.md says it to users):
//! a store's reply is not an HTTP status, but the result counts answers by a status
//! number, so a kv reply is counted under one of two numbers no HTTP server sends:
//! [`STATUS_REPLY`] (the command did its work: a value read, a write stored, a
//! count) and [`STATUS_MISS`] (nothing there: a nil, an empty multi-get, `END`
//! alone, `NOT_FOUND`, a conditional write whose condition failed). A memcached
//! `cas` adds two of its own: [`STATUS_EXISTS`] (`EXISTS`: the item changed since
//! the `gets` that brought its token) and [`STATUS_NO_TOKEN`] (no token was known for
//! the key, so no `cas` went: a no-op took its place). All four are successes. An error reply is never a success: it is counted under its own
//! error kind ([`crate::stats::ErrorKind::ReplyErr`] and its siblings), and bytes
//! that are no reply of the protocol are `malformed`. A well-formed reply of a type
//! its command cannot get (a `GET` answered `+OK`) is `reply_unexpected` ([`expect`]).

pub mod commands;
pub mod expect;
pub mod memcache;
pub mod resp;

pub use expect::{Expect, Got};

use crate::stats::ErrorKind;

/// The status number of a reply that did the command's work (a read's hit).
pub const STATUS_REPLY: u16 = 250;
/// The status number of a reply that found nothing (a read's miss).
pub const STATUS_MISS: u16 = 254;
/// The status number of a memcached `cas` answered `EXISTS` (changed since its `gets`).
pub const STATUS_EXISTS: u16 = 252;
/// The status number of a `cas` not sent: no `gets` reply had brought its key's token.
pub const STATUS_NO_TOKEN: u16 = 253;

/// What one whole reply said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reply {
    /// A value, an acknowledgement, a number: the command did its work.
    Value,
    /// Nothing there, or a condition that did not hold.
    Miss,
    /// A memcached `cas` refused: the item changed since its token was read.
    Exists,
    /// The no-op sent in place of a `cas` with no token (`mn`'s `MN`).
    NoToken,
    /// An error reply: its kind and its first line, for the error sample.
    /// Boxed: replies move through the pipelined connection's queue by value, and
    /// the line inline made every reply 100 bytes to copy (errors are the rare case).
    Refused(ErrorKind, Box<ErrorText>),
}

impl Reply {
    /// The status number a non-error reply is counted under.
    pub fn status(self) -> Option<u16> {
        match self {
            Reply::Value => Some(STATUS_REPLY),
            Reply::Miss => Some(STATUS_MISS),
            Reply::Exists => Some(STATUS_EXISTS),
            Reply::NoToken => Some(STATUS_NO_TOKEN),
            Reply::Refused(..) => None,
        }
    }
}

/// An error reply's first line, cut to a fixed size: kept without allocating, made
/// into text only when the error sample is taken.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct ErrorText {
    bytes: [u8; 96],
    len: u8,
}

impl ErrorText {
    pub fn new(line: &[u8]) -> ErrorText {
        let mut bytes = [0; 96];
        let len = line.len().min(bytes.len());
        bytes[..len].copy_from_slice(&line[..len]);
        ErrorText {
            bytes,
            len: len as u8,
        }
    }

    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..usize::from(self.len)]
    }
}

impl std::fmt::Display for ErrorText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&String::from_utf8_lossy(self.as_bytes()))
    }
}

impl std::fmt::Debug for ErrorText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", self.to_string())
    }
}

/// What a framer makes of the bytes buffered so far.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// `used` bytes were taken; more must arrive before the reply ends.
    More { used: usize },
    /// `used` bytes were taken; the next `skip` bytes (a value's payload, buffered or
    /// not) are to be read past unseen; then call again.
    Skip { used: usize, skip: u64 },
    /// The reply ended after `used` bytes.
    Done { used: usize, reply: Reply },
    /// Not a reply of the protocol.
    Invalid(&'static str),
}

/// A word of a command longer than this is said by its length in [`readable`]: a
/// value, a script, not something a person reads in a list of slow requests.
const READABLE_WORD: usize = 40;

/// A command's bytes as a person reads them: a RESP array's words joined by spaces,
/// or a memcached command's first line (a storage command's value follows it
/// unseen); a word longer than [`READABLE_WORD`] bytes is `<N bytes>`. `GET
/// key:4711`, `set key:12 0 0 32`. For the slowest and fastest lists only: it
/// allocates.
pub fn readable(bytes: &[u8]) -> String {
    let mut words: Vec<String> = Vec::new();
    let mut say = |w: &[u8]| {
        words.push(if w.len() > READABLE_WORD {
            format!("<{} bytes>", w.len())
        } else {
            String::from_utf8_lossy(w).into_owned()
        })
    };
    match bytes.strip_prefix(b"*") {
        Some(rest) => {
            let Some((n, mut at)) = line(rest).and_then(|(l, used)| Some((integer(l)?, used)))
            else {
                return String::from_utf8_lossy(bytes).into_owned();
            };
            for _ in 0..n.max(0) {
                let Some((len, used)) = rest[at..]
                    .strip_prefix(b"$")
                    .and_then(line)
                    .and_then(|(l, used)| Some((usize::try_from(integer(l)?).ok()?, used)))
                else {
                    break;
                };
                let from = at + 1 + used;
                let Some(word) = rest.get(from..from + len) else {
                    break;
                };
                say(word);
                at = from + len + 2;
            }
        }
        None => {
            let first = line(bytes).map_or(bytes, |(l, _)| l);
            for w in first.split(|b| *b == b' ').filter(|w| !w.is_empty()) {
                say(w);
            }
        }
    }
    words.join(" ")
}

/// A line longer than this is no reply of either protocol (a status line, an
/// error, a value's header): refused before it fills the connection's buffer.
pub const MAX_LINE: usize = 16 * 1024;

/// A value longer than this (Redis's own `proto-max-bulk-len`, memcached's item
/// limit is lower) is a broken length, not a value.
pub const MAX_VALUE: u64 = 512 * 1024 * 1024;

/// The first line of `buf`, without its CRLF, and the length with it.
fn line(buf: &[u8]) -> Option<(&[u8], usize)> {
    let i = buf.windows(2).position(|w| w == b"\r\n")?;
    Some((&buf[..i], i + 2))
}

/// A decimal integer as RESP and memcached write it (an optional `-` for RESP).
fn integer(text: &[u8]) -> Option<i64> {
    let (neg, digits) = match text.strip_prefix(b"-") {
        Some(d) => (true, d),
        None => (false, text),
    };
    if digits.is_empty() || digits.len() > 18 || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let v = digits
        .iter()
        .fold(0i64, |v, d| v * 10 + i64::from(d - b'0'));
    Some(if neg { -v } else { v })
}

/// Append `n` in decimal, without allocating. Two digits a step, and pushed byte by
/// byte: a command's key, its word's length and the array's header are each a few
/// digits, and a `memcpy` call for each was most of this function's cost (callgrind,
/// docs/performance.md's pipeline-16 sections).
pub fn push_decimal(out: &mut Vec<u8>, n: u64) {
    if n < 10 {
        out.push(b'0' + n as u8);
        return;
    }
    let (digits, from) = decimal(n);
    out.reserve(digits.len() - from);
    for &d in &digits[from..] {
        out.push(d);
    }
}

/// `n` in decimal: its digits are `digits[from..]`.
pub fn decimal(mut n: u64) -> ([u8; 20], usize) {
    const PAIRS: &[u8; 200] = b"0001020304050607080910111213141516171819\
        2021222324252627282930313233343536373839\
        4041424344454647484950515253545556575859\
        6061626364656667686970717273747576777879\
        8081828384858687888990919293949596979899";
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    while n >= 100 {
        let r = (n % 100) as usize * 2;
        n /= 100;
        i -= 2;
        digits[i] = PAIRS[r];
        digits[i + 1] = PAIRS[r + 1];
    }
    if n >= 10 {
        let r = n as usize * 2;
        i -= 2;
        digits[i] = PAIRS[r];
        digits[i + 1] = PAIRS[r + 1];
    } else {
        i -= 1;
        digits[i] = b'0' + n as u8;
    }
    (digits, i)
}

#[cfg(test)]
mod tests {
    use super::{push_decimal, readable};

    #[test]
    fn commands_read_as_typed_with_values_by_length() {
        let value = "v".repeat(64);
        let resp = format!("*3\r\n$3\r\nSET\r\n$8\r\nkey:4711\r\n$64\r\n{value}\r\n");
        assert_eq!(readable(resp.as_bytes()), "SET key:4711 <64 bytes>");
        assert_eq!(readable(b"*2\r\n$3\r\nGET\r\n$5\r\nkey:7\r\n"), "GET key:7");
        let mc = format!("set key:12 0 0 64\r\n{value}\r\n");
        assert_eq!(readable(mc.as_bytes()), "set key:12 0 0 64");
        assert_eq!(readable(b"get a b\r\n"), "get a b");
        // Cut short or broken: what there is, never a panic.
        assert_eq!(readable(b"*2\r\n$3\r\nGET\r\n$9\r\nkey"), "GET");
        assert_eq!(readable(b"*x\r\n"), "*x\r\n");
    }

    #[test]
    fn decimals_match_the_standard_formatting() {
        let mut cases: Vec<u64> = (0..1200).collect();
        cases.extend([9_999, 10_000, 99_999, 123_456_789, u64::MAX - 1, u64::MAX]);
        cases.extend((1..20).map(|e| 10u64.pow(e)));
        cases.extend((1..20).map(|e| 10u64.pow(e) - 1));
        let mut out = b"x".to_vec();
        for n in cases {
            out.truncate(1);
            push_decimal(&mut out, n);
            assert_eq!(&out[1..], n.to_string().as_bytes(), "{n}");
        }
    }
}
