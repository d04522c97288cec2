//! A scenario's per-second timeline as one SVG for its page: throughput and
//! failures per second above, p50 and p99 below, the phases shaded and named, the
//! events marked with the recovery after each.

use std::fmt::Write as _;

use crate::report::chart::esc;
use crate::report::fmt::{fmt_latency, fmt_qps, Work};
use crate::result::suite::{scenario_seconds, ScenarioSecond};
use crate::result::RunResult;

const W: f64 = 1100.0;
const LEFT: f64 = 70.0;
const RIGHT: f64 = 20.0;
const TOP: f64 = 40.0;
const PANEL: f64 = 200.0;
const GAP: f64 = 50.0;
const PHASE_FILLS: [&str; 2] = ["#f2f5fa", "#fbfbfb"];

/// The per-second timeline as one SVG: throughput and failures per second above,
/// p50 and p99 (log scale) below, phases shaded and named, events as vertical lines
/// (red when their command failed) with the recovery after each drawn as a bar.
pub fn timeline_svg(run: &RunResult) -> String {
    let secs = scenario_seconds(run);
    let Some(suite) = &run.suite else {
        return String::new();
    };
    let end = secs
        .last()
        .map(|s| s.t_s + s.width_s)
        .unwrap_or(0.0)
        .max(
            suite
                .phases
                .last()
                .map_or(0.0, |p| p.start_s + p.duration_s),
        )
        .max(1.0);
    let h = TOP + 2.0 * PANEL + GAP + 60.0;
    let x = |t: f64| LEFT + (t / end) * (W - LEFT - RIGHT);
    let top1 = TOP;
    let top2 = TOP + PANEL + GAP;
    let mut o = String::new();
    let _ = write!(
        o,
        r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {W} {h}" width="{W}" height="{h}" font-family="system-ui, sans-serif" font-size="12">"#
    );
    o.push_str(r#"<rect width="100%" height="100%" fill="white"/>"#);
    // Phases: shaded bands across both panels, named at the top.
    for (i, p) in suite.phases.iter().enumerate() {
        let (x0, x1) = (x(p.start_s), x((p.start_s + p.duration_s).min(end)));
        for top in [top1, top2] {
            let _ = write!(
                o,
                r#"<rect x="{x0:.1}" y="{top}" width="{:.1}" height="{PANEL}" fill="{}"/>"#,
                (x1 - x0).max(0.0),
                PHASE_FILLS[i % 2]
            );
        }
        // A name wider than its band (a load phase of a moment) would run into the
        // next one's: the table below names it.
        if (x1 - x0) < 7.0 * p.name.chars().count() as f64 {
            continue;
        }
        let _ = write!(
            o,
            r##"<text x="{:.1}" y="{:.1}" fill="#555" text-anchor="middle">{}</text>"##,
            (x0 + x1) / 2.0,
            top1 - 8.0,
            esc(&p.name)
        );
    }
    // Panel 1: 2xx/3xx responses per second, and failures per second.
    let tp: Vec<(f64, f64)> = secs.iter().map(|s| (s.t_s, s.throughput())).collect();
    let fail: Vec<(f64, f64)> = secs
        .iter()
        .map(|s| (s.t_s, failures(s) as f64 / s.width_s.max(1e-3)))
        .collect();
    let ymax = tp
        .iter()
        .chain(&fail)
        .map(|p| p.1)
        .fold(0.0, f64::max)
        .max(1.0)
        * 1.1;
    let y1 = |v: f64| top1 + PANEL - v / ymax * PANEL;
    let (answered, ok) = answer_words(Work::of(&run.targets));
    axis_linear(&mut o, top1, ymax, answered, fmt_qps);
    polyline(&mut o, &tp, &x, &y1, "#1f6fd1", ok);
    polyline(&mut o, &fail, &x, &y1, "#d43c3c", "failed per second");
    // Panel 2: p50 and p99, log scale.
    let lat: Vec<f64> = secs
        .iter()
        .flat_map(|s| [s.p50_s, s.p99_s])
        .filter(|v| *v > 0.0)
        .collect();
    let lo = lat.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = lat.iter().copied().fold(0.0, f64::max);
    let (lo, hi) = if lat.is_empty() {
        (1e-4, 1.0)
    } else {
        (
            10f64.powf(lo.log10().floor()),
            10f64
                .powf(hi.log10().ceil())
                .max(10f64.powf(lo.log10().floor() + 1.0)),
        )
    };
    let y2 = |v: f64| {
        let v = v.max(lo);
        top2 + PANEL - (v.log10() - lo.log10()) / (hi.log10() - lo.log10()) * PANEL
    };
    let mut d = lo;
    while d <= hi * 1.0001 {
        let y = y2(d);
        let _ = write!(
            o,
            r##"<line x1="{LEFT}" x2="{:.1}" y1="{y:.1}" y2="{y:.1}" stroke="#ddd"/><text x="{:.1}" y="{:.1}" text-anchor="end" fill="#444">{}</text>"##,
            W - RIGHT,
            LEFT - 6.0,
            y + 4.0,
            esc(&fmt_latency(d))
        );
        d *= 10.0;
    }
    let _ = write!(
        o,
        r##"<text x="14" y="{:.1}" fill="#444" transform="rotate(-90 14 {:.1})" text-anchor="middle">latency</text>"##,
        top2 + PANEL / 2.0,
        top2 + PANEL / 2.0
    );
    let with = |f: fn(&ScenarioSecond) -> f64| -> Vec<(f64, f64)> {
        secs.iter()
            .filter(|s| s.responses > 0)
            .map(|s| (s.t_s, f(s)))
            .collect()
    };
    polyline(&mut o, &with(|s| s.p50_s), &x, &y2, "#2a9d5b", "p50");
    polyline(&mut o, &with(|s| s.p99_s), &x, &y2, "#e08a1e", "p99");
    time_axis(&mut o, end, &x, top2);
    event_marks(&mut o, suite, &x, top1, top2);
    legend(&mut o, h, ok);
    o.push_str("</svg>");
    o
}

/// The time axis under the lower panel, in seconds from the scenario's start.
fn time_axis(o: &mut String, end: f64, x: &dyn Fn(f64) -> f64, top2: f64) {
    // The time axis.
    let step = nice_step(end / 10.0);
    let mut t = 0.0;
    while t <= end + 1e-9 {
        let xx = x(t);
        let _ = write!(
            o,
            r##"<line x1="{xx:.1}" x2="{xx:.1}" y1="{:.1}" y2="{:.1}" stroke="#999"/><text x="{xx:.1}" y="{:.1}" text-anchor="middle" fill="#444">{}s</text>"##,
            top2 + PANEL,
            top2 + PANEL + 5.0,
            top2 + PANEL + 18.0,
            trim_num(t)
        );
        t += step;
    }
    let _ = write!(
        o,
        r##"<text x="{:.1}" y="{:.1}" text-anchor="middle" fill="#444">seconds from the scenario's start</text>"##,
        (LEFT + W - RIGHT) / 2.0,
        top2 + PANEL + 36.0
    );
}

/// Events: a line across both panels; the recovery as a green bar under panel 1.
fn event_marks(
    o: &mut String,
    suite: &crate::result::suite::SuiteResult,
    x: &dyn Fn(f64) -> f64,
    top1: f64,
    top2: f64,
) {
    for (i, e) in suite.events.iter().enumerate() {
        let Some(at) = e.started_s else { continue };
        let xx = x(at);
        let color = if e.ok { "#6b3fa0" } else { "#d43c3c" };
        let tip = format!(
            "{} at {:.2} s: {}{}",
            e.name,
            at,
            e.command.as_deref().unwrap_or(&e.run),
            e.error
                .as_deref()
                .map(|w| format!(" — FAILED: {w}"))
                .unwrap_or_default()
        );
        let _ = write!(
            o,
            r#"<g><title>{}</title><line x1="{xx:.1}" x2="{xx:.1}" y1="{top1}" y2="{:.1}" stroke="{color}" stroke-width="1.5" stroke-dasharray="5 3"/>"#,
            esc(&tip),
            top2 + PANEL
        );
        let _ = write!(
            o,
            r#"<text x="{:.1}" y="{:.1}" fill="{color}" font-size="11">{}{}</text></g>"#,
            xx + 3.0,
            top1 + 12.0 + 13.0 * (i % 3) as f64,
            esc(&e.name),
            if e.ok { "" } else { " ✗" }
        );
        if let Some(r) = e.recovery.as_ref().and_then(|r| r.recovery_s) {
            let y = top1 + PANEL + 8.0 + 7.0 * (i % 3) as f64;
            let _ = write!(
                o,
                r##"<g><title>{} recovered in {:.1} s</title><line x1="{xx:.1}" x2="{:.1}" y1="{y:.1}" y2="{y:.1}" stroke="#2a9d5b" stroke-width="4"/></g>"##,
                esc(&e.name),
                r,
                x(at + r).max(xx + 2.0)
            );
        }
    }
}

/// The answers' axis and line: HTTP's "responses/s" and "2xx/3xx per second", a
/// SQL run's transactions and "ok per second", a store's commands and replies.
fn answer_words(work: Work) -> (&'static str, &'static str) {
    match work {
        Work::Request | Work::Answer => ("responses/s", "2xx/3xx per second"),
        Work::Transaction => ("transactions/s", "ok per second"),
        Work::Command => ("commands/s", "replies per second"),
    }
}

/// What each colour means, along the bottom.
fn legend(o: &mut String, h: f64, ok: &str) {
    let mut lx = LEFT;
    for (color, name) in [
        ("#1f6fd1", ok),
        ("#d43c3c", "failed per second"),
        ("#2a9d5b", "p50 · recovery"),
        ("#e08a1e", "p99"),
        ("#6b3fa0", "event"),
    ] {
        let _ = write!(
            o,
            r##"<rect x="{lx:.1}" y="{:.1}" width="14" height="4" fill="{color}"/><text x="{:.1}" y="{:.1}" fill="#333">{name}</text>"##,
            h - 14.0,
            lx + 18.0,
            h - 9.0
        );
        lx += 30.0 + name.len() as f64 * 6.5;
    }
}

fn failures(s: &ScenarioSecond) -> u64 {
    s.total() - s.ok.min(s.total())
}

fn axis_linear(o: &mut String, top: f64, ymax: f64, label: &str, fmt: impl Fn(f64) -> String) {
    let step = nice_step(ymax / 5.0);
    let mut v = 0.0;
    while v <= ymax {
        let y = top + PANEL - v / ymax * PANEL;
        let _ = write!(
            o,
            r##"<line x1="{LEFT}" x2="{:.1}" y1="{y:.1}" y2="{y:.1}" stroke="#ddd"/><text x="{:.1}" y="{:.1}" text-anchor="end" fill="#444">{}</text>"##,
            W - RIGHT,
            LEFT - 6.0,
            y + 4.0,
            esc(&fmt(v))
        );
        v += step;
    }
    let _ = write!(
        o,
        r##"<text x="14" y="{:.1}" fill="#444" transform="rotate(-90 14 {:.1})" text-anchor="middle">{}</text>"##,
        top + PANEL / 2.0,
        top + PANEL / 2.0,
        esc(label)
    );
}

/// A line through the points' second centres; a gap of more than a second breaks it.
fn polyline(
    o: &mut String,
    points: &[(f64, f64)],
    x: &dyn Fn(f64) -> f64,
    y: &dyn Fn(f64) -> f64,
    color: &str,
    name: &str,
) {
    let mut runs: Vec<Vec<(f64, f64)>> = Vec::new();
    for &(t, v) in points {
        match runs.last_mut() {
            Some(r) if r.last().is_some_and(|p| t - p.0 < 1.5) => r.push((t, v)),
            _ => runs.push(vec![(t, v)]),
        }
    }
    for r in runs {
        let d: Vec<String> = r
            .iter()
            .map(|(t, v)| format!("{:.1},{:.1}", x(t + 0.5), y(*v)))
            .collect();
        let _ = write!(
            o,
            r#"<polyline points="{}" fill="none" stroke="{color}" stroke-width="1.6"><title>{}</title></polyline>"#,
            d.join(" "),
            esc(name)
        );
    }
}

fn nice_step(raw: f64) -> f64 {
    if raw <= 0.0 || !raw.is_finite() {
        return 1.0;
    }
    let mag = 10f64.powf(raw.log10().floor());
    let n = raw / mag;
    let m = if n <= 1.0 {
        1.0
    } else if n <= 2.0 {
        2.0
    } else if n <= 5.0 {
        5.0
    } else {
        10.0
    };
    m * mag
}

fn trim_num(t: f64) -> String {
    if (t - t.round()).abs() < 1e-9 {
        format!("{t:.0}")
    } else {
        format!("{t:.1}")
    }
}
