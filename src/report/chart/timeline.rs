//! A run over time: throughput, failures and latency second by second, on the run's
//! clock (`analysis::timeline`), with the step boundaries and the second at which
//! latency rose marked; per kind of request, the busiest labels' p99 over time; and
//! several runs overlaid for `compare`. Every run keeps a per-second timeline, so a
//! spike or a stall shows where it happened instead of vanishing into a step's average.
//!
//! Every chart here is on one clock (`analysis::timeline::step_seconds`): a point sits
//! at the middle of what its entry covered (a step's start + the second, a last partial
//! second at its true width, a sliver of a tail merged into the second before it), the
//! x axis runs from the run's start to its last step's end, and the SVG says so
//! (`data-x-range`, `data-step-bounds`), so the totals, the labels and the latency read
//! against one another second by second. A p99 resting on fewer than
//! [`MIN_PERCENTILE_SAMPLES`] responses is drawn apart, grey and unjoined, not as a
//! spike of its curve.

use super::svg::num;
use super::{latency_unit, Line, LineChart, Mark, Marker, XAxis, MARKERS, PALETTE, UNJOINED};
use crate::analysis::timeline::{
    latency_rise, run_end, run_seconds, step_seconds, step_spans, RunSecond, MIN_PERCENTILE_SAMPLES,
};
use crate::report::fmt::{fmt_latency, fmt_qps, Work};
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
            Unit::Rate => format!("{name} at {:.0} s: {}", t.floor(), fmt_qps(*v)),
            Unit::Latency(_) => format!("{name} at {:.0} s: {}", t.floor(), fmt_latency(*v)),
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
    step_spans(run)
        .into_iter()
        .zip(&run.steps)
        .enumerate()
        .map(|(i, ((x, _), s))| Mark {
            x,
            label: format!("{}", i + 1),
            tip: format!("step {}: {}", i + 1, step_load(s, Work::of(&run.targets))),
        })
        .collect()
}

/// Put a chart on the run's clock: the axis from its start to its last step's end,
/// the steps marked, and their bounds written on the SVG (`data-step-bounds`: each
/// step's start and end, seconds).
fn on_run_clock(c: &mut LineChart, run: &RunResult) {
    c.x_range = Some((0.0, run_end(run)));
    c.marks = step_marks(run);
    let bounds: Vec<String> = step_spans(run)
        .iter()
        .flat_map(|(a, b)| [num(*a), num(*b)])
        .collect();
    c.data.push(("step-bounds", bounds.join(" ")));
}

/// Where a point of an entry is drawn: the middle of what it covered.
fn at(s: &RunSecond) -> f64 {
    s.t_s + s.span_s / 2.0
}

/// A p99 resting on too few responses: (time, seconds, responses).
type Sparse = (f64, f64, u64);

/// The p99 points of `seconds` that rest on enough responses, and those that do not
/// (NaN in the first where the second has them, so hover texts stay in step).
fn p99_split(seconds: &[RunSecond]) -> (Vec<(f64, f64)>, Vec<Sparse>) {
    let drawn = seconds
        .iter()
        .map(|s| (at(s), if s.sparse() { f64::NAN } else { s.p99_s }))
        .collect();
    let sparse = seconds
        .iter()
        .filter(|s| s.sparse())
        .map(|s| (at(s), s.p99_s, s.responses))
        .collect();
    (drawn, sparse)
}

/// The p99s resting on too few responses, as one grey unjoined line; `None` when there
/// are none.
fn sparse_line(points: Vec<Sparse>, k: f64) -> Option<Line> {
    if points.is_empty() {
        return None;
    }
    let tips = points
        .iter()
        .map(|(t, v, n)| {
            format!(
                "p99 at {t:.1} s rests on {n} response{}: {} (not drawn on its curve)",
                if *n == 1 { "" } else { "s" },
                fmt_latency(*v)
            )
        })
        .collect();
    Some(Line {
        name: format!("p99 of < {MIN_PERCENTILE_SAMPLES} responses"),
        color: SPARSE_COLOR,
        dash: Some(UNJOINED),
        marker: Marker::Circle,
        tips,
        points: points.into_iter().map(|(t, v, _)| (t, v * k)).collect(),
    })
}

/// The colour of a point that rests on too few samples: quieter than any curve.
const SPARSE_COLOR: &str = "#b8b8b8";

