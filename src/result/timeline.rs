//! A step's per-second timeline as the result file holds it: per second, the
//! responses, statuses, errors by kind, bytes and the latency (p50, p99, max and the
//! second's own histogram, so any figure can be redrawn). Every step keeps one; after
//! the first hour its entries are 10 seconds wide (`span_s`), see
//! [`crate::stats::timeline`].

use std::collections::BTreeMap;

use base64::Engine as _;
use hdrhistogram::serialization::{Serializer, V2Serializer};
use hdrhistogram::Histogram;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::stats::timeline::Entry;
use crate::stats::{ErrorKind, Timeline};

/// One second of a step (or `span_s` of them), counted by the second in which each
/// request ended.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, JsonSchema)]
pub struct SecondResult {
    /// Seconds from the step's start to the start of this entry.
    pub second: u64,
    /// Width of this entry in seconds: 1, or more where old seconds were coarsened.
    #[serde(default = "one")]
    pub span_s: u64,
    /// Whole HTTP responses, any status.
    pub responses: u64,
    /// Responses with a status outside 200..=399.
    pub bad_status: u64,
    /// HTTP status → count, only statuses that occurred.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub statuses: BTreeMap<u16, u64>,
    /// Error kind → count, only kinds that occurred.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub errors: BTreeMap<ErrorKind, u64>,
    /// Response bytes received in the entry (as the meter counts them: a label's, of
    /// its whole responses).
    #[serde(default)]
    pub bytes_received: u64,
    /// Open model: requests that left in the entry more than 1 ms after their due time
    /// (every client was busy); absent when none did.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub late: u64,
    /// Open model: how late the requests that left in the entry left, summed, µs
    /// (÷ the requests due: the mean lag); absent when nothing was paced.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub pacer_lag_sum_us: u64,
    /// Open model: requests that left in the entry (what was due and not yet sent is
    /// a backlog); absent when nothing was paced.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub sent: u64,
    /// Median response time of the second's responses, seconds (0 without any).
    pub p50_s: f64,
    /// 99th percentile, seconds.
    pub p99_s: f64,
    /// Slowest response of the second, seconds.
    pub max_s: f64,
    /// HdrHistogram V2 serialization (deflate-compressed, as HdrHistogram's log format
    /// writes it; readers take plain V2 too) of the second's response times (µs, 2
    /// significant digits), base64.
    pub histogram: String,
}

