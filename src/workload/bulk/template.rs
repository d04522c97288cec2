//! Document templates for bulk writes: `--doc '{"n":{{seq}},"pad":"{{bytes:100}}"}'`
//! parsed ONCE into literal pieces and slots, then filled at send time straight into
//! the request's reused body buffer (no per-document allocation).
//!
//! Placeholders are written raw, so the template says where quotes go:
//! `{{seq}}` (the document's number within its writer's step), `{{writer}}`,
//! `{{rand}}` (an integer below 2^53, exact in any JSON reader), `{{uuid}}` (a random
//! version-4 UUID, to be quoted), `{{bytes:N}}` (N filler letters, to be quoted) and
//! `{{now}}` (Unix time in milliseconds, once per request). An unknown placeholder, or
//! a document that is not a JSON object once filled (checked by filling it once with
//! sample values), is refused before any load with its line and column.

use std::ops::Range;

use crate::rng::SplitMix64;

/// The largest `{{bytes:N}}`: 16 MiB of filler in one document is already absurd.
pub const MAX_FILLER: usize = 16 << 20;

/// What a placeholder becomes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Slot {
    Seq,
    Writer,
    Rand,
    Uuid,
    Bytes(usize),
    Now,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Piece {
    Lit(Range<usize>),
    /// The slot and where its `{{` is in the template (for error positions).
    Slot(Slot, usize),
}

/// A document template, checked: filled, it is always a JSON object.
#[derive(Debug, Clone)]
pub struct DocTemplate {
    text: String,
    pieces: Vec<Piece>,
    /// Where an ID goes: after this many pieces (the first piece ends with the
    /// object's opening brace).
    id_at: usize,
    /// The object has members: an inserted ID needs a comma after it.
    has_members: bool,
    /// Top-level keys of the filled sample (to see whether the template sets `_id`).
    keys: Vec<String>,
}

/// Why a template is refused; line and column (from 1) point into the template.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum TemplateError {
    #[error("line {line}, column {column}: unknown placeholder {{{{{name}}}}} (known: seq, writer, rand, uuid, bytes:N, now)")]
    Unknown {
        name: String,
        line: usize,
        column: usize,
    },
    #[error("line {line}, column {column}: {{{{ is never closed with }}}}")]
    Unclosed { line: usize, column: usize },
    #[error("line {line}, column {column}: {{{{bytes:N}}}} needs N from 1 to {MAX_FILLER}")]
    BadBytes { line: usize, column: usize },
    #[error("line {line}, column {column}: not valid JSON once filled: {why}")]
    NotJson {
        line: usize,
        column: usize,
        why: String,
    },
    #[error("the document must be a JSON object ({{…}}), found {found}")]
    NotAnObject { found: &'static str },
}

/// The values of one document's slots.
pub struct Fill<'a> {
    pub seq: u64,
    pub writer: u64,
    pub now_ms: u64,
    pub rng: &'a mut SplitMix64,
}

impl DocTemplate {
    pub fn parse(text: &str) -> Result<DocTemplate, TemplateError> {
        let mut pieces = Vec::new();
        let mut at = 0;
        while let Some(open) = text[at..].find("{{").map(|i| at + i) {
            let (line, column) = line_col(text, open);
            let close = text[open + 2..]
                .find("}}")
                .map(|i| open + 2 + i)
                .ok_or(TemplateError::Unclosed { line, column })?;
            if open > at {
                pieces.push(Piece::Lit(at..open));
            }
            let name = text[open + 2..close].trim();
            let slot = match parse_slot(name) {
                Some(Ok(slot)) => slot,
                Some(Err(())) => return Err(TemplateError::BadBytes { line, column }),
                None => {
                    return Err(TemplateError::Unknown {
                        name: name.to_string(),
                        line,
                        column,
                    })
                }
            };
            pieces.push(Piece::Slot(slot, open));
            at = close + 2;
        }
        if at < text.len() {
            pieces.push(Piece::Lit(at..text.len()));
        }
        let mut t = DocTemplate {
            text: text.to_string(),
            pieces,
            id_at: 0,
            has_members: false,
            keys: Vec::new(),
        };
        t.check()?;
        Ok(t)
    }

