//! What a scenario's recovery after a fault is judged by and what was found: the
//! criteria, the baseline before an event and the recovery after it, as a suite's
//! result keeps them. [`crate::analysis::recovery`] finds them from the timeline.

use serde::{Deserialize, Serialize};

/// What counts as recovered. The defaults are the issue's: ≥ 99% success, p99 within
/// 1.5× the baseline's, throughput within 90% of it, for 5 consecutive seconds; the
/// baseline is the 5 seconds before the event (within its phase).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Criteria {
    /// Least share of requests answered with 2xx/3xx in a healthy second, 0..1.
    pub success: f64,
    /// Most a healthy second's p99 may be, as a multiple of the baseline's.
    pub p99_factor: f64,
    /// Least throughput of a healthy second, as a share of the baseline's, 0..1.
    pub throughput: f64,
    /// Consecutive healthy seconds that make a recovery.
    pub hold_s: u32,
    /// Seconds before the event that make its baseline.
    pub baseline_s: u32,
}

impl Default for Criteria {
    fn default() -> Self {
        Criteria {
            success: 0.99,
            p99_factor: 1.5,
            throughput: 0.9,
            hold_s: 5,
            baseline_s: 5,
        }
    }
}

/// The normal before an event.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Baseline {
    /// The seconds it covers, from the scenario's start.
    pub from_s: f64,
    pub to_s: f64,
    /// Mean 2xx/3xx responses per second.
    pub throughput: f64,
    /// The highest p99 of its seconds, seconds: a healthy second is no worse than the
    /// worst normal one (times `p99_factor`), so a second's p99 — the third-slowest of
    /// 300 requests — does not fail a recovery by its own noise.
    pub p99_s: f64,
    /// Share of requests answered with 2xx/3xx, 0..1.
    pub success: f64,
    /// Taken from an earlier event that had not recovered when this one came.
    pub inherited: bool,
}

/// What happened around one event. Times are seconds after the event.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Recovery {
    /// When the event ran, from the scenario's start.
    pub at_s: f64,
    /// Absent when no whole second came before the event.
    pub baseline: Option<Baseline>,
    /// From the event to the first second with a failed request (an error or a status
    /// outside 2xx/3xx), before recovery; absent when there was none.
    pub first_error_s: Option<f64>,
    /// The worst second (fewest 2xx/3xx responses, then the highest p99) between the
    /// event and its recovery (or the end), from the event.
    pub worst_second_s: Option<f64>,
    /// Its 2xx/3xx responses.
    pub worst_throughput: Option<f64>,
    /// Its share of requests answered with 2xx/3xx (absent when nothing ended in it).
    pub worst_success: Option<f64>,
    /// Its p99, seconds.
    pub worst_p99_s: Option<f64>,
    /// From the event to the first of `hold_s` consecutive healthy seconds; absent
    /// when the scenario ended first.
    pub recovery_s: Option<f64>,
}
