//! The one HTTP/1.x response-head parser, and the chunked framing's two small readers:
//! what [`super::Conn`]'s reader asks of the bytes it holds.
//!
//! The head parser is our own, not `httparse`'s: it reads what the engine needs (the
//! status, the framing headers, `Connection`) in one pass and fills no header table.
//! It accepts and refuses exactly what `httparse` 1.x with its default configuration
//! does (the same bytes make a whole head, a partial one or an error; a test checks it
//! against `httparse` over generated and mutated heads and every prefix of each).
//! Names and values are scanned 8 bytes at a time; only the three framing fields are
//! trimmed and read. By callgrind, ~800 instructions for `hakaru serve`'s 65-byte head
//! where `httparse` and the reading of its table took ~1,045 (docs/performance.md).

use std::cell::RefCell;

use super::{BodyKind, WireError, MAX_HEADERS};

/// What a response head says, from [`parse_head`].
#[derive(Clone, Copy)]
pub(super) struct Head {
    pub(super) status: u16,
    pub(super) body: BodyKind,
    pub(super) close: bool,
    /// Length of the head in bytes.
    pub(super) len: usize,
}

/// A header field value's and the reason phrase's bytes: HTAB, SP, VCHAR and obs-text
/// (RFC 9110 §5.5), as `httparse` takes them.
static VALUE: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 256 {
        t[b] = b == 0x09 || (b >= 0x20 && b != 0x7f);
        b += 1;
    }
    t
};

/// A header field name's bytes: RFC 9110's `tchar`.
static TOKEN: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 256 {
        t[b] = matches!(b as u8, b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9')
            || matches!(
                b as u8,
                b'!' | b'#'
                    | b'$'
                    | b'%'
                    | b'&'
                    | b'\''
                    | b'*'
                    | b'+'
                    | b'-'
                    | b'.'
                    | b'^'
                    | b'_'
                    | b'`'
                    | b'|'
                    | b'~'
            );
        b += 1;
    }
    t
};

const NOT_HTTP: WireError = WireError::Malformed("not an HTTP/1.x response");

/// The longest head [`parse_head`] remembers.
const MEMO_MAX: usize = 512;

thread_local! {
    /// The last whole head this thread read, and what it said. A load generator reads
    /// the same head again and again (one server, one resource: a `Date` changes it once
    /// a second), and bytes equal to a head already read say the same: whether a head
    /// is whole, and what it says, depends on its own bytes only. So a head that starts
    /// the buffer byte for byte is answered by one comparison, not a parse.
    static MEMO: RefCell<(Vec<u8>, Option<Head>)> = const { RefCell::new((Vec::new(), None)) };
}

/// The one response-head parser: `None` while the head is incomplete.
pub(super) fn parse_head(buf: &[u8]) -> Result<Option<Head>, WireError> {
    let known = MEMO.with(|m| match &*m.borrow() {
        (bytes, Some(head)) if buf.starts_with(bytes) => Some(*head),
        _ => None,
    });
    if known.is_some() {
        return Ok(known);
    }
    let parsed = parse(buf)?;
    if let Some(head) = parsed.filter(|h| h.len <= MEMO_MAX) {
        MEMO.with(|m| {
            let mut m = m.borrow_mut();
            m.0.clear();
            m.0.extend_from_slice(&buf[..head.len]);
            m.1 = Some(head);
        });
    }
    Ok(parsed)
}

