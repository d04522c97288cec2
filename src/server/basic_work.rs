//! `/work?ms=MS`: a server of known capacity. A fixed pool of workers (`hakaru serve
//! --workers N`) takes requests first come, first served; each holds its worker for
//! exactly MS milliseconds. Capacity is N ÷ MS per millisecond — 4 workers at 2 ms
//! serve 2,000 requests per second — and above it a queue grows without bound, as in
//! any real server, so a search for the highest sustainable rate has a truth to meet.
//!
//! The pool is a schedule, not threads: each request reserves the worker that frees
//! first, from the later of its arrival and that moment, and is answered when its
//! reservation ends. A late wake-up of the answer's timer therefore adds to that one
//! response's latency but never to the next request's start, so the capacity stays
//! exact. A request whose client gave up still holds its worker, as it would in a
//! server that does not notice.

use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The longest `/work?ms=` a request may ask for.
pub const MAX_WORK: Duration = Duration::from_secs(10);
/// `/work` without `ms`.
pub const DEFAULT_WORK: Duration = Duration::from_millis(1);
/// The most workers `--workers` may ask for.
pub const MAX_WORKERS: usize = 100_000;

/// The workers' schedule: when each becomes free.
pub struct WorkPool {
    free_at: Mutex<Vec<Instant>>,
}

impl WorkPool {
    /// A pool of `workers` (at least 1), all free now.
    pub fn new(workers: usize) -> WorkPool {
        let now = Instant::now();
        WorkPool {
            free_at: Mutex::new(vec![now; workers.clamp(1, MAX_WORKERS)]),
        }
    }

    pub fn workers(&self) -> usize {
        self.free_at.lock().map_or(1, |f| f.len())
    }

    /// Reserves the worker that frees first for `service`, from the later of `now` and
    /// its free time; returns how long after `now` the work ends.
    pub fn reserve(&self, now: Instant, service: Duration) -> Duration {
        // A poisoned lock only means another request panicked mid-update of a plain
        // list of instants: the list is still usable.
        let mut free = self.free_at.lock().unwrap_or_else(|p| p.into_inner());
        let Some((i, at)) = free.iter().copied().enumerate().min_by_key(|(_, t)| *t) else {
            return service;
        };
        let done = at.max(now) + service;
        free[i] = done;
        done - now
    }
}

/// `ms=N` in a query string, else [`DEFAULT_WORK`]; an error text for a bad value.
pub fn work_time(query: &str) -> Result<Duration, String> {
    let Some(v) = query.split('&').find_map(|kv| kv.strip_prefix("ms=")) else {
        return Ok(DEFAULT_WORK);
    };
    match v.parse::<f64>() {
        Ok(ms) if ms >= 0.0 && ms <= MAX_WORK.as_secs_f64() * 1e3 => {
            Ok(Duration::from_secs_f64(ms / 1e3))
        }
        _ => Err(format!(
            "/work?ms={v}: give milliseconds from 0 to {}\n",
            MAX_WORK.as_millis()
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capacity_is_workers_over_service_time() {
        let pool = WorkPool::new(2);
        let t0 = Instant::now();
        let ms = Duration::from_millis;
        // Six requests at once on two workers of 2 ms: answered at 2, 2, 4, 4, 6, 6 ms.
        let ends: Vec<Duration> = (0..6).map(|_| pool.reserve(t0, ms(2))).collect();
        assert_eq!(ends, [ms(2), ms(2), ms(4), ms(4), ms(6), ms(6)]);
        // Arriving after the backlog cleared: served at once.
        assert_eq!(pool.reserve(t0 + ms(10), ms(2)), ms(2));
        // One arriving at 7 ms waits for nobody: a worker was free since 6 ms.
        assert_eq!(pool.reserve(t0 + ms(7), ms(2)), ms(2));
    }

    #[test]
    fn queries() {
        assert_eq!(work_time(""), Ok(DEFAULT_WORK));
        assert_eq!(work_time("close=1&ms=2.5"), Ok(Duration::from_micros(2500)));
        assert!(work_time("ms=-1").is_err() && work_time("ms=x").is_err());
        assert!(work_time("ms=10001").is_err());
    }
}
