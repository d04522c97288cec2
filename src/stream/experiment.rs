//! `hakaru stream run`: the seed's whole experiment on one machine — for each record
//! size, `--repeat` times: start watching the receiving end, start K senders, sample
//! every interval, average the window after the warm-up; then the table of records/s
//! and MiB/s per record size, with loss, duplicates and latency when verified.
//!
//! Each repeat opens the source afresh and sends afresh (sequence numbers restart), so
//! repeats are independent. A repeat ends when its windows are over, or once the
//! senders are done and the receiver has been quiet for [`QUIET`] (or everything
//! expected arrived). The result files are rewritten after every repeat.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::options::SendOptions;
use super::source::SourceUri;
use super::watch::WatchOptions;
use super::StreamError;
use crate::engine::Stop;
use crate::result::stream::{Means, Point, Repeat, SizeRun, StreamResult};

/// After the senders are done, a receiver quiet this long has everything it will get.
pub const QUIET: Duration = Duration::from_millis(1500);

/// What `stream run` was asked: a send and a watch, and the sizes to go through.
#[derive(Debug, Clone)]
pub struct ExperimentOptions {
    /// The send; its `record_size` is replaced by each of `record_sizes`.
    pub send: SendOptions,
    /// The watch; `repeat` there is 1 — repeats are whole send+watch rounds here.
    pub watch: WatchOptions,
    pub record_sizes: Vec<usize>,
    pub repeat: u32,
}

/// What the experiment tells its caller as it goes.
pub trait ExperimentObserver {
    fn point(&mut self, size: usize, repeat: u32, p: &Point);
    fn repeat_done(&mut self, size: usize, repeat: u32, r: &Repeat);
    /// The result so far (rewritten to disk by the caller).
    fn progress(&mut self, result: &StreamResult);
}

/// Parse `--record-sizes 10,1024,4096`.
pub fn parse_sizes(s: &str) -> Result<Vec<usize>, StreamError> {
    let sizes: Result<Vec<usize>, _> = s
        .split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(|p| p.parse::<usize>())
        .collect();
    match sizes {
        Ok(v) if !v.is_empty() && v.len() <= 100 => Ok(v),
        _ => Err(StreamError::Flag {
            flag: "--record-sizes",
            why: format!("\"{s}\" is not a list of byte counts (10,1024,4096)"),
        }),
    }
}

impl ExperimentOptions {
    /// Check every size's send and the watch before anything starts.
    pub fn check(&self) -> Result<(), StreamError> {
        if self.repeat == 0 || self.repeat > 1000 {
            return Err(StreamError::Flag {
                flag: "--repeat",
                why: "must be between 1 and 1000".into(),
            });
        }
        for &size in &self.record_sizes {
            SendOptions {
                record_size: size,
                ..self.send.clone()
            }
            .check()?;
        }
        self.watch.check()?;
        Ok(())
    }

    /// Run it all; `result` gets a [`SizeRun`] per size as they finish.
    pub fn run(
        &self,
        result: &mut StreamResult,
        stop: &Stop,
        obs: &mut dyn ExperimentObserver,
    ) -> Result<(), StreamError> {
        self.check()?;
        result.to = Some(self.send.to.clone());
        for &size in &self.record_sizes {
            result.sizes.push(SizeRun {
                record_size: size,
                repeats: Vec::new(),
                mean: Means::default(),
            });
            for k in 1..=self.repeat {
                if stop.is_triggered() {
                    return Ok(());
                }
                let rep = self.one(size, k, stop, obs)?;
                obs.repeat_done(size, k, &rep);
                let run = result.sizes.last_mut().expect("pushed above");
                run.repeats.push(rep);
                // Rounds over before their warm-up ended measured nothing: left out.
                let measured: Vec<_> = run
                    .repeats
                    .iter()
                    .filter(|r| !r.watch.runs.is_empty())
                    .map(|r| &r.watch.mean)
                    .collect();
                let n = measured.len().max(1) as f64;
                run.mean = Means {
                    records_per_s: measured.iter().map(|m| m.records_per_s).sum::<f64>() / n,
                    mib_per_s: measured.iter().map(|m| m.mib_per_s).sum::<f64>() / n,
                };
                obs.progress(result);
            }
        }
        result.complete = !stop.is_triggered();
        Ok(())
    }

    /// One repeat at one size: open the source, open the sinks, send, watch.
    fn one(
        &self,
        size: usize,
        k: u32,
        stop: &Stop,
        obs: &mut dyn ExperimentObserver,
    ) -> Result<Repeat, StreamError> {
        // Unverified file sources count records from sizes: the seed's method, and the
        // watch then costs next to nothing beside the pipeline it measures.
        let by_size = !self.watch.verify
            && matches!(
                SourceUri::parse(&self.watch.source),
                Ok(SourceUri::File(_) | SourceUri::Dir(_))
            );
        let watch = WatchOptions {
            repeat: 1,
            record_size: by_size.then_some(size as u64),
            expect: self.watch.expect.or(self.send.count),
            senders: Some(self.send.senders as u32),
            ..self.watch.clone()
        };
        let (running, plan) = watch.open()?;
        let send = SendOptions {
            record_size: size,
            ..self.send.clone()
        };
        let ready = send.open()?;
        let counters = running.counters.clone();
        let sent_all = Arc::new(AtomicBool::new(false));
        // The senders stop with the watch if it ends first (a window over, Ctrl-C).
        let send_stop = Stop::default();
        let sender = {
            let (sent_all, send_stop) = (sent_all.clone(), send_stop.clone());
            std::thread::Builder::new()
                .name("hakaru-stream-send".into())
                .spawn(move || {
                    let r = ready.run(&send_stop);
                    sent_all.store(true, Ordering::SeqCst);
                    r
                })
                .map_err(|e| StreamError::Flag {
                    flag: "--senders",
                    why: format!("cannot start the senders: {e}"),
                })?
        };
        let quiet_since = std::cell::Cell::new((Instant::now(), 0u64));
        let done = || {
            if !sent_all.load(Ordering::SeqCst) {
                return false;
            }
            let now = counters.records.load(Ordering::Relaxed);
            let (since, seen) = quiet_since.get();
            if now != seen {
                quiet_since.set((Instant::now(), now));
                return false;
            }
            since.elapsed() >= QUIET
        };
        let watch_stop = stop.clone();
        let report = watch.watch(running, &plan, &watch_stop, &done, &mut |p| {
            obs.point(size, k, p)
        });
        send_stop.trigger();
        let send_report = match sender.join() {
            Ok(r) => r?,
            Err(_) => {
                return Err(StreamError::Flag {
                    flag: "--to",
                    why: "the senders panicked".into(),
                })
            }
        };
        Ok(Repeat {
            send: send_report,
            watch: report,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse() {
        assert_eq!(parse_sizes("10,1024, 4096").unwrap(), [10, 1024, 4096]);
        for bad in ["", "10,x", "1k"] {
            assert!(parse_sizes(bad)
                .unwrap_err()
                .to_string()
                .contains("--record-sizes"));
        }
    }
}
