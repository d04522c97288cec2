//! A command's answer, folded packet by packet: an OK (rows affected), an ERR (its
//! code, SQLSTATE and message), or result sets — column definitions, rows (text rows
//! for COM_QUERY, binary rows for COM_STMT_EXECUTE), an EOF whose status says whether
//! another result follows (several statements in one COM_QUERY). Rows are counted;
//! the first row's values are kept as text (for `\gset`-like use) in buffers that are
//! reused, so nothing is built per row. COM_STMT_PREPARE's answer gives the statement
//! id and its counts. The login negotiates no CLIENT_DEPRECATE_EOF, so result sets end
//! with EOF packets on every server.

use std::fmt::Write as _;
use std::ops::Range;

use super::errcode::MyErrorKind;
use super::packet::{lenenc_int, lenenc_str, ProtocolError};

/// SERVER_MORE_RESULTS_EXISTS in an OK's or EOF's status flags.
const MORE_RESULTS: u16 = 0x0008;
/// UNSIGNED_FLAG in a column definition's flags.
const UNSIGNED: u16 = 0x20;

/// An ERR packet, whole (used by the login and the blocking connection; the load
/// path reads `Answer`'s fields, which reuse their buffers).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerError {
    pub code: u16,
    pub sqlstate: [u8; 5],
    pub message: String,
}

impl ServerError {
    /// Parses an ERR packet (a server's very first packet may lack the SQLSTATE).
    pub fn parse(p: &[u8]) -> Result<ServerError, ProtocolError> {
        let mut e = ServerError {
            code: 0,
            sqlstate: *b"HY000",
            message: String::new(),
        };
        parse_err(p, &mut e.code, &mut e.sqlstate, &mut e.message)?;
        Ok(e)
    }

    pub fn kind(&self) -> MyErrorKind {
        MyErrorKind::of(self.code, &self.sqlstate)
    }
}

impl std::fmt::Display for ServerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "ERROR {} ({}): {}",
            self.code,
            String::from_utf8_lossy(&self.sqlstate),
            self.message
        )
    }
}

fn parse_err(
    p: &[u8],
    code: &mut u16,
    sqlstate: &mut [u8; 5],
    message: &mut String,
) -> Result<(), ProtocolError> {
    let b = p.get(1..3).ok_or(ProtocolError::Malformed("ERR packet"))?;
    *code = u16::from_le_bytes([b[0], b[1]]);
    let mut rest = &p[3..];
    *sqlstate = *b"HY000";
    if rest.first() == Some(&b'#') && rest.len() >= 6 {
        sqlstate.copy_from_slice(&rest[1..6]);
        rest = &rest[6..];
    }
    message.clear();
    message.push_str(&String::from_utf8_lossy(rest));
    Ok(())
}

/// What the command was, so its answer is read right.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// COM_QUERY: text rows.
    Text,
    /// COM_STMT_EXECUTE: binary rows.
    Binary,
    /// COM_STMT_PREPARE: the statement's id and its definitions.
    Prepare,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Head,
    /// Column definitions still to come, then an EOF.
    Columns(u64),
    Rows,
    /// PREPARE_OK's definitions (and their EOFs) still to come.
    Definitions(u32),
}

/// Where a command's exchange stands after a packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    More,
    /// The answer is whole: the connection is ready for the next command.
    Done,
}

/// One command's answer, reset and refilled for each; its buffers are reused.
#[derive(Debug)]
pub struct Answer {
    mode: State,
    kind: Mode,
    seq: u8,
    /// Rows seen, across the command's result sets.
    pub rows: u64,
    /// Rows affected, summed over its OKs.
    pub affected: u64,
    /// Results completed (an OK or a result set's final EOF each).
    pub results: u32,
    /// The ERR's code (0: none).
    pub code: u16,
    pub sqlstate: [u8; 5],
    /// The ERR's message (valid while `code` is set).
    pub message: String,
    /// The last OK's or EOF's status flags (SERVER_STATUS_IN_TRANS is 1).
    pub status: u16,
    /// COM_STMT_PREPARE's statement id and counts.
    pub stmt_id: u32,
    pub params: u16,
    pub columns: u16,
    /// The current result set's columns: (type, unsigned) for binary rows.
    types: Vec<(u8, bool)>,
    first_row: Vec<u8>,
    first_cols: Vec<Option<Range<usize>>>,
    /// The first result set's column names (for `\gset`), and each one's range.
    names: Vec<u8>,
    name_at: Vec<Range<usize>>,
}

