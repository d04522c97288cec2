//! A scenario's report (`hakaru suite`): the terminal summary (phases, events and the
//! recovery after each) and one HTML page whose chart is the per-second timeline of
//! the whole scenario — throughput, failures, p50 and p99 — with the phases shaded and
//! the events marked. Pure functions of a result.

use std::fmt::Write as _;

use super::chart::esc;
use super::fmt::{clip, fmt_latency, fmt_qps, fmt_share, Work};
use crate::result::recovery::{P99LimitBy, Recovery};
use crate::result::suite::{EventResult, PhaseResult};
use crate::result::{RunResult, StepResult};

mod timeline;
pub use timeline::timeline_svg;

/// The terminal summary: one row per phase, then each event with what its command did
/// and the recovery after it.
pub fn text(run: &RunResult) -> String {
    let Some(suite) = &run.suite else {
        return String::new();
    };
    let mut o = String::new();
    let _ = writeln!(
        o,
        "{:<16} {:>8} {:>9} {:>10} {:>9} {:>10} {:>10}",
        "phase",
        "start",
        "length",
        Work::of(&run.targets).per_s(),
        "failed",
        "p50",
        "p99"
    );
    for (p, s) in suite.phases.iter().zip(&run.steps) {
        let failed = s.error_total() + s.non_success();
        let share = if s.total_requests == 0 {
            0.0
        } else {
            failed as f64 * 100.0 / s.total_requests as f64
        };
        let _ = writeln!(
            o,
            "{:<16} {:>7.1}s {:>8.1}s {:>10} {:>9} {:>10} {:>10}",
            clip(&p.name, 16),
            p.start_s,
            s.elapsed_s,
            fmt_qps(s.qps),
            fmt_share(share),
            fmt_latency(s.latency.p50_s),
            fmt_latency(s.latency.p99_s)
        );
    }
    // Workloads that count operations (YCSB): each phase's, by kind, with its share.
    let with_ops: Vec<_> = suite
        .phases
        .iter()
        .zip(&run.steps)
        .filter(|(_, s)| !s.operations.is_empty())
        .collect();
    if !with_ops.is_empty() {
        o.push_str("\nOperations:\n");
    }
    for (p, s) in with_ops {
        let total: u64 = s.operations.values().sum();
        let kinds: Vec<String> = s
            .operations
            .iter()
            .map(|(k, n)| format!("{k} {n} ({:.1}%)", *n as f64 * 100.0 / total.max(1) as f64))
            .collect();
        let _ = writeln!(o, "  {:<16} {}", clip(&p.name, 16), kinds.join(", "));
        // A YCSB update's conflicts are in the phase's failed share (each is a request
        // that was refused); say that the operation went on, so they read as what they are.
        if let Some(n) = s.statuses.get(&409).filter(|_| {
            s.operations.contains_key("update") || s.operations.contains_key("read-modify-write")
        }) {
            let _ = writeln!(
                o,
                "  {:<16} {n} conflicts (409): read and written again",
                ""
            );
        }
    }
    // YCSB over a store: each phase's table per command, as `run` prints a store's.
    for (p, s) in suite.phases.iter().zip(&run.steps) {
        let t = super::run::store::phase_text(&p.name, &p.store_commands, s);
        if !t.is_empty() {
            let _ = write!(o, "\n{t}");
        }
    }
    // A phase's `before` command: the step's JSON and CSV keep it; say it here too,
    // a failure in full (it was measured anyway only with `before_may_fail`).
    let befores: Vec<_> = suite
        .phases
        .iter()
        .zip(&run.steps)
        .filter_map(|(p, s)| s.before_step.as_ref().map(|c| (p, c)))
        .collect();
    if !befores.is_empty() {
        o.push_str("\nBefore the phase:\n");
    }
    for (p, c) in befores {
        let _ = writeln!(o, "  {:<16} {}", clip(&p.name, 16), c.outcome());
    }
    connections(&mut o, &suite.phases, &run.steps, Work::of(&run.targets));
    probes(&mut o, &suite.phases, &run.steps);
    if !suite.events.is_empty() {
        o.push_str("\nEvents:\n");
    }
    for e in &suite.events {
        let _ = writeln!(o, "  {}", event_line(e));
        if let Some(r) = &e.recovery {
            let _ = writeln!(o, "           {}", recovery_line(r));
        }
    }
    for v in &suite.verify {
        let _ = match (&v.result, &v.error) {
            (Some(r), _) => writeln!(
                o,
                "\nDocuments written in \"{}\": {} acknowledged, {} present ({} before, {} after){}",
                v.phase,
                r.acknowledged,
                r.present,
                r.present_before,
                r.present_after,
                if r.matches {
                    ": they match".to_string()
                } else if r.present < r.acknowledged as i64 {
                    format!(": {} acknowledged documents are missing", r.acknowledged as i64 - r.present)
                } else {
                    format!(
                        ": {} more than acknowledged (written, but their answers were lost)",
                        r.present - r.acknowledged as i64
                    )
                }
            ),
            (None, Some(why)) => writeln!(
                o,
                "\nDocuments written in \"{}\": the server's count could not be read after the last phase: {why}",
                v.phase
            ),
            (None, None) => Ok(()),
        };
    }
    o
}

