//! Thresholds on one label (`p99{group=search}<50ms`): the label's own figures (its
//! histogram, statuses, errors and, for the busiest labels, its timeline) shaped as a
//! step of their own, so every metric and window is measured exactly as on a whole
//! step. A label the result does not have at all fails with the labels it does have
//! named (k6 let such a selector pass silently, grafana/k6#590); a step without any
//! request of the label is not judged (its verdict passes with a note saying so), so
//! a suite's phase without that workload does not fail it.

use super::Figures;
use crate::result::{LabelResult, LatencySummary, StepResult};
use crate::spec::threshold::LabelSelector;

/// The names of a step's labels, `key=value`.
pub fn names(step: &StepResult) -> Vec<String> {
    step.labels
        .iter()
        .map(|l| format!("{}={}", l.key, l.value))
        .collect()
}

/// Label `sel` of `step`, if any request of the step had it.
pub fn find<'a>(step: &'a StepResult, sel: &LabelSelector) -> Option<&'a LabelResult> {
    step.labels
        .iter()
        .find(|l| l.key == sel.key && l.value == sel.value)
}

/// Requests of a label that failed: no response, or a status that is not a success.
fn failed(l: &LabelResult, ok: &crate::stats::OkStatus) -> u64 {
    let bad: u64 = l
        .statuses
        .iter()
        .filter(|(c, _)| !ok.contains(**c))
        .map(|(_, n)| n)
        .sum();
    l.errors.values().sum::<u64>() + bad
}

/// A label's figures in its step: its counts, latency and timeline over the step's time.
pub fn figures<'a>(step: &'a StepResult, l: &'a LabelResult) -> Figures<'a> {
    Figures {
        total_requests: l.total_requests,
        responses: l.responses,
        failed: failed(l, &step.ok_status),
        qps: l.responses as f64 / step.elapsed_s.max(1e-9),
        latency: &l.latency,
        histogram: &l.histogram,
        elapsed_s: step.elapsed_s,
        timeline: l.timeline.as_deref(),
        docs_per_s: None,
        label: true,
    }
}

/// A label over several steps, taken together (its histograms added exactly).
pub struct Combined {
    total_requests: u64,
    responses: u64,
    failed: u64,
    elapsed_s: f64,
    latency: LatencySummary,
    histogram: String,
}

impl Combined {
    pub fn figures(&self) -> Figures<'_> {
        Figures {
            total_requests: self.total_requests,
            responses: self.responses,
            failed: self.failed,
            qps: self.responses as f64 / self.elapsed_s.max(1e-9),
            latency: &self.latency,
            histogram: &self.histogram,
            elapsed_s: self.elapsed_s,
            timeline: None,
            docs_per_s: None,
            label: true,
        }
    }
}

/// Label `sel` over every step that has it, the time of all `steps` summed (so its qps
/// is over the run's time). None when no step has it.
pub fn combined(steps: &[&StepResult], sel: &LabelSelector) -> Result<Option<Combined>, String> {
    let mut h = crate::stats::new_histogram();
    let mut all = Combined {
        total_requests: 0,
        responses: 0,
        failed: 0,
        elapsed_s: steps.iter().map(|s| s.elapsed_s).sum(),
        latency: LatencySummary::default(),
        histogram: String::new(),
    };
    let mut any = false;
    for (s, l) in steps.iter().filter_map(|s| find(s, sel).map(|l| (s, l))) {
        any = true;
        all.total_requests += l.total_requests;
        all.responses += l.responses;
        all.failed += failed(l, &s.ok_status);
        let part = crate::result::decode_histogram(&l.histogram)
            .map_err(|why| format!("label {sel}: {why}"))?;
        h.add(&part).map_err(|e| format!("label {sel}: {e:?}"))?;
    }
    if !any {
        return Ok(None);
    }
    all.latency = LatencySummary::of(&h);
    all.histogram = crate::result::encode_histogram(&h);
    Ok(Some(all))
}

