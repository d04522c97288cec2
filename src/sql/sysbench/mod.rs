//! sysbench's OLTP tests, pure (no I/O): which statements each test's event runs
//! and in what shape (`oltp_read_write`'s BEGIN, point selects, ranges, updates,
//! delete/insert pairs, COMMIT…), on which of the `sbtest1..N` tables, with which
//! random values (`rand`); the conversation a client of the engine drives through
//! them (`oltp`); the tables' DDL and rows for `prepare` and `cleanup` (`ddl`).
//! Written from reading sysbench 1.0's Lua scripts (`oltp_common.lua` and the
//! tests beside it); each test's options default as there.

pub mod ddl;
pub mod oltp;
pub mod rand;

use crate::sql::interp::SqlFailure;
use crate::sql::Dialect;
use rand::RandSpec;

/// sysbench's built-in database tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Test {
    ReadWrite,
    ReadOnly,
    WriteOnly,
    PointSelect,
    UpdateIndex,
    UpdateNonIndex,
    Insert,
    Delete,
    RandomPoints,
    RandomRanges,
    BulkInsert,
}

impl Test {
    pub const ALL: [Test; 11] = [
        Test::ReadWrite,
        Test::ReadOnly,
        Test::WriteOnly,
        Test::PointSelect,
        Test::UpdateIndex,
        Test::UpdateNonIndex,
        Test::Insert,
        Test::Delete,
        Test::RandomPoints,
        Test::RandomRanges,
        Test::BulkInsert,
    ];

    /// Its name on sysbench's command line.
    pub fn name(self) -> &'static str {
        match self {
            Test::ReadWrite => "oltp_read_write",
            Test::ReadOnly => "oltp_read_only",
            Test::WriteOnly => "oltp_write_only",
            Test::PointSelect => "oltp_point_select",
            Test::UpdateIndex => "oltp_update_index",
            Test::UpdateNonIndex => "oltp_update_non_index",
            Test::Insert => "oltp_insert",
            Test::Delete => "oltp_delete",
            Test::RandomPoints => "select_random_points",
            Test::RandomRanges => "select_random_ranges",
            Test::BulkInsert => "bulk_insert",
        }
    }

    /// The test named `s`, as sysbench takes it (a trailing `.lua` too).
    pub fn parse(s: &str) -> Option<Test> {
        let s = s.strip_suffix(".lua").unwrap_or(s);
        Test::ALL.into_iter().find(|t| t.name() == s)
    }

    /// Sends its statements as plain queries whatever `--db-ps-mode` says (sysbench's
    /// `oltp_insert` and `bulk_insert` call `con:query`, not a prepared statement).
    pub fn plain_queries(self) -> bool {
        matches!(self, Test::Insert | Test::BulkInsert)
    }

    /// Works on `sbtest1` alone (sysbench refuses `--tables` above 1).
    pub fn one_table(self) -> bool {
        matches!(self, Test::RandomPoints | Test::RandomRanges)
    }
}

/// A test's settings: sysbench's options with its defaults.
#[derive(Debug, Clone, PartialEq)]
pub struct OltpOptions {
    pub test: Test,
    pub dialect: Dialect,
    /// `--db-ps-mode=auto`: server-side prepared statements, one per table and kind.
    pub prepared: bool,
    pub tables: u32,
    pub table_size: u32,
    pub range_size: u32,
    pub point_selects: u32,
    pub simple_ranges: u32,
    pub sum_ranges: u32,
    pub order_ranges: u32,
    pub distinct_ranges: u32,
    pub index_updates: u32,
    pub non_index_updates: u32,
    pub delete_inserts: u32,
    pub range_selects: bool,
    pub skip_trx: bool,
    pub auto_inc: bool,
    pub secondary: bool,
    pub create_secondary: bool,
    /// `select_random_points`: values in the IN () list.
    pub random_points: u32,
    /// `select_random_ranges`: BETWEEN ranges per SELECT, and their width.
    pub number_of_ranges: u32,
    pub delta: u32,
    /// `--threads`: `select_random_*` give each thread its slice of the keys, and
    /// `bulk_insert` a table of its own.
    pub threads: u32,
    pub rand: RandSpec,
    /// `--mysql-storage-engine`: the tables' engine on MySQL (`innodb`).
    pub engine: String,
    /// The errors an event is restarted on.
    pub ignore: Ignore,
}

