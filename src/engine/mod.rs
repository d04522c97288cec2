//! The engine: virtual clients on a thread-per-core runtime, with the kind of load as
//! strategies behind one client loop.
//!
//! A step runs N clients spread over a few worker threads; each worker is a
//! single-threaded tokio runtime whose clients share one [`Recorder`] without locks,
//! merged exactly with the other workers' at the end of the step. A worker's clients
//! are one future (a set polled in its `block_on`), not a tokio task each, and their
//! request timeouts are kept by the worker's [`timer::Watchdog`], not a timer each. What varies is
//! plugged in, never copied:
//! - **what to send** and **what to make of the answer**: a [`Workload`] gives each
//!   client a [`RequestSource`] and a [`ResponseCheck`] ([`workload`]);
//! - **when to send**: the [`pacer`] — closed model (back to back, `--wait`, a `-n`
//!   budget) or open model (a [`RateProfile`] timetable, latency from each request's
//!   due time, no coordinated omission), woken by a [`timer`] exact to microseconds.
//!
//! A step ends at its deadline, at its request budget, or on [`Stop`]; requests still
//! in flight then are cut off and counted as unfinished, so no step outlives its
//! duration (plus its timeout when it ends by count). A panicking worker fails the
//! step instead of vanishing from its numbers.

mod client;
mod clients;
pub mod live;
pub mod pacer;
mod shared;
mod sql;
mod stop;
pub mod timer;
pub mod workload;

use std::cell::{Cell, RefCell};
use std::panic::AssertUnwindSafe;
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::future::Either;
use futures_util::stream::{FuturesUnordered, StreamExt};
use futures_util::FutureExt;
use tokio::sync::watch;
use tokio_rustls::TlsConnector;

/// A request's reply types ([`Request::expect`]): HTTP workloads give [`Expect::ANY`].
pub use crate::kv::Expect;
pub use pacer::{Lane, RateProfile};
pub use shared::{ConnectionSettings, MAX_STREAMS};
pub use stop::Stop;
pub use workload::{
    Answer, ClientId, Request, RequestSource, ResponseCheck, StatusOnly, Turn, Workload,
};

use crate::http::Meter;
use crate::stats::{Finished, OkStatus, Recorder};
use crate::sysinfo;
use pacer::{Budget, Timetable};

/// The longest request timeout: the histograms track latency up to one hour exactly.
pub const MAX_TIMEOUT: Duration = Duration::from_secs(3600);
/// The longest step, interval, warm-up or pause a run accepts: 30 days.
pub const MAX_DURATION: Duration = Duration::from_secs(30 * 24 * 3600);

/// Settings that hold for every step of a run.
#[derive(Clone)]
pub struct EngineConfig {
    /// Worker threads (each a single-threaded runtime). 0 = one per core.
    pub threads: usize,
    /// Pause of each client between requests (closed model).
    pub wait: Duration,
    pub keep_alive: bool,
    pub n_slow: usize,
    pub n_fast: usize,
    pub tls: Option<TlsConnector>,
    /// The part of every step's open-model timetable this process sends
    /// ([`Lane::ALL`] unless the run is one shard of many).
    pub lane: Lane,
    /// What counts as a success (`--ok-status`).
    pub ok_status: OkStatus,
    /// The labels the run's thresholds name: timed whatever their rank, and fed to
    /// `--abort-on-fail`'s judge as their seconds end ([`live::LabelFeed`]).
    pub label_feed: Option<Arc<live::LabelFeed>>,
    /// `--http2`, `--streams`: the protocol, and how many clients share a connection.
    pub connection: ConnectionSettings,
    /// Time each response's head from the request's write (`ab`'s Waiting); off
    /// elsewhere, so other runs pay no extra clock reads.
    pub time_first_byte: bool,
    /// Open model: skip a turn whose due time is already further past than this
    /// when its client could send it (pgbench's `-R --latency-limit`), counted in
    /// [`Recorder::skipped`].
    pub skip_late: Option<Duration>,
    /// Closed model with a budget (`StepSpec::n_requests`): each client sends exactly
    /// its share, budget ÷ clients (pgbench's `-t`), instead of all drawing on one.
    pub budget_per_client: bool,
    /// The longest a client's login before the step may take (SQL with keep-alive:
    /// [`sql::log_in_all`]); the request timeout.
    pub login_timeout: Duration,
}

