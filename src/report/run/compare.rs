//! Comparison of several runs — the tutorial's "Groonga vs Droonga with 1, 2 and 3
//! nodes": one row per run with its saturation figures, each also as a ratio to the
//! first run (the baseline), a few computed sentences a manager can read, and the
//! overlaid charts. Output as plain text, Markdown or an HTML page.

use std::fmt::Write as _;

use crate::analysis::{self, repeat};
use crate::report::chart::esc;
use crate::report::findings::phases::{phase_sentences, PhaseTable};
use crate::report::findings::{self, compare_sentences, ratio, CompareRow};
use crate::report::fmt::{
    fmt_latency, fmt_qps, fmt_ratio, fmt_ratio_spread, fmt_share, fmt_spread,
};
use crate::report::page;
use crate::report::run::phases::{self, phase_table};
use crate::report::table::{md_table, Align};
use crate::report::ReportOptions;
use crate::result::series::Series;
use crate::result::RunResult;

/// Computes one row per setup (repetitions folded into one row, a cold first round
/// in its own).
pub fn compare_rows(series: &[Series]) -> Vec<CompareRow> {
    let mut rows: Vec<CompareRow> = repeat::display(&repeat::groups(series))
        .iter()
        .map(|(s, spread)| {
            let sat = analysis::analyse(s);
            let peak_point = sat.peak.and_then(|p| s.points.get(p.index));
            let total: f64 = s.points.iter().map(|p| p.total_requests as f64).sum();
            let failed: f64 = s
                .points
                .iter()
                .map(|p| p.error_share * p.total_requests as f64)
                .sum();
            let repeated = spread.filter(|sp| sp.n > 1);
            CompareRow {
                label: s.label.clone(),
                peak_qps: repeated.map(|sp| sp.mean).or(sat.peak.map(|p| p.qps)),
                peak_clients: sat.peak.map(|p| p.n_clients),
                plateau_clients: sat.plateau.map(|p| p.n_clients),
                low_load_latency_s: sat.baseline.map(|b| b.mean_s),
                low_load_clients: sat.baseline.map(|b| b.n_clients),
                latency_at_peak_s: sat.peak.map(|p| p.mean_s),
                p99_at_peak_s: peak_point.and_then(|p| p.p99_s),
                error_share: if total > 0.0 { failed / total } else { 0.0 },
                // A suite's phases or a search's probes are no saturation curve.
                warnings: sat
                    .warnings
                    .iter()
                    .filter(|w| findings::RunKind::of(s, None).applies(w))
                    .cloned()
                    .collect(),
                runs: spread.map_or(1, |sp| sp.n),
                peak_spread: *spread,
                peak_ratio: None,
            }
        })
        .collect();
    if let Some(base) = rows.first().and_then(|r| r.peak_spread) {
        for r in rows.iter_mut().skip(1) {
            r.peak_ratio = r
                .peak_spread
                .filter(|sp| sp.n > 1 && base.n > 1)
                .and_then(|sp| repeat::ratio(sp, base));
        }
    }
    rows
}

/// Every row's warnings, one sentence per kind of problem.
fn warnings(rows: &[CompareRow]) -> Vec<String> {
    let items: Vec<(String, analysis::Warning)> = rows
        .iter()
        .flat_map(|r| r.warnings.iter().map(|w| (r.label.clone(), w.clone())))
        .collect();
    findings::grouped_warnings(&items)
}

/// A cell with the value and, for rows after the baseline, its ratio to the baseline.
fn cell(v: String, r: Option<f64>, is_base: bool) -> String {
    match r {
        Some(r) if !is_base => format!("{v} ({})", fmt_ratio(r)),
        _ => v,
    }
}

