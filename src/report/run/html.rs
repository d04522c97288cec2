//! The HTML report of one run: a single self-contained file (inline CSS and SVG, no
//! script, no network) that answers "where does it saturate?" at a glance, then shows
//! the charts, the per-step numbers, statuses, probes and the run's settings.

use std::fmt::Write as _;

use crate::analysis::{self, Saturation};
use crate::report::chart::run_charts;
use crate::report::chart::{self, esc};
use crate::report::findings;
use crate::report::fmt::{clients, fmt_bytes, fmt_latency, fmt_qps, fmt_share, Work};
use crate::report::page::{chart_section, kind_warnings, page, rich, source_line, warnings_box};
use crate::report::sections::{hosts_section, probes_section, run_section, status_section};
use crate::report::ReportOptions;
use crate::result::series::Series;
use crate::result::RunResult;

fn cards(sat: &Saturation, work: Work) -> String {
    let rate = work.rate();
    let mut o = String::from("<div class=\"cards\">");
    let mut card = |k: &str, v: String, n: String| {
        let _ = write!(
            o,
            "<div class=\"card\"><div class=\"k\">{}</div><div class=\"v\">{}</div><div class=\"n\">{}</div></div>",
            esc(k),
            esc(&v),
            esc(&n)
        );
    };
    if let Some(p) = sat.peak {
        card(
            "Peak throughput",
            format!("{} {rate}", fmt_qps(p.qps)),
            format!("at {}", clients(p.n_clients)),
        );
    }
    if let Some(p) = sat.plateau {
        card(
            "Levels off from",
            clients(p.n_clients),
            format!(
                "first step at ≥ {:.0}% of the peak",
                analysis::PLATEAU_SHARE * 100.0
            ),
        );
    }
    match (sat.knee, sat.baseline) {
        (Some(k), Some(b)) => card(
            "Latency knee",
            clients(k.n_clients),
            format!(
                "mean {} vs {} at {}",
                fmt_latency(k.mean_s),
                fmt_latency(b.mean_s),
                clients(b.n_clients)
            ),
        ),
        (None, Some(b)) => card(
            "Latency knee",
            "not reached".into(),
            format!("mean stays under 2× {}", fmt_latency(b.mean_s)),
        ),
        _ => {}
    }
    if let Some(f) = sat.usl {
        match (f.max_qps, f.peak_clients) {
            (Some(m), Some(n)) => card(
                "USL predicts at most",
                format!("{} {rate}", fmt_qps(m)),
                format!("at about {n:.0} clients (R² {:.2})", f.r_squared),
            ),
            (Some(m), None) => card(
                "USL predicts",
                format!("→ {} {rate}", fmt_qps(m)),
                format!("levels off, no peak (R² {:.2})", f.r_squared),
            ),
            _ => card(
                "USL predicts",
                "no limit yet".into(),
                format!("R² {:.2}", f.r_squared),
            ),
        }
    }
    o.push_str("</div>");
    o
}

fn opt_count(v: Option<u64>) -> String {
    v.map(|n| n.to_string()).unwrap_or_else(|| "–".into())
}

fn opt_latency(v: Option<f64>) -> String {
    v.map(fmt_latency).unwrap_or_else(|| "–".into())
}

/// What the steps table counts, and how its latency, "failed" and connections
/// read, in the run's words: a SQL database's transactions, a store's commands,
/// HTTP requests.
fn steps_words(work: Work) -> (&'static str, &'static str) {
    match work {
        Work::Transaction => (
            "Latencies are from a transaction's first statement sent to its last answer. \
             \"failed\" is the share of transactions that ended in an error.",
            // docs/guide/sql.md: in the closed model a client logs in before its
            // first transaction's clock starts; with -C each login is in its time.
            " \"connections\" is how many the step opened: one per client when each \
             keeps its connection (its login before its first transaction's time, not \
             in it), one per transaction with pgbench's -C or --no-keep-alive (each \
             login inside its transaction's time), and one more each time a connection \
             was lost.",
        ),
        Work::Command => (
            "Latencies are from hand-over to the socket to the reply's last byte. \
             \"failed\" is the share of commands without a reply or with an error reply.",
            " \"connections\" is how many the step opened: one per client, which keeps \
             its connection for the whole step, and one more each time a connection was \
             lost.",
        ),
        Work::Request | Work::Answer => (
            "Latencies are from hand-over to the socket to the last byte of the response. \
             \"failed\" is the share of requests without a 2xx/3xx response.",
            " \"connections\" is how many the step opened: as many as clients when \
             connections are kept alive, one per request without keep-alive or when the \
             server closes them.",
        ),
    }
}

