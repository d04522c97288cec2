//! `pgbench -i`'s steps as SQL, pgbench 15's statements: `d` drop the tables, `t`
//! create them (with `-F`'s fillfactor, `--unlogged-tables`), `g` generate the rows
//! on the client (COPY text, produced in chunks into one reused buffer), `G`
//! generate them on the server (`generate_series`), `v` vacuum, `p` primary keys,
//! `f` foreign keys. The row counts are pgbench's: branches = scale, tellers =
//! 10 × scale, accounts = 100000 × scale. Nothing here does I/O: the front end
//! sends what this builds.

use std::fmt::Write as _;

pub const BRANCHES: u64 = 1;
pub const TELLERS: u64 = 10;
pub const ACCOUNTS: u64 = 100_000;

/// One initialization step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    Drop,
    Tables,
    ClientData,
    ServerData,
    Vacuum,
    PrimaryKeys,
    ForeignKeys,
}

/// `-I`'s letters, checked: pgbench's sentence for a letter it does not know, and
/// `g` with `G` refused (the data would be made twice).
pub fn steps(letters: &str) -> Result<Vec<Step>, String> {
    let mut out = Vec::new();
    for c in letters.chars() {
        out.push(match c {
            'd' => Step::Drop,
            't' => Step::Tables,
            'g' => Step::ClientData,
            'G' => Step::ServerData,
            'v' => Step::Vacuum,
            'p' => Step::PrimaryKeys,
            'f' => Step::ForeignKeys,
            ' ' => continue,
            c => {
                return Err(format!(
                    "-I: unrecognized initialization step \"{c}\" (allowed step characters are: \"dtgGvpf\")"
                ))
            }
        });
    }
    if out.contains(&Step::ClientData) && out.contains(&Step::ServerData) {
        return Err("-I: steps \"g\" and \"G\" both generate the data: give one".into());
    }
    Ok(out)
}

/// What the tables are made with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    pub scale: u64,
    pub fillfactor: u32,
    pub unlogged: bool,
}

const TABLES: [&str; 4] = [
    "pgbench_accounts",
    "pgbench_branches",
    "pgbench_history",
    "pgbench_tellers",
];

/// The statements of a step other than `g` (whose rows go by COPY; see
/// [`copy_tables`]), in order.
pub fn sql(step: Step, o: &Options) -> Vec<String> {
    match step {
        Step::Drop => vec![format!("drop table if exists {}", TABLES.join(", "))],
        Step::Tables => {
            // Past 20000 scale the accounts' ids no longer fit an int.
            let aid = if o.scale >= 20_000 { "bigint" } else { "int" };
            let unlogged = if o.unlogged { " unlogged" } else { "" };
            let ff = |t: &str| format!("{t} with (fillfactor={})", o.fillfactor);
            vec![
                format!("create{unlogged} table pgbench_history(tid int,bid int,aid {aid},delta int,mtime timestamp,filler char(22))"),
                ff(&format!("create{unlogged} table pgbench_tellers(tid int not null,bid int,tbalance int,filler char(84))")),
                ff(&format!("create{unlogged} table pgbench_accounts(aid {aid} not null,bid int,abalance int,filler char(84))")),
                ff(&format!("create{unlogged} table pgbench_branches(bid int not null,bbalance int,filler char(88))")),
            ]
        }
        Step::ClientData => vec![format!("truncate table {}", TABLES.join(", "))],
        Step::ServerData => vec![
            format!("truncate table {}", TABLES.join(", ")),
            format!("insert into pgbench_branches(bid,bbalance) select bid, 0 from generate_series(1, {}) as bid", o.scale * BRANCHES),
            format!("insert into pgbench_tellers(tid,bid,tbalance) select tid, (tid - 1) / {TELLERS} + 1, 0 from generate_series(1, {}) as tid", o.scale * TELLERS),
            format!("insert into pgbench_accounts(aid,bid,abalance,filler) select aid, (aid - 1) / {ACCOUNTS} + 1, 0, '' from generate_series(1, {}) as aid", o.scale * ACCOUNTS),
        ],
        Step::Vacuum => ["pgbench_branches", "pgbench_tellers", "pgbench_accounts", "pgbench_history"]
            .iter()
            .map(|t| format!("vacuum analyze {t}"))
            .collect(),
        Step::PrimaryKeys => vec![
            "alter table pgbench_branches add primary key (bid)".into(),
            "alter table pgbench_tellers add primary key (tid)".into(),
            "alter table pgbench_accounts add primary key (aid)".into(),
        ],
        Step::ForeignKeys => [
            ("pgbench_tellers", "bid", "pgbench_branches"),
            ("pgbench_accounts", "bid", "pgbench_branches"),
            ("pgbench_history", "bid", "pgbench_branches"),
            ("pgbench_history", "tid", "pgbench_tellers"),
            ("pgbench_history", "aid", "pgbench_accounts"),
        ]
        .iter()
        .map(|(t, c, r)| format!("alter table {t} add constraint {t}_{c}_fkey foreign key ({c}) references {r}"))
        .collect(),
    }
}

