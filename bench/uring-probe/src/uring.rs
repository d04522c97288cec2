//! The io_uring client: every SQE made ready in a loop turn goes in with the one
//! `io_uring_enter` that also waits for the next completion (or for K with `--wait K`).
//!
//! Two shapes: `uring` links each request's send to a recv into the connection's buffer
//! (`IO_LINK`; the send's completion is skipped on success, so one CQE a request);
//! `uring-multi` keeps one multishot recv armed per connection on a provided-buffer ring
//! shared by all connections, and submits only a send per request. Setup flags: `defer`
//! (SINGLE_ISSUER + DEFER_TASKRUN: completions run in our own enter, no task-work IPIs),
//! `coop` (SINGLE_ISSUER + COOP_TASKRUN), `none`, and `sqpoll` (a kernel thread polls the
//! SQ; its CPU is a thread of this process in /proc and is counted by getrusage and by
//! GNU time's wait4, both of which sum the thread group).

use crate::{connect, request, Conn, Counts, Deadline, Latency, Opts, BUF};
use io_uring::{cqueue, opcode, squeue, types, IoUring};
use std::io;
use std::os::fd::RawFd;
use std::time::Instant;

const SEND: u64 = 1;
const RECV: u64 = 2;
const GROUP: u16 = 0;

fn ring(o: &Opts) -> io::Result<IoUring> {
    let entries = (2 * o.conns as u32).next_power_of_two().max(8);
    let mut b = IoUring::builder();
    match o.setup.as_str() {
        "defer" => b.setup_single_issuer().setup_defer_taskrun(),
        "coop" => b.setup_single_issuer().setup_coop_taskrun(),
        "sqpoll" => b.setup_sqpoll(1000),
        _ => &mut b,
    };
    b.setup_cqsize(entries * 2).build(entries)
}

/// Builds SQEs for connection `i`, with the fd or the registered file's index.
struct Sqes<'a> {
    conns: &'a mut [Conn],
    fixed: bool,
    req: Vec<u8>,
}

impl Sqes<'_> {
    fn send(&mut self, i: usize) -> squeue::Entry {
        self.conns[i].sent = Instant::now();
        let (p, n) = (self.req.as_ptr(), self.req.len() as u32);
        let e = if self.fixed {
            opcode::Send::new(types::Fixed(i as u32), p, n)
                .flags(libc::MSG_NOSIGNAL)
                .build()
        } else {
            opcode::Send::new(types::Fd(self.conns[i].fd()), p, n)
                .flags(libc::MSG_NOSIGNAL)
                .build()
        };
        e.user_data((i as u64) << 8 | SEND)
            .flags(squeue::Flags::SKIP_SUCCESS)
    }

    fn recv(&mut self, i: usize) -> squeue::Entry {
        let c = &mut self.conns[i];
        let (p, n) = (c.buf[c.len..].as_mut_ptr(), (BUF - c.len) as u32);
        let e = if self.fixed {
            opcode::Recv::new(types::Fixed(i as u32), p, n).build()
        } else {
            opcode::Recv::new(types::Fd(c.fd()), p, n).build()
        };
        e.user_data((i as u64) << 8 | RECV)
    }

    fn recv_multi(&self, i: usize) -> squeue::Entry {
        let e = if self.fixed {
            opcode::RecvMulti::new(types::Fixed(i as u32), GROUP).build()
        } else {
            opcode::RecvMulti::new(types::Fd(self.conns[i].fd()), GROUP).build()
        };
        e.user_data((i as u64) << 8 | RECV)
    }
}

/// A provided-buffer ring: `n` buffers of BUF bytes the kernel picks from for multishot
/// recvs, each given back (tail bumped) once its bytes are copied out.
struct BufRing {
    ring: *mut types::BufRingEntry,
    mem: Vec<u8>,
    n: u16,
    tail: u16,
}

impl BufRing {
    fn new(uring: &IoUring, n: u16) -> io::Result<Self> {
        let layout = std::alloc::Layout::from_size_align(n as usize * 16, 4096).unwrap();
        // SAFETY: a zeroed page-aligned allocation that lives as long as the ring (leaked
        // at exit with the process).
        let ring = unsafe { std::alloc::alloc_zeroed(layout) } as *mut types::BufRingEntry;
        let mut br = BufRing {
            ring,
            mem: vec![0; n as usize * BUF],
            n,
            tail: 0,
        };
        unsafe {
            uring
                .submitter()
                .register_buf_ring_with_flags(ring as u64, n, GROUP, 0)?
        };
        for id in 0..n {
            br.give(id);
        }
        Ok(br)
    }

    fn buf(&self, id: u16) -> &[u8] {
        &self.mem[id as usize * BUF..(id as usize + 1) * BUF]
    }

    fn give(&mut self, id: u16) {
        // SAFETY: the slot index is masked into the ring; the tail store is a release so
        // the kernel sees the entry before the new tail.
        unsafe {
            let e = &mut *self.ring.add((self.tail & (self.n - 1)) as usize);
            e.set_addr(self.mem.as_ptr().add(id as usize * BUF) as u64);
            e.set_len(BUF as u32);
            e.set_bid(id);
            self.tail = self.tail.wrapping_add(1);
            let tail = types::BufRingEntry::tail(self.ring) as *const std::sync::atomic::AtomicU16;
            (*tail).store(self.tail, std::sync::atomic::Ordering::Release);
        }
    }
}

