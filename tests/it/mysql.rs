//! MySQL's protocol against the real thing: a private MariaDB 10.11 per test
//! (Debian's `mariadb-server`, installed by `.ci/run`), initialised into a temp dir,
//! listening on a loopback port, stopped by its PID (FIELD-NOTES.md says how as root).
//! A small blocking connection here drives `hakaru::sql::mysql`'s state machines over
//! TCP: the login, COM_QUERY, prepared statements, errors by kind; the server's own
//! counts (`SHOW GLOBAL STATUS`) are read with the `mariadb` client over the socket.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use hakaru::sql::mysql::answer::{Answer, Mode, Step};
use hakaru::sql::mysql::auth::{Login, LoginError, LoginStep};
use hakaru::sql::mysql::errcode::MyErrorKind;
use hakaru::sql::mysql::packet::next_packet;
use hakaru::sql::mysql::url::{MyUrl, SslMode};
use hakaru::sql::mysql::{command, url};

use crate::util::{free_port, have, wait_bounded, wait_for_port, TempDir};

/// The TCP user the tests log in as, and its password.
pub const USER: &str = "bench";
pub const PASSWORD: &str = "bench-pw";

/// A private MariaDB server: mariadbd is our child (its PID is the server),
/// SIGTERM'd and waited for when dropped, then the temp dir goes.
pub struct Mariadb {
    child: Child,
    pub port: u16,
    dir: TempDir,
    /// The server options it was started with, for a restart.
    extra: Vec<String>,
}

impl Mariadb {
    /// Starts a server with a `bench` database and a TCP user `bench` (password
    /// `bench-pw`, mysql_native_password); `None` if MariaDB is not installed.
    pub fn start() -> Option<Mariadb> {
        Mariadb::start_with(&[])
    }

