//! Joining the results of one run spread over many load machines (`--shard K/N`) into
//! the result one machine would have written: each step's histograms added, counts
//! summed, clients and offered rates summed, qps from the common step window. Exact,
//! because every histogram is in the files (see [`StepResult::to_recorder`]).
//!
//! It refuses what would not be one run: results of different plans (settings, targets,
//! requests, steps), shards counted differently, a shard given twice, and names a
//! missing shard.

use super::command::CommandResult;
use super::{BulkStepResult, RunResult, Shard, StepFacts, StepResult, ToRecorderError};

#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    #[error("give at least two shard results to merge")]
    TooFew,
    #[error("{path} is not a shard's result (it was not run with --shard K/N)")]
    NotAShard { path: String },
    #[error("{path} is shard {shard}, but {first} is shard {first_shard}: the shards were counted differently")]
    Count {
        path: String,
        shard: Shard,
        first: String,
        first_shard: Shard,
    },
    #[error("{path} and {other} are both shard {shard}")]
    Twice {
        path: String,
        other: String,
        shard: Shard,
    },
    #[error("shard {index}/{count} is missing: {came} of {count} shards came back, and a run without one of its load machines is not the run (nothing merged; look at that pod's log or the shard's file)")]
    Missing { index: u32, count: u32, came: u32 },
    #[error("{path} is not the same plan as {first}: {what} differ")]
    Plan {
        path: String,
        first: String,
        what: &'static str,
    },
    #[error("{path}: {source}")]
    Histogram {
        path: String,
        source: ToRecorderError,
    },
    #[error("step {step}: the shards' per-second timelines: {why}")]
    Timeline { step: usize, why: String },
    #[error(transparent)]
    Inconsistent(#[from] super::merge_check::Inconsistent),
}

/// The shards of one run, each given once, none missing: their count N. Every kind of
/// sharded result (a run, a suite, a `stream send`) is checked here.
pub fn check_shards(shards: &[(&str, Option<Shard>)]) -> Result<u32, MergeError> {
    let Some((first_path, first)) = shards.first() else {
        return Err(MergeError::TooFew);
    };
    if shards.len() == 1 && first.is_none() {
        return Err(MergeError::TooFew);
    }
    let shard_of = |path: &str, shard: Option<Shard>| {
        shard.ok_or_else(|| MergeError::NotAShard {
            path: path.to_owned(),
        })
    };
    let first_shard = shard_of(first_path, *first)?;
    let mut seen: Vec<Option<&str>> = vec![None; first_shard.count as usize];
    for (path, shard) in shards {
        let shard = shard_of(path, *shard)?;
        if shard.count != first_shard.count {
            return Err(MergeError::Count {
                path: path.to_string(),
                shard,
                first: first_path.to_string(),
                first_shard,
            });
        }
        if let Some(other) = seen[shard.index as usize - 1].replace(path) {
            return Err(MergeError::Twice {
                path: path.to_string(),
                other: other.to_owned(),
                shard,
            });
        }
    }
    let came = seen.iter().filter(|s| s.is_some()).count() as u32;
    if let Some(k) = seen.iter().position(Option::is_none) {
        return Err(MergeError::Missing {
            index: k as u32 + 1,
            count: first_shard.count,
            came,
        });
    }
    Ok(first_shard.count)
}

