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
    let dir = crate::util::TempDir::new("ramp-rate");
    let out = dir.path("r.csv");
    let o = run(&[
        "ramp",
        "-o",
        out.to_str().unwrap(),
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

/// The same flag for the same idea on every command: `--timeout` wherever requests
/// are sent, `-o/--output` wherever a result is written (drnbench's `--output-path`
/// and `--default-timeout` still accepted), `-q` and `--json` wherever load is measured.
#[test]
fn the_same_flags_on_every_command() {
    let help = |cmd: &[&str]| {
        let mut args = cmd.to_vec();
        args.push("--help");
        stdout(&run(&args))
    };
    for cmd in [&["run"][..], &["ramp"], &["ab"], &["bulk"]] {
        let h = help(cmd);
        assert!(h.contains("--timeout <"), "{cmd:?}: {h}");
        assert!(h.contains("-o, --output <"), "{cmd:?}: {h}");
        assert!(h.contains("--json"), "{cmd:?}: {h}");
        assert!(h.contains("-q"), "{cmd:?}: {h}");
    }
    for cmd in [&["suite"][..], &["stream", "send"], &["watch"], &["merge"]] {
        let h = help(cmd);
        assert!(h.contains("-o, --output <"), "{cmd:?}: {h}");
    }
    let h = help(&["run"]);
    assert!(h.contains("shared by every client (not per client"), "{h}");
    assert!(help(&["bulk"]).contains("Documents per step, not requests"));
    assert!(help(&["stream", "send"]).contains("Records per sender, not in all"));

    let server = hakaru_serve(&[], "same-flags");
    let url = format!("http://127.0.0.1:{}/", server.port);
    let dir = crate::util::TempDir::new("same-flags");
    let old = dir.path("old.csv");
    let o = run(&[
        "run",
        "-n",
        "5",
        "--default-timeout",
        "2s",
        "--output-path",
        old.to_str().unwrap(),
        &url,
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(old.exists() && old.with_extension("json").exists());
}

/// Regression: `run --json` printed a bare step (no URL, method, keep-alive, model
/// or command line); `ab` and `bulk` had no `--json` at all.
#[test]
fn json_on_stdout_carries_what_was_run() {
    let server = hakaru_serve(&["--docs"], "json-out");
    let url = format!("http://127.0.0.1:{}/", server.port);
    let o = run(&["run", "-n", "20", "--json", &url]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let j: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("stdout is JSON");
    assert_eq!(j["steps"][0]["total_requests"], 20);
    assert_eq!(j["settings"]["keep_alive"], true);
    assert_eq!(j["settings"]["model"], "closed");
    assert!(j["command_line"].to_string().contains("--json"), "{j}");
    assert!(j["targets"].to_string().contains("127.0.0.1"), "{j}");
    assert!(
        stderr(&o).contains("Requests asked (-n):"),
        "{}",
        stderr(&o)
    );

    let o = run(&["ab", "-n", "10", "--json", &url]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let j: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("ab: stdout is JSON");
    assert_eq!(j["steps"][0]["total_requests"], 10);
    assert!(
        stderr(&o).contains("Requests per second:"),
        "{}",
        stderr(&o)
    );

    let db = format!("http://127.0.0.1:{}/jsondb", server.port);
    crate::util::http(&db, "PUT", None).expect("create the database");
    let o = run(&[
        "bulk",
        &db,
        "--batch-sizes",
        "10",
        "--writers",
        "1",
        "-n",
        "20",
        "--json",
        "-q",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let j: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("bulk: stdout is JSON");
    assert_eq!(j["mode"], "bulk");
    assert!(!stderr(&o).contains("batch"), "-q: no rows: {}", stderr(&o));
}

/// `-o -` is standard output on `stream send` too (it wrote files named `-` and
/// `-.json`): the JSON result, as on every command; and a send too short for a rate says so instead of dividing by 0.00 s.
#[test]
fn stream_send_output_dash_is_stdout() {
    let dir = crate::util::TempDir::new("send-dash");
    let sink = format!("file:{}", dir.path("sink.log").display());
    let o = crate::util::hakaru()
        .current_dir(&dir.0)
        .args(["stream", "send", "--to", &sink, "-n", "10", "-o", "-"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(!dir.path("-").exists() && !dir.path("-.json").exists());
    // The whole hakaru-stream result, as a pod's log carries it to `hakaru merge -`.
    let j: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("JSON on stdout");
    assert_eq!(j["kind"], "hakaru-stream", "{}", stdout(&o));
    let err = stderr(&o);
    assert!(
        err.contains("too short for a rate") || err.contains(" s: "),
        "{err}"
    );
    assert!(!err.contains("0.00 s"), "{err}");
}

/// Regression: an OS error was printed twice ("No such file or directory (os error
/// 2): No such file or directory (os error 2)").
#[test]
fn an_os_error_is_printed_once() {
    for args in [
        &["run", "--request-patterns-file", "/nonexistent/p.txt"][..],
        &["suite", "/nonexistent/s.toml"][..],
    ] {
        let o = run(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = stderr(&o);
        assert_eq!(err.matches("os error 2").count(), 1, "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
    }
}

/// Regression: `report` on a program quoted its bytes to the terminal.
#[test]
fn report_refuses_a_binary_file_in_one_line() {
    let dir = crate::util::TempDir::new("binary");
    let mut bytes = b"\x7fELF\x02\x01\x01\0\0\0".to_vec();
    bytes.extend(std::iter::repeat_n(0u8, 200));
    let path = dir.path("r.json");
    std::fs::write(&path, &bytes).unwrap();
    let o = run(&["report", path.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("a binary file, not a result"), "{err}");
}
