//! `hakaru ab`: ApacheBench's flags with ApacheBench's defaults and report. The flags
//! become [`crate::spec::ab::AbOptions`], which become the same run options `run`
//! uses; the load goes through the same runner and engine. Before the load, one
//! uncounted GET reads what ab's header shows (Server, document length).

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, Result};
use clap::Args;

use crate::console::Console;
use crate::engine::{ConnectionSettings, MAX_STREAMS};
use crate::http::url::parse_http_url;
use crate::http::Fetched;
use crate::report::run::text::ab::{ab_summary, percentile_csv, write_gnuplot, AbFacts};
use crate::spec::ab::{AbOptions, DEFAULT_TIMEOUT};
use crate::spec::{parse_count, parse_duration};

#[derive(Args, Debug)]
pub struct AbArgs {
    /// http[s]://host[:port]/path
    #[arg(value_name = "URL")]
    pub url: String,

    /// Number of requests to perform (ab's default: 1; 50000 with -t).
    #[arg(short = 'n', value_parser = parse_count, value_name = "REQUESTS")]
    pub requests: Option<u64>,

    /// Number of multiple requests to make at a time.
    #[arg(short = 'c', default_value_t = 1, value_name = "CONCURRENCY")]
    pub concurrency: usize,

    /// Seconds to max. to spend on benchmarking; implies -n 50000 unless -n is given.
    #[arg(short = 't', value_parser = parse_duration, value_name = "TIMELIMIT")]
    pub timelimit: Option<Duration>,

    /// Seconds to max. wait for each response (ab's default: 30).
    #[arg(short = 's', long = "timeout", value_parser = parse_duration, value_name = "TIMEOUT")]
    pub timeout: Option<Duration>,

    /// File containing data to POST. Remember also to set -T.
    #[arg(short = 'p', value_name = "POSTFILE")]
    pub post_file: Option<PathBuf>,

    /// File containing data to PUT. Remember also to set -T.
    #[arg(short = 'u', value_name = "PUTFILE")]
    pub put_file: Option<PathBuf>,

    /// Content-type header to use for POST/PUT data (default: text/plain).
    #[arg(short = 'T', value_name = "CONTENT_TYPE")]
    pub content_type: Option<String>,

    /// Add an arbitrary header line, eg. 'Accept-Encoding: gzip'. Repeatable.
    #[arg(short = 'H', value_name = "ATTRIBUTE")]
    pub headers: Vec<String>,

    /// Add cookie, eg. 'Apache=1234'. Repeatable (joined into one Cookie header).
    #[arg(short = 'C', value_name = "ATTRIBUTE")]
    pub cookies: Vec<String>,

    /// Add Basic WWW Authentication, the attributes are a colon separated username and password.
    #[arg(short = 'A', value_name = "ATTRIBUTE")]
    pub auth: Option<String>,

    /// Use HEAD instead of GET.
    #[arg(short = 'i')]
    pub head: bool,

    /// Method name.
    #[arg(short = 'm', value_name = "METHOD")]
    pub method: Option<String>,

    /// Use HTTP KeepAlive feature (without it: one connection per request).
    #[arg(short = 'k')]
    pub keep_alive: bool,

    /// Accept variable document length (accepted: hakaru never counts a length change as a failure).
    #[arg(short = 'l')]
    pub variable_length: bool,

    /// Don't exit on socket receive errors (accepted: hakaru never exits on them).
    #[arg(short = 'r')]
    pub keep_going: bool,

    /// Do not show progress when doing more than 150 requests.
    #[arg(short = 'q')]
    pub quiet: bool,

    /// Output CSV file with percentages served (0-100 %, ms), as ab writes it.
    #[arg(short = 'e', value_name = "CSV_FILE")]
    pub csv: Option<PathBuf>,

    /// Output collected data to gnuplot format file (ab's columns; see the README for how they are rebuilt).
    #[arg(short = 'g', value_name = "GNUPLOT_FILE")]
    pub gnuplot: Option<PathBuf>,

    /// Statuses that count as success: codes, ranges or classes (200,404 or
    /// 200-299,404 or 2xx). Every other status is a failure in the summary, the reports,
    /// the thresholds on errors and the exit code.
    #[arg(long, value_name = "CODES", default_value = "200-399", value_parser = crate::spec::parse_ok_status)]
    pub ok_status: crate::stats::OkStatus,

