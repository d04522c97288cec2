//! One client of a sysbench test as a conversation the engine's SQL arm drives: each
//! request one event (a transaction unless `--skip-trx`), its statements drawn as
//! sysbench's Lua draws them, each counted read, write or other as its answer comes.
//!
//! Prepared mode (`--db-ps-mode=auto`) names one statement per kind and table
//! (`sb_point_3`: a table name cannot be a parameter) and binds its values; plain
//! mode writes them into the text. Nothing allocates per event once the buffers
//! have grown.

use std::cell::Cell;
use std::fmt::Write as _;
use std::rc::Rc;
use std::sync::Arc;

use super::rand::{SbRand, Unique};
use super::{Group, OltpOptions, QueryCounts};
use crate::sql::interp::{Action, Conversation, Params, SqlFailure, StatementAnswer};

/// `c`: ten groups of eleven digits, 119 characters.
pub const C_TEMPLATE: &str = "###########-###########-###########-###########-###########-###########-###########-###########-###########-###########";
/// `pad`: five groups, 59 characters.
pub const PAD_TEMPLATE: &str = "###########-###########-###########-###########-###########";

/// Rows of one `bulk_insert` event (sysbench fills a 512 KiB query: ~30,000 of its
/// `(i,i)` rows; one event here is one such INSERT, of a size that keeps latency
/// readable).
pub const BULK_ROWS: u32 = 1000;

/// What every client of a run shares: the options and each event's groups.
#[derive(Debug)]
pub struct Plan {
    pub options: OltpOptions,
    groups: Vec<(Group, u32)>,
}

impl Plan {
    pub fn new(options: OltpOptions) -> Plan {
        Plan {
            groups: options.groups(),
            options,
        }
    }

    /// The number of distinct statements (prepared names) a client may use.
    pub fn statements(&self) -> usize {
        KINDS * (self.options.tables.max(1) as usize + 1)
    }
}

/// Statement kinds, for their numbers and prepared names.
const KINDS: usize = 15;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Begin,
    Commit,
    Point,
    Simple,
    Sum,
    Order,
    Distinct,
    IndexUpdate,
    NonIndexUpdate,
    Delete,
    Insert,
    OltpInsert,
    Points,
    Ranges,
    Bulk,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Begin => "sb_begin",
            Kind::Commit => "sb_commit",
            Kind::Point => "sb_point",
            Kind::Simple => "sb_simple",
            Kind::Sum => "sb_sum",
            Kind::Order => "sb_order",
            Kind::Distinct => "sb_distinct",
            Kind::IndexUpdate => "sb_upd_idx",
            Kind::NonIndexUpdate => "sb_upd_nonidx",
            Kind::Delete => "sb_delete",
            Kind::Insert => "sb_insert",
            Kind::OltpInsert => "sb_oltp_insert",
            Kind::Points => "sb_points",
            Kind::Ranges => "sb_ranges",
            Kind::Bulk => "sb_bulk",
        }
    }

    fn is_read(self) -> bool {
        matches!(
            self,
            Kind::Point
                | Kind::Simple
                | Kind::Sum
                | Kind::Order
                | Kind::Distinct
                | Kind::Points
                | Kind::Ranges
        )
    }
}

/// A value of a statement: an integer, or a string in the client's string buffer.
#[derive(Debug, Clone, Copy)]
enum Val {
    Int(i64),
    Str(usize, usize),
}

/// One client's conversation.
pub struct Oltp {
    plan: Arc<Plan>,
    rng: SbRand,
    unique: Unique,
    client: u32,
    /// Events begun by this client (its share of the unique sequence).
    events: u32,
    /// The event's place: group, statements sent of it, the group's table.
    group: usize,
    within: u32,
    table: u32,
    /// A delete/insert pair's id and k.
    pair: (u32, u32),
    /// `bulk_insert`: the last id this client inserted.
    bulk_next: u64,
    ended: bool,
    awaiting: Option<Kind>,
    counts: Rc<Cell<QueryCounts>>,
    sql: String,
    params: Params,
    vals: Vec<Val>,
    strs: String,
    name: String,
}

