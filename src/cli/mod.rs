//! The command line: clap definitions and the glue from flags to the library. Each
//! load command turns its flags into plain [`crate::spec`] options, builds the run there
//! and hands it to [`run_load`]. No logic lives here beyond that mapping (its tests
//! check it), and nothing below `cli` sees clap.

pub mod ab;
pub mod args;
pub mod before;
pub mod bulk;
pub mod compare;
pub mod completions;
pub mod connection;
pub mod demo;
pub mod find_max;
pub mod finish;
pub mod help;
pub mod hints;
pub mod k8s;
pub mod kv;
pub mod merge;
pub mod patterns;
pub mod pgbench;
pub mod ramp;
pub mod report;
pub mod run;
pub mod serve;
pub mod stream;
pub mod suite;
pub mod sysbench;
pub mod terms;
pub mod threshold;
pub mod watch;

use clap::{Parser, Subcommand};

use std::sync::Arc;

use crate::console::Console;
use crate::engine::{EngineConfig, Stop, Workload};
use crate::observe::Fanout;
use crate::result::RunResult;
use crate::runner::{Observer, RunSpec};
use crate::spec::Ready;

/// The exit codes, as `--help` shows them (the values are [`crate::runner::exit`]).
pub const EXIT_CODES_HELP: &str = "\
Exit codes:
  0    measured: every step ran and got responses
  1    measured, but nothing was answered (every request failed) or nothing
       succeeded (every status outside --ok-status; bulk: nothing acknowledged),
       a step got no response and the ramp stopped (see --keep-going), a step
       failed, a --threshold did not hold, or ramp --find-max found no rate
       meeting --slo
  2    bad input: a flag, URL or file was refused before any load was sent
  130  interrupted (Ctrl-C, SIGTERM): the finished steps are kept, marked partial";

#[derive(Parser, Debug)]
#[command(name = "hakaru", version, about = "測る — fast, honest benchmarks for data services", long_about = None, after_help = EXIT_CODES_HELP)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
    /// Create the missing parent directories of -o and every other output path
    /// (curl's flag); without it a missing directory is refused before any load
    #[arg(long, global = true)]
    pub create_dirs: bool,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// The search benchmark tutorial end to end, against the embedded search target (nothing to install).
    Demo(demo::DemoArgs),
    /// One step, ab/hey/wrk style: hakaru run -c 100 -n 100000 -k URL
    Run(run::RunArgs),
    /// ApacheBench's flags, defaults and report: porting an ab script means changing the command name.
    Ab(ab::AbArgs),
    /// pgbench's flags, scripts and report against PostgreSQL (-i initializes pgbench's tables).
    Pgbench(pgbench::PgbenchArgs),
    /// sysbench's OLTP tests, flags and report (oltp_read_write …; prepare, run, cleanup) on MySQL, MariaDB and PostgreSQL.
    Sysbench(sysbench::SysbenchArgs),
    /// drnbench's progressive benchmark: clients from --start-n-clients to --end-n-clients by --step.
    Ramp(ramp::RampArgs),
    /// Search terms from Groonga select results (drnbench-extract-searchterms and more).
    Terms(terms::Args),
    /// A patterns file from search terms: templates, cache-hit planning, same/unique keys.
    Patterns(patterns::Args),
    /// One self-contained HTML report (charts, saturation, statuses) of a result; SVG, PNG, Markdown.
    Report(report::Args),
    /// Overlay several results (hakaru's or drnbench's): charts, a table of ratios, plain sentences.
    Compare(compare::Args),
    /// Join the results of one run spread over many load machines (--shard K/N), exactly.
    Merge(merge::Args),
    /// Kubernetes manifests for a run on many load machines (an Indexed Job).
    K8s(k8s::Args),
    /// Write throughput: batches of documents to CouchDB, Groonga or Elasticsearch, one step per batch size and writer count.
    Bulk(bulk::BulkArgs),
    /// A scenario: phases of weighted workloads, events (stop, kill, restart) at given times, recovery measured.
    Suite(suite::SuiteArgs),
    /// The embedded target: deterministic endpoints on loopback (/, /bytes/N, /delay/MS, /status/CODE).
    Serve(serve::Args),
    /// Log-pipeline records: gen (a file of them), send (into file:, dir:, tcp://, udp://, http://), run (the whole experiment).
    Stream(stream::StreamArgs),
    /// What arrives at the far end of a pipeline: records/s and MiB/s per interval and window; --verify for loss, duplicates and latency.
    Watch(watch::WatchArgs),
    /// A shell completion script on stdout: hakaru completions bash|zsh|fish.
    Completions(completions::CompletionsArgs),
    /// The manual page: hakaru(1) on stdout, or a page per command with --dir.
    Man(completions::ManArgs),
}

