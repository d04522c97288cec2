//! MySQL's packets: a 3-byte little-endian payload length and a 1-byte sequence id
//! before each payload. A payload of 2^24-1 bytes continues in the next packet (until
//! a shorter one); the chain's total is bounded by `MAX_PAYLOAD`, so a hostile server
//! cannot make the client wait for or buffer more. Also the protocol's little
//! helpers: length-encoded integers and strings, read from and written to slices.

/// The payload length that says "continued in the next packet".
pub const CHUNK: usize = 0xff_ffff;

/// The largest logical payload accepted: the server's own ceiling
/// (`max_allowed_packet` is at most 1 GiB).
pub const MAX_PAYLOAD: usize = 1 << 30;

/// Why the server's bytes cannot be read as its protocol.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProtocolError {
    /// A chain of packets longer than `MAX_PAYLOAD`.
    TooLong(usize),
    /// A packet whose sequence id is not the one expected (expected, got).
    Sequence(u8, u8),
    /// A packet this point of the exchange cannot have (its first byte).
    Unexpected(u8),
    /// A packet that does not parse (what was being read).
    Malformed(&'static str),
}

impl std::fmt::Display for ProtocolError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ProtocolError::TooLong(n) => write!(
                f,
                "a packet of over {n} bytes: more than MySQL's 1 GiB, not its protocol"
            ),
            ProtocolError::Sequence(want, got) => {
                write!(f, "a packet with sequence id {got} where {want} was due")
            }
            ProtocolError::Unexpected(b) => write!(f, "an unexpected packet 0x{b:02x}"),
            ProtocolError::Malformed(what) => write!(f, "a malformed {what}"),
        }
    }
}

/// A packet cut from the read buffer: the sequence id of its last part, its payload,
/// and how many bytes of the buffer it took.
pub type Cut<'a> = (u8, &'a [u8], usize);

/// One logical packet cut from `buf`: the sequence id of its last part, its payload
/// (borrowed from `buf`, or — only for a chained packet — gathered into `joined`, a
/// buffer the caller reuses), and how many bytes of `buf` it took. `None` while it is
/// incomplete.
pub fn next_packet<'a>(
    buf: &'a [u8],
    joined: &'a mut Vec<u8>,
) -> Result<Option<Cut<'a>>, ProtocolError> {
    next_packet_within(buf, joined, MAX_PAYLOAD)
}

/// `next_packet` with the chain's bound `max` (the tests' smaller one). A header
/// whose length takes the chain past `max` is refused as soon as it is read.
pub fn next_packet_within<'a>(
    buf: &'a [u8],
    joined: &'a mut Vec<u8>,
    max: usize,
) -> Result<Option<Cut<'a>>, ProtocolError> {
    let mut at = 0;
    let mut total = 0usize;
    loop {
        let Some(head) = buf.get(at..at + 4) else {
            return Ok(None);
        };
        let len = u32::from_le_bytes([head[0], head[1], head[2], 0]) as usize;
        let seq = head[3];
        total += len;
        if total > max {
            return Err(ProtocolError::TooLong(max));
        }
        if buf.len() < at + 4 + len {
            return Ok(None);
        }
        at += 4 + len;
        if len < CHUNK {
            if at == 4 + len {
                return Ok(Some((seq, &buf[4..at], at)));
            }
            return Ok(Some((seq, gather(&buf[..at], joined), at)));
        }
    }
}

/// A chain's payloads without their headers, into `joined`.
fn gather<'a>(mut chain: &[u8], joined: &'a mut Vec<u8>) -> &'a [u8] {
    joined.clear();
    while chain.len() >= 4 {
        let len = u32::from_le_bytes([chain[0], chain[1], chain[2], 0]) as usize;
        joined.extend_from_slice(&chain[4..4 + len]);
        chain = &chain[4 + len..];
    }
    joined
}

/// Starts a packet at the end of `out`: room for its header, filled by `finish`.
pub fn start(out: &mut Vec<u8>) -> usize {
    let at = out.len();
    out.extend_from_slice(&[0; 4]);
    at
}

/// Writes the header of the packet started at `at` with sequence id `*seq` (then
/// advanced). A payload of 2^24-1 bytes or more is split into a chain (rare: a huge
/// statement), each part its own sequence id, and an exact multiple ends with an
/// empty packet as the protocol asks.
pub fn finish(out: &mut Vec<u8>, at: usize, seq: &mut u8) {
    let len = out.len() - at - 4;
    if len < CHUNK {
        header(out, at, len, seq);
        return;
    }
    let payload = out.split_off(at + 4);
    out.truncate(at);
    for part in payload.chunks(CHUNK) {
        let p = start(out);
        out.extend_from_slice(part);
        header(out, p, part.len(), seq);
    }
    if payload.len().is_multiple_of(CHUNK) {
        let p = start(out);
        header(out, p, 0, seq);
    }
}

fn header(out: &mut [u8], at: usize, len: usize, seq: &mut u8) {
    out[at..at + 3].copy_from_slice(&(len as u32).to_le_bytes()[..3]);
    out[at + 3] = *seq;
    *seq = seq.wrapping_add(1);
}

