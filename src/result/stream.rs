//! The `hakaru-stream` result: what `watch`, `stream send` and `stream run` write with
//! `-o` (JSON and CSV, both whole after any stop) and `watch`/`stream run` print with
//! `--json`. A result kind of its own
//! (`"kind": "hakaru-stream"`), documented field by field in docs/stream.md; the
//! request-response result schema is untouched.

use serde::{Deserialize, Serialize};

pub const KIND: &str = "hakaru-stream";
pub const VERSION: u32 = 1;

/// One interval of a watch: what arrived during it and the machine beside it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Point {
    /// Seconds from the start of the watch to the end of this interval.
    pub t_s: f64,
    /// "warmup", "run 1", "run 2", …
    pub phase: String,
    /// Bytes and records arrived in this interval.
    pub bytes: u64,
    pub records: u64,
    pub records_per_s: f64,
    /// MiB (2²⁰ bytes) per second.
    pub mib_per_s: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub machine: Option<MachineSample>,
    /// With `--verify` and records that carry their send time: the end-to-end latency
    /// of the records that arrived in this interval.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency: Option<IntervalLatency>,
}

/// End-to-end latency of one interval's records, microseconds, with the interval's
/// own histogram so any figure can be redrawn or intervals added exactly.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IntervalLatency {
    pub records: u64,
    pub p50_us: u64,
    pub p99_us: u64,
    pub max_us: u64,
    /// HdrHistogram V2 serialization (µs, 2 significant digits), base64.
    pub histogram: String,
}

impl IntervalLatency {
    /// `None` for an interval in which no stamped record arrived.
    pub fn of(h: &hdrhistogram::Histogram<u64>) -> Option<IntervalLatency> {
        (!h.is_empty()).then(|| IntervalLatency {
            records: h.len(),
            p50_us: h.value_at_quantile(0.5),
            p99_us: h.value_at_quantile(0.99),
            max_us: h.max(),
            histogram: super::encode_histogram(h),
        })
    }
}

/// One measured window (after the warm-up).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Window {
    /// 1-based.
    pub run: u32,
    pub from_s: f64,
    pub to_s: f64,
    pub records: u64,
    pub bytes: u64,
    pub records_per_s: f64,
    pub mib_per_s: f64,
    /// Ended before its length: everything expected had arrived, or the watch was stopped.
    pub cut_short: bool,
}

/// The mean of the windows' rates.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Means {
    pub records_per_s: f64,
    pub mib_per_s: f64,
}

/// What one watch measured.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WatchReport {
    pub source: String,
    pub interval_s: f64,
    pub warmup_s: f64,
    pub window_s: f64,
    pub repeat: u32,
    pub started_at: String,
    pub timeline: Vec<Point>,
    pub runs: Vec<Window>,
    pub mean: Means,
    /// Totals over the whole watch (warm-up included).
    pub total_records: u64,
    pub total_bytes: u64,
    /// file:/dir: files read again from the start after shrinking, and followed to
    /// their end after a rename or delete; listen:tcp: connections accepted.
    pub truncations: u64,
    pub rotations: u64,
    pub connections: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verify: Option<VerifyReport>,
    /// Readers that stopped on an error.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reader_errors: Vec<String>,
}

/// `stream run`: one record size, its repeats.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SizeRun {
    pub record_size: usize,
    pub repeats: Vec<Repeat>,
    /// The mean over the repeats of each repeat's window mean.
    pub mean: Means,
}

/// `stream run`: one repeat — the send and what the watch saw.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Repeat {
    pub send: SendReport,
    pub watch: WatchReport,
}

/// `stream send`: what was sent where, and how it went, sender side.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SendSection {
    pub to: String,
    /// Bytes per record, the newline included.
    pub record_size: usize,
    /// "raw" or "json".
    pub format: String,
    /// What the records carry (sender, sequence, send time), as `stream send` says it.
    pub layout: String,
    /// Records per sender (`--count`), when given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<u64>,
    /// `--rate` as given (records per second over all senders).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<String>,
    /// `--shard K/N`: this machine's part of a send spread over N (its senders' ids
    /// start at (K−1) × senders; it sent its share of `rate`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<super::Shard>,
    /// `--start-at`: seconds after the moment the first record left.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_late_s: Option<f64>,
    pub report: SendReport,
}

