//! YCSB's core workloads over SQL (`suite`'s `ycsb = { url = "postgres://…" }`): the
//! same operations, proportions, records and key choosers as over CouchDB
//! ([`crate::workload::ycsb`]) and Redis, on the table YCSB's JDBC binding uses —
//! `usertable (YCSB_KEY VARCHAR(255) PRIMARY KEY, FIELD0 TEXT, …)` — with its
//! statements, each prepared once per connection as the binding prepares them:
//!
//! - **read**: `SELECT * FROM usertable WHERE YCSB_KEY = $1`;
//! - **update**: `UPDATE usertable SET FIELDn = $1 WHERE YCSB_KEY = $2`, one field
//!   drawn (YCSB's `writeallfields=false`);
//! - **insert**: `INSERT INTO usertable (YCSB_KEY, FIELD0, …) VALUES ($1, …)`;
//! - **scan**: `SELECT * FROM usertable WHERE YCSB_KEY >= $1 ORDER BY YCSB_KEY
//!   LIMIT $2`, the length uniform in 1..=`max_scan`;
//! - **read-modify-write**: `BEGIN`, the read, the update, `COMMIT`: one transaction,
//!   where the binding (autocommit) runs two;
//! - **load**: a multi-row `INSERT` of `batch` records a request (YCSB's
//!   `jdbc.batchupdateapi`), numbered by the request's place in the phase as the
//!   other loads are, so exactly `records` rows go in, once each, also over many
//!   shards. On the engine rather than `COPY` through the blocking admin client: the
//!   load is then a phase like any other, timed, paced, sharded and in the result.
//!
//! One request is one transaction (the engine's SQL arm drives this conversation);
//! each operation is counted by kind when its transaction ends well (a load's
//! request as its rows' inserts). The table is created, if it is not there, before
//! the load (`create_table`).

use std::cell::Cell;
use std::net::ToSocketAddrs;
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use super::keys::{Distribution, KeyChooser};
use super::{op_labels, write_id, Acknowledged, Core, YcsbSettings, OPS};
use crate::engine::{Answer, ClientId, Request, RequestSource, ResponseCheck, Turn, Workload};
use crate::http::mysql_conn::{MyMode, MysqlTarget};
use crate::http::pg_conn::PgTarget;
use crate::http::{Proto, Target};
use crate::result::RequestInfo;
use crate::rng::SplitMix64;
use crate::sql::interp::{Action, Conversation, Params, StatementAnswer};
use crate::sql::mysql::url::MyUrl;
use crate::sql::pg::frontend::QueryMode;
use crate::sql::pg::url::PgUrl;
use crate::sql::Dialect;
use crate::stats::{ItemCounts, Labels};

/// YCSB's `table` by default.
pub const TABLE: &str = "usertable";

/// The most parameters one statement may carry (the Bind message counts them in 16 bits).
const MAX_PARAMS: u64 = 65_535;

/// Operations by their index in [`OPS`].
const READ: usize = 0;
const UPDATE: usize = 1;
const INSERT: usize = 2;
const SCAN: usize = 3;
const RMW: usize = 4;
const LOAD: usize = 5;

/// The statements' places in [`Statements::list`]; the fields' updates follow.
const S_READ: usize = 0;
const S_SCAN: usize = 1;
const S_INSERT: usize = 2;
const S_LOAD: usize = 3;
const S_LOAD_TAIL: usize = 4;
const S_BEGIN: usize = 5;
const S_COMMIT: usize = 6;
const S_UPDATE: usize = 7;

/// Where this workload's statements start among a connection's prepared ones, so a
/// pgbench script's statements (numbered from 0) on the same target in the same
/// phase never take their places.
const STMT_BASE: usize = 1024;

/// A statement: its text with the dialect's placeholders, and its prepared name.
#[derive(Debug, Clone)]
struct Stmt {
    text: String,
    name: String,
}

/// Every statement the workload sends, written once.
#[derive(Debug, Clone)]
struct Statements {
    list: Vec<Stmt>,
}

