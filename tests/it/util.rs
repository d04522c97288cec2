//! Test harness: the hakaru binary, the embedded target in-process, and real servers
//! (nginx, Groonga) started on loopback in a temp dir and stopped by PID.

#![allow(dead_code)]

use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use hakaru::server::basic::start_basic;
use hakaru::server::listen::{RunningServer, ServerOptions};

pub fn hakaru() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_hakaru"));
    c.stdin(Stdio::null());
    c
}

/// Run hakaru with `args`; returns the output (stdout, stderr, status).
pub fn run(args: &[&str]) -> Output {
    hakaru().args(args).output().expect("hakaru runs")
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Assert success and show both streams when it is not.
pub fn ok(o: &Output) -> String {
    assert!(
        o.status.success(),
        "hakaru failed ({:?})\nstdout:\n{}\nstderr:\n{}",
        o.status,
        stdout(o),
        stderr(o)
    );
    stdout(o)
}

/// Assert a run measured but got no response at all: exit 1, saying so.
pub fn answered_nothing(o: &Output) -> String {
    assert_eq!(
        o.status.code(),
        Some(1),
        "expected exit 1 (nothing answered)\nstdout:\n{}\nstderr:\n{}",
        stdout(o),
        stderr(o)
    );
    assert!(stderr(o).contains("nothing was answered"), "{}", stderr(o));
    stdout(o)
}

pub fn target() -> RunningServer {
    start_basic(
        "127.0.0.1:0".parse().unwrap(),
        ServerOptions {
            keep_alive: true,
            threads: 1,
            ..Default::default()
        },
    )
    .expect("embedded target starts")
}

pub fn target_at(addr: SocketAddr, keep_alive: bool) -> RunningServer {
    start_basic(
        addr,
        ServerOptions {
            keep_alive,
            threads: 1,
            ..Default::default()
        },
    )
    .expect("embedded target starts")
}

/// A fresh temp dir, removed on drop.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(name: &str) -> TempDir {
        let p = std::env::temp_dir().join(format!(
            "hakaru-test-{name}-{}-{}",
            std::process::id(),
            rand_suffix()
        ));
        std::fs::create_dir_all(&p).unwrap();
        TempDir(p)
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }

    pub fn write(&self, name: &str, text: &str) -> PathBuf {
        let p = self.path(name);
        std::fs::write(&p, text).unwrap();
        p
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn rand_suffix() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos() as u64;
    t ^ (N.fetch_add(1, Ordering::Relaxed) << 32)
}

