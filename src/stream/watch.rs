//! `hakaru watch`: the seed's shell loop done exactly. A source is read as records
//! arrive ([`super::source`]); every `--interval` the counts are sampled with the
//! machine beside them; after `--warmup`, each of `--repeat` windows of `--window`
//! gives a mean (bytes and records counted at the window's edges, not summed from
//! rounded intervals); `--verify` checks every record.
//!
//! A watch ends when its windows are over, when everything `--expect`ed has arrived
//! (the window is then cut at that moment and says so), or on Ctrl-C; what was
//! measured is reported in every case.

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use super::machine::MachineProbe;
use super::source::{start, Running, SourceOptions, SourceUri};
use super::verify::{new_interval_histogram, MAX_SENDER};
use super::StreamError;
use crate::engine::{Stop, MAX_DURATION};
use crate::result::stream::{IntervalLatency, Means, Point, WatchReport, Window};

/// How often a watch looks at its end conditions between samples.
const CHECK: Duration = Duration::from_millis(20);

/// What `watch` was asked.
#[derive(Debug, Clone)]
pub struct WatchOptions {
    pub source: String,
    pub interval: Duration,
    pub warmup: Duration,
    pub window: Duration,
    pub repeat: u32,
    pub verify: bool,
    /// Records each sender sends (`--count` of the send): loss counts the tail, and
    /// the watch ends once all have arrived.
    pub expect: Option<u64>,
    /// How many senders there are (default: those seen).
    pub senders: Option<u32>,
    /// A process whose CPU goes in the timeline (the receiver).
    pub pid: Option<u32>,
    pub recv_buffer: Option<usize>,
    pub from_start: bool,
    /// file:/dir: without --verify: records of this size, counted from file sizes
    /// (nothing read).
    pub record_size: Option<u64>,
    /// Sample /proc beside each interval.
    pub machine: bool,
}

/// The shape of a watch's time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Plan {
    pub interval: Duration,
    pub warmup: Duration,
    pub window: Duration,
    pub repeat: u32,
    /// Records in all after which the watch ends.
    pub expect_total: Option<u64>,
}

fn flag(flag: &'static str, why: impl Into<String>) -> StreamError {
    StreamError::Flag {
        flag,
        why: why.into(),
    }
}

impl WatchOptions {
    /// Every check that needs nothing from outside.
    pub fn check(&self) -> Result<(SourceUri, Plan), StreamError> {
        let uri = SourceUri::parse(&self.source)?;
        for (name, d) in [("--interval", self.interval), ("--window", self.window)] {
            if d.is_zero() {
                return Err(flag(name, "must be longer than 0"));
            }
        }
        if self.interval < Duration::from_millis(10) {
            return Err(flag("--interval", "must be at least 10ms"));
        }
        if self.repeat == 0 || self.repeat > 1000 {
            return Err(flag("--repeat", "must be between 1 and 1000"));
        }
        let total = self.warmup + self.window * self.repeat;
        if total > MAX_DURATION {
            return Err(flag("--window", "the watch would last longer than 30 days"));
        }
        if self.senders.is_some_and(|s| s == 0 || s > MAX_SENDER + 1) {
            return Err(flag(
                "--senders",
                format!("must be between 1 and {}", MAX_SENDER + 1),
            ));
        }
        if self.expect == Some(0) {
            return Err(flag("--expect", "must be at least 1"));
        }
        if self.record_size == Some(0) {
            return Err(flag("--record-size", "must be at least 1"));
        }
        if self.record_size.is_some() && !matches!(uri, SourceUri::File(_) | SourceUri::Dir(_)) {
            return Err(flag("--record-size", "is for file: and dir: sources"));
        }
        if self.recv_buffer.is_some() && !matches!(uri, SourceUri::ListenUdp(_)) {
            return Err(flag("--recv-buffer", "is for listen:udp:// sources"));
        }
        Ok((
            uri,
            Plan {
                interval: self.interval,
                warmup: self.warmup,
                window: self.window,
                repeat: self.repeat,
                expect_total: self
                    .expect
                    .map(|e| e.saturating_mul(self.senders.unwrap_or(1) as u64)),
            },
        ))
    }

