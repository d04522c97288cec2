//! What `run` and `ramp` drive: the plan's HTTP requests or a key-value store's
//! commands, one type for the runner, `--find-max` and `suite` alike. The engine is
//! generic over the workload; the one branch per request here costs nothing that
//! can be measured beside a socket's round trip.

use std::sync::Arc;

use super::{KvSource, KvWorkload};
use crate::engine::{Request, RequestSource, StatusOnly, Turn, Workload};
use crate::http::Target;
use crate::result::{RequestInfo, StoreCommand};
use crate::stats::Labels;
use crate::workload::{PlanSource, PlanWorkload};

/// The workload of `run` and `ramp`.
pub enum RunWorkload {
    Plan(PlanWorkload),
    /// Boxed: a key-value workload holds its settings and choosers inline.
    Kv(Box<KvWorkload>),
    /// A PostgreSQL run: each request one transaction.
    Sql(Box<crate::workload::sql::SqlWorkload>),
}

impl RunWorkload {
    /// The request-response workload, when it is one (`None` for a key-value run).
    pub fn plan(&self) -> Option<&PlanWorkload> {
        match self {
            RunWorkload::Plan(p) => Some(p),
            RunWorkload::Kv(_) | RunWorkload::Sql(_) => None,
        }
    }

    /// A key-value run's commands as the result names them ([`StoreCommand`]);
    /// empty for any other run.
    pub fn store_commands(&self) -> Vec<StoreCommand> {
        self.kv()
            .map(KvWorkload::store_commands)
            .unwrap_or_default()
    }

    /// The key-value workload, when it is one.
    pub fn kv(&self) -> Option<&KvWorkload> {
        match self {
            RunWorkload::Plan(_) | RunWorkload::Sql(_) => None,
            RunWorkload::Kv(w) => Some(&**w),
        }
    }
}

pub enum RunSource {
    Plan(PlanSource),
    Kv(KvSource),
    Sql(crate::workload::sql::SqlSource),
}

impl RequestSource for RunSource {
    #[inline]
    fn next(&mut self, turn: Turn) -> Request<'_> {
        match self {
            RunSource::Plan(s) => s.next(turn),
            RunSource::Kv(s) => s.next(turn),
            RunSource::Sql(s) => s.next(turn),
        }
    }

    #[inline]
    fn session(&mut self) -> Option<&mut dyn crate::sql::interp::Conversation> {
        match self {
            RunSource::Sql(s) => s.session(),
            _ => None,
        }
    }

    fn sent(&self) -> Option<String> {
        match self {
            RunSource::Kv(s) => s.sent(),
            _ => None,
        }
    }
}

/// Both answer by status alone.
pub type RunCheck = StatusOnly;

impl Workload for RunWorkload {
    type Source = RunSource;
    type Check = RunCheck;

    fn targets(&self) -> &[Target] {
        match self {
            RunWorkload::Plan(w) => w.targets(),
            RunWorkload::Kv(w) => w.targets(),
            RunWorkload::Sql(w) => w.targets(),
        }
    }

    fn request_infos(&self) -> Vec<RequestInfo> {
        match self {
            RunWorkload::Plan(w) => w.request_infos(),
            RunWorkload::Kv(w) => w.request_infos(),
            RunWorkload::Sql(w) => w.request_infos(),
        }
    }

    fn request_info(&self, info: usize) -> Option<RequestInfo> {
        match self {
            RunWorkload::Plan(w) => w.request_info(info),
            RunWorkload::Kv(w) => w.request_info(info),
            RunWorkload::Sql(w) => w.request_info(info),
        }
    }

    fn labels(&self) -> Arc<Labels> {
        match self {
            RunWorkload::Plan(w) => w.labels(),
            RunWorkload::Kv(w) => w.labels(),
            RunWorkload::Sql(w) => w.labels(),
        }
    }

    fn client(&self, id: crate::engine::ClientId) -> (RunSource, RunCheck) {
        match self {
            RunWorkload::Plan(w) => (RunSource::Plan(w.client(id).0), StatusOnly),
            RunWorkload::Kv(w) => (RunSource::Kv(w.client(id).0), StatusOnly),
            RunWorkload::Sql(w) => (RunSource::Sql(w.client(id).0), StatusOnly),
        }
    }
}
