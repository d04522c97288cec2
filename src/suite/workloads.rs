//! A scenario's workloads built for its run: each phase's parts (request-response
//! from a URL or patterns file, bulk writers, YCSB), checked as `run`, `bulk` and the
//! YCSB workload check them, with the phase and the workload named in every error.

use std::sync::Arc;
use std::time::Duration;

use tokio_rustls::TlsConnector;

use super::run::SuiteError;
use super::scenario::{BulkSpec, Phase, Scenario, Source, WorkloadSpec, YcsbSpec};
use crate::engine::ConnectionSettings;
use crate::result::Shard;
use crate::spec::bulk::{BulkOptions, DocSource};
use crate::spec::{Load, Ready, RequestOptions, RunOptions, SessionOptions};
use crate::workload::bulk::BulkWorkload;
use crate::workload::kv::ycsb::KvYcsb;
use crate::workload::mix::AnyWorkload;
use crate::workload::ycsb::sql::SqlYcsb;
use crate::workload::ycsb::{Core, YcsbSettings, YcsbWorkload};

/// Makes a load's database or table ready, if it is not there; a refusal shows in
/// the load's own answers, counted as any other.
pub(super) type Setup = Arc<dyn Fn() -> Result<(), String> + Send + Sync>;

/// A phase's parts: each workload with its weight.
pub(super) type Parts = Vec<(Arc<dyn AnyWorkload>, u32)>;

/// What building the phases' workloads gives the run.
#[derive(Default)]
pub(super) struct Built {
    pub phases: Vec<Parts>,
    /// The first request-response workload's spec: the run's settings start from it.
    pub first: Option<Ready>,
    /// Bulk writers by phase, and those whose documents are verified.
    pub bulks: Vec<(usize, Arc<BulkWorkload>)>,
    pub verified: Vec<(usize, Arc<BulkWorkload>)>,
    /// What each YCSB load makes ready before its phase (its database or table),
    /// and each phase's request budget when it is a load.
    pub loads: Vec<(usize, Setup)>,
    pub load_requests: Vec<Option<u64>>,
    pub tls: Option<TlsConnector>,
    pub n_patterns: usize,
}

/// One workload of one phase, with what building it needs.
struct At<'a> {
    scenario: &'a Scenario,
    /// The scenario file, for errors.
    path: &'a str,
    phase: &'a Phase,
    /// Phase and workload, from 0.
    i: usize,
    j: usize,
    w: &'a WorkloadSpec,
    seed: u64,
    shard: Option<Shard>,
    command_line: &'a [String],
}

/// Every phase's workloads, checked before any load.
pub(super) fn workloads(
    scenario: &Scenario,
    path: &str,
    seed: u64,
    shard: Option<Shard>,
    command_line: &[String],
) -> Result<Built, SuiteError> {
    let mut b = Built {
        load_requests: vec![None; scenario.phases.len()],
        ..Built::default()
    };
    for (i, phase) in scenario.phases.iter().enumerate() {
        let mut parts: Parts = Vec::new();
        for (j, w) in phase.workloads.iter().enumerate() {
            let at = At {
                scenario,
                path,
                phase,
                i,
                j,
                w,
                seed,
                shard,
                command_line,
            };
            let part: Arc<dyn AnyWorkload> = match &w.source {
                Source::Ycsb(y) => b.ycsb(&at, y)?,
                Source::Bulk(bulk) => b.bulk(&at, bulk)?,
                Source::Url(_) | Source::Patterns(_) | Source::Script { .. } => {
                    b.request_response(&at)?
                }
            };
            parts.push((part, w.weight));
        }
        b.phases.push(parts);
    }
    // Bulk writers or YCSB only: the run's settings (and its connections) are a plain
    // run's of the scenario's protocol.
    if b.first.is_none() {
        b.first = Some(plain_ready_with(scenario.connection, command_line));
    }
    for (i, phase) in scenario.phases.iter().enumerate() {
        let n = b.bulks.iter().filter(|(p, _)| *p == i).count();
        if n > 1 && b.verified.iter().any(|(p, _)| *p == i) {
            return Err(SuiteError::VerifyShared {
                path: path.to_owned(),
                phase: phase.name.clone(),
            });
        }
    }
    Ok(b)
}