impl Statements {
    fn new(d: Dialect, table: &str, fields: u32, batch: u64, tail: u64) -> Statements {
        // MySQL prepares START TRANSACTION, not BEGIN (a block of stored programs there).
        let begin = match d {
            Dialect::Postgres => "BEGIN",
            Dialect::Mysql => "START TRANSACTION",
        };
        let columns: String = (0..fields).map(|f| format!(", FIELD{f}")).collect();
        let values = |rows: u64| {
            let per = u64::from(fields) + 1;
            let mut out = String::new();
            for r in 0..rows {
                out.push_str(if r == 0 { "(" } else { ", (" });
                for c in 0..per {
                    if c > 0 {
                        out.push_str(", ");
                    }
                    d.placeholder((r * per + c + 1) as usize, &mut out);
                }
                out.push(')');
            }
            out
        };
        let ph = |n: usize| {
            let mut s = String::new();
            d.placeholder(n, &mut s);
            s
        };
        let insert = |rows: u64| {
            format!(
                "INSERT INTO {table} (YCSB_KEY{columns}) VALUES {}",
                values(rows)
            )
        };
        let mut list = vec![
            (
                "read",
                format!("SELECT * FROM {table} WHERE YCSB_KEY = {}", ph(1)),
            ),
            (
                "scan",
                format!(
                    "SELECT * FROM {table} WHERE YCSB_KEY >= {} ORDER BY YCSB_KEY LIMIT {}",
                    ph(1),
                    ph(2)
                ),
            ),
            ("insert", insert(1)),
            ("load", insert(batch)),
            ("load_tail", insert(tail.max(1))),
            ("begin", begin.to_string()),
            ("commit", "COMMIT".to_string()),
        ];
        for f in 0..fields {
            list.push((
                "update",
                format!(
                    "UPDATE {table} SET FIELD{f} = {} WHERE YCSB_KEY = {}",
                    ph(1),
                    ph(2)
                ),
            ));
        }
        let list = list
            .into_iter()
            .enumerate()
            .map(|(i, (kind, text))| Stmt {
                text,
                name: if i >= S_UPDATE {
                    format!("ycsb_update{}", i - S_UPDATE)
                } else {
                    format!("ycsb_{kind}")
                },
            })
            .collect();
        Statements { list }
    }
}

/// The `CREATE TABLE` YCSB's JDBC binding documents, if it is not there.
pub fn create_table_sql(table: &str, fields: u32) -> String {
    let columns: String = (0..fields).map(|f| format!(", FIELD{f} TEXT")).collect();
    format!("CREATE TABLE IF NOT EXISTS {table} (YCSB_KEY VARCHAR(255) PRIMARY KEY{columns})")
}

/// Whether `url` names a SQL database this workload speaks to (`postgres://`,
/// `mysql://`, `mariadb://`).
pub fn is_sql(url: &str) -> bool {
    PgUrl::is_postgres(url) || MyUrl::is_mysql(url)
}

/// `url` as a SQL target's URL, checked without resolving or connecting.
pub fn check_url(url: &str) -> Result<(), String> {
    if MyUrl::is_mysql(url) {
        return MyUrl::parse(url).map(|_| ());
    }
    PgUrl::parse(url).map(|_| ())
}

/// A SQL table name as YCSB's `table` takes it: a plain identifier.
pub fn check_table(table: &str) -> Result<(), String> {
    let mut chars = table.chars();
    let first_ok = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
    if first_ok && chars.all(|c| c.is_ascii_alphanumeric() || c == '_') && table.len() <= 63 {
        Ok(())
    } else {
        Err(format!(
            "\"{table}\": a table's name is letters, digits and _ (at most 63), not starting with a digit"
        ))
    }
}

/// The engine's target for `url` (`postgres://…`, `mysql://…`), statements
/// prepared; the password the URL's, else `PGPASSWORD`'s (`MYSQL_PWD`'s). Checked
/// before any load.
pub fn target(url: &str) -> Result<Target, String> {
    if MyUrl::is_mysql(url) {
        let u = MyUrl::parse(url)?;
        let addrs: Vec<_> = (u.host.as_str(), u.port)
            .to_socket_addrs()
            .map_err(|e| format!("{}:{}: {e}", u.host, u.port))?
            .collect();
        let password = match u.password {
            Some(_) => None,
            None => std::env::var("MYSQL_PWD").ok(),
        };
        return Ok(Target {
            https: false,
            host: u.host.clone(),
            port: u.port,
            addrs,
            proto: Proto::Mysql(Arc::new(MysqlTarget {
                url: u,
                password,
                mode: MyMode::Prepared,
            })),
        });
    }
    let u = PgUrl::parse(url)?;
    let addrs: Vec<_> = (u.host.as_str(), u.port)
        .to_socket_addrs()
        .map_err(|e| format!("{}:{}: {e}", u.host, u.port))?
        .collect();
    let password = match u.password {
        Some(_) => None,
        None => std::env::var("PGPASSWORD").ok(),
    };
    Ok(Target {
        https: false,
        host: u.host.clone(),
        port: u.port,
        addrs,
        proto: Proto::Postgres(Arc::new(PgTarget {
            url: u,
            password,
            mode: QueryMode::Prepared,
        })),
    })
}

