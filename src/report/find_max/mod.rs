//! `ramp --find-max`'s words and tables: why a probe failed, one row per probe as the
//! search goes, and the answer with its bracket — for the terminal, and as the HTML
//! report's section (cards, the probes' charts, the table) and Markdown. Pure
//! functions of the result types.

pub mod chart;

use std::fmt::Write as _;

use super::chart::esc;
use super::chart::LineChart;
use super::fmt::{fmt_latency, fmt_qps, Work};
use super::table::{md_table, Align};
use super::threshold::fmt_value;
use super::ReportOptions;
use crate::analysis::find_max::LATE_SHARE;
use crate::result::find_max::{Confirming, FindMaxResult, ProbeResult};
use crate::result::series::Series;
use crate::result::RunResult;

/// Why a probe failed, one reason each: "p99<50ms: 81.2 ms", "only 640 responses (needs
/// 1000)", "queue growing: …", "hakaru fell behind: …". Empty for a pass. Counted in
/// the run's words (a SQL run's transactions).
pub fn why(p: &ProbeResult, work: Work) -> Vec<String> {
    let mut out = Vec::new();
    let items = work.items();
    if p.too_few_samples {
        out.push(format!(
            "only {} {} (needs {} to judge)",
            p.responses,
            work.answers(),
            p.min_samples
        ));
    }
    for f in &p.failed {
        out.push(match f.value {
            Some(_) => format!("{} was {}", f.threshold, fmt_value(&f.threshold, f.value)),
            None => format!("{}: nothing to measure it on", f.threshold),
        });
    }
    if p.queue_growing {
        out.push(format!(
            "queue growing: median {} rising to {}, above the first part's p90 {}",
            fmt_latency(p.part_p50_s.first().copied().unwrap_or(0.0)),
            fmt_latency(p.part_p50_s.last().copied().unwrap_or(0.0)),
            fmt_latency(p.first_part_p90_s)
        ));
    }
    if p.client_behind {
        // A server whose queue grows keeps every connection waiting, so due requests
        // go unsent because of the server: the advice to add connections would mislead.
        out.push(if p.queue_growing || !p.failed.is_empty() {
            format!(
                "{} due {items} never sent: every connection was waiting on the server",
                p.dropped
            )
        } else {
            format!(
                "hakaru fell behind its timetable ({} due {items} never sent): more --end-n-clients, or a faster client machine",
                p.dropped
            )
        });
    }
    if !out.is_empty() && p.fell_behind {
        out.push(format!(
            "answered {:.1}% of what a server keeping up would have",
            p.kept_up_share * 100.0
        ));
    }
    let ended = p.responses.max(1) as f64;
    if !out.is_empty() && p.late as f64 > LATE_SHARE * ended {
        out.push(format!(
            "{} {items} left late (every connection busy, or hakaru short of CPU)",
            p.late
        ));
    }
    if p.inconclusive {
        out.push("probed again for twice as long".into());
    }
    out
}

/// The width of the probe table's count column: "responses", a SQL run's
/// "transactions".
fn count_width(work: Work) -> usize {
    work.answers().len().max(9)
}

/// The header of the probe table, for an SLO of these thresholds; its count column in
/// the run's words (a SQL run's "transactions").
pub fn probe_header(slo: &[String], work: Work) -> String {
    let mut line = format!(
        "{:>3}  {:>9}  {:>9}  {:>w$}",
        "#",
        "rate/s",
        "answered",
        work.answers(),
        w = count_width(work)
    );
    for t in slo {
        line.push_str(&format!("  {:>12}", t));
    }
    line.push_str("  result");
    line
}

