//! The pods' hakaru arguments: the command as given, with what a pod cannot have
//! replaced (a local file by its place in the ConfigMap's mount, `--start-at +D` by one
//! moment, a secret header's value by the variable holding it) and the shard and
//! output flags added, so each pod runs its share and prints its whole result.

use std::time::SystemTime;

use super::{config_key, K8sError, PodArgs, Render, MAX_PATTERNS_BYTES, PATTERNS_DIR, SHARD_INDEX};

/// The commands whose load spreads over pods, each with how its pods print a result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sharded {
    Run,
    Ramp,
    Bulk,
    Suite,
    StreamSend,
}

impl Sharded {
    /// The command's words (`stream send` is two).
    pub fn words(self) -> &'static [&'static str] {
        match self {
            Sharded::Run => &["run"],
            Sharded::Ramp => &["ramp"],
            Sharded::Bulk => &["bulk"],
            Sharded::Suite => &["suite"],
            Sharded::StreamSend => &["stream", "send"],
        }
    }

    /// The flags the render sets on every pod, after `--shard`.
    fn output_flags(self) -> &'static [&'static str] {
        match self {
            Sharded::Run | Sharded::Ramp => &["-o", "-", "--format", "json", "-q"],
            // bulk prints only its result with `-o -` and has no -q.
            Sharded::Bulk => &["-o", "-", "--format", "json"],
            Sharded::Suite => &["--json", "-q"],
            // The hakaru-stream result on stdout, the summary on stderr.
            Sharded::StreamSend => &["-o", "-"],
        }
    }

    /// Flags the render owns: given by the user they would fight its own.
    fn owns(self, flag: &str) -> bool {
        let short_o = flag.starts_with("-o") && !flag.starts_with("--");
        let common = matches!(flag, "--shard" | "--output-path" | "--json") || short_o;
        // `stream send --format` is the records' format, not the result's.
        common || (flag == "--format" && self != Sharded::StreamSend)
    }
}

/// The command at the start of `args`, or why it does not spread over pods.
pub fn sharded(args: &[String]) -> Result<Sharded, K8sError> {
    let first = args.first().ok_or(K8sError::NoCommand)?;
    let second = args.get(1).map(String::as_str).unwrap_or("");
    let why = match (first.as_str(), second) {
        ("run", _) => return Ok(Sharded::Run),
        ("ramp", _) => return Ok(Sharded::Ramp),
        ("bulk", _) => return Ok(Sharded::Bulk),
        ("suite", _) => return Ok(Sharded::Suite),
        ("stream", "send") => return Ok(Sharded::StreamSend),
        ("watch", _) => {
            "it is the one receiver every shard's records go to: run it on the \
             receiver's machine (the render of `stream send` says its --verify --senders)"
        }
        ("stream", "run") => {
            "it sends and watches on one machine: render `stream send` for \
             the senders and run `watch` on the receiver"
        }
        ("stream", _) => "it writes records on one machine: only `stream send` spreads over pods",
        ("ab", _) => {
            "it keeps ApacheBench's flags, which have no --shard: render \
             `run -c C -n N URL`, the same load as `ab -c C -n N URL`"
        }
        ("pgbench", _) => {
            "it keeps pgbench's flags, which have no --shard: render `run -c C -d D -f \
             /SCRIPT.sql@W -M MODE postgres://…`, the same transactions on the same engine"
        }
        ("sysbench", _) => {
            "it keeps sysbench's flags, which have no --shard: render `run` of the \
             test's statements as a pgbench-language script (`-f /SCRIPT.sql mysql://…`)"
        }
        ("serve", _) => "it is a target, not load",
        ("demo", _) => "it runs its own target beside the load on one machine",
        _ => "it sends no load (the pods run run, ramp, bulk, suite or stream send)",
    };
    let command = match first.as_str() {
        "stream" if !second.is_empty() => format!("stream {second}"),
        _ => first.clone(),
    };
    Err(K8sError::Command { command, why })
}

/// What the pods read from the ConfigMap: keys and texts, and the scenario's place.
#[derive(Debug, Default)]
struct Mounts {
    /// `--patterns`: its path in the pods.
    patterns: Option<String>,
    /// `suite`: the scenario's path in the pods.
    scenario: Option<String>,
}

