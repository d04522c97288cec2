//! The records `stream gen`/`stream send` write and `watch --verify` reads back.
//!
//! A record is exactly `--record-size` bytes, its trailing newline included, so bytes
//! and records measured at the receiver convert exactly. It carries what fits, in this
//! order of preference:
//!
//! | layout | raw form | JSON form |
//! |---|---|---|
//! | time  | `t<sender>-<seq>-<µs>` | `{"s":S,"q":Q,"t":µs}` |
//! | sender| `s<sender>-<seq>`      | `{"s":S,"q":Q}` |
//! | seq   | `q<seq>`               | `{"q":Q}` |
//!
//! Raw numbers are lower-case hex (10 bytes hold 8 digits: 4G sequence numbers), JSON
//! decimal; the send time is µs since the Unix epoch. The rest is padding: raw ` xxx…`,
//! JSON `,"p":"xxx…"` (or spaces before the `}`). A raw record starts with a letter:
//! rsyslog's `imtcp` reads a leading digit as an octet count.
//!
//! The layout is chosen once per run from the widest values the run can produce. In
//! the `seq` layout the senders share one sequence (sender `k` of `K` sends `k, k+K, …`),
//! so loss and duplicates stay exact over the whole stream.

use std::fmt;

/// The widest send time written: 13 hex digits of microseconds reach the year 2112.
const TIME_HEX_DIGITS: usize = 13;
/// The same in decimal (16 digits reach the year 2286).
const TIME_DEC_DIGITS: usize = 16;

/// How records are spelled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// A tag letter, hex fields and padding: the densest.
    Raw,
    /// One JSON object per line (what fluentd, Vector or Loki pipelines carry).
    Json,
}

/// Which fields a record carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Layout {
    /// The sequence only (one sequence shared by the senders).
    Seq,
    /// Sender id and sequence.
    Sender,
    /// Sender id, sequence and send time.
    Time,
}

impl fmt::Display for Layout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Layout::Seq => "sequence only (senders share one sequence)",
            Layout::Sender => "sender and sequence (no send time: no latency)",
            Layout::Time => "sender, sequence and send time",
        })
    }
}

/// A record size that cannot hold even the sequence.
#[derive(Debug, Clone, thiserror::Error, PartialEq, Eq)]
#[error("--record-size {size}: too small for {format} records of this run; the smallest that holds the sequence (up to {max_seq}) is {min}")]
pub struct TooSmall {
    pub size: usize,
    pub min: usize,
    pub max_seq: u64,
    pub format: &'static str,
}

/// One decoded record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Record {
    /// `None` in the `seq` layout.
    pub sender: Option<u32>,
    pub seq: u64,
    /// Send time, µs since the Unix epoch (`time` layout only).
    pub sent_us: Option<u64>,
}

/// Writes the records of one run: the layout fixed, the padding prepared once.
#[derive(Debug, Clone)]
pub struct Encoder {
    format: Format,
    layout: Layout,
    size: usize,
    senders: u64,
    pad: Vec<u8>,
}

fn hex_digits(v: u64) -> usize {
    ((64 - v.leading_zeros() as usize).div_ceil(4)).max(1)
}

fn dec_digits(v: u64) -> usize {
    v.checked_ilog10().map_or(1, |d| d as usize + 1)
}

/// The bytes a record needs before padding (its newline included).
fn needed(format: Format, layout: Layout, max_sender: u64, max_seq: u64) -> usize {
    match (format, layout) {
        // tag, fields with '-' between, newline.
        (Format::Raw, Layout::Seq) => 1 + hex_digits(max_seq) + 1,
        (Format::Raw, Layout::Sender) => 1 + hex_digits(max_sender) + 1 + hex_digits(max_seq) + 1,
        (Format::Raw, Layout::Time) => {
            1 + hex_digits(max_sender) + 1 + hex_digits(max_seq) + 1 + TIME_HEX_DIGITS + 1
        }
        // {"q":Q}\n
        (Format::Json, Layout::Seq) => 7 + dec_digits(max_seq),
        // {"s":S,"q":Q}\n
        (Format::Json, Layout::Sender) => 12 + dec_digits(max_sender) + dec_digits(max_seq),
        // {"s":S,"q":Q,"t":T}\n
        (Format::Json, Layout::Time) => {
            17 + dec_digits(max_sender) + dec_digits(max_seq) + TIME_DEC_DIGITS
        }
    }
}

