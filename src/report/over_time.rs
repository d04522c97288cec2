//! What a run's per-second timeline and labels add to every report: when latency rose
//! and when failures began (a sentence for the terminal, the page and the Markdown),
//! the charts over time, and each step's table by kind of request.

use std::fmt::Write as _;

use crate::analysis::timeline::{failures_began, latency_rise, run_seconds};
use crate::report::chart::{esc, timeline, LineChart};
use crate::report::fmt::{fmt_latency, fmt_qps, fmt_share, Work};
use crate::report::labels;
use crate::result::RunResult;

/// "p99 rose at 3 s (step 1): 1.20 ms before, 35.0 ms then, at 812 requests/s." and
/// "Failures began at 5 s: 12.0% of that second's requests, at 900 requests/s."
/// (a SQL run's transactions, a store's commands).
pub fn sentences(run: &RunResult) -> Vec<String> {
    let seconds = run_seconds(run);
    let items = Work::of(&run.targets).items();
    let step = |i: usize| {
        if run.steps.len() > 1 {
            format!(" (step {})", i + 1)
        } else {
            String::new()
        }
    };
    let mut out = Vec::new();
    if let Some(r) = latency_rise(&seconds) {
        out.push(format!(
            "Latency rose at {:.0} s{}: p99 {} in the first seconds, {} then, at {} {items}/s.",
            r.at_s,
            step(r.step),
            fmt_latency(r.baseline_p99_s),
            fmt_latency(r.p99_s),
            fmt_qps(r.rate)
        ));
    }
    if let Some(f) = failures_began(&seconds) {
        out.push(format!(
            "Failures began at {:.0} s{}: {} of that second's {items}, at {} {items}/s.",
            f.at_s,
            step(f.step),
            fmt_share(f.share * 100.0),
            fmt_qps(f.rate)
        ));
    }
    out
}

/// The charts over time with the suffix of their standalone files.
pub fn charts(run: &RunResult) -> Vec<(&'static str, LineChart)> {
    [
        ("-over-time", timeline::timeline_throughput_chart(run)),
        ("-latency-over-time", timeline::timeline_latency_chart(run)),
        (
            "-labels-over-time",
            timeline::label_latency_chart(run, labels::heading(run)),
        ),
    ]
    .into_iter()
    .filter_map(|(suffix, c)| c.map(|c| (suffix, c)))
    .collect()
}

/// Each step's table by kind of request, headed by the step when there are several.
fn label_tables(
    run: &RunResult,
    table: fn(&crate::result::StepResult, &[String]) -> String,
) -> Vec<String> {
    run.steps
        .iter()
        .enumerate()
        .filter_map(|(i, s)| {
            let t = table(s, &run.settings.sql_statements);
            (!t.is_empty()).then(|| {
                let head = if run.steps.len() > 1 {
                    format!(
                        "step {} ({})",
                        i + 1,
                        timeline::step_load(s, Work::of(&run.targets))
                    )
                } else {
                    String::new()
                };
                (head, t)
            })
        })
        .map(|(head, t)| {
            if head.is_empty() {
                t
            } else {
                format!("{head}\n{t}")
            }
        })
        .collect()
}

/// A step's rate profile judged segment by segment, as a page section: the sentences
/// and a row per segment; empty for a step without a judged profile.
fn profile_html(step: &crate::result::StepResult, head: &str, work: Work) -> String {
    use crate::report::findings::profile::{profile_sentences, segment_name};
    let Some((p, v)) = step
        .profile
        .as_ref()
        .and_then(|p| Some((p, p.verdict.as_ref()?)))
    else {
        return String::new();
    };
    let mut b = format!(
        "<section class=\"profile\"><h2>The rate profile, segment by segment{}</h2>",
        esc(head)
    );
    for line in profile_sentences(&p.segments, v, work) {
        let _ = write!(b, "<p>{}</p>", esc(&line));
    }
    b.push_str(
        "<div class=\"scroll\"><table><thead><tr><th>segment</th><th>seconds</th>\
         <th>due</th><th>answered</th><th>failed</th><th>late</th><th>unsent at end</th><th>mean lag</th>\
         <th>p99</th><th>held</th><th>recovered</th></tr></thead><tbody>",
    );
    for (g, s) in p.segments.iter().zip(&v.segments) {
        let recovered = match (s.recovered, s.recovered_at_s) {
            (Some(true), Some(at)) => format!("at {at} s"),
            (Some(false), _) => "not by the end".into(),
            _ => "–".into(),
        };
        let _ = write!(
            b,
            "<tr{}><td>{}</td><td>{}–{}</td><td>{:.0}</td><td>{}</td><td>{}</td><td>{}</td>\
             <td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            if s.held { "" } else { " class=\"behind\"" },
            esc(segment_name(g).trim_start_matches("the ")),
            s.first_second,
            s.first_second + s.seconds,
            s.offered,
            s.ok,
            s.failed,
            s.late,
            s.unsent_at_end
                .map_or_else(|| "–".into(), |n| n.to_string()),
            s.mean_lag_s.map_or_else(|| "–".into(), fmt_latency),
            s.p99_s.map_or_else(|| "–".into(), fmt_latency),
            if s.held { "yes" } else { "no" },
            recovered
        );
    }
    let _ = write!(
        b,
        "</tbody></table></div><p class=\"note\">Each second of the step goes to the \
         segment that covers most of it; \"due\" is what the timetable made due in those \
         seconds; \"unsent at end\" what was due by its end and had not left (every \
         client busy). A segment is held when at least 95% of it was answered successfully in \
         its seconds and {} left within 5 ms of their due time on average. After a \
         segment not held, the server recovered at the first second back at the offered \
         rate (not above it, draining a backlog) with that lateness gone.</p></section>",
        work.items()
    );
    b
}

