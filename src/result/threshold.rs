//! Thresholds as the result file keeps them (`--threshold`): each with its verdict
//! overall and per step, so a result says whether it passed without being evaluated
//! again, and the threshold that ended the run early under `--abort-on-fail`.
//! [`crate::analysis::threshold`] fills them in; the reports render them.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Every threshold of a run and whether all of them held.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, JsonSchema)]
pub struct ThresholdsResult {
    /// True when every threshold held overall and in every step.
    pub passed: bool,
    pub thresholds: Vec<ThresholdResult>,
    /// `--abort-on-fail`: the threshold that could no longer hold, and when the run was
    /// ended for it. The verdicts above are still judged on the exact figures of what
    /// ran; this says why there is no more.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aborted: Option<Aborted>,
}

/// Why and when `--abort-on-fail` ended a run.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, JsonSchema)]
pub struct Aborted {
    /// The threshold that tripped, as written.
    pub threshold: String,
    /// The step that was running (an index into `steps`, from 0).
    pub step: usize,
    /// Seconds from that step's start to the moment the run was told to stop.
    pub at_s: f64,
    /// That moment, UTC (RFC 3339).
    pub at: String,
    /// What the judge saw: the live figure of a window or of the step so far (from the
    /// coarse live histogram, taken at its most favourable edge), or the step's exact
    /// verdict at its end.
    pub why: String,
}

/// One threshold (`p99<200ms`) and its verdicts.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, JsonSchema)]
pub struct ThresholdResult {
    /// As written, spaces removed: `p99<200ms`, `errors<0.1%`, `qps>1000`.
    pub threshold: String,
    /// True when it held overall and in every step.
    pub passed: bool,
    /// Over the whole run: every step's histograms and counts together.
    pub overall: Verdict,
    /// One per step, in the order of `steps` (empty when the run has a single step:
    /// its verdict is `overall`).
    #[serde(default)]
    pub steps: Vec<Verdict>,
}

/// A threshold measured on one step, or on the whole run.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, JsonSchema)]
pub struct Verdict {
    pub passed: bool,
    /// The measured value in the threshold's unit: seconds for response times, a share
    /// 0..1 or a count for errors, per second for qps and docs_per_s. Absent when
    /// nothing could be measured (no responses).
    pub value: Option<f64>,
    /// How many observations the value rests on: responses for response times, ended
    /// requests for errors and rates.
    pub samples: u64,
    /// Why it failed without a value, or why the value is weak ("only 12 responses").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// A windowed threshold (`p99[10s]<200ms`): how many windows were judged. The
    /// value, samples and `window_start_s` are those of the worst window.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub windows: u64,
    /// Of those, how many did not hold.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub windows_failed: u64,
    /// The worst window's start, seconds from its step's start.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window_start_s: Option<u64>,
    /// Over the whole run of several steps: the step of the worst window (from 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window_step: Option<usize>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}
