//! The charts of log-pipeline results (`hakaru watch`, `stream send`, `stream run`):
//! records/s and MiB/s against record size (the seed's table as a picture, one line
//! per pipeline), and the per-interval timelines beside the machine — arrival against
//! disk writes and network traffic, free memory and page cache, dirty and writeback
//! pages, the receiver's CPU — so the moment the bottleneck moved is visible (the
//! seed's HDD run: fast until dirty pages filled memory, then at the disk's speed).

use crate::report::chart::{LineChart, Mark, Marker, MARKERS, PALETTE};
use crate::report::fmt::sig3;
use crate::report::stream::{grouped, size_name, Segment, SizeRow};
use crate::result::stream::MachineSample;
use crate::result::stream::Point;

/// Records/s (`mib` false) or MiB/s against record size, one line per result.
pub fn size_chart(runs: &[(&str, &[SizeRow])], mib: bool) -> LineChart {
    let mut lines = Vec::new();
    let mut notes = Vec::new();
    for (i, (label, rows)) in runs.iter().enumerate() {
        let mut drawn: Vec<&SizeRow> = Vec::new();
        for r in rows.iter() {
            match r.record_size {
                Some(_) if r.measured => drawn.push(r),
                Some(b) => notes.push(format!(
                    "{label}: at {} every record arrived within the warm-up; it is not drawn.",
                    size_name(Some(b))
                )),
                None => notes.push(format!(
                    "{label}: the records were of several sizes; not drawn against record size."
                )),
            }
        }
        drawn.sort_by_key(|r| r.record_size);
        let y = |r: &SizeRow| if mib { r.mib_per_s } else { r.records_per_s };
        lines.push(crate::report::chart::Line {
            name: (*label).to_string(),
            color: PALETTE[i % PALETTE.len()],
            dash: None,
            marker: MARKERS[i % MARKERS.len()],
            points: drawn
                .iter()
                .map(|r| (r.record_size.unwrap_or(0) as f64, y(r)))
                .collect(),
            tips: drawn
                .iter()
                .map(|r| {
                    format!(
                        "{label}: {}: {} records/s, {:.1} MiB/s",
                        size_name(r.record_size),
                        grouped(r.records_per_s.round() as u64),
                        r.mib_per_s
                    )
                })
                .collect(),
        });
    }
    if runs
        .iter()
        .any(|(_, rows)| rows.iter().any(|r| r.sender_side))
    {
        notes.push("A stream send result's rates are the sender's: what it handed to the sink, not what arrived.".into());
    }
    let (what, unit) = if mib {
        ("MiB per second", "MiB/s (2²⁰ bytes)")
    } else {
        ("Records per second", "records per second")
    };
    LineChart {
        x_range: None,
        data: Vec::new(),
        title: title(&format!("{what} by record size"), runs.iter().map(|r| r.0)),
        x_title: "record size (bytes, newline included)".into(),
        y_title: unit.into(),
        lines,
        refs: Vec::new(),
        log_y: false,
        x_axis: crate::report::chart::XAxis::Linear,
        marks: Vec::new(),
        desc: format!("{what} at the receiver, the mean of the measured windows, against the size of each record"),
        notes,
    }
}

fn title<'a>(what: &str, mut labels: impl Iterator<Item = &'a str>) -> String {
    match (labels.next(), labels.next()) {
        (Some(l), None) => format!("{what} — {l}"),
        _ => what.to_owned(),
    }
}

/// Every point of the segments on the shared axis, with its machine sample.
fn points<'a>(segs: &'a [Segment<'a>]) -> impl Iterator<Item = (f64, &'a Point)> + 'a {
    segs.iter().flat_map(|s| {
        s.watch
            .timeline
            .iter()
            .map(move |p| (s.offset_s + p.t_s, p))
    })
}

