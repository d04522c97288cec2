//! The two charts capacity is read from: latency against throughput (the curve runs
//! right while the server keeps up, then turns straight up), and each step's latency
//! distribution from its HDR histogram on HdrHistogram's log percentile axis.

use super::{latency_unit, ChartOptions, Line, LineChart, Marker, XAxis, MARKERS, PALETTE};
use crate::report::chart::nines_label;
use crate::report::fmt::{clients, fmt_latency, fmt_qps, Work};
use crate::result::series::{Point, Series};

/// Sequential colours, light to dark (viridis, cut before its pale yellow): a step's
/// colour says how much load it carried.
const RAMP: [&str; 10] = [
    "#7ad151", "#44bf70", "#22a884", "#21918c", "#2a788e", "#355f8d", "#414487", "#482878",
    "#440154", "#1d0030",
];
/// A distribution chart draws at most this many steps; more turn into a tangle.
const MAX_CURVES: usize = RAMP.len();

/// What a step is called in a legend: its clients, or its offered rate (a SQL run's
/// in tps).
fn step_name(p: &Point, work: Work) -> String {
    match p.rate {
        Some(r) => format!(
            "{} {}",
            crate::report::fmt::offered_rate(p, r),
            work.per_s()
        ),
        None => clients(p.n_clients),
    }
}

fn measured(s: &Series) -> impl Iterator<Item = &Point> {
    s.points
        .iter()
        .filter(|p| p.qps > 0.0 && p.mean_s.is_finite() && (p.n_clients > 0 || p.rate.is_some()))
}

/// Latency against achieved throughput, one point per step in load order. One run:
/// mean and p99; several: each run's p99 (its mean without percentiles).
pub fn latency_throughput_chart(series: &[&Series], opts: ChartOptions) -> LineChart {
    let max_s = series
        .iter()
        .flat_map(|s| measured(s))
        .map(|p| p.mean_s.max(p.p99_s.unwrap_or(0.0)))
        .fold(0.0, f64::max);
    let (unit, k) = latency_unit(max_s);
    let work = Work::of_all(series.iter().map(|s| Work::of_series(s)));
    type Get = fn(&Point) -> Option<f64>;
    let mut lines = Vec::new();
    for (i, s) in series.iter().enumerate() {
        let kinds: Vec<(&str, Get, Option<&'static str>, &'static str, Marker)> =
            if series.len() == 1 {
                vec![
                    ("mean", |p| Some(p.mean_s), None, PALETTE[0], Marker::Circle),
                    (
                        "p99",
                        |p| p.p99_s,
                        Some("6 4"),
                        PALETTE[3],
                        Marker::Triangle,
                    ),
                ]
            } else if s.has_percentiles() {
                let m = MARKERS[i % MARKERS.len()];
                vec![("p99", |p| p.p99_s, None, PALETTE[i % PALETTE.len()], m)]
            } else {
                let m = MARKERS[i % MARKERS.len()];
                vec![(
                    "mean",
                    |p| Some(p.mean_s),
                    None,
                    PALETTE[i % PALETTE.len()],
                    m,
                )]
            };
        for (name, get, dash, color, marker) in kinds {
            let pts: Vec<(&Point, f64)> = measured(s)
                .filter_map(|p| get(p).filter(|v| v.is_finite()).map(|v| (p, v)))
                .collect();
            if pts.is_empty() {
                continue;
            }
            lines.push(Line {
                name: if series.len() == 1 {
                    format!("{name} latency")
                } else {
                    format!("{} {name}", s.label)
                },
                color,
                dash,
                marker,
                points: pts.iter().map(|(p, v)| (p.qps, v * k)).collect(),
                tips: pts
                    .iter()
                    .map(|(p, v)| {
                        format!(
                            "{}: {}, {} {}, {name} {}",
                            s.label,
                            step_name(p, Work::of_series(s)),
                            fmt_qps(p.qps),
                            work.rate(),
                            fmt_latency(*v)
                        )
                    })
                    .collect(),
            });
        }
    }
    LineChart {
        title: "Latency against throughput".into(),
        desc: format!(
            "Response time against {} per second, one point per step: the curve runs \
             right while the server keeps up and turns up where it saturates",
            work.answers()
        ),
        x_title: format!("throughput ({} per second)", work.answers()),
        y_title: format!(
            "latency ({unit}{})",
            if opts.log_latency { ", log scale" } else { "" }
        ),
        lines,
        log_y: opts.log_latency,
        x_axis: XAxis::Linear,
        ..LineChart::default()
    }
}

