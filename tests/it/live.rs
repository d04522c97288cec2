//! Live export: a real Prometheus (Debian's `prometheus`, a private instance on a free
//! loopback port, stopped by its PID) scrapes `hakaru run --metrics-listen` and its
//! totals equal the result's; `--live-out` writes a line per second and the step's
//! exact totals; a port in use is refused before any load. Counts only, never time.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use hakaru::http::url::encode_component;

use crate::util::*;

/// The `prometheus` binary, or None (skipped) when it is missing and
/// HAKARU_SKIP_PROMETHEUS is set outside CI. CI installs it (.ci/run), so there a
/// missing one fails.
fn prometheus_program() -> Option<PathBuf> {
    let found = Command::new("sh")
        .args(["-c", "command -v prometheus"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()));
    if found.is_none() {
        assert!(
            std::env::var_os("CI").is_none(),
            "prometheus is not installed, but CI must run this test (.ci/run installs it)"
        );
        assert!(
            std::env::var_os("HAKARU_SKIP_PROMETHEUS").is_some(),
            "prometheus is not installed: apt-get install prometheus, or set \
             HAKARU_SKIP_PROMETHEUS=1 to skip this test"
        );
        eprintln!("skipped: prometheus is not installed (HAKARU_SKIP_PROMETHEUS is set)");
    }
    found
}

/// A private Prometheus scraping `target` every second, killed by its PID on drop.
struct Prometheus {
    child: Child,
    port: u16,
    _dir: TempDir,
}

impl Drop for Prometheus {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Prometheus {
    fn start(program: &std::path::Path, target: &str) -> Prometheus {
        let dir = TempDir::new("prometheus");
        let config = dir.write(
            "prometheus.yml",
            &format!(
                "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n  evaluation_interval: 1s\n\
                 scrape_configs:\n  - job_name: hakaru\n    static_configs:\n      - targets: ['{target}']\n"
            ),
        );
        let port = free_port();
        let log = std::fs::File::create(dir.path("prometheus.log")).unwrap();
        let mut child = Command::new(program)
            .arg(format!("--config.file={}", config.display()))
            .arg(format!(
                "--storage.tsdb.path={}",
                dir.path("data").display()
            ))
            .arg(format!("--web.listen-address=127.0.0.1:{port}"))
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .expect("prometheus starts");
        wait_for_port(port, &mut child, "prometheus");
        Prometheus {
            child,
            port,
            _dir: dir,
        }
    }

    /// An instant query's values (one per series), through the HTTP API.
    fn query(&self, promql: &str) -> Vec<f64> {
        let url = format!(
            "http://127.0.0.1:{}/api/v1/query?query={}",
            self.port,
            encode_component(promql)
        );
        let Some((200, body)) = http(&url, "GET", None) else {
            return Vec::new();
        };
        let v: serde_json::Value = serde_json::from_str(&body).expect("the API answers JSON");
        v["data"]["result"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|r| r["value"][1].as_str()?.parse().ok())
            .collect()
    }

