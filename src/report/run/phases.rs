//! `hakaru compare` of suites: one table of every phase, matched by name in the
//! scenarios' order, each run's req/s, p50, p99 and failed share (with what failed)
//! and its operations where the workload counts them (YCSB), each figure also as a
//! ratio to the first run. A suite's phases are different workloads, so the ramp
//! table's "peak" (the busiest phase) puts unlike things side by side; this table puts
//! a phase beside the same phase. Text for an 80-column terminal, Markdown and HTML.

use std::fmt::Write as _;

use crate::report::chart::esc;
use crate::report::findings::phases::{
    failure_list, missing_sentence, no_shared_sentence, PhaseFigures, PhaseRow, PhaseTable,
};
use crate::report::fmt::{clip, fmt_latency, fmt_qps, fmt_ratio, fmt_share, Work};
use crate::report::table::{md_table, Align};
use crate::result::{RunResult, StepResult};

/// The width the terminal's table keeps to.
const COLUMNS: usize = 80;
/// A run's label in the terminal's table is cut to this many characters.
const LABEL_CHARS: usize = 16;

/// The table of the runs that are suites (`None` when none is). A phase keeps its
/// place in the first suite that has it; a phase only a later run has comes after the
/// phase that run ran before it.
pub fn phase_table(runs: &[(&str, &RunResult)]) -> Option<PhaseTable> {
    let suites: Vec<(&str, &RunResult)> = runs
        .iter()
        .copied()
        .filter(|(_, r)| r.suite.is_some())
        .collect();
    if suites.is_empty() {
        return None;
    }
    let mut rows: Vec<PhaseRow> = Vec::new();
    for (i, (_, run)) in suites.iter().enumerate() {
        let phases = run.suite.as_ref().map_or(&[][..], |s| &s.phases[..]);
        let mut at = 0;
        // A phase without a step (the run was stopped before it) is a phase it lacks.
        for (p, step) in phases.iter().zip(&run.steps) {
            let k = match rows.iter().position(|r| r.name == p.name) {
                Some(k) => k,
                None => {
                    rows.insert(
                        at,
                        PhaseRow {
                            name: p.name.clone(),
                            runs: vec![None; suites.len()],
                        },
                    );
                    at
                }
            };
            rows[k].runs[i] = Some(figures(step));
            at = k + 1;
        }
    }
    Some(PhaseTable {
        labels: distinct(&suites.iter().map(|(l, _)| *l).collect::<Vec<_>>()),
        rows,
        works: suites.iter().map(|(_, r)| Work::of(&r.targets)).collect(),
    })
}

/// The labels, a label that repeats (files given one `--label`) numbered in order
/// ("a #1", "a #2"), so that each row says which file it is.
fn distinct(all: &[&str]) -> Vec<String> {
    let mut seen: Vec<&str> = Vec::new();
    all.iter()
        .map(|l| {
            seen.push(l);
            if all.iter().filter(|x| *x == l).count() > 1 {
                format!("{l} #{}", seen.iter().filter(|x| *x == l).count())
            } else {
                l.to_string()
            }
        })
        .collect()
}

/// A phase's figures from its step, as the suite's own report reads them.
pub fn figures(s: &StepResult) -> PhaseFigures {
    let failed = s.error_total() + s.non_success();
    let mut failures: Vec<(String, u64)> = s
        .errors
        .iter()
        .map(|(k, n)| (k.as_str().to_string(), *n))
        .chain(
            s.statuses
                .iter()
                .filter(|(c, _)| !s.ok_status.contains(**c))
                .map(|(c, n)| (format!("status {c}"), *n)),
        )
        .filter(|(_, n)| *n > 0)
        .collect();
    failures.sort_by_key(|f| std::cmp::Reverse(f.1));
    PhaseFigures {
        qps: s.qps,
        p50_s: s.latency.p50_s,
        p99_s: s.latency.p99_s,
        requests: s.total_requests,
        failed: if s.total_requests == 0 {
            0.0
        } else {
            failed as f64 * 100.0 / s.total_requests as f64
        },
        failures,
        operations: s.operations.clone(),
        ops_per_s: Some(s.operations.values().sum::<u64>())
            .filter(|n| *n > 0 && s.elapsed_s > 0.0)
            .map(|n| n as f64 / s.elapsed_s),
    }
}

