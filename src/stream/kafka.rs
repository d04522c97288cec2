//! Kafka at both ends of a stream: `kafka://HOST:PORT/TOPIC` as `stream send`'s sink
//! (producers) and as `watch`'s source (a consumer), on librdkafka through the
//! `rdkafka` crate — chosen by measurement (docs/performance.md): ~400k × 1 KiB
//! records/s from one producer here, against ~250k for rskafka, whose producer also
//! cannot send with acks 0 or 1.
//!
//! - Sink: one producer per sender (`--senders K`: K producers, each its own
//!   connection and queue). Each record goes out without its newline (one Kafka record
//!   per line, as a log shipper sends), keyed by its sender, so a sender's records stay
//!   in one partition and keep their order there. `--acks`, `--kafka-batch-bytes`
//!   (`batch.size`), `--linger` (`linger.ms`) and any `--kafka-config KEY=VALUE` go to
//!   the producer. Records the broker did not acknowledge are taken off the sender's
//!   count when it finishes, and named in its error.
//! - Source: one consumer assigned every partition of the topic at its end as the watch
//!   starts (the offsets asked of the broker then, so nothing sent after is missed), or
//!   at its beginning with `--from-start`; each record counted as a line (plus the
//!   newline it was sent without) and verified as one.
//!
//! Before any load: the URI parsed, the broker reached, and the topic found among the
//! broker's topics — a missing topic is an error naming it (never created by asking for
//! it) unless `--create-topic N` creates it with N partitions.

use std::io;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use rdkafka::admin::{AdminClient, AdminOptions, NewTopic, TopicReplication};
use rdkafka::client::{Client, ClientContext, DefaultClientContext};
use rdkafka::config::ClientConfig;
use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::error::{KafkaError, KafkaResult, RDKafkaErrorCode};
use rdkafka::message::{DeliveryResult, Message};
use rdkafka::producer::{BaseProducer, BaseRecord, Producer, ProducerContext};
use rdkafka::{Offset, TopicPartitionList};

use super::sink::ByteSink;
use super::StreamError;

/// How long the broker has to answer before any load (metadata, offsets, creation).
const ANSWER: Duration = Duration::from_secs(5);
/// How long a finishing sender waits for the broker to acknowledge what it holds.
const FLUSH: Duration = Duration::from_secs(60);
/// How long one look at the producer's queue waits before the stop flag is read again.
const FLUSH_SLICE: Duration = Duration::from_millis(200);
/// librdkafka's default `message.max.bytes`: the largest record a producer sends.
const MESSAGE_MAX_BYTES: usize = 1_000_000;
/// Room for the key and the record batch's framing within `message.max.bytes`
/// (librdkafka counts 61 bytes of batch header and up to ~25 per record).
const WIRE_OVERHEAD: usize = 128;
/// How long a record may wait in a producer before it counts as not delivered.
const MESSAGE_TIMEOUT_MS: &str = "30000";

/// `HOST:PORT[,HOST:PORT…]/TOPIC` after `kafka://`: (bootstrap servers, topic).
pub fn parse_uri(rest: &str) -> Result<(String, String), String> {
    let (servers, topic) = rest
        .split_once('/')
        .ok_or_else(|| "no /TOPIC after the broker".to_string())?;
    for s in servers.split(',') {
        super::sink::check_host_port(s)?;
    }
    if topic.is_empty() {
        return Err("no topic after the /".into());
    }
    // Kafka's own rule for topic names.
    if topic.len() > 249
        || topic == "."
        || topic == ".."
        || !topic
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
    {
        return Err(format!(
            "\"{topic}\" is not a topic name (letters, digits, '.', '_', '-'; at most 249)"
        ));
    }
    Ok((servers.to_string(), topic.to_string()))
}

/// Which acknowledgement a producer waits for (Kafka's `acks`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Acks {
    /// None: a record counts once written to the socket.
    Zero,
    /// The partition leader's.
    One,
    /// Every in-sync replica's (Kafka's default).
    #[default]
    All,
}

impl Acks {
    fn as_config(self) -> &'static str {
        match self {
            Acks::Zero => "0",
            Acks::One => "1",
            Acks::All => "all",
        }
    }
}

