//! A one-thread HTTP/1.1 keep-alive load probe with two I/O interfaces, epoll and
//! io_uring, and the same response parsing, so that only the interface differs.
//!
//! Issue 22 item 4 allows io_uring in hakaru "only if a measurement here shows it beats
//! epoll". This is that measurement's client, not a part of hakaru: it sends the same
//! fixed `GET / HTTP/1.1` on N keep-alive connections to one host:port for D seconds,
//! counts complete responses (status line, Content-Length, end of head: enough for the
//! bench's nginx and its small fixed file) and prints the requests and its own CPU.
//! `bench/uring.sh` runs it beside wrk and hakaru. Its own Cargo workspace keeps it out
//! of the main crate's build, tests, clippy and CI.
//!
//! Usage: `uring-probe MODE HOST:PORT CONNECTIONS SECONDS` where MODE is `epoll`,
//! `uring` (linked send→recv per request), or `uring-multi` (multishot recv on a
//! provided-buffer ring, a send per request); with `uring*`, `--setup defer|coop|none|sqpoll`
//! (default defer: SINGLE_ISSUER + DEFER_TASKRUN), `--fixed` (registered files) and
//! `--wait K` (each `io_uring_enter` waits for K completions, not 1), `--min-wait US`
//! (K completions for at most US µs, then at least one: kernel 6.12's min_wait_usec);
//! with `epoll`, `--pace US` (sleep US µs after a turn that found fewer than K ready).

mod epoll;
mod uring;

use std::io::{self, Write};
use std::net::{SocketAddr, TcpStream};
use std::os::fd::{AsRawFd, RawFd};
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// Each connection's response buffer: nginx's answer here is ~250 bytes.
pub const BUF: usize = 4096;

/// What a mode reports back: complete responses and the syscalls it made itself.
pub struct Counts {
    pub lat: Latency,
    pub responses: u64,
    pub syscalls: u64,
    pub turns: u64,
}

/// Each request's time from its send (queued, for io_uring) to its response seen
/// complete by the probe, in 10 µs buckets up to 100 ms: what a load tool would report
/// as latency, so the cost of batching wake-ups shows beside the CPU it saves.
pub struct Latency {
    buckets: Vec<u64>,
    sum_ns: u128,
    max_ns: u64,
}

impl Default for Latency {
    fn default() -> Self {
        Self::new()
    }
}

impl Latency {
    const BUCKET_NS: u64 = 10_000;

    pub fn new() -> Self {
        Latency {
            buckets: vec![0; 10_001],
            sum_ns: 0,
            max_ns: 0,
        }
    }

    fn record(&mut self, ns: u64) {
        let b = ((ns / Self::BUCKET_NS) as usize).min(self.buckets.len() - 1);
        self.buckets[b] += 1;
        self.sum_ns += u128::from(ns);
        self.max_ns = self.max_ns.max(ns);
    }

    /// The upper edge of the bucket holding quantile `q`, in µs.
    fn quantile_us(&self, q: f64) -> f64 {
        let n: u64 = self.buckets.iter().sum();
        let want = (n as f64 * q).ceil().max(1.0) as u64;
        let mut seen = 0;
        for (i, &c) in self.buckets.iter().enumerate() {
            seen += c;
            if seen >= want {
                return ((i as u64 + 1) * Self::BUCKET_NS) as f64 / 1e3;
            }
        }
        f64::NAN
    }

    fn line(&self, n: u64) -> String {
        format!(
            "latency mean {:.0} us p50 {:.0} us p99 {:.0} us max {:.0} us",
            self.sum_ns as f64 / n.max(1) as f64 / 1e3,
            self.quantile_us(0.5),
            self.quantile_us(0.99),
            self.max_ns as f64 / 1e3
        )
    }
}

/// The parsed command line.
pub struct Opts {
    pub mode: String,
    pub addr: SocketAddr,
    pub conns: usize,
    pub secs: f64,
    pub setup: String,
    pub fixed: bool,
    pub wait: usize,
    pub min_wait_us: u32,
    pub pace_us: u32,
}

/// One keep-alive connection: the socket (kept open by the stream) and the bytes of the
/// response read so far.
pub struct Conn {
    pub stream: TcpStream,
    pub buf: Box<[u8; BUF]>,
    pub len: usize,
    /// When this connection's request went out (or was queued to go).
    pub sent: Instant,
}

impl Conn {
    pub fn fd(&self) -> RawFd {
        self.stream.as_raw_fd()
    }