    /// `start` with `extra` server options (`--ssl-cert=…`).
    pub fn start_with(extra: &[String]) -> Option<Mariadb> {
        if !have("mariadbd") && !std::path::Path::new("/usr/sbin/mariadbd").exists() {
            return None;
        }
        let dir = TempDir::new("mariadb");
        let data = dir.path("data");
        // Its own tmpdir: bootstraps at once in a shared /tmp collide on their
        // temporary tables' names ("Unknown table 'mysql.tmp_user_sys'").
        let tmp = dir.path("tmp");
        std::fs::create_dir_all(&tmp).unwrap();
        let out = Command::new("mariadb-install-db")
            .arg("--no-defaults")
            .arg(format!("--datadir={}", data.display()))
            .args(["--user=root", "--auth-root-authentication-method=normal"])
            .args(["--skip-test-db"])
            .arg(format!("--tmpdir={}", tmp.display()))
            .stdin(Stdio::null())
            .output()
            .expect("mariadb-install-db runs");
        assert!(
            out.status.success(),
            "mariadb-install-db failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let port = free_port();
        let mut child = spawn_mariadbd(&dir, port, extra);
        wait_for_port(port, &mut child, "mariadbd");
        let db = Mariadb {
            child,
            port,
            dir,
            extra: extra.to_vec(),
        };
        db.sql(&format!(
            "CREATE DATABASE bench; CREATE USER '{USER}'@'%' IDENTIFIED BY '{PASSWORD}'; \
             GRANT ALL ON *.* TO '{USER}'@'%'"
        ));
        Some(db)
    }

    /// The file mariadbd writes its PID to (a scenario target's `pid_file`).
    pub fn pid_file(&self) -> std::path::PathBuf {
        self.dir.path("pid")
    }

    /// As a supervisor would: waits (bounded) for mariadbd to exit — killed by
    /// someone else, a scenario's event — then starts it again on the same datadir
    /// and port, and waits until it takes logins (InnoDB's crash recovery first).
    pub fn restart_after_exit(&mut self, within: Duration) {
        let status = wait_bounded(&mut self.child, within);
        assert!(status.is_some(), "mariadbd did not exit within {within:?}");
        self.child = spawn_mariadbd(&self.dir, self.port, &self.extra);
        wait_for_port(self.port, &mut self.child, "mariadbd (restarted)");
        let start = Instant::now();
        while self.try_sql("SELECT 1").is_err() {
            assert!(
                start.elapsed() < Duration::from_secs(30),
                "mariadbd did not take logins within 30 s: {}",
                self.log()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// The server's log (for a failing test's message).
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path("server.log")).unwrap_or_default()
    }

    /// `mysql://bench:bench-pw@127.0.0.1:PORT/bench`
    pub fn url(&self) -> String {
        format!("mysql://{USER}:{PASSWORD}@127.0.0.1:{}/bench", self.port)
    }

    /// Runs `sql` as root over the socket with the `mariadb` client: setup and the
    /// server's own counts, independent of hakaru's client. Tab-separated, no names.
    pub fn sql(&self, sql: &str) -> String {
        match self.try_sql(sql) {
            Ok(out) => out,
            Err(e) => panic!("mariadb {sql:?} failed: {e}\n{}", self.log()),
        }
    }

    /// Runs `sql` as root over the socket in the background (a session holding
    /// locks while a test's load runs); the caller waits for the child.
    pub fn sql_in_background(&self, sql: &str) -> Child {
        Command::new("mariadb")
            .args(["--no-defaults", "-uroot", "-N", "-B"])
            .arg(format!("--socket={}", self.dir.path("sock").display()))
            .args(["-e", sql])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .spawn()
            .expect("the mariadb client runs")
    }

    pub fn try_sql(&self, sql: &str) -> Result<String, String> {
        let out = Command::new("mariadb")
            .args(["--no-defaults", "-uroot", "-N", "-B"])
            .arg(format!("--socket={}", self.dir.path("sock").display()))
            .args(["-e", sql])
            .stdin(Stdio::null())
            .output()
            .expect("the mariadb client runs");
        if !out.status.success() {
            return Err(String::from_utf8_lossy(&out.stderr).into_owned());
        }
        Ok(String::from_utf8_lossy(&out.stdout).trim_end().to_string())
    }

    /// SIGKILLs mariadbd (a crash: no shutdown, clients see their sockets reset).
    pub fn kill9(&mut self) {
        let pid = rustix::process::Pid::from_child(&self.child);
        let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
        wait_bounded(&mut self.child, Duration::from_secs(15));
    }

    /// A global status counter (`Com_select`…), read by the `mariadb` client.
    pub fn status(&self, name: &str) -> u64 {
        let line = self.sql(&format!("SHOW GLOBAL STATUS LIKE '{name}'"));
        line.split('\t').nth(1).unwrap().parse().unwrap()
    }
}

impl Drop for Mariadb {
    fn drop(&mut self) {
        let pid = rustix::process::Pid::from_child(&self.child);
        let _ = rustix::process::kill_process(pid, rustix::process::Signal::TERM);
        wait_bounded(&mut self.child, Duration::from_secs(15));
    }
}

/// mariadbd in the foreground on `dir`'s datadir and `port`: our child, its log in
/// `dir/server.log` (appended to, so a restart keeps the crash's lines).
fn spawn_mariadbd(dir: &TempDir, port: u16, extra: &[String]) -> Child {
    let log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(dir.path("server.log"))
        .unwrap();
    Command::new("/usr/sbin/mariadbd")
        .arg("--no-defaults")
        .arg(format!("--datadir={}", dir.path("data").display()))
        .args(["--user=root", "--bind-address=127.0.0.1"])
        .arg(format!("--tmpdir={}", dir.path("tmp").display()))
        .arg(format!("--port={port}"))
        .arg(format!("--socket={}", dir.path("sock").display()))
        .arg(format!("--pid-file={}", dir.path("pid").display()))
        .args(["--skip-log-bin", "--innodb-flush-log-at-trx-commit=2"])
        .args(["--skip-name-resolve", "--innodb-buffer-pool-size=32M"])
        .args(extra)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::from(log))
        .spawn()
        .expect("mariadbd starts")
}

/// A socket, in the clear or in TLS.
trait Stream: Read + Write {}
impl<T: Read + Write> Stream for T {}

/// A blocking connection over `hakaru::sql::mysql`: the test's client; `ca` is the
/// PEM file a TLS server's certificate is checked against.
struct Conn {
    sock: Box<dyn Stream>,
    buf: Vec<u8>,
    joined: Vec<u8>,
    out: Vec<u8>,
    answer: Answer,
}

impl Conn {
    fn connect(u: &MyUrl) -> Result<Conn, LoginError> {
        Conn::connect_tls(u, None)
    }

