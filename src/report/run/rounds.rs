//! A run of several rounds (`--rounds`) told and drawn round by round: each round its
//! own series in the charts (throughput and latency against load, one line a round)
//! and in a latency-by-percentile chart of each round's peak step, and a table with
//! what ran before each round (`--before-round`). Rounds prepared by a command differ
//! by design (a cache flushed, a server restarted), so they are never averaged;
//! rounds that only repeat the run are also summed up as their warm rounds' mean
//! elsewhere on the page.

use std::fmt::Write as _;

use crate::analysis;
use crate::report::chart::{self, esc, LineChart, PALETTE};
use crate::report::fmt::{fmt_latency, fmt_qps};
use crate::report::page::chart_section;
use crate::report::ReportOptions;
use crate::result::series::Series;
use crate::result::RunResult;

/// Each round of `s` as a series of its own, labelled "round N".
pub fn by_round(s: &Series) -> Vec<Series> {
    (1..=s.rounds())
        .map(|r| {
            let mut one = s.round(r);
            one.label = format!("round {r}");
            one
        })
        .filter(|one| !one.points.is_empty())
        .collect()
}

/// True when a command prepared the rounds (`--before-round`): they measure
/// different states, not repetitions of one.
pub fn prepared(run: &RunResult) -> bool {
    run.steps.iter().any(|s| s.before_round.is_some())
}

/// The terminal's saturation summary: for rounds a command prepared, round 1's, said
/// so (they differ by design: a mean of them describes no round; the round-by-round
/// table follows it). The end of a ramp and `hakaru report` print the same.
pub fn terminal_summary(s: &Series, run: Option<&RunResult>, width: usize) -> String {
    match run {
        Some(r) if s.rounds() > 1 && prepared(r) => format!(
            "Round 1 (the rounds differ by --before-round: round by round below):\n{}",
            chart::terminal_summary(&s.round(1), width)
        ),
        _ => chart::terminal_summary(s, width),
    }
}

/// Each round's peak step by percentile, one line a round in its own colour; `None`
/// without histograms or with one round.
pub fn percentile_chart(s: &Series, opts: &ReportOptions) -> Option<LineChart> {
    let rounds = by_round(s);
    if rounds.len() < 2 {
        return None;
    }
    let peaks: Vec<_> = rounds
        .iter()
        .filter_map(|r| analysis::peak(r).map(|p| (r, r.points[p.index].clone())))
        .filter(|(_, p)| !p.percentiles.is_empty())
        .collect();
    if peaks.len() < 2 {
        return None;
    }
    let mut one = s.clone();
    one.points = peaks.iter().map(|(_, p)| p.clone()).collect();
    let mut c = chart::percentile_chart(&one, opts.chart)?;
    // One line a round, in the order given, when every round's is drawn.
    if c.lines.len() != peaks.len() {
        return None;
    }
    for (i, (line, (r, _))) in c.lines.iter_mut().zip(&peaks).enumerate() {
        line.name = r.label.clone();
        line.color = PALETTE[i % PALETTE.len()];
    }
    c.title = "Latency by percentile, round by round".into();
    c.desc = format!(
        "Each round's busiest step at every percentile, from its HDR histogram: {}.",
        c.desc
    );
    Some(c)
}

/// Repetitions: the warm rounds' peak as mean ± sd, and what the cold first round
/// reached of it.
fn warm_note(rounds: &[Series], rate: &str) -> String {
    let peaks: Vec<Option<f64>> = rounds
        .iter()
        .map(|r| analysis::peak(r).map(|p| p.qps))
        .collect();
    let warm = analysis::Spread::of(peaks.iter().skip(1).flatten().copied());
    let (Some(w), Some(c)) = (warm, peaks[0]) else {
        return String::new();
    };
    format!(
        "<p class=\"note\">The first round met cold caches and connections; the summary \
         and the steps are the mean of the {} warm round{}, and the charts draw every \
         round as its own line. Warm peak {} {rate}{}; the cold round reached {} of it.</p>",
        w.n,
        if w.n == 1 { "" } else { "s" },
        fmt_qps(w.mean),
        if w.n > 1 {
            format!(
                " (mean ± standard deviation: {})",
                crate::report::fmt::fmt_spread(w.mean, w.sd)
            )
        } else {
            String::new()
        },
        if w.mean > 0.0 {
            format!("{:.0}%", c / w.mean * 100.0)
        } else {
            "–".into()
        }
    )
}

