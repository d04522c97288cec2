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

/// The `data-NAME` attribute of an `<svg …>` opening tag.
fn attr<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    let key = format!("data-{name}=\"");
    let from = tag.find(&key)? + key.len();
    Some(&tag[from..from + tag[from..].find('"')?])
}

fn numbers(s: &str) -> Vec<f64> {
    s.split(' ').map(|v| v.parse().unwrap()).collect()
}

/// Issue 32 item 3: on a ramp of 4 steps of 3 s with two groups, "p99 by kind of
/// request" ran to 14 s on a 12 s run (each step's last sliver of a second drawn as a
/// whole second one second later). Every chart over time now shares the run's clock:
/// the same x range, the same step bounds, no point past the run's end.
#[test]
fn a_multi_step_multi_label_ramp_s_charts_agree_to_the_second() {
    let _t = crate::util::timed();
    let server = hakaru_serve(&[], "clock");
    let dir = TempDir::new("clock");
    let patterns = dir.write(
        "patterns.json",
        r#"{ "search": { "frequency": 0.8, "patterns": ["/delay/1", "/bytes/64"] },
             "load": { "frequency": 0.2, "method": "POST",
                       "patterns": [{ "path": "/echo", "body": "hello" }] } }"#,
    );
    let csv = dir.path("ramp.csv");
    ok(&run(&[
        "ramp",
        "--start-n-clients",
        "1",
        "--end-n-clients",
        "4",
        "--duration",
        "3s",
        "--interval",
        "0",
        "--request-patterns-file",
        patterns.to_str().unwrap(),
        "--default-hosts",
        "127.0.0.1",
        "--default-port",
        &server.port.to_string(),
        "-q",
        "-o",
        csv.to_str().unwrap(),
    ]));
    let json = dir.path("ramp.json");
    let r = read_json(&json);
    let ends: Vec<f64> = r["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["elapsed_s"].as_f64().unwrap())
        .collect();
    assert_eq!(ends.len(), 4);
    ok(&run(&["report", json.to_str().unwrap()]));
    let html = std::fs::read_to_string(json.with_extension("html")).unwrap();
    // The opening tags of the charts on the run's clock.
    let tags: Vec<&str> = html
        .match_indices("<svg data-x-range")
        .map(|(i, _)| &html[i..i + html[i..].find('>').unwrap()])
        .collect();
    let titles = [
        "Throughput over time",
        "Latency over time",
        "p99 by kind of request",
    ];
    for t in titles {
        assert!(
            tags.iter()
                .any(|g| g.contains(&format!("aria-label=\"{t}\""))),
            "{t} is not on the run's clock: {tags:?}"
        );
    }
    let range = attr(tags[0], "x-range").unwrap();
    let bounds = attr(tags[0], "step-bounds").unwrap();
    let total: f64 = ends.iter().sum();
    let (lo, hi) = (numbers(range)[0], numbers(range)[1]);
    assert!(
        lo == 0.0 && (hi - total).abs() < 0.002,
        "{range} against {total}"
    );
    let b = numbers(bounds);
    assert_eq!(b.len(), 8, "{bounds}");
    assert!((b[7] - hi).abs() < 1e-9 && (b[2] - ends[0]).abs() < 0.002);
    for g in &tags {
        assert_eq!(attr(g, "x-range"), Some(range), "{g}");
        assert_eq!(attr(g, "step-bounds"), Some(bounds), "{g}");
        let extent = numbers(attr(g, "x-extent").unwrap());
        // The first point in the middle of the first second, the last before the end.
        assert!(extent[0] == 0.5 && extent[1] < hi, "{g}");
    }
}