    fn connect_tls(u: &MyUrl, ca: Option<&std::path::Path>) -> Result<Conn, LoginError> {
        let tcp = TcpStream::connect((u.host.as_str(), u.port)).unwrap();
        tcp.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        let mut c = Conn {
            sock: Box::new(tcp.try_clone().unwrap()),
            buf: Vec::new(),
            joined: Vec::new(),
            out: Vec::new(),
            answer: Answer::default(),
        };
        let mut login = Login::new(&u.user, u.password.as_deref(), &u.database);
        let (seq, p) = c.read_packet();
        let tls = login.greeting(seq, &p, u.ssl_mode, &mut c.out)?;
        c.flush();
        if tls {
            // The SSLRequest is out; TLS now, then the response inside it.
            assert!(c.buf.is_empty());
            c.sock = Box::new(tls_stream(tcp, ca.expect("a CA for a TLS server")));
            login.respond(&mut c.out);
            c.flush();
        }
        loop {
            let (seq, p) = c.read_packet();
            match login.feed(seq, &p, &mut c.out)? {
                LoginStep::Sent => c.flush(),
                LoginStep::Wait => {}
                LoginStep::Done => return Ok(c),
            }
        }
    }

    fn flush(&mut self) {
        self.sock.write_all(&self.out).unwrap();
        self.out.clear();
    }

    /// The next packet (copied: the test is not the hot path).
    fn read_packet(&mut self) -> (u8, Vec<u8>) {
        let start = Instant::now();
        loop {
            if let Some((seq, p, used)) = next_packet(&self.buf, &mut self.joined).unwrap() {
                let p = p.to_vec();
                self.buf.drain(..used);
                return (seq, p);
            }
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "no packet in 10 s"
            );
            let mut chunk = [0u8; 4096];
            let n = self.sock.read(&mut chunk).unwrap();
            assert!(n > 0, "the server closed the connection");
            self.buf.extend_from_slice(&chunk[..n]);
        }
    }

    /// Sends what `write` put in the buffer and folds the answer, read as `mode`.
    fn run(&mut self, mode: Mode, write: impl FnOnce(&mut Vec<u8>)) -> &Answer {
        write(&mut self.out);
        self.flush();
        self.answer.reset(mode);
        loop {
            let (seq, p) = self.read_packet();
            if self.answer.feed(seq, &p).unwrap() == Step::Done {
                return &self.answer;
            }
        }
    }

    fn query(&mut self, sql: &str) -> &Answer {
        self.run(Mode::Text, |o| command::query(o, sql))
    }

    fn first_row(&self) -> Vec<Option<String>> {
        let mut row = Vec::new();
        self.answer.first_row(&mut row);
        row.iter()
            .map(|v| v.map(|b| String::from_utf8_lossy(b).into_owned()))
            .collect()
    }
}

/// A rustls client over `tcp` that trusts `ca` only, for 127.0.0.1.
fn tls_stream(
    tcp: TcpStream,
    ca: &std::path::Path,
) -> rustls::StreamOwned<rustls::ClientConnection, TcpStream> {
    use rustls::pki_types::pem::PemObject;
    let mut roots = rustls::RootCertStore::empty();
    for c in rustls::pki_types::CertificateDer::pem_file_iter(ca).unwrap() {
        roots.add(c.unwrap()).unwrap();
    }
    let provider = std::sync::Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
    let name = rustls::pki_types::ServerName::try_from("127.0.0.1").unwrap();
    let conn = rustls::ClientConnection::new(std::sync::Arc::new(config), name).unwrap();
    rustls::StreamOwned::new(conn, tcp)
}

fn s(v: &str) -> Option<String> {
    Some(v.to_string())
}

