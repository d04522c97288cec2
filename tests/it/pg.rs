//! PostgreSQL against the real thing: a private PostgreSQL 15 per test (Debian's
//! `postgresql-15`, installed by `.ci/run`), initialised into a temp dir, listening on a
//! loopback port with SCRAM-SHA-256 logins, stopped by its PID. The server refuses to
//! run as root, so as root it runs as Debian's `postgres` user (FIELD-NOTES.md).

use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use hakaru::http::pg::{PgAdmin, PgError};
use hakaru::sql::pg::url::PgUrl;

use crate::util::{free_port, is_root, wait_bounded, wait_for_port, TempDir};

/// Where Debian puts PostgreSQL 15's programs.
pub const PG_BIN: &str = "/usr/lib/postgresql/15/bin";

/// The superuser `initdb` creates and its password (TCP logins need SCRAM-SHA-256).
pub const USER: &str = "bench";
pub const PASSWORD: &str = "bench-pw";

/// A private PostgreSQL server: the postmaster is our child (its PID is the server),
/// SIGTERM'd and waited for when dropped, then the temp dir goes.
pub struct Postgres {
    child: Child,
    pub port: u16,
    /// The Unix socket directory (`psql -h DIR` logs in by trust).
    pub socket_dir: PathBuf,
    dir: TempDir,
    /// The `-c` settings it started with, for a restart.
    extra: Vec<String>,
}

/// The postmaster on `dir`'s data directory, in the foreground, its log appended to
/// `dir/server.log`.
fn spawn_postgres(dir: &TempDir, port: u16, extra: &[String]) -> Child {
    let log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(dir.path("server.log"))
        .unwrap();
    as_postgres(&mut Command::new(pg_program("postgres")))
        .arg("-D")
        .arg(dir.path("data"))
        .args(["-p", &port.to_string(), "-k"])
        .arg(&dir.0)
        .args(["-c", "listen_addresses=127.0.0.1", "-c", "fsync=off"])
        .args(["-c", "synchronous_commit=off", "-c", "full_page_writes=off"])
        .args(extra.iter().flat_map(|s| ["-c", s.as_str()]))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::from(log))
        .spawn()
        .expect("postgres starts")
}

fn pg_program(name: &str) -> PathBuf {
    PathBuf::from(PG_BIN).join(name)
}

/// Is PostgreSQL 15 installed? In CI it must be (`.ci/run` installs it).
pub fn have_postgres() -> bool {
    let found = pg_program("postgres").exists();
    if !found {
        assert!(
            std::env::var_os("CI").is_none(),
            "PostgreSQL 15 is not installed in {PG_BIN}, but CI must run this test (.ci/run installs it)"
        );
        eprintln!("skipped: PostgreSQL 15 is not installed in {PG_BIN}");
    }
    found
}

/// The `postgres` user's uid and gid, when we are root (the server refuses root).
fn postgres_ids() -> Option<(u32, u32)> {
    if !is_root() {
        return None;
    }
    let passwd = std::fs::read_to_string("/etc/passwd").ok()?;
    let line = passwd.lines().find(|l| l.starts_with("postgres:"))?;
    let mut f = line.split(':').skip(2);
    Some((f.next()?.parse().ok()?, f.next()?.parse().ok()?))
}

fn as_postgres(cmd: &mut Command) -> &mut Command {
    if let Some((uid, gid)) = postgres_ids() {
        cmd.uid(uid).gid(gid);
    }
    cmd
}

