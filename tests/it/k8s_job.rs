//! The rendered Job, run: no cluster runs here, so this test does what a Job does with
//! the manifest `hakaru k8s render` writes. It reads the manifest with a real YAML
//! reader (PyYAML), and for each completion index runs the container's arguments
//! exactly as written — the image's entrypoint `/hakaru` being this build's binary —
//! with the environment a Job gives a pod: `JOB_COMPLETION_INDEX`, the container's
//! `env` (its `$(VAR)`s expanded in the arguments as Kubernetes does), and the
//! ConfigMap's files at the mount (a temporary directory: the mount path in the
//! arguments is that directory). Each pod runs in a network namespace of its own where
//! the machine allows (`netns.rs`'s lab: the target behind a bridge); elsewhere as a
//! plain process on loopback, and the test says so. A pod's stdout and stderr go to
//! one log, as the container runtime keeps it; the logs, one after another, are piped
//! into `hakaru merge -` as the documented `kubectl logs … | hakaru merge -` does.
//!
//! The merged result must be the one-process answer for the same load: counts exact
//! (closed model, `-n`), the open model's schedule within 1%, a suite's recovery after
//! its event within a second; and three `stream send` pods verified by one `watch`
//! (through rsyslogd in the target's namespace where it is installed, the watch reading
//! its file: the receiver's side of a cluster's log pipeline).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use crate::netns::Lab;
use crate::util::*;

/// The Job as a pod sees it.
struct Job {
    completions: usize,
    args: Vec<String>,
    /// The container's variables, `JOB_COMPLETION_INDEX` aside.
    env: Vec<(String, String)>,
    /// The ConfigMap's mount path and files (key, text).
    mount: Option<(String, Vec<(String, String)>)>,
}

/// The manifest's documents as JSON, read by PyYAML (the venv's, as CI has it, or
/// Debian's python3-yaml); None (and why) outside CI when neither is here.
fn read_manifest(path: &Path) -> Option<Vec<serde_json::Value>> {
    let script =
        "import sys, json, yaml; print(json.dumps(list(yaml.safe_load_all(open(sys.argv[1])))))";
    let pythons = [
        crate::k8s::venv().map(|v| v.join("bin/python")),
        Some(PathBuf::from("python3")),
    ];
    for py in pythons.into_iter().flatten() {
        let Ok(o) = Command::new(&py).args(["-c", script]).arg(path).output() else {
            continue;
        };
        if o.status.success() {
            return Some(serde_json::from_slice(&o.stdout).expect("PyYAML wrote JSON"));
        }
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "no Python with PyYAML to read the manifest, but CI must run this test"
    );
    eprintln!("skipped: no Python with PyYAML (apt-get install python3-yaml)");
    None
}

