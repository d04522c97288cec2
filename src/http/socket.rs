//! A plain TCP connection's sends and receives with fewer of tokio's readiness polls:
//! a send is tried first (tokio's `try_io` makes no syscall while it knows the socket
//! is not ready) and waits for room only when it would block; a receive waits for
//! readiness once, then reads through `try_io` rather than `poll_read`'s second poll.
//! Through rustix's raw syscalls, not libc's wrappers and their cancellation points.
//! A short read or write clears the readiness, as tokio's own `poll_read` and
//! `poll_write` do, so that [`super::Conn`]'s idle check before the next request still
//! costs no syscall (docs/performance.md has the measurement).

use std::cell::Cell;
use std::future::poll_fn;
use std::io;
use std::os::fd::AsRawFd;
use std::time::{Duration, Instant};

use rustix::net::{recv, send, RecvFlags, SendFlags};
use tokio::io::Interest;
use tokio::net::TcpStream;

/// Send what the kernel takes of `b` (not empty) now, waiting for room only when it
/// takes nothing.
pub(super) async fn send_some(s: &TcpStream, b: &[u8]) -> io::Result<usize> {
    loop {
        let mut sent = 0;
        let tried = s.try_io(Interest::WRITABLE, || {
            sent = send(s, b, SendFlags::NOSIGNAL)?;
            // Short: the socket's buffer is full, so its readiness is cleared.
            if sent < b.len() {
                Err(io::ErrorKind::WouldBlock.into())
            } else {
                Ok(sent)
            }
        });
        match tried {
            Ok(n) => return Ok(n),
            Err(e) if e.kind() == io::ErrorKind::WouldBlock && sent > 0 => return Ok(sent),
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                poll_fn(|cx| s.poll_write_ready(cx)).await?
            }
            Err(e) => return Err(e),
        }
    }
}

/// Receive into `buf[end..]` once the socket is readable. `lend` gives the buffer its
/// bytes only then, and `rest` lets it go before the wait, so that an idle
/// connection holds none. The readiness wait comes first: a response is rarely there
/// the moment its request is sent, and the wait spends the task's budget (tokio's
/// cooperative scheduling), so a connection whose bytes are always there still lets
/// the worker's other clients, and the step's deadline, run.
pub(super) async fn recv_some(
    s: &TcpStream,
    buf: &mut Box<[u8]>,
    end: usize,
    lend: impl Fn(&mut Box<[u8]>),
    rest: impl Fn(&mut Box<[u8]>),
    arrived: &mut Option<Instant>,
) -> io::Result<usize> {
    loop {
        rest(buf);
        poll_fn(|cx| s.poll_read_ready(cx)).await?;
        let mut got = 0;
        let tried = s.try_io(Interest::READABLE, || {
            lend(buf);
            let room = &mut buf[end..];
            got = if stamping() {
                let (n, at) = recv_stamped(s, room)?;
                *arrived = at;
                n
            } else {
                recv(s, &mut *room, RecvFlags::empty())?.0
            };
            // Short: the socket is drained, so its readiness is cleared.
            if got > 0 && got < room.len() {
                Err(io::ErrorKind::WouldBlock.into())
            } else {
                Ok(got)
            }
        });
        match tried {
            Ok(n) => return Ok(n),
            Err(e) if e.kind() == io::ErrorKind::WouldBlock && got > 0 => return Ok(got),
            // Woken for nothing: wait again.
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
            Err(e) => return Err(e),
        }
    }
}

thread_local! {
    /// Whether this thread's plain connections take each read's arrival time from the
    /// kernel (`--coalesce`): its worker sleeps before it waits, so the moment a read
    /// returns is up to that long after the bytes came.
    static STAMPING: Cell<bool> = const { Cell::new(false) };
}

/// Make this thread's new plain connections stamp their reads (see [`stamping`]).
pub fn stamp_arrivals(on: bool) {
    STAMPING.with(|s| s.set(on));
}

/// Whether this thread's plain connections stamp their reads with the kernel's
/// receive time.
pub(crate) fn stamping() -> bool {
    STAMPING.with(Cell::get)
}

