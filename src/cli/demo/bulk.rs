//! `hakaru demo --bulk`: the CouchDB "High Performance" chapter's write experiment
//! with nothing installed. Starts the embedded document store (`hakaru serve --docs`)
//! as a child process, then runs, each into its own database with `--verify`: bulk
//! inserts at every batch size × writer count, serial single inserts, single inserts
//! with `batch=ok`, and with full commit; prints the chapter's table and what full
//! commit cost.

use std::path::Path;
use std::time::Duration;

use anyhow::{bail, Context, Result};

use super::{ChildTarget, DemoArgs};
use crate::http::Fetched;
use crate::report::bulk::{docs_in_flight, full_commit_cost, labelled_table};
use crate::result::RunResult;
use crate::runner::Quiet;
use crate::spec::bulk::BulkOptions;

/// Each step's length when `--duration` is not given: nine steps end in well under
/// a minute.
const STEP: Duration = Duration::from_secs(2);

/// One part of the experiment: a label, the database it writes into, its options.
struct Part {
    label: &'static str,
    db: &'static str,
    single: bool,
    batch_ok: bool,
    full_commit: bool,
}

const PARTS: [Part; 4] = [
    Part {
        label: "bulk",
        db: "bulk",
        single: false,
        batch_ok: false,
        full_commit: false,
    },
    Part {
        label: "single",
        db: "single",
        single: true,
        batch_ok: false,
        full_commit: false,
    },
    Part {
        label: "batch=ok",
        db: "batchok",
        single: true,
        batch_ok: true,
        full_commit: false,
    },
    Part {
        label: "full commit",
        db: "fullcommit",
        single: true,
        batch_ok: false,
        full_commit: true,
    },
];

/// The options of one part against the database at `url`, results under `dir`.
fn options(
    args: &DemoArgs,
    part: &Part,
    url: &str,
    dir: &Path,
    command_line: &[String],
) -> BulkOptions {
    BulkOptions {
        url: url.to_string(),
        batch_sizes: (!part.single).then(|| args.batch_sizes.clone()),
        writers: if part.single {
            "1".into()
        } else {
            args.writers.clone()
        },
        duration: Some(args.duration.unwrap_or(STEP)),
        single: part.single,
        batch_ok: part.batch_ok,
        full_commit: part.full_commit,
        verify: true,
        seed: Some(1),
        threads: crate::sysinfo::cpus().saturating_sub(1).max(1),
        interval: args.interval.unwrap_or(Duration::ZERO),
        output_path: Some(dir.join(format!("bulk-{}.csv", part.db))),
        command_line: command_line.to_vec(),
        ..BulkOptions::default()
    }
}

pub fn run(args: &DemoArgs, command_line: Vec<String>) -> Result<i32> {
    let dir = &args.output_dir;
    // Refuse bad flags before starting anything.
    for part in &PARTS {
        options(args, part, "http://127.0.0.1:1/bench", dir, &[]).build()?;
    }
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    println!("Starting the embedded document store (CouchDB's HTTP API, SQLite)...");
    let target = ChildTarget::start(&["serve", "--docs", "--threads", "1"], "document store")?;
    let base = format!("http://{}", target.addr);
    println!("Document store on {base} (pid {})", target.child.id());
    let mut runs: Vec<(&str, RunResult)> = Vec::new();
    let mut code = 0;
    for part in &PARTS {
        let url = format!("{base}/{}", part.db);
        let created = Fetched::request(&url, "PUT", &[], Duration::from_secs(10))
            .map_err(anyhow::Error::msg)?;
        if created.status != 201 {
            bail!("PUT {url} answered {}, not 201", created.status);
        }
        println!("Writing: {} ...", part.label);
        let ready = options(args, part, &url, dir, &command_line).build()?;
        let (run, _) = crate::cli::bulk::execute(&ready, &mut Quiet, false)?;
        code = code.max(crate::runner::exit_code(&run));
        runs.push((part.label, run));
    }
    drop(target);
    let parts: Vec<(&str, &RunResult)> = runs.iter().map(|(l, r)| (*l, r)).collect();
    print!("{}", labelled_table(&parts));
    let first_step = |label: &str| {
        runs.iter()
            .find(|(l, _)| *l == label)
            .and_then(|(_, r)| r.steps.first())
    };
    if let (Some(without), Some(with)) = (first_step("single"), first_step("full commit")) {
        println!("{}", full_commit_cost(without, with));
    }
    let (line, all_there) = accounting(&runs);
    println!("{line}");
    if !all_there && code == 0 {
        code = 1;
    }
    println!(
        "Note: batch=ok writes wait in memory up to 1 s before SQLite has them; a crash loses them."
    );
    println!(
        "Results: {}/bulk-*.csv and .json. The same against CouchDB: hakaru bulk URL --batch-sizes {} --writers {}",
        dir.display(),
        args.batch_sizes,
        args.writers
    );
    Ok(code)
}

/// Every document accounted for: per part, what the store holds against what was
/// acknowledged. A step that ends on time cuts off the requests in flight, and the
/// store may have written those, so `acknowledged ≤ present ≤ acknowledged + cut off`
/// is a match; anything else is not (false).
fn accounting(runs: &[(&str, RunResult)]) -> (String, bool) {
    let mut all_there = true;
    let parts: Vec<String> = runs
        .iter()
        .filter_map(|(l, r)| r.verify.as_ref().map(|v| (l, r, v)))
        .map(|(l, r, v)| {
            let cut = docs_in_flight(r);
            let ok =
                v.present >= v.acknowledged as i64 && v.present <= (v.acknowledged + cut) as i64;
            all_there &= ok;
            format!(
                "{l} {} present / {} acknowledged{}{}",
                v.present,
                v.acknowledged,
                if v.present > v.acknowledged as i64 {
                    format!(
                        " (+{} cut off at a step's end)",
                        v.present - v.acknowledged as i64
                    )
                } else {
                    String::new()
                },
                if ok { "" } else { " MISMATCH" }
            )
        })
        .collect();
    (
        format!(
            "Every document accounted for (GET /db's doc_count): {}.",
            parts.join("; ")
        ),
        all_there,
    )
}
