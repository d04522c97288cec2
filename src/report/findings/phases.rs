//! Suites compared phase by phase, in words: each phase matched by name, and each
//! run's figures beside the first run's (the baseline). The table itself is drawn by
//! [`crate::report::run::phases`]; the rows it draws are defined here, as the ramp
//! comparison's [`super::CompareRow`] is, so the sentences and the table read the same
//! numbers.

use std::collections::BTreeMap;

use super::ratio;
use crate::report::fmt::{capital, fmt_ratio, fmt_share, Work};

/// One phase of one run: the figures a side-by-side row shows.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PhaseFigures {
    /// Responses per second.
    pub qps: f64,
    pub p50_s: f64,
    pub p99_s: f64,
    /// Requests that ended in the phase.
    pub requests: u64,
    /// Percent of the requests without a successful response.
    pub failed: f64,
    /// What failed, most first: error kinds ("timeout") and statuses outside success
    /// ("status 503"), with their counts.
    pub failures: Vec<(String, u64)>,
    /// Operations by kind, when the workload counts them (YCSB).
    pub operations: BTreeMap<String, u64>,
    /// Operations per second of the phase, when it counts them: what compares two
    /// stores whose operations take different numbers of requests (an update over
    /// CouchDB is two, over Redis one).
    pub ops_per_s: Option<f64>,
}

/// One phase, every run's figures in the runs' order; `None` where a run has no
/// phase of that name.
#[derive(Debug, Clone, PartialEq)]
pub struct PhaseRow {
    pub name: String,
    pub runs: Vec<Option<PhaseFigures>>,
}

/// Suites side by side: the runs' labels (the first is the baseline) and the phases
/// in the scenarios' order.
#[derive(Debug, Clone, PartialEq)]
pub struct PhaseTable {
    pub labels: Vec<String>,
    pub rows: Vec<PhaseRow>,
    /// What each run counts, in the labels' order: its words (a SQL suite's tps).
    pub works: Vec<Work>,
}

impl PhaseTable {
    /// The runs' shared unit of work ([`Work::Answer`] between kinds).
    pub fn work(&self) -> Work {
        Work::of_all(self.works.iter().copied())
    }

    /// The rate's column and ratio word: HTTP's "req/s" (a suite's own), a SQL
    /// suite's tps, a store's ops/s, "answers/s" between kinds.
    pub fn rate(&self) -> &'static str {
        self.work().per_s()
    }

    /// What run `i` counts: "requests", "transactions", "commands".
    fn items(&self, i: usize) -> &'static str {
        self.works.get(i).copied().unwrap_or(Work::Request).items()
    }

    /// Run `run`'s figure ÷ the baseline's in phase `row`, when both ran it and the
    /// baseline's figure is positive; never for the baseline itself.
    pub fn ratio(&self, row: usize, run: usize, f: impl Fn(&PhaseFigures) -> f64) -> Option<f64> {
        let r = self.rows.get(row)?;
        if run == 0 {
            return None;
        }
        ratio(
            r.runs.get(run)?.as_ref().map(&f),
            r.runs.first()?.as_ref().map(&f),
        )
    }

    /// True when some phase is in at least two runs.
    pub fn shares_a_phase(&self) -> bool {
        self.rows
            .iter()
            .any(|r| r.runs.iter().filter(|f| f.is_some()).count() > 1)
    }
}

/// "memcached answered load 1.30× redis's req/s at 0.80× its p99, and run 0.95× at
/// 1.10×": one sentence per run after the baseline over the phases both ran; then, per
/// phase where anything failed, what each run failed.
pub fn phase_sentences(t: &PhaseTable) -> Vec<String> {
    /// Phases named in one sentence; the rest are in the table.
    const NAMED: usize = 4;
    let mut out = Vec::new();
    let Some(base) = t.labels.first() else {
        return out;
    };
    for (i, label) in t.labels.iter().enumerate().skip(1) {
        let parts: Vec<(String, Option<f64>, f64, Option<f64>)> = t
            .rows
            .iter()
            .enumerate()
            .filter_map(|(k, r)| {
                let q = t.ratio(k, i, |f| f.qps)?;
                // Said only where it tells something req/s does not: operations that
                // take more requests on one store than on the other.
                let ops = t
                    .ratio(k, i, |f| f.ops_per_s.unwrap_or(0.0))
                    .filter(|o| (o / q - 1.0).abs() > 0.05);
                Some((r.name.clone(), t.ratio(k, i, |f| f.p99_s), q, ops))
            })
            .collect();
        let mut said: Vec<String> = parts
            .iter()
            .take(NAMED)
            .enumerate()
            .map(|(n, (phase, p99, q, ops))| {
                let first = n == 0;
                let mut s = match first {
                    true => format!(
                        "{label} answered {phase} {} {base}'s {}",
                        fmt_ratio(*q),
                        t.rate()
                    ),
                    false => format!("{phase} {}", fmt_ratio(*q)),
                };
                match p99 {
                    Some(p) if first => s += &format!(" at {} its p99", fmt_ratio(*p)),
                    Some(p) => s += &format!(" at {}", fmt_ratio(*p)),
                    None => {}
                }
                match ops {
                    Some(o) if first => s += &format!(" ({} its operations/s)", fmt_ratio(*o)),
                    Some(o) => s += &format!(" ({} operations/s)", fmt_ratio(*o)),
                    None => {}
                }
                s
            })
            .collect();
        if parts.len() > NAMED {
            let more = parts.len() - NAMED;
            said.push(format!(
                "{more} more phase{} (in the table)",
                if more == 1 { "" } else { "s" }
            ));
        }
        if let Some((last, rest)) = said.split_last() {
            out.push(match rest {
                [] => format!("{last}."),
                _ => format!("{}, and {last}.", rest.join(", ")),
            });
        }
    }
    out.extend(failure_sentences(t));
    out
}