/// Where each window starts (one watch) or each round starts (several).
fn marks(segs: &[Segment]) -> Vec<Mark> {
    if segs.len() == 1 {
        let w = segs[0].watch;
        if w.warmup_s <= 0.0 {
            return Vec::new();
        }
        return w
            .runs
            .iter()
            .map(|r| Mark {
                x: r.from_s,
                label: if w.runs.len() == 1 {
                    "measured".into()
                } else {
                    format!("window {}", r.run)
                },
                tip: format!(
                    "window {}: {:.1}–{:.1} s, {} records/s, {:.1} MiB/s",
                    r.run,
                    r.from_s,
                    r.to_s,
                    grouped(r.records_per_s.round() as u64),
                    r.mib_per_s
                ),
            })
            .collect();
    }
    segs.iter()
        .map(|s| Mark {
            x: s.offset_s,
            label: format!("round {}", s.round),
            tip: format!(
                "round {}: {} records/s, {:.1} MiB/s over its window",
                s.round,
                grouped(s.watch.mean.records_per_s.round() as u64),
                s.watch.mean.mib_per_s
            ),
        })
        .collect()
}

type Get = fn(&Point) -> Option<f64>;

fn series_line(
    segs: &[Segment],
    name: &str,
    k: usize,
    dash: Option<&'static str>,
    unit: &str,
    get: Get,
) -> crate::report::chart::Line {
    let pts: Vec<(f64, f64)> = points(segs)
        .filter_map(|(t, p)| get(p).map(|v| (t, v)))
        .collect();
    crate::report::chart::Line {
        name: name.to_owned(),
        color: PALETTE[k % PALETTE.len()],
        dash,
        marker: if pts.len() <= 40 {
            MARKERS[k % MARKERS.len()]
        } else {
            Marker::None
        },
        tips: pts
            .iter()
            .map(|(t, v)| format!("{name} at {t:.1} s: {} {unit}", sig3(*v)))
            .collect(),
        points: pts,
    }
}

fn machine(p: &Point) -> Option<&MachineSample> {
    p.machine.as_ref()
}

fn timeline_chart(
    segs: &[Segment],
    title: String,
    y_title: &str,
    desc: &str,
    lines: Vec<crate::report::chart::Line>,
    notes: Vec<String>,
) -> LineChart {
    LineChart {
        x_range: None,
        data: Vec::new(),
        title,
        x_title: "seconds from the start of the watch".into(),
        y_title: y_title.into(),
        lines,
        refs: Vec::new(),
        log_y: false,
        x_axis: crate::report::chart::XAxis::Linear,
        marks: marks(segs),
        desc: desc.into(),
        notes,
    }
}

