//! The embedded target spoken to over raw TCP: keep-alive, pipelining, split requests,
//! closing rules and every basic endpoint. Each test starts its own server on
//! 127.0.0.1 port 0; every read has a timeout so a bug fails instead of hanging.

use std::io::{ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use hakaru::server::basic::start_basic;
use hakaru::server::listen::{RunningServer, ServerOptions};

const TIMEOUT: Duration = Duration::from_secs(10);

fn server() -> RunningServer {
    server_with(ServerOptions {
        keep_alive: true,
        threads: 1,
        ..Default::default()
    })
}

fn server_with(opts: ServerOptions) -> RunningServer {
    start_basic("127.0.0.1:0".parse().unwrap(), opts).expect("start target")
}

/// A parsed response.
#[derive(Debug)]
struct Resp {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Resp {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    fn closes(&self) -> bool {
        self.header("connection")
            .is_some_and(|v| v.eq_ignore_ascii_case("close"))
    }
}

/// A raw client that keeps unread bytes between responses (for pipelining).
struct Client {
    stream: TcpStream,
    buf: Vec<u8>,
}

impl Client {
    fn connect(addr: SocketAddr) -> Client {
        let stream = TcpStream::connect(addr).expect("connect");
        stream.set_read_timeout(Some(TIMEOUT)).unwrap();
        stream.set_write_timeout(Some(TIMEOUT)).unwrap();
        stream.set_nodelay(true).unwrap();
        Client {
            stream,
            buf: Vec::new(),
        }
    }

    fn send(&mut self, bytes: &[u8]) {
        self.stream.write_all(bytes).expect("write");
    }

    fn get(&mut self, path: &str) -> Resp {
        self.send(format!("GET {path} HTTP/1.1\r\nHost: t\r\n\r\n").as_bytes());
        self.response(false)
    }

    /// Reads more bytes into `buf`; false at EOF.
    fn fill(&mut self) -> bool {
        let mut chunk = [0u8; 16 * 1024];
        let n = self.stream.read(&mut chunk).expect("read (timed out?)");
        self.buf.extend_from_slice(&chunk[..n]);
        n > 0
    }

    /// Reads one response; `head_request` means no body whatever Content-Length says.
    fn response(&mut self, head_request: bool) -> Resp {
        loop {
            let mut slots = [httparse::EMPTY_HEADER; 64];
            let mut parsed = httparse::Response::new(&mut slots);
            if let httparse::Status::Complete(head_len) =
                parsed.parse(&self.buf).expect("well-formed response")
            {
                let status = parsed.code.unwrap();
                let headers: Vec<(String, String)> = parsed
                    .headers
                    .iter()
                    .map(|h| {
                        (
                            h.name.to_string(),
                            String::from_utf8(h.value.to_vec()).unwrap(),
                        )
                    })
                    .collect();
                let resp = Resp {
                    status,
                    headers,
                    body: Vec::new(),
                };
                let len = if head_request || status == 204 || status == 304 {
                    0
                } else {
                    resp.header("content-length")
                        .expect("Content-Length on every response")
                        .parse::<usize>()
                        .unwrap()
                };
                while self.buf.len() < head_len + len {
                    assert!(self.fill(), "EOF inside a response body");
                }
                let body = self.buf[head_len..head_len + len].to_vec();
                self.buf.drain(..head_len + len);
                return Resp { body, ..resp };
            }
            assert!(self.fill(), "EOF before a response head");
        }
    }

    /// Asserts the server closes: EOF (or a reset) with no further bytes.
    fn expect_closed(&mut self) {
        assert!(self.buf.is_empty(), "unexpected bytes: {:?}", self.buf);
        let mut chunk = [0u8; 1024];
        match self.stream.read(&mut chunk) {
            Ok(0) => {}
            Ok(n) => panic!("expected close, got {:?}", &chunk[..n]),
            Err(e) if e.kind() == ErrorKind::ConnectionReset => {}
            Err(e) => panic!("expected close, got {e}"),
        }
    }
}

#[test]
fn keep_alive_serves_sequential_requests_on_one_connection() {
    let server = server();
    let mut c = Client::connect(server.addr);
    for _ in 0..3 {
        let r = c.get("/");
        assert_eq!(r.status, 200);
        assert_eq!(r.body, b"hakaru target\n");
        assert_eq!(r.header("content-type"), Some("text/plain"));
        assert!(r.header("connection").is_none());
    }
    assert_eq!(server.stats.connections(), 1);
    assert_eq!(server.stats.requests(), 3);
    // The /stats endpoint sees the same counters (before counting itself).
    let stats = c.get("/stats");
    let v: serde_json::Value = serde_json::from_slice(&stats.body).unwrap();
    assert_eq!(
        (v["connections"].as_u64(), v["requests"].as_u64()),
        (Some(1), Some(3))
    );
    server.stop();
}

#[test]
fn pipelined_requests_in_one_write_are_answered_in_order() {
    let server = server();
    let mut c = Client::connect(server.addr);
    let mut batch = Vec::new();
    for n in 1..=5 {
        batch.extend_from_slice(format!("GET /bytes/{n} HTTP/1.1\r\nHost: t\r\n\r\n").as_bytes());
    }
    batch.extend_from_slice(b"POST /echo HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc");
    batch.extend_from_slice(b"GET /status/204 HTTP/1.1\r\n\r\n");
    batch.extend_from_slice(b"GET / HTTP/1.1\r\n\r\n");
    c.send(&batch);
    for n in 1..=5 {
        assert_eq!(c.response(false).body.len(), n);
    }
    assert_eq!(c.response(false).body, b"abc");
    assert_eq!(c.response(false).status, 204);
    assert_eq!(c.response(false).body, b"hakaru target\n");
    assert_eq!(server.stats.requests(), 8);
}

#[test]
fn a_request_split_byte_by_byte_is_reassembled() {
    let server = server();
    let mut c = Client::connect(server.addr);
    let request = b"POST /echo?x=1 HTTP/1.1\r\nHost: t\r\nContent-Length: 11\r\n\r\nhello world";
    for &b in request.iter() {
        c.send(&[b]);
        std::thread::sleep(Duration::from_micros(200));
    }
    let r = c.response(false);
    assert_eq!(r.body, b"hello world");
    // The connection is still usable.
    assert_eq!(c.get("/").status, 200);
}

#[test]
fn http10_closes_unless_it_asks_for_keep_alive() {
    let server = server();
    let mut c = Client::connect(server.addr);
    c.send(b"GET / HTTP/1.0\r\n\r\n");
    let r = c.response(false);
    assert_eq!(r.status, 200);
    assert!(r.closes());
    c.expect_closed();

    let mut c = Client::connect(server.addr);
    for _ in 0..2 {
        c.send(b"GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
        let r = c.response(false);
        assert_eq!(r.header("connection"), Some("keep-alive"));
    }
    assert_eq!(server.stats.connections(), 2);
}

#[test]
fn connection_close_is_honoured() {
    let server = server();
    let mut c = Client::connect(server.addr);
    c.send(b"GET / HTTP/1.1\r\nConnection: close\r\n\r\n");
    assert!(c.response(false).closes());
    c.expect_closed();
}

#[test]
fn no_keep_alive_mode_closes_every_connection() {
    let server = server_with(ServerOptions {
        keep_alive: false,
        threads: 1,
        ..Default::default()
    });
    for _ in 0..3 {
        let mut c = Client::connect(server.addr);
        let r = c.get("/");
        assert_eq!(r.status, 200);
        assert!(r.closes());
        c.expect_closed();
    }
    assert_eq!(server.stats.connections(), 3);
    assert_eq!(server.stats.requests(), 3);
}

#[test]
fn close_query_switch_closes_after_the_answer() {
    let server = server();
    let mut c = Client::connect(server.addr);
    assert!(!c.get("/bytes/10").closes());
    let r = c.get("/bytes/10?close=1");
    assert_eq!(r.body.len(), 10);
    assert!(r.closes());
    c.expect_closed();
}

#[test]
fn bytes_have_the_exact_length() {
    let server = server();
    let mut c = Client::connect(server.addr);
    for n in [0usize, 1, 100, 16 * 1024, 16 * 1024 + 1, 100_000, 1 << 20] {
        let r = c.get(&format!("/bytes/{n}"));
        assert_eq!(r.status, 200);
        assert_eq!(r.body.len(), n);
        assert_eq!(r.header("content-length"), Some(n.to_string().as_str()));
    }
    assert_eq!(c.get("/bytes/67108865").status, 400);
}

#[test]
fn status_codes_and_bodiless_answers() {
    let server = server();
    let mut c = Client::connect(server.addr);
    let r = c.get("/status/503");
    assert_eq!(r.status, 503);
    assert_eq!(r.body, b"status 503\n");
    let r = c.get("/status/204");
    assert_eq!(r.status, 204);
    assert!(r.header("content-length").is_none());
    // hyper sends no Content-Length on a 304 (RFC 9110 §8.6 allows leaving it out).
    let r = c.get("/status/304");
    assert_eq!((r.status, r.header("content-length")), (304, None));
    assert_eq!(c.get("/status/150").status, 400);
    assert_eq!(c.get("/status/600").status, 400);
    // Nothing stray was sent after the bodiless answers.
    assert_eq!(c.get("/").body, b"hakaru target\n");
}

#[test]
fn head_gets_the_length_but_no_body() {
    let server = server();
    let mut c = Client::connect(server.addr);
    c.send(b"HEAD /bytes/1000 HTTP/1.1\r\n\r\n");
    let r = c.response(true);
    assert_eq!(r.header("content-length"), Some("1000"));
    assert_eq!(c.get("/bytes/2").body.len(), 2);
}

#[test]
fn delay_answers_no_sooner_than_asked() {
    let server = server();
    let mut c = Client::connect(server.addr);
    let started = Instant::now();
    assert_eq!(c.get("/delay/50").status, 200);
    assert!(started.elapsed() >= Duration::from_millis(50));
}

/// Regression (issue 19): `/delay/N` answered 1.1 ms late (tokio's millisecond timer
/// rounds every deadline up). The fast tail (5th of 41, about p10) of /delay/5 minus
/// that of `/` (the round trip itself, through no timer: the old /delay/0 slept a
/// tick too, so it would cancel the error) is 5 ms within 0.9 ms. tokio's sleep is
/// 1.14-1.18 ms over at p10 in every run here, so the old timer fails it. The median
/// was the first choice, but a loaded CI machine (a sleeping server thread waits for
/// a core at each of the two wake-ups a delayed answer takes) put it 1.66 ms over;
/// load only adds time, so the fast tail is where the timer shows and the load does
/// not. The two are asked in turn, so a change of load falls on both.
/// `bench/delay.sh` measures the 0.1 ms.
#[test]
fn delay_is_the_asked_time_not_the_next_timer_tick() {
    let server = server();
    let mut c = Client::connect(server.addr);
    let mut time = |path: &str| {
        let started = Instant::now();
        assert_eq!(c.get(path).status, 200);
        started.elapsed()
    };
    let (mut zero, mut five): (Vec<Duration>, Vec<Duration>) =
        (0..41).map(|_| (time("/"), time("/delay/5"))).unzip();
    zero.sort();
    five.sort();
    let (zero, five) = (zero[4], five[4]);
    let over = five
        .saturating_sub(zero)
        .saturating_sub(Duration::from_millis(5));
    assert!(
        five >= Duration::from_millis(5) && over < Duration::from_micros(900),
        "/delay/5 p10 {five:?}, / p10 {zero:?}: {over:?} over"
    );
}

#[test]
fn a_delayed_answer_does_not_block_other_connections() {
    let server = server();
    let mut slow = Client::connect(server.addr);
    slow.send(b"GET /delay/600000 HTTP/1.1\r\n\r\n");
    // On a one-thread server this could only answer if the delay does not block it.
    let mut fast = Client::connect(server.addr);
    assert_eq!(fast.get("/").status, 200);
    // stop() must not wait ten minutes for the delayed answer.
    server.stop();
}

#[test]
fn echo_returns_content_length_and_chunked_bodies() {
    let server = server();
    let mut c = Client::connect(server.addr);
    c.send(b"POST /echo HTTP/1.1\r\nContent-Length: 5\r\nContent-Type: text/plain\r\n\r\nhello");
    let r = c.response(false);
    assert_eq!((r.status, r.body.as_slice()), (200, &b"hello"[..]));
    c.send(b"POST /echo HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n4\r\ndefg\r\n0\r\n\r\n");
    assert_eq!(c.response(false).body, b"abcdefg");
    let big = vec![b'z'; 300_000];
    c.send(
        format!(
            "PUT /echo HTTP/1.1\r\nContent-Length: {}\r\n\r\n",
            big.len()
        )
        .as_bytes(),
    );
    c.send(&big);
    assert_eq!(c.response(false).body, big);
}

#[test]
fn expect_100_continue_gets_an_interim_answer() {
    let server = server();
    let mut c = Client::connect(server.addr);
    c.send(b"POST /echo HTTP/1.1\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\n");
    let interim = c.response(true);
    assert_eq!(interim.status, 100);
    c.send(b"data");
    assert_eq!(c.response(false).body, b"data");
}

#[test]
fn headers_endpoint_echoes_request_headers() {
    let server = server();
    let mut c = Client::connect(server.addr);
    c.send(b"GET /headers HTTP/1.1\r\nHost: t\r\nX-Hakaru: yes please\r\n\r\n");
    let text = String::from_utf8(c.response(false).body).unwrap();
    // hyper keeps header names in lower case (names are case-insensitive).
    assert_eq!(text, "host: t\nx-hakaru: yes please\n");
}

#[test]
fn malformed_requests_get_400_and_close() {
    let server = server();
    for bad in [
        &b"NOT A REQUEST\r\n\r\n"[..],
        b"GET / HTTP/1.1\r\nContent-Length: x\r\n\r\n",
        b"GET / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
        b"POST /echo HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
        // RFC 9112 §6.3: a final coding other than chunked is a 400, and the close.
        b"POST /echo HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n",
        b"GET / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
    ] {
        let mut c = Client::connect(server.addr);
        c.send(bad);
        let r = c.response(false);
        assert_eq!(r.status, 400, "{}", String::from_utf8_lossy(bad));
        assert!(r.closes());
        c.expect_closed();
    }
    // Both framings: hyper follows Transfer-Encoding alone (RFC 9112 §6.1 allows that
    // or a 400), so the chunked body is what is echoed.
    let mut c = Client::connect(server.addr);
    c.send(b"POST /echo HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n2\r\nok\r\n0\r\n\r\n");
    assert_eq!(c.response(false).body, b"ok");
}

#[test]
fn oversized_heads_get_431_and_close() {
    let server = server();
    let mut c = Client::connect(server.addr);
    let mut request = b"GET / HTTP/1.1\r\n".to_vec();
    for i in 0..100 {
        request.extend_from_slice(format!("X-Big-{i}: {}\r\n", "v".repeat(1000)).as_bytes());
    }
    request.extend_from_slice(b"\r\n");
    c.send(&request);
    let r = c.response(false);
    assert_eq!(r.status, 431);
    assert!(r.closes());
    c.expect_closed();

    // Never-ending head without a blank line.
    let mut c = Client::connect(server.addr);
    c.send(b"GET / HTTP/1.1\r\n");
    c.send(format!("X-Long: {}", "v".repeat(70 * 1024)).as_bytes());
    assert_eq!(c.response(false).status, 431);
}

#[test]
fn unknown_paths_are_404() {
    let server = server();
    let mut c = Client::connect(server.addr);
    let r = c.get("/no/such/thing");
    assert_eq!(r.status, 404);
    assert!(!r.closes());
}

#[test]
fn stop_frees_the_port_and_closes_idle_connections() {
    let server = server();
    let addr = server.addr;
    let mut idle = Client::connect(addr);
    assert_eq!(idle.get("/").status, 200);
    server.stop();
    idle.expect_closed();
    assert!(
        TcpStream::connect(addr).is_err(),
        "still accepting after stop"
    );
    let again = start_basic(
        addr,
        ServerOptions {
            keep_alive: true,
            threads: 1,
            ..Default::default()
        },
    )
    .expect("the port is free again");
    assert_eq!(Client::connect(addr).get("/").status, 200);
    drop(again);
}

#[test]
fn several_worker_threads_serve_concurrent_connections() {
    let server = server_with(ServerOptions {
        keep_alive: true,
        threads: 2,
        ..Default::default()
    });
    let addr = server.addr;
    let workers: Vec<_> = (0..4)
        .map(|_| {
            std::thread::spawn(move || {
                let mut c = Client::connect(addr);
                for _ in 0..50 {
                    assert_eq!(c.get("/bytes/100").body.len(), 100);
                }
            })
        })
        .collect();
    for w in workers {
        w.join().unwrap();
    }
    assert_eq!(server.stats.connections(), 4);
    assert_eq!(server.stats.requests(), 200);
}

/// A handler that blocks (like a SQLite query) and panics on `/panic`.
struct Blocking;

impl hakaru::server::handler::Handler for Blocking {
    fn handle(
        &self,
        req: &hakaru::server::handler::Request<'_>,
    ) -> hakaru::server::handler::Response {
        if req.path == "/panic" {
            panic!("handler bug");
        }
        std::thread::sleep(Duration::from_millis(5));
        hakaru::server::handler::Response::text(200, "slept\n")
    }

    fn may_block(&self) -> bool {
        true
    }
}

#[test]
fn blocking_handlers_run_and_a_panicking_one_answers_500() {
    for threads in [1, 2] {
        let server = RunningServer::start(
            "127.0.0.1:0".parse().unwrap(),
            std::sync::Arc::new(Blocking),
            ServerOptions {
                keep_alive: true,
                threads,
                ..Default::default()
            },
        )
        .unwrap();
        let mut c = Client::connect(server.addr);
        assert_eq!(c.get("/").body, b"slept\n");
        let r = c.get("/panic");
        assert_eq!(r.status, 500);
        assert!(r.closes());
        c.expect_closed();
        // The server survives the panic.
        assert_eq!(Client::connect(server.addr).get("/").status, 200);
    }
}