fn steps_table(s: &Series, sat: &Saturation) -> String {
    let pct = s.has_percentiles();
    let cpu = s.points.iter().any(|p| p.client_cpu_share.is_some());
    let lag = s.points.iter().any(|p| p.pacer_lag_p99_s.is_some());
    let conns = s.points.iter().any(|p| p.connections_opened.is_some());
    let bytes = s.points.iter().any(|p| p.bytes_received.is_some());
    let work = Work::of_series(s);
    let (said, connections) = steps_words(work);
    let (unit, rate) = (work.items(), work.rate());
    let mut o = format!("<div class=\"scroll\"><table><thead><tr><th>clients</th><th>{unit}</th><th>{rate}</th><th>mean</th>");
    if pct {
        o.push_str("<th>p50</th><th>p90</th><th>p99</th>");
    }
    o.push_str("<th>min</th><th>max</th><th>failed</th>");
    if cpu {
        o.push_str("<th>client CPU</th>");
    }
    if lag {
        o.push_str("<th>pacer lag p99</th>");
    }
    if conns {
        o.push_str("<th>connections</th>");
    }
    if bytes {
        o.push_str("<th>received</th>");
    }
    o.push_str("</tr></thead><tbody>");
    for (i, p) in s.points.iter().enumerate() {
        let is_peak = sat.peak.is_some_and(|k| k.index == i);
        let _ = write!(
            o,
            "<tr{}><td>{}{}</td><td>{}</td><td>{}</td><td>{}</td>",
            if is_peak { " class=\"peak\"" } else { "" },
            p.n_clients,
            if p.partial { " (cut short)" } else { "" },
            p.total_requests,
            fmt_qps(p.qps),
            fmt_latency(p.mean_s)
        );
        if pct {
            let _ = write!(
                o,
                "<td>{}</td><td>{}</td><td>{}</td>",
                opt_latency(p.p50_s),
                opt_latency(p.p90_s),
                opt_latency(p.p99_s)
            );
        }
        let _ = write!(
            o,
            "<td>{}</td><td>{}</td><td>{}</td>",
            fmt_latency(p.min_s),
            fmt_latency(p.max_s),
            fmt_share(p.error_share)
        );
        if cpu {
            let _ = write!(
                o,
                "<td>{}</td>",
                p.client_cpu_share
                    .map(|c| format!("{:.0}%", c * 100.0))
                    .unwrap_or_else(|| "–".into())
            );
        }
        if lag {
            let _ = write!(o, "<td>{}</td>", opt_latency(p.pacer_lag_p99_s));
        }
        if conns {
            let _ = write!(o, "<td>{}</td>", opt_count(p.connections_opened));
        }
        if bytes {
            let _ = write!(
                o,
                "<td>{}</td>",
                p.bytes_received
                    .map(|b| fmt_bytes(b as f64))
                    .unwrap_or_else(|| "–".into())
            );
        }
        o.push_str("</tr>");
    }
    let _ = write!(
        o,
        "</tbody></table></div><p class=\"note\">{said} The highlighted row is the peak."
    );
    if lag {
        o.push_str(" \"pacer lag\" is how late paced requests left after their due time: how exact the load was.");
    }
    if conns {
        o.push_str(connections);
    }
    o.push_str("</p>");
    o
}

/// The whole report of one run as an HTML page.
pub fn html_report(s: &Series, opts: &ReportOptions) -> String {
    html_report_with(s, None, opts)
}

/// [`html_report`] with what only hakaru's JSON result keeps (`run`, when there is
/// one): its thresholds' verdicts near the top.
pub fn html_report_with(s: &Series, run: Option<&RunResult>, opts: &ReportOptions) -> String {
    html_page(s, run, opts, None)
}

