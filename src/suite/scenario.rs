//! The scenario file (`hakaru suite scenario.toml`): phases run back to back, each
//! with a duration, a closed (`clients`) or open (`rate`) model and a weighted mix of
//! workloads; named targets whose PIDs events may use; events (shell commands) at
//! given times; the recovery criteria.
//!
//! Read with serde and `deny_unknown_fields`, then checked here, before any load:
//! every error names the file, the line and the key (an unknown key, a negative or
//! overlapping time, a weight of 0, an event beyond the scenario's end, a `{pid:NAME}`
//! without a target).

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::time::Duration;

use toml::Spanned;

use crate::analysis::recovery::Criteria;
use crate::spec::parse_duration;

use super::file::{FileRecovery, FileScenario, FileToxic, NumOrText, TOXICS};
pub use super::sources::{
    BulkSpec, YcsbSpec, YCSB_BATCH, YCSB_FIELDS, YCSB_FIELD_LENGTH, YCSB_MAX_RECORDS,
    YCSB_MAX_SCAN, YCSB_RECORDS,
};

/// The most phases and events a scenario may have: each phase is a step of the result.
pub const MAX_PHASES: usize = 1000;
pub const MAX_EVENTS: usize = 10_000;

/// A scenario that cannot run, with where it says so.
#[derive(Debug, thiserror::Error)]
pub enum ScenarioError {
    #[error("cannot read scenario {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    /// `path:line: key: why`.
    #[error("{path}:{line}: {key}{why}")]
    At {
        path: String,
        line: usize,
        /// "key `weight`: " or empty when the parser could not say.
        key: String,
        why: String,
    },
    #[error("{path}: {why}")]
    Whole { path: String, why: String },
}

/// Where Toxiproxy's API listens unless the scenario says (`toxiproxy = "…"`).
pub const DEFAULT_TOXIPROXY: &str = "http://127.0.0.1:8474";

/// A validated scenario.
#[derive(Debug, Clone, PartialEq)]
pub struct Scenario {
    /// The file, as given.
    pub path: PathBuf,
    pub hosts: Option<Vec<String>>,
    pub port: Option<u16>,
    pub url_path: Option<String>,
    pub method: Option<String>,
    pub timeout: Option<Duration>,
    pub keep_alive: Option<bool>,
    /// `http2 = true`, `streams = N` at the top: `--http2`, `--streams` for every
    /// phase without its own (each phase's own is [`Phase::connection`]).
    pub connection: crate::engine::ConnectionSettings,
    pub threads: Option<usize>,
    pub seed: Option<u64>,
    pub headers: Vec<String>,
    pub allow_pattern_hosts: bool,
    pub targets: BTreeMap<String, TargetPid>,
    pub recovery: Criteria,
    pub phases: Vec<Phase>,
    /// In time order.
    pub events: Vec<Event>,
    /// Judged per phase and over the whole scenario, as `--threshold` is.
    pub thresholds: Vec<crate::spec::threshold::Threshold>,
}

/// Where a target's PID comes from, read when an event needs it (a restarted server
/// has a new one).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TargetPid {
    Pid(u32),
    /// A file holding the PID (re-read at each event).
    File(PathBuf),
    /// A shell command printing the PID (run at each event).
    Command(String),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Phase {
    pub name: String,
    /// From the scenario's start.
    pub start: Duration,
    /// `start` was written in the file: the phase waits for it. Otherwise it follows
    /// the one before as soon as that ends (a YCSB load ends when its records are in).
    pub start_given: bool,
    pub duration: Duration,
    /// Open model: `--rate`'s syntax (`500`, `100..2000`).
    pub rate: Option<String>,
    /// Closed model: clients; open model: the most connections.
    pub clients: usize,
    pub workloads: Vec<WorkloadSpec>,
    /// How this phase connects: HTTP/2 and its streams, or a key-value pipeline's
    /// depth in `streams` (the phase's keys, else the scenario's).
    pub connection: crate::engine::ConnectionSettings,
    /// `pipeline = N` as given (the phase's or the scenario's).
    pub pipeline: Option<u64>,
    /// `before = "…"`: run before the phase's clock starts, recorded in its step.
    pub before: Option<crate::runner::before::StepCommand>,
    /// `before_sql = "CHECKPOINT"`: run on the phase's `postgres://` target after
    /// `before`, before the phase's clock starts; recorded in its step.
    pub before_sql: Option<String>,
}