impl Oltp {
    /// Client `client`'s conversation; its answers are counted into `counts`.
    pub fn new(plan: Arc<Plan>, seed: u64, client: usize, counts: Rc<Cell<QueryCounts>>) -> Oltp {
        let rng = SbRand::new(plan.options.rand, seed, client as u64);
        Oltp {
            rng,
            unique: Unique::new(seed),
            client: client as u32,
            events: 0,
            group: 0,
            within: 0,
            table: 1,
            pair: (0, 0),
            bulk_next: 0,
            ended: true,
            awaiting: None,
            counts,
            sql: String::new(),
            params: Params::default(),
            vals: Vec::new(),
            strs: String::new(),
            name: String::new(),
            plan,
        }
    }

    /// Starts the next event.
    pub fn begin(&mut self) {
        self.group = 0;
        self.within = 0;
        self.ended = false;
        self.awaiting = None;
        self.events = self.events.wrapping_add(1);
    }

    fn id(&mut self) -> u32 {
        self.rng.default(1, self.plan.options.table_size.max(1))
    }

    fn string(&mut self, template: &str) -> Val {
        let a = self.strs.len();
        self.rng.string(template, &mut self.strs);
        Val::Str(a, self.strs.len())
    }

    /// The `group`'s next statement's kind and values (into `vals`).
    fn draw(&mut self, group: Group) -> Kind {
        let plan = Arc::clone(&self.plan);
        let o = &plan.options;
        let (tables, threads, table_size) = (o.tables.max(1), o.threads.max(1), o.table_size);
        let on_any_table = !matches!(
            group,
            Group::Begin
                | Group::Commit
                | Group::RandomPoints
                | Group::RandomRanges
                | Group::BulkInsert
        );
        if self.within == 0 {
            self.table = match group {
                _ if on_any_table => self.rng.uniform(1, tables),
                // BEGIN and COMMIT: one statement whatever the tables.
                Group::Begin | Group::Commit => 0,
                _ => 1,
            };
        }
        let range = i64::from(o.range_size);
        let v = |x: u32| Val::Int(i64::from(x));
        match group {
            Group::Begin => Kind::Begin,
            Group::Commit => Kind::Commit,
            Group::PointSelects => {
                let id = self.id();
                self.vals.push(v(id));
                Kind::Point
            }
            Group::SimpleRanges | Group::SumRanges | Group::OrderRanges | Group::DistinctRanges => {
                let id = i64::from(self.id());
                self.vals.extend([Val::Int(id), Val::Int(id + range - 1)]);
                match group {
                    Group::SimpleRanges => Kind::Simple,
                    Group::SumRanges => Kind::Sum,
                    Group::OrderRanges => Kind::Order,
                    _ => Kind::Distinct,
                }
            }
            Group::IndexUpdates => {
                let id = self.id();
                self.vals.push(v(id));
                Kind::IndexUpdate
            }
            Group::NonIndexUpdates => {
                let c = self.string(C_TEMPLATE);
                let id = self.id();
                self.vals.extend([c, v(id)]);
                Kind::NonIndexUpdate
            }
            Group::DeleteInserts if self.within.is_multiple_of(2) => {
                self.pair = (self.id(), self.id());
                self.vals.push(v(self.pair.0));
                Kind::Delete
            }
            Group::DeleteInserts => {
                let (id, k) = self.pair;
                let c = self.string(C_TEMPLATE);
                let pad = self.string(PAD_TEMPLATE);
                self.vals.extend([v(id), v(k), c, pad]);
                Kind::Insert
            }
            Group::Delete => {
                let id = self.id();
                self.vals.push(v(id));
                Kind::Delete
            }
            Group::Insert => {
                let k = self.id();
                let (c, pad) = (self.string(C_TEMPLATE), self.string(PAD_TEMPLATE));
                if !o.auto_inc {
                    // A 32-bit unique value as a signed SQL INTEGER, as sysbench does.
                    let index = self.events.wrapping_mul(threads).wrapping_add(self.client);
                    self.vals
                        .push(Val::Int(i64::from(self.unique.get(index)) - (1 << 31)));
                } else if o.dialect == crate::sql::Dialect::Mysql {
                    // 0 asks MySQL for the next AUTO_INCREMENT value.
                    self.vals.push(Val::Int(0));
                }
                self.vals.extend([v(k), c, pad]);
                Kind::OltpInsert
            }
            Group::RandomPoints | Group::RandomRanges => {
                // Each thread draws within its own slice of the keys.
                let rlen = f64::from(table_size) / f64::from(threads);
                let rmin = rlen * f64::from(self.client % threads);
                let (lo, hi) = (rmin as u32, (rmin + rlen) as u32);
                if group == Group::RandomPoints {
                    for _ in 0..o.random_points {
                        let k = self.rng.default(lo, hi.max(lo));
                        self.vals.push(v(k));
                    }
                    Kind::Points
                } else {
                    let delta = i64::from(o.delta);
                    for _ in 0..o.number_of_ranges {
                        let k = i64::from(self.rng.default(lo, hi.max(lo)));
                        self.vals.extend([Val::Int(k), Val::Int(k + delta)]);
                    }
                    Kind::Ranges
                }
            }
            Group::BulkInsert => {
                self.table = self.client % threads + 1;
                Kind::Bulk
            }
        }
    }

