//! Waking up on time: a per-worker timer exact to a few microseconds.
//!
//! tokio's timer wheel has millisecond resolution, so `sleep_until(due)` wakes up to
//! ~1 ms late: at 2,000 requests/s most requests would leave late. Each worker keeps
//! its own heap of wake-up times and one Linux `timerfd` armed for the earliest; the
//! kernel fires it on time and tokio's I/O driver wakes the worker.
//!
//! What the kernel cannot hide is the time an idle CPU takes to wake up: ~0.1 ms on a
//! quiet virtual machine, a few µs on a busy one. The timer learns that latency (a
//! moving average of how late its own wake-ups were), arms the timerfd that much
//! early, and spins only the last stretch. A spin is never longer than the learnt
//! latency and at most [`MAX_LEAD`], so it costs little where wake-ups are slow (low
//! rates) and almost nothing where they are fast (high rates).
//!
//! Request timeouts need no such precision, and are many: one per request. They are
//! kept by a [`Watchdog`] per worker, a cell per client scanned every few
//! milliseconds, so a timeout fires up to [`MAX_TIMEOUT_SLACK`] late but costs the
//! request no timer.
//!
//! Where a timerfd cannot be had (not Linux, or no file descriptor left), waits fall
//! back to tokio's timer, and the pacer lag histogram in the result shows the cost.

use std::cell::{Cell, RefCell};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::future::{poll_fn, Future};
use std::rc::Rc;
use std::task::{Poll, Waker};
use std::time::{Duration, Instant};

/// The longest the timer arms early (and so spins at most, per wake-up).
pub const MAX_LEAD: Duration = Duration::from_micros(250);

/// One pending wake-up; ordered by time, then by arrival.
struct Entry {
    at: Instant,
    seq: u64,
    waker: Waker,
}

impl PartialEq for Entry {
    fn eq(&self, o: &Self) -> bool {
        (self.at, self.seq) == (o.at, o.seq)
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Entry {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        (self.at, self.seq).cmp(&(o.at, o.seq))
    }
}

/// A worker's precise timer. Clone the `Rc` to share it among the worker's clients;
/// [`Timer::drive`] must run as a task on the same worker.
pub struct Timer {
    heap: RefCell<BinaryHeap<Reverse<Entry>>>,
    seq: Cell<u64>,
    /// The due time the timerfd is armed for, if armed.
    armed: Cell<Option<Instant>>,
    /// When the timerfd is set to fire (`armed` less the lead), to learn how late
    /// wake-ups come; `None` when it was armed for a time already past.
    fires_at: Cell<Option<Instant>>,
    /// How early to arm: the learnt wake-up latency, at most [`MAX_LEAD`].
    lead: Cell<Duration>,
    #[cfg(target_os = "linux")]
    fd: Option<tokio::io::unix::AsyncFd<std::os::fd::OwnedFd>>,
}

impl Timer {
    /// A timer on a new timerfd; must be called inside a tokio runtime.
    pub fn new() -> Rc<Timer> {
        Rc::new(Timer {
            heap: RefCell::new(BinaryHeap::new()),
            seq: Cell::new(0),
            armed: Cell::new(None),
            fires_at: Cell::new(None),
            lead: Cell::new(Duration::ZERO),
            #[cfg(target_os = "linux")]
            fd: linux::open(),
        })
    }

    /// Whether waits are exact (timerfd) or fall back to tokio's millisecond timer.
    pub fn is_precise(&self) -> bool {
        #[cfg(target_os = "linux")]
        return self.fd.is_some();
        #[cfg(not(target_os = "linux"))]
        false
    }

    /// Wait until `at`.
    pub async fn sleep_until(&self, at: Instant) {
        if !self.is_precise() {
            tokio::time::sleep_until(at.into()).await;
            return;
        }
        poll_fn(|cx| {
            if Instant::now() >= at {
                return Poll::Ready(());
            }
            let seq = self.seq.get();
            self.seq.set(seq + 1);
            self.heap.borrow_mut().push(Reverse(Entry {
                at,
                seq,
                waker: cx.waker().clone(),
            }));
            if self.armed.get().is_none_or(|armed| at < armed) {
                self.arm(at);
            }
            Poll::Pending
        })
        .await
    }

    fn arm(&self, at: Instant) {
        self.armed.set(Some(at));
        let now = Instant::now();
        let fire = at.checked_sub(self.lead.get()).unwrap_or(at);
        self.fires_at.set((fire > now).then_some(fire));
        NEXT_FIRE.with(|n| n.set(Some(fire)));
        #[cfg(target_os = "linux")]
        if let Some(fd) = &self.fd {
            linux::arm(fd.get_ref(), fire.saturating_duration_since(now));
        }
    }