/// "1560 (1.30×)", or the value alone without a ratio.
fn with_ratio(v: String, r: Option<f64>) -> String {
    match r {
        Some(r) => format!("{v} ({})", fmt_ratio(r)),
        None => v,
    }
}

/// A run's four figures in phase `row` (req/s, p50, p99, failed), each with its ratio
/// to the first run when there is one; "—" and blanks where the run lacks the phase.
fn figure_pairs(t: &PhaseTable, row: usize, run: usize) -> [(String, Option<f64>); 4] {
    let Some(f) = t.rows[row].runs[run].as_ref() else {
        return [
            ("—".into(), None),
            Default::default(),
            Default::default(),
            Default::default(),
        ];
    };
    // A share of nothing failed is no base for a ratio; both failing is.
    let failed_ratio = t.ratio(row, run, |f| f.failed).filter(|_| f.failed > 0.0);
    [
        (fmt_qps(f.qps), t.ratio(row, run, |f| f.qps)),
        (fmt_latency(f.p50_s), t.ratio(row, run, |f| f.p50_s)),
        (fmt_latency(f.p99_s), t.ratio(row, run, |f| f.p99_s)),
        (fmt_share(f.failed), failed_ratio),
    ]
}

/// [`figure_pairs`] as cells: "1300 (1.30×)".
fn figure_cells(t: &PhaseTable, row: usize, run: usize) -> [String; 4] {
    figure_pairs(t, row, run).map(|(v, r)| with_ratio(v, r))
}

/// "9300/s (0.93×)": a run's operations per second in phase `row`, with the ratio to
/// the first run's; `None` when the phase counts no operations.
fn operations_rate(t: &PhaseTable, row: usize, run: usize) -> Option<String> {
    let rate = t.rows[row].runs[run].as_ref()?.ops_per_s?;
    Some(with_ratio(
        format!("{}/s", fmt_qps(rate)),
        t.ratio(row, run, |f| f.ops_per_s.unwrap_or(0.0)),
    ))
}

/// "9300/s (0.93×): read 4950 (49.5%), update …", or nothing.
fn operations_cell(t: &PhaseTable, row: usize, run: usize) -> String {
    match (operations_rate(t, row, run), t.rows[row].runs[run].as_ref()) {
        (Some(rate), Some(f)) => format!("{rate}: {}", operation_list(f).join(", ")),
        _ => String::new(),
    }
}

/// "read 4950 (49.5%)" per kind.
fn operation_list(f: &PhaseFigures) -> Vec<String> {
    let total: u64 = f.operations.values().sum();
    f.operations
        .iter()
        .map(|(k, n)| format!("{k} {n} ({:.1}%)", *n as f64 * 100.0 / total.max(1) as f64))
        .collect()
}

/// `items` after `prefix`, joined by ", " and wrapped at [`COLUMNS`], continuation
/// lines indented under the first item.
fn wrapped(prefix: &str, items: &[String]) -> String {
    let indent = " ".repeat(prefix.chars().count());
    let mut o = String::new();
    let mut line = prefix.to_string();
    for (i, item) in items.iter().enumerate() {
        let piece = if i + 1 < items.len() {
            format!("{item},")
        } else {
            item.clone()
        };
        let fresh = line.chars().count() == indent.len() || line == prefix;
        if !fresh && line.chars().count() + 1 + piece.chars().count() > COLUMNS {
            o.push_str(&line);
            o.push('\n');
            line = format!("{indent}{piece}");
        } else {
            if !fresh {
                line.push(' ');
            }
            line.push_str(&piece);
        }
    }
    o.push_str(&line);
    o.push('\n');
    o
}

