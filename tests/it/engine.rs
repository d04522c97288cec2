//! The engine's seams, proved from outside: a workload written here (bodies built at
//! send time, a check that reads them back) runs through the one client loop, and the
//! bugs the loop once had stay fixed.

use std::cell::{Cell, RefCell};
use std::collections::HashSet;
use std::io::{Read, Write};
use std::net::TcpListener;
use std::rc::Rc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use hakaru::engine::{
    self, Answer, ClientId, EngineConfig, Lane, RateProfile, Request, RequestSource, ResponseCheck,
    StepSpec, Stop, Turn, Workload,
};
use hakaru::http::encode::BodyRequest;
use hakaru::http::Target;
use hakaru::result::RequestInfo;
use hakaru::stats::{ErrorKind, ItemCounts};

use crate::util::{self, TempDir};

/// Test-only workload: each request POSTs to `/echo` a batch of `ITEMS` lines
/// `c<client>-<n>-<i>`, built at send time into one reused buffer; the check reads the
/// echoed body back and counts each line that matches what was sent.
struct EchoBatches {
    targets: Vec<Target>,
    request: BodyRequest,
    /// Every global timetable index seen (open model), to check the indexing.
    indices: Arc<Mutex<Vec<u64>>>,
    /// Client 0 panics at this request, to check that a panic fails the step.
    panic_at: Option<u64>,
}

const ITEMS: u64 = 3;

struct EchoSource {
    request: BodyRequest,
    body: Vec<u8>,
    wire: Vec<u8>,
    sent: Rc<RefCell<Vec<u8>>>,
    indices: Arc<Mutex<Vec<u64>>>,
    panic_at: Option<u64>,
    capacity_after_first: Cell<usize>,
}

impl RequestSource for EchoSource {
    fn next(&mut self, turn: Turn) -> Request<'_> {
        if self.panic_at == Some(turn.n) && turn.client == 0 {
            panic!("test source gives up at request {}", turn.n);
        }
        if let Some(i) = turn.index {
            self.indices.lock().unwrap().push(i);
        }
        self.body.clear();
        for i in 0..ITEMS {
            writeln!(self.body, "c{}-{}-{i}", turn.client, turn.n).unwrap();
        }
        self.request.write(&mut self.wire, &self.body);
        // The buffers are reused: after the first request they never grow again.
        if turn.n == 1 {
            self.capacity_after_first.set(self.wire.capacity());
        } else if turn.n > 1 {
            assert_eq!(self.wire.capacity(), self.capacity_after_first.get());
        }
        self.sent.borrow_mut().clone_from(&self.body);
        Request {
            target: 0,
            bytes: &self.wire,
            timeout: Duration::from_secs(5),
            head: false,
            info: 0,
            items: ITEMS,
            label: 0,
            expect: hakaru::kv::Expect::ANY,
        }
    }
}

struct EchoCheck {
    sent: Rc<RefCell<Vec<u8>>>,
}

impl ResponseCheck for EchoCheck {
    fn body_limit(&self) -> usize {
        1024
    }

    fn check(&mut self, answer: &Answer<'_>, items: &mut ItemCounts) {
        let sent = self.sent.borrow();
        let sent_lines: HashSet<&[u8]> = sent.split(|b| *b == b'\n').collect();
        for line in answer.body.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
            if sent_lines.contains(line) {
                items.ok(1);
            } else {
                items.failed("not_echoed", 1);
            }
        }
    }
}

impl Workload for EchoBatches {
    type Source = EchoSource;
    type Check = EchoCheck;

    fn targets(&self) -> &[Target] {
        &self.targets
    }

    fn request_infos(&self) -> Vec<RequestInfo> {
        vec![RequestInfo {
            id: None,
            method: "POST".into(),
            url: format!("{}/echo", self.targets[0].label()),
        }]
    }

    fn client(&self, _: ClientId) -> (EchoSource, EchoCheck) {
        let sent = Rc::new(RefCell::new(Vec::new()));
        let source = EchoSource {
            request: self.request.clone(),
            body: Vec::new(),
            wire: Vec::new(),
            sent: sent.clone(),
            indices: self.indices.clone(),
            panic_at: self.panic_at,
            capacity_after_first: Cell::new(0),
        };
        (source, EchoCheck { sent })
    }
}

