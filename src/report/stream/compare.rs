//! `hakaru compare` on log-pipeline results: pipelines side by side (rsyslog against a
//! plain file, Kafka…) per record size — records/s, MiB/s, the ratio to the first
//! result at that size, loss and duplicates when verified — as text, Markdown, HTML
//! with the charts against record size and each shared size's arrival on one time
//! axis, SVG and PNG. A stream result is never mixed with a request-response result:
//! there is nothing in common to compare, and the refusal names both files.

use std::fmt::Write as _;
use std::path::PathBuf;

use crate::report::chart::{esc, LineChart};
use crate::report::output::{OutputPlan, Rendered, ReportError};
use crate::report::stream::grouped;
use crate::report::stream::page::{
    by_size, dash_or, incomplete, label_of, p99, rate_cells, ratio, setup_line, size_table_html,
    size_table_markdown,
};
use crate::report::stream::{size_rows, timelines, Segment, SizeRow};
use crate::result::read::{read_stream, ReadError};
use crate::result::stream::StreamResult;

/// The comparison for the terminal: per record size, one line per result.
pub fn compare_text(runs: &[(&str, Vec<SizeRow>)]) -> String {
    let width = runs
        .iter()
        .map(|(l, _)| l.chars().count())
        .max()
        .unwrap_or(0)
        .max(6);
    let mut o = String::new();
    let _ = writeln!(
        o,
        "{:>11}  {:<width$}  {:>14}  {:>10}  {:>8}  {:>10}  {:>10}  {:>10}",
        "record size", "result", "records/s", "MiB/s", "vs first", "lost", "duplicated", "p99"
    );
    for (size, rows) in by_size(runs) {
        let first = rows.first().map(|(_, r)| r.records_per_s);
        for (label, r) in rows {
            let (rps, mibs) = rate_cells(r);
            let v = r.verify;
            let _ = writeln!(
                o,
                "{:>11}  {:<width$}  {:>14}  {:>10}  {:>8}  {:>10}  {:>10}  {:>10}",
                size.map_or("mixed".into(), |b| format!("{} B", grouped(b))),
                label,
                if r.sender_side {
                    format!("{rps} sent")
                } else {
                    rps
                },
                mibs,
                ratio(first, r),
                dash_or(v.map(|v| v.lost)),
                dash_or(v.map(|v| v.duplicated)),
                p99(r)
            );
        }
    }
    if runs
        .iter()
        .any(|(_, rows)| rows.iter().any(|r| r.sender_side))
    {
        o.push_str("\"sent\": a stream send result's rate is the sender's, not what arrived.\n");
    }
    if runs
        .iter()
        .any(|(_, rows)| rows.iter().any(|r| r.verify.is_none()))
    {
        o.push_str(
            "–: not verified (watch --verify, stream run --verify count loss and duplicates).\n",
        );
    }
    o
}

/// Several results' page: the table side by side, the size charts, each size's
/// arrival overlaid.
pub fn compare_html(runs: &[(&str, &StreamResult)]) -> String {
    let rows: Vec<(&str, Vec<SizeRow>)> = runs.iter().map(|(l, r)| (*l, size_rows(r))).collect();
    let labels: Vec<&str> = runs.iter().map(|(l, _)| *l).collect();
    let mut b = String::new();
    let _ = write!(
        b,
        "<h1>{}</h1><p class=\"sub\">Log pipelines side by side: records/s and MiB/s per record size</p>",
        esc(&labels.join(" · "))
    );
    let mut warnings = Vec::new();
    for (l, r) in runs {
        for w in incomplete(r) {
            warnings.push(format!("{l}: {w}"));
        }
    }
    b.push_str(&crate::report::page::warnings_box(&warnings));
    let _ = write!(
        b,
        "<section><h2>Per record size</h2>{}<p class=\"note\">\"vs first\" is records/s against the first result at the same record size.</p></section>",
        size_table_html(&rows)
    );
    for (_, c) in compare_charts(runs) {
        b.push_str(&crate::report::page::chart_section(&c));
    }
    b.push_str("<section><h2>Setups</h2><dl>");
    for (l, r) in runs {
        let _ = write!(b, "<dt>{}</dt><dd>{}</dd>", esc(l), esc(&setup_line(r)));
    }
    b.push_str("</dl></section>");
    crate::report::page::page(
        &format!("{} — hakaru stream comparison", labels.join(", ")),
        &b,
    )
}

