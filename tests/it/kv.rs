//! Key-value stores against the real thing: Debian's `redis-server` and `memcached`
//! on loopback ports, started here and stopped by PID. Every count hakaru reports is
//! checked against the server's own (`INFO commandstats`/`INFO stats`, memcached's
//! `stats`); every error reply lands in its own kind; a password never reaches a file.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::Value;

use crate::util::{
    free_port, have, ok, read_json, run, stderr, stdout, wait_for_port, Server, TempDir,
};

/// A private redis-server (no persistence), with `extra` arguments.
pub(crate) fn redis(extra: &[&str]) -> Option<Server> {
    if !have("redis-server") {
        return None;
    }
    let dir = TempDir::new("redis");
    let port = free_port();
    let mut child = Command::new("redis-server")
        .args([
            "--port",
            &port.to_string(),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
        ])
        .args(["--appendonly", "no", "--dir"])
        .arg(&dir.0)
        .args(extra)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("redis-server starts");
    wait_for_port(port, &mut child, "redis-server");
    Some(Server { child, port, dir })
}

/// A private memcached (tests/it/cache.rs starts its own with it too).
pub(crate) fn memcached(extra: &[&str]) -> Option<Server> {
    if !have("memcached") {
        return None;
    }
    let dir = TempDir::new("memcached");
    let port = free_port();
    let mut child = Command::new("memcached")
        .args([
            "-l",
            "127.0.0.1",
            "-p",
            &port.to_string(),
            "-U",
            "0",
            "-m",
            "64",
        ])
        .args(["-u", "root"])
        .args(extra)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("memcached starts");
    wait_for_port(port, &mut child, "memcached");
    Some(Server { child, port, dir })
}