/// What one step asks for.
#[derive(Debug, Clone, PartialEq)]
pub struct StepSpec {
    pub n_clients: usize,
    /// The step ends after this long...
    pub duration: Option<Duration>,
    /// ...or after this many requests, whichever comes first.
    pub n_requests: Option<u64>,
    /// Open model: the arrival rate over the step.
    pub rate: Option<Arc<RateProfile>>,
}

impl StepSpec {
    /// Open model: the mean arrival rate over the step, requests per second.
    pub fn mean_rate(&self) -> Option<f64> {
        self.rate.as_ref().map(|r| r.mean_rate(self.duration))
    }
}

/// What the engine measured in one step.
pub struct StepRun {
    pub recorder: Recorder,
    pub started_at: String,
    /// From the start of the step to the moment its last worker stopped.
    pub elapsed: Duration,
    /// Cut short by [`Stop`] or by a failure.
    pub partial: bool,
    /// Why the step failed (a worker panicked): its numbers are incomplete.
    pub failure: Option<String>,
    /// This process's CPU time (user + system) during the step, seconds.
    pub cpu_s: f64,
    /// SQL with keep-alive: from the step's start to its clock's, every client
    /// logging in meanwhile ([`sql::log_in_all`]).
    pub logins: Option<Duration>,
}

/// Progress of a running step, for the live line.
#[derive(Debug, Clone, Copy)]
pub struct Progress {
    pub elapsed: Duration,
    /// Requests that ended (response or error) so far.
    pub finished: u64,
    /// Of those, requests without a 2xx/3xx response (errors, 4xx, 5xx).
    pub failed: u64,
    /// Every response's latency so far, coarsely: the live line's p99 over its window.
    pub latency: live::Snapshot,
}

/// One worker's counters (ended, failed, coarse latency), on cache lines of their own
/// so workers never contend; only the worker writes them.
#[repr(align(64))]
#[derive(Default)]
struct PaddedCounter(AtomicU64, AtomicU64, live::Counts);

/// How one worker paces its clients.
enum WorkerPace {
    Closed {
        wait: Duration,
        /// `-n`: this worker's claim on the step's shared budget.
        budget: Option<Budget>,
        /// pgbench's `-t`: the requests each client sends, no more, no fewer.
        each: Option<u64>,
    },
    Open(Timetable),
}

/// Everything the clients of one worker share. Single-threaded: plain cells.
struct Worker<W: Workload> {
    workload: Arc<W>,
    cfg: EngineConfig,
    rec: RefCell<Recorder>,
    /// Shared with the worker's HTTP/2 connections, whose own tasks count their bytes.
    meter: Rc<Meter>,
    /// `--http2`: the connections its clients share (see [`shared`]).
    pool: Option<shared::Pool>,
    in_flight: Cell<u64>,
    /// Its clients' request deadlines (indexed by [`client::Client::local`]).
    watchdog: timer::Watchdog,
    progress: Arc<[PaddedCounter]>,
    index: usize,
    deadline: Option<Instant>,
    pace: WorkerPace,
    /// The step's draw, handed to every client the workload makes ([`ClientId`]).
    draw: u64,
    /// To the coordinating thread: each second as it ends.
    to_coordinator: std::sync::mpsc::Sender<Message>,
}

impl<W: Workload> Worker<W> {
    /// Client `index` of this step, as the workload is asked for it.
    fn id(&self, index: usize) -> ClientId {
        ClientId::new(index, self.draw)
    }

    /// Hand a finished second to the coordinator (once a second at most).
    #[cold]
    fn hand_over(&self, f: Box<Finished>) {
        // The coordinator outlives every worker; a send cannot fail while it waits.
        let _ = self.to_coordinator.send(Message::Second(f));
    }
}

/// What a worker thread hands back: its measurements, when it stopped, and why it
/// failed if it did.
type WorkerEnd = (Recorder, Instant, Option<String>);

