//! A rate profile with a spike against a target of exactly known capacity (issue 35
//! items 1 and 4): `hakaru serve --workers 4` answers `/work?ms=20` with 4 workers
//! of 20 ms, 200 requests per second and a queue above that. A spike to 5 times that
//! cannot be held, whatever the machine's load; 20/s around it is a tenth of it. The
//! summary, the JSON result's verdict and the page must name the segment not held and
//! say whether the server recovered, where the profile's mean (answered in all) once
//! made them say "kept up with every offered rate" and "held: yes".

use crate::util::*;

/// 4 workers of 20 ms: 200 requests per second, exactly.
fn work_server() -> Server {
    hakaru_serve(&["--threads", "2", "--workers", "4"], "spike-server")
}

fn run_profile(s: &Server, dir: &TempDir, name: &str, rate: &str, more: &[&str]) -> String {
    let url = format!("http://127.0.0.1:{}/work?ms=20", s.port);
    let csv = dir.path(&format!("{name}.csv"));
    let mut args = vec![
        "run",
        "-c",
        "50",
        "--rate",
        rate,
        "-o",
        csv.to_str().unwrap(),
    ];
    args.extend_from_slice(more);
    args.push(&url);
    ok(&run(&args))
}

/// The result's verdict of step 1's profile.
fn verdict(dir: &TempDir, name: &str) -> serde_json::Value {
    let json = read_json(&dir.path(&format!("{name}.json")));
    json["steps"][0]["profile"]["verdict"].clone()
}

/// Issue 35 item 1: a 1 s spike the target cannot hold, inside a profile whose mean
/// it answered, was reported as held.
#[test]
fn a_spike_not_held_is_named_in_the_summary_the_result_and_the_page() {
    let _one_at_a_time = timed();
    let s = work_server();
    let dir = TempDir::new("spike");
    let out = run_profile(&s, &dir, "spike", "2s@20,1s@1000,4s@20", &[]);

    // The JSON: the spike not held, and whether it recovered.
    let v = verdict(&dir, "spike");
    assert_eq!(v["held"], false, "{v}");
    let spike = &v["segments"][1];
    assert_eq!(spike["held"], false, "{spike}");
    assert_eq!(spike["first_second"], 2, "{spike}");
    assert!(spike["ok"].as_u64().unwrap() < 500, "{spike}");
    assert!(spike["offered"].as_f64().unwrap() > 990.0, "{spike}");
    let recovered = spike["recovered"].as_bool().expect("said, held or not");
    // The summary: the profile as typed, and the segment not held named.
    assert!(
        out.contains("Target rate:            2s@20, 1s@1000, 4s@20 requests/s (mean"),
        "{out}"
    );
    assert!(
        out.contains("Held:                   no — the 1 s at 1000/s: "),
        "{out}"
    );
    let told = match spike["recovered_at_s"].as_u64() {
        Some(at) => format!("recovered at {at} s"),
        None => "had not recovered by the end".into(),
    };
    assert_eq!(recovered, spike["recovered_at_s"].is_u64(), "{spike}");
    assert!(
        out.replace("\n                        ", " ")
            .contains(&told),
        "{told}: {out}"
    );
    assert!(!out.contains("kept up with every"), "{out}");

    // The timeline, unasked: a profile of several segments is told second by second.
    let rows: Vec<&str> = out
        .lines()
        .skip_while(|l| !l.contains("offered/s  answered/s"))
        .skip(1)
        .take_while(|l| !l.is_empty() && !l.starts_with("Results"))
        .collect();
    assert!(rows.len() >= 7, "{out}");
    assert!(
        rows[2].trim_start().starts_with("2 ") && rows[2].contains("1000"),
        "{out}"
    );
    assert!(out
        .lines()
        .all(|l| !l.contains("answered/s") || l.chars().count() <= 80));

    // `report`: the sentences on the terminal, and the page's section and chart.
    let json = dir.path("spike.json");
    let rep = run(&["report", json.to_str().unwrap()]);
    let text = ok(&rep);
    assert!(text.contains("The 1 s at 1000/s was not held: "), "{text}");
    assert!(text.contains(&format!("The server {told}")), "{text}");
    let page = std::fs::read_to_string(dir.path("spike.html")).unwrap();
    assert!(page.contains("The rate profile, segment by segment"));
    assert!(page.contains("The 1 s at 1000/s was not held: "));
    assert!(page.contains("offered/s"), "the offered rate is drawn");
    assert!(
        page.contains("data-segment-bounds=\"0 2 2 3 3 7\""),
        "segments marked"
    );
    assert!(page.contains("<h1>run of 127.0.0.1"));
    assert!(page.contains("2s@20, 1s@1000, 4s@20 req/s</h1>"));
}

/// A profile well inside the capacity is held, segment by segment; `--timeline=1s`
/// prints a row per second.
#[test]
fn a_profile_the_target_holds_says_held() {
    let _one_at_a_time = timed();
    let s = work_server();
    let dir = TempDir::new("spike-held");
    let out = run_profile(&s, &dir, "held", "1s@20,1s@60,1s@20", &["--timeline=1s"]);
    let v = verdict(&dir, "held");
    assert_eq!(v["held"], true, "{v}\n{out}");
    assert!(
        out.contains("Held:                   yes, every segment"),
        "{out}"
    );
    let rows: Vec<&str> = out
        .lines()
        .skip_while(|l| !l.contains("offered/s  answered/s"))
        .skip(1)
        .take_while(|l| !l.is_empty() && !l.starts_with("Results"))
        .collect();
    assert_eq!(rows.len(), 3, "{out}");
    for (i, r) in rows.iter().enumerate() {
        assert!(r.trim_start().starts_with(&format!("{i} ")), "{out}");
    }
    // Asked off, none.
    let out = run_profile(&s, &dir, "off", "1s@20,1s@40", &["--timeline=off"]);
    assert!(!out.contains("offered/s  answered/s"), "{out}");
}

/// A smaller spike (300/s for 1 s against 200/s) leaves a backlog the target clears
/// within a second or two at 20/s: the summary and the result say when it was back.
#[test]
fn a_spike_recovered_from_says_when() {
    let _one_at_a_time = timed();
    let s = work_server();
    let dir = TempDir::new("spike-back");
    let out = run_profile(&s, &dir, "back", "2s@20,1s@300,4s@20", &[]);
    let v = verdict(&dir, "back");
    let spike = &v["segments"][1];
    assert_eq!(spike["held"], false, "{spike}\n{out}");
    assert_eq!(spike["recovered"], true, "{spike}\n{out}");
    let at = spike["recovered_at_s"].as_u64().unwrap();
    assert!((3..7).contains(&at), "{spike}");
    let flat = out.replace("\n                        ", " ");
    assert!(
        flat.contains(&format!("recovered at {at} s ({} s after it)", at - 3)),
        "{out}"
    );
}
