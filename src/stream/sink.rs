//! Where `stream send` puts records: the `--to` URI, checked and opened before any
//! load, and the byte sinks the one sender loop ([`super::send`]) writes to. A sink is
//! a strategy: it gets batches of whole records and frames them its own way.
//!
//! - `file:PATH` appends, as the seed's `cat data > target` did; every sender appends
//!   whole batches with `O_APPEND`, so lines never interleave.
//! - `dir:PATH` writes a new file every `--rotate` records, one series per sender.
//! - `tcp://HOST:PORT`: one connection per sender, newline framing or RFC 6587
//!   octet counting (`LEN SP MSG`, what rsyslog's `imtcp` reads first).
//! - `udp://HOST:PORT`: one datagram per record, without its newline (syslog's way).
//! - `http://HOST:PORT/PATH`: batches POSTed by the engine ([`super::http_sink`]).
//! - `kafka://HOST:PORT/TOPIC`: a producer per sender ([`super::kafka`]).

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::net::{TcpStream, ToSocketAddrs, UdpSocket};
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::kafka::{KafkaSendOptions, KafkaSink};
use super::StreamError;

/// How records are framed on a TCP connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Framing {
    /// Each record ends with `\n`.
    Newline,
    /// `LEN SP MSG` (RFC 6587 octet counting), the record without its newline.
    Octet,
}

/// A parsed `--to`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SinkUri {
    File(PathBuf),
    Dir(PathBuf),
    Tcp(String),
    Udp(String),
    /// The whole URL, handed to the HTTP workload.
    Http(String),
    /// Bootstrap servers and topic.
    Kafka {
        servers: String,
        topic: String,
    },
}

const EXPECTED: &str = "file:PATH, dir:PATH, tcp://HOST:PORT, udp://HOST:PORT, http://HOST:PORT/PATH or kafka://HOST:PORT/TOPIC";

/// The largest UDP payload over IPv4.
pub const MAX_DATAGRAM: usize = 65_507;

impl SinkUri {
    pub fn parse(s: &str) -> Result<SinkUri, StreamError> {
        let bad = |why: &str| StreamError::Uri {
            flag: "--to",
            uri: s.to_string(),
            why: why.to_string(),
            expected: EXPECTED,
        };
        if let Some(p) = s.strip_prefix("file:") {
            if p.is_empty() {
                return Err(bad("no path"));
            }
            return Ok(SinkUri::File(p.into()));
        }
        if let Some(p) = s.strip_prefix("dir:") {
            if p.is_empty() {
                return Err(bad("no path"));
            }
            return Ok(SinkUri::Dir(p.into()));
        }
        for (scheme, make) in [
            ("tcp://", SinkUri::Tcp as fn(String) -> SinkUri),
            ("udp://", SinkUri::Udp),
        ] {
            if let Some(a) = s.strip_prefix(scheme) {
                check_host_port(a).map_err(|w| bad(&w))?;
                return Ok(make(a.to_string()));
            }
        }
        if s.starts_with("http://") {
            crate::http::url::parse_http_url(s).map_err(|w| bad(&w))?;
            return Ok(SinkUri::Http(s.to_string()));
        }
        if let Some(rest) = s.strip_prefix("kafka://") {
            let (servers, topic) = super::kafka::parse_uri(rest).map_err(|w| bad(&w))?;
            return Ok(SinkUri::Kafka { servers, topic });
        }
        if s.starts_with("https://") {
            return Err(bad("HTTPS is not supported for streams yet"));
        }
        Err(bad("unknown scheme"))
    }
}

/// `HOST:PORT` with a port number.
pub fn check_host_port(a: &str) -> Result<(), String> {
    let (host, port) = a
        .rsplit_once(':')
        .ok_or_else(|| "no :PORT after the host".to_string())?;
    if host.is_empty() {
        return Err("no host".into());
    }
    match port.parse::<u16>() {
        Ok(p) if p > 0 => Ok(()),
        _ => Err(format!("\"{port}\" is not a port")),
    }
}

/// What a byte sink is opened with.
#[derive(Debug, Clone)]
pub struct ByteSinkSpec {
    pub uri: SinkUri,
    /// The `--to` as given, for messages.
    pub text: String,
    pub framing: Framing,
    /// `dir:`: records per file.
    pub rotate: u64,
    /// The record size (whole records, newline included).
    pub record_size: usize,
    /// `kafka://`: the producers' settings.
    pub kafka: KafkaSendOptions,
}

