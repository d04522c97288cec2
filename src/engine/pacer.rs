//! When each request goes out: the pacers.
//!
//! - **Closed model**: a client sends its next request when its last one ended, after
//!   an optional pause (`--wait`). A request budget (`-n`) is shared by all workers and
//!   claimed in chunks, so the hot path touches a shared atomic once per chunk, not
//!   once per request.
//! - **Open model**: requests are due on a timetable, whatever the responses do, and
//!   latency counts from the due time (no coordinated omission). The timetable is a
//!   [`RateProfile`]: a fixed rate, a linear ramp, steps, or any sequence of those
//!   within one step (how `--rate` writes one is read by `spec::rate`).
//!
//! The timetable is indexed globally: request `i` of a step is due at `t0 + T(i)`
//! wherever it is sent from. A worker takes the indices of its [`Lane`]
//! (`first, first + stride, …`), and so can a shard of a run spread over many
//! machines: N shards together send exactly the one-machine timetable.

use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The highest rate a timetable accepts, requests per second.
pub const MAX_RATE: f64 = 10_000_000.0;
/// The lowest non-zero rate a timetable accepts: one request every ~12 days is not a load.
pub const MIN_RATE: f64 = 1e-6;

/// One piece of a rate profile: the rate goes linearly from `from` to `to` over `duration_s`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Segment {
    /// `None`: the last segment, held until the step ends.
    pub duration_s: Option<f64>,
    /// Requests per second at the start of the segment.
    pub from: f64,
    /// Requests per second at its end (equal to `from` for a constant rate).
    pub to: f64,
}

/// The open model's arrival rate over the time of one step.
#[derive(Debug, Clone, PartialEq)]
pub struct RateProfile {
    segments: Vec<Segment>,
    /// Per segment: its start (s from the step's start) and requests due before it.
    starts: Vec<(f64, f64)>,
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RateError {
    #[error("a rate must be between {MIN_RATE} and {MAX_RATE} requests per second, found {0}")]
    OutOfRange(f64),
    #[error("a linear ramp must start or end above zero")]
    AllZero,
}

impl RateProfile {
    /// A fixed rate for as long as the step lasts.
    pub fn constant(rate: f64) -> Result<RateProfile, RateError> {
        RateProfile::new(vec![Segment {
            duration_s: None,
            from: rate,
            to: rate,
        }])
    }

    pub fn new(segments: Vec<Segment>) -> Result<RateProfile, RateError> {
        for s in &segments {
            for r in [s.from, s.to] {
                if !(r == 0.0 || (MIN_RATE..=MAX_RATE).contains(&r)) || r.is_nan() {
                    return Err(RateError::OutOfRange(r));
                }
            }
            if s.from == 0.0 && s.to == 0.0 {
                return Err(RateError::AllZero);
            }
        }
        let mut starts = Vec::with_capacity(segments.len());
        let (mut t, mut n) = (0.0, 0.0);
        for s in &segments {
            starts.push((t, n));
            if let Some(d) = s.duration_s {
                t += d;
                n += (s.from + s.to) / 2.0 * d;
            }
        }
        Ok(RateProfile { segments, starts })
    }

    /// A fixed rate: its value. `None` for a profile that changes.
    pub fn fixed_rate(&self) -> Option<f64> {
        match self.segments[..] {
            [s] if s.from == s.to => Some(s.from),
            _ => None,
        }
    }

    /// The mean rate over `duration` (or the fixed rate), requests per second.
    pub fn mean_rate(&self, duration: Option<Duration>) -> f64 {
        if let Some(r) = self.fixed_rate() {
            return r;
        }
        let span = duration
            .map(|d| d.as_secs_f64())
            .or_else(|| self.length_s())
            .unwrap_or(0.0);
        if span <= 0.0 {
            return self.segments[0].from;
        }
        self.due_before_s(span) / span
    }

    /// How long the timetable lasts, if it ends (a last segment with a duration).
    pub fn length_s(&self) -> Option<f64> {
        let last = self.segments.len() - 1;
        self.segments[last]
            .duration_s
            .map(|d| self.starts[last].0 + d)
    }

    pub fn segments(&self) -> &[Segment] {
        &self.segments
    }

    /// Requests due in `[0, t)`, as a real number (request `i` is due when this reaches `i`).
    fn due_before_s(&self, t: f64) -> f64 {
        let k = self.starts.partition_point(|&(start, _)| start <= t).max(1) - 1;
        let (start, n0) = self.starts[k];
        let s = self.segments[k];
        let tau = match s.duration_s {
            Some(d) => (t - start).min(d),
            None => t - start,
        };
        let slope = s.duration_s.map_or(0.0, |d| (s.to - s.from) / d);
        n0 + s.from * tau + slope * tau * tau / 2.0
    }