/// Ask the kernel to stamp what arrives on `s` (SO_TIMESTAMPNS: the wall-clock time
/// each segment came in, read back as a control message).
pub(crate) fn enable_stamps(s: &TcpStream) -> io::Result<()> {
    let on: libc::c_int = 1;
    // SAFETY: a valid socket, and an int option of its size.
    let r = unsafe {
        libc::setsockopt(
            s.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_TIMESTAMPNS,
            (&on as *const libc::c_int).cast(),
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        )
    };
    if r == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// Receive into `room` and the time the last segment read arrived, when the kernel
/// stamped it ([`enable_stamps`]): what the read brought ended then, not when the
/// worker got round to it. `None` for a segment the kernel did not stamp (the first
/// few milliseconds after the machine's first stamping socket, while the kernel
/// turns stamping on): the caller then takes its own clock, as without `--coalesce`.
pub(crate) fn recv_stamped(s: &TcpStream, room: &mut [u8]) -> io::Result<(usize, Option<Instant>)> {
    // Room for one control message carrying a timespec, aligned as cmsghdr wants.
    let mut control = [0u64; 8];
    let mut iov = libc::iovec {
        iov_base: room.as_mut_ptr().cast(),
        iov_len: room.len(),
    };
    // SAFETY: zeroed msghdr is valid; its pointers are set to live buffers below.
    let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
    msg.msg_iov = &mut iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.as_mut_ptr().cast();
    msg.msg_controllen = std::mem::size_of_val(&control) as _;
    // SAFETY: the socket is valid, and msg points at buffers that outlive the call.
    let n = unsafe { libc::recvmsg(s.as_raw_fd(), &mut msg, libc::MSG_DONTWAIT) };
    if n < 0 {
        return Err(io::Error::last_os_error());
    }
    let mut stamp = None;
    // SAFETY: the CMSG macros walk the control buffer the kernel filled, within
    // msg_controllen; a timespec is read unaligned from its data.
    unsafe {
        let mut c = libc::CMSG_FIRSTHDR(&msg);
        while !c.is_null() {
            if (*c).cmsg_level == libc::SOL_SOCKET && (*c).cmsg_type == libc::SCM_TIMESTAMPNS {
                let ts: libc::timespec = std::ptr::read_unaligned(libc::CMSG_DATA(c).cast());
                stamp = Some(arrival(ts.tv_sec as i64, ts.tv_nsec as i64));
            }
            c = libc::CMSG_NXTHDR(&msg, c);
        }
    }
    Ok((n as usize, stamp))
}

/// The monotonic instant of a wall-clock stamp: now, less how long ago the wall clock
/// says it was (now if the clock was set back in between).
fn arrival(sec: i64, nsec: i64) -> Instant {
    let now = Instant::now();
    let real = rustix::time::clock_gettime(rustix::time::ClockId::Realtime);
    let ago =
        (real.tv_sec as i64 - sec) as i128 * 1_000_000_000 + (real.tv_nsec as i64 - nsec) as i128;
    if ago <= 0 {
        return now;
    }
    let ago = Duration::from_nanos(ago.min(u64::MAX as i128) as u64);
    now.checked_sub(ago).unwrap_or(now)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The stamp is when the bytes came, not when they were read: read 30 ms after
    /// a write, the arrival is still about 30 ms back.
    #[tokio::test]
    async fn a_stamped_read_says_when_its_bytes_arrived() {
        use tokio::io::AsyncWriteExt;
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let client = TcpStream::connect(listener.local_addr().unwrap())
            .await
            .unwrap();
        let (mut server, _) = listener.accept().await.unwrap();
        enable_stamps(&client).unwrap();
        // The kernel turns stamping on for the machine from a work queue: the first
        // segments after the first socket asks may come unstamped (read as now).
        std::thread::sleep(Duration::from_millis(50));
        server.write_all(b"answer").await.unwrap();
        let written = Instant::now();
        std::thread::sleep(Duration::from_millis(30));
        client.readable().await.unwrap();
        let mut room = [0u8; 16];
        let (n, at) = recv_stamped(&client, &mut room).unwrap();
        let read = Instant::now();
        assert_eq!(&room[..n], b"answer");
        let at = at.expect("the kernel stamped the read");
        assert!(
            at < written + Duration::from_millis(5),
            "arrived {:?} after the write, read {:?} after it",
            at.saturating_duration_since(written),
            read - written
        );
        assert!(read - at >= Duration::from_millis(25), "{:?}", read - at);
    }
}
