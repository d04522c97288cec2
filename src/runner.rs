//! The runner: steps of growing load, an interval between them, rounds and warm-up,
//! probes around each step, and the result files rewritten after every step so an
//! interrupted run keeps every finished step. `hakaru run` is a ramp of one step.
//! It drives any [`Workload`]; a step that fails (a worker died) is written, marked
//! partial with the reason, and ends the run. Commands the user gives run before
//! rounds and steps ([`before`], through the one shell runner, [`command`]).

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use crate::engine::{self, EngineConfig, Progress, StepSpec, Stop, Workload};
use crate::probe::{self, Prober, ProcessWatch};
use crate::result::answers::Work;
use crate::result::store::Outputs;
use crate::result::{
    Mode, RequestList, RunResult, RunState, Settings, StepFacts, StepResult, SCHEMA_VERSION,
};
use crate::sysinfo;

pub mod before;
pub mod command;

/// A whole run: which steps, how far apart, where the results go, what to probe.
#[derive(Default)]
pub struct RunSpec {
    /// Which command this run is.
    pub mode: Mode,
    pub command_line: Vec<String>,
    pub steps: Vec<StepSpec>,
    pub interval: Duration,
    pub settings: Settings,
    pub outputs: Option<Outputs>,
    /// Server-side numbers read before and after every step.
    pub prober: Option<Prober>,
    /// A local server process sampled during every step.
    pub probe_pid: Option<u32>,
    /// How many times to run every step (0 is taken as 1).
    pub rounds: usize,
    /// Uncounted load before the first step, at the first step's load.
    pub warmup: Option<Duration>,
    /// Go on after a step that got no response at all (`--keep-going`); by default the
    /// run stops there and says why.
    pub keep_going: bool,
    /// `ramp --until-saturated`: end the ramp as soon as [`saturated`] says the
    /// target is saturated; `steps` end at the hard cap.
    pub until_saturated: bool,
    /// For workloads whose requests change from step to step (`bulk`'s batch sizes).
    pub hooks: Option<Arc<dyn StepHooks>>,
    /// `--start-at`: the warm-up (or first step) starts at this moment and every step
    /// at its planned offset from it (durations and intervals before it), so load
    /// machines sharing a clock run each step together ([`start`]).
    pub start_at: Option<SystemTime>,
    /// `--before-round`/`--before-step`: commands run before rounds and steps.
    pub before: before::Before,
    /// The draw of the first step: step `s` of every round draws its requests from
    /// draw `first_draw + s` ([`engine::ClientId`]), so the steps of a ramp send
    /// requests of their own and each round repeats the first. A caller that runs
    /// one load as many runs (`--find-max`'s probes) starts each further along.
    pub first_draw: u64,
}

/// The warm-up's draw: none of the steps', so that it warms the target with requests
/// like theirs without answering the first step's own in advance.
pub const WARMUP_DRAW: u64 = u64::MAX;

/// What a workload that changes from step to step does around each step.
pub trait StepHooks: Send + Sync {
    /// Before step `index` of [`RunSpec::steps`] (and the warm-up, as step 0), before
    /// its clients are made.
    fn before_step(&self, _index: usize, _spec: &StepSpec) {}
    /// After step `index`, on its result before it is written.
    fn after_step(&self, _index: usize, _result: &mut StepResult) {}
    /// The engine's settings for step `index` when they are not the run's (a suite's
    /// phase over HTTP/2, or pipelined, while another is not).
    fn engine(&self, _index: usize, _run: &EngineConfig) -> Option<EngineConfig> {
        None
    }
}

/// Where a step stands in the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Position {
    /// From 1.
    pub round: usize,
    pub rounds: usize,
    /// From 0, within the round.
    pub index: usize,
    pub of: usize,
}

/// What the runner tells whoever shows the run to a person.
pub trait Observer {
    fn step_started(&mut self, _at: Position, _spec: &StepSpec) {}
    fn progress(&mut self, _spec: &StepSpec, _p: Progress) {}
    fn step_finished(&mut self, _run: &RunResult, _step: &StepResult) {}
    fn interval(&mut self, _d: Duration) {}
    fn warmup_started(&mut self, _d: Duration, _spec: &StepSpec) {}
    /// Responses and errors of the warm-up, which are not counted anywhere else.
    fn warmup_finished(&mut self, _responses: u64, _errors: u64) {}
}

