//! The charts of `ramp --find-max`: each probe's response time (the SLO's own
//! latency figure, p99 in `p99<50ms`) against its offered rate, and each probe's error
//! share the same way. Probes are points, not a curve (the search jumps about and may
//! probe one rate twice), so passed, failed and not-judged probes are marker sets of
//! their own; the SLO's bound is a line, the answer and the lowest failed rate marks.

use crate::analysis::threshold::{failed_requests, measure};
use crate::report::chart::{
    latency_unit, ChartOptions, Line, LineChart, Mark, Marker, RefLine, XAxis, UNJOINED,
};
use crate::report::fmt::{fmt_qps, fmt_share, Work};
use crate::report::threshold::fmt_value;
use crate::result::find_max::{FindMaxResult, ProbeResult};
use crate::result::RunResult;
use crate::spec::threshold::{Metric, Threshold};

/// Colour of the SLO's bound: apart from the probes' colours.
const SLO_COLOR: &str = "#cc3311";

/// The four kinds of probe: (name, colour, marker, which). "not confirmed" is a
/// failure its repeat passed; short, so that the legend holds it.
const KINDS: [(&str, &str, Marker, Kind); 4] = [
    ("passed", "#009E73", Marker::Circle, Kind::Passed),
    ("failed", "#D55E00", Marker::Triangle, Kind::Failed),
    (
        "not confirmed",
        "#E69F00",
        Marker::Diamond,
        Kind::Unconfirmed,
    ),
    ("not judged", "#7a7a7a", Marker::Square, Kind::NotJudged),
];

#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    Passed,
    Failed,
    /// A failure its repeat did not confirm: it lowered nothing, so it is not drawn
    /// as one that did (only the hover text told them apart).
    Unconfirmed,
    NotJudged,
}

fn kind(p: &ProbeResult) -> Kind {
    if p.passed {
        Kind::Passed
    } else if p.inconclusive {
        Kind::NotJudged
    } else if p.unconfirmed {
        Kind::Unconfirmed
    } else {
        Kind::Failed
    }
}

/// The SLO's thresholds with their place in `slo` (unparsable ones skipped).
fn slo(fm: &FindMaxResult) -> Vec<(usize, Threshold)> {
    fm.slo
        .iter()
        .enumerate()
        .filter_map(|(i, t)| Threshold::parse(t).ok().map(|t| (i, t)))
        .collect()
}

/// A probe's value of `metric`: as the search recorded it for the SLO's threshold at
/// `index`, else measured on the probe's step.
fn value(run: &RunResult, p: &ProbeResult, index: Option<usize>, metric: Metric) -> Option<f64> {
    index
        .and_then(|i| p.values.get(i).copied().flatten())
        .or_else(|| run.steps.get(p.step).and_then(|s| measure(metric, s).value))
}

/// The answer and the lowest failed rate as marks.
fn marks(fm: &FindMaxResult) -> Vec<Mark> {
    let mut marks = Vec::new();
    if let Some(r) = fm.max_sustainable_rate {
        marks.push(Mark {
            x: r,
            label: format!("answer {}/s", fmt_qps(r)),
            tip: format!(
                "max sustainable rate: {}/s{}",
                fmt_qps(r),
                if fm.confirmed {
                    ", held on a second probe"
                } else {
                    ", not confirmed"
                }
            ),
        });
    }
    if let Some(r) = fm.lowest_failed_rate {
        marks.push(Mark {
            x: r,
            label: format!("failed {}/s", fmt_qps(r)),
            tip: format!("the lowest rate that failed a probe: {}/s", fmt_qps(r)),
        });
    }
    marks
}