/// The body of a page whose result reads differently (a `--find-max` search: its
/// answer and probes), drawn from the series as shown.
pub type Body<'a> = &'a dyn Fn(&Series) -> String;

/// [`html_report_with`], the part under the verdicts drawn by `body` when given (the
/// caller picks it by the result's kind) instead of the steps' own.
pub fn html_page(
    s: &Series,
    run: Option<&RunResult>,
    opts: &ReportOptions,
    body: Option<Body<'_>>,
) -> String {
    // A repeated run (`--rounds`) is summed up as its warm rounds' mean, or as its
    // round 1 when a command prepared each round differently (they are not one
    // setup); either way the charts draw every round as its own line.
    let prepared = run.is_some_and(super::rounds::prepared);
    let shown = if s.rounds() > 1 && prepared {
        vec![s.round(1)]
    } else if s.rounds() > 1 {
        crate::analysis::repeat::display_series(std::slice::from_ref(s))
    } else {
        vec![s.clone()]
    };
    let main = &shown[0];
    let per_round = if s.rounds() > 1 {
        super::rounds::by_round(s)
    } else {
        shown.clone()
    };
    let drawn: Vec<&Series> = per_round.iter().collect();
    let sat = analysis::analyse(main);
    let mut b = String::new();
    let _ = write!(
        b,
        "<h1>{}</h1><p class=\"sub\">{}</p>",
        esc(&s.name()),
        esc(&source_line(s))
    );
    if let Some(run) = run {
        b.push_str(&crate::report::sections::verdict_sections(run));
    }
    b.push_str(&super::rounds::rounds_html(s, run, opts));
    if let Some(body) = body {
        b.push_str(&body(main));
    } else if let Some(run) = run.filter(|r| is_single_step(main, r)) {
        b.push_str(&single_step_body(main, run, opts));
    } else if s.is_open_model() {
        b.push_str(&rate_body(main, &drawn, opts));
    } else {
        b.push_str("<section class=\"summary\"><h2>Where it saturates</h2>");
        if let Some(why) = run.and_then(|r| r.ended_because.as_deref()) {
            let _ = write!(
                b,
                "<p>The ramp ended on its own (--until-saturated): {}.</p>",
                esc(why)
            );
        }
        b.push_str(&cards(&sat, Work::of_series(s)));
        for line in findings::sentences(&sat, Work::of_series(s)) {
            let _ = write!(b, "<p>{}</p>", rich(&line));
        }
        let warnings: Vec<String> = sat.warnings.iter().map(|w| w.to_string()).collect();
        b.push_str(&warnings_box(&warnings));
        b.push_str("</section>");
        for (_, c) in run_charts(&drawn, opts) {
            b.push_str(&chart_section(&c));
        }
        let _ = write!(
            b,
            "<section><h2>Steps{}</h2>{}</section>",
            if shown.len() > 1 {
                " (warm rounds, mean)"
            } else if prepared && s.rounds() > 1 {
                " (round 1)"
            } else {
                ""
            },
            steps_table(main, &sat)
        );
    }
    if let Some(run) = run.filter(|r| !is_single_step(main, r)) {
        b.push_str(&crate::report::over_time::html(run, chart_section));
    }
    if let Some(run) = run {
        b.push_str(&super::store::html_section(run));
    }
    b.push_str(&hosts_section(s));
    b.push_str(&status_section(main));
    b.push_str(&probes_section(s));
    b.push_str(&run_section(s));
    page(&format!("{} — hakaru report", s.name()), &b)
}

