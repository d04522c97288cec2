//! `hakaru merge shard-*.json -o result.json`: the results of one run spread over many
//! load machines (`--shard K/N`), joined exactly into the result one machine would
//! have written. Reports, comparisons and thresholds read it like any other.
//!
//! Every kind of sharded result merges: `run`, `ramp`, `bulk` and `suite` results (the
//! request-response schema), and `stream send` results (`hakaru-stream`). `-` reads
//! several from stdin, one after another with log lines between them, as `kubectl
//! logs` of a `hakaru k8s render` Job prints them. A shard missing is not merged
//! around: the merge says which and how many came back, writes nothing and exits 1.

use std::io::Read;
use std::path::PathBuf;

use anyhow::Context;

use crate::result::csv::CsvFormat;
use crate::result::json::from_json;
use crate::result::merge::{late_starts, merge_shards, split_results, MergeError};
use crate::result::store::Outputs;
use crate::result::stream::StreamResult;
use crate::result::RunResult;
use crate::runner::exit;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The shards' JSON results, one per machine, in any order; `-` reads them from
    /// stdin, several one after another with log lines between them (`kubectl logs`).
    #[arg(value_name = "SHARD_RESULT", required = true, num_args = 1..)]
    pub results: Vec<PathBuf>,
    /// Where to write the merged result (the CSV goes beside it); `-` prints the
    /// merged JSON result on stdout instead.
    #[arg(
        short = 'o',
        long = "output",
        alias = "output-path",
        value_name = "FILE"
    )]
    pub output_path: PathBuf,

    /// Judged on the merged result: the whole run's percentiles, not one machine's.
    #[command(flatten)]
    pub thresholds: super::threshold::ThresholdArgs,
}

/// One result as read: where it came from (a file, or stdin's Kth) and its text.
struct Doc {
    name: String,
    text: String,
}

pub fn run(args: Args) -> anyhow::Result<i32> {
    let inputs: Vec<(&str, &std::path::Path)> = (args.results.iter())
        .map(|p| ("the shard's result", p.as_path()))
        .collect();
    super::finish::check_outputs(Some(&args.output_path), &args.thresholds, &[], &inputs)?;
    let docs = read_docs(&args.results)?;
    let streams = docs.iter().filter(|d| is_stream(&d.text)).count();
    match (streams, docs.len()) {
        (0, _) => merge_runs(&args, docs),
        (s, n) if s == n => merge_streams(&args, docs),
        _ => {
            let stream = docs.iter().find(|d| is_stream(&d.text));
            let other = docs.iter().find(|d| !is_stream(&d.text));
            anyhow::bail!(
                "{} is a stream send's result (hakaru-stream) and {} a request-response \
                 result: merge one run's shards at a time",
                stream.map_or("", |d| &d.name),
                other.map_or("", |d| &d.name)
            )
        }
    }
}

/// Every result in the arguments: a file whole, or each result in stdin's stream
/// (the lines between them, a pod's warnings, printed for whoever merges).
fn read_docs(paths: &[PathBuf]) -> anyhow::Result<Vec<Doc>> {
    let mut out = Vec::new();
    for path in paths {
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
            out.push(Doc { name: shown, text });
            continue;
        }
        for line in other {
            eprintln!("{shown}: {line}");
        }
        for (i, doc) in docs.iter().enumerate() {
            out.push(Doc {
                name: format!("{shown} (result {})", i + 1),
                text: (*doc).to_owned(),
            });
        }
    }
    Ok(out)
}

/// Whether a result is a `hakaru-stream` one (from `stream send`, `watch`, `stream run`).
fn is_stream(text: &str) -> bool {
    #[derive(serde::Deserialize)]
    struct Kind {
        kind: Option<String>,
    }
    serde_json::from_str::<Kind>(text)
        .is_ok_and(|k| k.kind.as_deref() == Some(crate::result::stream::KIND))
}

/// A missing shard: the sentence and exit 1 (the run failed in part; nothing is
/// written). Any other refusal is the caller's error (bad input, exit 2).
fn refuse_missing<T>(r: Result<T, MergeError>) -> anyhow::Result<Result<T, i32>> {
    match r {
        Ok(v) => Ok(Ok(v)),
        Err(e @ MergeError::Missing { .. }) => {
            eprintln!("hakaru: merge: {e}");
            Ok(Err(exit::FAILED))
        }
        Err(e) => Err(e.into()),
    }
}

