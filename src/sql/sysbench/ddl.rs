//! `prepare` and `cleanup` as SQL: the `sbtestN` tables as sysbench creates them on
//! each database (`id` SERIAL on PostgreSQL, AUTO_INCREMENT on MySQL, unless
//! `--auto-inc=off`; `--secondary` puts a plain index on `id` in place of the
//! primary key; `--create-secondary` the index on `k`), their rows (k drawn by
//! `--rand-type` over 1..table-size, c and pad from sysbench's templates) as COPY
//! text or a multi-row INSERT's VALUES, and the DROPs.

use std::fmt::Write as _;

use super::oltp::{C_TEMPLATE, PAD_TEMPLATE};
use super::rand::SbRand;
use super::{OltpOptions, Test};
use crate::sql::Dialect;

/// One table's `prepare`: the statements before its rows, the rows, and after.
#[derive(Debug, Clone, PartialEq)]
pub struct TablePrep {
    pub name: String,
    pub create: String,
    /// How many rows it gets.
    pub rows: u64,
    /// The columns the rows fill, for COPY or INSERT: `(k, c, pad)` or `(id, k, c, pad)`.
    pub columns: &'static str,
    /// After the rows: the secondary indexes.
    pub after: Vec<String>,
}

/// The tables a test's `prepare` creates and `cleanup` drops: `--tables` of them,
/// `bulk_insert`'s one per thread.
pub fn table_count(o: &OltpOptions) -> u32 {
    if o.test == Test::BulkInsert {
        o.threads.max(1)
    } else {
        o.tables.max(1)
    }
}

/// The tables a test's `run` works on: `select_random_*` on `sbtest1` alone, whatever
/// `--tables` prepared.
pub fn run_table_count(o: &OltpOptions) -> u32 {
    if o.test.one_table() {
        1
    } else {
        table_count(o)
    }
}

/// `prepare`'s tables, in order.
pub fn prepare(o: &OltpOptions) -> Vec<TablePrep> {
    (1..=table_count(o)).map(|t| table(o, t)).collect()
}

fn table(o: &OltpOptions, t: u32) -> TablePrep {
    let name = format!("sbtest{t}");
    if o.test == Test::BulkInsert {
        return TablePrep {
            create: format!(
                "CREATE TABLE IF NOT EXISTS {name} (\n  id INTEGER NOT NULL,\n  k INTEGER DEFAULT '0' NOT NULL,\n  PRIMARY KEY (id))"
            ),
            name,
            rows: 0,
            columns: "(id, k)",
            after: Vec::new(),
        };
    }
    let id_def = match (o.dialect, o.auto_inc) {
        (Dialect::Mysql, true) => "INTEGER NOT NULL AUTO_INCREMENT",
        (Dialect::Postgres, true) => "SERIAL",
        (_, false) => "INTEGER NOT NULL",
    };
    let engine = match o.dialect {
        Dialect::Mysql => format!(" /*! ENGINE = {} */", o.engine),
        Dialect::Postgres => String::new(),
    };
    let mut after = Vec::new();
    // PostgreSQL has no inline KEY: --secondary's index on id is its own statement.
    let id_index = match (o.secondary, o.dialect) {
        (false, _) => ",\n  PRIMARY KEY (id)",
        (true, Dialect::Mysql) => ",\n  KEY xid (id)",
        (true, Dialect::Postgres) => {
            after.push(format!("CREATE INDEX xid_{t} ON {name}(id)"));
            ""
        }
    };
    let create = format!(
        "CREATE TABLE {name}(\n  id {id_def},\n  k INTEGER DEFAULT '0' NOT NULL,\n  c CHAR(120) DEFAULT '' NOT NULL,\n  pad CHAR(60) DEFAULT '' NOT NULL{id_index}\n){engine}"
    );
    if o.create_secondary {
        after.push(format!("CREATE INDEX k_{t} ON {name}(k)"));
    }
    // oltp_insert without auto-increment starts empty: its unique ids could meet
    // the ids prepare would have written.
    let rows = if o.test == Test::Insert && !o.auto_inc {
        0
    } else {
        u64::from(o.table_size)
    };
    TablePrep {
        name,
        create,
        rows,
        columns: if o.auto_inc {
            "(k, c, pad)"
        } else {
            "(id, k, c, pad)"
        },
        after,
    }
}