/// The page's sections: each step's rate profile segment by segment, "Over time"
/// (sentences and charts), then "By kind of request".
pub fn html(run: &RunResult, section: impl Fn(&LineChart) -> String) -> String {
    let mut b = String::new();
    for (i, step) in run.steps.iter().enumerate() {
        let head = if run.steps.len() > 1 {
            format!(" (step {})", i + 1)
        } else {
            String::new()
        };
        b.push_str(&profile_html(step, &head, Work::of(&run.targets)));
    }
    let charts = charts(run);
    if !charts.is_empty() {
        // A calm run (latency never rose, nothing failed) has no sentence: no
        // heading over nothing, its charts say it (as the Markdown leaves it out).
        let said = sentences(run);
        if !said.is_empty() {
            b.push_str("<section class=\"over-time\"><h2>Over time</h2>");
            for s in said {
                let _ = write!(b, "<p>{}</p>", esc(&s));
            }
            b.push_str("</section>");
        }
        for (_, c) in &charts {
            b.push_str(&section(c));
        }
    }
    let many = run.steps.len() > 1;
    let tables: Vec<String> = run
        .steps
        .iter()
        .enumerate()
        .filter_map(|(i, s)| {
            let t = labels::html_with(s, &run.settings.sql_statements);
            (!t.is_empty()).then(|| {
                if many {
                    format!(
                        "<h3>Step {} ({})</h3>{t}",
                        i + 1,
                        esc(&timeline::step_load(s, Work::of(&run.targets)))
                    )
                } else {
                    t
                }
            })
        })
        .collect();
    if !tables.is_empty() {
        let _ = write!(
            b,
            "<section class=\"labels\"><h2>{}</h2>{}</section>",
            labels::heading(run),
            tables.concat()
        );
    }
    b
}

/// The Markdown: the sentences, then each step's table by kind of request.
pub fn markdown(run: &RunResult) -> String {
    let mut o = String::new();
    let said = sentences(run);
    if !said.is_empty() {
        o.push_str("\n### Over time\n\n");
        for s in said {
            o.push_str(&format!("- {s}\n"));
        }
    }
    let tables = label_tables(run, labels::markdown_with);
    if !tables.is_empty() {
        let _ = write!(o, "\n### {}\n\n", labels::heading(run));
        o.push_str(&tables.join("\n"));
    }
    o
}

/// The terminal: the sentences, and with `verbose` each step's table by kind of request.
pub fn text(run: &RunResult, verbose: bool) -> String {
    let mut o = String::new();
    for s in sentences(run) {
        o.push_str(&s);
        o.push('\n');
    }
    if verbose {
        for t in label_tables(run, labels::text_with) {
            o.push('\n');
            o.push_str(&t);
        }
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::result::fixture::{bare_step, run as fixture_run};
    use crate::result::timeline::seconds;
    use crate::stats::{Outcome, Second, Timeline};
    use std::time::Duration;

    /// A step of 5 s, each second `n` answers of `ms` milliseconds.
    fn step(per_second: &[(u64, u64)]) -> crate::result::StepResult {
        let mut t = Timeline::default();
        for (i, (n, ms)) in per_second.iter().enumerate() {
            let mut s = Second::new();
            for _ in 0..*n {
                let took = Duration::from_millis(*ms);
                s.record(Outcome::Status(200), took, &Default::default());
            }
            t.add(i as u64, s);
        }
        let mut st = bare_step(2);
        st.elapsed_s = per_second.len() as f64;
        st.timeline = Some(seconds(&t, st.elapsed_s));
        st
    }

    /// A pgbench page (any calm run: latency never rose, nothing failed) had an
    /// "Over time" heading over nothing: the heading comes with its sentences, the
    /// charts stay.
    #[test]
    fn a_calm_run_s_page_has_no_empty_over_time_heading() {
        let calm = fixture_run(vec![step(&[(200, 1); 5])]);
        assert!(sentences(&calm).is_empty());
        let page = html(&calm, |c| format!("<section>{}</section>", c.title));
        assert!(!page.contains("Over time</h2>"), "{page}");
        assert!(!charts(&calm).is_empty());
        assert!(page.contains("<section>"), "{page}");
        let rose = fixture_run(vec![step(&[
            (200, 1),
            (200, 1),
            (200, 1),
            (200, 40),
            (200, 40),
        ])]);
        let said = sentences(&rose);
        assert!(!said.is_empty());
        let page = html(&rose, |c| format!("<section>{}</section>", c.title));
        assert!(
            page.contains(&format!("<h2>Over time</h2><p>{}</p>", esc(&said[0]))),
            "{page}"
        );
    }
}
