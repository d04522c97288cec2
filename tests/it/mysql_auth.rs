//! `caching_sha2_password`, MySQL 8's default login, against a real server that is
//! not hakaru's: `tests/mysql8`, built by `.ci/run` (`$HAKARU_MYSQL8`). No MySQL 8
//! server is packaged here and MariaDB has no such plugin, so that program is the
//! server. Its `vitess` mode is Vitess' MySQL server (dolthub/vitess, `go/mysql`)
//! with TLS and its own caching_sha2_password: fast authentication from a cache
//! that starts empty, as after a MySQL restart, full authentication over TLS. Vitess
//! refuses full authentication without TLS, so its `rsa` mode is the smallest
//! honest server side of the RSA path, written apart from hakaru's code in Go
//! (`crypto/rsa` decrypts what hakaru encrypted). MariaDB's own client logs in to
//! both modes (`the_test_server_logs_mariadb_s_client_in_both_ways`), so the server
//! is checked by a client that is not ours either. The server counts queries and
//! logins by path, printed when it is stopped (SIGTERM, by PID).

use std::io::{BufRead, BufReader, Read};
use std::path::PathBuf;
use std::process::{Child, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use hakaru::http::mysql::MysqlAdmin;
use hakaru::sql::mysql::url::MyUrl;

use crate::mysql_run::my_run;
use crate::util::{have, wait_bounded, TempDir};

const USER: &str = "bench";
const PASSWORD: &str = "bench-pw";

/// What the server saw, from its last line.
#[derive(Debug, Default, PartialEq, Eq)]
struct Seen {
    queries: u64,
    fast: u64,
    full: u64,
    rsa: u64,
    denied: u64,
}

/// The test server: our child, SIGTERM'd and waited for when stopped or dropped.
struct Mysql8 {
    child: Child,
    out: BufReader<ChildStdout>,
    port: u16,
    dir: TempDir,
}

/// The server program where `.ci/run` builds it; missing, the test is skipped as
/// Toxiproxy's is, except in CI, where it fails.
fn program() -> Option<PathBuf> {
    let p = std::env::var_os("HAKARU_MYSQL8")
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME")
                .map(|h| PathBuf::from(h).join(".cache/hakaru-go/bin/hakaru-mysql8"))
        })
        .filter(|p| p.exists());
    if p.is_none() {
        assert!(
            std::env::var_os("CI").is_none(),
            "hakaru-mysql8 is not built, but CI must run this test (.ci/run builds it)"
        );
        eprintln!("skipped: hakaru-mysql8 is not built (run .ci/run)");
    }
    p
}

impl Mysql8 {
    /// Starts the server in `mode` (`vitess` or `rsa`); in `rsa` mode its public
    /// key is written to `key()`.
    fn start(mode: &str) -> Option<Mysql8> {
        Mysql8::start_with(mode, &[])
    }