    /// After `n` more bytes landed in `buf[len..]`: Ok(true) when a whole response is in
    /// (and the buffer is emptied for the next), Ok(false) when more is to come.
    pub fn took(&mut self, n: usize, lat: &mut Latency) -> io::Result<bool> {
        self.len += n;
        match response_len(&self.buf[..self.len])? {
            Some(total) if total == self.len => {
                self.len = 0;
                lat.record(self.sent.elapsed().as_nanos() as u64);
                Ok(true)
            }
            // No pipelining: bytes past one response mean the server said something else.
            Some(_) => Err(bad("bytes after a complete response")),
            None if self.len == BUF => Err(bad("response larger than the probe's buffer")),
            None => Ok(false),
        }
    }
}

fn bad(what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, what)
}

/// The length of the whole response at the front of `b` once its head and body are in:
/// the status line must say 2xx, the body is Content-Length bytes (the bench's nginx
/// serves a small fixed file, never chunked).
pub fn response_len(b: &[u8]) -> io::Result<Option<usize>> {
    let Some(end) = b.windows(4).position(|w| w == b"\r\n\r\n") else {
        return Ok(None);
    };
    if !b.starts_with(b"HTTP/1.1 2") {
        return Err(bad("not a 2xx HTTP/1.1 status line"));
    }
    let mut body = None;
    for line in b[..end].split(|&c| c == b'\n').skip(1) {
        if line.len() > 15 && line[..15].eq_ignore_ascii_case(b"content-length:") {
            let mut n = 0usize;
            for &c in line[15..].iter().filter(|c| !c.is_ascii_whitespace()) {
                if !c.is_ascii_digit() {
                    return Err(bad("Content-Length is not a number"));
                }
                n = n * 10 + usize::from(c - b'0');
            }
            body = Some(n);
        }
    }
    let body = body.ok_or_else(|| bad("no Content-Length"))?;
    let total = end + 4 + body;
    Ok((b.len() >= total).then_some(total))
}

/// The request every connection sends, as wrk sends it.
pub fn request(addr: SocketAddr) -> Vec<u8> {
    format!("GET / HTTP/1.1\r\nHost: {addr}\r\n\r\n").into_bytes()
}

/// Opens the connections (blocking connect, then nonblocking with TCP_NODELAY, as wrk).
pub fn connect(addr: SocketAddr, n: usize) -> io::Result<Vec<Conn>> {
    (0..n)
        .map(|_| {
            let stream = TcpStream::connect(addr)?;
            stream.set_nodelay(true)?;
            stream.set_nonblocking(true)?;
            Ok(Conn {
                stream,
                buf: Box::new([0; BUF]),
                len: 0,
                sent: Instant::now(),
            })
        })
        .collect()
}

/// When the load stops; read from the monotonic clock (vDSO, no syscall) each loop turn.
pub struct Deadline(Instant);

impl Deadline {
    pub fn new(secs: f64) -> Self {
        Deadline(Instant::now() + Duration::from_secs_f64(secs))
    }
    pub fn passed(&self) -> bool {
        Instant::now() >= self.0
    }
}

fn parse_args() -> Result<Opts, String> {
    let mut pos = Vec::new();
    let mut setup = "defer".to_string();
    let mut fixed = false;
    let mut wait = "1".to_string();
    let mut min_wait = "0".to_string();
    let mut pace = "0".to_string();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--setup" => setup = args.next().ok_or("--setup needs defer|coop|none|sqpoll")?,
            "--fixed" => fixed = true,
            "--wait" => wait = args.next().ok_or("--wait needs a count")?,
            "--pace" => pace = args.next().ok_or("--pace needs microseconds")?,
            "--min-wait" => min_wait = args.next().ok_or("--min-wait needs microseconds")?,
            _ => pos.push(a),
        }
    }
    let [mode, addr, conns, secs] = <[String; 4]>::try_from(pos).map_err(|_| {
        "usage: uring-probe MODE HOST:PORT CONNECTIONS SECONDS [--setup S] [--fixed] [--wait K] [--min-wait US] [--pace US]"
    })?;
    if !["epoll", "uring", "uring-multi"].contains(&mode.as_str()) {
        return Err(format!("MODE {mode:?}: epoll, uring or uring-multi"));
    }
    if !["defer", "coop", "none", "sqpoll"].contains(&setup.as_str()) {
        return Err(format!("--setup {setup:?}: defer, coop, none or sqpoll"));
    }
    let addr: SocketAddr = addr
        .parse()
        .map_err(|e| format!("HOST:PORT {addr:?}: {e}"))?;
    if !addr.ip().is_loopback() {
        return Err(format!("HOST:PORT {addr}: loopback only"));
    }
    let conns: usize = conns
        .parse()
        .map_err(|e| format!("CONNECTIONS {conns:?}: {e}"))?;
    let secs: f64 = secs.parse().map_err(|e| format!("SECONDS {secs:?}: {e}"))?;
    if conns == 0 || conns > 4096 || !(secs > 0.0 && secs <= 600.0) {
        return Err("CONNECTIONS must be 1..=4096 and SECONDS in (0, 600]".into());
    }
    let wait: usize = wait.parse().map_err(|e| format!("--wait {wait:?}: {e}"))?;
    if wait == 0 || wait > conns {
        return Err(format!("--wait {wait}: 1..=CONNECTIONS ({conns})"));
    }
    let min_wait_us: u32 = min_wait
        .parse()
        .map_err(|e| format!("--min-wait {min_wait:?}: {e}"))?;
    if min_wait_us > 0 && setup == "sqpoll" {
        return Err("--min-wait is not written for --setup sqpoll".into());
    }
    let pace_us: u32 = pace.parse().map_err(|e| format!("--pace {pace:?}: {e}"))?;
    if pace_us >= 1_000_000 {
        return Err(format!("--pace {pace_us}: under 1 s"));
    }
    Ok(Opts {
        pace_us,
        min_wait_us,
        wait,
        mode,
        addr,
        conns,
        secs,
        setup,
        fixed,
    })
}

