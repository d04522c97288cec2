//! The bulk-write specification (`hakaru bulk`): plain options, validated in one
//! place before any load, turned into the runner's inputs — one step per (batch size,
//! writers), the [`BulkWorkload`] and hooks that set each step's batch size and
//! record its documents.
//!
//! `--count` is documents per step, turned into a request budget (rounded up to whole
//! batches); `--rate` is documents per second, an open-model rate of requests per
//! second ÷ batch size.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use super::bulk_check::check_batch_bytes;
pub use super::bulk_check::MAX_BATCH_BYTES;
use super::{check_clients, clock_seed, parse_count, parse_header, SpecError, MAX_STEPS};
use crate::engine::{EngineConfig, Lane, RateProfile, StepSpec};
use crate::http::Target;
use crate::result::csv::CsvFormat;
use crate::result::store::Outputs;
use crate::result::{
    BulkSettingsResult, BulkStepResult, LoadModel, Mode, RequestOrder, Settings, Shard, StepResult,
};
use crate::runner::{RunSpec, StepHooks};
use crate::workload::bulk::{
    BodyError, BulkSettings, BulkWorkload, DocTemplate, EsAction, IdStrategy, ResponseRule,
    TargetKind, TemplateError, Templated,
};

/// The largest batch a request may carry.
pub const MAX_BATCH: u64 = 1_000_000;
/// The chapter's method: count the documents saved in 10 seconds.
pub const DEFAULT_BULK_DURATION: Duration = Duration::from_secs(10);

/// Where the document template comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DocSource {
    /// `--doc TEXT`.
    Text(String),
    /// `--doc-file PATH`.
    File(PathBuf),
}

/// Everything `hakaru bulk` is asked to do, as plain options.
#[derive(Debug, Clone)]
pub struct BulkOptions {
    pub target: TargetKind,
    pub url: String,
    /// `--batch-sizes` as typed ("100,1000,10k"); None: 1000 (or 1 with `--single`).
    pub batch_sizes: Option<String>,
    /// `--writers` as typed ("1,10").
    pub writers: String,
    pub duration: Option<Duration>,
    /// Documents per step.
    pub count: Option<u64>,
    /// Documents per second (open model).
    pub rate: Option<f64>,
    pub single: bool,
    pub batch_ok: bool,
    pub full_commit: bool,
    /// Elasticsearch's bulk action (None: index).
    pub action: Option<EsAction>,
    /// Groonga's table.
    pub table: Option<String>,
    /// `--target template`: the body template's file.
    pub template: Option<PathBuf>,
    /// `--target template`: the method (None: POST).
    pub method: Option<String>,
    /// `--target template`: the count of documents kept, at this JSON pointer.
    pub ok_pointer: Option<String>,
    /// `--target template`: per-item errors at this pointer (`/items/*/error`).
    pub item_error_pointer: Option<String>,
    /// `--target template` `--verify`: the URL answering the server's count…
    pub count_url: Option<String>,
    /// …and where in its JSON the count is.
    pub count_pointer: Option<String>,
    pub verify: bool,
    pub doc: DocSource,
    /// None: sequential, unless the template sets its own ID.
    pub ids: Option<IdStrategy>,
    /// None: a prefix unique to the run.
    pub id_prefix: Option<String>,
    /// None: application/json.
    pub content_type: Option<String>,
    /// `-H`, as typed.
    pub headers: Vec<String>,
    pub timeout: Duration,
    pub keep_alive: bool,
    /// `--http2`, `--streams`: the protocol, and how many writers share a connection.
    pub connection: crate::engine::ConnectionSettings,
    /// `--ok-status`: what counts as a success.
    pub ok_status: crate::stats::OkStatus,
    pub threads: usize,
    pub seed: Option<u64>,
    pub interval: Duration,
    /// `--start-at`: when the first step starts (see [`super::SessionOptions`]).
    pub start_at: Option<super::StartAt>,
    /// `--shard K/N`: this machine's share of every step's writers, `--count` and
    /// `--rate`, and its own lane of document IDs.
    pub shard: Option<Shard>,
    pub output_path: Option<PathBuf>,
    pub format: CsvFormat,
    pub command_line: Vec<String>,
    /// `--before-round`/`--before-step`: commands run before the run and each step
    /// (a cache flushed, a database recreated), as `run` runs them.
    pub before: super::before::BeforeOptions,
}

