//! `hakaru ramp`: drnbench-request-response's progressive benchmark; its flags work as they are.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::Result;
use clap::Args;

use super::args::{is_stdout, stdout_busy, Human, OutputArgs, RequestArgs, SessionArgs};
use crate::console::Console;
use crate::spec::{parse_duration, Load, RunOptions};

/// `--until-saturated`'s cap on clients when --end-n-clients does not say.
pub const UNTIL_SATURATED_CAP: usize = 128;

#[derive(Args, Debug)]
pub struct RampArgs {
    /// Clients in the first step (0 runs 1 client, as in drnbench).
    #[arg(
        help_heading = "Load model",
        long,
        default_value_t = 0,
        value_name = "N"
    )]
    pub start_n_clients: usize,

    /// Clients in the last step, always measured (1 to 10 by 4 is 1, 5, 9, 10).
    /// With --rate: the connections each step may use
    /// (--find-max: the connections every probe may use); with --until-saturated, the
    /// hard cap [default: 1; 100 with --find-max, 64 for a SQL URL; 128 with
    /// --until-saturated].
    #[arg(help_heading = "Load model", long, value_name = "N")]
    pub end_n_clients: Option<usize>,

    /// ab's and wrk's -c is one client count; a ramp's go from --start-n-clients to
    /// --end-n-clients. Refused with what to use, not taken as either.
    #[arg(short = 'c', long = "concurrency", hide = true, value_name = "N")]
    pub concurrency: Option<usize>,

    /// Clients added at each step [default: 1; with --until-saturated the clients
    /// double at each step unless --step is given].
    #[arg(help_heading = "Load model", long, value_name = "COUNT")]
    pub step: Option<usize>,

    /// Keep adding clients until the target saturates: two steps in a row add less
    /// than 5% throughput, or mean latency passes twice the first step's. The ramp
    /// stops there (or at --end-n-clients, the cap) and says why.
    #[arg(
        help_heading = "Load model",
        long,
        conflicts_with_all = ["rate", "find_max"]
    )]
    pub until_saturated: bool,

    /// Duration of each step (seconds, or 30s, 2m).
    #[arg(help_heading = "Load model", long, default_value = "30", value_parser = parse_duration)]
    pub duration: Duration,

    /// Pause between steps (seconds, or 10s).
    #[arg(help_heading = "Load model", long, default_value = "10", value_parser = parse_duration)]
    pub interval: Duration,

    /// Open model: one step per rate (req/s, 2.5k). A list (100,200,400), START:END:STEP
    /// (100:2000:100), or FROM..TO for a step whose rate rises across it (100..200).
    #[arg(help_heading = "Load model", long, value_name = "RATES")]
    pub rate: Option<String>,

    /// Where to write the CSV result (the JSON result goes beside it); `-` prints the CSV on stdout instead.
    #[arg(
        help_heading = "Output",
        short = 'o',
        long = "output",
        alias = "output-path",
        default_value = "hakaru-result.csv"
    )]
    pub output_path: PathBuf,

    #[command(flatten)]
    pub output: OutputArgs,

    #[command(flatten)]
    pub timeline: super::run::TimelineArgs,

    #[command(flatten)]
    pub request: RequestArgs,

    #[command(flatten)]
    pub session: SessionArgs,

    #[command(flatten)]
    pub thresholds: super::threshold::ThresholdArgs,

    #[command(flatten)]
    pub find_max: super::find_max::FindMaxArgs,
}

impl RampArgs {
    /// `--find-max`'s connections when `--end-n-clients` does not say.
    fn find_max_connections(&self) -> usize {
        let url = self.request.url.iter().cloned().collect::<Vec<_>>();
        if crate::result::answers::all_sql(&url) {
            crate::spec::find_max::DEFAULT_SQL_CONNECTIONS
        } else {
            crate::spec::find_max::DEFAULT_CONNECTIONS
        }
    }

