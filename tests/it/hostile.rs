//! The hostile target: an in-process server on loopback that misbehaves in one way per
//! mode (refuses, stays silent, resets, lies about lengths, drips, floods, speaks
//! garbage or HTTP/1.0, bends chunked encoding, answers a TLS handshake with
//! nonsense), and one table-driven test that points `hakaru run` at every mode under
//! both load models, with and without keep-alive. Each case must end on time, without
//! a panic, with bounded memory, and with every failure counted under the kind the
//! table names. A new mode is one variant, one `serve` arm and one table line.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::util::*;

/// How the target misbehaves.
#[derive(Debug, Clone, Copy)]
enum Mode {
    /// Nothing listens: the port is closed.
    Refuse,
    /// Accepts and reads, never answers.
    Silent,
    /// Half a status line and headers, then a TCP reset.
    ResetMidHead,
    /// A head promising 100 bytes, 10 of them, then a TCP reset.
    ResetMidBody,
    /// Bytes that are not HTTP, then close.
    Garbage,
    /// A valid response, one byte every 50 ms.
    Drip,
    /// Content-Length larger than the body, then a clean close.
    ShortBody,
    /// A 2 GB body promised and streamed.
    HugeBody,
    /// A 1 MB header line.
    HugeHeader,
    /// Answers N requests on a connection, then closes without saying so.
    CloseAfter(u32),
    /// HTTP/1.0, the body delimited by the close.
    Http10,
    /// Valid chunked edge cases: extensions, leading zeros, upper-case hex, trailers,
    /// the message split across many writes.
    ChunkedEdges,
    /// A chunk size that is not hex.
    ChunkedBadSize,
    /// A chunk cut short by a close.
    ChunkedCut,
    /// 100 Continue and 103 Early Hints before the response.
    Interim,
    /// A TLS port that answers the ClientHello with a plain-text HTTP error.
    TlsGarbage,
    /// Each answer followed at once by a second response no request asked for.
    Unsolicited,
    /// Two Content-Length headers that disagree (RFC 9112: the framing is unknown).
    ConflictingLength,
    /// A head of 100,000 header lines.
    ManyHeaders,
}

/// One line of the table: the mode, the error kinds its failures may land in, and
/// whether requests get answered.
struct Case {
    mode: Mode,
    kinds: &'static [&'static str],
    answered: bool,
}

const fn case(mode: Mode, kinds: &'static [&'static str], answered: bool) -> Case {
    Case {
        mode,
        kinds,
        answered,
    }
}

const CASES: &[Case] = &[
    case(Mode::Refuse, &["connect"], false),
    case(Mode::Silent, &["timeout"], false),
    case(Mode::ResetMidHead, &["reset"], false),
    case(Mode::ResetMidBody, &["reset"], false),
    case(Mode::Garbage, &["malformed"], false),
    case(Mode::Drip, &["timeout"], false),
    case(Mode::ShortBody, &["truncated"], false),
    case(Mode::HugeBody, &["timeout"], false),
    case(Mode::HugeHeader, &["malformed"], false),
    case(Mode::CloseAfter(3), &[], true),
    case(Mode::Http10, &[], true),
    case(Mode::ChunkedEdges, &[], true),
    case(Mode::ChunkedBadSize, &["malformed"], false),
    case(Mode::ChunkedCut, &["truncated"], false),
    case(Mode::Interim, &[], true),
    case(Mode::TlsGarbage, &["tls"], false),
    // Without keep-alive the extra response goes with the closed connection.
    case(Mode::Unsolicited, &["unsolicited"], true),
    case(Mode::ConflictingLength, &["malformed"], false),
    case(Mode::ManyHeaders, &["malformed"], false),
];

/// What a mode must show beyond its table line (issue 20's wire cases): an error of
/// this kind whose sample says this, under keep-alive.
fn must_see(mode: Mode) -> Option<(&'static str, &'static str)> {
    match mode {
        Mode::Unsolicited => Some(("unsolicited", "before the request was written")),
        Mode::ConflictingLength => Some(("malformed", "conflicting Content-Length")),
        Mode::ManyHeaders => Some(("malformed", "too many headers")),
        _ => None,
    }
}

