//! The phase runner: a checked [`Scenario`] becomes one run — each phase a step of
//! the runner with its own weighted [`Mix`] of workloads, back to back with a
//! per-second timeline — while its events fire on their own clock. At the end the
//! events' outcomes and the recovery after each join the result, which is written
//! once more.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use super::events;
use super::scenario::{Scenario, Source, TargetPid};
use super::workloads::Built;
use crate::analysis::recovery;
use crate::engine::{EngineConfig, Lane, StepSpec, Stop};
use crate::probe::ProcessWatch;
use crate::result::command::CommandResult;
use crate::result::csv::CsvFormat;
use crate::result::store::Outputs;
use crate::result::suite::{PhaseResult, SuiteResult, SuiteVerify, WorkloadResult};
use crate::result::{LoadModel, Mode, RunResult, RunState, Shard, StepResult};
use crate::runner::{Observer, RampError, RunSpec, StepHooks};
use crate::spec::{share_step, start_moment, SpecError, StartAt};
use crate::workload::bulk::{verify, BulkWorkload};
use crate::workload::mix::Mix;

/// Why a scenario cannot run. Nothing has been sent when one is returned.
#[derive(Debug, thiserror::Error)]
pub enum SuiteError {
    #[error(transparent)]
    Scenario(#[from] super::scenario::ScenarioError),
    #[error("{path}: phase \"{phase}\", workload {index} ({source_name}): {why}")]
    Workload {
        path: String,
        phase: String,
        index: usize,
        source_name: String,
        why: Box<SpecError>,
    },
    #[error("{path}: phase \"{phase}\", workload {index} ({source_name}): {problem}")]
    PatternsFile {
        path: String,
        phase: String,
        index: usize,
        source_name: String,
        problem: String,
    },
    #[error("{path}: phase \"{phase}\", workload {index} ({source_name}): {why}")]
    Bulk {
        path: String,
        phase: String,
        index: usize,
        source_name: String,
        why: Box<crate::spec::bulk::BulkError>,
    },
    #[error("{path}: phase \"{phase}\": a bulk workload with verify = true must be the only bulk workload of its phase (their acknowledged documents cannot be told apart)")]
    VerifyShared { path: String, phase: String },
    #[error("{path}: verify: cannot read the server's count before the first phase: {why}")]
    VerifyBefore { path: String, why: String },
    #[error("{path}: phase \"{phase}\", workload {index} ({source_name}): cannot log in before the first phase: {why}")]
    SqlLogin {
        path: String,
        phase: String,
        index: usize,
        source_name: String,
        why: String,
    },
    #[error("{path}: targets.{name}: pid {pid}: no such process")]
    NoProcess {
        path: String,
        name: String,
        pid: u32,
    },
    #[error("{path}: phase \"{phase}\": {why}")]
    Shard {
        path: String,
        phase: String,
        why: Box<SpecError>,
    },
    #[error("{path}: {why}")]
    StartAt { path: String, why: Box<SpecError> },
    #[error("{path}: phase \"{phase}\", workload {index} ({source_name}): {why}")]
    Ycsb {
        path: String,
        phase: String,
        index: usize,
        source_name: String,
        why: String,
    },
}

/// One load machine's part of a scenario spread over many: `--shard K/N` and
/// `--start-at`, as on `run` and `ramp`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Sharding {
    /// Each phase's clients and rate split as `run` splits a step's: clients shared,
    /// the open model's timetable by index (the engine's lane).
    pub shard: Option<Shard>,
    /// The scenario's start on the shared clock: every phase starts at it plus the
    /// phase's start, so the shards' phases and events run together.
    pub start_at: Option<StartAt>,
}