impl Postgres {
    /// Starts a server with `extra` `-c name=value` settings; `None` if not installed.
    pub fn start(extra: &[&str]) -> Option<Postgres> {
        if !have_postgres() {
            return None;
        }
        let dir = TempDir::new("postgres");
        // A temp dir is 0700 root's: the postgres user must reach its data dir inside.
        std::fs::set_permissions(&dir.0, std::fs::Permissions::from_mode(0o777)).unwrap();
        let pwfile = dir.write("pw", PASSWORD);
        std::fs::set_permissions(&pwfile, std::fs::Permissions::from_mode(0o644)).unwrap();
        let data = dir.path("data");
        let out = as_postgres(&mut Command::new(pg_program("initdb")))
            .arg("-D")
            .arg(&data)
            .args([
                "-U",
                USER,
                "--auth-local=trust",
                "--auth-host=scram-sha-256",
            ])
            .arg(format!("--pwfile={}", pwfile.display()))
            .args(["--no-sync", "--no-instructions"])
            .stdin(Stdio::null())
            .output()
            .expect("initdb runs");
        assert!(
            out.status.success(),
            "initdb failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let port = free_port();
        let extra: Vec<String> = extra.iter().map(|s| s.to_string()).collect();
        let mut child = spawn_postgres(&dir, port, &extra);
        wait_for_port(port, &mut child, "postgres");
        let pg = Postgres {
            child,
            port,
            socket_dir: dir.0.clone(),
            dir,
            extra,
        };
        pg.wait_ready();
        Some(pg)
    }

    /// `postmaster.pid`, whose first line is the running postmaster's PID (a
    /// scenario's target reads it again at each event, across restarts).
    pub fn pid_file(&self) -> PathBuf {
        self.dir.path("data/postmaster.pid")
    }

    /// Once the postmaster has exited (an immediate shutdown, SIGQUIT, sent by
    /// someone else) within `within`, starts it again on the same data and port, as
    /// a supervisor would, and waits until it takes logins (after crash recovery).
    pub fn restart_after_exit(&mut self, within: Duration) {
        let status = wait_bounded(&mut self.child, within);
        assert!(
            status.is_some(),
            "the postmaster did not exit within {within:?}"
        );
        self.child = spawn_postgres(&self.dir, self.port, &self.extra);
        wait_for_port(self.port, &mut self.child, "postgres (restarted)");
        self.wait_ready();
    }

    /// The port answers before the server takes logins ("the database system is
    /// starting up"): poll with psql over the socket, bounded.
    fn wait_ready(&self) {
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(15) {
            if self.try_psql("postgres", "SELECT 1").is_ok() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!("postgres did not take logins within 15 s: {}", self.log());
    }

    /// The server's log (for a failing test's message).
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path("server.log")).unwrap_or_default()
    }

    /// `postgres://bench:PASSWORD@127.0.0.1:PORT/db`
    pub fn url(&self, db: &str) -> String {
        format!("postgres://{USER}:{PASSWORD}@127.0.0.1:{}/{db}", self.port)
    }

    fn try_psql(&self, db: &str, sql: &str) -> Result<String, String> {
        let out = Command::new(pg_program("psql"))
            .arg("-h")
            .arg(&self.socket_dir)
            .args(["-p", &self.port.to_string(), "-U", USER, "-d", db])
            .args(["-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-c", sql])
            .stdin(Stdio::null())
            .output()
            .map_err(|e| e.to_string())?;
        if out.status.success() {
            Ok(String::from_utf8_lossy(&out.stdout).trim_end().to_string())
        } else {
            Err(String::from_utf8_lossy(&out.stderr).into_owned())
        }
    }

    /// Runs `sql` as the superuser over the Unix socket (trust): setup and the
    /// server's own counts, independent of hakaru's client. Unaligned, tuples only.
    pub fn psql(&self, db: &str, sql: &str) -> String {
        self.try_psql(db, sql)
            .unwrap_or_else(|e| panic!("psql {sql:?} failed: {e}"))
    }

    /// Adds a line to pg_hba.conf ahead of the others (first match wins) and reloads.
    pub fn hba_first(&self, line: &str) {
        let path = self.dir.path("data/pg_hba.conf");
        let old = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, format!("{line}\n{old}")).unwrap();
        self.psql("postgres", "SELECT pg_reload_conf()");
        // The postmaster rereads on SIGHUP, asynchronously; new backends fork from it.
        std::thread::sleep(Duration::from_millis(300));
    }
}

impl Drop for Postgres {
    fn drop(&mut self) {
        // SIGTERM is a smart shutdown that lets backends end; SIGKILL if it lingers.
        // (wait_bounded kills it by PID if it is still there after the limit.)
        let pid = rustix::process::Pid::from_child(&self.child);
        let _ = rustix::process::kill_process(pid, rustix::process::Signal::TERM);
        wait_bounded(&mut self.child, Duration::from_secs(10));
    }
}

/// The harness itself: a server starts, takes a SCRAM login's queries over psql and
/// stops by its PID when dropped.
#[test]
fn pg_harness_starts_a_private_server_and_stops_it_by_pid() {
    let Some(pg) = Postgres::start(&[]) else {
        return;
    };
    assert_eq!(pg.psql("postgres", "SELECT 40 + 2"), "42");
    assert_eq!(
        pg.psql("postgres", "SHOW password_encryption"),
        "scram-sha-256"
    );
    // hakaru's own client logs in with the URL's password (SCRAM-SHA-256).
    let url = PgUrl::parse(&pg.url("postgres")).unwrap();
    let mut c = PgAdmin::connect(&url, None, Duration::from_secs(10)).expect("login");
    assert_eq!(
        c.simple_query("SELECT 42").unwrap()[0][0].as_deref(),
        Some("42")
    );
    drop(c);
    let pid = pg.child.id();
    drop(pg);
    assert!(
        !std::path::Path::new(&format!("/proc/{pid}")).exists(),
        "the postmaster {pid} is gone after drop"
    );
}

