//! Kubernetes manifests for a run spread over many load machines (`hakaru k8s render`):
//! an Indexed Job whose pod K runs `--shard K/N` of the same hakaru command (`run`,
//! `ramp`, `bulk`, `suite`, `stream send`) and prints its whole result as JSON to its
//! log, and a ConfigMap with the files the pods read (`--patterns`, or a suite's
//! scenario and the files it names). `kubectl logs` piped into `hakaru merge -` then
//! collects the results without a volume, a bucket or a coordinator of our own.
//! `watch`, the receiver of a `stream send`, is one process on the receiver's machine,
//! not a pod: the render says its `--verify --senders` for every shard's senders.
//!
//! Secret header values (`Authorization`, `Cookie`, `Proxy-Authorization`,
//! `--secret-header`) go into a Secret whose keys the container reads as environment
//! variables; the Job's arguments name the variable (`$(HAKARU_SECRET_1)`, which
//! Kubernetes expands), so `kubectl get job -o yaml` shows no secret.
//!
//! Pure: the caller reads the files and the clock; this turns them and the command
//! into YAML (`yaml`: a small emitter over `serde_json` values). `args`: the pods'
//! arguments; `scenario`: a suite's scenario made ready for the pods.

use std::time::SystemTime;

use serde_json::{json, Map, Value};

mod args;
pub mod before;
pub mod scenario;
mod yaml;

pub use args::{container_args, sharded, Sharded};
use yaml::quote;
pub use yaml::to_yaml;

/// Where the ConfigMap is mounted in every pod.
pub const PATTERNS_DIR: &str = "/etc/hakaru";
/// The most a ConfigMap may hold (1 MiB), less room for its metadata: the files'
/// names and texts together.
pub const MAX_PATTERNS_BYTES: usize = 1_000_000;
/// The most shards one Job may have (as `--shard` accepts).
pub const MAX_SHARDS: u32 = 10_000;
/// What each pod's `--shard` says: Kubernetes puts the pod's 0-based index in the
/// variable and `--shard` adds the one.
pub const SHARD_INDEX: &str = "$(JOB_COMPLETION_INDEX)+1";

/// A file for the pods: its name as given and its text.
#[derive(Debug, Clone)]
pub struct PatternsFile {
    pub path: String,
    pub text: String,
}

/// What to render.
#[derive(Debug, Clone)]
pub struct Render {
    /// The Job's name (and the prefix of the ConfigMap's).
    pub name: String,
    pub namespace: Option<String>,
    pub shards: u32,
    pub image: String,
    pub patterns: Option<PatternsFile>,
    /// `suite`: the scenario and the files it names.
    pub scenario: Option<ScenarioFiles>,
    /// The hakaru command each pod runs, without `hakaru`: `run -c 100 -d 60s URL`.
    pub args: Vec<String>,
    /// The password variables of the render's environment, `(PGPASSWORD, value)`
    /// and `MYSQL_PWD`'s, read by the caller: a SQL URL without a password of its
    /// own gets its protocol's into the Secret, as a run here would have used it.
    pub env_passwords: Vec<(String, String)>,
}

/// A suite's scenario for the pods: its text and the files it names.
#[derive(Debug, Clone)]
pub struct ScenarioFiles {
    /// The scenario as given on the command line (`suites/read.toml`), or
    /// `profile:NAME` for a built-in one.
    pub path: String,
    pub text: String,
    /// Each file it names: its path as written in the scenario, and its text.
    pub files: Vec<PatternsFile>,
}

/// The manifests and what is worth saying about them.
#[derive(Debug, Clone)]
pub struct Rendered {
    pub yaml: String,
    /// The container's arguments, as written into the Job.
    pub args: Vec<String>,
    pub notes: Vec<String>,
    /// What will fail in the pods as rendered (a `--before-step` on an image with no
    /// shell): on stderr and as comments at the YAML's top.
    pub warnings: Vec<String>,
}