    /// `start` with `extra` flags (`-hostile-key`).
    fn start_with(mode: &str, extra: &[&str]) -> Option<Mysql8> {
        let dir = TempDir::new("mysql8");
        let mut cmd = Command::new(program()?);
        cmd.args(["-user", USER, "-password", PASSWORD, "-mode", mode]);
        cmd.args(extra);
        if mode == "rsa" {
            cmd.arg("-public-key").arg(dir.path("public_key.pem"));
        }
        let mut child = cmd
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::from(
                std::fs::File::create(dir.path("server.log")).unwrap(),
            ))
            .spawn()
            .expect("hakaru-mysql8 starts");
        let mut out = BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        out.read_line(&mut line).unwrap();
        let port = line
            .trim()
            .strip_prefix("listening 127.0.0.1:")
            .and_then(|p| p.parse().ok())
            .unwrap_or_else(|| panic!("hakaru-mysql8 said {line:?}"));
        Some(Mysql8 {
            child,
            out,
            port,
            dir,
        })
    }

    fn key(&self) -> PathBuf {
        self.dir.path("public_key.pem")
    }

    /// `mysql://bench:PASSWORD@127.0.0.1:PORT/bench?PARAMS`
    fn url_with(&self, password: &str, params: &str) -> String {
        format!(
            "mysql://{USER}:{password}@127.0.0.1:{}/bench?{params}",
            self.port
        )
    }

    fn url(&self, params: &str) -> String {
        self.url_with(PASSWORD, params)
    }

    /// Stops the server and reads what it saw.
    fn stop(mut self) -> Seen {
        self.terminate();
        let mut rest = String::new();
        self.out.read_to_string(&mut rest).unwrap();
        let mut seen = Seen::default();
        for (k, v) in rest.split_whitespace().filter_map(|kv| kv.split_once('=')) {
            let v = v.parse().unwrap();
            match k {
                "queries" => seen.queries = v,
                "fast" => seen.fast = v,
                "full" => seen.full = v,
                "rsa" => seen.rsa = v,
                "denied" => seen.denied = v,
                _ => panic!("{rest}"),
            }
        }
        seen
    }

    fn terminate(&mut self) {
        let pid = rustix::process::Pid::from_child(&self.child);
        let _ = rustix::process::kill_process(pid, rustix::process::Signal::TERM);
        wait_bounded(&mut self.child, Duration::from_secs(10));
    }
}

impl Drop for Mysql8 {
    fn drop(&mut self) {
        self.terminate();
    }
}

fn login(url: &str) -> Result<MysqlAdmin, hakaru::http::mysql::MysqlError> {
    MysqlAdmin::connect(&MyUrl::parse(url).unwrap(), None, Duration::from_secs(10))
}

fn select_one(a: &mut MysqlAdmin) {
    let rows = a.simple_query("SELECT 1").unwrap();
    assert_eq!(rows, vec![vec![Some("1".to_string())]]);
}

#[test]
fn caching_sha2_full_auth_over_tls_then_fast_auth_from_the_warm_cache() {
    let Some(server) = Mysql8::start("vitess") else {
        return;
    };
    // The cache is empty, as after MySQL's restart: full authentication, the
    // password sent inside TLS.
    select_one(&mut login(&server.url("ssl-mode=REQUIRED")).unwrap());
    // Now cached: the scramble alone (PREFERRED goes into TLS as the server offers it).
    select_one(&mut login(&server.url("")).unwrap());
    // DISABLED: Vitess offers caching_sha2_password over TLS only, and says so.
    let e = login(&server.url("ssl-mode=DISABLED")).err().unwrap();
    assert!(!e.to_string().contains(PASSWORD), "{e}");
    let seen = server.stop();
    assert_eq!(
        seen,
        Seen {
            queries: 2,
            fast: 1,
            full: 1,
            rsa: 0,
            denied: 0
        }
    );
}

/// A wrong password: refused by the server (1045) in `reply_noauth`, every
/// transaction, exit 1, in far less than a hang, over TLS and over the RSA key.
#[test]
fn caching_sha2_wrong_password_is_a_refused_login_in_its_own_kind_over_tls_and_rsa() {
    let dir = TempDir::new("mysql8-wrong");
    let q = dir.write("one.sql", "SELECT 1;\n");
    for (mode, params) in [
        ("vitess", "ssl-mode=REQUIRED"),
        ("rsa", "get-server-public-key=true"),
    ] {
        let Some(server) = Mysql8::start(mode) else {
            return;
        };
        let wrong = server.url_with("nope", params);
        let started = Instant::now();
        let (o, j) = my_run(
            &dir,
            mode,
            &[
                "-c",
                "1",
                "-n",
                "3",
                "--timeout",
                "5s",
                "-f",
                q.to_str().unwrap(),
                &wrong,
            ],
        );
        assert!(started.elapsed() < Duration::from_secs(20), "{mode}");
        assert_eq!(
            o.status.code(),
            Some(1),
            "{mode}: {}",
            crate::util::stderr(&o)
        );
        let s = &j["steps"][0];
        assert_eq!(s["errors"]["reply_noauth"].as_u64(), Some(3), "{mode}: {s}");
        assert_eq!(s["errors"].as_object().unwrap().len(), 1, "{mode}: {s}");
        let sample = s["error_samples"]["reply_noauth"].to_string();
        assert!(sample.contains("1045"), "{mode}: {sample}");
        assert!(!sample.contains("nope"), "{mode}: {sample}");
        let seen = server.stop();
        assert_eq!((seen.denied, seen.queries), (3, 0), "{mode}: {seen:?}");
    }
}

