//! `hakaru compare` of suites: two short YCSB-A runs against the embedded document
//! store (`hakaru serve --docs`), then `compare` on their JSON results puts each
//! phase side by side (one row per run under each phase name, ratios to the first
//! run, the operations counted), and a ramp among them keeps the ramp table while the
//! suites are named under it. Counts and shapes only, never time.

use crate::docs::docs_server;
use crate::util::*;

/// YCSB-A as printed, pointed at `db`, with one-second phases and few records.
fn scenario(dir: &TempDir, name: &str, db: &str) -> std::path::PathBuf {
    let text = ok(&run(&["suite", "--profile", "ycsb-a", "--print"]));
    let text = text
        .replace("http://127.0.0.1:5984/ycsb-a", db)
        .replace("records = 1000", "records = 100")
        .replace("duration = \"60s\"", "duration = \"1s\"")
        .replace("clients = 16", "clients = 2");
    dir.write(&format!("{name}.toml"), &text)
}

/// Runs the scenario into `NAME.json` and returns its path.
fn suite(dir: &TempDir, name: &str, db: &str) -> String {
    let s = scenario(dir, name, db);
    let out = dir.path(&format!("{name}.csv"));
    ok(&run(&[
        "suite",
        s.to_str().unwrap(),
        "-q",
        "-o",
        out.to_str().unwrap(),
    ]));
    out.with_extension("json").to_str().unwrap().to_owned()
}

#[test]
fn compare_of_two_suites_puts_each_phase_side_by_side() {
    let server = docs_server();
    let dir = TempDir::new("compare-suites");
    let db = |name: &str| format!("http://127.0.0.1:{}/{name}", server.port);
    let first = suite(&dir, "first", &db("first"));
    let second = suite(&dir, "second", &db("second"));
    let text = ok(&run(&["compare", &first, &second]));
    assert!(
        text.contains("Phase by phase (ratios in parentheses are to first):"),
        "{text}"
    );
    assert!(
        !text.contains("peak qps"),
        "no ramp table for suites alone: {text}"
    );
    let lines: Vec<&str> = text.lines().collect();
    for phase in ["load", "run"] {
        let at = lines
            .iter()
            .position(|l| *l == phase)
            .unwrap_or_else(|| panic!("no line for phase {phase}: {text}"));
        // Under the phase's name: the first run's row, its operations, the second's.
        let rows: Vec<&str> = lines[at + 1..]
            .iter()
            .take_while(|l| l.starts_with("  "))
            .copied()
            .collect();
        let runs: Vec<&&str> = rows.iter().filter(|l| !l.starts_with("    ")).collect();
        assert_eq!(runs.len(), 2, "one row per run under {phase}: {rows:?}");
        assert!(runs[0].starts_with("  first "), "{rows:?}");
        assert!(
            !runs[0].contains('×'),
            "the baseline has no ratio: {rows:?}"
        );
        assert!(runs[1].starts_with("  second "), "{rows:?}");
        assert!(runs[1].contains("×)"), "the second run's ratio: {rows:?}");
        assert!(
            rows.iter().any(|l| l.starts_with("      operations, ")),
            "{rows:?}"
        );
    }
    assert!(text.contains("second answered load "), "{text}");
    for l in lines.iter().take_while(|l| !l.is_empty()) {
        assert!(l.chars().count() <= 80, "{l:?}");
    }
    // Markdown and the page hold the same table.
    let md = ok(&run(&["compare", &first, &second, "--markdown"]));
    assert!(md.contains("#### Phase by phase"), "{md}");
    assert!(md.contains("| load | first |"), "{md}");
    let page = dir.path("compare.html");
    ok(&run(&[
        "compare",
        &first,
        &second,
        "-o",
        page.to_str().unwrap(),
    ]));
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("<h2>Phase by phase</h2>"), "{html}");
    // --svg draws a ramp's charts; suites alone have none (they drew as one line at
    // their clients, as if their phases were steps).
    let svgs = |dir: &TempDir| -> Vec<String> {
        std::fs::read_dir(&dir.0)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".svg"))
            .collect()
    };
    ok(&run(&[
        "compare",
        &first,
        &second,
        "-o",
        page.to_str().unwrap(),
        "--svg",
    ]));
    assert_eq!(svgs(&dir), Vec::<String>::new());

    // A ramp beside them: its own table, the suites named under it.
    let t = target();
    let ramp = dir.path("ramp.csv");
    ok(&run(&[
        "run",
        "-c",
        "1",
        "-n",
        "200",
        &format!("http://{}/", t.addr),
        "-o",
        ramp.to_str().unwrap(),
    ]));
    let ramp = ramp.with_extension("json");
    let text = ok(&run(&["compare", ramp.to_str().unwrap(), &first, &second]));
    // The ramp table (a single step has no peak: its column is plain "qps").
    assert!(
        text.lines()
            .next()
            .unwrap()
            .split_whitespace()
            .take(3)
            .eq(["run", "qps", "at"])
            && text.contains("\nramp "),
        "{text}"
    );
    assert!(
        text.contains("first, second are suites: compared phase by phase below"),
        "{text}"
    );
    assert!(
        text.contains("Phase by phase (ratios in parentheses are to first):"),
        "{text}"
    );
    // Beside a ramp, the charts are the ramp's alone.
    ok(&run(&[
        "compare",
        ramp.to_str().unwrap(),
        &first,
        &second,
        "-o",
        page.to_str().unwrap(),
        "--svg",
    ]));
    let drawn = svgs(&dir);
    assert!(!drawn.is_empty(), "the ramp's charts");
    for name in drawn {
        let svg = std::fs::read_to_string(dir.path(&name)).unwrap();
        assert!(!svg.contains(">first<"), "{name} draws a suite: {svg}");
    }
}