/// "20 clients" or "500 req/s" (a SQL run's "500 tps"): what a step offered.
pub fn step_load(s: &StepResult, work: Work) -> String {
    match (&s.rate_profile, s.rate) {
        (Some(p), _) => format!("{p} {}", work.per_s()),
        (None, Some(r)) => format!("{} {}", fmt_qps(r), work.per_s()),
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
    let mut lines = vec![line(
        "answered/s",
        0,
        None,
        seconds.iter().map(|s| (at(s), s.ok_rate())).collect(),
        Unit::Rate,
    )];
    if let Some(offered) = offered_line(run, &seconds) {
        lines.insert(0, offered);
    }
    if seconds.iter().any(|s| s.failed > 0) {
        lines.push(line(
            "failed/s",
            3,
            Some("6 4"),
            seconds.iter().map(|s| (at(s), s.failed_rate())).collect(),
            Unit::Rate,
        ));
    }
    let work = Work::of(&run.targets);
    let mut c = time_chart(
        "Throughput over time".into(),
        &format!("{} per second", work.items()),
        &format!(
            "Successful {} and failures per second over the run, beside the rate \
             offered (open model)",
            work.answers()
        ),
        lines,
    );
    on_run_clock(&mut c, run);
    segment_marks(&mut c, run);
    Some(c)
}

/// The open model's offered rate over the run, second by second (what its timetable
/// made due in each entry ÷ the entry's width: a rate profile's segments as run); `None`
/// when no step was paced.
fn offered_line(run: &RunResult, seconds: &[RunSecond]) -> Option<Line> {
    if run.steps.iter().all(|s| s.rate.is_none()) {
        return None;
    }
    let starts: Vec<f64> = step_spans(run).iter().map(|(a, _)| *a).collect();
    // Each entry's rate across its whole width: a profile's steps drawn as steps.
    let points = seconds
        .iter()
        .flat_map(|s| {
            let step = &run.steps[s.step];
            let (a, b) = (s.t_s - starts[s.step], s.t_s - starts[s.step] + s.span_s);
            let rate = match (&step.profile, step.rate) {
                (Some(p), _) if s.span_s > 0.0 => {
                    p.segments.iter().map(|g| g.due_between(a, b)).sum::<f64>() / s.span_s
                }
                (_, Some(r)) => r,
                _ => f64::NAN,
            };
            [(s.t_s, rate), (s.t_s + s.span_s, rate)]
        })
        .collect();
    Some(line("offered/s", 1, Some("3 3"), points, Unit::Rate))
}

/// Where each segment of a step's rate profile starts (after its first), as marks,
/// and every segment's bounds on the SVG (`data-segment-bounds`: start and end,
/// seconds on the run's clock).
fn segment_marks(c: &mut LineChart, run: &RunResult) {
    let mut bounds = Vec::new();
    for ((start, _), step) in step_spans(run).into_iter().zip(&run.steps) {
        let Some(p) = &step.profile else { continue };
        for (k, g) in p.segments.iter().enumerate() {
            bounds.extend([num(start + g.start_s), num(start + g.end_s())]);
            if k > 0 {
                c.marks.push(Mark {
                    x: start + g.start_s,
                    label: g.text(),
                    tip: format!(
                        "segment {}: {} {} from {} s",
                        k + 1,
                        g.text(),
                        Work::of(&run.targets).per_s(),
                        num(g.start_s)
                    ),
                });
            }
        }
    }
    if !bounds.is_empty() {
        c.data.push(("segment-bounds", bounds.join(" ")));
    }
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
    let max_s = seconds.iter().map(|s| s.max_s).fold(0.0, f64::max);
    let min_s = seconds
        .iter()
        .map(|s| s.p50_s)
        .filter(|v| *v > 0.0)
        .fold(f64::INFINITY, f64::min);
    let log_y = max_s > 0.0 && min_s.is_finite() && max_s / min_s > LOG_SPAN;
    let (unit, k) = latency_unit(max_s);
    let (p99, sparse) = p99_split(&seconds);
    let mut lines = vec![
        line(
            "p50",
            0,
            None,
            seconds.iter().map(|s| (at(s), s.p50_s)).collect(),
            Unit::Latency(k),
        ),
        line("p99", 1, None, p99, Unit::Latency(k)),
        line(
            "max",
            2,
            Some("2 3"),
            seconds.iter().map(|s| (at(s), s.max_s)).collect(),
            Unit::Latency(k),
        ),
    ];
    lines.extend(sparse_line(sparse, k));
    let mut c = time_chart(
        "Latency over time".into(),
        &format!("response time ({unit})"),
        "Response time percentiles per second over the run",
        lines,
    );
    c.log_y = log_y;
    on_run_clock(&mut c, run);
    if let Some(r) = latency_rise(&run_seconds(run)) {
        c.marks.push(Mark {
            x: r.at_s,
            label: "rose".into(),
            tip: format!(
                "p99 rose at {:.0} s: {} before, {} then, at {} {}",
                r.at_s,
                fmt_latency(r.baseline_p99_s),
                fmt_latency(r.p99_s),
                fmt_qps(r.rate),
                Work::of(&run.targets).per_s()
            ),
        });
    }
    Some(c)
}

/// The busiest labels' p99 per second (the labels that kept a timeline), over the run,
/// titled by `heading` (`labels::heading`: "By kind of request", a SQL run's "By
/// script and statement").
pub fn label_latency_chart(run: &RunResult, heading: &str) -> Option<LineChart> {
    let spans = step_spans(run);
    let mut by_label: Vec<(String, Vec<RunSecond>)> = Vec::new();
    for (i, (step, (start, _))) in run.steps.iter().zip(spans).enumerate() {
        for l in &step.labels {
            let Some(t) = &l.timeline else { continue };
            let key = format!("{}={}", l.key, l.value);
            let seconds = step_seconds(i, start, step.elapsed_s, t)
                .into_iter()
                .filter(|s| s.responses > 0);
            match by_label.iter_mut().find(|(k, _)| *k == key) {
                Some((_, p)) => p.extend(seconds),
                None => by_label.push((key, seconds.collect())),
            }
        }
    }
    if by_label.len() < 2 {
        return None;
    }
    let max_s = by_label
        .iter()
        .flat_map(|(_, p)| p.iter().filter(|s| !s.sparse()).map(|s| s.p99_s))
        .fold(0.0, f64::max);
    let (unit, k) = latency_unit(max_s);
    let mut sparse = Vec::new();
    let mut lines: Vec<Line> = by_label
        .into_iter()
        .enumerate()
        .map(|(i, (key, seconds))| {
            let (points, few) = p99_split(&seconds);
            sparse.extend(few);
            let mut l = line(&format!("{key} p99"), i, None, points, Unit::Latency(k));
            l.marker = MARKERS[i % MARKERS.len()];
            l
        })
        .collect();
    sparse.sort_by(|a, b| a.0.total_cmp(&b.0));
    lines.extend(sparse_line(sparse, k));
    let mut c = time_chart(
        // "p99 by kind of request", a SQL run's "by script and statement".
        format!("p99 {}", heading.to_lowercase()),
        &format!("p99 response time ({unit})"),
        "The busiest labels' 99th percentile per second over the run",
        lines,
    );
    on_run_clock(&mut c, run);
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
    let end = runs.iter().map(|(_, r)| run_end(r)).fold(0.0, f64::max);
    let max_s = seconds
        .iter()
        .flat_map(|(_, s)| s.iter().map(|x| x.p99_s))
        .fold(0.0, f64::max);
    let (unit, k) = latency_unit(max_s);
    let work = Work::of_all(runs.iter().map(|(_, r)| Work::of(&r.targets)));
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
    let mut charts = vec![
        time_chart(
            "Throughput over time".into(),
            &format!("answered {} per second", work.items()),
            &format!(
                "Each run's successful {} per second over time",
                work.answers()
            ),
            per_run(&|s| s.ok_rate(), "answered/s", Unit::Rate),
        ),
        time_chart(
            "p99 over time".into(),
            &format!("p99 response time ({unit})"),
            "Each run's 99th percentile per second over time",
            per_run(&|s| s.p99_s, "p99", Unit::Latency(k)),
        ),
    ];
    for c in &mut charts {
        c.x_range = Some((0.0, end));
    }
    charts
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::report::chart::render_line_chart;
    use crate::result::fixture::{bare_step, run as fixture_run};
    use crate::result::timeline::{seconds, SecondResult};
    use crate::result::LabelResult;
    use crate::stats::{Outcome, Second, Timeline};

    /// A step's timeline: second `i` holds `n` responses of `ms` milliseconds.
    fn timeline(counts: &[(u64, u64)], elapsed_s: f64) -> Vec<SecondResult> {
        let mut t = Timeline::default();
        for (i, (n, ms)) in counts.iter().enumerate() {
            let mut s = Second::new();
            for _ in 0..*n {
                s.record(
                    Outcome::Status(200),
                    Duration::from_millis(*ms),
                    &Default::default(),
                );
            }
            t.add(i as u64, s);
        }
        seconds(&t, elapsed_s)
    }

    fn label(value: &str, t: Vec<SecondResult>) -> LabelResult {
        LabelResult {
            key: "group".into(),
            value: value.into(),
            total_requests: 0,
            responses: 0,
            statuses: Default::default(),
            errors: Default::default(),
            bytes_received: 0,
            latency: Default::default(),
            histogram: String::new(),
            timeline: Some(t),
        }
    }

    /// Two steps of 3.004 s, back to back, each ending in a 4 ms sliver where 4 slow
    /// stragglers ended; a `search` label busy every second and a `load` label of 5
    /// responses a second.
    fn ramp() -> RunResult {
        let steps = (0..2)
            .map(|i| {
                let mut s = bare_step(i + 1);
                s.elapsed_s = 3.004;
                s.timeline = Some(timeline(&[(300, 1), (300, 1), (300, 1), (4, 50)], 3.004));
                s.labels = vec![
                    label(
                        "search",
                        timeline(&[(295, 1), (295, 1), (295, 1), (3, 50)], 3.004),
                    ),
                    label("load", timeline(&[(5, 1), (5, 1), (5, 1), (1, 50)], 3.004)),
                ];
                s
            })
            .collect();
        let mut r = fixture_run(steps);
        r.settings.interval_s = 0.0;
        r
    }

    /// A SQL run's step marks over time said "step 2: 400 req/s": tps, a store's
    /// ops/s; HTTP's stay req/s.
    #[test]
    fn a_sql_run_s_steps_over_time_are_offered_in_tps_never_req_s() {
        let mut r = ramp();
        for (s, rate) in r.steps.iter_mut().zip([200.0, 400.0]) {
            s.rate = Some(rate);
        }
        r.targets = vec!["postgres://127.0.0.1:5432/hb".into()];
        let c = timeline_throughput_chart(&r).unwrap();
        let tips: Vec<&str> = c.marks.iter().map(|m| m.tip.as_str()).collect();
        assert!(tips.contains(&"step 2: 400.0 tps"), "{tips:?}");
        assert_eq!(step_load(&r.steps[1], Work::Command), "400.0 ops/s");
        assert_eq!(step_load(&r.steps[1], Work::Request), "400.0 req/s");
        let mut p = r.steps[1].clone();
        p.rate_profile = Some("2s@20, 1s@1000".into());
        assert_eq!(step_load(&p, Work::Transaction), "2s@20, 1s@1000 tps");
    }

    fn attr<'a>(svg: &'a str, name: &str) -> &'a str {
        let key = format!("data-{name}=\"");
        let from = svg
            .find(&key)
            .unwrap_or_else(|| panic!("no {key} in {svg}"))
            + key.len();
        &svg[from..from + svg[from..].find('"').unwrap()]
    }

    /// Issue 32: "p99 by kind of request" ran to 14 s on a 12 s ramp: each step's last
    /// sliver of a second was drawn as a whole second one second later, its handful of
    /// samples as a spike, and each chart fitted its own x axis.
    #[test]
    fn every_chart_over_time_shares_the_run_s_clock_and_merges_the_sliver() {
        let run = ramp();
        let charts = [
            timeline_throughput_chart(&run).unwrap(),
            timeline_latency_chart(&run).unwrap(),
            label_latency_chart(&run, "By kind of request").unwrap(),
        ];
        for c in &charts {
            let svg = render_line_chart(c);
            assert_eq!(attr(&svg, "x-range"), "0 6.008", "{}", c.title);
            assert_eq!(
                attr(&svg, "step-bounds"),
                "0 3.004 3.004 6.008",
                "{}",
                c.title
            );
            // The last point: the middle of second 2 of step 2 and its sliver.
            assert_eq!(attr(&svg, "x-extent"), "0.5 5.506", "{}", c.title);
            // No point in a step sits past its end.
            for l in &c.lines {
                for (x, _) in &l.points {
                    assert!(
                        *x < 3.004 || (*x > 3.004 && *x < 6.008),
                        "{x} in {}",
                        l.name
                    );
                }
                assert_eq!(l.points.len(), 6, "{} in {}", l.name, c.title);
            }
        }
        // The sliver's responses count in the second before it, over its true width.
        let tp = &charts[0].lines[0];
        assert!(
            (tp.points[2].1 - 304.0 / 1.004).abs() < 1e-6,
            "{:?}",
            tp.points
        );
        // Its histogram too: 4 of 304 at 50 ms put the second's p99 there, exactly.
        let p99 = &charts[1].lines[1];
        assert!((p99.points[2].1 - 50.0).abs() < 1.0, "{:?}", p99.points);
    }

    #[test]
    fn a_p99_of_too_few_responses_is_marked_not_drawn_on_its_curve() {
        let c = label_latency_chart(&ramp(), "By kind of request").unwrap();
        let load = c.lines.iter().find(|l| l.name == "group=load p99").unwrap();
        assert!(
            load.points.iter().all(|(_, y)| y.is_nan()),
            "{:?}",
            load.points
        );
        let few = c.lines.last().unwrap();
        assert_eq!(few.name, "p99 of < 10 responses");
        assert_eq!((few.color, few.dash), (SPARSE_COLOR, Some(UNJOINED)));
        assert_eq!(few.points.len(), 6);
        assert!(
            few.tips[0].contains("rests on 5 responses"),
            "{:?}",
            few.tips
        );
        // The busy label's curve is whole.
        let search = &c.lines[0];
        assert!(search.points.iter().all(|(_, y)| y.is_finite()));
    }
}