/// The Rounds section of the page: one row a round (what ran before it, its peak and
/// latency against round 1's) and the rounds' percentile chart.
pub fn rounds_html(s: &Series, run: Option<&RunResult>, opts: &ReportOptions) -> String {
    let rounds = by_round(s);
    if rounds.len() < 2 {
        return String::new();
    }
    let by_command = run.is_some_and(prepared);
    // A SQL run's rounds count transactions in tps, a store's commands in ops/s.
    let work = crate::report::fmt::Work::of_series(s);
    let mut o = format!(
        "<section><h2>Rounds</h2><div class=\"scroll\"><table><thead><tr>\
         <th>round</th><th>before the round</th><th>{}</th><th>peak {}</th>\
         <th>at clients</th><th>first-step mean</th><th>first-step p99</th>\
         <th>peak vs round 1</th></tr></thead><tbody>",
        work.items(),
        work.rate()
    );
    let base = analysis::peak(&rounds[0]).map(|p| p.qps);
    for (i, r) in rounds.iter().enumerate() {
        let n = i + 1;
        let peak = analysis::peak(r);
        let first = r.points.first();
        let before = run
            .and_then(|run| run.steps.iter().find(|st| st.round == n))
            .and_then(|st| st.before_round.as_ref())
            .map(|c| c.outcome())
            .unwrap_or_else(|| {
                if by_command {
                    "–".into()
                } else if n == 1 {
                    "(cold)".into()
                } else {
                    "(warm)".into()
                }
            });
        let ratio = match (peak, base) {
            (Some(p), Some(b)) if b > 0.0 => format!("{:.2}×", p.qps / b),
            _ => "–".into(),
        };
        let _ = write!(
            o,
            "<tr><td>{n}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{ratio}</td></tr>",
            esc(&before),
            r.points.iter().map(|p| p.total_requests).sum::<u64>(),
            peak.map(|p| fmt_qps(p.qps)).unwrap_or_else(|| "–".into()),
            peak.map(|p| p.n_clients.to_string())
                .unwrap_or_else(|| "–".into()),
            first.map(|p| fmt_latency(p.mean_s)).unwrap_or_else(|| "–".into()),
            first
                .and_then(|p| p.p99_s)
                .map(fmt_latency)
                .unwrap_or_else(|| "–".into()),
        );
    }
    o.push_str("</tbody></table></div>");
    if let Some(run) = run.filter(|r| prepared(r)) {
        let command = run
            .steps
            .iter()
            .find_map(|s| s.before_round.as_ref())
            .map(|c| c.command.clone())
            .unwrap_or_default();
        let _ = write!(
            o,
            "<p class=\"note\">Each round ran after <code>{}</code> (--before-round, which \
             sees HAKARU_ROUND), so the rounds measure different states and are drawn \
             apart, never averaged; the summary below is round 1's.</p>",
            esc(&command)
        );
    } else {
        o.push_str(&warm_note(&rounds, work.rate()));
    }
    if let Some(c) = percentile_chart(s, opts) {
        o.push_str(&chart_section(&c));
    }
    o.push_str("</section>");
    o
}

