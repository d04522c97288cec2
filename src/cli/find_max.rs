//! `hakaru ramp --find-max --slo 'p99<50ms,errors<0.1%' URL`: the flags of the search
//! for the highest rate that meets an SLO, and the glue from them to
//! [`crate::find_max`]: a row per probe as it ends, the answer with its bracket, the
//! result files and the exit code (1 when no rate met the SLO).

use anyhow::Result;
use clap::Args;

use super::args::{is_stdout, Human};
use super::ramp::RampArgs;
use crate::console::Console;
use crate::engine::{Progress, StepSpec};
use crate::find_max::ProbeObserver;
use crate::observe::Fanout;
use crate::report::find_max::{find_max_summary, probe_header, probe_row};
use crate::report::fmt::Work;
use crate::result::find_max::FindMaxResult;
use crate::result::{RunResult, RunState, StepResult};
use crate::runner::{Observer, Position};
use crate::spec::find_max::FindMaxOptions;
use crate::spec::threshold::{parse_slo, Slo};

#[derive(Args, Debug, Clone, Default)]
#[command(next_help_heading = "Capacity search (--find-max)")]
pub struct FindMaxArgs {
    /// Search the highest open-model rate that meets --slo: double the rate from
    /// --start-rate until a probe fails, bisect, then probe the answer again. Each probe
    /// lasts --duration at least (longer at slow rates, to gather enough responses),
    /// --interval apart; at most --max-probes of them.
    #[arg(long, requires = "slo", conflicts_with_all = ["rate", "thresholds", "abort_on_fail"])]
    pub find_max: bool,

    /// With --find-max: the thresholds every probe must meet, comma-separated, in
    /// --threshold's syntax: 'p99<50ms,errors<0.1%'.
    #[arg(long, value_name = "THRESHOLDS", value_parser = parse_slo, requires = "find_max")]
    pub slo: Option<Slo>,

    /// With --find-max: the first rate probed, requests per second [default: 100, or
    /// the lowest rate whose first probe gathers its responses within --duration].
    #[arg(long, value_name = "REQ_PER_S")]
    pub start_rate: Option<f64>,

    /// With --find-max: no rate above this is probed.
    #[arg(long, default_value_t = 1_000_000.0, value_name = "REQ_PER_S")]
    pub max_rate: f64,

    /// With --find-max: at most this many probes, repeats included (the answer's
    /// confirmation, and a doubted failure's second run).
    #[arg(long, default_value_t = 12, value_name = "N")]
    pub max_probes: usize,

    /// With --find-max: stop when the lowest failing rate is within this many percent
    /// above the highest passing one.
    #[arg(long, default_value_t = 5.0, value_name = "PERCENT")]
    pub precision: f64,
}

/// `--start-rate` when not given: the search's first probe keeps to `--duration`.
const DEFAULT_START_RATE: f64 = 100.0;

impl FindMaxArgs {
    /// The first rate probed: `--start-rate`, or 100/s raised so that a probe of
    /// `duration` gathers the responses the SLO needs (a p99 needs 1,000: with
    /// `--duration 2`, 600/s), so the first probe lasts what `--duration` said.
    pub fn start_rate(&self, duration: std::time::Duration) -> f64 {
        self.start_rate.unwrap_or_else(|| {
            let slo = self.slo.as_ref().map(|s| s.0.as_slice()).unwrap_or(&[]);
            let need = crate::analysis::find_max::probe_min_samples(slo) as f64
                * crate::spec::find_max::SAMPLE_SLACK;
            (need / duration.as_secs_f64().max(1e-3))
                .ceil()
                .max(DEFAULT_START_RATE)
        })
    }
}

/// The console's live line, and the probe table as probes end.
struct FindMaxConsole {
    /// The console and the live views (`--metrics-listen`, `--live-out`).
    inner: Fanout<'static>,
    human: Human,
    header_shown: bool,
    /// The run's unit of work: a SQL run's table counts transactions.
    work: Work,
}

impl Observer for FindMaxConsole {
    fn step_started(&mut self, at: Position, spec: &StepSpec) {
        self.inner.step_started(at, spec);
    }
    fn progress(&mut self, spec: &StepSpec, p: Progress) {
        self.inner.progress(spec, p);
    }
    fn step_finished(&mut self, run: &RunResult, step: &StepResult) {
        self.inner.step_finished(run, step);
    }
    fn warmup_started(&mut self, d: std::time::Duration, spec: &StepSpec) {
        self.inner.warmup_started(d, spec);
    }
    fn warmup_finished(&mut self, responses: u64, errors: u64) {
        self.inner.warmup_finished(responses, errors);
    }
}

impl ProbeObserver for FindMaxConsole {
    fn settled(&mut self, s: &crate::result::find_max::Settle) {
        self.human
            .print(&format!("  {}\n", crate::report::find_max::settle_line(s)));
    }

