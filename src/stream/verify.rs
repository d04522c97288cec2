//! `watch --verify`: what arrived, record by record — per sender the sequence numbers
//! seen (a bitmap, so duplicates are exact), lost (gaps, or short of `--expect`),
//! duplicated, out of order (lower than one already seen from that sender), and the
//! end-to-end latency (arrival − embedded send time) in an HDR histogram.
//!
//! Each reader thread keeps its own [`Verifier`]; they merge exactly at the end (a
//! sequence number seen by two readers is a duplicate). Lines that are not records are
//! counted apart, never guessed at.

pub use crate::result::stream::{LatencyUs, SenderCheck, VerifyReport};
use hdrhistogram::Histogram;

use super::record::{decode, Record};

/// Sender ids above this are not ours (`stream send` starts at most 4,096 senders).
pub const MAX_SENDER: u32 = 4095;
/// Sequence numbers at or above this are not ours (the bitmap would be 1 GiB).
pub const MAX_SEQ: u64 = 1 << 33;
/// All senders' bitmaps together stay under this many 64-bit words (256 MiB, 2^31
/// sequence numbers): a hostile or garbled pipeline cannot make `watch --verify`
/// allocate without bound (4,096 senders × 1 GiB). A record past it is counted with
/// the foreign lines.
const MAX_BITMAP_WORDS: usize = 1 << 25;
/// The longest latency tracked exactly: one hour, in µs.
const MAX_LATENCY_US: u64 = 3_600_000_000;

/// An interval's latency histogram (µs, 2 significant digits, up to an hour).
pub fn new_interval_histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, MAX_LATENCY_US, 2).expect("valid bounds")
}

/// What one sender's records did.
#[derive(Debug, Clone, Default)]
struct Track {
    seen: Vec<u64>,
    received: u64,
    distinct: u64,
    duplicated: u64,
    out_of_order: u64,
    max: Option<u64>,
}

impl Track {
    /// Counts `seq`; false (and nothing counted) when its bitmap would grow past what
    /// is left of `budget` words.
    #[inline]
    fn add(&mut self, seq: u64, budget: &mut usize) -> bool {
        let (w, bit) = ((seq / 64) as usize, 1u64 << (seq % 64));
        if w >= self.seen.len() {
            let want = (w + 1).max(self.seen.len() * 2).max(1024);
            let grow = want - self.seen.len();
            if grow > *budget {
                return false;
            }
            *budget -= grow;
            self.seen.resize(want, 0);
        }
        self.received += 1;
        if self.seen[w] & bit != 0 {
            self.duplicated += 1;
        } else {
            self.seen[w] |= bit;
            self.distinct += 1;
        }
        match self.max {
            Some(m) if seq < m => self.out_of_order += 1,
            Some(m) if seq == m => {}
            _ => self.max = Some(seq),
        }
        true
    }

    fn merge(&mut self, o: &Track) {
        if o.seen.len() > self.seen.len() {
            self.seen.resize(o.seen.len(), 0);
        }
        let mut both = 0u64;
        for (a, b) in self.seen.iter_mut().zip(&o.seen) {
            both += (*a & *b).count_ones() as u64;
            *a |= *b;
        }
        self.received += o.received;
        self.distinct += o.distinct - both;
        self.duplicated += o.duplicated + both;
        self.out_of_order += o.out_of_order;
        self.max = self.max.max(o.max);
    }
}

/// One reader's verification state.
#[derive(Debug, Clone)]
pub struct Verifier {
    /// By sender id.
    senders: Vec<Option<Track>>,
    /// Records without a sender (the sequence-only layout).
    shared: Option<Track>,
    latency: Histogram<u64>,
    /// The latencies since the reader last handed them to the watch's interval
    /// ([`Verifier::take_recent`]): 2 significant digits, a kept interval's precision.
    recent: Histogram<u64>,
    /// Records whose send time is after their arrival (clocks apart): latency 0.
    early: u64,
    foreign: u64,
    /// Bitmap words this verifier may still allocate ([`MAX_BITMAP_WORDS`]).
    budget: usize,
    /// Records new to their track, all tracks together.
    distinct: u64,
}

