//! A suite's phases each with their own connection and preparation (issues 21 and
//! 22): `http2`/`streams` and `pipeline` per phase, against `serve --http2` and a
//! real redis-server (counts from its `INFO commandstats`), and a phase's `before`
//! command against a real memcached (`flush_all`, and the misses it causes); `bulk
//! --before-step` recorded per step.

use serde_json::Value;

use crate::kv::{calls, mc_stats, memcached, redis, redis_info};
use crate::util::{ok, read_json, run, stderr, TempDir};
use hakaru::server::basic::start_basic;
use hakaru::server::listen::ServerOptions;

fn n(v: &Value) -> u64 {
    v.as_u64().unwrap_or(0)
}

/// `hakaru suite FILE -o DIR/r.csv -q`: its output and the JSON result.
fn suite(dir: &TempDir, text: &str) -> (std::process::Output, Value) {
    let file = dir.write("s.toml", text);
    let out = dir.path("r.csv");
    let _ = std::fs::remove_file(dir.path("r.json"));
    let o = run(&[
        "suite",
        file.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "-q",
    ]);
    let json = dir.path("r.json");
    let v = if json.exists() {
        read_json(&json)
    } else {
        Value::Null
    };
    (o, v)
}

/// One phase over HTTP/2 (the phase's `http2` and `streams`) against `serve --http2`
/// (which speaks h2c only), the next over HTTP/1.1 (the scenario's default) against a
/// plain target: each step's connections are of its own phase's protocol.
#[test]
fn each_phase_speaks_its_own_protocol() {
    let server = start_basic(
        "127.0.0.1:0".parse().unwrap(),
        ServerOptions {
            threads: 1,
            http2: true,
            keep_alive: true,
        },
    )
    .expect("the HTTP/2 target starts");
    let plain = crate::util::target();
    let dir = TempDir::new("suite-phase-h2");
    let (o, v) = suite(
        &dir,
        &format!(
            "threads = 1\n\
             [[phase]]\nname = \"h2\"\nduration = \"1s\"\nclients = 6\nhttp2 = true\nstreams = 3\n\
             [[phase.workload]]\nurl = \"http://{a}/\"\n\
             [[phase]]\nname = \"h1\"\nduration = \"1s\"\nclients = 4\n\
             [[phase.workload]]\nurl = \"http://{p}/\"\n",
            a = server.addr,
            p = plain.addr
        ),
    );
    let text = ok(&o);
    let steps = v["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 2, "{text}");
    // 6 clients, 3 streams a connection: 2 connections, both HTTP/2.
    assert_eq!(n(&steps[0]["connections_http2"]), 2, "{}", steps[0]);
    assert_eq!(n(&steps[0]["connections_opened"]), 2, "{}", steps[0]);
    // 4 clients on HTTP/1.1 keep-alive: one connection each, none HTTP/2.
    assert_eq!(n(&steps[1]["connections_http2"]), 0, "{}", steps[1]);
    assert_eq!(n(&steps[1]["connections_opened"]), 4, "{}", steps[1]);
    for s in steps {
        assert_eq!(s["errors"], serde_json::json!({}), "{s}");
        assert!(n(&s["statuses"]["200"]) > 50, "{s}");
    }
    // Each phase's own streams are recorded and said (the run's settings named only
    // the first workload's).
    let phases = v["suite"]["phases"].as_array().unwrap();
    assert_eq!(phases[0]["http2_streams"], 3, "{}", phases[0]);
    assert!(phases[1].get("http2_streams").is_none(), "{}", phases[1]);
    assert!(
        text.contains("  h2               HTTP/2, 3 streams per connection\n")
            && text.contains("  h1               one request at a time per connection\n"),
        "{text}"
    );

    // The other way round: the scenario's HTTP/2, a phase's `http2 = false`.
    let (o, v) = suite(
        &dir,
        &format!(
            "threads = 1\nhttp2 = true\nstreams = 2\n\
             [[phase]]\nname = \"h2\"\nduration = \"1s\"\nclients = 4\n\
             [[phase.workload]]\nurl = \"http://{a}/\"\n\
             [[phase]]\nname = \"h1\"\nduration = \"1s\"\nclients = 3\nhttp2 = false\n\
             [[phase.workload]]\nurl = \"http://{p}/\"\n",
            a = server.addr,
            p = plain.addr
        ),
    );
    ok(&o);
    assert_eq!(v["suite"]["phases"][0]["http2_streams"], 2);
    assert!(v["suite"]["phases"][1].get("http2_streams").is_none());
    let steps = v["steps"].as_array().unwrap();
    assert_eq!(n(&steps[0]["connections_http2"]), 2, "{}", steps[0]);
    assert_eq!(n(&steps[1]["connections_http2"]), 0, "{}", steps[1]);
    assert_eq!(n(&steps[1]["connections_opened"]), 3, "{}", steps[1]);
}

/// Bad combinations are refused before any load as `file:line:key`, and unknown
/// keys still are.
#[test]
fn bad_phase_connections_and_commands_are_refused_with_file_line_and_key() {
    let server = crate::util::target();
    let dir = TempDir::new("suite-phase-bad");
    let phase = |keys: &str, url: &str| {
        format!(
            "[[phase]]\nname = \"p\"\nduration = \"1s\"\nclients = 2\n{keys}\n\
             [[phase.workload]]\nurl = \"{url}\"\n"
        )
    };
    let http = format!("http://{}/", server.addr);
    let store = "redis://127.0.0.1:1";
    for (text, says) in [
        (
            phase("streams = 2", &http),
            ":5: key `streams`: needs `http2 = true`",
        ),
        (
            phase("http2 = true\nstreams = 0", &http),
            ":6: key `streams`: 0 is not in 1..=10000",
        ),
        (
            phase("http2 = true", store),
            ":5: key `http2`: phase \"p\": redis://127.0.0.1:1 speaks its own protocol",
        ),
        (
            phase("pipeline = 4", &http),
            ":5: key `pipeline`: phase \"p\": http://",
        ),
        (
            phase("pipeline = 2000", store),
            ":5: key `pipeline`: 2000 is not in 1..=1024",
        ),
        (
            format!("http2 = true\n{}", phase("pipeline = 4", &http)),
            ":6: key `pipeline`: phase \"p\" speaks HTTP/2",
        ),
        (
            phase("http2s = true", &http),
            ":5: key `http2s`: unknown field `http2s`",
        ),
        (
            phase("before = \" \"", &http),
            ":5: key `before`: the command is empty",
        ),
        (
            phase("before_may_fail = true", &http),
            ":5: key `before_may_fail`: applies to `before`",
        ),
        (
            phase("before = \"true\"\nbefore_timeout = \"0s\"", &http),
            ":6: key `before_timeout`: must be positive",
        ),
    ] {
        let file = dir.write("s.toml", &text);
        let out = run(&["suite", file.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(2), "{text}\n{}", stderr(&out));
        let e = stderr(&out);
        assert!(
            e.contains(&format!("{}{says}", file.display())),
            "{text}\n{e}"
        );
    }
    // A pipeline over TLS is refused as `run --pipeline` refuses it, a `url`
    // workload's and a YCSB workload's, the password not shown. (A password or a
    // database alone was refused too until the pipelined connection learnt to log in:
    // the merge of the two changes left the suite refusing what `run` accepts.)
    let ycsb = "[[phase]]\nname = \"y\"\nduration = \"1s\"\nclients = 2\npipeline = 4\n\
                [[phase.workload]]\nycsb = { url = \"rediss://:pw@127.0.0.1:1\", workload = \"c\" }\n";
    for text in [
        phase("pipeline = 4", "rediss://:pw@127.0.0.1:1"),
        ycsb.to_string(),
    ] {
        let file = dir.write("s.toml", &text);
        let out = run(&["suite", file.to_str().unwrap()]);
        let e = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{e}");
        assert!(
            e.contains("pipeline with rediss://") && !e.contains("pw@"),
            "{e}"
        );
    }
    assert_eq!(server.stats.requests(), 0, "nothing was sent");
}

/// `pipeline = 16` for the scenario, and a phase's own `pipeline = 1`, against a real
/// redis: the YCSB load's inserts are exactly redis's own EVALs, on 32 / 16 = 2
/// connections; the unpipelined phase opens one connection per client.
#[test]
fn a_suite_pipelines_its_store_phases_as_run_does() {
    let Some(r) = redis(&[]) else { return };
    let dir = TempDir::new("suite-phase-pipeline");
    let url = format!("redis://127.0.0.1:{}", r.port);
    let (o, v) = suite(
        &dir,
        &format!(
            "threads = 2\ntimeout = \"10s\"\npipeline = 16\n\
             [[phase]]\nname = \"load\"\nduration = \"60s\"\nclients = 32\n\
             [[phase.workload]]\nycsb = {{ url = \"{url}\", workload = \"load\", records = 3000 }}\n\
             [[phase]]\nname = \"plain\"\nduration = \"1s\"\nclients = 4\npipeline = 1\n\
             [[phase.workload]]\nurl = \"{url}\"\n"
        ),
    );
    let text = ok(&o);
    let steps = v["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 2, "{text}");
    let (load, plain) = (&steps[0], &steps[1]);
    assert_eq!(load["operations"]["insert"], 3000, "{load}");
    assert_eq!(n(&load["responses"]), 3000, "{load}");
    assert_eq!(load["errors"], serde_json::json!({}), "{load}");
    assert_eq!(n(&load["connections_opened"]), 2, "{load}");
    assert_eq!(n(&plain["connections_opened"]), 4, "{plain}");
    assert_eq!(plain["errors"], serde_json::json!({}), "{plain}");
    assert_eq!(v["suite"]["phases"][0]["pipeline"], 16);
    assert_eq!(v["suite"]["phases"][1]["pipeline"], 1);
    assert!(
        text.contains("  load             16 commands in flight per connection\n")
            && text.contains("  plain            one command at a time per connection\n"),
        "{text}"
    );
    let info = redis_info(r.port, "commandstats", None);
    assert_eq!(calls(&info, "eval"), 3000, "{info:?}");
    assert_eq!(calls(&info, "zadd"), 3000, "{info:?}");
    // The plain phase's GETs and SETs: every answer counted, and at most the commands
    // cut off at its end (sent, answer unseen) besides.
    let answered = n(&plain["responses"]);
    let served = calls(&info, "get") + calls(&info, "set");
    assert!(answered > 100, "{plain}");
    assert!(
        served >= answered && served - answered <= n(&plain["unfinished"]),
        "redis {served}, answered {answered}, {plain}"
    );
}

/// A YCSB load pipelined to a Redis that wants a password, into database 5: each
/// pipelined connection logs in and selects first, as `run --pipeline` does. (The
/// suite refused this after `run` had learnt it: the two changes met in one merge.)
#[test]
fn a_suite_pipelines_to_a_redis_that_wants_a_password_and_a_database() {
    let Some(r) = redis(&["--requirepass", "s3cretpw"]) else {
        return;
    };
    let dir = TempDir::new("suite-phase-pipeline-auth");
    let url = format!("redis://:s3cretpw@127.0.0.1:{}/5", r.port);
    let (o, v) = suite(
        &dir,
        &format!(
            "threads = 1\ntimeout = \"10s\"\npipeline = 8\n\
             [[phase]]\nname = \"load\"\nduration = \"60s\"\nclients = 16\n\
             [[phase.workload]]\nycsb = {{ url = \"{url}\", workload = \"load\", records = 500 }}\n"
        ),
    );
    let text = ok(&o);
    assert!(!text.contains("s3cretpw"), "{text}");
    let load = &v["steps"][0];
    assert_eq!(n(&load["responses"]), 500, "{load}");
    assert_eq!(load["errors"], serde_json::json!({}), "{load}");
    assert_eq!(n(&load["connections_opened"]), 2, "{load}");
    let info = redis_info(r.port, "commandstats", Some("s3cretpw"));
    assert_eq!(calls(&info, "zadd"), 500, "{info:?}");
    assert_eq!(
        calls(&info, "select"),
        2,
        "one SELECT per connection: {info:?}"
    );
    let keyspace = redis_info(r.port, "keyspace", Some("s3cretpw"));
    assert!(
        keyspace.contains_key("db5") && !keyspace.contains_key("db0"),
        "{keyspace:?}"
    );
}

/// A phase's `before` flushes a real memcached: the phase before it reads every
/// record (all hits), the flushed phase misses every read; memcached counts the one
/// `flush_all`, and the command's record is in the flushed phase's step only.
#[test]
fn a_phase_s_before_command_flushes_memcached_and_its_reads_miss() {
    let Some(m) = memcached(&[]) else { return };
    let dir = TempDir::new("suite-phase-before");
    let url = format!("memcached://127.0.0.1:{}", m.port);
    // bash's /dev/tcp speaks to memcached with nothing installed; a flush answers OK.
    let flush = dir.write(
        "flush.sh",
        &format!(
            "exec 3<>/dev/tcp/127.0.0.1/{}\nprintf 'flush_all\\r\\n' >&3\nread -r line <&3\n\
             echo \"phase $HAKARU_STEP: ${{line%$'\\r'}}\" >&2\n[ \"${{line%$'\\r'}}\" = OK ]\n",
            m.port
        ),
    );
    let before = mc_stats(m.port);
    let ycsb = |w: &str| format!("ycsb = {{ url = \"{url}\", workload = \"{w}\", records = 200 }}");
    let (o, v) = suite(
        &dir,
        &format!(
            "timeout = \"10s\"\n\
             [[phase]]\nname = \"load\"\nduration = \"60s\"\nclients = 2\n[[phase.workload]]\n{}\n\
             [[phase]]\nname = \"warm\"\nduration = \"1.2s\"\nclients = 2\n[[phase.workload]]\n{}\n\
             [[phase]]\nname = \"flushed\"\nduration = \"1s\"\nclients = 2\n\
             before = \"bash '{}'\"\nbefore_timeout = \"5s\"\n[[phase.workload]]\n{}\n",
            ycsb("load"),
            ycsb("c"),
            flush.display(),
            ycsb("c"),
        ),
    );
    let text = ok(&o);
    let after = mc_stats(m.port);
    let steps = v["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 3, "{text}");
    let (warm, flushed) = (&steps[1], &steps[2]);
    assert!(warm["before_step"].is_null(), "{warm}");
    let b = &flushed["before_step"];
    assert_eq!(b["ok"], true, "{b}");
    assert_eq!(b["stderr"], "phase 3: OK", "{b}");
    assert!(b["command"].as_str().unwrap().contains("flush.sh"), "{b}");
    assert_eq!(after["cmd_flush"] - before["cmd_flush"], 1);
    // Reads: 250 a hit, 254 a miss. Warm: the load's records all there.
    let hits = |s: &Value| n(&s["statuses"]["250"]);
    let misses = |s: &Value| n(&s["statuses"]["254"]);
    assert!(hits(warm) > 50 && misses(warm) == 0, "{}", warm["statuses"]);
    assert!(
        hits(flushed) == 0 && misses(flushed) > 50,
        "{}",
        flushed["statuses"]
    );
    // memcached's own misses are the flushed phase's (and at most the reads cut off
    // at its end, sent but unanswered).
    let mc_misses = after["get_misses"] - before["get_misses"];
    assert!(
        mc_misses >= misses(flushed) && mc_misses - misses(flushed) <= n(&flushed["unfinished"]),
        "memcached {mc_misses}, hakaru {}",
        misses(flushed)
    );
}

/// A phase's failed `before` stops the scenario there (exit 1, the phase named);
/// with `before_may_fail = true` it is recorded and the phase is measured.
#[test]
fn a_failed_phase_command_stops_the_suite_unless_it_may_fail() {
    let server = crate::util::target();
    let dir = TempDir::new("suite-phase-fail");
    let text = |may: &str| {
        format!(
            "[[phase]]\nname = \"a\"\nduration = \"0.5s\"\nclients = 1\n[[phase.workload]]\nurl = \"http://{a}/\"\n\
             [[phase]]\nname = \"b\"\nduration = \"0.5s\"\nclients = 1\nbefore = \"echo no cache >&2; exit 3\"\n{may}\n\
             [[phase.workload]]\nurl = \"http://{a}/\"\n",
            a = server.addr
        )
    };
    let (o, v) = suite(&dir, &text(""));
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_eq!(v["steps"].as_array().unwrap().len(), 1);
    let why = v["stop_reason"].as_str().unwrap();
    assert!(
        why.starts_with("the `before` command of phase \"b\" failed before step 2 of round 1 (exit status 3: no cache)"),
        "{why}"
    );
    assert!(
        why.contains("before_may_fail = true records a failure"),
        "{why}"
    );
    assert_eq!(v["stopped_by_command"]["exit_code"], 3);

    let (o, v) = suite(&dir, &text("before_may_fail = true"));
    ok(&o);
    let steps = v["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 2);
    assert_eq!(steps[1]["before_step"]["ok"], false);
    assert_eq!(steps[1]["before_step"]["exit_code"], 3);
    assert!(n(&steps[1]["statuses"]["200"]) > 0, "{}", steps[1]);
}

/// `bulk --before-step`: run before each step with where it is in its environment,
/// recorded in the step; a failure stops the bulk run after the steps before it.
#[test]
fn bulk_runs_its_before_step_command_before_each_step() {
    let s = crate::docs::docs_server();
    let db = crate::docs::create_db(&s, "before");
    let dir = TempDir::new("bulk-before");
    let args = |cmd: &str| {
        vec![
            db.clone(),
            "--batch-sizes".into(),
            "10".into(),
            "--writers".into(),
            "1,2".into(),
            "--count".into(),
            "40".into(),
            "--before-step".into(),
            cmd.to_string(),
        ]
    };
    let a = args("echo step $HAKARU_STEP of $HAKARU_STEPS, $HAKARU_CLIENTS writers >&2");
    let a: Vec<&str> = a.iter().map(String::as_str).collect();
    let (o, v) = crate::bulk::bulk(&dir, &a);
    ok(&o);
    let steps = v["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 2);
    for (i, st) in steps.iter().enumerate() {
        let b = &st["before_step"];
        assert_eq!(b["ok"], true, "{b}");
        assert_eq!(
            b["stderr"],
            format!("step {} of 2, {} writers", i + 1, i + 1)
        );
        assert_eq!(st["bulk"]["docs_acknowledged"], 40);
    }
    let a = args("[ $HAKARU_STEP = 1 ] || { echo gone >&2; exit 4; }");
    let a: Vec<&str> = a.iter().map(String::as_str).collect();
    let (o, v) = crate::bulk::bulk(&dir, &a);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_eq!(v["steps"].as_array().unwrap().len(), 1);
    assert!(
        v["stop_reason"]
            .as_str()
            .unwrap()
            .contains("--before-step command failed before step 2"),
        "{}",
        v["stop_reason"]
    );
}

/// Regression: `bulk --http2 --verify` read the server's count over HTTP/1.1, which a
/// server speaking h2c only (`serve --docs --http2`) cannot answer, so the check
/// failed before the first step. It now counts over HTTP/2, before and after.
#[test]
fn bulk_verify_counts_over_http2_when_the_load_did() {
    let s = crate::util::hakaru_serve(&["--docs", "--http2", "--threads", "2"], "docs-h2-verify");
    assert_eq!(crate::h2::h2c(s.port, "PUT", "/verified").0, 201);
    let dir = TempDir::new("bulk-h2-verify");
    let db = format!("http://127.0.0.1:{}/verified", s.port);
    let (o, v) = crate::bulk::bulk(
        &dir,
        &[
            &db,
            "--http2",
            "--streams",
            "2",
            "--batch-sizes",
            "10",
            "--writers",
            "4",
            "--count",
            "300",
            "--verify",
        ],
    );
    let text = ok(&o);
    assert_eq!(v["verify"]["matches"], true, "{text}");
    assert_eq!(v["verify"]["acknowledged"], 300, "{text}");
    assert_eq!(v["verify"]["present"], 300, "{text}");
    assert_eq!(v["steps"][0]["connections_http2"], 2, "{text}");
}
