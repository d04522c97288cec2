//! Windowed thresholds (`p99[10s]<200ms`): every window of a step's per-second
//! timeline must hold, not only the step as a whole.
//!
//! The windows **slide by one timeline entry** (one second): a 10-second window starts
//! at every second from which ten seconds of the timeline are left (and the last one
//! runs to the end of the step), so a 3-second stall is inside some window wherever it
//! falls — tumbling windows (k6 evaluates per period) would split it across two and
//! halve it. A step shorter than the window is judged as one window, with a note.
//!
//! Each window's figures are exact sums of its seconds: counts added, the seconds'
//! histograms added (HDR, 2 significant digits, so a windowed p99 is within 1% of the
//! truth) as the window slides, one added and one taken away per step. `qps` divides
//! by the window's own length (the last window, where the step ended part way through
//! a second, is that much shorter). A latency window without any response fails:
//! nothing answered for the whole window is worse than slow.

use hdrhistogram::Histogram;

use super::{min_samples, Figures};
use crate::result::threshold::Verdict;
use crate::result::timeline::SecondResult;
use crate::spec::threshold::{Metric, Op, Threshold};

/// How wide a timeline entry is, seconds (a long run's timeline coarsens old seconds).
fn span(s: &SecondResult) -> u64 {
    s.span_s.max(1)
}

/// One window: entries `from..to` of the timeline.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Window {
    from: usize,
    to: usize,
    /// Seconds from the step's start.
    start_s: u64,
    /// Its real length, seconds (shorter at the step's end).
    length_s: f64,
}

/// Every window of `w` seconds over `seconds` (sorted by start), sliding by one entry,
/// that fits in the step's time; the last one also takes the rest of the timeline (the
/// part of a second after the last whole one), so nothing is left out and no window is
/// a sliver. The one whole timeline when the step is shorter than `w`.
fn windows(seconds: &[SecondResult], w: u64, elapsed_s: f64) -> Vec<Window> {
    let Some(last) = seconds.last() else {
        return Vec::new();
    };
    let end_s = last.second + span(last);
    // The real end: the step's elapsed time, or the timeline's when it says nothing.
    let real_end = |start: u64, cover: u64| {
        let end = if elapsed_s > 0.0 {
            (cover as f64).min(elapsed_s.max(start as f64 + 1.0))
        } else {
            cover as f64
        };
        (end - start as f64).max(1e-3)
    };
    // Whole seconds of the step (a step of 10 s ends a few ms after its tenth).
    let limit = if elapsed_s > 0.0 {
        ((elapsed_s + 0.05).floor() as u64).min(end_s)
    } else {
        end_s
    };
    let mut out = Vec::new();
    let mut to = 0;
    for (from, s) in seconds.iter().enumerate() {
        if s.second + w > limit {
            break;
        }
        to = to.max(from + 1);
        while to < seconds.len() && seconds[to].second + span(&seconds[to]) <= s.second + w {
            to += 1;
        }
        let cover = seconds[to - 1].second + span(&seconds[to - 1]);
        out.push(Window {
            from,
            to,
            start_s: s.second,
            length_s: real_end(s.second, cover),
        });
    }
    match out.last_mut() {
        Some(last) => {
            last.to = seconds.len();
            last.length_s = real_end(last.start_s, end_s);
        }
        None => out.push(Window {
            from: 0,
            to: seconds.len(),
            start_s: seconds[0].second,
            length_s: real_end(seconds[0].second, end_s),
        }),
    }
    out
}

/// The sums of the entries in the window, kept as it slides.
struct Running {
    responses: u64,
    bad_status: u64,
    errors: u64,
    /// Only for the response-time metrics.
    latency: Option<Histogram<u64>>,
}

impl Running {
    fn new(metric: Metric) -> Running {
        Running {
            responses: 0,
            bad_status: 0,
            errors: 0,
            latency: metric.is_latency().then(|| {
                // The bounds and precision of a worker's second.
                Histogram::new_with_bounds(1, crate::stats::MAX_TRACKABLE_US, 2)
                    .expect("static histogram bounds are valid")
            }),
        }
    }

    fn add(&mut self, s: &SecondResult) -> Result<(), String> {
        self.responses += s.responses;
        self.bad_status += s.bad_status;
        self.errors += s.error_total();
        if let Some(h) = &mut self.latency {
            h.add(decode(s)?)
                .map_err(|e| format!("second {}: histogram: {e:?}", s.second))?;
        }
        Ok(())
    }

