//! `hakaru sysbench`'s command line as sysbench takes it, checked whole before
//! anything connects: `[options] testname prepare|run|cleanup` in any order,
//! options as `--name=value` (a bare `--flag` is on), sysbench's defaults, the
//! connection from `--db-driver` and its `--pgsql-*`/`--mysql-*` options, then
//! hakaru's own (`-o`, `--threshold`, `--junit`). An option neither knows is
//! refused by name; a Lua script of one's own is refused with where custom
//! workloads go instead.

use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use crate::spec::threshold::{parse_threshold, Threshold};
use crate::sql::sysbench::rand::{Dist, RandSpec};
use crate::sql::sysbench::{Ignore, OltpOptions, Test};
use crate::sql::Dialect;

/// A bad option, named; exit 2 before any load.
#[derive(Debug, Clone, PartialEq)]
pub struct SysbenchError(pub String);

impl fmt::Display for SysbenchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SysbenchError {}

fn bad(s: impl Into<String>) -> SysbenchError {
    SysbenchError(s.into())
}

/// What to do with the test.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SbCommand {
    Prepare,
    Run,
    Cleanup,
    /// The tables read into the server's caches (MySQL only, as in sysbench).
    Prewarm,
    Help,
    /// `--version`: sysbench's version line.
    Version,
}

/// The database's address and login (`--pgsql-*` or `--mysql-*`).
#[derive(Clone, PartialEq)]
pub struct Connection {
    pub host: String,
    pub port: u16,
    pub user: String,
    pub password: Option<String>,
    pub db: String,
}

/// The password never shows.
impl fmt::Debug for Connection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Connection")
            .field("host", &self.host)
            .field("port", &self.port)
            .field("user", &self.user)
            .field("password", &self.password.as_ref().map(|_| "***"))
            .field("db", &self.db)
            .finish()
    }
}

/// The checked command line.
#[derive(Debug, Clone)]
pub struct SysbenchPlan {
    pub command: SbCommand,
    pub oltp: OltpOptions,
    /// `--db-driver`: `pgsql` or `mysql`.
    pub driver: &'static str,
    pub conn: Connection,
    /// `--time` (0: none).
    pub time: Option<Duration>,
    /// `--events` (0: none).
    pub events: Option<u64>,
    /// `--rate`, transactions per second (0: as fast as the threads go).
    pub rate: Option<f64>,
    pub warmup: Option<Duration>,
    /// `--report-interval` (0: none).
    pub report_interval: Option<Duration>,
    /// `--percentile` (0: none).
    pub percentile: u32,
    pub histogram: bool,
    /// `--rand-seed` (0: from the clock).
    pub seed: Option<u64>,
    /// hakaru's `--timeout`: a transaction's limit (sysbench has none).
    pub timeout: Duration,
    /// hakaru's `-o`: the result's CSV, the JSON beside it.
    pub output: Option<PathBuf>,
    pub thresholds: Vec<Threshold>,
    pub junit: Option<PathBuf>,
    /// sysbench's warnings for what it takes but deprecates (`--num-threads`,
    /// `--test`), printed on stderr before anything runs.
    pub warnings: Vec<String>,
}

/// The options as written: each `--name[=value]` once, marked when read.
struct Given {
    opts: Vec<(String, Option<String>, bool)>,
}

impl Given {
    fn take(&mut self, name: &str) -> Option<Option<String>> {
        let mut found = None;
        for (n, v, used) in &mut self.opts {
            if n == name {
                *used = true;
                found = Some(v.clone());
            }
        }
        found
    }

    fn text(&mut self, name: &str) -> Result<Option<String>, SysbenchError> {
        match self.take(name) {
            None => Ok(None),
            Some(Some(v)) => Ok(Some(v)),
            Some(None) => Err(bad(format!("--{name} needs a value: --{name}=VALUE"))),
        }
    }

    fn num<T: std::str::FromStr>(&mut self, name: &str, default: T) -> Result<T, SysbenchError> {
        match self.text(name)? {
            None => Ok(default),
            Some(v) => v
                .parse()
                .map_err(|_| bad(format!("--{name}={v}: not a number of the right kind"))),
        }
    }

    fn flag(&mut self, name: &str, default: bool) -> Result<bool, SysbenchError> {
        match self.take(name) {
            None => Ok(default),
            Some(None) => Ok(true),
            Some(Some(v)) => match v.as_str() {
                "on" | "true" | "yes" | "1" => Ok(true),
                "off" | "false" | "no" | "0" => Ok(false),
                _ => Err(bad(format!("--{name}={v}: on or off"))),
            },
        }
    }
}