/// What workers tell the coordinating thread.
enum Message {
    /// A second a worker finished: added to the step's timeline as it arrives, so no
    /// worker keeps more than the second it is in.
    Second(Box<Finished>),
    /// A worker's clients are logged in (`true` if it had any to log in): it waits
    /// for the step's clock.
    Ready(bool),
    /// A worker stopped (boxed: a recorder is large, and this comes once a step).
    Done(Box<WorkerEnd>),
}

/// How often the coordinator reports progress.
const PROGRESS_EVERY: Duration = Duration::from_millis(250);

/// Run one step of `workload` and return what it measured. Blocks the calling thread.
/// Its clients draw their requests from draw `draw` ([`ClientId`]: the runner gives a
/// step its place in its round).
pub fn run_step<W: Workload>(
    workload: &Arc<W>,
    cfg: &EngineConfig,
    spec: &StepSpec,
    draw: u64,
    stop: &Stop,
    on_progress: &mut dyn FnMut(Progress),
) -> StepRun {
    let n_clients = spec.n_clients.max(1);
    let threads = if cfg.threads == 0 {
        sysinfo::cpus()
    } else {
        cfg.threads
    }
    .clamp(1, n_clients);
    let n_hosts = workload.targets().len();
    let progress: Arc<[PaddedCounter]> = (0..threads).map(|_| PaddedCounter::default()).collect();
    let (each, budget) = closed_budget(spec, cfg, n_clients);
    // The step's clock starts once every client is logged in ([`start_together`]);
    // each worker's timetable and deadline are set then ([`Start`]).
    let spawned_at = Instant::now();
    let labels = workload.labels();
    let new_recorder = || {
        Recorder::new(n_hosts, cfg.n_slow, cfg.n_fast)
            .with_labels(labels.clone())
            .with_ok(cfg.ok_status)
    };

    // The labels thresholds name get seconds of their own, fed to the live judge.
    let feed = cfg.label_feed.as_deref();
    let named = feed.map_or_else(Vec::new, |f| f.start_step(&labels));
    let (done_tx, done_rx) = std::sync::mpsc::channel::<Message>();
    let mut handles = Vec::with_capacity(threads);
    let mut go = Vec::with_capacity(threads);
    let mut spawn_failure = None;
    let mut cfg = cfg.clone();
    if let (true, Some(tls)) = (cfg.connection.http2, &cfg.tls) {
        cfg.tls = Some(crate::http::offer_h2(tls));
    }
    for w in 0..threads {
        let clients: Vec<usize> = (w..n_clients).step_by(threads).collect();
        let pace = match &spec.rate {
            Some(profile) => WorkerPace::Open(Timetable::new(
                spawned_at,
                profile.clone(),
                cfg.lane.split(w as u64, threads as u64),
                spec.n_requests,
                None,
            )),
            None => WorkerPace::Closed {
                wait: cfg.wait,
                budget: budget
                    .as_ref()
                    .map(|b| Budget::new(b.clone(), spec.n_requests.unwrap_or(0), threads)),
                each,
            },
        };
        let (workload, cfg, progress) = (workload.clone(), cfg.clone(), progress.clone());
        let rec = new_recorder();
        let (go_tx, go_rx) = std::sync::mpsc::channel();
        let start = Start {
            go: go_rx,
            duration: spec.duration,
            named: named.clone(),
        };
        let to_coordinator = done_tx.clone();
        let stop_rx = stop.subscribe();
        let tx = done_tx.clone();
        let spawned = std::thread::Builder::new()
            .name(format!("hakaru-worker-{w}"))
            .spawn(move || {
                let end = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    // Built on its own thread: its connections' parts are not `Send`.
                    let pool = cfg.connection.shares().then(|| {
                        shared::Pool::new(cfg.connection, clients.len(), workload.targets().len())
                    });
                    let worker = Worker {
                        workload,
                        cfg,
                        rec: RefCell::new(rec),
                        meter: Rc::default(),
                        pool,
                        in_flight: Cell::new(0),
                        watchdog: timer::Watchdog::new(clients.len()),
                        progress,
                        index: w,
                        deadline: None,
                        pace,
                        draw,
                        to_coordinator,
                    };
                    run_worker(worker, clients, stop_rx, start)
                }))
                .unwrap_or_else(|p| {
                    (
                        Recorder::new(0, 0, 0),
                        Instant::now(),
                        Some(panic_message(&*p)),
                    )
                });
                let _ = tx.send(Message::Done(Box::new(end)));
            });
        match spawned {
            Ok(h) => {
                handles.push(h);
                go.push(go_tx);
            }
            Err(e) => {
                spawn_failure = Some(format!("cannot start worker thread {w}: {e}"));
                break;
            }
        }
    }
    drop(done_tx);

    let (t0, early, logged_in) = start_together(&done_rx, go);
    // The step's CPU from its clock's start, as its elapsed time (the logins' not in
    // it: 40 ms of SCRAM over an 8 ms step read as 625% of the cores).
    let cpu0 = sysinfo::process_cpu_seconds();
    let logins = logged_in.then(|| t0.saturating_duration_since(spawned_at));
    let started_at = sysinfo::now_rfc3339();
    let mut gathered = Gathered {
        merged: new_recorder(),
        failure: spawn_failure,
        last_end: t0,
    };
    early.into_iter().for_each(|m| gathered.take(m, &cfg));
    let watch = Watch {
        progress: &progress,
        t0,
        on_progress,
    };
    gathered.until_done(&done_rx, handles, &cfg, watch);
    let Gathered {
        merged,
        failure,
        last_end,
    } = gathered;
    StepRun {
        recorder: merged,
        started_at,
        elapsed: last_end.saturating_duration_since(t0),
        partial: stop.is_triggered() || failure.is_some(),
        failure,
        cpu_s: (sysinfo::process_cpu_seconds() - cpu0).max(0.0),
        logins,
    }
}

