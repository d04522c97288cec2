//! The pass/fail table of `--threshold`: for the terminal, one row per threshold with
//! its value over the whole run and how many steps it held in (naming the ones it did
//! not); for the HTML and Markdown reports, the whole grid (overall, then every step
//! or phase, a column per threshold) with the failing cells marked in words, not by
//! colour alone. Pure: functions of the run and its verdicts.

use std::fmt::Write as _;

use super::chart::esc;
use super::fmt::{fmt_latency, fmt_qps, fmt_share};
use crate::result::threshold::{ThresholdResult, ThresholdsResult, Verdict};
use crate::result::{RunResult, StepResult};
use crate::spec::threshold::{Metric, Threshold};

/// How many failed steps a row names before "and N more".
const NAMED_STEPS: usize = 3;

/// A measured value in its threshold's unit, as a person reads it: "212 ms",
/// "0.031%", "3 errors", "1843/s".
pub fn fmt_value(threshold: &str, value: Option<f64>) -> String {
    let Some(v) = value else {
        return "–".into();
    };
    match Threshold::parse(threshold).map(|t| t.metric) {
        Ok(m) if m.is_latency() => fmt_latency(v),
        Ok(Metric::ErrorShare) => fmt_share(v * 100.0),
        Ok(Metric::ErrorCount) => format!("{v:.0}"),
        Ok(Metric::Qps | Metric::DocsPerS) => format!("{}/s", fmt_qps(v)),
        _ => format!("{v}"),
    }
}

/// Why a verdict failed, in words: "212 ms is not below 200 ms", "no responses"; for
/// a label and a window, which: "3.1 s is not below 1 s for group=search in the worst
/// 5-second window, from second 4 (7 of 16 windows failed)".
pub fn failure_message(threshold: &str, v: &Verdict) -> String {
    let Ok(t) = Threshold::parse(threshold) else {
        return threshold.to_string();
    };
    let what = match v.value {
        None => v.note.clone().unwrap_or_else(|| "nothing measured".into()),
        Some(_) => format!(
            "{} is {} {}",
            fmt_value(threshold, v.value),
            t.op.negated(),
            fmt_value(threshold, Some(t.bound))
        ),
    };
    let label = match (&t.label, v.value) {
        (Some(l), Some(_)) => format!(" for {l}"),
        _ => String::new(),
    };
    match (t.window_s, v.window_start_s, v.value) {
        (Some(w), Some(start), Some(_)) => format!(
            "{what}{label} in the worst {w}-second window, from second {start}{} ({} of {} windows failed)",
            v.window_step
                .map(|i| format!(" of step {}", i + 1))
                .unwrap_or_default(),
            v.windows_failed,
            v.windows
        ),
        _ => format!("{what}{label}"),
    }
}

/// A verdict's value with, for a window, where the worst one started: "3.1 s from
/// second 4".
fn value_at(threshold: &str, v: &Verdict) -> String {
    match v.window_start_s.filter(|_| v.value.is_some()) {
        Some(start) => format!("{} from second {start}", fmt_value(threshold, v.value)),
        None => fmt_value(threshold, v.value),
    }
}

/// The line for a run `--abort-on-fail` ended: "Aborted 7.3 s into step 1:
/// p99[5s]<1s could no longer hold (live, …)."
pub fn aborted_line(run: &RunResult, r: &ThresholdsResult) -> Option<String> {
    let a = r.aborted.as_ref()?;
    Some(format!(
        "Aborted (--abort-on-fail) {:.1} s into {}: {} could no longer hold ({}).",
        a.at_s,
        step_label(run, a.step),
        a.threshold,
        a.why
    ))
}

/// A step's name in tables and JUnit: "step 3 (40 clients)", "step 2 (500/s)",
/// "step 4 (batch 100, 2 writers)", with the round when the run has several.
pub fn step_label(run: &RunResult, index: usize) -> String {
    let Some(s) = run.steps.get(index) else {
        return format!("step {}", index + 1);
    };
    let load = load_label(s);
    // A scenario's steps are its phases, by name.
    if let Some(p) = run.suite.as_ref().and_then(|x| x.phases.get(index)) {
        return format!("phase {} ({load})", p.name);
    }
    if run.settings.rounds > 1 {
        format!("step {} ({load}, round {})", index + 1, s.round)
    } else {
        format!("step {} ({load})", index + 1)
    }
}

