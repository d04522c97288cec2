//! Drawing a [`LineChart`] as SVG: axes (linear, log, whole clients), grid, lines,
//! markers with their tooltips, reference lines and the legend.

use std::fmt::Write as _;

use super::{
    esc, svg_open, x_axis, x_tick_label, y_axis, y_grid, Axis, LineChart, Marker, BOTTOM, H, LEFT,
    LEGEND_W, TOP, UNJOINED, W,
};

/// Colour of the vertical marks: quieter than any line.
pub(crate) const MARK_COLOR: &str = "#8a8f98";

/// The marks of a chart grouped by x (the plateau and the peak often fall on one
/// step), left to right: (x, "plateau · peak", hover text).
pub(crate) fn grouped_marks(c: &LineChart) -> Vec<(f64, String, String)> {
    let mut out: Vec<(f64, String, String)> = Vec::new();
    let mut marks: Vec<_> = c.marks.iter().filter(|m| m.x.is_finite()).collect();
    marks.sort_by(|a, b| a.x.total_cmp(&b.x));
    for m in marks {
        match out.last_mut() {
            Some(last) if last.0 == m.x => {
                last.1 = format!("{} · {}", last.1, m.label);
                last.2 = format!("{}; {}", last.2, m.tip);
            }
            _ => out.push((m.x, m.label.clone(), m.tip.clone())),
        }
    }
    out
}

/// Dashed vertical lines with their labels at the top of the plot; a label that
/// would run into the one before it drops a line.
fn marks_svg(o: &mut String, c: &LineChart, px: &dyn Fn(f64) -> f64, plot_w: f64, plot_h: f64) {
    let mut last_end = f64::NEG_INFINITY;
    let mut row = 0;
    for (x, label, tip) in grouped_marks(c) {
        let xx = px(x);
        // About 6.5 px a character at 12 px; a label that would leave the plot on
        // the right sits left of its line instead.
        let width = 6.5 * label.chars().count() as f64;
        let left = xx + 4.0 + width > LEFT + plot_w;
        let (tx, anchor, start) = if left {
            (xx - 4.0, "end", xx - 4.0 - width)
        } else {
            (xx + 4.0, "start", xx + 4.0)
        };
        row = if start < last_end { row + 1 } else { 0 };
        let ty = TOP + 15.0 + 15.0 * row as f64;
        let _ = write!(
            o,
            r##"<g><title>{}</title><line x1="{xx:.1}" y1="{TOP}" x2="{xx:.1}" y2="{:.1}" stroke="{MARK_COLOR}" stroke-width="1.2" stroke-dasharray="3 3"/><text x="{tx:.1}" y="{ty:.1}" text-anchor="{anchor}" font-size="12" fill="#555" stroke="white" stroke-width="3" paint-order="stroke">{}</text></g>"##,
            esc(&tip),
            TOP + plot_h,
            esc(&label)
        );
        last_end = start + width + 6.0;
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

/// A chart on a fixed x range says so on its `<svg>` element: `data-x-range` (the
/// axis), `data-x-extent` (the first and last x drawn), and the chart's own `data`, so a
/// reader can check that charts of one run agree without parsing coordinates.
fn data_attributes(o: &mut String, c: &LineChart, x: &Axis) {
    let Some(at) = o.find("<svg ").map(|i| i + "<svg ".len()) else {
        return;
    };
    let mut attrs = String::new();
    if c.x_range.is_some() {
        let xs = c
            .lines
            .iter()
            .flat_map(|l| l.points.iter())
            .filter(|(a, b)| a.is_finite() && b.is_finite())
            .map(|p| p.0);
        let (lo, hi) = xs.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
            (lo.min(v), hi.max(v))
        });
        let _ = write!(attrs, r#"data-x-range="{} {}" "#, num(x.lo), num(x.hi));
        if lo <= hi {
            let _ = write!(attrs, r#"data-x-extent="{} {}" "#, num(lo), num(hi));
        }
    }
    for (k, v) in &c.data {
        let _ = write!(attrs, r#"data-{k}="{}" "#, esc(v));
    }
    o.insert_str(at, &attrs);
}

/// A number for a data attribute: to the millisecond, no trailing zeros.
pub(crate) fn num(v: f64) -> String {
    let s = format!("{v:.3}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" {
        "0".into()
    } else {
        s.into()
    }
}

/// Renders a line chart as a standalone `<svg>` element.
pub fn render_line_chart(c: &LineChart) -> String {
    let plot_w = W - LEFT - LEGEND_W;
    let plot_h = H - TOP - BOTTOM;
    let x = x_axis(c);
    let y = y_axis(c);
    let px = |v: f64| LEFT + x.frac(v) * plot_w;
    let py = |v: f64| TOP + plot_h - y.frac(v) * plot_h;

    let mut o = String::new();
    svg_open(&mut o, H, &c.title, Some(&c.desc), &c.title);
    data_attributes(&mut o, c, &x);
    y_grid(&mut o, &y.ticks, &py, plot_w);
    for t in &x.ticks {
        let xx = px(*t);
        let _ = write!(
            o,
            r##"<line x1="{xx:.1}" y1="{TOP}" x2="{xx:.1}" y2="{:.1}" stroke="#f0f0f0"/><text x="{xx:.1}" y="{:.1}" text-anchor="middle" fill="#444">{}</text>"##,
            TOP + plot_h,
            TOP + plot_h + 18.0,
            x_tick_label(c.x_axis, *t)
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
    marks_svg(&mut o, c, &px, plot_w, plot_h);
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
        if l.dash == Some(UNJOINED) {
            for ((a, b), tip) in pts.iter().zip(tips) {
                marker_svg(&mut o, l.marker, px(*a), py(*b), l.color, tip);
            }
            continue;
        }
        let d: Vec<String> = pts
            .iter()
            .map(|(a, b)| format!("{:.1},{:.1}", px(*a), py(*b)))
            .collect();
        // A line without markers names itself on hover (its points have no tips).
        let close = if l.marker == Marker::None {
            format!("><title>{}</title></polyline>", esc(&l.name))
        } else {
            "/>".to_owned()
        };
        let _ = write!(
            o,
            r#"<polyline points="{}" fill="none" stroke="{}" stroke-width="2.2" stroke-linejoin="round"{}{close}"#,
            d.join(" "),
            l.color,
            l.dash
                .map(|d| format!(r#" stroke-dasharray="{d}""#))
                .unwrap_or_default()
        );
        for ((a, b), tip) in pts.iter().zip(&tips) {
            marker_svg(&mut o, l.marker, px(*a), py(*b), l.color, *tip);
        }
        // A line of one point is a polyline of no length: drawn as a ring, so a run
        // measured at one load still shows (a compared single step's p99).
        if let ([(a, b)], Marker::None) = (pts.as_slice(), l.marker) {
            let _ = write!(
                o,
                r#"<circle class="one-point" cx="{:.1}" cy="{:.1}" r="4.5" fill="white" stroke="{}" stroke-width="2.2"><title>{}</title></circle>"#,
                px(*a),
                py(*b),
                l.color,
                esc(tips.first().copied().flatten().unwrap_or(&l.name))
            );
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
        if dash != Some(UNJOINED) {
            let _ = write!(
                o,
                r#"<line x1="{lx:.1}" y1="{ly:.1}" x2="{:.1}" y2="{ly:.1}" stroke="{color}" stroke-width="2.2"{}/>"#,
                lx + 30.0,
                dash.map(|d| format!(r#" stroke-dasharray="{d}""#))
                    .unwrap_or_default()
            );
        }
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
