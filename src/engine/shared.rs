//! Connections that several virtual clients of one worker share: the seam between
//! "one client, one connection, one request at a time" (HTTP/1.1, each client's own
//! [`crate::http::Conn`]) and protocols that carry many requests at once.
//!
//! A worker's clients are cut into groups of `--streams`; each group shares one
//! connection per target ([`Shared`]). The first client to find it missing opens it
//! while the others of its group wait; each client then keeps a [`Handle`] on it and
//! sends its own request on it, one at a time, as before: the client loop, pacing and
//! recording do not change. A connection that ends (GOAWAY, an error) is retired by
//! generation, so a client holding an old handle never retires its successor.
//!
//! [`SharedConn`] is what a group shares: HTTP/2 (streams answered in any order,
//! `http::h2`), or an in-order pipelined connection to a key-value store
//! (`--pipeline N` for RESP or memcached: N commands in flight, replies in order,
//! [`pipeline`]), whose handle's exchange queues the command and awaits its reply in
//! its turn. Opening, retiring by generation and the groups are the same for both.

pub(super) mod driver;
pub mod pipeline;

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use crate::http::h2::H2Conn;
use pipeline::{PipeConn, Waiter};

/// How the engine connects: `--http2` and `--streams`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConnectionSettings {
    /// Speak HTTP/2: h2c with prior knowledge on plain TCP, and `h2` offered first in
    /// TLS ALPN (a server that picks HTTP/1.1 is spoken to in HTTP/1.1).
    pub http2: bool,
    /// Clients that share one connection (h2load's `-m`): the streams each connection
    /// carries at once. 1 gives every client its own connection, as HTTP/1.1 does.
    /// Without `http2`, on a key-value target: `--pipeline N` (redis-benchmark's
    /// `-P`), N commands in flight on one connection, one per client of the group.
    pub streams: usize,
    /// `--coalesce`: before a worker waits for its sockets it sleeps up to this long,
    /// so that one wake-up reads many answers; each answer's end is the kernel's
    /// receive time, so latencies do not grow by the sleep. Plain HTTP only.
    pub coalesce: Option<std::time::Duration>,
}

impl Default for ConnectionSettings {
    fn default() -> Self {
        ConnectionSettings {
            http2: false,
            streams: 1,
            coalesce: None,
        }
    }
}

impl ConnectionSettings {
    /// Whether clients share connections (HTTP/2, or a key-value pipeline deeper
    /// than 1).
    pub fn shares(&self) -> bool {
        self.http2 || self.streams > 1
    }
}

/// The most streams per connection `--streams` accepts: past this a server's own
/// limit (nginx's 128, hyper's 200) holds the rest in the client's queue anyway.
pub const MAX_STREAMS: usize = 10_000;

/// What a group of clients shares: one connection of a protocol that carries several
/// requests at once.
#[derive(Clone)]
pub(super) enum SharedConn {
    H2(H2Conn),
    Pipe(PipeConn),
}

impl SharedConn {
    fn is_closed(&self) -> bool {
        match self {
            SharedConn::H2(c) => c.is_closed(),
            SharedConn::Pipe(c) => c.is_closed(),
        }
    }
}

/// A client's hold on its group's connection: the connection and its generation.
pub(super) struct Handle {
    pub gen: u64,
    pub conn: SharedConn,
    /// A pipelined connection: this client's place in its queue, made on first use
    /// and kept for every command it sends on this connection.
    pub waiter: Option<Rc<Waiter>>,
}

impl Handle {
    /// A failure of this (closed) connection still to count: a reply that answered
    /// no command, charged to the next command as the unpipelined path charges it.
    /// Taken once.
    pub fn uncounted(&self) -> Option<pipeline::Failure> {
        match &self.conn {
            SharedConn::Pipe(c) => c.uncounted(),
            SharedConn::H2(_) => None,
        }
    }
}

/// One group's connection to one target.
#[derive(Default)]
pub(super) struct Shared {
    live: RefCell<Option<(u64, SharedConn)>>,
    generation: Cell<u64>,
    /// Held by the one client that opens the connection; the others of the group
    /// wait for it rather than open connections of their own.
    pub opening: tokio::sync::Mutex<()>,
}