/// A running hostile target; stopped (its accept loop joined) on drop. Connection
/// threads end when hakaru closes its side.
struct Hostile {
    addr: SocketAddr,
    stop: Arc<AtomicBool>,
    accept: Option<JoinHandle<()>>,
}

impl Hostile {
    fn start(mode: Mode) -> Hostile {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        if matches!(mode, Mode::Refuse) {
            drop(listener);
            return Hostile {
                addr,
                stop,
                accept: None,
            };
        }
        let s = stop.clone();
        let accept = std::thread::spawn(move || {
            for conn in listener.incoming() {
                if s.load(Ordering::Relaxed) {
                    return;
                }
                let Ok(mut c) = conn else { continue };
                let _ = c.set_read_timeout(Some(Duration::from_secs(20)));
                let _ = c.set_write_timeout(Some(Duration::from_secs(20)));
                std::thread::spawn(move || serve(mode, &mut c));
            }
        });
        Hostile {
            addr,
            stop,
            accept: Some(accept),
        }
    }
}

impl Drop for Hostile {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(a) = self.accept.take() {
            // Wake the accept loop so it sees the flag.
            let _ = TcpStream::connect(self.addr);
            let _ = a.join();
        }
    }
}

/// Read one request head; false at EOF or error.
fn read_request(c: &mut TcpStream) -> bool {
    let mut head = Vec::new();
    let mut b = [0u8; 4096];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
        match c.read(&mut b) {
            Ok(0) | Err(_) => return false,
            Ok(n) => head.extend_from_slice(&b[..n]),
        }
    }
    true
}

/// Close with a TCP reset rather than a FIN.
fn reset(c: TcpStream) {
    let _ = socket2::SockRef::from(&c).set_linger(Some(Duration::ZERO));
    drop(c);
}

