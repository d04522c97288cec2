//! A coarse latency histogram the live line can read while a step runs.
//!
//! The step's exact histograms live in each worker's `Recorder`, which only that
//! worker may touch until the step ends. For a live p99 the console needs something it
//! can read from another thread without a lock: per worker, one relaxed atomic
//! counter per bucket, four buckets per power of two of microseconds (each at most
//! 19% wide). Good enough to watch; the result's figures still come from HDR.
//! Beside the buckets, running sums ([`Sums`]: latency and its square, the open
//! model's lag, skipped requests) give an interval's mean and deviation to the
//! microsecond, as pgbench's `-P` line prints them.
//!
//! Labels have no such counters (the per-request path stays as it is): the labels a
//! run's thresholds name are fed from the seconds the workers hand the coordinating
//! thread ([`LabelFeed`]), so a label's figures are up to date once its second ends.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use crate::stats::{Finished, Label, Labels, Second};

/// Four buckets per octave of microseconds, up to 2^35 µs (9.5 hours): bucket 0 holds
/// everything under 4 µs.
pub const BUCKETS: usize = 4 * 33;

/// The bucket of a latency: the octave of its microseconds and the next two bits.
fn bucket(d: Duration) -> usize {
    let us = d.as_micros().min(u64::MAX as u128) as u64;
    if us < 4 {
        return 0;
    }
    let msb = 63 - us.leading_zeros() as usize; // ≥ 2
    let quarter = ((us >> (msb - 2)) & 3) as usize;
    (1 + 4 * (msb - 2) + quarter).min(BUCKETS - 1)
}

/// The upper edge of bucket `i`, microseconds: the bucket holds latencies below it
/// (whole microseconds up to one less), and at or above the edge of bucket `i - 1`.
pub fn upper_us(i: usize) -> u64 {
    if i == 0 {
        return 4;
    }
    let msb = (i - 1) / 4 + 2;
    let quarter = ((i - 1) % 4) as u64;
    (4 + quarter + 1) << (msb - 2)
}

/// One worker's live counts; written only by that worker.
pub struct Counts {
    buckets: [AtomicU64; BUCKETS],
    /// [`Sums`]' fields in its order.
    sums: [AtomicU64; 5],
}

impl Default for Counts {
    fn default() -> Self {
        Counts {
            buckets: std::array::from_fn(|_| AtomicU64::new(0)),
            sums: std::array::from_fn(|_| AtomicU64::new(0)),
        }
    }
}

impl Counts {
    pub fn record(&self, latency: Duration) {
        self.record_n(latency, 1);
    }

    /// `n` responses of this latency (a pipelined read's replies sent in one write).
    pub fn record_n(&self, latency: Duration, n: u64) {
        add(&self.buckets[bucket(latency)], n);
        let us = micros(latency);
        // Wrapping: a difference of two snapshots is exact.
        add(&self.sums[0], us.wrapping_mul(n));
        add(&self.sums[1], us.wrapping_mul(us).wrapping_mul(n));
    }

    /// The open model: how late a request left after its due time.
    pub fn record_lag(&self, lag: Duration) {
        add(&self.sums[2], micros(lag));
        add(&self.sums[3], 1);
    }

    /// A request skipped, not sent (see [`crate::stats::Recorder::skipped`]).
    pub fn record_skipped(&self) {
        add(&self.sums[4], 1);
    }

    fn add_to(&self, into: &mut Snapshot) {
        for (sum, c) in into.buckets.iter_mut().zip(&self.buckets) {
            *sum += c.load(Ordering::Relaxed);
        }
        let s = &mut into.sums;
        let [l, l2, lag, lags, skipped] = self.sums.each_ref().map(|c| c.load(Ordering::Relaxed));
        s.latency_us = s.latency_us.wrapping_add(l);
        s.latency_sq_us = s.latency_sq_us.wrapping_add(l2);
        s.lag_us = s.lag_us.wrapping_add(lag);
        s.lags += lags;
        s.skipped += skipped;
    }
}

/// Adds `n` to a counter only its worker writes: a plain load and store, not a
/// locked read-modify-write (three of those a response were the per-request cost
/// of `-P`'s sums); readers on other threads see it a moment later.
#[inline]
fn add(c: &AtomicU64, n: u64) {
    c.store(c.load(Ordering::Relaxed).wrapping_add(n), Ordering::Relaxed);
}

fn micros(d: Duration) -> u64 {
    d.as_micros().min(u64::MAX as u128) as u64
}

/// Running sums of a step's requests, beside the buckets: wrapping, so the
/// difference of two snapshots of one step ([`Snapshot::since`]) is exact while the
/// interval's own sums stay under 2^64 (a day of 1 s latencies squared at 1,000/s).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Sums {
    /// Responses' latencies, µs.
    pub latency_us: u64,
    /// Their squares, µs².
    pub latency_sq_us: u64,
    /// The open model's lag of the requests sent, µs, and how many were sent.
    pub lag_us: u64,
    pub lags: u64,
    /// Requests skipped ([`Counts::record_skipped`]).
    pub skipped: u64,
}