    /// When request `i` is due, in seconds from the step's start; `None` past the end.
    pub fn due_s(&self, i: u64) -> Option<f64> {
        let x = i as f64;
        let k = self.starts.partition_point(|&(_, n)| n <= x).max(1) - 1;
        let (start, n0) = self.starts[k];
        let s = self.segments[k];
        let need = x - n0;
        let slope = s.duration_s.map_or(0.0, |d| (s.to - s.from) / d);
        // Solve from·τ + slope·τ²/2 = need; this form stays exact when slope is 0.
        let disc = s.from * s.from + 2.0 * slope * need;
        let denom = s.from + disc.max(0.0).sqrt();
        if denom <= 0.0 {
            return None;
        }
        let tau = 2.0 * need / denom;
        if s.duration_s.is_some_and(|d| tau >= d) {
            return None; // only reached at the end of the last segment
        }
        Some(start + tau)
    }
}

impl std::fmt::Display for RateProfile {
    /// The profile in `--rate`'s own syntax: `500`, `10s@100..2000,5s@2000`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let Some(r) = self.fixed_rate() {
            return write!(f, "{r}");
        }
        for (i, s) in self.segments.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            if let Some(d) = s.duration_s {
                write!(f, "{d}s@")?;
            }
            if s.from == s.to {
                write!(f, "{}", s.from)?;
            } else {
                write!(f, "{}..{}", s.from, s.to)?;
            }
        }
        Ok(())
    }
}

/// Which indices of the global timetable one worker (or one shard) takes:
/// `first, first + stride, first + 2·stride, …`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lane {
    pub first: u64,
    pub stride: u64,
}

impl Lane {
    /// The whole timetable.
    pub const ALL: Lane = Lane {
        first: 0,
        stride: 1,
    };

    /// Shard `k` of `n` (from 0).
    pub fn shard(k: u64, n: u64) -> Lane {
        Lane {
            first: k,
            stride: n.max(1),
        }
    }

    /// Part `w` of this lane split `parts` ways (each worker of a shard).
    pub fn split(self, w: u64, parts: u64) -> Lane {
        Lane {
            first: self.first + w * self.stride,
            stride: self.stride * parts.max(1),
        }
    }

    /// The global index of this lane's `j`-th request.
    pub fn index(self, j: u64) -> u64 {
        self.first + j * self.stride
    }

    /// How many of this lane's indices are below `total`.
    pub fn count_below(self, total: u64) -> u64 {
        if total <= self.first {
            0
        } else {
            (total - self.first).div_ceil(self.stride)
        }
    }
}

/// One worker's view of the open model's timetable.
pub struct Timetable {
    t0: Instant,
    profile: Arc<RateProfile>,
    lane: Lane,
    next_j: Cell<u64>,
    /// The step's total request count (`-n`), if bounded by count.
    limit: Option<u64>,
    deadline: Option<Instant>,
}

/// A request's place in the timetable.
#[derive(Debug, Clone, Copy)]
pub struct Due {
    /// Global index in the step's timetable.
    pub index: u64,
    pub at: Instant,
}

impl Timetable {
    pub fn new(
        t0: Instant,
        profile: Arc<RateProfile>,
        lane: Lane,
        limit: Option<u64>,
        deadline: Option<Instant>,
    ) -> Timetable {
        Timetable {
            t0,
            profile,
            lane,
            next_j: Cell::new(0),
            limit,
            deadline,
        }
    }

    /// Starts the timetable at `t0` instead (ending at `deadline`): the step's clock
    /// starts once every worker's clients are logged in, after it was built.
    pub fn start_at(&mut self, t0: Instant, deadline: Option<Instant>) {
        self.t0 = t0;
        self.deadline = deadline;
    }

    /// Claim the next due request, or `None` when this worker's share is over.
    pub fn claim(&self) -> Option<Due> {
        let j = self.next_j.get();
        let index = self.lane.index(j);
        if self.limit.is_some_and(|l| index >= l) {
            return None;
        }
        let s = self.profile.due_s(index)?;
        let at = self.t0.checked_add(Duration::try_from_secs_f64(s).ok()?)?;
        if self.deadline.is_some_and(|d| at >= d) {
            return None;
        }
        self.next_j.set(j + 1);
        Some(Due { index, at })
    }

    /// Requests of this worker that were due before `t` but never claimed.
    pub fn missed_before(&self, t: Instant) -> u64 {
        let span = t.saturating_duration_since(self.t0).as_secs_f64();
        let mut total = self.profile.due_before_s(span).ceil().max(0.0) as u64;
        if let Some(l) = self.limit {
            total = total.min(l);
        }
        self.lane
            .count_below(total)
            .saturating_sub(self.next_j.get())
    }
}

/// The closed model's request budget (`-n`), shared by every worker of a step.
pub struct Budget {
    shared: Arc<AtomicU64>,
    local: Cell<u64>,
    chunk: u64,
}

impl Budget {
    /// One worker's share of `shared` (which starts at `total`) among `workers`.
    /// Chunks are small enough that the last requests of a step still spread over
    /// the workers.
    pub fn new(shared: Arc<AtomicU64>, total: u64, workers: usize) -> Budget {
        let chunk = (total / (workers.max(1) as u64 * 64)).clamp(1, 256);
        Budget {
            shared,
            local: Cell::new(0),
            chunk,
        }
    }

