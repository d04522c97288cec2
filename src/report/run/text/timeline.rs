//! `--timeline`: a step second by second on the terminal, after the summary, as
//! vegeta's `report -every` and k6's per-interval output do: when the rate was offered
//! (open model), what was answered, what failed, the latency and how many requests
//! left late. Rows are one second wide, or `every` seconds (`--timeline 10s`); on a
//! step longer than [`AUTO_ROWS`] seconds a bare `--timeline` widens them to keep
//! the table about that long. Fits 80 columns.
//!
//! Rows come from the step's kept timeline (entries past the first hour are 10 s
//! wide; a row never splits one), their percentiles from the entries' histograms
//! added together, so a ten-second row's p99 is the p99 of its responses.

use std::fmt::Write as _;

use crate::report::fmt::{fmt_latency, fmt_qps};
use crate::result::timeline::SecondResult;
use crate::result::{RunResult, StepResult};

/// A bare `--timeline` keeps the table to about this many rows a step.
pub const AUTO_ROWS: u64 = 60;

/// Row widths a bare `--timeline` picks from, seconds.
const WIDTHS: [u64; 8] = [1, 2, 5, 10, 15, 30, 60, 300];

/// How wide the rows are: `Auto` (one second, wider on long steps) or fixed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Every {
    Auto,
    Seconds(u64),
}

/// The width of a step's rows.
fn width(every: Every, step_s: f64) -> u64 {
    match every {
        Every::Seconds(n) => n.max(1),
        Every::Auto => WIDTHS
            .iter()
            .copied()
            .find(|w| (step_s / *w as f64).ceil() as u64 <= AUTO_ROWS)
            .unwrap_or(300),
    }
}

/// Every step's table, each headed by its step when there are several; empty when no
/// step kept a timeline.
pub fn run_timeline(run: &RunResult, every: Every) -> String {
    let many = run.steps.len() > 1;
    let mut out = String::new();
    for (i, step) in run.steps.iter().enumerate() {
        let table = timeline_table(step, every);
        if table.is_empty() {
            continue;
        }
        out.push('\n');
        if many {
            let _ = writeln!(
                out,
                "Step {} ({}):",
                i + 1,
                crate::report::chart::timeline::step_load(
                    step,
                    crate::report::fmt::Work::of(&run.targets)
                )
            );
        }
        out.push_str(&table);
    }
    out
}

/// Whether a run's end shows its timeline unasked: a step of a rate profile of more
/// than one segment, where the story is second by second.
pub fn shown_by_default(run: &RunResult) -> bool {
    run.steps
        .iter()
        .any(|s| s.profile.as_ref().is_some_and(|p| p.segments.len() > 1))
}

/// One row: `[from, to)` seconds of the step and the entries in it.
struct Row<'a> {
    from: u64,
    to: u64,
    entries: Vec<&'a SecondResult>,
}

/// A last entry covering less of the step than this (stragglers just after its end)
/// joins the row before it, as the charts merge it (`analysis::timeline`).
const MIN_COVERED_S: f64 = 0.25;

fn rows(seconds: &[SecondResult], w: u64, elapsed_s: f64) -> Vec<Row<'_>> {
    let mut out: Vec<Row> = Vec::new();
    for s in seconds {
        let from = s.second / w * w;
        let sliver = elapsed_s - (s.second as f64) < MIN_COVERED_S;
        match out.last_mut() {
            Some(r) if sliver => r.entries.push(s),
            // An entry wider than the row (a coarsened hour) widens its row.
            Some(r) if s.second < r.to => {
                r.to = r.to.max(s.second + s.span_s.max(1));
                r.entries.push(s);
            }
            _ => out.push(Row {
                from,
                to: (from + w).max(s.second + s.span_s.max(1)),
                entries: vec![s],
            }),
        }
    }
    out
}

