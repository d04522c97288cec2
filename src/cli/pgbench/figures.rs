//! pgbench's report figures from a finished step: the run's line for line, each
//! script's section and `-r`'s statement rows, from the step's labels.

use super::PgbenchArgs;
use crate::report::run::text::pgbench::{Length, PgbenchFigures, ScriptSection, StatementRow};
use crate::result::{LabelResult, StepResult};
use crate::spec::pgbench::PgbenchPlan;

/// pgbench's figures from the step: a transaction is one request of the run.
/// `-r`: each SQL statement's mean latency and failures, from its `stmt=<n>` label
/// (the engine times every statement under one). Meta-commands (`\set`, `\sleep`)
/// run in the client and are not timed: pgbench's lines for them are left out,
/// but for `\endpipeline`'s, which holds a pipeline's wait for its answers.
/// Each row comes with its script's index.
fn statement_rows(plan: &PgbenchPlan, step: &StepResult) -> Vec<(usize, StatementRow)> {
    let texts = plan.scripts.labels();
    let script_of = plan.scripts.statement_scripts();
    (1..=texts.len())
        .map(|n| {
            let label = step_label(step, "stmt", &n.to_string());
            let row = StatementRow {
                latency_ms: label.map_or(0.0, |l| l.latency.mean_s * 1e3),
                failures: label.map_or(0, |l| l.errors.values().sum()),
                text: texts[n - 1].to_string(),
            };
            (script_of[n - 1], row)
        })
        .collect()
}

fn step_label<'a>(step: &'a StepResult, key: &str, value: &str) -> Option<&'a LabelResult> {
    step.labels
        .iter()
        .find(|l| l.key == key && l.value == value)
}

/// Several scripts: pgbench's section for each, from its `script=<name>` label
/// (its transactions, failures and latency) and its statements' rows (`-r`).
fn script_sections(
    a: &PgbenchArgs,
    plan: &PgbenchPlan,
    step: &StepResult,
    rows: Option<&[(usize, StatementRow)]>,
) -> Vec<ScriptSection> {
    let scripts = &plan.scripts.scripts;
    if scripts.len() < 2 {
        return Vec::new();
    }
    let total_weight: u32 = scripts.iter().map(|s| s.weight).sum();
    let section = |(i, s): (usize, &crate::sql::interp::Weighted)| {
        let label = step_label(step, "script", &s.name);
        let failed: u64 = label.map_or(0, |l| l.errors.values().sum());
        let processed = label.map_or(0, |l| l.total_requests.saturating_sub(failed));
        let lat = label.map(|l| &l.latency).filter(|l| l.count > 0);
        ScriptSection {
            detailed: a
                .failures_detailed
                .then(|| label.map_or((0, 0), |l| detailed(&l.errors))),
            title: s.name.clone(),
            weight: s.weight,
            weight_pct: 100.0 * s.weight as f64 / total_weight.max(1) as f64,
            processed,
            failed,
            tps: per_second(processed, step.elapsed_s),
            latency_ms: lat.map(|l| (l.mean_s * 1e3, l.stdev_s * 1e3)),
            statements: rows.map(|r| {
                let mine = r.iter().filter(|(of, _)| *of == i);
                mine.map(|(_, row)| row.clone()).collect()
            }),
        }
    };
    scripts.iter().enumerate().map(section).collect()
}

/// `--failures-detailed`: the serialization failures and the deadlocks.
fn detailed(errors: &std::collections::BTreeMap<crate::stats::ErrorKind, u64>) -> (u64, u64) {
    use crate::stats::ErrorKind::{SqlDeadlock, SqlSerializationFailure};
    let n = |k| errors.get(&k).copied().unwrap_or(0);
    (n(SqlSerializationFailure), n(SqlDeadlock))
}

fn per_second(n: u64, elapsed_s: f64) -> f64 {
    if elapsed_s > 0.0 {
        n as f64 / elapsed_s
    } else {
        0.0
    }
}

pub(super) fn figures(a: &PgbenchArgs, plan: &PgbenchPlan, step: &StepResult) -> PgbenchFigures {
    let failed = step.error_total();
    let processed = step.total_requests.saturating_sub(failed);
    let ms = |s: f64| s * 1e3;
    let lat = &step.latency;
    // Past the limit: counted in the step's histogram (µs, to its 3 significant
    // digits). Under -R those already too late to start were skipped (the pacer's).
    let limit = a.latency_limit.map(|l| {
        let past = crate::result::decode_histogram(&step.histogram).map_or(0, |h| {
            let limit_us = (l * 1e3) as u64;
            h.len().saturating_sub(h.count_between(0, limit_us))
        });
        (l, past)
    });
    let rows = a.report_per_command.then(|| statement_rows(plan, step));
    let sections = script_sections(a, plan, step, rows.as_deref());
    PgbenchFigures {
        transaction_type: plan.transaction_type.clone(),
        scale: plan.scale,
        query_mode: a.protocol.clone().unwrap_or_else(|| "simple".into()),
        clients: plan.clients,
        threads: plan.threads,
        max_tries: a.max_tries,
        length: match (plan.duration, plan.per_client) {
            (Some(d), _) => Length::Duration(d.as_secs()),
            (None, t) => Length::PerClient(t.unwrap_or(10)),
        },
        processed,
        failed,
        skipped: plan.skip_late.map(|_| step.skipped),
        latency_limit: limit,
        latency_avg_ms: ms(lat.mean_s),
        latency_stddev_ms: ms(lat.stdev_s),
        show_stddev: plan.rate.is_some() || a.progress.is_some() || a.latency_limit.is_some(),
        // pgbench's schedule lag is how late a transaction started against its due
        // time: the pacer's lag, which the open model records apart.
        lag_ms: plan.rate.map(|_| {
            step.pacer_lag
                .as_ref()
                .map_or((0.0, 0.0), |l| (ms(l.mean_s), ms(l.max_s)))
        }),
        // pgbench's is the wall time of its connecting, every client logged in;
        // one login's mean where none came before the clock (`-C`).
        initial_connection_ms: step.logins_s.map_or(ms(step.connect.mean_s), ms),
        reconnect: a.connect,
        tps: per_second(processed, step.elapsed_s),
        statements: rows
            .as_deref()
            .filter(|_| sections.is_empty())
            .map(|r| r.iter().map(|(_, row)| row.clone()).collect()),
        scripts: sections,
        retries: (a.max_tries != 1).then_some((step.retried, step.retries)),
        detailed: a.failures_detailed.then(|| detailed(&step.errors)),
        percentiles: vec![
            (50.0, ms(lat.p50_s)),
            (90.0, ms(lat.p90_s)),
            (99.0, ms(lat.p99_s)),
        ],
        errors: step.errors_with_samples(),
    }
}
