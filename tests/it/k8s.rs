//! `hakaru k8s render`: the manifests validate against Kubernetes' own schemas
//! (`kubernetes-validate` from PyPI, offline; `.ci/run` installs it in a venv), read
//! back as YAML to what was meant, and the pods' command, run as three local
//! processes whose output is concatenated as `kubectl logs` would, merges with
//! `hakaru merge -`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Stdio;

use crate::util::*;

/// The venv holding kubernetes-validate (and PyYAML), or None (and a skip message)
/// outside CI when it is missing.
pub(crate) fn venv() -> Option<PathBuf> {
    let dir = std::env::var_os("HAKARU_VENV")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".cache/hakaru-venv")
        });
    if dir.join("bin/kubernetes-validate").exists() {
        return Some(dir);
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "kubernetes-validate is not in {}, but CI must run this test (.ci/run installs it)",
        dir.display()
    );
    eprintln!(
        "skipped: kubernetes-validate is not in {} (python3 -m venv it && pip install kubernetes-validate)",
        dir.display()
    );
    None
}

fn render(dir: &TempDir, args: &[&str]) -> (PathBuf, String) {
    let o = hakaru()
        .args(["k8s", "render"])
        .args(args)
        .output()
        .unwrap();
    let yaml = ok(&o);
    let path = dir.path("job.yaml");
    std::fs::write(&path, &yaml).unwrap();
    (path, stderr(&o))
}

