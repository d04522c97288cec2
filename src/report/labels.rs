//! A step broken down by kind of request — Gatling's per-request table, Locust's
//! per-name rows: per label (a drnbench group, a pattern's name, a suite workload, a
//! bulk or YCSB operation), its count and share, rate, p50/p99/max and failures. The
//! same rows for the terminal (`--verbose`), Markdown and HTML.

use crate::report::chart::esc;
use crate::report::fmt::{fmt_latency, fmt_qps, fmt_share};
use crate::report::table::{md_table, Align};
use crate::result::{LabelResult, RunResult, StepResult};
use crate::stats::labels::counts_requests;

const HEADERS: [&str; 8] = [
    "label", "requests", "share", "req/s", "p50", "p99", "max", "failed",
];

/// What labels stand for, named as their readers know them: a SQL run's scripts
/// (each counts transactions) and statements (`stmt=`, samples within them), a
/// store's commands; anything else HTTP's kinds of request (a YCSB `op=` too: its
/// target may be HTTP).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Request,
    Sql,
    Store,
}

fn kind_of<'a>(steps: impl IntoIterator<Item = &'a StepResult>) -> Kind {
    let keys: Vec<&str> = steps
        .into_iter()
        .flat_map(|s| s.labels.iter().map(|l| l.key.as_str()))
        .collect();
    let all = |f: &dyn Fn(&str) -> bool| !keys.is_empty() && keys.iter().all(|k| f(k));
    if all(&|k| k == "script" || !counts_requests(k)) {
        Kind::Sql
    } else if all(&|k| k == "command") {
        Kind::Store
    } else {
        Kind::Request
    }
}

fn headers(kind: Kind) -> [&'static str; 8] {
    let (count, rate) = match kind {
        Kind::Request => return HEADERS,
        // A script's count is its transactions, a statement's its executions.
        Kind::Sql => ("count", "per s"),
        Kind::Store => ("commands", "ops/s"),
    };
    let mut h = HEADERS;
    (h[1], h[3]) = (count, rate);
    h
}

/// The heading over a run's label tables: "By kind of request", a SQL run's "By
/// script and statement", a store's "By command".
pub fn heading(run: &RunResult) -> &'static str {
    heading_of(kind_of(&run.steps))
}

fn heading_of(kind: Kind) -> &'static str {
    match kind {
        Kind::Request => "By kind of request",
        Kind::Sql => "By script and statement",
        Kind::Store => "By command",
    }
}

/// Failures of a label: errors and responses whose status is not a success.
fn failed(l: &LabelResult, ok: &crate::stats::OkStatus) -> u64 {
    let bad: u64 = l
        .statuses
        .iter()
        .filter(|(s, _)| !ok.contains(**s))
        .map(|(_, n)| n)
        .sum();
    l.errors.values().sum::<u64>() + bad
}

/// The most of a statement's text a row shows (its first line may be long).
const STATEMENT_CHARS: usize = 48;

/// A label as its row names it: a SQL statement's with its text (`statements`, the
/// result's `settings.sql_statements`), which `stmt=3` alone does not say.
fn name(l: &LabelResult, statements: &[String]) -> String {
    let text = (l.key == crate::stats::labels::SAMPLE_KEY)
        .then(|| l.value.parse::<usize>().ok())
        .flatten()
        .and_then(|n| statements.get(n.checked_sub(1)?))
        .filter(|t| !t.is_empty());
    match text {
        Some(t) if t.chars().count() > STATEMENT_CHARS => {
            let cut: String = t.chars().take(STATEMENT_CHARS - 1).collect();
            format!("{}={} {}…", l.key, l.value, cut.trim_end())
        }
        Some(t) => format!("{}={} {t}", l.key, l.value),
        None => format!("{}={}", l.key, l.value),
    }
}