/// Reads a length-encoded integer from the front of `b`: its value and the rest.
/// `0xfb` (NULL in a text row) is not an integer here; the caller checks it first.
pub fn lenenc_int(b: &[u8]) -> Result<(u64, &[u8]), ProtocolError> {
    let bad = ProtocolError::Malformed("length-encoded integer");
    let (&first, rest) = b.split_first().ok_or(bad.clone())?;
    let n = match first {
        0..=0xfa => return Ok((first as u64, rest)),
        0xfc => 2,
        0xfd => 3,
        0xfe => 8,
        _ => return Err(bad),
    };
    let bytes = rest.get(..n).ok_or(bad)?;
    let mut v = [0u8; 8];
    v[..n].copy_from_slice(bytes);
    Ok((u64::from_le_bytes(v), &rest[n..]))
}

/// Reads a length-encoded string from the front of `b`: its bytes and the rest.
pub fn lenenc_str(b: &[u8]) -> Result<(&[u8], &[u8]), ProtocolError> {
    let (len, rest) = lenenc_int(b)?;
    if len > rest.len() as u64 {
        return Err(ProtocolError::Malformed("length-encoded string"));
    }
    Ok(rest.split_at(len as usize))
}

/// Writes a length-encoded integer.
pub fn put_lenenc_int(out: &mut Vec<u8>, v: u64) {
    match v {
        0..=0xfa => out.push(v as u8),
        0xfb..=0xffff => {
            out.push(0xfc);
            out.extend_from_slice(&(v as u16).to_le_bytes());
        }
        0x1_0000..=0xff_ffff => {
            out.push(0xfd);
            out.extend_from_slice(&(v as u32).to_le_bytes()[..3]);
        }
        _ => {
            out.push(0xfe);
            out.extend_from_slice(&v.to_le_bytes());
        }
    }
}

/// Reads a NUL-terminated string from the front of `b`: its bytes and the rest.
pub fn nul_str(b: &[u8]) -> Result<(&[u8], &[u8]), ProtocolError> {
    let end = b
        .iter()
        .position(|&c| c == 0)
        .ok_or(ProtocolError::Malformed("NUL-terminated string"))?;
    Ok((&b[..end], &b[end + 1..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_packet_is_cut_at_any_split_and_waits_while_incomplete() {
        let stream = b"\x03\0\0\x05abc\x01\0\0\x06z";
        let mut j = Vec::new();
        for cut in 0..4 + 3 {
            assert_eq!(next_packet(&stream[..cut], &mut j).unwrap(), None);
        }
        let (seq, p, used) = next_packet(stream, &mut j).unwrap().unwrap();
        assert_eq!((seq, p, used), (5, &b"abc"[..], 7));
        let (seq, p, _) = next_packet(&stream[used..], &mut j).unwrap().unwrap();
        assert_eq!((seq, p), (6, &b"z"[..]));
    }

    #[test]
    fn a_payload_of_2_pow_24_minus_1_chains_both_ways_and_an_endless_chain_is_refused() {
        let payload: Vec<u8> = (0..CHUNK + 10).map(|i| i as u8).collect();
        let mut out = Vec::new();
        let mut seq = 0;
        let at = start(&mut out);
        out.extend_from_slice(&payload);
        finish(&mut out, at, &mut seq);
        assert_eq!((out.len(), seq), (payload.len() + 8, 2));
        let mut j = Vec::new();
        let (last, p, used) = next_packet(&out, &mut j).unwrap().unwrap();
        assert_eq!((last, p == &payload[..], used), (1, true, out.len()));
        // An exact multiple ends with an empty packet.
        let mut out = Vec::new();
        let mut seq = 0;
        let at = start(&mut out);
        out.resize(4 + CHUNK, 7);
        finish(&mut out, at, &mut seq);
        assert_eq!((out.len(), seq), (CHUNK + 8, 2));
        assert_eq!(next_packet(&out, &mut j).unwrap().unwrap().1.len(), CHUNK);
        // Full headers that promise more than the bound: refused as the header that
        // crosses it is read, its bytes never awaited.
        let mut hostile = vec![0xff, 0xff, 0xff, 0];
        hostile.resize(4 + CHUNK, 0);
        hostile.extend_from_slice(&[0xff, 0xff, 0xff, 1]);
        assert_eq!(
            next_packet_within(&hostile, &mut j, 2 * CHUNK - 1),
            Err(ProtocolError::TooLong(2 * CHUNK - 1))
        );
        assert_eq!(
            next_packet_within(&hostile, &mut j, 2 * CHUNK).unwrap(),
            None
        );
    }

    #[test]
    fn length_encoded_integers_and_strings_round_trip() {
        for v in [
            0u64,
            250,
            251,
            0xffff,
            0x1_0000,
            0xff_ffff,
            1 << 24,
            u64::MAX,
        ] {
            let mut b = Vec::new();
            put_lenenc_int(&mut b, v);
            b.push(9);
            assert_eq!(lenenc_int(&b).unwrap(), (v, &[9u8][..]));
        }
        assert!(lenenc_int(b"\xfb").is_err());
        assert!(lenenc_int(b"\xfc\x01").is_err());
        assert_eq!(lenenc_str(b"\x02hi!").unwrap(), (&b"hi"[..], &b"!"[..]));
        assert!(lenenc_str(b"\x05hi").is_err());
        assert_eq!(nul_str(b"ab\0c").unwrap(), (&b"ab"[..], &b"c"[..]));
    }
}