impl Shared {
    /// A handle on the live connection, if there is one still open.
    pub fn current(&self) -> Option<Handle> {
        let live = self.live.borrow();
        let (gen, conn) = live.as_ref()?;
        (!conn.is_closed()).then(|| Handle {
            gen: *gen,
            conn: conn.clone(),
            waiter: None,
        })
    }

    /// Whether `h` is still on the group's live, open connection.
    pub fn holds(&self, h: &Handle) -> bool {
        self.live
            .borrow()
            .as_ref()
            .is_some_and(|(gen, c)| *gen == h.gen && !c.is_closed())
    }

    /// Make `conn` the group's connection and hand back a handle on it.
    pub fn install(&self, conn: SharedConn) -> Handle {
        let gen = self.generation.get() + 1;
        self.generation.set(gen);
        *self.live.borrow_mut() = Some((gen, conn.clone()));
        Handle {
            gen,
            conn,
            waiter: None,
        }
    }

    /// The connection of generation `gen` cannot carry more requests: the next
    /// client opens a new one. A later generation is left alone.
    pub fn retire(&self, gen: u64) {
        let mut live = self.live.borrow_mut();
        if live.as_ref().is_some_and(|(g, _)| *g == gen) {
            *live = None;
        }
    }
}

/// One worker's shared connections: per group of `streams` clients, one per target.
pub(super) struct Pool {
    /// Each local client's first slot (its group times the targets): looked up, not
    /// divided by `streams` on every request (a 64-bit division was ~29 instructions
    /// of a pipelined command's ~1,690).
    first_slot: Box<[usize]>,
    slots: Vec<Shared>,
    /// Targets whose TLS server picked HTTP/1.1 in ALPN: their clients go on with
    /// connections of their own.
    http1: Vec<Cell<bool>>,
}

impl Pool {
    pub fn new(settings: ConnectionSettings, n_clients: usize, n_targets: usize) -> Pool {
        let streams = settings.streams.max(1);
        let groups = n_clients.div_ceil(streams).max(1);
        Pool {
            first_slot: (0..n_clients)
                .map(|local| (local / streams) * n_targets)
                .collect(),
            slots: (0..groups * n_targets).map(|_| Shared::default()).collect(),
            http1: (0..n_targets).map(|_| Cell::new(false)).collect(),
        }
    }

    /// The shared connection of the worker's `local`-th client to `target`, or `None`
    /// when that target speaks HTTP/1.1 (each client its own connection).
    pub fn slot(&self, local: usize, target: usize) -> Option<&Shared> {
        if self.http1[target].get() {
            return None;
        }
        let first = *self.first_slot.get(local)?;
        self.slots.get(first + target)
    }

    /// `target`'s server picked HTTP/1.1: every client of this worker talks to it on
    /// a connection of its own from now on.
    pub fn fall_back_to_http1(&self, target: usize) {
        self.http1[target].set(true);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clients_are_grouped_by_streams() {
        let settings = ConnectionSettings {
            http2: true,
            streams: 3,
            coalesce: None,
        };
        let pool = Pool::new(settings, 7, 2);
        // 7 clients in groups of 3: 3 groups × 2 targets.
        assert_eq!(pool.slots.len(), 6);
        let at = |local, target| {
            let s = pool.slot(local, target).unwrap() as *const Shared;
            pool.slots.iter().position(|x| std::ptr::eq(x, s)).unwrap()
        };
        assert_eq!([at(0, 0), at(2, 0), at(3, 0), at(6, 1)], [0, 0, 2, 5]);
        pool.fall_back_to_http1(1);
        assert!(pool.slot(0, 1).is_none());
        assert!(pool.slot(0, 0).is_some());
    }

    #[test]
    fn a_pipeline_groups_clients_without_http2() {
        let one = ConnectionSettings::default();
        assert!(!one.shares());
        let piped = ConnectionSettings {
            http2: false,
            streams: 16,
            coalesce: None,
        };
        assert!(piped.shares());
        // 40 clients in groups of 16: 3 connections to the one target.
        assert_eq!(Pool::new(piped, 40, 1).slots.len(), 3);
    }

    #[test]
    fn retiring_an_old_generation_leaves_the_new_one() {
        let s = Shared::default();
        assert!(s.current().is_none());
        s.generation.set(4);
        s.retire(4);
        assert_eq!(s.generation.get(), 4);
    }
}
