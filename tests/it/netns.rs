//! A local stand-in for a cluster: the target (`hakaru serve`) in one network
//! namespace, three hakaru shards as separate processes each in a namespace of its
//! own, joined by veth pairs on a bridge inside the target's namespace. Addresses in
//! 10.x live only inside the namespaces this test creates; they are deleted when it
//! ends, whatever happens. Needs root and `ip netns`; skipped with a message otherwise.
//!
//! What it checks: the merged result of 3 shards against one process with the same
//! clients (qps within 5%: the target answers /delay/20, so the rate is set by the
//! clients, not by how busy this machine is), the merged histogram holding exactly
//! the shards' responses, and an open-model run over 3 shards sending the one-machine
//! schedule (within 1%).

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use crate::util::*;

/// The namespaces and processes of one test run, removed and killed (by PID) on drop.
/// Also the stand-in cluster of `k8s_job.rs`.
pub(crate) struct Lab {
    prefix: String,
    pub(crate) subnet: String,
    pub(crate) target_ns: String,
    pub(crate) shard_ns: Vec<String>,
    pub(crate) children: Vec<Child>,
}

impl Drop for Lab {
    fn drop(&mut self) {
        for c in &mut self.children {
            let _ = c.kill();
            let _ = c.wait();
        }
        // Deleting a namespace deletes its end of each veth pair, and so the pair.
        for ns in self.shard_ns.iter().chain([&self.target_ns]) {
            let _ = Command::new("ip")
                .args(["netns", "del", ns])
                .stderr(Stdio::null())
                .status();
        }
        let left: Vec<String> = list_namespaces()
            .into_iter()
            .filter(|n| n.starts_with(&self.prefix))
            .collect();
        assert!(
            left.is_empty() || std::thread::panicking(),
            "left behind: {left:?}"
        );
    }
}

