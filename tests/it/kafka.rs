//! Kafka end to end: a private single-node broker (KRaft, from the jars `.ci/run`
//! caches) per test, on free loopback ports, stopped by its PID; `stream send` into a
//! topic and `watch kafka://…` reading it back.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Mutex, MutexGuard};

use crate::util::*;

/// One broker at a time: each is a JVM of ~400 MB, and the machine has 2 cores.
static ONE_BROKER: Mutex<()> = Mutex::new(());

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
    #[allow(dead_code)]
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
    let one = ONE_BROKER.lock().unwrap_or_else(|e| e.into_inner());
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
    wait_for_port(port, &mut child, "the Kafka broker");
    Some(Broker {
        server: Server { child, port, dir },
        libs,
        _one: one,
    })
}

#[test]
fn a_private_broker_starts_and_takes_a_topic() {
    let Some(b) = broker() else { return };
    b.create_topic("hakaru-smoke", 2);
    let o = b
        .java()
        .args([
            "org.apache.kafka.tools.TopicCommand",
            "--bootstrap-server",
            &b.addr(),
            "--list",
        ])
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("hakaru-smoke"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}
