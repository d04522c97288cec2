//! `--live-out FILE`: the run as one JSON line per second, for tools that read a
//! stream rather than scrape (a dashboard's tail, a script deciding to stop a test).
//!
//! Every line is an object with `"event"`: `"second"` about once a second while a step
//! runs (the engine reports every ~250 ms, so a line comes at the first report past
//! each whole second), `"step"` when a step ends, with its exact totals. Latencies are
//! milliseconds; the per-second ones come from the engine's coarse buckets (at most
//! 25% above the truth), the step's from its exact histogram.

use std::io::Write;
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::engine::live::Snapshot;
use crate::engine::{Progress, StepSpec};
use crate::result::{RunResult, StepResult};
use crate::runner::{Observer, Position};

/// Opens `--live-out`'s file for writing without ever blocking: a FIFO with no
/// reader is refused at once (`ENXIO`, said before any load) instead of blocking
/// `open()`, and a reader that stops reading makes writes fail with `WouldBlock`
/// (lines dropped, counted) instead of stalling the run past its duration.
pub fn open(path: &std::path::Path) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt as _;
    std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .map_err(|e| match e.raw_os_error() {
            Some(libc::ENXIO) => {
                std::io::Error::new(e.kind(), "a FIFO with no reader (start the reader first)")
            }
            _ => e,
        })
}

/// Writes the lines; the first write error ends the stream (said once on stderr), so a
/// closed pipe never stops the load. A reader too slow to take a line (the write
/// would block) loses that line, counted and said at the end; a line cut short by a
/// full pipe is finished before any other is written.
pub struct LiveOut {
    out: Option<Box<dyn Write + Send>>,
    /// The rest of a line a full pipe cut short.
    pending: Vec<u8>,
    /// Lines dropped because the reader was not reading.
    dropped: u64,
    /// When the run's first step (or warm-up) started: the lines' `elapsed_s`.
    t0: Option<Instant>,
    step: usize,
    round: usize,
    clients: usize,
    rate: Option<f64>,
    warming: bool,
    /// The last line's moment in the step, its counts and histogram.
    last: (Duration, u64, u64, Snapshot),
}

impl LiveOut {
    pub fn new(out: Box<dyn Write + Send>) -> LiveOut {
        LiveOut {
            out: Some(out),
            pending: Vec::new(),
            dropped: 0,
            t0: None,
            step: 0,
            round: 1,
            clients: 0,
            rate: None,
            warming: false,
            last: (Duration::ZERO, 0, 0, Snapshot::default()),
        }
    }

    fn elapsed_s(&mut self) -> f64 {
        self.t0
            .get_or_insert_with(Instant::now)
            .elapsed()
            .as_secs_f64()
    }

    fn line(&mut self, v: &impl Serialize) {
        if self.out.is_none() {
            return;
        }
        if !self.finish_pending() {
            self.dropped += 1;
            return;
        }
        let mut text = serde_json::to_vec(v).expect("a line serializes");
        text.push(b'\n');
        match self.write_some(&text) {
            0 if self.out.is_some() => self.dropped += 1,
            n if n < text.len() => self.pending = text[n..].to_vec(),
            _ => {}
        }
    }

    /// Writes what is left of a line cut short; whether nothing is left.
    fn finish_pending(&mut self) -> bool {
        if self.pending.is_empty() {
            return true;
        }
        let pending = std::mem::take(&mut self.pending);
        let n = self.write_some(&pending);
        if n < pending.len() && self.out.is_some() {
            self.pending = pending[n..].to_vec();
        }
        self.pending.is_empty()
    }

    /// Writes what the file takes of `bytes` now (a full pipe takes less, or
    /// nothing). Returns how many bytes went.
    fn write_some(&mut self, bytes: &[u8]) -> usize {
        let Some(out) = self.out.as_mut() else {
            return 0;
        };
        let mut done = 0;
        while done < bytes.len() {
            match out.write(&bytes[done..]) {
                Ok(0) => break,
                Ok(n) => done += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => break,
                Err(e) => {
                    eprintln!("hakaru: --live-out: cannot write ({e}); no more lines");
                    self.out = None;
                    return done;
                }
            }
        }
        let _ = out.flush();
        done
    }
}