/// The pods' command: its arguments, the secret values they name by variable, notes.
#[derive(Debug, Clone, Default)]
pub struct PodArgs {
    pub args: Vec<String>,
    /// `(variable, value)`: a secret header's value, read from the Secret.
    pub secrets: Vec<(String, String)>,
    pub notes: Vec<String>,
    /// The ConfigMap's files, `(key, text)`, mounted at [`PATTERNS_DIR`].
    pub files: Vec<(String, String)>,
    /// The ConfigMap's name after the Job's: `patterns` or `scenario`.
    pub map: &'static str,
    /// `stream send`: the receiver's command, which runs outside the Job.
    pub receiver: Option<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum K8sError {
    #[error("give the hakaru command the pods run after --: run, ramp, bulk, suite or stream send (hakaru k8s render --shards 3 -- run -c 30 -d 60s URL)")]
    NoCommand,
    #[error("{command} does not spread over pods: {why}")]
    Command { command: String, why: &'static str },
    #[error("--shards must be from 2 to {MAX_SHARDS}, found {0}")]
    Shards(u32),
    #[error("--name \"{0}\": use at most 52 lowercase letters, digits and '-', starting with a letter (a Job's pods are named after it)")]
    Name(String),
    #[error("--namespace \"{0}\": use at most 63 lowercase letters, digits and '-', starting with a letter or digit")]
    Namespace(String),
    #[error("{0} is set by the render (each pod gets its own --shard and prints its result on stdout, its log); leave it out")]
    Owned(String),
    #[error("{flag} {path}: the pods cannot read this machine's files; give --patterns {path} so the file goes into a ConfigMap")]
    NotMounted { flag: &'static str, path: String },
    #[error("{flag} {path}: the pods cannot read this machine's files; {instead}")]
    LocalFile {
        flag: &'static str,
        path: String,
        instead: &'static str,
    },
    #[error(
        "{flag} {path}: a pod's files go with it (and its file system is read-only); {instead}"
    )]
    PodWrites {
        flag: &'static str,
        path: String,
        instead: &'static str,
    },
    #[error("--patterns is for run and ramp (their --request-patterns-file), not {0} (a suite's scenario names its own files, and they go into the ConfigMap with it)")]
    PatternsFor(String),
    #[error("{what}: {bytes} bytes, more than the {MAX_PATTERNS_BYTES} a ConfigMap holds; put the files in the image instead")]
    TooBig { what: String, bytes: usize },
    #[error("give suite its scenario file (or --profile NAME): it goes into the ConfigMap")]
    NoScenario,
    #[error("{path}: {why}")]
    Scenario { path: String, why: String },
    #[error("--to {0}: each pod would write into its own file system, which no watch reads; send over tcp://, udp://, http:// or kafka:// to the receiver")]
    StreamToFile(String),
    #[error("{0} needs a value")]
    NoValue(String),
    /// The pods' command does not parse (clap's message).
    #[error("the hakaru command after --: {0}")]
    Args(String),
    #[error("--start-at {text}: {why}")]
    StartAt { text: String, why: String },
}

/// Render the ConfigMap (with `--patterns`) and the Indexed Job. `now` resolves a
/// relative `--start-at +2m` into one moment for every pod: pods start at different
/// times, so "two minutes after I start" would differ on each.
pub fn render(r: &Render, now: SystemTime) -> Result<Rendered, K8sError> {
    check_names(r)?;
    let pod = container_args(r, now)?;
    // The command as it may be shown: secrets redacted, each argument one quoted line.
    let shown: Vec<String> = redactor_of(&r.args)
        .command_line(&r.args)
        .iter()
        .map(|a| shell_word(a))
        .collect();
    let mut yaml = format!(
        "# hakaru k8s render: {} shards of `hakaru {}`\n\
         # kubectl apply -f THIS_FILE\n\
         # kubectl wait --for=condition=complete job/{name} --timeout=1h\n\
         # kubectl logs -l app.kubernetes.io/instance={name} --tail=-1 | hakaru merge - -o result.json\n",
        r.shards,
        shown.join(" "),
        name = r.name
    );
    if let Some(receiver) = &pod.receiver {
        yaml.push_str(&format!("# {}\n", receiver.replace('\n', " ")));
    }
    let scenario = r
        .scenario
        .as_ref()
        .map(|s| (s.path.as_str(), s.text.as_str()));
    let warnings = before::warnings(&r.image, &r.args, scenario);
    for w in &warnings {
        yaml.push_str(&format!("# Warning: {}\n", w.replace('\n', " ")));
    }
    for doc in manifests(r, &pod) {
        yaml.push_str("---\n");
        yaml.push_str(&to_yaml(&doc));
    }
    Ok(Rendered {
        yaml,
        args: pod.args,
        notes: pod.notes,
        warnings,
    })
}

/// The secret headers of a pod command: the default ones and its `--secret-header`s.
pub(crate) fn redactor_of(args: &[String]) -> crate::redact::Redactor {
    let mut names = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if a == "--secret-header" {
            names.extend(it.next().cloned());
        } else if let Some(n) = a.strip_prefix("--secret-header=") {
            names.push(n.to_owned());
        }
    }
    crate::redact::Redactor::new(&names)
}