/// Runs `sql` once on `url`'s database through a connection of its own (a suite
/// phase's `before_sql`: `CHECKPOINT`, `VACUUM ANALYZE`).
pub fn execute(url: &str, sql: &str, timeout: Duration) -> Result<(), String> {
    execute_on(&target(url)?, Some(sql), timeout)
}

/// Logs in to `url`'s database and leaves, running nothing: whether the phases'
/// clients will get in, asked without a statement the server would count.
pub fn log_in(url: &str, timeout: Duration) -> Result<(), String> {
    execute_on(&target(url)?, None, timeout)
}

fn execute_on(target: &Target, sql: Option<&str>, timeout: Duration) -> Result<(), String> {
    match &target.proto {
        Proto::Postgres(t) => {
            let mut admin =
                crate::http::pg::PgAdmin::connect(&t.url, t.password.as_deref(), timeout)
                    .map_err(|e| e.to_string())?;
            sql.map_or(Ok(()), |sql| {
                admin
                    .simple_query(sql)
                    .map(|_| ())
                    .map_err(|e| e.to_string())
            })
        }
        Proto::Mysql(t) => {
            let mut admin =
                crate::http::mysql::MysqlAdmin::connect(&t.url, t.password.as_deref(), timeout)
                    .map_err(|e| e.to_string())?;
            sql.map_or(Ok(()), |sql| {
                admin
                    .simple_query(sql)
                    .map(|_| ())
                    .map_err(|e| e.to_string())
            })
        }
        _ => Err(format!("{}: not a SQL target", target.label())),
    }
}

/// Why these settings cannot run over SQL: a load's batch whose parameters one
/// statement cannot carry.
pub fn refused(s: &YcsbSettings) -> Option<String> {
    let per = u64::from(s.fields) + 1;
    (s.core == Core::Load && s.batch.saturating_mul(per) > MAX_PARAMS).then(|| {
        format!(
            "batch {}: a multi-row INSERT of {} records × {per} columns is over the {MAX_PARAMS} \
             parameters a statement carries; use batch = {} or less",
            s.batch,
            s.batch,
            MAX_PARAMS / per
        )
    })
}

struct Shared {
    s: YcsbSettings,
    table: String,
    stmts: Statements,
    chooser: KeyChooser,
    inserts: AtomicU64,
    loaded: AtomicU64,
    acknowledged: Acknowledged,
    labels: Arc<Labels>,
    label_of: [u16; OPS.len()],
}

/// The workload.
pub struct SqlYcsb {
    shared: Arc<Shared>,
    targets: Vec<Target>,
}

impl SqlYcsb {
    /// `s.target` is a SQL target ([`target`]), [`refused`] checked before.
    pub fn new(s: YcsbSettings, table: &str) -> SqlYcsb {
        let (labels, label_of) = op_labels(s.core);
        let tail = match s.records % s.batch.max(1) {
            0 => s.batch,
            t => t,
        };
        let dialect = match s.target.proto {
            Proto::Mysql(_) => Dialect::Mysql,
            _ => Dialect::Postgres,
        };
        let stmts = Statements::new(dialect, table, s.fields, s.batch.max(1), tail);
        SqlYcsb {
            targets: vec![s.target.clone()],
            shared: Arc::new(Shared {
                chooser: KeyChooser::new(s.distribution, s.records),
                table: table.to_string(),
                stmts,
                inserts: AtomicU64::new(0),
                loaded: AtomicU64::new(0),
                acknowledged: Acknowledged::new(),
                labels,
                label_of,
                s,
            }),
        }
    }

    pub fn settings(&self) -> &YcsbSettings {
        &self.shared.s
    }

    /// Requests the load sends: one per `batch` records.
    pub fn load_requests(&self) -> u64 {
        self.shared.s.load_requests()
    }

    /// Creates the table if it is not there, through a connection of its own.
    pub fn create_table(&self) -> Result<(), String> {
        let timeout = self.shared.s.timeout.min(Duration::from_secs(30));
        let sql = create_table_sql(&self.shared.table, self.shared.s.fields);
        execute_on(&self.shared.s.target, Some(&sql), timeout)
    }
}

