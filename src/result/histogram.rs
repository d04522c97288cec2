//! A histogram as a result file keeps it: HdrHistogram's V2 encoding in base64, and
//! the checks a file's bytes pass before anything is allocated for them. A result may
//! come from anywhere; `hdrhistogram`'s reader sizes its buffer by the header's
//! payload length and inflates a compressed payload to whatever it expands to, so a
//! 40-byte header could ask for 4 GB and a 1.4 MB deflate bomb for 1 GiB.

use std::borrow::Cow;
use std::io::Read;

use base64::Engine as _;
use hdrhistogram::serialization::{Deserializer, Serializer, V2Serializer};
use hdrhistogram::Histogram;

/// HdrHistogram's V2 cookies (the base with its word-size bits, 0x10).
const V2_COOKIE: u32 = 0x1c84_9313;
const V2_COMPRESSED_COOKIE: u32 = 0x1c84_9314;
/// A V2 header: cookie, payload length, normalizing offset, significant digits,
/// lowest and highest trackable values, the integer-to-double ratio.
const V2_HEADER: usize = 40;
/// The most an encoded histogram may hold, decompressed. hakaru's own (1 µs to an
/// hour at 3 significant digits) encode to at most a few hundred KB.
const MAX_PAYLOAD: usize = 16 << 20;
/// HdrHistogram's own limit on significant digits; past it the counts array alone
/// could be gigabytes.
const MAX_DIGITS: u32 = 5;

pub fn encode_histogram(h: &Histogram<u64>) -> String {
    let mut buf = Vec::new();
    V2Serializer::new()
        .serialize(h, &mut buf)
        .expect("serializing to memory cannot fail");
    base64::engine::general_purpose::STANDARD.encode(buf)
}

pub fn decode_histogram(s: &str) -> Result<Histogram<u64>, String> {
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(s)
        .map_err(|e| format!("histogram is not base64: {e}"))?;
    let v2 = checked_v2(&bytes)?;
    Deserializer::new()
        .deserialize(&mut &v2[..])
        .map_err(|e| format!("histogram does not decode: {e:?}"))
}

fn be32(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_be_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

/// `bytes` as an uncompressed V2 histogram whose header claims no more than the bytes
/// hold, inflating a compressed one into at most [`MAX_PAYLOAD`] bytes.
fn checked_v2(bytes: &[u8]) -> Result<Cow<'_, [u8]>, String> {
    let short = || format!("histogram is cut short ({} bytes)", bytes.len());
    match be32(bytes, 0).ok_or_else(short)? {
        V2_COOKIE => {
            check_header(bytes)?;
            Ok(Cow::Borrowed(bytes))
        }
        V2_COMPRESSED_COOKIE => {
            let len = be32(bytes, 4).ok_or_else(short)? as usize;
            let compressed = bytes.get(8..8 + len).ok_or_else(|| {
                format!(
                    "histogram claims {len} compressed bytes, holds {}",
                    bytes.len().saturating_sub(8)
                )
            })?;
            let mut out = Vec::new();
            flate2::read::ZlibDecoder::new(compressed)
                .take(MAX_PAYLOAD as u64 + V2_HEADER as u64 + 1)
                .read_to_end(&mut out)
                .map_err(|e| format!("histogram does not inflate: {e}"))?;
            if out.len() > MAX_PAYLOAD + V2_HEADER {
                return Err(format!(
                    "histogram inflates past {} MiB: not one hakaru wrote",
                    MAX_PAYLOAD >> 20
                ));
            }
            check_header(&out)?;
            Ok(Cow::Owned(out))
        }
        cookie => Err(format!("histogram has an unknown cookie {cookie:#x}")),
    }
}

fn check_header(v2: &[u8]) -> Result<(), String> {
    if v2.len() < V2_HEADER || be32(v2, 0) != Some(V2_COOKIE) {
        return Err(format!(
            "histogram header is cut short ({} bytes)",
            v2.len()
        ));
    }
    let payload = be32(v2, 4).unwrap_or(u32::MAX) as usize;
    if payload > v2.len() - V2_HEADER {
        return Err(format!(
            "histogram claims a payload of {payload} bytes, holds {}",
            v2.len() - V2_HEADER
        ));
    }
    let digits = be32(v2, 12).unwrap_or(u32::MAX);
    if digits > MAX_DIGITS {
        return Err(format!(
            "histogram claims {digits} significant digits (at most {MAX_DIGITS})"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use hdrhistogram::serialization::V2DeflateSerializer;
    use std::io::Write as _;

    fn header(payload: u32, digits: u32) -> Vec<u8> {
        let mut h = Vec::new();
        for v in [V2_COOKIE, payload, 0, digits] {
            h.extend_from_slice(&v.to_be_bytes());
        }
        h.extend_from_slice(&1u64.to_be_bytes());
        h.extend_from_slice(&3_600_000_000u64.to_be_bytes());
        h.extend_from_slice(&1f64.to_be_bytes());
        h
    }

    fn b64(b: &[u8]) -> String {
        base64::engine::general_purpose::STANDARD.encode(b)
    }

    #[test]
    fn hakaru_s_own_histograms_round_trip_plain_and_compressed() {
        let mut h = Histogram::<u64>::new_with_bounds(1, 3_600_000_000, 3).unwrap();
        for v in [10, 200, 3_000, 40_000, 3_000_000_000] {
            h.record(v).unwrap();
        }
        assert_eq!(decode_histogram(&encode_histogram(&h)).unwrap(), h);
        let mut z = Vec::new();
        V2DeflateSerializer::new().serialize(&h, &mut z).unwrap();
        assert_eq!(decode_histogram(&b64(&z)).unwrap(), h);
    }

    /// Bug it pins: a 40-byte header claiming a 4 GB payload made `report` and
    /// `compare` allocate 4.2 GB (and exit 0).
    #[test]
    fn a_header_claiming_more_than_it_holds_is_refused() {
        let err = decode_histogram(&b64(&header(0xFFFF_FFF0, 3))).unwrap_err();
        assert!(
            err.contains("claims a payload of 4294967280 bytes, holds 0"),
            "{err}"
        );
        let err = decode_histogram(&b64(&header(0, 9))).unwrap_err();
        assert!(err.contains("9 significant digits"), "{err}");
    }

    /// Bug it pins: a 1.4 MB deflate bomb expanded to 1 GiB.
    #[test]
    fn a_deflate_bomb_stops_at_the_cap() {
        let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
        z.write_all(&header(1 << 30, 3)).unwrap();
        let zeros = vec![0u8; 1 << 20];
        for _ in 0..64 {
            z.write_all(&zeros).unwrap();
        }
        let body = z.finish().unwrap();
        let mut bytes = V2_COMPRESSED_COOKIE.to_be_bytes().to_vec();
        bytes.extend_from_slice(&(body.len() as u32).to_be_bytes());
        bytes.extend_from_slice(&body);
        let err = decode_histogram(&b64(&bytes)).unwrap_err();
        assert!(err.contains("inflates past 16 MiB"), "{err}");
    }
}
