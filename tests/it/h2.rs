//! HTTP/2 (`--http2`, `--streams`) against real servers: nginx's h2c and its TLS with
//! ALPN (and a TLS nginx without `http2`, which must be spoken to in HTTP/1.1), the
//! embedded target's hyper HTTP/2 server; then a hostile HTTP/2 server on the `h2`
//! crate that sends GOAWAY mid-run, resets streams, never grants window, allows fewer
//! streams than the clients sharing a connection, or answers with CONTINUATION headers
//! and bodies past the client's windows. Counts are checked against the server's own
//! (nginx's access log, the target's counter).

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use bytes::Bytes;
use hakaru::server::basic::start_basic;
use hakaru::server::listen::ServerOptions;

use crate::util::*;

/// nginx with `http2` on its listener: h2c, or TLS with ALPN (`tls`); every request in
/// `access.log` with its protocol. After `per_connection` requests nginx ends a
/// connection with a graceful GOAWAY.
fn nginx_h2(tls: bool, per_connection: u64) -> Server {
    let dir = TempDir::new("nginx-h2");
    let root = dir.path("root");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::write(root.join("1k.txt"), "x".repeat(1024)).unwrap();
    let port = free_port();
    let listen = if tls {
        make_certificates(&dir);
        format!(
            "listen 127.0.0.1:{port} ssl http2; ssl_certificate {}; ssl_certificate_key {};",
            dir.path("cert.pem").display(),
            dir.path("key.pem").display()
        )
    } else {
        format!("listen 127.0.0.1:{port} http2;")
    };
    let d = dir.0.display();
    let user = if is_root() { "user root root;" } else { "" };
    let conf = format!(
        "{user}\nworker_processes 1;\nmaster_process off;\ndaemon off;\npid {d}/nginx.pid;\nerror_log {d}/error.log warn;\n\
         events {{ worker_connections 1024; }}\n\
         http {{\n  log_format p '$server_protocol $status';\n  access_log {d}/access.log p;\n  client_body_temp_path {d}/body;\n  proxy_temp_path {d}/proxy;\n  fastcgi_temp_path {d}/fastcgi;\n  uwsgi_temp_path {d}/uwsgi;\n  scgi_temp_path {d}/scgi;\n  keepalive_requests {per_connection};\n\
         server {{\n    {listen}\n    root {};\n  }}\n}}\n",
        root.display()
    );
    nginx_like("nginx", &conf, port, dir)
}