/// The rows' cells, busiest label first; empty when the step has fewer than two labels
/// (one label says nothing the step's own figures do not).
fn rows(step: &StepResult, statements: &[String]) -> Vec<Vec<String>> {
    if step.labels.len() < 2 {
        return Vec::new();
    }
    // Only request labels add up to the step; a statement's (`stmt=`) share is none.
    let total: u64 = step
        .labels
        .iter()
        .filter(|l| counts_requests(&l.key))
        .map(|l| l.total_requests)
        .sum();
    let mut labels: Vec<&LabelResult> = step.labels.iter().collect();
    labels.sort_by_key(|l| std::cmp::Reverse(l.total_requests));
    if kind_of([step]) == Kind::Sql {
        // Scripts first, then the statements by number, as pgbench's -r lists them:
        // by count they interleaved (stmt=6 above stmt=1, a script among them).
        labels.sort_by_key(|l| (l.key != "script", l.value.parse::<u64>().unwrap_or(0)));
    }
    labels
        .into_iter()
        .map(|l| {
            let f = failed(l, &step.ok_status);
            let answered = l.responses > 0;
            let lat = |v: f64| {
                if answered {
                    fmt_latency(v)
                } else {
                    "-".into()
                }
            };
            vec![
                name(l, statements),
                l.total_requests.to_string(),
                if counts_requests(&l.key) {
                    fmt_share(l.total_requests as f64 * 100.0 / total.max(1) as f64)
                } else {
                    "-".into()
                },
                fmt_qps(l.total_requests as f64 / step.elapsed_s.max(1e-9)),
                lat(l.latency.p50_s),
                lat(l.latency.p99_s),
                lat(l.latency.max_s),
                if f == 0 {
                    "0".into()
                } else {
                    let share = f as f64 * 100.0 / l.total_requests.max(1) as f64;
                    format!("{f} ({})", fmt_share(share))
                },
            ]
        })
        .collect()
}

/// Aligned columns for the terminal, under a heading; empty without labels.
pub fn text(step: &StepResult) -> String {
    text_with(step, &[])
}

