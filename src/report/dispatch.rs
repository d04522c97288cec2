//! `hakaru report` and `hakaru compare`: the renderer each kind of result takes (a
//! run or ramp, a `--find-max` search, a scenario, a bulk run), asked for the files and
//! the text, which [`crate::report::output`] then writes. The renderers below it
//! touch no file.

use std::path::{Path, PathBuf};

use crate::report::chart;
use crate::report::output::{sibling, MarkdownTo, OutputPlan, Rendered, ReportError, Written};
use crate::report::run::compare::{compare_html, compare_markdown_with, compare_text_with};
use crate::report::run::html::{chart_pngs, chart_svgs, html_page};
use crate::report::run::markdown::markdown_report_with;
use crate::result::read::{read_result_and_run, read_results};
use crate::result::series::Series;
use crate::result::RunResult;

/// Charts of series beside `base` as SVG and/or PNG.
pub(crate) fn series_charts(
    series: &[&Series],
    base: &Path,
    plan: &OutputPlan,
    out: &mut Rendered,
) -> Result<(), ReportError> {
    if plan.svg {
        for (suffix, svg) in chart_svgs(series, &plan.options) {
            out.put(sibling(base, &suffix), svg);
        }
    }
    if plan.png {
        for (suffix, bytes) in chart_pngs(series, &plan.options).map_err(ReportError::Png)? {
            out.put(sibling(base, &suffix), bytes);
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
    render_report(result, plan, judged)?.write()
}

/// The files and text of [`run_report_with`], not yet written.
pub fn render_report(
    result: &Path,
    plan: &OutputPlan,
    judged: Option<&RunResult>,
) -> Result<Rendered, ReportError> {
    if let Some(run) = judged.filter(|r| r.mode == crate::result::Mode::Bulk) {
        return crate::report::bulk::page::report(result, run, plan);
    }
    if let Some(run) = crate::result::read::read_bulk(result) {
        return crate::report::bulk::page::report(result, &run, plan);
    }
    let (mut s, mut read) = read_result_and_run(result)?;
    if let Some(r) = read.as_mut() {
        crate::analysis::segments::judge_steps(r);
    }
    let run = judged.or(read.as_ref());
    if let Some(r) = run {
        with_profiles(&mut s, r);
    }
    let mut out = Rendered::default();
    let html_path = plan.html.clone().unwrap_or_else(|| sibling(result, "html"));
    let search = run.and_then(|r| r.find_max.as_ref().map(|fm| (r, fm)));
    let body = |shown: &Series| match search {
        Some((r, fm)) => crate::report::find_max::html_body(r, fm, shown, &plan.options),
        None => String::new(),
    };
    let body: Option<crate::report::run::html::Body<'_>> = search.map(|_| &body as _);
    out.put(html_path.clone(), html_page(&s, run, &plan.options, body));
    let find_max = run.and_then(|r| r.find_max.as_ref().map(|fm| (r, fm)));
    match find_max {
        // A search's probes ran in no order of rate: drawn by rate.
        Some((r, fm)) => {
            series_charts(
                &[&crate::report::chart::by_rate(&s)],
                &html_path,
                plan,
                &mut out,
            )?;
            let mut charts = crate::report::find_max::find_max_charts(r, fm, &plan.options);
            for (_, c) in &mut charts {
                c.title = format!("{} — {}", c.title, s.name());
            }
            out.charts(
                charts.iter().map(|(suffix, c)| (suffix.to_string(), c)),
                &html_path,
                plan,
            )?;
        }
        None => {
            series_charts(&[&s], &html_path, plan, &mut out)?;
            // Over time and by kind of request: what only the JSON result keeps.
            if let Some(r) = run.filter(|r| r.suite.is_none()) {
                let mut charts = crate::report::over_time::charts(r);
                for (_, c) in &mut charts {
                    c.title = format!("{} — {}", c.title, s.name());
                }
                out.charts(
                    charts.iter().map(|(suffix, c)| (suffix.to_string(), c)),
                    &html_path,
                    plan,
                )?;
            }
        }
    }
    let text = if plan.markdown == Some(MarkdownTo::Stdout) {
        String::new()
    } else {
        let kind = crate::report::findings::RunKind::of(&s, run);
        let warnings = chart::warning_lines(&kind.warnings(&s));
        match (find_max, run.filter(|r| r.suite.is_some())) {
            (Some((_, fm)), _) => format!(
                "{}\n{}{warnings}",
                crate::report::find_max::probe_table(fm, crate::report::fmt::Work::of_series(&s)),
                crate::report::find_max::find_max_summary(
                    fm,
                    crate::report::fmt::Work::of_series(&s)
                )
            ),
            // A scenario reads by its phases and events, as `hakaru suite` ends.
            (None, Some(r)) => format!("{}{warnings}", crate::report::suite::text(r)),
            (None, None) => {
                let over_time = run.map(|r| crate::report::over_time::text(r, false));
                let rounds = run.map(crate::report::run::text::rounds_summary);
                // A store's last step per command, as `run` printed it.
                let per_command = run
                    .and_then(|r| Some(crate::report::run::store::text(r, r.steps.last()?)))
                    .filter(|t| !t.is_empty())
                    .map(|t| format!("\n{t}"));
                crate::report::run::rounds::terminal_summary(&s, run, 100)
                    + &over_time.unwrap_or_default()
                    + &per_command.unwrap_or_default()
                    + &rounds.unwrap_or_default()
            }
        }
    };
    out.markdown(markdown_of(&s, run), text, plan);
    Ok(out)
}

/// Each point's rate profile and its verdict as `run` keeps them (judged now, not
/// as the file was written), when the series is `run`'s steps.
fn with_profiles(s: &mut Series, run: &RunResult) {
    if s.points.len() == run.steps.len() {
        for (p, step) in s.points.iter_mut().zip(&run.steps) {
            p.profile = step.profile.clone();
        }
    }
}

/// The Markdown of a result by its kind: a search by its answer and probes, a scenario
/// by its phases and events, any other run by its steps.
fn markdown_of(s: &Series, run: Option<&RunResult>) -> String {
    match run {
        Some(r) if r.find_max.is_some() => {
            crate::report::find_max::markdown_page(s, r, r.find_max.as_ref().expect("checked"))
        }
        Some(r) if r.suite.is_some() => crate::report::suite::markdown_page(s, r),
        _ => markdown_report_with(s, run),
    }
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
        return crate::report::bulk::page::compare(&names, &bulk, plan)?.write();
    }
    let series = read_results(paths, labels)?;
    let mut out = Rendered::default();
    // What only hakaru's JSON keeps (timelines, labels, a suite's phases, a step's
    // rate profile, which decides what the runs can be compared on), for the runs
    // that have it.
    let runs: Vec<Option<RunResult>> = paths
        .iter()
        .map(|p| read_result_and_run(p).ok().and_then(|(_, r)| r))
        .collect();
    let named: Vec<(&str, &RunResult)> = series
        .iter()
        .zip(&runs)
        .filter_map(|(s, r)| r.as_ref().map(|r| (s.label.as_str(), r)))
        .collect();
    if let Some(p) = &plan.html {
        out.put(p.clone(), compare_html(&series, &named, &plan.options));
    }
    let base = plan
        .html
        .clone()
        .unwrap_or_else(|| PathBuf::from("compare.html"));
    let shown = crate::analysis::repeat::display_series(&series);
    // Charts against clients or rate are a ramp's, as on the page: a suite's phases
    // are compared in the table (two suites drew as one line at their clients).
    let refs: Vec<&Series> = shown
        .iter()
        .filter(|s| s.points_are != crate::result::series::PointsAre::Phases)
        .collect();
    if !refs.is_empty() {
        series_charts(&refs, &base, plan, &mut out)?;
    }
    out.markdown(
        compare_markdown_with(&series, &named),
        compare_text_with(&series, &named),
        plan,
    );
    out.write()
}
