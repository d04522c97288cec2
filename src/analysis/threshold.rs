//! Thresholds judged on results: one [`Threshold`] on one step ([`judge`]), every
//! threshold on a whole run, per step and overall ([`evaluate`]). Pure functions of
//! [`StepResult`]s, so a suite's phases, `merge`'s joined result and `report`'s file
//! are judged the same way as a run that just ended.
//!
//! What the metrics mean here:
//! - response times come from the step's histogram (open model: from the due time);
//! - an **error** is a request without a response or a response with a status outside
//!   200–399, and its share is of the requests that ended in the step;
//! - **overall** is every step's histograms and counts taken together ([`combine`]):
//!   its p99 is the p99 of all responses, its qps all responses ÷ all steps' time.
//!
//! A response-time threshold on a step without responses fails: an empty histogram's
//! "0 ms" must not pass `p99<200ms`.
//!
//! A windowed threshold (`p99[10s]<200ms`, [`window`]) holds in a step when every
//! window of its timeline does, and over the run when it holds in every step (windows
//! do not span steps: between steps there is an interval, and the load changes). A
//! label's threshold (`p99{group=search}<50ms`, [`label`]) is judged on that label's
//! figures alone, per step and over the run; a step without a request of the label is
//! not judged (noted), a run without any fails.

mod label;
pub mod window;

use crate::result::threshold::{ThresholdResult, ThresholdsResult, Verdict};
use crate::result::timeline::SecondResult;
use crate::result::{
    BulkStepResult, LatencySummary, RunResult, StepFacts, StepResult, ToRecorderError,
};
use crate::spec::threshold::{LabelSelector, Metric, Threshold};

/// Responses beyond a percentile that make it worth reading: a pQ rests on at least
/// this many observations above it, so a p99 needs 1,000 responses and a p99.9 10,000.
pub const TAIL_SAMPLES: f64 = 10.0;

/// The fewest observations a threshold's value can be trusted on: `TAIL_SAMPLES ÷ (1 −
/// Q)` for a percentile, one allowed error for an error share (1,000 requests for
/// `errors<0.1%`), 1 for counts and rates.
pub fn min_samples(t: &Threshold) -> u64 {
    let n = match t.metric {
        Metric::Percentile(q) => TAIL_SAMPLES / (1.0 - q / 100.0),
        Metric::Mean => TAIL_SAMPLES * 2.0,
        Metric::ErrorShare if t.bound > 0.0 => 1.0 / t.bound,
        _ => 1.0,
    };
    // 10 ÷ 0.01 is 1000.0000000000009 in floating point.
    ((n - 1e-6).ceil().max(1.0)) as u64
}

/// A metric's value in one step, and how many observations it rests on.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Measured {
    /// None when there was nothing to measure.
    pub value: Option<f64>,
    pub samples: u64,
    /// Why there is no value.
    pub missing: Option<&'static str>,
}

/// Requests that failed: no response, or a status outside --ok-status (200–399 by default).
pub fn failed_requests(step: &StepResult) -> u64 {
    step.error_total() + step.non_success()
}

/// What a threshold reads: of a whole step ([`Figures::of_step`]) or of one label of it
/// ([`label`]).
pub struct Figures<'a> {
    /// Requests that ended: responses and errors.
    pub total_requests: u64,
    pub responses: u64,
    /// Requests without a response or with a status outside --ok-status (200–399 by default).
    pub failed: u64,
    /// Responses per second of the step's time.
    pub qps: f64,
    pub latency: &'a LatencySummary,
    /// The HDR histogram, encoded as the result keeps it.
    pub histogram: &'a str,
    pub elapsed_s: f64,
    pub timeline: Option<&'a [SecondResult]>,
    /// `bulk` only.
    pub docs_per_s: Option<f64>,
    /// These are one label's (for the notes).
    pub label: bool,
}