/// A table `g` fills by COPY: its statement and row count at this scale.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CopyTable {
    pub copy: &'static str,
    pub rows: u64,
    /// Rows per branch: a row's `bid` is `(id - 1) / per_branch + 1`.
    per_branch: u64,
    /// Branches have no `bid` column of their own.
    branches: bool,
}

/// The tables `g` fills, in pgbench's order.
pub fn copy_tables(scale: u64) -> [CopyTable; 3] {
    [
        CopyTable {
            copy: "copy pgbench_branches from stdin",
            rows: scale * BRANCHES,
            per_branch: BRANCHES,
            branches: true,
        },
        CopyTable {
            copy: "copy pgbench_tellers from stdin",
            rows: scale * TELLERS,
            per_branch: TELLERS,
            branches: false,
        },
        CopyTable {
            copy: "copy pgbench_accounts from stdin",
            rows: scale * ACCOUNTS,
            per_branch: ACCOUNTS,
            branches: false,
        },
    ]
}

impl CopyTable {
    /// Rows `from..to` (1-based ids, `to` exclusive, clamped to the table) as COPY
    /// text into `buf`, cleared first: pgbench's rows, balance 0 and an empty filler.
    pub fn chunk(&self, from: u64, to: u64, buf: &mut String) {
        buf.clear();
        for id in from..to.min(self.rows + 1) {
            if self.branches {
                let _ = writeln!(buf, "{id}\t0\t");
            } else {
                let _ = writeln!(buf, "{id}\t{}\t0\t", (id - 1) / self.per_branch + 1);
            }
        }
    }
}

/// pgbench's progress line while `g` copies accounts.
pub fn progress_line(done: u64, total: u64, elapsed_s: f64) -> String {
    let remaining = if done == 0 {
        0.0
    } else {
        elapsed_s * (total - done) as f64 / done as f64
    };
    format!(
        "{done} of {total} tuples ({}%) done (elapsed {elapsed_s:.2} s, remaining {remaining:.2} s)",
        done * 100 / total.max(1)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_read_as_pgbench_reads_them() {
        assert_eq!(
            steps("dtgvp").unwrap(),
            [
                Step::Drop,
                Step::Tables,
                Step::ClientData,
                Step::Vacuum,
                Step::PrimaryKeys
            ]
        );
        assert!(steps("dtx")
            .unwrap_err()
            .contains("unrecognized initialization step \"x\""));
        assert!(steps("gG").is_err());
    }

    #[test]
    fn tables_carry_fillfactor_and_unlogged() {
        let o = Options {
            scale: 1,
            fillfactor: 90,
            unlogged: true,
        };
        let t = sql(Step::Tables, &o);
        assert_eq!(t[2], "create unlogged table pgbench_accounts(aid int not null,bid int,abalance int,filler char(84)) with (fillfactor=90)");
        assert!(!t[0].contains("fillfactor"));
        let big = sql(
            Step::Tables,
            &Options {
                scale: 20_000,
                fillfactor: 100,
                unlogged: false,
            },
        );
        assert!(big[2].starts_with("create table pgbench_accounts(aid bigint"));
    }

    #[test]
    fn copy_rows_are_pgbench_rows_and_counts() {
        let [b, t, a] = copy_tables(2);
        assert_eq!((b.rows, t.rows, a.rows), (2, 20, 200_000));
        let mut buf = String::new();
        b.chunk(1, 10, &mut buf);
        assert_eq!(buf, "1\t0\t\n2\t0\t\n");
        t.chunk(10, 12, &mut buf);
        assert_eq!(buf, "10\t1\t0\t\n11\t2\t0\t\n");
        a.chunk(100_000, 100_002, &mut buf);
        assert_eq!(buf, "100000\t1\t0\t\n100001\t2\t0\t\n");
    }

    #[test]
    fn progress_reads_like_pgbench() {
        assert_eq!(
            progress_line(100_000, 200_000, 0.5),
            "100000 of 200000 tuples (50%) done (elapsed 0.50 s, remaining 0.50 s)"
        );
    }
}