/// The producer settings of a Kafka sink.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct KafkaSendOptions {
    pub acks: Acks,
    /// `batch.size`: bytes a partition's batch may grow to (librdkafka's default 1 MB).
    pub batch_bytes: Option<u64>,
    /// `linger.ms`: how long a batch waits to fill (librdkafka's default 5 ms).
    pub linger: Option<Duration>,
    /// Create the topic with this many partitions when it does not exist.
    pub create_topic: Option<u32>,
    /// Any other librdkafka setting, `KEY=VALUE`, applied last.
    pub config: Vec<String>,
}

impl KafkaSendOptions {
    /// The checks that need nothing from outside.
    pub fn check(&self) -> Result<(), StreamError> {
        let bad = |flag, why: String| StreamError::Flag { flag, why };
        if self.batch_bytes == Some(0) {
            return Err(bad("--kafka-batch-bytes", "must be at least 1".into()));
        }
        if self.create_topic == Some(0) {
            return Err(bad("--create-topic", "must be at least 1 partition".into()));
        }
        if let Some(l) = self.linger {
            if l > Duration::from_secs(900) {
                return Err(bad("--linger", "must be at most 15 minutes".into()));
            }
        }
        for kv in &self.config {
            if kv.split_once('=').is_none_or(|(k, _)| k.is_empty()) {
                return Err(bad("--kafka-config", format!("\"{kv}\" is not KEY=VALUE")));
            }
        }
        Ok(())
    }
}

fn kafka_err(flag: &'static str, uri: &str, why: String) -> StreamError {
    StreamError::Kafka {
        flag,
        uri: uri.to_string(),
        why,
    }
}

/// The broker's topics, to tell a missing topic from an unreachable broker. Asks for
/// all topics: asking for one by name may create it on a broker that auto-creates.
fn find_topic<C: ClientContext>(
    client: &Client<C>,
    servers: &str,
    topic: &str,
    flag: &'static str,
    uri: &str,
) -> Result<Option<Vec<i32>>, StreamError> {
    let md = client.fetch_metadata(None, ANSWER).map_err(|e| {
        kafka_err(
            flag,
            uri,
            format!("cannot reach the Kafka broker at {servers} ({e}; is it running?)"),
        )
    })?;
    Ok(md
        .topics()
        .iter()
        .find(|t| t.name() == topic)
        .map(|t| t.partitions().iter().map(|p| p.id()).collect()))
}

fn missing_topic(flag: &'static str, uri: &str, servers: &str, topic: &str) -> StreamError {
    let hint = if flag == "--to" {
        "create it, or give --create-topic PARTITIONS"
    } else {
        "create it first"
    };
    kafka_err(
        flag,
        uri,
        format!("topic \"{topic}\" does not exist on {servers} ({hint})"),
    )
}

/// Counts what the broker did not acknowledge; the producer calls it from `poll`.
#[derive(Default)]
pub struct Delivery {
    failed: AtomicU64,
    /// The first failure, as librdkafka tells it (locked only when a record fails).
    first_error: Mutex<Option<String>>,
}

impl ClientContext for Delivery {}

impl ProducerContext for Delivery {
    type DeliveryOpaque = ();
    fn delivery(&self, result: &DeliveryResult<'_>, _: ()) {
        if let Err((e, _)) = result {
            self.failed.fetch_add(1, Ordering::Relaxed);
            let mut first = self.first_error.lock().unwrap_or_else(|e| e.into_inner());
            first.get_or_insert_with(|| e.to_string());
        }
    }
}

/// One sender's producer.
pub struct KafkaSink {
    producer: BaseProducer<Delivery>,
    topic: String,
    /// The sender's id: its records' key, so they share a partition.
    key: Vec<u8>,
    size: usize,
}

