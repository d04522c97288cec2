//! A `mysql://user[:password]@host[:port]/db?ssl-mode=…` target (also `mariadb://`),
//! checked before any connection: the host, the port (3306 by default), the user and
//! database (both required: a benchmark names them), the password percent-decoded,
//! and `ssl-mode` as the `mysql` client names it (`DISABLED`, `PREFERRED` — the
//! client's default —, `REQUIRED`, `VERIFY_IDENTITY`, any case), and `ssl-ca`, the
//! PEM file `VERIFY_IDENTITY` checks the server's certificate against. Other query
//! parameters are refused by name, so a typo does not silently change the run.

use std::fmt;

/// The `mysql` client's `--ssl-mode`s that hakaru speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SslMode {
    /// Never TLS.
    Disabled,
    /// TLS when the server offers it (CLIENT_SSL in its handshake), else in the clear.
    Preferred,
    /// TLS or nothing, the certificate not checked.
    Required,
    /// TLS with the certificate checked against the host name.
    VerifyIdentity,
}

/// A parsed MySQL/MariaDB target.
#[derive(Clone, PartialEq, Eq)]
pub struct MyUrl {
    pub host: String,
    pub port: u16,
    pub user: String,
    pub password: Option<String>,
    pub database: String,
    pub ssl_mode: SslMode,
    /// `ssl-ca`: the CA certificates (PEM) a verified server's chain must reach.
    pub ssl_ca: Option<String>,
}

/// The password never shows: a URL in a message or a result is redacted.
impl fmt::Debug for MyUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MyUrl")
            .field("host", &self.host)
            .field("port", &self.port)
            .field("user", &self.user)
            .field("password", &self.password.as_ref().map(|_| "***"))
            .field("database", &self.database)
            .field("ssl_mode", &self.ssl_mode)
            .field("ssl_ca", &self.ssl_ca)
            .finish()
    }
}

impl MyUrl {
    /// Whether `s` asks for MySQL or MariaDB (so a caller picks this parser).
    pub fn is_mysql(s: &str) -> bool {
        s.starts_with("mysql://") || s.starts_with("mariadb://")
    }

    /// Parses and checks a target; the error says what is wrong, never the password.
    pub fn parse(s: &str) -> Result<MyUrl, String> {
        if !MyUrl::is_mysql(s) {
            return Err("a MySQL target starts with mysql:// or mariadb://".into());
        }
        let crate::sql::url::Parts {
            url: u,
            host,
            user,
            password,
            database,
        } = crate::sql::url::parts(s, "mysql")?;
        let mut ssl_mode = SslMode::Preferred;
        let mut ssl_ca = None;
        for (k, v) in u.query_pairs() {
            match k.as_ref() {
                "ssl-mode" | "ssl_mode" => {
                    ssl_mode = match v.to_ascii_uppercase().as_str() {
                        "DISABLED" => SslMode::Disabled,
                        "PREFERRED" => SslMode::Preferred,
                        "REQUIRED" => SslMode::Required,
                        "VERIFY_IDENTITY" => SslMode::VerifyIdentity,
                        _ => {
                            return Err(format!(
                                "ssl-mode={v}: hakaru speaks DISABLED, PREFERRED, REQUIRED and VERIFY_IDENTITY"
                            ))
                        }
                    }
                }
                "ssl-ca" | "ssl_ca" => ssl_ca = Some(v.into_owned()),
                other => {
                    return Err(format!(
                        "unknown URL parameter {other:?} (only ssl-mode and ssl-ca)"
                    ))
                }
            }
        }
        Ok(MyUrl {
            host,
            port: u.port().unwrap_or(3306),
            user,
            password,
            database,
            ssl_mode,
            ssl_ca,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_mysql_url_parses_with_its_password_decoded() {
        let u = MyUrl::parse("mysql://sb:p%40ss@127.0.0.1:3307/sbtest?ssl-mode=disabled").unwrap();
        assert_eq!(
            (
                u.host.as_str(),
                u.port,
                u.user.as_str(),
                u.database.as_str()
            ),
            ("127.0.0.1", 3307, "sb", "sbtest")
        );
        assert_eq!(u.password.as_deref(), Some("p@ss"));
        assert_eq!(u.ssl_mode, SslMode::Disabled);
        let d = MyUrl::parse("mariadb://u@[::1]/db").unwrap();
        assert_eq!(
            (d.host.as_str(), d.port, d.ssl_mode),
            ("::1", 3306, SslMode::Preferred)
        );
        assert_eq!(d.password, None);
    }

    #[test]
    fn a_bad_mysql_url_is_refused_by_what_is_wrong_and_never_shows_the_password() {
        for (s, want) in [
            ("mysql://127.0.0.1/db", "no user"),
            ("mysql://u:secret@127.0.0.1/", "no database"),
            (
                "mysql://u:secret@127.0.0.1/db?ssl-mode=allow",
                "ssl-mode=allow",
            ),
            (
                "mysql://u:secret@127.0.0.1/db?ssl=1",
                "unknown URL parameter",
            ),
            ("postgres://u@h/db", "mysql://"),
        ] {
            let e = MyUrl::parse(s).unwrap_err();
            assert!(e.contains(want), "{s}: {e}");
            assert!(!e.contains("secret"), "{s}: {e}");
        }
        let u = MyUrl::parse("mysql://u:secret@h/db").unwrap();
        assert!(!format!("{u:?}").contains("secret"));
    }
}