/// An observer that shows nothing (tests, library use).
pub struct Quiet;
impl Observer for Quiet {}

#[derive(Debug, thiserror::Error)]
pub enum RampError {
    #[error("the warm-up failed, nothing was measured: {0}")]
    Warmup(String),
    #[error("cannot write result file {path}: {source}")]
    Write {
        path: String,
        source: std::io::Error,
    },
}

/// Run every step (every round); write the results after each. Returns the run,
/// marked partial if it was stopped.
pub fn run<W: Workload>(
    spec: &RunSpec,
    workload: &Arc<W>,
    engine_cfg: &EngineConfig,
    stop: &Stop,
    observer: &mut dyn Observer,
) -> Result<RunResult, RampError> {
    let mut machine = sysinfo::machine();
    machine.fd_limit = sysinfo::raise_fd_limit();
    let cpus = machine.cpus;
    let targets: Vec<String> = workload.targets().iter().map(|t| t.label()).collect();
    let rounds = spec.rounds.max(1);
    let mut run = new_run(spec, workload.as_ref(), machine, targets.clone());
    if let Some(out) = &spec.outputs {
        // Temporaries a killed earlier run left beside these files.
        out.clean_stale();
    }
    let mut first = true;
    // Where the next step is planned to start, from `--start-at`.
    let mut planned = spec.start_at;
    if let (Some(w), Some(step0)) = (spec.warmup, spec.steps.first()) {
        let warm = StepSpec {
            duration: Some(w),
            n_requests: None,
            ..step0.clone()
        };
        if let Some(h) = &spec.hooks {
            h.before_step(0, &warm);
        }
        observer.warmup_started(w, &warm);
        if let Some(at) = spec.start_at {
            if start::wait_until(at, stop).is_none() {
                run.partial = true;
                run.state = RunState::Interrupted;
                return Ok(run);
            }
        }
        let m = engine::run_step(workload, engine_cfg, &warm, WARMUP_DRAW, stop, &mut |p| {
            observer.progress(&warm, p)
        });
        observer.warmup_finished(m.recorder.responses(), m.recorder.total_errors());
        if let Some(why) = m.failure {
            return Err(RampError::Warmup(why));
        }
        first = false;
        planned = planned.map(|t| t + w);
    }
    'rounds: for round in 1..=rounds {
        for (index, step) in spec.steps.iter().enumerate() {
            if !first && !spec.interval.is_zero() {
                observer.interval(spec.interval);
                planned = planned.map(|t| t + spec.interval);
                // With --start-at the wait for the step's planned moment is the interval.
                if planned.is_none() && stop.sleep(spec.interval) {
                    break 'rounds;
                }
            }
            first = false;
            if stop.is_triggered() {
                break 'rounds;
            }
            let position = Position {
                round,
                rounds,
                index,
                of: spec.steps.len(),
            };
            let prepared = spec.before.run(position, step, stop);
            if let Some((why, command)) = prepared.stop {
                run.stop_reason = Some(why);
                run.stopped_by_command = Some(command);
                break 'rounds;
            }
            if stop.is_triggered() {
                break 'rounds;
            }
            observer.step_started(position, step);
            if let Some(h) = &spec.hooks {
                h.before_step(index, step);
            }
            let at = planned;
            planned = planned.map(|t| t + step.duration.unwrap_or_default());
            let own = spec
                .hooks
                .as_ref()
                .and_then(|h| h.engine(index, engine_cfg));
            let cfg = own.as_ref().unwrap_or(engine_cfg);
            // The step's place in its round: round r sends what round 1 sent.
            let draw = spec.first_draw.wrapping_add(index as u64);
            let mut result = run_one(
                spec, workload, cfg, step, draw, stop, observer, &targets, cpus, round, at,
            );
            result.before_round = prepared.round;
            result.before_step = prepared.step;
            if let Some(h) = &spec.hooks {
                h.after_step(index, &mut result);
            }
            run.partial |= result.partial;
            run.requests
                .add_named(&result, |id| workload.request_info(id));
            let last = round == rounds && index + 1 == spec.steps.len();
            if result.responses == 0 && !spec.keep_going && !last && !stop.is_triggered() {
                run.stop_reason = Some(format!(
                    "step {} got no response at all{}; the run stopped there \
                     (--keep-going runs every step)",
                    run.steps.len() + 1,
                    sample_failure(&result)
                        .map(|s| format!(" ({s})"))
                        .unwrap_or_default()
                ));
            }
            let failed = result.failure.is_some() || run.stop_reason.is_some();
            run.steps.push(result);
            if let Some(out) = &spec.outputs {
                write_outputs(&run, out);
            }
            observer.step_finished(&run, run.steps.last().expect("just pushed"));
            if stop.is_triggered() || failed {
                break 'rounds;
            }
            if spec.until_saturated {
                let work = Work::of(&run.targets);
                if let Some(why) = saturated(&run.steps, work) {
                    run.ended_because = Some(why);
                    break 'rounds;
                }
            }
        }
    }
    close(&mut run, spec, rounds, stop);
    if let Some(out) = &spec.outputs {
        write_outputs(&run, out);
    }
    Ok(run)
}