impl KafkaSink {
    /// Open sender `k`'s producer, after the broker and the topic are checked (and the
    /// topic created, by sender 0, when asked).
    pub fn open(
        servers: &str,
        topic: &str,
        opts: &KafkaSendOptions,
        k: u64,
        record_size: usize,
        uri: &str,
    ) -> Result<KafkaSink, StreamError> {
        // librdkafka refuses a larger record at its first send, mid-load: refuse it here.
        let max = opts
            .config
            .iter()
            .filter_map(|kv| kv.strip_prefix("message.max.bytes="))
            .next_back()
            .and_then(|v| v.parse::<usize>().ok())
            .unwrap_or(MESSAGE_MAX_BYTES);
        // What librdkafka counts: the record, its key and a batch's framing (~90 bytes).
        if record_size - 1 + WIRE_OVERHEAD > max {
            return Err(StreamError::Flag {
                flag: "--record-size",
                why: format!(
                    "{record_size} bytes do not fit in the Kafka producer's message.max.bytes \
                     ({max}, framing included: records up to {} bytes); raise it with \
                     --kafka-config message.max.bytes=N (and the broker's and topic's limits)",
                    max + 1 - WIRE_OVERHEAD
                ),
            });
        }
        let mut cfg = ClientConfig::new();
        cfg.set("bootstrap.servers", servers)
            .set("client.id", format!("hakaru-sender-{k}"))
            .set("acks", opts.acks.as_config())
            .set("message.timeout.ms", MESSAGE_TIMEOUT_MS)
            // Room for a whole 256 KiB batch of the sender loop and more in flight.
            .set("queue.buffering.max.kbytes", "1048576")
            .set("queue.buffering.max.messages", "1000000");
        if let Some(b) = opts.batch_bytes {
            cfg.set("batch.size", b.to_string());
        }
        if let Some(l) = opts.linger {
            cfg.set("linger.ms", format!("{}", l.as_secs_f64() * 1e3));
        }
        for kv in &opts.config {
            if let Some((key, v)) = kv.split_once('=') {
                cfg.set(key, v);
            }
        }
        let producer: BaseProducer<Delivery> =
            cfg.create_with_context(Delivery::default()).map_err(|e| {
                kafka_err(
                    "--to",
                    uri,
                    format!("the producer refused its settings: {e}"),
                )
            })?;
        if find_topic(producer.client(), servers, topic, "--to", uri)?.is_none() {
            match opts.create_topic {
                Some(partitions) if k == 0 => create_topic(servers, topic, partitions, uri)?,
                // Sender 0 created it a moment ago (senders open in order).
                Some(_) => {}
                None => return Err(missing_topic("--to", uri, servers, topic)),
            }
        }
        Ok(KafkaSink {
            producer,
            topic: topic.to_string(),
            key: k.to_string().into_bytes(),
            size: record_size,
        })
    }
}

