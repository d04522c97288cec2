//! The line charts of one or several runs: throughput and latency against clients,
//! which lines each has, and what is left out (and said so) to keep them readable.

use super::{
    latency_unit, ChartOptions, Line, LineChart, Mark, Marker, RefLine, MARKERS, MAX_OVER_TYPICAL,
    PALETTE,
};
use crate::analysis;
use crate::report::fmt::{capital, clients, fmt_latency, fmt_qps, Work};
use crate::report::ReportOptions;
use crate::result::series::Series;

pub(super) fn xs(s: &Series) -> impl Iterator<Item = &crate::result::series::Point> {
    s.points.iter().filter(|p| p.n_clients > 0)
}

/// The peak, the plateau and the knee of a single run, as vertical marks at their
/// clients; none for an overlay of several runs (their marks would tangle).
pub(super) fn saturation_marks(series: &[&Series]) -> Vec<Mark> {
    let [s] = series else {
        return Vec::new();
    };
    let sat = analysis::analyse(s);
    let rate = Work::of_series(s).rate();
    let mut marks = Vec::new();
    if let Some(k) = sat.knee {
        marks.push(Mark {
            x: k.n_clients as f64,
            label: "knee".into(),
            tip: format!(
                "knee: mean latency first above {}× the lowest load's, at {} ({})",
                analysis::KNEE_FACTOR,
                clients(k.n_clients),
                fmt_latency(k.mean_s)
            ),
        });
    }
    if let Some(p) = sat.plateau {
        marks.push(Mark {
            x: p.n_clients as f64,
            label: "plateau".into(),
            tip: format!(
                "plateau: {:.0}% of the peak from {} on ({} {rate})",
                analysis::PLATEAU_SHARE * 100.0,
                clients(p.n_clients),
                fmt_qps(p.qps)
            ),
        });
    }
    if let Some(p) = sat.peak {
        marks.push(Mark {
            x: p.n_clients as f64,
            label: "peak".into(),
            tip: format!(
                "peak: {} {rate} at {}",
                fmt_qps(p.qps),
                clients(p.n_clients)
            ),
        });
    }
    marks
}

/// Throughput (qps; a SQL run's tps, a store's ops/s) against clients; one line
/// per run.
pub fn throughput_chart(series: &[&Series]) -> LineChart {
    let work = Work::of_all(series.iter().map(|s| Work::of_series(s)));
    let lines = series
        .iter()
        .enumerate()
        .map(|(i, s)| Line {
            name: s.label.clone(),
            color: PALETTE[i % PALETTE.len()],
            dash: None,
            marker: MARKERS[i % MARKERS.len()],
            points: xs(s).map(|p| (p.n_clients as f64, p.qps)).collect(),
            tips: xs(s)
                .map(|p| {
                    format!(
                        "{}: {} clients, {} {}",
                        s.label,
                        p.n_clients,
                        fmt_qps(p.qps),
                        work.rate()
                    )
                })
                .collect(),
        })
        .collect();
    LineChart {
        desc: format!(
            "{} against the number of concurrent clients",
            capital(work.per_second())
        ),
        title: "Throughput against clients".into(),
        x_title: "concurrent clients".into(),
        y_title: format!("throughput ({})", work.per_second()),
        lines,
        marks: saturation_marks(series),
        ..LineChart::default()
    }
}

