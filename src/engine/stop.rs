//! Ending a run early (Ctrl-C, SIGTERM, SIGHUP): one flag that wakes running steps and
//! sleeping intervals alike, and the signal handling that trips it. A second signal
//! quits at once, but never in the middle of writing the result files.

use std::io::Write as _;
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

    /// A [`Stop`] tripped by the first SIGINT (Ctrl-C), SIGTERM or SIGHUP (an SSH
    /// session dropping): the current step ends and what was measured is written. A
    /// second signal exits with 130 at once — once any result write under way is done
    /// ([`crate::outfile::hold_exit`]). A repeat within [`SAME_SIGNAL`] is the same signal (`timeout -s
    /// INT` sends it to the process and again to its group).
    pub fn on_signals() -> Stop {
        let stop = Stop::default();
        let s = stop.clone();
        let _ = std::thread::Builder::new()
            .name("hakaru-signals".into())
            .spawn(move || {
                let Ok(rt) = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                else {
                    return;
                };
                rt.block_on(watch_signals(s));
            });
        stop
    }
}

/// Two signals this close together are one: a process and its group signalled at once.
pub const SAME_SIGNAL: Duration = Duration::from_millis(100);

/// Which signal arrived.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Signal {
    Interrupt,
    Terminate,
    Hangup,
}

async fn next_signal(
    term: &mut Option<tokio::signal::unix::Signal>,
    hup: &mut Option<tokio::signal::unix::Signal>,
) -> Signal {
    async fn recv(s: &mut Option<tokio::signal::unix::Signal>) {
        match s.as_mut() {
            Some(s) => {
                s.recv().await;
            }
            None => std::future::pending().await,
        }
    }
    tokio::select! {
        _ = tokio::signal::ctrl_c() => Signal::Interrupt,
        _ = recv(term) => Signal::Terminate,
        _ = recv(hup) => Signal::Hangup,
    }
}

async fn watch_signals(stop: Stop) {
    use tokio::signal::unix::{signal, SignalKind};
    let mut term = signal(SignalKind::terminate()).ok();
    let mut hup = signal(SignalKind::hangup()).ok();
    let mut first: Option<Instant> = None;
    loop {
        let sig = next_signal(&mut term, &mut hup).await;
        if sig == Signal::Hangup {
            // The terminal is gone: what is printed to it from now on would fail.
            quiet_terminal();
        }
        match first {
            Some(at) if at.elapsed() < SAME_SIGNAL => continue,
            Some(_) => {
                let _hold = crate::outfile::hold_exit();
                say("\nStopped again: exiting without waiting.");
                std::process::exit(130);
            }
            None => {
                first = Some(Instant::now());
                stop.trigger();
                say(&stopping(sig));
            }
        }
    }
}

/// What the first signal says: how to quit at once after this one, in the terms of
/// the signal that came (a SIGTERM from a supervisor has no Ctrl-C to press again).
fn stopping(sig: Signal) -> String {
    let again = match sig {
        Signal::Interrupt => "Ctrl-C again to quit at once",
        Signal::Terminate => "SIGTERM received; send it again to quit at once",
        Signal::Hangup => "SIGHUP received; a second signal quits at once",
    };
    format!("\nStopping: ending the current step and writing what was measured ({again})...")
}

/// A line on stderr, if stderr can still take it.
fn say(line: &str) {
    let _ = writeln!(std::io::stderr(), "{line}");
}

/// After SIGHUP: stdout and stderr that were the lost terminal go to /dev/null, so the
/// live line and the summary do not fail the run that is being saved.
fn quiet_terminal() {
    use std::io::IsTerminal;
    let Ok(null) = std::fs::OpenOptions::new().write(true).open("/dev/null") else {
        return;
    };
    if std::io::stderr().is_terminal() {
        let _ = rustix::stdio::dup2_stderr(&null);
    }
    if std::io::stdout().is_terminal() {
        let _ = rustix::stdio::dup2_stdout(&null);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 35: a SIGTERM (from `timeout`, systemd, Kubernetes) was told "Ctrl-C
    /// again to quit at once". Each signal is named, and only Ctrl-C speaks of Ctrl-C.
    #[test]
    fn sigterm_does_not_say_ctrl_c_again() {
        let int = stopping(Signal::Interrupt);
        assert!(int.contains("(Ctrl-C again to quit at once)"), "{int}");
        let term = stopping(Signal::Terminate);
        assert!(!term.contains("Ctrl-C"), "{term}");
        assert!(term.contains("SIGTERM received; send it again"), "{term}");
        let hup = stopping(Signal::Hangup);
        assert!(!hup.contains("Ctrl-C") && hup.contains("SIGHUP"), "{hup}");
    }

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