/// The step's table, or nothing without a timeline.
pub fn timeline_table(step: &StepResult, every: Every) -> String {
    let Some(seconds) = step.timeline.as_deref().filter(|t| !t.is_empty()) else {
        return String::new();
    };
    let w = width(every, step.elapsed_s);
    let open = step.rate.is_some();
    let mut out = String::new();
    let unit = if w == 1 {
        "second".to_string()
    } else {
        format!("every {w} s")
    };
    let _ = writeln!(
        out,
        "{:>11}  {:>9}  {:>10}  {:>8}  {:>6}  {:>8}  {:>8}  {:>6}",
        unit,
        if open { "offered/s" } else { "" },
        "answered/s",
        "ok",
        "failed",
        "p50",
        "p99",
        if open { "late" } else { "" }
    );
    for r in rows(seconds, w, step.elapsed_s) {
        // A last row the step did not last through is a rate over what it lasted.
        let end = (r.to as f64).min(step.elapsed_s);
        let span = if end > r.from as f64 + MIN_COVERED_S {
            end - r.from as f64
        } else {
            (r.to - r.from) as f64
        };
        let answered: u64 = r.entries.iter().map(|s| s.responses).sum();
        let ok: u64 = r.entries.iter().map(|s| s.ok()).sum();
        let failed: u64 = r.entries.iter().map(|s| s.total() - s.ok()).sum();
        let late: u64 = r.entries.iter().map(|s| s.late).sum();
        let (p50, p99) = percentiles(&r.entries);
        let at = if r.to - r.from == 1 {
            format!("{}", r.from)
        } else {
            format!("{}-{}", r.from, r.to)
        };
        let offered = match (open, offered(step, r.from as f64, r.from as f64 + span)) {
            (true, Some(o)) => fmt_qps(o / span),
            (true, None) => "-".into(),
            (false, _) => String::new(),
        };
        let _ = writeln!(
            out,
            "{at:>11}  {offered:>9}  {:>10}  {ok:>8}  {failed:>6}  {p50:>8}  {p99:>8}  {:>6}",
            fmt_qps(answered as f64 / span),
            if open {
                late.to_string()
            } else {
                String::new()
            }
        );
    }
    out
}

/// Requests the step's timetable made due in `[a, b)` seconds of it: a profile's
/// integral, or the fixed rate × the time; `None` without a rate or past its end.
fn offered(step: &StepResult, a: f64, b: f64) -> Option<f64> {
    let b = b.min(step.elapsed_s.max(a));
    match (&step.profile, step.rate) {
        (Some(p), _) => Some(p.segments.iter().map(|g| g.due_between(a, b)).sum()),
        (None, Some(r)) => Some(r * (b - a)),
        (None, None) => None,
    }
}