/// The hakaru arguments of every pod.
pub fn container_args(r: &Render, now: SystemTime) -> Result<PodArgs, K8sError> {
    let command = sharded(&r.args)?;
    if !(2..=super::MAX_SHARDS).contains(&r.shards) {
        return Err(K8sError::Shards(r.shards));
    }
    let mut pod = PodArgs::default();
    let mounts = mount_files(r, command, &mut pod)?;
    let redactor = super::redactor_of(&r.args);
    let words = command.words();
    pod.args = words.iter().map(|w| w.to_string()).collect();
    let mut seen = Seen::default();
    let mut rest = r.args[words.len()..].iter();
    while let Some(arg) = rest.next() {
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f, Some(v.to_owned())),
            _ => (arg.as_str(), None),
        };
        if command.owns(flag) {
            return Err(K8sError::Owned(flag.to_owned()));
        }
        if let Some(e) = unspreadable(flag, command) {
            return Err(e);
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
        let out = &mut pod.args;
        match flag {
            "--request-patterns-file" => {
                let path = value(flag)?;
                let Some(m) = &mounts.patterns else {
                    return Err(K8sError::NotMounted {
                        flag: "--request-patterns-file",
                        path,
                    });
                };
                seen.patterns = true;
                out.extend([flag.to_owned(), m.clone()]);
            }
            "--start-at" => {
                let text = value(flag)?;
                let at = crate::spec::parse_start_at(&text).map_err(|why| K8sError::StartAt {
                    text: text.clone(),
                    why,
                })?;
                seen.start = true;
                out.extend([flag.to_owned(), crate::sysinfo::rfc3339(at.resolve(now))]);
            }
            "--body-file" | "--doc-file" | "--cacert" | "--probe-pid" => {
                let path = value(flag)?;
                return Err(local_file(flag, path));
            }
            // A SQL target's script: a path in the image, never this machine's.
            "-f" | "--file" if matches!(command, Sharded::Run | Sharded::Ramp) => {
                let script = value(flag)?;
                if !script.starts_with('/') {
                    return Err(local_file("--file", script));
                }
                pod.notes.push(format!(
                    "the pods read {flag} {script} from their image: put the script there"
                ));
                out.extend([flag.to_owned(), script]);
            }
            "--junit" | "--live-out" => return Err(pod_writes(flag == "--junit", value(flag)?)),
            "--profile" if command == Sharded::Suite => {
                value(flag)?;
                seen.scenario = true;
                out.extend(mounts.scenario.clone());
            }
            "--to" if command == Sharded::StreamSend => {
                let to = value(flag)?;
                if to.starts_with("file:") || to.starts_with("dir:") {
                    return Err(K8sError::StreamToFile(to));
                }
                out.extend([flag.to_owned(), to]);
            }
            "-c" | "--senders" if command == Sharded::StreamSend => {
                let v = value(flag)?;
                seen.senders = v.parse().ok();
                out.extend([flag.to_owned(), v]);
            }
            "-n" | "--count" if command == Sharded::StreamSend => {
                let v = value(flag)?;
                seen.count = Some(v.clone());
                out.extend([flag.to_owned(), v]);
            }
            "-H" | "--header" => {
                let inline = inline.is_some();
                let header = value(flag)?;
                let header = secret_header(&redactor, &header, &mut pod.secrets).unwrap_or(header);
                if inline {
                    out.push(format!("{flag}={header}"));
                } else {
                    out.extend([flag.to_owned(), header]);
                }
            }
            _ => match arg.strip_prefix("-H").filter(|_| !arg.starts_with("--")) {
                Some(h) => {
                    let h = secret_header(&redactor, h, &mut pod.secrets).unwrap_or(h.to_owned());
                    out.push(format!("-H{h}"));
                }
                // The scenario as given: its place in the pods.
                None if !seen.scenario && r.scenario.as_ref().is_some_and(|s| s.path == *arg) => {
                    seen.scenario = true;
                    out.extend(mounts.scenario.clone());
                }
                None => out.push(target_arg(
                    arg,
                    &r.env_passwords,
                    &mut pod.notes,
                    &mut pod.secrets,
                )?),
            },
        }
    }
    if let (Some(m), false) = (&mounts.patterns, seen.patterns) {
        pod.args
            .extend(["--request-patterns-file".to_owned(), m.clone()]);
    }
    if !seen.start {
        pod.notes.push(no_start_at(now));
    }
    if command == Sharded::StreamSend {
        let receiver = watch_note(r.shards, &seen);
        pod.notes.push(receiver.clone());
        pod.receiver = Some(receiver);
    }
    pod.args
        .extend(["--shard".to_owned(), format!("{SHARD_INDEX}/{}", r.shards)]);
    pod.args
        .extend(command.output_flags().iter().map(|f| f.to_string()));
    Ok(pod)
}

