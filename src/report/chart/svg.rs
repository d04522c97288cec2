//! Drawing a [`LineChart`] as SVG: axes (linear, log, whole clients), grid, lines,
//! markers with their tooltips, reference lines and the legend.

use std::fmt::Write as _;

use super::{
    esc, svg_open, tick_label, y_grid, Axis, LineChart, Marker, BOTTOM, H, LEFT, LEGEND_W, TOP, W,
};

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
