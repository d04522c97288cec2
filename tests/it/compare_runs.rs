//! `hakaru compare` says only what the runs measured (issue 35 item 2): real short
//! runs against the embedded target's `/work?ms=` (a fixed pool of workers, its
//! capacity known), then `compare` on their results. Two fixed-rate runs never compare
//! as capacity, single steps at different clients claim no level-off or latency ratio,
//! a ramp beside a fixed-rate run (or a rate profile) is warned of as another load
//! model, two runs of one profile compare whole — in the terminal, the Markdown and
//! the page (written by default beside the first result), where a one-point series
//! is drawn. Words and shapes only, never time.

use crate::util::{hakaru_serve, ok, run, Server, TempDir};

/// `hakaru serve --workers 2`: `/work?ms=MS` answers at most 2000/MS per second.
fn work_server() -> Server {
    hakaru_serve(&["--threads", "2", "--workers", "2"], "compare-runs")
}

/// `hakaru run ARGS… URL -o NAME.csv` for one second; the JSON result's path.
fn one_step(dir: &TempDir, name: &str, args: &[&str], url: &str) -> String {
    let csv = dir.path(&format!("{name}.csv"));
    let mut all = vec!["run", "-d", "1s", "-q"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["-o", csv.to_str().unwrap(), url]);
    ok(&run(&all));
    csv.with_extension("json").to_str().unwrap().to_owned()
}

/// The terminal, the Markdown file and the default page of `compare A B`, and the
/// page's path (`compare-A-B.html` beside A).
fn compared(dir: &TempDir, a: &str, b: &str) -> (String, String, String) {
    let md = dir.path("compare.md");
    let text = ok(&run(&["compare", a, b, "--markdown", md.to_str().unwrap()]));
    let md = std::fs::read_to_string(md).unwrap();
    let stem = |p: &str| {
        std::path::Path::new(p)
            .file_stem()
            .unwrap()
            .to_string_lossy()
            .into_owned()
    };
    let page = dir.path(&format!("compare-{}-{}.html", stem(a), stem(b)));
    let html = std::fs::read_to_string(&page)
        .unwrap_or_else(|e| panic!("the page by default at {}: {e}", page.display()));
    (text, md, html)
}

/// Claims the runs cannot support: a capacity from chosen rates, a level-off or a
/// latency ratio at a load one side never measured.
fn assert_no_unsupported_claim(all: &str) {
    for claim in [
        " holds ",
        "× a's peak",
        "peak qps (",
        "levels off",
        "-client latency",
    ] {
        assert!(!all.contains(claim), "{claim:?} in: {all}");
    }
}

/// Regression (issue 35): two fixed-rate runs compared said "holds 6.0× peak qps",
/// only the ratio of the rates chosen.
#[test]
fn fixed_rate_runs_compared_claim_no_peak_qps() {
    let _t = crate::util::timed();
    let server = work_server();
    let dir = TempDir::new("compare-fixed");
    let url = |ms: u32| format!("http://127.0.0.1:{}/work?ms={ms}", server.port);
    let a = one_step(&dir, "a", &["-c", "4", "--rate", "50"], &url(1));
    let b = one_step(&dir, "b", &["-c", "4", "--rate", "300"], &url(1));
    let (text, md, html) = compared(&dir, &a, &b);
    let all = format!("{text}\n{md}\n{html}");
    assert_no_unsupported_claim(&all);
    let said = "a was offered 50 requests/s, b 300 requests/s: a fixed rate's throughput \
                is the rate chosen, not what the server can hold, so no ratio is drawn";
    assert!(text.contains(said), "{text}");
    assert!(md.contains(said), "{md}");
    assert!(html.contains(&said.replace('\'', "&#39;")), "{html}");
    // The table says where each figure was measured: at the rate offered.
    assert!(text.contains("50/s") && text.contains("300/s"), "{text}");
    // The same rate offered to two endpoints: answered against offered, there.
    let c = one_step(&dir, "c", &["-c", "4", "--rate", "100"], &url(1));
    let d = one_step(&dir, "d", &["-c", "4", "--rate", "100"], &url(4));
    let (text, md, html) = compared(&dir, &c, &d);
    assert_no_unsupported_claim(&format!("{text}\n{md}\n{html}"));
    for out in [&text, &md] {
        assert!(
            out.contains("Both were offered 100 requests/s: c answered "),
            "{out}"
        );
        assert!(out.contains(", d answered "), "{out}");
        assert!(out.contains("d's p99 there is "), "{out}");
    }
    assert!(html.contains("Both were offered 100 requests/s"), "{html}");
}

