//! `hakaru run mysql://… -f script.sql` on the engine against the private MariaDB
//! of `mysql::Mariadb`: each mode's transactions equal to the server's own
//! `SHOW GLOBAL STATUS` counts, errors by kind (a duplicate key, a wrong password,
//! the server killed mid-run), and hostile MySQL-speaking servers each refused in
//! their own kind within the run's duration and timeout.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::time::{Duration, Instant};

use crate::mysql::{Mariadb, PASSWORD, USER};
use crate::util::TempDir;

/// `hakaru run … -o DIR/NAME.csv -q`: its exit and its result.
pub fn my_run(
    dir: &TempDir,
    name: &str,
    args: &[&str],
) -> (std::process::Output, serde_json::Value) {
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

/// The deltas of the server's `Com_*` counters over `f`.
pub fn com_deltas(db: &Mariadb, names: &[&str], f: impl FnOnce()) -> Vec<u64> {
    let before: Vec<u64> = names.iter().map(|n| db.status(n)).collect();
    f();
    names
        .iter()
        .zip(before)
        .map(|(n, b)| db.status(n) - b)
        .collect()
}

#[test]
fn mysql_run_f_script_in_each_mode_counts_as_the_server_does_and_hides_the_password() {
    let Some(db) = Mariadb::start() else { return };
    db.sql(
        "CREATE TABLE bench.acct (id INT PRIMARY KEY, n INT NOT NULL) ENGINE=InnoDB; \
         INSERT INTO bench.acct SELECT seq, 0 FROM bench.seq_1_to_10",
    );
    let dir = TempDir::new("mysql-run");
    let tx = dir.path("tx.sql");
    std::fs::write(
        &tx,
        "\\set id random(1, 10)\nBEGIN;\nUPDATE acct SET n = n + 1 WHERE id = :id;\n\
         SELECT n AS got FROM acct WHERE id = :id \\gset\nUPDATE acct SET n = n + :got - :got WHERE id = :id;\nCOMMIT;\n",
    )
    .unwrap();
    let url = db.url();
    let names = ["Com_commit", "Com_update", "Com_select"];
    let runs: [(&str, &[&str]); 4] = [
        ("simple", &["-M", "simple"]),
        ("prepared", &["-M", "prepared"]),
        ("extended", &["-M", "extended"]),
        ("open", &["-M", "prepared", "--rate", "400"]),
    ];
    for (name, extra) in runs {
        let mut args = vec!["-c", "4", "-n", "200", "-f", tx.to_str().unwrap()];
        args.extend_from_slice(extra);
        args.push(&url);
        let mut j = serde_json::Value::Null;
        let d = com_deltas(&db, &names, || {
            let (o, got) = my_run(&dir, name, &args);
            assert_eq!(
                o.status.code(),
                Some(0),
                "{name}: {}",
                crate::util::stderr(&o)
            );
            j = got;
        });
        let s = &j["steps"][0];
        assert_eq!(s["responses"].as_u64(), Some(200), "{name}: {s}");
        assert_eq!(s["errors"], serde_json::json!({}), "{name}: {s}");
        assert_eq!(d, vec![200, 400, 200], "{name}: {names:?}");
        let text = std::fs::read_to_string(dir.path(&format!("{name}.json"))).unwrap();
        assert!(
            !text.contains(PASSWORD),
            "{name}: the password is in the result"
        );
    }
    assert_eq!(db.sql("SELECT SUM(n) FROM bench.acct"), "800");
    // MYSQL_PWD: the password apart from the URL.
    let bare = format!("mysql://{USER}@127.0.0.1:{}/bench", db.port);
    let o = crate::util::hakaru()
        .env("MYSQL_PWD", PASSWORD)
        .args([
            "run",
            "-c",
            "1",
            "-n",
            "5",
            "-q",
            "-f",
            tx.to_str().unwrap(),
            &bare,
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", crate::util::stderr(&o));
}

#[test]
fn mysql_run_counts_a_duplicate_key_rolls_its_block_back_and_names_a_wrong_password() {
    let Some(db) = Mariadb::start() else { return };
    db.sql(
        "CREATE TABLE bench.u (id INT PRIMARY KEY) ENGINE=InnoDB; INSERT INTO bench.u VALUES (1)",
    );
    let dir = TempDir::new("mysql-dup");
    let dup = dir.path("dup.sql");
    // The first INSERT succeeds inside the block; the second fails: ROLLBACK must
    // undo the first, or the next transaction's COMMIT would keep it.
    std::fs::write(
        &dup,
        "BEGIN;\nINSERT INTO u VALUES (2);\nINSERT INTO u VALUES (1);\nCOMMIT;\n",
    )
    .unwrap();
    let url = db.url();
    let mut j = serde_json::Value::Null;
    let d = com_deltas(&db, &["Com_rollback", "Com_commit"], || {
        let (o, got) = my_run(
            &dir,
            "dup",
            &["-c", "2", "-n", "40", "-f", dup.to_str().unwrap(), &url],
        );
        assert_eq!(o.status.code(), Some(1), "{}", crate::util::stderr(&o));
        j = got;
    });
    let errors = &j["steps"][0]["errors"];
    assert_eq!(
        errors["sql_unique_violation"].as_u64(),
        Some(40),
        "{errors}"
    );
    assert_eq!(
        d,
        vec![40, 0],
        "each failed block rolled back, none committed"
    );
    assert_eq!(db.sql("SELECT COUNT(*) FROM bench.u"), "1");
    let sample = j["steps"][0]["error_samples"]["sql_unique_violation"].to_string();
    assert!(
        sample.contains("1062") && sample.contains("Duplicate entry"),
        "{sample}"
    );

    // A wrong password: every transaction a refused login, named with its code.
    let wrong = format!("mysql://{USER}:nope@127.0.0.1:{}/bench", db.port);
    let (o, j) = my_run(
        &dir,
        "wrong",
        &["-c", "1", "-n", "3", "-f", dup.to_str().unwrap(), &wrong],
    );
    assert_eq!(o.status.code(), Some(1), "{}", crate::util::stderr(&o));
    let s = &j["steps"][0];
    assert_eq!(s["errors"]["reply_noauth"].as_u64(), Some(3), "{s}");
    let sample = s["error_samples"]["reply_noauth"].to_string();
    assert!(
        sample.contains("login refused") && sample.contains("1045"),
        "{sample}"
    );
    assert!(!sample.contains("nope"));

    // Bad input before any load: an unknown URL parameter, a missing script.
    let (o, _) = my_run(
        &dir,
        "badurl",
        &[
            "-n",
            "1",
            "-f",
            dup.to_str().unwrap(),
            &format!("{url}?sslmode=require"),
        ],
    );
    assert_eq!(o.status.code(), Some(2), "{}", crate::util::stderr(&o));
    assert!(crate::util::stderr(&o).contains("unknown URL parameter"));
    let (o, _) = my_run(&dir, "nof", &["-n", "1", &url]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        crate::util::stderr(&o).contains("-f FILE"),
        "{}",
        crate::util::stderr(&o)
    );
}

/// mariadbd SIGKILLed mid-run: the run still ends on time, the transactions after
/// the crash failed by kind (the connections reset, then refused), none a success.
#[test]
fn mysql_run_survives_the_server_killed_mid_run_with_failures_by_kind() {
    let Some(mut db) = Mariadb::start() else {
        return;
    };
    let dir = TempDir::new("mysql-kill");
    let tx = dir.path("tx.sql");
    std::fs::write(&tx, "SELECT 1;\n").unwrap();
    let out = dir.path("kill.csv");
    let child = crate::util::hakaru()
        .args(["run", "-c", "4", "-d", "3s", "--timeout", "1s", "-q", "-f"])
        .arg(&tx)
        .arg(db.url())
        .arg("-o")
        .arg(&out)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    std::thread::sleep(Duration::from_millis(1200));
    db.kill9();
    let o = child.wait_with_output().unwrap();
    let took = started.elapsed();
    assert!(took < Duration::from_secs(8), "the run took {took:?}");
    // Some transactions succeeded: the run itself ends as any run with errors does.
    assert!(o.status.code().is_some(), "{}", crate::util::stderr(&o));
    let j = crate::util::read_json(&dir.path("kill.json"));
    let s = &j["steps"][0];
    assert!(s["responses"].as_u64().unwrap() > 100, "{s}");
    let errors = s["errors"].as_object().unwrap();
    let known = ["reset", "connect", "io", "sql_admin_shutdown", "timeout"];
    assert!(!errors.is_empty(), "{s}");
    for (kind, _) in errors {
        assert!(known.contains(&kind.as_str()), "{kind}: {s}");
    }
    assert!(
        errors.contains_key("connect"),
        "reconnects refused after the crash: {s}"
    );
}

/// A handshake v10 as MariaDB sends it (mysql_native_password), packet 0.
fn handshake() -> Vec<u8> {
    let caps: u32 = 1 | 8 | 0x200 | 0x2000 | 0x8000 | 0x1_0000 | 0x2_0000 | 0x8_0000;
    let mut p = vec![10];
    p.extend_from_slice(b"10.11.0-hostile\0");
    p.extend_from_slice(&7u32.to_le_bytes());
    p.extend_from_slice(b"abcdefgh\0");
    p.extend_from_slice(&(caps as u16).to_le_bytes());
    p.push(45);
    p.extend_from_slice(&2u16.to_le_bytes());
    p.extend_from_slice(&((caps >> 16) as u16).to_le_bytes());
    p.push(21);
    p.extend_from_slice(&[0; 10]);
    p.extend_from_slice(b"ijklmnopqrst\0mysql_native_password\0");
    packet(0, &p)
}

fn packet(seq: u8, payload: &[u8]) -> Vec<u8> {
    let mut out = (payload.len() as u32).to_le_bytes()[..3].to_vec();
    out.push(seq);
    out.extend_from_slice(payload);
    out
}

/// What a hostile server does once a client has connected.
#[derive(Clone, Copy, Debug)]
enum Hostile {
    /// A handshake of protocol version 9.
    BadHandshake,
    /// Logs in, then answers a command with 2^24-1-byte packets chained forever.
    EndlessChain,
    /// Logs in, then a result set with an ERR packet after its first row.
    ErrMidRows,
    /// Logs in, then answers with sequence id 5 where 1 is due.
    OutOfOrder,
    /// Logs in, then never answers a command.
    Silent,
}

/// Reads what the client sends (up to a packet), `false` once it has gone.
fn read_some(s: &mut std::net::TcpStream) -> bool {
    let mut buf = [0u8; 4096];
    matches!(s.read(&mut buf), Ok(n) if n > 0)
}

fn serve_hostile(mut s: std::net::TcpStream, how: Hostile) {
    s.set_read_timeout(Some(Duration::from_secs(10))).ok();
    if let Hostile::BadHandshake = how {
        let _ = s.write_all(&packet(0, b"\x095.0\0garbage"));
        read_some(&mut s);
        return;
    }
    if s.write_all(&handshake()).is_err() || !read_some(&mut s) {
        return;
    }
    let _ = s.write_all(&packet(2, b"\x00\x00\x00\x02\x00\x00\x00"));
    while read_some(&mut s) {
        let answer = match how {
            Hostile::EndlessChain => {
                let chunk = packet(1, &vec![0u8; 0xff_ffff]);
                let mut seq = 1u8;
                loop {
                    let mut c = chunk.clone();
                    c[3] = seq;
                    seq = seq.wrapping_add(1);
                    if s.write_all(&c).is_err() {
                        return;
                    }
                }
            }
            Hostile::ErrMidRows => {
                let mut a = packet(1, b"\x01");
                let mut def = Vec::new();
                for f in ["def", "", "", "", "x", ""] {
                    def.push(f.len() as u8);
                    def.extend_from_slice(f.as_bytes());
                }
                def.extend_from_slice(b"\x0c\x2d\x00\x0b\x00\x00\x00\x03\x00\x00\x00\x00\x00");
                a.extend(packet(2, &def));
                a.extend(packet(3, b"\xfe\x00\x00\x02\x00"));
                a.extend(packet(4, b"\x011"));
                a.extend(packet(
                    5,
                    b"\xff\x25\x05#70100Query execution was interrupted",
                ));
                a
            }
            Hostile::OutOfOrder => packet(5, b"\x00\x00\x00\x02\x00\x00\x00"),
            Hostile::Silent | Hostile::BadHandshake => continue,
        };
        if s.write_all(&answer).is_err() {
            return;
        }
    }
}

/// A listener that treats every connection `how`, until the test ends.
fn hostile(how: Hostile) -> u16 {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for s in l.incoming().flatten() {
            std::thread::spawn(move || serve_hostile(s, how));
        }
    });
    port
}

#[test]
fn mysql_run_refuses_each_hostile_server_in_its_own_kind_without_hanging() {
    let dir = TempDir::new("mysql-hostile");
    let tx = dir.path("tx.sql");
    std::fs::write(&tx, "SELECT 1;\n").unwrap();
    // The endless chain is refused at its 64 MiB cap, which a loaded machine once
    // took more than 500 ms to read (counted a timeout): it gets 3 s.
    for (how, kind, timeout) in [
        (Hostile::BadHandshake, "protocol", "500ms"),
        (Hostile::EndlessChain, "malformed", "3s"),
        (Hostile::ErrMidRows, "sql_error", "500ms"),
        (Hostile::OutOfOrder, "malformed", "500ms"),
        (Hostile::Silent, "timeout", "500ms"),
    ] {
        let port = hostile(how);
        let url = format!("mysql://u:pw@127.0.0.1:{port}/db?ssl-mode=DISABLED");
        let name = format!("{how:?}");
        let started = Instant::now();
        let (o, j) = my_run(
            &dir,
            &name,
            &[
                "-c",
                "2",
                "-d",
                "1s",
                "--timeout",
                timeout,
                "-f",
                tx.to_str().unwrap(),
                &url,
            ],
        );
        let took = started.elapsed();
        assert!(took < Duration::from_secs(8), "{name}: {took:?}");
        assert_eq!(
            o.status.code(),
            Some(1),
            "{name}: {}",
            crate::util::stderr(&o)
        );
        let s = &j["steps"][0];
        let errors = s["errors"].as_object().unwrap();
        assert_eq!(errors.keys().collect::<Vec<_>>(), vec![kind], "{name}: {s}");
        assert_eq!(
            s["responses"].as_u64(),
            Some(0),
            "{name}: nothing passes as a success"
        );
    }
}

/// Each statement's own time under `stmt=<n>` (pgbench's `-r`): samples that do not
/// add to the step's totals, which count each transaction once; a threshold selects
/// one statement's p99.
#[test]
fn mysql_run_times_each_statement_under_its_own_label_and_thresholds_select_it() {
    let Some(db) = Mariadb::start() else { return };
    let dir = TempDir::new("mysql-stmt");
    let tx = dir.path("tx.sql");
    std::fs::write(&tx, "SELECT 1;\nSELECT SLEEP(0.02);\n").unwrap();
    let url = db.url();
    let args = [
        "-c",
        "2",
        "-n",
        "30",
        "-M",
        "prepared",
        "-f",
        tx.to_str().unwrap(),
    ];
    let holds = [&args[..], &["--threshold", "p99{stmt=1}<15ms", &url]].concat();
    let (o, j) = my_run(&dir, "holds", &holds);
    assert_eq!(o.status.code(), Some(0), "{}", crate::util::stderr(&o));
    let s = &j["steps"][0];
    assert_eq!(s["total_requests"].as_u64(), Some(30), "{s}");
    let labels = s["labels"].as_array().unwrap();
    let names: Vec<String> = labels
        .iter()
        .map(|l| {
            format!(
                "{}={}",
                l["key"].as_str().unwrap(),
                l["value"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(
        names,
        vec!["stmt=1", "stmt=2"],
        "one script: no script label"
    );
    for l in labels {
        assert_eq!(l["total_requests"].as_u64(), Some(30), "{l}");
    }
    let p50 = |l: &serde_json::Value| l["latency"]["p50_s"].as_f64().unwrap();
    assert!(
        p50(&labels[1]) >= 0.02 && p50(&labels[0]) < 0.015,
        "{labels:?}"
    );
    // The sleeping statement's p99 cannot hold under 15 ms: the run fails.
    let fails = [&args[..], &["--threshold", "p99{stmt=2}<15ms", &url]].concat();
    let (o, _) = my_run(&dir, "fails", &fails);
    assert_eq!(o.status.code(), Some(1), "{}", crate::util::stderr(&o));
}

/// `hakaru ramp` over MySQL: each step's transactions, all told, are the server's
/// own count of the script's SELECTs.
#[test]
fn mysql_ramp_steps_count_as_the_server_does() {
    let Some(db) = Mariadb::start() else { return };
    let dir = TempDir::new("mysql-ramp");
    let tx = dir.path("tx.sql");
    std::fs::write(&tx, "SELECT 1;\n").unwrap();
    let csv = dir.path("ramp.csv");
    let url = db.url();
    let mut j = serde_json::Value::Null;
    let d = com_deltas(&db, &["Com_select"], || {
        let o = crate::util::run(&[
            "ramp",
            "--start-n-clients=1",
            "--end-n-clients=3",
            "--step=2",
            "--duration=0.5",
            "--interval=0.1",
            "-M",
            "prepared",
            "-f",
            tx.to_str().unwrap(),
            "-q",
            &format!("--output-path={}", csv.display()),
            &url,
        ]);
        assert_eq!(o.status.code(), Some(0), "{}", crate::util::stderr(&o));
        j = crate::util::read_json(&dir.path("ramp.json"));
    });
    let steps = j["steps"].as_array().unwrap();
    let clients: Vec<u64> = steps
        .iter()
        .map(|s| s["n_clients"].as_u64().unwrap())
        .collect();
    assert_eq!(clients, vec![1, 3]);
    let total: u64 = steps
        .iter()
        .map(|s| s["total_requests"].as_u64().unwrap())
        .sum();
    let unfinished: u64 = steps
        .iter()
        .map(|s| s["unfinished"].as_u64().unwrap())
        .sum();
    assert!(total > 10, "{j}");
    // A transaction cut off at a step's end may have reached the server.
    assert!(
        d[0] >= total && d[0] <= total + unfinished,
        "{d:?} {total} {unfinished}"
    );
}
