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