    /// Fill once with sample values, parse, and find where an ID goes.
    fn check(&mut self) -> Result<(), TemplateError> {
        let mut sample = Vec::new();
        // (offset in the sample, offset in the template, literal?) per piece.
        let mut map = Vec::with_capacity(self.pieces.len());
        let mut rng = SplitMix64::new(0);
        for p in &self.pieces {
            let (t_at, lit) = match p {
                Piece::Lit(r) => (r.start, true),
                Piece::Slot(_, at) => (*at, false),
            };
            map.push((sample.len(), t_at, lit));
            self.piece(
                p,
                &mut sample,
                &mut Fill {
                    seq: 0,
                    writer: 0,
                    now_ms: 1_700_000_000_000,
                    rng: &mut rng,
                },
            );
        }
        let value: serde_json::Value = serde_json::from_slice(&sample).map_err(|e| {
            let off = offset_of(&sample, e.line(), e.column());
            let k = map.partition_point(|&(s, _, _)| s <= off).max(1) - 1;
            let t_off = match map.get(k) {
                Some(&(s, t, true)) => t + (off - s),
                Some(&(_, t, false)) => t,
                None => 0,
            };
            let (line, column) = line_col(&self.text, t_off.min(self.text.len()));
            let why = e.to_string();
            // serde_json ends its message with its own position, which is the sample's.
            let why = why.split(" at line ").next().unwrap_or(&why).to_string();
            TemplateError::NotJson { line, column, why }
        })?;
        let serde_json::Value::Object(members) = &value else {
            return Err(TemplateError::NotAnObject {
                found: match value {
                    serde_json::Value::Array(_) => "an array",
                    serde_json::Value::String(_) => "a string",
                    serde_json::Value::Number(_) => "a number",
                    serde_json::Value::Bool(_) => "a boolean",
                    _ => "null",
                },
            });
        };
        self.has_members = !members.is_empty();
        self.keys = members.keys().cloned().collect();
        // The object's brace is the first non-space byte, so it is in a literal piece:
        // split that piece after it.
        let Some(Piece::Lit(first)) = self.pieces.first().cloned() else {
            unreachable!("a JSON object starts with a literal brace")
        };
        let brace = first.start
            + self.text[first.clone()]
                .find('{')
                .expect("the sample parsed as an object");
        let mut pieces = vec![Piece::Lit(first.start..brace + 1)];
        if brace + 1 < first.end {
            pieces.push(Piece::Lit(brace + 1..first.end));
        }
        pieces.extend(self.pieces.drain(1..));
        self.pieces = pieces;
        self.id_at = 1;
        Ok(())
    }

    /// Does the template set this top-level key itself (`_id`, `_key`)?
    pub fn sets_key(&self, key: &str) -> bool {
        self.keys.iter().any(|k| k == key)
    }

    /// The template as given.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Append one document to `out`; with `id`, `"field":"id"` becomes its first member.
    #[inline]
    pub fn fill(&self, out: &mut Vec<u8>, f: &mut Fill<'_>, id: Option<(&str, &[u8])>) {
        for (i, p) in self.pieces.iter().enumerate() {
            if i == self.id_at {
                if let Some((field, id)) = id {
                    out.push(b'"');
                    out.extend_from_slice(field.as_bytes());
                    out.extend_from_slice(b"\":\"");
                    out.extend_from_slice(id);
                    out.push(b'"');
                    if self.has_members {
                        out.push(b',');
                    }
                }
            }
            self.piece(p, out, f);
        }
    }

    #[inline]
    fn piece(&self, p: &Piece, out: &mut Vec<u8>, f: &mut Fill<'_>) {
        match p {
            Piece::Lit(r) => out.extend_from_slice(&self.text.as_bytes()[r.clone()]),
            Piece::Slot(slot, _) => write_slot(out, *slot, f),
        }
    }
}

