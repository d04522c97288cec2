//! What `hakaru merge` checks in the shards before adding them up, beyond their plans
//! (see [`super::merge`]): that each file holds numbers one run could have written
//! (no negative or non-finite times; statuses, errors, requests and the response-time
//! histogram telling the same count), that the shards' client counts are the shares
//! of one whole (`-c 2` and `-c 4` do not make one run), and that their sums fit
//! (checked arithmetic: a forged count cannot wrap). A refusal names the file and the
//! field.

use super::{RunResult, StepResult};

/// A shard that cannot be part of the merged run: which file, which field, why.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {field}: {why}")]
pub struct Inconsistent {
    pub path: String,
    pub field: String,
    pub why: String,
}

/// Every check, on shards whose plans and numbering already agree.
pub fn check(results: &[(String, RunResult)]) -> Result<(), Inconsistent> {
    for (path, r) in results {
        for (i, s) in r.steps.iter().enumerate() {
            check_step(s).map_err(|(field, why)| Inconsistent {
                path: path.clone(),
                field: format!("steps[{i}].{field}"),
                why,
            })?;
        }
    }
    check_shares(results)?;
    check_sums(results)
}

type Found = (&'static str, String);

/// One step's own numbers: times that can be, counts that agree.
fn check_step(s: &StepResult) -> Result<(), Found> {
    let times = [
        ("elapsed_s", s.elapsed_s),
        ("qps", s.qps),
        ("client_cpu_s", s.client_cpu_s),
        ("latency.min_s", s.latency.min_s),
        ("latency.mean_s", s.latency.mean_s),
        ("latency.max_s", s.latency.max_s),
        ("latency.p99_s", s.latency.p99_s),
        ("connect.mean_s", s.connect.mean_s),
    ];
    for (field, v) in times.into_iter().chain(s.rate.map(|r| ("rate", r))) {
        if !(v.is_finite() && v >= 0.0) {
            return Err((
                field,
                format!("{v} is not a time, rate or count (negative or not finite)"),
            ));
        }
    }
    check_seconds(s)?;
    let statuses =
        sum(s.statuses.values()).ok_or(("statuses", "overflow when added".to_owned()))?;
    if statuses != s.responses {
        return Err((
            "statuses",
            format!("add up to {statuses}, but responses is {}", s.responses),
        ));
    }
    let errors = sum(s.errors.values()).ok_or(("errors", "overflow when added".to_owned()))?;
    if s.responses.checked_add(errors) != Some(s.total_requests) {
        return Err((
            "total_requests",
            format!(
                "is {}, but responses ({}) and errors ({errors}) add up to something else",
                s.total_requests, s.responses
            ),
        ));
    }
    let h = super::decode_histogram(&s.histogram).map_err(|e| ("histogram", e))?;
    if h.len() != s.responses {
        return Err((
            "histogram",
            format!(
                "holds {} response times, but statuses say {} responses",
                h.len(),
                s.responses
            ),
        ));
    }
    Ok(())
}

/// A step's length and its timelines' seconds within the longest step a run can
/// make, checked before a merge lays the seconds out one by one.
/// Bug it pins: a timeline `"second": 4000000000` grew `merge` to 24 GB, and an
/// `elapsed_s` of 1e308 as far, before the OOM killer ended it.
fn check_seconds(s: &StepResult) -> Result<(), Found> {
    let max = super::timeline::MAX_SECONDS;
    if s.elapsed_s > max as f64 {
        return Err((
            "elapsed_s",
            format!(
                "{:e} s is longer than any run (at most {max} s)",
                s.elapsed_s
            ),
        ));
    }
    let timelines = std::iter::once(("timeline", s.timeline.as_deref())).chain(
        s.labels
            .iter()
            .map(|l| ("labels[].timeline", l.timeline.as_deref())),
    );
    for (field, seconds) in timelines {
        for e in seconds.unwrap_or_default() {
            if e.second.checked_add(e.span_s).is_none_or(|end| end > max) {
                return Err((
                    field,
                    format!(
                        "second {} (span {} s) is past the longest run ({max} s)",
                        e.second, e.span_s
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// The shards' clients in each step are the shares [`super::Shard::share`] gives of
/// their sum: a shard of `-c 2` beside one of `-c 4` is refused, not merged into 3.
/// (The whole's count is not in the files: shards that happen to be one run's shares,
/// 2 and 1 of 3, pass.)
fn check_shares(results: &[(String, RunResult)]) -> Result<(), Inconsistent> {
    let n_steps = results
        .iter()
        .map(|(_, r)| r.steps.len())
        .min()
        .unwrap_or(0);
    for i in 0..n_steps {
        let total: u64 = results
            .iter()
            .map(|(_, r)| r.steps[i].n_clients as u64)
            .fold(0u64, u64::saturating_add);
        for (path, r) in results {
            let Some(shard) = r.settings.shard else {
                continue;
            };
            let (has, share) = (r.steps[i].n_clients as u64, shard.share(total));
            if has != share {
                return Err(Inconsistent {
                    path: path.clone(),
                    field: format!("steps[{i}].n_clients"),
                    why: format!(
                        "is {has}, but shard {shard} of the {total} clients the shards hold \
                         together would have {share}: the shards were started with different \
                         client counts"
                    ),
                });
            }
        }
    }
    Ok(())
}

/// A count of a step, by its field's name.
type Count = (&'static str, fn(&StepResult) -> u64);

/// The counts the merge adds fit in 64 bits.
fn check_sums(results: &[(String, RunResult)]) -> Result<(), Inconsistent> {
    let n_steps = results
        .iter()
        .map(|(_, r)| r.steps.len())
        .min()
        .unwrap_or(0);
    for i in 0..n_steps {
        let fields: [Count; 6] = [
            ("total_requests", |s| s.total_requests),
            ("responses", |s| s.responses),
            ("bytes_received", |s| s.bytes_received),
            ("bytes_sent", |s| s.bytes_sent),
            ("connections_opened", |s| s.connections_opened),
            ("unfinished", |s| s.unfinished),
        ];
        for (field, get) in fields {
            let mut acc = 0u64;
            for (path, r) in results {
                acc = acc
                    .checked_add(get(&r.steps[i]))
                    .ok_or_else(|| Inconsistent {
                        path: path.clone(),
                        field: format!("steps[{i}].{field}"),
                        why: "the shards' counts add up to more than 2^64".into(),
                    })?;
            }
        }
    }
    Ok(())
}

fn sum<'a>(mut values: impl Iterator<Item = &'a u64>) -> Option<u64> {
    values.try_fold(0u64, |acc, v| acc.checked_add(*v))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::result::Shard;

    /// Two shards of one `-c 4` run (2 clients each), two steps.
    fn shards() -> Vec<(String, RunResult)> {
        use crate::result::fixture::{recorded_step, run};
        use crate::stats::ErrorKind;
        (1..=2)
            .map(|k| {
                let mut r = run(vec![
                    recorded_step(
                        2,
                        1.0,
                        &[(200, 1000), (200, 2000), (503, 3000)],
                        &[(ErrorKind::Timeout, 500)],
                    ),
                    recorded_step(2, 1.0, &[(200, 1000)], &[]),
                ]);
                r.settings.shard = Some(Shard { index: k, count: 2 });
                (format!("shard{k}.json"), r)
            })
            .collect()
    }

    #[test]
    fn merge_refuses_shards_of_different_client_counts() {
        let mut r = shards();
        assert!(check(&r).is_ok(), "{:?}", check(&r));
        // Shard 1/2 of `-c 2` (1 client) beside shard 2/2 of `-c 4` (2 clients).
        r[0].1.steps[0].n_clients = 1;
        let e = check(&r).unwrap_err().to_string();
        assert!(
            e.starts_with("shard1.json: steps[0].n_clients: is 1, but shard 1/2 of the 3 clients"),
            "{e}"
        );
    }

    /// Issue 36 item 6: seconds past any run are refused before a merge lays them out.
    #[test]
    fn merge_refuses_seconds_past_the_longest_run() {
        let mut r = shards();
        r[1].1.steps[0].elapsed_s = 1e308;
        let e = check(&r).unwrap_err().to_string();
        assert!(
            e.starts_with("shard2.json: steps[0].elapsed_s: 1e308 s is longer than any run"),
            "{e}"
        );
        let mut r = shards();
        r[0].1.steps[0].timeline = Some(vec![crate::result::timeline::SecondResult {
            second: 4_000_000_000,
            span_s: 1,
            ..Default::default()
        }]);
        let e = check(&r).unwrap_err().to_string();
        assert!(
            e.starts_with("shard1.json: steps[0].timeline: second 4000000000 (span 1 s) is past"),
            "{e}"
        );
    }

    #[test]
    fn merge_refuses_a_histogram_that_disagrees_with_the_statuses() {
        let mut r = shards();
        // A histogram swapped in from the other step: 1 response time for 3 responses.
        r[1].1.steps[0].histogram = r[1].1.steps[1].histogram.clone();
        let e = check(&r).unwrap_err().to_string();
        assert_eq!(
            e,
            "shard2.json: steps[0].histogram: holds 1 response times, but statuses say 3 responses"
        );
    }

    #[test]
    fn merge_refuses_counters_that_would_wrap() {
        let mut r = shards();
        for (_, run) in &mut r {
            let s = &mut run.steps[0];
            s.bytes_received = u64::MAX;
        }
        let e = check(&r).unwrap_err().to_string();
        assert!(
            e.contains("steps[0].bytes_received: the shards' counts add up"),
            "{e}"
        );
        let mut r = shards();
        let s = &mut r[0].1.steps[0];
        s.statuses.insert(200, u64::MAX);
        let e = check(&r).unwrap_err().to_string();
        assert!(e.contains("steps[0].statuses: overflow"), "{e}");
    }

    #[test]
    fn merge_refuses_negative_times() {
        let mut r = shards();
        r[1].1.steps[0].elapsed_s = -1.0;
        let e = check(&r).unwrap_err().to_string();
        assert!(
            e.starts_with("shard2.json: steps[0].elapsed_s: -1 is not"),
            "{e}"
        );
    }
}
