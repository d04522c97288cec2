//! `hakaru pgbench`'s options as pgbench takes them, checked before anything
//! connects: the connection from `-h -p -U dbname` over `PGHOST`, `PGPORT`, `PGUSER`,
//! `PGPASSWORD`, `PGDATABASE` (the caller reads the environment; this stays pure),
//! the scripts from `-b`/`-f`/`-N`/`-S` with their weights, `-D` variables, and the
//! run's shape (`-T` a duration, `-t` transactions per client, `-R` the open model's
//! rate). `-i`'s steps and table options are checked here too.

use std::fmt;
use std::time::Duration;

use crate::sql::builtin;
use crate::sql::init::{self, Step};
use crate::sql::interp::{Define, Mode, Scripts, Weighted};
use crate::sql::pg::url::PgUrl;
use crate::sql::script::expr::Value;
use crate::sql::script::parse;

/// A bad option, named with its flag; exit 2 before any load.
#[derive(Debug, Clone, PartialEq)]
pub struct PgbenchError(pub String);

impl fmt::Display for PgbenchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for PgbenchError {}

fn bad(s: impl Into<String>) -> PgbenchError {
    PgbenchError(s.into())
}

/// The options as typed (flags first, the environment's `PG*` beside them).
#[derive(Debug, Clone, Default)]
pub struct PgbenchOptions {
    pub host: Option<String>,
    pub port: Option<String>,
    pub user: Option<String>,
    pub dbname: Option<String>,
    /// `PGHOST`, `PGPORT`, `PGUSER`, `PGPASSWORD`, `PGDATABASE`, as read.
    pub env: Vec<(String, String)>,
    /// `--password-file PATH` and the file's text, read by the caller.
    pub password_file: Option<(String, String)>,
    pub initialize: bool,
    pub scale: Option<u64>,
    pub fillfactor: Option<u32>,
    pub init_steps: Option<String>,
    pub foreign_keys: bool,
    pub unlogged_tables: bool,
    pub no_vacuum: bool,
    pub builtins: Vec<String>,
    /// `-f PATH[@W]` with the file's text, read by the caller.
    pub files: Vec<(String, String)>,
    pub skip_some_updates: bool,
    pub select_only: bool,
    /// The order `-b` (`'b'`), `-N`, `-S` and `-f` (`'f'`) came in on the command
    /// line ([`script_order`]): pgbench numbers its scripts so. Empty: `-b`s, `-N`,
    /// `-S`, then the `-f`s.
    pub script_order: Vec<char>,
    pub clients: u64,
    pub threads: u64,
    pub time: Option<u64>,
    pub transactions: Option<u64>,
    pub rate: Option<f64>,
    pub latency_limit_ms: Option<f64>,
    pub mode: Option<String>,
    pub defines: Vec<String>,
    pub random_seed: Option<String>,
    pub max_tries: u32,
    /// `-P`: seconds between progress lines.
    pub progress: Option<u64>,
    /// `-l`, `--aggregate-interval`, `--log-prefix`.
    pub log: bool,
    pub aggregate_interval: Option<u64>,
    pub log_prefix: Option<String>,
}

/// What the run was set to be.
#[derive(Debug)]
pub struct PgbenchPlan {
    pub url: PgUrl,
    /// `-i`: the steps and the tables' options.
    pub init: Option<(Vec<Step>, init::Options)>,
    pub scripts: Scripts,
    /// `:scale` (`-s`, or the count of pgbench_branches the caller read).
    pub scale: u64,
    /// A built-in script runs: pgbench then takes `:scale` from the tables.
    pub builtin: bool,
    /// What pgbench's report names the transactions by.
    pub transaction_type: String,
    pub clients: u64,
    pub threads: u64,
    pub duration: Option<Duration>,
    pub per_client: Option<u64>,
    pub rate: Option<f64>,
    pub seed: u64,
    /// `-R --latency-limit`: a transaction already later than this is skipped.
    pub skip_late: Option<Duration>,
    /// `-l --aggregate-interval`: the interval, seconds, and the log's file name
    /// without its `.<pid>`.
    pub aggregate_log: Option<(u64, String)>,
    /// `-l` alone: a line per transaction, files named this before `.<pid>`.
    pub txn_log: Option<String>,
}

fn env<'a>(o: &'a PgbenchOptions, name: &str) -> Option<&'a str> {
    o.env
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