/// hakaru's blocking admin connection (`http::pg::PgAdmin`) to `pg` as `user`.
pub fn admin(
    pg: &Postgres,
    user: &str,
    password: Option<&str>,
    db: &str,
) -> Result<PgAdmin, PgError> {
    let url = PgUrl::parse(&format!(
        "postgres://{user}@127.0.0.1:{}/{db}?sslmode=prefer",
        pg.port
    ))
    .unwrap();
    PgAdmin::connect(&url, password, Duration::from_secs(10))
}

/// The login answers every method the server asks for: SCRAM-SHA-256 (initdb's
/// host default), md5 (a user whose password is stored as md5, with an md5 line in
/// pg_hba.conf), cleartext `password` and `trust`; a wrong password is refused with
/// the server's SQLSTATE 28P01. sslmode=prefer falls back when the server says `N`.
#[test]
fn pg_admin_logs_in_by_scram_md5_password_and_trust() {
    let Some(pg) = Postgres::start(&[]) else {
        return;
    };
    let mut scram = admin(&pg, USER, Some(PASSWORD), "postgres").expect("SCRAM login");
    let rows = scram
        .simple_query("SELECT 1 + 1, NULL::text, 'a b'")
        .unwrap();
    assert_eq!(
        rows,
        vec![vec![Some("2".to_string()), None, Some("a b".to_string())]]
    );
    drop(scram);

    pg.psql(
        "postgres",
        "SET password_encryption = 'md5'; CREATE ROLE m LOGIN PASSWORD 'mpw'; \
         CREATE ROLE c LOGIN PASSWORD 'cpw'; CREATE ROLE t LOGIN",
    );
    pg.hba_first("host all m 127.0.0.1/32 md5\nhost all c 127.0.0.1/32 password\nhost all t 127.0.0.1/32 trust");
    let mut md5 = admin(&pg, "m", Some("mpw"), "postgres").expect("md5 login");
    assert_eq!(
        md5.simple_query("SELECT current_user").unwrap()[0][0].as_deref(),
        Some("m")
    );
    let mut clear = admin(&pg, "c", Some("cpw"), "postgres").expect("cleartext login");
    assert_eq!(
        clear.simple_query("SELECT current_user").unwrap()[0][0].as_deref(),
        Some("c")
    );
    let mut trust = admin(&pg, "t", None, "postgres").expect("trust login");
    assert_eq!(
        trust.simple_query("SELECT current_user").unwrap()[0][0].as_deref(),
        Some("t")
    );

    let wrong = admin(&pg, "m", Some("nope"), "postgres")
        .err()
        .expect("a wrong password fails");
    assert!(wrong.to_string().contains("28P01"), "{wrong}");
    assert!(!wrong.to_string().contains("nope"), "{wrong}");
    let none = admin(&pg, USER, None, "postgres")
        .err()
        .expect("no password fails");
    assert!(none.to_string().contains("PGPASSWORD"), "{none}");
    let url = PgUrl::parse(&format!(
        "postgres://{USER}@127.0.0.1:{}/postgres?sslmode=require",
        pg.port
    ))
    .unwrap();
    let e = PgAdmin::connect(&url, Some(PASSWORD), Duration::from_secs(10))
        .err()
        .unwrap();
    assert!(e.to_string().contains("does not offer TLS"), "{e}");
}

/// copy_in loads rows the way `pgbench -i` does, in chunks; a failing statement
/// names its SQLSTATE, and the connection goes on after it.
#[test]
fn pg_admin_copies_rows_in_and_reports_errors_by_sqlstate() {
    let Some(pg) = Postgres::start(&[]) else {
        return;
    };
    let mut c = admin(&pg, USER, Some(PASSWORD), "postgres").unwrap();
    c.simple_query("CREATE TABLE t (id int PRIMARY KEY, v text)")
        .unwrap();
    let chunks: Vec<String> = (0..10)
        .map(|k| {
            (k * 100..(k + 1) * 100)
                .map(|i| format!("{i}\tv{i}\n"))
                .collect()
        })
        .collect();
    assert_eq!(c.copy_in("COPY t FROM STDIN", &chunks).unwrap(), 1000);
    let rows = c.simple_query("SELECT count(*), max(v) FROM t").unwrap();
    assert_eq!(rows[0][0].as_deref(), Some("1000"));
    let e = c
        .simple_query("INSERT INTO t VALUES (5, 'dup')")
        .unwrap_err();
    assert_eq!(e.sqlstate.as_deref(), Some("23505"), "{e}");
    let e = c.copy_in("COPY t FROM STDIN", ["1\tdup\n"]).unwrap_err();
    assert_eq!(e.sqlstate.as_deref(), Some("23505"), "{e}");
    let e = c.simple_query("SELECT 1/0").unwrap_err();
    assert_eq!(e.sqlstate.as_deref(), Some("22012"), "{e}");
    assert_eq!(
        c.simple_query("SELECT 'still here'").unwrap()[0][0].as_deref(),
        Some("still here")
    );
    // The server's own count of what committed, as the engine tests will read it.
    let commits = c
        .simple_query("SELECT xact_commit FROM pg_stat_database WHERE datname = 'postgres'")
        .unwrap();
    assert!(commits[0][0].as_deref().unwrap().parse::<u64>().unwrap() > 0);
}

