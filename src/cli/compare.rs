//! `hakaru compare A B C …`: several results side by side — peak, plateau, latency,
//! each as a ratio to the first run — as text on the terminal, and optionally as an
//! HTML page with overlaid charts, SVG/PNG charts and Markdown.

use std::path::PathBuf;

use crate::report::dispatch::run_compare;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Results to compare; the first is the baseline the ratios refer to.
    #[arg(value_name = "RESULT", required = true, num_args = 1..)]
    pub results: Vec<PathBuf>,
    /// Names of the runs, comma-separated, one per file [default: the file names without
    /// extension]. Files in a row with the same name are repetitions of one setup: their
    /// peak is a mean with a spread ("1.18 ± 0.05×"), as are a --rounds run's warm rounds.
    #[arg(long, value_name = "A,B,...", value_delimiter = ',')]
    pub label: Option<Vec<String>>,
    /// Write an HTML page with the overlaid charts to FILE.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// --svg and --png write the overlaid charts next to the HTML, or as compare-*.svg/png.
    #[command(flatten)]
    pub charts: super::report::ChartFlags,
}

pub fn run(args: Args) -> anyhow::Result<i32> {
    let md = args
        .charts
        .markdown
        .as_deref()
        .filter(|p| p.as_os_str() != "-");
    let paths: Vec<(&'static str, &std::path::Path)> =
        [("-o", args.output.as_deref()), ("--markdown", md)]
            .into_iter()
            .filter_map(|(f, p)| Some((f, p?)))
            .collect();
    let inputs: Vec<(&str, &std::path::Path)> = (args.results.iter())
        .map(|p| ("the result", p.as_path()))
        .collect();
    crate::report::output::refuse_inputs(paths.iter().copied(), &inputs)?;
    crate::report::output::check(paths)?;
    let plan = args.charts.plan(args.output);
    // Log pipelines (watch, stream send, stream run) side by side; never mixed with
    // request-response results.
    if let Some(stream) = crate::report::stream::compare::classify(&args.results)? {
        let labels = crate::report::stream::compare::labels(&args.results, args.label.as_deref())?;
        let written = crate::report::stream::compare::compare(&labels, &stream, &plan)?.write()?;
        super::report::tell(&written);
        return Ok(0);
    }
    let written = run_compare(&args.results, args.label.as_deref(), &plan)?;
    super::report::tell(&written);
    Ok(0)
}
