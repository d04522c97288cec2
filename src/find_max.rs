//! The driver of `ramp --find-max`: asks the [`Search`] for the next rate, runs that
//! probe through the runner (one open-model step, so the server's queue carries from
//! the probe's start to its end), cuts it into parts from its per-second timeline (so
//! the judge can see whether that queue grew), judges it, and writes the result after
//! every probe, so a stopped search keeps what it learned. Knows nothing of how
//! requests are made.

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::analysis::find_max::{cut_parts, judge_probe, Ended, Next, Search, PARTS};
use crate::engine::{EngineConfig, RateProfile, StepSpec, Stop, Workload};
use crate::result::find_max::{Confirming, FindMaxResult, ProbeResult, Repeat, Settle};
use crate::result::{RunResult, RunState};
use crate::runner::{self, Observer, RampError, RunSpec};
use crate::spec::find_max::FindMaxSpec;

/// A rate whose probes keep ending with too few responses (or with hakaru behind its
/// timetable) is probed at most this many times as long before that counts as a
/// failure.
const MAX_STRETCH: u32 = 4;

/// One settle check runs at least this long, and long enough for
/// [`SETTLE_SAMPLES`] responses, but never longer than [`SETTLE_CHECK_MAX`].
const SETTLE_CHECK: Duration = Duration::from_millis(500);
const SETTLE_CHECK_MAX: Duration = Duration::from_secs(5);
const SETTLE_SAMPLES: f64 = 20.0;
/// The checks give up after this long, and the probe runs anyway (said in its row).
const SETTLE_LIMIT: Duration = Duration::from_secs(60);
/// A settled target answers within this many times the baseline's p50, plus
/// [`SETTLE_SLACK`] (the scheduling noise of a busy machine).
const SETTLE_FACTOR: f64 = 1.5;
const SETTLE_SLACK: Duration = Duration::from_millis(1);

/// The longest a search can take, every wait included: each probe the search judges
/// may first run with too few responses at 1 and 2 times its length before its run at
/// [`MAX_STRETCH`] times is judged, and each of those runs, after one that did not
/// pass, may wait [`SETTLE_LIMIT`] (and the check then under way) for the target to
/// settle, besides `--interval`. The guide used to say the planned length
/// ([`FindMaxSpec::planned`]) held for the whole search; it leaves out both.
pub fn longest(fm: &FindMaxSpec) -> Duration {
    let (mut lengths, mut runs, mut stretch) = (0u32, 0u32, 1u32);
    while stretch <= MAX_STRETCH {
        lengths += stretch;
        runs += 1;
        stretch *= 2;
    }
    let probe = fm.probe_length(fm.limits.min_rate);
    let wait = fm.interval + SETTLE_LIMIT + SETTLE_CHECK_MAX;
    (probe * lengths + wait * runs) * fm.limits.max_probes as u32
}

/// What the driver tells the terminal besides the runner's progress.
pub trait ProbeObserver: Observer {
    /// Before a probe: its number (from 0), rate and length.
    fn probe_started(&mut self, _index: usize, _rate: f64, _length_s: f64) {}
    /// After the checks before a probe that follows a failed one.
    fn settled(&mut self, _s: &Settle) {}
    /// After a probe was judged.
    fn probe_finished(&mut self, _index: usize, _fm: &FindMaxResult) {}
}

