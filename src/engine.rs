//! Virtual clients on a thread-per-core runtime.
//!
//! A step runs N clients spread over a few worker threads; each worker is a
//! single-threaded tokio runtime whose clients share one [`Recorder`] without locks.
//! One client loop serves both models:
//! - closed: each client sends its next request as soon as the last one ended (plus `--wait`);
//! - open: requests are due on a fixed schedule (`--rate`), and latency counts from
//!   the moment a request was due, so a stalled server shows in the percentiles
//!   instead of silently slowing the load (no coordinated omission).
//!
//! A step ends at its deadline, at its request budget, or on [`Stop`]; requests still
//! in flight then are cut off and counted as unfinished, so no step outlives its
//! duration, and none outlives its duration plus its timeout.

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::watch;
use tokio::time::timeout_at;
use tokio_rustls::TlsConnector;

use crate::http::{self, Conn};

/// A client's connection to one target, and the read buffer it keeps across
/// reconnects so that a run without keep-alive allocates nothing per request.
struct Slot {
    conn: Option<Conn>,
    spare: Option<Box<[u8]>>,
}

impl Slot {
    fn close(&mut self) {
        if let Some(c) = self.conn.take() {
            self.spare = Some(c.into_buffer());
        }
    }
}
use crate::plan::{Order, Picker, Plan, PreparedRequest};
use crate::stats::{ErrorKind, Outcome, Recorder, RequestSample, LATE_THRESHOLD};
use crate::sysinfo;

/// Settings that hold for every step of a run.
#[derive(Clone)]
pub struct EngineConfig {
    /// Worker threads (each a single-threaded runtime). 0 = one per core.
    pub threads: usize,
    /// Pause of each client between requests (closed model).
    pub wait: Duration,
    pub order: Order,
    pub seed: u64,
    pub keep_alive: bool,
    pub n_slow: usize,
    pub n_fast: usize,
    pub tls: Option<TlsConnector>,
}

/// What one step asks for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StepSpec {
    pub n_clients: usize,
    /// The step ends after this long...
    pub duration: Option<Duration>,
    /// ...or after this many requests, whichever comes first.
    pub n_requests: Option<u64>,
    /// Open model: requests per second, spread evenly.
    pub rate: Option<f64>,
}

/// What the engine measured in one step.
pub struct StepRun {
    pub recorder: Recorder,
    pub started_at: String,
    /// From the start of the step to the moment its last worker stopped.
    pub elapsed: Duration,
    /// Cut short by [`Stop`].
    pub partial: bool,
    /// This process's CPU time (user + system) during the step, seconds.
    pub cpu_s: f64,
}

/// Progress of a running step, for the live line.
#[derive(Debug, Clone, Copy)]
pub struct Progress {
    pub elapsed: Duration,
    /// Requests that ended (response or error) so far.
    pub finished: u64,
}

/// Ends a run early (Ctrl-C). Wakes running steps and sleeping intervals alike.
#[derive(Clone)]
pub struct Stop(Arc<StopInner>);

struct StopInner {
    flag: AtomicBool,
    watch: watch::Sender<bool>,
    lock: Mutex<()>,
    cond: Condvar,
}

impl Default for Stop {
    fn default() -> Self {
        Stop(Arc::new(StopInner {
            flag: AtomicBool::new(false),
            watch: watch::Sender::new(false),
            lock: Mutex::new(()),
            cond: Condvar::new(),
        }))
    }
}

impl Stop {
    pub fn trigger(&self) {
        self.0.flag.store(true, Ordering::SeqCst);
        self.0.watch.send_replace(true);
        let _guard = self.0.lock.lock().unwrap_or_else(|e| e.into_inner());
        self.0.cond.notify_all();
    }

    pub fn is_triggered(&self) -> bool {
        self.0.flag.load(Ordering::SeqCst)
    }