/// A placeholder's slot by name (`seq`, `bytes:100`…); `Some(Err)` for a `bytes:N`
/// out of range, `None` for a name that is not one.
pub fn parse_slot(name: &str) -> Option<Result<Slot, ()>> {
    Some(Ok(match name {
        "seq" => Slot::Seq,
        "writer" => Slot::Writer,
        "rand" => Slot::Rand,
        "uuid" => Slot::Uuid,
        "now" => Slot::Now,
        _ => {
            let n = name.strip_prefix("bytes:")?;
            return Some(match n.trim().parse::<usize>() {
                Ok(n) if (1..=MAX_FILLER).contains(&n) => Ok(Slot::Bytes(n)),
                _ => Err(()),
            });
        }
    }))
}

/// One slot's value, written raw.
#[inline]
pub fn write_slot(out: &mut Vec<u8>, slot: Slot, f: &mut Fill<'_>) {
    match slot {
        Slot::Seq => write_u64(out, f.seq),
        Slot::Writer => write_u64(out, f.writer),
        Slot::Rand => write_u64(out, f.rng.next_u64() >> 11),
        Slot::Now => write_u64(out, f.now_ms),
        Slot::Uuid => write_uuid(out, f.rng),
        Slot::Bytes(n) => write_filler(out, n, f.rng),
    }
}

/// Decimal digits of `n`, without going through `fmt`.
#[inline]
pub fn write_u64(out: &mut Vec<u8>, mut n: u64) {
    let mut buf = [0u8; 20];
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&buf[i..]);
}

/// `n` in decimal, zero-padded to `width` digits (more when it needs them).
#[inline]
pub fn write_padded(out: &mut Vec<u8>, n: u64, width: usize) {
    let digits = if n == 0 { 1 } else { n.ilog10() as usize + 1 };
    for _ in digits..width {
        out.push(b'0');
    }
    write_u64(out, n);
}

const HEX: &[u8; 16] = b"0123456789abcdef";

/// `n` random bytes as lowercase hex (2n characters).
#[inline]
pub fn write_hex(out: &mut Vec<u8>, rng: &mut SplitMix64, bytes: usize) {
    let mut left = bytes;
    while left > 0 {
        let r = rng.next_u64();
        for k in 0..left.min(8) {
            let b = (r >> (k * 8)) as u8;
            out.push(HEX[(b >> 4) as usize]);
            out.push(HEX[(b & 15) as usize]);
        }
        left = left.saturating_sub(8);
    }
}

/// A random version-4 UUID: 8-4-4-4-12 lowercase hex.
#[inline]
pub fn write_uuid(out: &mut Vec<u8>, rng: &mut SplitMix64) {
    let (a, b) = (rng.next_u64(), rng.next_u64());
    // Version 4 in the high nibble of byte 6, variant 10 in the top bits of byte 8.
    let a = (a & !0xF000_u64) | 0x4000;
    let b = (b & !(0b11 << 62)) | (0b10 << 62);
    let mut bytes = [0u8; 16];
    bytes[..8].copy_from_slice(&a.to_be_bytes());
    bytes[8..].copy_from_slice(&b.to_be_bytes());
    for (i, byte) in bytes.iter().enumerate() {
        if matches!(i, 4 | 6 | 8 | 10) {
            out.push(b'-');
        }
        out.push(HEX[(byte >> 4) as usize]);
        out.push(HEX[(byte & 15) as usize]);
    }
}

/// `n` letters, a window of a fixed alphabet at a random start: documents of the
/// asked size without a draw per byte.
#[inline]
fn write_filler(out: &mut Vec<u8>, n: usize, rng: &mut SplitMix64) {
    const ALPHABET: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
    let mut start = rng.below(ALPHABET.len());
    let mut left = n;
    while left > 0 {
        let take = left.min(ALPHABET.len() - start);
        out.extend_from_slice(&ALPHABET[start..start + take]);
        left -= take;
        start = 0;
    }
}

/// 1-based line and column (in characters) of byte `off` of `text`.
pub(crate) fn line_col(text: &str, off: usize) -> (usize, usize) {
    let before = &text[..off];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    (line, before[line_start..].chars().count() + 1)
}

