//! `hakaru watch SOURCE`: what arrives at the far end of a pipeline, per interval, per
//! window, and with `--verify` record by record. Flags → [`WatchOptions`] →
//! [`crate::stream::watch`]; printing and the files here.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, Result};
use clap::Args;

use super::args::is_stdout;
use crate::report::stream::{interval_line, verify_block, watch_table};
use crate::result::csv::CsvFormat;
use crate::result::store::Outputs;
use crate::result::stream::{to_csv, write_files, StreamResult};
use crate::spec::{parse_count, parse_duration};
use crate::stream::watch::WatchOptions;

#[derive(Args, Debug)]
pub struct WatchArgs {
    /// What to watch: file:PATH (across truncation and rotation), dir:PATH,
    /// listen:tcp://127.0.0.1:PORT or listen:udp://127.0.0.1:PORT (hakaru as the receiver),
    /// kafka://HOST:PORT/TOPIC (a consumer from the topic's end).
    #[arg(value_name = "SOURCE")]
    pub source: String,

    /// One line per interval.
    #[arg(short = 'i', long, default_value = "10s", value_parser = parse_duration)]
    pub interval: Duration,

    /// Not measured at the start: transfers take a while to reach their speed.
    #[arg(long, default_value = "20s", value_parser = parse_duration)]
    pub warmup: Duration,

    /// Each measured window; its mean is records (bytes) counted over it ÷ its length.
    #[arg(long, default_value = "100s", value_parser = parse_duration)]
    pub window: Duration,

    /// Windows back to back after the warm-up, each with its own mean.
    #[arg(long, default_value_t = 1)]
    pub repeat: u32,

    /// Parse every record: per sender lost, duplicated and out-of-order sequence numbers,
    /// and end-to-end latency from the records' send times.
    #[arg(long)]
    pub verify: bool,

    /// Records each sender sends (the send's --count): the tail that never came counts
    /// as lost, and the watch ends once all have arrived.
    #[arg(long, value_parser = parse_count, value_name = "N")]
    pub expect: Option<u64>,

    /// How many senders there are (with --expect: a sender of which nothing came is lost whole).
    #[arg(long, value_name = "K")]
    pub senders: Option<u32>,

    /// The receiver's process: its CPU goes in the timeline.
    #[arg(long)]
    pub pid: Option<u32>,

    /// listen:udp: the socket's receive buffer, bytes (the kernel doubles it, and has a floor).
    #[arg(long, value_name = "BYTES")]
    pub recv_buffer: Option<usize>,

    /// file:/dir:: count what the files hold already too (default: only what is added);
    /// kafka://: read the topic from its beginning.
    #[arg(long, alias = "from-beginning")]
    pub from_start: bool,

    /// file:/dir: records are this many bytes: count them from the files' sizes and read
    /// nothing (the seed's `ls -l` loop; ignored with --verify, which reads every line).
    #[arg(long, value_name = "BYTES")]
    pub record_size: Option<u64>,

    /// Leave /proc's memory, disk and network out of the timeline.
    #[arg(long)]
    pub no_machine: bool,

    /// Write the CSV (the timeline) here and the JSON beside it; `-` prints the CSV on stdout.
    #[arg(short = 'o', long = "output", alias = "output-path")]
    pub output_path: Option<PathBuf>,

    /// Print the JSON result on stdout (the text goes to stderr).
    #[arg(long)]
    pub json: bool,

    /// No line per interval.
    #[arg(short = 'q', long)]
    pub quiet: bool,
}

impl WatchArgs {
    pub fn options(&self) -> WatchOptions {
        WatchOptions {
            source: self.source.clone(),
            interval: self.interval,
            warmup: self.warmup,
            window: self.window,
            repeat: self.repeat,
            verify: self.verify,
            expect: self.expect,
            senders: self.senders,
            pid: self.pid,
            recv_buffer: self.recv_buffer,
            from_start: self.from_start,
            record_size: self.record_size,
            machine: !self.no_machine,
        }
    }
}

pub fn run(a: WatchArgs, command_line: Vec<String>) -> Result<i32> {
    let csv_stdout = is_stdout(a.output_path.as_deref());
    if a.json && csv_stdout {
        anyhow::bail!("--json and -o - both print on stdout: give one of them");
    }
    super::finish::check_outputs(a.output_path.as_deref(), &Default::default(), &[], &[])?;
    let machine_out = a.json || csv_stdout;
    let say = |text: &str| {
        if machine_out {
            eprint!("{text}");
        } else {
            print!("{text}");
        }
    };
    let opts = a.options();
    let (running, plan) = opts.open()?;
    if let Some(addr) = running.local_addr {
        // Scripts and tests that bind port 0 read the real one here.
        eprintln!("hakaru: listening on {addr}");
    }
    if let Some(note) = &running.note {
        eprintln!("hakaru: {note}");
    }
    let files = a
        .output_path
        .as_ref()
        .filter(|_| !csv_stdout)
        .map(|p| Outputs::beside(p, CsvFormat::Full));
    let stop = super::ctrl_c_stop();
    let mut result = StreamResult::new(command_line, crate::sysinfo::now_rfc3339());
    let quiet = a.quiet;
    let report = opts.watch(running, &plan, &stop, &|| false, &mut |p| {
        if !quiet {
            say(&interval_line(p));
        }
    });
    let mut text = watch_table(&report);
    if let Some(v) = &report.verify {
        text.push_str(&verify_block(v));
    }
    say(&text);
    let failed = report
        .verify
        .as_ref()
        .is_some_and(|v| v.lost > 0 || v.duplicated > 0);
    result.watch = Some(report);
    result.complete = !stop.is_triggered();
    if let Some(out) = &files {
        write_files(&result, &out.csv, &out.json)
            .with_context(|| format!("writing {}", out.csv.display()))?;
        say(&format!(
            "Results: {} and {}\n",
            out.csv.display(),
            out.json.display()
        ));
    }
    if csv_stdout {
        print!("{}", to_csv(&result));
    }
    if a.json {
        println!("{}", serde_json::to_string_pretty(&result)?);
    }
    Ok(if stop.is_triggered() {
        crate::runner::exit::INTERRUPTED
    } else if failed {
        crate::runner::exit::FAILED
    } else {
        0
    })
}
