//! `hakaru stream` and `hakaru watch` end to end: records into files, directories,
//! TCP (hakaru's own listener, rsyslogd), UDP and HTTP (the embedded target), read
//! back and counted exactly.

use std::io::Read;
use std::net::TcpListener;
use std::time::Duration;

use hakaru::stream::record::decode;

use crate::util::*;

/// Every record of `text` decoded: (sender, seq) pairs, sorted.
fn records(text: &[u8]) -> Vec<(Option<u32>, u64)> {
    let mut v: Vec<_> = text
        .split_inclusive(|&b| b == b'\n')
        .map(|l| {
            let r = decode(l)
                .unwrap_or_else(|| panic!("not a record: {:?}", String::from_utf8_lossy(l)));
            (r.sender, r.seq)
        })
        .collect();
    v.sort();
    v
}

#[test]
fn gen_writes_exact_records_and_says_what_fits() {
    let o = run(&[
        "stream",
        "gen",
        "--record-size",
        "6",
        "--count",
        "1k",
        "--senders",
        "3",
    ]);
    let out = ok(&o);
    assert_eq!(out.len(), 6_000);
    assert!(out.lines().all(|l| l.len() == 5 && l.starts_with('q')));
    assert!(stderr(&o).contains("sequence only"), "{}", stderr(&o));
    let o = run(&["stream", "gen", "--record-size", "4", "--count", "10M"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("--record-size 4: too small") && stderr(&o).contains("is 8"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn send_appends_every_senders_count_to_a_file() {
    let dir = TempDir::new("stream-file");
    let f = dir.path("out.log");
    let to = format!("file:{}", f.display());
    let o = run(&[
        "stream",
        "send",
        "--to",
        &to,
        "--record-size",
        "100",
        "-n",
        "20k",
        "-c",
        "3",
    ]);
    let out = ok(&o);
    assert!(
        out.starts_with("Sent 60,000 records (5.7 MiB) in "),
        "{out}"
    );
    // Issue 35: `run -n` counts in all, `stream send -n` per sender; said up front.
    assert!(
        stderr(&o).contains("; -n 20,000 per sender: 60,000 records in all"),
        "{}",
        stderr(&o)
    );
    let text = std::fs::read(&f).unwrap();
    assert_eq!(text.len(), 60_000 * 100);
    let got = records(&text);
    let want: Vec<_> = (0..3u32)
        .flat_map(|s| (0..20_000u64).map(move |q| (Some(s), q)))
        .collect();
    assert_eq!(got, want);
}

#[test]
fn send_rotates_a_directory_and_paces_a_rate() {
    let dir = TempDir::new("stream-dir");
    let to = format!("dir:{}", dir.path("d").display());
    ok(&run(&[
        "stream",
        "send",
        "--to",
        &to,
        "--record-size",
        "50",
        "-n",
        "2500",
        "-c",
        "2",
        "--rotate",
        "1000",
        "--rate",
        "20000",
    ]));
    let mut names: Vec<_> = std::fs::read_dir(dir.path("d"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(names.len(), 6, "{names:?}");
    let mut all = Vec::new();
    for n in &names {
        all.extend(std::fs::read(dir.path("d").join(n)).unwrap());
    }
    assert_eq!(records(&all).len(), 5000);
}

#[test]
fn send_frames_octet_counts_on_tcp() {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    let reader = std::thread::spawn(move || {
        let (mut c, _) = l.accept().unwrap();
        let mut all = Vec::new();
        c.read_to_end(&mut all).unwrap();
        all
    });
    ok(&run(&[
        "stream",
        "send",
        "--to",
        &format!("tcp://127.0.0.1:{port}"),
        "--record-size",
        "40",
        "-n",
        "100",
        "--framing",
        "octet",
    ]));
    let all = reader.join().unwrap();
    // "39 " then the 39 bytes without the newline, 100 times.
    assert_eq!(all.len(), 100 * 42);
    for frame in all.chunks(42) {
        assert!(
            frame.starts_with(b"39 t0-"),
            "{:?}",
            String::from_utf8_lossy(frame)
        );
    }
}

#[test]
fn a_receiver_that_closes_mid_run_is_counted_and_the_rest_is_written() {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    std::thread::spawn(move || {
        // Read a little from the first sender, then close; keep the second open.
        let (mut a, _) = l.accept().unwrap();
        let (mut b, _) = l.accept().unwrap();
        let mut buf = vec![0u8; 64 << 10];
        let _ = a.read(&mut buf);
        drop(a);
        let mut sink = Vec::new();
        let _ = b.read_to_end(&mut sink);
    });
    let o = run(&[
        "stream",
        "send",
        "--to",
        &format!("tcp://127.0.0.1:{port}"),
        "--record-size",
        "1000",
        "-c",
        "2",
        "-d",
        "3",
        "--json",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let rep: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(rep["failed_senders"], 1);
    let failed: Vec<_> = rep["senders"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["error"].is_string())
        .collect();
    assert!(
        failed[0]["error"]
            .as_str()
            .unwrap()
            .contains("receiver closed"),
        "{failed:?}"
    );
    assert!(stderr(&o).contains("stopped after"), "{}", stderr(&o));
}

#[test]
fn send_posts_batches_to_http() {
    let t = target();
    let o = run(&[
        "stream",
        "send",
        "--to",
        &format!("http://{}/", t.addr),
        "--record-size",
        "200",
        "-n",
        "1000",
        "-c",
        "2",
        "--batch",
        "100",
        "--json",
    ]);
    ok(&o);
    let rep: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(rep["senders"][0]["records"], 2000);
}

#[test]
fn send_refuses_bad_sinks_before_any_load() {
    let port = free_port();
    for (to, says) in [
        ("ftp://x/y".to_string(), "unknown scheme"),
        (format!("tcp://127.0.0.1:{port}"), "cannot connect"),
        ("file:/nonexistent-hakaru-dir/x".to_string(), "cannot open"),
        (format!("http://127.0.0.1:{port}/"), "cannot connect"),
    ] {
        let o = run(&["stream", "send", "--to", &to, "-n", "10"]);
        assert_eq!(o.status.code(), Some(2), "{to}: {}", stderr(&o));
        assert!(stderr(&o).contains(says), "{to}: {}", stderr(&o));
    }
    let _ = Duration::ZERO;
}

/// `hakaru watch` started in the background; its listen address (when it has one)
/// read from its first line on stderr.
struct Watch {
    child: std::process::Child,
    addr: Option<String>,
}

impl Watch {
    fn start(args: &[&str]) -> Watch {
        use std::io::BufRead;
        let mut child = hakaru()
            .arg("watch")
            .args(args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("hakaru watch starts");
        let mut addr = None;
        if args[0].starts_with("listen:") {
            let mut err = std::io::BufReader::new(child.stderr.take().unwrap());
            let mut line = String::new();
            err.read_line(&mut line).unwrap();
            addr = Some(
                line.trim()
                    .strip_prefix("hakaru: listening on ")
                    .unwrap_or_else(|| panic!("{line}"))
                    .to_string(),
            );
            // Keep draining stderr so the watch never blocks on it.
            std::thread::spawn(move || std::io::copy(&mut err, &mut std::io::sink()));
        }
        Watch { child, addr }
    }

    /// Wait (bounded) and return stdout and the exit code.
    fn end(mut self) -> (String, Option<i32>) {
        let status = wait_bounded(&mut self.child, Duration::from_secs(60))
            .expect("the watch ends within its window");
        let mut out = String::new();
        self.child
            .stdout
            .take()
            .unwrap()
            .read_to_string(&mut out)
            .unwrap();
        (out, status.code())
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn watch_verifies_every_record_of_three_senders_exactly() {
    let dir = TempDir::new("stream-watch");
    let out = dir.path("w.csv");
    let w = Watch::start(&[
        "listen:tcp://127.0.0.1:0",
        "--interval",
        "200ms",
        "--warmup",
        "0",
        "--window",
        "30s",
        "--verify",
        "--expect",
        "20k",
        "--senders",
        "3",
        "-o",
        out.to_str().unwrap(),
    ]);
    let addr = w.addr.clone().unwrap();
    ok(&run(&[
        "stream",
        "send",
        "--to",
        &format!("tcp://{addr}"),
        "--record-size",
        "100",
        "-n",
        "20k",
        "-c",
        "3",
    ]));
    let (text, code) = w.end();
    assert_eq!(code, Some(0), "{text}");
    assert!(
        text.contains("Verified: 60,000 records received, 0 lost, 0 duplicated, 0 out of order"),
        "{text}"
    );
    assert!(text.contains("Latency, send to arrival: p50 "), "{text}");
    let j = read_json(&dir.path("w.json"));
    assert_eq!(j["kind"], "hakaru-stream");
    let v = &j["watch"]["verify"];
    assert_eq!(v["received"], 60_000);
    assert_eq!(v["senders"].as_array().unwrap().len(), 3);
    assert_eq!(j["watch"]["total_bytes"], 6_000_000);
    let (head, rows) = read_csv(&out);
    assert_eq!(head[..3], ["t_s", "phase", "records"]);
    let sum: f64 = rows.iter().map(|r| col(&head, r, "records")).sum();
    assert_eq!(sum, 60_000.0);
    // Every stamped record's latency lands in exactly one interval (issue 18: a
    // timeline in every result), so the intervals' counts add up to the whole.
    let points = j["watch"]["timeline"].as_array().unwrap();
    let timed: u64 = points
        .iter()
        .filter_map(|p| p["latency"]["records"].as_u64())
        .sum();
    assert_eq!(timed, 60_000, "{points:?}");
    let with = points.iter().find(|p| p["latency"].is_object()).unwrap();
    assert!(
        with["latency"]["p99_us"].as_u64().unwrap() >= with["latency"]["p50_us"].as_u64().unwrap()
    );
    assert!(with["latency"]["histogram"]
        .as_str()
        .is_some_and(|h| !h.is_empty()));
    let i = head.iter().position(|h| h == "latency_records").unwrap();
    let timed_csv: u64 = rows.iter().filter_map(|r| r[i].parse::<u64>().ok()).sum();
    assert_eq!(timed_csv, 60_000);
}

#[test]
fn watch_follows_a_file_that_is_truncated_between_sends() {
    let dir = TempDir::new("stream-watch-file");
    let f = dir.path("unify.log");
    let w = Watch::start(&[
        &format!("file:{}", f.display()),
        "--interval",
        "100ms",
        "--warmup",
        "0",
        "--window",
        "6s",
        "--verify",
        "--no-machine",
    ]);
    let to = format!("file:{}", f.display());
    // 1,000 records, then the file emptied (the seed's way of starting over), then a
    // send of 2,000 whose sequence starts again at 0.
    std::thread::sleep(Duration::from_millis(300));
    ok(&run(&[
        "stream",
        "send",
        "--to",
        &to,
        "--record-size",
        "64",
        "-n",
        "1000",
    ]));
    std::thread::sleep(Duration::from_millis(300));
    std::fs::OpenOptions::new()
        .write(true)
        .open(&f)
        .unwrap()
        .set_len(0)
        .unwrap();
    std::thread::sleep(Duration::from_millis(300));
    ok(&run(&[
        "stream",
        "send",
        "--to",
        &to,
        "--record-size",
        "64",
        "-n",
        "2000",
    ]));
    let (text, _) = w.end();
    assert!(text.contains("In all: 3,000 records"), "{text}");
    assert!(text.contains("1 truncations"), "{text}");
    assert!(
        text.contains("3,000 records received, 0 lost, 1,000 duplicated"),
        "{text}"
    );
}

#[test]
fn watch_refuses_bad_sources_before_measuring() {
    for (src, says) in [
        ("ftp://x", "unknown scheme"),
        ("listen:tcp://0.0.0.0:5", "not a loopback"),
        ("dir:/nonexistent-hakaru-dir", "cannot open"),
        ("file:/nonexistent-hakaru-dir/x", "cannot open"),
    ] {
        let o = run(&["watch", src, "--window", "1s"]);
        assert_eq!(o.status.code(), Some(2), "{src}: {}", stderr(&o));
        assert!(stderr(&o).contains(says), "{src}: {}", stderr(&o));
    }
}

/// A private rsyslogd: imtcp on a loopback port, every message's raw text into one
/// file (FIELD-NOTES' recipe). `None` (skipped) when rsyslogd is not installed.
fn rsyslogd(dir: &TempDir) -> Option<Server> {
    let program = ["/usr/sbin/rsyslogd", "/sbin/rsyslogd"]
        .into_iter()
        .find(|p| std::path::Path::new(p).exists())
        .map(str::to_string)
        .or_else(|| have("rsyslogd").then(|| "rsyslogd".to_string()))?;
    let port = free_port();
    let base = dir.0.display();
    std::fs::create_dir_all(dir.path("work")).unwrap();
    let conf = dir.write(
        "rsyslog.conf",
        &format!(
            r#"global(workDirectory="{base}/work" maxMessageSize="64k")
module(load="imtcp")
template(name="rawmsg" type="string" string="%rawmsg%\n")
ruleset(name="bench") {{ action(type="omfile" file="{base}/out.log" template="rawmsg") }}
input(type="imtcp" address="127.0.0.1" port="{port}" ruleset="bench")
"#
        ),
    );
    let mut child = std::process::Command::new(program)
        .args(["-n", "-f"])
        .arg(&conf)
        .arg("-i")
        .arg(dir.path("rsyslogd.pid"))
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("rsyslogd starts");
    wait_for_port(port, &mut child, "rsyslogd");
    let dir = TempDir::new("rsyslog-server");
    Some(Server { child, port, dir })
}

/// Records through rsyslogd into its file, checked one by one at the file.
fn through_rsyslog(record_size: &str, senders: &str, count: &str, framing: &str) -> String {
    let dir = TempDir::new("rsyslog");
    let Some(server) = rsyslogd(&dir) else {
        return String::new();
    };
    let out = dir.path("out.log");
    let w = Watch::start(&[
        &format!("file:{}", out.display()),
        "--interval",
        "250ms",
        "--warmup",
        "0",
        "--window",
        "60s",
        "--verify",
        "--expect",
        count,
        "--senders",
        senders,
        "--no-machine",
    ]);
    std::thread::sleep(Duration::from_millis(200));
    ok(&run(&[
        "stream",
        "send",
        "--to",
        &format!("tcp://127.0.0.1:{}", server.port),
        "--record-size",
        record_size,
        "-n",
        count,
        "-c",
        senders,
        "--rate",
        "20000",
        "--framing",
        framing,
    ]));
    let (text, code) = w.end();
    assert_eq!(code, Some(0), "{text}");
    text
}

#[test]
fn rsyslog_delivers_every_record_exactly_once_at_a_moderate_rate() {
    let text = through_rsyslog("200", "2", "10k", "newline");
    if text.is_empty() {
        return;
    }
    assert!(
        text.contains("Verified: 20,000 records received, 0 lost, 0 duplicated, 0 out of order\n"),
        "{text}"
    );
}

#[test]
fn rsyslog_reads_octet_counted_4k_records_whole() {
    // 4 KiB is above nothing here (maxMessageSize 64k), and octet counting keeps each
    // record one message whatever it holds.
    let text = through_rsyslog("4096", "1", "3000", "octet");
    if text.is_empty() {
        return;
    }
    assert!(
        text.contains("Verified: 3,000 records received, 0 lost, 0 duplicated"),
        "{text}"
    );
    assert!(text.contains("In all: 3,000 records, 11.7 MiB"), "{text}");
}

#[test]
fn a_receiver_too_small_for_the_load_shows_the_loss_it_caused() {
    // hakaru's own UDP receiver with a tiny socket buffer, stopped (SIGSTOP) while
    // 20,000 datagrams arrive: the kernel keeps what fits and drops the rest.
    let w = Watch::start(&[
        "listen:udp://127.0.0.1:0",
        "--recv-buffer",
        "4096",
        "--interval",
        "200ms",
        "--warmup",
        "0",
        "--window",
        "3s",
        "--verify",
        "--expect",
        "20k",
        "--senders",
        "1",
        "--no-machine",
    ]);
    let addr = w.addr.clone().unwrap();
    let pid = w.child.id().to_string();
    let signal = |sig: &str| {
        let s = std::process::Command::new("kill")
            .args([sig, &pid])
            .status()
            .unwrap();
        assert!(s.success());
    };
    signal("-STOP");
    let sent = run(&[
        "stream",
        "send",
        "--to",
        &format!("udp://{addr}"),
        "--record-size",
        "100",
        "-n",
        "20k",
    ]);
    signal("-CONT");
    ok(&sent);
    let (text, code) = w.end();
    assert_eq!(code, Some(1), "loss fails the watch: {text}");
    let received: u64 = text
        .split("Verified: ")
        .nth(1)
        .and_then(|t| t.split(" records received").next())
        .map(|n| n.replace(',', "").parse().unwrap())
        .unwrap_or_else(|| panic!("{text}"));
    assert!(received > 0 && received < 20_000, "{text}");
    let lost = 20_000 - received;
    let lost_text = crate_grouped(lost);
    assert!(
        text.contains(&format!("received, {lost_text} lost, 0 duplicated")),
        "{text}"
    );
}

fn crate_grouped(n: u64) -> String {
    hakaru::report::stream::grouped(n)
}

#[test]
fn stream_run_makes_the_seeds_table() {
    let dir = TempDir::new("stream-run");
    let log = dir.path("unify.log");
    let out = dir.path("exp.csv");
    let o = run(&[
        "stream",
        "run",
        "--to",
        &format!("file:{}", log.display()),
        "--watch",
        &format!("file:{}", log.display()),
        "--record-sizes",
        "10,1024",
        "-c",
        "3",
        "-n",
        "5k",
        "--repeat",
        "2",
        "--interval",
        "100ms",
        "--warmup",
        "0",
        "--window",
        "30s",
        "--verify",
        "-q",
        "-o",
        out.to_str().unwrap(),
    ]);
    let text = ok(&o);
    assert!(text.contains("10 B, round 2: "), "{text}");
    assert!(
        text.contains("sent 15,000, arrived 15,000, 0 lost, 0 duplicated"),
        "{text}"
    );
    let table = text
        .split_once("record size")
        .map(|(_, t)| t)
        .unwrap_or_else(|| panic!("{text}"));
    assert!(table.contains("\n       10 B "), "{table}");
    assert!(table.contains("\n    1,024 B "), "{table}");
    let (head, rows) = read_csv(&out);
    assert_eq!(rows.len(), 4);
    for r in &rows {
        assert_eq!(col(&head, r, "received"), 15_000.0);
        assert_eq!(col(&head, r, "lost"), 0.0);
    }
    let j = read_json(&dir.path("exp.json"));
    assert_eq!(j["complete"], true);
    assert_eq!(
        j["sizes"][1]["repeats"][0]["watch"]["verify"]["senders"][2]["received"],
        5000
    );
    assert!(
        j["sizes"][0]["repeats"][0]["watch"]["timeline"][0]["machine"]["mem_free_mib"]
            .as_f64()
            .is_some_and(|m| m > 0.0)
    );
}

#[test]
fn watch_counts_fixed_size_records_from_file_sizes_alone() {
    let dir = TempDir::new("stream-watch-size");
    let f = dir.path("d");
    std::fs::create_dir_all(&f).unwrap();
    let w = Watch::start(&[
        &format!("dir:{}", f.display()),
        "--record-size",
        "100",
        "--interval",
        "100ms",
        "--warmup",
        "0",
        "--window",
        "30s",
        "--expect",
        "3000",
        "--no-machine",
    ]);
    std::thread::sleep(Duration::from_millis(300));
    ok(&run(&[
        "stream",
        "send",
        "--to",
        &format!("dir:{}", f.display()),
        "--record-size",
        "100",
        "-n",
        "1000",
        "-c",
        "3",
        "--rotate",
        "300",
    ]));
    let (text, code) = w.end();
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("In all: 3,000 records, 0.3 MiB"), "{text}");
}

#[test]
fn report_and_compare_read_stream_results() {
    let dir = TempDir::new("stream-report");
    let log = dir.path("a.log");
    let exp = dir.path("exp.csv");
    ok(&run(&[
        "stream",
        "run",
        "--to",
        &format!("file:{}", log.display()),
        "--watch",
        &format!("file:{}", log.display()),
        "--record-sizes",
        "10,1024",
        "-c",
        "2",
        "-n",
        "2k",
        "--interval",
        "100ms",
        "--warmup",
        "0",
        "--window",
        "30s",
        "--verify",
        "-q",
        "-o",
        exp.to_str().unwrap(),
    ]));
    let sent = dir.path("send.csv");
    ok(&run(&[
        "stream",
        "send",
        "--to",
        &format!("file:{}", dir.path("b.log").display()),
        "--record-size",
        "1024",
        "-n",
        "1000",
        "-o",
        sent.to_str().unwrap(),
    ]));
    let (head, rows) = read_csv(&sent);
    assert_eq!(col(&head, &rows[0], "records"), 1000.0);
    assert_eq!(read_json(&dir.path("send.json"))["kind"], "hakaru-stream");

    // report: from the CSV (the JSON beside it), Markdown on stdout, SVG and HTML written.
    let md = ok(&run(&[
        "report",
        exp.to_str().unwrap(),
        "--svg",
        "--markdown",
    ]));
    assert!(
        md.contains("| 10 B | ") && md.contains("| 1,024 B | "),
        "{md}"
    );
    let html = std::fs::read_to_string(dir.path("exp.html")).unwrap();
    for want in [
        "Records per second by record size",
        "Timeline — 1,024 B",
        "Dirty and writeback pages",
    ] {
        assert!(html.contains(want), "{want}");
    }
    for svg in [
        "exp-sizes-mib.svg",
        "exp-10B-records.svg",
        "exp-1024B-memory.svg",
    ] {
        assert!(dir.path(svg).is_file(), "{svg}");
    }
    let text = ok(&run(&["report", dir.path("send.json").to_str().unwrap()]));
    assert!(text.starts_with("Sent 1,000 records (1.0 MiB)"), "{text}");

    // compare: the pipelines side by side per record size.
    let text = ok(&run(&[
        "compare",
        dir.path("exp.json").to_str().unwrap(),
        dir.path("send.json").to_str().unwrap(),
        "--label",
        "file,sender",
    ]));
    assert!(text.contains("\n    1,024 B  file "), "{text}");
    assert!(text.contains(" sent "), "{text}");
    // Never mixed with a request-response result.
    let rr = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/hakaru-result.json"
    );
    let o = run(&["compare", dir.path("exp.json").to_str().unwrap(), rr]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("request-response result"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn three_shards_send_distinct_senders_that_one_watch_verifies() {
    let dir = TempDir::new("stream-shards");
    let w = Watch::start(&[
        "listen:tcp://127.0.0.1:0",
        "--interval",
        "200ms",
        "--warmup",
        "0",
        "--window",
        "60s",
        "--verify",
        "--expect",
        "2000",
        "--senders",
        "6",
        "--no-machine",
    ]);
    let addr = w.addr.clone().unwrap();
    // One moment for all three, as machines sharing a clock would be given; far enough
    // ahead that three processes started on a loaded machine are all waiting for it.
    let at = hakaru::sysinfo::rfc3339(std::time::SystemTime::now() + Duration::from_secs(5));
    let shards: Vec<_> = (1..=3)
        .map(|k| {
            let out = dir.path(&format!("shard-{k}.csv"));
            hakaru()
                .args([
                    "stream",
                    "send",
                    "--to",
                    &format!("tcp://{addr}"),
                    "--record-size",
                    "64",
                    "-n",
                    "2000",
                    "-c",
                    "2",
                    "--rate",
                    "30000",
                    "--shard",
                    &format!("{k}/3"),
                    "--start-at",
                    &at,
                    "-o",
                    out.to_str().unwrap(),
                ])
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .expect("stream send starts")
        })
        .collect();
    for s in shards {
        ok(&s.wait_with_output().expect("stream send runs"));
    }
    let (text, code) = w.end();
    assert_eq!(code, Some(0), "{text}");
    assert!(
        text.contains("Verified: 12,000 records received, 0 lost, 0 duplicated"),
        "{text}"
    );
    for k in 1..=3u64 {
        let j = read_json(&dir.path(&format!("shard-{k}.json")));
        let send = &j["send"];
        assert_eq!(send["shard"]["index"], k);
        assert_eq!(send["shard"]["count"], 3);
        assert!(send["start_late_s"].is_number(), "{send}");
        let ids: Vec<u64> = send["report"]["senders"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["sender"].as_u64().unwrap())
            .collect();
        assert_eq!(ids, [2 * (k - 1), 2 * (k - 1) + 1]);
    }
}
