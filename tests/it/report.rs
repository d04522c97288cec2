//! Reports end to end on committed fixtures: exact snapshots of the Markdown and
//! compare text, the HTML page's structure and charts, `report` and `compare` writing
//! their files, rounds, thresholds and a scenario's phases, and a real pgbench
//! result's pages. The readers are `report_read`'s, the output paths
//! `report_output`'s.

use std::path::{Path, PathBuf};

use hakaru::report::chart::{self, terminal_chart, ChartOptions};
use hakaru::report::dispatch::{run_compare, run_report};
use hakaru::report::output::{MarkdownTo, OutputPlan};
use hakaru::report::run::compare::{compare_html, compare_markdown, compare_rows, compare_text};
use hakaru::report::run::html::html_report;
use hakaru::report::run::markdown::markdown_report;
use hakaru::report::ReportOptions;
use hakaru::result::read::{read_result, read_results};

pub(crate) fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

fn tutorial_runs() -> Vec<hakaru::result::series::Series> {
    let paths: Vec<PathBuf> = [
        "groonga-result.csv",
        "synthetic-droonga-1node.csv",
        "synthetic-droonga-2nodes.csv",
        "synthetic-droonga-3nodes.csv",
    ]
    .iter()
    .map(|n| fixture(n))
    .collect();
    let labels: Vec<String> = [
        "groonga",
        "droonga-1node",
        "droonga-2nodes",
        "droonga-3nodes",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    read_results(&paths, Some(&labels)).unwrap()
}

pub(crate) fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("hakaru-report-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn markdown_snapshot() {
    let s = read_result(&fixture("groonga-result.csv")).unwrap();
    assert_eq!(markdown_report(&s), EXPECTED_MARKDOWN);
}

#[test]
fn compare_text_snapshot() {
    assert_eq!(compare_text(&tutorial_runs()), EXPECTED_COMPARE);
}

#[test]
fn compare_rows_hold_ratios_and_sentences() {
    let runs = tutorial_runs();
    let rows = compare_rows(&runs, &[]);
    assert_eq!(rows[0].peak_clients, Some(6));
    assert_eq!(rows[3].label, "droonga-3nodes");
    let md = compare_markdown(&runs);
    assert!(md.contains("| run | peak qps | at clients | plateau |"));
    assert!(md.contains("droonga-3nodes holds 2.3× groonga's peak qps"));
    let html = compare_html(&runs, &[], &ReportOptions::default());
    // Throughput, latency, latency against throughput.
    assert_eq!(html.matches("<svg").count(), 3);
    assert!(html.contains("droonga-3nodes holds 2.3× groonga&#39;s peak qps"));
    assert!(html.contains("<th>latency at peak</th>"));
}

#[test]
fn html_report_is_self_contained_with_two_charts_and_tables() {
    let s = read_result(&fixture("groonga-result.csv")).unwrap();
    let html = html_report(&s, &ReportOptions::default());
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert!(html.matches("<svg").count() >= 2);
    assert_eq!(html.matches("<svg").count(), html.matches("</svg>").count());
    for h in [
        "<th>clients</th>",
        "<th>requests</th>",
        "<th>qps</th>",
        "<th>mean</th>",
        "<th>max</th>",
    ] {
        assert!(html.contains(h), "{h}");
    }
    assert!(html.contains("Throughput peaks at 151.3 qps with 6 clients."));
    assert!(html.contains("first exceeds twice that at 6 clients"));
    assert!(
        html.contains("mean at 1 client"),
        "1-client reference line in the legend"
    );
    // Nothing to fetch: no scripts, no external stylesheets, images or fonts.
    assert!(!html.contains("<script"));
    assert!(!html.contains("src=\"http"));
    assert!(!html.contains("href=\"http"));
    assert!(!html.contains("@import"));
    // The error chart appears only when something failed.
    assert!(!html.contains("Failed requests"));
    let multi = html_report(
        &read_result(&fixture("drnbench-multi-status.csv")).unwrap(),
        &ReportOptions::default(),
    );
    assert!(multi.contains("Failed requests"));
    assert!(multi.contains("<th>0 (no response)</th>"));
    assert!(multi.contains("<th>503</th>"));
}

#[test]
fn charts_mark_the_peak_plateau_and_knee() {
    let s = read_result(&fixture("groonga-result.csv")).unwrap();
    let t = chart::throughput_chart(&[&s]);
    let marks: Vec<(f64, &str)> = t.marks.iter().map(|m| (m.x, m.label.as_str())).collect();
    assert_eq!(marks, [(6.0, "knee"), (6.0, "plateau"), (6.0, "peak")]);
    let svg = chart::render_line_chart(&t);
    // Marks on one step share one label; each has its hover text.
    assert!(svg.contains(">knee · plateau · peak</text>"), "{svg}");
    assert!(svg.contains("<title>knee: mean latency first above 2× the lowest load"));
    // An overlay of several runs carries no marks (they would tangle).
    let runs = tutorial_runs();
    let refs: Vec<&hakaru::result::series::Series> = runs.iter().collect();
    assert!(chart::throughput_chart(&refs).marks.is_empty());
    // Latency against throughput: qps on x, one point per step with its hover text.
    let lt = chart::latency_throughput_chart(&[&s], ChartOptions::default());
    assert_eq!(lt.lines[0].points.len(), s.points.len());
    assert!((lt.lines[0].points[3].0 - 151.3).abs() < 0.05);
    assert!(chart::render_line_chart(&lt)
        .contains("<title>groonga-result: 6 clients, 151.3 qps, mean 42.3 ms</title>"));
    // A CSV holds no histograms: no percentile chart.
    assert!(chart::percentile_chart(&s, ChartOptions::default()).is_none());
}

#[test]
fn json_report_draws_percentiles_and_names_the_run() {
    let t = crate::util::target();
    let dir = crate::util::TempDir::new("percentile-report");
    let out = dir.path("r.csv");
    crate::util::ok(&crate::util::run(&[
        "ramp",
        "--start-n-clients=1",
        "--end-n-clients=3",
        "--step=2",
        "--duration=0.3",
        "--interval=0",
        "-q",
        "-o",
        out.to_str().unwrap(),
        &format!("http://{}/", t.addr),
    ]));
    let s = read_result(&dir.path("r.json")).unwrap();
    assert_eq!(s.name(), format!("ramp of {}/, 1–3 clients", t.addr));
    let c = chart::percentile_chart(&s, ChartOptions::default()).unwrap();
    assert_eq!(c.lines.len(), s.points.len());
    // x is the count of nines, from 0% on; the latency never falls with the percentile.
    for l in &c.lines {
        assert_eq!(l.points[0].0, 0.0);
        assert!(
            l.points.windows(2).all(|w| w[1].1 >= w[0].1),
            "{:?}",
            l.points
        );
    }
    let svg = chart::render_line_chart(&c);
    for t in ["0%", "90%", "99%"] {
        assert!(svg.contains(&format!(">{t}</text>")), "{t}");
    }
    let html = html_report(&s, &ReportOptions::default());
    assert!(html.contains(&format!("<h1>{}</h1>", chart::esc(&s.name()))));
    assert!(html.contains("Latency by percentile"));
    assert!(html.contains("<th>connections</th>") && html.contains("<th>received</th>"));
    assert!(html.contains("<h2>Hosts</h2>"));
}

#[test]
fn log_latency_draws_max_and_says_log_scale() {
    let s = read_result(&fixture("groonga-result.csv")).unwrap();
    let lin = chart::latency_chart(&[&s], ChartOptions::default());
    assert!(lin.lines.iter().all(|l| l.name != "max latency"));
    // The grey reference line's note and the max left out.
    assert_eq!(lin.notes.len(), 2);
    let log = chart::latency_chart(&[&s], ChartOptions { log_latency: true });
    assert!(log.lines.iter().any(|l| l.name == "max latency"));
    assert!(log.y_title.contains("log scale"));
    let svg = chart::render_line_chart(&log);
    assert!(svg.starts_with("<svg") && svg.ends_with("</svg>") && svg.contains("viewBox"));
}

#[test]
fn terminal_chart_is_ascii_and_marks_peak_and_knee() {
    let s = read_result(&fixture("groonga-result.csv")).unwrap();
    let t = terminal_chart(&s, 100);
    // Plain text: ASCII but for µ, spelled as everywhere else.
    assert!(t.chars().all(|c| c.is_ascii() || c == 'µ'), "{t}");
    assert_eq!(t.lines().count(), 12);
    assert!(t.lines().all(|l| l.chars().count() <= 100), "{t}");
    let six = t
        .lines()
        .find(|l| l.trim_start().starts_with("6 "))
        .unwrap();
    assert!(six.contains("peak") && six.contains("knee"), "{six}");
    assert!(six.contains("151.3") && six.contains("42.3 ms"), "{six}");
}

#[test]
fn run_report_writes_html_svg_and_markdown() {
    let dir = temp_dir("report");
    let src = dir.join("groonga.csv");
    std::fs::copy(fixture("groonga-result.csv"), &src).unwrap();
    let plan = OutputPlan {
        svg: true,
        markdown: Some(MarkdownTo::File(dir.join("groonga.md"))),
        ..OutputPlan::default()
    };
    let out = run_report(&src, &plan).unwrap();
    let names: Vec<String> = out
        .files
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        names,
        [
            "groonga.html",
            "groonga-throughput.svg",
            "groonga-latency.svg",
            "groonga-latency-throughput.svg",
            "groonga.md"
        ]
    );
    for p in &out.files {
        assert!(std::fs::metadata(p).unwrap().len() > 100, "{}", p.display());
    }
    assert!(out.stdout.contains("Throughput peaks at 151.3 qps"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn run_compare_checks_label_count() {
    let e = run_compare(
        &[
            fixture("groonga-result.csv"),
            fixture("synthetic-droonga-1node.csv"),
        ],
        Some(&["only-one".to_string()]),
        &OutputPlan::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("1 label(s) for 2 file(s)"), "{e}");
}

#[test]
fn same_stems_get_distinct_labels() {
    let runs = read_results(
        &[fixture("hakaru-result.json"), fixture("hakaru-result.csv")],
        None,
    )
    .unwrap();
    assert_eq!(runs[0].label, "hakaru-result.json");
    assert_eq!(runs[1].label, "hakaru-result.csv");
}

#[test]
fn png_charts_when_a_font_is_present() {
    let s = read_result(&fixture("groonga-result.csv")).unwrap();
    match hakaru::report::run::html::chart_pngs(&[&s], &ReportOptions::default()) {
        Ok(pngs) => {
            // Throughput, latency, latency against throughput (a CSV has no
            // histograms, so no percentile chart).
            assert_eq!(pngs.len(), 3);
            for (_, bytes) in pngs {
                assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
            }
        }
        // A machine without any TrueType font: the error must say what to do. CI
        // installs fonts-dejavu-core, so there the PNGs must be drawn.
        Err(e) => {
            assert!(
                std::env::var_os("CI").is_none(),
                "CI has fonts-dejavu-core: {e}"
            );
            assert!(e.to_string().contains("--svg"), "{e}");
        }
    }
}

const EXPECTED_MARKDOWN: &str = r#"### groonga-result

Throughput peaks at 151.3 qps with 6 clients.
It levels off there: no smaller load reaches 95% of the peak.
Mean latency is 19.8 ms at 1 client and first exceeds twice that at 6 clients (42.3 ms): from there on requests queue.
The Universal Scalability Law fits with R² = 0.97 (contention σ = 0.105, coherency κ = 0.0075); it predicts at most 153.0 qps, at about 11 clients.

| clients | requests | qps | mean | max | failed |
|--:|--:|--:|--:|--:|--:|
| 1 | 996 | 33.2 | 19.8 ms | 238 ms | 0% |
| 2 | 1973 | 65.8 | 20.0 ms | 272 ms | 0% |
| 4 | 3559 | 118.6 | 23.4 ms | 399 ms | 0% |
| **6** | 4540 | 151.3 | 42.3 ms | 502 ms | 0% |
| 8 | 4247 | 141.6 | 45.8 ms | 577 ms | 0% |
| 10 | 4466 | 148.9 | 69.5 ms | 605 ms | 0% |
| 12 | 4500 | 150.0 | 69.0 ms | 613 ms | 0% |
| 14 | 4183 | 139.4 | 103 ms | 608 ms | 0% |
| 16 | 4519 | 150.6 | 94.7 ms | 653 ms | 0% |
| 18 | 4362 | 145.4 | 126 ms | 641 ms | 0% |
| 20 | 4228 | 140.9 | 130 ms | 663 ms | 0% |
"#;

const EXPECTED_COMPARE: &str = r#"run                  peak qps  at clients  plateau  low-load latency  latency at peak  p99 at peak  failed
groonga                 151.3           6        6           19.8 ms          42.3 ms            –      0%
droonga-1node   141.7 (0.94×)          18       12   25.7 ms (1.30×)   86.4 ms (2.0×)            –      0%
droonga-2nodes  252.7 (1.67×)          20       16   24.2 ms (1.22×)  53.8 ms (1.27×)            –      0%
droonga-3nodes   343.1 (2.3×)          20       20   23.2 ms (1.17×)  39.6 ms (0.94×)            –      0%
(ratios in parentheses are to groonga; "failed" is the share of requests without a 2xx/3xx response)

droonga-1node reaches 94% of groonga's peak qps (141.7 vs 151.3 qps); its 1-client latency is 1.30× groonga's.
droonga-1node levels off at 12 clients (groonga: 6).
droonga-2nodes holds 1.67× groonga's peak qps (252.7 vs 151.3 qps); its 1-client latency is 1.22× groonga's.
droonga-2nodes levels off at 16 clients (groonga: 6).
droonga-3nodes holds 2.3× groonga's peak qps (343.1 vs 151.3 qps); its 1-client latency is 1.17× groonga's.
droonga-3nodes levels off at 20 clients (groonga: 6).
Highest peak: droonga-3nodes, 343.1 qps at 20 clients.
warning: droonga-3nodes: throughput was still at its highest at the last step (20 clients): the data stop before the peak; raise --end-n-clients
warning: droonga-3nodes: mean latency never reached 2× its lowest-load value up to 20 clients: the data stop before the knee; raise --end-n-clients
"#;

#[test]
fn html_report_shows_how_exact_a_paced_run_was() {
    let t = crate::util::target();
    let dir = crate::util::TempDir::new("paced-report");
    let out = dir.path("r.json");
    crate::util::ok(&crate::util::run(&[
        "run",
        "--rate",
        "200",
        "-c",
        "4",
        "-d",
        "0.5s",
        "-o",
        out.to_str().unwrap(),
        &format!("http://{}/", t.addr),
    ]));
    let html = html_report(&read_result(&out).unwrap(), &ReportOptions::default());
    assert!(html.contains("<th>pacer lag p99</th>"), "{html}");
    // A closed-model run without --wait paces nothing: no such column.
    let s = read_result(&fixture("groonga-result.csv")).unwrap();
    assert!(!html_report(&s, &ReportOptions::default()).contains("pacer lag"));
}

/// Bug: the report of an open-model (`--rate`) ramp drew every step at "N clients",
/// called the knee "N clients" and advised raising --end-n-clients. And a second one:
/// reading an overloaded open-model step failed as "latencies must be in seconds",
/// a Little's-law check that holds only in the closed model.
#[test]
fn regression_rate_ramp_report_reads_rates_not_clients() {
    let t = crate::util::target();
    let dir = crate::util::TempDir::new("rate-report");
    let csv = dir.path("r.csv");
    // Two connections to a 5 ms endpoint answer at most ~400 requests/s: 2,000/s is far
    // beyond them. Steps of 2 s (40 requests at 20/s), each done 5 ms after it is due,
    // so a busy test machine does not cut enough of them off at the step's end to read
    // as falling behind at 20/s (95% held).
    crate::util::ok(&crate::util::run(&[
        "ramp",
        "--rate=20,2000",
        "--end-n-clients=2",
        "--duration=2",
        "--interval=0",
        &format!("http://{}/delay/5", t.addr),
        &format!("--output-path={}", csv.display()),
    ]));
    // From the JSON and from the CSV alike.
    for path in [dir.path("r.json"), csv] {
        let s = read_result(&path).unwrap();
        assert!(s.is_open_model());
        let html = html_report(&s, &ReportOptions::default());
        assert!(html.contains("Which rates it held"), "{html}");
        assert!(html.contains("<div class=\"v\">20.0 req/s</div>"), "{html}");
        assert!(html.contains("<div class=\"v\">2000 req/s</div>"), "{html}");
        assert!(html
            .contains("The server kept up to 20.0 requests/s; at 2000 requests/s it fell behind."));
        assert!(html.contains("offered rate (requests per second)"));
        for clients_talk in [
            "raise --end-n-clients",
            "Where it saturates",
            "Latency knee",
        ] {
            assert!(!html.contains(clients_talk), "{clients_talk}");
        }
    }
}

#[test]
fn repeated_runs_carry_a_spread_and_noise_is_called_noise() {
    let base = read_result(&fixture("groonga-result.csv")).unwrap();
    let rep = |label: &str, k: f64| {
        let mut s = base.clone();
        s.label = label.into();
        for p in &mut s.points {
            p.qps *= k;
        }
        s
    };
    let runs = vec![
        rep("a", 1.0),
        rep("a", 1.02),
        rep("a", 0.98),
        rep("b", 1.2),
        rep("b", 1.22),
        rep("b", 1.18),
        rep("c", 0.9),
        rep("c", 1.1),
        rep("c", 1.02),
    ];
    let rows = compare_rows(&runs, &[]);
    assert_eq!(rows.len(), 3);
    assert_eq!(rows[1].runs, 3);
    let text = compare_text(&runs);
    assert!(text.contains("b holds 1.20 ± 0.03× a's peak qps"), "{text}");
    assert!(
        text.contains("c's peak qps is within the noise of a's: 1.01 ± 0.10×"),
        "{text}"
    );
    assert!(text.contains("(≈ 1.01 ± 0.10×)"), "{text}");
}

#[test]
fn a_repeated_run_reads_warm_rounds_apart_from_the_cold_one() {
    let one = read_result(&fixture("groonga-result.csv")).unwrap();
    let mut s = one.clone();
    s.points.clear();
    for (round, k) in [(1, 0.5), (2, 1.0), (3, 1.02)] {
        s.points.extend(one.points.iter().cloned().map(|mut p| {
            p.round = round;
            p.qps *= k;
            p
        }));
    }
    let shown = hakaru::analysis::repeat::display_series(std::slice::from_ref(&s));
    let labels: Vec<&str> = shown.iter().map(|s| s.label.as_str()).collect();
    assert_eq!(labels, ["groonga-result warm", "groonga-result cold"]);
    assert!((shown[0].points[3].qps - 151.3 * 1.01).abs() < 0.1);
    let html = html_report(&s, &ReportOptions::default());
    assert!(html.contains("<h2>Rounds</h2>"), "{html}");
    assert!(html.contains("mean of the 2 warm rounds"), "{html}");
    assert!(html.contains("the cold round reached 50% of it"), "{html}");
    let md = hakaru::report::run::markdown::markdown_report(&s);
    assert!(
        md.contains("Mean of the warm rounds 2–3 (round 1 ran cold)."),
        "{md}"
    );
    let t = chart::terminal_summary(&s, 100);
    assert!(
        t.starts_with("Mean of the warm rounds 2–3 (round 1, cold, peaked at 75.7 qps):"),
        "{t}"
    );
}

/// `report` shows the thresholds near the top of the page and the Markdown: those the
/// result keeps, and those `report --threshold` judges on a result that had none
/// (without changing the file).
#[test]
fn report_shows_the_thresholds_kept_and_judged() {
    use crate::util::{ok, read_json, run, stdout, target, TempDir};
    let t = target();
    let url = format!("http://{}/", t.addr);
    let dir = TempDir::new("report-thr");
    let plain = dir.path("plain.json");
    ok(&run(&[
        "run",
        "-c",
        "2",
        "-n",
        "200",
        "-q",
        "-o",
        plain.to_str().unwrap(),
        &url,
    ]));
    assert!(read_json(&plain).get("thresholds").is_none());
    let before = std::fs::read(&plain).unwrap();
    let (html, md) = (dir.path("plain.html"), dir.path("plain.md"));
    let o = run(&[
        "report",
        plain.to_str().unwrap(),
        "--markdown",
        md.to_str().unwrap(),
        "--threshold",
        "p99<1us",
        "--threshold",
        "errors<=0",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    assert_eq!(
        std::fs::read(&plain).unwrap(),
        before,
        "the result is not changed"
    );
    let page = std::fs::read_to_string(&html).unwrap();
    let at = page
        .find("<h2>Thresholds: FAILED (1 of 2 held)</h2>")
        .unwrap_or_else(|| panic!("{page}"));
    // Near the top: before the summary and the charts. A single step reads by its
    // step; one too short to cover a second of its timeline (200 requests on loopback
    // can take 30 ms) still reads by the saturation summary.
    let summary = page
        .find("<h2>The step</h2>")
        .or_else(|| page.find("<h2>Where it saturates</h2>"))
        .unwrap_or_else(|| panic!("{page}"));
    assert!(at < summary);
    assert!(page.contains("<td class=\"fail\""), "{page}");
    assert!(page.contains("<tr class=\"overall failed\">"), "{page}");
    assert!(page.contains("<li>p99&lt;1us: "), "{page}");
    let md = std::fs::read_to_string(&md).unwrap();
    assert!(md.contains("#### Thresholds: FAILED (1 of 2 held)\n\n|  | `p99<1us` | `errors<=0` |\n|:--|--:|--:|\n| **overall** | **"), "{md}");
    assert!(md.contains(" FAIL** | 0 pass |\n"), "{md}");

    // Kept in the result by the run: shown without --threshold, and the exit code is
    // the report's (0), not a new verdict.
    let kept = dir.path("kept.json");
    ok(&run(&[
        "run",
        "-c",
        "2",
        "-n",
        "200",
        "-q",
        "--threshold",
        "p99<5s",
        "-o",
        kept.to_str().unwrap(),
        &url,
    ]));
    let o = run(&["report", kept.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert!(
        stdout(&o).contains("Thresholds: passed (1 of 1 held)"),
        "{}",
        stdout(&o)
    );
    let page = std::fs::read_to_string(dir.path("kept.html")).unwrap();
    assert!(page.contains("<section class=\"thresholds passed\" id=\"thresholds\"><h2>Thresholds: passed (1 of 1 held)</h2>"), "{page}");
    assert!(!page.contains("class=\"fail\""), "{page}");
    // Markdown on stdout carries the table itself, once.
    let o = run(&["report", kept.to_str().unwrap(), "--markdown"]);
    assert_eq!(
        stdout(&o).matches("Thresholds: passed").count(),
        1,
        "{}",
        stdout(&o)
    );
}

/// A scenario's result reads by its phases on the terminal and in Markdown; the
/// warnings meant for a client ramp's curve (too few steps, no knee…) do not apply to
/// phases of different workloads, and one that does (the run did not finish) stays.
#[test]
fn suite_report_prints_its_phases_without_ramp_warnings() {
    let dir = temp_dir("suite-report");
    let plan = |md| OutputPlan {
        html: Some(dir.join("r.html")),
        svg: false,
        png: false,
        markdown: md,
        options: ReportOptions::default(),
    };
    let out = run_report(&fixture("suite-result.json"), &plan(None)).unwrap();
    assert_eq!(
        out.stdout,
        "phase               start    length      req/s    failed        p50        p99
warm-up              0.0s      1.0s       5648        0%     257 µs    3.52 ms
mix                  1.0s      2.0s      400.2        0%     428 µs    5.17 ms
"
    );
    let md = run_report(
        &fixture("suite-result.json"),
        &plan(Some(MarkdownTo::Stdout)),
    )
    .unwrap();
    assert!(md.stdout.contains("```text\nphase "), "{}", md.stdout);
    assert!(!md.stdout.contains("saturation") && !md.stdout.contains("Warning"));
    // Interrupted: that warning applies to any run.
    let text = std::fs::read_to_string(fixture("suite-result.json")).unwrap();
    let cut = dir.join("cut.json");
    std::fs::write(
        &cut,
        text.replacen("\"state\": \"complete\"", "\"state\": \"interrupted\"", 1),
    )
    .unwrap();
    let out = run_report(&cut, &plan(None)).unwrap();
    let warnings: Vec<&str> = out
        .stdout
        .lines()
        .filter(|l| l.starts_with("warning:"))
        .collect();
    assert_eq!(warnings.len(), 1, "{}", out.stdout);
    assert!(warnings[0].contains("interrupted"), "{}", out.stdout);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A real `hakaru pgbench -o` against PostgreSQL, reported back from its JSON and
/// its CSV: the page of a calm run had an "Over time" heading over nothing, and the
/// CSV's page spoke HTTP (250, qps) for want of targets. Both say tps; the CSV's
/// statuses are `ok` (and `error`), never 250.
#[test]
fn a_pgbench_result_s_pages_from_json_and_csv_speak_tps_with_no_empty_heading() {
    let Some(pg) = crate::pg::Postgres::start(&[]) else {
        return;
    };
    let port = pg.port.to_string();
    let pgbench = |args: &[&str]| {
        let out = crate::util::hakaru()
            .args([
                "pgbench",
                "-h",
                "127.0.0.1",
                "-p",
                &port,
                "-U",
                crate::pg::USER,
            ])
            .args(args)
            .arg("postgres")
            .env("PGPASSWORD", crate::pg::PASSWORD)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(out.status.success(), "{err}\n{}", pg.log());
    };
    pgbench(&["-i", "-s", "1"]);
    let dir = temp_dir("pgbench-page");
    let csv = dir.join("r.csv");
    pgbench(&["-S", "-c", "2", "-T", "2", "-o", csv.to_str().unwrap()]);
    // The CSV alone, without the JSON beside it that `report` would read too.
    let alone = dir.join("alone");
    std::fs::create_dir_all(&alone).unwrap();
    std::fs::copy(&csv, alone.join("r.csv")).unwrap();
    for src in [dir.join("r.json"), alone.join("r.csv")] {
        let out = crate::util::hakaru()
            .arg("report")
            .arg(&src)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{err}");
        let page = std::fs::read_to_string(src.with_extension("html")).unwrap();
        assert!(page.contains("tps") && !page.contains("qps"), "{page}");
        assert!(page.contains("<th>transactions</th>"), "{}", src.display());
        // A heading is followed by something to read, never by the next section.
        for (i, _) in page.match_indices("<h2>Over time</h2>") {
            assert!(page[i..].starts_with("<h2>Over time</h2><p>"), "{page}");
        }
        // The settings (the JSON's) say the connections as pgbench does.
        if src.extension().is_some_and(|e| e == "json") {
            assert!(
                page.contains("<dt>connection</dt><dd>one per client</dd>"),
                "{page}"
            );
            assert!(!page.contains("<dt>keep-alive</dt>"), "{page}");
        }
        // Every transaction ended ok: said so, by name (a status 250 otherwise).
        assert!(page.contains("every statement answered (ok)"), "{page}");
        let statuses = page
            .split("<h2>Outcomes and errors per step</h2>")
            .nth(1)
            .unwrap();
        let statuses = &statuses[..statuses.find("</section>").unwrap()];
        assert!(!statuses.contains("250"), "{statuses}");
    }
    // Two pgbench results compared: in tps, never HTTP's qps or requests/s.
    std::fs::copy(dir.join("r.json"), dir.join("again.json")).unwrap();
    let out = crate::util::hakaru()
        .arg("compare")
        .args([dir.join("r.json"), dir.join("again.json")])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("tps") && !text.contains("qps"), "{text}");
    assert!(!text.contains("requests"), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}
