//! Terminal text for `stream send`, `watch` and `stream run`: the send summary, one line
//! per interval, a table per run, the verification block and the experiment's table.
//! Pure functions of [`crate::stream`]'s reports. Rates are records/s and MiB/s (the
//! seed's "MB/s" are MiB: 4,096 B × 64,943/s = 253.7).
//!
//! Also the figures `hakaru report` and `hakaru compare` draw from any `hakaru-stream`
//! result: one [`SizeRow`] per record size (the seed's table) and the watches'
//! timelines as [`Segment`]s laid end to end.

pub mod chart;
pub mod compare;
pub mod page;

use std::fmt::Write;

use super::fmt::fmt_latency;
use crate::result::stream::SendReport;
use crate::result::stream::VerifyReport;
use crate::result::stream::{Point, SizeRun, StreamResult, WatchReport};

/// 1234567 → "1,234,567".
pub fn grouped(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

pub fn mib(bytes: f64) -> f64 {
    bytes / (1024.0 * 1024.0)
}

fn per_s(n: f64, secs: f64) -> f64 {
    if secs > 0.0 {
        n / secs
    } else {
        0.0
    }
}

/// `stream send`'s summary.
/// The shortest send whose rate the summary gives, seconds.
const MIN_RATE_SPAN_S: f64 = 0.01;

pub fn send_summary(r: &SendReport, record_size: usize) -> String {
    let mut s = String::new();
    let records = r.records();
    let bytes = records * record_size as u64;
    let n = r.senders.len();
    let by = if n > 1 {
        format!(" by {n} senders")
    } else {
        String::new()
    };
    // A send shorter than the 0.01 s the line shows would divide by almost nothing:
    // millions of records/s over "0.00 s". Say it was too short instead.
    if r.elapsed_s < MIN_RATE_SPAN_S {
        let _ = writeln!(
            s,
            "Sent {} records ({:.1} MiB) in {:.3} ms{by}: too short for a rate (send more \
             records, or for longer)",
            grouped(records),
            mib(bytes as f64),
            r.elapsed_s * 1e3,
        );
    } else {
        let _ = writeln!(
            s,
            "Sent {} records ({:.1} MiB) in {:.2} s{by}: {} records/s, {:.1} MiB/s",
            grouped(records),
            mib(bytes as f64),
            r.elapsed_s,
            grouped(per_s(records as f64, r.elapsed_s).round() as u64),
            mib(per_s(bytes as f64, r.elapsed_s)),
        );
    }
    for sr in &r.senders {
        if let Some(e) = &sr.error {
            let _ = writeln!(
                s,
                "  sender {} stopped after {} records: {e}",
                sr.sender,
                grouped(sr.records)
            );
        }
    }
    if r.failed_batches > 0 {
        let _ = writeln!(
            s,
            "  {} batches were refused or not answered",
            grouped(r.failed_batches)
        );
    }
    s
}

/// One line per interval of a watch.
pub fn interval_line(p: &Point) -> String {
    let mut s = format!(
        "{:>8.1} s  {:<7} {:>12} records/s {:>9.1} MiB/s",
        p.t_s,
        p.phase,
        grouped(p.records_per_s.round() as u64),
        p.mib_per_s
    );
    if let Some(l) = &p.latency {
        let _ = write!(
            s,
            "   p50 {}, p99 {}",
            fmt_latency(l.p50_us as f64 / 1e6),
            fmt_latency(l.p99_us as f64 / 1e6)
        );
    }
    if let Some(m) = &p.machine {
        let _ = write!(
            s,
            "   free {:.0} MiB, cache {:.0} MiB, dirty {:.0} MiB, writeback {:.0} MiB, disk {:.1} MiB/s, net in {:.1} MiB/s",
            m.mem_free_mib, m.page_cache_mib, m.dirty_mib, m.writeback_mib, m.disk_write_mib_per_s, m.net_rx_mib_per_s
        );
        if let Some(c) = m.pid_cpu_pct {
            let _ = write!(s, ", pid CPU {c:.0}%");
        }
    }
    s.push('\n');
    s
}

/// The table of a watch's windows and their mean.
pub fn watch_table(w: &WatchReport) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{:>5}  {:>8}  {:>8}  {:>14}  {:>10}  {:>14}",
        "run", "from s", "to s", "records/s", "MiB/s", "records"
    );
    for r in &w.runs {
        let _ = writeln!(
            s,
            "{:>5}  {:>8.1}  {:>8.1}  {:>14}  {:>10.1}  {:>14}{}",
            r.run,
            r.from_s,
            r.to_s,
            grouped(r.records_per_s.round() as u64),
            r.mib_per_s,
            grouped(r.records),
            if r.cut_short { "  (cut short)" } else { "" }
        );
    }
    if w.runs.len() > 1 {
        let _ = writeln!(
            s,
            "{:>5}  {:>8}  {:>8}  {:>14}  {:>10.1}",
            "mean",
            "",
            "",
            grouped(w.mean.records_per_s.round() as u64),
            w.mean.mib_per_s
        );
    }
    if w.runs.is_empty() {
        let _ = writeln!(s, "(the watch ended before its first window)");
    }
    let _ = writeln!(
        s,
        "In all: {} records, {:.1} MiB{}{}{}",
        grouped(w.total_records),
        mib(w.total_bytes as f64),
        if w.truncations > 0 {
            format!(", {} truncations", w.truncations)
        } else {
            String::new()
        },
        if w.rotations > 0 {
            format!(", {} rotations", w.rotations)
        } else {
            String::new()
        },
        if w.connections > 0 {
            format!(", {} connections", w.connections)
        } else {
            String::new()
        },
    );
    for e in &w.reader_errors {
        let _ = writeln!(s, "Reader stopped: {e}");
    }
    s
}

