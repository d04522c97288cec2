//! `hakaru serve --memcached ADDR`: a real memcached as the `/cached` service's cache
//! (instead of its in-process map), spoken to in memcached's text protocol over a few
//! blocking loopback connections kept in a pool. A miss is answered through the page
//! cache and the store as before, then `set` in memcached; `/cached/clear` and
//! `/cached/reboot` send `flush_all`.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Mutex;
use std::time::Duration;

/// How long one exchange with memcached may take.
const TIMEOUT: Duration = Duration::from_secs(5);

/// Connections to one memcached.
pub struct Memcached {
    addr: SocketAddr,
    pool: Mutex<Vec<BufReader<TcpStream>>>,
}

impl Memcached {
    pub fn new(addr: SocketAddr) -> Memcached {
        Memcached {
            addr,
            pool: Mutex::default(),
        }
    }

    /// One exchange on a pooled connection; a connection that failed is dropped.
    fn with<T>(
        &self,
        f: impl FnOnce(&mut BufReader<TcpStream>) -> std::io::Result<T>,
    ) -> Result<T, String> {
        let pooled = self.pool.lock().unwrap_or_else(|e| e.into_inner()).pop();
        let mut conn = match pooled {
            Some(c) => c,
            None => {
                let s = TcpStream::connect_timeout(&self.addr, TIMEOUT)
                    .map_err(|e| format!("memcached {}: {e}", self.addr))?;
                s.set_read_timeout(Some(TIMEOUT)).ok();
                s.set_write_timeout(Some(TIMEOUT)).ok();
                s.set_nodelay(true).ok();
                BufReader::new(s)
            }
        };
        let out = f(&mut conn).map_err(|e| format!("memcached {}: {e}", self.addr))?;
        self.pool
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(conn);
        Ok(out)
    }

    /// `get KEY`: the value, or `None` on a miss.
    pub fn get(&self, key: &str) -> Result<Option<Vec<u8>>, String> {
        self.with(|c| {
            c.get_mut().write_all(format!("get {key}\r\n").as_bytes())?;
            let head = line(c)?;
            if head == "END" {
                return Ok(None);
            }
            // VALUE <key> <flags> <bytes>
            let n: usize = head
                .strip_prefix("VALUE ")
                .and_then(|r| r.split(' ').nth(2))
                .and_then(|b| b.parse().ok())
                .ok_or_else(|| bad(&head))?;
            let mut value = vec![0; n + 2];
            c.read_exact(&mut value)?;
            value.truncate(n);
            let end = line(c)?;
            if end != "END" {
                return Err(bad(&end));
            }
            Ok(Some(value))
        })
    }

    /// `set KEY 0 0 N`: stored.
    pub fn set(&self, key: &str, value: &[u8]) -> Result<(), String> {
        self.with(|c| {
            let w = c.get_mut();
            w.write_all(format!("set {key} 0 0 {}\r\n", value.len()).as_bytes())?;
            w.write_all(value)?;
            w.write_all(b"\r\n")?;
            expect(c, "STORED")
        })
    }

    /// `flush_all`: every item gone.
    pub fn flush_all(&self) -> Result<(), String> {
        self.with(|c| {
            c.get_mut().write_all(b"flush_all\r\n")?;
            expect(c, "OK")
        })
    }
}

fn line(c: &mut BufReader<TcpStream>) -> std::io::Result<String> {
    let mut l = String::new();
    if c.read_line(&mut l)? == 0 {
        return Err(std::io::Error::new(
            std::io::ErrorKind::UnexpectedEof,
            "the connection closed",
        ));
    }
    Ok(l.trim_end().to_string())
}

fn expect(c: &mut BufReader<TcpStream>, want: &str) -> std::io::Result<()> {
    let got = line(c)?;
    if got == want {
        Ok(())
    } else {
        Err(bad(&got))
    }
}

fn bad(reply: &str) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::InvalidData,
        format!("unexpected reply {reply:?}"),
    )
}
