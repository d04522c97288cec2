//! `hakaru run`: one step with the habits of ab, hey and wrk.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{bail, Result};
use clap::Args;

use super::args::{parse_count, parse_duration, RequestArgs, SessionArgs};
use crate::console::Console;
use crate::engine::{RateProfile, StepSpec};
use crate::report::text;
use crate::result::{LoadModel, Mode};
use crate::runner::{self, RunSpec};

#[derive(Args, Debug)]
pub struct RunArgs {
    /// Concurrent clients (connections).
    #[arg(short = 'c', long, default_value_t = 50)]
    pub concurrency: usize,

    /// Total requests to send (10k, 1m accepted). Without -n or -d the run lasts 10 s.
    #[arg(short = 'n', long, value_parser = parse_count)]
    pub requests: Option<u64>,

    /// How long to run (30, 30s, 2m).
    #[arg(short = 'd', long, value_parser = parse_duration)]
    pub duration: Option<Duration>,

    /// Open model: requests per second on a timetable, whatever the responses do;
    /// latency counts from each request's due time. A fixed rate (500), a linear ramp
    /// over the run (100..2000), equal steps (100,200,400), or timed segments
    /// (5s@100,10s@100..2000).
    #[arg(long, value_name = "REQ_PER_S")]
    pub rate: Option<String>,

    /// Write the CSV result here, and the JSON result beside it.
    #[arg(short = 'o', long)]
    pub output_path: Option<PathBuf>,

    #[command(flatten)]
    pub request: RequestArgs,

    #[command(flatten)]
    pub session: SessionArgs,
}

pub fn run(args: RunArgs, command_line: Vec<String>) -> Result<i32> {
    if args.concurrency == 0 {
        bail!("-c must be at least 1");
    }
    if args.duration.is_some_and(|d| d.is_zero()) {
        bail!("-d must be positive");
    }
    if args.requests == Some(0) {
        bail!("-n must be at least 1");
    }
    let rate = match &args.rate {
        Some(text) => Some(Arc::new(
            RateProfile::parse(text, args.duration, parse_duration)
                .map_err(|e| anyhow::anyhow!("--rate {text}: {e}"))?,
        )),
        None => None,
    };
    // A profile with timed segments lasts as long as they do.
    let profile_length = rate
        .as_ref()
        .and_then(|r| r.length_s())
        .map(Duration::from_secs_f64);
    let duration = match (args.requests, args.duration.or(profile_length)) {
        (None, None) => Some(Duration::from_secs(10)),
        (_, d) => d,
    };
    let prepared = args.request.prepare(args.concurrency)?;
    let step = StepSpec {
        n_clients: args.concurrency,
        duration,
        n_requests: args.requests,
        rate,
    };
    let mut settings = prepared.settings.clone();
    settings.duration_s = duration.map(|d| d.as_secs_f64());
    settings.n_requests = args.requests;
    if args.rate.is_some() {
        settings.model = LoadModel::Open;
    }
    let mut spec = RunSpec {
        mode: Mode::Run,
        command_line,
        steps: vec![step],
        interval: Duration::ZERO,
        settings,
        outputs: args
            .request
            .outputs(args.output_path.as_ref(), prepared.format),
        ..RunSpec::default()
    };
    args.session
        .apply(&mut spec, &prepared.plan, args.request.default_timeout)?;
    let stop = super::ctrl_c_stop();
    let mut console = Console::new(
        false,
        args.request.n_slow_requests,
        args.request.n_fast_requests,
    );
    let run = runner::run(
        &spec,
        &prepared.workload,
        &prepared.engine,
        &stop,
        &mut console,
    )?;
    if let Some(step) = run.steps.last() {
        print!("{}", text::run_summary(&run, step));
    }
    print!("{}", crate::report::text::rounds_summary(&run));
    if let Some(out) = &spec.outputs {
        println!("Results: {} and {}", out.csv.display(), out.json.display());
    }
    Ok(runner::exit_code(&run))
}
