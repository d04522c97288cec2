//! Comparison of several runs — the tutorial's "Groonga vs Droonga with 1, 2 and 3
//! nodes": one row per run with its saturation figures, each also as a ratio to the
//! first run (the baseline), a few computed sentences a manager can read, and the
//! overlaid charts. Output as plain text, Markdown or an HTML page.

use std::fmt::Write as _;

use crate::analysis::comparable::{self, SearchAnswer, Shape};
use crate::analysis::{self, repeat, SetupDifference};
use crate::report::chart::esc;
use crate::report::findings::phases::{phase_sentences, PhaseTable};
use crate::report::findings::{self, compare_sentences, ratio, CompareRow};
use crate::report::fmt::{
    fmt_latency, fmt_qps, fmt_ratio, fmt_ratio_spread, fmt_share, fmt_spread, Work,
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

/// A `--find-max` run's answer, from its result file.
fn search_of(label: &str, runs: &[(&str, &RunResult)]) -> Option<SearchAnswer> {
    let (_, run) = runs.iter().find(|(l, _)| *l == label)?;
    let fm = run.find_max.as_ref()?;
    Some(SearchAnswer {
        slo: fm.slo.clone(),
        held: fm.max_sustainable_rate,
        failed: fm.lowest_failed_rate,
    })
}

/// Computes one row per setup (repetitions folded into one row, a cold first round
/// in its own); `runs`: the runs that are hakaru JSON results, by label, for what only
/// they keep (a step's rate profile).
pub fn compare_rows(series: &[Series], runs: &[(&str, &RunResult)]) -> Vec<CompareRow> {
    let mut rows: Vec<CompareRow> = repeat::display(&repeat::groups(series))
        .iter()
        .map(|(s, spread)| {
            // The profile as the step keeps it; from the result's own text for files
            // written before steps kept their segments.
            let kept = match s.points.as_slice() {
                [one] => one
                    .profile
                    .as_ref()
                    .map(|p| crate::result::profile::profile_text(&p.segments)),
                _ => None,
            };
            let shape = Shape::of(s, kept.or_else(|| profile_of(&s.label, runs)))
                .with_search(search_of(&s.label, runs));
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
                work: Work::of_series(s),
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
    "peak",
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

/// What the rows count between them: their own kind's words (tps for two SQL
/// runs, ops/s for two stores), "answers/s" for runs of different kinds.
fn work_of(rows: &[CompareRow]) -> Work {
    Work::of_all(rows.iter().map(|r| r.work))
}

/// The table's headers: the rate in the runs' unit ("peak tps"), the peak's place
/// "at" when some run's is a rate, and no "peak" when no run is a curve.
fn headers(rows: &[CompareRow]) -> [String; 8] {
    let rate = work_of(rows).rate();
    let mut h = HEADERS.map(String::from);
    h[1] = format!("peak {rate}");
    if rows
        .iter()
        .any(|r| peak_at(r).is_some_and(|a| a.ends_with("/s") || a == "profile"))
    {
        h[2] = "at".into();
    }
    // Without a curve there is no peak: each run's busiest step is just its figures.
    if !rows.iter().any(|r| r.shape.is_curve()) {
        (h[1], h[5], h[6]) = (rate.into(), "latency".into(), "p99".into());
    }
    h
}

/// What "failed" counts, in the rows' words: HTTP's requests without a 2xx/3xx
/// response, a SQL run's transactions ended in an error, a store's commands
/// without a reply or with an error reply; each run's own for runs of kinds apart.
fn failed_words(rows: &[CompareRow]) -> &'static str {
    match work_of(rows) {
        Work::Request => "the share of requests without a 2xx/3xx response",
        Work::Transaction => "the share of transactions that ended in an error",
        Work::Command => "the share of commands without a reply or with an error reply",
        Work::Answer => "the share each run counts as failed, in its own report's words",
    }
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
    o.push_str(&line(&heads));
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
            "({to}\"failed\" is {}{})",
            failed_words(rows),
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
        let heads = headers(&rows);
        let heads: Vec<&str> = heads.iter().map(String::as_str).collect();
        o.push_str(&md_table(&heads, &aligns, &table_cells(&rows)));
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
        let _ = write!(b, "<th>{}</th>", esc(&h));
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
#[path = "compare_tests.rs"]
mod tests;
