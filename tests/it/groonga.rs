//! Real Groonga: the tutorial's whole chain (terms from a real select, patterns planned
//! for a 50% hit rate, a ramp with the Groonga probe), and keep-alive against
//! groonga-httpd versus the built-in server (seed 002), and the built-in server's
//! socket race counted as the errors it causes.

use crate::util::*;

const TEMPLATE: &str = "/d/select?command_version=2&table=Pages&limit=10&match_columns=title,text&output_columns=snippet_html(title),snippet_html(text),categories,_key&query_flags=NONE&sortby=title&drilldown=categories&drilldown_limit=10&drilldown_output_columns=_id,_key,_nsubrecs&drilldown_sortby=_nsubrecs&query={term}";

#[test]
fn tutorial_chain_lands_near_the_planned_hit_rate() {
    if !have("groonga") {
        return;
    }
    let dir = TempDir::new("groonga-chain");
    let db = groonga_db(&dir, 600);
    let g = groonga_http(&db);

    // Terms from a real select, as drnbench-extract-searchterms would take them.
    let select = format!(
        "http://127.0.0.1:{}/d/select?command_version=2&table=Pages&limit=300&output_columns=title",
        g.port
    );
    let terms = ok(&run(&["terms", "--url", &select, "--escape"]));
    assert_eq!(terms.lines().count(), 300, "{terms}");
    let terms_file = dir.write("terms.txt", &terms);

    // 200 unique requests for a 50% hit rate with Groonga's 100-entry cache.
    let out = hakaru()
        .args([
            "patterns",
            "--template",
            TEMPLATE,
            "--cache-hit-rate",
            "0.5",
            "--cache-size",
            "100",
        ])
        .arg(&terms_file)
        .output()
        .unwrap();
    let patterns = ok(&out);
    assert_eq!(patterns.lines().count(), 200);
    assert!(
        stderr(&out).contains("200"),
        "the plan is explained: {}",
        stderr(&out)
    );
    let patterns_file = dir.write("patterns.txt", &patterns);

    let csv = dir.path("result.csv");
    ok(&run(&[
        "ramp",
        "--start-n-clients=0",
        "--end-n-clients=4",
        "--step=2",
        "--duration=1.5",
        "--interval=0",
        "--warmup=1",
        &format!("--request-patterns-file={}", patterns_file.display()),
        "--default-hosts=127.0.0.1",
        &format!("--default-port={}", g.port),
        "--probe=groonga",
        "--expect-cache-hit-rate=0.5",
        "--probe-pid",
        &g.child.id().to_string(),
        &format!("--output-path={}", csv.display()),
    ]));
    let (h, rows) = read_csv(&csv);
    assert_eq!(rows.len(), 3);
    // When a request fails, the JSON beside the CSV says what kind of failure it was.
    let why = || {
        let v = read_json(&csv.with_extension("json"));
        let steps = v["steps"].as_array().cloned().unwrap_or_default();
        steps
            .iter()
            .map(|s| format!("{} {}", s["errors"], s["error_samples"]))
            .collect::<Vec<_>>()
    };
    // A step's hit rate is judged where it means the plan: over enough requests
    // (an idle machine sends ~900 a step; 300 keep the binomial noise under 0.03).
    // Each step draws its own requests (they once replayed the step before's and hit
    // 0.77 after a short step: `short_ramp_steps_draw_anew_and_hit_as_planned`).
    let requests: Vec<f64> = rows
        .iter()
        .map(|r| col(&h, r, "total_n_requests"))
        .collect();
    let mut judged = 0;
    for (i, r) in rows.iter().enumerate() {
        // Groonga's built-in server now and then answers down another request's
        // socket (see `groonga_socket_race_is_counted_as_reset_and_unsolicited`):
        // a rare `reset` and `unsolicited`, judged from the JSON below.
        assert!(
            col(&h, r, "200") >= 99.0,
            "every response but Groonga's rare misdelivery is a 200: {r:?}; errors by step: {:?}",
            why()
        );
        if requests[i] < 300.0 {
            continue;
        }
        judged += 1;
        let rate = col(&h, r, "cache_hit_rate");
        assert!(
            (rate - 0.5).abs() < 0.1,
            "measured hit rate {rate} over {} requests is not near the planned 0.5",
            requests[i]
        );
    }
    assert!(judged > 0, "no step sent 300 requests: {requests:?}");
    let v = read_json(&dir.path("result.json"));
    for s in v["steps"].as_array().unwrap() {
        assert_only_socket_race_errors(s, 0.01);
    }
    assert_eq!(v["settings"]["planned_cache_hit_rate"], 0.5);
    assert!(v["steps"][0]["server_process"]["cpu_s"].as_f64().unwrap() > 0.0);
}