/// `hakaru k8s render ARGS` written to a file and read back as the Job a cluster runs.
fn render(dir: &TempDir, name: &str, args: &[&str]) -> Option<Job> {
    let o = hakaru()
        .args(["k8s", "render", "--name", name])
        .args(args)
        .current_dir(dir.path(""))
        .output()
        .unwrap();
    let yaml = ok(&o);
    let path = dir.path(&format!("{name}.yaml"));
    std::fs::write(&path, yaml).unwrap();
    let docs = read_manifest(&path)?;
    let job = docs
        .iter()
        .find(|d| d["kind"] == "Job")
        .expect("a Job in the manifest");
    let spec = &job["spec"];
    assert_eq!(spec["completionMode"], "Indexed");
    let pod = &spec["template"]["spec"];
    let c = &pod["containers"][0];
    assert!(
        c.get("command").is_none(),
        "the image's entrypoint runs the arguments"
    );
    let strings = |v: &serde_json::Value| -> Vec<String> {
        v.as_array()
            .into_iter()
            .flatten()
            .map(|s| s.as_str().expect("a string").to_owned())
            .collect()
    };
    let secrets = docs.iter().find(|d| d["kind"] == "Secret");
    let mut env = Vec::new();
    for e in c["env"].as_array().into_iter().flatten() {
        let name = e["name"].as_str().unwrap().to_owned();
        if let Some(v) = e["value"].as_str() {
            env.push((name, v.to_owned()));
        } else if let Some(r) = e["valueFrom"]["secretKeyRef"].as_object() {
            let key = r["key"].as_str().unwrap();
            let v = secrets.expect("the Secret")["stringData"][key]
                .as_str()
                .unwrap();
            env.push((name, v.to_owned()));
        } else {
            // The one the Job sets from the pod's annotation.
            assert_eq!(name, "JOB_COMPLETION_INDEX", "{e}");
        }
    }
    let mount = c["volumeMounts"]
        .as_array()
        .and_then(|m| m.first())
        .map(|m| {
            let volume = pod["volumes"]
                .as_array()
                .unwrap()
                .iter()
                .find(|v| v["name"] == m["name"])
                .expect("the mount's volume");
            let map_name = &volume["configMap"]["name"];
            let map = docs
                .iter()
                .find(|d| d["kind"] == "ConfigMap" && d["metadata"]["name"] == *map_name)
                .expect("the volume's ConfigMap");
            let files = map["data"]
                .as_object()
                .unwrap()
                .iter()
                .map(|(k, v)| (k.clone(), v.as_str().unwrap().to_owned()))
                .collect();
            (m["mountPath"].as_str().unwrap().to_owned(), files)
        });
    Some(Job {
        completions: spec["completions"].as_u64().unwrap() as usize,
        args: strings(&c["args"]),
        env,
        mount,
    })
}

/// `$(VAR)` in an argument as Kubernetes expands it from the container's variables
/// (`$$` is a `$`; an unknown name stays as written).
fn expand(arg: &str, env: &[(String, String)]) -> String {
    let mut out = String::new();
    let mut rest = arg;
    while let Some(i) = rest.find('$') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        if let Some(tail) = after.strip_prefix('$') {
            out.push('$');
            rest = tail;
        } else if let Some((name, tail)) = after
            .strip_prefix('(')
            .and_then(|a| a.split_once(')'))
            .filter(|(n, _)| env.iter().any(|(k, _)| k == n))
        {
            let v = &env.iter().find(|(k, _)| k == name).unwrap().1;
            out.push_str(v);
            rest = tail;
        } else {
            out.push('$');
            rest = after;
        }
    }
    out + rest
}

/// Where the pods run: each in its own network namespace, or plain processes.
struct Cluster {
    lab: Option<Lab>,
    /// The target every pod sends to, and its process (for a suite's event).
    url: String,
    target_pid: u32,
    _loopback: Option<Server>,
}

impl Cluster {
    fn new(pods: usize) -> Cluster {
        if let Some(mut lab) = Lab::new(pods) {
            let url = lab.serve();
            let target_pid = lab.children.last().unwrap().id();
            return Cluster {
                lab: Some(lab),
                url,
                target_pid,
                _loopback: None,
            };
        }
        eprintln!(
            "k8s_job: network namespaces are not allowed here: the pods run as plain \
             processes on loopback"
        );
        let server = hakaru_serve(&["--threads", "2"], "k8s-job-target");
        Cluster {
            lab: None,
            url: format!("http://127.0.0.1:{}", server.port),
            target_pid: server.child.id(),
            _loopback: Some(server),
        }
    }

    /// hakaru as pod `index` runs it: in its namespace, or plain.
    fn hakaru(&self, index: usize) -> Command {
        match &self.lab {
            Some(lab) => Lab::hakaru_in(&lab.shard_ns[index]),
            None => hakaru(),
        }
    }
}