impl Default for Verifier {
    fn default() -> Self {
        Verifier {
            senders: Vec::new(),
            shared: None,
            latency: Histogram::new_with_bounds(1, MAX_LATENCY_US, 3).expect("valid bounds"),
            recent: new_interval_histogram(),
            early: 0,
            foreign: 0,
            budget: MAX_BITMAP_WORDS,
            distinct: 0,
        }
    }
}

impl Verifier {
    /// One line (its newline optional), arrived at `now_us`.
    #[inline]
    pub fn line(&mut self, line: &[u8], now_us: u64) {
        match decode(line) {
            Some(r) => self.record(r, now_us),
            None => {
                // An empty line between records is framing, not a foreign record.
                if !(line.is_empty() || line == b"\n" || line == b"\r\n") {
                    self.foreign += 1;
                }
            }
        }
    }

    #[inline]
    pub fn record(&mut self, r: Record, now_us: u64) {
        if r.seq >= MAX_SEQ {
            self.foreign += 1;
            return;
        }
        let track = match r.sender {
            Some(s) if s > MAX_SENDER => {
                self.foreign += 1;
                return;
            }
            Some(s) => {
                let s = s as usize;
                if s >= self.senders.len() {
                    self.senders.resize(s + 1, None);
                }
                self.senders[s].get_or_insert_with(Track::default)
            }
            None => self.shared.get_or_insert_with(Track::default),
        };
        let before = track.distinct;
        if !track.add(r.seq, &mut self.budget) {
            self.foreign += 1;
            return;
        }
        self.distinct += track.distinct - before;
        if let Some(t) = r.sent_us {
            let lat = if now_us >= t {
                now_us - t
            } else {
                self.early += 1;
                0
            };
            self.latency.saturating_record(lat.max(1));
            self.recent.saturating_record(lat.max(1));
        }
    }

    /// Add the latencies recorded since the last call to `into` (an interval's
    /// histogram) and forget them here.
    pub fn take_recent(&mut self, into: &mut Histogram<u64>) {
        if !self.recent.is_empty() {
            let _ = into.add(&self.recent);
            self.recent.reset();
        }
    }

    /// Records new to this verifier so far (duplicates not counted), for `--expect`.
    pub fn distinct(&self) -> u64 {
        self.distinct
    }

    pub fn merge(&mut self, o: &Verifier) {
        if o.senders.len() > self.senders.len() {
            self.senders.resize(o.senders.len(), None);
        }
        for (a, b) in self.senders.iter_mut().zip(&o.senders) {
            if let Some(b) = b {
                a.get_or_insert_with(Track::default).merge(b);
            }
        }
        if let Some(b) = &o.shared {
            self.shared.get_or_insert_with(Track::default).merge(b);
        }
        let _ = self.latency.add(&o.latency);
        self.early += o.early;
        self.foreign += o.foreign;
        self.distinct = self
            .senders
            .iter()
            .flatten()
            .chain(&self.shared)
            .map(|t| t.distinct)
            .sum();
    }