/// Lines of nginx's access log (`$server_protocol $status`) per protocol, once the
/// log holds `at_least` lines (nginx writes each after its response).
fn access_log(s: &Server, at_least: usize) -> (usize, usize) {
    let path = s.dir.path("access.log");
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        if text.lines().count() >= at_least || Instant::now() > deadline {
            let h2 = text.lines().filter(|l| *l == "HTTP/2.0 200").count();
            let h1 = text.lines().filter(|l| *l == "HTTP/1.1 200").count();
            return (h2, h1);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn step(json: &std::path::Path) -> serde_json::Value {
    read_json(json)["steps"][0].clone()
}

#[test]
fn h2c_against_nginx_counts_exactly_on_shared_connections() {
    if !have("nginx") {
        return;
    }
    let s = nginx_h2(false, 1_000_000);
    let dir = TempDir::new("h2c");
    let json = dir.path("r.json");
    let out = ok(&run(&[
        "run",
        "--http2",
        "--streams",
        "10",
        "-c",
        "20",
        "-n",
        "3000",
        &format!("http://127.0.0.1:{}/1k.txt", s.port),
        "-o",
        json.to_str().unwrap(),
    ]));
    let st = step(&json);
    assert_eq!(st["statuses"]["200"], 3000, "{st}");
    // 20 clients, 10 streams each connection: 2 connections, both HTTP/2.
    assert_eq!(st["connections_opened"], 2, "{st}");
    assert_eq!(st["connections_http2"], 2, "{st}");
    assert!(out.contains("HTTP/2 (10 streams per connection)"), "{out}");
    assert_eq!(access_log(&s, 3000), (3000, 0));
    assert_eq!(
        read_json(&json)["settings"]["http2_streams"],
        10,
        "the run says what was asked"
    );
}

/// `hakaru ab --http2` against nginx's h2c: nginx's own log says every request came
/// as HTTP/2, and the result that every connection was.
#[test]
fn ab_over_h2c_against_nginx_logs_every_request_as_http2() {
    if !have("nginx") {
        return;
    }
    let s = nginx_h2(false, 1_000_000);
    let dir = TempDir::new("ab-h2c");
    let json = dir.path("r.json");
    let out = ok(&run(&[
        "ab",
        "-k",
        "--http2",
        "--streams",
        "4",
        "-c",
        "8",
        "-n",
        "800",
        "-o",
        json.to_str().unwrap(),
        &format!("http://127.0.0.1:{}/1k.txt", s.port),
    ]));
    assert!(out.contains("Complete requests:      800"), "{out}");
    let st = step(&json);
    assert_eq!(st["statuses"]["200"], 800, "{st}");
    assert_eq!(st["connections_http2"], 2, "{st}");
    assert_eq!(access_log(&s, 800), (800, 0));
}

/// A graceful GOAWAY (nginx's `keepalive_requests`) is not an error: the streams it
/// covers are answered, the requests after it go on a new connection.
#[test]
fn graceful_goaway_moves_requests_to_a_new_connection_without_errors() {
    if !have("nginx") {
        return;
    }
    let s = nginx_h2(false, 100);
    let dir = TempDir::new("h2-graceful");
    let json = dir.path("r.json");
    ok(&run(&[
        "run",
        "--http2",
        "--streams",
        "10",
        "-c",
        "20",
        "-n",
        "2000",
        &format!("http://127.0.0.1:{}/1k.txt", s.port),
        "-o",
        json.to_str().unwrap(),
    ]));
    let st = step(&json);
    assert_eq!(st["statuses"]["200"], 2000, "{st}");
    assert!(st["errors"].as_object().unwrap().is_empty(), "{st}");
    // 100 requests a connection: at least 20 connections.
    assert!(st["connections_http2"].as_u64().unwrap() >= 20, "{st}");
    assert_eq!(access_log(&s, 2000), (2000, 0));
}

#[test]
fn h2_over_tls_by_alpn_against_nginx_and_http11_where_h2_is_not_offered() {
    if !have("nginx") {
        return;
    }
    let s = nginx_h2(true, 1_000_000);
    let dir = TempDir::new("h2-tls");
    let json = dir.path("r.json");
    let ca = s.dir.path("ca.pem");
    ok(&run(&[
        "run",
        "--http2",
        "--streams",
        "4",
        "-c",
        "8",
        "-n",
        "1000",
        "--cacert",
        ca.to_str().unwrap(),
        &format!("https://127.0.0.1:{}/1k.txt", s.port),
        "-o",
        json.to_str().unwrap(),
    ]));
    let st = step(&json);
    assert_eq!(st["statuses"]["200"], 1000, "{st}");
    assert_eq!(st["connections_http2"], 2, "{st}");
    assert!(st["tls_handshake"]["count"].as_u64().unwrap() >= 2, "{st}");
    assert_eq!(access_log(&s, 1000), (1000, 0));

    // nginx with TLS but no http2: ALPN picks http/1.1, and every client goes on
    // with a connection of its own.
    let plain = nginx(&[("1k.txt", &[b'y'; 1024])], true);
    let json = dir.path("h1.json");
    let out = ok(&run(&[
        "run",
        "--http2",
        "--streams",
        "4",
        "-c",
        "8",
        "-n",
        "400",
        "--cacert",
        plain.dir.path("ca.pem").to_str().unwrap(),
        &format!("https://127.0.0.1:{}/1k.txt", plain.port),
        "-o",
        json.to_str().unwrap(),
    ]));
    let st = step(&json);
    assert_eq!(st["statuses"]["200"], 400, "{st}");
    assert!(st.get("connections_http2").is_none(), "{st}");
    assert_eq!(st["connections_opened"], 8, "{st}");
    assert!(out.contains("the server did not pick h2"), "{out}");
}

#[test]
fn embedded_target_serves_http2_counted_exactly_in_both_load_models() {
    let server = start_basic(
        "127.0.0.1:0".parse().unwrap(),
        ServerOptions {
            threads: 1,
            http2: true,
            ..Default::default()
        },
    )
    .expect("the HTTP/2 target starts");
    let url = format!("http://{}/", server.addr);
    let dir = TempDir::new("h2-serve");
    let closed = dir.path("closed.json");
    ok(&run(&[
        "run",
        "--http2",
        "--streams",
        "5",
        "-c",
        "10",
        "-n",
        "2000",
        &url,
        "-o",
        closed.to_str().unwrap(),
    ]));
    assert_eq!(step(&closed)["statuses"]["200"], 2000);
    assert_eq!(server.stats.requests(), 2000);
    assert_eq!(server.stats.connections(), 2);

    // Open model: 4 clients at 200/s for 1 s, latency from each due time.
    let open = dir.path("open.json");
    ok(&run(&[
        "run",
        "--http2",
        "--streams",
        "2",
        "-c",
        "4",
        "--rate",
        "200",
        "-d",
        "1s",
        &url,
        "-o",
        open.to_str().unwrap(),
    ]));
    let st = step(&open);
    let answered = st["statuses"]["200"].as_u64().unwrap();
    // The schedule's 200 requests, each answered, cut off or counted as never sent: a
    // count, where a share answered (150 of 200) is the machine's speed (a loaded one
    // core sent 104 of them in the second, and counted the other 96 as dropped).
    let due = st["total_requests"].as_u64().unwrap()
        + st["unfinished"].as_u64().unwrap()
        + st["dropped"].as_u64().unwrap();
    assert!((199..=201).contains(&due) && answered > 0, "{st}");
    assert!(
        st["service"].is_object(),
        "open model records service time: {st}"
    );
    assert_eq!(st["connections_http2"], 2, "{st}");
    // Every request the server answered is one hakaru sent: answered or cut off.
    let unfinished = st["unfinished"].as_u64().unwrap();
    let served = server.stats.requests() - 2000;
    assert!(
        served >= answered && served <= answered + unfinished,
        "server {served}, answered {answered}, unfinished {unfinished}"
    );
}

/// How the hostile HTTP/2 server misbehaves.
#[derive(Debug, Clone, Copy)]
enum Hostile {
    /// Answers 200 to `n` streams on each connection, then GOAWAY(INTERNAL_ERROR)
    /// with the streams in flight unanswered.
    GoAwayAfter(u64),
    /// Resets every other stream with ENHANCE_YOUR_CALM; answers the rest.
    ResetEveryOther,
    /// Grants no window: a request body can never be sent.
    NoWindow,
    /// Allows two concurrent streams a connection (SETTINGS_MAX_CONCURRENT_STREAMS),
    /// fewer than the clients that share it: the others wait for a free stream.
    TwoStreams,
    /// Answers with a header too large for one frame (HEADERS and CONTINUATION) and
    /// a body larger than a stream's receive window: the client must give window back.
    Large,
}

/// The large answer's body: past hakaru's 2 MiB stream window, and four of them past
/// its 5 MiB connection window.
const LARGE_BODY: usize = 2 * 1024 * 1024 + 200_000;

/// An `h2` server on its own thread, stopped when the test's process ends (it only
/// accepts on loopback). Counts the streams it saw.
fn hostile(mode: Hostile) -> (SocketAddr, Arc<AtomicU64>, JoinHandle<()>) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let addr = listener.local_addr().unwrap();
    let seen = Arc::new(AtomicU64::new(0));
    let count = seen.clone();
    let handle = std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(listener).unwrap();
            // Bounded: the test's run is a few seconds.
            let stop = tokio::time::sleep(Duration::from_secs(30));
            tokio::pin!(stop);
            loop {
                tokio::select! {
                    _ = &mut stop => return,
                    accepted = listener.accept() => {
                        let Ok((tcp, _)) = accepted else { continue };
                        tokio::spawn(connection(tcp, mode, count.clone()));
                    }
                }
            }
        });
    });
    (addr, seen, handle)
}

