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
mod tests;