/// Words that are hakaru's own and take their value as the next word too.
const OWN_WITH_VALUE: [&str; 5] = ["-o", "--output", "--threshold", "--junit", "--timeout"];

/// sysbench 1.0's deprecated spellings of its general options: taken, with its
/// warning (in this order, as it checks them).
const ALIASES: [(&str, &str); 4] = [
    ("num-threads", "threads"),
    ("max-requests", "events"),
    ("max-time", "time"),
    ("tx-rate", "rate"),
];

/// The words split: the options, the positionals, sysbench's warnings.
type Split = (Given, Vec<String>, Vec<String>);

/// Splits the words into options and the two positionals; a deprecated spelling
/// becomes its new name (`--test=NAME` the test's positional) with sysbench's warning.
fn split(args: &[String]) -> Result<Split, SysbenchError> {
    let (mut opts, mut positional, mut warnings) = (Vec::new(), Vec::new(), Vec::new());
    let mut aliased = [false; ALIASES.len()];
    let mut words = args.iter();
    while let Some(w) = words.next() {
        if w == "--help" || w == "-h" {
            positional.push("help".to_string());
            continue;
        }
        if w == "--version" || w == "--version=on" {
            positional.push("version".to_string());
            continue;
        }
        let Some(rest) = w
            .strip_prefix("--")
            .or_else(|| w.strip_prefix('-').filter(|r| *r == "o"))
        else {
            positional.push(w.clone());
            continue;
        };
        let (name, value) = match rest.split_once('=') {
            Some((n, v)) => (n.to_string(), Some(v.to_string())),
            None if OWN_WITH_VALUE.contains(&w.as_str()) => {
                let v = words
                    .next()
                    .ok_or_else(|| bad(format!("{w} needs a value")))?;
                (rest.to_string(), Some(v.clone()))
            }
            None => (rest.to_string(), None),
        };
        let name = if name == "o" {
            "output".to_string()
        } else {
            name.replace('_', "-")
        };
        if let (Some(test), "test") = (&value, name.as_str()) {
            warnings.push(
                "WARNING: the --test option is deprecated. You can pass a script name or path on the command line without any options.".into(),
            );
            positional.insert(0, test.clone());
            continue;
        }
        let name = match ALIASES.iter().position(|(old, _)| *old == name) {
            Some(i) => {
                aliased[i] = true;
                ALIASES[i].1.to_string()
            }
            None => name,
        };
        opts.push((name, value, false));
    }
    // Once each, in sysbench's order.
    for (old, new) in ALIASES
        .iter()
        .zip(aliased)
        .filter_map(|(a, on)| on.then_some(a))
    {
        warnings.push(format!(
            "WARNING: --{old} is deprecated, use --{new} instead"
        ));
    }
    Ok((Given { opts }, positional, warnings))
}

/// The test and the command from the positionals.
fn positionals(words: &[String]) -> Result<(Option<Test>, SbCommand), SysbenchError> {
    let mut test = None;
    let mut command = None;
    for w in words {
        let c = match w.as_str() {
            "prepare" => Some(SbCommand::Prepare),
            "run" => Some(SbCommand::Run),
            "cleanup" => Some(SbCommand::Cleanup),
            "help" => Some(SbCommand::Help),
            "version" => Some(SbCommand::Version),
            "prewarm" => Some(SbCommand::Prewarm),
            _ => None,
        };
        match (c, &test) {
            (Some(c), _) if command.is_none() => command = Some(c),
            (Some(_), _) => {
                return Err(bad(format!(
                    "{w}: one command only (prepare, run or cleanup)"
                )))
            }
            (None, None) => test = Some(parse_test(w)?),
            // `--test=NAME` beside the same NAME, as sysbench takes it.
            (None, Some(t)) if parse_test(w)? == *t => {}
            (None, Some(_)) => return Err(bad(format!("{w}: one test only"))),
        }
    }
    let command = command
        .ok_or_else(|| bad("no command: hakaru sysbench TESTNAME [options] prepare|run|cleanup"))?;
    Ok((test, command))
}

fn parse_test(w: &str) -> Result<Test, SysbenchError> {
    if let Some(t) = Test::parse(w).or_else(|| installed_script(w)) {
        return Ok(t);
    }
    if w.ends_with(".lua") || w.contains('/') || std::path::Path::new(w).is_file() {
        return Err(bad(format!(
            "{w}: hakaru sysbench runs sysbench's built-in tests only, not a Lua script; \
             write a custom workload as a SQL script in pgbench's language and run it with \
             hakaru run postgres://USER@HOST/DB -f script.sql (or mysql://USER@HOST/DB; see docs/guide/sql.md)"
        )));
    }
    let names: Vec<&str> = Test::ALL.iter().map(|t| t.name()).collect();
    Err(bad(format!(
        "{w}: not one of sysbench's tests ({})",
        names.join(", ")
    )))
}