    /// Write hakaru's result here (the CSV, and the JSON beside it), as `run -o` does;
    /// `-` prints the CSV on stdout instead of ab's report (which goes to stderr).
    #[arg(
        short = 'o',
        long = "output",
        alias = "output-path",
        value_name = "PATH"
    )]
    pub output_path: Option<PathBuf>,

    /// Print hakaru's whole result as JSON on stdout; ab's report goes to stderr.
    #[arg(long)]
    pub json: bool,

    /// Speak HTTP/2, as `run --http2` does (h2c with prior knowledge to http://, h2
    /// offered first in TLS ALPN to https://). Needs -k: HTTP/2 keeps its connections.
    #[arg(long)]
    pub http2: bool,

    /// With --http2: clients that share one connection, each request on a stream of
    /// its own (h2load's -m). `-c 100 --streams 10` opens 10 connections.
    #[arg(
        long,
        requires = "http2",
        default_value_t = 1,
        value_name = "N",
        value_parser = clap::value_parser!(u32).range(1..=MAX_STREAMS as i64)
    )]
    pub streams: u32,

    #[command(flatten)]
    pub thresholds: super::threshold::ThresholdArgs,

    #[command(flatten)]
    pub live: super::args::LiveArgs,
}

impl AbArgs {
    /// The plain options these flags say.
    pub fn options(&self) -> AbOptions {
        AbOptions {
            url: self.url.clone(),
            requests: self.requests,
            concurrency: self.concurrency,
            timelimit: self.timelimit,
            post_file: self.post_file.clone(),
            put_file: self.put_file.clone(),
            content_type: self.content_type.clone(),
            headers: self.headers.clone(),
            cookies: self.cookies.clone(),
            auth: self.auth.clone(),
            timeout: self.timeout.unwrap_or(DEFAULT_TIMEOUT),
            keep_alive: self.keep_alive,
            head: self.head,
            method: self.method.clone(),
            ok_status: self.ok_status,
            output: self
                .output_path
                .clone()
                .filter(|p| !crate::outfile::is_through(p)),
            connection: ConnectionSettings {
                http2: self.http2,
                streams: self.streams as usize,
                coalesce: None,
            },
        }
    }
}

