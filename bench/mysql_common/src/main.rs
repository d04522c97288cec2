//! What the `mysql_common` crate (the message layer of the `mysql` and
//! `mysql_async` crates) costs to fold the answers `bench/rust/mysql_fold.rs` folds
//! with hakaru's own `sql::mysql`: the same bytes (a COM_STMT_EXECUTE written, then
//! one CHAR(120) column's definition, EOF, ROWS binary or text rows, EOF), the same
//! counting allocator. Packets are cut by hand here (4-byte header), as cheaply as
//! anything can; the column definition is parsed into a `Column` and each row into a
//! `Row` of `Value`s, as those crates do for every answer.
//!
//! Usage: `hakaru-bench-mysql-common [ROUNDS=1000000] [ROWS=1]`

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

use mysql_common::io::ParseBuf;
use mysql_common::packets::{Column, ComStmtExecuteRequestBuilder};
use mysql_common::proto::{Binary, MyDeserialize, MySerialize, Text};
use mysql_common::row::RowDeserializer;
use mysql_common::value::ServerSide;
use mysql_common::Value;

struct Counting;
static ALLOCS: AtomicU64 = AtomicU64::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.realloc(p, l, n) }
    }
}

#[global_allocator]
static A: Counting = Counting;

fn packet(out: &mut Vec<u8>, seq: u8, body: &[u8]) {
    out.extend_from_slice(&(body.len() as u32).to_le_bytes()[..3]);
    out.push(seq);
    out.extend_from_slice(body);
}

fn coldef(ty: u8) -> Vec<u8> {
    let mut p = Vec::new();
    for s in ["def", "sbtest", "sbtest1", "sbtest1", "c", "c"] {
        p.push(s.len() as u8);
        p.extend_from_slice(s.as_bytes());
    }
    p.extend_from_slice(&[0x0c, 45, 0, 0, 1, 0, 0, ty, 0, 0, 0, 0, 0]);
    p
}

/// The server's answer, byte for byte as `mysql_fold.rs` builds it.
fn answer(rows: usize, binary: bool) -> Vec<u8> {
    let c = "83868641912-28773972837-60736120486-75162659906-27563526494-20381887404-41576422241-93426793964-56405065102-33518432330";
    let mut s = Vec::new();
    let mut seq = 1;
    let mut next = |s: &mut Vec<u8>, body: &[u8]| {
        packet(s, seq, body);
        seq += 1;
    };
    next(&mut s, b"\x01");
    next(&mut s, &coldef(0xfe));
    next(&mut s, b"\xfe\0\0\x02\0");
    let mut row = if binary { vec![0, 0] } else { vec![] };
    row.push(c.len() as u8);
    row.extend_from_slice(c.as_bytes());
    for _ in 0..rows {
        next(&mut s, &row);
    }
    next(&mut s, b"\xfe\0\0\x02\0");
    s
}

/// The next packet's payload and the bytes it took.
fn cut(b: &[u8]) -> (&[u8], usize) {
    let len = u32::from_le_bytes([b[0], b[1], b[2], 0]) as usize;
    (&b[4..4 + len], 4 + len)
}

/// One answer folded as the `mysql` crate does: the column count, the columns
/// parsed, EOF, every row a `Row`, EOF. Returns the rows' value bytes (a check).
fn fold(stream: &[u8], binary: bool) -> u64 {
    let (p, mut at) = cut(stream);
    let n = p[0] as usize;
    let mut columns = Vec::with_capacity(n);
    for _ in 0..n {
        let (p, used) = cut(&stream[at..]);
        at += used;
        columns.push(ParseBuf(p).parse::<Column>(()).unwrap());
    }
    let columns: Arc<[Column]> = columns.into();
    let (_eof, used) = cut(&stream[at..]);
    at += used;
    let mut total = 0u64;
    loop {
        let (p, used) = cut(&stream[at..]);
        at += used;
        if p.first() == Some(&0xfe) && p.len() < 9 {
            break;
        }
        let row = if binary {
            RowDeserializer::<ServerSide, Binary>::deserialize(columns.clone(), &mut ParseBuf(p))
                .unwrap()
                .into_inner()
        } else {
            RowDeserializer::<(), Text>::deserialize(columns.clone(), &mut ParseBuf(p))
                .unwrap()
                .into_inner()
        };
        if let Some(Value::Bytes(b)) = row.as_ref(0) {
            total += b.len() as u64;
        }
    }
    total
}

fn main() {
    let arg = |i: usize, d: usize| {
        std::env::args()
            .nth(i)
            .and_then(|a| a.parse().ok())
            .unwrap_or(d)
    };
    let (rounds, rows) = (arg(1, 1_000_000), arg(2, 1));
    for (name, binary) in [("binary", true), ("text", false)] {
        let stream = answer(rows, binary);
        let mut out = Vec::new();
        let mut run = |n: usize| {
            let mut total = 0u64;
            for i in 0..n {
                out.clear();
                let params = [Value::UInt(i as u64)];
                let (body, _) = ComStmtExecuteRequestBuilder::new(1).build(&params[..]);
                body.serialize(&mut out);
                total += fold(&stream, binary) + out.len() as u64;
            }
            total
        };
        run(10);
        let before = ALLOCS.load(Ordering::Relaxed);
        let t = Instant::now();
        let check = run(rounds);
        let ns = t.elapsed().as_nanos() as f64 / rounds as f64;
        let allocs = ALLOCS.load(Ordering::Relaxed) - before;
        println!("{name}: {rows} row(s) an answer, {ns:.0} ns an answer, {allocs} allocations in {rounds} (check {check})");
    }
}
