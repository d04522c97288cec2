//! The result readers end to end on committed fixtures: hakaru's JSON and CSV,
//! drnbench's CSV with several status columns, a run in memory read as its file is,
//! the saturation analysis on the tutorial's numbers, and a clear error naming the
//! file for each kind of bad input.

use hakaru::analysis::{self, Warning};
use hakaru::report::chart;
use hakaru::report::run::html::html_report;
use hakaru::report::ReportOptions;
use hakaru::result::read::read_result;
use hakaru::result::series::SourceFormat;

use crate::report::fixture;

#[test]
fn tutorial_groonga_saturates_at_six_clients() {
    let s = read_result(&fixture("groonga-result.csv")).unwrap();
    assert_eq!(s.format, SourceFormat::DrnbenchCsv);
    assert_eq!(s.label, "groonga-result");
    assert_eq!(s.points.len(), 11);
    let sat = analysis::analyse(&s);
    let peak = sat.peak.unwrap();
    assert_eq!(peak.n_clients, 6);
    assert!((peak.qps - 151.333).abs() < 0.01);
    // 95% of 151.3 is 143.8: 4 clients (118.6) fall short, 6 clients are the peak.
    assert_eq!(sat.plateau.unwrap().n_clients, 6);
    // Latency is 19.8 ms at 1 client and first passes 39.5 ms at 6 (the tutorial's
    // "rises after 4 clients").
    assert_eq!(sat.knee.unwrap().n_clients, 6);
    let fit = sat.usl.unwrap();
    assert!(fit.r_squared > 0.9, "{fit:?}");
    assert!((fit.max_qps.unwrap() - 151.0).abs() < 10.0, "{fit:?}");
    assert!(sat.warnings.is_empty(), "{:?}", sat.warnings);
}

#[test]
fn drnbench_csv_with_several_status_columns_and_timeouts() {
    let s = read_result(&fixture("drnbench-multi-status.csv")).unwrap();
    assert_eq!(s.format, SourceFormat::DrnbenchCsv);
    assert_eq!(s.status_codes(), vec![0, 200, 500, 503]);
    let last = &s.points[4];
    assert_eq!(last.n_clients, 8);
    assert_eq!(last.statuses[&0], 8.0);
    assert_eq!(last.statuses[&200], 88.0);
    assert_eq!(last.statuses[&500], 2.0);
    assert_eq!(last.statuses[&503], 2.0);
    assert!((last.error_share - 12.0).abs() < 1e-9);
    // Empty cells are "not seen", not zero.
    assert!(!s.points[0].statuses.contains_key(&0));
    assert_eq!(s.points[0].error_share, 0.0);
    assert_eq!(s.points[0].p50_s, None);
}

#[test]
fn hakaru_csv_reads_percentiles_errors_and_probes() {
    let s = read_result(&fixture("hakaru-result.csv")).unwrap();
    assert_eq!(s.format, SourceFormat::HakaruCsv);
    let p = &s.points[4];
    assert_eq!(p.n_clients, 16);
    assert_eq!(p.p50_s, Some(0.0122));
    assert_eq!(p.p99_s, Some(0.07));
    assert_eq!(p.client_cpu_share, Some(0.185));
    assert!((p.errors["timeout"] - 50.0 * 100.0 / 11200.0).abs() < 1e-9);
    assert!(p.errors.contains_key("reset"));
    assert_eq!(s.probe_names(), vec!["cache_hit_rate", "server_cpu_share"]);
    assert_eq!(p.probes["server_cpu_share"], 1.0);
}

#[test]
fn hakaru_json_reads_settings_machine_probes_and_client_limit() {
    let s = read_result(&fixture("hakaru-result.json")).unwrap();
    assert_eq!(s.format, SourceFormat::HakaruJson);
    assert_eq!(s.machine.as_ref().unwrap().cpus, 2);
    assert_eq!(s.settings.as_ref().unwrap().duration_s, Some(10.0));
    assert_eq!(s.points.len(), 6);
    assert_eq!(
        s.points[5].statuses[&200],
        9650.0 * 10.0 * 100.0 / (96500.0 + 30.0)
    );
    assert!(s.points[5].statuses[&0] > 0.0);
    assert_eq!(
        s.probe_names(),
        vec![
            "cache_hit_rate",
            "groonga Δcache_hits",
            "groonga Δn_queries",
            "server_cpu_cores",
            "server_rss_max_bytes"
        ]
    );
    let sat = analysis::analyse(&s);
    assert!(sat
        .warnings
        .iter()
        .any(|w| matches!(w, Warning::ClientBottleneck { steps } if steps.len() == 2)));
    let html = html_report(&s, &ReportOptions::default());
    assert!(html.contains("may be the client&#39;s limit, not the server&#39;s"));
    assert!(html.contains("cache_hit_rate"));
    assert!(html.contains("bench0"));
}

#[test]
fn bad_inputs_name_the_file_and_the_fault() {
    let up_to = format!("up to {}", hakaru::result::SCHEMA_VERSION);
    let cases: [(&str, &[&str]); 7] = [
        (
            "bad-missing-columns.csv",
            &["missing column(s) queries_per_second, min_elapsed_time, max_elapsed_time"],
        ),
        ("bad-empty.csv", &["holds no steps"]),
        ("bad-empty.json", &["holds no steps"]),
        (
            "bad-future-schema.json",
            &["newer hakaru (schema 99", &up_to],
        ),
        (
            "bad-milliseconds.csv",
            &["mismatched units", "milliseconds", "line 2"],
        ),
        (
            "bad-not-a-number.csv",
            &["line 3", "queries_per_second", "\"fast\""],
        ),
        ("does-not-exist.csv", &["cannot read"]),
    ];
    for (name, needles) in cases {
        let e = read_result(&fixture(name)).unwrap_err().to_string();
        assert!(e.contains(name), "{name}: {e}");
        for n in needles {
            assert!(e.contains(n), "{name}: expected {n:?} in {e}");
        }
    }
}

#[test]
fn series_from_a_run_in_memory_matches_the_file() {
    let text = std::fs::read_to_string(fixture("hakaru-result.json")).unwrap();
    let run: hakaru::result::RunResult = serde_json::from_str(&text).unwrap();
    let mem = hakaru::result::series::Series::from_run(&run, "ramp");
    let file = read_result(&fixture("hakaru-result.json")).unwrap();
    assert_eq!(mem.label, "ramp");
    assert_eq!(mem.points.len(), file.points.len());
    for (a, b) in mem.points.iter().zip(&file.points) {
        assert_eq!(
            (a.n_clients, a.qps, a.mean_s),
            (b.n_clients, b.qps, b.mean_s)
        );
    }
    let summary = chart::terminal_summary(&mem, 80);
    assert!(
        summary.contains("Throughput peaks at 9650 qps with 10 clients."),
        "{summary}"
    );
    assert!(
        summary.contains("warning: hakaru itself used over 90%"),
        "{summary}"
    );
}
