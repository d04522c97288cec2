//! Many load machines as one (`--shard K/N` and `hakaru merge`): the shards together
//! send exactly the one-machine plan, and the merged result adds up exactly.

use crate::util::*;

fn shard_run(t: &str, dir: &TempDir, k: u32, extra: &[&str]) -> std::path::PathBuf {
    let out = dir.path(&format!("shard-{k}.json"));
    let mut args = vec!["run", "--shard"];
    let shard = format!("{k}/3");
    args.push(&shard);
    args.extend_from_slice(extra);
    let o = out.to_str().unwrap().to_owned();
    args.extend_from_slice(&["-o", &o, t]);
    ok(&run(&args));
    out
}

/// `hakaru merge PATHS -o DIR/merged.json`, which must succeed: the merged file.
fn merge_into(dir: &TempDir, paths: &[std::path::PathBuf]) -> std::path::PathBuf {
    let merged = dir.path("merged.json");
    let mut args = vec!["merge".to_owned()];
    args.extend(paths.iter().map(|p| p.display().to_string()));
    args.extend(["-o".to_owned(), merged.display().to_string()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    ok(&run(&args));
    merged
}

#[test]
fn three_shards_send_the_one_machine_plan_and_merge_exactly() {
    let t = target();
    let url = format!("http://{}/", t.addr);
    let dir = TempDir::new("shards");
    // Closed model: 7 clients and 1,000 requests shared 3/2/2 and 334/333/333.
    let paths: Vec<_> = (1..=3)
        .map(|k| shard_run(&url, &dir, k, &["-c", "7", "-n", "1000", "--seed", "5"]))
        .collect();
    let clients: Vec<u64> = paths
        .iter()
        .map(|p| read_json(p)["steps"][0]["n_clients"].as_u64().unwrap())
        .collect();
    assert_eq!(clients, vec![3, 2, 2]);
    let merged = merge_into(&dir, &paths);
    let m = read_json(&merged);
    let step = &m["steps"][0];
    assert_eq!(step["total_requests"], 1000, "{step}");
    assert_eq!(step["responses"], 1000);
    assert_eq!(step["n_clients"], 7);
    assert_eq!(m["settings"]["shard"], serde_json::Value::Null);
    // The merged histogram holds every response of every shard.
    let r =
        hakaru::result::json::from_json(&std::fs::read_to_string(&merged).unwrap(), "m").unwrap();
    assert_eq!(r.steps[0].to_recorder().unwrap().latency.len(), 1000);
    assert!(dir.path("merged.csv").exists());
}

#[test]
fn open_model_shards_split_one_timetable() {
    let t = target();
    let url = format!("http://{}/", t.addr);
    let dir = TempDir::new("rate-shards");
    // 300 requests due at 1,000/s, shared by index: 100 each, none twice.
    let paths: Vec<_> = (1..=3)
        .map(|k| shard_run(&url, &dir, k, &["-c", "4", "--rate", "1000", "-n", "300"]))
        .collect();
    for p in &paths {
        let step = &read_json(p)["steps"][0];
        assert_eq!(step["total_requests"], 100, "{step}");
        assert!((step["rate"].as_f64().unwrap() - 1000.0 / 3.0).abs() < 1e-6);
    }
    let merged = dir.path("m.json");
    let a: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    ok(&run(&[
        "merge",
        &a[0],
        &a[1],
        &a[2],
        "-o",
        merged.to_str().unwrap(),
    ]));
    let step = &read_json(&merged)["steps"][0];
    assert_eq!(step["total_requests"], 300);
    assert!(
        (step["rate"].as_f64().unwrap() - 1000.0).abs() < 1e-6,
        "{step}"
    );
}

#[test]
fn merge_refuses_a_missing_a_doubled_or_a_foreign_shard() {
    let t = target();
    let url = format!("http://{}/", t.addr);
    let dir = TempDir::new("bad-shards");
    let one = shard_run(&url, &dir, 1, &["-c", "3", "-n", "30"])
        .display()
        .to_string();
    let two = shard_run(&url, &dir, 2, &["-c", "3", "-n", "30"])
        .display()
        .to_string();
    let other = dir.path("other.json");
    ok(&run(&[
        "run",
        "--shard",
        "3/3",
        "-c",
        "3",
        "-n",
        "60",
        "-o",
        other.to_str().unwrap(),
        &url,
    ]));
    let out = dir.path("m.json").display().to_string();
    let refused = |args: &[&str], says: &str| {
        let o = run(args);
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert!(stderr(&o).contains(says), "{}", stderr(&o));
    };
    // A shard missing is a run that failed in part (exit 1), not a typo: nothing merged.
    let o = run(&["merge", &one, &two, "-o", &out]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("shard 3/3 is missing: 2 of 3 shards came back"),
        "{}",
        stderr(&o)
    );
    assert!(!std::path::Path::new(&out).exists());
    refused(&["merge", &one, &one, "-o", &out], "are both shard 1/3");
    refused(
        &["merge", &one, &two, other.to_str().unwrap(), "-o", &out],
        "is not the same plan",
    );
    let o = run(&["run", "--shard", "4/3", &url]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("K must be from 1 to N"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn start_at_starts_every_shard_on_the_same_schedule() {
    let t = target();
    let url = format!("http://{}/", t.addr);
    let dir = TempDir::new("start-at");
    // A moment two seconds ahead, as `date -u` would give it to every machine.
    let at = std::time::SystemTime::now() + std::time::Duration::from_secs(2);
    let at = hakaru::sysinfo::rfc3339(at);
    let children: Vec<_> = (1..=3)
        .map(|k| {
            let out = dir.path(&format!("s{k}.json"));
            let child = hakaru()
                .args(["ramp", "--shard", &format!("{k}/3"), "--start-at", &at])
                .args([
                    "--start-n-clients",
                    "3",
                    "--end-n-clients",
                    "6",
                    "--step",
                    "3",
                ])
                .args(["--duration", "0.5", "--interval", "0.5", "-q"])
                .args(["-o", out.to_str().unwrap(), &url])
                .stdout(std::process::Stdio::null())
                .spawn()
                .unwrap();
            (child, out)
        })
        .collect();
    let mut paths = Vec::new();
    for (mut child, out) in children {
        let status = wait_bounded(&mut child, std::time::Duration::from_secs(60));
        assert_eq!(status.and_then(|s| s.code()), Some(0));
        let r = read_json(&out);
        assert_eq!(r["settings"]["start_at"].as_str().unwrap(), at);
        for step in r["steps"].as_array().unwrap() {
            // Each step says how late it started; the first did not start early.
            assert!(step["start_late_s"].as_f64().unwrap() >= 0.0, "{step}");
        }
        assert!(r["steps"][0]["started_at"].as_str().unwrap() >= at.as_str());
        paths.push(out.display().to_string());
    }
    let merged = dir.path("m.json");
    ok(&run(&[
        "merge",
        &paths[0],
        &paths[1],
        &paths[2],
        "-o",
        merged.to_str().unwrap(),
    ]));
    let m = read_json(&merged);
    assert_eq!(m["steps"].as_array().unwrap().len(), 2);
    assert!(m["steps"][1]["start_late_s"].as_f64().is_some());
}

#[test]
fn start_at_refuses_a_moment_past_or_a_schedule_it_cannot_plan() {
    let refused = |args: &[&str], says: &str| {
        let o = run(args);
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert!(stderr(&o).contains(says), "{}", stderr(&o));
    };
    let url = "http://127.0.0.1:9/";
    refused(
        &["run", "--start-at", "2020-01-01T00:00:00Z", url],
        "--start-at 2020-01-01T00:00:00.000Z: that moment passed",
    );
    refused(
        &["run", "--start-at", "tomorrow", url],
        "neither a time like 2026-11-23T10:00:00Z nor a delay like +30s",
    );
    refused(
        &["run", "--start-at", "+1s", "-n", "10", "--rounds", "2", url],
        "--start-at: step 1 ends by request count (-n)",
    );
}

#[test]
fn bulk_shards_write_every_document_once_even_with_one_prefix_and_seed() {
    use crate::docs::{create_db, doc_count, docs_server};
    let s = docs_server();
    let db = create_db(&s, "shards");
    let dir = TempDir::new("bulk-shards");
    // What an Indexed Job does: the same flags on every machine, only K differs.
    let paths: Vec<String> = (1..=3)
        .map(|k| {
            let out = dir.path(&format!("b{k}.csv"));
            let o = hakaru()
                .args(["bulk", &db, "--shard", &format!("{k}/3")])
                .args(["--batch-sizes", "10,50", "--writers", "3", "--count", "600"])
                .args(["--id-prefix", "same-", "--seed", "7", "--ids", "sequential"])
                .arg("-o")
                .arg(&out)
                .output()
                .unwrap();
            ok(&o);
            dir.path(&format!("b{k}.json")).display().to_string()
        })
        .collect();
    for p in &paths {
        let step = &read_json(std::path::Path::new(p))["steps"][0];
        assert_eq!(step["bulk"]["writers"], 1, "{step}");
    }
    let merged = dir.path("m.json");
    ok(&run(&[
        "merge",
        &paths[0],
        &paths[1],
        &paths[2],
        "-o",
        merged.to_str().unwrap(),
    ]));
    let m = read_json(&merged);
    let mut acknowledged = 0;
    for step in m["steps"].as_array().unwrap() {
        // 600 documents a step over three machines, not one of them a conflict.
        assert_eq!(step["bulk"]["docs_acknowledged"], 600, "{step}");
        assert_eq!(step["bulk"]["writers"], 3);
        assert!(step["bulk"]["item_errors"].as_object().unwrap().is_empty());
        acknowledged += 600;
    }
    assert_eq!(doc_count(&db), acknowledged);
    let o = run(&["bulk", &db, "--shard", "1/3", "--writers", "3", "--verify"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("--verify with --shard"),
        "{}",
        stderr(&o)
    );
}

/// Regression (issue 21): `merge` kept shard 1's `--before-step` record alone, so a
/// command that failed on another shard (recorded with `--before-may-fail`) read as a
/// success in the merged result. Every shard's record is kept, each with its shard,
/// and the failure is the merged step's.
#[test]
fn merge_keeps_every_shard_s_before_command_and_its_failure() {
    let t = target();
    let url = format!("http://{}/", t.addr);
    let dir = TempDir::new("before-shards");
    let paths: Vec<_> = (1..=3)
        .map(|k| {
            let command = if k == 2 {
                "echo cold >&2; exit 3"
            } else {
                "echo warm >&2"
            };
            let extra = [
                "-c",
                "3",
                "-n",
                "300",
                "--before-step",
                command,
                "--before-may-fail",
            ];
            shard_run(&url, &dir, k, &extra)
        })
        .collect();
    let merged = merge_into(&dir, &paths);
    let m = read_json(&merged);
    let b = &m["steps"][0]["before_step"];
    assert_eq!(b["ok"], false, "{b}");
    assert_eq!(b["exit_code"], 3, "{b}");
    assert_eq!(b["error"], "shard 2: exit status 3: cold", "{b}");
    let shards: Vec<(u64, bool, &str)> = b["shards"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let stderr = s["stderr"].as_str().unwrap();
            (
                s["shard"].as_u64().unwrap(),
                s["ok"].as_bool().unwrap(),
                stderr,
            )
        })
        .collect();
    assert_eq!(
        shards,
        vec![(1, true, "warm"), (2, false, "cold"), (3, true, "warm")]
    );
    assert_eq!(m["steps"][0]["responses"], 300);
}
