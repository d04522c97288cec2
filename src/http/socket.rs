//! A plain TCP connection's sends and receives with fewer of tokio's readiness polls:
//! a send is tried first (tokio's `try_io` makes no syscall while it knows the socket
//! is not ready) and waits for room only when it would block; a receive waits for
//! readiness once, then reads through `try_io` rather than `poll_read`'s second poll.
//! Through rustix's raw syscalls, not libc's wrappers and their cancellation points.
//! A short read or write clears the readiness, as tokio's own `poll_read` and
//! `poll_write` do, so that [`super::Conn`]'s idle check before the next request still
//! costs no syscall (docs/performance.md has the measurement).

use std::future::poll_fn;
use std::io;

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
) -> io::Result<usize> {
    loop {
        rest(buf);
        poll_fn(|cx| s.poll_read_ready(cx)).await?;
        let mut got = 0;
        let tried = s.try_io(Interest::READABLE, || {
            lend(buf);
            let room = &mut buf[end..];
            got = recv(s, &mut *room, RecvFlags::empty())?.0;
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
