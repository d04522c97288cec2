//! The epoll floor: edge-triggered readiness registered once per connection (no
//! `epoll_ctl` per request, unlike wrk), then per request one `send` and, per wake, one
//! `recv` — the two syscalls a keep-alive request needs, plus amortized `epoll_wait`.
//! With `--pace US` (and `--wait K`), a turn that found fewer than K ready connections
//! sleeps US µs before the next `epoll_wait`: epoll's way to batch wake-ups.

use crate::{connect, request, Conn, Counts, Deadline, Latency, Opts, BUF};
use std::io;
use std::time::Instant;

fn check(ret: libc::c_int) -> io::Result<libc::c_int> {
    if ret < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(ret)
    }
}

/// Sends the whole request (a few dozen bytes: a short send never happens into an empty
/// socket buffer, and is refused as an error if it does).
fn send(conn: &mut Conn, req: &[u8]) -> io::Result<()> {
    conn.sent = Instant::now();
    // SAFETY: req is a valid buffer for its length.
    let n = unsafe {
        libc::send(
            conn.fd(),
            req.as_ptr().cast(),
            req.len(),
            libc::MSG_NOSIGNAL,
        )
    };
    if n as usize != req.len() {
        return Err(if n < 0 {
            io::Error::last_os_error()
        } else {
            io::Error::other("short send")
        });
    }
    Ok(())
}

pub fn run(o: &Opts) -> io::Result<Counts> {
    let mut conns = connect(o.addr, o.conns)?;
    let req = request(o.addr);
    // SAFETY: plain syscalls on descriptors this function owns.
    let ep = check(unsafe { libc::epoll_create1(libc::EPOLL_CLOEXEC) })?;
    let mut c = Counts {
        lat: Latency::new(),
        responses: 0,
        syscalls: 1,
        turns: 0,
    };
    for (i, conn) in conns.iter_mut().enumerate() {
        let mut ev = libc::epoll_event {
            events: (libc::EPOLLIN | libc::EPOLLET) as u32,
            u64: i as u64,
        };
        check(unsafe { libc::epoll_ctl(ep, libc::EPOLL_CTL_ADD, conn.fd(), &mut ev) })?;
        send(conn, &req)?;
        c.syscalls += 2;
    }
    let mut events = vec![libc::epoll_event { events: 0, u64: 0 }; o.conns];
    let deadline = Deadline::new(o.secs);
    while !deadline.passed() {
        let n =
            check(unsafe { libc::epoll_wait(ep, events.as_mut_ptr(), events.len() as i32, 100) });
        c.syscalls += 1;
        c.turns += 1;
        let n = match n {
            Ok(n) => n as usize,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        for ev in &events[..n] {
            let conn = &mut conns[ev.u64 as usize];
            // One recv per wake: a return shorter than asked means the socket was drained,
            // so the next response's bytes bring a new edge.
            let want = BUF - conn.len;
            let got =
                unsafe { libc::recv(conn.fd(), conn.buf[conn.len..].as_mut_ptr().cast(), want, 0) };
            c.syscalls += 1;
            if got < 0 {
                let e = io::Error::last_os_error();
                if e.kind() == io::ErrorKind::WouldBlock {
                    continue;
                }
                return Err(e);
            }
            if got == 0 {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "server closed",
                ));
            }
            if conn.took(got as usize, &mut c.lat)? {
                c.responses += 1;
                send(conn, &req)?;
                c.syscalls += 1;
            }
        }
        // `--pace US`: sleep between turns so responses pile up and one wake-up serves
        // several, the batching io_uring's `--wait K` gets from the kernel, done here with
        // a timer instead (costs a nanosleep and a timer wake a turn).
        if o.pace_us > 0 && n < o.wait {
            let ts = libc::timespec {
                tv_sec: 0,
                tv_nsec: i64::from(o.pace_us) * 1000,
            };
            unsafe { libc::nanosleep(&ts, std::ptr::null_mut()) };
            c.syscalls += 1;
        }
    }
    unsafe { libc::close(ep) };
    Ok(c)
}