    /// The single value of `promql` once it equals `want`, or what it was at the end of
    /// 20 s (samples land a moment after the scrape that read them).
    fn eventually(&self, promql: &str, want: f64) -> Vec<f64> {
        let start = Instant::now();
        loop {
            let got = self.query(promql);
            if got == [want] || start.elapsed() > Duration::from_secs(20) {
                return got;
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    }
}

/// `/metrics` of a running hakaru, as Prometheus's text format.
fn scrape(port: u16) -> Option<String> {
    http(&format!("http://127.0.0.1:{port}/metrics"), "GET", None)
        .filter(|(status, _)| *status == 200)
        .map(|(_, body)| body)
}

#[test]
fn prometheus_scrapes_a_live_run_and_its_totals_equal_the_results() {
    let Some(program) = prometheus_program() else {
        return;
    };
    let target = hakaru_serve(&[], "live-target");
    let metrics_port = free_port();
    let prom = Prometheus::start(&program, &format!("127.0.0.1:{metrics_port}"));
    let dir = TempDir::new("live-run");
    let csv = dir.path("r.csv");
    // Long enough for Prometheus's first scrapes (5–9 s after its start here); the
    // hold keeps /metrics up until a scrape has read the final numbers anyway.
    // Two kinds of request, counted under their names.
    let patterns = dir.write("p.txt", "name=home /\nname=missing /status/404\n");
    let mut run = hakaru()
        .args(["run", "-c", "4", "--rate", "200", "-d", "12s", "-q"])
        .args(["--metrics-listen", &format!("127.0.0.1:{metrics_port}")])
        .args(["--metrics-hold", "60s", "-o", csv.to_str().unwrap()])
        .args(["--request-patterns-file", patterns.to_str().unwrap()])
        .args(["--default-hosts", "127.0.0.1", "--default-port"])
        .arg(target.port.to_string())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("hakaru runs");
    // While the step runs, /metrics shows it live.
    let live = loop {
        if let Some(page) = scrape(metrics_port).filter(|p| p.contains("hakaru_step_info{")) {
            break page;
        }
        assert!(run.try_wait().unwrap().is_none(), "hakaru ended early");
        std::thread::sleep(Duration::from_millis(100));
    };
    // Issue 35: every series carries the run's id, also said on stderr.
    let run_id = live
        .split("hakaru_run_info{run=\"")
        .nth(1)
        .and_then(|r| r.split('"').next())
        .expect("hakaru_run_info carries run=")
        .to_owned();
    let step = format!(r#"{{run="{run_id}",step="1",round="1",clients="4",rate="200"}}"#);
    assert!(
        live.contains(&format!("hakaru_step_finished{step} 0")),
        "{live}"
    );
    // Prometheus's own linter passes the text format (the scrapes below read OpenMetrics).
    let promtool = program.with_file_name("promtool");
    if promtool.exists() {
        let mut check = Command::new(&promtool)
            .args(["check", "metrics"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("promtool runs");
        std::io::Write::write_all(&mut check.stdin.take().unwrap(), live.as_bytes()).unwrap();
        let checked = check.wait_with_output().unwrap();
        assert!(
            checked.status.success(),
            "promtool check metrics: {}{}\n{live}",
            stdout(&checked),
            stderr(&checked)
        );
    }
    // Prometheus has found the target.
    assert_eq!(prom.eventually(r#"up{job="hakaru"}"#, 1.0), [1.0]);
    let out = run.wait_with_output().unwrap();
    ok(&out);
    let err = stderr(&out);
    assert!(
        err.contains(&format!(
            "Live metrics: http://127.0.0.1:{metrics_port}/metrics (run=\"{run_id}\")"
        )),
        "{err}"
    );
    assert!(err.contains("until a scrape reads them"), "{err}");

    let result: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(csv.with_extension("json")).unwrap())
            .unwrap();
    let s = &result["steps"][0];
    let total = s["total_requests"].as_u64().unwrap() as f64;
    let ok_200 = s["statuses"]["200"].as_u64().unwrap() as f64;
    let responses = s["responses"].as_u64().unwrap() as f64;
    assert!(total > 0.0);
    // The target has gone, so the series are stale now: read their last samples.
    let last = |m: &str| format!("sum(last_over_time({m}{{job=\"hakaru\"}}[10m]))");
    assert_eq!(prom.eventually(&last("hakaru_step_finished"), 1.0), [1.0]);
    let of_run =
        format!(r#"sum(last_over_time(hakaru_step_finished{{job="hakaru",run="{run_id}"}}[10m]))"#);
    assert_eq!(prom.eventually(&of_run, 1.0), [1.0]);
    assert_eq!(
        prom.eventually(&last("hakaru_requests_total"), total),
        [total]
    );
    assert_eq!(
        prom.eventually(
            r#"sum(last_over_time(hakaru_responses_total{job="hakaru",status="200"}[10m]))"#,
            ok_200
        ),
        [ok_200]
    );
    assert_eq!(
        prom.eventually(&last("hakaru_latency_seconds_count"), responses),
        [responses]
    );
    assert_eq!(
        prom.eventually(
            r#"sum(last_over_time(hakaru_latency_seconds_bucket{job="hakaru",le="+Inf"}[10m]))"#,
            responses
        ),
        [responses]
    );
    // Per kind of request, by status.
    let labels = s["labels"].as_array().expect("the result has labels");
    assert_eq!(labels.len(), 2, "{labels:?}");
    for l in labels {
        let name = l["value"].as_str().unwrap();
        let n = l["total_requests"].as_u64().unwrap() as f64;
        let q = format!(
            r#"sum(last_over_time(hakaru_label_requests_total{{job="hakaru",name="{name}"}}[10m]))"#
        );
        assert_eq!(prom.eventually(&q, n), [n], "{name}");
        let (status, n) = l["statuses"].as_object().unwrap().iter().next().unwrap();
        let n = n.as_u64().unwrap() as f64;
        let q = format!(
            r#"sum(last_over_time(hakaru_label_responses_total{{job="hakaru",name="{name}",status="{status}"}}[10m]))"#
        );
        assert_eq!(prom.eventually(&q, n), [n], "{name} {status}");
    }
    // The exact histogram's mean, back from the scraped sum.
    let sum = prom.query(&last("hakaru_latency_seconds_sum"));
    let mean = s["latency"]["mean_s"].as_f64().unwrap();
    assert_eq!(sum.len(), 1);
    assert!((sum[0] / responses - mean).abs() < 1e-6, "{sum:?} {mean}");
}

#[test]
fn live_out_writes_seconds_and_the_steps_exact_totals() {
    let t = target();
    let dir = TempDir::new("live-out");
    let lines = dir.path("live.ndjson");
    let csv = dir.path("r.csv");
    ok(&run(&[
        "run",
        "-c",
        "2",
        "--rate",
        "100",
        "-d",
        "3s",
        "-q",
        "--live-out",
        lines.to_str().unwrap(),
        "-o",
        csv.to_str().unwrap(),
        &format!("http://{}/", t.addr),
    ]));
    let text = std::fs::read_to_string(&lines).unwrap();
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object per line"))
        .collect();
    let seconds: Vec<_> = lines.iter().filter(|l| l["event"] == "second").collect();
    assert!(!seconds.is_empty(), "{text}");
    assert!(
        seconds.iter().all(|l| l["step"] == 1 && l["rate"] == 100.0),
        "{text}"
    );
    let last = lines.last().unwrap();
    assert_eq!(last["event"], "step", "{text}");
    let result: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(csv.with_extension("json")).unwrap())
            .unwrap();
    assert_eq!(last["requests"], result["steps"][0]["total_requests"]);
    assert_eq!(last["statuses"], result["steps"][0]["statuses"]);
}

#[test]
fn a_metrics_address_in_use_or_an_unwritable_live_out_is_refused_before_any_load() {
    let t = target();
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    let url = format!("http://{}/", t.addr);
    let o = run(&["run", "-n", "10", "--metrics-listen", &addr, &url]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(&format!("--metrics-listen {addr}: cannot listen there")),
        "{}",
        stderr(&o)
    );
    let o = run(&[
        "ab",
        "-n",
        "10",
        "--live-out",
        "/nonexistent/live.ndjson",
        &url,
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--live-out /nonexistent/live.ndjson: cannot write there"));
    let o = run(&["run", "-n", "10", "--json", "--live-out", "-", &url]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_eq!(t.stats.requests(), 0, "nothing was sent");
}

/// Issue 36 item 7: `--live-out` to a FIFO never blocks the load. With no reader,
/// `open()` blocked with no message; a reader that stopped reading stalled the run
/// in `write()` past its duration.
#[test]
fn live_out_to_a_fifo_never_blocks_the_load() {
    use std::os::unix::fs::OpenOptionsExt as _;
    let t = target();
    let dir = TempDir::new("live-fifo");
    let fifo = dir.path("live.fifo");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let url = format!("http://{}/", t.addr);
    let go = |d: &str| {
        let mut child = hakaru()
            .args(["run", "-c", "2", "-d", d, "-q", "--live-out"])
            .arg(&fifo)
            .arg(&url)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let started = Instant::now();
        let status = wait_bounded(&mut child, Duration::from_secs(20));
        let mut err = String::new();
        use std::io::Read as _;
        child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut err)
            .unwrap();
        (status, started.elapsed(), err)
    };
    // No reader: refused at once, before any load.
    let (status, took, err) = go("2");
    assert_eq!(status.and_then(|s| s.code()), Some(2), "{err}");
    assert!(took < Duration::from_secs(5), "{took:?}");
    assert!(err.contains("a FIFO with no reader"), "{err}");
    // A reader that never reads: the run ends on time and says what it dropped.
    let _reader = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(&fifo)
        .unwrap();
    // The pipe filled first, as by a reader that stopped long ago.
    let mut filler = std::fs::OpenOptions::new()
        .write(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(&fifo)
        .unwrap();
    use std::io::Write as _;
    while filler.write(&[b'\n'; 4096]).is_ok() {}
    let (status, took, err) = go("3");
    assert_eq!(status.and_then(|s| s.code()), Some(0), "{err}");
    assert!(took < Duration::from_secs(9), "{took:?}");
    assert!(
        err.contains("line(s) dropped: the reader did not keep up"),
        "{err}"
    );
}

/// Issue 36 item 8: `--metrics-listen` cannot use up the client's descriptors.
/// Bug it pins: 1,000 idle connections to it made step 1 fail with "Too many open
/// files". Served at most 16 at a time, the rest wait in the kernel's backlog.
#[test]
fn idle_connections_to_metrics_leave_the_load_its_descriptors() {
    let t = target();
    let dir = TempDir::new("live-idle");
    let json = dir.path("r.json");
    let port = free_port();
    let cmd = format!(
        "ulimit -n 256 && exec {} run -c 4 -d 3 -q --no-keep-alive --metrics-hold 0 --metrics-listen 127.0.0.1:{port} -o {} http://{}/",
        env!("CARGO_BIN_EXE_hakaru"),
        json.display(),
        t.addr
    );
    let mut child = Command::new("sh")
        .args(["-c", &cmd])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let addr: std::net::SocketAddr = format!("127.0.0.1:{port}").parse().unwrap();
    let until = Instant::now() + Duration::from_secs(5);
    let mut idle = Vec::new();
    while idle.len() < 1000 && Instant::now() < until {
        if let Ok(s) = std::net::TcpStream::connect_timeout(&addr, Duration::from_millis(50)) {
            idle.push(s);
        }
    }
    let status = wait_bounded(&mut child, Duration::from_secs(30));
    drop(idle);
    assert!(status.is_some_and(|s| s.success()), "{status:?}");
    let st = &read_json(&json)["steps"][0];
    assert_eq!(st["errors"].as_object().map_or(0, |e| e.len()), 0, "{st}");
    assert!(st["responses"].as_u64().unwrap_or(0) > 100, "{st}");
}