fn echo_workload(addr: std::net::SocketAddr, panic_at: Option<u64>) -> Arc<EchoBatches> {
    let host = format!("127.0.0.1:{}", addr.port());
    Arc::new(EchoBatches {
        targets: vec![Target {
            https: false,
            host: "127.0.0.1".into(),
            port: addr.port(),
            addrs: vec![addr],
            proto: hakaru::http::Proto::Http,
        }],
        request: BodyRequest::new("POST", "/echo", &host, &[], Some("text/plain"), true),
        indices: Arc::new(Mutex::new(Vec::new())),
        panic_at,
    })
}

fn config(threads: usize) -> EngineConfig {
    EngineConfig {
        threads,
        wait: Duration::ZERO,
        keep_alive: true,
        n_slow: 2,
        n_fast: 2,
        tls: None,
        lane: Lane::ALL,
        ok_status: Default::default(),
        label_feed: None,
        skip_late: None,
        budget_per_client: false,
        connection: Default::default(),
        time_first_byte: false,
        login_timeout: Duration::from_secs(10),
    }
}

#[test]
fn a_new_workload_plugs_in_without_touching_the_loop() {
    let server = util::target();
    let workload = echo_workload(server.addr, None);
    let spec = StepSpec {
        n_clients: 4,
        duration: Some(Duration::from_secs(30)),
        n_requests: Some(200),
        rate: None,
    };
    let run = engine::run_step(
        &workload,
        &config(2),
        &spec,
        0,
        &Stop::default(),
        &mut |_| {},
    );
    let rec = &run.recorder;
    assert!(run.failure.is_none(), "{:?}", run.failure);
    assert_eq!(rec.status_counts().get(&200), Some(&200));
    assert_eq!(rec.items.sent, 200 * ITEMS);
    assert_eq!(rec.items.ok, 200 * ITEMS, "{:?}", rec.items);
    assert_eq!(rec.items.total_failed(), 0);
    assert!(rec.bytes_sent > 200 * 3 * 7, "{}", rec.bytes_sent);
}

#[test]
fn open_model_indexes_one_global_timetable() {
    let server = util::target();
    let workload = echo_workload(server.addr, None);
    // 400 requests due over 2 s at 200/s, on three workers: each index exactly once.
    let spec = StepSpec {
        n_clients: 6,
        duration: Some(Duration::from_secs(30)),
        n_requests: Some(400),
        rate: Some(Arc::new(RateProfile::constant(2000.0).unwrap())),
    };
    let run = engine::run_step(
        &workload,
        &config(3),
        &spec,
        0,
        &Stop::default(),
        &mut |_| {},
    );
    assert!(run.failure.is_none());
    let mut seen = workload.indices.lock().unwrap().clone();
    seen.sort_unstable();
    assert_eq!(seen, (0..400).collect::<Vec<u64>>());
    assert_eq!(run.recorder.items.ok, 400 * ITEMS);
    // Every paced request has its lag recorded.
    assert_eq!(run.recorder.pacer_lag.len(), 400);
}

/// Bug: a panic in a worker was swallowed; the step was written as complete and the
/// run exited 0.
#[test]
fn regression_worker_panic_fails_the_step() {
    let server = util::target();
    let workload = echo_workload(server.addr, Some(3));
    let spec = StepSpec {
        n_clients: 2,
        duration: Some(Duration::from_secs(30)),
        n_requests: Some(50),
        rate: None,
    };
    let run = engine::run_step(
        &workload,
        &config(2),
        &spec,
        0,
        &Stop::default(),
        &mut |_| {},
    );
    let why = run.failure.expect("the panic is reported");
    assert!(why.contains("gives up at request 3"), "{why}");
    assert!(run.partial);
}

