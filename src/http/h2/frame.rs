//! HTTP/2 frames (RFC 9113 §4 and §6): the 9-byte head, the payloads the client
//! reads with their padding and priority fields taken off, and the frames it
//! writes. Pure functions over byte slices; the connection owns the buffers.

pub const DATA: u8 = 0;
pub const HEADERS: u8 = 1;
pub const PRIORITY: u8 = 2;
pub const RST_STREAM: u8 = 3;
pub const SETTINGS: u8 = 4;
pub const PUSH_PROMISE: u8 = 5;
pub const PING: u8 = 6;
pub const GOAWAY: u8 = 7;
pub const WINDOW_UPDATE: u8 = 8;
pub const CONTINUATION: u8 = 9;

pub const END_STREAM: u8 = 0x1;
pub const ACK: u8 = 0x1;
pub const END_HEADERS: u8 = 0x4;
pub const PADDED: u8 = 0x8;
pub const PRIORITY_FLAG: u8 = 0x20;

pub const HEAD_LEN: usize = 9;
/// SETTINGS_MAX_FRAME_SIZE's initial value: the most hakaru accepts (it never
/// raises it) and the most it sends until the server allows more.
pub const DEFAULT_MAX_FRAME: usize = 16_384;
/// The largest window (RFC 9113 §6.9.1).
pub const MAX_WINDOW: i64 = (1 << 31) - 1;

pub const PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

/// Setting identifiers (RFC 9113 §6.5.2).
pub const SETTINGS_HEADER_TABLE_SIZE: u16 = 1;
pub const SETTINGS_ENABLE_PUSH: u16 = 2;
pub const SETTINGS_MAX_CONCURRENT_STREAMS: u16 = 3;
pub const SETTINGS_INITIAL_WINDOW_SIZE: u16 = 4;
pub const SETTINGS_MAX_FRAME_SIZE: u16 = 5;

/// Error codes (RFC 9113 §7) hakaru sends or reads by name.
pub const NO_ERROR: u32 = 0;
pub const PROTOCOL_ERROR: u32 = 1;
pub const FLOW_CONTROL_ERROR: u32 = 3;
pub const FRAME_SIZE_ERROR: u32 = 6;
pub const REFUSED_STREAM: u32 = 7;
pub const CANCEL: u32 = 8;
pub const COMPRESSION_ERROR: u32 = 9;
pub const ENHANCE_YOUR_CALM: u32 = 11;

/// An error code's name, as RFC 9113 §7 spells it (the `h2` crate's `Debug`).
pub fn code_name(code: u32) -> std::borrow::Cow<'static, str> {
    const NAMES: [&str; 14] = [
        "NO_ERROR",
        "PROTOCOL_ERROR",
        "INTERNAL_ERROR",
        "FLOW_CONTROL_ERROR",
        "SETTINGS_TIMEOUT",
        "STREAM_CLOSED",
        "FRAME_SIZE_ERROR",
        "REFUSED_STREAM",
        "CANCEL",
        "COMPRESSION_ERROR",
        "CONNECT_ERROR",
        "ENHANCE_YOUR_CALM",
        "INADEQUATE_SECURITY",
        "HTTP_1_1_REQUIRED",
    ];
    match NAMES.get(code as usize) {
        Some(n) => (*n).into(),
        None => format!("Reason({code})").into(),
    }
}

/// A frame's head.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Head {
    pub len: usize,
    pub kind: u8,
    pub flags: u8,
    pub stream: u32,
}

impl Head {
    /// The head at the start of `b` (at least [`HEAD_LEN`] bytes); the stream
    /// identifier's reserved bit is ignored.
    pub fn parse(b: &[u8]) -> Head {
        Head {
            len: (usize::from(b[0]) << 16) | (usize::from(b[1]) << 8) | usize::from(b[2]),
            kind: b[3],
            flags: b[4],
            stream: u32_at(b, 5) & 0x7fff_ffff,
        }
    }
}

pub fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_be_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

/// A frame the client refuses: the connection's error code and what was wrong.
#[derive(Debug, PartialEq, Eq)]
pub struct Malformed(pub u32, pub &'static str);

/// A DATA or HEADERS payload without its pad length, priority fields and padding.
pub fn unpad<'a>(head: &Head, payload: &'a [u8]) -> Result<&'a [u8], Malformed> {
    let mut p = payload;
    let mut pad = 0;
    if head.flags & PADDED != 0 {
        let (&n, rest) = p.split_first().ok_or(Malformed(
            PROTOCOL_ERROR,
            "a padded frame without its pad length",
        ))?;
        pad = usize::from(n);
        p = rest;
    }
    if head.kind == HEADERS && head.flags & PRIORITY_FLAG != 0 {
        p = p.get(5..).ok_or(Malformed(
            FRAME_SIZE_ERROR,
            "a HEADERS frame too short for its priority",
        ))?;
    }
    let keep = p
        .len()
        .checked_sub(pad)
        .ok_or(Malformed(PROTOCOL_ERROR, "padding longer than the frame"))?;
    Ok(&p[..keep])
}