/// The timeline charts of one watch (or one record size's rounds end to end): what
/// arrived, beside the machine. Charts with nothing to draw are left out.
pub fn timeline_charts(label: &str, size: Option<u64>, segs: &[Segment]) -> Vec<LineChart> {
    let what = match size {
        Some(_) => format!("{label}, {}", size_name(size)),
        None => label.to_owned(),
    };
    let has = |get: Get| points(segs).any(|(_, p)| get(p).is_some());
    let mut out = Vec::new();
    let round_note = (segs.len() > 1).then(|| {
        "The rounds are laid end to end; each starts where the one before ended.".to_string()
    });
    out.push(timeline_chart(
        segs,
        format!("Records arrived per second — {what}"),
        "records per second",
        "Records counted at the receiver in each interval, per second",
        vec![series_line(segs, "records/s", 0, None, "records/s", |p| {
            Some(p.records_per_s)
        })],
        round_note.iter().cloned().collect(),
    ));
    if has(|p| p.latency.as_ref().map(|l| l.p99_us as f64)) {
        out.push(latency_chart(segs, &what));
    }
    let mut io = vec![series_line(segs, "arrived", 0, None, "MiB/s", |p| {
        Some(p.mib_per_s)
    })];
    if has(|p| machine(p).map(|m| m.disk_write_mib_per_s)) {
        io.push(series_line(segs, "disk writes", 1, None, "MiB/s", |p| {
            machine(p).map(|m| m.disk_write_mib_per_s)
        }));
        io.push(series_line(
            segs,
            "network in",
            2,
            Some("6 4"),
            "MiB/s",
            |p| machine(p).map(|m| m.net_rx_mib_per_s),
        ));
        io.push(series_line(
            segs,
            "network out",
            3,
            Some("2 4"),
            "MiB/s",
            |p| machine(p).map(|m| m.net_tx_mib_per_s),
        ));
    }
    out.push(timeline_chart(
        segs,
        format!("Arrival, disk and network — {what}"),
        "MiB per second",
        "MiB arrived per second beside the machine's disk writes and network traffic (every interface, loopback included)",
        io,
        vec!["Disk writes are whole disks from /proc/diskstats; network is every interface in /proc/net/dev, loopback included.".into()],
    ));
    if has(|p| machine(p).map(|m| m.mem_free_mib)) {
        out.push(timeline_chart(
            segs,
            format!("Free memory and page cache — {what}"),
            "MiB",
            "Free memory and page cache at the end of each interval",
            vec![
                series_line(segs, "free", 0, None, "MiB", |p| {
                    machine(p).map(|m| m.mem_free_mib)
                }),
                series_line(segs, "page cache", 1, None, "MiB", |p| {
                    machine(p).map(|m| m.page_cache_mib)
                }),
            ],
            Vec::new(),
        ));
        out.push(timeline_chart(
            segs,
            format!("Dirty and writeback pages — {what}"),
            "MiB",
            "Dirty pages waiting for the disk and pages being written back, at the end of each interval",
            vec![
                series_line(segs, "dirty", 3, None, "MiB", |p| {
                    machine(p).map(|m| m.dirty_mib)
                }),
                series_line(segs, "writeback", 4, Some("6 4"), "MiB", |p| {
                    machine(p).map(|m| m.writeback_mib)
                }),
            ],
            vec!["When dirty pages stop growing and arrival falls to the disk-write rate, the disk has become the limit.".into()],
        ));
    }
    if has(|p| machine(p).and_then(|m| m.pid_cpu_pct)) {
        out.push(timeline_chart(
            segs,
            format!("Receiver CPU — {what}"),
            "percent of one core",
            "The receiving process's CPU (--pid) over each interval, in percent of one core",
            vec![series_line(segs, "receiver CPU", 5, None, "%", |p| {
                machine(p).and_then(|m| m.pid_cpu_pct)
            })],
            vec!["100% is one core: a single-threaded receiver at 100% is the limit.".into()],
        ));
    }
    out
}

/// End-to-end latency per interval (p50, p99, max), on a log axis when it spans more
/// than 10×, as the request-response timelines are drawn.
fn latency_chart(segs: &[Segment], what: &str) -> LineChart {
    fn ms(v: u64) -> f64 {
        v as f64 / 1000.0
    }
    let lines = vec![
        series_line(segs, "p50", 0, None, "ms", |p| {
            p.latency.as_ref().map(|l| ms(l.p50_us))
        }),
        series_line(segs, "p99", 1, None, "ms", |p| {
            p.latency.as_ref().map(|l| ms(l.p99_us))
        }),
        series_line(segs, "max", 3, Some("6 4"), "ms", |p| {
            p.latency.as_ref().map(|l| ms(l.max_us))
        }),
    ];
    let (lo, hi) = lines
        .iter()
        .flat_map(|l| l.points.iter().map(|p| p.1))
        .filter(|v| *v > 0.0)
        .fold((f64::MAX, 0.0f64), |(lo, hi), v| (lo.min(v), hi.max(v)));
    let mut c = timeline_chart(
        segs,
        format!("End-to-end latency per interval — {what}"),
        "milliseconds (arrival − send time)",
        "Each interval's records: the time from their send (stamped in the record) to their arrival at the receiver",
        lines,
        vec!["A record counts in the interval it was read in (give or take 20 ms at the boundary).".into()],
    );
    c.log_y = hi > 10.0 * lo;
    c
}

