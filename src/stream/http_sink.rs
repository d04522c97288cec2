//! `--to http://…`: records POSTed in batches (fluentd's `in_http`, fluent-bit,
//! Vector's `http_server`) as an engine [`Workload`]: each sender is a virtual client
//! whose source builds the next batch body at send time with [`BodyRequest`], and the
//! engine does connections, pacing (`--rate` in batches per second), timeouts and
//! counting. A batch answered 2xx counts its records as delivered.
//!
//! The body is the records as they are (newline-delimited; `--format json` makes it
//! NDJSON). `--count` is per sender on average: the engine shares one request budget.

use std::sync::Arc;
use std::time::Duration;

use super::record::{now_us, Encoder, Format};
use super::send::{SendReport, SenderReport};
use super::StreamError;
use crate::engine::{
    Answer, ClientId, ConnectionSettings, EngineConfig, Lane, RateProfile, Request, RequestSource,
    ResponseCheck, StepSpec, Stop, Turn, Workload,
};
use crate::http::encode::{host_header, BodyRequest};
use crate::http::Target;
use crate::result::RequestInfo;
use crate::stats::ItemCounts;

/// What an HTTP send needs, checked before any load.
pub struct HttpSink {
    target: Target,
    path: String,
    url: String,
    encoder: Encoder,
    batch: u64,
    /// The id of this machine's first sender (`--shard`): client `c` is sender
    /// `first_sender + c`.
    first_sender: u64,
    /// `--http2`, `--streams`: the protocol, and how many senders share a connection.
    connection: ConnectionSettings,
}

impl HttpSink {
    /// Resolve and connect once (a refused port is bad input, before any load).
    /// `first_sender`: the id of this machine's first sender (`--shard`).
    pub fn new(
        url: &str,
        encoder: Encoder,
        batch: u64,
        first_sender: u64,
    ) -> Result<HttpSink, StreamError> {
        let bad = |why: String| StreamError::Uri {
            flag: "--to",
            uri: url.to_string(),
            why,
            expected: "http://HOST:PORT/PATH",
        };
        let parts = crate::http::url::parse_http_url(url).map_err(bad)?;
        let port = parts.port.unwrap_or(80);
        let addr = format!("{}:{port}", parts.host);
        let conn_err = |source| StreamError::Connect {
            uri: url.to_string(),
            addr: addr.clone(),
            source,
        };
        use std::net::ToSocketAddrs;
        let addrs: Vec<_> = (parts.host.as_str(), port)
            .to_socket_addrs()
            .map_err(conn_err)?
            .collect();
        let first = *addrs.first().ok_or_else(|| {
            conn_err(std::io::Error::new(
                std::io::ErrorKind::NotFound,
                "no address",
            ))
        })?;
        std::net::TcpStream::connect_timeout(&first, Duration::from_secs(10)).map_err(conn_err)?;
        Ok(HttpSink {
            target: Target {
                https: false,
                host: parts.host,
                port,
                addrs,
                proto: crate::http::Proto::Http,
            },
            path: parts.path,
            url: url.to_string(),
            encoder,
            batch: batch.max(1),
            first_sender,
            connection: ConnectionSettings::default(),
        })
    }

    /// Send over HTTP/2 (`--http2`), `streams` senders to a connection.
    pub fn with_connection(mut self, connection: ConnectionSettings) -> HttpSink {
        self.connection = connection;
        self
    }

    /// Send `count` records per sender (or for `duration`) at `rate` records/s.
    pub fn send(
        self,
        senders: u64,
        count: Option<u64>,
        duration: Option<Duration>,
        rate: Option<f64>,
        stop: &Stop,
    ) -> Result<SendReport, StreamError> {
        let batch = self.batch;
        let size = self.encoder.size() as u64;
        let rate = match rate {
            Some(r) => Some(Arc::new(RateProfile::constant(r / batch as f64).map_err(
                |e| StreamError::Flag {
                    flag: "--rate",
                    why: e.to_string(),
                },
            )?)),
            None => None,
        };
        let spec = StepSpec {
            n_clients: senders as usize,
            duration,
            n_requests: count.map(|c| c.div_ceil(batch) * senders),
            rate,
        };
        let cfg = EngineConfig {
            threads: 0,
            wait: Duration::ZERO,
            keep_alive: true,
            n_slow: 0,
            n_fast: 0,
            tls: None,
            lane: Lane::ALL,
            ok_status: Default::default(),
            label_feed: None,
            skip_late: None,
            budget_per_client: false,
            connection: self.connection,
            time_first_byte: false,
            login_timeout: Duration::from_secs(10),
        };
        let workload = Arc::new(self);
        let run = crate::engine::run_step(&workload, &cfg, &spec, 0, stop, &mut |_| {});
        let rec = &run.recorder;
        let records = rec.items.ok;
        let failed_batches = (rec.items.sent - rec.items.ok) / batch;
        Ok(SendReport {
            senders: vec![SenderReport {
                sender: 0,
                records,
                bytes: records * size,
                elapsed_s: run.elapsed.as_secs_f64(),
                error: run.failure.clone(),
            }],
            elapsed_s: run.elapsed.as_secs_f64(),
            failed_senders: u64::from(run.failure.is_some()),
            failed_batches,
        })
    }
}

impl Workload for HttpSink {
    type Source = BatchSource;
    type Check = Accepted;

    fn targets(&self) -> &[Target] {
        std::slice::from_ref(&self.target)
    }

    fn request_infos(&self) -> Vec<RequestInfo> {
        vec![RequestInfo {
            id: None,
            method: "POST".into(),
            url: self.url.clone(),
        }]
    }

    /// No draw: a sender's records are numbered, not drawn.
    fn client(&self, id: ClientId) -> (BatchSource, Accepted) {
        let host = host_header(&self.target.host, self.target.port, false);
        let content_type = match self.encoder_format() {
            Format::Raw => "text/plain",
            Format::Json => "application/x-ndjson",
        };
        let request = BodyRequest::new("POST", &self.path, &host, &[], Some(content_type), true);
        let source = BatchSource {
            encoder: self.encoder.clone(),
            request,
            sender: self.first_sender + id.index as u64,
            batch: self.batch,
            n: 0,
            body: Vec::new(),
            wire: Vec::new(),
        };
        (source, Accepted)
    }
}

impl HttpSink {
    fn encoder_format(&self) -> Format {
        self.encoder.format()
    }
}

/// One sender's batches, built at send time into buffers it keeps.
pub struct BatchSource {
    encoder: Encoder,
    request: BodyRequest,
    sender: u64,
    batch: u64,
    /// Records this sender made so far: the next one's sequence.
    n: u64,
    body: Vec<u8>,
    wire: Vec<u8>,
}

impl RequestSource for BatchSource {
    fn next(&mut self, _: Turn) -> Request<'_> {
        self.body.clear();
        let now = now_us();
        let mut items = 0;
        for _ in 0..self.batch {
            if !self
                .encoder
                .encode(&mut self.body, self.sender, self.n, now)
            {
                break;
            }
            self.n += 1;
            items += 1;
        }
        self.request.write(&mut self.wire, &self.body);
        Request {
            target: 0,
            bytes: &self.wire,
            timeout: Duration::from_secs(30),
            head: false,
            info: 0,
            items,
            label: 0,
            expect: crate::engine::Expect::ANY,
        }
    }
}

/// A batch answered 2xx was taken whole.
pub struct Accepted;

impl ResponseCheck for Accepted {
    fn check(&mut self, answer: &Answer<'_>, items: &mut ItemCounts) {
        if (200..300).contains(&answer.status) {
            items.ok(answer.items);
        }
    }
}
