//! Kafka end to end: a private single-node broker (KRaft, from the jars `.ci/run`
//! caches) per test, on free loopback ports, stopped by its PID; `stream send` into a
//! topic and `watch kafka://…` reading it back.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::MutexGuard;
use std::time::Duration;

use crate::util::*;

/// Where `.ci/run` puts the jars: `$HAKARU_KAFKA_LIBS`, else `~/.cache/hakaru-kafka/libs`.
fn kafka_libs() -> Option<PathBuf> {
    let dir = std::env::var_os("HAKARU_KAFKA_LIBS")
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME").map(|h| Path::new(&h).join(".cache/hakaru-kafka/libs"))
        })?;
    let has_broker = std::fs::read_dir(&dir).ok()?.flatten().any(|e| {
        e.file_name()
            .to_str()
            .is_some_and(|n| n.starts_with("kafka_2.13-") && n.ends_with(".jar"))
    });
    has_broker.then_some(dir)
}

/// The jars and a `java` to run them, or a skip (outside CI) / a failure (in CI).
fn have_kafka() -> Option<PathBuf> {
    if let Some(libs) = kafka_libs() {
        if have("java") {
            return Some(libs);
        }
        return None;
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "the Kafka jars are missing, but CI must run this test (.ci/run fetches them)"
    );
    eprintln!("skipped: the Kafka jars are missing (run .ci/run, which caches them in ~/.cache/hakaru-kafka/libs)");
    None
}

/// A running broker: killed by its PID when dropped, its directory removed.
pub struct Broker {
    server: Server,
    libs: PathBuf,
    _one: MutexGuard<'static, ()>,
}

impl Broker {
    /// `127.0.0.1:PORT`, the bootstrap address.
    pub fn addr(&self) -> String {
        format!("127.0.0.1:{}", self.server.port)
    }

    /// `kafka://127.0.0.1:PORT/TOPIC`.
    pub fn uri(&self, topic: &str) -> String {
        format!("kafka://{}/{topic}", self.addr())
    }

