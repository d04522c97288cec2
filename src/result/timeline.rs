//! A step's per-second timeline as the result file holds it: per second, the
//! responses, the errors by kind and the latency (p50, p99, max and the second's own
//! histogram, so any figure can be redrawn). Recorded only when a step asks for it
//! (`suite`); see [`crate::stats::Timeline`].

use std::collections::BTreeMap;

use base64::Engine as _;
use hdrhistogram::serialization::{Serializer, V2Serializer};
use hdrhistogram::Histogram;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::stats::{ErrorKind, Timeline};

/// One second of a step, counted by the second in which each request ended.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, JsonSchema)]
pub struct SecondResult {
    /// Seconds from the step's start to the start of this second.
    pub second: u64,
    /// Whole HTTP responses, any status.
    pub responses: u64,
    /// Responses with a status outside 200..=399.
    pub bad_status: u64,
    /// Error kind → count, only kinds that occurred.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub errors: BTreeMap<ErrorKind, u64>,
    /// Median response time of the second's responses, seconds (0 without any).
    pub p50_s: f64,
    /// 99th percentile, seconds.
    pub p99_s: f64,
    /// Slowest response of the second, seconds.
    pub max_s: f64,
    /// HdrHistogram V2 serialization of the second's response times (µs, 2
    /// significant digits), base64.
    pub histogram: String,
}

impl SecondResult {
    pub fn error_total(&self) -> u64 {
        self.errors.values().sum()
    }

    /// Requests that ended in the second: responses plus errors.
    pub fn total(&self) -> u64 {
        self.responses + self.error_total()
    }

    /// Responses with a 2xx or 3xx status.
    pub fn ok(&self) -> u64 {
        self.responses - self.bad_status.min(self.responses)
    }
}

/// The seconds of a step's timeline that it lasted (`elapsed_s`, rounded up), and
/// any later one where something still ended.
pub fn seconds(t: &Timeline, elapsed_s: f64) -> Vec<SecondResult> {
    let lasted = (elapsed_s.max(0.0).ceil() as usize).max(1);
    let busy = t
        .seconds
        .iter()
        .rposition(|s| s.responses + s.total_errors() > 0)
        .map_or(0, |i| i + 1);
    let us = |v: u64| v as f64 / 1e6;
    t.seconds
        .iter()
        .take(lasted.max(busy))
        .enumerate()
        .map(|(i, s)| {
            let h = &s.latency;
            let (p50, p99, max) = if h.is_empty() {
                (0.0, 0.0, 0.0)
            } else {
                (
                    us(h.value_at_quantile(0.5)),
                    us(h.value_at_quantile(0.99)),
                    us(h.max()),
                )
            };
            SecondResult {
                second: i as u64,
                responses: s.responses,
                bad_status: s.bad_status,
                errors: ErrorKind::ALL
                    .iter()
                    .zip(&s.errors)
                    .filter(|(_, n)| **n > 0)
                    .map(|(k, n)| (*k, *n))
                    .collect(),
                p50_s: p50,
                p99_s: p99,
                max_s: max,
                histogram: encode(h),
            }
        })
        .collect()
}

/// Many machines' timelines of one step as one: second `i` of a part with offset `o`
/// is second `i + o` of the whole (the offset: how many whole seconds after the
/// earliest part it started). Counts are summed and each second's histograms added,
/// so its p50, p99 and max are those of every response that ended in it: exact.
pub fn merge_seconds(parts: &[(u64, &[SecondResult])]) -> Result<Vec<SecondResult>, String> {
    let len = parts
        .iter()
        .map(|(o, s)| s.iter().map(|x| o + x.second + 1).max().unwrap_or(0))
        .max()
        .unwrap_or(0);
    let len = usize::try_from(len).map_err(|_| "too many seconds".to_string())?;
    if len > MAX_SECONDS {
        return Err(format!("a timeline of more than {MAX_SECONDS} seconds"));
    }
    let mut out: Vec<(SecondResult, Histogram<u64>)> = (0..len)
        .map(|i| {
            let s = SecondResult {
                second: i as u64,
                ..SecondResult::default()
            };
            // The bounds and precision of a worker's second (see `new_second_histogram`).
            let h = Histogram::new_with_bounds(1, crate::stats::MAX_TRACKABLE_US, 2)
                .expect("static histogram bounds are valid");
            (s, h)
        })
        .collect();
    for (offset, seconds) in parts {
        for s in *seconds {
            let (into, h) = &mut out[(offset + s.second) as usize];
            into.responses += s.responses;
            into.bad_status += s.bad_status;
            for (k, n) in &s.errors {
                *into.errors.entry(*k).or_insert(0) += n;
            }
            let part = crate::result::decode_histogram(&s.histogram)
                .map_err(|why| format!("second {}: {why}", s.second))?;
            h.add(&part)
                .map_err(|e| format!("second {}: histogram: {e:?}", s.second))?;
        }
    }
    let us = |v: u64| v as f64 / 1e6;
    Ok(out
        .into_iter()
        .map(|(mut s, h)| {
            if !h.is_empty() {
                s.p50_s = us(h.value_at_quantile(0.5));
                s.p99_s = us(h.value_at_quantile(0.99));
                s.max_s = us(h.max());
            }
            s.histogram = crate::result::encode_histogram(&h);
            s
        })
        .collect())
}

/// The longest timeline a merge builds: 30 days, the longest a scenario may last.
const MAX_SECONDS: usize = 30 * 86_400 + 1;

fn encode(h: &Histogram<u32>) -> String {
    let mut buf = Vec::new();
    V2Serializer::new()
        .serialize(h, &mut buf)
        .expect("serializing to memory cannot fail");
    base64::engine::general_purpose::STANDARD.encode(buf)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::Outcome;
    use std::time::{Duration, Instant};

    #[test]
    fn seconds_keep_what_the_step_lasted() {
        let t0 = Instant::now();
        let mut t = Timeline::new(t0, 6);
        let ms = Duration::from_millis;
        for i in 0..100 {
            t.record(t0 + ms(10), Outcome::Status(200), ms(i + 1));
        }
        t.record(t0 + ms(2100), Outcome::Error(ErrorKind::Timeout), ms(1));
        let s = seconds(&t, 2.5);
        assert_eq!(s.len(), 3);
        assert_eq!((s[0].responses, s[0].total()), (100, 100));
        assert!((s[0].p50_s - 0.050).abs() < 0.001, "{}", s[0].p50_s);
        assert!((s[0].p99_s - 0.099).abs() < 0.002, "{}", s[0].p99_s);
        assert_eq!(
            s[1],
            SecondResult {
                second: 1,
                histogram: s[1].histogram.clone(),
                ..Default::default()
            }
        );
        assert_eq!(s[2].errors[&ErrorKind::Timeout], 1);
        let decoded = crate::result::decode_histogram(&s[0].histogram).expect("decodes");
        assert_eq!(decoded.len(), 100);
    }
}
