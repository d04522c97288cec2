//! Redis's RESP (version 2, what a connection speaks until it sends `HELLO 3`):
//! replies framed and classified ([`Framer`]), and commands encoded as arrays of
//! bulk strings ([`encode`]).
//!
//! A reply is one element: `+simple`, `-error`, `:integer`, `$len` bulk string
//! (`$-1` nil), `*count` array of elements (`*-1` nil). A bulk string's payload is
//! read past, not kept: the framer asks the connection to skip it, so a value larger
//! than the read buffer costs nothing but its bytes.
//!
//! Classification: an error reply is refused with its kind from its first word
//! (`WRONGTYPE`, `MOVED`/`ASK`, `OOM`, `NOAUTH`/`WRONGPASS`/`NOPERM`, anything else
//! `reply_err`); a nil, or an array whose every element is nil (`MGET` of absent
//! keys, an empty `LRANGE`), is a miss; anything else is a value.

use super::{integer, line, ErrorText, Got, Reply, Step, MAX_LINE, MAX_VALUE};
use crate::stats::ErrorKind;

/// Nesting deeper than this is no reply a benchmark asks for.
const MAX_DEPTH: usize = 16;

/// Reads one reply; made fresh (or [`Framer::reset`]) for each.
#[derive(Debug, Clone, Default)]
pub struct Framer {
    /// Elements still to come in each open array, outermost first.
    open: [u32; MAX_DEPTH],
    depth: usize,
    /// A skipped bulk payload's CRLF comes next.
    crlf_next: bool,
    /// The outermost element is an array: how many of its elements held something.
    held: u64,
    /// … and how many were nil.
    nil: u64,
    /// The outermost element was nil (or an empty array).
    empty: bool,
    /// The outermost element's type: what the command is judged by.
    got: Got,
}

impl Framer {
    pub fn new() -> Framer {
        Framer::default()
    }

    /// Ready for the next reply: `open` is read only below `depth`, so it is left
    /// as it is (writing the whole framer anew was a 100-byte store every reply).
    pub fn reset(&mut self) {
        self.depth = 0;
        self.crlf_next = false;
        self.held = 0;
        self.nil = 0;
        self.empty = false;
        self.got = Got::Unknown;
    }

    /// The last reply's type (its outermost element's), once it is done.
    pub fn got(&self) -> Got {
        self.got
    }

    /// Take what `buf` holds of the reply (see [`Step`]).
    pub fn step(&mut self, buf: &[u8]) -> Step {
        if self.depth == 0 && !self.crlf_next {
            if let Some(done) = whole_bulk(buf) {
                if let Step::Done { reply, .. } = &done {
                    self.got = if *reply == Reply::Miss {
                        Got::Nil
                    } else {
                        Got::Bulk
                    };
                }
                return done;
            }
        }
        let mut used = 0;
        loop {
            let rest = &buf[used..];
            if self.crlf_next {
                if rest.len() < 2 {
                    return Step::More { used };
                }
                if &rest[..2] != b"\r\n" {
                    return Step::Invalid("a RESP bulk string not followed by CRLF");
                }
                used += 2;
                self.crlf_next = false;
                if let Some(reply) = self.element_done(false) {
                    return Step::Done { used, reply };
                }
                continue;
            }
            let Some((text, len)) = line(rest) else {
                if rest.len() > MAX_LINE {
                    return Step::Invalid("a RESP line longer than 16 KiB");
                }
                return Step::More { used };
            };
            let Some((&kind, body)) = text.split_first() else {
                return Step::Invalid("an empty line where a RESP reply was expected");
            };
            used += len;
            if self.depth == 0 {
                self.got = match kind {
                    b'+' if body == b"OK" => Got::Ok,
                    b'+' => Got::Status,
                    b':' => Got::Integer,
                    b'$' if body == b"-1" => Got::Nil,
                    b'$' => Got::Bulk,
                    b'*' if body == b"-1" => Got::Nil,
                    b'*' => Got::Array,
                    _ => Got::Unknown,
                };
            }
            match kind {
                b'+' => {}
                b'-' => {
                    if self.depth == 0 {
                        return Step::Done {
                            used,
                            reply: Reply::Refused(error_kind(body), Box::new(ErrorText::new(body))),
                        };
                    }
                }
                b':' => {
                    if integer(body).is_none() {
                        return Step::Invalid("a RESP integer that is not a number");
                    }
                }
                b'$' => match integer(body) {
                    Some(-1) => {
                        if let Some(reply) = self.element_done(true) {
                            return Step::Done { used, reply };
                        }
                        continue;
                    }
                    Some(n) if (0..=MAX_VALUE as i64).contains(&n) => {
                        let n = n as u64;
                        let here = (buf.len() - used) as u64;
                        if here >= n + 2 {
                            // Whole in the buffer: no detour through the connection.
                            used += n as usize;
                            self.crlf_next = true;
                            continue;
                        }
                        self.crlf_next = true;
                        return Step::Skip { used, skip: n };
                    }
                    _ => return Step::Invalid("a RESP bulk string of impossible length"),
                },
                b'*' => match integer(body) {
                    Some(-1) | Some(0) => {
                        if let Some(reply) = self.element_done(true) {
                            return Step::Done { used, reply };
                        }
                        continue;
                    }
                    Some(n) if n > 0 && n <= i64::from(u32::MAX) => {
                        if self.depth == MAX_DEPTH {
                            return Step::Invalid("RESP arrays nested more than 16 deep");
                        }
                        self.open[self.depth] = n as u32;
                        self.depth += 1;
                        continue;
                    }
                    _ => return Step::Invalid("a RESP array of impossible length"),
                },
                _ => return Step::Invalid("not a RESP reply"),
            }
            if let Some(reply) = self.element_done(false) {
                return Step::Done { used, reply };
            }
        }
    }