/// The summary, charts and steps of an open-model run: offered against answered
/// rate, latency from the due time, late and dropped requests, the pacer's lag.
fn rate_body(s: &Series, drawn: &[&Series], opts: &ReportOptions) -> String {
    let f = analysis::analyse_rates(s);
    let unit = Work::of_series(s).per_s();
    let mut b = String::from("<section class=\"summary\"><h2>Which rates it held</h2>");
    b.push_str("<div class=\"cards\">");
    let mut card = |k: &str, v: String, n: String| {
        let _ = write!(
            b,
            "<div class=\"card\"><div class=\"k\">{}</div><div class=\"v\">{}</div><div class=\"n\">{}</div></div>",
            esc(k),
            esc(&v),
            esc(&n)
        );
    };
    match f.highest_held {
        Some(h) => card(
            "Highest rate held",
            format!("{} {unit}", fmt_qps(h.rate)),
            format!("answered {}/s", fmt_qps(h.achieved)),
        ),
        None => card(
            "Highest rate held",
            "none".into(),
            "not even the first".into(),
        ),
    }
    match f.first_behind {
        Some(r) => card(
            "Falls behind at",
            format!("{} {unit}", fmt_qps(r.rate)),
            format!("answered {}/s", fmt_qps(r.achieved)),
        ),
        None => card(
            "Falls behind at",
            "not reached".into(),
            "kept up with every rate".into(),
        ),
    }
    b.push_str("</div>");
    for line in findings::rate_sentences(s, &f) {
        let _ = write!(b, "<p>{}</p>", rich(&line));
    }
    b.push_str(&kind_warnings(findings::RunKind::OpenModel, s));
    b.push_str("</section>");
    for (_, c) in run_charts(drawn, opts) {
        b.push_str(&chart_section(&c));
    }
    let _ = write!(
        b,
        "<section><h2>Steps</h2>{}</section>",
        rate_steps_table(s)
    );
    b
}

/// One step (`hakaru run`): read over time, not as a curve of one point.
fn is_single_step(s: &Series, run: &RunResult) -> bool {
    s.points.len() == 1 && run.suite.is_none()
}

/// A single step: its figures, what happened over time and by kind of request, and its
/// latency by percentile; no saturation cards or curves of one dot.
fn single_step_body(s: &Series, run: &RunResult, opts: &ReportOptions) -> String {
    let table = if s.is_open_model() {
        rate_steps_table(s)
    } else {
        steps_table(s, &analysis::analyse(s))
    };
    let mut b = format!("<section class=\"summary\"><h2>The step</h2>{table}");
    let kind = findings::RunKind::of(s, Some(run));
    let warnings: Vec<String> = kind.warnings(s).iter().map(|w| w.to_string()).collect();
    b.push_str(&warnings_box(&warnings));
    b.push_str("</section>");
    b.push_str(&crate::report::over_time::html(run, chart_section));
    if let Some(c) = chart::percentile_chart(s, opts.chart) {
        b.push_str(&chart_section(&c));
    }
    b
}

fn rate_steps_table(s: &Series) -> String {
    let mut o = String::from(
        "<div class=\"scroll\"><table><thead><tr><th>offered/s</th><th>answered/s</th><th>held</th>\
         <th>p50</th><th>p99</th><th>max</th><th>late</th><th>dropped</th><th>failed</th>\
         <th>pacer lag p99</th><th>connections</th></tr></thead><tbody>",
    );
    for p in &s.points {
        let Some(rate) = p.rate else { continue };
        let held = analysis::rate::held(p);
        let _ = write!(
            o,
            "<tr{}><td>{}{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>\
             <td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            if held { "" } else { " class=\"behind\"" },
            // A profile as typed: its mean would hide a spike.
            p.profile.as_ref().map_or_else(
                || fmt_qps(rate),
                |x| esc(&crate::result::profile::profile_text(&x.segments))
            ),
            if p.partial { " (cut short)" } else { "" },
            fmt_qps(p.qps),
            if held { "yes" } else { "no" },
            opt_latency(p.p50_s),
            opt_latency(p.p99_s),
            fmt_latency(p.max_s),
            p.late,
            p.dropped,
            fmt_share(p.error_share),
            opt_latency(p.pacer_lag_p99_s),
            p.n_clients
        );
    }
    // In the run's words: a SQL run's transactions, a store's commands.
    let work = Work::of_series(s);
    let (items, item, answers) = (work.items(), work.item(), work.answers());
    let _ = write!(
        o,
        "</tbody></table></div><p class=\"note\">Open model: {items} are due on a timetable \
         whatever the {answers} do, and latency counts from each {item}'s due time. A rate \
         is held when at least {:.0}% of it was answered and no due {item} was left unsent. \
         \"late\" {items} left more than 1 ms after their due time (every connection was \
         busy); \"dropped\" were due but never started. \"pacer lag\" is how late {items} \
         left: how exact the load was.</p>",
        analysis::rate::HELD_SHARE * 100.0
    );
    o
}

