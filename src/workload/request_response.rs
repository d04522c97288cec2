//! The request-response benchmark (drnbench's, ab's, wrk's): requests encoded once
//! from the patterns, drawn by each client's [`Picker`], checked by status only.

use std::sync::Arc;

use crate::engine::{ClientId, Request, RequestSource, StatusOnly, Turn, Workload};
use crate::http::Target;
use crate::plan::{Order, Picker, Plan};
use crate::result::RequestInfo;
use crate::stats::Labels;

/// The request-response benchmark: requests encoded once from the patterns.
pub struct PlanWorkload {
    pub plan: Arc<Plan>,
    pub order: Order,
    pub seed: u64,
}

/// A client drawing from the plan.
pub struct PlanSource {
    plan: Arc<Plan>,
    picker: Picker,
    /// The request being sent, joined from the plan's parts; reused, and rewritten
    /// only when the draw changes (a run of one URL writes it once).
    buf: Vec<u8>,
    last: Option<usize>,
}

impl RequestSource for PlanSource {
    #[inline]
    fn next(&mut self, _: Turn) -> Request<'_> {
        let id = self.picker.next(&self.plan);
        if self.last != Some(id) {
            self.plan.write_request(id, &mut self.buf);
            self.last = Some(id);
        }
        let r = self.plan.request(id);
        Request {
            target: r.target,
            bytes: &self.buf,
            timeout: r.timeout,
            head: r.head,
            info: id,
            items: 0,
            label: self.plan.label(id),
            expect: crate::engine::Expect::ANY,
        }
    }
}

impl Workload for PlanWorkload {
    type Source = PlanSource;
    type Check = StatusOnly;

    fn targets(&self) -> &[Target] {
        &self.plan.targets
    }

    fn request_infos(&self) -> Vec<RequestInfo> {
        self.plan.request_infos()
    }

    fn request_info(&self, info: usize) -> Option<RequestInfo> {
        self.plan.request_info(info)
    }

    fn labels(&self) -> Arc<Labels> {
        self.plan.labels()
    }

    fn client(&self, id: ClientId) -> (PlanSource, StatusOnly) {
        let source = PlanSource {
            plan: self.plan.clone(),
            // The sequential order ignores the seed: every step replays the file.
            picker: Picker::new(self.order, id.seed(self.seed), id.index),
            buf: Vec::new(),
            last: None,
        };
        (source, StatusOnly)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pattern::{Group, Pattern, PatternSet, Patterns};
    use crate::plan::Defaults;

    /// 200 distinct paths: the tutorial's plan for a 50% hit rate on a 100-entry cache.
    fn workload(order: Order) -> PlanWorkload {
        let patterns: Patterns = (0..200)
            .map(|i| Pattern {
                path: Some(format!("/d/select?query=t{i}")),
                ..Default::default()
            })
            .collect::<Vec<_>>()
            .into();
        let set = PatternSet {
            source: "test".into(),
            groups: vec![Group {
                patterns,
                ..Default::default()
            }],
            digest: None,
        };
        let defaults = Defaults {
            hosts: vec!["127.0.0.1".into()],
            ..Defaults::default()
        };
        PlanWorkload {
            plan: Arc::new(Plan::build(&set, &defaults).unwrap()),
            order,
            seed: 7,
        }
    }

    /// The requests client `index` of draw `draw` sends first, by their plan index.
    fn sent(w: &PlanWorkload, index: usize, draw: u64, n: u64) -> Vec<usize> {
        let (mut s, _) = w.client(ClientId::new(index, draw));
        (0..n)
            .map(|n| {
                s.next(Turn {
                    client: index,
                    n,
                    index: None,
                })
                .info
            })
            .collect()
    }

    /// The bug: every step's client k was seeded by the run's seed and k alone, so a
    /// ramp's second step sent exactly the first step's requests (a short step's were
    /// ones the server had just answered: Groonga hit 0.77 of them, planned 0.5).
    #[test]
    fn each_step_draws_anew_and_each_round_replays() {
        let w = workload(Order::Random);
        let n = 400;
        let step1 = sent(&w, 3, 0, n);
        let step2 = sent(&w, 3, 1, n);
        // Uniform over 200: two independent draws agree at a position 1 time in 200,
        // ~2 of 400 (the replay agreed at all 400). 20 is a tail of e^-30.
        let same = step1.iter().zip(&step2).filter(|(a, b)| a == b).count();
        assert!(same < 20, "step 2 repeats step 1 at {same} of {n} requests");
        // Round 2's first step is round 1's first step, request for request.
        assert_eq!(sent(&w, 3, 0, n), step1);
        assert_eq!(sent(&w, 3, 1, n), step2);
        // Draws differ from each other across many steps, and so do clients in one.
        let firsts: std::collections::HashSet<Vec<usize>> =
            (0..50).map(|d| sent(&w, 3, d, 8)).collect();
        assert_eq!(firsts.len(), 50);
        assert_ne!(sent(&w, 4, 1, n), step2);
    }

    /// Draw 0 is what a client drew before steps had draws: `--seed N` on a run of one
    /// step sends the same requests it did.
    #[test]
    fn draw_zero_is_the_seed_alone() {
        let w = workload(Order::Random);
        let mut p = Picker::new(Order::Random, 7, 5);
        let before: Vec<usize> = (0..100).map(|_| p.next(&w.plan)).collect();
        assert_eq!(sent(&w, 5, 0, 100), before);
    }

    /// `--order sequential` is an exact replay of the file: every step and round the
    /// same, whatever its draw.
    #[test]
    fn sequential_order_replays_in_every_step() {
        let w = workload(Order::Sequential);
        assert_eq!(sent(&w, 2, 0, 300), sent(&w, 2, 9, 300));
        assert_eq!(sent(&w, 2, 0, 3), vec![2, 3, 4]);
    }
}
