//! Charts, hand-written as SVG so a report is one self-contained file that needs no
//! script, font download or network to view: throughput and latency against clients,
//! one or several runs overlaid, and the error shares per step. Also a compact ASCII
//! chart for the terminal at the end of a ramp.
//!
//! Colours are the Okabe–Ito palette (safe for the common colour-vision deficiencies);
//! runs also differ by marker shape, so the charts survive a black-and-white printer.
//! Every SVG has a viewBox and no fixed width, so it scales to the page.

use std::fmt::Write as _;

use crate::analysis;
use crate::report::findings;
use crate::report::fmt::{fmt_latency, fmt_qps};
use crate::series::Series;

/// Okabe & Ito (2008), "Color Universal Design", ordered for contrast on white; the
/// yellow comes last because it reads poorly on white.
pub const PALETTE: [&str; 8] = [
    "#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#000000", "#F0E442",
];

const W: f64 = 960.0;
const H: f64 = 440.0;
const LEFT: f64 = 78.0;
const TOP: f64 = 46.0;
const LEGEND_W: f64 = 210.0;
const BOTTOM: f64 = 58.0;
/// A single run's max latency is left off a linear chart when it exceeds this many
/// times the highest mean/p99.
const MAX_OVER_TYPICAL: f64 = 3.0;

/// Options shared by the charts.
#[derive(Debug, Clone, Copy, Default)]
pub struct ChartOptions {
    /// Latency on a logarithmic axis: keeps the 1-client latency readable when the
    /// worst step is a hundred times slower.
    pub log_latency: bool,
}

/// Marker shapes, cycled per run alongside the colours.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Marker {
    Circle,
    Square,
    Triangle,
    Diamond,
    None,
}

const MARKERS: [Marker; 4] = [
    Marker::Circle,
    Marker::Square,
    Marker::Triangle,
    Marker::Diamond,
];

/// One line of a chart, in data units.
#[derive(Debug, Clone)]
pub struct Line {
    pub name: String,
    pub color: &'static str,
    /// SVG stroke-dasharray, e.g. "6 4".
    pub dash: Option<&'static str>,
    pub marker: Marker,
    pub points: Vec<(f64, f64)>,
    /// Hover text of each point (shown by browsers from `<title>`, no script).
    pub tips: Vec<String>,
}

/// A horizontal reference line across the plot.
#[derive(Debug, Clone)]
pub struct RefLine {
    pub name: String,
    pub y: f64,
    pub color: &'static str,
}

/// A line chart in data units, ready to render.
#[derive(Debug, Clone)]
pub struct LineChart {
    pub title: String,
    pub x_title: String,
    pub y_title: String,
    pub lines: Vec<Line>,
    pub refs: Vec<RefLine>,
    pub log_y: bool,
    /// Accessible description for screen readers.
    pub desc: String,
    /// Sentences to print under the chart (what was left out and why).
    pub notes: Vec<String>,
}

/// Escapes text for SVG/HTML.
pub fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            c => o.push(c),
        }
    }
    o
}

/// "Nice" tick values covering [lo, hi]: steps of 1, 2 or 5 × 10^k, about `target` of them.
pub fn nice_ticks(lo: f64, hi: f64, target: usize) -> Vec<f64> {
    let (lo, hi) = if hi > lo { (lo, hi) } else { (lo, lo + 1.0) };
    let raw = (hi - lo) / target.max(1) as f64;
    let mag = 10f64.powf(raw.log10().floor());
    // The 1-2-5 step whose interval count is closest to the target; ties go to the
    // finer step (more gridlines read better than fewer).
    let intervals = |s: f64| (hi / s).ceil() - (lo / s).floor();
    let step = [1.0, 2.0, 5.0, 10.0, 20.0]
        .iter()
        .map(|m| m * mag)
        .min_by(|a, b| {
            let da = (intervals(*a) - target as f64).abs();
            let db = (intervals(*b) - target as f64).abs();
            da.total_cmp(&db)
        })
        .unwrap_or(mag);
    let start = (lo / step).floor() * step;
    let mut ticks = Vec::new();
    let mut i = 0;
    while i < 1000 {
        let v = start + step * i as f64;
        // Snap away float noise such as 0.30000000000000004.
        let scale = 10f64.powi((-step.log10().floor()).max(0.0) as i32);
        let v = (v * scale).round() / scale;
        ticks.push(v);
        if v >= hi - step * 1e-9 {
            break;
        }
        i += 1;
    }
    ticks
}