/// One workload of a phase's mix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkloadSpec {
    pub source: Source,
    pub weight: u32,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// A patterns file, relative to the scenario's directory.
    Patterns(PathBuf),
    Url(String),
    /// A `postgres://` URL and the script of its transactions (relative to the
    /// scenario's directory), pgbench's language.
    Script {
        url: String,
        script: PathBuf,
        /// `-M`: simple, extended or prepared (checked when the workload is built).
        mode: Option<String>,
    },
    /// Bulk writers ([`crate::workload::bulk`]).
    Bulk(BulkSpec),
    /// A YCSB core workload or its load ([`crate::workload::ycsb`]).
    Ycsb(YcsbSpec),
}

impl Source {
    pub fn describe(&self) -> String {
        match self {
            Source::Patterns(p) => p.display().to_string(),
            Source::Url(u) => {
                crate::redact::Redactor::default().query(&crate::http::url::without_userinfo(u))
            }
            Source::Script { url, script, .. } => format!(
                "{} {}",
                crate::http::url::without_userinfo(url),
                script.display()
            ),
            Source::Bulk(b) => format!(
                "bulk {} {} (batch {})",
                b.target.as_str(),
                crate::http::url::without_userinfo(&b.url),
                b.batch
            ),
            Source::Ycsb(y) => format!(
                "ycsb {} {} ({} records, {})",
                y.core.as_str(),
                crate::http::url::without_userinfo(&y.url),
                y.records,
                y.distribution.as_str()
            ),
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    pub name: String,
    /// From the scenario's start.
    pub at: Duration,
    /// The command as written, `{pid:NAME}` not yet filled in; for a toxic, what it does.
    pub run: String,
    pub action: Action,
    pub timeout: Duration,
    /// A failed command ends the run (`on_failure = "stop"`); by default it goes on.
    pub stop_on_failure: bool,
    pub measure_recovery: bool,
    /// With `--shard K/N`: fire on every shard (`shards = "all"`), not only on shard 1.
    pub all_shards: bool,
}

/// What an event does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// `sh -c` the event's `run`.
    Shell,
    /// A call to Toxiproxy's API: `POST …/proxies/P/toxics` with the toxic, or
    /// `DELETE …/proxies/P/toxics/NAME`.
    Api {
        method: &'static str,
        url: String,
        body: Option<String>,
    },
}

/// Clients of an open-model phase that names none: connections enough for most rates.
pub const DEFAULT_OPEN_CLIENTS: usize = 64;
/// How long an event's command may run before it is killed.
pub const DEFAULT_EVENT_TIMEOUT: Duration = Duration::from_secs(30);

impl Scenario {
    pub fn total(&self) -> Duration {
        self.phases
            .last()
            .map_or(Duration::ZERO, |p| p.start + p.duration)
    }

    /// The files this scenario reads: its own (unless a built-in profile) and the
    /// patterns files its phases name, for the check that no output replaces one.
    pub fn input_files(&self) -> Vec<(&'static str, &Path)> {
        let own = (!self.path.to_string_lossy().starts_with("profile:"))
            .then_some(("the scenario", self.path.as_path()));
        let patterns =
            (self.phases.iter().flat_map(|p| &p.workloads)).filter_map(|w| match &w.source {
                Source::Patterns(p) => Some(("the patterns file", p.as_path())),
                Source::Script { script, .. } => Some(("the script", script.as_path())),
                _ => None,
            });
        own.into_iter().chain(patterns).collect()
    }

    /// Read and check a scenario file.
    pub fn load(path: &Path) -> Result<Scenario, ScenarioError> {
        let text = std::fs::read_to_string(path).map_err(|source| ScenarioError::Read {
            path: path.display().to_string(),
            source,
        })?;
        Scenario::parse(&text, path)
    }

