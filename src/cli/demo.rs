//! `hakaru demo`: the search-engine benchmark tutorial, end to end, with nothing
//! installed. It starts the embedded search target as a separate process (so its CPU
//! is measured apart from the client's), takes search terms from a real select, plans
//! 200 unique requests for a 50% cache hit rate, ramps clients with the Groonga probe
//! watching the cache, and writes everything into one folder. `--bulk` runs the
//! write-throughput experiment instead ([`bulk`]), `--cache` Sekka's cache states
//! ([`cache`]).

pub mod bulk;
pub mod cache;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use anyhow::{bail, Context, Result};
use clap::Args;

use crate::pattern::generate::{self as patterngen, PatternsOptions, RequestForm, RequestSet};
use crate::pattern::terms::{self, TermsOptions};
use crate::probe::ProbeKind;
use crate::result::RunResult;
use crate::spec::{parse_duration, Load, RequestOptions, RunOptions, SessionOptions};

/// The tutorial's select, with `{term}` where the search term goes.
pub const TUTORIAL_TEMPLATE: &str = "/d/select?command_version=2&table=Pages&limit=10&match_columns=title,text&output_columns=snippet_html(title),snippet_html(text),categories,_key&query_flags=NONE&sortby=title&drilldown=categories&drilldown_limit=10&drilldown_output_columns=_id,_key,_nsubrecs&drilldown_sortby=_nsubrecs&query={term}";

#[derive(Args, Debug)]
pub struct DemoArgs {
    /// Folder for the terms, the patterns file and the results.
    #[arg(long, default_value = "hakaru-demo")]
    pub output_dir: PathBuf,

    /// Duration of each step (default 4 s; 2 s with --bulk).
    #[arg(long, value_parser = parse_duration)]
    pub duration: Option<Duration>,

    /// Pause between steps (default 1 s; none with --bulk).
    #[arg(long, value_parser = parse_duration)]
    pub interval: Option<Duration>,

    /// The write experiment instead (CouchDB's "High Performance" chapter): bulk
    /// batch sizes × writers, single inserts, batch=ok and full commit against the
    /// embedded document store.
    #[arg(long)]
    pub bulk: bool,

    /// Sekka's cache experiment instead: one run of three rounds against the embedded
    /// target's /cached service, each round prepared by --before-round (a reboot,
    /// nothing, the cache cleared), ending with whether they differ as the cache says.
    #[arg(long, conflicts_with = "bulk")]
    pub cache: bool,

    /// --cache: keys read once a round, in order, by one client.
    #[arg(long, default_value_t = 200, requires = "cache", value_name = "N")]
    pub keys: usize,

    /// --bulk: documents per request, one step each.
    #[arg(
        long,
        default_value = "100,1000,5000",
        requires = "bulk",
        value_name = "N1,N2,..."
    )]
    pub batch_sizes: String,

    /// --bulk: parallel writers of every batch size.
    #[arg(
        long,
        default_value = "1,10",
        requires = "bulk",
        value_name = "W1,W2,..."
    )]
    pub writers: String,

    /// The most clients: the ramp doubles them (1, 2, 4, …) until the target saturates
    /// (`ramp --until-saturated`), and stops here if it has not by then.
    #[arg(long, default_value_t = 64)]
    pub end_n_clients: usize,

    /// Pages in the search target's generated corpus.
    #[arg(long, default_value_t = 10_000)]
    pub documents: usize,

    /// The cache hit rate to plan the request set for.
    #[arg(long, default_value_t = 0.5)]
    pub cache_hit_rate: f64,
}

/// An embedded target in a child process (`hakaru serve ARGS` on a loopback port),
/// stopped (by its PID) when dropped.
struct ChildTarget {
    child: Child,
    addr: String,
}