fn load_label(s: &StepResult) -> String {
    // A bulk step is told by its batch size and writers.
    if let Some(b) = &s.bulk {
        return format!(
            "batch {}, {} writer{}",
            b.batch_size,
            b.writers,
            if b.writers == 1 { "" } else { "s" }
        );
    }
    match s.rate {
        Some(r) => format!("{}/s", fmt_qps(r)),
        None => super::fmt::clients(s.n_clients),
    }
}

/// The table, ending with a newline.
pub fn threshold_table(run: &RunResult, r: &ThresholdsResult) -> String {
    let failed = r.thresholds.iter().filter(|t| !t.passed).count();
    let mut out = format!(
        "Thresholds: {} ({} of {} held)\n",
        if r.passed { "passed" } else { "FAILED" },
        r.thresholds.len() - failed,
        r.thresholds.len()
    );
    let name_w = r
        .thresholds
        .iter()
        .map(|t| t.threshold.chars().count())
        .max()
        .unwrap_or(0)
        .max("threshold".len());
    let values: Vec<String> = r
        .thresholds
        .iter()
        .map(|t| fmt_value(&t.threshold, t.overall.value))
        .collect();
    let value_w = values
        .iter()
        .map(|v| v.chars().count())
        .max()
        .unwrap_or(0)
        .max("overall".len());
    let per_step = r.thresholds.iter().any(|t| !t.steps.is_empty());
    if let Some(line) = aborted_line(run, r) {
        out.push_str(&format!("  {line}\n"));
    }
    out.push_str(&format!(
        "  {:<name_w$}  {:>value_w$}  result{}\n",
        "threshold",
        "overall",
        if per_step { "  steps" } else { "" }
    ));
    for (t, value) in r.thresholds.iter().zip(&values) {
        let verdict = if t.passed { "pass  " } else { "FAIL  " };
        let mut line = format!("  {:<name_w$}  {value:>value_w$}  {verdict}", t.threshold);
        if per_step {
            line.push_str(&format!("  {}", steps_cell(run, t)));
        }
        out.push_str(line.trim_end());
        out.push('\n');
        if !t.overall.passed && t.overall.value.is_some() {
            out.push_str(&format!(
                "  {:<name_w$}  overall: {}\n",
                "",
                failure_message(&t.threshold, &t.overall)
            ));
        }
        if let Some(note) = &t.overall.note {
            out.push_str(&format!("  {:<name_w$}  overall: {note}\n", ""));
        }
    }
    out
}

/// "4 of 4", or "3 of 4; failed: step 4 (40 clients) 480 ms".
fn steps_cell(run: &RunResult, t: &ThresholdResult) -> String {
    if t.steps.is_empty() {
        return String::new();
    }
    // A step without the threshold's label passes unjudged (no value): it is not one
    // that held.
    let unjudged = t
        .steps
        .iter()
        .filter(|v| v.passed && v.value.is_none())
        .count();
    let held = t.steps.iter().filter(|v| v.passed).count() - unjudged;
    let mut cell = format!("{held} of {} held", t.steps.len() - unjudged);
    if unjudged > 0 {
        let s = if unjudged == 1 { "" } else { "s" };
        cell.push_str(&format!(" ({unjudged} step{s} without its label)"));
    }
    let failed: Vec<String> = t
        .steps
        .iter()
        .enumerate()
        .filter(|(_, v)| !v.passed)
        .map(|(i, v)| {
            let what = match (&v.value, &v.note) {
                (Some(_), _) => value_at(&t.threshold, v),
                (None, Some(n)) => n.clone(),
                (None, None) => "–".into(),
            };
            format!("{} {what}", step_label(run, i))
        })
        .collect();
    if !failed.is_empty() {
        cell.push_str("; failed: ");
        cell.push_str(&failed[..failed.len().min(NAMED_STEPS)].join(", "));
        if failed.len() > NAMED_STEPS {
            cell.push_str(&format!(" and {} more", failed.len() - NAMED_STEPS));
        }
    }
    cell
}