/// A built-in test named by the path sysbench installs its script at
/// (`/usr/share/sysbench/oltp_read_write.lua`, `/usr/local/share/…`), as old
/// command lines name it; a script anywhere else may be one's own.
fn installed_script(w: &str) -> Option<Test> {
    let path = std::path::Path::new(w);
    let dir = path.parent()?;
    if !dir.ends_with("share/sysbench") || path.extension()? != "lua" {
        return None;
    }
    Test::parse(path.file_stem()?.to_str()?)
}

/// The connection of `--db-driver`'s database.
fn connection(g: &mut Given, driver: &str, dialect: Dialect) -> Result<Connection, SysbenchError> {
    let (default_port, prefix) = match dialect {
        Dialect::Postgres => (5432, "pgsql"),
        Dialect::Mysql => (3306, "mysql"),
    };
    let host = g
        .text(&format!("{prefix}-host"))?
        .unwrap_or_else(|| "localhost".into());
    if host.starts_with('/') || host.contains(',') {
        return Err(bad(format!(
            "--{prefix}-host={host}: one TCP host (a socket or a list of hosts is not taken)"
        )));
    }
    let port = g.num(&format!("{prefix}-port"), default_port)?;
    let user = g
        .text(&format!("{prefix}-user"))?
        .unwrap_or_else(|| "sbtest".into());
    let password = g
        .text(&format!("{prefix}-password"))?
        .filter(|p| !p.is_empty());
    let db = g
        .text(&format!("{prefix}-db"))?
        .unwrap_or_else(|| "sbtest".into());
    // The other driver's options say the command line meant another database.
    let other = if dialect == Dialect::Postgres {
        "mysql"
    } else {
        "pgsql"
    };
    for o in ["host", "port", "user", "password", "db"] {
        if g.take(&format!("{other}-{o}")).is_some() {
            return Err(bad(format!(
                "--{other}-{o} with --db-driver={driver}: give --{prefix}-{o}, or --db-driver={other}"
            )));
        }
    }
    Ok(Connection {
        host,
        port,
        user,
        password,
        db,
    })
}

fn rand_spec(g: &mut Given) -> Result<RandSpec, SysbenchError> {
    let d = RandSpec::default();
    let dist = match g.text("rand-type")? {
        None => d.dist,
        Some(t) => Dist::parse(&t).ok_or_else(|| {
            bad(format!(
                "--rand-type={t}: uniform, gaussian, special, pareto or zipfian"
            ))
        })?,
    };
    let spec = RandSpec {
        dist,
        iter: g.num("rand-spec-iter", d.iter)?,
        pct: g.num("rand-spec-pct", d.pct)?,
        res: g.num("rand-spec-res", d.res)?,
        pareto_h: g.num("rand-pareto-h", d.pareto_h)?,
        zipf_exp: g.num("rand-zipfian-exp", d.zipf_exp)?,
    };
    if spec.iter == 0 || spec.pct > 100 || spec.res >= 100 {
        return Err(bad(
            "--rand-spec-iter is at least 1, --rand-spec-pct at most 100, --rand-spec-res below 100",
        ));
    }
    if !(spec.pareto_h > 0.0 && spec.pareto_h < 1.0)
        || spec.zipf_exp.is_nan()
        || spec.zipf_exp < 0.0
    {
        return Err(bad(
            "--rand-pareto-h is between 0 and 1, --rand-zipfian-exp at least 0",
        ));
    }
    Ok(spec)
}