/// `--create-topic`: the topic with `partitions` partitions, one replica.
fn create_topic(servers: &str, topic: &str, partitions: u32, uri: &str) -> Result<(), StreamError> {
    let fail = |why: String| kafka_err("--create-topic", uri, why);
    let admin: AdminClient<DefaultClientContext> = ClientConfig::new()
        .set("bootstrap.servers", servers)
        .create()
        .map_err(|e| fail(format!("cannot make an admin client: {e}")))?;
    let new = NewTopic::new(topic, partitions as i32, TopicReplication::Fixed(1));
    let opts = AdminOptions::new().operation_timeout(Some(ANSWER));
    // librdkafka's own thread answers; any executor waits for it.
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .map_err(|e| fail(format!("cannot build a runtime: {e}")))?;
    let results = rt
        .block_on(admin.create_topics([&new], &opts))
        .map_err(|e| fail(format!("creating topic \"{topic}\": {e}")))?;
    for r in results {
        match r {
            Ok(_) | Err((_, RDKafkaErrorCode::TopicAlreadyExists)) => {}
            Err((t, code)) => return Err(fail(format!("creating topic \"{t}\": {code}"))),
        }
    }
    // The new topic's leader takes a moment to be known to the producers.
    for _ in 0..50 {
        if find_topic(admin.inner(), servers, topic, "--create-topic", uri)?
            .is_some_and(|p| !p.is_empty())
        {
            return Ok(());
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    Err(fail(format!(
        "topic \"{topic}\" was created but never appeared"
    )))
}

impl ByteSink for KafkaSink {
    fn write_records(&mut self, batch: &[u8]) -> io::Result<()> {
        for r in batch.chunks_exact(self.size) {
            let mut record = BaseRecord::to(&self.topic)
                .key(&self.key[..])
                .payload(&r[..self.size - 1]);
            loop {
                match self.producer.send(record) {
                    Ok(()) => break,
                    // The producer's queue is full: let it deliver (and call back).
                    Err((KafkaError::MessageProduction(RDKafkaErrorCode::QueueFull), back)) => {
                        record = back;
                        self.producer.poll(Duration::from_millis(1));
                    }
                    Err((e, _)) => return Err(io::Error::other(format!("kafka: {e}"))),
                }
            }
        }
        // Delivery reports, without waiting.
        self.producer.poll(Duration::ZERO);
        Ok(())
    }

    fn finish(&mut self, stop: &crate::engine::Stop) -> Option<(u64, String)> {
        // Waited for in slices, so Ctrl-C ends the wait (and the run) at once.
        let began = std::time::Instant::now();
        let mut flushed = Ok(());
        let mut interrupted = false;
        while began.elapsed() < FLUSH {
            if stop.is_triggered() {
                interrupted = true;
                break;
            }
            flushed = self.producer.flush(FLUSH_SLICE);
            if flushed.is_ok() {
                break;
            }
        }
        let c = self.producer.context();
        let mut failed = c.failed.load(Ordering::Relaxed);
        // Whatever is still queued after the wait was not acknowledged either.
        let queued = self.producer.in_flight_count().max(0) as u64;
        failed += queued;
        if failed == 0 {
            return None;
        }
        let first = c
            .first_error
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        let why = match (first, flushed) {
            (Some(e), _) => e,
            (None, _) if interrupted => "interrupted while waiting for them".into(),
            (None, Err(e)) => format!("not flushed within {} s: {e}", FLUSH.as_secs()),
            (None, Ok(())) => "no acknowledgement".into(),
        };
        Some((
            failed,
            format!("{failed} records were not acknowledged by the broker ({why})"),
        ))
    }
}

/// A partition's watermarks. A topic just created has no leader for a moment
/// (NotLeaderForPartition, LeaderNotAvailable): asked again until [`ANSWER`] has passed.
fn end_offset(consumer: &BaseConsumer, topic: &str, p: i32) -> KafkaResult<(i64, i64)> {
    let began = std::time::Instant::now();
    loop {
        match consumer.fetch_watermarks(topic, p, ANSWER) {
            Err(e)
                if began.elapsed() < ANSWER
                    && matches!(
                        e.rdkafka_error_code(),
                        Some(
                            RDKafkaErrorCode::NotLeaderForPartition
                                | RDKafkaErrorCode::LeaderNotAvailable
                                | RDKafkaErrorCode::UnknownTopicOrPartition
                        )
                    ) =>
            {
                std::thread::sleep(Duration::from_millis(100));
            }
            answer => return answer,
        }
    }
}

/// A consumer assigned every partition of the topic, at its current end (or start).
pub struct TopicReader {
    consumer: BaseConsumer,
    /// Where reading starts, for the user (and for scripts waiting until it has).
    pub note: String,
}

/// Open the watch's consumer: the broker reached, the topic found, the offsets fixed.
pub fn open_source(
    servers: &str,
    topic: &str,
    from_start: bool,
    uri: &str,
) -> Result<TopicReader, StreamError> {
    let consumer: BaseConsumer = ClientConfig::new()
        .set("bootstrap.servers", servers)
        .set("client.id", "hakaru-watch")
        .set("group.id", "hakaru-watch")
        .set("enable.auto.commit", "false")
        .set("enable.auto.offset.store", "false")
        .set("enable.partition.eof", "false")
        // An idle topic answers a fetch after this long at most: a record's latency
        // is not padded by the fetch's wait when records come one at a time.
        .set("fetch.wait.max.ms", "50")
        .create()
        .map_err(|e| kafka_err("SOURCE", uri, format!("cannot make a consumer: {e}")))?;
    let partitions = find_topic(consumer.client(), servers, topic, "SOURCE", uri)?
        .ok_or_else(|| missing_topic("SOURCE", uri, servers, topic))?;
    let mut tpl = TopicPartitionList::new();
    let mut starts = Vec::new();
    for &p in &partitions {
        let at = if from_start {
            Offset::Beginning
        } else {
            // The end now, not when the first fetch resolves it: records sent between
            // the two would be missed.
            let (_, high) = end_offset(&consumer, topic, p).map_err(|e| {
                kafka_err("SOURCE", uri, format!("partition {p}'s end offset: {e}"))
            })?;
            starts.push(format!("{p}:{high}"));
            Offset::Offset(high)
        };
        tpl.add_partition_offset(topic, p, at)
            .map_err(|e| kafka_err("SOURCE", uri, e.to_string()))?;
    }
    consumer
        .assign(&tpl)
        .map_err(|e| kafka_err("SOURCE", uri, format!("cannot assign the partitions: {e}")))?;
    let note = if from_start {
        format!(
            "reading topic \"{topic}\" ({} partitions) from its beginning",
            partitions.len()
        )
    } else {
        format!(
            "reading topic \"{topic}\" from partition:offset {}",
            starts.join(", ")
        )
    };
    Ok(TopicReader { consumer, note })
}

impl TopicReader {
    /// Read until `stop`, each record's payload to `record`; the first consumer error
    /// to `fail` (librdkafka retries on its own: reading goes on).
    pub fn read(
        self,
        stop: &AtomicBool,
        mut record: impl FnMut(&[u8]),
        mut fail: impl FnMut(String),
    ) {
        let mut failed = false;
        let mut on = |m: Option<Result<rdkafka::message::BorrowedMessage<'_>, KafkaError>>| match m
        {
            Some(Ok(m)) => {
                record(m.payload().unwrap_or_default());
                true
            }
            Some(Err(e)) => {
                if !failed {
                    failed = true;
                    fail(format!("kafka: {e}"));
                }
                true
            }
            None => false,
        };
        while !stop.load(Ordering::Relaxed) {
            // Up to a batch's worth between looks at the stop flag.
            for _ in 0..10_000 {
                if !on(self.consumer.poll(Duration::from_millis(50))) {
                    break;
                }
            }
        }
        // What was fetched before the stop still counts.
        for _ in 0..10_000_000 {
            if !on(self.consumer.poll(Duration::ZERO)) {
                break;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_parse_or_say_why() {
        assert_eq!(
            parse_uri("127.0.0.1:9092/logs").unwrap(),
            ("127.0.0.1:9092".into(), "logs".into())
        );
        assert_eq!(
            parse_uri("a:1,b:2/x.y_z-1").unwrap(),
            ("a:1,b:2".into(), "x.y_z-1".into())
        );
        for (bad, why) in [
            ("127.0.0.1:9092", "no /TOPIC"),
            ("127.0.0.1:9092/", "no topic"),
            ("127.0.0.1/logs", "no :PORT"),
            ("h:1/a b", "not a topic name"),
            ("h:1/..", "not a topic name"),
        ] {
            let e = parse_uri(bad).unwrap_err();
            assert!(e.contains(why), "{bad}: {e}");
        }
    }

    #[test]
    fn a_record_above_message_max_bytes_is_refused_before_connecting() {
        let opts = KafkaSendOptions::default();
        let e = KafkaSink::open("127.0.0.1:1", "t", &opts, 0, 1_000_001, "kafka://x")
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("--record-size") && e.contains("999873"), "{e}");
    }

    #[test]
    fn options_refuse_what_kafka_would() {
        let o = KafkaSendOptions {
            config: vec!["linger.ms".into()],
            ..Default::default()
        };
        assert!(o
            .check()
            .unwrap_err()
            .to_string()
            .contains("--kafka-config"));
        let o = KafkaSendOptions {
            batch_bytes: Some(0),
            ..Default::default()
        };
        assert!(o
            .check()
            .unwrap_err()
            .to_string()
            .contains("--kafka-batch-bytes"));
        assert!(KafkaSendOptions::default().check().is_ok());
    }
}