/// A flag that makes its command one no set of pods can share, and why.
fn unspreadable(flag: &str, command: Sharded) -> Option<K8sError> {
    let (command, why) = match (flag, command) {
        ("--find-max", Sharded::Ramp) => (
            "ramp --find-max",
            "its search picks each next rate from the last probe, and each pod would search \
             on its own; find the rate on one machine, then render `ramp --rate …` or \
             `run --rate R`",
        ),
        ("--verify", Sharded::Bulk) => (
            "bulk --verify",
            "each pod would count the others' documents too; render it without --verify and \
             compare the merged result's documents acknowledged with the server's own count",
        ),
        _ => return None,
    };
    Some(K8sError::Command {
        command: command.into(),
        why,
    })
}

/// `--junit` (`junit`) or `--live-out` in a pod's command: its file would stay in the pod.
fn pod_writes(junit: bool, path: String) -> K8sError {
    let (flag, instead) = if junit {
        (
            "--junit",
            "give --junit to merge, which judges the whole run",
        )
    } else {
        (
            "--live-out",
            "watch the pods with --metrics-listen, or their logs",
        )
    };
    K8sError::PodWrites {
        flag,
        path,
        instead,
    }
}

/// What the arguments said, as far as the render needs to know.
#[derive(Debug, Default)]
struct Seen {
    patterns: bool,
    start: bool,
    scenario: bool,
    senders: Option<u64>,
    count: Option<String>,
}

/// The ConfigMap's files (`--patterns`, or a suite's scenario and the files it names)
/// into `pod.files`, and where the pods find them.
fn mount_files(r: &Render, command: Sharded, pod: &mut PodArgs) -> Result<Mounts, K8sError> {
    let mut mounts = Mounts::default();
    if let Some(p) = &r.patterns {
        if !matches!(command, Sharded::Run | Sharded::Ramp) {
            return Err(K8sError::PatternsFor(command.words().join(" ")));
        }
        let key = config_key(&p.path);
        mounts.patterns = Some(format!("{PATTERNS_DIR}/{key}"));
        pod.files.push((key, p.text.clone()));
        pod.map = "patterns";
    }
    match (&r.scenario, command) {
        (Some(s), Sharded::Suite) => {
            let placed = super::scenario::place(s)?;
            for url in &placed.without_password {
                env_password(url, &r.env_passwords, &mut pod.notes, &mut pod.secrets);
            }
            mounts.scenario = Some(format!("{PATTERNS_DIR}/{}", placed.key));
            pod.notes.extend(placed.notes);
            pod.files.push((placed.key, placed.text));
            pod.files.extend(placed.files);
            pod.map = "scenario";
        }
        (None, Sharded::Suite) => return Err(K8sError::NoScenario),
        _ => {}
    }
    let bytes: usize = pod.files.iter().map(|(k, t)| k.len() + t.len()).sum();
    if bytes > MAX_PATTERNS_BYTES {
        let what = match (&r.patterns, &r.scenario) {
            (Some(p), _) => format!("--patterns {}", p.path),
            (_, Some(s)) => format!("the scenario {} and the files it names", s.path),
            _ => String::new(),
        };
        return Err(K8sError::TooBig { what, bytes });
    }
    Ok(mounts)
}

fn local_file(flag: &str, path: String) -> K8sError {
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
        "--file" => (
            "-f/--file",
            "put the SQL script in the image and give its absolute path there",
        ),
        _ => ("--probe-pid", "a pod sees only its own processes"),
    };
    K8sError::LocalFile {
        flag,
        path,
        instead,
    }
}

fn no_start_at(now: SystemTime) -> String {
    format!(
        "no --start-at: each shard starts when its pod does, which can be seconds \
         apart; add --start-at +2m (rendered as one moment for every pod) or a time \
         like {}",
        crate::sysinfo::rfc3339(now + std::time::Duration::from_secs(120))
            .split('.')
            .next()
            .unwrap_or_default()
            .to_owned()
            + "Z"
    )
}

/// `stream send`: the receiver's side, which does not run in the Job.
fn watch_note(shards: u32, seen: &Seen) -> String {
    let per_pod = seen.senders.unwrap_or(1);
    let expect = seen
        .count
        .as_ref()
        .map_or(String::new(), |n| format!(" --expect {n}"));
    format!(
        "the receiver is not in the Job: on its machine, run `hakaru watch SOURCE --verify \
         --senders {}{expect}` (SOURCE: where the records land, e.g. the pipeline's file or \
         the Kafka topic); {shards} pods x {per_pod} sender(s) each, ids 0-{} offset per shard",
        u64::from(shards) * per_pod,
        (u64::from(shards) * per_pod).saturating_sub(1)
    )
}

