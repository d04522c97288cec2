//! `hakaru pgbench`: pgbench's flags, defaults and report. The flags become
//! [`crate::spec::pgbench::PgbenchOptions`], checked whole before anything
//! connects; `-i` runs its steps over the blocking admin connection (`http::pg`),
//! with pgbench's step lines and progress on stderr. A run goes on the engine as
//! `run postgres://` does and ends through [`super::finish`] as `run` does (`-o`,
//! `--threshold`, `--junit`, the exit code), with pgbench's report as its summary,
//! `-P`'s lines on stderr while it goes ([`PgbenchProgress`], from the live counts
//! every run's console reads) and `-l --aggregate-interval`'s log after it.
//!
//! pgbench's `-h` is the host, so help is `--help` only.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{bail, Context, Result};
use clap::Args;

use std::sync::Arc;

mod admin;
mod figures;

use crate::console::Console;
use crate::engine::{Progress, StepSpec};
use crate::observe::Fanout;
use crate::report::run::text::pgbench::{aggregate_log, pgbench_report, progress_line};
use crate::result::StepResult;
use crate::runner::Observer;
use crate::spec::pgbench::{check, PgbenchError, PgbenchOptions, PgbenchPlan};
use crate::spec::sql::{GivenScripts, SqlOptions};
use crate::spec::Load;
use crate::spec::{RequestOptions, RunOptions, SessionOptions};
use crate::sql::interp::TxnLog;
use admin::{count_branches, initialize, vacuum};
use figures::figures;

#[derive(Args, Debug)]
#[command(disable_help_flag = true)]
pub struct PgbenchArgs {
    /// The database (PGDATABASE; default: the user's name).
    #[arg(value_name = "DBNAME")]
    pub dbname: Option<String>,
    /// Print help.
    #[arg(long, action = clap::ArgAction::Help)]
    pub help: Option<bool>,

    /// Initialize: create pgbench's tables and fill them.
    #[arg(short = 'i', long = "initialize")]
    pub initialize: bool,
    /// -i: the steps, of dtgGvpf (default dtgvp).
    #[arg(short = 'I', long = "init-steps", value_name = "STEPS")]
    pub init_steps: Option<String>,
    /// -i: the fillfactor of the tables.
    #[arg(short = 'F', long = "fillfactor", value_name = "NUM")]
    pub fillfactor: Option<u32>,
    /// The scaling factor (-i: how many branches; in a run: :scale).
    #[arg(short = 's', long = "scale", value_name = "NUM")]
    pub scale: Option<u64>,
    /// -i: progress every 5 seconds instead of every 100000 rows.
    #[arg(short = 'q', long = "quiet")]
    pub quiet: bool,
    /// -i: create the foreign keys too.
    #[arg(long = "foreign-keys")]
    pub foreign_keys: bool,
    /// -i: unlogged tables.
    #[arg(long = "unlogged-tables")]
    pub unlogged_tables: bool,

