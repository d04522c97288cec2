//! `hakaru stream gen|send|run`: records for log pipelines. Flags → plain options →
//! [`crate::stream`]; nothing here but the mapping and the printing.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::{Args, Subcommand, ValueEnum};

use std::time::Duration;

use super::args::is_stdout;
use crate::report::stream::{experiment_table, grouped, interval_line};
use crate::result::csv::CsvFormat;
use crate::result::store::Outputs;
use crate::result::stream::{to_csv, write_files, Point, Repeat, SendSection, StreamResult};
use crate::spec::{parse_count, parse_duration};
use crate::stream::experiment::{parse_sizes, ExperimentObserver, ExperimentOptions};
use crate::stream::kafka::{Acks, KafkaSendOptions};
use crate::stream::options::SendOptions;
use crate::stream::record::{generate, Encoder, Format};
use crate::stream::sink::Framing;
use crate::stream::watch::WatchOptions;

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
    /// Push records into a pipeline: file:PATH, dir:PATH, tcp://HOST:PORT, udp://HOST:PORT, http://HOST:PORT/PATH, kafka://HOST:PORT/TOPIC.
    Send(SendArgs),
    /// The whole experiment: for each --record-sizes, --repeat times, send into --to and watch --watch; a table of records/s and MiB/s per size.
    Run(RunArgs),
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

    /// Records per sender, not in all (10k, 10M accepted); each of the seed's senders
    /// sent the whole file.
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

    /// http:// sinks: speak HTTP/2 (h2c with prior knowledge), as `run --http2` does.
    #[arg(long, help_heading = "Connection")]
    pub http2: bool,

    /// With --http2: senders that share one connection, each batch on a stream of its own.
    #[arg(
        long,
        requires = "http2",
        default_value_t = 1,
        value_name = "N",
        value_parser = clap::value_parser!(u32).range(1..=crate::engine::MAX_STREAMS as i64),
        help_heading = "Connection"
    )]
    pub streams: u32,

    /// kafka://: the acknowledgement each producer waits for (Kafka's acks).
    #[arg(long, value_enum, default_value_t = AcksArg::All)]
    pub acks: AcksArg,

    /// kafka://: batch.size, bytes a partition's batch may grow to (default librdkafka's 1 MB).
    #[arg(long, value_parser = parse_count, value_name = "BYTES")]
    pub kafka_batch_bytes: Option<u64>,

    /// kafka://: linger.ms, how long a batch waits to fill (5ms, 0; default librdkafka's 5 ms).
    #[arg(long, value_parser = parse_duration, value_name = "DURATION")]
    pub linger: Option<Duration>,

    /// kafka://: create the topic with this many partitions if it does not exist
    /// (otherwise a missing topic is an error).
    #[arg(long, value_name = "PARTITIONS")]
    pub create_topic: Option<u32>,

    /// kafka://: any other librdkafka producer setting (compression.type=lz4, …); repeatable.
    #[arg(long, value_name = "KEY=VALUE")]
    pub kafka_config: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum AcksArg {
    /// No acknowledgement: sent is counted as delivered.
    #[value(name = "0")]
    Zero,
    /// The partition leader's.
    #[value(name = "1")]
    One,
    /// Every in-sync replica's (Kafka's default).
    All,
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

    /// Write the hakaru-stream result: the CSV (a row per sender) here and the JSON
    /// beside it, for `hakaru report` and `hakaru compare`; `-` prints the JSON result on
    /// stdout (for `hakaru merge -`), the summary on stderr.
    #[arg(
        short = 'o',
        long = "output",
        alias = "output-path",
        value_name = "PATH"
    )]
    pub output_path: Option<PathBuf>,

    /// Run as load machine K of N: this machine's --senders get ids of their own
    /// ((K-1)×senders …), so `watch --verify --senders N×senders` tells all apart, and
    /// it sends its share of --rate (the one-machine timetable split N ways). --count
    /// stays per sender: N shards send N times as many records.
    #[arg(long, value_name = "K/N", value_parser = crate::spec::parse_shard)]
    pub shard: Option<crate::result::Shard>,

    /// Send the first record at this moment: 2026-11-23T10:00:00Z, or +30s from now.
    /// Shards sharing a clock (NTP) start together; a late start is recorded.
    #[arg(long, value_name = "TIME", value_parser = crate::spec::parse_start_at)]
    pub start_at: Option<crate::spec::StartAt>,
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
            connection: crate::engine::ConnectionSettings {
                http2: self.http2,
                streams: self.streams as usize,
                coalesce: None,
            },
            shard: None,
            start_at: None,
            kafka: KafkaSendOptions {
                acks: match self.acks {
                    AcksArg::Zero => Acks::Zero,
                    AcksArg::One => Acks::One,
                    AcksArg::All => Acks::All,
                },
                batch_bytes: self.kafka_batch_bytes,
                linger: self.linger,
                create_topic: self.create_topic,
                config: self.kafka_config.clone(),
            },
        }
    }
}

