//! Every result a per-second series by label (issue 18): a drnbench patterns file's
//! groups counted apart, exactly, and a rate profile's timeline showing the second the
//! server fell behind.

use crate::util::*;

/// The counts of one label of step 0.
fn label<'a>(step: &'a serde_json::Value, value: &str) -> &'a serde_json::Value {
    step["labels"]
        .as_array()
        .expect("labels")
        .iter()
        .find(|l| l["value"] == value)
        .unwrap_or_else(|| panic!("no label {value} in {}", step["labels"]))
}

fn n(v: &serde_json::Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not a count: {v}"))
}

#[test]
fn a_drnbench_file_of_two_groups_is_counted_per_group_exactly() {
    let server = hakaru_serve(&[], "labels");
    let dir = TempDir::new("labels");
    let patterns = dir.write(
        "p.json",
        r#"{"search": {"patterns": ["/status/200", "/bytes/100"]},
            "load": {"method": "POST", "body": "hello", "patterns": ["/echo", "/status/503"]}}"#,
    );
    let csv = dir.path("r.csv");
    // One client in file order: the 4 requests in turn, 150 times each.
    ok(&run(&[
        "run",
        "-c",
        "1",
        "-n",
        "600",
        "--order",
        "sequential",
        "--request-patterns-file",
        patterns.to_str().unwrap(),
        "--default-hosts",
        "127.0.0.1",
        "--default-port",
        &server.port.to_string(),
        "-o",
        csv.to_str().unwrap(),
    ]));
    let v = read_json(&csv.with_extension("json"));
    let step = &v["steps"][0];
    assert_eq!(step["labels"].as_array().expect("labels").len(), 2);
    let (search, load) = (label(step, "search"), label(step, "load"));
    assert_eq!(
        (search["key"].as_str(), load["key"].as_str()),
        (Some("group"), Some("group"))
    );
    assert_eq!(
        (n(&search["total_requests"]), n(&load["total_requests"])),
        (300, 300)
    );
    assert_eq!(n(&search["statuses"]["200"]), 300);
    assert_eq!(
        (n(&load["statuses"]["200"]), n(&load["statuses"]["503"])),
        (150, 150)
    );
    assert_eq!(n(&search["latency"]["count"]), 300);
    // The labels add up to the step.
    assert_eq!(
        n(&search["total_requests"]) + n(&load["total_requests"]),
        n(&step["total_requests"])
    );
    assert_eq!(
        n(&search["bytes_received"]) + n(&load["bytes_received"]),
        n(&step["bytes_received"])
    );
    // So do the seconds of the step's timeline, and of each label's.
    let seconds = step["timeline"]
        .as_array()
        .expect("a timeline in every run");
    let sum = |of: &[serde_json::Value], f: &str| of.iter().map(|s| n(&s[f])).sum::<u64>();
    assert_eq!(sum(seconds, "responses"), 600);
    assert_eq!(sum(seconds, "bytes_received"), n(&step["bytes_received"]));
    let per_load = load["timeline"].as_array().expect("a timed label");
    assert_eq!(sum(per_load, "responses"), 300);
    assert_eq!(
        per_load
            .iter()
            .map(|s| n(&s["statuses"]["503"]))
            .sum::<u64>(),
        150
    );
}

#[test]
fn a_spike_profile_shows_the_second_latency_rose() {
    let _one_at_a_time = timed();
    // 2 workers at 10 ms: 200 requests/s at most; the profile climbs to 1200.
    let server = hakaru_serve(&["--workers", "2"], "spike");
    let dir = TempDir::new("spike");
    let csv = dir.path("spike.csv");
    let url = format!("http://127.0.0.1:{}/work?ms=10", server.port);
    ok(&run(&[
        "run",
        "-c",
        "4",
        "--rate",
        "1s@100,2s@100..1200",
        "--timeout",
        "30s",
        "-o",
        csv.to_str().unwrap(),
        &url,
    ]));
    let v = read_json(&csv.with_extension("json"));
    let step = &v["steps"][0];
    let seconds = step["timeline"].as_array().expect("a timeline");
    assert!(seconds.len() >= 3, "{seconds:?}");
    assert!(seconds.iter().all(|s| s["span_s"] == 1));
    let p99 = |i: usize| seconds[i]["p99_s"].as_f64().expect("p99");
    // The first second (100/s, half the capacity) answers in about 10 ms; by the
    // last, requests queue behind the 2 workers for far longer.
    assert!(
        p99(2) > 5.0 * p99(0),
        "p99 by second: {:?}",
        (0..seconds.len()).map(p99).collect::<Vec<_>>()
    );
    let total: u64 = seconds
        .iter()
        .map(|s| {
            n(&s["responses"])
                + s["errors"]
                    .as_object()
                    .map_or(0, |e| e.values().map(n).sum())
        })
        .sum();
    assert_eq!(total, n(&step["total_requests"]));
}

/// Issue 36 item 11: a threshold naming a real label past the 199 kept is judged:
/// the label keeps its own place. It failed with "no label group=g240".
#[test]
fn a_threshold_s_label_past_the_cap_is_kept_and_judged() {
    let server = hakaru_serve(&[], "labels-cap");
    let dir = TempDir::new("labels-cap");
    let groups: Vec<String> = (0..250)
        .map(|i| format!(r#""g{i}": {{"patterns": ["/status/200"]}}"#))
        .collect();
    let patterns = dir.write("p.json", &format!("{{{}}}", groups.join(",")));
    let json = dir.path("r.json");
    let out = run(&[
        "run",
        "-c",
        "1",
        "-n",
        "500",
        "--order",
        "sequential",
        "--request-patterns-file",
        patterns.to_str().unwrap(),
        "--default-hosts",
        "127.0.0.1",
        "--default-port",
        &server.port.to_string(),
        "--threshold",
        "p99{group=g240}<10s",
        "-o",
        json.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let step = &read_json(&json)["steps"][0];
    let kept = label(step, "g240");
    assert_eq!(n(&kept["total_requests"]), 2, "{kept}");
    assert!(
        n(&label(step, "other")["total_requests"]) > 0,
        "past the cap: other"
    );
}
