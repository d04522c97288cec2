//! Per-second timelines whose memory stays bounded however long a step runs.
//!
//! Two halves, so that the per-request path neither locks nor keeps history:
//! - a worker's [`Ticker`] holds only the second now running (and one per timed
//!   label); when a request ends in a later second, the finished one is handed back
//!   ([`Finished`]) for the engine to pass to its coordinating thread;
//! - the coordinator's [`Timeline`] adds the workers' seconds together, keeps the last
//!   few as they are and the rest compactly (each histogram serialized, a few hundred
//!   bytes), and folds seconds after the first hour into [`COARSE_SPAN_S`]-second
//!   entries, so a day at any rate costs a few megabytes.
//!
//! A request counts in the second in which it ended, on the step's clock (the step's
//! start is second 0 for every worker). Seconds add exactly: counts are summed and
//! histograms added bucket by bucket.

use std::collections::{BTreeMap, VecDeque};
use std::time::{Duration, Instant};

use hdrhistogram::serialization::{Deserializer, Serializer, V2DeflateSerializer};
use hdrhistogram::Histogram;

use super::{ErrorKind, OkStatus, Outcome, MAX_TRACKABLE_US};

/// Seconds from the step's start kept one by one; later ones are folded into
/// entries of [`COARSE_SPAN_S`] seconds.
pub const FINE_S: u64 = 3600;
/// The width of an entry after the first [`FINE_S`] seconds.
pub const COARSE_SPAN_S: u64 = 10;
/// Seconds the coordinator keeps uncompressed, for the workers' seconds that arrive
/// a little out of order.
const RECENT: usize = 3;

/// The per-second histogram: 2 significant digits, up to [`MAX_TRACKABLE_US`].
pub fn new_second_histogram() -> Histogram<u32> {
    Histogram::new_with_bounds(1, MAX_TRACKABLE_US, 2).expect("static histogram bounds are valid")
}

/// A worker's running second: 3 significant digits, the step histogram's layout, so
/// the coordinator builds the step's histogram from the seconds exactly and a
/// response is recorded once, not twice (94 KB a worker); kept seconds drop to 2.
pub fn new_running_histogram() -> Histogram<u32> {
    Histogram::new_with_bounds(1, MAX_TRACKABLE_US, 3).expect("static histogram bounds are valid")
}

/// `h` at 2 significant digits (a kept second's precision): each recorded bucket's
/// count moved to the coarser bucket holding it.
fn two_digits(h: &Histogram<u32>) -> Histogram<u32> {
    let mut out = new_second_histogram();
    if h.sigfig() == 2 {
        let _ = out.add(h);
        return out;
    }
    for v in h.iter_recorded() {
        out.saturating_record_n(v.value_iterated_to(), v.count_at_value());
    }
    out
}

/// What one second (of a worker, or of the whole step) measured.
#[derive(Debug, Clone)]
pub struct Second {
    /// Whole HTTP responses, any status.
    pub responses: u64,
    /// Responses with a status that is not a success ([`OkStatus`]).
    pub bad_status: u64,
    pub errors: [u64; ErrorKind::ALL.len()],
    /// HTTP status → count, in order of first sight (a handful in a second).
    pub statuses: Vec<(u16, u64)>,
    /// Response bytes received in the second.
    pub bytes_received: u64,
    /// Open model: requests that left in the second more than
    /// [`super::LATE_THRESHOLD`] after their due time.
    pub late: u64,
    /// Open model: how late the requests that left in the second left, summed (µs).
    pub lag_sum_us: u64,
    /// Open model: requests that left in the second.
    pub sent: u64,
    /// Response time of the responses, µs (2 significant digits: a second's p99 needs
    /// no more).
    pub latency: Histogram<u32>,
}

impl Default for Second {
    fn default() -> Self {
        Second::new()
    }
}

impl Second {
    pub fn new() -> Self {
        Second::with_histogram(new_second_histogram())
    }