/// The errors sysbench restarts an event on, counting each among its "ignored
/// errors": on MySQL `--mysql-ignore-errors` (its default 1213, 1020, 1205:
/// a deadlock, a record changed since it was read, a lock wait timeout); on
/// PostgreSQL its driver's fixed three (40P01 deadlock, 23505 unique violation,
/// 40001 serialization failure). Anything else is counted by its kind and the
/// event is not restarted (sysbench ends the run on it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ignore {
    /// `--mysql-ignore-errors=all`: every server error.
    All,
    /// These MySQL error codes (`none`: no code).
    Codes(Vec<u16>),
}

impl Default for Ignore {
    fn default() -> Ignore {
        Ignore::Codes(vec![1213, 1020, 1205])
    }
}

/// PostgreSQL's errors sysbench's pgsql driver restarts an event on.
pub const PG_IGNORED: [&[u8; 5]; 3] = [b"40P01", b"23505", b"40001"];

impl Ignore {
    /// Whether a statement failing so restarts the event.
    pub fn covers(&self, failure: SqlFailure) -> bool {
        match (self, failure) {
            (_, SqlFailure::Pg(state)) => PG_IGNORED.contains(&&state),
            (Ignore::All, SqlFailure::My(..)) => true,
            (Ignore::Codes(codes), SqlFailure::My(code, _)) => codes.contains(&code),
        }
    }

    /// `--mysql-ignore-errors`'s value: `all`, `none`, or codes separated by commas.
    pub fn parse(s: &str) -> Result<Ignore, String> {
        let s = s.trim();
        if s.split(',').any(|w| w.trim() == "all") {
            return Ok(Ignore::All);
        }
        if s == "none" || s.is_empty() {
            return Ok(Ignore::Codes(Vec::new()));
        }
        s.split(',')
            .map(|w| {
                w.trim()
                    .parse::<u16>()
                    .ok()
                    .filter(|&c| c > 0)
                    .ok_or_else(|| {
                        format!("{w}: not a MySQL error code (a number, e.g. 1213), all or none")
                    })
            })
            .collect::<Result<Vec<u16>, String>>()
            .map(Ignore::Codes)
    }
}

impl OltpOptions {
    /// sysbench's defaults for `test`.
    pub fn new(test: Test, dialect: Dialect) -> OltpOptions {
        OltpOptions {
            test,
            dialect,
            prepared: true,
            tables: 1,
            table_size: 10_000,
            range_size: 100,
            point_selects: 10,
            simple_ranges: 1,
            sum_ranges: 1,
            order_ranges: 1,
            distinct_ranges: 1,
            index_updates: 1,
            non_index_updates: 1,
            delete_inserts: 1,
            range_selects: true,
            skip_trx: false,
            auto_inc: true,
            secondary: false,
            create_secondary: true,
            random_points: 10,
            number_of_ranges: 10,
            delta: 5,
            threads: 1,
            rand: RandSpec::default(),
            engine: "innodb".into(),
            ignore: Ignore::default(),
        }
    }

    /// Each event's groups of statements, in order, with how many each runs.
    pub fn groups(&self) -> Vec<(Group, u32)> {
        let trx = !self.skip_trx;
        let mut g = Vec::new();
        let reads = |g: &mut Vec<(Group, u32)>, points: u32| {
            g.push((Group::PointSelects, points));
            if self.range_selects {
                g.push((Group::SimpleRanges, self.simple_ranges));
                g.push((Group::SumRanges, self.sum_ranges));
                g.push((Group::OrderRanges, self.order_ranges));
                g.push((Group::DistinctRanges, self.distinct_ranges));
            }
        };
        let writes = |g: &mut Vec<(Group, u32)>| {
            g.push((Group::IndexUpdates, self.index_updates));
            g.push((Group::NonIndexUpdates, self.non_index_updates));
            g.push((Group::DeleteInserts, self.delete_inserts));
        };
        let in_trx = matches!(
            self.test,
            Test::ReadWrite | Test::ReadOnly | Test::WriteOnly
        );
        if trx && in_trx {
            g.push((Group::Begin, 1));
        }
        match self.test {
            Test::ReadWrite => {
                reads(&mut g, self.point_selects);
                writes(&mut g);
            }
            Test::ReadOnly => reads(&mut g, self.point_selects),
            Test::WriteOnly => writes(&mut g),
            // One query an event, whatever --point-selects says.
            Test::PointSelect => g.push((Group::PointSelects, 1)),
            Test::UpdateIndex => g.push((Group::IndexUpdates, self.index_updates)),
            Test::UpdateNonIndex => g.push((Group::NonIndexUpdates, self.non_index_updates)),
            Test::Insert => g.push((Group::Insert, 1)),
            Test::Delete => g.push((Group::Delete, 1)),
            Test::RandomPoints => g.push((Group::RandomPoints, 1)),
            Test::RandomRanges => g.push((Group::RandomRanges, 1)),
            Test::BulkInsert => g.push((Group::BulkInsert, 1)),
        }
        if trx && in_trx {
            g.push((Group::Commit, 1));
        }
        g.retain(|(_, n)| *n > 0);
        g
    }

