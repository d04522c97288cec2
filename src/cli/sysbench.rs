//! `hakaru sysbench`: sysbench's OLTP tests with its command line and report. The
//! words after the command are sysbench's own (`[options] testname
//! prepare|run|cleanup`), parsed whole by [`crate::spec::sysbench`] before anything
//! connects; `prepare` and `cleanup` run over the blocking admin connection
//! (`sysbench::admin`) with sysbench's lines; `run` runs the test on the engine and prints
//! sysbench's report from the step's result, then ends through `finish` (`-o`,
//! `--threshold`, `--junit`).

use std::time::Duration;

use anyhow::Result;
use clap::Args;

use crate::console::Console;
use crate::observe::Fanout;
use crate::report::run::text::sysbench::{sysbench_header, sysbench_report};
use crate::spec::sysbench::{parse, SbCommand, SysbenchLoad, SysbenchPlan};
use crate::spec::{Load, RequestOptions, RunOptions, SessionOptions};
use crate::sql::sysbench::Ignore;

mod admin;
mod figures;
mod interval;

/// What `hakaru sysbench --help` says above the examples.
const LONG_ABOUT: &str = "\
sysbench's own words: `[options] TESTNAME prepare|prewarm|run|cleanup`.

Tests: oltp_read_write, oltp_read_only, oltp_write_only, oltp_point_select,
oltp_update_index, oltp_update_non_index, oltp_insert, oltp_delete,
select_random_points, select_random_ranges, bulk_insert.

Options, as sysbench spells them (--name=value; a bare --flag is on):
--db-driver=pgsql|mysql, --pgsql-host/-port/-user/-password/-db,
--mysql-host/-port/-user/-password/-db, --mysql-ignore-errors=CODES|all|none
(1213,1020,1205: an event failing so starts again), --threads, --time,
--events, --rate, --warmup-time, --percentile, --histogram,
--rand-type=uniform|gaussian|special|pareto|zipfian (--rand-spec-iter/-pct/-res,
--rand-pareto-h, --rand-zipfian-exp, --rand-seed), --db-ps-mode=auto|disable,
--tables, --table-size, --range-size, --point-selects, --simple-ranges,
--sum-ranges, --order-ranges, --distinct-ranges, --index-updates,
--non-index-updates, --delete-inserts, --range-selects, --skip-trx, --auto-inc,
--secondary, --create-secondary, --random-points, --number-of-ranges, --delta,
--mysql-storage-engine; sysbench 1.0's deprecated --num-threads, --max-time,
--max-requests, --tx-rate and --test=TESTNAME (with its warnings). prewarm:
MySQL only, as in sysbench. hakaru's own: -o FILE (the result, CSV and JSON),
--threshold EXPR (repeatable), --junit FILE, --timeout=DURATION (a
transaction's limit, counted a timeout; sysbench has none, default 60s).

A Lua script of one's own is not run: write the workload in pgbench's script
language and run it with hakaru run postgres://… -f script.sql.";

/// sysbench's own words (see [`LONG_ABOUT`]).
#[derive(Args, Debug)]
#[command(disable_help_flag = true)]
pub struct SysbenchArgs {
    /// sysbench's command line.
    #[arg(
        value_name = "ARGS",
        num_args = 0..,
        trailing_var_arg = true,
        allow_hyphen_values = true
    )]
    pub args: Vec<String>,
}

pub fn run(a: SysbenchArgs, command_line: Vec<String>) -> Result<i32> {
    let plan = parse(&a.args)?;
    for w in &plan.warnings {
        eprintln!("{w}");
    }
    if plan.command == SbCommand::Version {
        println!("sysbench 1.0.20 (hakaru {})", env!("CARGO_PKG_VERSION"));
        return Ok(0);
    }
    if plan.command == SbCommand::Help {
        let mut cmd = super::help::command();
        let help = cmd
            .find_subcommand_mut("sysbench")
            .map(|c| {
                // The variant's one-line doc is the command's about; the options go here.
                let mut c = c.clone().bin_name("hakaru sysbench").long_about(LONG_ABOUT);
                c.render_long_help().to_string()
            })
            .unwrap_or_default();
        print!("{help}");
        return Ok(0);
    }
    let version = format!("sysbench 1.0.20 (hakaru {})\n", env!("CARGO_PKG_VERSION"));
    match plan.command {
        SbCommand::Prepare => {
            println!("{version}");
            admin::prepare(&plan, plan.seed.unwrap_or_else(clock_seed)).map(|()| 0)
        }
        SbCommand::Cleanup => {
            println!("{version}");
            admin::cleanup(&plan).map(|()| 0)
        }
        SbCommand::Prewarm => {
            println!("{version}");
            admin::prewarm(&plan).map(|()| 0)
        }
        _ => load(&plan, command_line),
    }
}