    /// A worker's running second ([`new_running_histogram`]).
    pub fn running() -> Self {
        Second::with_histogram(new_running_histogram())
    }

    fn with_histogram(latency: Histogram<u32>) -> Self {
        Second {
            responses: 0,
            bad_status: 0,
            errors: [0; ErrorKind::ALL.len()],
            statuses: Vec::with_capacity(4),
            bytes_received: 0,
            late: 0,
            lag_sum_us: 0,
            sent: 0,
            latency,
        }
    }

    pub fn total_errors(&self) -> u64 {
        self.errors.iter().sum()
    }

    /// Nothing ended in it and no byte arrived.
    pub fn is_empty(&self) -> bool {
        self.responses == 0
            && self.total_errors() == 0
            && self.bytes_received == 0
            && self.lag_sum_us == 0
            && self.sent == 0
            && self.late == 0
    }

    #[inline]
    pub fn record(&mut self, outcome: Outcome, latency: Duration, ok: &OkStatus) {
        match outcome {
            Outcome::Status(code) => {
                self.responses += 1;
                if !ok.contains(code) {
                    self.bad_status += 1;
                }
                add_status(&mut self.statuses, code, 1);
                self.latency.saturating_record(super::micros(latency));
            }
            Outcome::Error(kind) => self.errors[kind as usize] += 1,
        }
    }

    fn add_counts(&mut self, other: &Second) {
        self.responses += other.responses;
        self.bad_status += other.bad_status;
        for (a, b) in self.errors.iter_mut().zip(&other.errors) {
            *a += b;
        }
        for (code, n) in &other.statuses {
            add_status(&mut self.statuses, *code, *n);
        }
        self.bytes_received += other.bytes_received;
        self.late += other.late;
        self.lag_sum_us += other.lag_sum_us;
        self.sent += other.sent;
    }

    pub fn merge(&mut self, other: &Second) {
        self.add_counts(other);
        self.latency
            .add(&other.latency)
            .expect("same histogram bounds");
    }
}

/// Count `n` responses of `code` in a short list kept in order of first sight.
#[inline]
pub(crate) fn add_status(list: &mut Vec<(u16, u64)>, code: u16, n: u64) {
    match list.iter_mut().find(|(c, _)| *c == code) {
        Some((_, c)) => *c += n,
        None => list.push((code, n)),
    }
}

/// A second that a worker finished, with those of its timed labels that saw requests.
#[derive(Debug)]
pub struct Finished {
    /// Seconds from the step's start.
    pub index: u64,
    pub second: Second,
    /// Label index → that label's share of the second.
    pub labels: Vec<(u16, Second)>,
}

/// Status codes a running second counts by index (an HTTP status has three digits;
/// anything larger is counted as 999, as the step's own array does).
const CODES: usize = 1000;

/// A running second as the per-request path writes it: a count per status code (an
/// index, not a search of a list, and no success test: both are done once, when the
/// second ends), per error kind, the response bytes and the latency histogram. Made a
/// [`Second`] when the second ends.
#[derive(Debug, Clone)]
struct Running {
    codes: Box<[u32; CODES]>,
    errors: [u64; ErrorKind::ALL.len()],
    bytes_received: u64,
    late: u64,
    lag_sum_us: u64,
    sent: u64,
    latency: Histogram<u32>,
    /// Whether anything was recorded since the last [`Running::take`].
    touched: bool,
}

impl Running {
    fn new(latency: Histogram<u32>) -> Self {
        Running {
            codes: Box::new([0; CODES]),
            errors: [0; ErrorKind::ALL.len()],
            bytes_received: 0,
            late: 0,
            lag_sum_us: 0,
            sent: 0,
            latency,
            touched: false,
        }
    }