/// `--verify`'s findings: per sender, then latency.
pub fn verify_block(v: &VerifyReport) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "Verified: {} records received, {} lost, {} duplicated, {} out of order{}",
        grouped(v.received),
        grouped(v.lost),
        grouped(v.duplicated),
        grouped(v.out_of_order),
        if v.foreign_lines > 0 {
            format!(", {} lines that are not records", grouped(v.foreign_lines))
        } else {
            String::new()
        }
    );
    if !v.senders.is_empty() {
        let _ = writeln!(
            s,
            "{:>8}  {:>12}  {:>10}  {:>10}  {:>12}",
            "sender", "received", "lost", "duplicated", "out of order"
        );
        for c in &v.senders {
            let _ = writeln!(
                s,
                "{:>8}  {:>12}  {:>10}  {:>10}  {:>12}",
                c.sender.map_or("all".to_string(), |x| x.to_string()),
                grouped(c.received),
                grouped(c.lost),
                grouped(c.duplicated),
                grouped(c.out_of_order)
            );
        }
    }
    match &v.latency_us {
        Some(l) => {
            let f = |us: u64| fmt_latency(us as f64 / 1e6);
            let _ = writeln!(
                s,
                "Latency, send to arrival: p50 {}, p90 {}, p99 {}, p99.9 {}, max {}{}",
                f(l.p50),
                f(l.p90),
                f(l.p99),
                f(l.p999),
                f(l.max),
                if l.early > 0 {
                    format!(
                        " ({} stamped after they arrived: clocks apart?)",
                        grouped(l.early)
                    )
                } else {
                    String::new()
                }
            );
        }
        None => {
            let _ = writeln!(
                s,
                "Latency: the records carry no send time (too small for one)"
            );
        }
    }
    s
}

