//! One blocking request with the body kept, for probes, `terms --url` and `ab`'s look
//! at the server before the load: between steps, never in the load path. It goes
//! through the wire's own connection code, head parser and chunked decoder (on a small
//! runtime of its own), so there is one HTTP reader.

use std::net::ToSocketAddrs;
use std::time::Duration;

use super::encode::{encode_request, host_header};
use super::{connect, BodySink, Meter, Target};

/// The largest body `fetch` keeps.
const MAX_BODY: usize = 64 * 1024 * 1024;

/// A whole response read by [`fetch`].
#[derive(Debug, Clone)]
pub struct Fetched {
    pub status: u16,
    pub body: Vec<u8>,
    /// The `Server` header, as ab shows it ("Server Software").
    pub server: Option<String>,
}

/// One blocking `GET` of a plain-http URL with a deadline, the body kept (for probes
/// and `terms --url`). Sends `Connection: close`. Must not be called from inside a
/// tokio runtime.
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
        send(url, method, headers, None, timeout)
    }

    /// [`fetch`] with a method and a JSON body (an API call between steps: `suite`'s
    /// Toxiproxy events).
    pub fn json(url: &str, method: &str, body: &str, timeout: Duration) -> Result<Fetched, String> {
        send(url, method, &[], Some(body.as_bytes()), timeout)
    }
}

fn send(
    url: &str,
    method: &str,
    headers: &[(String, String)],
    body: Option<&[u8]>,
    timeout: Duration,
) -> Result<Fetched, String> {
    let parts = super::url::split_url(url).ok_or_else(|| format!("{url}: not an http:// URL"))?;
    if parts.https {
        return Err(format!("{url}: https is not supported here, only http"));
    }
    let port = parts.port.unwrap_or(80);
    let addrs: Vec<_> = (parts.host.as_str(), port)
        .to_socket_addrs()
        .map_err(|e| format!("{url}: cannot resolve {}: {e}", parts.host))?
        .collect();
    if addrs.is_empty() {
        return Err(format!("{url}: no address for {}", parts.host));
    }
    let target = Target {
        https: false,
        host: parts.host.clone(),
        port,
        addrs,
        proto: crate::http::Proto::Http,
    };
    let request = encode_request(
        method,
        &parts.path,
        &host_header(&parts.host, port, false),
        headers,
        body,
        body.map(|_| "application/json"),
        super::encode::Persistence::http11(false),
    );
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("{url}: cannot start a runtime: {e}"))?;
    let late = || {
        format!(
            "{url}: no complete answer within {:.1} s",
            timeout.as_secs_f64()
        )
    };
    rt.block_on(async {
        tokio::time::timeout(timeout, async {
            let (mut conn, _) = connect(&target, None, Box::default())
                .await
                .map_err(|e| format!("{url}: cannot connect: {}", e.cause))?;
            let (mut body, mut head) = (Vec::new(), Vec::new());
            let mut sink = BodySink {
                buf: &mut body,
                limit: MAX_BODY,
                truncated: false,
                head: Some(&mut head),
            };
            let response = conn
                .exchange(
                    &request,
                    method == "HEAD",
                    &Meter::default(),
                    Some(&mut sink),
                )
                .await
                .map_err(|e| format!("{url}: {e}"))?;
            if sink.truncated {
                return Err(format!("{url}: answer larger than 64 MiB"));
            }
            Ok(Fetched {
                status: response.status,
                body,
                server: server_header(&head),
            })
        })
        .await
        .unwrap_or_else(|_| Err(late()))
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

#[cfg(test)]
mod tests {
    use super::*;

    fn serve_once(reply: &'static [u8]) -> std::net::SocketAddr {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = l.local_addr().unwrap();
        std::thread::spawn(move || {
            use std::io::{Read, Write};
            let (mut s, _) = l.accept().unwrap();
            let mut b = [0u8; 1024];
            let _ = s.read(&mut b);
            let _ = s.write_all(reply);
            // Hold the connection open: a length or chunked body must end the read.
            std::thread::sleep(Duration::from_millis(500));
        });
        addr
    }

    #[test]
    fn fetch_reads_chunked_and_length_bodies() {
        let addr = serve_once(
            b"HTTP/1.1 200 OK\r\nServer: test/1.0\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n3;x=1\r\n[1]\r\n0\r\n\r\n",
        );
        let f = fetch(&format!("http://{addr}/d/status"), Duration::from_secs(5)).unwrap();
        assert_eq!((f.status, f.body.as_slice()), (200, &b"{}[1]"[..]));
        assert_eq!(f.server.as_deref(), Some("test/1.0"));
        let addr = serve_once(b"HTTP/1.1 404 Not Found\r\nContent-Length: 4\r\n\r\nnope");
        let f = fetch(&format!("http://{addr}/x"), Duration::from_secs(5)).unwrap();
        assert_eq!((f.status, f.body.as_slice()), (404, &b"nope"[..]));
    }

    #[test]
    fn fetch_errors_name_the_url() {
        let e = fetch("https://127.0.0.1:1/", Duration::from_secs(1)).unwrap_err();
        assert!(e.contains("https"), "{e}");
        let addr = serve_once(b"SSH-2.0-OpenSSH_9.2\r\n\r\n");
        let e = fetch(&format!("http://{addr}/"), Duration::from_secs(5)).unwrap_err();
        assert!(e.contains("not an HTTP/1.x response"), "{e}");
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = l.local_addr().unwrap();
        drop(l);
        let e = fetch(&format!("http://{addr}/"), Duration::from_secs(5)).unwrap_err();
        assert!(
            e.contains(&addr.to_string()) && e.contains("connect"),
            "{e}"
        );
    }
}