    /// The findings. `expect`: records each sender sent (`--count`); `senders`: how
    /// many there were, so a sender of which nothing arrived is seen as lost whole.
    pub fn report(&self, expect: Option<u64>, senders: Option<u32>) -> VerifyReport {
        let mut out = VerifyReport {
            foreign_lines: self.foreign,
            ..Default::default()
        };
        let finding = |sender: Option<u32>, t: &Track, expect: Option<u64>| {
            let span = expect.unwrap_or_else(|| t.max.map_or(0, |m| m + 1));
            // Records beyond the expected count are not ours to judge as lost.
            let distinct_in = match expect {
                Some(e) => count_below(&t.seen, e),
                None => t.distinct,
            };
            SenderCheck {
                sender,
                received: t.received,
                distinct: t.distinct,
                lost: span.saturating_sub(distinct_in),
                duplicated: t.duplicated,
                out_of_order: t.out_of_order,
                max_seq: t.max,
            }
        };
        let n_senders = senders.map_or(self.senders.len(), |n| n as usize);
        for s in 0..self.senders.len().max(n_senders) {
            let t = self.senders.get(s).and_then(|t| t.as_ref());
            match t {
                Some(t) => out.senders.push(finding(Some(s as u32), t, expect)),
                None if s < n_senders && self.shared.is_none() => {
                    out.senders
                        .push(finding(Some(s as u32), &Track::default(), expect))
                }
                None => {}
            }
        }
        if let Some(t) = &self.shared {
            let total = expect.map(|e| e * senders.unwrap_or(1) as u64);
            let mut f = finding(None, t, total);
            if let (None, Some(k @ 2..)) = (expect, senders) {
                // Without `--count` the senders stopped at different numbers: the
                // shared sequence's top is one sender's end, not every sender's.
                f.lost = shared_span(&t.seen, u64::from(k)).saturating_sub(t.distinct);
            }
            out.senders.push(f);
        }
        for s in &out.senders {
            out.received += s.received;
            out.lost += s.lost;
            out.duplicated += s.duplicated;
            out.out_of_order += s.out_of_order;
        }
        let h = &self.latency;
        if !h.is_empty() {
            out.latency_us = Some(LatencyUs {
                count: h.len(),
                mean: h.mean(),
                min: h.min(),
                p50: h.value_at_quantile(0.5),
                p90: h.value_at_quantile(0.9),
                p99: h.value_at_quantile(0.99),
                p999: h.value_at_quantile(0.999),
                max: h.max(),
                early: self.early,
            });
        }
        out
    }
}

/// Records the `k` senders of one shared sequence sent, as far as what arrived shows:
/// sender `r` sends `r, r+k, …`, so its last is the highest number seen of its residue.
/// Scanned from the top, so it stops as soon as every sender's last is found.
fn shared_span(seen: &[u64], k: u64) -> u64 {
    let mut last = vec![None; k as usize];
    let mut missing = k;
    'words: for (w, &word) in seen.iter().enumerate().rev() {
        let mut bits = word;
        while bits != 0 {
            let top = 63 - u64::from(bits.leading_zeros());
            bits &= !(1u64 << top);
            let i = w as u64 * 64 + top;
            let r = (i % k) as usize;
            if last[r].is_none() {
                last[r] = Some(i);
                missing -= 1;
                if missing == 0 {
                    break 'words;
                }
            }
        }
    }
    last.iter().flatten().map(|&i| i / k + 1).sum()
}

/// Set bits of `bits` below position `n`.
fn count_below(bits: &[u64], n: u64) -> u64 {
    let full = (n / 64) as usize;
    let mut c: u64 = bits.iter().take(full).map(|w| w.count_ones() as u64).sum();
    if let Some(w) = bits.get(full) {
        let rest = n % 64;
        if rest > 0 {
            c += (w & ((1u64 << rest) - 1)).count_ones() as u64;
        }
    }
    c
}

/// The longest line `--verify` keeps while it waits for the line's end: a record of
/// the largest size and its line break. A longer line is not a record; it is counted
/// with the foreign lines and skipped to its end, never held (`watch file:/dev/zero`).
pub const MAX_LINE_BYTES: usize = super::options::MAX_RECORD + 2;

/// Splits a byte stream into lines across reads, for a [`Verifier`]: one per reader.
#[derive(Debug)]
pub struct Lines {
    carry: Vec<u8>,
    /// In a line past `max`, already counted: dropped up to its end.
    skipping: bool,
    max: usize,
}

impl Default for Lines {
    fn default() -> Self {
        Lines::with_max(MAX_LINE_BYTES)
    }
}