impl Default for Answer {
    fn default() -> Self {
        Answer {
            mode: State::Head,
            kind: Mode::Text,
            seq: 1,
            rows: 0,
            affected: 0,
            results: 0,
            code: 0,
            sqlstate: *b"00000",
            message: String::new(),
            status: 0,
            stmt_id: 0,
            params: 0,
            columns: 0,
            types: Vec::new(),
            first_row: Vec::new(),
            first_cols: Vec::new(),
            names: Vec::new(),
            name_at: Vec::new(),
        }
    }
}

impl Answer {
    /// Ready for the answer to the next command, sent as `kind` (keeps capacity).
    pub fn reset(&mut self, kind: Mode) {
        let (types, first_row, first_cols, mut message) = (
            std::mem::take(&mut self.types),
            std::mem::take(&mut self.first_row),
            std::mem::take(&mut self.first_cols),
            std::mem::take(&mut self.message),
        );
        let (names, name_at) = (
            std::mem::take(&mut self.names),
            std::mem::take(&mut self.name_at),
        );
        message.clear();
        *self = Answer {
            kind,
            types,
            first_row,
            first_cols,
            message,
            names,
            name_at,
            ..Answer::default()
        };
        self.types.clear();
        self.first_row.clear();
        self.first_cols.clear();
        self.names.clear();
        self.name_at.clear();
    }

    /// Whether the next packet may be a row of a result set (the blocking admin
    /// connection keeps every row; the load path counts them).
    pub fn in_rows(&self) -> bool {
        self.mode == State::Rows
    }

    /// The error's kind, if the command failed.
    pub fn error_kind(&self) -> Option<MyErrorKind> {
        (self.code != 0).then(|| MyErrorKind::of(self.code, &self.sqlstate))
    }

