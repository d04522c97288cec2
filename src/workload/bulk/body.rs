//! Request-body templates for `--target template`: any HTTP bulk API, its body
//! written out once with the per-document part marked to be repeated.
//!
//! ```text
//! {"table":"Docs","values":[{{#docs ","}}{"_key":"{{id}}","n":{{seq}}}{{/docs}}]}
//! ```
//!
//! * `{{#docs}}…{{/docs}}` (exactly once) is repeated for each document of the batch;
//!   `{{#docs ","}}` puts a separator between the copies, written as a JSON string
//!   (`"\n"` for a newline). NDJSON APIs need none: the part ends with its newline.
//! * Inside the part: `{{id}}` (the document's ID from `--ids`, raw: the template says
//!   where quotes go) and the document placeholders `{{seq}}`, `{{writer}}`,
//!   `{{rand}}`, `{{uuid}}`, `{{bytes:N}}`, `{{now}}`.
//! * Outside it: `{{batch}}` (documents in this request) and `{{now}}`.
//!
//! Parsed once into pieces and filled at send time into the reused body buffer. A
//! template that breaks these rules is refused with its line and column; with a JSON
//! content type, a body filled with two sample documents must parse (NDJSON: each
//! line), else it is refused with the position in the template.

use std::ops::Range;

use super::template::{line_col, offset_of, parse_slot, write_slot, Fill, Slot};
use crate::rng::SplitMix64;

#[derive(Debug, Clone, PartialEq, Eq)]
enum Piece {
    Lit(Range<usize>),
    Slot(Slot),
    Id,
    Batch,
}

/// A checked body template.
#[derive(Debug, Clone)]
pub struct BodyTemplate {
    text: String,
    head: Vec<Piece>,
    doc: Vec<Piece>,
    sep: Vec<u8>,
    tail: Vec<Piece>,
    /// The per-document part names its document with `{{id}}`.
    uses_id: bool,
}

/// Why a body template is refused; line and column (from 1) point into the template.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum BodyError {
    #[error("no {{{{#docs}}}}…{{{{/docs}}}} part: mark the part repeated for each document, e.g. [{{{{#docs \",\"}}}}{{\"n\":{{{{seq}}}}}}{{{{/docs}}}}]")]
    NoDocs,
    #[error("line {line}, column {column}: {what}")]
    At {
        line: usize,
        column: usize,
        what: String,
    },
}

/// The three parts while parsing.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Part {
    Head,
    Doc,
    Tail,
}

impl BodyTemplate {
    pub fn parse(text: &str) -> Result<BodyTemplate, BodyError> {
        let at = |off: usize, what: String| {
            let (line, column) = line_col(text, off);
            BodyError::At { line, column, what }
        };
        let mut t = BodyTemplate {
            text: text.to_string(),
            head: Vec::new(),
            doc: Vec::new(),
            sep: Vec::new(),
            tail: Vec::new(),
            uses_id: false,
        };
        let mut part = Part::Head;
        let mut pos = 0;
        while let Some(open) = text[pos..].find("{{").map(|i| pos + i) {
            let close = text[open + 2..]
                .find("}}")
                .map(|i| open + 2 + i)
                .ok_or_else(|| at(open, "{{ is never closed with }}".into()))?;
            if open > pos {
                t.part(part).push(Piece::Lit(pos..open));
            }
            let name = text[open + 2..close].trim();
            pos = close + 2;
            if let Some(rest) = name.strip_prefix("#docs") {
                if part != Part::Head {
                    return Err(at(open, "a second {{#docs}}: the per-document part is marked once, and parts do not nest".into()));
                }
                let rest = rest.trim();
                if !rest.is_empty() {
                    t.sep = match serde_json::from_str::<String>(rest) {
                        Ok(s) => s.into_bytes(),
                        Err(_) => return Err(at(open, format!("the separator after #docs must be a JSON string (\",\" or \"\\n\"), found {rest}"))),
                    };
                }
                part = Part::Doc;
                continue;
            }
            if name == "/docs" {
                if part != Part::Doc {
                    return Err(at(open, "{{/docs}} without a {{#docs}} before it".into()));
                }
                part = Part::Tail;
                continue;
            }
            let piece = match (name, part) {
                ("id", Part::Doc) => {
                    t.uses_id = true;
                    Piece::Id
                }
                ("batch", Part::Head | Part::Tail) => Piece::Batch,
                ("now", _) => Piece::Slot(Slot::Now),
                ("id" | "batch", _) => {
                    return Err(at(
                        open,
                        format!(
                            "{{{{{name}}}}} belongs {} the {{{{#docs}}}} part",
                            if name == "id" { "inside" } else { "outside" }
                        ),
                    ))
                }
                (_, Part::Doc) => match parse_slot(name) {
                    Some(Ok(slot)) => Piece::Slot(slot),
                    Some(Err(())) => return Err(at(open, "{{bytes:N}} needs N from 1 to 16777216".into())),
                    None => return Err(at(open, format!("unknown placeholder {{{{{name}}}}} (known: #docs, /docs, id, batch, seq, writer, rand, uuid, bytes:N, now)"))),
                },
                (_, _) if parse_slot(name).is_some() => {
                    return Err(at(open, format!("{{{{{name}}}}} is a document's: put it inside the {{{{#docs}}}} part")))
                }
                _ => return Err(at(open, format!("unknown placeholder {{{{{name}}}}} (known: #docs, /docs, id, batch, seq, writer, rand, uuid, bytes:N, now)"))),
            };
            t.part(part).push(piece);
        }
        if pos < text.len() {
            t.part(part).push(Piece::Lit(pos..text.len()));
        }
        match part {
            Part::Head => return Err(BodyError::NoDocs),
            Part::Doc => {
                let open = text.find("{{#docs").unwrap_or(0);
                return Err(at(open, "{{#docs}} is never closed with {{/docs}}".into()));
            }
            Part::Tail => {}
        }
        Ok(t)
    }

