//! `hakaru pgbench -l`'s per-transaction log against a private PostgreSQL 15
//! (tests/it/pg.rs): the files and lines Debian's pgbench 15 writes for the same
//! command, and whole lines after a kill -9 mid-run.

use crate::pg::{Postgres, PASSWORD, USER};
use crate::util::hakaru;

/// The `-l` files in `dir`, sorted by name, and their lines.
fn log_files(dir: &std::path::Path) -> Vec<(String, Vec<String>)> {
    let mut out: Vec<(String, Vec<String>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_str()
                .unwrap()
                .starts_with("pgbench_log.")
        })
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            assert!(text.is_empty() || text.ends_with('\n'), "{text}");
            let name = p.file_name().unwrap().to_str().unwrap().to_string();
            (name, text.lines().map(str::to_string).collect())
        })
        .collect();
    out.sort();
    out
}

/// Issue 33 item 3: `-l` alone writes pgbench's per-transaction log as Debian's
/// pgbench 15 does for the same command: a file per thread (`pgbench_log.<pid>`,
/// then `.<pid>.1`), and in each line client, transaction number, latency (µs),
/// script, and the end as Unix seconds and µs; with `--max-tries` the retries.
#[test]
fn pgbench_per_transaction_log_matches_pgbenchs() {
    let Some(pg) = Postgres::start(&[]) else {
        return;
    };
    let dir = crate::util::TempDir::new("pgbench-l");
    let script = dir.write("one.sql", "SELECT 1;\n");
    let (theirs, ours) = (dir.path("theirs"), dir.path("ours"));
    std::fs::create_dir_all(&theirs).unwrap();
    std::fs::create_dir_all(&ours).unwrap();
    let port = pg.port.to_string();
    let f = script.to_str().unwrap();
    let args = [
        "-n",
        "-l",
        "-c",
        "3",
        "-j",
        "2",
        "-t",
        "4",
        "--max-tries",
        "2",
        "-f",
        f,
        "-h",
        "127.0.0.1",
        "-p",
        &port,
        "-U",
        USER,
        "postgres",
    ];
    let out = std::process::Command::new(format!("{}/pgbench", crate::pg::PG_BIN))
        .args(args)
        .current_dir(&theirs)
        .env("PGPASSWORD", PASSWORD)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = hakaru()
        .arg("pgbench")
        .args(args)
        .current_dir(&ours)
        .env("PGPASSWORD", PASSWORD)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (theirs, ours) = (log_files(&theirs), log_files(&ours));
    // Two files, the second's name ending `.1`; pgbench gives a thread a block of
    // clients where hakaru deals them round: the lines per file may differ, not in
    // all.
    let names = |files: &[(String, Vec<String>)]| -> Vec<bool> {
        files.iter().map(|(n, _)| n.ends_with(".1")).collect()
    };
    assert_eq!(names(&theirs), [false, true]);
    assert_eq!(names(&ours), [false, true]);
    let lines = |files: &[(String, Vec<String>)]| -> Vec<Vec<u64>> {
        files
            .iter()
            .flat_map(|(_, l)| l.iter())
            .map(|l| l.split(' ').map(|x| x.parse().unwrap()).collect())
            .collect()
    };
    let (theirs, ours) = (lines(&theirs), lines(&ours));
    assert_eq!(theirs.len(), 12);
    assert_eq!(ours.len(), 12);
    for l in theirs.iter().chain(&ours) {
        // 7 fields (the 7th the retries), script 0, no retry.
        assert_eq!((l.len(), l[3], l[6]), (7, 0, 0), "{l:?}");
    }
    // Each client's transactions numbered 1, 2, … in its file's order; and -t is
    // each client's count, exactly, as pgbench's (it was the clients' shared budget
    // of 12, so a fast client could run 6 and a slow one 2).
    for (who, lines) in [("pgbench", &theirs), ("hakaru", &ours)] {
        for c in 0..3 {
            let n: Vec<u64> = lines.iter().filter(|l| l[0] == c).map(|l| l[1]).collect();
            assert_eq!(n, [1, 2, 3, 4], "{who}, client {c}: {lines:?}");
        }
    }
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    for f in &ours {
        assert!(f[2] > 0 && f[2] < 5_000_000, "{f:?}");
        assert!(f[4] <= now && f[4] + 60 > now && f[5] < 1_000_000, "{f:?}");
    }
}