/// One probe's row: its rate, what was answered, each SLO figure, the verdict and why.
pub fn probe_row(index: usize, slo: &[String], p: &ProbeResult, work: Work) -> String {
    let answered = if p.duration_s > 0.0 {
        p.responses as f64 / p.duration_s
    } else {
        0.0
    };
    let mut line = format!(
        "{:>3}  {:>9}  {:>9}  {:>w$}",
        index + 1,
        fmt_qps(p.rate),
        fmt_qps(answered),
        p.responses,
        w = count_width(work)
    );
    for (t, v) in slo.iter().zip(&p.values) {
        line.push_str(&format!("  {:>12}", fmt_value(t, *v)));
    }
    if p.passed {
        line.push_str("  pass");
    } else if p.inconclusive {
        line.push_str(&format!("  not judged: {}", p.why.join("; ")));
    } else {
        line.push_str(&format!("  FAIL: {}", p.why.join("; ")));
    }
    if let Some(note) = repeat_note(p) {
        line.push_str(&format!(" ({note})"));
    }
    line
}

/// What a repeat was for and what came of it, numbering probes from 1 as the tables
/// do: "repeat of #1, confirming a failure: not confirmed, the bracket stays". `None`
/// for a probe that repeated nothing.
pub fn repeat_note(p: &ProbeResult) -> Option<String> {
    let r = p.repeat?;
    let what = match r.confirming {
        Confirming::Pass => "a pass",
        Confirming::Failure => "a failure",
    };
    let outcome = match (r.confirming, p.passed, p.inconclusive) {
        (_, _, true) => "",
        (Confirming::Failure, true, _) => {
            ": not confirmed (a stall, not the target's limit), the bracket stays"
        }
        (Confirming::Failure, false, _) => ": confirmed",
        (Confirming::Pass, true, _) => ": held",
        (Confirming::Pass, false, _) => ": did not hold",
    };
    Some(format!(
        "repeat of #{}, confirming {what}{outcome}",
        r.of + 1
    ))
}

/// The whole table, header first.
pub fn probe_table(fm: &FindMaxResult, work: Work) -> String {
    let mut out = probe_header(&fm.slo, work);
    out.push('\n');
    for (i, p) in fm.probes.iter().enumerate() {
        out.push_str(&probe_row(i, &fm.slo, p, work));
        out.push('\n');
    }
    out
}

/// What the search found, in sentences, ending with a newline; what a probe counts
/// in the run's words (a SQL run's transactions).
pub fn find_max_summary(fm: &FindMaxResult, work: Work) -> String {
    let slo = fm.slo.join(", ");
    let mut out = match fm.max_sustainable_rate {
        Some(r) => {
            let mut s = format!("Max sustainable rate: {}/s meeting {slo}", fmt_qps(r));
            s.push_str(if fm.confirmed {
                " (held on a second probe)"
            } else {
                " (not confirmed by a second probe: treat it as a first estimate)"
            });
            match (fm.lowest_failed_rate, fm.uncertainty) {
                (Some(h), Some(u)) => s.push_str(&format!(
                    ".\nThe limit lies between {}/s (passed) and {}/s (failed): within {:.1}% above the answer.\n",
                    fmt_qps(r),
                    fmt_qps(h),
                    u * 100.0
                )),
                _ => s.push_str(&format!(
                    ".\nEvery probe up to {}/s passed: the limit is at least that.\n",
                    fmt_qps(r)
                )),
            }
            s
        }
        None => format!("No probed rate met {slo}.\n"),
    };
    let ended = ended(fm);
    out.push_str(&format!(
        "{} probe(s) of at least {} {} and {} s each; the search ended because {ended}.\n",
        fm.probes.len(),
        fm.min_samples,
        work.answers(),
        super::fmt::sig3(fm.probe_duration_s)
    ));
    let unconfirmed: Vec<String> = fm
        .probes
        .iter()
        .enumerate()
        .filter(|(_, p)| p.unconfirmed)
        .map(|(i, p)| format!("#{} at {}/s", i + 1, fmt_qps(p.rate)))
        .collect();
    if !unconfirmed.is_empty() {
        out.push_str(&format!(
            "{} failure(s) not confirmed ({}): the probe run again at the rate passed, so \
             the failure was taken for a stall of the machine or the target and lowered \
             nothing.\n",
            unconfirmed.len(),
            unconfirmed.join(", ")
        ));
    }
    let waits: Vec<_> = fm.probes.iter().filter_map(|p| p.settle.as_ref()).collect();
    if !waits.is_empty() {
        let total: f64 = waits.iter().map(|s| s.waited_s).sum();
        let unsettled = waits.iter().filter(|s| !s.settled).count();
        out.push_str(&format!(
            "After each probe that did not pass, the search waited for the target to answer as before \
             ({} wait(s), {} s in all){}.\n",
            waits.len(),
            super::fmt::sig3(total),
            if unsettled > 0 {
                format!("; {unsettled} did not settle in time and its probe ran anyway")
            } else {
                String::new()
            }
        ));
    }
    out
}

