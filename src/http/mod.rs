//! The wire: connecting (TCP, TLS), writing a prepared request, and reading one
//! HTTP/1.x response to its last byte (Content-Length, chunked, or until close),
//! discarding the body while counting it. One reused buffer per connection; no
//! allocation per request.

use std::io;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{ClientConfig, DigitallySignedStruct, RootCertStore, SignatureScheme};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;

use crate::plan::Target;
use crate::stats::ErrorKind;

pub mod url;

const BUF_SIZE: usize = 32 * 1024;
const MAX_HEADERS: usize = 100;
/// A chunk-size line longer than this is not HTTP.
const MAX_LINE: usize = 4096;

enum Stream {
    Plain(TcpStream),
    Tls(Box<tokio_rustls::client::TlsStream<TcpStream>>),
}

impl Stream {
    async fn write_all(&mut self, b: &[u8]) -> io::Result<()> {
        match self {
            Stream::Plain(s) => s.write_all(b).await,
            Stream::Tls(s) => {
                s.write_all(b).await?;
                s.flush().await
            }
        }
    }

    async fn read(&mut self, b: &mut [u8]) -> io::Result<usize> {
        match self {
            Stream::Plain(s) => s.read(b).await,
            Stream::Tls(s) => s.read(b).await,
        }
    }
}

/// What a successful exchange tells the caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Response {
    pub status: u16,
    /// Bytes read off the socket for this response (head and body).
    pub bytes: u64,
    /// The server will not take another request on this connection.
    pub close: bool,
}

/// How an exchange failed, before it is classified into an [`ErrorKind`].
#[derive(Debug)]
pub enum WireError {
    Io(io::Error),
    /// The connection ended before a whole response; `started` says whether any byte came.
    Eof {
        started: bool,
    },
    Malformed(&'static str),
}

impl WireError {
    pub fn kind(&self) -> ErrorKind {
        match self {
            WireError::Malformed(_) => ErrorKind::Malformed,
            WireError::Eof { .. } => ErrorKind::Reset,
            WireError::Io(e) => match e.kind() {
                io::ErrorKind::ConnectionReset
                | io::ErrorKind::ConnectionAborted
                | io::ErrorKind::BrokenPipe
                | io::ErrorKind::UnexpectedEof => ErrorKind::Reset,
                io::ErrorKind::TimedOut => ErrorKind::Timeout,
                io::ErrorKind::InvalidData => ErrorKind::Malformed,
                _ => ErrorKind::Io,
            },
        }
    }

