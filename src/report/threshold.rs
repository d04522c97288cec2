//! The pass/fail table of `--threshold`: one row per threshold with its value over the
//! whole run, and how many steps it held in (naming the ones it did not). Pure: a
//! function of the run and its verdicts.

use super::fmt::{fmt_latency, fmt_qps, fmt_share};
use crate::result::threshold::{ThresholdResult, ThresholdsResult, Verdict};
use crate::result::{RunResult, StepResult};
use crate::spec::threshold::{Metric, Threshold};

/// How many failed steps a row names before "and N more".
const NAMED_STEPS: usize = 3;

/// A measured value in its threshold's unit, as a person reads it: "212 ms",
/// "0.031%", "3 errors", "1843/s".
pub fn fmt_value(threshold: &str, value: Option<f64>) -> String {
    let Some(v) = value else {
        return "–".into();
    };
    match Threshold::parse(threshold).map(|t| t.metric) {
        Ok(m) if m.is_latency() => fmt_latency(v),
        Ok(Metric::ErrorShare) => fmt_share(v * 100.0),
        Ok(Metric::ErrorCount) => format!("{v:.0}"),
        Ok(Metric::Qps | Metric::DocsPerS) => format!("{}/s", fmt_qps(v)),
        _ => format!("{v}"),
    }
}

/// Why a verdict failed, in words: "212 ms is not below 200 ms", "no responses".
pub fn failure_message(threshold: &str, v: &Verdict) -> String {
    let Ok(t) = Threshold::parse(threshold) else {
        return threshold.to_string();
    };
    match v.value {
        None => v.note.clone().unwrap_or_else(|| "nothing measured".into()),
        Some(_) => format!(
            "{} is {} {}",
            fmt_value(threshold, v.value),
            t.op.negated(),
            fmt_value(threshold, Some(t.bound))
        ),
    }
}

/// A step's name in tables and JUnit: "step 3 (40 clients)", "step 2 (500/s)",
/// with the round when the run has several.
pub fn step_label(run: &RunResult, index: usize) -> String {
    let Some(s) = run.steps.get(index) else {
        return format!("step {}", index + 1);
    };
    let load = load_label(s);
    if run.settings.rounds > 1 {
        format!("step {} ({load}, round {})", index + 1, s.round)
    } else {
        format!("step {} ({load})", index + 1)
    }
}

fn load_label(s: &StepResult) -> String {
    match s.rate {
        Some(r) => format!("{}/s", fmt_qps(r)),
        None => super::fmt::clients(s.n_clients),
    }
}

/// The table, ending with a newline.
pub fn threshold_table(run: &RunResult, r: &ThresholdsResult) -> String {
    let failed = r.thresholds.iter().filter(|t| !t.passed).count();
    let mut out = format!(
        "Thresholds: {} ({} of {} held)\n",
        if r.passed { "passed" } else { "FAILED" },
        r.thresholds.len() - failed,
        r.thresholds.len()
    );
    let name_w = r
        .thresholds
        .iter()
        .map(|t| t.threshold.chars().count())
        .max()
        .unwrap_or(0)
        .max("threshold".len());
    let values: Vec<String> = r
        .thresholds
        .iter()
        .map(|t| fmt_value(&t.threshold, t.overall.value))
        .collect();
    let value_w = values
        .iter()
        .map(|v| v.chars().count())
        .max()
        .unwrap_or(0)
        .max("overall".len());
    let per_step = r.thresholds.iter().any(|t| !t.steps.is_empty());
    out.push_str(&format!(
        "  {:<name_w$}  {:>value_w$}  result{}\n",
        "threshold",
        "overall",
        if per_step { "  steps" } else { "" }
    ));
    for (t, value) in r.thresholds.iter().zip(&values) {
        let verdict = if t.passed { "pass  " } else { "FAIL  " };
        let mut line = format!("  {:<name_w$}  {value:>value_w$}  {verdict}", t.threshold);
        if per_step {
            line.push_str(&format!("  {}", steps_cell(run, t)));
        }
        out.push_str(line.trim_end());
        out.push('\n');
        if let Some(note) = &t.overall.note {
            out.push_str(&format!("  {:<name_w$}  overall: {note}\n", ""));
        } else if !t.overall.passed && t.overall.value.is_some() {
            out.push_str(&format!(
                "  {:<name_w$}  overall: {}\n",
                "",
                failure_message(&t.threshold, &t.overall)
            ));
        }
    }
    out
}

/// "4 of 4", or "3 of 4; failed: step 4 (40 clients) 480 ms".
fn steps_cell(run: &RunResult, t: &ThresholdResult) -> String {
    if t.steps.is_empty() {
        return String::new();
    }
    let held = t.steps.iter().filter(|v| v.passed).count();
    let mut cell = format!("{held} of {} held", t.steps.len());
    let failed: Vec<String> = t
        .steps
        .iter()
        .enumerate()
        .filter(|(_, v)| !v.passed)
        .map(|(i, v)| {
            let what = match (&v.value, &v.note) {
                (Some(_), _) => fmt_value(&t.threshold, v.value),
                (None, Some(n)) => n.clone(),
                (None, None) => "–".into(),
            };
            format!("{} {what}", step_label(run, i))
        })
        .collect();
    if !failed.is_empty() {
        cell.push_str("; failed: ");
        cell.push_str(&failed[..failed.len().min(NAMED_STEPS)].join(", "));
        if failed.len() > NAMED_STEPS {
            cell.push_str(&format!(" and {} more", failed.len() - NAMED_STEPS));
        }
    }
    cell
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::threshold::{evaluate, tests_support::step};
    use crate::result::fixture;

    fn ts(list: &[&str]) -> Vec<Threshold> {
        list.iter()
            .map(|s| Threshold::parse(s).expect("valid"))
            .collect()
    }

    #[test]
    fn one_step_shows_the_overall_column_only() {
        let run = fixture::run(vec![step(1000, 0, 2.0)]);
        let r = evaluate(&ts(&["p99<200ms", "errors<0.1%", "qps>1000"]), &run);
        assert_eq!(
            threshold_table(&run, &r),
            "\
Thresholds: FAILED (1 of 3 held)
  threshold    overall  result
  p99<200ms     990 ms  FAIL
               overall: 990 ms is not below 200 ms
  errors<0.1%       0%  pass
  qps>1000     500.0/s  FAIL
               overall: 500.0/s is not above 1000/s
"
        );
    }

    #[test]
    fn steps_that_failed_are_named() {
        let mut steps = vec![step(1000, 0, 1.0), step(1000, 0, 1.0), step(0, 3, 1.0)];
        for (i, s) in steps.iter_mut().enumerate() {
            s.n_clients = 10 * (i + 1);
        }
        let run = fixture::run(steps);
        let r = evaluate(&ts(&["p99<=1s", "errors<=0"]), &run);
        assert_eq!(
            threshold_table(&run, &r),
            "\
Thresholds: FAILED (0 of 2 held)
  threshold  overall  result  steps
  p99<=1s     990 ms  FAIL    2 of 3 held; failed: step 3 (30 clients) no responses
  errors<=0        3  FAIL    2 of 3 held; failed: step 3 (30 clients) 3
             overall: 3 is above 0
"
        );
    }
}