/// `text` as lines of at most [`COLUMNS`] characters, broken between words.
pub fn wrap(text: &str) -> String {
    let mut o = String::new();
    let mut line = String::new();
    for word in text.split(' ') {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > COLUMNS {
            o.push_str(&line);
            o.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    o.push_str(&line);
    o.push('\n');
    o
}

/// The terminal's table: a line per phase, under it a row per run (figures right
/// aligned, each ratio to the first run in parentheses after it), what failed and the
/// operations under a run's row; then the note on missing phases, or that none is
/// shared. Run labels are cut so that a row keeps to [`COLUMNS`].
pub fn text(t: &PhaseTable) -> String {
    let headers = [t.rate(), "p50", "p99", "failed"];
    const FIRST: &str = "phase / run";
    let pairs: Vec<Vec<[(String, String); 4]>> = (0..t.rows.len())
        .map(|k| {
            (0..t.labels.len())
                .map(|i| {
                    figure_pairs(t, k, i).map(|(v, r)| {
                        (
                            v,
                            r.map(|r| format!("({})", fmt_ratio(r))).unwrap_or_default(),
                        )
                    })
                })
                .collect()
        })
        .collect();
    // Each figure: its value's width and its ratio's (0 when no row has one).
    let mut value_w = headers.map(|h| h.chars().count());
    let mut ratio_w = [0usize; 4];
    for row in pairs.iter().flatten() {
        for (j, (v, r)) in row.iter().enumerate() {
            value_w[j] = value_w[j].max(v.chars().count());
            ratio_w[j] = ratio_w[j].max(r.chars().count());
        }
    }
    let figures_w: usize = (0..4)
        .map(|j| 2 + value_w[j] + if ratio_w[j] > 0 { 1 + ratio_w[j] } else { 0 })
        .sum();
    let label_chars = COLUMNS.saturating_sub(figures_w + 2).max(LABEL_CHARS);
    let first_w = t
        .labels
        .iter()
        .map(|l| 2 + clip(l, label_chars).chars().count())
        .max()
        .unwrap_or(0)
        .max(FIRST.len());
    let line = |first: &str, cells: &[(String, String); 4]| -> String {
        let mut o = format!("{first:<first_w$}");
        for (j, (v, r)) in cells.iter().enumerate() {
            let _ = write!(o, "  {v:>w$}", w = value_w[j]);
            if ratio_w[j] > 0 {
                let _ = write!(o, " {r:<w$}", w = ratio_w[j]);
            }
        }
        o.trim_end().to_owned() + "\n"
    };
    let mut o = String::new();
    if let Some(base) = t.labels.first().filter(|_| t.labels.len() > 1) {
        let _ = writeln!(o, "Phase by phase (ratios in parentheses are to {base}):");
    } else {
        o.push_str("Phase by phase:\n");
    }
    o.push_str(&line(
        FIRST,
        &headers.map(|h| (h.to_string(), String::new())),
    ));
    for (k, (row, runs)) in t.rows.iter().zip(&pairs).enumerate() {
        let _ = writeln!(o, "{}", clip(&row.name, COLUMNS));
        for (i, ((f, cells), label)) in row.runs.iter().zip(runs).zip(&t.labels).enumerate() {
            o.push_str(&line(&format!("  {}", clip(label, label_chars)), cells));
            let Some(f) = f else { continue };
            if !f.failures.is_empty() {
                let kinds: Vec<String> = f
                    .failures
                    .iter()
                    .map(|(k, n)| format!("{k} ×{n}"))
                    .collect();
                o.push_str(&wrapped("      failed: ", &kinds));
            }
            if let Some(rate) = operations_rate(t, k, i) {
                let prefix = format!("      operations, {rate}: ");
                o.push_str(&wrapped(&prefix, &operation_list(f)));
            }
        }
    }
    for s in [missing_sentence(t), no_shared_sentence(t)]
        .into_iter()
        .flatten()
    {
        o.push_str(&wrap(&s));
    }
    o
}

/// The Markdown table: a row per phase and run, the phase named on its first row.
pub fn markdown(t: &PhaseTable) -> String {
    let headers = [
        "phase",
        "run",
        t.rate(),
        "p50",
        "p99",
        "failed",
        "operations",
    ];
    let mut rows = Vec::new();
    for (k, row) in t.rows.iter().enumerate() {
        for (i, f) in row.runs.iter().enumerate() {
            let [q, p50, p99, mut failed] = figure_cells(t, k, i);
            let ops = operations_cell(t, k, i);
            if let Some(f) = f.as_ref().filter(|f| !f.failures.is_empty()) {
                failed = format!("{failed}: {}", failure_list(&f.failures));
            }
            rows.push(vec![
                if i == 0 {
                    row.name.clone()
                } else {
                    String::new()
                },
                t.labels[i].clone(),
                q,
                p50,
                p99,
                failed,
                ops,
            ]);
        }
    }
    let mut aligns = vec![Align::Right; headers.len()];
    aligns[0] = Align::Left;
    aligns[1] = Align::Left;
    aligns[6] = Align::Left;
    let mut o = String::from("#### Phase by phase\n\n");
    o.push_str(&md_table(&headers, &aligns, &rows));
    if let Some(b) = t.labels.first().filter(|_| t.labels.len() > 1) {
        let _ = writeln!(o, "\nRatios in parentheses are to {b}.");
    }
    for s in [missing_sentence(t), no_shared_sentence(t)]
        .into_iter()
        .flatten()
    {
        let _ = write!(o, "\n{s}\n");
    }
    o
}

/// What "failed" counts and what operations/s adds, in the runs' words.
fn failed_words(work: Work) -> &'static str {
    match work {
        Work::Request => "requests without a successful response; operations/s counts operations, not requests (an update over a CouchDB-style API is two requests)",
        Work::Transaction => "transactions that ended in an error; operations/s counts the workload's operations",
        Work::Command => "commands without a reply or with an error reply; operations/s counts the workload's operations, not commands",
        Work::Answer => "answers that failed, each run's in its own words; operations/s counts the workload's operations",
    }
}

/// The HTML section: the same table, the phase's cell spanning its runs' rows.
pub fn html(t: &PhaseTable) -> String {
    let mut b =
        String::from("<section><h2>Phase by phase</h2><div class=\"scroll\"><table><thead><tr>");
    for (h, left) in [
        ("phase", true),
        ("run", true),
        (t.rate(), false),
        ("p50", false),
        ("p99", false),
        ("failed", false),
        ("operations", true),
    ] {
        let _ = write!(b, "<th{}>{h}</th>", if left { " class=\"l\"" } else { "" });
    }
    b.push_str("</tr></thead><tbody>");
    for (k, row) in t.rows.iter().enumerate() {
        for (i, f) in row.runs.iter().enumerate() {
            b.push_str("<tr>");
            if i == 0 {
                let _ = write!(
                    b,
                    "<th class=\"l\" rowspan=\"{}\" scope=\"rowgroup\">{}</th>",
                    row.runs.len(),
                    esc(&row.name)
                );
            }
            let _ = write!(b, "<td class=\"l\">{}</td>", esc(&t.labels[i]));
            let [q, p50, p99, failed] = figure_cells(t, k, i);
            for c in [q, p50, p99] {
                let _ = write!(b, "<td>{}</td>", esc(&c));
            }
            let what = f
                .as_ref()
                .filter(|f| !f.failures.is_empty())
                .map(|f| format!("<br><small>{}</small>", esc(&failure_list(&f.failures))))
                .unwrap_or_default();
            let _ = write!(b, "<td>{}{what}</td>", esc(&failed));
            let ops = operations_cell(t, k, i);
            let _ = write!(b, "<td class=\"why\">{}</td>", esc(&ops));
            b.push_str("</tr>");
        }
    }
    b.push_str("</tbody></table></div>");
    let mut notes: Vec<String> = Vec::new();
    if let Some(base) = t.labels.first().filter(|_| t.labels.len() > 1) {
        notes.push(format!(
            "Ratios in parentheses are to the first run, {base}; \"failed\" is the share of a phase's {}.",
            failed_words(t.work())
        ));
    }
    notes.extend(
        [missing_sentence(t), no_shared_sentence(t)]
            .into_iter()
            .flatten(),
    );
    for n in notes {
        let _ = write!(b, "<p class=\"note\">{}</p>", esc(&n));
    }
    b.push_str("</section>");
    b
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::result::fixture;
    use crate::result::suite::{PhaseResult, SuiteResult};
    use crate::stats::ErrorKind;

    /// One phase: name, req/s, p50 and p99 (ms), requests, timeouts, 503s, operations.
    type Phase<'a> = (&'a str, f64, f64, f64, u64, u64, u64, &'a [(&'a str, u64)]);

    /// A suite's result from its phases' figures.
    fn suite(phases: &[Phase]) -> RunResult {
        let steps = phases
            .iter()
            .map(|&(_, qps, p50, p99, n, timeouts, s503, ops)| {
                let mut s = fixture::bare_step(4);
                s.qps = qps;
                s.elapsed_s = n as f64 / qps;
                s.latency.p50_s = p50 / 1e3;
                s.latency.p99_s = p99 / 1e3;
                s.total_requests = n;
                s.responses = n - timeouts;
                s.statuses.insert(200, n - timeouts - s503);
                if s503 > 0 {
                    s.statuses.insert(503, s503);
                }
                if timeouts > 0 {
                    s.errors.insert(ErrorKind::Timeout, timeouts);
                }
                s.operations = ops.iter().map(|(k, n)| (k.to_string(), *n)).collect();
                s
            })
            .collect();
        let mut run = fixture::run(steps);
        run.suite = Some(SuiteResult {
            scenario: "profile:ycsb-a".into(),
            phases: phases
                .iter()
                .map(|p| PhaseResult {
                    name: p.0.into(),
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        });
        run
    }

    fn redis() -> RunResult {
        suite(&[
            ("load", 1000.0, 0.5, 2.0, 1000, 0, 0, &[("insert", 1000)]),
            (
                "run",
                2000.0,
                0.4,
                1.5,
                60000,
                30,
                0,
                &[("read", 29990), ("update", 29980)],
            ),
        ])
    }

    fn memcached() -> RunResult {
        suite(&[
            ("load", 1300.0, 0.4, 1.6, 1000, 0, 0, &[("insert", 1000)]),
            ("warm", 500.0, 1.0, 3.0, 1500, 0, 15, &[]),
        ])
    }

    /// Phases matched by name in the suites' order; a phase only the second run has
    /// after the phase it ran before it; every ratio to the first run.
    #[test]
    fn phases_are_matched_by_name_with_ratios_to_the_first_run() {
        let (r, m) = (redis(), memcached());
        let t = phase_table(&[("redis", &r), ("memcached", &m)]).unwrap();
        let names: Vec<&str> = t.rows.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, ["load", "warm", "run"]);
        assert_eq!(t.labels, ["redis", "memcached"]);
        assert_eq!(t.ratio(0, 1, |f| f.qps), Some(1.3));
        assert_eq!(t.ratio(0, 1, |f| f.p99_s), Some(0.8));
        assert_eq!(t.ratio(0, 0, |f| f.qps), None, "no ratio for the baseline");
        assert!(t.rows[1].runs[0].is_none() && t.rows[2].runs[1].is_none());
        assert_eq!(t.ratio(1, 1, |f| f.qps), None, "the baseline lacks warm");
        let run = t.rows[2].runs[0].as_ref().unwrap();
        assert_eq!(run.failures, [("timeout".to_string(), 30)]);
        assert!((run.failed - 0.05).abs() < 1e-12);
        let warm = t.rows[1].runs[1].as_ref().unwrap();
        assert_eq!(warm.failures, [("status 503".to_string(), 15)]);
        // A ramp among the runs is no row of this table.
        let ramp = fixture::run(vec![fixture::bare_step(1)]);
        let t2 = phase_table(&[("ramp", &ramp), ("redis", &r)]).unwrap();
        assert_eq!(t2.labels, ["redis"]);
        assert!(phase_table(&[("ramp", &ramp)]).is_none());
        // Files given one label are told apart.
        let t3 = phase_table(&[("a", &r), ("a", &m), ("b", &r)]).unwrap();
        assert_eq!(t3.labels, ["a #1", "a #2", "b"]);
    }

    const EXPECTED_TEXT: &str = "\
Phase by phase (ratios in parentheses are to redis):
phase / run  req/s              p50              p99          failed
load
  redis       1000           500 µs          2.00 ms              0%
      operations, 1000/s: insert 1000 (100.0%)
  memcached   1300 (1.30×)   400 µs (0.80×)  1.60 ms (0.80×)      0%
      operations, 1300/s (1.30×): insert 1000 (100.0%)
warm
  redis          —
  memcached  500.0          1.00 ms          3.00 ms           1.00%
      failed: status 503 ×15
run
  redis       2000           400 µs          1.50 ms          0.050%
      failed: timeout ×30
      operations, 1999/s: read 29990 (50.0%), update 29980 (50.0%)
  memcached      —
— marks a phase a run lacks: redis has no phase \"warm\"; memcached has no phase
\"run\" (where redis has none, the rows have no ratios).
";

    #[test]
    fn text_snapshot_fits_80_columns() {
        let (r, m) = (redis(), memcached());
        let t = phase_table(&[("redis", &r), ("memcached", &m)]).unwrap();
        let text = text(&t);
        for l in text.lines() {
            assert!(l.chars().count() <= COLUMNS, "{l:?}");
        }
        assert_eq!(text, EXPECTED_TEXT);
    }

    /// The sentences: each run after the first against it over the phases both ran,
    /// then what failed where.
    #[test]
    fn sentences_say_the_ratios_and_the_failures() {
        let (r, m) = (redis(), memcached());
        let t = phase_table(&[("redis", &r), ("memcached", &m)]).unwrap();
        assert_eq!(
            crate::report::findings::phases::phase_sentences(&t),
            [
                "memcached answered load 1.30× redis's req/s at 0.80× its p99.",
                "In warm, memcached failed 1.00% of its requests (status 503 ×15).",
                "In run, redis failed 0.050% of its requests (timeout ×30).",
            ]
        );
        let mut m2 = redis();
        // Half the requests per second for as many operations: each took two.
        m2.steps[1].qps = 1000.0;
        m2.steps[1].latency.p99_s = 0.003;
        let t = phase_table(&[("redis", &r), ("again", &m2)]).unwrap();
        assert_eq!(
            crate::report::findings::phases::phase_sentences(&t)[0],
            "again answered load 1.00× redis's req/s at 1.00× its p99, and run 0.50× at 2.0× (1.00× operations/s)."
        );
        assert_eq!(
            crate::report::findings::phases::phase_sentences(&t)[1],
            "In run, redis failed 0.050% of its requests (timeout ×30) and again 0.050% (timeout ×30)."
        );
    }

    /// Suites with no phase name in common: said in one sentence, no ratio anywhere.
    #[test]
    fn suites_sharing_no_phase_are_told_so() {
        let a = suite(&[("load", 1000.0, 0.5, 2.0, 1000, 0, 0, &[])]);
        let b = suite(&[("warm", 900.0, 0.5, 2.0, 1000, 0, 0, &[])]);
        let t = phase_table(&[("a", &a), ("b", &b)]).unwrap();
        let text = text(&t);
        assert!(!text.contains('×'), "{text}");
        assert!(!text.contains("marks a phase"), "{text}");
        assert!(
            text.contains("These suites share no phase name (a: load; b: warm):"),
            "{text}"
        );
        assert!(crate::report::findings::phases::phase_sentences(&t).is_empty());
    }

    /// The Markdown and HTML tables: a row per phase and run, ratios, what failed.
    #[test]
    fn markdown_and_html_hold_the_same_rows() {
        let (r, m) = (redis(), memcached());
        let t = phase_table(&[("redis", &r), ("memcached", &m)]).unwrap();
        let md = markdown(&t);
        assert!(
            md.contains(
                "| load | redis | 1000 | 500 µs | 2.00 ms | 0% | 1000/s: insert 1000 (100.0%) |"
            ),
            "{md}"
        );
        assert!(
            md.contains("|  | memcached | 1300 (1.30×) | 400 µs (0.80×) | 1.60 ms (0.80×) | 0% | 1300/s (1.30×): insert 1000 (100.0%) |"),
            "{md}"
        );
        assert!(md.contains("| 0.050%: timeout ×30 |"), "{md}");
        assert!(md.contains("|  | memcached | — |  |  |  |  |"), "{md}");
        let html = html(&t);
        assert!(
            html.contains("<th class=\"l\" rowspan=\"2\" scope=\"rowgroup\">warm</th>"),
            "{html}"
        );
        assert!(html.contains("<td>1300 (1.30×)</td>"), "{html}");
        assert!(
            html.contains("0.050%<br><small>timeout ×30</small>"),
            "{html}"
        );
    }
}