impl ChildTarget {
    fn start(args: &[&str], what: &str) -> Result<ChildTarget> {
        let exe = std::env::current_exe().context("cannot find hakaru's own executable")?;
        let mut child = Command::new(exe)
            .args(args)
            .args(["--bind", "127.0.0.1:0"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .with_context(|| format!("cannot start the {what}"))?;
        let stdout = child.stdout.take().expect("stdout is piped");
        let mut line = String::new();
        BufReader::new(stdout)
            .read_line(&mut line)
            .with_context(|| format!("reading the {what}'s address"))?;
        let Some(url) = line
            .trim()
            .strip_prefix("hakaru target listening on http://")
        else {
            let _ = child.kill();
            let _ = child.wait();
            bail!("the {what} did not start (it said {:?})", line.trim());
        };
        Ok(ChildTarget {
            addr: url.to_string(),
            child,
        })
    }
}

/// How long a target has to exit on SIGTERM before it is killed.
const STOP_GRACE: Duration = Duration::from_secs(5);

impl Drop for ChildTarget {
    /// SIGTERM first: the target then removes its SQLite file, which a SIGKILL left
    /// in the temp folder (300 MB after each `demo --bulk`). SIGKILL if it is still
    /// there after [`STOP_GRACE`].
    fn drop(&mut self) {
        let pid = i32::try_from(self.child.id())
            .ok()
            .and_then(rustix::process::Pid::from_raw);
        let termed = pid.is_some_and(|pid| {
            rustix::process::kill_process(pid, rustix::process::Signal::TERM).is_ok()
        });
        let until = std::time::Instant::now() + STOP_GRACE;
        while termed && std::time::Instant::now() < until {
            if !matches!(self.child.try_wait(), Ok(None)) {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The tutorial's ramp as plain options: the same builder as `ramp` with the demo's
/// fixed settings (random order with seed 1, 3 slowest/fastest, a 2 s warm-up, the
/// Groonga probe, a thread left to the target).
pub(crate) fn options(
    args: &DemoArgs,
    command_line: Vec<String>,
    host: &str,
    port: u16,
    patterns: &Path,
    target_pid: Option<u32>,
) -> RunOptions {
    RunOptions {
        request: RequestOptions {
            patterns_file: Some(patterns.to_path_buf()),
            hosts: vec![host.to_string()],
            port,
            seed: Some(1),
            threads: crate::sysinfo::cpus().saturating_sub(1).max(1),
            n_slow: 3,
            n_fast: 3,
            ..RequestOptions::default()
        },
        session: SessionOptions {
            probes: vec![ProbeKind::Groonga],
            probe_pid: target_pid,
            expect_cache_hit_rate: Some(args.cache_hit_rate),
            rounds: 1,
            warmup: Some(Duration::from_secs(2)),
            ..SessionOptions::default()
        },
        load: Load::Clients {
            start: 0,
            end: args.end_n_clients,
            // The clients double until the target saturates.
            step: 0,
            duration: args.duration.unwrap_or(Duration::from_secs(4)),
            until_saturated: true,
        },
        interval: args.interval.unwrap_or(Duration::from_secs(1)),
        output_path: Some(args.output_dir.join("result.csv")),
        command_line,
    }
}

pub fn run(args: DemoArgs, command_line: Vec<String>) -> Result<i32> {
    if args.bulk {
        return bulk::run(&args, command_line);
    }
    if args.cache {
        return cache::run(&args, command_line);
    }
    let dir = &args.output_dir;
    let patterns_path = dir.join("patterns.txt");
    // Refuse bad flags before starting anything.
    options(&args, Vec::new(), "127.0.0.1", 1, &patterns_path, None).check()?;
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    println!(
        "Starting the embedded search target ({} pages, Groonga's HTTP API)...",
        args.documents
    );
    let documents = args.documents.to_string();
    let target = ChildTarget::start(
        &[
            "serve",
            "--search",
            "--threads",
            "1",
            "--documents",
            &documents,
        ],
        "search target",
    )?;
    let base = format!("http://{}", target.addr);
    println!("Search target on {base} (pid {})", target.child.id());

    // 1. Search terms from a real select, as drnbench-extract-searchterms takes them.
    let select =
        format!("{base}/d/select?command_version=2&table=Pages&limit=400&output_columns=title");
    let json = terms::fetch_url(&select, Duration::from_secs(30))?;
    let terms = terms::extract_terms(
        &json,
        &select,
        &TermsOptions {
            unique: true,
            ..TermsOptions::default()
        },
    )?;
    std::fs::write(dir.join("terms.txt"), terms.join("\n") + "\n")?;

    // 2. Enough unique requests for the planned hit rate with a 100-entry cache.
    let opts = PatternsOptions {
        form: RequestForm::Template(TUTORIAL_TEMPLATE.into()),
        set: RequestSet::CacheHitRate {
            hit_rate: args.cache_hit_rate,
            cache_size: 100,
        },
        ..PatternsOptions::default()
    };
    let generated = patterngen::generate(&terms, &opts)?;
    for note in &generated.notes {
        println!("{note}");
    }
    std::fs::write(&patterns_path, generated.paths.join("\n") + "\n")
        .with_context(|| format!("cannot write {}", patterns_path.display()))?;
    println!(
        "{} terms in {}, {} request patterns in {}",
        terms.len(),
        dir.join("terms.txt").display(),
        generated.paths.len(),
        patterns_path.display()
    );

    // 3. The ramp, with the server's cache and CPU watched.
    let (host, port) = target
        .addr
        .rsplit_once(':')
        .context("the target's address has no port")?;
    let port = port.parse().context("the target's port")?;
    let ready = options(
        &args,
        command_line,
        host,
        port,
        &patterns_path,
        Some(target.child.id()),
    )
    .build()?;
    let run = super::run_load(&ready, true)?;
    drop(target);

    let out = ready
        .run
        .outputs
        .as_ref()
        .expect("the demo writes its results");
    if run.steps.len() > 1 {
        let series = crate::result::series::Series::from_run(&run, "demo");
        println!("{}", crate::report::chart::terminal_summary(&series, 72));
    }
    println!("{}", summary(&run));
    if let Some(why) = &run.ended_because {
        println!("The ramp ended on its own: {why}.");
    }
    println!(
        "Results: {} (drnbench's columns first) and {} (everything, histograms included)",
        out.csv.display(),
        out.json.display()
    );
    println!("Next: hakaru report {}", out.json.display());
    Ok(crate::runner::exit_code(&run))
}

/// "1 client", "4 clients".
fn clients(n: usize) -> String {
    format!("{n} client{}", if n == 1 { "" } else { "s" })
}

/// The few sentences the demo ends with.
pub fn summary(run: &RunResult) -> String {
    let Some(peak) = run.steps.iter().max_by(|a, b| a.qps.total_cmp(&b.qps)) else {
        return "No step finished.".into();
    };
    let first = &run.steps[0];
    let errors: u64 = run.steps.iter().map(|s| s.error_total()).sum();
    let mut out = format!(
        "Peak: {:.0} queries/s at {}. Mean latency {:.2} ms at {}, {:.2} ms at the peak (p99 {:.2} ms). {errors} error(s).",
        peak.qps,
        clients(peak.n_clients),
        first.latency.mean_s * 1e3,
        clients(first.n_clients),
        peak.latency.mean_s * 1e3,
        peak.latency.p99_s * 1e3,
    );
    let rates: Vec<f64> = run.steps.iter().filter_map(|s| s.cache_hit_rate).collect();
    if let (Some(planned), false) = (run.settings.planned_cache_hit_rate, rates.is_empty()) {
        let measured = rates.iter().sum::<f64>() / rates.len() as f64;
        out.push_str(&format!(
            "\nCache hit rate: planned {:.0}%, measured {:.1}% (mean over the steps).",
            planned * 100.0,
            measured * 100.0
        ));
    }
    if let Some(sp) = peak.server_process.as_ref().filter(|p| p.error.is_none()) {
        out.push_str(&format!(
            "\nAt the peak the search target kept {:.2} of {} cores busy; hakaru used {:.0}% of all cores.",
            sp.cores_used,
            run.machine.cpus,
            peak.client_cpu_share * 100.0
        ));
    }
    out
}