/// Every pod of the Job run together, as a Job starts them; their logs one after
/// another, as `kubectl logs -l …` prints them.
fn run_pods(job: &Job, dir: &TempDir, place: &dyn Fn(usize) -> Command) -> Vec<u8> {
    let mount_dir = dir.path("mount");
    let mut args = job.args.clone();
    if let Some((path, files)) = &job.mount {
        std::fs::create_dir_all(&mount_dir).unwrap();
        for (key, text) in files {
            std::fs::write(mount_dir.join(key), text).unwrap();
        }
        let here = mount_dir.display().to_string();
        for a in &mut args {
            if let Some(rest) = a.strip_prefix(&format!("{path}/")) {
                *a = format!("{here}/{rest}");
            }
        }
    }
    let mut pods = Vec::new();
    for index in 0..job.completions {
        let mut env = job.env.clone();
        env.push(("JOB_COMPLETION_INDEX".into(), index.to_string()));
        let argv: Vec<String> = args.iter().map(|a| expand(a, &env)).collect();
        let log_path = dir.path(&format!("pod-{index}.log"));
        let log = std::fs::File::create(&log_path).unwrap();
        let child = place(index)
            .args(&argv)
            .envs(env.iter().map(|(k, v)| (k, v)))
            .current_dir(dir.path(""))
            .stdout(Stdio::from(log.try_clone().unwrap()))
            .stderr(Stdio::from(log))
            .spawn()
            .expect("the pod starts");
        pods.push((child, log_path));
    }
    let mut logs = Vec::new();
    for (mut child, log) in pods {
        let status = wait_bounded(&mut child, Duration::from_secs(60));
        let text = std::fs::read(&log).unwrap();
        assert_eq!(
            status.and_then(|s| s.code()),
            Some(0),
            "a pod failed:\n{}",
            String::from_utf8_lossy(&text)
        );
        logs.extend_from_slice(&text);
    }
    logs
}

/// `… | hakaru merge - -o merged.json [more]`: its exit code, what it said, the result.
fn merge(dir: &TempDir, logs: &[u8], more: &[&str]) -> (Option<i32>, String, PathBuf) {
    let merged = dir.path("merged.json");
    let mut child = hakaru()
        .args(["merge", "-", "-o", merged.to_str().unwrap()])
        .args(more)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(logs).unwrap();
    let out = child.wait_with_output().unwrap();
    let said = format!("{}{}", stdout(&out), stderr(&out));
    (out.status.code(), said, merged)
}

/// The same command as one process (in pod 0's place), its JSON result.
fn one_process(c: &Cluster, dir: &TempDir, args: &[&str]) -> serde_json::Value {
    let out = dir.path("one.json");
    let o = c
        .hakaru(0)
        .args(args)
        .args(["-q", "-o", out.to_str().unwrap()])
        .current_dir(dir.path(""))
        .output()
        .unwrap();
    ok(&o);
    read_json(&out)
}