    /// Learn from one wake-up how late the timerfd's wake-ups come.
    fn learn(&self, now: Instant) {
        if let Some(fire) = self.fires_at.take() {
            let late = now.saturating_duration_since(fire).min(MAX_LEAD);
            // An exponential moving average over ~8 wake-ups.
            self.lead.set((self.lead.get() * 7 + late) / 8);
        }
    }

    /// Fire the wake-ups whose time has come, whenever the timerfd says so. Runs for
    /// the life of the worker.
    pub async fn drive(self: Rc<Self>) {
        #[cfg(target_os = "linux")]
        if let Some(fd) = &self.fd {
            loop {
                let Ok(mut guard) = fd.readable().await else {
                    return;
                };
                if guard.try_io(|f| linux::read(f.get_ref())).is_err() {
                    continue; // not yet readable after all
                }
                self.armed.set(None);
                NEXT_FIRE.with(|n| n.set(None));
                let mut now = Instant::now();
                self.learn(now);
                let spin_limit = self.lead.get() + Duration::from_micros(10);
                let mut heap = self.heap.borrow_mut();
                while let Some(at) = heap.peek().map(|e| e.0.at) {
                    if at <= now {
                        let Reverse(e) = heap.pop().expect("peeked");
                        e.waker.wake();
                    } else if at - now <= spin_limit {
                        // Woken early on purpose: finish the wait on the CPU.
                        while Instant::now() < at {
                            std::hint::spin_loop();
                        }
                        now = Instant::now();
                    } else {
                        break;
                    }
                }
                let next = heap.peek().map(|e| e.0.at);
                drop(heap);
                if let Some(at) = next {
                    self.arm(at);
                }
            }
        }
    }
}

thread_local! {
    /// When this thread's timer is next set to fire, for [`pause_before_park`].
    static NEXT_FIRE: Cell<Option<Instant>> = const { Cell::new(None) };
    /// This thread's requests awaiting their answers, for [`pause_before_park`].
    static IN_FLIGHT: Cell<u64> = const { Cell::new(0) };
    /// The recent response time on this thread, nanoseconds (a moving average of
    /// [`note_answer`]'s), which sizes [`pause_before_park`]'s window.
    static ANSWER_NS: Cell<u64> = const { Cell::new(0) };
    /// What [`pause_before_park`] did on this thread, for the step's result.
    static PAUSES: Cell<Pauses> = const { Cell::new(Pauses::NONE) };
}

/// Tell [`pause_before_park`] how many of this thread's requests await an answer.
pub fn note_in_flight(n: u64) {
    IN_FLIGHT.with(|c| c.set(n));
}

/// Tell [`pause_before_park`] how long an answer took (from its send to its arrival):
/// a moving average over the last ~16 answers sizes the window.
#[inline]
pub fn note_answer(took: Duration) {
    let ns = u64::try_from(took.as_nanos()).unwrap_or(u64::MAX);
    ANSWER_NS.with(|c| {
        let avg = c.get();
        c.set(if avg == 0 {
            ns
        } else {
            // avg + (ns - avg) / 16, in signed arithmetic.
            (avg as i128 + (ns as i128 - avg as i128) / 16).max(1) as u64
        })
    });
}

/// A pause shorter than this is not worth a sleep.
const MIN_PAUSE: Duration = Duration::from_micros(5);

/// The window's share of the recent response time. In the closed model an answer
/// that comes during the pause waits, on average, half of it before its client sends
/// again: a window of a tenth of the response time costs about 5% of the load
/// (1 / (1 + 0.1 / 2) = 0.952), and no more however fast the server is.
const WINDOW_SHARE: u64 = 10;
/// Answers a pause must expect to gather: fewer, and the sleep only delays them.
/// With the window a tenth of the response time, a thread needs 20 requests in
/// flight (answers come at `in_flight / response time`).
const GATHER_AT_LEAST: u64 = 2;

/// What `--coalesce` did on one worker thread in one step: the pauses taken, their
/// length in all, and the wake-ups it let pass because too few answers were in
/// flight to gather. Read (and reset) by [`take_pauses`] as the worker ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Pauses {
    pub taken: u64,
    pub slept_ns: u64,
    pub passed: u64,
}

impl Pauses {
    const NONE: Pauses = Pauses {
        taken: 0,
        slept_ns: 0,
        passed: 0,
    };
}