/// p50 and p99 of the entries' responses together ("-" without any): one entry's
/// own figures, or their histograms added.
fn percentiles(entries: &[&SecondResult]) -> (String, String) {
    let with: Vec<&&SecondResult> = entries.iter().filter(|s| s.responses > 0).collect();
    match with.as_slice() {
        [] => ("-".into(), "-".into()),
        [one] => (fmt_latency(one.p50_s), fmt_latency(one.p99_s)),
        many => {
            let mut all: Option<hdrhistogram::Histogram<u64>> = None;
            for s in many {
                let Ok(h) = crate::result::decode_histogram(&s.histogram) else {
                    continue;
                };
                match all.as_mut() {
                    Some(a) => {
                        let _ = a.add(&h);
                    }
                    None => all = Some(h),
                }
            }
            match all.filter(|h| !h.is_empty()) {
                Some(h) => (
                    fmt_latency(h.value_at_quantile(0.5) as f64 / 1e6),
                    fmt_latency(h.value_at_quantile(0.99) as f64 / 1e6),
                ),
                None => ("-".into(), "-".into()),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::result::profile::{RateSegment, StepProfile};

    fn sec(second: u64, ok: u64, failed: u64, late: u64, ms: u64) -> SecondResult {
        let mut h = crate::stats::new_histogram();
        h.record_n(ms * 1000, ok + failed).unwrap();
        SecondResult {
            second,
            responses: ok + failed,
            bad_status: failed,
            late,
            p50_s: ms as f64 / 1e3,
            p99_s: ms as f64 / 1e3,
            max_s: ms as f64 / 1e3,
            histogram: crate::result::encode_histogram(&h),
            ..SecondResult::default()
        }
    }

    fn spike_step() -> StepResult {
        let mut step = crate::result::fixture::bare_step(20);
        step.elapsed_s = 6.001;
        step.rate = Some(150.0);
        step.profile = Some(StepProfile {
            segments: vec![
                RateSegment {
                    start_s: 0.0,
                    duration_s: 2.0,
                    from: 100.0,
                    to: 100.0,
                },
                RateSegment {
                    start_s: 2.0,
                    duration_s: 1.0,
                    from: 400.0,
                    to: 400.0,
                },
                RateSegment {
                    start_s: 3.0,
                    duration_s: 3.0,
                    from: 100.0,
                    to: 100.0,
                },
            ],
            verdict: None,
        });
        step.timeline = Some(vec![
            sec(0, 100, 0, 0, 10),
            sec(1, 100, 0, 1, 11),
            sec(2, 199, 0, 185, 502),
            sec(3, 197, 3, 200, 999),
            sec(4, 200, 0, 164, 1003),
            sec(5, 101, 0, 0, 13),
            // A straggler after the end: it joins second 5's row.
            sec(6, 1, 0, 0, 13),
        ]);
        step
    }

    /// Issue 35 item 4: a spike's run second by second, within 80 columns.
    #[test]
    fn a_spike_second_by_second_at_80_columns() {
        let text = timeline_table(&spike_step(), Every::Auto);
        let expected = r"
     second  offered/s  answered/s        ok  failed       p50       p99    late
          0      100.0       100.0       100       0   10.0 ms   10.0 ms       0
          1      100.0       100.0       100       0   11.0 ms   11.0 ms       1
          2      400.0       199.0       199       0    502 ms    502 ms     185
          3      100.0       200.0       197       3    999 ms    999 ms     200
          4      100.0       200.0       200       0    1.00 s    1.00 s     164
          5      100.0       102.0       102       0   13.0 ms   13.0 ms       0
";
        assert_eq!(text, expected.trim_start_matches('\n'));
        assert!(text.lines().all(|l| l.chars().count() <= 80));
    }

    #[test]
    fn wider_rows_add_their_seconds() {
        let text = timeline_table(&spike_step(), Every::Seconds(3));
        let rows: Vec<&str> = text.lines().collect();
        assert!(rows[0].trim_start().starts_with("every 3 s"), "{text}");
        // 0-3: 100 + 100 + 400 due over 3 s; 399 answered; its p99 from the histograms.
        assert!(
            rows[1].starts_with("        0-3      200.0       133.0       399"),
            "{text}"
        );
        assert!(rows[2].contains("3-6"), "{text}");
        assert!(rows[2].trim_end().ends_with("364"), "{text}");
        assert_eq!(rows.len(), 3, "{text}");
    }

    #[test]
    fn a_bare_timeline_widens_rows_on_long_steps() {
        assert_eq!(width(Every::Auto, 30.0), 1);
        assert_eq!(width(Every::Auto, 60.0), 1);
        assert_eq!(width(Every::Auto, 61.0), 2);
        assert_eq!(width(Every::Auto, 3600.0), 60);
        assert_eq!(width(Every::Seconds(10), 5.0), 10);
        assert!(shown_by_default(&crate::result::fixture::run(vec![
            spike_step()
        ])));
        let fixed = crate::result::fixture::bare_step(20);
        assert!(!shown_by_default(&crate::result::fixture::run(vec![fixed])));
    }

    #[test]
    fn a_closed_model_step_has_no_offered_or_late_column() {
        let mut step = crate::result::fixture::bare_step(4);
        step.elapsed_s = 2.0;
        step.timeline = Some(vec![sec(0, 10, 0, 0, 5), sec(1, 12, 1, 0, 6)]);
        let text = timeline_table(&step, Every::Auto);
        assert!(!text.contains("offered"), "{text}");
        assert!(!text.contains("late"), "{text}");
        assert!(text.lines().nth(2).unwrap().contains("13.0"), "{text}");
    }
}