    /// Check and open the source (bind, find): errors are bad input.
    pub fn open(&self) -> Result<(Running, Plan), StreamError> {
        let (uri, plan) = self.check()?;
        let running = start(
            &uri,
            &self.source,
            &SourceOptions {
                verify: self.verify,
                recv_buffer: self.recv_buffer,
                from_start: self.from_start,
                record_size: self.record_size,
            },
        )?;
        Ok((running, plan))
    }

    /// Watch until the plan ends, everything expected arrived, `stop`, or `done()`
    /// says the senders have finished and nothing more is coming.
    pub fn watch(
        &self,
        running: Running,
        plan: &Plan,
        stop: &Stop,
        done: &dyn Fn() -> bool,
        on_point: &mut dyn FnMut(&Point),
    ) -> WatchReport {
        let started_at = crate::sysinfo::now_rfc3339();
        let mut machine = self.machine.then(|| MachineProbe::new(self.pid));
        let c = running.counters.clone();
        let read = || {
            (
                c.bytes.load(Ordering::Relaxed),
                c.records.load(Ordering::Relaxed),
            )
        };
        let t0 = Instant::now();
        let warm_end = t0 + plan.warmup;
        let end = warm_end + plan.window * plan.repeat;
        let mut timeline = Vec::new();
        let mut runs = Vec::new();
        let mut last = (t0, read());
        let mut window_start = (warm_end, (0u64, 0u64));
        let mut next_tick = t0 + plan.interval;
        let mut finished = false;
        let mut in_window = plan.warmup.is_zero();
        let mut run_no = 1u32;
        // When the record count last grew, and to what.
        let mut growth = (t0, read().1);
        while !finished {
            let boundary = if in_window {
                warm_end + plan.window * run_no
            } else {
                warm_end
            };
            let next = next_tick.min(boundary);
            let ending = self.wait(&c, plan, next, &mut growth, stop, done);
            let early = ending != Ending::OnTime;
            let now = if early { Instant::now() } else { next };
            let counts = read();
            let dt = now.saturating_duration_since(last.0).as_secs_f64();
            let (db, dr) = (counts.0 - last.1 .0, counts.1 - last.1 .1);
            if dt > 0.0 {
                let p = Point {
                    t_s: now.saturating_duration_since(t0).as_secs_f64(),
                    phase: phase_at(plan, warm_end, now),
                    bytes: db,
                    records: dr,
                    records_per_s: dr as f64 / dt,
                    mib_per_s: db as f64 / dt / (1024.0 * 1024.0),
                    machine: machine.as_mut().map(|m| m.sample()),
                    latency: self
                        .verify
                        .then(|| IntervalLatency::of(&c.latency.take()))
                        .flatten(),
                };
                on_point(&p);
                timeline.push(p);
            }
            last = (now, counts);
            if now >= next_tick {
                next_tick += plan.interval;
            }
            if !in_window && (now >= warm_end) {
                in_window = true;
                window_start = (now, counts);
            }
            let at_boundary = in_window && now >= warm_end + plan.window * run_no;
            if in_window && (at_boundary || early) {
                // Ended because the senders are done and the receiver went quiet: the
                // quiet tail is not transfer time, so the window ends at the last arrival.
                let end_at = if ending == Ending::Done {
                    growth.0.max(window_start.0)
                } else {
                    now
                };
                runs.extend(window(
                    run_no,
                    t0,
                    window_start,
                    (end_at, counts),
                    !at_boundary,
                ));
                window_start = (now, counts);
                run_no += 1;
            }
            finished = early || now >= end || run_no > plan.repeat;
        }
        self.report(running, plan, started_at, timeline, runs)
    }