/// The line the terminal shows after the checks before a probe.
pub fn settle_line(s: &crate::result::find_max::Settle) -> String {
    let p50 = s.last_p50_s.map_or("no response".into(), fmt_latency);
    if s.settled {
        format!(
            "settled: {} s ({} check(s) at {}/s) until p50 {p50} was back near the first \
             passing probe's {}",
            super::fmt::sig3(s.waited_s),
            s.checks,
            fmt_qps(s.rate),
            fmt_latency(s.baseline_p50_s)
        )
    } else {
        format!(
            "not settled after {} s ({} check(s) at {}/s; p50 {p50}, first passing probe's \
             {}): the next probe may carry the overload",
            super::fmt::sig3(s.waited_s),
            s.checks,
            fmt_qps(s.rate),
            fmt_latency(s.baseline_p50_s)
        )
    }
}

/// Why the search ended, as the end of a sentence.
fn ended(fm: &FindMaxResult) -> &str {
    match fm.ended.as_str() {
        "converged" => "the bracket closed to the precision asked",
        "max_rate" => "--max-rate was reached",
        "max_probes" => "--max-probes ran out before the bracket closed",
        "none_passed" => "no rate passed, down to the lowest the search tries",
        "interrupted" => "it was interrupted",
        other => other,
    }
}

/// What a probe answered per second.
fn answered(p: &ProbeResult) -> f64 {
    if p.duration_s > 0.0 {
        p.responses as f64 / p.duration_s
    } else {
        0.0
    }
}

/// The probe that is the answer: the last passed probe at the answer's rate.
fn answer_probe(fm: &FindMaxResult) -> Option<usize> {
    let r = fm.max_sustainable_rate?;
    fm.probes.iter().rposition(|p| p.passed && p.rate == r)
}

/// A probe's verdict in a word or two, and why (with what a repeat was for).
fn verdict(p: &ProbeResult) -> (&'static str, String) {
    let mut why = p.why.clone();
    why.extend(repeat_note(p));
    let why = why.join("; ");
    if p.passed {
        ("pass", why)
    } else if p.inconclusive {
        ("not judged", why)
    } else if p.unconfirmed {
        ("FAIL, not confirmed", why)
    } else {
        ("FAIL", why)
    }
}

/// What a `--find-max` run's page shows under its verdicts: the search's section, its
/// warnings, and the probes' charts by rate (without the marks of rates held, which
/// judge throughput alone).
pub fn html_body(
    run: &RunResult,
    fm: &FindMaxResult,
    shown: &Series,
    opts: &ReportOptions,
) -> String {
    let mut b = find_max_html(run, fm, opts);
    b.push_str(&crate::report::page::kind_warnings(
        crate::report::findings::RunKind::FindMax,
        shown,
    ));
    let sorted = crate::report::chart::by_rate(shown);
    for (_, c) in crate::report::chart::searched_charts(&sorted, opts) {
        b.push_str(&crate::report::page::chart_section(&c));
    }
    b
}

/// A `--find-max` run as Markdown: read by its answer and probes, not rate by rate,
/// with the thresholds' verdicts and the warnings that apply.
pub fn markdown_page(s: &Series, run: &RunResult, fm: &FindMaxResult) -> String {
    let mut extra = String::new();
    if let Some(t) = &run.thresholds {
        extra.push_str(&crate::report::threshold::threshold_markdown(run, t));
        extra.push('\n');
    }
    let warnings = crate::report::table::md_warnings(
        &crate::report::findings::RunKind::of(s, Some(run)).warnings(s),
    );
    format!(
        "### {}\n\n{extra}{}{warnings}",
        s.name(),
        find_max_markdown(fm, Work::of(&run.targets))
    )
}

