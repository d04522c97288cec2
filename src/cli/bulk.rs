//! `hakaru bulk`: write throughput, the CouchDB "High Performance" chapter's
//! experiment in one command — batch sizes × parallel writers, single inserts,
//! `batch=ok`, full commit — against CouchDB or Groonga. Flags → [`BulkOptions`];
//! the checks and the run's shape are in [`crate::spec::bulk`].

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, Result};
use clap::{Args, ValueEnum};

use super::args::FormatArg;
use crate::console::Console;
use crate::engine::{Progress, StepSpec};
use crate::observe::Fanout;
use crate::report::bulk::{bulk_header, bulk_notes, bulk_row, bulk_summary, verify_summary};
use crate::result::{RunResult, StepResult};
use crate::runner::{Observer, Position};
use crate::spec::bulk::{BulkOptions, BulkReady, DocSource};
use crate::spec::{parse_count, parse_duration};
use crate::workload::bulk::{verify, EsAction, IdStrategy, TargetKind};

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TargetArg {
    /// CouchDB (or pouchdb-server): `_bulk_docs`, single PUT/POST; the URL names the database.
    Couchdb,
    /// Groonga: `/d/load` into --table; the URL is the server's.
    Groonga,
    /// Elasticsearch or OpenSearch: `_bulk` NDJSON; the URL names the index.
    #[value(alias = "opensearch")]
    Elasticsearch,
    /// Any other HTTP bulk API: the body from --template; the URL is the request's (query included).
    Template,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ActionArg {
    /// Write, replacing a document with the same ID.
    Index,
    /// Write only new IDs (an existing one is a version_conflict_engine_exception).
    Create,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum IdsArg {
    /// Mostly monotonic IDs (a run prefix, the writer's serial, a counter): seekless B-tree inserts.
    Sequential,
    /// 32 random hex digits: inserts all over the B-tree.
    Random,
    /// Random version-4 UUIDs.
    Uuid,
    /// No ID: the server names each document.
    Server,
}

#[derive(Args, Debug)]
pub struct BulkArgs {
    /// The kind of server.
    #[arg(long, value_enum, default_value_t = TargetArg::Couchdb)]
    pub target: TargetArg,

    /// CouchDB: the database's URL (http://127.0.0.1:5984/bench); Groonga: the server's (http://127.0.0.1:10041); Elasticsearch: the index's (http://127.0.0.1:9200/logs).
    #[arg(value_name = "URL")]
    pub url: String,

    /// Documents per request, one step each (10k accepted). Default 1000.
    #[arg(long, value_name = "N1,N2,...")]
    pub batch_sizes: Option<String>,

    /// Parallel writers (connections), one step per count for every batch size.
    #[arg(long, default_value = "1", value_name = "W1,W2,...")]
    pub writers: String,

    /// How long each step lasts (10s, 1m). Without --duration or --count, 10 s.
    #[arg(short = 'd', long, value_parser = parse_duration)]
    pub duration: Option<Duration>,

    /// Documents per step, not requests (rounded up to whole batches; 10k accepted),
    /// instead of a duration.
    #[arg(short = 'n', long, value_parser = parse_count)]
    pub count: Option<u64>,

    /// Open model: documents per second (requests per second × batch size), whatever
    /// the answers do: one fixed rate (5000, 5k).
    #[arg(long, value_name = "DOCS_PER_S", value_parser = crate::spec::rate::parse_fixed_rate)]
    pub rate: Option<f64>,

    /// One document per request (CouchDB PUT /db/ID, or POST /db with --ids server).
    #[arg(long)]
    pub single: bool,

    /// CouchDB: add ?batch=ok (writes kept in memory, answered 202 Accepted).
    #[arg(long)]
    pub batch_ok: bool,

    /// CouchDB: send X-Couch-Full-Commit: true (durable writes, an fsync each).
    #[arg(long)]
    pub full_commit: bool,

    /// Elasticsearch: each document's bulk action (default index).
    #[arg(long, value_enum)]
    pub action: Option<ActionArg>,

    /// Groonga: the table to load into.
    #[arg(long, value_name = "TABLE")]
    pub table: Option<String>,

    /// --target template: the request body, the per-document part between {{#docs}} and {{/docs}} ({{#docs ","}} to separate copies); inside it {{id}} and the document placeholders, outside {{batch}}.
    #[arg(long, value_name = "FILE")]
    pub template: Option<PathBuf>,

    /// --target template: the request method (default POST).
    #[arg(long, value_name = "METHOD")]
    pub method: Option<String>,

    /// --target template: the answer's count of documents kept, at this JSON pointer (Groonga's load: /1).
    #[arg(long, value_name = "POINTER")]
    pub ok_pointer: Option<String>,

    /// --target template: one result per document, an error where this pointer finds one ('/items/*/error'; '*' is each element).
    #[arg(long, value_name = "POINTER")]
    pub item_error_pointer: Option<String>,

    /// --target template with --verify: the URL answering the server's count of documents.
    #[arg(long, value_name = "URL")]
    pub count_url: Option<String>,

    /// --target template with --verify: where the count is in --count-url's JSON.
    #[arg(long, value_name = "POINTER")]
    pub count_pointer: Option<String>,

    /// Read the server's count before the first step and after the last, and compare it with the documents acknowledged (exit 1 when they differ).
    #[arg(long)]
    pub verify: bool,

    /// The document: JSON with placeholders {{seq}} {{writer}} {{rand}} {{uuid}} {{bytes:N}} {{now}}.
    #[arg(
        long,
        default_value = r#"{"foo":"bar"}"#,
        conflicts_with_all = ["doc_file", "template"],
        value_name = "JSON"
    )]
    pub doc: String,

    /// Read the document template from a file.
    #[arg(long, value_name = "PATH", conflicts_with = "template")]
    pub doc_file: Option<PathBuf>,

    /// How documents are named. Default: sequential (server when the document sets its own _id/_key).
    #[arg(long, value_enum)]
    pub ids: Option<IdsArg>,

    /// Start every generated ID with this (default: a prefix unique to the run).
    #[arg(long, value_name = "PREFIX")]
    pub id_prefix: Option<String>,

    /// The requests' Content-Type (default application/json; Groonga loads nothing without it).
    #[arg(long, value_name = "TYPE")]
    pub content_type: Option<String>,

    /// Extra request header, repeatable: -H 'Authorization: Basic …'.
    #[arg(short = 'H', long = "header", value_name = "NAME: VALUE")]
    pub headers: Vec<String>,

    /// Timeout of each request.
    #[arg(long, default_value = "60", value_parser = parse_duration, value_name = "DURATION")]
    pub timeout: Duration,

    /// Close the connection after each request.
    #[arg(long)]
    pub no_keep_alive: bool,

    #[command(flatten)]
    pub connection: super::connection::ConnectionArgs,

    #[command(flatten)]
    pub before: super::before::BeforeArgs,

    /// Pause between steps.
    #[arg(long, default_value = "0", value_parser = parse_duration, value_name = "DURATION")]
    pub interval: Duration,

    /// Start the first step at this moment (2026-11-23T10:00:00Z, or +30s from now) and
    /// every later step at its planned offset, so load machines run steps together.
    #[arg(long, value_name = "TIME", value_parser = crate::spec::parse_start_at)]
    pub start_at: Option<crate::spec::StartAt>,

    /// Run as load machine K of N: this machine's share of every step's writers,
    /// --count and --rate, with document IDs no other shard makes; `hakaru merge`
    /// joins the N results exactly.
    #[arg(long, value_name = "K/N", value_parser = crate::spec::parse_shard)]
    pub shard: Option<crate::result::Shard>,

    /// Worker threads; 0, the default, means one per core.
    #[arg(long, default_value_t = 0, hide_default_value = true, value_name = "N")]
    pub threads: usize,

    /// Seed of random IDs and placeholders (default: from the clock).
    #[arg(long)]
    pub seed: Option<u64>,

    /// Write the CSV result here, and the JSON result beside it; `-` prints the CSV
    /// (with --format json, the JSON) on stdout instead.
    #[arg(short = 'o', long = "output", alias = "output-path")]
    pub output_path: Option<PathBuf>,

    /// Print the whole result as JSON on stdout (what the `.json` file holds); the
    /// table goes to stderr.
    #[arg(long)]
    pub json: bool,

    /// No live line and no row as each step ends: only the table at the end (none at
    /// all beside --json or -o -).
    #[arg(short = 'q', long)]
    pub quiet: bool,

    /// The CSV's columns.
    #[arg(long, value_enum, default_value_t = FormatArg::Full)]
    pub format: FormatArg,

    /// Statuses that count as success: codes, ranges or classes (200,404 or
    /// 200-299,404 or 2xx). Every other status is a failure in the summary, the reports,
    /// the thresholds on errors and the exit code.
    #[arg(long, value_name = "CODES", default_value = "200-399", value_parser = crate::spec::parse_ok_status)]
    pub ok_status: crate::stats::OkStatus,

    #[command(flatten)]
    pub thresholds: super::threshold::ThresholdArgs,

    #[command(flatten)]
    pub live: super::args::LiveArgs,
}