    /// A built-in script, NAME[@WEIGHT]: tpcb-like, simple-update, select-only (or a prefix).
    #[arg(short = 'b', long = "builtin", value_name = "NAME[@W]")]
    pub builtin: Vec<String>,
    /// A script file, FILE[@WEIGHT].
    #[arg(short = 'f', long = "file", value_name = "FILE[@W]")]
    pub file: Vec<String>,
    /// -b simple-update.
    #[arg(short = 'N', long = "skip-some-updates")]
    pub skip_some_updates: bool,
    /// -b select-only.
    #[arg(short = 'S', long = "select-only")]
    pub select_only: bool,
    /// Clients (connections).
    #[arg(short = 'c', long = "client", default_value_t = 1, value_name = "NUM")]
    pub clients: u64,
    /// Threads.
    #[arg(short = 'j', long = "jobs", default_value_t = 1, value_name = "NUM")]
    pub jobs: u64,
    /// Seconds to run.
    #[arg(short = 'T', long = "time", value_name = "NUM")]
    pub time: Option<u64>,
    /// Transactions per client (default 10).
    #[arg(short = 't', long = "transactions", value_name = "NUM")]
    pub transactions: Option<u64>,
    /// The open model's rate, transactions per second.
    #[arg(short = 'R', long = "rate", value_name = "NUM")]
    pub rate: Option<f64>,
    /// Count transactions over this many ms (with -R, skip those already late).
    #[arg(short = 'L', long = "latency-limit", value_name = "NUM")]
    pub latency_limit: Option<f64>,
    /// A progress line every NUM seconds.
    #[arg(short = 'P', long = "progress", value_name = "NUM")]
    pub progress: Option<u64>,
    /// Per-statement latencies.
    #[arg(short = 'r', long = "report-per-command")]
    pub report_per_command: bool,
    /// simple, extended or prepared.
    #[arg(short = 'M', long = "protocol", value_name = "MODE")]
    pub protocol: Option<String>,
    /// A new connection per transaction.
    #[arg(short = 'C', long = "connect")]
    pub connect: bool,
    /// A variable, NAME=VALUE.
    #[arg(short = 'D', long = "define", value_name = "NAME=VALUE")]
    pub define: Vec<String>,
    /// Do not vacuum (before a run; with -i, no v step).
    #[arg(short = 'n', long = "no-vacuum")]
    pub no_vacuum: bool,
    /// time, rand or an integer.
    #[arg(long = "random-seed", value_name = "SEED")]
    pub random_seed: Option<String>,
    /// Write each transaction to a log.
    #[arg(short = 'l', long = "log")]
    pub log: bool,
    /// With -l, one line per NUM seconds.
    #[arg(long = "aggregate-interval", value_name = "NUM")]
    pub aggregate_interval: Option<u64>,
    /// Tries of a transaction that fails by serialization or deadlock.
    #[arg(long = "max-tries", default_value_t = 1, value_name = "NUM")]
    pub max_tries: u32,
    /// -P's lines with a Unix timestamp.
    #[arg(long = "progress-timestamp")]
    pub progress_timestamp: bool,
    /// Vacuum pgbench_accounts too before the run.
    #[arg(short = 'v', long = "vacuum-all")]
    pub vacuum_all: bool,
    /// Print a built-in script's text, then exit.
    #[arg(long = "show-script", value_name = "NAME")]
    pub show_script: Option<String>,
    /// Print the version, then exit.
    #[arg(short = 'V', long = "version")]
    pub version: bool,
    /// Report the serialization and deadlock failures apart.
    #[arg(long = "failures-detailed")]
    pub failures_detailed: bool,
    /// pgbench flags hakaru does not carry out, taken only to be refused by name
    /// with why (clap's "unexpected argument" would not say why).
    #[command(flatten)]
    pub refused: Refused,

    /// The server's host (PGHOST).
    #[arg(short = 'h', long = "host", value_name = "HOST")]
    pub host: Option<String>,
    /// The server's port (PGPORT).
    #[arg(short = 'p', long = "port", value_name = "PORT")]
    pub port: Option<String>,
    /// The user (PGUSER); the password is PGPASSWORD or --password-file's.
    #[arg(short = 'U', long = "username", value_name = "USER")]
    pub username: Option<String>,
    /// The password: this file's first line (instead of PGPASSWORD).
    #[arg(long = "password-file", value_name = "FILE")]
    pub password_file: Option<PathBuf>,
    /// -l --aggregate-interval: the log's name before `.<pid>` (default pgbench_log).
    #[arg(long = "log-prefix", value_name = "PREFIX")]
    pub log_prefix: Option<String>,

    /// hakaru's: a transaction not ended within this is counted a timeout (pgbench
    /// has no limit; default 60s, so a run ends within its -T and this).
    #[arg(long = "timeout", value_parser = crate::spec::parse_duration, value_name = "DURATION")]
    pub timeout: Option<Duration>,

    /// Write hakaru's result here (the CSV, and the JSON beside it), as `run -o`
    /// does; `-` prints the CSV on stdout instead of pgbench's report (then on stderr).
    #[arg(short = 'o', long = "output", value_name = "PATH")]
    pub output_path: Option<PathBuf>,

    #[command(flatten)]
    pub thresholds: super::threshold::ThresholdArgs,
}

/// pgbench 15's flags that hakaru pgbench refuses, each with its reason.
#[derive(Args, Debug, Default)]
pub struct Refused {
    #[arg(long = "partitions", hide = true, value_name = "NUM")]
    partitions: Option<String>,
    #[arg(long = "partition-method", hide = true, value_name = "METHOD")]
    partition_method: Option<String>,
    #[arg(long = "tablespace", hide = true, value_name = "TABLESPACE")]
    tablespace: Option<String>,
    #[arg(long = "index-tablespace", hide = true, value_name = "TABLESPACE")]
    index_tablespace: Option<String>,
    #[arg(long = "sampling-rate", hide = true, value_name = "NUM")]
    sampling_rate: Option<String>,
    #[arg(long = "verbose-errors", hide = true)]
    verbose_errors: bool,
    #[arg(short = 'd', long = "debug", hide = true)]
    debug: bool,
}