/// `hakaru run mysql://…` for a few seconds over TLS and over the RSA key: every
/// answer OK, and as many as the server counted (less at most one in flight per
/// client at the end).
#[test]
fn caching_sha2_run_counts_what_the_server_saw_over_tls_and_rsa() {
    let dir = TempDir::new("mysql8-run");
    let q = dir.write("one.sql", "SELECT 1;\n");
    for (mode, params) in [
        ("vitess", "ssl-mode=REQUIRED"),
        ("rsa", "get-server-public-key=true"),
    ] {
        let Some(server) = Mysql8::start(mode) else {
            return;
        };
        let url = server.url(params);
        let (o, j) = my_run(
            &dir,
            mode,
            &["-c", "4", "-d", "2s", "-f", q.to_str().unwrap(), &url],
        );
        assert_eq!(
            o.status.code(),
            Some(0),
            "{mode}: {}",
            crate::util::stderr(&o)
        );
        let s = &j["steps"][0];
        assert_eq!(s["errors"], serde_json::json!({}), "{mode}: {s}");
        let answered = s["responses"].as_u64().unwrap();
        let seen = server.stop();
        assert!(answered > 100, "{mode}: {answered}");
        assert!(
            seen.queries >= answered && seen.queries - answered <= 4,
            "{mode}: hakaru {answered}, the server {seen:?}"
        );
        assert_eq!(seen.denied, 0, "{mode}: {seen:?}");
        // Four connections, each logged in once; the first ones fill the cache.
        assert_eq!(seen.fast + seen.full + seen.rsa, 4, "{mode}: {seen:?}");
        assert!(seen.full + seen.rsa >= 1, "{mode}: {seen:?}");
        let text = std::fs::read_to_string(dir.path(&format!("{mode}.json"))).unwrap();
        assert!(
            !text.contains(PASSWORD),
            "{mode}: the password is in the result"
        );
    }
}

/// Full authentication without TLS: the key fetched (opt-in) or read from a file,
/// the password sent RSA-encrypted and decrypted by the server; then fast
/// authentication without TLS. Without the opt-in, the refusal names the parameter.
#[test]
fn caching_sha2_full_auth_without_tls_uses_the_server_s_rsa_key_fetched_or_from_a_file() {
    let Some(server) = Mysql8::start("rsa") else {
        return;
    };
    // No key and no opt-in: refused before the password leaves, naming the way.
    let dir = TempDir::new("mysql8-rsa");
    let q = dir.write("one.sql", "SELECT 1;\n");
    let (o, j) = my_run(
        &dir,
        "no-key",
        &[
            "-c",
            "1",
            "-n",
            "2",
            "-f",
            q.to_str().unwrap(),
            &server.url(""),
        ],
    );
    assert_eq!(o.status.code(), Some(1), "{}", crate::util::stderr(&o));
    let s = &j["steps"][0];
    assert_eq!(s["errors"]["protocol"].as_u64(), Some(2), "{s}");
    let sample = s["error_samples"]["protocol"].to_string();
    assert!(
        sample.contains("get-server-public-key=true") && sample.contains("server-public-key-path"),
        "{sample}"
    );
    // Fetched from the server, then fast from the warm cache, both in the clear.
    select_one(&mut login(&server.url("get-server-public-key=true")).unwrap());
    select_one(&mut login(&server.url("")).unwrap());
    let seen = server.stop();
    assert_eq!(
        seen,
        Seen {
            queries: 2,
            fast: 1,
            full: 0,
            rsa: 1,
            denied: 0
        }
    );

    // From a file (a fresh server: its cache is empty again, and a new key).
    let Some(server) = Mysql8::start("rsa") else {
        return;
    };
    let key = server.key().display().to_string();
    select_one(&mut login(&server.url(&format!("server-public-key-path={key}"))).unwrap());
    let e = login(&server.url_with("nope", &format!("server-public-key-path={key}")))
        .err()
        .expect("a wrong password over RSA is refused");
    assert_eq!(e.code, Some(1045), "{e}");
    let seen = server.stop();
    assert_eq!((seen.rsa, seen.denied, seen.fast), (1, 1, 0), "{seen:?}");
}

