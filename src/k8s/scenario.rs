//! A suite's scenario made ready for the pods: the files it names (patterns) put
//! beside it in the ConfigMap under keys of their own, their paths in the scenario
//! rewritten to those keys (the scenario's directory is the mount, so a relative key
//! resolves there), and what a pod cannot do said before anything runs: a shell event
//! needs a shell and its programs in the image, `{pid:NAME}` reads the pod's own
//! processes, and 127.0.0.1 in a pod is the pod.
//!
//! The scenario is checked in full by [`crate::suite::Scenario`] before this runs (the
//! caller does it, with the file's own line numbers); here the TOML is read only for
//! where the values to rewrite sit (their spans), so the rest of the text — comments,
//! line numbers, the bulk templates and YCSB settings written inline — stays as written.

use std::collections::BTreeMap;

use serde::Deserialize;
use toml::Spanned;

#[cfg(test)]
use super::PatternsFile;
use super::{config_key, K8sError, ScenarioFiles};

#[derive(Debug, Deserialize)]
struct Shape {
    #[serde(default, rename = "phase")]
    phases: Vec<PhaseShape>,
    #[serde(default, rename = "event")]
    events: Vec<EventShape>,
    hosts: Option<Vec<String>>,
    toxiproxy: Option<String>,
    #[serde(default)]
    targets: BTreeMap<String, TargetShape>,
}

#[derive(Debug, Deserialize)]
struct PhaseShape {
    name: Option<String>,
    /// The phase's `before` command, run with `sh` in the pod.
    before: Option<String>,
    #[serde(default, rename = "workload")]
    workloads: Vec<WorkloadShape>,
}

#[derive(Debug, Deserialize)]
struct WorkloadShape {
    patterns: Option<Spanned<String>>,
    url: Option<String>,
    /// A SQL workload's script: read in the pod, not carried in the ConfigMap.
    script: Option<String>,
    bulk: Option<UrlShape>,
    ycsb: Option<UrlShape>,
}

impl WorkloadShape {
    /// The URLs it sends to: its own, its bulk writers' or its YCSB's.
    fn urls(&self) -> impl Iterator<Item = &str> {
        [
            self.url.as_deref(),
            self.bulk.as_ref().map(|b| b.url.as_str()),
            self.ycsb.as_ref().map(|y| y.url.as_str()),
        ]
        .into_iter()
        .flatten()
    }
}

#[derive(Debug, Deserialize)]
struct UrlShape {
    url: String,
}

#[derive(Debug, Deserialize)]
struct EventShape {
    name: Option<String>,
    run: Option<String>,
    toxic: Option<toml::Value>,
    shards: Option<String>,
}

#[derive(Debug, Deserialize)]
struct TargetShape {
    pid_file: Option<String>,
}

/// The scenario as the pods read it.
#[derive(Debug)]
pub struct Placed {
    /// The scenario's key in the ConfigMap.
    pub key: String,
    /// Its text, the files' paths rewritten to their keys.
    pub text: String,
    /// `(key, text)` of each file it names.
    pub files: Vec<(String, String)>,
    pub notes: Vec<String>,
    /// The phases' URLs without a password (a SQL one's then comes from the
    /// environment, `PGPASSWORD` or `MYSQL_PWD`, which the pods need too).
    pub without_password: Vec<String>,
}

/// Each phase's `before` command, with the phase's name (`phase N` when it has none),
/// in the scenario's order; none when the text does not read (it was checked in full
/// before this runs).
pub(super) fn phase_befores(text: &str) -> Vec<(String, String)> {
    let phases = toml::from_str::<Shape>(text).map_or_else(|_| Vec::new(), |s| s.phases);
    (phases.into_iter().enumerate())
        .filter_map(|(i, p)| {
            let before = p.before?;
            Some((p.name.unwrap_or_else(|| format!("phase {}", i + 1)), before))
        })
        .collect()
}