/// What the coordinator gathers from its workers' messages.
struct Gathered {
    merged: Recorder,
    failure: Option<String>,
    last_end: Instant,
}

/// What the coordinator reports progress from while it gathers.
struct Watch<'a> {
    progress: &'a [PaddedCounter],
    t0: Instant,
    on_progress: &'a mut dyn FnMut(Progress),
}

impl Gathered {
    /// Takes the workers' messages until every worker is done, reporting progress
    /// on its own beat, then joins their threads.
    fn until_done(
        &mut self,
        done_rx: &std::sync::mpsc::Receiver<Message>,
        handles: Vec<std::thread::JoinHandle<()>>,
        cfg: &EngineConfig,
        watch: Watch<'_>,
    ) {
        let mut next_progress = watch.t0 + PROGRESS_EVERY;
        loop {
            let wait = next_progress.saturating_duration_since(Instant::now());
            match done_rx.recv_timeout(wait) {
                Ok(m) => self.take(m, cfg),
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
                // Every worker has answered (or died without a word).
                Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => break,
            }
            // Seconds arrive often: progress keeps its own beat.
            if Instant::now() >= next_progress {
                next_progress = Instant::now() + PROGRESS_EVERY;
                (watch.on_progress)(progress_now(watch.progress, watch.t0));
            }
        }
        for h in handles {
            if h.join().is_err() && self.failure.is_none() {
                self.failure = Some("a worker thread died".into());
            }
        }
    }

    fn take(&mut self, m: Message, cfg: &EngineConfig) {
        match m {
            Message::Second(f) => {
                // The labels thresholds name, for the live judge, then the timeline.
                cfg.label_feed.iter().for_each(|feed| feed.add(&f));
                self.merged.add_second(*f)
            }
            Message::Done(done) => {
                let (rec, end, failed) = *done;
                self.merged.merge(&rec);
                self.last_end = self.last_end.max(end);
                self.failure = self.failure.take().or(failed);
            }
            Message::Ready(_) => {}
        }
    }
}

