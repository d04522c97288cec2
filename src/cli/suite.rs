//! `hakaru suite SCENARIO.toml`: a scenario's phases, events and recovery (see
//! [`crate::suite`]). Flags to options; the scenario file says the rest.

use std::path::PathBuf;

use crate::result::RunResult;
use anyhow::Result;
use clap::Args;

use super::args::{Human, OutputArgs};
use crate::console::Console;
use crate::suite::{profiles, Scenario, ScenarioError};

#[derive(Args, Debug)]
pub struct SuiteArgs {
    /// The scenario: phases, workloads with weights, targets, events (TOML).
    #[arg(required_unless_present = "profile", conflicts_with = "profile")]
    pub scenario: Option<PathBuf>,

    /// A built-in scenario: read-heavy, write-heavy, fault-tolerance, or YCSB's core
    /// workloads ycsb-a … ycsb-f over a CouchDB-style API, Redis, memcached,
    /// PostgreSQL or MySQL/MariaDB (files it names are read from the current
    /// directory).
    #[arg(long, value_name = "NAME")]
    pub profile: Option<String>,

    /// With --profile: write the scenario on stdout, to copy and adapt, and run nothing.
    #[arg(long, requires = "profile")]
    pub print: bool,

    /// With --profile: point its workloads at this URL instead of the one it names (a
    /// YCSB profile at a CouchDB-style database, redis://, memcached://, postgres://
    /// or mysql://; write-heavy at a CouchDB-style database; read-heavy and
    /// fault-tolerance at postgres:// or mysql://, as YCSB's workloads on its JDBC
    /// table).
    #[arg(long, value_name = "URL", requires = "profile")]
    pub target: Option<String>,

    /// Write the CSV result here, the JSON result and the HTML timeline beside it; `-`
    /// prints the CSV on stdout instead.
    #[arg(short = 'o', long = "output", alias = "output-path")]
    pub output_path: Option<PathBuf>,

    #[command(flatten)]
    pub output: OutputArgs,

    /// Statuses that count as success: codes, ranges or classes (200,404 or
    /// 200-299,404 or 2xx). Every other status is a failure in the summary, the reports,
    /// the thresholds on errors and the exit code.
    #[arg(long, value_name = "CODES", default_value = "200-399", value_parser = crate::spec::parse_ok_status)]
    pub ok_status: crate::stats::OkStatus,

    /// Run as load machine K of N: this machine's share of every phase's clients and
    /// rate; events fire on shard 1 only (unless an event says `shards = "all"`);
    /// `hakaru merge` joins the N results, timelines included.
    #[arg(long, value_name = "K/N", value_parser = crate::spec::parse_shard)]
    pub shard: Option<crate::result::Shard>,

    /// Start the scenario at this moment (2026-11-23T10:00:00Z, or +30s from now);
    /// every phase starts at it plus the phase's start, so shards run together.
    #[arg(long, value_name = "TIME", value_parser = crate::spec::parse_start_at)]
    pub start_at: Option<crate::spec::StartAt>,

    /// Thresholds (also the scenario's `thresholds = [...]`): judged per phase and
    /// over the whole scenario.
    #[command(flatten)]
    pub thresholds: super::threshold::ThresholdArgs,

    #[command(flatten)]
    pub live: super::args::LiveArgs,

    /// Read the servers' own numbers before and after each phase: postgres
    /// (pg_stat_database of each postgres:// target), mysql (SHOW GLOBAL STATUS of
    /// each mysql:// target), redis, memcached, groonga,
    /// droonga, couchdb or url=PATH,pointer=/json/pointer of the other targets.
    /// Repeatable.
    #[arg(long = "probe", value_name = "PROBE", value_parser = crate::probe::parse_probe)]
    pub probes: Vec<crate::probe::ProbeKind>,
}