    /// Sleep up to `d`; returns early (true) if stopped.
    pub fn sleep(&self, d: Duration) -> bool {
        let end = Instant::now() + d;
        let mut guard = self.0.lock.lock().unwrap_or_else(|e| e.into_inner());
        while !self.is_triggered() {
            let now = Instant::now();
            if now >= end {
                return false;
            }
            guard = self
                .0
                .cond
                .wait_timeout(guard, end - now)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        true
    }

    fn subscribe(&self) -> watch::Receiver<bool> {
        self.0.watch.subscribe()
    }
}

/// One counter per worker, each on its own cache line so workers never contend.
#[repr(align(64))]
#[derive(Default)]
struct PaddedCounter(AtomicU64);

/// The open model's timetable for one worker: of the global sequence of due times
/// `t0 + i / rate`, worker `w` of `k` takes `i = w, w + k, w + 2k, ...`.
struct Schedule {
    t0: Instant,
    interval_s: f64,
    k: u64,
    w: u64,
    next_j: Cell<u64>,
    /// Total requests of the step (`-n`), if bounded by count.
    limit: Option<u64>,
}

impl Schedule {
    fn due(&self, j: u64) -> (u64, Instant) {
        let i = j * self.k + self.w;
        (
            i,
            self.t0 + Duration::from_secs_f64(i as f64 * self.interval_s),
        )
    }

    /// Requests of this worker that were due before `t` (and within the limit).
    fn due_before(&self, t: Instant) -> u64 {
        let span = t.saturating_duration_since(self.t0).as_secs_f64();
        let mut total = (span / self.interval_s).ceil() as u64; // i in 0..total are due before t
        if let Some(l) = self.limit {
            total = total.min(l);
        }
        if total <= self.w {
            0
        } else {
            (total - self.w).div_ceil(self.k)
        }
    }
}

/// Everything the clients of one worker share. Single-threaded: plain cells.
struct Worker {
    plan: Arc<Plan>,
    cfg: EngineConfig,
    rec: RefCell<Recorder>,
    in_flight: Cell<u64>,
    progress: Arc<[PaddedCounter]>,
    index: usize,
    deadline: Option<Instant>,
    /// Closed model with `-n`: requests left to start, shared by all workers.
    budget: Option<Arc<AtomicU64>>,
    schedule: Option<Schedule>,
}

/// Run one step and return what it measured. Blocks the calling thread.
pub fn run_step(
    plan: &Arc<Plan>,
    cfg: &EngineConfig,
    spec: &StepSpec,
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
    let progress: Arc<[PaddedCounter]> = (0..threads).map(|_| PaddedCounter::default()).collect();
    let budget = match (spec.n_requests, spec.rate) {
        (Some(n), None) => Some(Arc::new(AtomicU64::new(n))),
        _ => None,
    };
    let started_at = sysinfo::now_rfc3339();
    let cpu0 = sysinfo::process_cpu_seconds();
    let t0 = Instant::now();
    let deadline = spec.duration.map(|d| t0 + d);

    let (done_tx, done_rx) = std::sync::mpsc::channel::<(Recorder, Instant)>();
    let mut handles = Vec::with_capacity(threads);
    for w in 0..threads {
        let clients: Vec<usize> = (w..n_clients).step_by(threads).collect();
        let worker = Worker {
            plan: plan.clone(),
            cfg: cfg.clone(),
            rec: RefCell::new(Recorder::new(plan.targets.len(), cfg.n_slow, cfg.n_fast)),
            in_flight: Cell::new(0),
            progress: progress.clone(),
            index: w,
            deadline,
            budget: budget.clone(),
            schedule: spec.rate.map(|r| Schedule {
                t0,
                interval_s: 1.0 / r,
                k: threads as u64,
                w: w as u64,
                next_j: Cell::new(0),
                limit: spec.n_requests,
            }),
        };
        let stop_rx = stop.subscribe();
        let tx = done_tx.clone();
        let handle = std::thread::Builder::new()
            .name(format!("hakaru-worker-{w}"))
            .spawn(move || {
                let rt = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .expect("building a single-threaded runtime");
                let result = run_worker(&rt, worker, clients, stop_rx);
                let _ = tx.send(result);
            })
            .expect("spawning a worker thread");
        handles.push(handle);
    }
    drop(done_tx);

    let mut merged = Recorder::new(plan.targets.len(), cfg.n_slow, cfg.n_fast);
    let mut last_end = t0;
    let mut received = 0;
    while received < threads {
        match done_rx.recv_timeout(Duration::from_millis(250)) {
            Ok((rec, end)) => {
                merged.merge(&rec);
                last_end = last_end.max(end);
                received += 1;
            }
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                let finished = progress.iter().map(|c| c.0.load(Ordering::Relaxed)).sum();
                on_progress(Progress {
                    elapsed: t0.elapsed(),
                    finished,
                });
            }
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => break, // a worker panicked; keep what the others measured
        }
    }
    for h in handles {
        let _ = h.join();
    }
    StepRun {
        recorder: merged,
        started_at,
        elapsed: last_end.saturating_duration_since(t0),
        partial: stop.is_triggered(),
        cpu_s: (sysinfo::process_cpu_seconds() - cpu0).max(0.0),
    }
}