async fn connection(tcp: tokio::net::TcpStream, mode: Hostile, seen: Arc<AtomicU64>) {
    let mut builder = h2::server::Builder::new();
    if let Hostile::NoWindow = mode {
        builder.initial_window_size(0);
    }
    if let Hostile::TwoStreams = mode {
        builder.max_concurrent_streams(2);
    }
    let Ok(mut conn) = builder.handshake::<_, Bytes>(tcp).await else {
        return;
    };
    let mut on_this = 0u64;
    let mut held = Vec::new();
    while let Some(Ok((req, mut respond))) = conn.accept().await {
        seen.fetch_add(1, Ordering::Relaxed);
        on_this += 1;
        match mode {
            Hostile::GoAwayAfter(n) if on_this > n => {
                held.push(respond);
                conn.abrupt_shutdown(h2::Reason::INTERNAL_ERROR);
            }
            Hostile::ResetEveryOther if on_this.is_multiple_of(2) => {
                respond.send_reset(h2::Reason::ENHANCE_YOUR_CALM)
            }
            // Never read the body, never release its window: the client stalls.
            Hostile::NoWindow => held.push(respond),
            Hostile::Large => {
                let resp = http::Response::builder()
                    .status(200)
                    .header("x-large", "x".repeat(40_000))
                    .body(())
                    .unwrap();
                if let Ok(mut body) = respond.send_response(resp, false) {
                    let _ = body.send_data(Bytes::from(vec![b'a'; LARGE_BODY]), true);
                }
            }
            _ => {
                drop(req);
                let resp = http::Response::builder().status(200).body(()).unwrap();
                if let Ok(mut body) = respond.send_response(resp, false) {
                    let _ = body.send_data(Bytes::from_static(b"ok"), true);
                }
            }
        }
    }
    // Let the GOAWAY and the last frames leave before the socket closes.
    let _ = std::future::poll_fn(|cx| conn.poll_closed(cx)).await;
}

