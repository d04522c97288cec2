//! `ramp --find-max` as the result file keeps it: the SLO, the answer with its
//! bracket, and every probe with why it failed. [`crate::analysis::find_max`] judges
//! the probes; each probe's measurements are a step of the run (`step`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The search for the highest rate that meets the SLO.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, JsonSchema)]
pub struct FindMaxResult {
    /// The thresholds every probe had to meet, as written: `["p99<50ms", "errors<0.1%"]`.
    pub slo: Vec<String>,
    /// The highest offered rate, requests per second, at which every probe passed;
    /// absent when no probe passed. Never a rate that failed a probe (but a failure
    /// its repeat did not confirm: `unconfirmed`).
    pub max_sustainable_rate: Option<f64>,
    /// True when `max_sustainable_rate` passed a second probe too.
    pub confirmed: bool,
    /// The lowest rate that failed a probe (unconfirmed failures aside): the true limit
    /// lies between `max_sustainable_rate` and this. Absent when every probe passed.
    pub lowest_failed_rate: Option<f64>,
    /// The bracket's width as a share of the answer: (lowest_failed_rate −
    /// max_sustainable_rate) ÷ max_sustainable_rate.
    pub uncertainty: Option<f64>,
    /// Responses a probe needed to be judged at all.
    pub min_samples: u64,
    /// The shortest a probe ran, seconds (`--duration`); slower rates ran longer to
    /// gather `min_samples`.
    pub probe_duration_s: f64,
    /// Why the search ended: `converged`, `max_rate`, `max_probes`, `none_passed` or
    /// `interrupted`.
    pub ended: String,
    /// Every probe, in the order run.
    pub probes: Vec<ProbeResult>,
}

/// One probe: a fixed rate for a while, run as one step (the server's queue carries
/// from its start to its end) and cut into parts afterwards, from the step's
/// per-second timeline, to see whether that queue grew.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, JsonSchema)]
pub struct ProbeResult {
    /// Offered rate, requests per second.
    pub rate: f64,
    /// Index of the probe's measurements (its one step) in `steps`.
    pub step: usize,
    pub passed: bool,
    /// Measured wall time, seconds.
    pub duration_s: f64,
    pub responses: u64,
    /// Responses needed to judge the probe.
    pub min_samples: u64,
    /// Each SLO threshold's measured value over the probe, in `slo`'s order (seconds,
    /// a share 0..1, a count, or per second; absent when nothing was measured).
    pub values: Vec<Option<f64>>,
    /// The SLO thresholds that did not hold.
    pub failed: Vec<FailedThreshold>,
    /// Fewer responses than `min_samples`: not judged, counted as a failure unless
    /// `inconclusive`.
    pub too_few_samples: bool,
    /// Too few responses, or hakaru behind its timetable, and nothing else wrong: the
    /// rate was probed again for twice as long, and this probe counts neither as a
    /// pass nor as a failure.
    #[serde(default)]
    pub inconclusive: bool,
    /// The median response time rose from every part of the probe to the next, the
    /// last part's above the first part's p90 by more than its spread (p90 − p50): a
    /// queue was building, so the rate is not sustainable even if the SLO held so far.
    pub queue_growing: bool,
    /// Requests that ended ÷ those a server keeping up with the rate would have ended
    /// (the probe's due requests less the rate × its mean response time).
    #[serde(default)]
    pub kept_up_share: f64,
    /// `kept_up_share` below 0.97: the server may have answered slower than requests
    /// came. Said among the reasons of a failed probe, not a failure of its own (the
    /// requests cut off at the probe's end are the slowest, so the estimate runs short on
    /// a busy machine).
    #[serde(default)]
    pub fell_behind: bool,
    /// The median response time of each part of the probe, in order, seconds: of the
    /// responses that ended in the part's seconds.
    pub part_p50_s: Vec<f64>,
    /// How many whole seconds of the probe each part covers, in order (the last also
    /// holds the probe's last, partial second). Fewer than 4 parts when the probe
    /// lasted fewer than 4 whole seconds; one (no trend) under 2 s. Absent (empty) in
    /// files from before a probe was one step.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub part_seconds: Vec<u64>,
    /// The first part's p90, seconds.
    pub first_part_p90_s: f64,
    /// Requests sent more than 1 ms after their due time.
    pub late: u64,
    /// Requests due but never sent.
    pub dropped: u64,
    /// hakaru could not keep to the timetable (more than 1% of the due requests never
    /// sent): the probe measured the client, so it fails.
    pub client_behind: bool,
    /// Why the probe failed, in words.
    #[serde(default)]
    pub why: Vec<String>,
    /// Set when this probe ran an earlier probe's rate again to check its verdict.
    /// Absent in files from before failures were confirmed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repeat: Option<Repeat>,
    /// A failure not confirmed: the probe run right after it at its rate, to confirm
    /// it, passed. Taken for a stall of the machine or the target (one failed a
    /// search's first probe, which then answered 220/s for a target holding far more),
    /// it lowered nothing: neither the answer nor `lowest_failed_rate` counts it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unconfirmed: bool,
    /// After a probe that did not pass, the wait before this one for the target to
    /// answer as it did before the overload (a queue left behind would be measured as
    /// this probe's); absent when the probe before passed, or none has passed yet (no
    /// baseline to compare with).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settle: Option<Settle>,
}

/// A probe that ran an earlier probe's rate again, and why.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, JsonSchema)]
pub struct Repeat {
    /// The probe run again: its index in `probes`.
    pub of: usize,
    /// What the repeat was for.
    pub confirming: Confirming,
}

/// The verdict a repeat checks.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Confirming {
    /// The answer's second probe: a pass is the answer only once it held twice.
    Pass,
    /// A failure the search doubted (nothing had passed yet, or the rate was within
    /// the precision above one that passed): a stall of the machine fails a probe
    /// too, and a failure moves the bracket down for good.
    Failure,
}

/// Short low-rate checks run before a probe, until the target answered as during the
/// first probe that passed (`--interval` aside: whatever it says, this is waited for).
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, JsonSchema)]
pub struct Settle {
    /// Time spent in the checks, seconds.
    pub waited_s: f64,
    /// Checks run.
    pub checks: u32,
    /// The last check answered as the baseline did; false when the wait hit its limit
    /// (the probe then ran anyway, and its numbers may carry the earlier overload).
    pub settled: bool,
    /// The checks' rate, requests per second.
    pub rate: f64,
    /// The first passing probe's median response time, seconds: what a settled target
    /// answers within (× 1.5, + 1 ms).
    pub baseline_p50_s: f64,
    /// The last check's median response time, seconds (absent: no response).
    pub last_p50_s: Option<f64>,
}

/// A threshold that did not hold in a probe.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, JsonSchema)]
pub struct FailedThreshold {
    pub threshold: String,
    /// The measured value in the threshold's unit; absent when nothing was measured.
    pub value: Option<f64>,
}