/// This thread's [`Pauses`] since the last call, and its response-time average reset,
/// so that the next step starts afresh.
pub fn take_pauses() -> Pauses {
    ANSWER_NS.with(|c| c.set(0));
    PAUSES.with(|c| c.replace(Pauses::NONE))
}

/// How long a pause may last with `in_flight` requests awaiting answers that take
/// `answer` on average, under the flag's `most`: a tenth of the response time, and
/// nothing when that window would not gather [`GATHER_AT_LEAST`] answers. `None` when
/// it should not pause.
pub fn window(most: Duration, in_flight: u64, answer: Duration) -> Option<Duration> {
    if in_flight < 2 || answer.is_zero() {
        return None;
    }
    let window = most.min(answer / WINDOW_SHARE as u32);
    // Answers expected within the window: in_flight × window / answer.
    let expected = in_flight as u128 * window.as_nanos() / answer.as_nanos();
    (expected >= u128::from(GATHER_AT_LEAST)).then_some(window)
}

/// `--coalesce`: called as a worker is about to wait for its sockets, sleep a short
/// window first, so that the answers that come meanwhile are read in one wake-up
/// rather than each waking the worker (a wake-up costs the server that sends, too).
/// The window is at most `most` and a tenth of the recent response time, and is taken
/// only when enough requests are in flight for it to gather answers: so a closed
/// model's load falls by no more than ~5% (a fast server, few clients: no pause at
/// all). Never past the timer's next firing: a paced request still leaves on time.
pub fn pause_before_park(most: Duration) {
    let in_flight = IN_FLIGHT.with(Cell::get);
    if in_flight < 2 {
        return;
    }
    let answer = Duration::from_nanos(ANSWER_NS.with(Cell::get));
    let Some(window) = window(most, in_flight, answer) else {
        PAUSES.with(|c| {
            let mut p = c.get();
            p.passed += 1;
            c.set(p);
        });
        return;
    };
    let now = Instant::now();
    let pause = NEXT_FIRE
        .with(Cell::get)
        .map_or(window, |at| at.saturating_duration_since(now).min(window));
    if pause >= MIN_PAUSE {
        std::thread::sleep(pause);
        let slept = now.elapsed();
        PAUSES.with(|c| {
            let mut p = c.get();
            p.taken += 1;
            p.slept_ns += u64::try_from(slept.as_nanos()).unwrap_or(u64::MAX);
            c.set(p);
        });
    }
}

/// The longest a request's timeout may fire late: the watchdog's coarsest tick.
pub const MAX_TIMEOUT_SLACK: Duration = Duration::from_millis(10);
/// The finest tick: a watchdog never scans its clients more often than this.
const MIN_TICK: Duration = Duration::from_millis(1);

/// One client's request deadline, kept in a cell its worker's [`Watchdog`] scans, so
/// that a request's timeout arms no timer of its own: a tokio timer armed and dropped
/// per request was ~13% of the client's user time (docs/performance.md).
#[derive(Default)]
pub struct Deadline {
    at: Cell<Option<Instant>>,
    fired: Cell<bool>,
    waker: Cell<Option<Waker>>,
}

impl Deadline {
    /// Run `fut` until it ends (`Some`) or until the watchdog finds `at` passed
    /// (`None`, `fut` dropped unfinished), up to one tick of the watchdog late.
    pub fn within<F: Future>(
        &self,
        wd: &Watchdog,
        at: Instant,
        timeout: Duration,
        fut: F,
    ) -> Within<'_, F> {
        wd.note_timeout(timeout);
        self.fired.set(false);
        self.at.set(Some(at));
        Within { cell: self, fut }
    }
}

pin_project_lite::pin_project! {
    /// [`Deadline::within`]'s future: a plain struct, not an `async fn`, so the
    /// request's future (large: it holds the whole exchange) is moved once less per
    /// request.
    pub struct Within<'a, F> {
        cell: &'a Deadline,
        #[pin]
        fut: F,
    }
}

impl<F: Future> Future for Within<'_, F> {
    type Output = Option<F::Output>;

    fn poll(self: std::pin::Pin<&mut Self>, cx: &mut std::task::Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        let cell = *this.cell;
        if cell.fired.get() {
            return Poll::Ready(None);
        }
        match this.fut.poll(cx) {
            Poll::Ready(v) => {
                cell.at.set(None);
                Poll::Ready(Some(v))
            }
            Poll::Pending => {
                // Cloned only when the task polling changed (never, in practice).
                let w = match cell.waker.take() {
                    Some(w) if w.will_wake(cx.waker()) => w,
                    _ => cx.waker().clone(),
                };
                cell.waker.set(Some(w));
                Poll::Pending
            }
        }
    }
}

