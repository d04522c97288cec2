//! Ending a run early (Ctrl-C, SIGTERM): one flag that wakes running steps and
//! sleeping intervals alike.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::watch;

/// Ends a run early (Ctrl-C). Wakes running steps and sleeping intervals alike.
#[derive(Clone)]
pub struct Stop(Arc<StopInner>);

struct StopInner {
    flag: AtomicBool,
    watch: watch::Sender<bool>,
    lock: Mutex<()>,
    cond: Condvar,
}

impl Default for Stop {
    fn default() -> Self {
        Stop(Arc::new(StopInner {
            flag: AtomicBool::new(false),
            watch: watch::Sender::new(false),
            lock: Mutex::new(()),
            cond: Condvar::new(),
        }))
    }
}

impl Stop {
    pub fn trigger(&self) {
        self.0.flag.store(true, Ordering::SeqCst);
        self.0.watch.send_replace(true);
        let _guard = self.0.lock.lock().unwrap_or_else(|e| e.into_inner());
        self.0.cond.notify_all();
    }

    pub fn is_triggered(&self) -> bool {
        self.0.flag.load(Ordering::SeqCst)
    }

    /// Sleep up to `d`; returns early (true) if stopped.
    pub fn sleep(&self, d: Duration) -> bool {
        let end = Instant::now() + d;
        let mut guard = self.0.lock.lock().unwrap_or_else(|e| e.into_inner());
        while !self.is_triggered() {
            let now = Instant::now();
            if now >= end {
                return false;
            }
            guard = self
                .0
                .cond
                .wait_timeout(guard, end - now)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        true
    }

    pub(super) fn subscribe(&self) -> watch::Receiver<bool> {
        self.0.watch.subscribe()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stop_wakes_a_sleeping_interval() {
        let stop = Stop::default();
        let s2 = stop.clone();
        let t = std::thread::spawn(move || s2.sleep(Duration::from_secs(600)));
        std::thread::sleep(Duration::from_millis(20));
        stop.trigger();
        assert!(t.join().unwrap());
    }
}