impl SendSection {
    pub fn records_per_s(&self) -> f64 {
        per_s(self.report.records() as f64, self.report.elapsed_s)
    }
    pub fn mib_per_s(&self) -> f64 {
        per_s(self.report.bytes() as f64, self.report.elapsed_s) / (1024.0 * 1024.0)
    }
}

fn per_s(n: f64, secs: f64) -> f64 {
    if secs > 0.0 {
        n / secs
    } else {
        0.0
    }
}

/// The whole file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StreamResult {
    /// Always "hakaru-stream".
    pub kind: String,
    pub version: u32,
    pub command: Vec<String>,
    pub started_at: String,
    /// `watch`: its report.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub watch: Option<WatchReport>,
    /// `stream send -o`: the send.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub send: Option<SendSection>,
    /// `stream run`: the sink and source, and a result per record size.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sizes: Vec<SizeRun>,
    /// False while a run is still going (the files are rewritten as it goes) or when it
    /// was stopped.
    pub complete: bool,
    /// `hakaru merge` of `stream send --shard` results: the shards it joined, of N.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub merged: Option<super::Merged>,
}

impl StreamResult {
    pub fn new(command: Vec<String>, started_at: String) -> StreamResult {
        StreamResult {
            kind: KIND.into(),
            version: VERSION,
            command,
            started_at,
            watch: None,
            send: None,
            to: None,
            sizes: Vec::new(),
            complete: false,
            merged: None,
        }
    }
}

/// The CSV: `watch`'s timeline, `stream send`'s senders, or `stream run`'s table (one
/// row per size and repeat).
pub fn to_csv(r: &StreamResult) -> String {
    let mut w = csv::Writer::from_writer(Vec::new());
    if let Some(watch) = &r.watch {
        timeline_csv(&mut w, None, &watch.timeline);
    } else if let Some(send) = &r.send {
        let _ = w.write_record([
            "sender",
            "records",
            "bytes",
            "elapsed_s",
            "records_per_s",
            "mib_per_s",
            "error",
        ]);
        for s in &send.report.senders {
            let _ = w.write_record([
                s.sender.to_string(),
                s.records.to_string(),
                s.bytes.to_string(),
                format!("{:.3}", s.elapsed_s),
                format!("{:.1}", per_s(s.records as f64, s.elapsed_s)),
                format!(
                    "{:.3}",
                    per_s(s.bytes as f64, s.elapsed_s) / (1024.0 * 1024.0)
                ),
                s.error.clone().unwrap_or_default(),
            ]);
        }
    } else {
        let _ = w.write_record([
            "record_size",
            "repeat",
            "records_per_s",
            "mib_per_s",
            "sent",
            "received",
            "lost",
            "duplicated",
            "out_of_order",
            "latency_p50_us",
            "latency_p99_us",
        ]);
        for s in &r.sizes {
            for (i, rep) in s.repeats.iter().enumerate() {
                let v = rep.watch.verify.as_ref();
                let lat = v.and_then(|v| v.latency_us.as_ref());
                let opt = |x: Option<u64>| x.map_or(String::new(), |x| x.to_string());
                let _ = w.write_record([
                    s.record_size.to_string(),
                    (i + 1).to_string(),
                    format!("{:.1}", rep.watch.mean.records_per_s),
                    format!("{:.3}", rep.watch.mean.mib_per_s),
                    rep.send.records().to_string(),
                    rep.watch.total_records.to_string(),
                    opt(v.map(|v| v.lost)),
                    opt(v.map(|v| v.duplicated)),
                    opt(v.map(|v| v.out_of_order)),
                    opt(lat.map(|l| l.p50)),
                    opt(lat.map(|l| l.p99)),
                ]);
            }
        }
    }
    String::from_utf8(w.into_inner().unwrap_or_default()).unwrap_or_default()
}

