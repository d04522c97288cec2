//! `hakaru run`: one step with the habits of ab, hey and wrk.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::Result;
use clap::Args;

use super::args::{is_stdout, stdout_busy, Human, OutputArgs, RequestArgs, SessionArgs};
use super::finish::Finish;
use crate::console::Console;
use crate::report::run::text;
use crate::spec::{parse_count, parse_duration, Load, RunOptions};

#[derive(Args, Debug)]
pub struct RunArgs {
    /// Concurrent clients (connections).
    #[arg(help_heading = "Load model", short = 'c', long, default_value_t = 50)]
    pub concurrency: usize,

    /// Requests in all, shared by every client (not per client; 10k, 1m accepted).
    /// Without -n or -d the run lasts 10 s.
    #[arg(help_heading = "Load model", short = 'n', long, value_parser = parse_count)]
    pub requests: Option<u64>,

    /// How long to run (30, 30s, 2m).
    #[arg(help_heading = "Load model", short = 'd', long, value_parser = parse_duration)]
    pub duration: Option<Duration>,

    /// Open model: requests per second on a timetable, whatever the responses do;
    /// latency counts from each request's due time. A fixed rate (500), a linear ramp
    /// over the run (100..2000), equal steps (100,200,400), or timed segments
    /// (5s@100,10s@100..2000); START:END:STEP (100:400:100) is the list it stands for.
    #[arg(help_heading = "Load model", long, value_name = "REQ_PER_S")]
    pub rate: Option<String>,

    /// Write the CSV result here, and the JSON result beside it; `-` prints the CSV on stdout instead.
    #[arg(
        help_heading = "Output",
        short = 'o',
        long = "output",
        alias = "output-path"
    )]
    pub output_path: Option<PathBuf>,

    #[command(flatten)]
    pub output: OutputArgs,

    #[command(flatten)]
    pub timeline: TimelineArgs,

    #[command(flatten)]
    pub request: RequestArgs,

    #[command(flatten)]
    pub session: SessionArgs,

    #[command(flatten)]
    pub thresholds: super::threshold::ThresholdArgs,
}

impl RunArgs {
    /// The plain options these flags say.
    pub fn options(&self, command_line: Vec<String>) -> RunOptions {
        RunOptions {
            request: self.request.options(),
            session: self.session.options(),
            load: Load::Step {
                clients: self.concurrency,
                duration: self.duration,
                requests: self.requests,
                rate: self.rate.clone(),
            },
            interval: Duration::ZERO,
            output_path: self
                .output_path
                .clone()
                .filter(|p| !crate::outfile::is_through(p)),
            command_line,
        }
    }
}

pub fn run(args: RunArgs, command_line: Vec<String>) -> Result<i32> {
    let options = args.options(command_line);
    args.thresholds.check(false)?;
    let ready = options.build()?;
    // Every path the end will write, checked after the flags and before any load.
    let live_out = args.session.live.outputs();
    super::finish::check_outputs(
        args.output_path.as_deref(),
        &args.thresholds,
        &live_out,
        &args.request.inputs(),
    )?;
    let csv_to_stdout = is_stdout(args.output_path.as_deref());
    args.request.format.check(csv_to_stdout)?;
    super::kv::preload(&ready, &args.request.kv)?;
    let live_args = &args.session.live;
    let mut live = live_args.start(stdout_busy(args.output.json, csv_to_stdout))?;
    let human = Human::new(&args.output, csv_to_stdout || live_args.to_stdout())?;
    let console = Console::new(false, ready.engine.n_slow, ready.engine.n_fast)
        .quiet(args.output.quiet)
        .work(super::work_of(ready.workload.as_ref()));
    let mut run = args
        .thresholds
        .run_load_with(&ready, console, live.observers())?;
    live.finish();
    // A rate profile judged segment by segment, the verdicts kept in the result.
    crate::analysis::segments::judge_steps(&mut run);
    let finish = Finish {
        files: ready.run.outputs.as_ref(),
        through: through(
            args.output_path.as_deref(),
            args.request.format,
            args.output.json,
        ),
        ..Finish::new(&args.thresholds, human, crate::runner::exit_code(&run))
    };
    super::finish::finish(&mut run, finish, |run| {
        let mut text = String::new();
        if let Some(step) = run.steps.last() {
            text += &text::run_summary(run, step);
            text += &args.timeline.text(run);
            if args.output.verbose {
                text += &format!(
                    "\n{}",
                    text::step_detail(run, step, ready.engine.n_slow, ready.engine.n_fast)
                );
            }
        }
        text + &text::rounds_summary(run)
    })
}

/// `--timeline`, shared by `run`, `ramp` and `report`.
#[derive(Args, Debug, Default)]
pub struct TimelineArgs {
    /// Print each step second by second after the summary: offered rate (open model),
    /// answered/s, ok, failed, p50, p99, late — as vegeta's `report -every` does.
    /// Bare: rows of one second, wider on steps over 60 s (about 60 rows);
    /// --timeline=10s: rows of 10 s; --timeline=off: none. On by default for a rate profile of several segments
    /// (--rate 2s@500,1s@5000,3s@500), where the story is second by second.
    #[arg(
        help_heading = "Output",
        long,
        value_name = "EVERY",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "auto",
        value_parser = parse_timeline
    )]
    pub timeline: Option<TimelineFlag>,
}

/// What `--timeline` said.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimelineFlag {
    Off,
    Every(text::timeline::Every),
}

/// `--timeline`'s value: `auto` (bare), `off`, or a whole number of seconds (10, 10s, 1m).
fn parse_timeline(s: &str) -> Result<TimelineFlag, String> {
    use text::timeline::Every;
    match s {
        "auto" => Ok(TimelineFlag::Every(Every::Auto)),
        "off" | "none" => Ok(TimelineFlag::Off),
        _ => {
            let d = parse_duration(s)?;
            if d.subsec_nanos() != 0 || d.as_secs() == 0 {
                return Err(format!(
                    "\"{s}\": rows are whole seconds, 1 or more (1s, 10s, 1m), or off"
                ));
            }
            Ok(TimelineFlag::Every(Every::Seconds(d.as_secs())))
        }
    }
}

impl TimelineArgs {
    /// The tables to print after `run`'s summary: asked for, or by default for a rate
    /// profile of several segments; empty with `--timeline off`.
    pub fn text(&self, run: &crate::result::RunResult) -> String {
        use text::timeline::{run_timeline, shown_by_default, Every};
        match self.timeline {
            Some(TimelineFlag::Off) => String::new(),
            Some(TimelineFlag::Every(every)) => run_timeline(run, every),
            None if shown_by_default(run) => run_timeline(run, Every::Auto),
            None => String::new(),
        }
    }
}

/// `--json`: the whole judged result on stdout, as the `.json` file holds it (what
/// was run, and how, with every step). `-o -` or `-o /dev/…`: the CSV (or with
/// `--format json` the JSON) written there. Either once, at the end.
pub(crate) fn through(
    path: Option<&std::path::Path>,
    format: super::args::FormatArg,
    json: bool,
) -> Option<super::finish::Through<'static>> {
    if json {
        return Some((
            std::path::PathBuf::from("-"),
            Box::new(|run| (crate::result::json::to_json(run) + "\n").into_bytes()),
        ));
    }
    let p = path.filter(|p| crate::outfile::is_through(p))?;
    Some((
        p.to_path_buf(),
        Box::new(move |run| format.stdout(run).into_bytes()),
    ))
}
