//! The sender loop: K senders, each a thread with its own byte sink, writing batches of
//! records at full speed or on the open model's timetable (`--rate`, the engine's
//! [`RateProfile`] and precise [`Timer`]), for a count per sender or a duration.
//! One loop for every byte sink; HTTP goes through the engine instead
//! ([`super::http_sink`]).
//!
//! A sink that fails mid-run (the receiver closed) ends that sender only: its error and
//! what it wrote before are reported, the others go on.

use std::io;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::record::{now_us, Encoder};
use super::sink::{ByteSink, ByteSinkSpec};
use super::StreamError;
use crate::engine::pacer::{Lane, RateProfile, Timetable};
use crate::engine::timer::Timer;
use crate::engine::Stop;

/// Bytes a sender writes at once at full speed (whole records, at least one).
pub const BATCH_BYTES: usize = 256 << 10;

/// What a send is asked to do.
#[derive(Debug, Clone)]
pub struct SendPlan {
    pub encoder: Encoder,
    pub senders: u64,
    /// Records per sender.
    pub count: Option<u64>,
    pub duration: Option<Duration>,
    /// Records per second over all senders (open model).
    pub rate: Option<Arc<RateProfile>>,
}

/// What one sender did.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SenderReport {
    pub sender: u64,
    /// Records handed to the sink whole (written, or acknowledged over HTTP).
    pub records: u64,
    pub bytes: u64,
    pub elapsed_s: f64,
    /// Why the sender stopped early (the receiver closed, a write failed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// What a send did, sender side.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SendReport {
    pub senders: Vec<SenderReport>,
    pub elapsed_s: f64,
    /// Senders that stopped on an error (a receiver that closed, a failed write).
    pub failed_senders: u64,
    /// HTTP batches answered with an error or not at all.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub failed_batches: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl SendReport {
    pub fn records(&self) -> u64 {
        self.senders.iter().map(|s| s.records).sum()
    }
    pub fn bytes(&self) -> u64 {
        self.senders.iter().map(|s| s.bytes).sum()
    }
}

/// Open every sender's sink: all errors before any load.
pub fn open_sinks(
    spec: &ByteSinkSpec,
    senders: u64,
) -> Result<Vec<Box<dyn ByteSink>>, StreamError> {
    (0..senders).map(|k| spec.open(k)).collect()
}

/// Run the senders on their opened sinks until count, duration or `stop`.
pub fn send(plan: &SendPlan, sinks: Vec<Box<dyn ByteSink>>, stop: &Stop) -> SendReport {
    let t0 = Instant::now();
    let handles: Vec<_> = sinks
        .into_iter()
        .enumerate()
        .map(|(k, sink)| {
            let plan = plan.clone();
            let stop = stop.clone();
            std::thread::Builder::new()
                .name(format!("hakaru-sender-{k}"))
                .spawn(move || sender(k as u64, &plan, sink, &stop, t0))
        })
        .collect();
    let mut senders = Vec::new();
    for (k, h) in handles.into_iter().enumerate() {
        let r = match h {
            Ok(h) => h.join().unwrap_or_else(|_| SenderReport {
                sender: k as u64,
                error: Some("the sender thread panicked".into()),
                ..Default::default()
            }),
            Err(e) => SenderReport {
                sender: k as u64,
                error: Some(format!("cannot start the sender thread: {e}")),
                ..Default::default()
            },
        };
        senders.push(r);
    }
    SendReport {
        failed_senders: senders.iter().filter(|s| s.error.is_some()).count() as u64,
        senders,
        elapsed_s: t0.elapsed().as_secs_f64(),
        failed_batches: 0,
    }
}

