//! Answering a delayed request on time. tokio's timer wheel has millisecond
//! resolution and rounds every deadline up to its next tick, so `/delay/0` answered
//! in 1.16 ms at p50 and `/delay/5` in 6.1 ms: the calibration endpoints were a
//! millisecond slow. Here one thread per process keeps every pending answer's due
//! time in a heap, waits on a condition variable (a futex with nanosecond timeouts)
//! until just before the earliest, spins the last stretch, and wakes the answer's
//! task through a oneshot channel.
//!
//! The engine's own timer (`engine::timer`) is per worker and single-threaded; the
//! embedded server runs on a multi-threaded runtime, so it gets this shared one. A
//! lock per delayed answer is fine on the target's side.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::{Condvar, Mutex, OnceLock};
use std::time::{Duration, Instant};

use tokio::sync::oneshot;

/// How long before a due time the thread stops sleeping and spins, at least and at
/// most: it learns how late its own wake-ups come (a moving average, as the engine's
/// timer does), so a busy machine spins longer and a quiet one hardly at all.
const MIN_LEAD: Duration = Duration::from_micros(50);
const MAX_LEAD: Duration = Duration::from_micros(500);

struct Entry {
    at: Instant,
    seq: u64,
    wake: oneshot::Sender<()>,
}

impl PartialEq for Entry {
    fn eq(&self, o: &Self) -> bool {
        (self.at, self.seq) == (o.at, o.seq)
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Entry {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        (self.at, self.seq).cmp(&(o.at, o.seq))
    }
}

#[derive(Default)]
struct Pending {
    heap: BinaryHeap<Reverse<Entry>>,
    seq: u64,
}

struct Sleeper {
    pending: Mutex<Pending>,
    changed: Condvar,
}

fn sleeper() -> &'static Sleeper {
    static SLEEPER: OnceLock<&'static Sleeper> = OnceLock::new();
    SLEEPER.get_or_init(|| {
        let s: &'static Sleeper = Box::leak(Box::new(Sleeper {
            pending: Mutex::new(Pending::default()),
            changed: Condvar::new(),
        }));
        std::thread::Builder::new()
            .name("hakaru-delays".into())
            .spawn(move || s.run())
            .expect("the delay thread starts");
        s
    })
}

impl Sleeper {
    fn run(&self) {
        // A poisoned lock only means a registering task panicked mid-push: the heap
        // is still a heap.
        let mut p = self.pending.lock().unwrap_or_else(|e| e.into_inner());
        let mut lead = MIN_LEAD;
        loop {
            let Some(Reverse(first)) = p.heap.peek() else {
                p = self.changed.wait(p).unwrap_or_else(|e| e.into_inner());
                continue;
            };
            let now = Instant::now();
            if first.at <= now {
                if let Some(Reverse(e)) = p.heap.pop() {
                    // The answer's task may have gone (the server stopped): fine.
                    let _ = e.wake.send(());
                }
                continue;
            }
            let left = first.at - now;
            if left > lead {
                let meant = now + (left - lead);
                let (q, slept) = self
                    .changed
                    .wait_timeout(p, left - lead)
                    .unwrap_or_else(|e| e.into_inner());
                p = q;
                if slept.timed_out() {
                    // An eighth of the newest lateness, and a margin, into the lead.
                    let late = Instant::now().saturating_duration_since(meant);
                    lead = ((lead * 7 + late) / 8 + MIN_LEAD / 2).clamp(MIN_LEAD, MAX_LEAD);
                }
            } else {
                let at = first.at;
                drop(p);
                while Instant::now() < at {
                    std::hint::spin_loop();
                }
                p = self.pending.lock().unwrap_or_else(|e| e.into_inner());
            }
        }
    }

    fn register(&self, at: Instant) -> oneshot::Receiver<()> {
        let (wake, woken) = oneshot::channel();
        let mut p = self.pending.lock().unwrap_or_else(|e| e.into_inner());
        let earliest = p.heap.peek().is_none_or(|Reverse(e)| at < e.at);
        p.seq += 1;
        let seq = p.seq;
        p.heap.push(Reverse(Entry { at, seq, wake }));
        drop(p);
        if earliest {
            self.changed.notify_one();
        }
        woken
    }
}

/// Sleeps for `d`, waking within a few tens of microseconds of it; no sleep at all for zero.
pub async fn sleep(d: Duration) {
    if d.is_zero() {
        return;
    }
    let Some(at) = Instant::now().checked_add(d) else {
        return std::future::pending().await;
    };
    // The sender is dropped only by the thread after it sent, so an error cannot
    // come early; either way the wait is over.
    let _ = sleeper().register(at).await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn many_sleeps_end_in_order_and_not_early() {
        let start = Instant::now();
        let waits: Vec<_> = (0..50u64)
            .map(|i| {
                tokio::spawn(async move {
                    let d = Duration::from_micros(200 * (50 - i));
                    let t0 = Instant::now();
                    sleep(d).await;
                    (d, t0.elapsed())
                })
            })
            .collect();
        for w in waits {
            let (asked, took) = w.await.expect("the task ends");
            assert!(took >= asked, "woke {took:?} for {asked:?}: early");
        }
        assert!(start.elapsed() < Duration::from_secs(5));
        sleep(Duration::ZERO).await;
    }
}