impl Built {
    fn ycsb(&mut self, at: &At<'_>, y: &YcsbSpec) -> Result<Arc<dyn AnyWorkload>, SuiteError> {
        if crate::http::url::kv_scheme(&y.url).is_some() {
            return self.kv_ycsb(at, y);
        }
        if crate::workload::ycsb::sql::is_sql(&y.url) {
            return self.sql_ycsb(at, y);
        }
        let settings =
            ycsb_settings(at.scenario, y, at.seed, (at.i, at.j), at.shard).map_err(|why| {
                SuiteError::Ycsb {
                    path: at.path.to_owned(),
                    phase: at.phase.name.clone(),
                    index: at.j + 1,
                    source_name: at.w.source.describe(),
                    why,
                }
            })?;
        let workload = Arc::new(YcsbWorkload::new(settings));
        if y.core == Core::Load {
            self.load_requests[at.i] = Some(workload.settings().load_requests());
            let w = workload.clone();
            self.loads
                .push((at.i, Arc::new(move || w.create_database())));
        }
        Ok(workload)
    }

    /// YCSB over Redis or memcached ([`KvYcsb`]): the same settings, the store's target.
    fn kv_ycsb(&mut self, at: &At<'_>, y: &YcsbSpec) -> Result<Arc<dyn AnyWorkload>, SuiteError> {
        let why = |why| SuiteError::Ycsb {
            path: at.path.to_owned(),
            phase: at.phase.name.clone(),
            index: at.j + 1,
            source_name: at.w.source.describe(),
            why,
        };
        let (target, _) = crate::spec::kv::target(&y.url).map_err(why)?;
        if let Some(refused) = at
            .phase
            .pipeline
            .filter(|&p| p > 1)
            .and_then(|_| crate::spec::kv::pipeline_refusal(&target))
        {
            return Err(why(format!("pipeline with {refused}")));
        }
        let defaults = RequestOptions::default();
        let workload = Arc::new(KvYcsb::new(YcsbSettings {
            core: y.core,
            target,
            db_path: String::new(),
            records: y.records,
            distribution: y.distribution,
            fields: y.fields,
            field_length: y.field_length,
            max_scan: y.max_scan,
            batch: 1,
            headers: Vec::new(),
            keep_alive: true,
            timeout: at.scenario.timeout.unwrap_or(defaults.timeout),
            seed: phase_seed(at.seed, at.i, at.j),
            shard: at.shard,
        }));
        if y.core == Core::Load {
            self.load_requests[at.i] = Some(workload.load_requests());
        }
        Ok(workload)
    }

    /// YCSB over PostgreSQL ([`SqlYcsb`]): the same settings on YCSB's JDBC table.
    fn sql_ycsb(&mut self, at: &At<'_>, y: &YcsbSpec) -> Result<Arc<dyn AnyWorkload>, SuiteError> {
        let why = |why| SuiteError::Ycsb {
            path: at.path.to_owned(),
            phase: at.phase.name.clone(),
            index: at.j + 1,
            source_name: at.w.source.describe(),
            why,
        };
        let target = crate::workload::ycsb::sql::target(&y.url).map_err(why)?;
        let defaults = RequestOptions::default();
        let settings = YcsbSettings {
            core: y.core,
            target,
            db_path: String::new(),
            records: y.records,
            distribution: y.distribution,
            fields: y.fields,
            field_length: y.field_length,
            max_scan: y.max_scan,
            batch: y.batch,
            headers: Vec::new(),
            keep_alive: true,
            timeout: at.scenario.timeout.unwrap_or(defaults.timeout),
            seed: phase_seed(at.seed, at.i, at.j),
            shard: at.shard,
        };
        if let Some(refused) = crate::workload::ycsb::sql::refused(&settings) {
            return Err(why(refused));
        }
        let workload = Arc::new(SqlYcsb::new(settings, &y.table));
        if y.core == Core::Load {
            self.load_requests[at.i] = Some(workload.load_requests());
            let w = workload.clone();
            self.loads.push((at.i, Arc::new(move || w.create_table())));
        }
        Ok(workload)
    }

    fn bulk(&mut self, at: &At<'_>, b: &BulkSpec) -> Result<Arc<dyn AnyWorkload>, SuiteError> {
        let ready = bulk_options(
            at.scenario,
            b,
            at.phase,
            at.seed,
            (at.i, at.j),
            at.shard,
            at.command_line,
        )
        .build()
        .map_err(|why| SuiteError::Bulk {
            path: at.path.to_owned(),
            phase: at.phase.name.clone(),
            index: at.j + 1,
            source_name: at.w.source.describe(),
            why: Box::new(why),
        })?;
        self.tls = self.tls.take().or(ready.engine.tls.clone());
        if b.verify {
            self.verified.push((at.i, ready.workload.clone()));
        }
        self.bulks.push((at.i, ready.workload.clone()));
        Ok(ready.workload.clone())
    }

