//! The line charts of open-model runs, whose steps differ by offered rate: what the
//! server answered against what was offered (with the line it would follow if it
//! kept up), and latency from the due time against the offered rate.

use super::{latency_unit, ChartOptions, Line, LineChart, Mark, Marker, XAxis, MARKERS, PALETTE};
use crate::report::fmt::{capital, fmt_latency, fmt_qps, Work};
use crate::result::series::{Point, Series};

fn rated(s: &Series) -> impl Iterator<Item = (f64, &Point)> {
    s.points.iter().filter_map(|p| p.rate.map(|r| (r, p)))
}

/// The runs' shared unit: their rates in tps for SQL runs, ops/s for stores.
fn work_of(series: &[&Series]) -> Work {
    Work::of_all(series.iter().map(|s| Work::of_series(s)))
}

/// The offered rate's axis: "offered rate (requests per second)", a SQL run's
/// transactions.
fn offered_axis(work: Work) -> String {
    format!("offered rate ({} per second)", work.items())
}

/// Answered against offered requests per second; one line per run, and the diagonal
/// a server that keeps up would follow.
pub fn rate_throughput_chart(series: &[&Series]) -> LineChart {
    let work = work_of(series);
    let mut lines: Vec<Line> = series
        .iter()
        .enumerate()
        .map(|(i, s)| Line {
            name: if series.len() == 1 {
                "answered".to_owned()
            } else {
                s.label.clone()
            },
            color: PALETTE[i % PALETTE.len()],
            dash: None,
            marker: MARKERS[i % MARKERS.len()],
            points: rated(s).map(|(r, p)| (r, p.qps)).collect(),
            tips: rated(s)
                .map(|(r, p)| {
                    format!(
                        "{}: {} {} offered, {} answered, {} dropped",
                        s.label,
                        fmt_qps(r),
                        work.per_s(),
                        fmt_qps(p.qps),
                        p.dropped
                    )
                })
                .collect(),
        })
        .collect();
    let max_rate = series
        .iter()
        .flat_map(|s| rated(s).map(|(r, _)| r))
        .fold(0.0, f64::max);
    if max_rate > 0.0 {
        lines.push(Line {
            name: "offered (kept up)".into(),
            color: "#7a7a7a",
            dash: Some("6 4"),
            marker: Marker::None,
            points: vec![(0.0, 0.0), (max_rate, max_rate)],
            tips: Vec::new(),
        });
    }
    LineChart {
        desc: format!(
            "{} per second against the offered arrival rate",
            capital(work.answers())
        ),
        title: title("Answered against offered rate", series),
        x_title: offered_axis(work),
        y_title: format!("answered ({} per second)", work.answers()),
        lines,
        x_axis: XAxis::Linear,
        marks: rate_marks(series),
        ..LineChart::default()
    }
}

/// Latency from each request's due time against the offered rate. One run: p50, p99
/// and max; several: each run's p99.
pub fn rate_latency_chart(series: &[&Series], opts: ChartOptions) -> LineChart {
    let max_s = series
        .iter()
        .flat_map(|s| rated(s))
        .map(|(_, p)| p.max_s.max(p.p99_s.unwrap_or(0.0)))
        .fold(0.0, f64::max);
    let (unit, k) = latency_unit(max_s);
    let work = work_of(series);
    type Get = fn(&Point) -> Option<f64>;
    // One run: colours as in the clients chart; several: each run's own colour.
    let kinds: Vec<(&str, Get, Option<&'static str>, &'static str)> = if series.len() == 1 {
        vec![
            ("p50", |p| p.p50_s, None, PALETTE[2]),
            ("p99", |p| p.p99_s, None, PALETTE[3]),
            ("max", |p| Some(p.max_s), Some("2 4"), PALETTE[6]),
        ]
    } else {
        vec![("p99", |p| p.p99_s, None, "")]
    };
    let mut lines = Vec::new();
    for (i, s) in series.iter().enumerate() {
        for (j, (name, get, dash, color)) in kinds.iter().enumerate() {
            let pts: Vec<(f64, f64)> = rated(s)
                .filter_map(|(r, p)| get(p).filter(|v| v.is_finite()).map(|v| (r, v)))
                .collect();
            if pts.is_empty() {
                continue;
            }
            let (color, marker) = if series.len() == 1 {
                (*color, MARKERS[j % MARKERS.len()])
            } else {
                (PALETTE[i % PALETTE.len()], MARKERS[i % MARKERS.len()])
            };
            lines.push(Line {
                name: if series.len() == 1 {
                    format!("{name} latency")
                } else {
                    format!("{} {name}", s.label)
                },
                color,
                dash: *dash,
                marker,
                tips: pts
                    .iter()
                    .map(|(r, v)| {
                        format!(
                            "{name}: {} {} offered, {}",
                            fmt_qps(*r),
                            work.per_s(),
                            fmt_latency(*v)
                        )
                    })
                    .collect(),
                points: pts.iter().map(|(r, v)| (*r, v * k)).collect(),
            });
        }
    }
    LineChart {
        desc: format!(
            "Response time from each {}'s due time against the offered rate",
            work.item()
        ),
        title: title("Latency against offered rate", series),
        x_title: offered_axis(work),
        y_title: format!(
            "latency from the due time ({unit}{})",
            if opts.log_latency { ", log scale" } else { "" }
        ),
        lines,
        log_y: opts.log_latency,
        x_axis: XAxis::Linear,
        marks: rate_marks(series),
        ..LineChart::default()
    }
}

