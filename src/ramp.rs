//! The progressive runner: steps of growing load, an interval between them, and the
//! result files rewritten after every step so an interrupted run keeps every finished
//! step. `hakaru run` is a ramp of one step.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use crate::engine::{self, EngineConfig, Progress, StepSpec, Stop};
use crate::plan::Plan;
use crate::report::csv::{to_csv, CsvFormat};
use crate::report::json::to_json;
use crate::report::write_atomic;
use crate::result::{RunResult, Settings, StepFacts, StepResult, SCHEMA_VERSION};
use crate::sysinfo;

/// Where a run writes its result files.
#[derive(Debug, Clone)]
pub struct Outputs {
    pub csv: PathBuf,
    pub json: PathBuf,
    pub format: CsvFormat,
}

impl Outputs {
    /// The CSV and JSON result sit side by side: `x.csv` and `x.json` from either name.
    pub fn beside(path: &Path, format: CsvFormat) -> Outputs {
        let (csv, json) = if path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("json"))
        {
            (path.with_extension("csv"), path.to_path_buf())
        } else {
            (path.to_path_buf(), path.with_extension("json"))
        };
        Outputs { csv, json, format }
    }
}

/// A whole run: which steps, how far apart, where the results go.
pub struct RunSpec {
    /// "run" or "ramp".
    pub mode: String,
    pub command_line: Vec<String>,
    pub steps: Vec<StepSpec>,
    pub interval: Duration,
    pub settings: Settings,
    pub outputs: Option<Outputs>,
}

/// What the runner tells whoever shows the run to a person.
pub trait Observer {
    fn step_started(&mut self, _index: usize, _of: usize, _spec: &StepSpec) {}
    fn progress(&mut self, _spec: &StepSpec, _p: Progress) {}
    fn step_finished(&mut self, _run: &RunResult, _step: &StepResult) {}
    fn interval(&mut self, _d: Duration) {}
}

/// An observer that shows nothing (tests, library use).
pub struct Quiet;
impl Observer for Quiet {}

#[derive(Debug, thiserror::Error)]
pub enum RampError {
    #[error("cannot write result file {path}: {source}")]
    Write {
        path: String,
        source: std::io::Error,
    },
}

/// Run every step; write the results after each. Returns the run (partial if stopped).
pub fn run(
    spec: &RunSpec,
    plan: &Arc<Plan>,
    engine_cfg: &EngineConfig,
    stop: &Stop,
    observer: &mut dyn Observer,
) -> Result<RunResult, RampError> {
    let machine = sysinfo::machine();
    let cpus = machine.cpus;
    let targets = plan.target_labels();
    let mut run = RunResult {
        schema_version: SCHEMA_VERSION,
        tool: format!("hakaru {}", env!("CARGO_PKG_VERSION")),
        command_line: spec.command_line.clone(),
        mode: spec.mode.clone(),
        started_at: sysinfo::now_rfc3339(),
        partial: false,
        settings: spec.settings.clone(),
        machine,
        targets: targets.clone(),
        requests: plan.request_infos(),
        steps: Vec::with_capacity(spec.steps.len()),
    };
    for (i, step) in spec.steps.iter().enumerate() {
        if i > 0 && !spec.interval.is_zero() {
            observer.interval(spec.interval);
            if stop.sleep(spec.interval) {
                break;
            }
        }
        if stop.is_triggered() {
            break;
        }
        observer.step_started(i, spec.steps.len(), step);
        let measured = engine::run_step(plan, engine_cfg, step, stop, &mut |p| {
            observer.progress(step, p)
        });
        let facts = StepFacts {
            n_clients: step.n_clients.max(1),
            rate: step.rate,
            started_at: measured.started_at,
            elapsed_s: measured.elapsed.as_secs_f64(),
            partial: measured.partial,
            client_cpu_s: measured.cpu_s,
            cpus,
        };
        let result =
            StepResult::from_recorder(facts, &measured.recorder, &targets, step.rate.is_some());
        run.partial |= result.partial;
        run.steps.push(result);
        if let Some(out) = &spec.outputs {
            write_outputs(&run, out)?;
        }
        observer.step_finished(&run, run.steps.last().expect("just pushed"));
        if stop.is_triggered() {
            break;
        }
    }
    if run.steps.len() < spec.steps.len() {
        run.partial = true;
        if let Some(out) = &spec.outputs {
            write_outputs(&run, out)?;
        }
    }
    Ok(run)
}

fn write_outputs(run: &RunResult, out: &Outputs) -> Result<(), RampError> {
    let write = |path: &Path, bytes: &[u8]| {
        write_atomic(path, bytes).map_err(|source| RampError::Write {
            path: path.display().to_string(),
            source,
        })
    };
    write(&out.json, to_json(run).as_bytes())?;
    write(&out.csv, to_csv(run, out.format).as_bytes())
}

/// drnbench's steps: from `start` to `end` by `step`, where 0 clients means 1.
/// Unlike drnbench, `--start-n-clients=0 --step=1` runs the 1-client step once, not twice.
pub fn client_steps(start: usize, end: usize, step: usize) -> Vec<usize> {
    let mut steps: Vec<usize> = (start..=end)
        .step_by(step.max(1))
        .map(|n| n.max(1))
        .collect();
    steps.dedup();
    steps
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tutorial_steps() {
        assert_eq!(
            client_steps(0, 20, 2),
            vec![1, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20]
        );
        assert_eq!(client_steps(1, 32, 1).len(), 32);
        assert_eq!(client_steps(5, 5, 3), vec![5]);
        assert_eq!(client_steps(0, 3, 1), vec![1, 2, 3]);
    }

    #[test]
    fn outputs_sit_side_by_side() {
        let o = Outputs::beside(Path::new("out/groonga-result.csv"), CsvFormat::Full);
        assert_eq!(o.json, Path::new("out/groonga-result.json"));
        let o = Outputs::beside(Path::new("r.json"), CsvFormat::Full);
        assert_eq!(o.csv, Path::new("r.csv"));
    }
}
