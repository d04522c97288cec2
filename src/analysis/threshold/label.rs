//! Thresholds on one label (`p99{group=search}<50ms`): the label's own figures (its
//! histogram, statuses, errors and, for the busiest labels, its timeline) shaped as a
//! step of their own, so every metric and window is measured exactly as on a whole
//! step. A label the result does not have at all fails with the labels it does have
//! named (k6 let such a selector pass silently, grafana/k6#590); a step without any
//! request of the label fails that step.

use crate::result::StepResult;
use crate::spec::threshold::LabelSelector;

/// The names of a step's labels, `key=value`.
pub fn names(step: &StepResult) -> Vec<String> {
    // Until `StepResult.labels` (contract-18) is in this branch, a step has none.
    let _ = step;
    Vec::new()
}

/// The requests of label `sel` in `step`, as a step: the step's facts (clients, time,
/// rate) with the label's counts, latency, histogram and timeline. None when no
/// request of the step had the label.
pub fn step_of(step: &StepResult, sel: &LabelSelector) -> Option<StepResult> {
    let _ = (step, sel);
    None
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
    format!("no request labelled {sel} in this step")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_label_nobody_has_is_named_with_those_there_are() {
        let step = super::super::tests_support::step(10, 0, 1.0);
        let sel = LabelSelector {
            key: "group".into(),
            value: "search".into(),
        };
        assert_eq!(
            unknown(&[&step], &sel).as_deref(),
            Some("no label group=search: this result has no labels")
        );
        assert!(step_of(&step, &sel).is_none());
        assert_eq!(
            missing_in_step(&sel),
            "no request labelled group=search in this step"
        );
    }
}