/// `hakaru run --http2` against a hostile mode: the step's JSON, and how long it took.
fn run_hostile(addr: SocketAddr, extra: &[&str]) -> (serde_json::Value, Duration) {
    run_hostile_for(addr, "500ms", extra)
}

fn run_hostile_for(
    addr: SocketAddr,
    timeout: &str,
    extra: &[&str],
) -> (serde_json::Value, Duration) {
    let dir = TempDir::new("h2-hostile");
    let json = dir.path("r.json");
    let url = format!("http://{addr}/");
    let mut args = vec![
        "run",
        "--http2",
        "--streams",
        "4",
        "-c",
        "8",
        "-d",
        "1s",
        "--timeout",
        timeout,
    ];
    args.extend_from_slice(extra);
    args.extend_from_slice(&[url.as_str(), "-o", json.to_str().unwrap()]);
    let t0 = Instant::now();
    let out = run(&args);
    let took = t0.elapsed();
    assert!(
        out.status.code().is_some(),
        "hakaru died by a signal: {}",
        stderr(&out)
    );
    (step(&json), took)
}

fn errors(st: &serde_json::Value, kind: &str) -> u64 {
    st["errors"][kind].as_u64().unwrap_or(0)
}

fn sample(st: &serde_json::Value, kind: &str) -> String {
    st["error_samples"][kind].as_str().unwrap_or("").to_owned()
}

#[test]
fn goaway_mid_run_is_counted_as_goaway_and_the_client_reconnects() {
    let (addr, _, _) = hostile(Hostile::GoAwayAfter(50));
    let (st, took) = run_hostile(addr, &[]);
    assert!(errors(&st, "go_away") > 0, "{st}");
    assert!(
        sample(&st, "go_away").contains("GOAWAY INTERNAL_ERROR"),
        "{st}"
    );
    // Each GOAWAY ends a connection; the clients open new ones and go on.
    assert!(st["connections_opened"].as_u64().unwrap() > 2, "{st}");
    assert!(st["statuses"]["200"].as_u64().unwrap() > 50, "{st}");
    assert!(took < Duration::from_secs(5), "took {took:?}");
}

#[test]
fn rst_stream_is_counted_with_its_code() {
    let (addr, seen, _) = hostile(Hostile::ResetEveryOther);
    let (st, took) = run_hostile(addr, &[]);
    let resets = errors(&st, "stream_reset");
    let ok = st["statuses"]["200"].as_u64().unwrap();
    assert!(resets > 0, "{st}");
    assert!(
        sample(&st, "stream_reset").contains("RST_STREAM ENHANCE_YOUR_CALM"),
        "{st}"
    );
    // A reset leaves the connection alone: the two connections carry everything.
    assert_eq!(st["connections_opened"], 2, "{st}");
    // Every stream the server saw is an answer, a reset, or cut off at the end.
    let unfinished = st["unfinished"].as_u64().unwrap();
    let saw = seen.load(Ordering::Relaxed);
    assert!(
        saw >= ok + resets && saw <= ok + resets + unfinished,
        "server saw {saw}: {ok} ok, {resets} resets, {unfinished} unfinished"
    );
    assert!(took < Duration::from_secs(5), "took {took:?}");
}