/// Runs the search. `base` carries what every probe shares (connections in its first
/// step, settings, probes, outputs, warm-up before the first probe only).
pub fn run<W: Workload>(
    fm: &FindMaxSpec,
    base: &RunSpec,
    workload: &Arc<W>,
    engine: &EngineConfig,
    stop: &Stop,
    observer: &mut dyn ProbeObserver,
) -> Result<RunResult, RampError> {
    let connections = base.steps.first().map_or(1, |s| s.n_clients);
    let mut search = Search::new(fm.limits);
    let mut run: Option<RunResult> = None;
    let mut probes: Vec<ProbeResult> = Vec::new();
    // The index in `probes` of each probe the search recorded (it does not record
    // the inconclusive ones), in order: the search's index of a probe maps to ours.
    let mut recorded: Vec<usize> = Vec::new();
    // Every load the search runs (probes and settle checks) draws requests of its
    // own, so that a probe repeated at a rate does not answer from the last one's cache.
    let mut draws = 0u64;
    let mut ended = Ended::Interrupted;
    // A probe with too few responses and nothing else wrong runs again, longer.
    let (mut stretch, mut last_rate) = (1u32, None);
    loop {
        let rate = match search.next() {
            Next::Probe(r) => r,
            Next::Done(e) => {
                ended = e;
                break;
            }
        };
        if last_rate != Some(rate) {
            stretch = 1;
        }
        last_rate = Some(rate);
        if !probes.is_empty() && !fm.interval.is_zero() {
            observer.interval(fm.interval);
            if stop.sleep(fm.interval) {
                break;
            }
        }
        // After a probe that did not pass (failed, or not judged because hakaru fell
        // behind a target that queued), the target may still be draining its queue:
        // the next probe would measure that backlog. Wait until it answers as it did.
        let settle = match (probes.last(), baseline(&probes, run.as_ref())) {
            (Some(last), Some(first)) if !last.passed => {
                let check = Check {
                    base,
                    connections,
                    // Low enough not to queue behind itself, at most the baseline's.
                    rate: first.0.min(last.rate / 4.0),
                    baseline_p50_s: first.1,
                };
                let s = settle(&check, workload, engine, stop, &mut draws)?;
                observer.settled(&s);
                Some(s)
            }
            _ => None,
        };
        if stop.is_triggered() {
            break;
        }
        let length = fm.probe_length(rate) * stretch;
        observer.probe_started(probes.len(), rate, length.as_secs_f64());
        // The spec bounds every rate the search can reach; stop rather than panic.
        let Some(spec) = probe_spec(
            base,
            connections,
            rate,
            length,
            probes.is_empty(),
            take(&mut draws),
        ) else {
            break;
        };
        let measured = runner::run(&spec, workload, engine, stop, observer)?;
        let out = run.get_or_insert_with(|| RunResult {
            steps: Vec::new(),
            ..measured.clone()
        });
        // Stopped within the probe: nothing to judge (a failed step is judged, and
        // ends the search below).
        let judged = measured.steps.first();
        let Some(whole) = judged
            .filter(|s| !s.partial || s.failure.is_some())
            .cloned()
        else {
            out.partial = true;
            break;
        };
        let parts = match cut_parts(&whole, PARTS) {
            Ok(p) => p,
            // Fresh histograms always decode; a failure here is a failed run, not a probe.
            Err(why) => {
                out.state = RunState::Failed;
                out.stop_reason = Some(format!("a probe's timeline could not be cut: {why}"));
                break;
            }
        };
        let failed_step = whole.failure.clone();
        let mut probe = judge_probe(&fm.slo, rate, &parts, &whole);
        probe.step = out.steps.len();
        probe.settle = settle;
        probe.repeat = repeat_of(&search, &recorded, &probes, rate);
        // Too few responses, or hakaru itself behind its timetable, with nothing else
        // wrong: the probe says nothing about the server yet.
        probe.inconclusive = (probe.too_few_samples || probe.client_behind)
            && probe.failed.is_empty()
            && !probe.queue_growing
            && stretch < MAX_STRETCH;
        // In the run's words: a SQL run's transactions, a store's commands.
        let work = crate::report::fmt::Work::of(&measured.targets);
        probe.why = crate::report::find_max::why(&probe, work);
        out.steps.push(whole);
        out.partial |= measured.partial;
        if probe.inconclusive {
            stretch *= 2;
        }
        record(&mut search, &mut recorded, &mut probes, probe);
        out.find_max = Some(summary(fm, &search, &probes, Ended::Interrupted));
        out.state = RunState::Running;
        if let Some(files) = &base.outputs {
            write(out, files)?;
        }
        observer.probe_finished(probes.len() - 1, out.find_max.as_ref().expect("just set"));
        if failed_step.is_some() || measured.partial {
            break;
        }
    }
    let mut out = run.unwrap_or_else(|| empty_run(base));
    let failed = out.steps.iter().any(|s| s.failure.is_some()) || out.state == RunState::Failed;
    if stop.is_triggered() {
        out.partial = true;
        ended = Ended::Interrupted;
    }
    out.find_max = Some(summary(fm, &search, &probes, ended));
    out.state = if failed {
        RunState::Failed
    } else if out.partial {
        RunState::Interrupted
    } else {
        RunState::Complete
    };
    if let Some(files) = &base.outputs {
        write(&out, files)?;
    }
    Ok(out)
}

