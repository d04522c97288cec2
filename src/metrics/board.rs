//! What the exporter knows of the run: one entry per step, live while it runs (the
//! engine's counters and coarse histogram, every ~250 ms), then the step's exact
//! totals from its result. The entries stay for the whole run, so every series only
//! grows: Prometheus counters never go down, and a finished step's series keep its
//! final numbers until the process ends.

use std::collections::BTreeMap;

use crate::engine::live::Snapshot;
use crate::engine::{Progress, StepSpec};
use crate::result::StepResult;
use crate::runner::Position;
use crate::stats::ErrorKind;

/// Which step: the labels every series of the step carries.
#[derive(Debug, Clone, PartialEq)]
pub struct StepKey {
    /// From 1, counting every step this process started (rounds and `--find-max`'s
    /// probes included), so no two steps share a series.
    pub step: usize,
    /// `--rounds`: which repetition, from 1.
    pub round: usize,
    pub clients: usize,
    /// Open model: the offered rate, requests per second (the mean of a profile).
    pub rate: Option<f64>,
}

/// A response-time histogram in the engine's live buckets, with its sum.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Latency {
    pub buckets: Snapshot,
    /// Seconds. Live: every response at its bucket's lower edge (never above the
    /// truth, so the exact sum that replaces it at the step's end is not smaller).
    pub sum_s: f64,
}

impl Latency {
    pub fn count(&self) -> u64 {
        self.buckets.count()
    }

    /// Live: from the engine's coarse buckets.
    pub fn live(buckets: Snapshot) -> Latency {
        let sum_us: u64 = buckets
            .buckets()
            .iter()
            .enumerate()
            .map(|(i, n)| {
                n * if i == 0 {
                    0
                } else {
                    crate::engine::live::upper_us(i - 1)
                }
            })
            .sum();
        Latency {
            buckets,
            sum_s: sum_us as f64 / 1e6,
        }
    }

    /// Exact: from a result's HDR histogram and mean (None when it does not decode).
    fn exact(histogram: &str, mean_s: f64) -> Option<Latency> {
        let h = crate::result::decode_histogram(histogram).ok()?;
        let buckets = Snapshot::from_histogram(&h);
        Some(Latency {
            sum_s: mean_s * buckets.count() as f64,
            buckets,
        })
    }
}

/// One kind of request's exact totals in a finished step (the result's labels).
#[derive(Debug, Clone, PartialEq)]
pub struct LabelTotals {
    /// The selector's key ("group", "name", …) and the label's value.
    pub key: String,
    pub value: String,
    pub requests: u64,
    pub statuses: BTreeMap<u16, u64>,
    pub errors: BTreeMap<ErrorKind, u64>,
    pub latency: Option<Latency>,
}

/// What a finished step adds: its exact totals by status, error kind and label.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Finished {
    pub statuses: BTreeMap<u16, u64>,
    pub errors: BTreeMap<ErrorKind, u64>,
    pub bytes_received: u64,
    pub labels: Vec<LabelTotals>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct StepBoard {
    pub key: StepKey,
    pub elapsed_s: f64,
    /// Requests that ended: responses of any status and errors.
    pub requests: u64,
    /// Of those, without a 2xx/3xx response.
    pub failed: u64,
    pub latency: Latency,
    /// Some once the step ended: the numbers above are then the result's.
    pub finished: Option<Finished>,
}

/// The whole run as the exporter shows it.
#[derive(Debug, Default)]
pub struct Board {
    /// This run's id, on every series (`run="…"`): two runs scraped from the same
    /// address one after the other are two sets of series, not one that reset.
    pub run: String,
    pub steps: Vec<StepBoard>,
    /// The step that runs now (an index into `steps`).
    running: Option<usize>,
    /// During the warm-up, progress belongs to no step.
    warming: bool,
}

impl Board {
    pub fn warmup(&mut self, on: bool) {
        self.warming = on;
    }

    pub fn step_started(&mut self, at: Position, spec: &StepSpec) {
        self.warming = false;
        self.steps.push(StepBoard {
            key: StepKey {
                step: self.steps.len() + 1,
                round: at.round,
                clients: spec.n_clients.max(1),
                rate: spec.mean_rate(),
            },
            elapsed_s: 0.0,
            requests: 0,
            failed: 0,
            latency: Latency::default(),
            finished: None,
        });
        self.running = Some(self.steps.len() - 1);
    }

    pub fn progress(&mut self, p: &Progress) {
        if self.warming {
            return;
        }
        let Some(s) = self.running.and_then(|i| self.steps.get_mut(i)) else {
            return;
        };
        s.elapsed_s = p.elapsed.as_secs_f64();
        // The engine's counters only grow within a step; max() keeps a series monotonic
        // even if a report were to arrive out of order.
        s.requests = s.requests.max(p.finished);
        s.failed = s.failed.max(p.failed);
        if p.latency.count() >= s.latency.count() {
            s.latency = Latency::live(p.latency);
        }
    }

    /// The step's exact totals replace its live numbers.
    pub fn step_finished(&mut self, step: &StepResult) {
        let Some(s) = self.running.take().and_then(|i| self.steps.get_mut(i)) else {
            return;
        };
        s.elapsed_s = step.elapsed_s;
        s.requests = step.total_requests;
        s.failed = step.error_total() + step.non_success();
        if let Some(l) = Latency::exact(&step.histogram, step.latency.mean_s) {
            s.latency = l;
        }
        s.finished = Some(Finished {
            statuses: step.statuses.clone(),
            errors: step.errors.clone(),
            bytes_received: step.bytes_received,
            labels: labels_of(step),
        });
    }