/// The paths of the files a scenario names, as written in it (each once), for the
/// caller to read relative to the scenario's directory.
pub fn named_files(text: &str) -> Result<Vec<String>, String> {
    let shape: Shape = toml::from_str(text).map_err(|e| e.message().trim().to_owned())?;
    let mut out: Vec<String> = Vec::new();
    for w in shape.phases.iter().flat_map(|p| &p.workloads) {
        if let Some(p) = &w.patterns {
            if !out.contains(p.get_ref()) {
                out.push(p.get_ref().clone());
            }
        }
    }
    Ok(out)
}

/// The scenario and its files under their keys, and the notes on what a pod lacks.
pub fn place(s: &ScenarioFiles) -> Result<Placed, K8sError> {
    let bad = |why: String| K8sError::Scenario {
        path: s.path.clone(),
        why,
    };
    let shape: Shape = toml::from_str(&s.text).map_err(|e| bad(e.message().trim().to_owned()))?;
    let key = match s.path.strip_prefix("profile:") {
        Some(name) => format!("{}.toml", config_key(name)),
        None => config_key(&s.path),
    };
    // Each named file under its own key: its name, made unique where two share one.
    let mut keys: BTreeMap<&str, String> = BTreeMap::new();
    let mut files = Vec::new();
    for f in &s.files {
        let mut k = config_key(&f.path);
        let mut n = 2;
        while k == key || keys.values().any(|v| *v == k) {
            k = format!("{n}-{}", config_key(&f.path));
            n += 1;
        }
        keys.insert(&f.path, k.clone());
        files.push((k, f.text.clone()));
    }
    let mut spans = Vec::new();
    for w in shape.phases.iter().flat_map(|p| &p.workloads) {
        if let Some(p) = &w.patterns {
            let k = keys.get(p.get_ref().as_str()).ok_or_else(|| {
                bad(format!(
                    "patterns \"{}\" was not read (the caller gives every named file)",
                    p.get_ref()
                ))
            })?;
            spans.push((p.span(), k.clone()));
        }
    }
    // From the end, so the earlier spans stay where they were.
    spans.sort_by_key(|(span, _)| std::cmp::Reverse(span.start));
    let mut text = s.text.clone();
    for (span, k) in spans {
        // A key is letters, digits, '-', '_' and '.': a TOML basic string as it is.
        text.replace_range(span, &format!("\"{k}\""));
    }
    let mut said = image_files(&shape, &s.path)?;
    said.extend(password_notes(&shape, &s.path));
    said.extend(notes(&shape, &s.path));
    let without_password = shape
        .phases
        .iter()
        .flat_map(|p| &p.workloads)
        .flat_map(WorkloadShape::urls)
        .filter(|u| url::Url::parse(u).is_ok_and(|u| u.password().is_none_or(str::is_empty)))
        .map(str::to_owned)
        .collect();
    Ok(Placed {
        key,
        text,
        files,
        notes: said,
        without_password,
    })
}

/// The files each phase reads that a ConfigMap does not carry: its SQL URLs'
/// (`sslrootcert`, `ssl-ca`, …) and a SQL workload's `script`, checked as the command
/// line's target and `-f` are: a relative path is this machine's and refused, with the
/// phase named; an absolute one is taken as the image's, and noted.
fn image_files(shape: &Shape, path: &str) -> Result<Vec<String>, K8sError> {
    let mut notes = Vec::new();
    for (i, p) in shape.phases.iter().enumerate() {
        let phase = p.name.clone().unwrap_or_else(|| format!("phase {}", i + 1));
        // (as named in a refusal, as named in a note)
        let mut files = Vec::new();
        for w in &p.workloads {
            for (key, file) in w.urls().flat_map(super::args::url_files) {
                files.push((
                    format!("the URL's {key} {file}"),
                    format!("the URL's {key}={file}"),
                    file,
                ));
            }
            if let Some(script) = &w.script {
                let named = format!("script {script}");
                files.push((named.clone(), named, script.clone()));
            }
        }
        for (refused, noted, file) in files {
            if !file.starts_with('/') {
                return Err(K8sError::Scenario {
                    path: path.to_owned(),
                    why: format!(
                        "phase \"{phase}\": {refused}: the pods cannot read this machine's \
                         files; put the file in the image and give its absolute path there"
                    ),
                });
            }
            notes.push(format!(
                "{path}: phase \"{phase}\": the pods read {noted} from their image: put the \
                 file there"
            ));
        }
    }
    Ok(notes)
}