    /// True when a reused keep-alive connection was closed by the server before it
    /// sent anything: the request never reached it, so trying once more on a fresh
    /// connection is what every HTTP client does.
    pub fn is_stale_connection(&self) -> bool {
        match self {
            WireError::Eof { started } => !started,
            WireError::Io(e) => matches!(
                e.kind(),
                io::ErrorKind::ConnectionReset
                    | io::ErrorKind::BrokenPipe
                    | io::ErrorKind::ConnectionAborted
            ),
            WireError::Malformed(_) => false,
        }
    }
}

impl From<io::Error> for WireError {
    fn from(e: io::Error) -> Self {
        WireError::Io(e)
    }
}

/// A connection with its read buffer.
pub struct Conn {
    stream: Stream,
    buf: Box<[u8]>,
    start: usize,
    end: usize,
    /// Responses received on this connection so far.
    pub served: u64,
}

/// Timings of opening a connection.
#[derive(Debug, Clone, Copy)]
pub struct Opened {
    pub connect: Duration,
    pub tls: Option<Duration>,
}

/// A fresh read buffer for [`connect`]. Callers that reconnect often keep the one a
/// closed connection gave back ([`Conn::into_buffer`]) instead: without keep-alive,
/// zeroing a new buffer per connection was 5% of the client's CPU.
pub fn new_buffer() -> Box<[u8]> {
    vec![0; BUF_SIZE].into_boxed_slice()
}

/// Open a connection to a target: TCP, then TLS for https targets. `buf` becomes the
/// connection's read buffer (its old contents do not matter); a failure hands it back.
pub async fn connect(
    target: &Target,
    tls: Option<&TlsConnector>,
    buf: Box<[u8]>,
) -> Result<(Conn, Opened), (ErrorKind, Box<[u8]>)> {
    let t0 = Instant::now();
    let mut last = None;
    let mut tcp = None;
    for addr in &target.addrs {
        match TcpStream::connect(addr).await {
            Ok(s) => {
                tcp = Some(s);
                break;
            }
            Err(e) => last = Some(e),
        }
    }
    let Some(tcp) = tcp else {
        let kind = match last.map(|e| e.kind()) {
            Some(io::ErrorKind::TimedOut) => ErrorKind::Timeout,
            _ => ErrorKind::Connect,
        };
        return Err((kind, buf));
    };
    let _ = tcp.set_nodelay(true);
    let connect = t0.elapsed();
    let (stream, tls_time) = if target.https {
        let Some(connector) = tls else {
            return Err((ErrorKind::Tls, buf));
        };
        let Ok(name) = ServerName::try_from(target.host.clone()) else {
            return Err((ErrorKind::Tls, buf));
        };
        let t1 = Instant::now();
        match connector.connect(name, tcp).await {
            Ok(s) => (Stream::Tls(Box::new(s)), Some(t1.elapsed())),
            Err(e) => {
                let kind = match e.kind() {
                    io::ErrorKind::ConnectionReset | io::ErrorKind::UnexpectedEof => {
                        ErrorKind::Reset
                    }
                    _ => ErrorKind::Tls,
                };
                return Err((kind, buf));
            }
        }
    } else {
        (Stream::Plain(tcp), None)
    };
    let conn = Conn {
        stream,
        buf,
        start: 0,
        end: 0,
        served: 0,
    };
    Ok((
        conn,
        Opened {
            connect,
            tls: tls_time,
        },
    ))
}

enum BodyKind {
    None,
    Length(u64),
    Chunked,
    UntilClose,
}

impl Conn {
    /// Close the connection and keep its read buffer for the next one.
    pub fn into_buffer(self) -> Box<[u8]> {
        self.buf
    }

    /// Write one request and read its response to the last byte.
    pub async fn exchange(&mut self, request: &[u8], head: bool) -> Result<Response, WireError> {
        self.stream.write_all(request).await?;
        let mut bytes = 0u64;
        loop {
            let (status, body, close, used) = self.read_head(&mut bytes).await?;
            self.start += used;
            // Interim responses (100 Continue, 103 Early Hints) precede the real one.
            if (100..200).contains(&status) && status != 101 {
                continue;
            }
            let body = if head || status == 204 || status == 304 || (100..200).contains(&status) {
                BodyKind::None
            } else {
                body
            };
            let close = match body {
                BodyKind::None => close,
                BodyKind::Length(n) => {
                    self.skip(n, &mut bytes).await?;
                    close
                }
                BodyKind::Chunked => {
                    self.skip_chunked(&mut bytes).await?;
                    close
                }
                BodyKind::UntilClose => {
                    self.skip_to_eof(&mut bytes).await?;
                    true
                }
            };
            self.served += 1;
            return Ok(Response {
                status,
                bytes,
                close,
            });
        }
    }

    /// Read more bytes into the buffer; counts them. Returns 0 at EOF.
    async fn fill(&mut self, bytes: &mut u64) -> Result<usize, WireError> {
        if self.start == self.end {
            self.start = 0;
            self.end = 0;
        } else if self.end == self.buf.len() {
            if self.start == 0 {
                return Err(WireError::Malformed(
                    "response head larger than the read buffer",
                ));
            }
            self.buf.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.start = 0;
        }
        let n = self.stream.read(&mut self.buf[self.end..]).await?;
        self.end += n;
        *bytes += n as u64;
        Ok(n)
    }