/// The run's result before its first step: what was asked, on which machine.
fn new_run<W: Workload>(
    spec: &RunSpec,
    workload: &W,
    machine: crate::result::Machine,
    targets: Vec<String>,
) -> RunResult {
    RunResult {
        schema_version: SCHEMA_VERSION,
        tool: format!("hakaru {}", env!("CARGO_PKG_VERSION")),
        command_line: spec.command_line.clone(),
        mode: spec.mode,
        started_at: sysinfo::now_rfc3339(),
        partial: false,
        state: RunState::Running,
        stop_reason: None,
        ended_because: None,
        settings: spec.settings.clone(),
        machine,
        targets,
        // Every planned request only when asked (`--request-list`): a million-line
        // patterns file would otherwise put a million URLs into memory and the file.
        requests: if spec.settings.request_list {
            RequestList::all(workload.request_infos())
        } else {
            RequestList::default()
        },
        steps: Vec::with_capacity(spec.steps.len() * spec.rounds.max(1)),
        verify: None,
        suite: None,
        thresholds: None,
        find_max: None,
        stopped_by_command: None,
    }
}

/// The run's end: why a ramp that found no saturation stopped, whether it is whole,
/// and its state.
fn close(run: &mut RunResult, spec: &RunSpec, rounds: usize, stop: &Stop) {
    if spec.until_saturated && run.ended_because.is_none() && !stop.is_triggered() {
        if let Some(last) = run.steps.last().filter(|_| run.stop_reason.is_none()) {
            run.ended_because = Some(format!(
                "it reached the cap of {} clients (--end-n-clients) before the target \
                 saturated: raise --end-n-clients",
                last.n_clients
            ));
        }
    }
    let ended_early = run.ended_because.is_some() && !stop.is_triggered();
    if run.steps.len() < spec.steps.len() * rounds && !ended_early {
        run.partial = true;
    }
    run.state = if run.stop_reason.is_some() || run.steps.iter().any(|s| s.failure.is_some()) {
        RunState::Failed
    } else if run.partial {
        RunState::Interrupted
    } else {
        RunState::Complete
    };
}

/// One measured step with its probes around it.
#[allow(clippy::too_many_arguments)]
fn run_one<W: Workload>(
    spec: &RunSpec,
    workload: &Arc<W>,
    engine_cfg: &EngineConfig,
    step: &StepSpec,
    draw: u64,
    stop: &Stop,
    observer: &mut dyn Observer,
    targets: &[String],
    cpus: usize,
    round: usize,
    at: Option<SystemTime>,
) -> StepResult {
    let before = spec.prober.as_ref().map(Prober::snapshot);
    // Last before the load, so the probes' own time does not make the step late.
    let late = at.and_then(|at| start::wait_until(at, stop));
    let mut watch = spec.probe_pid.map(ProcessWatch::start);
    let measured = engine::run_step(workload, engine_cfg, step, draw, stop, &mut |p| {
        if let Some(w) = watch.as_mut() {
            w.sample();
        }
        observer.progress(step, p)
    });
    let server_process = watch.map(ProcessWatch::finish);
    let facts = StepFacts {
        n_clients: step.n_clients.max(1),
        // A shard sends its share of the timetable: its own offered rate.
        rate: step
            .mean_rate()
            .map(|r| r / f64::from(spec.settings.shard.map_or(1, |k| k.count))),
        rate_profile: step
            .rate
            .as_ref()
            .filter(|r| r.fixed_rate().is_none())
            .map(|r| r.to_string()),
        failure: measured.failure,
        started_at: measured.started_at,
        elapsed_s: measured.elapsed.as_secs_f64(),
        partial: measured.partial,
        client_cpu_s: measured.cpu_s,
        cpus,
    };
    let mut result =
        StepResult::from_recorder(facts, &measured.recorder, targets, step.rate.is_some());
    result.round = round;
    result.profile = step_profile(step, spec.settings.shard.map_or(1, |k| k.count));
    result.start_late_s = late.map(|d| d.as_secs_f64());
    result.logins_s = measured.logins.map(|d| d.as_secs_f64());
    result.server_process = server_process;
    if let (Some(prober), Some(before)) = (&spec.prober, before) {
        let after = prober.snapshot();
        result.probes = prober.compare(&before, &after);
        result.cache_hit_rate = probe::combined_hit_rate(&result.probes);
    }
    result
}

