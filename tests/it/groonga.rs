//! Real Groonga: the tutorial's whole chain (terms from a real select, patterns planned
//! for a 50% hit rate, a ramp with the Groonga probe), and keep-alive against
//! groonga-httpd versus the built-in server (seed 002).

use crate::util::*;

const TEMPLATE: &str = "/d/select?command_version=2&table=Pages&limit=10&match_columns=title,text&output_columns=snippet_html(title),snippet_html(text),categories,_key&query_flags=NONE&sortby=title&drilldown=categories&drilldown_limit=10&drilldown_output_columns=_id,_key,_nsubrecs&drilldown_sortby=_nsubrecs&query={term}";

#[test]
fn tutorial_chain_lands_near_the_planned_hit_rate() {
    if !have("groonga") {
        return;
    }
    let dir = TempDir::new("groonga-chain");
    let db = groonga_db(&dir, 600);
    let g = groonga_http(&db);

    // Terms from a real select, as drnbench-extract-searchterms would take them.
    let select = format!(
        "http://127.0.0.1:{}/d/select?command_version=2&table=Pages&limit=300&output_columns=title",
        g.port
    );
    let terms = ok(&run(&["terms", "--url", &select, "--escape"]));
    assert_eq!(terms.lines().count(), 300, "{terms}");
    let terms_file = dir.write("terms.txt", &terms);

    // 200 unique requests for a 50% hit rate with Groonga's 100-entry cache.
    let out = hakaru()
        .args([
            "patterns",
            "--template",
            TEMPLATE,
            "--cache-hit-rate",
            "0.5",
            "--cache-size",
            "100",
        ])
        .arg(&terms_file)
        .output()
        .unwrap();
    let patterns = ok(&out);
    assert_eq!(patterns.lines().count(), 200);
    assert!(
        stderr(&out).contains("200"),
        "the plan is explained: {}",
        stderr(&out)
    );
    let patterns_file = dir.write("patterns.txt", &patterns);

    let csv = dir.path("result.csv");
    ok(&run(&[
        "ramp",
        "--start-n-clients=0",
        "--end-n-clients=4",
        "--step=2",
        "--duration=1.5",
        "--interval=0",
        "--warmup=1",
        &format!("--request-patterns-file={}", patterns_file.display()),
        "--default-hosts=127.0.0.1",
        &format!("--default-port={}", g.port),
        "--probe=groonga",
        "--expect-cache-hit-rate=0.5",
        "--probe-pid",
        &g.child.id().to_string(),
        &format!("--output-path={}", csv.display()),
    ]));
    let (h, rows) = read_csv(&csv);
    assert_eq!(rows.len(), 3);
    // When a request fails, the JSON beside the CSV says what kind of failure it was.
    let why = || {
        let v = read_json(&csv.with_extension("json"));
        let steps = v["steps"].as_array().cloned().unwrap_or_default();
        steps
            .iter()
            .map(|s| format!("{} {}", s["errors"], s["error_samples"]))
            .collect::<Vec<_>>()
    };
    // A step's hit rate is judged where it means the plan: over enough requests
    // (an idle machine sends ~900 a step; 300 keep the binomial noise under 0.03),
    // after a step that sent as many. Every step's client k draws the same sequence
    // (the run's seed and k), so after a short step its first requests replay ones
    // still among Groonga's last 100 and hit (the likely cause of a 0.77 on one loaded core).
    let requests: Vec<f64> = rows
        .iter()
        .map(|r| col(&h, r, "total_n_requests"))
        .collect();
    let mut judged = 0;
    for (i, r) in rows.iter().enumerate() {
        assert_eq!(
            col(&h, r, "200"),
            100.0,
            "every response is a 200: {r:?}; errors by step: {:?}",
            why()
        );
        if requests[i] < 300.0 || i > 0 && requests[i - 1] < 300.0 {
            continue;
        }
        judged += 1;
        let rate = col(&h, r, "cache_hit_rate");
        assert!(
            (rate - 0.5).abs() < 0.1,
            "measured hit rate {rate} over {} requests is not near the planned 0.5",
            requests[i]
        );
    }
    assert!(judged > 0, "no step sent 300 requests: {requests:?}");
    let v = read_json(&dir.path("result.json"));
    assert_eq!(v["settings"]["planned_cache_hit_rate"], 0.5);
    assert!(v["steps"][0]["server_process"]["cpu_s"].as_f64().unwrap() > 0.0);
}

#[test]
fn keep_alive_with_groonga_httpd_and_without_with_groonga() {
    if !have("groonga") || !have("groonga-httpd") {
        return;
    }
    let dir = TempDir::new("groonga-ka");
    let db = groonga_db(&dir, 10);
    {
        let httpd = groonga_httpd(&db);
        let url = format!("http://127.0.0.1:{}/d/status", httpd.port);
        let ka = dir.path("ka.json");
        ok(&run(&[
            "run",
            "-c",
            "4",
            "-n",
            "2000",
            "-k",
            &url,
            "-o",
            ka.to_str().unwrap(),
        ]));
        let v = read_json(&ka);
        assert_eq!(v["steps"][0]["statuses"]["200"], 2000);
        assert_eq!(v["steps"][0]["connections_opened"], 4);
        let no = dir.path("no.json");
        ok(&run(&[
            "run",
            "-c",
            "4",
            "-n",
            "500",
            "--no-keep-alive",
            &url,
            "-o",
            no.to_str().unwrap(),
        ]));
        assert_eq!(read_json(&no)["steps"][0]["connections_opened"], 500);
    }
    // The built-in server closes every connection: hakaru reconnects and says so.
    let g = groonga_http(&db);
    let json = dir.path("builtin.json");
    let out = ok(&run(&[
        "run",
        "-c",
        "4",
        "-n",
        "500",
        "-k",
        &format!("http://127.0.0.1:{}/d/status", g.port),
        "-o",
        json.to_str().unwrap(),
    ]));
    let v = read_json(&json);
    assert_eq!(v["steps"][0]["statuses"]["200"], 500);
    assert_eq!(v["steps"][0]["connections_opened"], 500);
    assert!(out.contains("keep-alive did not happen"), "{out}");
}