    async fn read_head(
        &mut self,
        bytes: &mut u64,
    ) -> Result<(u16, BodyKind, bool, usize), WireError> {
        loop {
            if self.end > self.start {
                let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
                let mut resp = httparse::Response::new(&mut headers);
                match resp.parse(&self.buf[self.start..self.end]) {
                    Ok(httparse::Status::Complete(used)) => {
                        let status = resp.code.unwrap_or(0);
                        let version = resp.version.unwrap_or(1);
                        let mut length = None;
                        let mut chunked = false;
                        let mut conn_close = version == 0;
                        for h in resp.headers.iter() {
                            if h.name.eq_ignore_ascii_case("content-length") {
                                let v = std::str::from_utf8(h.value)
                                    .ok()
                                    .and_then(|s| s.trim().parse::<u64>().ok());
                                match v {
                                    Some(n) => length = Some(n),
                                    None => {
                                        return Err(WireError::Malformed("invalid Content-Length"))
                                    }
                                }
                            } else if h.name.eq_ignore_ascii_case("transfer-encoding") {
                                chunked = h
                                    .value
                                    .split(|b| *b == b',')
                                    .any(|t| t.trim_ascii().eq_ignore_ascii_case(b"chunked"));
                            } else if h.name.eq_ignore_ascii_case("connection") {
                                for token in h.value.split(|b| *b == b',') {
                                    let t = token.trim_ascii();
                                    if t.eq_ignore_ascii_case(b"close") {
                                        conn_close = true;
                                    } else if t.eq_ignore_ascii_case(b"keep-alive") && version == 0
                                    {
                                        conn_close = false;
                                    }
                                }
                            }
                        }
                        let body = if chunked {
                            BodyKind::Chunked
                        } else if let Some(n) = length {
                            BodyKind::Length(n)
                        } else {
                            BodyKind::UntilClose
                        };
                        return Ok((status, body, conn_close, used));
                    }
                    Ok(httparse::Status::Partial) => {}
                    Err(_) => return Err(WireError::Malformed("not an HTTP/1.x response")),
                }
            }
            let started = self.end > self.start || *bytes > 0;
            if self.fill(bytes).await? == 0 {
                return Err(WireError::Eof { started });
            }
        }
    }

    /// Discard exactly `n` body bytes.
    async fn skip(&mut self, mut n: u64, bytes: &mut u64) -> Result<(), WireError> {
        loop {
            let avail = (self.end - self.start) as u64;
            if avail >= n {
                self.start += n as usize;
                return Ok(());
            }
            n -= avail;
            self.start = self.end;
            if self.fill(bytes).await? == 0 {
                return Err(WireError::Eof { started: true });
            }
        }
    }

    /// One CRLF-terminated line, without the CRLF; the buffer window moves past it.
    async fn line(&mut self, bytes: &mut u64) -> Result<(usize, usize), WireError> {
        loop {
            if let Some(i) = self.buf[self.start..self.end]
                .windows(2)
                .position(|w| w == b"\r\n")
            {
                let line = (self.start, self.start + i);
                self.start += i + 2;
                return Ok(line);
            }
            if self.end - self.start > MAX_LINE {
                return Err(WireError::Malformed("chunk line too long"));
            }
            if self.fill(bytes).await? == 0 {
                return Err(WireError::Eof { started: true });
            }
        }
    }

    async fn skip_chunked(&mut self, bytes: &mut u64) -> Result<(), WireError> {
        loop {
            let (a, b) = self.line(bytes).await?;
            let size_text = self.buf[a..b]
                .split(|c| *c == b';')
                .next()
                .unwrap_or(&[])
                .trim_ascii();
            let size = std::str::from_utf8(size_text)
                .ok()
                .and_then(|s| u64::from_str_radix(s, 16).ok())
                .ok_or(WireError::Malformed("invalid chunk size"))?;
            if size == 0 {
                // Trailer fields, then an empty line.
                loop {
                    let (a, b) = self.line(bytes).await?;
                    if a == b {
                        return Ok(());
                    }
                }
            }
            self.skip(size, bytes).await?;
            let (a, b) = self.line(bytes).await?;
            if a != b {
                return Err(WireError::Malformed("chunk not followed by CRLF"));
            }
        }
    }

    async fn skip_to_eof(&mut self, bytes: &mut u64) -> Result<(), WireError> {
        self.start = self.end;
        while self.fill(bytes).await? > 0 {
            self.start = self.end;
        }
        Ok(())
    }
}

/// The TLS client configuration for https targets: the bundled web PKI roots plus
/// `cacert`, or no verification at all with `insecure` (for self-signed test servers).
pub fn tls_connector(insecure: bool, cacert: Option<&Path>) -> Result<TlsConnector, String> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder = ClientConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .map_err(|e| e.to_string())?;
    let mut config = if insecure {
        builder
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(NoVerification(provider)))
            .with_no_client_auth()
    } else {
        let mut roots = RootCertStore {
            roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
        };
        if let Some(path) = cacert {
            use rustls::pki_types::pem::PemObject;
            let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(path)
                .map_err(|e| format!("cannot read --cacert {}: {e}", path.display()))?
                .collect::<Result<_, _>>()
                .map_err(|e| format!("--cacert {}: {e}", path.display()))?;
            if certs.is_empty() {
                return Err(format!(
                    "--cacert {}: no PEM certificates found",
                    path.display()
                ));
            }
            for c in certs {
                roots
                    .add(c)
                    .map_err(|e| format!("--cacert {}: {e}", path.display()))?;
            }
        }
        builder.with_root_certificates(roots).with_no_client_auth()
    };
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(TlsConnector::from(Arc::new(config)))
}