fn clock_seed() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(1, |d| d.as_nanos() as u64)
}

/// The run's steps, warm-up, outputs and engine, built as `hakaru run` builds them,
/// with the test as its workload.
fn run_options(plan: &SysbenchPlan, seed: u64, command_line: Vec<String>) -> Result<RunOptions> {
    let request = RequestOptions {
        seed: Some(seed),
        n_slow: 0,
        n_fast: 0,
        sysbench: Some(SysbenchLoad::of(plan)?),
        timeout: plan.timeout,
        ..RequestOptions::default()
    };
    Ok(RunOptions {
        request,
        session: SessionOptions {
            warmup: plan.warmup,
            ..SessionOptions::default()
        },
        load: Load::Step {
            clients: plan.oltp.threads as usize,
            duration: plan.time,
            requests: plan.events,
            rate: plan.rate.map(|r| format!("{r}")),
        },
        interval: Duration::ZERO,
        output_path: plan
            .output
            .clone()
            .filter(|p| !crate::outfile::is_through(p)),
        command_line,
    })
}

/// `run`: the test on the engine, then sysbench's report and hakaru's end.
fn load(plan: &SysbenchPlan, command_line: Vec<String>) -> Result<i32> {
    let thresholds = super::threshold::ThresholdArgs {
        thresholds: plan.thresholds.clone(),
        junit: plan.junit.clone(),
        abort_on_fail: false,
    };
    thresholds.check(false)?;
    super::finish::check_outputs(plan.output.as_deref(), &thresholds, &[], &[])?;
    admin::check_tables(plan)?;
    let seed = plan.seed.unwrap_or_else(clock_seed);
    let ready = run_options(plan, seed, command_line)?.build()?;
    let csv_to_stdout = super::args::is_stdout(plan.output.as_deref());
    let human = super::args::Human::new(&super::args::OutputArgs::default(), csv_to_stdout)?;
    human.print(&sysbench_header(&figures::header(plan)));
    let console = Console::new(false, 0, 0).quiet(true);
    let mut observers = Fanout::new().with(console);
    if let Some(every) = plan.report_interval {
        let o = &plan.oltp;
        observers = observers.with(
            interval::Intervals::new(
                every,
                u64::from(o.threads),
                plan.percentile,
                o.per_event(),
                human,
            )
            .limits(plan.time, plan.events),
        );
    }
    let mut run =
        thresholds.run_workload(&ready.run, &ready.workload, &ready.engine, &mut observers)?;
    let finish = super::finish::Finish {
        files: ready.run.outputs.as_ref(),
        through: super::run::through(plan.output.as_deref(), super::args::FormatArg::Full, false),
        ..super::finish::Finish::new(&thresholds, human, crate::runner::exit_code(&run))
    };
    let fatal = run.steps.last().and_then(|step| fatal(plan, step));
    let code = super::finish::finish(&mut run, finish, |run| match run.steps.last() {
        Some(step) => sysbench_report(&figures::of(plan, step)),
        None => String::new(),
    })?;
    match fatal {
        Some(why) => {
            eprintln!("hakaru: error: {why}");
            Ok(code.max(1))
        }
        None => Ok(code),
    }
}

/// Why sysbench 1.0.20 would have ended this run with a FATAL, if it would: an
/// event failed with an error its driver does not ignore (a login refused, a
/// server error outside `--mysql-ignore-errors` or the pgsql driver's three, a
/// lost connection unless the ignore list covers it). A `--timeout`, hakaru's own,
/// is not one. hakaru measures on through them, then exits 1 as sysbench does:
/// exiting 0 passed a run whose connections were killed as a success.
fn fatal(plan: &SysbenchPlan, step: &crate::result::StepResult) -> Option<String> {
    use crate::stats::ErrorKind::{Io, Reset, Timeout};
    // sysbench's mysql driver reconnects on a lost connection the list ignores
    // (`all`, or 2013, 2006, 2055: the client's own codes for it; 1.0.20 then
    // crashes here, but that is what it asks for).
    let reconnects = plan.driver == "mysql"
        && match &plan.oltp.ignore {
            Ignore::All => true,
            Ignore::Codes(codes) => codes.iter().any(|c| [2013, 2006, 2055].contains(c)),
        };
    let survived: &[crate::stats::ErrorKind] = if reconnects {
        &[Timeout, Reset, Io]
    } else {
        &[Timeout]
    };
    let kept_on: u64 = survived.iter().filter_map(|k| step.errors.get(k)).sum();
    let other = step.error_total() - kept_on;
    (other > 0).then(|| {
        format!(
            "{other} event(s) failed with an error sysbench does not ignore \
             (sysbench 1.0.20 stops the run with a FATAL and exits 1; hakaru measured on)"
        )
    })
}
