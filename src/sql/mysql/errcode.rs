//! A server error's kind: the codes a benchmark must tell apart — a deadlock or a lock
//! wait timeout (sysbench retries both), a duplicate key, no connection slot left, the
//! server going away — each by name, named as `sql::pg::sqlstate` names PostgreSQL's
//! (`sql_deadlock`, `sql_unique_violation`…) so results compare across databases;
//! every other error by its SQLSTATE's class (`sql_XX`, e.g. `sql_42` for a syntax
//! error, `sql_hy` for MySQL's catch-all HY000).

use crate::sql::pg::sqlstate::SqlErrorKind;

/// What kind of error an ERR packet's code and SQLSTATE say it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MyErrorKind {
    /// 1213 ER_LOCK_DEADLOCK: InnoDB broke a deadlock by rolling this back; retryable.
    Deadlock,
    /// 1205 ER_LOCK_WAIT_TIMEOUT: a row lock not granted in time; retryable.
    LockWaitTimeout,
    /// 1062 ER_DUP_ENTRY (and 1586, its variant naming a key): a unique key refused a row.
    DuplicateKey,
    /// 1040 ER_CON_COUNT_ERROR: no connection slot left.
    TooManyConnections,
    /// 1053 ER_SERVER_SHUTDOWN: the server is shutting down (PostgreSQL's 57P01).
    Shutdown,
    /// The server has dropped this connection: 1927 (MariaDB's
    /// connection killed), 4031 (MySQL's idle client disconnected), and the client's
    /// own 2006/2013 for a closed connection.
    ServerGone,
    /// Any other error, by its SQLSTATE's two-character class.
    Other([u8; 2]),
}

impl MyErrorKind {
    /// The kind of an error `code` with `sqlstate` (five characters; HY000 when the
    /// server sent none).
    pub fn of(code: u16, sqlstate: &[u8]) -> MyErrorKind {
        match code {
            1213 => MyErrorKind::Deadlock,
            1205 => MyErrorKind::LockWaitTimeout,
            1062 | 1586 => MyErrorKind::DuplicateKey,
            1040 => MyErrorKind::TooManyConnections,
            1053 => MyErrorKind::Shutdown,
            1927 | 4031 | 2006 | 2013 => MyErrorKind::ServerGone,
            _ => match SqlErrorKind::of(sqlstate) {
                SqlErrorKind::Other(class) => MyErrorKind::Other(class),
                // A SQLSTATE PostgreSQL names but MySQL's code did not (40001 without
                // 1213 is MySQL's ER_LOCK_DEADLOCK's state too): keep the class.
                _ => MyErrorKind::Other([
                    sqlstate[0].to_ascii_lowercase(),
                    sqlstate[1].to_ascii_lowercase(),
                ]),
            },
        }
    }

    /// Whether a transaction failing so is worth retrying (as sysbench does).
    pub fn retryable(self) -> bool {
        matches!(self, MyErrorKind::Deadlock | MyErrorKind::LockWaitTimeout)
    }

    /// The kind's name as results show it; a class is written into `out` (`sql_XX`),
    /// so naming one never allocates once `out` is warm.
    pub fn name(self, out: &mut String) -> &str {
        let fixed = match self {
            MyErrorKind::Deadlock => "sql_deadlock",
            MyErrorKind::LockWaitTimeout => "sql_lock_wait_timeout",
            MyErrorKind::DuplicateKey => "sql_unique_violation",
            MyErrorKind::TooManyConnections => "sql_too_many_connections",
            MyErrorKind::Shutdown => "sql_admin_shutdown",
            MyErrorKind::ServerGone => "sql_server_gone",
            MyErrorKind::Other(class) => return SqlErrorKind::Other(class).name(out),
        };
        out.clear();
        out.push_str(fixed);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listed_mysql_codes_have_their_own_kind_and_others_go_by_sqlstate_class() {
        let mut s = String::new();
        assert_eq!(MyErrorKind::of(1213, b"40001"), MyErrorKind::Deadlock);
        assert_eq!(
            MyErrorKind::of(1205, b"HY000"),
            MyErrorKind::LockWaitTimeout
        );
        assert_eq!(MyErrorKind::of(1062, b"23000"), MyErrorKind::DuplicateKey);
        assert_eq!(
            MyErrorKind::of(1040, b"08004"),
            MyErrorKind::TooManyConnections
        );
        assert_eq!(MyErrorKind::of(1053, b"08S01"), MyErrorKind::Shutdown);
        assert_eq!(MyErrorKind::of(1927, b"70100"), MyErrorKind::ServerGone);
        assert_eq!(MyErrorKind::of(1064, b"42000").name(&mut s), "sql_42");
        assert_eq!(MyErrorKind::of(1146, b"42S02").name(&mut s), "sql_42");
        assert_eq!(MyErrorKind::of(1105, b"HY000").name(&mut s), "sql_hy");
        assert_eq!(MyErrorKind::of(9999, b"40001").name(&mut s), "sql_40");
        assert_eq!(
            MyErrorKind::of(1062, b"23000").name(&mut s),
            "sql_unique_violation"
        );
        assert!(MyErrorKind::of(1213, b"40001").retryable());
        assert!(MyErrorKind::of(1205, b"HY000").retryable());
        assert!(!MyErrorKind::of(1062, b"23000").retryable());
    }
}