    /// Create `topic` with Kafka's own tool (a JVM, ~2 s).
    pub fn create_topic(&self, topic: &str, partitions: u32) {
        let o = self
            .java()
            .args([
                "org.apache.kafka.tools.TopicCommand",
                "--bootstrap-server",
                &self.addr(),
                "--create",
                "--topic",
                topic,
                "--partitions",
                &partitions.to_string(),
                "--replication-factor",
                "1",
            ])
            .output()
            .expect("java runs");
        assert!(
            o.status.success(),
            "creating topic {topic}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }

    /// `java` with the broker's classpath and a quiet log.
    fn java(&self) -> Command {
        java(&self.libs, &self.server.dir.0)
    }
}

fn java(libs: &Path, dir: &Path) -> Command {
    let mut c = Command::new("java");
    c.arg("-Xmx256m")
        .arg(format!(
            "-Dlog4j.configuration=file:{}",
            dir.join("log4j.properties").display()
        ))
        .arg("-cp")
        .arg(format!("{}/*", libs.display()))
        .stdin(Stdio::null());
    c
}

/// A cluster id as `StorageTool random-uuid` makes one (16 bytes, base64url), without
/// the JVM start it costs.
fn cluster_id() -> String {
    use base64::Engine;
    let mut b = [0u8; 16];
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    b.copy_from_slice(&(t ^ (std::process::id() as u128) << 64).to_le_bytes());
    b[0] &= 0x7f;
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(b)
}

/// A single-node KRaft broker on free loopback ports (FIELD-NOTES' recipe), its data,
/// config and log in a temp dir; returns once its port is open. `None` (skipped) when
/// the jars or Java are missing outside CI. Topics are not created on first use.
pub fn broker() -> Option<Broker> {
    let libs = have_kafka()?;
    // One broker at a time, and never beside a test that measures time.
    let one = crate::util::timed();
    let dir = TempDir::new("kafka");
    let (port, controller) = (free_port(), free_port());
    dir.write(
        "log4j.properties",
        "log4j.rootLogger=WARN, stderr\n\
         log4j.appender.stderr=org.apache.log4j.ConsoleAppender\n\
         log4j.appender.stderr.Target=System.err\n\
         log4j.appender.stderr.layout=org.apache.log4j.PatternLayout\n\
         log4j.appender.stderr.layout.ConversionPattern=[%d] %p %m (%c)%n\n",
    );
    let props = dir.write(
        "server.properties",
        &format!(
            "process.roles=broker,controller\n\
             node.id=1\n\
             controller.quorum.voters=1@127.0.0.1:{controller}\n\
             listeners=PLAINTEXT://127.0.0.1:{port},CONTROLLER://127.0.0.1:{controller}\n\
             advertised.listeners=PLAINTEXT://127.0.0.1:{port}\n\
             controller.listener.names=CONTROLLER\n\
             listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT\n\
             inter.broker.listener.name=PLAINTEXT\n\
             log.dirs={}\n\
             num.partitions=1\n\
             auto.create.topics.enable=false\n\
             offsets.topic.replication.factor=1\n\
             offsets.topic.num.partitions=1\n\
             transaction.state.log.replication.factor=1\n\
             transaction.state.log.min.isr=1\n\
             group.initial.rebalance.delay.ms=0\n",
            dir.path("data").display()
        ),
    );
    let o = java(&libs, &dir.0)
        .args([
            "kafka.tools.StorageTool",
            "format",
            "-t",
            &cluster_id(),
            "-c",
        ])
        .arg(&props)
        .output()
        .expect("java runs");
    assert!(
        o.status.success(),
        "formatting the broker's storage: {}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    let log = std::fs::File::create(dir.path("broker.log")).unwrap();
    let mut child = Command::new("java")
        .arg("-Xmx512m")
        .arg(format!(
            "-Dlog4j.configuration=file:{}",
            dir.path("log4j.properties").display()
        ))
        .arg("-cp")
        .arg(format!("{}/*", libs.display()))
        .arg("kafka.Kafka")
        .arg(&props)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .expect("the broker starts");
    // ~3 s on a quiet machine; far longer while the whole suite builds and runs.
    let start = std::time::Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        let exited = child.try_wait().ok().flatten();
        if exited.is_some() || start.elapsed() > Duration::from_secs(90) {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "the Kafka broker did not listen on port {port} ({exited:?}):\n{}",
                std::fs::read_to_string(dir.path("broker.log")).unwrap_or_default()
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    Some(Broker {
        server: Server { child, port, dir },
        libs,
        _one: one,
    })
}

/// `hakaru watch kafka://…` in the background, returned once its consumer holds its
/// start offsets (its "reading topic" line): records sent after that all count.
struct Watch(std::process::Child);

impl Watch {
    fn start(uri: &str, args: &[&str]) -> Watch {
        use std::io::BufRead;
        let mut child = hakaru()
            .arg("watch")
            .arg(uri)
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("hakaru watch starts");
        let mut err = std::io::BufReader::new(child.stderr.take().unwrap());
        let mut line = String::new();
        err.read_line(&mut line).unwrap();
        assert!(line.starts_with("hakaru: reading topic"), "{line}");
        // Keep draining stderr so the watch never blocks on it.
        std::thread::spawn(move || std::io::copy(&mut err, &mut std::io::sink()));
        Watch(child)
    }

    /// Wait (bounded) and return stdout and the exit code.
    fn end(mut self) -> (String, Option<i32>) {
        use std::io::Read;
        let status = wait_bounded(&mut self.0, Duration::from_secs(90))
            .expect("the watch ends within its window");
        let mut out = String::new();
        self.0
            .stdout
            .take()
            .unwrap()
            .read_to_string(&mut out)
            .unwrap();
        (out, status.code())
    }
}

#[test]
fn kafka_delivers_every_record_exactly_once_at_a_moderate_rate() {
    let Some(b) = broker() else { return };
    b.create_topic("logs", 2);
    let w = Watch::start(
        &b.uri("logs"),
        &[
            "--interval",
            "250ms",
            "--warmup",
            "0",
            "--window",
            "60s",
            "--verify",
            "--expect",
            "10k",
            "--senders",
            "2",
            "--no-machine",
        ],
    );
    let sent = ok(&run(&[
        "stream",
        "send",
        "--to",
        &b.uri("logs"),
        "--record-size",
        "200",
        "-n",
        "10k",
        "-c",
        "2",
        "--rate",
        "20000",
        "--acks",
        "all",
        "--linger",
        "2ms",
    ]));
    assert!(
        sent.starts_with("Sent 20,000 records (3.8 MiB) in "),
        "{sent}"
    );
    let (text, code) = w.end();
    assert_eq!(code, Some(0), "{text}");
    assert!(
        text.contains("Verified: 20,000 records received, 0 lost, 0 duplicated, 0 out of order\n"),
        "{text}"
    );
    // Every byte sent is counted at the far end: the records went without their
    // newline, and the watch adds it back.
    assert!(text.contains("In all: 20,000 records, 3.8 MiB"), "{text}");
}

#[test]
fn a_missing_topic_or_broker_is_refused_before_any_load() {
    let Some(b) = broker() else { return };
    let send = |to: &str, extra: &[&str]| {
        let mut args = vec!["stream", "send", "--to", to, "-n", "100"];
        args.extend_from_slice(extra);
        run(&args)
    };
    let o = send(&b.uri("missing"), &[]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(&format!(
            "--to {}: topic \"missing\" does not exist on {} (create it, or give --create-topic PARTITIONS)",
            b.uri("missing"),
            b.addr()
        )),
        "{}",
        stderr(&o)
    );
    assert!(!stdout(&o).contains("Sent"), "{}", stdout(&o));
    let o = run(&["watch", &b.uri("missing"), "--window", "1s"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("topic \"missing\" does not exist"),
        "{}",
        stderr(&o)
    );
    // Nothing listens on a port that was free a moment ago.
    let o = send(&format!("kafka://127.0.0.1:{}/logs", free_port()), &[]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("cannot reach the Kafka broker"),
        "{}",
        stderr(&o)
    );
    for (to, why) in [
        ("kafka://127.0.0.1:9092", "no /TOPIC"),
        ("kafka://127.0.0.1:9092/a b", "not a topic name"),
    ] {
        let o = send(to, &[]);
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert!(stderr(&o).contains(why), "{to}: {}", stderr(&o));
    }
    // Asked to, the sender creates it, and it is then there for the next.
    ok(&send(
        &b.uri("made"),
        &["--create-topic", "3", "--acks", "1"],
    ));
    let sent = ok(&send(&b.uri("made"), &["--acks", "0"]));
    assert!(sent.starts_with("Sent 100 records"), "{sent}");
}

#[test]
fn stream_run_through_kafka_writes_its_table() {
    let Some(b) = broker() else { return };
    b.create_topic("run", 1);
    let dir = TempDir::new("kafka-run");
    let out = dir.path("run.csv");
    let text = ok(&run(&[
        "stream",
        "run",
        "--to",
        &b.uri("run"),
        "--watch",
        &b.uri("run"),
        "--record-sizes",
        "100,1024",
        "-c",
        "2",
        "-n",
        "3k",
        "--interval",
        "100ms",
        "--warmup",
        "0",
        "--window",
        "60s",
        "--verify",
        "-q",
        "-o",
        out.to_str().unwrap(),
    ]));
    for size in ["100", "1024"] {
        assert!(
            text.contains(&format!("{size} B, round 1: "))
                && text.contains("sent 6,000, arrived 6,000, 0 lost, 0 duplicated"),
            "{text}"
        );
    }
    // The table: a row per size, nothing lost or duplicated (rates and p99 vary).
    let table: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with("record size"))
        .take(3)
        .collect();
    assert_eq!(
        table[0],
        "record size       records/s       MiB/s  repeats        lost  duplicated         p99",
        "{text}"
    );
    for (row, size) in table[1..].iter().zip(["100 B", "1,024 B"]) {
        let cells: Vec<&str> = row.split_whitespace().collect();
        assert_eq!(cells[..2].join(" "), size, "{text}");
        assert_eq!(cells[4..7], ["1", "0", "0"], "{text}");
    }
    let (header, rows) = read_csv(&out);
    assert_eq!(rows.len(), 2, "{header:?}");
}

#[test]
fn records_the_broker_never_acknowledges_are_not_counted_as_sent() {
    let Some(b) = broker() else { return };
    b.create_topic("stall", 1);
    // Records time out after 2 s instead of 30, so the stalled broker shows quickly.
    let mut send = hakaru()
        .args([
            "stream",
            "send",
            "--to",
            &b.uri("stall"),
            "--record-size",
            "100",
            "--rate",
            "1000",
            "-n",
            "4000",
            "--acks",
            "1",
            "--kafka-config",
            "message.timeout.ms=2000",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("hakaru runs");
    // Its producer is open once it says what it sends; a few records go, then the stall.
    let mut err = std::io::BufReader::new(send.stderr.take().unwrap());
    let mut line = String::new();
    std::io::BufRead::read_line(&mut err, &mut line).unwrap();
    assert!(line.starts_with("hakaru: 100-byte records to"), "{line}");
    let rest = std::thread::spawn(move || std::io::read_to_string(err).unwrap_or_default());
    std::thread::sleep(Duration::from_millis(500));
    // The simplest stall: the broker stops answering (and is let go again below).
    let pid = b.server.child.id().to_string();
    let signal = |s: &str| {
        assert!(Command::new("kill")
            .args([s, &pid])
            .status()
            .unwrap()
            .success())
    };
    signal("-STOP");
    let status = wait_bounded(&mut send, Duration::from_secs(90));
    signal("-CONT");
    let status = status.expect("the send ends: unacknowledged records time out");
    let o = send.wait_with_output().unwrap();
    let (out, err) = (stdout(&o), line + &rest.join().unwrap());
    assert_eq!(status.code(), Some(1), "{out}{err}");
    assert!(
        out.contains("records were not acknowledged by the broker"),
        "{out}{err}"
    );
    let sent: u64 = out
        .strip_prefix("Sent ")
        .and_then(|s| s.split(' ').next())
        .map(|n| n.replace(',', "").parse().unwrap())
        .unwrap_or_else(|| panic!("{out}"));
    assert!(sent < 4000, "{out}");
}

/// Regression: Ctrl-C while a sender waited for the broker's acknowledgements was
/// ignored for up to 60 s (the flush's own limit), so an interrupted run did not end.
#[test]
fn ctrl_c_ends_the_wait_for_acknowledgements() {
    let Some(b) = broker() else { return };
    b.create_topic("interrupted", 1);
    let mut send = hakaru()
        .args([
            "stream",
            "send",
            "--to",
            &b.uri("interrupted"),
            "--record-size",
            "100",
            "--rate",
            "1000",
            "-n",
            "2000",
            "--acks",
            "1",
            "--kafka-config",
            "message.timeout.ms=300000",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("hakaru runs");
    let mut err = std::io::BufReader::new(send.stderr.take().unwrap());
    let mut line = String::new();
    std::io::BufRead::read_line(&mut err, &mut line).unwrap();
    assert!(line.starts_with("hakaru: 100-byte records to"), "{line}");
    let rest = std::thread::spawn(move || std::io::read_to_string(err).unwrap_or_default());
    let signal = |s: &str, pid: &str| {
        assert!(Command::new("kill")
            .args([s, pid])
            .status()
            .unwrap()
            .success())
    };
    let broker_pid = b.server.child.id().to_string();
    // The broker stalls, so nothing sent from here on is acknowledged; then Ctrl-C.
    signal("-STOP", &broker_pid);
    std::thread::sleep(Duration::from_millis(2500));
    signal("-INT", &send.id().to_string());
    // Well under the 60 s the wait would otherwise take.
    let status = wait_bounded(&mut send, Duration::from_secs(30));
    signal("-CONT", &broker_pid);
    let status = status.expect("Ctrl-C ends the send while it waits for acknowledgements");
    let o = send.wait_with_output().unwrap();
    let (out, err) = (stdout(&o), line + &rest.join().unwrap());
    assert_eq!(status.code(), Some(130), "{out}{err}");
    assert!(
        out.contains("records were not acknowledged by the broker"),
        "{out}{err}"
    );
}