impl Refused {
    /// The first refused flag given, with why hakaru does not carry it out.
    fn first(&self) -> Option<(&'static str, &'static str)> {
        const LAYOUT: &str = "-i makes pgbench's plain tables; partitioned tables and \
             tablespaces are not built (make them with psql, then run without -i)";
        [
            (self.partitions.is_some(), "--partitions", LAYOUT),
            (
                self.partition_method.is_some(),
                "--partition-method",
                LAYOUT,
            ),
            (self.tablespace.is_some(), "--tablespace", LAYOUT),
            (
                self.index_tablespace.is_some(),
                "--index-tablespace",
                LAYOUT,
            ),
            (
                self.sampling_rate.is_some(),
                "--sampling-rate",
                "the per-transaction log is written whole; -o FILE's result holds \
                 every second's histogram",
            ),
            (
                self.verbose_errors,
                "--verbose-errors",
                "hakaru keeps one sample message per error kind, shown in the report \
                 and the -o result",
            ),
            (
                self.debug,
                "-d/--debug",
                "hakaru has no protocol trace; run `hakaru run postgres://… --verbose`",
            ),
        ]
        .into_iter()
        .find(|(given, _, _)| *given)
        .map(|(_, flag, why)| (flag, why))
    }
}

fn options(a: &PgbenchArgs, command_line: &[String]) -> Result<PgbenchOptions> {
    let mut files = Vec::new();
    for f in &a.file {
        let path = crate::sql::builtin::split_weight(f).map_or(f.as_str(), |(p, _)| p);
        let text = std::fs::read_to_string(path).with_context(|| format!("-f {path}"))?;
        files.push((f.clone(), text));
    }
    let password_file = match &a.password_file {
        Some(p) => {
            let text = std::fs::read_to_string(p)
                .with_context(|| format!("--password-file {}", p.display()))?;
            Some((p.display().to_string(), text))
        }
        None => None,
    };
    let env = ["PGHOST", "PGPORT", "PGUSER", "PGPASSWORD", "PGDATABASE"]
        .iter()
        .filter_map(|k| std::env::var(k).ok().map(|v| (k.to_string(), v)))
        .collect();
    Ok(PgbenchOptions {
        host: a.host.clone(),
        port: a.port.clone(),
        user: a.username.clone(),
        dbname: a.dbname.clone(),
        env,
        password_file,
        initialize: a.initialize,
        scale: a.scale,
        fillfactor: a.fillfactor,
        init_steps: a.init_steps.clone(),
        foreign_keys: a.foreign_keys,
        unlogged_tables: a.unlogged_tables,
        no_vacuum: a.no_vacuum,
        builtins: a.builtin.clone(),
        files,
        skip_some_updates: a.skip_some_updates,
        select_only: a.select_only,
        script_order: crate::spec::pgbench::script_order(command_line),
        clients: a.clients,
        threads: a.jobs,
        time: a.time,
        transactions: a.transactions,
        rate: a.rate,
        latency_limit_ms: a.latency_limit,
        mode: a.protocol.clone(),
        defines: a.define.clone(),
        random_seed: a.random_seed.clone(),
        max_tries: a.max_tries,
        progress: a.progress,
        log: a.log,
        aggregate_interval: a.aggregate_interval,
        log_prefix: a.log_prefix.clone(),
    })
}

