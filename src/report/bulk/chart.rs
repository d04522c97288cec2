//! The line charts of bulk writes (`hakaru bulk`), whose steps differ by batch size
//! and writer count: documents per second against batch size, and latency per
//! request (p50 solid, p99 dashed) against batch size, one line per writer count —
//! the CouchDB chapter's table as a picture. Several runs (`hakaru compare`) overlay:
//! each run its colour, each writer count its marker.

use std::collections::BTreeMap;

use crate::report::chart::{latency_unit, ChartOptions, Line, LineChart, Marker, MARKERS, PALETTE};
use crate::report::fmt::{fmt_latency, fmt_qps};
use crate::result::{RunResult, StepResult};

/// A run's bulk steps by writer count, each in batch-size order.
fn by_writers(run: &RunResult) -> BTreeMap<usize, Vec<&StepResult>> {
    let mut out: BTreeMap<usize, Vec<&StepResult>> = BTreeMap::new();
    for s in &run.steps {
        if let Some(b) = &s.bulk {
            out.entry(b.writers).or_default().push(s);
        }
    }
    for steps in out.values_mut() {
        steps.sort_by_key(|s| s.bulk.as_ref().map_or(0, |b| b.batch_size));
    }
    out
}

fn batch(s: &StepResult) -> f64 {
    s.bulk.as_ref().map_or(0.0, |b| b.batch_size as f64)
}

fn docs_per_s(s: &StepResult) -> f64 {
    s.bulk.as_ref().map_or(0.0, |b| b.docs_per_s)
}

fn writers_name(w: usize) -> String {
    format!("{w} writer{}", if w == 1 { "" } else { "s" })
}

/// Dashes of the writer counts when several runs share the colours' meaning.
const WRITER_DASHES: [Option<&str>; 3] = [None, Some("6 4"), Some("2 4")];

/// Colour, marker and dash of the `k`-th writer count of run `i` of `n`: one run gives
/// each writer count its colour; several give each run its colour and each writer
/// count its marker and dash.
fn style(i: usize, n: usize, k: usize) -> (&'static str, Marker, Option<&'static str>) {
    if n == 1 {
        (PALETTE[k % PALETTE.len()], MARKERS[k % MARKERS.len()], None)
    } else {
        (
            PALETTE[i % PALETTE.len()],
            MARKERS[k % MARKERS.len()],
            WRITER_DASHES[k % WRITER_DASHES.len()],
        )
    }
}

fn name(label: &str, n: usize, w: usize, what: &str) -> String {
    let mut s = if n == 1 {
        writers_name(w)
    } else {
        format!("{label}, {}", writers_name(w))
    };
    if !what.is_empty() {
        s.push(' ');
        s.push_str(what);
    }
    s
}

/// Documents per second against batch size, one line per (run,) writer count.
pub fn bulk_docs_chart(runs: &[(&str, &RunResult)]) -> LineChart {
    let mut lines = Vec::new();
    let mut notes = Vec::new();
    for (i, (label, run)) in runs.iter().enumerate() {
        for (k, (w, all)) in by_writers(run).into_iter().enumerate() {
            let (color, marker, dash) = style(i, runs.len(), k);
            // A step in which no request finished measured nothing: not a zero.
            let (steps, none): (Vec<&StepResult>, Vec<&StepResult>) =
                all.into_iter().partition(|s| s.responses > 0);
            for s in none {
                notes.push(format!(
                    "{label}: at batch size {} with {}, no request finished within the step; it is not drawn.",
                    batch(s),
                    writers_name(w)
                ));
            }
            lines.push(Line {
                name: name(label, runs.len(), w, ""),
                color,
                dash,
                marker,
                points: steps.iter().map(|s| (batch(s), docs_per_s(s))).collect(),
                tips: steps
                    .iter()
                    .map(|s| {
                        format!(
                            "{label}: batch {}, {}: {} docs/s ({} req/s)",
                            batch(s),
                            writers_name(w),
                            fmt_qps(docs_per_s(s)),
                            fmt_qps(s.qps)
                        )
                    })
                    .collect(),
            });
        }
    }
    LineChart {
        x_range: None,
        data: Vec::new(),
        desc: "Documents written per second against documents per request, one line per number of parallel writers".into(),
        title: title("Documents per second by batch size", runs),
        x_title: "batch size (documents per request)".into(),
        y_title: "documents per second".into(),
        lines,
        refs: Vec::new(),
        x_axis: crate::report::chart::XAxis::Clients,
        marks: Vec::new(),
        log_y: false,
        notes,
    }
}

