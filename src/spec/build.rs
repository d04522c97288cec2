//! The options checked and built into the runner's inputs ([`Ready`]): the steps
//! (this machine's share of them with `--shard`), the workload by the URL's kind, the
//! engine's configuration and the settings the result records.

use std::sync::Arc;
use std::time::Duration;

use crate::engine::{EngineConfig, Lane, StepSpec};
use crate::http::url::kv_scheme;
use crate::plan::{Defaults, Plan};
use crate::probe::{ProbeKind, Prober, ProcessWatch};
use crate::redact::Redactor;
use crate::result::store::Outputs;
use crate::result::{LoadModel, Mode, Settings};
use crate::runner::RunSpec;
use crate::workload::kv::RunWorkload;
use crate::workload::PlanWorkload;

use super::{
    at_most_duration, clock_seed, kv, share_step, sql, start_moment, sysbench, Body, Load,
    RunOptions, SpecError, COALESCE_NEEDS_PLAIN, MAX_STEPS,
};

/// A validated run, ready for [`crate::runner::run`].
pub struct Ready {
    /// Steps, interval, rounds, warm-up, probes, outputs and the settings recorded in the result.
    pub run: RunSpec,
    pub workload: Arc<RunWorkload>,
    pub engine: EngineConfig,
}

impl Ready {
    /// Open model (`--rate`): requests go out on a timetable, and a ramp's steps differ by
    /// rate, not by clients.
    pub fn open_model(&self) -> bool {
        self.run.steps.iter().any(|s| s.rate.is_some())
    }
}

impl RunOptions {
    /// The checks that need nothing from outside: every number, duration, rate and header.
    pub fn check(&self) -> Result<(), SpecError> {
        let steps = self.shared(self.steps()?)?;
        start_moment(self.session.start_at, &steps, self.session.rounds).map(|_| ())
    }

    /// This machine's part of the steps when it is one shard of many (`--shard`).
    fn shared(&self, mut steps: Vec<StepSpec>) -> Result<Vec<StepSpec>, SpecError> {
        if let Some(shard) = self.session.shard {
            for step in &mut steps {
                share_step(step, shard)?;
            }
        }
        Ok(steps)
    }

    /// Validate the options and build the run: read the patterns (and body) files,
    /// resolve the hosts, load TLS roots, check the probed process. Sends nothing.
    pub fn build(&self) -> Result<Ready, SpecError> {
        // The settings record the whole plan; the steps run are this machine's share.
        let whole = self.steps()?;
        let steps = self.shared(whole.clone())?;
        let r = &self.request;
        let s = &self.session;
        let start_at = start_moment(s.start_at, &steps, s.rounds)?;
        let redactor = Redactor::new(&r.secret_headers).with_params(&r.secret_params);
        // Each shard draws its own requests, reproducibly from the one seed.
        let seed = r.seed.unwrap_or_else(clock_seed);
        let seed = s
            .shard
            .map_or(seed, |k| crate::rng::derive(seed, u64::from(k.index)));
        let (workload, described) = self.workload(&redactor, seed)?;
        let tls = if described.uses_tls || r.insecure || r.cacert.is_some() {
            Some(
                crate::http::tls_connector(r.insecure, r.cacert.as_deref())
                    .map_err(SpecError::Tls)?,
            )
        } else {
            None
        };
        if let Some(pid) = s.probe_pid {
            ProcessWatch::check(pid).map_err(SpecError::ProbePid)?;
        }
        let threads = if r.threads == 0 {
            crate::sysinfo::cpus()
        } else {
            r.threads
        };
        let most_clients = steps.iter().map(|s| s.n_clients).max().unwrap_or(1);
        let warmup = s.warmup.filter(|w| !w.is_zero());
        let settings = Settings {
            duration_s: whole[0].duration.map(|d| d.as_secs_f64()),
            n_requests: whole[0].n_requests,
            interval_s: self.interval.as_secs_f64(),
            wait_s: r.wait.as_secs_f64(),
            timeout_s: r.timeout.as_secs_f64(),
            keep_alive: r.keep_alive,
            model: if steps.iter().any(|s| s.rate.is_some()) {
                LoadModel::Open
            } else {
                LoadModel::Closed
            },
            order: r.order.into(),
            seed,
            patterns_source: described.source,
            n_patterns: described.n_patterns,
            patterns_sha256: described.digest,
            request_list: r.request_list,
            insecure: r.insecure,
            // A worker without a client would idle: the engine runs at most one per client.
            threads: threads.min(most_clients.max(1)),
            planned_cache_hit_rate: s.expect_cache_hit_rate,
            warmup_s: warmup.map(|w| w.as_secs_f64()),
            rounds: s.rounds,
            bulk: None,
            shard: s.shard,
            merged: None,
            start_at: start_at.map(crate::sysinfo::rfc3339),
            http2_streams: r.connection.http2.then_some(r.connection.streams),
            pipeline: r.kv.pipeline,
            coalesce_us: r.connection.coalesce.map(|d| d.as_micros() as u64),
            store_commands: workload.store_commands(),
            sql_statements: workload.sql_statements(),
        };
        let databases = crate::probe::databases(crate::engine::Workload::targets(&workload));
        if let Some(why) = crate::probe::missing(&s.probes, &databases) {
            return Err(SpecError::Kv(why));
        }
        let prober = (!s.probes.is_empty()).then(|| Prober {
            kinds: s.probes.clone(),
            // The probes speak plain HTTP only.
            hosts: described.probe_hosts,
            timeout: r.timeout.min(Duration::from_secs(5)),
            databases,
        });
        let engine = EngineConfig {
            threads,
            wait: r.wait,
            keep_alive: r.keep_alive,
            n_slow: r.n_slow,
            n_fast: r.n_fast,
            tls,
            lane: s.shard.map_or(Lane::ALL, |k| {
                Lane::shard(u64::from(k.index - 1), u64::from(k.count))
            }),
            ok_status: r.ok_status,
            label_feed: None,
            skip_late: None,
            budget_per_client: false,
            connection: kv::connection(r),
            time_first_byte: r.time_first_byte,
            login_timeout: r.timeout,
        };
        let run = RunSpec {
            mode: match self.load {
                Load::Step { .. } => Mode::Run,
                Load::Clients { .. } | Load::Rates { .. } => Mode::Ramp,
            },
            // Secret header values go on the wire, never into results.
            command_line: redactor.command_line(&self.command_line),
            steps,
            interval: self.interval,
            settings,
            outputs: self
                .output_path
                .as_ref()
                .map(|p| Outputs::beside(p, r.format)),
            prober,
            probe_pid: s.probe_pid,
            rounds: s.rounds,
            warmup,
            keep_going: s.keep_going,
            until_saturated: matches!(
                self.load,
                Load::Clients {
                    until_saturated: true,
                    ..
                }
            ),
            hooks: None,
            start_at,
            before: s.before.runner(),
            first_draw: 0,
        };
        Ok(Ready {
            run,
            workload: Arc::new(workload),
            engine,
        })
    }

