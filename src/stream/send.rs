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

use super::record::{now_us, Encoder, RecordBatch};
use super::sink::{ByteSink, ByteSinkSpec};
use super::StreamError;
use crate::engine::pacer::{Lane, RateProfile, Timetable};
use crate::engine::timer::Timer;
use crate::engine::Stop;
pub use crate::result::stream::{SendReport, SenderReport};
use crate::result::Shard;

/// Bytes a sender writes at once at full speed (whole records, at least one).
pub const BATCH_BYTES: usize = 256 << 10;

/// What a send is asked to do.
#[derive(Debug, Clone)]
pub struct SendPlan {
    pub encoder: Encoder,
    /// This machine's senders.
    pub senders: u64,
    /// `--shard K/N`: this machine is shard K; its senders are ids `(K−1)·senders …`,
    /// so N shards' senders never collide, and it sends its share of the rate's
    /// timetable. `None`: the only machine.
    pub shard: Option<Shard>,
    /// Records per sender.
    pub count: Option<u64>,
    pub duration: Option<Duration>,
    /// Records per second over all senders (open model).
    pub rate: Option<Arc<RateProfile>>,
}

impl SendPlan {
    /// The id of this machine's first sender.
    pub fn first_sender(&self) -> u64 {
        self.shard
            .map_or(0, |s| u64::from(s.index - 1) * self.senders)
    }

    /// Senders over every shard.
    pub fn all_senders(&self) -> u64 {
        self.senders * self.shard.map_or(1, |s| u64::from(s.count))
    }

    /// The part of the rate's timetable sender `k` (0-based, this machine's) takes:
    /// every shard's senders interleaved, so N shards send the one-machine schedule.
    fn lane(&self, k: u64) -> Lane {
        let whole = match self.shard {
            Some(s) => Lane::shard(u64::from(s.index - 1), u64::from(s.count)),
            None => Lane::ALL,
        };
        whole.split(k, self.senders)
    }
}

/// Open every sender's sink (sender ids from `first`, so shards writing into one
/// directory do not collide): all errors before any load.
pub fn open_sinks(
    spec: &ByteSinkSpec,
    first: u64,
    senders: u64,
) -> Result<Vec<Box<dyn ByteSink>>, StreamError> {
    (first..first + senders).map(|k| spec.open(k)).collect()
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
    let first = plan.first_sender();
    for (k, h) in handles.into_iter().enumerate() {
        let k = first + k as u64;
        let r = match h {
            Ok(h) => h.join().unwrap_or_else(|_| SenderReport {
                sender: k,
                error: Some("the sender thread panicked".into()),
                ..Default::default()
            }),
            Err(e) => SenderReport {
                sender: k,
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
    let lane = plan.lane(k);
    // The id the records carry: distinct over every shard.
    let k = plan.first_sender() + k;
    let deadline = plan.duration.and_then(|d| t0.checked_add(d));
    let mut rep = SenderReport {
        sender: k,
        ..Default::default()
    };
    let mut n: u64 = 0;
    let flush = |sink: &mut Box<dyn ByteSink>, buf: &mut Vec<u8>, rep: &mut SenderReport| {
        let ok = write(sink, buf, size, rep);
        if ok {
            buf.clear();
        }
        ok
    };
    match &plan.rate {
        None => {
            // The padding is written once; each record only gets its fields.
            let mut batch = RecordBatch::new(enc, (BATCH_BYTES / size).max(1));
            let per_batch = batch.capacity() as u64;
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
                let (bytes, overflow) = batch.fill(enc, k, n, take as usize, now_us());
                n += (bytes.len() / size) as u64;
                if !write(&mut sink, bytes, size, &mut rep) {
                    break;
                }
                if overflow {
                    rep.error = overflow_error();
                    break;
                }
            }
        }
        Some(profile) => {
            // Paced records leave one by one (or as many as are due): encoded whole.
            let mut buf = Vec::with_capacity(BATCH_BYTES + size);
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
                    lane,
                    plan.count.map(|c| c.saturating_mul(plan.all_senders())),
                    deadline,
                );
                while let Some(due) = table.claim() {
                    if stop.is_triggered() {
                        break;
                    }
                    if due.at > Instant::now() {
                        // Nothing else is due before this record: what is buffered goes now.
                        if !flush(&mut sink, &mut buf, &mut rep) {
                            break;
                        }
                        timer.sleep_until(due.at).await;
                    }
                    if !enc.encode(&mut buf, k, n, now_us()) {
                        rep.error = overflow_error();
                        break;
                    }
                    n += 1;
                    if buf.len() >= BATCH_BYTES && !flush(&mut sink, &mut buf, &mut rep) {
                        break;
                    }
                }
                if rep.error.is_none() {
                    flush(&mut sink, &mut buf, &mut rep);
                }
                driver.abort();
            });
        }
    }
    // Records a sink still held and could not deliver (Kafka) were not sent.
    if let Some((lost, why)) = sink.finish(stop) {
        let lost = lost.min(rep.records);
        rep.records -= lost;
        rep.bytes -= lost * size as u64;
        rep.error.get_or_insert(why);
    }
    rep.elapsed_s = t0.elapsed().as_secs_f64();
    rep
}

/// Hand whole records to the sink and count them; false (the error noted) when it failed.
fn write(sink: &mut Box<dyn ByteSink>, bytes: &[u8], size: usize, rep: &mut SenderReport) -> bool {
    if bytes.is_empty() {
        return true;
    }
    match sink.write_records(bytes) {
        Ok(()) => {
            rep.records += (bytes.len() / size) as u64;
            rep.bytes += bytes.len() as u64;
            true
        }
        Err(e) => {
            rep.error = Some(write_error(&e));
            false
        }
    }
}

fn overflow_error() -> Option<String> {
    Some("the sequence outgrew the record size planned for an unbounded run; give --count".into())
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
                shard: None,
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

    #[test]
    fn shards_send_distinct_senders_and_their_share_of_the_timetable() {
        let kept = Arc::new(std::sync::Mutex::new(Vec::new()));
        let mut reports = Vec::new();
        for index in 1..=3 {
            let plan = SendPlan {
                encoder: Encoder::new(Format::Raw, 32, 6, Some(200)).unwrap(),
                senders: 2,
                shard: Some(Shard { index, count: 3 }),
                count: Some(200),
                duration: Some(Duration::from_secs(60)),
                rate: Some(Arc::new(RateProfile::constant(30_000.0).unwrap())),
            };
            assert_eq!(plan.first_sender(), u64::from(index - 1) * 2);
            let lanes: Vec<Lane> = (0..2).map(|k| plan.lane(k)).collect();
            assert_eq!(lanes[1].first, u64::from(index - 1) + 3);
            assert_eq!(lanes[1].stride, 6);
            let sinks: Vec<Box<dyn ByteSink>> =
                (0..2).map(|_| Box::new(Keep(kept.clone())) as _).collect();
            reports.push(send(&plan, sinks, &Stop::default()));
        }
        let ids: Vec<u64> = reports
            .iter()
            .flat_map(|r| r.senders.iter().map(|s| s.sender))
            .collect();
        assert_eq!(ids, [0, 1, 2, 3, 4, 5]);
        // Six senders of 200 records each, every (sender, sequence) exactly once.
        let all = kept.lock().unwrap();
        let mut seen = vec![vec![0u8; 200]; 6];
        for line in all.chunks_exact(32) {
            let r = decode(line).unwrap();
            seen[r.sender.unwrap() as usize][r.seq as usize] += 1;
        }
        assert!(seen.iter().flatten().all(|n| *n == 1));
    }
}