/// A step's rate profile of timed segments as the result keeps it (a shard's own
/// share of each rate); `None` for a fixed rate or the closed model.
fn step_profile(step: &StepSpec, shards: u32) -> Option<crate::result::profile::StepProfile> {
    let profile = step.rate.as_ref().filter(|r| r.fixed_rate().is_none())?;
    let mut start_s = 0.0;
    let mut segments = Vec::new();
    for s in profile.segments() {
        let duration_s = s.duration_s?;
        segments.push(crate::result::profile::RateSegment {
            start_s,
            duration_s,
            from: s.from / f64::from(shards),
            to: s.to / f64::from(shards),
        });
        start_s += duration_s;
    }
    Some(crate::result::profile::StepProfile {
        segments,
        verdict: None,
    })
}

/// Rewrite the result files after a step. A failure does not end the run (the
/// measurement is worth more than the file): it is said once, and the command's
/// finish writes the result again at the end, or keeps it in a named temporary file.
pub fn write_outputs(run: &RunResult, out: &Outputs) {
    static WARNED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    if let Err(e) = out.write(run) {
        if !WARNED.swap(true, std::sync::atomic::Ordering::Relaxed) {
            eprintln!("warning: {e}; the run goes on and its end says where the result is kept");
        }
    }
}

/// The commonest error kind of a step with its first message: "connect 812:
/// Connection refused (os error 111)".
pub fn sample_failure(step: &StepResult) -> Option<String> {
    let (kind, n) = step.errors.iter().max_by_key(|(_, n)| **n)?;
    Some(match step.error_samples.get(kind) {
        Some(m) => format!("{kind} {n}: {m}"),
        None => format!("{kind} {n}"),
    })
}

/// Waiting for a step's planned moment on the wall clock that load machines share.
pub mod start {
    use std::time::{Duration, Instant, SystemTime};

    use crate::engine::timer::Timer;
    use crate::engine::Stop;

    /// How long before the moment the coarse, interruptible sleep hands over to the
    /// precise timer.
    const HANDOVER: Duration = Duration::from_millis(20);

    /// Wait until `at`; returns how late the wait ended (zero or a few µs when `at` was
    /// ahead, more when it had already passed), or `None` when the run was stopped.
    pub fn wait_until(at: SystemTime, stop: &Stop) -> Option<Duration> {
        // The wall clock says how far away the moment is; the monotonic clock waits.
        let (now_wall, now) = (SystemTime::now(), Instant::now());
        let Ok(ahead) = at.duration_since(now_wall) else {
            return Some(now_wall.duration_since(at).unwrap_or_default());
        };
        let due = now + ahead;
        if ahead > HANDOVER && stop.sleep(ahead - HANDOVER) {
            return None;
        }
        precise_sleep_until(due);
        (!stop.is_triggered()).then(|| Instant::now().saturating_duration_since(due))
    }

    /// The engine's timer (a timerfd, then a short spin) on a runtime of its own.
    fn precise_sleep_until(due: Instant) {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build();
        let Ok(rt) = rt else {
            std::thread::sleep(due.saturating_duration_since(Instant::now()));
            return;
        };
        let local = tokio::task::LocalSet::new();
        local.block_on(&rt, async {
            let timer = Timer::new();
            let driver = tokio::task::spawn_local(timer.clone().drive());
            timer.sleep_until(due).await;
            driver.abort();
        });
    }
}