/// Issue 22 lists a flow-control stall among HTTP/2's error kinds: it counted as a
/// plain `timeout` before, the same as a server that never answers.
#[test]
fn a_server_that_never_grants_window_ends_as_flow_control_stalls_on_time() {
    let (addr, _, _) = hostile(Hostile::NoWindow);
    // Past the protocol's first 64 KiB windows, which a client may spend before the
    // server's SETTINGS (window 0) arrive: a shorter body is all sent, and its
    // request then waits for an answer, a `timeout`.
    let body = "x".repeat(70_000);
    let (st, took) = run_hostile(addr, &["-m", "POST", "-b", &body]);
    assert!(errors(&st, "flow_control_stall") > 0, "{st}");
    assert_eq!(errors(&st, "timeout"), 0, "{st}");
    assert!(
        sample(&st, "flow_control_stall").contains("no HTTP/2 window"),
        "{st}"
    );
    assert_eq!(st["statuses"].as_object().map_or(0, |m| m.len()), 0, "{st}");
    // Duration 1 s + timeout 0.5 s, and the process's start and end.
    assert!(took < Duration::from_secs(4), "took {took:?}");
}

/// The same server answers nothing: a GET has no body to stall, so it waits for
/// its response and times out as `timeout`, not as a stall.
#[test]
fn a_request_without_a_body_that_is_never_answered_is_a_timeout_not_a_stall() {
    let (addr, _, _) = hostile(Hostile::NoWindow);
    let (st, took) = run_hostile(addr, &[]);
    assert!(errors(&st, "timeout") > 0, "{st}");
    assert_eq!(errors(&st, "flow_control_stall"), 0, "{st}");
    assert!(took < Duration::from_secs(4), "took {took:?}");
}

/// Regression: a client whose stream had just ended opened its next one before the
/// client woken for that stream ran, so the waiting clients starved into timeouts.
#[test]
fn clients_wait_for_a_free_stream_under_the_servers_concurrency_limit() {
    let (addr, seen, _) = hostile(Hostile::TwoStreams);
    let (st, took) = run_hostile(addr, &[]);
    // Four clients share each connection, the server allows two streams: the other
    // two wait for one to end rather than be refused.
    assert!(st["errors"].as_object().unwrap().is_empty(), "{st}");
    assert_eq!(st["connections_opened"], 2, "{st}");
    let ok = st["statuses"]["200"].as_u64().unwrap();
    assert!(ok > 50, "{st}");
    let saw = seen.load(Ordering::Relaxed);
    let unfinished = st["unfinished"].as_u64().unwrap();
    assert!(
        saw >= ok && saw <= ok + unfinished,
        "server saw {saw}, {st}"
    );
    assert!(took < Duration::from_secs(5), "took {took:?}");
}

#[test]
fn continuation_headers_and_bodies_past_the_windows_are_read_whole() {
    let (addr, _, _) = hostile(Hostile::Large);
    let (st, took) = run_hostile_for(addr, "20s", &[]);
    // Without WINDOW_UPDATE from the client, every answer would stall at 2 MiB.
    assert!(st["errors"].as_object().unwrap().is_empty(), "{st}");
    let ok = st["statuses"]["200"].as_u64().unwrap();
    assert!(ok >= 4, "{st}");
    assert!(took < Duration::from_secs(30), "took {took:?}");
}

/// One request over h2c with prior knowledge (the docs store under `serve --http2`
/// speaks nothing else): its status and body.
pub(crate) fn h2c(port: u16, method: &str, path: &str) -> (u16, String) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let tcp = tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .unwrap();
        let (send, conn) = h2::client::handshake(tcp).await.unwrap();
        tokio::spawn(async move {
            let _ = conn.await;
        });
        let mut send = send.ready().await.unwrap();
        let req = http::Request::builder()
            .method(method)
            .uri(format!("http://127.0.0.1:{port}{path}"))
            .body(())
            .unwrap();
        let (resp, _) = send.send_request(req, true).unwrap();
        let resp = resp.await.unwrap();
        let status = resp.status().as_u16();
        let mut body = resp.into_body();
        let mut text = Vec::new();
        while let Some(chunk) = body.data().await {
            let chunk = chunk.unwrap();
            let _ = body.flow_control().release_capacity(chunk.len());
            text.extend_from_slice(&chunk);
        }
        (status, String::from_utf8(text).unwrap())
    })
}