impl Drop for LiveOut {
    /// A line cut short is finished if the reader takes it within a second; lines
    /// the reader did not take are said.
    fn drop(&mut self) {
        let until = Instant::now() + Duration::from_secs(1);
        while !self.finish_pending() && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(10));
        }
        if !self.pending.is_empty() {
            self.dropped += 1;
        }
        if self.dropped > 0 {
            eprintln!(
                "hakaru: --live-out: {} line(s) dropped: the reader did not keep up (the \
                 run was never held back for it)",
                self.dropped
            );
        }
    }
}

/// What every line says first: which step, and when.
#[derive(Serialize)]
struct Head {
    /// "second" or "step".
    event: &'static str,
    /// Seconds since the run's first step (or warm-up) started.
    elapsed_s: f64,
    /// From 1, across rounds and probes (as the exporter's `step` label).
    step: usize,
    round: usize,
    clients: usize,
    /// Open model: the offered rate, requests per second.
    rate: Option<f64>,
    step_elapsed_s: f64,
}

/// About once a second while a step runs: the engine's live counts.
#[derive(Serialize)]
struct SecondLine {
    #[serde(flatten)]
    head: Head,
    /// Requests that ended in the step so far, and of those without a 2xx/3xx.
    requests: u64,
    failures: u64,
    /// Over the last line's span (about a second).
    requests_per_s: f64,
    failures_per_s: f64,
    p50_ms: Option<f64>,
    p99_ms: Option<f64>,
}

/// When a step ends: its exact totals, from the result.
#[derive(Serialize)]
struct StepLine<'a> {
    #[serde(flatten)]
    head: Head,
    requests: u64,
    failures: u64,
    responses: u64,
    requests_per_s: f64,
    statuses: &'a std::collections::BTreeMap<u16, u64>,
    errors: &'a std::collections::BTreeMap<crate::stats::ErrorKind, u64>,
    p50_ms: Option<f64>,
    p99_ms: Option<f64>,
    partial: bool,
}

/// `x` to `places` decimals, so the lines stay short.
fn round(x: f64, places: i32) -> f64 {
    let f = 10f64.powi(places);
    (x * f).round() / f
}

fn ms(d: Option<Duration>) -> Option<f64> {
    d.map(|d| round(d.as_secs_f64() * 1e3, 3))
}

impl LiveOut {
    fn head(&mut self, event: &'static str, step_elapsed_s: f64) -> Head {
        Head {
            event,
            elapsed_s: round(self.elapsed_s(), 3),
            step: self.step,
            round: self.round,
            clients: self.clients,
            rate: self.rate,
            step_elapsed_s: round(step_elapsed_s, 3),
        }
    }
}

impl Observer for LiveOut {
    fn warmup_started(&mut self, _d: Duration, _spec: &StepSpec) {
        self.elapsed_s();
        self.warming = true;
    }

    fn step_started(&mut self, at: Position, spec: &StepSpec) {
        self.elapsed_s();
        self.warming = false;
        self.step += 1;
        self.round = at.round;
        self.clients = spec.n_clients.max(1);
        self.rate = spec.mean_rate();
        self.last = (Duration::ZERO, 0, 0, Snapshot::default());
    }

    fn progress(&mut self, _spec: &StepSpec, p: Progress) {
        if self.warming || self.step == 0 {
            return;
        }
        let (at, finished, failed, ref hist) = self.last;
        // The first report past the next whole second of the step.
        if p.elapsed.as_secs() <= at.as_secs() {
            return;
        }
        let window = p.latency.since(hist);
        let span = (p.elapsed - at).as_secs_f64();
        let line = SecondLine {
            head: self.head("second", p.elapsed.as_secs_f64()),
            requests: p.finished,
            failures: p.failed,
            requests_per_s: round(p.finished.saturating_sub(finished) as f64 / span, 1),
            failures_per_s: round(p.failed.saturating_sub(failed) as f64 / span, 1),
            p50_ms: ms(window.quantile(0.5)),
            p99_ms: ms(window.quantile(0.99)),
        };
        self.last = (p.elapsed, p.finished, p.failed, p.latency);
        self.line(&line);
    }