    /// A URL or patterns file: `run`'s workload with the scenario's request settings.
    fn request_response(&mut self, at: &At<'_>) -> Result<Arc<dyn AnyWorkload>, SuiteError> {
        let mut sql = crate::spec::sql::SqlOptions::default();
        let (url, patterns_file) = match &at.w.source {
            Source::Url(u) => (Some(u.clone()), None),
            Source::Patterns(p) => (None, Some(p.clone())),
            Source::Script { url, script, mode } => {
                // A path, not `-f FILE[@WEIGHT]`: the part's weight is its `weight`
                // key, and an `@` in the scenario's directory (`/home/a@b/tx.sql`)
                // was read as a bad weight. pgbench's splitting takes the last `@`.
                sql.files = vec![format!("{}@1", script.display())];
                sql.query_mode = mode.clone();
                (Some(url.clone()), None)
            }
            Source::Ycsb(_) | Source::Bulk(_) => unreachable!("built apart"),
        };
        let (scenario, phase) = (at.scenario, at.phase);
        let defaults = RequestOptions::default();
        let options = RunOptions {
            request: RequestOptions {
                url,
                patterns_file,
                hosts: scenario.hosts.clone().unwrap_or(defaults.hosts.clone()),
                port: scenario.port.unwrap_or(defaults.port),
                path: scenario.url_path.clone().unwrap_or(defaults.path.clone()),
                method: scenario.method.clone().unwrap_or(defaults.method.clone()),
                timeout: scenario.timeout.unwrap_or(defaults.timeout),
                headers: scenario.headers.clone(),
                allow_pattern_hosts: scenario.allow_pattern_hosts,
                keep_alive: scenario.keep_alive.unwrap_or(defaults.keep_alive),
                // The phase's own protocol; a store's pipeline is checked as
                // `run --pipeline` checks it (AUTH or SELECT in the URL).
                connection: phase.connection,
                kv: crate::spec::kv::KvOptions {
                    pipeline: phase.pipeline,
                    sql,
                    ..Default::default()
                },
                seed: Some(phase_seed(at.seed, at.i, at.j)),
                threads: scenario.threads.unwrap_or(0),
                ..RequestOptions::default()
            },
            session: SessionOptions::default(),
            load: Load::Step {
                clients: phase.clients,
                duration: Some(phase.duration),
                requests: None,
                rate: None,
            },
            interval: Duration::ZERO,
            output_path: None,
            command_line: at.command_line.to_vec(),
        };
        let ready = options
            .build()
            .map_err(|why| match why.patterns_problem() {
                // A scenario from elsewhere may name any file: say what is wrong with it,
                // never what it holds.
                Some(problem) => SuiteError::PatternsFile {
                    path: at.path.to_owned(),
                    phase: phase.name.clone(),
                    index: at.j + 1,
                    source_name: at.w.source.describe(),
                    problem,
                },
                None if matches!(at.w.source, Source::Script { .. }) => SuiteError::PatternsFile {
                    path: at.path.to_owned(),
                    phase: phase.name.clone(),
                    index: at.j + 1,
                    source_name: at.w.source.describe(),
                    problem: in_scenario_words(&why.to_string()),
                },
                None => SuiteError::Workload {
                    path: at.path.to_owned(),
                    phase: phase.name.clone(),
                    index: at.j + 1,
                    source_name: at.w.source.describe(),
                    why: Box::new(why),
                },
            })?;
        self.n_patterns += ready.run.settings.n_patterns;
        self.tls = self.tls.take().or(ready.engine.tls.clone());
        let workload = ready.workload.clone();
        if self.first.is_none() {
            self.first = Some(ready);
        }
        Ok(workload)
    }
}

/// A script workload's refusal as `run` words it (`-f FILE: …`, `-M simple`) in the
/// scenario's words (`script`, `mode = "…"`): a scenario has no flags.
fn in_scenario_words(why: &str) -> String {
    let why = why.strip_prefix("-f ").unwrap_or(why);
    why.replace(
        "cannot be used with -M simple",
        "cannot be used in mode \"simple\"",
    )
    .replace(
        "give -M extended or prepared",
        "give mode = \"extended\" or \"prepared\"",
    )
}

/// The settings of a scenario of bulk writers only: a plain run of the same shape's.
pub(super) fn plain_ready(command_line: &[String]) -> Ready {
    plain_ready_with(ConnectionSettings::default(), command_line)
}

/// [`plain_ready`] speaking the scenario's protocol (`http2`, `streams`).
fn plain_ready_with(connection: ConnectionSettings, command_line: &[String]) -> Ready {
    RunOptions {
        request: RequestOptions {
            url: Some("http://127.0.0.1:1/".into()),
            connection,
            ..RequestOptions::default()
        },
        session: SessionOptions::default(),
        load: Load::Step {
            clients: 1,
            duration: Some(Duration::from_secs(1)),
            requests: None,
            rate: None,
        },
        interval: Duration::ZERO,
        output_path: None,
        command_line: command_line.to_vec(),
    }
    .build()
    .expect("a fixed valid run")
}

