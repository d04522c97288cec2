//! Tests of `--find-max`'s words (`report::find_max`): why a probe failed, the probe
//! table, the answer's sentences, the page's section and its charts, in HTTP's words
//! and a SQL run's or a store's.

use super::*;
use crate::result::find_max::FailedThreshold;

fn probe(rate: f64, passed: bool) -> ProbeResult {
    ProbeResult {
        rate,
        passed,
        duration_s: 2.0,
        responses: (rate * 2.0) as u64,
        min_samples: 1000,
        values: vec![Some(0.0042), Some(0.0)],
        part_p50_s: vec![0.004, 0.004],
        first_part_p90_s: 0.0045,
        ..ProbeResult::default()
    }
}

#[test]
fn the_table_says_why_each_probe_failed() {
    let mut slow = probe(800.0, false);
    slow.responses = 1000;
    slow.values = vec![Some(0.312), Some(0.0)];
    slow.failed = vec![FailedThreshold {
        threshold: "p99<50ms".into(),
        value: Some(0.312),
    }];
    slow.queue_growing = true;
    slow.part_p50_s = vec![0.1, 0.15, 0.21];
    slow.first_part_p90_s = 0.120;
    slow.why = why(&slow, Work::Request);
    let mut short = probe(450.0, false);
    short.responses = 640;
    short.too_few_samples = true;
    short.why = why(&short, Work::Request);
    // Regression: a probe over capacity fills every connection, and its reasons
    // told the user to add connections, as if hakaru had been the limit.
    let mut queued = slow.clone();
    queued.client_behind = true;
    queued.dropped = 57;
    assert!(why(&queued, Work::Request).contains(
        &"57 due requests never sent: every connection was waiting on the server".into()
    ));
    let mut alone = probe(450.0, false);
    alone.client_behind = true;
    alone.dropped = 57;
    assert!(why(&alone, Work::Request)[0].contains("more --end-n-clients"));
    // A SQL run's reasons count transactions (they said "responses", "requests").
    assert_eq!(
        why(&short, Work::Transaction),
        ["only 640 transactions (needs 1000 to judge)"]
    );
    assert!(why(&queued, Work::Transaction).contains(
        &"57 due transactions never sent: every connection was waiting on the server".into()
    ));
    let fm = FindMaxResult {
        slo: vec!["p99<50ms".into(), "errors<0.1%".into()],
        max_sustainable_rate: Some(400.0),
        confirmed: true,
        lowest_failed_rate: Some(412.5),
        uncertainty: Some(0.03125),
        min_samples: 1000,
        probe_duration_s: 2.0,
        ended: "converged".into(),
        probes: vec![probe(400.0, true), slow, short],
    };
    assert_eq!(
        probe_table(&fm, Work::Request),
        "  #     rate/s   answered  responses      p99<50ms   errors<0.1%  result
  1      400.0      400.0        800       4.20 ms            0%  pass
  2      800.0      500.0       1000        312 ms            0%  FAIL: p99<50ms was 312 ms; queue growing: median 100 ms rising to 210 ms, above the first part's p90 120 ms
  3      450.0      320.0        640       4.20 ms            0%  FAIL: only 640 responses (needs 1000 to judge)
"
    );
    assert_eq!(
        find_max_summary(&fm, Work::Request),
        "Max sustainable rate: 400.0/s meeting p99<50ms, errors<0.1% (held on a second probe).
The limit lies between 400.0/s (passed) and 412.5/s (failed): within 3.1% above the answer.
3 probe(s) of at least 1000 responses and 2.00 s each; the search ended because the bracket closed to the precision asked.
"
    );
}