#[test]
fn k8s_job_pods_merge_into_the_one_process_run() {
    let _one_at_a_time = timed();
    let c = Cluster::new(3);
    let dir = TempDir::new("k8s-job-run");
    let url = format!("{}/", c.url);

    // Closed model with a budget: every request counted once, over the pods as in one.
    let load = ["run", "-c", "6", "-n", "300", "--threads", "1", &url];
    let mut render_args = vec!["--shards", "3", "--"];
    render_args.extend(load);
    let Some(job) = render(&dir, "closed", &render_args) else {
        return;
    };
    let logs = run_pods(&job, &dir, &|i| c.hakaru(i));
    let (code, said, merged) = merge(&dir, &logs, &[]);
    assert_eq!(code, Some(0), "{said}");
    assert!(
        said.contains(
            "Merged 3 of 3 shards of a run: 1 step(s), 300 responses of 300 requests, p99 "
        ),
        "{said}"
    );
    let m = read_json(&merged);
    let one = one_process(&c, &dir, &load);
    for field in ["total_requests", "responses", "n_clients"] {
        assert_eq!(m["steps"][0][field], one["steps"][0][field], "{field}");
    }
    assert_eq!(m["steps"][0]["total_requests"], 300);
    assert_eq!(m["settings"]["merged"]["shards"], 3);
    assert_eq!(m["settings"]["merged"]["of"], 3);

    // Open model: the pods send the one-machine schedule between them, within 1%.
    let load = [
        "run",
        "--rate",
        "300",
        "-d",
        "2",
        "-c",
        "8",
        "--threads",
        "1",
        &url,
    ];
    let mut render_args = vec!["--shards", "3", "--"];
    render_args.extend(load);
    render_args.extend(["--start-at", "+2s"]);
    let job = render(&dir, "open", &render_args).expect("read before");
    let logs = run_pods(&job, &dir, &|i| c.hakaru(i));
    let (code, said, merged) = merge(&dir, &logs, &[]);
    assert_eq!(code, Some(0), "{said}");
    let sent = |v: &serde_json::Value| {
        let s = &v["steps"][0];
        s["total_requests"].as_u64().unwrap()
            + s["unfinished"].as_u64().unwrap()
            + s["dropped"].as_u64().unwrap()
    };
    let m = read_json(&merged);
    let one = one_process(&c, &dir, &load);
    let (ms, os) = (sent(&m) as f64, sent(&one) as f64);
    eprintln!("open model: the pods sent {ms} of the schedule's 600, one process {os}");
    assert!((ms - os).abs() <= 0.01 * os, "pods {ms}, one process {os}");
    assert!((ms - 600.0).abs() <= 6.0, "pods {ms} of 600");
}

#[test]
fn k8s_job_suite_pods_merge_with_the_events_recovery() {
    let _one_at_a_time = timed();
    let c = Cluster::new(3);
    let dir = TempDir::new("k8s-job-suite");
    std::fs::create_dir_all(dir.path("data")).unwrap();
    dir.write("data/reads.txt", "/delay/5\n/bytes/100\n");
    let (host, port) = c
        .url
        .trim_start_matches("http://")
        .rsplit_once(':')
        .unwrap();
    // The target stalls for 2 s after 2 s: every request waits, then it recovers.
    // A stopped target answers under 0.3% of the baseline's throughput in its
    // seconds, and its stalled requests' p99 is ~100x; on a loaded machine the
    // running seconds after it came as low as 27% of the baseline's throughput and
    // 2.5x its p99 (a CI-like run here; 25% and 4x left it unrecovered). 5% and 10x
    // tell the two apart with room on both sides.
    let stall = 2.0;
    dir.write(
        "stall.toml",
        &format!(
            r#"hosts = ["{host}"]
port = {port}

[targets.web]
pid = {pid}

[recovery]
throughput = 0.05
p99_factor = 10
hold = "2s"
baseline = "2s"

[[phase]]
name = "steady"
duration = "8s"
clients = 6
[[phase.workload]]
url = "{url}/"
weight = 1
[[phase.workload]]
patterns = "data/reads.txt"
weight = 1

[[event]]
name = "stall"
at = "2s"
run = "kill -STOP {{pid:web}}; sleep {stall}; kill -CONT {{pid:web}}"
"#,
            pid = c.target_pid,
            url = c.url,
            host = host,
            port = port,
        ),
    );
    let recovery = |v: &serde_json::Value| -> f64 {
        let e = &v["suite"]["events"][0];
        assert_eq!(e["ok"], true, "{e}");
        // The seconds the recovery was judged on, for a failure's message.
        let seconds: Vec<String> = v["steps"][0]["timeline"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|s| format!("{}: {} ok, p99 {}", s["second"], s["responses"], s["p99_s"]))
            .collect();
        e["recovery"]["recovery_s"]
            .as_f64()
            .unwrap_or_else(|| panic!("not recovered: {e}\nseconds: {seconds:?}"))
    };
    let one = one_process(&c, &dir, &["suite", "stall.toml"]);
    let Some(job) = render(
        &dir,
        "suite",
        &[
            "--shards",
            "3",
            "--",
            "suite",
            "stall.toml",
            "--start-at",
            "+2s",
        ],
    ) else {
        return;
    };
    let logs = run_pods(&job, &dir, &|i| c.hakaru(i));
    let (code, said, merged) = merge(&dir, &logs, &[]);
    // Whatever happened, the target must not stay stopped.
    let _ = Command::new("kill")
        .args(["-CONT", &c.target_pid.to_string()])
        .status();
    assert_eq!(code, Some(0), "{said}");
    assert!(said.contains("Merged 3 of 3 shards of a suite"), "{said}");
    let m = read_json(&merged);
    // The event ran once, on shard 1's pod.
    assert_eq!(m["suite"]["events"].as_array().unwrap().len(), 1);
    assert_eq!(m["suite"]["phases"][0]["clients"], 6);
    let (mr, or) = (recovery(&m), recovery(&one));
    eprintln!("suite: recovered in {mr} s over the pods, {or} s in one process");
    assert!((mr - or).abs() <= 1.0, "pods {mr} s, one process {or} s");
    assert!(
        (mr - stall).abs() <= 1.0,
        "pods {mr} s, the stall {stall} s"
    );
}