    /// Writes the statement's text (and, prepared, its parameters and name).
    fn render(&mut self, kind: Kind) {
        let prepared = self.plan.options.prepared && !self.plan.options.test.plain_queries();
        let dialect = self.plan.options.dialect;
        let t = self.table;
        let mut w = Writer {
            sql: &mut self.sql,
            params: &mut self.params,
            strs: &self.strs,
            vals: &self.vals,
            next: 0,
            prepared,
            dialect,
        };
        w.sql.clear();
        w.params.clear();
        match kind {
            Kind::Begin => w.text("BEGIN"),
            Kind::Commit => w.text("COMMIT"),
            Kind::Point => {
                let _ = write!(w.sql, "SELECT c FROM sbtest{t} WHERE id=");
                w.val();
            }
            Kind::Simple | Kind::Sum | Kind::Order | Kind::Distinct => {
                let what = match kind {
                    Kind::Sum => "SUM(k)",
                    Kind::Distinct => "DISTINCT c",
                    _ => "c",
                };
                let _ = write!(w.sql, "SELECT {what} FROM sbtest{t} WHERE id BETWEEN ");
                w.val();
                w.text(" AND ");
                w.val();
                if matches!(kind, Kind::Order | Kind::Distinct) {
                    w.text(" ORDER BY c");
                }
            }
            Kind::IndexUpdate => {
                let _ = write!(w.sql, "UPDATE sbtest{t} SET k=k+1 WHERE id=");
                w.val();
            }
            Kind::NonIndexUpdate => {
                let _ = write!(w.sql, "UPDATE sbtest{t} SET c=");
                w.val();
                w.text(" WHERE id=");
                w.val();
            }
            Kind::Delete => {
                let _ = write!(w.sql, "DELETE FROM sbtest{t} WHERE id=");
                w.val();
            }
            Kind::Insert | Kind::OltpInsert => {
                let n = w.vals.len();
                let cols = if n == 4 { "id, k, c, pad" } else { "k, c, pad" };
                let _ = write!(w.sql, "INSERT INTO sbtest{t} ({cols}) VALUES (");
                w.list(n, ", ");
                w.text(")");
            }
            Kind::Points => {
                w.text("SELECT id, k, c, pad FROM sbtest1 WHERE k IN (");
                w.list(w.vals.len(), ", ");
                w.text(")");
            }
            Kind::Ranges => {
                w.text("SELECT count(k) FROM sbtest1 WHERE ");
                for i in 0..w.vals.len() / 2 {
                    if i > 0 {
                        w.text(" OR ");
                    }
                    w.text("k BETWEEN ");
                    w.val();
                    w.text(" AND ");
                    w.val();
                }
            }
            Kind::Bulk => {
                let _ = write!(w.sql, "INSERT INTO sbtest{t} VALUES ");
                for i in 0..u64::from(BULK_ROWS) {
                    let id = self.bulk_next + i + 1;
                    let sep = if i > 0 { "," } else { "" };
                    let _ = write!(w.sql, "{sep}({id},{id})");
                }
                self.bulk_next += u64::from(BULK_ROWS);
            }
        }
        self.name.clear();
        if prepared {
            self.name.push_str(kind.name());
            if t > 0 {
                let _ = write!(self.name, "_{t}");
            }
        }
    }