/// One sender's way out. Gets batches of whole records, each `record_size` bytes.
pub trait ByteSink: Send {
    fn write_records(&mut self, batch: &[u8]) -> io::Result<()>;

    /// Once, when the sender ends: a sink that holds records (Kafka's producer queue)
    /// waits for them to be acknowledged, and says how many of all it was given were
    /// not, and why. `stop` (Ctrl-C) cuts the wait short: an interrupted run still ends.
    fn finish(&mut self, stop: &crate::engine::Stop) -> Option<(u64, String)> {
        let _ = stop;
        None
    }
}

impl ByteSinkSpec {
    /// Open the sink of sender `k`: files created, connections made. Every error here
    /// comes before any record is sent.
    pub fn open(&self, k: u64) -> Result<Box<dyn ByteSink>, StreamError> {
        let size = self.record_size;
        match &self.uri {
            SinkUri::File(p) => Ok(Box::new(FileSink(self.open_file(p)?))),
            SinkUri::Dir(d) => {
                std::fs::create_dir_all(d).map_err(|e| self.open_err(d, e))?;
                let mut s = DirSink {
                    dir: d.clone(),
                    sender: k,
                    index: 0,
                    in_file: 0,
                    rotate: self.rotate.max(1),
                    size,
                    file: None,
                };
                let f = s.next_file().map_err(|e| self.open_err(d, e))?;
                s.file = Some(f);
                Ok(Box::new(s))
            }
            SinkUri::Tcp(a) => {
                let conn = self.connect_tcp(a)?;
                Ok(match self.framing {
                    Framing::Newline => Box::new(TcpSink(conn)),
                    Framing::Octet => Box::new(OctetSink {
                        conn,
                        prefix: format!("{} ", size - 1).into_bytes(),
                        size,
                        buf: Vec::new(),
                    }),
                })
            }
            SinkUri::Udp(a) => {
                if size - 1 > MAX_DATAGRAM {
                    return Err(StreamError::Flag {
                        flag: "--record-size",
                        why: format!("{size} bytes do not fit in one UDP datagram (at most {} with the newline)", MAX_DATAGRAM + 1),
                    });
                }
                let addr = resolve(a).map_err(|e| self.connect_err(a, e))?;
                let local = if addr.is_ipv4() {
                    "0.0.0.0:0"
                } else {
                    "[::]:0"
                };
                let sock = UdpSocket::bind(local).map_err(|e| self.connect_err(a, e))?;
                sock.connect(addr).map_err(|e| self.connect_err(a, e))?;
                Ok(Box::new(UdpSink { sock, size }))
            }
            SinkUri::Kafka { servers, topic } => Ok(Box::new(KafkaSink::open(
                servers,
                topic,
                &self.kafka,
                k,
                size,
                &self.text,
            )?)),
            SinkUri::Http(_) => unreachable!("HTTP runs as an engine workload"),
        }
    }

    fn open_file(&self, p: &Path) -> Result<File, StreamError> {
        OpenOptions::new()
            .create(true)
            .append(true)
            .open(p)
            .map_err(|e| self.open_err(p, e))
    }

    fn open_err(&self, p: &Path, source: io::Error) -> StreamError {
        StreamError::Open {
            flag: "--to",
            uri: self.text.clone(),
            path: p.to_path_buf(),
            source,
        }
    }

    fn connect_err(&self, a: &str, source: io::Error) -> StreamError {
        StreamError::Connect {
            uri: self.text.clone(),
            addr: a.to_string(),
            source,
        }
    }

    fn connect_tcp(&self, a: &str) -> Result<TcpStream, StreamError> {
        let addr = resolve(a).map_err(|e| self.connect_err(a, e))?;
        let conn = TcpStream::connect_timeout(&addr, Duration::from_secs(10))
            .map_err(|e| self.connect_err(a, e))?;
        // Batches are ours to size; Nagle would only delay a paced run's records.
        let _ = conn.set_nodelay(true);
        Ok(conn)
    }
}

fn resolve(a: &str) -> io::Result<std::net::SocketAddr> {
    a.to_socket_addrs()?
        .next()
        .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "the host has no address"))
}

struct FileSink(File);

impl ByteSink for FileSink {
    fn write_records(&mut self, batch: &[u8]) -> io::Result<()> {
        self.0.write_all(batch)
    }
}

