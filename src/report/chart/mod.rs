//! Charts, hand-written as SVG so a report is one self-contained file that needs no
//! script, font download or network to view: throughput and latency against clients,
//! one or several runs overlaid, and the error shares per step. Also a compact ASCII
//! chart for the terminal at the end of a ramp.
//!
//! Colours are the Okabe–Ito palette (safe for the common colour-vision deficiencies);
//! runs also differ by marker shape, so the charts survive a black-and-white printer.
//! Every SVG has a viewBox and no fixed width, so it scales to the page.

use std::fmt::Write as _;

mod distribution;
mod errors;
mod rates;
mod runs;
pub(crate) mod svg;
mod terminal;
pub mod timeline;

pub use distribution::{latency_throughput_chart, percentile_chart};
pub use errors::error_chart;
pub use rates::{rate_latency_chart, rate_throughput_chart};
pub use runs::{by_rate, latency_chart, run_charts, searched_charts, throughput_chart};
pub use svg::render_line_chart;
pub use terminal::{terminal_chart, terminal_summary, warning_lines};

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

pub(crate) const MARKERS: [Marker; 4] = [
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

/// The `dash` of a [`Line`] whose points are not joined: markers only, for points
/// that are not a curve (`--find-max`'s probes, in the order the search ran them).
pub const UNJOINED: &str = "unjoined";

/// A horizontal reference line across the plot.
#[derive(Debug, Clone)]
pub struct RefLine {
    pub name: String,
    pub y: f64,
    pub color: &'static str,
}

/// What a chart's x axis counts, which decides its ticks and their labels.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub enum XAxis {
    /// Concurrent clients: whole numbers, never a tick between two of them.
    #[default]
    Clients,
    /// Any other linear quantity from 0 (throughput, offered rate).
    Linear,
    /// Percentiles on HdrHistogram's log axis: x is the count of nines,
    /// −log10(1 − q), so 0 is 0%, 1 is 90%, 2 is 99%, 3 is 99.9%.
    Nines,
}

/// A vertical mark at one x: where the peak, the plateau or the knee is.
#[derive(Debug, Clone, PartialEq)]
pub struct Mark {
    pub x: f64,
    /// Short text drawn at the top of the plot ("peak", "knee").
    pub label: String,
    /// Longer hover text.
    pub tip: String,
}

/// A line chart in data units, ready to render.
#[derive(Debug, Clone, Default)]
pub struct LineChart {
    pub title: String,
    pub x_title: String,
    pub y_title: String,
    pub lines: Vec<Line>,
    pub refs: Vec<RefLine>,
    pub log_y: bool,
    pub x_axis: XAxis,
    /// Vertical marks (peak, plateau, knee), drawn under the data.
    pub marks: Vec<Mark>,
    /// Accessible description for screen readers.
    pub desc: String,
    /// Sentences to print under the chart (what was left out and why).
    pub notes: Vec<String>,
    /// The x axis's exact range instead of one fitted to the data: the run's clock, so
    /// every chart over time shares one axis (ticks inside it, never past its end).
    pub x_range: Option<(f64, f64)>,
    /// `data-*` attributes of the SVG element, for a reader (a test, a person) of the
    /// page: e.g. ("step-bounds", "0 3.001 3.001 6.004").
    pub data: Vec<(&'static str, String)>,
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
/// A plot axis: its range, scale and ticks.
pub(crate) struct Axis {
    pub(crate) lo: f64,
    pub(crate) hi: f64,
    pub(crate) log: bool,
    pub(crate) ticks: Vec<f64>,
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

    /// Exactly `lo..hi`, with the nice ticks that fall inside.
    fn range(lo: f64, hi: f64) -> Self {
        let ticks = nice_ticks(lo, hi, 8)
            .into_iter()
            .filter(|t| *t >= lo - 1e-9 && *t <= hi + 1e-9)
            .collect();
        Axis {
            lo,
            hi,
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

    /// Whole nines up to `max` (at least 99%, at most 99.999%).
    fn nines(max: f64) -> Self {
        let hi = max.ceil().clamp(2.0, 5.0);
        Axis {
            lo: 0.0,
            hi,
            log: false,
            ticks: (0..=hi as usize).map(|v| v as f64).collect(),
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

/// A chart as a standalone SVG file's text.
pub fn svg_file(c: &LineChart) -> String {
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n{}\n",
        render_line_chart(c)
    )
}

/// The x axis of a chart, as both the SVG and the PNG draw it.
pub(crate) fn x_axis(c: &LineChart) -> Axis {
    let xs = c
        .lines
        .iter()
        .flat_map(|l| l.points.iter().map(|p| p.0))
        .chain(c.marks.iter().map(|m| m.x))
        .filter(|x| x.is_finite());
    if let Some((lo, hi)) = c.x_range.filter(|(lo, hi)| hi > lo) {
        return Axis::range(lo, hi);
    }
    match c.x_axis {
        XAxis::Clients => Axis::clients(xs.fold(1.0, f64::max)),
        XAxis::Linear => {
            let hi = xs.fold(0.0, f64::max);
            Axis::linear(0.0, if hi > 0.0 { hi * 1.03 } else { 1.0 }, 8)
        }
        XAxis::Nines => Axis::nines(xs.fold(0.0, f64::max)),
    }
}

/// The y axis of a chart: from 0 (linear) or decades around the data (log).
pub(crate) fn y_axis(c: &LineChart) -> Axis {
    let ys = c
        .lines
        .iter()
        .flat_map(|l| l.points.iter())
        .filter(|(x, y)| x.is_finite() && y.is_finite())
        .map(|p| p.1)
        .chain(c.refs.iter().map(|r| r.y));
    if c.log_y {
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
    }
}

/// The label of an x tick: a number, or a percentile on a nines axis.
pub(crate) fn x_tick_label(kind: XAxis, v: f64) -> String {
    match kind {
        XAxis::Nines => nines_label(v),
        _ => tick_label(v),
    }
}

/// A count of nines as a percentile: 0 → "0%", 2 → "99%", 3 → "99.9%".
pub fn nines_label(n: f64) -> String {
    if n <= 0.0 {
        return "0%".into();
    }
    let n = n.round() as usize;
    if n == 1 {
        "90%".into()
    } else {
        format!(
            "99{}{}%",
            if n > 2 { "." } else { "" },
            "9".repeat(n.saturating_sub(2))
        )
    }
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
    fn percentile_labels() {
        let labels: Vec<String> = (0..=5).map(|n| nines_label(n as f64)).collect();
        assert_eq!(labels, ["0%", "90%", "99%", "99.9%", "99.99%", "99.999%"]);
    }

    #[test]
    fn escaping() {
        assert_eq!(esc("a<b & \"c\""), "a&lt;b &amp; &quot;c&quot;");
    }
}