/// One probe's hover text: "probe 4: 800.0/s, p99 313 ms — FAIL: …".
/// The verdict in the tables' words ("FAIL, not confirmed", a repeat's note).
fn tip(i: usize, p: &ProbeResult, figure: &str) -> String {
    let verdict = match super::verdict(p) {
        (word, why) if why.is_empty() => word.to_owned(),
        (word, why) => format!("{word}: {why}"),
    };
    format!(
        "probe {}: {}/s, {figure} — {verdict}",
        i + 1,
        fmt_qps(p.rate)
    )
}

/// A probe's point: its y (in the axis's unit) and the figure for its hover text,
/// from the probe's index and the probe; None when it has no such figure.
type ProbePoint<'a> = &'a dyn Fn(usize, &ProbeResult) -> Option<(f64, String)>;

/// The probes as marker sets, one per kind that occurs: `(rate, y)` with `y` from
/// `get` of the probe's index (already in the axis's unit) and the figure for the
/// hover text.
fn probe_lines(fm: &FindMaxResult, what: &str, get: ProbePoint) -> Vec<Line> {
    KINDS
        .iter()
        .filter_map(|(name, color, marker, k)| {
            let (points, tips): (Vec<(f64, f64)>, Vec<String>) = fm
                .probes
                .iter()
                .enumerate()
                .filter(|(_, p)| kind(p) == *k)
                .filter_map(|(i, p)| get(i, p).map(|(y, f)| ((p.rate, y), tip(i, p, &f))))
                .unzip();
            (!points.is_empty()).then(|| Line {
                name: format!("{what}, {name}"),
                color,
                dash: Some(UNJOINED),
                marker: *marker,
                points,
                tips,
            })
        })
        .collect()
}

/// Each probe's response time against its rate, with the SLO's bound and the answer.
pub fn find_max_latency_chart(
    run: &RunResult,
    fm: &FindMaxResult,
    opts: ChartOptions,
) -> LineChart {
    let slo = slo(fm);
    // The SLO's first response-time threshold decides the figure; p99 without one.
    let latency = slo.iter().find(|(_, t)| t.metric.is_latency());
    let (index, metric, label) = match latency {
        Some((i, t)) => (
            Some(*i),
            t.metric,
            fm.slo[*i]
                .split(['<', '>'])
                .next()
                .unwrap_or("p99")
                .to_owned(),
        ),
        None => (None, Metric::Percentile(99.0), "p99".to_owned()),
    };
    let values: Vec<Option<f64>> = fm
        .probes
        .iter()
        .map(|p| value(run, p, index, metric))
        .collect();
    let max = values
        .iter()
        .flatten()
        .copied()
        .chain(latency.map(|(_, t)| t.bound))
        .fold(0.0, f64::max);
    let (unit, k) = latency_unit(max);
    let threshold = latency
        .map(|(i, _)| fm.slo[*i].as_str())
        .unwrap_or("p99<1s");
    let by_probe = |i: usize, _: &ProbeResult| {
        values[i].map(|v| (v * k, format!("{label} {}", fmt_value(threshold, Some(v)))))
    };
    let work = Work::of(&run.targets);
    let mut notes = vec![format!(
        "Each point is a probe: a fixed rate for at least {n} {answers}. A probe fails when \
         the SLO does not hold, when its queue grows, or when hakaru fell behind its \
         timetable; one without enough {answers} is probed again for longer (not judged).",
        n = fm.min_samples,
        answers = work.answers()
    )];
    if latency.is_none() {
        notes.push("The SLO bounds no response time; the chart shows p99.".into());
    }
    LineChart {
        x_range: None,
        data: Vec::new(),
        title: format!("{label} of each probe by rate"),
        x_title: offered_axis(work),
        y_title: format!("{label} latency from the due time ({unit})"),
        lines: probe_lines(fm, &label, &by_probe),
        refs: latency
            .map(|(i, t)| RefLine {
                name: format!("SLO {}", fm.slo[*i]),
                y: t.bound * k,
                color: SLO_COLOR,
            })
            .into_iter()
            .collect(),
        log_y: opts.log_latency,
        x_axis: XAxis::Linear,
        marks: marks(fm),
        desc: format!(
            "The {label} response time of each probe of the search against its offered rate, \
             passed and failed probes apart, the SLO's bound as a line"
        ),
        notes,
    }
}

