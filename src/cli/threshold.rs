//! `--threshold EXPR` and `--junit PATH`, shared by every command that measures or
//! reads a result (`run`, `ramp`, `ab`, `bulk`, `merge`, `report`): the flags, and the
//! glue that judges a finished run, keeps the verdicts in its result files, writes the
//! JUnit file and turns a failed threshold into exit code 1.

use std::path::PathBuf;

use anyhow::Context;
use clap::Args;

use crate::result::store::Outputs;
use crate::result::RunResult;
use crate::spec::threshold::{parse_threshold, Threshold, ThresholdUseError};

#[derive(Args, Debug, Clone, Default)]
pub struct ThresholdArgs {
    /// Fail (exit 1) unless this holds over the whole run and in every step:
    /// p99<200ms, p50<=10ms, p99.9<1s, mean<20ms, errors<0.1% (share of requests
    /// without a response or with a status outside 200-399), errors<=0 (a count),
    /// qps>1000, docs_per_s>5k (bulk). Repeatable; printed as a pass/fail table and
    /// kept in the JSON result.
    #[arg(long = "threshold", value_name = "EXPR", value_parser = parse_threshold)]
    pub thresholds: Vec<Threshold>,

    /// Write the thresholds' verdicts as JUnit XML here, for CI (one test suite for the
    /// whole run, one per step, a test case per threshold).
    #[arg(long, value_name = "PATH", requires = "thresholds")]
    pub junit: Option<PathBuf>,
}

impl ThresholdArgs {
    /// Refuses, before any load, a threshold the command cannot measure.
    pub fn check(&self, bulk: bool) -> Result<(), ThresholdUseError> {
        Threshold::check_for(&self.thresholds, "--threshold", bulk)
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