/// The peak qps: "151.3 ± 2.1 (1.18 ± 0.05×)" with repetitions, "≈" when the
/// difference is inside the noise.
fn peak_cell(r: &CompareRow, base: &CompareRow, is_base: bool) -> String {
    let Some(q) = r.peak_qps else {
        return "–".into();
    };
    let v = match r.peak_spread.filter(|s| s.n > 1) {
        Some(s) => fmt_spread(s.mean, s.sd),
        None => fmt_qps(q),
    };
    if is_base {
        return v;
    }
    match r.peak_ratio {
        Some(rs) => format!(
            "{v} ({}{})",
            if rs.within_noise { "≈ " } else { "" },
            fmt_ratio_spread(rs.ratio, rs.sd)
        ),
        None => cell(v, ratio(r.peak_qps, base.peak_qps), false),
    }
}

const HEADERS: [&str; 8] = [
    "run",
    "peak qps",
    "at clients",
    "plateau",
    "low-load latency",
    "latency at peak",
    "p99 at peak",
    "failed",
];

/// The table's cells, one row per run; ratios to the first run in parentheses.
pub fn table_cells(rows: &[CompareRow]) -> Vec<Vec<String>> {
    let Some(base) = rows.first() else {
        return Vec::new();
    };
    let dash = || "–".to_string();
    rows.iter()
        .enumerate()
        .map(|(i, r)| {
            let is_base = i == 0;
            vec![
                r.label.clone(),
                peak_cell(r, base, is_base),
                r.peak_clients.map(|n| n.to_string()).unwrap_or_else(dash),
                r.plateau_clients
                    .map(|n| n.to_string())
                    .unwrap_or_else(dash),
                cell(
                    r.low_load_latency_s.map(fmt_latency).unwrap_or_else(dash),
                    ratio(r.low_load_latency_s, base.low_load_latency_s),
                    is_base,
                ),
                cell(
                    r.latency_at_peak_s.map(fmt_latency).unwrap_or_else(dash),
                    ratio(r.latency_at_peak_s, base.latency_at_peak_s),
                    is_base,
                ),
                cell(
                    r.p99_at_peak_s.map(fmt_latency).unwrap_or_else(dash),
                    ratio(r.p99_at_peak_s, base.p99_at_peak_s),
                    is_base,
                ),
                cell(
                    fmt_share(r.error_share),
                    ratio(Some(r.error_share), Some(base.error_share)),
                    is_base,
                ),
            ]
        })
        .collect()
}

/// The ramp table with aligned columns and the note on its ratios.
fn ramp_table_text(rows: &[CompareRow]) -> String {
    let cells = table_cells(rows);
    let mut widths: Vec<usize> = HEADERS.iter().map(|h| h.chars().count()).collect();
    for r in &cells {
        for (i, c) in r.iter().enumerate() {
            widths[i] = widths[i].max(c.chars().count());
        }
    }
    let line = |r: &[String]| -> String {
        let mut o = String::new();
        for (i, c) in r.iter().enumerate() {
            let pad = widths[i] - c.chars().count();
            if i == 0 {
                o.push_str(c);
                o.push_str(&" ".repeat(pad));
            } else {
                o.push_str("  ");
                o.push_str(&" ".repeat(pad));
                o.push_str(c);
            }
        }
        o.trim_end().to_owned()
    };
    let mut o = String::new();
    o.push_str(&line(&HEADERS.map(String::from)));
    o.push('\n');
    for r in &cells {
        o.push_str(&line(r));
        o.push('\n');
    }
    if let Some(b) = rows.first() {
        let _ = writeln!(
            o,
            "(ratios in parentheses are to {}; \"failed\" is the share of requests without a 2xx/3xx response{})",
            b.label,
            if rows.iter().any(|r| r.runs > 1) {
                "; a ± b is the mean and standard deviation of repetitions, ≈ a difference within the noise"
            } else {
                ""
            }
        );
    }
    o
}

/// The runs compared, cut by kind: suites (whose results are at hand) go to the
/// per-phase table, every other run to the ramp table.
struct Parts {
    /// The runs of the ramp table.
    ramps: Vec<Series>,
    /// The suites' per-phase table, when any run is a suite.
    phases: Option<PhaseTable>,
}

