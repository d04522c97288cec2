//! A SQL run: pgbench-style scripts against one `postgres://` or `mysql://` target. Each
//! client is an interpreter (`sql::interp::Session`) of the run's scripts; each of
//! its requests is one transaction, begun here (a script drawn by weight) and driven
//! statement by statement by the engine's SQL arm. Transactions are counted
//! under `script=<name>` (with several scripts), and each statement's own time
//! under `stmt=<n>` (numbered from 1 across the scripts), samples that do not add
//! to the step's totals.

use std::sync::Arc;
use std::time::Duration;

use crate::engine::{ClientId, Request, RequestSource, StatusOnly, Turn, Workload};
use crate::http::Target;
use crate::result::RequestInfo;
use crate::sql::interp::{Conversation, Scripts, Session};
use crate::stats::labels::SAMPLE_KEY;
use crate::stats::{LabelSet, Labels};

/// A label index no label has: what is counted under it is counted under none.
const NONE: u16 = u16::MAX;

/// The scripts, the target and what every client shares.
pub struct SqlWorkload {
    targets: Vec<Target>,
    scripts: Arc<Scripts>,
    seed: u64,
    timeout: Duration,
    labels: Arc<Labels>,
    /// Each script's label index.
    label_of: Arc<[u16]>,
    /// Each statement's label index (`stmt=<n>`), by number across the scripts.
    stmt_label: Arc<[u16]>,
}

impl SqlWorkload {
    /// Each statement's first line, by number (its `stmt=` label's).
    pub fn statements(&self) -> Vec<String> {
        self.scripts
            .labels()
            .into_iter()
            .map(str::to_owned)
            .collect()
    }

    /// `target`'s proto is `Proto::Postgres` or `Proto::Mysql`, the scripts written
    /// in its dialect; `seed` seeds the clients' sessions.
    pub fn new(target: Target, scripts: Scripts, seed: u64, timeout: Duration) -> SqlWorkload {
        let mut set = LabelSet::new();
        // One script alone is no breakdown: its transactions are the step's totals
        // (and counted under no label: `NONE` is past every label's index).
        let label_of: Vec<u16> = if scripts.scripts.len() > 1 {
            let names = scripts.scripts.iter();
            names.map(|s| set.intern("script", &s.name)).collect()
        } else {
            vec![NONE]
        };
        // Each statement's own time, as pgbench's -r: samples within transactions.
        let stmt_label: Vec<u16> = (1..=scripts.statements())
            .map(|n| set.intern(SAMPLE_KEY, &n.to_string()))
            .collect();
        let labels = set.finish("the scripts' statements");
        let (label_of, stmt_label) = if labels.is_empty() {
            (vec![NONE; label_of.len()], vec![NONE; stmt_label.len()])
        } else {
            (label_of, stmt_label)
        };
        SqlWorkload {
            targets: vec![target],
            scripts: Arc::new(scripts),
            seed,
            timeout,
            labels: Arc::new(labels),
            label_of: label_of.into(),
            stmt_label: stmt_label.into(),
        }
    }
}

/// One client: its session, and the timeout of each of its transactions.
pub struct SqlSource {
    session: Session,
    timeout: Duration,
    label_of: Arc<[u16]>,
}

impl RequestSource for SqlSource {
    fn next(&mut self, _: Turn) -> Request<'_> {
        let script = self.session.begin();
        Request {
            target: 0,
            bytes: &[],
            timeout: self.timeout,
            head: false,
            info: script,
            items: 0,
            label: self.label_of[script],
            expect: crate::engine::Expect::ANY,
        }
    }

    fn session(&mut self) -> Option<&mut dyn Conversation> {
        Some(&mut self.session)
    }
}

impl Workload for SqlWorkload {
    type Source = SqlSource;
    type Check = StatusOnly;

    fn targets(&self) -> &[Target] {
        &self.targets
    }

    fn request_infos(&self) -> Vec<RequestInfo> {
        self.scripts
            .scripts
            .iter()
            .map(|s| RequestInfo {
                id: None,
                method: "SQL".into(),
                url: s.name.clone(),
            })
            .collect()
    }

    fn labels(&self) -> Arc<Labels> {
        Arc::clone(&self.labels)
    }

    fn client(&self, id: ClientId) -> (SqlSource, StatusOnly) {
        let session = Session::new(Arc::clone(&self.scripts), id.seed(self.seed), id.index)
            .with_statement_labels(Arc::clone(&self.stmt_label));
        let source = SqlSource {
            session,
            timeout: self.timeout,
            label_of: Arc::clone(&self.label_of),
        };
        (source, StatusOnly)
    }
}