/// One probe as the runner runs it: one open-model step at `rate` for `length`, so
/// the requests in flight at one second are still there the next (a probe run as
/// parts back to back dropped them at each part's end, and a 6% overload read as
/// flat medians); the run's warm-up before the first probe only. `None` for a rate no
/// profile can hold.
fn probe_spec(
    base: &RunSpec,
    connections: usize,
    rate: f64,
    length: std::time::Duration,
    first: bool,
    draw: u64,
) -> Option<RunSpec> {
    let profile = Arc::new(RateProfile::constant(rate).ok()?);
    let step = StepSpec {
        n_clients: connections,
        duration: Some(length),
        n_requests: None,
        rate: Some(profile),
    };
    Some(RunSpec {
        mode: base.mode,
        command_line: base.command_line.clone(),
        steps: vec![step],
        interval: std::time::Duration::ZERO,
        settings: base.settings.clone(),
        outputs: None,
        prober: base.prober.clone(),
        probe_pid: base.probe_pid,
        rounds: 1,
        warmup: if first { base.warmup } else { None },
        // A probe without responses does not end the search here: it fails on its
        // own numbers.
        keep_going: true,
        until_saturated: false,
        hooks: None,
        // Probes follow one another as the search decides: no shared schedule.
        start_at: None,
        before: Default::default(),
        first_draw: draw,
    })
}

/// Tells the search a probe's verdict (an inconclusive probe counts only against
/// `--max-probes`) and keeps the probe; a repeat that passed leaves the failure it
/// was confirming unconfirmed.
fn record(
    search: &mut Search,
    recorded: &mut Vec<usize>,
    probes: &mut Vec<ProbeResult>,
    probe: ProbeResult,
) {
    if probe.inconclusive {
        search.record_inconclusive();
    } else {
        recorded.push(probes.len());
        search.record(probe.rate, probe.passed);
    }
    probes.push(probe);
    for (i, &at) in recorded.iter().enumerate() {
        probes[at].unconfirmed = search.is_unconfirmed(i);
    }
}

/// Whether a probe at `rate`, about to be recorded, runs an earlier probe's rate
/// again: to confirm the failure the search awaits a repeat of, or the pass at the
/// rate (the search probes a rate that passed again only to confirm the answer).
fn repeat_of(
    search: &Search,
    judged: &[usize],
    probes: &[ProbeResult],
    rate: f64,
) -> Option<Repeat> {
    if let Some(&of) = search.awaiting_repeat().and_then(|i| judged.get(i)) {
        return Some(Repeat {
            of,
            confirming: Confirming::Failure,
        });
    }
    let of = probes.iter().rposition(|p| p.passed && p.rate == rate)?;
    Some(Repeat {
        of,
        confirming: Confirming::Pass,
    })
}

/// The next of the search's draws.
fn take(draws: &mut u64) -> u64 {
    *draws += 1;
    *draws - 1
}

/// The first probe that passed: its rate and median response time, what a target
/// that is not draining an earlier overload answers like.
fn baseline(probes: &[ProbeResult], run: Option<&RunResult>) -> Option<(f64, f64)> {
    let p = probes.iter().find(|p| p.passed)?;
    let step = run?.steps.get(p.step)?;
    (step.latency.count > 0).then_some((p.rate, step.latency.p50_s))
}

/// The settle checks' load and what they compare with.
struct Check<'a> {
    base: &'a RunSpec,
    connections: usize,
    rate: f64,
    baseline_p50_s: f64,
}

/// Short checks at a low rate until one answers within [`SETTLE_FACTOR`] of the
/// baseline's median (and without a failure), or [`SETTLE_LIMIT`] passed.
fn settle<W: Workload>(
    c: &Check<'_>,
    workload: &Arc<W>,
    engine: &EngineConfig,
    stop: &Stop,
    draws: &mut u64,
) -> Result<Settle, RampError> {
    let length = Duration::from_secs_f64(SETTLE_SAMPLES / c.rate.max(1e-3))
        .clamp(SETTLE_CHECK, SETTLE_CHECK_MAX);
    let bound = c.baseline_p50_s * SETTLE_FACTOR + SETTLE_SLACK.as_secs_f64();
    let started = Instant::now();
    let mut s = Settle {
        rate: c.rate,
        baseline_p50_s: c.baseline_p50_s,
        ..Settle::default()
    };
    let Ok(profile) = RateProfile::constant(c.rate) else {
        return Ok(s);
    };
    let mut spec = RunSpec {
        mode: c.base.mode,
        steps: vec![StepSpec {
            n_clients: c.connections,
            duration: Some(length),
            n_requests: None,
            rate: Some(Arc::new(profile)),
        }],
        settings: c.base.settings.clone(),
        rounds: 1,
        keep_going: true,
        ..RunSpec::default()
    };
    while !stop.is_triggered() && started.elapsed() < SETTLE_LIMIT {
        spec.first_draw = take(draws);
        let checked = runner::run(&spec, workload, engine, stop, &mut runner::Quiet)?;
        s.checks += 1;
        let Some(step) = checked.steps.first() else {
            break;
        };
        s.last_p50_s = (step.latency.count > 0).then_some(step.latency.p50_s);
        let failures = step.error_total() + step.non_success();
        if failures == 0 && s.last_p50_s.is_some_and(|p| p <= bound) {
            s.settled = true;
            break;
        }
    }
    s.waited_s = started.elapsed().as_secs_f64();
    Ok(s)
}