/// A stall failed the first probe and its repeat passed: each repeat's row says
/// which probe it ran again and why, the failure reads "not confirmed", and the
/// summary counts it.
#[test]
fn repeats_say_what_they_confirm_and_a_failure_not_confirmed_says_so() {
    use crate::result::find_max::Repeat;
    let mut stalled = probe(400.0, false);
    stalled.values = vec![Some(2.1), Some(0.0)];
    stalled.failed = vec![FailedThreshold {
        threshold: "p99<50ms".into(),
        value: Some(2.1),
    }];
    stalled.why = why(&stalled, Work::Request);
    stalled.unconfirmed = true;
    let mut again = probe(400.0, true);
    again.repeat = Some(Repeat {
        of: 0,
        confirming: Confirming::Failure,
    });
    let mut answer = probe(400.0, true);
    answer.repeat = Some(Repeat {
        of: 1,
        confirming: Confirming::Pass,
    });
    let fm = FindMaxResult {
        slo: vec!["p99<50ms".into(), "errors<0.1%".into()],
        max_sustainable_rate: Some(400.0),
        confirmed: true,
        min_samples: 1000,
        probe_duration_s: 2.0,
        ended: "max_rate".into(),
        probes: vec![stalled, again, answer],
        ..FindMaxResult::default()
    };
    let rows = probe_table(&fm, Work::Request);
    for row in [
        "FAIL: p99<50ms was 2.10 s\n",
        "pass (repeat of #1, confirming a failure: not confirmed (a stall, not the \
         target's limit), the bracket stays)\n",
        "pass (repeat of #2, confirming a pass: held)\n",
    ] {
        assert!(rows.contains(row), "{row}\n{rows}");
    }
    assert!(
        find_max_summary(&fm, Work::Request).contains(
            "\n1 failure(s) not confirmed (#1 at 400.0/s): the probe run again at the \
             rate passed, so the failure was taken for a stall of the machine or the \
             target and lowered nothing.\n"
        ),
        "{}",
        find_max_summary(&fm, Work::Request)
    );
    let md = find_max_markdown(&fm, Work::Request);
    assert!(
        md.contains("| FAIL, not confirmed: p99<50ms was 2.10 s |"),
        "{md}"
    );
    assert!(
        md.contains("| pass (the answer): repeat of #2, confirming a pass: held |"),
        "{md}"
    );
}

/// A search of three probes: 400/s passed (twice), 800/s failed its p99.
fn search() -> (RunResult, FindMaxResult) {
    use crate::analysis::threshold::tests_support::step;
    let mut slow = probe(800.0, false);
    slow.step = 1;
    slow.values = vec![Some(0.312), Some(0.0)];
    slow.failed = vec![FailedThreshold {
        threshold: "p99<50ms".into(),
        value: Some(0.312),
    }];
    slow.why = why(&slow, Work::Request);
    let mut again = probe(400.0, true);
    again.step = 2;
    let fm = FindMaxResult {
        slo: vec!["p99<50ms".into(), "errors<0.1%".into()],
        max_sustainable_rate: Some(400.0),
        confirmed: true,
        lowest_failed_rate: Some(800.0),
        uncertainty: Some(1.0),
        min_samples: 1000,
        probe_duration_s: 2.0,
        ended: "max_probes".into(),
        probes: vec![probe(400.0, true), slow, again],
    };
    let mut run = crate::result::fixture::run(vec![
        step(800, 0, 2.0),
        step(1000, 2, 2.0),
        step(800, 0, 2.0),
    ]);
    run.find_max = Some(fm.clone());
    (run, fm)
}

#[test]
fn markdown_gives_the_answer_and_every_probe_with_why() {
    let (_, fm) = search();
    assert_eq!(
        find_max_markdown(&fm, Work::Request),
        "#### Max sustainable rate: 400.0/s

Max sustainable rate: 400.0/s meeting p99<50ms, errors<0.1% (held on a second probe).  
The limit lies between 400.0/s (passed) and 800.0/s (failed): within 100.0% above the answer.  
3 probe(s) of at least 1000 responses and 2.00 s each; the search ended because --max-probes ran out before the bracket closed.  

| # | rate/s | answered/s | responses | `p99<50ms` | `errors<0.1%` | result |
|--:|--:|--:|--:|--:|--:|:--|
| 1 | 400.0 | 400.0 | 800 | 4.20 ms | 0% | pass |
| 2 | 800.0 | 800.0 | 1600 | 312 ms | 0% | **FAIL**: p99<50ms was 312 ms |
| 3 | **400.0** | 400.0 | 800 | 4.20 ms | 0% | pass (the answer) |
"
    );
}

#[test]
fn html_marks_the_answer_and_the_failed_probes() {
    let (run, fm) = search();
    let h = find_max_html(&run, &fm, &ReportOptions::default());
    assert!(h.contains("<div class=\"k\">Max sustainable rate</div><div class=\"v\">400.0 req/s</div><div class=\"n\">held on a second probe</div>"), "{h}");
    assert!(
        h.contains("<div class=\"v\">+100.0%</div><div class=\"n\">800.0 req/s failed</div>"),
        "{h}"
    );
    assert!(
        h.contains("<tr class=\"behind\"><td>2</td><td>800.0</td>"),
        "{h}"
    );
    assert!(h.contains("<td class=\"fail\">312 ms</td>"), "{h}");
    assert!(
        h.contains("<td class=\"l fail\">FAIL</td><td class=\"why\">p99&lt;50ms was 312 ms</td>"),
        "{h}"
    );
    assert!(h.contains("<tr class=\"peak\"><td>3</td>"), "{h}");
    assert!(h.contains("pass (the answer)"), "{h}");
    // Both charts: the SLO's p99 and, with errors in a probe, its errors.
    assert_eq!(h.matches("<svg").count(), 2, "{h}");
}