    /// One element ended (`nil`: it held nothing); the reply, when that was the last.
    fn element_done(&mut self, nil: bool) -> Option<Reply> {
        if self.depth == 0 {
            self.empty = nil;
            return Some(self.classify());
        }
        if self.depth == 1 {
            if nil {
                self.nil += 1;
            } else {
                self.held += 1;
            }
        }
        loop {
            let top = &mut self.open[self.depth - 1];
            *top -= 1;
            if *top > 0 {
                return None;
            }
            self.depth -= 1;
            if self.depth == 0 {
                return Some(self.classify());
            }
            if self.depth == 1 {
                // A nested array counts as one element of the outer one, holding something.
                self.held += 1;
            }
        }
    }

    fn classify(&self) -> Reply {
        if self.empty || (self.held == 0 && self.nil > 0) {
            Reply::Miss
        } else {
            Reply::Value
        }
    }
}

/// The commonest reply, a bulk string (`GET`'s value) or nil whole in `buf`, framed
/// in one pass: `None` for anything else, which the general path frames (it gives
/// the same answer, in about twice the instructions a reply at `--pipeline 16`).
#[inline]
fn whole_bulk(buf: &[u8]) -> Option<Step> {
    let rest = buf.strip_prefix(b"$")?;
    if rest.starts_with(b"-1\r\n") {
        return Some(Step::Done {
            used: 5,
            reply: Reply::Miss,
        });
    }
    // At most 9 digits here (under MAX_VALUE's 10); longer lengths go the long way.
    let digits = rest
        .iter()
        .take(10)
        .take_while(|b| b.is_ascii_digit())
        .count();
    if digits == 0 || digits > 9 {
        return None;
    }
    let n = rest[..digits]
        .iter()
        .fold(0usize, |v, d| v * 10 + usize::from(d - b'0'));
    if n as u64 > MAX_VALUE {
        return None;
    }
    let payload = 1 + digits + 2;
    let end = payload + n;
    if buf.get(1 + digits..payload)? != b"\r\n" || buf.get(end..end + 2)? != b"\r\n" {
        return None;
    }
    Some(Step::Done {
        used: end + 2,
        reply: Reply::Value,
    })
}

/// An error reply's kind, from its first word.
pub fn error_kind(text: &[u8]) -> ErrorKind {
    let word = text.split(|b| *b == b' ').next().unwrap_or_default();
    match word {
        b"WRONGTYPE" => ErrorKind::ReplyWrongtype,
        b"MOVED" | b"ASK" => ErrorKind::ReplyMoved,
        b"OOM" => ErrorKind::ReplyOom,
        b"NOAUTH" | b"WRONGPASS" | b"NOPERM" => ErrorKind::ReplyNoauth,
        _ => ErrorKind::ReplyErr,
    }
}

/// Append a command of `args` to `out` as RESP's array of bulk strings.
pub fn encode<'a>(out: &mut Vec<u8>, args: impl ExactSizeIterator<Item = &'a [u8]>) {
    push_header(out, b'*', args.len());
    for a in args {
        push_bulk(out, a);
    }
}

/// `*N\r\n` or `$N\r\n`.
pub fn push_header(out: &mut Vec<u8>, kind: u8, n: usize) {
    out.push(kind);
    super::push_decimal(out, n as u64);
    out.extend_from_slice(b"\r\n");
}