/// The steps a distribution chart draws: every one up to [`MAX_CURVES`], else that
/// many spread evenly from the first to the last.
fn pick(n: usize) -> Vec<usize> {
    if n <= MAX_CURVES {
        return (0..n).collect();
    }
    let mut v: Vec<usize> = (0..MAX_CURVES)
        .map(|i| (i * (n - 1) + (MAX_CURVES - 1) / 2) / (MAX_CURVES - 1))
        .collect();
    v.dedup();
    v
}

/// Each step's latency by percentile, from its HDR histogram, on a log percentile
/// axis (0% … 99.999%) so the tail gets as much room as the median. None when the
/// file holds no histograms (a CSV).
pub fn percentile_chart(s: &Series, opts: ChartOptions) -> Option<LineChart> {
    let steps: Vec<&Point> = s
        .points
        .iter()
        .filter(|p| !p.percentiles.is_empty())
        .collect();
    if steps.is_empty() {
        return None;
    }
    let max_s = steps
        .iter()
        .flat_map(|p| p.percentiles.iter().map(|(_, v)| *v))
        .fold(0.0, f64::max);
    let (unit, k) = latency_unit(max_s);
    let chosen = pick(steps.len());
    let lines = chosen
        .iter()
        .enumerate()
        .map(|(j, &i)| {
            let p = steps[i];
            // Spread the colours over the whole ramp, lightest to darkest.
            let c = if chosen.len() > 1 {
                j * (RAMP.len() - 1) / (chosen.len() - 1)
            } else {
                RAMP.len() / 2
            };
            Line {
                name: step_name(p, Work::of_series(s)),
                color: RAMP[c],
                dash: None,
                marker: Marker::None,
                points: p.percentiles.iter().map(|(n, v)| (*n, v * k)).collect(),
                tips: Vec::new(),
            }
        })
        .collect();
    let mut notes = Vec::new();
    if chosen.len() < steps.len() {
        notes.push(format!(
            "{} of the {} steps are drawn, spread from the first to the last.",
            chosen.len(),
            steps.len()
        ));
    }
    let deepest = steps
        .iter()
        .map(|p| p.percentiles.last().map_or(0.0, |l| l.0))
        .fold(0.0, f64::max);
    notes.push(format!(
        "Each curve stops where its step's sample count stops saying anything (1,000 \
         {} reach 99.9%); this run's deepest reaches {}{}.",
        Work::of_series(s).items(),
        if deepest > deepest.floor() {
            "past "
        } else {
            ""
        },
        nines_label(deepest.floor())
    ));
    Some(LineChart {
        title: "Latency by percentile".into(),
        desc: "Each step's response time at every percentile, from its HDR histogram, on a \
               logarithmic percentile axis"
            .into(),
        x_title: "percentile".into(),
        y_title: format!(
            "latency ({unit}{})",
            if opts.log_latency { ", log scale" } else { "" }
        ),
        lines,
        log_y: opts.log_latency,
        x_axis: XAxis::Nines,
        notes,
        ..LineChart::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn many_steps_are_thinned_evenly() {
        assert_eq!(pick(3), vec![0, 1, 2]);
        let p = pick(21);
        assert_eq!(p.len(), MAX_CURVES);
        assert_eq!(p.first(), Some(&0));
        assert_eq!(p.last(), Some(&20));
    }
}