    /// The first row's values as text (`None` for NULL), into `out` (cleared first).
    pub fn first_row<'a>(&'a self, out: &mut Vec<Option<&'a [u8]>>) {
        out.clear();
        out.extend(
            self.first_cols
                .iter()
                .map(|c| c.clone().map(|r| &self.first_row[r])),
        );
    }

    /// The first result set's column names, in the row's order, into `out`.
    pub fn columns<'a>(&'a self, out: &mut Vec<&'a [u8]>) {
        out.clear();
        out.extend(self.name_at.iter().map(|r| &self.names[r.clone()]));
    }

    /// Folds the server's next packet (sequence id `seq`) into the answer.
    pub fn feed(&mut self, seq: u8, p: &[u8]) -> Result<Step, ProtocolError> {
        if seq != self.seq {
            return Err(ProtocolError::Sequence(self.seq, seq));
        }
        self.seq = seq.wrapping_add(1);
        let is_eof = p.first() == Some(&0xfe) && p.len() < 9;
        if p.first() == Some(&0xff) {
            // An ERR ends the command, even mid-rows.
            parse_err(p, &mut self.code, &mut self.sqlstate, &mut self.message)?;
            return Ok(Step::Done);
        }
        match self.mode {
            State::Head => self.head(p),
            State::Columns(0) if is_eof => {
                self.mode = State::Rows;
                Ok(Step::More)
            }
            State::Columns(0) => Err(ProtocolError::Malformed("result set (no EOF)")),
            State::Columns(_) if is_eof => Err(ProtocolError::Malformed("result set (EOF early)")),
            State::Columns(n) => {
                if self.kind == Mode::Binary {
                    self.types.push(column_type(p)?);
                }
                if self.results == 0 {
                    self.keep_name(p)?;
                }
                self.mode = State::Columns(n - 1);
                Ok(Step::More)
            }
            State::Rows if is_eof => {
                let status = p.get(3..5).map_or(0, |s| u16::from_le_bytes([s[0], s[1]]));
                Ok(self.result_done(status))
            }
            State::Rows => {
                if self.rows == 0 && self.results == 0 {
                    match self.kind {
                        Mode::Binary => self.keep_binary_row(p)?,
                        _ => self.keep_text_row(p)?,
                    }
                }
                self.rows += 1;
                Ok(Step::More)
            }
            State::Definitions(1) => Ok(Step::Done),
            State::Definitions(n) => {
                self.mode = State::Definitions(n - 1);
                Ok(Step::More)
            }
        }
    }

    fn head(&mut self, p: &[u8]) -> Result<Step, ProtocolError> {
        match (p.first(), self.kind) {
            (Some(0x00), Mode::Prepare) => {
                let b = p.get(1..12).ok_or(ProtocolError::Malformed("PREPARE_OK"))?;
                self.stmt_id = u32::from_le_bytes(b[..4].try_into().unwrap());
                self.columns = u16::from_le_bytes([b[4], b[5]]);
                self.params = u16::from_le_bytes([b[6], b[7]]);
                let defs = |n: u16| if n > 0 { n as u32 + 1 } else { 0 };
                let left = defs(self.columns) + defs(self.params);
                if left == 0 {
                    return Ok(Step::Done);
                }
                self.mode = State::Definitions(left);
                Ok(Step::More)
            }
            (Some(0x00), _) => {
                let (affected, rest) = lenenc_int(&p[1..])?;
                let (_, rest) = lenenc_int(rest)?;
                let status = rest
                    .get(..2)
                    .map_or(0, |s| u16::from_le_bytes([s[0], s[1]]));
                self.affected += affected;
                Ok(self.result_done(status))
            }
            (Some(0xfb), _) => Err(ProtocolError::Unexpected(0xfb)),
            (Some(_), Mode::Prepare) => Err(ProtocolError::Unexpected(p[0])),
            (Some(_), _) => {
                let (n, _) = lenenc_int(p)?;
                if n == 0 || n > 4096 {
                    return Err(ProtocolError::Malformed("column count"));
                }
                self.types.clear();
                self.mode = State::Columns(n);
                Ok(Step::More)
            }
            (None, _) => Err(ProtocolError::Malformed("empty packet")),
        }
    }

    /// A column definition's name (its fifth string, after catalog, schema and the
    /// two table names).
    fn keep_name(&mut self, p: &[u8]) -> Result<(), ProtocolError> {
        let mut rest = p;
        for _ in 0..4 {
            rest = lenenc_str(rest)?.1;
        }
        let name = lenenc_str(rest)?.0;
        let at = self.names.len();
        self.names.extend_from_slice(name);
        self.name_at.push(at..self.names.len());
        Ok(())
    }

    fn result_done(&mut self, status: u16) -> Step {
        self.results += 1;
        self.status = status;
        if status & MORE_RESULTS != 0 {
            self.mode = State::Head;
            Step::More
        } else {
            Step::Done
        }
    }

    /// A text row: each value a length-encoded string, or 0xfb for NULL.
    fn keep_text_row(&mut self, p: &[u8]) -> Result<(), ProtocolError> {
        self.first_row.clear();
        self.first_row.extend_from_slice(p);
        self.first_cols.clear();
        let mut rest = p;
        while !rest.is_empty() {
            if rest[0] == 0xfb {
                self.first_cols.push(None);
                rest = &rest[1..];
                continue;
            }
            let (v, tail) = lenenc_str(rest)?;
            let at = p.len() - rest.len() + (rest.len() - tail.len() - v.len());
            self.first_cols.push(Some(at..at + v.len()));
            rest = tail;
        }
        Ok(())
    }

    /// A binary row: a 0x00 header, the NULL bitmap (offset 2), then each non-NULL
    /// value in its column type's binary form, written out as text.
    fn keep_binary_row(&mut self, p: &[u8]) -> Result<(), ProtocolError> {
        let bad = ProtocolError::Malformed("binary row");
        let n = self.types.len();
        let bitmap = p.get(1..1 + (n + 9) / 8).ok_or(bad.clone())?;
        let mut rest = &p[1 + bitmap.len()..];
        self.first_row.clear();
        self.first_cols.clear();
        for (i, &(ty, unsigned)) in self.types.iter().enumerate() {
            let bit = i + 2;
            if bitmap[bit / 8] & (1 << (bit % 8)) != 0 {
                self.first_cols.push(None);
                continue;
            }
            let start = self.first_row.len();
            rest = binary_value(ty, unsigned, rest, &mut self.first_row)?;
            self.first_cols.push(Some(start..self.first_row.len()));
        }
        Ok(())
    }
}

