//! The floor every HTML page stands on: the page frame (inline CSS, no script, no
//! network), sentences with their flags set in code type, the warnings box, a chart
//! in its own section, and the line saying where a series came from. Every kind of
//! report (run and ramp, bulk, stream, suite, find-max, compare) draws its page on it.

use std::fmt::Write as _;

use crate::report::chart::{self, esc};
use crate::report::fmt::clients;
use crate::result::series::Series;

pub(crate) const CSS: &str = r#"
:root { color-scheme: light; }
body { margin: 0; background: #f6f7f9; color: #1d1f23;
  font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; }
main { max-width: 1040px; margin: 0 auto; padding: 24px 28px 48px; }
h1 { font-size: 26px; margin: 8px 0 2px; }
h2 { font-size: 19px; margin: 0 0 10px; }
.sub { color: #5a6270; margin: 0 0 18px; }
section { background: #fff; border: 1px solid #e2e5ea; border-radius: 8px;
  padding: 16px 20px; margin: 16px 0; }
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(190px, 1fr));
  gap: 12px; margin: 0 0 14px; }
.card { border: 1px solid #e2e5ea; border-radius: 6px; padding: 10px 14px; background: #fbfcfd; }
.card .k { color: #5a6270; font-size: 13px; }
.card .v { font-size: 22px; font-weight: 600; }
.card .n { color: #5a6270; font-size: 13px; }
.summary p { margin: 6px 0; }
.warn { background: #fff6e5; border: 1px solid #f0c36d; border-radius: 6px;
  padding: 8px 14px; margin: 10px 0 0; }
.warn p { margin: 4px 0; }
svg { width: 100%; height: auto; display: block; }
table { border-collapse: collapse; width: 100%; font-size: 13.5px;
  font-variant-numeric: tabular-nums; }
th, td { padding: 4px 7px; border-bottom: 1px solid #eceef2; text-align: right; white-space: nowrap; }
th { background: #f3f5f8; font-weight: 600; }
th:first-child, td:first-child, th.l, td.l { text-align: left; }
tr.peak td { background: #eef6ff; }
tr.behind td { background: #fdf0ee; }
.scroll { overflow-x: auto; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: 2px 18px; margin: 0; }
dt { color: #5a6270; }
dd { margin: 0; }
code.flag { white-space: nowrap; }
code { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 13px;
  overflow-wrap: anywhere; }
.note { color: #5a6270; font-size: 13px; margin: 6px 0 0; }
td.why { white-space: normal; text-align: left; min-width: 280px; font-size: 12.5px; }
section.thresholds.failed { border: 2px solid #d9534f; }
section.thresholds.passed { border: 2px solid #5cb85c; }
section.thresholds.failed h2 { color: #a61b0f; }
section.thresholds.passed h2 { color: #1a7f37; }
td.fail { background: #fdecea; color: #a61b0f; font-weight: 600; }
td.pass { color: #1a7f37; }
tr.failed td.l { color: #a61b0f; font-weight: 600; }
tr.overall td { border-bottom: 2px solid #d5d9e0; }
ul.why { margin: 8px 0 0; padding-left: 20px; }
footer { color: #8a919c; font-size: 12px; text-align: center; }
"#;

/// Wraps a body into a complete page.
pub(crate) fn page(title: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{}</title>\n<style>{CSS}</style>\n</head>\n<body>\n<main>\n{body}\n\
         <footer>Written by hakaru {}. This page needs no network and no script.</footer>\n\
         </main>\n</body>\n</html>\n",
        esc(title),
        env!("CARGO_PKG_VERSION")
    )
}

/// Escapes a sentence and sets command-line flags (`--end-n-clients`) in code type,
/// unbroken, so a line never wraps between their two dashes.
pub(crate) fn rich(text: &str) -> String {
    let mut o = String::new();
    for (i, word) in text.split(' ').enumerate() {
        if i > 0 {
            o.push(' ');
        }
        let core = word.trim_end_matches([',', '.', ';', ':', ')']);
        if core.starts_with("--") && core.len() > 2 {
            let _ = write!(
                o,
                "<code class=\"flag\">{}</code>{}",
                esc(core),
                esc(&word[core.len()..])
            );
        } else {
            o.push_str(&esc(word));
        }
    }
    o
}

/// A one-line description of where a series came from.
pub fn source_line(s: &Series) -> String {
    let n = s.points.iter().filter(|p| p.n_clients > 0).count();
    let lo = s
        .points
        .iter()
        .map(|p| p.n_clients)
        .filter(|n| *n > 0)
        .min();
    let hi = s.points.iter().map(|p| p.n_clients).max();
    let range = match (lo, hi) {
        // Open model: the clients are the connections the rates could use.
        (_, Some(b)) if s.is_open_model() => {
            format!("up to {b} connection{}", if b == 1 { "" } else { "s" })
        }
        (Some(a), Some(b)) if a != b => format!("{a}–{b} clients"),
        (Some(a), _) => clients(a),
        _ => "no clients".into(),
    };
    format!(
        "{} step{} · {} · {} {}",
        n,
        if n == 1 { "" } else { "s" },
        range,
        s.format.describe(),
        s.source.display()
    )
}

/// Warnings in a box (nothing when there are none).
pub(crate) fn warnings_box(warnings: &[String]) -> String {
    if warnings.is_empty() {
        return String::new();
    }
    let mut o = String::from("<div class=\"warn\" role=\"note\">");
    for w in warnings {
        let _ = write!(o, "<p><strong>Warning:</strong> {}</p>", rich(w));
    }
    o.push_str("</div>");
    o
}

/// A chart in its own section, with its notes under it.
pub(crate) fn chart_section(c: &chart::LineChart) -> String {
    let mut o = format!("<section>{}", chart::render_line_chart(c));
    if !c.notes.is_empty() {
        let notes: Vec<String> = c.notes.iter().map(|n| rich(n)).collect();
        let _ = write!(o, "<p class=\"note\">{}</p>", notes.join(" "));
    }
    o.push_str("</section>");
    o
}