/// `stream run`'s table: one row per record size, the seed's columns and the checks.
pub fn experiment_table(sizes: &[SizeRun]) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{:>11}  {:>14}  {:>10}  {:>7}  {:>10}  {:>10}  {:>10}",
        "record size", "records/s", "MiB/s", "repeats", "lost", "duplicated", "p99"
    );
    let mut in_warmup = false;
    for r in sizes {
        let measured = r.repeats.iter().any(|x| !x.watch.runs.is_empty());
        in_warmup |= !measured;
        let (mut lost, mut dup, mut p99, mut verified) = (0, 0, 0, false);
        for rep in &r.repeats {
            if let Some(v) = &rep.watch.verify {
                verified = true;
                lost += v.lost;
                dup += v.duplicated;
                p99 = p99.max(v.latency_us.as_ref().map_or(0, |l| l.p99));
            }
        }
        let dash = |x: u64| if verified { grouped(x) } else { "–".into() };
        let _ = writeln!(
            s,
            "{:>11}  {:>14}  {:>10}  {:>7}  {:>10}  {:>10}  {:>10}",
            format!("{} B", grouped(r.record_size as u64)),
            if measured {
                grouped(r.mean.records_per_s.round() as u64)
            } else {
                "–*".into()
            },
            if measured {
                format!("{:.1}", r.mean.mib_per_s)
            } else {
                "–".into()
            },
            r.repeats.len(),
            dash(lost),
            dash(dup),
            if verified && p99 > 0 {
                fmt_latency(p99 as f64 / 1e6)
            } else {
                "–".into()
            }
        );
    }
    if in_warmup {
        let _ = writeln!(
            s,
            "* every record arrived within the warm-up: nothing left to measure (send more, or shorten --warmup)"
        );
    }
    s
}

/// What a result measured at one record size: a row of the seed's table.
#[derive(Debug, Clone, PartialEq)]
pub struct SizeRow {
    /// Bytes per record; `None` when a watch saw records of several sizes.
    pub record_size: Option<u64>,
    pub records_per_s: f64,
    pub mib_per_s: f64,
    /// Rounds (`stream run`), windows (`watch`) or 1 (`stream send`).
    pub rounds: usize,
    /// False when every record came within the warm-up: nothing left to measure.
    pub measured: bool,
    /// Records the senders handed over (sender side), when known.
    pub sent: Option<u64>,
    /// Records counted at the receiver, when watched.
    pub received: Option<u64>,
    /// `--verify`'s findings summed over the rounds.
    pub verify: Option<VerifySums>,
    /// True for `stream send`: the rates are the sender's, not the receiver's.
    pub sender_side: bool,
}

/// Loss, duplicates, order and the worst p99 over a size's rounds.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct VerifySums {
    pub lost: u64,
    pub duplicated: u64,
    pub out_of_order: u64,
    /// The worst round's p99 latency, µs (`None`: the records carry no send time).
    pub p99_us: Option<u64>,
}

impl VerifySums {
    fn add(&mut self, v: &VerifyReport) {
        self.lost += v.lost;
        self.duplicated += v.duplicated;
        self.out_of_order += v.out_of_order;
        if let Some(l) = &v.latency_us {
            self.p99_us = Some(self.p99_us.unwrap_or(0).max(l.p99));
        }
    }
}

/// The record size of a watch: its bytes ÷ its records when they divide evenly.
fn watch_record_size(w: &WatchReport) -> Option<u64> {
    (w.total_records > 0 && w.total_bytes.is_multiple_of(w.total_records))
        .then(|| w.total_bytes / w.total_records)
}

