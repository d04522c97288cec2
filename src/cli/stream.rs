//! `hakaru stream gen|send|run`: records for log pipelines. Flags → plain options →
//! [`crate::stream`]; nothing here but the mapping and the printing.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::{Args, Subcommand, ValueEnum};

use std::time::Duration;

use crate::spec::{parse_count, parse_duration};
use crate::stream::options::SendOptions;
use crate::stream::record::{generate, Encoder, Format};
use crate::stream::sink::Framing;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FormatArg {
    /// `t<sender>-<seq>-<µs> xxx…`: a letter, hex fields, padding.
    Raw,
    /// One JSON object per line: {"s":S,"q":Q,"t":µs,"p":"xxx…"}.
    Json,
}

impl From<FormatArg> for Format {
    fn from(f: FormatArg) -> Format {
        match f {
            FormatArg::Raw => Format::Raw,
            FormatArg::Json => Format::Json,
        }
    }
}

#[derive(Args, Debug)]
pub struct StreamArgs {
    #[command(subcommand)]
    pub command: StreamCommand,
}

#[derive(Subcommand, Debug)]
pub enum StreamCommand {
    /// Write records to stdout (or -o): each exactly --record-size bytes with its newline,
    /// carrying sender, sequence and send time as far as they fit.
    Gen(GenArgs),
    /// Push records into a pipeline: file:PATH, dir:PATH, tcp://HOST:PORT, udp://HOST:PORT, http://HOST:PORT/PATH.
    Send(SendArgs),
}

#[derive(Args, Debug)]
pub struct GenArgs {
    /// Bytes per record, the newline included.
    #[arg(long, default_value_t = 1024, value_name = "BYTES")]
    pub record_size: usize,

    /// Records to write (10k, 10M accepted).
    #[arg(short = 'n', long, value_parser = parse_count)]
    pub count: u64,

    #[arg(long, value_enum, default_value_t = FormatArg::Raw)]
    pub format: FormatArg,

    /// The sender id these records carry.
    #[arg(long, default_value_t = 0)]
    pub sender: u64,

    /// Senders in all (sets the id width; with sequence-only records, their shared sequence).
    #[arg(long, default_value_t = 1)]
    pub senders: u64,

    /// Write to this file instead of stdout.
    #[arg(short = 'o', long, value_name = "PATH")]
    pub output: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FramingArg {
    /// Each record ends with a newline.
    Newline,
    /// RFC 6587 octet counting: `LEN SP MSG` (rsyslog's imtcp, syslog-ng).
    Octet,
}

/// How records are made: shared by `send` and `run`.
#[derive(Args, Debug, Clone)]
pub struct RecordArgs {
    #[arg(long, value_enum, default_value_t = FormatArg::Raw)]
    pub format: FormatArg,

    /// Parallel senders, each with its own id, connection or file handle.
    #[arg(short = 'c', long, default_value_t = 1)]
    pub senders: u64,

    /// Records per sender (10k, 10M accepted); each of the seed's senders sent the whole file.
    #[arg(short = 'n', long, value_parser = parse_count)]
    pub count: Option<u64>,

    /// Send for this long (10s, 2m) instead of (or as well as) --count. Default 10 s.
    #[arg(short = 'd', long, value_parser = parse_duration)]
    pub duration: Option<Duration>,

    /// Open model: records per second over all senders (500k, or a profile like 10s@1000..50000).
    #[arg(long, value_name = "RECORDS_PER_S")]
    pub rate: Option<String>,

    /// tcp://: how records are framed.
    #[arg(long, value_enum, default_value_t = FramingArg::Newline)]
    pub framing: FramingArg,

    /// dir:PATH: a new file every N records (per sender).
    #[arg(long, default_value = "1M", value_parser = parse_count, value_name = "N")]
    pub rotate: u64,

    /// http://: records per POST.
    #[arg(long, default_value = "1000", value_parser = parse_count, value_name = "N")]
    pub batch: u64,
}

#[derive(Args, Debug)]
pub struct SendArgs {
    /// Where the records go.
    #[arg(long, value_name = "URI")]
    pub to: String,

    /// Bytes per record, the newline included.
    #[arg(long, default_value_t = 1024, value_name = "BYTES")]
    pub record_size: usize,

    #[command(flatten)]
    pub records: RecordArgs,

    /// Print the send report as JSON on stdout (the summary goes to stderr).
    #[arg(long)]
    pub json: bool,
}

impl RecordArgs {
    pub fn options(&self, to: &str, record_size: usize) -> SendOptions {
        SendOptions {
            to: to.to_string(),
            record_size,
            format: self.format.into(),
            senders: self.senders,
            count: self.count,
            duration: self.duration,
            rate: self.rate.clone(),
            framing: match self.framing {
                FramingArg::Newline => Framing::Newline,
                FramingArg::Octet => Framing::Octet,
            },
            rotate: self.rotate,
            batch: self.batch,
        }
    }
}

pub fn run(a: StreamArgs, _command_line: Vec<String>) -> Result<i32> {
    match a.command {
        StreamCommand::Gen(g) => gen(g),
        StreamCommand::Send(s) => send(s),
    }
}

fn send(a: SendArgs) -> Result<i32> {
    let opts = a.records.options(&a.to, a.record_size);
    let ready = opts.open()?;
    eprintln!(
        "hakaru: {}-byte records to {}, carrying {}",
        a.record_size,
        a.to,
        ready.plan().encoder.layout()
    );
    let stop = super::ctrl_c_stop();
    let report = ready.run(&stop)?;
    let summary = crate::report::stream::send_summary(&report, a.record_size);
    if a.json {
        eprint!("{summary}");
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{summary}");
    }
    Ok(if report.failed_senders > 0 || report.records() == 0 {
        crate::runner::exit::FAILED
    } else if stop.is_triggered() {
        crate::runner::exit::INTERRUPTED
    } else {
        0
    })
}

fn gen(g: GenArgs) -> Result<i32> {
    if g.sender >= g.senders.max(1) {
        return Err(crate::stream::StreamError::Flag {
            flag: "--sender",
            why: format!("{} is not below --senders {}", g.sender, g.senders),
        }
        .into());
    }
    let enc = Encoder::new(g.format.into(), g.record_size, g.senders, Some(g.count))?;
    eprintln!(
        "hakaru: {} records of {} bytes carry {}",
        g.count,
        g.record_size,
        enc.layout()
    );
    match &g.output {
        Some(p) => {
            let f = std::fs::File::create(p).with_context(|| format!("-o {}", p.display()))?;
            let mut w = std::io::BufWriter::new(f);
            generate(&mut w, &enc, g.sender, g.count)?;
            w.flush()?;
        }
        None => {
            let out = std::io::stdout();
            let mut lock = out.lock();
            generate(&mut lock, &enc, g.sender, g.count)?;
        }
    }
    Ok(0)
}
