//! The files `hakaru report` and `hakaru compare` write: which ones (an [`OutputPlan`]),
//! reading the results, asking the renderers for the bytes and putting each file on
//! disk atomically. The renderers themselves touch no file.

use std::path::{Path, PathBuf};

use crate::report::chart;
use crate::report::compare::{compare_html, compare_markdown, compare_text};
use crate::report::html::{chart_svgs, html_report_with};
use crate::report::markdown::markdown_report_with;
use crate::report::png::chart_pngs;
use crate::result::read::{read_result_and_run, read_results};
use crate::report::ReportOptions;
use crate::result::RunResult;
use crate::result::series::Series;

/// `path` with its extension replaced by `suffix` (e.g. "html", "-latency.svg").
pub fn sibling(path: &Path, suffix: &str) -> PathBuf {
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "report".into());
    let name = if suffix.starts_with('-') || suffix.starts_with('.') {
        format!("{stem}{suffix}")
    } else {
        format!("{stem}.{suffix}")
    };
    path.with_file_name(name)
}

/// Why a report could not be written.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error(transparent)]
    Read(#[from] crate::result::read::ReadError),
    #[error("{path}: cannot write: {error}")]
    Write {
        path: PathBuf,
        error: std::io::Error,
    },
    #[error("{0}")]
    Png(String),
    #[error("--label gives {labels} label(s) for {files} file(s); give one per file")]
    LabelCount { labels: usize, files: usize },
}

/// Writes a report file atomically ([`crate::result::store::write_atomic`]), naming it on error.
pub fn write_atomic(path: &Path, contents: &[u8]) -> Result<(), ReportError> {
    crate::result::store::write_atomic(path, contents).map_err(|error| ReportError::Write {
        path: path.to_owned(),
        error,
    })
}

/// Where Markdown goes.
#[derive(Debug, Clone, PartialEq)]
pub enum MarkdownTo {
    Stdout,
    File(PathBuf),
}

/// What `hakaru report` and `hakaru compare` should write.
#[derive(Debug, Clone, Default)]
pub struct OutputPlan {
    /// The HTML page.
    pub html: Option<PathBuf>,
    /// Write the two charts as SVG next to the HTML (`<stem>-throughput.svg`, …).
    pub svg: bool,
    /// Same as PNG.
    pub png: bool,
    pub markdown: Option<MarkdownTo>,
    pub options: ReportOptions,
}

/// What was written, for the CLI to tell the user; `stdout` is text to print.
#[derive(Debug, Clone, Default)]
pub struct Written {
    pub files: Vec<PathBuf>,
    pub stdout: String,
}

/// Writes the charts of `series` next to `base` as SVG and/or PNG.
pub(crate) fn write_charts(
    series: &[&Series],
    base: &Path,
    plan: &OutputPlan,
    out: &mut Written,
) -> Result<(), ReportError> {
    if plan.svg {
        for (suffix, svg) in chart_svgs(series, &plan.options) {
            let p = sibling(base, &suffix);
            write_atomic(&p, svg.as_bytes())?;
            out.files.push(p);
        }
    }
    if plan.png {
        for (suffix, bytes) in chart_pngs(series, &plan.options)? {
            let p = sibling(base, &suffix);
            write_atomic(&p, &bytes)?;
            out.files.push(p);
        }
    }
    Ok(())
}

/// `hakaru report`: reads one result and writes what the plan asks for. The terminal
/// gets the saturation summary and a text chart unless Markdown goes to stdout.
pub fn run_report(result: &Path, plan: &OutputPlan) -> Result<Written, ReportError> {
    run_report_with(result, plan, None)
}