/// The exit codes of load commands, as `--help` and the README list them.
pub mod exit {
    /// Measured: every planned step ran and got responses.
    pub const MEASURED: i32 = 0;
    /// Measured, but nothing was answered (every request failed), or a step failed.
    pub const FAILED: i32 = 1;
    /// Bad input (flags, files): refused before any load.
    pub const BAD_INPUT: i32 = 2;
    /// Interrupted (Ctrl-C, SIGTERM); the finished steps are kept.
    pub const INTERRUPTED: i32 = 130;
}

/// The exit code of a finished run, after saying why it is incomplete (see [`exit`]):
/// 1 when a step failed or the run stopped at a step without responses, 130 when it
/// was interrupted, 1 when no request at all was answered, else 0.
pub fn exit_code(run: &RunResult) -> i32 {
    if let Some((i, why)) = run
        .steps
        .iter()
        .enumerate()
        .find_map(|(i, s)| s.failure.as_deref().map(|w| (i, w)))
    {
        eprintln!(
            "hakaru: step {} failed, its numbers are incomplete and the run stopped there: {why}",
            i + 1
        );
        return exit::FAILED;
    }
    if let Some(why) = &run.stop_reason {
        eprintln!("hakaru: {why}");
        return exit::FAILED;
    }
    if run.partial {
        eprintln!(
            "Interrupted: {} step(s) kept; the last one is marked partial.",
            run.steps.len()
        );
        return exit::INTERRUPTED;
    }
    if run.steps.iter().all(|s| s.responses == 0) {
        let why = run
            .steps
            .iter()
            .find_map(sample_failure)
            .map(|s| format!(" ({s})"))
            .unwrap_or_default();
        eprintln!("hakaru: {}{why}", nothing_answered(&run.targets));
        return exit::FAILED;
    }
    if let Some(why) = nothing_succeeded(run) {
        eprintln!("hakaru: {why}");
        return exit::FAILED;
    }
    exit::MEASURED
}

/// The sentence for a run in which nothing was answered, in its unit's words (a
/// SQL run's transactions got no answer; it said "no request got a response").
fn nothing_answered(targets: &[String]) -> String {
    match Work::of(targets) {
        Work::Request => "nothing was answered: no request got a response".into(),
        work => format!("nothing was answered: no {} got an answer", work.item()),
    }
}

/// A run that got answers but not one success is a failed measurement: every
/// response a failure status (a 500 to everything, a 404 for a database that does not
/// exist), or a write of which the server acknowledged nothing.
pub fn nothing_succeeded(run: &RunResult) -> Option<String> {
    let statuses = || {
        run.steps.iter().flat_map(|s| {
            s.statuses
                .iter()
                .map(|(c, n)| (s.ok_status.contains(*c), *c, *n))
        })
    };
    let ok: u64 = statuses().filter(|(good, ..)| *good).map(|(.., n)| n).sum();
    let mut bad = std::collections::BTreeMap::<u16, u64>::new();
    for (_, c, n) in statuses().filter(|(good, ..)| !good) {
        *bad.entry(c).or_default() += n;
    }
    let bad_list = || {
        let codes: Vec<String> = bad.iter().map(|(c, n)| format!("{n} × {c}")).collect();
        codes.join(", ")
    };
    let hint = if bad.contains_key(&404) {
        " — 404: is the path right, and does the database or index exist?"
    } else {
        ""
    };
    let items = run.steps.iter().filter_map(|s| s.items.as_ref());
    let (sent, acked) = items.fold((0, 0), |(s, a), i| (s + i.sent, a + i.ok));
    if run.mode == Mode::Bulk && sent > 0 && acked == 0 {
        let create = if bad.contains_key(&404) {
            " — the server answered 404: create the database first (CouchDB: curl -X PUT URL)"
        } else {
            ""
        };
        return Some(format!(
            "nothing was acknowledged: the server kept none of the {sent} documents sent{create}"
        ));
    }
    if ok == 0 && !bad.is_empty() {
        return Some(format!(
            "nothing succeeded: every response was a failure status ({}){hint}",
            bad_list()
        ));
    }
    None
}

/// Less than this gain in throughput from one step to the next is no gain
/// (`--until-saturated`).
pub const SATURATION_GAIN: f64 = 0.05;
/// Mean latency past this many times the first step's means queueing
/// (`--until-saturated`).
pub const SATURATION_LATENCY: f64 = 2.0;