/// The charts as standalone files, titled with the run's name since no page around
/// them says it: (suffix without extension, chart).
pub(crate) fn standalone_charts(
    series: &[&Series],
    opts: &ReportOptions,
) -> Vec<(&'static str, chart::LineChart)> {
    // One run of several rounds: every round its own line, and the rounds by percentile.
    let per_round = match series {
        [s] if s.rounds() > 1 => super::rounds::by_round(s),
        _ => Vec::new(),
    };
    let refs: Vec<&Series> = per_round.iter().collect();
    let mut charts = run_charts(if refs.is_empty() { series } else { &refs }, opts);
    if let [s] = series {
        if let Some(c) = super::rounds::percentile_chart(s, opts) {
            charts.push(("-rounds", c));
        }
        for (_, c) in &mut charts {
            c.title = format!("{} — {}", c.title, s.name());
        }
    }
    charts
}

/// The charts as PNG bytes: (file suffix, bytes).
pub fn chart_pngs(
    series: &[&Series],
    opts: &ReportOptions,
) -> Result<Vec<(String, Vec<u8>)>, String> {
    let mut out = Vec::new();
    for (suffix, c) in standalone_charts(series, opts) {
        out.push((format!("{suffix}.png"), crate::report::png::png_bytes(&c)?));
    }
    Ok(out)
}