/// sslmode over TLS: a server with `ssl=on` and a certificate for 127.0.0.1 signed by
/// a test CA. `require` takes any certificate; `verify-full` takes it with the CA as
/// `sslrootcert` and refuses it without; `prefer` goes into TLS when offered (the
/// server's pg_stat_ssl says so).
#[test]
fn pg_admin_speaks_tls_for_require_and_verify_full() {
    if !crate::util::have("openssl") || !have_postgres() {
        return;
    }
    let certs = TempDir::new("pg-certs");
    crate::util::make_certificates(&certs);
    std::fs::set_permissions(&certs.0, std::fs::Permissions::from_mode(0o755)).unwrap();
    let key = certs.path("key.pem");
    std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o600)).unwrap();
    if let Some((uid, gid)) = postgres_ids() {
        std::os::unix::fs::chown(&key, Some(uid), Some(gid)).unwrap();
    }
    std::fs::set_permissions(
        certs.path("cert.pem"),
        std::fs::Permissions::from_mode(0o644),
    )
    .unwrap();
    let cert_opt = format!("ssl_cert_file={}", certs.path("cert.pem").display());
    let key_opt = format!("ssl_key_file={}", key.display());
    let Some(pg) = Postgres::start(&["ssl=on", &cert_opt, &key_opt]) else {
        return;
    };
    let ca = certs.path("ca.pem");
    let connect = |query: &str| {
        let url = format!("postgres://{USER}@127.0.0.1:{}/postgres?{query}", pg.port);
        PgAdmin::connect(
            &PgUrl::parse(&url).unwrap(),
            Some(PASSWORD),
            Duration::from_secs(10),
        )
    };
    let on_tls = "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()";
    for query in [
        "sslmode=require".to_string(),
        "sslmode=prefer".to_string(),
        format!("sslmode=verify-full&sslrootcert={}", ca.display()),
    ] {
        let mut c = connect(&query).unwrap_or_else(|e| panic!("{query}: {e}"));
        assert_eq!(
            c.simple_query(on_tls).unwrap()[0][0].as_deref(),
            Some("t"),
            "{query}"
        );
    }
    let mut plain = connect("sslmode=disable").unwrap();
    assert_eq!(
        plain.simple_query(on_tls).unwrap()[0][0].as_deref(),
        Some("f")
    );
    let e = connect("sslmode=verify-full")
        .err()
        .expect("an unknown CA is refused");
    assert!(e.to_string().contains("TLS handshake"), "{e}");
}