impl BulkArgs {
    /// The plain options these flags say.
    pub fn options(&self, command_line: Vec<String>) -> BulkOptions {
        BulkOptions {
            target: match self.target {
                TargetArg::Couchdb => TargetKind::CouchDb,
                TargetArg::Groonga => TargetKind::Groonga,
                TargetArg::Elasticsearch => TargetKind::Elasticsearch,
                TargetArg::Template => TargetKind::Template,
            },
            url: self.url.clone(),
            batch_sizes: self.batch_sizes.clone(),
            writers: self.writers.clone(),
            duration: self.duration,
            count: self.count,
            rate: self.rate,
            single: self.single,
            batch_ok: self.batch_ok,
            full_commit: self.full_commit,
            action: self.action.map(|a| match a {
                ActionArg::Index => EsAction::Index,
                ActionArg::Create => EsAction::Create,
            }),
            table: self.table.clone(),
            template: self.template.clone(),
            method: self.method.clone(),
            ok_pointer: self.ok_pointer.clone(),
            item_error_pointer: self.item_error_pointer.clone(),
            count_url: self.count_url.clone(),
            count_pointer: self.count_pointer.clone(),
            verify: self.verify,
            ok_status: self.ok_status,
            doc: match &self.doc_file {
                Some(p) => DocSource::File(p.clone()),
                None => DocSource::Text(self.doc.clone()),
            },
            ids: self.ids.map(|i| match i {
                IdsArg::Sequential => IdStrategy::Sequential,
                IdsArg::Random => IdStrategy::Random,
                IdsArg::Uuid => IdStrategy::Uuid,
                IdsArg::Server => IdStrategy::Server,
            }),
            id_prefix: self.id_prefix.clone(),
            content_type: self.content_type.clone(),
            headers: self.headers.clone(),
            timeout: self.timeout,
            keep_alive: !self.no_keep_alive,
            connection: self.connection.settings(),
            threads: self.threads,
            seed: self.seed,
            interval: self.interval,
            start_at: self.start_at,
            shard: self.shard,
            output_path: self
                .output_path
                .clone()
                .filter(|p| !crate::outfile::is_through(p)),
            format: self.format.csv(),
            command_line,
            before: self.before.options(),
        }
    }
}

