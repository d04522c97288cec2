//! `hakaru suite`: scenario files refused before any load, phases of weighted mixes
//! against the embedded target with a per-second timeline, events whose failures are
//! reported without ending the run, and recovery measured after a real stall (two
//! Groonga processes, one stopped with SIGSTOP and resumed).

use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::Value;

use crate::util::{self, ok, read_json, run, stderr, timed, TempDir};

fn steps(v: &Value) -> &Vec<Value> {
    v["steps"].as_array().expect("steps")
}

#[test]
fn a_bad_scenario_is_refused_before_any_load_with_file_line_and_key() {
    let server = util::target();
    let dir = TempDir::new("suite-bad");
    let good = format!(
        "[[phase]]\nname = \"a\"\nduration = \"1s\"\nclients = 1\n[[phase.workload]]\nurl = \"http://{}/\"\nweight = 1\n",
        server.addr
    );
    for (text, says) in [
        (good.replace("clients = 1", "clients = 1\nclient = 2"), ":5: key `client`: unknown field `client`"),
        (good.replace("weight = 1", "weight = 0"), ":7: key `weight`: must be between 1 and 1000000, found 0"),
        (
            format!("{good}[[event]]\nat = \"-1s\"\nrun = \"true\"\n"),
            ":9: key `at`: \"-1s\": negative times are refused",
        ),
        (
            format!("{good}[[phase]]\nname = \"b\"\nstart = \"0.5s\"\nduration = \"1s\"\nclients = 1\n[[phase.workload]]\nurl = \"http://{}/\"\n", server.addr),
            ":10: key `start`: 0.5s overlaps phase \"a\", which runs until 1s",
        ),
        (
            format!("{good}[[event]]\nat = \"0.5s\"\nrun = \"kill {{pid:db}}\"\n"),
            ":10: key `run`: {pid:db}: no target \"db\" in [targets]",
        ),
    ] {
        let file = dir.write("s.toml", &text);
        let out = run(&["suite", file.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
        let e = stderr(&out);
        assert!(e.contains(&format!("{}{says}", file.display())), "{e}");
    }
    assert_eq!(server.stats.requests(), 0, "nothing was sent");
}

#[test]
fn phases_mix_workloads_by_weight_and_a_failed_event_is_reported_not_fatal() {
    let a = util::target();
    let b = util::target();
    let dir = TempDir::new("suite-mix");
    let scenario = dir.write(
        "s.toml",
        &format!(
            r#"
[[phase]]
name = "warm-up"
duration = "1s"
clients = 2
[[phase.workload]]
url = "http://{a}/"

[[phase]]
name = "mix"
duration = "3s"
rate = 400
clients = 8
[[phase.workload]]
url = "http://{a}/bytes/10"
weight = 9
[[phase.workload]]
url = "http://{b}/status/200"
weight = 1

[[event]]
name = "broken"
at = "2s"
run = "echo this fault tool is missing >&2; exit 7"
"#,
            a = a.addr,
            b = b.addr
        ),
    );
    let out = dir.path("r.csv");
    let o = run(&[
        "suite",
        scenario.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    let text = ok(&o);
    assert!(
        text.contains("broken: echo this fault tool is missing"),
        "{text}"
    );
    assert!(
        text.contains("FAILED: exit status 7: this fault tool is missing"),
        "{text}"
    );
    let v = read_json(&dir.path("r.json"));
    assert_eq!(v["mode"], "suite");
    assert_eq!(v["state"], "complete");
    let steps = steps(&v);
    assert_eq!(steps.len(), 2, "the run went on after the failed event");
    let suite = &v["suite"];
    assert_eq!(suite["phases"][1]["name"], "mix");
    assert_eq!(suite["phases"][1]["workloads"][1]["weight"], 1);
    let e = &suite["events"][0];
    assert_eq!(
        (e["ok"].as_bool(), e["exit_code"].as_i64()),
        (Some(false), Some(7))
    );
    assert!(e["started_s"].as_f64().unwrap() >= 2.0);
    // Weights 9:1 over two hosts: the mix's counts say so.
    let hosts = steps[1]["per_host"].as_array().unwrap();
    let count = |addr: &std::net::SocketAddr| {
        hosts
            .iter()
            .find(|h| h["target"] == format!("http://{addr}"))
            .map_or(0, |h| h["responses"].as_u64().unwrap())
    };
    let (na, nb) = (count(&a.addr), count(&b.addr));
    assert!(na + nb > 500, "{na} + {nb}");
    let share = nb as f64 / (na + nb) as f64;
    assert!(
        (0.05..0.16).contains(&share),
        "b's share {share} is not near 1/10"
    );
    // The timeline holds every response of its step, second by second.
    for s in steps {
        let t = s["timeline"].as_array().expect("a timeline");
        let sum: u64 = t.iter().map(|x| x["responses"].as_u64().unwrap()).sum();
        assert_eq!(sum, s["responses"].as_u64().unwrap());
        assert!(t.iter().all(|x| x["histogram"].as_str().is_some()));
    }
    let html = std::fs::read_to_string(dir.path("r.html")).expect("the timeline page");
    assert!(html.contains("<svg") && html.contains("broken ✗") && html.contains(">mix<"));
    // `hakaru report` on the result draws the same page.
    let page = dir.path("again.html");
    ok(&run(&[
        "report",
        dir.path("r.json").to_str().unwrap(),
        "-o",
        page.to_str().unwrap(),
    ]));
    let again = std::fs::read_to_string(&page).unwrap();
    assert!(again.contains("Scenario") && again.contains("broken ✗"));
}

/// A Groonga built-in HTTP server on `addr:port`, in the foreground.
fn groonga_on(addr: &str, port: u16, db: &std::path::Path, dir: &TempDir) -> util::Server {
    let logs = TempDir::new("groonga-logs");
    let mut child = Command::new("groonga")
        .args(["--protocol", "http", "-s", "--bind-address", addr, "-p"])
        .arg(port.to_string())
        .arg("--log-path")
        .arg(logs.path("groonga.log"))
        .arg("--query-log-path")
        .arg(logs.path("query.log"))
        .arg(db)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("groonga starts");
    let start = std::time::Instant::now();
    while std::net::TcpStream::connect((addr, port)).is_err() {
        assert!(
            child.try_wait().unwrap().is_none(),
            "groonga on {addr}:{port} exited"
        );
        assert!(
            start.elapsed() < Duration::from_secs(15),
            "groonga did not listen"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = dir;
    util::Server {
        child,
        port,
        dir: logs,
    }
}

#[test]
fn recovery_after_one_of_two_groonga_hosts_is_stopped_and_resumed() {
    let _one_at_a_time = timed();
    if !util::have("groonga") {
        return;
    }
    let dir = TempDir::new("suite-groonga");
    let db1_dir = TempDir::new("suite-db1");
    let db1 = util::groonga_db(&db1_dir, 50);
    let db2_dir = TempDir::new("suite-db2");
    let db2 = util::groonga_db(&db2_dir, 50);
    // Two hosts on one port, as --default-hosts has them: two loopback addresses.
    let port = util::free_port();
    let node0 = groonga_on("127.0.0.1", port, &db1, &dir);
    let node1 = groonga_on("127.0.0.2", port, &db2, &dir);
    let (stop_at, cont_at) = (5.0, 8.0);
    dir.write(
        "patterns.txt",
        "/d/select?table=Pages&match_columns=text&query=text&limit=3\n/d/select?table=Pages&match_columns=title&query=alpha&limit=3\n",
    );
    let scenario = dir.write(
        "fault.toml",
        &format!(
            r#"
hosts = ["127.0.0.1", "127.0.0.2"]
port = {port}
timeout = "20s"

[targets.node0]
pid = {pid0}
[targets.node1]
pid = {pid1}

# Lenient on latency and throughput noise (a shared machine, where other tests take
# the CPU a closed model's throughput depends on): the stall itself takes every
# request, which no criterion can miss.
[recovery]
throughput = 0.25
p99_factor = 4
hold = "3s"

[[phase]]
name = "steady"
duration = "14s"
clients = 4
[[phase.workload]]
patterns = "patterns.txt"

[[event]]
name = "stop node1"
at = "{stop_at}s"
run = "kill -STOP {{pid:node1}}"
[[event]]
name = "resume node1"
at = "{cont_at}s"
run = "kill -CONT {{pid:node1}}"
"#,
            pid0 = node0.child.id(),
            pid1 = node1.child.id(),
        ),
    );
    let out = dir.path("r.csv");
    let o = run(&[
        "suite",
        scenario.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    // Whatever happened, node1 must not stay stopped.
    let _ = Command::new("kill")
        .args(["-CONT", &node1.child.id().to_string()])
        .status();
    let text = ok(&o);
    let v = read_json(&dir.path("r.json"));
    let events = v["suite"]["events"].as_array().unwrap();
    assert!(events.iter().all(|e| e["ok"] == true), "{text}");
    let stop = &events[0]["recovery"];
    let truth = cont_at - stop_at;
    let recovery = stop["recovery_s"]
        .as_f64()
        .unwrap_or_else(|| panic!("not recovered: {text}"));
    assert!(
        (recovery - truth).abs() <= 1.0,
        "recovery {recovery} s is not within a second of the stall's {truth} s\n{text}"
    );
    let baseline = stop["baseline"]["throughput"].as_f64().unwrap();
    assert!(baseline > 0.0);
    assert!(
        stop["worst_throughput"].as_f64().unwrap() < baseline / 2.0,
        "the stall shows in the worst second: {text}"
    );
    let resume = &events[1]["recovery"];
    assert_eq!(resume["baseline"]["inherited"], true);
    assert!(resume["recovery_s"].as_f64().unwrap() <= 1.0, "{text}");
    assert!(text.contains("recovered in"), "{text}");
    drop(node1);
    drop(node0);
}

#[test]
fn pouchdb_restarted_during_a_write_phase_keeps_what_it_acknowledged() {
    let _one_at_a_time = timed();
    if !util::have_pouchdb() {
        return;
    }
    let program = util::pouchdb_program().expect("installed");
    let dir = TempDir::new("suite-pouchdb");
    let port = util::free_port();
    let config = dir.write(
        "config.json",
        &format!(
            "{{\"log\": {{\"file\": \"{}\", \"level\": \"warning\"}}}}",
            dir.path("log.txt").display()
        ),
    );
    // The same start for the test and for the scenario's restart: in the background,
    // its PID in a file the scenario's target reads when an event fires.
    let start = dir.write(
        "start.sh",
        &format!(
            "cd {d} && {program} --host 127.0.0.1 --port {port} --dir {d}/data --config {config} \
             </dev/null >{d}/out.txt 2>&1 &\necho $! > {d}/pouchdb.pid\n",
            d = dir.0.display(),
            program = program.display(),
            config = config.display(),
        ),
    );
    let pid = || -> Option<u32> {
        std::fs::read_to_string(dir.path("pouchdb.pid"))
            .ok()?
            .trim()
            .parse()
            .ok()
    };
    let kill_pouchdb = || {
        if let Some(p) = pid() {
            let _ = Command::new("kill").arg(p.to_string()).status();
        }
    };
    let up = |limit: Duration| {
        let t = std::time::Instant::now();
        while t.elapsed() < limit {
            if util::http(&format!("http://127.0.0.1:{port}/"), "GET", None)
                .is_some_and(|(s, _)| s == 200)
            {
                return true;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        false
    };
    assert!(Command::new("sh").arg(&start).status().unwrap().success());
    assert!(up(Duration::from_secs(30)), "pouchdb-server did not answer");
    let db = format!("http://127.0.0.1:{port}/bench");
    assert_eq!(util::http(&db, "PUT", None).map(|r| r.0), Some(201));
    let scenario = dir.write(
        "restart.toml",
        &format!(
            r#"
timeout = "5s"

[targets.couch]
pid_file = "pouchdb.pid"

[[phase]]
name = "write"
duration = "12s"
clients = 2
[[phase.workload]]
bulk = {{ target = "couchdb", url = "{db}", batch = 20, verify = true }}

[[event]]
name = "stop couch"
at = "2s"
run = "kill {{pid:couch}}"
[[event]]
name = "start couch"
at = "3s"
run = "sh {start}"
"#,
            start = start.display()
        ),
    );
    let out = dir.path("r.csv");
    let o = run(&[
        "suite",
        scenario.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    let text = util::stdout(&o);
    kill_pouchdb();
    assert!(o.status.success(), "{text}\n{}", stderr(&o));
    let v = read_json(&dir.path("r.json"));
    let events = v["suite"]["events"].as_array().unwrap();
    assert!(events.iter().all(|e| e["ok"] == true), "{text}");
    let step = &steps(&v)[0];
    assert!(
        step["errors"].as_object().is_some_and(|e| !e.is_empty()),
        "writes failed while the server was down: {text}"
    );
    let check = &v["suite"]["verify"][0]["result"];
    let acknowledged = check["acknowledged"].as_u64().expect("counted");
    let present = check["present"].as_i64().expect("read back");
    assert!(acknowledged > 0, "{text}");
    assert!(
        present >= acknowledged as i64,
        "acknowledged documents went missing: {acknowledged} acknowledged, {present} present\n{text}"
    );
    assert!(text.contains("acknowledged"), "{text}");
}

/// Toxiproxy's server, where `.ci/run` builds it (`$HAKARU_TOXIPROXY`, else
/// `~/.cache/hakaru-go/bin/toxiproxy-server`). Missing: skipped, except in CI.
fn toxiproxy_program() -> Option<std::path::PathBuf> {
    let p = std::env::var_os("HAKARU_TOXIPROXY")
        .map(std::path::PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME")
                .map(|h| std::path::Path::new(&h).join(".cache/hakaru-go/bin/toxiproxy-server"))
        })
        .filter(|p| p.exists());
    if p.is_none() {
        assert!(
            std::env::var_os("CI").is_none(),
            "toxiproxy-server is not installed, but CI must run this test (.ci/run builds it)"
        );
        eprintln!("skipped: toxiproxy-server is not installed (run .ci/run)");
    }
    p
}

/// A Toxiproxy server on a free loopback port (its API's), stopped when dropped;
/// `None` where it is not installed (outside CI).
pub fn toxiproxy() -> Option<util::Server> {
    let program = toxiproxy_program()?;
    let api_port = util::free_port();
    let mut child = Command::new(program)
        .args(["-host", "127.0.0.1", "-port", &api_port.to_string()])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("toxiproxy-server starts");
    util::wait_for_port(api_port, &mut child, "toxiproxy-server");
    Some(util::Server {
        child,
        port: api_port,
        dir: TempDir::new("toxiproxy"),
    })
}

#[test]
fn latency_from_toxiproxy_for_a_window_shows_in_p99_and_recovers() {
    let _one_at_a_time = timed();
    let Some(toxiproxy) = toxiproxy() else {
        return;
    };
    let upstream = util::target();
    let api_port = toxiproxy.port;
    let proxy_port = util::free_port();
    let created = util::http(
        &format!("http://127.0.0.1:{api_port}/proxies"),
        "POST",
        Some(&format!(
            r#"{{"name":"web","listen":"127.0.0.1:{proxy_port}","upstream":"{}","enabled":true}}"#,
            upstream.addr
        )),
    );
    assert_eq!(created.as_ref().map(|r| r.0), Some(201), "{created:?}");
    let dir = TempDir::new("suite-toxic");
    let (from, lasting, latency_ms) = (3.0, 4.0, 500);
    let scenario = dir.write(
        "toxic.toml",
        &format!(
            r#"
toxiproxy = "http://127.0.0.1:{api_port}"

# An open-model rate with connections to spare even at 300 ms a response: the
# throughput holds whatever else the machine does, and the p99 tells the toxic.
[recovery]
throughput = 0.5
p99_factor = 3
hold = "3s"

# Seconds to spare after the toxic: recovery needs `hold` healthy seconds in a row,
# and on a loaded machine one noisy second restarts the count.
[[phase]]
name = "steady"
duration = "15s"
rate = 100
clients = 100
[[phase.workload]]
url = "http://127.0.0.1:{proxy_port}/"

[[event]]
name = "slow network"
at = "{from}s"
for = "{lasting}s"
toxic = {{ proxy = "web", type = "latency", attributes = {{ latency = {latency_ms} }} }}
"#
        ),
    );
    let out = dir.path("r.csv");
    let o = run(&[
        "suite",
        scenario.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    let text = ok(&o);
    let v = read_json(&dir.path("r.json"));
    let events = v["suite"]["events"].as_array().unwrap();
    assert_eq!(events.len(), 2, "added, then removed: {text}");
    assert!(events.iter().all(|e| e["ok"] == true), "{text}");
    let seconds = steps(&v)[0]["timeline"].as_array().unwrap().clone();
    let p99 = |range: std::ops::Range<u64>| -> f64 {
        seconds
            .iter()
            .filter(|s| range.contains(&s["second"].as_u64().unwrap()))
            .map(|s| s["p99_s"].as_f64().unwrap())
            .fold(0.0, f64::max)
    };
    // Before and after, well under the toxic's delay (a shared machine has its own).
    assert!(p99(0..3) < 0.25, "before: {text}");
    assert!(p99(4..7) >= 0.49, "the toxic's 500 ms show in p99: {text}");
    assert!(p99(8..11) < 0.25, "after: {text}");
    let added = events[0]["recovery"]["recovery_s"]
        .as_f64()
        .expect("recovered");
    // Requests in flight when the toxic goes still carry its delay.
    let truth = lasting + f64::from(latency_ms) / 1000.0;
    assert!(
        (added - truth).abs() <= 1.0,
        "recovery {added} s is not within a second of the toxic's {truth} s\n{text}"
    );
    // After the removal: the requests then in flight, within a second of the timeline.
    let ends = events[1]["recovery"]["recovery_s"].as_f64().unwrap();
    assert!(ends <= 1.0 + f64::from(latency_ms) / 1000.0, "{text}");
    drop(toxiproxy);
}

#[test]
fn profiles_print_as_the_files_they_are() {
    for name in [
        "read-heavy",
        "write-heavy",
        "fault-tolerance",
        "ycsb-a",
        "ycsb-e",
    ] {
        let out = ok(&run(&["suite", "--profile", name, "--print"]));
        let file = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("suites/{name}.toml")),
        )
        .unwrap();
        assert_eq!(out, file);
    }
    let o = run(&["suite", "--profile", "ycsb-z", "--print"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("no such profile; the built-in ones are read-heavy"));
    let o = run(&["suite"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));

    // `--target` runs a profile unchanged against another store: every workload's
    // URL, and nothing else, is the target's.
    let url = "memcached://127.0.0.1:11211";
    let out = ok(&run(&[
        "suite",
        "--profile",
        "ycsb-c",
        "--target",
        url,
        "--print",
    ]));
    assert_eq!(out.matches(&format!("url = \"{url}\"")).count(), 2, "{out}");
    assert!(!out.contains("url = \"http://"), "{out}");
    // A profile of hosts and files has no one URL to replace; a scenario file names
    // its own: both refused before any load.
    let o = run(&["suite", "--profile", "read-heavy", "--target", url]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("names hosts and files"),
        "{}",
        stderr(&o)
    );
    let dir = TempDir::new("suite-target");
    let file = dir.write("s.toml", "");
    let o = run(&["suite", file.to_str().unwrap(), "--target", url]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("--target: only with --profile"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn thresholds_are_judged_per_phase_and_fail_the_run() {
    let server = util::target();
    let dir = TempDir::new("suite-thresholds");
    let scenario = dir.write(
        "s.toml",
        &format!(
            r#"
thresholds = ["errors<=0"]

[[phase]]
name = "first"
duration = "1s"
clients = 1
[[phase.workload]]
url = "http://{a}/"

[[phase]]
name = "second"
duration = "1s"
clients = 1
[[phase.workload]]
url = "http://{a}/status/503"
"#,
            a = server.addr
        ),
    );
    let junit = dir.path("junit.xml");
    let out = dir.path("r.csv");
    let o = run(&[
        "suite",
        scenario.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--threshold",
        "qps>0",
        "--junit",
        junit.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let text = util::stdout(&o);
    assert!(text.contains("phase second"), "{text}");
    assert!(
        stderr(&o).contains("threshold(s) failed: errors<=0"),
        "{}",
        stderr(&o)
    );
    let v = read_json(&dir.path("r.json"));
    let t = &v["thresholds"];
    assert_eq!(t["passed"], false);
    let errors = &t["thresholds"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["threshold"] == "errors<=0")
        .unwrap()["steps"];
    assert_eq!(
        (errors[0]["passed"].as_bool(), errors[1]["passed"].as_bool()),
        (Some(true), Some(false))
    );
    assert!(std::fs::read_to_string(&junit)
        .unwrap()
        .contains("<testsuite"));
}

/// `hakaru suite --shard K/N --start-at`: three shard processes together run the
/// one-machine scenario — clients shared, the open-model phase's timetable split by
/// index, bulk IDs in lanes of their own (no conflict although every shard has the
/// same seed), events once (on shard 1) unless they say `shards = "all"` — and
/// `hakaru merge` gives one result with one timeline. Counts only.
#[test]
fn sharded_suite_merges_into_the_one_machine_run() {
    let _one_at_a_time = timed();
    let web = util::target();
    let docs = crate::docs::docs_server();
    let db = crate::docs::create_db(&docs, "shards");
    let dir = TempDir::new("suite-shards");
    let log = dir.path("events.log");
    let scenario = dir.write(
        "s.toml",
        &format!(
            r#"
seed = 7

[[phase]]
name = "closed"
duration = "1s"
clients = 4
[[phase.workload]]
url = "http://{web}/"

[[phase]]
name = "open"
duration = "2s"
rate = 600
clients = 6
[[phase.workload]]
url = "http://{web}/bytes/10"
weight = 3
[[phase.workload]]
url = "http://{web}/status/200"
weight = 1

[[phase]]
name = "write"
duration = "1s"
clients = 3
[[phase.workload]]
bulk = {{ target = "couchdb", url = "{db}", batch = 10, ids = "sequential" }}

[[event]]
name = "once"
at = "1.5s"
run = "echo once >> {log}"
[[event]]
name = "everywhere"
at = "1.5s"
run = "echo everywhere >> {log}"
shards = "all"
"#,
            web = web.addr,
            log = log.display()
        ),
    );
    let s = scenario.to_str().unwrap();
    let shards: Vec<_> = (1..=3)
        .map(|k| {
            let out = dir.path(&format!("shard-{k}.csv"));
            let child = util::hakaru()
                .args([
                    "suite",
                    s,
                    "--shard",
                    &format!("{k}/3"),
                    "--start-at",
                    "+2s",
                ])
                .args(["-q", "-o", out.to_str().unwrap()])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("hakaru suite starts");
            (child, out.with_extension("json"))
        })
        .collect();
    let mut paths = Vec::new();
    for (child, json) in shards {
        ok(&child.wait_with_output().unwrap());
        paths.push(json.display().to_string());
    }
    for (k, p) in paths.iter().enumerate() {
        let r = read_json(std::path::Path::new(p));
        assert_eq!(r["settings"]["shard"]["index"], k as u64 + 1);
        let st = steps(&r);
        // 4 clients shared 2/1/1; the open phase's 600/s is 200/s each.
        assert_eq!(st[0]["n_clients"], [2, 1, 1][k], "{p}");
        assert!(
            (st[1]["rate"].as_f64().unwrap() - 200.0).abs() < 1e-6,
            "{p}"
        );
        assert!(st[1]["start_late_s"].as_f64().is_some(), "{p}");
    }
    let merged = dir.path("merged.csv");
    let mut args = vec!["merge"];
    args.extend(paths.iter().map(String::as_str));
    args.extend(["-o", merged.to_str().unwrap()]);
    ok(&run(&args));
    let m = read_json(&merged.with_extension("json"));
    let st = steps(&m);
    assert_eq!(st[0]["n_clients"], 4);
    assert_eq!(st[1]["n_clients"], 6);
    // The one-machine schedule: 600/s for 2 s, split by index, none twice.
    let open = st[1]["total_requests"].as_u64().unwrap() + st[1]["unfinished"].as_u64().unwrap();
    assert!(open.abs_diff(1200) <= 12, "{}", st[1]);
    assert_eq!(st[1]["errors"], serde_json::json!({}), "{}", st[1]);
    // One timeline per phase, every request of the phase in exactly one second.
    for step in st {
        let seconds = step["timeline"].as_array().expect("a merged timeline");
        let counted: u64 = seconds
            .iter()
            .map(|s| {
                s["responses"].as_u64().unwrap()
                    + s["errors"]
                        .as_object()
                        .map_or(0, |e| e.values().map(|n| n.as_u64().unwrap()).sum())
            })
            .sum();
        assert_eq!(counted, step["total_requests"].as_u64().unwrap(), "{step}");
    }
    // No two shards wrote the same ID: every acknowledged document is there.
    let items = &st[2]["items"];
    assert_eq!(items["failed"], serde_json::json!({}), "{items}");
    let acknowledged = items["ok"].as_u64().unwrap();
    assert!(acknowledged > 0);
    // More only by the batches cut off at the phase's end (written, answer unseen).
    let present = crate::docs::doc_count(&db);
    let cut_off = st[2]["unfinished"].as_u64().unwrap() * 10;
    assert!(
        present >= acknowledged && present - acknowledged <= cut_off,
        "present {present}, acknowledged {acknowledged}, cut off {cut_off}"
    );
    // Events: "once" on shard 1 only, "everywhere" on each shard.
    let fired = std::fs::read_to_string(&log).unwrap();
    assert_eq!(fired.matches("once").count(), 1, "{fired}");
    assert_eq!(fired.matches("everywhere").count(), 3, "{fired}");
    let events = m["suite"]["events"].as_array().unwrap();
    assert!(events[0]["started_s"].as_f64().is_some(), "{events:?}");
    assert_eq!(m["suite"]["phases"][2]["clients"], 3);

    // The same scenario on one machine sends the same open-model schedule.
    let one = dir.path("one.csv");
    ok(&run(&["suite", s, "-q", "-o", one.to_str().unwrap()]));
    let o = read_json(&one.with_extension("json"));
    let o1 = &steps(&o)[1];
    let alone = o1["total_requests"].as_u64().unwrap() + o1["unfinished"].as_u64().unwrap();
    assert!(
        open.abs_diff(alone) * 100 <= alone,
        "merged {open}, one machine {alone}"
    );
}

/// Issue 32 item 5: 200 req/s against the embedded target, stopped at 3 s and
/// continued at 5 s, answering in full from 6 s, read "recovery: none" on one run in
/// three (a sub-millisecond baseline's p99 times 1.5 judged the machine's noise). The
/// result now says recovered (or, at worst on a loaded machine, recovering when the
/// phase ended — never "none"), with the p99 limit and the criteria that failed.
/// `bench/recovery.sh` runs the same scenario 20 times.
#[test]
fn a_stopped_and_continued_target_is_reported_recovered() {
    let _one_at_a_time = timed();
    let server = util::hakaru_serve(&[], "suite-stop");
    let dir = TempDir::new("suite-stop");
    let scenario = dir.write(
        "stop.toml",
        &format!(
            r#"
[targets.server]
pid = {pid}

[[phase]]
name = "steady"
duration = "12s"
rate = 200
[[phase.workload]]
url = "http://127.0.0.1:{port}/delay/0"

[[event]]
name = "stop"
at = "3s"
run = "kill -STOP {{pid:server}}"
[[event]]
name = "continue"
at = "5s"
run = "kill -CONT {{pid:server}}"
"#,
            pid = server.child.id(),
            port = server.port,
        ),
    );
    let out = dir.path("r.csv");
    let o = run(&[
        "suite",
        scenario.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    // Whatever happened, the server must not stay stopped.
    let _ = Command::new("kill")
        .args(["-CONT", &server.child.id().to_string()])
        .status();
    let text = ok(&o);
    let v = read_json(&dir.path("r.json"));
    let events = v["suite"]["events"].as_array().unwrap();
    for e in events {
        let r = &e["recovery"];
        assert!(
            r["recovery_s"].is_number() || r["recovering"].is_object(),
            "{}: neither recovered nor recovering\n{text}",
            e["name"]
        );
        assert!(r["p99_limit"]["s"].as_f64().unwrap() > 0.0, "{r}");
        assert!(r["failed"].is_object(), "{r}");
    }
    let stop = &events[0]["recovery"];
    if let Some(s) = stop["recovery_s"].as_f64() {
        // Back in full from 6 s: 3 s after the stop, to the second.
        assert!((s - 3.0).abs() <= 1.0, "{s}\n{text}");
    }
    // The stall shows as failed seconds: nothing answered while it lasted.
    assert!(
        stop["failed"]["throughput"].as_u64().unwrap() >= 1,
        "{stop}"
    );
}