impl Encoder {
    /// The richest layout that fits `size` bytes for `senders` senders sending up to
    /// `per_sender` records each (`None`: unbounded, planned for 2³² in all, so a
    /// 10-byte record still holds the sequence: 71 minutes at 1M records/s).
    pub fn new(
        format: Format,
        size: usize,
        senders: u64,
        per_sender: Option<u64>,
    ) -> Result<Encoder, TooSmall> {
        let senders = senders.max(1);
        let per = per_sender.unwrap_or((1u64 << 32) / senders).max(1);
        let max_sender = senders - 1;
        for layout in [Layout::Time, Layout::Sender, Layout::Seq] {
            let max_seq = Self::max_seq_of(layout, senders, per);
            if needed(format, layout, max_sender, max_seq) <= size {
                return Ok(Encoder {
                    format,
                    layout,
                    size,
                    senders,
                    pad: vec![b'x'; size],
                });
            }
        }
        let max_seq = Self::max_seq_of(Layout::Seq, senders, per);
        Err(TooSmall {
            size,
            min: needed(format, Layout::Seq, 0, max_seq),
            max_seq,
            format: match format {
                Format::Raw => "raw",
                Format::Json => "JSON",
            },
        })
    }

    fn max_seq_of(layout: Layout, senders: u64, per: u64) -> u64 {
        match layout {
            Layout::Seq => per.saturating_mul(senders) - 1,
            _ => per - 1,
        }
    }

    pub fn layout(&self) -> Layout {
        self.layout
    }

    pub fn size(&self) -> usize {
        self.size
    }

    pub fn format(&self) -> Format {
        self.format
    }

    /// Append the `n`-th record (0-based) of `sender` sent at `now_us`; exactly
    /// [`Encoder::size`] bytes. A value wider than planned (an unbounded run past
    /// 2³² records) gives `false` and appends nothing.
    #[inline]
    pub fn encode(&self, out: &mut Vec<u8>, sender: u64, n: u64, now_us: u64) -> bool {
        let start = out.len();
        let seq = match self.layout {
            Layout::Seq => match n.checked_mul(self.senders) {
                Some(s) => s + sender,
                None => return false,
            },
            _ => n,
        };
        match self.format {
            Format::Raw => {
                match self.layout {
                    Layout::Seq => {
                        out.push(b'q');
                        push_hex(out, seq);
                    }
                    Layout::Sender => {
                        out.push(b's');
                        push_hex(out, sender);
                        out.push(b'-');
                        push_hex(out, seq);
                    }
                    Layout::Time => {
                        out.push(b't');
                        push_hex(out, sender);
                        out.push(b'-');
                        push_hex(out, seq);
                        out.push(b'-');
                        push_hex(out, now_us);
                    }
                }
                let used = out.len() - start;
                if used + 1 > self.size {
                    out.truncate(start);
                    return false;
                }
                let left = self.size - used - 1;
                if left > 0 {
                    out.push(b' ');
                    out.extend_from_slice(&self.pad[..left - 1]);
                }
            }
            Format::Json => {
                out.push(b'{');
                if self.layout != Layout::Seq {
                    out.extend_from_slice(b"\"s\":");
                    push_dec(out, sender);
                    out.push(b',');
                }
                out.extend_from_slice(b"\"q\":");
                push_dec(out, seq);
                if self.layout == Layout::Time {
                    out.extend_from_slice(b",\"t\":");
                    push_dec(out, now_us);
                }
                let used = out.len() - start;
                if used + 2 > self.size {
                    out.truncate(start);
                    return false;
                }
                let left = self.size - used - 2;
                if left >= 7 {
                    out.extend_from_slice(b",\"p\":\"");
                    out.extend_from_slice(&self.pad[..left - 7]);
                    out.push(b'"');
                } else {
                    out.extend_from_slice(&b"      "[..left]);
                }
                out.push(b'}');
            }
        }
        out.push(b'\n');
        debug_assert_eq!(out.len() - start, self.size);
        true
    }
}

#[inline]
fn push_hex(out: &mut Vec<u8>, v: u64) {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let n = hex_digits(v);
    for i in (0..n).rev() {
        out.push(DIGITS[((v >> (i * 4)) & 0xf) as usize]);
    }
}

