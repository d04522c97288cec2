//! No command replaces one of its own inputs (issue 32): every path a command will
//! write is compared with every file it reads, by identity (device and inode, so a
//! symlink or a hard link to an input is caught too), before any load or read; the
//! command exits 2 with a sentence naming both paths, and the input is unchanged.

use std::path::Path;

use crate::util::*;

/// Nothing listens on port 9 of loopback: a run that got past its checks would fail
/// there, never reach a real server.
const NOWHERE: &str = "http://127.0.0.1:9/";

/// `args` is refused with exit 2, its stderr naming `output` and `input`, and `input`
/// still holds `before`, byte for byte.
fn refused(args: &[&str], output: &Path, input: &Path, before: &[u8]) {
    let o = run(args);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
    assert!(err.contains("would replace"), "{args:?}: {err}");
    assert!(
        err.contains(&output.display().to_string()),
        "{args:?}: {err}"
    );
    assert!(
        err.contains(&input.display().to_string()),
        "{args:?}: {err}"
    );
    assert_eq!(
        std::fs::read(input).unwrap(),
        before,
        "{args:?}: the input changed"
    );
}

fn write(path: &Path, bytes: &[u8]) -> Vec<u8> {
    std::fs::write(path, bytes).unwrap();
    bytes.to_vec()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// `run` over the patterns file `input` (paths only, to nowhere) writing `flag out`.
fn patterns_run<'a>(input: &'a Path, flag: &'a str, out: &'a Path) -> Vec<&'a str> {
    let mut args = vec!["run", "-c", "1", "-n", "1", "--default-hosts", "127.0.0.1"];
    args.extend([
        "--default-port",
        "9",
        "--request-patterns-file",
        s(input),
        flag,
        s(out),
    ]);
    args
}

/// Issue 32: `run --request-patterns-file in.csv -o in.csv` replaced the patterns
/// with the CSV result.
#[test]
fn run_refuses_to_replace_its_patterns_file_with_the_csv() {
    let dir = TempDir::new("clobber-run");
    let input = dir.path("in.csv");
    let before = write(&input, b"/a\n/b\n");
    let args = patterns_run(&input, "-o", &input);
    refused(&args, &input, &input, &before);
}

/// Issue 32: with a patterns file `many.json` and `-o many.csv`, the JSON result
/// written beside the CSV replaced the patterns (8 MB gone, exit 0).
#[test]
fn run_refuses_a_csv_whose_json_beside_it_is_the_patterns_file() {
    let dir = TempDir::new("clobber-beside");
    let input = dir.path("many.json");
    let before = write(&input, b"/a\n");
    let csv = dir.path("many.csv");
    let args = patterns_run(&input, "-o", &csv);
    refused(&args, &input, &input, &before);
    assert!(!csv.exists(), "nothing is written");
}

/// The same file by another name: a symlink and a hard link to the patterns file.
#[test]
fn run_refuses_a_link_to_its_patterns_file() {
    let dir = TempDir::new("clobber-links");
    let input = dir.path("in.txt");
    let before = write(&input, b"/a\n");
    let soft = dir.path("soft.csv");
    std::os::unix::fs::symlink(&input, &soft).unwrap();
    let hard = dir.path("hard.csv");
    std::fs::hard_link(&input, &hard).unwrap();
    for out in [&soft, &hard] {
        let args = patterns_run(&input, "-o", out);
        refused(&args, out, &input, &before);
        let err = stderr(&run(&args));
        assert!(err.contains("the same file by another name"), "{err}");
    }
}

/// `--body-file`, `--junit` and `--live-out` are checked as the result is.
#[test]
fn run_refuses_junit_live_out_and_body_onto_its_inputs() {
    let dir = TempDir::new("clobber-more");
    let patterns = dir.path("p.txt");
    let before = write(&patterns, b"/a\n");
    let mut junit = patterns_run(&patterns, "--junit", &patterns);
    junit.extend(["--threshold", "p99<1s"]);
    refused(&junit, &patterns, &patterns, &before);
    let live = patterns_run(&patterns, "--live-out", &patterns);
    refused(&live, &patterns, &patterns, &before);
    let body = dir.path("body.json");
    let body_before = write(&body, b"{\"a\":1}");
    let b = s(&body);
    let out = dir.path("body.csv");
    refused(
        &[
            "run",
            "-n",
            "1",
            "-m",
            "POST",
            "--body-file",
            b,
            "-o",
            s(&out),
            NOWHERE,
        ],
        &body,
        &body,
        &body_before,
    );
}