    /// Take one request from the budget; false when it is spent.
    #[inline]
    pub fn take(&self) -> bool {
        let left = self.local.get();
        if left > 0 {
            self.local.set(left - 1);
            return true;
        }
        let chunk = self.chunk;
        match self
            .shared
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| {
                (n > 0).then(|| n - n.min(chunk))
            }) {
            Ok(before) => {
                self.local.set(before.min(chunk) - 1);
                true
            }
            Err(_) => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seg(d: f64, from: f64, to: f64) -> Segment {
        Segment {
            duration_s: Some(d),
            from,
            to,
        }
    }

    #[test]
    fn fixed_rate_is_evenly_spaced() {
        let p = RateProfile::constant(100.0).unwrap();
        assert_eq!(p.due_s(0), Some(0.0));
        assert!((p.due_s(150).unwrap() - 1.5).abs() < 1e-12);
        assert_eq!(p.due_before_s(1.0), 100.0);
        assert_eq!(p.fixed_rate(), Some(100.0));
    }

    #[test]
    fn linear_ramp_inverts_its_count() {
        // 0 → 200 req/s over 10 s: 1,000 requests in all, 250 in the first 5 s.
        let p = RateProfile::new(vec![seg(10.0, 0.0, 200.0)]).unwrap();
        assert!((p.due_before_s(5.0) - 250.0).abs() < 1e-9);
        assert!((p.due_s(250).unwrap() - 5.0).abs() < 1e-9);
        assert_eq!(p.due_s(1000), None);
        for i in [1u64, 10, 500, 999] {
            let t = p.due_s(i).unwrap();
            assert!((p.due_before_s(t) - i as f64).abs() < 1e-6, "i {i}");
        }
        assert!((p.mean_rate(Some(Duration::from_secs(10))) - 100.0).abs() < 1e-9);
    }

    #[test]
    fn steps_and_sequences() {
        let p = RateProfile::new(vec![
            seg(1.0, 100.0, 100.0),
            seg(1.0, 200.0, 200.0),
            seg(1.0, 400.0, 400.0),
        ])
        .unwrap();
        assert!((p.due_before_s(3.0) - 700.0).abs() < 1e-9);
        assert!((p.due_s(100).unwrap() - 1.0).abs() < 1e-9);
        assert!((p.due_s(300).unwrap() - 2.0).abs() < 1e-9);
        assert!((p.due_s(302).unwrap() - 2.005).abs() < 1e-9);
        let p = RateProfile::new(vec![seg(1.0, 10.0, 10.0), seg(1.0, 10.0, 30.0)]).unwrap();
        assert_eq!(p.length_s(), Some(2.0));
        assert!((p.due_before_s(2.0) - 30.0).abs() < 1e-9);
    }

    #[test]
    fn out_of_range_rates_are_refused() {
        assert_eq!(
            RateProfile::constant(1e-20),
            Err(RateError::OutOfRange(1e-20))
        );
        assert!(RateProfile::constant(1e9).is_err());
        assert!(RateProfile::constant(f64::NAN).is_err());
        assert_eq!(
            RateProfile::new(vec![seg(1.0, 0.0, 0.0)]),
            Err(RateError::AllZero)
        );
    }

    #[test]
    fn lanes_split_the_timetable_exactly() {
        // Two shards of two workers each take every index once.
        let mut seen = [0; 40];
        for k in 0..2 {
            for w in 0..2 {
                let lane = Lane::shard(k, 2).split(w, 2);
                for j in 0..10 {
                    seen[lane.index(j) as usize] += 1;
                }
                assert_eq!(lane.count_below(40), 10);
            }
        }
        assert!(seen.iter().all(|&n| n == 1));
        assert_eq!(Lane::ALL.split(1, 3).count_below(10), 3); // 1, 4, 7
    }

    #[test]
    fn timetable_counts_what_it_missed() {
        let t0 = Instant::now();
        let p = Arc::new(RateProfile::constant(100.0).unwrap());
        let a = Timetable::new(t0, p.clone(), Lane::ALL.split(0, 2), None, None);
        let b = Timetable::new(t0, p.clone(), Lane::ALL.split(1, 2), Some(15), None);
        let at = t0 + Duration::from_secs(1);
        assert_eq!(a.missed_before(at), 50);
        assert_eq!(b.missed_before(at), 7); // 1, 3, …, 13
        assert_eq!(a.claim().unwrap().index, 0);
        assert_eq!(a.claim().unwrap().index, 2);
        assert_eq!(a.missed_before(at), 48);
    }

    #[test]
    fn budget_is_claimed_in_chunks_and_never_overspent() {
        let shared = Arc::new(AtomicU64::new(1000));
        let a = Budget::new(shared.clone(), 1000, 2);
        let b = Budget::new(shared.clone(), 1000, 2);
        let mut n = 0;
        loop {
            let (x, y) = (a.take(), b.take());
            n += x as u32 + y as u32;
            if !x && !y {
                break;
            }
        }
        assert_eq!(n, 1000);
        assert_eq!(a.chunk, 7);
    }
}
