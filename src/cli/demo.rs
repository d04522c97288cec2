//! `hakaru demo`: start the embedded target in-process, ramp clients against it, and
//! write the results into one folder — the whole job with nothing installed.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, Result};
use clap::Args;

use super::args::parse_duration;
use crate::console::Console;
use crate::engine::{EngineConfig, StepSpec};
use crate::pattern;
use crate::plan::{Defaults, Order, Plan};
use crate::ramp::{self, client_steps, Outputs, RunSpec};
use crate::report::csv::CsvFormat;
use crate::result::{RunResult, Settings};
use crate::target::basic::start_basic;
use crate::target::server::ServerOptions;

#[derive(Args, Debug)]
pub struct DemoArgs {
    /// Folder for the patterns file and the results.
    #[arg(long, default_value = "hakaru-demo")]
    pub output_dir: PathBuf,

    /// Duration of each step.
    #[arg(long, default_value = "2", value_parser = parse_duration)]
    pub duration: Duration,

    /// Pause between steps.
    #[arg(long, default_value = "0.5", value_parser = parse_duration)]
    pub interval: Duration,

    /// Clients in the last step.
    #[arg(long, default_value_t = 8)]
    pub end_n_clients: usize,
}

const DEMO_PATTERNS: &str = "\
# hakaru demo: request patterns, one path per line (drnbench's plain-text form).
/
/bytes/1024
/bytes/16384
/status/200
";

pub fn run(args: DemoArgs, command_line: Vec<String>) -> Result<i32> {
    std::fs::create_dir_all(&args.output_dir)
        .with_context(|| format!("cannot create {}", args.output_dir.display()))?;
    let patterns_path = args.output_dir.join("patterns.txt");
    std::fs::write(&patterns_path, DEMO_PATTERNS)
        .with_context(|| format!("cannot write {}", patterns_path.display()))?;

    // One core for the target, the rest for the client: a fair split on a small machine.
    let server = start_basic(
        "127.0.0.1:0".parse().expect("literal address"),
        ServerOptions {
            keep_alive: true,
            threads: 1,
        },
    )
    .context("cannot start the embedded target")?;
    let addr = server.addr;
    println!("Embedded target listening on http://{addr}");

    let set = pattern::load_file(&patterns_path)?;
    let defaults = Defaults {
        hosts: vec![addr.ip().to_string()],
        port: addr.port(),
        ..Defaults::default()
    };
    let plan = std::sync::Arc::new(Plan::build(&set, &defaults)?);
    let threads = crate::sysinfo::cpus().saturating_sub(1).max(1);
    let engine = EngineConfig {
        threads,
        wait: Duration::ZERO,
        order: Order::Random,
        seed: 1,
        keep_alive: true,
        n_slow: 3,
        n_fast: 3,
        tls: None,
    };
    let steps: Vec<StepSpec> = client_steps(0, args.end_n_clients.max(1), 2)
        .into_iter()
        .map(|n| StepSpec {
            n_clients: n,
            duration: Some(args.duration),
            n_requests: None,
            rate: None,
        })
        .collect();
    let csv = args.output_dir.join("result.csv");
    let spec = RunSpec {
        mode: "ramp".into(),
        command_line,
        steps,
        interval: args.interval,
        settings: Settings {
            duration_s: Some(args.duration.as_secs_f64()),
            interval_s: args.interval.as_secs_f64(),
            timeout_s: defaults.timeout.as_secs_f64(),
            keep_alive: true,
            model: "closed".into(),
            order: "random".into(),
            seed: 1,
            patterns_source: patterns_path.display().to_string(),
            n_patterns: plan.n_patterns,
            threads,
            rounds: 1,
            ..Settings::default()
        },
        outputs: Some(Outputs::beside(&csv, CsvFormat::Full)),
        ..RunSpec::default()
    };
    let stop = super::ctrl_c_stop();
    let mut console = Console::new(true, 3, 3);
    let result = ramp::run(&spec, &plan, &engine, &stop, &mut console);
    server.stop();
    let run = result?;
    let out = spec.outputs.as_ref().expect("set above");
    println!();
    println!("{}", summary(&run));
    println!("Patterns: {}", patterns_path.display());
    println!(
        "Results:  {} (drnbench columns first) and {} (everything, histograms included)",
        out.csv.display(),
        out.json.display()
    );
    Ok(if run.partial { 130 } else { 0 })
}

/// The few sentences the demo ends with.
pub fn summary(run: &RunResult) -> String {
    let Some(peak) = run.steps.iter().max_by(|a, b| a.qps.total_cmp(&b.qps)) else {
        return "No step finished.".into();
    };
    let first = &run.steps[0];
    let errors: u64 = run.steps.iter().map(|s| s.error_total()).sum();
    format!(
        "Peak: {:.0} requests/s at {} clients. Mean latency {:.3} ms at {} client(s), {:.3} ms at the peak (p99 {:.3} ms). {} error(s) in {} step(s).",
        peak.qps,
        peak.n_clients,
        first.latency.mean_s * 1e3,
        first.n_clients,
        peak.latency.mean_s * 1e3,
        peak.latency.p99_s * 1e3,
        errors,
        run.steps.len()
    )
}
