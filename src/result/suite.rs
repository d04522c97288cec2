//! What a scenario (`hakaru suite`) adds to a result: its phases (one step each, in
//! order), the events that ran with what their commands did, and the recovery after
//! each. The per-second numbers are in each step's `timeline`; a phase's `start_s`
//! places them on the scenario's clock.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::recovery::{Criteria, Recovery};

/// A scenario run.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, JsonSchema)]
pub struct SuiteResult {
    /// The scenario file, or `profile:NAME` for a built-in one.
    pub scenario: String,
    /// One per step of the run, in order.
    pub phases: Vec<PhaseResult>,
    /// In time order.
    pub events: Vec<EventResult>,
    /// What counted as recovered.
    pub recovery_criteria: Option<Criteria>,
    /// Bulk writers with `verify = true`: documents acknowledged against those the
    /// server holds, read before the first phase and after the last.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub verify: Vec<SuiteVerify>,
}

/// One bulk workload's check.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, JsonSchema)]
pub struct SuiteVerify {
    /// The phase it wrote in.
    pub phase: String,
    pub result: Option<super::VerifyResult>,
    /// Why the count could not be read after the last phase.
    pub error: Option<String>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, JsonSchema)]
pub struct PhaseResult {
    pub name: String,
    /// When the phase's step began, seconds from the scenario's start.
    pub start_s: f64,
    /// Its planned length, seconds.
    pub duration_s: f64,
    /// Open model: the rate as written (`500`, `100..2000`).
    pub rate: Option<String>,
    /// Closed model: clients; open model: the most connections.
    pub clients: usize,
    /// The mix: each workload's source (patterns file or URL) and weight.
    pub workloads: Vec<WorkloadResult>,
    /// `http2 = true`: the clients that shared one connection (`streams`), the phase's
    /// own or the scenario's. Absent when the phase did not ask for HTTP/2; what its
    /// connections spoke is in its step (`connections_http2`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub http2_streams: Option<usize>,
    /// `pipeline = N` on a key-value target: commands in flight on each connection.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pipeline: Option<u64>,
    /// A phase of YCSB over Redis or memcached: its operations and which of them read
    /// (`read`, `scan`), for its table per command (hits and misses of reads) as `run`
    /// keeps them in `settings.store_commands`. A read-modify-write, both at once, is
    /// not listed: its reads' hits are not told apart from its writes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub store_commands: Vec<super::StoreCommand>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, JsonSchema)]
pub struct WorkloadResult {
    pub source: String,
    pub weight: u32,
}

/// An event of the scenario and what its command did.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, JsonSchema)]
pub struct EventResult {
    pub name: String,
    /// Planned time, seconds from the scenario's start.
    pub at_s: f64,
    /// The command as written (`kill -STOP {pid:node1}`).
    pub run: String,
    /// The command as run, placeholders filled in; absent when it never ran.
    pub command: Option<String>,
    /// When it started, seconds from the scenario's start; absent when it never ran
    /// (the scenario ended first).
    pub started_s: Option<f64>,
    /// How long it ran, seconds.
    pub duration_s: Option<f64>,
    pub exit_code: Option<i32>,
    /// It ran and exited with status 0.
    pub ok: bool,
    /// Why it failed: its stderr's end, a signal, a timeout, a PID that could not be read.
    pub error: Option<String>,
    /// The recovery after it, when measured.
    pub recovery: Option<Recovery>,
}

/// One second on the scenario's clock, from a phase's timeline.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ScenarioSecond {
    /// Index of the phase (and step).
    pub phase: usize,
    /// Start, seconds from the scenario's start.
    pub t_s: f64,
    /// How much of the second the phase lasted (its last second is often a sliver).
    pub width_s: f64,
    /// Responses, any status.
    pub responses: u64,
    /// Responses with a 2xx or 3xx status.
    pub ok: u64,
    /// Requests that ended without a response.
    pub errors: u64,
    pub p50_s: f64,
    pub p99_s: f64,
}

impl ScenarioSecond {
    /// 2xx/3xx responses per second.
    pub fn throughput(&self) -> f64 {
        self.ok as f64 / self.width_s.max(1e-3)
    }

    pub fn total(&self) -> u64 {
        self.responses + self.errors
    }
}

/// Below this share of a second, a phase's last second joins the one before it: a
/// few milliseconds of counts are no second of their own.
const SLIVER_S: f64 = 0.5;

/// Every phase's timeline laid end to end on the scenario's clock (a suite run; empty
/// for others). A last second shorter than half a second is folded into the one
/// before it (its p99 then the larger of the two).
pub fn scenario_seconds(run: &super::RunResult) -> Vec<ScenarioSecond> {
    let Some(suite) = &run.suite else {
        return Vec::new();
    };
    let mut out: Vec<ScenarioSecond> = Vec::new();
    for (i, (step, phase)) in run.steps.iter().zip(&suite.phases).enumerate() {
        let Some(timeline) = &step.timeline else {
            continue;
        };
        let first = out.len();
        for s in timeline {
            let k = s.second as f64;
            let width = (step.elapsed_s - k).clamp(0.0, 1.0);
            let this = ScenarioSecond {
                phase: i,
                t_s: phase.start_s + k,
                width_s: width,
                responses: s.responses,
                ok: s.ok(),
                errors: s.error_total(),
                p50_s: s.p50_s,
                p99_s: s.p99_s,
            };
            let fold = width < SLIVER_S && out.len() > first;
            match out.last_mut() {
                Some(prev) if fold => {
                    prev.width_s += width;
                    prev.responses += this.responses;
                    prev.ok += this.ok;
                    prev.errors += this.errors;
                    prev.p99_s = prev.p99_s.max(this.p99_s);
                }
                _ => out.push(this),
            }
        }
    }
    out
}