    /// The per-request path: an index, an increment and the histogram's record.
    /// `n` requests that ended alike count as `n` (a pipelined read's replies).
    #[inline(always)]
    fn record(&mut self, outcome: Outcome, latency: Duration, n: u64) {
        self.touched = true;
        match outcome {
            Outcome::Status(code) => {
                // A second's count per code fits a u32 (a few million a second at most).
                let n32 = u32::try_from(n).unwrap_or(u32::MAX);
                self.codes[usize::from(code).min(CODES - 1)] += n32;
                self.latency
                    .saturating_record_n(super::micros(latency), n32);
            }
            Outcome::Error(kind) => self.errors[kind as usize] += n,
        }
    }

    /// The second as a [`Second`] (statuses in order of code, `ok` judged per code),
    /// this one emptied for the next with `fresh` as its histogram.
    fn take(&mut self, ok: &OkStatus, fresh: Histogram<u32>) -> Second {
        let mut s = Second::with_histogram(std::mem::replace(&mut self.latency, fresh));
        if self.touched {
            for (code, n) in self.codes.iter_mut().enumerate().filter(|(_, n)| **n > 0) {
                let (code, count) = (code as u16, u64::from(std::mem::take(n)));
                s.responses += count;
                if !ok.contains(code) {
                    s.bad_status += count;
                }
                s.statuses.push((code, count));
            }
        }
        s.errors = std::mem::take(&mut self.errors);
        s.bytes_received = std::mem::take(&mut self.bytes_received);
        s.late = std::mem::take(&mut self.late);
        s.lag_sum_us = std::mem::take(&mut self.lag_sum_us);
        s.sent = std::mem::take(&mut self.sent);
        self.touched = false;
        s
    }
}

/// A worker's running second: what the per-request path writes into. Holds one
/// running second (plus one per timed label), whatever the step's length.
#[derive(Debug, Clone)]
pub struct Ticker {
    start: Instant,
    index: u64,
    /// When the running second ends: one comparison a request.
    next: Instant,
    now: Running,
    /// The running second of each timed label, by label index (None: not timed).
    labels: Vec<Option<Running>>,
    /// The meter's count of received bytes when the running second began.
    bytes_mark: u64,
    /// What counts as a success in `bad_status`.
    ok: OkStatus,
}

impl Ticker {
    /// Seconds counted from `start`; the labels of index `timed` get their own.
    pub fn new(start: Instant, timed: &[u16]) -> Self {
        let len = timed.iter().map(|i| usize::from(*i) + 1).max().unwrap_or(0);
        let mut labels: Vec<Option<Running>> = vec![None; len];
        for i in timed {
            labels[usize::from(*i)] = Some(Running::new(new_second_histogram()));
        }
        Ticker {
            start,
            index: 0,
            next: start + Duration::from_secs(1),
            now: Running::new(new_running_histogram()),
            labels,
            bytes_mark: 0,
            ok: OkStatus::default(),
        }
    }

    /// Count statuses outside `ok` as bad.
    pub fn with_ok(mut self, ok: OkStatus) -> Self {
        self.ok = ok;
        self
    }

    /// Count `n` requests of `label` that ended alike at `at` with `bytes` of
    /// response between them (one request, or a pipelined read's replies sent in one
    /// write); `meter` is the worker's count of received bytes so far (these
    /// responses' included). Returns the second that ended, if `at` is in a later one (boxed:
    /// the `Option` travels up the per-request path, and a bare one is a 300-byte
    /// copy every request).
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub fn record(
        &mut self,
        at: Instant,
        label: u16,
        outcome: Outcome,
        latency: Duration,
        bytes: u64,
        meter: u64,
        n: u64,
    ) -> Option<Box<Finished>> {
        let done = self.advance(at, meter.saturating_sub(bytes));
        self.now.record(outcome, latency, n);
        if let Some(Some(s)) = self.labels.get_mut(usize::from(label)) {
            s.record(outcome, latency, n);
            s.bytes_received += bytes;
        }
        done
    }

    /// The second that ended if `at` falls past it (rolled into `at`'s), else none.
    #[inline]
    fn advance(&mut self, at: Instant, meter: u64) -> Option<Box<Finished>> {
        if at < self.next {
            return None;
        }
        let i = at.saturating_duration_since(self.start).as_secs();
        Some(self.roll(i, meter))
    }

