//! Labels: every request counted under its kind (a drnbench group, a pattern's own
//! name, a suite phase's workload, a YCSB operation).
//!
//! A workload names its labels once, before the step ([`LabelSet`] → [`Labels`]);
//! each request carries its label as a small integer, and a worker counts it in a
//! `Vec` indexed by it ([`LabelStats`]): no hashing and no string per request. The
//! number of labels is capped at [`MAX_LABELS`]; what passes the cap is counted
//! under [`OTHER`], and the labels say why ([`Labels::note`]).

use std::collections::{HashMap, HashSet};
use std::time::Duration;

use hdrhistogram::Histogram;

use super::timeline::{add_status, Timeline};
use super::{micros, ErrorKind, Outcome, MAX_TRACKABLE_US};

/// A label's latency histogram: 2 significant digits (a label's p99 to 1%), 27 KB,
/// where the step's 3 digits take 188 KB: a worker may hold 200 of them.
pub fn new_label_histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, MAX_TRACKABLE_US, 2).expect("static histogram bounds are valid")
}

/// Most labels a step keeps; the last one is [`OTHER`] when more were named.
pub const MAX_LABELS: usize = 200;
/// Labels with a per-second timeline of their own: the first few of a workload's
/// list (a workload lists its busiest first, as far as it can tell).
pub const TIMED_LABELS: usize = 8;
/// The label of everything past the cap.
pub const OTHER: &str = "other";
/// The key of labels that count samples within requests — a SQL transaction's
/// statements, `stmt=<n>` (pgbench's `-r`) — not requests: a request is counted
/// under one request label (or none) and its samples under theirs, so only the
/// request labels add up to the step's totals.
pub const SAMPLE_KEY: &str = "stmt";

/// Whether a label of key `key` counts requests (and so adds up to the step's
/// totals with the others that do), not samples within them.
pub fn counts_requests(key: &str) -> bool {
    key != SAMPLE_KEY
}

/// Labels a threshold names: each keeps its own place past the cap too, whatever
/// its rank (the guide promises it), so the threshold has something to judge.
static NAMED: std::sync::RwLock<Vec<Label>> = std::sync::RwLock::new(Vec::new());

/// Keeps `labels` (the thresholds' selectors) out of [`OTHER`] in every workload's
/// labels made after this call.
pub fn keep_named(labels: impl IntoIterator<Item = Label>) {
    let mut named = NAMED.write().unwrap_or_else(|p| p.into_inner());
    for l in labels {
        if !named.contains(&l) {
            named.push(l);
        }
    }
}

fn is_named(label: &Label) -> bool {
    let named = NAMED.read().unwrap_or_else(|p| p.into_inner());
    !named.is_empty() && named.contains(label)
}

/// One label: a selector's key ("group", "name", "workload", "op") and its value.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Label {
    pub key: String,
    pub value: String,
}

/// A workload's labels, indexed by [`crate::engine::Request::label`]. Empty when a
/// workload has one kind of request only: the step's totals are that label's.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Labels {
    pub list: Vec<Label>,
    /// Why some requests were counted under [`OTHER`], if any were.
    pub note: Option<String>,
}

impl Labels {
    pub fn len(&self) -> usize {
        self.list.len()
    }

    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }
}

/// Builds a workload's [`Labels`], handing out indices as values are named.
#[derive(Debug, Default)]
pub struct LabelSet {
    labels: Labels,
    index: HashMap<Label, u16>,
    other: Option<u16>,
    /// Distinct labels past the cap.
    past_cap: HashSet<Label>,
}

impl LabelSet {
    pub fn new() -> Self {
        LabelSet::default()
    }

    /// The index of label `key=value`: a new one while fewer than [`MAX_LABELS`]` - 1`
    /// are named, [`OTHER`]'s afterwards.
    pub fn intern(&mut self, key: &str, value: &str) -> u16 {
        let label = Label {
            key: key.into(),
            value: value.into(),
        };
        if let Some(i) = self.index.get(&label) {
            return *i;
        }
        if self.labels.list.len() + 1 < MAX_LABELS || is_named(&label) {
            let i = self.labels.list.len() as u16;
            self.labels.list.push(label.clone());
            self.index.insert(label, i);
            return i;
        }
        let key = label.key.clone();
        self.past_cap.insert(label);
        *self.other.get_or_insert_with(|| {
            let i = self.labels.list.len() as u16;
            self.labels.list.push(Label {
                key,
                value: OTHER.into(),
            });
            i
        })
    }

