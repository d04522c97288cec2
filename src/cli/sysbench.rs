//! `hakaru sysbench`: sysbench's OLTP tests with its command line and report. The
//! words after the command are sysbench's own (`[options] testname
//! prepare|run|cleanup`), parsed whole by [`crate::spec::sysbench`] before anything
//! connects; `prepare` and `cleanup` run over the blocking admin connection
//! (`sysbench::admin`) with sysbench's lines; `run` runs the test on the engine and prints
//! sysbench's report from the step's result, then ends through `finish` (`-o`,
//! `--threshold`, `--junit`).

use std::net::ToSocketAddrs;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Result;
use clap::Args;

use crate::console::Console;
use crate::http::mysql_conn::{MyMode, MysqlTarget};
use crate::http::pg_conn::PgTarget;
use crate::http::{Proto, Target};
use crate::observe::Fanout;
use crate::report::run::text::sysbench::{sysbench_header, sysbench_report};
use crate::spec::sql::{GivenScripts, SqlOptions};
use crate::spec::sysbench::{parse, SbCommand, SysbenchError, SysbenchPlan};
use crate::spec::{Load, RequestOptions, RunOptions, SessionOptions};
use crate::sql::interp::{Mode, Scripts, Weighted};
use crate::sql::mysql::url::MyUrl;
use crate::sql::pg::frontend::QueryMode;
use crate::sql::pg::url::PgUrl;
use crate::sql::Dialect;
use crate::workload::sysbench::SysbenchWorkload;

mod admin;
mod figures;
mod interval;

/// What `hakaru sysbench --help` says above the examples.
const LONG_ABOUT: &str = "\
sysbench's own words: `[options] TESTNAME prepare|run|cleanup`.

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
--non-index-updates, --delete-inserts, --range-selects, --skip-trx, --auto-inc, --secondary, --create-secondary,
--random-points, --number-of-ranges, --delta. hakaru's own: -o FILE (the result,
CSV and JSON), --threshold EXPR (repeatable), --junit FILE.

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
        _ => load(&plan, command_line),
    }
}

/// The database of `--db-driver`: its URL as hakaru's SQL targets take it, the
/// password in it (never printed: both types redact it).
pub(super) enum DbUrl {
    Pg(PgUrl),
    My(MyUrl),
}

impl DbUrl {
    /// `--pgsql-*` or `--mysql-*`, parsed.
    pub(super) fn of(plan: &SysbenchPlan) -> Result<DbUrl> {
        let c = &plan.conn;
        let bad = |e: String| SysbenchError(format!("the connection: {e}"));
        let at = format!("{}@{}:{}/{}", c.user, c.host, c.port, c.db);
        Ok(match plan.oltp.dialect {
            Dialect::Postgres => {
                let mut u = PgUrl::parse(&format!("postgres://{at}")).map_err(bad)?;
                u.password = c.password.clone();
                DbUrl::Pg(u)
            }
            Dialect::Mysql => {
                let mut u = MyUrl::parse(&format!("mysql://{at}")).map_err(bad)?;
                u.password = c.password.clone();
                DbUrl::My(u)
            }
        })
    }

    /// The URL without its password, for the run's settings.
    fn plain(&self) -> String {
        match self {
            DbUrl::Pg(u) => format!("postgres://{}@{}:{}/{}", u.user, u.host, u.port, u.database),
            DbUrl::My(u) => format!("mysql://{}@{}:{}/{}", u.user, u.host, u.port, u.database),
        }
    }
}

fn clock_seed() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(1, |d| d.as_nanos() as u64)
}

/// The run's steps, warm-up, outputs and engine, built as `hakaru run` builds them
/// for a SQL URL; its workload (a placeholder script) is replaced by the test.
fn run_options(
    plan: &SysbenchPlan,
    url: &DbUrl,
    seed: u64,
    command_line: Vec<String>,
) -> Result<RunOptions> {
    let placeholder =
        crate::sql::script::parse("sysbench", "SELECT 1;\n").map_err(|e| anyhow::anyhow!("{e}"))?;
    let scripts = Scripts::new(
        vec![Weighted {
            name: plan.oltp.test.name().into(),
            weight: 1,
            script: placeholder,
        }],
        Mode::Simple,
        Vec::new(),
    );
    let mut request = RequestOptions {
        url: Some(url.plain()),
        seed: Some(seed),
        n_slow: 0,
        n_fast: 0,
        ..RequestOptions::default()
    };
    request.kv.sql = SqlOptions {
        files: Vec::new(),
        query_mode: None,
        given: Some(GivenScripts(Arc::new(scripts))),
        max_tries: None,
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

/// The test's target: PostgreSQL or MySQL, prepared statements unless `--db-ps-mode=disable`
/// or the test sends plain queries.
fn target(plan: &SysbenchPlan, url: DbUrl) -> Result<Target> {
    let o = &plan.oltp;
    let prepared = o.prepared && !o.test.plain_queries();
    let (host, port, proto) = match url {
        DbUrl::Pg(url) => {
            let mode = if prepared {
                QueryMode::Prepared
            } else {
                QueryMode::Simple
            };
            let (host, port) = (url.host.clone(), url.port);
            let t = PgTarget {
                password: url.password.clone(),
                url,
                mode,
            };
            (host, port, Proto::Postgres(Arc::new(t)))
        }
        DbUrl::My(url) => {
            let mode = if prepared {
                MyMode::Prepared
            } else {
                MyMode::Simple
            };
            let (host, port) = (url.host.clone(), url.port);
            let t = MysqlTarget {
                password: url.password.clone(),
                url,
                mode,
            };
            (host, port, Proto::Mysql(Arc::new(t)))
        }
    };
    let addrs: Vec<_> = (host.as_str(), port)
        .to_socket_addrs()
        .map_err(|e| SysbenchError(format!("--{}-host={host}: {e}", plan.driver)))?
        .collect();
    Ok(Target {
        https: false,
        host,
        port,
        addrs,
        proto,
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
    let url = DbUrl::of(plan)?;
    let seed = plan.seed.unwrap_or_else(clock_seed);
    let mut ready = run_options(plan, &url, seed, command_line)?.build()?;
    ready.run.settings.patterns_source = format!("sysbench {}", plan.oltp.test.name());
    let workload = Arc::new(SysbenchWorkload::new(
        target(plan, url)?,
        plan.oltp.clone(),
        seed,
        RequestOptions::default().timeout,
    ));
    let csv_to_stdout = super::args::is_stdout(plan.output.as_deref());
    let human = super::args::Human::new(&super::args::OutputArgs::default(), csv_to_stdout)?;
    human.print(&sysbench_header(&figures::header(plan)));
    let console = Console::new(false, 0, 0).quiet(true);
    let mut observers = Fanout::new().with(console);
    if let Some(every) = plan.report_interval {
        let o = &plan.oltp;
        observers = observers.with(interval::Intervals::new(
            every,
            u64::from(o.threads),
            plan.percentile,
            o.per_event(),
            human,
        ));
    }
    let mut run = thresholds.run_workload(&ready.run, &workload, &ready.engine, &mut observers)?;
    let finish = super::finish::Finish {
        files: ready.run.outputs.as_ref(),
        through: super::run::through(plan.output.as_deref(), super::args::FormatArg::Full, false),
        ..super::finish::Finish::new(&thresholds, human, crate::runner::exit_code(&run))
    };
    super::finish::finish(&mut run, finish, |run| match run.steps.last() {
        Some(step) => sysbench_report(&figures::of(plan, step)),
        None => String::new(),
    })
}