/// The byte offset of serde_json's (line, column) in `bytes` (its column counts bytes).
pub(crate) fn offset_of(bytes: &[u8], line: usize, column: usize) -> usize {
    let mut start = 0;
    for _ in 1..line {
        match bytes[start..].iter().position(|&b| b == b'\n') {
            Some(i) => start += i + 1,
            None => break,
        }
    }
    (start + column.saturating_sub(1)).min(bytes.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn filled(t: &DocTemplate, id: Option<(&str, &[u8])>) -> String {
        let mut out = Vec::new();
        let mut rng = SplitMix64::new(7);
        t.fill(
            &mut out,
            &mut Fill {
                seq: 42,
                writer: 3,
                now_ms: 1234,
                rng: &mut rng,
            },
            id,
        );
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn fills_every_placeholder() {
        let t = DocTemplate::parse(
            r#" {"n":{{seq}},"w":{{ writer }},"r":{{rand}},"u":"{{uuid}}","p":"{{bytes:60}}","t":{{now}}}"#,
        )
        .unwrap();
        let s = filled(&t, Some(("_id", b"x-1")));
        let v: serde_json::Value = serde_json::from_str(&s).unwrap();
        assert_eq!(v["_id"], "x-1");
        assert_eq!((v["n"].as_u64(), v["w"].as_u64()), (Some(42), Some(3)));
        assert!(v["r"].as_u64().unwrap() < 1 << 53);
        let u = v["u"].as_str().unwrap();
        assert_eq!((u.len(), &u[14..15]), (36, "4"));
        assert!(matches!(&u[19..20], "8" | "9" | "a" | "b"));
        assert_eq!(v["p"].as_str().unwrap().len(), 60);
        assert_eq!(v["t"], 1234);
        assert!(s.starts_with(" {\"_id\":\"x-1\",\"n\":42"));
    }

    #[test]
    fn an_empty_object_takes_an_id_without_a_comma() {
        let t = DocTemplate::parse("{}").unwrap();
        assert_eq!(filled(&t, Some(("_key", b"k"))), r#"{"_key":"k"}"#);
        assert_eq!(filled(&t, None), "{}");
        let t = DocTemplate::parse(r#"{"foo":"bar"}"#).unwrap();
        assert_eq!(filled(&t, None), r#"{"foo":"bar"}"#);
        assert!(!t.sets_key("_id"));
        assert!(DocTemplate::parse(r#"{"_id":"a{{seq}}"}"#)
            .unwrap()
            .sets_key("_id"));
    }

    #[test]
    fn bad_templates_are_refused_with_their_position() {
        let e = DocTemplate::parse("{\"a\":1,\n \"b\":{{sequence}}}").unwrap_err();
        assert_eq!(
            e,
            TemplateError::Unknown {
                name: "sequence".into(),
                line: 2,
                column: 6
            }
        );
        assert!(e.to_string().contains("{{sequence}}"), "{e}");
        assert!(matches!(
            DocTemplate::parse(r#"{"a":"{{seq"}"#),
            Err(TemplateError::Unclosed { line: 1, column: 7 })
        ));
        assert!(matches!(
            DocTemplate::parse(r#"{"a":"{{bytes:0}}"}"#),
            Err(TemplateError::BadBytes { .. })
        ));
        // An unquoted UUID is not JSON: the error points at the placeholder.
        match DocTemplate::parse(r#"{"a":1,"u":{{uuid}}}"#).unwrap_err() {
            TemplateError::NotJson { line, column, .. } => assert_eq!((line, column), (1, 12)),
            e => panic!("{e:?}"),
        }
        // A literal mistake after a slot points at the literal.
        match DocTemplate::parse(r#"{"a":{{seq}},,"b":1}"#).unwrap_err() {
            TemplateError::NotJson { line, column, .. } => assert_eq!((line, column), (1, 14)),
            e => panic!("{e:?}"),
        }
        assert!(matches!(
            DocTemplate::parse("[1]"),
            Err(TemplateError::NotAnObject { found: "an array" })
        ));
    }

    #[test]
    fn numbers_without_fmt() {
        let mut out = Vec::new();
        write_u64(&mut out, 0);
        out.push(b' ');
        write_u64(&mut out, u64::MAX);
        out.push(b' ');
        write_padded(&mut out, 42, 6);
        out.push(b' ');
        write_padded(&mut out, 1234567, 3);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "0 18446744073709551615 000042 1234567"
        );
    }
}