/// `ramp --find-max postgres://…` said "Max sustainable rate 400.0 req/s" and
/// "≥ 1000 responses a probe", its charts "requests per second": a SQL run's
/// rates are tps and it counts transactions, a store's ops/s and replies.
#[test]
fn a_sql_search_s_page_says_tps_and_transactions_never_req_s() {
    let (mut run, fm) = search();
    run.targets = vec!["postgres://127.0.0.1:5432/hb".into()];
    let h = find_max_html(&run, &fm, &ReportOptions::default());
    assert!(h.contains("<div class=\"v\">400.0 tps</div>"), "{h}");
    assert!(h.contains("<div class=\"n\">800.0 tps failed</div>"), "{h}");
    assert!(h.contains("≥ 1000 transactions a probe"), "{h}");
    assert!(h.contains("<th>transactions</th><th>seconds</th>"), "{h}");
    assert!(h.contains("offered rate (transactions per second)"), "{h}");
    assert!(h.contains("errors (% of transactions)"), "{h}");
    assert!(!h.contains("req/s") && !h.contains("request"), "{h}");
    let md = markdown_page(&Series::from_run(&run, "a"), &run, &fm);
    assert!(
        md.contains("| # | rate/s | answered/s | transactions |"),
        "{md}"
    );
    assert!(
        md.contains("3 probe(s) of at least 1000 transactions"),
        "{md}"
    );
    // The terminal's table too, its rows under the wider heading.
    let t = probe_table(&fm, Work::Transaction);
    let lines: Vec<&str> = t.lines().collect();
    assert!(
        lines[0].starts_with("  #     rate/s   answered  transactions  "),
        "{t}"
    );
    assert!(
        lines[1].starts_with("  1      400.0      400.0           800  "),
        "{t}"
    );
    run.targets = vec!["redis://127.0.0.1:6379".into()];
    let h = find_max_html(&run, &fm, &ReportOptions::default());
    assert!(h.contains("<div class=\"v\">400.0 ops/s</div>"), "{h}");
    assert!(h.contains("≥ 1000 replies a probe"), "{h}");
    assert!(!h.contains("req/s") && !h.contains("request"), "{h}");
}

#[test]
fn the_chart_has_probes_as_points_the_slo_as_a_line_and_the_answer_marked() {
    let (run, fm) = search();
    let c = chart::find_max_latency_chart(&run, &fm, Default::default());
    assert_eq!(c.title, "p99 of each probe by rate");
    let names: Vec<&str> = c.lines.iter().map(|l| l.name.as_str()).collect();
    assert_eq!(names, ["p99, passed", "p99, failed"]);
    assert!(c
        .lines
        .iter()
        .all(|l| l.dash == Some(crate::report::chart::UNJOINED)));
    assert_eq!(c.lines[0].points, [(400.0, 4.2), (400.0, 4.2)]);
    assert_eq!(c.lines[1].points, [(800.0, 312.0)]);
    assert_eq!(
        (c.refs[0].name.as_str(), c.refs[0].y),
        ("SLO p99<50ms", 50.0)
    );
    let marks: Vec<&str> = c.marks.iter().map(|m| m.label.as_str()).collect();
    assert_eq!(marks, ["answer 400.0/s", "failed 800.0/s"]);
    assert!(
        c.lines[1].tips[0].starts_with("probe 2: 800.0/s, p99 312 ms — FAIL: p99<50ms was 312 ms")
    );
    // Unjoined: markers, no polyline.
    let svg = crate::report::chart::render_line_chart(&c);
    assert!(!svg.contains("<polyline"), "{svg}");
    let e = chart::find_max_error_chart(&run, &fm).expect("the SLO bounds errors");
    // 2 connect errors of 1,002 requests.
    assert_eq!(e.lines[1].points, vec![(800.0, 2.0 / 1002.0 * 100.0)]);
    assert_eq!(e.refs[0].y, 0.1);
}
