//! What every SQL target's URL shares (`postgres://`, `mysql://`): the host, the user,
//! the password and the database, percent-decoded and checked, with errors that say
//! what is wrong and never show the password. Each protocol reads its own port and
//! query parameters from [`Parts::url`].

/// A SQL URL's shared parts.
pub struct Parts {
    /// The URL as parsed, for the protocol's port and parameters.
    pub url: ::url::Url,
    pub host: String,
    pub user: String,
    pub password: Option<String>,
    pub database: String,
}

/// Reads `s`'s shared parts; `scheme` (`postgres`, `mysql`) shows in the examples the
/// errors give.
pub fn parts(s: &str, scheme: &str) -> Result<Parts, String> {
    let url = ::url::Url::parse(s).map_err(|e| format!("not a URL: {e}"))?;
    let host = match url.host() {
        Some(::url::Host::Ipv6(a)) => a.to_string(),
        Some(h) => h.to_string(),
        None => return Err("the URL names no host".into()),
    };
    let decode = |v: &str| {
        percent_encoding::percent_decode_str(v)
            .decode_utf8()
            .map(|c| c.into_owned())
            .map_err(|_| "is not UTF-8 once percent-decoded".to_string())
    };
    let user = decode(url.username()).map_err(|e| format!("the user {e}"))?;
    if user.is_empty() {
        return Err(format!("the URL names no user ({scheme}://USER@host/db)"));
    }
    let password = match url.password() {
        Some(p) => Some(decode(p).map_err(|e| format!("the password {e}"))?),
        None => None,
    };
    let database =
        decode(url.path().trim_start_matches('/')).map_err(|e| format!("the database name {e}"))?;
    if database.is_empty() || database.contains('/') {
        return Err(format!(
            "the URL names no database ({scheme}://user@host/DB)"
        ));
    }
    Ok(Parts {
        url,
        host,
        user,
        password,
        database,
    })
}