/// The console's live line, and the table's rows as steps finish.
struct BulkConsole {
    inner: Console,
    header_shown: bool,
    /// `-q`: no row as each step ends.
    rows: bool,
}

impl Observer for BulkConsole {
    fn step_started(&mut self, at: Position, spec: &StepSpec) {
        self.inner.step_started(at, spec);
    }

    fn progress(&mut self, spec: &StepSpec, p: Progress) {
        self.inner.progress(spec, p);
    }

    fn step_finished(&mut self, run: &RunResult, step: &StepResult) {
        self.inner.step_finished(run, step);
        if !self.rows {
            return;
        }
        if !self.header_shown {
            eprintln!("{}", bulk_header());
            self.header_shown = true;
        }
        eprintln!("{}", bulk_row(step));
    }

    fn interval(&mut self, d: Duration) {
        self.inner.interval(d);
    }
}

pub fn run(args: BulkArgs, command_line: Vec<String>) -> Result<i32> {
    let to_stdout = super::args::is_stdout(args.output_path.as_deref());
    args.format.check(to_stdout)?;
    args.thresholds.check(true)?;
    let ready = args.options(command_line).build()?;
    // Every path the end will write, checked after the flags and before any load.
    let inputs: Vec<(&str, &std::path::Path)> = [
        ("the template", &args.template),
        ("the document file", &args.doc_file),
    ]
    .into_iter()
    .filter_map(|(what, p)| Some((what, p.as_deref()?)))
    .collect();
    super::finish::check_outputs(args.output_path.as_deref(), &args.thresholds, &[], &inputs)?;
    for note in &ready.notes {
        eprintln!("Note: {note}");
    }
    // stdout carries the result (-o -) or the write-throughput summary.
    let mut live = args.live.start(Some(if args.json {
        "--json"
    } else if to_stdout {
        "-o -"
    } else {
        "bulk's summary"
    }))?;
    // With -o - or --json, stdout carries the result: the table and the verdicts go
    // to stderr (the rows always do, as steps end).
    let output = super::args::OutputArgs {
        json: args.json,
        quiet: args.quiet,
        verbose: false,
    };
    let human = super::args::Human::new(&output, to_stdout)?;
    let table_shown = {
        use std::io::IsTerminal;
        let terminal = std::io::stdout().is_terminal() && std::io::stderr().is_terminal();
        table_shown_live(!args.quiet, human.machine(), terminal)
    };
    let mut console = BulkConsole {
        inner: Console::new(false, ready.engine.n_slow, ready.engine.n_fast).quiet(args.quiet),
        header_shown: false,
        rows: !args.quiet,
    };
    let mut watchers = Fanout::new().with(&mut console);
    watchers.extend(live.observers());
    let (mut run, code) = execute_watched(&ready, &mut watchers, false, &args.thresholds)?;
    live.finish();
    let finish = super::finish::Finish {
        files: ready.run.outputs.as_ref(),
        through: super::run::through(args.output_path.as_deref(), args.format, args.json),
        ..super::finish::Finish::new(&args.thresholds, human, code)
    };
    super::finish::finish(&mut run, finish, |run| {
        let verify = run.verify.as_ref().map(verify_summary).unwrap_or_default();
        let table = if table_shown {
            bulk_notes(run)
        } else {
            bulk_summary(run)
        };
        table + &verify
    })
}

