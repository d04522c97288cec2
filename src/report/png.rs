//! PNG versions of the two charts, drawn with plotters from the same [`LineChart`]
//! data as the SVG, for places that take only bitmaps (chat, slides, some wikis).
//!
//! plotters rasterises text from a TrueType font and ships none, so one is taken from
//! the system (the `HAKARU_FONT` environment variable first, then the usual paths of
//! DejaVu, Liberation, Noto, Arial). Without one, `--png` fails with a message saying
//! so and suggesting `--svg`, which needs no font.

use std::path::PathBuf;
use std::sync::OnceLock;

use plotters::prelude::*;
use plotters::style::FontStyle;

use crate::report::chart::{self, LineChart, Marker, XAxis};

const FONT_NAME: &str = "hakaru-sans";
const SIZE: (u32, u32) = (1200, 560);
const LEGEND_W: u32 = 250;

/// Common places of a sans-serif TrueType font.
const FONT_PATHS: [&str; 10] = [
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/TTF/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu-sans-fonts/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
    "/usr/share/fonts/liberation-sans/LiberationSans-Regular.ttf",
    "/usr/share/fonts/truetype/noto/NotoSans-Regular.ttf",
    "/System/Library/Fonts/Supplemental/Arial.ttf",
    "/Library/Fonts/Arial.ttf",
    "C:\\Windows\\Fonts\\arial.ttf",
];

/// Finds and registers a font once per process; the error says where it looked.
fn ensure_font() -> Result<(), String> {
    static FONT: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    FONT.get_or_init(|| {
        let candidates: Vec<PathBuf> = std::env::var_os("HAKARU_FONT")
            .map(PathBuf::from)
            .into_iter()
            .chain(FONT_PATHS.iter().map(PathBuf::from))
            .collect();
        for p in &candidates {
            let Ok(bytes) = std::fs::read(p) else {
                continue;
            };
            // plotters keeps fonts for the life of the process; one font, leaked once.
            let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
            if plotters::style::register_font(FONT_NAME, FontStyle::Normal, bytes).is_ok() {
                return Ok(p.clone());
            }
        }
        Err(format!(
            "--png needs a TrueType font to draw text and none was found (looked at \
             $HAKARU_FONT and {}); install one (Debian: fonts-dejavu-core) or set \
             HAKARU_FONT=/path/to/font.ttf, or use --svg, which needs no font",
            FONT_PATHS[0]
        ))
    })
    .as_ref()
    .map(|_| ())
    .map_err(|e| e.clone())
}

fn rgb(hex: &str) -> RGBColor {
    let h = hex.trim_start_matches('#');
    let c = |i: usize| u8::from_str_radix(h.get(i..i + 2).unwrap_or("00"), 16).unwrap_or(0);
    RGBColor(c(0), c(2), c(4))
}

fn err<E: std::fmt::Debug>(e: E) -> String {
    format!("drawing the PNG chart failed: {e:?}")
}

