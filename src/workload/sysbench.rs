//! `hakaru sysbench`'s load: one of sysbench's OLTP tests against one SQL target.
//! Each client is a [`crate::sql::sysbench::oltp::Oltp`] conversation; each of its
//! requests is one event (a transaction unless `--skip-trx`), driven statement by
//! statement by the engine's SQL arm.
//!
//! What sysbench reports beyond transactions rides in the step's result: the
//! queries by class (read, write, other) as its `operations`, counted by each
//! client's conversation as answers come and handed to the recorder by the check
//! when an event ends well (the good statements of a failed event are handed over
//! with the client's next good one); each client's events and time under a label
//! `thread=N` (sysbench's threads are hakaru's clients), for "Threads fairness".

use std::cell::Cell;
use std::rc::Rc;
use std::sync::Arc;
use std::time::Duration;

use crate::engine::{Answer, ClientId, Request, RequestSource, ResponseCheck, Turn, Workload};
use crate::http::Target;
use crate::result::RequestInfo;
use crate::sql::interp::Conversation;
use crate::sql::sysbench::oltp::{Oltp, Plan};
use crate::sql::sysbench::{OltpOptions, QueryCounts, OTHER, READ, WRITE};
use crate::stats::{ItemCounts, LabelSet, Labels};

/// The test, its target and what every client shares.
pub struct SysbenchWorkload {
    targets: Vec<Target>,
    plan: Arc<Plan>,
    seed: u64,
    timeout: Duration,
    labels: Arc<Labels>,
    label_of: Arc<[u16]>,
}

impl SysbenchWorkload {
    /// `target` speaks the options' dialect; `threads` clients will run.
    pub fn new(target: Target, options: OltpOptions, seed: u64, timeout: Duration) -> Self {
        let threads = options.threads.max(1) as usize;
        let mut set = LabelSet::new();
        let label_of: Vec<u16> = (0..threads)
            .map(|i| set.intern("thread", &i.to_string()))
            .collect();
        let labels = set.finish("--threads");
        let label_of = if labels.is_empty() {
            vec![0; threads]
        } else {
            label_of
        };
        SysbenchWorkload {
            targets: vec![target],
            plan: Arc::new(Plan::new(options)),
            seed,
            timeout,
            labels: Arc::new(labels),
            label_of: label_of.into(),
        }
    }

    pub fn options(&self) -> &OltpOptions {
        &self.plan.options
    }
}

/// One client: its conversation.
pub struct SysbenchSource {
    oltp: Oltp,
    timeout: Duration,
    label: u16,
}

impl RequestSource for SysbenchSource {
    fn next(&mut self, _: Turn) -> Request<'_> {
        self.oltp.begin();
        Request {
            target: 0,
            bytes: &[],
            timeout: self.timeout,
            head: false,
            info: 0,
            items: 0,
            label: self.label,
            expect: crate::engine::Expect::ANY,
        }
    }

    fn session(&mut self) -> Option<&mut dyn Conversation> {
        Some(&mut self.oltp)
    }
}

/// Hands the client's counted queries to the recorder at each good event's end.
pub struct SysbenchCheck {
    counts: Rc<Cell<QueryCounts>>,
}

impl ResponseCheck for SysbenchCheck {
    fn check(&mut self, _: &Answer<'_>, items: &mut ItemCounts) {
        let c = self.counts.take();
        for (name, n) in [(READ, c.read), (WRITE, c.write), (OTHER, c.other)] {
            if n > 0 {
                items.operation(name, n);
            }
        }
    }
}

impl Workload for SysbenchWorkload {
    type Source = SysbenchSource;
    type Check = SysbenchCheck;

    fn targets(&self) -> &[Target] {
        &self.targets
    }

    fn request_infos(&self) -> Vec<RequestInfo> {
        vec![RequestInfo {
            id: None,
            method: "SQL".into(),
            url: self.plan.options.test.name().into(),
        }]
    }

    fn labels(&self) -> Arc<Labels> {
        Arc::clone(&self.labels)
    }

    fn client(&self, id: ClientId) -> (SysbenchSource, SysbenchCheck) {
        let counts = Rc::new(Cell::new(QueryCounts::default()));
        let oltp = Oltp::new(
            Arc::clone(&self.plan),
            id.seed(self.seed),
            id.index,
            Rc::clone(&counts),
        );
        let label = self.label_of.get(id.index).copied().unwrap_or(0);
        let source = SysbenchSource {
            oltp,
            timeout: self.timeout,
            label,
        };
        (source, SysbenchCheck { counts })
    }
}
