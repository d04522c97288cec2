//! A run over time: throughput, failures and latency second by second, on the run's
//! clock (`analysis::timeline`), with the step boundaries and the second at which
//! latency rose marked; per kind of request, the busiest labels' p99 over time; and
//! several runs overlaid for `compare`. Every run keeps a per-second timeline, so a
//! spike or a stall shows where it happened instead of vanishing into a step's average.

use super::{latency_unit, Line, LineChart, Mark, Marker, XAxis, MARKERS, PALETTE};
use crate::analysis::timeline::{latency_rise, run_seconds, step_offsets, RunSecond};
use crate::report::fmt::{fmt_latency, fmt_qps};
use crate::result::{RunResult, StepResult};

/// Latency on a log axis when the drawn values span more than this factor.
const LOG_SPAN: f64 = 10.0;

fn time_chart(title: String, y_title: &str, desc: &str, lines: Vec<Line>) -> LineChart {
    LineChart {
        title,
        x_title: "time (seconds from the run's start)".into(),
        y_title: y_title.into(),
        desc: desc.into(),
        lines,
        x_axis: XAxis::Linear,
        ..LineChart::default()
    }
}

/// What a line's values are, for its hover text and its scale.
#[derive(Clone, Copy)]
enum Unit {
    /// Requests per second, drawn as they are.
    Rate,
    /// Seconds, drawn multiplied by the chart's unit factor.
    Latency(f64),
}

/// A line of (time, value) points with hover text; latency values scaled to the
/// chart's unit after the text is written from the seconds.
fn line(
    name: &str,
    i: usize,
    dash: Option<&'static str>,
    points: Vec<(f64, f64)>,
    unit: Unit,
) -> Line {
    let tips = points
        .iter()
        .map(|(t, v)| match unit {
            Unit::Rate => format!("{name} at {t:.0} s: {}", fmt_qps(*v)),
            Unit::Latency(_) => format!("{name} at {t:.0} s: {}", fmt_latency(*v)),
        })
        .collect();
    let k = match unit {
        Unit::Rate => 1.0,
        Unit::Latency(k) => k,
    };
    Line {
        name: name.into(),
        color: PALETTE[i % PALETTE.len()],
        dash,
        marker: Marker::None,
        tips,
        points: points.into_iter().map(|(t, v)| (t, v * k)).collect(),
    }
}

/// Where each step starts, as marks: only for runs of more than one step.
fn step_marks(run: &RunResult) -> Vec<Mark> {
    if run.steps.len() < 2 {
        return Vec::new();
    }
    step_offsets(run)
        .into_iter()
        .zip(&run.steps)
        .enumerate()
        .map(|(i, (x, s))| Mark {
            x,
            label: format!("{}", i + 1),
            tip: format!("step {}: {}", i + 1, step_load(s)),
        })
        .collect()
}

/// "20 clients" or "500 req/s": what a step offered.
pub fn step_load(s: &StepResult) -> String {
    match (&s.rate_profile, s.rate) {
        (Some(p), _) => format!("{p} req/s"),
        (None, Some(r)) => format!("{} req/s", fmt_qps(r)),
        (None, None) => crate::report::fmt::clients(s.n_clients),
    }
}

/// Responses per second (successes) and failures per second over the run; `None` when
/// no step kept a timeline.
pub fn timeline_throughput_chart(run: &RunResult) -> Option<LineChart> {
    let seconds = run_seconds(run);
    if seconds.is_empty() {
        return None;
    }
    let at = |s: &RunSecond| s.t_s + s.span_s / 2.0;
    let mut lines = vec![line(
        "answered/s",
        0,
        None,
        seconds.iter().map(|s| (at(s), s.ok_rate())).collect(),
        Unit::Rate,
    )];
    if seconds.iter().any(|s| s.failed > 0) {
        lines.push(line(
            "failed/s",
            3,
            Some("6 4"),
            seconds.iter().map(|s| (at(s), s.failed_rate())).collect(),
            Unit::Rate,
        ));
    }
    let mut c = time_chart(
        "Throughput over time".into(),
        "requests per second",
        "Successful responses and failures per second over the run",
        lines,
    );
    c.marks = step_marks(run);
    Some(c)
}