pub fn run(a: PgbenchArgs, command_line: Vec<String>) -> Result<i32> {
    if a.version {
        println!("pgbench (hakaru {})", env!("CARGO_PKG_VERSION"));
        return Ok(0);
    }
    if a.builtin.iter().any(|b| b == "list") {
        // pgbench prints it on stderr and exits.
        eprint!("{}", crate::sql::builtin::list());
        return Ok(0);
    }
    if let Some(name) = &a.show_script {
        let b = crate::sql::builtin::find(name)
            .map_err(|e| PgbenchError(format!("--show-script: {e}")))?;
        // pgbench prints it on stderr.
        eprintln!("-- {}: {}\n{}", b.name, b.title, b.text);
        return Ok(0);
    }
    if let Some((flag, why)) = a.refused.first() {
        bail!(PgbenchError(format!(
            "{flag}: not carried out by hakaru pgbench: {why}"
        )));
    }
    let mut o = options(&a, &command_line)?;
    let mut plan = check(&o)?;
    if plan.init.is_some() {
        initialize(&plan, a.quiet)?;
        return Ok(0);
    }
    let log = check_paths(&a, &plan)?;
    if a.random_seed.is_some() {
        // As pgbench: the seed said, so a `time` or `rand` run can be run again.
        eprintln!("setting random seed to {}", plan.seed);
    }
    let txn_log = match &plan.txn_log {
        Some(prefix) => Some(open_txn_log(
            &txn_log_paths(prefix, plan.threads),
            &a,
            plan.rate.is_some(),
        )?),
        None => None,
    };
    if !a.no_vacuum {
        vacuum(&plan, a.vacuum_all)?;
    }
    if plan.builtin {
        // As pgbench: a built-in script's :scale is the tables' (-s is for -i).
        let n = count_branches(&plan)?;
        if a.scale.is_some_and(|s| s != n) {
            eprintln!(
                "pgbench: warning: scale option ignored, using count from pgbench_branches \
                 table ({n})"
            );
        }
        o.scale = Some(n);
        plan = check(&o)?;
    }
    load(&a, &plan, log, txn_log, command_line)
}

/// `-l` alone: pgbench's files, `PREFIX.<pid>` for thread 0 and `PREFIX.<pid>.<n>`
/// for thread n.
fn txn_log_paths(prefix: &str, threads: u64) -> Vec<PathBuf> {
    let pid = std::process::id();
    (0..threads)
        .map(|t| match t {
            0 => PathBuf::from(format!("{prefix}.{pid}")),
            t => PathBuf::from(format!("{prefix}.{pid}.{t}")),
        })
        .collect()
}

/// The files made (emptied) before the load, so one that cannot be written is
/// refused first (exit 2); the workers hand each its thread's whole lines, a
/// buffer at a time, never a line per transaction.
/// `lag`: `-R`'s column; `a`'s `--max-tries` and `--failures-detailed` the rest.
fn open_txn_log(paths: &[PathBuf], a: &PgbenchArgs, lag: bool) -> Result<Arc<TxnLog>> {
    let (retries, detailed) = (a.max_tries != 1, a.failures_detailed);
    let mut files = Vec::new();
    for p in paths {
        let f = std::fs::File::create(p)
            .map_err(|e| PgbenchError(format!("-l {}: {e}", p.display())))?;
        files.push(std::sync::Mutex::new(f));
    }
    let paths = paths.to_vec();
    let write = move |thread: usize, lines: &[u8]| {
        use std::io::Write as _;
        let Some(file) = files.get(thread) else {
            return;
        };
        let mut f = file.lock().unwrap_or_else(|e| e.into_inner());
        if let Err(e) = f.write_all(lines) {
            eprintln!("pgbench: -l {}: {e}", paths[thread].display());
        }
    };
    Ok(Arc::new(TxnLog {
        lag,
        retries,
        detailed,
        write: Box::new(write),
    }))
}

/// The run `hakaru run postgres://… -f` builds: the plan's scripts, clients,
/// threads, `-T` as the duration, `-t` as the budget clients × transactions, `-R`
/// as the open model's rate.
fn run_options(
    a: &PgbenchArgs,
    plan: &PgbenchPlan,
    txn_log: Option<Arc<TxnLog>>,
    command_line: Vec<String>,
) -> RunOptions {
    let u = &plan.url;
    // The password rides in the URL (PGPASSWORD's or --password-file's): the run's
    // records redact a URL's password, and no process-wide variable is set.
    let enc = |s: &str| {
        percent_encoding::utf8_percent_encode(s, percent_encoding::NON_ALPHANUMERIC).to_string()
    };
    let login = match &u.password {
        Some(p) => format!("{}:{}", enc(&u.user), enc(p)),
        None => enc(&u.user),
    };
    let url = format!(
        "postgres://{login}@{}:{}/{}",
        u.host,
        u.port,
        enc(&u.database)
    );
    let mut request = RequestOptions {
        url: Some(url),
        threads: plan.threads as usize,
        seed: Some(plan.seed),
        // -C: a new connection (a login) for each transaction.
        keep_alive: !a.connect,
        timeout: a.timeout.unwrap_or(crate::spec::sql::DROP_IN_TIMEOUT),
        n_slow: 0,
        n_fast: 0,
        ..RequestOptions::default()
    };
    request.kv.sql = SqlOptions {
        files: Vec::new(),
        query_mode: a.protocol.clone(),
        // pgbench's 0: unlimited (the run's -T or the transaction's --timeout ends it).
        max_tries: match a.max_tries {
            0 => Some(u32::MAX),
            1 => None,
            n => Some(n),
        },
        given: Some(GivenScripts(Arc::new(
            plan.scripts.clone().with_txn_log(txn_log),
        ))),
    };
    RunOptions {
        request,
        session: SessionOptions::default(),
        load: Load::Step {
            clients: plan.clients as usize,
            duration: plan.duration,
            requests: plan.per_client.map(|t| t * plan.clients),
            rate: plan.rate.map(|r| format!("{r}")),
        },
        interval: Duration::ZERO,
        output_path: a
            .output_path
            .clone()
            .filter(|p| !crate::outfile::is_through(p)),
        command_line,
    }
}

