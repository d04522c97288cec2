//! URLs and percent-encoding, in one place: splitting an `http(s)://` URL into
//! scheme, host, port and request target; the rules for a host and a port; and the
//! percent-encodings hakaru needs (a query-parameter value, the same keeping `%XX`
//! escapes, a request target) with their decoding.
//!
//! Parse time only: patterns, the plan, probes and [`super::fetch`] call these once.
//! The engine copies bytes prepared from their results and never parses a URL.
//!
//! The `url` crate (WHATWG URL) decides what a host is: an IPv4 address in any of
//! its forms, an IPv6 literal, a domain. Its normalized *output* is not used, only
//! its verdict: hakaru sends what the user wrote. `url` would resolve `/a/../b`,
//! escape `"`, `<` and `{`, read `\` as `/`, drop a port that is the scheme's
//! default, lowercase host names and rewrite `127.1` as `127.0.0.1` — each of those
//! would change the request line, the Host header or which port is used (a URL's
//! written port wins over `--default-port`; an unwritten one does not). So the URL
//! is split here at its first `/`, `?` or `#`, and the host, port and path+query
//! are kept as text.
//!
//! Encoding uses the `percent-encoding` crate with two sets: [`COMPONENT`] (RFC 3986
//! unreserved characters stay, every other byte of the UTF-8 becomes `%XX`) for a
//! value inside a query, and [`TARGET`] (only what may not go on the wire raw:
//! controls, space, non-ASCII) for a whole request target, whose `?`, `&`, `=` and
//! existing escapes are the user's.

use percent_encoding::{percent_decode_str, utf8_percent_encode, AsciiSet, CONTROLS};

/// What [`encode_component`] encodes: every byte but RFC 3986's unreserved
/// characters `A-Z a-z 0-9 - . _ ~` (non-ASCII is always encoded). A space becomes
/// `%20`, never `+`, which every server reads the same way.
pub const COMPONENT: &AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// What [`encode_path`] encodes: C0 controls, space and DEL (and non-ASCII, always).
pub const TARGET: &AsciiSet = &CONTROLS.add(b' ');

/// The parts of an absolute URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UrlParts {
    pub https: bool,
    /// Host name or IP address as written; an IPv6 literal is given without its brackets.
    pub host: String,
    /// The port as written; `None` when the URL has none (the caller's default applies).
    pub port: Option<u16>,
    /// Path and query as written, starting with '/'. A fragment is dropped (it is
    /// never sent).
    pub path: String,
}

/// Splits `http://host[:port][/path?query]` or `https://...` (scheme in any case,
/// IPv6 literals in brackets). The path defaults to "/". `None` for anything else,
/// including a port that is not 1-65535; [`parse_http_url`] says why.
pub fn split_url(s: &str) -> Option<UrlParts> {
    parse_http_url(s).ok()
}

/// `url` with any `user:password@` before its host replaced, for messages: a password
/// typed into a URL must not be echoed.
pub fn without_userinfo(url: &str) -> String {
    let start = url.find("://").map_or(0, |i| i + 3);
    let end = url[start..]
        .find(['/', '?', '#'])
        .map_or(url.len(), |i| start + i);
    match url[start..end].rfind('@') {
        Some(at) => format!("{}<redacted>@{}", &url[..start], &url[start + at + 1..]),
        None => url.to_owned(),
    }
}

