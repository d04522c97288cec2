//! Markdown tables to paste into a pull request or an issue: one run's steps with its
//! saturation summary, and the helpers the comparison uses for its own table.

use crate::analysis;
use crate::report::findings;
use crate::report::fmt::{fmt_latency, fmt_qps, fmt_share, Work};
use crate::report::table::{md_table, md_warnings, Align};
use crate::result::series::Series;
use crate::result::RunResult;

/// One run as Markdown: a heading, the saturation sentences, warnings, and a table
/// of the steps (p50/p99 columns only when the file has them).
pub fn markdown_report(run: &Series) -> String {
    markdown_report_with(run, None)
}

/// [`markdown_report`] with what only hakaru's JSON result keeps (`result`, when
/// there is one): its thresholds' verdicts under the heading, and after the steps what
/// its per-second timeline and labels say (not for a search or a scenario, which read
/// by their probes and phases).
pub fn markdown_report_with(run: &Series, result: Option<&RunResult>) -> String {
    let mut o = markdown_body(run, result);
    o.push_str(&first_errors_markdown(run));
    o.push_str(&super::rounds::rounds_markdown(run, result));
    if let Some(r) = result.filter(|r| r.find_max.is_none() && r.suite.is_none()) {
        o.push_str(&crate::report::over_time::markdown(r));
        o.push_str(&super::store::markdown_section(r));
    }
    o
}

/// Each error kind's first message, as the page shows it under its statuses: which
/// SQLSTATE or MySQL code a `sql_error` was, in the server's words.
fn first_errors_markdown(s: &Series) -> String {
    let rows: Vec<Vec<String>> = crate::report::sections::first_errors(s)
        .into_iter()
        .map(|(kind, step, message)| vec![kind, step, message])
        .collect();
    if rows.is_empty() {
        return String::new();
    }
    let headers = ["kind", crate::report::fmt::step_heading(s), "message"];
    let aligns = [Align::Left, Align::Right, Align::Left];
    format!(
        "\n### First error of each kind\n\n{}",
        md_table(&headers, &aligns, &rows)
    )
}

fn markdown_body(run: &Series, result: Option<&RunResult>) -> String {
    let mut extra = String::new();
    if let Some(r) = result {
        if let Some(t) = &r.thresholds {
            extra.push_str(&crate::report::threshold::threshold_markdown(r, t));
            extra.push('\n');
        }
    }
    // A repeated run: its warm rounds' mean, as the HTML report shows it; rounds a
    // command prepared: round 1 (each round is in the table after the steps).
    let warm;
    let s = if run.rounds() > 1 && result.is_some_and(super::rounds::prepared) {
        warm = run.round(1);
        &warm
    } else if run.rounds() > 1 {
        warm = crate::analysis::repeat::display_series(std::slice::from_ref(run)).remove(0);
        &warm
    } else {
        run
    };
    if s.is_open_model() {
        return rate_markdown(s, &extra);
    }
    let sat = analysis::analyse(s);
    let mut o = format!("### {}\n\n{extra}", run.name());
    if s.label != run.label && s.label.ends_with("round 1") {
        o.push_str("Round 1: the rounds differ by --before-round (round by round below).\n\n");
    } else if s.label != run.label {
        o.push_str(&format!(
            "Mean of the warm rounds 2–{} (round 1 ran cold).\n\n",
            run.rounds()
        ));
    }
    let work = Work::of_series(s);
    for line in findings::sentences(&sat, work) {
        o.push_str(&line);
        o.push('\n');
    }
    o.push_str(&md_warnings(&sat.warnings));
    o.push('\n');
    let pct = s.has_percentiles();
    let mut headers = vec!["clients", work.items(), work.rate(), "mean"];
    if pct {
        headers.extend(["p50", "p99"]);
    }
    headers.extend(["max", "failed"]);
    let aligns = vec![Align::Right; headers.len()];
    let rows: Vec<Vec<String>> = s
        .points
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let mut clients = p.n_clients.to_string();
            if sat.peak.is_some_and(|k| k.index == i) {
                clients = format!("**{clients}**");
            }
            let mut r = vec![
                clients,
                p.total_requests.to_string(),
                fmt_qps(p.qps),
                fmt_latency(p.mean_s),
            ];
            if pct {
                let f = |v: Option<f64>| v.map(fmt_latency).unwrap_or_else(|| "–".into());
                r.push(f(p.p50_s));
                r.push(f(p.p99_s));
            }
            r.push(fmt_latency(p.max_s));
            r.push(fmt_share(p.error_share));
            r
        })
        .collect();
    o.push_str(&md_table(&headers, &aligns, &rows));
    o
}

