//! Results survive SIGKILL: a real `hakaru ramp` killed at many moments leaves files
//! that parse, agree with each other and say they are incomplete; the next run over
//! the same files leaves no temporary behind.

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use hakaru::result::json::from_json;
use hakaru::result::RunState;

use crate::util::*;

/// What one killed run left on disk: (steps in the JSON, its state), or None when
/// the kill came before the first step was written.
fn check_files(dir: &Path) -> Option<(usize, RunState)> {
    let (csv, json) = (dir.join("r.csv"), dir.join("r.json"));
    for e in std::fs::read_dir(dir).unwrap() {
        let name = e.unwrap().file_name().into_string().unwrap();
        assert!(
            name == "r.csv"
                || name == "r.json"
                || name.starts_with(".r.csv.tmp-")
                || name.starts_with(".r.json.tmp-"),
            "unexpected file {name}"
        );
    }
    // The newer JSON a kill between the two renames leaves in its temporary.
    let pending_json = || -> Option<usize> {
        let tmp = std::fs::read_dir(dir).unwrap().find_map(|e| {
            let e = e.unwrap();
            let name = e.file_name().into_string().unwrap();
            name.starts_with(".r.json.tmp-").then(|| e.path())
        })?;
        let text = std::fs::read_to_string(tmp).ok()?;
        from_json(&text, "tmp").ok().map(|r| r.steps.len())
    };
    if !json.exists() {
        if csv.exists() {
            // Killed between the renames of the very first write.
            let (_, rows) = read_csv(&csv);
            assert_eq!(pending_json(), Some(rows.len()), "a CSV without its JSON");
        }
        return None;
    }
    let text = std::fs::read_to_string(&json).unwrap();
    let run = from_json(&text, "r.json").unwrap_or_else(|e| panic!("{e}\n{text}"));
    let (_, rows) = read_csv(&csv);
    if rows.len() != run.steps.len() {
        // The one shape the store allows (see result/store.rs): the CSV one step ahead
        // and the matching JSON whole in its temporary.
        assert_eq!(rows.len(), run.steps.len() + 1, "CSV and JSON disagree");
        assert_eq!(pending_json(), Some(rows.len()), "CSV and JSON disagree");
        assert_eq!(run.state, RunState::Running);
    }
    Some((run.steps.len(), run.state))
}

#[test]
fn sigkill_at_any_moment_leaves_consistent_files() {
    const KILLS: usize = 30;
    const THREADS: usize = 5;
    let t = target();
    let url = format!("http://{}/", t.addr);
    let started = Instant::now();
    let results: Vec<(Option<(usize, RunState)>, TempDir)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..THREADS)
            .map(|th| {
                let url = url.clone();
                s.spawn(move || {
                    let mut out = Vec::new();
                    for i in (th..KILLS).step_by(THREADS) {
                        let dir = TempDir::new("kill");
                        let mut child = hakaru()
                            .args([
                                "ramp",
                                "--start-n-clients=1",
                                "--end-n-clients=40",
                                "--duration=0.03",
                                "--interval=0",
                                // A loaded test machine may leave a 30 ms step unanswered.
                                "--keep-going",
                                &url,
                            ])
                            .arg(format!("--output-path={}", dir.path("r.csv").display()))
                            .stdout(Stdio::null())
                            .stderr(Stdio::null())
                            .spawn()
                            .unwrap();
                        // Spread over start-up, the first write and the steps after it.
                        std::thread::sleep(Duration::from_millis(20 + 45 * i as u64));
                        let _ = child.kill();
                        child.wait().unwrap();
                        let left = check_files(&dir.0);
                        // A stale temporary as a kill mid-write leaves one: its writer is gone.
                        std::fs::write(
                            dir.path(&format!(".r.json.tmp-{}", child.id())),
                            "{\"half\":",
                        )
                        .unwrap();
                        let o = run(&[
                            "run",
                            "-c",
                            "1",
                            "-n",
                            "3",
                            &url,
                            "-o",
                            dir.path("r.csv").to_str().unwrap(),
                        ]);
                        ok(&o);
                        let after = check_files(&dir.0);
                        assert_eq!(after, Some((1, RunState::Complete)));
                        let names: Vec<_> = std::fs::read_dir(&dir.0)
                            .unwrap()
                            .map(|e| e.unwrap().file_name())
                            .collect();
                        assert_eq!(names.len(), 2, "temporaries left: {names:?}");
                        out.push((left, dir));
                    }
                    out
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });
    assert!(started.elapsed() < Duration::from_secs(120));
    let killed_running = results
        .iter()
        .filter(|(l, _)| matches!(l, Some((n, RunState::Running)) if *n > 0))
        .count();
    assert!(
        killed_running > 0,
        "no kill landed after a step was written: {:?}",
        results.iter().map(|(l, _)| *l).collect::<Vec<_>>()
    );
}

#[test]
fn a_killed_run_reads_as_incomplete() {
    let t = target();
    let dir = TempDir::new("killed-report");
    let mut child = hakaru()
        .args([
            "ramp",
            "--start-n-clients=1",
            "--end-n-clients=100",
            "--duration=0.05",
            "--interval=0",
            "--keep-going",
        ])
        .arg(format!("http://{}/", t.addr))
        .arg(format!("--output-path={}", dir.path("r.csv").display()))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let json = dir.path("r.json");
    let start = Instant::now();
    while !json.exists() && start.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(100));
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(read_json(&json)["state"], "running");
    let md = ok(&run(&["report", json.to_str().unwrap(), "--markdown"]));
    assert!(md.contains("INCOMPLETE"), "{md}");
    let cmp = ok(&run(&[
        "compare",
        json.to_str().unwrap(),
        json.to_str().unwrap(),
    ]));
    assert!(cmp.contains("INCOMPLETE"), "{cmp}");
}