/// A worker's request deadlines: one [`Deadline`] per client, scanned every tick (a
/// twentieth of the shortest timeout seen, between [`MIN_TICK`] and
/// [`MAX_TIMEOUT_SLACK`]). A scan reads one cell per client: at 10,000 clients and
/// 100 ticks a second, ~1M cell reads a second, well under 1% of a core.
pub struct Watchdog {
    clients: Box<[Deadline]>,
    tick: Cell<Duration>,
}

impl Watchdog {
    pub fn new(clients: usize) -> Watchdog {
        Watchdog {
            clients: (0..clients).map(|_| Deadline::default()).collect(),
            tick: Cell::new(MAX_TIMEOUT_SLACK),
        }
    }

    /// Client `i`'s deadline cell.
    pub fn client(&self, i: usize) -> &Deadline {
        &self.clients[i]
    }

    /// Tick finer for a short timeout, so it fires no more than ~5% late.
    fn note_timeout(&self, timeout: Duration) {
        let tick = (timeout / 20).clamp(MIN_TICK, MAX_TIMEOUT_SLACK);
        if tick < self.tick.get() {
            self.tick.set(tick);
        }
    }

    /// Fire the deadlines that passed, every tick, for the life of the worker.
    pub async fn drive(&self) {
        loop {
            tokio::time::sleep(self.tick.get()).await;
            let now = Instant::now();
            for d in self.clients.iter() {
                if d.at.get().is_some_and(|at| at <= now) {
                    d.at.set(None);
                    d.fired.set(true);
                    if let Some(w) = d.waker.take() {
                        w.wake();
                    }
                }
            }
        }
    }
}

#[cfg(target_os = "linux")]
mod linux {
    use std::os::fd::{AsFd, OwnedFd};
    use std::time::Duration;

    use rustix::time::{
        timerfd_create, timerfd_settime, Itimerspec, TimerfdClockId, TimerfdFlags,
        TimerfdTimerFlags, Timespec,
    };
    use tokio::io::unix::AsyncFd;

    pub fn open() -> Option<AsyncFd<OwnedFd>> {
        let fd = timerfd_create(
            TimerfdClockId::Monotonic,
            TimerfdFlags::NONBLOCK | TimerfdFlags::CLOEXEC,
        )
        .ok()?;
        // SAFETY: the AsyncFd owns the OwnedFd, which stays open (and keeps its
        // number) until the AsyncFd is dropped.
        unsafe { AsyncFd::register_with_interest(fd, tokio::io::Interest::READABLE) }.ok()
    }

    pub fn arm(fd: &OwnedFd, after: Duration) {
        // A zero value would disarm the timer: a wake-up already due fires in 1 ns.
        let after = after.max(Duration::from_nanos(1));
        let spec = Itimerspec {
            it_interval: Timespec {
                tv_sec: 0,
                tv_nsec: 0,
            },
            it_value: Timespec {
                tv_sec: after.as_secs() as _,
                tv_nsec: after.subsec_nanos() as _,
            },
        };
        let _ = timerfd_settime(fd.as_fd(), TimerfdTimerFlags::empty(), &spec);
    }

