//! `stream send`'s plain options and their checks: every flag refused here, before any
//! sink is opened; then [`SendOptions::open`] opens the sinks (files created,
//! connections made), still before any record goes out.

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use super::http_sink::HttpSink;
use super::kafka::KafkaSendOptions;
use super::record::{Encoder, Format};
use super::send::{open_sinks, send, SendPlan, SendReport};
use super::sink::{ByteSink, ByteSinkSpec, Framing, SinkUri};
use super::StreamError;
use crate::engine::Stop;
use crate::result::Shard;
use crate::spec::StartAt;

/// The most senders a send starts (each a thread and a connection).
pub const MAX_SENDERS: u64 = 4096;
/// The largest record: rsyslog's own limit is far below; a record is built in memory.
pub const MAX_RECORD: usize = 64 << 20;

/// What `stream send` was asked.
#[derive(Debug, Clone)]
pub struct SendOptions {
    pub to: String,
    pub record_size: usize,
    pub format: Format,
    pub senders: u64,
    /// Records per sender.
    pub count: Option<u64>,
    pub duration: Option<Duration>,
    /// `--rate` as written (records per second over all senders).
    pub rate: Option<String>,
    pub framing: Framing,
    /// `dir:`: records per file.
    pub rotate: u64,
    /// `http://`: records per request.
    pub batch: u64,
    /// `http://`: `--http2`, `--streams` (the engine's connections).
    pub connection: crate::engine::ConnectionSettings,
    /// `--shard K/N`: this machine's senders get ids of their own and its share of
    /// `--rate`; `--count` stays per sender.
    pub shard: Option<Shard>,
    /// `--start-at`: the first record leaves at this moment (shards start together).
    pub start_at: Option<StartAt>,
    /// `kafka://`: the producers' settings.
    pub kafka: KafkaSendOptions,
}

/// A send whose sinks are open: nothing is sent yet.
pub enum ReadySend {
    Bytes {
        plan: SendPlan,
        sinks: Vec<Box<dyn ByteSink>>,
    },
    Http {
        // Boxed: the engine's settings make it twice the other variant.
        sink: Box<HttpSink>,
        plan: SendPlan,
        rate: Option<f64>,
    },
}

fn flag(flag: &'static str, why: impl Into<String>) -> StreamError {
    StreamError::Flag {
        flag,
        why: why.into(),
    }
}

impl SendOptions {
    /// The checks that need nothing from outside, and the plan they make.
    pub fn check(&self) -> Result<(SinkUri, SendPlan), StreamError> {
        let uri = SinkUri::parse(&self.to)?;
        if self.connection.http2 && !matches!(uri, SinkUri::Http(_)) {
            return Err(flag("--http2", "is for an http:// sink"));
        }
        if self.senders == 0 || self.senders > MAX_SENDERS {
            return Err(flag(
                "--senders",
                format!("{} is not between 1 and {MAX_SENDERS}", self.senders),
            ));
        }
        if self.record_size > MAX_RECORD {
            return Err(flag(
                "--record-size",
                format!(
                    "{} is above the {MAX_RECORD} bytes accepted",
                    self.record_size
                ),
            ));
        }
        if self.count == Some(0) {
            return Err(flag("--count", "must be at least 1"));
        }
        if self.duration == Some(Duration::ZERO) {
            return Err(flag("--duration", "must be longer than 0"));
        }
        if self.framing == Framing::Octet && !matches!(uri, SinkUri::Tcp(_)) {
            return Err(flag("--framing", "octet counting is for tcp:// only"));
        }
        if self.rotate == 0 {
            return Err(flag("--rotate", "must be at least 1"));
        }
        if self.batch == 0 {
            return Err(flag("--batch", "must be at least 1"));
        }
        self.kafka.check()?;
        let k = &self.kafka;
        if !matches!(uri, SinkUri::Kafka { .. })
            && (k.batch_bytes.is_some()
                || k.linger.is_some()
                || k.create_topic.is_some()
                || !k.config.is_empty())
        {
            return Err(flag(
                "--kafka-batch-bytes, --linger, --create-topic, --kafka-config",
                "are for kafka:// sinks",
            ));
        }
        // Neither a count nor a duration: ten seconds, as `bulk` does.
        let duration = match (self.count, self.duration) {
            (None, None) => Some(Duration::from_secs(10)),
            (_, d) => d,
        };
        let rate = match &self.rate {
            // "50k" and "1M" as well as the engine's own profiles.
            Some(r) => Some(Arc::new(
                crate::spec::parse_profile(r, duration)
                    .map_err(|e| flag("--rate", format!("{r}: {e}")))?,
            )),
            None => None,
        };
        let all_senders = self.senders * self.shard.map_or(1, |s| u64::from(s.count));
        if all_senders > u64::from(super::verify::MAX_SENDER) + 1 {
            return Err(flag(
                "--shard",
                format!(
                    "{} shards × {} senders make {all_senders} senders; watch --verify tells {} apart",
                    self.shard.map_or(1, |s| s.count),
                    self.senders,
                    u64::from(super::verify::MAX_SENDER) + 1
                ),
            ));
        }
        // Ids and the shared sequence are laid out for every shard's senders.
        let encoder = Encoder::new(self.format, self.record_size, all_senders, self.count)?;
        Ok((
            uri,
            SendPlan {
                encoder,
                senders: self.senders,
                shard: self.shard,
                count: self.count,
                duration,
                rate,
            },
        ))
    }