#[test]
fn mysql_login_and_text_queries_against_mariadb_with_the_servers_own_count() {
    let Some(db) = Mariadb::start() else { return };
    let u = MyUrl::parse(&format!("{}?ssl-mode=PREFERRED", db.url())).unwrap();
    assert_eq!(u.ssl_mode, SslMode::Preferred);
    let mut c = Conn::connect(&u).expect("mysql_native_password login");
    let before = db.status("Com_select");
    for _ in 0..10 {
        let a = c.query("SELECT 1, NULL, 'x'");
        assert_eq!((a.rows, a.code), (1, 0));
    }
    assert_eq!(c.first_row(), vec![s("1"), None, s("x")]);
    assert_eq!(
        db.status("Com_select") - before,
        10,
        "SHOW STATUS is not a Com_select"
    );
    // Several statements in one COM_QUERY: each result counted, all rows.
    let a = c.query("SELECT 1 UNION ALL SELECT 2; SELECT 3");
    assert_eq!((a.rows, a.results), (3, 2));
    let a = c.query("CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(10)) ENGINE=InnoDB");
    assert_eq!((a.code, a.results), (0, 1));
    let a = c.query("INSERT INTO t VALUES (1, 'a'), (2, NULL)");
    assert_eq!(a.affected, 2);
    let a = c.query("INSERT INTO t VALUES (1, 'dup')");
    assert_eq!(a.error_kind(), Some(MyErrorKind::DuplicateKey));
    assert_eq!(&a.sqlstate, b"23000");
    assert!(a.message.contains("Duplicate entry"), "{}", a.message);
    let a = c.query("SELEC 1");
    assert_eq!(
        (a.code, a.error_kind()),
        (1064, Some(MyErrorKind::Other(*b"42")))
    );
    // The connection goes on after errors.
    let a = c.query("SELECT COUNT(*) FROM t");
    assert_eq!((a.rows, a.code), (1, 0));
    assert_eq!(c.first_row(), vec![s("2")]);
}

#[test]
fn mysql_prepared_statements_give_binary_rows_as_text_and_count_as_the_server_does() {
    let Some(db) = Mariadb::start() else { return };
    db.sql(
        "CREATE TABLE bench.t (id INT PRIMARY KEY, big BIGINT UNSIGNED, v VARCHAR(10), \
         d DATE, f DOUBLE); INSERT INTO bench.t VALUES \
         (1, 18446744073709551615, 'a', '2026-11-29', 1.5), (2, 0, NULL, NULL, -2)",
    );
    let mut c = Conn::connect(&MyUrl::parse(&db.url()).unwrap()).unwrap();
    let a = c.run(Mode::Prepare, |o| {
        command::prepare(
            o,
            "SELECT id, big, v, d, f FROM t WHERE id >= ? ORDER BY id",
        )
    });
    assert_eq!((a.code, a.params, a.columns), (0, 1, 5));
    let id = a.stmt_id;
    let before = db.status("Com_stmt_execute");
    for _ in 0..5 {
        let a = c.run(Mode::Binary, |o| command::execute(o, id, &[Some(b"1")]));
        assert_eq!((a.rows, a.code), (2, 0));
    }
    assert_eq!(
        c.first_row(),
        vec![
            s("1"),
            s("18446744073709551615"),
            s("a"),
            s("2026-11-29"),
            s("1.5")
        ]
    );
    let a = c.run(Mode::Binary, |o| command::execute(o, id, &[Some(b"2")]));
    assert_eq!(a.rows, 1);
    assert_eq!(c.first_row(), vec![s("2"), s("0"), None, None, s("-2")]);
    let a = c.run(Mode::Binary, |o| command::execute(o, id, &[None]));
    assert_eq!(a.rows, 0, "id >= NULL is no row");
    assert_eq!(db.status("Com_stmt_execute") - before, 7);
    // An unknown statement id is the server's error, by kind, not a hang.
    let a = c.run(Mode::Binary, |o| command::execute(o, id + 99, &[]));
    assert_eq!(a.code, 1243, "ER_UNKNOWN_STMT_HANDLER: {}", a.message);
    c.out.clear();
    command::close(&mut c.out, id);
    command::quit(&mut c.out);
    c.flush();
}

