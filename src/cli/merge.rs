//! `hakaru merge shard-*.json -o result.json`: the results of one run spread over many
//! load machines (`--shard K/N`), joined exactly into the result one machine would
//! have written. Reports, comparisons and thresholds read it like any other.

use std::path::PathBuf;

use anyhow::Context;

use crate::result::csv::CsvFormat;
use crate::result::json::from_json;
use crate::result::merge::merge_shards;
use crate::result::store::Outputs;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The shards' JSON results, one per machine, in any order.
    #[arg(value_name = "SHARD_RESULT", required = true, num_args = 2..)]
    pub results: Vec<PathBuf>,
    /// Where to write the merged result (the CSV goes beside it).
    #[arg(short = 'o', long = "output-path", value_name = "FILE")]
    pub output_path: PathBuf,

    /// Judged on the merged result: the whole run's percentiles, not one machine's.
    #[command(flatten)]
    pub thresholds: super::threshold::ThresholdArgs,
}

pub fn run(args: Args) -> anyhow::Result<i32> {
    let mut shards = Vec::with_capacity(args.results.len());
    for path in &args.results {
        let shown = path.display().to_string();
        let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {shown}"))?;
        shards.push((shown.clone(), from_json(&text, &shown)?));
    }
    let mut merged = merge_shards(&shards)?;
    args.thresholds
        .check(merged.mode == crate::result::Mode::Bulk)?;
    let out = Outputs::beside(&args.output_path, CsvFormat::Full);
    out.write(&merged)?;
    let table = args.thresholds.judge(&mut merged, Some(&out))?;
    let requests: u64 = merged.steps.iter().map(|s| s.total_requests).sum();
    println!(
        "Merged {} shards: {} step(s), {requests} requests. Results: {} and {}",
        shards.len(),
        merged.steps.len(),
        out.csv.display(),
        out.json.display()
    );
    if let Some(table) = table {
        print!("\n{table}");
    }
    Ok(super::threshold::exit_code(&merged, 0))
}