/// [`split_url`] with a message saying what is wrong (without the source's location).
pub fn parse_http_url(s: &str) -> Result<UrlParts, String> {
    let (https, rest) = http_scheme(s)
        .ok_or_else(|| format!("expected an http:// or https:// URL, found {}", quote(s)))?;
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(end);
    if authority.is_empty() {
        return Err(format!("the URL has no host: {}", quote(s)));
    }
    if authority.contains('@') {
        return Err(format!(
            "user names in URLs are not supported (send an Authorization header instead): {}",
            quote(&without_userinfo(s))
        ));
    }
    let (host, port) = if let Some(inner) = authority.strip_prefix('[') {
        let close = inner
            .find(']')
            .ok_or_else(|| format!("the IPv6 host has no closing ']': {}", quote(s)))?;
        let host = &inner[..close];
        check_host(&authority[..close + 2]).map_err(|m| format!("{m}: {}", quote(s)))?;
        let after = &inner[close + 1..];
        let port = match after.strip_prefix(':') {
            Some(p) => Some(p),
            None if after.is_empty() => None,
            None => {
                return Err(format!(
                    "unexpected {} after the IPv6 host: {}",
                    quote(after),
                    quote(s)
                ))
            }
        };
        (host, port)
    } else {
        if authority.matches(':').count() > 1 {
            return Err(format!(
                "an IPv6 host must be written in brackets, like http://[::1]:8080/: {}",
                quote(s)
            ));
        }
        let (host, port) = match authority.split_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (authority, None),
        };
        check_host(host).map_err(|m| format!("{m}: {}", quote(s)))?;
        (host, port)
    };
    let port = match port {
        // "host:" with an empty port means the default port (RFC 3986).
        None | Some("") => None,
        Some(p) => Some(parse_port(p).ok_or_else(|| {
            format!(
                "invalid port {} (must be an integer 1-65535): {}",
                quote(p),
                quote(s)
            )
        })?),
    };
    let tail = tail.split_once('#').map_or(tail, |(before, _)| before);
    let path = if tail.starts_with('/') {
        tail.to_string()
    } else {
        format!("/{tail}")
    };
    check_path_chars(&path)?;
    Ok(UrlParts {
        https,
        host: host.into(),
        port,
        path,
    })
}

/// Does `s` start with http:// or https:// (in any case)?
pub fn is_http_url(s: &str) -> bool {
    http_scheme(s).is_some()
}

/// `Some(https?, rest after "://")` when `s` starts with http:// or https:// in any
/// case. Stricter than `url`, which also takes `http:/h` and `http:h` for `http://h/`.
fn http_scheme(s: &str) -> Option<(bool, &str)> {
    for (prefix, https) in [("http://", false), ("https://", true)] {
        if s.get(..prefix.len())
            .is_some_and(|p| p.eq_ignore_ascii_case(prefix))
        {
            return Some((https, &s[prefix.len()..]));
        }
    }
    None
}

/// A port as text ("10041"): digits only, 1-65535.
pub fn parse_port(p: &str) -> Option<u16> {
    if p.is_empty() || p.len() > 5 || !p.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    p.parse::<u16>().ok().filter(|&n| n != 0)
}

/// A host as written in a URL: an IPv6 literal in brackets, an IPv4 address, or a
/// DNS name in ASCII letters, digits, '-', '.' and '_'.
///
/// The character rule is hakaru's: the name goes into the Host header and to the
/// resolver as written, so an internationalized name must be given in its `xn--`
/// form, and `%` escapes are refused (`url` would decode them). Past it, `url`
/// decides, which catches what looks like an IPv4 address but is not one
/// (`10.0.0.256`).
pub fn check_host(host: &str) -> Result<(), String> {
    if host.is_empty() {
        return Err("the host is empty".into());
    }
    if let Some(inner) = host.strip_prefix('[') {
        let inner = inner.strip_suffix(']').unwrap_or(inner);
        return match ::url::Host::parse(host) {
            Ok(::url::Host::Ipv6(_)) => Ok(()),
            _ => Err(format!("{} is not an IPv6 address", quote(inner))),
        };
    }
    if let Some(c) = host
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_')))
    {
        return Err(format!(
            "the host {} has an invalid character {c:?}",
            quote(host)
        ));
    }
    match ::url::Host::parse(host) {
        Ok(_) => Ok(()),
        Err(e) => Err(format!("the host {} is not valid: {e}", quote(host))),
    }
}