/// `--probe`: what each server counted during each phase (the difference of its
/// readings before and after), or why it could not be read.
fn probes(o: &mut String, phases: &[PhaseResult], steps: &[StepResult]) {
    if steps.iter().all(|s| s.probes.is_empty()) {
        return;
    }
    o.push_str("\nProbes (the servers' own counts during each phase):\n");
    for (p, s) in phases.iter().zip(steps) {
        for r in &s.probes {
            let what = match &r.error {
                Some(e) => format!("no numbers ({e})"),
                None => {
                    let mut d: Vec<String> =
                        r.delta.iter().map(|(k, v)| format!("{k} {v:+}")).collect();
                    if let Some(rate) = r.cache_hit_rate {
                        d.push(format!("cache hit rate {:.1}%", rate * 100.0));
                    }
                    d.join(", ")
                }
            };
            let _ = writeln!(
                o,
                "  {:<16} {} {}: {what}",
                clip(&p.name, 16),
                r.probe,
                r.target
            );
        }
    }
}

/// How each phase connected, when any asked for HTTP/2 or a pipeline: a phase's
/// figures at 10 streams or 16 commands in flight read as if one were in flight. A
/// phase without either does one of the run's `work` at a time (a store's command).
fn connections(o: &mut String, phases: &[PhaseResult], steps: &[StepResult], work: Work) {
    let asked = |p: &PhaseResult| p.http2_streams.is_some() || p.pipeline.is_some_and(|n| n > 1);
    if !phases.iter().any(asked) {
        return;
    }
    o.push_str("\nConnections:\n");
    for (p, s) in phases.iter().zip(steps) {
        let how = match (p.http2_streams, p.pipeline) {
            (Some(n), _) if s.connections_http2 == 0 && s.connections_opened > 0 => {
                format!("HTTP/1.1 (HTTP/2 with {n} streams asked; the server did not pick h2)")
            }
            (Some(n), _) => format!("{}, {n} streams per connection", s.protocol()),
            (None, Some(n)) if n > 1 => format!("{n} commands in flight per connection"),
            _ => format!("one {} at a time per connection", work.item()),
        };
        let _ = writeln!(o, "  {:<16} {how}", clip(&p.name, 16));
    }
}