    /// Check a scenario's text; `path` names it in errors and anchors relative files.
    pub fn parse(text: &str, path: &Path) -> Result<Scenario, ScenarioError> {
        let at = Locator { text, path };
        let file: FileScenario = toml::from_str(text).map_err(|e| {
            let (key, why) = split_key(e.message());
            match e.span() {
                Some(span) => at.error(span, &key, &why),
                None => ScenarioError::Whole {
                    path: path.display().to_string(),
                    why: e.message().trim().to_string(),
                },
            }
        })?;
        let dir = path.parent().unwrap_or(Path::new("")).to_path_buf();
        let targets = at.targets(&file, &dir)?;
        let timeout = match &file.timeout {
            Some(t) => Some(at.positive(t, "timeout")?),
            None => None,
        };
        if let Some(h) = &file.hosts {
            if h.get_ref().iter().all(|h| h.trim().is_empty()) {
                return Err(at.error(h.span(), "hosts", "give at least one host"));
            }
        }
        if let Some(t) = &file.threads {
            if *t.get_ref() > crate::spec::MAX_THREADS {
                return Err(at.error(
                    t.span(),
                    "threads",
                    &format!("at most {}", crate::spec::MAX_THREADS),
                ));
            }
        }
        let recovery = at.recovery(file.recovery.as_ref())?;
        let thresholds = file
            .thresholds
            .iter()
            .map(|t| {
                crate::spec::threshold::parse_threshold(t.get_ref())
                    .map_err(|why| at.error(t.span(), "thresholds", &why))
            })
            .collect::<Result<Vec<_>, _>>()?;

        let mut phases = at.phases(&file, &dir)?;
        let connection = at.connections(&file, &mut phases)?;
        let end = phases
            .last()
            .map_or(Duration::ZERO, |p| p.start + p.duration);
        let events = at.events(&file, &targets, end)?;
        Ok(Scenario {
            path: path.to_path_buf(),
            hosts: file.hosts.map(|h| h.into_inner()),
            port: file.port,
            url_path: file.path,
            method: file.method,
            timeout,
            keep_alive: file.keep_alive,
            connection,
            threads: file.threads.map(|t| t.into_inner()),
            seed: file.seed,
            headers: file.headers,
            allow_pattern_hosts: file.allow_pattern_hosts,
            targets,
            recovery,
            phases,
            events,
            thresholds,
        })
    }
}

/// The names in a command's `{pid:NAME}` placeholders.
pub fn pid_names(command: &str) -> Result<Vec<&str>, String> {
    let mut names = Vec::new();
    let mut rest = command;
    while let Some(i) = rest.find("{pid:") {
        let after = &rest[i + 5..];
        let end = after
            .find('}')
            .ok_or_else(|| "a {pid: without its closing }".to_string())?;
        let name = after[..end].trim();
        if name.is_empty() {
            return Err("{pid:} names no target".into());
        }
        names.push(name);
        rest = &after[end + 1..];
    }
    Ok(names)
}

pub(super) fn secs(d: Duration) -> String {
    format!("{}s", d.as_secs_f64())
}

/// serde's messages say "unknown field `x`, expected …" and "missing field `x`": the
/// key goes first, the rest after.
fn split_key(message: &str) -> (String, String) {
    let m = message.trim();
    for lead in ["unknown field `", "missing field `", "duplicate key `"] {
        if let Some(rest) = m.strip_prefix(lead) {
            if let Some(end) = rest.find('`') {
                return (rest[..end].to_string(), m.to_string());
            }
        }
    }
    (String::new(), m.to_string())
}

/// Where the file says something: turns a span into the error's line.
pub(super) struct Locator<'a> {
    text: &'a str,
    path: &'a Path,
}