/// Whether the rows printed on stderr as the steps ended already show the end's
/// table where a person reads it: the end's text goes to stderr too (stdout carries
/// the result), or stdout and stderr are both the terminal. Issue 35: a terminal
/// showed the table twice. Piped or redirected, stdout keeps its whole table.
fn table_shown_live(rows: bool, summary_on_stderr: bool, terminal: bool) -> bool {
    rows && (summary_on_stderr || terminal)
}

/// Runs a bulk write with `--verify`'s count around it; the run (its `verify` filled
/// in and written) and the exit code (1 on a mismatch). With `print`, the table and
/// the comparison go to stdout; without, the caller says them (`hakaru demo --bulk`
/// prints one table of several runs).
pub(crate) fn execute(
    ready: &BulkReady,
    observer: &mut dyn Observer,
    print: bool,
) -> Result<(RunResult, i32)> {
    execute_watched(
        ready,
        observer,
        print,
        &super::threshold::ThresholdArgs::default(),
    )
}

/// [`execute`] with `--abort-on-fail`'s judge beside `observer` when `thresholds` asks.
fn execute_watched(
    ready: &BulkReady,
    observer: &mut dyn Observer,
    print: bool,
    thresholds: &super::threshold::ThresholdArgs,
) -> Result<(RunResult, i32)> {
    let settings = ready.workload.settings();
    let count_timeout = settings.timeout.min(Duration::from_secs(30));
    let before = if ready.verify {
        Some(
            verify::present(settings, count_timeout)
                .map_err(anyhow::Error::msg)
                .context("--verify: cannot read the server's count before the first step")?,
        )
    } else {
        None
    };
    let mut run = thresholds.run_workload(&ready.run, &ready.workload, &ready.engine, observer)?;
    if print {
        print!("{}", bulk_summary(&run));
    }
    let mut code = crate::runner::exit_code(&run);
    if let Some(before) = before {
        match verify::after_run(settings, &run, before, count_timeout) {
            Ok(v) => {
                if print {
                    print!("{}", verify_summary(&v));
                }
                if v.failed() && code == 0 {
                    code = 1;
                }
                run.verify = Some(v);
                if let Some(out) = &ready.run.outputs {
                    crate::runner::write_outputs(&run, out);
                }
            }
            Err(why) => {
                eprintln!(
                    "VERIFY FAILED: cannot read the server's count after the last step: {why}"
                );
                if code == 0 {
                    code = 1;
                }
            }
        }
    }
    Ok((run, code))
}

#[cfg(test)]
mod tests {
    use super::super::{Cli, Command};
    use super::*;
    use clap::Parser;

    /// Issue 35: on a terminal `bulk` printed its table twice, the rows on stderr as
    /// the steps ended and the whole table again on stdout at the end. The end keeps
    /// its sentences alone where the rows already are: on a terminal, or when the end
    /// goes to stderr with them; a redirected stdout still gets the whole table.
    #[test]
    fn bulk_prints_its_table_once_on_a_terminal() {
        assert!(table_shown_live(true, false, true), "terminal");
        assert!(
            table_shown_live(true, true, false),
            "end on stderr beside the rows"
        );
        assert!(
            !table_shown_live(true, false, false),
            "stdout redirected: the record"
        );
        assert!(
            !table_shown_live(false, false, true),
            "-q: no rows were shown"
        );
    }

    #[test]
    fn flags_become_options_that_pass_the_checks() {
        let cli = Cli::try_parse_from([
            "hakaru",
            "bulk",
            "--target",
            "groonga",
            "http://127.0.0.1:10041",
            "--table",
            "Docs",
            "--batch-sizes",
            "100,1k",
            "--writers",
            "1,10",
            "--count",
            "10k",
            "--ids",
            "uuid",
        ])
        .expect("parses");
        let Command::Bulk(a) = cli.command else {
            panic!("bulk")
        };
        let o = a.options(vec![]);
        assert_eq!(o.target, TargetKind::Groonga);
        assert_eq!(o.count, Some(10_000));
        assert_eq!(o.ids, Some(IdStrategy::Uuid));
        assert_eq!(o.doc, DocSource::Text(r#"{"foo":"bar"}"#.into()));
        let ready = o.build().expect("valid");
        assert_eq!(ready.run.steps.len(), 4);
    }
}