/// Bug: with no file descriptor left, `socket()` failed at once and the worker looped
/// without reaching an await point: `-d` and Ctrl-C were ignored, nothing was written.
#[test]
fn regression_fd_exhaustion_ends_on_time_as_client_limit() {
    if !util::have("bash") {
        return;
    }
    let server = util::target();
    let dir = TempDir::new("emfile");
    let out = dir.path("r.json");
    let cmd = format!(
        "ulimit -n 64 && exec {} run -c 100 --threads 1 -d 1s --timeout 1s -o {} http://{}/",
        env!("CARGO_BIN_EXE_hakaru"),
        out.display(),
        server.addr
    );
    let mut child = std::process::Command::new("bash")
        .args(["-c", &cmd])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Bounded: a hang is a failure, not a stuck test run.
    let status = util::wait_bounded(&mut child, Duration::from_secs(60))
        .expect("hakaru ended instead of hanging");
    let mut err = String::new();
    let _ = child.stderr.take().unwrap().read_to_string(&mut err);
    assert!(status.success(), "{status:?}\n{err}");
    let r = util::read_json(&out);
    let step = &r["steps"][0];
    let limit = step["errors"][ErrorKind::ClientLimit.as_str()].as_u64();
    assert!(limit.is_some_and(|n| n > 0), "{step}");
    assert!(
        step["responses"].as_u64().unwrap() > 0,
        "the connections it had still worked"
    );
}

/// Bug: bytes were counted only when an exchange completed, so a huge body cut off by
/// a timeout showed 0 bytes received.
#[test]
fn regression_bytes_of_a_body_cut_by_a_timeout_are_counted() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    // A server that promises 1 GB and drips it: 64 KiB every 5 ms until the client leaves.
    std::thread::spawn(move || {
        let (mut s, _) = listener.accept().unwrap();
        let mut b = [0u8; 4096];
        let _ = s.read(&mut b);
        let _ = s.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 1000000000\r\n\r\n");
        let chunk = vec![b'x'; 64 * 1024];
        for _ in 0..2000 {
            if s.write_all(&chunk).is_err() {
                return;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    });
    let dir = TempDir::new("cutbytes");
    let out = dir.path("r.json");
    util::answered_nothing(&util::run(&[
        "run",
        "-c",
        "1",
        "-n",
        "1",
        "--timeout",
        "300ms",
        "-o",
        out.to_str().unwrap(),
        &format!("http://{addr}/"),
    ]));
    let r = util::read_json(&out);
    let step = &r["steps"][0];
    assert_eq!(step["errors"]["timeout"].as_u64(), Some(1), "{step}");
    assert!(
        step["bytes_received"].as_u64().unwrap() > 64 * 1024,
        "{}",
        step["bytes_received"]
    );
    assert!(step["bytes_sent"].as_u64().unwrap() > 0);
}

/// Test-only workload against real Groonga: each request loads `ITEMS` new pages,
/// built at send time; the library's `CountAtPointer` check reads `[[0,…],N]`.
struct GroongaLoad {
    targets: Vec<Target>,
    request: BodyRequest,
}

struct LoadSource {
    request: BodyRequest,
    body: Vec<u8>,
    wire: Vec<u8>,
}

impl RequestSource for LoadSource {
    fn next(&mut self, turn: Turn) -> Request<'_> {
        self.body.clear();
        self.body.push(b'[');
        for i in 0..ITEMS {
            if i > 0 {
                self.body.push(b',');
            }
            write!(
                self.body,
                r#"{{"_key":"load-{}-{}-{i}","title":"loaded"}}"#,
                turn.client, turn.n
            )
            .unwrap();
        }
        self.body.push(b']');
        self.request.write(&mut self.wire, &self.body);
        Request {
            target: 0,
            bytes: &self.wire,
            timeout: Duration::from_secs(5),
            head: false,
            info: 0,
            items: ITEMS,
            label: 0,
            expect: hakaru::kv::Expect::ANY,
        }
    }
}

impl Workload for GroongaLoad {
    type Source = LoadSource;
    type Check = hakaru::workload::check::CountAtPointer;

    fn targets(&self) -> &[Target] {
        &self.targets
    }

    fn request_infos(&self) -> Vec<RequestInfo> {
        Vec::new()
    }