/// `hakaru bulk`'s options for a bulk workload of phase `i`.
fn bulk_options(
    scenario: &Scenario,
    b: &BulkSpec,
    phase: &Phase,
    seed: u64,
    (i, j): (usize, usize),
    shard: Option<Shard>,
    command_line: &[String],
) -> BulkOptions {
    let defaults = BulkOptions::default();
    BulkOptions {
        target: b.target,
        url: b.url.clone(),
        batch_sizes: (!b.single).then(|| b.batch.to_string()),
        writers: phase.clients.to_string(),
        duration: Some(phase.duration),
        single: b.single,
        table: b.table.clone(),
        // The scenario counts the server's documents itself (before and after), also
        // when sharded, where `hakaru merge` sets every shard's against the server's.
        verify: b.verify && shard.is_none(),
        // Each shard's writers number their documents in a lane of their own.
        shard,
        doc: b.doc.clone().map_or(defaults.doc, DocSource::Text),
        ids: b.ids,
        // Unique to the run, the phase and the workload: no two writers share an ID.
        id_prefix: Some(format!(
            "{:08x}-{i}-{j}-",
            (seed >> 32) as u32 ^ seed as u32
        )),
        headers: scenario.headers.clone(),
        timeout: scenario.timeout.unwrap_or(defaults.timeout),
        keep_alive: scenario.keep_alive.unwrap_or(defaults.keep_alive),
        connection: phase.connection,
        threads: scenario.threads.unwrap_or(0),
        seed: Some(phase_seed(seed, i, j)),
        command_line: command_line.to_vec(),
        ..defaults
    }
}

/// The seed of workload `j` of phase `i`: a stream of the scenario's seed of its own.
fn phase_seed(seed: u64, i: usize, j: usize) -> u64 {
    crate::rng::derive(seed, (i as u64) << 32 | j as u64)
}

/// The YCSB workload's settings: the scenario's headers, timeout and keep-alive, a
/// seed of its own, this machine's shard.
fn ycsb_settings(
    scenario: &Scenario,
    y: &YcsbSpec,
    seed: u64,
    (i, j): (usize, usize),
    shard: Option<Shard>,
) -> Result<YcsbSettings, String> {
    use std::net::ToSocketAddrs;
    let url = crate::http::url::parse_http_url(&y.url)?;
    let port = url.port.unwrap_or(if url.https { 443 } else { 5984 });
    let addrs: Vec<_> = (url.host.as_str(), port)
        .to_socket_addrs()
        .map_err(|e| format!("cannot resolve {}: {e}", url.host))?
        .collect();
    if addrs.is_empty() {
        return Err(format!("cannot resolve {}: no addresses", url.host));
    }
    let headers = scenario
        .headers
        .iter()
        .map(|h| crate::spec::parse_header(h).map_err(|e| e.to_string()))
        .collect::<Result<Vec<_>, _>>()?;
    let defaults = RequestOptions::default();
    Ok(YcsbSettings {
        core: y.core,
        target: crate::http::Target {
            https: url.https,
            host: url.host.clone(),
            port,
            addrs,
            proto: crate::http::Proto::Http,
        },
        db_path: url.path.trim_end_matches('/').to_string(),
        records: y.records,
        distribution: y.distribution,
        fields: y.fields,
        field_length: y.field_length,
        max_scan: y.max_scan,
        batch: y.batch,
        headers,
        keep_alive: scenario.keep_alive.unwrap_or(defaults.keep_alive),
        timeout: scenario.timeout.unwrap_or(defaults.timeout),
        seed: phase_seed(seed, i, j),
        shard,
    })
}

#[cfg(test)]
mod tests {
    /// A script's refusal named `run`'s flags, which a scenario has not: "-f
    /// nope.sql: No such file", "give -M extended or prepared".
    #[test]
    fn a_script_s_refusal_is_in_the_scenario_s_words() {
        assert_eq!(
            super::in_scenario_words("-f dir/nope.sql: No such file or directory (os error 2)"),
            "dir/nope.sql: No such file or directory (os error 2)"
        );
        let why = super::in_scenario_words(
            "p.sql: \\startpipeline cannot be used with -M simple (the simple query \
             protocol has no pipeline); give -M extended or prepared",
        );
        assert!(!why.contains("-M"), "{why}");
        assert!(
            why.contains("give mode = \"extended\" or \"prepared\""),
            "{why}"
        );
    }
}
