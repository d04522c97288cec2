//! Where `watch` reads what arrived: the SOURCE URI, opened (bound, found) before
//! anything is measured, and the reader threads that count bytes and records into
//! shared counters — with `--verify`, each into its own [`Verifier`] as well.
//!
//! - `file:PATH` follows one file by name, as `tail -F` does: new bytes are read as
//!   they come; a truncated file is read again from its start; a file renamed or
//!   deleted (rotation) is read to its end and the new file at the name from its
//!   first byte. The seed deleted its file after every sample: that is rotation.
//! - `dir:PATH`: every file in a directory (new files from their first byte).
//! - `listen:tcp://HOST:PORT`: hakaru itself as the receiving end, newline-framed,
//!   one reader thread per connection.
//! - `listen:udp://HOST:PORT`: one record per datagram; `--recv-buffer` sets the
//!   socket's receive buffer (a small one overflows: the loss `--verify` shows).
//! - `kafka://HOST:PORT/TOPIC`: a consumer of every partition from the topic's end
//!   (`--from-start`: its beginning), one record per Kafka record ([`super::kafka`]).

use std::collections::HashMap;
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::net::{TcpListener, TcpStream, UdpSocket};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use hdrhistogram::Histogram;

use super::record::now_us;
use super::verify::{new_interval_histogram, Lines, Verifier};
use super::StreamError;

/// How often followed files and directories are looked at.
const POLL: Duration = Duration::from_millis(5);
/// Bytes read at once.
const CHUNK: usize = 256 << 10;

/// A parsed SOURCE.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SourceUri {
    File(PathBuf),
    Dir(PathBuf),
    ListenTcp(String),
    ListenUdp(String),
    /// Bootstrap servers and topic.
    Kafka {
        servers: String,
        topic: String,
    },
}

const EXPECTED: &str =
    "file:PATH, dir:PATH, listen:tcp://HOST:PORT, listen:udp://HOST:PORT or kafka://HOST:PORT/TOPIC";

impl SourceUri {
    pub fn parse(s: &str) -> Result<SourceUri, StreamError> {
        let bad = |why: &str| StreamError::Uri {
            flag: "SOURCE",
            uri: s.to_string(),
            why: why.to_string(),
            expected: EXPECTED,
        };
        if let Some(p) = s.strip_prefix("file:") {
            return if p.is_empty() {
                Err(bad("no path"))
            } else {
                Ok(SourceUri::File(p.into()))
            };
        }
        if let Some(p) = s.strip_prefix("dir:") {
            return if p.is_empty() {
                Err(bad("no path"))
            } else {
                Ok(SourceUri::Dir(p.into()))
            };
        }
        if let Some(a) = s.strip_prefix("listen:tcp://") {
            check_listen(a).map_err(|w| bad(&w))?;
            return Ok(SourceUri::ListenTcp(a.into()));
        }
        if let Some(a) = s.strip_prefix("listen:udp://") {
            check_listen(a).map_err(|w| bad(&w))?;
            return Ok(SourceUri::ListenUdp(a.into()));
        }
        if let Some(rest) = s.strip_prefix("kafka://") {
            let (servers, topic) = super::kafka::parse_uri(rest).map_err(|w| bad(&w))?;
            return Ok(SourceUri::Kafka { servers, topic });
        }
        Err(bad("unknown scheme"))
    }
}

/// `HOST:PORT` (port 0 picks one), and a loopback host unless it says otherwise: a
/// benchmark's receiver should not open a port to the network by accident.
fn check_listen(a: &str) -> Result<(), String> {
    let (host, port) = a
        .rsplit_once(':')
        .ok_or_else(|| "no :PORT after the host".to_string())?;
    port.parse::<u16>()
        .map_err(|_| format!("\"{port}\" is not a port"))?;
    let host = host.trim_start_matches('[').trim_end_matches(']');
    let loopback = host == "localhost"
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback());
    if !loopback {
        return Err(format!(
            "{host} is not a loopback address (listen on 127.0.0.1)"
        ));
    }
    Ok(())
}