/// The charts of the search: each probe's response time, and its errors when the SLO
/// bounds them or a probe had any.
pub fn find_max_charts(
    run: &RunResult,
    fm: &FindMaxResult,
    opts: &ReportOptions,
) -> Vec<(&'static str, LineChart)> {
    let mut out = vec![(
        "-find-max",
        chart::find_max_latency_chart(run, fm, opts.chart),
    )];
    if let Some(c) = chart::find_max_error_chart(run, fm) {
        out.push(("-find-max-errors", c));
    }
    out
}

/// The HTML report's section of a `--find-max` search: the answer with its bracket,
/// the probes' charts and every probe with its verdict and why it failed.
pub fn find_max_html(run: &RunResult, fm: &FindMaxResult, opts: &ReportOptions) -> String {
    // A SQL run's rates are tps, a store's ops/s: the run's own words.
    let work = Work::of(&run.targets);
    let per_s = work.per_s();
    let mut b = String::from(
        "<section class=\"summary\" id=\"find-max\"><h2>Highest rate meeting the SLO</h2><div class=\"cards\">",
    );
    let mut card = |k: &str, v: String, n: String| {
        let _ = write!(
            b,
            "<div class=\"card\"><div class=\"k\">{}</div><div class=\"v\">{}</div><div class=\"n\">{}</div></div>",
            esc(k),
            esc(&v),
            esc(&n)
        );
    };
    match fm.max_sustainable_rate {
        Some(r) => card(
            "Max sustainable rate",
            format!("{} {per_s}", fmt_qps(r)),
            if fm.confirmed {
                "held on a second probe".into()
            } else {
                "not confirmed by a second probe".into()
            },
        ),
        None => card(
            "Max sustainable rate",
            "none".into(),
            "no probed rate met the SLO".into(),
        ),
    }
    match (fm.lowest_failed_rate, fm.uncertainty) {
        (Some(h), Some(u)) => card(
            "Uncertainty",
            format!("+{:.1}%", u * 100.0),
            format!("{} {per_s} failed", fmt_qps(h)),
        ),
        (Some(h), None) => card(
            "Lowest failed rate",
            format!("{} {per_s}", fmt_qps(h)),
            "no rate below it passed".into(),
        ),
        (None, _) => card(
            "Lowest failed rate",
            "none".into(),
            "every probe passed: the limit is higher".into(),
        ),
    }
    card(
        "SLO",
        fm.slo.join(", "),
        format!("≥ {} {} a probe", fm.min_samples, work.answers()),
    );
    card(
        "Probes",
        fm.probes.len().to_string(),
        format!("of ≥ {} s each", super::fmt::sig3(fm.probe_duration_s)),
    );
    b.push_str("</div>");
    for line in find_max_summary(fm, work).lines() {
        let _ = write!(b, "<p>{}</p>", super::page::rich(line));
    }
    b.push_str("</section>");
    for (_, c) in find_max_charts(run, fm, opts) {
        b.push_str(&super::page::chart_section(&c));
    }
    b.push_str(&probes_table_html(fm, work));
    b
}

/// The probes' table; its count column in the run's words (a SQL run's transactions).
fn probes_table_html(fm: &FindMaxResult, work: Work) -> String {
    let mut o = format!(
        "<section><h2>Probes</h2><div class=\"scroll\"><table><thead><tr><th>#</th><th>rate/s</th>\
         <th>answered/s</th><th>{}</th><th>seconds</th>",
        work.answers()
    );
    for t in &fm.slo {
        let _ = write!(o, "<th><code>{}</code></th>", esc(t));
    }
    o.push_str("<th class=\"l\">result</th><th class=\"l\">why</th></tr></thead><tbody>");
    let answer = answer_probe(fm);
    for (i, p) in fm.probes.iter().enumerate() {
        let (word, why) = verdict(p);
        let class = if answer == Some(i) {
            " class=\"peak\""
        } else if p.passed {
            ""
        } else {
            " class=\"behind\""
        };
        let _ = write!(
            o,
            "<tr{class}><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>",
            i + 1,
            fmt_qps(p.rate),
            fmt_qps(answered(p)),
            p.responses,
            super::fmt::sig3(p.duration_s)
        );
        for (t, v) in fm.slo.iter().zip(&p.values) {
            let failed = p.failed.iter().any(|f| &f.threshold == t);
            let _ = write!(
                o,
                "<td{}>{}</td>",
                if failed { " class=\"fail\"" } else { "" },
                esc(&fmt_value(t, *v))
            );
        }
        let _ = write!(
            o,
            "<td class=\"l{}\">{}{}</td><td class=\"why\">{}</td></tr>",
            if p.passed { "" } else { " fail" },
            word,
            if answer == Some(i) {
                " (the answer)"
            } else {
                ""
            },
            super::page::rich(&why)
        );
    }
    let _ = write!(
        o,
        "</tbody></table></div><p class=\"note\">In the order the search ran them. A probe \
         needs {} {} to be judged; latency counts from each {}'s due time. The \
         highlighted row is the answer; failed probes are shaded.</p></section>",
        fm.min_samples,
        work.answers(),
        work.item()
    );
    o
}