    fn remove(&mut self, s: &SecondResult) -> Result<(), String> {
        self.responses -= s.responses;
        self.bad_status -= s.bad_status;
        self.errors -= s.error_total();
        if let Some(h) = &mut self.latency {
            h.subtract(decode(s)?)
                .map_err(|e| format!("second {}: histogram: {e:?}", s.second))?;
        }
        Ok(())
    }

    /// The metric over the window, with its samples; Err(why) without a value.
    fn measure(&self, metric: Metric, length_s: f64) -> (Result<f64, &'static str>, u64) {
        let ended = self.responses + self.errors;
        let failed = self.errors + self.bad_status.min(self.responses);
        let us = |v: u64| v as f64 / 1e6;
        match (metric, &self.latency) {
            (m, Some(h)) if m.is_latency() && h.is_empty() => {
                (Err("no responses in the window"), 0)
            }
            (Metric::Percentile(q), Some(h)) => (Ok(us(h.value_at_quantile(q / 100.0))), h.len()),
            (Metric::Mean, Some(h)) => (Ok(h.mean() / 1e6), h.len()),
            (Metric::Max, Some(h)) => (Ok(us(h.max())), h.len()),
            (Metric::ErrorShare, _) if ended == 0 => (Err("no request ended in the window"), 0),
            (Metric::ErrorShare, _) => (Ok(failed as f64 / ended as f64), ended),
            (Metric::ErrorCount, _) => (Ok(failed as f64), ended),
            (Metric::Qps, _) => (Ok(self.responses as f64 / length_s), self.responses),
            _ => (Err("not measured per second"), 0),
        }
    }
}

fn decode(s: &SecondResult) -> Result<Histogram<u64>, String> {
    crate::result::decode_histogram(&s.histogram)
        .map_err(|why| format!("second {}: {why}", s.second))
}

/// True when `a` is a worse value than `b` for a threshold compared by `op`: higher
/// for an upper bound, lower for a lower one.
fn worse(op: Op, a: f64, b: f64) -> bool {
    match op {
        Op::Lt | Op::Le => a > b,
        Op::Gt | Op::Ge => a < b,
    }
}

/// Judge `t` over every `w`-second window of `step`'s timeline: it holds when every
/// window does; the value, samples and start are the worst window's.
pub fn judge(t: &Threshold, w: u64, f: &Figures) -> Verdict {
    let Some(seconds) = f.timeline.filter(|s| !s.is_empty()) else {
        let why = if f.label {
            "no per-second timeline for this label, so no windows to judge (a step keeps \
             one only for its busiest labels)"
        } else {
            "no per-second timeline in this step, so no windows to judge (a result \
             written before every step kept one)"
        };
        return Verdict {
            note: Some(why.into()),
            ..Verdict::default()
        };
    };
    match judge_seconds(t, w, seconds, f.elapsed_s) {
        Ok(v) => v,
        Err(why) => Verdict {
            note: Some(why),
            ..Verdict::default()
        },
    }
}

