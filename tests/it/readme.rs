//! The README's quick start, run as written: every `sh` block between "## Quick start"
//! and "## Exit codes", in order, as one bash script (`set -euo pipefail`, so any
//! example that exits non-zero fails the test). Only what a test must change is
//! changed: the fixed ports become free ones, the two 10-second runs last 2 s, and the
//! script waits for each server it puts in the background before using it. Those
//! servers are the script's own jobs, ended by PID when it exits.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use crate::util::{free_port, wait_bounded, TempDir};

/// The shell blocks of the quick start, in order.
fn quick_start(readme: &str) -> Vec<String> {
    let start = readme
        .find("## Quick start")
        .expect("the README has a quick start");
    let end = readme[start..]
        .find("## Exit codes")
        .map_or(readme.len(), |e| start + e);
    let mut blocks = Vec::new();
    let mut current: Option<String> = None;
    for line in readme[start..end].lines() {
        match (&mut current, line.trim_end()) {
            (None, "```sh") => current = Some(String::new()),
            (Some(_), "```") => blocks.extend(current.take()),
            (Some(b), l) => {
                b.push_str(l);
                b.push('\n');
            }
            (None, _) => {}
        }
    }
    blocks
}

/// After a line that puts a server in the background, wait until its port answers.
fn wait_for_background(line: &str, ports: &[(&str, u16)]) -> Option<String> {
    let command = line.split(" #").next().unwrap_or(line);
    if !command.trim_end().ends_with('&') {
        return None;
    }
    let (_, port) = ports.iter().find(|(fixed, _)| line.contains(*fixed))?;
    Some(format!(
        "for _ in $(seq 300); do (exec 3<>/dev/tcp/127.0.0.1/{port}) 2>/dev/null && break; sleep 0.05; done\n"
    ))
}

fn script(blocks: &[String], ports: &[(&str, u16)]) -> String {
    let mut s = String::from("set -euo pipefail\ntrap 'kill $(jobs -p) 2>/dev/null' EXIT\n");
    for original in blocks.iter().flat_map(|b| b.lines()) {
        let mut line = original.replace("-d 10s", "-d 2s");
        for (fixed, port) in ports {
            line = line.replace(fixed, &format!("127.0.0.1:{port}"));
        }
        for fixed in ["port = 8080", "--default-port 8080"] {
            line = line.replace(fixed, &fixed.replace("8080", &ports[0].1.to_string()));
        }
        s.push_str(&line);
        s.push('\n');
        s.extend(wait_for_background(original, ports));
    }
    s
}

#[test]
fn the_readme_quick_start_runs_as_written() {
    let _t = crate::util::timed();
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"))
        .expect("README.md");
    let blocks = quick_start(&readme);
    assert!(blocks.len() >= 10, "{} shell blocks", blocks.len());
    let ports = [
        ("127.0.0.1:8080", free_port()),
        ("127.0.0.1:5984", free_port()),
        ("127.0.0.1:5140", free_port()),
        ("127.0.0.1:8443", free_port()),
    ];
    let dir = TempDir::new("readme");
    let text = script(&blocks, &ports);
    let path = dir.write("quick-start.sh", &text);
    let bin = Path::new(env!("CARGO_BIN_EXE_hakaru"))
        .parent()
        .expect("the binary's directory")
        .to_path_buf();
    let mut child = Command::new("bash")
        .arg(&path)
        .current_dir(&dir.0)
        .env(
            "PATH",
            format!(
                "{}:{}",
                bin.display(),
                std::env::var("PATH").unwrap_or_default()
            ),
        )
        .stdin(std::process::Stdio::null())
        .stdout(std::fs::File::create(dir.path("out.txt")).expect("out.txt"))
        .stderr(std::fs::File::create(dir.path("err.txt")).expect("err.txt"))
        .spawn()
        .expect("bash runs");
    let status = wait_bounded(&mut child, Duration::from_secs(240));
    let said = |name| std::fs::read_to_string(dir.path(name)).unwrap_or_default();
    assert!(
        status.is_some_and(|s| s.success()),
        "the quick start failed ({status:?})\n--- script\n{text}\n--- stdout\n{}\n--- stderr\n{}",
        said("out.txt"),
        said("err.txt")
    );
    // What the examples say they write is there.
    for file in [
        "spike.json",
        "ramp.html",
        "ramp.md",
        "fault.json",
        "merged.json",
        "junit.xml",
    ] {
        assert!(dir.path(file).exists(), "{file} was not written");
    }
}

#[test]
fn the_readme_stays_a_quick_start() {
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"))
        .expect("README.md");
    let lines = readme.lines().count();
    assert!(
        lines < 300,
        "README.md has {lines} lines; the rest belongs in docs/guide/"
    );
    // It opens with the two set-up commands, the demo and the tests, and nothing else
    // (a third line had crept into that first block).
    let first_block: Vec<&str> = readme
        .lines()
        .skip_while(|l| !l.starts_with("```"))
        .skip(1)
        .take_while(|l| !l.starts_with("```"))
        .collect();
    assert_eq!(first_block.len(), 2, "{first_block:?}");
    assert!(first_block[0].contains("-- demo "), "{first_block:?}");
    assert!(
        first_block[1].starts_with("scripts/test"),
        "{first_block:?}"
    );
    // Every guide it links to exists.
    for link in readme.split("](").skip(1) {
        let target = link.split(')').next().unwrap_or("");
        if target.starts_with("http") || target.starts_with('#') {
            continue;
        }
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(target.split('#').next().unwrap());
        assert!(
            path.exists(),
            "README links to {target}, which is not there"
        );
    }
}