/// What the readers count as they go; the watch samples it every interval.
#[derive(Debug, Default)]
pub struct Counters {
    pub bytes: AtomicU64,
    pub records: AtomicU64,
    /// Files read again from the start after shrinking.
    pub truncations: AtomicU64,
    /// Files followed to their end after being renamed or deleted.
    pub rotations: AtomicU64,
    /// Connections accepted (listen:tcp).
    pub connections: AtomicU64,
    /// With `--verify`: records new to their reader (a duplicate counts once), what
    /// `--expect` waits for. A record that arrives on two connections counts for each.
    pub distinct: AtomicU64,
    /// With `--verify`: the end-to-end latencies of the records read since the watch
    /// last took them (each reader adds its own at most every [`HAND_OVER_US`]).
    pub latency: IntervalHistogram,
}

/// How often a reader adds its recent latencies to the shared interval histogram:
/// often enough that a record lands in the interval it arrived in (give or take this
/// much at the boundary), rarely enough that the lock and the bucket walk cost nothing.
pub const HAND_OVER_US: u64 = 20_000;

/// The interval's latencies, shared by the readers and the watch.
#[derive(Debug)]
pub struct IntervalHistogram(Mutex<Histogram<u64>>);

impl Default for IntervalHistogram {
    fn default() -> Self {
        IntervalHistogram(Mutex::new(new_interval_histogram()))
    }
}

impl IntervalHistogram {
    /// What arrived since the last take, and an empty histogram left in its place.
    pub fn take(&self) -> Histogram<u64> {
        let mut h = self.0.lock().unwrap_or_else(|e| e.into_inner());
        std::mem::replace(&mut *h, new_interval_histogram())
    }

    fn add_from(&self, v: &mut Verifier) {
        v.take_recent(&mut self.0.lock().unwrap_or_else(|e| e.into_inner()));
    }
}

/// How the readers read.
#[derive(Debug, Clone, Default)]
pub struct SourceOptions {
    pub verify: bool,
    /// listen:udp: SO_RCVBUF in bytes.
    pub recv_buffer: Option<usize>,
    /// file:/dir:: read what the files already hold too (default: only what is added).
    pub from_start: bool,
    /// file:/dir: without --verify: records are this many bytes, so they are counted
    /// from the files' sizes and nothing is read (the seed's `ls -l` loop, exactly).
    pub record_size: Option<u64>,
}

/// A source being read.
pub struct Running {
    pub counters: Arc<Counters>,
    /// The address actually bound (listen sources).
    pub local_addr: Option<std::net::SocketAddr>,
    /// Where reading starts, when the source has something to say (Kafka's offsets).
    pub note: Option<String>,
    stop: Arc<AtomicBool>,
    threads: Vec<JoinHandle<()>>,
    verifiers: Arc<Mutex<Vec<Verifier>>>,
    /// Reader threads that failed (a read error), with why.
    errors: Arc<Mutex<Vec<String>>>,
}

impl Running {
    /// Stop the readers, wait for them, and return the merged verification and the
    /// readers' errors.
    pub fn finish(mut self) -> (Option<Verifier>, Vec<String>) {
        self.stop.store(true, Ordering::SeqCst);
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
        let vs = std::mem::take(&mut *self.verifiers.lock().unwrap_or_else(|e| e.into_inner()));
        let merged = vs.into_iter().reduce(|mut a, b| {
            a.merge(&b);
            a
        });
        let errors = std::mem::take(&mut *self.errors.lock().unwrap_or_else(|e| e.into_inner()));
        (merged, errors)
    }
}

/// What every reader thread shares.
#[derive(Clone)]
struct Shared {
    counters: Arc<Counters>,
    stop: Arc<AtomicBool>,
    verify: bool,
    /// Count files by their size, records of this many bytes.
    size_only: Option<u64>,
    verifiers: Arc<Mutex<Vec<Verifier>>>,
    errors: Arc<Mutex<Vec<String>>>,
}