#[test]
fn mysql_wrong_password_and_unknown_database_are_refused_by_the_server_s_code() {
    let Some(db) = Mariadb::start() else { return };
    let wrong = MyUrl::parse(&format!("mysql://{USER}:nope@127.0.0.1:{}/bench", db.port)).unwrap();
    match Conn::connect(&wrong) {
        Err(LoginError::Server(e)) => assert_eq!(e.code, 1045, "{e}"),
        Err(e) => panic!("{e}"),
        Ok(_) => panic!("a wrong password logged in"),
    }
    let nodb = url::MyUrl::parse(&format!(
        "mysql://{USER}:{PASSWORD}@127.0.0.1:{}/nosuch",
        db.port
    ))
    .unwrap();
    match Conn::connect(&nodb) {
        Err(LoginError::Server(e)) => assert_eq!(e.code, 1049, "{e}"),
        Err(e) => panic!("{e}"),
        Ok(_) => panic!("an unknown database logged in"),
    }
    let req = MyUrl::parse(&format!("{}?ssl-mode=REQUIRED", db.url())).unwrap();
    match Conn::connect(&req) {
        Err(LoginError::Unsupported(m)) => assert!(m.contains("does not offer"), "{m}"),
        Err(e) => panic!("{e}"),
        Ok(_) => panic!("REQUIRED went on in the clear"),
    }
}

/// TLS: the login asks for it first (SSLRequest) when the server offers it under
/// PREFERRED and REQUIRED, the password's scramble then goes inside TLS, and the
/// server's own `Ssl_cipher` says the session is encrypted; DISABLED stays in the clear.
#[test]
fn mysql_login_goes_into_tls_when_the_server_offers_it() {
    if !have("openssl") {
        return;
    }
    let certs = TempDir::new("mysql-certs");
    crate::util::make_certificates(&certs);
    let opts = [
        format!("--ssl-cert={}", certs.path("cert.pem").display()),
        format!("--ssl-key={}", certs.path("key.pem").display()),
        format!("--ssl-ca={}", certs.path("ca.pem").display()),
    ];
    let Some(db) = Mariadb::start_with(&opts) else {
        return;
    };
    let ca = certs.path("ca.pem");
    for mode in ["PREFERRED", "REQUIRED", "VERIFY_IDENTITY"] {
        let u = MyUrl::parse(&format!("{}?ssl-mode={mode}", db.url())).unwrap();
        let mut c = Conn::connect_tls(&u, Some(&ca)).unwrap();
        let a = c.query("SHOW SESSION STATUS LIKE 'Ssl_cipher'");
        assert_eq!((a.rows, a.code), (1, 0));
        let cipher = c.first_row()[1].clone().unwrap_or_default();
        assert!(!cipher.is_empty(), "{mode}: not in TLS");
    }
    // MysqlAdmin and the engine's MysqlConn: VERIFY_IDENTITY against ssl-ca, and
    // REQUIRED; each TLS session the server's own Ssl_accepts counts.
    let verified = format!(
        "{}?ssl-mode=VERIFY_IDENTITY&ssl-ca={}",
        db.url(),
        ca.display()
    );
    let mut a = hakaru::http::mysql::MysqlAdmin::connect(
        &MyUrl::parse(&verified).unwrap(),
        None,
        Duration::from_secs(10),
    )
    .unwrap();
    let rows = a
        .simple_query("SHOW SESSION STATUS LIKE 'Ssl_cipher'")
        .unwrap();
    assert!(
        rows[0][1].as_deref().is_some_and(|c| !c.is_empty()),
        "{rows:?}"
    );
    let dir = TempDir::new("mysql-tls-run");
    let tx = dir.path("tx.sql");
    std::fs::write(&tx, "SELECT 1;\n").unwrap();
    for url in [verified, format!("{}?ssl-mode=REQUIRED", db.url())] {
        let before = db.status("Ssl_accepts");
        let csv = dir.path("tls.csv");
        let args = [
            "run",
            "-c",
            "2",
            "-n",
            "20",
            "-q",
            "-f",
            tx.to_str().unwrap(),
        ];
        let o = crate::util::run(&[&args[..], &["-o", csv.to_str().unwrap(), &url]].concat());
        assert_eq!(
            o.status.code(),
            Some(0),
            "{url}: {}",
            crate::util::stderr(&o)
        );
        let j = crate::util::read_json(&dir.path("tls.json"));
        assert_eq!(j["steps"][0]["connections_opened"].as_u64(), Some(2));
        // The `mariadb` client reading the counter goes into TLS too, over the
        // socket: its own session is the one more.
        let accepted = db.status("Ssl_accepts") - before;
        assert_eq!(accepted, 2 + 1, "{url}: one TLS session a client");
    }
    let stranger = format!("{}?ssl-mode=VERIFY_IDENTITY", db.url());
    let o = crate::util::run(&[
        "run",
        "-c",
        "1",
        "-n",
        "2",
        "-q",
        "-f",
        tx.to_str().unwrap(),
        &stranger,
    ]);
    assert_eq!(
        o.status.code(),
        Some(1),
        "an unknown CA is refused: {}",
        crate::util::stderr(&o)
    );
    let u = MyUrl::parse(&format!("{}?ssl-mode=DISABLED", db.url())).unwrap();
    let mut c = Conn::connect_tls(&u, Some(&ca)).unwrap();
    c.query("SHOW SESSION STATUS LIKE 'Ssl_cipher'");
    assert_eq!(
        c.first_row()[1].as_deref(),
        Some(""),
        "DISABLED stays in the clear"
    );
}