fn run_worker(
    rt: &tokio::runtime::Runtime,
    worker: Worker,
    clients: Vec<usize>,
    mut stop_rx: watch::Receiver<bool>,
) -> (Recorder, Instant) {
    let worker = Rc::new(worker);
    let local = tokio::task::LocalSet::new();
    let end = local.block_on(rt, async {
        let mut tasks: Vec<_> = clients
            .into_iter()
            .map(|c| tokio::task::spawn_local(client_loop(worker.clone(), c)))
            .collect();
        let all_done = async {
            for t in tasks.iter_mut() {
                let _ = t.await;
            }
        };
        let deadline = async {
            match worker.deadline {
                Some(d) => tokio::time::sleep_until(d.into()).await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            _ = all_done => {}
            _ = deadline => {}
            _ = stop_rx.wait_for(|s| *s) => {}
        }
        let end = Instant::now();
        for t in &tasks {
            t.abort();
        }
        end
    });
    // Cut-off requests were neither answered nor failed by the server.
    let mut rec = worker.rec.replace(Recorder::new(0, 0, 0));
    rec.unfinished += worker.in_flight.get();
    if let Some(s) = &worker.schedule {
        let cut = worker.deadline.map_or(end, |d| d.min(end));
        rec.dropped += s.due_before(cut).saturating_sub(s.next_j.get());
    }
    (rec, end)
}

async fn client_loop(w: Rc<Worker>, client: usize) {
    let plan = w.plan.clone();
    let mut picker = Picker::new(w.cfg.order, w.cfg.seed, client);
    let mut conns: Vec<Slot> = (0..plan.targets.len())
        .map(|_| Slot {
            conn: None,
            spare: None,
        })
        .collect();
    let counter = &w.progress[w.index].0;
    let mut index = 0u64;
    loop {
        let due = match &w.schedule {
            Some(s) => {
                let j = s.next_j.get();
                let (i, due) = s.due(j);
                if s.limit.is_some_and(|l| i >= l) || w.deadline.is_some_and(|d| due >= d) {
                    return;
                }
                s.next_j.set(j + 1);
                if due > Instant::now() {
                    tokio::time::sleep_until(due.into()).await;
                }
                Some(due)
            }
            None => {
                if let Some(b) = &w.budget {
                    if b.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1))
                        .is_err()
                    {
                        return;
                    }
                }
                None
            }
        };
        let id = picker.next(&plan);
        let req = &plan.requests[id];
        w.in_flight.set(w.in_flight.get() + 1);
        let sent = Instant::now();
        let outcome = send(&w, &mut conns[req.target], req, sent).await;
        let end = Instant::now();
        w.in_flight.set(w.in_flight.get() - 1);
        {
            let mut rec = w.rec.borrow_mut();
            if let Some(due) = due {
                rec.record_service(end - sent);
                if sent.saturating_duration_since(due) > LATE_THRESHOLD {
                    rec.late += 1;
                }
            }
            let latency = end - due.unwrap_or(sent);
            let status = match outcome {
                Outcome::Status(s) => s,
                Outcome::Error(_) => 0,
            };
            rec.record(req.target, outcome, latency, || RequestSample {
                elapsed_s: latency.as_secs_f64(),
                request: id,
                status,
                client,
                index,
            });
        }
        counter.fetch_add(1, Ordering::Relaxed);
        index += 1;
        if !w.cfg.wait.is_zero() && w.schedule.is_none() {
            tokio::time::sleep(w.cfg.wait).await;
        }
    }
}