    fn client(&self, _: ClientId) -> (LoadSource, Self::Check) {
        let source = LoadSource {
            request: self.request.clone(),
            body: Vec::new(),
            wire: Vec::new(),
        };
        let check = hakaru::workload::check::CountAtPointer {
            pointer: "/1".into(),
            body_limit: 64 * 1024,
        };
        (source, check)
    }
}

#[test]
fn groonga_load_counts_what_was_kept_and_what_was_not() {
    if !util::have("groonga") {
        return;
    }
    let dir = TempDir::new("groonga-load");
    let db = util::groonga_db(&dir, 10);
    let server = util::groonga_http(&db);
    let addr: std::net::SocketAddr = format!("127.0.0.1:{}", server.port).parse().unwrap();
    let host = addr.to_string();
    let load = |content_type: &str| {
        let workload = Arc::new(GroongaLoad {
            targets: vec![Target {
                https: false,
                host: "127.0.0.1".into(),
                port: addr.port(),
                addrs: vec![addr],
                proto: hakaru::http::Proto::Http,
            }],
            request: BodyRequest::new(
                "POST",
                "/d/load?table=Pages",
                &host,
                &[],
                Some(content_type),
                true,
            ),
        });
        let spec = StepSpec {
            n_clients: 2,
            duration: Some(Duration::from_secs(30)),
            n_requests: Some(20),
            rate: None,
        };
        engine::run_step(
            &workload,
            &config(1),
            &spec,
            0,
            &Stop::default(),
            &mut |_| {},
        )
        .recorder
    };
    let kept = load("application/json");
    assert_eq!(kept.items.sent, 20 * ITEMS);
    assert_eq!(kept.items.ok, 20 * ITEMS, "{:?}", kept.items);
    // With a form's content type (curl --data's default) Groonga answers 200 and
    // loads nothing: acknowledged, not kept, and reported as such.
    let lost = load("application/x-www-form-urlencoded");
    assert_eq!(lost.status_counts().get(&200), Some(&20));
    assert_eq!(lost.items.ok, 0);
    assert_eq!(
        lost.items.failed,
        vec![(hakaru::workload::check::NOT_KEPT.to_string(), 20 * ITEMS)]
    );
}

/// A workload that writes down the draw of every client the runner's steps ask for.
struct Drawn {
    inner: Arc<EchoBatches>,
    asked: Mutex<Vec<u64>>,
}

impl Workload for Drawn {
    type Source = EchoSource;
    type Check = EchoCheck;

    fn targets(&self) -> &[Target] {
        self.inner.targets()
    }

    fn request_infos(&self) -> Vec<RequestInfo> {
        self.inner.request_infos()
    }

    fn client(&self, id: ClientId) -> (EchoSource, EchoCheck) {
        self.asked.lock().unwrap().push(id.draw);
        self.inner.client(id)
    }
}

/// The bug was that every step made its clients alike (seeded by the run's seed and
/// the client's index), so a ramp's steps replayed each other. The runner now hands a
/// step its place in its round as its draw: three steps of two rounds draw 0, 1, 2 and
/// 0, 1, 2 again (rounds replay), and the warm-up a draw of none of them.
#[test]
fn the_runner_gives_each_step_its_place_in_its_round_as_its_draw() {
    let server = util::target();
    let workload = Arc::new(Drawn {
        inner: echo_workload(server.addr, None),
        asked: Mutex::new(Vec::new()),
    });
    let step = StepSpec {
        n_clients: 2,
        duration: Some(Duration::from_secs(30)),
        n_requests: Some(4),
        rate: None,
    };
    let spec = hakaru::runner::RunSpec {
        steps: vec![step; 3],
        rounds: 2,
        warmup: Some(Duration::from_millis(50)),
        ..Default::default()
    };
    let run = hakaru::runner::run(
        &spec,
        &workload,
        &config(1),
        &Stop::default(),
        &mut hakaru::runner::Quiet,
    )
    .unwrap();
    assert_eq!(run.steps.len(), 6);
    let w = hakaru::runner::WARMUP_DRAW;
    assert_eq!(
        *workload.asked.lock().unwrap(),
        [w, w, 0, 0, 1, 1, 2, 2, 0, 0, 1, 1, 2, 2]
    );
}