/// The receiver of the stream case: where the records land and the watch that reads
/// them there.
struct Receiver {
    watch: std::process::Child,
    /// `stream send --to`.
    to: String,
    _pipeline: Option<Server>,
}

impl Receiver {
    /// With namespaces and rsyslogd: rsyslogd in the target's namespace (imtcp on the
    /// bridge) writing every record to a file that `watch file:` reads, as a cluster's
    /// log pipeline would. Otherwise `watch listen:tcp://127.0.0.1:0` (it listens on
    /// loopback only), the pods plain processes beside it.
    fn start(c: &Cluster, dir: &TempDir, watch_args: &[&str]) -> Receiver {
        let rsyslogd = ["/usr/sbin/rsyslogd", "/sbin/rsyslogd"]
            .into_iter()
            .find(|p| Path::new(p).exists());
        if let (Some(lab), Some(program)) = (&c.lab, rsyslogd) {
            let port = free_port();
            let addr = format!("{}.1:{port}", lab.subnet);
            let base = dir.path("").display().to_string();
            std::fs::create_dir_all(dir.path("work")).unwrap();
            let conf = dir.write(
                "rsyslog.conf",
                &format!(
                    r#"global(workDirectory="{base}/work" maxMessageSize="64k")
module(load="imtcp")
template(name="rawmsg" type="string" string="%rawmsg%\n")
ruleset(name="bench") {{ action(type="omfile" file="{base}/out.log" template="rawmsg") }}
input(type="imtcp" address="{}.1" port="{port}" ruleset="bench")
"#,
                    lab.subnet
                ),
            );
            let child = Command::new("ip")
                .args(["netns", "exec", &lab.target_ns, program, "-n", "-f"])
                .arg(&conf)
                .arg("-i")
                .arg(dir.path("rsyslogd.pid"))
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("rsyslogd starts");
            let pipeline = Server {
                child,
                port,
                dir: TempDir::new("k8s-job-rsyslog"),
            };
            // Ready when a pod's namespace can connect (bash's /dev/tcp, bounded).
            let (host, port) = addr.split_once(':').unwrap();
            let ready = (0..100).any(|_| {
                std::thread::sleep(Duration::from_millis(100));
                Command::new("ip")
                    .args(["netns", "exec", &lab.shard_ns[0], "bash", "-c"])
                    .arg(format!("exec 3<>/dev/tcp/{host}/{port}"))
                    .stderr(Stdio::null())
                    .status()
                    .is_ok_and(|s| s.success())
            });
            assert!(ready, "rsyslogd did not listen on {addr}");
            let watch = hakaru()
                .arg("watch")
                .arg(format!("file:{}", dir.path("out.log").display()))
                .args(watch_args)
                .stdout(Stdio::piped())
                .stderr(Stdio::null())
                .spawn()
                .unwrap();
            eprintln!("k8s_job: stream pods in their namespaces, into rsyslogd on {addr}");
            return Receiver {
                watch,
                to: format!("tcp://{addr}"),
                _pipeline: Some(pipeline),
            };
        }
        eprintln!(
            "k8s_job: the stream pods run as plain processes on loopback (no network \
             namespaces or no rsyslogd here; watch listens on loopback only)"
        );
        let mut watch = hakaru()
            .args(["watch", "listen:tcp://127.0.0.1:0"])
            .args(watch_args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut err = std::io::BufReader::new(watch.stderr.take().unwrap());
        let mut line = String::new();
        std::io::BufRead::read_line(&mut err, &mut line).unwrap();
        let addr = line
            .trim()
            .strip_prefix("hakaru: listening on ")
            .unwrap_or_else(|| panic!("{line}"))
            .to_owned();
        // Keep draining stderr so the watch never blocks on it.
        std::thread::spawn(move || std::io::copy(&mut err, &mut std::io::sink()));
        Receiver {
            watch,
            to: format!("tcp://{addr}"),
            _pipeline: None,
        }
    }
}

#[test]
fn k8s_job_three_stream_senders_verified_by_one_watch() {
    let c = Cluster::new(3);
    let dir = TempDir::new("k8s-job-stream");
    let mut r = Receiver::start(
        &c,
        &dir,
        &[
            "--verify",
            "--senders",
            "3",
            "--expect",
            "2000",
            "--warmup",
            "0s",
            "--window",
            "30s",
            "-i",
            "1s",
            "-q",
            "--no-machine",
            "--json",
        ],
    );
    let send = [
        "stream",
        "send",
        "--to",
        &r.to,
        "-c",
        "1",
        "-n",
        "2000",
        "--record-size",
        "128",
        "--rate",
        "6000",
    ];
    let mut render_args = vec!["--shards", "3", "--"];
    render_args.extend(send);
    let o = hakaru()
        .args(["k8s", "render"])
        .args(&render_args)
        .output()
        .unwrap();
    ok(&o);
    assert!(
        stderr(&o).contains("--verify --senders 3 --expect 2000"),
        "{}",
        stderr(&o)
    );
    let Some(job) = render(&dir, "stream", &render_args) else {
        let _ = r.watch.kill();
        let _ = r.watch.wait();
        return;
    };
    let logs = run_pods(&job, &dir, &|i| c.hakaru(i));
    let (code, said, merged) = merge(&dir, &logs, &[]);
    assert_eq!(code, Some(0), "{said}");
    assert!(
        said.contains("Merged 3 of 3 shards of a stream send: 3 senders, 6000 records"),
        "{said}"
    );
    let m = read_json(&merged);
    let ids: Vec<u64> = m["send"]["report"]["senders"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["sender"].as_u64().unwrap())
        .collect();
    assert_eq!(ids, [0, 1, 2]);
    assert_eq!(m["merged"], serde_json::json!({"shards": 3, "of": 3}));
    let status = wait_bounded(&mut r.watch, Duration::from_secs(40));
    let mut out = String::new();
    std::io::Read::read_to_string(&mut r.watch.stdout.take().unwrap(), &mut out).unwrap();
    assert_eq!(status.and_then(|s| s.code()), Some(0), "{out}");
    let w: serde_json::Value = serde_json::from_str(&out).unwrap();
    let v = &w["watch"]["verify"];
    assert_eq!(v["received"], 6000, "{v}");
    assert_eq!(v["lost"], 0, "{v}");
    assert_eq!(v["duplicated"], 0, "{v}");
    assert_eq!(v["senders"].as_array().unwrap().len(), 3, "{v}");
}