/// Spaces and control characters would break the request line. Raw non-ASCII is
/// fine: [`encode_path`] percent-encodes it.
pub fn check_path_chars(path: &str) -> Result<(), String> {
    for (at, c) in path.char_indices() {
        if c == ' ' {
            return Err(format!(
                "the path has a space at byte {at}, which would make a malformed request \
                 (percent-encode it as %20): {}",
                quote(path)
            ));
        }
        if c.is_control() {
            return Err(format!(
                "the path has a control character {c:?} at byte {at}, which would make a \
                 malformed request: {}",
                quote(path)
            ));
        }
    }
    Ok(())
}

/// Quotes a value for a message, truncated so one bad 10 kB line stays readable.
pub fn quote(s: &str) -> String {
    const MAX: usize = 60;
    match s.char_indices().nth(MAX) {
        Some((at, _)) => format!("{:?}", format!("{}…", &s[..at])),
        None => format!("{s:?}"),
    }
}

/// Percent-encodes what may not appear raw in a request target (non-ASCII bytes
/// such as Japanese search terms, controls, spaces), leaving everything else as
/// written: `?`, `&`, `=` and existing `%XX` escapes are the user's.
pub fn encode_path(path: &str) -> String {
    utf8_percent_encode(path, TARGET).to_string()
}

/// Percent-encodes `s` as a query parameter value: unreserved characters stay, every
/// other UTF-8 byte becomes `%XX` (upper-case hex; a space is `%20`, `%` is `%25`).
pub fn encode_component(s: &str) -> String {
    utf8_percent_encode(s, COMPONENT).to_string()
}

/// [`encode_component`], except that a `%` followed by two hex digits is taken to
/// be an escape already and kept. So raw terms and terms that are already escaped
/// give the same text, and encoding twice changes nothing.
pub fn encode_component_keeping_escapes(s: &str) -> String {
    let mut out = String::with_capacity(s.len() * 3);
    let mut rest = s;
    while let Some(at) = find_escape(rest) {
        out.extend(utf8_percent_encode(&rest[..at], COMPONENT));
        out.push_str(&rest[at..at + 3]);
        rest = &rest[at + 3..];
    }
    out.extend(utf8_percent_encode(rest, COMPONENT));
    out
}

/// The byte offset of the first `%XX` escape in `s`.
fn find_escape(s: &str) -> Option<usize> {
    let b = s.as_bytes();
    (0..b.len().saturating_sub(2))
        .find(|&i| b[i] == b'%' && b[i + 1].is_ascii_hexdigit() && b[i + 2].is_ascii_hexdigit())
}

