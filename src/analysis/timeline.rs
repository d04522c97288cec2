//! A run second by second: every step's per-second timeline laid on one clock, and
//! what a person looks for in it — the second at which latency rose, and the second at
//! which failures began. Numbers only; `report` says them.
//!
//! Steps are laid end to end with the run's interval between them (what the runner
//! did), so a ramp, a rate profile and a scenario's phases read as one time axis.

use hdrhistogram::Histogram;

use crate::result::timeline::SecondResult;
use crate::result::{decode_histogram, RunResult};

/// One entry of a step's timeline on the run's clock.
#[derive(Debug, Clone, PartialEq)]
pub struct RunSecond {
    /// Seconds from the run's first step's start to this entry's start.
    pub t_s: f64,
    /// The entry's width, seconds: 1, more where a long step was coarsened, the part
    /// of it the step lasted for its last entry, or that second and a sliver of a tail
    /// merged into it.
    pub span_s: f64,
    /// Index of the step in [`RunResult::steps`].
    pub step: usize,
    /// Requests that ended in the entry: responses plus errors.
    pub requests: u64,
    /// Responses (any status): the samples its percentiles rest on.
    pub responses: u64,
    /// Responses with a success status.
    pub ok: u64,
    /// Errors plus responses whose status is not a success.
    pub failed: u64,
    pub p50_s: f64,
    pub p99_s: f64,
    pub max_s: f64,
}

/// A step's last entry covers only what was left of the step; shorter than this, it
/// says too little to stand alone (a rate over 20 ms, or the few stragglers after the
/// end) and is merged into the second before it.
const MIN_COVERED_S: f64 = 0.25;

/// A percentile resting on fewer responses than this is marked on a chart, not drawn
/// as a point of its curve: the p99 of 3 responses is their slowest, a spike of noise.
pub const MIN_PERCENTILE_SAMPLES: u64 = 10;

impl RunSecond {
    /// `covered`: how much of the entry the step lasted (its last entry is cut short).
    fn of(step: usize, offset: f64, covered: f64, s: &SecondResult) -> RunSecond {
        RunSecond {
            t_s: offset + s.second as f64,
            span_s: covered,
            step,
            requests: s.total(),
            responses: s.responses,
            ok: s.ok(),
            failed: s.error_total() + s.bad_status.min(s.responses),
            p50_s: s.p50_s,
            p99_s: s.p99_s,
            max_s: s.max_s,
        }
    }

    /// Add a tail `s` that lasted `covered` seconds; `h` holds this entry's histogram
    /// so far (its percentiles are then those of both, exactly).
    fn absorb(&mut self, h: &mut Option<Histogram<u64>>, s: &SecondResult, covered: f64) {
        self.span_s += covered;
        self.requests += s.total();
        self.responses += s.responses;
        self.ok += s.ok();
        self.failed += s.error_total() + s.bad_status.min(s.responses);
        self.max_s = self.max_s.max(s.max_s);
        let (Some(h), Ok(tail)) = (h.as_mut(), decode_histogram(&s.histogram)) else {
            return;
        };
        if h.add(&tail).is_ok() && !h.is_empty() {
            let us = |v: u64| v as f64 / 1e6;
            self.p50_s = us(h.value_at_quantile(0.5));
            self.p99_s = us(h.value_at_quantile(0.99));
        }
    }

    /// Its p99 rests on fewer than [`MIN_PERCENTILE_SAMPLES`] responses.
    pub fn sparse(&self) -> bool {
        self.responses < MIN_PERCENTILE_SAMPLES
    }

    /// Requests per second over the entry.
    pub fn rate(&self) -> f64 {
        self.requests as f64 / self.span_s
    }

    /// Responses with a success status per second.
    pub fn ok_rate(&self) -> f64 {
        self.ok as f64 / self.span_s
    }

    /// Failures per second.
    pub fn failed_rate(&self) -> f64 {
        self.failed as f64 / self.span_s
    }
}

/// Where each step starts on the run's clock: end to end, the interval between.
pub fn step_offsets(run: &RunResult) -> Vec<f64> {
    step_spans(run)
        .into_iter()
        .map(|(start, _)| start)
        .collect()
}