/// Before anything connects: the thresholds, and every path the end writes
/// (none may be a -f script or the password file). The log's path, with `-l`.
fn check_paths(a: &PgbenchArgs, plan: &PgbenchPlan) -> Result<Option<PathBuf>> {
    a.thresholds.check(false)?;
    let log = plan
        .aggregate_log
        .as_ref()
        .map(|(_, prefix)| PathBuf::from(format!("{prefix}.{}", std::process::id())));
    let txn = plan
        .txn_log
        .as_ref()
        .map_or_else(Vec::new, |prefix| txn_log_paths(prefix, plan.threads));
    let more: Vec<(&'static str, &Path)> = log
        .iter()
        .chain(&txn)
        .map(|p| ("-l", p.as_path()))
        .collect();
    let scripts: Vec<PathBuf> = a
        .file
        .iter()
        .map(|f| {
            let path = crate::sql::builtin::split_weight(f).map_or(f.as_str(), |(p, _)| p);
            PathBuf::from(path)
        })
        .collect();
    let mut inputs: Vec<(&str, &Path)> = scripts
        .iter()
        .map(|p| ("the -f script", p.as_path()))
        .collect();
    if let Some(p) = &a.password_file {
        inputs.push(("the --password-file", p.as_path()));
    }
    super::finish::check_outputs(a.output_path.as_deref(), &a.thresholds, &more, &inputs)?;
    Ok(log)
}

/// A run on the engine, then pgbench's report from its one step, through the end
/// every measuring command shares.
fn load(
    a: &PgbenchArgs,
    plan: &PgbenchPlan,
    log: Option<PathBuf>,
    txn_log: Option<Arc<TxnLog>>,
    command_line: Vec<String>,
) -> Result<i32> {
    let mut ready = run_options(a, plan, txn_log, command_line).build()?;
    ready.engine.skip_late = plan.skip_late;
    // -t: each client runs exactly its transactions, as pgbench's do.
    ready.engine.budget_per_client = plan.per_client.is_some();
    let csv_to_stdout = super::args::is_stdout(a.output_path.as_deref());
    let human = super::args::Human::new(&super::args::OutputArgs::default(), csv_to_stdout)?;
    human.print(&format!("pgbench (hakaru {})\n", env!("CARGO_PKG_VERSION")));
    let console = Console::new(false, 0, 0).quiet(true);
    let mut watchers = Fanout::new();
    if let Some(every) = a.progress {
        watchers = watchers.with(PgbenchProgress::new(
            every,
            plan.rate.is_some(),
            plan.skip_late.is_some(),
            a.progress_timestamp,
        ));
    }
    let mut run = a.thresholds.run_load_with(&ready, console, watchers)?;
    let Some(step) = run.steps.last() else {
        bail!("pgbench: the run measured no step");
    };
    let figures = figures(a, plan, step);
    let aborted = aborted(step);
    let mut extra = Vec::new();
    if let (Some((every, _)), Some(path)) = (&plan.aggregate_log, &log) {
        let lines = aggregate_log(step, *every, a.failures_detailed).map_err(anyhow::Error::msg)?;
        extra.push((path.clone(), lines.into_bytes()));
    }
    let finish = super::finish::Finish {
        extra,
        files: ready.run.outputs.as_ref(),
        through: super::run::through(
            a.output_path.as_deref(),
            super::args::FormatArg::Full,
            false,
        ),
        ..super::finish::Finish::new(&a.thresholds, human, crate::runner::exit_code(&run))
    };
    let code = super::finish::finish(&mut run, finish, |_| pgbench_report(&figures))?;
    match aborted {
        Some(why) => {
            eprintln!("hakaru: error: {why}");
            Ok(code.max(1))
        }
        None => Ok(code),
    }
}

/// Why pgbench 15 would have aborted this run, if it would: a client that could
/// not connect or log in (no listener, TLS, a refused password, too many
/// connections, a server starting up), or a transaction that failed with an
/// error other than a serialization failure or a deadlock (the only ones pgbench
/// counts as failed and goes on; a `--timeout`, hakaru's own, is not one).
/// hakaru measures on through them, then exits 1: exiting 0 hid that `-c 30` ran
/// on 20 connections, or that every other transaction failed.
fn aborted(step: &StepResult) -> Option<String> {
    use crate::stats::ErrorKind::*;
    let count = |kinds: &[crate::stats::ErrorKind]| -> u64 {
        kinds.iter().filter_map(|k| step.errors.get(k)).sum()
    };
    let login = [
        Connect,
        Tls,
        ReplyNoauth,
        SqlTooManyConnections,
        SqlCannotConnectNow,
    ];
    let unconnected = count(&login);
    if unconnected > 0 {
        return Some(format!(
            "{unconnected} transaction(s) failed because their client could not connect \
             (pgbench aborts the run when a client cannot connect)"
        ));
    }
    let kept_on = [SqlSerializationFailure, SqlDeadlock, Timeout];
    let other = step.error_total() - count(&kept_on);
    (other > 0).then(|| {
        format!(
            "{other} transaction(s) failed with an error other than a serialization failure \
             or a deadlock (pgbench 15 aborts its client then and exits 2; hakaru measured on)"
        )
    })
}

/// `-P SEC`: pgbench's progress line on stderr every SEC seconds, from the live
/// counts the engine reports four times a second (the ones `run`'s console and
/// `--live-out` read): transactions and failures exact, latency's mean and
/// deviation from the counts' running sums, exact to the microsecond.
struct PgbenchProgress {
    every: Duration,
    rate: bool,
    skips: bool,
    timestamp: bool,
    next: Duration,
    last: Option<Progress>,
}

impl PgbenchProgress {
    fn new(every_s: u64, rate: bool, skips: bool, timestamp: bool) -> Self {
        let every = Duration::from_secs(every_s);
        PgbenchProgress {
            every,
            rate,
            skips,
            timestamp,
            next: every,
            last: None,
        }
    }
}

impl Observer for PgbenchProgress {
    fn step_started(&mut self, _at: crate::runner::Position, _spec: &StepSpec) {
        self.next = self.every;
        self.last = None;
    }

    fn progress(&mut self, _spec: &StepSpec, p: Progress) {
        if p.elapsed < self.next {
            return;
        }
        self.next = self.every * (p.elapsed.as_secs() / self.every.as_secs() + 1) as u32;
        let last = self.last.replace(p);
        let (t0, done0, failed0, lat0) = last
            .map_or((Duration::ZERO, 0, 0, Default::default()), |l| {
                (l.elapsed, l.finished, l.failed, l.latency)
            });
        let dt = (p.elapsed - t0).as_secs_f64().max(1e-9);
        let failed = p.failed.saturating_sub(failed0);
        let ok = p.finished.saturating_sub(done0).saturating_sub(failed);
        let since = p.latency.since(&lat0);
        let s = since.sums();
        let n = since.count().max(1) as f64;
        let mean = s.latency_us as f64 / n;
        let var = (s.latency_sq_us as f64 / n - mean * mean).max(0.0);
        let lag = self
            .rate
            .then(|| s.lag_us as f64 / s.lags.max(1) as f64 / 1e3);
        // pgbench: the seconds since the start, or a Unix time to the millisecond.
        let at = if self.timestamp {
            let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
            format!("{:.3}", now.map_or(0.0, |d| d.as_secs_f64()))
        } else {
            format!("{:.1}", p.elapsed.as_secs_f64())
        };
        let skipped = self.skips.then_some(s.skipped);
        let tps = ok as f64 / dt;
        let (mean_ms, sd_ms) = (mean / 1e3, var.sqrt() / 1e3);
        eprintln!(
            "{}",
            progress_line(&at, tps, mean_ms, sd_ms, failed, lag, skipped)
        );
    }
}
