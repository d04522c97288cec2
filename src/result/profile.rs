//! A step's rate profile as the result keeps it (`--rate 2s@5000,1s@60000,3s@5000`):
//! its timed segments, each with its offered rate, and once judged
//! (`analysis::segments`) each segment's verdict — what it offered and what was
//! answered in its seconds, how late requests left, its p99, whether it was held and,
//! when not, when the server was back at the offered rate. A step's mean rate says
//! nothing of a spike inside it; its segments do.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// One step's profile: its segments, and their verdicts once judged.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, JsonSchema)]
pub struct StepProfile {
    /// The segments in run order, from the step's start.
    pub segments: Vec<RateSegment>,
    /// Each segment judged on its own seconds (absent until judged).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict: Option<ProfileVerdict>,
}

/// One segment of a rate profile: the rate goes linearly from `from` to `to`.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, JsonSchema)]
pub struct RateSegment {
    /// Seconds from the step's start to the segment's start.
    pub start_s: f64,
    /// Its length, seconds.
    pub duration_s: f64,
    /// Requests per second offered at its start (a shard's: its own share).
    pub from: f64,
    /// Requests per second offered at its end (`from` for a constant rate).
    pub to: f64,
}

impl RateSegment {
    pub fn end_s(&self) -> f64 {
        self.start_s + self.duration_s
    }

    /// Requests due in `[a, b)` seconds from the step's start, the part of that span
    /// inside this segment.
    pub fn due_between(&self, a: f64, b: f64) -> f64 {
        let (lo, hi) = (a.max(self.start_s), b.min(self.end_s()));
        if hi <= lo || self.duration_s <= 0.0 {
            return 0.0;
        }
        let rate_at =
            |t: f64| self.from + (self.to - self.from) * (t - self.start_s) / self.duration_s;
        (rate_at(lo) + rate_at(hi)) / 2.0 * (hi - lo)
    }

    /// The segment as `--rate` writes it, with `, ` between segments: `1s@60000`.
    pub fn text(&self) -> String {
        let n = |v: f64| {
            if v.fract() == 0.0 {
                format!("{v:.0}")
            } else {
                format!("{v}")
            }
        };
        let d = n((self.duration_s * 1000.0).round() / 1000.0);
        if self.from == self.to {
            format!("{d}s@{}", n(self.from))
        } else {
            format!("{d}s@{}..{}", n(self.from), n(self.to))
        }
    }
}

/// The profile as `--rate` writes it, segments joined by `, `.
pub fn profile_text(segments: &[RateSegment]) -> String {
    segments
        .iter()
        .map(RateSegment::text)
        .collect::<Vec<_>>()
        .join(", ")
}

/// A step's profile judged segment by segment.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, JsonSchema)]
pub struct ProfileVerdict {
    /// True when every segment the step reached was held.
    pub held: bool,
    /// One per segment of [`StepProfile::segments`], in the same order.
    pub segments: Vec<SegmentVerdict>,
}

/// One segment judged on the seconds it covers.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, JsonSchema)]
pub struct SegmentVerdict {
    /// The first of its seconds (from the step's start): the whole seconds whose
    /// middle falls inside the segment.
    pub first_second: u64,
    /// How many seconds it covers (0: the step ended before it).
    pub seconds: u64,
    /// Requests due in those seconds.
    pub offered: f64,
    /// Successful responses that ended in them.
    pub ok: u64,
    /// Failures that ended in them: bad statuses and errors.
    pub failed: u64,
    /// Requests that left more than 1 ms after their due time in them.
    pub late: u64,
    /// Requests due by the end of its seconds that had not left by then (every client
    /// busy): the backlog it left behind; absent in results that did not count what
    /// left each second.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unsent_at_end: Option<u64>,
    /// How late requests left on average (the pacer's lag summed over the requests
    /// due), seconds; absent without any lag recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mean_lag_s: Option<f64>,
    /// p99 response time (from the due time) of the responses that ended in them,
    /// seconds; absent without any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p99_s: Option<f64>,
    /// At least 95% of the offered requests answered successfully, and requests left
    /// within 5 ms of their due time on average (a backlog makes them far later).
    pub held: bool,
    /// A segment not held: whether a later second was back at its offered rate with
    /// lateness gone before the step ended (absent for a held segment).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recovered: Option<bool>,
    /// The first such second, from the step's start.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recovered_at_s: Option<u64>,
}