/// The connection, flags over the environment over pgbench's defaults (localhost,
/// 5432, the user's name as the database). hakaru connects over TCP only: a
/// socket directory as `-h` is refused with why.
fn url(o: &PgbenchOptions) -> Result<PgUrl, PgbenchError> {
    let host = o
        .host
        .as_deref()
        .or(env(o, "PGHOST"))
        .unwrap_or("localhost");
    if host.starts_with('/') {
        return Err(bad(format!(
            "-h {host}: a Unix socket directory; hakaru connects over TCP, give a host"
        )));
    }
    let port = o.port.as_deref().or(env(o, "PGPORT")).unwrap_or("5432");
    let port: u16 = port
        .parse()
        .map_err(|_| bad(format!("-p {port}: not a port number")))?;
    let user = o.user.as_deref().or(env(o, "PGUSER")).unwrap_or("postgres");
    let db = o.dbname.as_deref().or(env(o, "PGDATABASE")).unwrap_or(user);
    let mut u = PgUrl::parse(&format!("postgres://{user}@{host}:{port}/{db}"))
        .map_err(|e| bad(format!("the connection: {e}")))?;
    u.password = match &o.password_file {
        Some((path, text)) => Some(password_from_file(path, text)?),
        None => env(o, "PGPASSWORD").map(str::to_string),
    };
    Ok(u)
}

/// `--password-file`: its first line, without the line's end (an editor's final
/// newline is not part of the password); an empty one refused, as a file that
/// says nothing is a mistake rather than an empty password.
fn password_from_file(path: &str, text: &str) -> Result<String, PgbenchError> {
    let line = text.lines().next().unwrap_or("");
    if line.is_empty() {
        return Err(bad(format!(
            "--password-file {path}: the file's first line is empty"
        )));
    }
    Ok(line.to_string())
}

fn scripts(o: &PgbenchOptions, scale: u64) -> Result<(Vec<Weighted>, String), PgbenchError> {
    let mut out = Vec::new();
    let add_builtin =
        |out: &mut Vec<Weighted>, arg: &str, flag: &str| -> Result<(), PgbenchError> {
            let (name, weight) =
                builtin::split_weight(arg).map_err(|e| bad(format!("{flag}: {e}")))?;
            let b = builtin::find(name).map_err(|e| bad(format!("{flag}: {e}")))?;
            let script = parse(b.title, b.text).map_err(|e| bad(e.to_string()))?;
            out.push(Weighted {
                name: b.title.to_string(),
                weight,
                script,
            });
            Ok(())
        };
    for b in &o.builtins {
        add_builtin(&mut out, b, "-b")?;
    }
    if o.skip_some_updates {
        add_builtin(&mut out, "simple-update", "-N")?;
    }
    if o.select_only {
        add_builtin(&mut out, "select-only", "-S")?;
    }
    for (arg, text) in &o.files {
        let (path, weight) = builtin::split_weight(arg).map_err(|e| bad(format!("-f: {e}")))?;
        let script = parse(path, text).map_err(|e| bad(e.to_string()))?;
        if script.commands.is_empty() {
            return Err(bad(format!("-f {path}: the script has no command")));
        }
        out.push(Weighted {
            name: path.to_string(),
            weight,
            script,
        });
    }
    reorder(&mut out, o);
    if out.is_empty() {
        add_builtin(&mut out, "tpcb-like", "-b")?;
    }
    if out.iter().all(|w| w.weight == 0) {
        return Err(bad("the scripts' weights add up to 0: give one a weight"));
    }
    let _ = scale;
    let title = if out.len() == 1 {
        out[0].name.clone()
    } else {
        "multiple scripts".to_string()
    };
    Ok((out, title))
}

/// `out` (the `-b`s, `-N`, `-S`, then the `-f`s) put in the command line's
/// order, as pgbench numbers them; any the order does not name stay after.
fn reorder(out: &mut Vec<Weighted>, o: &PgbenchOptions) {
    let nb = o.builtins.len();
    let n_at = nb;
    let s_at = n_at + usize::from(o.skip_some_updates);
    let f_at = s_at + usize::from(o.select_only);
    let (mut b, mut f) = (0..nb, f_at..out.len());
    let mut taken: Vec<usize> = Vec::with_capacity(out.len());
    for c in &o.script_order {
        let next = match c {
            'b' => b.next(),
            'f' => f.next(),
            'N' if o.skip_some_updates => Some(n_at),
            'S' if o.select_only => Some(s_at),
            _ => None,
        };
        if let Some(i) = next.filter(|i| !taken.contains(i)) {
            taken.push(i);
        }
    }
    taken.extend(
        (0..out.len())
            .filter(|i| !taken.contains(i))
            .collect::<Vec<_>>(),
    );
    let mut slots: Vec<Option<Weighted>> = out.drain(..).map(Some).collect();
    out.extend(taken.into_iter().filter_map(|i| slots[i].take()));
}