impl Parts {
    fn of(series: &[Series], runs: &[(&str, &RunResult)]) -> Parts {
        let phases = phase_table(runs);
        let suites: Vec<&str> = runs
            .iter()
            .filter(|(_, r)| r.suite.is_some())
            .map(|(l, _)| *l)
            .collect();
        let ramps = series
            .iter()
            .filter(|s| !suites.contains(&s.label.as_str()))
            .cloned()
            .collect();
        Parts { ramps, phases }
    }

    /// The sentences a manager reads: the ramps' (from `rows`), then the phases'.
    fn sentences(&self, rows: &[CompareRow]) -> Vec<String> {
        let mut said = compare_sentences(rows);
        said.extend(
            self.phases
                .as_ref()
                .map(phase_sentences)
                .unwrap_or_default(),
        );
        said
    }

    /// Beside ramps: which runs are suites and why they are not in the ramp table.
    fn suites_note(&self) -> Option<String> {
        let t = self.phases.as_ref().filter(|_| !self.ramps.is_empty())?;
        let (one, many) = ("is a suite", "are suites");
        Some(format!(
            "{} {}: compared phase by phase below, not in this table (a suite's phases are \
             different workloads, not a ramp's steps, so its busiest phase is no peak)",
            t.labels.join(", "),
            if t.labels.len() == 1 { one } else { many }
        ))
    }
}

/// Plain text for the terminal: the table with aligned columns, then the sentences and
/// any warnings. Without the runs' JSON results at hand, suites read as ramps; see
/// [`compare_text_with`].
pub fn compare_text(series: &[Series]) -> String {
    compare_text_with(series, &[])
}

/// [`compare_text`] with the runs that are hakaru JSON results, by label: suites among
/// them are compared phase by phase ([`crate::report::run::phases`]), beside the ramp
/// table of the other runs, if any.
pub fn compare_text_with(series: &[Series], runs: &[(&str, &RunResult)]) -> String {
    let parts = Parts::of(series, runs);
    let mut o = String::new();
    if !parts.ramps.is_empty() {
        let rows = compare_rows(&parts.ramps);
        o.push_str(&ramp_table_text(&rows));
        if let Some(n) = parts.suites_note() {
            o.push_str(&phases::wrap(&n));
        }
        o.push('\n');
        for s in compare_sentences(&rows) {
            o.push_str(&s);
            o.push('\n');
        }
    }
    if let Some(t) = &parts.phases {
        if !o.is_empty() && !o.ends_with("\n\n") {
            o.push('\n');
        }
        o.push_str(&phases::text(t));
        o.push('\n');
        // Kept to the table's 80 columns.
        for s in phase_sentences(t) {
            o.push_str(&phases::wrap(&s));
        }
    }
    for d in analysis::setup_differences(series) {
        if d.is_serious() {
            let _ = writeln!(o, "warning: {}", findings::difference_sentence(&d));
        } else {
            let _ = writeln!(o, "{}", findings::difference_sentence(&d));
        }
    }
    for w in warnings(&compare_rows(series)) {
        let _ = writeln!(o, "warning: {w}");
    }
    o
}

/// The comparison as Markdown: sentences, then the table.
pub fn compare_markdown(series: &[Series]) -> String {
    compare_markdown_with(series, &[])
}

/// [`compare_markdown`], suites among `runs` compared phase by phase.
pub fn compare_markdown_with(series: &[Series], runs: &[(&str, &RunResult)]) -> String {
    let parts = Parts::of(series, runs);
    let rows = compare_rows(&parts.ramps);
    let mut o = String::from("### Comparison\n\n");
    for s in parts.sentences(&rows) {
        o.push_str(&s);
        o.push('\n');
    }
    if !parts.ramps.is_empty() {
        o.push('\n');
        let mut aligns = vec![Align::Right; HEADERS.len()];
        aligns[0] = Align::Left;
        o.push_str(&md_table(&HEADERS, &aligns, &table_cells(&rows)));
        if let Some(b) = rows.first() {
            let _ = writeln!(o, "\nRatios in parentheses are to {}.", b.label);
        }
        if let Some(n) = parts.suites_note() {
            let _ = writeln!(o, "\n{n}.");
        }
    }
    if let Some(t) = &parts.phases {
        o.push('\n');
        o.push_str(&phases::markdown(t));
    }
    for d in analysis::setup_differences(series) {
        let text = findings::difference_sentence(&d);
        if d.is_serious() {
            let _ = write!(o, "\n> **Warning:** {text}\n");
        } else {
            let _ = write!(o, "\n{text}\n");
        }
    }
    for w in warnings(&compare_rows(series)) {
        let _ = write!(o, "\n> **Warning:** {w}\n");
    }
    o
}