fn list_namespaces() -> Vec<String> {
    Command::new("ip")
        .args(["netns", "list"])
        .output()
        .map(|o| {
            String::from_utf8_lossy(&o.stdout)
                .lines()
                .filter_map(|l| l.split_whitespace().next().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

fn ip(args: &[&str]) {
    let o = Command::new("ip").args(args).output().expect("ip runs");
    assert!(
        o.status.success(),
        "ip {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&o.stderr)
    );
}

impl Lab {
    /// The namespaces, or None (after saying why) where they cannot be made.
    pub(crate) fn new(shards: usize) -> Option<Lab> {
        if !is_root() || !have("ip") {
            eprintln!("skipped: network namespaces need root and iproute2's ip");
            return None;
        }
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .subsec_nanos();
        let tag = (std::process::id() ^ nanos) & 0xff_ffff;
        let prefix = format!("hk{tag:06x}");
        let target_ns = format!("{prefix}t");
        let made = Command::new("ip")
            .args(["netns", "add", &target_ns])
            .output()
            .map(|o| o.status.success())
            .unwrap_or(false);
        if !made {
            eprintln!(
                "skipped: `ip netns add` is not allowed here (a container without CAP_SYS_ADMIN?)"
            );
            return None;
        }
        let mut lab = Lab {
            subnet: format!("10.{}.{}", 64 + (tag >> 16) % 64, tag & 0xff),
            prefix: prefix.clone(),
            target_ns: target_ns.clone(),
            shard_ns: Vec::new(),
            children: Vec::new(),
        };
        let t = target_ns.as_str();
        ip(&["-n", t, "link", "set", "lo", "up"]);
        ip(&["-n", t, "link", "add", "br0", "type", "bridge"]);
        ip(&[
            "-n",
            t,
            "addr",
            "add",
            &format!("{}.1/24", lab.subnet),
            "dev",
            "br0",
        ]);
        ip(&["-n", t, "link", "set", "br0", "up"]);
        for k in 1..=shards {
            let ns = format!("{prefix}s{k}");
            ip(&["netns", "add", &ns]);
            lab.shard_ns.push(ns.clone());
            let (a, b) = (format!("{prefix}a{k}"), format!("{prefix}b{k}"));
            // Made inside the namespaces: nothing appears in the host's.
            ip(&[
                "-n", t, "link", "add", &a, "type", "veth", "peer", "name", &b, "netns", &ns,
            ]);
            ip(&["-n", t, "link", "set", &a, "master", "br0", "up"]);
            ip(&[
                "-n",
                &ns,
                "addr",
                "add",
                &format!("{}.{}/24", lab.subnet, k + 1),
                "dev",
                &b,
            ]);
            ip(&["-n", &ns, "link", "set", &b, "up"]);
            ip(&["-n", &ns, "link", "set", "lo", "up"]);
        }
        Some(lab)
    }

    /// hakaru in namespace `ns`.
    pub(crate) fn hakaru_in(ns: &str) -> Command {
        let mut c = Command::new("ip");
        c.args(["netns", "exec", ns, env!("CARGO_BIN_EXE_hakaru")]);
        c.stdin(Stdio::null());
        c
    }

    /// `hakaru serve` on the bridge's address; its URL.
    pub(crate) fn serve(&mut self) -> String {
        let mut child = Lab::hakaru_in(&self.target_ns)
            .args(["serve", "--allow-remote", "--threads", "2", "--bind"])
            .arg(format!("{}.1:0", self.subnet))
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("hakaru serve starts");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        self.children.push(child);
        let port: u16 = line
            .trim()
            .rsplit_once(':')
            .and_then(|(_, p)| p.parse().ok())
            .unwrap_or_else(|| panic!("no address in {line:?}"));
        format!("http://{}.1:{port}", self.subnet)
    }

    /// The shards, started together on `--start-at at`; their result files.
    fn shards(&mut self, dir: &TempDir, name: &str, at: &str, args: &[&str]) -> Vec<String> {
        let n = self.shard_ns.len();
        let mut running = Vec::new();
        for (i, ns) in self.shard_ns.iter().enumerate() {
            let out = dir.path(&format!("{name}-{}.csv", i + 1));
            let child = Lab::hakaru_in(ns)
                .args(args)
                .args(["--shard", &format!("{}/{n}", i + 1), "--start-at", at, "-q"])
                .arg("-o")
                .arg(&out)
                .stdout(Stdio::null())
                .stderr(Stdio::inherit())
                .spawn()
                .unwrap();
            running.push(child);
        }
        for child in &mut running {
            let status = wait_bounded(child, Duration::from_secs(120));
            assert_eq!(status.and_then(|s| s.code()), Some(0), "a shard failed");
        }
        (1..=n)
            .map(|k| dir.path(&format!("{name}-{k}.json")).display().to_string())
            .collect()
    }
}

/// A `--start-at` a few seconds ahead, time for the processes to start.
fn soon() -> String {
    hakaru::sysinfo::rfc3339(std::time::SystemTime::now() + Duration::from_secs(4))
}

fn merge(dir: &TempDir, name: &str, shards: &[String]) -> serde_json::Value {
    let out = dir.path(&format!("{name}.json"));
    let mut args = vec!["merge"];
    args.extend(shards.iter().map(String::as_str));
    args.extend(["-o", out.to_str().unwrap()]);
    ok(&run(&args));
    read_json(&out)
}

#[test]
fn three_shards_in_their_own_namespaces_equal_one_machine() {
    let Some(mut lab) = Lab::new(3) else { return };
    let dir = TempDir::new("netns");
    let url = lab.serve();
    let slow = format!("{url}/delay/100");

    // Closed model: 12 clients on one machine, or 4 on each of three. The one machine
    // runs at the same moment as the three, so this busy box treats them alike.
    let at = soon();
    let load = ["run", "-c", "12", "-d", "4", "--threads", "1"];
    let single = dir.path("single.csv");
    let mut one = Lab::hakaru_in(&lab.shard_ns[0])
        .args(load)
        .args([
            "--start-at",
            &at,
            "-q",
            "-o",
            single.to_str().unwrap(),
            &slow,
        ])
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let mut args = load.to_vec();
    args.push(&slow);
    let shards = lab.shards(&dir, "closed", &at, &args);
    let status = wait_bounded(&mut one, Duration::from_secs(120));
    assert_eq!(
        status.and_then(|s| s.code()),
        Some(0),
        "the one machine failed"
    );
    let merged = merge(&dir, "closed-merged", &shards);
    let single = read_json(&dir.path("single.json"));
    let (m, s) = (&merged["steps"][0], &single["steps"][0]);
    assert_eq!(m["n_clients"], 12);
    let (mq, sq) = (m["qps"].as_f64().unwrap(), s["qps"].as_f64().unwrap());
    for p in &shards {
        let s = &read_json(std::path::Path::new(p))["steps"][0];
        eprintln!(
            "{p}: {} responses, {:.1} qps, started {} s late",
            s["responses"],
            s["qps"].as_f64().unwrap_or(0.0),
            s["start_late_s"]
        );
    }
    eprintln!("merged: {mq:.1} qps; one machine: {sq:.1} qps");
    assert!(
        (mq - sq).abs() <= 0.05 * sq,
        "merged {mq:.1} qps, one machine {sq:.1} qps"
    );
    // The merged histogram holds exactly every shard's responses.
    let count = |path: &str| -> u64 {
        let r =
            hakaru::result::json::from_json(&std::fs::read_to_string(path).unwrap(), path).unwrap();
        r.steps[0].to_recorder().unwrap().latency.len()
    };
    let sum: u64 = shards.iter().map(|p| count(p)).sum();
    let merged_path = dir.path("closed-merged.json").display().to_string();
    assert_eq!(count(&merged_path), sum);
    assert_eq!(m["responses"].as_u64().unwrap(), sum);
    assert!(sum > 0);

    // Open model: 600 requests due over 2 s at 300/s, split by index over three machines.
    let shards = lab.shards(
        &dir,
        "open",
        &soon(),
        &[
            "run",
            "--rate",
            "300",
            "-d",
            "2",
            "-c",
            "8",
            "--threads",
            "1",
            &format!("{url}/"),
        ],
    );
    let merged = merge(&dir, "open-merged", &shards);
    let m = &merged["steps"][0];
    let sent = m["total_requests"].as_u64().unwrap()
        + m["unfinished"].as_u64().unwrap()
        + m["dropped"].as_u64().unwrap();
    eprintln!("open model over 3 shards: {sent} requests of the schedule's 600");
    assert!(
        (sent as f64 - 600.0).abs() <= 6.0,
        "the shards sent {sent} of the one-machine schedule's 600: {m}"
    );
    assert!((m["rate"].as_f64().unwrap() - 300.0).abs() < 1e-6);
}