/// `bulk --http2` against the embedded document store on h2c: every document the
/// writers were told was kept is in the store, and the step says HTTP/2 carried it.
#[test]
fn bulk_over_h2c_accounts_for_every_document() {
    let s = hakaru_serve(&["--docs", "--http2", "--threads", "2"], "docs-h2");
    assert_eq!(h2c(s.port, "PUT", "/h2bench").0, 201);
    let dir = TempDir::new("bulk-h2");
    let json = dir.path("bulk.json");
    let db = format!("http://127.0.0.1:{}/h2bench", s.port);
    let out = run(&[
        "bulk",
        &db,
        "--http2",
        "--streams",
        "2",
        "--batch-sizes",
        "10,100",
        "--writers",
        "4",
        "--count",
        "400",
        "-o",
        json.to_str().unwrap(),
    ]);
    let text = ok(&out);
    let v = read_json(&json);
    assert_eq!(v["settings"]["http2_streams"], 2, "{text}");
    let steps = v["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 2, "{text}");
    for st in steps {
        assert_eq!(st["bulk"]["docs_acknowledged"], 400, "{st}");
        // 4 writers, 2 streams a connection: at most 2 connections, all HTTP/2. Not
        // exactly 2: at batch 100 there are 4 requests, and on a busy machine one
        // writer took 3 of them before a writer of the other connection sent any
        // (a run here beside two builds opened 1 connection).
        let opened = st["connections_opened"].as_u64().unwrap();
        assert!((1..=2).contains(&opened), "{st}");
        assert_eq!(st["connections_http2"], opened, "{st}");
        assert_eq!(st["statuses"].as_object().unwrap().len(), 1, "{st}");
    }
    let (status, info) = h2c(s.port, "GET", "/h2bench");
    assert_eq!(status, 200, "{info}");
    let info: serde_json::Value = serde_json::from_str(&info).unwrap();
    assert_eq!(
        info["doc_count"], 800,
        "the store holds what was acknowledged"
    );
}

/// A scenario's `http2 = true` and `streams = N` carry every phase over HTTP/2, and
/// `streams` without `http2` is refused before any load, naming the line.
#[test]
fn suite_phases_speak_http2_when_the_scenario_says_so() {
    let server = start_basic(
        "127.0.0.1:0".parse().unwrap(),
        ServerOptions {
            threads: 1,
            http2: true,
            ..Default::default()
        },
    )
    .expect("the HTTP/2 target starts");
    let dir = TempDir::new("suite-h2");
    let scenario = dir.write(
        "s.toml",
        &format!(
            "http2 = true\nstreams = 3\n\n[[phase]]\nname = \"closed\"\nduration = \"1s\"\nclients = 6\n\
             [[phase.workload]]\nurl = \"http://{a}/\"\n\n[[phase]]\nname = \"open\"\nduration = \"1s\"\n\
             rate = 200\nclients = 3\n[[phase.workload]]\nurl = \"http://{a}/bytes/10\"\n",
            a = server.addr
        ),
    );
    let json = dir.path("r.json");
    let text = ok(&run(&[
        "suite",
        scenario.to_str().unwrap(),
        "-o",
        json.to_str().unwrap(),
    ]));
    let v = read_json(&json);
    assert_eq!(v["settings"]["http2_streams"], 3, "{text}");
    let steps = v["steps"].as_array().unwrap();
    let mut answered = 0;
    for st in steps {
        assert!(st["connections_http2"].as_u64().unwrap() > 0, "{st}");
        assert_eq!(st["connections_http2"], st["connections_opened"], "{st}");
        answered += st["statuses"]["200"].as_u64().unwrap();
    }
    assert!(answered > 100, "{text}");
    let served = server.stats.requests();
    assert!(served >= answered, "server {served}, answered {answered}");

    let bad = dir.write(
        "bad.toml",
        "streams = 3\n\n[[phase]]\nname = \"p\"\nduration = \"1s\"\nclients = 1\n\
         [[phase.workload]]\nurl = \"http://127.0.0.1:1/\"\n",
    );
    let out = run(&["suite", bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let e = stderr(&out);
    assert!(
        e.contains("bad.toml:1: key `streams`: needs `http2 = true`"),
        "{e}"
    );
}

/// `stream send --http2` to an h2c receiver: every batch a stream, senders sharing
/// connections, every record delivered.
#[test]
fn stream_send_posts_batches_over_h2c() {
    let server = start_basic(
        "127.0.0.1:0".parse().unwrap(),
        ServerOptions {
            threads: 1,
            http2: true,
            ..Default::default()
        },
    )
    .expect("the HTTP/2 target starts");
    let o = run(&[
        "stream",
        "send",
        "--to",
        &format!("http://{}/", server.addr),
        "--http2",
        "--streams",
        "2",
        "--record-size",
        "200",
        "-n",
        "500",
        "-c",
        "4",
        "--batch",
        "100",
        "--json",
    ]);
    ok(&o);
    let rep: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(rep["senders"][0]["records"], 2000, "{rep}");
    // 4 senders × 5 batches; a worker thread per core (at most 4), its senders in
    // groups of 2 to a connection.
    assert_eq!(server.stats.requests(), 20);
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(4);
    let connections: usize = (0..workers)
        .map(|w| (w..4).step_by(workers).count().div_ceil(2))
        .sum();
    // And the one connection the sink opens before any load, to refuse a dead port.
    assert_eq!(server.stats.connections(), connections as u64 + 1);
    let refused = run(&[
        "stream",
        "send",
        "--to",
        "file:/tmp/x",
        "--http2",
        "-n",
        "1",
    ]);
    assert_eq!(refused.status.code(), Some(2), "{}", stderr(&refused));
    assert!(stderr(&refused).contains("--http2"), "{}", stderr(&refused));
}

/// A raw HTTP/2 server whose every response is an HPACK "bomb": `:status 200`, a
/// 4,000-byte header inserted into the dynamic table, then that entry named 12,000
/// times (16 KB of block, 48 MB of header list). Written by hand: a conforming
/// encoder (h2's) honours hakaru's table size of 0 and indexes nothing. One thread a
/// connection; the listener stops accepting after 30 s.
fn hpack_bomb_server() -> SocketAddr {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let addr = listener.local_addr().unwrap();
    let mut block = vec![0x88, 0x40, 6];
    block.extend_from_slice(b"x-bomb");
    // 4000 as a 7-bit-prefix integer: 127, then (4000 - 127) in 7-bit groups.
    block.push(0x7f);
    let rest = 4000 - 127;
    block.extend_from_slice(&[(rest % 128) as u8 | 0x80, (rest / 128) as u8]);
    block.extend(std::iter::repeat_n(b'a', 4000));
    block.extend(std::iter::repeat_n(0x80 | 62, 12_000));
    assert!(block.len() < 16_384, "one frame at the default size");
    std::thread::spawn(move || {
        let deadline = Instant::now() + Duration::from_secs(30);
        while Instant::now() < deadline {
            let Ok((mut c, _)) = listener.accept() else {
                std::thread::sleep(Duration::from_millis(5));
                continue;
            };
            let block = block.clone();
            std::thread::spawn(move || {
                c.set_nonblocking(false).unwrap();
                let _ = c.set_read_timeout(Some(Duration::from_secs(10)));
                let mut preface = [0u8; 24];
                if c.read_exact(&mut preface).is_err()
                    || c.write_all(&[0, 0, 0, 4, 0, 0, 0, 0, 0]).is_err()
                {
                    return;
                }
                let mut head = [0u8; 9];
                while c.read_exact(&mut head).is_ok() {
                    let len = usize::from(head[0]) << 16
                        | usize::from(head[1]) << 8
                        | usize::from(head[2]);
                    let mut payload = vec![0u8; len];
                    if c.read_exact(&mut payload).is_err() {
                        return;
                    }
                    let (kind, flags) = (head[3], head[4]);
                    let mut out = Vec::new();
                    if kind == 4 && flags & 1 == 0 {
                        out.extend_from_slice(&[0, 0, 0, 4, 1, 0, 0, 0, 0]);
                    }
                    if kind == 1 {
                        let n = block.len();
                        out.extend_from_slice(&[(n >> 16) as u8, (n >> 8) as u8, n as u8, 1, 0x5]);
                        out.extend_from_slice(&head[5..9]);
                        out.extend_from_slice(&block);
                    }
                    if c.write_all(&out).is_err() {
                        return;
                    }
                }
            });
        }
    });
    addr
}

/// Issue 32: a 12 KB header block naming one 4 KB table entry 12,000 times (48 MB of
/// header list) was a 200 at 21 ms a response; it is a protocol error, and a run of
/// nothing else exits 1.
#[test]
fn an_hpack_bomb_is_a_protocol_error_not_a_200() {
    let addr = hpack_bomb_server();
    let dir = TempDir::new("h2-bomb");
    let json = dir.path("r.json");
    let url = format!("http://{addr}/");
    let out = run(&[
        "run",
        "--http2",
        "-c",
        "2",
        "-n",
        "20",
        "--timeout",
        "5",
        &url,
        "-o",
        json.to_str().unwrap(),
        "-q",
    ]);
    let st = step(&json);
    assert_eq!(out.status.code(), Some(1), "{st}\n{}", stderr(&out));
    assert_eq!(st["statuses"]["200"].as_u64().unwrap_or(0), 0, "{st}");
    assert!(errors(&st, "protocol") > 0, "{st}");
    assert!(sample(&st, "protocol").contains("HPACK bomb"), "{st}");
}

/// A server that answers the preface with endless PING (or empty SETTINGS) frames
/// and never reads again.
fn control_flood_server(kind: u8) -> SocketAddr {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let addr = listener.local_addr().unwrap();
    let len = if kind == 6 { 8 } else { 0 };
    let mut burst = Vec::new();
    for _ in 0..1000 {
        burst.extend_from_slice(&[0, 0, len, kind, 0, 0, 0, 0, 0]);
        burst.extend(std::iter::repeat_n(7u8, len as usize));
    }
    std::thread::spawn(move || {
        let deadline = Instant::now() + Duration::from_secs(20);
        while Instant::now() < deadline {
            let Ok((mut c, _)) = listener.accept() else {
                std::thread::sleep(Duration::from_millis(5));
                continue;
            };
            let burst = burst.clone();
            std::thread::spawn(move || {
                c.set_nonblocking(false).unwrap();
                let _ = c.set_write_timeout(Some(Duration::from_secs(5)));
                let mut preface = [0u8; 24];
                if c.read_exact(&mut preface).is_err() {
                    return;
                }
                let _ = c.write_all(&[0, 0, 0, 4, 0, 0, 0, 0, 0]);
                while Instant::now() < deadline && c.write_all(&burst).is_ok() {}
            });
        }
    });
    addr
}

/// Issue 36 item 3: a server flooding PING (or SETTINGS) and never reading grew
/// hakaru to 2.4–2.7 GB in 3–6 s, acknowledgements piling up unsent. The connection
/// now ends as a protocol error past 64 KiB of them, the run on time, memory bounded.
#[test]
fn a_ping_or_settings_flood_ends_the_connection_not_the_machine() {
    for (kind, name) in [(6u8, "PING"), (4u8, "SETTINGS")] {
        let addr = control_flood_server(kind);
        let dir = TempDir::new("h2-flood");
        let json = dir.path("r.json");
        let mut child = crate::util::hakaru()
            .args(["run", "--http2", "--threads", "1", "-c", "2", "-d", "2"])
            .args(["--timeout", "1s", "-q", "-o", json.to_str().unwrap()])
            .arg(format!("http://{addr}/"))
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let (pid, started) = (child.id(), Instant::now());
        let mut hwm = 0;
        let status = loop {
            if let Some(st) = child.try_wait().unwrap() {
                break st;
            }
            hwm = hwm.max(crate::hostile::vm_hwm_kb(pid).unwrap_or(0));
            if started.elapsed() > Duration::from_secs(15) {
                let _ = child.kill();
                panic!("{name} flood: still running after 15 s");
            }
            std::thread::sleep(Duration::from_millis(10));
        };
        assert!(hwm < 100 * 1024, "{name} flood: peak memory {hwm} kB");
        assert_eq!(status.code(), Some(1), "{name} flood: nothing can succeed");
        let st = step(&json);
        assert!(errors(&st, "protocol") > 0, "{name} flood: {st}");
        assert!(sample(&st, "protocol").contains("flood"), "{name}: {st}");
    }
}