/// The plot of `c` on a chart context of either y scale (linear or log): the mesh,
/// reference lines, marks and lines. A macro because the two contexts' types differ.
macro_rules! draw_plot {
    ($chart:expr, $c:expr, $x:expr, $y:expr, $marks:expr) => {{
        let (c, x, y, marks): (&LineChart, &chart::Axis, &chart::Axis, &Vec<_>) =
            ($c, $x, $y, $marks);
        let (x_lo, x_hi) = (x.lo, x.hi);
        let font = |size: f64| (FONT_NAME, size).into_font();
        let mut ch = $chart;
        ch.configure_mesh()
            .x_desc(c.x_title.as_str())
            .y_desc(c.y_title.as_str())
            .x_labels(if c.x_axis == XAxis::Nines {
                x.ticks.len()
            } else {
                10
            })
            .x_label_formatter(&|v| chart::x_tick_label(c.x_axis, *v))
            .y_label_formatter(&|v| chart::tick_label(*v))
            .label_style(font(17.0))
            .axis_desc_style(font(18.0))
            .light_line_style(RGBColor(240, 240, 240))
            .bold_line_style(RGBColor(222, 222, 222))
            .draw()
            .map_err(err)?;
        for r in &c.refs {
            let col = rgb(r.color);
            // A dashed reference line, drawn as short segments.
            let n = 60;
            for i in (0..n).step_by(2) {
                let a = x_lo + (x_hi - x_lo) * i as f64 / n as f64;
                let b = x_lo + (x_hi - x_lo) * (i + 1) as f64 / n as f64;
                ch.draw_series(LineSeries::new([(a, r.y), (b, r.y)], col.stroke_width(2)))
                    .map_err(err)?;
            }
        }
        // The peak, plateau and knee: dashed verticals labelled at the top, as
        // in the SVG.
        let mark_col = rgb(chart::svg::MARK_COLOR);
        for (row, (mx, label, _)) in marks.iter().enumerate() {
            // A label near the right edge sits left of its line, as in the SVG
            // (about 9 px a character at 16 px).
            let width = 9 * label.chars().count() as i32;
            let near_right = (x_hi - mx) / (x_hi - x_lo) * f64::from(SIZE.0 - LEGEND_W - 100)
                < f64::from(width + 12);
            let dx = if near_right { -width - 6 } else { 6 };
            ch.draw_series(DashedLineSeries::new(
                [(*mx, y.lo), (*mx, y.hi)],
                6,
                6,
                mark_col.stroke_width(2),
            ))
            .map_err(err)?;
            ch.draw_series(std::iter::once(
                EmptyElement::at((*mx, y.hi))
                    + Text::new(label.clone(), (dx, 6 + 20 * row as i32), font(16.0)),
            ))
            .map_err(err)?;
        }
        for l in &c.lines {
            let col = rgb(l.color);
            let pts: Vec<(f64, f64)> = l
                .points
                .iter()
                .copied()
                .filter(|(x, y)| x.is_finite() && y.is_finite() && (!c.log_y || *y > 0.0))
                .collect();
            // A dashed line in the SVG (p99, max) is dashed here too: the same
            // pattern, doubled for the PNG's larger pixels.
            match dash_pattern(l.dash) {
                _ if l.dash == Some(chart::UNJOINED) => {}
                Some((on, off)) => {
                    ch.draw_series(DashedLineSeries::new(
                        pts.clone(),
                        on,
                        off,
                        col.stroke_width(3),
                    ))
                    .map_err(err)?;
                }
                None => {
                    ch.draw_series(LineSeries::new(pts.clone(), col.stroke_width(3)))
                        .map_err(err)?;
                }
            }
            match l.marker {
                // One point has no length to draw: a ring, as the SVG draws it.
                Marker::None if pts.len() == 1 => {
                    ch.draw_series(pts.iter().map(|p| Circle::new(*p, 5, col.stroke_width(3))))
                        .map_err(err)?;
                }
                Marker::None => {}
                Marker::Square => {
                    ch.draw_series(pts.iter().map(|p| {
                        EmptyElement::at(*p) + Rectangle::new([(-5, -5), (5, 5)], col.filled())
                    }))
                    .map_err(err)?;
                }
                Marker::Diamond => {
                    // A diamond, as the SVG draws it.
                    ch.draw_series(pts.iter().map(|p| {
                        EmptyElement::at(*p)
                            + Polygon::new(vec![(0, -6), (6, 0), (0, 6), (-6, 0)], col.filled())
                    }))
                    .map_err(err)?;
                }
                Marker::Triangle => {
                    ch.draw_series(pts.iter().map(|p| TriangleMarker::new(*p, 7, col.filled())))
                        .map_err(err)?;
                }
                Marker::Circle => {
                    ch.draw_series(pts.iter().map(|p| Circle::new(*p, 5, col.filled())))
                        .map_err(err)?;
                }
            }
        }
    }};
}

/// A line chart as PNG bytes: drawn into a bitmap in memory, then encoded. Touches
/// no file (the caller's [`crate::report::output`] writes it).
pub fn png_bytes(c: &LineChart) -> Result<Vec<u8>, String> {
    ensure_font()?;
    let mut pixels = vec![0u8; SIZE.0 as usize * SIZE.1 as usize * 3];
    {
        let root = BitMapBackend::with_buffer(&mut pixels, SIZE).into_drawing_area();
        draw(&root, c)?;
    }
    let mut out = Vec::new();
    let mut enc = png::Encoder::new(&mut out, SIZE.0, SIZE.1);
    enc.set_color(png::ColorType::Rgb);
    enc.set_depth(png::BitDepth::Eight);
    let mut w = enc.write_header().map_err(err)?;
    w.write_image_data(&pixels).map_err(err)?;
    w.finish().map_err(err)?;
    Ok(out)
}

