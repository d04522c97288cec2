//! `--threshold EXPR`, `--junit PATH` and `--abort-on-fail`, shared by every command
//! that measures or reads a result (`run`, `ramp`, `ab`, `bulk`, `suite`, `merge`,
//! `report`): the flags, the load run with [`crate::abort`]'s judge watching when asked,
//! and the glue that judges a finished run, keeps the verdicts in its result files,
//! writes the JUnit file and turns a failed threshold into exit code 1.

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context;
use clap::Args;

use crate::engine::{EngineConfig, Stop, Workload};
use crate::observe::Fanout;
use crate::result::store::Outputs;
use crate::result::RunResult;
use crate::runner::{Observer, RunSpec};
use crate::spec::threshold::{parse_threshold, Threshold, ThresholdUseError};
use crate::spec::Ready;

#[derive(Args, Debug, Clone, Default)]
#[command(next_help_heading = "Thresholds")]
pub struct ThresholdArgs {
    /// Fail (exit 1) unless this holds over the whole run and in every step:
    /// p99<200ms, p50<=10ms, p99.9<1s, mean<20ms, errors<0.1% (share of requests
    /// without a response or with a status outside --ok-status), errors<=0 (a count),
    /// qps>1000, docs_per_s>5k (bulk). After the metric, [10s]: every 10-second window
    /// (sliding by a second) must hold too; {group=search}: only that label's requests
    /// (keys: group, name, workload, op, host, script, stmt, command, thread; a label
    /// no request of the run can carry is refused before any load):
    /// p99[5s]{group=search}<50ms.
    /// Repeatable; printed as a pass/fail table and kept in the JSON result.
    #[arg(long = "threshold", value_name = "EXPR", value_parser = parse_threshold)]
    pub thresholds: Vec<Threshold>,

    /// Write the thresholds' verdicts as JUnit XML here, for CI (one test suite for the
    /// whole run, one per step, a test case per threshold).
    #[arg(long, value_name = "PATH", requires = "thresholds")]
    pub junit: Option<PathBuf>,

    /// End the run (exit 1, the result written and marked with the threshold and the
    /// moment) as soon as a threshold can no longer hold: a full window that fails, a
    /// max or error count past its bound, a percentile, mean or error share that fails
    /// on enough samples (1,000 for a p99), or a step that ends failing one; a label's
    /// threshold once its second ends. Commands that send load only.
    #[arg(long)]
    pub abort_on_fail: bool,
}

impl ThresholdArgs {
    /// Refuses, before any load, a threshold the command cannot measure.
    pub fn check(&self, bulk: bool) -> Result<(), ThresholdUseError> {
        if self.abort_on_fail && self.thresholds.is_empty() {
            return Err(ThresholdUseError {
                flag: "--abort-on-fail",
                text: "without --threshold".into(),
                why: "nothing to judge: give the thresholds that must hold".into(),
            });
        }
        Threshold::check_for(&self.thresholds, "--threshold", bulk)?;
        // A named label keeps its own place in the workload's labels, past the cap.
        crate::stats::labels::keep_named(self.thresholds.iter().filter_map(|t| {
            let sel = t.label.as_ref()?;
            Some(crate::stats::Label {
                key: sel.key.clone(),
                value: sel.value.clone(),
            })
        }));
        Ok(())
    }

    /// [`Self::check`] for the commands that read a finished run (`merge`, `report`).
    pub fn check_reading(&self, bulk: bool) -> Result<(), ThresholdUseError> {
        if self.abort_on_fail {
            return Err(ThresholdUseError {
                flag: "--abort-on-fail",
                text: "on a finished run".into(),
                why: "it ends a run while it sends load; merge and report judge what ran".into(),
            });
        }
        self.check(bulk)
    }

    /// [`super::run_load_with`], with `--abort-on-fail`'s judge watching too.
    pub fn run_load_with(
        &self,
        ready: &Ready,
        console: crate::console::Console,
        watchers: Fanout<'_>,
    ) -> anyhow::Result<RunResult> {
        let mut all = Fanout::new().with(console);
        all.extend(watchers);
        self.run_workload(&ready.run, &ready.workload, &ready.engine, &mut all)
    }