    fn part(&mut self, p: Part) -> &mut Vec<Piece> {
        match p {
            Part::Head => &mut self.head,
            Part::Doc => &mut self.doc,
            Part::Tail => &mut self.tail,
        }
    }

    /// The template as given.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Does the per-document part name its document (`{{id}}`)?
    pub fn uses_id(&self) -> bool {
        self.uses_id
    }

    #[inline]
    fn pieces(&self, pieces: &[Piece], out: &mut Vec<u8>, f: &mut Fill<'_>, id: &[u8], batch: u64) {
        for p in pieces {
            match p {
                Piece::Lit(r) => out.extend_from_slice(&self.text.as_bytes()[r.clone()]),
                Piece::Slot(s) => write_slot(out, *s, f),
                Piece::Id => out.extend_from_slice(id),
                Piece::Batch => super::template::write_u64(out, batch),
            }
        }
    }

    /// What comes before the documents of a batch of `batch`.
    #[inline]
    pub fn head(&self, out: &mut Vec<u8>, f: &mut Fill<'_>, batch: u64) {
        self.pieces(&self.head, out, f, b"", batch);
    }

    /// One document (its separator first unless it is the first).
    #[inline]
    pub fn doc(&self, out: &mut Vec<u8>, f: &mut Fill<'_>, id: &[u8], first: bool) {
        if !first {
            out.extend_from_slice(&self.sep);
        }
        self.pieces(&self.doc, out, f, id, 0);
    }

    /// What comes after the documents.
    #[inline]
    pub fn tail(&self, out: &mut Vec<u8>, f: &mut Fill<'_>, batch: u64) {
        self.pieces(&self.tail, out, f, b"", batch);
    }