#[inline]
fn push_dec(out: &mut Vec<u8>, v: u64) {
    let mut buf = [0u8; 20];
    let mut i = buf.len();
    let mut v = v;
    loop {
        i -= 1;
        buf[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    out.extend_from_slice(&buf[i..]);
}

/// Writes `v` in lower-case hex, exactly `width` digits (its own width), at `out[..width]`.
#[inline]
fn put_hex(out: &mut [u8], v: u64, width: usize) {
    let mut digits = [0u8; 16];
    digits[..8].copy_from_slice(&hex8((v >> 32) as u32));
    digits[8..].copy_from_slice(&hex8(v as u32));
    out[..width].copy_from_slice(&digits[16 - width..]);
}

/// The 8 hex digits of `v`, most significant first, without a branch or a table: each
/// nibble spread into a byte of its own, then made ASCII (`'0'+n`, or `'a'+n-10` above 9)
/// all at once. The sender's inner loop: a 10-byte record is mostly hex digits.
#[inline]
fn hex8(v: u32) -> [u8; 8] {
    let x = u64::from(v);
    let x = ((x & 0xFFFF_0000) << 16) | (x & 0xFFFF);
    let x = ((x & 0x0000_FF00_0000_FF00) << 8) | (x & 0x0000_00FF_0000_00FF);
    let x = ((x & 0x00F0_00F0_00F0_00F0) << 4) | (x & 0x000F_000F_000F_000F);
    // 1 in the bytes whose nibble is above 9.
    let above9 = ((x + 0x0606_0606_0606_0606) >> 4) & 0x0101_0101_0101_0101;
    (x + 0x3030_3030_3030_3030 + above9 * 0x27).to_be_bytes()
}

/// Writes `v` in decimal, exactly `width` digits (its own width), at `out[..width]`,
/// two digits a step.
#[inline]
fn put_dec(out: &mut [u8], mut v: u64, width: usize) {
    const PAIRS: [u8; 200] = {
        let mut t = [0u8; 200];
        let mut k = 0;
        while k < 100 {
            t[2 * k] = b'0' + (k / 10) as u8;
            t[2 * k + 1] = b'0' + (k % 10) as u8;
            k += 1;
        }
        t
    };
    let mut i = width;
    while i >= 2 {
        let d = (v % 100) as usize * 2;
        v /= 100;
        out[i - 2..i].copy_from_slice(&PAIRS[d..d + 2]);
        i -= 2;
    }
    if i == 1 {
        out[0] = b'0' + v as u8;
    }
}

/// `key` then `v` (`width` decimal digits) at `at`; where the next field goes.
#[inline]
fn put_field(slot: &mut [u8], at: usize, key: &[u8], v: u64, width: usize) -> usize {
    slot[at..at + key.len()].copy_from_slice(key);
    put_dec(&mut slot[at + key.len()..], v, width);
    at + key.len() + width
}

/// How [`Encoder::encode_head`] went.
enum Head {
    /// The record's first bytes were written; the rest is the template's.
    Wrote(usize),
    /// This record does not fit the template (JSON with under 7 bytes of padding):
    /// write it whole.
    Whole,
    /// A value wider than planned: nothing written.
    Overflow,
}

impl Encoder {
    /// The sequence number of the `n`-th record of `sender`, and the step between two of
    /// its records (the senders' shared sequence in the `seq` layout).
    fn seq_stride(&self, sender: u64, n: u64) -> (u64, u64) {
        match self.layout {
            Layout::Seq => (
                n.wrapping_mul(self.senders).wrapping_add(sender),
                self.senders,
            ),
            _ => (n, 1),
        }
    }

    /// Records `n..n + take` of `sender` as [`Stable`] heads: raw, no send time, every
    /// sequence number of one width and no record outgrowing its size. `None`: they
    /// must be written in full.
    fn stable_head(&self, sender: u64, n: u64, take: usize) -> Option<Stable> {
        if self.format != Format::Raw || self.layout == Layout::Time || take == 0 {
            return None;
        }
        let last_n = n.checked_add(take as u64 - 1)?;
        let first = match self.layout {
            Layout::Seq => n.checked_mul(self.senders)?.checked_add(sender)?,
            _ => n,
        };
        let last = match self.layout {
            Layout::Seq => last_n.checked_mul(self.senders)?.checked_add(sender)?,
            _ => last_n,
        };
        let width = hex_digits(last);
        let at = match self.layout {
            Layout::Seq => 1,
            _ => 2 + hex_digits(sender),
        };
        (hex_digits(first) == width && at + width < self.size).then_some(Stable {
            sender,
            at,
            width,
            slots: take,
        })
    }

    /// One record before its fields are written: the padding and the end every record
    /// of this encoder shares. Raw: `xxx…\n`; JSON: `xxx…"}\n` (the fields and
    /// `,"p":"` are written over the start).
    fn template(&self) -> Vec<u8> {
        let mut t = vec![b'x'; self.size];
        match self.format {
            Format::Raw => t[self.size - 1] = b'\n',
            Format::Json if self.size >= 3 => t[self.size - 3..].copy_from_slice(b"\"}\n"),
            Format::Json => {}
        }
        t
    }

    /// Writes the `n`-th record's fields, and what separates them from the padding,
    /// over the start of `slot` (one record's bytes holding [`Encoder::template`]
    /// after them): the same bytes as [`Encoder::encode`], without touching the padding.
    #[inline]
    fn encode_head(&self, slot: &mut [u8], sender: u64, n: u64, now_us: u64) -> Head {
        let size = self.size;
        let seq = match self.layout {
            Layout::Seq => match n.checked_mul(self.senders) {
                Some(s) => s + sender,
                None => return Head::Overflow,
            },
            _ => n,
        };
        match self.format {
            Format::Raw => {
                let (ws, wq) = (hex_digits(sender), hex_digits(seq));
                let wt = hex_digits(now_us);
                let used = match self.layout {
                    Layout::Seq => 1 + wq,
                    Layout::Sender => 2 + ws + wq,
                    Layout::Time => 3 + ws + wq + wt,
                };
                if used + 1 > size {
                    return Head::Overflow;
                }
                let mut at = 1;
                match self.layout {
                    Layout::Seq => slot[0] = b'q',
                    Layout::Sender | Layout::Time => {
                        slot[0] = if self.layout == Layout::Sender {
                            b's'
                        } else {
                            b't'
                        };
                        put_hex(&mut slot[at..], sender, ws);
                        at += ws;
                        slot[at] = b'-';
                        at += 1;
                    }
                }
                put_hex(&mut slot[at..], seq, wq);
                at += wq;
                if self.layout == Layout::Time {
                    slot[at] = b'-';
                    put_hex(&mut slot[at + 1..], now_us, wt);
                    at += 1 + wt;
                }
                // Padding follows after a space; a record filled by its fields has none.
                if at < size - 1 {
                    slot[at] = b' ';
                    at += 1;
                }
                Head::Wrote(at)
            }
            Format::Json => {
                let (ws, wq) = (dec_digits(sender), dec_digits(seq));
                let wt = dec_digits(now_us);
                let used =
                    1 + if self.layout != Layout::Seq {
                        5 + ws
                    } else {
                        0
                    } + 4
                        + wq
                        + if self.layout == Layout::Time {
                            5 + wt
                        } else {
                            0
                        };
                if used + 2 > size {
                    return Head::Overflow;
                }
                if size - used - 2 < 7 {
                    return Head::Whole;
                }
                slot[0] = b'{';
                let mut at = 1;
                if self.layout != Layout::Seq {
                    at = put_field(slot, at, b"\"s\":", sender, ws);
                    slot[at] = b',';
                    at += 1;
                }
                at = put_field(slot, at, b"\"q\":", seq, wq);
                if self.layout == Layout::Time {
                    at = put_field(slot, at, b",\"t\":", now_us, wt);
                }
                slot[at..at + 6].copy_from_slice(b",\"p\":\"");
                Head::Wrote(at + 6)
            }
        }
    }
}

/// A batch of whole records in one buffer, reused from batch to batch: the padding is
/// written once, and each record only gets its fields written over it — no per-record
/// allocation, no copy of the padding. What `stream send` and `stream gen` write at
/// full speed.
pub struct RecordBatch {
    template: Vec<u8>,
    buf: Vec<u8>,
    size: usize,
    /// Bytes from each record's start that may differ from the template (the longest
    /// head written so far): a shorter head restores the template up to here.
    dirty: usize,
    /// A record written whole, when it does not fit the template.
    whole: Vec<u8>,
    /// Raw records without a send time whose heads differ only in their sequence
    /// digits: after one batch is written in full, the next ones get those digits only.
    stable: Option<Stable>,
}

/// What the first `slots` records of a batch hold besides their sequence digits: the
/// tag, `sender`'s id, the separator and the space after `width` digits from `at`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stable {
    sender: u64,
    at: usize,
    width: usize,
    slots: usize,
}

impl RecordBatch {
    /// Room for `records` records of `enc`.
    pub fn new(enc: &Encoder, records: usize) -> RecordBatch {
        let template = enc.template();
        let records = records.max(1);
        let mut buf = Vec::with_capacity(records * enc.size());
        for _ in 0..records {
            buf.extend_from_slice(&template);
        }
        RecordBatch {
            template,
            buf,
            size: enc.size(),
            dirty: 0,
            whole: Vec::with_capacity(enc.size()),
            stable: None,
        }
    }

    /// Records a batch holds.
    pub fn capacity(&self) -> usize {
        self.buf.len() / self.size
    }

    /// Records `n..n + take` (`take` at most [`RecordBatch::capacity`]) of `sender`,
    /// sent at `now_us`: the bytes of those written, and whether a record outgrew its
    /// size (an unbounded run past its plan; it and those after it are not written).
    pub fn fill(
        &mut self,
        enc: &Encoder,
        sender: u64,
        n: u64,
        take: usize,
        now_us: u64,
    ) -> (&[u8], bool) {
        let size = self.size;
        let take = take.min(self.capacity());
        let stable = enc.stable_head(sender, n, take);
        if let Some(st) = stable.filter(|st| {
            self.stable.is_some_and(|was| {
                was.slots >= take
                    && was
                        == Stable {
                            slots: was.slots,
                            ..*st
                        }
            })
        }) {
            // Only the digits change: written at a fixed width, with no branch per record.
            let (first, stride) = enc.seq_stride(sender, n);
            let b = &mut self.buf[..take * size];
            match st.width {
                1 => digits::<1>(b, size, st.at, first, stride),
                2 => digits::<2>(b, size, st.at, first, stride),
                3 => digits::<3>(b, size, st.at, first, stride),
                4 => digits::<4>(b, size, st.at, first, stride),
                5 => digits::<5>(b, size, st.at, first, stride),
                6 => digits::<6>(b, size, st.at, first, stride),
                7 => digits::<7>(b, size, st.at, first, stride),
                8 => digits::<8>(b, size, st.at, first, stride),
                _ => digits::<16>(b, size, st.at, first, stride),
            }
            return (&self.buf[..take * size], false);
        }
        self.stable = None;
        for j in 0..take {
            let slot = &mut self.buf[j * size..(j + 1) * size];
            match enc.encode_head(slot, sender, n + j as u64, now_us) {
                Head::Wrote(h) => {
                    if h < self.dirty {
                        slot[h..self.dirty].copy_from_slice(&self.template[h..self.dirty]);
                    }
                    self.dirty = self.dirty.max(h);
                }
                Head::Whole => {
                    self.whole.clear();
                    enc.encode(&mut self.whole, sender, n + j as u64, now_us);
                    slot.copy_from_slice(&self.whole);
                    self.dirty = size;
                }
                Head::Overflow => return (&self.buf[..j * size], true),
            }
        }
        // Written in full with one head shape: the next batches need only their digits.
        self.stable = stable;
        (&self.buf[..take * size], false)
    }
}

/// Writes the sequence digits of `first + j·stride` (exactly `W` of them; 16: as many as
/// the value has, which `stable_head` made the same for all) at `at` in every record.
#[inline]
fn digits<const W: usize>(buf: &mut [u8], size: usize, at: usize, first: u64, stride: u64) {
    let mut seq = first;
    if stride == 1 && (2..=8).contains(&W) {
        // Consecutive numbers: the digits above the last change once in 16 records, so
        // each record gets a copy of them and its last digit from a table.
        const DIGITS: &[u8; 16] = b"0123456789abcdef";
        let mut high = hex8(seq as u32);
        for slot in buf.chunks_exact_mut(size) {
            if seq & 0xf == 0 {
                high = hex8(seq as u32);
            }
            slot[at..at + W].copy_from_slice(&high[8 - W..]);
            slot[at + W - 1] = DIGITS[(seq & 0xf) as usize];
            seq += 1;
        }
        return;
    }
    for slot in buf.chunks_exact_mut(size) {
        if W <= 8 {
            let d = hex8(seq as u32);
            slot[at..at + W].copy_from_slice(&d[8 - W..]);
        } else {
            put_hex(&mut slot[at..], seq, hex_digits(seq));
        }
        seq += stride;
    }
}

/// Read a number in `radix` 16 or 10 from the start of `b`; its value and the bytes used.
#[inline]
fn take_num(b: &[u8], hex: bool) -> Option<(u64, usize)> {
    let mut v: u64 = 0;
    let mut i = 0;
    while i < b.len() {
        let d = match b[i] {
            c @ b'0'..=b'9' => (c - b'0') as u64,
            c @ b'a'..=b'f' if hex => (c - b'a' + 10) as u64,
            _ => break,
        };
        v = v.checked_mul(if hex { 16 } else { 10 })?.checked_add(d)?;
        i += 1;
    }
    (i > 0).then_some((v, i))
}

/// Decode one line (with or without its newline; a trailing `\r` is ignored). `None`
/// for anything that is not one of our records: the verifier counts those apart.
pub fn decode(line: &[u8]) -> Option<Record> {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    match line.first()? {
        b't' | b's' | b'q' => decode_raw(line),
        b'{' => decode_json_fast(line).or_else(|| decode_json_any(line)),
        _ => None,
    }
}

fn decode_raw(line: &[u8]) -> Option<Record> {
    let tag = line[0];
    let fields = match tag {
        b'q' => 1,
        b's' => 2,
        _ => 3,
    };
    let mut vals = [0u64; 3];
    let mut at = 1;
    for (k, v) in vals.iter_mut().enumerate().take(fields) {
        if k > 0 {
            if line.get(at) != Some(&b'-') {
                return None;
            }
            at += 1;
        }
        let (n, used) = take_num(&line[at..], true)?;
        *v = n;
        at += used;
    }
    // Then the end of the line, or padding after a space.
    if at < line.len() && line[at] != b' ' {
        return None;
    }
    Some(match tag {
        b'q' => Record {
            sender: None,
            seq: vals[0],
            sent_us: None,
        },
        b's' => Record {
            sender: Some(u32::try_from(vals[0]).ok()?),
            seq: vals[1],
            sent_us: None,
        },
        _ => Record {
            sender: Some(u32::try_from(vals[0]).ok()?),
            seq: vals[1],
            sent_us: Some(vals[2]),
        },
    })
}

/// Our own JSON spelling, fields in the order we write them: no allocation.
fn decode_json_fast(line: &[u8]) -> Option<Record> {
    let mut at = 1;
    let field = |key: &[u8], at: &mut usize| -> Option<u64> {
        let rest = line.get(*at..)?;
        let rest = rest.strip_prefix(key)?;
        let (v, used) = take_num(rest, false)?;
        *at += key.len() + used;
        Some(v)
    };
    let sender = if line[1..].starts_with(b"\"s\":") {
        let s = field(b"\"s\":", &mut at)?;
        if line.get(at) != Some(&b',') {
            return None;
        }
        at += 1;
        Some(u32::try_from(s).ok()?)
    } else {
        None
    };
    let seq = field(b"\"q\":", &mut at)?;
    let sent_us = if line[at..].starts_with(b",\"t\":") {
        at += 1;
        Some(field(b"\"t\":", &mut at)?)
    } else {
        None
    };
    match line.get(at)? {
        b',' | b' ' | b'}' => {}
        _ => return None,
    }
    Some(Record {
        sender,
        seq,
        sent_us,
    })
}

/// Any JSON object with our fields, in any order (a pipeline that re-serialized it).
fn decode_json_any(line: &[u8]) -> Option<Record> {
    let v: serde_json::Value = serde_json::from_slice(line).ok()?;
    let seq = v.get("q")?.as_u64()?;
    let sender = match v.get("s") {
        Some(s) => Some(u32::try_from(s.as_u64()?).ok()?),
        None => None,
    };
    let sent_us = match v.get("t") {
        Some(t) => Some(t.as_u64()?),
        None => None,
    };
    Some(Record {
        sender,
        seq,
        sent_us,
    })
}

/// Microseconds since the Unix epoch, now.
#[inline]
pub fn now_us() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_micros() as u64)
}

