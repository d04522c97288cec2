//! A step's labels as the result file holds them: per kind of request, its counts,
//! latency (with the histogram, so labels merge exactly) and, for the busiest few,
//! its own per-second timeline. See [`crate::stats::labels`].

use std::collections::BTreeMap;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::timeline::{self, SecondResult};
use super::{decode_histogram, encode_histogram, LatencySummary};
use crate::stats::labels::new_label_histogram;
use crate::stats::{ErrorKind, Label, LabelStats, Labels, Recorder};

/// One kind of request in a step: a drnbench group, a pattern's own name, a suite
/// phase's workload, a bulk/YCSB operation.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, JsonSchema)]
pub struct LabelResult {
    /// The selector's key: "group", "name", "workload", "op", "host".
    pub key: String,
    /// The label's value; "other" collects what passed the cap.
    pub value: String,
    /// Requests of this label that ended: responses plus errors.
    pub total_requests: u64,
    /// Whole HTTP responses, any status.
    pub responses: u64,
    /// HTTP status → count.
    #[serde(default)]
    pub statuses: BTreeMap<u16, u64>,
    /// Error kind → count, only kinds that occurred.
    #[serde(default)]
    pub errors: BTreeMap<ErrorKind, u64>,
    /// Bytes of the label's whole responses (head and body).
    #[serde(default)]
    pub bytes_received: u64,
    pub latency: LatencySummary,
    /// HdrHistogram V2 of the label's response times (µs, 2 significant digits), base64.
    pub histogram: String,
    /// Per second, for the busiest labels only (None for the rest).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeline: Option<Vec<SecondResult>>,
}

/// The labels a recorder counted, in the workload's order.
pub(super) fn of(rec: &Recorder, elapsed_s: f64) -> Vec<LabelResult> {
    rec.label_names
        .list
        .iter()
        .zip(&rec.labels)
        .map(|(name, l)| {
            let h = l.latency.clone().unwrap_or_else(new_label_histogram);
            LabelResult {
                key: name.key.clone(),
                value: name.value.clone(),
                total_requests: l.total(),
                responses: l.responses,
                statuses: l.statuses.iter().copied().collect(),
                errors: ErrorKind::ALL
                    .iter()
                    .zip(&l.errors)
                    .filter(|(_, n)| **n > 0)
                    .map(|(k, n)| (*k, *n))
                    .collect(),
                bytes_received: l.bytes_received,
                latency: LatencySummary::of(&h),
                histogram: encode_histogram(&h),
                timeline: l.timeline.as_ref().map(|t| timeline::seconds(t, elapsed_s)),
            }
        })
        .collect()
}

/// Labels read back into a recorder ([`super::StepResult::to_recorder`]).
pub(super) fn into_recorder(
    labels: &[LabelResult],
    note: Option<&String>,
    rec: &mut Recorder,
) -> Result<(), String> {
    if labels.is_empty() {
        return Ok(());
    }
    let mut names = Labels {
        list: Vec::with_capacity(labels.len()),
        note: note.cloned(),
    };
    let mut stats = Vec::with_capacity(labels.len());
    for l in labels {
        names.list.push(Label {
            key: l.key.clone(),
            value: l.value.clone(),
        });
        let mut s = LabelStats {
            responses: l.responses,
            statuses: l.statuses.iter().map(|(c, n)| (*c, *n)).collect(),
            bytes_received: l.bytes_received,
            ..LabelStats::default()
        };
        for (kind, n) in &l.errors {
            s.errors[*kind as usize] += n;
        }
        let h = decode_histogram(&l.histogram)
            .map_err(|why| format!("label {}={}: {why}", l.key, l.value))?;
        if !h.is_empty() {
            let mut into = new_label_histogram();
            into.add(&h)
                .map_err(|e| format!("label {}={}: {e:?}", l.key, l.value))?;
            s.latency = Some(into);
        }
        if let Some(t) = &l.timeline {
            s.timeline = Some(
                timeline::to_timeline(t)
                    .map_err(|why| format!("label {}={}: {why}", l.key, l.value))?,
            );
        }
        stats.push(s);
    }
    rec.label_names = Arc::new(names);
    rec.labels = stats;
    Ok(())
}