    fn step_finished(&mut self, _run: &RunResult, step: &StepResult) {
        let has = step.latency.count > 0;
        let line = StepLine {
            head: self.head("step", step.elapsed_s),
            requests: step.total_requests,
            failures: step.error_total() + step.non_success(),
            responses: step.responses,
            requests_per_s: round(step.qps, 1),
            statuses: &step.statuses,
            errors: &step.errors,
            p50_ms: has.then(|| round(step.latency.p50_s * 1e3, 3)),
            p99_ms: has.then(|| round(step.latency.p99_s * 1e3, 3)),
            partial: step.partial,
        };
        self.line(&line);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::live::Counts;
    use std::sync::{Arc, Mutex};

    /// A writer the test can read back.
    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);
    impl Write for Shared {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    /// A pipe with room for `room` more bytes, then `WouldBlock`.
    #[derive(Clone, Default)]
    struct Pipe(Arc<Mutex<(Vec<u8>, usize)>>);
    impl Write for Pipe {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            let mut p = self.0.lock().unwrap();
            if p.1 == 0 {
                return Err(std::io::ErrorKind::WouldBlock.into());
            }
            let n = b.len().min(p.1);
            p.1 -= n;
            p.0.extend_from_slice(&b[..n]);
            Ok(n)
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    /// Issue 36 item 7: a reader that stops reading stalled the run in `write()`
    /// past its duration. Lines it cannot take are dropped and counted; a line cut
    /// short is finished before the next, so what the reader gets is whole lines.
    #[test]
    fn a_full_pipe_drops_whole_lines_and_counts_them() {
        let pipe = Pipe::default();
        pipe.0.lock().unwrap().1 = 100;
        let mut o = LiveOut::new(Box::new(pipe.clone()));
        let line = serde_json::json!({"event": "second", "pad": "x".repeat(60)});
        o.line(&line); // ~80 bytes: whole
        o.line(&line); // cut short: the rest pending
        o.line(&line); // the pipe is full: dropped
        assert_eq!((o.dropped, o.pending.is_empty()), (1, false));
        pipe.0.lock().unwrap().1 = 10_000;
        o.line(&line); // the rest, then this one
        assert_eq!((o.dropped, o.pending.is_empty()), (1, true));
        let text = String::from_utf8(pipe.0.lock().unwrap().0.clone()).unwrap();
        assert_eq!(text.lines().count(), 3, "{text}");
        for l in text.lines() {
            serde_json::from_str::<serde_json::Value>(l).unwrap();
        }
    }

    #[test]
    fn one_line_per_second_with_the_last_seconds_rate_and_percentiles() {
        let buf = Shared::default();
        let mut o = LiveOut::new(Box::new(buf.clone()));
        let spec = StepSpec {
            n_clients: 2,
            duration: Some(Duration::from_secs(3)),
            n_requests: None,
            rate: None,
        };
        o.warmup_started(Duration::from_secs(1), &spec);
        let w = Counts::default();
        let report = |ms: u64, finished| Progress {
            elapsed: Duration::from_millis(ms),
            finished,
            failed: 0,
            latency: Snapshot::of([&w]),
        };
        o.progress(&spec, report(1100, 50)); // warm-up: no line
        let at = Position {
            round: 1,
            rounds: 1,
            index: 0,
            of: 1,
        };
        o.step_started(at, &spec);
        for ms in [250, 500, 750] {
            o.progress(&spec, report(ms, ms));
        }
        for _ in 0..100 {
            w.record(Duration::from_millis(2));
        }
        o.progress(&spec, report(1000, 1000));
        o.progress(&spec, report(1250, 1250));
        o.progress(&spec, report(2000, 1500));
        let text = String::from_utf8(buf.0.lock().unwrap().clone()).unwrap();
        let lines: Vec<serde_json::Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), 2, "{text}");
        assert!(
            text.starts_with(r#"{"event":"second","elapsed_s":"#),
            "{text}"
        );
        assert_eq!(lines[0]["event"], "second");
        assert_eq!(lines[0]["step"], 1);
        assert_eq!(lines[0]["requests"], 1000);
        assert_eq!(lines[0]["requests_per_s"], 1000.0);
        // 2 ms sits in the bucket up to 2.048 ms.
        assert_eq!(lines[0]["p99_ms"], 2.048);
        assert_eq!(lines[1]["requests_per_s"], 500.0);
        // No response in the second second.
        assert!(lines[1]["p50_ms"].is_null());
    }
}