/// A verdict's cell: the value (or why there is none) and the word.
fn cell(threshold: &str, v: &Verdict) -> String {
    let what = match (&v.value, &v.note) {
        (Some(_), _) if !v.passed => value_at(threshold, v),
        (Some(_), _) => fmt_value(threshold, v.value),
        (None, Some(n)) => n.clone(),
        (None, None) => "–".into(),
    };
    format!("{what} {}", if v.passed { "pass" } else { "FAIL" })
}

/// The grid's rows: "overall", then each step or phase with its verdicts in the order
/// of the thresholds. A run of one step has the overall row only.
fn grid(run: &RunResult, r: &ThresholdsResult) -> Vec<(String, Vec<Verdict>)> {
    let mut rows = vec![(
        "overall".to_owned(),
        r.thresholds.iter().map(|t| t.overall.clone()).collect(),
    )];
    let steps = r
        .thresholds
        .iter()
        .map(|t| t.steps.len())
        .max()
        .unwrap_or(0);
    for i in 0..steps {
        rows.push((
            step_label(run, i),
            r.thresholds
                .iter()
                .map(|t| t.steps.get(i).cloned().unwrap_or_default())
                .collect(),
        ));
    }
    rows
}

/// The thresholds that failed over the whole run, each in a sentence: "p99<200ms:
/// 990 ms is not below 200 ms".
fn overall_failures(r: &ThresholdsResult) -> Vec<String> {
    r.thresholds
        .iter()
        .filter(|t| !t.overall.passed)
        .map(|t| {
            format!(
                "{}: {}",
                t.threshold,
                failure_message(&t.threshold, &t.overall)
            )
        })
        .collect()
}

fn heading(r: &ThresholdsResult) -> String {
    let held = r.thresholds.iter().filter(|t| t.passed).count();
    format!(
        "Thresholds: {} ({held} of {} held)",
        if r.passed { "passed" } else { "FAILED" },
        r.thresholds.len()
    )
}

/// The thresholds as an HTML section: a verdict line, then the grid with each failing
/// cell and row marked.
pub fn threshold_html(run: &RunResult, r: &ThresholdsResult) -> String {
    let mut o = format!(
        "<section class=\"thresholds {}\" id=\"thresholds\"><h2>{}</h2>",
        if r.passed { "passed" } else { "failed" },
        esc(&heading(r))
    );
    if let Some(line) = aborted_line(run, r) {
        let _ = write!(o, "<p class=\"aborted\">{}</p>", esc(&line));
    }
    o.push_str("<div class=\"scroll\"><table><thead><tr><th class=\"l\"></th>");
    for t in &r.thresholds {
        let _ = write!(o, "<th><code>{}</code></th>", esc(&t.threshold));
    }
    o.push_str("</tr></thead><tbody>");
    for (i, (name, verdicts)) in grid(run, r).iter().enumerate() {
        let failed = verdicts.iter().any(|v| !v.passed);
        let class = match (i == 0, failed) {
            (true, true) => " class=\"overall failed\"",
            (true, false) => " class=\"overall\"",
            (false, true) => " class=\"failed\"",
            (false, false) => "",
        };
        let _ = write!(o, "<tr{class}><td class=\"l\">{}</td>", esc(name));
        for (t, v) in r.thresholds.iter().zip(verdicts) {
            let _ = write!(
                o,
                "<td class=\"{}\"{}>{}</td>",
                if v.passed { "pass" } else { "fail" },
                v.note
                    .as_ref()
                    .filter(|_| v.value.is_some())
                    .map(|n| format!(" title=\"{}\"", esc(n)))
                    .unwrap_or_default(),
                esc(&cell(&t.threshold, v))
            );
        }
        o.push_str("</tr>");
    }
    o.push_str("</tbody></table></div>");
    let failures = overall_failures(r);
    if !failures.is_empty() {
        o.push_str("<ul class=\"why\">");
        for f in failures {
            let _ = write!(o, "<li>{}</li>", esc(&f));
        }
        o.push_str("</ul>");
    }
    let weak: Vec<String> = r
        .thresholds
        .iter()
        .filter_map(|t| {
            let n = t.overall.note.as_ref()?;
            t.overall.value.map(|_| format!("{}: {n}", t.threshold))
        })
        .collect();
    let _ = write!(
        o,
        "<p class=\"note\">A threshold passes when it holds over the whole run (every \
         step's responses together) and in every step; an error is a request without a \
         response or with a status outside --ok-status (200–399 by default).{}</p></section>",
        if weak.is_empty() {
            String::new()
        } else {
            format!(" Weak: {}.", esc(&weak.join("; ")))
        }
    );
    o
}