/// Pushes SQEs; the queue has room for two per connection, the most one turn can add.
fn push(ring: &mut IoUring, e: &[squeue::Entry]) -> io::Result<()> {
    // SAFETY: every buffer an SQE points to (the request, the connection buffers, the
    // buffer ring) lives until the ring is dropped at the end of run.
    unsafe { ring.submission().push_multiple(e) }
        .map_err(|_| io::Error::other("submission queue full"))
}

/// `struct io_uring_getevents_arg` with the `min_wait_usec` field the crate's SubmitArgs
/// does not expose (kernel 6.12+, IORING_FEAT_MIN_TIMEOUT).
#[repr(C)]
struct GetEventsArg {
    sigmask: u64,
    sigmask_sz: u32,
    min_wait_usec: u32,
    ts: u64,
}

/// Submits what is queued and waits for `want` completions for at most `min_wait_us`,
/// then for at least one (100 ms overall bound): batching wake-ups as `--wait` does, with
/// the time a response waits to be seen bounded, as a load tool's latency needs.
fn enter_min_wait(ring: &mut IoUring, want: u32, min_wait_us: u32) -> io::Result<usize> {
    const GETEVENTS: u32 = 1;
    const EXT_ARG: u32 = 1 << 3;
    let ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 100_000_000,
    };
    let arg = GetEventsArg {
        sigmask: 0,
        sigmask_sz: 0,
        min_wait_usec: min_wait_us,
        ts: &ts as *const libc::timespec as u64,
    };
    let queued = ring.submission().len() as u32;
    // SAFETY: the argument struct and the timespec it points to outlive the call.
    unsafe {
        ring.submitter()
            .enter(queued, want, GETEVENTS | EXT_ARG, Some(&arg))
    }
}

pub fn run(o: &Opts) -> io::Result<Counts> {
    let mut conns = connect(o.addr, o.conns)?;
    let mut ring = ring(o)?;
    let mut c = Counts {
        lat: Latency::new(),
        responses: 0,
        syscalls: 1,
        turns: 0,
    };
    if o.fixed {
        let fds: Vec<RawFd> = conns.iter().map(Conn::fd).collect();
        ring.submitter().register_files(&fds)?;
        c.syscalls += 1;
    }
    let multi = o.mode == "uring-multi";
    let mut bufs = if multi {
        c.syscalls += 1;
        Some(BufRing::new(
            &ring,
            (2 * o.conns as u16).next_power_of_two().max(8),
        )?)
    } else {
        None
    };
    let mut q = Sqes {
        conns: &mut conns,
        fixed: o.fixed,
        req: request(o.addr),
    };
    for i in 0..o.conns {
        if multi {
            push(&mut ring, &[q.recv_multi(i), q.send(i)])?;
        } else {
            let send = q.send(i).flags(squeue::Flags::IO_LINK);
            push(&mut ring, &[send, q.recv(i)])?;
        }
    }
    let ts = types::Timespec::new().nsec(100_000_000);
    let args = types::SubmitArgs::new().timespec(&ts);
    let deadline = Deadline::new(o.secs);
    let mut ready = Vec::with_capacity(2 * o.conns);
    while !deadline.passed() {
        // Wait for `--wait` completions at once (1 by default): with DEFER_TASKRUN the
        // kernel wakes this thread only when that many are ready, which epoll_wait cannot
        // do; bounded by a 100 ms timeout so a quiet server cannot hang the probe.
        let entered = if o.min_wait_us > 0 {
            enter_min_wait(&mut ring, o.wait as u32, o.min_wait_us)
        } else {
            ring.submitter().submit_with_args(o.wait, &args)
        };
        match entered {
            Ok(_) => {}
            Err(e) if e.raw_os_error() == Some(libc::ETIME) => {}
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
        c.syscalls += 1;
        c.turns += 1;
        for cqe in ring.completion() {
            let (i, kind) = ((cqe.user_data() >> 8) as usize, cqe.user_data() & 0xff);
            let res = cqe.result();
            if res < 0 {
                let e = io::Error::from_raw_os_error(-res);
                let what = if kind == SEND { "send" } else { "recv" };
                return Err(io::Error::new(
                    e.kind(),
                    format!("{what} on connection {i}: {e}"),
                ));
            }
            if kind == SEND {
                continue;
            }
            if res == 0 {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "server closed",
                ));
            }
            let done = if let Some(br) = bufs.as_mut() {
                let id = cqueue::buffer_select(cqe.flags())
                    .ok_or_else(|| io::Error::other("multishot recv without a buffer"))?;
                let conn = &mut q.conns[i];
                let n = res as usize;
                if conn.len + n > BUF {
                    return Err(io::Error::other("response larger than the probe's buffer"));
                }
                conn.buf[conn.len..conn.len + n].copy_from_slice(&br.buf(id)[..n]);
                br.give(id);
                let done = conn.took(n, &mut c.lat)?;
                if !cqueue::more(cqe.flags()) {
                    ready.push(q.recv_multi(i));
                }
                done
            } else {
                q.conns[i].took(res as usize, &mut c.lat)?
            };
            match (done, multi) {
                (true, true) => ready.push(q.send(i)),
                (true, false) => {
                    let send = q.send(i).flags(squeue::Flags::IO_LINK);
                    ready.push(send);
                    ready.push(q.recv(i));
                }
                (false, true) => {}
                (false, false) => ready.push(q.recv(i)),
            }
            c.responses += u64::from(done);
        }
        push(&mut ring, &ready)?;
        ready.clear();
    }
    Ok(c)
}
