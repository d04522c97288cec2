//! What the server sends, framed from the connection's read buffer: `next_message`
//! cuts one message (tag, body) or says more bytes are needed, refusing a length the
//! protocol cannot mean; `Answer` folds a statement's messages up to ReadyForQuery
//! into its outcome — rows counted, the first row's values kept (for `\gset`) in
//! buffers it reuses, CommandComplete, an ErrorResponse's SQLSTATE and message, the
//! transaction status. Nothing is built per row.

use std::ops::Range;

use super::sqlstate::SqlErrorKind;

/// The largest message accepted: PostgreSQL's own limit on an allocation (1 GiB).
/// A larger length is a broken or hostile server, not a big row.
pub const MAX_MESSAGE: usize = 1 << 30;

/// Why the server's bytes cannot be read as its protocol.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProtocolError {
    /// A message length under 4 or over `MAX_MESSAGE`.
    BadLength { tag: u8, len: u32 },
    /// A message this point of the exchange cannot have (its tag).
    Unexpected(u8),
    /// A message whose body does not parse (its tag).
    Malformed(u8),
}

impl std::fmt::Display for ProtocolError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let show = |t: u8| {
            if t.is_ascii_graphic() {
                (t as char).to_string()
            } else {
                format!("0x{t:02x}")
            }
        };
        match self {
            ProtocolError::BadLength { tag, len } => {
                write!(
                    f,
                    "a message '{}' of length {len}: not PostgreSQL's protocol",
                    show(*tag)
                )
            }
            ProtocolError::Unexpected(t) => write!(f, "an unexpected message '{}'", show(*t)),
            ProtocolError::Malformed(t) => write!(f, "a malformed message '{}'", show(*t)),
        }
    }
}

/// Every message type a PostgreSQL 3.0 backend sends.
const BACKEND_TAGS: &[u8] = b"RKSZENTDCI123nstAGHWdcVv";

/// A message cut from the read buffer: its tag, its body, and the bytes it took.
pub type Message<'a> = (u8, &'a [u8], usize);

/// One message cut from `buf`; `None` while the message is incomplete.
pub fn next_message(buf: &[u8]) -> Result<Option<Message<'_>>, ProtocolError> {
    if buf.len() < 5 {
        return Ok(None);
    }
    let tag = buf[0];
    // A tag the server never sends is garbage: refused at once, not after waiting
    // for the length its next four bytes happen to spell.
    if !BACKEND_TAGS.contains(&tag) {
        return Err(ProtocolError::Unexpected(tag));
    }
    let len = u32::from_be_bytes([buf[1], buf[2], buf[3], buf[4]]);
    if len < 4 || len as usize > MAX_MESSAGE {
        return Err(ProtocolError::BadLength { tag, len });
    }
    let total = 1 + len as usize;
    if buf.len() < total {
        return Ok(None);
    }
    Ok(Some((tag, &buf[5..total], total)))
}

/// An ErrorResponse's or NoticeResponse's field (`C` SQLSTATE, `M` message…).
pub fn error_field(body: &[u8], field: u8) -> Option<&[u8]> {
    let mut rest = body;
    while let Some((&code, tail)) = rest.split_first() {
        if code == 0 {
            return None;
        }
        let end = tail.iter().position(|&b| b == 0)?;
        if code == field {
            return Some(&tail[..end]);
        }
        rest = &tail[end + 1..];
    }
    None
}

/// Where a statement's exchange stands after a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// More messages to come.
    More,
    /// ReadyForQuery: the answer is whole; the transaction status (`I` idle, `T` in a
    /// transaction block, `E` in a failed one).
    Ready(u8),
    /// CopyInResponse: the server waits for COPY's data.
    CopyIn,
}

/// A CommandComplete tag's row count: its last word when that is a number
/// (`DELETE 0`, `INSERT 0 1`, `SELECT 5`), else 0 (`BEGIN`, `COMMIT`).
fn tag_count(body: &[u8]) -> u64 {
    let tag = body.strip_suffix(b"\0").unwrap_or(body);
    let last = tag.rsplit(|&c| c == b' ').next().unwrap_or(b"");
    if last.is_empty() || !last.iter().all(u8::is_ascii_digit) || tag.len() == last.len() {
        return 0;
    }
    std::str::from_utf8(last)
        .ok()
        .and_then(|d| d.parse().ok())
        .unwrap_or(0)
}