/// How rows are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowFormat {
    /// COPY FROM STDIN's text: tab-separated, a line each.
    Copy,
    /// An INSERT's VALUES list: `(…),(…)`.
    Values,
}

/// Rows `from..to` (1-based ids) of a table into `out` (appended).
pub fn rows(
    o: &OltpOptions,
    rng: &mut SbRand,
    from: u64,
    to: u64,
    format: RowFormat,
    out: &mut String,
) {
    let size = o.table_size.max(1);
    for id in from..to {
        let k = rng.default(1, size);
        match format {
            RowFormat::Copy => {
                if !o.auto_inc {
                    let _ = write!(out, "{id}\t");
                }
                let _ = write!(out, "{k}\t");
                rng.string(C_TEMPLATE, out);
                out.push('\t');
                rng.string(PAD_TEMPLATE, out);
                out.push('\n');
            }
            RowFormat::Values => {
                if id > from {
                    out.push(',');
                }
                out.push('(');
                if !o.auto_inc {
                    let _ = write!(out, "{id}, ");
                }
                let _ = write!(out, "{k}, '");
                rng.string(C_TEMPLATE, out);
                out.push_str("', '");
                rng.string(PAD_TEMPLATE, out);
                out.push_str("')");
            }
        }
    }
}

/// `cleanup`'s statements.
pub fn cleanup(o: &OltpOptions) -> Vec<String> {
    (1..=table_count(o))
        .map(|t| format!("DROP TABLE IF EXISTS sbtest{t}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::rand::RandSpec;
    use super::*;

    #[test]
    fn tables_are_sysbenchs_on_each_database() {
        let mut o = OltpOptions::new(Test::ReadWrite, Dialect::Postgres);
        o.tables = 2;
        let p = prepare(&o);
        assert_eq!(p.len(), 2);
        assert_eq!(
            p[1].create,
            "CREATE TABLE sbtest2(\n  id SERIAL,\n  k INTEGER DEFAULT '0' NOT NULL,\n  c CHAR(120) DEFAULT '' NOT NULL,\n  pad CHAR(60) DEFAULT '' NOT NULL,\n  PRIMARY KEY (id)\n)"
        );
        assert_eq!(p[1].after, vec!["CREATE INDEX k_2 ON sbtest2(k)"]);
        assert_eq!((p[0].rows, p[0].columns), (10_000, "(k, c, pad)"));
        o.dialect = Dialect::Mysql;
        o.auto_inc = false;
        o.secondary = true;
        o.create_secondary = false;
        let p = prepare(&o);
        assert!(
            p[0].create.contains("id INTEGER NOT NULL,"),
            "{}",
            p[0].create
        );
        assert!(p[0]
            .create
            .ends_with("KEY xid (id)\n) /*! ENGINE = innodb */"));
        assert!(p[0].after.is_empty());
        assert_eq!(
            cleanup(&o),
            [
                "DROP TABLE IF EXISTS sbtest1",
                "DROP TABLE IF EXISTS sbtest2"
            ]
        );
        o.test = Test::Insert;
        assert_eq!(prepare(&o)[0].rows, 0);
        o.test = Test::BulkInsert;
        o.threads = 3;
        assert_eq!(prepare(&o).len(), 3);
    }

    #[test]
    fn rows_have_sysbenchs_shapes() {
        let mut o = OltpOptions::new(Test::ReadWrite, Dialect::Postgres);
        o.table_size = 100;
        let mut rng = SbRand::new(RandSpec::default(), 1, 1);
        let mut s = String::new();
        rows(&o, &mut rng, 1, 3, RowFormat::Copy, &mut s);
        let lines: Vec<&str> = s.lines().collect();
        assert_eq!(lines.len(), 2);
        let f: Vec<&str> = lines[0].split('\t').collect();
        assert_eq!(f.len(), 3);
        assert!((1..=100).contains(&f[0].parse::<u32>().unwrap()));
        assert_eq!((f[1].len(), f[2].len()), (119, 59));
        assert_eq!(f[1].matches('-').count(), 9);
        o.auto_inc = false;
        s.clear();
        rows(&o, &mut rng, 5, 7, RowFormat::Values, &mut s);
        assert!(s.starts_with("(5, ") && s.contains("'),(6, "), "{s}");
    }
}