/// p50, p99 and max latency per second over the run, on a log axis when they span more
/// than ten times; the second at which latency rose is marked.
pub fn timeline_latency_chart(run: &RunResult) -> Option<LineChart> {
    let seconds: Vec<RunSecond> = run_seconds(run)
        .into_iter()
        .filter(|s| s.requests > s.failed)
        .collect();
    if seconds.is_empty() {
        return None;
    }
    let at = |s: &RunSecond| s.t_s + s.span_s / 2.0;
    let max_s = seconds.iter().map(|s| s.max_s).fold(0.0, f64::max);
    let min_s = seconds
        .iter()
        .map(|s| s.p50_s)
        .filter(|v| *v > 0.0)
        .fold(f64::INFINITY, f64::min);
    let log_y = max_s > 0.0 && min_s.is_finite() && max_s / min_s > LOG_SPAN;
    let (unit, k) = latency_unit(max_s);
    type Get = fn(&RunSecond) -> f64;
    let kinds: [(&str, Get, Option<&'static str>); 3] = [
        ("p50", |s| s.p50_s, None),
        ("p99", |s| s.p99_s, None),
        ("max", |s| s.max_s, Some("2 3")),
    ];
    let lines = kinds
        .iter()
        .enumerate()
        .map(|(i, (n, get, dash))| {
            let points = seconds.iter().map(|s| (at(s), get(s))).collect();
            line(n, i, *dash, points, Unit::Latency(k))
        })
        .collect();
    let mut c = time_chart(
        "Latency over time".into(),
        &format!("response time ({unit})"),
        "Response time percentiles per second over the run",
        lines,
    );
    c.log_y = log_y;
    c.marks = step_marks(run);
    if let Some(r) = latency_rise(&run_seconds(run)) {
        c.marks.push(Mark {
            x: r.at_s,
            label: "rose".into(),
            tip: format!(
                "p99 rose at {:.0} s: {} before, {} then, at {} req/s",
                r.at_s,
                fmt_latency(r.baseline_p99_s),
                fmt_latency(r.p99_s),
                fmt_qps(r.rate)
            ),
        });
    }
    Some(c)
}

/// The busiest labels' p99 per second (the labels that kept a timeline), over the run.
pub fn label_latency_chart(run: &RunResult) -> Option<LineChart> {
    let offsets = step_offsets(run);
    let mut by_label: Vec<(String, Vec<(f64, f64)>)> = Vec::new();
    for (step, offset) in run.steps.iter().zip(&offsets) {
        for l in &step.labels {
            let Some(t) = &l.timeline else { continue };
            let key = format!("{}={}", l.key, l.value);
            let points = t.iter().filter(|s| s.responses > 0).map(|s| {
                (
                    offset + s.second as f64 + s.span_s.max(1) as f64 / 2.0,
                    s.p99_s,
                )
            });
            match by_label.iter_mut().find(|(k, _)| *k == key) {
                Some((_, p)) => p.extend(points),
                None => by_label.push((key, points.collect())),
            }
        }
    }
    if by_label.len() < 2 {
        return None;
    }
    let max_s = by_label
        .iter()
        .flat_map(|(_, p)| p.iter().map(|x| x.1))
        .fold(0.0, f64::max);
    let (unit, k) = latency_unit(max_s);
    let lines = by_label
        .into_iter()
        .enumerate()
        .map(|(i, (key, points))| {
            let mut l = line(&format!("{key} p99"), i, None, points, Unit::Latency(k));
            l.marker = MARKERS[i % MARKERS.len()];
            l
        })
        .collect();
    let mut c = time_chart(
        "p99 by kind of request".into(),
        &format!("p99 response time ({unit})"),
        "The busiest labels' 99th percentile per second over the run",
        lines,
    );
    c.marks = step_marks(run);
    Some(c)
}

/// Several runs' p99 and throughput over time, one line per run (`compare`).
pub fn compare_timeline_charts(runs: &[(&str, &RunResult)]) -> Vec<LineChart> {
    let seconds: Vec<(&str, Vec<RunSecond>)> = runs
        .iter()
        .map(|(n, r)| (*n, run_seconds(r)))
        .filter(|(_, s)| !s.is_empty())
        .collect();
    if seconds.len() < 2 {
        return Vec::new();
    }
    let at = |s: &RunSecond| s.t_s + s.span_s / 2.0;
    let max_s = seconds
        .iter()
        .flat_map(|(_, s)| s.iter().map(|x| x.p99_s))
        .fold(0.0, f64::max);
    let (unit, k) = latency_unit(max_s);
    let per_run = |get: &dyn Fn(&RunSecond) -> f64, suffix: &str, unit: Unit| -> Vec<Line> {
        seconds
            .iter()
            .enumerate()
            .map(|(i, (n, s))| {
                let points = s.iter().map(|x| (at(x), get(x))).collect();
                let mut l = line(&format!("{n} {suffix}"), i, None, points, unit);
                l.marker = MARKERS[i % MARKERS.len()];
                l
            })
            .collect()
    };
    vec![
        time_chart(
            "Throughput over time".into(),
            "answered requests per second",
            "Each run's successful responses per second over time",
            per_run(&|s| s.ok_rate(), "answered/s", Unit::Rate),
        ),
        time_chart(
            "p99 over time".into(),
            &format!("p99 response time ({unit})"),
            "Each run's 99th percentile per second over time",
            per_run(&|s| s.p99_s, "p99", Unit::Latency(k)),
        ),
    ]
}