/// `http::mysql::MysqlAdmin`, the blocking client setup and probes use: rows of
/// every result set as text, the server's error by code, a wrong password named as
/// a refused login, and a silent server an error within its timeout, not a hang.
#[test]
fn mysql_admin_reads_rows_as_text_and_names_errors() {
    use hakaru::http::mysql::MysqlAdmin;
    let Some(db) = Mariadb::start() else { return };
    let u = MyUrl::parse(&db.url()).unwrap();
    let t = Duration::from_secs(10);
    let mut a = MysqlAdmin::connect(&u, None, t).unwrap();
    let rows = a
        .simple_query(
            "CREATE TABLE t (id INT PRIMARY KEY, v TEXT); INSERT INTO t VALUES (1, 'a'), (2, NULL)",
        )
        .unwrap();
    assert!(rows.is_empty());
    let rows = a
        .simple_query("SELECT id, v FROM t ORDER BY id; SELECT 3")
        .unwrap();
    assert_eq!(
        rows,
        vec![vec![s("1"), s("a")], vec![s("2"), None], vec![s("3")]]
    );
    let rows = a
        .simple_query("SHOW GLOBAL STATUS LIKE 'Com_select'")
        .unwrap();
    assert_eq!(rows[0][0].as_deref(), Some("Com_select"));
    let e = a
        .simple_query("INSERT INTO t VALUES (1, 'dup')")
        .unwrap_err();
    assert_eq!((e.code, e.sqlstate.as_deref()), (Some(1062), Some("23000")));
    assert_eq!(
        a.simple_query("SELECT COUNT(*) FROM t").unwrap(),
        vec![vec![s("2")]]
    );
    let wrong = MyUrl::parse(&format!("mysql://{USER}:nope@127.0.0.1:{}/bench", db.port)).unwrap();
    let e = MysqlAdmin::connect(&wrong, None, t)
        .err()
        .expect("a wrong password is refused");
    assert_eq!(e.code, Some(1045), "{e}");
    assert!(
        e.to_string().contains("login refused") && !e.to_string().contains("nope"),
        "{e}"
    );
    // MYSQL_PWD's way in: the password given apart from the URL.
    let bare = MyUrl::parse(&format!("mysql://{USER}@127.0.0.1:{}/bench", db.port)).unwrap();
    MysqlAdmin::connect(&bare, Some(PASSWORD), t).unwrap();
    // A listener that accepts and never speaks: an error in about the timeout.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = silent.local_addr().unwrap().port();
    let quiet = MyUrl::parse(&format!("mysql://u@127.0.0.1:{port}/db")).unwrap();
    let started = Instant::now();
    assert!(MysqlAdmin::connect(&quiet, None, Duration::from_millis(300)).is_err());
    assert!(started.elapsed() < Duration::from_secs(5));
}