/// This process's user and system CPU so far, in seconds (all its threads).
fn rusage() -> (f64, f64) {
    // SAFETY: getrusage fills the zeroed struct it is given.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) };
    let s = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    (s(ru.ru_utime), s(ru.ru_stime))
}

/// CPU of every thread /proc lists for this process, with names: io_uring's SQPOLL and
/// io-wq threads show up here, so one can see whether the kernel did work off our thread.
fn threads_cpu() -> String {
    let tick = unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as f64;
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc/self/task")
        .into_iter()
        .flatten()
        .flatten()
    {
        let Ok(stat) = std::fs::read_to_string(e.path().join("stat")) else {
            continue;
        };
        let (Some(l), Some(r)) = (stat.find('('), stat.rfind(')')) else {
            continue;
        };
        let f: Vec<&str> = stat[r + 1..].split_whitespace().collect();
        let num = |i: usize| f.get(i).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
        out.push(format!(
            "{}:{:.2}+{:.2}",
            &stat[l + 1..r],
            num(11) / tick,
            num(12) / tick
        ));
    }
    out.join(" ")
}

fn main() -> ExitCode {
    let opts = match parse_args() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("uring-probe: {e}");
            return ExitCode::from(2);
        }
    };
    let (u0, s0) = rusage();
    let start = Instant::now();
    let counts = match opts.mode.as_str() {
        "epoll" => epoll::run(&opts),
        _ => uring::run(&opts),
    };
    let wall = start.elapsed().as_secs_f64();
    let (u1, s1) = rusage();
    let threads = threads_cpu();
    let c = match counts {
        Ok(c) => c,
        Err(e) => {
            eprintln!("uring-probe: {}: {e}", opts.mode);
            return ExitCode::FAILURE;
        }
    };
    let (user, sys) = (u1 - u0, s1 - s0);
    let n = c.responses.max(1) as f64;
    let _ = writeln!(
        io::stdout(),
        "mode {} setup {} fixed {} wait {} min-wait {} us pace {} us connections {}\nrequests {} in {:.3} s: {:.0} req/s\n\
         cpu user {:.3} s sys {:.3} s: {:.3} + {:.3} = {:.3} us/req\n\
         own syscalls {} ({:.3}/req), loop turns {} ({:.3}/req)\n{}\nthreads {}",
        opts.mode,
        opts.setup,
        opts.fixed,
        opts.wait,
        opts.min_wait_us,
        opts.pace_us,
        opts.conns,
        c.responses,
        wall,
        c.responses as f64 / wall,
        user,
        sys,
        user / n * 1e6,
        sys / n * 1e6,
        (user + sys) / n * 1e6,
        c.syscalls,
        c.syscalls as f64 / n,
        c.turns,
        c.turns as f64 / n,
        c.lat.line(c.responses),
        threads
    );
    ExitCode::SUCCESS
}

#[cfg(test)]
mod tests {
    use super::response_len;

    #[test]
    fn head_and_body() {
        let r = b"HTTP/1.1 200 OK\r\nServer: x\r\nContent-Length: 3\r\n\r\nabc";
        assert_eq!(response_len(r).unwrap(), Some(r.len()));
        assert_eq!(response_len(&r[..r.len() - 1]).unwrap(), None);
        assert_eq!(response_len(&r[..20]).unwrap(), None);
        assert!(response_len(b"HTTP/1.1 404 N\r\nContent-Length: 0\r\n\r\n").is_err());
        assert!(response_len(b"HTTP/1.1 200 OK\r\n\r\n").is_err());
    }
}
