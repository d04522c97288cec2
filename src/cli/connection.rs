//! `--http2` and `--streams`: how hakaru connects, on every command that takes the
//! request flags (`run`, `ramp`) and on `bulk`. Parsed here, handed on as the engine's plain
//! [`ConnectionSettings`].

use std::time::Duration;

use clap::Args;

use crate::engine::{ConnectionSettings, MAX_STREAMS};
use crate::spec::parse_duration;

#[derive(Args, Debug, Clone, Default)]
pub struct ConnectionArgs {
    /// Speak HTTP/2: h2c with prior knowledge to http:// targets; to https:// ones,
    /// h2 offered first in TLS ALPN (a server that picks HTTP/1.1 gets HTTP/1.1).
    #[arg(long, conflicts_with = "no_keep_alive", help_heading = "Connection")]
    pub http2: bool,

    /// With --http2: clients that share one connection, each request on a stream of
    /// its own (h2load's -m). `-c 100 --streams 10` opens 10 connections.
    #[arg(
        long,
        requires = "http2",
        default_value_t = 1,
        value_name = "N",
        value_parser = clap::value_parser!(u32).range(1..=MAX_STREAMS as i64),
        help_heading = "Connection"
    )]
    pub streams: u32,

    /// Let answers gather up to DURATION (e.g. 200us) before a worker wakes for
    /// them: many answers per wake-up costs the client and a saturated server less
    /// CPU a request. Latency stays exact (each answer's end is the kernel's receive
    /// time); the closed model sends its next request up to DURATION later, so a
    /// server answering faster than that sees less load. Plain http:// only.
    #[arg(long, value_name = "DURATION", value_parser = parse_coalesce, help_heading = "Connection")]
    pub coalesce: Option<Duration>,
}

/// The longest `--coalesce`: past it the sleep is a pause in the load, not a
/// gathering of answers.
pub const MAX_COALESCE: Duration = Duration::from_millis(1);

fn parse_coalesce(s: &str) -> Result<Duration, String> {
    let d = parse_duration(s)?;
    if d.is_zero() {
        return Err("must be more than 0 (leave it out not to coalesce)".into());
    }
    if d > MAX_COALESCE {
        return Err(format!(
            "at most {} µs: longer is a pause in the load, not a gathering of answers",
            MAX_COALESCE.as_micros()
        ));
    }
    Ok(d)
}

impl ConnectionArgs {
    /// The plain settings these flags say.
    pub fn settings(&self) -> ConnectionSettings {
        ConnectionSettings {
            http2: self.http2,
            streams: self.streams as usize,
            coalesce: self.coalesce,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        c: ConnectionArgs,
        /// As the request flags have it: --http2 refuses it.
        #[arg(long)]
        no_keep_alive: bool,
    }

    #[test]
    fn streams_needs_http2_and_a_count_in_range() {
        let ok = Cli::try_parse_from(["x", "--http2", "--streams", "10"]).unwrap();
        assert_eq!(
            ok.c.settings(),
            ConnectionSettings {
                http2: true,
                streams: 10,
                coalesce: None
            }
        );
        assert_eq!(
            Cli::try_parse_from(["x"]).unwrap().c.settings(),
            ConnectionSettings::default()
        );
        let e = Cli::try_parse_from(["x", "--streams", "10"]).err().unwrap();
        assert!(e.to_string().contains("--http2"), "{e}");
        let e = Cli::try_parse_from(["x", "--http2", "--streams", "0"])
            .err()
            .unwrap();
        assert!(e.to_string().contains("--streams"), "{e}");
        let e = Cli::try_parse_from(["x", "--http2", "--no-keep-alive"])
            .err()
            .unwrap();
        assert!(e.to_string().contains("cannot be used with"), "{e}");
    }
}