/// "recovered in 3.0 s · first failure +0.5 s · worst +1.0 s: 0/s · baseline 293/s, p99 7.97 ms".
fn recovery_line(r: &Recovery) -> String {
    let mut parts = vec![match (r.recovery_s, r.recovering) {
        (Some(s), _) => format!("recovered in {s:.1} s"),
        (None, Some(g)) => format!(
            "not yet recovered when the phase ended at {:.0} s (recovering since {:.0} s)",
            g.ended_at_s,
            r.at_s + g.since_s
        ),
        (None, None) => "not recovered before the end".into(),
    }];
    parts.push(match r.first_error_s {
        Some(s) => format!("first failure +{s:.1} s"),
        None => "no failure".into(),
    });
    if let (Some(at), Some(tp)) = (r.worst_second_s, r.worst_throughput) {
        let p99 = match r.worst_p99_s {
            Some(p) if p > 0.0 => format!(", p99 {}", fmt_latency(p)),
            _ => String::new(),
        };
        parts.push(format!("worst +{at:.1} s: {}/s{p99}", fmt_qps(tp)));
    }
    if let Some(f) = failed_criteria(r) {
        parts.push(f);
    }
    if let Some(b) = &r.baseline {
        parts.push(format!(
            "baseline {}/s, p99 {}{}",
            fmt_qps(b.throughput),
            fmt_latency(b.p99_s),
            if b.inherited {
                " (kept from before)"
            } else {
                ""
            }
        ));
    }
    parts.join(" · ")
}

/// "unhealthy seconds: success 2, p99 1 (p99 limit 1.28 ms set by the floor)": which
/// criteria held recovery back, and the p99 limit with the criterion that set it.
fn failed_criteria(r: &Recovery) -> Option<String> {
    let f = &r.failed;
    let counts: Vec<String> = [
        ("success", f.success),
        ("p99", f.p99),
        ("throughput", f.throughput),
    ]
    .iter()
    .filter(|(_, n)| *n > 0)
    .map(|(k, n)| format!("{k} {n}"))
    .collect();
    let limit = r.p99_limit.map(|l| {
        let by = match l.by {
            P99LimitBy::Factor => "the factor",
            P99LimitBy::Floor => "the floor",
            P99LimitBy::Band => "the baseline's spread",
            P99LimitBy::BaselineMax => "the baseline's slowest response",
        };
        format!("p99 limit {} set by {by}", fmt_latency(l.s))
    });
    match (counts.is_empty(), limit) {
        (true, None) => None,
        (true, Some(l)) => Some(l),
        (false, None) => Some(format!("unhealthy seconds: {}", counts.join(", "))),
        (false, Some(l)) => Some(format!("unhealthy seconds: {} ({l})", counts.join(", "))),
    }
}

fn event_line(e: &EventResult) -> String {
    let when = match e.started_s {
        Some(s) => format!("{s:>6.2}s"),
        None => format!("{:>6.2}s", e.at_s),
    };
    let what = e.command.as_deref().unwrap_or(&e.run);
    let outcome = match (e.started_s, e.ok, &e.error) {
        (None, _, Some(why)) => format!("not run here: {why}"),
        (None, _, None) => "did not run (the scenario ended first)".to_string(),
        (Some(_), true, _) => "ok".to_string(),
        (Some(_), false, Some(why)) => format!("FAILED: {why}"),
        (Some(_), false, None) => "FAILED".to_string(),
    };
    format!("{when}  {}: {what} — {outcome}", e.name)
}

/// A scenario as Markdown: its text as `hakaru suite` ends (phases and events), with
/// the thresholds' verdicts and the warnings that apply.
pub fn markdown_page(s: &crate::result::series::Series, run: &RunResult) -> String {
    let mut extra = String::new();
    if let Some(t) = &run.thresholds {
        extra.push_str(&crate::report::threshold::threshold_markdown(run, t));
        extra.push('\n');
    }
    let warnings = crate::report::table::md_warnings(
        &crate::report::findings::RunKind::of(s, Some(run)).warnings(s),
    );
    // Each phase's table by kind of request, as the HTML page has them.
    let phases = run.suite.as_ref().map_or(&[][..], |x| &x.phases[..]);
    let tables: String = (run.steps.iter().zip(phases))
        .filter_map(|(st, p)| {
            let t = super::labels::markdown(st);
            (!t.is_empty()).then(|| format!("\n#### {}\n\n{t}", p.name))
        })
        .collect();
    format!(
        "### {}\n\n{extra}```text\n{}```\n{tables}{warnings}",
        s.name(),
        text(run)
    )
}