/// A text row's values, owned (for the admin connection, not the load path); a
/// packet that is an EOF or an ERR is no row: `None`.
pub fn text_row(p: &[u8]) -> Result<Option<Vec<Option<String>>>, ProtocolError> {
    if p.first() == Some(&0xff) || (p.first() == Some(&0xfe) && p.len() < 9) {
        return Ok(None);
    }
    let mut out = Vec::new();
    let mut rest = p;
    while !rest.is_empty() {
        if rest[0] == 0xfb {
            out.push(None);
            rest = &rest[1..];
            continue;
        }
        let (v, tail) = lenenc_str(rest)?;
        out.push(Some(String::from_utf8_lossy(v).into_owned()));
        rest = tail;
    }
    Ok(Some(out))
}

/// A column definition's type and signedness.
fn column_type(p: &[u8]) -> Result<(u8, bool), ProtocolError> {
    let mut rest = p;
    for _ in 0..6 {
        rest = lenenc_str(rest)?.1;
    }
    // 0x0c, charset (2), length (4), type, flags (2), decimals, filler (2).
    let fixed = rest
        .get(..10)
        .ok_or(ProtocolError::Malformed("column definition"))?;
    let flags = u16::from_le_bytes([fixed[8], fixed[9]]);
    Ok((fixed[7], flags & UNSIGNED != 0))
}