/// A port that was free a moment ago (for servers that cannot bind port 0 and report it).
///
/// Taken below the kernel's ephemeral range, not from it: a port 0 bind hands out an
/// ephemeral port, which any outgoing connection of a test running beside (thousands
/// of them in the connection tests) could take before the server binds it. Each call
/// in this process gets a port it never got before, from an offset of its own.
pub fn free_port() -> u16 {
    use std::sync::atomic::{AtomicU32, Ordering};
    static NEXT: AtomicU32 = AtomicU32::new(0);
    const SPAN: u32 = 10_000;
    let low = std::fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range")
        .ok()
        .and_then(|r| r.split_whitespace().next()?.parse::<u32>().ok())
        .unwrap_or(0);
    if low > SPAN + 1024 {
        let base = low - SPAN;
        let offset = std::process::id().wrapping_mul(7919) % SPAN;
        loop {
            let i = NEXT.fetch_add(1, Ordering::Relaxed);
            if i >= SPAN {
                break;
            }
            let port = (base + (offset + i) % SPAN) as u16;
            if TcpListener::bind(("127.0.0.1", port)).is_ok() {
                return port;
            }
        }
    }
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

pub fn wait_for_port(port: u16, child: &mut Child, what: &str) {
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(15) {
        if TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return;
        }
        if let Ok(Some(status)) = child.try_wait() {
            panic!("{what} exited before listening: {status}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!("{what} did not listen on port {port} within 15 s");
}

/// Is an external program installed? In CI it must be (`.ci/run` installs it): a
/// missing one fails there instead of silently skipping the test.
pub fn have(program: &str) -> bool {
    let found = Command::new("sh")
        .arg("-c")
        .arg(format!("command -v {program}"))
        .stdout(Stdio::null())
        .status()
        .map(|s| s.success())
        .unwrap_or(false);
    if !found {
        assert!(
            std::env::var_os("CI").is_none(),
            "{program} is not installed, but CI must run this test (.ci/run installs it)"
        );
        eprintln!("skipped: {program} is not installed");
    }
    found
}

/// `hakaru serve ARGS --bind 127.0.0.1:0` as a child stopped by its PID when dropped;
/// the port is the one it prints when it listens.
pub fn hakaru_serve(args: &[&str], name: &str) -> Server {
    use std::io::{BufRead, BufReader};
    // Its SQLite files go in its folder: a SIGKILL (`Server`'s drop) leaves them.
    let dir = TempDir::new(name);
    let mut child = hakaru()
        .env("TMPDIR", &dir.0)
        .arg("serve")
        .args(args)
        .args(["--bind", "127.0.0.1:0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("hakaru serve starts");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let port = line
        .trim()
        .rsplit_once(':')
        .and_then(|(_, p)| p.parse().ok())
        .unwrap_or_else(|| panic!("no address in {line:?}"));
    Server { child, port, dir }
}

/// A child process we started, killed by its PID when dropped.
pub struct Server {
    pub child: Child,
    pub port: u16,
    pub dir: TempDir,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// nginx serving `files` (name → content) on a loopback port, in the foreground, one
/// process (so the PID we hold is the server). With `tls`, it serves https with a
/// self-signed certificate for 127.0.0.1 (returned in the dir as cert.pem).
pub fn nginx(files: &[(&str, &[u8])], tls: bool) -> Server {
    let dir = TempDir::new("nginx");
    let root = dir.path("root");
    std::fs::create_dir_all(&root).unwrap();
    for (name, content) in files {
        std::fs::write(root.join(name), content).unwrap();
    }
    let port = free_port();
    let listen = if tls {
        make_certificates(&dir);
        format!(
            "listen 127.0.0.1:{port} ssl; ssl_certificate {}; ssl_certificate_key {};",
            dir.path("cert.pem").display(),
            dir.path("key.pem").display()
        )
    } else {
        format!("listen 127.0.0.1:{port};")
    };
    let d = dir.0.display();
    let user = if is_root() { "user root root;" } else { "" };
    let conf = format!(
        "{user}\nworker_processes 1;\nmaster_process off;\ndaemon off;\npid {d}/nginx.pid;\nerror_log {d}/error.log warn;\n\
         events {{ worker_connections 1024; }}\n\
         http {{\n  access_log off;\n  client_body_temp_path {d}/body;\n  proxy_temp_path {d}/proxy;\n  fastcgi_temp_path {d}/fastcgi;\n  uwsgi_temp_path {d}/uwsgi;\n  scgi_temp_path {d}/scgi;\n  keepalive_requests 1000000;\n\
         server {{\n    {listen}\n    root {};\n    location /chunked {{ default_type text/plain; chunked_transfer_encoding on; gzip on; gzip_min_length 1; gzip_types text/plain; }}\n  }}\n}}\n",
        root.display()
    );
    nginx_like("nginx", &conf, port, dir)
}

/// nginx as a reverse proxy to `upstream` (a loopback port), with `directives` added
/// to its server block (`client_max_body_size 2k;`), in the foreground, one process.
pub fn nginx_proxy(upstream: u16, directives: &str) -> Server {
    let dir = TempDir::new("nginx-proxy");
    let port = free_port();
    let d = dir.0.display();
    let user = if is_root() { "user root root;" } else { "" };
    let conf = format!(
        "{user}\nworker_processes 1;\nmaster_process off;\ndaemon off;\npid {d}/nginx.pid;\nerror_log {d}/error.log warn;\n\
         events {{ worker_connections 1024; }}\n\
         http {{\n  access_log off;\n  client_body_temp_path {d}/body;\n  proxy_temp_path {d}/proxy;\n  fastcgi_temp_path {d}/fastcgi;\n  uwsgi_temp_path {d}/uwsgi;\n  scgi_temp_path {d}/scgi;\n  keepalive_requests 1000000;\n\
         upstream store {{ server 127.0.0.1:{upstream}; keepalive 16; }}\n\
         server {{\n    listen 127.0.0.1:{port};\n    {directives}\n    location / {{ proxy_pass http://store; proxy_http_version 1.1; proxy_set_header Connection \"\"; }}\n  }}\n}}\n"
    );
    nginx_like("nginx", &conf, port, dir)
}

/// A CA (ca.pem) and a server certificate it signed for 127.0.0.1 (cert.pem, key.pem).
pub fn make_certificates(dir: &TempDir) {
    let openssl = |args: &[&str]| {
        let st = Command::new("openssl")
            .args(args)
            .current_dir(&dir.0)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .expect("openssl runs");
        assert!(st.success(), "openssl {args:?} failed");
    };
    openssl(&[
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-days",
        "2",
        "-subj",
        "/CN=hakaru test CA",
        "-keyout",
        "ca-key.pem",
        "-out",
        "ca.pem",
    ]);
    openssl(&[
        "req",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-subj",
        "/CN=127.0.0.1",
        "-keyout",
        "key.pem",
        "-out",
        "server.csr",
    ]);
    std::fs::write(
        dir.path("ext.cnf"),
        "subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\n",
    )
    .unwrap();
    openssl(&[
        "x509",
        "-req",
        "-in",
        "server.csr",
        "-CA",
        "ca.pem",
        "-CAkey",
        "ca-key.pem",
        "-CAcreateserial",
        "-days",
        "2",
        "-extfile",
        "ext.cnf",
        "-out",
        "cert.pem",
    ]);
}

/// Start nginx or groonga-httpd with `conf` (written into `dir`), in the foreground,
/// and wait until it listens on `port`.
pub fn nginx_like(program: &str, conf: &str, port: u16, dir: TempDir) -> Server {
    let conf_path = dir.write(&format!("{program}.conf"), conf);
    let mut child = Command::new(program)
        .arg("-p")
        .arg(&dir.0)
        .arg("-c")
        .arg(&conf_path)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("{program} does not start: {e}"));
    wait_for_port(port, &mut child, program);
    Server { child, port, dir }
}

pub fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("Uid:"))
                .map(|l| l.split_whitespace().nth(1) == Some("0"))
        })
        .unwrap_or(false)
}

pub fn read_json(path: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap()
}

/// Parse a CSV into (header, rows).
pub fn read_csv(path: &Path) -> (Vec<String>, Vec<Vec<String>>) {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let mut lines = text.lines();
    let header: Vec<String> = lines.next().unwrap().split(',').map(String::from).collect();
    let rows = lines
        .map(|l| l.split(',').map(String::from).collect())
        .collect();
    (header, rows)
}

pub fn col(header: &[String], row: &[String], name: &str) -> f64 {
    let i = header
        .iter()
        .position(|h| h == name)
        .unwrap_or_else(|| panic!("no column {name} in {header:?}"));
    row[i]
        .parse()
        .unwrap_or_else(|_| panic!("column {name}: {:?} is not a number", row[i]))
}

/// A Groonga database with the tutorial's `Pages` schema and `n` generated pages whose
/// titles are unique ("page 17 alpha beta"), so a select of titles gives unique terms.
pub fn groonga_db(dir: &TempDir, n: usize) -> PathBuf {
    let db = dir.path("db");
    std::fs::create_dir_all(&db).unwrap();
    let db = db.join("db");
    let words = [
        "alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa",
        "lambda", "mu",
    ];
    let mut cmds = String::from(
        "table_create Categories TABLE_HASH_KEY ShortText\n\
         table_create Pages TABLE_HASH_KEY ShortText\n\
         column_create Pages title COLUMN_SCALAR ShortText\n\
         column_create Pages text COLUMN_SCALAR Text\n\
         column_create Pages categories COLUMN_VECTOR Categories\n\
         table_create Terms TABLE_PAT_KEY ShortText --default_tokenizer TokenBigram --normalizer NormalizerAuto\n\
         column_create Terms entries_title COLUMN_INDEX|WITH_POSITION Pages title\n\
         column_create Terms entries_text COLUMN_INDEX|WITH_POSITION Pages text\n\
         column_create Categories entries COLUMN_INDEX Pages categories\n\
         load --table Pages\n[\n",
    );
    for i in 0..n {
        let w = |k: usize| words[(i * 7 + k * 3) % words.len()];
        let sep = if i + 1 < n { "," } else { "" };
        cmds.push_str(&format!(
            "{{\"_key\":\"page-{i:05}\",\"title\":\"page{i} {} {}\",\"text\":\"{} {} {} text of page {i}\",\"categories\":[\"{}\"]}}{sep}\n",
            w(0),
            w(1),
            w(2),
            w(3),
            w(4),
            w(5)
        ));
    }
    cmds.push_str("]\n");
    groonga_create(&db, cmds.as_bytes());
    db
}

/// Create the Groonga database `db` and run `commands` (table_create, load, …) in it.
pub fn groonga_create(db: &Path, commands: &[u8]) {
    let mut child = Command::new("groonga")
        .arg("-n")
        .arg(db)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .expect("groonga runs");
    {
        use std::io::Write;
        child.stdin.take().unwrap().write_all(commands).unwrap();
    }
    assert!(
        child.wait().unwrap().success(),
        "groonga could not build the database"
    );
}

/// Groonga's built-in HTTP server in the foreground on a loopback port.
pub fn groonga_http(db: &Path) -> Server {
    groonga_http_env(db, &[])
}

/// [`groonga_http`] with `env` set in the server's environment (`LD_PRELOAD`, …).
pub fn groonga_http_env(db: &Path, env: &[(&str, &std::ffi::OsStr)]) -> Server {
    let port = free_port();
    let dir = TempDir::new("groonga");
    let mut child = Command::new("groonga")
        .envs(env.iter().copied())
        .args([
            "--protocol",
            "http",
            "-s",
            "--bind-address",
            "127.0.0.1",
            "-p",
            &port.to_string(),
        ])
        .arg("--log-path")
        .arg(dir.path("groonga.log"))
        .arg("--query-log-path")
        .arg(dir.path("query.log"))
        .arg(db)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("groonga starts");
    wait_for_port(port, &mut child, "groonga");
    Server { child, port, dir }
}

/// groonga-httpd (nginx with the Groonga module), one process, keep-alive on.
pub fn groonga_httpd(db: &Path) -> Server {
    let port = free_port();
    let dir = TempDir::new("groonga-httpd");
    let d = dir.0.display();
    let user = if is_root() { "user root root;" } else { "" };
    let conf = format!(
        "{user}\nworker_processes 1;\nmaster_process off;\ndaemon off;\npid {d}/httpd.pid;\nerror_log {d}/error.log warn;\n\
         events {{ worker_connections 1024; }}\n\
         http {{\n  access_log off;\n  client_body_temp_path {d}/body;\n  proxy_temp_path {d}/proxy;\n  fastcgi_temp_path {d}/fastcgi;\n  uwsgi_temp_path {d}/uwsgi;\n  scgi_temp_path {d}/scgi;\n  keepalive_requests 1000000;\n\
         groonga_database {};\n  groonga_log_path {d}/groonga.log;\n  groonga_query_log_path {d}/query.log;\n\
         server {{\n    listen 127.0.0.1:{port};\n    location /d/ {{ groonga on; }}\n  }}\n}}\n",
        db.display()
    );
    nginx_like("groonga-httpd", &conf, port, dir)
}

/// Wait for `child` at most `limit`; a child still running then is killed (it is ours)
/// and `None` returned, so a hang fails the test instead of stalling the suite.
pub fn wait_bounded(child: &mut Child, limit: Duration) -> Option<std::process::ExitStatus> {
    let start = Instant::now();
    while start.elapsed() < limit {
        if let Ok(Some(status)) = child.try_wait() {
            return Some(status);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    let _ = child.wait();
    None
}

/// Where `.ci/run` installs pouchdb-server: `$HAKARU_NPM_DIR`, else `~/.cache/hakaru-npm`.
pub fn pouchdb_program() -> Option<PathBuf> {
    let dir = std::env::var_os("HAKARU_NPM_DIR")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cache/hakaru-npm")))?;
    let p = dir.join("node_modules/.bin/pouchdb-server");
    p.exists().then_some(p)
}

/// Is pouchdb-server installed (and node to run it)? As with [`have`], a missing one
/// fails in CI instead of skipping.
pub fn have_pouchdb() -> bool {
    if pouchdb_program().is_some() && have("node") {
        return true;
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "pouchdb-server is not installed, but CI must run this test (.ci/run installs it)"
    );
    eprintln!("skipped: pouchdb-server is not installed (run .ci/run, or npm install pouchdb-server --ignore-scripts in ~/.cache/hakaru-npm)");
    false
}

/// pouchdb-server (a CouchDB-compatible server on Node) on a loopback port, its data,
/// config and log in a temp dir, the log quiet (it logs every request otherwise).
/// Waits until it answers `GET /`. Check [`have_pouchdb`] first.
pub fn pouchdb() -> Server {
    let program = pouchdb_program().expect("pouchdb-server is installed");
    let port = free_port();
    let dir = TempDir::new("pouchdb");
    let config = dir.write(
        "config.json",
        &format!(
            "{{\"log\": {{\"file\": \"{}\", \"level\": \"warning\"}}}}",
            dir.path("log.txt").display()
        ),
    );
    let mut child = Command::new(program)
        .args(["--host", "127.0.0.1", "--port", &port.to_string(), "--dir"])
        .arg(dir.path("data"))
        .arg("--config")
        .arg(&config)
        // It writes nothing else, but a stray file lands in the temp dir, not the tree.
        .current_dir(&dir.0)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("pouchdb-server starts");
    let url = format!("http://127.0.0.1:{port}/");
    let start = Instant::now();
    loop {
        if http(&url, "GET", None).is_some_and(|(status, _)| status == 200) {
            break;
        }
        if let Ok(Some(status)) = child.try_wait() {
            panic!("pouchdb-server exited before answering: {status}");
        }
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "pouchdb-server did not answer on port {port} within 30 s"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    Server { child, port, dir }
}

/// One plain HTTP/1.1 request with `Connection: close` (JSON body if any); the status
/// and body, or `None` when nothing answered. For setting up and reading back test
/// servers, never for load.
pub fn http(url: &str, method: &str, body: Option<&str>) -> Option<(u16, String)> {
    use std::io::{Read, Write};
    let rest = url.strip_prefix("http://")?;
    let (hostport, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let path = if path.is_empty() { "/" } else { path };
    let mut s = TcpStream::connect(hostport).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(30))).ok()?;
    let body = body.unwrap_or("");
    let req = format!(
        "{method} {path} HTTP/1.1\r\nHost: {hostport}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    s.write_all(req.as_bytes()).ok()?;
    let mut out = Vec::new();
    s.read_to_end(&mut out).ok()?;
    let text = String::from_utf8_lossy(&out).into_owned();
    let status = text.split_whitespace().nth(1)?.parse().ok()?;
    let (head, body) = text.split_once("\r\n\r\n")?;
    let body = if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        dechunk(body)
    } else {
        body.to_string()
    };
    Some((status, body))
}

fn dechunk(mut s: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = s.split_once("\r\n") {
        let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if n == 0 || rest.len() < n {
            break;
        }
        out.push_str(&rest[..n]);
        s = rest[n..].trim_start_matches("\r\n");
    }
    out
}

/// Tests that measure time (recovery, `--find-max`, timeouts) and the Kafka broker's JVM,
/// which would take their CPU, run one at a time: this machine has two cores.
static TIMED: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Hold while a timing-sensitive test (or a broker) runs.
pub fn timed() -> std::sync::MutexGuard<'static, ()> {
    TIMED.lock().unwrap_or_else(|e| e.into_inner())
}
