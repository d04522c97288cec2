//! `hakaru report` and `hakaru compare` on bulk-write results: the chapter's table,
//! what must not be hidden (413s, truncated batches, modes ignored, `--verify`), and
//! the charts against batch size (docs/s, latency p50/p99), one line per writer
//! count, as HTML, SVG, PNG and Markdown. A bulk run is read from its JSON (beside a
//! CSV given instead), which keeps what the charts need per step.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::report::bulk::{bulk_summary, cut_off, explanations, mode_warnings, verify_summary};
use crate::report::chart::{self, esc, LineChart};
use crate::report::fmt::{fmt_latency, fmt_qps};
use crate::report::output::{sibling, OutputPlan, Rendered, ReportError};
use crate::report::ReportOptions;
use crate::result::RunResult;

/// What a bulk run's report is called: what was written where ("couchdb bulk writes
/// to 127.0.0.1:5984/bench"), as the run recorded it; the file's stem when it records
/// no URL.
pub fn run_name(run: &RunResult, path: &Path) -> String {
    let url = run.settings.patterns_source.trim_start_matches("http://");
    match (&run.settings.bulk, url.is_empty()) {
        (Some(b), false) => format!("{} bulk writes to {url}", b.target),
        (None, false) => format!("bulk writes to {url}"),
        (_, true) => path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| path.display().to_string()),
    }
}

/// The two charts of one or several bulk runs.
pub fn bulk_charts(runs: &[(&str, &RunResult)], opts: &ReportOptions) -> [LineChart; 2] {
    [
        crate::report::bulk::chart::bulk_docs_chart(runs),
        crate::report::bulk::chart::bulk_latency_chart(runs, opts.chart),
    ]
}