/// The seed's table of any stream result: a row per record size.
pub fn size_rows(r: &StreamResult) -> Vec<SizeRow> {
    let mut rows = Vec::new();
    if let Some(w) = &r.watch {
        rows.push(SizeRow {
            record_size: watch_record_size(w),
            records_per_s: w.mean.records_per_s,
            mib_per_s: w.mean.mib_per_s,
            rounds: w.runs.len(),
            measured: !w.runs.is_empty(),
            sent: None,
            received: Some(w.total_records),
            verify: w.verify.as_ref().map(|v| {
                let mut s = VerifySums::default();
                s.add(v);
                s
            }),
            sender_side: false,
        });
    }
    if let Some(s) = &r.send {
        rows.push(SizeRow {
            record_size: Some(s.record_size as u64),
            records_per_s: s.records_per_s(),
            mib_per_s: s.mib_per_s(),
            rounds: 1,
            measured: s.report.records() > 0,
            sent: Some(s.report.records()),
            received: None,
            verify: None,
            sender_side: true,
        });
    }
    for size in &r.sizes {
        let mut verify: Option<VerifySums> = None;
        for rep in &size.repeats {
            if let Some(v) = &rep.watch.verify {
                verify.get_or_insert_with(VerifySums::default).add(v);
            }
        }
        rows.push(SizeRow {
            record_size: Some(size.record_size as u64),
            records_per_s: size.mean.records_per_s,
            mib_per_s: size.mean.mib_per_s,
            rounds: size.repeats.len(),
            measured: size.repeats.iter().any(|x| !x.watch.runs.is_empty()),
            sent: Some(size.repeats.iter().map(|x| x.send.records()).sum()),
            received: Some(size.repeats.iter().map(|x| x.watch.total_records).sum()),
            verify,
            sender_side: false,
        });
    }
    rows
}

/// One watch on a timeline of several laid end to end (a `stream run`'s rounds).
#[derive(Debug, Clone, Copy)]
pub struct Segment<'a> {
    /// Where this watch's second 0 falls on the shared axis.
    pub offset_s: f64,
    /// 1-based round (`stream run`), 1 for a watch.
    pub round: u32,
    pub watch: &'a WatchReport,
}

/// The timelines of a result, grouped: a watch's one, or each record size's rounds
/// laid end to end (`None` for a watch's size, which the records tell).
pub fn timelines(r: &StreamResult) -> Vec<(Option<u64>, Vec<Segment<'_>>)> {
    let mut out = Vec::new();
    if let Some(w) = &r.watch {
        out.push((
            watch_record_size(w),
            vec![Segment {
                offset_s: 0.0,
                round: 1,
                watch: w,
            }],
        ));
    }
    for size in &r.sizes {
        let mut at = 0.0;
        let mut segs = Vec::new();
        for (i, rep) in size.repeats.iter().enumerate() {
            segs.push(Segment {
                offset_s: at,
                round: i as u32 + 1,
                watch: &rep.watch,
            });
            at += rep.watch.timeline.last().map_or(0.0, |p| p.t_s);
        }
        out.push((Some(size.record_size as u64), segs));
    }
    out
}