/// The test's own options over sysbench's defaults.
fn oltp(g: &mut Given, test: Test, dialect: Dialect) -> Result<OltpOptions, SysbenchError> {
    let d = OltpOptions::new(test, dialect);
    let prepared = match g.text("db-ps-mode")?.as_deref() {
        None | Some("auto") => true,
        Some("disable") => false,
        Some(m) => return Err(bad(format!("--db-ps-mode={m}: auto or disable"))),
    };
    let o = OltpOptions {
        prepared,
        tables: g.num("tables", d.tables)?,
        table_size: g.num("table-size", d.table_size)?,
        range_size: g.num("range-size", d.range_size)?,
        point_selects: g.num("point-selects", d.point_selects)?,
        simple_ranges: g.num("simple-ranges", d.simple_ranges)?,
        sum_ranges: g.num("sum-ranges", d.sum_ranges)?,
        order_ranges: g.num("order-ranges", d.order_ranges)?,
        distinct_ranges: g.num("distinct-ranges", d.distinct_ranges)?,
        index_updates: g.num("index-updates", d.index_updates)?,
        non_index_updates: g.num("non-index-updates", d.non_index_updates)?,
        delete_inserts: g.num("delete-inserts", d.delete_inserts)?,
        range_selects: g.flag("range-selects", d.range_selects)?,
        skip_trx: g.flag("skip-trx", d.skip_trx)?,
        auto_inc: g.flag("auto-inc", d.auto_inc)?,
        secondary: g.flag("secondary", d.secondary)?,
        create_secondary: g.flag("create-secondary", d.create_secondary)?,
        random_points: g.num("random-points", d.random_points)?,
        number_of_ranges: g.num("number-of-ranges", d.number_of_ranges)?,
        delta: g.num("delta", d.delta)?,
        threads: g.num("threads", d.threads)?,
        rand: rand_spec(g)?,
        engine: g.text("mysql-storage-engine")?.unwrap_or(d.engine),
        ..d
    };
    if !o
        .engine
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '_')
    {
        return Err(bad(format!(
            "--mysql-storage-engine={}: a storage engine's name (innodb, myisam, …)",
            o.engine
        )));
    }
    if o.threads == 0 {
        return Err(bad("--threads=0: at least one thread"));
    }
    if o.tables == 0 || o.table_size == 0 {
        return Err(bad("--tables and --table-size are at least 1"));
    }
    if o.tables > 100_000 || o.range_size == 0 {
        return Err(bad("--tables is at most 100000, --range-size at least 1"));
    }
    if matches!(test, Test::RandomPoints | Test::RandomRanges)
        && (o.random_points == 0 || o.number_of_ranges == 0)
    {
        return Err(bad("--random-points and --number-of-ranges are at least 1"));
    }
    Ok(o)
}

/// sysbench's options that hakaru does not do, each with what to do instead.
const NOT_DONE: [(&str, &str); 5] = [
    (
        "report-checkpoints",
        "not done by hakaru sysbench; -o FILE keeps the run second by second (hakaru report FILE.json)",
    ),
    (
        "config-file",
        "not read by hakaru sysbench; give the options on the command line",
    ),
    (
        "mysql-socket",
        "hakaru connects over TCP only: give --mysql-host=127.0.0.1 (and --mysql-port)",
    ),
    (
        "mysql-ssl-cipher",
        "TLS is not done by hakaru sysbench; hakaru run mysql://…?ssl-mode=required does it",
    ),
    (
        "pgsql-variant",
        "not done by hakaru sysbench (PostgreSQL itself only)",
    ),
];

/// sysbench's options with nothing to change here, taken as it takes them: logging,
/// a thread's stack, `--forced-shutdown` (a run ends on time anyway: what is in
/// flight then is counted apart, never waited for). The MySQL driver's switches
/// only when off; the options hakaru does not do refused, each with why.
fn inert(g: &mut Given) -> Result<(), SysbenchError> {
    for name in [
        "verbosity",
        "db-debug",
        "debug",
        "validate",
        "thread-stack-size",
        "forced-shutdown",
    ] {
        let _ = g.take(name);
    }
    for name in [
        "mysql-ssl",
        "mysql-compression",
        "mysql-debug",
        "mysql-dry-run",
    ] {
        if g.flag(name, false)? {
            let tls = match name {
                "mysql-ssl" => "; hakaru run mysql://…?ssl-mode=required speaks TLS",
                _ => "",
            };
            return Err(bad(format!(
                "--{name}=on: not done by hakaru sysbench{tls}"
            )));
        }
    }
    for (name, why) in NOT_DONE {
        if g.take(name).is_some() {
            return Err(bad(format!("--{name}: {why}")));
        }
    }
    Ok(())
}

/// `--mysql-ignore-errors`: sysbench's default list, `all`, `none` or codes.
fn ignore_errors(g: &mut Given, dialect: Dialect) -> Result<Ignore, SysbenchError> {
    match (g.text("mysql-ignore-errors")?, dialect) {
        (None, _) => Ok(Ignore::default()),
        (Some(v), Dialect::Mysql) => {
            Ignore::parse(&v).map_err(|e| bad(format!("--mysql-ignore-errors={v}: {e}")))
        }
        (Some(_), Dialect::Postgres) => Err(bad(
            "--mysql-ignore-errors with --db-driver=pgsql: sysbench's pgsql driver takes no \
             list; it restarts an event on 40P01, 23505 and 40001",
        )),
    }
}

