//! Bad input gets a clear error before any load is sent: never a panic, never a hang.

use crate::util::*;

fn fails_with(args: &[&str], needles: &[&str]) {
    let out = run(args);
    let err = stderr(&out);
    assert_eq!(
        out.status.code(),
        Some(2),
        "expected a clean failure (bad input: 2) for {args:?}\nstdout: {}\nstderr: {err}",
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

/// Run hakaru with `args` against a listener that counts connections, writing (if it
/// ever got that far) into a temp dir; assert it fails, names `flag`, and neither
/// connected nor wrote a result.
fn refused_before_load(args: &[&str], flag: &str) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let url = format!("http://{}/", listener.local_addr().unwrap());
    let dir = TempDir::new("refused");
    let out = dir.path("result.csv");
    let mut all: Vec<&str> = args.to_vec();
    all.extend(["-o", out.to_str().unwrap(), &url]);
    let mut child = hakaru()
        .args(&all)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("hakaru starts");
    // A refusal takes milliseconds; a minute means load is being sent. The bound only
    // keeps a broken build from hanging the suite.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while child.try_wait().unwrap().is_none() {
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("hakaru {all:?} did not exit: it should refuse {flag} at once");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    match listener.accept() {
        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
        other => panic!("hakaru {all:?} connected to the target: {other:?}"),
    }
    assert!(!out.exists(), "{} was written", out.display());
    assert!(!out.with_extension("json").exists());
    let output = child.wait_with_output().unwrap();
    let err = stderr(&output);
    assert!(
        output.status.code() == Some(2),
        "hakaru {all:?} should fail, got {:?}\n{err}",
        output.status
    );
    assert!(!err.contains("panicked"), "{err}");
    assert!(
        err.contains(flag),
        "error for {all:?} should name {flag}:\n{err}"
    );
}

#[test]
fn out_of_range_values_are_refused_before_any_load() {
    refused_before_load(&["run", "--rate", "1e-20"], "--rate");
    refused_before_load(&["run", "--timeout", "1e19"], "timeout");
    refused_before_load(&["run", "--timeout", "2h"], "--timeout");
    refused_before_load(&["run", "-d", "1000000000"], "--duration");
    refused_before_load(&["run", "--threads", "100000"], "--threads");
    refused_before_load(&["run", "-c", "2000000"], "-c");
    refused_before_load(&["run", "--n-slow-requests", "100000"], "--n-slow-requests");
    refused_before_load(&["run", "--rounds", "0"], "--rounds");
    refused_before_load(&["ramp", "--rate", "1e-20"], "--rate");
    refused_before_load(&["ramp", "--end-n-clients", "2000000"], "--end-n-clients");
    refused_before_load(
        &["ramp", "--n-fast-requests", "100000"],
        "--n-fast-requests",
    );
    refused_before_load(&["ramp", "--interval", "1e9"], "--interval");
}

/// Issue 20: a non-UTF-8 argument panicked (exit 101) and printed itself, secret and all.
#[test]
fn non_utf8_argument_exits_2_without_showing_it() {
    use std::os::unix::ffi::OsStrExt;
    let arg = std::ffi::OsStr::from_bytes(b"Authorization: s3cret\xff");
    let out = hakaru()
        .args(["run", "-n", "1", "-H"])
        .arg(arg)
        .arg("http://127.0.0.1:1/")
        .output()
        .unwrap();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("argument #5 is not valid UTF-8"), "{err}");
    assert!(
        !err.contains("s3cret") && !err.contains("panicked"),
        "{err}"
    );
}

/// Issue 20: `serve --threads 100000` aborted the process.
#[test]
fn serve_threads_100000_is_refused() {
    fails_with(&["serve", "--threads", "100000"], &["--threads 100000"]);
}

/// Issue 20: `-o - > /dev/full` panicked (exit 101) on the full stdout; so did the
/// summary printed to a full stdout.
#[test]
fn writing_to_a_full_stdout_is_an_error_not_a_panic() {
    let t = target();
    let url = format!("http://{}/", t.addr);
    for args in [
        &["run", "-c", "1", "-n", "3", "-o", "-", "--format", "json"][..],
        &["run", "-c", "1", "-n", "3"][..],
    ] {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap();
        let out = hakaru().args(args).arg(&url).stdout(full).output().unwrap();
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(err.contains("No space left on device"), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

/// Issue 20: a scenario naming `../../../etc/passwd` as its patterns file printed the
/// file's first line in the error. The file and the problem are named, not its content.
#[test]
fn suite_patterns_file_elsewhere_is_named_not_shown() {
    let dir = TempDir::new("suite-passwd");
    let secret = dir.write("secret.txt", "root:x:0:0:s3cret:/root:/bin/sh\n");
    let depth = dir.path(".").components().count();
    let up = "../".repeat(depth);
    let scenario = dir.write(
        "s.toml",
        &format!(
            "[[phase]]\nname = \"a\"\nduration = \"1s\"\nclients = 1\n[[phase.workload]]\n\
             patterns = \"{up}{}\"\n",
            secret.display().to_string().trim_start_matches('/')
        ),
    );
    let out = run(&["suite", scenario.to_str().unwrap()]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("secret.txt"), "{err}");
    assert!(err.contains("not a patterns file: line 1"), "{err}");
    assert!(!err.contains("s3cret") && !err.contains("root:x"), "{err}");
}

/// Issue 20: `hakaru ab` refused bad flags with exit 1 and `run`'s names (`ab -t 0` →
/// "-d must be positive").
#[test]
fn ab_refuses_bad_flags_with_exit_2_and_abs_names() {
    fails_with(
        &["ab", "-t", "0", "http://127.0.0.1:1/"],
        &["-t must be positive"],
    );
    fails_with(
        &["ab", "-s", "0", "http://127.0.0.1:1/"],
        &["-s must be positive"],
    );
    fails_with(
        &["ab", "-c", "0", "http://127.0.0.1:1/"],
        &["-c must be at least 1"],
    );
}

/// Issue 20: `-n 1e30` became u64::MAX and `-n 1.5` became 2, silently.
#[test]
fn n_1e30_and_n_1_5_are_refused() {
    fails_with(
        &["run", "-n", "1e30", "http://127.0.0.1:1/"],
        &["1e30", "more than"],
    );
    fails_with(
        &["run", "-n", "1.5", "http://127.0.0.1:1/"],
        &["1.5", "not a whole number"],
    );
}