impl Locator<'_> {
    /// An error of the whole file, with no line to point at.
    pub(super) fn whole(&self, why: &str) -> ScenarioError {
        ScenarioError::Whole {
            path: self.path.display().to_string(),
            why: why.to_string(),
        }
    }

    pub(super) fn error(&self, span: Range<usize>, key: &str, why: &str) -> ScenarioError {
        let upto = span.start.min(self.text.len());
        let line = self.text.as_bytes()[..upto]
            .iter()
            .filter(|b| **b == b'\n')
            .count()
            + 1;
        ScenarioError::At {
            path: self.path.display().to_string(),
            line,
            key: if key.is_empty() {
                String::new()
            } else {
                format!("key `{key}`: ")
            },
            why: why.to_string(),
        }
    }

    pub(super) fn duration(
        &self,
        v: &Spanned<NumOrText>,
        key: &str,
    ) -> Result<Duration, ScenarioError> {
        let text = v.get_ref().text();
        if text.trim_start().starts_with('-') {
            return Err(self.error(
                v.span(),
                key,
                &format!("\"{text}\": negative times are refused"),
            ));
        }
        parse_duration(&text).map_err(|why| self.error(v.span(), key, &why))
    }

    pub(super) fn positive(
        &self,
        v: &Spanned<NumOrText>,
        key: &str,
    ) -> Result<Duration, ScenarioError> {
        let d = self.duration(v, key)?;
        if d.is_zero() {
            return Err(self.error(v.span(), key, "must be positive"));
        }
        Ok(d)
    }

    /// The toxic's description, the call that adds it and the one that removes it.
    pub(super) fn toxic(
        &self,
        t: &Spanned<FileToxic>,
        api: &str,
        name: &str,
    ) -> Result<(String, Action, Action), ScenarioError> {
        let span = t.span();
        let t = t.get_ref();
        if !TOXICS.contains(&t.kind.as_str()) {
            return Err(self.error(
                span,
                "toxic.type",
                &format!(
                    "\"{}\": Toxiproxy's toxics are {}",
                    t.kind,
                    TOXICS.join(", ")
                ),
            ));
        }
        let stream = t.stream.as_deref().unwrap_or("downstream");
        if !matches!(stream, "downstream" | "upstream") {
            return Err(self.error(
                span,
                "toxic.stream",
                &format!("\"{stream}\": use \"downstream\" or \"upstream\""),
            ));
        }
        let toxicity = t.toxicity.unwrap_or(1.0);
        if !(0.0..=1.0).contains(&toxicity) {
            return Err(self.error(span, "toxic.toxicity", "between 0 and 1"));
        }
        let attributes = serde_json::to_value(&t.attributes)
            .map_err(|e| self.error(span.clone(), "toxic.attributes", &e.to_string()))?;
        let body = serde_json::json!({
            "name": name,
            "type": t.kind,
            "stream": stream,
            "toxicity": toxicity,
            "attributes": attributes,
        });
        let proxy = crate::http::url::encode_component(&t.proxy);
        Ok((
            format!(
                "toxiproxy: add {} {} to {} {}",
                t.kind, name, t.proxy, attributes
            ),
            Action::Api {
                method: "POST",
                url: format!("{api}/proxies/{proxy}/toxics"),
                body: Some(body.to_string()),
            },
            Action::Api {
                method: "DELETE",
                url: format!("{api}/proxies/{proxy}/toxics/{name}"),
                body: None,
            },
        ))
    }

    fn share(&self, v: &Spanned<f64>, key: &str, max: f64) -> Result<f64, ScenarioError> {
        let x = *v.get_ref();
        if !(x > 0.0 && x <= max) {
            return Err(self.error(
                v.span(),
                key,
                &format!("must be above 0 and at most {max}, found {x}"),
            ));
        }
        Ok(x)
    }

    fn recovery(&self, r: Option<&FileRecovery>) -> Result<Criteria, ScenarioError> {
        let mut c = Criteria::default();
        let Some(r) = r else { return Ok(c) };
        if let Some(v) = &r.success {
            c.success = self.share(v, "recovery.success", 1.0)?;
        }
        if let Some(v) = &r.throughput {
            c.throughput = self.share(v, "recovery.throughput", 1.0)?;
        }
        if let Some(v) = &r.p99_factor {
            c.p99_factor = self.share(v, "recovery.p99_factor", 1e6)?;
        }
        if let Some(v) = &r.p99_floor {
            let d = self.positive(v, "recovery.p99_floor")?;
            if d > Duration::from_secs(3600) {
                return Err(self.error(v.span(), "recovery.p99_floor", "at most an hour"));
            }
            c.p99_floor_s = d.as_secs_f64();
        }
        let whole_seconds = |v: &Spanned<NumOrText>, key: &str| -> Result<u32, ScenarioError> {
            let d = self.positive(v, key)?;
            if d.subsec_nanos() != 0 || d.as_secs() > 3600 {
                return Err(self.error(
                    v.span(),
                    key,
                    "give whole seconds, at most an hour (the timeline counts by the second)",
                ));
            }
            Ok(d.as_secs() as u32)
        };
        if let Some(v) = &r.hold {
            c.hold_s = whole_seconds(v, "recovery.hold")?;
        }
        if let Some(v) = &r.baseline {
            c.baseline_s = whole_seconds(v, "recovery.baseline")?;
        }
        Ok(c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MINIMAL: &str = r#"
hosts = ["127.0.0.1:10041", "127.0.0.1:10042"]

[targets.target]
pid = 1

[[phase]]
name = "steady"
duration = "20s"
rate = 500
[[phase.workload]]
patterns = "reads.txt"
weight = 95
[[phase.workload]]
patterns = "writes.json"
weight = 5

[[event]]
at = "11s"
run = "kill -CONT {pid:target}"
[[event]]
at = "8s"
run = "kill -STOP {pid:target}"
"#;

    fn parse(text: &str) -> Result<Scenario, String> {
        Scenario::parse(text, Path::new("dir/s.toml")).map_err(|e| e.to_string())
    }

    #[test]
    fn the_minimal_form_reads() {
        let s = parse(MINIMAL).expect("valid");
        assert_eq!(s.phases.len(), 1);
        let p = &s.phases[0];
        assert_eq!(
            (p.duration, p.rate.as_deref()),
            (Duration::from_secs(20), Some("500"))
        );
        assert_eq!(p.clients, DEFAULT_OPEN_CLIENTS);
        assert_eq!(
            p.workloads[0],
            WorkloadSpec {
                source: Source::Patterns("dir/reads.txt".into()),
                weight: 95
            }
        );
        let at: Vec<u64> = s.events.iter().map(|e| e.at.as_secs()).collect();
        assert_eq!(at, vec![8, 11]);
        assert_eq!(s.events[0].name, "event 2");
        assert_eq!(s.targets["target"], TargetPid::Pid(1));
        assert_eq!(s.recovery, Criteria::default());
        assert_eq!(s.total(), Duration::from_secs(20));
    }

    #[test]
    fn errors_name_file_line_and_key() {
        let e = parse(&MINIMAL.replace("rate = 500", "rate = 500\nratee = 3")).unwrap_err();
        assert!(
            e.starts_with("dir/s.toml:11: key `ratee`: unknown field `ratee`"),
            "{e}"
        );
        let e = parse(&MINIMAL.replace("weight = 5\n", "weight = 0\n")).unwrap_err();
        assert_eq!(
            e,
            "dir/s.toml:16: key `weight`: must be between 1 and 1000000, found 0"
        );
        let e = parse(&MINIMAL.replace("\"8s\"", "\"-8s\"")).unwrap_err();
        assert_eq!(
            e,
            "dir/s.toml:22: key `at`: \"-8s\": negative times are refused"
        );
        let e = parse(&MINIMAL.replace("\"11s\"", "\"21s\"")).unwrap_err();
        assert_eq!(
            e,
            "dir/s.toml:19: key `at`: 21s is not before the scenario's end (20s)"
        );
        let e = parse(&MINIMAL.replace("{pid:target}\"\n[[event]]", "{pid:other}\"\n[[event]]"))
            .unwrap_err();
        assert!(
            e.contains(":20: key `run`: {pid:other}: no target \"other\""),
            "{e}"
        );
        let e = parse(&MINIMAL.replace("rate = 500", "")).unwrap_err();
        assert!(
            e.contains("key `phase`: give rate (open model) or clients"),
            "{e}"
        );
        let e = parse(&MINIMAL.replace("duration = \"20s\"", "duration = \"0s\"")).unwrap_err();
        assert_eq!(e, "dir/s.toml:9: key `duration`: must be positive");
        let e = parse("[[phase]]\nname = \"a\"\n").unwrap_err();
        assert!(e.contains("missing field `duration`"), "{e}");
        let e = parse("").unwrap_err();
        assert!(e.contains("no [[phase]]"), "{e}");
        let e = parse(&MINIMAL.replace("rate = 500", "rate = \"fast\"")).unwrap_err();
        assert!(e.starts_with("dir/s.toml:10: key `rate`:"), "{e}");
        let e =
            parse(&MINIMAL.replace("at = \"11s\"", "at = \"11s\"\nshards = \"some\"")).unwrap_err();
        assert!(
            e.contains("key `shards`: \"some\": use \"first\" or \"all\""),
            "{e}"
        );
    }

    #[test]
    fn phases_may_not_overlap() {
        let two = format!(
            "{MINIMAL}\n[[phase]]\nname = \"b\"\nstart = \"15s\"\nduration = \"5s\"\nclients = 2\n[[phase.workload]]\nurl = \"http://127.0.0.1:1/\"\n"
        );
        let e = parse(&two).unwrap_err();
        assert!(
            e.contains("key `start`: 15s overlaps phase \"steady\", which runs until 20s"),
            "{e}"
        );
        let ok = parse(&two.replace("\"15s\"", "\"22s\"")).expect("a gap is fine");
        assert_eq!(ok.phases[1].start, Duration::from_secs(22));
        assert_eq!(ok.total(), Duration::from_secs(27));
        let e = parse(&two.replace("name = \"b\"", "name = \"steady\"")).unwrap_err();
        assert!(e.contains("a second phase named \"steady\""), "{e}");
    }

    #[test]
    fn recovery_criteria_are_configurable() {
        let s = parse(&format!(
            "{MINIMAL}[recovery]\nsuccess = 0.95\nhold = \"3s\"\nbaseline = 4\np99_floor = \"2ms\"\n"
        ))
        .expect("valid");
        assert_eq!(s.recovery.success, 0.95);
        assert_eq!(s.recovery.p99_floor_s, 0.002);
        let e = parse(&format!("{MINIMAL}[recovery]\np99_floor = \"0s\"\n")).unwrap_err();
        assert!(
            e.contains("key `recovery.p99_floor`: must be positive"),
            "{e}"
        );
        assert_eq!((s.recovery.hold_s, s.recovery.baseline_s), (3, 4));
        let e = parse(&format!("{MINIMAL}[recovery]\nsuccess = 1.5\n")).unwrap_err();
        assert!(
            e.starts_with("dir/s.toml:25: key `recovery.success`"),
            "{e}"
        );
        let e = parse(&format!("{MINIMAL}[recovery]\nhold = \"1.5s\"\n")).unwrap_err();
        assert!(e.contains("whole seconds"), "{e}");
    }

    #[test]
    fn bulk_writers_are_a_workload() {
        let s = parse(&MINIMAL.replace(
            "patterns = \"writes.json\"",
            "bulk = { url = \"http://127.0.0.1:5984/db\", batch = 50, verify = true }",
        ))
        .expect("valid");
        let Source::Bulk(b) = &s.phases[0].workloads[1].source else {
            panic!("a bulk workload")
        };
        assert_eq!(
            (b.batch, b.verify, b.target.as_str()),
            (50, true, "couchdb")
        );
        let e = parse(&MINIMAL.replace(
            "patterns = \"writes.json\"",
            "bulk = { url = \"http://h/db\", target = \"mongo\" }",
        ))
        .unwrap_err();
        assert!(e.contains(":15: key `bulk.target`: \"mongo\""), "{e}");
        let e = parse(&MINIMAL.replace(
            "patterns = \"writes.json\"",
            "bulk = { url = \"http://h/db\", batchsize = 3 }",
        ))
        .unwrap_err();
        assert!(e.contains("unknown field `batchsize`"), "{e}");
        let e = parse(&MINIMAL.replace(
            "patterns = \"writes.json\"",
            "patterns = \"w.json\"\nurl = \"http://h/\"",
        ))
        .unwrap_err();
        assert!(
            e.contains("give exactly one of patterns, url, bulk and ycsb"),
            "{e}"
        );
    }

    #[test]
    fn ycsb_workloads_are_checked_with_their_key() {
        let one = |y: &str| {
            format!("[[phase]]\nname = \"p\"\nduration = \"1s\"\nclients = 1\n[[phase.workload]]\nycsb = {{ url = \"http://127.0.0.1:5984/db\", {y} }}\n")
        };
        let s = parse(&one("workload = \"d\", records = 50")).expect("valid");
        match &s.phases[0].workloads[0].source {
            Source::Ycsb(y) => {
                assert_eq!(y.distribution, crate::workload::ycsb::Distribution::Latest);
                assert_eq!((y.records, y.fields, y.field_length), (50, 10, 100));
            }
            other => panic!("{other:?}"),
        }
        for (y, says) in [
            (
                "workload = \"g\"",
                "key `ycsb.workload`: \"g\": use load, a, b, c, d, e or f",
            ),
            (
                "workload = \"a\", distribution = \"pareto\"",
                "key `ycsb.distribution`",
            ),
            (
                "workload = \"a\", records = 0",
                "key `ycsb.records`: between 1 and",
            ),
            ("workload = \"a\", max_scan = 0", "key `ycsb.max_scan`"),
            ("workload = \"a\", scans = 3", "unknown field `scans`"),
        ] {
            let e = parse(&one(y)).unwrap_err();
            assert!(
                e.starts_with("dir/s.toml:6: ") && e.contains(says),
                "{y}: {e}"
            );
        }
        let e = parse(&one("workload = \"a\"").replace("5984/db", "5984/")).unwrap_err();
        assert!(e.contains("give the database's URL"), "{e}");
        let two = format!(
            "{}[[phase.workload]]\nurl = \"http://127.0.0.1:1/\"\n",
            one("workload = \"load\"")
        );
        let e = parse(&two).unwrap_err();
        assert!(
            e.contains("a YCSB load must be its phase's only workload"),
            "{e}"
        );
    }

    #[test]
    fn a_toxic_is_added_and_removed() {
        let s = parse(&format!(
            "toxiproxy = \"http://127.0.0.1:9999/\"\n{MINIMAL}[[event]]\nname = \"slow\"\nat = \"3s\"\nfor = \"4s\"\ntoxic = {{ proxy = \"web\", type = \"latency\", attributes = {{ latency = 200 }} }}\n"
        ))
        .expect("valid");
        let names: Vec<(&str, u64)> = s
            .events
            .iter()
            .map(|e| (e.name.as_str(), e.at.as_secs()))
            .collect();
        assert_eq!(
            names,
            vec![
                ("slow", 3),
                ("slow ends", 7),
                ("event 2", 8),
                ("event 1", 11)
            ]
        );
        let Action::Api { method, url, body } = &s.events[0].action else {
            panic!("an API call")
        };
        assert_eq!(
            (*method, url.as_str()),
            ("POST", "http://127.0.0.1:9999/proxies/web/toxics")
        );
        let body: serde_json::Value = serde_json::from_str(body.as_deref().unwrap()).unwrap();
        assert_eq!(body["attributes"]["latency"], 200);
        assert_eq!(body["name"], "hakaru-3");
        assert_eq!(
            s.events[1].action,
            Action::Api {
                method: "DELETE",
                url: "http://127.0.0.1:9999/proxies/web/toxics/hakaru-3".into(),
                body: None
            }
        );
        let e = parse(&format!(
            "{MINIMAL}[[event]]\nat = \"3s\"\ntoxic = {{ proxy = \"web\", type = \"lag\" }}\n"
        ))
        .unwrap_err();
        assert!(
            e.contains("key `toxic.type`: \"lag\": Toxiproxy's toxics are latency"),
            "{e}"
        );
        let e = parse(&format!(
            "{MINIMAL}[[event]]\nat = \"3s\"\nfor = \"20s\"\ntoxic = {{ proxy = \"web\", type = \"latency\" }}\n"
        ))
        .unwrap_err();
        assert!(
            e.contains("key `for`: the toxic would be removed at 23s"),
            "{e}"
        );
        let e = parse(&format!("{MINIMAL}[[event]]\nat = \"3s\"\n")).unwrap_err();
        assert!(e.contains("give exactly one of run and toxic"), "{e}");
    }

    #[test]
    fn thresholds_are_read_and_checked() {
        let s = parse(&format!(
            "thresholds = [\"p99<200ms\", \"errors<0.1%\"]\n{MINIMAL}"
        ))
        .expect("valid");
        let texts: Vec<&str> = s.thresholds.iter().map(|t| t.text.as_str()).collect();
        assert_eq!(texts, vec!["p99<200ms", "errors<0.1%"]);
        let e = parse(&format!("thresholds = [\"p99<<2\"]\n{MINIMAL}")).unwrap_err();
        assert!(e.starts_with("dir/s.toml:1: key `thresholds`: "), "{e}");
    }

    #[test]
    fn placeholders() {
        assert_eq!(pid_names("kill {pid:a} {pid: b }").unwrap(), vec!["a", "b"]);
        assert!(pid_names("kill {pid:a").is_err());
        assert!(pid_names("echo {}").unwrap().is_empty());
    }
}
