//! Kubernetes manifests for a run spread over many load machines (`hakaru k8s render`):
//! an Indexed Job whose pod K runs `--shard K/N` of the same hakaru command and prints
//! its whole result as JSON to its log (`-o - --format json`), and a ConfigMap with the
//! patterns file. `kubectl logs` piped into `hakaru merge -` then collects the results
//! without a volume, a bucket or a coordinator of our own.
//!
//! Secret header values (`Authorization`, `Cookie`, `Proxy-Authorization`,
//! `--secret-header`) go into a Secret whose keys the container reads as environment
//! variables; the Job's arguments name the variable (`$(HAKARU_SECRET_1)`, which
//! Kubernetes expands), so `kubectl get job -o yaml` shows no secret.
//!
//! Pure: the caller reads the patterns file and the clock; this turns them and the
//! command into YAML. The YAML is written by a small emitter over `serde_json` values
//! (block style, every string quoted JSON-style unless a multi-line literal block reads
//! better): `serde_yaml` is archived, and manifests need nothing a YAML library adds.

use std::fmt::Write as _;
use std::time::SystemTime;

use serde_json::{json, Map, Value};

/// Where the patterns ConfigMap is mounted in every pod.
pub const PATTERNS_DIR: &str = "/etc/hakaru";
/// The most a ConfigMap may hold (1 MiB), less room for its metadata.
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
    /// The hakaru command each pod runs, without `hakaru`: `run -c 100 -d 60s URL`.
    pub args: Vec<String>,
}

/// The manifests and what is worth saying about them.
#[derive(Debug, Clone)]
pub struct Rendered {
    pub yaml: String,
    /// The container's arguments, as written into the Job.
    pub args: Vec<String>,
    pub notes: Vec<String>,
}