/// [`text`], a SQL run's statements named by their text (`settings.sql_statements`).
pub fn text_with(step: &StepResult, statements: &[String]) -> String {
    let rows = rows(step, statements);
    if rows.is_empty() {
        return String::new();
    }
    let kind = kind_of([step]);
    let headers = headers(kind);
    let widths: Vec<usize> = (0..HEADERS.len())
        .map(|c| {
            rows.iter()
                .map(|r| r[c].chars().count())
                .chain([headers[c].len()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let line = |cells: &[&str]| {
        let mut o = String::from(" ");
        for (c, cell) in cells.iter().enumerate() {
            let pad = widths[c].saturating_sub(cell.chars().count());
            if c == 0 {
                o.push_str(&format!(" {cell}{}", " ".repeat(pad)));
            } else {
                o.push_str(&format!("  {}{cell}", " ".repeat(pad)));
            }
        }
        o.trim_end().to_owned() + "\n"
    };
    let mut o = format!("{}:\n", heading_of(kind));
    o.push_str(&line(&headers));
    for r in &rows {
        let cells: Vec<&str> = r.iter().map(String::as_str).collect();
        o.push_str(&line(&cells));
    }
    if let Some(note) = &step.labels_note {
        o.push_str(&format!("  {note}\n"));
    }
    o
}

/// A Markdown table; empty without labels.
pub fn markdown(step: &StepResult) -> String {
    markdown_with(step, &[])
}

/// [`markdown`], a SQL run's statements named by their text.
pub fn markdown_with(step: &StepResult, statements: &[String]) -> String {
    let rows = rows(step, statements);
    if rows.is_empty() {
        return String::new();
    }
    let mut aligns = vec![Align::Right; HEADERS.len()];
    aligns[0] = Align::Left;
    let mut o = md_table(&headers(kind_of([step])), &aligns, &rows);
    if let Some(note) = &step.labels_note {
        o.push_str(&format!("\n{note}\n"));
    }
    o
}

/// An HTML table; empty without labels.
pub fn html(step: &StepResult) -> String {
    html_with(step, &[])
}

/// [`html`], a SQL run's statements named by their text.
pub fn html_with(step: &StepResult, statements: &[String]) -> String {
    let rows = rows(step, statements);
    if rows.is_empty() {
        return String::new();
    }
    let mut o = String::from("<table class=\"labels\"><thead><tr>");
    for h in headers(kind_of([step])) {
        o.push_str(&format!("<th>{}</th>", esc(h)));
    }
    o.push_str("</tr></thead><tbody>");
    for r in &rows {
        o.push_str("<tr>");
        for (c, cell) in r.iter().enumerate() {
            let class = if c == 0 { "" } else { " class=\"num\"" };
            o.push_str(&format!("<td{class}>{}</td>", esc(cell)));
        }
        o.push_str("</tr>");
    }
    o.push_str("</tbody></table>");
    if let Some(note) = &step.labels_note {
        o.push_str(&format!("<p class=\"note\">{}</p>", esc(note)));
    }
    o
}

/// Several runs side by side per label (`compare`): for each label any run has, each
/// run's p99 and rate in its last step (where a ramp ends, a single step's own). Empty
/// when no run has two labels.
pub fn compare_html(runs: &[(&str, &RunResult)]) -> String {
    let last: Vec<(&str, &StepResult)> = runs
        .iter()
        .filter_map(|(n, r)| r.steps.last().map(|s| (*n, s)))
        .collect();
    let mut keys: Vec<(String, String)> = Vec::new();
    for (_, s) in &last {
        for l in &s.labels {
            let k = (l.key.clone(), l.value.clone());
            if !keys.contains(&k) {
                keys.push(k);
            }
        }
    }
    if keys.len() < 2 {
        return String::new();
    }
    // SQL runs' scripts and statements ("per s"), stores' commands ("ops/s").
    let kind = kind_of(last.iter().map(|(_, s)| *s));
    let mut o = format!(
        "<section class=\"labels\"><h2>{}</h2><div class=\"scroll\"><table><thead><tr><th>label</th>",
        heading_of(kind)
    );
    let rate = headers(kind)[3];
    for (n, _) in &last {
        o.push_str(&format!(
            "<th>{} p99</th><th>{} {rate}</th>",
            esc(n),
            esc(n)
        ));
    }
    o.push_str("</tr></thead><tbody>");
    for (key, value) in &keys {
        o.push_str(&format!("<tr><td>{}={}</td>", esc(key), esc(value)));
        for (_, s) in &last {
            match s.labels.iter().find(|l| &l.key == key && &l.value == value) {
                Some(l) => o.push_str(&format!(
                    "<td class=\"num\">{}</td><td class=\"num\">{}</td>",
                    esc(&fmt_latency(l.latency.p99_s)),
                    esc(&fmt_qps(l.total_requests as f64 / s.elapsed_s.max(1e-9)))
                )),
                None => o.push_str("<td>-</td><td>-</td>"),
            }
        }
        o.push_str("</tr>");
    }
    o.push_str("</tbody></table></div><p class=\"note\">Each run's last step.</p></section>");
    o
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::result::fixture::bare_step;
    use crate::result::LatencySummary;
    use std::collections::BTreeMap;

    /// A label of key `key` (a SQL run's `script` or `stmt`), 2 ms at p99.
    fn keyed(key: &str, value: &str, n: u64) -> LabelResult {
        let mut l = label(value, n, 2.0, 0);
        l.key = key.into();
        l
    }

    fn label(value: &str, requests: u64, p99_ms: f64, bad: u64) -> LabelResult {
        LabelResult {
            key: "group".into(),
            value: value.into(),
            total_requests: requests,
            responses: requests,
            statuses: BTreeMap::from([(200, requests - bad), (500, bad)]),
            errors: BTreeMap::new(),
            bytes_received: 0,
            latency: LatencySummary {
                count: requests,
                mean_s: p99_ms / 2e3,
                p50_s: p99_ms / 2e3,
                p99_s: p99_ms / 1e3,
                max_s: p99_ms / 1e3,
                ..LatencySummary::default()
            },
            histogram: String::new(),
            timeline: None,
        }
    }

    #[test]
    fn two_groups_give_two_rows_busiest_first() {
        let mut step = bare_step(4);
        step.elapsed_s = 10.0;
        step.labels = vec![label("load", 100, 40.0, 3), label("search", 900, 2.0, 0)];
        let t = text(&step);
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines.len(), 4, "{t}");
        assert!(lines[2].trim_start().starts_with("group=search"), "{t}");
        assert!(
            lines[2].contains("90.0%") && lines[2].contains("90.0"),
            "{t}"
        );
        assert!(lines[3].contains("3 (3.00%)"), "{t}");
        assert!(markdown(&step).contains("| group=load | 100 |"));
        assert!(html(&step).contains("<td>group=search</td>"));
        // One label says nothing more than the step.
        step.labels.truncate(1);
        assert_eq!(
            (text(&step), markdown(&step), html(&step)),
            Default::default()
        );
    }

    #[test]
    fn a_statement_s_label_has_no_share_and_the_requests_share_their_total() {
        let mut step = bare_step(4);
        step.elapsed_s = 10.0;
        let mut stmt = label("1", 900, 2.0, 0);
        stmt.key = "stmt".into();
        step.labels = vec![label("a", 300, 9.0, 0), label("b", 100, 9.0, 0), stmt];
        let md = markdown(&step);
        assert!(md.contains("| group=a | 300 | 75.0% |"), "{md}");
        assert!(md.contains("| stmt=1 | 900 | - |"), "{md}");
    }

    /// A SQL run's rows were by count: `stmt=6` above `stmt=1`, scripts among the
    /// statements. Now its scripts come first (busiest first), then its statements
    /// in their numbers' order.
    #[test]
    fn a_sql_run_s_rows_are_its_scripts_then_its_statements_by_number() {
        let mut step = bare_step(4);
        step.elapsed_s = 10.0;
        step.labels = vec![
            keyed("script", "a.sql", 700),
            keyed("stmt", "1", 700),
            keyed("stmt", "10", 300),
            keyed("stmt", "2", 200),
            keyed("script", "b.sql", 300),
            keyed("stmt", "9", 900),
        ];
        let md = markdown(&step);
        let order: Vec<&str> = md
            .lines()
            .skip(2)
            .map(|l| l.split(" | ").next().unwrap_or("").trim_start_matches("| "))
            .collect();
        assert_eq!(
            order,
            [
                "script=a.sql",
                "script=b.sql",
                "stmt=1",
                "stmt=2",
                "stmt=9",
                "stmt=10"
            ],
            "{md}"
        );
    }

    /// The bug: a SQL run's statements were tabled as `stmt=1`…`stmt=5` alone, and
    /// nothing on the page or in the result said which statement was which. The
    /// result keeps them (`settings.sql_statements`), and each row names its own.
    #[test]
    fn a_sql_statement_s_row_names_its_text() {
        let mut step = bare_step(4);
        step.elapsed_s = 10.0;
        step.labels = vec![
            keyed("stmt", "1", 700),
            keyed("stmt", "2", 700),
            keyed("stmt", "3", 300),
        ];
        let statements = [
            "BEGIN;".to_string(),
            "UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;".into(),
        ];
        let md = markdown_with(&step, &statements);
        assert!(md.contains("| stmt=1 BEGIN; | 700 |"), "{md}");
        assert!(
            md.contains("| stmt=2 UPDATE pgbench_accounts SET abalance = abalance… | 700 |"),
            "{md}"
        );
        // One past the list (an older file's, or none kept): the label alone.
        assert!(md.contains("| stmt=3 | 300 |"), "{md}");
        assert!(html_with(&step, &statements).contains("<td>stmt=1 BEGIN;</td>"));
        assert!(text_with(&step, &statements).contains("stmt=1 BEGIN;"));
        assert!(markdown(&step).contains("| stmt=1 | 700 |"));
    }

    /// A SQL run's labels (its scripts and statements) were tabled "By kind of
    /// request" with "requests" and "req/s"; a store's commands likewise.
    #[test]
    fn a_sql_run_s_labels_are_scripts_and_statements_never_requests() {
        let mut step = bare_step(2);
        step.elapsed_s = 10.0;
        let (mut script, mut stmt) = (label("select.sql", 900, 2.0, 0), label("1", 900, 1.0, 0));
        (script.key, stmt.key) = ("script".into(), "stmt".into());
        step.labels = vec![script, stmt];
        let t = text(&step);
        assert!(t.starts_with("By script and statement:\n"), "{t}");
        assert!(
            t.lines().nth(1).unwrap().contains(" count  share  per s "),
            "{t}"
        );
        assert!(html(&step).contains("<th>count</th><th>share</th><th>per s</th>"));
        assert!(!markdown(&step).contains("req"), "{}", markdown(&step));
        let mut r = crate::result::fixture::run(vec![step.clone()]);
        assert_eq!(heading(&r), "By script and statement");
        for l in &mut r.steps[0].labels {
            l.key = "command".into();
        }
        assert_eq!(heading(&r), "By command");
        assert!(text(&r.steps[0])
            .lines()
            .nth(1)
            .unwrap()
            .contains("commands  share  ops/s"));
        r.steps[0].labels[0].key = "group".into();
        assert_eq!(heading(&r), "By kind of request");
    }

    /// `compare` of two SQL runs headed their labels "By kind of request" with each
    /// run's "req/s": a SQL run's are scripts and statements, a store's commands.
    #[test]
    fn compared_sql_runs_labels_are_scripts_and_statements_never_req_s() {
        let mut step = bare_step(2);
        step.elapsed_s = 10.0;
        let (mut script, mut stmt) = (label("tx.sql", 900, 2.0, 0), label("1", 900, 1.0, 0));
        (script.key, stmt.key) = ("script".into(), "stmt".into());
        step.labels = vec![script, stmt];
        let r = crate::result::fixture::run(vec![step]);
        let h = compare_html(&[("a", &r), ("b", &r)]);
        assert!(h.contains("<h2>By script and statement</h2>"), "{h}");
        assert!(h.contains("<th>a p99</th><th>a per s</th>"), "{h}");
        assert!(!h.contains("req"), "{h}");
        let mut kv = r.clone();
        for l in &mut kv.steps[0].labels {
            l.key = "command".into();
        }
        let h = compare_html(&[("a", &kv), ("b", &kv)]);
        assert!(
            h.contains("<h2>By command</h2>") && h.contains("<th>b ops/s</th>"),
            "{h}"
        );
        let mut http = r.clone();
        for l in &mut http.steps[0].labels {
            l.key = "group".into();
        }
        let h = compare_html(&[("a", &http), ("b", &http)]);
        assert!(
            h.contains("<h2>By kind of request</h2>") && h.contains("<th>b req/s</th>"),
            "{h}"
        );
    }
}