/// The engine's connection (`http::pg_conn::PgConn`) in each query mode: every
/// statement's answer framed to ReadyForQuery (rows, first row, SQLSTATE), prepared
/// statements Parse'd once per connection (the server's pg_prepared_statements),
/// a failed statement in a block rolled back, and the server's own count of
/// committed transactions equal to the statements sent.
#[test]
fn pg_conn_runs_statements_in_each_mode_as_the_server_counts_them() {
    use hakaru::http::pg_conn::PgConn;
    use hakaru::sql::pg::frontend::QueryMode;
    let Some(pg) = Postgres::start(&[]) else {
        return;
    };
    pg.psql("postgres", "CREATE DATABASE hb");
    let mut a = admin(&pg, USER, Some(PASSWORD), "postgres").unwrap();
    let commits = |a: &mut PgAdmin| -> u64 {
        let q = "SELECT xact_commit FROM pg_stat_database WHERE datname = 'hb'";
        a.simple_query(q).unwrap()[0][0]
            .as_deref()
            .unwrap()
            .parse()
            .unwrap()
    };
    let before = commits(&mut a);
    let url = PgUrl::parse(&pg.url("hb")).unwrap();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    const N: i64 = 300;
    rt.block_on(async {
        let mut c = PgConn::connect(&url, None).await.expect("login");
        for (mode, sql) in [
            (
                QueryMode::Simple,
                "SELECT 7, NULL::int FROM generate_series(1, 3)",
            ),
            (
                QueryMode::Extended,
                "SELECT $1::int, NULL::int FROM generate_series(1, 3)",
            ),
            (
                QueryMode::Prepared,
                "SELECT $1::int, NULL::int FROM generate_series(1, 3)",
            ),
        ] {
            for i in 0..N {
                let v = i.to_string();
                let p = [Some(v.as_bytes())];
                let params: &[Option<&[u8]>] = if mode == QueryMode::Simple { &[] } else { &p };
                let ans = c
                    .statement(mode, 0, sql, params, Some("P0_0"))
                    .await
                    .unwrap();
                assert_eq!((ans.rows, ans.sqlstate), (3, None), "{mode:?} {i}");
                let mut row = Vec::new();
                ans.first_row(&mut row);
                let want = if mode == QueryMode::Simple {
                    "7".to_string()
                } else {
                    v.clone()
                };
                assert_eq!(row, vec![Some(want.as_bytes()), None]);
            }
        }
        let ans = c
            .statement(
                QueryMode::Simple,
                1,
                "SELECT count(*) FROM pg_prepared_statements",
                &[],
                None,
            )
            .await
            .unwrap();
        let mut row = Vec::new();
        ans.first_row(&mut row);
        assert_eq!(row, vec![Some(&b"1"[..])], "one Parse for {N} executions");
        // A failed statement inside a block leaves it failed ('E') until ROLLBACK.
        c.statement(QueryMode::Simple, 2, "BEGIN", &[], None)
            .await
            .unwrap();
        let ans = c
            .statement(
                QueryMode::Extended,
                3,
                "SELECT 1/$1::int",
                &[Some(b"0")],
                None,
            )
            .await
            .unwrap();
        assert_eq!(ans.sqlstate, Some(*b"22012"));
        let kind = hakaru::http::pg_conn::sql_error_kind(ans.error_kind().unwrap());
        assert_eq!(
            kind,
            hakaru::stats::ErrorKind::SqlError,
            "22012 is any other SQL error"
        );
        assert_eq!(c.status, b'E');
        c.rollback().await.unwrap();
        assert_eq!(c.status, b'I');
        assert!(c.bytes_in > 0 && c.bytes_out > 0);
    });
    // The backend flushes its counts when it exits; poll (bounded) until they land.
    // Its login is a transaction of its own (the catalog reads of InitPostgres).
    let want = before + 3 * N as u64 + 1 + 1;
    let start = std::time::Instant::now();
    let mut got = commits(&mut a);
    while got < want && start.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(100));
        got = commits(&mut a);
    }
    assert_eq!(
        got, want,
        "xact_commit delta: {N} statements in each of 3 modes + the pg_prepared_statements query"
    );
}

/// A hostile PostgreSQL-speaking server: after the startup it answers `reply`
/// then closes (`close`) or keeps the connection open, so only the bytes themselves
/// can end the wait.
fn hostile(reply: &'static [u8], close: bool) -> (u16, std::thread::JoinHandle<()>) {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let handle = std::thread::spawn(move || {
        let (mut s, _) = listener.accept().unwrap();
        s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        let mut startup = [0u8; 512];
        let _ = s.read(&mut startup);
        let _ = s.write_all(reply);
        if !close {
            let _ = s.read(&mut startup); // until the client gives up and closes
        }
    });
    (port, handle)
}

