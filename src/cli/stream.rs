//! `hakaru stream gen|send|run`: records for log pipelines. Flags → plain options →
//! [`crate::stream`]; nothing here but the mapping and the printing.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::{Args, Subcommand, ValueEnum};

use crate::spec::parse_count;
use crate::stream::record::{generate, Encoder, Format};

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

pub fn run(a: StreamArgs, _command_line: Vec<String>) -> Result<i32> {
    match a.command {
        StreamCommand::Gen(g) => gen(g),
    }
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