    /// A sample within a request (a transaction's statement) under `label`, ended at
    /// `at`: in the label's second only, never in the step's (the request it belongs
    /// to is counted there once, when it ends). Returns the second that ended, as
    /// [`Ticker::record`] does.
    #[inline]
    pub fn record_sample(
        &mut self,
        at: Instant,
        label: u16,
        outcome: Outcome,
        latency: Duration,
        meter: u64,
    ) -> Option<Box<Finished>> {
        let done = self.advance(at, meter);
        if let Some(Some(s)) = self.labels.get_mut(usize::from(label)) {
            s.record(outcome, latency, 1);
        }
        done
    }

    /// An open-model request that left at `at` (its send) `lag` after its due time
    /// (`late`: past [`super::LATE_THRESHOLD`]), counted in that second; `meter` as
    /// in [`Ticker::record`]. Returns the second that ended, as [`Ticker::record`]
    /// does.
    #[inline]
    pub fn record_lag(
        &mut self,
        at: Instant,
        lag: Duration,
        late: bool,
        meter: u64,
    ) -> Option<Box<Finished>> {
        let done = self.advance(at, meter);
        self.now.late += u64::from(late);
        // Not `micros`, which counts a lag of 0 as 1 µs (a histogram's floor).
        let us = lag
            .as_secs()
            .saturating_mul(1_000_000)
            .saturating_add(u64::from(lag.subsec_micros()));
        self.now.lag_sum_us = self.now.lag_sum_us.saturating_add(us);
        self.now.sent += 1;
        done
    }

    /// Close the running second (its bytes: what the meter counted since it began)
    /// and start second `next`. Allocates: once a second at most.
    #[cold]
    #[inline(never)]
    fn roll(&mut self, next: u64, meter: u64) -> Box<Finished> {
        let mut second = self.now.take(&self.ok, new_running_histogram());
        self.next = self.start + Duration::from_secs(next + 1);
        second.bytes_received += meter.saturating_sub(self.bytes_mark);
        self.bytes_mark = meter;
        let ok = self.ok;
        let labels = self
            .labels
            .iter_mut()
            .enumerate()
            .filter_map(|(i, s)| Some((i as u16, s.as_mut().filter(|s| s.touched)?)))
            .map(|(i, s)| (i, s.take(&ok, new_second_histogram())))
            .collect();
        let index = std::mem::replace(&mut self.index, next);
        Box::new(Finished {
            index,
            second,
            labels,
        })
    }

    /// The running second, closed at the step's end: the bytes the meter counted since
    /// it began go in it, so the seconds' bytes add up to the step's. `None` when it
    /// holds nothing.
    pub fn finish(&mut self, meter: u64) -> Option<Box<Finished>> {
        let f = self.roll(self.index, meter);
        (!f.second.is_empty() || !f.labels.is_empty()).then_some(f)
    }
}

/// One entry of a kept timeline: a second, or [`COARSE_SPAN_S`] of them past the
/// first hour, with its histogram serialized (HdrHistogram V2 deflate-compressed, as
/// HdrHistogram's own log format writes it: a third of plain V2's size; µs, 2 digits).
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// Width in seconds.
    pub span_s: u64,
    pub responses: u64,
    pub bad_status: u64,
    pub errors: [u64; ErrorKind::ALL.len()],
    pub statuses: Vec<(u16, u64)>,
    pub bytes_received: u64,
    pub late: u64,
    pub lag_sum_us: u64,
    pub sent: u64,
    pub histogram: Box<[u8]>,
}

impl Entry {
    /// The entry's latency histogram.
    pub fn latency(&self) -> Histogram<u32> {
        decode(&self.histogram)
    }

    pub fn total_errors(&self) -> u64 {
        self.errors.iter().sum()
    }
}