fn title(what: &str, _series: &[&Series]) -> String {
    what.to_owned()
}

/// A single open-model run's highest rate held and first rate not held, as marks.
fn rate_marks(series: &[&Series]) -> Vec<Mark> {
    let [s] = series else {
        return Vec::new();
    };
    let f = crate::analysis::analyse_rates(s);
    let per_s = Work::of_series(s).per_s();
    let mut marks = Vec::new();
    if let Some(h) = f.highest_held {
        marks.push(Mark {
            x: h.rate,
            label: "held".into(),
            tip: format!(
                "highest rate held: {} {per_s} (answered {}/s)",
                fmt_qps(h.rate),
                fmt_qps(h.achieved)
            ),
        });
    }
    if let Some(b) = f.first_behind {
        marks.push(Mark {
            x: b.rate,
            label: "falls behind".into(),
            tip: format!(
                "first rate not held: {} {per_s} (answered {}/s)",
                fmt_qps(b.rate),
                fmt_qps(b.achieved)
            ),
        });
    }
    marks
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::tests::series_of;

    /// `ramp --rate 200,400 postgres://…` drew "offered rate (requests per second)"
    /// and tipped "400.0 req/s offered": a SQL run's rates are tps, its answers
    /// transactions; a store's ops/s; HTTP's stay req/s.
    #[test]
    fn a_sql_run_s_rate_charts_say_tps_and_transactions_never_req_s() {
        let mut s = series_of(&[(4, 200.0, 0.002), (4, 390.0, 0.004)]);
        for (p, r) in s.points.iter_mut().zip([200.0, 400.0]) {
            (p.rate, p.p50_s, p.p99_s) = (Some(r), Some(0.002), Some(0.009));
        }
        s.targets = vec!["postgres://127.0.0.1:5432/hb".into()];
        let t = rate_throughput_chart(&[&s]);
        assert_eq!(t.x_title, "offered rate (transactions per second)");
        assert_eq!(t.y_title, "answered (transactions per second)");
        assert!(
            t.lines[0].tips[1].contains("400.0 tps offered"),
            "{:?}",
            t.lines
        );
        let l = rate_latency_chart(&[&s], ChartOptions::default());
        let tips: Vec<&String> = l.lines.iter().flat_map(|l| &l.tips).collect();
        assert!(!tips.is_empty() && tips.iter().all(|t| t.contains(" tps offered")));
        assert!(l.desc.contains("each transaction's due time"), "{}", l.desc);
        let words = format!("{t:?}{l:?}");
        assert!(
            !words.contains("req") && !words.contains("respons"),
            "{words}"
        );
        s.targets = vec!["redis://127.0.0.1:6379".into()];
        assert!(rate_throughput_chart(&[&s]).lines[0].tips[1].contains("400.0 ops/s offered"));
        s.targets = vec!["http://127.0.0.1:8080".into()];
        let t = rate_throughput_chart(&[&s]);
        assert_eq!(t.x_title, "offered rate (requests per second)");
        assert_eq!(
            t.desc,
            "Responses per second against the offered arrival rate"
        );
        assert!(t.lines[0].tips[1].contains("400.0 req/s offered"));
    }
}