/// `--insecure`: accept any certificate, but still check handshake signatures are well formed.
#[derive(Debug)]
struct NoVerification(Arc<rustls::crypto::CryptoProvider>);

impl ServerCertVerifier for NoVerification {
    fn verify_server_cert(
        &self,
        _: &CertificateDer<'_>,
        _: &[CertificateDer<'_>],
        _: &ServerName<'_>,
        _: &[u8],
        _: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::SocketAddr;
    use tokio::net::TcpListener;

    /// A one-shot server that answers whatever it reads with `reply`, then closes.
    async fn one_shot(reply: &'static [u8]) -> Target {
        let l = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr: SocketAddr = l.local_addr().unwrap();
        tokio::spawn(async move {
            let (mut s, _) = l.accept().await.unwrap();
            let mut b = [0u8; 1024];
            let _ = s.read(&mut b).await;
            // Split the reply to exercise partial reads.
            for part in reply.chunks(7) {
                let _ = s.write_all(part).await;
                tokio::task::yield_now().await;
            }
        });
        Target {
            https: false,
            host: "127.0.0.1".into(),
            port: addr.port(),
            addrs: vec![addr],
        }
    }

    async fn exchange(reply: &'static [u8]) -> Result<Response, WireError> {
        let t = one_shot(reply).await;
        let (mut c, _) = connect(&t, None, new_buffer()).await.ok().unwrap();
        c.exchange(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n", false)
            .await
    }

    #[tokio::test]
    async fn content_length() {
        let r = exchange(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello")
            .await
            .unwrap();
        assert_eq!(
            r,
            Response {
                status: 200,
                bytes: 43,
                close: false
            }
        );
    }

    #[tokio::test]
    async fn chunked_with_trailer() {
        let r = exchange(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;x=1\r\nhello\r\n1a\r\nabcdefghijklmnopqrstuvwxyz\r\n0\r\nX-T: 1\r\n\r\n").await.unwrap();
        assert_eq!(r.status, 200);
        assert!(!r.close);
    }

    #[tokio::test]
    async fn until_close_and_http10() {
        let r = exchange(b"HTTP/1.0 200 OK\r\n\r\nbody until close")
            .await
            .unwrap();
        assert!(r.close);
        let r = exchange(b"HTTP/1.1 503 Busy\r\nConnection: close\r\nContent-Length: 0\r\n\r\n")
            .await
            .unwrap();
        assert_eq!((r.status, r.close), (503, true));
    }

    #[tokio::test]
    async fn interim_response_is_skipped() {
        let r = exchange(
            b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok",
        )
        .await
        .unwrap();
        assert_eq!(r.status, 201);
    }

    #[tokio::test]
    async fn errors_are_classified() {
        let e = exchange(b"SSH-2.0-OpenSSH_9.2\r\n\r\n").await.unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Malformed);
        let e = exchange(b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort")
            .await
            .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Reset);
        assert!(!e.is_stale_connection());
        let e = exchange(b"").await.unwrap_err();
        assert!(e.is_stale_connection());
        let e = exchange(b"HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n")
            .await
            .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Malformed);
        let e = exchange(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n")
            .await
            .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Malformed);
    }

    #[tokio::test]
    async fn refused_port_is_a_connect_error() {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = l.local_addr().unwrap();
        drop(l);
        let t = Target {
            https: false,
            host: "127.0.0.1".into(),
            port: addr.port(),
            addrs: vec![addr],
        };
        assert_eq!(
            connect(&t, None, new_buffer()).await.err().map(|e| e.0),
            Some(ErrorKind::Connect)
        );
    }

    #[test]
    fn cacert_errors_name_the_file() {
        let e = tls_connector(false, Some(Path::new("/nonexistent/ca.pem")))
            .err()
            .unwrap();
        assert!(e.contains("/nonexistent/ca.pem"), "{e}");
        assert!(tls_connector(true, None).is_ok());
        assert!(tls_connector(false, None).is_ok());
    }
}

/// A whole response read by [`fetch`].
#[derive(Debug, Clone)]
pub struct Fetched {
    pub status: u16,
    pub body: Vec<u8>,
}

/// One blocking `GET` of a plain-http URL with a deadline, the body kept (for probes
/// and `terms --url`, between steps, never in the load path). Sends `Connection: close`
/// and reads to the end; decodes a chunked body.
pub fn fetch(url: &str, timeout: Duration) -> Result<Fetched, String> {
    use std::io::{Read, Write};
    use std::net::ToSocketAddrs;
    let parts = self::url::split_url(url).ok_or_else(|| format!("{url}: not an http:// URL"))?;
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
    let req = format!("GET {} HTTP/1.1\r\nHost: {host}\r\nUser-Agent: hakaru/{}\r\nAccept: */*\r\nConnection: close\r\n\r\n", parts.path, env!("CARGO_PKG_VERSION"));
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
    let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
    let mut resp = httparse::Response::new(&mut headers);
    let used = match resp.parse(&buf) {
        Ok(httparse::Status::Complete(n)) => n,
        Ok(httparse::Status::Partial) => {
            return Err(format!(
                "{url}: the connection closed before a whole response head"
            ))
        }
        Err(e) => return Err(format!("{url}: not an HTTP response ({e})")),
    };
    let status = resp.code.unwrap_or(0);
    let chunked = resp.headers.iter().any(|h| {
        h.name.eq_ignore_ascii_case("transfer-encoding")
            && h.value
                .windows(7)
                .any(|w| w.eq_ignore_ascii_case(b"chunked"))
    });
    let length = resp
        .headers
        .iter()
        .find(|h| h.name.eq_ignore_ascii_case("content-length"))
        .and_then(|h| {
            std::str::from_utf8(h.value)
                .ok()?
                .trim()
                .parse::<usize>()
                .ok()
        });
    let raw = &buf[used..];
    let body = if chunked {
        dechunk(raw).ok_or_else(|| format!("{url}: invalid chunked body"))?
    } else if let Some(n) = length {
        raw.get(..n)
            .ok_or_else(|| format!("{url}: body shorter than its Content-Length"))?
            .to_vec()
    } else {
        raw.to_vec()
    };
    Ok(Fetched { status, body })
}

/// True once `buf` holds a whole response head and a Content-Length body.
fn length_complete(buf: &[u8]) -> bool {
    let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
    let mut resp = httparse::Response::new(&mut headers);
    let Ok(httparse::Status::Complete(used)) = resp.parse(buf) else {
        return false;
    };
    resp.headers
        .iter()
        .find(|h| h.name.eq_ignore_ascii_case("content-length"))
        .and_then(|h| {
            std::str::from_utf8(h.value)
                .ok()?
                .trim()
                .parse::<usize>()
                .ok()
        })
        .is_some_and(|n| buf.len() >= used + n)
}

/// Decode a complete chunked body held in memory.
fn dechunk(mut raw: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    loop {
        let eol = raw.windows(2).position(|w| w == b"\r\n")?;
        let size_text = raw[..eol].split(|c| *c == b';').next()?.trim_ascii();
        let size = usize::from_str_radix(std::str::from_utf8(size_text).ok()?, 16).ok()?;
        raw = &raw[eol + 2..];
        if size == 0 {
            return Some(out);
        }
        out.extend_from_slice(raw.get(..size)?);
        raw = raw.get(size + 2..)?;
    }
}

#[cfg(test)]
mod fetch_tests {
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
                b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n",
            )
            .unwrap();
        });
        let f = fetch(&format!("http://{addr}/d/status"), Duration::from_secs(5)).unwrap();
        assert_eq!((f.status, f.body.as_slice()), (200, &b"{}"[..]));
        t.join().unwrap();
        let e = fetch("https://127.0.0.1:1/", Duration::from_secs(1)).unwrap_err();
        assert!(e.contains("https"), "{e}");
    }
}