    fn probe_finished(&mut self, index: usize, fm: &FindMaxResult) {
        if !self.header_shown {
            self.human
                .print(&format!("{}\n", probe_header(&fm.slo, self.work)));
            self.header_shown = true;
        }
        if let Some(p) = fm.probes.get(index) {
            self.human
                .print(&format!("{}\n", probe_row(index, &fm.slo, p, self.work)));
        }
    }
}

/// The search announced as it will run: the first rate, each probe's length (and
/// the first one's when its rate needs longer for its responses), the probes' count
/// and time.
fn plan_line(fm: &crate::spec::find_max::FindMaxSpec, connections: usize, work: Work) -> String {
    let fmt_s = |d: std::time::Duration| crate::report::fmt::sig3(d.as_secs_f64());
    let start = fm.limits.start_rate;
    let first = fm.probe_length(start);
    let lengths = if first > fm.probe_duration {
        format!(
            "probes of {} s ({} s at {}/s, to gather {} {})",
            fmt_s(fm.probe_duration),
            fmt_s(first),
            crate::report::fmt::sig3(start),
            fm.min_samples,
            work.answers(),
        )
    } else {
        format!(
            "probes of {} s (longer below {}/s, to gather {} {})",
            fmt_s(fm.probe_duration),
            crate::report::fmt::sig3(start),
            fm.min_samples,
            work.answers(),
        )
    };
    format!(
        "Searching the highest rate meeting {} from {}/s: {lengths}, at most {} of them \
         ({} as planned, {} at most with every rerun and settle wait), {connections} \
         connections.\n",
        fm.slo
            .iter()
            .map(|t| t.text.as_str())
            .collect::<Vec<_>>()
            .join(", "),
        crate::report::fmt::sig3(start),
        fm.limits.max_probes,
        crate::console::fmt_eta(fm.planned()),
        crate::console::fmt_eta(crate::find_max::longest(fm)),
    )
}

pub fn run(args: RampArgs, command_line: Vec<String>) -> Result<i32> {
    let f = &args.find_max;
    let fm = FindMaxOptions {
        slo: f.slo.clone().map(|s| s.0).unwrap_or_default(),
        start_rate: f.start_rate(args.duration),
        max_rate: f.max_rate,
        max_probes: f.max_probes,
        precision_pct: f.precision,
        probe_duration: args.duration,
        interval: args.interval,
    }
    .check()?;
    let options = args.options(command_line);
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
    super::kv::preload(&ready, &args.request.kv)?;
    let live_args = &args.session.live;
    let mut live = live_args.start(super::args::stdout_busy(args.output.json, csv_to_stdout))?;
    let human = Human::new(&args.output, csv_to_stdout || live_args.to_stdout())?;
    let work = super::work_of(ready.workload.as_ref());
    human.print(&plan_line(
        &fm,
        ready.run.steps.first().map_or(1, |s| s.n_clients),
        work,
    ));
    let mut inner = Fanout::new().with(
        Console::new(false, ready.engine.n_slow, ready.engine.n_fast)
            .quiet(args.output.quiet)
            .work(work),
    );
    inner.extend(live.observers());
    let mut console = FindMaxConsole {
        inner,
        human,
        header_shown: false,
        work,
    };
    let stop = super::ctrl_c_stop();
    let run = crate::find_max::run(
        &fm,
        &ready.run,
        &ready.workload,
        &ready.engine,
        &stop,
        &mut console,
    )?;
    live.finish();
    let mut run = run;
    let code = exit_code(&run);
    // The search is judged by its SLO, not by --threshold: the end writes and exits.
    let no_thresholds = super::threshold::ThresholdArgs::default();
    let finish = super::finish::Finish {
        files: ready.run.outputs.as_ref(),
        through: super::run::through(
            Some(&args.output_path),
            args.request.format,
            args.output.json,
        ),
        ..super::finish::Finish::new(&no_thresholds, human, code)
    };
    super::finish::finish(&mut run, finish, |run| match run.find_max.as_ref() {
        Some(fm) => format!("\n{}", find_max_summary(fm, Work::of(&run.targets))),
        None => String::new(),
    })
}

/// 0 when a rate met the SLO; 1 when none did or a probe failed; 130 when interrupted.
fn exit_code(run: &RunResult) -> i32 {
    use crate::runner::exit;
    match run.state {
        RunState::Failed => {
            let why = run
                .stop_reason
                .clone()
                .or_else(|| run.steps.iter().find_map(|s| s.failure.clone()))
                .unwrap_or_default();
            eprintln!("hakaru: the search failed: {why}");
            exit::FAILED
        }
        RunState::Interrupted | RunState::Running => {
            eprintln!("Interrupted: the probes so far are kept.");
            exit::INTERRUPTED
        }
        RunState::Complete => {
            if run
                .find_max
                .as_ref()
                .is_some_and(|f| f.max_sustainable_rate.is_some())
            {
                exit::MEASURED
            } else {
                eprintln!("hakaru: no probed rate met the SLO");
                exit::FAILED
            }
        }
    }
}