/// The rounds as a Markdown table (round, what ran before it, requests, peak, first
/// step's mean and p99, peak against round 1); empty for one round.
pub fn rounds_markdown(s: &Series, run: Option<&RunResult>) -> String {
    use crate::report::table::{md_table, Align};
    let rounds = by_round(s);
    if rounds.len() < 2 {
        return String::new();
    }
    let base = analysis::peak(&rounds[0]).map(|p| p.qps);
    let rows: Vec<Vec<String>> = rounds
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let peak = analysis::peak(r);
            let first = r.points.first();
            let before = run
                .and_then(|run| run.steps.iter().find(|st| st.round == i + 1))
                .and_then(|st| st.before_round.as_ref())
                .map_or_else(|| "–".into(), |c| c.outcome());
            vec![
                (i + 1).to_string(),
                before,
                r.points
                    .iter()
                    .map(|p| p.total_requests)
                    .sum::<u64>()
                    .to_string(),
                peak.map_or_else(|| "–".into(), |p| fmt_qps(p.qps)),
                first.map_or_else(|| "–".into(), |p| fmt_latency(p.mean_s)),
                first
                    .and_then(|p| p.p99_s)
                    .map_or_else(|| "–".into(), fmt_latency),
                match (peak, base) {
                    (Some(p), Some(b)) if b > 0.0 => format!("{:.2}×", p.qps / b),
                    _ => "–".into(),
                },
            ]
        })
        .collect();
    let work = crate::report::fmt::Work::of_series(s);
    let peak = format!("peak {}", work.rate());
    let headers = [
        "round",
        "before the round",
        work.items(),
        &peak,
        "first-step mean",
        "first-step p99",
        "peak vs round 1",
    ];
    let mut aligns = vec![Align::Right; headers.len()];
    aligns[1] = Align::Left;
    format!(
        "\n#### Round by round\n\n{}",
        md_table(&headers, &aligns, &rows)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::result::command::CommandResult;
    use crate::result::fixture::{recorded_step, run};

    /// Three rounds of one step, the first prepared by a command that took 0.25 s;
    /// the rounds answer in 16, 1 and 4 ms.
    fn sekka() -> RunResult {
        let steps = [16_000u64, 1_000, 4_000]
            .iter()
            .enumerate()
            .map(|(i, us)| {
                let mut s = recorded_step(1, 1.0, &vec![(200, *us); 100], &[]);
                s.round = i + 1;
                s.before_round = Some(CommandResult {
                    command: "./prepare".into(),
                    exit_code: Some(0),
                    ok: true,
                    duration_s: 0.25,
                    ..CommandResult::default()
                });
                s
            })
            .collect();
        run(steps)
    }

    #[test]
    fn each_round_is_its_own_series_and_its_own_row() {
        let r = sekka();
        let s = Series::from_run(&r, "sekka");
        let labels: Vec<String> = by_round(&s).into_iter().map(|s| s.label).collect();
        assert_eq!(labels, ["round 1", "round 2", "round 3"]);
        assert!(prepared(&r));
        let html = rounds_html(&s, Some(&r), &ReportOptions::default());
        assert!(html.contains("never averaged"), "{html}");
        assert_eq!(html.matches("exit 0 in 0.25 s").count(), 3, "{html}");
        let c = percentile_chart(&s, &ReportOptions::default()).expect("histograms");
        let names: Vec<&str> = c.lines.iter().map(|l| l.name.as_str()).collect();
        assert_eq!(names, ["round 1", "round 2", "round 3"]);
        let md = rounds_markdown(&s, Some(&r));
        assert!(md.contains("| 2 | exit 0 in 0.25 s |"), "{md}");
        // One round: nothing to tell round by round.
        let one = Series::from_run(&run(vec![r.steps[0].clone()]), "one");
        assert_eq!(rounds_html(&one, None, &ReportOptions::default()), "");
        assert_eq!(rounds_markdown(&one, None), "");
    }

    /// A SQL run's `--rounds` counted its transactions as "requests" at a "peak
    /// qps", on the page, in the Markdown and in the terminal's rounds table: they
    /// say transactions and tps (a store's commands and ops/s); HTTP's unchanged.
    #[test]
    fn a_sql_run_s_rounds_say_transactions_and_tps() {
        let mut r = sekka();
        let said = |r: &RunResult| {
            let s = Series::from_run(r, "sekka");
            format!(
                "{}\n{}\n{}",
                rounds_html(&s, Some(r), &ReportOptions::default()),
                rounds_markdown(&s, Some(r)),
                crate::report::run::text::rounds_summary(r)
            )
        };
        let http = said(&r);
        assert!(
            http.contains("<th>requests</th><th>peak qps</th>"),
            "{http}"
        );
        assert!(
            http.contains("Round  requests  peak qps  at clients"),
            "{http}"
        );
        r.targets = vec!["postgres://127.0.0.1:5432/bench".into()];
        let sql = said(&r);
        assert!(
            sql.contains("<th>transactions</th><th>peak tps</th>"),
            "{sql}"
        );
        assert!(sql.contains("| transactions | peak tps |"), "{sql}");
        assert!(
            sql.contains("Round  transactions  peak tps  at clients"),
            "{sql}"
        );
        assert!(!sql.contains("qps") && !sql.contains("requests"), "{sql}");
        // The terminal's table fits 80 columns in every kind's words (a SQL
        // run's was 86: "transactions" and "first-step mean"); a --before-round
        // column comes on top, as it does for HTTP.
        let mut plain = r.clone();
        plain.steps.iter_mut().for_each(|s| s.before_round = None);
        for target in ["postgres://127.0.0.1:5432/bench", "redis://127.0.0.1:6379"] {
            plain.targets = vec![target.into()];
            let text = crate::report::run::text::rounds_summary(&plain);
            for line in text.lines() {
                assert!(line.chars().count() <= 80, "{target}: {line:?}");
            }
        }
        r.targets = vec!["redis://127.0.0.1:6379".into()];
        let store = said(&r);
        assert!(
            store.contains("Round  commands  peak ops/s  at clients"),
            "{store}"
        );
        assert!(
            !store.contains("qps") && !store.contains("requests"),
            "{store}"
        );
    }
}