    /// Counts a statement as sysbench's drivers do: a result set is a read, a
    /// statement that changed rows a write, anything else — BEGIN, COMMIT, an
    /// UPDATE or DELETE that found no row — other.
    fn count(&self, kind: Kind, affected: u64) {
        let mut c = self.counts.get();
        match kind {
            k if k.is_read() => c.read += 1,
            Kind::Begin | Kind::Commit => c.other += 1,
            _ if affected > 0 => c.write += 1,
            _ => c.other += 1,
        }
        self.counts.set(c);
    }
}

/// Writes a statement's text: each value a placeholder and a parameter when
/// prepared, else written into the text (strings quoted; they hold digits and
/// dashes only).
struct Writer<'a> {
    sql: &'a mut String,
    params: &'a mut Params,
    strs: &'a str,
    vals: &'a [Val],
    next: usize,
    prepared: bool,
    dialect: crate::sql::Dialect,
}

impl Writer<'_> {
    fn text(&mut self, s: &str) {
        self.sql.push_str(s);
    }

    fn val(&mut self) {
        let v = self.vals[self.next];
        self.next += 1;
        if self.prepared {
            self.dialect.placeholder(self.next, self.sql);
            if let (Val::Int(_), crate::sql::Dialect::Postgres) = (v, self.dialect) {
                // sysbench's pgsql driver binds its integers as bigint (INT8), and
                // the planner's choices follow the type (an index scan where an
                // integer parameter gets a sequential one): the same type here.
                self.sql.push_str("::bigint");
            }
            let strs = self.strs;
            self.params.push_with(|b| match v {
                Val::Int(i) => {
                    let _ = write!(b, "{i}");
                }
                Val::Str(a, z) => b.push_str(&strs[a..z]),
            });
            return;
        }
        match v {
            Val::Int(i) => {
                let _ = write!(self.sql, "{i}");
            }
            Val::Str(a, z) => {
                self.sql.push('\'');
                self.sql.push_str(&self.strs[a..z]);
                self.sql.push('\'');
            }
        }
    }

    fn list(&mut self, n: usize, sep: &str) {
        for i in 0..n {
            if i > 0 {
                self.text(sep);
            }
            self.val();
        }
    }
}

impl Conversation for Oltp {
    fn next(&mut self) -> Action<'_> {
        if self.ended {
            return Action::Done;
        }
        let plan = Arc::clone(&self.plan);
        let Some(&(group, n)) = plan.groups.get(self.group) else {
            self.ended = true;
            return Action::Done;
        };
        self.vals.clear();
        self.strs.clear();
        let kind = self.draw(group);
        let per = if group == Group::DeleteInserts {
            2 * n
        } else {
            n
        };
        self.within += 1;
        if self.within >= per {
            self.group += 1;
            self.within = 0;
        }
        self.render(kind);
        self.awaiting = Some(kind);
        Action::Query {
            stmt: kind as usize * (plan.options.tables.max(1) as usize + 1) + self.table as usize,
            sql: &self.sql,
            params: &self.params,
            prepared: (!self.name.is_empty()).then_some(self.name.as_str()),
        }
    }

    fn answered(&mut self, answer: &StatementAnswer<'_>) {
        let Some(kind) = self.awaiting.take() else {
            return;
        };
        if answer.failed {
            // The engine rolls back; the event ends, or starts again (`retry`).
            self.ended = true;
            return;
        }
        self.count(kind, answer.affected);
    }

    /// sysbench restarts the event on an error it ignores: the event again from its
    /// first statement with fresh draws (its `event()` called anew), the failed
    /// try's good statements still counted, the failure counted a retry (the
    /// report's "ignored errors").
    fn retry(&mut self, failure: SqlFailure) -> bool {
        let again = self.plan.options.ignore.covers(failure);
        if again {
            self.begin();
        }
        again
    }
}

#[cfg(test)]
mod tests;
