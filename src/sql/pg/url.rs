//! A `postgres://user[:password]@host[:port]/db?sslmode=…` target (also
//! `postgresql://`), checked before any connection: the host, the port (5432 by
//! default), the user and database (both required: a benchmark names them), the
//! password percent-decoded, and `sslmode` (`disable`, `prefer`, `require`,
//! `verify-full`; libpq's default is `prefer`) with `sslrootcert`, a CA file. Other query parameters are refused by
//! name, so a typo does not silently change the run.

use std::fmt;

/// libpq's `sslmode`s that hakaru speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SslMode {
    /// Never TLS.
    Disable,
    /// Ask for TLS; go on in the clear when the server says no.
    Prefer,
    /// TLS or nothing, the certificate not checked (libpq's meaning).
    Require,
    /// TLS with the certificate checked against the host name.
    VerifyFull,
}

/// A parsed PostgreSQL target.
#[derive(Clone, PartialEq, Eq)]
pub struct PgUrl {
    pub host: String,
    pub port: u16,
    pub user: String,
    pub password: Option<String>,
    pub database: String,
    pub sslmode: SslMode,
    /// libpq's `sslrootcert`: a PEM file of CAs trusted for `verify-full` (besides
    /// the web PKI roots).
    pub sslrootcert: Option<String>,
}

/// The password never shows: a URL in a message or a result is redacted.
impl fmt::Debug for PgUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PgUrl")
            .field("host", &self.host)
            .field("port", &self.port)
            .field("user", &self.user)
            .field("password", &self.password.as_ref().map(|_| "***"))
            .field("database", &self.database)
            .field("sslmode", &self.sslmode)
            .field("sslrootcert", &self.sslrootcert)
            .finish()
    }
}

impl PgUrl {
    /// Whether `s` asks for PostgreSQL (so a caller picks this parser).
    pub fn is_postgres(s: &str) -> bool {
        s.starts_with("postgres://") || s.starts_with("postgresql://")
    }

    /// Parses and checks a target; the error says what is wrong, never the password.
    pub fn parse(s: &str) -> Result<PgUrl, String> {
        if !PgUrl::is_postgres(s) {
            return Err("a PostgreSQL target starts with postgres:// or postgresql://".into());
        }
        let crate::sql::url::Parts {
            url: u,
            host,
            user,
            password,
            database,
        } = crate::sql::url::parts(s, "postgres")?;
        let mut sslmode = SslMode::Prefer;
        let mut sslrootcert = None;
        for (k, v) in u.query_pairs() {
            match k.as_ref() {
                "sslmode" => {
                    sslmode = match v.as_ref() {
                        "disable" => SslMode::Disable,
                        "prefer" => SslMode::Prefer,
                        "require" => SslMode::Require,
                        "verify-full" => SslMode::VerifyFull,
                        other => {
                            return Err(format!(
                        "sslmode={other}: hakaru speaks disable, prefer, require and verify-full"
                    ))
                        }
                    }
                }
                "sslrootcert" if !v.is_empty() => sslrootcert = Some(v.into_owned()),
                other => {
                    return Err(format!(
                        "unknown URL parameter {other:?} (only sslmode and sslrootcert)"
                    ))
                }
            }
        }
        Ok(PgUrl {
            host,
            port: u.port().unwrap_or(5432),
            user,
            password,
            database,
            sslmode,
            sslrootcert,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_url_parses_with_its_password_decoded() {
        let u = PgUrl::parse("postgres://bench:p%40ss@127.0.0.1:6543/pgb?sslmode=disable").unwrap();
        assert_eq!(u.host, "127.0.0.1");
        assert_eq!(u.port, 6543);
        assert_eq!(u.user, "bench");
        assert_eq!(u.password.as_deref(), Some("p@ss"));
        assert_eq!(u.database, "pgb");
        assert_eq!(u.sslmode, SslMode::Disable);
        let d = PgUrl::parse("postgresql://u@[::1]/db").unwrap();
        assert_eq!(
            (d.host.as_str(), d.port, d.sslmode),
            ("::1", 5432, SslMode::Prefer)
        );
        assert_eq!(d.password, None);
        let t =
            PgUrl::parse("postgres://u@h/db?sslmode=verify-full&sslrootcert=/tmp/ca.pem").unwrap();
        assert_eq!(t.sslrootcert.as_deref(), Some("/tmp/ca.pem"));
    }

    #[test]
    fn a_bad_url_is_refused_by_what_is_wrong_and_never_shows_the_password() {
        for (s, want) in [
            ("postgres://127.0.0.1/db", "no user"),
            ("postgres://u:secret@127.0.0.1/", "no database"),
            (
                "postgres://u:secret@127.0.0.1/db?sslmode=allow",
                "sslmode=allow",
            ),
            (
                "postgres://u:secret@127.0.0.1/db?ssl=1",
                "unknown URL parameter",
            ),
            ("redis://u@h/db", "postgres://"),
        ] {
            let e = PgUrl::parse(s).unwrap_err();
            assert!(e.contains(want), "{s}: {e}");
            assert!(!e.contains("secret"), "{s}: {e}");
        }
        let u = PgUrl::parse("postgres://u:secret@h/db").unwrap();
        assert!(!format!("{u:?}").contains("secret"));
    }
}