impl Lines {
    /// Lines up to `max` bytes (tests use a small bound).
    pub fn with_max(max: usize) -> Lines {
        Lines {
            carry: Vec::new(),
            skipping: false,
            max,
        }
    }

    /// Feed the next bytes of the stream; every whole line goes to `v`.
    pub fn feed(&mut self, mut chunk: &[u8], v: &mut Verifier, now_us: u64) {
        if self.skipping || !self.carry.is_empty() {
            let Some(i) = chunk.iter().position(|&b| b == b'\n') else {
                self.hold(chunk, v);
                return;
            };
            if self.skipping {
                self.skipping = false;
            } else if self.carry.len() + i + 1 > self.max {
                v.foreign += 1;
                self.carry.clear();
            } else {
                self.carry.extend_from_slice(&chunk[..=i]);
                v.line(&self.carry, now_us);
                self.carry.clear();
            }
            chunk = &chunk[i + 1..];
        }
        let mut start = 0;
        while let Some(i) = chunk[start..].iter().position(|&b| b == b'\n') {
            v.line(&chunk[start..start + i + 1], now_us);
            start += i + 1;
        }
        self.hold(&chunk[start..], v);
    }

    /// Keeps the start of an unfinished line, unless it is past the bound.
    fn hold(&mut self, part: &[u8], v: &mut Verifier) {
        if self.skipping {
            return;
        }
        if self.carry.len() + part.len() > self.max {
            v.foreign += 1;
            self.carry = Vec::new();
            self.skipping = true;
        } else {
            self.carry.extend_from_slice(part);
        }
    }