/// Each broken answer ends the login with its own error kind, promptly: a message
/// length of 2^31 (refused, not awaited), garbage, an unexpected message, a close
/// mid-message, an authentication method hakaru does not speak.
#[test]
fn pg_conn_refuses_a_hostile_server_s_bytes_by_kind_without_hanging() {
    use hakaru::http::pg_conn::PgConn;
    use hakaru::stats::ErrorKind;
    let cases: [(&'static [u8], ErrorKind, &str); 5] = [
        (
            b"R\x80\0\0\0\0\0\0\0",
            ErrorKind::Malformed,
            "length 2147483648",
        ),
        (
            b"\x00\x01\x02\x03\x04garbage",
            ErrorKind::Malformed,
            "unexpected message '0x00'",
        ),
        (
            b"D\0\0\0\x06\0\0",
            ErrorKind::Malformed,
            "unexpected message 'D'",
        ),
        (b"R\0\0\0\x08\0\0", ErrorKind::Reset, "closed"),
        (b"R\0\0\0\x08\0\0\0\x07", ErrorKind::ReplyNoauth, "method 7"),
    ];
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    for (reply, kind, text) in cases {
        // Only the truncated message is followed by a close; silence after it is the
        // engine's request timeout to end.
        let (port, server) = hostile(reply, kind == ErrorKind::Reset);
        let url = PgUrl::parse(&format!(
            "postgres://u:p@127.0.0.1:{port}/db?sslmode=disable"
        ))
        .unwrap();
        let started = std::time::Instant::now();
        let r = rt.block_on(async {
            tokio::time::timeout(Duration::from_secs(5), PgConn::connect(&url, None)).await
        });
        let e = match r {
            Ok(Err(e)) => e,
            Ok(Ok(_)) => panic!("{reply:?}: logged in"),
            Err(_) => panic!("{reply:?}: hung for 5 s"),
        };
        assert_eq!(e.kind(), kind, "{reply:?}: {e}");
        assert!(e.to_string().contains(text), "{reply:?}: {e}");
        assert!(started.elapsed() < Duration::from_secs(2), "{reply:?}");
        server.join().unwrap();
    }
}

/// A run of the engine over `scripts` (name, text) against `pg`'s database `db`.
fn pg_engine_step(
    pg: &Postgres,
    db: &str,
    scripts: &[(&str, &str)],
    mode: hakaru::sql::pg::frontend::QueryMode,
    spec: &hakaru::engine::StepSpec,
) -> hakaru::engine::StepRun {
    use hakaru::engine::{self, EngineConfig, Lane, Stop};
    use hakaru::http::pg_conn::PgTarget;
    use hakaru::http::{Proto, Target};
    use hakaru::sql::interp::{Mode, Scripts, Weighted};
    use hakaru::sql::pg::frontend::QueryMode;
    use hakaru::workload::sql::SqlWorkload;
    use std::sync::Arc;
    let url = PgUrl::parse(&pg.url(db)).unwrap();
    let weighted = scripts
        .iter()
        .map(|(name, text)| Weighted {
            name: name.to_string(),
            weight: 1,
            script: hakaru::sql::script::parse(name, text).unwrap(),
        })
        .collect();
    let script_mode = match mode {
        QueryMode::Simple => Mode::Simple,
        QueryMode::Extended => Mode::Extended,
        QueryMode::Prepared => Mode::Prepared,
    };
    let target = Target {
        https: false,
        host: url.host.clone(),
        port: url.port,
        addrs: vec![format!("127.0.0.1:{}", url.port).parse().unwrap()],
        proto: Proto::Postgres(Arc::new(PgTarget {
            url,
            password: None,
            mode,
        })),
    };
    let scripts = Scripts::new(weighted, script_mode, Vec::new());
    let w = Arc::new(SqlWorkload::new(
        target,
        scripts,
        7,
        Duration::from_secs(10),
    ));
    let cfg = EngineConfig {
        threads: 2,
        wait: Duration::ZERO,
        keep_alive: true,
        n_slow: 2,
        n_fast: 2,
        tls: None,
        lane: Lane::ALL,
        ok_status: Default::default(),
        label_feed: None,
        skip_late: None,
        budget_per_client: false,
        connection: Default::default(),
        time_first_byte: false,
        login_timeout: Duration::from_secs(10),
    };
    engine::run_step(&w, &cfg, spec, 0, &Stop::default(), &mut |_| {})
}

fn xact_commit(a: &mut PgAdmin, db: &str) -> u64 {
    let q = format!("SELECT xact_commit FROM pg_stat_database WHERE datname = '{db}'");
    a.simple_query(&q).unwrap()[0][0]
        .as_deref()
        .unwrap()
        .parse()
        .unwrap()
}

/// The server's statistics reach `pg_stat_database` when a backend goes idle (up
/// to 500 ms late): wait for the count to reach `want`, bounded.
fn commits_reach(pg: &Postgres, db: &str, want: u64) -> u64 {
    let mut a = admin(pg, USER, Some(PASSWORD), "postgres").unwrap();
    let start = Instant::now();
    loop {
        let got = xact_commit(&mut a, db);
        if got >= want || start.elapsed() > Duration::from_secs(5) {
            return got;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn pg_engine_runs_each_transaction_as_one_request_closed_and_open() {
    use hakaru::engine::{RateProfile, StepSpec};
    use hakaru::sql::pg::frontend::QueryMode;
    use std::sync::Arc;
    let Some(pg) = Postgres::start(&[]) else {
        return;
    };
    pg.psql("postgres", "CREATE DATABASE hb");
    pg.psql(
        "hb",
        "CREATE TABLE acct (id int PRIMARY KEY, n int NOT NULL); \
         INSERT INTO acct SELECT g, 0 FROM generate_series(1, 10) g; \
         GRANT ALL ON acct TO bench",
    );
    let script = "\\set id random(1, 10)\n\
                  BEGIN;\n\
                  UPDATE acct SET n = n + 1 WHERE id = :id;\n\
                  SELECT n FROM acct WHERE id = :id;\n\
                  COMMIT;\n";
    for (mode, rate) in [
        (QueryMode::Simple, None),
        (QueryMode::Prepared, None),
        (QueryMode::Extended, Some(400.0)),
    ] {
        let mut a = admin(&pg, USER, Some(PASSWORD), "postgres").unwrap();
        let before = xact_commit(&mut a, "hb");
        let spec = StepSpec {
            n_clients: 4,
            duration: Some(Duration::from_secs(30)),
            n_requests: Some(200),
            rate: rate.map(|r| Arc::new(RateProfile::constant(r).unwrap())),
        };
        let run = pg_engine_step(&pg, "hb", &[("tx.sql", script)], mode, &spec);
        let rec = &run.recorder;
        assert!(run.failure.is_none(), "{:?}", run.failure);
        assert_eq!(
            rec.status_counts().get(&hakaru::kv::STATUS_REPLY),
            Some(&200),
            "{mode:?} {:?} {}",
            rec.error_counts(),
            pg.log()
        );
        // 200 transactions committed, and one per login (4 clients).
        let after = commits_reach(&pg, "hb", before + 204);
        assert_eq!(after - before, 204, "{mode:?}");
    }
    let total = pg.psql("hb", "SELECT sum(n) FROM acct");
    assert_eq!(total.trim(), "600", "each transaction's UPDATE ran once");
}

#[test]
fn pg_engine_counts_a_unique_violation_and_rolls_the_block_back() {
    use hakaru::engine::StepSpec;
    use hakaru::sql::pg::frontend::QueryMode;
    use hakaru::stats::ErrorKind;
    let Some(pg) = Postgres::start(&[]) else {
        return;
    };
    pg.psql("postgres", "CREATE DATABASE hb");
    pg.psql(
        "hb",
        "CREATE TABLE u (id int PRIMARY KEY); INSERT INTO u VALUES (1); GRANT ALL ON u TO bench",
    );
    // Every transaction fails at its INSERT; its block is rolled back, so the next
    // one on the same connection starts clean (no 25P02 "current transaction is aborted").
    let script = "BEGIN;\nINSERT INTO u VALUES (1);\nCOMMIT;\n";
    let spec = StepSpec {
        n_clients: 2,
        duration: Some(Duration::from_secs(30)),
        n_requests: Some(40),
        rate: None,
    };
    // Prepared too. Bug it pins: a statement whose Parse succeeded but whose Execute
    // failed was not taken as parsed; Parse'd again, every later transaction of the
    // connection failed 42P05 ("prepared statement already exists").
    for mode in [QueryMode::Simple, QueryMode::Prepared] {
        let run = pg_engine_step(&pg, "hb", &[("dup.sql", script)], mode, &spec);
        let errors = run.recorder.error_counts();
        assert_eq!(
            errors.get(&ErrorKind::SqlUniqueViolation),
            Some(&40),
            "{mode:?}: {errors:?}"
        );
        assert_eq!(errors.len(), 1, "{mode:?}: {errors:?}");
    }
    assert_eq!(pg.psql("hb", "SELECT count(*) FROM u").trim(), "1");
}

/// `hakaru run postgres://… -f FILE` as a user runs it: its result and exit.
fn pg_run(dir: &TempDir, name: &str, args: &[&str]) -> (std::process::Output, serde_json::Value) {
    let out = dir.path(&format!("{name}.csv"));
    let mut all = vec!["run"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["-o", out.to_str().unwrap(), "-q"]);
    let o = crate::util::run(&all);
    let json = dir.path(&format!("{name}.json"));
    let j = if json.exists() {
        crate::util::read_json(&json)
    } else {
        serde_json::Value::Null
    };
    (o, j)
}

#[test]
fn pg_run_f_script_commits_each_transaction_once_and_hides_the_password() {
    let Some(pg) = Postgres::start(&[]) else {
        return;
    };
    pg.psql("postgres", "CREATE DATABASE hb");
    pg.psql(
        "hb",
        "CREATE TABLE acct (id int PRIMARY KEY, n int NOT NULL); \
         INSERT INTO acct SELECT g, 0 FROM generate_series(1, 10) g; \
         CREATE TABLE u (id int PRIMARY KEY); INSERT INTO u VALUES (1)",
    );
    let dir = TempDir::new("pg-run");
    let tx = dir.path("tx.sql");
    std::fs::write(
        &tx,
        "\\set id random(1, 10)\nBEGIN;\nUPDATE acct SET n = n + 1 WHERE id = :id;\n\
         SELECT n FROM acct WHERE id = :id;\nCOMMIT;\n",
    )
    .unwrap();
    let url = pg.url("hb");
    let mut a = admin(&pg, USER, Some(PASSWORD), "postgres").unwrap();
    // Closed, then open (--rate), each 200 transactions on 4 clients.
    for (name, extra) in [
        ("closed", &[][..]),
        ("open", &["--rate", "400", "-M", "prepared"][..]),
    ] {
        let before = xact_commit(&mut a, "hb");
        let mut args = vec!["-c", "4", "-n", "200", "-f", tx.to_str().unwrap()];
        args.extend_from_slice(extra);
        args.push(&url);
        let (o, j) = pg_run(&dir, name, &args);
        assert_eq!(o.status.code(), Some(0), "{}", crate::util::stderr(&o));
        let s = &j["steps"][0];
        assert_eq!(s["responses"].as_u64(), Some(200), "{s}");
        assert_eq!(s["errors"], serde_json::json!({}), "{s}");
        assert_eq!(
            commits_reach(&pg, "hb", before + 204) - before,
            204,
            "{name}"
        );
        let text = std::fs::read_to_string(dir.path(&format!("{name}.json"))).unwrap();
        assert!(!text.contains(PASSWORD), "the password is in the result");
    }
    assert_eq!(pg.psql("hb", "SELECT sum(n) FROM acct").trim(), "400");
    // The open run's page, and a search's, say tps: "req/s" was left on the title,
    // the rate charts, the hosts table and the search's cards.
    let fm = dir.path("fm.csv");
    let o = crate::util::run(&[
        "ramp",
        "--find-max",
        "--slo",
        "p99<1s",
        "--start-rate",
        "500",
        "--duration",
        "0.5s",
        "--interval",
        "0",
        "--max-probes",
        "2",
        "--end-n-clients",
        "4",
        "-f",
        tx.to_str().unwrap(),
        "-q",
        "-o",
        fm.to_str().unwrap(),
        &url,
    ]);
    // Two probes of 1000 transactions: 2 s at 500 tps, 1 s at 1000 (1 when it fails).
    let code = o.status.code();
    assert!(matches!(code, Some(0 | 1)), "{}", crate::util::stderr(&o));
    for name in ["open", "fm"] {
        let o = crate::util::run(&[
            "report",
            dir.path(&format!("{name}.json")).to_str().unwrap(),
        ]);
        assert_eq!(o.status.code(), Some(0), "{}", crate::util::stderr(&o));
        let page = std::fs::read_to_string(dir.path(&format!("{name}.html"))).unwrap();
        assert!(
            page.contains(" tps") && !page.contains("req/s"),
            "{name}: {page}"
        );
    }
    let page = std::fs::read_to_string(dir.path("fm.html")).unwrap();
    assert!(
        page.contains("<div class=\"k\">Max sustainable rate</div><div class=\"v\">"),
        "{page}"
    );
    assert!(
        page.contains("offered rate (transactions per second)"),
        "{page}"
    );

    // Every transaction fails with 23505: counted as such, and the run exits 1.
    let dup = dir.path("dup.sql");
    std::fs::write(&dup, "BEGIN;\nINSERT INTO u VALUES (1);\nCOMMIT;\n").unwrap();
    let (o, j) = pg_run(
        &dir,
        "dup",
        &["-c", "2", "-n", "40", "-f", dup.to_str().unwrap(), &url],
    );
    assert_eq!(o.status.code(), Some(1), "{}", crate::util::stderr(&o));
    let errors = &j["steps"][0]["errors"];
    assert_eq!(
        errors["sql_unique_violation"].as_u64(),
        Some(40),
        "{errors}"
    );

    // A script that does not parse is refused before any load, naming its line.
    let bad = dir.path("bad.sql");
    std::fs::write(&bad, "SELECT 1;\n\\set x (1 +\n").unwrap();
    let (o, _) = pg_run(&dir, "bad", &["-n", "1", "-f", bad.to_str().unwrap(), &url]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        crate::util::stderr(&o).contains("bad.sql:2"),
        "{}",
        crate::util::stderr(&o)
    );
}

#[test]
fn pg_engine_gset_stores_a_column_by_its_name_in_each_mode() {
    use hakaru::engine::StepSpec;
    use hakaru::sql::pg::frontend::QueryMode;
    let Some(pg) = Postgres::start(&[]) else {
        return;
    };
    pg.psql("postgres", "CREATE DATABASE hb");
    pg.psql(
        "hb",
        "CREATE TABLE g (n int NOT NULL); INSERT INTO g VALUES (0)",
    );
    let script = "SELECT 5 AS k, NULL AS z \\gset p_\nUPDATE g SET n = n + :p_k;\n";
    for mode in [QueryMode::Simple, QueryMode::Extended, QueryMode::Prepared] {
        let spec = StepSpec {
            n_clients: 2,
            duration: Some(Duration::from_secs(30)),
            n_requests: Some(20),
            rate: None,
        };
        let run = pg_engine_step(&pg, "hb", &[("gset.sql", script)], mode, &spec);
        let errors = run.recorder.error_counts();
        assert!(errors.is_empty(), "{mode:?}: {errors:?}");
    }
    assert_eq!(pg.psql("hb", "SELECT n FROM g").trim(), "300");
}