/// Issue 32: `merge s1.json s2.json -o s1.csv` replaced shard 1's own result (the
/// JSON beside the CSV) with the merged one.
#[test]
fn merge_refuses_to_replace_a_shard() {
    let dir = TempDir::new("clobber-merge");
    let s1 = dir.path("s1.json");
    let s2 = dir.path("s2.json");
    let before = write(&s1, b"{\"shard 1\": true}");
    write(&s2, b"{\"shard 2\": true}");
    let out = dir.path("s1.csv");
    refused(&["merge", s(&s1), s(&s2), "-o", s(&out)], &s1, &s1, &before);
    // The same through links: a symlink to shard 2 as -o's JSON, a hard link to it as
    // the CSV whose JSON beside it would be shard 1.
    let soft = dir.path("soft.json");
    std::os::unix::fs::symlink(&s2, &soft).unwrap();
    refused(
        &["merge", s(&s1), s(&s2), "-o", s(&soft)],
        &soft,
        &s2,
        b"{\"shard 2\": true}",
    );
    let hard = dir.path("hard.json");
    std::fs::hard_link(&s1, &hard).unwrap();
    refused(
        &["merge", s(&s1), s(&s2), "-o", s(&hard)],
        &hard,
        &s1,
        &before,
    );
}

/// Issue 32: `report r.json -o r.json` replaced the measurement with the page.
#[test]
fn report_refuses_to_overwrite_its_input_r_json() {
    let dir = TempDir::new("clobber-report");
    let r = dir.path("r.json");
    let before = write(&r, b"{\"a measurement\": 1}");
    refused(&["report", s(&r), "-o", s(&r)], &r, &r, &before);
    refused(&["report", s(&r), "--markdown", s(&r)], &r, &r, &before);
    let hard = dir.path("page.html");
    std::fs::hard_link(&r, &hard).unwrap();
    refused(&["report", s(&r), "-o", s(&hard)], &hard, &r, &before);
    let soft = dir.path("r.md");
    std::os::unix::fs::symlink(&r, &soft).unwrap();
    refused(
        &["report", s(&r), "--markdown", s(&soft)],
        &soft,
        &r,
        &before,
    );
}

#[test]
fn compare_refuses_to_overwrite_a_result_it_compares() {
    let dir = TempDir::new("clobber-compare");
    let a = dir.path("a.json");
    let b = dir.path("b.json");
    let before = write(&a, b"{\"a\": 1}");
    write(&b, b"{\"b\": 1}");
    refused(
        &["compare", s(&a), s(&b), "-o", s(&b)],
        &b,
        &b,
        b"{\"b\": 1}",
    );
    refused(
        &["compare", s(&a), s(&b), "--markdown", s(&a)],
        &a,
        &a,
        &before,
    );
}

#[test]
fn ab_refuses_to_overwrite_its_post_file() {
    let dir = TempDir::new("clobber-ab");
    let body = dir.path("post.txt");
    let before = write(&body, b"a=1");
    refused(
        &["ab", "-n", "1", "-p", s(&body), "-o", s(&body), NOWHERE],
        &body,
        &body,
        &before,
    );
}

/// A scenario, and a patterns file it names, are inputs of `suite`.
#[test]
fn suite_refuses_to_overwrite_its_scenario_or_its_patterns() {
    let dir = TempDir::new("clobber-suite");
    let patterns = dir.path("reads.txt");
    let p_before = write(&patterns, b"/a\n");
    let scenario = dir.path("s.toml");
    let s_before = write(
        &scenario,
        b"hosts = [\"127.0.0.1\"]\nport = 9\n\n[[phase]]\nname = \"read\"\nduration = \"1s\"\nclients = 1\n[[phase.workload]]\npatterns = \"reads.txt\"\n",
    );
    refused(
        &["suite", s(&scenario), "-o", s(&patterns)],
        &patterns,
        &patterns,
        &p_before,
    );
    refused(
        &["suite", s(&scenario), "-o", s(&scenario)],
        &scenario,
        &scenario,
        &s_before,
    );
}

#[test]
fn patterns_refuses_to_overwrite_its_terms_file() {
    let dir = TempDir::new("clobber-patterns");
    let terms = dir.path("terms.txt");
    let before = write(&terms, b"apple\nbanana\n");
    refused(
        &["patterns", s(&terms), "-o", s(&terms)],
        &terms,
        &terms,
        &before,
    );
}