/// A `--find-max` search as Markdown: the answer, its bracket and every probe, counted
/// in the run's words (a SQL run's transactions).
pub fn find_max_markdown(fm: &FindMaxResult, work: Work) -> String {
    let mut o = match fm.max_sustainable_rate {
        Some(r) => format!("#### Max sustainable rate: {}/s\n\n", fmt_qps(r)),
        None if fm.probes.is_empty() => "#### The search ran no probe\n\n".to_owned(),
        None => "#### No rate met the SLO\n\n".to_owned(),
    };
    for line in find_max_summary(fm, work).lines() {
        let _ = writeln!(o, "{line}  ");
    }
    if fm.probes.is_empty() {
        return o;
    }
    o.push('\n');
    let mut headers: Vec<String> = ["#", "rate/s", "answered/s", work.answers()]
        .map(String::from)
        .to_vec();
    headers.extend(fm.slo.iter().map(|t| format!("`{t}`")));
    headers.push("result".into());
    let headers: Vec<&str> = headers.iter().map(String::as_str).collect();
    let mut aligns = vec![Align::Right; headers.len()];
    aligns[headers.len() - 1] = Align::Left;
    let answer = answer_probe(fm);
    let rows: Vec<Vec<String>> = fm
        .probes
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let mut r = vec![
                (i + 1).to_string(),
                if answer == Some(i) {
                    format!("**{}**", fmt_qps(p.rate))
                } else {
                    fmt_qps(p.rate)
                },
                fmt_qps(answered(p)),
                p.responses.to_string(),
            ];
            r.extend(fm.slo.iter().zip(&p.values).map(|(t, v)| fmt_value(t, *v)));
            let (word, why) = verdict(p);
            // A pass's "why" is what it repeated, if anything.
            let note = if why.is_empty() {
                String::new()
            } else {
                format!(": {why}")
            };
            r.push(match (p.passed, word) {
                (true, _) if answer == Some(i) => format!("pass (the answer){note}"),
                (true, _) => format!("pass{note}"),
                (false, "FAIL") => format!("**FAIL**: {why}"),
                (false, w) => format!("{w}: {why}"),
            });
            r
        })
        .collect();
    o.push_str(&md_table(&headers, &aligns, &rows));
    o
}

#[cfg(test)]
mod tests {
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
            h.contains(
                "<td class=\"l fail\">FAIL</td><td class=\"why\">p99&lt;50ms was 312 ms</td>"
            ),
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
        assert!(c.lines[1].tips[0]
            .starts_with("probe 2: 800.0/s, p99 312 ms — FAIL: p99<50ms was 312 ms"));
        // Unjoined: markers, no polyline.
        let svg = crate::report::chart::render_line_chart(&c);
        assert!(!svg.contains("<polyline"), "{svg}");
        let e = chart::find_max_error_chart(&run, &fm).expect("the SLO bounds errors");
        // 2 connect errors of 1,002 requests.
        assert_eq!(e.lines[1].points, vec![(800.0, 2.0 / 1002.0 * 100.0)]);
        assert_eq!(e.refs[0].y, 0.1);
    }
}
