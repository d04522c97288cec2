//! A worker's clients, polled as one future without a wake-up per answer wasted.
//!
//! `FuturesUnordered` yields after it has polled every future it holds once, by
//! waking itself. With one client per worker (pgbench's `-c 1`, `run -c 1`) that
//! is every poll: each answer then cost a second pass through the runtime, an
//! `epoll_wait` with a zero timeout and three more clock reads, ~1.9 `epoll_wait`s
//! per request where one is due (docs/performance.md, 2026-11-29).
//!
//! [`Settled`] polls the set with a waker of its own. A wake that comes while the
//! set is being polled is only noted, and the set is polled again at once; if it is
//! still pending and nothing woke it, the pass is over and the runtime may sleep.
//! A set that keeps waking itself is handed back to the runtime after
//! [`PASSES`] passes, so the I/O driver and the timers are never starved. A wake
//! from outside a pass (the I/O driver, another thread) goes straight to the
//! runtime's waker, as before.

use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};

use futures_util::stream::Stream;
use futures_util::task::AtomicWaker;

/// Passes over the set per poll before a wake-up it gave itself goes to the runtime.
const PASSES: usize = 2;

/// Where the set's wake-ups go: noted during a pass, else on to the runtime.
#[derive(Default)]
struct Relay {
    runtime: AtomicWaker,
    in_pass: AtomicBool,
    woken: AtomicBool,
}

impl Wake for Relay {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        if self.in_pass.load(Ordering::SeqCst) {
            self.woken.store(true, Ordering::SeqCst);
        } else {
            self.runtime.wake();
        }
    }
}

/// A stream (the worker's `FuturesUnordered` of clients) polled until it settles.
pub(super) struct Settled<S> {
    inner: S,
    relay: Arc<Relay>,
    waker: Waker,
}

impl<S> Settled<S> {
    pub(super) fn new(inner: S) -> Settled<S> {
        let relay = Arc::new(Relay::default());
        let waker = Waker::from(relay.clone());
        Settled {
            inner,
            relay,
            waker,
        }
    }
}

impl<S: Stream + Unpin> Stream for Settled<S> {
    type Item = S::Item;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<S::Item>> {
        let me = self.get_mut();
        me.relay.runtime.register(cx.waker());
        let mut inner_cx = Context::from_waker(&me.waker);
        for _ in 0..PASSES {
            me.relay.woken.store(false, Ordering::SeqCst);
            me.relay.in_pass.store(true, Ordering::SeqCst);
            let polled = Pin::new(&mut me.inner).poll_next(&mut inner_cx);
            me.relay.in_pass.store(false, Ordering::SeqCst);
            if polled.is_ready() || !me.relay.woken.load(Ordering::SeqCst) {
                return polled;
            }
        }
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures_util::stream::{FuturesUnordered, StreamExt};
    use std::cell::Cell;
    use std::future::poll_fn;
    use std::rc::Rc;

    /// A waker that counts its wakes.
    #[derive(Default)]
    struct Count(std::sync::atomic::AtomicUsize);
    impl Wake for Count {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    /// The bug: one pending client made `FuturesUnordered` wake its parent on every
    /// poll, so the runtime polled the worker twice per answer.
    #[test]
    fn a_lone_pending_client_does_not_wake_the_worker_again() {
        let set: FuturesUnordered<_> = [std::future::pending::<()>()].into_iter().collect();
        let count = Arc::new(Count::default());
        let waker = Waker::from(count.clone());
        let mut cx = Context::from_waker(&waker);
        let mut bare = set;
        assert!(bare.poll_next_unpin(&mut cx).is_pending());
        assert_eq!(count.0.load(Ordering::SeqCst), 1, "FuturesUnordered yields");
        let mut settled = Settled::new(bare);
        count.0.store(0, Ordering::SeqCst);
        assert!(settled.poll_next_unpin(&mut cx).is_pending());
        assert_eq!(count.0.load(Ordering::SeqCst), 0);
    }

    /// A client woken from outside a pass (the I/O driver) still wakes the worker,
    /// and is polled when the worker is.
    #[test]
    fn a_wake_from_outside_reaches_the_runtime_and_the_client_runs() {
        let slot: Rc<Cell<Option<Waker>>> = Rc::default();
        let ready = Rc::new(Cell::new(false));
        let (s, r) = (slot.clone(), ready.clone());
        let client = poll_fn(move |cx| {
            if r.get() {
                return Poll::Ready(7);
            }
            s.set(Some(cx.waker().clone()));
            Poll::Pending
        });
        let mut settled = Settled::new([client].into_iter().collect::<FuturesUnordered<_>>());
        let count = Arc::new(Count::default());
        let waker = Waker::from(count.clone());
        let mut cx = Context::from_waker(&waker);
        assert!(settled.poll_next_unpin(&mut cx).is_pending());
        ready.set(true);
        slot.take().unwrap().wake();
        assert_eq!(count.0.load(Ordering::SeqCst), 1);
        assert_eq!(settled.poll_next_unpin(&mut cx), Poll::Ready(Some(7)));
    }

    /// A client that wakes itself on every poll is handed back to the runtime after
    /// a bounded number of passes, so the I/O driver and timers are not starved.
    #[test]
    fn a_client_that_always_yields_goes_back_to_the_runtime() {
        let polls = Rc::new(Cell::new(0));
        let p = polls.clone();
        let client = poll_fn(move |cx| {
            p.set(p.get() + 1);
            cx.waker().wake_by_ref();
            Poll::<()>::Pending
        });
        let mut settled = Settled::new([client].into_iter().collect::<FuturesUnordered<_>>());
        let count = Arc::new(Count::default());
        let waker = Waker::from(count.clone());
        let mut cx = Context::from_waker(&waker);
        assert!(settled.poll_next_unpin(&mut cx).is_pending());
        assert_eq!(count.0.load(Ordering::SeqCst), 1);
        assert!(polls.get() <= PASSES, "polled {} times", polls.get());
    }
}

/// The step's end, told to the worker's clients future: raised once by the task
/// that watches the deadline, Ctrl-C and the timers. Polled at every wake-up beside
/// the clients, so it costs a flag's read, where a `JoinHandle` cost its task's
/// state, a waker check and a coop budget (~140 instructions an answer at `-c 1`).
#[derive(Default)]
pub(super) struct EndFlag {
    raised: std::cell::Cell<bool>,
    waker: std::cell::Cell<Option<Waker>>,
}

impl EndFlag {
    pub fn raise(&self) {
        self.raised.set(true);
        if let Some(w) = self.waker.take() {
            w.wake();
        }
    }

    /// Ready once raised.
    pub fn raised(&self) -> impl std::future::Future<Output = ()> + '_ {
        std::future::poll_fn(move |cx| {
            if self.raised.get() {
                return Poll::Ready(());
            }
            let w = match self.waker.take() {
                Some(w) if w.will_wake(cx.waker()) => w,
                _ => cx.waker().clone(),
            };
            self.waker.set(Some(w));
            Poll::Pending
        })
    }
}