/// One client: the transaction it is in, as a conversation the engine drives.
pub struct SqlYcsbSource {
    shared: Arc<Shared>,
    rng: SplitMix64,
    chooser: KeyChooser,
    /// The transaction's statements (places in [`Statements::list`]) and the next one.
    plan: [usize; 4],
    len: usize,
    at: usize,
    /// The operation's record (a load's first), a load's end, an update's field.
    record: u64,
    until: u64,
    field: usize,
    /// An insert of the mix in flight: its number, until its answer (or the next
    /// transaction) says it ended.
    insert: Option<u64>,
    failed: bool,
    params: Params,
    key: Vec<u8>,
    /// The operation and its count, for the check when the transaction ends well.
    counted: Rc<Cell<(usize, u64)>>,
}

pub struct SqlYcsbCheck {
    counted: Rc<Cell<(usize, u64)>>,
}

impl Workload for SqlYcsb {
    type Source = SqlYcsbSource;
    type Check = SqlYcsbCheck;

    fn targets(&self) -> &[Target] {
        &self.targets
    }

    /// One per operation, by its index in [`OPS`].
    fn request_infos(&self) -> Vec<RequestInfo> {
        let base = self.targets[0].label();
        let l = &self.shared.stmts.list;
        let texts = [
            l[S_READ].text.clone(),
            l.get(S_UPDATE).map_or(String::new(), |s| s.text.clone()),
            l[S_INSERT].text.clone(),
            l[S_SCAN].text.clone(),
            "BEGIN; read; update; COMMIT".to_string(),
            format!(
                "INSERT INTO {} … ({} rows)",
                self.shared.table, self.shared.s.batch
            ),
        ];
        texts
            .into_iter()
            .map(|t| RequestInfo {
                id: None,
                method: "SQL".into(),
                url: format!("{base} {t}"),
            })
            .collect()
    }

    fn labels(&self) -> Arc<Labels> {
        self.shared.labels.clone()
    }

    fn client(&self, id: ClientId) -> (SqlYcsbSource, SqlYcsbCheck) {
        let s = &self.shared.s;
        let counted = Rc::new(Cell::new((READ, 0)));
        let source = SqlYcsbSource {
            shared: self.shared.clone(),
            rng: SplitMix64::new(
                SplitMix64::new(id.seed(s.seed) ^ (id.index as u64).rotate_left(32)).next_u64(),
            ),
            chooser: self.shared.chooser,
            plan: [0; 4],
            len: 0,
            at: 0,
            record: 0,
            until: 0,
            field: 0,
            insert: None,
            failed: false,
            params: Params::default(),
            key: Vec::with_capacity(32),
            counted: counted.clone(),
        };
        (source, SqlYcsbCheck { counted })
    }
}

impl SqlYcsbSource {
    /// A record to read, update or scan from, as the other YCSB workloads draw it.
    fn choose(&mut self) -> u64 {
        let sh = &*self.shared;
        let n = match self.chooser.distribution() {
            Distribution::Latest => sh.s.records + sh.acknowledged.limit(),
            Distribution::Uniform | Distribution::Zipfian => sh.s.records,
        };
        let position = self.chooser.next(&mut self.rng, n);
        sh.s.record(position)
    }

    fn plan(&mut self, steps: &[usize]) {
        self.plan[..steps.len()].copy_from_slice(steps);
        self.len = steps.len();
        self.at = 0;
    }

    /// Draws the next operation and plans its statements: its index in [`OPS`],
    /// and how many operations it counts as.
    fn draw(&mut self, turn: Turn) -> (usize, u64) {
        let sh = self.shared.clone();
        let s = &sh.s;
        if s.core == Core::Load {
            let (first, stride) = s.lane();
            let b = turn
                .index
                .unwrap_or_else(|| first + sh.loaded.fetch_add(1, Ordering::Relaxed) * stride)
                % s.load_requests().max(1);
            self.record = b * s.batch;
            self.until = (self.record + s.batch).min(s.records);
            let full = self.until - self.record == s.batch;
            self.plan(&[if full { S_LOAD } else { S_LOAD_TAIL }]);
            return (LOAD, self.until - self.record);
        }
        let pr = s.core.proportions();
        let roll = self.rng.below(1000) as u32;
        let update = pr.read + pr.update;
        let insert = update + pr.insert;
        let scan = insert + pr.scan;
        self.field = self.rng.below(s.fields.max(1) as usize);
        if roll < pr.read {
            self.record = self.choose();
            self.plan(&[S_READ]);
            (READ, 1)
        } else if roll < update {
            self.record = self.choose();
            self.plan(&[S_UPDATE + self.field]);
            (UPDATE, 1)
        } else if roll < insert {
            let j = sh.inserts.fetch_add(1, Ordering::Relaxed);
            self.insert = Some(j);
            self.record = s.record(s.records + j);
            self.plan(&[S_INSERT]);
            (INSERT, 1)
        } else if roll < scan {
            self.record = self.choose();
            self.until = 1 + self.rng.below(s.max_scan.max(1) as usize) as u64;
            self.plan(&[S_SCAN]);
            (SCAN, 1)
        } else {
            self.record = self.choose();
            self.plan(&[S_BEGIN, S_READ, S_UPDATE + self.field, S_COMMIT]);
            (RMW, 1)
        }
    }