/// Dispatch a parsed command line; returns the process exit code.
pub fn dispatch(cli: Cli, command_line: Vec<String>) -> anyhow::Result<i32> {
    // Passwords and secret header values, hidden wherever another program's words
    // are recorded (a before-command's stderr echoing them).
    crate::redact::know_command_line(&command_line);
    crate::outfile::create_dirs(cli.create_dirs);
    match cli.command {
        Command::Demo(a) => demo::run(a, command_line),
        Command::Run(a) => run::run(a, command_line),
        Command::Ab(a) => ab::run(a, command_line),
        Command::Pgbench(a) => pgbench::run(a, command_line),
        Command::Sysbench(a) => sysbench::run(a, command_line),
        Command::Ramp(a) => ramp::run(a, command_line),
        Command::Bulk(a) => bulk::run(a, command_line),
        Command::Serve(a) => serve::run(a),
        Command::Suite(a) => suite::run(a, command_line),
        Command::Report(a) => report::run(a),
        Command::Compare(a) => compare::run(a),
        Command::Merge(a) => merge::run(a),
        Command::K8s(a) => k8s::run(a),
        Command::Terms(a) => terms::run(a),
        Command::Patterns(a) => patterns::run(a),
        Command::Stream(a) => stream::run(a, command_line),
        Command::Watch(a) => watch::run(a, command_line),
        Command::Completions(a) => completions::completions(a),
        Command::Man(a) => completions::man(a),
    }
}

/// The words of an error that ended a command: its context chain joined by ": ", each
/// cause said once. An error whose message already quotes its source (`cannot read
/// FILE: No such file or directory (os error 2)`) would otherwise print the OS error
/// twice, as `{:#}` appends every source again.
pub fn error_message(e: &anyhow::Error) -> String {
    let mut out = String::new();
    for cause in e.chain() {
        let text = cause.to_string();
        if out.contains(&text) {
            continue;
        }
        if !out.is_empty() {
            out.push_str(": ");
        }
        out.push_str(&text);
    }
    out
}

/// The exit code of an error that ended a command: 2 when the input was refused (a
/// flag, a URL, a patterns or result file: nothing was sent), 1 otherwise.
pub fn error_exit_code(e: &anyhow::Error) -> i32 {
    use crate::runner::exit;
    let bad_input = e.chain().any(|c| {
        c.is::<crate::spec::SpecError>()
            || c.is::<crate::spec::threshold::ThresholdUseError>()
            || c.is::<crate::spec::find_max::FindMaxError>()
            || c.is::<crate::spec::bulk::BulkError>()
            || c.is::<crate::pattern::PatternError>()
            || c.is::<crate::pattern::generate::PatternGenError>()
            || c.is::<crate::pattern::terms::TermsError>()
            || c.is::<crate::plan::PlanError>()
            || c.is::<crate::suite::ScenarioError>()
            || c.is::<crate::suite::SuiteError>()
            || c.is::<crate::result::read::ReadError>()
            || c.is::<crate::result::json::ResultReadError>()
            || c.is::<crate::result::merge::MergeError>()
            || c.is::<crate::k8s::K8sError>()
            || c.is::<crate::report::output::OutputError>()
            || c.is::<crate::server::listen::ServeError>()
            || c.is::<crate::spec::ab::AbError>()
            || c.is::<crate::spec::pgbench::PgbenchError>()
            || c.is::<crate::spec::sysbench::SysbenchError>()
            || c.is::<crate::stream::StreamError>()
            || c.is::<crate::stream::record::TooSmall>()
            || c.is::<crate::metrics::LiveError>()
            || matches!(
                c.downcast_ref::<crate::report::output::ReportError>(),
                Some(
                    crate::report::output::ReportError::LabelCount { .. }
                        | crate::report::output::ReportError::Read(_)
                )
            )
            // A file named on the command line that is not there.
            || c.downcast_ref::<std::io::Error>()
                .is_some_and(|io| io.kind() == std::io::ErrorKind::NotFound)
    });
    let ours = e.chain().any(|c| c.is::<crate::runner::RampError>());
    if bad_input && !ours {
        exit::BAD_INPUT
    } else {
        exit::FAILED
    }
}

/// What a run's workload counts, from its targets ([`Work::of`]): the console's
/// words, a SQL run's transactions and tps.
pub(crate) fn work_of<W: crate::engine::Workload + ?Sized>(w: &W) -> crate::report::fmt::Work {
    let targets: Vec<String> = w.targets().iter().map(|t| t.label()).collect();
    crate::report::fmt::Work::of(&targets)
}

/// Run a built request-response run with the console showing it (`rows`: one line per
/// step, as ramps show) and Ctrl-C ending it cleanly. Every load command goes through
/// here, so there is one signal handler.
pub fn run_load(ready: &Ready, rows: bool) -> anyhow::Result<RunResult> {
    run_load_with(
        ready,
        Console::new(rows, ready.engine.n_slow, ready.engine.n_fast)
            .work(work_of(ready.workload.as_ref())),
        Fanout::new(),
    )
}