/// The comparison's charts with their SVG/PNG suffixes.
fn compare_charts(runs: &[(&str, &StreamResult)]) -> Vec<(String, LineChart)> {
    let rows: Vec<(&str, Vec<SizeRow>)> = runs.iter().map(|(l, r)| (*l, size_rows(r))).collect();
    let refs: Vec<(&str, &[SizeRow])> = rows.iter().map(|(l, r)| (*l, &r[..])).collect();
    let mut out = Vec::new();
    let sizes = by_size(&rows);
    if sizes.iter().filter(|(s, _)| s.is_some()).count() > 1 {
        out.push((
            "-sizes-records".into(),
            super::chart::size_chart(&refs, false),
        ));
        out.push(("-sizes-mib".into(), super::chart::size_chart(&refs, true)));
    }
    // A size only one result has is in that result's own report.
    for (size, _) in sizes.iter().filter(|(_, rows)| rows.len() > 1) {
        let mut lines: Vec<(&str, Vec<Segment>)> = Vec::new();
        for (l, r) in runs {
            for (s, segs) in timelines(r) {
                if s == *size {
                    lines.push((*l, segs));
                }
            }
        }
        if lines.len() > 1 {
            let suffix = size.map_or("-arrival".into(), |b| format!("-{b}B-arrival"));
            out.push((suffix, super::chart::arrival_overlay(*size, &lines)));
        }
    }
    out
}

/// `hakaru compare` on stream results.
pub fn compare(
    labels: &[String],
    results: &[StreamResult],
    plan: &OutputPlan,
) -> Result<Rendered, ReportError> {
    let runs: Vec<(&str, &StreamResult)> = labels.iter().map(String::as_str).zip(results).collect();
    let rows: Vec<(&str, Vec<SizeRow>)> = runs.iter().map(|(l, r)| (*l, size_rows(r))).collect();
    let mut out = Rendered::default();
    if let Some(p) = &plan.html {
        out.put(p.clone(), compare_html(&runs));
    }
    let base = plan
        .html
        .clone()
        .unwrap_or_else(|| PathBuf::from("compare.html"));
    let charts = compare_charts(&runs);
    out.charts(charts.iter().map(|(s, c)| (s.clone(), c)), &base, plan)?;
    let mut md = size_table_markdown(&rows);
    md.push('\n');
    out.markdown(md, compare_text(&rows), plan);
    Ok(out)
}

/// What `hakaru compare` was given: all stream results (read), none, or a mix (refused).
pub fn classify(paths: &[PathBuf]) -> Result<Option<Vec<StreamResult>>, ReadError> {
    let mut stream = Vec::new();
    let mut first_stream: Option<&PathBuf> = None;
    let mut first_other: Option<&PathBuf> = None;
    for p in paths {
        match read_stream(p) {
            Some(r) => {
                first_stream.get_or_insert(p);
                stream.push(r?);
            }
            None => {
                // A file that is not there is not a request-response result either.
                if let Err(error) = std::fs::metadata(p) {
                    return Err(ReadError::Io {
                        path: p.clone(),
                        error,
                    });
                }
                first_other.get_or_insert(p);
            }
        }
    }
    match (first_stream, first_other) {
        (None, _) => Ok(None),
        (Some(_), None) => Ok(Some(stream)),
        (Some(s), Some(o)) => Err(ReadError::MixedKinds {
            stream: s.clone(),
            other: o.clone(),
        }),
    }
}

/// The labels of the compared results: `--label`'s, one per file, or the file stems
/// (the file names when two stems are alike).
pub fn labels(paths: &[PathBuf], given: Option<&[String]>) -> Result<Vec<String>, ReportError> {
    if let Some(l) = given {
        if l.len() != paths.len() {
            return Err(ReportError::LabelCount {
                labels: l.len(),
                files: paths.len(),
            });
        }
        return Ok(l.to_vec());
    }
    let stems: Vec<String> = paths.iter().map(|p| label_of(p)).collect();
    Ok(paths
        .iter()
        .zip(&stems)
        .map(|(p, s)| {
            if stems.iter().filter(|x| *x == s).count() > 1 {
                p.display().to_string()
            } else {
                s.clone()
            }
        })
        .collect())
}