/// The order `-b`, `-N`, `-S` and `-f` come in among `args` (the command line as
/// typed): `'b'`, `'N'`, `'S'`, `'f'`. Short flags may be bundled (`-nS`, `-fx.sql`);
/// a flag's separate value is skipped, so a value is never read as a flag.
pub fn script_order(args: &[String]) -> Vec<char> {
    const SHORT_VALUE: &str = "bfcjTtRLPMDsFIhpUo";
    const LONG_VALUE: [&str; 24] = [
        "init-steps",
        "fillfactor",
        "scale",
        "client",
        "jobs",
        "time",
        "transactions",
        "rate",
        "latency-limit",
        "progress",
        "protocol",
        "define",
        "random-seed",
        "aggregate-interval",
        "max-tries",
        "show-script",
        "host",
        "port",
        "username",
        "password-file",
        "log-prefix",
        "timeout",
        "output",
        "sampling-rate",
    ];
    let mut order = Vec::new();
    let mut tokens = args.iter();
    while let Some(t) = tokens.next() {
        if t == "--" {
            break;
        }
        if let Some(long) = t.strip_prefix("--") {
            let (name, value) = long
                .split_once('=')
                .map_or((long, None), |(n, v)| (n, Some(v)));
            match name {
                "builtin" => order.push('b'),
                "file" => order.push('f'),
                "skip-some-updates" => order.push('N'),
                "select-only" => order.push('S'),
                _ => {}
            }
            let takes = matches!(name, "builtin" | "file") || LONG_VALUE.contains(&name);
            if takes && value.is_none() {
                tokens.next();
            }
            continue;
        }
        let Some(flags) = t.strip_prefix('-').filter(|f| !f.is_empty()) else {
            continue;
        };
        for (i, c) in flags.char_indices() {
            match c {
                'b' | 'f' | 'N' | 'S' => order.push(c),
                _ => {}
            }
            if SHORT_VALUE.contains(c) {
                if i + c.len_utf8() == flags.len() {
                    tokens.next();
                }
                break;
            }
        }
    }
    order
}

fn defines(o: &PgbenchOptions, scale: u64) -> Result<Vec<(String, Define)>, PgbenchError> {
    let mut out = vec![("scale".to_string(), Define::Value(Value::Int(scale as i64)))];
    for d in &o.defines {
        // pgbench's own refusal: no `=`, no name, or no value.
        let Some((name, v)) = d
            .split_once('=')
            .filter(|(n, v)| !n.is_empty() && !v.is_empty())
        else {
            return Err(bad(format!(
                "-D {d}: invalid variable definition (give NAME=VALUE)"
            )));
        };
        let first = name.as_bytes()[0];
        let valid = !first.is_ascii_digit()
            && name
                .bytes()
                .all(|c| c.is_ascii_alphanumeric() || c == b'_' || !c.is_ascii());
        if !valid {
            return Err(bad(format!("-D {d}: invalid variable name \"{name}\"")));
        }
        // pgbench keeps a -D value as text: `:NAME` is the text as given (`007`
        // stays `007`), read as a number or a boolean only where an expression uses it.
        out.retain(|(n, _)| n != name);
        out.push((name.to_string(), Define::Text(v.to_string())));
    }
    Ok(out)
}