/// The pods' command: its arguments, the secret values they name by variable, notes.
#[derive(Debug, Clone, Default)]
pub struct PodArgs {
    pub args: Vec<String>,
    /// `(variable, value)`: a secret header's value, read from the Secret.
    pub secrets: Vec<(String, String)>,
    pub notes: Vec<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum K8sError {
    #[error("give the hakaru command the pods run after --: run, ramp or bulk (hakaru k8s render --shards 3 -- run -c 30 -d 60s URL)")]
    NoCommand,
    #[error("the pods run run, ramp or bulk, not \"{0}\"")]
    Command(String),
    #[error("--shards must be from 2 to {MAX_SHARDS}, found {0}")]
    Shards(u32),
    #[error("--name \"{0}\": use at most 52 lowercase letters, digits and '-', starting with a letter (a Job's pods are named after it)")]
    Name(String),
    #[error("--namespace \"{0}\": use at most 63 lowercase letters, digits and '-', starting with a letter or digit")]
    Namespace(String),
    #[error("{0} is set by the render (each pod gets its own --shard and prints its result with -o - --format json); leave it out")]
    Owned(String),
    #[error("{flag} {path}: the pods cannot read this machine's files; give --patterns {path} so the file goes into a ConfigMap")]
    NotMounted { flag: &'static str, path: String },
    #[error("{flag} {path}: the pods cannot read this machine's files; {instead}")]
    LocalFile {
        flag: &'static str,
        path: String,
        instead: &'static str,
    },
    #[error("--patterns is for run and ramp (their --request-patterns-file), not {0}")]
    PatternsFor(String),
    #[error("--patterns {path}: {bytes} bytes, more than the {MAX_PATTERNS_BYTES} a ConfigMap holds; put the file in the image instead")]
    PatternsTooBig { path: String, bytes: usize },
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
    for doc in manifests(r, &pod) {
        yaml.push_str("---\n");
        yaml.push_str(&to_yaml(&doc));
    }
    Ok(Rendered {
        yaml,
        args: pod.args,
        notes: pod.notes,
    })
}

/// The secret headers of a pod command: the default ones and its `--secret-header`s.
fn redactor_of(args: &[String]) -> crate::redact::Redactor {
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
    if let Some(p) = &r.patterns {
        let map_name = format!("{}-patterns", r.name);
        out.push(json!({
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": metadata(map_name.clone()),
            "data": { config_key(&p.path): p.text },
        }));
        container["volumeMounts"] =
            json!([{"name": "patterns", "mountPath": PATTERNS_DIR, "readOnly": true}]);
        pod["volumes"] = json!([{"name": "patterns", "configMap": {"name": map_name}}]);
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

/// The hakaru arguments of every pod: the command as given, patterns path rewritten
/// to the mount, `--start-at +D` made absolute, secret header values replaced by
/// the variable that holds them, and the shard and output flags added.
pub fn container_args(r: &Render, now: SystemTime) -> Result<PodArgs, K8sError> {
    let command = r.args.first().ok_or(K8sError::NoCommand)?.clone();
    if !matches!(command.as_str(), "run" | "ramp" | "bulk") {
        return Err(K8sError::Command(command));
    }
    if !(2..=MAX_SHARDS).contains(&r.shards) {
        return Err(K8sError::Shards(r.shards));
    }
    let mounted = r.patterns.as_ref().map(|p| {
        if p.text.len() > MAX_PATTERNS_BYTES {
            return Err(K8sError::PatternsTooBig {
                path: p.path.clone(),
                bytes: p.text.len(),
            });
        }
        Ok(format!("{PATTERNS_DIR}/{}", config_key(&p.path)))
    });
    let mounted = mounted.transpose()?;
    if mounted.is_some() && command == "bulk" {
        return Err(K8sError::PatternsFor(command));
    }
    let redactor = redactor_of(&r.args);
    let mut secrets: Vec<(String, String)> = Vec::new();
    let mut out = vec![command.clone()];
    let mut notes = Vec::new();
    let (mut has_patterns, mut has_start) = (false, false);
    let mut rest = r.args[1..].iter();
    while let Some(arg) = rest.next() {
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f, Some(v.to_owned())),
            _ => (arg.as_str(), None),
        };
        let owned = matches!(
            flag,
            "--shard" | "--output-path" | "--format" | "--json" | "-o"
        ) || (flag.starts_with("-o") && !flag.starts_with("--"));
        if owned {
            return Err(K8sError::Owned(flag.to_owned()));
        }
        let mut value = |flag: &str| -> Result<String, K8sError> {
            match &inline {
                Some(v) => Ok(v.clone()),
                None => rest
                    .next()
                    .cloned()
                    .ok_or_else(|| K8sError::NoValue(flag.to_owned())),
            }
        };
        match flag {
            "--request-patterns-file" => {
                let path = value(flag)?;
                let Some(m) = &mounted else {
                    return Err(K8sError::NotMounted {
                        flag: "--request-patterns-file",
                        path,
                    });
                };
                has_patterns = true;
                out.extend([flag.to_owned(), m.clone()]);
            }
            "--start-at" => {
                let text = value(flag)?;
                let at = crate::spec::parse_start_at(&text).map_err(|why| K8sError::StartAt {
                    text: text.clone(),
                    why,
                })?;
                has_start = true;
                out.extend([flag.to_owned(), crate::sysinfo::rfc3339(at.resolve(now))]);
            }
            "--body-file" | "--doc-file" | "--cacert" | "--probe-pid" => {
                let path = value(flag)?;
                let (flag, instead) = match flag {
                    "--body-file" => (
                        "--body-file",
                        "give the body with -b, or put the file in the image",
                    ),
                    "--doc-file" => (
                        "--doc-file",
                        "give the document with --doc, or put the file in the image",
                    ),
                    "--cacert" => ("--cacert", "put the CA file in the image"),
                    _ => ("--probe-pid", "a pod sees only its own processes"),
                };
                return Err(K8sError::LocalFile {
                    flag,
                    path,
                    instead,
                });
            }
            "-H" | "--header" => {
                let inline = inline.is_some();
                let header = value(flag)?;
                let header = secret_header(&redactor, &header, &mut secrets).unwrap_or(header);
                if inline {
                    out.push(format!("{flag}={header}"));
                } else {
                    out.extend([flag.to_owned(), header]);
                }
            }
            _ => match arg.strip_prefix("-H").filter(|_| !arg.starts_with("--")) {
                Some(h) => {
                    let h = secret_header(&redactor, h, &mut secrets).unwrap_or(h.to_owned());
                    out.push(format!("-H{h}"));
                }
                None => out.push(arg.clone()),
            },
        }
    }
    if let (Some(m), false) = (&mounted, has_patterns) {
        out.extend(["--request-patterns-file".to_owned(), m.clone()]);
    }
    if !has_start {
        notes.push(format!(
            "no --start-at: each shard starts when its pod does, which can be seconds \
             apart; add --start-at +2m (rendered as one moment for every pod) or a time \
             like {}",
            crate::sysinfo::rfc3339(now + std::time::Duration::from_secs(120))
                .split('.')
                .next()
                .unwrap_or_default()
                .to_owned()
                + "Z"
        ));
    }
    out.extend([
        "--shard".to_owned(),
        format!("{SHARD_INDEX}/{}", r.shards),
        "-o".to_owned(),
        "-".to_owned(),
        "--format".to_owned(),
        "json".to_owned(),
    ]);
    if command != "bulk" {
        // Only the result on stdout: the log is what `hakaru merge` reads.
        out.push("-q".to_owned());
    }
    Ok(PodArgs {
        args: out,
        secrets,
        notes,
    })
}

/// A secret header "Name: value" as the pod's argument "Name: $(HAKARU_SECRET_K)", its
/// value kept in `secrets`; None when the header is not secret.
fn secret_header(
    redactor: &crate::redact::Redactor,
    header: &str,
    secrets: &mut Vec<(String, String)>,
) -> Option<String> {
    let (name, value) = header.split_once(':')?;
    if !redactor.is_secret(name) {
        return None;
    }
    let var = format!("HAKARU_SECRET_{}", secrets.len() + 1);
    let arg = format!("{}: $({var})", name.trim());
    secrets.push((var, value.trim().to_owned()));
    Some(arg)
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
fn config_key(path: &str) -> String {
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
    if key.is_empty() || key == "." || key == ".." {
        "patterns.txt".to_owned()
    } else {
        key
    }
}

/// One YAML document in block style.
pub fn to_yaml(v: &Value) -> String {
    let mut out = String::new();
    match v {
        Value::Object(m) if !m.is_empty() => map(m, 0, &mut out),
        Value::Array(a) if !a.is_empty() => seq(a, 0, &mut out),
        other => {
            let _ = writeln!(out, "{}", scalar(other));
        }
    }
    out
}

fn map(m: &Map<String, Value>, indent: usize, out: &mut String) {
    let pad = " ".repeat(indent);
    for (k, v) in m {
        let key = key(k);
        match v {
            Value::Object(inner) if !inner.is_empty() => {
                let _ = writeln!(out, "{pad}{key}:");
                map(inner, indent + 2, out);
            }
            Value::Array(items) if !items.is_empty() => {
                let _ = writeln!(out, "{pad}{key}:");
                seq(items, indent, out);
            }
            Value::String(s) if block_scalar(s).is_some() => {
                let _ = writeln!(out, "{pad}{key}: {}", block_scalar(s).unwrap_or("|"));
                literal_lines(s, indent + 2, out);
            }
            other => {
                let _ = writeln!(out, "{pad}{key}: {}", scalar(other));
            }
        }
    }
}

fn seq(items: &[Value], indent: usize, out: &mut String) {
    let pad = " ".repeat(indent);
    for v in items {
        match v {
            Value::Object(inner) if !inner.is_empty() => {
                // The mapping's first line goes on the dash's line.
                let mut body = String::new();
                map(inner, indent + 2, &mut body);
                out.push_str(&pad);
                out.push_str("- ");
                out.push_str(&body[indent + 2..]);
            }
            Value::Array(inner) if !inner.is_empty() => {
                let _ = writeln!(out, "{pad}-");
                seq(inner, indent + 2, out);
            }
            // A list item is always quoted on one line (the pods' arguments: what a user
            // typed can never become YAML structure).
            other => {
                let _ = writeln!(out, "{pad}- {}", scalar(other));
            }
        }
    }
}

/// `|` or `|-` when a mapping's string (a ConfigMap's file) reads better as a literal
/// block, indented under its key, and means the same in one; None when only a quoted string is exact (leading spaces, control characters,
/// several trailing line breaks).
fn block_scalar(s: &str) -> Option<&'static str> {
    let body = s.strip_suffix('\n').unwrap_or(s);
    let simple = s.contains('\n')
        && !body.is_empty()
        && !body.starts_with([' ', '\n', '\t'])
        && !body.ends_with('\n')
        && !s.chars().any(|c| c.is_control() && c != '\n' && c != '\t')
        && !s
            .chars()
            .any(|c| matches!(c, '\u{feff}' | '\u{2028}' | '\u{2029}'));
    simple.then_some(if s.ends_with('\n') { "|" } else { "|-" })
}

fn literal_lines(s: &str, indent: usize, out: &mut String) {
    let pad = " ".repeat(indent);
    for line in s.strip_suffix('\n').unwrap_or(s).split('\n') {
        if line.is_empty() {
            out.push('\n');
        } else {
            let _ = writeln!(out, "{pad}{line}");
        }
    }
}

/// A scalar: a string plain when it cannot be read as anything else, otherwise
/// JSON's own spelling, which YAML reads the same (a JSON string is a YAML
/// double-quoted string).
fn scalar(v: &Value) -> String {
    match v {
        Value::Object(_) => "{}".to_owned(),
        Value::Array(_) => "[]".to_owned(),
        Value::String(s) => key(s),
        other => other.to_string(),
    }
}

/// A string (key or value) plain when it cannot be read as anything but that string:
/// a letter or `/` first, then letters, digits, `-_./`; not one of YAML 1.1's booleans.
fn key(k: &str) -> String {
    let plain = k.starts_with(|c: char| c.is_ascii_alphabetic() || c == '/')
        && k.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/'))
        && !matches!(
            k.to_ascii_lowercase().as_str(),
            "y" | "n" | "yes" | "no" | "on" | "off" | "true" | "false" | "null"
        );
    if plain {
        k.to_owned()
    } else {
        quote(k)
    }
}

/// A double-quoted YAML string on one line: JSON's spelling (a JSON string is a YAML
/// double-quoted string) with the characters YAML 1.1 readers also take for line
/// breaks (U+0085, U+2028, U+2029) and the byte-order mark escaped too.
fn quote(s: &str) -> String {
    let json = Value::String(s.to_owned()).to_string();
    if !json.contains(['\u{85}', '\u{2028}', '\u{2029}', '\u{feff}']) {
        return json;
    }
    let mut out = String::with_capacity(json.len() + 8);
    for c in json.chars() {
        match c {
            '\u{85}' | '\u{2028}' | '\u{2029}' | '\u{feff}' => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out
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
            args: args.iter().map(|s| s.to_string()).collect(),
        }
    }

    fn now() -> SystemTime {
        UNIX_EPOCH + Duration::from_secs(1_795_428_000)
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
        assert!(err(&["serve"], None).contains("not \"serve\""));
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
    fn yaml_scalars_keep_their_meaning() {
        let v = json!({
            "on": "yes",
            "plain": ["word", "/etc/x", "a b", "-", "No", "3"],
            "a key": ["1", 1, true, null, "multi\nline\n", "  lead\nx", "two\n\n", "end\nno-newline"],
            "empty": {},
            "list": [],
            "nested": [{"a": 1, "b": [2]}, [3]],
        });
        assert_eq!(
            to_yaml(&v),
            "\"a key\":\n- \"1\"\n- 1\n- true\n- null\n- \"multi\\nline\\n\"\n\
             - \"  lead\\nx\"\n- \"two\\n\\n\"\n- \"end\\nno-newline\"\n\
             empty: {}\nlist: []\nnested:\n- a: 1\n  b:\n  - 2\n-\n  - 3\n\"on\": \"yes\"\n\
             plain:\n- word\n- /etc/x\n- \"a b\"\n- \"-\"\n- \"No\"\n- \"3\"\n"
        );
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