    /// The plain options these flags say.
    pub fn options(&self, command_line: Vec<String>) -> RunOptions {
        let load = match &self.rate {
            Some(rates) => Load::Rates {
                rates: rates.clone(),
                clients: self.end_n_clients.unwrap_or(1),
                duration: self.duration,
            },
            None if self.find_max.find_max => Load::Rates {
                rates: self.find_max.start_rate(self.duration).to_string(),
                clients: self.end_n_clients.unwrap_or(self.find_max_connections()),
                duration: self.duration,
            },
            None => Load::Clients {
                start: self.start_n_clients,
                end: self.end_n_clients.unwrap_or(if self.until_saturated {
                    UNTIL_SATURATED_CAP
                } else {
                    1
                }),
                // 0: the clients double (`--until-saturated` without --step).
                step: self
                    .step
                    .unwrap_or(if self.until_saturated { 0 } else { 1 }),
                duration: self.duration,
                until_saturated: self.until_saturated,
            },
        };
        RunOptions {
            request: self.request.options(),
            session: self.session.options(),
            load,
            interval: self.interval,
            output_path: Some(self.output_path.clone()).filter(|p| !crate::outfile::is_through(p)),
            command_line,
        }
    }
}

pub fn run(args: RampArgs, command_line: Vec<String>) -> Result<i32> {
    if args.concurrency.is_some() {
        return Err(crate::spec::SpecError::Conflict {
            flags: "-c/--concurrency",
            why: "a ramp's clients go from --start-n-clients to --end-n-clients by --step \
                  (-c 50 as one step: --start-n-clients 50 --end-n-clients 50, or \
                  hakaru run -c 50); with --rate, --end-n-clients is the connections",
        }
        .into());
    }
    if args.find_max.find_max {
        if args.session.before.given() {
            // The search runs probes of its own choosing: a command "before each step"
            // would run before parts of probes, which no one could read back.
            return Err(crate::spec::SpecError::Before(
                "--before-round and --before-step are for run and ramp, not --find-max \
                 (its probes are not rounds or steps)"
                    .into(),
            )
            .into());
        }
        return super::find_max::run(args, command_line);
    }
    let options = args.options(command_line);
    args.thresholds.check(false)?;
    let ready = options.build()?;
    // Every path the end will write, checked after the flags and before any load.
    let live_out = args.session.live.outputs();
    super::finish::check_outputs(
        Some(&args.output_path),
        &args.thresholds,
        &live_out,
        &args.request.inputs(),
    )?;
    let csv_to_stdout = is_stdout(Some(&args.output_path));
    args.request.format.check(csv_to_stdout)?;
    super::kv::preload(&ready, &args.request.kv)?;
    let live_args = &args.session.live;
    let mut live = live_args.start(stdout_busy(args.output.json, csv_to_stdout))?;
    let human = Human::new(&args.output, csv_to_stdout || live_args.to_stdout())?;
    // Each step's row goes to stdout: not when stdout carries JSON, CSV or --live-out.
    let rows = !human.machine();
    let console = Console::new(rows, ready.engine.n_slow, ready.engine.n_fast)
        .quiet(args.output.quiet)
        .verbose(args.output.verbose)
        .work(super::work_of(ready.workload.as_ref()));
    let mut run = args
        .thresholds
        .run_load_with(&ready, console, live.observers())?;
    live.finish();
    // A rate profile judged segment by segment, the verdicts kept in the result.
    crate::analysis::segments::judge_steps(&mut run);
    let finish = super::finish::Finish {
        files: ready.run.outputs.as_ref(),
        through: super::run::through(
            Some(&args.output_path),
            args.request.format,
            args.output.json,
        ),
        ..super::finish::Finish::new(&args.thresholds, human, crate::runner::exit_code(&run))
    };
    super::finish::finish(&mut run, finish, |run| {
        let mut text = String::new();
        // A rate ramp is read by rate (the clients-axis analysis does not apply); either
        // way the end of a ramp shows what `hakaru report` would.
        if ready.open_model() || run.steps.len() > 1 {
            let series = crate::result::series::Series::from_run(run, "this run");
            let summary = crate::report::run::rounds::terminal_summary(&series, Some(run), 72);
            text += &format!("{summary}\n");
        }
        if let Some(why) = &run.ended_because {
            text += &format!("The ramp ended on its own (--until-saturated): {why}.\n");
        }
        // After the summary's own blank line.
        text += args.timeline.text(run).trim_start_matches('\n');
        text + &crate::report::run::text::rounds_summary(run)
    })
}