    /// A body of two sample documents, and for each byte range the template offset
    /// it came from (literals map byte for byte).
    fn sample(&self) -> (Vec<u8>, Vec<(usize, usize, bool)>) {
        let mut rng = SplitMix64::new(0);
        let mut out = Vec::new();
        let mut map = Vec::new();
        let mut f = Fill {
            seq: 0,
            writer: 0,
            now_ms: 1_700_000_000_000,
            rng: &mut rng,
        };
        let emit = |pieces: &[Piece], out: &mut Vec<u8>, f: &mut Fill<'_>, map: &mut Vec<_>| {
            for p in pieces {
                let (t_at, lit) = match p {
                    Piece::Lit(r) => (r.start, true),
                    _ => (self.offset_of_piece(p), false),
                };
                map.push((out.len(), t_at, lit));
                self.pieces(std::slice::from_ref(p), out, f, b"sample-id-0001", 2);
            }
        };
        emit(&self.head, &mut out, &mut f, &mut map);
        for i in 0..2 {
            if i > 0 {
                out.extend_from_slice(&self.sep);
            }
            f.seq = i;
            emit(&self.doc, &mut out, &mut f, &mut map);
        }
        emit(&self.tail, &mut out, &mut f, &mut map);
        (out, map)
    }

    /// Where a placeholder piece is: the literal before it ends there (good enough
    /// for an error position), else the template's start.
    fn offset_of_piece(&self, p: &Piece) -> usize {
        let all = self.head.iter().chain(&self.doc).chain(&self.tail);
        let mut last_end = 0;
        for q in all {
            if std::ptr::eq(q, p) {
                return last_end;
            }
            if let Piece::Lit(r) = q {
                last_end = r.end;
            }
        }
        last_end
    }

    /// Fill with two sample documents and parse as JSON (`ndjson`: each line).
    pub fn check_json(&self, ndjson: bool) -> Result<(), BodyError> {
        let (sample, map) = self.sample();
        let to_template = |off: usize| {
            let k = map.partition_point(|&(s, _, _)| s <= off).max(1) - 1;
            let t_off = match map.get(k) {
                Some(&(s, t, true)) => t + (off - s),
                Some(&(_, t, false)) => t,
                None => 0,
            };
            let (line, column) = line_col(&self.text, t_off.min(self.text.len()));
            (line, column)
        };
        let fail = |off: usize, e: serde_json::Error| {
            let (line, column) = to_template(off);
            let why = e.to_string();
            let why = why.split(" at line ").next().unwrap_or(&why).to_string();
            BodyError::At {
                line,
                column,
                what: format!(
                    "not valid {} once filled: {why}",
                    if ndjson { "NDJSON" } else { "JSON" }
                ),
            }
        };
        if ndjson {
            let mut start = 0;
            for line in sample.split(|&b| b == b'\n') {
                if !line.iter().all(u8::is_ascii_whitespace) {
                    if let Err(e) = serde_json::from_slice::<serde_json::Value>(line) {
                        return Err(fail(start + offset_of(line, e.line(), e.column()), e));
                    }
                }
                start += line.len() + 1;
            }
            Ok(())
        } else {
            serde_json::from_slice::<serde_json::Value>(&sample)
                .map(|_| ())
                .map_err(|e| fail(offset_of(&sample, e.line(), e.column()), e))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn filled(t: &BodyTemplate, n: u64) -> String {
        let mut rng = SplitMix64::new(1);
        let mut f = Fill {
            seq: 0,
            writer: 3,
            now_ms: 5,
            rng: &mut rng,
        };
        let mut out = Vec::new();
        t.head(&mut out, &mut f, n);
        for i in 0..n {
            f.seq = i;
            t.doc(&mut out, &mut f, format!("k{i}").as_bytes(), i == 0);
        }
        t.tail(&mut out, &mut f, n);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn the_docs_part_repeats_with_its_separator() {
        let t = BodyTemplate::parse(
            r#"{"n":{{batch}},"values":[{{#docs ","}}{"_key":"{{id}}","w":{{writer}},"s":{{seq}}}{{/docs}}]}"#,
        )
        .unwrap();
        assert!(t.uses_id());
        assert_eq!(
            filled(&t, 2),
            r#"{"n":2,"values":[{"_key":"k0","w":3,"s":0},{"_key":"k1","w":3,"s":1}]}"#
        );
        t.check_json(false).unwrap();
        let nd =
            BodyTemplate::parse("{{#docs}}{\"index\":{}}\n{\"s\":{{seq}}}\n{{/docs}}").unwrap();
        assert!(!nd.uses_id());
        assert_eq!(
            filled(&nd, 2),
            "{\"index\":{}}\n{\"s\":0}\n{\"index\":{}}\n{\"s\":1}\n"
        );
        nd.check_json(true).unwrap();
        let lines = BodyTemplate::parse("{{#docs \"\\n\"}}{{seq}}{{/docs}}").unwrap();
        assert_eq!(filled(&lines, 3), "0\n1\n2");
    }

    #[test]
    fn broken_templates_are_refused_with_their_position() {
        let e = |s: &str| BodyTemplate::parse(s).unwrap_err().to_string();
        assert!(e("[1,2]").starts_with("no {{#docs}}"), "{}", e("[1,2]"));
        assert_eq!(
            e("[{{#docs}}1"),
            "line 1, column 2: {{#docs}} is never closed with {{/docs}}"
        );
        assert!(
            e("[{{#docs}}{{#docs}}{{/docs}}]").starts_with("line 1, column 11: a second {{#docs}}")
        );
        assert!(e("[{{/docs}}]").starts_with("line 1, column 2: {{/docs}} without"));
        assert!(e("[{{id}}{{#docs}}1{{/docs}}]").contains("{{id}} belongs inside"));
        assert!(e("[{{seq}}{{#docs}}1{{/docs}}]").contains("put it inside"));
        assert!(e("[{{#docs}}{{nope}}{{/docs}}]").contains("unknown placeholder {{nope}}"));
        assert!(e("[{{#docs ;}}1{{/docs}}]").contains("JSON string"));
        assert!(e("[{{#docs}}1{{/docs").contains("never closed with }}"));
        // Two documents without a separator are not JSON: the position is in the template.
        let t = BodyTemplate::parse("[\n{{#docs}}{\"s\":{{seq}}}{{/docs}}]").unwrap();
        let err = t.check_json(false).unwrap_err().to_string();
        assert!(err.starts_with("line 2, column "), "{err}");
        assert!(err.contains("not valid JSON once filled"), "{err}");
    }
}