/// Each probe's error share against its rate, with the SLO's bound: when the SLO
/// bounds the error share or any probe had an error.
pub fn find_max_error_chart(run: &RunResult, fm: &FindMaxResult) -> Option<LineChart> {
    let slo = slo(fm);
    let bound = slo
        .iter()
        .find(|(_, t)| t.metric == Metric::ErrorShare)
        .map(|(i, t)| (*i, t.bound));
    let share = |p: &ProbeResult| -> Option<f64> {
        let s = run.steps.get(p.step)?;
        (s.total_requests > 0).then(|| failed_requests(s) as f64 / s.total_requests as f64)
    };
    let any = fm.probes.iter().any(|p| share(p).is_some_and(|v| v > 0.0));
    if bound.is_none() && !any {
        return None;
    }
    let get = |_: usize, p: &ProbeResult| {
        share(p).map(|v| (v * 100.0, format!("errors {}", fmt_share(v * 100.0))))
    };
    let work = Work::of(&run.targets);
    let (desc, note) = error_words(work);
    Some(LineChart {
        title: "Errors of each probe by rate".into(),
        x_title: offered_axis(work),
        y_title: format!("errors (% of {})", work.items()),
        lines: probe_lines(fm, "errors", &get),
        refs: bound
            .map(|(i, b)| RefLine {
                name: format!("SLO {}", fm.slo[i]),
                y: b * 100.0,
                color: SLO_COLOR,
            })
            .into_iter()
            .collect(),
        x_axis: XAxis::Linear,
        marks: marks(fm),
        desc: format!("{desc} in each probe against its offered rate, the SLO's bound as a line"),
        notes: vec![note.into()],
        ..LineChart::default()
    })
}

/// The x axis of a probe chart, in the run's words: "offered rate (transactions per
/// second)" for a SQL run, HTTP's requests.
fn offered_axis(work: Work) -> String {
    format!("offered rate ({} per second)", work.items())
}

/// What an error of a probe is, in the run's words: the chart's description's start
/// and its note.
fn error_words(work: Work) -> (&'static str, &'static str) {
    match work {
        Work::Request | Work::Answer => (
            "The share of requests without a 2xx/3xx response",
            "An error is a request without a response or with a status outside --ok-status (200–399 by default).",
        ),
        Work::Transaction => (
            "The share of transactions that ended in an error",
            "An error is a transaction that ended in an error: the server's, a timeout or a lost connection.",
        ),
        Work::Command => (
            "The share of commands without a reply or with an error reply",
            "An error is a command without a reply or with an error reply.",
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A failure its repeat did not confirm was drawn among the failures, as if it
    /// had lowered the answer.
    #[test]
    fn a_failure_not_confirmed_is_a_marker_set_of_its_own() {
        let probe = |rate: f64, passed: bool, unconfirmed: bool| ProbeResult {
            rate,
            passed,
            unconfirmed,
            ..ProbeResult::default()
        };
        let fm = FindMaxResult {
            probes: vec![
                probe(470.0, false, true),
                probe(470.0, true, false),
                probe(1880.0, false, false),
            ],
            ..FindMaxResult::default()
        };
        let lines = probe_lines(&fm, "p99", &|_, p| Some((p.rate, String::new())));
        let sets: Vec<(&str, Vec<f64>)> = lines
            .iter()
            .map(|l| (l.name.as_str(), l.points.iter().map(|p| p.0).collect()))
            .collect();
        assert_eq!(
            sets,
            vec![
                ("p99, passed", vec![470.0]),
                ("p99, failed", vec![1880.0]),
                ("p99, not confirmed", vec![470.0]),
            ]
        );
    }
}