/// One reader's tally: counts and, with `--verify`, the lines.
struct Tally {
    shared: Shared,
    verifier: Option<(Verifier, Lines)>,
    /// When this reader last handed its latencies over (µs, [`now_us`]).
    handed_at: u64,
}

impl Tally {
    fn new(shared: &Shared) -> Tally {
        Tally {
            verifier: shared
                .verify
                .then(|| (Verifier::default(), Lines::default())),
            shared: shared.clone(),
            handed_at: 0,
        }
    }

    /// Hand the verifier's recent latencies to the watch's interval, at most every
    /// [`HAND_OVER_US`].
    #[inline]
    fn hand_over(&mut self, now: u64) {
        if now.saturating_sub(self.handed_at) < HAND_OVER_US {
            return;
        }
        self.handed_at = now;
        if let Some((v, _)) = &mut self.verifier {
            self.shared.counters.latency.add_from(v);
        }
    }

    /// Bytes of a newline-framed stream.
    #[inline]
    fn bytes(&mut self, chunk: &[u8]) {
        let lines = chunk.iter().filter(|&&b| b == b'\n').count() as u64;
        let c = &self.shared.counters;
        c.bytes.fetch_add(chunk.len() as u64, Ordering::Relaxed);
        c.records.fetch_add(lines, Ordering::Relaxed);
        if let Some((v, lines)) = &mut self.verifier {
            let before = v.distinct();
            let now = now_us();
            lines.feed(chunk, v, now);
            c.distinct
                .fetch_add(v.distinct() - before, Ordering::Relaxed);
            self.hand_over(now);
        }
    }

    /// A file grew from `from` to `to` bytes (sizes only): whole records in between.
    #[inline]
    fn grew(&mut self, from: u64, to: u64, size: u64) {
        let c = &self.shared.counters;
        c.bytes.fetch_add(to - from, Ordering::Relaxed);
        c.records
            .fetch_add(to / size - from / size, Ordering::Relaxed);
    }

    /// One datagram: one record, counted with the newline it was sent without.
    #[inline]
    fn datagram(&mut self, d: &[u8]) {
        let c = &self.shared.counters;
        c.bytes.fetch_add(d.len() as u64 + 1, Ordering::Relaxed);
        c.records.fetch_add(1, Ordering::Relaxed);
        if let Some((v, _)) = &mut self.verifier {
            let before = v.distinct();
            let now = now_us();
            v.line(d, now);
            c.distinct
                .fetch_add(v.distinct() - before, Ordering::Relaxed);
            self.hand_over(now);
        }
    }

    fn fail(&self, why: String) {
        self.shared
            .errors
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(why);
    }
}

impl Drop for Tally {
    fn drop(&mut self) {
        if let Some((mut v, mut lines)) = self.verifier.take() {
            lines.finish(&mut v, now_us());
            self.shared.counters.latency.add_from(&mut v);
            self.shared
                .verifiers
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(v);
        }
    }
}