    /// [`super::run_workload`], with `--abort-on-fail`'s judge watching too.
    pub fn run_workload<W: Workload>(
        &self,
        run: &RunSpec,
        workload: &Arc<W>,
        engine: &EngineConfig,
        observer: &mut dyn Observer,
    ) -> anyhow::Result<RunResult> {
        Threshold::check_labels(&self.thresholds, "--threshold", &workload.labels())?;
        let stop = super::ctrl_c_stop();
        // The labels the thresholds name are timed and fed to the judge as they run.
        let feed = self.label_feed();
        let mut engine = engine.clone();
        engine.label_feed = feed.clone().or(engine.label_feed);
        self.watched_with(&stop, observer, feed, |o| {
            super::run_workload_until(run, workload, &engine, &stop, o)
        })
    }

    /// The labels the thresholds name, for the engine to time and feed
    /// ([`crate::engine::live::LabelFeed`]); None when none names one.
    fn label_feed(&self) -> Option<Arc<crate::engine::live::LabelFeed>> {
        let mut named: Vec<crate::stats::Label> = Vec::new();
        for sel in self.thresholds.iter().filter_map(|t| t.label.as_ref()) {
            let l = crate::stats::Label {
                key: sel.key.clone(),
                value: sel.value.clone(),
            };
            if !named.contains(&l) {
                named.push(l);
            }
        }
        (!named.is_empty()).then(|| Arc::new(crate::engine::live::LabelFeed::new(named)))
    }

    /// Runs the load (`go`, handed the observer to give the runner): with
    /// `--abort-on-fail`, [`crate::abort::AbortJudge`] watches after `observer` and
    /// trips `stop`, and a run it ended is marked so ([`crate::abort::record`]).
    pub fn watched(
        &self,
        stop: &Stop,
        observer: &mut dyn Observer,
        go: impl FnOnce(&mut dyn Observer) -> anyhow::Result<RunResult>,
    ) -> anyhow::Result<RunResult> {
        self.watched_with(stop, observer, None, go)
    }

    /// [`Self::watched`], the judge reading the labels `feed` carries live.
    fn watched_with(
        &self,
        stop: &Stop,
        observer: &mut dyn Observer,
        feed: Option<Arc<crate::engine::live::LabelFeed>>,
        go: impl FnOnce(&mut dyn Observer) -> anyhow::Result<RunResult>,
    ) -> anyhow::Result<RunResult> {
        if !self.abort_on_fail || self.thresholds.is_empty() {
            return go(observer);
        }
        let mut judge = crate::abort::AbortJudge::new(&self.thresholds, stop.clone());
        if let Some(feed) = feed {
            judge = judge.with_feed(feed);
        }
        let mut all = Fanout::new().with(observer).with(&mut judge);
        let run = go(&mut all);
        drop(all);
        let mut run = run?;
        if let Some(aborted) = judge.tripped() {
            crate::abort::record(&mut run, aborted);
        }
        Ok(run)
    }

    /// Judges a finished run: the verdicts go into `run` (and its files, rewritten),
    /// the JUnit file is written; returns the table to print, None without thresholds.
    pub fn judge(
        &self,
        run: &mut RunResult,
        files: Option<&Outputs>,
    ) -> anyhow::Result<Option<String>> {
        if self.thresholds.is_empty() {
            return Ok(None);
        }
        let verdicts = crate::analysis::threshold::evaluate(&self.thresholds, run);
        let table = crate::report::threshold::threshold_table(run, &verdicts);
        if let Some(path) = &self.junit {
            crate::result::store::write_atomic(
                path,
                crate::report::junit::junit_xml(run, &verdicts).as_bytes(),
            )
            .with_context(|| format!("--junit {}: cannot write", path.display()))?;
        }
        run.thresholds = Some(verdicts);
        if let Some(out) = files {
            out.write(run).map_err(|e| {
                anyhow::anyhow!(
                    "cannot write result file {}: {}",
                    e.path.display(),
                    e.source
                )
            })?;
        }
        Ok(Some(table))
    }
}

/// The exit code once thresholds are judged: a run that measured (`code` 0) but
/// missed a threshold exits 1; any other code (interrupted, failed) stands.
pub fn exit_code(run: &RunResult, code: i32) -> i32 {
    match &run.thresholds {
        Some(t) if !t.passed && code == crate::runner::exit::MEASURED => {
            let failed: Vec<&str> = t
                .thresholds
                .iter()
                .filter(|t| !t.passed)
                .map(|t| t.threshold.as_str())
                .collect();
            eprintln!(
                "hakaru: {} threshold(s) failed: {}",
                failed.len(),
                failed.join(", ")
            );
            crate::runner::exit::FAILED
        }
        _ => code,
    }
}