/// The parse itself, on no memory of earlier heads.
fn parse(buf: &[u8]) -> Result<Option<Head>, WireError> {
    let Some(mut i) = status_line_start(buf)? else {
        return Ok(None);
    };
    let rest = &buf[i..];
    let version = match rest.get(..8) {
        Some(b"HTTP/1.1") => 1,
        Some(b"HTTP/1.0") => 0,
        Some(_) => return Err(NOT_HTTP),
        None if b"HTTP/1.".starts_with(rest) => return Ok(None),
        None => return Err(NOT_HTTP),
    };
    let Some(line) = rest.get(8..12) else {
        // The SP and the three digits, byte by byte: an error as soon as one is wrong.
        let ok = rest[8..].iter().enumerate().all(|(k, &b)| {
            if k == 0 {
                b == b' '
            } else {
                b.is_ascii_digit()
            }
        });
        return if ok { Ok(None) } else { Err(NOT_HTTP) };
    };
    if line[0] != b' ' || !line[1..].iter().all(u8::is_ascii_digit) {
        return Err(NOT_HTTP);
    }
    let status = line[1..]
        .iter()
        .fold(0u16, |n, &d| n * 10 + u16::from(d - b'0'));
    i += 12;
    // A reason phrase after a SP, or the line's end at once.
    i = match buf.get(i) {
        None => return Ok(None),
        Some(b' ') => match line_end(buf, i + 1)? {
            Some((_, next)) => next,
            None => return Ok(None),
        },
        Some(b'\r' | b'\n') => match line_end(buf, i)? {
            Some((_, next)) => next,
            None => return Ok(None),
        },
        Some(_) => return Err(NOT_HTTP),
    };
    let mut f = Framing::new(version);
    let mut count = 0;
    loop {
        let rest = &buf[i..];
        match rest {
            [] | [b'\r'] => return Ok(None),
            [b'\n', ..] => return Ok(Some(f.head(status, i + 1)?)),
            [b'\r', b'\n', ..] => return Ok(Some(f.head(status, i + 2)?)),
            [b'\r', ..] => return Err(NOT_HTTP),
            _ => {}
        }
        let Some(n) = name_len(rest) else {
            return Ok(None);
        };
        if n == 0 || rest[n] != b':' {
            return Err(NOT_HTTP);
        }
        let Some((end, next)) = line_end(buf, i + n + 1)? else {
            return Ok(None);
        };
        count += 1;
        if count > MAX_HEADERS {
            return Err(WireError::Malformed("too many headers (more than 100)"));
        }
        f.field(&rest[..n], &buf[i + n + 1..end]);
        i = next;
    }
}

/// Where the status line starts, past any empty lines before it (`httparse` skips
/// them); `None` while only those have come.
#[inline]
fn status_line_start(buf: &[u8]) -> Result<Option<usize>, WireError> {
    let mut i = 0;
    loop {
        match &buf[i..] {
            [] | [b'\r'] => return Ok(None),
            [b'\n', ..] => i += 1,
            [b'\r', b'\n', ..] => i += 2,
            [b'\r', ..] => return Err(NOT_HTTP),
            _ => return Ok(Some(i)),
        }
    }
}

/// From `i`, value bytes up to the line's end (CRLF, or a bare LF as `httparse`
/// takes): where the value ends and the next line starts; `None` when the line's end
/// has not come yet, an error at a byte no value holds.
#[inline(always)]
fn line_end(buf: &[u8], i: usize) -> Result<Option<(usize, usize)>, WireError> {
    let rest = &buf[i..];
    let n = run(rest, value_stops, |b| VALUE[usize::from(b)]);
    if n == rest.len() {
        return Ok(None);
    }
    match &rest[n..] {
        [b'\n', ..] => Ok(Some((i + n, i + n + 1))),
        [b'\r', b'\n', ..] => Ok(Some((i + n, i + n + 2))),
        [b'\r'] => Ok(None),
        _ => Err(NOT_HTTP),
    }
}

/// Where a header name ends in `rest` (its first byte not a token's), `None` when
/// every byte left is a token's: letters and `-` 8 at a time, then byte by byte.
#[inline(always)]
fn name_len(rest: &[u8]) -> Option<usize> {
    let n = run(rest, name_stops, |b| b.is_ascii_alphabetic() || b == b'-');
    let more = rest[n..].iter().position(|&b| !TOKEN[usize::from(b)])?;
    Some(n + more)
}

/// How many bytes from the start of `s` run before the first one `stops` flags in an
/// 8-byte word (its high bit set; `ok` says the same of one byte, for the tail).
#[inline(always)]
fn run(s: &[u8], stops: impl Fn(u64) -> u64, ok: impl Fn(u8) -> bool) -> usize {
    let mut n = 0;
    for word in s.chunks_exact(8) {
        let flags = stops(u64::from_le_bytes(word.try_into().expect("8 bytes")));
        if flags != 0 {
            return n + (flags.trailing_zeros() / 8) as usize;
        }
        n += 8;
    }
    n + s[n..].iter().position(|&b| !ok(b)).unwrap_or(s.len() - n)
}