/// The errors Groonga's socket race leaves (see
/// `groonga_socket_race_is_counted_as_reset_and_unsolicited`), and only those: a
/// request whose socket another worker closed (`reset`), a new connection that got a
/// stray answer before its request was written (`unsolicited`), or one left open and
/// unread (`timeout`). Every response is a 200, every request is a response or one
/// error, and at most `max_share` of them failed. Returns how many failed.
fn assert_only_socket_race_errors(step: &serde_json::Value, max_share: f64) -> u64 {
    let errors = step["errors"].as_object().cloned().unwrap_or_default();
    assert!(
        errors
            .keys()
            .all(|k| ["reset", "unsolicited", "timeout"].contains(&k.as_str())),
        "errors other than Groonga's socket race: {}",
        step["errors"]
    );
    let failed: u64 = errors.values().filter_map(|n| n.as_u64()).sum();
    let responses = step["responses"].as_u64().unwrap();
    let total = step["total_requests"].as_u64().unwrap();
    assert_eq!(
        step["statuses"]["200"].as_u64().unwrap_or(0),
        responses,
        "every response is a 200: {}",
        step["statuses"]
    );
    assert_eq!(
        responses + failed,
        total,
        "every request is a response or one error: {}",
        step["errors"]
    );
    assert!(
        failed as f64 <= max_share * total as f64,
        "{failed} of {total} requests failed: {}",
        step["errors"]
    );
    failed
}

/// Groonga's built-in server (13.0, and its master of 2026-07) gives a request's
/// message back to the event loop before it reads from it which socket to close
/// (`do_htreq` in src/groonga.c: `grn_msg_close(ctx, msg)`, then
/// `grn_sock_close(msg->u.fd)`). When the loop has meanwhile reused the message for
/// the next request, the worker closes that request's socket instead of its own: the
/// request is dropped unanswered (`reset`), its descriptor number goes to the next
/// connection, and the answer it was owed arrives there, before that connection's
/// request is written (`unsolicited`) or after it, as its answer (a wrong answer no
/// framing can tell). On a loaded machine the tutorial chain hit it about one run in
/// five (`{"reset":1,"unsolicited":1}`); here a millisecond's sleep put into that
/// window (LD_PRELOAD) hits it dozens of times a second, and Groonga's log says
/// `Bad file descriptor: sendmsg`. hakaru counts the dropped request and the stray
/// answer each as the error it is and loses no request (a stray answer that comes
/// after the request was written passes as its answer, as with any client). Nothing
/// is retried, as Go's net/http and curl would not: every connection was fresh, and a
/// server that hangs up on a fresh one is the thing measured.
#[test]
fn groonga_socket_race_is_counted_as_reset_and_unsolicited() {
    if !have("groonga") || !have("cc") {
        return;
    }
    let dir = TempDir::new("groonga-race");
    let shim = dir.write(
        "race.c",
        "#define _GNU_SOURCE\n#include <dlfcn.h>\n#include <time.h>\n\
         int grn_msg_close(void *ctx, void *msg) {\n\
           static int (*real)(void *, void *);\n\
           if (!real) real = (int (*)(void *, void *))dlsym(RTLD_NEXT, \"grn_msg_close\");\n\
           int rc = real(ctx, msg);\n\
           struct timespec ms = {0, 1000000};\n\
           nanosleep(&ms, 0);\n\
           return rc;\n\
         }\n",
    );
    let so = dir.path("race.so");
    let built = std::process::Command::new("cc")
        .args(["-shared", "-fPIC", "-O2", "-o"])
        .arg(&so)
        .arg(&shim)
        .arg("-ldl")
        .status()
        .unwrap();
    assert!(built.success(), "cc could not build the shim");
    let db = groonga_db(&dir, 600);
    let g = groonga_http_env(&db, &[("LD_PRELOAD", so.as_os_str())]);
    let patterns = half_hit_patterns(&dir);
    let csv = dir.path("race.csv");
    ok(&run(&[
        "ramp",
        "--start-n-clients=8",
        "--end-n-clients=8",
        "--step=1",
        "--duration=1.5",
        "--interval=0",
        "--timeout=5s",
        &format!("--request-patterns-file={}", patterns.display()),
        "--default-hosts=127.0.0.1",
        &format!("--default-port={}", g.port),
        &format!("--output-path={}", csv.display()),
    ]));
    let v = read_json(&csv.with_extension("json"));
    let step = strip_refused_after_the_race_closed_groonga(&v["steps"][0], g.port);
    let failed = assert_only_socket_race_errors(&step, 0.2);
    let log = std::fs::read_to_string(g.dir.path("groonga.log")).unwrap_or_default();
    assert!(
        failed > 0,
        "the widened window was never hit ({} sends to a closed socket in Groonga's log): {}",
        log.matches("Bad file descriptor").count(),
        v["steps"][0]
    );
}