/// The charts of a run as standalone SVG files: (suffix, contents).
pub fn chart_svgs(series: &[&Series], opts: &ReportOptions) -> Vec<(String, String)> {
    standalone_charts(series, opts)
        .into_iter()
        .map(|(suffix, c)| (format!("{suffix}.svg"), chart::svg_file(&c)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::tests::series_of;

    /// `hakaru report x.csv` of a SQL run drew its page in HTTP's words (a status
    /// "250", qps): a CSV has no targets. Its status columns `ok` and `error` say a
    /// SQL run's, so the page, the Markdown and the terminal say tps and `ok`.
    #[test]
    fn a_sql_csv_read_back_reports_tps_and_ok_not_250_qps() {
        use crate::report::output::{MarkdownTo, OutputPlan};
        use crate::result::{csv, fixture};
        let mut steps = Vec::new();
        for n in [1, 2, 4, 8] {
            let mut st = fixture::bare_step(n);
            st.total_requests = 1000;
            st.responses = 1000;
            st.qps = 100.0 * n.min(4) as f64;
            st.statuses.insert(crate::report::fmt::STORE_VALUE, 997);
            st.statuses.insert(0, 3);
            st.latency.count = 1000;
            st.latency.mean_s = 0.001 * n as f64;
            st.latency.p99_s = 0.003 * n as f64;
            (st.latency.min_s, st.latency.max_s) = (0.0005, 0.01 * n as f64);
            (st.latency.p50_s, st.latency.p90_s) = (0.001 * n as f64, 0.002 * n as f64);
            steps.push(st);
        }
        let mut run = fixture::run(steps);
        run.targets = vec!["postgres://127.0.0.1:5432/bench".into()];
        let dir = std::env::temp_dir().join(format!("hakaru-sql-csv-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let src = dir.join("pgbench.csv");
        let text = csv::to_csv(&run, csv::CsvFormat::Full);
        let head = text.lines().next().unwrap_or_default();
        assert!(head.contains(",ok,") && head.contains(",error,"), "{head}");
        std::fs::write(&src, text).unwrap();
        let plan = OutputPlan {
            markdown: Some(MarkdownTo::File(dir.join("pgbench.md"))),
            ..OutputPlan::default()
        };
        let out = crate::report::dispatch::run_report(&src, &plan).unwrap();
        let page = std::fs::read_to_string(dir.join("pgbench.html")).unwrap();
        let md = std::fs::read_to_string(dir.join("pgbench.md")).unwrap();
        for t in [&page, &md, &out.stdout] {
            assert!(t.contains("tps"), "{t}");
            assert!(!t.contains("qps"), "{t}");
        }
        assert!(page.contains("<th>transactions</th>"), "{page}");
        // The statuses table's columns: the transactions' `ok` and `error`.
        assert!(page.contains("<th>error</th><th>ok</th>"), "{page}");
        assert!(!page.contains("<th>250</th>") && !page.contains("<th>0</th>"));
        assert!(!md.contains("| 250 |") && !md.contains("250 ("), "{md}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A SQL run's page counted its transactions as "requests" and read "failed" as
    /// "without a 2xx/3xx response"; a store's likewise.
    #[test]
    fn the_steps_table_speaks_the_run_s_words() {
        let mut s = series_of(&[(2, 100.0, 0.001)]);
        let html = |s: &Series| steps_table(s, &analysis::analyse(s));
        assert!(html(&s).contains("<th>requests</th>") && html(&s).contains("2xx/3xx"));
        s.targets = vec!["postgres://127.0.0.1:5432".into()];
        let t = html(&s);
        assert!(t.contains("<th>transactions</th>"), "{t}");
        assert!(
            t.contains("share of transactions that ended in an error"),
            "{t}"
        );
        assert!(!t.contains("2xx") && !t.contains("requests"), "{t}");
        s.targets = vec!["redis://127.0.0.1:6379".into()];
        let t = html(&s);
        assert!(t.contains("<th>commands</th>") && !t.contains("2xx"), "{t}");
    }

    /// A SQL ramp's page said "qps" (its cards, its steps table, its findings and its
    /// throughput chart) where pgbench and sysbench say tps; a store's says ops/s,
    /// as the terminal's "Operations per second". HTTP keeps qps.
    #[test]
    fn a_sql_run_s_page_rates_transactions_in_tps_never_qps() {
        let mut s = series_of(&[(1, 100.0, 0.01), (2, 190.0, 0.0105), (4, 200.0, 0.02)]);
        let page = |s: &Series| html_report(s, &ReportOptions::default());
        let http = page(&s);
        assert!(
            http.contains("<th>qps</th>") && http.contains("200.0 qps"),
            "{http}"
        );
        s.targets = vec!["postgres://127.0.0.1:5432/bench".into()];
        s.points[0].hosts = vec![crate::result::series::HostPoint {
            target: s.targets[0].clone(),
            responses: 1000,
            errors: 0,
            mean_s: 0.01,
        }];
        let sql = page(&s);
        for said in [
            "transactions wait for each other",
            "Every transaction went to one host",
            "<th>tps</th>",
            "<div class=\"v\">200.0 tps</div>",
            "Throughput peaks at 200.0 tps with 4 clients.",
            "throughput (transactions per second)",
            "peak: 200.0 tps at 4 clients",
        ] {
            assert!(sql.contains(said), "{said:?} not in the page");
        }
        assert!(!sql.contains("qps") && !sql.contains("queries per second"));
        s.targets = vec!["redis://127.0.0.1:6379".into()];
        let store = page(&s);
        assert!(store.contains("<th>ops/s</th>") && store.contains("200.0 ops/s"));
        assert!(!store.contains("qps"));
    }

    /// The connections note told a SQL run "one per request without keep-alive": a
    /// SQL client keeps one connection and logs in before its first transaction's
    /// time (one per transaction with -C); a store's client keeps one for the step.
    #[test]
    fn the_connections_note_speaks_of_clients_and_logins_for_sql_never_requests() {
        let mut s = series_of(&[(2, 100.0, 0.001)]);
        s.points[0].connections_opened = Some(2);
        let note = |s: &Series| steps_table(s, &analysis::analyse(s));
        assert!(note(&s).contains("one per request without keep-alive"));
        s.targets = vec!["mysql://127.0.0.1:3306/sbtest".into()];
        let sql = note(&s);
        assert!(
            sql.contains("one per client when each keeps its connection (its login before its first transaction's time, not in it)")
                && sql.contains("one per transaction with pgbench's -C"),
            "{sql}"
        );
        assert!(
            !sql.contains("request") && !sql.contains("without keep-alive"),
            "{sql}"
        );
        s.targets = vec!["memcached://127.0.0.1:11211".into()];
        let store = note(&s);
        assert!(
            store.contains("one per client, which keeps its connection"),
            "{store}"
        );
        assert!(!store.contains("request"), "{store}");
    }
}