fn timeline_csv(w: &mut csv::Writer<Vec<u8>>, _size: Option<usize>, points: &[Point]) {
    let mut head = vec![
        "t_s",
        "phase",
        "records",
        "bytes",
        "records_per_s",
        "mib_per_s",
    ];
    head.extend(MachineSample::CSV_HEADER);
    head.extend([
        "latency_records",
        "latency_p50_us",
        "latency_p99_us",
        "latency_max_us",
    ]);
    let _ = w.write_record(&head);
    for p in points {
        let mut row = vec![
            format!("{:.3}", p.t_s),
            p.phase.clone(),
            p.records.to_string(),
            p.bytes.to_string(),
            format!("{:.1}", p.records_per_s),
            format!("{:.3}", p.mib_per_s),
        ];
        row.extend(MachineSample::csv_row(p.machine.as_ref()));
        match &p.latency {
            Some(l) => row.extend([l.records, l.p50_us, l.p99_us, l.max_us].map(|v| v.to_string())),
            None => row.extend([""; 4].map(String::from)),
        }
        let _ = w.write_record(&row);
    }
}

/// Write the CSV at `csv` and the JSON at `json`, each atomically (a reader never sees
/// half a file; a stop between the two leaves the older JSON whole).
pub fn write_files(
    r: &StreamResult,
    csv: &std::path::Path,
    json: &std::path::Path,
) -> std::io::Result<()> {
    super::store::write_atomic(csv, to_csv(r).as_bytes())?;
    let text = serde_json::to_string_pretty(r).map_err(std::io::Error::other)?;
    super::store::write_atomic(json, text.as_bytes())
}

/// The machine over one interval (memory: at its end; rates: over it).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct MachineSample {
    pub mem_free_mib: f64,
    pub page_cache_mib: f64,
    pub dirty_mib: f64,
    pub writeback_mib: f64,
    pub disk_write_mib_per_s: f64,
    pub net_rx_mib_per_s: f64,
    pub net_tx_mib_per_s: f64,
    /// `--pid`: its CPU over the interval, percent of one core.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pid_cpu_pct: Option<f64>,
}

impl MachineSample {
    pub const CSV_HEADER: [&'static str; 8] = [
        "mem_free_mib",
        "page_cache_mib",
        "dirty_mib",
        "writeback_mib",
        "disk_write_mib_per_s",
        "net_rx_mib_per_s",
        "net_tx_mib_per_s",
        "pid_cpu_pct",
    ];

    pub fn csv_row(m: Option<&MachineSample>) -> Vec<String> {
        match m {
            None => vec![String::new(); Self::CSV_HEADER.len()],
            Some(m) => vec![
                format!("{:.1}", m.mem_free_mib),
                format!("{:.1}", m.page_cache_mib),
                format!("{:.1}", m.dirty_mib),
                format!("{:.1}", m.writeback_mib),
                format!("{:.2}", m.disk_write_mib_per_s),
                format!("{:.2}", m.net_rx_mib_per_s),
                format!("{:.2}", m.net_tx_mib_per_s),
                m.pid_cpu_pct.map_or(String::new(), |c| format!("{c:.1}")),
            ],
        }
    }
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

/// Per-sender findings.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SenderCheck {
    /// The sender id; `null` for sequence-only records (the senders' shared sequence).
    pub sender: Option<u32>,
    /// Records that arrived, duplicates included.
    pub received: u64,
    /// Distinct sequence numbers that arrived.
    pub distinct: u64,
    /// Sequence numbers that never arrived: gaps below the highest seen, or short of
    /// the expected count when one was given.
    pub lost: u64,
    /// Records that arrived again.
    pub duplicated: u64,
    /// Records that arrived after a higher sequence number of the same sender.
    pub out_of_order: u64,
    pub max_seq: Option<u64>,
}

/// End-to-end latency, microseconds, from the records' own send times.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LatencyUs {
    pub count: u64,
    pub mean: f64,
    pub min: u64,
    pub p50: u64,
    pub p90: u64,
    pub p99: u64,
    pub p999: u64,
    pub max: u64,
    /// Records stamped later than they arrived (the sender's clock is ahead): counted as 0.
    pub early: u64,
}

/// What `--verify` found.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct VerifyReport {
    pub senders: Vec<SenderCheck>,
    pub received: u64,
    pub lost: u64,
    pub duplicated: u64,
    pub out_of_order: u64,
    /// Lines that are not hakaru records (a pipeline's own lines, or damage).
    pub foreign_lines: u64,
    /// `None` when the records carry no send time (too small for it).
    pub latency_us: Option<LatencyUs>,
}