/// Eight bytes at a time, the bit-parallel way (SWAR): each test sets the high bit of
/// every byte it holds for, exactly (no carry crosses a byte: each sum stays under 0x100).
const LO: u64 = 0x0101_0101_0101_0101;
const HI: u64 = 0x8080_8080_8080_8080;

/// The bytes of `x` equal to `b`.
#[inline]
fn eq(x: u64, b: u8) -> u64 {
    let y = x ^ (LO * u64::from(b));
    !(((y & !HI) + !HI) | y) & HI
}

/// The bytes of `x` below `n` (`n` at most 0x80).
#[inline]
fn below(x: u64, n: u8) -> u64 {
    !(((x & !HI) + LO * u64::from(0x80 - n)) | x) & HI
}

/// The bytes no value holds: controls but HTAB, and DEL (so CR and LF among them).
#[inline]
fn value_stops(x: u64) -> u64 {
    (below(x, 0x20) & !eq(x, b'\t')) | eq(x, 0x7f)
}

/// The bytes that are neither a letter nor `-` (the name may go on past them:
/// digits and other token bytes are read one by one).
#[inline]
fn name_stops(x: u64) -> u64 {
    let lower = x | (LO * 0x20);
    let letter = below(lower, b'z' + 1) & !below(lower, b'a');
    !(letter | eq(x, b'-')) & HI
}

/// The framing headers read so far.
struct Framing {
    length: Option<u64>,
    chunked: bool,
    close: bool,
    version: u8,
    /// The first framing header that makes no sense, said once the head is whole (a
    /// head not whole yet, or not HTTP, is that first).
    bad: Option<&'static str>,
}

impl Framing {
    /// Before any field: HTTP/1.0 closes unless it asks to be kept alive.
    fn new(version: u8) -> Framing {
        Framing {
            length: None,
            chunked: false,
            close: version == 0,
            version,
            bad: None,
        }
    }

    /// One header field: `name` is token bytes, `value` as it came (trimmed here, for
    /// the three fields read only).
    #[inline]
    fn field(&mut self, name: &[u8], value: &[u8]) {
        if self.bad.is_some() {
            return;
        }
        if is_name(name, b"content-length") {
            match (digits(value.trim_ascii()), self.length) {
                // RFC 9112 §6.3: differing lengths leave the framing unknown.
                (Some(n), Some(m)) if n != m => {
                    self.bad = Some("conflicting Content-Length headers")
                }
                (Some(n), _) => self.length = Some(n),
                (None, _) => self.bad = Some("invalid Content-Length"),
            }
        } else if is_name(name, b"transfer-encoding") {
            self.chunked = value
                .split(|b| *b == b',')
                .any(|t| t.trim_ascii().eq_ignore_ascii_case(b"chunked"));
        } else if is_name(name, b"connection") {
            for token in value.split(|b| *b == b',') {
                let t = token.trim_ascii();
                if t.eq_ignore_ascii_case(b"close") {
                    self.close = true;
                } else if t.eq_ignore_ascii_case(b"keep-alive") && self.version == 0 {
                    self.close = false;
                }
            }
        }
    }

    fn head(self, status: u16, len: usize) -> Result<Head, WireError> {
        if let Some(why) = self.bad {
            return Err(WireError::Malformed(why));
        }
        let body = if self.chunked {
            BodyKind::Chunked
        } else if let Some(n) = self.length {
            BodyKind::Length(n)
        } else {
            BodyKind::UntilClose
        };
        Ok(Head {
            status,
            body,
            close: self.close,
            len,
        })
    }
}

/// `name` (token bytes, as the parser checked) is `lower` in any case: a token byte
/// ORed with 0x20 equals a lowercase letter or `-` only when it is that letter in
/// either case, or `-`. Without an early exit, so the compiler compares it whole.
#[inline]
fn is_name<const N: usize>(name: &[u8], lower: &[u8; N]) -> bool {
    let Ok(name) = <&[u8; N]>::try_from(name) else {
        return false;
    };
    name.iter()
        .zip(lower)
        .fold(0u8, |d, (a, b)| d | ((a | 0x20) ^ b))
        == 0
}

/// The end of a chunk-size line.
pub(super) fn find_crlf(b: &[u8]) -> Option<usize> {
    b.windows(2).position(|w| w == b"\r\n")
}