/// The step without its `connect` errors when the race has closed Groonga's own
/// listening socket (or ended it): once in a few dozen runs on a loaded machine the
/// descriptor a worker closes by mistake is the listener's, every connection after
/// it is refused, and hakaru counts each as `connect` (seen: `{"connect":1060,
/// "reset":13}`). Allowed only when a connection of the test's own is refused too,
/// so a `connect` error while Groonga still accepts fails the test as before.
fn strip_refused_after_the_race_closed_groonga(
    step: &serde_json::Value,
    port: u16,
) -> serde_json::Value {
    let mut step = step.clone();
    let Some(refused) = step["errors"]["connect"].as_u64() else {
        return step;
    };
    assert!(
        std::net::TcpStream::connect(("127.0.0.1", port)).is_err(),
        "{refused} connect errors while Groonga still accepts connections: {}",
        step["errors"]
    );
    step["errors"].as_object_mut().unwrap().remove("connect");
    let total = step["total_requests"].as_u64().unwrap();
    step["total_requests"] = (total - refused).into();
    step
}

/// The flake the strip above mends: `connect` errors pass only once the port
/// refuses; while something still listens there they fail the test.
#[test]
fn refused_connects_pass_only_when_the_port_refuses() {
    let step = serde_json::json!({
        "errors": {"connect": 1060, "reset": 13},
        "total_requests": 1500,
    });
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let still =
        std::panic::catch_unwind(|| strip_refused_after_the_race_closed_groonga(&step, port));
    assert!(
        still.is_err(),
        "connect errors passed while the port accepts"
    );
    drop(listener);
    let stripped = strip_refused_after_the_race_closed_groonga(&step, port);
    assert_eq!(stripped["errors"], serde_json::json!({"reset": 13}));
    assert_eq!(stripped["total_requests"], 440);
}

/// 200 distinct selects, drawn uniformly: 50% hits on Groonga's 100-entry cache.
fn half_hit_patterns(dir: &TempDir) -> std::path::PathBuf {
    let lines: String = (0..200)
        .map(|i| TEMPLATE.replace("{term}", &format!("page{i}")) + "\n")
        .collect();
    dir.write("patterns.txt", &lines)
}

/// Each step's own hit rate, from the Groonga probe's before/after difference.
fn hit_rates(csv: &std::path::Path) -> Vec<f64> {
    let (h, rows) = read_csv(csv);
    rows.iter().map(|r| col(&h, r, "cache_hit_rate")).collect()
}

/// The bug: every step's client k was seeded by the run's seed and k alone, so each
/// step of a ramp sent exactly the requests the step before had sent; a short step's
/// were all among Groonga's last 100 answers and hit (0.77 measured against a planned
/// 0.5; here, one client and 100 requests a step, it would be ~1.0). Each step now
/// draws its own: six short steps after a warm-up hit as the plan says.
#[test]
fn short_ramp_steps_draw_anew_and_hit_as_planned() {
    if !have("groonga") {
        return;
    }
    let dir = TempDir::new("groonga-draws");
    let db = groonga_db(&dir, 600);
    let g = groonga_http(&db);
    let patterns = half_hit_patterns(&dir);
    let csv = dir.path("ramp.csv");
    // One client, 100 requests a step (400/s for 0.25 s): the replay hit every one.
    ok(&run(&[
        "ramp",
        "--rate=400,400,400,400,400,400",
        "--end-n-clients=1",
        "--duration=0.25",
        "--interval=0",
        "--warmup=1",
        "--seed=7",
        &format!("--request-patterns-file={}", patterns.display()),
        "--default-hosts=127.0.0.1",
        &format!("--default-port={}", g.port),
        "--probe=groonga",
        &format!("--output-path={}", csv.display()),
    ]));
    let rates = hit_rates(&csv);
    assert_eq!(rates.len(), 6, "{rates:?}");
    // Binomial over ~100 requests a step: sd 0.05, so 0.8 is six of them away; the
    // mean of six steps (sd 0.02) stays within 0.15 of the plan.
    for r in &rates {
        assert!(
            *r < 0.8,
            "a step replayed the one before: hit rates {rates:?}"
        );
    }
    let mean = rates.iter().sum::<f64>() / rates.len() as f64;
    assert!(
        (mean - 0.5).abs() < 0.15,
        "mean hit rate {mean} is not the planned 0.5: {rates:?}"
    );
}