/// `--until-saturated`'s rule over the steps so far: saturated when the last two
/// steps each added less than [`SATURATION_GAIN`] of throughput, or the last step's
/// mean latency passed [`SATURATION_LATENCY`] times the first step's. The reason, in
/// the run's words (a SQL run's transactions and tps), or `None` to go on.
pub fn saturated(steps: &[StepResult], work: Work) -> Option<String> {
    let (first, last) = (steps.first()?, steps.last()?);
    if steps.len() >= 2
        && first.latency.mean_s > 0.0
        && last.latency.mean_s > SATURATION_LATENCY * first.latency.mean_s
    {
        // "After", not "saturated at": the step that shows saturation is where the
        // ramp stops, which may lie well past where throughput levelled off.
        return Some(format!(
            "saturation showed at {} clients, the last step: mean latency {:.3} ms passed \
             {SATURATION_LATENCY}× the first step's {:.3} ms ({} queue instead of \
             adding throughput)",
            last.n_clients,
            last.latency.mean_s * 1e3,
            first.latency.mean_s * 1e3,
            work.items(),
        ));
    }
    if let [.., a, b, c] = steps {
        let gain = |x: &StepResult, y: &StepResult| y.qps < x.qps * (1.0 + SATURATION_GAIN);
        if gain(a, b) && gain(b, c) {
            return Some(format!(
                "saturation showed at {} clients, the last step: the last two steps added \
                 less than {:.0}% throughput each ({:.0} → {:.0} → {:.0} {})",
                c.n_clients,
                SATURATION_GAIN * 100.0,
                a.qps,
                b.qps,
                c.qps,
                work.per_s()
            ));
        }
    }
    None
}

/// `--until-saturated`'s steps: from `start` (0 means 1) doubling to `cap`, the cap
/// itself last.
pub fn doubling_steps(start: usize, cap: usize) -> Vec<usize> {
    let mut out = Vec::new();
    let mut n = start.max(1);
    while n < cap {
        out.push(n);
        n = n.saturating_mul(2);
    }
    out.push(cap.max(1));
    out.dedup();
    out
}