pub fn run(args: SuiteArgs, command_line: Vec<String>) -> Result<i32> {
    // clap's `requires` does not hold beside the positional scenario: said here, so a
    // file's run never silently ignores the flag.
    if args.profile.is_none() && (args.target.is_some() || args.print) {
        let flag = if args.print { "--print" } else { "--target" };
        Err(ScenarioError::Whole {
            path: flag.into(),
            why: "only with --profile: a scenario file names its own targets".into(),
        })?;
    }
    let scenario = match (&args.scenario, &args.profile) {
        (_, Some(name)) => {
            let text = profiles::profile(name).ok_or_else(|| ScenarioError::Whole {
                path: format!("--profile {name}"),
                why: format!(
                    "no such profile; the built-in ones are {}",
                    profiles::names()
                ),
            })?;
            let text = match &args.target {
                Some(url) => {
                    profiles::retarget(name, text, url).map_err(|why| ScenarioError::Whole {
                        path: format!("--profile {name}"),
                        why,
                    })?
                }
                None => text.to_owned(),
            };
            if args.print {
                print!("{text}");
                return Ok(crate::runner::exit::MEASURED);
            }
            Scenario::parse(&text, &PathBuf::from(format!("profile:{name}")))?
        }
        (Some(path), None) => Scenario::load(path)?,
        (None, None) => anyhow::bail!("give a scenario file or --profile NAME"),
    };
    let mut thresholds = args.thresholds.clone();
    thresholds
        .thresholds
        .extend(scenario.thresholds.iter().cloned());
    thresholds.check(false)?;
    // `-o -` (or a device): the CSV through, no files and no page beside it.
    let files = args
        .output_path
        .clone()
        .filter(|p| !crate::outfile::is_through(p));
    let csv_to_stdout = super::args::is_stdout(args.output_path.as_deref());
    let page = files.as_ref().map(|p| p.with_extension("html"));
    let pages: Vec<(&'static str, &std::path::Path)> =
        page.iter().map(|p| ("-o", p.as_path())).collect();
    super::finish::check_outputs(
        args.output_path.as_deref(),
        &thresholds,
        &pages,
        &scenario.input_files(),
    )?;
    let stop = super::ctrl_c_stop();
    let mut ready = crate::suite::build(
        scenario,
        files,
        command_line,
        stop.clone(),
        crate::suite::run::Sharding {
            shard: args.shard,
            start_at: args.start_at,
        },
    )?;
    ready.engine.ok_status = args.ok_status;
    ready
        .with_probes(args.probes.clone())
        .map_err(|why| ScenarioError::Whole {
            path: "--probe".into(),
            why,
        })?;
    let mut live = args
        .live
        .start(super::args::stdout_busy(args.output.json, csv_to_stdout))?;
    let human = Human::new(&args.output, csv_to_stdout || args.live.to_stdout())?;
    let mut console = Console::new(!human.machine(), ready.engine.n_slow, ready.engine.n_fast)
        .quiet(args.output.quiet)
        .verbose(args.output.verbose)
        .work(super::work_of(ready.workload.as_ref()));
    let mut watchers = crate::observe::Fanout::new().with(&mut console);
    watchers.extend(live.observers());
    let mut run = thresholds.watched(&stop, &mut watchers, |o| {
        crate::suite::run::run(&ready, &stop, o).map_err(|e| match e {
            crate::suite::run::RunError::Suite(s) => anyhow::Error::from(s),
            crate::suite::run::RunError::Ramp(r) => anyhow::Error::from(r),
        })
    })?;
    live.finish();
    let outputs = ready.run.outputs.as_ref();
    let page = outputs.map(|out| {
        let html = out.json.with_extension("html");
        (html, crate::report::suite::html as fn(&RunResult) -> String)
    });
    let finish = super::finish::Finish {
        files: outputs,
        page,
        through: super::run::through(
            args.output_path.as_deref(),
            super::args::FormatArg::Full,
            args.output.json,
        ),
        ..super::finish::Finish::new(&thresholds, human, crate::runner::exit_code(&run))
    };
    super::finish::finish(&mut run, finish, |run| {
        format!("\n{}", crate::report::suite::text(run))
    })
}