/// The counts of every worker at one moment, summed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Snapshot {
    buckets: [u64; BUCKETS],
    sums: Sums,
}

impl Default for Snapshot {
    fn default() -> Self {
        Snapshot {
            buckets: [0; BUCKETS],
            sums: Sums::default(),
        }
    }
}

impl Snapshot {
    pub fn of<'a>(workers: impl IntoIterator<Item = &'a Counts>) -> Snapshot {
        let mut s = Snapshot::default();
        for w in workers {
            w.add_to(&mut s);
        }
        s
    }

    /// What was recorded after `earlier` (a snapshot of the same step).
    pub fn since(&self, earlier: &Snapshot) -> Snapshot {
        let mut s = *self;
        for (a, b) in s.buckets.iter_mut().zip(&earlier.buckets) {
            *a = a.saturating_sub(*b);
        }
        let (a, b) = (&mut s.sums, &earlier.sums);
        a.latency_us = a.latency_us.wrapping_sub(b.latency_us);
        a.latency_sq_us = a.latency_sq_us.wrapping_sub(b.latency_sq_us);
        a.lag_us = a.lag_us.wrapping_sub(b.lag_us);
        a.lags = a.lags.saturating_sub(b.lags);
        a.skipped = a.skipped.saturating_sub(b.skipped);
        s
    }

    pub fn count(&self) -> u64 {
        self.buckets.iter().sum()
    }

    /// The count of every bucket, in order of [`upper_us`].
    pub fn buckets(&self) -> &[u64; BUCKETS] {
        &self.buckets
    }

    /// The running sums (exact for live counts; from a histogram, to its precision).
    pub fn sums(&self) -> &Sums {
        &self.sums
    }

    /// The same buckets filled from a step's exact HDR histogram (whole microseconds,
    /// as the recorder keeps them). Exact, not an estimate: every edge is a multiple of
    /// a quarter octave, which the histogram's 3 significant digits resolve, so no
    /// histogram bucket straddles an edge (2 digits, a second's, resolve them too).
    pub fn from_histogram<T: hdrhistogram::Counter>(h: &hdrhistogram::Histogram<T>) -> Snapshot {
        let mut s = Snapshot::default();
        s.add_histogram(h);
        s
    }

    /// Add the responses of `h` (see [`Snapshot::from_histogram`]).
    pub fn add_histogram<T: hdrhistogram::Counter>(&mut self, h: &hdrhistogram::Histogram<T>) {
        for v in h.iter_recorded() {
            let us = h.lowest_equivalent(v.value_iterated_to());
            let n = v.count_at_value().as_u64();
            self.buckets[bucket(Duration::from_micros(us))] += n;
            let s = &mut self.sums;
            s.latency_us = s.latency_us.wrapping_add(us.wrapping_mul(n));
            s.latency_sq_us = s
                .latency_sq_us
                .wrapping_add(us.wrapping_mul(us).wrapping_mul(n));
        }
    }

    /// The quantile `q` (0..=1) as its bucket's upper edge: never below the truth, at
    /// most 25% above it. None without responses.
    pub fn quantile(&self, q: f64) -> Option<Duration> {
        let n = self.count();
        if n == 0 {
            return None;
        }
        let rank = ((q * n as f64).ceil() as u64).clamp(1, n);
        let mut seen = 0;
        for (i, c) in self.buckets.iter().enumerate() {
            seen += c;
            if seen >= rank {
                return Some(Duration::from_micros(upper_us(i)));
            }
        }
        None
    }
}

/// What some of a step's requests (all of them, or one label's) came to so far.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Tally {
    /// Requests that ended (a response or an error).
    pub finished: u64,
    /// Of those, the ones without a successful response.
    pub failed: u64,
    /// The responses' latencies, coarsely.
    pub latency: Snapshot,
}

impl Tally {
    /// What was counted after `earlier` (a tally of the same step).
    pub fn since(&self, earlier: &Tally) -> Tally {
        Tally {
            finished: self.finished.saturating_sub(earlier.finished),
            failed: self.failed.saturating_sub(earlier.failed),
            latency: self.latency.since(&earlier.latency),
        }
    }

    /// Add a finished second (its `bad_status` already judged by `--ok-status`).
    pub fn add_second(&mut self, s: &Second) {
        let errors = s.total_errors();
        self.finished += s.responses + errors;
        self.failed += s.bad_status + errors;
        self.latency.add_histogram(&s.latency);
    }
}

/// The labels a run's thresholds name (`p99{group=search}<50ms`), fed while each step
/// runs: every one gets a per-second timeline whatever its rank among the workload's
/// labels (as k6 keeps a sub-metric for every tag a threshold names), and the
/// coordinating thread adds its finished seconds here, for `--abort-on-fail` to judge
/// live. Shared by the run's engine settings and its judge.
#[derive(Debug, Default)]
pub struct LabelFeed {
    named: Vec<Label>,
    step: Mutex<FeedStep>,
}