/// The size on a chunk-size line (extensions after `;` ignored).
pub(super) fn chunk_size(line: &[u8]) -> Option<u64> {
    let text = line.split(|c| *c == b';').next()?.trim_ascii();
    u64::from_str_radix(std::str::from_utf8(text).ok()?, 16).ok()
}

/// A Content-Length's value: 1*DIGIT (RFC 9110 §8.6), no sign, within u64. Read from
/// the bytes, without the UTF-8 check and `str::parse` it used to take per response.
fn digits(v: &[u8]) -> Option<u64> {
    if v.is_empty() {
        return None;
    }
    v.iter().try_fold(0u64, |n, &b| {
        let d = b.wrapping_sub(b'0');
        if d > 9 {
            return None;
        }
        n.checked_mul(10)?.checked_add(u64::from(d))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_length_is_digits_only() {
        assert_eq!(digits(b"0"), Some(0));
        assert_eq!(digits(b"1024"), Some(1024));
        assert_eq!(digits(b"18446744073709551615"), Some(u64::MAX));
        for bad in [
            &b""[..],
            b"+5",
            b"-1",
            b"1 2",
            b"0x10",
            b"18446744073709551616",
        ] {
            assert_eq!(digits(bad), None, "{:?}", String::from_utf8_lossy(bad));
        }
    }

    /// The parser this one replaced: `httparse` (default configuration) and the same
    /// reading of its headers. The differential test holds ours to it.
    fn reference(buf: &[u8]) -> Result<Option<Head>, WireError> {
        let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
        let mut resp = httparse::Response::new(&mut headers);
        let used = match resp.parse(buf) {
            Ok(httparse::Status::Complete(used)) => used,
            Ok(httparse::Status::Partial) => return Ok(None),
            Err(httparse::Error::TooManyHeaders) => {
                return Err(WireError::Malformed("too many headers (more than 100)"))
            }
            Err(_) => return Err(NOT_HTTP),
        };
        let version = resp.version.unwrap_or(1);
        let mut f = Framing::new(version);
        for h in resp.headers.iter() {
            f.field(h.name.as_bytes(), h.value.trim_ascii());
            if f.bad.is_some() {
                break;
            }
        }
        f.head(resp.code.unwrap_or(0), used).map(Some)
    }

    /// What a parse said, comparable.
    fn said(r: Result<Option<Head>, WireError>) -> String {
        match r {
            Ok(None) => "partial".into(),
            Ok(Some(h)) => {
                let body = match h.body {
                    BodyKind::None => "none".to_string(),
                    BodyKind::Length(n) => format!("length {n}"),
                    BodyKind::Chunked => "chunked".into(),
                    BodyKind::UntilClose => "until close".into(),
                };
                format!("{} {body} close={} len={}", h.status, h.close, h.len)
            }
            Err(e) => format!("error: {e}"),
        }
    }

    /// Ours agrees with `httparse`, parsing and again from its memory of the head.
    fn agree(head: &[u8]) {
        let theirs = said(reference(head));
        for _ in 0..2 {
            let ours = said(parse_head(head));
            assert_eq!(ours, theirs, "{:?}", String::from_utf8_lossy(head));
        }
        assert_eq!(said(parse(head)), theirs);
    }

    /// A remembered head answers only for buffers that start with all of its bytes: not
    /// for one that is the same but for a byte, nor for its own prefix, nor after a
    /// different head took its place.
    #[test]
    fn the_memory_of_the_last_head_answers_only_for_its_own_bytes() {
        let a = b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello";
        let b = b"HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nhello!";
        let c = b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello";
        assert_eq!(said(parse_head(a)), "200 length 5 close=false len=38");
        assert_eq!(said(parse_head(a)), "200 length 5 close=false len=38");
        assert_eq!(said(parse_head(&a[..37])), "partial");
        assert_eq!(said(parse_head(b)), "200 length 6 close=false len=38");
        assert_eq!(said(parse_head(c)), "200 length 5 close=true len=57");
        assert_eq!(said(parse_head(a)), "200 length 5 close=false len=38");
        // Too long to remember: still read right.
        let long = format!("HTTP/1.1 204\r\nX: {}\r\n\r\n", "v".repeat(600));
        assert_eq!(
            said(parse_head(long.as_bytes())),
            "204 until close close=false len=621"
        );
        assert_eq!(
            said(parse_head(long.as_bytes())),
            "204 until close close=false len=621"
        );
        MEMO.with(|m| assert_eq!(m.borrow().0, &a[..38]));
    }

    /// xorshift64*: the same heads on every run.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }
        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
    }

    /// A response head built from pieces: half of them from the right ones only, the
    /// other half also wrong in each way the grammar can be (versions, codes, reasons,
    /// line ends, names, values, header counts around the limit). Each list starts
    /// with its right pieces; `ok` says how many.
    fn generated(r: &mut Rng) -> Vec<u8> {
        let clean = r.below(2) == 0;
        let pick = |r: &mut Rng, from: &[&[u8]], ok: usize, h: &mut Vec<u8>| {
            let n = if clean { ok } else { from.len() };
            h.extend_from_slice(from[r.below(n)]);
        };
        let mut h = Vec::new();
        for _ in 0..[0, 0, 0, 1, 2][r.below(5)] {
            pick(r, &[b"\r\n", b"\n", b"\r", b" \r\n"], 2, &mut h);
        }
        let versions: &[&[u8]] = &[
            b"HTTP/1.1",
            b"HTTP/1.1",
            b"HTTP/1.0",
            b"HTTP/2.0",
            b"HTTP/1.x",
            b"http/1.1",
            b"HTTP/1.",
            b"ICY",
        ];
        pick(r, versions, 3, &mut h);
        pick(r, &[b" ", b"  ", b"\t", b""], 1, &mut h);
        let codes: &[&[u8]] = &[
            b"200", b"204", b"304", b"100", b"101", b"103", b"404", b"999", b"20", b"2x0", b"0200",
        ];
        pick(r, codes, 8, &mut h);
        let reasons: &[&[u8]] = &[
            b" OK",
            b"",
            b" ",
            b" Not Found",
            b" \xe2\x9c\x93 obs",
            b" tab\there",
            b" del\x7f",
            b" nul\x00",
            b" ctl\x01",
            b"X",
        ];
        pick(r, reasons, 6, &mut h);
        let ends: &[&[u8]] = &[b"\r\n", b"\r\n", b"\r\n", b"\n", b"\r", b"\r\r\n", b"\n\r"];
        pick(r, ends, 4, &mut h);
        let names: &[&[u8]] = &[
            b"Content-Length",
            b"content-length",
            b"CONTENT-LENGTH",
            b"Content-Type",
            b"Transfer-Encoding",
            b"transfer-encoding",
            b"Connection",
            b"connection",
            b"Server",
            b"X-A",
            b"Content-Lengthx",
            b"Connectio",
            b"Transfer-Encodinf",
            b"Content Length",
            b"",
            b"X@Y",
            b"Content-Length ",
            b" Folded",
            b"\tTab",
            b"C\xc3\xb6nnection",
        ];
        let values: &[&[u8]] = &[
            b" 5",
            b" 0",
            b"5",
            b"  12  ",
            b" 7",
            b" chunked",
            b" gzip, chunked",
            b" CHUNKED ",
            b" chunked, gzip",
            b" close",
            b" Close",
            b" keep-alive",
            b" Keep-Alive, close",
            b" upgrade,\tclose",
            b" text/plain",
            b" \xff\xfe",
            b"\t9",
            b"",
            b" ",
            b" x",
            b" -1",
            b" +5",
            b" 1 2",
            b" 99999999999999999999",
            b" a\x7fb",
            b" a\x00b",
            b" a\rb",
        ];
        let count = match r.below(20) {
            0 => 99 + r.below(4),
            k => k % 6,
        };
        for _ in 0..count {
            pick(r, names, 13, &mut h);
            pick(r, &[b":", b" :", b""], 1, &mut h);
            // A value that frames nothing, or frames wrongly, is a right piece of HTTP.
            pick(r, values, 24, &mut h);
            pick(r, ends, 4, &mut h);
        }
        if r.below(8) != 0 {
            pick(r, ends, 4, &mut h);
        }
        if r.below(2) == 0 {
            h.extend_from_slice(b"body bytes\r\n");
        }
        h
    }

    /// A byte changed, added or taken away, a few times over.
    fn mutated(r: &mut Rng, mut h: Vec<u8>) -> Vec<u8> {
        const BYTES: &[u8] = b"\r\n \t:,0159aZ-\x00\x7f\x80\xff";
        for _ in 0..1 + r.below(3) {
            let at = r.below(h.len() + 1);
            let byte = if r.below(2) == 0 {
                BYTES[r.below(BYTES.len())]
            } else {
                r.next() as u8
            };
            match r.below(3) {
                0 if at < h.len() => h[at] = byte,
                1 if at < h.len() => {
                    h.remove(at);
                }
                _ => h.insert(at, byte),
            }
        }
        h
    }

    /// Ours and `httparse` agree on every generated and mutated head and on every
    /// prefix of each: whole (with the same status, framing, close and length),
    /// partial, or an error, and which error.
    #[test]
    fn the_parser_agrees_with_httparse_on_generated_and_mutated_heads() {
        let mut r = Rng(0x9e37_79b9_7f4a_7c15);
        let (mut whole, mut errors) = (0, 0);
        for case in 0..6000 {
            let mut h = generated(&mut r);
            if case % 3 == 1 {
                h = mutated(&mut r, h);
            }
            // Every prefix of a short head; of a long one, a spread of them.
            let step = (h.len() / 200).max(1);
            for end in (0..h.len()).step_by(step) {
                agree(&h[..end]);
            }
            agree(&h);
            match said(parse_head(&h)) {
                s if s.starts_with("error") => errors += 1,
                s if s != "partial" => whole += 1,
                _ => {}
            }
        }
        // The generator reaches both sides, often.
        assert!(
            whole > 1000 && errors > 1000,
            "{whole} whole, {errors} errors"
        );
    }

    /// The 8-byte tests say of each byte what the byte tests say, for every byte in
    /// every place of a word.
    #[test]
    fn the_word_tests_agree_with_the_byte_tests() {
        for b in 0..=255u8 {
            for at in 0..8 {
                let mut w = *b"content-";
                w[at] = b;
                let x = u64::from_le_bytes(w);
                let bit = |flags: u64| flags & (0x80 << (8 * at)) != 0;
                assert_eq!(bit(value_stops(x)), !VALUE[usize::from(b)], "{b:#x}");
                let letter_or_dash = b.is_ascii_alphabetic() || b == b'-';
                assert_eq!(bit(name_stops(x)), !letter_or_dash, "{b:#x}");
                assert_eq!(bit(eq(x, b'-')), b == b'-', "{b:#x}");
                assert_eq!(bit(below(x, 0x20)), b < 0x20, "{b:#x}");
                // The other bytes are still read right.
                assert_eq!(
                    run(&w, value_stops, |c| VALUE[usize::from(c)]),
                    w.iter().position(|&c| !VALUE[usize::from(c)]).unwrap_or(8)
                );
                assert_eq!(
                    name_len(&[&w[..], b":"].concat()),
                    [&w[..], b":"]
                        .concat()
                        .iter()
                        .position(|&c| !TOKEN[usize::from(c)])
                );
            }
        }
    }

    #[test]
    fn the_parser_reads_the_framing_headers() {
        let read = |h: &[u8]| said(parse_head(h));
        assert_eq!(
            read(
                b"HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: 14\r\n\r\nhakaru"
            ),
            "200 length 14 close=false len=65"
        );
        assert_eq!(
            read(b"\r\nHTTP/1.0 204\nConnection: Keep-Alive\n\n"),
            "204 until close close=false len=39"
        );
        assert_eq!(
            read(b"HTTP/1.1 200 \r\nTransfer-Encoding: gzip, Chunked\r\nContent-Length: 5\r\nConnection: x, CLOSE\r\n\r\n"),
            "200 chunked close=true len=92"
        );
        assert_eq!(read(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n"), "partial");
        assert_eq!(
            read(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n"),
            "error: conflicting Content-Length headers"
        );
        // A framing error waits for the whole head: until then it may still be no HTTP.
        assert_eq!(
            read(b"HTTP/1.1 200 OK\r\nContent-Length: x\r\nA"),
            "partial"
        );
        assert_eq!(
            read(b"HTTP/1.1 200 OK\r\nX: a\x01\r\n\r\n"),
            "error: not an HTTP/1.x response"
        );
    }
}