/// Checks everything and builds the plan; nothing connects.
pub fn check(o: &PgbenchOptions) -> Result<PgbenchPlan, PgbenchError> {
    let url = url(o)?;
    let scale = o.scale.unwrap_or(1);
    if scale == 0 {
        return Err(bad("-s 0: the scaling factor is at least 1"));
    }
    if o.clients == 0 {
        return Err(bad("-c 0: at least one client"));
    }
    if o.threads == 0 {
        return Err(bad("-j 0: at least one thread"));
    }
    if o.time.is_some() && o.transactions.is_some() {
        return Err(bad(
            "-T and -t: give one, a duration or a number of transactions per client",
        ));
    }
    if o.time == Some(0) || o.transactions == Some(0) {
        return Err(bad("-T/-t 0: the run must do something"));
    }
    if let Some(r) = o.rate {
        if !(r > 0.0 && r.is_finite()) {
            return Err(bad(format!(
                "-R {r}: a rate above 0 transactions per second"
            )));
        }
    }
    if o.latency_limit_ms.is_some_and(|l| l.is_nan() || l <= 0.0) {
        return Err(bad("--latency-limit: a limit above 0 ms"));
    }
    // pgbench's 0 is unlimited tries, bounded by the run's time or the limit.
    if o.max_tries == 0 && o.time.is_none() && o.latency_limit_ms.is_none() {
        return Err(bad(
            "--max-tries 0: an unlimited number of transaction tries can only be used \
             with --latency-limit or a duration (-T)",
        ));
    }
    if o.progress == Some(0) {
        return Err(bad("-P 0: a progress line every 1 second or more"));
    }
    let aggregate_log = log(o)?;
    let txn_log = txn_log(o)?;
    let mode = match o.mode.as_deref().unwrap_or("simple") {
        "simple" => Mode::Simple,
        "extended" => Mode::Extended,
        "prepared" => Mode::Prepared,
        m => return Err(bad(format!("-M {m}: simple, extended or prepared"))),
    };
    let init = if o.initialize {
        let letters = match &o.init_steps {
            Some(s) => s.clone(),
            None => {
                let mut s = if o.no_vacuum { "dtgp" } else { "dtgvp" }.to_string();
                if o.foreign_keys {
                    s.push('f');
                }
                s
            }
        };
        let fillfactor = o.fillfactor.unwrap_or(100);
        if !(10..=100).contains(&fillfactor) {
            return Err(bad(format!("-F {fillfactor}: a fillfactor is 10 to 100")));
        }
        let steps = init::steps(&letters).map_err(bad)?;
        Some((
            steps,
            init::Options {
                scale,
                fillfactor,
                unlogged: o.unlogged_tables,
            },
        ))
    } else {
        None
    };
    let seed = match o.random_seed.as_deref() {
        None | Some("time") => std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64),
        // pgbench: a seed from a strong random source. std's hasher keys are drawn
        // from the OS's per process.
        Some("rand") => {
            use std::hash::{BuildHasher, Hasher};
            std::collections::hash_map::RandomState::new()
                .build_hasher()
                .finish()
        }
        Some(s) => s
            .parse()
            .map_err(|_| bad(format!("--random-seed {s}: time, rand or an integer")))?,
    };
    let (weighted, transaction_type) = scripts(o, scale)?;
    let builtin = weighted.iter().any(|w| w.name.starts_with("<builtin: "));
    let defines = defines(o, scale)?;
    let scripts = Scripts::new(weighted, mode, defines);
    if let Some(name) = scripts.pipeline_in_simple_mode() {
        return Err(bad(format!(
            "{name}: \\startpipeline cannot be used with -M simple (the simple query \
             protocol has no pipeline); give -M extended or prepared"
        )));
    }
    Ok(PgbenchPlan {
        url,
        init,
        scripts,
        scale,
        builtin,
        transaction_type,
        clients: o.clients,
        // pgbench runs no more threads than clients: `-j 4 -c 2` is two threads.
        threads: o.threads.min(o.clients),
        // pgbench's default with neither: 10 transactions per client.
        per_client: o
            .transactions
            .or(if o.time.is_none() { Some(10) } else { None }),
        duration: o.time.map(Duration::from_secs),
        rate: o.rate,
        seed,
        skip_late: o
            .rate
            .and(o.latency_limit_ms)
            .map(|ms| Duration::from_secs_f64(ms / 1e3)),
        aggregate_log,
        txn_log,
    })
}

/// `-l` without `--aggregate-interval`: a line per transaction, written by the
/// engine's workers to `PREFIX.<pid>[.<thread>]`; the file names' prefix. With
/// `-R --latency-limit` pgbench logs the skipped transactions too, which never
/// reach a client here: refused.
fn txn_log(o: &PgbenchOptions) -> Result<Option<String>, PgbenchError> {
    if !o.log || o.aggregate_interval.is_some() {
        return Ok(None);
    }
    if o.rate.is_some() && o.latency_limit_ms.is_some() {
        return Err(bad(
            "-l with -R --latency-limit: the skipped transactions' lines are not written \
             (the pacer skips them before any client); the report and -o FILE count them",
        ));
    }
    Ok(Some(
        o.log_prefix.as_deref().unwrap_or("pgbench_log").to_string(),
    ))
}