/// The selects Groonga logged, in the order it received them.
fn selects(g: &Server) -> Vec<String> {
    let log = std::fs::read_to_string(g.dir.path("query.log")).unwrap_or_default();
    log.lines()
        .filter_map(|l| l.split_once("|>").map(|(_, q)| q.to_owned()))
        .filter(|q| q.starts_with("/d/select"))
        .collect()
}

/// Rounds replay and steps do not: `--rounds` (Sekka's cold, warm and cleared
/// measurements) must send the same requests in every round, so a round's draw is its
/// step's place in the round, not its number in the run. Round 2's 100 selects are
/// round 1's, in order, as Groonga logged them (and all hit, being its last answers);
/// the same `--seed` sends the same again.
#[test]
fn rounds_replay_their_first_round_request_for_request() {
    if !have("groonga") {
        return;
    }
    let dir = TempDir::new("groonga-rounds");
    let db = groonga_db(&dir, 600);
    let g = groonga_http(&db);
    let patterns = half_hit_patterns(&dir);
    let csv = dir.path("rounds.csv");
    // Groonga serves nothing from its cache in the second its database was last
    // written (here, just now): every select misses until the next second begins.
    std::thread::sleep(std::time::Duration::from_millis(1100));
    let rounds = |seed: &str| {
        ok(&run(&[
            "run",
            "-c=1",
            "-n=100",
            "--rounds=2",
            &format!("--seed={seed}"),
            &format!("--request-patterns-file={}", patterns.display()),
            "--default-hosts=127.0.0.1",
            &format!("--default-port={}", g.port),
            "--probe=groonga",
            &format!("--output-path={}", csv.display()),
        ]))
    };
    rounds("7");
    let first = selects(&g);
    assert_eq!(first.len(), 200, "two rounds of 100 selects");
    assert_eq!(first[..100], first[100..], "round 2 replays round 1");
    let rates = hit_rates(&csv);
    // Groonga's percentage, back to a count: 1.0 but for its rounding.
    assert!(
        rates[1] > 0.99,
        "round 2's selects were Groonga's last answers: {rates:?}"
    );
    rounds("7");
    assert_eq!(
        selects(&g)[200..],
        first[..],
        "the same --seed, the same requests"
    );
    rounds("8");
    assert_ne!(
        selects(&g)[400..500],
        first[..100],
        "another seed, another draw"
    );
}

#[test]
fn keep_alive_with_groonga_httpd_and_without_with_groonga() {
    if !have("groonga") || !have("groonga-httpd") {
        return;
    }
    let dir = TempDir::new("groonga-ka");
    let db = groonga_db(&dir, 10);
    {
        let httpd = groonga_httpd(&db);
        let url = format!("http://127.0.0.1:{}/d/status", httpd.port);
        let ka = dir.path("ka.json");
        ok(&run(&[
            "run",
            "-c",
            "4",
            "-n",
            "2000",
            "-k",
            &url,
            "-o",
            ka.to_str().unwrap(),
        ]));
        let v = read_json(&ka);
        assert_eq!(v["steps"][0]["statuses"]["200"], 2000);
        assert_eq!(v["steps"][0]["connections_opened"], 4);
        let no = dir.path("no.json");
        ok(&run(&[
            "run",
            "-c",
            "4",
            "-n",
            "500",
            "--no-keep-alive",
            &url,
            "-o",
            no.to_str().unwrap(),
        ]));
        assert_eq!(read_json(&no)["steps"][0]["connections_opened"], 500);
    }
    // The built-in server closes every connection: hakaru reconnects and says so.
    let g = groonga_http(&db);
    let json = dir.path("builtin.json");
    let out = ok(&run(&[
        "run",
        "-c",
        "4",
        "-n",
        "500",
        "-k",
        &format!("http://127.0.0.1:{}/d/status", g.port),
        "-o",
        json.to_str().unwrap(),
    ]));
    let v = read_json(&json);
    // Every request a 200 but for Groonga's rare socket race, each on its own connection.
    assert_only_socket_race_errors(&v["steps"][0], 0.01);
    assert_eq!(v["steps"][0]["total_requests"], 500);
    assert_eq!(v["steps"][0]["connections_opened"], 500);
    assert!(out.contains("keep-alive did not happen"), "{out}");
}