    /// The run's workload: a sysbench test, or by its URL's scheme a SQL database's
    /// scripts, a key-value store's commands, or the patterns' requests.
    fn workload(
        &self,
        redactor: &Redactor,
        seed: u64,
    ) -> Result<(RunWorkload, kv::Described), SpecError> {
        let (r, s) = (&self.request, &self.session);
        if let Some(load) = &r.sysbench {
            let (w, d) = sysbench::build(load, r, seed)?;
            return Ok((RunWorkload::Sysbench(Box::new(w)), d));
        }
        let sql_url = r.url.as_deref().filter(|u| sql::is_sql(u));
        match r.url.as_deref().filter(|u| kv_scheme(u).is_some()) {
            _ if sql_url.is_some() => {
                let url = sql_url.expect("matched above");
                let password = sql::env_password(url);
                let (w, d) = sql::build(url, r, seed, password)?;
                Ok((RunWorkload::Sql(Box::new(w)), d))
            }
            Some(url) => {
                if let Some(why) = s
                    .probes
                    .contains(&ProbeKind::Redis)
                    .then(|| kv::probe_refusal(url))
                    .flatten()
                {
                    return Err(SpecError::Kv(format!("--probe redis: {why}")));
                }
                let (w, d) = kv::build(url, r, seed)?;
                Ok((RunWorkload::Kv(Box::new(w)), d))
            }
            None => {
                kv::check_unused(&r.kv, r.url.as_deref())?;
                self.plan_workload(redactor, seed)
            }
        }
    }

    /// The request-response workload: the patterns read, the plan built and redacted.
    fn plan_workload(
        &self,
        redactor: &Redactor,
        seed: u64,
    ) -> Result<(RunWorkload, kv::Described), SpecError> {
        let r = &self.request;
        let set = r.patterns()?;
        let body = match &r.body {
            Some(Body::Text(b)) => Some(b.clone().into_bytes()),
            Some(Body::File(p)) => Some(std::fs::read(p).map_err(|why| SpecError::BodyFile {
                path: p.display().to_string(),
                why,
            })?),
            None => None,
        };
        let defaults = Defaults {
            hosts: r
                .hosts
                .iter()
                .map(|h| h.trim().to_string())
                .filter(|h| !h.is_empty())
                .collect(),
            port: r.port,
            path: r.path.clone(),
            method: r.method.clone(),
            timeout: r.timeout,
            https: r.https,
            headers: r.parsed_headers()?,
            body,
            content_type: r.content_type.clone(),
            keep_alive: r.keep_alive,
            http10: r.http10,
            // A URL on the command line names its own host; a file's hosts need leave.
            allow_pattern_hosts: r.allow_pattern_hosts || r.patterns_file.is_none(),
        };
        let mut plan = Plan::build(&set, &defaults)?;
        if r.connection.coalesce.is_some() && plan.uses_tls() {
            // TLS reads go through rustls, not the stamped receive.
            return Err(SpecError::Coalesce(COALESCE_NEEDS_PLAIN));
        }
        plan.redact_with(redactor.clone());
        let described = kv::Described {
            source: plan.source.clone(),
            n_patterns: plan.n_patterns,
            digest: plan.digest.clone(),
            uses_tls: plan.uses_tls(),
            probe_hosts: plan
                .targets
                .iter()
                .filter(|t| !t.https)
                .map(|t| t.label())
                .collect(),
        };
        let workload = PlanWorkload {
            plan: Arc::new(plan),
            order: r.order,
            seed,
        };
        Ok((RunWorkload::Plan(workload), described))
    }

    /// Every pure check, in the order a user would fix them (the load's shape first);
    /// returns the steps.
    fn steps(&self) -> Result<Vec<StepSpec>, SpecError> {
        let steps = self.load.steps()?;
        if matches!(
            self.load,
            Load::Clients {
                until_saturated: true,
                ..
            }
        ) && self.session.rounds > 1
        {
            return Err(SpecError::Conflict {
                flags: "--until-saturated and --rounds",
                why: "the ramp ends where the target saturates, which may differ by round",
            });
        }
        at_most_duration("--interval", self.interval)?;
        self.request.check()?;
        self.session.check()?;
        if steps.len().saturating_mul(self.session.rounds) > MAX_STEPS {
            return Err(SpecError::TooManySteps {
                rounds: self.session.rounds,
                steps: steps.len(),
            });
        }
        Ok(steps)
    }
}