/// Merge shard results given with the paths they came from (for errors).
pub fn merge_shards(results: &[(String, RunResult)]) -> Result<RunResult, MergeError> {
    let shards: Vec<(&str, Option<Shard>)> = results
        .iter()
        .map(|(p, r)| (p.as_str(), r.settings.shard))
        .collect();
    let count = check_shards(&shards)?;
    let (first_path, first) = &results[0];
    for (path, r) in results {
        same_plan(first, r).map_err(|what| MergeError::Plan {
            path: path.clone(),
            first: first_path.clone(),
            what,
        })?;
    }
    super::merge_check::check(results)?;
    let mut merged = first.clone();
    merged.settings.shard = None;
    merged.settings.merged = Some(super::Merged {
        shards: results.len() as u32,
        of: count,
    });
    // A shard's verdicts are not the whole run's: `merge --threshold` judges again.
    merged.thresholds = None;
    merged.settings.threads = results.iter().map(|(_, r)| r.settings.threads).sum();
    merged.partial = results.iter().any(|(_, r)| r.partial);
    merged.started_at = results
        .iter()
        .map(|(_, r)| r.started_at.clone())
        .min()
        .unwrap_or_default();
    // The worst state wins: one failed or unfinished machine makes the whole incomplete.
    merged.state = results
        .iter()
        .map(|(_, r)| r.state)
        .max_by_key(|s| state_rank(*s))
        .unwrap_or(merged.state);
    merged.machine.cpus = results.iter().map(|(_, r)| r.machine.cpus).sum();
    merged.machine.hostname = results
        .iter()
        .map(|(_, r)| r.machine.hostname.clone())
        .collect::<Vec<_>>()
        .join(",");
    // Each shard names its own slowest and fastest requests.
    merged.requests = results
        .iter()
        .fold(first.requests.clone(), |acc, (_, r)| acc.union(&r.requests));
    merged.steps = (0..first.steps.len())
        .map(|i| merge_step(results, i))
        .collect::<Result<_, _>>()?;
    // The recovery after each event is found again on the merged timeline by the
    // caller ([`crate::analysis::recovery::find_again`]): it is analysis, not vocabulary.
    merged.suite = merge_suite(results);
    // A command that stopped any shard stopped the run: said with its shard.
    if let Some((r, c)) = results
        .iter()
        .find_map(|(_, r)| Some((r, r.stopped_by_command.as_ref()?)))
    {
        let shard = r.settings.shard.map(|k| k.index);
        merged.stopped_by_command = CommandResult::merge(&[(shard, Some(c))]);
        if merged.stop_reason.is_none() {
            merged.stop_reason = r.stop_reason.clone();
        }
    }
    Ok(merged)
}

/// A scenario's shards as one: each phase's clients summed and its start the
/// earliest shard's; the events as the first shard ran them (the others run only
/// those whose scenario says `shards = "all"`); the bulk writers' checks with every
/// shard's acknowledged documents against what the server holds.
fn merge_suite(results: &[(String, RunResult)]) -> Option<super::suite::SuiteResult> {
    let suites: Vec<(Shard, &super::suite::SuiteResult)> = results
        .iter()
        .filter_map(|(_, r)| Some((r.settings.shard?, r.suite.as_ref()?)))
        .collect();
    let (_, base) = suites.iter().min_by_key(|(k, _)| k.index)?;
    let mut suite = (*base).clone();
    for (i, p) in suite.phases.iter_mut().enumerate() {
        let of_phase = || suites.iter().filter_map(move |(_, s)| s.phases.get(i));
        p.clients = of_phase().map(|q| q.clients).sum();
        p.start_s = of_phase().map(|q| q.start_s).fold(f64::INFINITY, f64::min);
    }
    for (i, v) in suite.verify.iter_mut().enumerate() {
        let all: Vec<&super::VerifyResult> = suites
            .iter()
            .filter_map(|(_, s)| s.verify.get(i)?.result.as_ref())
            .collect();
        if let (Some(r), true) = (v.result.as_mut(), all.len() == suites.len()) {
            // Every shard read the same server: the earliest count before, the latest after.
            let before = all.iter().map(|x| x.present_before).min().unwrap_or(0);
            let after = all.iter().map(|x| x.present_after).max().unwrap_or(0);
            *r = super::VerifyResult::compare(
                r.url.clone(),
                all.iter().map(|x| x.acknowledged).sum(),
                all.iter().map(|x| x.in_flight).sum(),
                before,
                after,
            );
        } else if v.error.is_none() {
            v.result = None;
            v.error = Some("a shard could not read the server's count".into());
        }
    }
    Some(suite)
}

fn state_rank(s: super::RunState) -> u8 {
    use super::RunState::*;
    match s {
        Complete => 0,
        Interrupted => 1,
        Running => 2,
        Failed => 3,
    }
}

