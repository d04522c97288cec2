//! What a scenario's recovery after a fault is judged by and what was found: the
//! criteria, the baseline before an event and the recovery after it, as a suite's
//! result keeps them. [`crate::analysis::recovery`] finds them from the timeline.

use serde::{Deserialize, Serialize};

/// What counts as recovered. The defaults are the issue's: ≥ 99% success, p99 within
/// 1.5× the baseline's (or 1 ms above it, or within the baseline's own spread, or
/// under its slowest response, whichever is wider), throughput within 90% of it, for 5 consecutive seconds; the baseline is
/// the 5 seconds before the event (within its phase).
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
    /// Least room above the baseline's p99 a healthy second has, seconds: against a
    /// sub-millisecond baseline, `p99_factor` alone judges the machine's noise (a
    /// 0.28 ms baseline and one 0.45 ms second), not the service.
    #[serde(default = "default_p99_floor_s")]
    pub p99_floor_s: f64,
}

/// [`Criteria::p99_floor_s`]'s default, and its value in results written before it.
pub const P99_FLOOR_S: f64 = 0.001;

fn default_p99_floor_s() -> f64 {
    P99_FLOOR_S
}

/// How many standard deviations of the baseline's per-second p99 above its highest
/// p99 a healthy second may reach: the baseline's own noise, whatever its size.
pub const P99_BAND_SD: f64 = 3.0;

impl Default for Criteria {
    fn default() -> Self {
        Criteria {
            success: 0.99,
            p99_factor: 1.5,
            throughput: 0.9,
            hold_s: 5,
            baseline_s: 5,
            p99_floor_s: P99_FLOOR_S,
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
    /// The spread of its seconds' p99 (their standard deviation), seconds: the band
    /// [`P99_BAND_SD`] of them wide above `p99_s` is the baseline's own noise.
    #[serde(default)]
    pub p99_spread_s: f64,
    /// The slowest response of its seconds, seconds (0 when their histograms were not
    /// kept): a hold whose p99 is under it is no slower than the normal's own tail.
    #[serde(default)]
    pub max_s: f64,
    /// Share of requests answered with 2xx/3xx, 0..1.
    pub success: f64,
    /// Taken from an earlier event that had not recovered when this one came.
    pub inherited: bool,
}

/// Which of the p99 criteria set the limit a hold's p99 is held to: the widest of
/// the four.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum P99LimitBy {
    /// `p99_factor` × the baseline's p99.
    Factor,
    /// The baseline's p99 + `p99_floor_s`.
    Floor,
    /// The baseline's p99 + [`P99_BAND_SD`] × its per-second spread.
    Band,
    /// The slowest response of the baseline: on a loaded machine a second's p99 at a
    /// few hundred requests a second is its scheduler's hiccups, which the normal's
    /// slowest response measures.
    BaselineMax,
}

/// The p99 a healthy second could reach after an event.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct P99Limit {
    /// Seconds.
    pub s: f64,
    /// The criterion that set it.
    pub by: P99LimitBy,
}

/// The seconds from an event to its recovery (or the timeline's end) that failed each
/// criterion: which one held recovery back. A second may fail several.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema,
)]
pub struct FailedCriteria {
    /// Seconds under `success` (or where nothing ended though something was expected).
    pub success: u32,
    /// Seconds whose p99 passed the limit.
    pub p99: u32,
    /// Seconds under `throughput` × the baseline's.
    pub throughput: u32,
}

/// An event not recovered when the timeline ended, though its last seconds were
/// healthy: the hold had begun and could not finish.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Recovering {
    /// From the event to the first of the healthy seconds at the end.
    pub since_s: f64,
    /// When the timeline ended, from the scenario's start.
    pub ended_at_s: f64,
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
    /// Not recovered, but healthy since `since_s` when the timeline ended: the hold
    /// could not finish (absent when recovered, or when the last second was unhealthy).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recovering: Option<Recovering>,
    /// The p99 limit a healthy second was held to (absent without a baseline p99).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p99_limit: Option<P99Limit>,
    /// How many seconds between the event and its recovery (or the end) failed each
    /// criterion.
    #[serde(default)]
    pub failed: FailedCriteria,
}