/// sysbench's command line, checked.
pub fn parse(args: &[String]) -> Result<SysbenchPlan, SysbenchError> {
    let (mut g, words, warnings) = split(args)?;
    let (test, command) = positionals(&words)?;
    let driver_text = g.text("db-driver")?.unwrap_or_else(|| "mysql".into());
    let (driver, dialect) = match driver_text.as_str() {
        "pgsql" => ("pgsql", Dialect::Postgres),
        "mysql" => ("mysql", Dialect::Mysql),
        d => return Err(bad(format!("--db-driver={d}: pgsql or mysql"))),
    };
    let test = match (test, command) {
        (Some(t), _) => t,
        (None, SbCommand::Help | SbCommand::Version) => Test::ReadWrite,
        (None, _) => {
            return Err(bad(
                "no test: name one, e.g. hakaru sysbench oltp_read_write … run",
            ))
        }
    };
    let conn = connection(&mut g, driver, dialect)?;
    let mut oltp = oltp(&mut g, test, dialect)?;
    if command == SbCommand::Prewarm && (dialect == Dialect::Postgres || test == Test::BulkInsert) {
        return Err(bad(format!(
            "prewarm: MySQL's OLTP tables only, as in sysbench (not {} with --db-driver={driver}); a --warmup-time=N run warms the server's caches",
            test.name()
        )));
    }
    // sysbench prepares and runs select_random_* whatever --tables says (its run
    // reads sbtest1 alone); its cleanup refuses.
    if command == SbCommand::Cleanup && test.one_table() && oltp.tables != 1 {
        return Err(bad(format!(
            "--tables={}: {}'s cleanup takes --tables=1 alone, as sysbench's does (its run reads sbtest1 only); clean up with oltp_read_write --tables={} cleanup",
            oltp.tables,
            test.name(),
            oltp.tables
        )));
    }
    oltp.ignore = ignore_errors(&mut g, dialect)?;
    let time: u64 = g.num("time", 10)?;
    let events: u64 = g.num("events", 0)?;
    if command == SbCommand::Run && time == 0 && events == 0 {
        return Err(bad(
            "--time=0 and --events=0: the run would never end; give one of them",
        ));
    }
    let rate: f64 = g.num("rate", 0.0)?;
    if !(rate.is_finite() && rate >= 0.0) {
        return Err(bad(format!(
            "--rate={rate}: transactions per second, 0 for no limit"
        )));
    }
    let percentile: u32 = g.num("percentile", 95)?;
    if percentile > 100 {
        return Err(bad(format!(
            "--percentile={percentile}: 1 to 100, or 0 for none"
        )));
    }
    let warmup: u64 = g.num("warmup-time", 0)?;
    let seed: u64 = g.num("rand-seed", 0)?;
    let histogram = g.flag("histogram", false)?;
    let report_interval: u64 = g.num("report-interval", 0)?;
    inert(&mut g)?;
    let timeout = match g.text("timeout")? {
        None => crate::spec::sql::DROP_IN_TIMEOUT,
        Some(t) => {
            crate::spec::parse_duration(&t).map_err(|e| bad(format!("--timeout={t}: {e}")))?
        }
    };
    let output = g.text("output")?.map(PathBuf::from);
    let junit = g.text("junit")?.map(PathBuf::from);
    let mut thresholds = Vec::new();
    for (n, v, used) in &mut g.opts {
        if n == "threshold" {
            *used = true;
            let v = v
                .as_deref()
                .ok_or_else(|| bad("--threshold needs a value"))?;
            thresholds.push(parse_threshold(v).map_err(|e| bad(format!("--threshold {v}: {e}")))?);
        }
    }
    if let Some((n, _, _)) = g.opts.iter().find(|(_, _, used)| !*used) {
        return Err(bad(format!(
            "--{n}: not an option of hakaru sysbench (sysbench's general, --db-driver's and the OLTP tests' options, -o, --threshold, --junit, --timeout; see hakaru sysbench --help)"
        )));
    }
    Ok(SysbenchPlan {
        command,
        oltp,
        driver,
        conn,
        time: (time > 0).then(|| Duration::from_secs(time)),
        events: (events > 0).then_some(events),
        rate: (rate > 0.0).then_some(rate),
        warmup: (warmup > 0).then(|| Duration::from_secs(warmup)),
        report_interval: (report_interval > 0).then(|| Duration::from_secs(report_interval)),
        percentile,
        histogram,
        seed: (seed > 0).then_some(seed),
        timeout,
        output,
        thresholds,
        junit,
        warnings,
    })
}

mod workload;

pub use workload::{build, DbUrl, SysbenchLoad};

#[cfg(test)]
mod tests;
