//! Markdown tables to paste into a pull request or an issue: one run's steps with its
//! saturation summary, and the helpers the comparison uses for its own table.

use crate::analysis;
use crate::report::findings;
use crate::report::fmt::{fmt_latency, fmt_qps, fmt_share};
use crate::result::series::Series;
use crate::result::RunResult;

/// Column alignment in a Markdown table.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Align {
    Left,
    Right,
}

/// A GitHub-flavoured Markdown table. Pipes in cells are escaped, and a line break
/// in a value becomes a space (it would end the row).
pub fn md_table(headers: &[&str], aligns: &[Align], rows: &[Vec<String>]) -> String {
    let cell = |s: &str| s.replace('|', "\\|").replace(['\n', '\r'], " ");
    let mut o = String::new();
    o.push('|');
    for h in headers {
        o.push_str(&format!(" {} |", cell(h)));
    }
    o.push_str("\n|");
    for (i, _) in headers.iter().enumerate() {
        o.push_str(match aligns.get(i).copied().unwrap_or(Align::Right) {
            Align::Left => ":--|",
            Align::Right => "--:|",
        });
    }
    o.push('\n');
    for r in rows {
        o.push('|');
        for c in r {
            o.push_str(&format!(" {} |", cell(c)));
        }
        o.push('\n');
    }
    o
}

/// Markdown as it may be pasted anywhere: every `<` that could open markup (a tag,
/// a comment, an autolink: `<` before a letter, `/`, `!` or `?`) and every `&` that
/// could open an entity written as HTML writes them (`&lt;`, `&amp;`), so a value
/// from a result (a URL, a label, a command line) cannot become markup where the
/// Markdown is shown (issue 20: a URL holding `<img onerror=…>`). `p99<20ms` and
/// `a & b` stay as they read. Code spans and fenced blocks show their text as it is
/// and are left alone. Applied once, where every Markdown report leaves
/// ([`crate::report::output::Rendered::markdown`]), so no renderer can forget it.
pub fn escape_html(md: &str) -> String {
    let mut out = String::with_capacity(md.len());
    let mut fenced = false;
    for line in md.split_inclusive('\n') {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            out.push_str(line);
        } else if fenced {
            out.push_str(line);
        } else {
            escape_inline(line, &mut out);
        }
    }
    out
}

/// One line's text: code spans (a run of backticks to the next run of the same
/// length, as Markdown reads them) copied, the rest escaped.
fn escape_inline(text: &str, out: &mut String) {
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'`' {
            let n = b[i..].iter().take_while(|&&c| c == b'`').count();
            let ticks = &text[i..i + n];
            let close = text[i + n..].match_indices(ticks).find(|(j, _)| {
                let at = i + n + j;
                b.get(at + n) != Some(&b'`') && (at == 0 || b[at - 1] != b'`')
            });
            let end = close.map_or(i + n, |(j, _)| i + n + j + n);
            out.push_str(&text[i..end]);
            i = end;
            continue;
        }
        let next = text[i..].find(['`', '<', '&']).map_or(b.len(), |j| i + j);
        out.push_str(&text[i..next]);
        if next == b.len() || b[next] == b'`' {
            i = next;
            continue;
        }
        let after = b.get(next + 1).copied().unwrap_or(b' ');
        match b[next] {
            b'<' if after.is_ascii_alphabetic() || matches!(after, b'/' | b'!' | b'?') => {
                out.push_str("&lt;")
            }
            b'&' if after.is_ascii_alphabetic() || after == b'#' => out.push_str("&amp;"),
            c => out.push(c as char),
        }
        i = next + 1;
    }
}

/// One run as Markdown: a heading, the saturation sentences, warnings, and a table
/// of the steps (p50/p99 columns only when the file has them).
pub fn markdown_report(run: &Series) -> String {
    markdown_report_with(run, None)
}

