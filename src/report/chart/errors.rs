//! The error chart: stacked bars of each step's failed share by status class.

use std::fmt::Write as _;

use super::runs::xs;
use super::{svg_open, y_grid, Axis, LEFT, LEGEND_W, PALETTE, TOP, W};
use crate::report::fmt::{step_heading, step_label, Work};
use crate::result::series::Series;

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
    let steps: Vec<&crate::result::series::Point> = xs(series).collect();
    if steps.iter().all(|p| p.error_share <= 0.0) {
        return None;
    }
    // HTTP's 0 is no response; a SQL run's and a store's failures are all theirs.
    let work = Work::of_series(series);
    let (failed, short) = match work {
        // One run is one kind; HTTP's words are the default.
        Work::Request | Work::Answer => ("no response (timeout, connection error)", "no response"),
        Work::Transaction => ("error (a transaction that ended in an error)", "error"),
        Work::Command => ("error (no reply, or an error reply)", "error"),
    };
    let classes = [failed, "4xx", "5xx", "other"];
    let stacks: Vec<Vec<(usize, f64)>> = steps
        .iter()
        .map(|p| {
            let mut v = vec![0.0; classes.len()];
            for (code, share) in &p.statuses {
                if p.ok_status.contains(*code) {
                    continue;
                }
                let (name, _) = status_class(*code);
                let i = match code {
                    0 => 0,
                    _ => classes.iter().position(|c| *c == name).unwrap_or(3),
                };
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
    let items = work.items();
    let title = format!("Failed {items} — {}", series.label);
    svg_open(&mut o, h, &format!("Failed {items} per step"), None, &title);
    y_grid(&mut o, &y.ticks, &py, plot_w);
    for (i, (p, stack)) in steps.iter().zip(&stacks).enumerate() {
        let cx = LEFT + slot * (i as f64 + 0.5);
        let mut base = 0.0;
        for (ci, share) in stack {
            let (name, color) = (classes[*ci], status_class_color(*ci));
            let (y0, y1) = (py(base), py(base + share));
            let _ = write!(
                o,
                r#"<rect x="{:.1}" y="{y1:.1}" width="{bw:.1}" height="{:.1}" fill="{color}"><title>{}: {name} {:.2}%</title></rect>"#,
                cx - bw / 2.0,
                (y0 - y1).max(0.5),
                match p.rate {
                    Some(_) => step_label(p),
                    None => crate::report::fmt::clients(p.n_clients),
                },
                share
            );
            base += share;
        }
        let _ = write!(
            o,
            r##"<text x="{cx:.1}" y="{:.1}" text-anchor="middle" fill="#444">{}</text>"##,
            TOP + plot_h + 18.0,
            step_label(p)
        );
    }
    let _ = write!(
        o,
        r##"<rect x="{LEFT}" y="{TOP}" width="{plot_w:.1}" height="{plot_h:.1}" fill="none" stroke="#888"/><text x="{:.1}" y="{:.1}" text-anchor="middle" fill="#222">{}</text><text transform="translate(20 {:.1}) rotate(-90)" text-anchor="middle" fill="#222">% of {items}</text>"##,
        LEFT + plot_w / 2.0,
        h - 10.0,
        match step_heading(series) {
            "clients" => "concurrent clients".to_string(),
            "rate" => format!("offered rate ({items}/s)"),
            _ => format!("step (clients, or rate in {items}/s)"),
        },
        TOP + plot_h / 2.0
    );
    let lx = LEFT + plot_w + 18.0;
    let mut ly = TOP + 4.0;
    for (ci, name) in classes.iter().enumerate() {
        if !stacks.iter().any(|s| s.iter().any(|(c, _)| *c == ci)) {
            continue;
        }
        let short = if ci == 0 { short } else { name };
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
