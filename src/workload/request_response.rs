//! The request-response benchmark (drnbench's, ab's, wrk's): requests encoded once
//! from the patterns, drawn by each client's [`Picker`], checked by status only.

use std::sync::Arc;

use crate::engine::{Request, RequestSource, StatusOnly, Turn, Workload};
use crate::http::Target;
use crate::plan::{Order, Picker, Plan};
use crate::result::RequestInfo;

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
}

impl RequestSource for PlanSource {
    #[inline]
    fn next(&mut self, _: Turn) -> Request<'_> {
        let id = self.picker.next(&self.plan);
        let r = &self.plan.requests[id];
        Request {
            target: r.target,
            bytes: &r.bytes,
            timeout: r.timeout,
            head: r.head,
            info: id,
            items: 0,
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

    fn client(&self, client: usize) -> (PlanSource, StatusOnly) {
        let source = PlanSource {
            plan: self.plan.clone(),
            picker: Picker::new(self.order, self.seed, client),
        };
        (source, StatusOnly)
    }
}