/// The thresholds as Markdown: a verdict line and the grid, failing cells in bold.
pub fn threshold_markdown(run: &RunResult, r: &ThresholdsResult) -> String {
    use super::table::{md_table, Align};
    let mut o = format!("#### {}\n\n", heading(r));
    if let Some(line) = aborted_line(run, r) {
        let _ = writeln!(o, "**{line}**\n");
    }
    let headers: Vec<String> = std::iter::once(String::new())
        .chain(r.thresholds.iter().map(|t| format!("`{}`", t.threshold)))
        .collect();
    let headers: Vec<&str> = headers.iter().map(String::as_str).collect();
    let mut aligns = vec![Align::Right; headers.len()];
    aligns[0] = Align::Left;
    let rows: Vec<Vec<String>> = grid(run, r)
        .into_iter()
        .map(|(name, verdicts)| {
            let failed = verdicts.iter().any(|v| !v.passed);
            std::iter::once(if failed { format!("**{name}**") } else { name })
                .chain(r.thresholds.iter().zip(&verdicts).map(|(t, v)| {
                    if v.passed {
                        cell(&t.threshold, v)
                    } else {
                        format!("**{}**", cell(&t.threshold, v))
                    }
                }))
                .collect()
        })
        .collect();
    o.push_str(&md_table(&headers, &aligns, &rows));
    for f in overall_failures(r) {
        let _ = writeln!(o, "\n> **Failed:** {f}");
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::threshold::{evaluate, tests_support::step};
    use crate::result::fixture;

    fn ts(list: &[&str]) -> Vec<Threshold> {
        list.iter()
            .map(|s| Threshold::parse(s).expect("valid"))
            .collect()
    }

    #[test]
    fn one_step_shows_the_overall_column_only() {
        let run = fixture::run(vec![step(1000, 0, 2.0)]);
        let r = evaluate(&ts(&["p99<200ms", "errors<0.1%", "qps>1000"]), &run);
        assert_eq!(
            threshold_table(&run, &r),
            "\
Thresholds: FAILED (1 of 3 held)
  threshold    overall  result
  p99<200ms     990 ms  FAIL
               overall: 990 ms is not below 200 ms
  errors<0.1%       0%  pass
  qps>1000     500.0/s  FAIL
               overall: 500.0/s is not above 1000/s
"
        );
    }

    #[test]
    fn steps_that_failed_are_named() {
        let mut steps = vec![step(1000, 0, 1.0), step(1000, 0, 1.0), step(0, 3, 1.0)];
        for (i, s) in steps.iter_mut().enumerate() {
            s.n_clients = 10 * (i + 1);
        }
        let run = fixture::run(steps);
        let r = evaluate(&ts(&["p99<=1s", "errors<=0"]), &run);
        assert_eq!(
            threshold_table(&run, &r),
            "\
Thresholds: FAILED (0 of 2 held)
  threshold  overall  result  steps
  p99<=1s     990 ms  FAIL    2 of 3 held; failed: step 3 (30 clients) no responses
  errors<=0        3  FAIL    2 of 3 held; failed: step 3 (30 clients) 3
             overall: 3 is above 0
"
        );
    }

    /// A suite's load phase has no `op=read` request: its step passed unjudged and
    /// the table said "2 of 2 held" where one step held.
    #[test]
    fn a_step_without_the_label_is_not_counted_as_held() {
        let r = ThresholdResult {
            threshold: "p99{op=read}<1s".into(),
            passed: true,
            overall: Verdict::default(),
            steps: vec![
                Verdict {
                    passed: true,
                    note: Some("no request labelled op=read in this step: not judged".into()),
                    ..Verdict::default()
                },
                Verdict {
                    passed: true,
                    value: Some(0.08),
                    samples: 900,
                    ..Verdict::default()
                },
            ],
        };
        let run = fixture::run(vec![step(10, 0, 1.0), step(900, 0, 1.0)]);
        assert_eq!(
            steps_cell(&run, &r),
            "1 of 1 held (1 step without its label)"
        );
    }

    #[test]
    fn markdown_grid_marks_the_failing_rows_and_cells() {
        let mut steps = vec![step(1000, 0, 1.0), step(0, 3, 1.0)];
        steps[1].n_clients = 8;
        let run = fixture::run(steps);
        let r = evaluate(&ts(&["p99<=1s", "errors<0.1%"]), &run);
        assert_eq!(
            threshold_markdown(&run, &r),
            "\
#### Thresholds: FAILED (0 of 2 held)

|  | `p99<=1s` | `errors<0.1%` |
|:--|--:|--:|
| **overall** | 990 ms pass | **0.30% FAIL** |
| step 1 (4 clients) | 990 ms pass | 0% pass |
| **step 2 (8 clients)** | **no responses FAIL** | **100% FAIL** |

> **Failed:** errors<0.1%: 0.30% is not below 0.10%
"
        );
    }

    #[test]
    fn html_grid_says_fail_in_words_and_classes() {
        let run = fixture::run(vec![step(1000, 0, 2.0)]);
        let r = evaluate(&ts(&["p99<200ms", "errors<0.1%"]), &run);
        let h = threshold_html(&run, &r);
        assert!(h.starts_with("<section class=\"thresholds failed\" id=\"thresholds\"><h2>Thresholds: FAILED (1 of 2 held)</h2>"), "{h}");
        assert!(h.contains("<th><code>p99&lt;200ms</code></th>"), "{h}");
        assert!(h.contains("<tr class=\"overall failed\"><td class=\"l\">overall</td><td class=\"fail\">990 ms FAIL</td><td class=\"pass\">0% pass</td></tr>"), "{h}");
        assert!(
            h.contains("<li>p99&lt;200ms: 990 ms is not below 200 ms</li>"),
            "{h}"
        );
        // One step: no step rows.
        assert_eq!(h.matches("<tr").count(), 2, "{h}");
    }

    #[test]
    fn a_windowed_miss_names_its_worst_window_and_an_abort_its_moment() {
        use crate::result::threshold::{Aborted, ThresholdResult};
        let run = fixture::run(vec![step(1000, 0, 20.0)]);
        let text = "p99[5s]{group=search}<1s";
        let overall = Verdict {
            passed: false,
            value: Some(3.1),
            samples: 405,
            windows: 16,
            windows_failed: 7,
            window_start_s: Some(4),
            ..Verdict::default()
        };
        let r = ThresholdsResult {
            passed: false,
            thresholds: vec![ThresholdResult {
                threshold: text.into(),
                passed: false,
                overall,
                steps: Vec::new(),
            }],
            aborted: Some(Aborted {
                threshold: text.into(),
                step: 0,
                at_s: 7.3,
                at: String::new(),
                why: "live".into(),
            }),
        };
        let table = threshold_table(&run, &r);
        assert!(table.contains("  Aborted (--abort-on-fail) 7.3 s into step 1 (4 clients): p99[5s]{group=search}<1s could no longer hold (live).\n"), "{table}");
        assert!(table.contains("overall: 3.10 s is not below 1.00 s for group=search in the worst 5-second window, from second 4 (7 of 16 windows failed)"), "{table}");
        let md = threshold_markdown(&run, &r);
        assert!(md.contains("**3.10 s from second 4 FAIL**"), "{md}");
        assert!(threshold_html(&run, &r).contains("<p class=\"aborted\">Aborted"));
    }
}
