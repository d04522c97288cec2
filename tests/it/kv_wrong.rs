//! The wrong-type matrix: a store that answers every command well-formed but with a
//! reply of the wrong type (a `GET` answered `+OK`, a memcached `set` answered `END`),
//! for every kind of command hakaru sends to Redis and memcached. Every such reply is
//! `reply_unexpected`, never a success, under its command's label, its sample naming
//! the command and what came; a run where every reply was wrong exits 1.
//! The server is a thread here on a loopback port, stopped when its test ends.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use crate::util::{read_json, run, stderr, stdout, TempDir};

/// A store that answers `reply` to every command: a command is `per` `marker`
/// bytes (RESP: one `*` a command, as keys and values hold none; memcached: its
/// lines), so pipelined commands are answered one reply each.
struct Wrong {
    port: u16,
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Wrong {
    fn start(reply: &'static [u8], marker: u8, per: usize) -> Wrong {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let stop = Arc::new(AtomicBool::new(false));
        let stopped = stop.clone();
        let thread = std::thread::spawn(move || {
            for c in listener.incoming() {
                if stopped.load(Ordering::Relaxed) {
                    return;
                }
                let Ok(c) = c else { continue };
                std::thread::spawn(move || answer(c, reply, marker, per));
            }
        });
        Wrong {
            port,
            stop,
            thread: Some(thread),
        }
    }
}

impl Drop for Wrong {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        let _ = TcpStream::connect(("127.0.0.1", self.port));
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// One connection: `reply` for every whole command read, until the client closes.
fn answer(mut c: TcpStream, reply: &[u8], marker: u8, per: usize) {
    let _ = c.set_read_timeout(Some(Duration::from_secs(20)));
    let mut buf = [0u8; 64 * 1024];
    let mut markers = 0;
    loop {
        let n = match c.read(&mut buf) {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        markers += buf[..n].iter().filter(|b| **b == marker).count();
        let mut out = Vec::new();
        while markers >= per {
            markers -= per;
            out.extend_from_slice(reply);
        }
        if c.write_all(&out).is_err() {
            return;
        }
    }
}

/// One case: the store's scheme, what the run sends, the reply it always gets,
/// and the command label each reply is counted under.
struct Case {
    scheme: &'static str,
    /// `--ratio S:G`, or a commands file's text.
    sends: Sends,
    reply: &'static [u8],
    label: &'static str,
    /// What the error's sample says came.
    came: &'static str,
}

enum Sends {
    Ratio(&'static str),
    File(&'static str),
}

const fn redis(
    sends: Sends,
    reply: &'static [u8],
    label: &'static str,
    came: &'static str,
) -> Case {
    Case {
        scheme: "redis",
        sends,
        reply,
        label,
        came,
    }
}

const fn mc(sends: Sends, reply: &'static [u8], label: &'static str, came: &'static str) -> Case {
    Case {
        scheme: "memcached",
        sends,
        reply,
        label,
        came,
    }
}

use Sends::{File, Ratio};

const CASES: &[Case] = &[
    redis(Ratio("0:1"), b"+OK\r\n", "GET", "GET answered +OK"),
    redis(Ratio("0:1"), b":1\r\n", "GET", "GET answered an integer"),
    redis(
        Ratio("0:1"),
        b"*1\r\n$1\r\nx\r\n",
        "GET",
        "GET answered an array",
    ),
    redis(
        Ratio("1:0"),
        b"$3\r\nabc\r\n",
        "SET",
        "SET answered a bulk string",
    ),
    redis(Ratio("1:0"), b"$-1\r\n", "SET", "SET answered nil"),
    redis(
        Ratio("1:0"),
        b"+PONG\r\n",
        "SET",
        "SET answered a status reply",
    ),
    redis(
        File("INCR c:{key}\n"),
        b"+OK\r\n",
        "INCR",
        "INCR answered +OK",
    ),
    redis(File("DEL k:{key}\n"), b"$-1\r\n", "DEL", "DEL answered nil"),
    redis(
        File("MGET k:{key} k:{key}\n"),
        b":2\r\n",
        "MGET",
        "MGET answered an integer",
    ),
    redis(
        File("HGETALL user{key}\n"),
        b"+OK\r\n",
        "HGETALL",
        "HGETALL answered +OK",
    ),
    redis(
        File("HSET user{key} f {value}\n"),
        b"*0\r\n",
        "HSET",
        "HSET answered an array",
    ),
    redis(
        File("LPUSH l:{key} {value}\n"),
        b"$1\r\nx\r\n",
        "LPUSH",
        "LPUSH answered a bulk",
    ),
    redis(
        File("LRANGE l:{key} 0 9\n"),
        b":0\r\n",
        "LRANGE",
        "LRANGE answered an integer",
    ),
    redis(
        File("ZADD z 1 m:{key}\n"),
        b"+OK\r\n",
        "ZADD",
        "ZADD answered +OK",
    ),
    mc(Ratio("0:1"), b"STORED\r\n", "get", "get answered STORED"),
    mc(Ratio("0:1"), b"5\r\n", "get", "get answered a number"),
    mc(Ratio("1:0"), b"END\r\n", "set", "set answered END"),
    mc(
        Ratio("1:0"),
        b"VALUE k 0 1\r\nx\r\nEND\r\n",
        "set",
        "set answered VALUE",
    ),
    mc(
        File("delete k:{key}\n"),
        b"STORED\r\n",
        "delete",
        "delete answered STORED",
    ),
    mc(
        File("incr c:{key} 1\n"),
        b"DELETED\r\n",
        "incr",
        "incr answered DELETED",
    ),
    mc(
        File("touch k:{key} 10\n"),
        b"END\r\n",
        "touch",
        "touch answered END",
    ),
    mc(
        File("gets k:{key}\n"),
        b"TOUCHED\r\n",
        "gets",
        "gets answered TOUCHED",
    ),
    mc(
        File("add k:{key} {value}\n"),
        b"DELETED\r\n",
        "add",
        "add answered DELETED",
    ),
    // No `gets` reply brings a token: every `cas` goes as the no-op `mn`, whose
    // `MN` is the only reply it may get.
    mc(
        File("name=cas weight=1000000 cas k:1 {value}\nname=g gets k:2\n"),
        b"NOT_FOUND\r\n",
        "cas",
        "cas answered NOT_FOUND",
    ),
];

/// The run's bytes per command in `marker`s: RESP one `*`; memcached its lines.
fn per_command(c: &Case) -> (u8, usize) {
    match (c.scheme, &c.sends) {
        ("redis", _) => (b'*', 1),
        (_, Ratio("1:0")) | (_, File("add k:{key} {value}\n")) => (b'\n', 2),
        _ => (b'\n', 1),
    }
}

fn run_case(dir: &TempDir, i: usize, c: &Case, pipeline: &str) -> Result<(), String> {
    let (marker, per) = per_command(c);
    let server = Wrong::start(c.reply, marker, per);
    let url = format!("{}://127.0.0.1:{}", c.scheme, server.port);
    let out = dir.path(&format!("case{i}-{pipeline}.json"));
    let file;
    let mut args = vec![
        "run",
        "-c",
        "2",
        "-n",
        "40",
        "--timeout",
        "5",
        "--pipeline",
        pipeline,
        "--threshold",
        "errors<=0",
        "-q",
    ];
    match c.sends {
        Ratio(r) => args.extend(["--ratio", r]),
        File(text) => {
            file = dir.write(&format!("case{i}.txt"), text);
            args.extend(["--commands", file.to_str().unwrap()]);
        }
    }
    args.extend([url.as_str(), "-o", out.to_str().unwrap()]);
    let o = run(&args);
    let what = format!(
        "{} {} answered {:?}",
        c.scheme,
        c.label,
        String::from_utf8_lossy(c.reply)
    );
    if o.status.code() != Some(1) {
        return Err(format!(
            "{what}: exit {:?}\n{}\n{}",
            o.status,
            stdout(&o),
            stderr(&o)
        ));
    }
    let j = read_json(&out);
    if j["thresholds"]["passed"] != false {
        return Err(format!("{what}: errors<=0 held: {}", j["thresholds"]));
    }
    let s = &j["steps"][0];
    let wrong = s["errors"]["reply_unexpected"].as_u64().unwrap_or(0);
    let responses = s["responses"].as_u64().unwrap_or(0);
    // The `cas` case's `gets` line is drawn 1 time in a million: it may come, wrong too.
    if responses != 0 || wrong < 40 {
        return Err(format!(
            "{what}: {responses} responses, errors {}",
            s["errors"]
        ));
    }
    let label = s["labels"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|l| l["value"] == c.label)
        .map(|l| l["errors"]["reply_unexpected"].as_u64().unwrap_or(0));
    // A run of one command has no labels: its step is the command's count.
    if label.is_some_and(|n| n == 0) || (label.is_none() && !s["labels"].is_null()) {
        return Err(format!(
            "{what}: label {} not counted: {}",
            c.label, s["labels"]
        ));
    }
    let sample = s["error_samples"]["reply_unexpected"]
        .as_str()
        .unwrap_or("");
    if !sample.contains(c.came) {
        return Err(format!(
            "{what}: sample {sample:?} does not say {:?}",
            c.came
        ));
    }
    Ok(())
}

/// The case and its siblings: every wrong-type reply fails its request, one
/// by one and pipelined, and a run of nothing but those exits 1.
#[test]
fn a_reply_of_the_wrong_type_is_reply_unexpected_never_a_success() {
    let dir = TempDir::new("kv-wrong-type");
    let mut failed = Vec::new();
    for (i, c) in CASES.iter().enumerate() {
        for pipeline in ["1", "4"] {
            if let Err(e) = run_case(&dir, i, c, pipeline) {
                failed.push(format!("--pipeline {pipeline}: {e}"));
            }
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

/// A run against a store that answers every command twice, read back.
fn doubled(extra: &[&str], limit: Duration) -> serde_json::Value {
    let server = Wrong::start(b"+OK\r\n+OK\r\n", b'*', 1);
    let dir = TempDir::new("kv-doubled");
    let json = dir.path("r.json");
    let url = format!("redis://127.0.0.1:{}", server.port);
    let mut child = crate::util::hakaru()
        .args(["run", &url, "--ratio", "1:0", "--timeout", "2s", "-q"])
        .args(extra)
        .arg("-o")
        .arg(&json)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let status = crate::util::wait_bounded(&mut child, limit);
    assert!(status.is_some(), "{extra:?}: still running after {limit:?}");
    read_json(&json)["steps"][0].clone()
}

/// Issue 36 item 2: a store answering each command twice, read slowly, hung
/// `--pipeline` forever at 2970/3000: a reply before its command was written
/// dropped that command's waiter, finished by no one. Every command now ends.
#[test]
fn a_pipelined_client_is_never_lost_to_a_doubled_reply() {
    let args = ["-c", "32", "--pipeline", "16", "-n", "3000"];
    let st = doubled(
        &[&args[..], &["--value-size", "20000"]].concat(),
        Duration::from_secs(60),
    );
    let n = |k: &str| st[k].as_u64().unwrap_or(0);
    let unsolicited = st["errors"]["unsolicited"].as_u64().unwrap_or(0);
    assert_eq!(n("total_requests"), 3000, "{st}");
    assert_eq!(n("unfinished"), 0, "{st}");
    assert_eq!(n("responses") + unsolicited, 3000, "{st}");
}

/// Issue 36 item 10: the pipelined path counts a reply that answered no command as
/// `unsolicited`, as the unpipelined path does; it counted every command a success.
#[test]
fn a_doubled_reply_is_unsolicited_with_and_without_pipeline() {
    for extra in [
        &["-c", "1", "-n", "20"][..],
        &["-c", "1", "--pipeline", "2", "-n", "20"],
    ] {
        let st = doubled(extra, Duration::from_secs(30));
        let unsolicited = st["errors"]["unsolicited"].as_u64().unwrap_or(0);
        let responses = st["responses"].as_u64().unwrap_or(0);
        assert_eq!(responses + unsolicited, 20, "{extra:?}: {st}");
        assert!(unsolicited >= 5 && responses <= 15, "{extra:?}: {st}");
    }
}