fn serve(mode: Mode, c: &mut TcpStream) {
    let mut served = 0u32;
    loop {
        if !read_request(c) {
            return;
        }
        let ok = match mode {
            Mode::Refuse => return,
            Mode::Silent => {
                let mut b = [0u8; 4096];
                while matches!(c.read(&mut b), Ok(n) if n > 0) {}
                return;
            }
            Mode::ResetMidHead => {
                let _ = c.write_all(b"HTTP/1.1 200 OK\r\nContent-Len");
                std::thread::sleep(Duration::from_millis(5));
                return reset(c.try_clone().unwrap());
            }
            Mode::ResetMidBody => {
                let _ = c.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n0123456789");
                std::thread::sleep(Duration::from_millis(5));
                return reset(c.try_clone().unwrap());
            }
            Mode::Garbage => {
                let _ = c.write_all(b"\x00\xff garbage, not HTTP at all \x01\x02\r\n\r\n");
                return;
            }
            Mode::Drip => {
                for b in b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello" {
                    if c.write_all(&[*b]).is_err() {
                        return;
                    }
                    std::thread::sleep(Duration::from_millis(50));
                }
                true
            }
            Mode::ShortBody => {
                let _ = c.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\nonly this");
                return;
            }
            Mode::HugeBody => {
                if c.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 2147483648\r\n\r\n")
                    .is_err()
                {
                    return;
                }
                let zeros = vec![0u8; 64 * 1024];
                let mut left: u64 = 2 << 30;
                while left > 0 {
                    let n = left.min(zeros.len() as u64) as usize;
                    if c.write_all(&zeros[..n]).is_err() {
                        return;
                    }
                    left -= n as u64;
                }
                true
            }
            Mode::HugeHeader => {
                let mut r = b"HTTP/1.1 200 OK\r\nX-Big: ".to_vec();
                r.resize(r.len() + (1 << 20), b'a');
                r.extend_from_slice(b"\r\nContent-Length: 0\r\n\r\n");
                c.write_all(&r).is_ok()
            }
            Mode::CloseAfter(n) => {
                if c.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
                    .is_err()
                {
                    return;
                }
                served += 1;
                if served >= n {
                    return;
                }
                true
            }
            Mode::Http10 => {
                let _ =
                    c.write_all(b"HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\nuntil close");
                return;
            }
            Mode::ChunkedEdges => {
                let parts: [&[u8]; 8] = [
                    b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n",
                    b"5;name=value\r\nhel",
                    b"lo\r\n",
                    b"000A\r\n0123456789\r\n",
                    b"1",
                    b"\r\nx\r\n",
                    b"0\r\nX-Trailer: t\r\n",
                    b"\r\n",
                ];
                parts.iter().all(|p| {
                    let r = c.write_all(p).and_then(|_| c.flush());
                    std::thread::sleep(Duration::from_millis(1));
                    r.is_ok()
                })
            }
            Mode::ChunkedBadSize => {
                let _ = c.write_all(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n");
                return;
            }
            Mode::ChunkedCut => {
                let _ =
                    c.write_all(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n100\r\nabc");
                return;
            }
            Mode::Interim => c
                .write_all(
                    b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n\
                      HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
                )
                .is_ok(),
            Mode::TlsGarbage => unreachable!("handled below"),
            Mode::Unsolicited => c
                .write_all(
                    b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok\
                      HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
                )
                .is_ok(),
            Mode::ConflictingLength => {
                let _ = c.write_all(
                    b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 5\r\n\r\nhello",
                );
                return;
            }
            Mode::ManyHeaders => {
                static HEAD: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
                let head = HEAD.get_or_init(|| {
                    let mut r = b"HTTP/1.1 200 OK\r\n".to_vec();
                    for i in 0..100_000 {
                        r.extend_from_slice(format!("X-{i}: v\r\n").as_bytes());
                    }
                    r.extend_from_slice(b"Content-Length: 0\r\n\r\n");
                    r
                });
                let _ = c.write_all(head);
                return;
            }
        };
        if !ok {
            return;
        }
    }
}

/// The TLS mode reads a ClientHello (no CRLF CRLF in it), so it is served apart.
fn serve_tls_garbage(c: &mut TcpStream) {
    let mut b = [0u8; 4096];
    if matches!(c.read(&mut b), Ok(n) if n > 0) {
        let _ = c.write_all(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n");
    }
    let _ = c.flush();
    std::thread::sleep(Duration::from_millis(50));
}

/// Peak resident memory of a running hakaru, from /proc (kB).
///
/// Bug it pins: between fork and exec the child is a copy of this test process, whose
/// resident set (~160 MB with every test running) showed as hakaru's peak now and then.
/// Only a process that already runs hakaru's own image is measured.
pub(crate) fn vm_hwm_kb(pid: u32) -> Option<u64> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let name = s.lines().find_map(|l| l.strip_prefix("Name:"))?.trim();
    if name != "hakaru" {
        return None;
    }
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

const DURATION_S: f64 = 1.0;
const TIMEOUT_MS: u64 = 500;
/// Generous: start-up, a loaded test machine, writing the files.
const SLACK: Duration = Duration::from_secs(8);
/// Peak memory allowed to hakaru in any case, kB: a debug build stays near 18 MB here,
/// so a body or header kept in memory (2 GB, 1 MB per request) cannot hide.
const MAX_HWM_KB: u64 = 64 * 1024;

/// Run one case; returns a description of what went wrong, if anything.
fn run_case(c: &Case, open: bool, keep_alive: bool) -> Result<(), String> {
    let server = match c.mode {
        Mode::TlsGarbage => {
            let listener = TcpListener::bind("127.0.0.1:0").unwrap();
            let addr = listener.local_addr().unwrap();
            std::thread::spawn(move || {
                for conn in listener.incoming().flatten() {
                    let mut conn = conn;
                    std::thread::spawn(move || serve_tls_garbage(&mut conn));
                }
            });
            (None, addr)
        }
        m => {
            let h = Hostile::start(m);
            let a = h.addr;
            (Some(h), a)
        }
    };
    let scheme = if matches!(c.mode, Mode::TlsGarbage) {
        "https"
    } else {
        "http"
    };
    let url = format!("{scheme}://{}/", server.1);
    let dir = TempDir::new("hostile");
    let json = dir.path("r.json");
    let mut args: Vec<String> = [
        "run",
        "-c",
        "2",
        "--threads",
        "1",
        "-d",
        &DURATION_S.to_string(),
        "--timeout",
        &format!("{TIMEOUT_MS}ms"),
        "-o",
        json.to_str().unwrap(),
        &url,
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    if open {
        args.extend(["--rate".into(), "40".into()]);
    }
    if !keep_alive {
        args.push("--no-keep-alive".into());
    }
    let label = format!(
        "{:?} {} {}",
        c.mode,
        if open { "open" } else { "closed" },
        if keep_alive {
            "keep-alive"
        } else {
            "no keep-alive"
        }
    );
    let mut child = hakaru()
        .args(&args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let started = Instant::now();
    let limit = Duration::from_secs_f64(DURATION_S) + Duration::from_millis(TIMEOUT_MS) + SLACK;
    let mut hwm = 0;
    let status = loop {
        if let Some(st) = child.try_wait().unwrap() {
            break st;
        }
        hwm = hwm.max(vm_hwm_kb(pid).unwrap_or(0));
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("{label}: still running after {limit:?}: a hang"));
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let out = child.wait_with_output().unwrap();
    let (so, se) = (stdout(&out), stderr(&out));
    let fail = |why: String| Err(format!("{label}: {why}\nstdout:\n{so}\nstderr:\n{se}"));
    if so.contains("panicked") || se.contains("panicked") {
        return fail("a panic".into());
    }
    if hwm > MAX_HWM_KB {
        return fail(format!("peak memory {hwm} kB over {MAX_HWM_KB} kB"));
    }
    let expected_code = if c.answered { 0 } else { 1 };
    if status.code() != Some(expected_code) {
        return fail(format!("exit {status:?}, expected {expected_code}"));
    }
    let v = read_json(&json);
    let step = &v["steps"][0];
    let errors = step["errors"].as_object().cloned().unwrap_or_default();
    for (kind, n) in &errors {
        if !c.kinds.contains(&kind.as_str()) {
            return fail(format!(
                "{n} error(s) of kind {kind}, expected only {:?}; samples {}",
                c.kinds, step["error_samples"]
            ));
        }
        if step["error_samples"][kind]
            .as_str()
            .is_none_or(str::is_empty)
        {
            return fail(format!("no sample message for {kind}"));
        }
    }
    if let (Some((kind, says)), true) = (must_see(c.mode), keep_alive) {
        let sample = step["error_samples"][kind].as_str().unwrap_or_default();
        if !sample.contains(says) {
            return fail(format!(
                "expected {kind} errors saying {says:?}; errors {errors:?}, samples {}",
                step["error_samples"]
            ));
        }
    }
    let responses = step["responses"].as_u64().unwrap_or(0);
    if c.answered && responses == 0 {
        return fail("no response".into());
    }
    if !c.answered && (responses > 0 || errors.is_empty()) {
        return fail(format!("{responses} responses, errors {errors:?}"));
    }
    drop(server);
    Ok(())
}

#[test]
fn hostile_targets_end_on_time_and_land_in_their_error_kinds() {
    // Its 500 ms timeouts tell a stalled target from a resetting one: not beside the
    // Kafka JVM or the other tests that measure time.
    let _one_at_a_time = crate::util::timed();
    let mut jobs = Vec::new();
    for c in CASES {
        for open in [false, true] {
            for keep_alive in [true, false] {
                jobs.push((c, open, keep_alive));
            }
        }
    }
    let next = AtomicUsize::new(0);
    let failures = Mutex::new(Vec::new());
    let started = Instant::now();
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some((c, open, keep_alive)) = jobs.get(i) else {
                    return;
                };
                if let Err(e) = run_case(c, *open, *keep_alive) {
                    failures.lock().unwrap().push(e);
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    assert!(
        failures.is_empty(),
        "{} of {} cases failed (in {:?}):\n{}",
        failures.len(),
        jobs.len(),
        started.elapsed(),
        failures.join("\n\n")
    );
}

/// Issue 36 item 4: a before-command's flood of stderr is kept in constant memory.
/// Bug it pins: each 1 KB read queued a copy of the kept buffer until the command
/// ended (`head -c 100000000 /dev/zero >&2` reached 1.2 GB).
#[test]
fn a_before_step_flooding_stderr_keeps_hakaru_s_memory_bounded() {
    let t = crate::util::target();
    let url = format!("http://{}/", t.addr);
    let mut child = crate::util::hakaru()
        .args(["run", "-c", "1", "-n", "20", "--before-step"])
        .arg("head -c 100000000 /dev/zero >&2; echo the-end >&2")
        .arg(&url)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (pid, started) = (child.id(), Instant::now());
    let mut hwm = 0;
    let status = loop {
        if let Some(st) = child.try_wait().unwrap() {
            break st;
        }
        hwm = hwm.max(vm_hwm_kb(pid).unwrap_or(0));
        if started.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("still running after 60 s");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let out = child.wait_with_output().unwrap();
    assert!(status.success(), "{}", stderr(&out));
    assert!(
        hwm <= MAX_HWM_KB,
        "peak memory {hwm} kB over {MAX_HWM_KB} kB"
    );
}

/// A server that answers the first bytes of every connection with `head`, then
/// `body` over and over as fast as the socket takes it, for at most 20 s.
fn endless(head: &'static [u8], body: Vec<u8>) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let addr = listener.local_addr().unwrap();
    let body: Arc<[u8]> = body.into();
    std::thread::spawn(move || {
        let until = Instant::now() + Duration::from_secs(20);
        while Instant::now() < until {
            let Ok((mut c, _)) = listener.accept() else {
                std::thread::sleep(Duration::from_millis(5));
                continue;
            };
            let body = body.clone();
            std::thread::spawn(move || {
                c.set_nonblocking(false).unwrap();
                let _ = c.set_write_timeout(Some(Duration::from_secs(2)));
                let mut first = [0u8; 4096];
                if c.read(&mut first).is_err() || c.write_all(head).is_err() {
                    return;
                }
                while Instant::now() < until && c.write_all(&body).is_ok() {}
            });
        }
    });
    addr
}

/// Issue 36 item 1: a run ends at its duration plus its timeout even while answers
/// keep streaming: endless 1-byte chunks (600 KB a write), and a Redis array of
/// 2^32-1 elements, to one worker's clients. Once seen still running at 20 s.
#[test]
fn a_run_ends_on_time_while_an_answer_streams_forever() {
    let chunks = endless(
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n",
        b"1\r\nx\r\n".repeat(100_000),
    );
    let array = endless(b"*4294967295\r\n", b":1\r\n".repeat(150_000));
    for (url, c) in [
        (format!("http://{chunks}/"), "2"),
        (format!("http://{chunks}/"), "4"),
        (format!("redis://{array}"), "2"),
        (format!("redis://{array}"), "4"),
    ] {
        let started = Instant::now();
        let mut child = hakaru()
            .args([
                "run",
                "--threads",
                "1",
                "-c",
                c,
                "-d",
                "2s",
                "--timeout",
                "1s",
                "-q",
            ])
            .arg(&url)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let status = wait_bounded(&mut child, Duration::from_secs(15));
        let took = started.elapsed();
        assert!(status.is_some(), "{url} -c {c}: still running at 15 s");
        assert!(
            took < Duration::from_secs(6),
            "{url} -c {c}: ended after {took:?}"
        );
    }
}