/// Several results' arrival at one record size on one time axis (`hakaru compare`).
pub fn arrival_overlay(size: Option<u64>, runs: &[(&str, Vec<Segment>)]) -> LineChart {
    let lines = runs
        .iter()
        .enumerate()
        .map(|(i, (label, segs))| {
            let mut l = series_line(segs, label, i, None, "MiB/s", |p| Some(p.mib_per_s));
            l.marker = Marker::None;
            l
        })
        .collect();
    LineChart {
        x_range: None,
        data: Vec::new(),
        title: format!("MiB arrived per second — {}", size_name(size)),
        x_title: "seconds from the start of the watch".into(),
        y_title: "MiB per second".into(),
        lines,
        refs: Vec::new(),
        log_y: false,
        x_axis: crate::report::chart::XAxis::Linear,
        marks: Vec::new(),
        desc: "Each pipeline's arrival rate per interval on one time axis".into(),
        notes: vec!["A stream run's rounds are laid end to end.".into()],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::result::stream::{Means, WatchReport, Window};

    fn watch(n: usize) -> WatchReport {
        WatchReport {
            source: "file:/x".into(),
            interval_s: 1.0,
            warmup_s: 2.0,
            window_s: 3.0,
            repeat: 1,
            started_at: String::new(),
            timeline: (1..=n)
                .map(|i| Point {
                    t_s: i as f64,
                    phase: "run 1".into(),
                    bytes: 1024 * 100,
                    records: 100,
                    records_per_s: 100.0,
                    mib_per_s: 0.1,
                    latency: None,
                    machine: Some(MachineSample {
                        mem_free_mib: 1000.0 - i as f64,
                        dirty_mib: i as f64,
                        pid_cpu_pct: (i > 1).then_some(50.0),
                        ..Default::default()
                    }),
                })
                .collect(),
            runs: vec![Window {
                run: 1,
                from_s: 2.0,
                to_s: 5.0,
                records: 300,
                bytes: 300 * 1024,
                records_per_s: 100.0,
                mib_per_s: 0.1,
                cut_short: false,
            }],
            mean: Means {
                records_per_s: 100.0,
                mib_per_s: 0.1,
            },
            total_records: 500,
            total_bytes: 500 * 1024,
            truncations: 0,
            rotations: 0,
            connections: 0,
            verify: None,
            reader_errors: vec![],
        }
    }

    #[test]
    fn timelines_show_the_machine_beside_the_arrival() {
        let w = watch(5);
        let segs = [Segment {
            offset_s: 0.0,
            round: 1,
            watch: &w,
        }];
        let charts = timeline_charts("pipe", Some(1024), &segs);
        let titles: Vec<&str> = charts.iter().map(|c| c.title.as_str()).collect();
        assert_eq!(
            titles,
            [
                "Records arrived per second — pipe, 1,024 B",
                "Arrival, disk and network — pipe, 1,024 B",
                "Free memory and page cache — pipe, 1,024 B",
                "Dirty and writeback pages — pipe, 1,024 B",
                "Receiver CPU — pipe, 1,024 B"
            ]
        );
        assert_eq!(charts[3].lines[0].points[4], (5.0, 5.0));
        // The first interval has no CPU figure yet: not drawn as 0.
        assert_eq!(charts[4].lines[0].points.len(), 4);
        assert_eq!(charts[0].marks[0].label, "measured");
        // Two rounds end to end: the second starts where the first ended.
        let segs = [
            segs[0],
            Segment {
                offset_s: 5.0,
                round: 2,
                watch: &w,
            },
        ];
        let c = &timeline_charts("pipe", Some(1024), &segs)[0];
        assert_eq!(c.lines[0].points[5].0, 6.0);
        assert_eq!(c.marks[1].label, "round 2");
    }

    #[test]
    fn sizes_against_rates_one_line_per_pipeline() {
        let row = |size, rps: f64| SizeRow {
            record_size: Some(size),
            records_per_s: rps,
            mib_per_s: rps * size as f64 / 1048576.0,
            rounds: 1,
            measured: true,
            sent: None,
            received: None,
            verify: None,
            sender_side: false,
        };
        let a = [row(4096, 64_943.0), row(10, 937_779.0)];
        let b = [row(10, 1000.0)];
        let c = size_chart(&[("k2h", &a[..]), ("file", &b[..])], true);
        assert_eq!(c.lines.len(), 2);
        assert_eq!(c.lines[0].points[0].0, 10.0);
        assert!((c.lines[0].points[1].1 - 253.68).abs() < 0.01);
        assert_eq!(c.title, "MiB per second by record size");
    }
}