/// drnbench's steps: from `start` to `end` by `step`, where 0 clients means 1.
/// Unlike drnbench, `--start-n-clients=0 --step=1` runs the 1-client step once, not
/// twice, and `end` is always measured: a last step at `end` when `step` does not
/// land on it (1 to 10 by 4 is 1, 5, 9, 10), since the flag promised that load.
pub fn client_steps(start: usize, end: usize, step: usize) -> Vec<usize> {
    let mut steps: Vec<usize> = (start..=end)
        .step_by(step.max(1))
        .map(|n| n.max(1))
        .collect();
    if steps.last().is_some_and(|&last| last < end) {
        steps.push(end);
    }
    steps.dedup();
    steps
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(n_clients: usize, qps: f64, mean_ms: f64) -> StepResult {
        let mut s = crate::result::fixture::bare_step(n_clients);
        s.qps = qps;
        s.latency.mean_s = mean_ms / 1e3;
        s
    }

    #[test]
    fn saturated_when_two_steps_in_a_row_add_little() {
        let mut steps = vec![step(1, 100.0, 10.0), step(2, 190.0, 10.5)];
        assert_eq!(saturated(&steps, Work::Request), None);
        steps.push(step(4, 195.0, 15.0));
        // One small gain is not enough: the next step may still add.
        assert_eq!(saturated(&steps, Work::Request), None);
        steps.push(step(8, 196.0, 19.0));
        let why = saturated(&steps, Work::Request).unwrap();
        assert!(
            why.starts_with("saturation showed at 8 clients, the last step: the last two steps"),
            "{why}"
        );
    }

    #[test]
    fn saturated_when_mean_latency_passes_twice_the_first() {
        let steps = [step(1, 100.0, 10.0), step(2, 150.0, 20.5)];
        let why = saturated(&steps, Work::Request).unwrap();
        assert!(
            why.contains("passed 2× the first step's 10.000 ms"),
            "{why}"
        );
    }

    /// `ramp --until-saturated postgres://…` ended "(100 → 190 → 195 req/s)" with
    /// "(requests queue …)": a SQL run's throughput is tps, its work transactions.
    #[test]
    fn a_sql_run_s_saturation_says_tps_and_transactions_never_req_s() {
        let steps = [
            step(1, 100.0, 10.0),
            step(2, 102.0, 10.5),
            step(4, 103.0, 11.0),
        ];
        let why = saturated(&steps, Work::Transaction).unwrap();
        assert!(why.ends_with("(100 → 102 → 103 tps)"), "{why}");
        let steps = [step(1, 100.0, 10.0), step(2, 150.0, 20.5)];
        let why = saturated(&steps, Work::Transaction).unwrap();
        assert!(why.contains("(transactions queue instead"), "{why}");
    }

    #[test]
    fn nothing_answered_says_transactions_for_a_sql_run() {
        let sql = ["postgres://bench@127.0.0.1:5432/bench".to_string()];
        assert_eq!(
            nothing_answered(&sql),
            "nothing was answered: no transaction got an answer"
        );
        let http = ["http://127.0.0.1:8080/".to_string()];
        assert!(nothing_answered(&http).ends_with("no request got a response"));
    }

    #[test]
    fn doubling_steps_end_at_the_cap() {
        assert_eq!(doubling_steps(0, 20), vec![1, 2, 4, 8, 16, 20]);
        assert_eq!(doubling_steps(1, 16), vec![1, 2, 4, 8, 16]);
        assert_eq!(doubling_steps(3, 3), vec![3]);
    }

    #[test]
    fn start_waits_for_the_moment_and_says_how_late() {
        let stop = Stop::default();
        let at = SystemTime::now() + Duration::from_millis(50);
        let late = start::wait_until(at, &stop).unwrap();
        assert!(SystemTime::now() >= at);
        assert!(late < Duration::from_secs(5), "{late:?}");
        // A moment already past: no wait, and its lateness.
        let past = SystemTime::now() - Duration::from_secs(3);
        assert!(start::wait_until(past, &stop).unwrap() >= Duration::from_secs(3));
        stop.trigger();
        let later = SystemTime::now() + Duration::from_secs(60);
        assert_eq!(start::wait_until(later, &stop), None);
    }

    #[test]
    fn tutorial_steps() {
        assert_eq!(
            client_steps(0, 20, 2),
            vec![1, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20]
        );
        assert_eq!(client_steps(1, 32, 1).len(), 32);
        assert_eq!(client_steps(5, 5, 3), vec![5]);
        assert_eq!(client_steps(0, 3, 1), vec![1, 2, 3]);
    }

    /// Issue 35: `--end-n-clients 10 --step 4` stopped at 9 clients, never at 10.
    #[test]
    fn the_end_client_count_is_always_a_step() {
        assert_eq!(client_steps(1, 10, 4), vec![1, 5, 9, 10]);
        assert_eq!(client_steps(0, 10, 4), vec![1, 4, 8, 10]);
        assert_eq!(client_steps(1, 9, 4), vec![1, 5, 9]);
    }

    #[test]
    fn a_failed_step_fails_the_run() {
        let mut step = crate::result::fixture::bare_step(1);
        step.responses = 1;
        let mut run = crate::result::fixture::run(vec![step.clone()]);
        assert_eq!(exit_code(&run), 0);
        run.partial = true;
        assert_eq!(exit_code(&run), 130);
        step.failure = Some("a worker failed: boom".into());
        run.steps.push(step);
        assert_eq!(exit_code(&run), 1);
    }

    #[test]
    fn nothing_answered_is_a_failure_and_a_stop_reason_too() {
        use crate::stats::ErrorKind;
        let mut answered = crate::result::fixture::bare_step(1);
        answered.responses = 3;
        let mut dead = crate::result::fixture::bare_step(2);
        dead.errors.insert(ErrorKind::Connect, 9);
        dead.error_samples.insert(
            ErrorKind::Connect,
            "Connection refused (os error 111)".into(),
        );
        assert_eq!(
            sample_failure(&dead).as_deref(),
            Some("connect 9: Connection refused (os error 111)")
        );
        let mut run = crate::result::fixture::run(vec![dead.clone()]);
        assert_eq!(exit_code(&run), exit::FAILED);
        run.steps.insert(0, answered);
        assert_eq!(exit_code(&run), exit::MEASURED);
        run.stop_reason = Some("step 2 got no response at all".into());
        assert_eq!(exit_code(&run), exit::FAILED);
    }
}
