//! A SQLSTATE's error kind: the codes a benchmark must tell apart (a retried
//! serialization failure or deadlock, a unique violation, the server refusing or
//! shutting down connections) each by name, every other error by its class (the
//! SQLSTATE's first two characters), as `sql_XX`.

/// What kind of error an ErrorResponse's SQLSTATE says it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SqlErrorKind {
    /// 40001: a serializable transaction lost a conflict; retrying may succeed.
    Serialization,
    /// 40P01: the server broke a deadlock by failing this transaction; retryable.
    Deadlock,
    /// 23505: a unique or primary key constraint refused a row.
    UniqueViolation,
    /// 53300: the server has no connection slot left.
    TooManyConnections,
    /// 57P01: the server is shutting down (terminating connection).
    AdminShutdown,
    /// 57P03: the server takes no login now (starting up, recovering, shutting
    /// down): seen while a restarted server replays its log.
    CannotConnectNow,
    /// Any other SQLSTATE, by its two-character class.
    Other([u8; 2]),
}

impl SqlErrorKind {
    /// The kind of a five-character SQLSTATE (anything shorter is class "??").
    pub fn of(sqlstate: &[u8]) -> SqlErrorKind {
        match sqlstate {
            b"40001" => SqlErrorKind::Serialization,
            b"40P01" => SqlErrorKind::Deadlock,
            b"23505" => SqlErrorKind::UniqueViolation,
            b"53300" => SqlErrorKind::TooManyConnections,
            b"57P01" => SqlErrorKind::AdminShutdown,
            b"57P03" => SqlErrorKind::CannotConnectNow,
            [a, b, _, _, _] if a.is_ascii_alphanumeric() && b.is_ascii_alphanumeric() => {
                SqlErrorKind::Other([a.to_ascii_lowercase(), b.to_ascii_lowercase()])
            }
            _ => SqlErrorKind::Other(*b"??"),
        }
    }

    /// Whether `--max-tries` retries the transaction (as pgbench does: serialization
    /// failures and deadlocks only).
    pub fn retryable(self) -> bool {
        matches!(self, SqlErrorKind::Serialization | SqlErrorKind::Deadlock)
    }

    /// The kind's name as results show it. Named kinds are static; a class is written
    /// into `out` (`sql_XX`), so naming one never allocates once `out` is warm.
    pub fn name(self, out: &mut String) -> &str {
        let fixed = match self {
            SqlErrorKind::Serialization => "sql_serialization_failure",
            SqlErrorKind::Deadlock => "sql_deadlock",
            SqlErrorKind::UniqueViolation => "sql_unique_violation",
            SqlErrorKind::TooManyConnections => "sql_too_many_connections",
            SqlErrorKind::AdminShutdown => "sql_admin_shutdown",
            SqlErrorKind::CannotConnectNow => "sql_cannot_connect_now",
            SqlErrorKind::Other(class) => {
                out.clear();
                out.push_str("sql_");
                out.extend(class.iter().map(|&c| c as char));
                return out;
            }
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
    fn listed_sqlstates_have_their_own_kind_and_others_go_by_class() {
        let mut s = String::new();
        assert_eq!(SqlErrorKind::of(b"40001"), SqlErrorKind::Serialization);
        assert_eq!(SqlErrorKind::of(b"40P01"), SqlErrorKind::Deadlock);
        assert_eq!(SqlErrorKind::of(b"23505"), SqlErrorKind::UniqueViolation);
        assert_eq!(SqlErrorKind::of(b"53300"), SqlErrorKind::TooManyConnections);
        assert_eq!(SqlErrorKind::of(b"57P01"), SqlErrorKind::AdminShutdown);
        assert_eq!(
            SqlErrorKind::of(b"57P03").name(&mut s),
            "sql_cannot_connect_now"
        );
        assert_eq!(SqlErrorKind::of(b"42P01").name(&mut s), "sql_42");
        assert_eq!(SqlErrorKind::of(b"22012").name(&mut s), "sql_22");
        assert_eq!(SqlErrorKind::of(b"XX000").name(&mut s), "sql_xx");
        assert_eq!(SqlErrorKind::of(b"4").name(&mut s), "sql_??");
        assert_eq!(
            SqlErrorKind::of(b"40001").name(&mut s),
            "sql_serialization_failure"
        );
        assert!(SqlErrorKind::of(b"40P01").retryable());
        assert!(!SqlErrorKind::of(b"23505").retryable());
    }
}