/// Where each step starts and ends on the run's clock.
pub fn step_spans(run: &RunResult) -> Vec<(f64, f64)> {
    let gap = run.settings.interval_s.max(0.0);
    let mut at = 0.0;
    run.steps
        .iter()
        .map(|s| {
            let span = (at, at + s.elapsed_s.max(0.0));
            at = span.1 + gap;
            span
        })
        .collect()
}

/// When the run's last step ended, on the run's clock: where every chart over time
/// ends.
pub fn run_end(run: &RunResult) -> f64 {
    step_spans(run).last().map_or(0.0, |s| s.1)
}

/// One step's timeline (its own, or one label's) on the run's clock: entry `s` at
/// `offset + s.second`, as wide as the step lasted in it; a last entry the step
/// lasted less than [`MIN_COVERED_S`] of (and any straggler after the step's end)
/// merged into the second before it, counts and histograms added. Never shifted.
pub fn step_seconds(
    step: usize,
    offset: f64,
    elapsed_s: f64,
    t: &[SecondResult],
) -> Vec<RunSecond> {
    let end = elapsed_s.max(0.0);
    let mut out: Vec<RunSecond> = Vec::with_capacity(t.len());
    // The last entry's histogram, decoded once a tail is merged into it.
    let mut last: Option<(&SecondResult, Option<Histogram<u64>>)> = None;
    for s in t {
        let covered = (s.span_s.max(1) as f64).min(end - s.second as f64).max(0.0);
        match (out.last_mut(), last.as_mut()) {
            (Some(prev), Some((src, h))) if covered < MIN_COVERED_S => {
                if h.is_none() {
                    *h = decode_histogram(&src.histogram).ok();
                }
                prev.absorb(h, s, covered);
            }
            _ => {
                // A step shorter than a quarter second: its one entry at its true width.
                out.push(RunSecond::of(step, offset, covered.max(1e-3), s));
                last = Some((s, None));
            }
        }
    }
    out
}

/// Every step's timeline on the run's clock, in order; empty when no step kept one.
pub fn run_seconds(run: &RunResult) -> Vec<RunSecond> {
    let spans = step_spans(run);
    run.steps
        .iter()
        .zip(spans)
        .enumerate()
        .flat_map(|(i, (step, (start, _)))| {
            step_seconds(
                i,
                start,
                step.elapsed_s,
                step.timeline.as_deref().unwrap_or(&[]),
            )
        })
        .collect()
}

/// A second's p99 counts only with this many responses: fewer say little.
const MIN_RESPONSES: u64 = MIN_PERCENTILE_SAMPLES;
/// Latency "rose" when a second's p99 passes this many times the run's first seconds'.
const RISE_FACTOR: f64 = 2.0;
/// ... and stays there this many entries in a row (or until the run ends), so one
/// noisy second on a busy machine is not called a rise.
const RISE_HOLD: usize = 2;

/// The second at which latency rose, and by how much.
#[derive(Debug, Clone, PartialEq)]
pub struct Rise {
    /// When, on the run's clock (the entry's start), seconds.
    pub at_s: f64,
    /// Which step it was in.
    pub step: usize,
    /// The p99 of the run's first seconds (their median), seconds.
    pub baseline_p99_s: f64,
    /// That entry's p99, seconds.
    pub p99_s: f64,
    /// Requests per second ending in that entry.
    pub rate: f64,
}