/// Why a scenario stopped before its result was whole.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error(transparent)]
    Suite(#[from] SuiteError),
    #[error(transparent)]
    Ramp(#[from] RampError),
}

/// A scenario ready to run.
pub struct SuiteReady {
    pub scenario: Scenario,
    pub run: RunSpec,
    pub workload: Arc<Mix>,
    pub engine: EngineConfig,
    hooks: Arc<SuiteHooks>,
    /// Bulk writers whose documents are counted on the server after the last phase.
    verified: Vec<(usize, Arc<BulkWorkload>)>,
}

/// What the runner calls around each phase: the mix's phase, the phase's start time,
/// and the events' clock started with the first phase.
struct SuiteHooks {
    mix: Arc<Mix>,
    /// Bulk writers by phase: each takes fresh client serials (unique IDs) as its phase begins.
    bulks: Vec<(usize, Arc<BulkWorkload>)>,
    /// YCSB loads by phase: their database or table is created (if it is not there) first.
    loads: Vec<(usize, super::workloads::Setup)>,
    scenario: Scenario,
    stop: Stop,
    t0: Mutex<Option<Instant>>,
    /// The scenario's start on the wall clock (`t0`'s moment), against which a
    /// phase's clock start (its step's `started_at`) is placed.
    t0_wall: Mutex<Option<SystemTime>>,
    starts: Mutex<Vec<f64>>,
    events: Mutex<Option<events::Running>>,
    /// `--start-at`: the scenario's start on the shared clock.
    start_at: Option<SystemTime>,
    /// How late each phase started after its planned moment (`--start-at`).
    late: Mutex<Vec<Option<f64>>>,
    /// Shard 1 of N, or the only machine: it fires every event.
    first_shard: bool,
    /// Each phase's `before_sql` outcome, for its step.
    before_sql: Mutex<Vec<Option<CommandResult>>>,
}

impl SuiteHooks {
    /// Phase `index`'s `before_sql` on its `postgres://` target, timed.
    fn run_before_sql(&self, index: usize) {
        let Some(p) = self.scenario.phases.get(index).filter(|_| self.first_shard) else {
            return;
        };
        let (Some(sql), Some(url)) = (&p.before_sql, super::connection::sql_url(&p.workloads))
        else {
            return;
        };
        let timeout = self.scenario.timeout.unwrap_or(Duration::from_secs(10));
        let started = Instant::now();
        let done = crate::workload::ycsb::sql::execute(url, sql, timeout);
        if let Err(e) = &done {
            eprintln!("phase \"{}\": before_sql failed: {e}", p.name);
        }
        let outcome = CommandResult {
            command: format!("SQL: {sql}"),
            exit_code: done.is_ok().then_some(0),
            ok: done.is_ok(),
            error: done.err(),
            duration_s: started.elapsed().as_secs_f64(),
            ..CommandResult::default()
        };
        let mut all = self.before_sql.lock().unwrap_or_else(|e| e.into_inner());
        all.resize(index + 1, None);
        all[index] = Some(outcome);
    }

    /// Phase `index`'s start made the moment its clock started (its step's
    /// `started_at`), which its timeline's seconds count from: the probes' readings
    /// before it (a second or more each for PostgreSQL's) and the clients' logins
    /// come after `before_step` noted the phase, and left its timeline — and the
    /// events' places in it, their baselines and recovery times — that much early.
    fn clock_started(&self, index: usize, result: &StepResult) {
        let t0 = *self.t0_wall.lock().unwrap_or_else(|e| e.into_inner());
        let Some(since) = t0.zip(crate::timestamp::parse(&result.started_at)) else {
            return;
        };
        let Ok(since) = since.1.duration_since(since.0) else {
            return;
        };
        let mut starts = self.starts.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(s) = starts.get_mut(index) {
            // Never before the moment noted: the wall clock may have stepped back.
            *s = s.max(since.as_secs_f64());
        }
    }
}

impl StepHooks for SuiteHooks {
    fn before_step(&self, index: usize, spec: &StepSpec) {
        let t0 = *self
            .t0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get_or_insert_with(|| match self.start_at {
                // The shared moment on this machine's monotonic clock.
                Some(at) => {
                    let (wall, now) = (SystemTime::now(), Instant::now());
                    match at.duration_since(wall) {
                        Ok(ahead) => now + ahead,
                        Err(past) => now.checked_sub(past.duration()).unwrap_or(now),
                    }
                }
                None => Instant::now(),
            });
        self.t0_wall
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get_or_insert_with(|| self.start_at.unwrap_or_else(SystemTime::now));
        if index == 0 {
            let mut ev = self.events.lock().unwrap_or_else(|e| e.into_inner());
            if ev.is_none() {
                *ev = Some(events::start(
                    self.scenario.events.clone(),
                    self.scenario.targets.clone(),
                    t0,
                    self.stop.clone(),
                    self.first_shard,
                ));
            }
        }
        // A phase with a later start waits for it (nothing is sent meanwhile); with
        // --start-at every phase waits for its moment on the shared clock, with the
        // engine's timer, and how late it started is kept.
        if let Some(p) = self.scenario.phases.get(index) {
            match self.start_at {
                Some(at) => {
                    let late = crate::runner::start::wait_until(at + p.start, &self.stop);
                    let mut all = self.late.lock().unwrap_or_else(|e| e.into_inner());
                    all.resize(index + 1, None);
                    all[index] = late.map(|d| d.as_secs_f64());
                }
                None if p.start_given => {
                    let due = t0 + p.start;
                    let now = Instant::now();
                    if due > now {
                        self.stop.sleep(due - now);
                    }
                }
                None => {}
            }
        }
        self.starts
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(t0.elapsed().as_secs_f64());
        for (_, setup) in self.loads.iter().filter(|(p, _)| *p == index) {
            // Its refusal shows in the load's own answers (404s, SQLSTATE 42P01),
            // counted as any other.
            let _ = setup();
        }
        self.run_before_sql(index);
        self.mix.set_phase(index);
        // This machine's writers (its share of the phase's clients).
        for (_, b) in self.bulks.iter().filter(|(p, _)| *p == index) {
            b.begin_step(0, spec.n_clients);
        }
    }

    /// The phase's own protocol (`http2`, `streams`, `pipeline`) when it is not the
    /// run's: the engine's connections are made per step.
    fn engine(&self, index: usize, run: &EngineConfig) -> Option<EngineConfig> {
        let connection = self.scenario.phases.get(index)?.connection;
        (connection != run.connection).then(|| EngineConfig {
            connection,
            ..run.clone()
        })
    }

    fn after_step(&self, index: usize, result: &mut StepResult) {
        self.clock_started(index, result);
        let late = self.late.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(l) = late.get(index).copied().flatten() {
            result.start_late_s = Some(l);
        }
        let sql = self.before_sql.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(sql) = sql.get(index).cloned().flatten() {
            result.before_step = Some(match result.before_step.take() {
                // The shell's `before` ran first: the SQL's failure joins its record.
                Some(mut shell) => {
                    if let Some(e) = sql.error {
                        shell.ok = false;
                        shell.error = Some(match shell.error {
                            Some(s) => format!("{s}; {}: {e}", sql.command),
                            None => format!("{}: {e}", sql.command),
                        });
                    }
                    shell
                }
                None => sql,
            });
        }
    }
}

/// Check the scenario's workloads (read the patterns, resolve the hosts) and build
/// the run. `stop` ends it early (Ctrl-C), and a failed event with
/// `on_failure = "stop"` triggers it.
pub fn build(
    scenario: Scenario,
    output_path: Option<PathBuf>,
    command_line: Vec<String>,
    stop: Stop,
    sharding: Sharding,
) -> Result<SuiteReady, SuiteError> {
    let path = scenario.path.display().to_string();
    check_targets(&scenario, &path)?;
    let shard = sharding.shard;
    // Each shard draws its own requests (and mix parts), reproducibly from the one seed.
    let seed = scenario.seed.unwrap_or_else(clock_seed);
    let seed = shard.map_or(seed, |k| crate::rng::derive(seed, u64::from(k.index)));
    let Built {
        phases,
        first,
        bulks,
        verified,
        loads,
        load_requests,
        tls,
        n_patterns,
    } = super::workloads::workloads(&scenario, &path, seed, shard, &command_line)?;
    let first = first.unwrap_or_else(|| super::workloads::plain_ready(&command_line));
    // Each part's requests counted under its workload, as the result names it.
    let names: Vec<Vec<String>> = (scenario.phases.iter())
        .map(|p| p.workloads.iter().map(|w| w.source.describe()).collect())
        .collect();
    let mix = Arc::new(Mix::new(phases, seed).with_names(&names));
    let steps = phase_steps(&scenario, &load_requests, shard, &path)?;
    let start_at =
        start_moment(sharding.start_at, &steps, 1).map_err(|why| SuiteError::StartAt {
            path: path.clone(),
            why: Box::new(why),
        })?;
    let most_clients = steps.iter().map(|s| s.n_clients).max().unwrap_or(1);
    let mut engine = first.engine.clone();
    engine.tls = tls;
    // A shard sends its lane of each open-model phase's timetable.
    engine.lane = shard.map_or(Lane::ALL, |k| {
        Lane::shard(u64::from(k.index - 1), u64::from(k.count))
    });
    let mut settings = first.run.settings.clone();
    settings.duration_s = None;
    settings.model = if steps.iter().any(|s| s.rate.is_some()) {
        LoadModel::Open
    } else {
        LoadModel::Closed
    };
    settings.seed = seed;
    settings.patterns_source = path.clone();
    settings.n_patterns = n_patterns;
    settings.threads = engine.threads.min(most_clients);
    settings.shard = shard;
    settings.start_at = start_at.map(crate::sysinfo::rfc3339);
    let hooks = Arc::new(SuiteHooks {
        mix: mix.clone(),
        bulks,
        loads,
        scenario: scenario.clone(),
        stop,
        t0: Mutex::new(None),
        t0_wall: Mutex::new(None),
        starts: Mutex::new(Vec::new()),
        events: Mutex::new(None),
        start_at,
        late: Mutex::new(Vec::new()),
        first_shard: shard.is_none_or(|k| k.index == 1),
        before_sql: Mutex::new(Vec::new()),
    });
    let run = RunSpec {
        mode: Mode::Suite,
        command_line: first.run.command_line.clone(),
        steps,
        interval: Duration::ZERO,
        settings,
        outputs: output_path.map(|p| Outputs::beside(&p, CsvFormat::Full)),
        prober: None,
        probe_pid: None,
        rounds: 1,
        warmup: None,
        // A phase without a single response is a finding of the scenario, not its end.
        keep_going: true,
        until_saturated: false,
        hooks: Some(hooks.clone()),
        // The phases' own starts (gaps included) are waited for by the hooks.
        start_at: None,
        // Each phase's `before`, run and recorded as `--before-step`'s is.
        before: crate::runner::before::Before {
            by_step: scenario.phases.iter().map(|p| p.before.clone()).collect(),
            shown: crate::spec::before::shown(
                (scenario.phases.iter()).filter_map(|p| p.before.as_ref().map(|b| &b.command)),
            ),
            ..Default::default()
        },
        // Each phase draws its own requests (the runner numbers them from here).
        first_draw: 0,
    };
    Ok(SuiteReady {
        scenario,
        run,
        workload: mix,
        engine,
        hooks,
        verified,
    })
}

impl SuiteReady {
    /// `--probe`: read before and after each phase — PostgreSQL from the scenario's
    /// `postgres://` targets, every other probe from its other targets.
    pub fn with_probes(&mut self, kinds: Vec<crate::probe::ProbeKind>) -> Result<(), String> {
        if kinds.is_empty() {
            return Ok(());
        }
        let targets = crate::engine::Workload::targets(&*self.workload);
        let databases = crate::probe::databases(targets);
        if let Some(why) = crate::probe::missing(&kinds, &databases) {
            return Err(why);
        }
        let hosts = targets
            .iter()
            .filter(|t| !databases.iter().any(|d| d.label() == t.label()))
            .map(|t| t.label())
            .collect();
        self.run.prober = Some(crate::probe::Prober {
            kinds,
            hosts,
            timeout: Duration::from_secs(5),
            databases,
        });
        Ok(())
    }
}

/// The processes `[targets]` names by pid are there.
fn check_targets(scenario: &Scenario, path: &str) -> Result<(), SuiteError> {
    for (name, t) in &scenario.targets {
        if let TargetPid::Pid(pid) = t {
            ProcessWatch::check(*pid).map_err(|_| SuiteError::NoProcess {
                path: path.to_owned(),
                name: name.clone(),
                pid: *pid,
            })?;
        }
    }
    Ok(())
}

/// Each phase a step of the runner: its clients (this machine's share), its duration
/// or a YCSB load's record count, its rate.
fn phase_steps(
    scenario: &Scenario,
    load_requests: &[Option<u64>],
    shard: Option<Shard>,
    path: &str,
) -> Result<Vec<StepSpec>, SuiteError> {
    let mut steps: Vec<StepSpec> = scenario
        .phases
        .iter()
        .zip(load_requests)
        .map(|(p, load)| StepSpec {
            n_clients: p.clients,
            duration: Some(p.duration),
            // A YCSB load ends when every record is sent (or at its duration).
            n_requests: *load,
            rate: p.rate.as_ref().map(|r| {
                Arc::new(
                    crate::spec::parse_profile(r, Some(p.duration))
                        .expect("checked with the scenario"),
                )
            }),
        })
        .collect();
    if let Some(k) = shard {
        for (step, phase) in steps.iter_mut().zip(&scenario.phases) {
            share_step(step, k).map_err(|why| SuiteError::Shard {
                path: path.to_owned(),
                phase: phase.name.clone(),
                why: Box::new(why),
            })?;
        }
    }
    Ok(steps)
}

/// Each SQL database the phases name, logged in to once before any load: a
/// password missing or refused, a server not listening, a database not there are
/// the scenario's error (exit 2), not a first phase of nothing but failed logins.
/// Up to the first phase with a `before` command: it may start the server.
fn log_in_once(scenario: &Scenario, path: &str, timeout: Duration) -> Result<(), SuiteError> {
    let mut seen: Vec<&str> = Vec::new();
    for phase in scenario.phases.iter().take_while(|p| p.before.is_none()) {
        for (j, w) in phase.workloads.iter().enumerate() {
            let url = match &w.source {
                Source::Script { url, .. } => url.as_str(),
                Source::Ycsb(y) if crate::workload::ycsb::sql::is_sql(&y.url) => y.url.as_str(),
                _ => continue,
            };
            if seen.contains(&url) {
                continue;
            }
            seen.push(url);
            crate::workload::ycsb::sql::log_in(url, timeout).map_err(|why| {
                SuiteError::SqlLogin {
                    path: path.to_owned(),
                    phase: phase.name.clone(),
                    index: j + 1,
                    source_name: w.source.describe(),
                    why,
                }
            })?;
        }
    }
    Ok(())
}

/// Run the phases, then add the events and the recovery after each, and write the
/// result once more.
pub fn run(
    ready: &SuiteReady,
    stop: &Stop,
    observer: &mut dyn Observer,
) -> Result<RunResult, RunError> {
    let path = ready.scenario.path.display().to_string();
    let count_timeout = ready.scenario.timeout.unwrap_or(Duration::from_secs(10));
    log_in_once(&ready.scenario, &path, count_timeout)?;
    let mut before = Vec::with_capacity(ready.verified.len());
    for (_, b) in &ready.verified {
        before.push(verify::present(b.settings(), count_timeout).map_err(|why| {
            SuiteError::VerifyBefore {
                path: path.clone(),
                why,
            }
        })?);
    }
    let result = crate::runner::run(&ready.run, &ready.workload, &ready.engine, stop, observer);
    // Whatever happened to the run, the events' threads end here.
    let running = ready
        .hooks
        .events
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .take();
    let stopped_by = running.as_ref().and_then(|r| {
        r.stopped_by
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    });
    let outcomes = running.map(events::Running::finish).unwrap_or_default();
    let mut run = result?;
    let starts = ready
        .hooks
        .starts
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .clone();
    let mut suite = SuiteResult {
        scenario: ready.scenario.path.display().to_string(),
        phases: ready
            .scenario
            .phases
            .iter()
            .zip(&starts)
            .zip(&ready.run.steps)
            .map(|((p, start), step)| PhaseResult {
                name: p.name.clone(),
                start_s: *start,
                duration_s: p.duration.as_secs_f64(),
                rate: p.rate.clone(),
                // This machine's share when sharded; `merge` adds them up.
                clients: step.n_clients,
                workloads: p
                    .workloads
                    .iter()
                    .map(|w| WorkloadResult {
                        source: w.source.describe(),
                        weight: w.weight,
                    })
                    .collect(),
                http2_streams: (p.connection.http2).then_some(p.connection.streams),
                pipeline: p.pipeline,
                store_commands: store_commands(p),
            })
            .collect(),
        events: if outcomes.is_empty() {
            // The run ended before its first phase: no event ran.
            ready
                .scenario
                .events
                .iter()
                .map(|e| crate::result::suite::EventResult {
                    name: e.name.clone(),
                    at_s: e.at.as_secs_f64(),
                    run: crate::redact::Redactor::default().shell_command(&e.run),
                    ..Default::default()
                })
                .collect()
        } else {
            outcomes
        },
        recovery_criteria: Some(ready.scenario.recovery),
        verify: Vec::new(),
    };
    // The steps that ran are the phases that started.
    suite.phases.truncate(run.steps.len());
    // After the last phase (and the recovery it gave): acknowledged against present.
    for ((phase, b), before) in ready.verified.iter().zip(before) {
        let acknowledged: u64 = run
            .steps
            .get(*phase)
            .and_then(|s| s.items.as_ref())
            .map_or(0, |i| i.ok);
        let url = verify::count_url(b.settings());
        // Requests cut off at the phase's end may have been written: at most this many
        // documents (the phase's unfinished requests, reads among them, times the batch).
        let in_flight = run
            .steps
            .get(*phase)
            .map_or(0, |s| s.unfinished * b.batch_size(0));
        // A server restarted by the scenario may still be coming back: a few tries.
        let mut last = Err(String::new());
        for _ in 0..20 {
            last = verify::present(b.settings(), count_timeout);
            if last.is_ok() {
                break;
            }
            std::thread::sleep(Duration::from_millis(250));
        }
        suite.verify.push(match last {
            Ok(after) => SuiteVerify {
                phase: suite
                    .phases
                    .get(*phase)
                    .map(|p| p.name.clone())
                    .unwrap_or_default(),
                result: Some(verify::compare(url, acknowledged, in_flight, before, after)),
                error: None,
            },
            Err(why) => SuiteVerify {
                phase: suite
                    .phases
                    .get(*phase)
                    .map(|p| p.name.clone())
                    .unwrap_or_default(),
                result: None,
                error: Some(why),
            },
        });
    }
    run.suite = Some(suite);
    add_recovery(&mut run, &ready.scenario);
    if let Some(why) = stopped_by {
        run.stop_reason = Some(why);
        run.state = RunState::Failed;
    }
    if let Some(out) = &ready.run.outputs {
        crate::runner::write_outputs(&run, out);
    }
    Ok(run)
}

/// The recovery after each event that ran and asked for it.
fn add_recovery(run: &mut RunResult, scenario: &Scenario) {
    let points = recovery::points(run);
    let Some(suite) = run.suite.as_mut() else {
        return;
    };
    let events: Vec<(f64, bool)> = suite
        .events
        .iter()
        .zip(&scenario.events)
        .map(|(r, e)| {
            (
                r.started_s.unwrap_or(r.at_s),
                e.measure_recovery && r.started_s.is_some(),
            )
        })
        .collect();
    let found = recovery::analyse(&points, &events, &scenario.recovery);
    for (r, f) in suite.events.iter_mut().zip(found) {
        r.recovery = f;
    }
}

/// A phase of YCSB alone over Redis or memcached: its operations as its table per
/// command lists them; none for any other phase (a mix's labels name its workloads).
fn store_commands(p: &super::scenario::Phase) -> Vec<crate::result::StoreCommand> {
    match p.workloads.as_slice() {
        [w] => match &w.source {
            super::scenario::Source::Ycsb(y) if crate::http::url::kv_scheme(&y.url).is_some() => {
                crate::workload::ycsb::store_commands(y.core)
            }
            _ => Vec::new(),
        },
        _ => Vec::new(),
    }
}

/// The step results of a suite run with their phase names, for printing.
pub fn phases_of(run: &RunResult) -> Vec<(&str, &StepResult)> {
    match &run.suite {
        Some(s) => s
            .phases
            .iter()
            .map(|p| p.name.as_str())
            .zip(&run.steps)
            .collect(),
        None => Vec::new(),
    }
}

fn clock_seed() -> u64 {
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    t.as_nanos() as u64 ^ u64::from(std::process::id()).rotate_left(32)
}
