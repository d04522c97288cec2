//! The plain-text chart (ASCII but for µ) and summary printed on the terminal at the end of a ramp and by
//! `hakaru report`.

use std::fmt::Write as _;

use crate::analysis;
use crate::report::findings;
use crate::report::fmt::{fmt_latency, fmt_qps, Work};
use crate::result::series::Series;

/// A compact ASCII chart of qps and mean latency against clients, one row per step,
/// for the end of a ramp. Marks the peak, the plateau and the knee.
pub fn terminal_chart(series: &Series, width: usize) -> String {
    let sat = analysis::analyse(series);
    let steps: Vec<(usize, &crate::result::series::Point)> = series
        .points
        .iter()
        .enumerate()
        .filter(|(_, p)| p.n_clients > 0)
        .collect();
    if steps.is_empty() {
        return "(no steps to chart)\n".into();
    }
    let max_q = steps.iter().map(|(_, p)| p.qps).fold(0.0, f64::max);
    let max_l = steps.iter().map(|(_, p)| p.mean_s).fold(0.0, f64::max);
    // One unit for the column (issue 35: "980 µs" above "1.20 ms" read as the
    // larger number).
    let unit = crate::report::fmt::LatencyUnit::for_max(max_l);
    // Columns: clients(7) + 2 + bar + 1 + qps(8) + 3 + bar + 1 + latency(9), then a
    // note of up to 18 ("  <- plateau, knee").
    let fixed = 7 + 2 + 1 + 8 + 3 + 1 + 9 + 18;
    let bar = (width.saturating_sub(fixed) / 2).clamp(8, 60);
    let mut o = String::new();
    let header = format!(
        "{:>7}  {:<w$} {:>8}   {:<w$} {:>9}",
        "clients",
        "throughput",
        Work::of_series(series).rate(),
        "mean latency",
        "",
        w = bar
    );
    let _ = writeln!(o, "{}", header.trim_end());
    let fill = |v: f64, max: f64, c: char| -> String {
        let n = if max > 0.0 {
            ((v / max) * bar as f64).round() as usize
        } else {
            0
        };
        let mut s: String = std::iter::repeat_n(c, n.min(bar)).collect();
        if n == 0 && v > 0.0 {
            s.push('.');
        }
        s
    };
    for (i, p) in steps {
        let mut notes = Vec::new();
        if sat.peak.is_some_and(|s| s.index == i) {
            notes.push("peak");
        }
        if sat.plateau.is_some_and(|s| s.index == i) && sat.peak.is_none_or(|s| s.index != i) {
            notes.push("plateau");
        }
        if sat.knee.is_some_and(|s| s.index == i) {
            notes.push("knee");
        }
        let lat = unit.fmt(p.mean_s).replace('–', "-");
        let line = format!(
            "{:>7}  {:<w$} {:>8}   {:<w$} {:>9}{}",
            p.n_clients,
            fill(p.qps, max_q, '#'),
            fmt_qps(p.qps),
            fill(p.mean_s, max_l, '='),
            lat,
            if notes.is_empty() {
                String::new()
            } else {
                format!("  <- {}", notes.join(", "))
            },
            w = bar
        );
        let _ = writeln!(o, "{}", line.trim_end());
    }
    o
}

/// What `ramp` prints when it ends and `report` prints on the terminal: the text
/// chart, the saturation sentences and any warnings.
pub fn terminal_summary(series: &Series, width: usize) -> String {
    if series.is_open_model() {
        return rate_summary(series);
    }
    // A repeated run: the warm rounds' mean, with the cold first round in a line.
    let rounds = series.rounds();
    let shown = if rounds > 1 {
        crate::analysis::repeat::display_series(std::slice::from_ref(series))
    } else {
        vec![series.clone()]
    };
    let series = &shown[0];
    let sat = analysis::analyse(series);
    let work = Work::of_series(series);
    let mut o = String::new();
    if let Some(cold) = shown.get(1) {
        let _ = writeln!(
            o,
            "Mean of the warm rounds 2–{} (round 1, cold, peaked at {} {}):",
            rounds,
            analysis::peak(cold)
                .map(|p| fmt_qps(p.qps))
                .unwrap_or_else(|| "-".into()),
            work.rate()
        );
    }
    o.push_str(&terminal_chart(series, width));
    o.push('\n');
    for line in findings::sentences(&sat, work) {
        o.push_str(&line);
        o.push('\n');
    }
    o.push_str(&warning_lines(&sat.warnings));
    o
}