/// The running step's view of the named labels.
#[derive(Debug, Default)]
struct FeedStep {
    /// Workload label index → the named label's position, when it is one.
    slots: Vec<Option<usize>>,
    /// Per named label: its tally so far in the step, None when the step's workload
    /// has no such label.
    tallies: Vec<Option<Tally>>,
}

impl LabelFeed {
    pub fn new(named: Vec<Label>) -> Self {
        LabelFeed {
            named,
            step: Mutex::default(),
        }
    }

    /// The labels fed, in the order of [`LabelFeed::tallies`].
    pub fn named(&self) -> &[Label] {
        &self.named
    }

    /// A step of a workload with `labels` begins: the tallies start again. Returns
    /// the indices of the named labels among `labels` (the ones to time).
    pub fn start_step(&self, labels: &Labels) -> Vec<u16> {
        let mut step = self.step.lock().unwrap_or_else(|e| e.into_inner());
        step.slots = labels
            .list
            .iter()
            .map(|l| self.named.iter().position(|n| n == l))
            .collect();
        step.tallies = self
            .named
            .iter()
            .map(|n| labels.list.contains(n).then(Tally::default))
            .collect();
        (0..step.slots.len() as u16)
            .filter(|i| step.slots[usize::from(*i)].is_some())
            .collect()
    }

    /// A worker's finished second: the named labels' shares added.
    pub fn add(&self, f: &Finished) {
        let mut step = self.step.lock().unwrap_or_else(|e| e.into_inner());
        let FeedStep { slots, tallies } = &mut *step;
        for (label, s) in &f.labels {
            let slot = slots.get(usize::from(*label)).copied().flatten();
            if let Some(Some(t)) = slot.and_then(|k| tallies.get_mut(k)) {
                t.add_second(s);
            }
        }
    }

    /// Each named label's tally so far in the running step (None: the step's
    /// workload has no such label).
    pub fn tallies(&self) -> Vec<Option<Tally>> {
        self.step
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .tallies
            .clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_latency_is_at_most_its_bucket_edge_and_within_a_quarter_of_it() {
        for us in [
            0u64,
            1,
            3,
            4,
            5,
            7,
            8,
            100,
            999,
            1000,
            12_345,
            1 << 20,
            5_000_000,
        ] {
            let d = Duration::from_micros(us);
            let edge = upper_us(bucket(d));
            assert!(edge >= us, "{us} µs in a bucket up to {edge}");
            if us >= 4 {
                assert!(edge as f64 <= us as f64 * 1.25 + 1.0, "{us} µs → {edge}");
            }
        }
        // Buckets grow with latency and never run off the end.
        assert!(bucket(Duration::from_secs(100_000)) == BUCKETS - 1);
        let edges: Vec<u64> = (0..BUCKETS).map(upper_us).collect();
        assert!(edges.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn p99_of_the_last_window_only() {
        let w = Counts::default();
        for _ in 0..1000 {
            w.record(Duration::from_millis(100));
        }
        let before = Snapshot::of([&w]);
        for _ in 0..990 {
            w.record(Duration::from_micros(500));
        }
        for _ in 0..10 {
            w.record(Duration::from_millis(20));
        }
        let last = Snapshot::of([&w]).since(&before);
        assert_eq!(last.count(), 1000);
        let p99 = last.quantile(0.99).unwrap();
        assert!(p99 >= Duration::from_micros(500) && p99 < Duration::from_micros(640));
        let max = last.quantile(1.0).unwrap();
        assert!(max >= Duration::from_millis(20) && max < Duration::from_millis(25));
        assert_eq!(Snapshot::default().quantile(0.99), None);
    }

    #[test]
    fn an_hdr_histogram_fills_the_same_buckets_as_the_live_counts() {
        // Every edge is a multiple of a quarter octave, which 3 significant digits
        // resolve: the step's exact histogram and the live counts agree bucket for bucket.
        let mut h = crate::stats::new_histogram();
        let w = Counts::default();
        let mut us = 1u64;
        while us < 600_000_000 {
            for v in [
                us,
                us + 1,
                us.saturating_sub(1).max(1),
                us * 5 / 4,
                us * 5 / 4 - 1,
            ] {
                h.record(v).unwrap();
                w.record(Duration::from_micros(v));
            }
            us = us * 9 / 8 + 1;
        }
        assert_eq!(
            Snapshot::from_histogram(&h).buckets(),
            Snapshot::of([&w]).buckets()
        );
    }

    /// The sums give an interval's mean and deviation to the microsecond (pgbench's
    /// `-P`), the lag and the skipped beside them.
    #[test]
    fn sums_of_an_interval_are_exact() {
        let w = Counts::default();
        w.record(Duration::from_millis(100));
        let before = Snapshot::of([&w]);
        w.record_n(Duration::from_micros(1_000), 2);
        w.record(Duration::from_micros(4_000));
        w.record_lag(Duration::from_micros(30));
        w.record_skipped();
        let s = *Snapshot::of([&w]).since(&before).sums();
        assert_eq!(
            s,
            Sums {
                latency_us: 6_000,
                latency_sq_us: 18_000_000,
                lag_us: 30,
                lags: 1,
                skipped: 1
            }
        );
    }
}