impl<'a> Figures<'a> {
    pub fn of_step(step: &'a StepResult) -> Figures<'a> {
        Figures {
            total_requests: step.total_requests,
            responses: step.responses,
            failed: failed_requests(step),
            qps: step.qps,
            latency: &step.latency,
            histogram: &step.histogram,
            elapsed_s: step.elapsed_s,
            timeline: step.timeline.as_deref(),
            docs_per_s: step.bulk.as_ref().map(|b| b.docs_per_s),
            label: false,
        }
    }
}

/// Measure `metric` on `step`.
pub fn measure(metric: Metric, step: &StepResult) -> Measured {
    measure_figures(metric, &Figures::of_step(step))
}

/// Measure `metric` on a step's or a label's figures.
fn measure_figures(metric: Metric, f: &Figures) -> Measured {
    let none = |samples, why| Measured {
        value: None,
        samples,
        missing: Some(why),
    };
    let some = |value, samples| Measured {
        value: Some(value),
        samples,
        missing: None,
    };
    let responses = f.latency.count;
    match metric {
        m if m.is_latency() && responses == 0 => none(0, "no responses"),
        Metric::Percentile(q) => match percentile(f, q) {
            Some(v) => some(v, responses),
            None => none(responses, "the histogram does not decode"),
        },
        Metric::Mean => some(f.latency.mean_s, responses),
        Metric::Max => some(f.latency.max_s, responses),
        Metric::ErrorShare if f.total_requests == 0 => none(0, "no request ended"),
        Metric::ErrorShare => some(f.failed as f64 / f.total_requests as f64, f.total_requests),
        Metric::ErrorCount => some(f.failed as f64, f.total_requests),
        Metric::Qps => some(f.qps, f.responses),
        Metric::DocsPerS => match f.docs_per_s {
            Some(d) if !f.label => some(d, f.total_requests),
            _ => none(f.total_requests, "not a bulk write"),
        },
    }
}

/// The response time at percentile `q` (0..100), seconds: the summary's own figure
/// when it keeps that one, else read from the histogram.
fn percentile(f: &Figures, q: f64) -> Option<f64> {
    let l = f.latency;
    let kept = [
        (50.0, l.p50_s),
        (75.0, l.p75_s),
        (90.0, l.p90_s),
        (95.0, l.p95_s),
        (99.0, l.p99_s),
        (99.9, l.p999_s),
    ];
    if let Some((_, v)) = kept.iter().find(|(k, _)| *k == q) {
        return Some(*v);
    }
    let h = crate::result::decode_histogram(f.histogram).ok()?;
    Some(h.value_at_quantile(q / 100.0) as f64 / 1e6)
}

/// Judge one threshold on one step: on the label it selects, if any, over every
/// window when it has one, else on the step as a whole.
pub fn judge(t: &Threshold, step: &StepResult) -> Verdict {
    let f = match &t.label {
        None => Figures::of_step(step),
        Some(sel) => match label::find(step, sel) {
            Some(l) => label::figures(step, l),
            // Not a failure of this step: a suite's phase without that workload, a
            // ramp's step where a rare label drew no request. The run as a whole must
            // have the label (see `evaluate`).
            None => {
                return Verdict {
                    passed: true,
                    note: Some(label::missing_in_step(sel)),
                    ..Verdict::default()
                }
            }
        },
    };
    judge_figures(t, &f)
}

/// [`judge`] on figures already chosen.
fn judge_figures(t: &Threshold, f: &Figures) -> Verdict {
    match t.window_s {
        Some(w) => window::judge(t, w, f),
        None => judge_whole(t, f),
    }
}

/// A failed verdict without a value.
fn missing(why: String) -> Verdict {
    Verdict {
        note: Some(why),
        ..Verdict::default()
    }
}

/// Judge one threshold on figures as a whole (no window).
fn judge_whole(t: &Threshold, f: &Figures) -> Verdict {
    let m = measure_figures(t.metric, f);
    let need = min_samples(t);
    let note = match (m.missing, m.value) {
        (Some(why), _) => Some(why.to_string()),
        (None, Some(_)) if m.samples < need => Some(format!(
            "only {} samples (needs {need} to be trusted)",
            m.samples
        )),
        _ => None,
    };
    Verdict {
        passed: m.value.is_some_and(|v| t.op.holds(v, t.bound)),
        value: m.value,
        samples: m.samples,
        note,
        ..Verdict::default()
    }
}

/// Every threshold on a whole run: per step (when there is more than one) and overall.
/// A threshold passes when it holds overall and in every step. `aborted` is kept from
/// an earlier judging of the same run (`--abort-on-fail`'s record).
pub fn evaluate(thresholds: &[Threshold], run: &RunResult) -> ThresholdsResult {
    let steps: Vec<&StepResult> = run.steps.iter().collect();
    let overall = combine(&steps, run.machine.cpus);
    let thresholds: Vec<ThresholdResult> = thresholds
        .iter()
        .map(|t| {
            if let Some(why) = t.label.as_ref().and_then(|l| label::unknown(&steps, l)) {
                return ThresholdResult {
                    threshold: t.text.clone(),
                    passed: false,
                    overall: missing(why),
                    steps: Vec::new(),
                };
            }
            let each: Vec<Verdict> = steps.iter().map(|s| judge(t, s)).collect();
            let overall = match (&overall, t.window_s, &t.label) {
                (Ok(None), ..) => missing("no steps".into()),
                (Err(e), None, None) => missing(e.to_string()),
                (_, Some(_), _) => window::worst_of(t, &each),
                (Ok(Some(all)), None, None) => judge_whole(t, &Figures::of_step(all)),
                (_, None, Some(sel)) => judge_label_overall(t, sel, &steps),
            };
            let per_step = if steps.len() > 1 { each } else { Vec::new() };
            ThresholdResult {
                threshold: t.text.clone(),
                passed: overall.passed && per_step.iter().all(|v| v.passed),
                overall,
                steps: per_step,
            }
        })
        .collect();
    ThresholdsResult {
        passed: thresholds.iter().all(|t| t.passed),
        thresholds,
        aborted: run.thresholds.as_ref().and_then(|r| r.aborted.clone()),
    }
}

/// A label's threshold over the whole run: the label's figures of every step that has
/// it, taken together.
fn judge_label_overall(t: &Threshold, sel: &LabelSelector, steps: &[&StepResult]) -> Verdict {
    match label::combined(steps, sel) {
        Ok(Some(all)) => judge_whole(t, &all.figures()),
        Ok(None) => missing(format!("no request labelled {sel} in any step")),
        Err(why) => missing(why),
    }
}

/// Steps that ran one after another, taken together as one: every histogram and count
/// merged exactly, the time summed (so qps is all responses ÷ all the time), the
/// offered rate the time-weighted mean. None for no steps; the step itself for one.
pub fn combine(steps: &[&StepResult], cpus: usize) -> Result<Option<StepResult>, ToRecorderError> {
    let Some(first) = steps.first() else {
        return Ok(None);
    };
    if steps.len() == 1 {
        return Ok(Some((*first).clone()));
    }
    let mut rec = first.to_recorder()?;
    for s in &steps[1..] {
        rec.merge(&s.to_recorder()?);
    }
    let elapsed_s: f64 = steps.iter().map(|s| s.elapsed_s).sum();
    let rate = steps.iter().all(|s| s.rate.is_some()).then(|| {
        steps
            .iter()
            .map(|s| s.rate.unwrap_or(0.0) * s.elapsed_s)
            .sum::<f64>()
            / elapsed_s.max(1e-9)
    });
    let facts = StepFacts {
        n_clients: steps.iter().map(|s| s.n_clients).max().unwrap_or(1),
        rate,
        started_at: first.started_at.clone(),
        elapsed_s,
        partial: steps.iter().any(|s| s.partial),
        failure: steps.iter().find_map(|s| s.failure.clone()),
        rate_profile: None,
        client_cpu_s: steps.iter().map(|s| s.client_cpu_s).sum(),
        cpus,
    };
    let targets: Vec<String> = first.per_host.iter().map(|h| h.target.clone()).collect();
    let mut all = StepResult::from_recorder(facts, &rec, &targets, first.service.is_some());
    all.round = first.round;
    if steps.iter().any(|s| s.bulk.is_some()) {
        let mut b = BulkStepResult::default();
        for s in steps.iter().filter_map(|s| s.bulk.as_ref()) {
            b.batch_size = b.batch_size.max(s.batch_size);
            b.writers = b.writers.max(s.writers);
            b.docs_acknowledged += s.docs_acknowledged;
            for (k, n) in &s.item_errors {
                *b.item_errors.entry(k.clone()).or_insert(0) += n;
            }
        }
        b.docs_per_s = b.docs_acknowledged as f64 / elapsed_s.max(1e-9);
        all.bulk = Some(b);
    }
    Ok(Some(all))
}

/// Steps with known numbers, for the tests of the table and the JUnit file.
#[cfg(test)]
pub(crate) mod tests_support {
    use crate::result::{StepFacts, StepResult};
    use crate::stats::ErrorKind;