/// "10 B", "1,024 B", or "mixed sizes".
pub fn size_name(size: Option<u64>) -> String {
    size.map_or("records of mixed sizes".into(), |b| {
        format!("{} B", grouped(b))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::result::stream::SenderReport;

    #[test]
    fn send_summary_reads_well() {
        let r = SendReport {
            senders: vec![
                SenderReport {
                    sender: 0,
                    records: 1_000_000,
                    bytes: 1_024_000_000,
                    elapsed_s: 2.0,
                    error: None,
                },
                SenderReport {
                    sender: 1,
                    records: 12_345,
                    bytes: 12_641_280,
                    elapsed_s: 0.1,
                    error: Some("the receiver closed the connection (Broken pipe)".into()),
                },
            ],
            elapsed_s: 2.0,
            failed_senders: 1,
            failed_batches: 0,
        };
        assert_eq!(
            send_summary(&r, 1024),
            "Sent 1,012,345 records (988.6 MiB) in 2.00 s by 2 senders: 506,173 records/s, 494.3 MiB/s\n  sender 1 stopped after 12,345 records: the receiver closed the connection (Broken pipe)\n"
        );
        assert_eq!(grouped(0), "0");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(1000), "1,000");
    }

    /// Regression: `stream send -n 10` reported millions of records/s over "0.00 s".
    #[test]
    fn a_send_too_short_for_a_rate_says_so() {
        let r = SendReport {
            senders: vec![SenderReport {
                sender: 0,
                records: 10,
                bytes: 10_240,
                elapsed_s: 0.0004,
                error: None,
            }],
            elapsed_s: 0.0004,
            failed_senders: 0,
            failed_batches: 0,
        };
        let text = send_summary(&r, 1024);
        assert_eq!(
            text,
            "Sent 10 records (0.0 MiB) in 0.400 ms: too short for a rate (send more records, or for longer)\n"
        );
    }

    #[test]
    fn watch_text_reads_well() {
        use crate::result::stream::MachineSample;
        use crate::result::stream::{LatencyUs, SenderCheck};
        use crate::result::stream::{Means, Window};
        let p = Point {
            t_s: 30.0,
            phase: "run 1".into(),
            bytes: 2_660_000_000,
            records: 649_430,
            records_per_s: 64_943.0,
            mib_per_s: 253.67,
            latency: None,
            machine: Some(MachineSample {
                mem_free_mib: 512.0,
                page_cache_mib: 20_000.0,
                dirty_mib: 3_000.0,
                writeback_mib: 40.0,
                disk_write_mib_per_s: 150.0,
                net_rx_mib_per_s: 254.0,
                net_tx_mib_per_s: 1.0,
                pid_cpu_pct: Some(85.0),
            }),
        };
        assert_eq!(
            interval_line(&p),
            "    30.0 s  run 1         64,943 records/s     253.7 MiB/s   free 512 MiB, cache 20000 MiB, dirty 3000 MiB, writeback 40 MiB, disk 150.0 MiB/s, net in 254.0 MiB/s, pid CPU 85%\n"
        );
        let win = |run, rps: f64| Window {
            run,
            from_s: 20.0 + 100.0 * (run - 1) as f64,
            to_s: 20.0 + 100.0 * run as f64,
            records: (rps * 100.0) as u64,
            bytes: (rps * 100.0) as u64 * 10,
            records_per_s: rps,
            mib_per_s: rps * 10.0 / 1048576.0,
            cut_short: false,
        };
        let w = WatchReport {
            source: "file:/tmp/unify.log".into(),
            interval_s: 10.0,
            warmup_s: 20.0,
            window_s: 100.0,
            repeat: 2,
            started_at: String::new(),
            timeline: vec![],
            runs: vec![win(1, 937_000.0), win(2, 938_558.0)],
            mean: Means {
                records_per_s: 937_779.0,
                mib_per_s: 8.943,
            },
            total_records: 200_000_000,
            total_bytes: 2_000_000_000,
            truncations: 0,
            rotations: 22,
            connections: 0,
            verify: None,
            reader_errors: vec![],
        };
        assert_eq!(
            watch_table(&w),
            "  run    from s      to s       records/s       MiB/s         records
    1      20.0     120.0         937,000         8.9      93,700,000
    2     120.0     220.0         938,558         9.0      93,855,800
 mean                             937,779         8.9
In all: 200,000,000 records, 1907.3 MiB, 22 rotations
"
        );
        let v = VerifyReport {
            senders: vec![SenderCheck {
                sender: Some(0),
                received: 1000,
                distinct: 990,
                lost: 12,
                duplicated: 10,
                out_of_order: 3,
                max_seq: Some(1001),
            }],
            received: 1000,
            lost: 12,
            duplicated: 10,
            out_of_order: 3,
            foreign_lines: 2,
            latency_us: Some(LatencyUs {
                count: 1000,
                mean: 900.0,
                min: 100,
                p50: 850,
                p90: 1_500,
                p99: 12_000,
                p999: 250_000,
                max: 1_200_000,
                early: 0,
            }),
        };
        assert_eq!(
            verify_block(&v),
            "Verified: 1,000 records received, 12 lost, 10 duplicated, 3 out of order, 2 lines that are not records
  sender      received        lost  duplicated  out of order
       0         1,000          12          10             3
Latency, send to arrival: p50 850 µs, p90 1.50 ms, p99 12.0 ms, p99.9 250 ms, max 1.20 s
"
        );
    }
}