/// Latency per request against batch size: p50 (solid) and p99 (dashed) per writer
/// count; several runs: p99 only, so the chart stays readable.
pub fn bulk_latency_chart(runs: &[(&str, &RunResult)], opts: ChartOptions) -> LineChart {
    let max_s = runs
        .iter()
        .flat_map(|(_, r)| r.steps.iter())
        .filter(|s| s.responses > 0)
        .map(|s| s.latency.p99_s)
        .fold(0.0, f64::max);
    let (unit, k) = latency_unit(max_s);
    type Get = fn(&StepResult) -> f64;
    let kinds: Vec<(&str, Get, Option<&'static str>)> = if runs.len() == 1 {
        vec![
            ("p50", |s| s.latency.p50_s, None),
            ("p99", |s| s.latency.p99_s, Some("6 4")),
        ]
    } else {
        vec![("p99", |s| s.latency.p99_s, None)]
    };
    let mut lines = Vec::new();
    for (i, (label, run)) in runs.iter().enumerate() {
        for (j, (w, steps)) in by_writers(run).into_iter().enumerate() {
            let (color, marker, writer_dash) = style(i, runs.len(), j);
            let answered: Vec<&&StepResult> = steps.iter().filter(|s| s.responses > 0).collect();
            for (what, get, dash) in &kinds {
                lines.push(Line {
                    name: name(label, runs.len(), w, what),
                    color,
                    dash: dash.or(writer_dash),
                    marker,
                    points: answered.iter().map(|s| (batch(s), get(s) * k)).collect(),
                    tips: answered
                        .iter()
                        .map(|s| {
                            format!(
                                "{label}: batch {}, {}: {what} {}",
                                batch(s),
                                writers_name(w),
                                fmt_latency(get(s))
                            )
                        })
                        .collect(),
                });
            }
        }
    }
    LineChart {
        x_range: None,
        data: Vec::new(),
        desc: "Latency of each request against documents per request, one line per number of parallel writers".into(),
        title: title("Latency per request by batch size", runs),
        x_title: "batch size (documents per request)".into(),
        y_title: format!(
            "latency per request ({unit}{})",
            if opts.log_latency { ", log scale" } else { "" }
        ),
        lines,
        refs: Vec::new(),
        x_axis: crate::report::chart::XAxis::Clients,
        marks: Vec::new(),
        log_y: opts.log_latency,
        notes: if runs.len() == 1 {
            vec!["Solid lines are the median (p50), dashed the 99th percentile.".into()]
        } else {
            vec!["Each line is a run's 99th percentile at one writer count.".into()]
        },
    }
}

fn title(what: &str, runs: &[(&str, &RunResult)]) -> String {
    match runs {
        [(label, _)] => format!("{what} — {label}"),
        _ => what.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::result::fixture::{bare_step, run};
    use crate::result::BulkStepResult;

    fn bulk_run() -> RunResult {
        let mut steps = Vec::new();
        for (b, w, rate) in [
            (100, 1, 400.0),
            (100, 10, 900.0),
            (1000, 1, 2000.0),
            (1000, 10, 3600.0),
        ] {
            let mut s = bare_step(w);
            s.responses = 10;
            s.latency.p50_s = 0.01 * b as f64 / 100.0;
            s.latency.p99_s = 0.02 * b as f64 / 100.0;
            s.bulk = Some(BulkStepResult {
                batch_size: b,
                writers: w,
                docs_acknowledged: 1,
                docs_per_s: rate,
                item_errors: Default::default(),
            });
            steps.push(s);
        }
        run(steps)
    }

    #[test]
    fn one_line_per_writer_count_against_batch_size() {
        let r = bulk_run();
        let c = bulk_docs_chart(&[("couch", &r)]);
        let names: Vec<&str> = c.lines.iter().map(|l| l.name.as_str()).collect();
        assert_eq!(names, ["1 writer", "10 writers"]);
        assert_eq!(c.lines[1].points, vec![(100.0, 900.0), (1000.0, 3600.0)]);
        let l = bulk_latency_chart(&[("couch", &r)], ChartOptions::default());
        assert_eq!(l.lines.len(), 4);
        assert_eq!(l.lines[1].name, "1 writer p99");
        assert_eq!(l.lines[1].dash, Some("6 4"));
        // 0.2 s is the largest: milliseconds.
        assert_eq!(l.lines[0].points[1], (1000.0, 100.0));
        let svg = crate::report::chart::render_line_chart(&c);
        assert!(svg.contains("batch size (documents per request)"));
        // Two runs overlaid: colour per run, marker per writer count, p99 only.
        let l = bulk_latency_chart(&[("a", &r), ("b", &r)], ChartOptions::default());
        assert_eq!(l.lines.len(), 4);
        assert_eq!(l.lines[2].name, "b, 1 writer p99");
        assert_ne!(l.lines[0].color, l.lines[2].color);
        assert_eq!(l.lines[0].marker, l.lines[2].marker);
    }
}
