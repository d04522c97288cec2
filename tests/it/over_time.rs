//! A run read over time and by kind of request (issue 18's "done when"): a rate spike
//! shows the second at which latency rose in the terminal, the HTML and the PNG; a
//! drnbench patterns file of a `search` and a `load` group gives two labelled rows and
//! curves whose counts add up to the step's.

use crate::util::{hakaru_serve, ok, read_json, run, TempDir};

/// Regression: `run --rate 1s@100,2s@100..1200 -o spike.csv` drew the whole profile as
/// one point at its average, and nobody could see when the server broke.
#[test]
fn a_spike_shows_the_second_latency_rose() {
    let _t = crate::util::timed();
    // One worker of 2 ms: 500 requests/s at most, so the ramp to 1200/s breaks it.
    let server = hakaru_serve(&["--workers", "1"], "spike");
    let dir = TempDir::new("spike");
    let csv = dir.path("spike.csv");
    let url = format!("http://127.0.0.1:{}/work?ms=2", server.port);
    let out = ok(&run(&[
        "run",
        "-c",
        "4",
        "--rate",
        "1s@100,2s@100..1200",
        "-o",
        csv.to_str().unwrap(),
        &url,
    ]));
    assert!(out.contains("Latency rose at "), "{out}");
    let json = dir.path("spike.json");
    let r = read_json(&json);
    let seconds = r["steps"][0]["timeline"].as_array().expect("a timeline");
    assert!(seconds.len() >= 3, "{seconds:?}");
    let report = ok(&run(&["report", json.to_str().unwrap(), "--png"]));
    assert!(report.contains("Latency rose at "), "{report}");
    let html = std::fs::read_to_string(dir.path("spike.html")).unwrap();
    assert!(html.contains("<h2>Over time</h2>") && html.contains("Latency rose at "));
    assert!(
        html.contains("Latency over time") && html.contains(">rose<"),
        "no mark"
    );
    // A single step reads over time, without the saturation cards of one dot.
    assert!(!html.contains("Highest rate held"));
    for png in ["spike-over-time.png", "spike-latency-over-time.png"] {
        let bytes = std::fs::read(dir.path(png)).unwrap_or_else(|e| panic!("{png}: {e}"));
        assert!(bytes.starts_with(b"\x89PNG"), "{png}");
    }
}

#[test]
fn two_groups_give_two_labelled_rows_and_curves() {
    let server = hakaru_serve(&[], "labels");
    let dir = TempDir::new("labels");
    let patterns = dir.write(
        "patterns.json",
        r#"{ "search": { "frequency": 0.8, "patterns": ["/delay/1", "/bytes/64"] },
             "load": { "frequency": 0.2, "method": "POST",
                       "patterns": [{ "path": "/echo", "body": "hello" }] } }"#,
    );
    let csv = dir.path("mix.csv");
    let port = server.port.to_string();
    let out = ok(&run(&[
        "run",
        "-c",
        "4",
        "-d",
        "3s",
        "--request-patterns-file",
        patterns.to_str().unwrap(),
        "--default-hosts",
        "127.0.0.1",
        "--default-port",
        &port,
        "--verbose",
        "-o",
        csv.to_str().unwrap(),
    ]));
    assert!(out.contains("By kind of request:"), "{out}");
    assert!(
        out.contains("group=search") && out.contains("group=load"),
        "{out}"
    );
    let json = dir.path("mix.json");
    let r = read_json(&json);
    let step = &r["steps"][0];
    let labels = step["labels"].as_array().expect("labels");
    let names: Vec<&str> = labels
        .iter()
        .map(|l| l["value"].as_str().unwrap())
        .collect();
    assert!(
        names.contains(&"search") && names.contains(&"load"),
        "{names:?}"
    );
    let sum: u64 = labels
        .iter()
        .map(|l| l["total_requests"].as_u64().unwrap())
        .sum();
    assert_eq!(sum, step["total_requests"].as_u64().unwrap());
    let md = ok(&run(&["report", json.to_str().unwrap(), "--markdown", "-"]));
    assert!(
        md.contains("| group=search |") && md.contains("| group=load |"),
        "{md}"
    );
    let html = std::fs::read_to_string(json.with_extension("html")).unwrap();
    assert!(html.contains("By kind of request") && html.contains("p99 by kind of request"));
    // compare overlays the runs over time and puts their labels side by side.
    let again = dir.path("again.json");
    std::fs::copy(&json, &again).unwrap();
    let page = dir.path("cmp.html");
    let j = json.to_str().unwrap();
    ok(&run(&[
        "compare",
        j,
        again.to_str().unwrap(),
        "-o",
        page.to_str().unwrap(),
    ]));
    let page = std::fs::read_to_string(page).unwrap();
    assert!(page.contains("p99 over time") && page.contains("Throughput over time"));
    assert!(
        page.contains("<td>group=search</td>") && page.contains("mix p99"),
        "{page}"
    );
}