/// A target as the pods get it: its password in the Secret, and a SQL URL's files
/// taken as the image's (an absolute path, noted) or refused (this machine's).
fn target_arg(
    arg: &str,
    env_passwords: &[(String, String)],
    notes: &mut Vec<String>,
    secrets: &mut Vec<(String, String)>,
) -> Result<String, K8sError> {
    for (key, path) in url_files(arg) {
        if !path.starts_with('/') {
            return Err(K8sError::LocalFile {
                flag: key,
                path,
                instead: "put the file in the image and give its absolute path there",
            });
        }
        notes.push(format!(
            "the pods read the URL's {key}={path} from their image: put the file there"
        ));
    }
    if let Some(url) = secret_url(arg, secrets) {
        return Ok(url);
    }
    env_password(arg, env_passwords, notes, secrets);
    Ok(arg.to_owned())
}

/// A SQL URL without a password of its own: the render's `PGPASSWORD` (or
/// `MYSQL_PWD`), which a run here would log in with, goes into the Secret under
/// that variable's name, so each pod's hakaru reads it as it would here. Without
/// it the pods logged in with no password and every transaction failed.
fn env_password(
    arg: &str,
    env_passwords: &[(String, String)],
    notes: &mut Vec<String>,
    secrets: &mut Vec<(String, String)>,
) {
    let Some((scheme, _)) = arg.split_once("://") else {
        return;
    };
    let var = match scheme.to_ascii_lowercase().as_str() {
        "postgres" | "postgresql" => "PGPASSWORD",
        "mysql" | "mariadb" => "MYSQL_PWD",
        _ => return,
    };
    if secrets.iter().any(|(v, _)| v == var) {
        return;
    }
    if let Some((_, value)) = env_passwords.iter().find(|(v, _)| v == var) {
        secrets.push((var.to_owned(), value.clone()));
        notes.push(format!(
            "{var} from this environment goes into the Secret, each pod's {var}"
        ));
    }
}

/// A SQL URL's parameters that name a file the client reads (a CA, the server's RSA
/// key), as `postgres`'s and MySQL's clients name them.
const URL_FILE_KEYS: [&str; 6] = [
    "sslrootcert",
    "ssl-ca",
    "ssl_ca",
    "server-public-key-path",
    "server_public_key_path",
    "serverRSAPublicKeyFile",
];

/// The files a SQL target URL names in its parameters: a pod would read them from
/// its own file system, where this machine's relative path means nothing.
pub(super) fn url_files(arg: &str) -> Vec<(&'static str, String)> {
    let sql = ["postgres://", "postgresql://", "mysql://", "mariadb://"];
    if !sql.iter().any(|s| arg.starts_with(s)) {
        return Vec::new();
    }
    let Ok(url) = url::Url::parse(arg) else {
        return Vec::new();
    };
    url.query_pairs()
        .filter_map(|(k, v)| {
            let key = URL_FILE_KEYS.into_iter().find(|f| *f == k)?;
            (!v.is_empty()).then(|| (key, v.into_owned()))
        })
        .collect()
}

/// A target URL with a password (`postgres://user:pw@db/…`, `redis://:pw@…`) as
/// the pod's argument with `$(HAKARU_SECRET_K)` in the password's place, the
/// password as typed (percent-encoded, so the expanded URL is the given one) kept
/// in `secrets`; None for anything else.
fn secret_url(arg: &str, secrets: &mut Vec<(String, String)>) -> Option<String> {
    let (scheme, rest) = arg.split_once("://")?;
    if scheme.is_empty()
        || !scheme
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || c == b'+')
    {
        return None;
    }
    let authority = &rest[..rest.find(['/', '?', '#']).unwrap_or(rest.len())];
    let (userinfo, _) = authority.rsplit_once('@')?;
    let (user, password) = userinfo.split_once(':')?;
    if password.is_empty() {
        return None;
    }
    let var = format!("HAKARU_SECRET_{}", secrets.len() + 1);
    secrets.push((var.clone(), password.to_owned()));
    let host_on = &rest[userinfo.len()..];
    Some(format!("{scheme}://{user}:$({var}){host_on}"))
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