/// An argument as a shell reads it back, on one line: plain when it is only safe
/// characters, otherwise double-quoted with every control character escaped.
fn shell_word(s: &str) -> String {
    let plain = !s.is_empty()
        && s.chars().all(|c| {
            c.is_ascii_alphanumeric()
                || matches!(c, '-' | '_' | '.' | '/' | ':' | '=' | ',' | '+' | '@')
        });
    if plain {
        s.to_owned()
    } else {
        quote(s)
    }
}

/// The manifests as values, in the order they are applied.
pub fn manifests(r: &Render, pod_args: &PodArgs) -> Vec<Value> {
    let args = &pod_args.args;
    let labels = json!({
        "app.kubernetes.io/name": "hakaru",
        "app.kubernetes.io/instance": r.name,
    });
    let metadata = |name: String| {
        let mut m = json!({ "name": name, "labels": labels });
        if let Some(ns) = &r.namespace {
            m["namespace"] = json!(ns);
        }
        m
    };
    let mut out = Vec::new();
    let mut container = json!({
        "name": "hakaru",
        "image": r.image,
        "imagePullPolicy": "IfNotPresent",
        "args": args,
        // Declared, so `$(JOB_COMPLETION_INDEX)` in args is expanded whatever the
        // Kubernetes version injects by itself.
        "env": [{
            "name": "JOB_COMPLETION_INDEX",
            "valueFrom": {"fieldRef": {
                "fieldPath": "metadata.annotations['batch.kubernetes.io/job-completion-index']"
            }},
        }],
        "securityContext": {
            "runAsNonRoot": true,
            "runAsUser": 65532,
            "allowPrivilegeEscalation": false,
            "readOnlyRootFilesystem": true,
            "capabilities": {"drop": ["ALL"]},
        },
    });
    let mut pod = json!({
        "restartPolicy": "Never",
        // One load machine per node where the cluster has the nodes.
        "topologySpreadConstraints": [{
            "maxSkew": 1,
            "topologyKey": "kubernetes.io/hostname",
            "whenUnsatisfiable": "ScheduleAnyway",
            "labelSelector": {"matchLabels": {"app.kubernetes.io/instance": r.name}},
        }],
    });
    if !pod_args.secrets.is_empty() {
        let secret_name = format!("{}-secrets", r.name);
        let data: Map<String, Value> = pod_args
            .secrets
            .iter()
            .map(|(var, value)| (secret_key(var), json!(value)))
            .collect();
        out.push(json!({
            "apiVersion": "v1",
            "kind": "Secret",
            "metadata": metadata(secret_name.clone()),
            "type": "Opaque",
            "stringData": data,
        }));
        if let Some(env) = container["env"].as_array_mut() {
            env.extend(pod_args.secrets.iter().map(|(var, _)| {
                json!({
                    "name": var,
                    "valueFrom": {"secretKeyRef": {"name": secret_name, "key": secret_key(var)}},
                })
            }));
        }
    }
    if !pod_args.files.is_empty() {
        let map_name = format!("{}-{}", r.name, pod_args.map);
        let data: Map<String, Value> = pod_args
            .files
            .iter()
            .map(|(key, text)| (key.clone(), json!(text)))
            .collect();
        out.push(json!({
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": metadata(map_name.clone()),
            "data": data,
        }));
        container["volumeMounts"] =
            json!([{"name": pod_args.map, "mountPath": PATTERNS_DIR, "readOnly": true}]);
        pod["volumes"] = json!([{"name": pod_args.map, "configMap": {"name": map_name}}]);
    }
    pod["containers"] = json!([container]);
    out.push(json!({
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": metadata(r.name.clone()),
        "spec": {
            "completionMode": "Indexed",
            "completions": r.shards,
            "parallelism": r.shards,
            // A shard run again would send its share twice and print two results.
            "backoffLimit": 0,
            "template": {
                "metadata": {"labels": labels},
                "spec": pod,
            },
        },
    }));
    out
}