/// The ramp table's section of the page, with the note on its ratios and, beside
/// suites, which runs are suites.
fn ramp_table_html(b: &mut String, rows: &[CompareRow], suites: Option<String>) {
    b.push_str("<section><h2>Side by side</h2><div class=\"scroll\"><table><thead><tr>");
    for h in HEADERS {
        let _ = write!(b, "<th>{}</th>", esc(h));
    }
    b.push_str("</tr></thead><tbody>");
    for r in table_cells(rows) {
        b.push_str("<tr>");
        for c in r {
            let _ = write!(b, "<td>{}</td>", esc(&c));
        }
        b.push_str("</tr>");
    }
    let _ = write!(
        b,
        "</tbody></table></div><p class=\"note\">Ratios in parentheses are to the first run, {}. With repetitions (files given one label, or a run's warm rounds) a figure reads mean ± standard deviation, and ≈ marks a difference within the noise (under {} standard errors). The plateau is the fewest clients reaching {:.0}% of the run's peak; low-load latency is the mean at the first step.</p>",
        esc(rows.first().map(|r| r.label.as_str()).unwrap_or("")),
        repeat::NOISE_SIGMAS,
        analysis::PLATEAU_SHARE * 100.0
    );
    if let Some(n) = suites {
        let _ = write!(b, "<p class=\"note\">{}.</p>", esc(&n));
    }
    b.push_str("</section>");
}