/// Open the source (bind, check the directory) and start its readers.
pub fn start(uri: &SourceUri, text: &str, opts: &SourceOptions) -> Result<Running, StreamError> {
    let shared = Shared {
        counters: Arc::new(Counters::default()),
        stop: Arc::new(AtomicBool::new(false)),
        verify: opts.verify,
        size_only: opts.record_size.filter(|_| !opts.verify),
        verifiers: Arc::new(Mutex::new(Vec::new())),
        errors: Arc::new(Mutex::new(Vec::new())),
    };
    let listen_err = |a: &str, source| StreamError::Listen {
        flag: "SOURCE",
        uri: text.to_string(),
        addr: a.to_string(),
        source,
    };
    let mut local_addr = None;
    let mut note = None;
    let thread: io::Result<JoinHandle<()>> = match uri {
        SourceUri::File(p) => {
            let parent = p
                .parent()
                .filter(|d| !d.as_os_str().is_empty())
                .unwrap_or(Path::new("."));
            if !parent.is_dir() {
                return Err(StreamError::Open {
                    flag: "SOURCE",
                    uri: text.to_string(),
                    path: parent.to_path_buf(),
                    source: io::Error::new(io::ErrorKind::NotFound, "no such directory"),
                });
            }
            let f = Follow::starting_now(p.clone(), opts.from_start);
            let sh = shared.clone();
            spawn("hakaru-watch-file", move || follow_file(f, &sh))
        }
        SourceUri::Dir(d) => {
            let entries = std::fs::read_dir(d).map_err(|e| StreamError::Open {
                flag: "SOURCE",
                uri: text.to_string(),
                path: d.clone(),
                source: e,
            })?;
            let files: HashMap<PathBuf, Follow> = entries
                .flatten()
                .filter(|e| e.file_type().is_ok_and(|ft| ft.is_file()))
                .map(|e| (e.path(), Follow::starting_now(e.path(), opts.from_start)))
                .collect();
            let (d, sh) = (d.clone(), shared.clone());
            spawn("hakaru-watch-dir", move || follow_dir(&d, files, &sh))
        }
        SourceUri::ListenTcp(a) => {
            let l = TcpListener::bind(a).map_err(|e| listen_err(a, e))?;
            local_addr = l.local_addr().ok();
            l.set_nonblocking(true).map_err(|e| listen_err(a, e))?;
            let sh = shared.clone();
            spawn("hakaru-watch-accept", move || accept(l, &sh))
        }
        SourceUri::ListenUdp(a) => {
            let s = UdpSocket::bind(a).map_err(|e| listen_err(a, e))?;
            local_addr = s.local_addr().ok();
            if let Some(n) = opts.recv_buffer {
                rustix::net::sockopt::set_socket_recv_buffer_size(&s, n)
                    .map_err(|e| listen_err(a, e.into()))?;
            }
            s.set_read_timeout(Some(Duration::from_millis(50)))
                .map_err(|e| listen_err(a, e))?;
            let sh = shared.clone();
            spawn("hakaru-watch-udp", move || read_udp(s, &sh))
        }
        SourceUri::Kafka { servers, topic } => {
            let reader = super::kafka::open_source(servers, topic, opts.from_start, text)?;
            note = Some(reader.note.clone());
            let sh = shared.clone();
            spawn("hakaru-watch-kafka", move || {
                let mut t = Tally::new(&sh);
                let mut errors = Vec::new();
                reader.read(&sh.stop, |r| t.datagram(r), |e| errors.push(e));
                for e in errors {
                    t.fail(e);
                }
            })
        }
    };
    let thread = thread.map_err(|e| StreamError::Flag {
        flag: "SOURCE",
        why: format!("cannot start a reader thread: {e}"),
    })?;
    Ok(Running {
        counters: shared.counters.clone(),
        local_addr,
        note,
        stop: shared.stop,
        threads: vec![thread],
        verifiers: shared.verifiers,
        errors: shared.errors,
    })
}

fn spawn(name: &str, f: impl FnOnce() + Send + 'static) -> io::Result<JoinHandle<()>> {
    std::thread::Builder::new().name(name.into()).spawn(f)
}

/// One file followed by name.
struct Follow {
    path: PathBuf,
    file: Option<File>,
    ino: u64,
    pos: u64,
    buf: Vec<u8>,
}

impl Follow {
    fn new(path: PathBuf) -> Follow {
        Follow {
            path,
            file: None,
            ino: 0,
            pos: 0,
            buf: vec![0; CHUNK],
        }
    }

    /// A follower that skips what the file holds now (unless `from_start`): taken when
    /// the watch starts, before any sender writes, so nothing written after is missed.
    fn starting_now(path: PathBuf, from_start: bool) -> Follow {
        let mut f = Follow::new(path);
        if !from_start {
            if let Ok(mut file) = File::open(&f.path) {
                if let Ok(m) = file.metadata() {
                    if file.seek(SeekFrom::Start(m.len())).is_ok() {
                        f.ino = m.ino();
                        f.pos = m.len();
                        f.file = Some(file);
                    }
                }
            }
        }
        f
    }

