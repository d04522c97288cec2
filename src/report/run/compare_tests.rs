//! Tests of the comparison of runs (`report::run::compare`): suites beside ramps, the
//! settings named, and what each pair of runs may be said to compare (issue 35).

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
        all.contains(
            "these runs differ in load model (ramp closed, by clients, rate open, at fixed rates)"
        ),
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
        text.contains("At 400 requests/s, the highest rate both were offered: a answered 399.0/s"),
        "{text}"
    );
    assert!(
        !text.contains(" holds ") && !text.contains("peak qps ("),
        "{text}"
    );
}

/// Two --find-max searches probe rates of their own, so their probes share no rate;
/// what compares is their answers (the bug: "no rate in common" and nothing else),
/// under one SLO, and as a ratio only when their brackets do not overlap.
#[test]
fn two_searches_compare_their_answers_not_their_probes() {
    let mut a = stepped(&[
        (8, Some(1000.0), 1000.0, 0.001),
        (8, Some(1500.0), 1400.0, 0.01),
    ]);
    let mut b = stepped(&[
        (8, Some(1200.0), 1200.0, 0.001),
        (8, Some(2000.0), 1900.0, 0.01),
    ]);
    let answer = |slo: &str, held: f64, failed: f64| crate::result::find_max::FindMaxResult {
        slo: vec![slo.to_string()],
        max_sustainable_rate: Some(held),
        lowest_failed_rate: Some(failed),
        ..Default::default()
    };
    let text = |a: &RunResult, b: &RunResult| {
        compare_text_with(
            &[Series::from_run(a, "a"), Series::from_run(b, "b")],
            &[("a", a), ("b", b)],
        )
    };
    a.find_max = Some(answer("p99<50ms", 1000.0, 1500.0));
    b.find_max = Some(answer("p99<50ms", 2000.0, 2200.0));
    let t = text(&a, &b);
    assert!(
        t.contains("Both searched for the highest rate meeting p99<50ms: a held 1000/s (failed at 1500/s), b 2000/s (failed at 2200/s): b holds 2.0× a's rate."),
        "{t}"
    );
    assert!(!t.contains("no rate in common"), "{t}");
    b.find_max = Some(answer("p99<50ms", 1200.0, 2000.0));
    let t = text(&a, &b);
    assert!(
        t.contains("brackets overlap, so neither is shown to hold more"),
        "{t}"
    );
    assert!(!t.contains(" holds 1.2"), "{t}");
    b.find_max = Some(answer("p99<20ms", 2000.0, 2200.0));
    let t = text(&a, &b);
    assert!(
        t.contains("a searched under p99<50ms, b under p99<20ms"),
        "{t}"
    );
    assert!(!t.contains(" holds "), "{t}");
}

/// A ramp of 1, 2, 4, 8 clients against `target`, its throughput `k` times
/// 100, 190, 300, 320: a curve, so its peak compares.
fn ramp_against(label: &str, target: &str, k: f64) -> Series {
    let mut run = stepped(&[
        (1, None, 100.0 * k, 0.01),
        (2, None, 190.0 * k, 0.0105),
        (4, None, 300.0 * k, 0.013),
        (8, None, 320.0 * k, 0.025),
    ]);
    run.targets = vec![target.into()];
    Series::from_run(&run, label)
}

/// `hakaru compare` of two `hakaru pgbench -o` results said "peak qps" and
/// "requests/s" of transactions: two SQL runs compare in tps, two stores in ops/s,
/// and PostgreSQL against Redis in words true of both (answers/s, each side's
/// figure in its own unit); two HTTP runs as before.
#[test]
fn compare_of_sql_runs_speaks_tps_not_http_qps() {
    let pg = |l: &str, k| ramp_against(l, "postgres://127.0.0.1:5432/bench", k);
    let redis = |l: &str, k| ramp_against(l, "redis://127.0.0.1:6379", k);
    let http = |l: &str, k| ramp_against(l, "http://127.0.0.1:8080/", k);
    let all = |a: Series, b: Series| {
        let pair = [a, b];
        let md = compare_markdown(&pair);
        let html = compare_html(&pair, &[], &ReportOptions::default());
        (compare_text(&pair), md, html)
    };
    let (text, md, html) = all(pg("a", 1.0), pg("b", 1.5));
    for t in [&text, &md, &html] {
        assert!(t.contains("peak tps"), "{t}");
        assert!(!t.contains("qps") && !t.contains("requests"), "{t}");
    }
    assert!(text.contains("(480.0 vs 320.0 tps)"), "{text}");
    assert!(
        text.contains("share of transactions that ended in an error"),
        "{text}"
    );
    let (text, md, html) = all(redis("a", 1.0), redis("b", 1.5));
    for t in [&text, &md, &html] {
        assert!(t.contains("peak ops/s"), "{t}");
        assert!(!t.contains("qps") && !t.contains("requests"), "{t}");
    }
    let (text, md, html) = all(pg("pg", 1.0), redis("redis", 1.5));
    for t in [&text, &md, &html] {
        assert!(t.contains("peak answers/s"), "{t}");
        assert!(!t.contains("qps") && !t.contains("requests"), "{t}");
    }
    assert!(text.contains("(480.0 ops/s vs 320.0 tps)"), "{text}");
    let (text, ..) = all(http("a", 1.0), http("b", 1.5));
    assert!(
        text.contains("peak qps") && text.contains("(480.0 vs 320.0 qps)"),
        "{text}"
    );
}

/// Two SQL suites compared phase by phase said "req/s" and "of its requests": a
/// SQL suite's phases compare in tps and fail as transactions, a store's in ops/s
/// and commands; between kinds, answers/s.
#[test]
fn suites_of_sql_compare_phase_by_phase_in_tps_not_req_s() {
    let suite = |target: &str, qps: f64, failed: u64| {
        let mut r = suite_run("run", qps);
        r.targets = vec![target.into()];
        r.steps[0]
            .errors
            .insert(crate::stats::ErrorKind::SqlDeadlock, failed);
        r
    };
    let pg = "postgres://127.0.0.1:5432/bench";
    let (a, b) = (suite(pg, 1000.0, 1), suite(pg, 1300.0, 2));
    let said = |a: &RunResult, b: &RunResult| {
        let series = [Series::from_run(a, "a"), Series::from_run(b, "b")];
        let runs = [("a", a), ("b", b)];
        format!(
            "{}\n{}\n{}",
            compare_text_with(&series, &runs),
            compare_markdown_with(&series, &runs),
            compare_html(&series, &runs, &ReportOptions::default())
        )
    };
    let t = said(&a, &b);
    assert!(
        t.contains("b answered run 1.30× a's tps at 1.00× its p99."),
        "{t}"
    );
    assert!(t.contains("a failed 1.00% of its transactions"), "{t}");
    assert!(t.contains("<th>tps</th>") && t.contains("| tps |"), "{t}");
    assert!(!t.contains("req/s") && !t.contains("requests"), "{t}");
    let redis = "redis://127.0.0.1:6379";
    let (c, d) = (suite(redis, 1000.0, 0), suite(redis, 1300.0, 0));
    let t = said(&c, &d);
    assert!(t.contains("b answered run 1.30× a's ops/s"), "{t}");
    assert!(!t.contains("req/s"), "{t}");
    let t = said(&a, &d);
    assert!(t.contains("b answered run 1.30× a's answers/s"), "{t}");
    assert!(!t.contains("req/s"), "{t}");
}