    /// The stream ended: a last line without its newline still counts.
    pub fn finish(&mut self, v: &mut Verifier, now_us: u64) {
        if !self.carry.is_empty() {
            v.line(&self.carry, now_us);
            self.carry.clear();
        }
        self.skipping = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stream::record::{Encoder, Format};

    fn rec(sender: u32, seq: u64) -> Record {
        Record {
            sender: Some(sender),
            seq,
            sent_us: Some(1_000),
        }
    }

    /// Bug: with `--duration`, senders of a shared sequence (10-byte records) stop at
    /// different counts, and the numbers past a slower sender's end were called lost.
    #[test]
    fn a_shared_sequence_ends_where_each_sender_ended() {
        let mut v = Verifier::default();
        let shared = |seq| Record {
            sender: None,
            seq,
            sent_us: None,
        };
        // Three senders: 0 sent 0,3,…,30; 1 sent 1,…,13; 2 sent 2,…,20, and 8 was lost.
        for seq in (0..=30)
            .step_by(3)
            .chain((1..=13).step_by(3))
            .chain((2..=20).step_by(3))
        {
            if seq != 8 {
                v.record(shared(seq), 2_000);
            }
        }
        let r = v.report(None, Some(3));
        assert_eq!((r.received, r.lost), (11 + 5 + 6, 1));
        // One sender: the top is the end, as before.
        assert_eq!(v.report(None, Some(1)).lost, 31 - 22);
        // With --count every sender's end is known.
        assert_eq!(v.report(Some(11), Some(3)).lost, 33 - 22);
    }

    /// Bug: a record claiming sequence 2^33 − 1 grew its sender's bitmap to 1 GiB, and
    /// 4,096 such senders would ask for 4 TiB (found by reading the fuzz target's limits).
    #[test]
    fn regression_hostile_sequence_numbers_stay_within_the_bitmap_budget() {
        let mut v = Verifier::default();
        for sender in 0..=MAX_SENDER {
            v.record(rec(sender, MAX_SEQ - 1), 2_000);
        }
        let words: usize = v.senders.iter().flatten().map(|t| t.seen.len()).sum();
        assert!(words <= MAX_BITMAP_WORDS, "{words} words");
        assert_eq!(
            v.report(None, None).foreign_lines,
            u64::from(MAX_SENDER) + 1
        );
        // Ordinary numbers still count once the big ones are refused.
        v.record(rec(7, 3), 2_000);
        assert_eq!(v.report(None, None).received, 1);
    }

    #[test]
    fn loss_duplicates_and_order_are_exact() {
        let mut v = Verifier::default();
        for seq in [0, 1, 2, 5, 4, 4, 6] {
            v.record(rec(0, seq), 1_250);
        }
        v.record(rec(1, 0), 2_000);
        let r = v.report(None, None);
        assert_eq!(
            r.senders[0],
            SenderCheck {
                sender: Some(0),
                received: 7,
                distinct: 6,
                lost: 1, // 3
                duplicated: 1,
                out_of_order: 2, // 4, then 4 again, after 5
                max_seq: Some(6),
            }
        );
        assert_eq!(r.senders[1].lost, 0);
        // With the expected count, the tail that never came is lost too.
        let r = v.report(Some(10), Some(3));
        assert_eq!(r.senders[0].lost, 4);
        assert_eq!(r.senders[2].lost, 10, "a sender of which nothing arrived");
        assert_eq!(r.lost, 4 + 9 + 10);
        let l = r.latency_us.unwrap();
        assert_eq!((l.count, l.min, l.max), (8, 250, 1000));
    }

    #[test]
    fn merged_readers_find_cross_duplicates() {
        let (mut a, mut b) = (Verifier::default(), Verifier::default());
        for s in 0..100 {
            a.record(rec(0, s), 2_000);
        }
        for s in 90..200 {
            b.record(rec(0, s), 2_000);
        }
        a.merge(&b);
        let r = a.report(Some(200), None);
        assert_eq!((r.received, r.duplicated, r.lost), (210, 10, 0));
    }

    #[test]
    fn lines_split_across_reads_and_foreign_lines_count_apart() {
        let enc = Encoder::new(Format::Raw, 30, 1, Some(100)).unwrap();
        let mut bytes = Vec::new();
        for n in 0..100 {
            enc.encode(&mut bytes, 0, n, 5);
        }
        bytes.extend_from_slice(b"<13>Nov 22 hello from rsyslog\n");
        let mut v = Verifier::default();
        let mut lines = Lines::default();
        for chunk in bytes.chunks(7) {
            lines.feed(chunk, &mut v, 10);
        }
        lines.finish(&mut v, 10);
        let r = v.report(Some(100), Some(1));
        assert_eq!(
            (r.received, r.lost, r.duplicated, r.foreign_lines),
            (100, 0, 0, 1)
        );
    }

    #[test]
    fn sequence_only_records_are_checked_as_one_stream() {
        let enc = Encoder::new(Format::Raw, 5, 3, Some(1000)).unwrap();
        let mut v = Verifier::default();
        let mut buf = Vec::new();
        for n in 0..1000 {
            for s in 0..3 {
                buf.clear();
                enc.encode(&mut buf, s, n, 0);
                v.line(&buf, 0);
            }
        }
        let r = v.report(Some(1000), Some(3));
        assert_eq!(r.senders.len(), 1);
        assert_eq!((r.senders[0].sender, r.received, r.lost), (None, 3000, 0));
        assert!(r.latency_us.is_none());
    }

    #[test]
    fn watch_verify_dev_zero_line_is_bounded_and_counted_foreign() {
        let mut v = Verifier::default();
        let mut lines = Lines::with_max(16);
        let mut buf = Vec::new();
        Encoder::new(Format::Raw, 16, 1, Some(1))
            .unwrap()
            .encode(&mut buf, 0, 0, 5);
        // An endless line of NULs, fed in reads, never held past the bound.
        for _ in 0..100 {
            lines.feed(&[0u8; 7], &mut v, 0);
            assert!(lines.carry.len() <= 16);
        }
        lines.feed(b"\n", &mut v, 0);
        lines.feed(&buf, &mut v, 0);
        lines.finish(&mut v, 0);
        let r = v.report(None, None);
        assert_eq!((r.received, r.foreign_lines), (1, 1), "{r:?}");
    }
}