fn encode(h: &Histogram<u32>) -> Box<[u8]> {
    let mut buf = Vec::new();
    V2DeflateSerializer::new()
        .serialize(h, &mut buf)
        .expect("serializing to memory cannot fail");
    buf.into_boxed_slice()
}

fn decode(bytes: &[u8]) -> Histogram<u32> {
    let mut h = new_second_histogram();
    // Written by `encode` from a histogram of the same bounds: it decodes and adds.
    if let Ok(part) = Deserializer::new().deserialize::<u32, _>(&mut &bytes[..]) {
        let _ = h.add(&part);
    }
    h
}

/// A step's kept timeline (the coordinator's, or a merged step's): the last few
/// seconds as they arrived, the rest compactly, coarsened after [`FINE_S`].
#[derive(Debug, Clone)]
pub struct Timeline {
    fine_s: u64,
    span_s: u64,
    /// Uncompressed, by second, oldest first.
    recent: VecDeque<(u64, Second)>,
    /// Compact entries by their first second.
    entries: BTreeMap<u64, Entry>,
}

impl Default for Timeline {
    fn default() -> Self {
        Timeline::with_resolution(FINE_S, COARSE_SPAN_S)
    }
}

impl Timeline {
    /// One-second entries for `fine_s` seconds, then entries of `span_s` (≥ 1).
    pub fn with_resolution(fine_s: u64, span_s: u64) -> Self {
        Timeline {
            fine_s,
            span_s: span_s.max(1),
            recent: VecDeque::new(),
            entries: BTreeMap::new(),
        }
    }

    /// The entry second `i` belongs to: its first second and its width.
    pub fn bucket(&self, i: u64) -> (u64, u64) {
        if i < self.fine_s {
            (i, 1)
        } else {
            let start = self.fine_s + (i - self.fine_s) / self.span_s * self.span_s;
            (start, self.span_s)
        }
    }

    /// Entries after the first [`FINE_S`] seconds are wider than a second.
    pub fn coarsened(&self) -> bool {
        self.entries
            .keys()
            .next_back()
            .is_some_and(|k| *k >= self.fine_s)
            || self.recent.back().is_some_and(|(k, _)| *k >= self.fine_s)
    }

    /// Add second `index` of some worker (or part).
    pub fn add(&mut self, index: u64, second: Second) {
        if let Some((_, s)) = self.recent.iter_mut().find(|(i, _)| *i == index) {
            s.merge(&second);
            return;
        }
        if self.recent.front().is_some_and(|(i, _)| index < *i) && self.recent.len() >= RECENT {
            // Late (a worker whose running second stayed open while it waited).
            self.compact(index, &second);
            return;
        }
        let at = self.recent.partition_point(|(i, _)| *i < index);
        self.recent.insert(at, (index, second));
        while self.recent.len() > RECENT {
            let (i, s) = self.recent.pop_front().expect("longer than RECENT");
            self.compact(i, &s);
        }
    }

    fn compact(&mut self, index: u64, s: &Second) {
        let (start, span_s) = self.bucket(index);
        self.add_entry(start, span_s, s.counts_only(), &two_digits(&s.latency));
    }

    fn add_entry(&mut self, start: u64, span_s: u64, counts: Second, latency: &Histogram<u32>) {
        match self.entries.get_mut(&start) {
            Some(e) => {
                let mut h = decode(&e.histogram);
                let _ = h.add(latency);
                let mut sum = counts;
                sum.responses += e.responses;
                sum.bad_status += e.bad_status;
                for (a, b) in sum.errors.iter_mut().zip(&e.errors) {
                    *a += b;
                }
                for (code, n) in &e.statuses {
                    add_status(&mut sum.statuses, *code, *n);
                }
                sum.bytes_received += e.bytes_received;
                sum.late += e.late;
                sum.lag_sum_us += e.lag_sum_us;
                sum.sent += e.sent;
                *e = entry(span_s.max(e.span_s), &sum, &h);
            }
            None => {
                self.entries.insert(start, entry(span_s, &counts, latency));
            }
        }
    }

