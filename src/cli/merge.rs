//! `hakaru merge shard-*.json -o result.json`: the results of one run spread over many
//! load machines (`--shard K/N`), joined exactly into the result one machine would
//! have written. Reports, comparisons and thresholds read it like any other.

use std::path::PathBuf;

use std::io::Read;

use anyhow::Context;

use crate::result::csv::CsvFormat;
use crate::result::json::from_json;
use crate::result::merge::{late_starts, merge_shards, split_results};
use crate::result::store::Outputs;
use crate::result::RunResult;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The shards' JSON results, one per machine, in any order; `-` reads them from
    /// stdin, several one after another with log lines between them (`kubectl logs`).
    #[arg(value_name = "SHARD_RESULT", required = true, num_args = 1..)]
    pub results: Vec<PathBuf>,
    /// Where to write the merged result (the CSV goes beside it); `-` prints the
    /// merged JSON result on stdout instead.
    #[arg(short = 'o', long = "output-path", value_name = "FILE")]
    pub output_path: PathBuf,

    /// Judged on the merged result: the whole run's percentiles, not one machine's.
    #[command(flatten)]
    pub thresholds: super::threshold::ThresholdArgs,
}

pub fn run(args: Args) -> anyhow::Result<i32> {
    super::finish::check_outputs(Some(&args.output_path), &args.thresholds, &[])?;
    let mut shards = Vec::with_capacity(args.results.len());
    for path in &args.results {
        let (shown, text) = if path.as_os_str() == "-" {
            let mut text = String::new();
            std::io::stdin()
                .read_to_string(&mut text)
                .context("cannot read stdin")?;
            ("stdin".to_owned(), text)
        } else {
            let shown = path.display().to_string();
            let text =
                std::fs::read_to_string(path).with_context(|| format!("cannot read {shown}"))?;
            (shown, text)
        };
        let (docs, other) = split_results(&text);
        if docs.is_empty() || (docs.len() == 1 && other.is_empty()) {
            // One result file as written: read whole, so errors keep its line numbers.
            shards.push((shown.clone(), from_json(&text, &shown)?));
            continue;
        }
        for line in other {
            eprintln!("{shown}: {line}");
        }
        for (i, doc) in docs.iter().enumerate() {
            let name = format!("{shown} (result {})", i + 1);
            shards.push((name.clone(), from_json(doc, &name)?));
        }
    }
    let mut merged = merge_shards(&shards)?;
    crate::analysis::recovery::find_again(&mut merged);
    for late in late_starts(&shards, crate::analysis::START_LATE_LIMIT_S) {
        eprintln!("warning: {late}: that step's shards did not run fully together");
    }
    args.thresholds
        .check_reading(merged.mode == crate::result::Mode::Bulk)?;
    let through = crate::outfile::is_through(&args.output_path);
    let out = Outputs::beside(&args.output_path, CsvFormat::Full);
    let human = super::args::Human::new(&super::args::OutputArgs::default(), through)?;
    let finish = super::finish::Finish {
        files: Some(&out).filter(|_| !through),
        through: through.then(|| {
            let json = |run: &RunResult| crate::result::json::to_json(run).into_bytes();
            (
                args.output_path.clone(),
                Box::new(json) as Box<dyn Fn(&RunResult) -> Vec<u8>>,
            )
        }),
        ..super::finish::Finish::new(&args.thresholds, human, crate::runner::exit::MEASURED)
    };
    let n = shards.len();
    super::finish::finish(&mut merged, finish, |run| {
        let requests: u64 = run.steps.iter().map(|s| s.total_requests).sum();
        format!(
            "Merged {n} shards: {} step(s), {requests} requests.\n",
            run.steps.len()
        )
    })
}