/// Send `request` and read until the reply ends with `end`.
fn ask(port: u16, request: &[u8], end: &[u8]) -> String {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    s.write_all(request).unwrap();
    let mut out = Vec::new();
    let mut buf = [0u8; 65536];
    while !out.ends_with(end) {
        let n = s.read(&mut buf).expect("the server answers");
        assert!(n > 0, "closed early: {:?}", String::from_utf8_lossy(&out));
        out.extend_from_slice(&buf[..n]);
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// A Redis command as RESP, for `ask`.
fn resp(args: &[&str]) -> Vec<u8> {
    let mut out = format!("*{}\r\n", args.len()).into_bytes();
    for a in args {
        out.extend_from_slice(format!("${}\r\n{a}\r\n", a.len()).as_bytes());
    }
    out
}

/// `INFO section` as name → value (`cmdstat_get` → `calls=…,usec=…`).
pub(crate) fn redis_info(port: u16, section: &str, auth: Option<&str>) -> BTreeMap<String, String> {
    let mut req = Vec::new();
    if let Some(pw) = auth {
        req.extend(resp(&["AUTH", pw]));
    }
    req.extend(resp(&["INFO", section]));
    let text = ask(port, &req, b"\r\n\r\n");
    text.lines()
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// A command's calls from `INFO commandstats` (0 when never called).
pub(crate) fn calls(info: &BTreeMap<String, String>, command: &str) -> u64 {
    info.get(&format!("cmdstat_{command}")).map_or(0, |v| {
        let calls = v.split(',').next().unwrap().trim_start_matches("calls=");
        calls.parse().unwrap()
    })
}

/// memcached's `stats` as name → number.
pub(crate) fn mc_stats(port: u16) -> BTreeMap<String, u64> {
    ask(port, b"stats\r\n", b"END\r\n")
        .lines()
        .filter_map(|l| l.strip_prefix("STAT "))
        .filter_map(|l| l.split_once(' '))
        .filter_map(|(k, v)| Some((k.to_string(), v.parse().ok()?)))
        .collect()
}

/// The first step of a result, and its labels by value.
fn step(dir: &TempDir, name: &str) -> (Value, BTreeMap<String, Value>) {
    let j = read_json(&dir.path(&format!("{name}.json")));
    let s = j["steps"][0].clone();
    let labels = s["labels"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|l| (l["value"].as_str().unwrap().to_string(), l.clone()))
        .collect();
    (s, labels)
}

fn n(v: &Value) -> u64 {
    v.as_u64().unwrap_or(0)
}

#[test]
fn redis_get_set_counts_match_the_server_s_own() {
    let Some(r) = redis(&[]) else { return };
    let dir = TempDir::new("kv-redis-mix");
    let url = format!("redis://127.0.0.1:{}", r.port);
    let out = dir.path("mix.csv");
    ok(&run(&[
        "run",
        "-c",
        "4",
        "-n",
        "3000",
        "--ratio",
        "1:2",
        "--keys",
        "200",
        &url,
        "-o",
        out.to_str().unwrap(),
        "-q",
    ]));
    let (s, labels) = step(&dir, "mix");
    assert_eq!(n(&s["responses"]), 3000);
    assert_eq!(s["errors"], serde_json::json!({}));
    let info = redis_info(r.port, "commandstats", None);
    let (get, set) = (&labels["GET"], &labels["SET"]);
    assert_eq!(n(&get["total_requests"]), calls(&info, "get"));
    assert_eq!(n(&set["total_requests"]), calls(&info, "set"));
    assert_eq!(calls(&info, "get") + calls(&info, "set"), 3000);
    // Hits and misses are the server's own keyspace_hits and keyspace_misses.
    let stats = redis_info(r.port, "stats", None);
    let count = |k: &str| stats[k].trim().parse::<u64>().unwrap();
    assert_eq!(n(&get["statuses"]["250"]), count("keyspace_hits"));
    assert_eq!(n(&get["statuses"]["254"]), count("keyspace_misses"));
    assert_eq!(n(&set["statuses"]["250"]), n(&set["total_requests"]));
    // 1 set for 2 gets, within 5 standard deviations of the binomial.
    let sets = n(&set["total_requests"]) as f64;
    let sd = (3000.0_f64 * (1.0 / 3.0) * (2.0 / 3.0)).sqrt();
    assert!((sets - 1000.0).abs() < 5.0 * sd, "{sets} sets of 3000");
}

#[test]
fn memcached_get_set_counts_match_the_server_s_own() {
    let Some(m) = memcached(&[]) else { return };
    let dir = TempDir::new("kv-mc-mix");
    let url = format!("memcached://127.0.0.1:{}", m.port);
    let out = dir.path("mix.csv");
    ok(&run(&[
        "run",
        "-c",
        "4",
        "-n",
        "3000",
        "--ratio",
        "1:3",
        "--keys",
        "100",
        "--value-size",
        "10..2000",
        &url,
        "-o",
        out.to_str().unwrap(),
        "-q",
    ]));
    let (s, labels) = step(&dir, "mix");
    assert_eq!(n(&s["responses"]), 3000);
    assert_eq!(s["errors"], serde_json::json!({}));
    let st = mc_stats(m.port);
    let (get, set) = (&labels["get"], &labels["set"]);
    assert_eq!(n(&get["total_requests"]), st["cmd_get"]);
    assert_eq!(n(&set["total_requests"]), st["cmd_set"]);
    assert_eq!(n(&get["statuses"]["250"]), st["get_hits"]);
    assert_eq!(n(&get["statuses"]["254"]), st["get_misses"]);
    assert!(st["get_hits"] > 0 && st["get_misses"] > 0, "{st:?}");
}

#[test]
fn a_commands_file_of_many_kinds_is_counted_per_command() {
    let Some(r) = redis(&[]) else { return };
    let dir = TempDir::new("kv-redis-cmds");
    let file = dir.write(
        "cmds.txt",
        "# a mix of data types\n\
         weight=4 SET key:{key} {value}\n\
         weight=4 GET key:{key}\n\
         weight=2 name=mget MGET key:{key} key:{key} key:{key}\n\
         INCR counter:{key}\n\
         HSET hash:{key} field {value}\n\
         LPUSH list:{key} {value}\n\
         ZADD zset:{key} 1 member:{key}\n",
    );
    let url = format!("redis://127.0.0.1:{}", r.port);
    let out = dir.path("cmds.csv");
    ok(&run(&[
        "run",
        "-c",
        "3",
        "-n",
        "2000",
        "--commands",
        file.to_str().unwrap(),
        "--keys",
        "50",
        "--key-distribution",
        "zipfian",
        &url,
        "-o",
        out.to_str().unwrap(),
        "-q",
    ]));
    let (s, labels) = step(&dir, "cmds");
    assert_eq!(s["errors"], serde_json::json!({}));
    assert_eq!(n(&s["responses"]), 2000);
    let info = redis_info(r.port, "commandstats", None);
    for (label, cmd) in [
        ("SET", "set"),
        ("GET", "get"),
        ("mget", "mget"),
        ("INCR", "incr"),
        ("HSET", "hset"),
        ("LPUSH", "lpush"),
        ("ZADD", "zadd"),
    ] {
        let ours = labels.get(label).map_or(0, |l| n(&l["total_requests"]));
        assert_eq!(ours, calls(&info, cmd), "{label}");
        assert!(ours > 0, "{label} was never drawn");
    }
}

#[test]
fn memcached_commands_file_with_multi_get_delete_and_incr() {
    let Some(m) = memcached(&[]) else { return };
    let dir = TempDir::new("kv-mc-cmds");
    let file = dir.write(
        "cmds.txt",
        "weight=3 set k:{key} {value}\nweight=3 name=multi get k:{key} k:{key}\n\
         delete k:{key}\nadd k:{key} {value} 0 60\nincr n:{key} 1\nset n:{key} 7\n",
    );
    let url = format!("memcached://127.0.0.1:{}", m.port);
    let out = dir.path("cmds.csv");
    ok(&run(&[
        "run",
        "-c",
        "2",
        "-n",
        "1500",
        "--commands",
        file.to_str().unwrap(),
        "--keys",
        "20",
        &url,
        "-o",
        out.to_str().unwrap(),
        "-q",
    ]));
    let (s, labels) = step(&dir, "cmds");
    assert_eq!(s["errors"], serde_json::json!({}));
    let st = mc_stats(m.port);
    let count = |l: &str| labels.get(l).map_or(0, |v| n(&v["total_requests"]));
    // memcached counts a multi-get's keys, two a command here.
    assert_eq!(count("multi") * 2, st["cmd_get"]);
    assert_eq!(count("delete"), st["delete_hits"] + st["delete_misses"]);
    assert_eq!(count("incr"), st["incr_hits"] + st["incr_misses"]);
    assert_eq!(count("set") + count("add"), st["cmd_set"]);
    // A multi-get that found nothing is a miss; `add` to an existing key is one too.
    assert_eq!(n(&labels["delete"]["statuses"]["254"]), st["delete_misses"]);
}

#[test]
fn error_replies_are_counted_by_kind_and_never_pass() {
    let Some(r) = redis(&[]) else { return };
    ask(r.port, &resp(&["LPUSH", "list", "x"]), b"\r\n");
    let dir = TempDir::new("kv-redis-errors");
    let file = dir.write(
        "wrong.txt",
        "name=wrongtype GET list\nname=unknown NOSUCHCOMMAND x\n",
    );
    let url = format!("redis://127.0.0.1:{}", r.port);
    let out = dir.path("err.csv");
    let o = run(&[
        "run",
        "-c",
        "2",
        "-n",
        "400",
        "--commands",
        file.to_str().unwrap(),
        &url,
        "-o",
        out.to_str().unwrap(),
        "-q",
    ]);
    // Nothing succeeded: exit 1.
    assert_eq!(o.status.code(), Some(1), "{}\n{}", stdout(&o), stderr(&o));
    let (s, labels) = step(&dir, "err");
    assert_eq!(n(&s["responses"]), 0);
    let wrong = n(&s["errors"]["reply_wrongtype"]);
    let unknown = n(&s["errors"]["reply_err"]);
    assert_eq!(wrong + unknown, 400, "{}", s["errors"]);
    assert_eq!(n(&labels["wrongtype"]["errors"]["reply_wrongtype"]), wrong);
    assert_eq!(n(&labels["unknown"]["errors"]["reply_err"]), unknown);
    let info = redis_info(r.port, "commandstats", None);
    assert_eq!(calls(&info, "get"), wrong);
    // The server's own words are the error's sample.
    let j = read_json(&out.with_extension("json"));
    let samples = j["steps"][0]["error_samples"].to_string();
    assert!(
        samples.contains("WRONGTYPE Operation against a key"),
        "{samples}"
    );
}

#[test]
fn memcached_error_replies_are_counted_by_kind() {
    let Some(m) = memcached(&["-I", "2048", "-o", "slab_chunk_max=1024"]) else {
        return;
    };
    ask(m.port, b"set word 0 0 3\r\nabc\r\n", b"\r\n");
    let dir = TempDir::new("kv-mc-errors");
    // incr of a non-number is a CLIENT_ERROR; a value above -I's limit a SERVER_ERROR.
    let file = dir.write("bad.txt", "incr word 1\nset big:{key} {value}\n");
    let url = format!("memcached://127.0.0.1:{}", m.port);
    let out = dir.path("err.csv");
    let o = run(&[
        "run",
        "-c",
        "1",
        "-n",
        "200",
        "--commands",
        file.to_str().unwrap(),
        "--value-size",
        "4000",
        &url,
        "-o",
        out.to_str().unwrap(),
        "-q",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}\n{}", stdout(&o), stderr(&o));
    let (s, _) = step(&dir, "err");
    let client = n(&s["errors"]["reply_client_error"]);
    let server = n(&s["errors"]["reply_server_error"]);
    assert_eq!(client + server, 200, "{}", s["errors"]);
    assert!(client > 0 && server > 0, "{}", s["errors"]);
}

#[test]
fn a_dead_port_and_a_garbage_server_are_errors_of_their_own() {
    let dir = TempDir::new("kv-dead");
    let dead = free_port();
    let out = dir.path("dead.csv");
    let o = run(&[
        "run",
        "-c",
        "1",
        "-n",
        "20",
        &format!("redis://127.0.0.1:{dead}"),
        "-o",
        out.to_str().unwrap(),
        "-q",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let (s, _) = step(&dir, "dead");
    assert_eq!(n(&s["errors"]["connect"]), 20, "{}", s["errors"]);

    // A server that answers every connection with an HTTP response, then closes.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let server = std::thread::spawn(move || {
        for _ in 0..20 {
            let Ok((mut c, _)) = listener.accept() else {
                return;
            };
            let mut buf = [0u8; 1024];
            let _ = c.read(&mut buf);
            let _ = c.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n");
        }
    });
    let out = dir.path("garbage.csv");
    let o = run(&[
        "run",
        "-c",
        "1",
        "-n",
        "20",
        &format!("memcached://127.0.0.1:{port}"),
        "-o",
        out.to_str().unwrap(),
        "-q",
    ]);
    assert_eq!(o.status.code(), Some(1));
    server.join().unwrap();
    let (s, _) = step(&dir, "garbage");
    assert_eq!(n(&s["errors"]["malformed"]), 20, "{}", s["errors"]);
    assert_eq!(n(&s["responses"]), 0);
}

#[test]
fn the_password_logs_in_and_never_reaches_a_file() {
    let Some(r) = redis(&["--requirepass", "s3cretpw"]) else {
        return;
    };
    let dir = TempDir::new("kv-auth");
    let out = dir.path("auth.csv");
    let url = format!("redis://:s3cretpw@127.0.0.1:{}/3", r.port);
    let o = ok(&run(&[
        "run",
        "-c",
        "2",
        "-n",
        "300",
        "--ratio",
        "1:0",
        &url,
        "-o",
        out.to_str().unwrap(),
    ]));
    assert!(!o.contains("s3cretpw"), "{o}");
    for f in ["auth.csv", "auth.json"] {
        let text = std::fs::read_to_string(dir.path(f)).unwrap();
        assert!(!text.contains("s3cretpw"), "{f} holds the password");
    }
    let (s, _) = step(&dir, "auth");
    assert_eq!(n(&s["statuses"]["250"]), 300);
    // The writes went to database 3.
    let keyspace = redis_info(r.port, "keyspace", Some("s3cretpw"));
    assert!(keyspace.contains_key("db3"), "{keyspace:?}");
    let j = read_json(&dir.path("auth.json"));
    assert!(j["command_line"].to_string().contains("<redacted>"));

    // A wrong password: every command refused as reply_noauth, exit 1.
    let url = format!("redis://:wrong@127.0.0.1:{}", r.port);
    let out = dir.path("wrong.csv");
    let o = run(&[
        "run",
        "-c",
        "1",
        "-n",
        "10",
        &url,
        "-o",
        out.to_str().unwrap(),
        "-q",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let (s, _) = step(&dir, "wrong");
    assert_eq!(n(&s["errors"]["reply_noauth"]), 10, "{}", s["errors"]);
}

#[test]
fn an_open_model_ramp_against_both_stores() {
    let (Some(r), Some(m)) = (redis(&[]), memcached(&[])) else {
        return;
    };
    let _t = crate::util::timed();
    for (url, name) in [
        (format!("redis://127.0.0.1:{}", r.port), "redis"),
        (format!("memcached://127.0.0.1:{}", m.port), "mc"),
    ] {
        let dir = TempDir::new("kv-ramp");
        let out = dir.path(&format!("{name}.csv"));
        ok(&run(&[
            "ramp",
            "--rate",
            "200,400",
            "--duration",
            "1",
            "--end-n-clients",
            "4",
            "--key-distribution",
            "latest",
            &url,
            "-o",
            out.to_str().unwrap(),
            "-q",
        ]));
        let j = read_json(&dir.path(&format!("{name}.json")));
        let steps = j["steps"].as_array().unwrap();
        assert_eq!(steps.len(), 2);
        for (s, rate) in steps.iter().zip([200.0, 400.0]) {
            assert_eq!(s["errors"], serde_json::json!({}), "{name}");
            let done = n(&s["responses"]) as f64;
            // An open model on a timetable: a second's worth went (less what a busy
            // test machine left late or in flight at the end).
            assert!(
                done <= rate + 1.0 && done >= rate * 0.8,
                "{name}: {done} at {rate}/s"
            );
        }
    }
}

#[test]
fn bad_kv_input_is_refused_before_any_load() {
    let dir = TempDir::new("kv-bad");
    let file = dir.write("c.txt", "GET a\nSET {kye} x\n");
    let cas = dir.write("cas.txt", "get k:{key}\ncas k:{key} {value}\n");
    for (args, want) in [
        (
            vec![
                "run",
                "-n",
                "1",
                "--commands",
                cas.to_str().unwrap(),
                "memcached://127.0.0.1:1",
            ],
            "cas.txt:2: cas needs a gets line",
        ),
        (
            vec![
                "run",
                "-n",
                "1",
                "--commands",
                file.to_str().unwrap(),
                "redis://127.0.0.1:1",
            ],
            "c.txt:2: {kye}: unknown placeholder",
        ),
        (
            vec!["run", "-n", "1", "--keys", "0", "redis://127.0.0.1:1"],
            "--keys 0",
        ),
        (
            vec![
                "run",
                "-n",
                "1",
                "--ratio",
                "1:x",
                "memcached://127.0.0.1:1",
            ],
            "--ratio \"1:x\"",
        ),
        (
            vec!["run", "-n", "1", "--keys", "5", "http://127.0.0.1:1/"],
            "--keys applies to redis://",
        ),
        (
            vec!["run", "-n", "1", "redis://:hunter2@127.0.0.1:1/x"],
            "database number",
        ),
        (
            vec!["run", "-n", "1", "-H", "A: b", "redis://127.0.0.1:1"],
            "-H has no meaning",
        ),
        (
            vec!["run", "-n", "1", "--pipeline", "0", "redis://127.0.0.1:1"],
            "--pipeline 0",
        ),
        (
            vec![
                "run",
                "-n",
                "1",
                "--pipeline",
                "5000",
                "memcached://127.0.0.1:1",
            ],
            "between 1 and 1024",
        ),
        (
            vec!["run", "-n", "1", "--pipeline", "4", "http://127.0.0.1:1/"],
            "--pipeline applies to redis://",
        ),
        (
            vec![
                "run",
                "-n",
                "1",
                "--http2",
                "--pipeline",
                "4",
                "redis://127.0.0.1:1",
            ],
            "--pipeline and --http2",
        ),
        (
            vec!["run", "-n", "1", "--http2", "memcached://127.0.0.1:1"],
            "--http2: a key-value store speaks its own protocol",
        ),
    ] {
        let o = run(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        let e = stderr(&o);
        assert!(e.contains(want), "{args:?}: {e}");
        assert!(!e.contains("hunter2"), "{e}");
    }
}

#[test]
fn a_full_redis_answers_oom_and_a_silent_server_times_out() {
    let Some(r) = redis(&["--maxmemory", "2mb", "--maxmemory-policy", "noeviction"]) else {
        return;
    };
    let dir = TempDir::new("kv-oom");
    let url = format!("redis://127.0.0.1:{}", r.port);
    let out = dir.path("oom.csv");
    // 400 writes of 20 kB fill 2 MB: the later ones are refused.
    ok(&run(&[
        "run",
        "-c",
        "1",
        "-n",
        "400",
        "--ratio",
        "1:0",
        "--key-distribution",
        "sequential",
        "--keys",
        "1000",
        "--value-size",
        "20000",
        &url,
        "-o",
        out.to_str().unwrap(),
        "-q",
    ]));
    let (s, _) = step(&dir, "oom");
    let oom = n(&s["errors"]["reply_oom"]);
    assert!(oom > 0, "{}", s["errors"]);
    assert_eq!(oom + n(&s["statuses"]["250"]), 400);

    // A server that takes the connection and never answers.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let held = std::thread::spawn(move || {
        let c = listener.accept();
        std::thread::sleep(Duration::from_millis(1500));
        drop(c);
    });
    let out = dir.path("silent.csv");
    let o = run(&[
        "run",
        "-c",
        "1",
        "-n",
        "2",
        "--default-timeout",
        "0.3",
        &format!("redis://127.0.0.1:{port}"),
        "-o",
        out.to_str().unwrap(),
        "-q",
    ]);
    assert_eq!(o.status.code(), Some(1));
    held.join().unwrap();
    let (s, _) = step(&dir, "silent");
    assert!(n(&s["errors"]["timeout"]) >= 1, "{}", s["errors"]);
    assert_eq!(n(&s["responses"]), 0);
}

#[test]
fn find_max_probes_a_store_like_any_target() {
    let Some(r) = redis(&[]) else { return };
    let _t = crate::util::timed();
    let dir = TempDir::new("kv-find-max");
    let out = dir.path("fm.csv");
    ok(&run(&[
        "ramp",
        "--find-max",
        "--slo",
        "p99<200ms,errors<0.1%",
        "--start-rate",
        "500",
        "--duration",
        "0.5s",
        "--interval",
        "0",
        "--max-probes",
        "2",
        "--end-n-clients",
        "8",
        "-q",
        "-o",
        out.to_str().unwrap(),
        &format!("redis://127.0.0.1:{}", r.port),
    ]));
    let j = read_json(&dir.path("fm.json"));
    let probes = j["find_max"]["probes"].as_array().unwrap();
    assert_eq!(probes.len(), 2);
    // The first probe is far below what Redis serves; a busy test machine may keep
    // hakaru from the second's timetable, which the probe says rather than fails.
    assert_eq!(probes[0]["passed"], true, "{probes:?}");
    assert!(
        probes.iter().all(|p| p["failed"] == serde_json::json!([])),
        "{probes:?}"
    );
    let info = redis_info(r.port, "commandstats", None);
    // Requests in flight when a probe ended were served, but are neither success
    // nor error: the server's count is the responses and those.
    let sent: u64 = j["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| n(&s["responses"]) + n(&s["unfinished"]))
        .sum();
    assert_eq!(sent, calls(&info, "get") + calls(&info, "set"));
    // Its page says ops/s and replies: the cards said "req/s", the charts "requests".
    let o = run(&["report", dir.path("fm.json").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let page = std::fs::read_to_string(dir.path("fm.html")).unwrap();
    assert!(
        page.contains(" ops/s</div>") && !page.contains("req/s"),
        "{page}"
    );
    assert!(
        page.contains("offered rate (commands per second)"),
        "{page}"
    );
}

#[test]
fn preload_writes_every_key_once_apart_from_the_steps() {
    let (Some(r), Some(m)) = (redis(&[]), memcached(&[])) else {
        return;
    };
    for (url, get) in [
        (format!("redis://127.0.0.1:{}", r.port), "GET"),
        (format!("memcached://127.0.0.1:{}", m.port), "get"),
    ] {
        let dir = TempDir::new("kv-preload");
        let out = dir.path("pre.csv");
        let o = run(&[
            "run",
            "-c",
            "4",
            "-n",
            "1000",
            "--ratio",
            "0:1",
            "--keys",
            "500",
            "--preload",
            &url,
            "-o",
            out.to_str().unwrap(),
            "-q",
        ]);
        ok(&o);
        assert!(
            stderr(&o).contains("Preload: 500 of 500 keys written"),
            "{}",
            stderr(&o)
        );
        let (s, labels) = step(&dir, "pre");
        // Every read hits; the preload's writes are in no step.
        assert_eq!(n(&s["statuses"]["250"]), 1000, "{url}");
        assert_eq!(n(&s["responses"]), 1000);
        assert!(labels.is_empty() || labels.contains_key(get));
    }
    assert_eq!(calls(&redis_info(r.port, "commandstats", None), "set"), 500);
    let st = mc_stats(m.port);
    assert_eq!(
        (st["cmd_set"], st["curr_items"], st["get_misses"]),
        (500, 500, 0)
    );

    // Nothing to write each key with: refused before any load.
    let dir = TempDir::new("kv-preload-none");
    let file = dir.write("reads.txt", "GET key:{key}\n");
    let o = run(&[
        "run",
        "-n",
        "1",
        "--commands",
        file.to_str().unwrap(),
        "--preload",
        &format!("redis://127.0.0.1:{}", r.port),
    ]);
    assert_ne!(o.status.code(), Some(0));
    assert!(
        stderr(&o).contains("--preload needs a command that writes"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn probes_read_the_store_s_counters_around_each_step() {
    let (Some(r), Some(m)) = (redis(&[]), memcached(&[])) else {
        return;
    };
    for (url, probe, get) in [
        (format!("redis://127.0.0.1:{}", r.port), "redis", "GET"),
        (
            format!("memcached://127.0.0.1:{}", m.port),
            "memcached",
            "get",
        ),
    ] {
        let dir = TempDir::new("kv-probe");
        let out = dir.path("p.csv");
        ok(&run(&[
            "run",
            "-c",
            "2",
            "-n",
            "600",
            "--ratio",
            "1:2",
            "--keys",
            "50",
            "--probe",
            probe,
            &url,
            "-o",
            out.to_str().unwrap(),
            "-q",
        ]));
        let (s, labels) = step(&dir, "p");
        let p = &s["probes"][0];
        assert_eq!(p["error"], Value::Null, "{p}");
        // The server's hits and misses in the step are the reads' 250s and 254s.
        let g = &labels[get];
        assert_eq!(
            p["delta"]["cache_hits"].as_f64(),
            Some(n(&g["statuses"]["250"]) as f64)
        );
        assert_eq!(
            p["delta"]["n_queries"].as_f64(),
            Some(n(&g["total_requests"]) as f64),
            "{probe}: {p}"
        );
        assert!(s["cache_hit_rate"].as_f64().is_some());
    }
}

#[test]
fn shards_merge_into_the_server_s_count() {
    let Some(r) = redis(&[]) else { return };
    let dir = TempDir::new("kv-shard");
    let url = format!("redis://127.0.0.1:{}", r.port);
    let mut files = Vec::new();
    for k in ["1/2", "2/2"] {
        let out = dir.path(&format!("s{}.csv", &k[..1]));
        ok(&run(&[
            "run",
            "-c",
            "4",
            "-n",
            "1000",
            "--shard",
            k,
            "--ratio",
            "1:1",
            &url,
            "-o",
            out.to_str().unwrap(),
            "-q",
        ]));
        files.push(out.with_extension("json"));
    }
    let merged = dir.path("m.csv");
    ok(&run(&[
        "merge",
        files[0].to_str().unwrap(),
        files[1].to_str().unwrap(),
        "-o",
        merged.to_str().unwrap(),
    ]));
    let (s, labels) = step(&dir, "m");
    assert_eq!(n(&s["responses"]), 1000);
    let info = redis_info(r.port, "commandstats", None);
    assert_eq!(n(&labels["GET"]["total_requests"]), calls(&info, "get"));
    assert_eq!(n(&labels["SET"]["total_requests"]), calls(&info, "set"));
}

/// A load and a 1-second run of YCSB workload `core` against `url`.
fn ycsb_scenario(dir: &TempDir, url: &str, core: &str) -> std::path::PathBuf {
    dir.write(
        &format!("ycsb-{core}.toml"),
        &format!(
            "timeout = \"10s\"\n\
             [[phase]]\nname = \"load\"\nduration = \"60s\"\nclients = 4\n\
             [[phase.workload]]\nycsb = {{ url = \"{url}\", workload = \"load\", records = 500 }}\n\
             [[phase]]\nname = \"run\"\nduration = \"1s\"\nclients = 4\n\
             [[phase.workload]]\nycsb = {{ url = \"{url}\", workload = \"{core}\", records = 500 }}\n"
        ),
    )
}

/// YCSB's shares (thousandths) of each operation of a core workload.
fn shares(core: &str) -> &'static [(&'static str, f64)] {
    match core {
        "a" => &[("read", 0.5), ("update", 0.5)],
        "b" => &[("read", 0.95), ("update", 0.05)],
        "c" => &[("read", 1.0)],
        "d" => &[("read", 0.95), ("insert", 0.05)],
        "e" => &[("scan", 0.95), ("insert", 0.05)],
        _ => &[("read", 0.5), ("read-modify-write", 0.5)],
    }
}

#[test]
fn ycsb_core_workloads_over_redis_and_memcached() {
    let (Some(r), Some(m)) = (redis(&[]), memcached(&[])) else {
        return;
    };
    let _t = crate::util::timed();
    let stores = [
        (format!("redis://127.0.0.1:{}", r.port), "abcdef"),
        (format!("memcached://127.0.0.1:{}", m.port), "abcdf"),
    ];
    for (url, cores) in &stores {
        for core in cores.chars().map(String::from) {
            let dir = TempDir::new("kv-ycsb");
            let file = ycsb_scenario(&dir, url, &core);
            let out = dir.path("y.csv");
            ok(&run(&[
                "suite",
                file.to_str().unwrap(),
                "-o",
                out.to_str().unwrap(),
                "-q",
            ]));
            let j = read_json(&dir.path("y.json"));
            let (load, run) = (&j["steps"][0], &j["steps"][1]);
            assert_eq!(load["operations"]["insert"], 500, "{url} {core}: {load}");
            for s in [load, run] {
                assert_eq!(s["errors"], serde_json::json!({}), "{url} {core}");
                // Every read found its record: the layout is what the reads expect.
                assert_eq!(
                    n(&s["statuses"]["254"]),
                    0,
                    "{url} {core}: {}",
                    s["statuses"]
                );
            }
            let ops: BTreeMap<String, u64> =
                serde_json::from_value(run["operations"].clone()).unwrap();
            let total: u64 = ops.values().sum();
            assert!(total > 200, "{url} {core}: {ops:?}");
            for (op, p) in shares(&core) {
                let got = ops.get(*op).copied().unwrap_or(0) as f64;
                let sd = (total as f64 * p * (1.0 - p)).sqrt();
                let want = total as f64 * p;
                assert!(
                    (got - want).abs() <= 5.0 * sd + 1.0,
                    "{url} {core}: {op} {got} of {total}, expected {want:.0} ± {:.0}",
                    5.0 * sd
                );
            }
        }
    }
    let info = redis_info(r.port, "commandstats", None);
    assert!(
        calls(&info, "zadd") >= 500 && calls(&info, "hgetall") > 0,
        "{info:?}"
    );

    // Scans need ordered keys: workload E on memcached is refused before any load.
    let dir = TempDir::new("kv-ycsb-e");
    let file = ycsb_scenario(&dir, &stores[1].0, "e");
    let o = run(&["suite", file.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("memcached keeps no order of its keys"),
        "{}",
        stderr(&o)
    );
}

/// `run` with `--pipeline`: the result's first step.
fn pipelined(dir: &TempDir, name: &str, args: &[&str]) -> Value {
    let out = dir.path(&format!("{name}.csv"));
    let mut all = vec!["run"];
    all.extend_from_slice(args);
    all.extend(["-o", out.to_str().unwrap(), "-q"]);
    ok(&run(&all));
    step(dir, name).0
}

#[test]
fn pipeline_16_counts_match_redis_s_own_on_two_connections() {
    let Some(r) = redis(&[]) else { return };
    let dir = TempDir::new("kv-pipe-redis");
    let url = format!("redis://127.0.0.1:{}", r.port);
    let before = redis_info(r.port, "stats", None);
    // 32 clients in groups of 16 on 2 threads: 2 connections, 16 commands on each.
    let s = pipelined(
        &dir,
        "pipe",
        &[
            "-c",
            "32",
            "--threads",
            "2",
            "--pipeline",
            "16",
            "-n",
            "20000",
            "--ratio",
            "1:3",
            "--keys",
            "500",
            &url,
        ],
    );
    assert_eq!(n(&s["responses"]), 20000);
    assert_eq!(s["errors"], serde_json::json!({}));
    assert_eq!(
        n(&s["connections_opened"]),
        2,
        "{}",
        s["connections_opened"]
    );
    let info = redis_info(r.port, "commandstats", None);
    assert_eq!(calls(&info, "get") + calls(&info, "set"), 20000);
    let after = redis_info(r.port, "stats", None);
    let count = |m: &BTreeMap<String, String>, k: &str| m[k].trim().parse::<u64>().unwrap();
    // Our 2, and the two INFO connections since `before` (commandstats, `after`).
    assert_eq!(
        count(&after, "total_connections_received") - count(&before, "total_connections_received"),
        4
    );
    assert_eq!(
        n(&s["statuses"]["250"]) + n(&s["statuses"]["254"]),
        20000,
        "{}",
        s["statuses"]
    );
}

/// `--pipeline` with a password and a database was refused before any load; the
/// login now goes first on each pipelined connection, and a refused one fails each
/// command under the refusal's kind.
#[test]
fn a_pipelined_connection_logs_in_and_selects_its_database() {
    let Some(r) = redis(&["--requirepass", "s3cretpw"]) else {
        return;
    };
    let dir = TempDir::new("kv-pipe-auth");
    let url = format!("redis://:s3cretpw@127.0.0.1:{}/5", r.port);
    let s = pipelined(
        &dir,
        "auth",
        &[
            "-c",
            "16",
            "--threads",
            "1",
            "--pipeline",
            "8",
            "-n",
            "4000",
            "--ratio",
            "1:1",
            "--keys",
            "200",
            &url,
        ],
    );
    assert_eq!(n(&s["responses"]), 4000);
    assert_eq!(s["errors"], serde_json::json!({}));
    assert_eq!(n(&s["connections_opened"]), 2);
    let info = redis_info(r.port, "commandstats", Some("s3cretpw"));
    assert_eq!(calls(&info, "get") + calls(&info, "set"), 4000);
    // One AUTH and one SELECT per connection.
    assert_eq!(calls(&info, "select"), 2, "{info:?}");
    let keyspace = redis_info(r.port, "keyspace", Some("s3cretpw"));
    assert!(keyspace.contains_key("db5"), "{keyspace:?}");
    assert!(!keyspace.contains_key("db0"), "{keyspace:?}");
    // The depth is in the result's settings, for compare and report.
    assert_eq!(read_json(&dir.path("auth.json"))["settings"]["pipeline"], 8);

    // A wrong password: every command fails as reply_noauth, none as anything else.
    let url = format!("redis://:wrong@127.0.0.1:{}", r.port);
    let out = dir.path("wrong.csv");
    let o = run(&[
        "run",
        "-c",
        "8",
        "--threads",
        "1",
        "--pipeline",
        "4",
        "-n",
        "200",
        &url,
        "-o",
        out.to_str().unwrap(),
        "-q",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let (s, _) = step(&dir, "wrong");
    assert_eq!(n(&s["errors"]["reply_noauth"]), 200, "{}", s["errors"]);
    assert_eq!(n(&s["responses"]), 0);
}

#[test]
fn pipeline_16_counts_match_memcached_s_own_in_both_models() {
    let Some(m) = memcached(&[]) else { return };
    let dir = TempDir::new("kv-pipe-mc");
    let url = format!("memcached://127.0.0.1:{}", m.port);
    let s = pipelined(
        &dir,
        "closed",
        &[
            "-c",
            "16",
            "--threads",
            "1",
            "--pipeline",
            "16",
            "-n",
            "10000",
            "--ratio",
            "1:1",
            &url,
        ],
    );
    assert_eq!(n(&s["responses"]), 10000);
    assert_eq!(s["errors"], serde_json::json!({}));
    assert_eq!(n(&s["connections_opened"]), 1);
    let stats = mc_stats(m.port);
    assert_eq!(stats["cmd_get"] + stats["cmd_set"], 10000);
    // The open model: every scheduled command sent and answered.
    let s = pipelined(
        &dir,
        "open",
        &[
            "-c",
            "32",
            "--threads",
            "1",
            "--pipeline",
            "16",
            "--rate",
            "2000",
            "-d",
            "2s",
            "--ratio",
            "1:1",
            &url,
        ],
    );
    assert_eq!(s["errors"], serde_json::json!({}));
    // Sent: answered, or in flight when the step ended (the server counted those).
    let sent = n(&s["responses"]) + n(&s["unfinished"]);
    let stats = mc_stats(m.port);
    assert_eq!(stats["cmd_get"] + stats["cmd_set"], 10000 + sent);
    assert!((3900..=4000).contains(&sent), "{sent} of 4000 scheduled");
}

/// Wait (at most 20 s) until redis on `port` has answered `n` GETs and SETs.
fn served(port: u16, n: u64) {
    for _ in 0..400 {
        let info = redis_info(port, "commandstats", None);
        if calls(&info, "get") + calls(&info, "set") >= n {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("redis answered fewer than {n} commands in 20 s");
}

/// Send `signal` to `pid` (the test's own server).
fn signal(pid: u32, signal: &str) {
    let st = Command::new("kill")
        .args([signal, &pid.to_string()])
        .status()
        .unwrap();
    assert!(st.success());
}

/// `hakaru ARGS -o OUT -q` started in the background, for a test that acts on the
/// server while the run goes on.
fn spawn_quiet(args: &[&str], out: &std::path::Path) -> std::process::Child {
    crate::util::hakaru()
        .args(args)
        .arg("-o")
        .arg(out)
        .arg("-q")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

#[test]
fn a_stopped_server_gives_pipelined_timeouts_not_a_hang() {
    let Some(r) = redis(&[]) else { return };
    let dir = TempDir::new("kv-pipe-stop");
    let url = format!("redis://127.0.0.1:{}", r.port);
    let out = dir.path("stop.csv");
    let mut child = spawn_quiet(
        &[
            "run",
            "-c",
            "16",
            "--threads",
            "1",
            "--pipeline",
            "16",
            "-d",
            "4s",
            "--timeout",
            "0.5",
            &url,
        ],
        &out,
    );
    served(r.port, 1000);
    std::thread::sleep(Duration::from_millis(300));
    signal(r.child.id(), "-STOP");
    std::thread::sleep(Duration::from_millis(1500));
    signal(r.child.id(), "-CONT");
    let status = crate::util::wait_bounded(&mut child, Duration::from_secs(20));
    assert!(status.is_some(), "hakaru hung on a stopped server");
    let (s, _) = step(&dir, "stop");
    let errors = s["errors"].as_object().unwrap();
    assert!(n(&s["errors"]["timeout"]) >= 16, "{}", s["errors"]);
    assert_eq!(errors.len(), 1, "only timeouts: {}", s["errors"]);
    assert!(n(&s["responses"]) > 0);
}

#[test]
fn a_killed_server_fails_each_pipelined_command_once() {
    let Some(mut r) = redis(&[]) else { return };
    let dir = TempDir::new("kv-pipe-kill");
    let url = format!("redis://127.0.0.1:{}", r.port);
    let out = dir.path("kill.csv");
    let mut child = spawn_quiet(
        &[
            "run",
            "-c",
            "16",
            "--threads",
            "1",
            "--pipeline",
            "16",
            "-d",
            "2500ms",
            "--timeout",
            "2",
            &url,
        ],
        &out,
    );
    // Killed mid-run: once the server has answered commands (a loaded machine may
    // start hakaru late), never by the clock alone.
    served(r.port, 1000);
    r.child.kill().unwrap();
    let _ = r.child.wait();
    let status = crate::util::wait_bounded(&mut child, Duration::from_secs(20));
    assert!(status.is_some(), "hakaru hung on a killed server");
    let (s, _) = step(&dir, "kill");
    // A connection had at most 16 commands in flight: each failed once, as a reset
    // (none when the kill fell between a batch's replies and the next batch); every
    // later command found the port closed.
    let reset = n(&s["errors"]["reset"]);
    let opened = n(&s["connections_opened"]);
    assert!(
        reset <= 16 * opened,
        "{} on {opened} connections",
        s["errors"]
    );
    let errors = s["errors"].as_object().unwrap();
    assert!(
        errors.keys().all(|k| k == "reset" || k == "connect"),
        "{}",
        s["errors"]
    );
    assert!(n(&s["errors"]["connect"]) > 0, "{}", s["errors"]);
    assert!(n(&s["responses"]) > 0);
}

#[test]
fn a_connection_that_dies_fails_each_of_its_16_commands_once() {
    // A server that reads 16 GETs, answers none, closes, and takes no more
    // connections: exactly 16 commands were in flight when the connection died.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let server = std::thread::spawn(move || {
        let (mut c, _) = listener.accept().unwrap();
        drop(listener);
        c.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        let mut got = Vec::new();
        let mut buf = [0u8; 4096];
        while got.windows(3).filter(|w| w == b"GET").count() < 16 {
            match c.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => got.extend_from_slice(&buf[..n]),
            }
        }
        got.windows(3).filter(|w| w == b"GET").count()
    });
    let dir = TempDir::new("kv-pipe-die");
    let out = dir.path("die.csv");
    let o = run(&[
        "run",
        "-c",
        "16",
        "--threads",
        "1",
        "--pipeline",
        "16",
        "-d",
        "1s",
        "--ratio",
        "0:1",
        &format!("redis://127.0.0.1:{port}"),
        "-o",
        out.to_str().unwrap(),
        "-q",
    ]);
    // Nothing succeeded: exit 1.
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_eq!(server.join().unwrap(), 16);
    let (s, _) = step(&dir, "die");
    assert_eq!(n(&s["errors"]["reset"]), 16, "{}", s["errors"]);
    assert!(n(&s["errors"]["connect"]) > 0, "{}", s["errors"]);
    assert_eq!(s["errors"].as_object().unwrap().len(), 2, "{}", s["errors"]);
    assert_eq!(n(&s["responses"]), 0);
}

/// A Redis cluster node (cluster mode, no slots until the test gives it some).
///
/// Its cluster bus gets a free port of its own. Left to Redis it is the client
/// port plus 10,000, which for a port just below the ephemeral range lands inside
/// it, where an outgoing connection of a test beside may hold it (CI of 8b7b3fe:
/// "redis-server exited before listening").
fn cluster_node() -> Option<(Server, u16)> {
    let bus = free_port();
    let node = redis(&[
        "--cluster-enabled",
        "yes",
        "--cluster-config-file",
        "nodes.conf",
        "--cluster-port",
        &bus.to_string(),
    ])?;
    Some((node, bus))
}

/// A one-value reply's text: a bulk string's value (`$40\r\n<id>\r\n` → the id), an
/// integer's digits. Redis writes such a reply in one write.
fn reply_text(port: u16, args: &[&str]) -> String {
    let text = ask(port, &resp(args), b"\r\n");
    let mut lines = text.split("\r\n");
    let first = lines.next().unwrap();
    if first.starts_with('$') {
        lines
            .next()
            .expect("the value came with its length")
            .to_string()
    } else {
        first.trim_start_matches([':', '+']).to_string()
    }
}

/// Two cluster nodes on loopback, slots split by hand: a key sent to the node that
/// does not own it is answered `-MOVED`, one in a slot being migrated away `-ASK`;
/// both are counted as `reply_moved` (hakaru does not follow redirections), never as
/// another error, with exact counts per command.
#[test]
fn a_key_sent_to_the_wrong_cluster_node_is_counted_as_moved() {
    let (Some((a, _)), Some((b, b_bus))) = (cluster_node(), cluster_node()) else {
        return;
    };
    let _t = crate::util::timed();
    assert!(ask(
        a.port,
        &resp(&["CLUSTER", "ADDSLOTSRANGE", "0", "8191"]),
        b"\r\n"
    )
    .contains("OK"));
    assert!(ask(
        b.port,
        &resp(&["CLUSTER", "ADDSLOTSRANGE", "8192", "16383"]),
        b"\r\n"
    )
    .contains("OK"));
    let (pb, bb) = (b.port.to_string(), b_bus.to_string());
    assert!(ask(
        a.port,
        &resp(&["CLUSTER", "MEET", "127.0.0.1", &pb, &bb]),
        b"\r\n"
    )
    .contains("OK"));
    let t0 = std::time::Instant::now();
    while !ask(a.port, &resp(&["CLUSTER", "INFO"]), b"\r\n\r\n").contains("cluster_state:ok") {
        assert!(
            t0.elapsed() < Duration::from_secs(30),
            "the cluster never formed"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    // Three keys: one in a's slots, one in b's, one in a slot a is migrating to b.
    let slot = |k: &str| {
        reply_text(a.port, &["CLUSTER", "KEYSLOT", k])
            .parse::<u32>()
            .unwrap()
    };
    let candidates: Vec<String> = (0..200).map(|i| format!("k{i}")).collect();
    let local = candidates.iter().find(|k| slot(k) < 8192).unwrap().clone();
    let away = candidates.iter().find(|k| slot(k) >= 8192).unwrap().clone();
    let migrating = candidates
        .iter()
        .find(|k| slot(k) < 8192 && slot(k) != slot(&local))
        .unwrap()
        .clone();
    let b_id = reply_text(b.port, &["CLUSTER", "MYID"]);
    let s = slot(&migrating).to_string();
    let set = ask(
        a.port,
        &resp(&["CLUSTER", "SETSLOT", &s, "MIGRATING", &b_id]),
        b"\r\n",
    );
    assert!(set.contains("OK"), "{set}");

    let dir = TempDir::new("kv-cluster");
    let file = dir.path("cmds.txt");
    std::fs::write(
        &file,
        format!("name=local GET {local}\nname=moved GET {away}\nname=ask GET {migrating}\n"),
    )
    .unwrap();
    let out = dir.path("c.csv");
    let url = format!("redis://127.0.0.1:{}", a.port);
    // Some commands succeed: the run's exit is 0 (no threshold was set).
    ok(&run(&[
        "run",
        "-c",
        "2",
        "-n",
        "300",
        "--commands",
        file.to_str().unwrap(),
        &url,
        "-o",
        out.to_str().unwrap(),
        "-q",
    ]));
    let (s, labels) = step(&dir, "c");
    let moved = n(&s["errors"]["reply_moved"]);
    let local_n = n(&labels["local"]["total_requests"]);
    assert_eq!(moved + n(&s["statuses"]["254"]), 300, "{}", s["errors"]);
    assert_eq!(n(&s["statuses"]["254"]), local_n, "{}", s["statuses"]);
    for label in ["moved", "ask"] {
        let l = &labels[label];
        assert!(n(&l["total_requests"]) > 0, "{label}: {l}");
        assert_eq!(
            n(&l["errors"]["reply_moved"]),
            n(&l["total_requests"]),
            "{label}: {l}"
        );
    }
    assert_eq!(s["errors"].as_object().unwrap().len(), 1, "{}", s["errors"]);
    // Only the local key's GETs were executed by a.
    let info = redis_info(a.port, "commandstats", None);
    assert_eq!(calls(&info, "get"), local_n, "{info:?}");
}

/// `rediss://`: commands over TLS to a redis-server that listens only with TLS on that
/// port (a plain client could not be answered there), the server's certificate
/// checked against the test's CA (`--cacert`); `--pipeline` with it is refused.
#[test]
fn rediss_speaks_tls_with_exact_counts() {
    if !have("openssl") {
        return;
    }
    let certs = TempDir::new("kv-tls-certs");
    crate::util::make_certificates(&certs);
    let tls_port = free_port();
    let (ca, cert, key) = (
        certs.path("ca.pem"),
        certs.path("cert.pem"),
        certs.path("key.pem"),
    );
    let tls_port_s = tls_port.to_string();
    let Some(r) = redis(&[
        "--tls-port",
        &tls_port_s,
        "--tls-cert-file",
        cert.to_str().unwrap(),
        "--tls-key-file",
        key.to_str().unwrap(),
        "--tls-ca-cert-file",
        ca.to_str().unwrap(),
        "--tls-auth-clients",
        "no",
    ]) else {
        return;
    };
    let mut probe = std::net::TcpStream::connect(("127.0.0.1", tls_port));
    let t0 = std::time::Instant::now();
    while probe.is_err() && t0.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(50));
        probe = std::net::TcpStream::connect(("127.0.0.1", tls_port));
    }
    drop(probe.expect("redis-server listens with TLS"));
    let dir = TempDir::new("kv-tls");
    let out = dir.path("tls.csv");
    let url = format!("rediss://127.0.0.1:{tls_port}");
    let o = ok(&run(&[
        "run",
        "-c",
        "4",
        "-n",
        "1000",
        "--ratio",
        "1:1",
        "--keys",
        "50",
        "--cacert",
        ca.to_str().unwrap(),
        &url,
        "-o",
        out.to_str().unwrap(),
    ]));
    let (s, _) = step(&dir, "tls");
    assert_eq!(n(&s["responses"]), 1000, "{o}");
    assert_eq!(s["errors"], serde_json::json!({}));
    let info = redis_info(r.port, "commandstats", None);
    assert_eq!(calls(&info, "get") + calls(&info, "set"), 1000);
    let j = read_json(&dir.path("tls.json"));
    assert!(
        j.to_string()
            .contains(&format!("rediss://127.0.0.1:{tls_port}")),
        "the label says TLS"
    );

    // Without the CA the server's certificate is not trusted: TLS errors, no replies.
    let out = dir.path("untrusted.csv");
    let o = run(&[
        "run",
        "-c",
        "1",
        "-n",
        "5",
        &url,
        "-o",
        out.to_str().unwrap(),
        "-q",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let (s, _) = step(&dir, "untrusted");
    assert_eq!(n(&s["errors"]["tls"]), 5, "{}", s["errors"]);

    let o = run(&["run", "-n", "1", "--pipeline", "4", &url]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("--pipeline with rediss://"),
        "{}",
        stderr(&o)
    );
}

/// `set`s to keys `k:0`…`k:{keys-1}` in turn on one connection until `stop`: a second
/// writer, so some of hakaru's `cas` find their item changed since their `gets`.
/// Returns how many it stored.
fn second_writer(
    port: u16,
    keys: u64,
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
) -> std::thread::JoinHandle<u64> {
    std::thread::spawn(move || {
        let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        let mut stored = 0u64;
        let mut buf = [0u8; 64];
        // Bounded in count as well, should the run never end.
        while !stop.load(std::sync::atomic::Ordering::Relaxed) && stored < 200_000 {
            s.write_all(format!("set k:{} 0 0 1\r\nw\r\n", stored % keys).as_bytes())
                .unwrap();
            let n = s.read(&mut buf).unwrap();
            assert_eq!(&buf[..n], b"STORED\r\n");
            stored += 1;
            std::thread::sleep(Duration::from_micros(200));
        }
        stored
    })
}

#[test]
fn memcached_cas_counts_stored_exists_and_not_found_apart_with_and_without_pipeline() {
    let Some(m) = memcached(&[]) else { return };
    let dir = TempDir::new("kv-mc-cas");
    let file = dir.write(
        "cmds.txt",
        "weight=2 gets k:{key}\nweight=2 cas k:{key} {value}\nset k:{key} {value}\n\
         delete k:{key}\n",
    );
    let url = format!("memcached://127.0.0.1:{}", m.port);
    for (name, extra) in [
        ("closed", &["-c", "2"][..]),
        (
            "pipelined",
            &["-c", "16", "--threads", "1", "--pipeline", "8"][..],
        ),
    ] {
        let before = mc_stats(m.port);
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let writer = second_writer(m.port, 5, stop.clone());
        let out = dir.path(&format!("{name}.csv"));
        let mut args = vec!["run", "-n", "6000", "--commands", file.to_str().unwrap()];
        args.extend_from_slice(extra);
        args.extend(["--keys", "5", &url, "-o", out.to_str().unwrap(), "-q"]);
        ok(&run(&args));
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        let written = writer.join().unwrap();
        let st = mc_stats(m.port);
        let d = |k: &str| st[k] - before[k];
        let (s, labels) = step(&dir, name);
        assert_eq!(s["errors"], serde_json::json!({}), "{name}");
        assert_eq!(n(&s["responses"]), 6000, "{name}");
        let cas = &labels["cas"];
        let status = |code: &str| n(&cas["statuses"][code]);
        let (stored, exists, gone, untokened) =
            (status("250"), status("252"), status("254"), status("253"));
        // Every cas is one of the four; memcached saw the three it was sent.
        assert_eq!(
            stored + exists + gone + untokened,
            n(&cas["total_requests"]),
            "{name}: {cas}"
        );
        assert_eq!(
            (stored, exists, gone),
            (d("cas_hits"), d("cas_badval"), d("cas_misses")),
            "{name}"
        );
        // The no-op in place of a tokenless cas is no command memcached counts.
        let sets = n(&labels["set"]["total_requests"]);
        assert_eq!(
            d("cmd_set"),
            sets + stored + exists + gone + written,
            "{name}"
        );
        assert_eq!(d("cmd_get"), n(&labels["gets"]["total_requests"]), "{name}");
        // All four happen: the writer makes EXISTS, `delete` NOT_FOUND, a `gets` of
        // another key (or one that found nothing) leaves a cas without a token.
        assert!(
            stored > 0 && exists > 0 && gone > 0 && untokened > 0,
            "{name}: {cas}"
        );
    }
}

/// The pipeline's driver (one future per connection, `engine::shared::driver`)
/// records each command of a read's batch itself: a lost or doubled latency, count,
/// hit or second would show here. 40 clients on 2 threads: groups of 16 and 4 on
/// each, and a budget that is no multiple of either.
#[test]
fn the_pipeline_driver_keeps_every_count_latency_and_second() {
    let Some(r) = redis(&[]) else { return };
    let dir = TempDir::new("kv-pipe-driver");
    let url = format!("redis://127.0.0.1:{}", r.port);
    let args = [
        "-c",
        "40",
        "--threads",
        "2",
        "--pipeline",
        "16",
        "-n",
        "10007",
        "--ratio",
        "1:3",
        "--keys",
        "300",
        &url,
    ];
    pipelined(&dir, "drv", &args);
    let (s, labels) = step(&dir, "drv");
    assert_eq!(n(&s["responses"]), 10007);
    assert_eq!(s["errors"], serde_json::json!({}));
    assert_eq!(n(&s["latency"]["count"]), 10007);
    // 2 threads × groups of 16 and 4: 4 connections.
    assert_eq!(n(&s["connections_opened"]), 4);
    let info = redis_info(r.port, "commandstats", None);
    let (get, set) = (&labels["GET"], &labels["SET"]);
    assert_eq!(n(&get["total_requests"]), calls(&info, "get"));
    assert_eq!(n(&set["total_requests"]), calls(&info, "set"));
    assert_eq!(calls(&info, "get") + calls(&info, "set"), 10007);
    assert_eq!(
        n(&get["latency"]["count"]) + n(&set["latency"]["count"]),
        10007
    );
    // Hits and misses are the server's own.
    let stats = redis_info(r.port, "stats", None);
    let count = |k: &str| stats[k].trim().parse::<u64>().unwrap();
    assert_eq!(n(&get["statuses"]["250"]), count("keyspace_hits"));
    assert_eq!(n(&get["statuses"]["254"]), count("keyspace_misses"));
    // The seconds of the step's timeline, and of each label's, add up.
    let sum = |of: &Value| {
        of.as_array()
            .expect("a timeline")
            .iter()
            .map(|s| n(&s["responses"]))
            .sum::<u64>()
    };
    assert_eq!(sum(&s["timeline"]), 10007);
    assert_eq!(sum(&get["timeline"]), n(&get["total_requests"]));
    assert_eq!(sum(&set["timeline"]), n(&set["total_requests"]));
}

/// The open model keeps a future per client (the driver is the closed model's):
/// a command due while the server is stopped counts its latency from its due time,
/// not from when a client was free to send it. At 500/s, 64 clients and a 1 s stop,
/// about 350 commands are due in the stop's first 700 ms: far more than the 64 in
/// flight, so with latency from the send a tenth of them could not be that slow.
#[test]
fn an_open_model_pipeline_counts_latency_from_each_due_time() {
    let Some(r) = redis(&[]) else { return };
    let dir = TempDir::new("kv-pipe-due");
    let url = format!("redis://127.0.0.1:{}", r.port);
    let out = dir.path("due.csv");
    let mut child = spawn_quiet(
        &[
            "run",
            "-c",
            "64",
            "--threads",
            "1",
            "--pipeline",
            "16",
            "--rate",
            "500",
            "-d",
            "3s",
            "--timeout",
            "10",
            &url,
        ],
        &out,
    );
    served(r.port, 200);
    signal(r.child.id(), "-STOP");
    std::thread::sleep(Duration::from_millis(1000));
    signal(r.child.id(), "-CONT");
    let status = crate::util::wait_bounded(&mut child, Duration::from_secs(30));
    assert!(status.is_some(), "hakaru hung");
    let (s, _) = step(&dir, "due");
    assert_eq!(s["errors"], serde_json::json!({}));
    let sent = n(&s["responses"]) + n(&s["unfinished"]);
    assert!((1400..=1500).contains(&sent), "{sent} of 1500 scheduled");
    let p90 = s["latency"]["p90_s"].as_f64().unwrap();
    assert!(p90 >= 0.3, "p90 {p90} s: latency not from the due time");
}