/// One sender: encode into a reused buffer, hand whole batches to the sink.
fn sender(
    k: u64,
    plan: &SendPlan,
    mut sink: Box<dyn ByteSink>,
    stop: &Stop,
    t0: Instant,
) -> SenderReport {
    let enc = &plan.encoder;
    let size = enc.size();
    let mut buf = Vec::with_capacity(BATCH_BYTES + size);
    let deadline = plan.duration.and_then(|d| t0.checked_add(d));
    let mut rep = SenderReport {
        sender: k,
        ..Default::default()
    };
    let mut n: u64 = 0;
    let mut flush = |buf: &mut Vec<u8>, rep: &mut SenderReport| -> bool {
        if buf.is_empty() {
            return true;
        }
        match sink.write_records(buf) {
            Ok(()) => {
                rep.records += (buf.len() / size) as u64;
                rep.bytes += buf.len() as u64;
                buf.clear();
                true
            }
            Err(e) => {
                rep.error = Some(write_error(&e));
                false
            }
        }
    };
    let overflow = || {
        Some(
            "the sequence outgrew the record size planned for an unbounded run; give --count"
                .to_string(),
        )
    };
    match &plan.rate {
        None => {
            let per_batch = (BATCH_BYTES / size).max(1) as u64;
            loop {
                if stop.is_triggered() || deadline.is_some_and(|d| Instant::now() >= d) {
                    break;
                }
                let take = match plan.count {
                    Some(c) => per_batch.min(c - n),
                    None => per_batch,
                };
                if take == 0 {
                    break;
                }
                let now = now_us();
                for _ in 0..take {
                    if !enc.encode(&mut buf, k, n, now) {
                        rep.error = overflow();
                        break;
                    }
                    n += 1;
                }
                if !flush(&mut buf, &mut rep) || rep.error.is_some() {
                    break;
                }
            }
        }
        Some(profile) => {
            let rt = match tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
            {
                Ok(rt) => rt,
                Err(e) => {
                    rep.error = Some(format!("cannot build the sender's runtime: {e}"));
                    return rep;
                }
            };
            let local = tokio::task::LocalSet::new();
            local.block_on(&rt, async {
                let timer = Timer::new();
                let driver = tokio::task::spawn_local(timer.clone().drive());
                let table = Timetable::new(
                    t0,
                    profile.clone(),
                    Lane::ALL.split(k, plan.senders),
                    plan.count.map(|c| c.saturating_mul(plan.senders)),
                    deadline,
                );
                while let Some(due) = table.claim() {
                    if stop.is_triggered() {
                        break;
                    }
                    if due.at > Instant::now() {
                        // Nothing else is due before this record: what is buffered goes now.
                        if !flush(&mut buf, &mut rep) {
                            break;
                        }
                        timer.sleep_until(due.at).await;
                    }
                    if !enc.encode(&mut buf, k, n, now_us()) {
                        rep.error = overflow();
                        break;
                    }
                    n += 1;
                    if buf.len() >= BATCH_BYTES && !flush(&mut buf, &mut rep) {
                        break;
                    }
                }
                if rep.error.is_none() {
                    flush(&mut buf, &mut rep);
                }
                driver.abort();
            });
        }
    }
    // Records a sink still held and could not deliver (Kafka) were not sent.
    if let Some((lost, why)) = sink.finish() {
        let lost = lost.min(rep.records);
        rep.records -= lost;
        rep.bytes -= lost * size as u64;
        rep.error.get_or_insert(why);
    }
    rep.elapsed_s = t0.elapsed().as_secs_f64();
    rep
}

fn write_error(e: &io::Error) -> String {
    match e.kind() {
        io::ErrorKind::BrokenPipe
        | io::ErrorKind::ConnectionReset
        | io::ErrorKind::ConnectionAborted => {
            format!("the receiver closed the connection ({e})")
        }
        _ => format!("write failed: {e}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stream::record::{decode, Format};

    /// A sink that keeps everything, for the loop's own tests.
    struct Keep(Arc<std::sync::Mutex<Vec<u8>>>);
    impl ByteSink for Keep {
        fn write_records(&mut self, b: &[u8]) -> io::Result<()> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(())
        }
    }

    #[test]
    fn senders_send_their_count_paced_or_not() {
        for rate in [
            None,
            Some(Arc::new(RateProfile::constant(20_000.0).unwrap())),
        ] {
            let kept = Arc::new(std::sync::Mutex::new(Vec::new()));
            let plan = SendPlan {
                encoder: Encoder::new(Format::Raw, 32, 3, Some(500)).unwrap(),
                senders: 3,
                count: Some(500),
                duration: Some(Duration::from_secs(60)),
                rate,
            };
            let sinks: Vec<Box<dyn ByteSink>> =
                (0..3).map(|_| Box::new(Keep(kept.clone())) as _).collect();
            let rep = send(&plan, sinks, &Stop::default());
            assert_eq!(rep.records(), 1500);
            assert_eq!(rep.failed_senders, 0);
            let all = kept.lock().unwrap();
            let mut seen = vec![vec![false; 500]; 3];
            for line in all.chunks_exact(32) {
                let r = decode(line).unwrap();
                seen[r.sender.unwrap() as usize][r.seq as usize] = true;
            }
            assert!(seen.iter().flatten().all(|s| *s));
        }
    }
}