/// `-n` counts records per sender here (the seed's senders each sent the whole
/// file), where `run -n` counts requests in all: said when it makes a difference.
fn per_sender_count(count: Option<u64>, senders: u64) -> String {
    match count {
        Some(n) if senders > 1 => format!(
            "; -n {} per sender: {} records in all",
            crate::report::stream::grouped(n),
            crate::report::stream::grouped(n.saturating_mul(senders))
        ),
        _ => String::new(),
    }
}

pub fn run(a: StreamArgs, _command_line: Vec<String>) -> Result<i32> {
    match a.command {
        StreamCommand::Gen(g) => gen(g),
        StreamCommand::Send(s) => send(s, _command_line),
        StreamCommand::Run(r) => run_experiment(r, _command_line),
    }
}

fn send(a: SendArgs, command_line: Vec<String>) -> Result<i32> {
    if a.json && is_stdout(a.output_path.as_deref()) {
        anyhow::bail!("--json and -o - both print on stdout: give one of them");
    }
    // Every path the end will write, checked before any record is sent.
    super::finish::check_outputs(a.output_path.as_deref(), &Default::default(), &[], &[])?;
    let mut opts = a.records.options(&a.to, a.record_size);
    opts.shard = a.shard;
    opts.start_at = a.start_at;
    let at = opts.start_moment()?;
    let ready = opts.open()?;
    let plan = ready.plan();
    eprintln!(
        "hakaru: {}-byte records to {}, carrying {}{}{}",
        a.record_size,
        a.to,
        plan.encoder.layout(),
        per_sender_count(a.records.count, a.records.senders),
        match a.shard {
            Some(s) => format!(
                "; shard {s}: senders {}–{} of {}",
                plan.first_sender(),
                plan.first_sender() + plan.senders - 1,
                plan.all_senders()
            ),
            None => String::new(),
        }
    );
    if let Some(at) = at {
        eprintln!(
            "hakaru: the first record leaves at {}",
            crate::sysinfo::rfc3339(at)
        );
    }
    let stop = super::ctrl_c_stop();
    let layout = ready.plan().encoder.layout().to_string();
    let started_at = crate::sysinfo::now_rfc3339();
    let sent = ready.run_at(at, &stop)?;
    let report = sent.report;
    if let Some(late) = sent.start_late_s.filter(|l| *l >= 0.001) {
        eprintln!("hakaru: started {late:.3} s after --start-at");
    }
    let summary = crate::report::stream::send_summary(&report, a.record_size);
    // `-o -`: the whole hakaru-stream result on stdout (a pod's log, for `hakaru merge -`).
    let through = is_stdout(a.output_path.as_deref());
    if let Some(p) = &a.output_path {
        let mut result = StreamResult::new(command_line, started_at);
        result.send = Some(SendSection {
            to: a.to.clone(),
            record_size: a.record_size,
            format: match opts.format {
                Format::Raw => "raw",
                Format::Json => "json",
            }
            .into(),
            layout,
            count: opts.count,
            rate: opts.rate.clone(),
            shard: a.shard,
            start_late_s: sent.start_late_s,
            report: report.clone(),
        });
        result.complete = !stop.is_triggered();
        if through {
            println!("{}", serde_json::to_string_pretty(&result)?);
        } else {
            let files = Outputs::beside(p, CsvFormat::Full);
            write_files(&result, &files.csv, &files.json)
                .with_context(|| format!("writing {}", files.csv.display()))?;
            eprintln!(
                "Results: {} and {}",
                files.csv.display(),
                files.json.display()
            );
        }
    }
    if through {
        eprint!("{summary}");
    } else if a.json {
        eprint!("{summary}");
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{summary}");
    }
    // Interrupted first, as on the other commands: what was measured is printed above.
    Ok(if stop.is_triggered() {
        crate::runner::exit::INTERRUPTED
    } else if report.failed_senders > 0 || report.records() == 0 {
        crate::runner::exit::FAILED
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

#[derive(Args, Debug)]
pub struct RunArgs {
    /// Where the records go (as `stream send --to`).
    #[arg(long, value_name = "URI")]
    pub to: String,

    /// Where they are counted (as `watch SOURCE`).
    #[arg(long = "watch", value_name = "SOURCE")]
    pub source: String,

    /// Record sizes in bytes, newline included; one row of the table each.
    #[arg(long, default_value = "10,1024,4096", value_name = "B1,B2,...")]
    pub record_sizes: String,

    /// Send-and-watch rounds per record size.
    #[arg(long, default_value_t = 1)]
    pub repeat: u32,

    #[command(flatten)]
    pub records: RecordArgs,

    /// One line per interval.
    #[arg(short = 'i', long, default_value = "10s", value_parser = parse_duration)]
    pub interval: Duration,

    /// Not measured at the start of each round.
    #[arg(long, default_value = "20s", value_parser = parse_duration)]
    pub warmup: Duration,

    /// The measured window of each round.
    #[arg(long, default_value = "100s", value_parser = parse_duration)]
    pub window: Duration,

    /// Check every record at the receiving end: loss, duplicates, order, latency.
    #[arg(long)]
    pub verify: bool,

    /// The receiver's process: its CPU goes in the timeline.
    #[arg(long)]
    pub pid: Option<u32>,

    /// Write the CSV (the table) here and the JSON (with every timeline) beside it,
    /// after every round; `-` prints the CSV on stdout at the end.
    #[arg(short = 'o', long = "output", alias = "output-path")]
    pub output_path: Option<PathBuf>,

    /// Print the JSON result on stdout (the text goes to stderr).
    #[arg(long)]
    pub json: bool,

    /// No line per interval.
    #[arg(short = 'q', long)]
    pub quiet: bool,
}

/// Prints the experiment as it goes and rewrites its files after every round.
struct Progress<'a> {
    quiet: bool,
    to_stderr: bool,
    files: Option<&'a crate::result::store::Outputs>,
    write_error: Option<anyhow::Error>,
}

impl Progress<'_> {
    fn say(&self, text: &str) {
        if self.to_stderr {
            eprint!("{text}");
        } else {
            print!("{text}");
        }
    }
}

impl ExperimentObserver for Progress<'_> {
    fn point(&mut self, size: usize, repeat: u32, p: &Point) {
        if !self.quiet {
            self.say(&format!("{size:>6} B #{repeat} {}", interval_line(p)));
        }
    }

    fn repeat_done(&mut self, size: usize, repeat: u32, r: &Repeat) {
        let w = &r.watch;
        let mut line = format!(
            "{size} B, round {repeat}: {} records/s, {:.1} MiB/s over {:.1} s; sent {}, arrived {}",
            grouped(w.mean.records_per_s.round() as u64),
            w.mean.mib_per_s,
            w.runs.first().map_or(0.0, |x| x.to_s - x.from_s),
            grouped(r.send.records()),
            grouped(w.total_records),
        );
        if let Some(v) = &w.verify {
            line.push_str(&format!(
                ", {} lost, {} duplicated",
                grouped(v.lost),
                grouped(v.duplicated)
            ));
        }
        line.push('\n');
        self.say(&line);
    }

    fn progress(&mut self, result: &StreamResult) {
        if let Some(f) = self.files {
            if let Err(e) = write_files(result, &f.csv, &f.json) {
                self.write_error =
                    Some(anyhow::Error::new(e).context(format!("writing {}", f.csv.display())));
            }
        }
    }
}