/// Waits until every worker is ready (its clients logged in) or has stopped, then
/// starts the step's clock for all of them at once: the step's `t0`, the messages
/// that came before it, and whether any worker logged clients in.
fn start_together(
    done_rx: &std::sync::mpsc::Receiver<Message>,
    go: Vec<std::sync::mpsc::Sender<Instant>>,
) -> (Instant, Vec<Message>, bool) {
    let mut early = Vec::new();
    let mut logged_in = false;
    let mut waiting = go.len();
    while waiting > 0 {
        match done_rx.recv() {
            Ok(Message::Ready(any)) => {
                waiting -= 1;
                logged_in |= any;
            }
            Ok(m @ Message::Done(_)) => {
                waiting -= 1;
                early.push(m);
            }
            Ok(m) => early.push(m),
            Err(_) => break,
        }
    }
    let t0 = Instant::now();
    for g in go {
        // A worker that stopped before it was ready has dropped its receiver.
        let _ = g.send(t0);
    }
    (t0, early, logged_in)
}

/// A worker's half of [`start_together`].
struct Start {
    go: std::sync::mpsc::Receiver<Instant>,
    duration: Option<Duration>,
    /// The labels thresholds name, timed per second ([`Recorder::with_timed_ticker`]).
    named: Vec<u16>,
}

/// A worker's SQL clients' logins, before the step's clock starts (keep-alive only:
/// without it each transaction logs in within its own time, pgbench's `-C`); none
/// for a workload with no SQL target, or once Ctrl-C stops the run.
fn log_in_first<W: Workload>(
    rt: &tokio::runtime::Runtime,
    worker: &Worker<W>,
    clients: usize,
    limit: Duration,
    stop_rx: &mut watch::Receiver<bool>,
) -> sql::LoggedIn {
    let targets = worker.workload.targets();
    if !worker.cfg.keep_alive || !targets.iter().any(|t| t.proto.is_sql()) {
        return sql::LoggedIn::default();
    }
    rt.block_on(async {
        tokio::select! {
            logged_in = sql::log_in_all(targets, clients, limit) => logged_in,
            _ = stop_rx.wait_for(|s| *s) => sql::LoggedIn::default(),
        }
    })
}

/// The step's progress now, from the workers' counters.
fn progress_now(progress: &[PaddedCounter], t0: Instant) -> Progress {
    Progress {
        elapsed: t0.elapsed(),
        finished: progress.iter().map(|c| c.0.load(Ordering::Relaxed)).sum(),
        failed: progress.iter().map(|c| c.1.load(Ordering::Relaxed)).sum(),
        latency: live::Snapshot::of(progress.iter().map(|c| &c.2)),
    }
}

fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    let what = p
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into());
    format!("a worker failed: {what}")
}

/// A closed-model step's budget (`n_requests`): each client's share (pgbench's
/// `-t`, [`EngineConfig::budget_per_client`]), or one count all clients draw on.
fn closed_budget(
    spec: &StepSpec,
    cfg: &EngineConfig,
    n_clients: usize,
) -> (Option<u64>, Option<Arc<AtomicU64>>) {
    match (spec.n_requests, &spec.rate) {
        (Some(n), None) if cfg.budget_per_client => (Some(n / n_clients.max(1) as u64), None),
        (Some(n), None) => (None, Some(Arc::new(AtomicU64::new(n)))),
        _ => (None, None),
    }
}