fn one() -> u64 {
    1
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl Default for SecondResult {
    fn default() -> Self {
        SecondResult {
            second: 0,
            span_s: 1,
            responses: 0,
            bad_status: 0,
            statuses: BTreeMap::new(),
            errors: BTreeMap::new(),
            bytes_received: 0,
            late: 0,
            pacer_lag_sum_us: 0,
            sent: 0,
            p50_s: 0.0,
            p99_s: 0.0,
            max_s: 0.0,
            histogram: String::new(),
        }
    }
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

/// The entries of a step's timeline over the whole seconds it lasted (`elapsed_s`)
/// and any later second where something still ended; seconds where nothing did are
/// there too, empty. (A step of 3.002 s has 3 entries unless something ended in its
/// last 2 ms: an empty fourth would read as a fall to nothing.)
pub fn seconds(t: &Timeline, elapsed_s: f64) -> Vec<SecondResult> {
    let entries = t.entries();
    let lasted = (elapsed_s.max(0.0).floor() as u64).max(1);
    let busy = entries
        .iter()
        .next_back()
        .map_or(0, |(start, e)| start + e.span_s);
    let end = lasted.max(busy);
    let empty = encode(&crate::stats::new_second_histogram());
    let mut out = Vec::new();
    let mut at = 0;
    while at < end {
        let (start, span_s) = t.bucket(at);
        let s = match entries.get(&start) {
            Some(e) => entry_result(start, e),
            None => SecondResult {
                second: start,
                span_s,
                histogram: empty.clone(),
                ..SecondResult::default()
            },
        };
        at = start + s.span_s.max(1);
        out.push(s);
    }
    out
}

/// A timeline read back from a result, as the engine keeps it (for
/// [`super::StepResult::to_recorder`]).
pub fn to_timeline(seconds: &[SecondResult]) -> Result<Timeline, String> {
    let mut t = Timeline::default();
    for s in seconds {
        let histogram = base64::engine::general_purpose::STANDARD
            .decode(&s.histogram)
            .map_err(|e| format!("second {}: histogram is not base64: {e}", s.second))?;
        // Checked here: a kept entry's histogram is trusted to decode.
        crate::result::decode_histogram(&s.histogram)
            .map_err(|why| format!("second {}: {why}", s.second))?;
        let mut errors = [0; ErrorKind::ALL.len()];
        for (k, n) in &s.errors {
            errors[*k as usize] += n;
        }
        let e = Entry {
            span_s: s.span_s.max(1),
            responses: s.responses,
            bad_status: s.bad_status,
            errors,
            statuses: s.statuses.iter().map(|(c, n)| (*c, *n)).collect(),
            bytes_received: s.bytes_received,
            late: s.late,
            lag_sum_us: s.pacer_lag_sum_us,
            sent: s.sent,
            histogram: histogram.into_boxed_slice(),
        };
        t.put(s.second, &e);
    }
    Ok(t)
}

/// One kept entry as the file holds it.
fn entry_result(start: u64, e: &Entry) -> SecondResult {
    let h = e.latency();
    let us = |v: u64| v as f64 / 1e6;
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
        second: start,
        span_s: e.span_s,
        responses: e.responses,
        bad_status: e.bad_status,
        statuses: e.statuses.iter().copied().collect(),
        errors: ErrorKind::ALL
            .iter()
            .zip(&e.errors)
            .filter(|(_, n)| **n > 0)
            .map(|(k, n)| (*k, *n))
            .collect(),
        bytes_received: e.bytes_received,
        late: e.late,
        pacer_lag_sum_us: e.lag_sum_us,
        sent: e.sent,
        p50_s: p50,
        p99_s: p99,
        max_s: max,
        histogram: base64::engine::general_purpose::STANDARD.encode(&e.histogram),
    }
}

/// Many machines' timelines of one step as one (or a step's parts laid end to end):
/// entry `e` of a part with offset `o` counts from second `e.second + o` of the whole
/// (the offset: how many whole seconds after the earliest part it started). Counts
/// are summed and each entry's histograms added, so its p50, p99 and max are those of
/// every response that ended in it: exact. Entries past the first hour are
/// [`crate::stats::timeline::COARSE_SPAN_S`] seconds wide, as the engine keeps them.
pub fn merge_seconds(parts: &[(u64, &[SecondResult])]) -> Result<Vec<SecondResult>, String> {
    let end = parts
        .iter()
        .map(|(o, s)| {
            s.iter()
                .map(|x| o + x.second + x.span_s.max(1))
                .max()
                .unwrap_or(0)
        })
        .max()
        .unwrap_or(0);
    if end > MAX_SECONDS {
        return Err(format!("a timeline of more than {MAX_SECONDS} seconds"));
    }
    let shape = Timeline::default();
    let mut out: BTreeMap<u64, (SecondResult, Histogram<u64>)> = BTreeMap::new();
    for (offset, seconds) in parts {
        for s in *seconds {
            let (start, span_s) = shape.bucket(offset + s.second);
            let (into, h) = out.entry(start).or_insert_with(|| {
                let r = SecondResult {
                    second: start,
                    span_s,
                    ..SecondResult::default()
                };
                (r, empty_second())
            });
            into.span_s = into.span_s.max(span_s).max(s.span_s);
            into.responses += s.responses;
            into.bad_status += s.bad_status;
            into.bytes_received += s.bytes_received;
            into.late += s.late;
            into.pacer_lag_sum_us += s.pacer_lag_sum_us;
            into.sent += s.sent;
            for (k, n) in &s.errors {
                *into.errors.entry(*k).or_insert(0) += n;
            }
            for (k, n) in &s.statuses {
                *into.statuses.entry(*k).or_insert(0) += n;
            }
            let part = crate::result::decode_histogram(&s.histogram)
                .map_err(|why| format!("second {}: {why}", s.second))?;
            h.add(&part)
                .map_err(|e| format!("second {}: histogram: {e:?}", s.second))?;
        }
    }
    let us = |v: u64| v as f64 / 1e6;
    let mut merged = Vec::with_capacity(out.len());
    let mut at = 0;
    while at < end {
        let (start, span_s) = shape.bucket(at);
        let (mut s, h) = out.remove(&start).unwrap_or_else(|| {
            let r = SecondResult {
                second: start,
                span_s,
                ..SecondResult::default()
            };
            (r, empty_second())
        });
        if !h.is_empty() {
            s.p50_s = us(h.value_at_quantile(0.5));
            s.p99_s = us(h.value_at_quantile(0.99));
            s.max_s = us(h.max());
        }
        s.histogram = crate::result::encode_histogram(&h);
        at = start + s.span_s.max(1);
        merged.push(s);
    }
    Ok(merged)
}

/// The bounds and precision of a worker's second (see `new_second_histogram`).
fn empty_second() -> Histogram<u64> {
    Histogram::new_with_bounds(1, crate::stats::MAX_TRACKABLE_US, 2)
        .expect("static histogram bounds are valid")
}

/// The longest timeline a merge builds: 30 days, the longest a scenario may last.
pub const MAX_SECONDS: u64 = 30 * 86_400 + 1;

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
    use crate::stats::{Outcome, Second};
    use std::time::Duration;

    #[test]
    fn seconds_keep_what_the_step_lasted() {
        let ms = Duration::from_millis;
        let mut t = Timeline::default();
        let mut first = Second::new();
        for i in 0..100 {
            first.record(Outcome::Status(200), ms(i + 1), &Default::default());
        }
        first.bytes_received = 1000;
        t.add(0, first);
        let mut third = Second::new();
        third.record(
            Outcome::Error(ErrorKind::Timeout),
            ms(1),
            &Default::default(),
        );
        t.add(2, third);
        let s = seconds(&t, 2.5);
        assert_eq!(s.len(), 3);
        assert_eq!((s[0].responses, s[0].total()), (100, 100));
        assert_eq!((s[0].statuses[&200], s[0].bytes_received), (100, 1000));
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

    #[test]
    fn a_long_step_is_written_coarse_after_the_first_hour_and_merges_so() {
        let mut t = Timeline::default();
        for i in [0u64, 3599, 3600, 3605, 3611] {
            let mut s = Second::new();
            s.record(
                Outcome::Status(200),
                Duration::from_millis(2),
                &Default::default(),
            );
            t.add(i, s);
        }
        let s = seconds(&t, 3615.0);
        assert_eq!(s.len(), 3602);
        let tail: Vec<(u64, u64, u64)> = s[3599..]
            .iter()
            .map(|x| (x.second, x.span_s, x.responses))
            .collect();
        assert_eq!(tail, vec![(3599, 1, 1), (3600, 10, 2), (3610, 10, 1)]);
        let m = merge_seconds(&[(0, &s), (0, &s)]).expect("merges");
        assert_eq!(m.len(), 3602);
        assert_eq!((m[3600].span_s, m[3600].responses), (10, 4));
        assert_eq!(
            crate::result::decode_histogram(&m[3600].histogram)
                .expect("decodes")
                .len(),
            4
        );
    }
}