impl Default for BulkOptions {
    fn default() -> Self {
        BulkOptions {
            target: TargetKind::CouchDb,
            url: String::new(),
            batch_sizes: None,
            writers: "1".into(),
            duration: None,
            count: None,
            rate: None,
            single: false,
            batch_ok: false,
            full_commit: false,
            action: None,
            table: None,
            template: None,
            method: None,
            ok_pointer: None,
            item_error_pointer: None,
            count_url: None,
            count_pointer: None,
            verify: false,
            doc: DocSource::Text(r#"{"foo":"bar"}"#.into()),
            ids: None,
            id_prefix: None,
            content_type: None,
            headers: Vec::new(),
            timeout: Duration::from_secs(60),
            keep_alive: true,
            connection: Default::default(),
            ok_status: Default::default(),
            threads: 0,
            seed: None,
            interval: Duration::ZERO,
            start_at: None,
            shard: None,
            output_path: None,
            format: CsvFormat::Full,
            command_line: Vec::new(),
            before: Default::default(),
        }
    }
}

/// What `hakaru bulk` refuses, before any load.
#[derive(Debug, thiserror::Error)]
pub enum BulkError {
    #[error(transparent)]
    Spec(#[from] SpecError),
    #[error("{0}")]
    Url(String),
    #[error("--target couchdb needs the database in the URL: http://HOST:5984/DB (found {0})")]
    NoDatabase(String),
    #[error("the URL must not have a query string ({0}): hakaru adds what each request needs")]
    Query(String),
    #[error("--target groonga needs --table (the table documents are loaded into)")]
    NoTable,
    #[error("--table is for Groonga; CouchDB's database is the URL's path")]
    TableForCouchDb,
    #[error("Groonga has no {what}: {why}")]
    NotGroonga {
        what: &'static str,
        why: &'static str,
    },
    #[error("Elasticsearch has no {what}: {why}")]
    NotElasticsearch {
        what: &'static str,
        why: &'static str,
    },
    #[error(
        "--target elasticsearch needs the index in the URL: http://HOST:9200/INDEX (found {0})"
    )]
    NoIndex(String),
    #[error(
        "--action is Elasticsearch's (index or create per document); leave it out for --target {0}"
    )]
    ActionNotEs(&'static str),
    #[error("--target template needs --template FILE (the request body, its per-document part marked with {{{{#docs}}}}…{{{{/docs}}}})")]
    NoTemplate,
    #[error("{0} is for --target template")]
    TemplateOnly(&'static str),
    #[error("--target template: {what} is CouchDB's or Elasticsearch's; the template says everything sent")]
    NotTemplate { what: &'static str },
    #[error("cannot read --template {path}: {why}")]
    TemplateFile { path: String, why: std::io::Error },
    #[error("--template {path}: {why}")]
    Body { path: String, why: BodyError },
    #[error("--ok-pointer {0}: a JSON pointer starts with '/' (Groonga's load count: /1)")]
    OkPointer(String),
    #[error("--item-error-pointer {0}")]
    ItemPointer(String),
    #[error("--ok-pointer and --item-error-pointer are two ways of reading the answer; give one")]
    BothRules,
    #[error("--method \"{0}\": an HTTP method is letters (POST, PUT…)")]
    Method(String),
    #[error("--ids {0}: the template has no {{{{id}}}} in its {{{{#docs}}}} part to put IDs in")]
    IdsUnused(&'static str),
    #[error("--verify with --target template needs --count-url and --count-pointer (where the server says how many documents it has)")]
    VerifyTemplate,
    #[error("--single sends one document per request; leave out --batch-sizes")]
    SingleAndBatches,
    #[error("--batch-sizes: \"{0}\" is not a count")]
    BatchNotACount(String),
    #[error("--batch-sizes: every batch must hold 1 to {MAX_BATCH} documents, found {0}")]
    BatchRange(u64),
    #[error("--batch-sizes {batch}: up to {bytes} bytes a request with this document, more than the {MAX_BATCH_BYTES} one request may carry; give smaller batches or a smaller document")]
    BatchBytes { batch: u64, bytes: u64 },
    #[error("--writers: \"{0}\" is not a number of writers")]
    WritersNotANumber(String),
    #[error("{flag}: no values given")]
    Empty { flag: &'static str },
    #[error("--batch-sizes × --writers makes {0} steps, more than the {MAX_STEPS} a run may have")]
    TooManySteps(usize),
    #[error("--count must be at least 1")]
    NoCount,
    #[error("--rate must be a positive number of documents per second, found {0}")]
    Rate(f64),
    #[error("--rate {rate} docs/s at batch size {batch}: {why}")]
    RateProfile {
        rate: f64,
        batch: u64,
        why: crate::engine::pacer::RateError,
    },
    #[error("{source_name}: {why}")]
    Template {
        source_name: String,
        why: TemplateError,
    },
    #[error("cannot read --doc-file {path}: {why}")]
    DocFile { path: String, why: std::io::Error },
    #[error("the document sets {field} itself, so --ids {ids} cannot name it; leave out --ids")]
    TemplateSetsId {
        field: &'static str,
        ids: &'static str,
    },
    #[error("--id-prefix \"{0}\": use letters, digits, '-', '_' or '.' (it goes into URLs and JSON unescaped)")]
    IdPrefix(String),
    #[error("--content-type \"{0}\": a header value cannot contain a line break")]
    ContentType(String),
    #[error("cannot resolve host \"{host}\": {why}")]
    Resolve { host: String, why: String },
    #[error("{0}")]
    Tls(String),
    #[error("--verify with --shard: each machine would count the others' documents too; compare the merged result's documents acknowledged with the server's own count")]
    VerifyShard,
}

/// A validated bulk write, ready for [`crate::runner::run`].
pub struct BulkReady {
    pub run: RunSpec,
    pub workload: Arc<BulkWorkload>,
    pub engine: EngineConfig,
    pub verify: bool,
    /// Things worth saying before the load (a `--count` rounded up to whole batches).
    pub notes: Vec<String>,
}

impl BulkOptions {
    /// Validate and build. Reads the document file and resolves the host; sends nothing.
    pub fn build(&self) -> Result<BulkReady, BulkError> {
        let url = crate::http::url::parse_http_url(&self.url).map_err(BulkError::Url)?;
        let templated = self.target == TargetKind::Template;
        if url.path.contains('?') && !templated {
            return Err(BulkError::Query(self.url.clone()));
        }
        let base_path = match (templated, url.path.as_str()) {
            (true, "") => "/".to_string(),
            // A templated target's URL is the request's path and query, as given.
            (true, p) => p.to_string(),
            (false, p) => p.trim_end_matches('/').to_string(),
        };
        self.check_target(&base_path)?;
        self.check_target_flags()?;
        let batches = self.batch_sizes()?;
        let writers = self.writers()?;
        if batches.len() * writers.len() > MAX_STEPS {
            return Err(BulkError::TooManySteps(batches.len() * writers.len()));
        }
        self.check_limits()?;
        self.before.check()?;
        let content_type = self.content_type()?;
        let headers = self
            .headers
            .iter()
            .map(|h| parse_header(h))
            .collect::<Result<Vec<_>, _>>()?;
        if let Some(p) = &self.id_prefix {
            if !p
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
            {
                return Err(BulkError::IdPrefix(p.clone()));
            }
        }

        let duration = match (self.duration, self.count) {
            (None, None) => Some(DEFAULT_BULK_DURATION),
            (d, _) => d,
        };
        let (steps, notes) = self.steps(&batches, &writers, duration)?;
        let start_at = super::start_moment(self.start_at, &steps, 1)?;
        let (template, templated) = self.documents(&content_type)?;
        check_batch_bytes(&batches, &template, templated.as_ref())?;
        let ids = self.id_strategy(&template, templated.as_ref())?;

        // Each shard draws its own random IDs and placeholders, reproducibly.
        let seed = self.seed.unwrap_or_else(clock_seed);
        let seed = self
            .shard
            .map_or(seed, |k| crate::rng::derive(seed, u64::from(k.index)));
        let id_prefix = self
            .id_prefix
            .clone()
            .unwrap_or_else(|| format!("{:08x}-", (seed >> 32) as u32 ^ seed as u32));
        let port = url.port.unwrap_or(match (url.https, self.target) {
            (true, _) => 443,
            (false, TargetKind::CouchDb) => 5984,
            (false, TargetKind::Groonga) => 10041,
            (false, TargetKind::Elasticsearch) => 9200,
            (false, TargetKind::Template) => 80,
        });
        let target = resolve(url.https, &url.host, port)?;
        let threads = if self.threads == 0 {
            crate::sysinfo::cpus()
        } else {
            self.threads
        };
        let most_writers = steps.iter().map(|s| s.n_clients).max().unwrap_or(1);
        let settings = self.settings(&Chosen {
            duration,
            seed,
            threads: threads.min(most_writers),
            start_at,
            ids,
            template: &template,
            templated: templated.as_ref(),
            content_type: &content_type,
        });
        let workload = Arc::new(BulkWorkload::new(BulkSettings {
            kind: self.target,
            target,
            base_path,
            table: self.table.clone().unwrap_or_default(),
            single: self.single,
            ids,
            id_prefix,
            template,
            batch_ok: self.batch_ok,
            full_commit: self.full_commit,
            es_action: self.action.unwrap_or(EsAction::Index),
            templated,
            content_type,
            headers,
            timeout: self.timeout,
            keep_alive: self.keep_alive,
            seed,
            batch_sizes: steps_batches(&batches, writers.len()),
            shard: self.shard,
            http2: self.connection.http2,
        }));
        let run = RunSpec {
            mode: Mode::Bulk,
            // Secret header values go on the wire, never into results.
            command_line: crate::redact::Redactor::default().command_line(&self.command_line),
            steps,
            interval: self.interval,
            settings,
            outputs: self
                .output_path
                .as_ref()
                .map(|p| Outputs::beside(p, self.format)),
            prober: None,
            probe_pid: None,
            rounds: 1,
            warmup: None,
            keep_going: false,
            until_saturated: false,
            hooks: Some(Arc::new(BulkHooks {
                workload: workload.clone(),
            })),
            start_at,
            before: self.before.runner(),
            first_draw: 0,
        };
        Ok(BulkReady {
            run,
            workload,
            engine: self.engine(threads, url.https)?,
            verify: self.verify,
            notes,
        })
    }

    /// The engine's settings: the threads, TLS for an https URL, this shard's lane.
    fn engine(&self, threads: usize, https: bool) -> Result<EngineConfig, BulkError> {
        if https && self.connection.coalesce.is_some() {
            return Err(SpecError::Coalesce(super::COALESCE_NEEDS_PLAIN).into());
        }
        let tls = if https {
            Some(crate::http::tls_connector(false, None).map_err(BulkError::Tls)?)
        } else {
            None
        };
        Ok(EngineConfig {
            threads,
            wait: Duration::ZERO,
            keep_alive: self.keep_alive,
            n_slow: 5,
            n_fast: 5,
            tls,
            lane: self.shard.map_or(Lane::ALL, |k| {
                Lane::shard(u64::from(k.index - 1), u64::from(k.count))
            }),
            ok_status: self.ok_status,
            label_feed: None,
            skip_late: None,
            budget_per_client: false,
            connection: self.connection,
            time_first_byte: false,
            login_timeout: self.timeout,
        })
    }

    /// The steps (batch sizes outside, writers inside, as the chapter's table reads),
    /// this machine's share of them, and notes on `--count`s rounded up to whole batches.
    fn steps(
        &self,
        batches: &[u64],
        writers: &[usize],
        duration: Option<Duration>,
    ) -> Result<(Vec<StepSpec>, Vec<String>), BulkError> {
        let mut steps = Vec::new();
        let mut notes = Vec::new();
        for &batch in batches {
            let n_requests = self.count.map(|c| c.div_ceil(batch));
            if let Some(c) = self.count {
                if c % batch != 0 {
                    notes.push(format!(
                        "--count {c} at batch size {batch}: {} requests, {} documents per step",
                        c.div_ceil(batch),
                        c.div_ceil(batch) * batch
                    ));
                }
            }
            let rate = match self.rate {
                Some(r) => Some(Arc::new(RateProfile::constant(r / batch as f64).map_err(
                    |why| BulkError::RateProfile {
                        rate: r,
                        batch,
                        why,
                    },
                )?)),
                None => None,
            };
            for &w in writers {
                steps.push(StepSpec {
                    n_clients: w,
                    duration,
                    n_requests,
                    rate: rate.clone(),
                });
            }
        }
        // The steps run are this machine's share; the settings' --count stays the whole's.
        if let Some(shard) = self.shard {
            if self.verify {
                return Err(BulkError::VerifyShard);
            }
            for step in &mut steps {
                super::share_step(step, shard)?;
            }
        }
        Ok((steps, notes))
    }

    /// The document template (`--doc`, `--doc-file`) and, for `--target template`, the
    /// body template with its method, response rule and count.
    fn documents(&self, content_type: &str) -> Result<(DocTemplate, Option<Templated>), BulkError> {
        let (doc_text, source_name) = match &self.doc {
            DocSource::Text(t) => (t.clone(), "--doc".to_string()),
            DocSource::File(p) => (
                std::fs::read_to_string(p).map_err(|why| BulkError::DocFile {
                    path: p.display().to_string(),
                    why,
                })?,
                format!("--doc-file {}", p.display()),
            ),
        };
        let template = DocTemplate::parse(doc_text.trim())
            .map_err(|why| BulkError::Template { source_name, why })?;
        let templated = match &self.template {
            Some(path) if self.target == TargetKind::Template => {
                Some(self.templated(path, content_type)?)
            }
            _ => None,
        };
        let field = self.target.id_field();
        if self.target == TargetKind::Elasticsearch && template.sets_key(field) {
            return Err(BulkError::NotElasticsearch {
                what: "_id inside a document",
                why: "it refuses the metadata field in a source; leave _id out (--ids names documents in the action line)",
            });
        }
        Ok((template, templated))
    }

    /// `--ids`, or what the templates leave: sequential unless they name documents
    /// themselves.
    fn id_strategy(
        &self,
        template: &DocTemplate,
        templated: Option<&Templated>,
    ) -> Result<IdStrategy, BulkError> {
        let field = self.target.id_field();
        Ok(if let Some(t) = templated {
            match self.ids {
                Some(i) if i != IdStrategy::Server && !t.body.uses_id() => {
                    return Err(BulkError::IdsUnused(i.as_str()))
                }
                Some(i) => i,
                None if t.body.uses_id() => IdStrategy::Sequential,
                None => IdStrategy::Server,
            }
        } else if template.sets_key(field) {
            match self.ids {
                Some(i) if i != IdStrategy::Server => {
                    return Err(BulkError::TemplateSetsId {
                        field,
                        ids: i.as_str(),
                    })
                }
                _ => IdStrategy::Server,
            }
        } else {
            self.ids.unwrap_or(IdStrategy::Sequential)
        })
    }

    /// The settings the result records.
    fn settings(&self, c: &Chosen<'_>) -> Settings {
        Settings {
            duration_s: c.duration.map(|d| d.as_secs_f64()),
            n_requests: None,
            interval_s: self.interval.as_secs_f64(),
            wait_s: 0.0,
            timeout_s: self.timeout.as_secs_f64(),
            keep_alive: self.keep_alive,
            model: if self.rate.is_some() {
                LoadModel::Open
            } else {
                LoadModel::Closed
            },
            order: RequestOrder::Sequential,
            seed: c.seed,
            patterns_source: self.url.clone(),
            n_patterns: 1,
            patterns_sha256: None,
            request_list: false,
            insecure: false,
            threads: c.threads,
            planned_cache_hit_rate: None,
            warmup_s: None,
            rounds: 1,
            shard: self.shard,
            merged: None,
            start_at: c.start_at.map(crate::sysinfo::rfc3339),
            http2_streams: self.connection.http2.then_some(self.connection.streams),
            pipeline: None,
            coalesce_us: self.connection.coalesce.map(|d| d.as_micros() as u64),
            store_commands: Vec::new(),
            sql_statements: Vec::new(),
            bulk: Some(BulkSettingsResult {
                target: self.target.as_str().into(),
                single: self.single,
                ids: c.ids.as_str().into(),
                doc: c
                    .templated
                    .map_or(c.template.text(), |t| t.body.text())
                    .to_string(),
                batch_ok: self.batch_ok,
                full_commit: self.full_commit,
                content_type: c.content_type.to_string(),
                table: self.table.clone(),
                count: self.count,
                rate_docs_per_s: self.rate,
                action: (self.target == TargetKind::Elasticsearch)
                    .then(|| self.action.unwrap_or(EsAction::Index).as_str().to_string()),
                method: c.templated.map(|t| t.method.clone()),
                response_rule: c.templated.map(|t| match &t.rule {
                    ResponseRule::Status => "status".to_string(),
                    ResponseRule::Count(p) => format!("ok-pointer {p}"),
                    ResponseRule::Items(_) => format!(
                        "item-error-pointer {}",
                        self.item_error_pointer.as_deref().unwrap_or_default()
                    ),
                }),
            }),
        }
    }

    fn batch_sizes(&self) -> Result<Vec<u64>, BulkError> {
        let Some(text) = &self.batch_sizes else {
            return Ok(vec![if self.single { 1 } else { 1000 }]);
        };
        if self.single {
            return Err(BulkError::SingleAndBatches);
        }
        let sizes = list(text, "--batch-sizes")?
            .into_iter()
            .map(|p| parse_count(p).map_err(|_| BulkError::BatchNotACount(p.to_string())))
            .collect::<Result<Vec<u64>, _>>()?;
        if let Some(&b) = sizes.iter().find(|&&b| b == 0 || b > MAX_BATCH) {
            return Err(BulkError::BatchRange(b));
        }
        Ok(sizes)
    }

    fn writers(&self) -> Result<Vec<usize>, BulkError> {
        let writers = list(&self.writers, "--writers")?
            .into_iter()
            .map(|p| {
                p.parse::<usize>()
                    .map_err(|_| BulkError::WritersNotANumber(p.to_string()))
            })
            .collect::<Result<Vec<_>, _>>()?;
        for &w in &writers {
            check_clients("--writers", w)?;
        }
        Ok(writers)
    }
}

fn list<'a>(text: &'a str, flag: &'static str) -> Result<Vec<&'a str>, BulkError> {
    let parts: Vec<&str> = text
        .split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .collect();
    if parts.is_empty() {
        return Err(BulkError::Empty { flag });
    }
    Ok(parts)
}

/// The batch size of every step, in step order (each batch size once per writer count).
fn steps_batches(batches: &[u64], n_writers: usize) -> Vec<u64> {
    batches
        .iter()
        .flat_map(|&b| std::iter::repeat_n(b, n_writers))
        .collect()
}

/// What [`BulkOptions::build`] chose that the recorded settings show.
struct Chosen<'a> {
    duration: Option<Duration>,
    seed: u64,
    threads: usize,
    start_at: Option<std::time::SystemTime>,
    ids: IdStrategy,
    template: &'a DocTemplate,
    templated: Option<&'a Templated>,
    content_type: &'a str,
}

fn resolve(https: bool, host: &str, port: u16) -> Result<Target, BulkError> {
    use std::net::ToSocketAddrs;
    let addrs: Vec<_> = (host, port)
        .to_socket_addrs()
        .map_err(|e| BulkError::Resolve {
            host: host.to_string(),
            why: e.to_string(),
        })?
        .collect();
    if addrs.is_empty() {
        return Err(BulkError::Resolve {
            host: host.to_string(),
            why: "no addresses".into(),
        });
    }
    Ok(Target {
        https,
        host: host.to_string(),
        port,
        addrs,
        proto: crate::http::Proto::Http,
    })
}

/// Sets each step's batch size before it runs, and records its documents after.
struct BulkHooks {
    workload: Arc<BulkWorkload>,
}

impl StepHooks for BulkHooks {
    fn before_step(&self, index: usize, spec: &StepSpec) {
        self.workload.begin_step(index, spec.n_clients);
    }

    fn after_step(&self, index: usize, result: &mut StepResult) {
        let items = result.items.clone().unwrap_or_default();
        result.bulk = Some(BulkStepResult {
            batch_size: self.workload.batch_size(index),
            writers: result.n_clients,
            docs_acknowledged: items.ok,
            docs_per_s: if result.elapsed_s > 0.0 {
                items.ok as f64 / result.elapsed_s
            } else {
                0.0
            },
            item_errors: items.failed,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(target: TargetKind, url: &str) -> BulkOptions {
        BulkOptions {
            target,
            url: url.into(),
            ..BulkOptions::default()
        }
    }

    fn err(o: &BulkOptions) -> String {
        match o.build() {
            Ok(_) => panic!("accepted"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn steps_are_batch_sizes_by_writers_with_documents_as_budgets() {
        let mut o = opts(TargetKind::CouchDb, "http://127.0.0.1:5984/bench/");
        o.batch_sizes = Some("100,1k".into());
        o.writers = "1,10".into();
        o.count = Some(1500);
        let r = o.build().unwrap();
        let shape: Vec<(usize, Option<u64>)> = r
            .run
            .steps
            .iter()
            .map(|s| (s.n_clients, s.n_requests))
            .collect();
        assert_eq!(
            shape,
            vec![(1, Some(15)), (10, Some(15)), (1, Some(2)), (10, Some(2))]
        );
        assert_eq!(
            r.workload.settings().batch_sizes,
            vec![100, 100, 1000, 1000]
        );
        assert_eq!(r.workload.settings().base_path, "/bench");
        assert_eq!(r.notes.len(), 1, "1500 is not whole batches of 1000");
        assert_eq!(r.run.mode, Mode::Bulk);
        // --rate is documents per second: requests per second ÷ batch size.
        let mut o = opts(TargetKind::CouchDb, "http://127.0.0.1:5984/bench");
        o.batch_sizes = Some("100".into());
        o.rate = Some(5000.0);
        let r = o.build().unwrap();
        assert_eq!(r.run.steps[0].mean_rate(), Some(50.0));
        assert_eq!(r.run.steps[0].duration, Some(DEFAULT_BULK_DURATION));
    }

    #[test]
    fn what_a_target_cannot_do_is_refused_by_name() {
        let mut o = opts(TargetKind::Groonga, "http://127.0.0.1:10041");
        assert!(err(&o).contains("--table"));
        o.table = Some("Docs".into());
        o.batch_ok = true;
        assert!(
            err(&o).starts_with("Groonga has no batch=ok"),
            "{}",
            err(&o)
        );
        o.batch_ok = false;
        o.full_commit = true;
        assert!(err(&o).starts_with("Groonga has no full-commit"));
        o.full_commit = false;
        assert!(o.build().is_ok());
        assert!(err(&opts(TargetKind::CouchDb, "http://127.0.0.1:5984/")).contains("database"));
        let mut o = opts(TargetKind::CouchDb, "http://127.0.0.1:5984/db");
        o.single = true;
        o.batch_sizes = Some("10".into());
        assert!(err(&o).contains("--single"));
    }

    #[test]
    fn elasticsearch_needs_an_index_and_refuses_couchdbs_modes() {
        assert!(err(&opts(TargetKind::Elasticsearch, "http://127.0.0.1:9200")).contains("index"));
        let mut o = opts(TargetKind::Elasticsearch, "http://127.0.0.1:9200/logs");
        let r = o.build().unwrap();
        assert_eq!(r.workload.settings().target.port, 9200);
        assert_eq!(r.workload.settings().content_type, "application/x-ndjson");
        assert_eq!(r.workload.settings().es_action, EsAction::Index);
        o.doc = DocSource::Text(r#"{"_id":"x"}"#.into());
        assert!(err(&o).contains("_id inside a document"), "{}", err(&o));
        o.doc = DocSource::Text(r#"{"a":1}"#.into());
        o.batch_ok = true;
        assert!(err(&o).starts_with("Elasticsearch has no batch=ok"));
        let mut o = opts(TargetKind::CouchDb, "http://127.0.0.1:5984/db");
        o.action = Some(EsAction::Create);
        assert!(err(&o).starts_with("--action is Elasticsearch's"));
    }

    #[test]
    fn template_flags_belong_to_the_template_target() {
        let mut o = opts(TargetKind::CouchDb, "http://127.0.0.1:5984/db");
        o.ok_pointer = Some("/1".into());
        assert_eq!(err(&o), "--ok-pointer is for --target template");
        let mut o = opts(
            TargetKind::Template,
            "http://127.0.0.1:10041/d/load?table=T",
        );
        assert!(err(&o).starts_with("--target template needs --template"));
        let dir = std::env::temp_dir().join(format!("hakaru-spec-tpl-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("t.json");
        std::fs::write(&path, r#"[{{#docs ","}}{"_key":"{{id}}"}{{/docs}}]"#).unwrap();
        o.template = Some(path.clone());
        o.ok_pointer = Some("/1".into());
        o.item_error_pointer = Some("/items/*/error".into());
        assert!(err(&o).contains("give one"));
        o.item_error_pointer = None;
        o.verify = true;
        assert!(err(&o).contains("--count-url"));
        o.verify = false;
        o.method = Some("P0ST".into());
        assert!(err(&o).contains("--method"));
        o.method = Some("put".into());
        let r = o.build().unwrap();
        let s = r.workload.settings();
        assert_eq!(s.base_path, "/d/load?table=T");
        assert_eq!(s.ids, IdStrategy::Sequential);
        let t = s.templated.as_ref().unwrap();
        assert_eq!(
            (t.method.as_str(), &t.rule),
            ("PUT", &ResponseRule::Count("/1".into()))
        );
        std::fs::write(&path, r#"[{{#docs ","}}{"a":1}{{/docs}}]"#).unwrap();
        o.ids = Some(IdStrategy::Uuid);
        assert!(err(&o).contains("no {{id}}"));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn bad_documents_and_lists_are_refused_before_any_load() {
        let mut o = opts(TargetKind::CouchDb, "http://127.0.0.1:5984/db");
        o.doc = DocSource::Text(r#"{"n":{{sequence}}}"#.into());
        let e = err(&o);
        assert!(
            e.starts_with("--doc: line 1, column 6: unknown placeholder"),
            "{e}"
        );
        o.doc = DocSource::Text(r#"{"_id":"d{{seq}}"}"#.into());
        o.ids = Some(IdStrategy::Uuid);
        assert!(err(&o).contains("sets _id itself"));
        o.ids = None;
        let r = o.build().unwrap();
        assert_eq!(r.workload.settings().ids, IdStrategy::Server);
        let mut o = opts(TargetKind::CouchDb, "http://127.0.0.1:5984/db");
        o.batch_sizes = Some("0".into());
        assert!(err(&o).contains("1 to"));
        o.batch_sizes = Some("ten".into());
        assert!(err(&o).contains("\"ten\""));
        o.batch_sizes = None;
        o.writers = "0".into();
        assert!(err(&o).contains("--writers"));
        o.writers = "1".into();
        o.id_prefix = Some("a/b".into());
        assert!(err(&o).contains("--id-prefix"));
    }

    #[test]
    fn bulk_batch_of_16_tb_is_refused_before_any_allocation() {
        let mut o = opts(TargetKind::CouchDb, "http://127.0.0.1:5984/db");
        o.doc = DocSource::Text(r#"{"p":"{{bytes:16777216}}"}"#.into());
        o.batch_sizes = Some("1000000".into());
        let e = err(&o);
        assert!(e.starts_with("--batch-sizes 1000000: up to "), "{e}");
        assert!(e.contains("268435456"), "{e}");
        // Big documents in small batches, and small documents in the biggest batch, go.
        o.batch_sizes = Some("10".into());
        assert!(o.build().is_ok());
        o.doc = DocSource::Text(r#"{"n":{{seq}}}"#.into());
        o.batch_sizes = Some("1000000".into());
        assert!(o.build().is_ok());
        assert_eq!(
            super::super::bulk_check::longest_filling(r#"{"a":"{{bytes:100}}","b":{{seq}}}"#),
            33 + 100 + 40
        );
    }
}