    /// Read what is new; true when anything was.
    fn poll(&mut self, t: &mut Tally, from_start: bool) -> io::Result<bool> {
        let meta = match std::fs::metadata(&self.path) {
            Ok(m) => Some(m),
            Err(e) if e.kind() == io::ErrorKind::NotFound => None,
            Err(e) => return Err(e),
        };
        let mut any = false;
        let same = meta.as_ref().is_some_and(|m| m.ino() == self.ino) && self.file.is_some();
        if !same && self.file.is_some() {
            // Renamed or deleted: what was written to it before goes to the count.
            any |= self.drain(t)?;
            self.file = None;
            t.shared.counters.rotations.fetch_add(1, Ordering::Relaxed);
        }
        let Some(meta) = meta else { return Ok(any) };
        if self.file.is_none() {
            let mut f = match File::open(&self.path) {
                Ok(f) => f,
                Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(any),
                Err(e) => return Err(e),
            };
            self.ino = f.metadata()?.ino();
            self.pos = if from_start { 0 } else { meta.len() };
            f.seek(SeekFrom::Start(self.pos))?;
            self.file = Some(f);
        } else if meta.len() < self.pos {
            // Truncated: read it again from the start.
            t.shared
                .counters
                .truncations
                .fetch_add(1, Ordering::Relaxed);
            self.pos = 0;
            if let Some(f) = self.file.as_mut() {
                f.seek(SeekFrom::Start(0))?;
            }
        }
        any |= self.drain(t)?;
        Ok(any)
    }

    fn drain(&mut self, t: &mut Tally) -> io::Result<bool> {
        let Some(f) = self.file.as_mut() else {
            return Ok(false);
        };
        if let Some(size) = t.shared.size_only {
            let end = f.metadata()?.len();
            if end <= self.pos {
                return Ok(false);
            }
            t.grew(self.pos, end, size);
            self.pos = end;
            return Ok(true);
        }
        let mut any = false;
        loop {
            let n = f.read(&mut self.buf)?;
            if n == 0 {
                return Ok(any);
            }
            any = true;
            self.pos += n as u64;
            t.bytes(&self.buf[..n]);
        }
    }
}

fn follow_file(mut f: Follow, sh: &Shared) {
    let mut t = Tally::new(sh);
    // Files opened from here on (created, rotated in) are new: read from their start.
    while !sh.stop.load(Ordering::Relaxed) {
        match f.poll(&mut t, true) {
            // More may be there already; a size check, though, waits for the next poll.
            Ok(true) if sh.size_only.is_none() => continue,
            Ok(_) => {}
            Err(e) => {
                t.fail(format!("{}: {e}", f.path.display()));
                return;
            }
        }
        t.hand_over(now_us());
        std::thread::sleep(POLL);
    }
    // What arrived before the stop still counts.
    let _ = f.poll(&mut t, true);
}

fn follow_dir(dir: &Path, mut files: HashMap<PathBuf, Follow>, sh: &Shared) {
    let mut t = Tally::new(sh);
    let mut last = false;
    loop {
        let stopping = sh.stop.load(Ordering::Relaxed);
        let entries = match std::fs::read_dir(dir) {
            Ok(e) => e,
            Err(e) => {
                t.fail(format!("{}: {e}", dir.display()));
                return;
            }
        };
        let mut any = false;
        for e in entries.flatten() {
            let p = e.path();
            if !e.file_type().is_ok_and(|ft| ft.is_file()) {
                continue;
            }
            // Files that were there when the watch began were opened at their end
            // (unless --from-start); any other is new and read from its start.
            let f = files.entry(p.clone()).or_insert_with(|| Follow::new(p));
            match f.poll(&mut t, true) {
                Ok(a) => any |= a,
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(e) => {
                    t.fail(format!("{}: {e}", f.path.display()));
                    return;
                }
            }
        }
        // Files gone from the directory: drop them (what they held was read).
        files.retain(|p, _| p.exists());
        if last {
            return;
        }
        if stopping {
            last = true;
            continue;
        }
        if !any {
            t.hand_over(now_us());
            std::thread::sleep(POLL * 2);
        }
    }
}

