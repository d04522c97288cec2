//! The one HTTP/1.x response-head parser (on `httparse`), and the chunked framing's
//! two small readers: what [`super::Conn`]'s reader asks of the bytes it holds.

use super::{BodyKind, WireError, MAX_HEADERS};

/// What a response head says, from [`parse_head`].
pub(super) struct Head {
    pub(super) status: u16,
    pub(super) body: BodyKind,
    pub(super) close: bool,
    /// Length of the head in bytes.
    pub(super) len: usize,
}

/// The one response-head parser: `None` while the head is incomplete.
pub(super) fn parse_head(buf: &[u8]) -> Result<Option<Head>, WireError> {
    // Left uninitialised: no need to fill 100 empty headers (3.2 KB) before every
    // parse; httparse writes those it finds.
    let mut headers =
        [const { std::mem::MaybeUninit::<httparse::Header<'_>>::uninit() }; MAX_HEADERS];
    let mut resp = httparse::Response::new(&mut []);
    let parsed = httparse::ParserConfig::default().parse_response_with_uninit_headers(
        &mut resp,
        buf,
        &mut headers,
    );
    let used = match parsed {
        Ok(httparse::Status::Complete(used)) => used,
        Ok(httparse::Status::Partial) => return Ok(None),
        Err(httparse::Error::TooManyHeaders) => {
            return Err(WireError::Malformed("too many headers (more than 100)"))
        }
        Err(_) => return Err(WireError::Malformed("not an HTTP/1.x response")),
    };
    let status = resp.code.unwrap_or(0);
    let version = resp.version.unwrap_or(1);
    let mut length = None;
    let mut chunked = false;
    let mut close = version == 0;
    for h in resp.headers.iter() {
        if h.name.eq_ignore_ascii_case("content-length") {
            let v = digits(h.value.trim_ascii());
            match (v, length) {
                // RFC 9112 §6.3: differing lengths leave the framing unknown.
                (Some(n), Some(m)) if n != m => {
                    return Err(WireError::Malformed("conflicting Content-Length headers"))
                }
                (Some(n), _) => length = Some(n),
                (None, _) => return Err(WireError::Malformed("invalid Content-Length")),
            }
        } else if h.name.eq_ignore_ascii_case("transfer-encoding") {
            chunked = h
                .value
                .split(|b| *b == b',')
                .any(|t| t.trim_ascii().eq_ignore_ascii_case(b"chunked"));
        } else if h.name.eq_ignore_ascii_case("connection") {
            for token in h.value.split(|b| *b == b',') {
                let t = token.trim_ascii();
                if t.eq_ignore_ascii_case(b"close") {
                    close = true;
                } else if t.eq_ignore_ascii_case(b"keep-alive") && version == 0 {
                    close = false;
                }
            }
        }
    }
    let body = if chunked {
        BodyKind::Chunked
    } else if let Some(n) = length {
        BodyKind::Length(n)
    } else {
        BodyKind::UntilClose
    };
    Ok(Some(Head {
        status,
        body,
        close,
        len: used,
    }))
}

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
    use super::digits;

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
}