    /// Every entry by its first second, compact, in order (the recent seconds folded
    /// in).
    pub fn entries(&self) -> BTreeMap<u64, Entry> {
        let mut all = self.clone();
        while let Some((i, s)) = all.recent.pop_front() {
            all.compact(i, &s);
        }
        all.entries
    }

    /// Add another timeline of the same step, entry by entry: exact.
    pub fn merge(&mut self, other: &Timeline) {
        for (start, e) in other.entries() {
            self.put(start, &e);
        }
    }

    /// Add a kept entry (one read back from a result) starting at second `start`.
    pub fn put(&mut self, start: u64, e: &Entry) {
        let (at, span_s) = self.bucket(start);
        let counts = Second {
            responses: e.responses,
            bad_status: e.bad_status,
            errors: e.errors,
            statuses: e.statuses.clone(),
            bytes_received: e.bytes_received,
            late: e.late,
            lag_sum_us: e.lag_sum_us,
            sent: e.sent,
            latency: new_second_histogram(),
        };
        self.add_entry(at, span_s.max(e.span_s), counts, &e.latency());
    }

    /// Memory the compact entries hold, bytes (an estimate: their histograms and lists).
    pub fn compact_bytes(&self) -> usize {
        self.entries
            .values()
            .map(|e| std::mem::size_of::<Entry>() + e.histogram.len() + e.statuses.len() * 16)
            .sum()
    }
}

impl Second {
    /// The counts of this second without its histogram (an empty one in its place).
    fn counts_only(&self) -> Second {
        Second {
            responses: self.responses,
            bad_status: self.bad_status,
            errors: self.errors,
            statuses: self.statuses.clone(),
            bytes_received: self.bytes_received,
            late: self.late,
            lag_sum_us: self.lag_sum_us,
            sent: self.sent,
            latency: Histogram::new_with_bounds(1, 2, 1).expect("tiny bounds are valid"),
        }
    }
}