/// Decodes `%XX` sequences. A `%` not followed by two hex digits stays as it is;
/// `+` stays `+` (RFC 3986; form decoding of `+` as a space is the caller's
/// choice). Bytes that do not make valid UTF-8 become U+FFFD.
pub fn percent_decode(s: &str) -> String {
    percent_decode_str(s).decode_utf8_lossy().into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_in_urls_are_not_echoed() {
        assert_eq!(
            without_userinfo("http://u:pw@h:1/a@b?x=@"),
            "http://<redacted>@h:1/a@b?x=@"
        );
        assert_eq!(without_userinfo("http://h/p"), "http://h/p");
        let e = parse_http_url("http://u:secretpw@h/").unwrap_err();
        assert!(!e.contains("secretpw"), "{e}");
    }

    #[test]
    fn split_url_forms() {
        let u = |https, host: &str, port, path: &str| UrlParts {
            https,
            host: host.into(),
            port,
            path: path.into(),
        };
        assert_eq!(
            split_url("http://example.com"),
            Some(u(false, "example.com", None, "/"))
        );
        assert_eq!(
            split_url("HtTpS://h:443"),
            Some(u(true, "h", Some(443), "/"))
        );
        assert_eq!(
            split_url("http://127.0.0.1:10041/d/select?query=a&x=/y"),
            Some(u(false, "127.0.0.1", Some(10041), "/d/select?query=a&x=/y"))
        );
        assert_eq!(
            split_url("http://h?q=1"),
            Some(u(false, "h", None, "/?q=1"))
        );
        assert_eq!(
            split_url("http://h/p#frag"),
            Some(u(false, "h", None, "/p"))
        );
        assert_eq!(split_url("http://h:/p"), Some(u(false, "h", None, "/p")));
        assert_eq!(
            split_url("http://[::1]:8080/x"),
            Some(u(false, "::1", Some(8080), "/x"))
        );
        assert_eq!(
            split_url("https://[2001:db8::1]"),
            Some(u(true, "2001:db8::1", None, "/"))
        );
        assert_eq!(
            split_url("http://h/検索?q=東京"),
            Some(u(false, "h", None, "/検索?q=東京"))
        );
        for bad in [
            "",
            "/path",
            "example.com",
            "ftp://h/",
            "http:/h",
            "http://",
            "http:///x",
            "http://h:0/",
            "http://h:65536/",
            "http://h:8o/",
            "http://h:-1/",
            "http://h:+80/",
            "http://[::1/",
            "http://[nope]/",
            "http://[::1]x/",
            "http://::1/",
            "http://u@h/",
            "http://h/a b",
            "http://h a/",
            "http://東京/",
        ] {
            assert_eq!(split_url(bad), None, "{bad:?}");
        }
    }

    /// What `url` would normalize is kept as written: the request line, the Host
    /// header and the port choice all come from the user's text.
    #[test]
    fn split_url_keeps_what_url_would_normalize() {
        let p = split_url("http://EXAMPLE.com:80/a/../b?x=\"{y}\"&z=%7e").unwrap();
        assert_eq!(p.host, "EXAMPLE.com");
        assert_eq!(p.port, Some(80));
        assert_eq!(p.path, "/a/../b?x=\"{y}\"&z=%7e");
        assert_eq!(split_url("http://127.1/").unwrap().host, "127.1");
        assert_eq!(
            split_url("https://[2001:DB8:0::1]/").unwrap().host,
            "2001:DB8:0::1"
        );
    }

    #[test]
    fn url_messages_say_what_is_wrong() {
        let m = |s: &str| parse_http_url(s).unwrap_err();
        assert!(m("http://h:99999/x").contains("invalid port \"99999\""));
        assert!(m("http:///x").contains("no host"));
        assert!(m("http://::1/x").contains("brackets"));
        assert!(m("ftp://h/").contains("expected an http:// or https:// URL"));
        assert!(m("http://[nope]/").contains("\"nope\" is not an IPv6 address"));
        assert!(m("http://h!x/").contains("invalid character '!'"));
        assert!(m("http://h%41/").contains("invalid character '%'"));
        assert!(m("http://10.0.0.256/").contains("is not valid"));
        assert!(m("http://h/a\tb").contains("control character '\\t'"));
    }

    #[test]
    fn host_and_port_rules() {
        for ok in [
            "h",
            "node-0.example_x",
            "127.0.0.1",
            "[::1]",
            "[2001:db8::1]",
        ] {
            assert_eq!(check_host(ok), Ok(()), "{ok}");
        }
        for bad in ["", "[::1", "[h]", "h:1", "東京", "a b", "1.2.3.999"] {
            assert!(check_host(bad).is_err(), "{bad}");
        }
        assert_eq!(parse_port("10041"), Some(10041));
        assert_eq!(parse_port("65535"), Some(65535));
        for bad in ["", "0", "65536", "+80", "-1", "8o", "000080"] {
            assert_eq!(parse_port(bad), None, "{bad}");
        }
    }

    #[test]
    fn non_ascii_paths_are_percent_encoded() {
        assert_eq!(
            encode_path("/d/select?query=検索 x"),
            "/d/select?query=%E6%A4%9C%E7%B4%A2%20x"
        );
        assert_eq!(encode_path("/a?b=%E6&c=d"), "/a?b=%E6&c=d");
    }

    #[test]
    fn encode_path_touches_only_what_cannot_go_on_the_wire() {
        let printable: String = (0x21u8..0x7f).map(char::from).collect();
        assert_eq!(encode_path(&printable), printable);
        assert_eq!(
            encode_path("\u{0}\t\r\n \u{7f}é"),
            "%00%09%0D%0A%20%7F%C3%A9"
        );
    }

    #[test]
    fn component_encoding() {
        assert_eq!(encode_component("a&b #1 100%"), "a%26b%20%231%20100%25");
        assert_eq!(encode_component("~._-Az09"), "~._-Az09");
        assert_eq!(encode_component("日本"), "%E6%97%A5%E6%9C%AC");
        assert_eq!(encode_component("50%25"), "50%2525");
        assert_eq!(encode_component_keeping_escapes("50%25"), "50%25");
        assert_eq!(
            encode_component_keeping_escapes("a b%E6%97%A5 100% %4 %zz"),
            "a%20b%E6%97%A5%20100%25%20%254%20%25zz"
        );
        assert_eq!(encode_component_keeping_escapes("%"), "%25");
        assert_eq!(encode_component_keeping_escapes("%41"), "%41");
    }

    #[test]
    fn percent_round_trip() {
        for s in [
            "a&b",
            "#x",
            "100%",
            "a+b",
            "a b",
            "日本語",
            "~._-",
            "%41",
            "=?/:;,'\"\\",
            "",
        ] {
            let e = encode_component(s);
            assert!(
                e.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"-._~%".contains(&b)),
                "{e}"
            );
            assert_eq!(percent_decode(&e), s);
        }
        assert_eq!(percent_decode("%zz%4"), "%zz%4");
        assert_eq!(percent_decode("a+b%2b"), "a+b+");
        assert_eq!(percent_decode("%"), "%");
        assert_eq!(percent_decode("%4"), "%4");
        assert_eq!(percent_decode("%ff"), "\u{fffd}");
    }
}

