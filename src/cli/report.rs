//! `hakaru report RESULT`: one self-contained HTML page (charts inline) from a hakaru
//! JSON/CSV result or a drnbench CSV; optionally the charts as SVG/PNG and a Markdown
//! table.

use std::path::PathBuf;

use crate::report::chart::ChartOptions;
use crate::report::dispatch::render_report;
use crate::report::output::{MarkdownTo, OutputPlan};
use crate::report::ReportOptions;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Result to report on: hakaru's JSON or CSV, or drnbench's CSV.
    #[arg(value_name = "RESULT")]
    pub result: PathBuf,
    /// HTML file to write [default: RESULT with .html]; `-` prints the page on stdout.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    pub charts: ChartFlags,
    /// Check the result against thresholds (hakaru's JSON result, or its CSV with the
    /// JSON beside it); the result file is not changed.
    #[command(flatten)]
    pub thresholds: super::threshold::ThresholdArgs,
    #[command(flatten)]
    pub timeline: super::run::TimelineArgs,
}

/// The output flags `report` and `compare` share.
#[derive(clap::Args, Debug)]
pub struct ChartFlags {
    /// Also write the charts as SVG files (next to the HTML: NAME-throughput.svg, NAME-latency.svg, …).
    #[arg(long)]
    pub svg: bool,
    /// Also write the charts as PNG files (needs a TrueType font on the system).
    #[arg(long)]
    pub png: bool,
    /// Write a Markdown table to paste into a pull request: to FILE, or to stdout without one.
    #[arg(long, value_name = "FILE", num_args = 0..=1, default_missing_value = "-")]
    pub markdown: Option<PathBuf>,
    /// Draw latency on a logarithmic axis.
    #[arg(long)]
    pub log_latency: bool,
}

impl ChartFlags {
    pub fn plan(self, html: Option<PathBuf>) -> OutputPlan {
        OutputPlan {
            html,
            svg: self.svg,
            png: self.png,
            markdown: markdown_to(self.markdown),
            options: ReportOptions {
                chart: ChartOptions {
                    log_latency: self.log_latency,
                },
            },
        }
    }
}

fn markdown_to(p: Option<PathBuf>) -> Option<MarkdownTo> {
    p.map(|p| {
        if p.as_os_str() == "-" {
            MarkdownTo::Stdout
        } else {
            MarkdownTo::File(p)
        }
    })
}

/// Before anything is read: the page, the Markdown file and the JUnit file can be
/// written.
fn check_outputs(args: &Args) -> Result<(), crate::report::output::OutputError> {
    let md = args
        .charts
        .markdown
        .as_deref()
        .filter(|p| p.as_os_str() != "-");
    let more: Vec<(&'static str, &std::path::Path)> =
        [("-o", args.output.as_deref()), ("--markdown", md)]
            .into_iter()
            .filter_map(|(f, p)| Some((f, p?)))
            .collect();
    let inputs = [("the result", args.result.as_path())];
    super::finish::check_outputs(None, &args.thresholds, &more, &inputs)
}

/// What was written, said on stderr; the text for the terminal on stdout, unless
/// the page itself goes there (`-o -`).
pub(crate) fn tell(written: &crate::report::output::Written) {
    let page_on_stdout = written.files.iter().any(|f| f.as_os_str() == "-");
    if page_on_stdout {
        eprint!("{}", written.stdout);
    } else {
        print!("{}", written.stdout);
    }
    for f in written.files.iter().filter(|f| f.as_os_str() != "-") {
        eprintln!("wrote {}", f.display());
    }
}

pub fn run(args: Args) -> anyhow::Result<i32> {
    check_outputs(&args)?;
    // A log pipeline's result (watch, stream send, stream run) has its own report.
    if let Some(stream) = crate::result::read::read_stream(&args.result) {
        return report_stream(args, stream?);
    }
    let judging = !args.thresholds.thresholds.is_empty();
    // Read before any file is written, so a result thresholds cannot judge is refused
    // first; without thresholds, what the result keeps (a CSV's from the JSON beside
    // it): its scenario, its verdicts.
    let kept = if judging {
        let run = read_json_result(&args.result)?;
        args.thresholds
            .check_reading(run.mode == crate::result::Mode::Bulk)?;
        Some(run)
    } else {
        kept_result(&args.result)
    };
    let plan = args.charts.plan(args.output);
    let Some(mut run) = kept else {
        // Not hakaru's result (drnbench's CSV, a CSV alone): nothing to judge.
        tell(&render_report(&args.result, &plan, None)?.write()?);
        return Ok(crate::runner::exit::MEASURED);
    };
    crate::analysis::segments::judge_steps(&mut run);
    // The page goes to stdout (`-o -`): the text for a person goes to stderr.
    let page_on_stdout = plan.html.as_deref().is_some_and(|p| p.as_os_str() == "-");
    let markdown_on_stdout = plan.markdown == Some(MarkdownTo::Stdout);
    let result = args.result.clone();
    let timeline = &args.timeline;
    let pages: super::finish::Pages<'_> = Box::new(move |run| {
        let mut written = draw(&result, &plan, run, judging)?;
        // Second by second after the summary (not when stdout carries the page or the
        // Markdown table).
        if !page_on_stdout && !markdown_on_stdout {
            written.stdout.push_str(&timeline.text(run));
        }
        Ok(written)
    });
    let finish = super::finish::Finish {
        pages: Some(pages),
        table: !markdown_on_stdout,
        ..super::finish::Finish::new(
            &args.thresholds,
            super::args::Human::to_stderr(page_on_stdout),
            crate::runner::exit::MEASURED,
        )
    };
    // The result file is not changed: `finish` is given no result files to rewrite.
    super::finish::finish(&mut run, finish, |_| String::new())
}

