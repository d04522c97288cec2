//! `hakaru compare A B C …`: several results side by side — peak, plateau, latency,
//! each as a ratio to the first run — as text on the terminal, and optionally as an
//! HTML page with overlaid charts, SVG/PNG charts and Markdown.

use std::path::PathBuf;

use crate::report::chart::ChartOptions;
use crate::report::compare::run_compare;
use crate::report::html::{OutputPlan, ReportOptions};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Results to compare; the first is the baseline the ratios refer to.
    #[arg(value_name = "RESULT", required = true, num_args = 1..)]
    pub results: Vec<PathBuf>,
    /// Names of the runs, comma-separated, one per file [default: the file names without extension].
    #[arg(long, value_name = "A,B,...", value_delimiter = ',')]
    pub label: Option<Vec<String>>,
    /// Write an HTML page with the overlaid charts to FILE.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Also write the overlaid charts as SVG (next to the HTML, or compare-*.svg).
    #[arg(long)]
    pub svg: bool,
    /// Also write the overlaid charts as PNG (needs a TrueType font on the system).
    #[arg(long)]
    pub png: bool,
    /// Write the comparison as Markdown: to FILE, or to stdout without one.
    #[arg(long, value_name = "FILE", num_args = 0..=1, default_missing_value = "-")]
    pub markdown: Option<PathBuf>,
    /// Draw latency on a logarithmic axis.
    #[arg(long)]
    pub log_latency: bool,
}

pub fn run(args: Args) -> anyhow::Result<i32> {
    let plan = OutputPlan {
        html: args.output,
        svg: args.svg,
        png: args.png,
        markdown: super::report::markdown_to(args.markdown),
        options: ReportOptions {
            chart: ChartOptions {
                log_latency: args.log_latency,
            },
        },
    };
    let written = run_compare(&args.results, args.label.as_deref(), &plan)?;
    print!("{}", written.stdout);
    for f in &written.files {
        eprintln!("wrote {}", f.display());
    }
    Ok(0)
}