/// Why a label cannot be judged on these steps at all: none of them has it. Names the
/// labels they do have.
pub fn unknown(steps: &[&StepResult], sel: &LabelSelector) -> Option<String> {
    let wanted = sel.to_string();
    let mut have: Vec<String> = steps.iter().flat_map(|s| names(s)).collect();
    have.sort();
    have.dedup();
    if have.contains(&wanted) {
        return None;
    }
    Some(if have.is_empty() {
        format!("no label {wanted}: this result has no labels")
    } else {
        let same_key: Vec<&String> = have
            .iter()
            .filter(|n| n.split_once('=').is_some_and(|(k, _)| k == sel.key))
            .collect();
        let list = if same_key.is_empty() {
            have.iter().collect::<Vec<_>>()
        } else {
            same_key
        };
        let shown: Vec<&str> = list.iter().take(20).map(|s| s.as_str()).collect();
        format!(
            "no label {wanted} in this result; it has {}{}",
            shown.join(", "),
            if list.len() > shown.len() {
                format!(" and {} more", list.len() - shown.len())
            } else {
                String::new()
            }
        )
    })
}

/// Why a step has no figures for a label the run has.
pub fn missing_in_step(sel: &LabelSelector) -> String {
    format!("no request labelled {sel} in this step: not judged")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labelled(step: &mut StepResult, value: &str, ms: &[u64], bad: u64) {
        let mut h = crate::stats::new_histogram();
        for m in ms {
            h.record(m * 1000).unwrap();
        }
        let n = ms.len() as u64;
        step.labels.push(LabelResult {
            key: "group".into(),
            value: value.into(),
            total_requests: n,
            responses: n,
            statuses: [(200, n - bad), (503, bad)]
                .into_iter()
                .filter(|(_, c)| *c > 0)
                .collect(),
            errors: Default::default(),
            bytes_received: 0,
            latency: LatencySummary::of(&h),
            histogram: crate::result::encode_histogram(&h),
            timeline: None,
        });
    }

    fn sel(value: &str) -> LabelSelector {
        LabelSelector {
            key: "group".into(),
            value: value.into(),
        }
    }

    #[test]
    fn a_label_nobody_has_is_named_with_those_there_are() {
        let mut step = super::super::tests_support::step(10, 0, 1.0);
        assert_eq!(
            unknown(&[&step], &sel("search")).as_deref(),
            Some("no label group=search: this result has no labels")
        );
        labelled(&mut step, "load", &[1], 0);
        labelled(&mut step, "search", &[1], 0);
        assert_eq!(unknown(&[&step], &sel("search")), None);
        assert_eq!(
            unknown(&[&step], &sel("serch")).as_deref(),
            Some("no label group=serch in this result; it has group=load, group=search")
        );
        assert!(find(&step, &sel("search")).is_some());
        assert_eq!(
            missing_in_step(&sel("x")),
            "no request labelled group=x in this step: not judged"
        );
    }

    #[test]
    fn each_label_is_judged_on_its_own_figures() {
        use crate::analysis::threshold::{evaluate, judge};
        let t = |s: &str| crate::spec::threshold::Threshold::parse(s).unwrap();
        let mut a = super::super::tests_support::step(100, 0, 2.0);
        labelled(&mut a, "fast", &[1; 99], 0);
        labelled(&mut a, "slow", &[300, 310, 320, 330], 1);
        assert!(judge(&t("p99{group=fast}<10ms"), &a).passed);
        let slow = judge(&t("p99{group=slow}<10ms"), &a);
        assert!(!slow.passed && slow.value.unwrap() > 0.3, "{slow:?}");
        assert_eq!(judge(&t("errors{group=slow}<=0"), &a).value, Some(1.0));
        assert_eq!(judge(&t("qps{group=fast}>1"), &a).value, Some(49.5));
        // A step without the label is not judged (a phase without that workload); the
        // run's figure is of the steps with it.
        let b = super::super::tests_support::step(100, 0, 2.0);
        let run = crate::result::fixture::run(vec![a, b]);
        let r = evaluate(
            &[
                t("p99{group=fast}<10ms"),
                t("max{group=slow}<1s"),
                t("p99[1s]{group=fast}<10ms"),
            ],
            &run,
        );
        let fast = &r.thresholds[0];
        assert!(fast.overall.passed && fast.passed, "{fast:?}");
        assert_eq!(fast.overall.samples, 99);
        assert_eq!(
            (fast.steps[1].passed, fast.steps[1].note.as_deref()),
            (
                true,
                Some("no request labelled group=fast in this step: not judged")
            )
        );
        // Windows need the label's timeline (kept for the busiest labels only).
        let w = &r.thresholds[2];
        assert!(!w.passed, "{w:?}");
        assert!(
            w.overall
                .note
                .as_deref()
                .unwrap()
                .contains("for this label"),
            "{w:?}"
        );
        assert!((r.thresholds[1].overall.value.unwrap() - 0.33).abs() < 0.01);
    }
}