/// A phase URL's password stays in the scenario's text, so in the ConfigMap, which is
/// not a Secret (`kubectl get configmap -o yaml` shows it): said, with the phase, so it
/// is never a surprise. The command line's passwords go into the Secret.
fn password_notes(shape: &Shape, path: &str) -> Vec<String> {
    let mut notes = Vec::new();
    for (i, p) in shape.phases.iter().enumerate() {
        let phase = p.name.clone().unwrap_or_else(|| format!("phase {}", i + 1));
        let with_password = p.workloads.iter().flat_map(WorkloadShape::urls).any(|u| {
            url::Url::parse(u).is_ok_and(|u| u.password().is_some_and(|pw| !pw.is_empty()))
        });
        if with_password {
            notes.push(format!(
                "{path}: phase \"{phase}\": its URL's password goes into the ConfigMap as \
                 written, readable by whoever can read ConfigMaps in the namespace (the \
                 command line's go into the Secret); use a user whose password may be seen"
            ));
        }
    }
    notes
}

/// What a pod cannot do that the scenario asks for.
fn notes(shape: &Shape, path: &str) -> Vec<String> {
    let mut notes = Vec::new();
    for (i, e) in shape.events.iter().enumerate() {
        let Some(run) = &e.run else { continue };
        let name = e.name.clone().unwrap_or_else(|| format!("event {}", i + 1));
        let on = if e.shards.as_deref() == Some("all") {
            "every pod"
        } else {
            "the pod of shard 1 (index 0)"
        };
        let needs = programs(run);
        let mut note = format!(
            "{path}: event \"{name}\" runs `{run}` with sh on {on}: it needs sh{} in the image, \
             and the image of deploy/kubernetes/Dockerfile holds hakaru alone (FROM scratch); \
             give --image one that has them, or make the event a toxic (Toxiproxy's API needs \
             nothing in the image)",
            needs.iter().map(|p| format!(", {p}")).collect::<String>()
        );
        if run.contains("{pid:") {
            note.push_str(
                "; {pid:NAME} is read in the pod, which sees only its own processes \
                 (a server elsewhere is stopped through its own API or kubectl)",
            );
        }
        notes.push(note);
    }
    for (name, t) in &shape.targets {
        if let Some(f) = &t.pid_file {
            notes.push(format!(
                "{path}: target \"{name}\" reads its PID from {f}, a file on this machine that \
                 no pod has"
            ));
        }
    }
    let mut local: Vec<String> = shape
        .hosts
        .iter()
        .flatten()
        .filter(|h| loopback_host(h))
        .map(|h| format!("hosts \"{h}\""))
        .collect();
    let urls = shape
        .phases
        .iter()
        .flat_map(|p| &p.workloads)
        .flat_map(WorkloadShape::urls);
    for u in urls {
        if loopback_url(u) && !local.iter().any(|l| l.contains(u)) {
            local.push(format!("url \"{u}\""));
        }
    }
    let toxic = shape.events.iter().any(|e| e.toxic.is_some());
    match &shape.toxiproxy {
        Some(t) if loopback_url(t) => local.push(format!("toxiproxy \"{t}\"")),
        None if toxic => local.push(format!(
            "toxiproxy (unset: {})",
            crate::suite::scenario::DEFAULT_TOXIPROXY
        )),
        _ => {}
    }
    if !local.is_empty() {
        notes.push(format!(
            "{path}: {}: in a pod, loopback is the pod itself; name the service instead \
             (db.default.svc.cluster.local)",
            local.join(", ")
        ));
    }
    notes
}