/// The first entry whose p99 passes [`RISE_FACTOR`] × the first seconds' p99 and stays
/// above it for [`RISE_HOLD`] entries (or to the end); `None` when latency held, or
/// when too few seconds say what "before" was.
pub fn latency_rise(seconds: &[RunSecond]) -> Option<Rise> {
    let counted: Vec<&RunSecond> = seconds
        .iter()
        .filter(|s| s.requests - s.failed.min(s.requests) >= MIN_RESPONSES)
        .collect();
    // "Before" is the run's first tenth; a short run's first quarter, one to three
    // seconds (a 3-second spike has one second before it).
    let base_n = match counted.len() {
        n if n >= 30 => n / 10,
        n => (n / 4).clamp(1, 3),
    };
    if counted.len() < base_n + 1 {
        return None;
    }
    let mut base: Vec<f64> = counted[..base_n].iter().map(|s| s.p99_s).collect();
    base.sort_by(f64::total_cmp);
    let baseline = base[base.len() / 2];
    if baseline <= 0.0 {
        return None;
    }
    let high = |s: &RunSecond| s.p99_s > baseline * RISE_FACTOR;
    let rest = &counted[base_n..];
    (0..rest.len())
        .find(|&i| rest[i..].iter().take(RISE_HOLD).all(|s| high(s)))
        .map(|i| Rise {
            at_s: rest[i].t_s,
            step: rest[i].step,
            baseline_p99_s: baseline,
            p99_s: rest[i].p99_s,
            rate: rest[i].rate(),
        })
}

/// A second's failures count as "failures began" past this share of its requests.
const FAILING_SHARE: f64 = 0.01;

/// When failures began: the first entry where more than 1% of the requests failed.
#[derive(Debug, Clone, PartialEq)]
pub struct Failing {
    pub at_s: f64,
    pub step: usize,
    /// Failed share of that entry's requests, 0..1.
    pub share: f64,
    pub rate: f64,
}

/// The first entry in which more than 1% of the requests failed; `None` when none did.
pub fn failures_began(seconds: &[RunSecond]) -> Option<Failing> {
    seconds
        .iter()
        .find(|s| s.requests > 0 && s.failed as f64 > FAILING_SHARE * s.requests as f64)
        .map(|s| Failing {
            at_s: s.t_s,
            step: s.step,
            share: s.failed as f64 / s.requests as f64,
            rate: s.rate(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn second(t: f64, requests: u64, failed: u64, p99_ms: f64) -> RunSecond {
        RunSecond {
            t_s: t,
            span_s: 1.0,
            step: 0,
            requests,
            responses: requests,
            ok: requests - failed,
            failed,
            p50_s: p99_ms / 2e3,
            p99_s: p99_ms / 1e3,
            max_s: p99_ms / 1e3,
        }
    }

    #[test]
    fn a_rise_is_found_where_it_holds() {
        let mut s: Vec<RunSecond> = (0..6).map(|t| second(t as f64, 100, 0, 2.0)).collect();
        // One noisy second is not a rise; two in a row are.
        s.push(second(6.0, 100, 0, 9.0));
        s.push(second(7.0, 100, 0, 2.1));
        s.push(second(8.0, 400, 0, 30.0));
        s.push(second(9.0, 500, 0, 80.0));
        let r = latency_rise(&s).expect("a rise");
        assert_eq!(r.at_s, 8.0);
        assert!((r.baseline_p99_s - 0.002).abs() < 1e-9);
        assert_eq!(r.rate, 400.0);
        // Steady latency: nothing to say.
        assert_eq!(latency_rise(&s[..8]), None);
        // A 3-second spike: one second before, two after.
        let spike = [
            second(0.0, 100, 0, 3.0),
            second(1.0, 300, 0, 90.0),
            second(2.0, 300, 0, 400.0),
        ];
        assert_eq!(latency_rise(&spike).map(|r| r.at_s), Some(1.0));
    }

    #[test]
    fn too_few_seconds_or_responses_say_nothing() {
        let s = vec![second(0.0, 100, 0, 1.0)];
        assert_eq!(latency_rise(&s), None);
        let sparse: Vec<RunSecond> = (0..10).map(|t| second(t as f64, 3, 0, t as f64)).collect();
        assert_eq!(latency_rise(&sparse), None);
    }

    #[test]
    fn failures_begin_past_one_percent() {
        let s = vec![
            second(0.0, 1000, 5, 1.0),
            second(1.0, 1000, 50, 1.0),
            second(2.0, 1000, 900, 1.0),
        ];
        let f = failures_began(&s).expect("failures");
        assert_eq!((f.at_s, f.share), (1.0, 0.05));
    }
}