/// Which key-value store a URL names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KvScheme {
    Redis,
    Memcached,
}

/// A key-value store's URL: `redis://[user:password@]host:port[/db]` (`rediss://`
/// over TLS) or `memcached://host:port`. Its `Debug` never shows the password.
#[derive(Clone, PartialEq, Eq)]
pub struct KvUrl {
    pub scheme: KvScheme,
    pub host: String,
    pub port: u16,
    pub user: Option<String>,
    pub password: Option<String>,
    /// Redis's database number (0 when the URL names none).
    pub db: u32,
    /// `rediss://`: the connection is TLS.
    pub tls: bool,
}

impl std::fmt::Debug for KvUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KvUrl")
            .field("scheme", &self.scheme)
            .field("host", &self.host)
            .field("port", &self.port)
            .field("user", &self.user)
            .field("password", &self.password.as_ref().map(|_| "<redacted>"))
            .field("db", &self.db)
            .field("tls", &self.tls)
            .finish()
    }
}

/// The scheme of a key-value store's URL, if `s` starts with one (in any case).
pub fn kv_scheme(s: &str) -> Option<(KvScheme, &str)> {
    for (prefix, scheme) in [
        ("redis://", KvScheme::Redis),
        ("rediss://", KvScheme::Redis),
        ("memcached://", KvScheme::Memcached),
    ] {
        if s.get(..prefix.len())
            .is_some_and(|p| p.eq_ignore_ascii_case(prefix))
        {
            return Some((scheme, &s[prefix.len()..]));
        }
    }
    None
}