    /// The labels; `cause` says where their values came from, for the note when some
    /// passed the cap ("the patterns' names"). One label alone is no breakdown: the
    /// list is then empty ...
    pub fn finish(mut self, cause: &str) -> Labels {
        if !self.past_cap.is_empty() {
            self.labels.note = Some(format!(
                "{} more labels than the {} kept were counted under \"{OTHER}\": {cause} \
                 name more kinds of request than a breakdown can show",
                self.past_cap.len(),
                MAX_LABELS - 1
            ));
        }
        // ... unless a threshold names it: then it is kept, to be judged.
        if self.labels.list.len() <= 1 && !self.labels.list.iter().any(is_named) {
            return Labels::default();
        }
        self.labels
    }
}

/// What one label measured in one step (one worker's, or merged).
#[derive(Debug, Clone, Default)]
pub struct LabelStats {
    pub responses: u64,
    /// HTTP status → count, in order of first sight.
    pub statuses: Vec<(u16, u64)>,
    pub errors: [u64; ErrorKind::ALL.len()],
    /// Bytes of the label's whole responses.
    pub bytes_received: u64,
    /// Response times, µs ([`new_label_histogram`]); made at the label's first
    /// response in the worker.
    pub latency: Option<Histogram<u64>>,
    /// Per second (timed labels only; kept by the coordinator, not the workers).
    pub timeline: Option<Timeline>,
}

impl LabelStats {
    #[inline]
    pub fn record(&mut self, outcome: Outcome, latency: Duration, bytes: u64) {
        self.record_n(outcome, latency, bytes, 1);
    }

    /// `n` requests that ended alike, `bytes` their responses' sum: as `n` calls of
    /// [`LabelStats::record`] would count them.
    #[inline]
    pub fn record_n(&mut self, outcome: Outcome, latency: Duration, bytes: u64, n: u64) {
        match outcome {
            Outcome::Status(code) => {
                self.responses += n;
                self.bytes_received += bytes;
                add_status(&mut self.statuses, code, n);
                self.latency
                    .get_or_insert_with(new_label_histogram)
                    .saturating_record_n(micros(latency), n);
            }
            Outcome::Error(kind) => self.errors[kind as usize] += n,
        }
    }

    pub fn total_errors(&self) -> u64 {
        self.errors.iter().sum()
    }

    /// Requests that ended: responses plus errors.
    pub fn total(&self) -> u64 {
        self.responses + self.total_errors()
    }

    /// Add another's counts of the same label: exact.
    pub fn merge(&mut self, other: &LabelStats) {
        self.responses += other.responses;
        for (code, n) in &other.statuses {
            add_status(&mut self.statuses, *code, *n);
        }
        for (a, b) in self.errors.iter_mut().zip(&other.errors) {
            *a += b;
        }
        self.bytes_received += other.bytes_received;
        if let Some(h) = &other.latency {
            self.latency
                .get_or_insert_with(new_label_histogram)
                .add(h)
                .expect("same histogram bounds");
        }
        match (&mut self.timeline, &other.timeline) {
            (Some(a), Some(b)) => a.merge(b),
            (None, Some(b)) => self.timeline = Some(b.clone()),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn past_the_cap_everything_is_other_and_the_note_says_why() {
        let mut set = LabelSet::new();
        let mut seen = Vec::new();
        for i in 0..500 {
            seen.push(set.intern("name", &format!("u{i}")));
        }
        assert_eq!(set.intern("name", "u3"), 3);
        let labels = set.finish("the patterns' names");
        assert_eq!(labels.len(), MAX_LABELS);
        assert_eq!(labels.list[MAX_LABELS - 1].value, OTHER);
        assert_eq!(seen[198], 198);
        assert!(seen[199..]
            .iter()
            .all(|i| usize::from(*i) == MAX_LABELS - 1));
        let note = labels.note.expect("a note");
        assert!(note.contains("301 more labels"), "{note}");
        assert!(note.contains("the patterns' names"), "{note}");
    }

    #[test]
    fn one_label_is_no_breakdown() {
        let mut set = LabelSet::new();
        set.intern("group", "only");
        set.intern("group", "only");
        assert!(set.finish("groups").is_empty());
    }

    #[test]
    fn label_stats_merge_exactly() {
        let mut a = LabelStats::default();
        let mut b = LabelStats::default();
        a.record(Outcome::Status(200), Duration::from_millis(3), 100);
        b.record(Outcome::Status(404), Duration::from_millis(9), 10);
        b.record(
            Outcome::Error(ErrorKind::Timeout),
            Duration::from_secs(1),
            0,
        );
        a.merge(&b);
        assert_eq!((a.responses, a.total(), a.bytes_received), (2, 3, 110));
        assert_eq!(a.statuses, vec![(200, 1), (404, 1)]);
        assert_eq!(a.latency.as_ref().map(|h| h.len()), Some(2));
    }
}