/// One statement's answer, reset and refilled for each; its buffers are reused.
#[derive(Debug, Default)]
pub struct Answer {
    /// DataRows seen.
    pub rows: u64,
    /// CommandCompletes seen (a simple Query of several statements has several).
    pub completes: u32,
    /// Each CommandComplete tag's count, summed: the rows a write changed (`UPDATE 3`,
    /// `INSERT 0 1`), a SELECT's rows; 0 for a tag without one (`BEGIN`).
    pub affected: u64,
    /// A ParseComplete came: the named statement exists on the server from now on,
    /// whatever became of the rest (a Parse outlives its transaction's rollback).
    pub parsed: bool,
    /// The first ErrorResponse's SQLSTATE.
    pub sqlstate: Option<[u8; 5]>,
    /// The first ErrorResponse's message (valid while `sqlstate` is set).
    pub message: String,
    /// Each result's last row (for `\gset`/`\aset`): the DataRows' bodies, and
    /// each value as a range into them (`None`: NULL), results in order.
    first_row: Vec<u8>,
    first_cols: Vec<Option<Range<usize>>>,
    /// The column names of the results kept (a RowDescription each, a result
    /// without rows dropped), as ranges into `names`: aligned with `first_cols`.
    names: Vec<u8>,
    name_ranges: Vec<Range<usize>>,
    /// The result being read: where its columns and its row's bytes start, and
    /// its rows so far.
    result_at: usize,
    result_bytes_at: usize,
    result_rows: u64,
    /// The last result completed: its rows and where its columns start.
    last_rows: u64,
    last_at: usize,
}

impl Answer {
    /// Ready for the next statement (keeps the buffers' capacity).
    pub fn reset(&mut self) {
        self.rows = 0;
        self.completes = 0;
        self.affected = 0;
        self.parsed = false;
        self.sqlstate = None;
        self.message.clear();
        self.first_row.clear();
        self.first_cols.clear();
        self.names.clear();
        self.name_ranges.clear();
        (self.result_at, self.result_bytes_at, self.result_rows) = (0, 0, 0);
        (self.last_rows, self.last_at) = (0, 0);
    }

    /// Whether the statement failed, and its kind.
    pub fn error_kind(&self) -> Option<SqlErrorKind> {
        self.sqlstate.map(|s| SqlErrorKind::of(&s))
    }