fn entry(span_s: u64, s: &Second, h: &Histogram<u32>) -> Entry {
    Entry {
        span_s,
        responses: s.responses,
        bad_status: s.bad_status,
        errors: s.errors,
        statuses: s.statuses.clone(),
        bytes_received: s.bytes_received,
        late: s.late,
        lag_sum_us: s.lag_sum_us,
        sent: s.sent,
        histogram: encode(h),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn a_worker_hands_over_each_second_once_it_ends() {
        let t0 = Instant::now();
        let mut t = Ticker::new(t0, &[0, 1]);
        let ok = Outcome::Status(200);
        assert!(t.record(t0 + ms(10), 0, ok, ms(5), 100, 100, 1).is_none());
        assert!(t.record(t0 + ms(900), 1, ok, ms(5), 50, 150, 1).is_none());
        let f = t
            .record(t0 + ms(2500), 5, Outcome::Status(503), ms(7), 30, 180, 1)
            .expect("second 0 ended");
        assert_eq!((f.index, f.second.responses), (0, 2));
        // The response that ended it counts in the next second, bytes too.
        assert_eq!(f.second.bytes_received, 150);
        assert_eq!(f.labels.len(), 2);
        assert_eq!(f.labels[1].1.bytes_received, 50);
        let last = t.finish(200).expect("second 2 holds one");
        assert_eq!((last.index, last.second.responses), (2, 1));
        assert_eq!(last.second.statuses, vec![(503, 1)]);
        assert_eq!(last.second.bytes_received, 50);
        // Label 5 is not timed.
        assert!(last.labels.is_empty());
    }

    /// A rate profile is judged second by second (issue 35): a paced request counts
    /// in the second it left — sent, late past 1 ms, its lag — whenever it ends.
    #[test]
    fn a_paced_request_counts_in_the_second_it_left() {
        let t0 = Instant::now();
        let mut t = Ticker::new(t0, &[]);
        assert!(t.record_lag(t0 + ms(100), ms(0), false, 0).is_none());
        assert!(t.record_lag(t0 + ms(900), ms(40), true, 0).is_none());
        let f = t
            .record_lag(t0 + ms(1200), ms(300), true, 0)
            .expect("second 0 ended");
        assert_eq!((f.index, f.second.sent, f.second.late), (0, 2, 1));
        assert_eq!(f.second.lag_sum_us, 40_000);
        assert_eq!(f.second.responses, 0, "sent, not answered");
        let last = t.finish(0).expect("second 1 holds one sent");
        assert_eq!(
            (last.index, last.second.sent, last.second.lag_sum_us),
            (1, 1, 300_000)
        );
        let mut tl = Timeline::default();
        tl.add(0, f.second);
        tl.add(1, last.second);
        let e = tl.entries();
        assert_eq!((e[&0].sent, e[&0].late, e[&1].lag_sum_us), (2, 1, 300_000));
    }

    #[test]
    fn seconds_add_exactly_and_late_ones_are_not_lost() {
        let mut tl = Timeline::default();
        for i in [0u64, 1, 2, 3, 4, 5, 1, 0] {
            let mut s = Second::new();
            s.record(Outcome::Status(200), ms(i + 1), &Default::default());
            s.bytes_received = 10;
            tl.add(i, s);
        }
        let e = tl.entries();
        assert_eq!(e.len(), 6);
        assert_eq!(e[&0].responses, 2);
        assert_eq!(e[&1].responses, 2);
        assert_eq!(e[&1].bytes_received, 20);
        assert_eq!(e[&1].latency().len(), 2);
        assert_eq!(e[&5].responses, 1);
    }

    #[test]
    fn seconds_after_the_fine_window_are_coarsened() {
        let mut tl = Timeline::with_resolution(5, 10);
        for i in 0..40u64 {
            let mut s = Second::new();
            s.record(Outcome::Status(200), ms(1), &Default::default());
            tl.add(i, s);
        }
        let e = tl.entries();
        let shape: Vec<(u64, u64, u64)> =
            e.iter().map(|(k, e)| (*k, e.span_s, e.responses)).collect();
        assert_eq!(
            shape,
            vec![
                (0, 1, 1),
                (1, 1, 1),
                (2, 1, 1),
                (3, 1, 1),
                (4, 1, 1),
                (5, 10, 10),
                (15, 10, 10),
                (25, 10, 10),
                (35, 10, 5)
            ]
        );
        assert!(tl.coarsened());
        assert_eq!(e[&5].latency().len(), 10);
    }

    #[test]
    fn a_day_at_fifty_thousand_a_second_fits_in_a_few_megabytes() {
        // 24 h: 3,600 one-second entries and 8,280 ten-second ones, each histogram as
        // busy as a second of 50k responses spread over 1..100 ms.
        let mut s = Second::new();
        for i in 0..50_000u64 {
            s.record(
                Outcome::Status(200),
                Duration::from_micros(1000 + i * 2),
                &Default::default(),
            );
        }
        let one = encode(&s.latency).len();
        let entries = 3_600 + 8_280;
        let total = entries * (one + std::mem::size_of::<Entry>() + 16);
        assert!(total < 40 << 20, "{one} bytes a histogram, {total} in all");
    }

    #[test]
    fn timelines_merge_entry_by_entry() {
        let mut a = Timeline::default();
        let mut b = Timeline::default();
        for i in 0..5u64 {
            let mut s = Second::new();
            s.record(Outcome::Error(ErrorKind::Reset), ms(1), &Default::default());
            a.add(i, s.clone());
            s.record(Outcome::Status(200), ms(3), &Default::default());
            b.add(i + 1, s);
        }
        a.merge(&b);
        let e = a.entries();
        assert_eq!(e.len(), 6);
        assert_eq!(e[&0].total_errors(), 1);
        assert_eq!((e[&3].total_errors(), e[&3].responses), (2, 1));
        assert_eq!((e[&5].total_errors(), e[&5].responses), (1, 1));
    }
}