#[test]
fn rendered_manifests_validate_and_read_back() {
    let Some(venv) = venv() else { return };
    let dir = TempDir::new("k8s");
    // Quotes, a colon, a '#', non-ASCII and a blank line: YAML's usual traps.
    let text =
        "/d/select?table=Store&query=\"a b\"\n\n/d/select?query=x: #1\n/d/select?query=測る\n";
    let patterns = dir.write("patterns.txt", text);
    let (path, notes) = render(
        &dir,
        &[
            "--shards",
            "3",
            "--name",
            "bench",
            "--namespace",
            "load",
            "--patterns",
            patterns.to_str().unwrap(),
            "--",
            "run",
            "-c",
            "30",
            "-d",
            "60s",
            "--default-hosts",
            "search",
            "--request-patterns-file",
            patterns.to_str().unwrap(),
        ],
    );
    assert!(notes.contains("no --start-at"), "{notes}");
    let v = std::process::Command::new(venv.join("bin/kubernetes-validate"))
        .args(["--strict", path.to_str().unwrap()])
        .output()
        .unwrap();
    let said = format!("{}{}", stdout(&v), stderr(&v));
    assert!(v.status.success(), "{said}");
    assert!(
        said.contains("passed for resource configmap/bench-patterns"),
        "{said}"
    );
    assert!(said.contains("passed for resource job/bench"), "{said}");
    // PyYAML reads what was meant: the file byte for byte, the arguments in order.
    let py = std::process::Command::new(venv.join("bin/python"))
        .args([
            "-c",
            "import sys, json, yaml; print(json.dumps(list(yaml.safe_load_all(open(sys.argv[1])))))",
            path.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    let docs: serde_json::Value = serde_json::from_str(&ok(&py)).unwrap();
    assert_eq!(docs[0]["data"]["patterns.txt"], text);
    assert_eq!(docs[0]["metadata"]["namespace"], "load");
    assert_eq!(docs.as_array().unwrap().len(), 2);
    let job = &docs[1];
    assert_eq!(job["spec"]["completionMode"], "Indexed");
    assert_eq!(job["spec"]["completions"], 3);
    assert_eq!(job["spec"]["parallelism"], 3);
    let args: Vec<&str> = job["spec"]["template"]["spec"]["containers"][0]["args"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    assert_eq!(
        args.join(" "),
        "run -c 30 -d 60s --default-hosts search --request-patterns-file \
         /etc/hakaru/patterns.txt --shard $(JOB_COMPLETION_INDEX)+1/3 -o - --format json -q"
    );
}

/// Issue 23: suite and stream send render too, and their manifests validate: the
/// scenario and the files it names in the ConfigMap (paths rewritten to the mount),
/// what a pod lacks said; the stream's receiver named with every shard's senders.
#[test]
fn k8s_render_suite_and_stream_send_validate() {
    let Some(venv) = venv() else { return };
    let dir = TempDir::new("k8s-suite");
    std::fs::create_dir_all(dir.path("data")).unwrap();
    dir.write("data/reads.txt", "/d/select?query=a\n/d/select?query=b\n");
    let scenario = dir.write(
        "fault.toml",
        "# the comment stays\nhosts = [\"search.default.svc\"]\nport = 10041\n\
         [[phase]]\nname = \"steady\"\nduration = \"30s\"\nrate = 300\n\
         [[phase.workload]]\npatterns = \"data/reads.txt\"\n\
         [[phase.workload]]\nbulk = { url = \"http://db.default.svc:5984/bench\", batch = 10, doc = '{\"n\":{seq}}' }\n\
         [[event]]\nname = \"stop\"\nat = \"10s\"\nrun = \"kubectl delete pod search-0\"\n",
    );
    let (path, notes) = render(
        &dir,
        &[
            "--shards",
            "4",
            "--name",
            "fault",
            "--",
            "suite",
            scenario.to_str().unwrap(),
            "--start-at",
            "+2m",
        ],
    );
    assert!(
        notes.contains("event \"stop\" runs `kubectl delete pod search-0` with sh on the pod of shard 1 (index 0): it needs sh, kubectl in the image"),
        "{notes}"
    );
    let docs = validate_and_read(&venv, &path, &["configmap/fault-scenario", "job/fault"]);
    let data = &docs[0]["data"];
    assert_eq!(data["reads.txt"], "/d/select?query=a\n/d/select?query=b\n");
    let text = data["fault.toml"].as_str().unwrap();
    assert!(text.starts_with("# the comment stays\n"), "{text}");
    assert!(text.contains("patterns = \"reads.txt\""), "{text}");
    assert!(text.contains("doc = '{\"n\":{seq}}'"), "{text}");
    let args = pod_args(&docs[1]);
    assert_eq!(args[..2], ["suite", "/etc/hakaru/fault.toml"]);
    assert!(
        args.ends_with(
            &["--shard", "$(JOB_COMPLETION_INDEX)+1/4", "--json", "-q"].map(String::from)
        ),
        "{args:?}"
    );

    let (path, notes) = render(
        &dir,
        &[
            "--shards",
            "3",
            "--name",
            "logs",
            "--",
            "stream",
            "send",
            "--to",
            "tcp://rsyslog.logging.svc:514",
            "-c",
            "4",
            "-n",
            "100k",
            "--format",
            "json",
        ],
    );
    assert!(
        notes.contains("hakaru watch SOURCE --verify --senders 12 --expect 100k"),
        "{notes}"
    );
    let yaml = std::fs::read_to_string(&path).unwrap();
    assert!(yaml.contains("# the receiver is not in the Job"), "{yaml}");
    let docs = validate_and_read(&venv, &path, &["job/logs"]);
    assert_eq!(
        pod_args(&docs[0]).join(" "),
        "stream send --to tcp://rsyslog.logging.svc:514 -c 4 -n 100k --format json \
         --shard $(JOB_COMPLETION_INDEX)+1/3 -o -"
    );
}

/// kubernetes-validate --strict passes every resource named; the documents as JSON.
fn validate_and_read(venv: &Path, path: &Path, resources: &[&str]) -> Vec<serde_json::Value> {
    let v = std::process::Command::new(venv.join("bin/kubernetes-validate"))
        .args(["--strict", path.to_str().unwrap()])
        .output()
        .unwrap();
    let said = format!("{}{}", stdout(&v), stderr(&v));
    assert!(v.status.success(), "{said}");
    for r in resources {
        assert!(said.contains(&format!("passed for resource {r}")), "{said}");
    }
    let py = std::process::Command::new(venv.join("bin/python"))
        .args([
            "-c",
            "import sys, json, yaml; print(json.dumps(list(yaml.safe_load_all(open(sys.argv[1])))))",
            path.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    serde_json::from_str(&ok(&py)).unwrap()
}

fn pod_args(job: &serde_json::Value) -> Vec<String> {
    job["spec"]["template"]["spec"]["containers"][0]["args"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap().to_owned())
        .collect()
}

/// Issue 20: an argument holding `\n---\n` added a Pod of its own, and secret headers
/// were printed in clear in the Job. Now every argument is one quoted line and the
/// secrets are in a Secret the pod reads as variables.
#[test]
fn k8s_render_secret_headers_and_injected_documents() {
    let Some(venv) = venv() else { return };
    let dir = TempDir::new("k8s-secret");
    let evil = "x\n---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: evil\n";
    let (path, _) = render(
        &dir,
        &[
            "--shards",
            "2",
            "--name",
            "bench",
            "--",
            "run",
            "-H",
            "Authorization: Bearer s3cret",
            "--secret-header",
            "X-Key",
            "--header=X-Key: k3y",
            // A body may hold line breaks (a header may not: the render refuses it as
            // the pods would).
            "-b",
            evil,
            "http://search:10041/",
        ],
    );
    let yaml = std::fs::read_to_string(&path).unwrap();
    let v = std::process::Command::new(venv.join("bin/kubernetes-validate"))
        .args(["--strict", path.to_str().unwrap()])
        .output()
        .unwrap();
    let said = format!("{}{}", stdout(&v), stderr(&v));
    assert!(v.status.success(), "{said}");
    assert!(
        said.contains("passed for resource secret/bench-secrets"),
        "{said}"
    );
    let py = std::process::Command::new(venv.join("bin/python"))
        .args([
            "-c",
            "import sys, json, yaml; print(json.dumps(list(yaml.safe_load_all(open(sys.argv[1])))))",
            path.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    let docs: serde_json::Value = serde_json::from_str(&ok(&py)).unwrap();
    let kinds: Vec<&str> = docs
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["Secret", "Job"]);
    assert_eq!(docs[0]["stringData"]["hakaru-secret-1"], "Bearer s3cret");
    assert_eq!(docs[0]["stringData"]["hakaru-secret-2"], "k3y");
    let job = docs[1].to_string();
    assert!(!job.contains("s3cret") && !job.contains("k3y"), "{job}");
    let container = &docs[1]["spec"]["template"]["spec"]["containers"][0];
    let args: Vec<&str> = container["args"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    assert!(
        args.contains(&"Authorization: $(HAKARU_SECRET_1)"),
        "{args:?}"
    );
    assert!(
        args.contains(&"--header=X-Key: $(HAKARU_SECRET_2)"),
        "{args:?}"
    );
    // The hostile body is one argument, read back as typed.
    assert!(args.contains(&evil), "{args:?}");
    assert_eq!(
        container["env"][1]["valueFrom"]["secretKeyRef"]["name"],
        "bench-secrets"
    );
    // Only the Secret's document carries a secret, not the comment nor the Job.
    for part in yaml.split("---\n").filter(|d| !d.contains("kind: Secret")) {
        assert!(!part.contains("s3cret") && !part.contains("k3y"), "{part}");
    }
}

#[test]
fn a_pod_command_that_does_not_parse_is_refused_before_any_yaml() {
    let o = run(&[
        "k8s",
        "render",
        "--shards",
        "3",
        "--",
        "run",
        "--no-such-flag",
        "u",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("the hakaru command after --"),
        "{}",
        stderr(&o)
    );
    assert!(stdout(&o).is_empty());
    // Issue 23: a load the pods cannot share fails here, not in the last pod's log.
    let o = run(&[
        "k8s",
        "render",
        "--shards",
        "3",
        "--",
        "run",
        "-c",
        "2",
        "-d",
        "5s",
        "http://h/",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("--shard 3/3: 2 clients cannot be shared by 3 machines"),
        "{}",
        stderr(&o)
    );
    assert!(stdout(&o).is_empty());
    let o = run(&[
        "k8s", "render", "--shards", "3", "--", "run", "-o", "x.csv", "u",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("-o is set by the render"),
        "{}",
        stderr(&o)
    );
}

/// Issue 21: a `--before-step` (or a phase's `before`) needs sh in the pods; the
/// default image (FROM scratch) has none, so the render warns on stderr and in the
/// YAML, with the command's password redacted; an image with a shell is not warned of.
#[test]
fn a_before_command_on_a_scratch_image_is_warned_of() {
    let args = |image: &str| {
        vec![
            "k8s".to_string(),
            "render".into(),
            "--shards".into(),
            "2".into(),
            "--image".into(),
            image.into(),
            "--".into(),
            "run".into(),
            "-c".into(),
            "4".into(),
            "-d".into(),
            "5s".into(),
            "--before-step".into(),
            "redis-cli -a s3cret flushall".into(),
            "http://db.example:8080/".into(),
        ]
    };
    let a = args("hakaru:0.1.0");
    let o = run(&a.iter().map(String::as_str).collect::<Vec<_>>());
    let (yaml, err) = (ok(&o), stderr(&o));
    let says = "--before-step `redis-cli -a <redacted> flushall` runs with sh in every pod";
    assert!(err.contains(&format!("Warning: {says}")), "{err}");
    assert!(
        err.contains("give --image one that has sh, redis-cli"),
        "{err}"
    );
    assert!(yaml.contains(&format!("# Warning: {says}")), "{yaml}");
    assert!(
        !yaml.contains("# Warning: ") || yaml.starts_with("# hakaru k8s render"),
        "{yaml}"
    );
    let a = args("debian:bookworm");
    let o = run(&a.iter().map(String::as_str).collect::<Vec<_>>());
    let (yaml, err) = (ok(&o), stderr(&o));
    assert!(
        !err.contains("Warning") && !yaml.contains("# Warning"),
        "{err}"
    );
}

/// The documented collection judges the whole: `merge --threshold` on the merged
/// result (exit 1 on a miss), and a pod whose result never came back is named, not
/// merged around (exit 1, nothing written). (The Job run as a cluster would:
/// `k8s_job.rs`.)
#[test]
fn merge_of_the_pods_logs_judges_the_whole_and_names_a_missing_pod() {
    let t = target();
    let url = format!("http://{}/", t.addr);
    let dir = TempDir::new("k8s-logs");
    let o = hakaru()
        .args([
            "k8s", "render", "--shards", "3", "--", "run", "-c", "6", "-n", "300", &url,
        ])
        .output()
        .unwrap();
    let yaml = ok(&o);
    // The container's arguments, as the Job gives them (one quoted item a line).
    let args: Vec<String> = yaml
        .lines()
        .skip_while(|l| l.trim() != "- args:")
        .skip(1)
        .take_while(|l| l.trim_start().starts_with("- "))
        .map(|l| {
            let item = l.trim_start().trim_start_matches("- ");
            serde_json::from_str::<String>(item).unwrap_or_else(|_| item.to_owned())
        })
        .collect();
    assert_eq!(args[0], "run");
    // Three "pods", their stdout and stderr in one log each, the logs one after another.
    let mut logs = Vec::new();
    for index in 0..3 {
        let pod_args: Vec<String> = args
            .iter()
            .map(|a| a.replace("$(JOB_COMPLETION_INDEX)", &index.to_string()))
            .collect();
        let out = hakaru().args(&pod_args).output().unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        let mut log = out.stdout.clone();
        log.extend_from_slice(&out.stderr);
        log.extend_from_slice(b"a line the runtime added\n");
        logs.push(log);
    }
    let merge = |logs: &[Vec<u8>], more: &[&str]| {
        let merged = dir.path("merged.json");
        let _ = std::fs::remove_file(&merged);
        let mut child = hakaru()
            .args(["merge", "-", "-o", merged.to_str().unwrap()])
            .args(more)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(&logs.concat())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        (
            out.status.code(),
            format!("{}{}", stdout(&out), stderr(&out)),
            merged,
        )
    };
    let (code, said, merged) = merge(
        &logs,
        &["--threshold", "p99<10s", "--threshold", "errors<=0"],
    );
    assert_eq!(code, Some(0), "{said}");
    assert!(
        said.contains(
            "Merged 3 of 3 shards of a run: 1 step(s), 300 responses of 300 requests, p99 "
        ),
        "{said}"
    );
    let m = read_json(&merged);
    assert_eq!(m["steps"][0]["total_requests"], 300);
    assert_eq!(m["steps"][0]["n_clients"], 6);
    assert_eq!(
        m["settings"]["merged"],
        serde_json::json!({"shards": 3, "of": 3})
    );
    assert_eq!(m["thresholds"]["passed"], true);
    // A threshold the whole run misses: exit 1, the verdict in the file.
    let (code, said, merged) = merge(&logs, &["--threshold", "qps>1000000000"]);
    assert_eq!(code, Some(1), "{said}");
    assert!(said.contains("qps>1000000000"), "{said}");
    assert_eq!(read_json(&merged)["thresholds"]["passed"], false);
    // The second pod's log never came.
    let (code, said, merged) = merge(&[logs[0].clone(), logs[2].clone()], &[]);
    assert_eq!(code, Some(1), "{said}");
    assert!(
        said.contains("shard 2/3 is missing: 2 of 3 shards came back"),
        "{said}"
    );
    assert!(!merged.exists());
}

/// The example in deploy/kubernetes/ is what `hakaru k8s render` writes today
/// (`HAKARU_BLESS=1` rewrites it), and it validates.
#[test]
fn the_committed_example_is_current() {
    let o = hakaru()
        .args(EXAMPLE_ARGS)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    let yaml = ok(&o);
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("deploy/kubernetes/example.yaml");
    if std::env::var_os("HAKARU_BLESS").is_some_and(|v| v == "1") {
        std::fs::write(&path, &yaml).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap();
    assert_eq!(
        committed, yaml,
        "deploy/kubernetes/example.yaml is stale: HAKARU_BLESS=1 cargo test --test it k8s"
    );
    let Some(venv) = venv() else { return };
    let v = std::process::Command::new(venv.join("bin/kubernetes-validate"))
        .args(["--strict", path.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(v.status.success(), "{}{}", stdout(&v), stderr(&v));
}

const EXAMPLE_ARGS: &[&str] = &[
    "k8s",
    "render",
    "--shards",
    "4",
    "--name",
    "groonga-ramp",
    "--patterns",
    "deploy/kubernetes/patterns.txt",
    "--",
    "ramp",
    "--start-n-clients",
    "40",
    "--end-n-clients",
    "400",
    "--step",
    "40",
    "--duration",
    "30",
    "--interval",
    "5",
    "--default-hosts",
    "groonga.search.svc.cluster.local",
    "--default-port",
    "10041",
];

#[test]
fn format_json_prints_the_whole_result_on_stdout_only() {
    let t = target();
    let url = format!("http://{}/", t.addr);
    let o = run(&[
        "ramp",
        "--end-n-clients",
        "2",
        "--duration",
        "0.2",
        "-o",
        "-",
        "--format",
        "json",
        "-q",
        &url,
    ]);
    let r = hakaru::result::json::from_json(&ok(&o), "stdout").unwrap();
    assert_eq!(r.steps.len(), 2);
    assert!(stderr(&o).is_empty(), "{}", stderr(&o));
    let dir = TempDir::new("format-json");
    let file = dir.path("x.csv");
    let o = run(&[
        "run",
        "-n",
        "5",
        "--format",
        "json",
        "-o",
        file.to_str().unwrap(),
        &url,
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("--format json is for -o -"),
        "{}",
        stderr(&o)
    );
}

/// Issue 36 item 13: `k8s render -- suite` refuses a scenario's file that `hakaru
/// suite` refuses. Bug it pins: `patterns = "../../../../../etc/passwd"` went into
/// the ConfigMap whole.
#[test]
fn k8s_render_refuses_a_patterns_file_suite_refuses() {
    let dir = TempDir::new("k8s-passwd");
    let scenario = dir.write(
        "sc.toml",
        "hosts = [\"127.0.0.1:9\"]\n[[phase]]\nname = \"p\"\nduration = \"1s\"\nclients = 1\n\
         [[phase.workload]]\npatterns = \"../../../../../../../../../etc/passwd\"\n",
    );
    let scenario = scenario.to_str().unwrap();
    let suite = run(&["suite", scenario]);
    assert_eq!(suite.status.code(), Some(2), "{}", stderr(&suite));
    let out = run(&["k8s", "render", "--shards", "2", "--", "suite", scenario]);
    let (so, se) = (stdout(&out), stderr(&out));
    assert_eq!(out.status.code(), Some(2), "{so}\n{se}");
    assert!(
        se.contains("not a patterns file: line 1 is not a pattern"),
        "{se}"
    );
    assert!(!so.contains("root:") && !se.contains("root:"), "{so}\n{se}");
}

/// `k8s render -- suite` checked the command line's SQL URL (and `-f` script) for
/// this machine's files but not a scenario's: a phase's `sslrootcert=certs/ca.pem` and
/// `script = "tx.sql"` went into the ConfigMap as paths no pod has. Now each is
/// refused before any YAML, the scenario and the phase named (exit 2); an absolute
/// path is the image's, rendered with a note.
#[test]
fn k8s_render_refuses_a_suite_phase_url_naming_a_file_of_this_machine() {
    let dir = TempDir::new("k8s-suite-url-file");
    dir.write("tx.sql", "SELECT 1;\n");
    let text = |ca: &str, script: &str| {
        format!(
            "hosts = [\"db:5432\"]\n[[phase]]\nname = \"reads\"\nduration = \"1s\"\nclients = 1\n\
             [[phase.workload]]\nurl = \"postgres://u@db/b?sslmode=verify-full&sslrootcert={ca}\"\n\
             script = \"{script}\"\n"
        )
    };
    let scenario = dir.write("sc.toml", &text("certs/ca.pem", "/scripts/tx.sql"));
    let scenario = scenario.to_str().unwrap();
    let out = run(&["k8s", "render", "--shards", "2", "--", "suite", scenario]);
    let (so, se) = (stdout(&out), stderr(&out));
    assert_eq!(out.status.code(), Some(2), "{so}\n{se}");
    assert!(
        se.contains(&format!(
            "{scenario}: phase \"reads\": the URL's sslrootcert certs/ca.pem: the pods cannot \
             read this machine's files"
        )),
        "{se}"
    );
    assert!(so.is_empty(), "{so}");
    // The phase's script, beside the scenario here, is this machine's file too.
    dir.write("sc.toml", &text("/etc/ssl/ca.pem", "tx.sql"));
    let out = run(&["k8s", "render", "--shards", "2", "--", "suite", scenario]);
    let se = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{se}");
    assert!(
        se.contains("phase \"reads\": script tx.sql: the pods cannot read"),
        "{se}"
    );
    dir.write("sc.toml", &text("/etc/ssl/ca.pem", "/scripts/tx.sql"));
    let out = run(&["k8s", "render", "--shards", "2", "--", "suite", scenario]);
    let (so, se) = (ok(&out), stderr(&out));
    assert!(so.contains("sslrootcert=/etc/ssl/ca.pem"), "{so}");
    assert!(
        se.contains("phase \"reads\": the pods read the URL's sslrootcert=/etc/ssl/ca.pem"),
        "{se}"
    );
}