/// Parse a key-value store's URL; the message never holds the password.
pub fn parse_kv_url(s: &str) -> Result<KvUrl, String> {
    let shown = || quote(&without_userinfo(s));
    let (scheme, rest) = kv_scheme(s)
        .ok_or_else(|| format!("expected a redis:// or memcached:// URL, found {}", shown()))?;
    let tls = s.len() - rest.len() == "rediss://".len();
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(end);
    let (userinfo, hostport) = match authority.rfind('@') {
        Some(at) => (Some(&authority[..at]), &authority[at + 1..]),
        None => (None, authority),
    };
    let (user, password) = match userinfo {
        None => (None, None),
        Some(_) if scheme == KvScheme::Memcached => {
            return Err(format!(
                "memcached URLs take no user or password (SASL is not supported): {}",
                shown()
            ))
        }
        // redis://:password@ (Redis before 6) or redis://user:password@ (ACL).
        Some(info) => match info.split_once(':') {
            Some((u, p)) => (
                (!u.is_empty()).then(|| percent_decode(u)),
                Some(percent_decode(p)),
            ),
            None => (None, Some(percent_decode(info))),
        },
    };
    let (host, port) = if let Some(inner) = hostport.strip_prefix('[') {
        let close = inner
            .find(']')
            .ok_or_else(|| format!("the IPv6 host has no closing ']': {}", shown()))?;
        (&inner[..close], inner[close + 1..].strip_prefix(':'))
    } else {
        match hostport.split_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (hostport, None),
        }
    };
    if host.is_empty() {
        return Err(format!("the URL has no host: {}", shown()));
    }
    let bracketed = format!("[{host}]");
    check_host(if host.contains(':') { &bracketed } else { host })
        .map_err(|m| format!("{m}: {}", shown()))?;
    let port = match port {
        None | Some("") => match scheme {
            KvScheme::Redis => 6379,
            KvScheme::Memcached => 11211,
        },
        Some(p) => parse_port(p).ok_or_else(|| {
            format!(
                "invalid port {} (must be an integer 1-65535): {}",
                quote(p),
                shown()
            )
        })?,
    };
    let path = tail.trim_start_matches('/');
    let db = match (scheme, path) {
        (_, "") => 0,
        (KvScheme::Redis, p) => p.parse::<u32>().map_err(|_| {
            format!(
                "a Redis URL's path is its database number (redis://host:port/0), found {}: {}",
                quote(p),
                shown()
            )
        })?,
        (KvScheme::Memcached, _) => {
            return Err(format!("a memcached URL has no path: {}", shown()))
        }
    };
    Ok(KvUrl {
        scheme,
        host: host.to_owned(),
        port,
        user,
        password,
        db,
        tls,
    })
}

#[cfg(test)]
mod kv_tests {
    use super::*;

    #[test]
    fn redis_and_memcached_urls() {
        let u = parse_kv_url("redis://app:s3cr%40t@127.0.0.1:6380/2").unwrap();
        assert_eq!(
            (
                u.scheme,
                u.host.as_str(),
                u.port,
                u.user.as_deref(),
                u.password.as_deref(),
                u.db
            ),
            (
                KvScheme::Redis,
                "127.0.0.1",
                6380,
                Some("app"),
                Some("s3cr@t"),
                2
            )
        );
        assert!(!format!("{u:?}").contains("s3cr"));
        let u = parse_kv_url("redis://:pw@localhost").unwrap();
        assert_eq!(
            (u.user, u.password.as_deref(), u.port),
            (None, Some("pw"), 6379)
        );
        let u = parse_kv_url("MEMCACHED://[::1]:11311").unwrap();
        assert_eq!(
            (u.scheme, u.host.as_str(), u.port),
            (KvScheme::Memcached, "::1", 11311)
        );
        assert!(!u.tls);
        let u = parse_kv_url("Rediss://:pw@127.0.0.1:6390/1").unwrap();
        assert_eq!(
            (u.scheme, u.port, u.db, u.tls),
            (KvScheme::Redis, 6390, 1, true)
        );
    }

    #[test]
    fn bad_urls_are_refused_without_their_password() {
        for (url, want) in [
            ("redis://:pw@h:99999", "invalid port"),
            ("redis://:pw@h/x", "database number"),
            ("memcached://u:pw@h", "SASL"),
            ("memcached://h/db", "no path"),
            ("redis://:pw@", "no host"),
            ("http://h", "expected a redis://"),
        ] {
            let e = parse_kv_url(url).unwrap_err();
            assert!(e.contains(want) && !e.contains("pw"), "{url}: {e}");
        }
    }
}