/// [`judge`] on the timeline itself.
fn judge_seconds(
    t: &Threshold,
    w: u64,
    seconds: &[SecondResult],
    elapsed_s: f64,
) -> Result<Verdict, String> {
    let windows = windows(seconds, w, elapsed_s);
    let mut run = Running::new(t.metric);
    let (mut lo, mut hi) = (0, 0);
    let mut failed = 0;
    // The worst window: its start, its value (Err: none, the worst of all) and samples.
    let mut worst: Option<(u64, Result<f64, &'static str>, u64)> = None;
    for win in &windows {
        while hi < win.to {
            run.add(&seconds[hi])?;
            hi += 1;
        }
        while lo < win.from {
            run.remove(&seconds[lo])?;
            lo += 1;
        }
        let (value, samples) = run.measure(t.metric, win.length_s);
        let held = value.is_ok_and(|v| t.op.holds(v, t.bound));
        if !held {
            failed += 1;
        }
        let replace = match (&worst, &value) {
            (None, _) => true,
            (Some((_, Err(_), _)), _) => false,
            (Some(_), Err(_)) => true,
            (Some((_, Ok(old), _)), Ok(new)) => worse(t.op, *new, *old),
        };
        if replace {
            worst = Some((win.start_s, value, samples));
        }
    }
    let Some((start, value, samples)) = worst else {
        return Err("no windows".into());
    };
    let need = min_samples(t);
    let mut notes = Vec::new();
    if let [only] = windows[..] {
        if only.length_s < w as f64 {
            notes.push(format!(
                "the step lasted {:.1} s, less than the {w}-second window: judged as one window",
                only.length_s
            ));
        }
    }
    match value {
        Err(why) => notes.push(format!("{why} from second {start}")),
        Ok(_) if samples < need => notes.push(format!(
            "only {samples} samples in the worst window (needs {need} to be trusted)"
        )),
        Ok(_) => {}
    }
    Ok(Verdict {
        passed: failed == 0,
        value: value.ok(),
        samples,
        note: (!notes.is_empty()).then(|| notes.join("; ")),
        windows: windows.len() as u64,
        windows_failed: failed,
        window_start_s: Some(start),
        window_step: None,
    })
}

/// The worst of several steps' windowed verdicts (the whole run's): every window of
/// every step counted, the worst window named with its step.
pub fn worst_of(t: &Threshold, verdicts: &[Verdict]) -> Verdict {
    let mut worst: Option<(usize, &Verdict)> = None;
    for (i, v) in verdicts.iter().enumerate() {
        let replace = match (worst, v.value) {
            (None, _) => true,
            (Some((_, old)), _) if old.value.is_none() => false,
            (Some(_), None) => true,
            (Some((_, old)), Some(new)) => worse(t.op, new, old.value.unwrap_or(new)),
        };
        if replace {
            worst = Some((i, v));
        }
    }
    let Some((step, v)) = worst else {
        return Verdict {
            note: Some("no steps".into()),
            ..Verdict::default()
        };
    };
    Verdict {
        passed: verdicts.iter().all(|v| v.passed),
        windows: verdicts.iter().map(|v| v.windows).sum(),
        windows_failed: verdicts.iter().map(|v| v.windows_failed).sum(),
        window_step: (verdicts.len() > 1).then_some(step),
        ..v.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::ErrorKind;

    fn t(s: &str) -> Threshold {
        Threshold::parse(s).expect("valid")
    }

    /// A second with `n` responses at `ms` each (and `errors` timeouts).
    fn second(i: u64, n: u64, ms: u64, errors: u64) -> SecondResult {
        let mut h: Histogram<u64> =
            Histogram::new_with_bounds(1, crate::stats::MAX_TRACKABLE_US, 2).unwrap();
        for _ in 0..n {
            h.record(ms * 1000).expect("in range");
        }
        let mut s = SecondResult {
            second: i,
            responses: n,
            histogram: crate::result::encode_histogram(&h),
            ..SecondResult::default()
        };
        if errors > 0 {
            s.errors.insert(ErrorKind::Timeout, errors);
        }
        s
    }

    /// 20 seconds of 100 fast responses, and a stall: seconds 8..=10 answer 5 slow ones.
    fn stalled() -> Vec<SecondResult> {
        (0..20)
            .map(|i| match i {
                8..=10 => second(i, 5, 3000, 0),
                _ => second(i, 100, 2, 0),
            })
            .collect()
    }

    #[test]
    fn windows_slide_by_one_second_and_the_last_one_ends_with_the_step() {
        let s: Vec<SecondResult> = (0..11).map(|i| second(i, 1, 1, 0)).collect();
        let w = windows(&s, 5, 10.3);
        assert_eq!(w.len(), 6, "{w:?}");
        assert_eq!((w[0].from, w[0].to, w[0].start_s), (0, 5, 0));
        // The last whole window takes the 0.3 s after it too.
        assert_eq!((w[5].from, w[5].to, w[5].start_s), (5, 11, 5));
        assert!((w[5].length_s - 5.3).abs() < 1e-9, "{w:?}");
        assert!((w[0].length_s - 5.0).abs() < 1e-9);
        // A step of 10 s ends a little after its tenth second: no sliver window.
        assert_eq!(windows(&s, 1, 10.004).len(), 10);
        // Shorter than the window: one window, its real length.
        let w = windows(&s[..3], 5, 2.5);
        assert_eq!(w.len(), 1);
        assert!((w[0].length_s - 2.5).abs() < 1e-9);
        assert!(windows(&[], 5, 1.0).is_empty());
    }

    #[test]
    fn coarse_entries_are_windows_of_their_own_width() {
        // An hour in: entries 10 s wide, wider than a 5-second window.
        let s: Vec<SecondResult> = (0..3)
            .map(|i| SecondResult {
                span_s: 10,
                ..second(3600 + 10 * i, 100, 1, 0)
            })
            .collect();
        let w = windows(&s, 5, 3630.0);
        assert_eq!(w.len(), 3, "{w:?}");
        assert_eq!((w[1].from, w[1].to, w[1].start_s), (1, 2, 3610));
        assert!((w[1].length_s - 10.0).abs() < 1e-9);
        let qps = judge_seconds(&t("qps[5s]>9"), 5, &s, 3630.0).unwrap();
        assert_eq!(qps.value, Some(10.0));
    }

    #[test]
    fn a_stall_fails_the_windows_that_hold_it() {
        let s = stalled();
        let v = judge_seconds(&t("p99[5s]<1s"), 5, &s, 20.0).unwrap();
        assert!(!v.passed);
        assert_eq!(v.windows, 16);
        // Windows starting at 4..=10 hold a slow second.
        assert_eq!(v.windows_failed, 7);
        assert!(v.value.unwrap() > 2.9, "{v:?}");
        assert_eq!(v.window_start_s, Some(4));
        // The whole step of 1,715 responses has its p99 among the fast ones.
        let all = judge_seconds(&t("p99[20s]<1s"), 20, &s, 20.0).unwrap();
        assert!(all.passed && all.windows == 1, "{all:?}");
        // Max sees it too; a lower bound picks the lowest window.
        assert!(!judge_seconds(&t("max[2s]<1s"), 2, &s, 20.0).unwrap().passed);
        let qps = judge_seconds(&t("qps[3s]>50"), 3, &s, 20.0).unwrap();
        assert!(!qps.passed);
        assert_eq!((qps.value, qps.window_start_s), (Some(5.0), Some(8)));
        assert_eq!(qps.windows_failed, 3);
    }

    #[test]
    fn errors_per_window_and_an_empty_window() {
        let mut s: Vec<SecondResult> = (0..10).map(|i| second(i, 10, 1, 0)).collect();
        s[3] = second(3, 8, 1, 2);
        s[4].bad_status = 1;
        let v = judge_seconds(&t("errors[2s]<=2"), 2, &s, 10.0).unwrap();
        assert_eq!(
            (v.passed, v.value, v.window_start_s),
            (false, Some(3.0), Some(3))
        );
        assert_eq!(v.windows_failed, 1);
        let share = judge_seconds(&t("errors[1s]<10%"), 1, &s, 10.0).unwrap();
        assert_eq!(share.value, Some(0.2));
        // Nothing answered for a whole window: no value, a failure, the reason.
        s[6] = second(6, 0, 0, 0);
        let v = judge_seconds(&t("p50[1s]<1s"), 1, &s, 10.0).unwrap();
        assert_eq!(
            (v.passed, v.value, v.window_start_s),
            (false, None, Some(6))
        );
        assert!(v
            .note
            .unwrap()
            .contains("no responses in the window from second 6"));
        assert!(judge_seconds(&t("p50[2s]<1s"), 2, &s, 10.0).unwrap().passed);
    }

    #[test]
    fn a_short_step_is_one_window_and_a_missing_timeline_fails() {
        let s: Vec<SecondResult> = (0..3).map(|i| second(i, 10, 1, 0)).collect();
        let v = judge_seconds(&t("qps[5s]>9"), 5, &s, 2.5).unwrap();
        assert_eq!((v.passed, v.windows, v.value), (true, 1, Some(12.0)));
        assert!(v
            .note
            .unwrap()
            .contains("lasted 2.5 s, less than the 5-second window"));
        let mut step = super::super::tests_support::step(10, 0, 1.0);
        step.timeline = None;
        let v = judge(&t("p99[5s]<1s"), 5, &Figures::of_step(&step));
        assert!(!v.passed && v.note.unwrap().contains("no per-second timeline"));
    }

    #[test]
    fn the_whole_run_is_its_worst_step() {
        let s = stalled();
        let good: Vec<SecondResult> = (0..20).map(|i| second(i, 100, 2, 0)).collect();
        let th = t("p99[5s]<1s");
        let a = judge_seconds(&th, 5, &good, 20.0).unwrap();
        let b = judge_seconds(&th, 5, &s, 20.0).unwrap();
        let all = worst_of(&th, &[a.clone(), b]);
        assert!(!all.passed);
        assert_eq!((all.windows, all.windows_failed), (32, 7));
        assert_eq!((all.window_step, all.window_start_s), (Some(1), Some(4)));
        assert_eq!(worst_of(&th, &[a]).window_step, None);
    }
}