pub fn put_head(out: &mut Vec<u8>, len: usize, kind: u8, flags: u8, stream: u32) {
    let l = (len as u32).to_be_bytes();
    out.extend_from_slice(&[l[1], l[2], l[3], kind, flags]);
    out.extend_from_slice(&stream.to_be_bytes());
}

pub fn put_settings(out: &mut Vec<u8>, settings: &[(u16, u32)]) {
    put_head(out, settings.len() * 6, SETTINGS, 0, 0);
    for (id, value) in settings {
        out.extend_from_slice(&id.to_be_bytes());
        out.extend_from_slice(&value.to_be_bytes());
    }
}

pub fn put_window_update(out: &mut Vec<u8>, stream: u32, increment: u32) {
    put_head(out, 4, WINDOW_UPDATE, 0, stream);
    out.extend_from_slice(&increment.to_be_bytes());
}

pub fn put_rst_stream(out: &mut Vec<u8>, stream: u32, code: u32) {
    put_head(out, 4, RST_STREAM, 0, stream);
    out.extend_from_slice(&code.to_be_bytes());
}

pub fn put_goaway(out: &mut Vec<u8>, last_stream: u32, code: u32) {
    put_head(out, 8, GOAWAY, 0, 0);
    out.extend_from_slice(&last_stream.to_be_bytes());
    out.extend_from_slice(&code.to_be_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heads_round_trip_and_ignore_the_reserved_bit() {
        let mut out = Vec::new();
        put_head(
            &mut out,
            0x01_02_03,
            HEADERS,
            END_HEADERS | END_STREAM,
            0x7fff_fffd,
        );
        assert_eq!(out.len(), HEAD_LEN);
        let h = Head::parse(&out);
        assert_eq!(
            h,
            Head {
                len: 0x01_02_03,
                kind: HEADERS,
                flags: 5,
                stream: 0x7fff_fffd
            }
        );
        out[5] |= 0x80;
        assert_eq!(Head::parse(&out).stream, 0x7fff_fffd);
    }

    #[test]
    fn frames_hakaru_writes_have_their_rfc_layout() {
        let mut out = Vec::new();
        put_settings(
            &mut out,
            &[
                (SETTINGS_ENABLE_PUSH, 0),
                (SETTINGS_INITIAL_WINDOW_SIZE, 65_535),
            ],
        );
        assert_eq!(&out[..9], &[0, 0, 12, SETTINGS, 0, 0, 0, 0, 0]);
        assert_eq!(&out[9..], &[0, 2, 0, 0, 0, 0, 0, 4, 0, 0, 0xff, 0xff]);
        out.clear();
        put_window_update(&mut out, 3, 1 << 20);
        assert_eq!(out, [0, 0, 4, WINDOW_UPDATE, 0, 0, 0, 0, 3, 0, 0x10, 0, 0]);
        out.clear();
        put_rst_stream(&mut out, 5, CANCEL);
        assert_eq!(out, [0, 0, 4, RST_STREAM, 0, 0, 0, 0, 5, 0, 0, 0, 8]);
        out.clear();
        put_goaway(&mut out, 7, PROTOCOL_ERROR);
        assert_eq!(&out[9..], &[0, 0, 0, 7, 0, 0, 0, 1]);
    }

    #[test]
    fn padding_and_priority_come_off() {
        let head = |kind, flags, len| Head {
            len,
            kind,
            flags,
            stream: 1,
        };
        // PADDED: pad length 2, "ab", two bytes of padding.
        let p = [2, b'a', b'b', 0, 0];
        assert_eq!(unpad(&head(DATA, PADDED, 5), &p), Ok(&b"ab"[..]));
        // HEADERS with PADDED and PRIORITY: pad 1, 5 bytes of priority, block, pad.
        let p = [1, 0, 0, 0, 3, 16, 0x88, 0];
        let h = head(HEADERS, PADDED | PRIORITY_FLAG | END_HEADERS, 8);
        assert_eq!(unpad(&h, &p), Ok(&[0x88][..]));
        // PRIORITY on DATA means nothing (it is not a DATA flag).
        assert_eq!(unpad(&head(DATA, PRIORITY_FLAG, 2), b"xy"), Ok(&b"xy"[..]));
        assert!(unpad(&head(DATA, PADDED, 2), &[5, b'a']).is_err());
        assert!(unpad(&head(DATA, PADDED, 0), &[]).is_err());
        assert!(unpad(&head(HEADERS, PRIORITY_FLAG, 3), &[0, 0, 0]).is_err());
        assert_eq!(code_name(11), "ENHANCE_YOUR_CALM");
        assert_eq!(code_name(99), "Reason(99)");
    }
}