/// The comparison as one self-contained HTML page with the overlaid charts.
/// `runs`: the runs that are hakaru JSON results, by label, for what only they keep
/// (timelines and labels, drawn over time and side by side per label; a suite's
/// phases, compared phase by phase).
pub fn compare_html(
    series: &[Series],
    runs: &[(&str, &RunResult)],
    opts: &ReportOptions,
) -> String {
    let parts = Parts::of(series, runs);
    let rows = compare_rows(&parts.ramps);
    // Charts against clients or rate are a ramp's; a suite's phases are drawn over
    // time below.
    let shown = repeat::display_series(&parts.ramps);
    let refs: Vec<&Series> = shown.iter().collect();
    let mut labels: Vec<&str> = series.iter().map(|s| s.label.as_str()).collect();
    labels.dedup();
    let mut b = String::new();
    let _ = write!(
        b,
        "<h1>Comparison</h1><p class=\"sub\">{}</p>",
        esc(&labels.join(" · "))
    );
    b.push_str("<section class=\"summary\"><h2>In short</h2>");
    for s in parts.sentences(&rows) {
        let _ = write!(b, "<p>{}</p>", page::rich(&s));
    }
    let differences = analysis::setup_differences(series);
    let warnings: Vec<String> = differences
        .iter()
        .filter(|d| d.is_serious())
        .map(findings::difference_sentence)
        .chain(warnings(&compare_rows(series)))
        .collect();
    b.push_str(&page::warnings_box(&warnings));
    for d in differences.iter().filter(|d| !d.is_serious()) {
        let _ = write!(b, "<p>{}</p>", esc(&findings::difference_sentence(d)));
    }
    b.push_str("</section>");
    if !parts.ramps.is_empty() {
        ramp_table_html(&mut b, &rows, parts.suites_note());
    }
    if let Some(t) = &parts.phases {
        b.push_str(&phases::html(t));
    }
    // Suites alone: no ramp to draw (empty axes otherwise).
    if !refs.is_empty() {
        for (_, c) in crate::report::chart::run_charts(&refs, opts) {
            b.push_str(&page::chart_section(&c));
        }
    }
    for c in crate::report::chart::timeline::compare_timeline_charts(runs) {
        b.push_str(&page::chart_section(&c));
    }
    b.push_str(&crate::report::labels::compare_html(runs));
    b.push_str("<section><h2>Sources</h2><dl>");
    for s in series {
        let _ = write!(
            b,
            "<dt>{}</dt><dd>{}</dd>",
            esc(&s.label),
            esc(&page::source_line(s))
        );
    }
    b.push_str("</dl></section>");
    page::page(&format!("Comparison: {} — hakaru", labels.join(", ")), &b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::result::fixture;

    fn series(label: &str, patterns: &str, sha: &str) -> Series {
        let mut steps = Vec::new();
        for n in [1, 2, 4] {
            let mut s = fixture::bare_step(n);
            s.qps = 100.0 * n as f64;
            steps.push(s);
        }
        let mut run = fixture::run(steps);
        run.settings.patterns_source = patterns.into();
        run.settings.patterns_sha256 = Some(format!("sha256:{sha}"));
        Series::from_run(&run, label)
    }

    /// Regression: two suites compared (a YCSB profile on Redis and on memcached)
    /// were told their "saturation curve needs at least 4" steps and to "raise
    /// --end-n-clients": a suite's phases are no ramp.
    #[test]
    fn suites_compared_get_no_ramp_warnings() {
        let suite = |label: &str| {
            let mut run = fixture::run(vec![fixture::bare_step(4), fixture::bare_step(16)]);
            for (s, qps) in run.steps.iter_mut().zip([400.0, 1000.0]) {
                s.qps = qps;
                s.latency.count = 100;
                s.latency.mean_s = 0.001;
            }
            run.suite = Some(Default::default());
            Series::from_run(&run, label)
        };
        let text = compare_text(&[suite("redis"), suite("memcached")]);
        assert!(!text.contains("saturation curve"), "{text}");
        assert!(!text.contains("--end-n-clients"), "{text}");
        let ramp = |label: &str| {
            let mut s = suite(label);
            s.points_are = crate::result::series::PointsAre::Steps;
            s
        };
        let text = compare_text(&[ramp("a"), ramp("b")]);
        assert!(text.contains("saturation curve"), "{text}");
    }

    /// The warning is one line in the terminal, a warning in Markdown and on the page.
    #[test]
    fn runs_of_different_patterns_are_called_out_in_one_line() {
        let a = series("a", "reads.txt", "1a2b3c4d5e6f7a8b9c");
        let b = series("b", "reads-v2.txt", "9f8e7d6c5b4a39281");
        let line = "warning: these runs sent different request patterns (a reads.txt \
                    (sha256:1a2b3c4d), b reads-v2.txt (sha256:9f8e7d6c)): they did different \
                    work, so the ratios compare different things\n";
        let text = compare_text(&[a.clone(), b.clone()]);
        assert_eq!(text.matches(line).count(), 1, "{text}");
        assert_eq!(text.matches("warning: these runs").count(), 1, "{text}");
        let md = compare_markdown(&[a.clone(), b.clone()]);
        assert!(
            md.contains(&format!("\n> **Warning:** {}", &line["warning: ".len()..])),
            "{md}"
        );
        let html = compare_html(&[a.clone(), b], &[], &ReportOptions::default());
        assert!(
            html.contains("<p><strong>Warning:</strong> these runs sent different request patterns (a reads.txt (sha256:1a2b3c4d)"),
            "{html}"
        );
        // The same file under another name is the same work.
        let same = series("c", "copy-of-reads.txt", "1a2b3c4d5e6f7a8b9c");
        assert!(!compare_text(&[a, same]).contains("warning: these runs"));
    }

    #[test]
    fn settings_that_change_the_meaning_are_named() {
        let a = series("a", "p.txt", "00");
        let mut b = series("b", "p.txt", "00");
        let st = b.settings.as_mut().unwrap();
        st.order = crate::result::RequestOrder::Sequential;
        st.wait_s = 0.1;
        st.planned_cache_hit_rate = Some(0.5);
        st.shard = Some(crate::result::Shard { index: 1, count: 3 });
        let text = compare_text(&[a, b]);
        let warnings: Vec<&str> = text
            .lines()
            .filter(|l| l.starts_with("warning: these runs"))
            .collect();
        assert_eq!(
            warnings,
            [
                "warning: these runs differ in request order (a random, b sequential): a pass in the file's order and a random draw meet the server's caches differently",
                "warning: these runs differ in the wait between requests (a 0 s, b 0.1 s): a client that pauses offers less load",
                "warning: these runs were planned for different cache hit rates (a not planned, b 50%): repeated requests are answered from caches",
                "warning: these runs differ in sharding (a whole, b shard 1/3): a shard sent only its part of the load; compare the merged result (hakaru merge)",
            ],
            "{text}"
        );
    }

    /// A suite with one phase named `phase`, at `qps`.
    fn suite_run(phase: &str, qps: f64) -> RunResult {
        let mut step = fixture::bare_step(4);
        step.qps = qps;
        step.total_requests = 100;
        step.latency.count = 100;
        step.latency.mean_s = 0.001;
        step.latency.p99_s = 0.002;
        let mut run = fixture::run(vec![step]);
        run.suite = Some(crate::result::suite::SuiteResult {
            phases: vec![crate::result::suite::PhaseResult {
                name: phase.into(),
                ..Default::default()
            }],
            ..Default::default()
        });
        run
    }

    /// Suites alone: the per-phase table and its sentences, no ramp table (a suite's
    /// busiest phase is no peak) and no chart against clients on the page.
    #[test]
    fn suites_alone_are_compared_phase_by_phase() {
        let (a, b) = (suite_run("load", 1000.0), suite_run("load", 1300.0));
        let series = [
            Series::from_run(&a, "redis"),
            Series::from_run(&b, "memcached"),
        ];
        let runs = [("redis", &a), ("memcached", &b)];
        let text = compare_text_with(&series, &runs);
        assert!(!text.contains("peak qps"), "{text}");
        assert!(
            text.starts_with("Phase by phase (ratios in parentheses are to redis):\n"),
            "{text}"
        );
        assert!(
            text.contains("memcached answered load 1.30× redis's req/s at 1.00× its p99."),
            "{text}"
        );
        let md = compare_markdown_with(&series, &runs);
        assert!(
            !md.contains("peak qps") && md.contains("#### Phase by phase"),
            "{md}"
        );
        let html = compare_html(&series, &runs, &ReportOptions::default());
        assert!(html.contains("<h2>Phase by phase</h2>"), "{html}");
        assert!(
            !html.contains("Side by side") && !html.contains("against clients"),
            "{html}"
        );
        // Regression: suites alone drew the rate charts of no ramp, empty axes.
        assert!(!html.contains("against offered rate"), "{html}");
    }

    /// Suites beside a ramp: the ramp table for the ramp alone, the suites named
    /// under it and compared phase by phase.
    #[test]
    fn suites_beside_a_ramp_leave_its_table_and_are_named() {
        let (a, b) = (suite_run("load", 1000.0), suite_run("load", 1300.0));
        let ramp = series("ramp", "p.txt", "00");
        let series = [
            ramp,
            Series::from_run(&a, "redis"),
            Series::from_run(&b, "memcached"),
        ];
        let runs = [("redis", &a), ("memcached", &b)];
        let text = compare_text_with(&series, &runs);
        let table: Vec<&str> = text.lines().take_while(|l| !l.starts_with('(')).collect();
        assert_eq!(table.len(), 2, "the header and the ramp's row: {text}");
        assert!(table[1].starts_with("ramp "), "{text}");
        assert!(
            text.contains(
                "redis, memcached are suites: compared phase by phase below, not in this table"
            ),
            "{text}"
        );
        assert!(
            text.contains("\nPhase by phase (ratios in parentheses are to redis):\n"),
            "{text}"
        );
        let html = compare_html(&series, &runs, &ReportOptions::default());
        assert!(
            html.contains("Side by side") && html.contains("are suites: compared phase by phase"),
            "{html}"
        );
    }
}