/// One bulk string.
pub fn push_bulk(out: &mut Vec<u8>, arg: &[u8]) {
    push_header(out, b'$', arg.len());
    out.extend_from_slice(arg);
    out.extend_from_slice(b"\r\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The whole of `bytes`, fed `chunk` bytes at a time, skips honoured.
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
                    have = have.max(pos).min(bytes.len());
                    if pos > bytes.len() {
                        return Err("incomplete");
                    }
                }
                Step::Done { used, reply } => return Ok((reply, pos + used)),
                Step::Invalid(why) => return Err(why),
            }
        }
    }

    /// The one-pass bulk path takes only a whole, well-formed bulk or nil and stops
    /// at its end; anything else goes the general way, which refuses what is wrong.
    #[test]
    fn the_one_pass_bulk_path_frames_exactly_what_the_general_one_would() {
        let done = |used, reply| Some(Step::Done { used, reply });
        assert_eq!(whole_bulk(b"$3\r\nxxx\r\n+OK\r\n"), done(9, Reply::Value));
        assert_eq!(whole_bulk(b"$0\r\n\r\n"), done(6, Reply::Value));
        assert_eq!(whole_bulk(b"$-1\r\n$1\r\n"), done(5, Reply::Miss));
        for partial_or_other in [
            &b"$3\r\nxxx\r"[..],
            b"$3\r\nxx",
            b"$3",
            b"$3\rx",
            b"$3\r\nxxxx\r\n",
            b"$\r\n",
            b"$1234567890\r\n",
            b"$999999999\r\n",
            b"+OK\r\n",
        ] {
            assert_eq!(whole_bulk(partial_or_other), None, "{partial_or_other:?}");
        }
        assert_eq!(
            Framer::new().step(b"$3\r\nxxxx\r\n"),
            Step::Invalid("a RESP bulk string not followed by CRLF")
        );
    }

    #[test]
    fn replies_are_classified_whatever_the_chunking() {
        let cases: [(&[u8], Reply); 9] = [
            (b"+OK\r\n", Reply::Value),
            (b":42\r\n", Reply::Value),
            (b"$5\r\nhello\r\n", Reply::Value),
            (b"$-1\r\n", Reply::Miss),
            (b"*-1\r\n", Reply::Miss),
            (b"*0\r\n", Reply::Miss),
            (b"*2\r\n$-1\r\n$-1\r\n", Reply::Miss),
            (b"*2\r\n$-1\r\n$1\r\nx\r\n", Reply::Value),
            (
                b"*2\r\n$1\r\n0\r\n*2\r\n$1\r\na\r\n$1\r\nb\r\n",
                Reply::Value,
            ),
        ];
        for (bytes, want) in cases {
            for chunk in [1, 2, 3, 7, 1000] {
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
            (&b"-ERR unknown command 'FOO'\r\n"[..], ErrorKind::ReplyErr),
            (
                b"-WRONGTYPE Operation against a key holding the wrong kind of value\r\n",
                ErrorKind::ReplyWrongtype,
            ),
            (b"-MOVED 3999 127.0.0.1:6381\r\n", ErrorKind::ReplyMoved),
            (
                b"-OOM command not allowed when used memory > 'maxmemory'.\r\n",
                ErrorKind::ReplyOom,
            ),
            (
                b"-NOAUTH Authentication required.\r\n",
                ErrorKind::ReplyNoauth,
            ),
            (
                b"-WRONGPASS invalid username-password pair\r\n",
                ErrorKind::ReplyNoauth,
            ),
            (
                b"-BUSYKEY Target key name already exists.\r\n",
                ErrorKind::ReplyErr,
            ),
        ] {
            match frame(bytes, 3) {
                Ok((Reply::Refused(k, text), n)) => {
                    assert_eq!((k, n), (kind, bytes.len()));
                    assert_eq!(text.as_bytes(), &bytes[1..bytes.len() - 2]);
                }
                other => panic!("{bytes:?}: {other:?}"),
            }
        }
    }

    #[test]
    fn garbage_is_invalid_not_a_reply() {
        for bytes in [
            &b"HTTP/1.1 200 OK\r\n"[..],
            b":forty\r\n",
            b"$-2\r\n",
            b"$3\r\nabcd\r\n",
            b"\r\n",
            b"*99999999999\r\n",
        ] {
            assert!(frame(bytes, 1000).is_err(), "{bytes:?}");
        }
        let long = vec![b'+'; MAX_LINE + 2];
        assert_eq!(frame(&long, 100_000), Err("a RESP line longer than 16 KiB"));
    }

    #[test]
    fn a_large_value_is_skipped_not_buffered() {
        let mut f = Framer::new();
        assert_eq!(
            f.step(b"$1000000\r\nabc"),
            Step::Skip {
                used: 10,
                skip: 1_000_000
            }
        );
        assert_eq!(
            f.step(b"\r\n"),
            Step::Done {
                used: 2,
                reply: Reply::Value
            }
        );
    }

    #[test]
    fn commands_are_arrays_of_bulk_strings() {
        let mut out = Vec::new();
        encode(&mut out, [&b"SET"[..], b"k:1", b""].into_iter());
        assert_eq!(out, b"*3\r\n$3\r\nSET\r\n$3\r\nk:1\r\n$0\r\n\r\n");
    }
}