fn accept(l: TcpListener, sh: &Shared) {
    let mut readers = Vec::new();
    while !sh.stop.load(Ordering::Relaxed) {
        match l.accept() {
            Ok((c, _)) => {
                sh.counters.connections.fetch_add(1, Ordering::Relaxed);
                let sh2 = sh.clone();
                match spawn("hakaru-watch-conn", move || read_conn(c, &sh2)) {
                    Ok(h) => readers.push(h),
                    Err(e) => sh
                        .errors
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .push(format!("cannot start a reader thread: {e}")),
                }
            }
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => std::thread::sleep(POLL),
            Err(_) => std::thread::sleep(POLL),
        }
    }
    for r in readers {
        let _ = r.join();
    }
}

fn read_conn(mut c: TcpStream, sh: &Shared) {
    let mut t = Tally::new(sh);
    let _ = c.set_nonblocking(false);
    let _ = c.set_read_timeout(Some(Duration::from_millis(50)));
    let mut buf = vec![0u8; CHUNK];
    loop {
        match c.read(&mut buf) {
            Ok(0) => return,
            Ok(n) => t.bytes(&buf[..n]),
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                ) =>
            {
                // Quiet: what the last reads recorded belongs to this interval.
                t.hand_over(now_us());
                if sh.stop.load(Ordering::Relaxed) {
                    return;
                }
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            // A sender that reset its connection ended its stream.
            Err(_) => return,
        }
    }
}

fn read_udp(s: UdpSocket, sh: &Shared) {
    let mut t = Tally::new(sh);
    let mut buf = vec![0u8; 65_536];
    loop {
        match s.recv(&mut buf) {
            Ok(n) => t.datagram(&buf[..n]),
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                ) =>
            {
                t.hand_over(now_us());
                if sh.stop.load(Ordering::Relaxed) {
                    return;
                }
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => {
                t.fail(format!("udp: {e}"));
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources_parse_or_say_why() {
        assert_eq!(
            SourceUri::parse("listen:tcp://127.0.0.1:0").unwrap(),
            SourceUri::ListenTcp("127.0.0.1:0".into())
        );
        for (bad, why) in [
            ("listen:tcp://0.0.0.0:514", "not a loopback"),
            ("listen:tcp://127.0.0.1", "no :PORT"),
            ("tcp://127.0.0.1:5", "unknown scheme"),
            ("file:", "no path"),
        ] {
            let e = SourceUri::parse(bad).unwrap_err().to_string();
            assert!(e.contains(why) && e.contains("SOURCE"), "{bad}: {e}");
        }
    }

    #[test]
    fn a_file_is_followed_across_truncation_and_rotation() {
        use std::io::Write;
        let d = std::env::temp_dir().join(format!("hakaru-follow-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        let p = d.join("log");
        std::fs::write(&p, b"old\nold\n").unwrap();
        let uri = SourceUri::File(p.clone());
        let r = start(&uri, "file:", &SourceOptions::default()).unwrap();
        let wait_for = |n: u64| {
            for _ in 0..2000 {
                if r.counters.records.load(Ordering::SeqCst) >= n {
                    return;
                }
                std::thread::sleep(Duration::from_millis(5));
            }
            panic!("never reached {n} records");
        };
        std::thread::sleep(Duration::from_millis(50));
        let mut f = std::fs::OpenOptions::new().append(true).open(&p).unwrap();
        f.write_all(b"a\nb\n").unwrap();
        wait_for(2);
        // Truncate (the seed's way of starting over), then write again.
        f.set_len(0).unwrap();
        std::thread::sleep(Duration::from_millis(50));
        f.write_all(b"c\n").unwrap();
        wait_for(3);
        // Rotate: a last line, a rename, then a new file at the name.
        f.write_all(b"d\n").unwrap();
        std::fs::rename(&p, d.join("log.1")).unwrap();
        std::fs::write(&p, b"e\nf\n").unwrap();
        wait_for(6);
        let (_, errors) = r.finish();
        assert!(errors.is_empty(), "{errors:?}");
        std::fs::remove_dir_all(&d).unwrap();
    }
}