fn run_experiment(a: RunArgs, command_line: Vec<String>) -> Result<i32> {
    let csv_stdout = is_stdout(a.output_path.as_deref());
    super::finish::check_outputs(a.output_path.as_deref(), &Default::default(), &[], &[])?;
    if a.json && csv_stdout {
        anyhow::bail!("--json and -o - both print on stdout: give one of them");
    }
    let mut send = a.records.options(&a.to, 0);
    // Without a count or a duration the senders go on for the whole round.
    if send.count.is_none() && send.duration.is_none() {
        send.duration = Some(a.warmup + a.window + a.interval);
    }
    let opts = ExperimentOptions {
        send,
        watch: WatchOptions {
            source: a.source.clone(),
            interval: a.interval,
            warmup: a.warmup,
            window: a.window,
            repeat: 1,
            verify: a.verify,
            expect: None,
            senders: None,
            pid: a.pid,
            recv_buffer: None,
            from_start: false,
            record_size: None,
            machine: true,
        },
        record_sizes: parse_sizes(&a.record_sizes)?,
        repeat: a.repeat,
    };
    opts.check()?;
    let files = a
        .output_path
        .as_ref()
        .filter(|_| !csv_stdout)
        .map(|p| Outputs::beside(p, CsvFormat::Full));
    let mut obs = Progress {
        quiet: a.quiet,
        to_stderr: a.json || csv_stdout,
        files: files.as_ref(),
        write_error: None,
    };
    let stop = super::ctrl_c_stop();
    let mut result = StreamResult::new(command_line, crate::sysinfo::now_rfc3339());
    opts.run(&mut result, &stop, &mut obs)?;
    obs.progress(&result);
    if let Some(e) = obs.write_error.take() {
        return Err(e);
    }
    obs.say(&experiment_table(&result.sizes));
    if let Some(f) = &files {
        obs.say(&format!(
            "Results: {} and {}\n",
            f.csv.display(),
            f.json.display()
        ));
    }
    if csv_stdout {
        print!("{}", to_csv(&result));
    }
    if a.json {
        println!("{}", serde_json::to_string_pretty(&result)?);
    }
    let failed = result.sizes.iter().flat_map(|s| &s.repeats).any(|r| {
        r.send.failed_senders > 0
            || r.watch
                .verify
                .as_ref()
                .is_some_and(|v| v.lost > 0 || v.duplicated > 0)
    });
    Ok(if stop.is_triggered() {
        crate::runner::exit::INTERRUPTED
    } else if failed {
        crate::runner::exit::FAILED
    } else {
        0
    })
}
