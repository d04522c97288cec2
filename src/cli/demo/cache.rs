//! `hakaru demo --cache`: Sekka's three measurements as one run of three rounds, with
//! nothing installed. The embedded target's `/cached` service (a cache in front of a
//! page cache in front of a slow store, `server::cache`) answers every key once a
//! round, in order, from one client (Sekka's `uniqkey0`), and `--before-round`
//! prepares each round: a reboot before round 1 (nothing cached), nothing before round
//! 2 (every answer cached), the cache cleared before round 3 (the page cache still
//! warm). The run ends with a line saying whether the rounds differ as the cache says.

use std::path::Path;
use std::time::Duration;

use anyhow::{Context, Result};

use super::{ChildTarget, DemoArgs};
use crate::plan::Order;
use crate::probe::ProbeKind;
use crate::result::{RunResult, StepResult};
use crate::spec::before::BeforeOptions;
use crate::spec::{Load, RequestOptions, RunOptions, SessionOptions, SpecError};

/// The most keys a round may read (each costs 15 ms in the cold round).
pub const MAX_KEYS: usize = 10_000;

/// The service's counters each step reads before and after (`--probe url=…`).
const COUNTERS: [&str; 4] = ["hits", "misses", "page_hits", "disk_reads"];

/// What each round is, as the closing lines say it.
const ROUNDS: [&str; 3] = [
    "nothing cached, after a reboot",
    "every answer cached",
    "the cache cleared, the page cache warm",
];

/// `sh -c` quoting: the word in single quotes.
fn quoted(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// The command run before each round: hakaru itself asks the target's admin paths.
fn before_round(exe: &Path, base: &str) -> String {
    let ask = |path: &str| {
        format!(
            "{} run -q -c 1 -n 1 {}",
            quoted(&exe.display().to_string()),
            quoted(&format!("{base}{path}"))
        )
    };
    format!(
        "case $HAKARU_ROUND in 1) {} ;; 3) {} ;; esac",
        ask("/cached/reboot"),
        ask("/cached/clear")
    )
}

/// The run as plain options: one client reading every key once a round, in order.
fn options(
    args: &DemoArgs,
    command_line: Vec<String>,
    (host, port): (&str, u16),
    patterns: &Path,
    before: String,
) -> RunOptions {
    RunOptions {
        request: RequestOptions {
            patterns_file: Some(patterns.to_path_buf()),
            hosts: vec![host.to_string()],
            port,
            order: Order::Sequential,
            seed: Some(1),
            threads: 1,
            n_slow: 3,
            n_fast: 3,
            ..RequestOptions::default()
        },
        session: SessionOptions {
            probes: COUNTERS
                .iter()
                .map(|c| ProbeKind::Url {
                    path: "/cached/stats".into(),
                    pointer: format!("/{c}"),
                    name: (*c).into(),
                })
                .collect(),
            rounds: 3,
            before: BeforeOptions {
                round: Some(before),
                ..BeforeOptions::default()
            },
            ..SessionOptions::default()
        },
        load: Load::Step {
            clients: 1,
            duration: None,
            requests: Some(args.keys as u64),
            rate: None,
        },
        interval: args.interval.unwrap_or(Duration::ZERO),
        output_path: Some(args.output_dir.join("cache.csv")),
        command_line,
    }
}

pub fn run(args: &DemoArgs, command_line: Vec<String>) -> Result<i32> {
    if args.keys == 0 {
        return Err(SpecError::AtLeast {
            flag: "--keys",
            min: 1,
        }
        .into());
    }
    if args.keys > MAX_KEYS {
        return Err(SpecError::AtMost {
            flag: "--keys",
            max: MAX_KEYS as u64,
            found: args.keys as u64,
        }
        .into());
    }
    let dir = &args.output_dir;
    let patterns = dir.join("cache-keys.txt");
    options(args, Vec::new(), ("127.0.0.1", 1), &patterns, "true".into()).check()?;
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let target = ChildTarget::start(&["serve", "--threads", "1"], "cache target")?;
    let base = format!("http://{}", target.addr);
    println!(
        "The embedded target's /cached service on {base} (pid {}): a cache in front of a \
         page cache in front of a slow store.",
        target.child.id()
    );
    let keys: String = (1..=args.keys)
        .map(|i| format!("/cached?key=k{i:05}\n"))
        .collect();
    std::fs::write(&patterns, keys)
        .with_context(|| format!("cannot write {}", patterns.display()))?;
    let exe = std::env::current_exe().context("cannot find hakaru's own executable")?;
    let before = before_round(&exe, &base);
    println!(
        "{} keys, each read once a round by one client (Sekka's uniqkey0); three rounds, \
         each prepared by --before-round:\n  {before}",
        args.keys
    );
    let (host, port) = target
        .addr
        .rsplit_once(':')
        .context("the target's address has no port")?;
    let port = port.parse().context("the target's port")?;
    let ready = options(args, command_line, (host, port), &patterns, before).build()?;
    let run = crate::cli::run_load(&ready, true)?;
    drop(target);
    print!("{}", crate::report::run::text::rounds_summary(&run));
    println!("{}", closing(&run));
    if let Some(out) = &ready.run.outputs {
        println!(
            "Results: {} and {}\nNext: hakaru report {}",
            out.csv.display(),
            out.json.display(),
            out.json.display()
        );
    }
    Ok(crate::runner::exit_code(&run))
}

/// One of the service's counters over a step (from its probes).
fn counted(step: &StepResult, name: &str) -> u64 {
    step.probes
        .iter()
        .find(|p| p.probe == name)
        .and_then(|p| p.delta.get(name))
        .map_or(0, |d| d.max(0.0) as u64)
}

/// The lines the demo ends with: each round's time and what the service counted, and
/// whether the rounds differ as the cache says (round 2 fastest, round 3 between).
pub fn closing(run: &RunResult) -> String {
    let steps: Vec<&StepResult> = (1..=3)
        .filter_map(|r| run.steps.iter().find(|s| s.round == r))
        .collect();
    let [cold, warm, cleared] = steps[..] else {
        return "Fewer than three rounds finished: nothing to set side by side.".into();
    };
    let mut out = String::new();
    for (i, s) in [cold, warm, cleared].iter().enumerate() {
        out.push_str(&format!(
            "Round {} ({}): {} requests in {:.2} s, mean {:.3} ms; the service counted \
             {} hits, {} answers worked out from memory, {} pages read from disk.\n",
            i + 1,
            ROUNDS[i],
            s.total_requests,
            s.elapsed_s,
            s.latency.mean_s * 1e3,
            counted(s, "hits"),
            counted(s, "page_hits"),
            counted(s, "disk_reads"),
        ));
    }
    let (c, w, m) = (
        cold.latency.mean_s,
        warm.latency.mean_s,
        cleared.latency.mean_s,
    );
    if w < m && m < c && w > 0.0 {
        out.push_str(&format!(
            "As the cache says: every answer cached is {:.0}× faster than nothing cached, \
             and with only the page cache warm it is in between ({:.1}× the cached time). \
             Sekka measured 166 s, 4 s and 22 s for these three states: the cache, not the \
             server, decides the result, so say which state a benchmark ran in.",
            c / w,
            m / w
        ));
    } else {
        out.push_str(&format!(
            "NOT as the cache says: the mean latencies were {:.3} ms (nothing cached), \
             {:.3} ms (cached) and {:.3} ms (cache cleared); a busy machine or a failed \
             --before-round command can do this (see the rounds above).",
            c * 1e3,
            w * 1e3,
            m * 1e3
        ));
    }
    out
}
