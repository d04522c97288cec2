//! The command line's conventions through the binary: completions and the manual page
//! are there, and another tool's flag gets a pointer to hakaru's (exit 2, as every
//! usage error).

use crate::util::{ok, run, stderr, TempDir};

#[test]
fn completions_and_man_pages_come_from_the_binary() {
    for (shell, marker) in [
        ("bash", "_hakaru()"),
        ("zsh", "#compdef hakaru"),
        ("fish", "complete -c hakaru"),
    ] {
        let script = ok(&run(&["completions", shell]));
        assert!(script.contains(marker), "{shell}: {script:.200}");
        assert!(script.contains("request-patterns-file"), "{shell}");
    }
    let page = ok(&run(&["man"]));
    assert!(page.contains(".TH hakaru 1"), "{page:.300}");
    let dir = TempDir::new("man");
    let out = run(&["man", "--dir", dir.0.to_str().unwrap()]);
    ok(&out);
    for name in ["hakaru.1", "hakaru-run.1", "hakaru-ramp.1", "hakaru-ab.1"] {
        let text = std::fs::read_to_string(dir.path(name)).unwrap_or_default();
        assert!(text.contains(".TH"), "{name} missing or empty");
    }
}

#[test]
fn another_tools_flag_points_to_hakarus() {
    let out = run(&["run", "-t", "10", "http://127.0.0.1:9/"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        "error: unexpected argument '-t' found

  tip: -d/--duration sets how long a step runs (ab's -t, hey's -z); --threads sets worker threads (wrk's -t); `hakaru ab` takes ab's -t as is

Usage: hakaru run [OPTIONS] [URL]

For more information, try '--help'.
"
    );
    let out = run(&["run", "--help"]);
    let help = ok(&out);
    assert!(
        help.contains("Worker threads; 0, the default, means one per core\n"),
        "{help}"
    );
}