/// One request with its timeout (from `sent`): connect if needed, write, read the response.
async fn send(w: &Worker, slot: &mut Slot, req: &PreparedRequest, sent: Instant) -> Outcome {
    let deadline = tokio::time::Instant::from_std(sent + req.timeout);
    match timeout_at(deadline, attempt(w, slot, req)).await {
        Ok(outcome) => outcome,
        Err(_) => {
            // Cut off mid-connect, the buffer went with the connect future; a new one is made.
            slot.close();
            Outcome::Error(ErrorKind::Timeout)
        }
    }
}

async fn attempt(w: &Worker, slot: &mut Slot, req: &PreparedRequest) -> Outcome {
    for first_try in [true, false] {
        let reused = slot.conn.is_some();
        if slot.conn.is_none() {
            let buf = slot.spare.take().unwrap_or_else(http::new_buffer);
            match http::connect(&w.plan.targets[req.target], w.cfg.tls.as_ref(), buf).await {
                Ok((conn, opened)) => {
                    let mut rec = w.rec.borrow_mut();
                    rec.record_connect(opened.connect);
                    if let Some(t) = opened.tls {
                        rec.record_tls(t);
                    }
                    slot.conn = Some(conn);
                }
                Err((kind, buf)) => {
                    slot.spare = Some(buf);
                    return Outcome::Error(kind);
                }
            }
        }
        let conn = slot.conn.as_mut().expect("connected above");
        match conn.exchange(&req.bytes, req.head).await {
            Ok(resp) => {
                let mut rec = w.rec.borrow_mut();
                rec.bytes_received += resp.bytes;
                rec.bytes_sent += req.bytes.len() as u64;
                if resp.close {
                    rec.server_closes += 1;
                }
                if resp.close || !w.cfg.keep_alive {
                    slot.close();
                }
                return Outcome::Status(resp.status);
            }
            Err(e) => {
                slot.close();
                if reused && first_try && e.is_stale_connection() {
                    continue;
                }
                return Outcome::Error(e.kind());
            }
        }
    }
    unreachable!("the loop returns on its second pass")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schedule_splits_due_times_between_workers() {
        let t0 = Instant::now();
        let s = |w| Schedule {
            t0,
            interval_s: 0.01,
            k: 2,
            w,
            next_j: Cell::new(0),
            limit: None,
        };
        // 100 requests due in the first second: 50 for each worker.
        let at = t0 + Duration::from_secs(1);
        assert_eq!(s(0).due_before(at) + s(1).due_before(at), 100);
        assert_eq!(s(1).due(3).0, 7);
        let limited = Schedule {
            limit: Some(15),
            ..s(0)
        };
        assert_eq!(limited.due_before(at), 8);
    }

    #[test]
    fn stop_wakes_a_sleeping_interval() {
        let stop = Stop::default();
        let s2 = stop.clone();
        let t = std::thread::spawn(move || s2.sleep(Duration::from_secs(600)));
        std::thread::sleep(Duration::from_millis(20));
        stop.trigger();
        assert!(t.join().unwrap());
    }
}