    /// The queries of one event by class (read, write, other), as sysbench counts
    /// them when every write touches a row.
    pub fn per_event(&self) -> QueryCounts {
        let mut c = QueryCounts::default();
        for (g, n) in self.groups() {
            let n = u64::from(n);
            match g {
                Group::Begin | Group::Commit => c.other += n,
                Group::PointSelects
                | Group::SimpleRanges
                | Group::SumRanges
                | Group::OrderRanges
                | Group::DistinctRanges
                | Group::RandomPoints
                | Group::RandomRanges => c.read += n,
                Group::DeleteInserts => c.write += 2 * n,
                _ => c.write += n,
            }
        }
        c
    }
}

/// A run of statements of one kind in an event; the ones on `sbtestN` draw their
/// table once for the run of them, as sysbench does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Group {
    Begin,
    Commit,
    PointSelects,
    SimpleRanges,
    SumRanges,
    OrderRanges,
    DistinctRanges,
    IndexUpdates,
    NonIndexUpdates,
    /// A DELETE then an INSERT of the same id.
    DeleteInserts,
    /// `oltp_insert`'s one INSERT.
    Insert,
    /// `oltp_delete`'s one DELETE.
    Delete,
    RandomPoints,
    RandomRanges,
    BulkInsert,
}

/// Queries by sysbench's classes: a result set is a read, a statement that changed
/// rows a write, anything else (BEGIN, COMMIT) other.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct QueryCounts {
    pub read: u64,
    pub write: u64,
    pub other: u64,
}

impl QueryCounts {
    pub fn total(&self) -> u64 {
        self.read + self.write + self.other
    }
}

/// The names of the classes as the result's `operations` count them.
pub const READ: &str = "read";
pub const WRITE: &str = "write";
pub const OTHER: &str = "other";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_write_runs_sysbenchs_eighteen_queries() {
        let o = OltpOptions::new(Test::ReadWrite, Dialect::Postgres);
        assert_eq!(
            o.per_event(),
            QueryCounts {
                read: 14,
                write: 4,
                other: 2
            }
        );
        let skip = OltpOptions {
            skip_trx: true,
            range_selects: false,
            ..o.clone()
        };
        assert_eq!(
            skip.per_event(),
            QueryCounts {
                read: 10,
                write: 4,
                other: 0
            }
        );
        let point = OltpOptions::new(Test::PointSelect, Dialect::Mysql);
        assert_eq!(point.per_event().total(), 1);
        assert_eq!(point.groups(), vec![(Group::PointSelects, 1)]);
    }

    #[test]
    fn ignored_errors_are_sysbench_s_defaults_all_none_or_codes() {
        let my = |c| SqlFailure::My(c, *b"HY000");
        let d = Ignore::default();
        for c in [1213, 1020, 1205] {
            assert!(d.covers(my(c)), "{c}");
        }
        assert!(!d.covers(my(1062)));
        assert!(Ignore::parse("all").unwrap().covers(my(1146)));
        assert!(!Ignore::parse("none").unwrap().covers(my(1213)));
        let some = Ignore::parse("1062, 1213").unwrap();
        assert!(some.covers(my(1062)) && some.covers(my(1213)) && !some.covers(my(1205)));
        assert!(Ignore::parse("12x").unwrap_err().contains("12x"));
        assert!(Ignore::parse("0").is_err());
        // PostgreSQL: the pgsql driver's three, whatever the MySQL list says.
        for (state, ignored) in [
            (b"40P01", true),
            (b"23505", true),
            (b"40001", true),
            (b"42P01", false),
        ] {
            assert_eq!(
                Ignore::Codes(vec![]).covers(SqlFailure::Pg(*state)),
                ignored
            );
        }
    }

    #[test]
    fn tests_are_named_as_sysbench_names_them() {
        for t in Test::ALL {
            assert_eq!(Test::parse(t.name()), Some(t));
        }
        assert_eq!(Test::parse("oltp_read_only.lua"), Some(Test::ReadOnly));
        assert_eq!(Test::parse("tpcc"), None);
    }
}