/// The search as the result keeps it.
fn summary(
    fm: &FindMaxSpec,
    search: &Search,
    probes: &[ProbeResult],
    ended: Ended,
) -> FindMaxResult {
    let answer = search.highest_pass();
    let lowest_failed = search.lowest_fail();
    FindMaxResult {
        slo: fm.slo.iter().map(|t| t.text.clone()).collect(),
        max_sustainable_rate: answer,
        confirmed: answer.is_some_and(|r| search.confirmed(r)),
        lowest_failed_rate: lowest_failed,
        uncertainty: answer.zip(lowest_failed).map(|(lo, hi)| (hi - lo) / lo),
        min_samples: fm.min_samples,
        probe_duration_s: fm.probe_duration.as_secs_f64(),
        ended: ended.as_str().into(),
        probes: probes.to_vec(),
    }
}

/// A search stopped before its first probe ended: a run with no steps.
fn empty_run(base: &RunSpec) -> RunResult {
    RunResult {
        schema_version: crate::result::SCHEMA_VERSION,
        tool: format!("hakaru {}", env!("CARGO_PKG_VERSION")),
        command_line: base.command_line.clone(),
        mode: base.mode,
        started_at: crate::sysinfo::now_rfc3339(),
        partial: true,
        state: RunState::Interrupted,
        stop_reason: None,
        ended_because: None,
        settings: base.settings.clone(),
        machine: crate::sysinfo::machine(),
        targets: Vec::new(),
        requests: Default::default(),
        steps: Vec::new(),
        verify: None,
        suite: None,
        thresholds: None,
        find_max: None,
        stopped_by_command: None,
    }
}

fn write(run: &RunResult, files: &crate::result::store::Outputs) -> Result<(), RampError> {
    crate::runner::write_outputs(run, files);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The guide said the planned length bounded the whole search; a search whose
    /// probes rerun longer and whose target is slow to settle runs past it. The worst
    /// case: runs of 5, 10 and 20 s for each judged probe, each after its 1 s pause
    /// and a settle wait of at most 60 s plus a 5 s check.
    #[test]
    fn the_longest_search_counts_every_rerun_and_settle_wait() {
        let fm = crate::spec::find_max::FindMaxOptions {
            slo: crate::spec::threshold::parse_list("p99<50ms").expect("valid"),
            start_rate: 10_000.0,
            max_rate: 1e6,
            max_probes: 12,
            precision_pct: 5.0,
            probe_duration: Duration::from_secs(5),
            interval: Duration::from_secs(1),
        }
        .check()
        .expect("valid");
        let probe = fm.probe_length(fm.limits.min_rate);
        assert_eq!(fm.planned(), (probe + Duration::from_secs(1)) * 12);
        assert_eq!(
            longest(&fm),
            (probe * (1 + 2 + 4) + Duration::from_secs(1 + 60 + 5) * 3) * 12
        );
        assert!(longest(&fm) > fm.planned() * 3);
    }

    /// Regression: probes took `rate.to_bits()` as their draw, so a probe repeated at
    /// its rate (longer, or to confirm) sent the very requests of the one before and
    /// could answer from the target's cache; settle checks all replayed draw 0.
    #[test]
    fn every_load_of_a_search_draws_its_own_requests() {
        let mut draws = 0;
        let base = RunSpec::default();
        let length = Duration::from_secs(1);
        let a = probe_spec(&base, 4, 100.0, length, true, take(&mut draws)).unwrap();
        let b = probe_spec(&base, 4, 100.0, length, false, take(&mut draws)).unwrap();
        assert_eq!((a.first_draw, b.first_draw), (0, 1));
        assert_eq!(take(&mut draws), 2);
    }
}
