//! Thresholds as the result file keeps them (`--threshold`): each with its verdict
//! overall and per step, so a result says whether it passed without being evaluated
//! again. [`crate::analysis::threshold`] fills them in; the reports render them.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Every threshold of a run and whether all of them held.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, JsonSchema)]
pub struct ThresholdsResult {
    /// True when every threshold held overall and in every step.
    pub passed: bool,
    pub thresholds: Vec<ThresholdResult>,
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
}