/// The scenario's page: the timeline, the phases and the events with their recovery.
pub fn html(run: &RunResult) -> String {
    let Some(suite) = &run.suite else {
        return String::new();
    };
    let mut b = String::new();
    let _ = write!(
        b,
        "<h1>Scenario {}</h1><p class=\"sub\">{} · {} · {}</p>",
        esc(&suite.scenario),
        esc(&run.started_at),
        esc(&run.tool),
        esc(run.state.as_str())
    );
    if let Some(why) = &run.stop_reason {
        let _ = write!(b, "<p class=\"note\">{}</p>", esc(why));
    }
    b.push_str(&super::sections::verdict_sections(run));
    let _ = write!(
        b,
        "<section><h2>Timeline</h2>{}</section>",
        timeline_svg(run)
    );
    let _ = write!(
        b,
        "<section><h2>Phases and events</h2><pre style=\"white-space: pre-wrap\">{}</pre>",
        esc(&text(run))
    );
    // What "recovered" means, where there was an event to recover from.
    if let Some(c) = suite
        .recovery_criteria
        .as_ref()
        .filter(|_| !suite.events.is_empty())
    {
        b.push_str(&recovered_note(c, Work::of(&run.targets)));
    }
    b.push_str("</section>");
    b.push_str(&label_tables(run, &suite.phases));
    super::page::page(&format!("{} — hakaru suite", suite.scenario), &b)
}

/// What "recovered" means on the page, in the run's words: HTTP's requests answered
/// 2xx/3xx, a SQL run's transactions ended ok, a store's commands answered.
fn recovered_note(c: &crate::result::recovery::Criteria, work: Work) -> String {
    let (items, ok, answers, one) = match work {
        Work::Request | Work::Answer => ("requests", "answered 2xx/3xx", "responses'", "response"),
        Work::Transaction => ("transactions", "ended ok", "transactions'", "transaction"),
        Work::Command => ("commands", "answered with a reply", "replies'", "reply"),
    };
    format!(
        "<p class=\"note\">Recovered: {} consecutive seconds with at least {} of {items} \
         {ok} and throughput at least {} of the baseline's, their {answers} \
         p99 together at most the widest of {}× the baseline's, the baseline's + {}, the \
         baseline's + {} standard deviations of its seconds' p99, and its slowest \
         {one}; the baseline is the {} s before the event (or an earlier event's, when that \
         one had not recovered yet). Times are exact to the second: the timeline counts \
         {items} by the second in which they ended.</p>",
        c.hold_s,
        fmt_share(c.success * 100.0),
        fmt_share(c.throughput * 100.0),
        c.p99_factor,
        fmt_latency(c.p99_floor_s),
        crate::analysis::recovery::P99_BAND_SD,
        c.baseline_s
    )
}

/// What a phase's table per command shows, above it on the page.
const STORE_NOTE: &str = "Per command: hits and misses of reads (a write's are —).";