/// [`run_load`] with a console set up by the command (quiet, ab's progress lines) and
/// more observers watching the run beside it (`--metrics-listen`, `--live-out`).
pub fn run_load_with(
    ready: &Ready,
    console: Console,
    watchers: Fanout<'_>,
) -> anyhow::Result<RunResult> {
    let mut all = Fanout::new().with(console);
    all.extend(watchers);
    run_workload(&ready.run, &ready.workload, &ready.engine, &mut all)
}

/// [`run_load`] for any workload and observer (`bulk`).
pub fn run_workload<W: Workload>(
    run: &RunSpec,
    workload: &Arc<W>,
    engine: &EngineConfig,
    observer: &mut dyn Observer,
) -> anyhow::Result<RunResult> {
    run_workload_until(run, workload, engine, &ctrl_c_stop(), observer)
}

/// [`run_workload`] ended by `stop` (Ctrl-C's, which `--abort-on-fail` trips too).
pub fn run_workload_until<W: Workload>(
    run: &RunSpec,
    workload: &Arc<W>,
    engine: &EngineConfig,
    stop: &Stop,
    observer: &mut dyn Observer,
) -> anyhow::Result<RunResult> {
    Ok(crate::runner::run(run, workload, engine, stop, observer)?)
}

/// A [`Stop`] triggered by the first Ctrl-C, SIGTERM or SIGHUP (see [`Stop::on_signals`]).
pub(crate) fn ctrl_c_stop() -> Stop {
    Stop::on_signals()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Regression: `run --request-patterns-file /nonexistent` said "No such file or
    /// directory (os error 2)" twice: the message quoted its source and `{:#}` added it.
    #[test]
    fn an_error_quoting_its_source_says_it_once() {
        #[derive(Debug, thiserror::Error)]
        #[error("cannot read x: {source}")]
        struct Read {
            source: std::io::Error,
        }
        let io = std::io::Error::from(std::io::ErrorKind::NotFound);
        let e = anyhow::Error::from(Read { source: io }).context("while starting");
        let text = error_message(&e);
        assert_eq!(text.matches("not found").count(), 1, "{text}");
        assert!(
            text.starts_with("while starting: cannot read x: "),
            "{text}"
        );
    }
    use crate::spec::Load;
    use std::time::Duration;

    fn parse(args: &[&str]) -> Command {
        Cli::try_parse_from(args).expect("parses").command
    }

    #[test]
    fn flags_become_options() {
        let Command::Run(a) = parse(&["hakaru", "run", "-c", "3", "-n", "10k", "-k", "http://h/"])
        else {
            panic!("run")
        };
        let o = a.options(vec![]);
        assert_eq!(
            o.load,
            Load::Step {
                clients: 3,
                duration: None,
                requests: Some(10_000),
                rate: None
            }
        );
        assert!(o.request.keep_alive);
        let Command::Ramp(a) = parse(&[
            "hakaru",
            "ramp",
            "--rate",
            "100,200",
            "--no-keep-alive",
            "http://h/",
        ]) else {
            panic!("ramp")
        };
        let o = a.options(vec![]);
        assert!(matches!(o.load, Load::Rates { clients: 1, .. }));
        assert!(!o.request.keep_alive);
        assert_eq!(o.interval, Duration::from_secs(10));
        assert_eq!(o.output_path, Some("hakaru-result.csv".into()));
    }

    /// A find-max on PostgreSQL took 100 connections by default, PostgreSQL's own
    /// default `max_connections`: its probes failed with too many connections. A
    /// SQL URL's default is 64; HTTP keeps 100.
    #[test]
    fn find_max_on_a_sql_url_stays_under_the_server_s_default_connections() {
        let clients = |url: &str| {
            let Command::Ramp(a) =
                parse(&["hakaru", "ramp", "--find-max", "--slo", "p99<10ms", url])
            else {
                panic!("ramp")
            };
            match a.options(vec![]).load {
                Load::Rates { clients, .. } => clients,
                other => panic!("{other:?}"),
            }
        };
        assert_eq!(clients("postgres://u@127.0.0.1/db"), 64);
        assert_eq!(clients("mysql://u@127.0.0.1/db"), 64);
        assert_eq!(clients("http://127.0.0.1/"), 100);
    }

    #[test]
    fn the_demo_defaults_pass_the_checks() {
        let Command::Demo(a) = parse(&["hakaru", "demo"]) else {
            panic!("demo")
        };
        demo::options(
            &a,
            vec![],
            "127.0.0.1",
            1,
            std::path::Path::new("p.txt"),
            None,
        )
        .check()
        .expect("valid");
    }
}
