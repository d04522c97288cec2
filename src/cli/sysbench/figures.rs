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
    let histogram = plan
        .histogram
        .then(|| hist.as_ref().map_or_else(Vec::new, sysbench_rows));
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
        errors: step.errors_with_samples(),
        unfinished: step.unfinished,
    }
}

/// sysbench's latency histogram: 1,024 buckets on a log scale from 0.001 ms to
/// 100,000 ms (each about 1.8% wider than the last).
const BUCKETS: f64 = 1024.0;
const MIN_MS: f64 = 0.001;
const MAX_MS: f64 = 100_000.0;

/// `--histogram`'s rows as sysbench draws them: the HDR histogram's values (µs)
/// put in sysbench's buckets, each row a bucket's value (ms) and count.
fn sysbench_rows(h: &hdrhistogram::Histogram<u64>) -> Vec<(f64, u64)> {
    let deduct = MIN_MS.ln();
    let mult = (BUCKETS - 1.0) / (MAX_MS.ln() - deduct);
    let mut rows: Vec<(u32, u64)> = Vec::new();
    for v in h.iter_recorded() {
        let ms = (v.value_iterated_to() as f64 / 1e3).max(MIN_MS);
        let i = ((ms.ln() - deduct) * mult).round().min(BUCKETS - 1.0) as u32;
        match rows.last_mut() {
            Some((j, n)) if *j == i => *n += v.count_at_value(),
            _ => rows.push((i, v.count_at_value())),
        }
    }
    rows.into_iter()
        .map(|(i, n)| ((f64::from(i) / mult + deduct).exp(), n))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bug: `--histogram`'s rows were 5% apart, sysbench's buckets about 1.8%: a
    /// run's table had a third of sysbench's rows, at other values.
    #[test]
    fn histogram_rows_are_sysbench_s_buckets() {
        let mut h = hdrhistogram::Histogram::<u64>::new(3).unwrap();
        for (us, n) in [(61, 13), (62, 20), (84, 1197), (85, 1035), (5_000, 1)] {
            h.record_n(us, n).unwrap();
        }
        let rows = sysbench_rows(&h);
        let values: Vec<String> = rows.iter().map(|r| format!("{:.3}", r.0)).collect();
        // sysbench 1.0.20 printed 0.061, 0.062, 0.084 and 0.085 for these.
        assert_eq!(values, ["0.061", "0.062", "0.084", "0.085", "4.999"]);
        assert_eq!(
            rows.iter().map(|r| r.1).collect::<Vec<_>>(),
            [13, 20, 1197, 1035, 1]
        );
    }
}
