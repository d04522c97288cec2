//! What `run` and `ramp` drive: the plan's HTTP requests, a key-value store's
//! commands, a SQL database's scripts or a sysbench test, one type for the runner,
//! `--find-max`, `suite` and `hakaru sysbench` alike. The engine is
//! generic over the workload; the one branch per request here costs nothing that
//! can be measured beside a socket's round trip.

use std::sync::Arc;

use super::{KvSource, KvWorkload};
use crate::engine::{Answer, Request, RequestSource, ResponseCheck, StatusOnly, Turn, Workload};
use crate::http::Target;
use crate::result::{RequestInfo, StoreCommand};
use crate::stats::{ItemCounts, Labels};
use crate::workload::sysbench::{SysbenchCheck, SysbenchSource, SysbenchWorkload};
use crate::workload::{PlanSource, PlanWorkload};

/// The workload of `run` and `ramp`.
pub enum RunWorkload {
    Plan(PlanWorkload),
    /// Boxed: a key-value workload holds its settings and choosers inline.
    Kv(Box<KvWorkload>),
    /// A PostgreSQL run: each request one transaction.
    Sql(Box<crate::workload::sql::SqlWorkload>),
    /// `hakaru sysbench run`: each request one event of the test.
    Sysbench(Box<SysbenchWorkload>),
}

impl RunWorkload {
    /// The request-response workload, when it is one (`None` for a key-value run).
    pub fn plan(&self) -> Option<&PlanWorkload> {
        match self {
            RunWorkload::Plan(p) => Some(p),
            RunWorkload::Kv(_) | RunWorkload::Sql(_) | RunWorkload::Sysbench(_) => None,
        }
    }

    /// A key-value run's commands as the result names them ([`StoreCommand`]);
    /// empty for any other run.
    pub fn store_commands(&self) -> Vec<StoreCommand> {
        self.kv()
            .map(KvWorkload::store_commands)
            .unwrap_or_default()
    }

    /// A SQL run's statements as the result names them (`Settings::sql_statements`);
    /// empty for any other run.
    pub fn sql_statements(&self) -> Vec<String> {
        match self {
            RunWorkload::Sql(w) => w.statements(),
            _ => Vec::new(),
        }
    }

    /// The key-value workload, when it is one.
    pub fn kv(&self) -> Option<&KvWorkload> {
        match self {
            RunWorkload::Kv(w) => Some(&**w),
            _ => None,
        }
    }
}

pub enum RunSource {
    Plan(PlanSource),
    Kv(KvSource),
    Sql(crate::workload::sql::SqlSource),
    Sysbench(SysbenchSource),
}

impl RequestSource for RunSource {
    #[inline]
    fn next(&mut self, turn: Turn) -> Request<'_> {
        match self {
            RunSource::Plan(s) => s.next(turn),
            RunSource::Kv(s) => s.next(turn),
            RunSource::Sql(s) => s.next(turn),
            RunSource::Sysbench(s) => s.next(turn),
        }
    }

    #[inline]
    fn session(&mut self) -> Option<&mut dyn crate::sql::interp::Conversation> {
        match self {
            RunSource::Sql(s) => s.session(),
            RunSource::Sysbench(s) => s.session(),
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

/// Every workload but sysbench answers by status alone; sysbench's check hands the
/// event's queries by class to the step's operations.
pub enum RunCheck {
    Status(StatusOnly),
    Sysbench(SysbenchCheck),
}

impl ResponseCheck for RunCheck {
    #[inline]
    fn check(&mut self, answer: &Answer<'_>, items: &mut ItemCounts) {
        match self {
            RunCheck::Status(_) => {}
            RunCheck::Sysbench(c) => c.check(answer, items),
        }
    }
}

impl Workload for RunWorkload {
    type Source = RunSource;
    type Check = RunCheck;

    fn targets(&self) -> &[Target] {
        match self {
            RunWorkload::Plan(w) => w.targets(),
            RunWorkload::Kv(w) => w.targets(),
            RunWorkload::Sql(w) => w.targets(),
            RunWorkload::Sysbench(w) => w.targets(),
        }
    }

    fn request_infos(&self) -> Vec<RequestInfo> {
        match self {
            RunWorkload::Plan(w) => w.request_infos(),
            RunWorkload::Kv(w) => w.request_infos(),
            RunWorkload::Sql(w) => w.request_infos(),
            RunWorkload::Sysbench(w) => w.request_infos(),
        }
    }

    fn request_info(&self, info: usize) -> Option<RequestInfo> {
        match self {
            RunWorkload::Plan(w) => w.request_info(info),
            RunWorkload::Kv(w) => w.request_info(info),
            RunWorkload::Sql(w) => w.request_info(info),
            RunWorkload::Sysbench(w) => w.request_info(info),
        }
    }

    fn labels(&self) -> Arc<Labels> {
        match self {
            RunWorkload::Plan(w) => w.labels(),
            RunWorkload::Kv(w) => w.labels(),
            RunWorkload::Sql(w) => w.labels(),
            RunWorkload::Sysbench(w) => w.labels(),
        }
    }

    fn client(&self, id: crate::engine::ClientId) -> (RunSource, RunCheck) {
        let status = RunCheck::Status(StatusOnly);
        match self {
            RunWorkload::Plan(w) => (RunSource::Plan(w.client(id).0), status),
            RunWorkload::Kv(w) => (RunSource::Kv(w.client(id).0), status),
            RunWorkload::Sql(w) => (RunSource::Sql(w.client(id).0), status),
            RunWorkload::Sysbench(w) => {
                let (source, check) = w.client(id);
                (RunSource::Sysbench(source), RunCheck::Sysbench(check))
            }
        }
    }
}