    /// A step of `n` responses at 1..=n ms, `errors` connect errors, over `elapsed_s`.
    pub fn step(n: u64, errors: u64, elapsed_s: f64) -> StepResult {
        let mut rec = crate::stats::Recorder::new(1, 0, 0);
        for i in 1..=n {
            rec.latency.record(i * 1000).expect("in range");
            rec.per_host[0].responses += 1;
        }
        rec.statuses[200] = n;
        rec.errors[ErrorKind::ALL
            .iter()
            .position(|k| *k == ErrorKind::Connect)
            .expect("connect")] = errors;
        let facts = StepFacts {
            n_clients: 4,
            rate: None,
            started_at: String::new(),
            elapsed_s,
            partial: false,
            failure: None,
            rate_profile: None,
            client_cpu_s: 0.0,
            cpus: 2,
        };
        StepResult::from_recorder(facts, &rec, &["http://h:1".into()], false)
    }
}

#[cfg(test)]
mod tests {
    use super::tests_support::step;
    use super::*;
    use crate::result::fixture;

    fn t(s: &str) -> Threshold {
        Threshold::parse(s).expect("valid")
    }

    #[test]
    fn a_step_is_judged_on_its_own_numbers() {
        let s = step(1000, 0, 2.0);
        let v = judge(&t("p99<995ms"), &s);
        assert!(v.passed, "{v:?}");
        assert!((v.value.unwrap() - 0.990).abs() < 0.002);
        assert_eq!((v.samples, v.note.as_deref()), (1000, None));
        assert!(!judge(&t("p99<900ms"), &s).passed);
        // Not one of the summary's percentiles: read from the histogram.
        assert!((judge(&t("p98<1s"), &s).value.unwrap() - 0.980).abs() < 0.002);
        assert!(judge(&t("qps>499"), &s).passed);
        assert!(!judge(&t("qps>500"), &s).passed);
        assert!(judge(&t("errors<=0"), &s).passed);
        let weak = judge(&t("p99.9<2s"), &s);
        assert!(weak.passed);
        assert_eq!(
            weak.note.as_deref(),
            Some("only 1000 samples (needs 10000 to be trusted)")
        );
    }