fn steps_table(run: &RunResult) -> String {
    let mut o = String::from(
        "<div class=\"scroll\"><table><thead><tr><th>batch</th><th>writers</th><th>docs/s</th>\
         <th>req/s</th><th>MB/s sent</th><th>p50</th><th>p99</th><th>max</th>\
         <th>acknowledged</th><th>item errors</th><th>statuses</th></tr></thead><tbody>",
    );
    for s in &run.steps {
        let b = s.bulk.clone().unwrap_or_default();
        let lat = |v: f64| {
            if s.responses == 0 {
                "-".to_string()
            } else {
                fmt_latency(v)
            }
        };
        let errors = if b.item_errors.is_empty() {
            "-".to_string()
        } else {
            b.item_errors
                .iter()
                .map(|(k, n)| format!("{k} {n}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let statuses: Vec<String> = s
            .statuses
            .iter()
            .map(|(c, n)| format!("{c}×{n}"))
            .chain(s.errors.iter().map(|(k, n)| format!("{k}×{n}")))
            .collect();
        let _ = write!(
            o,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{:.2}</td><td>{}</td><td>{}</td>\
             <td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            b.batch_size,
            b.writers,
            fmt_qps(b.docs_per_s),
            fmt_qps(s.qps),
            s.bytes_sent as f64 / s.elapsed_s.max(1e-9) / 1e6,
            lat(s.latency.p50_s),
            lat(s.latency.p99_s),
            lat(s.latency.max_s),
            b.docs_acknowledged,
            esc(&errors),
            esc(&statuses.join(" "))
        );
    }
    o.push_str("</tbody></table></div>");
    o
}

/// What a run's reader must see: explanations, ignored modes, `--verify`.
fn run_notes(run: &RunResult) -> String {
    let mut o = String::new();
    for e in explanations(run).into_iter().chain(cut_off(run)) {
        let _ = write!(o, "<p>{}</p>", crate::report::page::rich(&e));
    }
    if let Some(v) = &run.verify {
        for line in verify_summary(v).lines() {
            let _ = write!(o, "<p>{}</p>", crate::report::page::rich(line.trim()));
        }
    }
    o.push_str(&crate::report::page::warnings_box(&mode_warnings(run)));
    o
}

fn setup_line(run: &RunResult) -> String {
    let Some(b) = &run.settings.bulk else {
        return String::new();
    };
    let mut parts = vec![
        format!("target {}", b.target),
        format!("document {}", b.doc),
        format!("IDs {}", b.ids),
    ];
    if b.single {
        parts.push("single inserts".into());
    }
    if b.batch_ok {
        parts.push("batch=ok".into());
    }
    if b.full_commit {
        parts.push("full commit".into());
    }
    if let Some(a) = &b.action {
        parts.push(format!("action {a}"));
    }
    format!(
        "{}; latency is per request; {}",
        parts.join(", "),
        run.targets.join(", ")
    )
}

/// One page for one or several bulk runs.
pub fn bulk_html(runs: &[(&str, &RunResult)], opts: &ReportOptions) -> String {
    let labels: Vec<&str> = runs.iter().map(|(l, _)| *l).collect();
    let mut b = String::new();
    let _ = write!(
        b,
        "<h1>{}</h1><p class=\"sub\">Bulk writes: documents per second and latency by batch size and parallel writers</p>",
        esc(&labels.join(" · "))
    );
    // One run's report leads with its thresholds' verdicts (a comparison leaves them to
    // each run's own report).
    if let [(_, run)] = runs {
        b.push_str(&crate::report::sections::verdict_sections(run));
    }
    if let Some(w) = differences(runs) {
        b.push_str(&crate::report::page::warnings_box(&[w]));
    }
    for c in bulk_charts(runs, opts) {
        let _ = write!(
            b,
            "<section>{}<p class=\"note\">{}</p></section>",
            chart::render_line_chart(&c),
            c.notes
                .iter()
                .map(|n| crate::report::page::rich(n))
                .collect::<Vec<_>>()
                .join(" ")
        );
    }
    for (label, run) in runs {
        let _ = write!(
            b,
            "<section><h2>{}</h2><p class=\"note\">{}</p>{}{}",
            esc(label),
            esc(&setup_line(run)),
            steps_table(run),
            run_notes(run)
        );
        if !run.command_line.is_empty() {
            let _ = write!(
                b,
                "<p>Command: <code>{}</code></p>",
                esc(&run.command_line.join(" "))
            );
        }
        b.push_str("</section>");
    }
    crate::report::page::page(&format!("{} — hakaru bulk report", labels.join(", ")), &b)
}

/// The runs' tables in Markdown.
pub fn bulk_markdown(runs: &[(&str, &RunResult)]) -> String {
    let mut o = String::new();
    if let Some(w) = differences(runs) {
        let _ = writeln!(o, "> **Warning:** {w}\n");
    }
    for (label, run) in runs {
        let _ = writeln!(o, "## {label}\n\n{}\n", setup_line(run));
        if let (Some(t), 1) = (&run.thresholds, runs.len()) {
            let _ = writeln!(
                o,
                "{}",
                crate::report::threshold::threshold_markdown(run, t)
            );
        }
        o.push_str("| batch | writers | docs/s | req/s | p50 | p99 | acknowledged | item errors |\n|---:|---:|---:|---:|---:|---:|---:|---|\n");
        for s in &run.steps {
            let bk = s.bulk.clone().unwrap_or_default();
            let errors: Vec<String> = bk
                .item_errors
                .iter()
                .map(|(k, n)| format!("{k} {n}"))
                .collect();
            let _ = writeln!(
                o,
                "| {} | {} | {} | {} | {} | {} | {} | {} |",
                bk.batch_size,
                bk.writers,
                fmt_qps(bk.docs_per_s),
                fmt_qps(s.qps),
                fmt_latency(s.latency.p50_s),
                fmt_latency(s.latency.p99_s),
                bk.docs_acknowledged,
                if errors.is_empty() {
                    "-".into()
                } else {
                    errors.join(", ")
                }
            );
        }
        for e in explanations(run) {
            let _ = writeln!(o, "\n{e}");
        }
        for w in mode_warnings(run) {
            let _ = writeln!(o, "\n> **Warning:** {w}");
        }
        o.push('\n');
    }
    o
}

/// The one line saying how compared bulk runs differ, when they do.
fn differences(runs: &[(&str, &RunResult)]) -> Option<String> {
    crate::report::findings::bulk_difference_line(&crate::analysis::bulk_differences(runs))
}

/// The charts beside `base` as SVG and/or PNG.
fn bulk_chart_files(
    runs: &[(&str, &RunResult)],
    base: &Path,
    plan: &OutputPlan,
    out: &mut Rendered,
) -> Result<(), ReportError> {
    let [docs, latency] = bulk_charts(runs, &plan.options);
    out.charts(
        [
            ("-docs".to_string(), &docs),
            ("-latency".to_string(), &latency),
        ],
        base,
        plan,
    )
}

/// `hakaru report` on a bulk run.
pub fn report(path: &Path, run: &RunResult, plan: &OutputPlan) -> Result<Rendered, ReportError> {
    let label = run_name(run, path);
    let runs = [(label.as_str(), run)];
    let mut out = Rendered::default();
    let html_path = plan.html.clone().unwrap_or_else(|| sibling(path, "html"));
    out.put(html_path.clone(), bulk_html(&runs, &plan.options));
    bulk_chart_files(&runs, &html_path, plan, &mut out)?;
    out.markdown(bulk_markdown(&runs), bulk_summary(run), plan);
    Ok(out)
}

/// `hakaru compare` on bulk runs.
pub fn compare(
    labels: &[String],
    runs: &[RunResult],
    plan: &OutputPlan,
) -> Result<Rendered, ReportError> {
    let pairs: Vec<(&str, &RunResult)> = labels.iter().map(String::as_str).zip(runs).collect();
    let mut out = Rendered::default();
    let base = plan
        .html
        .clone()
        .unwrap_or_else(|| PathBuf::from("compare.html"));
    if let Some(p) = &plan.html {
        out.put(p.clone(), bulk_html(&pairs, &plan.options));
    }
    bulk_chart_files(&pairs, &base, plan, &mut out)?;
    let mut text = String::new();
    if let Some(w) = differences(&pairs) {
        let _ = writeln!(text, "warning: {w}\n");
    }
    for (label, run) in &pairs {
        let _ = writeln!(text, "{label}:\n{}", bulk_summary(run));
    }
    out.markdown(bulk_markdown(&pairs), text, plan);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::result::fixture::{bare_step, run};
    use crate::result::{BulkSettingsResult, BulkStepResult, Mode};

    #[test]
    fn a_bulk_report_is_titled_by_what_was_written_where_not_by_its_file() {
        let mut s = bare_step(2);
        s.responses = 10;
        s.bulk = Some(BulkStepResult {
            batch_size: 100,
            writers: 2,
            docs_acknowledged: 1000,
            docs_per_s: 5000.0,
            item_errors: Default::default(),
        });
        let mut r = run(vec![s]);
        r.mode = Mode::Bulk;
        r.settings.patterns_source = "http://127.0.0.1:5984/bench".into();
        r.settings.bulk = Some(BulkSettingsResult {
            target: "couchdb".into(),
            ..Default::default()
        });
        let name = run_name(&r, Path::new("/tmp/out/bulk.json"));
        assert_eq!(name, "couchdb bulk writes to 127.0.0.1:5984/bench");
        let html = bulk_html(&[(name.as_str(), &r)], &ReportOptions::default());
        assert!(
            html.contains("<h1>couchdb bulk writes to 127.0.0.1:5984/bench</h1>"),
            "{html}"
        );
        assert!(
            html.contains(
                "Documents per second by batch size — couchdb bulk writes to 127.0.0.1:5984/bench"
            ),
            "{html}"
        );
        assert!(!html.contains("— bulk<"), "{html}");
        r.settings.patterns_source.clear();
        assert_eq!(run_name(&r, Path::new("/tmp/out/bulk.json")), "bulk");
    }

    fn bulk_run(doc: &str, steps: &[(usize, u64)]) -> RunResult {
        let mut r = run(steps
            .iter()
            .map(|&(writers, batch_size)| {
                let mut s = bare_step(writers);
                s.bulk = Some(BulkStepResult {
                    batch_size,
                    writers,
                    ..Default::default()
                });
                s
            })
            .collect());
        r.mode = Mode::Bulk;
        r.settings.bulk = Some(BulkSettingsResult {
            target: "couchdb".into(),
            doc: doc.into(),
            ..Default::default()
        });
        r
    }

    #[test]
    fn compared_bulk_runs_that_wrote_differently_are_called_out_in_one_line() {
        let a = bulk_run(r#"{"n":1}"#, &[(1, 10), (2, 10), (1, 100), (2, 100)]);
        let same = bulk_run(r#"{"n":1}"#, &[(1, 10), (2, 10), (1, 100), (2, 100)]);
        assert_eq!(differences(&[("a", &a), ("b", &same)]), None);
        let mut b = bulk_run(
            &format!(r#"{{"text":"{}"}}"#, "x".repeat(1000)),
            &[(4, 1000)],
        );
        b.settings.bulk.as_mut().unwrap().target = "elasticsearch".into();
        b.settings.bulk.as_mut().unwrap().action = Some("create".into());
        let line = "these bulk runs differ in target (a couchdb, b elasticsearch), action \
                    (a none, b create), document (a {\"n\":1} (7 B), b {\"text\":\"xxxxxxxxxxxxxxxxxxxxxxx… \
                    (1011 B)) and writers × batch (a 1,2 × 10,100, b 4 × 1000): their documents \
                    per second measure different work, so the comparison may not mean what it seems";
        assert_eq!(differences(&[("a", &a), ("b", &b)]).as_deref(), Some(line));
        let pairs = [("a", &a), ("b", &b)];
        assert!(bulk_markdown(&pairs).starts_with(&format!("> **Warning:** {line}\n\n## a")));
        assert!(bulk_html(&pairs, &ReportOptions::default())
            .contains("<strong>Warning:</strong> these bulk runs differ in target"));
        // Only --verify differs: named alone.
        let mut v = same.clone();
        v.verify = Some(Default::default());
        assert_eq!(
            crate::analysis::bulk_differences(&[("a", &a), ("v", &v)])
                .iter()
                .map(|d| d.what)
                .collect::<Vec<_>>(),
            ["verify"]
        );
    }
}