/// A secret's key in the Secret: its variable's name in lower case with `-`.
fn secret_key(var: &str) -> String {
    var.to_ascii_lowercase().replace('_', "-")
}

fn check_names(r: &Render) -> Result<(), K8sError> {
    let dns_label = |s: &str, max: usize, letter_first: bool| {
        !s.is_empty()
            && s.len() <= max
            && s.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
            && !s.ends_with('-')
            && (s.as_bytes()[0].is_ascii_lowercase()
                || (!letter_first && s.as_bytes()[0].is_ascii_digit()))
    };
    if !dns_label(&r.name, 52, true) {
        return Err(K8sError::Name(r.name.clone()));
    }
    if let Some(ns) = r
        .namespace
        .as_deref()
        .filter(|ns| !dns_label(ns, 63, false))
    {
        return Err(K8sError::Namespace(ns.to_owned()));
    }
    Ok(())
}

/// A file's name as a ConfigMap key (letters, digits, `-`, `_`, `.`).
pub(crate) fn config_key(path: &str) -> String {
    let base = path.rsplit('/').next().unwrap_or(path);
    let key: String = base
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect();
    // Kubernetes refuses a key that starts with `..` (its own mount's links do).
    let key = if key.starts_with("..") {
        key.trim_start_matches('.').to_owned()
    } else {
        key
    };
    if key.is_empty() || key == "." {
        "patterns.txt".to_owned()
    } else {
        key
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, UNIX_EPOCH};

    fn render_of(args: &[&str], patterns: Option<&str>) -> Render {
        Render {
            name: "bench".into(),
            namespace: None,
            shards: 3,
            image: "hakaru:test".into(),
            patterns: patterns.map(|text| PatternsFile {
                path: "conf/patterns.txt".into(),
                text: text.into(),
            }),
            scenario: None,
            args: args.iter().map(|s| s.to_string()).collect(),
            env_passwords: Vec::new(),
        }
    }

    fn now() -> SystemTime {
        UNIX_EPOCH + Duration::from_secs(1_795_428_000)
    }

    /// Issue 36 item 13: ConfigMap keys Kubernetes accepts (none starts with `..`).
    #[test]
    fn config_keys_never_start_with_two_dots() {
        assert_eq!(config_key("dir/..hidden.txt"), "hidden.txt");
        assert_eq!(config_key("..."), "patterns.txt");
        assert_eq!(config_key(".env"), ".env");
        assert_eq!(config_key("a b/c:d.txt"), "c_d.txt");
    }

    #[test]
    fn each_pod_runs_its_shard_and_prints_its_result() {
        let r = render_of(
            &[
                "run",
                "-c",
                "30",
                "--start-at",
                "+2m",
                "--request-patterns-file=p.txt",
            ],
            Some("/d/select?q=a\n/d/select?q=b\n"),
        );
        let PodArgs { args, notes, .. } = container_args(&r, now()).unwrap();
        assert_eq!(
            args.join(" "),
            "run -c 30 --start-at 2026-11-23T10:02:00.000Z --request-patterns-file \
             /etc/hakaru/patterns.txt --shard $(JOB_COMPLETION_INDEX)+1/3 -o - --format json -q"
        );
        assert!(notes.is_empty());
        let bulk = render_of(&["bulk", "http://db:5984/bench", "--writers", "30"], None);
        let PodArgs { args, notes, .. } = container_args(&bulk, now()).unwrap();
        assert!(
            args.ends_with(&["--format".into(), "json".into()]),
            "{args:?}"
        );
        assert!(notes[0].contains("no --start-at"), "{notes:?}");
        assert!(notes[0].contains("2026-11-23T10:02:00Z"), "{notes:?}");
    }

    #[test]
    fn what_a_pod_cannot_do_is_refused_by_name() {
        let err = |args: &[&str], patterns: Option<&str>| {
            container_args(&render_of(args, patterns), now())
                .unwrap_err()
                .to_string()
        };
        assert!(err(&[], None).contains("after --"));
        assert!(
            err(&["serve"], None).starts_with("serve does not spread over pods: it is a target")
        );
        assert!(err(&["watch", "listen:tcp://127.0.0.1:0"], None).contains("receiver's machine"));
        assert!(err(&["stream", "run"], None).starts_with("stream run does not"));
        assert!(err(&["ramp", "--find-max", "u"], None).starts_with("ramp --find-max does not"));
        assert!(err(&["bulk", "--verify", "u"], None).contains("server's own count"));
        assert!(err(&["run", "--junit", "j.xml", "u"], None).contains("give --junit to merge"));
        assert!(err(&["stream", "send", "--to", "file:/x"], None).contains("own file system"));
        assert!(err(&["suite", "s.toml"], None).contains("give suite its scenario"));
        assert!(err(&["suite", "s.toml"], Some("x\n")).contains("--patterns is for run"));
        assert!(err(&["run", "--shard", "1/3", "u"], None).starts_with("--shard is set by"));
        assert!(err(&["run", "-o", "x.csv", "u"], None).starts_with("-o is set by"));
        assert!(err(&["run", "--format=json", "u"], None).starts_with("--format is set"));
        assert!(err(&["run", "--request-patterns-file", "p.txt"], None)
            .contains("give --patterns p.txt"));
        assert!(err(&["run", "--body-file", "b.json", "u"], None).contains("-b"));
        assert!(err(&["bulk", "u"], Some("x\n")).contains("--patterns is for run"));
        assert!(err(&["run", "--start-at", "soon", "u"], None).starts_with("--start-at soon"));
        assert!(err(&["run", "--start-at"], None).contains("needs a value"));
        let mut r = render_of(&["run", "u"], None);
        r.shards = 1;
        assert!(render(&r, now())
            .unwrap_err()
            .to_string()
            .contains("--shards"));
        r.shards = 2;
        r.name = "Bench".into();
        assert!(render(&r, now())
            .unwrap_err()
            .to_string()
            .contains("--name"));
    }

    #[test]
    fn the_manifests_read_as_yaml() {
        let r = render_of(
            &["run", "-c", "30", "http://search:10041/"],
            Some("/a\n/b\n"),
        );
        let out = render(&r, now()).unwrap();
        let job = out.yaml.split("---\n").nth(2).unwrap();
        assert!(
            job.starts_with("apiVersion: batch/v1\nkind: Job\n"),
            "{job}"
        );
        assert!(job.contains("\n  completionMode: Indexed\n  completions: 3\n  parallelism: 3\n"));
        assert!(
            job.contains(
                "        - \"$(JOB_COMPLETION_INDEX)+1/3\"\n        - \"-o\"\n        - \"-\"\n"
            ),
            "{job}"
        );
        assert!(job.contains(
            "        - name: JOB_COMPLETION_INDEX\n          valueFrom:\n            fieldRef:\n"
        ), "{job}");
        let map = out.yaml.split("---\n").nth(1).unwrap();
        assert!(map.contains("  patterns.txt: |\n    /a\n    /b\n"), "{map}");
    }

    #[test]
    fn k8s_render_an_argument_with_a_document_marker_adds_no_document() {
        let evil = "x\n---\napiVersion: v1\nkind: Pod\u{2028}---\u{85}kind: Pod";
        let mut r = render_of(
            &["run", "-H", &format!("X-A: {evil}"), evil, "http://h/"],
            None,
        );
        r.image = format!("img{evil}");
        let out = render(&r, now()).unwrap();
        // The comment, one document marker and the Job: no line starts a document or
        // a kind of the argument's choosing, and no line holds a raw line break.
        let markers = out.yaml.lines().filter(|l| l.starts_with("---")).count();
        assert_eq!(markers, 1, "{}", out.yaml);
        assert!(
            !out.yaml.lines().any(|l| l.starts_with("kind: Pod")),
            "{}",
            out.yaml
        );
        assert!(!out.yaml.contains(['\u{85}', '\u{2028}']), "{}", out.yaml);
        assert!(out.yaml.contains("\\n---\\napiVersion"), "{}", out.yaml);
    }

    /// Issue 33 item 6: a `postgres://` URL's password went into the Job's args in
    /// clear. Now it is the Secret's, the URL's argument naming its variable; a
    /// relative `-f` script (this machine's file) is refused, one in the image taken.
    #[test]
    fn k8s_render_keeps_a_sql_url_s_password_in_the_secret() {
        let url = "postgres://bench:s3cret%40pw@db:5432/bench?sslmode=require";
        let r = render_of(&["run", "-c", "8", "-f", "/scripts/tx.sql@2", url], None);
        let out = render(&r, now()).unwrap();
        let docs: Vec<&str> = out.yaml.split("---\n").collect();
        assert_eq!(docs.len(), 3, "{}", out.yaml);
        let (comment, secret, job) = (docs[0], docs[1], docs[2]);
        for text in [comment, job] {
            assert!(!text.contains("s3cret"), "{text}");
        }
        assert!(
            secret.contains("  hakaru-secret-1: \"s3cret%40pw\"\n"),
            "{secret}"
        );
        assert!(
            job.contains(
                "- \"postgres://bench:$(HAKARU_SECRET_1)@db:5432/bench?sslmode=require\"\n"
            ),
            "{job}"
        );
        assert!(job.contains("- \"/scripts/tx.sql@2\"\n"), "{job}");
        // Without a password, or a redis:// one: the same rule.
        let r = render_of(&["run", "redis://:pw123456@cache:6379/0"], None);
        let out = render(&r, now()).unwrap();
        assert!(
            out.yaml
                .contains("redis://:$(HAKARU_SECRET_1)@cache:6379/0"),
            "{}",
            out.yaml
        );
        let r = render_of(&["run", "-f", "/s.sql", "postgres://bench@db/bench"], None);
        assert!(!render(&r, now()).unwrap().yaml.contains("kind: Secret"));
        let r = render_of(&["run", "-f", "tx.sql", url], None);
        let e = render(&r, now()).unwrap_err().to_string();
        assert!(e.starts_with("-f/--file tx.sql"), "{e}");
    }

    /// The bug: `k8s render -- pgbench …` was refused because "it sends no load";
    /// pgbench and sysbench do, on flags that have no --shard: the render says so,
    /// and which command to render instead.
    #[test]
    fn k8s_render_says_why_pgbench_and_sysbench_do_not_spread() {
        for (tool, instead) in [
            ("pgbench", "render `run -c C -d D -f"),
            ("sysbench", "render `run`"),
        ] {
            let r = render_of(&[tool, "-c", "4", "bench"], None);
            let e = render(&r, now()).unwrap_err().to_string();
            assert!(
                e.starts_with(&format!(
                    "{tool} does not spread over pods: it keeps {tool}'s flags"
                )) && e.contains(instead)
                    && !e.contains("sends no load"),
                "{e}"
            );
        }
    }

    /// The bug: `PGPASSWORD=… hakaru k8s render … postgres://bench@db/bench` (the
    /// password in the environment, as the guide shows) rendered pods with no
    /// password: each logged in without one and every transaction failed. Now the
    /// environment's password goes into the Secret under its own variable.
    #[test]
    fn k8s_render_puts_pgpassword_and_mysql_pwd_in_the_secret() {
        let mut r = render_of(
            &[
                "run",
                "-f",
                "/s.sql",
                "postgres://bench@db/bench",
                "-c",
                "6",
            ],
            None,
        );
        r.env_passwords = vec![
            ("PGPASSWORD".into(), "envpw123".into()),
            ("MYSQL_PWD".into(), "mypw4567".into()),
        ];
        let out = render(&r, now()).unwrap();
        let docs: Vec<&str> = out.yaml.split("---\n").collect();
        assert_eq!(docs.len(), 3, "{}", out.yaml);
        let (comment, secret, job) = (docs[0], docs[1], docs[2]);
        for text in [comment, job] {
            assert!(!text.contains("envpw123"), "{text}");
        }
        assert!(secret.contains("  pgpassword: envpw123\n"), "{secret}");
        assert!(!secret.contains("mypw4567"), "{secret}");
        assert!(
            job.contains("- name: PGPASSWORD\n          valueFrom:\n            secretKeyRef:\n              key: pgpassword\n"),
            "{job}"
        );
        // The user stays in the comment: it is no password.
        assert!(comment.contains("postgres://bench@db/bench"), "{comment}");
        assert!(out
            .notes
            .iter()
            .any(|n| n.starts_with("PGPASSWORD from this")));
        // MySQL's variable for a mysql:// URL; a URL's own password wins.
        r.args = ["run", "-f", "/s.sql", "mysql://bench@db/bench"]
            .map(String::from)
            .to_vec();
        let out = render(&r, now()).unwrap();
        assert!(out.yaml.contains("  mysql-pwd: mypw4567\n"), "{}", out.yaml);
        assert!(!out.yaml.contains("envpw123"), "{}", out.yaml);
        r.args = ["run", "-f", "/s.sql", "postgres://bench:own@db/bench"]
            .map(String::from)
            .to_vec();
        let out = render(&r, now()).unwrap();
        assert!(!out.yaml.contains("envpw123"), "{}", out.yaml);
        assert!(out.yaml.contains("hakaru-secret-1: own"), "{}", out.yaml);
        // A suite's phase URL without a password: the same, once.
        r.args = ["suite", "suites/s.toml"].map(String::from).to_vec();
        r.scenario = Some(ScenarioFiles {
            path: "suites/s.toml".into(),
            text: "[[phase]]\nduration = 1\n[[phase.workload]]\n\
                   url = \"postgres://bench@db/bench\"\nscript = \"/s/tx.sql\"\n\
                   [[phase]]\nduration = 1\n[[phase.workload]]\n\
                   url = \"postgres://bench@db/bench\"\nscript = \"/s/tx.sql\"\n"
                .into(),
            files: Vec::new(),
        });
        let out = render(&r, now()).unwrap();
        assert_eq!(
            out.yaml.matches("  pgpassword: envpw123\n").count(),
            1,
            "{}",
            out.yaml
        );
        assert!(!out.yaml.contains("mypw4567"), "{}", out.yaml);
    }

    /// A SQL URL's file parameter (a CA, MySQL's server key) went into the Job as
    /// this machine's relative path, which the pod cannot read. Now a relative one is
    /// refused by name; an absolute one is taken as the image's, with a note.
    #[test]
    fn k8s_render_refuses_a_sql_url_naming_a_file_of_this_machine() {
        for (url, key) in [
            (
                "mysql://u:pw@db/b?server-public-key-path=key.pem",
                "server-public-key-path",
            ),
            (
                "mysql://u@db/b?ssl-mode=VERIFY_CA&ssl-ca=certs/ca.pem",
                "ssl-ca",
            ),
            (
                "postgres://u@db/b?sslmode=verify-full&sslrootcert=ca.pem",
                "sslrootcert",
            ),
        ] {
            let r = render_of(&["run", "-f", "/s.sql", url], None);
            let e = render(&r, now()).unwrap_err().to_string();
            assert!(e.starts_with(&format!("{key} ")), "{e}");
            assert!(e.contains("put the file in the image"), "{e}");
        }
        let url = "mysql://u:pw@db/b?server-public-key-path=/keys/db.pem";
        let r = render_of(&["run", "-f", "/s.sql", url], None);
        let out = render(&r, now()).unwrap();
        assert!(
            out.yaml.contains("server-public-key-path=/keys/db.pem"),
            "{}",
            out.yaml
        );
        assert!(
            out.notes
                .iter()
                .any(|n| n.contains("server-public-key-path=/keys/db.pem")),
            "{:?}",
            out.notes
        );
    }

    #[test]
    fn k8s_render_secret_headers_go_into_a_secret_not_the_job() {
        let r = render_of(
            &[
                "run",
                "-H",
                "Authorization: Bearer s3cret",
                "--secret-header",
                "X-Key",
                "-HX-Key: k3y",
                "--header=Accept: text/plain",
                "http://h/",
            ],
            None,
        );
        let out = render(&r, now()).unwrap();
        let docs: Vec<&str> = out.yaml.split("---\n").collect();
        assert_eq!(docs.len(), 3, "{}", out.yaml);
        let (comment, secret, job) = (docs[0], docs[1], docs[2]);
        for text in [comment, job] {
            assert!(!text.contains("s3cret") && !text.contains("k3y"), "{text}");
        }
        assert!(
            comment.contains("\"Authorization: <redacted>\""),
            "{comment}"
        );
        assert!(
            secret.starts_with("apiVersion: v1\nkind: Secret\n"),
            "{secret}"
        );
        assert!(
            secret.contains("  hakaru-secret-1: \"Bearer s3cret\"\n"),
            "{secret}"
        );
        assert!(secret.contains("  hakaru-secret-2: k3y\n"), "{secret}");
        assert!(
            job.contains("- \"Authorization: $(HAKARU_SECRET_1)\"\n"),
            "{job}"
        );
        assert!(job.contains("- \"-HX-Key: $(HAKARU_SECRET_2)\"\n"), "{job}");
        assert!(job.contains("- \"--header=Accept: text/plain\"\n"), "{job}");
        assert!(
            job.contains("secretKeyRef:\n              key: hakaru-secret-1\n              name: bench-secrets\n"),
            "{job}"
        );
    }
}
