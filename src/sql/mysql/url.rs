//! A `mysql://user[:password]@host[:port]/db?ssl-mode=…` target (also `mariadb://`),
//! checked before any connection: the host, the port (3306 by default), the user and
//! database (both required: a benchmark names them), the password percent-decoded,
//! and `ssl-mode` as the `mysql` client names it (`DISABLED`, `PREFERRED` — the
//! client's default —, `REQUIRED`, `VERIFY_IDENTITY`, any case), `ssl-ca`, the
//! PEM file `VERIFY_IDENTITY` checks the server's certificate against, and how
//! `caching_sha2_password`'s full authentication may go without TLS, named as the
//! `mysql` client names it: `server-public-key-path=FILE` (the server's RSA public
//! key, read and checked here, before any connection) or `get-server-public-key=true`
//! (fetch it from the server: opt-in, as in MySQL's clients, since a key fetched over
//! an unencrypted link can be swapped by a man in the middle); Connector/J's
//! `serverRSAPublicKeyFile` and `allowPublicKeyRetrieval` are the same. Other query
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
    /// `get-server-public-key`: full authentication without TLS may fetch the
    /// server's RSA key.
    pub get_server_public_key: bool,
    /// `server-public-key-path`: the server's RSA key, read from the file.
    pub server_public_key: Option<ServerKey>,
}

/// The server's RSA public key from a file: its path (for messages) and PEM.
#[derive(Clone, PartialEq, Eq)]
pub struct ServerKey {
    pub path: String,
    pub pem: Vec<u8>,
}

impl fmt::Debug for ServerKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ServerKey({:?})", self.path)
    }
}

impl ServerKey {
    /// Reads and checks the key at `path`; the error names the parameter.
    pub fn read(path: &str) -> Result<ServerKey, String> {
        let pem = std::fs::read(path)
            .map_err(|e| format!("server-public-key-path={path}: cannot read it: {e}"))?;
        super::rsa::check_key(&pem).map_err(|e| format!("server-public-key-path={path}: {e}"))?;
        Ok(ServerKey {
            path: path.into(),
            pem,
        })
    }
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
            .field("get_server_public_key", &self.get_server_public_key)
            .field("server_public_key", &self.server_public_key)
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
        let mut get_server_public_key = false;
        let mut server_public_key = None;
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
                "get-server-public-key" | "get_server_public_key" | "allowPublicKeyRetrieval" => {
                    get_server_public_key = match v.to_ascii_lowercase().as_str() {
                        "true" | "1" | "on" | "yes" => true,
                        "false" | "0" | "off" | "no" => false,
                        _ => return Err(format!("{k}={v}: true or false")),
                    }
                }
                "server-public-key-path" | "server_public_key_path" | "serverRSAPublicKeyFile" => {
                    server_public_key = Some(ServerKey::read(&v)?)
                }
                other => {
                    return Err(format!(
                        "unknown URL parameter {other:?} (only ssl-mode, ssl-ca, \
                         get-server-public-key and server-public-key-path)"
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
            get_server_public_key,
            server_public_key,
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

    #[test]
    fn the_rsa_key_parameters_are_read_as_mysql_s_clients_name_them_and_a_bad_key_file_is_refused()
    {
        let u = MyUrl::parse("mysql://u@h/db?get-server-public-key=true").unwrap();
        assert!(u.get_server_public_key && u.server_public_key.is_none());
        let j = MyUrl::parse("mysql://u@h/db?allowPublicKeyRetrieval=false").unwrap();
        assert!(!j.get_server_public_key);
        let e = MyUrl::parse("mysql://u@h/db?get-server-public-key=maybe").unwrap_err();
        assert!(e.contains("true or false"), "{e}");
        let dir = std::env::temp_dir().join(format!("hakaru-url-key-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let bad = dir.join("bad.pem");
        std::fs::write(
            &bad,
            "-----BEGIN PUBLIC KEY-----\nMAA=\n-----END PUBLIC KEY-----\n",
        )
        .unwrap();
        let e = MyUrl::parse(&format!(
            "mysql://u@h/db?server-public-key-path={}",
            bad.display()
        ))
        .unwrap_err();
        assert!(
            e.contains("server-public-key-path=") && e.contains("RSA"),
            "{e}"
        );
        let e = MyUrl::parse("mysql://u@h/db?server-public-key-path=/no/such.pem").unwrap_err();
        assert!(e.contains("cannot read it"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