    /// Check, then open every sink (connect, create): errors here are bad input too.
    pub fn open(&self) -> Result<ReadySend, StreamError> {
        let (uri, plan) = self.check()?;
        if let SinkUri::Http(url) = &uri {
            let rate = match &plan.rate {
                Some(r) => Some(r.fixed_rate().ok_or_else(|| {
                    flag(
                        "--rate",
                        "an HTTP sink takes a fixed rate (records per second)",
                    )
                })?),
                None => None,
            };
            // The engine's HTTP client takes a fixed rate: a shard sends its share.
            let rate = rate.map(|r| r / plan.shard.map_or(1.0, |s| f64::from(s.count)));
            let sink = HttpSink::new(url, plan.encoder.clone(), self.batch, plan.first_sender())?
                .with_connection(self.connection);
            return Ok(ReadySend::Http {
                sink: Box::new(sink),
                plan,
                rate,
            });
        }
        let spec = ByteSinkSpec {
            uri,
            text: self.to.clone(),
            framing: self.framing,
            rotate: self.rotate,
            record_size: self.record_size,
            kafka: self.kafka.clone(),
        };
        let sinks = open_sinks(&spec, plan.first_sender(), self.senders)?;
        Ok(ReadySend::Bytes { plan, sinks })
    }
}

impl SendOptions {
    /// `--start-at` as a moment: refused (bad input) when it passed more than a second
    /// ago. Asked before the sinks are opened.
    pub fn start_moment(&self) -> Result<Option<SystemTime>, crate::spec::SpecError> {
        crate::spec::start_moment(self.start_at, &[], 1)
    }
}

/// What a send did, and how late it started when it waited for `--start-at`.
pub struct Sent {
    pub report: SendReport,
    /// Seconds after the `--start-at` moment the first record left (`None` without one).
    pub start_late_s: Option<f64>,
}

impl ReadySend {
    /// Wait for `at` (all shards start together), then send; a stop while waiting
    /// sends nothing.
    pub fn run_at(self, at: Option<SystemTime>, stop: &Stop) -> Result<Sent, StreamError> {
        let mut start_late_s = None;
        if let Some(at) = at {
            match crate::runner::start::wait_until(at, stop) {
                Some(late) => start_late_s = Some(late.as_secs_f64()),
                None => {
                    return Ok(Sent {
                        report: SendReport::default(),
                        start_late_s: None,
                    })
                }
            }
        }
        Ok(Sent {
            report: self.run(stop)?,
            start_late_s,
        })
    }

    pub fn plan(&self) -> &SendPlan {
        match self {
            ReadySend::Bytes { plan, .. } | ReadySend::Http { plan, .. } => plan,
        }
    }

    /// Send, until count, duration or `stop`.
    pub fn run(self, stop: &Stop) -> Result<SendReport, StreamError> {
        match self {
            ReadySend::Bytes { plan, sinks } => Ok(send(&plan, sinks, stop)),
            ReadySend::Http { sink, plan, rate } => {
                sink.send(plan.senders, plan.count, plan.duration, rate, stop)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(to: &str) -> SendOptions {
        SendOptions {
            to: to.into(),
            record_size: 100,
            format: Format::Raw,
            senders: 1,
            count: Some(10),
            duration: None,
            rate: None,
            framing: Framing::Newline,
            rotate: 1000,
            batch: 100,
            connection: Default::default(),
            shard: None,
            start_at: None,
            kafka: Default::default(),
        }
    }

    #[test]
    fn bad_flags_name_themselves() {
        let cases: Vec<(SendOptions, &str)> = vec![
            (
                SendOptions {
                    senders: 0,
                    ..opts("file:/x")
                },
                "--senders",
            ),
            (
                SendOptions {
                    count: Some(0),
                    ..opts("file:/x")
                },
                "--count",
            ),
            (
                SendOptions {
                    framing: Framing::Octet,
                    ..opts("udp://h:1")
                },
                "--framing",
            ),
            (
                SendOptions {
                    rate: Some("fast".into()),
                    ..opts("file:/x")
                },
                "--rate",
            ),
            (
                SendOptions {
                    record_size: 2,
                    ..opts("file:/x")
                },
                "--record-size",
            ),
            (opts("nope:/x"), "--to"),
        ];
        for (o, name) in cases {
            let e = o.check().expect_err("refused").to_string();
            assert!(e.contains(name), "{name}: {e}");
        }
        assert_eq!(opts("file:/x").check().unwrap().1.count, Some(10));
    }

    #[test]
    fn a_refused_port_and_an_uncreatable_file_fail_before_load() {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        // The listener is gone: nothing listens there now.
        let e = opts(&format!("tcp://127.0.0.1:{port}"))
            .open()
            .err()
            .unwrap();
        assert!(matches!(e, StreamError::Connect { .. }), "{e}");
        let e = opts("file:/nonexistent-dir/x.log").open().err().unwrap();
        assert!(e.to_string().contains("/nonexistent-dir/x.log"), "{e}");
    }
}
