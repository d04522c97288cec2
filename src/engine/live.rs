//! A coarse latency histogram the live line can read while a step runs.
//!
//! The step's exact histograms live in each worker's `Recorder`, which only that
//! worker may touch until the step ends. For a live p99 the console needs something it
//! can read from another thread without a lock: per worker, one relaxed atomic
//! counter per bucket, four buckets per power of two of microseconds (each at most
//! 19% wide). Good enough to watch; the result's figures still come from HDR.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

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

/// The largest latency bucket `i` holds (its upper edge), microseconds.
fn upper_us(i: usize) -> u64 {
    if i == 0 {
        return 4;
    }
    let msb = (i - 1) / 4 + 2;
    let quarter = ((i - 1) % 4) as u64;
    (4 + quarter + 1) << (msb - 2)
}

/// One worker's live counts; written only by that worker.
pub struct Counts([AtomicU64; BUCKETS]);

impl Default for Counts {
    fn default() -> Self {
        Counts(std::array::from_fn(|_| AtomicU64::new(0)))
    }
}

impl Counts {
    pub fn record(&self, latency: Duration) {
        self.0[bucket(latency)].fetch_add(1, Ordering::Relaxed);
    }

    fn add_to(&self, into: &mut Snapshot) {
        for (sum, c) in into.0.iter_mut().zip(&self.0) {
            *sum += c.load(Ordering::Relaxed);
        }
    }
}

/// The counts of every worker at one moment, summed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Snapshot([u64; BUCKETS]);

impl Default for Snapshot {
    fn default() -> Self {
        Snapshot([0; BUCKETS])
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
        for (a, b) in s.0.iter_mut().zip(&earlier.0) {
            *a = a.saturating_sub(*b);
        }
        s
    }

    pub fn count(&self) -> u64 {
        self.0.iter().sum()
    }

    /// The buckets that hold a response, lowest first: the lowest latency each stands
    /// for, the first latency above it (µs), and its count. For a judge that reads a
    /// figure at whichever edge it must (`--abort-on-fail`).
    pub fn buckets(&self) -> Vec<(u64, u64, u64)> {
        self.0
            .iter()
            .enumerate()
            .filter(|(_, n)| **n > 0)
            .map(|(i, n)| (if i == 0 { 0 } else { upper_us(i - 1) }, upper_us(i), *n))
            .collect()
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
        for (i, c) in self.0.iter().enumerate() {
            seen += c;
            if seen >= rank {
                return Some(Duration::from_micros(upper_us(i)));
            }
        }
        None
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
}