fn run_worker<W: Workload>(
    mut worker: Worker<W>,
    clients: Vec<usize>,
    mut stop_rx: watch::Receiver<bool>,
    start: Start,
) -> WorkerEnd {
    let coalesce = worker.cfg.connection.coalesce;
    crate::http::stamp_arrivals(coalesce.is_some());
    let mut builder = tokio::runtime::Builder::new_current_thread();
    if let Some(most) = coalesce {
        builder.on_thread_park(move || timer::pause_before_park(most));
    }
    let rt = match builder.enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            let why = if crate::http::is_client_limit(&e) {
                format!("cannot build a worker's runtime: {e} (raise the limit with ulimit -n)")
            } else {
                format!("cannot build a worker's runtime: {e}")
            };
            return (worker.rec.into_inner(), Instant::now(), Some(why));
        }
    };
    // No longer than a request may take: the run still ends within its duration
    // plus its timeout.
    let limit = worker.cfg.login_timeout;
    let logged_in = log_in_first(&rt, &worker, clients.len(), limit, &mut stop_rx);
    // Ready; then the step's clock, the same for every worker.
    let any = !logged_in.slots.is_empty();
    let _ = worker.to_coordinator.send(Message::Ready(any));
    let Ok(t0) = start.go.recv() else {
        return (worker.rec.into_inner(), Instant::now(), None);
    };
    worker.deadline = start.duration.and_then(|d| t0.checked_add(d));
    if let WorkerPace::Open(t) = &mut worker.pace {
        t.start_at(t0, worker.deadline);
    }
    let rec = worker.rec.get_mut();
    *rec = std::mem::replace(rec, Recorder::new(0, 0, 0)).with_timed_ticker(t0, &start.named);
    logged_in.took.iter().for_each(|d| rec.record_connect(*d));
    let mut logged_in = logged_in.slots.into_iter();
    let worker = Rc::new(worker);
    // Kept for the tasks a worker's shared connections spawn (HTTP/2, `--pipeline`).
    let local = tokio::task::LocalSet::new();
    let (end, failure) = local.block_on(&rt, async {
        let timer = timer::Timer::new();
        // The worker's clients are one future, not a tokio task each: a client's
        // wake-up is a push on the set's queue, not a trip through tokio's scheduler
        // (~25% of the client's user time, docs/performance.md). A panic is caught
        // where it happens and fails the step.
        let clients = clients
            .into_iter()
            .enumerate()
            .map(|(local, c)| client::Client { global: c, local });
        // `--pipeline` on key-value stores, closed model: one future per group's
        // connection drives its clients' turns (see `shared::driver`).
        let clients: FuturesUnordered<_> = if shared::driver::drives(&worker) {
            let streams = worker.cfg.connection.streams;
            let clients: Vec<_> = clients.collect();
            clients
                .chunks(streams)
                .map(|group| {
                    let drive = shared::driver::drive(worker.clone(), group.to_vec());
                    AssertUnwindSafe(Either::Right(drive)).catch_unwind()
                })
                .collect()
        } else {
            clients
                .map(|client| {
                    let sql = logged_in.next().unwrap_or_default();
                    let run = client::run(worker.clone(), timer.clone(), client, sql);
                    AssertUnwindSafe(Either::Left(run)).catch_unwind()
                })
                .collect()
        };
        let mut clients = clients::Settled::new(clients);
        let all_done = async {
            while let Some(ended) = clients.next().await {
                if let Err(p) = ended {
                    return Some(panic_message(&*p));
                }
            }
            None
        };
        // What ends the step early, and the worker's timers, in a task of their own:
        // the clients' future is polled at every wake-up, and should poll nothing else.
        let watched = worker.clone();
        let end = Rc::new(clients::EndFlag::default());
        let raise = end.clone();
        let ends = tokio::task::spawn_local(async move {
            let deadline = async {
                match watched.deadline {
                    Some(d) => tokio::time::sleep_until(d.into()).await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                _ = deadline => {}
                _ = stop_rx.wait_for(|s| *s) => {}
                // Without a timerfd, `drive` returns at once: it must not end the step.
                _ = async { timer.drive().await; std::future::pending().await } => {}
                _ = watched.watchdog.drive() => {}
            }
            raise.raise();
        });
        let failure = tokio::select! {
            biased;
            f = all_done => f,
            _ = end.raised() => None,
        };
        ends.abort();
        (Instant::now(), failure)
    });
    drop(local);
    let mut rec = worker.rec.replace(Recorder::new(0, 0, 0));
    // Cut-off requests were neither answered nor failed by the server.
    rec.unfinished += worker.in_flight.get();
    let received = worker.meter.received.get();
    if let Some(last) = rec.ticker.take().and_then(|mut t| t.finish(received)) {
        worker.hand_over(last);
    }
    rec.bytes_received += received;
    rec.bytes_sent += worker.meter.sent.get();
    let pauses = timer::take_pauses();
    rec.coalesce_pauses += pauses.taken;
    rec.coalesce_slept_us += pauses.slept_ns / 1000;
    rec.coalesce_passed += pauses.passed;
    if let WorkerPace::Open(t) = &worker.pace {
        let cut = worker.deadline.map_or(end, |d| d.min(end));
        rec.dropped += t.missed_before(cut);
    }
    (rec, end, failure)
}