/// The programs a shell command runs: the first word of each simple command.
pub(super) fn programs(command: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for part in command.split([';', '|', '&', '\n', '(', ')']) {
        let word = part
            .split_whitespace()
            // `A=b cmd`: the assignment is not the program.
            .find(|w| !w.contains('='));
        if let Some(w) = word.filter(|w| !matches!(*w, "then" | "do" | "else" | "fi" | "done")) {
            if !out.iter().any(|o| o == w) {
                out.push(w.to_owned());
            }
        }
    }
    out
}

fn loopback_host(h: &str) -> bool {
    let h = h.trim().trim_start_matches('[');
    let h = h.split(']').next().unwrap_or(h);
    h == "localhost"
        || h.parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
        || h.rsplit_once(':')
            .is_some_and(|(host, _)| loopback_host(host) && !host.contains(':'))
}

fn loopback_url(u: &str) -> bool {
    let rest = u.split_once("://").map_or(u, |(_, r)| r);
    let authority = rest.split(['/', '?']).next().unwrap_or(rest);
    let host = authority.rsplit('@').next().unwrap_or(authority);
    let host = match host.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or(v6),
        None => host.split(':').next().unwrap_or(host),
    };
    loopback_host(host)
}

/// The files a [`ScenarioFiles`] holds, for tests.
#[cfg(test)]
fn scenario(text: &str, files: &[(&str, &str)]) -> ScenarioFiles {
    ScenarioFiles {
        path: "suites/s.toml".into(),
        text: text.into(),
        files: files
            .iter()
            .map(|(p, t)| PatternsFile {
                path: p.to_string(),
                text: t.to_string(),
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = r#"# a comment stays
hosts = ["127.0.0.1"]
[[phase]]
name = "a"
duration = "2s"
[[phase.workload]]
patterns = "../shared/reads.txt"
weight = 3
[[phase.workload]]
patterns = "data/reads.txt"
[[phase]]
name = "b"
duration = "2s"
[[phase.workload]]
patterns = '../shared/reads.txt'
[[event]]
at = "1s"
name = "stall"
run = "kill -STOP {pid:db}; sleep 1; FOO=1 kill -CONT {pid:db}"
"#;

    #[test]
    fn k8s_scenario_files_are_renamed_in_place() {
        assert_eq!(
            named_files(TEXT).unwrap(),
            ["../shared/reads.txt", "data/reads.txt"]
        );
        let s = scenario(
            TEXT,
            &[("../shared/reads.txt", "/a\n"), ("data/reads.txt", "/b\n")],
        );
        let p = place(&s).unwrap();
        assert_eq!(p.key, "s.toml");
        assert_eq!(
            p.files,
            [
                ("reads.txt".to_owned(), "/a\n".to_owned()),
                ("2-reads.txt".to_owned(), "/b\n".to_owned())
            ]
        );
        // Same lines, the paths replaced, the rest as written.
        assert_eq!(p.text.lines().count(), TEXT.lines().count());
        assert!(p.text.starts_with("# a comment stays\n"));
        assert_eq!(p.text.matches("patterns = \"reads.txt\"").count(), 2);
        assert_eq!(p.text.matches("patterns = \"2-reads.txt\"").count(), 1);
        assert!(!p.text.contains("shared"));
    }

    #[test]
    fn k8s_scenario_says_what_a_pod_lacks() {
        let p = place(&scenario(
            TEXT,
            &[("../shared/reads.txt", ""), ("data/reads.txt", "")],
        ))
        .unwrap();
        let all = p.notes.join("\n");
        assert!(all.contains("event \"stall\""), "{all}");
        assert!(all.contains("needs sh, kill, sleep in the image"), "{all}");
        assert!(all.contains("shard 1 (index 0)"), "{all}");
        assert!(all.contains("{pid:NAME}"), "{all}");
        assert!(all.contains("hosts \"127.0.0.1\""), "{all}");
        let quiet = "hosts = [\"db.svc\"]\n[[phase]]\nname = \"a\"\nduration = 1\n\
                     [[phase.workload]]\nurl = \"http://db.svc:5984/\"\n";
        assert!(place(&scenario(quiet, &[])).unwrap().notes.is_empty());
        assert!(loopback_url("http://u:p@[::1]:80/x"));
        assert!(loopback_url("http://localhost/"));
        assert!(!loopback_url("http://127.example/"));
    }

    /// `k8s render` refused a relative `sslrootcert` in the command line's target (and
    /// a relative `-f` script) but put a suite phase's into the ConfigMap as written, a
    /// path no pod has. Now each phase's URLs (its own, bulk's, YCSB's) and its SQL
    /// script are checked the same way, the scenario and the phase named; an absolute
    /// path is the image's, and noted.
    #[test]
    fn k8s_scenario_refuses_a_phase_url_naming_a_file_of_this_machine() {
        let phases = |url: &str| {
            format!(
                "[[phase]]\nname = \"warm\"\nduration = 1\n[[phase.workload]]\nurl = \"http://db/\"\n\
                 [[phase]]\nduration = 1\n[[phase.workload]]\n{url}\n"
            )
        };
        for (workload, key, phase) in [
            (
                "url = \"postgres://u@db/b?sslmode=verify-full&sslrootcert=certs/ca.pem\"\nscript = \"/tx.sql\"",
                "the URL's sslrootcert certs/ca.pem",
                "phase 2",
            ),
            (
                "ycsb = { url = \"mysql://u@db/b?ssl-ca=ca.pem\", workload = \"a\" }",
                "the URL's ssl-ca ca.pem",
                "phase 2",
            ),
            // The script too: read in the pod, as the command line's `-f` is.
            (
                "url = \"postgres://u@db/b\"\nscript = \"tx.sql\"",
                "script tx.sql",
                "phase 2",
            ),
        ] {
            let e = place(&scenario(&phases(workload), &[]))
                .unwrap_err()
                .to_string();
            assert!(
                e.starts_with(&format!("suites/s.toml: phase \"{phase}\": {key}: ")),
                "{e}"
            );
            assert!(e.contains("put the file in the image"), "{e}");
        }
        let text =
            phases("url = \"postgres://u@db/b?sslrootcert=/etc/ca.pem\"\nscript = \"/s/tx.sql\"");
        let p = place(&scenario(&text, &[])).unwrap();
        assert!(
            p.notes
                .iter()
                .any(|n| n.contains("the pods read script /s/tx.sql from their image")),
            "{:?}",
            p.notes
        );
        let text = phases("url = \"mysql://u@db/b?server-public-key-path=/keys/db.pem\"");
        let p = place(&scenario(&text, &[])).unwrap();
        assert!(
            p.notes.iter().any(|n| n.starts_with(
                "suites/s.toml: phase \"phase 2\": the pods read the URL's \
                 server-public-key-path=/keys/db.pem from their image"
            )),
            "{:?}",
            p.notes
        );
        assert!(p.text.contains("server-public-key-path=/keys/db.pem"));
    }

    /// A phase URL's password went into the ConfigMap, which anyone who may read
    /// ConfigMaps reads, and nothing said so (the command line's goes to the Secret).
    #[test]
    fn k8s_scenario_says_a_phase_url_s_password_is_in_the_config_map() {
        let text = "[[phase]]\nname = \"w\"\nduration = 1\n[[phase.workload]]\n\
                    ycsb = { url = \"postgres://u:s3cret@db/b\", workload = \"a\" }\n";
        let p = place(&scenario(text, &[])).unwrap();
        let said = p.notes.join("\n");
        assert!(
            said.contains("phase \"w\": its URL's password goes into the ConfigMap"),
            "{said}"
        );
        assert!(!said.contains("s3cret"), "{said}");
        let text = text.replace("u:s3cret@", "u@");
        assert!(place(&scenario(&text, &[])).unwrap().notes.is_empty());
    }
}