/// Ticks of a log axis covering [lo, hi] (both > 0): 1-2-5 per decade when few decades.
pub fn log_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let d0 = lo.log10().floor() as i32;
    let d1 = (hi.log10().ceil() as i32).max(d0 + 1);
    let mults: &[f64] = if d1 - d0 <= 3 {
        &[1.0, 2.0, 5.0]
    } else {
        &[1.0]
    };
    let mut t = Vec::new();
    for d in d0..=d1 {
        for m in mults {
            let v = m * 10f64.powi(d);
            if v >= lo * 0.999 && v <= hi * 1.001 {
                t.push(v);
            }
        }
    }
    // Keep the axis ends on ticks so the data sit inside.
    let first = 10f64.powi(d0);
    let last = *t.last().unwrap_or(&first);
    if t.first().is_none_or(|f| *f > lo) {
        t.insert(0, first);
    }
    if last < hi {
        let next = mults
            .iter()
            .map(|m| m * 10f64.powi(d1))
            .chain(std::iter::once(10f64.powi(d1 + 1)))
            .find(|v| *v >= hi)
            .unwrap_or(10f64.powi(d1 + 1));
        t.push(next);
    }
    t
}
/// The opening of a chart: the `<svg>` element (full width, `height` tall), its
/// accessible label and description, a white background and the title.
fn svg_open(o: &mut String, height: f64, label: &str, desc: Option<&str>, title: &str) {
    let _ = write!(
        o,
        r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {W} {height}" role="img" aria-label="{}" font-family="system-ui, -apple-system, 'Segoe UI', Roboto, 'DejaVu Sans', sans-serif" font-size="13">"#,
        esc(label)
    );
    if let Some(d) = desc {
        let _ = write!(o, "<desc>{}</desc>", esc(d));
    }
    let _ = write!(o, r#"<rect width="{W}" height="{height}" fill="white"/>"#);
    let _ = write!(
        o,
        r##"<text x="{LEFT}" y="26" font-size="16" font-weight="600" fill="#222">{}</text>"##,
        esc(title)
    );
}

/// Horizontal grid lines with their tick labels on the left.
fn y_grid(o: &mut String, ticks: &[f64], py: &dyn Fn(f64) -> f64, plot_w: f64) {
    for t in ticks {
        let yy = py(*t);
        let _ = write!(
            o,
            r##"<line x1="{LEFT}" y1="{yy:.1}" x2="{:.1}" y2="{yy:.1}" stroke="#e3e3e3"/><text x="{:.1}" y="{:.1}" text-anchor="end" fill="#444">{}</text>"##,
            LEFT + plot_w,
            LEFT - 8.0,
            yy + 4.5,
            tick_label(*t)
        );
    }
}

/// Tick label: the shortest decimal form (1.5, 0.05, 150), thousands separated
/// from 10,000 on.
pub fn tick_label(v: f64) -> String {
    let mut s = format!("{v:.9}");
    if s.contains('.') {
        s = s.trim_end_matches('0').trim_end_matches('.').to_owned();
    }
    if s == "-0" {
        s = "0".into();
    }
    if v.abs() >= 10_000.0 {
        let (neg, int) = match s.strip_prefix('-') {
            Some(rest) => (true, rest.to_owned()),
            None => (false, s.clone()),
        };
        let (int, frac) = match int.split_once('.') {
            Some((i, f)) => (i.to_owned(), format!(".{f}")),
            None => (int, String::new()),
        };
        let digits: Vec<char> = int.chars().collect();
        let mut o = String::new();
        for (i, c) in digits.iter().enumerate() {
            if i > 0 && (digits.len() - i).is_multiple_of(3) {
                o.push(',');
            }
            o.push(*c);
        }
        return format!("{}{o}{frac}", if neg { "-" } else { "" });
    }
    s
}

struct Axis {
    lo: f64,
    hi: f64,
    log: bool,
    ticks: Vec<f64>,
}

impl Axis {
    fn linear(lo: f64, hi: f64, target: usize) -> Self {
        let ticks = nice_ticks(lo, hi, target);
        Axis {
            lo: ticks[0],
            hi: *ticks.last().unwrap_or(&hi),
            log: false,
            ticks,
        }
    }

    /// Clients are whole numbers: never a tick between two of them.
    fn clients(max: f64) -> Self {
        let mut a = Axis::linear(0.0, max, 8);
        if a.ticks.len() > 1 && a.ticks[1] - a.ticks[0] < 1.0 {
            let hi = max.ceil().max(1.0);
            a.ticks = (0..=hi as usize).map(|v| v as f64).collect();
            a.hi = hi;
        }
        a
    }

    fn log(lo: f64, hi: f64) -> Self {
        let ticks = log_ticks(lo, hi);
        Axis {
            lo: ticks[0],
            hi: *ticks.last().unwrap_or(&hi),
            log: true,
            ticks,
        }
    }

    /// 0..1 position along the axis.
    fn frac(&self, v: f64) -> f64 {
        if self.log {
            (v.max(self.lo).ln() - self.lo.ln()) / (self.hi.ln() - self.lo.ln())
        } else {
            (v - self.lo) / (self.hi - self.lo)
        }
    }
}

fn marker_svg(out: &mut String, m: Marker, x: f64, y: f64, color: &str, tip: Option<&str>) {
    let r = 4.2;
    let shape = match m {
        Marker::Circle => format!(r#"<circle cx="{x:.1}" cy="{y:.1}" r="{r}""#),
        Marker::Square => format!(
            r#"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}""#,
            x - r * 0.85,
            y - r * 0.85,
            r * 1.7,
            r * 1.7
        ),
        Marker::Triangle => format!(
            r#"<path d="M{x:.1} {:.1} L{:.1} {:.1} L{:.1} {:.1} Z""#,
            y - r * 1.1,
            x + r,
            y + r * 0.75,
            x - r,
            y + r * 0.75
        ),
        Marker::Diamond => format!(
            r#"<path d="M{x:.1} {:.1} L{:.1} {y:.1} L{x:.1} {:.1} L{:.1} {y:.1} Z""#,
            y - r * 1.15,
            x + r * 1.15,
            y + r * 1.15,
            x - r * 1.15
        ),
        Marker::None => return,
    };
    match tip {
        Some(t) => {
            let _ = write!(
                out,
                r#"{shape} fill="{color}" stroke="white" stroke-width="1"><title>{}</title></{}>"#,
                esc(t),
                match m {
                    Marker::Circle => "circle",
                    Marker::Square => "rect",
                    _ => "path",
                }
            );
        }
        None => {
            let _ = write!(
                out,
                r#"{shape} fill="{color}" stroke="white" stroke-width="1"/>"#
            );
        }
    }
}

/// Renders a line chart as a standalone `<svg>` element.
pub fn render_line_chart(c: &LineChart) -> String {
    let plot_w = W - LEFT - LEGEND_W;
    let plot_h = H - TOP - BOTTOM;
    let all: Vec<(f64, f64)> = c
        .lines
        .iter()
        .flat_map(|l| l.points.iter().copied())
        .filter(|(x, y)| x.is_finite() && y.is_finite())
        .collect();
    let x_max = all.iter().map(|p| p.0).fold(1.0, f64::max);
    let x = Axis::clients(x_max);
    let ys = all.iter().map(|p| p.1).chain(c.refs.iter().map(|r| r.y));
    let y = if c.log_y {
        let pos: Vec<f64> = ys.filter(|v| *v > 0.0).collect();
        let lo = pos.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = pos.iter().copied().fold(0.0, f64::max);
        if lo.is_finite() && hi > 0.0 {
            Axis::log(lo, hi)
        } else {
            Axis::log(1.0, 10.0)
        }
    } else {
        let hi = ys.fold(0.0, f64::max);
        Axis::linear(0.0, if hi > 0.0 { hi * 1.04 } else { 1.0 }, 6)
    };
    let px = |v: f64| LEFT + x.frac(v) * plot_w;
    let py = |v: f64| TOP + plot_h - y.frac(v) * plot_h;

    let mut o = String::new();
    svg_open(&mut o, H, &c.title, Some(&c.desc), &c.title);
    y_grid(&mut o, &y.ticks, &py, plot_w);
    for t in &x.ticks {
        let xx = px(*t);
        let _ = write!(
            o,
            r##"<line x1="{xx:.1}" y1="{TOP}" x2="{xx:.1}" y2="{:.1}" stroke="#f0f0f0"/><text x="{xx:.1}" y="{:.1}" text-anchor="middle" fill="#444">{}</text>"##,
            TOP + plot_h,
            TOP + plot_h + 18.0,
            tick_label(*t)
        );
    }
    let _ = write!(
        o,
        r##"<rect x="{LEFT}" y="{TOP}" width="{plot_w:.1}" height="{plot_h:.1}" fill="none" stroke="#888"/>"##
    );
    // Axis titles.
    let _ = write!(
        o,
        r##"<text x="{:.1}" y="{:.1}" text-anchor="middle" fill="#222">{}</text>"##,
        LEFT + plot_w / 2.0,
        H - 14.0,
        esc(&c.x_title)
    );
    let _ = write!(
        o,
        r##"<text transform="translate(20 {:.1}) rotate(-90)" text-anchor="middle" fill="#222">{}</text>"##,
        TOP + plot_h / 2.0,
        esc(&c.y_title)
    );
    // Reference lines under the data.
    for r in &c.refs {
        let yy = py(r.y);
        let _ = write!(
            o,
            r#"<line x1="{LEFT}" y1="{yy:.1}" x2="{:.1}" y2="{yy:.1}" stroke="{}" stroke-width="1.5" stroke-dasharray="7 5"/>"#,
            LEFT + plot_w,
            r.color
        );
    }
    // Data.
    for l in &c.lines {
        // Points without a measurement (NaN) or below a log axis are skipped, each
        // keeping its own hover text.
        let (pts, tips): (Vec<(f64, f64)>, Vec<Option<&str>>) = l
            .points
            .iter()
            .enumerate()
            .filter(|(_, (a, b))| a.is_finite() && b.is_finite() && (!c.log_y || *b > 0.0))
            .map(|(i, p)| (*p, l.tips.get(i).map(|t| t.as_str())))
            .unzip();
        if pts.is_empty() {
            continue;
        }
        let d: Vec<String> = pts
            .iter()
            .map(|(a, b)| format!("{:.1},{:.1}", px(*a), py(*b)))
            .collect();
        let _ = write!(
            o,
            r#"<polyline points="{}" fill="none" stroke="{}" stroke-width="2.2" stroke-linejoin="round"{}/>"#,
            d.join(" "),
            l.color,
            l.dash
                .map(|d| format!(r#" stroke-dasharray="{d}""#))
                .unwrap_or_default()
        );
        for ((a, b), tip) in pts.iter().zip(tips) {
            marker_svg(&mut o, l.marker, px(*a), py(*b), l.color, tip);
        }
    }
    // Legend, outside the plot so it never covers data.
    let lx = LEFT + plot_w + 18.0;
    let mut ly = TOP + 10.0;
    let entries = c
        .lines
        .iter()
        .map(|l| (l.name.as_str(), l.color, l.dash, l.marker))
        .chain(
            c.refs
                .iter()
                .map(|r| (r.name.as_str(), r.color, Some("7 5"), Marker::None)),
        );
    for (name, color, dash, marker) in entries {
        let _ = write!(
            o,
            r#"<line x1="{lx:.1}" y1="{ly:.1}" x2="{:.1}" y2="{ly:.1}" stroke="{color}" stroke-width="2.2"{}/>"#,
            lx + 30.0,
            dash.map(|d| format!(r#" stroke-dasharray="{d}""#))
                .unwrap_or_default()
        );
        marker_svg(&mut o, marker, lx + 15.0, ly, color, None);
        let name: String = if name.chars().count() > 24 {
            name.chars().take(23).chain(std::iter::once('…')).collect()
        } else {
            name.to_owned()
        };
        let _ = write!(
            o,
            r##"<text x="{:.1}" y="{:.1}" fill="#222">{}</text>"##,
            lx + 38.0,
            ly + 4.5,
            esc(&name)
        );
        ly += 22.0;
    }
    o.push_str("</svg>");
    o
}

/// A latency unit for an axis: the one that keeps the largest value readable.
pub fn latency_unit(max_s: f64) -> (&'static str, f64) {
    if max_s >= 10.0 {
        ("s", 1.0)
    } else if max_s >= 2e-3 {
        ("ms", 1e3)
    } else {
        ("µs", 1e6)
    }
}

fn xs(s: &Series) -> impl Iterator<Item = &crate::series::Point> {
    s.points.iter().filter(|p| p.n_clients > 0)
}

/// Throughput (qps) against clients; one line per run.
pub fn throughput_chart(series: &[&Series]) -> LineChart {
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
                        "{}: {} clients, {} qps",
                        s.label,
                        p.n_clients,
                        fmt_qps(p.qps)
                    )
                })
                .collect(),
        })
        .collect();
    let title = if series.len() == 1 {
        format!("Throughput — {}", series[0].label)
    } else {
        "Throughput".to_owned()
    };
    LineChart {
        desc: "Queries per second against the number of concurrent clients".into(),
        title,
        x_title: "concurrent clients".into(),
        y_title: "throughput (queries per second)".into(),
        lines,
        refs: Vec::new(),
        log_y: false,
        notes: Vec::new(),
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
    type Get = fn(&crate::series::Point) -> Option<f64>;
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
    let title = if series.len() == 1 {
        format!("Latency — {}", series[0].label)
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
    }
}

/// Status class of a code for the error chart, with its colour.
fn status_class(code: u16) -> (&'static str, &'static str) {
    match code {
        0 => ("no response (timeout, connection error)", PALETTE[4]),
        300..=399 => ("3xx", PALETTE[5]),
        400..=499 => ("4xx", PALETTE[1]),
        500..=599 => ("5xx", PALETTE[3]),
        200..=299 => ("2xx", PALETTE[2]),
        _ => ("other", PALETTE[6]),
    }
}

/// Stacked bars of the failed share of each step (no response, 4xx, 5xx), in percent
/// of the step's requests. None when every request of every step succeeded.
pub fn error_chart(series: &Series) -> Option<String> {
    let steps: Vec<&crate::series::Point> = xs(series).collect();
    if steps.iter().all(|p| p.error_share <= 0.0) {
        return None;
    }
    let classes = [
        "no response (timeout, connection error)",
        "4xx",
        "5xx",
        "other",
    ];
    let stacks: Vec<Vec<(usize, f64)>> = steps
        .iter()
        .map(|p| {
            let mut v = vec![0.0; classes.len()];
            for (code, share) in &p.statuses {
                if (200..400).contains(code) {
                    continue;
                }
                let (name, _) = status_class(*code);
                let i = classes.iter().position(|c| *c == name).unwrap_or(3);
                v[i] += share;
            }
            v.into_iter()
                .enumerate()
                .filter(|(_, s)| *s > 0.0)
                .collect()
        })
        .collect();
    let h = 260.0;
    let plot_w = W - LEFT - LEGEND_W;
    let plot_h = h - TOP - 50.0;
    let hi = steps.iter().map(|p| p.error_share).fold(0.0, f64::max);
    let y = Axis::linear(0.0, (hi * 1.05).min(100.0), 4);
    let py = |v: f64| TOP + plot_h - y.frac(v) * plot_h;
    let slot = plot_w / steps.len() as f64;
    let bw = (slot * 0.6).min(40.0);
    let mut o = String::new();
    let title = format!("Failed requests — {}", series.label);
    svg_open(&mut o, h, "Failed requests per step", None, &title);
    y_grid(&mut o, &y.ticks, &py, plot_w);
    for (i, (p, stack)) in steps.iter().zip(&stacks).enumerate() {
        let cx = LEFT + slot * (i as f64 + 0.5);
        let mut base = 0.0;
        for (ci, share) in stack {
            let (name, color) = (classes[*ci], status_class_color(*ci));
            let (y0, y1) = (py(base), py(base + share));
            let _ = write!(
                o,
                r#"<rect x="{:.1}" y="{y1:.1}" width="{bw:.1}" height="{:.1}" fill="{color}"><title>{} clients: {name} {:.2}%</title></rect>"#,
                cx - bw / 2.0,
                (y0 - y1).max(0.5),
                p.n_clients,
                share
            );
            base += share;
        }
        let _ = write!(
            o,
            r##"<text x="{cx:.1}" y="{:.1}" text-anchor="middle" fill="#444">{}</text>"##,
            TOP + plot_h + 18.0,
            p.n_clients
        );
    }
    let _ = write!(
        o,
        r##"<rect x="{LEFT}" y="{TOP}" width="{plot_w:.1}" height="{plot_h:.1}" fill="none" stroke="#888"/><text x="{:.1}" y="{:.1}" text-anchor="middle" fill="#222">concurrent clients</text><text transform="translate(20 {:.1}) rotate(-90)" text-anchor="middle" fill="#222">% of requests</text>"##,
        LEFT + plot_w / 2.0,
        h - 10.0,
        TOP + plot_h / 2.0
    );
    let lx = LEFT + plot_w + 18.0;
    let mut ly = TOP + 4.0;
    for (ci, name) in classes.iter().enumerate() {
        if !stacks.iter().any(|s| s.iter().any(|(c, _)| *c == ci)) {
            continue;
        }
        let short = if ci == 0 { "no response" } else { name };
        let _ = write!(
            o,
            r##"<rect x="{lx:.1}" y="{:.1}" width="14" height="14" fill="{}"/><text x="{:.1}" y="{:.1}" fill="#222">{}</text>"##,
            ly - 7.0,
            status_class_color(ci),
            lx + 22.0,
            ly + 4.5,
            short
        );
        ly += 22.0;
    }
    o.push_str("</svg>");
    Some(o)
}

fn status_class_color(i: usize) -> &'static str {
    [PALETTE[4], PALETTE[1], PALETTE[3], PALETTE[6]][i.min(3)]
}

/// A compact ASCII chart of qps and mean latency against clients, one row per step,
/// for the end of a ramp. Marks the peak, the plateau and the knee.
pub fn terminal_chart(series: &Series, width: usize) -> String {
    let sat = analysis::analyse(series);
    let steps: Vec<(usize, &crate::series::Point)> = series
        .points
        .iter()
        .enumerate()
        .filter(|(_, p)| p.n_clients > 0)
        .collect();
    if steps.is_empty() {
        return "(no steps to chart)\n".into();
    }
    let max_q = steps.iter().map(|(_, p)| p.qps).fold(0.0, f64::max);
    let max_l = steps.iter().map(|(_, p)| p.mean_s).fold(0.0, f64::max);
    // Columns: clients(7) + 2 + bar + 1 + qps(8) + 3 + bar + 1 + latency(9), then a
    // note of up to 18 ("  <- plateau, knee").
    let fixed = 7 + 2 + 1 + 8 + 3 + 1 + 9 + 18;
    let bar = (width.saturating_sub(fixed) / 2).clamp(8, 60);
    let mut o = String::new();
    let header = format!(
        "{:>7}  {:<w$} {:>8}   {:<w$} {:>9}",
        "clients",
        "throughput",
        "qps",
        "mean latency",
        "",
        w = bar
    );
    let _ = writeln!(o, "{}", header.trim_end());
    let fill = |v: f64, max: f64, c: char| -> String {
        let n = if max > 0.0 {
            ((v / max) * bar as f64).round() as usize
        } else {
            0
        };
        let mut s: String = std::iter::repeat_n(c, n.min(bar)).collect();
        if n == 0 && v > 0.0 {
            s.push('.');
        }
        s
    };
    for (i, p) in steps {
        let mut notes = Vec::new();
        if sat.peak.is_some_and(|s| s.index == i) {
            notes.push("peak");
        }
        if sat.plateau.is_some_and(|s| s.index == i) && sat.peak.is_none_or(|s| s.index != i) {
            notes.push("plateau");
        }
        if sat.knee.is_some_and(|s| s.index == i) {
            notes.push("knee");
        }
        let lat = fmt_latency(p.mean_s).replace('µ', "u").replace('–', "-");
        let line = format!(
            "{:>7}  {:<w$} {:>8}   {:<w$} {:>9}{}",
            p.n_clients,
            fill(p.qps, max_q, '#'),
            fmt_qps(p.qps),
            fill(p.mean_s, max_l, '='),
            lat,
            if notes.is_empty() {
                String::new()
            } else {
                format!("  <- {}", notes.join(", "))
            },
            w = bar
        );
        let _ = writeln!(o, "{}", line.trim_end());
    }
    o
}

/// What `ramp` prints when it ends and `report` prints on the terminal: the text
/// chart, the saturation sentences and any warnings.
pub fn terminal_summary(series: &Series, width: usize) -> String {
    let sat = analysis::analyse(series);
    let mut o = terminal_chart(series, width);
    o.push('\n');
    for line in findings::sentences(&sat) {
        o.push_str(&line);
        o.push('\n');
    }
    for w in &sat.warnings {
        let _ = writeln!(o, "warning: {w}");
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_nice() {
        assert_eq!(
            nice_ticks(0.0, 151.3, 6),
            vec![0.0, 20.0, 40.0, 60.0, 80.0, 100.0, 120.0, 140.0, 160.0]
        );
        assert_eq!(nice_ticks(0.0, 20.0, 8).len(), 11);
        assert_eq!(
            nice_ticks(0.0, 40.0, 8),
            vec![0.0, 5.0, 10.0, 15.0, 20.0, 25.0, 30.0, 35.0, 40.0]
        );
        assert_eq!(
            nice_ticks(0.0, 0.7, 6),
            vec![0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7]
        );
        assert_eq!(nice_ticks(0.0, 1.0, 6), vec![0.0, 0.2, 0.4, 0.6, 0.8, 1.0]);
        assert_eq!(
            log_ticks(1.5, 660.0),
            vec![1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0, 200.0, 500.0, 1000.0]
        );
    }

    #[test]
    fn tick_labels() {
        assert_eq!(tick_label(0.30000000000000004), "0.3");
        assert_eq!(tick_label(0.05), "0.05");
        assert_eq!(tick_label(12000.0), "12,000");
        assert_eq!(tick_label(150.0), "150");
        assert_eq!(tick_label(1.5), "1.5");
        assert_eq!(tick_label(2.0), "2");
    }

    #[test]
    fn escaping() {
        assert_eq!(esc("a<b & \"c\""), "a&lt;b &amp; &quot;c&quot;");
    }
}