struct DirSink {
    dir: PathBuf,
    sender: u64,
    index: u64,
    in_file: u64,
    rotate: u64,
    size: usize,
    file: Option<File>,
}

impl DirSink {
    fn next_file(&mut self) -> io::Result<File> {
        let p = self
            .dir
            .join(format!("hakaru-s{}-{:06}.log", self.sender, self.index));
        self.index += 1;
        self.in_file = 0;
        OpenOptions::new().create(true).append(true).open(p)
    }
}

impl ByteSink for DirSink {
    fn write_records(&mut self, mut batch: &[u8]) -> io::Result<()> {
        while !batch.is_empty() {
            if self.in_file >= self.rotate {
                self.file = Some(self.next_file()?);
            }
            let room = (self.rotate - self.in_file) as usize;
            let n = (batch.len() / self.size).min(room);
            let (now, rest) = batch.split_at(n * self.size);
            if let Some(f) = self.file.as_mut() {
                f.write_all(now)?;
            }
            self.in_file += n as u64;
            batch = rest;
        }
        Ok(())
    }
}

struct TcpSink(TcpStream);

impl ByteSink for TcpSink {
    fn write_records(&mut self, batch: &[u8]) -> io::Result<()> {
        self.0.write_all(batch)
    }
}

struct OctetSink {
    conn: TcpStream,
    /// `LEN ` — every record has the same length.
    prefix: Vec<u8>,
    size: usize,
    buf: Vec<u8>,
}

impl ByteSink for OctetSink {
    fn write_records(&mut self, batch: &[u8]) -> io::Result<()> {
        self.buf.clear();
        for r in batch.chunks_exact(self.size) {
            self.buf.extend_from_slice(&self.prefix);
            self.buf.extend_from_slice(&r[..self.size - 1]);
        }
        self.conn.write_all(&self.buf)
    }
}

struct UdpSink {
    sock: UdpSocket,
    size: usize,
}

impl ByteSink for UdpSink {
    fn write_records(&mut self, batch: &[u8]) -> io::Result<()> {
        for r in batch.chunks_exact(self.size) {
            match self.sock.send(&r[..self.size - 1]) {
                Ok(_) => {}
                // An ICMP "port unreachable" for an earlier datagram: UDP does not
                // deliver, and the receiver's count shows what was lost.
                Err(e) if e.kind() == io::ErrorKind::ConnectionRefused => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_parse_or_say_why() {
        assert_eq!(
            SinkUri::parse("file:/tmp/x").unwrap(),
            SinkUri::File("/tmp/x".into())
        );
        assert_eq!(
            SinkUri::parse("tcp://127.0.0.1:514").unwrap(),
            SinkUri::Tcp("127.0.0.1:514".into())
        );
        assert!(matches!(
            SinkUri::parse("http://127.0.0.1:9880/app.log").unwrap(),
            SinkUri::Http(_)
        ));
        for (bad, why) in [
            ("ftp://x", "unknown scheme"),
            ("tcp://127.0.0.1", "no :PORT"),
            ("udp://h:0", "not a port"),
            ("file:", "no path"),
            ("127.0.0.1:514", "unknown scheme"),
        ] {
            let e = SinkUri::parse(bad).unwrap_err().to_string();
            assert!(e.contains(why) && e.contains("--to"), "{bad}: {e}");
        }
    }

    #[test]
    fn dir_rotates_on_record_boundaries() {
        let d = std::env::temp_dir().join(format!("hakaru-dir-sink-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        let spec = ByteSinkSpec {
            uri: SinkUri::Dir(d.clone()),
            text: "dir:".into(),
            framing: Framing::Newline,
            rotate: 3,
            record_size: 4,
            kafka: Default::default(),
        };
        let mut s = spec.open(7).unwrap();
        s.write_records(b"aaa\nbbb\n").unwrap();
        s.write_records(b"ccc\nddd\neee\nfff\nggg\n").unwrap();
        let mut names: Vec<_> = std::fs::read_dir(&d)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        assert_eq!(
            names,
            [
                "hakaru-s7-000000.log",
                "hakaru-s7-000001.log",
                "hakaru-s7-000002.log"
            ]
        );
        assert_eq!(
            std::fs::read_to_string(d.join("hakaru-s7-000001.log")).unwrap(),
            "ddd\neee\nfff\n"
        );
        std::fs::remove_dir_all(&d).unwrap();
    }
}