    /// The values `\aset` stores: each result's last row, results in order, as
    /// text (`None` for NULL), into `out` (cleared first). A query of one result
    /// that `\gset` accepts has one row: this is it.
    pub fn first_row<'a>(&'a self, out: &mut Vec<Option<&'a [u8]>>) {
        out.clear();
        out.extend(
            self.first_cols
                .iter()
                .map(|c| c.clone().map(|r| &self.first_row[r])),
        );
    }

    /// The names of those values' columns, into `out` (cleared first).
    pub fn columns<'a>(&'a self, out: &mut Vec<&'a [u8]>) {
        out.clear();
        out.extend(self.name_ranges.iter().map(|r| &self.names[r.clone()]));
    }

    /// The last result's rows and where its columns start in `columns`: a
    /// compound query's (`\;`) `\gset` reads the last one only, as pgbench's.
    pub fn last_result(&self) -> (u64, usize) {
        (self.last_rows, self.last_at)
    }

    /// A result's RowDescription: its columns follow the results kept. A second
    /// one before its CommandComplete (a prepared statement's, then its portal's)
    /// describes the same result again and replaces the first.
    fn begin_result(&mut self, body: &[u8]) {
        self.name_ranges.truncate(self.result_at);
        self.first_cols.truncate(self.result_at);
        self.first_row.truncate(self.result_bytes_at);
        self.result_rows = 0;
        self.keep_names(body);
    }

    /// A result is complete (CommandComplete): kept if it had rows, and the last.
    fn end_result(&mut self) {
        if self.result_rows == 0 {
            self.name_ranges.truncate(self.result_at);
        }
        (self.last_rows, self.last_at) = (self.result_rows, self.result_at);
        self.result_at = self.name_ranges.len();
        self.result_bytes_at = self.first_row.len();
        self.result_rows = 0;
    }

    /// A RowDescription's column names (each a C string followed by 18 bytes of
    /// table, type and format); a malformed one keeps the names read before it.
    fn keep_names(&mut self, body: &[u8]) {
        let Some(n) = body.get(..2) else { return };
        let n = u16::from_be_bytes([n[0], n[1]]) as usize;
        let mut at = 2;
        for _ in 0..n {
            let Some(len) = body.get(at..).and_then(|b| b.iter().position(|&c| c == 0)) else {
                return;
            };
            let start = self.names.len();
            self.names.extend_from_slice(&body[at..at + len]);
            self.name_ranges.push(start..self.names.len());
            at += len + 1 + 18;
        }
    }

    /// Folds one backend message into the answer.
    pub fn feed(&mut self, tag: u8, body: &[u8]) -> Result<Step, ProtocolError> {
        match tag {
            b'D' => {
                // pgbench keeps a result's last row: this one replaces the one before.
                self.first_cols.truncate(self.result_at);
                self.first_row.truncate(self.result_bytes_at);
                self.keep_row(body)?;
                self.result_rows += 1;
                self.rows += 1;
            }
            b'T' => self.begin_result(body),
            b'C' => {
                self.completes += 1;
                self.affected += tag_count(body);
                self.end_result();
            }
            b'E' => {
                if self.sqlstate.is_none() {
                    let code = error_field(body, b'C').ok_or(ProtocolError::Malformed(tag))?;
                    let mut s = [b'?'; 5];
                    for (d, c) in s.iter_mut().zip(code) {
                        *d = *c;
                    }
                    self.sqlstate = Some(s);
                    let m = error_field(body, b'M').unwrap_or(b"");
                    self.message.push_str(&String::from_utf8_lossy(m));
                }
            }
            b'Z' => {
                return match body {
                    [s @ (b'I' | b'T' | b'E')] => Ok(Step::Ready(*s)),
                    _ => Err(ProtocolError::Malformed(tag)),
                }
            }
            b'G' => return Ok(Step::CopyIn),
            b'1' => self.parsed = true,
            // BindComplete, NoData, EmptyQueryResponse,
            // PortalSuspended, CloseComplete, notices, parameter changes,
            // notifications, ParameterDescription: nothing a benchmark keeps.
            b'2' | b'n' | b'I' | b's' | b'3' | b'N' | b'S' | b'A' | b't' => {}
            other => return Err(ProtocolError::Unexpected(other)),
        }
        Ok(Step::More)
    }

    /// A DataRow's values as ranges into a copy of its body, after the rows kept
    /// (reused buffers).
    fn keep_row(&mut self, body: &[u8]) -> Result<(), ProtocolError> {
        let bad = ProtocolError::Malformed(b'D');
        let base = self.first_row.len();
        self.first_row.extend_from_slice(body);
        let n = u16::from_be_bytes(body.get(..2).ok_or(bad.clone())?.try_into().unwrap());
        let mut at = 2usize;
        for _ in 0..n {
            let len = body.get(at..at + 4).ok_or(bad.clone())?;
            let len = i32::from_be_bytes(len.try_into().unwrap());
            at += 4;
            if len < 0 {
                self.first_cols.push(None);
                continue;
            }
            let end = at + len as usize;
            if end > body.len() {
                return Err(bad);
            }
            self.first_cols.push(Some(base + at..base + end));
            at = end;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_command_complete_tag_s_count_is_the_rows_a_write_changed() {
        for (tag, n) in [
            (&b"UPDATE 3\0"[..], 3),
            (b"DELETE 0\0", 0),
            (b"INSERT 0 1\0", 1),
            (b"BEGIN\0", 0),
            (b"COMMIT\0", 0),
            (b"SELECT 12\0", 12),
            (b"UPDATE x\0", 0),
            (b"", 0),
        ] {
            assert_eq!(tag_count(tag), n, "{:?}", String::from_utf8_lossy(tag));
        }
        let mut a = Answer::default();
        a.feed(b'C', b"DELETE 0\0").unwrap();
        assert_eq!((a.completes, a.affected), (1, 0));
        a.feed(b'C', b"UPDATE 2\0").unwrap();
        assert_eq!(a.affected, 2);
        a.reset();
        assert_eq!(a.affected, 0);
    }

    fn msg(tag: u8, body: &[u8]) -> Vec<u8> {
        let mut m = vec![tag];
        m.extend_from_slice(&(body.len() as u32 + 4).to_be_bytes());
        m.extend_from_slice(body);
        m
    }

    /// Feeds a byte stream through the framer, `cut` bytes at a time.
    fn answer(stream: &[u8], cut: usize) -> (Answer, Step) {
        let mut a = Answer::default();
        let mut buf = Vec::new();
        let mut step = Step::More;
        for piece in stream.chunks(cut) {
            buf.extend_from_slice(piece);
            while let Some((tag, body, used)) = next_message(&buf).unwrap() {
                step = a.feed(tag, body).unwrap();
                buf.drain(..used);
            }
        }
        assert!(buf.is_empty());
        (a, step)
    }

    #[test]
    fn a_select_s_rows_are_counted_and_its_last_row_kept_at_any_cut() {
        let mut s = msg(b'T', b"\0\x02...");
        s.extend(msg(b'D', b"\0\x02\0\0\0\x0242\xff\xff\xff\xff"));
        s.extend(msg(b'D', b"\0\x02\0\0\0\x017\0\0\0\x01x"));
        s.extend(msg(b'C', b"SELECT 2\0"));
        s.extend(msg(b'Z', b"I"));
        for cut in [1, 3, 7, s.len()] {
            let (a, step) = answer(&s, cut);
            assert_eq!((a.rows, a.completes, step), (2, 1, Step::Ready(b'I')));
            let mut row = Vec::new();
            a.first_row(&mut row);
            // pgbench's \aset keeps a result's last row.
            assert_eq!(row, vec![Some(&b"7"[..]), Some(&b"x"[..])]);
            assert_eq!(a.error_kind(), None);
        }
    }

    #[test]
    fn a_row_description_s_names_are_kept_for_gset() {
        let field = |name: &[u8]| [name, b"\0", &[0u8; 18][..]].concat();
        let mut t = b"\0\x02".to_vec();
        t.extend(field(b"aid"));
        t.extend(field(b"abalance"));
        let mut s = msg(b'T', &t);
        s.extend(msg(b'D', b"\0\x02\0\0\0\x017\0\0\0\x02-5"));
        s.extend(msg(b'C', b"SELECT 1\0"));
        s.extend(msg(b'Z', b"I"));
        let (a, _) = answer(&s, s.len());
        let mut names = Vec::new();
        a.columns(&mut names);
        assert_eq!(names, vec![&b"aid"[..], &b"abalance"[..]]);
    }

    /// Bug: a compound query's (`SELECT 1 AS a \; SELECT 3 AS c \aset`) answer kept
    /// only its first result's first row, so `\aset` never set `c` and `\gset`
    /// failed with "expected one row, got 2"; pgbench stores every result's last
    /// row for `\aset` and the last result's one row for `\gset`. A result
    /// without rows is skipped, and a result described twice (statement, then
    /// portal) is one result.
    #[test]
    fn a_compound_query_keeps_each_result_s_last_row_and_its_names() {
        let field = |name: &[u8]| [name, b"\0", &[0u8; 18][..]].concat();
        let desc = |name: &[u8]| msg(b'T', &[&b"\0\x01"[..], &field(name)].concat());
        let row = |v: &[u8]| msg(b'D', &[&b"\0\x01\0\0\0"[..], &[v.len() as u8], v].concat());
        let mut s = desc(b"a");
        s.extend(row(b"1"));
        s.extend(row(b"2"));
        s.extend(msg(b'C', b"SELECT 2\0"));
        s.extend(desc(b"none"));
        s.extend(msg(b'C', b"SELECT 0\0"));
        s.extend(desc(b"c"));
        s.extend(desc(b"c"));
        s.extend(row(b"3"));
        s.extend(msg(b'C', b"SELECT 1\0"));
        s.extend(msg(b'Z', b"I"));
        let (a, _) = answer(&s, 5);
        let (mut vals, mut names) = (Vec::new(), Vec::new());
        a.first_row(&mut vals);
        a.columns(&mut names);
        assert_eq!(names, vec![&b"a"[..], &b"c"[..]]);
        assert_eq!(vals, vec![Some(&b"2"[..]), Some(&b"3"[..])]);
        assert_eq!((a.rows, a.last_result()), (3, (1, 1)));
        // A write after them: the last result has no row (`\gset` fails on it).
        let mut s2 = s[..s.len() - 6].to_vec();
        s2.extend(msg(b'C', b"UPDATE 4\0"));
        s2.extend(msg(b'Z', b"I"));
        let (a, _) = answer(&s2, 3);
        assert_eq!(a.last_result(), (0, 2));
    }

    #[test]
    fn an_error_response_gives_its_sqlstate_kind_and_message() {
        let mut s = msg(
            b'E',
            b"SERROR\0VERROR\0C40001\0Mcould not serialize access\0\0",
        );
        s.extend(msg(b'Z', b"E"));
        let (a, step) = answer(&s, 4);
        assert_eq!(step, Step::Ready(b'E'));
        assert_eq!(a.error_kind(), Some(SqlErrorKind::Serialization));
        assert_eq!(a.message, "could not serialize access");
    }

    #[test]
    fn a_length_of_2_pow_31_or_under_4_is_refused_not_awaited() {
        let e = next_message(b"D\x80\0\0\0rest").unwrap_err();
        assert_eq!(
            e,
            ProtocolError::BadLength {
                tag: b'D',
                len: 1 << 31
            }
        );
        assert!(next_message(b"Z\0\0\0\x02").is_err());
        let garbage = next_message(b"\0\x01\x02\x03\x04garbage");
        assert_eq!(
            garbage,
            Err(ProtocolError::Unexpected(0)),
            "refused before its 16 MB"
        );
        assert_eq!(
            next_message(b"Z\0\0\0\x05").unwrap(),
            None,
            "incomplete waits"
        );
        let mut a = Answer::default();
        assert_eq!(a.feed(b'K', b""), Err(ProtocolError::Unexpected(b'K')));
        assert_eq!(
            a.feed(b'D', b"\0\x01\0\0\0\x09ab"),
            Err(ProtocolError::Malformed(b'D'))
        );
        assert_eq!(a.feed(b'Z', b"Q"), Err(ProtocolError::Malformed(b'Z')));
    }
}
