//! One blocking request with the body kept, for probes, `terms --url` and `ab`'s look
//! at the server before the load: between steps, never in the load path. It reads
//! heads and chunks with the wire's own parser.

use std::io;
use std::time::{Duration, Instant};

use super::{chunk_size, find_crlf, parse_head, BodyKind, Head};

/// A whole response read by [`fetch`].
#[derive(Debug, Clone)]
pub struct Fetched {
    pub status: u16,
    pub body: Vec<u8>,
    /// The `Server` header, as ab shows it ("Server Software").
    pub server: Option<String>,
}

/// One blocking `GET` of a plain-http URL with a deadline, the body kept (for probes
/// and `terms --url`, between steps, never in the load path). Sends `Connection: close`
/// and reads to the end; decodes a chunked body.
pub fn fetch(url: &str, timeout: Duration) -> Result<Fetched, String> {
    Fetched::request(url, "GET", &[], timeout)
}

impl Fetched {
    /// [`fetch`] with a method and extra headers (`ab`'s `-H`, `-C`, `-A`), no body.
    pub fn request(
        url: &str,
        method: &str,
        headers: &[(String, String)],
        timeout: Duration,
    ) -> Result<Fetched, String> {
        send(url, method, headers, timeout)
    }
}

fn send(
    url: &str,
    method: &str,
    headers: &[(String, String)],
    timeout: Duration,
) -> Result<Fetched, String> {
    use std::io::{Read, Write};
    use std::net::ToSocketAddrs;
    let parts = super::url::split_url(url).ok_or_else(|| format!("{url}: not an http:// URL"))?;
    if parts.https {
        return Err(format!("{url}: https is not supported here, only http"));
    }
    let port = parts.port.unwrap_or(80);
    let deadline = Instant::now() + timeout;
    let addr = (parts.host.as_str(), port)
        .to_socket_addrs()
        .map_err(|e| format!("{url}: cannot resolve {}: {e}", parts.host))?
        .next()
        .ok_or_else(|| format!("{url}: no address for {}", parts.host))?;
    let mut s =
        std::net::TcpStream::connect_timeout(&addr, timeout).map_err(|e| format!("{url}: {e}"))?;
    let host = if parts.host.contains(':') {
        format!("[{}]:{port}", parts.host)
    } else {
        format!("{}:{port}", parts.host)
    };
    let mut req = format!(
        "{method} {} HTTP/1.1\r\nHost: {host}\r\nUser-Agent: hakaru/{}\r\nAccept: */*\r\nConnection: close\r\n",
        parts.path,
        env!("CARGO_PKG_VERSION")
    );
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    s.set_write_timeout(Some(timeout))
        .map_err(|e| e.to_string())?;
    s.write_all(req.as_bytes())
        .map_err(|e| format!("{url}: {e}"))?;
    let mut buf = Vec::new();
    let mut chunk = [0u8; 16 * 1024];
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(format!(
                "{url}: no complete answer within {:.1} s",
                timeout.as_secs_f64()
            ));
        }
        s.set_read_timeout(Some(left)).map_err(|e| e.to_string())?;
        match s.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
            Err(e)
                if e.kind() == io::ErrorKind::WouldBlock || e.kind() == io::ErrorKind::TimedOut =>
            {
                return Err(format!(
                    "{url}: no complete answer within {:.1} s",
                    timeout.as_secs_f64()
                ))
            }
            Err(e) => return Err(format!("{url}: {e}")),
        }
        if buf.len() > 64 * 1024 * 1024 {
            return Err(format!("{url}: answer larger than 64 MiB"));
        }
        // A server that ignores `Connection: close` still ends its body on time.
        if length_complete(&buf) {
            break;
        }
    }
    let head = match parse_head(&buf) {
        Ok(Some(h)) => h,
        Ok(None) => {
            return Err(format!(
                "{url}: the connection closed before a whole response head"
            ))
        }
        Err(e) => return Err(format!("{url}: not an HTTP response ({e})")),
    };
    let raw = &buf[head.len..];
    let body = match head.body {
        BodyKind::Chunked => dechunk(raw).ok_or_else(|| format!("{url}: invalid chunked body"))?,
        BodyKind::Length(n) => raw
            .get(..n as usize)
            .ok_or_else(|| format!("{url}: body shorter than its Content-Length"))?
            .to_vec(),
        BodyKind::UntilClose | BodyKind::None => raw.to_vec(),
    };
    Ok(Fetched {
        status: head.status,
        body,
        server: server_header(&buf[..head.len]),
    })
}

/// The `Server` header of a whole response head, if any.
fn server_header(head: &[u8]) -> Option<String> {
    let mut headers = [httparse::EMPTY_HEADER; 64];
    let mut resp = httparse::Response::new(&mut headers);
    resp.parse(head).ok()?;
    resp.headers
        .iter()
        .find(|h| h.name.eq_ignore_ascii_case("server"))
        .map(|h| String::from_utf8_lossy(h.value).trim().to_string())
}

/// True once `buf` holds a whole response head and a Content-Length body.
fn length_complete(buf: &[u8]) -> bool {
    match parse_head(buf) {
        Ok(Some(Head {
            body: BodyKind::Length(n),
            len,
            ..
        })) => buf.len() as u64 >= len as u64 + n,
        _ => false,
    }
}

/// Decode a complete chunked body held in memory.
fn dechunk(mut raw: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    loop {
        let eol = find_crlf(raw)?;
        let size = usize::try_from(chunk_size(&raw[..eol])?).ok()?;
        raw = &raw[eol + 2..];
        if size == 0 {
            return Some(out);
        }
        out.extend_from_slice(raw.get(..size)?);
        raw = raw.get(size + 2..)?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dechunks() {
        assert_eq!(
            dechunk(b"5\r\nhello\r\n6;x\r\n world\r\n0\r\n\r\n").unwrap(),
            b"hello world"
        );
        assert!(dechunk(b"zz\r\n").is_none());
    }

    #[test]
    fn fetch_reads_a_body() {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = l.local_addr().unwrap();
        let t = std::thread::spawn(move || {
            use std::io::{Read, Write};
            let (mut s, _) = l.accept().unwrap();
            let mut b = [0u8; 1024];
            let _ = s.read(&mut b);
            s.write_all(
                b"HTTP/1.1 200 OK\r\nServer: test/1.0\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n",
            )
            .unwrap();
        });
        let f = fetch(&format!("http://{addr}/d/status"), Duration::from_secs(5)).unwrap();
        assert_eq!((f.status, f.body.as_slice()), (200, &b"{}"[..]));
        assert_eq!(f.server.as_deref(), Some("test/1.0"));
        t.join().unwrap();
        let e = fetch("https://127.0.0.1:1/", Duration::from_secs(1)).unwrap_err();
        assert!(e.contains("https"), "{e}");
    }
}