    /// The step that runs now.
    pub fn running(&self) -> Option<&StepBoard> {
        self.running.and_then(|i| self.steps.get(i))
    }
}

/// A finished step's labels (the result's `labels`, when the run counted kinds).
fn labels_of(step: &StepResult) -> Vec<LabelTotals> {
    step.labels
        .iter()
        .map(|l| LabelTotals {
            key: l.key.clone(),
            value: l.value.clone(),
            requests: l.total_requests,
            statuses: l.statuses.clone(),
            errors: l.errors.clone(),
            latency: Latency::exact(&l.histogram, l.latency.mean_s),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::live::Counts;
    use std::time::Duration;

    fn position() -> Position {
        Position {
            round: 1,
            rounds: 1,
            index: 0,
            of: 2,
        }
    }

    fn progress(finished: u64, failed: u64, latency: &Counts) -> Progress {
        Progress {
            elapsed: Duration::from_secs(1),
            finished,
            failed,
            latency: Snapshot::of([latency]),
        }
    }

    #[test]
    fn the_warmup_counts_nowhere_and_steps_get_their_own_series() {
        let mut b = Board::default();
        let spec = StepSpec {
            n_clients: 4,
            duration: Some(Duration::from_secs(2)),
            n_requests: None,
            rate: None,
        };
        let w = Counts::default();
        w.record(Duration::from_millis(3));
        b.warmup(true);
        b.progress(&progress(9, 0, &w));
        assert!(b.steps.is_empty());
        b.step_started(position(), &spec);
        b.progress(&progress(10, 1, &w));
        b.progress(&progress(8, 0, &w)); // never backwards
        let s = b.running().unwrap();
        assert_eq!(
            (s.key.step, s.key.clients, s.requests, s.failed),
            (1, 4, 10, 1)
        );
        assert_eq!(s.latency.count(), 1);
        // 3 ms sits in the bucket [2.56 ms, 3.072 ms): its lower edge is the live sum.
        assert_eq!(s.latency.sum_s, 0.00256);
        b.step_started(position(), &spec);
        assert_eq!(b.steps[1].key.step, 2);
        assert_eq!(b.steps[1].requests, 0);
    }

    #[test]
    fn a_finished_step_carries_the_results_exact_totals() {
        let mut rec = crate::stats::Recorder::new(1, 0, 0);
        let w = Counts::default();
        for ms in [1u64, 2, 2, 40] {
            let d = Duration::from_millis(ms);
            rec.record(0, crate::stats::Outcome::Status(200), d, || unreachable!());
            w.record(d);
        }
        rec.record(
            0,
            crate::stats::Outcome::Status(503),
            Duration::from_millis(1),
            || unreachable!(),
        );
        w.record(Duration::from_millis(1));
        rec.record(
            0,
            crate::stats::Outcome::Error(ErrorKind::Timeout),
            Duration::from_secs(5),
            || unreachable!(),
        );
        let facts = crate::result::StepFacts {
            n_clients: 1,
            rate: None,
            started_at: String::new(),
            elapsed_s: 1.5,
            partial: false,
            failure: None,
            rate_profile: None,
            client_cpu_s: 0.0,
            cpus: 1,
        };
        let mut step = StepResult::from_recorder(facts, &rec, &["t".into()], false);
        let mut h = crate::stats::new_histogram();
        h.record(1500).unwrap();
        step.labels.push(crate::result::LabelResult {
            key: "group".into(),
            value: "search".into(),
            total_requests: 2,
            responses: 1,
            statuses: BTreeMap::from([(200, 1)]),
            errors: BTreeMap::from([(ErrorKind::Reset, 1)]),
            bytes_received: 10,
            latency: crate::result::LatencySummary::of(&h),
            histogram: crate::result::encode_histogram(&h),
            timeline: None,
        });
        let mut b = Board::default();
        let spec = StepSpec {
            n_clients: 1,
            duration: None,
            n_requests: Some(6),
            rate: None,
        };
        b.step_started(position(), &spec);
        b.progress(&progress(5, 2, &w));
        let live = b.steps[0].latency.clone();
        b.step_finished(&step);
        let s = &b.steps[0];
        assert_eq!((s.requests, s.failed), (6, 2));
        let f = s.finished.as_ref().unwrap();
        assert_eq!(f.statuses, BTreeMap::from([(200, 4), (503, 1)]));
        assert_eq!(f.errors, BTreeMap::from([(ErrorKind::Timeout, 1)]));
        // The same responses, bucket for bucket; the exact sum is not below the live one.
        assert_eq!(s.latency.buckets, live.buckets);
        assert!(s.latency.sum_s >= live.sum_s);
        assert!(
            (s.latency.sum_s - 0.046).abs() < 0.0001,
            "{}",
            s.latency.sum_s
        );
        assert!(b.running().is_none());
        let l = &f.labels[0];
        assert_eq!(
            (l.key.as_str(), l.value.as_str(), l.requests),
            ("group", "search", 2)
        );
        assert_eq!(l.errors, BTreeMap::from([(ErrorKind::Reset, 1)]));
        assert_eq!(l.latency.as_ref().unwrap().count(), 1);
    }
}