/// Regression (issue 35): two single-step runs said "levels off at 20 clients (nginx:
/// 50)" and "its 20-client latency is 5.7×" where one side never ran 20 clients.
#[test]
fn single_steps_at_different_clients_claim_no_level_off_or_latency_ratio() {
    let _t = crate::util::timed();
    let server = work_server();
    let dir = TempDir::new("compare-steps");
    let url = format!("http://127.0.0.1:{}/work?ms=2", server.port);
    let a = one_step(&dir, "a", &["-c", "2"], &url);
    let b = one_step(&dir, "b", &["-c", "5"], &url);
    let (text, md, html) = compared(&dir, &a, &b);
    let all = format!("{text}\n{md}\n{html}");
    assert_no_unsupported_claim(&all);
    let said = "a was measured at 2 clients, b at 5 clients: with no load in common \
                neither throughput nor latency compares, so no ratio is drawn";
    assert!(text.contains(said) && md.contains(said), "{text}\n{md}");
    assert!(html.contains(said), "{html}");
    // One step each: every line of the page's charts has one point, drawn as a ring
    // where it has no marker of its own (the p99 lines), never as an invisible line.
    assert!(html.contains("<circle class=\"one-point\""), "{html}");
    // At the same clients, the figures there, said as such.
    let c = one_step(&dir, "c", &["-c", "2"], &url);
    let (text, ..) = compared(&dir, &a, &c);
    assert!(text.contains("At 2 clients, c answered "), "{text}");
    assert!(
        !text.contains("levels off") && !text.contains(" holds "),
        "{text}"
    );
}

/// A client ramp beside a fixed-rate run: another load model, warned of everywhere,
/// and no ratio drawn between them.
#[test]
fn a_ramp_beside_a_fixed_rate_run_is_warned_of_as_another_load_model() {
    let _t = crate::util::timed();
    let server = work_server();
    let dir = TempDir::new("compare-models");
    let url = format!("http://127.0.0.1:{}/work?ms=2", server.port);
    let ramp = dir.path("ramp.csv");
    ok(&run(&[
        "ramp",
        "--start-n-clients",
        "1",
        "--end-n-clients",
        "4",
        "--step",
        "1",
        "--duration",
        "500ms",
        "--interval",
        "0",
        "-q",
        "-o",
        ramp.to_str().unwrap(),
        &url,
    ]));
    let ramp = ramp.with_extension("json").to_str().unwrap().to_owned();
    let rate = one_step(&dir, "rate", &["-c", "4", "--rate", "200"], &url);
    let (text, md, html) = compared(&dir, &ramp, &rate);
    assert_no_unsupported_claim(&format!("{text}\n{md}\n{html}"));
    let warning = "these runs differ in load model (ramp closed, by clients, rate open, at \
                   fixed rates)";
    assert!(text.contains(&format!("warning: {warning}")), "{text}");
    assert!(md.contains(&format!("> **Warning:** {warning}")), "{md}");
    assert!(
        html.contains(&format!("<strong>Warning:</strong> {warning}")),
        "{html}"
    );
    let said = "rate (open, at fixed rates) and ramp (closed, by clients) offered their load \
                differently, so no throughput or latency ratio is drawn between them.";
    assert!(text.contains(said) && md.contains(said), "{text}\n{md}");
}

/// Two runs of one rate profile compare whole; a profile beside a fixed rate is
/// another load model.
#[test]
fn runs_of_one_rate_profile_compare_whole() {
    let _t = crate::util::timed();
    let server = work_server();
    let dir = TempDir::new("compare-profiles");
    let url = |ms: u32| format!("http://127.0.0.1:{}/work?ms={ms}", server.port);
    let profile = |name: &str, ms: u32| {
        let csv = dir.path(&format!("{name}.csv"));
        let args = ["run", "-q", "-c", "4", "--rate", "1s@50,1s@100", "-o"];
        let mut all = args.to_vec();
        let (csv_s, u) = (csv.to_str().unwrap().to_owned(), url(ms));
        all.extend_from_slice(&[&csv_s, &u]);
        ok(&run(&all));
        csv.with_extension("json").to_str().unwrap().to_owned()
    };
    let a = profile("a", 1);
    let b = profile("b", 3);
    let (text, md, html) = compared(&dir, &a, &b);
    assert_no_unsupported_claim(&format!("{text}\n{md}\n{html}"));
    for out in [&text, &md] {
        assert!(
            out.contains("Both ran the rate profile 1s@50, 1s@100: a answered "),
            "{out}"
        );
    }
    let flat = one_step(&dir, "flat", &["-c", "4", "--rate", "75"], &url(1));
    let (text, ..) = compared(&dir, &flat, &a);
    assert!(
        text.contains("warning: these runs differ in load model (flat open, at fixed rates, a open, on a rate profile)"),
        "{text}"
    );
    assert_no_unsupported_claim(&text);
}
