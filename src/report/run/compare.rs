//! Comparison of several runs — the tutorial's "Groonga vs Droonga with 1, 2 and 3
//! nodes": one row per run with its saturation figures, each also as a ratio to the
//! first run (the baseline), a few computed sentences a manager can read, and the
//! overlaid charts. Output as plain text, Markdown or an HTML page.

use std::fmt::Write as _;

use crate::analysis::comparable::{self, Shape};
use crate::analysis::{self, repeat, SetupDifference};
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

/// A run's rate profile, when `runs` holds its result and its one step had one
/// (`--rate 2s@5000,1s@60000`); a folded row ("a warm") is found by its setup's label.
fn profile_of(label: &str, runs: &[(&str, &RunResult)]) -> Option<String> {
    let (_, run) = runs.iter().find(|(l, _)| {
        label == *l
            || label
                .strip_prefix(*l)
                .is_some_and(|rest| rest == " warm" || rest == " cold")
    })?;
    match run.steps.as_slice() {
        [one] => one.rate_profile.clone(),
        _ => None,
    }
}

/// Computes one row per setup (repetitions folded into one row, a cold first round
/// in its own); `runs`: the runs that are hakaru JSON results, by label, for what only
/// they keep (a step's rate profile).
pub fn compare_rows(series: &[Series], runs: &[(&str, &RunResult)]) -> Vec<CompareRow> {
    let mut rows: Vec<CompareRow> = repeat::display(&repeat::groups(series))
        .iter()
        .map(|(s, spread)| {
            let shape = Shape::of(s, profile_of(&s.label, runs));
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
                // A level-off is a curve's: one step "levels off" where it was measured.
                plateau_clients: sat
                    .plateau
                    .filter(|_| shape.is_curve())
                    .map(|p| p.n_clients),
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
                shape,
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

/// What differs between the runs, in words, each marked serious or not: the load
/// models first (the judgement's, finer than the settings' open or closed), then the
/// other settings.
fn differences(series: &[Series], rows: &[CompareRow]) -> Vec<(bool, String)> {
    let shapes: Vec<Shape> = rows.iter().map(|r| r.shape.clone()).collect();
    let mut out = Vec::new();
    if let Some(m) = comparable::models_differ(&shapes) {
        out.push((true, findings::compare::models_sentence(&m)));
    }
    for d in analysis::setup_differences(series) {
        if !matches!(d, SetupDifference::OpenModel(_)) {
            out.push((d.is_serious(), findings::difference_sentence(&d)));
        }
    }
    out
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

/// Where the row's peak was measured: its clients, or the rate it was offered
/// ("5000/s") for an open-model run, whose connections are not its load.
fn peak_at(r: &CompareRow) -> Option<String> {
    // A profile's step has many rates: named as such, its profile in the sentences.
    if r.shape.model == comparable::LoadModel::Profile {
        return Some("profile".into());
    }
    let open = matches!(
        r.shape.model,
        comparable::LoadModel::FixedRate | comparable::LoadModel::Search
    );
    let rate = r
        .shape
        .steps
        .iter()
        .filter(|_| open)
        .max_by(|a, b| a.qps.total_cmp(&b.qps))
        .and_then(|m| match m.load {
            comparable::Load::Rate(q) => Some(format!(
                "{}/s",
                crate::report::fmt::fmt_qps(q).trim_end_matches(".0")
            )),
            comparable::Load::Clients(_) => None,
        });
    rate.or_else(|| r.peak_clients.map(|n| n.to_string()))
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

/// Whether the table holds any ratio: some run compares with the first at one load,
/// or as a curve.
fn any_ratio(rows: &[CompareRow]) -> bool {
    rows.split_first().is_some_and(|(base, rest)| {
        rest.iter()
            .any(|r| comparable::judge(&base.shape, &r.shape).table_ratios())
    })
}

/// The table's headers: the peak's place is "at" when some run's is a rate, and no
/// "peak" when no run is a curve.
fn headers(rows: &[CompareRow]) -> [&'static str; 8] {
    let mut h = HEADERS;
    if rows
        .iter()
        .any(|r| peak_at(r).is_some_and(|a| a.ends_with("/s")))
    {
        h[2] = "at";
    }
    // Without a curve there is no peak: each run's busiest step is just its figures.
    if !rows.iter().any(|r| r.shape.is_curve()) {
        (h[1], h[5], h[6]) = ("qps", "latency", "p99");
    }
    h
}

/// The table's cells, one row per run; ratios to the first run in parentheses.
pub fn table_cells(rows: &[CompareRow]) -> Vec<Vec<String>> {
    let Some(base) = rows.first() else {
        return Vec::new();
    };
    let dash = || "–".to_string();
    rows.iter()
        .enumerate()
        .map(|(i, r)| {
            // A ratio only where the judgement of the pair allows one: figures at the
            // same load, or two curves.
            let is_base = i == 0 || !comparable::judge(&base.shape, &r.shape).table_ratios();
            vec![
                r.label.clone(),
                peak_cell(r, base, is_base),
                peak_at(r).unwrap_or_else(dash),
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
    let heads = headers(rows);
    let mut widths: Vec<usize> = heads.iter().map(|h| h.chars().count()).collect();
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
    o.push_str(&line(&heads.map(String::from)));
    o.push('\n');
    for r in &cells {
        o.push_str(&line(r));
        o.push('\n');
    }
    if let Some(b) = rows.first() {
        let to = if any_ratio(rows) {
            format!("ratios in parentheses are to {}; ", b.label)
        } else {
            String::new()
        };
        let _ = writeln!(
            o,
            "({to}\"failed\" is the share of requests without a 2xx/3xx response{})",
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
        let rows = compare_rows(&parts.ramps, runs);
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
    let all = compare_rows(series, runs);
    for (serious, text) in differences(series, &all) {
        if serious {
            let _ = writeln!(o, "warning: {text}");
        } else {
            let _ = writeln!(o, "{text}");
        }
    }
    for w in warnings(&all) {
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
    let rows = compare_rows(&parts.ramps, runs);
    let mut o = String::from("### Comparison\n\n");
    for s in parts.sentences(&rows) {
        o.push_str(&s);
        o.push('\n');
    }
    if !parts.ramps.is_empty() {
        o.push('\n');
        let mut aligns = vec![Align::Right; HEADERS.len()];
        aligns[0] = Align::Left;
        o.push_str(&md_table(&headers(&rows), &aligns, &table_cells(&rows)));
        if let Some(b) = rows.first().filter(|_| any_ratio(&rows)) {
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
    let all = compare_rows(series, runs);
    for (serious, text) in differences(series, &all) {
        if serious {
            let _ = write!(o, "\n> **Warning:** {text}\n");
        } else {
            let _ = write!(o, "\n{text}\n");
        }
    }
    for w in warnings(&all) {
        let _ = write!(o, "\n> **Warning:** {w}\n");
    }
    o
}

/// The ramp table's section of the page, with the note on its ratios and, beside
/// suites, which runs are suites.
fn ramp_table_html(b: &mut String, rows: &[CompareRow], suites: Option<String>) {
    b.push_str("<section><h2>Side by side</h2><div class=\"scroll\"><table><thead><tr>");
    for h in headers(rows) {
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
        "</tbody></table></div><p class=\"note\">{}With repetitions (files given one label, or a run's warm rounds) a figure reads mean ± standard deviation, and ≈ marks a difference within the noise (under {} standard errors). The plateau is the fewest clients reaching {:.0}% of the run's peak; low-load latency is the mean at the first step.</p>",
        match rows.first().filter(|_| any_ratio(rows)) {
            Some(r) => format!("Ratios in parentheses are to the first run, {}. ", esc(&r.label)),
            None => String::new(),
        },
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
    let rows = compare_rows(&parts.ramps, runs);
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
    let all = compare_rows(series, runs);
    let differences = differences(series, &all);
    let warnings: Vec<String> = differences
        .iter()
        .filter(|(serious, _)| *serious)
        .map(|(_, t)| t.clone())
        .chain(warnings(&all))
        .collect();
    b.push_str(&page::warnings_box(&warnings));
    for (_, t) in differences.iter().filter(|(serious, _)| !serious) {
        let _ = write!(b, "<p>{}</p>", esc(t));
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

    /// A run of one step per `(clients, rate, qps, mean, p99)`, 1000 requests each.
    fn stepped(steps: &[(usize, Option<f64>, f64, f64)]) -> RunResult {
        let steps = steps
            .iter()
            .map(|&(n, rate, qps, mean)| {
                let mut s = fixture::bare_step(n);
                s.rate = rate;
                s.qps = qps;
                s.total_requests = 1000;
                s.statuses.insert(200, 1000);
                s.latency.count = 1000;
                s.latency.mean_s = mean;
                s.latency.p99_s = mean * 3.0;
                s
            })
            .collect();
        fixture::run(steps)
    }

    /// The terminal, the Markdown and the page of `runs` compared, in one string.
    fn everywhere(runs: &[(&str, &RunResult)]) -> String {
        let series: Vec<Series> = runs.iter().map(|(l, r)| Series::from_run(r, l)).collect();
        format!(
            "{}\n{}\n{}",
            compare_text_with(&series, runs),
            compare_markdown_with(&series, runs),
            compare_html(&series, runs, &ReportOptions::default())
        )
    }

    /// Regression (issue 35): two fixed-rate runs compared said "holds 6.0× peak qps",
    /// which is only the rates chosen, not what either server can hold.
    #[test]
    fn fixed_rates_compared_claim_no_peak_qps() {
        let a = stepped(&[(50, Some(1000.0), 1000.0, 0.001)]);
        let b = stepped(&[(50, Some(6000.0), 6000.0, 0.002)]);
        let all = everywhere(&[("a", &a), ("b", &b)]);
        assert!(
            !all.contains(" holds ") && !all.contains("peak qps ("),
            "{all}"
        );
        assert!(!all.contains("(6.00×)") && !all.contains("(6.0×)"), "{all}");
        assert!(
            all.contains("a was offered 1000 requests/s, b 6000 requests/s: a fixed rate's throughput is the rate chosen"),
            "{all}"
        );
        // The same rate offered to both: answered against offered, and the p99s.
        let c = stepped(&[(50, Some(5000.0), 5000.0, 0.001)]);
        let d = stepped(&[(50, Some(5000.0), 4120.0, 0.1)]);
        let text = compare_text_with(
            &[Series::from_run(&c, "a"), Series::from_run(&d, "b")],
            &[("a", &c), ("b", &d)],
        );
        assert!(
            text.contains("Both were offered 5000 requests/s: a answered 5000/s (p99 3.00 ms, none failed), b answered 4120/s (p99 300 ms, none failed); b's p99 there is 100× a's."),
            "{text}"
        );
    }

    /// Regression (issue 35): single steps at 20 and 50 clients were told "levels off
    /// at 20 clients (nginx: 50)" and "its 20-client latency is 5.7×".
    #[test]
    fn single_steps_at_different_clients_claim_no_level_off_or_latency_ratio() {
        let a = stepped(&[(20, None, 1000.0, 0.02)]);
        let b = stepped(&[(50, None, 1200.0, 0.04)]);
        let all = everywhere(&[("nginx", &a), ("caddy", &b)]);
        assert!(!all.contains("levels off"), "{all}");
        assert!(!all.contains("-client latency"), "{all}");
        assert!(
            !all.contains(" holds ") && !all.contains("peak qps ("),
            "{all}"
        );
        assert!(
            all.contains(
                "nginx was measured at 20 clients, caddy at 50 clients: with no load in common"
            ),
            "{all}"
        );
        // At the same clients: figures there, said as such.
        let c = stepped(&[(20, None, 1200.0, 0.04)]);
        let text = compare_text_with(
            &[Series::from_run(&a, "nginx"), Series::from_run(&c, "caddy")],
            &[("nginx", &a), ("caddy", &c)],
        );
        assert!(
            text.contains("At 20 clients, caddy answered 1.20× nginx's qps (1200 vs 1000 qps); caddy's p99 there is 2.0× nginx's."),
            "{text}"
        );
        assert!(!text.contains("levels off"), "{text}");
    }

    #[test]
    fn a_client_ramp_and_a_fixed_rate_are_different_models() {
        let ramp = stepped(&[
            (1, None, 100.0, 0.01),
            (2, None, 190.0, 0.01),
            (4, None, 300.0, 0.013),
            (8, None, 320.0, 0.025),
        ]);
        let rate = stepped(&[(50, Some(5000.0), 5000.0, 0.001)]);
        let all = everywhere(&[("ramp", &ramp), ("rate", &rate)]);
        assert!(
            !all.contains(" holds ") && !all.contains("peak qps ("),
            "{all}"
        );
        assert!(
            all.contains("these runs differ in load model (ramp closed, by clients, rate open, at fixed rates)"),
            "{all}"
        );
        assert!(
            all.contains("<strong>Warning:</strong> these runs differ in load model"),
            "{all}"
        );
        assert!(
            all.contains("rate (open, at fixed rates) and ramp (closed, by clients) offered their load differently"),
            "{all}"
        );
        // The settings' own open/closed warning is not said twice.
        assert!(!all.contains("steps by rate and steps by clients"), "{all}");
        // Each model on its own axis: the fixed rate is not drawn at its connections
        // beside the ramp's clients.
        assert!(all.contains("Answered against offered rate"), "{all}");
        assert!(!all.contains("rate: 50 clients"), "{all}");
    }

    #[test]
    fn curves_still_compare_their_peaks_and_level_off() {
        let a = stepped(&[
            (1, None, 100.0, 0.01),
            (2, None, 190.0, 0.0105),
            (4, None, 300.0, 0.013),
            (8, None, 320.0, 0.025),
        ]);
        let b = stepped(&[
            (1, None, 150.0, 0.01),
            (2, None, 300.0, 0.0066),
            (4, None, 580.0, 0.0069),
            (8, None, 640.0, 0.0125),
        ]);
        let text = compare_text_with(
            &[Series::from_run(&a, "a"), Series::from_run(&b, "b")],
            &[("a", &a), ("b", &b)],
        );
        assert!(
            text.contains("b holds 2.0× a's peak qps (640.0 vs 320.0 qps); its 1-client latency is about the same as a's."),
            "{text}"
        );
        assert!(text.contains("(2.0×)"), "{text}");
    }

    /// What the terminal shows for fixed rates (apart, then alike) and single steps
    /// (apart, then alike), as a person reads it: tests/fixtures/compare-*.txt.
    #[test]
    fn qualified_comparisons_snapshot() {
        let text = |pairs: &[(&str, &RunResult)]| {
            let series: Vec<Series> = pairs.iter().map(|(l, r)| Series::from_run(r, l)).collect();
            compare_text_with(&series, pairs)
        };
        let a = stepped(&[(50, Some(1000.0), 1000.0, 0.001)]);
        let b = stepped(&[(50, Some(6000.0), 6000.0, 0.002)]);
        let c = stepped(&[(50, Some(5000.0), 5000.0, 0.0007)]);
        let mut d = stepped(&[(50, Some(5000.0), 4120.0, 0.178)]);
        d.steps[0].late = 63088;
        d.steps[0].statuses.insert(503, 33);
        let rates = format!(
            "{}\n{}",
            text(&[("a", &a), ("b", &b)]),
            text(&[("nginx", &c), ("caddy", &d)])
        );
        crate::report::run::text::tests::snapshot("compare-fixed-rates.txt", &rates);
        let e = stepped(&[(20, None, 9000.0, 0.002)]);
        let f = stepped(&[(50, None, 11000.0, 0.0045)]);
        let g = stepped(&[(20, None, 7000.0, 0.0029)]);
        let steps = format!(
            "{}\n{}",
            text(&[("nginx", &e), ("caddy", &f)]),
            text(&[("nginx", &e), ("caddy", &g)])
        );
        crate::report::run::text::tests::snapshot("compare-single-steps.txt", &steps);
    }

    /// Two rate ramps over the same rates: the highest each held is a capacity both
    /// looked for the same way, and is said; the figures are the top rate's.
    #[test]
    fn rate_ramps_over_the_same_rates_compare_the_highest_held() {
        let a = stepped(&[
            (8, Some(100.0), 100.0, 0.001),
            (8, Some(200.0), 200.0, 0.001),
            (8, Some(400.0), 399.0, 0.002),
        ]);
        let b = stepped(&[
            (8, Some(100.0), 100.0, 0.001),
            (8, Some(200.0), 150.0, 0.05),
            (8, Some(400.0), 160.0, 0.2),
        ]);
        let text = compare_text_with(
            &[Series::from_run(&a, "a"), Series::from_run(&b, "b")],
            &[("a", &a), ("b", &b)],
        );
        assert!(
            text.contains("Offered the same rates (100, 200 and 400 requests/s), a held every rate, up to 400 requests/s and b held up to 100 requests/s."),
            "{text}"
        );
        assert!(
            text.contains(
                "At 400 requests/s, the highest rate both were offered: a answered 399.0/s"
            ),
            "{text}"
        );
        assert!(
            !text.contains(" holds ") && !text.contains("peak qps ("),
            "{text}"
        );
    }

    /// Two --find-max searches probe rates of their own: without a rate in common
    /// nothing is compared, and their answers are pointed to, not made a peak.
    #[test]
    fn searches_without_a_rate_in_common_compare_nothing() {
        let mut a = stepped(&[
            (8, Some(1000.0), 1000.0, 0.001),
            (8, Some(1500.0), 1400.0, 0.01),
        ]);
        let mut b = stepped(&[
            (8, Some(1200.0), 1200.0, 0.001),
            (8, Some(2000.0), 1900.0, 0.01),
        ]);
        a.find_max = Some(Default::default());
        b.find_max = Some(Default::default());
        let text = compare_text_with(
            &[Series::from_run(&a, "a"), Series::from_run(&b, "b")],
            &[("a", &a), ("b", &b)],
        );
        assert!(
            text.contains("a's search probed 1000 and 1500 requests/s, b's 1200 and 2000 requests/s: no rate in common"),
            "{text}"
        );
        assert!(
            !text.contains(" holds ") && !text.contains("peak qps ("),
            "{text}"
        );
    }
}