/// Each phase's table by kind of request (its workloads, or a YCSB phase's operations),
/// for the phases that have one.
fn label_tables(run: &RunResult, phases: &[PhaseResult]) -> String {
    let tables: String = (run.steps.iter().zip(phases))
        .filter_map(|(s, p)| {
            // A YCSB phase over a store: its table per command first, as `run`'s page.
            let store = super::run::store::phase_html(&p.store_commands, s);
            let labels = super::labels::html(s);
            let t = match (store.is_empty(), labels.is_empty()) {
                (true, _) => labels,
                (false, true) => format!("<p>{STORE_NOTE}</p>{store}"),
                (false, false) => format!("<p>{STORE_NOTE}</p>{store}<p>By label:</p>{labels}"),
            };
            (!t.is_empty()).then(|| format!("<h3>{}</h3>{t}", esc(&p.name)))
        })
        .collect();
    if tables.is_empty() {
        return tables;
    }
    // A SQL suite's labels are scripts and statements, a store's commands.
    format!(
        "<section class=\"labels\"><h2>{}</h2>{tables}</section>",
        super::labels::heading(run)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::result::recovery::{Baseline, Criteria};
    use crate::result::suite::{PhaseResult, SuiteResult};

    fn suite_run() -> RunResult {
        let mut a = crate::result::fixture::bare_step(4);
        a.elapsed_s = 10.0;
        a.qps = 1000.0;
        a.total_requests = 10_000;
        a.responses = 9_990;
        a.errors.insert(crate::stats::ErrorKind::Timeout, 10);
        a.latency.p50_s = 0.0004;
        a.latency.p99_s = 2.5;
        let mut run = crate::result::fixture::run(vec![a]);
        run.suite = Some(SuiteResult {
            scenario: "fault.toml".into(),
            phases: vec![PhaseResult {
                name: "steady".into(),
                start_s: 0.0,
                duration_s: 10.0,
                rate: Some("1000".into()),
                clients: 16,
                workloads: Vec::new(),
                ..Default::default()
            }],
            events: vec![
                EventResult {
                    name: "stop node1".into(),
                    at_s: 4.0,
                    run: "kill -STOP {pid:node1}".into(),
                    command: Some("kill -STOP 4242".into()),
                    started_s: Some(4.001),
                    ok: true,
                    exit_code: Some(0),
                    recovery: Some(Recovery {
                        at_s: 4.001,
                        baseline: Some(Baseline {
                            from_s: 0.0,
                            to_s: 4.0,
                            throughput: 1000.0,
                            p99_s: 0.012,
                            p99_spread_s: 0.0,
                            max_s: 0.0,
                            success: 1.0,
                            inherited: false,
                        }),
                        first_error_s: Some(1.0),
                        worst_second_s: Some(0.999),
                        worst_throughput: Some(0.0),
                        worst_success: None,
                        worst_p99_s: None,
                        recovery_s: Some(3.0),
                        recovering: None,
                        p99_limit: None,
                        failed: Default::default(),
                    }),
                    ..Default::default()
                },
                EventResult {
                    name: "chaos".into(),
                    at_s: 6.0,
                    run: "chaos-tool".into(),
                    command: Some("chaos-tool".into()),
                    started_s: Some(6.0),
                    exit_code: Some(127),
                    error: Some("exit status 127: chaos-tool: not found".into()),
                    ..Default::default()
                },
                EventResult {
                    name: "late".into(),
                    at_s: 9.5,
                    run: "true".into(),
                    ..Default::default()
                },
            ],
            recovery_criteria: Some(Criteria::default()),
            verify: vec![crate::result::suite::SuiteVerify {
                phase: "steady".into(),
                result: Some(crate::result::VerifyResult::compare(
                    "http://127.0.0.1:5984/db".into(),
                    9480,
                    0,
                    0,
                    9500,
                )),
                error: None,
            }],
        });
        run
    }

    #[test]
    fn the_terminal_summary() {
        assert_eq!(
            text(&suite_run()),
            "phase               start    length      req/s    failed        p50        p99
steady               0.0s     10.0s       1000     0.10%     400 µs     2.50 s

Events:
    4.00s  stop node1: kill -STOP 4242 — ok
           recovered in 3.0 s · first failure +1.0 s · worst +1.0 s: 0.0/s · baseline 1000/s, p99 12.0 ms
    6.00s  chaos: chaos-tool — FAILED: exit status 127: chaos-tool: not found
    9.50s  late: true — did not run (the scenario ended first)

Documents written in \"steady\": 9480 acknowledged, 9500 present (0 before, 9500 after): 20 more than acknowledged (written, but their answers were lost)
"
        );
    }

    /// A SQL scenario's phases were rated in "req/s" and its timeline drew "2xx/3xx
    /// per second" of "responses/s": they are tps, "ok per second" of
    /// "transactions/s"; a store's ops/s and replies.
    #[test]
    fn a_sql_scenario_rates_its_phases_in_tps_and_draws_ok_transactions() {
        let mut run = suite_run();
        run.targets = vec!["postgres://127.0.0.1:5432/bench".into()];
        let t = text(&run);
        assert!(
            t.starts_with("phase               start    length        tps    failed"),
            "{t}"
        );
        let svg = timeline_svg(&run);
        assert!(
            svg.contains(">transactions/s<") && svg.contains(">ok per second<"),
            "{svg}"
        );
        assert!(!svg.contains("2xx") && !svg.contains("responses/s"));
        let page = html(&run);
        assert!(
            page.contains("of transactions ended ok and throughput")
                && page.contains("the timeline counts transactions by the second"),
            "{page}"
        );
        assert!(!page.contains("2xx/3xx"), "{page}");
        run.targets = vec!["redis://127.0.0.1:6379".into()];
        assert!(text(&run).starts_with("phase               start    length      ops/s"));
        assert!(timeline_svg(&run).contains(">replies per second<"));
    }

    /// Issue 32: a hold cut short by the phase's end read "not recovered"; the line now
    /// says it was recovering, and which criteria the unhealthy seconds failed.
    #[test]
    fn a_hold_cut_short_reads_as_recovering_with_the_criteria_that_failed() {
        use crate::result::recovery::{FailedCriteria, P99Limit, Recovering};
        let mut run = suite_run();
        let suite = run.suite.as_mut().unwrap();
        let r = suite.events[0].recovery.as_mut().unwrap();
        r.recovery_s = None;
        r.recovering = Some(Recovering {
            since_s: 2.0,
            ended_at_s: 10.0,
        });
        r.p99_limit = Some(P99Limit {
            s: 0.013,
            by: P99LimitBy::Floor,
        });
        r.failed = FailedCriteria {
            success: 1,
            p99: 1,
            throughput: 0,
        };
        let t = text(&run);
        assert!(
            t.contains("not yet recovered when the phase ended at 10 s (recovering since 6 s) · "),
            "{t}"
        );
        assert!(
            t.contains("unhealthy seconds: success 1, p99 1 (p99 limit 13.0 ms set by the floor)"),
            "{t}"
        );
    }

    #[test]
    fn operations_are_listed_by_phase() {
        let mut run = suite_run();
        run.steps[0].operations = [("read".to_string(), 950), ("update".to_string(), 50)]
            .into_iter()
            .collect();
        let t = text(&run);
        assert!(
            t.contains(
                "\nOperations:\n  steady           read 950 (95.0%), update 50 (5.0%)\n\nEvents:"
            ),
            "{t}"
        );
        // The failed share of a YCSB phase over CouchDB holds its updates' conflicts.
        run.steps[0].statuses.insert(409, 7);
        let t = text(&run);
        assert!(
            t.contains(
                "update 50 (5.0%)\n                   7 conflicts (409): read and written again\n"
            ),
            "{t}"
        );
    }

    /// A YCSB phase's operations had no table of their own on the suite's page (the
    /// run page had them), and a short load phase's name ran into the next one's.
    #[test]
    fn the_page_has_each_phase_s_table_by_kind_and_names_only_wide_bands() {
        let mut run = suite_run();
        let op = |value: &str, n: u64| crate::result::LabelResult {
            key: "op".into(),
            value: value.into(),
            total_requests: n,
            responses: n,
            statuses: [(200, n)].into(),
            errors: Default::default(),
            bytes_received: 0,
            latency: Default::default(),
            histogram: String::new(),
            timeline: None,
        };
        run.steps[0].labels = vec![op("read", 900), op("update", 100)];
        let mut load = run.suite.as_ref().unwrap().phases[0].clone();
        (load.name, load.duration_s) = ("a-load-of-a-moment".into(), 0.05);
        let suite = run.suite.as_mut().unwrap();
        suite.phases[0].start_s = 0.05;
        suite.phases.insert(0, load);
        run.steps.insert(0, crate::result::fixture::bare_step(4));
        let page = html(&run);
        let tables = page.split("By kind of request").nth(1).expect("the tables");
        assert!(tables.contains("<h3>steady</h3>"), "{tables}");
        assert!(tables.contains("op=read") && tables.contains("op=update"));
        assert!(
            !tables.contains("a-load-of-a-moment"),
            "no labels, no table"
        );
        let svg = timeline_svg(&run);
        assert!(svg.contains(">steady</text>") && !svg.contains(">a-load-of-a-moment<"));
    }

    /// A SQL suite's page headed its scripts' and statements' tables "By kind of
    /// request".
    #[test]
    fn a_sql_suite_s_label_tables_are_by_script_and_statement() {
        let mut run = suite_run();
        let label = |key: &str, value: &str| crate::result::LabelResult {
            key: key.into(),
            value: value.into(),
            total_requests: 100,
            responses: 100,
            statuses: Default::default(),
            errors: Default::default(),
            bytes_received: 0,
            latency: Default::default(),
            histogram: String::new(),
            timeline: None,
        };
        run.steps[0].labels = vec![label("script", "tx.sql"), label("stmt", "1")];
        let page = html(&run);
        assert!(page.contains("<h2>By script and statement</h2>"), "{page}");
        assert!(!page.contains("By kind of request"), "{page}");
    }

    /// A phase's `before` was in the step's JSON and CSV but not in the suite's
    /// terminal summary.
    #[test]
    fn a_phase_s_before_command_is_said() {
        let mut run = suite_run();
        run.steps[0].before_step = Some(crate::result::command::CommandResult {
            command: "redis-cli flushall".into(),
            exit_code: Some(1),
            ok: false,
            error: Some("exit status 1: NOAUTH".into()),
            duration_s: 0.25,
            ..Default::default()
        });
        let t = text(&run);
        assert!(
            t.contains(
                "\nBefore the phase:\n  steady           FAILED after 0.25 s: exit status 1: NOAUTH\n\nEvents:"
            ),
            "{t}"
        );
    }

    /// Each phase's HTTP/2 streams and pipeline depth were in no suite result: the
    /// run's settings named only the first workload's.
    #[test]
    fn each_phase_s_connections_are_said() {
        let mut run = suite_run();
        let plain = run.steps[0].clone();
        let mut h2 = plain.clone();
        h2.connections_opened = 2;
        h2.connections_http2 = 2;
        let mut refused = plain.clone();
        refused.connections_opened = 4;
        run.steps = vec![plain, h2, refused.clone(), refused];
        let suite = run.suite.as_mut().expect("a suite");
        let phase = |name: &str, streams, pipeline| PhaseResult {
            name: name.into(),
            http2_streams: streams,
            pipeline,
            ..suite.phases[0].clone()
        };
        suite.phases = vec![
            phase("plain", None, None),
            phase("h2", Some(10), None),
            phase("no-h2", Some(4), None),
            phase("pipelined", None, Some(16)),
        ];
        let t = text(&run);
        assert!(
            t.contains(concat!(
                "\nConnections:\n",
                "  plain            one request at a time per connection\n",
                "  h2               HTTP/2, 10 streams per connection\n",
                "  no-h2            HTTP/1.1 (HTTP/2 with 4 streams asked; the server did not pick h2)\n",
                "  pipelined        16 commands in flight per connection\n",
            )),
            "{t}"
        );
        assert!(!text(&suite_run()).contains("Connections:"));
        // A store's suite said its plain phase sent "one request at a time".
        run.targets = vec!["redis://127.0.0.1:6379".into()];
        assert!(text(&run).contains("  plain            one command at a time per connection\n"));
    }

    #[test]
    fn the_page_marks_phases_and_events() {
        let page = html(&suite_run());
        assert!(page.contains(">steady</text>"));
        assert!(page.contains("chaos ✗"));
        assert!(page.contains("stop node1 recovered in 3.0 s"));
        assert!(page.contains("5 consecutive seconds"));
    }
}