pub fn run(args: AbArgs, command_line: Vec<String>) -> Result<i32> {
    let ab = args.options();
    args.thresholds.check(false)?;
    let files: Vec<(&'static str, &std::path::Path)> = [("-e", &args.csv), ("-g", &args.gnuplot)]
        .into_iter()
        .filter_map(|(f, p)| Some((f, p.as_deref()?)))
        .collect();
    let ready = ab.run_options(command_line)?.build()?;
    // Every path the end will write, checked after the flags and before any load.
    let inputs: Vec<(&str, &std::path::Path)> = [
        ("the -p file", &args.post_file),
        ("the -u file", &args.put_file),
    ]
    .into_iter()
    .filter_map(|(what, p)| Some((what, p.as_deref()?)))
    .collect();
    super::finish::check_outputs(
        args.output_path.as_deref(),
        &args.thresholds,
        &files,
        &inputs,
    )?;
    let csv_to_stdout = super::args::is_stdout(args.output_path.as_deref());
    // ab's report goes to stderr when stdout carries the result (--json, -o -).
    let output = super::args::OutputArgs {
        json: args.json,
        ..Default::default()
    };
    let human = super::args::Human::new(&output, csv_to_stdout)?;
    // ab's report is on stdout: --live-out - would mix into it.
    let mut live = args.live.start(Some(if human.machine() {
        "--json or -o -"
    } else {
        "ab's report"
    }))?;
    let parts = parse_http_url(&ab.url).map_err(anyhow::Error::msg)?;
    let port = parts.port.unwrap_or(if parts.https { 443 } else { 80 });
    let mut facts = AbFacts {
        server_software: None,
        not_asked: None,
        hostname: parts.host.clone(),
        port,
        path: parts.path.clone(),
        document_length: None,
        variable_length: args.variable_length,
        body_sent: ab.post_file.is_some() || ab.put_file.is_some(),
    };
    if !ab.safe_to_look() {
        facts.not_asked = Some(format!(
            "hakaru sends no uncounted {} before the load",
            ab.method()
        ));
    } else if parts.https {
        facts.not_asked = Some("the look before the load speaks plain http only".into());
    } else if ab.connection.http2 {
        // An h2c-only server (serve --http2) would not answer it: no look, rather
        // than a note that blames the server.
        facts.not_asked = Some("the look before the load speaks HTTP/1.1 only".into());
    } else {
        match Fetched::request(&ab.url, "GET", &ab.header_pairs()?, ab.timeout) {
            Ok(f) => {
                facts.server_software = Some(f.server.unwrap_or_default());
                // A HEAD response has no body: ab reads 0 bytes.
                facts.document_length = Some(if ab.head { 0 } else { f.body.len() as u64 });
            }
            Err(e) => facts.not_asked = Some(format!("no answer before the load: {e}")),
        }
    }
    human.print(&format!(
        "This is hakaru {} running ApacheBench's command: ab's flags, defaults and report.\n\n",
        env!("CARGO_PKG_VERSION")
    ));
    human.print(&format!("Benchmarking {} (be patient)\n", parts.host));
    let console = Console::new(false, 0, 0)
        .quiet(args.quiet)
        .ab_heartbeat(ab.budget());
    let mut run = args
        .thresholds
        .run_load_with(&ready, console, live.observers())?;
    live.finish();
    let mut extra = Vec::new();
    if let Some(step) = run.steps.last() {
        if let Some(path) = &args.csv {
            let csv = percentile_csv(step).map_err(anyhow::Error::msg)?;
            extra.push((path.clone(), csv.into_bytes()));
        }
        if let Some(path) = &args.gnuplot {
            let mut tsv = Vec::new();
            write_gnuplot(step, &mut tsv)
                .with_context(|| format!("-g {}: cannot write", path.display()))?;
            extra.push((path.clone(), tsv));
        }
    }
    let finish = super::finish::Finish {
        extra,
        files: ready.run.outputs.as_ref(),
        through: super::run::through(
            args.output_path.as_deref(),
            super::args::FormatArg::Full,
            args.json,
        ),
        ..super::finish::Finish::new(&args.thresholds, human, crate::runner::exit_code(&run))
    };
    super::finish::finish(&mut run, finish, |run| match run.steps.last() {
        Some(step) => format!("\n\n{}", ab_summary(run, step, &facts)),
        None => String::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::super::{Cli, Command};
    use clap::Parser;
    use std::time::Duration;

    #[test]
    fn abs_flags_become_ab_options() {
        let cli = Cli::try_parse_from([
            "hakaru",
            "ab",
            "-c",
            "100",
            "-n",
            "100000",
            "-k",
            "-t",
            "5",
            "-s",
            "2",
            "-H",
            "A: 1",
            "-H",
            "B: 2",
            "-C",
            "x=1",
            "-A",
            "u:p",
            "-p",
            "b.json",
            "-T",
            "application/json",
            "-l",
            "-q",
            "-r",
            "-e",
            "p.csv",
            "-g",
            "p.tsv",
            "http://0.0.0.0:10041/d/status",
        ])
        .expect("parses");
        let Command::Ab(a) = cli.command else {
            panic!("ab")
        };
        let o = a.options();
        assert_eq!(o.concurrency, 100);
        assert_eq!(o.requests, Some(100_000));
        assert!(o.keep_alive);
        assert_eq!(o.timelimit, Some(Duration::from_secs(5)));
        assert_eq!(o.timeout, Duration::from_secs(2));
        assert_eq!(o.headers, vec!["A: 1", "B: 2"]);
        assert_eq!(o.cookies, vec!["x=1"]);
        assert_eq!(o.auth.as_deref(), Some("u:p"));
        assert_eq!(o.content_type.as_deref(), Some("application/json"));
        assert!(a.variable_length && a.quiet && a.keep_going);
        let cli = Cli::try_parse_from(["hakaru", "ab", "http://h/"]).expect("parses");
        let Command::Ab(a) = cli.command else {
            panic!("ab")
        };
        let o = a.options();
        assert_eq!((o.concurrency, o.budget(), o.keep_alive), (1, 1, false));
        assert_eq!(o.timeout, Duration::from_secs(30));
        assert!(!o.connection.http2);
        let cli = Cli::try_parse_from([
            "hakaru",
            "ab",
            "-k",
            "--http2",
            "--streams",
            "4",
            "http://h/",
        ])
        .expect("parses");
        let Command::Ab(a) = cli.command else {
            panic!("ab")
        };
        assert_eq!(
            a.options().connection,
            crate::engine::ConnectionSettings {
                http2: true,
                streams: 4,
                coalesce: None
            }
        );
        let Err(e) = Cli::try_parse_from(["hakaru", "ab", "--streams", "4", "http://h/"]) else {
            panic!("--streams needs --http2")
        };
        assert!(e.to_string().contains("--http2"), "{e}");
    }
}
