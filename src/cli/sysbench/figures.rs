//! sysbench's figures from a step's result: the queries by class from its
//! `operations`, the events and their time per thread from its `thread=N` labels,
//! latency and `--percentile` from its HDR histogram, the errors sysbench ignores
//! (its events restarted: the step's retries) apart from the rest.

use crate::report::run::text::sysbench::SysbenchFigures;
use crate::result::StepResult;
use crate::spec::sysbench::SysbenchPlan;
use crate::sql::sysbench::{OTHER, READ, WRITE};

/// What the report's head needs before the run.
pub fn header(plan: &SysbenchPlan) -> SysbenchFigures {
    SysbenchFigures {
        threads: u64::from(plan.oltp.threads),
        rate: plan.rate,
        report_interval_s: plan.report_interval.map(|d| d.as_secs()),
        seed: plan.seed,
        ..SysbenchFigures::default()
    }
}

pub fn of(plan: &SysbenchPlan, step: &StepResult) -> SysbenchFigures {
    let op = |name: &str| step.operations.get(name).copied().unwrap_or(0);
    let ms = |s: f64| s * 1e3;
    let lat = &step.latency;
    let transactions = step.responses;
    let sum_ms = ms(lat.mean_s) * transactions as f64;
    let hist = crate::result::decode_histogram(&step.histogram).ok();
    let percentile = (plan.percentile > 0).then(|| {
        let p = f64::from(plan.percentile) / 100.0;
        let us = hist.as_ref().map_or(0, |h| h.value_at_quantile(p));
        (plan.percentile, us as f64 / 1e3)
    });
    let mut per_thread: Vec<(u64, f64)> = step
        .labels
        .iter()
        .filter(|l| l.key == "thread")
        .map(|l| (l.responses, l.latency.mean_s * l.latency.count as f64))
        .collect();
    if per_thread.is_empty() {
        per_thread.push((transactions, sum_ms / 1e3));
    }
    let histogram = plan.histogram.then(|| {
        hist.as_ref().map_or_else(Vec::new, |h| {
            h.iter_log(1, 1.05)
                .filter(|v| v.count_since_last_iteration() > 0)
                .map(|v| {
                    (
                        v.value_iterated_to() as f64 / 1e3,
                        v.count_since_last_iteration(),
                    )
                })
                .collect()
        })
    });
    SysbenchFigures {
        threads: u64::from(plan.oltp.threads),
        rate: plan.rate,
        report_interval_s: plan.report_interval.map(|d| d.as_secs()),
        seed: plan.seed,
        reads: op(READ),
        writes: op(WRITE),
        other: op(OTHER),
        transactions,
        ignored_errors: step.retries,
        reconnects: step
            .connections_opened
            .saturating_sub(step.n_clients as u64),
        elapsed_s: step.elapsed_s,
        latency_min_ms: ms(lat.min_s),
        latency_avg_ms: ms(lat.mean_s),
        latency_max_ms: ms(lat.max_s),
        percentile,
        latency_sum_ms: sum_ms,
        per_thread,
        histogram,
        percentiles: vec![
            (50.0, ms(lat.p50_s)),
            (90.0, ms(lat.p90_s)),
            (99.0, ms(lat.p99_s)),
            (99.9, ms(lat.p999_s)),
        ],
        errors: step
            .errors
            .iter()
            .map(|(k, n)| {
                let sample = step.error_samples.get(k).cloned().unwrap_or_default();
                (k.as_str().to_string(), *n, sample)
            })
            .collect(),
        unfinished: step.unfinished,
    }
}