/// "In run, redis failed 2.10% of its requests (timeout ×30, status 503 ×4) and
/// memcached 0%.": the phases where any run failed, a few at most.
fn failure_sentences(t: &PhaseTable) -> Vec<String> {
    /// Phases told in words; the table has the others.
    const TOLD: usize = 3;
    let failing: Vec<&PhaseRow> = t
        .rows
        .iter()
        .filter(|r| r.runs.iter().flatten().any(|f| f.failed > 0.0))
        .collect();
    let mut out: Vec<String> = failing
        .iter()
        .take(TOLD)
        .map(|r| {
            let each: Vec<String> = t
                .labels
                .iter()
                .zip(&r.runs)
                .enumerate()
                .filter_map(|(i, (l, f))| f.as_ref().map(|f| (i, l, f)))
                .enumerate()
                .map(|(n, (i, l, f))| {
                    let what = if f.failures.is_empty() {
                        String::new()
                    } else {
                        format!(" ({})", failure_list(&f.failures))
                    };
                    match n {
                        0 => format!(
                            "{l} failed {} of its {}{what}",
                            fmt_share(f.failed),
                            t.items(i)
                        ),
                        _ => format!("{l} {}{what}", fmt_share(f.failed)),
                    }
                })
                .collect();
            let joined = match each.split_last() {
                Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
                _ => each.join(""),
            };
            format!("In {}, {joined}.", r.name)
        })
        .collect();
    if failing.len() > TOLD {
        out.push(format!(
            "{} failed in {} more phases too (in the table).",
            capital(t.work().items()),
            failing.len() - TOLD
        ));
    }
    out
}

/// "timeout ×30, status 503 ×4".
pub fn failure_list(failures: &[(String, u64)]) -> String {
    failures
        .iter()
        .map(|(k, n)| format!("{k} ×{n}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Said once under the table: which run lacks which phase (its rows read "—"), and
/// that a phase the baseline lacks has no ratios. None when every run has every phase,
/// or when the suites share no phase at all ([`no_shared_sentence`] says that).
pub fn missing_sentence(t: &PhaseTable) -> Option<String> {
    if !t.shares_a_phase() {
        return None;
    }
    let lacks: Vec<String> = t
        .labels
        .iter()
        .enumerate()
        .filter_map(|(i, l)| {
            let names: Vec<String> = t
                .rows
                .iter()
                .filter(|r| r.runs.get(i).is_some_and(|f| f.is_none()))
                .map(|r| format!("\"{}\"", r.name))
                .collect();
            (!names.is_empty()).then(|| format!("{l} has no phase {}", names.join(", ")))
        })
        .collect();
    if lacks.is_empty() {
        return None;
    }
    let base_lacks = t
        .rows
        .iter()
        .any(|r| r.runs.first().is_some_and(|f| f.is_none()));
    Some(format!(
        "— marks a phase a run lacks: {}{}.",
        lacks.join("; "),
        if base_lacks {
            format!(" (where {} has none, the rows have no ratios)", t.labels[0])
        } else {
            String::new()
        }
    ))
}

/// "These suites share no phase name (a: load, run; b: warm, hot): …", when two or
/// more runs are compared and no phase name is in two of them.
pub fn no_shared_sentence(t: &PhaseTable) -> Option<String> {
    if t.labels.len() < 2 || t.shares_a_phase() {
        return None;
    }
    let each: Vec<String> = t
        .labels
        .iter()
        .enumerate()
        .map(|(i, l)| {
            let names: Vec<&str> = t
                .rows
                .iter()
                .filter(|r| r.runs.get(i).is_some_and(|f| f.is_some()))
                .map(|r| r.name.as_str())
                .collect();
            format!(
                "{l}: {}",
                if names.is_empty() {
                    "none".to_string()
                } else {
                    names.join(", ")
                }
            )
        })
        .collect();
    Some(format!(
        "These suites share no phase name ({}): no phase is lined up against another, \
         so there are no ratios; name the phases alike to compare them.",
        each.join("; ")
    ))
}