/// `report`'s pages of `run` (judged just now when `judged`, so the pages show the
/// verdicts), written; the verdicts the result already keeps follow its text when
/// none were judged (Markdown on stdout has them).
fn draw(
    result: &std::path::Path,
    plan: &crate::report::output::OutputPlan,
    run: &crate::result::RunResult,
    judged: bool,
) -> anyhow::Result<crate::report::output::Written> {
    let mut rendered = render_report(result, plan, judged.then_some(run))?;
    // A scenario's page is its timeline, phases and events (`hakaru suite` writes the same).
    if run.suite.is_some() {
        rendered.replace_html(&crate::report::suite::html(run));
    }
    let mut written = rendered.write()?;
    let kept = run.thresholds.as_ref().filter(|_| !judged);
    if let Some(t) = kept.filter(|_| plan.markdown != Some(MarkdownTo::Stdout)) {
        let table = crate::report::threshold::threshold_table(run, t);
        written.stdout.push_str(&format!("\n{table}"));
    }
    Ok(written)
}

fn report_stream(args: Args, r: crate::result::stream::StreamResult) -> anyhow::Result<i32> {
    if !args.thresholds.thresholds.is_empty() {
        return Err(crate::spec::threshold::ThresholdUseError {
            flag: "--threshold",
            text: args.result.display().to_string(),
            why: "thresholds judge request-response results (latency, qps, errors); this is a log-pipeline result".into(),
        }
        .into());
    }
    let plan = args.charts.plan(args.output);
    let written = crate::report::stream::page::report(&args.result, &r, &plan)?.write()?;
    tell(&written);
    Ok(0)
}

/// hakaru's JSON result at `path` (or beside its CSV), when there is one that reads.
fn kept_result(path: &std::path::Path) -> Option<crate::result::RunResult> {
    let json = path.with_extension("json");
    let text = std::fs::read_to_string(&json).ok()?;
    crate::result::json::from_json(&text, &json.display().to_string()).ok()
}

/// hakaru's JSON result at `path`, or beside it when `path` is its CSV.
fn read_json_result(path: &std::path::Path) -> anyhow::Result<crate::result::RunResult> {
    let json = if path.extension().is_some_and(|e| e == "json") {
        path.to_path_buf()
    } else {
        path.with_extension("json")
    };
    if !json.is_file() {
        return Err(crate::spec::threshold::ThresholdUseError {
            flag: "--threshold",
            text: path.display().to_string(),
            why: "thresholds are judged on hakaru's JSON result (its histograms), and none is beside this file".into(),
        }
        .into());
    }
    let shown = json.display().to_string();
    let text =
        std::fs::read_to_string(&json).map_err(|e| anyhow::anyhow!("cannot read {shown}: {e}"))?;
    Ok(crate::result::json::from_json(&text, &shown)?)
}
