//! One grammar for one idea, on every command (issue 19, item 3): `--rate` read by
//! one parser, the same flags (`--timeout`, `-o`, `-q`, `--json`) wherever they make
//! sense, `-o -` for stdout everywhere.

use crate::util::{hakaru_serve, run, stderr, stdout};

/// Regression: `ramp --rate 100..200` was refused ("neither a rate nor
/// START:END:STEP") though `run` took it; now it is one step whose rate rises.
#[test]
fn ramp_takes_runs_spelling_of_a_rate() {
    let server = hakaru_serve(&[], "ramp-rate");
    let url = format!("http://127.0.0.1:{}/", server.port);
    let o = run(&[
        "ramp",
        "--rate",
        "100..200,300",
        "--duration",
        "500ms",
        "--interval",
        "0",
        "--json",
        "-q",
        &url,
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let json: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let steps = json["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 2, "{json}");
    assert!((steps[0]["rate"].as_f64().unwrap() - 150.0).abs() < 1e-6);
    assert_eq!(steps[0]["rate_profile"], "0.5s@100..200");
    assert_eq!(steps[1]["rate"], 300.0);
}

/// Every command's `--rate` is refused by the same parser, naming the flag and
/// what is wrong, before any load.
#[test]
fn a_bad_rate_names_the_flag_on_every_command() {
    let url = "http://127.0.0.1:9/";
    for (args, says) in [
        (
            &["run", "--rate", "fast", url][..],
            "\"fast\" is not a rate",
        ),
        (
            &["ramp", "--rate", "fast", url][..],
            "\"fast\" is not a rate",
        ),
        (
            &["ramp", "--rate", "5s@100", url][..],
            "each ramp step lasts --duration",
        ),
        (
            &["ramp", "--rate", "300:100:100", url][..],
            "START:END:STEP",
        ),
        (
            &["bulk", "--rate", "100..200", "http://127.0.0.1:9/db"][..],
            "one fixed rate",
        ),
        (
            &[
                "stream",
                "send",
                "--to",
                "tcp://127.0.0.1:9",
                "--rate",
                "fast",
            ][..],
            "\"fast\" is not a rate",
        ),
    ] {
        let o = run(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        let err = stderr(&o);
        assert!(err.contains("--rate"), "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
    }
}