/// A key fetched in the clear is untrusted input: half a key (a well-formed PEM
/// around a truncated DER) is `malformed`, never a panic or a hang, and the
/// password is not sent with it.
#[test]
fn caching_sha2_a_truncated_rsa_key_from_the_server_is_malformed_not_a_panic() {
    let Some(server) = Mysql8::start_with("rsa", &["-hostile-key"]) else {
        return;
    };
    let dir = TempDir::new("mysql8-bad-key");
    let q = dir.write("one.sql", "SELECT 1;\n");
    let url = server.url("get-server-public-key=true");
    let (o, j) = my_run(
        &dir,
        "bad-key",
        &["-c", "1", "-n", "3", "-f", q.to_str().unwrap(), &url],
    );
    assert_eq!(o.status.code(), Some(1), "{}", crate::util::stderr(&o));
    let s = &j["steps"][0];
    assert_eq!(s["errors"], serde_json::json!({"malformed": 3}), "{s}");
    let sample = s["error_samples"]["malformed"].to_string();
    assert!(sample.contains("RSA public key"), "{sample}");
    let seen = server.stop();
    assert_eq!((seen.rsa, seen.denied, seen.queries), (0, 0, 0), "{seen:?}");
}

/// The test server is checked by a client that is not hakaru's: MariaDB's own
/// `mariadb` client (its caching_sha2_password plugin) logs in over TLS, full then
/// fast, and over the RSA key it fetches itself, and is refused a wrong password.
#[test]
fn the_test_server_logs_mariadb_s_client_in_both_ways() {
    if !have("mariadb") {
        return;
    }
    for (mode, tls) in [("vitess", "--ssl"), ("rsa", "--skip-ssl")] {
        let Some(server) = Mysql8::start(mode) else {
            return;
        };
        let port = server.port.to_string();
        let client = |pw: &str| {
            Command::new("mariadb")
                .args([
                    "--no-defaults",
                    tls,
                    "-h",
                    "127.0.0.1",
                    "-P",
                    &port,
                    "-u",
                    USER,
                ])
                .arg(format!("-p{pw}"))
                .args(["-N", "-B", "-e", "SELECT 1", "bench"])
                .stdin(Stdio::null())
                .output()
                .expect("the mariadb client runs")
        };
        for _ in 0..2 {
            let o = client(PASSWORD);
            assert!(
                o.status.success(),
                "{mode}: {}",
                String::from_utf8_lossy(&o.stderr)
            );
            assert_eq!(String::from_utf8_lossy(&o.stdout).trim(), "1");
        }
        assert!(!client("nope").status.success(), "{mode}");
        let seen = server.stop();
        let full = if mode == "rsa" { seen.rsa } else { seen.full };
        assert_eq!(
            (full, seen.fast, seen.denied, seen.queries),
            (1, 1, 1, 2),
            "{mode}: {seen:?}"
        );
    }
}