    /// Wait until `next`, looking at the end conditions as it goes (and noting when
    /// the record count last grew).
    fn wait(
        &self,
        c: &super::source::Counters,
        plan: &Plan,
        next: Instant,
        growth: &mut (Instant, u64),
        stop: &Stop,
        done: &dyn Fn() -> bool,
    ) -> Ending {
        loop {
            let now = Instant::now();
            if now >= next {
                return Ending::OnTime;
            }
            let records = c.records.load(Ordering::Relaxed);
            if records != growth.1 {
                *growth = (now, records);
            }
            // What `--expect` waits for: with --verify, distinct records (a duplicate
            // is not one more of those expected); without, lines.
            let arrived = if self.verify {
                c.distinct.load(Ordering::Relaxed)
            } else {
                records
            };
            if stop.is_triggered() || plan.expect_total.is_some_and(|e| arrived >= e) {
                return Ending::Early;
            }
            if done() {
                return Ending::Done;
            }
            std::thread::sleep(CHECK.min(next - now));
        }
    }

    /// The watch's report: the readers stopped (their last reads count), the windows'
    /// mean, `--verify`'s findings.
    fn report(
        &self,
        running: Running,
        plan: &Plan,
        started_at: String,
        mut timeline: Vec<Point>,
        runs: Vec<Window>,
    ) -> WatchReport {
        let c = running.counters.clone();
        let (verifier, reader_errors) = running.finish();
        if self.verify {
            add_stragglers(&mut timeline, c.latency.take());
        }
        let verify = verifier.map(|v| v.report(self.expect, self.senders));
        let mean = if runs.is_empty() {
            Means::default()
        } else {
            let n = runs.len() as f64;
            Means {
                records_per_s: runs.iter().map(|r| r.records_per_s).sum::<f64>() / n,
                mib_per_s: runs.iter().map(|r| r.mib_per_s).sum::<f64>() / n,
            }
        };
        WatchReport {
            source: self.source.clone(),
            interval_s: plan.interval.as_secs_f64(),
            warmup_s: plan.warmup.as_secs_f64(),
            window_s: plan.window.as_secs_f64(),
            repeat: plan.repeat,
            started_at,
            timeline,
            runs,
            mean,
            total_records: c.records.load(Ordering::Relaxed),
            total_bytes: c.bytes.load(Ordering::Relaxed),
            truncations: c.truncations.load(Ordering::Relaxed),
            rotations: c.rotations.load(Ordering::Relaxed),
            connections: c.connections.load(Ordering::Relaxed),
            verify,
            reader_errors,
        }
    }
}

/// The latencies the readers handed over after the last interval was cut (what they
/// read just before stopping) belong to the last interval.
fn add_stragglers(timeline: &mut [Point], rest: hdrhistogram::Histogram<u64>) {
    let Some(last) = timeline.last_mut().filter(|_| !rest.is_empty()) else {
        return;
    };
    let mut h = last
        .latency
        .as_ref()
        .and_then(|l| crate::result::decode_histogram(&l.histogram).ok())
        .unwrap_or_else(new_interval_histogram);
    let _ = h.add(&rest);
    last.latency = IntervalLatency::of(&h);
}

/// Why a wait for the next sample ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ending {
    /// At the sample's time.
    OnTime,
    /// Stopped, or everything expected arrived.
    Early,
    /// The senders are done and nothing more is coming.
    Done,
}

/// The phase a moment falls in: "warmup", or "run K" of the windows.
fn phase_at(plan: &Plan, warm_end: Instant, t: Instant) -> String {
    if t <= warm_end && !plan.warmup.is_zero() {
        "warmup".into()
    } else {
        let k = ((t.saturating_duration_since(warm_end).as_secs_f64() - 1e-9)
            / plan.window.as_secs_f64())
        .floor()
        .max(0.0) as u32;
        format!("run {}", k.min(plan.repeat - 1) + 1)
    }
}