    pub fn read(fd: &OwnedFd) -> std::io::Result<()> {
        let mut expirations = [0u8; 8];
        rustix::io::read(fd.as_fd(), &mut expirations)
            .map(|_| ())
            .map_err(std::io::Error::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn wakes_every_sleeper_in_order() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let local = tokio::task::LocalSet::new();
        local.block_on(&rt, async {
            let timer = Timer::new();
            assert!(timer.is_precise());
            let driver = tokio::task::spawn_local(timer.clone().drive());
            let t0 = Instant::now();
            let order = Rc::new(RefCell::new(Vec::new()));
            let mut tasks = Vec::new();
            for (i, ms) in [3u64, 1, 2].into_iter().enumerate() {
                let (timer, order) = (timer.clone(), order.clone());
                tasks.push(tokio::task::spawn_local(async move {
                    let at = t0 + Duration::from_millis(ms);
                    timer.sleep_until(at).await;
                    assert!(Instant::now() >= at);
                    order.borrow_mut().push(i);
                }));
            }
            for t in tasks {
                t.await.unwrap();
            }
            assert_eq!(*order.borrow(), vec![1, 2, 0]);
            driver.abort();
        });
    }

    /// A request that never ends is cut off by the watchdog within its timeout and a
    /// tick, one that ends in time keeps its answer, and a deadline once fired does not
    /// cut off the client's next request.
    #[test]
    fn the_watchdog_cuts_off_what_outlives_its_deadline_and_only_that() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async {
            let wd = Watchdog::new(2);
            let timeout = Duration::from_millis(40);
            let requests = async {
                let t0 = Instant::now();
                let never = std::future::pending::<()>();
                let cut = wd.client(0).within(&wd, t0 + timeout, timeout, never).await;
                let late = t0.elapsed();
                assert_eq!(cut, None);
                assert!(late >= timeout, "{late:?}");
                assert!(
                    late < timeout + MAX_TIMEOUT_SLACK + Duration::from_millis(20),
                    "{late:?}"
                );
                // The tick followed the short timeout: a twentieth of it.
                assert_eq!(wd.tick.get(), Duration::from_millis(2));
                let t1 = Instant::now();
                let quick = tokio::time::sleep(Duration::from_millis(5));
                let kept = wd.client(0).within(&wd, t1 + timeout, timeout, async {
                    quick.await;
                    7
                });
                assert_eq!(kept.await, Some(7));
                // The other client's cell was never armed.
                assert!(wd.client(1).at.get().is_none() && !wd.client(1).fired.get());
            };
            tokio::select! {
                _ = requests => {}
                _ = wd.drive() => unreachable!("the watchdog runs for the life of the worker"),
            }
        });
    }

    #[test]
    fn the_coalescing_pause_needs_answers_to_gather_and_ends_before_the_timer_fires() {
        // Wide margins: only the sleep's lower bound is exact on a loaded machine.
        let most = Duration::from_millis(200);
        let took = |in_flight, fire: Option<Duration>| {
            note_in_flight(in_flight);
            NEXT_FIRE.with(|n| n.set(fire.map(|d| Instant::now() + d)));
            let t0 = Instant::now();
            pause_before_park(most);
            t0.elapsed()
        };
        take_pauses();
        // Answers of 4 s: the window is the flag's 200 ms, a twentieth of them, so
        // 40 in flight expect two answers in it.
        note_answer(Duration::from_secs(4));
        assert!(took(1, None) < Duration::from_millis(100));
        assert!(took(39, None) < Duration::from_millis(100));
        assert!(took(40, None) >= most);
        let short = took(40, Some(Duration::from_millis(2)));
        assert!(short < Duration::from_millis(100), "{short:?}");
        let p = take_pauses();
        assert_eq!((p.taken, p.passed), (2, 1), "{p:?}");
        assert!(p.slept_ns >= most.as_nanos() as u64);
        // No answer seen yet (a new step): nothing to size the window by.
        assert!(took(1000, None) < Duration::from_millis(100));
        note_in_flight(0);
        NEXT_FIRE.with(|n| n.set(None));
    }

    /// Issue 32: `--coalesce 500us` kept 0.11x of the throughput of two clients on one
    /// worker against a fast target, and 0.3x of ten streams on one HTTP/2 connection:
    /// every answer waited out the window. The window is now a tenth of the response
    /// time, and taken only where it gathers two answers.
    #[test]
    fn coalesce_window_is_a_tenth_of_the_answer_and_only_where_it_gathers() {
        let most = Duration::from_micros(500);
        let us = Duration::from_micros;
        // Two clients, 60 µs answers: nothing to gather in 6 µs.
        assert_eq!(window(most, 2, us(60)), None);
        // Ten streams, 200 µs answers: 20 µs gathers one answer, not two.
        assert_eq!(window(most, 10, us(200)), None);
        // A hundred in flight at 2 ms: 200 µs gathers ten.
        assert_eq!(window(most, 100, us(2000)), Some(us(200)));
        // A slow server: the flag's bound holds.
        assert_eq!(window(most, 300, us(50_000)), Some(most));
        // ...and with too few in flight for its window, no pause at all.
        assert_eq!(window(most, 100, us(50_000)), None);
        // 20 in flight is the least that gathers two in a tenth of the answer.
        assert_eq!(window(most, 20, us(1000)), Some(us(100)));
        assert_eq!(window(most, 19, us(1000)), None);
        // Averaging: a new answer moves the average by a sixteenth of the difference.
        take_pauses();
        note_answer(us(160));
        note_answer(us(320));
        assert_eq!(ANSWER_NS.with(Cell::get), 170_000);
        take_pauses();
    }
}
