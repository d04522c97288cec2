//! SQL databases' pure parts, no I/O (like `kv/`): PostgreSQL's frontend/backend
//! protocol as state machines and framers (`pg`), MySQL's/MariaDB's client/server
//! protocol likewise (`mysql`), pgbench's script language (`script`: the parser and
//! `\set`'s expressions) and a client's interpreter of it (`interp`, the seam the
//! engine's SQL arms drive), pgbench's built-in scripts and `-i` steps, and what every
//! SQL target's URL shares (`url`).

pub mod builtin;
pub mod init;
pub mod interp;
pub mod mysql;
pub mod pg;
pub mod script;
pub mod sysbench;
pub mod url;

/// Which wire a statement goes out on, for what differs in its text: a bound
/// parameter is `$n` on PostgreSQL's extended protocol and `?` on MySQL's prepared
/// statements (numbered from 1, in order of appearance either way).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    Postgres,
    Mysql,
}

impl Dialect {
    /// Appends the `n`th parameter's placeholder (1-based) to `sql`.
    pub fn placeholder(self, n: usize, sql: &mut String) {
        use std::fmt::Write as _;
        match self {
            Dialect::Postgres => {
                let _ = write!(sql, "${n}");
            }
            Dialect::Mysql => sql.push('?'),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Dialect;

    #[test]
    fn placeholders_are_numbered_on_postgres_and_bare_on_mysql() {
        let mut s = String::from("SELECT ");
        Dialect::Postgres.placeholder(2, &mut s);
        s.push_str(", ");
        Dialect::Mysql.placeholder(2, &mut s);
        assert_eq!(s, "SELECT $2, ?");
    }
}