/// Window `run` from `start` to `end` (moments and (bytes, records) counts), or None
/// when it took no time.
fn window(
    run: u32,
    t0: Instant,
    start: (Instant, (u64, u64)),
    end: (Instant, (u64, u64)),
    cut_short: bool,
) -> Option<Window> {
    let secs = end.0.saturating_duration_since(start.0).as_secs_f64();
    let (b, r) = (end.1 .0 - start.1 .0, end.1 .1 - start.1 .1);
    (secs > 0.0).then(|| Window {
        run,
        from_s: start.0.saturating_duration_since(t0).as_secs_f64(),
        to_s: end.0.saturating_duration_since(t0).as_secs_f64(),
        records: r,
        bytes: b,
        records_per_s: r as f64 / secs,
        mib_per_s: b as f64 / secs / (1024.0 * 1024.0),
        cut_short,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(source: &str) -> WatchOptions {
        WatchOptions {
            source: source.into(),
            interval: Duration::from_millis(100),
            warmup: Duration::ZERO,
            window: Duration::from_secs(1),
            repeat: 1,
            verify: false,
            expect: None,
            senders: None,
            pid: None,
            recv_buffer: None,
            from_start: false,
            record_size: None,
            machine: false,
        }
    }

    #[test]
    fn bad_watches_name_their_flag() {
        for (o, name) in [
            (
                WatchOptions {
                    interval: Duration::ZERO,
                    ..opts("file:/x")
                },
                "--interval",
            ),
            (
                WatchOptions {
                    repeat: 0,
                    ..opts("file:/x")
                },
                "--repeat",
            ),
            (
                WatchOptions {
                    recv_buffer: Some(10),
                    ..opts("file:/x")
                },
                "--recv-buffer",
            ),
            (opts("ftp:/x"), "SOURCE"),
        ] {
            let e = o.check().expect_err("refused").to_string();
            assert!(e.contains(name), "{name}: {e}");
        }
    }

    #[test]
    fn a_watch_ends_when_everything_expected_arrived() {
        let o = WatchOptions {
            expect: Some(3),
            window: Duration::from_secs(60),
            ..opts("listen:tcp://127.0.0.1:0")
        };
        let (running, plan) = o.open().unwrap();
        let addr = running.local_addr.unwrap();
        let sender = std::thread::spawn(move || {
            use std::io::Write;
            let mut c = std::net::TcpStream::connect(addr).unwrap();
            c.write_all(b"a\nb\nc\n").unwrap();
        });
        let mut lines = 0;
        let rep = o.watch(running, &plan, &Stop::default(), &|| false, &mut |_| {
            lines += 1
        });
        sender.join().unwrap();
        assert_eq!(rep.total_records, 3);
        assert_eq!(rep.runs.len(), 1);
        assert!(rep.runs[0].cut_short);
        assert_eq!(rep.runs[0].records, 3);
        assert!(lines >= 1);
    }

    /// Issue 20: records 0, 1, 2, 1 with `--expect 4` ended the watch at the duplicate
    /// and called record 3, which came 0.5 s later, lost.
    #[test]
    fn watch_verify_expect_counts_distinct_records() {
        use crate::stream::record::{Encoder, Format};
        let o = WatchOptions {
            expect: Some(4),
            verify: true,
            window: Duration::from_secs(60),
            ..opts("listen:tcp://127.0.0.1:0")
        };
        let (running, plan) = o.open().unwrap();
        let addr = running.local_addr.unwrap();
        let sender = std::thread::spawn(move || {
            use std::io::Write;
            let enc = Encoder::new(Format::Raw, 32, 1, Some(4)).unwrap();
            let record = |seq| {
                let mut b = Vec::new();
                enc.encode(&mut b, 0, seq, 5);
                b
            };
            let mut c = std::net::TcpStream::connect(addr).unwrap();
            for seq in [0, 1, 2, 1] {
                c.write_all(&record(seq)).unwrap();
            }
            std::thread::sleep(Duration::from_millis(300));
            c.write_all(&record(3)).unwrap();
        });
        let rep = o.watch(running, &plan, &Stop::default(), &|| false, &mut |_| {});
        sender.join().unwrap();
        let v = rep.verify.unwrap();
        assert_eq!((v.received, v.lost, v.duplicated), (5, 0, 1), "{v:?}");
    }
}