    /// Appends record `record`'s key as a parameter.
    fn push_key(&mut self, record: u64) {
        self.key.clear();
        write_id(&mut self.key, record);
        let key = std::str::from_utf8(&self.key).expect("an ASCII key");
        self.params.push_with(|out| out.push_str(key));
    }

    /// Appends a field's value: `field_length` random letters.
    fn push_value(&mut self) {
        let (rng, len) = (&mut self.rng, self.shared.s.field_length as usize);
        self.params.push_with(|out| {
            let mut left = len;
            while left > 0 {
                let r = rng.next_u64();
                for k in 0..left.min(8) {
                    out.push(char::from(b'a' + ((r >> (k * 8)) as u8 % 26)));
                }
                left = left.saturating_sub(8);
            }
        });
    }

    /// Fills the parameters of statement `st` of the operation.
    fn fill(&mut self, st: usize) {
        self.params.clear();
        let fields = self.shared.s.fields;
        match st {
            S_READ => self.push_key(self.record),
            S_SCAN => {
                self.push_key(self.record);
                let n = self.until;
                self.params.push_with(|out| out.push_str(&n.to_string()));
            }
            S_INSERT | S_LOAD | S_LOAD_TAIL => {
                let (from, to) = if st == S_INSERT {
                    (self.record, self.record + 1)
                } else {
                    (self.record, self.until)
                };
                for r in from..to {
                    self.push_key(r);
                    for _ in 0..fields {
                        self.push_value();
                    }
                }
            }
            S_BEGIN | S_COMMIT => {}
            _ => {
                self.push_value();
                self.push_key(self.record);
            }
        }
    }
}

impl RequestSource for SqlYcsbSource {
    fn next(&mut self, turn: Turn) -> Request<'_> {
        if let Some(j) = self.insert.take() {
            // The last insert ended without its answer (the wire failed): it is over.
            self.shared.acknowledged.done(j);
        }
        self.failed = false;
        let (op, n) = self.draw(turn);
        self.counted.set((op, n));
        Request {
            target: 0,
            bytes: &[],
            timeout: self.shared.s.timeout,
            head: false,
            info: op,
            items: 0,
            label: self.shared.label_of[op],
            expect: crate::engine::Expect::ANY,
        }
    }

    fn session(&mut self) -> Option<&mut dyn Conversation> {
        Some(self)
    }
}

impl Conversation for SqlYcsbSource {
    fn next(&mut self) -> Action<'_> {
        if self.failed || self.at >= self.len {
            return Action::Done;
        }
        let st = self.plan[self.at];
        self.at += 1;
        self.fill(st);
        let stmt = &self.shared.stmts.list[st];
        Action::Query {
            stmt: STMT_BASE + st,
            sql: &stmt.text,
            params: &self.params,
            prepared: Some(&stmt.name),
        }
    }

    fn answered(&mut self, answer: &StatementAnswer<'_>) {
        if self.plan[self.at.saturating_sub(1)] == S_INSERT {
            if let Some(j) = self.insert.take() {
                self.shared.acknowledged.done(j);
            }
        }
        if answer.failed {
            // The engine rolls back what the transaction began; it is over.
            self.failed = true;
        }
    }
}

impl ResponseCheck for SqlYcsbCheck {
    fn check(&mut self, _: &Answer<'_>, items: &mut ItemCounts) {
        let (op, n) = self.counted.get();
        let name = if op == LOAD { OPS[INSERT] } else { OPS[op] };
        items.operation(name, n);
    }
}

#[cfg(test)]
mod tests;
