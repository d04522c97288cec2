//! `hakaru run`: one step with the habits of ab, hey and wrk.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{bail, Result};
use clap::Args;

use super::args::{parse_count, parse_duration, RequestArgs, SessionArgs};
use crate::console::Console;
use crate::engine::StepSpec;
use crate::ramp::{self, RunSpec};
use crate::report::text;
use crate::result::{LoadModel, Mode};

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

    /// Open model: send this many requests per second on a fixed schedule, whatever the
    /// responses do; latency counts from each request's due time.
    #[arg(long, value_name = "REQ_PER_S")]
    pub rate: Option<f64>,

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
    if let Some(r) = args.rate {
        if !(r.is_finite() && r > 0.0) {
            bail!("--rate must be a positive number of requests per second, found {r}");
        }
    }
    if args.requests == Some(0) {
        bail!("-n must be at least 1");
    }
    let duration = match (args.requests, args.duration) {
        (None, None) => Some(Duration::from_secs(10)),
        (_, d) => d,
    };
    let prepared = args.request.prepare(args.concurrency)?;
    let step = StepSpec {
        n_clients: args.concurrency,
        duration,
        n_requests: args.requests,
        rate: args.rate,
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
    let run = ramp::run(&spec, &prepared.plan, &prepared.engine, &stop, &mut console)?;
    if let Some(step) = run.steps.last() {
        print!("{}", text::run_summary(&run, step));
    }
    print!("{}", crate::report::text::rounds_summary(&run));
    if let Some(out) = &spec.outputs {
        println!("Results: {} and {}", out.csv.display(), out.json.display());
    }
    Ok(if run.partial { 130 } else { 0 })
}