/// `-l` with `--aggregate-interval N`: one line per N seconds, from the step's
/// per-second timeline. With `-R` its lines carry the schedule lag per interval,
/// which the timeline does not keep: refused with what to use.
fn log(o: &PgbenchOptions) -> Result<Option<(u64, String)>, PgbenchError> {
    let prefix = o.log_prefix.as_deref();
    match (o.log, o.aggregate_interval) {
        (false, None) if prefix.is_none() => Ok(None),
        (false, _) => Err(bad(
            "--aggregate-interval and --log-prefix go with -l (a log of the transactions)",
        )),
        // Per transaction: the engine writes it (see `txn_log`).
        (true, None) => Ok(None),
        (true, Some(0)) => Err(bad("--aggregate-interval 0: 1 second or more")),
        (true, Some(_)) if o.rate.is_some() => Err(bad(
            "-l --aggregate-interval with -R: the schedule lag per interval is not kept; \
             -o FILE's result holds the run's lag histogram",
        )),
        (true, Some(_)) if o.max_tries != 1 => Err(bad(
            "-l --aggregate-interval with --max-tries: retries are not counted per interval",
        )),
        (true, Some(n)) => Ok(Some((n, prefix.unwrap_or("pgbench_log").to_string()))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts() -> PgbenchOptions {
        PgbenchOptions {
            clients: 1,
            threads: 1,
            max_tries: 1,
            ..Default::default()
        }
    }

    #[test]
    fn flags_win_over_the_environment_and_defaults_fill_the_rest() {
        let mut o = opts();
        o.env = vec![
            ("PGHOST".into(), "127.0.0.1".into()),
            ("PGPORT".into(), "6543".into()),
            ("PGUSER".into(), "bench".into()),
            ("PGPASSWORD".into(), "pw".into()),
        ];
        o.port = Some("7654".into());
        let p = check(&o).unwrap();
        assert_eq!(
            (
                p.url.host.as_str(),
                p.url.port,
                p.url.user.as_str(),
                p.url.database.as_str()
            ),
            ("127.0.0.1", 7654, "bench", "bench")
        );
        assert_eq!(p.url.password.as_deref(), Some("pw"));
        // --password-file wins over PGPASSWORD; its line's end is not the password's.
        o.password_file = Some(("pw.txt".into(), "s3cret\n".into()));
        assert_eq!(check(&o).unwrap().url.password.as_deref(), Some("s3cret"));
        o.password_file = Some(("pw.txt".into(), "\n".into()));
        assert!(check(&o)
            .unwrap_err()
            .0
            .starts_with("--password-file pw.txt"));
        o.password_file = None;
        assert_eq!(p.transaction_type, "<builtin: TPC-B (sort of)>");
        assert_eq!(p.per_client, Some(10));
    }

    #[test]
    fn scripts_come_from_b_f_n_and_s_with_weights() {
        let mut o = opts();
        o.builtins = vec!["sel@3".into()];
        o.skip_some_updates = true;
        o.files = vec![("my.sql@2".into(), "\\set x 1\nSELECT :x;".into())];
        let p = check(&o).unwrap();
        let w: Vec<(&str, u32)> = p
            .scripts
            .scripts
            .iter()
            .map(|s| (s.name.as_str(), s.weight))
            .collect();
        assert_eq!(
            w,
            [
                ("<builtin: select only>", 3),
                ("<builtin: simple update>", 1),
                ("my.sql", 2)
            ]
        );
        assert_eq!(p.transaction_type, "multiple scripts");
    }

    /// Bug: `-f a.sql -b select-only` numbered the built-in first (`SQL script 1`,
    /// `-l`'s script 0); pgbench numbers scripts in the command line's order.
    #[test]
    fn scripts_are_numbered_in_the_command_line_s_order() {
        let args: Vec<String> = [
            "hakaru",
            "pgbench",
            "-c",
            "-b",
            "-f",
            "my.sql@2",
            "-nS",
            "--builtin=simple-update",
            "-D",
            "x=-b",
            "--log-prefix",
            "-f",
            "-bselect-only@3",
            "--",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let order = script_order(&args);
        assert_eq!(order, ['f', 'S', 'b', 'b']);
        let o = PgbenchOptions {
            builtins: vec!["simple-update".into(), "select-only@3".into()],
            files: vec![("my.sql@2".into(), "SELECT 1;".into())],
            select_only: true,
            script_order: order,
            ..opts()
        };
        let names: Vec<String> = check(&o)
            .unwrap()
            .scripts
            .scripts
            .iter()
            .map(|s| format!("{}@{}", s.name, s.weight))
            .collect();
        assert_eq!(
            names,
            [
                "my.sql@2",
                "<builtin: select only>@1",
                "<builtin: simple update>@1",
                "<builtin: select only>@3"
            ]
        );
    }

    #[test]
    fn bad_options_are_named_before_any_load() {
        let e = |f: fn(&mut PgbenchOptions)| {
            let mut o = opts();
            f(&mut o);
            check(&o).unwrap_err().0
        };
        assert_eq!(
            e(|o| o.files = vec![("bad.sql".into(), "\\set x (1".into())]),
            "bad.sql:1:10: expected ')', found the end"
        );
        assert!(e(|o| o.builtins = vec!["s".into()]).starts_with("-b: ambiguous builtin name"));
        assert!(e(|o| {
            o.time = Some(5);
            o.transactions = Some(5)
        })
        .starts_with("-T and -t"));
        assert!(e(|o| o.threads = 0).starts_with("-j 0"));
        // Bug: `-j 4 -c 2` was refused; pgbench runs it on two threads.
        let plan = check(&PgbenchOptions {
            threads: 4,
            clients: 2,
            ..opts()
        })
        .unwrap();
        assert_eq!(plan.threads, 2);
        // Bug: `--max-tries 0` was refused; pgbench's 0 is unlimited, with -T.
        assert!(e(|o| o.max_tries = 0).contains("with --latency-limit or a duration (-T)"));
        let unlimited = PgbenchOptions {
            max_tries: 0,
            time: Some(2),
            ..opts()
        };
        assert!(check(&unlimited).is_ok());
        assert!(e(|o| o.mode = Some("fast".into())).starts_with("-M fast"));
        assert!(e(|o| {
            o.initialize = true;
            o.init_steps = Some("dtx".into())
        })
        .contains("unrecognized initialization step \"x\""));
        assert!(e(|o| {
            o.initialize = true;
            o.fillfactor = Some(5)
        })
        .starts_with("-F 5"));
        assert!(e(|o| o.host = Some("/var/run/postgresql".into())).contains("Unix socket"));
        assert!(e(|o| o.defines = vec!["x".into()]).starts_with("-D x"));
        assert!(e(|o| o.defines = vec!["x=".into()]).contains("invalid variable definition"));
        assert!(e(|o| o.defines = vec!["1x=2".into()]).contains("invalid variable name"));
        assert!(e(|o| {
            o.log = true;
            o.rate = Some(10.0);
            o.latency_limit_ms = Some(5.0)
        })
        .contains("skipped transactions"));
        assert!(e(|o| o.aggregate_interval = Some(5)).contains("go with -l"));
        assert!(e(|o| {
            o.log = true;
            o.aggregate_interval = Some(5);
            o.rate = Some(10.0)
        })
        .contains("schedule lag"));
        assert!(e(|o| o.progress = Some(0)).starts_with("-P 0"));
        assert!(e(|o| o.files = vec![(
            "p.sql".into(),
            "\\startpipeline\nSELECT 1;\n\\endpipeline\n".into()
        )])
        .starts_with("p.sql: \\startpipeline cannot be used with -M simple"));
        assert!(e(|o| o.random_seed = Some("dice".into())).starts_with("--random-seed dice"));
    }

    /// Regression: `--random-seed rand`, which pgbench's help names, was refused
    /// as "time, rand or an integer".
    #[test]
    fn random_seed_rand_is_taken_as_pgbench_takes_it() {
        let mut o = opts();
        o.random_seed = Some("rand".into());
        let a = check(&o).unwrap().seed;
        assert_ne!(a, check(&o).unwrap().seed, "two draws, two seeds");
        o.random_seed = Some("42".into());
        assert_eq!(check(&o).unwrap().seed, 42);
    }

    #[test]
    fn init_defaults_follow_pgbench() {
        let mut o = opts();
        o.initialize = true;
        o.scale = Some(2);
        o.foreign_keys = true;
        let (steps, io) = check(&o).unwrap().init.unwrap();
        assert_eq!(steps, init::steps("dtgvpf").unwrap());
        assert_eq!((io.scale, io.fillfactor), (2, 100));
        o.no_vacuum = true;
        assert_eq!(
            check(&o).unwrap().init.unwrap().0,
            init::steps("dtgpf").unwrap()
        );
    }
}