/// Latency against clients. One run: mean, p50, p99 and max where present, with the
/// 1-client mean as a dashed reference. Several runs: each run's mean (the tutorial's
/// overlay), plus each run's p99 dashed when known.
pub fn latency_chart(series: &[&Series], opts: ChartOptions) -> LineChart {
    let max_s = series
        .iter()
        .flat_map(|s| xs(s))
        .map(|p| p.mean_s.max(p.p99_s.unwrap_or(0.0)))
        .fold(0.0, f64::max);
    let (unit, k) = latency_unit(max_s);
    let mut lines = Vec::new();
    let mut refs = Vec::new();
    let mut notes = Vec::new();
    type Get = fn(&crate::result::series::Point) -> Option<f64>;
    if let [s] = series {
        let kinds: [(&str, Get, &'static str, Option<&'static str>, Marker); 4] = [
            ("mean", |p| Some(p.mean_s), PALETTE[0], None, Marker::Circle),
            ("p50", |p| p.p50_s, PALETTE[2], None, Marker::Square),
            ("p99", |p| p.p99_s, PALETTE[3], None, Marker::Triangle),
            (
                "max",
                |p| Some(p.max_s),
                PALETTE[6],
                Some("2 4"),
                Marker::Diamond,
            ),
        ];
        // A max far above the rest squashes the mean into the floor of a linear chart:
        // leave it out there (it stays in the tables) and say so; a log axis keeps it.
        let typical = xs(s)
            .map(|p| p.mean_s.max(p.p99_s.unwrap_or(0.0)))
            .fold(0.0, f64::max);
        let worst = xs(s).map(|p| p.max_s).fold(0.0, f64::max);
        let drop_max = !opts.log_latency && worst > MAX_OVER_TYPICAL * typical;
        for (name, get, color, dash, marker) in kinds {
            if drop_max && name == "max" {
                notes.push(format!(
                    "Max latency (up to {}) is left out of this chart to keep the others \
                     readable; the table has it, and --log-latency draws it.",
                    fmt_latency(worst)
                ));
                continue;
            }
            let pts: Vec<(f64, f64, usize)> = xs(s)
                .filter_map(|p| get(p).map(|v| (p.n_clients as f64, v * k, p.n_clients)))
                .collect();
            if pts.is_empty() {
                continue;
            }
            lines.push(Line {
                name: format!("{name} latency"),
                color,
                dash,
                marker,
                tips: pts
                    .iter()
                    .map(|(_, v, n)| format!("{name}: {n} clients, {}", fmt_latency(v / k)))
                    .collect(),
                points: pts.iter().map(|(a, b, _)| (*a, *b)).collect(),
            });
        }
        if let Some(b) = analysis::analyse(s).baseline {
            notes.insert(
                0,
                format!(
                    "The dashed grey line is the mean latency at the lowest load: where the \
                     mean rises well above it, {} wait for each other.",
                    Work::of_series(s).items()
                ),
            );
            refs.push(RefLine {
                name: format!(
                    "mean at {} client{}",
                    b.n_clients,
                    if b.n_clients == 1 { "" } else { "s" }
                ),
                y: b.mean_s * k,
                color: "#7a7a7a",
            });
        }
    } else {
        for (i, s) in series.iter().enumerate() {
            let color = PALETTE[i % PALETTE.len()];
            lines.push(Line {
                name: format!("{} mean", s.label),
                color,
                dash: None,
                marker: MARKERS[i % MARKERS.len()],
                points: xs(s).map(|p| (p.n_clients as f64, p.mean_s * k)).collect(),
                tips: xs(s)
                    .map(|p| {
                        format!(
                            "{}: {} clients, mean {}",
                            s.label,
                            p.n_clients,
                            fmt_latency(p.mean_s)
                        )
                    })
                    .collect(),
            });
        }
        for (i, s) in series.iter().enumerate() {
            if !s.has_percentiles() {
                continue;
            }
            let pts: Vec<_> = xs(s)
                .filter_map(|p| p.p99_s.map(|v| (p.n_clients, v)))
                .collect();
            lines.push(Line {
                name: format!("{} p99", s.label),
                color: PALETTE[i % PALETTE.len()],
                dash: Some("6 4"),
                marker: Marker::None,
                points: pts.iter().map(|(n, v)| (*n as f64, v * k)).collect(),
                tips: Vec::new(),
            });
        }
    }
    // The title says what is drawn: several runs show each one's mean, and its p99
    // (dashed) when the files have percentiles.
    let title = if series.len() == 1 {
        "Latency against clients".to_owned()
    } else if lines.iter().any(|l| l.name.ends_with(" p99")) {
        "Mean and p99 latency".to_owned()
    } else {
        "Mean latency".to_owned()
    };
    LineChart {
        desc: "Response time against the number of concurrent clients".into(),
        title,
        x_title: "concurrent clients".into(),
        y_title: format!(
            "latency ({unit}{})",
            if opts.log_latency { ", log scale" } else { "" }
        ),
        lines,
        refs,
        log_y: opts.log_latency,
        notes,
        marks: saturation_marks(series),
        ..LineChart::default()
    }
}

/// The line charts of one or several runs, each with the suffix of its standalone
/// file: answered and latency against offered rate when every run is open-model,
/// else throughput and latency against clients; then latency against throughput,
/// and for one run each step's latency by percentile (when the file has histograms).
pub fn run_charts(series: &[&Series], opts: &ReportOptions) -> Vec<(&'static str, LineChart)> {
    // Runs by clients and runs by rate share no x axis: each drawn on its own (a
    // fixed rate drawn at its connections beside a client ramp read as a ramp's step).
    let (open, closed): (Vec<&Series>, Vec<&Series>) =
        series.iter().copied().partition(|s| s.is_open_model());
    let mut charts = Vec::new();
    if !closed.is_empty() {
        charts.push(("-throughput", throughput_chart(&closed)));
        charts.push(("-latency", latency_chart(&closed, opts.chart)));
    }
    if !open.is_empty() {
        let mixed = !closed.is_empty();
        charts.push((
            if mixed {
                "-rate-throughput"
            } else {
                "-throughput"
            },
            super::rate_throughput_chart(&open),
        ));
        charts.push((
            if mixed { "-rate-latency" } else { "-latency" },
            super::rate_latency_chart(&open, opts.chart),
        ));
        // A group of one run draws as a single run's chart: its title names the run.
        if mixed {
            for (group, at) in [(&closed, 0), (&open, 2)] {
                if let [one] = group.as_slice() {
                    for (_, c) in &mut charts[at..at + 2] {
                        c.title = format!("{} — {}", c.title, one.label);
                    }
                }
            }
        }
    }
    charts.push((
        "-latency-throughput",
        super::latency_throughput_chart(series, opts.chart),
    ));
    if let [s] = series {
        if let Some(c) = super::percentile_chart(s, opts.chart) {
            charts.push(("-percentiles", c));
        }
    }
    charts
}

/// A `--find-max` run's steps (its probes, in the order the search ran them) by rate,
/// so that its rate charts draw curves.
pub fn by_rate(s: &Series) -> Series {
    let mut sorted = s.clone();
    sorted
        .points
        .sort_by(|a, b| a.rate.unwrap_or(0.0).total_cmp(&b.rate.unwrap_or(0.0)));
    sorted
}

/// The open-model charts of a `--find-max` run's probes: without the marks of the
/// rates held, which judge throughput alone, not the SLO (the search's own chart
/// marks the answer).
pub fn searched_charts(s: &Series, opts: &ReportOptions) -> Vec<(&'static str, LineChart)> {
    let mut charts = run_charts(&[s], opts);
    for (_, c) in &mut charts {
        c.marks.clear();
    }
    charts
}