/// `stream gen`: `count` records of sender `sender` into `out`.
pub fn generate(
    out: &mut dyn std::io::Write,
    enc: &Encoder,
    sender: u64,
    count: u64,
) -> std::io::Result<()> {
    let mut batch = RecordBatch::new(enc, ((256usize << 10) / enc.size()).max(1));
    let mut n = 0;
    while n < count {
        let take = (batch.capacity() as u64).min(count - n) as usize;
        let (bytes, overflow) = batch.fill(enc, sender, n, take, now_us());
        out.write_all(bytes)?;
        if overflow {
            return Err(std::io::Error::other("a record outgrew its size"));
        }
        n += take as u64;
    }
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: u64 = 1_763_784_000_123_456;

    fn one(e: &Encoder, sender: u64, n: u64) -> Vec<u8> {
        let mut out = Vec::new();
        assert!(e.encode(&mut out, sender, n, T));
        assert_eq!(out.len(), e.size());
        assert_eq!(*out.last().unwrap(), b'\n');
        out
    }

    /// The batch writes the very bytes `encode` does, whatever came before in its buffer.
    #[test]
    fn batches_write_what_encode_writes() {
        for format in [Format::Raw, Format::Json] {
            for size in (5..90).chain([1024, 4096]) {
                let Ok(e) = Encoder::new(format, size, 3, Some(70_000)) else {
                    continue;
                };
                let mut batch = RecordBatch::new(&e, 7);
                // Widths grow (0xf → 0x10, 99 → 100), then shrink (another sender, n
                // from 0 again): the padding must come back.
                // Then a run of batches of one width (only their digits written), one
                // crossing a width, and another sender in the same buffer.
                for (sender, n) in [
                    (2, 0),
                    (2, 13),
                    (1, 95),
                    (2, 65_530),
                    (0, 0),
                    (1, 4090),
                    (1, 300),
                    (1, 307),
                    (1, 314),
                    (1, 4091),
                    (1, 4098),
                    (2, 4105),
                    (2, 69_990),
                ] {
                    let (bytes, overflow) = batch.fill(&e, sender, n, 7, T);
                    assert!(!overflow);
                    let mut want = Vec::new();
                    for j in 0..7 {
                        assert!(e.encode(&mut want, sender, n + j, T));
                    }
                    assert_eq!(
                        String::from_utf8_lossy(bytes),
                        String::from_utf8_lossy(&want),
                        "{format:?} {size} B, sender {sender}, n {n}"
                    );
                }
            }
        }
        // An unbounded run past its plan: the records before the overflow, and a stop.
        let e = Encoder::new(Format::Raw, 10, 1, None).unwrap();
        let mut batch = RecordBatch::new(&e, 4);
        let (bytes, overflow) = batch.fill(&e, 0, (1 << 32) - 2, 4, T);
        assert!(overflow);
        assert_eq!(bytes.len(), 20);
    }

    #[test]
    fn hex_digits_without_a_branch() {
        for v in [
            0u64,
            9,
            10,
            15,
            16,
            0xabcdef,
            0x0123_4567_89ab_cdef,
            u64::MAX,
            1 << 40,
        ] {
            let mut out = [0u8; 16];
            let w = hex_digits(v);
            put_hex(&mut out, v, w);
            assert_eq!(std::str::from_utf8(&out[..w]).unwrap(), format!("{v:x}"));
        }
    }

    #[test]
    fn gen_writes_exact_records() {
        let enc = Encoder::new(Format::Raw, 10, 1, Some(100_000)).unwrap();
        let mut out = Vec::new();
        generate(&mut out, &enc, 0, 100_000).unwrap();
        assert_eq!(out.len(), 1_000_000);
        for (i, line) in out.chunks_exact(10).enumerate() {
            assert_eq!(decode(line).unwrap().seq, i as u64);
        }
    }

    #[test]
    fn ten_bytes_hold_the_sequence_only() {
        // The seed's short records: 10 bytes × 100M from three senders.
        let e = Encoder::new(Format::Raw, 10, 3, Some(100_000_000)).unwrap();
        assert_eq!(e.layout(), Layout::Seq);
        let r = one(&e, 2, 99_999_999);
        assert_eq!(r, b"q11e1a2ff\n");
        assert_eq!(
            decode(&r),
            Some(Record {
                sender: None,
                seq: 299_999_999,
                sent_us: None
            })
        );
        // Small values are padded to the size.
        assert_eq!(one(&e, 0, 0), b"q0 xxxxxx\n");
    }

    #[test]
    fn the_layout_is_the_richest_that_fits() {
        let lay = |f, size, k, n| Encoder::new(f, size, k, Some(n)).map(|e| e.layout());
        assert_eq!(lay(Format::Raw, 12, 3, 10_000_000), Ok(Layout::Sender));
        assert_eq!(lay(Format::Raw, 24, 3, 10_000_000), Ok(Layout::Time));
        assert_eq!(lay(Format::Raw, 23, 3, 10_000_000), Ok(Layout::Sender));
        assert_eq!(lay(Format::Json, 1024, 3, 10_000_000), Ok(Layout::Time));
        assert_eq!(lay(Format::Json, 10, 1, 100), Ok(Layout::Seq));
        let err = Encoder::new(Format::Raw, 4, 3, Some(10_000_000)).unwrap_err();
        assert_eq!(err.min, 9);
        assert!(err.to_string().contains("--record-size 4"), "{err}");
        assert!(Encoder::new(Format::Json, 8, 1, Some(10)).is_ok());
        assert!(Encoder::new(Format::Json, 7, 1, Some(10)).is_err());
    }

    #[test]
    fn raw_round_trips_at_every_size() {
        for size in 5..80 {
            let Ok(e) = Encoder::new(Format::Raw, size, 3, Some(1000)) else {
                panic!("size {size}")
            };
            for (s, n) in [(0, 0), (2, 999), (1, 17)] {
                let r = one(&e, s, n);
                assert!(r[0].is_ascii_alphabetic());
                let d = decode(&r).unwrap();
                match e.layout() {
                    Layout::Seq => assert_eq!(d.seq, n * 3 + s),
                    _ => {
                        assert_eq!((d.sender, d.seq), (Some(s as u32), n));
                        assert_eq!(d.sent_us.is_some(), e.layout() == Layout::Time);
                    }
                }
            }
        }
    }

    #[test]
    fn json_round_trips_and_is_json() {
        for size in 11..90 {
            let e = Encoder::new(Format::Json, size, 3, Some(1000)).unwrap();
            let r = one(&e, 2, 999);
            let v: serde_json::Value = serde_json::from_slice(&r).expect("valid JSON");
            assert!(v.is_object());
            let d = decode(&r).unwrap();
            if e.layout() == Layout::Time {
                assert_eq!(d.sent_us, Some(T));
            }
        }
        let e = Encoder::new(Format::Json, 64, 3, Some(10)).unwrap();
        assert_eq!(
            String::from_utf8(one(&e, 1, 7)).unwrap(),
            "{\"s\":1,\"q\":7,\"t\":1763784000123456,\"p\":\"xxxxxxxxxxxxxxxxxxxxxx\"}\n"
        );
        // Re-serialized by a pipeline, keys reordered: still ours.
        assert_eq!(
            decode(br#"{"t":5,"q":7,"s":1,"host":"a"}"#),
            Some(Record {
                sender: Some(1),
                seq: 7,
                sent_us: Some(5)
            })
        );
    }

    #[test]
    fn foreign_lines_are_not_records() {
        for l in [
            &b""[..],
            b"hello",
            b"t1-",
            b"tzz",
            b"q12g",
            b"{}",
            b"{\"q\":\"7\"}",
            b"1 q1",
            b"s1-ffffffffffffffffffff",
        ] {
            assert_eq!(decode(l), None, "{}", String::from_utf8_lossy(l));
        }
        assert!(decode(b"t1-2-3\r\n").is_some());
    }

    #[test]
    fn an_unbounded_run_past_its_plan_is_refused_not_overflowed() {
        let e = Encoder::new(Format::Raw, 10, 1, None).unwrap();
        let mut out = Vec::new();
        assert!(e.encode(&mut out, 0, u32::MAX as u64, T));
        assert!(!e.encode(&mut out, 0, 1 << 40, T));
        assert_eq!(out.len(), 10);
    }
}