/// What must be equal for results to be shards of one run: everything that shapes the
/// numbers, except what a shard changes (its seed, threads, and its share of each
/// step's clients and requests).
fn same_plan(a: &RunResult, b: &RunResult) -> Result<(), &'static str> {
    let (sa, sb) = (&a.settings, &b.settings);
    let checks: [(&'static str, bool); 12] = [
        ("modes", a.mode == b.mode),
        ("targets", a.targets == b.targets),
        (
            "request lists, patterns files or SQL scripts",
            a.requests.agrees_with(&b.requests)
                && sa.patterns_sha256 == sb.patterns_sha256
                && sa.n_patterns == sb.n_patterns,
        ),
        ("numbers of steps", a.steps.len() == b.steps.len()),
        (
            "step durations or request counts",
            sa.duration_s == sb.duration_s
                && sa.interval_s == sb.interval_s
                && sa.n_requests == sb.n_requests,
        ),
        ("load models", sa.model == sb.model),
        (
            "keep-alive, timeout or --wait settings",
            sa.keep_alive == sb.keep_alive
                && sa.timeout_s == sb.timeout_s
                && sa.wait_s == sb.wait_s,
        ),
        // A coalescing shard's clients sent less to a fast server than the others'.
        ("--coalesce settings", sa.coalesce_us == sb.coalesce_us),
        ("rounds", sa.rounds == sb.rounds),
        ("bulk settings", sa.bulk == sb.bulk),
        (
            "scenarios (phases, their lengths, rates, mixes or protocols)",
            match (&a.suite, &b.suite) {
                (None, None) => true,
                (Some(x), Some(y)) => {
                    x.scenario == y.scenario
                        && x.phases.len() == y.phases.len()
                        && x.phases.iter().zip(&y.phases).all(|(p, q)| {
                            p.name == q.name
                                && p.duration_s == q.duration_s
                                && p.rate == q.rate
                                && p.workloads == q.workloads
                                && p.http2_streams == q.http2_streams
                                && p.pipeline == q.pipeline
                        })
                }
                _ => false,
            },
        ),
        (
            "steps' rounds",
            a.steps
                .iter()
                .zip(&b.steps)
                .all(|(x, y)| x.round == y.round),
        ),
    ];
    match checks.iter().find(|(_, ok)| !ok) {
        Some((what, _)) => Err(what),
        None => Ok(()),
    }
}