/// [`run_report`], drawing what hakaru's JSON result keeps (thresholds' verdicts, a
/// `--find-max` search) from `judged` instead of the file when given: `report
/// --threshold` judges the result without changing it.
pub fn run_report_with(
    result: &Path,
    plan: &OutputPlan,
    judged: Option<&RunResult>,
) -> Result<Written, ReportError> {
    if let Some(run) = judged.filter(|r| r.mode == crate::result::Mode::Bulk) {
        return crate::report::bulk_page::report(result, run, plan);
    }
    if let Some(run) = crate::result::read::read_bulk(result) {
        return crate::report::bulk_page::report(result, &run, plan);
    }
    let (s, read) = read_result_and_run(result)?;
    let run = judged.or(read.as_ref());
    let mut out = Written::default();
    let html_path = plan.html.clone().unwrap_or_else(|| sibling(result, "html"));
    write_atomic(
        &html_path,
        html_report_with(&s, run, &plan.options).as_bytes(),
    )?;
    out.files.push(html_path.clone());
    let find_max = run.and_then(|r| r.find_max.as_ref().map(|fm| (r, fm)));
    match find_max {
        // A search's probes ran in no order of rate: drawn by rate.
        Some((r, fm)) => {
            write_charts(
                &[&crate::report::html::by_rate(&s)],
                &html_path,
                plan,
                &mut out,
            )?;
            let charts = crate::report::find_max::find_max_charts(r, fm, &plan.options);
            write_more_charts(&s.name(), charts, &html_path, plan, &mut out)?;
        }
        None => write_charts(&[&s], &html_path, plan, &mut out)?,
    }
    match &plan.markdown {
        Some(MarkdownTo::Stdout) => out.stdout = markdown_report_with(&s, run),
        Some(MarkdownTo::File(p)) => {
            write_atomic(p, markdown_report_with(&s, run).as_bytes())?;
            out.files.push(p.clone());
        }
        None => {}
    }
    if plan.markdown != Some(MarkdownTo::Stdout) {
        let kind = crate::report::findings::RunKind::of(&s, run);
        let warnings = chart::warning_lines(&kind.warnings(&s));
        out.stdout = match (find_max, run.filter(|r| r.suite.is_some())) {
            (Some((_, fm)), _) => format!(
                "{}\n{}{warnings}",
                crate::report::find_max::probe_table(fm),
                crate::report::find_max::find_max_summary(fm)
            ),
            // A scenario reads by its phases and events, as `hakaru suite` ends.
            (None, Some(r)) => format!("{}{warnings}", crate::report::suite::text(r)),
            (None, None) => chart::terminal_summary(&s, 100),
        };
    }
    Ok(out)
}

/// Writes charts that only hakaru's JSON result can draw (a `--find-max` search's)
/// beside `base` as SVG and/or PNG, titled with the run's `name`.
fn write_more_charts(
    name: &str,
    charts: Vec<(&'static str, chart::LineChart)>,
    base: &Path,
    plan: &OutputPlan,
    out: &mut Written,
) -> Result<(), ReportError> {
    for (suffix, mut c) in charts {
        c.title = format!("{} — {name}", c.title);
        if plan.svg {
            let p = sibling(base, &format!("{suffix}.svg"));
            let svg = format!(
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n{}\n",
                chart::render_line_chart(&c)
            );
            write_atomic(&p, svg.as_bytes())?;
            out.files.push(p);
        }
        if plan.png {
            let p = sibling(base, &format!("{suffix}.png"));
            crate::report::png::render_png(&c, &p)?;
            out.files.push(p);
        }
    }
    Ok(())
}

/// `hakaru compare`: reads the results (labels from `labels` or the file stems) and
/// writes what the plan asks for. The plain-text comparison is always returned for
/// the terminal, unless Markdown goes to stdout.
pub fn run_compare(
    paths: &[PathBuf],
    labels: Option<&[String]>,
    plan: &OutputPlan,
) -> Result<Written, ReportError> {
    if let Some(l) = labels {
        if l.len() != paths.len() {
            return Err(ReportError::LabelCount {
                labels: l.len(),
                files: paths.len(),
            });
        }
    }
    let bulk: Vec<_> = paths
        .iter()
        .filter_map(|p| crate::result::read::read_bulk(p))
        .collect();
    if !paths.is_empty() && bulk.len() == paths.len() {
        let names: Vec<String> = match labels {
            Some(l) => l.to_vec(),
            None => paths
                .iter()
                .map(|p| {
                    p.file_stem().map_or_else(
                        || p.display().to_string(),
                        |n| n.to_string_lossy().into_owned(),
                    )
                })
                .collect(),
        };
        return crate::report::bulk_page::compare(&names, &bulk, plan);
    }
    let series = read_results(paths, labels)?;
    let mut out = Written::default();
    if let Some(p) = &plan.html {
        write_atomic(p, compare_html(&series, &plan.options).as_bytes())?;
        out.files.push(p.clone());
    }
    let base = plan
        .html
        .clone()
        .unwrap_or_else(|| PathBuf::from("compare.html"));
    let shown = crate::report::compare::display_series(&series);
    let refs: Vec<&Series> = shown.iter().collect();
    write_charts(&refs, &base, plan, &mut out)?;
    match &plan.markdown {
        Some(MarkdownTo::Stdout) => out.stdout = compare_markdown(&series),
        Some(MarkdownTo::File(p)) => {
            write_atomic(p, compare_markdown(&series).as_bytes())?;
            out.files.push(p.clone());
            out.stdout = compare_text(&series);
        }
        None => out.stdout = compare_text(&series),
    }
    Ok(out)
}
