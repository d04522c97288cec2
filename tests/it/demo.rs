//! `hakaru demo`: the README's first command, end to end (shorter steps here).

use crate::util::*;

#[test]
fn demo_runs_the_tutorial_against_the_search_target() {
    let dir = TempDir::new("demo");
    let out_dir = dir.path("out");
    let out = ok(&run(&[
        "demo",
        "--duration=0.7",
        "--interval=0",
        "--end-n-clients=4",
        "--documents=2000",
        &format!("--output-dir={}", out_dir.display()),
    ]));
    assert!(out.contains("Peak:"), "{out}");
    assert!(out.contains("Cache hit rate: planned 50%"), "{out}");
    let patterns = std::fs::read_to_string(out_dir.join("patterns.txt")).unwrap();
    assert_eq!(
        patterns.lines().count(),
        200,
        "N = 100 / 0.5 unique requests"
    );
    assert!(patterns
        .lines()
        .all(|l| l.starts_with("/d/select?command_version=2&table=Pages")));
    let v = read_json(&out_dir.join("result.json"));
    let steps = v["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 3);
    for s in steps {
        assert_eq!(
            s["statuses"].as_object().unwrap().len(),
            1,
            "only 200s: {}",
            s["statuses"]
        );
        assert!(s["statuses"]["200"].as_u64().unwrap() > 0);
        let rate = s["cache_hit_rate"]
            .as_f64()
            .expect("the Groonga probe measured the cache");
        assert!(
            (rate - 0.5).abs() < 0.15,
            "hit rate {rate} far from the planned 0.5"
        );
        assert!(s["server_process"]["cpu_s"].as_f64().unwrap() > 0.0);
    }
    let (h, rows) = read_csv(&out_dir.join("result.csv"));
    assert_eq!(rows.len(), 3);
    assert_eq!(col(&h, &rows[0], "n_clients"), 1.0);
}
