//! A day of per-second timelines, on a simulated clock: what `bench/timeline_day.sh`
//! runs to show that a 24-hour step's timelines stay bounded (issue 18: "a 24-hour run
//! at 50k req/s must stay under 100 MB of RSS"), which a real day cannot show in a
//! session.
//!
//! It drives the engine's own parts the way a worker and the coordinator do: one
//! worker's [`Ticker`] records every simulated second's responses (spread log-uniformly
//! over 1–100 ms, so each second's histogram uses as many buckets as a busy real one;
//! a histogram's size depends on its buckets, not its counts) under LABELS labels, and
//! the coordinator's [`Recorder::add_second`] keeps the step's timeline and the timed
//! labels'. It prints the process's RSS every simulated hour.
//!
//! Usage: `timeline_day [HOURS=24] [PER_SECOND=5000] [LABELS=8]`

use std::sync::Arc;
use std::time::{Duration, Instant};

use hakaru::stats::{LabelSet, Outcome, Recorder};

fn rss_mb() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(0.0, |kb| kb / 1024.0)
}

fn main() {
    let arg = |i: usize, default: u64| {
        std::env::args()
            .nth(i)
            .and_then(|a| a.parse().ok())
            .unwrap_or(default)
    };
    let (hours, per_second, n_labels) = (arg(1, 24), arg(2, 5000), arg(3, 8));
    let mut set = LabelSet::new();
    for i in 0..n_labels {
        set.intern("group", &format!("g{i}"));
    }
    let names = Arc::new(set.finish("bench"));
    let t0 = Instant::now();
    let mut worker = Recorder::new(1, 0, 0)
        .with_labels(names.clone())
        .with_ticker(t0);
    let mut coord = Recorder::new(1, 0, 0).with_labels(names);
    let base = rss_mb();
    println!("hours {hours}, {per_second} responses a simulated second, {n_labels} labels; RSS before: {base:.1} MB");
    // 1 ms × 100^(k/n): log-uniform over 1–100 ms.
    let spread: Vec<Duration> = (0..per_second)
        .map(|k| {
            let f = 100f64.powf(k as f64 / per_second as f64);
            Duration::from_micros((1000.0 * f) as u64)
        })
        .collect();
    let started = Instant::now();
    for s in 0..hours * 3600 {
        let second = t0 + Duration::from_secs(s);
        for (k, latency) in spread.iter().enumerate() {
            let at = second + Duration::from_micros(k as u64 * 1_000_000 / per_second);
            let label = (k as u64 % n_labels.max(1)) as u16;
            if let Some(f) = worker.record_label(label, at, Outcome::Status(200), *latency, 100, 0)
            {
                coord.add_second(*f);
            }
        }
        if (s + 1) % 3600 == 0 {
            let kept: usize = coord
                .timeline
                .iter()
                .chain(coord.labels.iter().filter_map(|l| l.timeline.as_ref()))
                .map(|t| t.compact_bytes())
                .sum();
            println!(
                "hour {:>2}: RSS {:>6.1} MB (+{:.1} MB); timelines hold {:.1} MB; {:.0} s elapsed",
                (s + 1) / 3600,
                rss_mb(),
                rss_mb() - base,
                kept as f64 / 1048576.0,
                started.elapsed().as_secs_f64()
            );
        }
    }
    if let Some(f) = worker.ticker.take().and_then(|mut t| t.finish(0)) {
        coord.add_second(*f);
    }
    let timeline = coord.timeline.as_ref().expect("seconds were added");
    println!(
        "end: RSS {:.1} MB (+{:.1} MB over the start); {} entries in the step's timeline (coarsened: {}); {} responses",
        rss_mb(),
        rss_mb() - base,
        timeline.entries().len(),
        timeline.coarsened(),
        coord.latency.len()
    );
}