fn merge_step(results: &[(String, RunResult)], i: usize) -> Result<StepResult, MergeError> {
    let steps: Vec<(&String, &StepResult)> =
        results.iter().map(|(p, r)| (p, &r.steps[i])).collect();
    let mut rec = None;
    for (path, s) in &steps {
        let r = s.to_recorder().map_err(|source| MergeError::Histogram {
            path: (*path).clone(),
            source,
        })?;
        match rec.as_mut() {
            None => rec = Some(r),
            Some(m) => crate::stats::Recorder::merge(m, &r),
        }
    }
    let rec = rec.expect("at least two shards");
    let first = steps[0].1;
    // Shards start each step together; the step's window is the longest of theirs.
    let elapsed_s = steps.iter().map(|(_, s)| s.elapsed_s).fold(0.0, f64::max);
    let facts = StepFacts {
        n_clients: steps.iter().map(|(_, s)| s.n_clients).sum(),
        rate: first
            .rate
            .map(|_| steps.iter().filter_map(|(_, s)| s.rate).sum()),
        started_at: steps
            .iter()
            .map(|(_, s)| s.started_at.clone())
            .min()
            .unwrap_or_default(),
        elapsed_s,
        partial: steps.iter().any(|(_, s)| s.partial),
        failure: steps.iter().find_map(|(_, s)| s.failure.clone()),
        rate_profile: first.rate_profile.clone(),
        client_cpu_s: steps.iter().map(|(_, s)| s.client_cpu_s).sum(),
        cpus: results.iter().map(|(_, r)| r.machine.cpus).sum(),
    };
    let targets: Vec<String> = first.per_host.iter().map(|h| h.target.clone()).collect();
    let mut merged = StepResult::from_recorder(facts, &rec, &targets, first.service.is_some());
    merged.round = first.round;
    // Each shard offered its share of every segment: the whole run offered their sum.
    merged.profile = first.profile.as_ref().map(|p| super::profile::StepProfile {
        segments: p
            .segments
            .iter()
            .enumerate()
            .map(|(i, seg)| {
                let share = |f: fn(&super::profile::RateSegment) -> f64| -> f64 {
                    steps
                        .iter()
                        .filter_map(|(_, s)| s.profile.as_ref()?.segments.get(i).map(f))
                        .sum()
                };
                super::profile::RateSegment {
                    from: share(|s| s.from),
                    to: share(|s| s.to),
                    ..*seg
                }
            })
            .collect(),
        verdict: None,
    });
    // Server-side numbers are the servers' own: every shard read the same ones.
    merged.probes = first.probes.clone();
    merged.cache_hit_rate = first.cache_hit_rate;
    merged.server_process = first.server_process.clone();
    // A bulk step: every shard's documents, over the common window.
    merged.bulk = first.bulk.as_ref().map(|b| {
        let items = merged.items.clone().unwrap_or_default();
        BulkStepResult {
            batch_size: b.batch_size,
            writers: merged.n_clients,
            docs_acknowledged: items.ok,
            docs_per_s: if elapsed_s > 0.0 {
                items.ok as f64 / elapsed_s
            } else {
                0.0
            },
            item_errors: items.failed,
        }
    });
    // The commands run before the step on each shard: every shard's record, and a
    // failure on any one is the merged step's failure.
    let shard_of = |p: &String| {
        let r = results.iter().find(|(q, _)| q == p);
        r.and_then(|(_, r)| r.settings.shard).map(|k| k.index)
    };
    let each = |pick: fn(&StepResult) -> Option<&CommandResult>| -> Vec<_> {
        steps.iter().map(|(p, s)| (shard_of(p), pick(s))).collect()
    };
    merged.before_round = CommandResult::merge(&each(|s| s.before_round.as_ref()));
    merged.before_step = CommandResult::merge(&each(|s| s.before_step.as_ref()));
    merged.start_late_s = steps
        .iter()
        .filter_map(|(_, s)| s.start_late_s)
        .reduce(f64::max);
    merged.logins_s = steps
        .iter()
        .filter_map(|(_, s)| s.logins_s)
        .reduce(f64::max);
    let timeline_error = |why| MergeError::Timeline { step: i + 1, why };
    merged.timeline = merge_timelines(&steps, step_timeline).map_err(timeline_error)?;
    // Each label's timeline on the same clock: the recorders added them unshifted.
    for label in &mut merged.labels {
        let (key, value) = (label.key.clone(), label.value.clone());
        label.timeline =
            merge_timelines(&steps, |s| label_timeline(s, &key, &value)).map_err(timeline_error)?;
    }
    Ok(merged)
}

fn step_timeline(s: &StepResult) -> Option<&[super::timeline::SecondResult]> {
    s.timeline.as_deref()
}

fn label_timeline<'a>(
    s: &'a StepResult,
    key: &str,
    value: &str,
) -> Option<&'a [super::timeline::SecondResult]> {
    s.labels
        .iter()
        .find(|l| l.key == key && l.value == value)?
        .timeline
        .as_deref()
}