/// One binary value of type `ty` from the front of `b`, as text onto `out`; the rest.
fn binary_value<'a>(
    ty: u8,
    unsigned: bool,
    b: &'a [u8],
    out: &mut Vec<u8>,
) -> Result<&'a [u8], ProtocolError> {
    let bad = ProtocolError::Malformed("binary value");
    let fixed = |n: usize| b.get(..n).ok_or(bad.clone());
    let mut text = |args: std::fmt::Arguments| {
        // Through a small stack buffer: no allocation once `out` is warm.
        struct W<'o>(&'o mut Vec<u8>);
        impl std::fmt::Write for W<'_> {
            fn write_str(&mut self, s: &str) -> std::fmt::Result {
                self.0.extend_from_slice(s.as_bytes());
                Ok(())
            }
        }
        let _ = W(out).write_fmt(args);
    };
    let int = |v: &[u8]| {
        let mut x = [0u8; 8];
        x[..v.len()].copy_from_slice(v);
        let raw = u64::from_le_bytes(x);
        let shift = 64 - 8 * v.len() as u32;
        (raw, ((raw << shift) as i64) >> shift)
    };
    let width = match ty {
        0x01 => 1,
        0x02 | 0x0d => 2,
        0x03 | 0x09 => 4,
        0x08 => 8,
        _ => 0,
    };
    if width > 0 {
        let (u, i) = int(fixed(width)?);
        if unsigned {
            text(format_args!("{u}"));
        } else {
            text(format_args!("{i}"));
        }
        return Ok(&b[width..]);
    }
    match ty {
        0x04 => {
            let v = f32::from_le_bytes(fixed(4)?.try_into().unwrap());
            text(format_args!("{v}"));
            Ok(&b[4..])
        }
        0x05 => {
            let v = f64::from_le_bytes(fixed(8)?.try_into().unwrap());
            text(format_args!("{v}"));
            Ok(&b[8..])
        }
        0x06 => Ok(b),
        // DATE, DATETIME, TIMESTAMP: a length, then year (2), month, day, hour,
        // minute, second, microseconds (4), as far as the length goes.
        0x07 | 0x0a | 0x0c => {
            let n = *b.first().ok_or(bad.clone())? as usize;
            let v = b.get(1..1 + n).ok_or(bad.clone())?;
            let g = |i: usize| v.get(i).copied().unwrap_or(0);
            let year = if n >= 2 {
                u16::from_le_bytes([v[0], v[1]])
            } else {
                0
            };
            text(format_args!("{year:04}-{:02}-{:02}", g(2), g(3)));
            if ty != 0x0a {
                text(format_args!(" {:02}:{:02}:{:02}", g(4), g(5), g(6)));
                if n >= 11 {
                    let us = u32::from_le_bytes([v[7], v[8], v[9], v[10]]);
                    text(format_args!(".{us:06}"));
                }
            }
            Ok(&b[1 + n..])
        }
        // TIME: a length, then negative, days (4), hour, minute, second, microseconds.
        0x0b => {
            let n = *b.first().ok_or(bad.clone())? as usize;
            let v = b.get(1..1 + n).ok_or(bad.clone())?;
            let g = |i: usize| v.get(i).copied().unwrap_or(0) as u32;
            let days = if n >= 5 {
                u32::from_le_bytes([v[1], v[2], v[3], v[4]])
            } else {
                0
            };
            let sign = if g(0) == 1 { "-" } else { "" };
            text(format_args!(
                "{sign}{:02}:{:02}:{:02}",
                days * 24 + g(5),
                g(6),
                g(7)
            ));
            if n >= 12 {
                let us = u32::from_le_bytes([v[8], v[9], v[10], v[11]]);
                text(format_args!(".{us:06}"));
            }
            Ok(&b[1 + n..])
        }
        // DECIMAL, VARCHAR, BIT, JSON, ENUM, SET, BLOBs, strings, GEOMETRY.
        _ => {
            let (v, rest) = lenenc_str(b)?;
            out.extend_from_slice(v);
            Ok(rest)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn coldef(name: &str, ty: u8, flags: u16) -> Vec<u8> {
        let mut p = Vec::new();
        for s in ["def", "db", "t", "t", name, name] {
            p.push(s.len() as u8);
            p.extend_from_slice(s.as_bytes());
        }
        p.push(0x0c);
        p.extend_from_slice(&[45, 0, 11, 0, 0, 0, ty]);
        p.extend_from_slice(&flags.to_le_bytes());
        p.extend_from_slice(&[0, 0, 0]);
        p
    }

    const EOF_LAST: &[u8] = b"\xfe\0\0\x02\0";
    const EOF_MORE: &[u8] = b"\xfe\0\0\x0a\0";

    fn fold(a: &mut Answer, mode: Mode, packets: &[Vec<u8>]) -> Step {
        a.reset(mode);
        let mut step = Step::More;
        for (i, p) in packets.iter().enumerate() {
            assert_eq!(step, Step::More, "done before packet {i}");
            step = a.feed(i as u8 + 1, p).unwrap();
        }
        step
    }

    fn row(a: &Answer) -> Vec<Option<&[u8]>> {
        let mut r = Vec::new();
        a.first_row(&mut r);
        r
    }

    #[test]
    fn a_text_result_set_counts_rows_keeps_the_first_and_follows_more_results() {
        let mut a = Answer::default();
        let set = vec![
            b"\x02".to_vec(),
            coldef("a", 3, 0),
            coldef("b", 0xfd, 0),
            EOF_LAST.to_vec(),
            b"\x0242\xfb".to_vec(),
            b"\x017\x01x".to_vec(),
            EOF_MORE.to_vec(),
            b"\x00\x03\x00\x02\0\0\0".to_vec(),
        ];
        // The EOF after the columns is not the set's end; the one after the rows says
        // another result follows (the OK).
        assert_eq!(fold(&mut a, Mode::Text, &set), Step::Done);
        assert_eq!((a.rows, a.results, a.affected), (2, 2, 3));
        assert_eq!(row(&a), vec![Some(&b"42"[..]), None]);
        let mut names = Vec::new();
        a.columns(&mut names);
        assert_eq!(names, vec![&b"a"[..], &b"b"[..]], "for \\gset");
        assert_eq!(a.error_kind(), None);
        // Reused: a second answer starts clean, with no new allocation once warm.
        let cap = a.first_row.capacity();
        assert_eq!(
            fold(&mut a, Mode::Text, &[b"\x00\0\0\x02\0\0\0".to_vec()]),
            Step::Done
        );
        assert_eq!((a.rows, a.results), (0, 1));
        assert!(row(&a).is_empty());
        assert_eq!(a.first_row.capacity(), cap);
    }

    #[test]
    fn an_err_mid_rows_ends_the_answer_with_its_code_and_kind() {
        let mut a = Answer::default();
        let packets = vec![
            b"\x01".to_vec(),
            coldef("a", 3, 0),
            EOF_LAST.to_vec(),
            b"\x011".to_vec(),
            b"\xff\xbd\x04#40001Deadlock found when trying to get lock".to_vec(),
        ];
        assert_eq!(fold(&mut a, Mode::Text, &packets), Step::Done);
        assert_eq!((a.rows, a.code), (1, 1213));
        assert_eq!(a.error_kind(), Some(MyErrorKind::Deadlock));
        assert!(a.message.starts_with("Deadlock found"));
        // Out of sequence, a local-infile request, a missing EOF: refused.
        a.reset(Mode::Text);
        assert_eq!(a.feed(5, b"\x00"), Err(ProtocolError::Sequence(1, 5)));
        a.reset(Mode::Text);
        assert_eq!(a.feed(1, b"\xfbfile"), Err(ProtocolError::Unexpected(0xfb)));
        a.reset(Mode::Text);
        a.feed(1, b"\x01").unwrap();
        a.feed(2, &coldef("a", 3, 0)).unwrap();
        assert!(a.feed(3, b"\x011").is_err());
        a.reset(Mode::Text);
        a.feed(1, b"\x02").unwrap();
        a.feed(2, &coldef("a", 3, 0)).unwrap();
        assert!(
            a.feed(3, EOF_LAST).is_err(),
            "an EOF before the last column"
        );
    }

    #[test]
    fn prepare_ok_and_a_binary_row_are_read_as_text() {
        let mut a = Answer::default();
        let prep = vec![
            b"\x00\x07\0\0\0\x04\0\x01\0\0\0\0".to_vec(),
            coldef("?", 0xfd, 0),
            EOF_LAST.to_vec(),
            coldef("a", 3, 0),
            coldef("b", 8, UNSIGNED),
            coldef("c", 0x0c, 0),
            coldef("d", 0xfd, 0),
            EOF_LAST.to_vec(),
        ];
        assert_eq!(fold(&mut a, Mode::Prepare, &prep), Step::Done);
        assert_eq!((a.stmt_id, a.columns, a.params), (7, 4, 1));
        let mut bin = b"\x00\x20".to_vec(); // column d (bit 3 + 2) NULL
        bin.extend_from_slice(&(-5i32).to_le_bytes());
        bin.extend_from_slice(&u64::MAX.to_le_bytes());
        bin.extend_from_slice(&[7, 0xea, 0x07, 11, 29, 1, 2, 3]);
        let exec = vec![
            b"\x04".to_vec(),
            coldef("a", 3, 0),
            coldef("b", 8, UNSIGNED),
            coldef("c", 0x0c, 0),
            coldef("d", 0xfd, 0),
            EOF_LAST.to_vec(),
            bin,
            EOF_LAST.to_vec(),
        ];
        assert_eq!(fold(&mut a, Mode::Binary, &exec), Step::Done);
        assert_eq!(a.rows, 1);
        assert_eq!(
            row(&a),
            vec![
                Some(&b"-5"[..]),
                Some(&b"18446744073709551615"[..]),
                Some(&b"2026-11-29 01:02:03"[..]),
                None
            ]
        );
    }
}