fn merge_runs(args: &Args, docs: Vec<Doc>) -> anyhow::Result<i32> {
    let mut shards = Vec::with_capacity(docs.len());
    for d in docs {
        let run = from_json(&d.text, &d.name)?;
        shards.push((d.name, run));
    }
    let mut merged = match refuse_missing(merge_shards(&shards))? {
        Ok(m) => m,
        Err(code) => return Ok(code),
    };
    crate::analysis::recovery::find_again(&mut merged);
    // The shards' rate profile judged as one, on the merged seconds.
    crate::analysis::segments::judge_steps(&mut merged);
    for late in late_starts(&shards, crate::analysis::START_LATE_LIMIT_S) {
        eprintln!("warning: {late}: that step's shards did not run fully together");
    }
    args.thresholds
        .check_reading(merged.mode == crate::result::Mode::Bulk)?;
    let through = crate::outfile::is_through(&args.output_path);
    let out = Outputs::beside(&args.output_path, CsvFormat::Full);
    let human = super::args::Human::new(&super::args::OutputArgs::default(), through)?;
    let code = crate::runner::exit_code(&merged);
    let finish = super::finish::Finish {
        files: Some(&out).filter(|_| !through),
        through: through.then(|| {
            let json = |run: &RunResult| crate::result::json::to_json(run).into_bytes();
            (
                args.output_path.clone(),
                Box::new(json) as Box<dyn Fn(&RunResult) -> Vec<u8>>,
            )
        }),
        ..super::finish::Finish::new(&args.thresholds, human, code)
    };
    super::finish::finish(&mut merged, finish, |run| format!("{}\n", run_summary(run)))
}

/// One line: what was merged, the whole run's responses and p99.
fn run_summary(run: &RunResult) -> String {
    let (came, of) = run.settings.merged.map_or((0, 0), |m| (m.shards, m.of));
    let requests: u64 = run.steps.iter().map(|s| s.total_requests).sum();
    let responses: u64 = run.steps.iter().map(|s| s.responses).sum();
    let steps: Vec<_> = run.steps.iter().collect();
    let p99 = match crate::analysis::threshold::combine(&steps, run.machine.cpus) {
        Ok(Some(all)) if all.responses > 0 => {
            format!(
                ", p99 {}",
                crate::report::fmt::fmt_latency(all.latency.p99_s)
            )
        }
        _ => String::new(),
    };
    let kind = match run.mode {
        crate::result::Mode::Suite => "a suite",
        crate::result::Mode::Bulk => "a bulk run",
        crate::result::Mode::Ramp => "a ramp",
        _ => "a run",
    };
    format!(
        "Merged {came} of {of} shards of {kind}: {} step(s), {responses} responses of \
         {requests} requests{p99}.",
        run.steps.len()
    )
}

fn merge_streams(args: &Args, docs: Vec<Doc>) -> anyhow::Result<i32> {
    if !args.thresholds.thresholds.is_empty() || args.thresholds.junit.is_some() {
        anyhow::bail!(
            "--threshold and --junit judge request-response results; a stream send's \
             verdict is the receiver's: watch --verify (lost and duplicated records)"
        );
    }
    let mut shards = Vec::with_capacity(docs.len());
    for d in docs {
        let r: StreamResult = serde_json::from_str(&d.text)
            .with_context(|| format!("{}: not a hakaru-stream result", d.name))?;
        shards.push((d.name, r));
    }
    let merged = match refuse_missing(crate::result::stream_merge::merge_sends(&shards))? {
        Ok(m) => m,
        Err(code) => return Ok(code),
    };
    let send = merged.send.as_ref().context("merged send")?;
    let m = merged
        .merged
        .unwrap_or(crate::result::Merged { shards: 0, of: 0 });
    let line = format!(
        "Merged {} of {} shards of a stream send: {} senders, {} records, {} in {:.3} s \
         ({:.0} records/s at the senders); the receiver's count is watch --verify --senders {}.\n",
        m.shards,
        m.of,
        send.report.senders.len(),
        send.report.records(),
        crate::report::fmt::fmt_bytes(send.report.bytes() as f64),
        send.report.elapsed_s,
        send.records_per_s(),
        send.report.senders.len()
    );
    if super::args::is_stdout(Some(&args.output_path)) {
        eprint!("{line}");
        println!("{}", serde_json::to_string_pretty(&merged)?);
    } else {
        let out = Outputs::beside(&args.output_path, CsvFormat::Full);
        crate::result::stream::write_files(&merged, &out.csv, &out.json)
            .with_context(|| format!("writing {}", out.csv.display()))?;
        print!("{line}");
        println!("Results: {} and {}", out.csv.display(), out.json.display());
    }
    Ok(if !merged.complete {
        exit::INTERRUPTED
    } else if send.report.failed_senders > 0 || send.report.records() == 0 {
        exit::FAILED
    } else {
        exit::MEASURED
    })
}