    #[test]
    fn nothing_measured_never_passes() {
        let dead = step(0, 5, 1.0);
        let v = judge(&t("p99<200ms"), &dead);
        assert_eq!(
            (v.passed, v.value, v.note.as_deref()),
            (false, None, Some("no responses"))
        );
        let e = judge(&t("errors<0.1%"), &dead);
        assert_eq!((e.passed, e.value), (false, Some(1.0)));
        let empty = step(0, 0, 1.0);
        assert_eq!(
            judge(&t("errors<0.1%"), &empty).note.as_deref(),
            Some("no request ended")
        );
        assert!(!judge(&t("docs_per_s>1"), &step(10, 0, 1.0)).passed);
    }

    #[test]
    fn errors_count_bad_statuses_too() {
        let mut s = step(998, 1, 1.0);
        *s.statuses.get_mut(&200).unwrap() -= 1;
        s.statuses.insert(503, 1);
        let v = judge(&t("errors<0.1%"), &s);
        assert_eq!(v.value, Some(2.0 / 999.0));
        assert!(!v.passed);
        assert_eq!(judge(&t("errors<3"), &s).value, Some(2.0));
    }

    #[test]
    fn a_run_passes_when_every_step_and_the_whole_do() {
        let run = fixture::run(vec![step(1000, 0, 1.0), step(100, 0, 1.0)]);
        let r = evaluate(&[t("p99<995ms"), t("qps>200")], &run);
        let p99 = &r.thresholds[0];
        assert_eq!(p99.steps.len(), 2);
        assert!(p99.passed && p99.steps.iter().all(|v| v.passed));
        assert_eq!(p99.overall.samples, 1100);
        let qps = &r.thresholds[1];
        // 1100 responses in 2 s overall; the second step alone is 100/s.
        assert_eq!(qps.overall.value, Some(550.0));
        assert_eq!(
            qps.steps.iter().map(|v| v.passed).collect::<Vec<_>>(),
            [true, false]
        );
        assert!(!qps.passed && !r.passed);
        let one = fixture::run(vec![step(10, 0, 1.0)]);
        assert!(evaluate(&[t("qps>1")], &one).thresholds[0].steps.is_empty());
    }

    #[test]
    fn windows_and_labels_without_their_data_fail_and_say_why() {
        let run = fixture::run(vec![step(1000, 0, 1.0), step(100, 0, 1.0)]);
        let r = evaluate(&[t("p99[5s]<1s"), t("p99{group=search}<1s")], &run);
        let w = &r.thresholds[0];
        assert!(!w.passed && w.steps.len() == 2);
        assert!(w
            .overall
            .note
            .as_deref()
            .unwrap()
            .contains("no per-second timeline"));
        let l = &r.thresholds[1];
        assert!(!l.passed && l.steps.is_empty());
        assert_eq!(
            l.overall.note.as_deref(),
            Some("no label group=search: this result has no labels")
        );
        assert!(!r.passed && r.aborted.is_none());
    }

    #[test]
    fn samples_needed() {
        assert_eq!(min_samples(&t("p99<1s")), 1000);
        assert_eq!(min_samples(&t("p99.9<1s")), 10_000);
        assert_eq!(min_samples(&t("p50<1s")), 20);
        assert_eq!(min_samples(&t("errors<0.1%")), 1000);
        assert_eq!(min_samples(&t("errors<1%")), 100);
        assert_eq!(min_samples(&t("qps>1")), 1);
    }
}