type Area<'a> = DrawingArea<BitMapBackend<'a>, plotters::coord::Shift>;

/// The chart on `root`: the plot, and the legend beside it.
fn draw(root: &Area<'_>, c: &LineChart) -> Result<(), String> {
    root.fill(&WHITE).map_err(err)?;
    let (plot, legend) = root.split_horizontally(SIZE.0 - LEGEND_W);
    let x = chart::x_axis(c);
    let y = chart::y_axis(c);
    let marks = chart::svg::grouped_marks(c);
    let font = |size: f64| (FONT_NAME, size).into_font();
    let mut builder = ChartBuilder::on(&plot);
    builder
        // A long title (a standalone chart's carries the run's name) shrinks to fit
        // the plot's width instead of running off both edges: about 0.55 em a character.
        .caption(
            &c.title,
            font(
                (26.0f64)
                    .min(1750.0 / c.title.chars().count().max(1) as f64)
                    .max(13.0),
            ),
        )
        .margin(16)
        .x_label_area_size(56)
        .y_label_area_size(84);

    if y.log {
        draw_plot!(
            builder
                .build_cartesian_2d(x.lo..x.hi, (y.lo..y.hi).log_scale())
                .map_err(err)?,
            c,
            &x,
            &y,
            &marks
        );
    } else {
        draw_plot!(
            builder
                .build_cartesian_2d(x.lo..x.hi, y.lo..y.hi)
                .map_err(err)?,
            c,
            &x,
            &y,
            &marks
        );
    }

    draw_legend(&legend, c)?;
    root.present().map_err(err)?;
    Ok(())
}

/// The legend beside the plot, never over the data: each entry as the SVG's legend
/// draws it, its dashes and its marker.
fn draw_legend(legend: &Area<'_>, c: &LineChart) -> Result<(), String> {
    let font = |size: f64| (FONT_NAME, size).into_font();
    let mut y = 70;
    // Each entry as the SVG's legend draws it: its dashes and its marker.
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
        let col = rgb(color);
        match dash_pattern(dash) {
            _ if dash == Some(chart::UNJOINED) => {}
            Some((on, off)) => {
                let (on, off) = ((on / 2).max(2) as i32, (off / 2).max(2) as i32);
                let mut x = 6;
                while x < 40 {
                    let end = (x + on).min(40);
                    legend
                        .draw(&PathElement::new([(x, y), (end, y)], col.stroke_width(3)))
                        .map_err(err)?;
                    x = end + off;
                }
            }
            None => legend
                .draw(&PathElement::new([(6, y), (40, y)], col.stroke_width(3)))
                .map_err(err)?,
        }
        let at = (23, y);
        match marker {
            Marker::None => {}
            Marker::Circle => legend
                .draw(&Circle::new(at, 5, col.filled()))
                .map_err(err)?,
            Marker::Square => legend
                .draw(&Rectangle::new([(18, y - 5), (28, y + 5)], col.filled()))
                .map_err(err)?,
            Marker::Triangle => legend
                .draw(&TriangleMarker::new(at, 7, col.filled()))
                .map_err(err)?,
            Marker::Diamond => legend
                .draw(&Polygon::new(
                    vec![(23, y - 6), (29, y), (23, y + 6), (17, y)],
                    col.filled(),
                ))
                .map_err(err)?,
        }
        legend
            .draw(&Text::new(name.to_owned(), (48, y - 10), font(17.0)))
            .map_err(err)?;
        y += 30;
    }
    Ok(())
}

/// An SVG `stroke-dasharray` such as "6 4" as (dash, gap) in PNG pixels.
fn dash_pattern(dash: Option<&str>) -> Option<(u32, u32)> {
    let mut parts = dash?.split_whitespace().map(|n| n.parse::<f64>().ok());
    let on = parts.next()??;
    let off = parts.next().flatten().unwrap_or(on);
    Some((
        (on * 2.0).round().max(1.0) as u32,
        (off * 2.0).round().max(1.0) as u32,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bug: p99 lost its dashes in PNG, so mean and p99 looked the same.
    #[test]
    fn regression_png_lines_keep_the_svg_dashes() {
        assert_eq!(dash_pattern(Some("6 4")), Some((12, 8)));
        assert_eq!(dash_pattern(Some("2")), Some((4, 4)));
        assert_eq!(dash_pattern(None), None);
        assert_eq!(dash_pattern(Some("x")), None);
    }
}