/// The step's per-second timelines on one clock: each shard's seconds shifted by how
/// many whole seconds after the earliest shard it started (0 when they started
/// together, as `--start-at` makes them), then added second by second
/// ([`super::timeline::merge_seconds`]). None when no shard kept one.
fn merge_timelines<'a>(
    steps: &[(&String, &'a StepResult)],
    timeline: impl Fn(&'a StepResult) -> Option<&'a [super::timeline::SecondResult]>,
) -> Result<Option<Vec<super::timeline::SecondResult>>, String> {
    if steps.iter().all(|(_, s)| timeline(s).is_none()) {
        return Ok(None);
    }
    let wall = |s: &StepResult| crate::timestamp::parse(&s.started_at);
    let earliest = steps.iter().filter_map(|(_, s)| wall(s)).min();
    let parts: Vec<(u64, &[super::timeline::SecondResult])> = steps
        .iter()
        .filter_map(|(_, s)| {
            let offset = match (wall(s), earliest) {
                (Some(t), Some(e)) => t.duration_since(e).unwrap_or_default().as_secs_f64(),
                _ => 0.0,
            };
            Some((offset.round() as u64, timeline(s)?))
        })
        .collect();
    super::timeline::merge_seconds(&parts).map(Some)
}

/// The results in a stream of text that holds several, one per load machine: pods'
/// logs one after another (`kubectl logs -l … | hakaru merge -`). A result is a
/// pretty-printed JSON document (see [`super::json::to_json`]): from a line that is
/// just `{` to the next line that is just `}`. Returns the documents and the lines
/// between them (a pod's warnings, which whoever merges should see).
pub fn split_results(text: &str) -> (Vec<&str>, Vec<&str>) {
    let (mut docs, mut other) = (Vec::new(), Vec::new());
    let mut start = None;
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let bare = line.trim_end_matches(['\n', '\r']);
        match (start, bare) {
            (None, "{") => start = Some(offset),
            (Some(from), "}") => {
                docs.push(&text[from..offset + line.len()]);
                start = None;
            }
            (None, l) if !l.trim().is_empty() => other.push(l),
            _ => {}
        }
        offset += line.len();
    }
    if let Some(from) = start {
        // Cut off (a pod killed while printing): let the reader say where.
        docs.push(&text[from..]);
    }
    (docs, other)
}

/// `--start-at`: the shards' steps that started more than `limit_s` late, in words
/// ("shard 2/3 started step 1 0.412 s late"), for whoever merges to see.
pub fn late_starts(results: &[(String, RunResult)], limit_s: f64) -> Vec<String> {
    let mut out = Vec::new();
    for (path, r) in results {
        for (i, s) in r.steps.iter().enumerate() {
            if let Some(late) = s.start_late_s.filter(|l| *l > limit_s) {
                let who = r
                    .settings
                    .shard
                    .map_or_else(|| path.clone(), |k| format!("shard {k} ({path})"));
                out.push(format!("{who} started step {} {late:.3} s late", i + 1));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_add_up_to_the_whole() {
        for total in [0u64, 1, 2, 7, 1000, 1001] {
            for count in 1..=5u32 {
                let sum: u64 = (1..=count)
                    .map(|index| Shard { index, count }.share(total))
                    .sum();
                assert_eq!(sum, total, "{total} over {count}");
            }
        }
        assert_eq!(Shard { index: 1, count: 3 }.share(7), 3);
        assert_eq!(Shard { index: 3, count: 3 }.share(7), 2);
        assert_eq!(
            crate::spec::parse_shard("2/3"),
            Ok(Shard { index: 2, count: 3 })
        );
        assert_eq!(
            crate::spec::parse_shard("0+1/3"),
            Ok(Shard { index: 1, count: 3 })
        );
        assert_eq!(
            crate::spec::parse_shard("2+1/3"),
            Ok(Shard { index: 3, count: 3 })
        );
        for bad in [
            "0/3", "4/3", "1/0", "x", "1/20000", "3+1/3", "+1/3", "$(I)+1/3",
        ] {
            assert!(crate::spec::parse_shard(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn results_are_found_between_log_lines() {
        let run = crate::result::fixture::run(vec![crate::result::fixture::bare_step(1)]);
        let one = crate::result::json::to_json(&run);
        let log = format!("starting\n{one}hakaru: a warning\n\n{one}{{\n  \"cut\": ");
        let (docs, other) = split_results(&log);
        assert_eq!(docs.len(), 3);
        assert_eq!(docs[0], one);
        assert_eq!(docs[1], one);
        assert!(docs[2].starts_with("{\n  \"cut"));
        assert_eq!(other, vec!["starting", "hakaru: a warning"]);
        let back = crate::result::json::from_json(docs[1], "-").unwrap();
        assert_eq!(back.steps.len(), 1);
    }

    /// A shard of a one-phase scenario whose step started at `started_at` and whose
    /// responses ended at (ms from the step's start, latency ms).
    fn suite_shard(index: u32, started_at: &str, ended: &[(u64, u64)]) -> RunResult {
        use crate::result::suite::{EventResult, PhaseResult, SuiteResult};
        use crate::stats::{Outcome, Recorder, RequestSample};
        use std::time::{Duration, Instant};
        let t0 = Instant::now();
        let mut rec = Recorder::new(1, 0, 0).with_ticker(t0);
        let mut done = Vec::new();
        for (at, ms) in ended {
            let (outcome, latency) = (Outcome::Status(200), Duration::from_millis(*ms));
            rec.record(0, outcome, latency, || RequestSample {
                elapsed_s: latency.as_secs_f64(),
                request: 0,
                status: 200,
                client: 0,
                index: 0,
                sent: None,
            });
            let at = t0 + Duration::from_millis(*at);
            done.extend(rec.record_label(0, at, outcome, latency, 0, 0));
        }
        done.extend(rec.ticker.take().and_then(|mut t| t.finish(0)));
        for f in done {
            rec.add_second(*f);
        }
        let facts = StepFacts {
            n_clients: 2,
            rate: None,
            started_at: started_at.into(),
            elapsed_s: 3.0,
            partial: false,
            failure: None,
            rate_profile: None,
            client_cpu_s: 0.1,
            cpus: 2,
        };
        let step = StepResult::from_recorder(facts, &rec, &["t".into()], false);
        let mut run = crate::result::fixture::run(vec![step]);
        run.mode = crate::result::Mode::Suite;
        run.settings.shard = Some(Shard { index, count: 2 });
        run.suite = Some(SuiteResult {
            scenario: "s.toml".into(),
            phases: vec![PhaseResult {
                name: "steady".into(),
                start_s: 0.0,
                duration_s: 3.0,
                clients: 2,
                ..Default::default()
            }],
            events: vec![EventResult {
                name: "stall".into(),
                at_s: 2.0,
                // Only the first shard runs the scenario's events.
                started_s: (index == 1).then_some(2.0),
                ok: index == 1,
                // Shard 1's own recovery, from its share of the load.
                recovery: (index == 1).then_some(crate::result::recovery::Recovery {
                    at_s: 2.0,
                    baseline: None,
                    first_error_s: None,
                    worst_second_s: None,
                    worst_throughput: None,
                    worst_success: None,
                    worst_p99_s: None,
                    recovery_s: None,
                    recovering: None,
                    p99_limit: None,
                    failed: Default::default(),
                }),
                ..Default::default()
            }],
            recovery_criteria: Some(crate::result::recovery::Criteria::default()),
            verify: Vec::new(),
        });
        run
    }

    /// Regression: `merge` kept shard 1's `--before-step` record alone, so a command
    /// that failed on shard 2 (with `--before-may-fail`) read as a success.
    #[test]
    fn every_shard_s_before_command_is_kept_and_any_failure_is_the_step_s() {
        let ran = |ok: bool, exit: i32, secs: f64| CommandResult {
            command: "flush".into(),
            exit_code: Some(exit),
            ok,
            error: (!ok).then(|| format!("exit status {exit}: gone")),
            duration_s: secs,
            stderr: if ok { String::new() } else { "gone".into() },
            ..Default::default()
        };
        let mut a = suite_shard(1, "2026-11-01T00:00:00.000Z", &[(100, 10)]);
        let mut b = suite_shard(2, "2026-11-01T00:00:00.010Z", &[(100, 10)]);
        a.steps[0].before_step = Some(ran(true, 0, 0.5));
        b.steps[0].before_step = Some(ran(false, 3, 0.25));
        a.steps[0].before_round = Some(ran(true, 0, 0.1));
        b.steps[0].before_round = Some(ran(true, 0, 0.2));
        let m = merge_shards(&[("b".into(), b), ("a".into(), a)]).unwrap();
        let step = m.steps[0].before_step.as_ref().expect("merged");
        assert!(!step.ok);
        assert_eq!(step.exit_code, Some(3));
        assert_eq!(step.error.as_deref(), Some("shard 2: exit status 3: gone"));
        assert_eq!(step.duration_s, 0.5);
        let shards: Vec<(Option<u32>, bool)> =
            step.shards.iter().map(|c| (c.shard, c.ok)).collect();
        assert_eq!(shards, vec![(Some(1), true), (Some(2), false)]);
        let round = m.steps[0].before_round.as_ref().expect("merged");
        assert!(round.ok && round.error.is_none());
        assert_eq!((round.duration_s, round.shards.len()), (0.2, 2));
    }

    #[test]
    fn timelines_merge_second_by_second_on_the_common_clock() {
        // Shard 2 started its step one second after shard 1: its second 0 is the
        // whole's second 1.
        let a = suite_shard(
            1,
            "2026-11-01T00:00:00.000Z",
            &[(100, 10), (200, 20), (1500, 30), (2500, 40)],
        );
        let b = suite_shard(2, "2026-11-01T00:00:01.020Z", &[(300, 50), (2400, 60)]);
        let mut m = merge_shards(&[("b".into(), b), ("a".into(), a)]).unwrap();
        crate::analysis::recovery::find_again(&mut m);
        let t = m.steps[0].timeline.as_ref().expect("kept");
        let counts: Vec<u64> = t.iter().map(|s| s.responses).collect();
        assert_eq!(counts, vec![2, 2, 1, 1]);
        assert_eq!(t.iter().map(|s| s.second).collect::<Vec<_>>(), [0, 1, 2, 3]);
        // Second 1 holds shard 1's 30 ms and shard 2's 50 ms: percentiles from both.
        assert!((t[1].max_s - 0.050).abs() < 0.001, "{:?}", t[1]);
        assert!((t[1].p50_s - 0.030).abs() < 0.001, "{:?}", t[1]);
        let h = crate::result::decode_histogram(&t[1].histogram).unwrap();
        assert_eq!(h.len(), 2);
        // Every response of the step is in exactly one second.
        assert_eq!(counts.iter().sum::<u64>(), m.steps[0].responses);
        let suite = m.suite.as_ref().unwrap();
        assert_eq!(suite.phases[0].clients, 4);
        assert_eq!(suite.events[0].started_s, Some(2.0));
        // Found again on the merged seconds: 4 responses in the 2 s before the event
        // (shard 1 alone saw 3).
        let r = suite.events[0].recovery.as_ref().expect("measured");
        let baseline = r.baseline.expect("two whole seconds before");
        assert!((baseline.throughput - 2.0).abs() < 1e-9, "{baseline:?}");
    }

    /// Shards whose phase spoke HTTP/2 on one machine and HTTP/1.1 on the other do
    /// not measure one scenario: their sum would be neither.
    #[test]
    fn shards_whose_phases_connect_differently_are_refused() {
        let a = suite_shard(1, "2026-11-01T00:00:00.000Z", &[(100, 10)]);
        let mut b = suite_shard(2, "2026-11-01T00:00:00.000Z", &[(100, 10)]);
        b.suite.as_mut().unwrap().phases[0].http2_streams = Some(10);
        let e = merge_shards(&[("a".into(), a.clone()), ("b".into(), b)]).unwrap_err();
        assert!(e.to_string().contains("protocols"), "{e}");
        let mut c = suite_shard(2, "2026-11-01T00:00:00.000Z", &[(100, 10)]);
        c.suite.as_mut().unwrap().phases[0].pipeline = Some(16);
        let e = merge_shards(&[("a".into(), a), ("c".into(), c)]).unwrap_err();
        assert!(e.to_string().contains("protocols"), "{e}");
    }

    /// A shard run with `--coalesce` beside one without sent a fast server less load:
    /// their sum is neither plan.
    #[test]
    fn shards_that_coalesced_differently_are_refused() {
        let a = suite_shard(1, "2026-11-01T00:00:00.000Z", &[(100, 10)]);
        let mut b = suite_shard(2, "2026-11-01T00:00:00.000Z", &[(100, 10)]);
        b.settings.coalesce_us = Some(500);
        let e = merge_shards(&[("a".into(), a), ("b".into(), b)]).unwrap_err();
        assert!(e.to_string().contains("--coalesce"), "{e}");
    }

    #[test]
    fn merging_nothing_or_a_plain_run_is_refused() {
        assert!(matches!(merge_shards(&[]), Err(MergeError::TooFew)));
        let run = crate::result::fixture::run(vec![crate::result::fixture::bare_step(1)]);
        let e = merge_shards(&[("a".into(), run.clone()), ("b".into(), run)]).unwrap_err();
        assert!(e.to_string().contains("not a shard's result"), "{e}");
    }
}