/// Issue 33 item 3: a kill -9 mid-run leaves whole lines in the `-l` files (the
/// workers hand over whole buffers; the lines still buffered are lost whole).
#[test]
fn pgbench_per_transaction_log_killed_mid_run_holds_whole_lines() {
    let Some(pg) = Postgres::start(&[]) else {
        return;
    };
    let dir = crate::util::TempDir::new("pgbench-l-kill");
    let script = dir.write("one.sql", "SELECT 1;\n");
    let port = pg.port.to_string();
    let mut child = hakaru()
        .args([
            "pgbench", "-n", "-l", "-c", "2", "-j", "2", "-T", "20", "-f",
        ])
        .arg(&script)
        .args(["-h", "127.0.0.1", "-p", &port, "-U", USER, "postgres"])
        .current_dir(&dir.0)
        .env("PGPASSWORD", PASSWORD)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_secs(3));
    child.kill().unwrap();
    child.wait().unwrap();
    let files = log_files(&dir.0);
    assert_eq!(files.len(), 2, "{files:?}");
    let lines: Vec<&String> = files.iter().flat_map(|(_, l)| l.iter()).collect();
    assert!(!lines.is_empty(), "nothing handed over in 3 s");
    for l in lines {
        let f: Vec<u64> = l.split(' ').map(|x| x.parse().unwrap()).collect();
        assert_eq!(f.len(), 6, "{l}");
    }
}

/// Bug: a serialization failure's line read `serialization` in every run; pgbench
/// 15 writes `failed` for every failure unless `--failures-detailed` (then
/// `serialization` or `deadlock`); its aggregated log counts serialization and
/// deadlock failures under `--failures-detailed` only, 0 otherwise. The script
/// fails with 40001 every time.
#[test]
fn pgbench_log_names_a_failure_s_kind_only_with_failures_detailed() {
    let Some(pg) = Postgres::start(&[]) else {
        return;
    };
    let dir = crate::util::TempDir::new("pgbench-l-failed");
    let script = dir.write(
        "ser.sql",
        "DO $$ BEGIN RAISE EXCEPTION USING ERRCODE = '40001'; END $$;\n",
    );
    let port = pg.port.to_string();
    for (detailed, want) in [(false, "failed"), (true, "serialization")] {
        let out = dir.path(if detailed { "detailed" } else { "plain" });
        std::fs::create_dir_all(&out).unwrap();
        let mut args = vec!["pgbench", "-n", "-l", "-t", "2", "-f"];
        args.extend([script.to_str().unwrap(), "-h", "127.0.0.1", "-p", &port]);
        args.extend(["-U", USER, "postgres"]);
        if detailed {
            args.push("--failures-detailed");
        }
        let o = hakaru()
            .args(&args)
            .current_dir(&out)
            .env("PGPASSWORD", PASSWORD)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&o.stdout);
        let files = log_files(&out);
        let lines = &files.first().expect("a log file").1;
        assert_eq!(lines.len(), 2, "{lines:?}\n{text}");
        for l in lines {
            assert_eq!(l.split(' ').nth(2), Some(want), "{l}");
        }
        let detail = "number of serialization failures: 2 (100.000%)";
        assert_eq!(text.contains(detail), detailed, "{text}");
        // The aggregated log's serialization_failures (its 14th field), likewise.
        let prefix = out.join("agg");
        let mut agg = args.clone();
        agg.extend(["--aggregate-interval", "1", "--log-prefix"]);
        agg.push(prefix.to_str().unwrap());
        hakaru()
            .args(&agg)
            .env("PGPASSWORD", PASSWORD)
            .output()
            .unwrap();
        let file = std::fs::read_dir(&out)
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| p.file_name().unwrap().to_str().unwrap().starts_with("agg."))
            .expect("the aggregated log");
        let log = std::fs::read_to_string(file).unwrap();
        let failures: u64 = log
            .lines()
            .map(|l| l.split(' ').nth(13).unwrap().parse::<u64>().unwrap())
            .sum();
        assert_eq!(failures, if detailed { 2 } else { 0 }, "{log}");
    }
}
