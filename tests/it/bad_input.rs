//! Bad input gets a clear error before any load is sent: never a panic, never a hang.

use crate::util::*;

fn fails_with(args: &[&str], needles: &[&str]) {
    let out = run(args);
    let err = stderr(&out);
    assert_eq!(
        out.status.code(),
        Some(1),
        "expected a clean failure for {args:?}\nstdout: {}\nstderr: {err}",
        stdout(&out)
    );
    assert!(!err.contains("panicked"), "{err}");
    for n in needles {
        assert!(
            err.contains(n),
            "error for {args:?} should mention {n:?}:\n{err}"
        );
    }
}

#[test]
fn missing_patterns_file() {
    fails_with(
        &["ramp", "--request-patterns-file=/nonexistent/patterns.txt"],
        &["/nonexistent/patterns.txt"],
    );
}

#[test]
fn invalid_json_names_line_and_column() {
    let dir = TempDir::new("badjson");
    let p = dir.write(
        "p.json",
        "{\n  \"search\": {\n    \"patterns\": [\"/a\",,]\n  }\n}\n",
    );
    fails_with(
        &["ramp", &format!("--request-patterns-file={}", p.display())],
        &["p.json", "line 3", "column"],
    );
}

#[test]
fn text_line_that_is_not_a_path() {
    let dir = TempDir::new("badline");
    let p = dir.write("p.txt", "/a\n/b\nnot a path\n");
    fails_with(
        &["run", "--request-patterns-file", p.to_str().unwrap()],
        &["p.txt", "line 3"],
    );
}

#[test]
fn empty_patterns_file() {
    let dir = TempDir::new("empty");
    let p = dir.write("p.txt", "\n\n");
    fails_with(
        &["run", "--request-patterns-file", p.to_str().unwrap()],
        &["p.txt", "empty"],
    );
}

#[test]
fn unresolvable_host() {
    let dir = TempDir::new("nohost");
    let p = dir.write("p.txt", "/d/status\n");
    fails_with(
        &[
            "ramp",
            "--request-patterns-file",
            p.to_str().unwrap(),
            "--default-hosts=node0.invalid,node1.invalid",
        ],
        &["node0.invalid"],
    );
}

#[test]
fn impossible_steps() {
    fails_with(
        &[
            "ramp",
            "--start-n-clients=5",
            "--end-n-clients=2",
            "http://127.0.0.1:1/",
        ],
        &["--end-n-clients"],
    );
    fails_with(&["ramp", "--step=0", "http://127.0.0.1:1/"], &["--step"]);
    fails_with(
        &["ramp", "--duration=0", "http://127.0.0.1:1/"],
        &["--duration"],
    );
    fails_with(&["run", "-d", "0", "http://127.0.0.1:1/"], &["-d"]);
    fails_with(&["run", "-c", "0", "http://127.0.0.1:1/"], &["-c"]);
    fails_with(&["run", "--rate=-5", "http://127.0.0.1:1/"], &["--rate"]);
}

#[test]
fn nothing_to_request() {
    fails_with(&["run"], &["URL"]);
    fails_with(&["run", "ftp://127.0.0.1/"], &["ftp://127.0.0.1/"]);
}

#[test]
fn bad_header() {
    fails_with(
        &["run", "-H", "no colon here", "http://127.0.0.1:1/"],
        &["-H"],
    );
}