/// An open-model run as Markdown: the rate findings and a table of offered against
/// answered rate per step.
fn rate_markdown(s: &Series, extra: &str) -> String {
    let f = analysis::analyse_rates(s);
    let mut o = format!("### {}\n\n{extra}", s.name());
    for line in findings::rate_sentences(s, &f) {
        o.push_str(&line);
        o.push('\n');
    }
    o.push_str(&md_warnings(&findings::RunKind::OpenModel.warnings(s)));
    o.push('\n');
    let headers = [
        "offered/s",
        "answered/s",
        "held",
        "p50",
        "p99",
        "late",
        "dropped",
    ];
    let aligns = vec![Align::Right; headers.len()];
    let lat = |v: Option<f64>| {
        v.filter(|v| v.is_finite())
            .map(fmt_latency)
            .unwrap_or_else(|| "–".into())
    };
    let rows: Vec<Vec<String>> = f
        .steps
        .iter()
        .map(|r| {
            let p = &s.points[r.index];
            vec![
                crate::report::fmt::offered_rate(p, r.rate),
                fmt_qps(r.achieved),
                if r.held { "yes" } else { "**no**" }.to_owned(),
                lat(p.p50_s),
                lat(p.p99_s),
                p.late.to_string(),
                p.dropped.to_string(),
            ]
        })
        .collect();
    o.push_str(&md_table(&headers, &aligns, &rows));
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_escapes_pipes() {
        let t = md_table(
            &["a", "b"],
            &[Align::Left, Align::Right],
            &[vec!["x|y".into(), "1".into()]],
        );
        assert_eq!(t, "| a | b |\n|:--|--:|\n| x\\|y | 1 |\n");
    }

    /// A SQL ramp's Markdown headed its table "requests | qps" and said "Throughput
    /// peaks at … qps": pgbench's and sysbench's users read transactions and tps.
    #[test]
    fn a_sql_run_s_markdown_counts_transactions_in_tps() {
        let mut s = crate::analysis::tests::series_of(&[
            (1, 100.0, 0.01),
            (2, 190.0, 0.0105),
            (4, 200.0, 0.02),
        ]);
        assert!(markdown_report(&s).contains("| clients | requests | qps | mean |"));
        s.targets = vec!["postgresql://127.0.0.1/bench".into()];
        let md = markdown_report(&s);
        assert!(
            md.contains("| clients | transactions | tps | mean |"),
            "{md}"
        );
        assert!(
            md.contains("Throughput peaks at 200.0 tps with 4 clients."),
            "{md}"
        );
        assert!(!md.contains("qps") && !md.contains("requests"), "{md}");
    }

    /// The bug: the Markdown of a run with `sql_error`s said how many failed and
    /// never which error; the result keeps each kind's first message.
    #[test]
    fn a_run_s_markdown_names_each_error_kind_s_first_message() {
        let mut s = crate::analysis::tests::series_of(&[(1, 100.0, 0.01), (2, 190.0, 0.0105)]);
        s.targets = vec!["postgres://127.0.0.1/bench".into()];
        assert!(!markdown_report(&s).contains("First error"));
        s.points[1].error_samples = [(
            "sql_error".to_string(),
            "SQLSTATE 42P01: relation \"nosuch\" does not exist".to_string(),
        )]
        .into_iter()
        .collect();
        let md = markdown_report(&s);
        assert!(
            md.contains(
                "### First error of each kind\n\n| kind | clients | message |\n\
                 |:--|--:|:--|\n| sql_error | 2 | SQLSTATE 42P01: relation \"nosuch\" does not exist |\n"
            ),
            "{md}"
        );
    }
}
