//! Requests as they go on the wire: encoded once at plan time, or at send time into
//! a reused buffer when each request carries a body of its own (bulk batches with
//! sequence numbers, unique IDs).

/// The Host header's value: IPv6 in brackets, the port unless it is the scheme's default.
pub fn host_header(host: &str, port: u16, https: bool) -> String {
    let host = if host.contains(':') {
        format!("[{host}]")
    } else {
        host.to_string()
    };
    if (https && port == 443) || (!https && port == 80) {
        host
    } else {
        format!("{host}:{port}")
    }
}

/// How a request asks for its connection: HTTP/1.1 (kept open unless `Connection:
/// close`) or HTTP/1.0 as ApacheBench sends it (closed unless `Connection:
/// Keep-Alive`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Persistence {
    pub keep_alive: bool,
    pub http10: bool,
}

impl Persistence {
    /// HTTP/1.1, kept open or not.
    pub fn http11(keep_alive: bool) -> Self {
        Persistence {
            keep_alive,
            http10: false,
        }
    }
}

/// The request exactly as it goes on the wire.
pub fn encode_request(
    method: &str,
    path: &str,
    host: &str,
    headers: &[(String, String)],
    body: Option<&[u8]>,
    content_type: Option<&str>,
    conn: Persistence,
) -> Vec<u8> {
    let has = |name: &str| headers.iter().any(|(k, _)| k.eq_ignore_ascii_case(name));
    let version = if conn.http10 { "1.0" } else { "1.1" };
    let mut head = format!("{method} {path} HTTP/{version}\r\n");
    if !has("host") {
        head.push_str(&format!("Host: {host}\r\n"));
    }
    if !has("user-agent") {
        head.push_str(concat!(
            "User-Agent: hakaru/",
            env!("CARGO_PKG_VERSION"),
            "\r\n"
        ));
    }
    if !has("accept") {
        head.push_str("Accept: */*\r\n");
    }
    match (conn.http10, conn.keep_alive) {
        _ if has("connection") => {}
        (false, false) => head.push_str("Connection: close\r\n"),
        (true, true) => head.push_str("Connection: Keep-Alive\r\n"),
        _ => {}
    }
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    let needs_length = body.is_some() || matches!(method, "POST" | "PUT" | "PATCH");
    if let Some(ct) = content_type {
        if body.is_some() && !has("content-type") {
            head.push_str(&format!("Content-Type: {ct}\r\n"));
        }
    }
    if needs_length && !has("content-length") {
        head.push_str(&format!(
            "Content-Length: {}\r\n",
            body.map_or(0, <[u8]>::len)
        ));
    }
    head.push_str("\r\n");
    let mut bytes = head.into_bytes();
    if let Some(b) = body {
        bytes.extend_from_slice(b);
    }
    bytes
}

/// A request whose head is encoded once and whose body is built at send time: only
/// `Content-Length` and the body change from one request to the next, and both are
/// written into a buffer the caller reuses, so nothing is allocated per request.
#[derive(Debug, Clone)]
pub struct BodyRequest {
    /// Everything up to the blank line except `Content-Length`.
    head: Vec<u8>,
}

impl BodyRequest {
    pub fn new(
        method: &str,
        path: &str,
        host: &str,
        headers: &[(String, String)],
        content_type: Option<&str>,
        keep_alive: bool,
    ) -> BodyRequest {
        let mut head = encode_request(
            method,
            path,
            host,
            headers,
            Some(&[]),
            content_type,
            Persistence::http11(keep_alive),
        );
        // Drop "Content-Length: 0\r\n\r\n": it is written per request.
        let cut = head
            .windows(18)
            .rposition(|w| w.eq_ignore_ascii_case(b"Content-Length: 0\r"))
            .unwrap_or(head.len() - 2);
        head.truncate(cut);
        BodyRequest { head }
    }

    /// Write the whole request for `body` into `out` (cleared first).
    pub fn write(&self, out: &mut Vec<u8>, body: &[u8]) {
        use std::io::Write;
        out.clear();
        out.extend_from_slice(&self.head);
        let _ = write!(out, "Content-Length: {}\r\n\r\n", body.len());
        out.extend_from_slice(body);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodes_get_exactly() {
        let b = encode_request(
            "GET",
            "/d/status",
            "127.0.0.1:10041",
            &[],
            None,
            None,
            Persistence::http11(true),
        );
        let expected = format!("GET /d/status HTTP/1.1\r\nHost: 127.0.0.1:10041\r\nUser-Agent: hakaru/{}\r\nAccept: */*\r\n\r\n", env!("CARGO_PKG_VERSION"));
        assert_eq!(String::from_utf8(b).unwrap(), expected);
    }

    #[test]
    fn encodes_post_with_body_and_close() {
        let b = encode_request(
            "POST",
            "/d/load",
            "h",
            &[("X-A".into(), "1".into())],
            Some(b"[1]"),
            Some("application/json"),
            Persistence::http11(false),
        );
        let s = String::from_utf8(b).unwrap();
        assert!(s.contains("Connection: close\r\n"));
        assert!(s.contains("X-A: 1\r\n"));
        assert!(s.contains("Content-Type: application/json\r\n"));
        assert!(s.ends_with("Content-Length: 3\r\n\r\n[1]"));
    }

    #[test]
    fn body_request_matches_the_encoder() {
        let r = BodyRequest::new(
            "POST",
            "/db/_bulk_docs",
            "h:1",
            &[],
            Some("application/json"),
            true,
        );
        let mut out = Vec::new();
        r.write(&mut out, b"{\"docs\":[]}");
        let expected = encode_request(
            "POST",
            "/db/_bulk_docs",
            "h:1",
            &[],
            Some(b"{\"docs\":[]}"),
            Some("application/json"),
            Persistence::http11(true),
        );
        assert_eq!(
            String::from_utf8_lossy(&out),
            String::from_utf8_lossy(&expected)
        );
        let cap = out.capacity();
        r.write(&mut out, b"[]");
        assert!(out.ends_with(b"Content-Length: 2\r\n\r\n[]"));
        assert_eq!(out.capacity(), cap);
    }

    /// `hakaru ab` speaks as ab does (issue 19): HTTP/1.0, `Connection: Keep-Alive`
    /// with `-k` and no Connection header without it.
    #[test]
    fn http10_as_ab_sends_it() {
        let enc = |keep_alive| {
            let conn = Persistence {
                keep_alive,
                http10: true,
            };
            String::from_utf8(encode_request("GET", "/", "h", &[], None, None, conn)).unwrap()
        };
        let (k, plain) = (enc(true), enc(false));
        assert!(k.starts_with("GET / HTTP/1.0\r\n"), "{k}");
        assert!(k.contains("Connection: Keep-Alive\r\n"), "{k}");
        assert!(plain.starts_with("GET / HTTP/1.0\r\n"), "{plain}");
        assert!(!plain.contains("Connection:"), "{plain}");
    }
}