/// An open-model run on the terminal (the end of `ramp --rate`, and `report`): offered
/// against answered rate per step, the latency from the due time, late and dropped
/// requests, the first rate not held marked; then the findings.
fn rate_summary(series: &Series) -> String {
    let f = analysis::analyse_rates(series);
    let mut o = String::from(" offered/s  answered/s        p50        p99   late  dropped\n");
    let mut profiles = Vec::new();
    for r in &f.steps {
        let p = &series.points[r.index];
        let lat = |v: Option<f64>| {
            v.filter(|v| v.is_finite())
                .map(fmt_latency)
                .unwrap_or_else(|| "-".into())
        };
        let mark = if f.first_behind.is_some_and(|b| b.index == r.index) {
            "  <- falls behind"
        } else {
            ""
        };
        // A profile is wider than the column: its mean, starred, and the profile
        // as typed under the table.
        let offered = match &p.profile {
            Some(x) => {
                profiles.push(crate::result::profile::profile_text(&x.segments));
                format!("{}*", fmt_qps(r.rate))
            }
            None => fmt_qps(r.rate),
        };
        let _ = writeln!(
            o,
            "{:>10}  {:>10}  {:>9}  {:>9}  {:>5}  {:>7}{mark}",
            offered,
            fmt_qps(r.achieved),
            lat(p.p50_s),
            lat(p.p99_s),
            p.late,
            p.dropped
        );
    }
    for text in profiles {
        let _ = writeln!(o, "  * the mean of the rate profile {text}");
    }
    o.push('\n');
    for line in findings::rate_sentences(series, &f) {
        o.push_str(&line);
        o.push('\n');
    }
    o.push_str(&warning_lines(
        &findings::RunKind::OpenModel.warnings(series),
    ));
    o
}

/// "warning: …" lines, one a warning.
pub fn warning_lines(warnings: &[analysis::Warning]) -> String {
    warnings.iter().map(|w| format!("warning: {w}\n")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::result::fixture::{recorded_step, run};

    /// Issue 35, one unit per panel: a column of "980 µs" above "1.20 ms" read the
    /// larger number as the smaller.
    #[test]
    fn the_latency_column_keeps_one_unit() {
        let steps = [(1, 980), (2, 1200)]
            .map(|(n, us)| recorded_step(n, 1.0, &[(200, us); 10], &[]))
            .to_vec();
        let chart = terminal_chart(&Series::from_run(&run(steps), "r"), 80);
        assert!(chart.contains(" 0.980 ms"), "{chart}");
        assert!(chart.contains(" 1.20 ms"), "{chart}");
        assert!(!chart.contains("µs"), "{chart}");
    }

    /// Issue 35: a profile's step showed its mean (`160`) as the rate offered, with
    /// nothing to say a 1000/s spike was inside it.
    #[test]
    fn a_profile_s_step_is_starred_and_its_profile_written_under_the_table() {
        use crate::result::profile::{RateSegment, StepProfile};
        let mut step = recorded_step(4, 7.0, &[(200, 2000); 10], &[]);
        step.rate = Some(160.0);
        let seg = |start_s, duration_s, r| RateSegment {
            start_s,
            duration_s,
            from: r,
            to: r,
        };
        step.profile = Some(StepProfile {
            segments: vec![
                seg(0.0, 2.0, 20.0),
                seg(2.0, 1.0, 1000.0),
                seg(3.0, 4.0, 20.0),
            ],
            verdict: None,
        });
        let series = Series::from_run(&run(vec![step]), "r");
        let text = terminal_summary(&series, 80);
        assert!(text.contains("    160.0*"), "{text}");
        assert!(
            text.contains("  * the mean of the rate profile 2s@20, 1s@1000, 4s@20\n"),
            "{text}"
        );
        let p = &series.points[0];
        assert_eq!(
            crate::report::fmt::offered_rate(p, 160.0),
            "2s@20, 1s@1000, 4s@20"
        );
    }
}