/// [`markdown_report`] with what only hakaru's JSON result keeps (`result`, when
/// there is one): its thresholds' verdicts under the heading.
pub fn markdown_report_with(run: &Series, result: Option<&RunResult>) -> String {
    let mut extra = String::new();
    if let Some(r) = result {
        if let Some(t) = &r.thresholds {
            extra.push_str(&crate::report::threshold::threshold_markdown(r, t));
            extra.push('\n');
        }
        // A `--find-max` search is read by its answer and probes, not rate by rate.
        let warnings = md_warnings(&findings::RunKind::of(run, Some(r)).warnings(run));
        if let Some(fm) = &r.find_max {
            return format!(
                "### {}\n\n{extra}{}{warnings}",
                run.name(),
                crate::report::find_max::find_max_markdown(fm)
            );
        }
        // A scenario reads by its phases and events, as `hakaru suite` ends.
        if r.suite.is_some() {
            return format!(
                "### {}\n\n{extra}```text\n{}```\n{warnings}",
                run.name(),
                crate::report::suite::text(r)
            );
        }
    }
    // A repeated run: its warm rounds' mean, as the HTML report shows it.
    let warm;
    let s = if run.rounds() > 1 {
        warm = crate::report::compare::display_series(std::slice::from_ref(run)).remove(0);
        &warm
    } else {
        run
    };
    if s.is_open_model() {
        return rate_markdown(s, &extra);
    }
    let sat = analysis::analyse(s);
    let mut o = format!("### {}\n\n{extra}", run.name());
    if s.label != run.label {
        o.push_str(&format!(
            "Mean of the warm rounds 2–{} (round 1 ran cold).\n\n",
            run.rounds()
        ));
    }
    for line in findings::sentences(&sat) {
        o.push_str(&line);
        o.push('\n');
    }
    o.push_str(&md_warnings(&sat.warnings));
    o.push('\n');
    let pct = s.has_percentiles();
    let mut headers = vec!["clients", "requests", "qps", "mean"];
    if pct {
        headers.extend(["p50", "p99"]);
    }
    headers.extend(["max", "failed"]);
    let aligns = vec![Align::Right; headers.len()];
    let rows: Vec<Vec<String>> = s
        .points
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let mut clients = p.n_clients.to_string();
            if sat.peak.is_some_and(|k| k.index == i) {
                clients = format!("**{clients}**");
            }
            let mut r = vec![
                clients,
                p.total_requests.to_string(),
                fmt_qps(p.qps),
                fmt_latency(p.mean_s),
            ];
            if pct {
                let f = |v: Option<f64>| v.map(fmt_latency).unwrap_or_else(|| "–".into());
                r.push(f(p.p50_s));
                r.push(f(p.p99_s));
            }
            r.push(fmt_latency(p.max_s));
            r.push(fmt_share(p.error_share));
            r
        })
        .collect();
    o.push_str(&md_table(&headers, &aligns, &rows));
    o
}

/// An open-model run as Markdown: the rate findings and a table of offered against
/// answered rate per step.
fn rate_markdown(s: &Series, extra: &str) -> String {
    let f = analysis::analyse_rates(s);
    let mut o = format!("### {}\n\n{extra}", s.name());
    for line in findings::rate_sentences(s, &f) {
        o.push_str(&line);
        o.push('\n');
    }
    o.push_str(&md_warnings(&findings::RunKind::OpenModel.warnings(s)));
    o.push('\n');
    let headers = [
        "offered/s",
        "answered/s",
        "held",
        "p50",
        "p99",
        "late",
        "dropped",
    ];
    let aligns = vec![Align::Right; headers.len()];
    let lat = |v: Option<f64>| {
        v.filter(|v| v.is_finite())
            .map(fmt_latency)
            .unwrap_or_else(|| "–".into())
    };
    let rows: Vec<Vec<String>> = f
        .steps
        .iter()
        .map(|r| {
            let p = &s.points[r.index];
            vec![
                fmt_qps(r.rate),
                fmt_qps(r.achieved),
                if r.held { "yes" } else { "**no**" }.to_owned(),
                lat(p.p50_s),
                lat(p.p99_s),
                p.late.to_string(),
                p.dropped.to_string(),
            ]
        })
        .collect();
    o.push_str(&md_table(&headers, &aligns, &rows));
    o
}

/// Each warning as a Markdown quote, a blank line before it.
fn md_warnings(warnings: &[analysis::Warning]) -> String {
    warnings
        .iter()
        .map(|w| format!("\n> **Warning:** {w}\n"))
        .collect()
}

#[cfg(test)]
mod tests {
    /// Bug (issue 20): Markdown reports wrote values raw, so a URL holding
    /// `<img onerror=…>` became markup wherever the report was pasted.
    #[test]
    fn regression_markdown_escapes_values_as_html_does() {
        let md = "### http://h/<img src=x onerror=alert(1)>\n\n\
                  | a & b &amp; <!-- c --> | `p99<1s` | p99<20ms |\n\
                  > **Failed:** p99 > 1s </script>\n\
                  ```text\n<kept as is>\n```\n";
        assert_eq!(
            super::escape_html(md),
            "### http://h/&lt;img src=x onerror=alert(1)>\n\n\
             | a & b &amp;amp; &lt;!-- c --> | `p99<1s` | p99<20ms |\n\
             > **Failed:** p99 > 1s &lt;/script>\n\
             ```text\n<kept as is>\n```\n"
        );
        // A backtick cannot open a way out: an unclosed one is a plain character.
        assert_eq!(super::escape_html("`<x>"), "`&lt;x>");
        assert_eq!(
            super::md_table(&["u"], &[super::Align::Left], &[vec!["a|b\nc".into()]]),
            "| u |\n|:--|\n| a\\|b c |\n"
        );
    }

    use super::*;

    #[test]
    fn table_escapes_pipes() {
        let t = md_table(
            &["a", "b"],
            &[Align::Left, Align::Right],
            &[vec!["x|y".into(), "1".into()]],
        );
        assert_eq!(t, "| a | b |\n|:--|--:|\n| x\\|y | 1 |\n");
    }
}
